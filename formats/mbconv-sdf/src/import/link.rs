//! Links: inertials (given, or computed from the collisions where a version says so) and
//! visual and collision shapes.

use super::{LinkDef, Loc, Reader, push_extra};
use crate::raw::SDF;
use crate::spec;
use mbconv_ir::format::kit::SourceResult;
use mbconv_ir::report::{Category, path};
use mbconv_ir::{Body, Geometry, Inertia, Inertial, MeshRef, Shape, ShapeRole, Value};
use mbconv_xml::packages::PackageFile;
use mbconv_xml::{Node, child, element_value, elements, qualified_name, span_of_node, text};
use nalgebra::{UnitQuaternion, Vector3};
use std::path::PathBuf;

impl Reader<'_> {
    pub(super) fn link(&mut self, file: usize, node: Node, ir_name: &str) -> SourceResult<LinkDef> {
        let source = self.files[file].clone();
        let at_ir = path::item("bodies", ir_name);
        let mut body = Body::new(ir_name);
        body.inertial = match child(node, "inertial") {
            Some(inertial) => self.inertial(file, inertial, &at_ir)?,
            None => {
                let at = self.loc(file, node);
                self.note(
                    "defaulted",
                    Category::Defaulted,
                    &path::field(&at_ir, "inertial"),
                    at,
                    "no <inertial>: mass 1 and unit inertia, libsdformat's defaults".to_owned(),
                );
                Inertial {
                    mass: 1.0,
                    inertia: Inertia([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]),
                    ..Inertial::default()
                }
            }
        };
        let mut densities = Vec::new();
        for element in elements(node) {
            let at = self.loc(file, element);
            match qualified_name(element).as_str() {
                "inertial" | "pose" => {}
                tag @ ("visual" | "collision") => {
                    let role = if tag == "visual" {
                        ShapeRole::Visual
                    } else {
                        ShapeRole::Collision
                    };
                    let shape_at = path::index(&at_ir, "shapes", body.shapes.len());
                    if let Some(shape) = self.shape(file, element, role, &shape_at)? {
                        if role == ShapeRole::Collision {
                            let density = SDF.child_scalar(&source, element, "density")?;
                            densities.push((body.shapes.len(), density, self.loc(file, element)));
                        }
                        body.shapes.push(shape);
                    }
                }
                "gravity" => body.gravity = SDF.boolean(&source, element)?,
                "self_collide" => {
                    let v = SDF.boolean(&source, element)?;
                    body.extras.insert("sdf.self_collide", Value::Bool(v));
                }
                tag @ ("sensor" | "light" | "plugin" | "projector" | "particle_emitter" | "audio_source"
                | "audio_sink" | "battery" | "velocity_decay" | "kinematic" | "must_be_base_link"
                | "enable_wind" | "wind_mode") => {
                    push_extra(&mut body.extras, &format!("sdf.{tag}"), element_value(element));
                }
                tag if tag.contains(':') => {
                    push_extra(&mut body.extras, &format!("sdf.{tag}"), element_value(element));
                }
                tag => self.warn(
                    "ignored",
                    Category::Ignored,
                    &at_ir,
                    at,
                    format!("<{tag}> of a link is not read"),
                ),
            }
        }
        if let Some(inertial) = child(node, "inertial")
            && inertial
                .attribute("auto")
                .is_some_and(|a| a == "true" || a == "1")
        {
            let default_density = SDF.child_scalar(&source, inertial, "density")?.unwrap_or(1000.0);
            let mass = SDF.child_scalar(&source, inertial, "mass")?;
            let at = self.loc(file, inertial);
            body.inertial = self.auto_inertial(&body, &densities, default_density, mass, &at_ir, at)?;
        }
        Ok(LinkDef { body })
    }

    /// `<inertial auto="true">` (1.11): mass, centre of mass and inertia of the collision
    /// shapes at their densities (the collision's `<density>`, else the inertial's, else
    /// 1000 kg/m³), scaled to `<mass>` when one is given, as libsdformat computes them.
    fn auto_inertial(
        &mut self,
        body: &Body,
        densities: &[(usize, Option<f64>, Loc)],
        default_density: f64,
        mass: Option<f64>,
        at_ir: &str,
        at: Loc,
    ) -> SourceResult<Inertial> {
        let mut parts = Vec::new();
        for &(index, density, shape_at) in densities {
            let shape = &body.shapes[index];
            let density = density.unwrap_or(default_density);
            match spec::solid(&shape.geometry) {
                Some(solid) => {
                    // The part's centre of mass, its inertia kept in the shape's orientation.
                    let mut pose = shape.pose;
                    pose.translation += shape.pose.rotation * solid.centroid;
                    parts.push((density * solid.volume, solid.unit_inertia, pose));
                }
                None => self.warn(
                    "auto_inertia",
                    Category::Approximated,
                    at_ir,
                    shape_at,
                    "this collision's shape has no closed-form volume here (a mesh, a plane, a pyramid): left out of the automatic inertia".to_owned(),
                ),
            }
        }
        let total: f64 = parts.iter().map(|(m, ..)| m).sum();
        if !(total > 0.0 && total.is_finite()) {
            self.warn(
                "auto_inertia",
                Category::Approximated,
                &path::field(at_ir, "inertial"),
                at,
                "<inertial auto=\"true\"> has no collision with a volume and a positive density: the inertial as written (or libsdformat's defaults) is kept".to_owned(),
            );
            return Ok(body.inertial.clone());
        }
        let com = parts
            .iter()
            .map(|(m, _, p)| p.translation * *m)
            .sum::<Vector3<f64>>()
            / total;
        let mut inertia = nalgebra::Matrix3::zeros();
        for (m, unit, pose) in &parts {
            let r = pose.rotation.to_rotation_matrix();
            let d = pose.translation - com;
            inertia += r.matrix() * (unit * *m) * r.matrix().transpose()
                + (nalgebra::Matrix3::identity() * d.dot(&d) - d * d.transpose()) * *m;
        }
        let scale = mass.map_or(1.0, |m| m / total);
        let inertia = inertia * scale;
        self.note(
            "auto_inertia",
            Category::Note,
            &path::field(at_ir, "inertial"),
            at,
            format!(
                "<inertial auto=\"true\">: mass {} computed from {} collision(s)",
                total * scale,
                parts.len()
            ),
        );
        let m = |i: usize, j: usize| inertia[(i, j)];
        Ok(Inertial {
            mass: total * scale,
            com,
            inertia: Inertia([
                [m(0, 0), m(0, 1), m(0, 2)],
                [m(1, 0), m(1, 1), m(1, 2)],
                [m(2, 0), m(2, 1), m(2, 2)],
            ]),
            inertia_rotation: UnitQuaternion::identity(),
        })
    }

    fn inertial(&mut self, file: usize, node: Node, at_ir: &str) -> SourceResult<Inertial> {
        let source = self.files[file].clone();
        let (pose, relative_to) = self.pose_of(file, node)?;
        if relative_to.is_some() {
            let at = self.loc(file, node);
            return Err(self.err(
                at,
                "relative_to",
                "`relative_to` on an <inertial>'s <pose> is refused: it is always relative to the link",
            ));
        }
        let mass = SDF.child_scalar(&source, node, "mass")?.unwrap_or(1.0);
        let mut v = [1.0, 0.0, 0.0, 1.0, 0.0, 1.0];
        if let Some(inertia) = child(node, "inertia") {
            for (k, key) in ["ixx", "ixy", "ixz", "iyy", "iyz", "izz"].iter().enumerate() {
                if let Some(x) = SDF.child_scalar(&source, inertia, key)? {
                    v[k] = x;
                }
            }
        }
        let [ixx, ixy, ixz, iyy, iyz, izz] = v;
        if mass == 0.0 && v.iter().any(|x| *x != 0.0) {
            // Drake cannot make a spatial inertia of it and reads its "plausible" one.
            let (mass, moment) = spec::drake_plausible_sphere();
            let at = self.loc(file, node);
            self.warn(
                "zero_mass_inertia",
                Category::Approximated,
                &path::field(at_ir, "inertial"),
                at,
                format!(
                    "mass 0 under a non-zero inertia: read as Drake reads it, a {mass} kg solid sphere of water ({moment} kg m² about every axis) at the centre of mass, with a warning (\"condition 'mass > 0' failed\"); libsdformat keeps mass 0 and the inertia"
                ),
            );
            return Ok(Inertial {
                mass,
                com: pose.translation,
                inertia: Inertia([[moment, 0.0, 0.0], [0.0, moment, 0.0], [0.0, 0.0, moment]]),
                inertia_rotation: UnitQuaternion::identity(),
            });
        }
        Ok(Inertial {
            mass,
            com: pose.translation,
            inertia: Inertia([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]]),
            inertia_rotation: pose.rotation,
        })
    }

    fn shape(
        &mut self,
        file: usize,
        node: Node,
        role: ShapeRole,
        at_ir: &str,
    ) -> SourceResult<Option<Shape>> {
        let source = self.files[file].clone();
        let (pose, relative_to) = self.pose_of(file, node)?;
        if relative_to.is_some() {
            let at = self.loc(file, node);
            self.warn(
                "relative_to",
                Category::Ignored,
                at_ir,
                at,
                "`relative_to` on a visual or collision pose is read as relative to the link".to_owned(),
            );
        }
        let Some(geometry_node) = child(node, "geometry") else {
            // libsdformat adds a required element that is missing with its default: an empty
            // <geometry>, which Drake skips.
            let message = format!(
                "<{}> has no <geometry>: no shape, as libsdformat and Drake read it (an empty geometry)",
                node.tag_name().name()
            );
            self.no_geometry(file, node, at_ir, message);
            return Ok(None);
        };
        let Some(geometry) = self.geometry(file, geometry_node, at_ir)? else {
            return Ok(None);
        };
        let mut shape = Shape::new(role, geometry);
        shape.pose = pose;
        shape.name = node.attribute("name").map(str::to_owned);
        for element in elements(node) {
            match qualified_name(element).as_str() {
                "pose" | "geometry" => {}
                "material" if role == ShapeRole::Visual => {
                    // libsdformat's Material::Load refuses a script whose <uri> is missing, empty
                    // or the spec's `__default__` placeholder (Drake then refuses the file).
                    if let Some(script) = child(element, "script") {
                        let uri = child(script, "uri").map(text).unwrap_or_default();
                        if uri.trim().is_empty() || uri.trim() == "__default__" {
                            return Err(SDF.error(
                                &source,
                                "material",
                                Some(span_of_node(&source, script)),
                                "a <material><script> without a <uri> (or with an empty one): libsdformat refuses it (\"A <script> element is missing a child <uri> element, or the <uri> element is empty.\")",
                            ));
                        }
                    }
                    push_extra(&mut shape.extras, "sdf.material", element_value(element));
                }
                "surface" => {
                    self.negative_friction(file, element, at_ir);
                    if let Some(bits) = child(element, "contact").and_then(|c| child(c, "collide_bitmask")) {
                        shape
                            .extras
                            .insert("sdf.collide_bitmask", Value::String(text(bits)));
                    }
                    shape.extras.insert("sdf.surface", element_value(element));
                }
                tag => push_extra(&mut shape.extras, &format!("sdf.{tag}"), element_value(element)),
            }
        }
        Ok(Some(shape))
    }

    /// The warning `sdf.empty_geometry` at `node`: a visual or collision without a shape.
    /// The warning `sdf.libsdformat_refuses` at each negative `<friction><ode><mu>` or `<mu2>`
    /// of `surface`: kept as written, which libsdformat refuses ("less than the minimum allowed
    /// value of [0]"), so Drake and Gazebo do not load the file (gazebo_models' `ragdoll`).
    fn negative_friction(&mut self, file: usize, surface: Node, at_ir: &str) {
        let Some(ode) = child(surface, "friction").and_then(|f| child(f, "ode")) else {
            return;
        };
        for element in elements(ode).filter(|e| matches!(e.tag_name().name(), "mu" | "mu2")) {
            let value = text(element);
            if value.parse::<f64>().is_ok_and(|v| v < 0.0) {
                let at = self.loc(file, element);
                let tag = element.tag_name().name();
                self.warn(
                    "libsdformat_refuses",
                    Category::Note,
                    at_ir,
                    at,
                    format!(
                        "a negative friction coefficient <{tag}>{value}</{tag}>: kept as written (mbconv simulates no contact), but libsdformat refuses the file (\"less than the minimum allowed value of [0] for key [{tag}]\"), and so do Drake and Gazebo"
                    ),
                );
            }
        }
    }

    fn no_geometry(&mut self, file: usize, node: Node, at_ir: &str, message: String) {
        let at = self.loc(file, node);
        self.warn("empty_geometry", Category::Dropped, at_ir, at, message);
    }

    fn geometry(&mut self, file: usize, node: Node, at_ir: &str) -> SourceResult<Option<Geometry>> {
        let source = self.files[file].clone();
        let Some(kind) = elements(node).next() else {
            self.no_geometry(file, node, at_ir, "<geometry> is empty: no shape".to_owned());
            return Ok(None);
        };
        // A size element that is missing reads as the specification's default, which
        // libsdformat adds in its place (Drake reads the shape so).
        let defaulted = std::cell::RefCell::new(Vec::new());
        let need = |name: &str, default: f64| -> SourceResult<f64> {
            match child(kind, name) {
                Some(c) => SDF.scalar(&source, c),
                None => {
                    defaulted.borrow_mut().push(format!("<{name}> {default}"));
                    Ok(default)
                }
            }
        };
        let need3 = |name: &str, default: f64| -> SourceResult<[f64; 3]> {
            match child(kind, name) {
                Some(c) => SDF.fixed::<3>(&source, c),
                None => {
                    defaulted
                        .borrow_mut()
                        .push(format!("<{name}> {default} {default} {default}"));
                    Ok([default; 3])
                }
            }
        };
        let geometry = match kind.tag_name().name() {
            "box" => Geometry::Box {
                size: need3("size", 1.0)?,
            },
            "sphere" => Geometry::Sphere {
                radius: need("radius", 1.0)?,
            },
            "cylinder" => Geometry::Cylinder {
                radius: need("radius", 1.0)?,
                length: need("length", 1.0)?,
            },
            "capsule" => Geometry::Capsule {
                radius: need("radius", 0.5)?,
                length: need("length", 1.0)?,
            },
            "cone" => Geometry::Cone {
                radius: need("radius", 1.0)?,
                length: need("length", 1.0)?,
            },
            "ellipsoid" => Geometry::Ellipsoid {
                radii: need3("radii", 1.0)?,
            },
            "plane" => {
                let normal = match child(kind, "normal") {
                    Some(n) => Vector3::from(SDF.fixed::<3>(&source, n)?),
                    None => Vector3::z(),
                };
                if normal.norm() == 0.0 || !normal.iter().all(|x| x.is_finite()) {
                    return Err(SDF.error(
                        &source,
                        "plane",
                        Some(span_of_node(&source, kind)),
                        "the <normal> of a <plane> is zero",
                    ));
                }
                Geometry::Plane {
                    normal: normal.normalize(),
                    offset: 0.0,
                }
            }
            "mesh" => Geometry::Mesh(self.mesh(file, kind, at_ir)?),
            tag @ ("heightmap" | "image" | "polyline" | "empty") => {
                let at = self.loc(file, kind);
                self.warn(
                    "geometry",
                    Category::Dropped,
                    at_ir,
                    at,
                    format!("<{tag}> geometry has no IR shape: the shape is dropped"),
                );
                return Ok(None);
            }
            tag => {
                return Err(SDF.error(
                    &source,
                    "geometry",
                    Some(span_of_node(&source, kind)),
                    format!("unknown geometry <{tag}>"),
                ));
            }
        };
        let defaulted = defaulted.into_inner();
        if !defaulted.is_empty() {
            let at = self.loc(file, kind);
            self.warn(
                "size_default",
                Category::Defaulted,
                at_ir,
                at,
                format!(
                    "<{}> without {}: read as {}, SDFormat's default, which libsdformat and Drake use",
                    kind.tag_name().name(),
                    defaulted
                        .iter()
                        .map(|d| d.split(' ').next().unwrap_or_default())
                        .collect::<Vec<_>>()
                        .join(" and "),
                    defaulted.join(", ")
                ),
            );
        }
        Ok(Some(geometry))
    }

    /// A `<mesh>`: its URI, scale and submesh, and the file it names when it can be found
    /// (a path or `file://` against the file's folder, `model://` under the model roots and
    /// else as a package, `package://` in a ROS package under the `package_path` setting and
    /// `ROS_PACKAGE_PATH`, then from the main file's folder (`mbconv_xml::packages`), as
    /// Drake's package map and Gazebo's URDF-era models resolve it). A package not found, or
    /// a file missing in a package that was, is a note: the URI is kept as written.
    fn mesh(&mut self, file: usize, kind: Node, at_ir: &str) -> SourceResult<MeshRef> {
        let source = self.files[file].clone();
        let uri = text(SDF.required_child(&source, kind, "uri")?);
        let mut mesh = MeshRef::new(uri.clone());
        if let Some(scale) = child(kind, "scale") {
            mesh.scale = SDF.fixed::<3>(&source, scale)?;
        }
        if let Some(sub) = child(kind, "submesh") {
            mesh.node = Some(text(SDF.required_child(&source, sub, "name")?));
        }
        if !uri.contains("://") || uri.starts_with("file://") {
            let p = PathBuf::from(uri.trim_start_matches("file://"));
            let full = if p.is_absolute() {
                p
            } else {
                source.base_dir().map_or(p.clone(), |b| b.join(&p))
            };
            mesh.resolved_path = Some(full.display().to_string());
        } else if let Some(rest) = uri.strip_prefix("model://") {
            mesh.resolved_path = self
                .roots
                .iter()
                .map(|r| r.join(rest))
                .find(|p| p.is_file())
                .map(|p| p.display().to_string());
            if mesh.resolved_path.is_none()
                && let PackageFile::Found(path) = self.packages.resolve(rest)
            {
                let at = self.loc(file, kind);
                self.note(
                    "model_as_package",
                    Category::Note,
                    at_ir,
                    at,
                    format!(
                        "{uri:?} is under no model root (the model_path setting, GZ_SIM_RESOURCE_PATH, SDF_PATH): found as a package, as Drake reads model:// URIs, at {}",
                        path.display()
                    ),
                );
                mesh.resolved_path = Some(path.display().to_string());
            }
            if mesh.resolved_path.is_none() {
                let at = self.loc(file, kind);
                self.note(
                    "model_file_missing",
                    Category::Note,
                    at_ir,
                    at,
                    format!(
                        "{uri:?} is not found under the model_path setting, GZ_SIM_RESOURCE_PATH or SDF_PATH: the URI is kept as written"
                    ),
                );
            }
        } else if let Some(rest) = uri.strip_prefix("package://") {
            let at = self.loc(file, kind);
            match self.packages.resolve(rest) {
                PackageFile::Found(path) => mesh.resolved_path = Some(path.display().to_string()),
                PackageFile::MissingInPackage { package, file, dir } => self.note(
                    "package_file_missing",
                    Category::Note,
                    at_ir,
                    at,
                    format!(
                        "file {file:?} of {uri:?} is not found in package {package:?} (at {}): the URI is kept as written",
                        dir.display()
                    ),
                ),
                PackageFile::PackageNotFound(package) => self.note(
                    "package_unresolved",
                    Category::Note,
                    at_ir,
                    at,
                    format!(
                        "package {package:?} of {uri:?} is not found under the package_path setting or ROS_PACKAGE_PATH: the URI is kept as written"
                    ),
                ),
            }
        }
        Ok(mesh)
    }
}
