//! `mbconv simulate` and `mbconv dynamics`.

use crate::cli::{DynamicsArgs, IntegratorName, SimulateArgs};
use crate::failure::Failure;
use crate::render::Verbosity;
use mbconv::Pipeline;
use mbconv::files::{Output, ensure_new, write_atomic};
use mbconv::ir::Model;
use mbconv::solver::{Integrator, SimulateOptions, Trajectory};
use std::io::IsTerminal;
use std::path::Path;

/// Reads and validates a model for simulation; invalid models are bad input.
fn load(
    pipeline: &Pipeline,
    path: &Path,
    from: Option<&str>,
    read_options: &[String],
    strict: bool,
    verbosity: Verbosity,
) -> Result<Model, Failure> {
    let loaded = super::read(pipeline, path, from, read_options)?;
    crate::render::admit(&loaded, strict, verbosity)?;
    Ok(loaded.imported.model)
}

/// Simulates and writes the trajectory.
pub fn simulate(pipeline: &Pipeline, args: &SimulateArgs, verbosity: Verbosity) -> Result<(), Failure> {
    if let Some(output) = &args.output {
        ensure_new(&Output::from_arg(output), args.force)?;
    }
    let model = load(
        pipeline,
        &args.model,
        args.from.as_deref(),
        &args.read_options,
        args.strict,
        verbosity,
    )?;
    let dt = args.dt.or(model.simulation.time_step).unwrap_or(1e-3);
    let options = SimulateOptions {
        duration: args.duration,
        dt,
        integrator: match args.integrator {
            IntegratorName::SemiImplicitEuler => Integrator::SemiImplicitEuler,
            IntegratorName::Rk4 => Integrator::Rk4,
            IntegratorName::Dopri5 => Integrator::Dopri5 {
                rtol: args.rtol,
                atol: args.atol,
            },
            IntegratorName::Rosenbrock => Integrator::Rosenbrock {
                rtol: args.rtol,
                atol: args.atol,
            },
        },
        every: args.every,
        energy: args.energy,
        joint_limits: args.joint_limits,
        max_steps: None,
    };
    let bodies = model.bodies.iter().map(|b| b.name.clone()).collect();
    let mut trajectory = Trajectory::new(bodies, args.energy);
    let steps = (args.duration / dt).ceil();
    let progress = (std::io::stderr().is_terminal() && !verbosity.is_quiet() && steps >= 1e4).then(|| {
        let bar = indicatif::ProgressBar::new(1000);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {percent:>3}% t = {msg} s  eta {eta}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar
    });
    let summary = mbconv::solver::simulate(&model, &options, &mut |sample| {
        if let Some(bar) = &progress {
            bar.set_position((1000.0 * sample.t / args.duration.max(f64::MIN_POSITIVE)) as u64);
            bar.set_message(format!("{:.3}", sample.t));
        }
        trajectory.push(sample);
    })
    .map_err(|e| Failure::bad_input(miette::Report::new(e)))?;
    if let Some(bar) = progress {
        bar.finish_and_clear();
    }
    let mut buffer = Vec::new();
    let written = if args.json {
        trajectory.write_json(&mut buffer)
    } else {
        trajectory.write_csv(&mut buffer)
    };
    written.map_err(anyhow::Error::from)?;
    let text = String::from_utf8(buffer).map_err(anyhow::Error::from)?;
    let output = args.output.as_ref().map_or(Output::Stdout, Output::from_arg);
    write_atomic(&output, &text, args.force)?;
    if !verbosity.is_quiet() {
        eprintln!(
            "simulated {} s in {} steps{}; assembly residual {:.3e}, largest constraint residual {:.3e}{}",
            summary.final_time,
            summary.steps,
            step_details(&summary),
            summary.assembly_residual,
            summary.max_constraint_residual,
            match output {
                Output::Stdout => String::new(),
                Output::File(path) => format!("; wrote {}", path.display()),
            }
        );
    }
    Ok(())
}

/// What the step count alone does not say: rejected steps, the switch to the stiff scheme and
/// the joint-stop events, e.g. ` (12 rejected; Rosenbrock from t = 0.61 s for 0.39 s; 23 stop
/// impacts, 4 releases)`; empty when there is nothing to add.
fn step_details(summary: &mbconv::solver::SimulationSummary) -> String {
    let mut parts = Vec::new();
    if summary.rejected_steps > 0 {
        parts.push(format!("{} rejected", summary.rejected_steps));
    }
    if let Some(from) = summary.stiff_from {
        let returns = match summary.stiff_returns {
            0 => String::new(),
            1 => ", back to Dopri5 once".to_owned(),
            n => format!(", back to Dopri5 {n} times"),
        };
        parts.push(format!(
            "Rosenbrock from t = {from:.6} s for {:.6} s{returns}",
            summary.stiff_time
        ));
    }
    if summary.stop_impacts + summary.stop_releases > 0 {
        parts.push(format!(
            "{} stop impacts, {} releases",
            summary.stop_impacts, summary.stop_releases
        ));
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!(" ({})", parts.join("; "))
    }
}

/// Prints positions, velocities and accelerations at the initial state.
pub fn dynamics(pipeline: &Pipeline, args: &DynamicsArgs, verbosity: Verbosity) -> Result<(), Failure> {
    let model = load(
        pipeline,
        &args.model,
        args.from.as_deref(),
        &args.read_options,
        args.strict,
        verbosity,
    )?;
    let step = if args.continuous {
        None
    } else {
        args.dt.or(model.simulation.time_step)
    };
    let report = match step {
        Some(dt) => mbconv::solver::dynamics_report_implicit(&model, dt),
        None => mbconv::solver::dynamics_report(&model),
    }
    .map_err(|e| Failure::bad_input(miette::Report::new(e)))?;
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&report).map_err(anyhow::Error::from)?
        );
        return Ok(());
    }
    println!(
        "kinetic energy {} J, potential energy {} J, assembly residual {:.3e}",
        report.kinetic_energy, report.potential_energy, report.assembly_residual
    );
    for b in &report.bodies {
        let a = b.linear_acceleration;
        let alpha = b.angular_acceleration;
        println!(
            "  {:<24} a = [{:.6}, {:.6}, {:.6}]  alpha = [{:.6}, {:.6}, {:.6}]",
            b.name, a[0], a[1], a[2], alpha[0], alpha[1], alpha[2]
        );
    }
    Ok(())
}
