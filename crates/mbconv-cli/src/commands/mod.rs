//! The subcommands.

mod bushing;
mod check;
mod convert;
mod formats;
mod inspect;
mod simulate;

use crate::cli::{Cli, Command};
use crate::failure::Failure;
use mbconv_cli::registry::{SHORT_NAMES, registry};

/// Runs one command.
pub fn run(cli: Cli) -> Result<(), Failure> {
    let registry = registry();
    let quiet = cli.quiet;
    if let Some((from, to, args)) = cli.command.shortcut() {
        fn long(short: &'static str) -> &'static str {
            SHORT_NAMES
                .iter()
                .find(|(s, _)| *s == short)
                .map_or(short, |(_, l)| *l)
        }
        let request = convert::Request {
            input: &args.input,
            output: args.output.as_deref(),
            from: Some(long(from)),
            to: Some(long(to)),
            flags: &args.flags,
            ir_input_accepted: true,
            quiet,
        };
        return convert::convert(&registry, &request);
    }
    match &cli.command {
        Command::Convert(args) if convert::is_batch(&args.inputs, args.output.as_deref()) => {
            convert::batch(&registry, &args.inputs, args, quiet)
        }
        Command::Convert(args) => convert::convert(
            &registry,
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
        Command::Check(args) => check::check(&registry, args, quiet),
        Command::Info(args) => inspect::info(&registry, args, quiet),
        Command::Validate(args) => inspect::validate(&registry, args, quiet),
        Command::Simulate(args) => simulate::simulate(&registry, args, quiet),
        Command::Dynamics(args) => simulate::dynamics(&registry, args, quiet),
        Command::Bushing(command) => bushing::run(&registry, command, quiet),
        Command::Formats(args) => {
            formats::list(&registry, args.settings);
            Ok(())
        }
        _ => unreachable!("shortcuts are handled above"),
    }
}
