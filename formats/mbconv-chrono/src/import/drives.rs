//! Motors and body loads (and load controllers).

use super::fields::{Ctx, Fields};
use super::function::function;
use super::links::{axis_frames, body_pose, named};
use crate::raw::Node;
use crate::spec::FORMAT;
use crate::spec::frames as convert;
use mbconv_ir::format::SourceError;
use mbconv_ir::format::kit::aids;
use mbconv_ir::{
    BodyLoad, BodyRef, Extras, LoadType, Model, Motor, MotorActuation, MotorGuide, MotorTarget, MotorType,
};
use nalgebra::{UnitQuaternion, Vector3};
use std::collections::HashSet;

pub(super) fn motors(ctx: &mut Ctx, model: &mut Model, list: &Node) -> Result<(), Box<SourceError>> {
    let mut seen = HashSet::new();
    for node in list.items() {
        let (mut f, name, ip) = named(ctx, node, "a motor", "motors", &mut seen)?;
        let mut extras = Extras::default();
        let ty_node = f.req(ctx, "type")?;
        let motor_type = match ctx.upper(ty_node, "motor type")?.as_str() {
            "LINEAR" => MotorType::Linear,
            "ROTATION" => MotorType::Rotation,
            other => {
                return Err(ctx.error(
                    ty_node,
                    format!("unknown motor type {other:?}; expected LINEAR or ROTATION"),
                ));
            }
        };
        let (b1, p1) = body_pose(ctx, model, &mut f, "body1")?;
        let (b2, p2) = body_pose(ctx, model, &mut f, "body2")?;
        let location = ctx.vec3(f.req(ctx, "location")?, "motor location")?;
        let axis_node = f.req(ctx, "axis")?;
        let axis = ctx.vec3(axis_node, "motor axis")?;
        let (frame1, frame2) = axis_frames(ctx, axis_node, "motor", &location, &axis, &p1, &p2, &mut extras)?;
        let act_node = f.req(ctx, "actuation_type")?;
        let actuation = match ctx.upper(act_node, "actuation_type")?.as_str() {
            "POSITION" => MotorActuation::Position,
            "SPEED" => MotorActuation::Speed,
            "FORCE" => MotorActuation::Force,
            other => {
                return Err(ctx.error(
                    act_node,
                    format!("unknown actuation_type {other:?}; expected POSITION, SPEED or FORCE (Chrono would crash)"),
                ));
            }
        };
        let (guide_key, default) = match motor_type {
            MotorType::Linear => ("guide", MotorGuide::Prismatic),
            MotorType::Rotation => ("spindle", MotorGuide::Revolute),
        };
        let guide = match f.get(guide_key) {
            Some(g) => {
                let v = ctx.upper(g, guide_key)?;
                match (motor_type, v.as_str()) {
                    (_, "FREE") => MotorGuide::Free,
                    (MotorType::Linear, "PRISMATIC") => MotorGuide::Prismatic,
                    (MotorType::Linear, "SPHERICAL") => MotorGuide::Spherical,
                    (MotorType::Rotation, "REVOLUTE") => MotorGuide::Revolute,
                    (MotorType::Rotation, "CYLINDRICAL") => MotorGuide::Cylindrical,
                    _ => {
                        let expected = if motor_type == MotorType::Linear {
                            "FREE, PRISMATIC or SPHERICAL"
                        } else {
                            "FREE, REVOLUTE or CYLINDRICAL"
                        };
                        return Err(ctx.error(g, format!("unknown {guide_key} {v:?}; expected {expected}")));
                    }
                }
            }
            None => {
                ctx.defaulted(&ip, Some(node), &format!("{guide_key} defaults to {default:?}"));
                default
            }
        };
        let fnode = f.req(ctx, "actuation_function")?;
        let func = function(ctx, fnode, &mut extras, "actuation_function.", &ip)?;
        f.finish_into(ctx, &mut extras, "", &ip);
        model.motors.push(Motor {
            name,
            motor_type,
            actuation,
            target: MotorTarget::BodyPair {
                body1: BodyRef::body(b1),
                frame1,
                body2: BodyRef::body(b2),
                frame2,
                guide,
            },
            function: func,
            extras,
        });
    }
    Ok(())
}

pub(super) fn loads(
    ctx: &mut Ctx,
    model: &mut Model,
    list: &Node,
    controllers: bool,
) -> Result<(), Box<SourceError>> {
    let mut seen: HashSet<String> = model.loads.iter().map(|l| l.name.clone()).collect();
    for node in list.items() {
        let (mut f, name, ip) = named(ctx, node, "a body load", "loads", &mut seen)?;
        let mut extras = Extras::default();
        let ty_node = f.req(ctx, "type")?;
        let load_type = match ctx.upper(ty_node, "load type")?.as_str() {
            "FORCE" => LoadType::Force,
            "TORQUE" => LoadType::Torque,
            other => {
                return Err(ctx.error(
                    ty_node,
                    format!("unknown load type {other:?}; expected FORCE or TORQUE"),
                ));
            }
        };
        let body_node = f.req(ctx, "body")?;
        let body_name = ctx.string(body_node, "body")?;
        let Some(body) = model.body(&body_name) else {
            return Err(ctx.error(
                body_node,
                format!("unknown body name {body_name:?} in `body`: no body has this name"),
            ));
        };
        let (r_com, com) = (body.inertial.inertia_rotation, body.inertial.com);
        let vector_in_body_frame = match f.get("local_load") {
            Some(n) => ctx.boolean(n, "local_load")?,
            None => {
                ctx.defaulted(&ip, Some(node), "local_load defaults to true");
                true
            }
        };
        let vector = if controllers {
            Vector3::zeros()
        } else {
            load_vector(ctx, &mut f, node, &ip, r_com, vector_in_body_frame, &mut extras)?
        };
        let (point, point_in_body_frame) = if load_type == LoadType::Force {
            load_point(ctx, &mut f, com, r_com, &mut extras)?
        } else {
            (Vector3::zeros(), false)
        };
        let modulation = match f.get("modulation_function") {
            Some(n) => Some(function(ctx, n, &mut extras, "modulation_function.", &ip)?),
            None => None,
        };
        f.finish_into(ctx, &mut extras, "", &ip);
        model.loads.push(BodyLoad {
            name,
            load_type,
            body: body_name,
            vector,
            vector_in_body_frame,
            point,
            point_in_body_frame,
            modulation,
            external: controllers,
            extras,
        });
    }
    Ok(())
}

/// A load's `load` vector (zero by default), turned from the body's inertia frame when it is
/// given there (`in_body`); the written value is kept in the extras.
fn load_vector(
    ctx: &mut Ctx,
    f: &mut Fields,
    node: &Node,
    ip: &str,
    r_com: UnitQuaternion<f64>,
    in_body: bool,
    extras: &mut Extras,
) -> Result<Vector3<f64>, Box<SourceError>> {
    let written = match f.get("load") {
        Some(n) => ctx.vec3(n, "load")?,
        None => {
            ctx.defaulted(ip, Some(node), "load defaults to [0, 0, 0] (Chrono's parser)");
            Vector3::zeros()
        }
    };
    let vector = if in_body { r_com * written } else { written };
    let fresh = if in_body { r_com.inverse() * vector } else { vector };
    aids::keep(
        extras,
        FORMAT,
        "load",
        &convert::v3(&written),
        &convert::v3(&fresh),
    );
    Ok(vector)
}

/// A force's `point` and whether it was given in the body's inertia frame (`local_point`), in
/// the body frame; the written value is kept in the extras.
fn load_point(
    ctx: &mut Ctx,
    f: &mut Fields,
    com: Vector3<f64>,
    r_com: UnitQuaternion<f64>,
    extras: &mut Extras,
) -> Result<(Vector3<f64>, bool), Box<SourceError>> {
    let pn = f.req(ctx, "point")?;
    let written = ctx.vec3(pn, "point")?;
    let point_in_body_frame = ctx.boolean(f.req(ctx, "local_point")?, "local_point")?;
    let point = if point_in_body_frame {
        com + r_com * written
    } else {
        written
    };
    let fresh = if point_in_body_frame {
        r_com.inverse() * (point - com)
    } else {
        point
    };
    aids::keep(
        extras,
        FORMAT,
        "point",
        &convert::v3(&written),
        &convert::v3(&fresh),
    );
    Ok((point, point_in_body_frame))
}
