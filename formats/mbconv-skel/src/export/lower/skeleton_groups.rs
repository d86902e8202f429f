//! Skeletons: every body in a skeleton group (one per connected tree outside the model's
//! skeleton groups), non-skeleton groups dropped, joints between two skeletons replaced.

use super::Lowering;
use crate::export::skel_name;
use crate::export::skeletons::plan;
use crate::spec::NAME;
use mbconv_ir::kinematics::{Attachment, SpanningTree};
use mbconv_ir::report::path;
use mbconv_ir::{BodyRef, Category, Group, GroupType, Joint, JointKind, Severity, Value};

impl Lowering {
    /// Every body in a skeleton group; non-skeleton groups dropped; a joint between two
    /// skeletons replaced by a free joint of its child; skeleton-level findings.
    pub(super) fn skeletons(&mut self) {
        let groups = std::mem::take(&mut self.model.groups);
        for mut g in groups {
            let at = path::item("groups", &g.name);
            if g.group_type != GroupType::Skeleton {
                self.finding(
                    "group",
                    Severity::Info,
                    Category::Dropped,
                    &at,
                    "group is not a DART skeleton; its bodies are written by connected tree",
                );
                continue;
            }
            self.foreign_extras(&at, &mut g.extras);
            self.model.groups.push(g);
        }
        let tree = SpanningTree::new(&self.model);
        let plans = plan(&self.model, &tree);
        let mut skeleton_of = vec![0; self.model.bodies.len()];
        for (p, skeleton) in plans.iter().enumerate() {
            for &b in &skeleton.bodies {
                skeleton_of[b] = p;
            }
        }
        for b in 0..self.model.bodies.len() {
            if let Attachment::Joint {
                joint,
                parent: Some(parent),
                ..
            } = tree.attachments[b]
                && skeleton_of[parent] != skeleton_of[b]
            {
                self.cross_skeleton_joint(joint, b);
            }
        }
        let existing = self.model.groups.len();
        for (p, skeleton) in plans.iter().enumerate() {
            let at = match self.model.groups.get(p) {
                Some(g) if p < existing => path::item("groups", &g.name),
                _ => path::item("groups", &skeleton.name),
            };
            let m = &self.model;
            if skeleton
                .bodies
                .iter()
                .any(|&b| skel_name(&m.bodies[b].name, &m.bodies[b].extras) == "world")
            {
                self.finding(
                    "body_named_world",
                    Severity::Warning,
                    Category::Approximated,
                    &at,
                    "a body named \"world\" makes every <parent>world</parent> of its skeleton refer to that body in DART",
                );
            }
            if p >= existing {
                let mut group = Group::new(&skeleton.name, GroupType::Skeleton);
                group.bodies = skeleton
                    .bodies
                    .iter()
                    .map(|&b| self.model.bodies[b].name.clone())
                    .collect();
                self.model.groups.push(group);
            }
        }
    }

    /// A tree joint between bodies of two skeletons becomes a free joint of its tree child.
    fn cross_skeleton_joint(&mut self, j: usize, child: usize) {
        let old = &self.model.joints[j];
        let at = path::item("joints", &old.name);
        let mut stand_in = Joint::new(
            old.name.clone(),
            JointKind::Free,
            BodyRef::World,
            BodyRef::body(self.model.bodies[child].name.clone()),
        );
        stand_in.parent_frame = self.model.bodies[child].pose;
        if let Some(Value::String(original)) = old.extras.get(NAME) {
            stand_in.extras.insert(NAME, Value::String(original.clone()));
        }
        self.model.joints[j] = stand_in;
        self.drop(
            "cross_skeleton_joint",
            &at,
            "joins bodies of two skeletons, which SKEL cannot say; the child is written with a free joint",
        );
    }
}
