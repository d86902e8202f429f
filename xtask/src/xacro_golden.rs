//! `cargo xtask golden xacro`: every xacro expansion as the reference, xacro 2.1.1 from PyPI,
//! writes it (`oracles/xacro/xacro_golden.py`), into `crates/mbconv-xacro/tests/golden`:
//! - `xacro-2.1.1/`: the reference's own test inputs (its source distribution, fetched by
//!   `cargo xtask download`), the rows of `golden/xacro-2.1.1.md`;
//! - `field/`: description packages from GitHub (UR, Franka) when `MBCONV_XACRO_FIELD` names a
//!   folder holding them, the rows of `golden/field.md` (kept otherwise);
//! - `fixtures/`: `fixtures/xacro`, the rows of its README;
//! - `corners/`: `crates/mbconv-xacro/tests/corners`, the probes of the language's corners,
//!   the rows of its README.

use crate::{run, workspace_root};
use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};

/// Where the golden data goes (only these directories are rewritten).
const OUT: &str = "crates/mbconv-xacro/tests/golden";

/// The reference, pinned.
const XACRO: &str = "xacro==2.1.1";

/// Its YAML library, pinned too: how `<<` merge keys order and override a mapping's entries
/// changed between PyYAML releases (6.0.4 skips a key merged twice when PyYAML holds it as
/// one string object), and `xacro.load_yaml` hands its dictionaries over in that order.
const PYYAML: &str = "PyYAML==6.0.4";

/// Creates (or reuses) `target/xacro-venv` with the reference and returns its Python; the
/// environment variable `MBCONV_XACRO_PYTHON` names another Python that has it.
pub fn python() -> Result<PathBuf> {
    if let Some(python) = std::env::var_os("MBCONV_XACRO_PYTHON") {
        return Ok(PathBuf::from(python));
    }
    let venv = workspace_root().join("target/xacro-venv");
    let python = venv.join("bin/python");
    if !python.exists() {
        run("python3", &["-m", "venv", &venv.to_string_lossy()])?;
    }
    run(&python, &["-m", "pip", "install", "--quiet", XACRO, PYYAML])?;
    Ok(python)
}

/// The expansions of a README's table: `FILE` or `FILE:ARG=VALUE,...` per row of
/// `| \`file\` | \`args\` |`.
fn expansions(readme: &Path) -> Result<Vec<String>> {
    let text =
        std::fs::read_to_string(readme).with_context(|| format!("cannot read {}", readme.display()))?;
    let rows: Vec<String> = text
        .lines()
        .filter_map(|line| line.strip_prefix("| `"))
        .filter_map(|rest| {
            let (file, rest) = rest.split_once('`')?;
            let args = rest
                .trim_start_matches([' ', '|'])
                .split('`')
                .nth(1)
                .unwrap_or("");
            Some(if args.is_empty() {
                file.to_owned()
            } else {
                format!("{file}:{args}")
            })
        })
        .collect();
    if rows.is_empty() {
        bail!("no expansions in {}", readme.display());
    }
    Ok(rows)
}

/// The `<name>` of the `package.xml` in `dir`, if it has one.
fn manifest_name(dir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(dir.join("package.xml")).ok()?;
    let (_, rest) = text.split_once("<name>")?;
    Some(rest.split_once("</name>")?.0.trim().to_owned())
}

/// `NAME=NAME` for every directory of `root` holding a `package.xml`, and `NAME=.` when
/// `root` is a package itself.
fn packages(root: &Path) -> Result<Vec<String>> {
    let mut found: Vec<String> = manifest_name(root)
        .map(|n| format!("{n}=."))
        .into_iter()
        .collect();
    for entry in std::fs::read_dir(root)? {
        let dir = entry?.path();
        if dir.join("package.xml").is_file()
            && let Some(name) = dir.file_name().and_then(|n| n.to_str())
        {
            found.push(format!("{name}={name}"));
        }
    }
    found.sort();
    Ok(found)
}

/// Runs the oracle script on the expansions listed in `rows` (a Markdown table) for the files
/// under `root`, into `OUT/<name>`.
fn expand(python: &Path, root: &Path, rows: &Path, name: &str) -> Result<()> {
    let out = workspace_root().join(OUT).join(name);
    let _ = std::fs::remove_dir_all(&out);
    let script = workspace_root().join("oracles/xacro/xacro_golden.py");
    let (script, root_text, out) = (
        script.to_string_lossy().into_owned(),
        root.to_string_lossy().into_owned(),
        out.to_string_lossy().into_owned(),
    );
    let packages = packages(root)?;
    let rows = expansions(rows)?;
    let mut args = vec![script.as_str(), "--root", &root_text, "--out", &out];
    for package in &packages {
        args.extend(["--package", package.as_str()]);
    }
    args.extend(rows.iter().map(String::as_str));
    run(python, &args)
}

/// Regenerates the xacro golden data (see the module's documentation).
pub fn golden() -> Result<()> {
    let python = python()?;
    let root = workspace_root();
    let out = root.join(OUT);
    crate::downloads::download(&["xacro"])?;
    let download = crate::downloads::downloads_dir().join("xacro-2.1.1");
    expand(&python, &download, &out.join("xacro-2.1.1.md"), "xacro-2.1.1")?;
    match std::env::var_os("MBCONV_XACRO_FIELD") {
        Some(field) => expand(&python, Path::new(&field), &out.join("field.md"), "field")?,
        None => eprintln!("MBCONV_XACRO_FIELD is not set: golden/field kept as it is"),
    }
    let fixtures = root.join("fixtures/xacro");
    expand(&python, &fixtures, &fixtures.join("README.md"), "fixtures")?;
    let corners = root.join("crates/mbconv-xacro/tests/corners");
    expand(&python, &corners, &corners.join("README.md"), "corners")
}
