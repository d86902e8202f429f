//! `cargo xtask`: project automation for mbconv.
//!
//! * `cargo xtask ci` runs what CI runs: formatting check, clippy with warnings denied, and
//!   the workspace tests (the README's test command).

use anyhow::{Context, Result, bail};
use std::process::Command;

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("ci") => ci(),
        Some(other) => bail!("unknown task {other:?}; tasks: ci"),
        None => {
            eprintln!("usage: cargo xtask <task>\n\ntasks:\n  ci    fmt check, clippy -D warnings, workspace tests");
            Ok(())
        }
    }
}

fn cargo(args: &[&str]) -> Result<()> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    eprintln!("+ cargo {}", args.join(" "));
    let status = Command::new(cargo).args(args).status().context("cannot run cargo")?;
    if !status.success() {
        bail!("cargo {} failed ({status})", args.join(" "));
    }
    Ok(())
}

fn ci() -> Result<()> {
    cargo(&["fmt", "--all", "--", "--check"])?;
    cargo(&["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"])?;
    cargo(&["test", "--workspace"])
}
