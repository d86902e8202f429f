//! URDF document -> IR, following urdfdom's parser (the one Pinocchio, DART and ROS use) and
//! reporting where the loaders built on it, and Drake, disagree.
//!
//! Links become bodies whose frame is the link frame (the frame of the joint above them);
//! a joint's parent frame is its `<origin>` in the parent link's frame and its child frame
//! the identity, so the body poses are the joint origins composed from the root. A link named
//! `world` (declared or not) is the world.

use crate::raw::{self, URDF};
use crate::spec::{self, MeshLocation};
use mbconv_ir::format::kit::{ImportSession, SourceResult, aids};
use mbconv_ir::format::{Imported, Options, Source};
use mbconv_ir::report::{Category, Severity, SourceSpan, path};
use mbconv_ir::{
    ActuatorKind, Appearance, Body, BodyRef, DofProperties, Extras, Geometry, Inertia, Inertial, Joint,
    JointKind, Limits, MeshRef, Model, Pose, Shape, ShapeRole, Texture, Value,
};
use mbconv_xml::{
    Node, child, children, element_value, elements, qualified_name, span_of_attribute, span_of_node,
};
use nalgebra::Vector3;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

/// The extras key of a link or joint name changed to keep IR names unique.
const NAME: &str = "urdf.name";
/// The model extras key of the namespace prefixes declared on `<robot>` (prefix -> URI).
pub(crate) const XMLNS: &str = "urdf.xmlns";
/// The name URDF gives the world.
const WORLD: &str = "world";

pub(crate) fn import(source: &Source, options: &Options) -> SourceResult<Imported> {
    let document = raw::parse(source)?;
    let mut package_roots: Vec<PathBuf> = options
        .text(spec::PACKAGE_PATH)
        .filter(|t| *t != "none")
        .map(|t| {
            t.split(':')
                .filter(|p| !p.is_empty())
                .map(PathBuf::from)
                .collect()
        })
        .unwrap_or_default();
    if let Ok(ros) = std::env::var("ROS_PACKAGE_PATH") {
        package_roots.extend(ros.split(':').filter(|p| !p.is_empty()).map(PathBuf::from));
    }
    let mut reader = Reader {
        source,
        session: ImportSession::new("urdf", source),
        version_1_1: false,
        materials: Vec::new(),
        package_roots,
    };
    let free_root = options.choice(spec::ROOT, spec::ROOT_CHOICES) == Some("free");
    let root_given = options.text(spec::ROOT).is_some();
    let model = reader.robot(document.root_element(), free_root, root_given)?;
    Ok(reader.session.finish(model))
}

/// A link as read, before the tree is known.
struct LinkEntry<'a, 'input> {
    node: Node<'a, 'input>,
    body: Body,
}

/// A joint as read, with its link names.
struct JointEntry<'a, 'input> {
    node: Node<'a, 'input>,
    joint: Joint,
    parent: String,
    child: String,
}

struct Reader<'s> {
    source: &'s Source,
    session: ImportSession<'s>,
    /// `<robot version="1.1">`: `quat_xyzw` and capsules are URDF.
    version_1_1: bool,
    /// Global materials and materials named in visuals, in file order.
    materials: Vec<(String, Appearance)>,
    package_roots: Vec<PathBuf>,
}

impl<'s> Reader<'s> {
    fn span(&self, node: Node) -> SourceSpan {
        span_of_node(self.source, node)
    }

    fn warn(&mut self, code: &str, category: Category, at: &str, node: Node, message: impl Into<String>) {
        let span = Some(self.span(node));
        self.session
            .finding(code, Severity::Warning, category, at, span, message);
    }

    fn note(&mut self, code: &str, category: Category, at: &str, node: Node, message: impl Into<String>) {
        let span = Some(self.span(node));
        self.session
            .finding(code, Severity::Info, category, at, span, message);
    }

    fn robot(&mut self, robot: Node, free_root: bool, root_given: bool) -> SourceResult<Model> {
        let src = self.source;
        let name = URDF.required_attribute(src, robot, "name")?;
        self.version(robot)?;
        let mut model = Model::new(name);
        self.session.record("model", self.span(robot));
        // Namespace prefixes (`xmlns:gazebo`, `xmlns:drake`) that extension elements use: kept
        // so that the elements can be written back.
        let mut prefixes = mbconv_ir::ValueMap::new();
        for ns in robot.namespaces() {
            if let Some(prefix) = ns.name().filter(|p| *p != "xml") {
                prefixes.insert(prefix, Value::String(ns.uri().to_owned()));
            }
        }
        if !prefixes.is_empty() {
            model.extras.insert(XMLNS, Value::Map(prefixes));
        }
        for material in children(robot, "material") {
            self.global_material(material)?;
        }
        let mut links: Vec<LinkEntry> = Vec::new();
        let mut link_index: BTreeMap<String, usize> = BTreeMap::new();
        let mut world_node = None;
        for node in children(robot, "link") {
            let link_name = URDF.required_attribute(src, node, "name")?;
            if link_index.contains_key(link_name) || (link_name == WORLD && world_node.is_some()) {
                return Err(URDF.error(
                    src,
                    "duplicate_link",
                    Some(span_of_attribute(src, node, "name")),
                    format!("link {link_name:?} is not unique"),
                ));
            }
            if link_name == WORLD {
                world_node = Some(node);
                self.world_link(node);
                continue;
            }
            let body = self.link(node, link_name)?;
            link_index.insert(link_name.to_owned(), links.len());
            links.push(LinkEntry { node, body });
        }
        if links.is_empty() {
            return Err(URDF.error(
                src,
                "no_links",
                Some(self.span(robot)),
                "the robot has no links other than the world (urdfdom refuses it)",
            ));
        }
        let mut joints: Vec<JointEntry> = Vec::new();
        let mut joint_names = BTreeSet::new();
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
        self.check_mimics(&joints)?;
        let tree = self.tree(&links, &link_index, &joints, world_node.is_some())?;
        if let Some(kept) = self.transmissions(robot, &mut joints) {
            model.extras.insert("urdf.transmission", kept);
        }
        for element in elements(robot) {
            let tag = element.tag_name().name();
            if !matches!(tag, "link" | "joint" | "material" | "transmission") {
                push_extra(
                    &mut model.extras.0,
                    &format!("urdf.{}", qualified_name(element)),
                    element_value(element),
                );
                self.note(
                    "extension_kept",
                    Category::Note,
                    "model",
                    element,
                    format!(
                        "<{}> is not URDF proper: kept verbatim for URDF",
                        qualified_name(element)
                    ),
                );
            }
        }

        // Names: links and joints have separate namespaces in URDF, as in the IR.
        let mut bodies: Vec<Body> = Vec::with_capacity(links.len());
        for entry in &links {
            let mut body = entry.body.clone();
            let unique = self.session.unique_name("bodies", &body.name, "link");
            if unique != body.name {
                body.extras.insert(NAME, Value::String(body.name.clone()));
                body.name = unique;
            }
            self.session
                .record(path::item("bodies", &body.name), self.span(entry.node));
            bodies.push(body);
        }
        let ir_body = |name: &str| -> BodyRef {
            match link_index.get(name) {
                Some(&i) => BodyRef::body(bodies[i].name.clone()),
                None => BodyRef::World,
            }
        };
        let mut ir_joints = Vec::with_capacity(joints.len());
        for entry in &joints {
            let mut joint = entry.joint.clone();
            joint.parent = ir_body(&entry.parent);
            joint.child = ir_body(&entry.child);
            let unique = self.session.unique_name("joints", &joint.name, "joint");
            if unique != joint.name {
                joint.extras.insert(NAME, Value::String(joint.name.clone()));
                joint.name = unique;
            }
            self.session
                .record(path::item("joints", &joint.name), self.span(entry.node));
            ir_joints.push(joint);
        }

        // Poses: each link frame is its joint's origin composed from the root.
        let mut poses: Vec<Option<Pose>> = vec![None; links.len()];
        for i in 0..links.len() {
            let mut chain = Vec::new();
            let mut at = i;
            let mut pose = loop {
                if let Some(pose) = poses[at] {
                    break pose;
                }
                chain.push(at);
                match tree[at].0 {
                    Parent::Root | Parent::World => break Pose::identity(),
                    Parent::Link(p) => at = p,
                }
            };
            for &link in chain.iter().rev() {
                pose = match tree[link] {
                    (Parent::Root, _) => Pose::identity(),
                    (_, Some(j)) => pose * joints[j].joint.parent_frame,
                    (_, None) => pose,
                };
                poses[link] = Some(pose);
            }
        }
        for (body, pose) in bodies.iter_mut().zip(&poses) {
            body.pose = pose.unwrap_or_default();
        }

        // The root: URDF does not say what holds it.
        for (i, entry) in links.iter().enumerate() {
            if tree[i].0 != Parent::Root {
                continue;
            }
            let at = path::item("bodies", &bodies[i].name);
            let category = if root_given {
                Category::Note
            } else {
                Category::Defaulted
            };
            if free_root {
                self.note(
                    "root",
                    category,
                    &at,
                    entry.node,
                    format!(
                        "root link {:?} is free (root=free, as DART and Drake load it; Pinocchio and MuJoCo weld it: root=fixed)",
                        entry.body.name
                    ),
                );
            } else {
                bodies[i].fixed = true;
                self.note(
                    "root",
                    category,
                    &at,
                    entry.node,
                    format!(
                        "root link {:?} is welded to the world (root=fixed, the default, as Pinocchio and MuJoCo load it; DART and Drake make it free: root=free)",
                        entry.body.name
                    ),
                );
            }
        }
        model.bodies = bodies;
        model.joints = ir_joints;
        Ok(model)
    }

    /// `<robot version>`: absent is 1.0; urdfdom accepts `major.minor` for 1.0 and 1.1 only.
    fn version(&mut self, robot: Node) -> SourceResult<()> {
        let Some(version) = robot.attribute("version") else {
            return Ok(());
        };
        let parsed = version
            .split_once('.')
            .filter(|(a, b)| {
                !a.is_empty() && !b.is_empty() && (a.bytes().chain(b.bytes())).all(|c| c.is_ascii_digit())
            })
            .and_then(|(a, b)| Some((a.parse::<u32>().ok()?, b.parse::<u32>().ok()?)));
        match parsed {
            Some((1, 0)) => Ok(()),
            Some((1, 1)) => {
                self.version_1_1 = true;
                Ok(())
            }
            Some(_) => Err(URDF.error(
                self.source,
                "version",
                Some(span_of_attribute(self.source, robot, "version")),
                format!("URDF version {version:?} is not supported: urdfdom reads versions 1.0 and 1.1"),
            )),
            None => Err(URDF.error(
                self.source,
                "version",
                Some(span_of_attribute(self.source, robot, "version")),
                format!("the URDF version must be `major.minor` (\"1.0\", \"1.1\"), found {version:?}"),
            )),
        }
    }

    /// A link named `world` is the world: it has no body, so what it carries is dropped.
    fn world_link(&mut self, node: Node) {
        self.note(
            "world_declared",
            Category::Note,
            "model",
            node,
            "the link \"world\" is the world (Pinocchio keeps it as a frame of its universe, MuJoCo and Drake as the world body)",
        );
        for element in elements(node) {
            self.warn(
                "world_content",
                Category::Dropped,
                "model",
                element,
                format!(
                    "<{}> of the link \"world\" is dropped: that link is the world, which has no body",
                    element.tag_name().name()
                ),
            );
        }
    }

    // ---- origins -------------------------------------------------------------------------

    /// `<origin xyz rpy | quat_xyzw>`, identity when absent. The angles or quaternion as
    /// written are kept in `extras` under `urdf.source.<aid>rpy` (or `quat_xyzw`) when the
    /// writer would not give them back bit for bit from the rotation.
    fn origin(&mut self, parent: Node, at: &str, extras: &mut Extras, aid: &str) -> SourceResult<Pose> {
        let Some(origin) = child(parent, "origin") else {
            return Ok(Pose::identity());
        };
        self.pose_of(origin, at, extras, aid)
    }

    fn pose_of(&mut self, origin: Node, at: &str, extras: &mut Extras, aid: &str) -> SourceResult<Pose> {
        let src = self.source;
        let xyz = URDF.attribute_fixed::<3>(src, origin, "xyz")?.unwrap_or([0.0; 3]);
        let rpy = URDF.attribute_fixed::<3>(src, origin, "rpy")?;
        let quat = URDF.attribute_fixed::<4>(src, origin, "quat_xyzw")?;
        let rotation = match (rpy, quat) {
            (Some(_), Some(_)) if self.version_1_1 => {
                return Err(URDF.error(
                    src,
                    "origin",
                    Some(span_of_attribute(src, origin, "quat_xyzw")),
                    "<origin> has both `rpy` and `quat_xyzw`: give one",
                ));
            }
            (_, Some(_)) if !self.version_1_1 => {
                self.warn(
                    "quat_ignored",
                    Category::Ignored,
                    at,
                    origin,
                    "`quat_xyzw` is URDF 1.1 and this file is 1.0 (no `version=\"1.1\"` on <robot>): ignored, as urdfdom ignores it",
                );
                spec::rpy(rpy.unwrap_or([0.0; 3]))
            }
            (None, Some([x, y, z, w])) => match mbconv_ir::rotation::normalize_wxyz([w, x, y, z]) {
                Some((q, norm)) => {
                    if (norm - 1.0).abs() > 1e-6 {
                        self.warn(
                            "quat_normalized",
                            Category::Approximated,
                            at,
                            origin,
                            format!("`quat_xyzw` has norm {norm}: normalised"),
                        );
                    }
                    q
                }
                None => {
                    return Err(URDF.error(
                        src,
                        "origin",
                        Some(span_of_attribute(src, origin, "quat_xyzw")),
                        "`quat_xyzw` is zero or not finite: it is no rotation",
                    ));
                }
            },
            (rpy, _) => spec::rpy(rpy.unwrap_or([0.0; 3])),
        };
        match (rpy, quat) {
            (_, Some(written)) if self.version_1_1 => {
                let fresh = spec::quat_xyzw(&rotation);
                aids::keep(extras, "urdf", &format!("{aid}quat_xyzw"), &written, &fresh);
            }
            (Some(written), _) => {
                let fresh = spec::rpy_angles(&rotation);
                aids::keep(extras, "urdf", &format!("{aid}rpy"), &written, &fresh);
            }
            _ => {}
        }
        Ok(Pose::new(Vector3::from(xyz), rotation))
    }

    // ---- materials -----------------------------------------------------------------------

    /// The colour and texture a `<material>` states, if it states any.
    fn material_content(&mut self, node: Node) -> SourceResult<Option<Appearance>> {
        let src = self.source;
        let mut appearance = Appearance::default();
        let mut any = false;
        if let Some(color) = child(node, "color") {
            let rgba = URDF.attribute_fixed::<4>(src, color, "rgba")?.ok_or_else(|| {
                URDF.error(
                    src,
                    "attribute",
                    Some(self.span(color)),
                    "<color> needs the attribute `rgba`",
                )
            })?;
            appearance.diffuse = Some([rgba[0], rgba[1], rgba[2]]);
            appearance.alpha = Some(rgba[3]);
            any = true;
        }
        if let Some(texture) = child(node, "texture") {
            let file = URDF.required_attribute(src, texture, "filename")?;
            appearance.texture = Some(Texture {
                uri: file.to_owned(),
                repeat_s: true,
                repeat_t: true,
            });
            any = true;
        }
        Ok(any.then_some(appearance))
    }

    fn global_material(&mut self, node: Node) -> SourceResult<()> {
        let src = self.source;
        let name = URDF.required_attribute(src, node, "name")?;
        if self.materials.iter().any(|(n, _)| n == name) {
            return Err(URDF.error(
                src,
                "duplicate_material",
                Some(span_of_attribute(src, node, "name")),
                format!("material {name:?} is not unique"),
            ));
        }
        let appearance = self.material_content(node)?.unwrap_or_default();
        self.materials.push((name.to_owned(), appearance));
        Ok(())
    }

    /// A visual's `<material>`: its own colour or texture, else the global material it names
    /// (urdfdom refuses a name it does not know). A named material with content defines that
    /// name for the visuals after it, as in urdfdom.
    fn visual_material(&mut self, node: Node, link: &str) -> SourceResult<(Appearance, Option<String>)> {
        let src = self.source;
        let name = node.attribute("name");
        if let Some(appearance) = self.material_content(node)? {
            if name.is_none() {
                self.warn(
                    "material_unnamed",
                    Category::Note,
                    &format!("bodies[{link:?}]"),
                    node,
                    "a <material> without a name: read, as Drake reads it; urdfdom (Pinocchio, DART) refuses it",
                );
            }
            if let Some(name) = name
                && !self.materials.iter().any(|(n, _)| n == name)
            {
                self.materials.push((name.to_owned(), appearance.clone()));
            }
            return Ok((appearance, name.map(str::to_owned)));
        }
        let name = URDF.required_attribute(src, node, "name")?;
        match self.materials.iter().find(|(n, _)| n == name) {
            Some((_, appearance)) => Ok((appearance.clone(), Some(name.to_owned()))),
            None => Err(URDF.error(
                src,
                "material",
                Some(span_of_attribute(src, node, "name")),
                format!("link {link:?}: material {name:?} is not defined (no global <material name={name:?}> and no colour or texture here)"),
            )),
        }
    }

    // ---- links ---------------------------------------------------------------------------

    fn link(&mut self, node: Node, name: &str) -> SourceResult<Body> {
        let at = path::item("bodies", name);
        let mut body = Body::new(name);
        match child(node, "inertial") {
            Some(inertial) => body.inertial = self.inertial(inertial, &at, &mut body.extras)?,
            None => {
                body.inertial = Inertial {
                    mass: 0.0,
                    inertia: Inertia([[0.0; 3]; 3]),
                    ..Inertial::default()
                };
                self.session.defaulted(
                    &path::field(&at, "inertial"),
                    Some(self.span(node)),
                    format!(
                        "link {name:?} has no <inertial>: massless, as urdfdom, Pinocchio and Drake read it"
                    ),
                );
            }
        }
        for element in elements(node) {
            let tag = element.tag_name().name();
            match tag {
                "inertial" => {}
                "visual" | "collision" => {
                    let role = if tag == "visual" {
                        ShapeRole::Visual
                    } else {
                        ShapeRole::Collision
                    };
                    let shape_at = path::index(&at, "shapes", body.shapes.len());
                    if let Some(shape) = self.shape(element, role, name, &shape_at)? {
                        self.session.record(shape_at, self.span(element));
                        body.shapes.push(shape);
                    }
                }
                _ => {
                    push_extra(
                        &mut body.extras.0,
                        &format!("urdf.{}", qualified_name(element)),
                        element_value(element),
                    );
                    self.note(
                        "extension_kept",
                        Category::Note,
                        &at,
                        element,
                        format!(
                            "<{}> of link {name:?} is not URDF proper: kept verbatim for URDF",
                            qualified_name(element)
                        ),
                    );
                }
            }
        }
        if let Some(second) = children(node, "inertial").nth(1) {
            self.warn(
                "ignored",
                Category::Ignored,
                &at,
                second,
                "a second <inertial> is ignored: urdfdom reads the first",
            );
        }
        Ok(body)
    }

    fn inertial(&mut self, node: Node, at: &str, extras: &mut Extras) -> SourceResult<Inertial> {
        let src = self.source;
        let origin = self.origin(node, at, extras, "inertial.origin.")?;
        // urdfdom reads an <inertial> without <mass> or <inertia> (Pinocchio loads such
        // files; MuJoCo refuses them): zero mass, zero tensor.
        let mass = match child(node, "mass") {
            Some(mass_node) => URDF.attribute_scalar(src, mass_node, "value")?.ok_or_else(|| {
                URDF.error(
                    src,
                    "attribute",
                    Some(self.span(mass_node)),
                    "<mass> needs the attribute `value`",
                )
            })?,
            None => {
                self.session.defaulted(
                    &path::field(at, "inertial"),
                    Some(self.span(node)),
                    "<inertial> has no <mass>: 0, as urdfdom reads it",
                );
                0.0
            }
        };
        let mut v = [0.0; 6];
        match child(node, "inertia") {
            Some(inertia_node) => {
                for (k, key) in ["ixx", "ixy", "ixz", "iyy", "iyz", "izz"].iter().enumerate() {
                    v[k] = URDF.attribute_scalar(src, inertia_node, key)?.ok_or_else(|| {
                        URDF.error(
                            src,
                            "attribute",
                            Some(self.span(inertia_node)),
                            format!("<inertia> needs the attribute `{key}`"),
                        )
                    })?;
                }
            }
            None => self.session.defaulted(
                &path::field(at, "inertial"),
                Some(self.span(node)),
                "<inertial> has no <inertia>: a zero tensor, as urdfdom reads it (MuJoCo refuses the file)",
            ),
        }
        let [ixx, ixy, ixz, iyy, iyz, izz] = v;
        Ok(Inertial {
            mass,
            com: origin.translation,
            inertia: Inertia([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]]),
            inertia_rotation: origin.rotation,
        })
    }

    /// A `<visual>` or `<collision>`; `None` for a geometry the reader leaves out.
    fn shape(&mut self, node: Node, role: ShapeRole, link: &str, at: &str) -> SourceResult<Option<Shape>> {
        let src = self.source;
        let mut spelling = Extras::default();
        let pose = self.origin(node, at, &mut spelling, "origin.")?;
        let geometry_node = URDF.required_child(src, node, "geometry")?;
        let Some(geometry) = self.geometry(geometry_node, at)? else {
            return Ok(None);
        };
        let mut shape = Shape::new(role, geometry);
        shape.pose = pose;
        shape.extras = spelling;
        shape.name = node.attribute("name").map(str::to_owned);
        for element in elements(node) {
            match element.tag_name().name() {
                "origin" | "geometry" => {}
                "material" if role == ShapeRole::Visual => {
                    let (appearance, name) = self.visual_material(element, link)?;
                    shape.appearance = Some(appearance);
                    if let Some(name) = name {
                        shape.extras.insert("urdf.material", Value::String(name));
                    }
                }
                _ => {
                    push_extra(
                        &mut shape.extras.0,
                        &format!("urdf.{}", qualified_name(element)),
                        element_value(element),
                    );
                    self.note(
                        "extension_kept",
                        Category::Note,
                        at,
                        element,
                        format!(
                            "<{}> is not URDF proper here: kept verbatim for URDF",
                            qualified_name(element)
                        ),
                    );
                }
            }
        }
        Ok(Some(shape))
    }

    /// The shape of a `<geometry>`; `None` (with a finding) for a geometry urdfdom does not
    /// know, which it skips.
    fn geometry(&mut self, node: Node, at: &str) -> SourceResult<Option<Geometry>> {
        let src = self.source;
        let Some(kind) = elements(node).next() else {
            return Err(URDF.error(
                src,
                "geometry",
                Some(self.span(node)),
                "<geometry> has no shape element",
            ));
        };
        let number = |name: &str| -> SourceResult<f64> {
            URDF.attribute_scalar(src, kind, name)?.ok_or_else(|| {
                URDF.error(
                    src,
                    "attribute",
                    Some(span_of_node(src, kind)),
                    format!("<{}> needs the attribute `{name}`", kind.tag_name().name()),
                )
            })
        };
        Ok(Some(match qualified_name(kind).as_str() {
            "box" => Geometry::Box {
                size: URDF.attribute_fixed::<3>(src, kind, "size")?.ok_or_else(|| {
                    URDF.error(
                        src,
                        "attribute",
                        Some(span_of_node(src, kind)),
                        "<box> needs the attribute `size`",
                    )
                })?,
            },
            "sphere" => Geometry::Sphere {
                radius: number("radius")?,
            },
            "cylinder" => Geometry::Cylinder {
                radius: number("radius")?,
                length: number("length")?,
            },
            "capsule" => {
                let geometry = Geometry::Capsule {
                    radius: number("radius")?,
                    length: number("length")?,
                };
                if !self.version_1_1 {
                    self.note(
                        "capsule",
                        Category::Note,
                        at,
                        kind,
                        "<capsule> is URDF 1.1 (this file says 1.0): read as a capsule, as Drake and newer urdfdom read it; older urdfdom refuses it",
                    );
                }
                geometry
            }
            "mesh" => {
                let uri = URDF.required_attribute(src, kind, "filename")?;
                let mut mesh = MeshRef::new(uri);
                if let Some(scale) = URDF.attribute_fixed::<3>(src, kind, "scale")? {
                    mesh.scale = scale;
                }
                match spec::resolve_mesh(uri, src.base_dir(), &self.package_roots) {
                    MeshLocation::File(path) => mesh.resolved_path = Some(path.display().to_string()),
                    MeshLocation::UnresolvedPackage(package) => self.warn(
                        "package_unresolved",
                        Category::Note,
                        at,
                        kind,
                        format!(
                            "package {package:?} of {uri:?} is not found under the package_path setting or ROS_PACKAGE_PATH: the URI is kept as written"
                        ),
                    ),
                    MeshLocation::Other => {}
                }
                if elements(kind).any(|e| qualified_name(e) == "drake:declare_convex") {
                    self.note(
                        "convex",
                        Category::Note,
                        at,
                        kind,
                        "<drake:declare_convex/>: the mesh is its convex hull, as Drake reads it",
                    );
                    Geometry::ConvexHull(mesh)
                } else {
                    Geometry::Mesh(mesh)
                }
            }
            "drake:ellipsoid" => {
                self.note(
                    "ellipsoid",
                    Category::Note,
                    at,
                    kind,
                    "<drake:ellipsoid> is Drake's extension: read as an ellipsoid, as Drake reads it; urdfdom skips it",
                );
                Geometry::Ellipsoid {
                    radii: [number("a")?, number("b")?, number("c")?],
                }
            }
            other => {
                self.warn(
                    "geometry_dropped",
                    Category::Dropped,
                    at,
                    kind,
                    format!("unknown geometry <{other}>: left out, as urdfdom leaves it out (URDF has box, cylinder, sphere, capsule and mesh)"),
                );
                return Ok(None);
            }
        }))
    }

    // ---- joints --------------------------------------------------------------------------

    fn joint<'a, 'input>(&mut self, node: Node<'a, 'input>) -> SourceResult<JointEntry<'a, 'input>> {
        let src = self.source;
        let name = URDF.required_attribute(src, node, "name")?;
        let at = path::item("joints", name);
        let type_name = URDF.required_attribute(src, node, "type")?;
        let link_of = |tag: &str| -> SourceResult<String> {
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
        };
        let parent = link_of("parent")?;
        let child_link = link_of("child")?;
        let mut spelling = Extras::default();
        let origin = self.origin(node, &at, &mut spelling, "origin.")?;
        let axis = match type_name {
            "revolute" | "continuous" | "prismatic" | "planar" => Some(self.axis(node, &at)?),
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
        let mut joint = Joint::new(name, kind, BodyRef::World, BodyRef::World);
        joint.parent_frame = origin;
        joint.extras = spelling;
        if type_name == "planar" {
            joint.extras.insert(
                "urdf.axis",
                Value::List(axis_value.iter().map(|v| Value::Float(*v)).collect()),
            );
        }
        let one_dof = matches!(type_name, "revolute" | "continuous" | "prismatic");
        let mut dof = DofProperties::default();
        self.limits(node, type_name, &at, &mut dof)?;
        if let Some(dynamics) = child(node, "dynamics") {
            let damping = URDF.attribute_scalar(src, dynamics, "damping")?.unwrap_or(0.0);
            let friction = URDF.attribute_scalar(src, dynamics, "friction")?.unwrap_or(0.0);
            if one_dof {
                dof.damping = damping;
                dof.friction = friction;
            } else if damping != 0.0 || friction != 0.0 {
                self.warn(
                    "dynamics_ignored",
                    Category::Ignored,
                    &at,
                    dynamics,
                    format!(
                        "<dynamics> of the {type_name} joint {name:?} is ignored, as the loaders ignore it"
                    ),
                );
            }
        }
        if one_dof && dof != DofProperties::default() {
            joint.dofs = vec![dof];
        }
        for element in elements(node) {
            let tag = element.tag_name().name();
            match tag {
                "origin" | "parent" | "child" | "axis" | "limit" | "dynamics" => {}
                "mimic" => {
                    URDF.required_attribute(src, element, "joint")?;
                    URDF.attribute_scalar(src, element, "multiplier")?;
                    URDF.attribute_scalar(src, element, "offset")?;
                    joint.extras.insert("urdf.mimic", element_value(element));
                    self.warn(
                        "mimic",
                        Category::Ignored,
                        &at,
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
                    joint.extras.insert(format!("urdf.{tag}"), element_value(element));
                    self.note(
                        "kept",
                        Category::Note,
                        &at,
                        element,
                        format!("<{tag}> does not move the model: kept verbatim for URDF"),
                    );
                }
                _ => {
                    push_extra(
                        &mut joint.extras.0,
                        &format!("urdf.{}", qualified_name(element)),
                        element_value(element),
                    );
                    self.note(
                        "extension_kept",
                        Category::Note,
                        &at,
                        element,
                        format!(
                            "<{}> of joint {name:?} is not URDF proper: kept verbatim for URDF",
                            qualified_name(element)
                        ),
                    );
                }
            }
        }
        Ok(JointEntry {
            node,
            joint,
            parent,
            child: child_link,
        })
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
            self.warn(
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
            dof.position_limits = Limits::new(lower.unwrap_or(0.0), upper.unwrap_or(0.0));
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

    fn check_mimics(&self, joints: &[JointEntry]) -> SourceResult<()> {
        for entry in joints {
            if let Some(mimic) = child(entry.node, "mimic") {
                let target = mimic.attribute("joint").unwrap_or_default();
                if !joints.iter().any(|j| j.joint.name == target) {
                    return Err(URDF.error(
                        self.source,
                        "mimic",
                        Some(span_of_attribute(self.source, mimic, "joint")),
                        format!(
                            "joint {:?} mimics {target:?}, which is no joint of this file",
                            entry.joint.name
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Checks the joints make a tree over the links (each link at most one parent, every
    /// link reached from one root or from the world) and returns each link's parent.
    fn tree(
        &mut self,
        links: &[LinkEntry],
        index: &BTreeMap<String, usize>,
        joints: &[JointEntry],
        world_declared: bool,
    ) -> SourceResult<Vec<(Parent, Option<usize>)>> {
        let src = self.source;

        let mut parent: Vec<Option<(Parent, usize)>> = vec![None; links.len()];
        let mut implicit_world = false;
        for (j, entry) in joints.iter().enumerate() {
            let child_element = child(entry.node, "child").unwrap_or(entry.node);
            let parent_element = child(entry.node, "parent").unwrap_or(entry.node);
            if entry.child == WORLD {
                return Err(URDF.error(
                    src,
                    "world_child",
                    Some(span_of_attribute(src, child_element, "link")),
                    format!(
                        "joint {:?} has the world as its child: the world has no parent",
                        entry.joint.name
                    ),
                ));
            }
            let Some(&c) = index.get(&entry.child) else {
                return Err(URDF.error(
                    src,
                    "unknown_link",
                    Some(span_of_attribute(src, child_element, "link")),
                    format!(
                        "child link {:?} of joint {:?} not found",
                        entry.child, entry.joint.name
                    ),
                ));
            };
            let p = if entry.parent == WORLD {
                if !world_declared && !implicit_world {
                    implicit_world = true;
                    self.warn(
                        "world_undeclared",
                        Category::Note,
                        &path::item("joints", &entry.joint.name),
                        parent_element,
                        "the parent link \"world\" is not declared: read as the world, as Drake reads it; urdfdom (Pinocchio, DART) refuses the file (add <link name=\"world\"/>)",
                    );
                }
                Parent::World
            } else {
                match index.get(&entry.parent) {
                    Some(&p) => Parent::Link(p),
                    None => {
                        return Err(URDF.error(
                            src,
                            "unknown_link",
                            Some(span_of_attribute(src, parent_element, "link")),
                            format!(
                                "parent link {:?} of joint {:?} not found",
                                entry.parent, entry.joint.name
                            ),
                        ));
                    }
                }
            };
            if p == Parent::Link(c) {
                return Err(URDF.error(
                    src,
                    "loop",
                    Some(span_of_attribute(src, child_element, "link")),
                    format!(
                        "joint {:?} joins link {:?} to itself",
                        entry.joint.name, entry.child
                    ),
                ));
            }
            if let Some((_, first)) = parent[c] {
                return Err(URDF.error(
                    src,
                    "multi_parent",
                    Some(span_of_attribute(src, child_element, "link")),
                    format!(
                        "link {:?} has two parent joints, {:?} and {:?}: a kinematic loop, which URDF cannot describe (every URDF loader refuses it)",
                        entry.child, joints[first].joint.name, entry.joint.name
                    ),
                ));
            }
            parent[c] = Some((p, j));
        }
        let roots: Vec<usize> = (0..links.len()).filter(|&i| parent[i].is_none()).collect();
        if roots.len() > 1 {
            let names: Vec<&str> = roots.iter().map(|&i| links[i].body.name.as_str()).collect();
            return Err(URDF.error(
                src,
                "roots",
                Some(self.span(links[roots[1]].node)),
                format!(
                    "more than one root link ({}): the links do not form one tree (urdfdom refuses it)",
                    names.join(", ")
                ),
            ));
        }
        let result: Vec<Parent> = parent
            .iter()
            .map(|p| p.map_or(Parent::Root, |(p, _)| p))
            .collect();
        // Every link must reach the root or the world; a link on a cycle never does.
        for start in 0..links.len() {
            let mut at = start;
            let mut steps = 0;
            while let Parent::Link(p) = result[at] {
                at = p;
                steps += 1;
                if steps > links.len() {
                    let (_, j) = parent[start].unwrap_or((Parent::Root, 0));
                    return Err(URDF.error(
                        src,
                        "loop",
                        Some(self.span(joints[j].node)),
                        format!(
                            "link {:?} is on a cycle of joints: URDF describes trees (urdfdom finds no root)",
                            links[start].body.name
                        ),
                    ));
                }
            }
        }
        Ok(parent
            .iter()
            .map(|p| p.map_or((Parent::Root, None), |(p, j)| (p, Some(j))))
            .collect())
    }

    /// `<transmission>`: kept verbatim (model extras `urdf.transmission`, a list), and the
    /// joints it drives get the actuator its hardware interface names.
    fn transmissions(&mut self, robot: Node, joints: &mut [JointEntry]) -> Option<Value> {
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

/// What holds a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Parent {
    /// Nothing: the root link.
    Root,
    /// A joint from the world.
    World,
    /// A joint from this link.
    Link(usize),
}

/// Adds an extras entry; a key met again becomes a list, in file order.
fn push_extra(map: &mut mbconv_ir::ValueMap, key: &str, value: Value) {
    match map.0.iter_mut().find(|(k, _)| k == key) {
        None => map.insert(key, value),
        Some((_, Value::List(items))) => items.push(value),
        Some((_, slot)) => {
            let first = std::mem::take(slot);
            *slot = Value::List(vec![first, value]);
        }
    }
}
