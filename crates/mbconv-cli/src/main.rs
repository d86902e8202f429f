//! `mbconv`: convert, inspect, validate, check and view multibody models in every format the
//! build registers (`mbconv formats`; by default Chrono YAML, DART SKEL, Choreonoid Body, Shift
//! JSON, URDF, MJCF, SDFormat and the mbconv IR as JSON).
//!
//! The binary is thin: it parses arguments, finds formats in the registry, reads, validates,
//! writes atomically and prints the conversion report. Exit codes: 0 ok, 1 a check failed
//! (`--strict` loss), 2 bad input or usage.

mod commands;
mod failure;
mod io;
mod render;

use mbconv_cli::cli;
use std::process::ExitCode;

fn main() -> ExitCode {
    render::install_miette_hook();
    let registry = mbconv::formats();
    let invocation = match cli::parse_from(&registry, std::env::args_os()) {
        Ok(invocation) => invocation,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match commands::run(&registry, invocation) {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => failure.report(),
    }
}
