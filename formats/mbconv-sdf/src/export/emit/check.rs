//! What the writer checks before writing: a model SDFormat can say as it stands (names,
//! joint tree, scopes), else the item it cannot say.

use super::unsayable;
use crate::export::{Scopes, is_link_name, joint_prefix, split_scoped, top_model};
use crate::spec::is_plain_name;
use mbconv_ir::format::kit::Unsayable;
use mbconv_ir::kinematics::SpanningTree;
use mbconv_ir::report::path;
use mbconv_ir::{BodyRef, Model, Pose};
use std::collections::BTreeSet;

/// Every body a link of a model of the world, names SDFormat can write.
pub(super) fn check_names(model: &Model) -> Result<(), Unsayable> {
    let moving_models: BTreeSet<&str> = model
        .bodies
        .iter()
        .filter(|b| !b.fixed)
        .map(|b| top_model(&b.name))
        .collect();
    for body in &model.bodies {
        let at = path::item("bodies", &body.name);
        if !is_link_name(&body.name) {
            return Err(unsayable(
                at,
                "its name is not `model::link` with names SDFormat allows (every link belongs to a model)",
            ));
        }
        if body.fixed && moving_models.contains(top_model(&body.name)) {
            return Err(unsayable(
                at,
                "a fixed body in a model with moving links (only a whole model can be static)",
            ));
        }
        for frame in &body.frames {
            let (prefix, local) = split_scoped(&frame.name);
            if prefix != split_scoped(&body.name).0 || !is_plain_name(local) {
                return Err(unsayable(
                    at,
                    format!("its frame {:?} is not named in its model", frame.name),
                ));
            }
        }
    }
    for frame in &model.world_frames {
        if !is_plain_name(&frame.name) {
            return Err(unsayable(
                path::item("world_frames", &frame.name),
                "a world frame's name must be a plain name",
            ));
        }
    }
    for joint in &model.joints {
        let prefix = joint_prefix(&joint.parent, &joint.child);
        let plain = joint.name.strip_prefix(prefix).is_some_and(is_plain_name);
        if !plain {
            return Err(unsayable(
                path::item("joints", &joint.name),
                format!("its name is not a plain name in the model {prefix:?} holding its links"),
            ));
        }
    }
    Ok(())
}

/// Joints pointing away from the root of `tree`, the tree the file states (the spanning tree,
/// or under `loops=drake` the one without the joints written as constraints), every
/// loop-closing joint's sides meeting (its frame is stated once, on the child), no free joint.
pub(super) fn check_tree(model: &Model, tree: SpanningTree) -> Result<SpanningTree, Unsayable> {
    for joint in &model.joints {
        let at = path::item("joints", &joint.name);
        if !joint.enabled {
            return Err(unsayable(at, "a switched-off joint"));
        }
        if joint.q0.iter().chain(&joint.v0).any(|x| *x != 0.0) {
            return Err(unsayable(at, "an initial position or velocity"));
        }
        if joint.bushing.is_some() || joint.actuator.is_some() || joint.joint_id.is_some() {
            return Err(unsayable(at, "a bushing, actuator or joint id"));
        }
    }
    if let Some(joint) = tree.first_reversed_joint() {
        let at = path::item("joints", &model.joints[joint].name);
        return Err(unsayable(at, "it points towards the root"));
    }
    let world = |r: &BodyRef| {
        r.name()
            .and_then(|n| model.body_index(n))
            .map_or(Pose::identity(), |b| model.bodies[b].pose)
    };
    for (j, joint) in model.joints.iter().enumerate() {
        let on_parent = world(&joint.parent) * joint.parent_frame;
        let on_child = world(&joint.child) * joint.child_frame;
        let gap = (on_parent.translation - on_child.translation).norm();
        let turn = on_parent.rotation.angle_to(&on_child.rotation);
        let scale = 1.0 + on_parent.translation.norm();
        if gap > 1e-9 * scale || turn > 1e-9 {
            let what = if tree.loop_joints.contains(&j) {
                "a loop-closing joint whose parent and child frames do not meet"
            } else {
                "its frames do not meet at the bodies' poses"
            };
            return Err(unsayable(path::item("joints", &joint.name), what));
        }
    }
    for body in &model.bodies {
        if body.initial_velocity.is_some() {
            return Err(unsayable(path::item("bodies", &body.name), "an initial velocity"));
        }
    }
    Ok(tree)
}

/// Names unique in each scope (links, joints, frames and models share one namespace).
pub(super) fn check_scopes(model: &Model, scopes: &Scopes) -> Result<(), Unsayable> {
    for scope in &scopes.scopes {
        let mut seen = BTreeSet::new();
        let mut names: Vec<(String, String)> = Vec::new();
        for &m in &scope.models {
            names.push((scopes.scopes[m].name.clone(), "model".to_owned()));
        }
        for &b in &scope.links {
            let body = &model.bodies[b];
            names.push((
                split_scoped(&body.name).1.to_owned(),
                path::item("bodies", &body.name),
            ));
            for f in &body.frames {
                names.push((
                    split_scoped(&f.name).1.to_owned(),
                    path::item("bodies", &body.name),
                ));
            }
        }
        for &j in &scope.joints {
            let joint = &model.joints[j];
            names.push((
                split_scoped(&joint.name).1.to_owned(),
                path::item("joints", &joint.name),
            ));
        }
        if scope.prefix.is_empty() {
            for f in &model.world_frames {
                names.push((f.name.clone(), path::item("world_frames", &f.name)));
            }
        }
        for (name, at) in names {
            if !seen.insert(name.clone()) {
                return Err(unsayable(
                    at,
                    format!("the name {name:?} is used twice in its model"),
                ));
            }
        }
    }
    Ok(())
}
