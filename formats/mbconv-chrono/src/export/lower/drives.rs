//! Motors, body loads and the functions of time that drive them.

use super::forces::axis_frames;
use super::{Lowering, pose_of};
use mbconv_ir::report::path;
use mbconv_ir::{Category, Model, MotorGuide, MotorTarget, MotorType, TimeFunction};
use nalgebra::Vector3;

/// Removes motors Chrono YAML cannot say; fixes guides and functions it cannot say.
pub(super) fn motors(l: &mut Lowering, model: &mut Model) {
    let mut kept = Vec::new();
    for mut m in std::mem::take(&mut model.motors) {
        let ip = path::item("motors", &m.name);
        let MotorTarget::BodyPair { guide, .. } = &mut m.target else {
            l.lost(
                Category::Dropped,
                &ip,
                "a motor on a joint coordinate: Chrono YAML motors act between two bodies",
            );
            continue;
        };
        let fitting = match (m.motor_type, *guide) {
            (_, MotorGuide::Free)
            | (MotorType::Linear, MotorGuide::Prismatic | MotorGuide::Spherical)
            | (MotorType::Rotation, MotorGuide::Revolute | MotorGuide::Cylindrical) => *guide,
            (MotorType::Linear, g) => {
                l.lost(
                    Category::Approximated,
                    &ip,
                    format!("guide {g:?} is not a linear-motor guide; PRISMATIC written"),
                );
                MotorGuide::Prismatic
            }
            (MotorType::Rotation, g) => {
                l.lost(
                    Category::Approximated,
                    &ip,
                    format!("guide {g:?} is not a rotation-motor spindle; REVOLUTE written"),
                );
                MotorGuide::Revolute
            }
        };
        *guide = fitting;
        function(l, &mut m.function, &ip);
        l.strip_foreign_extras(&mut m.extras, &ip);
        kept.push(m);
    }
    model.motors = kept;
}

/// Puts every motor's frames where Chrono builds them from the written location and axis.
pub(super) fn motor_frames(l: &mut Lowering, model: &mut Model) {
    let mut motors = std::mem::take(&mut model.motors);
    for m in &mut motors {
        let MotorTarget::BodyPair {
            body1,
            frame1,
            body2,
            frame2,
            ..
        } = &mut m.target
        else {
            continue;
        };
        let ip = path::item("motors", &m.name);
        let (p1, p2) = (pose_of(model, body1), pose_of(model, body2));
        axis_frames(l, &mut m.extras, (&p1, frame1), (&p2, frame2), &ip);
    }
    model.motors = motors;
}

/// Removes loads on unknown bodies; zeroes the value of externally set loads.
pub(super) fn loads(l: &mut Lowering, model: &mut Model) {
    let mut kept = Vec::new();
    for mut load in std::mem::take(&mut model.loads) {
        let ip = path::item("loads", &load.name);
        if model.body(&load.body).is_none() {
            l.lost(
                Category::Dropped,
                &ip,
                format!("load on unknown body {:?}", load.body),
            );
            continue;
        }
        if load.external && load.vector != Vector3::zeros() {
            l.lost(
                Category::Dropped,
                &ip,
                "the value of an externally set load: Chrono starts at 0",
            );
            load.vector = Vector3::zeros();
        }
        if let Some(f) = &mut load.modulation {
            function(l, f, &ip);
        }
        l.strip_foreign_extras(&mut load.extras, &ip);
        kept.push(load);
    }
    model.loads = kept;
}

/// A function of time as Chrono YAML can say it: the simple functions, optionally repeated
/// once, and CONTROLLER inputs starting at 0.
fn function(l: &mut Lowering, f: &mut TimeFunction, ip: &str) {
    match f {
        TimeFunction::Repeat { function, .. }
            if !matches!(
                **function,
                TimeFunction::Repeat { .. } | TimeFunction::External { .. }
            ) =>
        {
            simple_function(l, function, ip)
        }
        other => simple_function(l, other, ip),
    }
}

fn simple_function(l: &mut Lowering, f: &mut TimeFunction, ip: &str) {
    match f {
        TimeFunction::Constant { .. }
        | TimeFunction::Polynomial { .. }
        | TimeFunction::Sine { .. }
        | TimeFunction::Ramp { .. }
        | TimeFunction::Data { .. } => {}
        TimeFunction::External { default } => {
            if *default != 0.0 {
                l.lost(
                    Category::Dropped,
                    ip,
                    "the default value of an external input: Chrono starts at 0",
                );
                *default = 0.0;
            }
        }
        other => {
            l.lost(
                Category::Dropped,
                ip,
                format!(
                    "Chrono YAML has no {} function; written as CONSTANT 0",
                    other.type_name()
                ),
            );
            *other = TimeFunction::Constant { value: 0.0 };
        }
    }
}
