//! IR -> SDFormat: [`lower`] (any model -> one SDFormat can say, every change reported on its
//! IR path), [`emit`] (that model -> SDFormat text, losing nothing more) and the feature table.
//!
//! Both share the naming rule of the reader, which [`Scopes`] states: an IR name
//! `outer::inner::link` is the link `link` of the model `inner` nested in the model `outer`,
//! and every body belongs to a model of the world (the reader names the links of a world's
//! model `model::link`). A joint lives in the innermost model holding both its links (the
//! world for a joint between two models), a frame in its body's model.

pub mod emit;
pub mod lower;
pub(crate) mod support;

use crate::spec::{SCOPE, is_plain_name};
use mbconv_ir::{BodyRef, Model};
use std::collections::BTreeMap;

/// A model of the written world, or the world itself: its prefix (`outer::inner::`, empty for
/// the world) and what it holds.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Scope {
    /// The prefix of the IR names of its items: `outer::inner::` (empty for the world).
    pub prefix: String,
    /// The model's own name (empty for the world).
    pub name: String,
    /// Nested models (indices into [`Scopes::scopes`]), in order of first appearance.
    pub models: Vec<usize>,
    /// Bodies written as its links.
    pub links: Vec<usize>,
    /// Joints written in it.
    pub joints: Vec<usize>,
}

/// The world and the models of a model, as SDFormat nests them.
#[derive(Debug, Clone, PartialEq)]
pub struct Scopes {
    /// The world (index 0) and every model.
    pub scopes: Vec<Scope>,
    /// The scope of each body.
    pub of_body: Vec<usize>,
    /// The scope of each joint.
    pub of_joint: Vec<usize>,
    /// The scope of each prefix.
    by_prefix: BTreeMap<String, usize>,
}

/// The prefix of a scoped name (`a::b::` of `a::b::c`) and its last part (`c`).
///
/// ```
/// assert_eq!(mbconv_sdf::export::split_scoped("a::b::c"), ("a::b::", "c"));
/// assert_eq!(mbconv_sdf::export::split_scoped("c"), ("", "c"));
/// ```
pub fn split_scoped(name: &str) -> (&str, &str) {
    match name.rfind(SCOPE) {
        Some(at) => (&name[..at + SCOPE.len()], &name[at + SCOPE.len()..]),
        None => ("", name),
    }
}

/// True when `name` is a scoped name SDFormat can write as a link of a model of the world:
/// at least one model part, every part a plain name.
///
/// ```
/// assert!(mbconv_sdf::export::is_link_name("robot::base"));
/// assert!(!mbconv_sdf::export::is_link_name("base"));
/// assert!(!mbconv_sdf::export::is_link_name("robot::::base"));
/// ```
pub fn is_link_name(name: &str) -> bool {
    let parts: Vec<&str> = name.split(SCOPE).collect();
    parts.len() >= 2 && parts.iter().all(|p| is_plain_name(p))
}

/// The model of the world a scoped name belongs to: its first part.
///
/// ```
/// assert_eq!(mbconv_sdf::export::top_model("robot::arm::link"), "robot");
/// ```
pub fn top_model(name: &str) -> &str {
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
    ///
    /// ```
    /// use mbconv_ir::{Body, BodyRef, Joint, JointKind, Model};
    /// let mut model = Model::new("w");
    /// model.bodies.push(Body::new("robot::base"));
    /// model.bodies.push(Body::new("robot::arm::link"));
    /// let kind = JointKind::Revolute { axis: nalgebra::Vector3::z() };
    /// model.joints.push(Joint::new("robot::j", kind, BodyRef::body("robot::base"), BodyRef::body("robot::arm::link")));
    /// let scopes = mbconv_sdf::export::Scopes::new(&model);
    /// assert_eq!(scopes.scopes[scopes.of_joint[0]].prefix, "robot::");
    /// assert_eq!(scopes.scopes[scopes.of_body[1]].name, "arm");
    /// ```
    pub fn new(model: &Model) -> Scopes {
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

    /// The scopes from the world down, each before its nested models.
    pub fn depth_first(&self) -> Vec<usize> {
        let mut order = Vec::with_capacity(self.scopes.len());
        let mut stack = vec![0];
        while let Some(s) = stack.pop() {
            order.push(s);
            stack.extend(self.scopes[s].models.iter().rev());
        }
        order
    }
}

/// The prefix of the model a joint between `parent` and `child` lives in: the innermost model
/// holding both (the child's model for a joint from the world, the world when the links are in
/// different models of the world).
///
/// ```
/// use mbconv_ir::BodyRef;
/// use mbconv_sdf::export::joint_prefix;
/// assert_eq!(joint_prefix(&BodyRef::World, &BodyRef::body("r::arm::l")), "r::arm::");
/// assert_eq!(joint_prefix(&BodyRef::body("r::a"), &BodyRef::body("r::arm::l")), "r::");
/// assert_eq!(joint_prefix(&BodyRef::body("q::a"), &BodyRef::body("r::l")), "");
/// ```
pub fn joint_prefix<'m>(parent: &'m BodyRef, child: &'m BodyRef) -> &'m str {
    let prefix = |r: &'m BodyRef| r.name().map(|n| split_scoped(n).0);
    match (prefix(parent), prefix(child)) {
        (Some(a), Some(b)) => common_prefix(a, b),
        (Some(a), None) | (None, Some(a)) => a,
        (None, None) => "",
    }
}
