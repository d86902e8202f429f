//! `<default>`: the default classes of a document (nested, inherited) and the class each element
//! uses (its own `class`, else the `childclass` in force), with the attributes it takes from
//! them remembered for the writer.

use super::Reader;
use super::values::Values;
use crate::import::compiler::defaults::{ClassId, Classes};
use crate::raw::{self, Element};
use mbconv_ir::format::kit::SourceResult;
use mbconv_ir::{Value, ValueMap};

/// Element kinds that take defaults, by the element name a `<default>` lists them under.
const DEFAULT_KINDS: &[&str] = &[
    "mesh", "material", "joint", "geom", "site", "camera", "light", "pair", "equality", "tendon",
];

/// Actuator elements; they share one default slot (`actuator`) per class.
const ACTUATORS: &[&str] = &[
    "general",
    "motor",
    "position",
    "velocity",
    "damper",
    "intvelocity",
    "orientation",
    "pid",
    "cylinder",
    "muscle",
    "adhesion",
    "dcmotor",
];

/// The default classes of one document.
pub(crate) fn classes_of(document: &raw::Document) -> SourceResult<Values<'_>> {
    let mut values = Values {
        files: &document.files,
        classes: Classes::new(),
    };
    for d in document.root.children_named("default") {
        if let Some(class) = d.attr("class")
            && class.value != "main"
        {
            return Err(values.files.error(
                &class.loc,
                "default",
                "top-level default class 'main' cannot be renamed",
            ));
        }
        default_class(&mut values, d, ClassId::MAIN)?;
    }
    Ok(values)
}

/// The settings of one `<default>` class and, recursively, its child classes.
pub(super) fn default_class<'d>(values: &mut Values<'d>, d: &'d Element, class: ClassId) -> SourceResult<()> {
    for child in &d.children {
        let name = child.name.as_str();
        if name == "default" {
            let Some(cname) = child.attr("class") else {
                return Err(values.files.error(&child.loc, "default", "empty class name"));
            };
            let files = values.files;
            let id = values
                .classes
                .add(&cname.value, class)
                .map_err(|e| files.error(&cname.loc, "default", e.to_string()))?;
            default_class(values, child, id)?;
            continue;
        }
        let kind = if ACTUATORS.contains(&name) {
            "actuator"
        } else if DEFAULT_KINDS.contains(&name) {
            name
        } else {
            return Err(values.files.error(
                &child.loc,
                "default",
                format!("unrecognized element <{name}> in <default>"),
            ));
        };
        for a in &child.attrs {
            values.classes.set(class, kind, &a.name, a);
        }
    }
    Ok(())
}

impl<'d> Reader<'d> {
    /// The attributes an element takes from its default classes, each with the class that
    /// sets it (the nearest along the chain): `{attribute: class}`, kept as `mjcf.from_class`
    /// so that a writer can restore the class structure.
    pub(crate) fn class_origins(&self, e: &Element, kind: &str, class: ClassId) -> Option<Value> {
        let mut m = ValueMap::new();
        let classes = &self.values.classes;
        for id in classes.chain(class).into_iter().rev() {
            for (name, _) in classes.own(id, kind) {
                if e.attr(name).is_none() && m.get(name).is_none() {
                    m.insert(name.to_string(), Value::String(classes.name(id).to_string()));
                }
            }
        }
        (!m.0.is_empty()).then_some(Value::Map(m))
    }

    /// The class an element uses (its `class`, else the one in force).
    pub(crate) fn class_of(&self, e: &Element, in_force: ClassId) -> SourceResult<ClassId> {
        match e.attr("class") {
            None => Ok(in_force),
            Some(a) => self.values.classes.find(&a.value).ok_or_else(|| {
                self.error(
                    &a.loc,
                    "class",
                    format!("unknown default class name '{}'", a.value),
                )
            }),
        }
    }

    /// The class in force inside an element (its `childclass`, else `class`).
    pub(super) fn childclass(&self, e: &Element, class: ClassId) -> SourceResult<ClassId> {
        match e.attr("childclass") {
            None => Ok(class),
            Some(a) => self
                .values
                .classes
                .find(&a.value)
                .ok_or_else(|| self.error(&a.loc, "class", "unknown default childclass")),
        }
    }
}
