//! IR -> SDFormat: `lower` (any model -> one SDFormat can say, every change reported on its
//! IR path), `emit` (that model -> SDFormat text, losing nothing more) and the feature table
//! (`support`); [`emit()`] is the writer's entry point for the registry.
//!
//! Both share the naming rule of the reader, which [`Scopes`] states: an IR name
//! `outer::inner::link` is the link `link` of the model `inner` nested in the model `outer`,
//! and every body belongs to a model of the world (the reader names the links of a world's
//! model `model::link`). A joint lives in the innermost model holding both its links (the
//! world for a joint between two models), a frame in its body's model.

pub(crate) mod emit;
pub(crate) mod hinge_inertia;
pub(crate) mod loop_cuts;
pub(crate) mod lower;
pub(crate) mod support;

use crate::spec::{SCOPE, is_plain_name};
use mbconv_ir::format::{Exported, FormatError, Options};
use mbconv_ir::report::Report;
use mbconv_ir::{BodyRef, Model};
use std::collections::BTreeMap;

/// Writes a lowered `model` as SDFormat text the way the write settings in `options` say; an
/// item SDFormat cannot say as it stands is an error naming it.
pub(crate) fn emit(model: &Model, options: &Options) -> Result<Exported, FormatError> {
    let writing = emit::Writing::from_options(options);
    let text = emit::emit_with(model, writing).map_err(|e| Box::new(e) as FormatError)?;
    Ok(Exported::text(text, Report::default()))
}

/// A model of the written world, or the world itself: its prefix (`outer::inner::`, empty for
/// the world) and what it holds.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Scope {
    /// The prefix of the IR names of its items: `outer::inner::` (empty for the world).
    pub(crate) prefix: String,
    /// The model's own name (empty for the world).
    pub(crate) name: String,
    /// Nested models (indices into [`Scopes::scopes`]), in order of first appearance.
    pub(crate) models: Vec<usize>,
    /// Bodies written as its links.
    pub(crate) links: Vec<usize>,
    /// Joints written in it.
    pub(crate) joints: Vec<usize>,
}

/// The world and the models of a model, as SDFormat nests them.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Scopes {
    /// The world (index 0) and every model.
    pub(crate) scopes: Vec<Scope>,
    /// The scope of each body.
    pub(crate) of_body: Vec<usize>,
    /// The scope of each joint.
    pub(crate) of_joint: Vec<usize>,
    /// The scope of each prefix.
    by_prefix: BTreeMap<String, usize>,
}

/// The prefix of a scoped name (`a::b::` of `a::b::c`) and its last part (`c`).
pub(crate) fn split_scoped(name: &str) -> (&str, &str) {
    match name.rfind(SCOPE) {
        Some(at) => (&name[..at + SCOPE.len()], &name[at + SCOPE.len()..]),
        None => ("", name),
    }
}

/// True when `name` is a scoped name SDFormat can write as a link of a model of the world:
/// at least one model part, every part a plain name.
pub(crate) fn is_link_name(name: &str) -> bool {
    let parts: Vec<&str> = name.split(SCOPE).collect();
    parts.len() >= 2 && parts.iter().all(|p| is_plain_name(p))
}

/// The model of the world a scoped name belongs to: its first part.
pub(crate) fn top_model(name: &str) -> &str {
    name.split(SCOPE).next().unwrap_or(name)
}

/// The longest common scope prefix of two prefixes (`a::` of `a::b::` and `a::c::`).
fn common_prefix<'a>(a: &'a str, b: &str) -> &'a str {
    let mut end = 0;
    let mut at = 0;
    while let Some(next) = a[at..].find(SCOPE) {
        let stop = at + next + SCOPE.len();
        if b.len() >= stop && a[..stop] == b[..stop] {
            end = stop;
            at = stop;
        } else {
            break;
        }
    }
    &a[..end]
}

impl Scopes {
    /// The scope of the model whose prefix is `prefix`, made (with its parents) if new.
    fn scope(&mut self, prefix: &str) -> usize {
        if let Some(&i) = self.by_prefix.get(prefix) {
            return i;
        }
        let (parent_prefix, name) = split_scoped(&prefix[..prefix.len() - SCOPE.len()]);
        let parent = self.scope(parent_prefix);
        self.scopes.push(Scope {
            prefix: prefix.to_owned(),
            name: name.to_owned(),
            ..Scope::default()
        });
        let index = self.scopes.len() - 1;
        self.scopes[parent].models.push(index);
        self.by_prefix.insert(prefix.to_owned(), index);
        index
    }

    /// The nesting of `model`'s bodies and joints (its names are taken as written; the
    /// lowering makes them [`is_link_name`]s).
    pub(crate) fn new(model: &Model) -> Scopes {
        let mut scopes = Scopes {
            scopes: vec![Scope::default()],
            of_body: Vec::with_capacity(model.bodies.len()),
            of_joint: Vec::with_capacity(model.joints.len()),
            by_prefix: BTreeMap::from([(String::new(), 0)]),
        };
        for (b, body) in model.bodies.iter().enumerate() {
            let (prefix, _) = split_scoped(&body.name);
            let s = scopes.scope(prefix);
            scopes.scopes[s].links.push(b);
            scopes.of_body.push(s);
        }
        for (j, joint) in model.joints.iter().enumerate() {
            let prefix = joint_prefix(&joint.parent, &joint.child).to_owned();
            let s = scopes.scope(&prefix);
            scopes.scopes[s].joints.push(j);
            scopes.of_joint.push(s);
        }
        scopes
    }
}

/// The prefix of the model a joint between `parent` and `child` lives in: the innermost model
/// holding both (the child's model for a joint from the world, the world when the links are in
/// different models of the world).
pub(crate) fn joint_prefix<'m>(parent: &'m BodyRef, child: &'m BodyRef) -> &'m str {
    let prefix = |r: &'m BodyRef| r.name().map(|n| split_scoped(n).0);
    match (prefix(parent), prefix(child)) {
        (Some(a), Some(b)) => common_prefix(a, b),
        (Some(a), None) | (None, Some(a)) => a,
        (None, None) => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mbconv_ir::{Body, Joint, JointKind};

    #[test]
    fn scoped_names_split_into_prefix_and_last_part() {
        assert_eq!(split_scoped("a::b::c"), ("a::b::", "c"));
        assert_eq!(split_scoped("c"), ("", "c"));
        assert_eq!(top_model("robot::arm::link"), "robot");
    }

    #[test]
    fn a_link_name_has_a_model_part_and_plain_parts() {
        assert!(is_link_name("robot::base"));
        assert!(!is_link_name("base"));
        assert!(!is_link_name("robot::::base"));
    }

    #[test]
    fn scopes_nest_as_the_names_say() {
        let mut model = Model::new("w");
        model.bodies.push(Body::new("robot::base"));
        model.bodies.push(Body::new("robot::arm::link"));
        let kind = JointKind::Revolute {
            axis: nalgebra::Vector3::z(),
        };
        let (base, link) = (BodyRef::body("robot::base"), BodyRef::body("robot::arm::link"));
        model.joints.push(Joint::new("robot::j", kind, base, link));
        let scopes = Scopes::new(&model);
        assert_eq!(scopes.scopes[scopes.of_joint[0]].prefix, "robot::");
        assert_eq!(scopes.scopes[scopes.of_body[1]].name, "arm");
    }

    #[test]
    fn a_joint_lives_in_the_innermost_model_holding_both_links() {
        assert_eq!(
            joint_prefix(&BodyRef::World, &BodyRef::body("r::arm::l")),
            "r::arm::"
        );
        assert_eq!(
            joint_prefix(&BodyRef::body("r::a"), &BodyRef::body("r::arm::l")),
            "r::"
        );
        assert_eq!(joint_prefix(&BodyRef::body("q::a"), &BodyRef::body("r::l")), "");
    }
}
