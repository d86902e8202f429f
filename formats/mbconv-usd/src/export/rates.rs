//! Initial joint rates for Newton. USD has no joint velocities: the lowering bakes the IR's
//! joint rates into body velocities (`physics:velocity`, `physics:angularVelocity`), which
//! UsdPhysics states and this reader reads, but Newton 1.8 starts an articulated body from its
//! joint's rate and reads a body's velocity only where the body floats (`add_usd`:
//! `initialize_free_joint_velocities`). It reads a rate from `newton:angular:velocity` (a
//! revolute joint, degrees per second), `newton:linear:velocity` (a prismatic joint) and
//! `newton:rotX|rotY|rotZ:velocity` (a generic joint's free rotations); it has no attribute
//! for a generic joint's translations or a spherical joint's rates. The writer writes the rates
//! Newton reads, from the body velocities, beside them.

use mbconv_ir::{BodyRef, Joint, JointKind, Model, Pose};
use nalgebra::Vector3;

/// The twist of the joint's child relative to its parent at the initial state, in the axes of
/// the joint's parent frame (where the child frame stands at zero coordinates): the linear
/// velocity of the child point at the frame's origin, and the angular velocity. `None` when
/// neither side moves.
pub(crate) fn relative_twist(model: &Model, joint: &Joint) -> Option<(Vector3<f64>, Vector3<f64>)> {
    let side = |r: &BodyRef| {
        r.name().and_then(|n| model.body(n)).map(|b| {
            let v = b.initial_velocity.unwrap_or_default();
            (b.pose, v.linear, v.angular)
        })
    };
    let (parent, child) = (side(&joint.parent), side(&joint.child));
    let moving = |s: &Option<(Pose, Vector3<f64>, Vector3<f64>)>| {
        s.as_ref()
            .is_some_and(|(_, v, w)| *v != Vector3::zeros() || *w != Vector3::zeros())
    };
    if !moving(&parent) && !moving(&child) {
        return None;
    }
    let frame = parent
        .as_ref()
        .map_or(joint.parent_frame, |(p, _, _)| *p * joint.parent_frame);
    let origin = frame.translation;
    // The velocity of the body's point at the frame's origin, and the body's angular velocity.
    let point = |s: &Option<(Pose, Vector3<f64>, Vector3<f64>)>| match s {
        Some((pose, v, w)) => (v + w.cross(&(origin - pose.translation)), *w),
        None => (Vector3::zeros(), Vector3::zeros()),
    };
    let ((vp, wp), (vc, wc)) = (point(&parent), point(&child));
    let back = frame.rotation.inverse();
    Some((back * (vc - vp), back * (wc - wp)))
}

/// Rates below this (m/s, rad/s) are the round-off of a body moving with its parent.
const ROUND_OFF: f64 = 1e-12;

/// The rates of `joint` Newton reads, as (attribute, value in the attribute's unit), for the
/// joint as the writer writes it (a single-axis joint's axis X, Y or Z; a generic joint's free
/// axes `generic`, as `GENERIC_DOFS`), zero rates left out; and whether the joint has a
/// non-zero rate Newton has no attribute for.
pub(crate) fn newton_rates(model: &Model, joint: &Joint, generic: &[bool]) -> (Vec<(String, f64)>, bool) {
    let Some((linear, angular)) = relative_twist(model, joint) else {
        return (Vec::new(), false);
    };
    let mut said = Vec::new();
    let mut unsaid = false;
    let mut say = |name: &str, rate: f64, degrees: bool| {
        if rate.abs() > ROUND_OFF {
            let value = if degrees {
                rate * crate::spec::DEGREES_PER_RADIAN
            } else {
                rate
            };
            said.push((format!("newton:{name}:velocity"), value));
        }
    };
    match &joint.kind {
        JointKind::Revolute { axis } => say("angular", angular.dot(axis), true),
        JointKind::Prismatic { axis } => say("linear", linear.dot(axis), false),
        JointKind::Fixed | JointKind::Free => {}
        JointKind::Spherical | JointKind::Euler { .. } => unsaid = angular.amax() > ROUND_OFF,
        _ => {
            for (k, free) in generic.iter().enumerate() {
                let rate = if k < 3 { linear[k] } else { angular[k - 3] };
                if !free || rate.abs() <= ROUND_OFF {
                    continue;
                }
                if k < 3 {
                    unsaid = true;
                } else {
                    say(["rotX", "rotY", "rotZ"][k - 3], rate, true);
                }
            }
        }
    }
    (said, unsaid)
}
