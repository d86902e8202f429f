//! Choreonoid as an oracle: the build (`cargo xtask oracles choreonoid`) and the golden data it
//! produces (`cargo xtask golden choreonoid`).
//!
//! Golden data (`formats/mbconv-body/tests/golden/`): for every `.body` file of the corpus and
//! of `fixtures/body/`, what Choreonoid's own loader reads at the initial position (every
//! link's mass, world frame and world centre of mass, from `body_oracle FILE`), one JSON file
//! per model named after its path (`corpus__share__model__SR1__SR1.json`); and the same for
//! the files mbconv writes from them (`written_corpus__...json`, written into
//! `target/tmp/body-written/` by the `write_body` example), so the test can tell that Choreonoid
//! reads mbconv's output as mbconv means it. Files Choreonoid refuses are listed in
//! `refused.txt` with the first line of its message. CI never builds Choreonoid: the test
//! reads the committed data.

use crate::{cargo, run, workspace_root};
use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};
use std::process::Command;

fn oracle_binary() -> PathBuf {
    workspace_root().join("target/choreonoid-oracle/body_oracle")
}

/// Builds the Choreonoid oracle into `target/choreonoid-oracle` unless it is there (about 25
/// minutes on two cores; needs `apt-get install -y cmake libzip-dev libpng-dev libjpeg-dev
/// pkg-config uuid-dev`).
pub fn build() -> Result<()> {
    if oracle_binary().exists() {
        eprintln!("{} exists", oracle_binary().display());
        return Ok(());
    }
    let script = workspace_root().join("../shared/oracles/choreonoid/build.sh");
    if !script.exists() {
        bail!(
            "{} is missing: the Choreonoid oracle is built from ../shared",
            script.display()
        );
    }
    run("bash", &[&script.to_string_lossy(), "target/choreonoid-oracle"])
}

/// Every `.body` file under `dir`, sorted, with its path relative to `dir`.
fn body_files(dir: &Path) -> Result<Vec<(String, PathBuf)>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).with_context(|| format!("cannot list {}", d.display()))? {
            let path = entry?.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "body") {
                let rel = path.strip_prefix(dir)?.to_string_lossy().replace('\\', "/");
                out.push((rel, path));
            }
        }
    }
    out.sort();
    Ok(out)
}

/// The golden file name of a model: its prefix and relative path with `/` as `__`.
pub fn golden_name(prefix: &str, relative: &str) -> String {
    let stem = relative.strip_suffix(".body").unwrap_or(relative);
    format!("{prefix}__{}.json", stem.replace('/', "__"))
}

/// Regenerates the Choreonoid golden data.
pub fn golden() -> Result<()> {
    if !oracle_binary().exists() {
        bail!("the Choreonoid oracle is not built: run `cargo xtask oracles choreonoid` first");
    }
    let root = workspace_root();
    let out = root.join("formats/mbconv-body/tests/golden");
    let written = root.join("target/tmp/body-written");
    let _ = std::fs::remove_dir_all(&written);
    let sources = [
        ("corpus", root.join("../shared/corpus/body")),
        ("fixtures", root.join("fixtures/body")),
    ];
    for (prefix, dir) in &sources {
        let out_dir = written.join(prefix);
        run(
            cargo(),
            &[
                "run",
                "-q",
                "-p",
                "mbconv-body",
                "--example",
                "write_body",
                "--",
                &dir.to_string_lossy(),
                &out_dir.to_string_lossy(),
            ],
        )?;
    }
    // Only now, with mbconv's files written, is the old data replaced (the README stays).
    std::fs::create_dir_all(&out)?;
    for entry in std::fs::read_dir(&out)? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "json" || e == "txt") {
            std::fs::remove_file(path)?;
        }
    }
    let mut refused = String::new();
    let mut loaded = 0;
    let written_sources = [
        ("written_corpus", written.join("corpus")),
        ("written_fixtures", written.join("fixtures")),
    ];
    for (prefix, dir) in sources.iter().cloned().chain(written_sources) {
        for (relative, path) in body_files(&dir)? {
            // A path relative to the workspace, so that messages naming it are the same on
            // every machine.
            let arg = path.strip_prefix(&root).unwrap_or(&path).to_path_buf();
            let output = Command::new(oracle_binary())
                .arg(&arg)
                .current_dir(&root)
                .output()
                .context("cannot run the Choreonoid oracle")?;
            if output.status.success() {
                std::fs::write(out.join(golden_name(prefix, &relative)), &output.stdout)?;
                loaded += 1;
            } else {
                let stderr = String::from_utf8_lossy(&output.stderr);
                let reason = stderr
                    .lines()
                    .skip(1)
                    .find(|l| !l.trim().is_empty())
                    .unwrap_or("refused")
                    .trim()
                    .to_owned();
                refused.push_str(&format!("{prefix}/{relative}: {reason}\n"));
            }
        }
    }
    std::fs::write(out.join("refused.txt"), refused)?;
    eprintln!(
        "Choreonoid loaded {loaded} models; golden data in {}",
        out.display()
    );
    Ok(())
}
