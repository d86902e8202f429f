//! External loads on bodies.

use crate::model::function::TimeFunction;
use crate::value::Extras;
use nalgebra::Vector3;
use serde::{Deserialize, Serialize};

/// A force or torque applied to one body, optionally scaled by a function of time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BodyLoad {
    /// Unique name.
    pub name: String,
    /// Force or torque.
    pub load_type: LoadType,
    /// The loaded body.
    pub body: String,
    /// The force or torque vector.
    pub vector: Vector3<f64>,
    /// True: `vector` is fixed in the body frame and turns with it; false: fixed in the world.
    pub vector_in_body_frame: bool,
    /// Application point (forces).
    #[serde(default = "Vector3::zeros")]
    pub point: Vector3<f64>,
    /// True: `point` is body-fixed, body coordinates; false: a point fixed in space.
    #[serde(default)]
    pub point_in_body_frame: bool,
    /// Scale factor over time (1 when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modulation: Option<TimeFunction>,
    /// The value is set at run time by a controller (Chrono `load_controllers`); zero otherwise.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub external: bool,
    /// Format-specific data kept verbatim.
    #[serde(default, skip_serializing_if = "Extras::is_empty")]
    pub extras: Extras,
}

/// Force or torque.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LoadType {
    /// A force at a point.
    Force,
    /// A pure torque.
    Torque,
}
