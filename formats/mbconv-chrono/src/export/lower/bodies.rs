//! Bodies and their shapes: what Chrono YAML cannot say of a body (per-body gravity, named
//! frames, an asymmetric inertia tensor) and of a shape (shape kinds, appearance beyond the
//! diffuse colour, names, non-uniform mesh scales).

use crate::spec::frames as convert;
use crate::spec::rotation as conv;
use crate::spec::{DEFAULT_MATERIAL, FORMAT};
use mbconv_ir::format::kit::{LowerSession, aids};
use mbconv_ir::format::support::Feature;
use mbconv_ir::report::path;
use mbconv_ir::{Appearance, ContactMaterial, Geometry, Model, Shape};
use nalgebra::Vector3;

/// What Chrono YAML cannot say of a body: an asymmetric inertia tensor, gravity switched off,
/// named frames, other formats' extras.
pub(super) fn body_data(s: &mut LowerSession, model: &mut Model) {
    for b in &mut model.bodies {
        let ip = path::item("bodies", &b.name);
        let t = &mut b.inertial.inertia.0;
        if t[1][0].to_bits() != t[0][1].to_bits()
            || t[2][0].to_bits() != t[0][2].to_bits()
            || t[2][1].to_bits() != t[1][2].to_bits()
        {
            s.approximated(
                "inertia_asymmetric",
                Feature::MassProperties,
                &ip,
                "asymmetric inertia tensor written from its upper triangle",
            );
            (t[1][0], t[2][0], t[2][1]) = (t[0][1], t[0][2], t[1][2]);
        }
        for m in &mut b.contact_materials {
            s.strip_foreign_extras(&mut m.extras, &ip);
        }
        s.strip_foreign_extras(&mut b.extras, &ip);
    }
}

/// The shapes of every body as Chrono YAML can say them.
pub(super) fn shapes(s: &mut LowerSession, model: &mut Model) {
    for b in &mut model.bodies {
        let ip = path::item("bodies", &b.name);
        let mut shapes = Vec::new();
        let mut model_file_seen = false;
        for (idx, mut shape) in std::mem::take(&mut b.shapes).into_iter().enumerate() {
            let sp = path::index(&ip, "shapes", idx);
            let is_model_file = shape.extras.get("chrono.model_file").is_some()
                && matches!(shape.geometry, Geometry::Mesh(_))
                && !model_file_seen;
            if is_model_file {
                model_file_seen = true;
                shapes.push(shape);
                continue;
            }
            if one_shape(s, &mut shape, &mut b.contact_materials, &sp) {
                shapes.push(shape);
            }
        }
        b.shapes = shapes;
    }
}

/// Lowers one shape; false when Chrono YAML has no such shape.
fn one_shape(l: &mut LowerSession, s: &mut Shape, materials: &mut Vec<ContactMaterial>, sp: &str) -> bool {
    match &mut s.geometry {
        Geometry::Sphere { .. } | Geometry::Box { .. } => {}
        Geometry::Cylinder { .. } => cylinder_frame(l, s, sp),
        Geometry::Mesh(mesh) | Geometry::ConvexHull(mesh) => {
            let [sx, sy, sz] = mesh.scale;
            if sx.to_bits() != sy.to_bits() || sx.to_bits() != sz.to_bits() {
                l.approximated(
                    "mesh_scale_made_uniform",
                    Feature::Meshes,
                    sp,
                    format!("non-uniform mesh scale {:?} written as {sx}", mesh.scale),
                );
                mesh.scale = [sx; 3];
            }
            if mesh.node.take().is_some() {
                l.lost(
                    "mesh_node_lost",
                    Feature::Meshes,
                    sp,
                    "mesh node selection: Chrono loads the whole file",
                );
            }
        }
        other => {
            let kind = format!("{other:?}");
            let kind = kind.split([' ', '(', '{']).next().unwrap_or("shape").to_owned();
            l.lost(
                "shape_lost",
                Feature::Shapes,
                sp,
                format!("{kind} shapes cannot be written to Chrono YAML"),
            );
            return false;
        }
    }
    if s.role.is_collision() {
        if !s.collidable {
            l.lost(
                "collision_shape_made_collidable",
                Feature::Shapes,
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
                "default_contact_material",
                Feature::ContactMaterials,
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
                "appearance_lost",
                Feature::Appearance,
                sp,
                "appearance beyond the diffuse colour (alpha, specular, texture, …)",
            );
            *a = kept;
        }
    }
    if s.name.take().is_some() {
        l.lost_note(
            "shape_name_lost",
            Feature::Shapes,
            sp,
            "shape name: Chrono shapes have no names",
        );
    }
    l.strip_foreign_extras(&mut s.extras, sp);
    true
}

/// Chrono builds a cylinder's frame from its axis alone: a cylinder turned about its own axis
/// is the same cylinder, so its frame becomes the one Chrono builds (an exact equivalent).
fn cylinder_frame(l: &mut LowerSession, s: &mut Shape, sp: &str) {
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
        "cylinder_frame_turned",
        Feature::Shapes,
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
