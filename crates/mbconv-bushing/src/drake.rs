//! Drake's `LinearBushingRollPitchYaw`, computed exactly as Drake does.
//!
//! With `R_AC`, `p_AoCo_A`, `w_AC_A`, `v_ACo_A` the motion of frame C relative to frame A:
//!
//! 1. Frame B is halfway between A and C: with the canonical quaternion `[q0, q]` of `R_AC`
//!    (`q0 ≥ 0`), `R_AB = [e0, q/(2·e0)]` where `e0 = √((q0 + 1)/2)`; `Bo` is the midpoint of
//!    `Ao` and `Co`.
//! 2. `[x, y, z] = R_BA·p_AoCo_A` and `[ẋ, ẏ, ż] = R_BA·(v_ACo_A − (½·w_AC_A) × p_AoCo_A)` (Drake
//!    uses `½·w_AC` for B's angular velocity, an approximation kept here on purpose).
//! 3. `q = [q0, q1, q2]` = roll-pitch-yaw of `R_AC` (`R_AC = Rz(q2)·Ry(q1)·Rx(q0)`),
//!    `q̇ = N·w_AC_A` with `N = [[c2/c1, s2/c1, 0], [−s2, c2, 0], [c2·t1, s2·t1, 1]]`;
//!    `|cos q1| < 0.008` is gimbal lock and an error.
//! 4. Gimbal torques `τ = −(k012 ∘ q + d012 ∘ q̇)`; torque on C `t = Nᵀ·τ` (in A).
//! 5. `f_B = −(kxyz ∘ xyz + dxyz ∘ ẋyz)`, `f = R_AB·f_B`; `f` and `t` act on C at `Bo`, `−f` and
//!    `−t` on A at `Bo`.

use crate::kinematics::RelativeMotion;
use crate::{BushingError, LawConstants, Wrench};
use mbconv_ir::rotation::{canonical, rpy::from_quaternion as quaternion_to_rpy};
use nalgebra::{Matrix3, Quaternion, UnitQuaternion, Vector3};

/// Drake's gimbal-lock tolerance on `|cos pitch|` (`RollPitchYaw`'s
/// `DoesCosPitchAngleViolateGimbalLockTolerance`).
pub const GIMBAL_LOCK_COS_PITCH: f64 = 0.008;

/// A spatial force expressed in one frame: a torque about that frame's origin and a force.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct SpatialForce {
    /// Moment about the frame origin.
    pub torque: Vector3<f64>,
    /// Resultant force.
    pub force: Vector3<f64>,
}

/// Every intermediate result of one evaluation, named as in Drake's documentation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DrakeEvaluation {
    /// `R_AB`, the half-angle frame B in A.
    pub r_ab: UnitQuaternion<f64>,
    /// `[q0, q1, q2]`: roll-pitch-yaw of C in A.
    pub rpy: Vector3<f64>,
    /// `[q̇0, q̇1, q̇2]`.
    pub rpy_dt: Vector3<f64>,
    /// Gimbal torques `τ`.
    pub tau: Vector3<f64>,
    /// `[x, y, z]`: `p_AoCo` in B.
    pub xyz_b: Vector3<f64>,
    /// `[ẋ, ẏ, ż]`.
    pub xyz_dt_b: Vector3<f64>,
    /// `t`: torque on C (about Bo), expressed in A.
    pub torque_on_c_a: Vector3<f64>,
    /// `f`: force on C (at Bo), expressed in A.
    pub force_on_c_a: Vector3<f64>,
    /// `F_A_A`: spatial force on A about Ao, expressed in A.
    pub f_a_a: SpatialForce,
    /// `F_C_C`: spatial force on C about Co, expressed in C.
    pub f_c_c: SpatialForce,
}

/// `R_AB` from `R_AC` by Drake's half-angle construction.
pub fn half_angle_rotation(r_ac: &UnitQuaternion<f64>) -> UnitQuaternion<f64> {
    let q = canonical(r_ac);
    let e0 = ((q.w + 1.0) / 2.0).sqrt();
    let s = 1.0 / (2.0 * e0);
    UnitQuaternion::new_unchecked(Quaternion::new(e0, q.i * s, q.j * s, q.k * s))
}

/// The matrix `N(q)` with `q̇ = N·w_AC_A`, or the gimbal-lock error.
pub fn rpy_rate_matrix(rpy: &Vector3<f64>) -> Result<Matrix3<f64>, BushingError> {
    let (s1, c1) = rpy[1].sin_cos();
    if c1.abs() < GIMBAL_LOCK_COS_PITCH {
        return Err(BushingError::GimbalLock {
            name: String::new(),
            pitch: rpy[1],
            cos_pitch: c1,
        });
    }
    let (s2, c2) = rpy[2].sin_cos();
    let t1 = s1 / c1;
    Ok(Matrix3::new(
        c2 / c1,
        s2 / c1,
        0.0,
        -s2,
        c2,
        0.0,
        c2 * t1,
        s2 * t1,
        1.0,
    ))
}

/// Evaluates the law for the motion of C relative to A, keeping every intermediate result.
///
/// ```
/// use mbconv_bushing::{LawConstants, drake, kinematics::RelativeMotion};
/// use nalgebra::{UnitQuaternion, Vector3};
/// let k = LawConstants { force_stiffness: Vector3::new(1.0, 2.0, 3.0), ..LawConstants::default() };
/// let rel = RelativeMotion { rotation: UnitQuaternion::identity(), position: Vector3::new(1.0, 1.0, 1.0),
///     angular_velocity: Vector3::zeros(), linear_velocity: Vector3::zeros() };
/// let e = drake::evaluate_relative(&k, &rel).unwrap();
/// assert_eq!(e.f_c_c.force, Vector3::new(-1.0, -2.0, -3.0));
/// ```
pub fn evaluate_relative(k: &LawConstants, rel: &RelativeMotion) -> Result<DrakeEvaluation, BushingError> {
    let r_ab = half_angle_rotation(&rel.rotation);
    let r_ba = r_ab.inverse();
    let p = rel.position;
    let xyz_b = r_ba * p;
    let xyz_dt_b = r_ba * (rel.linear_velocity - (0.5 * rel.angular_velocity).cross(&p));

    let rpy = Vector3::from(quaternion_to_rpy(&rel.rotation));
    let n = rpy_rate_matrix(&rpy)?;
    let rpy_dt = n * rel.angular_velocity;
    let tau = -(k.torque_stiffness.component_mul(&rpy) + k.torque_damping.component_mul(&rpy_dt));
    let t = n.transpose() * tau;

    let f_b = -(k.force_stiffness.component_mul(&xyz_b) + k.force_damping.component_mul(&xyz_dt_b));
    let f = r_ab * f_b;
    let half_p = 0.5 * p;
    let f_a_a = SpatialForce {
        torque: -t + half_p.cross(&(-f)),
        force: -f,
    };
    let r_ca = rel.rotation.inverse();
    let f_c_c = SpatialForce {
        torque: r_ca * (t + (-half_p).cross(&f)),
        force: r_ca * f,
    };
    Ok(DrakeEvaluation {
        r_ab,
        rpy,
        rpy_dt,
        tau,
        xyz_b,
        xyz_dt_b,
        torque_on_c_a: t,
        force_on_c_a: f,
        f_a_a,
        f_c_c,
    })
}

/// The wrenches on A (about Ao) and on C (about Co), in world coordinates.
pub fn evaluate(
    k: &LawConstants,
    a: &crate::FrameState,
    c: &crate::FrameState,
) -> Result<(Wrench, Wrench), BushingError> {
    let rel = RelativeMotion::of(a, c);
    let e = evaluate_relative(k, &rel)?;
    let r_wa = a.pose.rotation;
    let on_a = Wrench {
        torque: r_wa * e.f_a_a.torque,
        force: r_wa * e.f_a_a.force,
    };
    let half_p = 0.5 * rel.position;
    let on_c = Wrench {
        torque: r_wa * (e.torque_on_c_a + (-half_p).cross(&e.force_on_c_a)),
        force: r_wa * e.force_on_c_a,
    };
    Ok((on_a, on_c))
}

/// The stored energy `½·Σ kᵢ·qᵢ² + ½·(kx·x² + ky·y² + kz·z²)` (Drake does not implement one).
///
/// The torsional part is an exact potential of the gimbal torques: their power equals
/// `−d/dt` of it. The translational part is only approximately one when the bushing also
/// rotates, because `[ẋ, ẏ, ż]` uses `½·w_AC` for frame B's angular velocity; for
/// translation without rotation it is exact.
pub fn potential_energy(k: &LawConstants, rel: &RelativeMotion) -> f64 {
    let rpy = Vector3::from(quaternion_to_rpy(&rel.rotation));
    let xyz_b = half_angle_rotation(&rel.rotation).inverse() * rel.position;
    0.5 * (k.torque_stiffness.dot(&rpy.component_mul(&rpy))
        + k.force_stiffness.dot(&xyz_b.component_mul(&xyz_b)))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use mbconv_ir::rotation::rpy::to_quaternion as rpy_to_quaternion;

    #[test]
    fn half_angle_frame_halves_the_angle() {
        let axis = nalgebra::Unit::new_normalize(Vector3::new(1.0, 2.0, 3.0));
        for i in 0..32 {
            let angle = std::f64::consts::PI * 0.99 * f64::from(i) / 31.0;
            let r_ac = UnitQuaternion::from_axis_angle(&axis, angle);
            let expected = UnitQuaternion::from_axis_angle(&axis, angle / 2.0);
            assert!(half_angle_rotation(&r_ac).angle_to(&expected) < 64.0 * f64::EPSILON);
        }
    }

    #[test]
    fn gimbal_lock_boundary_is_drakes() {
        let rate = |pitch: f64| rpy_rate_matrix(&Vector3::new(0.0, pitch, 0.0));
        let half_pi = std::f64::consts::FRAC_PI_2;
        assert!(rate(half_pi).is_err());
        assert!(rate(half_pi - 0.0079).is_err());
        assert!(rate(half_pi - 0.0081).is_ok());
        assert!(rate(-half_pi + 0.0079).is_err());
        assert!(rate(-half_pi + 0.0081).is_ok());
    }

    #[test]
    fn pure_roll_at_rest_gives_minus_k0_roll() {
        let k = LawConstants {
            torque_stiffness: Vector3::new(2.0, 3.0, 4.0),
            ..LawConstants::default()
        };
        let rel = RelativeMotion {
            rotation: rpy_to_quaternion([0.5, 0.0, 0.0]),
            position: Vector3::zeros(),
            angular_velocity: Vector3::zeros(),
            linear_velocity: Vector3::zeros(),
        };
        let e = evaluate_relative(&k, &rel).unwrap();
        assert!((e.f_c_c.torque - Vector3::new(-1.0, 0.0, 0.0)).norm() < 1e-15);
        assert!((e.f_a_a.torque - Vector3::new(1.0, 0.0, 0.0)).norm() < 1e-15);
    }
}
