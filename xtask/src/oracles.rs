//! The oracle virtualenv and the golden data it produces.

use crate::{cargo, run, workspace_root};
use anyhow::{Result, bail};
use std::path::PathBuf;

/// Pinned oracle packages (the newest with Python 3.11 wheels; see shared/reference/oracles.md).
const PACKAGES: [&str; 4] = ["dartpy==6.20.0", "pin==4.1.0", "mujoco==4.0.0", "numpy"];

/// Creates (or reuses) `target/oracle-venv` and returns its Python.
pub fn setup() -> Result<PathBuf> {
    let venv = workspace_root().join("target/oracle-venv");
    let python = venv.join("bin/python");
    if !python.exists() {
        run("python3", &["-m", "venv", &venv.to_string_lossy()])?;
    }
    let mut args = vec!["-m", "pip", "install", "--quiet"];
    args.extend(PACKAGES);
    run(&python, &args)?;
    Ok(python)
}

fn shared() -> Result<PathBuf> {
    let shared = workspace_root().join("../shared");
    if !shared.join("corpus").is_dir() {
        bail!("../shared/corpus is missing: the oracles run on the shared corpus");
    }
    Ok(shared)
}

/// DART golden data for the SKEL reader and writer (`formats/mbconv-skel/tests/golden`).
pub fn golden_dart() -> Result<()> {
    let python = setup()?;
    let shared = shared()?;
    let out = "formats/mbconv-skel/tests/golden";
    let script = "oracles/dart/dart_golden.py";
    let corpus = shared.join("corpus/skel");
    run(
        &python,
        &[
            script,
            "--root",
            &corpus.to_string_lossy(),
            "--prefix",
            "corpus",
            "--out",
            out,
        ],
    )?;
    run(
        &python,
        &[
            script,
            "--root",
            "fixtures/skel",
            "--prefix",
            "fixtures",
            "--out",
            out,
        ],
    )?;
    let written = workspace_root().join("target/skel-written");
    run(
        cargo(),
        &[
            "run",
            "-p",
            "mbconv-skel",
            "--example",
            "write_skel",
            "--",
            &corpus.to_string_lossy(),
            &written.to_string_lossy(),
        ],
    )?;
    run(
        &python,
        &[
            script,
            "--root",
            &written.to_string_lossy(),
            "--prefix",
            "written",
            "--out",
            out,
        ],
    )
}

/// Pinocchio ABA and DART trajectory golden data for the solver
/// (`crates/mbconv-solver/tests/golden`).
pub fn golden_solver() -> Result<()> {
    let python = setup()?;
    let shared = shared()?;
    let golden = "crates/mbconv-solver/tests/golden";
    run(
        &python,
        &[
            "oracles/solver/pinocchio_aba.py",
            &format!("{golden}/pinocchio_aba.json"),
        ],
    )?;
    run(
        &python,
        &[
            "oracles/solver/dart_skel.py",
            &shared.join("corpus/skel").to_string_lossy(),
            &format!("{golden}/dart_skel.json"),
        ],
    )
}
