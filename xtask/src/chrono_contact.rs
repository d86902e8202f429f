//! Contact between jointed bodies, measured in Chrono (`cargo xtask golden chrono-contact`).
//!
//! DART never checks contact between two bodies joined by a joint; Chrono's YAML parser puts
//! every shape in collision family 0, so it does. For every SKEL model of the corpus in which
//! some joint joins two bodies that both carry collidable shapes, this task writes the model
//! as Chrono YAML twice, by default (the shapes that make a jointed pair touch at the start
//! stop colliding) and with the write setting `keep-jointed-contact`, and runs each in Chrono
//! with its contact solver (the iterative solver of the written simulation file; no
//! `--direct`) and, as the source simulator's judgement of the same model, the model lowered
//! for Chrono written back as SKEL in DART with its own collision checking on (so what Chrono
//! cannot say, joint limits for one, is gone on both sides and only contact differs), at
//! dt = 1e-4 and 5e-5 for 1 s. `oracles/simulators/merge.py` compares the two; the golden file
//! of a case keeps each variant's gaps and the hash of its written text, so a test can tell
//! when mbconv writes something else.

use crate::{cargo, oracles, run, workspace_root};
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// The step and sampling of the runs: 1e-4 s and 5e-5 s, a sample every 0.1 s, 1 s.
const STEPS: [(&str, &str, &str); 2] = [("1e-4", "1000", ""), ("5e-5", "2000", "_half")];

/// The two ways of writing a case: the default, and with the shapes kept.
const VARIANTS: [(&str, Option<&str>); 2] = [("removed", None), ("kept", Some("keep-jointed-contact=true"))];

/// Regenerates `front/mbconv-cli/tests/golden/jointed_contact/`.
pub fn golden() -> Result<()> {
    let root = workspace_root();
    let python = oracles::setup()?;
    run(cargo(), &["build", "-p", "mbconv-cli"])?;
    let mbconv = root.join("target/debug/mbconv");
    let golden = root.join("front/mbconv-cli/tests/golden/jointed_contact");
    let work = root.join("target/tmp/jointed_contact");
    let _ = std::fs::remove_dir_all(&golden);
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&golden)?;
    let registry = mbconv::formats();
    for skel in models()? {
        let shown = skel
            .strip_prefix(mbconv_test_support::corpus_root())
            .unwrap_or(&skel)
            .to_string_lossy()
            .into_owned();
        let case = shown.trim_end_matches(".skel").replace('/', "__");
        let dir = work.join(&case);
        std::fs::create_dir_all(&dir)?;
        let mut record = serde_json::Map::new();
        record.insert("source".into(), format!("corpus/{shown}").into());
        for (variant, option) in VARIANTS {
            let sub = dir.join(variant);
            std::fs::create_dir_all(&sub)?;
            let written = sub.join("model.yaml");
            let mut args = vec![
                "-q".to_owned(),
                "convert".into(),
                skel.to_string_lossy().into_owned(),
                "-o".into(),
                written.to_string_lossy().into_owned(),
                "--no-check".into(),
            ];
            if let Some(option) = option {
                args.extend(["--write-option".into(), option.to_owned()]);
            }
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            run(&mbconv, &args)?;
            let text = std::fs::read_to_string(&written).with_context(|| format!("{}", written.display()))?;
            let back = sub.join("lowered").join("model.skel");
            write_lowered_back(&registry, &skel, &written, option.is_some(), &back)?;
            for (dt, every, suffix) in STEPS {
                let out = sub.join(format!("dart{suffix}.json"));
                run(
                    &python,
                    &[
                        "oracles/dart/dart_trajectory.py",
                        &back.to_string_lossy(),
                        "--dt",
                        dt,
                        "--duration",
                        "1",
                        "--every",
                        every,
                        "--collisions",
                        "--out",
                        &out.to_string_lossy(),
                    ],
                )?;
            }
            let simulation = sub.join("model.simulation.yaml");
            for (dt, every, suffix) in STEPS {
                let csv = sub.join(format!("chrono{suffix}.csv"));
                crate::chrono::run_oracle(
                    &[
                        &simulation.to_string_lossy(),
                        "--dt",
                        dt,
                        "--duration",
                        "1",
                        "--every",
                        every,
                        "--csv",
                        &csv.to_string_lossy(),
                    ],
                    &csv,
                )?;
            }
            let merged = sub.join("merged.json");
            let side = |kind: &str, file: PathBuf| format!("{kind}:{}", file.display());
            run(
                &python,
                &[
                    "oracles/simulators/merge.py",
                    "--source",
                    &side("dart", sub.join("dart.json")),
                    "--target",
                    &side("chrono", sub.join("chrono.csv")),
                    "--half-source",
                    &side("dart", sub.join("dart_half.json")),
                    "--half-target",
                    &side("chrono", sub.join("chrono_half.csv")),
                    "--case",
                    &case,
                    "--dt",
                    STEPS[0].0,
                    "--ignore-static-extra",
                    "--out",
                    &merged.to_string_lossy(),
                ],
            )?;
            let merged: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&merged)?)?;
            let mut summary = serde_json::Map::new();
            summary.insert("hash".into(), mbconv_test_support::text_hash(&text).into());
            for key in [
                "error",
                "max_com_difference",
                "max_com_difference_half_step",
                "max_com_difference_extrapolated",
                "worst_body",
                "unmatched",
                "ignored",
            ] {
                if let Some(value) = merged.get(key) {
                    summary.insert(key.into(), value.clone());
                }
            }
            record.insert(variant.into(), summary.into());
        }
        let out = golden.join(format!("{case}.json"));
        let text = serde_json::to_string_pretty(&serde_json::Value::Object(record))?;
        std::fs::write(&out, format!("{text}\n"))?;
        eprintln!("wrote {}", out.display());
    }
    Ok(())
}

/// Writes `source` lowered for Chrono as `mbconv convert` lowers it for `converted` (with
/// `keep-jointed-contact` when `keep`) back as SKEL at `output`, collision shapes and all.
fn write_lowered_back(
    registry: &mbconv_ir::format::Registry,
    source: &Path,
    converted: &Path,
    keep: bool,
    output: &Path,
) -> Result<()> {
    use mbconv_test_support::lowered_back::{LoweredBack, write_lowered_back_with};
    let mut how = LoweredBack {
        contact: true,
        ..LoweredBack::default()
    };
    if keep {
        how.write_settings.set("keep-jointed-contact", "true");
    }
    write_lowered_back_with(registry, source, "chrono", converted, output, &how)?;
    Ok(())
}

/// The SKEL corpus models (not the pre-XML legacy files) in which a joint joins two bodies
/// that both have a collidable shape, sorted.
fn models() -> Result<Vec<PathBuf>> {
    let registry = mbconv::formats();
    let mut found = Vec::new();
    let root = mbconv_test_support::corpus_root().join("skel");
    let mut files = Vec::new();
    collect(&root, &mut files)?;
    files.sort();
    for path in files {
        let Ok(source) = mbconv_ir::format::Source::from_path(&path) else {
            continue;
        };
        let Ok(format) = registry.detect(&path, Some(&source.text)) else {
            continue;
        };
        let Ok(imported) = registry.read(format, &source, &mbconv_ir::format::Options::default()) else {
            continue;
        };
        if mbconv_ir::lower::colliding_jointed_joints(&imported.model)
            .next()
            .is_some()
        {
            found.push(path);
        }
    }
    Ok(found)
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>) -> Result<()> {
    for entry in std::fs::read_dir(dir).with_context(|| format!("cannot list {}", dir.display()))? {
        let path = entry?.path();
        if path.is_dir() {
            collect(&path, files)?;
        } else if path.extension().is_some_and(|e| e == "skel") {
            files.push(path);
        }
    }
    Ok(())
}
