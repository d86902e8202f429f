//! Bodies: mass properties, poses, initial velocities, contact materials and shapes.

use super::fields::{Ctx, Fields};
use crate::raw::Node;
use crate::spec::FORMAT;
use crate::spec::MATERIAL_DEFAULTS;
use crate::spec::frames as convert;
use crate::spec::rotation as conv;
use crate::spec::velocity::set_from_chrono;
use mbconv_ir::format::SourceError;
use mbconv_ir::format::kit::aids;
use mbconv_ir::report::path;
use mbconv_ir::{
    Appearance, Body, Category, ContactMaterial, Geometry, Inertia, MeshRef, Model, Pose, Severity, Shape,
    ShapeRole, Value,
};
use nalgebra::{UnitQuaternion, Vector3};
use std::collections::HashSet;

pub(super) fn bodies(ctx: &mut Ctx, model: &mut Model, list: &Node) -> Result<(), Box<SourceError>> {
    ctx.expect_list(list, "bodies")?;
    let mut seen = HashSet::new();
    for node in list.items() {
        let body = body(ctx, node, &mut seen)?;
        model.bodies.push(body);
    }
    Ok(())
}

fn body(ctx: &mut Ctx, node: &Node, seen: &mut HashSet<String>) -> Result<Body, Box<SourceError>> {
    let mut f = Fields::new(ctx, node, "a body")?;
    let name_node = f.req(ctx, "name")?;
    let name = ctx.string(name_node, "body name")?;
    ctx.unique(seen, &name, name_node, "bodies")?;
    let ip = path::item("bodies", &name);
    ctx.record(&ip, node);
    let mut b = Body::new(name.clone());
    if let Some(n) = f.get("fixed") {
        b.fixed = ctx.boolean(n, "fixed")?;
    }
    let location = ctx.vec3(f.req(ctx, "location")?, "body location")?;
    let mut body_raw = vec![1.0, 0.0, 0.0, 0.0];
    let rotation = match f.get("orientation") {
        Some(n) => {
            let (q, raw) = ctx.orientation(n, "body orientation", &ip)?;
            convert::keep_orientation(&mut b.extras, "orientation", &raw, &q, ctx.degrees);
            body_raw = raw;
            q
        }
        None => UnitQuaternion::identity(),
    };
    b.pose = Pose::new(location, rotation);

    let what = format!("body {name:?}");
    let mass = f.get("mass");
    let inertia = f.get("inertia");
    if b.fixed {
        if mass.is_some() || inertia.is_some() || f.has("com") {
            ctx.finding(
                "chrono.fixed_body_mass",
                Severity::Info,
                Category::Note,
                &ip,
                Some(node),
                "Chrono ignores the mass properties of a fixed body; mbconv keeps them".to_owned(),
            );
        }
    } else {
        if mass.is_none() {
            return Err(ctx.error(
                node,
                format!("missing required key `mass` in {what} (required unless fixed)"),
            ));
        }
        if inertia.is_none() {
            return Err(ctx.error(
                node,
                format!("missing required key `inertia` in {what} (required unless fixed)"),
            ));
        }
    }
    if let Some(m) = mass {
        b.inertial.mass = ctx.number(m, "mass")?;
    }
    if let Some(inode) = inertia {
        let mut fi = Fields::new(ctx, inode, "inertia")?;
        let moments = match fi.get("moments") {
            Some(n) => ctx.fixed::<3>(n, "inertia moments [Ixx, Iyy, Izz]")?,
            None if b.fixed => [1.0; 3],
            None => {
                return Err(ctx.error(
                    inode,
                    format!("missing required key `moments` in the inertia of {what}"),
                ));
            }
        };
        let products = match fi.get("products") {
            Some(n) => ctx.fixed::<3>(n, "inertia products [Ixy, Ixz, Iyz]")?,
            None => [0.0; 3],
        };
        b.inertial.inertia = Inertia::from_moments_products(moments, products);
        fi.finish_into(ctx, &mut b.extras, "inertia.", &ip);
    }
    if let Some(cnode) = f.get("com") {
        let mut fc = Fields::new(ctx, cnode, "com")?;
        if let Some(n) = fc.get("location") {
            b.inertial.com = ctx.vec3(n, "com location")?;
        }
        let mut com_raw = vec![1.0, 0.0, 0.0, 0.0];
        if let Some(n) = fc.get("orientation") {
            let (q, raw) = ctx.orientation(n, "com orientation", &ip)?;
            convert::keep_orientation(&mut b.extras, "com.orientation", &raw, &q, ctx.degrees);
            b.inertial.inertia_rotation = q;
            com_raw = raw;
        }
        com_as_built(ctx, &mut b, &body_raw, &com_raw, &ip, cnode);
        fc.finish_into(ctx, &mut b.extras, "com.", &ip);
    }
    velocities(ctx, &mut f, &mut b)?;
    if let Some(cnode) = f.get("contact") {
        contact(ctx, cnode, &mut b, &ip)?;
    }
    if let Some(vnode) = f.get("visualization") {
        visualization(ctx, vnode, &mut b, &ip)?;
    }
    f.finish_into(ctx, &mut b.extras, "", &ip);
    Ok(b)
}

/// Puts the centre of mass where Chrono's parser puts it when the body or COM orientation is a
/// non-unit quaternion (`spec::frames::chrono_com`), unless `normalize-quaternions` is set; the
/// move is a finding (`chrono.com_as_built`) with its size.
fn com_as_built(ctx: &mut Ctx, b: &mut Body, body_raw: &[f64], com_raw: &[f64], ip: &str, node: &Node) {
    let non_unit = |raw: &[f64]| {
        raw.len() == 4
            && convert::orientation_from(raw, ctx.degrees)
                .is_some_and(|(_, n)| (n - 1.0).abs() > convert::UNIT_TOLERANCE)
    };
    if ctx.normalize_quaternions
        || b.inertial.com == Vector3::zeros()
        || !(non_unit(body_raw) || non_unit(com_raw))
    {
        return;
    }
    let Some(built) = convert::chrono_com(body_raw, &b.pose.rotation, com_raw, &b.inertial.com, ctx.degrees)
    else {
        return;
    };
    let written = b.inertial.com;
    b.inertial.com = built;
    ctx.finding(
        "chrono.com_as_built",
        Severity::Warning,
        Category::Approximated,
        ip,
        Some(node),
        format!(
            "Chrono's parser puts the centre of mass at [{}, {}, {}] in the body frame (com.location [{}, {}, {}] through the matrices of the non-unit quaternions, {:.3e} m from where the unit rotation puts it); mbconv reads it there. Chrono then moves this body through a matrix that is not a rotation, which no rigid body does: a jointed such body moves unlike any rigid body in Chrono, and no conversion can reproduce it. Read with normalize-quaternions=true to normalise the quaternion as written",
            built.x,
            built.y,
            built.z,
            written.x,
            written.y,
            written.z,
            (built - written).norm()
        ),
    );
}

/// The initial velocities: Chrono's are the COM velocity (absolute) and the angular velocity
/// in the COM frame; the IR's are the body-origin velocity and angular velocity in the world.
fn velocities(ctx: &mut Ctx, f: &mut Fields, b: &mut Body) -> Result<(), Box<SourceError>> {
    let lin = f.get("initial_linear_velocity");
    let ang = f.get("initial_angular_velocity");
    if lin.is_none() && ang.is_none() {
        return Ok(());
    }
    let v_com = match lin {
        Some(n) => ctx.vec3(n, "initial_linear_velocity")?,
        None => Vector3::zeros(),
    };
    let w_local = match ang {
        Some(n) => ctx.vec3(n, "initial_angular_velocity")?,
        None => Vector3::zeros(),
    };
    set_from_chrono(b, &v_com, &w_local);
    Ok(())
}

fn contact(ctx: &mut Ctx, node: &Node, b: &mut Body, ip: &str) -> Result<(), Box<SourceError>> {
    let mut f = Fields::new(ctx, node, "contact")?;
    let mats = f.req(ctx, "materials")?;
    ctx.expect_list(mats, "materials")?;
    let mut seen = HashSet::new();
    for m in mats.items() {
        let mut fm = Fields::new(ctx, m, "a contact material")?;
        let name_node = fm.req(ctx, "name")?;
        let name = ctx.string(name_node, "material name")?;
        ctx.unique(&mut seen, &name, name_node, "contact materials")?;
        let mut cm = ContactMaterial::new(name.clone());
        let d = MATERIAL_DEFAULTS;
        let defaulted: Vec<String> = [
            ("coefficient_of_friction", "0.8"),
            ("coefficient_of_restitution", "0.01"),
            ("physical_properties", "Young_modulus 2e7, Poisson_ratio 0.3"),
            (
                "coefficients",
                "normal 2e5 N/m and 40 N·s/m, tangential 2e5 N/m and 20 N·s/m",
            ),
        ]
        .iter()
        .filter(|(k, _)| !fm.has(k))
        .map(|(k, v)| format!("{k}: {v}"))
        .collect();
        if !defaulted.is_empty() {
            ctx.finding(
                "chrono.default",
                Severity::Info,
                Category::Defaulted,
                ip,
                Some(m),
                format!(
                    "contact material {name:?} takes Chrono's defaults: {}",
                    defaulted.join("; ")
                ),
            );
        }
        cm.friction = Some(opt_num(ctx, &mut fm, "coefficient_of_friction", d[0])?);
        cm.restitution = Some(opt_num(ctx, &mut fm, "coefficient_of_restitution", d[1])?);
        let (e, nu) = match fm.get("physical_properties") {
            Some(p) => {
                let mut fp = Fields::new(ctx, p, "physical_properties")?;
                let e = ctx.number(fp.req(ctx, "Young_modulus")?, "Young_modulus")?;
                let nu = ctx.number(fp.req(ctx, "Poisson_ratio")?, "Poisson_ratio")?;
                fp.finish_into(ctx, &mut cm.extras, "physical_properties.", ip);
                (e, nu)
            }
            None => (d[2], d[3]),
        };
        cm.young_modulus = Some(e);
        cm.poisson_ratio = Some(nu);
        let k = match fm.get("coefficients") {
            Some(c) => {
                let mut fc = Fields::new(ctx, c, "coefficients")?;
                let mut k = [0.0; 4];
                for (i, key) in [
                    "normal_stiffness",
                    "normal_damping",
                    "tangential_stiffness",
                    "tangential_damping",
                ]
                .iter()
                .enumerate()
                {
                    k[i] = ctx.number(fc.req(ctx, key)?, key)?;
                }
                fc.finish_into(ctx, &mut cm.extras, "coefficients.", ip);
                k
            }
            None => [d[4], d[5], d[6], d[7]],
        };
        cm.normal_stiffness = Some(k[0]);
        cm.normal_damping = Some(k[1]);
        cm.tangential_stiffness = Some(k[2]);
        cm.tangential_damping = Some(k[3]);
        fm.finish_into(ctx, &mut cm.extras, "", ip);
        b.contact_materials.push(cm);
    }
    let shapes = f.req(ctx, "shapes")?;
    ctx.expect_list(shapes, "shapes")?;
    for s in shapes.items() {
        if let Some(shape) = shape(ctx, s, b, ip, ShapeRole::Collision)? {
            b.shapes.push(shape);
        }
    }
    f.finish_into(ctx, &mut b.extras, "contact.", ip);
    Ok(())
}

fn opt_num(ctx: &mut Ctx, f: &mut Fields, key: &str, default: f64) -> Result<f64, Box<SourceError>> {
    match f.get(key) {
        Some(n) => ctx.number(n, key),
        None => Ok(default),
    }
}

fn visualization(ctx: &mut Ctx, node: &Node, b: &mut Body, ip: &str) -> Result<(), Box<SourceError>> {
    let mut f = Fields::new(ctx, node, "visualization")?;
    if let Some(file) = f.get("model_file") {
        let uri = ctx.string(file, "model_file")?;
        let mut mesh = MeshRef::new(uri.clone());
        mesh.resolved_path = ctx.resolve(&uri);
        let mut shape = Shape::new(ShapeRole::Visual, Geometry::Mesh(mesh));
        shape.extras.insert("chrono.model_file", Value::Bool(true));
        ctx.record(&path::index(ip, "shapes", b.shapes.len()), file);
        b.shapes.push(shape);
    }
    if let Some(shapes) = f.get("shapes") {
        ctx.expect_list(shapes, "shapes")?;
        for s in shapes.items() {
            if let Some(shape) = shape(ctx, s, b, ip, ShapeRole::Visual)? {
                b.shapes.push(shape);
            }
        }
    }
    f.finish_into(ctx, &mut b.extras, "visualization.", ip);
    Ok(())
}

/// One shape of a body's `visualization` or `collision` list (by `role`).
fn shape(
    ctx: &mut Ctx,
    node: &Node,
    b: &Body,
    ip: &str,
    role: ShapeRole,
) -> Result<Option<Shape>, Box<SourceError>> {
    let sp = path::index(ip, "shapes", b.shapes.len());
    let mut f = Fields::new(ctx, node, "a shape")?;
    let ty_node = f.req(ctx, "type")?;
    let ty = ctx.upper(ty_node, "shape type")?;
    let collision = role == ShapeRole::Collision;
    let mut extras = mbconv_ir::Extras::default();
    let mut pose = Pose::identity();
    let req_location = !matches!(ty.as_str(), "MESH" | "HULL");
    match f.get("location") {
        Some(n) => pose.translation = ctx.vec3(n, "shape location")?,
        None if req_location => {
            return Err(ctx.error(node, format!("missing required key `location` in a {ty} shape")));
        }
        None => {}
    }
    let mut frame = ShapeFrame {
        sp: &sp,
        extras: &mut extras,
        pose: &mut pose,
    };
    let geometry = match ty.as_str() {
        "SPHERE" => Geometry::Sphere {
            radius: ctx.number(f.req(ctx, "radius")?, "sphere radius")?,
        },
        "BOX" => {
            frame.orientation(ctx, &mut f, true)?;
            Geometry::Box {
                size: ctx.fixed::<3>(f.req(ctx, "dimensions")?, "box dimensions")?,
            }
        }
        "CYLINDER" => cylinder(ctx, &mut f, &mut frame)?,
        "MESH" | "HULL" => mesh_or_hull(ctx, &mut f, node, &ty, collision, &mut frame)?,
        other => return unknown_shape(ctx, ty_node, other, &sp),
    };
    let mut shape = Shape::new(role, geometry);
    shape.pose = pose;
    surface(ctx, &mut f, b, &ty, collision, &mut shape)?;
    f.finish_into(ctx, &mut extras, "", &sp);
    shape.extras = extras;
    ctx.record(&sp, node);
    Ok(Some(shape))
}

/// What a shape's geometry keys set besides the geometry: its pose and the extras keeping
/// written orientations and axes, for the shape at IR path `sp`.
struct ShapeFrame<'a> {
    sp: &'a str,
    extras: &'a mut mbconv_ir::Extras,
    pose: &'a mut Pose,
}

impl ShapeFrame<'_> {
    /// `orientation` (Chrono's parser requires it on a BOX: `required`).
    fn orientation(&mut self, ctx: &mut Ctx, f: &mut Fields, required: bool) -> Result<(), Box<SourceError>> {
        match f.get("orientation") {
            Some(n) => {
                let (q, raw) = ctx.orientation(n, "shape orientation", self.sp)?;
                convert::keep_orientation(self.extras, "orientation", &raw, &q, ctx.degrees);
                self.pose.rotation = q;
                Ok(())
            }
            None if required => Err(ctx.error(
                f.node(),
                "missing required key `orientation` in a BOX shape (Chrono's parser requires it)",
            )),
            None => Ok(()),
        }
    }
}

/// A CYLINDER: `radius`, `length` and an `axis` that turns the shape's Z axis.
fn cylinder(ctx: &mut Ctx, f: &mut Fields, frame: &mut ShapeFrame) -> Result<Geometry, Box<SourceError>> {
    let axis_node = f.req(ctx, "axis")?;
    let axis = ctx.vec3(axis_node, "cylinder axis")?;
    let q = conv::motor_frame_from_axis(&axis)
        .ok_or_else(|| ctx.error(axis_node, "the cylinder axis is zero"))?;
    aids::keep(
        frame.extras,
        FORMAT,
        "axis",
        &convert::v3(&axis),
        &convert::v3(&(q * Vector3::z())),
    );
    frame.pose.rotation = q;
    Ok(Geometry::Cylinder {
        radius: ctx.number(f.req(ctx, "radius")?, "cylinder radius")?,
        length: ctx.number(f.req(ctx, "length")?, "cylinder length")?,
    })
}

/// A MESH or HULL (`ty`): a mesh file with an optional uniform `scale`. A HULL in a
/// visualization list, which Chrono's parser ignores, is kept and noted.
fn mesh_or_hull(
    ctx: &mut Ctx,
    f: &mut Fields,
    node: &Node,
    ty: &str,
    collision: bool,
    frame: &mut ShapeFrame,
) -> Result<Geometry, Box<SourceError>> {
    frame.orientation(ctx, f, false)?;
    let uri = ctx.string(f.req(ctx, "filename")?, "filename")?;
    let mut mesh = MeshRef::new(uri.clone());
    mesh.resolved_path = ctx.resolve(&uri);
    if let Some(s) = f.get("scale") {
        let s = ctx.number(s, "mesh scale")?;
        mesh.scale = [s; 3];
    }
    if ty == "MESH" {
        return Ok(Geometry::Mesh(mesh));
    }
    if !collision {
        ctx.finding(
            "chrono.visual_hull",
            Severity::Warning,
            Category::Ignored,
            frame.sp,
            Some(node),
            "Chrono's parser ignores HULL shapes in visualization lists; kept as a visual convex hull".into(),
        );
    }
    Ok(Geometry::ConvexHull(mesh))
}

/// An unknown shape type: skipped and noted when reading leniently (as Chrono does), an error
/// otherwise.
fn unknown_shape(
    ctx: &mut Ctx,
    ty_node: &Node,
    other: &str,
    sp: &str,
) -> Result<Option<Shape>, Box<SourceError>> {
    if ctx.lenient {
        ctx.finding(
            "chrono.unknown_shape",
            Severity::Warning,
            Category::Dropped,
            sp,
            Some(ty_node),
            format!("unknown shape type {other:?} skipped, as Chrono does"),
        );
        return Ok(None);
    }
    Err(ctx.error(
        ty_node,
        format!("unknown shape type {other:?}; expected SPHERE, BOX, CYLINDER, MESH or HULL (Chrono would skip it; read with lenient=true to do the same)"),
    ))
}

/// A collision shape's contact `material` (one of the body's) and a MESH's `contact_radius`;
/// a visual shape's `color`.
fn surface(
    ctx: &mut Ctx,
    f: &mut Fields,
    b: &Body,
    ty: &str,
    collision: bool,
    shape: &mut Shape,
) -> Result<(), Box<SourceError>> {
    if collision {
        let mat_node = f.req(ctx, "material")?;
        let mat = ctx.string(mat_node, "shape material")?;
        if !b.contact_materials.iter().any(|m| m.name == mat) {
            return Err(ctx.error(
                mat_node,
                format!("unknown contact material {mat:?}: not among this body's materials"),
            ));
        }
        shape.contact_material = Some(mat);
        if ty == "MESH"
            && let Some(r) = f.get("contact_radius")
        {
            shape.contact_radius = Some(ctx.number(r, "contact_radius")?);
        }
    } else if let Some(c) = f.get("color") {
        let rgb = ctx.fixed::<3>(c, "color [r, g, b]")?;
        shape.appearance = Some(Appearance {
            diffuse: Some(rgb),
            ..Appearance::default()
        });
    }
    Ok(())
}
