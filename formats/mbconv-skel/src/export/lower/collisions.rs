//! Contact DART never checks: bodies joined by a joint (DART's collision filter skips a body
//! and its parent), and by default any two bodies of one skeleton (self-collision is off unless
//! enabled in code). A pair of jointed bodies that both carry collidable shapes gets a note
//! naming both bodies, and a skeleton with two or more colliding bodies one note listing them,
//! unless the source model already had them in one DART skeleton (read from SKEL, where the
//! same rules applied).

use mbconv_ir::format::kit::LowerSession;
use mbconv_ir::format::support::Feature;
use mbconv_ir::lower::{colliding_jointed_joints, has_collision_shapes};
use mbconv_ir::report::path;
use mbconv_ir::{GroupType, Model};
use std::collections::BTreeSet;

/// True when one skeleton group of `model` holds both bodies.
fn in_one_skeleton(model: &Model, a: &str, b: &str) -> bool {
    model.groups.iter().any(|g| {
        g.group_type == GroupType::Skeleton
            && g.bodies.iter().any(|n| n == a)
            && g.bodies.iter().any(|n| n == b)
    })
}

/// The notes of [`unchecked_pairs`] and [`unchecked_skeletons`] for the lowered model.
pub(super) fn report(s: &mut LowerSession, source: &Model) {
    for (what, at, message) in unchecked_pairs(&s.model, source)
        .into_iter()
        .chain(unchecked_skeletons(&s.model, source))
    {
        s.note(what, Feature::Shapes, &at, message);
    }
}

/// A note: its code's `what`, its IR path and its message.
type Note = (&'static str, String, String);

/// One note per pair of bodies joined by an enabled joint of the lowered `model` that both
/// collide, except pairs one skeleton of the `source` model already held.
fn unchecked_pairs(model: &Model, source: &Model) -> Vec<Note> {
    let mut seen = BTreeSet::new();
    let mut findings = Vec::new();
    for joint in colliding_jointed_joints(model).filter(|j| j.enabled) {
        let (Some(a), Some(b)) = (joint.parent.name(), joint.child.name()) else {
            continue;
        };
        if in_one_skeleton(source, a, b) {
            continue;
        }
        let pair = if a <= b { (a, b) } else { (b, a) };
        if !seen.insert(pair) {
            continue;
        }
        let (path_a, path_b) = (path::item("bodies", a), path::item("bodies", b));
        let message = format!(
            "{path_a} and {path_b} both collide but are joined by joint {:?}: not checked for contact in DART, \
             which never collides a body with its parent",
            joint.name
        );
        findings.push(("unchecked_contact", path_a, message));
    }
    findings
}

/// One note per skeleton of the lowered `model` that the `source` model did not have, when two
/// or more of its bodies collide: DART checks no two bodies of one skeleton by default.
fn unchecked_skeletons(model: &Model, source: &Model) -> Vec<Note> {
    let mut findings = Vec::new();
    for group in model
        .groups
        .iter()
        .filter(|g| g.group_type == GroupType::Skeleton)
    {
        let known = source
            .groups
            .iter()
            .any(|g| g.group_type == GroupType::Skeleton && g.name == group.name);
        if known {
            continue;
        }
        let colliding: Vec<&str> = group
            .bodies
            .iter()
            .filter(|name| model.body(name).is_some_and(has_collision_shapes))
            .map(String::as_str)
            .collect();
        if colliding.len() < 2 {
            continue;
        }
        let message = format!(
            "bodies {} share one DART skeleton, whose bodies DART does not check against each other by default \
             (self-collision off)",
            colliding.join(", ")
        );
        findings.push((
            "unchecked_self_contact",
            path::item("groups", &group.name),
            message,
        ));
    }
    findings
}
