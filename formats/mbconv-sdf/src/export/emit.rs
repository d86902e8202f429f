//! A model SDFormat can already say -> SDFormat text, through the shared XML writer.
//!
//! This is the `emit` half of the writer: it writes a model whose shape is SDFormat's (every
//! body a link of a model of the world, named `model::link` as the reader names it; joint kinds
//! SDFormat has, every joint pointing away from its tree's root; fixed bodies only in models
//! whose links are all fixed, written `static`; shapes SDFormat has) and loses nothing: reading
//! its text back gives the same model. A model it cannot say exactly is refused, naming the item;
//! [`super::lower::lower`] turns any model into such a model.
//!
//! One `<world>` holds the gravity, the step (`<physics><max_step_size>`), the models (nested
//! as their names say, each model frame at the world's origin), joints between models, the
//! world's frames and the world's kept elements. Link poses are relative to the link their tree
//! joint hangs them from when it is in the same model ([`Layout::Parent`]), else to their model
//! ([`Layout::Model`] for all); joint poses are in the child link (SDFormat's default), axes in
//! the joint frame. Numbers follow the number policy (shortest round trip).

use super::{Scopes, is_link_name, joint_prefix, split_scoped, top_model};
use crate::spec::{self, is_plain_name};
use mbconv_ir::format::kit::numbers::{format_number, join};
use mbconv_ir::kinematics::{Attachment, SpanningTree};
use mbconv_ir::report::path;
use mbconv_ir::{
    Body, BodyRef, DofProperties, Extras, Frame, Geometry, JointKind, Model, Pose, Shape, ShapeRole, Value,
};
use mbconv_xml::write::{XmlElement, serialize, value_element};
use nalgebra::Vector3;
use std::collections::BTreeSet;

use mbconv_ir::format::kit::Unsayable;

fn unsayable(path: String, reason: impl Into<String>) -> Unsayable {
    Unsayable::new("SDFormat", path, reason)
}

/// What link poses are written relative to (the write setting [`spec::WRITE_POSES`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Layout {
    /// The link its tree joint hangs it from, when that link is in the same model; else the
    /// model frame.
    #[default]
    Parent,
    /// The model frame, for every link.
    Model,
}

/// How the writer writes: the version and the pose layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Writing {
    /// The minor version written (`1.<minor>`).
    pub(crate) minor: u32,
    /// What link poses are relative to.
    pub(crate) layout: Layout,
}

impl Default for Writing {
    fn default() -> Self {
        Writing {
            minor: 9,
            layout: Layout::Parent,
        }
    }
}

impl Writing {
    /// The choices `options` make (the defaults where they make none).
    pub(crate) fn from_options(options: &mbconv_ir::format::Options) -> Self {
        let minor = options
            .choice(spec::WRITE_VERSION, spec::WRITE_VERSIONS)
            .and_then(spec::minor_version)
            .unwrap_or(9);
        let layout = match options.choice(spec::WRITE_POSES, spec::WRITE_POSES_CHOICES) {
            Some("model") => Layout::Model,
            _ => Layout::Parent,
        };
        Writing { minor, layout }
    }
}

/// Writes `model` as SDFormat 1.9 with link poses relative to their parent links, or says
/// which item SDFormat cannot say as it stands (for the unit tests: the writer takes its
/// settings from the options).
#[cfg(test)]
pub(crate) fn emit(model: &Model) -> Result<String, Unsayable> {
    emit_with(model, Writing::default())
}

/// Writes `model` as SDFormat the way `writing` says.
pub(crate) fn emit_with(model: &Model, writing: Writing) -> Result<String, Unsayable> {
    check_names(model)?;
    let tree = check_tree(model)?;
    let scopes = Scopes::new(model);
    check_scopes(model, &scopes)?;
    let mut world = XmlElement::new("world").attr("name", &model.name);
    if let Some(g) = model.simulation.gravity {
        world = world.child(XmlElement::text("gravity", vector(&g)));
    }
    if let Some(step) = model.simulation.time_step {
        world = world.child(
            XmlElement::new("physics")
                .attr("name", "default_physics")
                .attr("default", "true")
                .attr("type", "ode")
                .child(XmlElement::text("max_step_size", format_number(step))),
        );
    }
    let writer = Writer {
        model,
        tree: &tree,
        scopes: &scopes,
        writing,
    };
    for &m in &scopes.scopes[0].models {
        world = world.child(writer.scope(m)?);
    }
    for &j in &scopes.scopes[0].joints {
        world = world.child(writer.joint(0, j)?);
    }
    for frame in &model.world_frames {
        world = world.child(
            XmlElement::new("frame")
                .attr("name", &frame.name)
                .child_opt(pose_element(&frame.pose, None)),
        );
    }
    world = world.children(verbatim(&model.extras, &[]));
    let mut root = XmlElement::new("sdf").attr("version", format!("1.{}", writing.minor));
    let mut prefixes = BTreeSet::new();
    collect_prefixes(&world, &mut prefixes);
    for prefix in prefixes {
        match super::lower::NAMESPACES.iter().find(|(p, _)| *p == prefix) {
            Some((p, uri)) => root = root.attr(format!("xmlns:{p}"), *uri),
            None => {
                return Err(unsayable(
                    "model".to_owned(),
                    format!("an element of the namespace prefix {prefix:?}, which the writer cannot declare"),
                ));
            }
        }
    }
    Ok(serialize(&root.child(world)))
}

struct Writer<'m> {
    model: &'m Model,
    tree: &'m SpanningTree,
    scopes: &'m Scopes,
    writing: Writing,
}

impl Writer<'_> {
    fn scope(&self, s: usize) -> Result<XmlElement, Unsayable> {
        let scope = &self.scopes.scopes[s];
        let mut element = XmlElement::new("model").attr("name", &scope.name);
        let bodies: Vec<usize> = self.all_bodies(s);
        let top = self.scopes.scopes[0].models.contains(&s);
        if top && bodies.iter().all(|&b| self.model.bodies[b].fixed) {
            element = element.child(XmlElement::text("static", "true"));
        }
        for &b in &scope.links {
            element = element.child(self.link(s, b)?);
        }
        for &b in &scope.links {
            let body = &self.model.bodies[b];
            let (_, link) = split_scoped(&body.name);
            for frame in &body.frames {
                element = element.child(frame_element(&scope.prefix, link, frame));
            }
        }
        for &j in &scope.joints {
            element = element.child(self.joint(s, j)?);
        }
        for &m in &scope.models {
            element = element.child(self.scope(m)?);
        }
        Ok(element)
    }

    /// The bodies of scope `s` and of the models nested in it.
    fn all_bodies(&self, s: usize) -> Vec<usize> {
        let mut out = self.scopes.scopes[s].links.clone();
        for &m in &self.scopes.scopes[s].models {
            out.extend(self.all_bodies(m));
        }
        out
    }

    fn link(&self, s: usize, b: usize) -> Result<XmlElement, Unsayable> {
        let body = &self.model.bodies[b];
        let at = path::item("bodies", &body.name);
        let (_, name) = split_scoped(&body.name);
        let mut link = XmlElement::new("link").attr("name", name);
        let parent = match (self.writing.layout, &self.tree.attachments[b]) {
            (Layout::Parent, Attachment::Joint { parent: Some(p), .. }) if self.scopes.of_body[*p] == s => {
                Some(*p)
            }
            _ => None,
        };
        link = link.child_opt(match parent {
            Some(p) => {
                let parent_body = &self.model.bodies[p];
                let local = split_scoped(&parent_body.name).1;
                pose_element(&(parent_body.pose.inverse() * body.pose), Some(local))
            }
            None => pose_element(&body.pose, None),
        });
        link = link.child(inertial(body));
        if !body.gravity {
            link = link.child(XmlElement::text("gravity", "false"));
        }
        for shape in &body.shapes {
            link = link.children(shape_elements(shape, self.writing.minor, &at)?);
        }
        link = link.children(verbatim(&body.extras, &[]));
        Ok(link)
    }

    fn joint(&self, s: usize, j: usize) -> Result<XmlElement, Unsayable> {
        let joint = &self.model.joints[j];
        let at = path::item("joints", &joint.name);
        let prefix = &self.scopes.scopes[s].prefix;
        let local = joint
            .name
            .strip_prefix(prefix.as_str())
            .ok_or_else(|| unsayable(at.clone(), "its name is not in the model holding its links"))?;
        let type_name = match joint.kind {
            JointKind::Fixed => "fixed",
            JointKind::Revolute { .. } => "revolute",
            JointKind::Prismatic { .. } => "prismatic",
            JointKind::Screw { .. } => "screw",
            JointKind::Universal { .. } => "universal",
            JointKind::Spherical => "ball",
            _ => {
                return Err(unsayable(
                    at,
                    format!("SDFormat has no {} joint", joint.kind.type_name()),
                ));
            }
        };
        let end = |r: &BodyRef| match r {
            BodyRef::World => "world".to_owned(),
            BodyRef::Body(name) => name.strip_prefix(prefix.as_str()).unwrap_or(name).to_owned(),
        };
        let mut element = XmlElement::new("joint")
            .attr("name", local)
            .attr("type", type_name)
            .child_opt(pose_element(&joint.child_frame, None))
            .child(XmlElement::text("parent", end(&joint.parent)))
            .child(XmlElement::text("child", end(&joint.child)));
        for (k, (_, axis)) in joint.kind.axes().into_iter().enumerate() {
            let tag = if k == 0 { "axis" } else { "axis2" };
            element = element.child(axis_element(tag, &axis, &joint.dof(k)));
        }
        if let JointKind::Screw { pitch, .. } = joint.kind {
            element = element.child(if self.writing.minor >= 10 {
                XmlElement::text("screw_thread_pitch", format_number(pitch))
            } else {
                XmlElement::text(
                    "thread_pitch",
                    format_number(spec::thread_pitch_from_pitch(pitch)),
                )
            });
        }
        Ok(element.children(verbatim(&joint.extras, &[])))
    }
}

/// Every body a link of a model of the world, names SDFormat can write.
fn check_names(model: &Model) -> Result<(), Unsayable> {
    let moving_models: BTreeSet<&str> = model
        .bodies
        .iter()
        .filter(|b| !b.fixed)
        .map(|b| top_model(&b.name))
        .collect();
    for body in &model.bodies {
        let at = path::item("bodies", &body.name);
        if !is_link_name(&body.name) {
            return Err(unsayable(
                at,
                "its name is not `model::link` with names SDFormat allows (every link belongs to a model)",
            ));
        }
        if body.fixed && moving_models.contains(top_model(&body.name)) {
            return Err(unsayable(
                at,
                "a fixed body in a model with moving links (only a whole model can be static)",
            ));
        }
        for frame in &body.frames {
            let (prefix, local) = split_scoped(&frame.name);
            if prefix != split_scoped(&body.name).0 || !is_plain_name(local) {
                return Err(unsayable(
                    at,
                    format!("its frame {:?} is not named in its model", frame.name),
                ));
            }
        }
    }
    for frame in &model.world_frames {
        if !is_plain_name(&frame.name) {
            return Err(unsayable(
                path::item("world_frames", &frame.name),
                "a world frame's name must be a plain name",
            ));
        }
    }
    for joint in &model.joints {
        let prefix = joint_prefix(&joint.parent, &joint.child);
        let plain = joint.name.strip_prefix(prefix).is_some_and(is_plain_name);
        if !plain {
            return Err(unsayable(
                path::item("joints", &joint.name),
                format!("its name is not a plain name in the model {prefix:?} holding its links"),
            ));
        }
    }
    Ok(())
}

/// Joints pointing away from their tree's root, every loop-closing joint's sides meeting (its
/// frame is stated once, on the child), no free joint.
fn check_tree(model: &Model) -> Result<SpanningTree, Unsayable> {
    for joint in &model.joints {
        let at = path::item("joints", &joint.name);
        if !joint.enabled {
            return Err(unsayable(at, "a switched-off joint"));
        }
        if joint.q0.iter().chain(&joint.v0).any(|x| *x != 0.0) {
            return Err(unsayable(at, "an initial position or velocity"));
        }
        if joint.bushing.is_some() || joint.actuator.is_some() || joint.joint_id.is_some() {
            return Err(unsayable(at, "a bushing, actuator or joint id"));
        }
    }
    let tree = SpanningTree::new(model);
    for attachment in &tree.attachments {
        if let Attachment::Joint {
            joint,
            reversed: true,
            ..
        } = *attachment
        {
            return Err(unsayable(
                path::item("joints", &model.joints[joint].name),
                "it points towards the root",
            ));
        }
    }
    let world = |r: &BodyRef| {
        r.name()
            .and_then(|n| model.body_index(n))
            .map_or(Pose::identity(), |b| model.bodies[b].pose)
    };
    for (j, joint) in model.joints.iter().enumerate() {
        let on_parent = world(&joint.parent) * joint.parent_frame;
        let on_child = world(&joint.child) * joint.child_frame;
        let gap = (on_parent.translation - on_child.translation).norm();
        let turn = on_parent.rotation.angle_to(&on_child.rotation);
        let scale = 1.0 + on_parent.translation.norm();
        if gap > 1e-9 * scale || turn > 1e-9 {
            let what = if tree.loop_joints.contains(&j) {
                "a loop-closing joint whose parent and child frames do not meet"
            } else {
                "its frames do not meet at the bodies' poses"
            };
            return Err(unsayable(path::item("joints", &joint.name), what));
        }
    }
    for body in &model.bodies {
        if body.initial_velocity.is_some() {
            return Err(unsayable(path::item("bodies", &body.name), "an initial velocity"));
        }
    }
    Ok(tree)
}

/// Names unique in each scope (links, joints, frames and models share one namespace).
fn check_scopes(model: &Model, scopes: &Scopes) -> Result<(), Unsayable> {
    for scope in &scopes.scopes {
        let mut seen = BTreeSet::new();
        let mut names: Vec<(String, String)> = Vec::new();
        for &m in &scope.models {
            names.push((scopes.scopes[m].name.clone(), "model".to_owned()));
        }
        for &b in &scope.links {
            let body = &model.bodies[b];
            names.push((
                split_scoped(&body.name).1.to_owned(),
                path::item("bodies", &body.name),
            ));
            for f in &body.frames {
                names.push((
                    split_scoped(&f.name).1.to_owned(),
                    path::item("bodies", &body.name),
                ));
            }
        }
        for &j in &scope.joints {
            let joint = &model.joints[j];
            names.push((
                split_scoped(&joint.name).1.to_owned(),
                path::item("joints", &joint.name),
            ));
        }
        if scope.prefix.is_empty() {
            for f in &model.world_frames {
                names.push((f.name.clone(), path::item("world_frames", &f.name)));
            }
        }
        for (name, at) in names {
            if !seen.insert(name.clone()) {
                return Err(unsayable(
                    at,
                    format!("the name {name:?} is used twice in its model"),
                ));
            }
        }
    }
    Ok(())
}

fn vector(v: &Vector3<f64>) -> String {
    join(&[v.x, v.y, v.z], " ")
}

/// `x y z roll pitch yaw`, `relative_to` when given; nothing for an identity pose relative to
/// the default frame.
fn pose_element(pose: &Pose, relative_to: Option<&str>) -> Option<XmlElement> {
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

fn inertial(body: &Body) -> XmlElement {
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

fn frame_element(prefix: &str, link: &str, frame: &Frame) -> XmlElement {
    let local = frame.name.strip_prefix(prefix).unwrap_or(&frame.name);
    XmlElement::new("frame")
        .attr("name", local)
        .attr("attached_to", link)
        .child_opt(pose_element(&frame.pose, None))
}

fn axis_element(tag: &str, axis: &Vector3<f64>, dof: &DofProperties) -> XmlElement {
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

fn geometry(g: &Geometry, minor: u32, at: &str) -> Result<XmlElement, Unsayable> {
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
fn shape_elements(shape: &Shape, minor: u32, at: &str) -> Result<Vec<XmlElement>, Unsayable> {
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

fn material(a: &mbconv_ir::Appearance) -> XmlElement {
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
fn verbatim(extras: &Extras, skip: &[&str]) -> Vec<XmlElement> {
    let mut out = Vec::new();
    for (tag, value) in extras.for_format("sdf") {
        if tag.starts_with("source.") || skip.contains(&tag) {
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

fn collect_prefixes(e: &XmlElement, out: &mut BTreeSet<String>) {
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use mbconv_ir::format::Options;

    #[test]
    fn the_settings_choose_the_version_and_the_layout() {
        let mut options = Options::default();
        let writing = Writing::from_options(&options);
        assert_eq!(
            writing,
            Writing {
                minor: 9,
                layout: Layout::Parent
            }
        );
        options.set("version", "1.11");
        options.set("poses", "model");
        let writing = Writing::from_options(&options);
        assert_eq!(
            writing,
            Writing {
                minor: 11,
                layout: Layout::Model
            }
        );
    }

    #[test]
    fn a_body_must_be_a_link_of_a_model() {
        let mut model = Model::new("w");
        model.bodies.push(Body::new("puck"));
        assert!(emit(&model).is_err()); // not a link of a model
        model.bodies[0].name = "table::puck".into();
        let text = emit(&model).unwrap();
        assert!(text.contains("<model name=\"table\">"));
        assert!(text.contains("<link name=\"puck\">"));
    }
}
