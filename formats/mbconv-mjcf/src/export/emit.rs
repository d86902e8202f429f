//! A lowered model ([`super::lower::lower`]) -> MJCF text, through the shared XML writer
//! (`mbconv_xml::write`, quick-xml). Deterministic (model order), numbers in shortest
//! round-trip form, angles in radians with `angle="radian"` stated, every body with an explicit
//! `<inertial>` and `inertiafromgeom="false"` (MuJoCo never recomputes mass from the geoms).
//!
//! ```
//! use mbconv_ir::format::{Format, Options, Source};
//! use mbconv_ir::{Body, BodyRef, Joint, JointKind, Model};
//! let mut model = Model::new("pendulum");
//! let mut bob = Body::new("bob");
//! bob.pose.translation.z = -1.0;
//! model.bodies.push(bob);
//! let mut pivot = Joint::new("pivot", JointKind::Revolute { axis: nalgebra::Vector3::y() }, BodyRef::World, BodyRef::body("bob"));
//! pivot.child_frame.translation.z = 1.0;
//! model.joints.push(pivot);
//! let mjcf = mbconv_mjcf::MjcfFormat;
//! let text = mjcf.emit(&model, &Options::default()).unwrap().text;
//! assert!(text.contains(r#"<joint name="pivot" type="hinge" pos="0 0 1" axis="0 1 0"/>"#));
//! let back = mjcf.read(&Source::from_string("p.xml", &text), &Options::default()).unwrap().model;
//! assert_eq!(back.bodies[0].pose.translation.z, -1.0);
//! ```

use super::{Plan, joint_frames};
use mbconv_ir::format::kit::numbers::format_number;
use mbconv_ir::format::{Exported, Options};
use mbconv_ir::kinematics::Attachment;
use mbconv_ir::report::Report;
use mbconv_ir::{
    Body, Frame, Geometry, Inertial, Joint, JointKind, Model, MotorTarget, Pose, Shape, ShapeRole, Value,
};
use mbconv_xml::write::{XmlElement, serialize};
use nalgebra::{UnitQuaternion, Vector3};

/// What the writer cannot write (a model that did not go through [`super::lower::lower`]).
#[derive(Debug, thiserror::Error)]
pub(crate) enum EmitError {
    /// A tree joint MJCF has no element for.
    #[error("joint '{0}': a {1} joint must be lowered first (mbconv_mjcf::export::lower)")]
    Joint(String, &'static str),
    /// A tree joint met from its child side.
    #[error("joint '{0}' points towards the root: lower the model first")]
    Reversed(String),
    /// A kinematic tree nested deeper than MuJoCo reads.
    #[error(
        "body '{body}' would be the {depth}th <body> nested in the one before it, and MuJoCo reads at most {max} (its XML parser refuses deeper nesting); MJCF writes a kinematic tree only by nesting bodies, so this model cannot be written as MJCF MuJoCo loads: write it to a format that lists bodies flat (URDF, SDFormat, USD)",
        max = crate::MUJOCO_MAX_NESTED_BODIES
    )]
    TooDeep {
        /// The first body past the limit.
        body: String,
        /// How many `<body>` elements it would be nested in, itself included.
        depth: usize,
    },
}

impl miette::Diagnostic for EmitError {
    fn code<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        match self {
            Self::TooDeep { .. } => Some(Box::new("mjcf.too_deep")),
            Self::Joint(..) | Self::Reversed(_) => None,
        }
    }
}

fn nums(values: &[f64]) -> String {
    values
        .iter()
        .map(|x| format_number(*x))
        .collect::<Vec<_>>()
        .join(" ")
}

fn vec3(v: &Vector3<f64>) -> String {
    nums(&[v.x, v.y, v.z])
}

fn quat(q: &UnitQuaternion<f64>) -> String {
    let q = q.quaternion();
    nums(&[q.w, q.i, q.j, q.k])
}

fn is_identity(q: &UnitQuaternion<f64>) -> bool {
    let q = q.quaternion();
    q.w == 1.0 && q.i == 0.0 && q.j == 0.0 && q.k == 0.0
}

/// `pos` and `quat` attributes of a pose (left out when zero or identity).
fn placed(mut e: XmlElement, p: &Pose) -> XmlElement {
    if p.translation != Vector3::zeros() {
        e = e.attr("pos", vec3(&p.translation));
    }
    if !is_identity(&p.rotation) {
        e = e.attr("quat", quat(&p.rotation));
    }
    e
}

/// Writes `model` (lowered) as MJCF, with what reads the text back as written: the keyframe
/// [`INITIAL_KEY`] when the writer added it (the model does not start at rest). For a file
/// saved at `output`, mesh files the reader found are named relative to the output's folder,
/// where MuJoCo looks for them (as written when `output` is `None` or the mesh was not found).
///
/// [`INITIAL_KEY`]: super::keyframe::INITIAL_KEY
pub(crate) fn emit_exported(model: &Model, output: Option<&std::path::Path>) -> Result<Exported, EmitError> {
    let plan = Plan::new(model);
    refuse_deep_trees(model, &plan)?;
    let mut read_back = Options::default();
    let mut root = XmlElement::new("mujoco").attr("model", model.name.as_str());
    root = root.child(
        XmlElement::new("compiler")
            .attr("angle", "radian")
            .attr("inertiafromgeom", "false")
            .attr("autolimits", "true"),
    );
    let option = option(model);
    if !option.attributes.is_empty() || !option.children.is_empty() {
        root = root.child(option);
    }
    let (assets, meshes) = assets(model, output);
    if !assets.children.is_empty() {
        root = root.child(assets);
    }
    let mut world = XmlElement::new("worldbody");
    // The reader's holders of the world's geoms (fixed, massless bodies at the origin), one
    // per <worldbody> section it read: the first one's geoms here, each other in a section of
    // its own after this one.
    let mut more_worlds = Vec::new();
    let n = model.bodies.len();
    for f in &model.world_frames {
        world = world.child(site(f));
    }
    for &b in &plan.children[n] {
        let body = &model.bodies[b];
        if worldbody_holder(model, &plan, b) {
            let mut section = XmlElement::new("worldbody");
            for s in &body.shapes {
                section = section.child(geom(s, &meshes));
            }
            section = section.children(kept(body));
            if more_worlds.is_empty() && world.children.len() == model.world_frames.len() {
                world = world.children(section.children);
                more_worlds.push(XmlElement::new("worldbody"));
            } else {
                more_worlds.push(section);
            }
            continue;
        }
        world = world.child(body_element(model, &plan, b, &meshes)?);
    }
    root = root.child(world);
    root = root.children(more_worlds.into_iter().filter(|w| !w.children.is_empty()));
    let contact = super::excludes::contact(model, &plan);
    if !contact.children.is_empty() {
        root = root.child(contact);
    }
    let equality = equalities(model, &plan);
    if !equality.children.is_empty() {
        root = root.child(equality);
    }
    let mut actuator = XmlElement::new("actuator");
    for m in &model.motors {
        if let MotorTarget::Joint { joint, .. } = &m.target {
            actuator = actuator.child(
                XmlElement::new("motor")
                    .attr("name", m.name.as_str())
                    .attr("joint", joint.as_str()),
            );
        }
    }
    if !actuator.children.is_empty() {
        root = root.child(actuator);
    }
    if let Some(qvel) = super::keyframe::initial_qvel(model, &plan) {
        read_back.set("keyframe", super::keyframe::INITIAL_KEY);
        let numbers: Vec<String> = qvel.iter().map(|v| format_number(*v)).collect();
        root = root.child(
            XmlElement::new("keyframe").child(
                XmlElement::new("key")
                    .attr("name", super::keyframe::INITIAL_KEY)
                    .attr("qvel", numbers.join(" ")),
            ),
        );
    }
    let mut exported = Exported::text(serialize(&root), Report::default());
    exported.read_back = read_back;
    Ok(exported)
}

/// Refuses a tree whose `<body>` elements would nest deeper than MuJoCo reads
/// ([`crate::MUJOCO_MAX_NESTED_BODIES`]), naming the first body past the limit. One walk with an
/// explicit stack, so the writer's recursion ([`body_element`]) stays bounded.
fn refuse_deep_trees(model: &Model, plan: &Plan) -> Result<(), EmitError> {
    let n = model.bodies.len();
    let mut stack: Vec<(usize, usize)> = plan.children[n].iter().map(|&b| (b, 1)).collect();
    while let Some((b, depth)) = stack.pop() {
        if depth > crate::MUJOCO_MAX_NESTED_BODIES {
            return Err(EmitError::TooDeep {
                body: model.bodies[b].name.clone(),
                depth,
            });
        }
        stack.extend(plan.children[b].iter().map(|&c| (c, depth + 1)));
    }
    Ok(())
}

/// The body's `<camera>`, `<light>` and `<plugin>` elements the reader kept (`mjcf.kept`).
fn kept(body: &Body) -> Vec<XmlElement> {
    match body.extras.get("mjcf.kept") {
        Some(Value::List(items)) => items.iter().filter_map(verbatim).collect(),
        _ => Vec::new(),
    }
}

/// The element a verbatim value of the reader stands for (`{element, attributes…, children}`).
fn verbatim(v: &Value) -> Option<XmlElement> {
    let Value::Map(m) = v else { return None };
    let Some(Value::String(tag)) = m.get("element") else {
        return None;
    };
    let mut e = XmlElement::new(tag.as_str());
    for (k, v) in m.iter() {
        match (k, v) {
            ("element", _) => {}
            ("children", Value::List(c)) => e = e.children(c.iter().filter_map(verbatim)),
            (_, Value::String(x)) => e = e.attr(k, x.as_str()),
            _ => {}
        }
    }
    Some(e)
}

fn worldbody_holder(model: &Model, plan: &Plan, b: usize) -> bool {
    let body = &model.bodies[b];
    body.fixed
        && body.extras.get("mjcf.worldbody").is_some()
        && body.pose.is_exact_identity()
        && body.inertial.mass == 0.0
        && body.frames.is_empty()
        && plan.children[b].is_empty()
        && !model
            .joints
            .iter()
            .any(|j| j.parent.name() == Some(&body.name) || j.child.name() == Some(&body.name))
}

/// `<option>`: time step, gravity, the integrator and the `<flag>`s the reader kept. With
/// `<flag gravity="disable"/>` the written vector kept by the reader is restored beside it.
fn option(model: &Model) -> XmlElement {
    let sim = &model.simulation;
    let mut o = XmlElement::new("option");
    if let Some(dt) = sim.time_step {
        o = o.attr("timestep", format_number(dt));
    }
    let flags = match sim.extras.get("mjcf.option.flag") {
        Some(Value::Map(m)) => Some(m.clone()),
        _ => None,
    };
    let gravity_off = flags
        .as_ref()
        .is_some_and(|m| m.get("gravity") == Some(&Value::String("disable".into())));
    let gravity = match (sim.gravity, sim.extras.get("mjcf.gravity")) {
        (Some(g), Some(Value::List(kept))) if gravity_off && g == Vector3::zeros() && kept.len() == 3 => {
            let v: Vec<f64> = kept
                .iter()
                .map(|x| match x {
                    Value::Float(f) => *f,
                    _ => 0.0,
                })
                .collect();
            Some(Vector3::new(v[0], v[1], v[2]))
        }
        (g, _) => g,
    };
    // Without a gravity, MuJoCo's default (0, 0, -9.81) applies, which is mbconv's solver's.
    if let Some(g) = gravity {
        o = o.attr("gravity", vec3(&g));
    }
    if let Some(Value::String(i)) = sim.extras.get("mjcf.integrator") {
        o = o.attr("integrator", i.as_str());
    }
    if let Some(m) = flags {
        let mut f = XmlElement::new("flag");
        for (k, v) in m.iter() {
            if k != "element"
                && let Value::String(v) = v
            {
                f = f.attr(k, v.clone());
            }
        }
        o = o.child(f);
    }
    o
}

/// `<asset>`: a mesh per mesh file (and scale), a material per material name the geoms keep.
fn assets(model: &Model, output: Option<&std::path::Path>) -> (XmlElement, Vec<(String, [f64; 3], String)>) {
    let mut asset = XmlElement::new("asset");
    let mut meshes: Vec<(String, [f64; 3], String)> = Vec::new();
    let mut materials: Vec<String> = Vec::new();
    for body in &model.bodies {
        for s in &body.shapes {
            if let Geometry::Mesh(m) | Geometry::ConvexHull(m) = &s.geometry
                && !meshes.iter().any(|(u, sc, _)| *u == m.uri && *sc == m.scale)
            {
                let name = format!("mesh{}", meshes.len());
                let mut e = XmlElement::new("mesh")
                    .attr("name", name.as_str())
                    .attr("file", m.uri_for_output(output));
                if m.scale != [1.0; 3] {
                    e = e.attr("scale", nums(&m.scale));
                }
                if let Some(Value::String(inertia)) = s.extras.get(super::meshes::MESH_INERTIA) {
                    e = e.attr("inertia", inertia.as_str());
                }
                asset = asset.child(e);
                meshes.push((m.uri.clone(), m.scale, name));
            }
            if let Some(Value::String(name)) = s.extras.get("mjcf.material")
                && !materials.contains(name)
            {
                materials.push(name.clone());
                let mut e = XmlElement::new("material").attr("name", name.as_str());
                if let Some(rgba) = rgba(s) {
                    e = e.attr("rgba", rgba);
                }
                asset = asset.child(e);
            }
        }
    }
    (asset, meshes)
}

fn rgba(s: &Shape) -> Option<String> {
    let a = s.appearance.as_ref()?;
    let d = a.diffuse?;
    Some(nums(&[d[0], d[1], d[2], a.alpha.unwrap_or(1.0)]))
}

fn site(f: &Frame) -> XmlElement {
    placed(XmlElement::new("site").attr("name", f.name.as_str()), &f.pose)
}

fn geom(s: &Shape, meshes: &[(String, [f64; 3], String)]) -> XmlElement {
    let mut e = XmlElement::new("geom");
    if let Some(n) = &s.name {
        e = e.attr("name", n.as_str());
    }
    let mut pose = s.pose;
    e = match &s.geometry {
        Geometry::Sphere { radius } => e.attr("type", "sphere").attr("size", format_number(*radius)),
        Geometry::Box { size } => e
            .attr("type", "box")
            .attr("size", nums(&[size[0] / 2.0, size[1] / 2.0, size[2] / 2.0])),
        Geometry::Capsule { radius, length } => e
            .attr("type", "capsule")
            .attr("size", nums(&[*radius, length / 2.0])),
        Geometry::Cylinder { radius, length } => e
            .attr("type", "cylinder")
            .attr("size", nums(&[*radius, length / 2.0])),
        Geometry::Ellipsoid { radii } => e.attr("type", "ellipsoid").attr("size", nums(radii)),
        Geometry::Plane { normal, offset } => {
            // MJCF's plane is the geom frame's xy plane.
            if *normal != Vector3::z() || *offset != 0.0 {
                let n = normal.normalize();
                let turn = UnitQuaternion::rotation_between(&Vector3::z(), &n).unwrap_or_else(|| {
                    UnitQuaternion::from_axis_angle(&Vector3::x_axis(), std::f64::consts::PI)
                });
                pose = pose * Pose::new(n * *offset, turn);
            }
            let size = match s.extras.get("mjcf.size") {
                Some(Value::List(v)) if v.len() == 3 => v
                    .iter()
                    .map(|x| if let Value::Float(f) = x { *f } else { 0.0 })
                    .collect(),
                _ => vec![0.0, 0.0, 1.0],
            };
            e.attr("type", "plane").attr("size", nums(&size))
        }
        Geometry::Mesh(m) | Geometry::ConvexHull(m) => {
            let name = meshes
                .iter()
                .find(|(u, sc, _)| *u == m.uri && *sc == m.scale)
                .map_or("mesh", |(_, _, n)| n.as_str());
            e.attr("type", "mesh").attr("mesh", name)
        }
        _ => e,
    };
    e = placed(e, &pose);
    if s.role == ShapeRole::Visual {
        e = e.attr("contype", "0").attr("conaffinity", "0");
    }
    if let Some(Value::String(m)) = s.extras.get("mjcf.material") {
        e = e.attr("material", m.as_str());
    }
    if let Some(c) = rgba(s) {
        e = e.attr("rgba", c);
    }
    e
}

/// `<inertial>`: principal moments with the axes' rotation (`diaginertia`, `quat`) when the
/// tensor is diagonal in its axes, else the tensor in body axes (`fullinertia`).
fn inertial(i: &Inertial) -> XmlElement {
    let mut e = XmlElement::new("inertial")
        .attr("pos", vec3(&i.com))
        .attr("mass", format_number(i.mass));
    let t = i.inertia.0;
    let diagonal = t[0][1] == 0.0
        && t[0][2] == 0.0
        && t[1][2] == 0.0
        && t[1][0] == 0.0
        && t[2][0] == 0.0
        && t[2][1] == 0.0;
    if diagonal {
        if !is_identity(&i.inertia_rotation) {
            e = e.attr("quat", quat(&i.inertia_rotation));
        }
        e.attr("diaginertia", nums(&[t[0][0], t[1][1], t[2][2]]))
    } else {
        let m = if is_identity(&i.inertia_rotation) {
            i.inertia.matrix()
        } else {
            i.inertia_in_body_axes()
        };
        e.attr(
            "fullinertia",
            nums(&[m[(0, 0)], m[(1, 1)], m[(2, 2)], m[(0, 1)], m[(0, 2)], m[(1, 2)]]),
        )
    }
}

/// A kept value the reader zeroed under a `<flag … ="disable"/>`, when the IR value is zero.
fn flag_off(j: &Joint, field: &str, value: f64) -> f64 {
    match j.extras.get("mjcf.flag_off") {
        Some(Value::Map(m)) if value == 0.0 => match m.get(field) {
            Some(Value::Float(x)) => *x,
            _ => value,
        },
        _ => value,
    }
}

fn joint_element(j: &Joint, frame: &Pose) -> Result<XmlElement, EmitError> {
    let (kind, axis) = match &j.kind {
        JointKind::Revolute { axis } => ("hinge", Some(axis)),
        JointKind::Prismatic { axis } => ("slide", Some(axis)),
        JointKind::Spherical => ("ball", None),
        JointKind::Free if j.dofs.is_empty() => {
            return Ok(XmlElement::new("freejoint").attr("name", j.name.as_str()));
        }
        JointKind::Free => ("free", None),
        other => return Err(EmitError::Joint(j.name.clone(), other.type_name())),
    };
    let mut e = XmlElement::new("joint")
        .attr("name", j.name.as_str())
        .attr("type", kind);
    if frame.translation != Vector3::zeros() && kind != "free" {
        e = e.attr("pos", vec3(&frame.translation));
    }
    if let Some(a) = axis {
        e = e.attr("axis", vec3(&frame.rotation.transform_vector(a)));
    }
    let dof = j.dof(0);
    let single = axis.is_some();
    let stiffness = flag_off(j, "spring_stiffness", dof.spring_stiffness);
    if single && stiffness != 0.0 {
        e = e.attr("stiffness", format_number(stiffness));
    }
    if single && dof.spring_rest_position != 0.0 {
        e = e.attr("springref", format_number(dof.spring_rest_position));
    }
    let damping = flag_off(j, "damping", dof.damping);
    if damping != 0.0 {
        e = e.attr("damping", format_number(damping));
    }
    let friction = flag_off(j, "friction", dof.friction);
    if friction != 0.0 {
        e = e.attr("frictionloss", format_number(friction));
    }
    if dof.reflected_inertia() != 0.0 {
        e = e.attr("armature", format_number(dof.reflected_inertia()));
    }
    let mut limits = dof.position_limits;
    if limits.is_unlimited()
        && let Some(Value::Map(m)) = j.extras.get("mjcf.flag_off")
        && let Some(Value::List(l)) = m.get("position_limits")
        && let [Value::Float(lo), Value::Float(hi)] = l.as_slice()
    {
        limits = mbconv_ir::Limits::new(*lo, *hi);
    }
    if single && let (Some(lo), Some(hi)) = (limits.lower, limits.upper) {
        e = e.attr("limited", "true").attr("range", nums(&[lo, hi]));
    }
    Ok(e)
}

fn body_element(
    model: &Model,
    plan: &Plan,
    b: usize,
    meshes: &[(String, [f64; 3], String)],
) -> Result<XmlElement, EmitError> {
    let body: &Body = &model.bodies[b];
    if let Attachment::Joint {
        joint,
        reversed: true,
        ..
    } = plan.tree.attachments[b]
    {
        return Err(EmitError::Reversed(model.joints[joint].name.clone()));
    }
    let parent = plan.parent[b].map_or(Pose::identity(), |p| model.bodies[p].pose);
    // Normalised: the rotations composed here are a few ulps off unit norm, and MuJoCo (like the
    // reader) keeps a quaternion that close to unit as written, so the error would compound
    // down a chain.
    let mut rel = parent.inverse() * body.pose;
    rel.rotation = UnitQuaternion::new_normalize(*rel.rotation.quaternion());
    let mut e = placed(XmlElement::new("body").attr("name", body.name.as_str()), &rel);
    e = e.child(inertial(&body.inertial));
    let chain = &plan.chain[b];
    let frames = joint_frames(model, chain);
    for (&j, frame) in chain.iter().zip(&frames) {
        let joint = &model.joints[j];
        if joint.kind == JointKind::Fixed {
            continue;
        }
        let mut je = joint_element(joint, frame)?;
        // The reader's name for an unnamed joint comes back by itself (and names the massless
        // links of the body's joint chain as it did).
        let referenced = model
            .motors
            .iter()
            .any(|m| matches!(&m.target, MotorTarget::Joint { joint: n, .. } if *n == joint.name));
        let default = format!("{}.joint", body.name);
        let renamed = format!("{}/{default}", body.name);
        let unnamed = joint.name == default
            || joint.name == renamed
            || joint
                .name
                .strip_prefix(&format!("{renamed}#"))
                .is_some_and(|n| n.parse::<u32>().is_ok());
        if unnamed && !referenced {
            je.attributes.retain(|(k, _)| k != "name");
        }
        e = e.child(je);
    }
    for s in &body.shapes {
        e = e.child(geom(s, meshes));
    }
    for f in &body.frames {
        e = e.child(site(f));
    }
    e = e.children(kept(body));
    for &c in &plan.children[b] {
        e = e.child(body_element(model, plan, c, meshes)?);
    }
    Ok(e)
}

/// `<connect>` and `<weld>` for the ball and fixed joints outside the tree (loops, and
/// switched-off ones with `active="false"`).
fn equalities(model: &Model, plan: &Plan) -> XmlElement {
    let mut eq = XmlElement::new("equality");
    let tree: std::collections::HashSet<usize> = plan.tree.tree_joints().collect();
    for (j, joint) in model.joints.iter().enumerate() {
        if tree.contains(&j) || !matches!(joint.kind, JointKind::Spherical | JointKind::Fixed) {
            continue;
        }
        // body1 must be a body: a joint from the world is written from its child side.
        let (b1, b2, f1, f2) = match (joint.parent.name(), joint.child.name()) {
            (Some(p), c) => (p, c, joint.parent_frame, joint.child_frame),
            (None, Some(c)) => (c, None, joint.child_frame, joint.parent_frame),
            (None, None) => continue,
        };
        let pose_of = |name: Option<&str>| {
            name.and_then(|n| model.body(n))
                .map_or(Pose::identity(), |body| body.pose)
        };
        let mut e = if joint.kind == JointKind::Spherical {
            XmlElement::new("connect")
                .attr("name", joint.name.as_str())
                .attr("body1", b1)
                .attr("anchor", vec3(&f1.translation))
        } else {
            let mut e = XmlElement::new("weld")
                .attr("name", joint.name.as_str())
                .attr("body1", b1);
            // body2 in body1 where the weld holds; left out when that is where qpos0 puts it.
            let target = f1 * f2.inverse();
            let at_qpos0 = pose_of(Some(b1)).inverse() * pose_of(b2);
            if !(f2.is_exact_identity() && target == at_qpos0) {
                let q = target.rotation.quaternion();
                let t = target.translation;
                e = e.attr("relpose", nums(&[t.x, t.y, t.z, q.w, q.i, q.j, q.k]));
            }
            e
        };
        if let Some(c) = b2 {
            e = e.attr("body2", c);
        }
        let active = joint.enabled
            || matches!(joint.extras.get("mjcf.flag_off"), Some(Value::Map(m)) if m.get("enabled").is_some());
        if !active {
            e = e.attr("active", "false");
        }
        eq = eq.child(e);
    }
    eq
}
