//! Bodies and shapes as UsdPhysics and UsdGeom say them.

use mbconv_ir::format::kit::LowerSession;
use mbconv_ir::format::support::Feature;
use mbconv_ir::report::path;
use mbconv_ir::{Appearance, Geometry, Model};

/// What other readers take from a body's mass properties: a zero mass or inertia means "not
/// stated" to UsdPhysics (they compute one from the colliders); this reader keeps the zero.
pub(super) fn bodies(s: &mut LowerSession, m: &mut Model) {
    for body in &mut m.bodies {
        let at = path::item("bodies", &body.name);
        if body.inertial.mass == 0.0 && !body.fixed {
            s.note("zero_mass", Feature::MassProperties, &at, "a massless body: UsdPhysics reads mass 0 as unstated (other readers compute a mass from the colliders); the zero is kept in mbconv:physics:mass");
        } else if body.inertial.mass > 0.0 && body.inertial.inertia.0 == [[0.0; 3]; 3] && !body.fixed {
            s.note("zero_inertia", Feature::MassProperties, &at, "a point mass (zero inertia): UsdPhysics reads a diagonalInertia of (0, 0, 0) as unstated (other readers compute an inertia from the body's colliders); the zero is kept in mbconv:inertia");
        }
        let mut extras = std::mem::take(&mut body.extras);
        s.strip_foreign_extras(&mut extras, &at);
        body.extras = extras;
    }
}

/// The shapes UsdGeom has a gprim for; appearance as display colour and opacity.
pub(super) fn shapes(s: &mut LowerSession, m: &mut Model) {
    for body in &mut m.bodies {
        let at = path::item("bodies", &body.name);
        let mut kept = Vec::new();
        for mut shape in std::mem::take(&mut body.shapes) {
            if let Some(embedded) = embedded_mesh(s, &at, &shape.geometry) {
                shape.geometry = embedded;
            }
            let said = matches!(
                shape.geometry,
                Geometry::Box { .. }
                    | Geometry::Sphere { .. }
                    | Geometry::Ellipsoid { .. }
                    | Geometry::Cylinder { .. }
                    | Geometry::Capsule { .. }
                    | Geometry::Cone { .. }
                    | Geometry::Plane { .. }
                    | Geometry::TriangleMesh { .. }
            );
            if !said {
                let what = if matches!(shape.geometry, Geometry::Mesh(_) | Geometry::ConvexHull(_)) {
                    "a mesh file that could not be read"
                } else {
                    "a geometry UsdGeom has no gprim for"
                };
                s.lost(
                    "shape_lost",
                    if what.starts_with("a mesh") {
                        Feature::Meshes
                    } else {
                        Feature::Shapes
                    },
                    &at,
                    format!("{what} is not written"),
                );
                continue;
            }
            if let Some(a) = &shape.appearance {
                let kept_look = Appearance {
                    diffuse: a.diffuse,
                    alpha: a.alpha,
                    ..Appearance::default()
                };
                if *a != kept_look {
                    s.lost_note(
                        "appearance",
                        Feature::Appearance,
                        &at,
                        "only the diffuse colour and opacity are written",
                    );
                }
                shape.appearance = a.diffuse.map(|_| kept_look);
            }
            let mut extras = std::mem::take(&mut shape.extras);
            s.strip_foreign_extras(&mut extras, &at);
            shape.extras = extras;
            kept.push(shape);
        }
        body.shapes = kept;
    }
}

/// A mesh file (or its convex hull) as a mesh given inline, which the emitter writes as a
/// UsdGeom `Mesh` (points and triangles): the file's triangles, scaled, in the shape's frame,
/// as the source's loader reads them (`mbconv-mesh`). `None` for other geometries and for a
/// file that is not there or does not read (then lost, reported by the caller).
fn embedded_mesh(s: &mut LowerSession, at: &str, geometry: &Geometry) -> Option<Geometry> {
    let (mesh, hull) = match geometry {
        Geometry::Mesh(m) => (m, false),
        Geometry::ConvexHull(m) => (m, true),
        _ => return None,
    };
    let path = mesh.resolved_path.as_deref()?;
    let read = mbconv_mesh::read(std::path::Path::new(path)).map_err(|e| e.to_string());
    let mut triangles = match read {
        Ok(t) if !t.faces.is_empty() => t,
        Ok(_) => return None,
        Err(e) => {
            s.lost_note(
                "mesh_unread",
                Feature::Meshes,
                at,
                format!("the mesh file {} does not read: {e}", mesh.uri),
            );
            return None;
        }
    };
    if hull {
        let faces = mbconv_mesh::convex_hull(&triangles.vertices).ok()?;
        triangles.faces = faces;
    }
    let scaled = triangles.scaled(mesh.scale, [0.0; 3]);
    let faces: Option<Vec<[u32; 3]>> = scaled
        .faces
        .iter()
        .map(|f| {
            Some([
                u32::try_from(f[0]).ok()?,
                u32::try_from(f[1]).ok()?,
                u32::try_from(f[2]).ok()?,
            ])
        })
        .collect();
    let what = if hull {
        "the convex hull of the mesh file"
    } else {
        "the mesh file"
    };
    s.note(
        "mesh_embedded",
        Feature::Meshes,
        at,
        format!(
            "{what} {} written as a UsdGeom Mesh of {} points and {} triangles",
            mesh.uri,
            scaled.vertices.len(),
            scaled.faces.len()
        ),
    );
    Some(Geometry::TriangleMesh {
        vertices: scaled.vertices,
        triangles: faces?,
    })
}
