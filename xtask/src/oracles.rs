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
    )?;
    golden_dart_from_other_formats(&python)
}

/// DART loading the SKEL files mbconv writes from the other formats' fixtures
/// (`crates/mbconv-cli/tests/golden/dart_written`; see the README there). The files are written
/// into `target/tmp/dart_written`, where the test writes them too, so relative mesh paths agree.
fn golden_dart_from_other_formats(python: &std::path::Path) -> Result<()> {
    let root = workspace_root();
    let golden = root.join("crates/mbconv-cli/tests/golden/dart_written");
    let written = root.join("target/tmp/dart_written");
    run(cargo(), &["build", "-p", "mbconv-cli"])?;
    let mbconv = root.join("target/debug/mbconv");
    let _ = std::fs::remove_dir_all(&written);
    let _ = std::fs::remove_dir_all(golden.join("skel"));
    for entry in std::fs::read_dir(&golden)? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "json") {
            std::fs::remove_file(path)?;
        }
    }
    let mut inputs = vec![("ir", root.join("fixtures/ir/double_pendulum.mbir.json"))];
    let mut chrono: Vec<PathBuf> = std::fs::read_dir(root.join("fixtures/chrono"))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        // solver.yaml is a Chrono solver file, not a model.
        .filter(|p| p.extension().is_some_and(|e| e == "yaml") && !p.ends_with("solver.yaml"))
        .collect();
    chrono.sort();
    inputs.extend(chrono.into_iter().map(|p| ("chrono", p)));
    for (prefix, input) in &inputs {
        let dir = written.join(prefix);
        std::fs::create_dir_all(&dir)?;
        let stem = input
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.split('.').next())
            .unwrap_or("model");
        let out = dir.join(format!("{stem}.skel"));
        run(
            &mbconv,
            &[
                "-q",
                "convert",
                &input.to_string_lossy(),
                "-o",
                &out.to_string_lossy(),
            ],
        )?;
    }
    for prefix in ["chrono", "ir"] {
        let dir = written.join(prefix);
        let (dir_text, golden_text) = (dir.to_string_lossy(), golden.to_string_lossy());
        run(
            python,
            &[
                "oracles/dart/dart_golden.py",
                "--root",
                &dir_text,
                "--prefix",
                prefix,
                "--out",
                &golden_text,
            ],
        )?;
        let copy = golden.join("skel").join(prefix);
        std::fs::create_dir_all(&copy)?;
        for entry in std::fs::read_dir(&dir)? {
            let path = entry?.path();
            if let Some(name) = path.file_name() {
                std::fs::copy(&path, copy.join(name))?;
            }
        }
    }
    Ok(())
}

/// Pinocchio ABA and DART trajectory golden data for the solver
/// (`crates/mbconv-solver/tests/golden`): the corpus SKEL files and the project's SKEL fixtures.
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
    )?;
    run(
        &python,
        &[
            "oracles/solver/dart_skel.py",
            "fixtures/skel",
            &format!("{golden}/dart_fixtures.json"),
        ],
    )
}
