//! `mbconv`: convert, inspect, validate, check and view multibody models in every format the
//! build registers (`mbconv formats`; by default Chrono YAML, DART SKEL, Choreonoid Body, Shift
//! JSON, URDF, MJCF, SDFormat, OpenUSD physics and the mbconv IR as JSON).
//!
//! The binary is thin: it parses arguments, calls the `mbconv` library's pipeline (which
//! reads, validates, admits, writes atomically and checks) and prints what it did. Exit codes:
//! 0 ok, 1 a check failed (`--strict` loss), 2 bad input or usage.

use std::ffi::OsString;
use std::process::ExitCode;

/// The stack of the thread the command runs on. Models nest as deep as their kinematic trees
/// (MJCF writes a body inside its parent), and the readers and writers that follow the
/// nesting recurse once per level: a 10 000-link chain to MJCF overflowed the main thread's
/// 8 MiB. The size is reserved, not committed: only the pages a command uses are.
const STACK_BYTES: usize = 1 << 30;

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().collect();
    let worker = std::thread::Builder::new()
        .name("mbconv".into())
        .stack_size(STACK_BYTES)
        .spawn({
            let args = args.clone();
            move || mbconv_cli::run(args)
        });
    let code = match worker {
        // A panic has printed its message; 101 is Rust's status for it.
        Ok(handle) => handle.join().unwrap_or(101),
        // No thread with that stack on this machine: run on the main thread.
        Err(_) => mbconv_cli::run(args),
    };
    ExitCode::from(code)
}
