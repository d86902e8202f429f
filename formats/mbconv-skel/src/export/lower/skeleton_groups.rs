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

/// A DART joint joins two bodies of one skeleton: a body outside the skeleton groups whose
/// tree parent or child is in one joins that group, and two skeleton groups a tree joint
/// joins are merged (when both are mobile or both are not), so that no tree joint crosses
/// from one skeleton to another.
pub(super) fn join_jointed_skeletons(s: &mut LowerSession) {
    while join_one(s) {}
}

/// One step of [`join_jointed_skeletons`]; false when no tree joint crosses skeletons.
fn join_one(s: &mut LowerSession) -> bool {
    let m = &s.model;
    let tree = SpanningTree::new(m);
    let group_of: Vec<Option<usize>> = m
        .bodies
        .iter()
        .map(|b| m.groups.iter().position(|g| g.bodies.contains(&b.name)))
        .collect();
    for &b in &tree.order {
        let Attachment::Joint {
            joint,
            parent: Some(p),
            ..
        } = tree.attachments[b]
        else {
            continue;
        };
        let joint_at = path::item("joints", &m.joints[joint].name);
        let (joining, group) = match (group_of[p], group_of[b]) {
            (Some(g), None) => (b, g),
            (None, Some(g)) => (p, g),
            (Some(g), Some(h)) if g != h && m.groups[g].mobile == m.groups[h].mobile => {
                let merged = s.model.groups.remove(h);
                let into = if h < g { g - 1 } else { g };
                let target = &mut s.model.groups[into];
                for name in merged.bodies {
                    if !target.bodies.contains(&name) {
                        target.bodies.push(name);
                    }
                }
                for name in merged.joints {
                    if !target.joints.contains(&name) {
                        target.joints.push(name);
                    }
                }
                let message = format!(
                    "skeleton {:?} is merged into skeleton {:?}: joint {joint_at} joins them, and a DART joint \
                     joins bodies of one skeleton",
                    merged.name, target.name
                );
                s.finding(
                    "skeletons_merged",
                    Feature::Groups,
                    Severity::Info,
                    Category::Dropped,
                    &path::item("groups", &merged.name),
                    message,
                );
                return true;
            }
            _ => continue,
        };
        let name = s.model.bodies[joining].name.clone();
        let target = &mut s.model.groups[group];
        target.bodies.push(name.clone());
        let message = format!(
            "body {name:?} is written in skeleton {:?}, which joint {joint_at} joins it to",
            target.name
        );
        s.note(
            "body_joins_skeleton",
            Feature::Groups,
            &path::item("bodies", &name),
            message,
        );
        return true;
    }
    false
}

/// Every body in a skeleton group (one new group per connected tree outside the model's
/// skeletons); a joint still between two skeletons (one mobile, one not) replaced by a free
/// joint of its child.
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
