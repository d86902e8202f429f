//! The assembly tree: which body, joint and restraint sits in which (sub)assembly, the IR
//! names of bodies, and how a name or a `:` path in a joint finds its body.

use super::fields::Reader;
use crate::raw::Node;
use crate::spec::{FIXED, ORIGIN, PATH_SEPARATOR};
use mbconv_ir::BodyRef;
use mbconv_ir::format::kit::SourceResult;
use std::collections::BTreeMap;

/// One assembly: its `:` path (empty for the document root) and where it sits.
pub(crate) struct Assembly<'d> {
    pub path: String,
    pub parent: Option<usize>,
    pub node: &'d Node,
    pub enabled: bool,
}

/// An item (body, joint or restraint) and the assembly it is listed in.
pub(crate) struct Item<'d> {
    pub assembly: usize,
    pub node: &'d Node,
}

/// Everything the document lists, flattened.
pub(crate) struct Layout<'d> {
    pub assemblies: Vec<Assembly<'d>>,
    pub bodies: Vec<Item<'d>>,
    pub joints: Vec<Item<'d>>,
    pub restraints: Vec<Item<'d>>,
    /// Full `:` path of each body -> its IR name.
    pub body_names: BTreeMap<String, String>,
}

impl<'d> Layout<'d> {
    /// Walks the root and its `assemblies`, depth first in file order.
    pub fn collect(reader: &Reader, root: &'d Node) -> SourceResult<Self> {
        let mut layout = Layout {
            assemblies: Vec::new(),
            bodies: Vec::new(),
            joints: Vec::new(),
            restraints: Vec::new(),
            body_names: BTreeMap::new(),
        };
        layout.walk(reader, root, None, String::new(), true)?;
        Ok(layout)
    }

    fn walk(
        &mut self,
        reader: &Reader,
        node: &'d Node,
        parent: Option<usize>,
        path: String,
        enabled: bool,
    ) -> SourceResult<()> {
        let index = self.assemblies.len();
        self.assemblies.push(Assembly {
            path: path.clone(),
            parent,
            node,
            enabled,
        });
        for (key, list) in [("bodies", 0), ("joints", 1), ("restraints", 2)] {
            for item in reader.list(node.get(key), key)? {
                let item = Item {
                    assembly: index,
                    node: item,
                };
                match list {
                    0 => self.bodies.push(item),
                    1 => self.joints.push(item),
                    _ => self.restraints.push(item),
                }
            }
        }
        for child in reader.list(node.get("assemblies"), "assemblies")? {
            let name_node = child
                .get("name")
                .ok_or_else(|| reader.error(child, "missing", "an assembly needs a `name`"))?;
            let name = check_name(reader, name_node, "assembly")?;
            let active = match child.get("active") {
                Some(a) => reader.bool(a, "active")?,
                None => true,
            };
            let child_path = if path.is_empty() {
                name.to_owned()
            } else {
                format!("{path}{PATH_SEPARATOR}{name}")
            };
            if self.assemblies.iter().any(|a| a.path == child_path) {
                return Err(reader.error(
                    name_node,
                    "duplicate",
                    format!("a second assembly {child_path:?}"),
                ));
            }
            self.walk(reader, child, Some(index), child_path, active)?;
        }
        Ok(())
    }

    /// The full `:` path of a body listed in `assembly`.
    pub fn body_path(&self, assembly: usize, name: &str) -> String {
        let prefix = &self.assemblies[assembly].path;
        if prefix.is_empty() {
            name.to_owned()
        } else {
            format!("{prefix}{PATH_SEPARATOR}{name}")
        }
    }

    /// Finds the body a joint in `assembly` names: `fixed` is the world; a `:` path is
    /// absolute from the root; a plain name is searched in the local assembly first, then in
    /// each enclosing assembly outward, and last in the whole model when exactly one body has
    /// that name.
    pub fn resolve(&self, assembly: usize, reference: &str) -> Option<BodyRef> {
        if reference == FIXED {
            return Some(BodyRef::World);
        }
        if reference.contains(PATH_SEPARATOR) {
            return self.body_names.get(reference).map(BodyRef::body);
        }
        let mut at = Some(assembly);
        while let Some(a) = at {
            if let Some(name) = self.body_names.get(&self.body_path(a, reference)) {
                return Some(BodyRef::body(name));
            }
            at = self.assemblies[a].parent;
        }
        unique_by_last_segment(&self.body_names, reference).map(BodyRef::body)
    }
}

/// A name node checked against the reserved words and the path separator.
pub(crate) fn check_name<'n>(reader: &Reader, node: &'n Node, what: &str) -> SourceResult<&'n str> {
    let name = reader.string(node, "name")?;
    if name.is_empty() {
        return Err(reader.error(node, "name", format!("a {what} name must not be empty")));
    }
    if name.contains(PATH_SEPARATOR) {
        return Err(reader.error(
            node,
            "name",
            format!("{what} name {name:?} contains ':', which separates assembly paths"),
        ));
    }
    if name == ORIGIN || (name == FIXED && what == "body") {
        return Err(reader.error(
            node,
            "reserved",
            format!("{name:?} is reserved and cannot name a {what}"),
        ));
    }
    Ok(name)
}

/// The value under the one key whose last `:` segment is `name`, if exactly one has it.
pub(crate) fn unique_by_last_segment<V: Clone>(map: &BTreeMap<String, V>, name: &str) -> Option<V> {
    let mut found = map
        .iter()
        .filter(|(path, _)| path.rsplit(PATH_SEPARATOR).next() == Some(name))
        .map(|(_, v)| v);
    match (found.next(), found.next()) {
        (Some(v), None) => Some(v.clone()),
        _ => None,
    }
}
