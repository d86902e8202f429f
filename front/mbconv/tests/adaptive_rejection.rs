//! The adaptive integrator rejects a trial step whose stages blow up instead of ending the
//! run: the Shift corpus file `vehicle/vehicle_no_write.json` states `time_step: 1.0`, the
//! check samples it at that interval, and the first trial step of a whole second flings the
//! suspension's massless links through a singular configuration (a non-positive articulated
//! inertia). Rejected, the step shrinks and the run goes through, as it does with any shorter
//! output interval.
#![allow(clippy::unwrap_used)]

use mbconv::ir::format::{Options, Source};
use mbconv::{Integrator, SimulateOptions};
use std::path::PathBuf;

#[test]
fn a_trial_step_that_blows_up_is_rejected_and_the_run_goes_on() {
    let root = std::env::var_os("MBCONV_CORPUS").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"),
        PathBuf::from,
    );
    let path = root.join("shift/vehicle/vehicle_no_write.json");
    if !path.is_file() {
        assert!(
            std::env::var_os("MBCONV_REQUIRE_CORPUS").is_none(),
            "{} is missing",
            path.display()
        );
        eprintln!("note: {} is missing: skipped", path.display());
        return;
    }
    let registry = mbconv::formats();
    let source = Source::from_path(&path).unwrap();
    let format = registry.detect(&path, Some(&source.text)).unwrap();
    let model = registry.read(format, &source, &Options::default()).unwrap().model;
    assert_eq!(model.simulation.time_step, Some(1.0));
    let options = SimulateOptions {
        duration: 1.0,
        dt: 1.0,
        integrator: Integrator::Dopri5 {
            rtol: 1e-10,
            atol: 1e-10,
        },
        ..SimulateOptions::default()
    };
    let summary = mbconv::solver::simulate(&model, &options, &mut |_| {}).unwrap();
    assert!(summary.rejected_steps > 0, "{summary:?}");
}
