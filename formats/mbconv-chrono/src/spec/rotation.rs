//! Chrono's rotation conventions (`ChParserMbsYAML`), written with the IR's format-free
//! rotation maths:
//!
//! * Cardan angles `[yaw, pitch, roll]`: `R = Rz(yaw)·Ry(pitch)·Rx(roll)`, the roll-pitch-yaw
//!   rotation with the array reversed;
//! * the frames Chrono builds from an axis: REVOLUTE and PRISMATIC joints "Z = axis, suggested
//!   X = (1,0,0)"; motors, RSDAs and cylinder shapes "X = axis, suggested Y = (0,1,0)", then
//!   +90° about Y; UNIVERSAL joints `X = axis1, Z = axis1 × axis2`.

use mbconv_ir::rotation::{
    frame_with_x_along_z_normal, frame_with_z_along, from_columns, orthogonal_with_suggestion, rpy,
    unit_vector,
};
use nalgebra::{UnitQuaternion, Vector3};

/// Cardan angles `[yaw, pitch, roll]` (radians) to a quaternion:
/// `q = qZ(yaw) ⊗ qY(pitch) ⊗ qX(roll)`, i.e. `R = Rz·Ry·Rx`.
pub(crate) fn cardan_to_quaternion(yaw_pitch_roll: [f64; 3]) -> UnitQuaternion<f64> {
    let [yaw, pitch, roll] = yaw_pitch_roll;
    rpy::to_quaternion([roll, pitch, yaw])
}

/// The inverse of [`cardan_to_quaternion`], with pitch in `[-π/2, π/2]`.
pub(crate) fn quaternion_to_cardan(q: &UnitQuaternion<f64>) -> [f64; 3] {
    let [roll, pitch, yaw] = rpy::from_quaternion(q);
    [yaw, pitch, roll]
}

/// Chrono's "Z axis with suggested X = (1,0,0)" frame, used for REVOLUTE and PRISMATIC
/// joints: `Z = axis/|axis|`, `Y = normalize(Z × s)`, `X = Y × Z`. When `Z × s` vanishes,
/// Chrono bumps the suggestion to `(2,0,0)` and then `(2,1,0)`. `None` for a zero axis.
pub(crate) fn joint_frame_from_axis(axis: &Vector3<f64>) -> Option<UnitQuaternion<f64>> {
    frame_with_z_along(axis, Vector3::x())
}

/// The frame Chrono uses for motors, RSDAs and cylinder shapes: "X axis with suggested
/// Y = (0,1,0)", then a +90° turn about the local Y axis, so that `Z = axis`.
pub(crate) fn motor_frame_from_axis(axis: &Vector3<f64>) -> Option<UnitQuaternion<f64>> {
    let x0 = unit_vector(axis)?;
    let z0 = orthogonal_with_suggestion(&x0, Vector3::y()).normalize();
    let y0 = z0.cross(&x0);
    Some(from_columns(&(-z0), &y0, &x0))
}

/// The UNIVERSAL joint frame: `X = axis1`, `Z = axis1 × axis2`, `Y = Z × X` (normalised).
/// `None` when an axis is zero or the axes are parallel.
pub(crate) fn universal_frame(axis1: &Vector3<f64>, axis2: &Vector3<f64>) -> Option<UnitQuaternion<f64>> {
    frame_with_x_along_z_normal(axis1, axis2)
}
