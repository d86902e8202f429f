//! Motors, body loads and the functions of time that drive them.

use super::forces::axis_frames;
use super::pose_of;
use mbconv_ir::format::kit::LowerSession;
use mbconv_ir::format::support::Feature;
use mbconv_ir::report::path;
use mbconv_ir::{Model, MotorGuide, MotorTarget, MotorType, TimeFunction};
use nalgebra::Vector3;

/// Removes motors Chrono YAML cannot say; fixes guides and functions it cannot say.
pub(super) fn motors(s: &mut LowerSession, model: &mut Model) {
    let mut kept = Vec::new();
    for mut m in std::mem::take(&mut model.motors) {
        let ip = path::item("motors", &m.name);
        let MotorTarget::BodyPair { guide, .. } = &mut m.target else {
            s.lost(
                "joint_motor_lost",
                Feature::Motors,
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
                s.approximated(
                    "motor_guide_replaced",
                    Feature::Motors,
                    &ip,
                    format!("guide {g:?} is not a linear-motor guide; PRISMATIC written"),
                );
                MotorGuide::Prismatic
            }
            (MotorType::Rotation, g) => {
                s.approximated(
                    "motor_guide_replaced",
                    Feature::Motors,
                    &ip,
                    format!("guide {g:?} is not a rotation-motor spindle; REVOLUTE written"),
                );
                MotorGuide::Revolute
            }
        };
        *guide = fitting;
        function(s, &mut m.function, (&ip, "motor", Feature::Motors));
        s.strip_foreign_extras(&mut m.extras, &ip);
        kept.push(m);
    }
    model.motors = kept;
}

/// Puts every motor's frames where Chrono builds them from the written location and axis.
pub(super) fn motor_frames(s: &mut LowerSession, model: &mut Model) {
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
        axis_frames(
            s,
            (&ip, "motor", Feature::Motors),
            &mut m.extras,
            (&p1, frame1),
            (&p2, frame2),
        );
    }
    model.motors = motors;
}

/// Removes loads on unknown bodies; zeroes the value of externally set loads.
pub(super) fn loads(s: &mut LowerSession, model: &mut Model) {
    let mut kept = Vec::new();
    for mut load in std::mem::take(&mut model.loads) {
        let ip = path::item("loads", &load.name);
        if model.body(&load.body).is_none() {
            s.lost(
                "load_lost",
                Feature::BodyLoads,
                &ip,
                format!("load on unknown body {:?}", load.body),
            );
            continue;
        }
        if load.external && load.vector != Vector3::zeros() {
            s.lost(
                "external_load_value_lost",
                Feature::BodyLoads,
                &ip,
                "the value of an externally set load: Chrono starts at 0",
            );
            load.vector = Vector3::zeros();
        }
        if let Some(f) = &mut load.modulation {
            function(s, f, (&ip, "load", Feature::BodyLoads));
        }
        s.strip_foreign_extras(&mut load.extras, &ip);
        kept.push(load);
    }
    model.loads = kept;
}

/// A function of time as Chrono YAML can say it: the simple functions, optionally repeated
/// once, and CONTROLLER inputs starting at 0. The function drives the `item` (`motor` or
/// `load`) at `ip`, a row of `feature`.
fn function(s: &mut LowerSession, f: &mut TimeFunction, at: (&str, &str, Feature)) {
    match f {
        TimeFunction::Repeat { function, .. }
            if !matches!(
                **function,
                TimeFunction::Repeat { .. } | TimeFunction::External { .. }
            ) =>
        {
            simple_function(s, function, at)
        }
        other => simple_function(s, other, at),
    }
}

fn simple_function(s: &mut LowerSession, f: &mut TimeFunction, (ip, item, feature): (&str, &str, Feature)) {
    match f {
        TimeFunction::Constant { .. }
        | TimeFunction::Polynomial { .. }
        | TimeFunction::Sine { .. }
        | TimeFunction::Ramp { .. }
        | TimeFunction::Data { .. } => {}
        TimeFunction::External { default } => {
            if *default != 0.0 {
                s.lost(
                    &format!("{item}_input_default_lost"),
                    feature,
                    ip,
                    "the default value of an external input: Chrono starts at 0",
                );
                *default = 0.0;
            }
        }
        other => {
            s.lost(
                &format!("{item}_function_lost"),
                feature,
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
