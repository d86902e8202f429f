//! Lowering passes that change the model's graph and that several formats run as they are:
//! joints reversed so the tree hangs from its root ([`reverse_joints_towards_root`]),
//! multi-dof joints as chains of single-dof joints through massless links
//! ([`joints_as_chains`]), and body frames moved onto their joints' child frames
//! ([`body_frames_on_joints`]). Each is a pass for [`LowerSession::run`]; its findings carry
//! the session's format as code prefix (`body.joint_as_chain`, `urdf.joint_as_chain`).
//!
//! ```
//! use mbconv_ir::format::kit::{LowerSession, Tracing, joints_as_chains};
//! use mbconv_ir::{Body, BodyRef, Joint, JointKind, Model};
//! let mut model = Model::new("m");
//! model.bodies.push(Body::new("a"));
//! model.joints.push(Joint::new("u", JointKind::Universal { axis1: nalgebra::Vector3::x(), axis2: nalgebra::Vector3::y() }, BodyRef::World, BodyRef::body("a")));
//! let mut s = LowerSession::new("demo", &model, Tracing::Off);
//! s.run("joints_as_chains", joints_as_chains);
//! let lowered = s.finish();
//! assert_eq!(lowered.model.joints.len(), 2);
//! assert!(lowered.report.contains("demo.joint_as_chain"));
//! ```

use super::LowerSession;
use crate::format::support::Feature;
use crate::kinematics::{Attachment, SpanningTree, joint_motion};
use crate::lower::{ReverseError, move_body_frames, reverse_joint};
use crate::report::path;
use crate::{Body, BodyRef, DofProperties, Inertia, Joint, JointKind, Pose};
use nalgebra::Vector3;

/// Reverses every joint the tree meets from its child side.
pub fn reverse_joints_towards_root(s: &mut LowerSession) {
    let world_children: Vec<(String, Feature)> = s
        .model
        .joints
        .iter()
        .filter(|j| j.child.is_world())
        .map(|j| (path::item("joints", &j.name), Feature::of_joint(&j.kind)))
        .collect();
    for (at, feature) in world_children {
        s.note(
            "world_child_joint",
            feature,
            &at,
            "a joint whose child is the world is written from the other side",
        );
    }
    let tree = SpanningTree::new(&s.model);
    for attachment in &tree.attachments {
        let Attachment::Joint {
            joint,
            reversed: true,
            ..
        } = *attachment
        else {
            continue;
        };
        let format = s.format();
        match reverse_joint(&mut s.model, joint, format) {
            Ok(findings) => s.absorb(findings),
            Err(
                error @ (ReverseError::NotReversible { .. }
                | ReverseError::Driven { .. }
                | ReverseError::Bushing { .. }),
            ) => {
                let j = &mut s.model.joints[joint];
                let (what, feature) = match error {
                    ReverseError::Bushing { .. } => ("bushing_reversed_as_free", Feature::Bushings),
                    _ if j.kind == JointKind::Free => ("free_joint_reversed", Feature::FreeJoint),
                    _ => ("joint_reversed_as_free", Feature::of_joint(&j.kind)),
                };
                let exact =
                    j.kind == JointKind::Free && j.dofs.iter().all(|d| *d == DofProperties::default());
                std::mem::swap(&mut j.parent, &mut j.child);
                std::mem::swap(&mut j.parent_frame, &mut j.child_frame);
                let motion = joint_motion(&j.kind, &j.q0);
                j.kind = JointKind::Free;
                j.q0 = free_coordinates(&motion.inverse());
                j.v0 = vec![0.0; 6];
                j.dofs.clear();
                let at = path::item("joints", &j.name);
                if exact {
                    s.note(
                        what,
                        feature,
                        &at,
                        "the free joint is written from its child side (a free joint either way)",
                    );
                } else {
                    s.approximated(
                        what,
                        feature,
                        &at,
                        format!("the joint is written from its child side as a free joint ({error})"),
                    );
                }
            }
            Err(ReverseError::NoSuchJoint(_)) => {}
        }
    }
}

/// Multi-dof joints become chains of single-dof joints through massless links.
pub fn joints_as_chains(s: &mut LowerSession) {
    joints_as_chains_where(s, |j| j.kind != JointKind::Free);
}

/// [`joints_as_chains`] for the joints `split` picks: a format that has some multi-dof
/// joints (URDF's `planar`, a `floating` joint from the world) leaves those alone. A free
/// joint picked is written as three prismatic and three revolute joints (approximated: the
/// rotation is a gimbal). A screw joint picked becomes a revolute joint (approximated).
pub fn joints_as_chains_where(s: &mut LowerSession, split: impl Fn(&Joint) -> bool) {
    let mut index = 0;
    while index < s.model.joints.len() {
        let joint = s.model.joints[index].clone();
        if !split(&joint) {
            index += 1;
            continue;
        }
        let Some((steps, exact)) = chain_steps(&joint) else {
            if let JointKind::Screw { axis, .. } = joint.kind {
                s.model.joints[index].kind = JointKind::Revolute { axis };
                let at = path::item("joints", &joint.name);
                s.approximated(
                    "screw_as_revolute",
                    Feature::ScrewJoint,
                    &at,
                    "a screw joint is written as a revolute joint; the coupled translation is lost",
                );
            }
            index += 1;
            continue;
        };
        let at = path::item("joints", &joint.name);
        let n = steps.len();
        let mut parent = joint.parent.clone();
        let mut new_joints = Vec::new();
        let mut new_bodies = Vec::new();
        for (k, (kind, q, dof)) in steps.into_iter().enumerate() {
            let last = k + 1 == n;
            let child = if last {
                joint.child.clone()
            } else {
                let mut name = format!("{}_link{}", joint.name, k + 1);
                while s.model.body(&name).is_some() {
                    name.push('_');
                }
                let mut b = Body::new(&name);
                b.inertial.mass = 0.0;
                b.inertial.inertia = Inertia::zero();
                new_bodies.push(b);
                BodyRef::body(name)
            };
            let name = if k == 0 {
                joint.name.clone()
            } else {
                format!("{}_{}", joint.name, k + 1)
            };
            let mut j = Joint::new(name, kind, parent.clone(), child.clone());
            if k == 0 {
                j.parent_frame = joint.parent_frame;
                j.actuator = joint.actuator;
                j.joint_id = joint.joint_id;
            }
            if last {
                j.child_frame = joint.child_frame;
            }
            j.q0 = vec![q];
            if let Some(dof) = dof
                && dof != DofProperties::default()
            {
                j.dofs = vec![dof];
            }
            new_joints.push(j);
            parent = child;
        }
        let message = format!(
            "the {} joint is written as {n} single-dof joints through massless links",
            joint.kind.type_name()
        );
        if exact {
            s.note("joint_as_chain", Feature::of_joint(&joint.kind), &at, message);
        } else {
            s.approximated(
                "joint_as_gimbal_chain",
                Feature::of_joint(&joint.kind),
                &at,
                format!("{message}; the rotation becomes three revolute joints, singular at 90°"),
            );
        }
        s.model.joints.splice(index..=index, new_joints);
        s.model.bodies.extend(new_bodies);
        index += n;
    }
}

/// Puts each body's frame on its joint's child frame, all bodies in one pass over the model
/// ([`move_body_frames`]). A body that is the child of several joints is moved once per
/// round, in joint order, as if the joints were taken one after the other.
pub fn body_frames_on_joints(s: &mut LowerSession) {
    let mut pending: Vec<usize> = (0..s.model.joints.len()).collect();
    while !pending.is_empty() {
        let mut moves = Vec::new();
        let mut done = Vec::new();
        let mut later = Vec::new();
        let mut moving = std::collections::HashSet::new();
        for j in pending {
            let frame = s.model.joints[j].child_frame;
            if frame.is_exact_identity() {
                continue;
            }
            let Some(b) = s.model.joints[j].child.name().and_then(|n| s.model.body_index(n)) else {
                continue;
            };
            if moving.insert(b) {
                moves.push((b, frame));
                done.push(j);
            } else {
                later.push(j);
            }
        }
        let format = s.format();
        let findings = move_body_frames(&mut s.model, &moves, format);
        s.absorb(findings);
        for j in done {
            s.model.joints[j].child_frame = Pose::identity();
        }
        pending = later;
    }
}

/// Free-joint coordinates of a pose (translation, rotation vector).
fn free_coordinates(p: &Pose) -> Vec<f64> {
    let r = p.rotation.scaled_axis();
    vec![p.translation.x, p.translation.y, p.translation.z, r.x, r.y, r.z]
}

type Step = (JointKind, f64, Option<DofProperties>);

/// The single-dof steps of a multi-dof joint, and whether they move exactly like it.
fn chain_steps(j: &Joint) -> Option<(Vec<Step>, bool)> {
    let q = |i: usize| j.q0.get(i).copied().unwrap_or(0.0);
    let dof = |i: usize| j.dofs.get(i).cloned();
    let rev = |axis: Vector3<f64>, i: usize| (JointKind::Revolute { axis }, q(i), dof(i));
    let pri = |axis: Vector3<f64>, i: usize| (JointKind::Prismatic { axis }, q(i), dof(i));
    let (x, y, z) = (Vector3::x(), Vector3::y(), Vector3::z());
    let gimbal = |first: usize, rotvec: [f64; 3]| -> Vec<Step> {
        let r = crate::rotation::rotation_vector::to_quaternion(rotvec);
        let [a, b, c] = crate::rotation::xyz_angles::from_quaternion(&r);
        vec![
            (JointKind::Revolute { axis: x }, a, dof(first)),
            (JointKind::Revolute { axis: y }, b, dof(first + 1)),
            (JointKind::Revolute { axis: z }, c, dof(first + 2)),
        ]
    };
    Some(match &j.kind {
        JointKind::Universal { axis1, axis2 } => (vec![rev(*axis1, 0), rev(*axis2, 1)], true),
        JointKind::Cylindrical { axis } => (vec![pri(*axis, 0), rev(*axis, 1)], true),
        JointKind::Planar { axis1, axis2 } => (
            vec![pri(*axis1, 0), pri(*axis2, 1), rev(axis1.cross(axis2), 2)],
            true,
        ),
        JointKind::Translational => (vec![pri(x, 0), pri(y, 1), pri(z, 2)], true),
        JointKind::Euler { order } => match order {
            crate::EulerOrder::Xyz => (vec![rev(x, 0), rev(y, 1), rev(z, 2)], true),
            crate::EulerOrder::Zyx => (vec![rev(z, 0), rev(y, 1), rev(x, 2)], true),
        },
        JointKind::Spherical => (gimbal(0, [q(0), q(1), q(2)]), false),
        JointKind::PointLine => {
            let mut steps = vec![pri(x, 0)];
            steps.extend(gimbal(1, [q(1), q(2), q(3)]));
            (steps, false)
        }
        JointKind::Free => {
            let mut steps = vec![pri(x, 0), pri(y, 1), pri(z, 2)];
            steps.extend(gimbal(3, [q(3), q(4), q(5)]));
            (steps, false)
        }
        JointKind::PointPlane => {
            let mut steps = vec![pri(x, 0), pri(y, 1)];
            steps.extend(gimbal(2, [q(2), q(3), q(4)]));
            (steps, false)
        }
        _ => return None,
    })
}
