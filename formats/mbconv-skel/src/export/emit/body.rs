//! Bodies: pose, inertia, shapes, markers and verbatim SKEL extras.

use super::{Emitter, fmt, join, transformation, vec3, verbatim_children};
use crate::export::skel_name;
use crate::spec::verbatim::{XmlElement, value_element};
use crate::spec::{PLANE_POINT, SOFT_SHAPE};
use mbconv_ir::format::kit::aids;
use mbconv_ir::format::support::Feature;
use mbconv_ir::report::path;
use mbconv_ir::{Body, Category, Finding, Geometry, Pose, Severity, Shape, ShapeRole};
use nalgebra::Vector3;

impl Emitter<'_> {
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
            element = element.child(
                XmlElement::new("marker")
                    .attr("name", frame.name.clone())
                    .child(XmlElement::text("offset", vec3(&frame.pose.translation))),
            );
        }
        element.children.extend(verbatim_children(&body.extras));
        element
    }

    /// The `<visualization_shape>` and/or `<collision_shape>` of a shape (none for a geometry
    /// SKEL does not have, which lowering removes).
    pub(super) fn shape(&mut self, shape: &Shape, at: &str) -> Vec<XmlElement> {
        let Some(geometry) = self.geometry(shape, at) else {
            return Vec::new();
        };
        let roles: &[&str] = match shape.role {
            ShapeRole::Visual => &["visualization_shape"],
            ShapeRole::Collision => &["collision_shape"],
            ShapeRole::Both => &["visualization_shape", "collision_shape"],
        };
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
                e.children(verbatim_children(&shape.extras))
            })
            .collect()
    }

    fn geometry(&mut self, shape: &Shape, at: &str) -> Option<XmlElement> {
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
                let point = shape.extras.get(PLANE_POINT).and_then(aids::value_numbers);
                match point.and_then(|p| <[f64; 3]>::try_from(p).ok()) {
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
                let file_name = mesh.uri_for_output(self.output);
                if mesh.resolved_path.is_none() && self.output.is_some() && !mesh.uri.contains("://") {
                    self.report.push(
                        Finding::new(
                            "skel.mesh_unresolved",
                            Severity::Warning,
                            Category::Note,
                            format!(
                                "mesh {:?} was not resolved when the model was read; written as is, DART looks for it beside the .skel file",
                                mesh.uri
                            ),
                        )
                        .for_feature(Feature::Meshes)
                        .at(at),
                    );
                }
                XmlElement::new("mesh")
                    .child(XmlElement::text("file_name", file_name))
                    .child(XmlElement::text("scale", join(&mesh.scale)))
            }
            _ => return None,
        })
    }
}
