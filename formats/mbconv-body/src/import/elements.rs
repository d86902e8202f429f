//! A link's `elements`: the transform stack (with `scale`), `RigidBody` parts, shapes inside
//! and outside `Visual` / `Collision`, `Resource` nodes (meshes, and YAML resources whose
//! `node` names an anchor) and devices, as Choreonoid's body loader walks them.

use super::fields::{self, Doc, get};
use super::geometry;
use crate::raw::{self, Node, NodeKind};
use crate::spec::{self, FORMAT};
use mbconv_ir::format::Source;
use mbconv_ir::format::kit::SourceResult;
use mbconv_ir::{BodyRef, Device, DeviceType, Extras, Pose, Shape, ShapeRole, Value, ValueMap};
use nalgebra::{Matrix3, Vector3};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A mass contribution in the link frame.
#[derive(Clone, Debug)]
pub(crate) struct RigidPart {
    pub mass: f64,
    pub com: Vector3<f64>,
    pub inertia: Matrix3<f64>,
}

/// An affine transform: linear part (rotation times scale) and translation, with the same
/// transform as an exact pose while no `scale` is involved.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Affine {
    pub linear: Matrix3<f64>,
    pub translation: Vector3<f64>,
    /// The composed poses (exact when `scaled` is false).
    pub pose: Pose,
    /// Some transform on the stack has a `scale`.
    pub scaled: bool,
}

impl Affine {
    fn identity() -> Self {
        Self {
            linear: Matrix3::identity(),
            translation: Vector3::zeros(),
            pose: Pose::identity(),
            scaled: false,
        }
    }
    fn then(&self, other: &Affine) -> Affine {
        Affine {
            linear: self.linear * other.linear,
            translation: self.linear * other.translation + self.translation,
            pose: self.pose * other.pose,
            scaled: self.scaled || other.scaled,
        }
    }
}

/// Something the walk noticed that is not an error (reported by the importer).
#[derive(Clone, Debug)]
pub(crate) struct Note {
    pub code: &'static str,
    pub message: String,
    pub approximated: bool,
}

/// The walk over one link's elements.
pub(crate) struct ElementWalk {
    link: String,
    stack: Vec<Affine>,
    role: ShapeRole,
    depth: usize,
    /// Shapes found, in the link frame.
    pub shapes: Vec<Shape>,
    /// Devices found, in the link frame (`body` is the link name).
    pub devices: Vec<Device>,
    /// RigidBody contributions.
    pub rigid_parts: Vec<RigidPart>,
    /// Findings for the importer.
    pub notes: Vec<Note>,
    /// The rotation the innermost node wrote, as an aid for the writer.
    node_aids: Extras,
}

const MAX_DEPTH: usize = 64;

impl ElementWalk {
    /// A walk for the link named `link`.
    pub fn new(link: String) -> Self {
        Self {
            link,
            stack: vec![Affine::identity()],
            role: ShapeRole::Both,
            depth: 0,
            shapes: Vec::new(),
            devices: Vec::new(),
            rigid_parts: Vec::new(),
            notes: Vec::new(),
            node_aids: Extras::default(),
        }
    }

    fn top(&self) -> Affine {
        self.stack.last().copied().unwrap_or_else(Affine::identity)
    }

    /// An `elements` value: a list of typed mappings, one typed mapping, or `{Type: node}`.
    pub fn elements(&mut self, doc: &Doc, node: &Node) -> SourceResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(doc.error("depth", node, "elements are nested too deeply"));
        }
        let result = self.elements_inner(doc, node);
        self.depth -= 1;
        result
    }

    fn elements_inner(&mut self, doc: &Doc, node: &Node) -> SourceResult<()> {
        match &node.kind {
            NodeKind::Seq(items) => {
                for item in items {
                    let ty = item.get("type").map(|t| fields::text(doc, t)).transpose()?;
                    self.node(doc, item, ty.as_deref().unwrap_or(""))?;
                }
                Ok(())
            }
            NodeKind::Map(entries) => {
                if let Some(t) = node.get("type") {
                    let ty = fields::text(doc, t)?;
                    return self.node(doc, node, &ty);
                }
                for (key, value) in entries {
                    if let Some(t) = value.get("type") {
                        let inner = fields::text(doc, t)?;
                        if inner != key.name {
                            return Err(doc.error(
                                "node_type",
                                t,
                                format!(
                                    "the node type {inner:?} differs from {:?} given by its key",
                                    key.name
                                ),
                            ));
                        }
                    }
                    self.node(doc, value, &key.name)?;
                }
                Ok(())
            }
            NodeKind::Null => Ok(()),
            NodeKind::Scalar { .. } => {
                Err(doc.error("elements", node, "elements must be a list or a mapping"))
            }
        }
    }

    fn node(&mut self, doc: &Doc, node: &Node, ty: &str) -> SourceResult<()> {
        if !matches!(node.kind, NodeKind::Map(_)) {
            return Err(doc.error(
                "element",
                node,
                format!("an element must be a mapping, found {}", node.describe()),
            ));
        }
        match ty {
            "Skip" => Ok(()),
            "Group" => self.container(doc, node),
            "Transform" => self.transformed(doc, node, |walk, doc, node| walk.container(doc, node)),
            "RigidBody" => self.transformed(doc, node, |walk, doc, node| walk.rigid_body(doc, node)),
            "Visual" | "Collision" => self.visual_or_collision(doc, node, ty == "Visual"),
            "Resource" => self.transformed(doc, node, |walk, doc, node| walk.resource(doc, node)),
            "Shape" => self.transformed(doc, node, |walk, doc, node| walk.shape(doc, node)),
            t if spec::DEVICE_TYPES.contains(&t) || spec::OTHER_DEVICE_TYPES.contains(&t) => {
                self.transformed(doc, node, |walk, doc, node| walk.device(doc, node, t))
            }
            "LineSet" | "Fog" | "Text" | "Node" | "PointSet" => {
                self.notes.push(Note {
                    code: "ignored",
                    message: format!("a {ty} scene node has no meaning for the dynamics and is not kept"),
                    approximated: false,
                });
                Ok(())
            }
            other => {
                if node.get("isOptional").and_then(Node::as_bool) == Some(true) {
                    self.notes.push(Note {
                        code: "ignored",
                        message: format!("optional node of unknown type {other:?} skipped"),
                        approximated: false,
                    });
                    return Ok(());
                }
                let at = node.get("type").unwrap_or(node);
                Err(doc
                    .error("node_type", at, format!("unknown node type {other:?}"))
                    .with_help("known: Group, Transform, RigidBody, Visual, Collision, Resource, Shape, Skip and the device types")
                    .into())
            }
        }
    }

    /// Pushes the node's translation, rotation and scale, runs `inner`, pops.
    fn transformed(
        &mut self,
        doc: &Doc,
        node: &Node,
        inner: impl FnOnce(&mut Self, &Doc, &Node) -> SourceResult<()>,
    ) -> SourceResult<()> {
        let mut scratch = Extras::default();
        let pose = fields::pose(doc, node, &mut scratch, "rotation")?;
        if doc.degree_mode
            && let Some(r) = get(node, "rotation")
        {
            // Always kept: the writer checks it still reads back to the shape's rotation.
            let written: Vec<f64> = fields::rotation_list(doc, r)?.into_iter().flatten().collect();
            scratch.insert(
                mbconv_ir::format::kit::aids::key(FORMAT, "rotation"),
                mbconv_ir::format::kit::aids::numbers_value(&written),
            );
        }
        let outer_aids = std::mem::replace(&mut self.node_aids, scratch);
        let scale = node.get("scale").map(|n| fields::vector3(doc, n)).transpose()?;
        let pushed = pose.is_some() || scale.is_some();
        if pushed {
            let pose = pose.unwrap_or_else(Pose::identity);
            let mut linear = pose.rotation.to_rotation_matrix().into_inner();
            if let Some(s) = scale {
                linear *= Matrix3::from_diagonal(&s);
            }
            let t = self.top().then(&Affine {
                linear,
                translation: pose.translation,
                pose,
                scaled: scale.is_some(),
            });
            self.stack.push(t);
        }
        let result = inner(self, doc, node);
        self.node_aids = outer_aids;
        if pushed {
            self.stack.pop();
        }
        result
    }

    fn container(&mut self, doc: &Doc, node: &Node) -> SourceResult<()> {
        match node.get("elements") {
            Some(elements) => self.elements(doc, elements),
            None => Ok(()),
        }
    }

    fn visual_or_collision(&mut self, doc: &Doc, node: &Node, visual: bool) -> SourceResult<()> {
        let conflict = if visual {
            self.role == ShapeRole::Collision
        } else {
            self.role == ShapeRole::Visual
        };
        if conflict {
            return Err(doc.error(
                "visual_collision",
                node,
                "a Visual node cannot be inside a Collision node, nor a Collision node inside a Visual node",
            ));
        }
        let previous = self.role;
        self.role = if visual {
            ShapeRole::Visual
        } else {
            ShapeRole::Collision
        };
        let result = self.transformed(doc, node, |walk, doc, node| {
            if let Some(resource) = node.get("resource") {
                walk.transformed(doc, resource, |walk, doc, node| walk.resource(doc, node))?;
            }
            if let Some(shape) = node.get("shape") {
                walk.transformed(doc, shape, |walk, doc, node| walk.shape(doc, node))?;
            }
            walk.container(doc, node)
        });
        self.role = previous;
        result
    }

    fn rigid_body(&mut self, doc: &Doc, node: &Node) -> SourceResult<()> {
        let t = self.top();
        let c = get(node, "centerOfMass")
            .map(|n| fields::vector3(doc, n))
            .transpose()?
            .unwrap_or_else(Vector3::zeros);
        let mass = node
            .get("mass")
            .map(|n| fields::number(doc, n))
            .transpose()?
            .unwrap_or(0.0);
        let inertia = node
            .get("inertia")
            .map(|n| super::links::inertia(doc, n))
            .transpose()?
            .map_or_else(Matrix3::zeros, |m| t.linear * m * t.linear.transpose());
        self.rigid_parts.push(RigidPart {
            mass,
            com: t.linear * c + t.translation,
            inertia,
        });
        Ok(())
    }

    fn shape(&mut self, doc: &Doc, node: &Node) -> SourceResult<()> {
        let Some(geometry_node) = node.get("geometry") else {
            return Err(doc.error("geometry", node, "a Shape needs a geometry"));
        };
        let (pose, scale, exact) = decompose(&self.top());
        if !exact {
            self.approximated("a skewed scale was replaced by the nearest rotation and axis scale");
        }
        let Some(mut shape) = geometry::shape(doc, geometry_node, self.role, pose, scale, &mut self.notes)?
        else {
            return Ok(());
        };
        if let Some(appearance) = node.get("appearance") {
            shape.appearance = Some(geometry::appearance(doc, appearance, &mut shape.extras)?);
        }
        if let Some(name) = node.get("name").and_then(Node::scalar) {
            shape.name = Some(name.to_owned());
        }
        for (k, v) in self.node_aids.iter() {
            shape.extras.insert(k, v.clone());
        }
        self.shapes.push(shape);
        Ok(())
    }

    fn resource(&mut self, doc: &Doc, node: &Node) -> SourceResult<()> {
        let Some(uri_node) = node.get("uri") else {
            return Err(doc.error("uri", node, "a Resource needs a uri"));
        };
        let uri = fields::text(doc, uri_node)?;
        let resolved = resolve(doc, &uri);
        let fragment = node.get("node").map(|n| fields::text(doc, n)).transpose()?;
        let lower = uri.to_ascii_lowercase();
        if lower.ends_with(".yaml") || lower.ends_with(".yml") {
            return self.yaml_resource(doc, uri_node, &uri, resolved, fragment);
        }
        if let Some(path) = &resolved
            && !path.exists()
        {
            self.notes.push(Note {
                code: "missing_mesh",
                message: format!(
                    "the mesh {uri:?} is not there ({}); kept as a reference",
                    path.display()
                ),
                approximated: false,
            });
        }
        let (pose, scale, exact) = decompose(&self.top());
        if !exact {
            self.approximated("a skewed scale was replaced by the nearest rotation and axis scale");
        }
        let mut mesh = mbconv_ir::MeshRef::new(uri);
        mesh.resolved_path = resolved.map(|p| p.display().to_string());
        mesh.scale = scale;
        mesh.node = fragment;
        let mut shape = Shape::new(self.role, mbconv_ir::Geometry::Mesh(mesh));
        shape.pose = pose;
        for (k, v) in self.node_aids.iter() {
            shape.extras.insert(k, v.clone());
        }
        if let Some(meta) = node.get("metadata") {
            shape.extras.insert(format!("{FORMAT}.metadata"), meta.to_value());
        }
        self.shapes.push(shape);
        Ok(())
    }

    fn yaml_resource(
        &mut self,
        doc: &Doc,
        at: &Node,
        uri: &str,
        resolved: Option<PathBuf>,
        fragment: Option<String>,
    ) -> SourceResult<()> {
        let Some(path) = resolved else {
            return Err(doc.error(
                "resource",
                at,
                format!("cannot resolve the YAML resource {uri:?}"),
            ));
        };
        let source = Source::from_path(&path).map_err(|e| {
            doc.error(
                "resource",
                at,
                format!("cannot read the YAML resource {}: {e}", path.display()),
            )
        })?;
        let (sub, key) = match raw::parse(&source) {
            Ok(root) => (
                Doc {
                    source: Arc::new(source),
                    root,
                    degree_mode: doc.degree_mode,
                    is_main: false,
                    lenient: Default::default(),
                },
                None,
            ),
            // Choreonoid's YAML reader lets a resource use the including file's anchors.
            Err(error) if error.message.contains("unknown anchor") => {
                let (combined, key) = with_including_anchors(&doc.source.text, &source.text);
                let name = format!("{} (with the anchors of {})", source.name, doc.source.name);
                let combined =
                    Source::from_string(name, combined).with_path(source.name.clone(), source.path.clone());
                let root = raw::parse(&combined).map_err(|_| error)?;
                let sub = Doc {
                    source: Arc::new(combined),
                    root,
                    degree_mode: doc.degree_mode,
                    is_main: false,
                    lenient: Default::default(),
                };
                (sub, Some(key))
            }
            Err(error) => return Err(error),
        };
        let (scope, from) = match key.as_deref().and_then(|k| sub.root.entry(k)) {
            Some((k, v)) => (v, k.offset),
            None => (&sub.root, 0),
        };
        let target = match &fragment {
            Some(name) => raw::anchored(&sub.source.text, scope, name, from).ok_or_else(|| {
                doc.error(
                    "anchor",
                    at,
                    format!("the YAML resource {uri:?} has no anchor &{name}"),
                )
            })?,
            None => scope,
        };
        self.elements(&sub, target)
    }

    fn device(&mut self, doc: &Doc, node: &Node, ty: &str) -> SourceResult<()> {
        let t = self.top();
        let (pose, _, _) = decompose(&t);
        let device_type = match ty {
            "ForceSensor" => DeviceType::ForceSensor,
            "RateGyroSensor" => DeviceType::RateGyroSensor,
            "AccelerationSensor" => DeviceType::AccelerationSensor,
            "IMU" => DeviceType::Imu,
            "Camera" | "CameraDevice" => DeviceType::Camera,
            "RangeSensor" => DeviceType::RangeSensor,
            "SpotLight" => DeviceType::SpotLight,
            "PointLight" => DeviceType::PointLight,
            "DirectionalLight" => DeviceType::DirectionalLight,
            other => DeviceType::Other(other.to_owned()),
        };
        let mut extras = self.node_aids.clone();
        if ty == "CameraDevice" {
            extras.insert(format!("{FORMAT}.source.type"), Value::String(ty.to_owned()));
        }
        let name = match node.get("name") {
            Some(n) => fields::text(doc, n)?,
            None => String::new(),
        };
        let id = node.get("id").map(|n| fields::integer(doc, n)).transpose()?;
        let mut parameters = ValueMap::new();
        for (key, value) in node.entries() {
            if matches!(
                key.name.as_str(),
                "type" | "name" | "id" | "translation" | "rotation"
            ) {
                continue;
            }
            let value = match value.as_f64() {
                Some(x) if spec::DEVICE_ANGLE_KEYS.contains(&key.name.as_str()) => {
                    Value::Float(fields::angle(doc, x, true, &mut extras, &key.name))
                }
                _ => value.to_value(),
            };
            parameters.insert(key.name.clone(), value);
        }
        self.devices.push(Device {
            name,
            device_type,
            body: BodyRef::body(&self.link),
            pose,
            id,
            parameters,
            extras,
        });
        Ok(())
    }

    fn approximated(&mut self, message: &str) {
        self.notes.push(Note {
            code: "scale",
            message: message.to_owned(),
            approximated: true,
        });
    }
}

/// Splits an affine transform into a pose and an axis scale `L = R · diag(s)`: exact when the
/// columns of `L` are orthogonal (`false` otherwise: nearest rotation, column norms).
pub(crate) fn decompose(t: &Affine) -> (Pose, [f64; 3], bool) {
    if !t.scaled {
        return (t.pose, [1.0; 3], true);
    }
    let l = t.linear;
    let s = [l.column(0).norm(), l.column(1).norm(), l.column(2).norm()];
    let r = if s.iter().all(|x| *x > 0.0) {
        l * Matrix3::from_diagonal(&Vector3::new(1.0 / s[0], 1.0 / s[1], 1.0 / s[2]))
    } else {
        Matrix3::identity()
    };
    let gram = r.transpose() * r;
    let exact = (gram - Matrix3::identity()).abs().max() < 1e-12 && r.determinant() > 0.0;
    let q = nalgebra::UnitQuaternion::from_matrix(&r);
    (Pose::new(t.translation, q), s, exact)
}

/// The including file's text with the resource appended under a key of its own, so that the
/// resource's aliases find the including file's anchors. Returns the text and the key.
fn with_including_anchors(including: &str, resource: &str) -> (String, String) {
    let key = "__mbconv_resource__".to_owned();
    let mut text = String::with_capacity(including.len() + resource.len() * 2);
    text.push_str(including);
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(&key);
    text.push_str(":\n");
    for line in resource.lines() {
        text.push_str("  ");
        text.push_str(line);
        text.push('\n');
    }
    (text, key)
}

/// A uri relative to the including file (absolute paths kept; `${...}` variables unresolved).
fn resolve(doc: &Doc, uri: &str) -> Option<PathBuf> {
    let stripped = uri.strip_prefix("file://").unwrap_or(uri);
    if stripped.contains("${") || stripped.contains("://") {
        return None;
    }
    let path = Path::new(stripped);
    if path.is_absolute() {
        return Some(path.to_path_buf());
    }
    Some(doc.source.base_dir().unwrap_or(Path::new(".")).join(path))
}
