//! Devices: sensors, cameras and lights. They do not affect dynamics.

use crate::model::BodyRef;
use crate::pose::Pose;
use crate::value::{Extras, ValueMap};
use serde::{Deserialize, Serialize};

/// A sensor, camera or light mounted on a body or in the world.
///
/// `parameters` holds the device's settings under snake_case keys in SI units and radians
/// (`max_force`, `field_of_view`, `frame_rate`, `color`, …); importers convert units.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Device {
    /// Unique name.
    pub name: String,
    /// Kind of device.
    pub device_type: DeviceType,
    /// Mounting body (or the world).
    pub body: BodyRef,
    /// Pose in the body frame.
    #[serde(default)]
    pub pose: Pose,
    /// Device index (Choreonoid `id`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<i64>,
    /// Settings in SI units.
    #[serde(default, skip_serializing_if = "ValueMap::is_empty")]
    pub parameters: ValueMap,
    /// Format-specific data kept verbatim.
    #[serde(default, skip_serializing_if = "Extras::is_empty")]
    pub extras: Extras,
}

/// Device kinds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeviceType {
    /// Six-axis force/torque sensor.
    ForceSensor,
    /// Three-axis gyroscope.
    RateGyroSensor,
    /// Three-axis accelerometer.
    AccelerationSensor,
    /// Inertial measurement unit.
    Imu,
    /// Camera (colour, depth or point cloud).
    Camera,
    /// Scanning range sensor.
    RangeSensor,
    /// Spot light.
    SpotLight,
    /// Point light.
    PointLight,
    /// Directional light.
    DirectionalLight,
    /// Any other device, by the format's type name.
    Other(String),
}
