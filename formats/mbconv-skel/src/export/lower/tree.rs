//! The joint tree as SKEL says it: one parent joint per body (loop-closing and unusable
//! joints removed), body velocities as joint rates or explicit free joints, every joint
//! pointing away from the world, parent-side frames that agree with the stored body poses.

use super::POSE_MISMATCH;
use crate::spec::{FORMAT, TRANSFORMATION_AID};
use mbconv_ir::format::kit::{LowerSession, aids};
use mbconv_ir::format::support::Feature;
use mbconv_ir::kinematics::{Attachment, SpanningTree};
use mbconv_ir::report::path;
use mbconv_ir::{Category, DofProperties, Pose, Severity};
use std::collections::BTreeSet;

/// Loop-closing joints and joints the spanning tree cannot use are removed.
pub(super) fn drop_unusable_joints(s: &mut LowerSession) {
    let tree = SpanningTree::new(&s.model);
    let mut removed = BTreeSet::new();
    for j in tree.loop_joints {
        let at = path::item("joints", &s.model.joints[j].name);
        s.lost(
            "loop_joint_lost",
            Feature::KinematicLoops,
            &at,
            "closes a kinematic loop; DART discards a second parent joint, so SKEL cannot say it",
        );
        removed.insert(j);
    }
    for j in tree.ignored_joints {
        let joint = &s.model.joints[j];
        let at = path::item("joints", &joint.name);
        let feature = Feature::of_joint(&joint.kind);
        if joint.enabled {
            s.finding(
                "dangling_joint_dropped",
                feature,
                Severity::Warning,
                Category::Invalid,
                &at,
                "the joint refers to unknown bodies or joins a body to itself; it is not written",
            );
        } else {
            s.note(
                "disabled_joint_dropped",
                feature,
                &at,
                "the joint is switched off and moves nothing; it is not written",
            );
        }
        removed.insert(j);
    }
    let mut index = 0;
    s.model.joints.retain(|_| {
        index += 1;
        !removed.contains(&(index - 1))
    });
}

/// Floating bodies get a free joint that carries their velocity (placed first, so they are
/// written before the tree joints).
pub(super) fn explicit_free_joints(s: &mut LowerSession) {
    let before = s.model.joints.len();
    let findings = mbconv_ir::lower::explicit_free_joints(&mut s.model, FORMAT);
    s.absorb(findings);
    let mut free_joints = s.model.joints.split_off(before);
    free_joints.append(&mut s.model.joints);
    s.model.joints = free_joints;
}

/// The velocities left after `fit_joint_rates` and `explicit_free_joints` are those of fixed
/// bodies, which SKEL has no place for (and which move nothing).
pub(super) fn drop_fixed_body_velocities(s: &mut LowerSession) {
    let mut found = Vec::new();
    for body in &mut s.model.bodies {
        if body.initial_velocity.take().is_some() {
            found.push(path::field(&path::item("bodies", &body.name), "initial_velocity"));
        }
    }
    for at in found {
        s.lost(
            "body_velocity_lost",
            Feature::InitialBodyVelocities,
            &at,
            "SKEL gives initial velocities per joint only; a fixed body has none",
        );
    }
}

/// Joints met from their child side, turned round so the tree parent is the parent (the
/// shared `reverse_joint`, which mirrors coordinates, rates, limits and spring rest
/// positions). A joint whose inverse motion is not the same kind with mirrored coordinates
/// (planar, free) is turned round as it is: exact when it is at rest at zero without DOF data.
pub(super) fn reversed_joints(s: &mut LowerSession) {
    let tree = SpanningTree::new(&s.model);
    for attachment in &tree.attachments {
        let Attachment::Joint {
            joint: j,
            reversed: true,
            ..
        } = *attachment
        else {
            continue;
        };
        s.model.joints[j]
            .extras
            .remove(&aids::key(FORMAT, TRANSFORMATION_AID));
        match mbconv_ir::lower::reverse_joint(&mut s.model, j, FORMAT) {
            Ok(findings) => s.absorb(findings),
            Err(_) => flip_as_is(s, j),
        }
    }
}

/// Swaps a joint's bodies and frames without converting its coordinates.
fn flip_as_is(s: &mut LowerSession, j: usize) {
    let joint = &mut s.model.joints[j];
    std::mem::swap(&mut joint.parent, &mut joint.child);
    std::mem::swap(&mut joint.parent_frame, &mut joint.child_frame);
    let at = path::item("joints", &joint.name);
    let feature = Feature::of_joint(&joint.kind);
    let at_rest = joint.q0.iter().chain(&joint.v0).all(|x| *x == 0.0)
        && joint.dofs.iter().all(|d| *d == DofProperties::default());
    let kind = joint.kind.type_name();
    if at_rest {
        s.note(
            "joint_reversed",
            feature,
            &at,
            format!(
                "the {kind} joint is written with parent and child swapped (at rest at zero: the same motion)"
            ),
        );
    } else {
        s.approximated(
            "reversed_joint_coordinates_lost",
            Feature::InitialJointPositions,
            &at,
            format!(
                "a {kind} joint met from its child side is written with parent and child swapped; its coordinates \
                 and DOF data are not converted"
            ),
        );
    }
}

/// DART derives a joint's parent-side frame from the stored body poses: where a stored pose
/// disagrees with the joint frames, the parent-side frame is made to agree with the poses.
pub(super) fn parent_frames_from_poses(s: &mut LowerSession) {
    let tree = SpanningTree::new(&s.model);
    for b in 0..s.model.bodies.len() {
        let Attachment::Joint { joint, parent, .. } = tree.attachments[b] else {
            continue;
        };
        let parent_pose = parent.map_or_else(Pose::identity, |p| s.model.bodies[p].pose);
        let j = &mut s.model.joints[joint];
        let agreeing = parent_pose.inverse() * s.model.bodies[b].pose * j.child_frame;
        if agreeing.distance(&j.parent_frame) <= POSE_MISMATCH {
            continue;
        }
        j.parent_frame = agreeing;
        let at = path::item("joints", &j.name);
        s.approximated(
            "pose_mismatch",
            Feature::InitialJointPositions,
            &at,
            format!(
                "the stored pose of body {:?} disagrees with the joint frames; DART derives the parent-side \
                 joint frame from the stored poses, so the joint's parent frame is moved to agree with them",
                s.model.bodies[b].name
            ),
        );
    }
}
