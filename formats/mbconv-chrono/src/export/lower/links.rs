//! Joints and constraints: the kinds Chrono YAML has, the frames Chrono builds from absolute
//! points and axes, and the joint data it has no place for.

use super::{Lowering, pose_of};
use crate::export::geometry::{builds_joint, frames_for, fresh_geometry, joint_geometry};
use crate::spec::frames::{self as convert, JointType};
use crate::spec::{self, FORMAT};
use mbconv_ir::format::kit::aids;
use mbconv_ir::report::path;
use mbconv_ir::{Category, ConstraintKind, DofProperties, Joint, JointKind, Model, Pose};
use nalgebra::Vector3;

/// Tolerance for "the same place / the same direction" in the reference configuration.
const GEOMETRY_TOLERANCE: f64 = 1e-9;

/// Removes joints Chrono YAML cannot say and the joint data it has no place for.
pub(super) fn joints(l: &mut Lowering, model: &mut Model) {
    let mut kept = Vec::new();
    for mut j in std::mem::take(&mut model.joints) {
        let ip = path::item("joints", &j.name);
        if let JointKind::Euler { order } = j.kind {
            l.note(
                &ip,
                format!(
                    "euler joint written as a Chrono SPHERICAL joint: the same motion, but its coordinates are no longer the three {} angles (Chrono has no joint coordinates)",
                    format!("{order:?}").to_uppercase()
                ),
            );
            j.kind = JointKind::Spherical;
        }
        if j.kind == JointKind::Free {
            // Its initial state is already in the body's pose and velocity (baked above).
            if j.dofs.iter().any(|d| *d != DofProperties::default()) {
                l.lost(
                    Category::Dropped,
                    &ip,
                    "the free joint's limits, damping, springs and friction: Chrono YAML has no free joint to carry them",
                );
            }
            l.note(&ip, "a free joint is not written: the body is free in Chrono");
            continue;
        }
        let Some(ty) = JointType::of(&j.kind) else {
            l.lost(Category::Dropped, &ip, why_not(&j.kind));
            continue;
        };
        if j.bushing.is_some()
            && matches!(
                ty,
                JointType::Prismatic | JointType::PointLine | JointType::PointPlane
            )
        {
            l.lost(
                Category::Dropped,
                &ip,
                format!("bushing on a {} joint: Chrono refuses it", ty.name()),
            );
            j.bushing = None;
        }
        // Springs and dampers on one-coordinate joints become RSDAs and TSDAs (`springs`).
        let spring_dofs = matches!(ty, JointType::Revolute | JointType::Prismatic);
        let kept_dof = |d: &DofProperties| DofProperties {
            damping: if spring_dofs { d.damping } else { 0.0 },
            spring_stiffness: if spring_dofs { d.spring_stiffness } else { 0.0 },
            spring_rest_position: if spring_dofs { d.spring_rest_position } else { 0.0 },
            ..DofProperties::default()
        };
        if j.dofs.iter().any(|d| *d != kept_dof(d)) {
            l.lost(
                Category::Dropped,
                &ip,
                "joint limits, friction, rotor inertia (and springs and damping except on revolute and prismatic joints): Chrono YAML joints have none",
            );
        }
        j.dofs = j.dofs.iter().map(kept_dof).collect();
        if j.actuator.is_some() || j.joint_id.is_some() {
            l.lost(Category::Dropped, &ip, "joint actuator type and controller id");
            j.actuator = None;
            j.joint_id = None;
        }
        if !j.enabled {
            l.lost(Category::Dropped, &ip, "a disabled joint is written as enabled");
            j.enabled = true;
        }
        l.strip_foreign_extras(&mut j.extras, &ip);
        kept.push(j);
    }
    model.joints = kept;
}

/// Why Chrono YAML cannot say a joint kind.
fn why_not(kind: &JointKind) -> String {
    match kind {
        JointKind::Planar { .. } => "Chrono YAML has no planar joint: its parser knows LOCK, REVOLUTE, SPHERICAL, PRISMATIC, UNIVERSAL, POINT_LINE and POINT_PLANE only, POINT_PLANE leaves the two tilts free (5 degrees of freedom, not 3), and a composition would need intermediate bodies, which in Chrono have mass".to_owned(),
        JointKind::Translational => "Chrono YAML has no translational (3 sliding) joint: POINT_PLANE and POINT_LINE leave the rotations free, and three PRISMATIC joints in series would need two intermediate bodies, which in Chrono have mass".to_owned(),
        JointKind::Cylindrical { .. } => "Chrono YAML has no cylindrical joint: its parser has no CYLINDRICAL type, and a REVOLUTE-PRISMATIC pair would need an intermediate body, which in Chrono has mass".to_owned(),
        other => format!("Chrono YAML has no {} joint", other.type_name()),
    }
}

/// Puts every joint's frames where Chrono builds them from the written location and axes.
pub(super) fn joint_frames(l: &mut Lowering, model: &mut Model) {
    let mut joints = std::mem::take(&mut model.joints);
    joints.retain_mut(|j| {
        let Some(ty) = JointType::of(&j.kind) else {
            return true;
        };
        let (p1, p2) = (pose_of(model, &j.parent), pose_of(model, &j.child));
        rebuild_frames(l, j, ty, &p1, &p2)
    });
    model.joints = joints;
}

/// Makes the joint's frames those Chrono builds; false when Chrono cannot build them.
fn rebuild_frames(l: &mut Lowering, j: &mut Joint, ty: JointType, p1: &Pose, p2: &Pose) -> bool {
    let ip = path::item("joints", &j.name);
    if builds_joint(j, ty, &joint_geometry(j, ty, p1, p2), p1, p2) {
        return true;
    }
    let x = *p1 * j.parent_frame;
    let fresh = fresh_geometry(j, ty, &x);
    let Some((a, b)) = frames_for(ty, &fresh, p1, p2) else {
        l.lost(
            Category::Dropped,
            &ip,
            format!(
                "the {} joint's axes are zero or parallel: Chrono cannot build its frame",
                ty.name()
            ),
        );
        return false;
    };
    let x2 = *p2 * j.child_frame;
    if x.distance(&x2) > GEOMETRY_TOLERANCE {
        l.lost(
            Category::Approximated,
            &ip,
            "the joint frames do not coincide in the reference configuration; Chrono places both at the parent's frame",
        );
    }
    if !same_motion_axes(j, &a) {
        l.lost(
            Category::Approximated,
            &ip,
            "the joint frame orientation is rebuilt by Chrono from the axes; only the motion axes are kept",
        );
    }
    j.kind = ty.kind();
    j.parent_frame = a;
    j.child_frame = b;
    for key in ["location", "axis", "axis1", "axis2"] {
        j.extras.remove(&aids::key(FORMAT, key));
    }
    // The emitter computes its numbers from the new frames; where they differ in the last
    // bits from `fresh`, the numbers Chrono built the frames from are kept for it.
    let emitted = fresh_geometry(j, ty, &(*p1 * a));
    let v3 = convert::v3;
    aids::keep(
        &mut j.extras,
        FORMAT,
        "location",
        &v3(&fresh.location),
        &v3(&emitted.location),
    );
    if let (Some(f), Some(e)) = (fresh.axis, emitted.axis) {
        aids::keep(&mut j.extras, FORMAT, "axis", &v3(&f), &v3(&e));
    }
    if let (Some((f1, f2)), Some((e1, e2))) = (fresh.axes, emitted.axes) {
        aids::keep(&mut j.extras, FORMAT, "axis1", &v3(&f1), &v3(&e1));
        aids::keep(&mut j.extras, FORMAT, "axis2", &v3(&f2), &v3(&e2));
    }
    true
}

/// True when Chrono's parent frame `built` (body coordinates) moves the joint about and along
/// the same axes as the IR's: same origin, and the joint kind's axes where Chrono's frame puts
/// them (a frame turned about a revolute axis is the same joint).
fn same_motion_axes(j: &Joint, built: &Pose) -> bool {
    let rel = j.parent_frame.inverse() * *built;
    if rel.translation.norm() > GEOMETRY_TOLERANCE {
        return false;
    }
    let along = |chrono_axis: Vector3<f64>, ir_axis: &Vector3<f64>| {
        ir_axis
            .try_normalize(0.0)
            .is_some_and(|n| (rel.rotation * chrono_axis - n).norm() <= GEOMETRY_TOLERANCE)
    };
    match &j.kind {
        JointKind::Fixed | JointKind::Spherical => true,
        JointKind::Revolute { axis } | JointKind::Prismatic { axis } => along(Vector3::z(), axis),
        JointKind::Universal { axis1, axis2 } => along(Vector3::x(), axis1) && along(Vector3::y(), axis2),
        _ => rel.rotation.angle() <= GEOMETRY_TOLERANCE,
    }
}

/// Constraint data Chrono YAML has no place for.
pub(super) fn constraints(l: &mut Lowering, model: &mut Model) {
    let mut kept = Vec::new();
    for mut c in std::mem::take(&mut model.constraints) {
        let ip = path::item("constraints", &c.name);
        match &mut c.kind {
            ConstraintKind::Distance { distance, .. } => {
                if distance.take().is_some() {
                    l.lost(
                        Category::Approximated,
                        &ip,
                        "imposed distance: Chrono keeps the initial distance",
                    );
                }
            }
            ConstraintKind::RevoluteSpherical { axis1, distance, .. } => {
                if axis1.take().is_some() | distance.take().is_some() {
                    l.lost(
                        Category::Dropped,
                        &ip,
                        "revolute axis and link length: Chrono YAML gives only the points",
                    );
                }
            }
            ConstraintKind::RevoluteTranslational {
                axis1,
                axis2,
                distance,
                ..
            } => {
                if axis1.take().is_some() | axis2.take().is_some() | distance.take().is_some() {
                    l.lost(
                        Category::Dropped,
                        &ip,
                        "axes and link length: Chrono YAML gives only the points",
                    );
                }
            }
            ConstraintKind::ExtraJoint { .. } => {
                l.lost(
                    Category::Dropped,
                    &ip,
                    "Choreonoid extra joints have no Chrono YAML constraint",
                );
                continue;
            }
        }
        if spec::constraint_is_built(&c.kind) {
            if !c.enabled {
                l.lost(
                    Category::Dropped,
                    &ip,
                    "a disabled constraint is written as enabled",
                );
                c.enabled = true;
            }
        } else if c.enabled {
            l.lost(
                Category::Dropped,
                &ip,
                "Chrono's parser creates nothing for this constraint type: Chrono runs the model without it",
            );
            c.enabled = false;
        }
        l.strip_foreign_extras(&mut c.extras, &ip);
        kept.push(c);
    }
    model.constraints = kept;
}
