//! The lowering steps that change the model's graph the Body way: one root link and loops as
//! extra joints. Reversal, chains and body frames are the shared passes of
//! `mbconv_ir::format::kit` (`reverse_joints_towards_root`, `joints_as_chains`,
//! `body_frames_on_joints`).

use mbconv_ir::format::kit::LowerSession;
use mbconv_ir::format::support::Feature;
use mbconv_ir::kinematics::{Configuration, SpanningTree, world_poses};
use mbconv_ir::report::path;
use mbconv_ir::{
    Body, BodyRef, Constraint, ConstraintKind, ExtraJointType, Extras, Inertia, Joint, JointKind, Pose,
};
use nalgebra::Vector3;

/// Gathers several world joints under one fixed, massless root link.
pub(super) fn single_root(s: &mut LowerSession) {
    let world: Vec<usize> = (0..s.model.joints.len())
        .filter(|&j| s.model.joints[j].parent.is_world() && !s.model.joints[j].child.is_world())
        .collect();
    // Choreonoid's root link is fixed or free; any other joint to the world needs a fixed
    // root link to hang from.
    let root_can_say = |j: usize| matches!(s.model.joints[j].kind, JointKind::Fixed | JointKind::Free);
    // A body file needs at least one link: an empty model gets the fixed root link alone.
    let empty = s.model.bodies.is_empty();
    if !empty && (world.is_empty() || (world.len() == 1 && root_can_say(world[0]))) {
        return;
    }
    let mut name = "root".to_owned();
    while s.model.body(&name).is_some() || s.model.joints.iter().any(|j| j.name == name) {
        name.push('_');
    }
    let mut root = Body::new(&name);
    root.inertial.mass = 0.0;
    root.inertial.inertia = Inertia::zero();
    for &j in &world {
        s.model.joints[j].parent = BodyRef::body(&name);
    }
    s.model.bodies.insert(0, root);
    s.model.joints.insert(
        0,
        Joint::new(&name, JointKind::Fixed, BodyRef::World, BodyRef::body(&name)),
    );
    let at = path::item("bodies", &name);
    s.note(
        "root_link_added",
        Feature::FixedBodies,
        &at,
        if empty {
            "the model has no bodies and a body file needs a link: a fixed massless root link is written"
                .to_owned()
        } else {
            format!(
                "{} bodies attach to the world; they hang from an added fixed massless root link",
                world.len()
            )
        },
    );
}

/// Loop-closing joints become extra joints.
/// How far a loop-closing joint is from closed at the initial configuration: the distance
/// between its two frames' origins (across the axis only, for a prismatic joint) and the angle
/// between their axes (revolute and prismatic) or frames (fixed).
fn initial_gap(model: &mbconv_ir::Model, poses: &[Pose], joint: &Joint) -> (f64, f64) {
    let world = |body: &BodyRef, frame: &Pose| match body.name().and_then(|n| model.body_index(n)) {
        Some(b) => poses[b] * *frame,
        None => *frame,
    };
    let (a, b) = (
        world(&joint.parent, &joint.parent_frame),
        world(&joint.child, &joint.child_frame),
    );
    let apart = b.translation - a.translation;
    match &joint.kind {
        JointKind::Revolute { axis } | JointKind::Prismatic { axis } => {
            let axis = axis.try_normalize(0.0).unwrap_or_else(Vector3::x);
            let (wa, wb) = (a.rotation * axis, b.rotation * axis);
            let across = if matches!(joint.kind, JointKind::Prismatic { .. }) {
                apart - wa * wa.dot(&apart)
            } else {
                apart
            };
            (across.norm(), wa.angle(&wb))
        }
        JointKind::Fixed => (apart.norm(), a.rotation.angle_to(&b.rotation)),
        _ => (apart.norm(), 0.0),
    }
}

pub(super) fn loops(s: &mut LowerSession) {
    let tree = SpanningTree::new(&s.model);
    let poses = world_poses(&s.model, &tree, Configuration::Initial);
    let root = s
        .model
        .joints
        .iter()
        .find(|j| j.parent.is_world() && j.kind == JointKind::Fixed)
        .map(|j| (j.child.clone(), j.parent_frame));
    let mut remove = Vec::new();
    for &index in &tree.loop_joints {
        let j = s.model.joints[index].clone();
        let at = path::item("joints", &j.name);
        remove.push(index);
        let ends = [(&j.parent, j.parent_frame), (&j.child, j.child_frame)].map(|(body, frame)| {
            if body.is_world() {
                root.as_ref().map(|(r, p)| (r.clone(), p.inverse() * frame))
            } else {
                Some((body.clone(), frame))
            }
        });
        let [Some((body1, frame1)), Some((body2, frame2))] = ends else {
            s.lost(
                "loop_to_world_lost",
                Feature::KinematicLoops,
                &at,
                "a loop to the world needs a fixed root link",
            );
            continue;
        };
        let (joint_type, axis) = match &j.kind {
            JointKind::Revolute { axis } => (ExtraJointType::Hinge, *axis),
            JointKind::Spherical => (ExtraJointType::Ball, Vector3::x()),
            JointKind::Prismatic { axis } => {
                s.approximated("loop_prismatic_as_piston", Feature::KinematicLoops, &at, "a loop-closing prismatic joint becomes a piston extra joint, which leaves the rotation about the axis free");
                (ExtraJointType::Piston, *axis)
            }
            JointKind::Fixed => {
                s.approximated("loop_fixed_as_fixed_extra_joint", Feature::KinematicLoops, &at, "a loop-closing fixed joint becomes a fixed extra joint, which Choreonoid's AIST simulator ignores");
                (ExtraJointType::Fixed, Vector3::x())
            }
            other => {
                s.lost(
                    "loop_joint_lost",
                    Feature::KinematicLoops,
                    &at,
                    format!(
                        "a loop-closing {} joint has no extra-joint equivalent",
                        other.type_name()
                    ),
                );
                continue;
            }
        };
        let axis = axis.try_normalize(0.0).unwrap_or_else(Vector3::x);
        // The hinge axis is one vector in both anchor frames; at q0 the child frame is
        // turned about it, which a hinge allows.
        s.model.constraints.push(Constraint {
            name: j.name.clone(),
            kind: ConstraintKind::ExtraJoint {
                joint_type,
                body1,
                frame1,
                body2,
                frame2,
                axis,
            },
            enabled: true,
            extras: Extras::default(),
        });
        s.note(
            "loop_as_extra_joint",
            Feature::KinematicLoops,
            &at,
            "the loop-closing joint is written as an extra joint",
        );
        let (distance, angle) = initial_gap(&s.model, &poses, &j);
        if distance > 1e-9 || angle > 1e-9 {
            s.approximated(
                "loop_gap_kept",
                Feature::KinematicLoops,
                &at,
                format!(
                    "the loop does not close as written (its joint frames {distance:.3e} m and {angle:.3e} rad apart at the start): the source closes it before the first step, Choreonoid holds an extra joint at the velocity level and keeps the gap"
                ),
            );
        }
    }
    remove.sort_unstable();
    for index in remove.into_iter().rev() {
        s.model.joints.remove(index);
    }
}
