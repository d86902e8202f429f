//! Initial velocities: Chrono gives the centre-of-mass velocity (absolute) and the angular
//! velocity in the centre-of-mass frame; the IR gives the body-origin velocity and the angular
//! velocity, both in the world.

use crate::spec::FORMAT;
use crate::spec::frames as convert;
use mbconv_ir::format::kit::aids;
use mbconv_ir::{Body, Twist};
use nalgebra::Vector3;

/// The exactness-aid keys of the two velocity fields.
const LINEAR: &str = "initial_linear_velocity";
const ANGULAR: &str = "initial_angular_velocity";

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

/// The numbers Chrono YAML writes for the twist `t` of `b`: the kept source numbers when they
/// give `t` back bit for bit, fresh ones otherwise.
pub(crate) fn written_velocity(b: &Body, t: &Twist) -> (Vector3<f64>, Vector3<f64>) {
    let (v, w) = twist_to_chrono(b, t);
    let kept = |key: &str, fresh: Vector3<f64>| {
        aids::kept(&b.extras, FORMAT, key)
            .filter(|k| k.len() == 3)
            .map_or(fresh, |k| Vector3::new(k[0], k[1], k[2]))
    };
    let (cv, cw) = (kept(LINEAR, v), kept(ANGULAR, w));
    let back = twist_from_chrono(b, &cv, &cw);
    if convert::same_vector(&back.linear, &t.linear) && convert::same_vector(&back.angular, &t.angular) {
        (cv, cw)
    } else {
        (v, w)
    }
}

/// Sets the initial velocity of `b` from Chrono's numbers as the reader reads them, and keeps
/// the numbers as exactness aids where a fresh conversion of the twist would not give them.
pub(crate) fn set_from_chrono(b: &mut Body, v_com: &Vector3<f64>, w_local: &Vector3<f64>) {
    let twist = twist_from_chrono(b, v_com, w_local);
    let (fresh_v, fresh_w) = twist_to_chrono(b, &twist);
    for key in [LINEAR, ANGULAR] {
        b.extras.remove(&aids::key(FORMAT, key));
    }
    aids::keep(
        &mut b.extras,
        FORMAT,
        LINEAR,
        &convert::v3(v_com),
        &convert::v3(&fresh_v),
    );
    aids::keep(
        &mut b.extras,
        FORMAT,
        ANGULAR,
        &convert::v3(w_local),
        &convert::v3(&fresh_w),
    );
    b.initial_velocity = Some(twist);
}

/// Replaces the initial velocity of `b` by the one the reader will read from the numbers the
/// emitter writes for it. The two differ in the last bits (Chrono's velocities are the
/// centre-of-mass velocity and the angular velocity in the centre-of-mass frame, a rotation
/// away from the IR's); a model whose motion hinges on a near-singular constraint (the Shift
/// Bricard linkage, 6 revolute joints in one loop) amplifies such bits to micrometres.
pub(crate) fn quantise(b: &mut Body) {
    if let Some(t) = b.initial_velocity {
        let (v, w) = written_velocity(b, &t);
        set_from_chrono(b, &v, &w);
    }
}
