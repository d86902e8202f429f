//! Bodies and shapes as SKEL says them: six inertia numbers, position-only markers, no
//! contact materials, RGB(A) colours only, the SKEL geometries only, meshes without nodes.

use mbconv_ir::format::kit::LowerSession;
use mbconv_ir::format::support::Feature;
use mbconv_ir::report::path;
use mbconv_ir::{Category, Geometry, Inertia, Severity};
use nalgebra::{Matrix3, UnitQuaternion};

/// Relative tolerance under which an inertia tensor counts as symmetric: an asymmetry no larger
/// than this fraction of the largest entry is rounding (rotating a symmetric tensor in floating
/// point leaves about 1e-16 of it), not data, and is neither reported nor changed.
pub(super) const INERTIA_SYMMETRY_TOLERANCE: f64 = 1e-9;

/// True when `tensor` is asymmetric beyond rounding (see [`INERTIA_SYMMETRY_TOLERANCE`]).
pub(super) fn really_asymmetric(tensor: &Matrix3<f64>) -> bool {
    let asymmetry = (tensor - tensor.transpose()).abs().max();
    asymmetry > INERTIA_SYMMETRY_TOLERANCE * tensor.abs().max()
}

/// SKEL stores six inertia numbers: an asymmetric tensor is written by its upper triangle.
pub(super) fn asymmetric_inertia(s: &mut LowerSession) {
    for b in 0..s.model.bodies.len() {
        let body = &mut s.model.bodies[b];
        let tensor = body.inertial.inertia_in_body_axes();
        if !really_asymmetric(&tensor) {
            continue;
        }
        body.inertial.inertia = Inertia::from_moments_products(
            [tensor[(0, 0)], tensor[(1, 1)], tensor[(2, 2)]],
            [tensor[(0, 1)], tensor[(0, 2)], tensor[(1, 2)]],
        );
        body.inertial.inertia_rotation = UnitQuaternion::identity();
        let at = path::item("bodies", &body.name);
        s.approximated(
            "inertia_asymmetric",
            Feature::InertiaProducts,
            &at,
            "the inertia tensor is not symmetric; SKEL stores six numbers, the upper triangle is written",
        );
    }
}

/// Frames become markers, which have a position only.
pub(super) fn marker_rotations(s: &mut LowerSession) {
    for b in 0..s.model.bodies.len() {
        let mut turned = Vec::new();
        for frame in &mut s.model.bodies[b].frames {
            if frame.pose.rotation.angle() != 0.0 {
                frame.pose.rotation = UnitQuaternion::identity();
                turned.push(frame.name.clone());
            }
        }
        let at = path::item("bodies", &s.model.bodies[b].name);
        for name in turned {
            s.approximated(
                "marker_rotation_lost",
                Feature::NamedFrames,
                &at,
                format!("frame {name:?} becomes a marker, which has a position only"),
            );
        }
    }
}

/// Contact materials of bodies and shapes, and shapes' contact radii: SKEL has none.
pub(super) fn drop_contact_materials(s: &mut LowerSession) {
    for b in 0..s.model.bodies.len() {
        let body = &mut s.model.bodies[b];
        let at = path::item("bodies", &body.name);
        let on_body = !body.contact_materials.is_empty();
        body.contact_materials.clear();
        let mut on_shapes = Vec::new();
        for (k, shape) in body.shapes.iter_mut().enumerate() {
            if shape.contact_material.is_some() || shape.contact_radius.is_some() {
                shape.contact_material = None;
                shape.contact_radius = None;
                on_shapes.push(path::index(&at, "shapes", k));
            }
        }
        if on_body {
            s.lost(
                "contact_material_lost",
                Feature::ContactMaterials,
                &path::field(&at, "contact_materials"),
                "SKEL has no contact materials",
            );
        }
        for shape_at in on_shapes {
            s.lost(
                "shape_contact_lost",
                Feature::ContactMaterials,
                &shape_at,
                "SKEL shapes have no contact material or radius",
            );
        }
    }
}

/// Shapes whose geometry SKEL has no element for.
pub(super) fn drop_unsayable_shapes(s: &mut LowerSession) {
    for b in 0..s.model.bodies.len() {
        let at = path::item("bodies", &s.model.bodies[b].name);
        let shapes = std::mem::take(&mut s.model.bodies[b].shapes);
        let mut kept = Vec::with_capacity(shapes.len());
        for (k, shape) in shapes.into_iter().enumerate() {
            match missing_geometry(&shape.geometry) {
                Some(kind) => s.lost(
                    "geometry_lost",
                    Feature::Shapes,
                    &path::index(&at, "shapes", k),
                    format!("SKEL has no {kind} geometry"),
                ),
                None => kept.push(shape),
            }
        }
        s.model.bodies[b].shapes = kept;
    }
}

/// Appearance fields besides RGB(A) and mesh nodes: SKEL has neither.
pub(super) fn shape_details(s: &mut LowerSession) {
    for b in 0..s.model.bodies.len() {
        let at = path::item("bodies", &s.model.bodies[b].name);
        let mut appearance = Vec::new();
        let mut nodes = Vec::new();
        for (k, shape) in s.model.bodies[b].shapes.iter_mut().enumerate() {
            if let Some(a) = &mut shape.appearance
                && (a.specular.is_some()
                    || a.emissive.is_some()
                    || a.ambient_intensity.is_some()
                    || a.shininess.is_some()
                    || a.transparency.is_some()
                    || a.texture.is_some())
            {
                a.specular = None;
                a.emissive = None;
                a.ambient_intensity = None;
                a.shininess = None;
                a.transparency = None;
                a.texture = None;
                appearance.push(path::index(&at, "shapes", k));
            }
            if let Geometry::Mesh(mesh) = &mut shape.geometry
                && mesh.node.take().is_some()
            {
                nodes.push(path::index(&at, "shapes", k));
            }
        }
        for shape_at in appearance {
            s.finding(
                "appearance_lost",
                Feature::Appearance,
                Severity::Info,
                Category::Dropped,
                &shape_at,
                "SKEL colours are RGB(A) only; other appearance fields are dropped",
            );
        }
        for shape_at in nodes {
            s.lost(
                "mesh_node_lost",
                Feature::Meshes,
                &shape_at,
                "SKEL meshes cannot name a node inside the file",
            );
        }
    }
}

/// The name of a geometry SKEL has no element for.
pub(super) fn missing_geometry(geometry: &Geometry) -> Option<&'static str> {
    match geometry {
        Geometry::Box { .. }
        | Geometry::Sphere { .. }
        | Geometry::Ellipsoid { .. }
        | Geometry::Cylinder { .. }
        | Geometry::Capsule { .. }
        | Geometry::Cone { .. }
        | Geometry::Pyramid { .. }
        | Geometry::Plane { .. }
        | Geometry::MultiSphere { .. }
        | Geometry::Mesh(_) => None,
        Geometry::ConvexHull(_) => Some("convex hull"),
        Geometry::FittedPrimitive { .. } => Some("fitted primitive"),
        Geometry::Extrusion(_) => Some("extrusion"),
        Geometry::ElevationGrid(_) => Some("elevation grid"),
        Geometry::IndexedFaceSet(_) => Some("indexed face set"),
        _ => Some("triangle mesh"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_is_not_asymmetry() {
        let mut t = Matrix3::new(2.0, 0.1, 0.0, 0.1, 3.0, 0.0, 0.0, 0.0, 4.0);
        assert!(!really_asymmetric(&t));
        t[(0, 1)] += 4.0 * f64::EPSILON;
        assert!(!really_asymmetric(&t));
        t[(0, 1)] += 0.01;
        assert!(really_asymmetric(&t));
    }
}
