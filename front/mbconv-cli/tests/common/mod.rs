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

/// The repository's `fixtures/` directory.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}
