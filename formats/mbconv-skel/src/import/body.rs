//! Bodies: mass properties (with DART 6.20's inertia from shapes), shapes, markers, soft-body
//! data and elements DART ignores.

use super::{Importer, inertia, keep_aid};
use crate::raw::{self, child, children, elements};
use crate::spec::verbatim::element_value;
use crate::spec::{PLANE_POINT, SOFT_SHAPE, TRANSFORMATION_AID};
use mbconv_ir::format::Source;
use mbconv_ir::format::kit::{SourceResult, aids};
use mbconv_ir::report::path;
use mbconv_ir::{
    Appearance, Body, Category, Frame, FrameKind, Geometry, Inertia, MeshRef, Pose, Severity, Shape,
    ShapeRole, SphereItem, Value,
};
use nalgebra::Vector3;
use roxmltree::Node;
use std::path::PathBuf;

/// A body as read, before the skeleton is assembled.
pub(super) struct BodyEntry<'a, 'i> {
    /// The `<body>` element.
    pub(super) node: Node<'a, 'i>,
    /// Its SKEL name.
    pub(super) original: String,
    /// The body, at its world pose.
    pub(super) body: Body,
    /// True when `<inertia>` has a `<moment_of_inertia>`.
    has_moment: bool,
    /// True when the body has an `<inertia>`.
    has_inertia: bool,
    /// The bounding-box extents of each shape's mesh (`None`: not a mesh, or unreadable).
    mesh_extents: Vec<Option<[f64; 3]>>,
}

/// A shape as read, with its mesh's bounding-box extents when it is a readable OBJ mesh.
struct ReadShape {
    shape: Shape,
    mesh_extents: Option<[f64; 3]>,
}

/// A `<geometry>` as read: the geometry, extras it leaves (a plane's `<point>`) and the mesh
/// extents.
struct ReadGeometry {
    geometry: Geometry,
    extras: mbconv_ir::Extras,
    mesh_extents: Option<[f64; 3]>,
}

impl Importer<'_> {
    pub(super) fn finish_inertia(&mut self, body: &mut Body, entry: &BodyEntry, body_path: &str) {
        if !entry.has_inertia {
            self.note(
                "skel.default_inertia",
                Severity::Info,
                Category::Defaulted,
                path::field(body_path, "inertial"),
                Some(entry.node),
                "no <inertia>: DART's default mass 1 kg and unit moment of inertia",
            );
            return;
        }
        if entry.has_moment {
            return;
        }
        let extents = &entry.mesh_extents;
        match inertia::from_shapes(&body.shapes, body.inertial.mass, &body.inertial.com, |i| {
            extents.get(i).copied().flatten()
        }) {
            Some(moment) => {
                body.inertial.inertia = Inertia::from_matrix(&moment);
                self.note(
                    "skel.inertia_from_shapes",
                    Severity::Info,
                    Category::Defaulted,
                    path::field(body_path, "inertial"),
                    Some(entry.node),
                    format!(
                        "no <moment_of_inertia>: computed from the {} shape(s) as DART 6.20 does \
                         (mass split by volume, about the offset)",
                        body.shapes.len()
                    ),
                );
            }
            None => {
                let unreadable_mesh = body
                    .shapes
                    .iter()
                    .zip(extents)
                    .any(|(s, e)| matches!(s.geometry, Geometry::Mesh(_)) && e.is_none());
                let (severity, why) = if unreadable_mesh {
                    (
                        Severity::Warning,
                        "a mesh could not be read (DART fails on it too), so the unit moment of inertia is kept",
                    )
                } else {
                    (
                        Severity::Info,
                        "no shapes, zero volume or mass <= 0: DART keeps the unit moment of inertia",
                    )
                };
                self.note(
                    "skel.default_moment",
                    severity,
                    Category::Defaulted,
                    path::field(body_path, "inertial"),
                    Some(entry.node),
                    format!("no <moment_of_inertia>; {why}"),
                );
            }
        }
    }

    pub(super) fn body<'a, 'i>(
        &mut self,
        node: Node<'a, 'i>,
        skeleton_pose: &Pose,
    ) -> SourceResult<BodyEntry<'a, 'i>> {
        let source = self.source();
        let original = raw::required_attribute(source, node, "name")?.to_owned();
        let mut body = Body::new(&original);
        body.pose = *skeleton_pose;
        let mut has_inertia = false;
        let mut has_moment = false;
        let mut mesh_extents = Vec::new();
        if let Some(t) = self.transformation(node)? {
            body.pose = *skeleton_pose * t.pose;
            keep_aid(&mut body.extras, TRANSFORMATION_AID, &t.numbers);
        }
        for element in elements(node) {
            match element.tag_name().name() {
                "transformation" => {}
                "gravity" => body.gravity = raw::boolean(source, element)?,
                "inertia" => {
                    has_inertia = true;
                    let mass = raw::required_child(source, element, "mass")?;
                    body.inertial.mass = raw::scalar(source, mass)?;
                    if let Some(offset) = child(element, "offset") {
                        body.inertial.com = Vector3::from(raw::fixed::<3>(source, offset)?);
                    }
                    if let Some(moment) = child(element, "moment_of_inertia") {
                        has_moment = true;
                        let mut v = [0.0; 6];
                        for (k, name) in ["ixx", "iyy", "izz", "ixy", "ixz", "iyz"].iter().enumerate() {
                            v[k] = raw::scalar(source, raw::required_child(source, moment, name)?)?;
                        }
                        body.inertial.inertia =
                            Inertia::from_moments_products([v[0], v[1], v[2]], [v[3], v[4], v[5]]);
                    }
                }
                "visualization_shape" | "collision_shape" => {
                    let read = self.shape(element)?;
                    body.shapes.push(read.shape);
                    mesh_extents.push(read.mesh_extents);
                }
                "marker" => {
                    let name = raw::required_attribute(source, element, "name")?;
                    let mut frame = Frame {
                        name: name.to_owned(),
                        pose: Pose::identity(),
                        kind: FrameKind::Marker,
                        extras: Default::default(),
                    };
                    if let Some(offset) = child(element, "offset") {
                        frame.pose.translation = Vector3::from(raw::fixed::<3>(source, offset)?);
                    }
                    body.frames.push(frame);
                }
                "soft_shape" => {
                    let mut list = match body.extras.remove(SOFT_SHAPE) {
                        Some(Value::List(items)) => items,
                        _ => Vec::new(),
                    };
                    list.push(element_value(element));
                    body.extras.insert(SOFT_SHAPE, Value::List(list));
                    self.note(
                        "skel.soft_body",
                        Severity::Warning,
                        Category::Approximated,
                        path::item("bodies", &original),
                        Some(element),
                        format!(
                            "body {original:?} is a DART soft body; its <soft_shape> is kept verbatim and \
                             mbconv treats the body as rigid"
                        ),
                    );
                }
                other => {
                    body.extras
                        .insert(format!("skel.{other}"), element_value(element));
                    self.note(
                        "skel.ignored",
                        Severity::Info,
                        Category::Ignored,
                        path::item("bodies", &original),
                        Some(element),
                        format!("<body><{other}> is not read by DART; kept verbatim"),
                    );
                }
            }
        }
        Ok(BodyEntry {
            node,
            original,
            body,
            has_moment,
            has_inertia,
            mesh_extents,
        })
    }

    fn shape(&mut self, node: Node) -> SourceResult<ReadShape> {
        let source = self.source();
        let role = if node.tag_name().name() == "visualization_shape" {
            ShapeRole::Visual
        } else {
            ShapeRole::Collision
        };
        let geometry_node = raw::required_child(source, node, "geometry")?;
        let read = self.geometry(geometry_node)?;
        let mut shape = Shape::new(role, read.geometry);
        shape.extras = read.extras;
        if let Some(t) = self.transformation(node)? {
            shape.pose = t.pose;
            keep_aid(&mut shape.extras, TRANSFORMATION_AID, &t.numbers);
        }
        for element in elements(node) {
            match element.tag_name().name() {
                "transformation" | "geometry" => {}
                "color" => {
                    let c = raw::numbers(source, element)?;
                    if c.len() != 3 && c.len() != 4 {
                        return Err(self.error(
                            "skel.count",
                            element,
                            format!("<color> needs 3 (RGB) or 4 (RGBA) numbers, found {}", c.len()),
                        ));
                    }
                    shape.appearance = Some(Appearance {
                        diffuse: Some([c[0], c[1], c[2]]),
                        alpha: c.get(3).copied(),
                        ..Appearance::default()
                    });
                }
                "collidable" if role == ShapeRole::Collision => {
                    shape.collidable = raw::scalar(source, element)? != 0.0;
                }
                other => {
                    shape
                        .extras
                        .insert(format!("skel.{other}"), element_value(element));
                }
            }
        }
        Ok(ReadShape {
            shape,
            mesh_extents: read.mesh_extents,
        })
    }

    fn geometry(&mut self, node: Node) -> SourceResult<ReadGeometry> {
        let mut extras = mbconv_ir::Extras::default();
        let kind = elements(node).next().ok_or_else(|| {
            self.error(
                "skel.geometry",
                node,
                "<geometry> needs one of box, sphere, ellipsoid, cylinder, capsule, cone, pyramid, plane, multi_sphere, mesh",
            )
        })?;
        let src = self.source();
        let num =
            |name: &str| -> SourceResult<f64> { raw::scalar(src, raw::required_child(src, kind, name)?) };
        let vec3 = |name: &str| -> SourceResult<[f64; 3]> {
            raw::fixed::<3>(src, raw::required_child(src, kind, name)?)
        };
        let mut extents = None;
        let geometry = match kind.tag_name().name() {
            "box" => Geometry::Box { size: vec3("size")? },
            "sphere" => Geometry::Sphere {
                radius: num("radius")?,
            },
            "ellipsoid" => Geometry::Ellipsoid {
                radii: vec3("size")?.map(|d| d / 2.0),
            },
            "cylinder" => Geometry::Cylinder {
                radius: num("radius")?,
                length: num("height")?,
            },
            "capsule" => Geometry::Capsule {
                radius: num("radius")?,
                length: num("height")?,
            },
            "cone" => Geometry::Cone {
                radius: num("radius")?,
                length: num("height")?,
            },
            "pyramid" => Geometry::Pyramid {
                base_width: num("base_width")?,
                base_depth: num("base_depth")?,
                height: num("height")?,
            },
            "plane" => self.plane(kind, &mut extras)?,
            "multi_sphere" => multi_sphere(src, kind)?,
            "mesh" => {
                let (mesh, mesh_extents) = self.mesh(kind)?;
                extents = mesh_extents;
                mesh
            }
            other => {
                return Err(self.error(
                    "skel.geometry",
                    kind,
                    format!(
                        "unknown geometry <{other}>; expected box, sphere, ellipsoid, cylinder, capsule, cone, \
                         pyramid, plane, multi_sphere or mesh"
                    ),
                ));
            }
        };
        Ok(ReadGeometry {
            geometry,
            extras,
            mesh_extents: extents,
        })
    }

    /// `<plane>`: `normal` and `offset`, or a `point` on it (kept), or offset 0 (noted).
    fn plane(&mut self, kind: Node, extras: &mut mbconv_ir::Extras) -> SourceResult<Geometry> {
        let src = self.source();
        let normal = Vector3::from(raw::fixed::<3>(src, raw::required_child(src, kind, "normal")?)?);
        let offset = if let Some(offset) = child(kind, "offset") {
            raw::scalar(src, offset)?
        } else if let Some(point) = child(kind, "point") {
            let p = raw::fixed::<3>(src, point)?;
            extras.insert(PLANE_POINT, aids::numbers_value(&p));
            let n = normal.norm();
            if n > 0.0 {
                (normal / n).dot(&Vector3::from(p))
            } else {
                0.0
            }
        } else {
            self.note(
                "skel.plane_offset",
                Severity::Info,
                Category::Defaulted,
                "bodies",
                Some(kind),
                "<plane> without <offset>: offset 0, as DART assumes",
            );
            0.0
        };
        Ok(Geometry::Plane { normal, offset })
    }

    /// `<mesh>`: `file_name` (resolved next to the model; a missing file is noted) and `scale`,
    /// with an OBJ file's extents for the inertia estimate.
    fn mesh(&mut self, kind: Node) -> SourceResult<(Geometry, Option<[f64; 3]>)> {
        let src = self.source();
        let mut extents = None;
        let uri = raw::text(raw::required_child(src, kind, "file_name")?);
        let mut mesh = MeshRef::new(&uri);
        match child(kind, "scale") {
            Some(scale) => mesh.scale = raw::fixed::<3>(src, scale)?,
            None => self.note(
                "skel.mesh_scale",
                Severity::Info,
                Category::Defaulted,
                "bodies",
                Some(kind),
                "<mesh> without <scale>: scale 1 1 1",
            ),
        }
        let resolved = resolve(src, &uri);
        if let Some(path) = &resolved {
            mesh.resolved_path = Some(path.display().to_string());
            if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("obj")) {
                extents = std::fs::read_to_string(path)
                    .ok()
                    .and_then(|t| inertia::obj_extents(&t, mesh.scale));
            }
        } else {
            self.note(
                "skel.mesh_missing",
                Severity::Warning,
                Category::Note,
                "bodies",
                Some(kind),
                format!("mesh {uri:?} not found next to the model (DART cannot load it either)"),
            );
        }
        Ok((Geometry::Mesh(mesh), extents))
    }
}

/// `<multi_sphere>`: its `<sphere>`s' radii and positions.
fn multi_sphere(src: &Source, kind: Node) -> SourceResult<Geometry> {
    let mut spheres = Vec::new();
    for sphere in children(kind, "sphere") {
        spheres.push(SphereItem {
            radius: raw::scalar(src, raw::required_child(src, sphere, "radius")?)?,
            center: Vector3::from(raw::fixed::<3>(
                src,
                raw::required_child(src, sphere, "position")?,
            )?),
        });
    }
    Ok(Geometry::MultiSphere { spheres })
}

/// The file a mesh `file_name` refers to, relative to the model file.
fn resolve(source: &Source, uri: &str) -> Option<PathBuf> {
    let path = uri.strip_prefix("file://").unwrap_or(uri);
    let candidate = PathBuf::from(path);
    let full = if candidate.is_absolute() {
        candidate
    } else {
        source.base_dir()?.join(candidate)
    };
    full.is_file().then_some(full)
}
