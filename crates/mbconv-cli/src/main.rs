//! `mbconv`: convert, inspect and validate multibody models (Chrono YAML, DART SKEL,
//! Choreonoid Body, Shift JSON and the mbconv IR as JSON).
//!
//! The binary is thin: it parses arguments, finds formats in the registry, reads, validates,
//! writes atomically and prints the conversion report. Exit codes: 0 ok, 1 a check failed
//! (`--strict` loss), 2 bad input or usage.

mod cli;
mod commands;
mod failure;
mod io;
mod render;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    render::install_miette_hook();
    let cli = match cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match commands::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => failure.report(),
    }
}
