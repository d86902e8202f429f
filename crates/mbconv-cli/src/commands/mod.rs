//! The subcommands.

mod bushing;
mod check;
mod convert;
mod formats;
mod inspect;
mod simulate;

use crate::cli::{Command, Invocation};
use crate::failure::Failure;
use mbconv::Registry;

/// Runs one command.
pub fn run(registry: &Registry, invocation: Invocation) -> Result<(), Failure> {
    let cli = match invocation {
        Invocation::Shortcut {
            shortcut,
            args,
            quiet,
        } => {
            let request = convert::Request {
                input: &args.input,
                output: args.output.as_deref(),
                from: Some(shortcut.from),
                to: Some(shortcut.to),
                flags: &args.flags,
                ir_input_accepted: true,
                quiet,
            };
            return convert::convert(registry, &request);
        }
        Invocation::Command(cli) => cli,
    };
    let quiet = cli.quiet;
    match &cli.command {
        Command::Convert(args) if convert::is_batch(&args.inputs, args.output.as_deref()) => {
            convert::batch(registry, &args.inputs, args, quiet)
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
                quiet,
            },
        ),
        Command::Check(args) => check::check(registry, args, quiet),
        Command::Info(args) => inspect::info(registry, args, quiet),
        Command::Validate(args) => inspect::validate(registry, args, quiet),
        Command::Simulate(args) => simulate::simulate(registry, args, quiet),
        Command::Dynamics(args) => simulate::dynamics(registry, args, quiet),
        Command::Bushing(command) => bushing::run(registry, command, quiet),
        Command::Formats(args) => {
            formats::list(registry, args.settings);
            Ok(())
        }
    }
}
