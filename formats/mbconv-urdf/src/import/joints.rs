//! `<joint>`: type, links, origin and axis, `<limit>`, `<dynamics>`, and the elements that do
//! not move the model (`<mimic>`, `<calibration>`, `<safety_controller>`, extensions), kept
//! verbatim; then the IR names of the joints.

use super::{JointEntry, Reader};
use crate::raw::URDF;
use crate::spec;
use mbconv_ir::format::Source;
use mbconv_ir::format::kit::SourceResult;
use mbconv_ir::report::{Category, path};
use mbconv_ir::{Body, BodyRef, DofProperties, Extras, Joint, JointKind, Limits, Value};
use mbconv_xml::{Node, child, children, element_value, elements, qualified_name, span_of_attribute};
use nalgebra::Vector3;
use std::collections::{BTreeMap, BTreeSet};

impl Reader<'_> {
    /// The joints in file order, each name once.
    pub(super) fn joints<'a, 'input>(
        &mut self,
        robot: Node<'a, 'input>,
    ) -> SourceResult<Vec<JointEntry<'a, 'input>>> {
        let src = self.source;
        let mut joints: Vec<JointEntry> = Vec::new();
        let mut joint_names = BTreeSet::new();
        self.joint_names = children(robot, "joint")
            .filter_map(|j| j.attribute("name"))
            .map(str::to_owned)
            .collect();
        for node in children(robot, "joint") {
            let entry = self.joint(node)?;
            if !joint_names.insert(entry.joint.name.clone()) {
                return Err(URDF.error(
                    src,
                    "duplicate_joint",
                    Some(span_of_attribute(src, node, "name")),
                    format!("joint {:?} is not unique", entry.joint.name),
                ));
            }
            joints.push(entry);
        }
        Ok(joints)
    }

    /// The joints with their links as IR bodies, renamed where a name is taken.
    pub(super) fn ir_joints(
        &mut self,
        joints: &[JointEntry],
        link_index: &BTreeMap<String, usize>,
        bodies: &[Body],
    ) -> Vec<Joint> {
        let ir_body = |name: &str| -> BodyRef {
            match link_index.get(name) {
                Some(&i) => BodyRef::body(bodies[i].name.clone()),
                None => BodyRef::World,
            }
        };
        let mut ir_joints = Vec::with_capacity(joints.len());
        for entry in joints {
            let mut joint = entry.joint.clone();
            joint.parent = ir_body(&entry.parent);
            joint.child = ir_body(&entry.child);
            self.name_item("joints", "joint", &mut joint.name, &mut joint.extras, entry.node);
            ir_joints.push(joint);
        }
        ir_joints
    }

    /// One `<joint>` as read, its links still named as the file names them.
    fn joint<'a, 'input>(&mut self, node: Node<'a, 'input>) -> SourceResult<JointEntry<'a, 'input>> {
        let src = self.source;
        let name = URDF.required_attribute(src, node, "name")?;
        let at = path::item("joints", name);
        let type_name = URDF.required_attribute(src, node, "type")?;
        let parent = link_of(src, node, name, "parent")?;
        let child_link = link_of(src, node, name, "child")?;
        let mut spelling = Extras::default();
        let origin = self.origin(node, &at, &mut spelling, "origin.")?;
        let (kind, axis_value) = self.kind(node, name, type_name, &at)?;
        let mut joint = Joint::new(name, kind, BodyRef::World, BodyRef::World);
        joint.parent_frame = origin;
        joint.extras = spelling;
        if type_name == "planar" {
            joint.extras.insert(
                spec::AXIS,
                Value::List(axis_value.iter().map(|v| Value::Float(*v)).collect()),
            );
        }
        let one_dof = matches!(type_name, "revolute" | "continuous" | "prismatic");
        let mut dof = DofProperties::default();
        self.limits(node, type_name, &at, &mut dof)?;
        self.dynamics(node, name, type_name, &at, &mut dof)?;
        if one_dof && dof != DofProperties::default() {
            joint.dofs = vec![dof];
        }
        for element in elements(node) {
            self.joint_element(element, name, &at, &mut joint.extras)?;
        }
        Ok(JointEntry {
            node,
            joint,
            parent,
            child: child_link,
        })
    }

    /// The joint's kind from its `type` and `<axis>`, and the axis as read ((1, 0, 0) for a
    /// joint without one).
    fn kind(
        &mut self,
        node: Node,
        name: &str,
        type_name: &str,
        at: &str,
    ) -> SourceResult<(JointKind, Vector3<f64>)> {
        let src = self.source;
        let axis = match type_name {
            "revolute" | "continuous" | "prismatic" | "planar" => Some(self.axis(node, at)?),
            "fixed" | "floating" => None,
            other => {
                return Err(URDF.error(
                    src,
                    "joint_type",
                    Some(span_of_attribute(src, node, "type")),
                    format!(
                        "joint {name:?} has the unknown type {other:?}: URDF has revolute, continuous, prismatic, fixed, floating and planar"
                    ),
                ));
            }
        };
        let axis_value = axis.unwrap_or_else(Vector3::x);
        let kind = match type_name {
            "revolute" | "continuous" => JointKind::Revolute { axis: axis_value },
            "prismatic" => JointKind::Prismatic { axis: axis_value },
            "planar" => match spec::plane_axes(&axis_value) {
                Some((axis1, axis2)) => JointKind::Planar { axis1, axis2 },
                None => {
                    return Err(URDF.error(
                        src,
                        "axis",
                        Some(child(node, "axis").map_or_else(|| self.span(node), |a| self.span(a))),
                        format!("planar joint {name:?} has a zero or non-finite normal axis"),
                    ));
                }
            },
            "fixed" => JointKind::Fixed,
            _ => JointKind::Free,
        };
        Ok((kind, axis_value))
    }

    /// `<dynamics damping friction>`: the degree of freedom's damping and friction; on a joint
    /// without one degree of freedom, ignored as the loaders ignore it.
    fn dynamics(
        &mut self,
        node: Node,
        name: &str,
        type_name: &str,
        at: &str,
        dof: &mut DofProperties,
    ) -> SourceResult<()> {
        let src = self.source;
        let one_dof = matches!(type_name, "revolute" | "continuous" | "prismatic");
        if let Some(dynamics) = child(node, "dynamics") {
            let damping = URDF.attribute_scalar(src, dynamics, "damping")?.unwrap_or(0.0);
            let friction = URDF.attribute_scalar(src, dynamics, "friction")?.unwrap_or(0.0);
            if one_dof {
                dof.damping = damping;
                dof.friction = friction;
            } else if damping != 0.0 || friction != 0.0 {
                self.note(
                    "dynamics_ignored",
                    Category::Ignored,
                    at,
                    dynamics,
                    format!(
                        "<dynamics> of the {type_name} joint {name:?} is ignored, as the loaders ignore it"
                    ),
                );
            }
        }
        Ok(())
    }

    /// A child of `<joint>` other than those read above: `<mimic>`, `<calibration>` and
    /// `<safety_controller>` are checked and kept verbatim, anything else is kept as an
    /// extension.
    fn joint_element(
        &mut self,
        element: Node,
        name: &str,
        at: &str,
        extras: &mut Extras,
    ) -> SourceResult<()> {
        let src = self.source;
        let tag = element.tag_name().name();
        match tag {
            "origin" | "parent" | "child" | "axis" | "limit" | "dynamics" => {}
            "mimic" => {
                let target = URDF.required_attribute(src, element, "joint")?;
                URDF.attribute_scalar(src, element, "multiplier")?;
                URDF.attribute_scalar(src, element, "offset")?;
                if !self.joint_names.contains(target) {
                    // urdfdom does not check the name; Pinocchio and Drake load the file
                    // without the coupling.
                    self.warn(
                        "mimic_unknown",
                        Category::Dropped,
                        at,
                        element,
                        format!(
                            "joint {name:?} mimics {target:?}, which is no joint of this file: the mimic is dropped, as Pinocchio and Drake load the file"
                        ),
                    );
                    return Ok(());
                }
                extras.insert("urdf.mimic", element_value(element));
                self.warn(
                    "mimic",
                    Category::Ignored,
                    at,
                    element,
                    format!(
                        "joint {name:?} mimics joint {:?}: the IR has no joint coupling, so mbconv's solver leaves it independent (Pinocchio with mimic=True and MuJoCo couple it); kept for URDF",
                        element.attribute("joint").unwrap_or_default()
                    ),
                );
            }
            "calibration" | "safety_controller" => {
                for key in [
                    "rising",
                    "falling",
                    "soft_lower_limit",
                    "soft_upper_limit",
                    "k_position",
                    "k_velocity",
                ] {
                    URDF.attribute_scalar(src, element, key)?;
                }
                if tag == "safety_controller" {
                    URDF.required_attribute(src, element, "k_velocity")?;
                }
                extras.insert(format!("urdf.{tag}"), element_value(element));
                self.note(
                    "kept",
                    Category::Note,
                    at,
                    element,
                    format!("<{tag}> does not move the model: kept verbatim for URDF"),
                );
            }
            _ if crate::raw::is_xacro_element(element) => {}
            _ => self.keep_extension(
                extras,
                element,
                at,
                format!(
                    "<{}> of joint {name:?} is not URDF proper: kept verbatim for URDF",
                    qualified_name(element)
                ),
            ),
        }
        Ok(())
    }

    /// `<axis xyz>`: (1, 0, 0) when the element is absent, as urdfdom defaults it.
    fn axis(&mut self, node: Node, at: &str) -> SourceResult<Vector3<f64>> {
        let src = self.source;
        match child(node, "axis") {
            None => {
                self.session.defaulted(
                    &path::field(at, "kind"),
                    Some(self.span(node)),
                    "no <axis>: (1, 0, 0), urdfdom's default",
                );
                Ok(Vector3::x())
            }
            Some(axis) => {
                let xyz = URDF.attribute_fixed::<3>(src, axis, "xyz")?.ok_or_else(|| {
                    URDF.error(
                        src,
                        "attribute",
                        Some(self.span(axis)),
                        "<axis> needs the attribute `xyz`",
                    )
                })?;
                Ok(Vector3::from(xyz))
            }
        }
    }

    /// `<limit lower upper effort velocity>`. urdfdom requires the element on revolute and
    /// prismatic joints and `effort` and `velocity` on it; Drake reads a missing one as no
    /// limit. mbconv follows Drake with a warning, so such files are read.
    fn limits(&mut self, node: Node, type_name: &str, at: &str, dof: &mut DofProperties) -> SourceResult<()> {
        let src = self.source;
        let limited = matches!(type_name, "revolute" | "prismatic");
        let Some(limit) = child(node, "limit") else {
            if limited {
                self.warn(
                    "limit_missing",
                    Category::Defaulted,
                    at,
                    node,
                    format!(
                        "the {type_name} joint has no <limit>: read without limits, as Drake reads it; urdfdom (Pinocchio, DART) refuses the file"
                    ),
                );
            }
            return Ok(());
        };
        let lower = URDF.attribute_scalar(src, limit, "lower")?;
        let upper = URDF.attribute_scalar(src, limit, "upper")?;
        let effort = URDF.attribute_scalar(src, limit, "effort")?;
        let velocity = URDF.attribute_scalar(src, limit, "velocity")?;
        if !matches!(type_name, "revolute" | "prismatic" | "continuous") {
            self.note(
                "limit_ignored",
                Category::Ignored,
                at,
                limit,
                format!("<limit> of a {type_name} joint is ignored, as the loaders ignore it"),
            );
            return Ok(());
        }
        if limited {
            if lower.is_none() || upper.is_none() {
                self.session.defaulted(
                    at,
                    Some(self.span(limit)),
                    "a missing `lower` or `upper` is 0, as urdfdom, Pinocchio, DART and Drake read it",
                );
            }
            let (lower, upper) = (lower.unwrap_or(0.0), upper.unwrap_or(0.0));
            if lower > upper {
                self.warn(
                    "limits_inverted",
                    Category::Ignored,
                    at,
                    limit,
                    format!(
                        "`lower` {lower} is above `upper` {upper}: read as no position limit, as Pinocchio and \
                         MuJoCo simulate it (pybullet writes it for \"no limit\"); Drake refuses the file"
                    ),
                );
            } else {
                dof.position_limits = Limits::new(lower, upper);
            }
        } else if lower.is_some() || upper.is_some() {
            self.note(
                "continuous_limits",
                Category::Ignored,
                at,
                limit,
                "`lower` and `upper` of a continuous joint are ignored, as every loader ignores them",
            );
        }
        for (value, key) in [(effort, "effort"), (velocity, "velocity")] {
            match value {
                Some(v) => {
                    let limits = Limits::new(-v, v);
                    if key == "effort" {
                        dof.effort_limits = limits;
                    } else {
                        dof.velocity_limits = limits;
                    }
                }
                None => self.warn(
                    "limit_incomplete",
                    Category::Defaulted,
                    at,
                    limit,
                    format!(
                        "<limit> has no `{key}`: no {key} limit, as Drake reads it; urdfdom (Pinocchio, DART) refuses the file"
                    ),
                ),
            }
        }
        Ok(())
    }
}

/// The link a joint's `<parent>` or `<child>` (`tag`) names.
fn link_of(src: &Source, node: Node, name: &str, tag: &str) -> SourceResult<String> {
    let element = URDF.required_child(src, node, tag)?;
    let link = URDF.required_attribute(src, element, "link")?;
    if link.is_empty() {
        return Err(URDF.error(
            src,
            "attribute",
            Some(span_of_attribute(src, element, "link")),
            format!("joint {name:?}: the {tag} link name is empty"),
        ));
    }
    Ok(link.to_owned())
}
