//! Contact between jointed bodies as Chrono's contact solver judges it (golden data from
//! `cargo xtask golden chrono-contact`, see `docs/formats/chrono.md`, "Contact between jointed
//! bodies"). Every SKEL corpus model with collision shapes on two jointed bodies was written as
//! Chrono YAML by default (the shapes that make a jointed pair touch at the start left out) and
//! with `keep-jointed-contact`; Chrono ran each with its contact solver, and DART, with its
//! collision checking on, ran the same model lowered for Chrono and written back as SKEL.
//! * the texts Chrono ran are the ones mbconv writes today;
//! * where the default conversion took shapes out, Chrono with them kept moves the model away
//!   from DART, and without them it follows DART (listed per model below, measured).
#![allow(clippy::unwrap_used)]

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/jointed_contact")
}

fn cases() -> Vec<(String, Value)> {
    let mut cases: Vec<(String, Value)> = std::fs::read_dir(golden_dir())
        .expect("tests/golden/jointed_contact: run `cargo xtask golden chrono-contact`")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            (
                name,
                serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap(),
            )
        })
        .collect();
    cases.sort_by(|a, b| a.0.cmp(&b.0));
    cases
}

/// The Chrono text mbconv writes for `source` today, written where the xtask wrote it (same
/// depth below the workspace: relative mesh names come out the same).
fn written(case: &str, variant: &str, source: &Path, keep: bool) -> String {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("jointed-contact-check")
        .join(case)
        .join(variant);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let output = dir.join("model.yaml");
    let mut command = Command::new(env!("CARGO_BIN_EXE_mbconv"));
    command
        .args(["-q", "convert"])
        .arg(source)
        .arg("-o")
        .arg(&output)
        .arg("--no-check");
    if keep {
        command.args(["--write-option", "keep-jointed-contact=true"]);
    }
    assert!(
        command.status().unwrap().success(),
        "{case}: mbconv convert failed"
    );
    std::fs::read_to_string(&output).unwrap()
}

#[test]
fn chrono_ran_what_mbconv_writes_today() {
    let mut compared = 0;
    let mut failures = Vec::new();
    for (case, golden) in cases() {
        let shown = golden["source"].as_str().unwrap();
        let Some(source) = mbconv_test_support::corpus_file(shown.strip_prefix("corpus/").unwrap()) else {
            continue;
        };
        for (variant, keep) in [("removed", false), ("kept", true)] {
            let text = written(&case, variant, &source, keep);
            let hash = mbconv_test_support::text_hash(&text);
            if golden[variant]["hash"].as_str() != Some(hash.as_str()) {
                failures.push(format!("{case} ({variant})"));
            }
        }
        compared += 1;
    }
    if !mbconv_test_support::corpus_root().is_dir() {
        return;
    }
    assert!(compared >= 20, "only {compared} cases");
    assert!(
        failures.is_empty(),
        "the Chrono writer changed since Chrono ran these: run `cargo xtask golden chrono-contact`: {failures:?}"
    );
}

/// The cases Chrono could not run, with why.
const NOT_RUN: &[(&str, &str)] = &[(
    "skel__kima__kima_human_left_leg",
    "its COLLADA meshes (pelvis.dae, ...) are not in the corpus: Chrono refuses a missing mesh file",
)];

fn gap(golden: &Value, variant: &str) -> Option<f64> {
    golden[variant]["max_com_difference"].as_f64()
}

#[test]
fn leaving_out_the_touching_shapes_never_moves_chrono_further_from_dart() {
    // Measured (cargo xtask golden chrono-contact, 2026-11-26): the default conversion took
    // shapes out of 13 of the 27 models; in each of the 12 Chrono could run, Chrono without
    // them is at least as close to DART as with them (the largest COM gap over 1 s at
    // dt = 1e-4).
    let mut removed_in = 0;
    for (case, golden) in cases() {
        if NOT_RUN.iter().any(|(c, _)| *c == case) {
            assert!(
                golden["removed"]["error"].is_string(),
                "{case} ran now: take it off NOT_RUN"
            );
            continue;
        }
        let (removed, kept) = (gap(&golden, "removed").unwrap(), gap(&golden, "kept").unwrap());
        if golden["removed"]["hash"] == golden["kept"]["hash"] {
            // The same text: nothing touched at the start, Chrono ran the same model twice.
            assert_eq!(removed.to_bits(), kept.to_bits(), "{case}");
            continue;
        }
        removed_in += 1;
        assert!(
            removed <= kept,
            "{case}: {removed} m without the shapes, {kept} m with them"
        );
    }
    assert!(removed_in >= 10, "shapes taken out of only {removed_in} models");
}

#[test]
fn a_double_pendulum_on_a_base_follows_dart_only_without_the_touching_shapes() {
    // DART's test/double_pendulum_with_base.skel: the links' boxes overlap the base and each
    // other at the joints. With them kept, Chrono pushes the links apart from the first step
    // (2.9 m off within 1 s); without them, 0.12 m remains, from contact with the ground box
    // that both simulators model their own way (the check says `not compared: contact`).
    let golden = cases()
        .into_iter()
        .find(|(case, _)| case == "skel__test__double_pendulum_with_base")
        .map(|(_, g)| g)
        .unwrap();
    let (removed, kept) = (gap(&golden, "removed").unwrap(), gap(&golden, "kept").unwrap());
    assert!(kept > 2.0, "{kept}");
    assert!(removed < 0.2, "{removed}");
}

#[test]
fn every_case_chrono_could_not_run_is_listed_with_its_reason() {
    for (case, golden) in cases() {
        let failed = golden["removed"]["error"].is_string() || golden["kept"]["error"].is_string();
        let listed = NOT_RUN.iter().any(|(c, _)| *c == case);
        assert_eq!(failed, listed, "{case}: {golden}");
    }
}
