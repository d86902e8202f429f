//! `cargo xtask golden urdf`: how MuJoCo, Pinocchio, Drake and DART read every URDF fixture
//! and corpus file (`oracles/urdf/urdf_golden.py`), into `formats/mbconv-urdf/tests/golden/read`.

use crate::{oracles, run, workspace_root};
use anyhow::{Context, Result, bail};
use std::path::Path;

/// Where the golden data goes (only this directory is rewritten).
const OUT: &str = "formats/mbconv-urdf/tests/golden/read";

/// The `.urdf` files directly in `dir`, by name, sorted.
fn urdf_files(dir: &Path) -> Result<Vec<String>> {
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot list {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "urdf"))
        .filter_map(|p| p.file_name().and_then(|n| n.to_str()).map(str::to_owned))
        .collect();
    files.sort();
    Ok(files)
}

/// The model files of `../shared/corpus/urdf/README.md` (first column of its table).
fn corpus_models(corpus: &Path) -> Result<Vec<String>> {
    let readme = std::fs::read_to_string(corpus.join("README.md"))?;
    let files: Vec<String> = readme
        .lines()
        .filter_map(|line| line.strip_prefix("| `"))
        .filter_map(|rest| rest.split('`').next())
        .filter(|file| file.ends_with(".urdf"))
        .map(str::to_owned)
        .collect();
    if files.is_empty() {
        bail!("no model files in {}", corpus.join("README.md").display());
    }
    Ok(files)
}

/// `NAME=DIR` for every `<source>/package.xml` of the corpus (DIR relative to the corpus root),
/// the package map the corpus README says Drake was given.
fn corpus_packages(corpus: &Path) -> Result<Vec<String>> {
    let mut packages = Vec::new();
    for entry in std::fs::read_dir(corpus)? {
        let dir = entry?.path();
        let Ok(text) = std::fs::read_to_string(dir.join("package.xml")) else {
            continue;
        };
        let name = text
            .split_once("<name>")
            .and_then(|(_, rest)| rest.split_once("</name>"))
            .map(|(name, _)| name.trim().to_owned())
            .with_context(|| format!("no <name> in {}", dir.join("package.xml").display()))?;
        let source = dir.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        packages.push(format!("{name}={source}"));
    }
    packages.sort();
    Ok(packages)
}

/// `NAME=packages/NAME` for every directory of `fixtures/urdf/packages`.
fn fixture_packages(fixtures: &Path) -> Result<Vec<String>> {
    let mut packages: Vec<String> = std::fs::read_dir(fixtures.join("packages"))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .filter_map(|p| p.file_name().and_then(|n| n.to_str()).map(str::to_owned))
        .map(|name| format!("{name}=packages/{name}"))
        .collect();
    packages.sort();
    Ok(packages)
}

/// Runs the oracle script on `files` under `root`, with MuJoCo trajectories.
fn judge(python: &Path, root: &Path, prefix: &str, packages: &[String], files: &[String]) -> Result<()> {
    let script = workspace_root().join("oracles/urdf/urdf_golden.py");
    let out = workspace_root().join(OUT);
    let (script, root, out) = (
        script.to_string_lossy(),
        root.to_string_lossy(),
        out.to_string_lossy(),
    );
    let mut args = vec![
        &*script,
        "--root",
        &*root,
        "--prefix",
        prefix,
        "--out",
        &*out,
        "--trajectory",
    ];
    for package in packages {
        args.extend(["--package", package.as_str()]);
    }
    args.extend(files.iter().map(String::as_str));
    run(python, &args)
}

/// Regenerates the URDF reading golden data: every fixture of `fixtures/urdf` and every model
/// file of the URDF corpus, each judged by MuJoCo (with a 1 s trajectory), Pinocchio, Drake and
/// DART.
pub fn golden() -> Result<()> {
    let python = oracles::setup()?;
    let root = workspace_root();
    // `MBCONV_CORPUS` as the tests read it (a worktree has no `../shared` beside it).
    let corpus = std::env::var_os("MBCONV_CORPUS")
        .map_or_else(|| root.join("../shared/corpus"), std::path::PathBuf::from)
        .join("urdf");
    if !corpus.is_dir() {
        bail!(
            "{} is missing: the oracles run on the shared corpus (set MBCONV_CORPUS)",
            corpus.display()
        );
    }
    let _ = std::fs::remove_dir_all(root.join(OUT));
    let fixtures = root.join("fixtures/urdf");
    judge(
        &python,
        &fixtures,
        "fixtures",
        &fixture_packages(&fixtures)?,
        &urdf_files(&fixtures)?,
    )?;
    judge(
        &python,
        &corpus,
        "corpus",
        &corpus_packages(&corpus)?,
        &corpus_models(&corpus)?,
    )
}
