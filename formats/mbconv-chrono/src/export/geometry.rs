//! The absolute points and axes written for joints, RSDAs and motors, and the frames Chrono
//! builds from them. Lowering makes the IR frames these frames; the emitter writes the numbers.

use crate::spec::FORMAT;
use crate::spec::frames::{self as convert, JointGeometry, JointType};
use mbconv_ir::format::kit::aids;
use mbconv_ir::{Extras, Joint, JointKind, Pose};
use nalgebra::Vector3;

/// The frames Chrono builds for a joint of type `ty` with geometry `g`, local to the bodies.
pub(crate) fn frames_for(ty: JointType, g: &JointGeometry, p1: &Pose, p2: &Pose) -> Option<(Pose, Pose)> {
    let x = convert::joint_frame(ty, g)?;
    Some((convert::to_local_frame(p1, &x), convert::to_local_frame(p2, &x)))
}

/// A kept vector aid.
fn kept_vec(extras: &Extras, key: &str) -> Option<Vector3<f64>> {
    aids::kept_array::<3>(extras, FORMAT, key).map(Vector3::from)
}

/// The geometry computed from a joint whose parent frame is at `x` (world).
pub(crate) fn fresh_geometry(j: &Joint, ty: JointType, x: &Pose) -> JointGeometry {
    let mut fresh = convert::joint_geometry(ty, x);
    match &j.kind {
        JointKind::Revolute { axis } | JointKind::Prismatic { axis } => fresh.axis = Some(x.rotation * axis),
        JointKind::Universal { axis1, axis2 } => fresh.axes = Some((x.rotation * axis1, x.rotation * axis2)),
        _ => {}
    }
    fresh
}

/// True when Chrono builds exactly the joint's frames (bit for bit) from `g`.
pub(crate) fn builds_joint(j: &Joint, ty: JointType, g: &JointGeometry, p1: &Pose, p2: &Pose) -> bool {
    j.kind == ty.kind()
        && frames_for(ty, g, p1, p2).is_some_and(|(a, b)| {
            convert::same_pose(&a, &j.parent_frame) && convert::same_pose(&b, &j.child_frame)
        })
}

/// The geometry written for a joint: the kept numbers (the file's own) when Chrono builds the
/// joint's frames from them bit for bit, else numbers computed from the parent frame.
pub(crate) fn joint_geometry(j: &Joint, ty: JointType, p1: &Pose, p2: &Pose) -> JointGeometry {
    let fresh = fresh_geometry(j, ty, &(*p1 * j.parent_frame));
    let kept = JointGeometry {
        location: kept_vec(&j.extras, "location").unwrap_or(fresh.location),
        axis: fresh.axis.map(|a| kept_vec(&j.extras, "axis").unwrap_or(a)),
        axes: fresh.axes.map(|(a1, a2)| {
            (
                kept_vec(&j.extras, "axis1").unwrap_or(a1),
                kept_vec(&j.extras, "axis2").unwrap_or(a2),
            )
        }),
    };
    if builds_joint(j, ty, &kept, p1, p2) {
        kept
    } else {
        fresh
    }
}

/// True when Chrono builds exactly the frames `f1` on body 1 and `f2` on body 2 (bit for bit)
/// from a location and an axis.
pub(crate) fn builds_axis_frames(
    g: &(Vector3<f64>, Vector3<f64>),
    p1: &Pose,
    f1: &Pose,
    p2: &Pose,
    f2: &Pose,
) -> bool {
    convert::axis_frame(&g.0, &g.1).is_some_and(|w| {
        convert::same_pose(&convert::to_local_frame(p1, &w), f1)
            && convert::same_pose(&convert::to_local_frame(p2, &w), f2)
    })
}

/// The location and axis written for a frame pair Chrono builds from a location and an axis
/// (RSDAs, motors): the kept numbers where Chrono builds the frames from them bit for bit,
/// else numbers computed from the frame on body 1.
pub(crate) fn axis_geometry(
    extras: &Extras,
    p1: &Pose,
    f1: &Pose,
    p2: &Pose,
    f2: &Pose,
) -> (Vector3<f64>, Vector3<f64>) {
    let x = *p1 * *f1;
    let fresh = (x.translation, x.rotation * Vector3::z());
    let kept = (
        kept_vec(extras, "location").unwrap_or(fresh.0),
        kept_vec(extras, "axis").unwrap_or(fresh.1),
    );
    if builds_axis_frames(&kept, p1, f1, p2, f2) {
        kept
    } else {
        fresh
    }
}
