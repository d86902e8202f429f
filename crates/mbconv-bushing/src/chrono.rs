//! Chrono's generic bushing (`ChLoadBodyBodyBushingGeneric`), the law a Chrono YAML joint with
//! `bushing_data` builds.
//!
//! In the IR's terms frame A is Chrono's marker on body 1 and frame C the marker on body 2
//! (Chrono calls them A and B). With `Fa`, `Fc` their world frames, the relative frame is
//! `Fc⁻¹·Fa` (A seen from C):
//!
//! - `S_lin` = origin of A in C's coordinates; `Ṡ_lin` its time derivative as seen in C;
//! - `S_rot` = rotation vector of the relative rotation, angle `2·atan2(|v|, w)` wrapped into
//!   `[−π, π]` times the unit axis (Chrono's "small rotations" log map, the IR's
//!   [`mbconv_ir::rotation::rotation_vector::from_quaternion`]); `Ṡ_rot` = angular
//!   velocity of A relative to C, in C's coordinates;
//! - `[f; t] = K·S + D·Ṡ` with the diagonal `K = diag(kx, ky, kz, k0, k1, k2)` (IR
//!   `force_stiffness`, `torque_stiffness`) and `D` likewise, all in C's axes;
//! - `+f`, `+t` (rotated to world) act on C with `f` at Co; `−f`, `−t` act on A with `−f` at Ao.
//!
//! The two forces act at different points once the bushing deflects, so the pair of wrenches
//! has a net moment `(Co − Ao) × f` (Chrono's law, reproduced as is).

use crate::{FrameState, LawConstants, Wrench};
use mbconv_ir::rotation::rotation_vector;
use nalgebra::Vector3;

/// The intermediate results of one evaluation, in C's coordinates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChronoEvaluation {
    /// `S_lin`: origin of A in C.
    pub displacement: Vector3<f64>,
    /// `S_rot`: rotation vector of A relative to C, in C.
    pub rotation_vector: Vector3<f64>,
    /// `Ṡ_lin`.
    pub displacement_rate: Vector3<f64>,
    /// `Ṡ_rot`: angular velocity of A relative to C, in C.
    pub angular_velocity: Vector3<f64>,
    /// `f = K·S + D·Ṡ` (translational part), in C: the force on C.
    pub force_c: Vector3<f64>,
    /// `t` (rotational part), in C: the torque on C.
    pub torque_c: Vector3<f64>,
}

/// Evaluates the law for frames A (body 1 marker) and C (body 2 marker), keeping the
/// intermediate results.
pub fn evaluate_relative(k: &LawConstants, a: &FrameState, c: &FrameState) -> ChronoEvaluation {
    let r_wc = c.pose.rotation;
    let r_cw = r_wc.inverse();
    let d_w = a.pose.translation - c.pose.translation;
    let displacement = r_cw * d_w;
    let rotation_vector = Vector3::from(rotation_vector::from_quaternion(&(r_cw * a.pose.rotation)));
    let displacement_rate = r_cw * (a.linear_velocity - c.linear_velocity - c.angular_velocity.cross(&d_w));
    let angular_velocity = r_cw * (a.angular_velocity - c.angular_velocity);
    let force_c =
        k.force_stiffness.component_mul(&displacement) + k.force_damping.component_mul(&displacement_rate);
    let torque_c = k.torque_stiffness.component_mul(&rotation_vector)
        + k.torque_damping.component_mul(&angular_velocity);
    ChronoEvaluation {
        displacement,
        rotation_vector,
        displacement_rate,
        angular_velocity,
        force_c,
        torque_c,
    }
}

/// The wrenches on A (about Ao) and on C (about Co), in world coordinates.
///
/// ```
/// use mbconv_bushing::{FrameState, LawConstants, chrono};
/// use mbconv_ir::Pose;
/// use nalgebra::Vector3;
/// let k = LawConstants { force_stiffness: Vector3::new(100.0, 100.0, 100.0), ..LawConstants::default() };
/// let a = FrameState::at_rest(Pose::from_translation(Vector3::new(0.01, 0.0, 0.0)));
/// let c = FrameState::at_rest(Pose::identity());
/// let (on_a, on_c) = chrono::evaluate(&k, &a, &c);
/// assert_eq!(on_c.force, Vector3::new(1.0, 0.0, 0.0)); // C is pulled towards A
/// assert_eq!(on_a.force, -on_c.force);
/// ```
pub fn evaluate(k: &LawConstants, a: &FrameState, c: &FrameState) -> (Wrench, Wrench) {
    let e = evaluate_relative(k, a, c);
    let r_wc = c.pose.rotation;
    let force = r_wc * e.force_c;
    let torque = r_wc * e.torque_c;
    (
        Wrench {
            torque: -torque,
            force: -force,
        },
        Wrench { torque, force },
    )
}

/// The stored energy `½·SᵀK·S` of the deflection (translation and rotation vector). It is an
/// exact potential of the translational spring only when the bushing does not rotate, and of
/// the rotational spring only for rotations about a fixed axis: Chrono's law is written for
/// small rotations.
pub fn potential_energy(k: &LawConstants, a: &FrameState, c: &FrameState) -> f64 {
    let e = evaluate_relative(k, a, c);
    0.5 * (k
        .force_stiffness
        .dot(&e.displacement.component_mul(&e.displacement))
        + k.torque_stiffness
            .dot(&e.rotation_vector.component_mul(&e.rotation_vector)))
}
