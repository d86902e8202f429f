//! The command line of the `mbconv` tool: its arguments, and the parser that adds one `x2y`
//! shortcut for every pair of the registry's formats with a short name ([`cli::parse_from`]),
//! so that a format that registers a short name gets its shortcuts with no change here.
//!
//! It is not the library for tool authors (that is the `mbconv` crate, whose pipeline reads,
//! validates, converts, writes and checks every model this package handles) and holds no
//! conversion logic: the commands ([`run`], which the `mbconv` binary of this package and the
//! Python package's `mbconv` command call) only parse arguments, call the pipeline and print.
//!
//! ```
//! use mbconv_cli::cli::{Invocation, parse_from};
//! let registry = mbconv::formats();
//! let Ok(Invocation::Shortcut { shortcut, .. }) = parse_from(&registry, ["mbconv", "skel2yaml", "arm.skel"]) else {
//!     panic!("skel2yaml is a shortcut")
//! };
//! assert_eq!((shortcut.from, shortcut.to), ("skel", "chrono"));
//! ```

pub mod cli;
mod commands;
mod failure;
mod render;

use std::ffi::OsString;

/// Runs the `mbconv` command with `args` (the program's name first, as `std::env::args_os`
/// gives them): parses them, runs the command, prints what it prints, and returns the exit
/// code (0 ok, 1 a check failed, 2 bad input or usage, 3 a proof could not be completed).
///
/// ```
/// assert_eq!(mbconv_cli::run(["mbconv", "--version"]), 0);
/// assert_eq!(mbconv_cli::run(["mbconv", "no-such-command"]), 2);
/// ```
pub fn run<I, T>(args: I) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    render::install_miette_hook();
    let pipeline = mbconv::Pipeline::new();
    let invocation = match cli::parse_from(pipeline.registry(), args) {
        Ok(invocation) => invocation,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    match commands::run(&pipeline, invocation) {
        Ok(()) => 0,
        Err(failure) => failure.report(),
    }
}
