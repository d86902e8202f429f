//! Functions of time, motors and body loads.

use super::body::kept_or;
use super::forces::axis_entries;
use super::links::curve;
use super::{Out, write_extras};
use crate::spec::FORMAT;
use crate::spec::frames as convert;
use mbconv_ir::format::kit::aids;
use mbconv_ir::{Extras, LoadType, MotorActuation, MotorGuide, MotorTarget, MotorType, TimeFunction};
use mbconv_yaml::emit::Yaml as Y;
use nalgebra::Vector3;

/// A function of time. `prefix` locates kept values (`actuation_function.`).
/// Lowering left only functions Chrono YAML can say; anything else is written as CONSTANT 0.
pub(crate) fn function(out: &Out, f: &TimeFunction, extras: &Extras, prefix: &str) -> Y {
    let mut m: Vec<(String, Y)> = Vec::new();
    let (inner, repeat) = match f {
        TimeFunction::Repeat {
            function,
            start,
            width,
            shift,
        } if !matches!(
            **function,
            TimeFunction::Repeat { .. } | TimeFunction::External { .. }
        ) =>
        {
            (&**function, Some((*start, *width, *shift)))
        }
        other => (other, None),
    };
    let ty = |s: &str| ("type".to_owned(), Y::Plain(s.to_owned()));
    match inner {
        TimeFunction::Constant { value } => {
            m.push(ty("CONSTANT"));
            m.push(("value".into(), Y::Num(*value)));
        }
        TimeFunction::Polynomial { coefficients } => {
            m.push(ty("POLYNOMIAL"));
            m.push(("coefficients".into(), Y::nums(coefficients)));
        }
        TimeFunction::Sine {
            amplitude,
            frequency,
            phase,
            shift,
        } => {
            m.push(ty("SINE"));
            m.push(("amplitude".into(), Y::Num(*amplitude)));
            m.push(("frequency".into(), Y::Num(*frequency)));
            let d = out.degrees;
            let written = match aids::kept(extras, FORMAT, &format!("{prefix}phase")) {
                Some(k) if k.len() == 1 && convert::angle_in(k[0], d).to_bits() == phase.to_bits() => k[0],
                _ => convert::angle_out(*phase, d),
            };
            m.push(("phase".into(), Y::Num(written)));
            if *shift != 0.0 {
                m.push(("shift".into(), Y::Num(*shift)));
            }
        }
        TimeFunction::Ramp { slope, intercept } => {
            m.push(ty("RAMP"));
            m.push(("slope".into(), Y::Num(*slope)));
            m.push(("intercept".into(), Y::Num(*intercept)));
        }
        TimeFunction::Data { points } => {
            m.push(ty("DATA"));
            m.push(("data".into(), curve(points)));
        }
        TimeFunction::External { .. } => m.push(ty("CONTROLLER")),
        _ => {
            m.push(ty("CONSTANT"));
            m.push(("value".into(), Y::Num(0.0)));
        }
    }
    if let Some((start, width, shift)) = repeat {
        m.push((
            "repeat".into(),
            Y::Map(vec![
                ("start".into(), Y::Num(start)),
                ("width".into(), Y::Num(width)),
                ("shift".into(), Y::Num(shift)),
            ]),
        ));
    }
    Y::Map(m)
}

pub(super) fn motors(out: &Out) -> Vec<Y> {
    let mut items = Vec::new();
    for mo in &out.model.motors {
        let MotorTarget::BodyPair {
            body1,
            frame1,
            body2,
            frame2,
            guide,
        } = &mo.target
        else {
            continue;
        };
        let (p1, p2) = (out.pose(body1), out.pose(body2));
        let (location, axis) = axis_entries(&mo.extras, &p1, frame1, &p2, frame2);
        let (ty, guide_key) = match mo.motor_type {
            MotorType::Linear => ("LINEAR", "guide"),
            MotorType::Rotation => ("ROTATION", "spindle"),
        };
        let guide_value = match (mo.motor_type, guide) {
            (_, MotorGuide::Free) => "FREE",
            (MotorType::Linear, MotorGuide::Prismatic) => "PRISMATIC",
            (MotorType::Linear, MotorGuide::Spherical) => "SPHERICAL",
            (MotorType::Rotation, MotorGuide::Revolute) => "REVOLUTE",
            (MotorType::Rotation, MotorGuide::Cylindrical) => "CYLINDRICAL",
            (MotorType::Linear, _) => "PRISMATIC",
            (MotorType::Rotation, _) => "REVOLUTE",
        };
        let actuation = match mo.actuation {
            MotorActuation::Position => "POSITION",
            MotorActuation::Speed => "SPEED",
            MotorActuation::Force => "FORCE",
        };
        let func = function(out, &mo.function, &mo.extras, "actuation_function.");
        let mut m: Vec<(String, Y)> = vec![
            ("name".into(), Y::Str(mo.name.clone())),
            ("type".into(), Y::Plain(ty.into())),
            (guide_key.into(), Y::Plain(guide_value.into())),
            ("body1".into(), Y::Str(out.body_name(body1))),
            ("body2".into(), Y::Str(out.body_name(body2))),
            ("location".into(), location),
            ("axis".into(), axis),
            ("actuation_type".into(), Y::Plain(actuation.into())),
            ("actuation_function".into(), func),
        ];
        write_extras(&mut m, &mo.extras);
        items.push(Y::Map(m));
    }
    items
}

pub(super) fn loads(out: &Out, controllers: bool) -> Vec<Y> {
    let mut items = Vec::new();
    for l in out.model.loads.iter().filter(|l| l.external == controllers) {
        let Some(b) = out.model.body(&l.body) else {
            continue;
        };
        let (r_com, com) = (b.inertial.inertia_rotation, b.inertial.com);
        let ty = match l.load_type {
            LoadType::Force => "FORCE",
            LoadType::Torque => "TORQUE",
        };
        let mut m: Vec<(String, Y)> = vec![
            ("name".into(), Y::Str(l.name.clone())),
            ("type".into(), Y::Plain(ty.into())),
            ("body".into(), Y::Str(l.body.clone())),
        ];
        if !controllers {
            let local = l.vector_in_body_frame;
            let fresh = if local {
                r_com.inverse() * l.vector
            } else {
                l.vector
            };
            let load = kept_or(&l.extras, "load", &convert::v3(&fresh), |k| {
                k.len() == 3 && {
                    let v = Vector3::new(k[0], k[1], k[2]);
                    convert::same_vector(&(if local { r_com * v } else { v }), &l.vector)
                }
            });
            m.push(("load".into(), load));
        }
        m.push(("local_load".into(), Y::Bool(l.vector_in_body_frame)));
        if l.load_type == LoadType::Force {
            let local = l.point_in_body_frame;
            let fresh = if local {
                r_com.inverse() * (l.point - com)
            } else {
                l.point
            };
            let point = kept_or(&l.extras, "point", &convert::v3(&fresh), |k| {
                k.len() == 3 && {
                    let p = Vector3::new(k[0], k[1], k[2]);
                    convert::same_vector(&(if local { com + r_com * p } else { p }), &l.point)
                }
            });
            m.push(("point".into(), point));
            m.push(("local_point".into(), Y::Bool(local)));
        }
        if let Some(f) = &l.modulation {
            let y = function(out, f, &l.extras, "modulation_function.");
            m.push(("modulation_function".into(), y));
        }
        write_extras(&mut m, &l.extras);
        items.push(Y::Map(m));
    }
    items
}
