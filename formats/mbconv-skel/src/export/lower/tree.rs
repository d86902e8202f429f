//! The joint tree as SKEL says it: one parent joint per body (loop-closing and unusable
//! joints removed), body velocities as joint rates or explicit free joints, every joint
//! pointing away from the world, parent-side frames that agree with the stored body poses.

use super::{CODE, Lowering, POSE_MISMATCH, joints};
use mbconv_ir::kinematics::{Attachment, SpanningTree};
use mbconv_ir::report::path;
use mbconv_ir::{Category, Pose, Severity};
use std::collections::BTreeSet;

impl Lowering {
    /// Loop-closing joints and joints the spanning tree cannot use are removed.
    pub(super) fn unusable_joints(&mut self) {
        let tree = SpanningTree::new(&self.model);
        let mut removed = BTreeSet::new();
        for j in tree.loop_joints {
            let at = path::item("joints", &self.model.joints[j].name);
            self.drop(
                "loop_joint",
                &at,
                "closes a kinematic loop; DART discards a second parent joint, so SKEL cannot say it",
            );
            removed.insert(j);
        }
        for j in tree.ignored_joints {
            let joint = &self.model.joints[j];
            let why = if !joint.enabled {
                "disabled"
            } else {
                "refers to unknown bodies or joins a body to itself"
            };
            let at = path::item("joints", &joint.name);
            self.drop("joint", &at, format!("joint is {why}"));
            removed.insert(j);
        }
        let mut index = 0;
        self.model.joints.retain(|_| {
            index += 1;
            !removed.contains(&(index - 1))
        });
    }

    /// Body velocities: tree bodies' become joint rates, floating bodies get a free joint
    /// that carries theirs (placed first, so they are written before the tree joints).
    pub(super) fn velocities(&mut self) {
        let fitted = mbconv_ir::lower::fit_joint_rates(&mut self.model, CODE);
        self.report.findings.extend(fitted);
        let before = self.model.joints.len();
        // The pass's own notes say the same as `implicit_joint`, which names the joint.
        let _ = mbconv_ir::lower::explicit_free_joints(&mut self.model, CODE);
        let mut free_joints = self.model.joints.split_off(before);
        for joint in &free_joints {
            let body = joint.child.name().unwrap_or_default().to_owned();
            self.finding(
                "implicit_joint",
                Severity::Info,
                Category::Note,
                &path::item("bodies", &body),
                format!(
                    "body has no joint; written with a free joint {:?} to the world at its pose, carrying its \
                     initial velocity",
                    joint.name
                ),
            );
        }
        free_joints.append(&mut self.model.joints);
        self.model.joints = free_joints;
        for body in &mut self.model.bodies {
            if body.initial_velocity.take().is_some() {
                let at = path::field(&path::item("bodies", &body.name), "initial_velocity");
                self.report.add(
                    &format!("{CODE}.body_velocity"),
                    Severity::Warning,
                    Category::Dropped,
                    &at,
                    "SKEL gives initial velocities per joint only",
                );
            }
        }
    }

    /// Joints met from their child side, turned round so the tree parent is the parent.
    pub(super) fn reversed_joints(&mut self) {
        let tree = SpanningTree::new(&self.model);
        for attachment in &tree.attachments {
            if let Attachment::Joint {
                joint,
                reversed: true,
                ..
            } = *attachment
            {
                let (flipped, finding) = joints::reversed(&self.model.joints[joint]);
                self.model.joints[joint] = flipped;
                self.report.push(finding);
            }
        }
    }

    /// DART derives a joint's parent-side frame from the stored body poses: where a stored pose
    /// disagrees with the joint frames, the parent-side frame is made to agree with the poses.
    pub(super) fn pose_agreement(&mut self) {
        let tree = SpanningTree::new(&self.model);
        for b in 0..self.model.bodies.len() {
            let Attachment::Joint { joint, parent, .. } = tree.attachments[b] else {
                continue;
            };
            let parent_pose = parent.map_or_else(Pose::identity, |p| self.model.bodies[p].pose);
            let j = &mut self.model.joints[joint];
            let agreeing = parent_pose.inverse() * self.model.bodies[b].pose * j.child_frame;
            if agreeing.distance(&j.parent_frame) <= POSE_MISMATCH {
                continue;
            }
            j.parent_frame = agreeing;
            let at = path::item("bodies", &self.model.bodies[b].name);
            self.finding(
                "pose_mismatch",
                Severity::Warning,
                Category::Approximated,
                &at,
                "the stored body pose disagrees with its joint frames; DART derives the parent-side joint \
                 frame from the stored poses, so the joint's parent frame is moved to agree with them",
            );
        }
    }
}
