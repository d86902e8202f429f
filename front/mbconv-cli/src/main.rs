//! `mbconv`: convert, inspect, validate, check and view multibody models in every format the
//! build registers (`mbconv formats`; by default Chrono YAML, DART SKEL, Choreonoid Body, Shift
//! JSON, URDF, MJCF, SDFormat, OpenUSD physics and the mbconv IR as JSON).
//!
//! The binary is thin: it parses arguments, calls the `mbconv` library's pipeline (which
//! reads, validates, admits, writes atomically and checks) and prints what it did. Exit codes:
//! 0 ok, 1 a check failed (`--strict` loss), 2 bad input or usage.

use std::process::ExitCode;

fn main() -> ExitCode {
    ExitCode::from(mbconv_cli::run(std::env::args_os()))
}
