//! Joints: type and type parameters, frames, initial coordinates, per-DOF properties and the
//! actuator, in DART's coordinate order (the caller converts free joints to the IR's).

use super::{Importer, JointEntry, PLANE_AXES, TRANSFORMATION, numbers_value, plain_dof};
use crate::raw::{self, child, children, elements, span_of_attribute};
use crate::verbatim::element_value;
use mbconv_ir::format::{Source, SourceError};
use mbconv_ir::report::path;
use mbconv_ir::{
    ActuatorKind, BodyRef, Category, DofProperties, EulerOrder, Finding, Joint, JointKind, Limits, Severity,
};
use nalgebra::Vector3;
use roxmltree::Node;

impl Importer<'_> {
    pub(super) fn joint<'a, 'i>(&mut self, node: Node<'a, 'i>) -> Result<JointEntry<'a, 'i>, SourceError> {
        let src = self.source;
        let type_name = raw::required_attribute(src, node, "type")?;
        let original = raw::required_attribute(src, node, "name")?.to_owned();
        let parent_name = raw::text(raw::required_child(src, node, "parent")?);
        let child_name = raw::text(raw::required_child(src, node, "child")?);
        let at = path::item("joints", &original);
        let axis_xyz =
            |this: &mut Self, tag: &str, default: Vector3<f64>| -> Result<Vector3<f64>, SourceError> {
                match child(node, tag).and_then(|a| child(a, "xyz")) {
                    Some(xyz) => Ok(Vector3::from(raw::fixed::<3>(src, xyz)?)),
                    None => {
                        this.note(
                            "skel.default_axis",
                            Severity::Warning,
                            Category::Defaulted,
                            at.clone(),
                            Some(node),
                            format!(
                                "joint {original:?} has no <{tag}><xyz>: DART uses {} {} {}",
                                default.x, default.y, default.z
                            ),
                        );
                        Ok(default)
                    }
                }
            };
        // Which <axis*> elements carry the limits and dynamics of which DOF.
        let mut plane_axes: Option<[f64; 6]> = None;
        let (kind, axis_tags): (JointKind, &[&str]) = match type_name {
            "weld" => (JointKind::Fixed, &[]),
            "revolute" => (
                JointKind::Revolute {
                    axis: axis_xyz(self, "axis", Vector3::z())?,
                },
                &["axis"],
            ),
            "prismatic" => (
                JointKind::Prismatic {
                    axis: axis_xyz(self, "axis", Vector3::z())?,
                },
                &["axis"],
            ),
            "screw" => {
                let axis = axis_xyz(self, "axis", Vector3::z())?;
                let pitch = match child(node, "axis").and_then(|a| child(a, "pitch")) {
                    Some(p) => raw::scalar(src, p)?,
                    None => {
                        note_default_pitch(self, &at, node);
                        0.1
                    }
                };
                self.note(
                    "skel.screw_not_created",
                    Severity::Warning,
                    Category::Note,
                    at.clone(),
                    Some(node),
                    "DART 6.20 parses screw joints but never creates them, and stops building the skeleton there; \
                     mbconv keeps the screw joint",
                );
                (JointKind::Screw { axis, pitch }, &["axis"])
            }
            "universal" => (
                JointKind::Universal {
                    axis1: axis_xyz(self, "axis", Vector3::x())?,
                    axis2: axis_xyz(self, "axis2", Vector3::y())?,
                },
                &["axis", "axis2"],
            ),
            "ball" => (JointKind::Spherical, &[]),
            "euler" => {
                let order = match child(node, "axis_order") {
                    None => {
                        self.note(
                            "skel.axis_order",
                            Severity::Warning,
                            Category::Defaulted,
                            at.clone(),
                            Some(node),
                            "euler joint without <axis_order>: xyz",
                        );
                        EulerOrder::Xyz
                    }
                    Some(o) => match raw::text(o).as_str() {
                        "xyz" => EulerOrder::Xyz,
                        "zyx" => EulerOrder::Zyx,
                        other => {
                            return Err(self.error(
                                "skel.axis_order",
                                o,
                                format!("euler <axis_order> must be xyz or zyx, found {other:?}"),
                            ));
                        }
                    },
                };
                (JointKind::Euler { order }, &["axis", "axis2", "axis3"])
            }
            "translational" => (JointKind::Translational, &["axis", "axis2", "axis3"]),
            "planar" => (
                self.planar(node, &at, &mut plane_axes)?,
                &["axis", "axis2", "axis3"],
            ),
            "free" => (JointKind::Free, &[]),
            "translational2d" => {
                return Err(self.source.error(
                    "skel.joint_type",
                    Some(span_of_attribute(src, node, "type")),
                    "translational2d joints are parsed by DART but never created (DART stops building the \
                     skeleton there), and the IR has no such joint",
                ));
            }
            other => {
                return Err(self.source.error(
                    "skel.joint_type",
                    Some(span_of_attribute(src, node, "type")),
                    format!(
                        "unknown joint type {other:?}; expected weld, revolute, prismatic, screw, universal, ball, \
                         euler, translational, planar or free"
                    ),
                ));
            }
        };
        let n = kind.nq();
        let mut joint = Joint::new(&original, kind, BodyRef::World, BodyRef::World);
        if let Some(axes) = plane_axes {
            joint.extras.insert(PLANE_AXES, numbers_value(&axes));
        }
        if let Some((numbers, pose)) = self.transformation(node)? {
            joint.child_frame = pose;
            joint.extras.insert(TRANSFORMATION, numbers_value(&numbers));
        }
        if let Some(actuator) = node.attribute("actuator") {
            joint.actuator = match actuator {
                "force" => Some(ActuatorKind::Force),
                "passive" => Some(ActuatorKind::Passive),
                "servo" => Some(ActuatorKind::Servo),
                "acceleration" => Some(ActuatorKind::Acceleration),
                "velocity" => Some(ActuatorKind::Velocity),
                "locked" => Some(ActuatorKind::Locked),
                other => {
                    self.report.push(
                        Finding::new(
                            "skel.actuator",
                            Severity::Warning,
                            Category::Ignored,
                            format!(
                                "unknown actuator type {other:?}: DART keeps its default (force); expected force, \
                                 passive, servo, acceleration, velocity or locked"
                            ),
                        )
                        .at(at.clone())
                        .with_span(Some(span_of_attribute(src, node, "actuator"))),
                    );
                    None
                }
            };
        }
        let mut dofs = vec![plain_dof(); n];
        for (i, tag) in axis_tags.iter().enumerate() {
            if let Some(axis) = child(node, tag) {
                self.axis_properties(axis, &mut dofs[i], &at)?;
            }
        }
        let mut dart_q = vec![0.0; n];
        let mut dart_v = vec![0.0; n];
        let mut v_given = false;
        for (tag, target) in [("init_pos", &mut dart_q), ("init_vel", &mut dart_v)] {
            if let Some(e) = child(node, tag) {
                let values = raw::numbers(src, e)?;
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
                *target = values;
                if tag == "init_vel" {
                    v_given = true;
                }
            }
        }
        for dof in children(node, "dof") {
            let index = match dof.attribute("local_index") {
                Some(text) => text
                    .trim()
                    .parse::<usize>()
                    .ok()
                    .filter(|i| *i < n)
                    .ok_or_else(|| {
                        self.source.error(
                            "skel.dof_index",
                            Some(span_of_attribute(src, dof, "local_index")),
                            format!(
                                "<dof local_index> must be an integer from 0 to {}, found {text:?}",
                                n.saturating_sub(1)
                            ),
                        )
                    })?,
                None if n == 1 => 0,
                None => {
                    return Err(self.error(
                        "skel.dof_index",
                        dof,
                        format!("<dof> of a joint with {n} DOFs needs a local_index"),
                    ));
                }
            };
            if let Some(name) = dof.attribute("name") {
                dofs[index].name = Some(name.to_owned());
            }
            for e in elements(dof) {
                let tag = e.tag_name().name();
                let limits = match tag {
                    "position" => Some(&mut dofs[index].position_limits),
                    "velocity" => Some(&mut dofs[index].velocity_limits),
                    "acceleration" => Some(&mut dofs[index].acceleration_limits),
                    "force" => Some(&mut dofs[index].effort_limits),
                    _ => None,
                };
                if let Some(limits) = limits {
                    for (attr, side) in [("lower", &mut limits.lower), ("upper", &mut limits.upper)] {
                        if let Some(value) = attribute_number(src, e, attr)? {
                            *side = finite(value);
                        }
                    }
                    if let Some(initial) = attribute_number(src, e, "initial")? {
                        match tag {
                            "position" => dart_q[index] = initial,
                            "velocity" => {
                                dart_v[index] = initial;
                                v_given = true;
                            }
                            _ => {}
                        }
                    }
                    continue;
                }
                let value = raw::scalar(src, e)?;
                match tag {
                    "damping" => dofs[index].damping = value,
                    "friction" => dofs[index].friction = value,
                    "spring_rest_position" => dofs[index].spring_rest_position = value,
                    "spring_stiffness" => dofs[index].spring_stiffness = value,
                    other => {
                        self.note(
                            "skel.ignored",
                            Severity::Warning,
                            Category::Ignored,
                            at.clone(),
                            Some(e),
                            format!("<dof><{other}> is not read by DART"),
                        );
                    }
                }
            }
        }
        for element in elements(node) {
            let tag = element.tag_name().name();
            let used = matches!(
                tag,
                "parent" | "child" | "transformation" | "init_pos" | "init_vel" | "dof"
            ) || axis_tags.contains(&tag)
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
                    at.clone(),
                    Some(element),
                    format!("<{tag}> is not read by DART for a {type_name} joint; kept verbatim"),
                );
            }
        }
        Ok(JointEntry {
            node,
            original,
            joint,
            parent: (parent_name != "world").then_some(parent_name),
            child: child_name,
            dart_q,
            dart_v,
            dart_dofs: dofs,
            v_given,
        })
    }

    /// The planar joint's plane; for an arbitrary plane the axes as written go to `raw_axes`.
    pub(super) fn planar(
        &mut self,
        node: Node,
        at: &str,
        raw_axes: &mut Option<[f64; 6]>,
    ) -> Result<JointKind, SourceError> {
        let src = self.source;
        let plane = child(node, "plane");
        let kind = plane.and_then(|p| p.attribute("type"));
        let xy = JointKind::Planar {
            axis1: Vector3::x(),
            axis2: Vector3::y(),
        };
        Ok(match kind {
            Some("xy") => xy,
            Some("yz") => JointKind::Planar {
                axis1: Vector3::y(),
                axis2: Vector3::z(),
            },
            Some("zx") => JointKind::Planar {
                axis1: Vector3::z(),
                axis2: Vector3::x(),
            },
            Some("arbitrary") => {
                let plane = plane.ok_or_else(|| self.error("skel.plane", node, "missing <plane>"))?;
                let axis = |tag: &str| -> Result<Vector3<f64>, SourceError> {
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
                *raw_axes = Some([a1.x, a1.y, a1.z, a2.x, a2.y, a2.z]);
                JointKind::Planar { axis1, axis2 }
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
                xy
            }
        })
    }

    pub(super) fn axis_properties(
        &mut self,
        axis: Node,
        dof: &mut DofProperties,
        at: &str,
    ) -> Result<(), SourceError> {
        let src = self.source;
        if let Some(limit) = child(axis, "limit") {
            dof.position_limits = Limits {
                lower: raw::child_scalar(src, limit, "lower")?.and_then(finite),
                upper: raw::child_scalar(src, limit, "upper")?.and_then(finite),
            };
        }
        if let Some(dynamics) = child(axis, "dynamics") {
            if let Some(v) = raw::child_scalar(src, dynamics, "damping")? {
                dof.damping = v;
            }
            if let Some(v) = raw::child_scalar(src, dynamics, "friction")? {
                dof.friction = v;
            }
            if let Some(v) = raw::child_scalar(src, dynamics, "spring_rest_position")? {
                dof.spring_rest_position = v;
            }
            if let Some(v) = raw::child_scalar(src, dynamics, "spring_stiffness")? {
                dof.spring_stiffness = v;
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

fn attribute_number(source: &Source, node: Node, name: &str) -> Result<Option<f64>, SourceError> {
    let Some(text) = node.attribute(name) else {
        return Ok(None);
    };
    text.trim().parse::<f64>().map(Some).map_err(|_| {
        source.error(
            "skel.number",
            Some(span_of_attribute(source, node, name)),
            format!("expected a number in attribute `{name}`, found {text:?}"),
        )
    })
}

fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

/// Reports the pitch a screw joint gets when `<pitch>` is absent.
fn note_default_pitch(importer: &mut Importer, at: &str, node: Node) {
    importer.note(
        "skel.screw_pitch",
        Severity::Info,
        Category::Defaulted,
        at,
        Some(node),
        "screw joint without <axis><pitch>: 0.1 m per turn assumed (DART never builds screw joints, so its \
         default cannot be checked)",
    );
}

/// DART's arbitrary plane: `t1 = a1/|a1|`, `n = (a1 × a2)/|a1 × a2|`, `t2 = n × t1` (measured
/// with dartpy 6.20: the second axis is made perpendicular to the first).
pub fn orthonormal_plane(a1: &Vector3<f64>, a2: &Vector3<f64>) -> Option<(Vector3<f64>, Vector3<f64>)> {
    let n1 = a1.norm();
    let normal = a1.cross(a2);
    let nn = normal.norm();
    if !(n1.is_finite() && nn.is_finite()) || n1 == 0.0 || nn == 0.0 {
        return None;
    }
    let t1 = a1 / n1;
    let t2 = (normal / nn).cross(&t1);
    Some((t1, t2))
}
