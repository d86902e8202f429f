//! Skeletons: every body in a skeleton group (one per connected tree outside the model's
//! skeleton groups), non-skeleton groups dropped, joints between two skeletons replaced.

use crate::export::skel_name;
use crate::export::skeletons::plan;
use crate::spec::NAME;
use mbconv_ir::format::kit::LowerSession;
use mbconv_ir::format::support::Feature;
use mbconv_ir::kinematics::{Attachment, SpanningTree};
use mbconv_ir::report::path;
use mbconv_ir::{BodyRef, Category, Group, GroupType, Joint, JointKind, Severity, Value};

/// Groups that are not DART skeletons: their bodies are written by connected tree.
pub(super) fn drop_non_skeleton_groups(s: &mut LowerSession) {
    for g in std::mem::take(&mut s.model.groups) {
        if g.group_type == GroupType::Skeleton {
            s.model.groups.push(g);
            continue;
        }
        s.finding(
            "group_lost",
            Feature::Groups,
            Severity::Info,
            Category::Dropped,
            &path::item("groups", &g.name),
            "group is not a DART skeleton; its bodies are written by connected tree",
        );
    }
}

/// Every body in a skeleton group (one new group per connected tree outside the model's
/// skeletons); a joint between two skeletons replaced by a free joint of its child.
pub(super) fn skeletons(s: &mut LowerSession) {
    Skeletons(s).run();
}

/// The `skeletons` pass over a session.
struct Skeletons<'a>(&'a mut LowerSession);

impl Skeletons<'_> {
    fn run(&mut self) {
        let tree = SpanningTree::new(&self.0.model);
        let plans = plan(&self.0.model, &tree);
        let mut skeleton_of = vec![0; self.0.model.bodies.len()];
        for (p, skeleton) in plans.iter().enumerate() {
            for &b in &skeleton.bodies {
                skeleton_of[b] = p;
            }
        }
        for b in 0..self.0.model.bodies.len() {
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
        let existing = self.0.model.groups.len();
        for (p, skeleton) in plans.iter().enumerate() {
            let at = match self.0.model.groups.get(p) {
                Some(g) if p < existing => path::item("groups", &g.name),
                _ => path::item("groups", &skeleton.name),
            };
            let m = &self.0.model;
            if skeleton
                .bodies
                .iter()
                .any(|&b| skel_name(&m.bodies[b].name, &m.bodies[b].extras) == "world")
            {
                self.0.approximated(
                    "body_named_world",
                    Feature::Groups,
                    &at,
                    "a body named \"world\" makes every <parent>world</parent> of its skeleton refer to that body in DART",
                );
            }
            if p >= existing {
                let mut group = Group::new(&skeleton.name, GroupType::Skeleton);
                group.bodies = skeleton
                    .bodies
                    .iter()
                    .map(|&b| self.0.model.bodies[b].name.clone())
                    .collect();
                self.0.model.groups.push(group);
            }
        }
    }

    /// A tree joint between bodies of two skeletons becomes a free joint of its tree child.
    fn cross_skeleton_joint(&mut self, j: usize, child: usize) {
        let old = &self.0.model.joints[j];
        let at = path::item("joints", &old.name);
        let mut stand_in = Joint::new(
            old.name.clone(),
            JointKind::Free,
            BodyRef::World,
            BodyRef::body(self.0.model.bodies[child].name.clone()),
        );
        stand_in.parent_frame = self.0.model.bodies[child].pose;
        if let Some(Value::String(original)) = old.extras.get(NAME) {
            stand_in.extras.insert(NAME, Value::String(original.clone()));
        }
        let feature = Feature::of_joint(&old.kind);
        self.0.model.joints[j] = stand_in;
        self.0.lost(
            "cross_skeleton_joint_lost",
            feature,
            &at,
            "joins bodies of two skeletons, which SKEL cannot say; the child is written with a free joint",
        );
    }
}
