//! `<default>` classes: a tree of named classes under the top-level class `main`, each holding
//! attribute values per element kind (`joint`, `geom`, `site`, …), inherited by nested classes
//! and by every element that uses the class (its own `class`, or the `childclass` of the
//! nearest enclosing body or frame that has one, or `main`).
//!
//! Resolution follows MuJoCo's copy-then-overwrite semantics: a class starts as a copy of its
//! parent and its attributes overwrite; an element starts as a copy of its class and its
//! attributes overwrite. A numeric attribute with fewer numbers than the element takes
//! overwrites only its first numbers (`size="0.1"` over a class's `size="1 2 3"` gives
//! `0.1 2 3`), so values are resolved by layers, root first, and every number remembers where
//! it came from ([`Origin`]) so that a writer can keep the class structure.
//!
//! All actuator elements (`motor`, `position`, `general`, …) share one default slot per class
//! in MuJoCo; callers use the kind `actuator` for them.

use std::collections::BTreeMap;

/// Index of a class in a [`Classes`] tree; `0` is `main`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct ClassId(pub usize);

impl ClassId {
    /// The top-level class `main`.
    pub(crate) const MAIN: ClassId = ClassId(0);
}

/// Where a resolved value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Origin {
    /// MuJoCo's built-in default (nothing in the file).
    Builtin,
    /// A `<default>` class, by name.
    Class(String),
    /// The element itself.
    Element,
}

/// Why a class cannot be added (MuJoCo's words).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ClassError {
    /// A nested `<default>` without a `class` attribute.
    #[error("empty class name")]
    Empty,
    /// Two classes of one name.
    #[error("repeated default class name")]
    Repeated,
}

#[derive(Debug, Clone)]
struct Class<V> {
    name: String,
    parent: Option<ClassId>,
    // kind -> attribute -> value
    values: BTreeMap<String, BTreeMap<String, V>>,
}

/// The default classes of a model, holding attribute values of any type `V` (the reader keeps
/// the text with its position).
#[derive(Debug, Clone)]
pub(crate) struct Classes<V> {
    classes: Vec<Class<V>>,
}

impl<V> Default for Classes<V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<V> Classes<V> {
    /// Only the class `main`, empty.
    pub(crate) fn new() -> Self {
        Classes {
            classes: vec![Class {
                name: "main".into(),
                parent: None,
                values: BTreeMap::new(),
            }],
        }
    }

    /// Adds a class nested in `parent`.
    pub(crate) fn add(&mut self, name: &str, parent: ClassId) -> Result<ClassId, ClassError> {
        if name.is_empty() {
            return Err(ClassError::Empty);
        }
        if self.find(name).is_some() {
            return Err(ClassError::Repeated);
        }
        self.classes.push(Class {
            name: name.to_string(),
            parent: Some(parent),
            values: BTreeMap::new(),
        });
        Ok(ClassId(self.classes.len() - 1))
    }

    /// The class of a name.
    pub(crate) fn find(&self, name: &str) -> Option<ClassId> {
        self.classes.iter().position(|c| c.name == name).map(ClassId)
    }

    /// The name of a class.
    pub(crate) fn name(&self, id: ClassId) -> &str {
        &self.classes[id.0].name
    }

    /// The class a class is nested in (`None` for `main`).
    pub(crate) fn parent(&self, id: ClassId) -> Option<ClassId> {
        self.classes[id.0].parent
    }

    /// Sets an attribute of an element kind in a class (the last setting wins, as when a
    /// class lists an element kind twice).
    pub(crate) fn set(&mut self, class: ClassId, kind: &str, attribute: &str, value: V) {
        self.classes[class.0]
            .values
            .entry(kind.to_string())
            .or_default()
            .insert(attribute.to_string(), value);
    }

    /// The attributes a class itself sets for an element kind, by name.
    pub(crate) fn own(&self, class: ClassId, kind: &str) -> impl Iterator<Item = (&str, &V)> {
        self.classes[class.0]
            .values
            .get(kind)
            .into_iter()
            .flatten()
            .map(|(k, v)| (k.as_str(), v))
    }

    /// The chain from `main` down to `class`.
    pub(crate) fn chain(&self, class: ClassId) -> Vec<ClassId> {
        let mut chain = vec![class];
        let mut at = class;
        while let Some(parent) = self.parent(at) {
            chain.push(parent);
            at = parent;
        }
        chain.reverse();
        chain
    }

    /// The nearest value of an attribute along the chain of `class` and where it is set.
    pub(crate) fn lookup(&self, class: ClassId, kind: &str, attribute: &str) -> Option<(&V, Origin)> {
        self.chain(class).into_iter().rev().find_map(|c| {
            self.classes[c.0]
                .values
                .get(kind)
                .and_then(|m| m.get(attribute))
                .map(|v| (v, Origin::Class(self.classes[c.0].name.clone())))
        })
    }

    /// Every value of an attribute along the chain, root first, each with its class: the
    /// layers of [`resolve_numbers`].
    pub(crate) fn layers(&self, class: ClassId, kind: &str, attribute: &str) -> Vec<(&V, Origin)> {
        self.chain(class)
            .into_iter()
            .filter_map(|c| {
                self.classes[c.0]
                    .values
                    .get(kind)
                    .and_then(|m| m.get(attribute))
                    .map(|v| (v, Origin::Class(self.classes[c.0].name.clone())))
            })
            .collect()
    }
}

/// Resolves a numeric attribute by layers: `builtin` first, then each layer overwriting its
/// leading numbers. Returns the numbers and, per number, its origin.
pub(crate) fn resolve_numbers(builtin: &[f64], layers: &[(&[f64], Origin)]) -> (Vec<f64>, Vec<Origin>) {
    let mut values = builtin.to_vec();
    let mut origins = vec![Origin::Builtin; builtin.len()];
    for (numbers, origin) in layers {
        for (i, &x) in numbers.iter().enumerate() {
            if i < values.len() {
                values[i] = x;
                origins[i] = origin.clone();
            } else {
                values.push(x);
                origins.push(origin.clone());
            }
        }
    }
    (values, origins)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn three_deep_inheritance_with_overrides() {
        let mut c: Classes<f64> = Classes::new();
        c.set(ClassId::MAIN, "joint", "damping", 1.0);
        c.set(ClassId::MAIN, "joint", "armature", 0.1);
        let a = c.add("a", ClassId::MAIN).unwrap();
        c.set(a, "joint", "damping", 2.0);
        let b = c.add("b", a).unwrap();
        c.set(b, "geom", "density", 500.0);
        let d = c.add("d", b).unwrap();
        c.set(d, "joint", "armature", 0.3);
        assert_eq!(c.chain(d), vec![ClassId::MAIN, a, b, d]);
        assert_eq!(
            c.lookup(d, "joint", "damping"),
            Some((&2.0, Origin::Class("a".into())))
        );
        assert_eq!(
            c.lookup(d, "joint", "armature"),
            Some((&0.3, Origin::Class("d".into())))
        );
        assert_eq!(
            c.lookup(b, "joint", "armature"),
            Some((&0.1, Origin::Class("main".into())))
        );
        assert_eq!(c.lookup(a, "geom", "density"), None);
        assert_eq!(c.layers(d, "joint", "damping").len(), 2);
        assert_eq!(c.add("a", d), Err(ClassError::Repeated));
        assert_eq!(c.add("", d), Err(ClassError::Empty));
        assert_eq!(c.name(d), "d");
        assert_eq!(c.parent(d), Some(b));
        assert_eq!(c.own(a, "joint").count(), 1);
    }

    #[test]
    fn partial_vectors_overwrite_leading_numbers() {
        let main = [1.0, 2.0, 3.0];
        let class = [4.0, 5.0];
        let own = [6.0];
        let (values, origins) = resolve_numbers(
            &[0.0, 0.0, 0.0],
            &[
                (&main, Origin::Class("main".into())),
                (&class, Origin::Class("c".into())),
                (&own, Origin::Element),
            ],
        );
        assert_eq!(values, vec![6.0, 5.0, 3.0]);
        assert_eq!(
            origins,
            vec![
                Origin::Element,
                Origin::Class("c".into()),
                Origin::Class("main".into())
            ]
        );
        let (values, origins) = resolve_numbers(&[0.0, 0.0], &[]);
        assert_eq!(values, vec![0.0, 0.0]);
        assert_eq!(origins, vec![Origin::Builtin, Origin::Builtin]);
    }

    #[test]
    fn example_classes() {
        let mut classes: Classes<&str> = Classes::new();
        classes.set(ClassId::MAIN, "joint", "damping", "1");
        let arm = classes.add("arm", ClassId::MAIN).unwrap();
        classes.set(arm, "joint", "stiffness", "5");
        assert_eq!(
            classes.lookup(arm, "joint", "damping"),
            Some((&"1", Origin::Class("main".into())))
        );
        assert_eq!(classes.lookup(ClassId::MAIN, "joint", "stiffness"), None);
    }

    #[test]
    fn example_resolve_numbers() {
        let class = [1.0, 2.0, 3.0];
        let own = [0.5];
        let layers = [
            (&class[..], Origin::Class("main".into())),
            (&own[..], Origin::Element),
        ];
        let (values, origins) = resolve_numbers(&[0.0; 3], &layers);
        assert_eq!(values, vec![0.5, 2.0, 3.0]);
        assert_eq!(origins[0], Origin::Element);
        assert_eq!(origins[2], Origin::Class("main".into()));
    }
}
