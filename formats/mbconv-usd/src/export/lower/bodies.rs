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
                    "a mesh file (not embedded yet)"
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
