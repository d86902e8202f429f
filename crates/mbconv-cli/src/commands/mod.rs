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
use mbconv::Registry;

/// Runs one command.
pub fn run(registry: &Registry, invocation: Invocation) -> Result<(), Failure> {
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
            return convert::convert(registry, &request);
        }
        Invocation::Command(cli) => cli,
    };
    let verbosity = Verbosity::new(cli.quiet, cli.verbose);
    match &cli.command {
        Command::Convert(args) if convert::is_batch(&args.inputs, args.output.as_deref()) => {
            convert::batch(registry, &args.inputs, args, verbosity)
        }
        Command::Convert(args) => convert::convert(
            registry,
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
        Command::Check(args) => check::check(registry, args, verbosity),
        Command::View(args) => view::view(registry, args, verbosity),
        Command::Info(args) => inspect::info(registry, args, verbosity),
        Command::Validate(args) => inspect::validate(registry, args, verbosity),
        Command::Simulate(args) => simulate::simulate(registry, args, verbosity),
        Command::Dynamics(args) => simulate::dynamics(registry, args, verbosity),
        Command::Bushing(command) => bushing::run(registry, command, verbosity),
        Command::Formats(args) => {
            formats::list(registry, args.settings);
            Ok(())
        }
    }
}
