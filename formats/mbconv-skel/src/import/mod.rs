//! SKEL document -> IR, applying DART 6.20's reading rules and reporting each implicit one.

mod body;
mod joint;

pub use joint::orthonormal_plane;

use crate::raw::{self, child, children, elements, span_of_node};
use crate::velocity;
use crate::verbatim::element_value;
use mbconv_ir::format::{Imported, Source, SourceError, SourceMap};
use mbconv_ir::kinematics::relative_pose;
use mbconv_ir::report::path;
use mbconv_ir::rotation::skel::xyz_to_quaternion;
use mbconv_ir::{
    Body, BodyRef, Category, DofProperties, Finding, Group, GroupType, Joint, JointKind, Model, Pose, Report,
    Severity, Value,
};
use nalgebra::Vector3;
use roxmltree::Node;
use std::collections::{HashMap, HashSet};

/// Extras key of the original `<transformation>` numbers (body, joint, shape, skeleton): an
/// exactness aid (`skel.source.*`), which other formats ignore.
pub const TRANSFORMATION: &str = "skel.source.transformation";
/// Extras key of a name changed to make it unique across skeletons.
pub const NAME: &str = "skel.name";
/// Extras key of a free joint's `init_vel` as written (DART order): an exactness aid.
pub const INIT_VEL: &str = "skel.source.init_vel";
/// Extras key of a model read from a file with `<skeleton>` directly under `<skel>`.
pub const NO_WORLD: &str = "skel.no_world";
/// Extras key of the soft-body elements of a body.
pub const SOFT_SHAPE: &str = "skel.soft_shape";
/// Extras key of an arbitrary planar joint's translation axes as written (DART orthonormalises
/// them): an exactness aid.
pub const PLANE_AXES: &str = "skel.source.plane_axes";
/// Extras key of a plane's deprecated `<point>`.
pub const PLANE_POINT: &str = "skel.plane_point";

/// DART's world defaults.
pub const DEFAULT_GRAVITY: [f64; 3] = [0.0, 0.0, -9.81];
/// DART's default time step.
pub const DEFAULT_TIME_STEP: f64 = 0.001;

/// Reads a SKEL file into the IR.
pub fn import(source: &Source) -> Result<Imported, SourceError> {
    let document = raw::parse(source)?;
    let root = document.root_element();
    let mut importer = Importer {
        source,
        report: Report::for_file(&source.name),
        map: SourceMap::new(),
        model: Model::new("world"),
        names: HashMap::new(),
    };
    if let Some(version) = root.attribute("version")
        && version != "1.0"
    {
        importer
            .model
            .extras
            .insert("skel.version", Value::String(version.to_owned()));
    }
    match child(root, "world") {
        Some(world) => importer.world(world)?,
        None => {
            let skeleton = raw::required_child(source, root, "skeleton").map_err(|_| {
                source.error(
                    "skel.missing",
                    Some(span_of_node(source, root)),
                    "<skel> needs a <world> element (or a single <skeleton>)",
                )
            })?;
            importer.model.extras.insert(NO_WORLD, Value::Bool(true));
            importer.note(
                "skel.no_world",
                Severity::Info,
                Category::Note,
                "model",
                Some(skeleton),
                "no <world>: read the first <skeleton> as DART's readSkeleton does (readWorld refuses this file)",
            );
            importer.model.name = skeleton.attribute("name").unwrap_or("skeleton").to_owned();
            importer.defaults_physics();
            importer.skeleton(skeleton)?;
        }
    }
    Ok(Imported {
        model: importer.model,
        report: importer.report,
        source_map: importer.map,
    })
}

struct Importer<'s> {
    source: &'s Source,
    report: Report,
    map: SourceMap,
    model: Model,
    /// Names taken per IR list (`bodies`, `joints`, `groups`).
    names: HashMap<&'static str, HashSet<String>>,
}

/// A body as read, before the skeleton is assembled.
struct BodyEntry<'a, 'i> {
    node: Node<'a, 'i>,
    original: String,
    body: Body,
    has_moment: bool,
    has_inertia: bool,
    mesh_extents: Vec<Option<[f64; 3]>>,
}

/// A joint as read, in DART's coordinate order.
struct JointEntry<'a, 'i> {
    node: Node<'a, 'i>,
    original: String,
    joint: Joint,
    parent: Option<String>,
    child: String,
    dart_q: Vec<f64>,
    dart_v: Vec<f64>,
    dart_dofs: Vec<DofProperties>,
    v_given: bool,
}

impl<'s> Importer<'s> {
    fn span(&self, node: Node) -> Option<mbconv_ir::SourceSpan> {
        Some(span_of_node(self.source, node))
    }

    fn note(
        &mut self,
        code: &str,
        severity: Severity,
        category: Category,
        at: impl Into<String>,
        node: Option<Node>,
        message: impl Into<String>,
    ) {
        let span = node.and_then(|n| self.span(n));
        self.report.push(
            Finding::new(code, severity, category, message)
                .at(at)
                .with_span(span),
        );
    }

    fn error(&self, code: &str, node: Node, message: impl Into<String>) -> SourceError {
        self.source.error(code, self.span(node), message)
    }

    /// A unique IR name for `wanted` in `list`, recording a rename.
    fn unique(&mut self, list: &'static str, wanted: &str, prefix: &str) -> String {
        let taken = self.names.entry(list).or_default();
        let mut name = wanted.to_owned();
        if taken.contains(&name) {
            name = format!("{prefix}/{wanted}");
            let mut n = 2;
            while taken.contains(&name) {
                name = format!("{prefix}/{wanted}#{n}");
                n += 1;
            }
        }
        taken.insert(name.clone());
        if name != wanted {
            let item = list.trim_end_matches('s').trim_end_matches("ie");
            let item = if list == "bodies" { "body" } else { item };
            self.report.rename(item, wanted, &name, path::item(list, &name));
        }
        name
    }

    fn defaults_physics(&mut self) {
        self.model.simulation.gravity = Some(Vector3::from(DEFAULT_GRAVITY));
        self.model.simulation.time_step = Some(DEFAULT_TIME_STEP);
    }

    fn world(&mut self, world: Node) -> Result<(), SourceError> {
        self.model.name = world.attribute("name").unwrap_or("Unknown world").to_owned();
        self.map.insert("model".into(), span_of_node(self.source, world));
        self.defaults_physics();
        match child(world, "physics") {
            Some(physics) => self.physics(physics)?,
            None => self.note(
                "skel.default_physics",
                Severity::Info,
                Category::Defaulted,
                "simulation",
                Some(world),
                "no <physics>: DART's defaults apply (gravity 0 0 -9.81, time step 0.001 s)",
            ),
        }
        for element in elements(world) {
            match element.tag_name().name() {
                "physics" | "skeleton" => {}
                other => {
                    let key = format!("skel.world.{other}");
                    self.model.extras.insert(key, element_value(element));
                    self.note(
                        "skel.ignored",
                        Severity::Info,
                        Category::Ignored,
                        "model",
                        Some(element),
                        format!("<{other}> is not read by DART; kept verbatim"),
                    );
                }
            }
        }
        for skeleton in children(world, "skeleton") {
            self.skeleton(skeleton)?;
        }
        Ok(())
    }

    fn physics(&mut self, physics: Node) -> Result<(), SourceError> {
        self.map
            .insert("simulation".into(), span_of_node(self.source, physics));
        for element in elements(physics) {
            match element.tag_name().name() {
                "time_step" => self.model.simulation.time_step = Some(raw::scalar(self.source, element)?),
                "gravity" => {
                    self.model.simulation.gravity =
                        Some(Vector3::from(raw::fixed::<3>(self.source, element)?))
                }
                "collision_detector" => self
                    .model
                    .simulation
                    .extras
                    .insert("skel.collision_detector", Value::String(raw::text(element))),
                other => {
                    self.model
                        .simulation
                        .extras
                        .insert(format!("skel.{other}"), element_value(element));
                    self.note(
                        "skel.ignored",
                        Severity::Info,
                        Category::Ignored,
                        "simulation",
                        Some(element),
                        format!("<physics><{other}> is not read by DART; kept verbatim"),
                    );
                }
            }
        }
        Ok(())
    }

    fn transformation(&self, node: Node) -> Result<Option<([f64; 6], Pose)>, SourceError> {
        let Some(t) = child(node, "transformation") else {
            return Ok(None);
        };
        let v = raw::fixed::<6>(self.source, t)?;
        Ok(Some((v, pose_from_numbers(v))))
    }

    fn skeleton(&mut self, node: Node) -> Result<(), SourceError> {
        let original = node.attribute("name").unwrap_or("Unknown skeleton").to_owned();
        let group_name = self.unique("groups", &original, "skeleton");
        let group_path = path::item("groups", &group_name);
        self.map
            .insert(group_path.clone(), span_of_node(self.source, node));
        let mut group = Group::new(&group_name, GroupType::Skeleton);
        let skeleton_pose = match self.transformation(node)? {
            Some((numbers, pose)) => {
                group.pose = Some(pose);
                group.extras.insert(TRANSFORMATION, numbers_value(&numbers));
                pose
            }
            None => Pose::identity(),
        };
        if let Some(mobile) = child(node, "mobile") {
            group.mobile = raw::boolean(self.source, mobile)?;
        }
        for element in elements(node) {
            let tag = element.tag_name().name();
            if !matches!(tag, "transformation" | "mobile" | "body" | "joint") {
                group.extras.insert(format!("skel.{tag}"), element_value(element));
                self.note(
                    "skel.ignored",
                    Severity::Info,
                    Category::Ignored,
                    group_path.clone(),
                    Some(element),
                    format!("<skeleton><{tag}> is not read by DART; kept verbatim"),
                );
            }
        }

        // Bodies, unique within the skeleton (DART discards later duplicates).
        let mut bodies: Vec<BodyEntry> = Vec::new();
        for body_node in children(node, "body") {
            let entry = self.body(body_node, &skeleton_pose)?;
            if bodies.iter().any(|b| b.original == entry.original) {
                self.note(
                    "skel.duplicate_body",
                    Severity::Warning,
                    Category::Dropped,
                    group_path.clone(),
                    Some(body_node),
                    format!(
                        "a second body named {:?} in skeleton {original:?} is discarded, as DART does",
                        entry.original
                    ),
                );
                continue;
            }
            bodies.push(entry);
        }
        let index: HashMap<String, usize> = bodies
            .iter()
            .enumerate()
            .map(|(i, b)| (b.original.clone(), i))
            .collect();

        // Joints in file order; one parent joint per body.
        let mut joints: Vec<(JointEntry, usize, Option<usize>)> = Vec::new();
        let mut has_parent_joint = vec![false; bodies.len()];
        let mut is_parent = vec![false; bodies.len()];
        for joint_node in children(node, "joint") {
            let mut entry = self.joint(joint_node)?;
            // `world` names the world unless the skeleton has a body called `world` (DART).
            if entry.parent.is_none() && index.contains_key("world") {
                entry.parent = Some("world".to_owned());
            }
            let child_index = *index.get(&entry.child).ok_or_else(|| {
                self.error(
                    "skel.unknown_body",
                    raw::child(joint_node, "child").unwrap_or(joint_node),
                    format!(
                        "joint {:?}: child body {:?} is not a body of skeleton {original:?}",
                        entry.original, entry.child
                    ),
                )
            })?;
            let parent_index = match &entry.parent {
                None => None,
                Some(p) => Some(*index.get(p).ok_or_else(|| {
                    self.error(
                        "skel.unknown_body",
                        raw::child(joint_node, "parent").unwrap_or(joint_node),
                        format!(
                            "joint {:?}: parent body {p:?} is not a body of skeleton {original:?} \
                             (use `world` for the world)",
                            entry.original
                        ),
                    )
                })?),
            };
            if parent_index == Some(child_index) {
                return Err(self.error(
                    "skel.self_joint",
                    joint_node,
                    format!(
                        "joint {:?} joins body {:?} to itself",
                        entry.original, entry.child
                    ),
                ));
            }
            if has_parent_joint[child_index] {
                self.note(
                    "skel.second_parent_joint",
                    Severity::Warning,
                    Category::Dropped,
                    group_path.clone(),
                    Some(joint_node),
                    format!(
                        "joint {:?} is a second parent joint of body {:?}; DART discards it (SKEL cannot close loops)",
                        entry.original, entry.child
                    ),
                );
                continue;
            }
            has_parent_joint[child_index] = true;
            if let Some(p) = parent_index {
                is_parent[p] = true;
            }
            joints.push((entry, child_index, parent_index));
        }

        if joints.is_empty() && !bodies.is_empty() {
            self.note(
                "skel.skeleton_without_joints",
                Severity::Warning,
                Category::Dropped,
                group_path.clone(),
                Some(node),
                format!(
                    "skeleton {original:?} has bodies but no joints: DART 6.20 crashes on it; mbconv drops its bodies"
                ),
            );
        }
        // Names of the bodies DART creates: children of joints and parents of joints.
        let mut ir_names: Vec<Option<String>> = vec![None; bodies.len()];
        for (i, entry) in bodies.iter().enumerate() {
            if has_parent_joint[i] || is_parent[i] {
                ir_names[i] = Some(String::new());
            } else {
                self.note(
                    "skel.orphan_body",
                    Severity::Warning,
                    Category::Dropped,
                    group_path.clone(),
                    Some(entry.node),
                    format!(
                        "body {:?} is neither the parent nor the child of a joint; DART does not create it",
                        entry.original
                    ),
                );
            }
        }
        for (i, entry) in bodies.iter().enumerate() {
            if ir_names[i].is_some() {
                ir_names[i] = Some(self.unique("bodies", &entry.original, &group_name));
            }
        }

        // Implicit free root joints for parents without a joint of their own.
        let mut ir_joints: Vec<Joint> = Vec::new();
        for (i, entry) in bodies.iter().enumerate() {
            if is_parent[i] && !has_parent_joint[i] {
                let name = self.unique("joints", "root", &group_name);
                let body_name = ir_names[i].clone().unwrap_or_default();
                let mut joint = Joint::new(&name, JointKind::Free, BodyRef::World, BodyRef::body(&body_name));
                joint.parent_frame = entry.body.pose;
                if name != "root" {
                    joint.extras.insert(NAME, Value::String("root".to_owned()));
                }
                self.map
                    .insert(path::item("joints", &name), span_of_node(self.source, entry.node));
                self.note(
                    "skel.implicit_free_joint",
                    Severity::Info,
                    Category::Defaulted,
                    path::item("joints", &name),
                    Some(entry.node),
                    format!(
                        "body {:?} has children but no parent joint: DART gives it a free joint named \"root\"",
                        entry.original
                    ),
                );
                group.joints.push(name);
                ir_joints.push(joint);
            }
        }

        // Joint frames from the q = 0 world poses, then DART-order coordinates to IR order.
        for (entry, child_index, parent_index) in joints {
            let mut joint = entry.joint;
            joint.name = self.unique("joints", &entry.original, &group_name);
            if joint.name != entry.original {
                joint.extras.insert(NAME, Value::String(entry.original.clone()));
            }
            let child_world = bodies[child_index].body.pose;
            let parent_world = parent_index.map_or_else(Pose::identity, |p| bodies[p].body.pose);
            joint.child = BodyRef::body(ir_names[child_index].clone().unwrap_or_default());
            joint.parent = match parent_index {
                None => BodyRef::World,
                Some(p) => BodyRef::body(ir_names[p].clone().unwrap_or_default()),
            };
            joint.parent_frame = parent_world.inverse() * child_world * joint.child_frame;
            let joint_path = path::item("joints", &joint.name);
            self.map
                .insert(joint_path.clone(), span_of_node(self.source, entry.node));
            for element in elements(entry.node) {
                let field = match element.tag_name().name() {
                    "transformation" => "child_frame",
                    "parent" => "parent",
                    "child" => "child",
                    "init_pos" => "q0",
                    "init_vel" => "v0",
                    "dof" => "dofs",
                    "axis" | "axis2" | "axis3" | "axis_order" | "plane" => "kind",
                    _ => continue,
                };
                self.map
                    .entry(path::field(&joint_path, field))
                    .or_insert_with(|| span_of_node(self.source, element));
            }
            if joint.kind == JointKind::Free {
                let q = &entry.dart_q;
                joint.q0 = vec![q[3], q[4], q[5], q[0], q[1], q[2]];
                let dofs = &entry.dart_dofs;
                if !dofs.is_empty() {
                    joint.dofs = [3, 4, 5, 0, 1, 2].iter().map(|&i| dofs[i].clone()).collect();
                }
                let dq: [f64; 6] = [0, 1, 2, 3, 4, 5].map(|i| entry.dart_v[i]);
                let child_in_parent = relative_pose(&joint, &joint.q0);
                joint.v0 = velocity::from_dart(dq, &joint.child_frame, &joint.parent_frame, &child_in_parent)
                    .to_vec();
                if entry.v_given && dq.iter().any(|x| *x != 0.0) {
                    joint.extras.insert(INIT_VEL, numbers_value(&dq));
                    self.note(
                        "skel.free_joint_velocity",
                        Severity::Info,
                        Category::Note,
                        joint_path,
                        Some(entry.node),
                        "free-joint init_vel [ω; v] (DART 6.20: Ad(joint transformation)·[ω; v] is the body's \
                         velocity in the parent frame) converted to the IR's [v; ω] of the joint frame",
                    );
                }
            } else {
                joint.q0 = entry.dart_q;
                joint.v0 = entry.dart_v;
                joint.dofs = entry.dart_dofs;
            }
            if joint.dofs.iter().all(|d| *d == plain_dof()) {
                joint.dofs.clear();
            }
            group.joints.push(joint.name.clone());
            ir_joints.push(joint);
        }

        for (i, entry) in bodies.into_iter().enumerate() {
            let Some(name) = ir_names[i].clone() else { continue };
            let mut body = entry.body.clone();
            if name != entry.original {
                body.extras.insert(NAME, Value::String(entry.original.clone()));
            }
            body.name = name;
            let body_path = path::item("bodies", &body.name);
            self.map
                .insert(body_path.clone(), span_of_node(self.source, entry.node));
            let (mut shape_index, mut marker_index) = (0, 0);
            for element in elements(entry.node) {
                let at = match element.tag_name().name() {
                    "visualization_shape" | "collision_shape" => {
                        shape_index += 1;
                        path::index(&body_path, "shapes", shape_index - 1)
                    }
                    "marker" => {
                        marker_index += 1;
                        path::index(&body_path, "frames", marker_index - 1)
                    }
                    "inertia" => path::field(&body_path, "inertial"),
                    "transformation" => path::field(&body_path, "pose"),
                    "gravity" => path::field(&body_path, "gravity"),
                    _ => continue,
                };
                self.map.insert(at, span_of_node(self.source, element));
            }
            self.finish_inertia(&mut body, &entry, &body_path);
            group.bodies.push(body.name.clone());
            self.model.bodies.push(body);
        }
        self.model.joints.extend(ir_joints);
        self.model.groups.push(group);
        Ok(())
    }
}

/// DOF properties with nothing set: unlimited, no damping, friction or spring, gear ratio 1
/// (the IR's serialised default; `DofProperties::default()` derives a gear ratio of 0).
pub fn plain_dof() -> DofProperties {
    DofProperties {
        gear_ratio: 1.0,
        ..DofProperties::default()
    }
}

/// The pose a `<transformation>` 6-vector stands for: translation, then `Rx·Ry·Rz` angles.
pub fn pose_from_numbers(v: [f64; 6]) -> Pose {
    Pose::new(
        Vector3::new(v[0], v[1], v[2]),
        xyz_to_quaternion([v[3], v[4], v[5]]),
    )
}

/// Numbers as a verbatim list of floats.
pub fn numbers_value(v: &[f64]) -> Value {
    Value::List(v.iter().map(|x| Value::Float(*x)).collect())
}

/// A verbatim list of floats back to numbers (`None` if it is not one of length `N`).
pub fn value_numbers<const N: usize>(value: Option<&Value>) -> Option<[f64; N]> {
    let Value::List(items) = value? else { return None };
    let v: Vec<f64> = items
        .iter()
        .map(|x| match x {
            Value::Float(f) => Some(*f),
            Value::Int(i) => Some(*i as f64),
            _ => None,
        })
        .collect::<Option<_>>()?;
    v.try_into().ok()
}
