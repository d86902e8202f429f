//! Items between bodies: joints, constraints, TSDAs, RSDAs, motors and body loads.

use super::fields::{Ctx, Fields};
use crate::raw::Node;
use crate::spec::frames::{self as convert, JointGeometry, JointType};
use crate::spec::{self, FORMAT};
use mbconv_ir::format::SourceError;
use mbconv_ir::format::kit::aids;
use mbconv_ir::report::path;
use mbconv_ir::{
    BodyRef, BushingConstants, Category, Constraint, ConstraintKind, Extras, Joint, JointBushing, Model,
    Pose, Severity,
};
use nalgebra::Vector3;
use std::collections::HashSet;

/// The frames on body 1 (pose `p1`) and body 2 (pose `p2`) of a motor or RSDA given by an
/// absolute `location` and `axis` (Chrono's motor frame, Z = axis), with the written location
/// and axis kept as exactness aids in `extras`. A zero axis is an error at `axis_node`.
#[allow(clippy::too_many_arguments)]
pub(super) fn axis_frames(
    ctx: &Ctx,
    axis_node: &Node,
    what: &str,
    location: &Vector3<f64>,
    axis: &Vector3<f64>,
    p1: &Pose,
    p2: &Pose,
    extras: &mut Extras,
) -> Result<(Pose, Pose), Box<SourceError>> {
    let frame = convert::axis_frame(location, axis)
        .ok_or_else(|| ctx.error(axis_node, format!("the {what} axis is zero")))?;
    let frame1 = convert::to_local_frame(p1, &frame);
    let frame2 = convert::to_local_frame(p2, &frame);
    let back = *p1 * frame1;
    aids::keep(
        extras,
        FORMAT,
        "location",
        &convert::v3(location),
        &convert::v3(&back.translation),
    );
    aids::keep(
        extras,
        FORMAT,
        "axis",
        &convert::v3(axis),
        &convert::v3(&(back.rotation * Vector3::z())),
    );
    Ok((frame1, frame2))
}

pub(super) fn body_pose(
    ctx: &Ctx,
    model: &Model,
    f: &mut Fields,
    key: &str,
) -> Result<(String, Pose), Box<SourceError>> {
    let node = f.req(ctx, key)?;
    let name = ctx.string(node, key)?;
    match model.body(&name) {
        Some(b) => Ok((name, b.pose)),
        None => Err(ctx.error(
            node,
            format!("unknown body name {name:?} in `{key}`: no body has this name"),
        )),
    }
}

pub(super) fn named<'n>(
    ctx: &mut Ctx,
    node: &'n Node,
    what: &str,
    list: &str,
    seen: &mut HashSet<String>,
) -> Result<(Fields<'n>, String, String), Box<SourceError>> {
    let mut f = Fields::new(ctx, node, what)?;
    let name_node = f.req(ctx, "name")?;
    let name = ctx.string(name_node, "name")?;
    ctx.unique(seen, &name, name_node, list)?;
    let ip = path::item(list, &name);
    ctx.record(&ip, node);
    Ok((f, name, ip))
}

pub(super) fn joints(ctx: &mut Ctx, model: &mut Model, list: &Node) -> Result<(), Box<SourceError>> {
    let mut seen = HashSet::new();
    for node in list.items() {
        let (mut f, name, ip) = named(ctx, node, "a joint", "joints", &mut seen)?;
        let ty = joint_type(ctx, &mut f, &ip)?;
        let (b1, p1) = body_pose(ctx, model, &mut f, "body1")?;
        let (b2, p2) = body_pose(ctx, model, &mut f, "body2")?;
        let location = ctx.vec3(f.req(ctx, "location")?, "joint location")?;
        let mut g = JointGeometry {
            location,
            axis: None,
            axes: None,
        };
        let mut axis_node = None;
        match ty {
            JointType::Revolute | JointType::Prismatic => {
                let n = f.req(ctx, "axis")?;
                g.axis = Some(ctx.vec3(n, "joint axis")?);
                axis_node = Some(n);
            }
            JointType::Universal => {
                let n1 = f.req(ctx, "axis1")?;
                let n2 = f.req(ctx, "axis2")?;
                g.axes = Some((ctx.vec3(n1, "axis1")?, ctx.vec3(n2, "axis2")?));
                axis_node = Some(n1);
            }
            _ => {}
        }
        let frame = convert::joint_frame(ty, &g).ok_or_else(|| {
            ctx.error(
                axis_node.unwrap_or(node),
                "the joint axis is zero (or axis1 and axis2 are parallel)",
            )
        })?;
        let mut joint = Joint::new(name.clone(), ty.kind(), BodyRef::body(b1), BodyRef::body(b2));
        joint.parent_frame = convert::to_local_frame(&p1, &frame);
        joint.child_frame = convert::to_local_frame(&p2, &frame);
        let fresh = convert::joint_geometry(ty, &(p1 * joint.parent_frame));
        aids::keep(
            &mut joint.extras,
            FORMAT,
            "location",
            &convert::v3(&location),
            &convert::v3(&fresh.location),
        );
        if let (Some(a), Some(fa)) = (g.axis, fresh.axis) {
            aids::keep(
                &mut joint.extras,
                FORMAT,
                "axis",
                &convert::v3(&a),
                &convert::v3(&fa),
            );
        }
        if let (Some((a1, a2)), Some((f1, f2))) = (g.axes, fresh.axes) {
            aids::keep(
                &mut joint.extras,
                FORMAT,
                "axis1",
                &convert::v3(&a1),
                &convert::v3(&f1),
            );
            aids::keep(
                &mut joint.extras,
                FORMAT,
                "axis2",
                &convert::v3(&a2),
                &convert::v3(&f2),
            );
        }
        if let Some(bn) = f.get("bushing_data") {
            joint.bushing = Some(bushing(ctx, bn, ty, &mut joint.extras, &ip)?);
        }
        f.finish_into(ctx, &mut joint.extras, "", &ip);
        model.joints.push(joint);
    }
    Ok(())
}

/// A joint's `type`; an unknown type is read as LOCK (noted) when reading leniently, as Chrono
/// does, and an error otherwise.
fn joint_type(ctx: &mut Ctx, f: &mut Fields, ip: &str) -> Result<JointType, Box<SourceError>> {
    let ty_node = f.req(ctx, "type")?;
    let upper = ctx.upper(ty_node, "joint type")?;
    match JointType::parse(&upper) {
        Some(t) => Ok(t),
        None if ctx.lenient => {
            ctx.finding(
                "chrono.unknown_joint_type",
                Severity::Warning,
                Category::Approximated,
                ip,
                Some(ty_node),
                format!("unknown joint type {upper:?} read as LOCK, as Chrono does"),
            );
            Ok(JointType::Lock)
        }
        None => Err(ctx.error(
            ty_node,
            format!("unknown joint type {upper:?}; expected LOCK, REVOLUTE, SPHERICAL, PRISMATIC, UNIVERSAL, POINT_LINE or POINT_PLANE (Chrono would silently use LOCK; read with lenient=true to do the same)"),
        )),
    }
}

/// A joint's `bushing_data` (node `bn`): the constrained directions' constants and, under
/// `DOF`, the free ones'; not allowed on a PRISMATIC, POINT_LINE or POINT_PLANE joint.
fn bushing(
    ctx: &mut Ctx,
    bn: &Node,
    ty: JointType,
    extras: &mut Extras,
    ip: &str,
) -> Result<JointBushing, Box<SourceError>> {
    if matches!(
        ty,
        JointType::Prismatic | JointType::PointLine | JointType::PointPlane
    ) {
        return Err(ctx.error(
            bn,
            format!("bushing_data on a {} joint: Chrono allows bushings only on LOCK, REVOLUTE, SPHERICAL and UNIVERSAL joints", ty.name()),
        ));
    }
    let mut fb = Fields::new(ctx, bn, "bushing_data")?;
    let constrained = constants(ctx, &mut fb)?;
    let free = match fb.get("DOF") {
        Some(d) => {
            let mut fd = Fields::new(ctx, d, "DOF")?;
            let c = constants(ctx, &mut fd)?;
            fd.finish_into(ctx, extras, "bushing_data.DOF.", ip);
            Some(c)
        }
        None => None,
    };
    fb.finish_into(ctx, extras, "bushing_data.", ip);
    Ok(JointBushing { constrained, free })
}

fn constants(ctx: &Ctx, f: &mut Fields) -> Result<BushingConstants, Box<SourceError>> {
    let mut v = [0.0; 4];
    for (i, key) in [
        "stiffness_linear",
        "damping_linear",
        "stiffness_rotational",
        "damping_rotational",
    ]
    .iter()
    .enumerate()
    {
        v[i] = ctx.number(f.req(ctx, key)?, key)?;
    }
    Ok(BushingConstants {
        stiffness_linear: v[0],
        damping_linear: v[1],
        stiffness_rotational: v[2],
        damping_rotational: v[3],
    })
}

/// A point given in absolute coordinates, in body coordinates, with the written value kept
/// when the writer would not reproduce it.
pub(super) fn local_point(
    ctx: &Ctx,
    f: &mut Fields,
    key: &str,
    pose: &Pose,
    extras: &mut Extras,
) -> Result<Vector3<f64>, Box<SourceError>> {
    let p = ctx.vec3(f.req(ctx, key)?, key)?;
    let local = convert::to_local_point(pose, &p);
    aids::keep(
        extras,
        FORMAT,
        key,
        &convert::v3(&p),
        &convert::v3(&convert::to_world_point(pose, &local)),
    );
    Ok(local)
}

pub(super) fn constraints(ctx: &mut Ctx, model: &mut Model, list: &Node) -> Result<(), Box<SourceError>> {
    let mut seen = HashSet::new();
    for node in list.items() {
        let (mut f, name, ip) = named(ctx, node, "a constraint", "constraints", &mut seen)?;
        let ty_node = f.req(ctx, "type")?;
        let ty = ctx.upper(ty_node, "constraint type")?;
        if !matches!(
            ty.as_str(),
            "DISTANCE" | "REVOLUTE-SPHERICAL" | "REVOLUTE-TRANSLATIONAL"
        ) {
            if ctx.lenient {
                ctx.finding(
                    "chrono.unknown_constraint",
                    Severity::Warning,
                    Category::Dropped,
                    &ip,
                    Some(ty_node),
                    format!("unknown constraint type {ty:?} dropped, as Chrono does"),
                );
                continue;
            }
            return Err(ctx.error(
                ty_node,
                format!("unknown constraint type {ty:?}; expected DISTANCE, REVOLUTE-SPHERICAL or REVOLUTE-TRANSLATIONAL"),
            ));
        }
        let mut extras = Extras::default();
        let (b1, p1) = body_pose(ctx, model, &mut f, "body1")?;
        let (b2, p2) = body_pose(ctx, model, &mut f, "body2")?;
        let point1 = local_point(ctx, &mut f, "point1", &p1, &mut extras)?;
        let point2 = local_point(ctx, &mut f, "point2", &p2, &mut extras)?;
        let (body1, body2) = (BodyRef::body(b1), BodyRef::body(b2));
        let kind = match ty.as_str() {
            "DISTANCE" => ConstraintKind::Distance {
                body1,
                point1,
                body2,
                point2,
                distance: None,
            },
            "REVOLUTE-SPHERICAL" => ConstraintKind::RevoluteSpherical {
                body1,
                point1,
                axis1: None,
                body2,
                point2,
                distance: None,
            },
            _ => ConstraintKind::RevoluteTranslational {
                body1,
                point1,
                axis1: None,
                body2,
                point2,
                axis2: None,
                distance: None,
            },
        };
        // Chrono's parser creates a link for DISTANCE only: the model Chrono runs has no other
        // constraint, so the IR keeps the others disabled (a writer can still say them).
        let built = spec::constraint_is_built(&kind);
        if !built {
            ctx.finding(
                "chrono.constraint_not_built",
                Severity::Warning,
                Category::Ignored,
                &ip,
                Some(ty_node),
                format!("Chrono's parser accepts {ty} but creates nothing for it (empty branch); mbconv keeps the constraint, disabled, as Chrono runs the model"),
            );
        }
        f.finish_into(ctx, &mut extras, "", &ip);
        model.constraints.push(Constraint {
            name,
            kind,
            enabled: built,
            extras,
        });
    }
    Ok(())
}
