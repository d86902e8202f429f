//! Helpers shared by the CLI test files that use `mod common;`.
#![allow(dead_code, clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs the `mbconv` binary without colours.
pub fn mbconv(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mbconv"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

/// A command's standard error as text.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A command's standard error with the report's line wrapping undone: runs of white space and
/// the gutter (`│`) that continues a wrapped message become one space, so a test can look for a
/// phrase wherever the terminal width (and so the checkout's path length) broke the line.
pub fn stderr_unwrapped(out: &Output) -> String {
    stderr(out)
        .replace('│', " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The repository's `fixtures/` directory.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}
