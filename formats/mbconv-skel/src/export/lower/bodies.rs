//! Bodies and shapes as SKEL says them: six inertia numbers, position-only markers, no
//! contact materials, RGB(A) colours only, the SKEL geometries only, meshes without nodes.

use super::CODE;
use mbconv_ir::report::path;
use mbconv_ir::{Body, Category, Finding, Geometry, Inertia, Severity, Shape};
use nalgebra::{Matrix3, UnitQuaternion};

/// Relative tolerance under which an inertia tensor counts as symmetric: an asymmetry no larger
/// than this fraction of the largest entry is rounding (rotating a symmetric tensor in floating
/// point leaves about 1e-16 of it), not data, and is neither reported nor changed.
pub(super) const INERTIA_SYMMETRY_TOLERANCE: f64 = 1e-9;

fn finding(
    what: &str,
    severity: Severity,
    category: Category,
    at: &str,
    message: impl Into<String>,
) -> Finding {
    Finding::new(format!("{CODE}.{what}"), severity, category, message).at(at)
}

fn dropped(what: &str, at: &str, message: impl Into<String>) -> Finding {
    finding(what, Severity::Warning, Category::Dropped, at, message)
}

/// True when `tensor` is asymmetric beyond rounding (see [`INERTIA_SYMMETRY_TOLERANCE`]).
pub(super) fn really_asymmetric(tensor: &Matrix3<f64>) -> bool {
    let asymmetry = (tensor - tensor.transpose()).abs().max();
    asymmetry > INERTIA_SYMMETRY_TOLERANCE * tensor.abs().max()
}

/// Lowers one body in place; returns a finding per change.
pub(super) fn lower_body(body: &mut Body) -> Vec<Finding> {
    let at = path::item("bodies", &body.name);
    let mut findings = Vec::new();
    let tensor = body.inertial.inertia_in_body_axes();
    if really_asymmetric(&tensor) {
        body.inertial.inertia = Inertia::from_moments_products(
            [tensor[(0, 0)], tensor[(1, 1)], tensor[(2, 2)]],
            [tensor[(0, 1)], tensor[(0, 2)], tensor[(1, 2)]],
        );
        body.inertial.inertia_rotation = UnitQuaternion::identity();
        findings.push(finding(
            "inertia_asymmetric",
            Severity::Warning,
            Category::Approximated,
            &path::field(&at, "inertial"),
            "the inertia tensor is not symmetric; SKEL stores six numbers, the upper triangle is written",
        ));
    }
    for frame in &mut body.frames {
        if frame.pose.rotation.angle() != 0.0 {
            frame.pose.rotation = UnitQuaternion::identity();
            findings.push(finding(
                "marker_rotation",
                Severity::Warning,
                Category::Approximated,
                &path::field(&at, "frames"),
                format!(
                    "frame {:?} becomes a marker, which has a position only",
                    frame.name
                ),
            ));
        }
    }
    if !body.contact_materials.is_empty() {
        body.contact_materials.clear();
        findings.push(dropped(
            "contact_material",
            &path::field(&at, "contact_materials"),
            "SKEL has no contact materials",
        ));
    }
    let shapes = std::mem::take(&mut body.shapes);
    for (k, mut shape) in shapes.into_iter().enumerate() {
        let shape_at = path::index(&at, "shapes", k);
        if let Some(kind) = missing_geometry(&shape.geometry) {
            findings.push(dropped(
                "geometry",
                &shape_at,
                format!("SKEL has no {kind} geometry"),
            ));
            continue;
        }
        lower_shape(&mut shape, &shape_at, &mut findings);
        body.shapes.push(shape);
    }
    findings
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

fn lower_shape(shape: &mut Shape, at: &str, findings: &mut Vec<Finding>) {
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
        findings.push(finding(
            "appearance",
            Severity::Info,
            Category::Dropped,
            at,
            "SKEL colours are RGB(A) only; other appearance fields are dropped",
        ));
    }
    if shape.contact_material.is_some() || shape.contact_radius.is_some() {
        shape.contact_material = None;
        shape.contact_radius = None;
        findings.push(dropped(
            "contact",
            at,
            "SKEL shapes have no contact material or radius",
        ));
    }
    if let Geometry::Mesh(mesh) = &mut shape.geometry
        && mesh.node.take().is_some()
    {
        findings.push(dropped(
            "mesh_node",
            at,
            "SKEL meshes cannot name a node inside the file",
        ));
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
