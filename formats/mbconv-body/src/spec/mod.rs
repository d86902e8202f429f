//! Keys, defaults and conventions of the Choreonoid Body format that the reader and the writer
//! share: key spellings (camelCase and snake_case), the angle unit, the rotation and angle
//! spellings the writer produces (so the reader can keep what it would not reproduce), and the
//! fixed turn between Choreonoid's Y-axis primitives and the IR's Z-axis ones.

use mbconv_ir::Pose;
use nalgebra::{UnitQuaternion, Vector3};

pub(crate) mod joint_order;
/// Choreonoid's rotations: axis-angles `[x, y, z, θ]` (θ in radians here), lists of them
/// composed left to right.
pub mod rotation {
    use mbconv_ir::rotation::canonical;
    use nalgebra::{Unit, UnitQuaternion, Vector3};

    /// One axis-angle `[x, y, z, θ]` (the axis is normalised, as Choreonoid does). `None` for a
    /// zero or non-finite axis.
    pub fn axis_angle(axis_angle: [f64; 4]) -> Option<UnitQuaternion<f64>> {
        let axis = Vector3::new(axis_angle[0], axis_angle[1], axis_angle[2]);
        let n = axis.norm();
        if !(n.is_finite() && n > 0.0) {
            return None;
        }
        Some(UnitQuaternion::from_axis_angle(
            &Unit::new_unchecked(axis / n),
            axis_angle[3],
        ))
    }

    /// A list of axis-angles composed left to right, `R = R1·R2·…` (first entry outermost).
    /// `None` if any axis is zero.
    pub fn compose(list: &[[f64; 4]]) -> Option<UnitQuaternion<f64>> {
        list.iter()
            .try_fold(UnitQuaternion::identity(), |acc, aa| Some(acc * axis_angle(*aa)?))
    }

    /// A quaternion as a single axis-angle `[x, y, z, θ]` with θ in `[0, π]`; the identity
    /// gives `[0, 0, 1, 0]`.
    pub fn to_axis_angle(q: &UnitQuaternion<f64>) -> [f64; 4] {
        match canonical(q).axis_angle() {
            Some((axis, angle)) => [axis.x, axis.y, axis.z, angle],
            None => [0.0, 0.0, 1.0, 0.0],
        }
    }

    #[cfg(test)]
    mod tests {
        #![allow(clippy::unwrap_used)]
        use super::*;
        use mbconv_ir::rotation::{rot_x, rot_y, rot_z};

        #[test]
        fn axis_angle_lists_compose_left_to_right() {
            let deg = std::f64::consts::PI / 180.0;
            let q = compose(&[[1.0, 0.0, 0.0, 90.0 * deg], [0.0, 0.0, 2.0, 30.0 * deg]]).unwrap();
            assert!(q.angle_to(&(rot_x(90.0 * deg) * rot_z(30.0 * deg))) <= 1e-12);
            // The axis is normalised; a zero axis is refused.
            let single = axis_angle([0.0, 3.0, 0.0, 0.25]).unwrap();
            assert!(single.angle_to(&rot_y(0.25)) <= 1e-12);
            assert!(axis_angle([0.0, 0.0, 0.0, 1.0]).is_none());
            let back = axis_angle(to_axis_angle(&q)).unwrap();
            assert!(q.angle_to(&back) <= 1e-12);
            assert_eq!(to_axis_angle(&UnitQuaternion::identity()), [0.0, 0.0, 1.0, 0.0]);
        }
    }
}

/// The format name: code prefix of findings and errors, and the extras namespace.
pub const FORMAT: &str = "body";

/// Gravity Choreonoid's simulators apply (z up); the file has none.
pub const GRAVITY: [f64; 3] = [0.0, 0.0, -9.80665];

/// The time step of a Choreonoid simulator item that states none (s).
pub const DEFAULT_TIME_STEP: f64 = 0.001;

/// Every spelling of a key, camelCase first then snake_case (Choreonoid reads both).
pub fn spellings(key: &str) -> [String; 2] {
    let mut snake = String::with_capacity(key.len() + 4);
    for c in key.chars() {
        if c.is_ascii_uppercase() {
            snake.push('_');
            snake.push(c.to_ascii_lowercase());
        } else {
            snake.push(c);
        }
    }
    let mut camel = String::with_capacity(key.len());
    let mut upper = false;
    for c in key.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            camel.push(c.to_ascii_uppercase());
            upper = false;
        } else {
            camel.push(c);
        }
    }
    [camel, snake]
}

/// Degrees to radians as Choreonoid does it (`θ · π / 180`).
pub fn radians(degrees: f64) -> f64 {
    degrees * std::f64::consts::PI / 180.0
}

/// Radians to the degrees the writer writes.
pub fn degrees(radians: f64) -> f64 {
    radians * 180.0 / std::f64::consts::PI
}

/// Degrees that read back (through [`radians`]) to exactly `rad`: the nearest such number to
/// `degrees(rad)`, searched a few units in the last place either side; plain [`degrees`] when
/// none is that close (then the value comes back within an ulp or two; see the tests).
pub fn degrees_exact(rad: f64) -> f64 {
    let d = degrees(rad);
    if !d.is_finite() || radians(d).to_bits() == rad.to_bits() {
        return d;
    }
    let mut up = d;
    let mut down = d;
    for _ in 0..8 {
        up = up.next_up();
        down = down.next_down();
        for candidate in [up, down] {
            if radians(candidate).to_bits() == rad.to_bits() {
                return candidate;
            }
        }
    }
    d
}

/// The axis-angle `[x, y, z, degrees]` the writer writes for a rotation.
pub fn written_rotation(q: &UnitQuaternion<f64>) -> [f64; 4] {
    let [x, y, z, angle] = rotation::to_axis_angle(q);
    [x, y, z, degrees(angle)]
}

/// A rotation from axis-angles as written (`[x, y, z, θ]` each, composed left to right),
/// angles in degrees when `degree_mode`. `None` for a zero axis.
pub fn rotation_from_written(list: &[[f64; 4]], degree_mode: bool) -> Option<UnitQuaternion<f64>> {
    let converted: Vec<[f64; 4]> = list
        .iter()
        .map(|[x, y, z, a]| [*x, *y, *z, if degree_mode { radians(*a) } else { *a }])
        .collect();
    rotation::compose(&converted)
}

/// The turn from a Choreonoid primitive's frame (axis along Y) to the IR's (axis along Z):
/// `R · ẑ = ŷ`, a rotation of −90° about X.
pub fn y_axis_to_z_axis() -> Pose {
    Pose::from_rotation(UnitQuaternion::from_axis_angle(
        &Vector3::x_axis(),
        -std::f64::consts::FRAC_PI_2,
    ))
}

/// Device node types the reader turns into typed IR devices.
pub const DEVICE_TYPES: [&str; 10] = [
    "ForceSensor",
    "RateGyroSensor",
    "AccelerationSensor",
    "IMU",
    "Camera",
    "CameraDevice",
    "RangeSensor",
    "SpotLight",
    "PointLight",
    "DirectionalLight",
];

/// Device node types Choreonoid or its plugins register that the IR keeps verbatim.
pub const OTHER_DEVICE_TYPES: [&str; 20] = [
    "LivoxMid360",
    "DigitalIO",
    "Holder",
    "Attachment",
    "Conveyor",
    "MarkerDevice",
    "ZmpDevice",
    "CompetitorMarker",
    "AGXVehicleContinuousTrackDevice",
    "AGXBreakableJointDevice",
    "AGXMagneticJointDevice",
    "AGXWireDevice",
    "PxContinuousTrack",
    "FireDevice",
    "SmokeDevice",
    "FountainDevice",
    "RainDevice",
    "SnowDevice",
    "RotorDevice",
    "StdActionController",
];

/// Device parameters that are angles (converted in degree mode).
pub const DEVICE_ANGLE_KEYS: [&str; 12] = [
    "fieldOfView",
    "field_of_view",
    "yawRange",
    "yaw_range",
    "pitchRange",
    "pitch_range",
    "yawStep",
    "yaw_step",
    "pitchStep",
    "pitch_step",
    "beamWidth",
    "cutOffAngle",
];

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn both_spellings_come_from_either() {
        assert_eq!(
            spellings("jointType"),
            ["jointType".to_owned(), "joint_type".to_owned()]
        );
        assert_eq!(
            spellings("joint_type"),
            ["jointType".to_owned(), "joint_type".to_owned()]
        );
        assert_eq!(spellings("mass"), ["mass".to_owned(), "mass".to_owned()]);
    }

    #[test]
    fn exact_degrees_read_back() {
        for rad in [-2.618, 0.524, 1.0, 3.0, 1e-3] {
            assert_eq!(radians(degrees_exact(rad)).to_bits(), f64::to_bits(rad), "{rad}");
        }
    }

    #[test]
    fn the_primitive_turn_takes_z_to_y() {
        let y = y_axis_to_z_axis().transform_vector(&Vector3::z());
        assert!((y - Vector3::y()).norm() < 1e-15);
    }

    #[test]
    fn written_rotations_read_back() {
        let q = rotation_from_written(&[[0.0, 0.0, 2.0, 90.0]], true).unwrap();
        let w = written_rotation(&q);
        assert!((w[3] - 90.0).abs() < 1e-12 && (w[2] - 1.0).abs() < 1e-15);
    }
}
