//! DART comparisons on the corpus SKEL files and the project's SKEL fixtures (golden data from
//! `oracles/solver/dart_skel.py`, written by `cargo xtask golden solver`): forward dynamics at
//! the initial state, and 1 s of semi-implicit Euler at dt = 1e-3, every body's pose within
//! 1e-6 of DART's at t = 0.25, 0.5, 0.75 and 1 s.
#![allow(clippy::unwrap_used)]

use mbconv_solver::{Integrator, SimulateOptions, Trajectory, dynamics_report_implicit};
use serde_json::Value;
use std::path::{Path, PathBuf};

const CORPUS_GOLDEN: &str = include_str!("golden/dart_skel.json");
const FIXTURES_GOLDEN: &str = include_str!("golden/dart_fixtures.json");
/// The SKEL files in `fixtures/skel` (the fixture golden data must cover each).
const FIXTURE_COUNT: usize = 12;

/// The SKEL corpus directory (skips, or fails under `MBCONV_REQUIRE_CORPUS=1`, when absent).
fn corpus() -> Option<PathBuf> {
    mbconv_test_support::corpus("skel")
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

/// The IR body for DART's `k`-th body (skeleton by skeleton, in file order, as the SKEL reader
/// lists them). The reader qualifies a repeated body name with its skeleton (`skeleton/...`),
/// so the IR name must be the DART name or end with `/` and the DART name.
/// DART lists body nodes in tree order, which can differ from the file order: then the body is
/// found by a name that matches uniquely.
fn find(names: &[String], k: usize, body: &str) -> Option<usize> {
    let matches = |n: &String| n == body || n.ends_with(&format!("/{body}"));
    if names.get(k).is_some_and(matches) {
        return Some(k);
    }
    let mut found = names
        .iter()
        .enumerate()
        .filter(|(_, n)| matches(n))
        .map(|(i, _)| i);
    let first = found.next()?;
    found.next().is_none().then_some(first)
}

fn max_diff(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max)
}

/// Orientation difference that ignores the quaternion sign.
fn quat_diff(a: &[f64], b: &[f64]) -> f64 {
    let plus = max_diff(a, b);
    let minus = a.iter().zip(b).map(|(x, y)| (x + y).abs()).fold(0.0, f64::max);
    plus.min(minus)
}

/// Files whose initial forward dynamics are compared, and why others are left out.
fn skip_reason(case: &Value) -> Option<String> {
    if let Some(e) = case.get("error") {
        return Some(format!("DART could not load it: {}", e.as_str().unwrap_or("")));
    }
    None
}

/// The largest differences from DART over the files of one golden data set.
#[derive(Debug, Default)]
struct Worst {
    /// Relative forward-dynamics accelerations.
    acceleration: f64,
    /// Pose (position in m, quaternion components) along the 1 s trajectories.
    pose: f64,
    /// Number of files whose trajectories were compared.
    trajectories: usize,
}

/// Compares every case of `golden` (the files under `dir`) with the solver; returns the
/// differences over the limits and the largest differences.
fn compare_with_dart(golden: &str, dir: &Path) -> (Vec<String>, Worst) {
    let golden: Value = serde_json::from_str(golden).unwrap();
    let mut failures = Vec::new();
    let mut overall = Worst::default();
    let (mut compared_fd, mut compared_traj) = (0, 0);
    for case in golden["cases"].as_array().unwrap() {
        let file = case["file"].as_str().unwrap();
        if let Some(reason) = skip_reason(case) {
            println!("skip {file}: {reason}");
            continue;
        }
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        let ir = match read_str(file, &text) {
            Ok(imported) => imported.model,
            Err(e) => {
                failures.push(format!("{file}: the SKEL reader refused it: {e}"));
                continue;
            }
        };
        let names: Vec<String> = ir.bodies.iter().map(|b| b.name.clone()).collect();
        // DART's forward dynamics treat joint springs and dampers implicitly with the world step.
        let step = ir.simulation.time_step.unwrap_or(1e-3);
        let report = match dynamics_report_implicit(&ir, step) {
            Ok(r) => r,
            Err(e) => {
                failures.push(format!("{file}: {e}"));
                continue;
            }
        };
        let soft = case["soft"].as_bool().unwrap_or(false);
        // DART's computeForwardDynamics ignores `<mobile>false</mobile>` (the world step keeps
        // such skeletons still); mbconv reports their bodies at rest.
        let immobile: Vec<&str> = ir
            .groups
            .iter()
            .filter(|g| !g.mobile)
            .flat_map(|g| g.bodies.iter().map(String::as_str))
            .collect();
        // DART's servo actuator is a velocity servo with a run-time command (0 by default). With
        // unbounded effort limits it holds the joint in the world step, which the solver
        // reproduces; DART's computeForwardDynamics ignores it (as it ignores immobility), so
        // their accelerations are not compared. A servo with finite limits would depend on the
        // command, so such bodies are left out of the trajectory comparison.
        let servo_held: Vec<&str> = ir
            .joints
            .iter()
            .filter(|j| j.actuator == Some(mbconv_ir::ActuatorKind::Servo))
            .filter_map(|j| j.child.name())
            .collect();
        let servo_bodies: Vec<&str> = ir
            .joints
            .iter()
            .filter(|j| j.actuator == Some(mbconv_ir::ActuatorKind::Servo))
            .filter(|j| j.dofs.iter().any(|d| !d.effort_limits.is_unlimited()))
            .filter_map(|j| j.child.name())
            .collect();
        let mut worst = 0.0f64;
        for (k, want) in case["initial"].as_array().unwrap().iter().enumerate() {
            let (skel, body) = (want["skeleton"].as_str().unwrap(), want["name"].as_str().unwrap());
            let Some(i) = find(&names, k, body) else {
                failures.push(format!("{file}: no IR body for DART body {skel}/{body}"));
                continue;
            };
            let got = &report.bodies[i];
            let pos = max_diff(&got.position, &floats(&want["position"]));
            let rot = quat_diff(&got.orientation_wxyz, &floats(&want["orientation_wxyz"]));
            let lin = floats(&want["linear_acceleration"]);
            let ang = floats(&want["angular_acceleration"]);
            let scale = lin.iter().chain(&ang).fold(1.0f64, |m, x| m.max(x.abs()));
            let acc = max_diff(&got.linear_acceleration, &lin).max(max_diff(&got.angular_acceleration, &ang))
                / scale;
            worst = worst.max(acc);
            let at_rest = immobile.contains(&names[i].as_str()) || servo_held.contains(&names[i].as_str());
            if pos > 1e-9 || rot > 1e-9 || (!soft && !at_rest && acc > 1e-9) {
                failures.push(format!(
                    "{file}: body {skel}/{body}: position {pos:e}, orientation {rot:e}, acceleration (relative) {acc:e}\n  got {:?} {:?}\n  DART {lin:?} {ang:?}",
                    got.linear_acceleration, got.angular_acceleration
                ));
            }
        }
        compared_fd += 1;
        overall.acceleration = overall.acceleration.max(worst);
        let Some(samples) = case.get("trajectory").and_then(|t| t.as_array()) else {
            println!("{file}: forward dynamics {worst:e}; trajectory skipped (soft bodies)");
            continue;
        };
        let options = SimulateOptions {
            duration: 1.0,
            dt: 1e-3,
            integrator: Integrator::SemiImplicitEuler,
            every: 250,
            energy: false,
            joint_limits: false,
            max_steps: None,
        };
        let trajectory = match Trajectory::record(&ir, &options) {
            Ok((t, _)) => t,
            Err(e) => {
                failures.push(format!("{file}: simulation failed: {e}"));
                continue;
            }
        };
        let mut worst_pose = 0.0f64;
        for (k, sample) in samples.iter().enumerate() {
            let poses = &trajectory.poses[k + 1];
            for (b, want) in sample["bodies"].as_array().unwrap().iter().enumerate() {
                let (skel, body) = (want["skeleton"].as_str().unwrap(), want["name"].as_str().unwrap());
                let Some(i) = find(&names, b, body) else {
                    failures.push(format!("{file}: no IR body for DART body {skel}/{body}"));
                    continue;
                };
                if servo_bodies.contains(&names[i].as_str()) {
                    continue;
                }
                let d = max_diff(&poses[i][..3], &floats(&want["position"]))
                    .max(quat_diff(&poses[i][3..], &floats(&want["orientation_wxyz"])));
                worst_pose = worst_pose.max(d);
                if d > 1e-6 {
                    failures.push(format!(
                        "{file}: body {skel}/{body} at t = {}: pose differs by {d:e}",
                        sample["t"]
                    ));
                }
            }
        }
        compared_traj += 1;
        overall.pose = overall.pose.max(worst_pose);
        overall.trajectories += 1;
        println!("{file}: forward dynamics {worst:e}, 1 s trajectory {worst_pose:e}");
    }
    println!(
        "compared forward dynamics on {compared_fd} files, trajectories on {compared_traj}; \
         largest differences: acceleration (relative) {:e}, pose {:e}",
        overall.acceleration, overall.pose
    );
    (failures, overall)
}

fn assert_no_failures(failures: &[String]) {
    assert!(
        failures.is_empty(),
        "{} differences:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn corpus_forward_dynamics_and_trajectories_match_dart() {
    let Some(dir) = corpus() else { return };
    let (failures, _) = compare_with_dart(CORPUS_GOLDEN, &dir);
    assert_no_failures(&failures);
}

#[test]
fn fixture_forward_dynamics_and_trajectories_match_dart() {
    let dir = mbconv_test_support::workspace_root().join("fixtures/skel");
    let (failures, worst) = compare_with_dart(FIXTURES_GOLDEN, &dir);
    assert_no_failures(&failures);
    // Every fixture but the soft-body one.
    assert_eq!(worst.trajectories, FIXTURE_COUNT - 1, "{worst:?}");
}

/// The free and ball joints of `free_body_spinning.skel` (a brick spinning and translating on a
/// free joint with a joint transformation, a ball-joint pendulum, a floating base with an arm on
/// a ball joint, a free joint on a free body) follow DART's step: stepping the velocities in
/// body coordinates would leave the bodies centimetres away after 1 s.
#[test]
fn spinning_free_body_follows_darts_step() {
    let golden: Value = serde_json::from_str(FIXTURES_GOLDEN).unwrap();
    let case = golden["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["file"] == "free_body_spinning.skel")
        .expect("free_body_spinning.skel in the fixture golden data");
    let samples = case["trajectory"].as_array().unwrap();
    assert_eq!(samples.len(), 4);
    let subset = serde_json::json!({ "cases": [case] }).to_string();
    let dir = mbconv_test_support::workspace_root().join("fixtures/skel");
    let (failures, worst) = compare_with_dart(&subset, &dir);
    assert_no_failures(&failures);
    assert_eq!(worst.trajectories, 1);
    assert!(worst.pose < 1e-6, "{worst:?}");
}

/// Reads `text` as the file `name` through the format's public surface.
fn read_str(name: &str, text: &str) -> Result<mbconv_ir::format::Imported, mbconv_ir::format::FormatError> {
    use mbconv_ir::format::{Format, Options, Source};
    mbconv_skel::SkelFormat.read(&Source::from_string(name, text), &Options::default())
}
