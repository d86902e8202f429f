//! What URDF's loaders read beside the kinematics, and what is not URDF proper: the
//! namespace prefixes declared on `<robot>`, `<transmission>` (kept verbatim; the joints it
//! drives get their actuator), and extension elements (`<gazebo>`, `<drake:...>`, ...) kept
//! verbatim in `urdf.*` extras so that the writer gives them back.

use super::{JointEntry, Reader};
use mbconv_ir::report::Category;
use mbconv_ir::{ActuatorKind, Extras, Value, ValueMap};
use mbconv_xml::{Node, children, element_value, elements, qualified_name};

/// The namespace prefixes declared on `<robot>` (`xmlns:gazebo`, `xmlns:drake`: prefix ->
/// URI) that extension elements use, kept so that the elements can be written back; `None`
/// when there are none.
pub(super) fn namespace_prefixes(robot: Node) -> Option<Value> {
    let mut prefixes = ValueMap::new();
    for ns in robot.namespaces() {
        if let Some(prefix) = ns.name().filter(|p| *p != "xml") {
            prefixes.insert(prefix, Value::String(ns.uri().to_owned()));
        }
    }
    (!prefixes.is_empty()).then_some(Value::Map(prefixes))
}

impl Reader<'_> {
    /// Keeps `element`, which is not URDF proper, verbatim in `extras` under
    /// `urdf.<qualified name>` (a list when met again), and notes it with `message`.
    pub(super) fn keep_extension(&mut self, extras: &mut Extras, element: Node, at: &str, message: String) {
        push_extra(
            &mut extras.0,
            &format!("urdf.{}", qualified_name(element)),
            element_value(element),
        );
        self.note("extension_kept", Category::Note, at, element, message);
    }

    /// The children of `<robot>` that are not URDF proper, kept in the model's extras.
    pub(super) fn robot_extensions(&mut self, robot: Node, extras: &mut Extras) {
        for element in elements(robot) {
            let tag = element.tag_name().name();
            // A xacro macro call left in the file is skipped with its own warning.
            if !matches!(tag, "link" | "joint" | "material" | "transmission")
                && !crate::raw::is_xacro_element(element)
            {
                self.keep_extension(
                    extras,
                    element,
                    "model",
                    format!(
                        "<{}> is not URDF proper: kept verbatim for URDF",
                        qualified_name(element)
                    ),
                );
            }
        }
    }

    /// `<transmission>`: kept verbatim (model extras `urdf.transmission`, a list), and the
    /// joints it drives get the actuator its hardware interface names.
    pub(super) fn transmissions(&mut self, robot: Node, joints: &mut [JointEntry]) -> Option<Value> {
        let mut kept = Vec::new();
        for transmission in children(robot, "transmission") {
            kept.push(element_value(transmission));
            for joint_node in children(transmission, "joint") {
                let Some(name) = joint_node.attribute("name") else {
                    continue;
                };
                let interface = children(joint_node, "hardwareInterface")
                    .chain(children(transmission, "actuator").flat_map(|a| children(a, "hardwareInterface")))
                    .map(mbconv_xml::text)
                    .next()
                    .unwrap_or_default();
                let kind = if interface.contains("Effort") {
                    Some(ActuatorKind::Force)
                } else if interface.contains("Velocity") {
                    Some(ActuatorKind::Velocity)
                } else if interface.contains("Position") {
                    Some(ActuatorKind::Position)
                } else {
                    None
                };
                match joints.iter_mut().find(|j| j.joint.name == name) {
                    Some(entry) => {
                        if kind.is_some() {
                            entry.joint.actuator = kind;
                        }
                    }
                    None => self.warn(
                        "transmission_joint",
                        Category::Ignored,
                        "model",
                        joint_node,
                        format!("a <transmission> names the joint {name:?}, which is no joint of this file"),
                    ),
                }
            }
        }
        (!kept.is_empty()).then_some(Value::List(kept))
    }
}

/// Adds an extras entry; a key met again becomes a list, in file order.
fn push_extra(map: &mut ValueMap, key: &str, value: Value) {
    match map.0.iter_mut().find(|(k, _)| k == key) {
        None => map.insert(key, value),
        Some((_, Value::List(items))) => items.push(value),
        Some((_, slot)) => {
            let first = std::mem::take(slot);
            *slot = Value::List(vec![first, value]);
        }
    }
}
