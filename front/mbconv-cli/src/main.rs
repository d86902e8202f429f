//! `mbconv`: convert, inspect, validate, check and view multibody models in every format the
//! build registers (`mbconv formats`; by default Chrono YAML, DART SKEL, Choreonoid Body, Shift
//! JSON, URDF, MJCF, SDFormat and the mbconv IR as JSON).
//!
//! The binary is thin: it parses arguments, calls the `mbconv` library's pipeline (which
//! reads, validates, admits, writes atomically and checks) and prints what it did. Exit codes:
//! 0 ok, 1 a check failed (`--strict` loss), 2 bad input or usage.

mod commands;
mod failure;
mod render;

use mbconv_cli::cli;
use std::process::ExitCode;

fn main() -> ExitCode {
    render::install_miette_hook();
    let pipeline = mbconv::Pipeline::new();
    let invocation = match cli::parse_from(pipeline.registry(), std::env::args_os()) {
        Ok(invocation) => invocation,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match commands::run(&pipeline, invocation) {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => failure.report(),
    }
}
