//! `cargo xtask download`: corpus that lives in a package registry rather than in
//! `../shared/corpus`, fetched pinned (version and SHA-256) and unpacked into
//! `target/downloads/<name>-<version>/`, where `mbconv_test_support::downloaded` finds it.
//!
//! The project never holds other people's model files; the shared corpus holds what was
//! gathered from repositories, and this task holds what a registry serves (CI reaches the
//! registries, not the repositories).

use crate::{run, workspace_root};
use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};

/// One source distribution on PyPI, pinned.
struct Sdist {
    name: &'static str,
    version: &'static str,
    sha256: &'static str,
}

/// Every download. xacro's source distribution carries the test inputs of the reference
/// expander (BSD-3-Clause): a PR2 description snapshot of 2014 and small include, macro and
/// YAML cases (`crates/mbconv-xacro/tests/golden/xacro-2.1.1.md` lists the expansions used).
const SDISTS: &[Sdist] = &[Sdist {
    name: "xacro",
    version: "2.1.1",
    sha256: "3e7adf33cdd90d9fbe8ca0d07d9118acf770a2ad8bf575977019a5c8a60d4d1b",
}];

/// Where the downloads are unpacked.
pub fn downloads_dir() -> PathBuf {
    workspace_root().join("target/downloads")
}

/// Fetches and unpacks every download that is not already complete.
pub fn download() -> Result<()> {
    let dir = downloads_dir();
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    for sdist in SDISTS {
        fetch(sdist, &dir)?;
    }
    Ok(())
}

/// Fetches one source distribution with pip (hash required) and unpacks it; a marker file
/// written last makes a complete unpacking recognisable.
fn fetch(sdist: &Sdist, dir: &Path) -> Result<()> {
    let stem = format!("{}-{}", sdist.name, sdist.version);
    let unpacked = dir.join(&stem);
    let marker = unpacked.join(".mbconv-download-complete");
    if marker.is_file() {
        eprintln!("{stem}: already in {}", unpacked.display());
        return Ok(());
    }
    let _ = std::fs::remove_dir_all(&unpacked);
    let requirements = dir.join(format!("{stem}.requirements.txt"));
    std::fs::write(
        &requirements,
        format!(
            "{}=={} --hash=sha256:{}\n",
            sdist.name, sdist.version, sdist.sha256
        ),
    )?;
    let (dir_text, requirements_text) = (
        dir.to_string_lossy().into_owned(),
        requirements.to_string_lossy().into_owned(),
    );
    run(
        "python3",
        &[
            "-m",
            "pip",
            "download",
            "--quiet",
            "--no-deps",
            "--no-binary",
            ":all:",
            "--require-hashes",
            "-r",
            &requirements_text,
            "-d",
            &dir_text,
        ],
    )?;
    let archive = dir.join(format!("{stem}.tar.gz"));
    if !archive.is_file() {
        bail!("pip did not leave {}", archive.display());
    }
    run("tar", &["-xzf", &archive.to_string_lossy(), "-C", &dir_text])?;
    if !unpacked.is_dir() {
        bail!("{} did not unpack into {}", archive.display(), unpacked.display());
    }
    std::fs::write(&marker, format!("{}\n", sdist.sha256))?;
    eprintln!("{stem}: unpacked into {}", unpacked.display());
    Ok(())
}
