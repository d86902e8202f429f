//! Baking the initial joint state into the reference configuration.

use super::{is_nonzero, note};
use crate::format::support::Feature;
use crate::kinematics::velocity::initial_twists;
use crate::kinematics::{Attachment, Configuration, SpanningTree, joint_motion, world_poses};
use crate::model::Model;
use crate::model::body::Twist;
use crate::model::force::{ForceKind, RestraintTarget, RestraintType};
use crate::model::joint::{Joint, JointKind};
use crate::pose::Pose;
use crate::report::{Category, Finding, Severity, path};
use nalgebra::{UnitQuaternion, Vector3};

/// Moves the initial state into the reference configuration: every spanning-tree joint's `q0`
/// into its joint frames (so the joint at zero is where it started) and the body poses, every
/// tree joint's `v0` into body velocities; `q0` and `v0` of every joint become zero. The motion
/// is unchanged (the solver fits joint rates to the body velocities exactly, since they come
/// from joint rates).
///
/// Where a joint's coordinates separate (`J(q0 + q) = A·J(q)·B`: revolute, prismatic, screw,
/// cylindrical, translational, universal), position limits and spring rest positions are
/// shifted by `-q0`, exactly. For other joint types the new coordinates are not the old ones
/// shifted, and a joint with limits or a spring gets an `approximated` finding.
///
/// ```
/// use mbconv_ir::{lower::bake_initial_state, Body, BodyRef, Joint, JointKind, Model, Pose};
/// use nalgebra::Vector3;
/// let mut m = Model::new("slider");
/// m.bodies.push(Body::new("cart"));
/// let mut j = Joint::new("rail", JointKind::Prismatic { axis: Vector3::x() }, BodyRef::World, BodyRef::body("cart"));
/// j.q0 = vec![2.0];
/// j.v0 = vec![0.5];
/// m.joints.push(j);
/// let findings = bake_initial_state(&mut m, "chrono");
/// assert_eq!(m.bodies[0].pose.translation.x, 2.0);
/// assert_eq!(m.joints[0].q0, vec![0.0]);
/// assert_eq!(m.bodies[0].initial_velocity.as_ref().unwrap().linear.x, 0.5);
/// assert!(findings.iter().all(|f| !f.category.is_loss()));
/// ```
pub fn bake_initial_state(model: &mut Model, format: &str) -> Vec<Finding> {
    let tree = SpanningTree::new(model);
    let tree_joints: Vec<usize> = tree.tree_joints().collect();
    let moves = tree_joints.iter().any(|&j| is_nonzero(&model.joints[j].q0));
    let rates = tree_joints.iter().any(|&j| is_nonzero(&model.joints[j].v0));
    let mut findings = Vec::new();
    if moves || rates {
        let poses = world_poses(model, &tree, Configuration::Initial);
        let twists = rates.then(|| initial_twists(model, &tree, &poses));
        for &j in &tree_joints {
            let joint = &mut model.joints[j];
            if is_nonzero(&joint.q0) {
                let name = joint.name.clone();
                let (rebased, shifted) = rebase_joint(joint, format);
                findings.extend(rebased);
                findings.extend(shift_restraints(model, &name, shifted.as_deref(), format));
            }
        }
        for (b, body) in model.bodies.iter_mut().enumerate() {
            body.pose = poses[b];
        }
        if let Some(twists) = twists {
            findings.extend(rates_to_body_velocities(model, &tree, &twists, format));
        }
    }
    for &j in &tree.loop_joints {
        let joint = &mut model.joints[j];
        if is_nonzero(&joint.q0) || is_nonzero(&joint.v0) {
            joint.q0.iter_mut().for_each(|x| *x = 0.0);
            joint.v0.iter_mut().for_each(|x| *x = 0.0);
            findings.push(note(
                format,
                "loop_coordinates",
                Feature::KinematicLoops,
                &path::item("joints", &joint.name),
                "the initial coordinates of this loop-closing joint are not written: they follow from the poses of the bodies it joins",
            ));
        }
    }
    findings
}

/// Re-expresses the spring restraints on joint `joint`'s coordinates in its rebased
/// coordinates: a spring restraint is a function of the coordinate, `f(q)`, and after the
/// rebase the coordinate is `q − q0`, so the function becomes `f(q' + q0)` (exact; dampers and
/// friction act on the rate, which does not change). `shifted` is `q0` when the joint's
/// coordinates separate, `None` when they do not: then such restraints are reported as
/// approximated.
fn shift_restraints(model: &mut Model, joint: &str, shifted: Option<&[f64]>, format: &str) -> Vec<Finding> {
    let mut findings = Vec::new();
    for element in &mut model.force_elements {
        let ForceKind::Restraint(restraint) = &mut element.kind else {
            continue;
        };
        let RestraintTarget::Joint { joint: target, dof } = &restraint.target else {
            continue;
        };
        if target != joint || restraint.restraint_type != RestraintType::Spring {
            continue;
        }
        match shifted.and_then(|q0| q0.get(*dof)) {
            Some(q) => restraint.function = restraint.function.shifted(*q),
            None => findings.push(
                Finding::new(
                    format!("{format}.restraint_coordinates_rebased"),
                    Severity::Warning,
                    Category::Approximated,
                    "the spring restraint on the joint's coordinate keeps its function, but the joint's coordinates now start at its initial position and do not separate",
                )
                .for_feature(Feature::Restraints)
                .at(path::item("force_elements", &element.name)),
            ),
        }
    }
    findings
}

/// Makes `q0` the joint's zero: frames absorb `J(q0)`, limits and spring rest positions shift.
/// Returns the findings and, when the coordinates separate, the `q0` they were shifted by.
fn rebase_joint(joint: &mut Joint, format: &str) -> (Vec<Finding>, Option<Vec<f64>>) {
    let at = path::item("joints", &joint.name);
    let q0 = std::mem::replace(&mut joint.q0, vec![0.0; joint.kind.nq()]);
    let mut findings = vec![note(
        format,
        "initial_position",
        Feature::InitialJointPositions,
        &at,
        "the joint's initial position is baked into the body poses and joint frames (the format has no joint coordinates)",
    )];
    let mut shifted = None;
    match separable_split(&joint.kind, &q0) {
        Some((before, after)) => {
            shifted = Some(q0.clone());
            joint.parent_frame = joint.parent_frame * before;
            joint.child_frame = joint.child_frame * after.inverse();
            for (dof, q) in joint.dofs.iter_mut().zip(&q0) {
                shift(&mut dof.position_limits.lower, -q);
                shift(&mut dof.position_limits.upper, -q);
                dof.spring_rest_position -= q;
            }
        }
        None => {
            joint.parent_frame = joint.parent_frame * joint_motion(&joint.kind, &q0);
            let position_dependent = joint.dofs.iter().any(|d| {
                d.position_limits.lower.is_some()
                    || d.position_limits.upper.is_some()
                    || d.spring_stiffness != 0.0
            });
            if position_dependent {
                findings.push(Finding::new(
                    format!("{format}.coordinates_rebased"),
                    Severity::Warning,
                    Category::Approximated,
                    format!(
                        "the {} joint's coordinates now start at its initial position; its position limits and spring rest positions keep their old values, which now mean a different orientation",
                        joint.kind.type_name()
                    ),
                ).for_feature(Feature::InitialJointPositions).at(&at));
            }
        }
    }
    (findings, shifted)
}

/// `(A, B)` with `J(q0 + q) = A·J(q)·B` for joint types whose coordinates separate.
fn separable_split(kind: &JointKind, q0: &[f64]) -> Option<(Pose, Pose)> {
    match kind {
        JointKind::Revolute { .. }
        | JointKind::Prismatic { .. }
        | JointKind::Screw { .. }
        | JointKind::Cylindrical { .. }
        | JointKind::Translational => Some((joint_motion(kind, q0), Pose::identity())),
        JointKind::Universal { axis1, axis2 } => {
            let turn = |axis: &Vector3<f64>, angle: f64| {
                Pose::from_rotation(UnitQuaternion::from_scaled_axis(
                    crate::rotation::unit_vector(axis).unwrap_or_else(Vector3::zeros) * angle,
                ))
            };
            let q = |i: usize| q0.get(i).copied().unwrap_or(0.0);
            Some((turn(axis1, q(0)), turn(axis2, q(1))))
        }
        _ => None,
    }
}

fn shift(limit: &mut Option<f64>, by: f64) {
    if let Some(x) = limit {
        *x += by;
    }
}

/// Writes the bodies' initial twists and clears every tree joint's `v0`.
fn rates_to_body_velocities(
    model: &mut Model,
    tree: &SpanningTree,
    twists: &[Twist],
    format: &str,
) -> Vec<Finding> {
    let mut findings = Vec::new();
    for j in tree.tree_joints() {
        let joint = &mut model.joints[j];
        if is_nonzero(&joint.v0) {
            joint.v0.iter_mut().for_each(|x| *x = 0.0);
            findings.push(note(
                format,
                "initial_velocity",
                Feature::InitialJointVelocities,
                &path::item("joints", &joint.name),
                "the joint's initial rates are written as the initial velocities of the bodies it moves (the format has no joint coordinates)",
            ));
        }
    }
    for (b, body) in model.bodies.iter_mut().enumerate() {
        if matches!(tree.attachments[b], Attachment::Joint { .. }) {
            let twist = &twists[b];
            let moving = twist.linear.norm() > 0.0 || twist.angular.norm() > 0.0;
            body.initial_velocity = moving.then_some(*twist);
        }
    }
    findings
}

/// Switches immobile groups off, for formats that can switch a group off but cannot hold its
/// joints (Shift's `active: false`): the bodies of every group with `mobile == false` are put
/// at their initial world poses, the tree joints that move them are rebased so that their
/// zero is where they start (`q0` into the frames) and lose their rates, and the group becomes
/// mobile but disabled. The motion is unchanged: an immobile group holds its joints at `q0`, a
/// disabled one keeps its bodies where they are.
///
/// ```
/// use mbconv_ir::{lower::disable_immobile_groups, Body, BodyRef, Group, GroupType, Joint, JointKind, Model};
/// use nalgebra::Vector3;
/// let mut m = Model::new("frozen");
/// m.bodies.push(Body::new("cart"));
/// let mut j = Joint::new("rail", JointKind::Prismatic { axis: Vector3::x() }, BodyRef::World, BodyRef::body("cart"));
/// j.q0 = vec![2.0];
/// m.joints.push(j);
/// let mut g = Group::new("skeleton", GroupType::Skeleton);
/// g.bodies = vec!["cart".into()];
/// g.joints = vec!["rail".into()];
/// g.mobile = false;
/// m.groups.push(g);
/// let findings = disable_immobile_groups(&mut m, "shift");
/// assert_eq!(m.bodies[0].pose.translation.x, 2.0);
/// assert_eq!(m.joints[0].q0, vec![0.0]);
/// assert!(m.groups[0].mobile && !m.groups[0].enabled);
/// assert!(findings.iter().all(|f| !f.category.is_loss()));
/// ```
pub fn disable_immobile_groups(model: &mut Model, format: &str) -> Vec<Finding> {
    let mut frozen = vec![false; model.bodies.len()];
    for group in model.groups.iter().filter(|g| !g.mobile) {
        for name in &group.bodies {
            if let Some(b) = model.body_index(name) {
                frozen[b] = true;
            }
        }
    }
    let mut findings = Vec::new();
    if frozen.iter().any(|f| *f) {
        let tree = SpanningTree::new(model);
        let poses = world_poses(model, &tree, Configuration::Initial);
        for (b, attachment) in tree.attachments.iter().enumerate() {
            if !frozen[b] {
                continue;
            }
            if let Attachment::Joint { joint, .. } = attachment {
                let joint = &mut model.joints[*joint];
                joint.v0.iter_mut().for_each(|x| *x = 0.0);
                if is_nonzero(&joint.q0) {
                    let name = joint.name.clone();
                    let (rebased, shifted) = rebase_joint(joint, format);
                    findings.extend(rebased);
                    findings.extend(shift_restraints(model, &name, shifted.as_deref(), format));
                }
            }
            model.bodies[b].pose = poses[b];
            model.bodies[b].initial_velocity = None;
        }
    }
    for group in model.groups.iter_mut().filter(|g| !g.mobile) {
        group.mobile = true;
        group.enabled = false;
        findings.push(note(
            format,
            "immobile_group",
            Feature::Groups,
            &path::item("groups", &group.name),
            "the immobile group is written switched off: its bodies stay where they start",
        ));
    }
    findings
}
