//! The elements the writer builds from IR items: poses, inertials, frames, axes, geometries,
//! shapes, materials and the elements kept verbatim.

use super::unsayable;
use crate::spec;
use mbconv_ir::format::kit::Unsayable;
use mbconv_ir::format::kit::numbers::{format_number, join};
use mbconv_ir::{Body, DofProperties, Extras, Frame, Geometry, Pose, Shape, ShapeRole, Value};
use mbconv_xml::write::{XmlElement, value_element};
use nalgebra::Vector3;
use std::collections::BTreeSet;

pub(super) fn vector(v: &Vector3<f64>) -> String {
    join(&[v.x, v.y, v.z], " ")
}

/// `x y z roll pitch yaw`, `relative_to` when given; nothing for an identity pose relative to
/// the default frame.
pub(super) fn pose_element(pose: &Pose, relative_to: Option<&str>) -> Option<XmlElement> {
    if relative_to.is_none() && pose.is_exact_identity() {
        return None;
    }
    let [r, p, y] = spec::rpy_angles(&pose.rotation);
    let t = pose.translation;
    // `+ 0.0` writes a negative zero as 0.
    let numbers = [t.x, t.y, t.z, r, p, y].map(|x| x + 0.0);
    let element = XmlElement::text("pose", join(&numbers, " "));
    Some(match relative_to {
        Some(frame) => element.attr("relative_to", frame),
        None => element,
    })
}

pub(super) fn inertial(body: &Body) -> XmlElement {
    let i = &body.inertial;
    let frame = Pose::new(i.com, i.inertia_rotation);
    let m = i.inertia.0;
    let moments = [
        ("ixx", m[0][0]),
        ("ixy", m[0][1]),
        ("ixz", m[0][2]),
        ("iyy", m[1][1]),
        ("iyz", m[1][2]),
        ("izz", m[2][2]),
    ];
    XmlElement::new("inertial")
        .child_opt(pose_element(&frame, None))
        .child(XmlElement::text("mass", format_number(i.mass)))
        .child(
            XmlElement::new("inertia")
                .children(moments.map(|(tag, x)| XmlElement::text(tag, format_number(x)))),
        )
}

pub(super) fn frame_element(prefix: &str, link: &str, frame: &Frame) -> XmlElement {
    let local = frame.name.strip_prefix(prefix).unwrap_or(&frame.name);
    XmlElement::new("frame")
        .attr("name", local)
        .attr("attached_to", link)
        .child_opt(pose_element(&frame.pose, None))
}

pub(super) fn axis_element(tag: &str, axis: &Vector3<f64>, dof: &DofProperties) -> XmlElement {
    let mut element = XmlElement::new(tag).child(XmlElement::text("xyz", vector(axis)));
    let p = dof.position_limits;
    let magnitude = |l: &mbconv_ir::Limits| l.upper.or(l.lower.map(f64::abs));
    let (effort, velocity) = (magnitude(&dof.effort_limits), magnitude(&dof.velocity_limits));
    if !p.is_unlimited() || effort.is_some() || velocity.is_some() {
        let mut limit = XmlElement::new("limit");
        if !p.is_unlimited() {
            limit = limit
                .child(XmlElement::text(
                    "lower",
                    format_number(p.lower.unwrap_or(-spec::NO_LIMIT)),
                ))
                .child(XmlElement::text(
                    "upper",
                    format_number(p.upper.unwrap_or(spec::NO_LIMIT)),
                ));
        }
        if let Some(e) = effort {
            limit = limit.child(XmlElement::text("effort", format_number(e)));
        }
        if let Some(v) = velocity {
            limit = limit.child(XmlElement::text("velocity", format_number(v)));
        }
        element = element.child(limit);
    }
    let dynamics = [
        ("damping", dof.damping),
        ("friction", dof.friction),
        ("spring_reference", dof.spring_rest_position),
        ("spring_stiffness", dof.spring_stiffness),
    ];
    if dynamics.iter().any(|(_, x)| *x != 0.0) {
        element = element.child(
            XmlElement::new("dynamics").children(
                dynamics
                    .iter()
                    .filter(|(_, x)| *x != 0.0)
                    .map(|(tag, x)| XmlElement::text(*tag, format_number(*x))),
            ),
        );
    }
    element
}

pub(super) fn geometry(g: &Geometry, minor: u32, at: &str) -> Result<XmlElement, Unsayable> {
    let text = |tag: &str, x: f64| XmlElement::text(tag, format_number(x));
    let inner = match g {
        Geometry::Box { size } => XmlElement::new("box").child(XmlElement::text("size", join(size, " "))),
        Geometry::Sphere { radius } => XmlElement::new("sphere").child(text("radius", *radius)),
        Geometry::Cylinder { radius, length } => XmlElement::new("cylinder")
            .child(text("radius", *radius))
            .child(text("length", *length)),
        Geometry::Capsule { radius, length } => XmlElement::new("capsule")
            .child(text("radius", *radius))
            .child(text("length", *length)),
        Geometry::Cone { radius, length } if minor >= 11 => XmlElement::new("cone")
            .child(text("radius", *radius))
            .child(text("length", *length)),
        Geometry::Ellipsoid { radii } => {
            XmlElement::new("ellipsoid").child(XmlElement::text("radii", join(radii, " ")))
        }
        Geometry::Plane { normal, offset } if *offset == 0.0 => {
            XmlElement::new("plane").child(XmlElement::text("normal", vector(normal)))
        }
        Geometry::Mesh(mesh) => {
            let mut m = XmlElement::new("mesh").child(XmlElement::text("uri", &mesh.uri));
            if let Some(node) = &mesh.node {
                m = m.child(XmlElement::new("submesh").child(XmlElement::text("name", node)));
            }
            if mesh.scale != [1.0; 3] {
                m = m.child(XmlElement::text("scale", join(&mesh.scale, " ")));
            }
            m
        }
        Geometry::Cone { .. } => {
            return Err(unsayable(
                at.to_owned(),
                format!("SDFormat 1.{minor} has no cone (1.11 has)"),
            ));
        }
        Geometry::Plane { .. } => {
            return Err(unsayable(
                at.to_owned(),
                "a plane with an offset (SDFormat's pass through the link's origin)",
            ));
        }
        other => {
            return Err(unsayable(
                at.to_owned(),
                format!("SDFormat has no shape like {other:?}"),
            ));
        }
    };
    Ok(XmlElement::new("geometry").child(inner))
}

/// The `<visual>` and `<collision>` of a shape (both for a shape in both roles).
pub(super) fn shape_elements(shape: &Shape, minor: u32, at: &str) -> Result<Vec<XmlElement>, Unsayable> {
    let name = shape
        .name
        .as_deref()
        .ok_or_else(|| unsayable(at.to_owned(), "a shape without a name"))?;
    if shape.contact_material.is_some() || shape.contact_radius.is_some() || !shape.collidable {
        return Err(unsayable(at.to_owned(), "a shape's contact settings"));
    }
    let mut out = Vec::new();
    for role in [ShapeRole::Visual, ShapeRole::Collision] {
        if shape.role != role && shape.role != ShapeRole::Both {
            continue;
        }
        let visual = role == ShapeRole::Visual;
        let mut element = XmlElement::new(if visual { "visual" } else { "collision" })
            .attr("name", name)
            .child_opt(pose_element(&shape.pose, None))
            .child(geometry(&shape.geometry, minor, at)?);
        if visual {
            if shape.extras.get("sdf.material").is_none()
                && let Some(a) = &shape.appearance
            {
                element = element.child(material(a));
            }
            element = element.children(verbatim(&shape.extras, &["surface", "collide_bitmask"]));
        } else {
            element = element.children(verbatim(&shape.extras, &["material", "collide_bitmask"]));
        }
        out.push(element);
    }
    Ok(out)
}

pub(super) fn material(a: &mbconv_ir::Appearance) -> XmlElement {
    let alpha = a.alpha.unwrap_or(1.0);
    let colour = |tag: &str, c: &[f64; 3]| XmlElement::text(tag, join(&[c[0], c[1], c[2], alpha], " "));
    let mut m = XmlElement::new("material");
    if let Some(c) = &a.diffuse {
        m = m.child(colour("ambient", c)).child(colour("diffuse", c));
    }
    if let Some(c) = &a.specular {
        m = m.child(colour("specular", c));
    }
    if let Some(c) = &a.emissive {
        m = m.child(colour("emissive", c));
    }
    m
}

/// The kept `sdf.<tag>` elements of `extras` (but `skip`), verbatim, in order; `self_collide`
/// as its element.
pub(super) fn verbatim(extras: &Extras, skip: &[&str]) -> Vec<XmlElement> {
    let mut out = Vec::new();
    for (tag, value) in extras.for_format("sdf") {
        if tag.starts_with("source.") || tag.starts_with(crate::spec::MODEL_EXTRA) || skip.contains(&tag) {
            continue;
        }
        if tag == "self_collide" {
            if let Value::Bool(b) = value {
                out.push(XmlElement::text(
                    "self_collide",
                    if *b { "true" } else { "false" },
                ));
            }
            continue;
        }
        out.extend(value_element(tag, value));
    }
    out
}

/// The elements of the model that `body` (its canonical link) carries for it
/// (`sdf.model.<tag>`), verbatim.
pub(super) fn model_elements(extras: &Extras) -> Vec<XmlElement> {
    extras
        .for_format("sdf")
        .filter_map(|(tag, value)| {
            tag.strip_prefix(crate::spec::MODEL_EXTRA)
                .map(|t| value_element(t, value))
        })
        .flatten()
        .collect()
}

pub(super) fn collect_prefixes(e: &XmlElement, out: &mut BTreeSet<String>) {
    let mut note = |name: &str| {
        if let Some((prefix, _)) = name.split_once(':')
            && prefix != "xmlns"
            && prefix != "xml"
        {
            out.insert(prefix.to_owned());
        }
    };
    note(&e.tag);
    for (k, _) in &e.attributes {
        note(k);
    }
    for c in &e.children {
        collect_prefixes(c, out);
    }
}
