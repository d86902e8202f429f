//! DART and Chrono as judges of what mbconv writes (golden data from `cargo xtask golden
//! chrono`, see `docs/check.md`, "The simulators as judges"). For every cross-simulator case:
//! * the files mbconv writes today are byte for byte the ones the simulators ran, both the
//!   conversion (`mbconv convert`) and the model lowered for the target and written back in the
//!   source format (`mbconv_test_support::lowered_back`), so the golden data judges the current writers;
//! * the target simulator on the conversion and the source simulator on the lowered model
//!   agree (`judge_case`: equal to rounding, or a first-order gap that extrapolates below
//!   `SIMULATOR_TOLERANCE`), or the pair is listed with its reason among the open problems of
//!   `docs/corpus-matrix.md`, and a listed pair does fail; a pair with a body the other side
//!   cannot match never agrees;
//! * a case the simulators could not run is one whose model mbconv refuses on purpose.
#![allow(clippy::unwrap_used)]

use mbconv_test_support::simulator_verdicts::{
    CaseOutcome, SimulatorCase, judge_case, made_on_the_lowered_model, simulator_case, simulator_golden_dir,
};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn cases() -> Vec<(SimulatorCase, Value)> {
    let mut names: Vec<String> = std::fs::read_dir(simulator_golden_dir())
        .expect("front/mbconv-cli/tests/golden/simulators: run `cargo xtask golden chrono`")
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            e.file_name()
                .to_str()
                .and_then(|n| n.strip_suffix(".json"))
                .map(str::to_owned)
        })
        .collect();
    names.sort();
    let cases: Vec<(SimulatorCase, Value)> = names
        .into_iter()
        .map(|name| {
            let case = simulator_case(&name).unwrap_or_else(|| panic!("unknown case name {name}"));
            let text = std::fs::read_to_string(simulator_golden_dir().join(format!("{name}.json"))).unwrap();
            (case, serde_json::from_str(&text).unwrap())
        })
        .collect();
    // Golden data made by the earlier judge (the source simulator on the original) cannot be
    // judged as the lowered model: say what to regenerate rather than judge it.
    let stale: Vec<&str> = cases
        .iter()
        .filter(|(_, golden)| !made_on_the_lowered_model(golden))
        .map(|(case, _)| case.name.as_str())
        .collect();
    assert!(
        stale.is_empty(),
        "{} of {} simulator golden files were made with the source simulator on the original, not on the \
         lowered model written back: regenerate them with `cargo xtask golden chrono` (needs the Chrono \
         oracle, `cargo xtask oracles chrono`), then `cargo xtask corpus simulators`: {}",
        stale.len(),
        cases.len(),
        stale.join(", ")
    );
    cases
}

fn files_under(dir: &Path) -> BTreeSet<PathBuf> {
    let mut found = BTreeSet::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                found.insert(path.strip_prefix(dir).unwrap().to_path_buf());
            }
        }
    }
    found
}

#[test]
fn the_simulators_ran_what_mbconv_writes_today() {
    // Written at the same depth below the workspace as `xtask` writes them, so relative mesh
    // names come out the same: the workspace's `target/tmp`, whatever `CARGO_TARGET_DIR` says
    // (a target directory outside the clone changed the relative mesh names written).
    let scratch = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../target/tmp")
        .join("simulators-check");
    let _ = std::fs::remove_dir_all(&scratch);
    let registry = mbconv::formats();
    let mut failures = Vec::new();
    let mut compared = 0;
    for (case, golden) in cases() {
        if !case.source.is_file() {
            mbconv_test_support::missing(&case.source.display().to_string());
            continue;
        }
        let kept = simulator_golden_dir().join("written").join(&case.name);
        let dir = scratch.join(&case.name);
        std::fs::create_dir_all(&dir).unwrap();
        let stem = case.source.file_stem().unwrap().to_string_lossy().into_owned();
        let extension = if case.target_format == "chrono" {
            "yaml"
        } else {
            "skel"
        };
        let source_extension = if case.target_format == "chrono" {
            "skel"
        } else {
            "yaml"
        };
        let output = dir.join(format!("{stem}.{extension}"));
        let back = mbconv_test_support::lowered_back::write_lowered_back(
            &registry,
            &case.source,
            case.target_format,
            &output,
            &dir.join("lowered").join(format!("{stem}.{source_extension}")),
        );
        let status = Command::new(env!("CARGO_BIN_EXE_mbconv"))
            .args(["-q", "convert"])
            .arg(&case.source)
            .arg("-o")
            .arg(&output)
            .arg("--no-check")
            .status()
            .unwrap();
        let now = files_under(&dir);
        let then = files_under(&kept);
        if !status.success() && then.is_empty() {
            continue; // refused then and now
        }
        if let Ok(back) = &back {
            let recorded: Vec<&str> = golden["lowered_losses"]
                .as_array()
                .map(|a| a.iter().filter_map(|l| l.as_str()).collect())
                .unwrap_or_default();
            if back.motion_losses != recorded {
                failures.push(format!(
                    "{}: writing the lowered model back loses {:?} today, {recorded:?} when the simulators ran",
                    case.name, back.motion_losses
                ));
            }
        }
        if now != then {
            failures.push(format!(
                "{}: wrote {now:?}, the simulators ran {then:?}",
                case.name
            ));
            continue;
        }
        for file in &now {
            if std::fs::read(dir.join(file)).unwrap() != std::fs::read(kept.join(file)).unwrap() {
                failures.push(format!(
                    "{}: {} differs from what the simulators ran",
                    case.name,
                    file.display()
                ));
            }
        }
        compared += 1;
    }
    assert!(compared >= 20, "only {compared} cases compared");
    assert!(
        failures.is_empty(),
        "the writers changed since the simulator golden data was made: run `cargo xtask golden chrono`\n{}",
        failures.join("\n")
    );
}

/// The open problems listed in the simulators' section of `docs/corpus-matrix.md`: case name
/// and reason.
fn open_problems(matrix: &str) -> Vec<(String, String)> {
    matrix
        .lines()
        .skip_while(|l| !l.starts_with("### Open problems in the simulators"))
        .filter_map(|l| l.strip_prefix("- `"))
        .filter_map(|l| l.split_once("`: "))
        .map(|(case, reason)| (case.to_owned(), reason.trim().to_owned()))
        .collect()
}

#[test]
fn the_simulators_agree_on_the_lowered_model_or_the_pair_is_an_open_problem() {
    let matrix = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/corpus-matrix.md"
    ))
    .unwrap();
    let listed = open_problems(&matrix);
    let mut failures = Vec::new();
    let (mut agree, mut open, mut refused) = (0, 0, 0);
    for (case, golden) in cases() {
        if !case.source.is_file() {
            mbconv_test_support::missing(&case.source.display().to_string());
            continue;
        }
        let outcome = judge_case(&golden);
        // The matrix shows today's judgement of the golden data.
        let row = matrix.lines().find(|l| {
            l.starts_with(&format!("| `{}` | ", case.shown))
                && l.contains(&format!("-> {} |", case.target_format))
        });
        let judged = match &outcome {
            CaseOutcome::Refused(_) => "not run:",
            _ if outcome.fails() => "**fails**:",
            _ => "agree (",
        };
        if !row.is_some_and(|r| r.contains(&format!("| {judged}"))) {
            failures.push(format!(
                "{}: docs/corpus-matrix.md does not show it as `{judged}` (run `cargo xtask corpus simulators`): {row:?}",
                case.name
            ));
        }
        let reason = listed
            .iter()
            .find(|(c, _)| *c == case.name)
            .map(|(_, r)| r.as_str());
        match (&outcome, reason) {
            (CaseOutcome::Refused(_), None) => refused += 1,
            (CaseOutcome::Judged { judgement, .. }, None) if outcome.fails() => failures.push(format!(
                "{}: the simulators do not agree on the lowered model and the pair is not an open problem: {judgement:?}",
                case.name
            )),
            (_, None) => agree += 1,
            (_, Some(reason)) if !outcome.fails() => failures.push(format!(
                "{}: listed as an open problem ({reason}) but it does not fail: take it off the list",
                case.name
            )),
            (_, Some(reason)) if reason.is_empty() || reason.contains("not explained yet") => {
                failures.push(format!("{}: an open problem without its reason", case.name));
            }
            (_, Some(_)) => open += 1,
        }
    }
    for (case, _) in &listed {
        if !cases().iter().any(|(c, _)| c.name == *case) {
            failures.push(format!(
                "{case}: listed as an open problem but there is no such case"
            ));
        }
    }
    eprintln!("simulators: {agree} agree, {open} fail as listed open problems, {refused} refused by mbconv");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
