//! Newton's golden trajectories beside mbconv's solver, shared by the writer's judged test
//! (`tests/newton.rs`: mbconv's USD of the other formats) and the reader's (`tests/golden.rs`:
//! the USD fixtures and corpus stages).

use mbconv_ir::Model;
use mbconv_solver::{Integrator, SimulateOptions};
use mbconv_test_support::written_golden::{relative_deviation, world_com};
use serde_json::Value;

/// mbconv's run of `model` with Newton's scheme, step and sampling (the golden `trajectory`:
/// semi-implicit Euler, `dt`, `duration`, its samples), beside Newton's centres of mass: the
/// worst deviation relative to max(1, |Newton's coordinate|), and where. `ours(body)` names
/// mbconv's body for Newton's body entry (`None`: not compared, as the writer's world anchors).
///
/// # Panics
/// When mbconv's solver refuses the model or a Newton body named by `ours` is not one of
/// mbconv's, naming `name`.
pub fn deviation_from_newton(
    name: &str,
    model: &Model,
    newton: &Value,
    ours: impl Fn(&Value) -> Option<String>,
) -> (f64, String) {
    let trajectory = &newton["trajectory"];
    let dt = trajectory["dt"].as_f64().unwrap();
    let duration = trajectory["duration"].as_f64().unwrap();
    let samples = trajectory["samples"].as_array().unwrap();
    let simulate = SimulateOptions {
        duration,
        dt,
        integrator: Integrator::SemiImplicitEuler,
        every: ((duration / dt).round() as usize) / (samples.len() - 1),
        ..SimulateOptions::default()
    };
    let solver = mbconv_solver::Model::new(model).unwrap_or_else(|e| panic!("{name}: {e}"));
    let order: Vec<String> = solver.body_names().map(str::to_owned).collect();
    let mut poses: Vec<Vec<[f64; 7]>> = Vec::new();
    mbconv_solver::simulate(model, &simulate, &mut |s| poses.push(s.poses.to_vec()))
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(poses.len(), samples.len(), "{name}: samples");
    let mut worst = (0.0_f64, String::new());
    for (b, body) in newton["bodies"].as_array().unwrap().iter().enumerate() {
        let Some(body_name) = ours(body) else {
            continue;
        };
        let Some(k) = order.iter().position(|n| *n == body_name) else {
            panic!("{name}: Newton's body {body} is not mbconv's");
        };
        let body_ir = model.body(&body_name).unwrap();
        for (s, sample) in samples.iter().enumerate() {
            let theirs: Vec<f64> = sample["com"][b]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(Value::as_f64)
                .collect();
            let com = world_com(body_ir, &poses[s][k]);
            let deviation = relative_deviation(com.as_slice(), &theirs);
            if deviation > worst.0 {
                worst = (deviation, format!("{body_name} at t = {}", sample["t"]));
            }
        }
    }
    worst
}

/// The laws of Newton's that `mbconv check --via usd` names for `model` (the check's
/// `differing_laws`): where the law of joint limits may be among them (`limits`), with the joints
/// whose limit the check's own run reaches, as the check decides it.
#[allow(dead_code)] // `tests/golden.rs` (the reader's) names no laws
pub fn named_laws(
    registry: &mbconv_ir::format::Registry,
    model: &Model,
    shown: &str,
    limits: bool,
) -> Vec<String> {
    use mbconv::{CheckSettings, checker};
    use mbconv_usd::UsdFormat;
    let reached = if limits {
        let report = checker::check(model, shown, registry, &[&UsdFormat], &CheckSettings::default());
        report.targets[0].joint_limits_reached.clone()
    } else {
        Vec::new()
    };
    checker::differing_laws(model, &UsdFormat, &reached)
}
