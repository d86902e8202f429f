//! `mbconv bushing design` and `mbconv bushing replace`.

use crate::cli::{BushingCommand, BushingDesignArgs, BushingReplaceArgs, UnderdampedFormulaName};
use crate::failure::Failure;
use crate::render::Verbosity;
use crate::render::print_report;
use mbconv::files::{Output, ensure_new, write_atomic};
use mbconv::ir::Report;
use mbconv::{Pipeline, Settings};
use mbconv_bushing::design::UnderdampedFormula;
use mbconv_bushing::{DesignInputs, ReplaceParams};

/// Runs a bushing subcommand.
pub fn run(pipeline: &Pipeline, command: &BushingCommand, verbosity: Verbosity) -> Result<(), Failure> {
    match command {
        BushingCommand::Design(args) => design(args),
        BushingCommand::Replace(args) => replace(pipeline, args, verbosity),
    }
}

fn design(args: &BushingDesignArgs) -> Result<(), Failure> {
    let inputs = DesignInputs {
        omega_n: args.omega_n,
        settling_time: args.settling_time,
        settling_ratio: args.settling_ratio,
        damping_ratio: args.damping_ratio,
        log_decrement: args.log_decrement,
        decay_ratio: args.decay_ratio,
        underdamped_formula: match args.underdamped_formula {
            UnderdampedFormulaName::Envelope => UnderdampedFormula::Envelope,
            UnderdampedFormulaName::EnvelopeWithAmplitude => UnderdampedFormula::EnvelopeWithAmplitude,
        },
        mass: args.mass,
        stiffness: args.stiffness,
        load: args.load,
        displacement: args.displacement,
    };
    let result = mbconv_bushing::design(&inputs).map_err(|e| Failure::bad_input(miette::Report::new(e)))?;
    let json = serde_json::to_value(&result).map_err(anyhow::Error::from)?;
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&json).map_err(anyhow::Error::from)?
        );
        return Ok(());
    }
    println!("natural frequency  {} rad/s", result.omega_n);
    println!("stiffness          {}", result.stiffness);
    println!("damping            {}", result.damping);
    println!("damping ratio      {}", result.damping_ratio);
    if let Some(methods) = json.get("methods").and_then(|m| m.as_object()) {
        for (what, how) in methods {
            println!("  {what}: {}", how.as_str().unwrap_or_default());
        }
    }
    Ok(())
}

/// `bushing replace`: reads, replaces the joint, emits through the pipeline and writes the
/// model's file alone (no companions).
fn replace(pipeline: &Pipeline, args: &BushingReplaceArgs, verbosity: Verbosity) -> Result<(), Failure> {
    let loaded = super::read(pipeline, &args.model, args.from.as_deref(), &[])?;
    let output = args.output.as_ref().map_or(Output::Stdout, Output::from_arg);
    ensure_new(&output, args.force)?;
    crate::render::admit(&loaded, args.strict, verbosity)?;
    let (source, imported) = (&loaded.source, &loaded.imported);
    let out_format = match (&args.to, &output) {
        (None, Output::Stdout) => loaded.format,
        (to, output) => pipeline.target(to.as_deref(), output)?,
    };
    let params = ReplaceParams {
        name: args.name.clone(),
        settling_time: args.settling_time,
        settling_ratio: args.settling_ratio,
        damping_ratio: args.damping_ratio,
        omega_n: args.omega_n,
        mass: args.mass,
        inertia: args.inertia,
        force_stiffness: args.force_stiffness,
        torque_stiffness: args.torque_stiffness,
        max_force: args.max_force,
        max_displacement: args.max_displacement,
        max_torque: args.max_torque,
        max_angle: args.max_angle,
    };
    let (model, findings) = mbconv_bushing::replace_joint_with_bushing(&imported.model, &args.joint, &params)
        .map_err(|e| Failure::bad_input(miette::Report::new(e)))?;
    let emitted = pipeline.emit(&model, out_format, &Settings::default(), &output)?;
    let mut report = Report::for_file(source.name.clone());
    report.findings.extend(findings);
    report.extend(emitted.report);
    print_report(&report, verbosity);
    Ok(write_atomic(&output, &emitted.text, args.force)?)
}
