//! A model URDF can already say -> URDF text, through the shared XML writer.
//!
//! This is the `emit` half of the writer: it writes a model whose shape is URDF's (one tree
//! of links under one root or under the world, each body frame on its joint's frame, joint
//! kinds URDF has, shapes URDF has) and loses nothing: reading its text back gives the same
//! model. A model it cannot say exactly is refused, naming the item; [`super::lower`] turns any
//! model into such a model.
//!
//! Numbers follow the number policy (shortest round trip); an `<origin>`'s angles are the
//! file's own (`urdf.source.*` aids) when the reader kept them, else `spec::rpy_angles`.

use super::lower::RootWriting;
use crate::spec::{self, XMLNS};
use mbconv_ir::format::kit::numbers::format_number;
use mbconv_ir::format::kit::{Unsayable, aids};
use mbconv_ir::kinematics::SpanningTree;
use mbconv_ir::{
    Appearance, Body, BodyRef, Extras, Geometry, Joint, JointKind, Limits, Model, Pose, Shape, ShapeRole,
    Value,
};
use mbconv_xml::write::{XmlElement, serialize, value_element};
use nalgebra::Vector3;

fn unsayable(path: String, reason: impl Into<String>) -> Unsayable {
    Unsayable::new("URDF", path, reason)
}

const DRAKE: &str = "http://drake.mit.edu";

/// Writes `model` as URDF, or says which item URDF cannot say as it stands. A root link that
/// is not fixed is refused (URDF readers weld a root unless told otherwise), unless `root` is
/// [`RootWriting::Free`]: then it is written alone (free in DART and Drake, and in mbconv read
/// with `root=free`).
pub(crate) fn emit_with(model: &Model, root: RootWriting) -> Result<String, Unsayable> {
    check_model(model)?;
    check_tree(model, root)?;
    let mut robot = XmlElement::new("robot").attr("name", &model.name);
    let mut prefixes: Vec<(String, String)> = match model.extras.get(XMLNS) {
        Some(Value::Map(map)) => map
            .iter()
            .filter_map(|(p, uri)| match uri {
                Value::String(uri) => Some((p.to_owned(), uri.clone())),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    let mut needs_drake = false;
    let mut version_1_1 = false;
    let mut links = Vec::new();
    if model.joints.iter().any(|j| j.parent.is_world()) {
        links.push(XmlElement::new("link").attr("name", spec::WORLD));
    }
    for body in &model.bodies {
        links.push(link(body, &mut needs_drake, &mut version_1_1)?);
    }
    let mut joints = Vec::new();
    for joint in &model.joints {
        joints.push(joint_element(joint, &mut version_1_1)?);
    }
    if needs_drake && !prefixes.iter().any(|(p, _)| p == "drake") {
        prefixes.push(("drake".to_owned(), DRAKE.to_owned()));
    }
    if version_1_1 {
        robot = robot.attr("version", "1.1");
    }
    for (prefix, uri) in prefixes {
        robot = robot.attr(format!("xmlns:{prefix}"), uri);
    }
    robot = robot.children(links).children(joints);
    robot = robot.children(verbatim(&model.extras, &[XMLNS]));
    Ok(serialize(&robot))
}

/// One tree: every joint's child a body, each body the child of at most one joint, joints
/// pointing away from the root, no loops, one root (welded) or the world above everything.
fn check_tree(model: &Model, root_writing: RootWriting) -> Result<(), Unsayable> {
    let tree = SpanningTree::new(model);
    if let Some(&j) = tree.loop_joints.first() {
        return Err(unsayable(
            mbconv_ir::report::path::item("joints", &model.joints[j].name),
            "it closes a kinematic loop",
        ));
    }
    if let Some(joint) = tree.first_reversed_joint() {
        let at = mbconv_ir::report::path::item("joints", &model.joints[joint].name);
        return Err(unsayable(at, "it points towards the root"));
    }
    let roots: Vec<&Body> = model
        .bodies
        .iter()
        .filter(|b| {
            !model
                .joints
                .iter()
                .any(|j| j.child.name() == Some(b.name.as_str()))
        })
        .collect();
    let world_joints = model.joints.iter().any(|j| j.parent.is_world());
    if let Some(body) = model
        .bodies
        .iter()
        .find(|b| b.fixed && !roots.iter().any(|r| r.name == b.name))
    {
        return Err(unsayable(
            mbconv_ir::report::path::item("bodies", &body.name),
            "a fixed body that a joint also holds",
        ));
    }
    match roots.as_slice() {
        [] if world_joints => Ok(()),
        [] => Err(unsayable("bodies".to_owned(), "no body: URDF needs a link")),
        [root] if !world_joints && (root.fixed || root_writing == RootWriting::Free) => Ok(()),
        [root] if !world_joints => Err(unsayable(
            mbconv_ir::report::path::item("bodies", &root.name),
            "a free root link: URDF readers weld it unless told otherwise",
        )),
        [first, ..] => Err(unsayable(
            mbconv_ir::report::path::item("bodies", &first.name),
            "a body attached by no joint beside others: URDF has one tree",
        )),
    }
}

/// What no URDF element says at the model level.
fn check_model(model: &Model) -> Result<(), Unsayable> {
    let lists = [
        ("constraints", model.constraints.len()),
        ("force_elements", model.force_elements.len()),
        ("motors", model.motors.len()),
        ("loads", model.loads.len()),
        ("devices", model.devices.len()),
        ("groups", model.groups.len()),
        ("world_frames", model.world_frames.len()),
    ];
    if let Some((list, _)) = lists.iter().find(|(_, n)| *n > 0) {
        return Err(unsayable((*list).to_owned(), "URDF has no such items"));
    }
    if model.simulation != mbconv_ir::model::Simulation::default() {
        return Err(unsayable(
            "simulation".to_owned(),
            "URDF has no gravity or time step",
        ));
    }
    Ok(())
}

fn fmt3(v: &[f64]) -> String {
    v.iter().map(|x| format_number(*x)).collect::<Vec<_>>().join(" ")
}

/// `<origin>` for a pose, with the file's own angles when kept; `None` for the identity.
fn origin(pose: &Pose, extras: &Extras, aid: &str, version_1_1: &mut bool) -> Option<XmlElement> {
    let kept = ["rpy", "quat_xyzw"]
        .iter()
        .any(|k| extras.get(&aids::key("urdf", &format!("{aid}{k}"))).is_some());
    if pose.is_exact_identity() && !kept {
        return None;
    }
    let mut e = XmlElement::new("origin").attr("xyz", fmt3(pose.translation.as_slice()));
    if let Some(q) = aids::kept_array::<4>(extras, "urdf", &format!("{aid}quat_xyzw")) {
        *version_1_1 = true;
        e = e.attr("quat_xyzw", fmt3(&q));
    } else {
        let rpy = aids::kept_array::<3>(extras, "urdf", &format!("{aid}rpy"))
            .unwrap_or_else(|| spec::rpy_angles(&pose.rotation));
        e = e.attr("rpy", fmt3(&rpy));
    }
    Some(e)
}

/// The `urdf.*` extras written back as elements (`urdf.gazebo` -> `<gazebo>`), except the
/// aids, the renames and the keys in `skip`.
fn verbatim(extras: &Extras, skip: &[&str]) -> Vec<XmlElement> {
    extras
        .iter()
        .filter(|(k, _)| !k.starts_with("urdf.source.") && *k != spec::NAME && !skip.contains(k))
        .filter_map(|(k, v)| k.strip_prefix("urdf.").map(|tag| value_element(tag, v)))
        .flatten()
        .collect()
}

fn link(body: &Body, needs_drake: &mut bool, version_1_1: &mut bool) -> Result<XmlElement, Unsayable> {
    let at = mbconv_ir::report::path::item("bodies", &body.name);
    if !body.gravity || !body.enabled || body.initial_velocity.is_some() {
        return Err(unsayable(
            at,
            "gravity switched off, a switched-off body or an initial velocity",
        ));
    }
    if !body.frames.is_empty() || !body.contact_materials.is_empty() {
        return Err(unsayable(at, "named frames or contact materials"));
    }
    let i = &body.inertial;
    let m = i.inertia.0;
    if m[0][1] != m[1][0] || m[0][2] != m[2][0] || m[1][2] != m[2][1] {
        return Err(unsayable(at, "an asymmetric inertia tensor"));
    }
    let inertial_pose = Pose::new(i.com, i.inertia_rotation);
    let mut inertial = XmlElement::new("inertial");
    inertial = inertial.child_opt(origin(
        &inertial_pose,
        &body.extras,
        "inertial.origin.",
        version_1_1,
    ));
    inertial = inertial
        .child(XmlElement::new("mass").attr("value", format_number(i.mass)))
        .child(
            XmlElement::new("inertia")
                .attr("ixx", format_number(m[0][0]))
                .attr("ixy", format_number(m[0][1]))
                .attr("ixz", format_number(m[0][2]))
                .attr("iyy", format_number(m[1][1]))
                .attr("iyz", format_number(m[1][2]))
                .attr("izz", format_number(m[2][2])),
        );
    let mut e = XmlElement::new("link").attr("name", &body.name).child(inertial);
    for (k, shape) in body.shapes.iter().enumerate() {
        e = e.child(shape_element(
            shape,
            &format!("{at}.shapes[{k}]"),
            needs_drake,
            version_1_1,
        )?);
    }
    Ok(e.children(verbatim(&body.extras, &[])))
}

fn shape_element(
    shape: &Shape,
    at: &str,
    needs_drake: &mut bool,
    version_1_1: &mut bool,
) -> Result<XmlElement, Unsayable> {
    let tag = match shape.role {
        ShapeRole::Visual => "visual",
        ShapeRole::Collision => "collision",
        ShapeRole::Both => {
            return Err(unsayable(
                at.to_owned(),
                "a shape that is both visual and collision",
            ));
        }
    };
    if shape.contact_material.is_some() || shape.contact_radius.is_some() || !shape.collidable {
        return Err(unsayable(at.to_owned(), "per-shape contact settings"));
    }
    let mut e = XmlElement::new(tag);
    if let Some(name) = &shape.name {
        e = e.attr("name", name);
    }
    e = e.child_opt(origin(&shape.pose, &shape.extras, "origin.", version_1_1));
    let geometry = geometry_element(shape, at, needs_drake, version_1_1)?;
    e = e.child(XmlElement::new("geometry").child(geometry));
    if let Some(appearance) = &shape.appearance {
        e = e.child(material_element(shape, appearance, at)?);
    }
    Ok(e.children(verbatim(&shape.extras, &[spec::MATERIAL])))
}

/// The shape element inside a `<geometry>`: URDF's shapes, Drake's ellipsoid and convex mesh
/// (which need the `drake` prefix), the capsule (URDF 1.1).
fn geometry_element(
    shape: &Shape,
    at: &str,
    needs_drake: &mut bool,
    version_1_1: &mut bool,
) -> Result<XmlElement, Unsayable> {
    Ok(match &shape.geometry {
        Geometry::Box { size } => XmlElement::new("box").attr("size", fmt3(size)),
        Geometry::Sphere { radius } => XmlElement::new("sphere").attr("radius", format_number(*radius)),
        Geometry::Cylinder { radius, length } => XmlElement::new("cylinder")
            .attr("radius", format_number(*radius))
            .attr("length", format_number(*length)),
        Geometry::Capsule { radius, length } => {
            *version_1_1 = true;
            XmlElement::new("capsule")
                .attr("radius", format_number(*radius))
                .attr("length", format_number(*length))
        }
        Geometry::Ellipsoid { radii } => {
            *needs_drake = true;
            XmlElement::new("drake:ellipsoid")
                .attr("a", format_number(radii[0]))
                .attr("b", format_number(radii[1]))
                .attr("c", format_number(radii[2]))
        }
        Geometry::Mesh(mesh) | Geometry::ConvexHull(mesh) => {
            let mut m = XmlElement::new("mesh").attr("filename", &mesh.uri);
            if mesh.scale != [1.0; 3] {
                m = m.attr("scale", fmt3(&mesh.scale));
            }
            if mesh.node.is_some() {
                return Err(unsayable(at.to_owned(), "a mesh sub-node"));
            }
            if matches!(shape.geometry, Geometry::ConvexHull(_)) {
                *needs_drake = true;
                m = m.child(XmlElement::new("drake:declare_convex"));
            }
            m
        }
        other => {
            return Err(unsayable(
                at.to_owned(),
                format!("a {other:?} shape").chars().take(60).collect::<String>(),
            ));
        }
    })
}

/// A visual's `<material>`: its name (kept or given by the lowering), colour and texture.
fn material_element(shape: &Shape, appearance: &Appearance, at: &str) -> Result<XmlElement, Unsayable> {
    if shape.role != ShapeRole::Visual {
        return Err(unsayable(at.to_owned(), "an appearance on a collision shape"));
    }
    // A material the file left unnamed (Drake reads it; urdfdom wants a name) is
    // written unnamed again.
    let name = match shape.extras.get(spec::MATERIAL) {
        Some(Value::String(name)) => Some(name.clone()),
        _ => None,
    };
    if appearance.specular.is_some()
        || appearance.emissive.is_some()
        || appearance.ambient_intensity.is_some()
        || appearance.shininess.is_some()
        || appearance.transparency.is_some()
        || (appearance.diffuse.is_none() && appearance.alpha.is_some())
    {
        return Err(unsayable(
            at.to_owned(),
            "appearance beyond a colour and a texture",
        ));
    }
    let mut material = XmlElement::new("material");
    if let Some(name) = name {
        material = material.attr("name", name);
    }
    if let Some(d) = appearance.diffuse {
        let rgba = [d[0], d[1], d[2], appearance.alpha.unwrap_or(1.0)];
        material = material.child(XmlElement::new("color").attr("rgba", fmt3(&rgba)));
    }
    if let Some(t) = &appearance.texture {
        material = material.child(XmlElement::new("texture").attr("filename", &t.uri));
    }
    Ok(material)
}

fn link_name(body: &BodyRef) -> &str {
    body.name().unwrap_or(spec::WORLD)
}

fn joint_element(joint: &Joint, version_1_1: &mut bool) -> Result<XmlElement, Unsayable> {
    let at = mbconv_ir::report::path::item("joints", &joint.name);
    if !joint.child_frame.is_exact_identity() {
        return Err(unsayable(at, "the child link's frame is not the joint frame"));
    }
    if joint.q0.iter().chain(&joint.v0).any(|x| *x != 0.0) {
        return Err(unsayable(at, "an initial joint position or velocity"));
    }
    if !joint.enabled || joint.bushing.is_some() {
        return Err(unsayable(at, "a switched-off or compliant joint"));
    }
    let dof = joint.dof(0);
    let (type_name, axis) = match &joint.kind {
        JointKind::Fixed => ("fixed", None),
        JointKind::Free => ("floating", None),
        JointKind::Revolute { axis } if dof.position_limits.is_unlimited() => ("continuous", Some(*axis)),
        JointKind::Revolute { axis } => ("revolute", Some(*axis)),
        JointKind::Prismatic { axis } => ("prismatic", Some(*axis)),
        JointKind::Planar { axis1, axis2 } => {
            let normal = match joint.extras.get(spec::AXIS).and_then(aids::value_numbers) {
                Some(n) if n.len() == 3 => Vector3::new(n[0], n[1], n[2]),
                _ => axis1.cross(axis2),
            };
            if spec::plane_axes(&normal) != Some((*axis1, *axis2)) {
                return Err(unsayable(
                    at,
                    "planar axes other than the ones URDF's normal gives",
                ));
            }
            ("planar", Some(normal))
        }
        other => return Err(unsayable(at, format!("a {} joint", other.type_name()))),
    };
    let mut e = XmlElement::new("joint")
        .attr("name", &joint.name)
        .attr("type", type_name);
    e = e.child_opt(origin(&joint.parent_frame, &joint.extras, "origin.", version_1_1));
    e = e
        .child(XmlElement::new("parent").attr("link", link_name(&joint.parent)))
        .child(XmlElement::new("child").attr("link", link_name(&joint.child)));
    if let Some(axis) = axis {
        e = e.child(XmlElement::new("axis").attr("xyz", fmt3(axis.as_slice())));
    }
    if joint.dofs.len() > 1 || (joint.kind.nv() != 1 && !joint.dofs.is_empty()) {
        return Err(unsayable(at, "degree-of-freedom data on a multi-dof joint"));
    }
    if let Some(limit) = limit(&joint.kind, &dof, &at)? {
        e = e.child(limit);
    }
    if dof.damping != 0.0 || dof.friction != 0.0 {
        let mut d = XmlElement::new("dynamics");
        if dof.damping != 0.0 {
            d = d.attr("damping", format_number(dof.damping));
        }
        if dof.friction != 0.0 {
            d = d.attr("friction", format_number(dof.friction));
        }
        e = e.child(d);
    }
    if dof.spring_stiffness != 0.0 || dof.rotor_inertia != 0.0 || !dof.acceleration_limits.is_unlimited() {
        return Err(unsayable(
            at,
            "a joint spring, rotor inertia or acceleration limits",
        ));
    }
    Ok(e.children(verbatim(&joint.extras, &[spec::AXIS])))
}

/// `<limit>`: position limits both sides or none, symmetric effort and velocity limits.
fn limit(
    kind: &JointKind,
    dof: &mbconv_ir::DofProperties,
    at: &str,
) -> Result<Option<XmlElement>, Unsayable> {
    let symmetric = |l: &Limits, what: &str| -> Result<Option<f64>, Unsayable> {
        match (l.lower, l.upper) {
            (None, None) => Ok(None),
            (Some(lo), Some(hi)) if lo == -hi => Ok(Some(hi)),
            _ => Err(unsayable(at.to_owned(), format!("asymmetric {what} limits"))),
        }
    };
    let effort = symmetric(&dof.effort_limits, "effort")?;
    let velocity = symmetric(&dof.velocity_limits, "velocity")?;
    let position = match (dof.position_limits.lower, dof.position_limits.upper) {
        (None, None) => None,
        (Some(lo), Some(hi)) => Some((lo, hi)),
        _ => return Err(unsayable(at.to_owned(), "a one-sided position limit")),
    };
    if position.is_none() && effort.is_none() && velocity.is_none() {
        return Ok(None);
    }
    if position.is_none() && matches!(kind, JointKind::Prismatic { .. }) {
        return Err(unsayable(
            at.to_owned(),
            "an unlimited prismatic joint with effort or velocity limits (URDF's <limit> reads missing bounds as 0)",
        ));
    }
    let mut e = XmlElement::new("limit");
    if let Some((lo, hi)) = position {
        e = e
            .attr("lower", format_number(lo))
            .attr("upper", format_number(hi));
    }
    if let Some(v) = effort {
        e = e.attr("effort", format_number(v));
    }
    if let Some(v) = velocity {
        e = e.attr("velocity", format_number(v));
    }
    Ok(Some(e))
}
