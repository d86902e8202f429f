//! DART and Chrono as judges of what mbconv writes (golden data from `cargo xtask golden
//! chrono`, see `docs/check.md`). For every cross-simulator case:
//! * the files mbconv writes today are byte for byte the ones the simulators ran (so the golden
//!   data judges the current writers, not old ones);
//! * the two simulators agree (within `SIMULATOR_TOLERANCE`, or converging to it as the step
//!   halves), or the conversion reports a loss and
//!   `docs/corpus-matrix.md` names it for that case;
//! * a case the simulators could not run is one whose model mbconv refuses on purpose.
#![allow(clippy::unwrap_used)]

use mbconv::ir::format::{Options, Source};
use mbconv_test_support::simulators::{
    Agreement, SimulatorCase, agreement, simulator_case, simulator_golden_dir,
};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn cases() -> Vec<(SimulatorCase, Value)> {
    let mut names: Vec<String> = std::fs::read_dir(simulator_golden_dir())
        .expect("crates/mbconv-cli/tests/golden/simulators: run `cargo xtask golden chrono`")
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            e.file_name()
                .to_str()
                .and_then(|n| n.strip_suffix(".json"))
                .map(str::to_owned)
        })
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|name| {
            let case = simulator_case(&name).unwrap_or_else(|| panic!("unknown case name {name}"));
            let text = std::fs::read_to_string(simulator_golden_dir().join(format!("{name}.json"))).unwrap();
            (case, serde_json::from_str(&text).unwrap())
        })
        .collect()
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

/// The loss codes that reading the model and lowering it for the target report.
fn reported_losses(case: &SimulatorCase) -> BTreeSet<String> {
    let registry = mbconv::formats();
    let source = Source::from_path(&case.source).unwrap();
    let from = registry.detect(&case.source, Some(&source.text)).unwrap();
    let imported = registry.read(from, &source, &Options::default()).unwrap();
    let lowered = registry
        .get(case.target_format)
        .unwrap()
        .lower(&imported.model, &Options::default())
        .unwrap();
    imported
        .report
        .findings
        .iter()
        .chain(&lowered.report.findings)
        .filter(|f| f.category.is_loss())
        .map(|f| f.code.clone())
        .collect()
}

#[test]
fn the_simulators_ran_what_mbconv_writes_today() {
    // Written at the same depth below the workspace as `xtask` writes them, so relative mesh
    // names come out the same.
    let scratch = Path::new(env!("CARGO_TARGET_TMPDIR")).join("simulators-check");
    let _ = std::fs::remove_dir_all(&scratch);
    let mut failures = Vec::new();
    let mut compared = 0;
    for (case, _) in cases() {
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
        let output = dir.join(format!("{stem}.{extension}"));
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

#[test]
fn the_simulators_agree_or_a_reported_loss_explains_the_difference() {
    let matrix = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/corpus-matrix.md"
    ))
    .unwrap();
    let mut failures = Vec::new();
    let (mut agree, mut explained, mut refused) = (0, 0, 0);
    for (case, golden) in cases() {
        if !case.source.is_file() {
            mbconv_test_support::missing(&case.source.display().to_string());
            continue;
        }
        let row = matrix.lines().find(|l| {
            l.starts_with(&format!("| `{}` | ", case.shown))
                && l.contains(&format!("-> {} |", case.target_format))
        });
        if let Some(error) = golden["error"].as_str() {
            // Only a model mbconv refuses on purpose may leave the simulators nothing to run.
            if error.contains("mbconv convert failed") {
                refused += 1;
            } else {
                failures.push(format!("{}: a simulator could not run it: {error}", case.name));
            }
            continue;
        }
        let gap = golden["max_com_difference"].as_f64().unwrap_or(f64::INFINITY);
        let half = golden["max_com_difference_half_step"].as_f64();
        if agreement(gap, half) != Agreement::Apart {
            agree += 1;
            continue;
        }
        let losses = reported_losses(&case);
        let named = row.is_some_and(|r| {
            r.contains("differ, explained by") && losses.iter().any(|c| r.contains(c.as_str()))
        });
        if losses.is_empty() || !named {
            failures.push(format!(
                "{}: the simulators differ by {gap:.3e} m; reported losses {losses:?}; docs/corpus-matrix.md row: {row:?}",
                case.name
            ));
        } else {
            explained += 1;
        }
    }
    eprintln!(
        "simulators: {agree} agree, {explained} differ with a reported loss, {refused} refused by mbconv"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
