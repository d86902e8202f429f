//! Simulates a model and prints how far its total energy drifts from the initial value: a
//! conservative model (no damping, friction, motors or loads) should keep it.
//!
//! ```text
//! cargo run -p mbconv --example energy_drift -- fixtures/skel/joint_revolute.skel 2 rk4
//! ```

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: energy_drift MODEL [DURATION_S] [semi-implicit-euler|rk4]");
        return ExitCode::from(2);
    };
    let duration: f64 = match args.get(1).map(|d| d.parse()) {
        None => 1.0,
        Some(Ok(d)) => d,
        Some(Err(e)) => {
            eprintln!("bad duration: {e}");
            return ExitCode::from(2);
        }
    };
    let integrator = match args.get(2).map(String::as_str) {
        None | Some("semi-implicit-euler") => mbconv::Integrator::SemiImplicitEuler,
        Some("rk4") => mbconv::Integrator::Rk4,
        Some(other) => {
            eprintln!("unknown integrator {other}");
            return ExitCode::from(2);
        }
    };
    let model = match mbconv::read(path) {
        Ok(read) => read.model,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let options = mbconv::SimulateOptions {
        duration,
        dt: model.simulation.time_step.unwrap_or(1e-3),
        integrator,
        energy: true,
        ..Default::default()
    };
    match mbconv::simulate(&model, &options) {
        Ok(simulated) => {
            let trajectory = &simulated.trajectory;
            let energy = |i: usize| {
                trajectory.kinetic.as_ref().map_or(0.0, |k| k[i])
                    + trajectory.potential.as_ref().map_or(0.0, |p| p[i])
            };
            let last = trajectory.t.len() - 1;
            println!(
                "{}: {} steps of {} s ({integrator:?})",
                path, simulated.summary.steps, options.dt
            );
            println!(
                "energy at t = 0: {:.6} J, at t = {}: {:.6} J",
                energy(0),
                trajectory.t[last],
                energy(last)
            );
            println!(
                "largest drift: {:.3e} J",
                simulated.energy_drift().unwrap_or(f64::NAN)
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("simulation failed: {e}");
            ExitCode::FAILURE
        }
    }
}
