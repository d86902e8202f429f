//! Bodies, materials and shapes.

use super::{Out, write_extras};
use crate::convert::{self, kept};
use crate::emit::Y;
use crate::import::{MATERIAL_DEFAULTS, twist_to_chrono};
use mbconv_ir::report::path;
use mbconv_ir::rotation::chrono as conv;
use mbconv_ir::{Body, Category, ContactMaterial, Extras, Geometry, Inertial, Shape, ShapeRole};
use nalgebra::{UnitQuaternion, Vector3};

/// The orientation numbers to write: the kept ones when they reproduce `q`, fresh otherwise.
pub(crate) fn orientation(extras: &Extras, key: &str, q: &UnitQuaternion<f64>, degrees: bool) -> Y {
    if let Some(k) = kept(extras, key)
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
    match kept(extras, key) {
        Some(k) if check(&k) => Y::nums(&k),
        _ => Y::nums(fresh),
    }
}

pub(super) fn body(out: &mut Out, b: &Body) -> Y {
    let ip = path::item("bodies", &b.name);
    let d = out.degrees;
    let mut m: Vec<(String, Y)> = vec![("name".into(), Y::Str(b.name.clone()))];
    if b.fixed {
        m.push(("fixed".into(), Y::Bool(true)));
    }
    m.push(("location".into(), Y::nums(&convert::v3(&b.pose.translation))));
    if kept(&b.extras, "orientation").is_some()
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
            || kept(&b.extras, "com.orientation").is_some()
        {
            let mut com = vec![("location".into(), Y::nums(&convert::v3(&i.com)))];
            com.push((
                "orientation".into(),
                orientation(&b.extras, "com.orientation", &i.inertia_rotation, d),
            ));
            m.push(("com".into(), Y::Map(com)));
        }
        let t = i.inertia.0;
        if t[1][0].to_bits() != t[0][1].to_bits()
            || t[2][0].to_bits() != t[0][2].to_bits()
            || t[2][1].to_bits() != t[1][2].to_bits()
        {
            out.lost(
                Category::Approximated,
                &ip,
                "asymmetric inertia tensor written from its upper triangle",
            );
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
        let (v, w) = twist_to_chrono(b, t);
        let kv = kept(&b.extras, "initial_linear_velocity").filter(|k| k.len() == 3);
        let kw = kept(&b.extras, "initial_angular_velocity").filter(|k| k.len() == 3);
        let cv = kv.map_or(v, |k| Vector3::new(k[0], k[1], k[2]));
        let cw = kw.map_or(w, |k| Vector3::new(k[0], k[1], k[2]));
        let back = crate::import::twist_from_chrono(b, &cv, &cw);
        let (v, w) = if convert::same_vector(&back.linear, &t.linear)
            && convert::same_vector(&back.angular, &t.angular)
        {
            (cv, cw)
        } else {
            (v, w)
        };
        m.push(("initial_linear_velocity".into(), Y::nums(&convert::v3(&v))));
        m.push(("initial_angular_velocity".into(), Y::nums(&convert::v3(&w))));
    }
    if !b.gravity {
        out.lost(
            Category::Dropped,
            &ip,
            "Chrono YAML cannot switch gravity off for one body",
        );
    }
    for f in &b.frames {
        out.lost(
            Category::Dropped,
            &path::field(&ip, "frames"),
            format!("named frame {:?}: Chrono YAML has no body frames", f.name),
        );
    }
    let mut materials: Vec<ContactMaterial> = b.contact_materials.clone();
    let mut collision = Vec::new();
    let mut visual = Vec::new();
    let mut model_file = None;
    for (idx, s) in b.shapes.iter().enumerate() {
        let sp = path::index(&ip, "shapes", idx);
        if s.extras.get("chrono.model_file").is_some()
            && let Geometry::Mesh(mesh) = &s.geometry
            && model_file.is_none()
        {
            model_file = Some(mesh.uri.clone());
            continue;
        }
        if s.role.is_collision() {
            if !s.collidable {
                out.lost(
                    Category::Dropped,
                    &sp,
                    "non-collidable collision shape written as collidable",
                );
            }
            let mut material = s.contact_material.clone();
            if material.is_none() {
                if !materials.iter().any(|m| m.name == "default") {
                    materials.push(ContactMaterial::new("default"));
                }
                out.note(
                    &sp,
                    "collision shape without material uses an added material \"default\" (Chrono defaults)",
                );
                material = Some("default".into());
            }
            if let Some(y) = shape(out, s, &sp, true, material) {
                collision.push(y);
            }
        }
        if s.role.is_visual()
            && let Some(y) = shape(out, s, &sp, false, None)
        {
            visual.push(y);
        }
    }
    if !collision.is_empty() || !materials.is_empty() {
        let mats: Vec<Y> = materials.iter().map(|c| material(out, c, &ip)).collect();
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
    write_extras(out, &mut m, &b.extras, &ip);
    Y::Map(m)
}

fn material(out: &mut Out, c: &ContactMaterial, ip: &str) -> Y {
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
    write_extras(out, &mut entries, &c.extras, ip);
    Y::Map(entries)
}

fn shape(out: &mut Out, s: &Shape, sp: &str, collision: bool, material: Option<String>) -> Option<Y> {
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
            if !reproduces(&convert::v3(&axis)) && kept(&s.extras, "axis").is_none_or(|k| !reproduces(&k)) {
                out.note(
                    sp,
                    "cylinder turned about its own axis: Chrono builds the frame from the axis alone",
                );
            }
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
            if !identity || kept(&s.extras, "orientation").is_some() {
                m.push(orient());
            }
            let [sx, sy, sz] = mesh.scale;
            if sx.to_bits() != sy.to_bits() || sx.to_bits() != sz.to_bits() {
                out.lost(
                    Category::Approximated,
                    sp,
                    format!("non-uniform mesh scale {:?} written as {sx}", mesh.scale),
                );
            }
            if sx.to_bits() != 1f64.to_bits() {
                m.push(("scale".into(), Y::Num(sx)));
            }
            if mesh.node.is_some() {
                out.lost(
                    Category::Dropped,
                    sp,
                    "mesh node selection: Chrono loads the whole file",
                );
            }
        }
        other => {
            let kind = format!("{other:?}");
            let kind = kind.split([' ', '(', '{']).next().unwrap_or("shape").to_owned();
            out.lost(
                Category::Dropped,
                sp,
                format!("{kind} shapes cannot be written to Chrono YAML"),
            );
            return None;
        }
    }
    if let Some(mat) = material {
        m.push(("material".into(), Y::Str(mat)));
        if let Some(r) = s.contact_radius {
            m.push(("contact_radius".into(), Y::Num(r)));
        }
    } else if collision {
        return None;
    }
    if !collision && let Some(a) = &s.appearance {
        if let Some(c) = a.diffuse {
            m.push(("color".into(), Y::nums(&c)));
        }
        let other = a.alpha.is_some()
            || a.specular.is_some()
            || a.emissive.is_some()
            || a.ambient_intensity.is_some()
            || a.shininess.is_some()
            || a.transparency.is_some()
            || a.texture.is_some();
        if other {
            out.lost(
                Category::Dropped,
                sp,
                "appearance beyond the diffuse colour (alpha, specular, texture, …)",
            );
        }
    }
    if s.name.is_some() {
        out.lost(Category::Dropped, sp, "shape name: Chrono shapes have no names");
    }
    if !matches!(s.role, ShapeRole::Both) || collision {
        write_extras(out, &mut m, &s.extras, sp);
    }
    Some(Y::Map(m))
}
