//! Bodies and their shapes: what Chrono YAML cannot say of a body (per-body gravity, named
//! frames, an asymmetric inertia tensor) and of a shape (shape kinds, appearance beyond the
//! diffuse colour, names, non-uniform mesh scales).

use super::Lowering;
use crate::spec::frames as convert;
use crate::spec::{DEFAULT_MATERIAL, FORMAT};
use mbconv_ir::format::kit::aids;
use mbconv_ir::report::path;
use mbconv_ir::rotation::chrono as conv;
use mbconv_ir::{Appearance, Body, Category, ContactMaterial, Geometry, Model, Shape};
use nalgebra::Vector3;

/// Lowers every body.
pub(super) fn bodies(l: &mut Lowering, model: &mut Model) {
    for b in &mut model.bodies {
        body(l, b);
    }
}

fn body(l: &mut Lowering, b: &mut Body) {
    let ip = path::item("bodies", &b.name);
    let t = &mut b.inertial.inertia.0;
    if t[1][0].to_bits() != t[0][1].to_bits()
        || t[2][0].to_bits() != t[0][2].to_bits()
        || t[2][1].to_bits() != t[1][2].to_bits()
    {
        l.lost(
            Category::Approximated,
            &ip,
            "asymmetric inertia tensor written from its upper triangle",
        );
        (t[1][0], t[2][0], t[2][1]) = (t[0][1], t[0][2], t[1][2]);
    }
    if !b.gravity {
        l.lost(
            Category::Dropped,
            &ip,
            "Chrono YAML cannot switch gravity off for one body",
        );
        b.gravity = true;
    }
    for f in std::mem::take(&mut b.frames) {
        l.lost(
            Category::Dropped,
            &path::field(&ip, "frames"),
            format!("named frame {:?}: Chrono YAML has no body frames", f.name),
        );
    }
    let mut shapes = Vec::new();
    let mut model_file_seen = false;
    for (idx, mut s) in std::mem::take(&mut b.shapes).into_iter().enumerate() {
        let sp = path::index(&ip, "shapes", idx);
        let is_model_file = s.extras.get("chrono.model_file").is_some()
            && matches!(s.geometry, Geometry::Mesh(_))
            && !model_file_seen;
        if is_model_file {
            model_file_seen = true;
            shapes.push(s);
            continue;
        }
        if shape(l, &mut s, &mut b.contact_materials, &sp) {
            shapes.push(s);
        }
    }
    b.shapes = shapes;
    let mut materials = std::mem::take(&mut b.contact_materials);
    for m in &mut materials {
        l.strip_foreign_extras(&mut m.extras, &ip);
    }
    b.contact_materials = materials;
    l.strip_foreign_extras(&mut b.extras, &ip);
    // Last: the velocity conversion depends on the pose and the centre-of-mass frame.
    crate::spec::velocity::quantise(b);
}

/// Lowers one shape; false when Chrono YAML has no such shape.
fn shape(l: &mut Lowering, s: &mut Shape, materials: &mut Vec<ContactMaterial>, sp: &str) -> bool {
    match &mut s.geometry {
        Geometry::Sphere { .. } | Geometry::Box { .. } => {}
        Geometry::Cylinder { .. } => cylinder_frame(l, s, sp),
        Geometry::Mesh(mesh) | Geometry::ConvexHull(mesh) => {
            let [sx, sy, sz] = mesh.scale;
            if sx.to_bits() != sy.to_bits() || sx.to_bits() != sz.to_bits() {
                l.lost(
                    Category::Approximated,
                    sp,
                    format!("non-uniform mesh scale {:?} written as {sx}", mesh.scale),
                );
                mesh.scale = [sx; 3];
            }
            if mesh.node.take().is_some() {
                l.lost(
                    Category::Dropped,
                    sp,
                    "mesh node selection: Chrono loads the whole file",
                );
            }
        }
        other => {
            let kind = format!("{other:?}");
            let kind = kind.split([' ', '(', '{']).next().unwrap_or("shape").to_owned();
            l.lost(
                Category::Dropped,
                sp,
                format!("{kind} shapes cannot be written to Chrono YAML"),
            );
            return false;
        }
    }
    if s.role.is_collision() {
        if !s.collidable {
            l.lost(
                Category::Dropped,
                sp,
                "non-collidable collision shape written as collidable",
            );
            s.collidable = true;
        }
        if s.contact_material.is_none() {
            if !materials.iter().any(|m| m.name == DEFAULT_MATERIAL) {
                materials.push(ContactMaterial::new(DEFAULT_MATERIAL));
            }
            l.note(
                sp,
                "collision shape without material uses an added material \"default\" (Chrono defaults)",
            );
            s.contact_material = Some(DEFAULT_MATERIAL.to_owned());
        }
    }
    if s.role.is_visual()
        && let Some(a) = &mut s.appearance
    {
        let kept = Appearance {
            diffuse: a.diffuse,
            ..Appearance::default()
        };
        if *a != kept {
            l.lost(
                Category::Dropped,
                sp,
                "appearance beyond the diffuse colour (alpha, specular, texture, …)",
            );
            *a = kept;
        }
    }
    if s.name.take().is_some() {
        l.lost(Category::Dropped, sp, "shape name: Chrono shapes have no names");
    }
    l.strip_foreign_extras(&mut s.extras, sp);
    true
}

/// Chrono builds a cylinder's frame from its axis alone: a cylinder turned about its own axis
/// is the same cylinder, so its frame becomes the one Chrono builds (an exact equivalent).
fn cylinder_frame(l: &mut Lowering, s: &mut Shape, sp: &str) {
    let reproduces = |k: &[f64], q: &nalgebra::UnitQuaternion<f64>| {
        k.len() == 3
            && conv::motor_frame_from_axis(&Vector3::new(k[0], k[1], k[2]))
                .is_some_and(|built| convert::same_rotation(&built, q))
    };
    let axis = s.pose.rotation * Vector3::z();
    let kept = aids::kept(&s.extras, FORMAT, "axis");
    if reproduces(&convert::v3(&axis), &s.pose.rotation)
        || kept.as_deref().is_some_and(|k| reproduces(k, &s.pose.rotation))
    {
        return;
    }
    let Some(built) = conv::motor_frame_from_axis(&axis) else {
        return;
    };
    l.note(
        sp,
        "cylinder turned about its own axis: Chrono builds the frame from the axis alone",
    );
    s.pose.rotation = built;
    s.extras.remove(&aids::key(FORMAT, "axis"));
    aids::keep(
        &mut s.extras,
        FORMAT,
        "axis",
        &convert::v3(&axis),
        &convert::v3(&(built * Vector3::z())),
    );
}
