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

/// One distribution on PyPI, pinned.
struct Sdist {
    name: &'static str,
    version: &'static str,
    sha256: &'static str,
    /// What PyPI serves under that hash: a source distribution or a wheel.
    kind: Kind,
}

/// The kind of file a download is, which says how pip fetches it and how it is unpacked.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    /// A source distribution (`NAME-VERSION.tar.gz`), unpacked by `tar` into its own
    /// `NAME-VERSION/` folder.
    Sdist,
    /// A wheel (`NAME-VERSION-*.whl`, a zip archive whose contents have no common folder),
    /// unpacked by Python's `zipfile` into `NAME-VERSION/`.
    Wheel,
}

/// Every download. xacro's source distribution carries the test inputs of the reference
/// expander (BSD-3-Clause): a PR2 description snapshot of 2014 and small include, macro and
/// YAML cases (`crates/mbconv-xacro/tests/golden/xacro-2.1.1.md` lists the expansions used).
/// Gepetto's example-robot-data 6.0.0 (BSD-3-Clause, 131 MB, a cmeel wheel) carries 69 robot
/// URDFs with their meshes under `cmeel.prefix/share/example-robot-data/robots`; the folder
/// `cmeel.prefix/share` is the URDF reader's `package_path` for its `package://` URIs
/// (`cargo xtask field` sweeps it, docs/field.md). The `newton` 1.8.0 wheel (Apache-2.0, 8.6 MB)
/// carries the USD corpus: the 90 example and test stages under `newton/examples/assets` and
/// `newton/tests/assets` (docs/formats/usd.md, "Corpus"; OpenUSD's parse of each is
/// `formats/mbconv-usd/tests/golden/downloads/`).
const SDISTS: &[Sdist] = &[
    Sdist {
        name: "xacro",
        version: "2.1.1",
        sha256: "3e7adf33cdd90d9fbe8ca0d07d9118acf770a2ad8bf575977019a5c8a60d4d1b",
        kind: Kind::Sdist,
    },
    Sdist {
        name: "example-robot-data",
        version: "6.0.0",
        sha256: "424092a8093411ac2cd4ccc0572382bfc6b5eb4833aa984ef5e671dd67cd0a6e",
        kind: Kind::Wheel,
    },
    Sdist {
        name: "newton",
        version: "1.8.0",
        sha256: "f17435c1a8bc6451acd5306ce00e296e7c6931eb8b9d9d61e44e876b2cd9caa2",
        kind: Kind::Wheel,
    },
];

/// Where the downloads are unpacked.
pub fn downloads_dir() -> PathBuf {
    workspace_root().join("target/downloads")
}

/// Fetches and unpacks the downloads named in `names` (by distribution name; every one
/// when `names` is empty) that are not already complete.
pub fn download(names: &[&str]) -> Result<()> {
    if let Some(unknown) = names.iter().find(|n| !SDISTS.iter().any(|s| s.name == **n)) {
        let known: Vec<&str> = SDISTS.iter().map(|s| s.name).collect();
        bail!("no download called {unknown:?} (known: {})", known.join(", "));
    }
    let dir = downloads_dir();
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    for sdist in SDISTS
        .iter()
        .filter(|s| names.is_empty() || names.contains(&s.name))
    {
        fetch(sdist, &dir)?;
    }
    Ok(())
}

/// Fetches one distribution with pip (hash required) and unpacks it; a marker file written
/// last makes a complete unpacking recognisable.
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
    let only = match sdist.kind {
        Kind::Sdist => "--no-binary",
        Kind::Wheel => "--only-binary",
    };
    run(
        "python3",
        &[
            "-m",
            "pip",
            "download",
            "--quiet",
            "--no-deps",
            only,
            ":all:",
            "--require-hashes",
            "-r",
            &requirements_text,
            "-d",
            &dir_text,
        ],
    )?;
    let archive = archive(sdist, dir)?;
    let archive_text = archive.to_string_lossy();
    match sdist.kind {
        Kind::Sdist => run("tar", &["-xzf", &archive_text, "-C", &dir_text])?,
        Kind::Wheel => run(
            "python3",
            &["-m", "zipfile", "-e", &archive_text, &unpacked.to_string_lossy()],
        )?,
    }
    if !unpacked.is_dir() {
        bail!("{} did not unpack into {}", archive.display(), unpacked.display());
    }
    std::fs::write(&marker, format!("{}\n", sdist.sha256))?;
    eprintln!("{stem}: unpacked into {}", unpacked.display());
    Ok(())
}

/// The file pip left for `sdist` in `dir`: `NAME-VERSION.tar.gz`, or the wheel
/// `NAME-VERSION-*.whl` (its name spelt with `_` for `-`, as wheels are).
fn archive(sdist: &Sdist, dir: &Path) -> Result<PathBuf> {
    let stem = format!("{}-{}", sdist.name, sdist.version);
    let found = match sdist.kind {
        Kind::Sdist => Some(dir.join(format!("{stem}.tar.gz"))).filter(|p| p.is_file()),
        Kind::Wheel => {
            let prefix = format!("{}-{}-", sdist.name.replace('-', "_"), sdist.version);
            std::fs::read_dir(dir)?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .find(|p| {
                    p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with(&prefix) && n.ends_with(".whl"))
                })
        }
    };
    found.with_context(|| format!("pip did not leave the archive of {stem} in {}", dir.display()))
}
