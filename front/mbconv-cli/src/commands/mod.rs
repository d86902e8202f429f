//! The subcommands.

mod bushing;
mod check;
mod convert;
mod formats;
mod inspect;
mod simulate;
mod view;

use crate::cli::{Command, Invocation};
use crate::failure::Failure;
use crate::render::Verbosity;
use mbconv::files::Input;
use mbconv::{Loaded, Pipeline, ReadOptions, Settings};
use std::path::Path;

/// Parses `KEY=VALUE` settings (`--read-option`, `--write-option`).
pub fn settings(items: &[String]) -> Result<Settings, Failure> {
    let mut settings = Settings::default();
    for item in items {
        let (key, value) = item
            .split_once('=')
            .ok_or_else(|| Failure::bad_input(miette::miette!("expected KEY=VALUE, got {item:?}")))?;
        settings.set(key.trim(), value.trim());
    }
    Ok(settings)
}

/// Reads and validates the model `path` names (`-`: standard input) through the pipeline,
/// with the format `from` (else by extension and content) and the reader's settings.
pub fn read<'p>(
    pipeline: &'p Pipeline,
    path: &Path,
    from: Option<&str>,
    read_options: &[String],
) -> Result<Loaded<'p>, Failure> {
    let options = ReadOptions {
        from: from.map(str::to_owned),
        settings: settings(read_options)?,
        accept_ir: false,
    };
    Ok(pipeline.read(&Input::from_arg(path), &options)?)
}

/// Runs one command.
pub fn run(pipeline: &Pipeline, invocation: Invocation) -> Result<(), Failure> {
    let cli = match invocation {
        Invocation::Shortcut {
            shortcut,
            args,
            quiet,
            verbose,
        } => {
            let request = convert::Request {
                input: &args.input,
                output: args.output.as_deref(),
                from: Some(shortcut.from),
                to: Some(shortcut.to),
                flags: &args.flags,
                ir_input_accepted: true,
                verbosity: Verbosity::new(quiet, verbose),
            };
            return convert::convert(pipeline, &request);
        }
        Invocation::Command(cli) => cli,
    };
    let verbosity = Verbosity::new(cli.quiet, cli.verbose);
    match &cli.command {
        Command::Convert(args) if convert::is_batch(&args.inputs, args.output.as_deref()) => {
            convert::batch(pipeline, &args.inputs, args, verbosity)
        }
        Command::Convert(args) => convert::convert(
            pipeline,
            &convert::Request {
                input: &args.inputs[0],
                output: args.output.as_deref(),
                from: args.from.as_deref(),
                to: args.to.as_deref(),
                flags: &args.flags,
                ir_input_accepted: false,
                verbosity,
            },
        ),
        Command::Check(args) => check::check(pipeline, args, verbosity),
        Command::View(args) => view::view(pipeline, args, verbosity),
        Command::Info(args) => inspect::info(pipeline, args, verbosity),
        Command::Validate(args) => inspect::validate(pipeline, args, verbosity),
        Command::Simulate(args) => simulate::simulate(pipeline, args, verbosity),
        Command::Dynamics(args) => simulate::dynamics(pipeline, args, verbosity),
        Command::Bushing(command) => bushing::run(pipeline, command, verbosity),
        Command::Formats(args) => {
            formats::list(pipeline.registry(), args.settings);
            Ok(())
        }
    }
}
