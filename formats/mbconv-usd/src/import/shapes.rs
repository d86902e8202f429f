//! Shapes: the UsdGeom gprims (Cube, Sphere, Capsule, Cylinder, Cone, Plane, Mesh) under a
//! rigid body, up to the next rigid body below it. A gprim with `PhysicsCollisionAPI` collides
//! (and is seen too, unless its purpose is `guide` or it is invisible); one without is seen
//! only. Sizes are the schema's attributes (with its fallbacks) times the gprim's scale
//! relative to the body frame.

use super::xform::Xf;
use super::{Importer, is_body, string};
use crate::raw::{RawPrim, number, vec3};
use crate::spec::{api, attr, axis_vector, prim};
use mbconv_ir::format::kit::SourceResult;
use mbconv_ir::report::path;
use mbconv_ir::{Appearance, Category, ContactMaterial, Geometry, Pose, Shape, ShapeRole};
use nalgebra::{UnitQuaternion, Vector3};
use openusd::sdf::Value;

/// The gprim types read as shapes.
const SHAPE_TYPES: [&str; 7] = [
    prim::CUBE,
    prim::SPHERE,
    prim::CAPSULE,
    prim::CYLINDER,
    prim::CONE,
    prim::PLANE,
    prim::MESH,
];

impl Importer<'_> {
    /// The shapes of the body `b` read from the prim `i`.
    pub(super) fn shapes(&mut self, i: usize, b: usize) -> SourceResult<()> {
        let stage = self.stage;
        for (k, p) in stage.prims.iter().enumerate().skip(i) {
            if !SHAPE_TYPES.contains(&p.type_name.as_str()) || self.owner(k) != Some(i) {
                continue;
            }
            let body_pose = self.world[i].pose;
            let rel = Xf::relative(&body_pose, &self.world[k]);
            let at = path::item("bodies", &self.model.bodies[b].name);
            if rel.sheared {
                self.note(
                    "shape_sheared",
                    Category::Approximated,
                    &at,
                    &p.path,
                    "the gprim's transform has a shear: read with the scale along its own axes",
                );
            }
            let mut shape = self.shape(p, &rel)?;
            if shape.role != ShapeRole::Visual {
                shape.contact_material = self.material(p, b)?;
            }
            self.model.bodies[b].shapes.push(shape);
        }
        Ok(())
    }

    /// The physics material bound to the collider `p` (`material:binding:physics`, else
    /// `material:binding`), as a contact material of body `b` named after the material prim:
    /// `physics:dynamicFriction` is the IR's friction coefficient and `physics:restitution`
    /// its restitution; a `staticFriction` that differs is reported (the IR has one
    /// coefficient). `None` when nothing with `PhysicsMaterialAPI` is bound.
    fn material(&mut self, p: &RawPrim, b: usize) -> SourceResult<Option<String>> {
        let stage = self.stage;
        let Some(m) = [attr::PHYSICS_BINDING, attr::BINDING]
            .iter()
            .find_map(|r| p.target(r))
            .and_then(|t| stage.index_of(t))
            .map(|i| &stage.prims[i])
            .filter(|m| m.has_api(api::MATERIAL))
        else {
            return Ok(None);
        };
        let read = |name: &str| m.attribute(name).and_then(number);
        let (dynamic, stat, restitution) = (
            read(attr::DYNAMIC_FRICTION),
            read(attr::STATIC_FRICTION),
            read(attr::RESTITUTION),
        );
        for (name, v) in [
            (attr::DYNAMIC_FRICTION, dynamic),
            (attr::STATIC_FRICTION, stat),
            (attr::RESTITUTION, restitution),
        ] {
            if let Some(v) = v
                && !(v.is_finite() && v >= 0.0)
            {
                return Err(self.error(
                    "material",
                    &m.path,
                    format!(
                        "{name} is {v}; a friction or restitution coefficient is a finite number, 0 or more"
                    ),
                ));
            }
        }
        let at = path::item("bodies", &self.model.bodies[b].name);
        if let (Some(d), Some(s)) = (dynamic, stat)
            && d != s
        {
            self.note(
                "static_friction",
                Category::Approximated,
                &at,
                &m.path,
                format!("static friction {s} differs from dynamic friction {d}: the IR has one coefficient, the dynamic one is read"),
            );
        }
        let name = m.name.clone();
        let body = &mut self.model.bodies[b];
        if !body.contact_materials.iter().any(|c| c.name == name) {
            let mut material = ContactMaterial::new(name.clone());
            material.friction = dynamic.or(stat);
            material.restitution = restitution;
            body.contact_materials.push(material);
        }
        Ok(Some(name))
    }

    /// The rigid body a prim belongs to: itself or its nearest ancestor with
    /// `PhysicsRigidBodyAPI`.
    pub(super) fn owner(&self, mut k: usize) -> Option<usize> {
        loop {
            if is_body(&self.stage.prims[k]) {
                return Some(k);
            }
            k = self.stage.prims[k].parent?;
        }
    }

    /// One gprim as a shape; `rel` is its transform in the body frame (stage units).
    fn shape(&mut self, p: &RawPrim, rel: &Xf) -> SourceResult<Shape> {
        let l = self.length;
        let s = rel.scale.abs();
        // A size is a finite length, 0 or more.
        for name in ["size", "radius", "height"] {
            if let Some(v) = p.attribute(name).and_then(number)
                && !(v.is_finite() && v >= 0.0)
            {
                return Err(self.error(
                    "shape",
                    &p.path,
                    format!("{name} is {v}; a size is a finite length, 0 or more"),
                ));
            }
        }
        let size = |name: &str, fallback: f64| p.attribute(name).and_then(number).unwrap_or(fallback) * l;
        let mut pose = Pose::new(rel.pose.translation * l, rel.pose.rotation);
        let geometry = match p.type_name.as_str() {
            prim::CUBE => {
                let edge = size("size", 2.0);
                Geometry::Box {
                    size: [edge * s.x, edge * s.y, edge * s.z],
                }
            }
            prim::SPHERE => {
                let r = size("radius", 1.0);
                if s.x == s.y && s.y == s.z {
                    Geometry::Sphere { radius: r * s.x }
                } else {
                    Geometry::Ellipsoid {
                        radii: [r * s.x, r * s.y, r * s.z],
                    }
                }
            }
            prim::CAPSULE | prim::CYLINDER | prim::CONE => {
                let (fallback_radius, fallback_height) = if p.type_name == prim::CAPSULE {
                    (0.5, 1.0)
                } else {
                    (1.0, 2.0)
                };
                let (turn, along, across) = self.gprim_axis(p, &s)?;
                pose.rotation *= turn;
                let radius = size("radius", fallback_radius) * across;
                let length = size("height", fallback_height) * along;
                match p.type_name.as_str() {
                    prim::CAPSULE => Geometry::Capsule { radius, length },
                    prim::CYLINDER => Geometry::Cylinder { radius, length },
                    _ => Geometry::Cone { radius, length },
                }
            }
            prim::PLANE => {
                let (turn, _, _) = self.gprim_axis(p, &s)?;
                pose.rotation *= turn;
                Geometry::Plane {
                    normal: Vector3::z(),
                    offset: 0.0,
                }
            }
            _ => self.mesh(p, &s)?,
        };
        let collides = p.has_api(api::COLLISION);
        let hidden = string(p, attr::PURPOSE).as_deref() == Some("guide")
            || string(p, attr::VISIBILITY).as_deref() == Some("invisible");
        let role = match (collides, hidden) {
            (true, false) => ShapeRole::Both,
            (true, true) => ShapeRole::Collision,
            (false, _) => ShapeRole::Visual,
        };
        let mut shape = Shape::new(role, geometry);
        shape.name = Some(string(p, attr::MBCONV_NAME).unwrap_or_else(|| p.name.clone()));
        shape.pose = pose;
        shape.appearance = appearance(p);
        shape.collidable = super::flag(p, attr::COLLISION_ENABLED) != Some(false);
        Ok(shape)
    }

    /// The turn from the IR's Z axis to the gprim's `axis`, the scale along it and the scale
    /// across it (the larger, reported, when the two across differ).
    fn gprim_axis(&mut self, p: &RawPrim, s: &Vector3<f64>) -> SourceResult<(UnitQuaternion<f64>, f64, f64)> {
        let token = string(p, "axis").unwrap_or_else(|| "Z".to_owned());
        let Some(axis) = axis_vector(&token) else {
            return Err(self.error(
                "axis",
                &p.path,
                format!("axis is {token:?}; UsdGeom allows \"X\", \"Y\" or \"Z\""),
            ));
        };
        let turn =
            UnitQuaternion::rotation_between(&Vector3::z(), &axis).unwrap_or_else(UnitQuaternion::identity);
        let (along, a, b) = match token.as_str() {
            "X" => (s.x, s.y, s.z),
            "Y" => (s.y, s.z, s.x),
            _ => (s.z, s.x, s.y),
        };
        if a != b {
            self.note(
                "shape_scale",
                Category::Approximated,
                "",
                &p.path,
                format!("the gprim is scaled unequally across its axis ({a} and {b}): read with the larger"),
            );
        }
        Ok((turn, along, a.max(b)))
    }

    /// A `Mesh` gprim as a triangle mesh (polygons split into fans), scaled.
    fn mesh(&mut self, p: &RawPrim, s: &Vector3<f64>) -> SourceResult<Geometry> {
        let points: Vec<[f64; 3]> = match p.attribute(attr::POINTS) {
            Some(Value::Vec3fVec(v)) => v.iter().map(|v| [v.x, v.y, v.z].map(f64::from)).collect(),
            Some(Value::Vec3dVec(v)) => v.iter().map(|v| [v.x, v.y, v.z]).collect(),
            _ => return Err(self.error("mesh", &p.path, "a Mesh without points")),
        };
        let ints = |name: &str| match p.attribute(name) {
            Some(Value::IntVec(v)) => Some(v.clone()),
            _ => None,
        };
        let (Some(counts), Some(indices)) = (ints(attr::FACE_VERTEX_COUNTS), ints(attr::FACE_VERTEX_INDICES))
        else {
            return Err(self.error(
                "mesh",
                &p.path,
                "a Mesh needs faceVertexCounts and faceVertexIndices",
            ));
        };
        let mut triangles = Vec::new();
        let mut at = 0usize;
        for &count in &counts {
            let count = usize::try_from(count).unwrap_or(0);
            let face = indices.get(at..at + count).ok_or_else(|| {
                self.error(
                    "mesh",
                    &p.path,
                    "faceVertexCounts add up to more than faceVertexIndices holds",
                )
            })?;
            for k in 1..count.saturating_sub(1) {
                let tri = [face[0], face[k], face[k + 1]];
                if tri.iter().any(|&v| v < 0 || v as usize >= points.len()) {
                    return Err(self.error(
                        "mesh",
                        &p.path,
                        format!("faceVertexIndices names a point past the {} points", points.len()),
                    ));
                }
                triangles.push(tri.map(|v| v as u32));
            }
            at += count;
        }
        let l = self.length;
        let vertices = points
            .into_iter()
            .map(|[x, y, z]| [x * s.x * l, y * s.y * l, z * s.z * l])
            .collect();
        Ok(Geometry::TriangleMesh { vertices, triangles })
    }
}

/// `primvars:displayColor` (its first colour) and `primvars:displayOpacity`.
fn appearance(p: &RawPrim) -> Option<Appearance> {
    let diffuse = match p.attribute(attr::DISPLAY_COLOR)? {
        Value::Vec3fVec(v) => v.first().map(|c| [c.x, c.y, c.z].map(f64::from)),
        Value::Vec3dVec(v) => v.first().map(|c| [c.x, c.y, c.z]),
        other => vec3(other),
    }?;
    let alpha = match p.attribute(attr::DISPLAY_OPACITY) {
        Some(Value::FloatVec(v)) => v.first().map(|a| f64::from(*a)),
        Some(other) => number(other),
        None => None,
    };
    Some(Appearance {
        diffuse: Some(diffuse),
        alpha,
        ..Appearance::default()
    })
}
