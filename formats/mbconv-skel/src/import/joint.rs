//! Joints: type and type parameters, frames, initial coordinates, per-DOF properties and the
//! actuator, in DART's coordinate order (the skeleton step converts free joints to the IR's).

use super::{Importer, keep_aid};
use crate::raw::{self, child, children, elements, span_of_attribute};
use crate::spec::plane::orthonormal_plane;
use crate::spec::verbatim::element_value;
use crate::spec::{ACTUATORS, EULER_ORDERS, PLANE_AXES_AID, TRANSFORMATION_AID, plain_dof};
use mbconv_ir::format::kit::SourceResult;
use mbconv_ir::report::path;
use mbconv_ir::{BodyRef, Category, DofProperties, EulerOrder, Joint, JointKind, Limits, Severity};
use nalgebra::Vector3;
use roxmltree::Node;

/// A joint as read, before the skeleton is assembled.
pub(super) struct JointEntry<'a, 'i> {
    /// The `<joint>` element.
    pub(super) node: Node<'a, 'i>,
    /// Its SKEL name.
    pub(super) original: String,
    /// Kind, child-side frame, actuator and extras; bodies and coordinates come later.
    pub(super) joint: Joint,
    /// The `<parent>` body (`None`: the world).
    pub(super) parent: Option<String>,
    /// The `<child>` body.
    pub(super) child: String,
    /// Coordinates and DOF properties in DART's order.
    pub(super) coordinates: DartCoordinates,
}

/// A joint's initial coordinates and DOF properties in DART's order and convention.
pub(super) struct DartCoordinates {
    /// `init_pos`.
    pub(super) q: Vec<f64>,
    /// `init_vel`.
    pub(super) v: Vec<f64>,
    /// True when the file gave an initial velocity.
    pub(super) v_given: bool,
    /// Per-DOF limits and dynamics.
    pub(super) dofs: Vec<DofProperties>,
}

/// The joint type read from `type` and its parameters.
struct JointType {
    kind: JointKind,
    /// The `<axis*>` elements that carry the limits and dynamics of each DOF, in DOF order.
    dof_axes: &'static [&'static str],
    /// An arbitrary plane's translation axes as written.
    plane_axes: Option<[f64; 6]>,
}

impl JointType {
    fn simple(kind: JointKind, dof_axes: &'static [&'static str]) -> Self {
        Self {
            kind,
            dof_axes,
            plane_axes: None,
        }
    }
}

const THREE_AXES: &[&str] = &["axis", "axis2", "axis3"];

impl Importer<'_> {
    /// Reads a `<joint>`.
    pub(super) fn joint<'a, 'i>(&mut self, node: Node<'a, 'i>) -> SourceResult<JointEntry<'a, 'i>> {
        let src = self.source();
        let type_name = raw::required_attribute(src, node, "type")?;
        let original = raw::required_attribute(src, node, "name")?.to_owned();
        let parent_name = raw::text(raw::required_child(src, node, "parent")?);
        let child_name = raw::text(raw::required_child(src, node, "child")?);
        let at = path::item("joints", &original);
        let joint_type = self.joint_type(node, type_name, &original, &at)?;
        let n = joint_type.kind.nq();
        let mut joint = Joint::new(&original, joint_type.kind, BodyRef::World, BodyRef::World);
        if let Some(axes) = joint_type.plane_axes {
            keep_aid(&mut joint.extras, PLANE_AXES_AID, &axes);
        }
        if let Some(t) = self.transformation(node)? {
            joint.child_frame = t.pose;
            keep_aid(&mut joint.extras, TRANSFORMATION_AID, &t.numbers);
        }
        self.actuator(node, &mut joint, &at);
        let mut dofs = vec![plain_dof(); n];
        for (i, tag) in joint_type.dof_axes.iter().enumerate() {
            if let Some(axis) = child(node, tag) {
                self.axis_properties(axis, &mut dofs[i], &at)?;
            }
        }
        let mut coordinates = self.initial_coordinates(node, type_name, n)?;
        coordinates.dofs = dofs;
        self.dof_elements(node, &mut coordinates, &at)?;
        self.unread_joint_elements(node, &mut joint, type_name, joint_type.dof_axes, &at);
        Ok(JointEntry {
            node,
            original,
            joint,
            parent: (parent_name != "world").then_some(parent_name),
            child: child_name,
            coordinates,
        })
    }

    /// The `<axis*><xyz>` of a joint, or DART's default with a finding.
    fn axis_xyz(
        &mut self,
        node: Node,
        tag: &str,
        default: Vector3<f64>,
        joint_name: &str,
        at: &str,
    ) -> SourceResult<Vector3<f64>> {
        match child(node, tag).and_then(|a| child(a, "xyz")) {
            Some(xyz) => Ok(Vector3::from(raw::fixed::<3>(self.source(), xyz)?)),
            None => {
                self.note(
                    "skel.default_axis",
                    Severity::Warning,
                    Category::Defaulted,
                    at,
                    Some(node),
                    format!(
                        "joint {joint_name:?} has no <{tag}><xyz>: DART uses {} {} {}",
                        default.x, default.y, default.z
                    ),
                );
                Ok(default)
            }
        }
    }

    /// The joint kind of the `type` attribute with its axes, pitch, order or plane.
    fn joint_type(&mut self, node: Node, type_name: &str, name: &str, at: &str) -> SourceResult<JointType> {
        let src = self.source();
        Ok(match type_name {
            "weld" => JointType::simple(JointKind::Fixed, &[]),
            "revolute" => JointType::simple(
                JointKind::Revolute {
                    axis: self.axis_xyz(node, "axis", Vector3::z(), name, at)?,
                },
                &["axis"],
            ),
            "prismatic" => JointType::simple(
                JointKind::Prismatic {
                    axis: self.axis_xyz(node, "axis", Vector3::z(), name, at)?,
                },
                &["axis"],
            ),
            "screw" => {
                let axis = self.axis_xyz(node, "axis", Vector3::z(), name, at)?;
                let pitch = match child(node, "axis").and_then(|a| child(a, "pitch")) {
                    Some(p) => raw::scalar(src, p)?,
                    None => {
                        self.note(
                            "skel.screw_pitch",
                            Severity::Info,
                            Category::Defaulted,
                            at,
                            Some(node),
                            "screw joint without <axis><pitch>: 0.1 m per turn assumed (DART never builds screw \
                             joints, so its default cannot be checked)",
                        );
                        0.1
                    }
                };
                self.note(
                    "skel.screw_not_created",
                    Severity::Warning,
                    Category::Note,
                    at,
                    Some(node),
                    "DART 6.20 parses screw joints but never creates them, and stops building the skeleton there; \
                     mbconv keeps the screw joint",
                );
                JointType::simple(JointKind::Screw { axis, pitch }, &["axis"])
            }
            "universal" => JointType::simple(
                JointKind::Universal {
                    axis1: self.axis_xyz(node, "axis", Vector3::x(), name, at)?,
                    axis2: self.axis_xyz(node, "axis2", Vector3::y(), name, at)?,
                },
                &["axis", "axis2"],
            ),
            "ball" => JointType::simple(JointKind::Spherical, &[]),
            "euler" => JointType::simple(
                JointKind::Euler {
                    order: self.euler_order(node, at)?,
                },
                THREE_AXES,
            ),
            "translational" => JointType::simple(JointKind::Translational, THREE_AXES),
            "planar" => self.planar(node, at)?,
            "free" => JointType::simple(JointKind::Free, &[]),
            "translational2d" => {
                return Err(self.session.error(
                    "skel.joint_type",
                    Some(span_of_attribute(src, node, "type")),
                    "translational2d joints are parsed by DART but never created (DART stops building the \
                     skeleton there), and the IR has no such joint",
                ));
            }
            other => {
                return Err(self.session.error(
                    "skel.joint_type",
                    Some(span_of_attribute(src, node, "type")),
                    format!(
                        "unknown joint type {other:?}; expected weld, revolute, prismatic, screw, universal, ball, \
                         euler, translational, planar or free"
                    ),
                ));
            }
        })
    }

    /// An euler joint's `<axis_order>` (xyz when absent).
    fn euler_order(&mut self, node: Node, at: &str) -> SourceResult<EulerOrder> {
        let Some(order) = child(node, "axis_order") else {
            self.note(
                "skel.axis_order",
                Severity::Warning,
                Category::Defaulted,
                at,
                Some(node),
                "euler joint without <axis_order>: xyz",
            );
            return Ok(EulerOrder::Xyz);
        };
        let text = raw::text(order);
        EULER_ORDERS
            .iter()
            .find(|(name, _)| *name == text)
            .map(|(_, o)| *o)
            .ok_or_else(|| {
                self.error(
                    "skel.axis_order",
                    order,
                    format!("euler <axis_order> must be xyz or zyx, found {text:?}"),
                )
            })
    }

    /// The `actuator` attribute; an unknown one keeps DART's default with a finding.
    fn actuator(&mut self, node: Node, joint: &mut Joint, at: &str) {
        let Some(actuator) = node.attribute("actuator") else {
            return;
        };
        joint.actuator = ACTUATORS
            .iter()
            .find(|(name, _)| *name == actuator)
            .map(|(_, k)| *k);
        if joint.actuator.is_none() {
            let span = span_of_attribute(self.source(), node, "actuator");
            self.session.finding(
                "skel.actuator",
                Severity::Warning,
                Category::Ignored,
                at,
                Some(span),
                format!(
                    "unknown actuator type {actuator:?}: DART keeps its default (force); expected force, \
                     passive, servo, acceleration, velocity or locked"
                ),
            );
        }
    }

    /// `<init_pos>` and `<init_vel>` (zero when absent), checked against the DOF count.
    fn initial_coordinates(
        &mut self,
        node: Node,
        type_name: &str,
        n: usize,
    ) -> SourceResult<DartCoordinates> {
        let mut coordinates = DartCoordinates {
            q: vec![0.0; n],
            v: vec![0.0; n],
            v_given: false,
            dofs: Vec::new(),
        };
        for tag in ["init_pos", "init_vel"] {
            let Some(e) = child(node, tag) else { continue };
            let values = raw::numbers(self.source(), e)?;
            if values.len() != n {
                return Err(self.error(
                    "skel.count",
                    e,
                    format!(
                        "<{tag}> of a {type_name} joint needs {n} number{}, found {}",
                        if n == 1 { "" } else { "s" },
                        values.len()
                    ),
                ));
            }
            if tag == "init_pos" {
                coordinates.q = values;
            } else {
                coordinates.v = values;
                coordinates.v_given = true;
            }
        }
        Ok(coordinates)
    }

    /// The `<dof>` elements: names, limits (with `initial` values) and dynamics.
    fn dof_elements(&mut self, node: Node, coordinates: &mut DartCoordinates, at: &str) -> SourceResult<()> {
        let src = self.source();
        let n = coordinates.dofs.len();
        for dof in children(node, "dof") {
            let index = self.dof_index(dof, n)?;
            let properties = &mut coordinates.dofs[index];
            if let Some(name) = dof.attribute("name") {
                properties.name = Some(name.to_owned());
            }
            for e in elements(dof) {
                let tag = e.tag_name().name();
                let limits = match tag {
                    "position" => Some(&mut properties.position_limits),
                    "velocity" => Some(&mut properties.velocity_limits),
                    "acceleration" => Some(&mut properties.acceleration_limits),
                    "force" => Some(&mut properties.effort_limits),
                    _ => None,
                };
                if let Some(limits) = limits {
                    for (attr, side, upper) in [
                        ("lower", &mut limits.lower, false),
                        ("upper", &mut limits.upper, true),
                    ] {
                        if let Some(bound) = raw::SKEL.attribute_bound(src, e, attr, upper)? {
                            *side = bound;
                        }
                    }
                    if let Some(initial) = raw::SKEL.attribute_scalar(src, e, "initial")? {
                        match tag {
                            "position" => coordinates.q[index] = initial,
                            "velocity" => {
                                coordinates.v[index] = initial;
                                coordinates.v_given = true;
                            }
                            _ => {}
                        }
                    }
                    continue;
                }
                let value = raw::scalar(src, e)?;
                match tag {
                    "damping" => properties.damping = value,
                    "friction" => properties.friction = value,
                    "spring_rest_position" => properties.spring_rest_position = value,
                    "spring_stiffness" => properties.spring_stiffness = value,
                    other => {
                        self.note(
                            "skel.ignored",
                            Severity::Warning,
                            Category::Ignored,
                            at,
                            Some(e),
                            format!("<dof><{other}> is not read by DART"),
                        );
                    }
                }
            }
        }
        Ok(())
    }

    /// The DOF a `<dof>` element is about (`local_index`, optional for one-DOF joints).
    fn dof_index(&self, dof: Node, n: usize) -> SourceResult<usize> {
        match dof.attribute("local_index") {
            Some(text) => text
                .trim()
                .parse::<usize>()
                .ok()
                .filter(|i| *i < n)
                .ok_or_else(|| {
                    self.session.error(
                        "skel.dof_index",
                        Some(span_of_attribute(self.source(), dof, "local_index")),
                        format!(
                            "<dof local_index> must be an integer from 0 to {}, found {text:?}",
                            n.saturating_sub(1)
                        ),
                    )
                }),
            None if n == 1 => Ok(0),
            None => Err(self.error(
                "skel.dof_index",
                dof,
                format!("<dof> of a joint with {n} DOFs needs a local_index"),
            )),
        }
    }

    /// Elements DART does not read for this joint type, kept verbatim with a finding.
    fn unread_joint_elements(
        &mut self,
        node: Node,
        joint: &mut Joint,
        type_name: &str,
        dof_axes: &[&str],
        at: &str,
    ) {
        for element in elements(node) {
            let tag = element.tag_name().name();
            let used = matches!(
                tag,
                "parent" | "child" | "transformation" | "init_pos" | "init_vel" | "dof"
            ) || dof_axes.contains(&tag)
                || (tag == "axis"
                    && matches!(
                        joint.kind,
                        JointKind::Revolute { .. } | JointKind::Prismatic { .. } | JointKind::Screw { .. }
                    ))
                || (tag == "axis_order" && matches!(joint.kind, JointKind::Euler { .. }))
                || (tag == "plane" && matches!(joint.kind, JointKind::Planar { .. }));
            if !used {
                joint.extras.insert(format!("skel.{tag}"), element_value(element));
                self.note(
                    "skel.ignored",
                    Severity::Info,
                    Category::Ignored,
                    at,
                    Some(element),
                    format!("<{tag}> is not read by DART for a {type_name} joint; kept verbatim"),
                );
            }
        }
    }

    /// A planar joint: its plane, and for an arbitrary plane the axes as written.
    fn planar(&mut self, node: Node, at: &str) -> SourceResult<JointType> {
        let src = self.source();
        let plane = child(node, "plane");
        let planar = |axis1, axis2| JointType::simple(JointKind::Planar { axis1, axis2 }, THREE_AXES);
        Ok(match plane.and_then(|p| p.attribute("type")) {
            Some("xy") => planar(Vector3::x(), Vector3::y()),
            Some("yz") => planar(Vector3::y(), Vector3::z()),
            Some("zx") => planar(Vector3::z(), Vector3::x()),
            Some("arbitrary") => {
                let plane = plane.ok_or_else(|| self.error("skel.plane", node, "missing <plane>"))?;
                let axis = |tag: &str| -> SourceResult<Vector3<f64>> {
                    let t = raw::required_child(src, plane, tag)?;
                    Ok(Vector3::from(raw::fixed::<3>(
                        src,
                        raw::required_child(src, t, "xyz")?,
                    )?))
                };
                let (a1, a2) = (axis("translation_axis1")?, axis("translation_axis2")?);
                let Some((axis1, axis2)) = orthonormal_plane(&a1, &a2) else {
                    return Err(self.error(
                        "skel.plane",
                        plane,
                        "the translation axes of an arbitrary plane must be non-zero and not parallel",
                    ));
                };
                JointType {
                    plane_axes: Some([a1.x, a1.y, a1.z, a2.x, a2.y, a2.z]),
                    ..planar(axis1, axis2)
                }
            }
            other => {
                self.note(
                    "skel.plane",
                    Severity::Warning,
                    Category::Defaulted,
                    at,
                    Some(plane.unwrap_or(node)),
                    format!("planar joint plane type {other:?} is not xy, yz, zx or arbitrary: DART uses xy"),
                );
                planar(Vector3::x(), Vector3::y())
            }
        })
    }

    /// `<axis><limit>` and `<axis><dynamics>` (and the deprecated `<axis><damping>`).
    fn axis_properties(&mut self, axis: Node, dof: &mut DofProperties, at: &str) -> SourceResult<()> {
        let src = self.source();
        if let Some(limit) = child(axis, "limit") {
            dof.position_limits = Limits {
                lower: raw::child_bound(src, limit, "lower", false)?.flatten(),
                upper: raw::child_bound(src, limit, "upper", true)?.flatten(),
            };
        }
        if let Some(dynamics) = child(axis, "dynamics") {
            for (tag, slot) in [
                ("damping", &mut dof.damping),
                ("friction", &mut dof.friction),
                ("spring_rest_position", &mut dof.spring_rest_position),
                ("spring_stiffness", &mut dof.spring_stiffness),
            ] {
                if let Some(v) = raw::child_scalar(src, dynamics, tag)? {
                    *slot = v;
                }
            }
        }
        if let Some(damping) = child(axis, "damping") {
            dof.damping = raw::scalar(src, damping)?;
            self.note(
                "skel.legacy_damping",
                Severity::Info,
                Category::Note,
                at,
                Some(damping),
                "<axis><damping> is deprecated (DART reads it with a warning); use <axis><dynamics><damping>",
            );
        }
        Ok(())
    }
}
