//! Bodies, materials and shapes.

use super::{Out, write_extras};
use crate::spec::FORMAT;
use crate::spec::MATERIAL_DEFAULTS;
use crate::spec::frames as convert;
use crate::spec::rotation as conv;
use crate::spec::velocity::written_velocity;
use mbconv_ir::format::kit::aids;
use mbconv_ir::{Body, ContactMaterial, Extras, Geometry, Inertial, Shape, ShapeRole};
use mbconv_yaml::emit::Yaml as Y;
use nalgebra::{UnitQuaternion, Vector3};

/// The orientation numbers to write: the kept ones when they reproduce `q`, fresh otherwise.
pub(crate) fn orientation(extras: &Extras, key: &str, q: &UnitQuaternion<f64>, degrees: bool) -> Y {
    if let Some(k) = aids::kept(extras, FORMAT, key)
        && convert::orientation_from(&k, degrees).is_some_and(|(back, n)| {
            (n - 1.0).abs() <= convert::UNIT_TOLERANCE && convert::same_rotation(&back, q)
        })
    {
        return Y::nums(&k);
    }
    Y::nums(&convert::orientation_to(q, degrees))
}

/// The kept numbers for `key` when `check` accepts them, else `fresh`.
pub(crate) fn kept_or(extras: &Extras, key: &str, fresh: &[f64], check: impl Fn(&[f64]) -> bool) -> Y {
    match aids::kept(extras, FORMAT, key) {
        Some(k) if check(&k) => Y::nums(&k),
        _ => Y::nums(fresh),
    }
}

pub(super) fn body(out: &Out, b: &Body) -> Y {
    let d = out.degrees;
    let mut m: Vec<(String, Y)> = vec![("name".into(), Y::Str(b.name.clone()))];
    if b.fixed {
        m.push(("fixed".into(), Y::Bool(true)));
    }
    m.push(("location".into(), Y::nums(&convert::v3(&b.pose.translation))));
    if aids::kept(&b.extras, FORMAT, "orientation").is_some()
        || !convert::same_rotation(&b.pose.rotation, &UnitQuaternion::identity())
    {
        m.push((
            "orientation".into(),
            orientation(&b.extras, "orientation", &b.pose.rotation, d),
        ));
    }
    let i = &b.inertial;
    if !b.fixed || *i != Inertial::default() {
        m.push(("mass".into(), Y::Num(i.mass)));
        let default_rot = convert::same_rotation(&i.inertia_rotation, &UnitQuaternion::identity());
        if !convert::same_vector(&i.com, &Vector3::zeros())
            || !default_rot
            || aids::kept(&b.extras, FORMAT, "com.orientation").is_some()
        {
            let mut com = vec![("location".into(), Y::nums(&convert::v3(&i.com)))];
            com.push((
                "orientation".into(),
                orientation(&b.extras, "com.orientation", &i.inertia_rotation, d),
            ));
            m.push(("com".into(), Y::Map(com)));
        }
        m.push((
            "inertia".into(),
            Y::Map(vec![
                ("moments".into(), Y::nums(&i.inertia.moments())),
                ("products".into(), Y::nums(&i.inertia.products())),
            ]),
        ));
    }
    if let Some(t) = &b.initial_velocity {
        let (v, w) = written_velocity(b, t);
        m.push(("initial_linear_velocity".into(), Y::nums(&convert::v3(&v))));
        m.push(("initial_angular_velocity".into(), Y::nums(&convert::v3(&w))));
    }
    let materials = &b.contact_materials;
    let mut collision = Vec::new();
    let mut visual = Vec::new();
    let mut model_file = None;
    for s in &b.shapes {
        if s.extras.get("chrono.model_file").is_some()
            && let Geometry::Mesh(mesh) = &s.geometry
            && model_file.is_none()
        {
            model_file = Some(mesh.uri.clone());
            continue;
        }
        if s.role.is_collision()
            && let Some(y) = shape(out, s, true, s.contact_material.clone())
        {
            collision.push(y);
        }
        if s.role.is_visual()
            && let Some(y) = shape(out, s, false, None)
        {
            visual.push(y);
        }
    }
    if !collision.is_empty() || !materials.is_empty() {
        let mats: Vec<Y> = materials.iter().map(material).collect();
        m.push((
            "contact".into(),
            Y::Map(vec![
                ("materials".into(), Y::Seq(mats)),
                ("shapes".into(), Y::Seq(collision)),
            ]),
        ));
    }
    if !visual.is_empty() || model_file.is_some() {
        let mut v = Vec::new();
        if let Some(f) = model_file {
            v.push(("model_file".into(), Y::Str(f)));
        }
        if !visual.is_empty() {
            v.push(("shapes".into(), Y::Seq(visual)));
        }
        m.push(("visualization".into(), Y::Map(v)));
    }
    write_extras(&mut m, &b.extras);
    Y::Map(m)
}

fn material(c: &ContactMaterial) -> Y {
    let d = MATERIAL_DEFAULTS;
    let v = |x: Option<f64>, i: usize| x.unwrap_or(d[i]);
    let mut m = vec![
        ("name".into(), Y::Str(c.name.clone())),
        ("coefficient_of_friction".into(), Y::Num(v(c.friction, 0))),
        ("coefficient_of_restitution".into(), Y::Num(v(c.restitution, 1))),
    ];
    let props = [v(c.young_modulus, 2), v(c.poisson_ratio, 3)];
    if props
        .iter()
        .zip(&d[2..4])
        .any(|(a, b)| a.to_bits() != b.to_bits())
    {
        m.push((
            "physical_properties".into(),
            Y::Map(vec![
                ("Young_modulus".into(), Y::Num(props[0])),
                ("Poisson_ratio".into(), Y::Num(props[1])),
            ]),
        ));
    }
    let k = [
        v(c.normal_stiffness, 4),
        v(c.normal_damping, 5),
        v(c.tangential_stiffness, 6),
        v(c.tangential_damping, 7),
    ];
    if k.iter().zip(&d[4..8]).any(|(a, b)| a.to_bits() != b.to_bits()) {
        let keys = [
            "normal_stiffness",
            "normal_damping",
            "tangential_stiffness",
            "tangential_damping",
        ];
        m.push((
            "coefficients".into(),
            Y::Map(
                keys.iter()
                    .zip(k)
                    .map(|(k, x)| ((*k).to_owned(), Y::Num(x)))
                    .collect(),
            ),
        ));
    }
    let mut entries = m;
    write_extras(&mut entries, &c.extras);
    Y::Map(entries)
}

/// One shape as a collision (`collision`) or a visual shape; `None` for what Chrono YAML has
/// no shape for (lowering removed those) and collision shapes without a material.
fn shape(out: &Out, s: &Shape, collision: bool, material: Option<String>) -> Option<Y> {
    let d = out.degrees;
    let location = ("location".to_owned(), Y::nums(&convert::v3(&s.pose.translation)));
    let mut m: Vec<(String, Y)> = Vec::new();
    let orient = || {
        (
            "orientation".to_owned(),
            orientation(&s.extras, "orientation", &s.pose.rotation, d),
        )
    };
    let identity = convert::same_rotation(&s.pose.rotation, &UnitQuaternion::identity());
    match &s.geometry {
        Geometry::Sphere { radius } => {
            m.push(("type".into(), Y::Plain("SPHERE".into())));
            m.push(location);
            m.push(("radius".into(), Y::Num(*radius)));
        }
        Geometry::Box { size } => {
            m.push(("type".into(), Y::Plain("BOX".into())));
            m.push(("dimensions".into(), Y::nums(size)));
            m.push(location);
            m.push(orient());
        }
        Geometry::Cylinder { radius, length } => {
            let axis = s.pose.rotation * Vector3::z();
            let reproduces = |k: &[f64]| {
                k.len() == 3
                    && conv::motor_frame_from_axis(&Vector3::new(k[0], k[1], k[2]))
                        .is_some_and(|q| convert::same_rotation(&q, &s.pose.rotation))
            };
            m.push(("type".into(), Y::Plain("CYLINDER".into())));
            m.push(location);
            m.push((
                "axis".into(),
                kept_or(&s.extras, "axis", &convert::v3(&axis), reproduces),
            ));
            m.push(("radius".into(), Y::Num(*radius)));
            m.push(("length".into(), Y::Num(*length)));
        }
        Geometry::Mesh(mesh) | Geometry::ConvexHull(mesh) => {
            let hull = matches!(s.geometry, Geometry::ConvexHull(_));
            m.push(("type".into(), Y::Plain(if hull { "HULL" } else { "MESH" }.into())));
            m.push(("filename".into(), Y::Str(mesh.uri.clone())));
            if !convert::same_vector(&s.pose.translation, &Vector3::zeros()) {
                m.push(location);
            }
            if !identity || aids::kept(&s.extras, FORMAT, "orientation").is_some() {
                m.push(orient());
            }
            let sx = mesh.scale[0];
            if sx.to_bits() != 1f64.to_bits() {
                m.push(("scale".into(), Y::Num(sx)));
            }
        }
        _ => return None,
    }
    if let Some(mat) = material {
        m.push(("material".into(), Y::Str(mat)));
        if let Some(r) = s.contact_radius {
            m.push(("contact_radius".into(), Y::Num(r)));
        }
    } else if collision {
        return None;
    }
    if !collision && let Some(c) = s.appearance.as_ref().and_then(|a| a.diffuse) {
        m.push(("color".into(), Y::nums(&c)));
    }
    if !matches!(s.role, ShapeRole::Both) || collision {
        write_extras(&mut m, &s.extras);
    }
    Some(Y::Map(m))
}
