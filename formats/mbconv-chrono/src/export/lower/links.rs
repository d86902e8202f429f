//! Joints and constraints: the kinds Chrono YAML has, the frames Chrono builds from absolute
//! points and axes, and the joint data it has no place for.

use super::pose_of;
use crate::export::geometry::{builds_joint, frames_for, fresh_geometry, joint_geometry};
use crate::spec::frames::{self as convert, JointType};
use crate::spec::{self, FORMAT};
use mbconv_ir::format::kit::LowerSession;
use mbconv_ir::format::kit::aids;
use mbconv_ir::format::support::Feature;
use mbconv_ir::report::path;
use mbconv_ir::{ConstraintKind, DofProperties, Joint, JointKind, Model, Pose};
use nalgebra::Vector3;

/// Tolerance for "the same place / the same direction" in the reference configuration.
const GEOMETRY_TOLERANCE: f64 = 1e-9;

/// Removes disabled joints: Chrono YAML joints cannot be switched off, and a switched-off
/// joint constrains nothing, so leaving it out is the same model.
pub(super) fn disabled_joints(s: &mut LowerSession, model: &mut Model) {
    for j in model.joints.iter().filter(|j| !j.enabled) {
        s.note(
            "disabled_joint_omitted",
            Feature::of_joint(&j.kind),
            &path::item("joints", &j.name),
            "a switched-off joint is not written (Chrono YAML joints cannot be switched off; without it the bodies move the same)",
        );
    }
    model.joints.retain(|j| j.enabled);
}

/// Replaces joint kinds Chrono YAML has an equivalent for and removes the others.
pub(super) fn joint_kinds(s: &mut LowerSession, model: &mut Model) {
    let mut kept = Vec::new();
    for mut j in std::mem::take(&mut model.joints) {
        let ip = path::item("joints", &j.name);
        if let JointKind::Euler { order } = j.kind {
            s.note(
                "euler_as_spherical",
                Feature::EulerJoint,
                &ip,
                format!(
                    "euler joint written as a Chrono SPHERICAL joint: the same motion, but its coordinates are no longer the three {} angles (Chrono has no joint coordinates)",
                    format!("{order:?}").to_uppercase()
                ),
            );
            j.kind = JointKind::Spherical;
            // Damping, springs, limits and friction act on the angles, which a spherical joint
            // does not have: they go here, in the pass that changes the coordinates.
            let spherical = vec![DofProperties::default(); j.dofs.len()];
            dof_losses(
                s,
                &ip,
                &j.dofs,
                &spherical,
                "they act on the euler angles, which a spherical joint does not have",
            );
            j.dofs = spherical;
        }
        if j.kind == JointKind::Free {
            // Its initial state is already in the body's pose and velocity (baked above).
            dof_losses(s, &ip, &j.dofs, &[], "the free joint is not written");
            lose_actuator(s, &ip, &mut j, "the free joint is not written");
            s.note(
                "free_joint_implicit",
                Feature::FreeJoint,
                &ip,
                "a free joint is not written: the body is free in Chrono",
            );
            continue;
        }
        if JointType::of(&j.kind).is_none() {
            let what = match j.kind {
                JointKind::PseudoContinuousTrack { .. } => "track_joint_lost".to_owned(),
                _ => format!("{}_lost", Feature::of_joint(&j.kind).key()),
            };
            s.lost(&what, Feature::of_joint(&j.kind), &ip, why_not(&j.kind));
            continue;
        }
        kept.push(j);
    }
    model.joints = kept;
}

/// Removes the joint data Chrono YAML has no place for: bushings where Chrono refuses them,
/// limits, friction, rotor inertia, springs and damping except on revolute and prismatic
/// joints (`joint_springs` turns those into force elements), actuators and foreign extras.
pub(super) fn joint_data(s: &mut LowerSession, model: &mut Model) {
    for j in &mut model.joints {
        let ip = path::item("joints", &j.name);
        let Some(ty) = JointType::of(&j.kind) else {
            continue;
        };
        if j.bushing.is_some()
            && matches!(
                ty,
                JointType::Prismatic | JointType::PointLine | JointType::PointPlane
            )
        {
            s.lost(
                "bushing_lost",
                Feature::Bushings,
                &ip,
                format!(
                    "bushing on a {} joint: Chrono refuses it, the joint is written rigid",
                    ty.name()
                ),
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
        let kept: Vec<DofProperties> = j.dofs.iter().map(kept_dof).collect();
        let why = format!("Chrono YAML {} joints have none", ty.name());
        dof_losses(s, &ip, &j.dofs, &kept, &why);
        j.dofs = kept;
        lose_actuator(s, &ip, j, "Chrono YAML joints have no actuators");
        s.strip_foreign_extras(&mut j.extras, &ip);
    }
}

/// Whether a coordinate's data of one feature differs between before and after.
type DofDiffers = dyn Fn(&DofProperties, &DofProperties) -> bool;

/// One finding per feature of the coordinate data `before` has and `after` does not (`after`
/// empty: all of it), `why` saying why.
fn dof_losses(s: &mut LowerSession, ip: &str, before: &[DofProperties], after: &[DofProperties], why: &str) {
    let none = DofProperties::default();
    let pairs = || {
        before
            .iter()
            .enumerate()
            .map(|(i, b)| (b, after.get(i).unwrap_or(&none)))
    };
    let lost = |differs: &dyn Fn(&DofProperties, &DofProperties) -> bool| pairs().any(|(b, a)| differs(b, a));
    let checks: [(&str, Feature, &str, &DofDiffers); 7] = [
        (
            "joint_limits_lost",
            Feature::JointLimits,
            "position limits",
            &|b, a| b.position_limits != a.position_limits,
        ),
        (
            "joint_velocity_effort_limits_lost",
            Feature::JointVelocityEffortLimits,
            "velocity, acceleration and effort limits",
            &|b, a| {
                b.velocity_limits != a.velocity_limits
                    || b.acceleration_limits != a.acceleration_limits
                    || b.effort_limits != a.effort_limits
            },
        ),
        // A rest position without stiffness means nothing (baking shifts it by `q0`).
        ("joint_springs_lost", Feature::JointSprings, "springs", &|b, a| {
            b.spring_stiffness != a.spring_stiffness
                || (b.spring_stiffness != 0.0 && b.spring_rest_position != a.spring_rest_position)
        }),
        ("joint_damping_lost", Feature::JointDamping, "damping", &|b, a| {
            b.damping != a.damping
        }),
        (
            "joint_friction_lost",
            Feature::JointFriction,
            "friction",
            &|b, a| b.friction != a.friction,
        ),
        (
            "rotor_inertia_lost",
            Feature::JointActuators,
            "rotor inertia and gear ratio",
            &|b, a| b.rotor_inertia != a.rotor_inertia || b.gear_ratio != a.gear_ratio,
        ),
        (
            "coordinate_names_lost",
            Feature::FormatExtras,
            "coordinate names (Chrono has no joint coordinates)",
            &|b, a| b.name != a.name,
        ),
    ];
    for (what, feature, data, differs) in checks {
        if lost(differs) {
            s.lost(what, feature, ip, format!("the joint's {data}: {why}"));
        }
    }
}

/// Reports and removes the joint's actuator type and controller id (a prescribed or servo
/// actuator drives the joint; without it the joint is passive).
fn lose_actuator(s: &mut LowerSession, ip: &str, j: &mut Joint, why: &str) {
    if j.actuator.is_some() || j.joint_id.is_some() {
        s.lost(
            "joint_actuator_lost",
            Feature::JointActuators,
            ip,
            format!("joint actuator type and controller id: {why}"),
        );
        j.actuator = None;
        j.joint_id = None;
    }
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
pub(super) fn joint_frames(s: &mut LowerSession, model: &mut Model) {
    let mut joints = std::mem::take(&mut model.joints);
    joints.retain_mut(|j| {
        let Some(ty) = JointType::of(&j.kind) else {
            return true;
        };
        let (p1, p2) = (pose_of(model, &j.parent), pose_of(model, &j.child));
        rebuild_frames(s, j, ty, &p1, &p2)
    });
    model.joints = joints;
}

/// Makes the joint's frames those Chrono builds; false when Chrono cannot build them.
fn rebuild_frames(s: &mut LowerSession, j: &mut Joint, ty: JointType, p1: &Pose, p2: &Pose) -> bool {
    let ip = path::item("joints", &j.name);
    if builds_joint(j, ty, &joint_geometry(j, ty, p1, p2), p1, p2) {
        return true;
    }
    let x = *p1 * j.parent_frame;
    let fresh = fresh_geometry(j, ty, &x);
    let Some((a, b)) = frames_for(ty, &fresh, p1, p2) else {
        s.lost(
            "joint_axes_degenerate",
            Feature::of_joint(&j.kind),
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
        s.approximated(
            "joint_frames_apart",
            Feature::InitialJointPositions,
            &ip,
            "the joint frames do not coincide in the initial configuration; Chrono places both at the parent's frame",
        );
    }
    if !same_motion_axes(j, &a) {
        s.approximated(
            "joint_frame_rebuilt",
            Feature::of_joint(&j.kind),
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
pub(super) fn constraints(s: &mut LowerSession, model: &mut Model) {
    let mut kept = Vec::new();
    for mut c in std::mem::take(&mut model.constraints) {
        let ip = path::item("constraints", &c.name);
        if !c.enabled && spec::constraint_is_built(&c.kind) {
            s.note(
                "disabled_constraint_omitted",
                Feature::Constraints,
                &ip,
                "a switched-off constraint is not written (Chrono YAML constraints cannot be switched off; without it the bodies move the same)",
            );
            continue;
        }
        match &mut c.kind {
            ConstraintKind::Distance { distance, .. } => {
                if distance.take().is_some() {
                    s.approximated(
                        "imposed_distance_lost",
                        Feature::Constraints,
                        &ip,
                        "imposed distance: Chrono keeps the initial distance",
                    );
                }
            }
            ConstraintKind::RevoluteSpherical { axis1, distance, .. } => {
                if axis1.take().is_some() | distance.take().is_some() {
                    s.lost(
                        "constraint_axes_lost",
                        Feature::Constraints,
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
                    s.lost(
                        "constraint_axes_lost",
                        Feature::Constraints,
                        &ip,
                        "axes and link length: Chrono YAML gives only the points",
                    );
                }
            }
            ConstraintKind::ExtraJoint { .. } => {
                s.lost(
                    "extra_joint_lost",
                    Feature::Constraints,
                    &ip,
                    "Choreonoid extra joints have no Chrono YAML constraint",
                );
                continue;
            }
        }
        if !spec::constraint_is_built(&c.kind) && c.enabled {
            s.lost(
                "constraint_not_built",
                Feature::Constraints,
                &ip,
                "Chrono's parser creates nothing for this constraint type: Chrono runs the model without it",
            );
            c.enabled = false;
        }
        s.strip_foreign_extras(&mut c.extras, &ip);
        kept.push(c);
    }
    model.constraints = kept;
}
