//! The initial velocity of a DART `free` joint, converted to and from the IR's.
//!
//! Measured with dartpy 6.20.0: the six `init_vel` numbers `[ω_d; v_d]` give the child body
//! the spatial velocity `Ad(T_cj) · [ω_d; v_d]` relative to the parent body, expressed in the
//! parent body frame at the child body origin, where `T_cj = (R_c, t_c)` is the joint
//! `<transformation>`: `ω = R_c ω_d` and `v_body = R_c v_d + t_c × (R_c ω_d)`. With an identity
//! joint transformation this is the world-frame angular velocity and the world velocity of the
//! body origin. The IR's `v0` of a free joint is `[v; ω]` of the child joint frame origin in
//! the parent joint frame.

use mbconv_ir::Pose;
use nalgebra::Vector3;

/// The IR's `v0` (`[v; ω]`) from DART's free-joint `init_vel` (`[ω_d; v_d]`).
///
/// `child_frame` is the joint transformation, `parent_frame` the parent-side joint frame and
/// `child_in_parent` the child body pose in the parent body at the initial configuration.
pub(crate) fn from_dart(
    dart: [f64; 6],
    child_frame: &Pose,
    parent_frame: &Pose,
    child_in_parent: &Pose,
) -> [f64; 6] {
    let rc = child_frame.rotation;
    let tc = child_frame.translation;
    let omega_d = Vector3::new(dart[0], dart[1], dart[2]);
    let v_d = Vector3::new(dart[3], dart[4], dart[5]);
    let omega = rc * omega_d;
    let v_body = rc * v_d + tc.cross(&omega);
    let v_joint = v_body + omega.cross(&(child_in_parent.rotation * tc));
    let rp_inv = parent_frame.rotation.inverse();
    let v = rp_inv * v_joint;
    let w = rp_inv * omega;
    [v.x, v.y, v.z, w.x, w.y, w.z]
}

/// DART's free-joint `init_vel` (`[ω_d; v_d]`) from the IR's `v0` (`[v; ω]`); the inverse of
/// [`from_dart`].
pub(crate) fn to_dart(
    ir: [f64; 6],
    child_frame: &Pose,
    parent_frame: &Pose,
    child_in_parent: &Pose,
) -> [f64; 6] {
    let rc_inv = child_frame.rotation.inverse();
    let tc = child_frame.translation;
    let v_joint = parent_frame.rotation * Vector3::new(ir[0], ir[1], ir[2]);
    let omega = parent_frame.rotation * Vector3::new(ir[3], ir[4], ir[5]);
    let v_body = v_joint - omega.cross(&(child_in_parent.rotation * tc));
    let omega_d = rc_inv * omega;
    let v_d = rc_inv * (v_body - tc.cross(&omega));
    [omega_d.x, omega_d.y, omega_d.z, v_d.x, v_d.y, v_d.z]
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use mbconv_ir::rotation::xyz_angles::to_quaternion as xyz_to_quaternion;

    #[test]
    fn identity_frames_reorder_only() {
        let id = Pose::identity();
        let ir = from_dart([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &id, &id, &id);
        assert_eq!(ir, [4.0, 5.0, 6.0, 1.0, 2.0, 3.0]);
    }

    #[test]
    fn round_trip() {
        let c = Pose::new(Vector3::new(0.1, 0.2, 0.3), xyz_to_quaternion([0.5, 0.1, 0.0]));
        let p = Pose::new(Vector3::new(-0.4, 0.2, 1.0), xyz_to_quaternion([0.2, -0.3, 0.7]));
        let x = Pose::new(Vector3::new(1.0, 2.0, 3.0), xyz_to_quaternion([0.3, 0.2, 0.1]));
        let dart = [1.0, -2.0, 3.0, 0.5, 0.25, -4.0];
        let back = to_dart(from_dart(dart, &c, &p, &x), &c, &p, &x);
        for (a, b) in dart.iter().zip(back) {
            assert!((a - b).abs() < 1e-12);
        }
    }
}
