//! Bodies: pose, inertia, shapes, markers and verbatim SKEL extras.

use super::{
    Exporter, NAME_KEY, PLANE_POINT_KEY, SOFT_SHAPE_KEY, TRANSFORMATION_KEY, fmt, join, skel_name,
    transformation, vec3, verbatim_children,
};
use crate::import::{PLANE_POINT, SOFT_SHAPE, value_numbers};
use crate::verbatim::{XmlElement, value_element};
use mbconv_ir::report::path;
use mbconv_ir::{Body, Category, Geometry, Pose, Severity, Shape, ShapeRole};
use nalgebra::Vector3;

impl Exporter<'_> {
    pub(super) fn body(&mut self, body: &Body, frame: &Pose) -> XmlElement {
        let at = path::item("bodies", &body.name);
        let mut element = XmlElement::new("body").attr("name", skel_name(&body.name, &body.extras));
        if !body.gravity {
            element = element.child(XmlElement::text("gravity", "0"));
        }
        if let Some(t) = transformation(frame, &body.pose, &body.extras) {
            element = element.child(XmlElement::text("transformation", t));
        }
        let i = &body.inertial;
        let tensor = i.inertia_in_body_axes();
        if (tensor - tensor.transpose()).abs().max() > 0.0 {
            self.report.add(
                "export.inertia_asymmetric",
                Severity::Warning,
                Category::Approximated,
                path::field(&at, "inertial"),
                "SKEL stores six inertia numbers; the upper triangle is written",
            );
        }
        let moment = XmlElement::new("moment_of_inertia").children(
            [
                ("ixx", tensor[(0, 0)]),
                ("iyy", tensor[(1, 1)]),
                ("izz", tensor[(2, 2)]),
                ("ixy", tensor[(0, 1)]),
                ("ixz", tensor[(0, 2)]),
                ("iyz", tensor[(1, 2)]),
            ]
            .map(|(tag, v)| XmlElement::text(tag, fmt(v))),
        );
        element = element.child(
            XmlElement::new("inertia")
                .child(XmlElement::text("mass", fmt(i.mass)))
                .child(XmlElement::text("offset", vec3(&i.com)))
                .child(moment),
        );
        if let Some(soft) = body.extras.get(SOFT_SHAPE) {
            element.children.extend(value_element("soft_shape", soft));
        }
        for (k, shape) in body.shapes.iter().enumerate() {
            let shape_path = path::index(&at, "shapes", k);
            element.children.extend(self.shape(shape, &shape_path));
        }
        for frame in &body.frames {
            if !frame.pose.rotation.angle().eq(&0.0) {
                self.report.add(
                    "export.marker_rotation",
                    Severity::Warning,
                    Category::Approximated,
                    path::field(&at, "frames"),
                    format!(
                        "frame {:?} becomes a marker, which has a position only",
                        frame.name
                    ),
                );
            }
            element = element.child(
                XmlElement::new("marker")
                    .attr("name", frame.name.clone())
                    .child(XmlElement::text("offset", vec3(&frame.pose.translation))),
            );
        }
        element.children.extend(verbatim_children(
            &body.extras,
            &[TRANSFORMATION_KEY, NAME_KEY, SOFT_SHAPE_KEY],
        ));
        self.foreign_extras(&at, &body.extras);
        if body.initial_velocity.is_some() {
            self.drop(
                "export.body_velocity",
                path::field(&at, "initial_velocity"),
                "SKEL gives initial velocities per joint only",
            );
        }
        if !body.contact_materials.is_empty() {
            self.drop(
                "export.contact_material",
                path::field(&at, "contact_materials"),
                "SKEL has no contact materials",
            );
        }
        element
    }

    pub(super) fn shape(&mut self, shape: &Shape, at: &str) -> Vec<XmlElement> {
        let Some(geometry) = self.geometry(shape, at) else {
            return Vec::new();
        };
        let roles: &[&str] = match shape.role {
            ShapeRole::Visual => &["visualization_shape"],
            ShapeRole::Collision => &["collision_shape"],
            ShapeRole::Both => &["visualization_shape", "collision_shape"],
        };
        if let Some(a) = &shape.appearance
            && (a.specular.is_some()
                || a.emissive.is_some()
                || a.ambient_intensity.is_some()
                || a.shininess.is_some()
                || a.transparency.is_some()
                || a.texture.is_some())
        {
            self.report.add(
                "export.appearance",
                Severity::Info,
                Category::Dropped,
                at,
                "SKEL colours are RGB(A) only; other appearance fields are dropped",
            );
        }
        if shape.contact_material.is_some() || shape.contact_radius.is_some() {
            self.drop(
                "export.contact",
                at,
                "SKEL shapes have no contact material or radius",
            );
        }
        self.foreign_extras(at, &shape.extras);
        roles
            .iter()
            .map(|tag| {
                let mut e = XmlElement::new(*tag);
                if let Some(t) = transformation(&Pose::identity(), &shape.pose, &shape.extras) {
                    e = e.child(XmlElement::text("transformation", t));
                }
                e = e.child(XmlElement::new("geometry").child(geometry.clone()));
                if let Some(a) = &shape.appearance
                    && let Some(d) = a.diffuse
                {
                    let mut c = d.to_vec();
                    c.extend(a.alpha);
                    e = e.child(XmlElement::text("color", join(&c)));
                }
                if *tag == "collision_shape" && !shape.collidable {
                    e = e.child(XmlElement::text("collidable", "0"));
                }
                e.children(verbatim_children(
                    &shape.extras,
                    &[TRANSFORMATION_KEY, PLANE_POINT_KEY],
                ))
            })
            .collect()
    }

    pub(super) fn geometry(&mut self, shape: &Shape, at: &str) -> Option<XmlElement> {
        let t = |tag: &str, v: f64| XmlElement::text(tag, fmt(v));
        Some(match &shape.geometry {
            Geometry::Box { size } => XmlElement::new("box").child(XmlElement::text("size", join(size))),
            Geometry::Sphere { radius } => XmlElement::new("sphere").child(t("radius", *radius)),
            Geometry::Ellipsoid { radii } => {
                XmlElement::new("ellipsoid").child(XmlElement::text("size", join(&radii.map(|r| 2.0 * r))))
            }
            Geometry::Cylinder { radius, length } => XmlElement::new("cylinder")
                .child(t("radius", *radius))
                .child(t("height", *length)),
            Geometry::Capsule { radius, length } => XmlElement::new("capsule")
                .child(t("radius", *radius))
                .child(t("height", *length)),
            Geometry::Cone { radius, length } => XmlElement::new("cone")
                .child(t("radius", *radius))
                .child(t("height", *length)),
            Geometry::Pyramid {
                base_width,
                base_depth,
                height,
            } => XmlElement::new("pyramid")
                .child(t("base_width", *base_width))
                .child(t("base_depth", *base_depth))
                .child(t("height", *height)),
            Geometry::Plane { normal, offset } => {
                let plane = XmlElement::new("plane").child(XmlElement::text("normal", vec3(normal)));
                match value_numbers::<3>(shape.extras.get(PLANE_POINT)) {
                    Some(point)
                        if normal.norm() > 0.0
                            && (normal / normal.norm()).dot(&Vector3::from(point)) == *offset =>
                    {
                        plane.child(XmlElement::text("point", join(&point)))
                    }
                    _ => plane.child(t("offset", *offset)),
                }
            }
            Geometry::MultiSphere { spheres } => {
                XmlElement::new("multi_sphere").children(spheres.iter().map(|s| {
                    XmlElement::new("sphere")
                        .child(t("radius", s.radius))
                        .child(XmlElement::text("position", vec3(&s.center)))
                }))
            }
            Geometry::Mesh(mesh) => {
                if mesh.node.is_some() {
                    self.drop(
                        "export.mesh_node",
                        at,
                        "SKEL meshes cannot name a node inside the file",
                    );
                }
                let file_name = mesh.uri_for_output(self.output);
                if mesh.resolved_path.is_none() && self.output.is_some() && !mesh.uri.contains("://") {
                    self.report.add(
                        "export.mesh_unresolved",
                        Severity::Warning,
                        Category::Note,
                        at,
                        format!(
                            "mesh {:?} was not resolved when the model was read; written as is, DART looks for it beside the .skel file",
                            mesh.uri
                        ),
                    );
                }
                XmlElement::new("mesh")
                    .child(XmlElement::text("file_name", file_name))
                    .child(XmlElement::text("scale", join(&mesh.scale)))
            }
            other => {
                let kind = match other {
                    Geometry::ConvexHull(_) => "convex hull",
                    Geometry::FittedPrimitive { .. } => "fitted primitive",
                    Geometry::Extrusion(_) => "extrusion",
                    Geometry::ElevationGrid(_) => "elevation grid",
                    Geometry::IndexedFaceSet(_) => "indexed face set",
                    _ => "triangle mesh",
                };
                self.drop("export.geometry", at, format!("SKEL has no {kind} geometry"));
                return None;
            }
        })
    }
}
