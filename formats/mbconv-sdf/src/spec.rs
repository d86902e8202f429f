//! SDFormat's conventions and settings: the versions read, the read settings, the rotation
//! spellings of `<pose>`, the defaults of `<limit>` and the screw thread pitch conversion.

use mbconv_ir::Geometry;
use mbconv_ir::format::{SettingKind, SettingSpec};
use mbconv_ir::rotation;
use nalgebra::{Matrix3, UnitQuaternion};

/// The read setting listing directories searched for `model://NAME` URIs, `:`-separated,
/// before `GZ_SIM_RESOURCE_PATH` and `SDF_PATH`.
pub const MODEL_PATH: &str = "model_path";

/// The settings the SDFormat reader understands.
pub const READ_SETTINGS: &[SettingSpec] = &[SettingSpec {
    name: MODEL_PATH,
    kind: SettingKind::Text,
    default: "none",
    help: "directories holding models, `:`-separated, searched before GZ_SIM_RESOURCE_PATH and SDF_PATH for model:// URIs",
}];

/// The oldest SDFormat minor version read (1.4).
pub const OLDEST: u32 = 4;
/// The newest SDFormat minor version read (1.12).
pub const NEWEST: u32 = 12;

/// The minor version of an `<sdf version>` value, when it is `1.4` to `1.12`.
///
/// ```
/// assert_eq!(mbconv_sdf::spec::minor_version("1.7"), Some(7));
/// assert_eq!(mbconv_sdf::spec::minor_version("1.12"), Some(12));
/// assert_eq!(mbconv_sdf::spec::minor_version("1.3"), None);
/// assert_eq!(mbconv_sdf::spec::minor_version("2.0"), None);
/// ```
pub fn minor_version(text: &str) -> Option<u32> {
    let (major, minor) = text.trim().split_once('.')?;
    if major != "1" || minor.is_empty() || !minor.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let minor: u32 = minor.parse().ok()?;
    (OLDEST..=NEWEST).contains(&minor).then_some(minor)
}

/// The rotation of a pose's `roll pitch yaw` (radians): fixed axes X, then Y, then Z,
/// `R = Rz(yaw)·Ry(pitch)·Rx(roll)`, as libsdformat (gz-math `Pose3d`) reads it.
///
/// ```
/// let q = mbconv_sdf::spec::rpy([0.0, 0.0, std::f64::consts::FRAC_PI_2]);
/// assert!((q * nalgebra::Vector3::x() - nalgebra::Vector3::y()).norm() < 1e-15);
/// ```
pub fn rpy(angles: [f64; 3]) -> UnitQuaternion<f64> {
    rotation::rpy::to_quaternion(angles)
}

/// libsdformat's `<limit>` bounds `-1e16`/`1e16` (the defaults) mean "no limit": a bound at or
/// beyond `1e16` in size, or not finite, is no bound.
///
/// ```
/// assert_eq!(mbconv_sdf::spec::bound(1e16), None);
/// assert_eq!(mbconv_sdf::spec::bound(-0.5), Some(-0.5));
/// ```
pub fn bound(value: f64) -> Option<f64> {
    (value.is_finite() && value.abs() < 1e16).then_some(value)
}

/// The screw pitch in metres per revolution (the IR's, right-handed positive) of the
/// pre-1.10 `<thread_pitch>`, which Gazebo reads in radians per metre with the opposite
/// sign: `-2π / thread_pitch` (libsdformat's own conversion between the two elements).
///
/// ```
/// let p = mbconv_sdf::spec::pitch_from_thread_pitch(-4.0 * std::f64::consts::PI);
/// assert!((p - 0.5).abs() < 1e-15);
/// ```
pub fn pitch_from_thread_pitch(thread_pitch: f64) -> f64 {
    -std::f64::consts::TAU / thread_pitch
}

/// The volume of a solid shape and its inertia per unit mass about its centre, in its own
/// frame (cylinders and capsules along z), for `<inertial auto="true">`; `None` for shapes
/// without a closed form here (meshes, planes).
///
/// ```
/// use mbconv_ir::Geometry;
/// let (volume, unit) = mbconv_sdf::spec::solid(&Geometry::Box { size: [1.0, 2.0, 3.0] }).unwrap();
/// assert_eq!(volume, 6.0);
/// assert!((unit[(0, 0)] - 13.0 / 12.0).abs() < 1e-15);
/// ```
pub fn solid(geometry: &Geometry) -> Option<(f64, Matrix3<f64>)> {
    use std::f64::consts::PI;
    let diagonal = |x: f64, y: f64, z: f64| Matrix3::from_diagonal(&nalgebra::Vector3::new(x, y, z));
    Some(match *geometry {
        Geometry::Box { size: [x, y, z] } => (
            x * y * z,
            diagonal(y * y + z * z, x * x + z * z, x * x + y * y) / 12.0,
        ),
        Geometry::Sphere { radius: r } => (
            4.0 / 3.0 * PI * r.powi(3),
            diagonal(1.0, 1.0, 1.0) * (0.4 * r * r),
        ),
        Geometry::Ellipsoid { radii: [a, b, c] } => (
            4.0 / 3.0 * PI * a * b * c,
            diagonal(b * b + c * c, a * a + c * c, a * a + b * b) / 5.0,
        ),
        Geometry::Cylinder { radius: r, length: l } => {
            let side = (3.0 * r * r + l * l) / 12.0;
            (PI * r * r * l, diagonal(side, side, r * r / 2.0))
        }
        Geometry::Capsule { radius: r, length: l } => {
            // A cylinder and two hemispheres, each hemisphere's inertia moved from its own
            // centre of mass (3r/8 from the flat face) to the capsule's centre.
            let cylinder = PI * r * r * l;
            let hemisphere = 2.0 / 3.0 * PI * r.powi(3);
            let total = cylinder + 2.0 * hemisphere;
            let axial = cylinder * r * r / 2.0 + 2.0 * hemisphere * 0.4 * r * r;
            let side = cylinder * (3.0 * r * r + l * l) / 12.0
                + 2.0 * hemisphere * (0.4 * r * r + l * l / 4.0 + 3.0 * l * r / 8.0);
            (total, diagonal(side, side, axial) / total)
        }
        _ => return None,
    })
}
