//! Initial velocities: Chrono gives the centre-of-mass velocity (absolute) and the angular
//! velocity in the centre-of-mass frame; the IR gives the body-origin velocity and the angular
//! velocity, both in the world.

use mbconv_ir::{Body, Twist};
use nalgebra::Vector3;

/// IR twist from Chrono's COM velocity and COM-frame angular velocity.
pub(crate) fn twist_from_chrono(b: &Body, v_com: &Vector3<f64>, w_local: &Vector3<f64>) -> Twist {
    let r_com = b.pose.rotation * b.inertial.inertia_rotation;
    let angular = r_com * w_local;
    let offset = b.pose.rotation * b.inertial.com;
    Twist {
        linear: v_com - angular.cross(&offset),
        angular,
    }
}

/// Chrono's COM velocity and COM-frame angular velocity from an IR twist.
pub(crate) fn twist_to_chrono(b: &Body, t: &Twist) -> (Vector3<f64>, Vector3<f64>) {
    let r_com = b.pose.rotation * b.inertial.inertia_rotation;
    let offset = b.pose.rotation * b.inertial.com;
    (t.linear + t.angular.cross(&offset), r_com.inverse() * t.angular)
}
