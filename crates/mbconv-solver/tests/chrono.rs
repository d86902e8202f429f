//! Chrono corpus models: the slider-crank keeps its loop closed over 10 s, and every model
//! simulates.
#![allow(clippy::unwrap_used)]

use mbconv_ir::format::{Format, Options, Source};
use mbconv_solver::{Integrator, SimulateOptions, simulate};
use std::path::PathBuf;

/// The Chrono corpus directory (skips, or fails under `MBCONV_REQUIRE_CORPUS=1`, when absent).
fn corpus() -> Option<PathBuf> {
    mbconv_test_support::corpus("chrono")
}

fn read(path: &std::path::Path) -> mbconv_ir::Model {
    let source = Source::from_path(path).unwrap();
    mbconv_chrono::ChronoFormat
        .read(&source, &Options::default())
        .unwrap()
        .model
}

#[test]
fn slider_crank_keeps_its_loop_closed_for_ten_seconds() {
    let Some(dir) = corpus() else { return };
    let model = read(&dir.join("model_slider_crank.yaml"));
    for integrator in [Integrator::SemiImplicitEuler, Integrator::Rk4] {
        let options = SimulateOptions {
            duration: 10.0,
            dt: 1e-3,
            integrator,
            every: 100,
            energy: false,
            joint_limits: false,
            max_steps: None,
        };
        let mut moved = 0.0f64;
        let mut first: Option<Vec<[f64; 7]>> = None;
        let summary = simulate(&model, &options, &mut |s| match &first {
            None => first = Some(s.poses.to_vec()),
            Some(f) => {
                for (a, b) in f.iter().zip(s.poses) {
                    moved = moved.max((a[0] - b[0]).abs().max((a[2] - b[2]).abs()));
                }
            }
        })
        .unwrap();
        println!(
            "{integrator:?}: residual {:e}, moved {moved}",
            summary.max_constraint_residual
        );
        assert!(
            summary.max_constraint_residual < 1e-8,
            "{integrator:?}: residual {:e}",
            summary.max_constraint_residual
        );
        assert!(moved > 0.01, "the mechanism did not move");
    }
}

#[test]
fn every_chrono_model_simulates() {
    let Some(dir) = corpus() else { return };
    for name in [
        "model_bushing.yaml",
        "model_inverted_pendulum_load.yaml",
        "model_inverted_pendulum_motor.yaml",
        "model_motors.yaml",
    ] {
        let model = read(&dir.join(name));
        let options = SimulateOptions {
            duration: 1.0,
            dt: 1e-3,
            integrator: Integrator::SemiImplicitEuler,
            every: 100,
            energy: false,
            joint_limits: false,
            max_steps: None,
        };
        let summary = simulate(&model, &options, &mut |_| {}).unwrap_or_else(|e| panic!("{name}: {e}"));
        println!("{name}: residual {:e}", summary.max_constraint_residual);
        assert!(summary.max_constraint_residual < 1e-8, "{name}");
    }
}
