//! What a conversion prints: by default its warnings grouped by code and one summary line,
//! with `-v` every finding, with `--json` the whole report; the same in a batch.
#![allow(clippy::unwrap_used)]

mod common;

use common::{mbconv, stderr};
use std::path::{Path, PathBuf};

fn fixture(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(relative)
}

/// Converts `input` to `output` with `extra` flags; returns standard error's lines.
fn convert(input: &Path, output: &Path, extra: &[&str]) -> Vec<String> {
    let mut args = vec![
        "convert",
        input.to_str().unwrap(),
        "-o",
        output.to_str().unwrap(),
        "--force",
        "--no-check",
    ];
    args.extend(extra);
    let out = mbconv(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    stderr(&out).lines().map(str::to_owned).collect()
}

#[test]
fn warnings_are_grouped_by_code_and_every_finding_is_printed_with_v() {
    let dir = tempfile::tempdir().unwrap();
    // Shift has no shapes: eleven warnings, most of them of one code.
    let (input, output) = (fixture("skel/shapes.skel"), dir.path().join("shapes.json"));
    let every = convert(&input, &output, &["-v"]);
    let grouped = convert(&input, &output, &[]);
    let findings = |lines: &[String], severity: &str| {
        lines
            .iter()
            .filter(|l| l.contains(&format!(": {severity}[")))
            .count()
    };
    // -v prints each warning and note on its own line; the default prints no notes, one line
    // per warning code, and the summary counts what -v shows.
    let (warnings, notes) = (findings(&every, "warning"), findings(&every, "info"));
    assert!(warnings > 1, "{every:#?}");
    assert_eq!(findings(&grouped, "info"), 0, "{grouped:#?}");
    let codes: std::collections::BTreeSet<&str> = every
        .iter()
        .filter(|l| l.contains(": warning["))
        .map(|l| l.split("warning[").nth(1).unwrap().split(']').next().unwrap())
        .collect();
    assert_eq!(findings(&grouped, "warning"), codes.len(), "{grouped:#?}");
    let summary = grouped.iter().find(|l| l.starts_with("wrote ")).unwrap();
    assert!(
        summary.contains(&format!("{warnings} warnings")) && summary.contains(&format!("{notes} note")),
        "{summary}"
    );
    if warnings > codes.len() {
        assert!(
            grouped
                .iter()
                .any(|l| l.contains(" × ") && l.contains("-v lists them"))
        );
    }
}

#[test]
fn json_prints_the_whole_report_on_standard_output() {
    let dir = tempfile::tempdir().unwrap();
    let (input, output) = (fixture("body/arm.body"), dir.path().join("arm.json"));
    let every = convert(&input, &output, &["-v"]);
    let out = mbconv(&[
        "convert",
        input.to_str().unwrap(),
        "-o",
        output.to_str().unwrap(),
        "--force",
        "--no-check",
        "--json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stderr(&out).contains("warning["), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["status"], "converted");
    assert_eq!(
        (v["from"].as_str(), v["to"].as_str()),
        (Some("body"), Some("shift"))
    );
    let findings = v["report"]["findings"].as_array().unwrap();
    let printed = every
        .iter()
        .filter(|l| l.contains("info[") || l.contains("warning["))
        .count();
    assert_eq!(findings.len(), printed);
    // The model cannot go to standard output with the report.
    let out = mbconv(&[
        "convert",
        input.to_str().unwrap(),
        "-o",
        "-",
        "--to",
        "shift",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

#[test]
fn a_batch_groups_each_files_warnings_and_json_gives_one_object() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = [fixture("body/arm.body"), fixture("body/pendulum.body")];
    let out_dir = dir.path().join("out");
    let run = |extra: &[&str]| {
        let mut args = vec![
            "convert",
            inputs[0].to_str().unwrap(),
            inputs[1].to_str().unwrap(),
            "--to",
            "shift",
            "-o",
            out_dir.to_str().unwrap(),
            "--force",
            "--no-check",
        ];
        args.extend(extra);
        mbconv(&args)
    };
    let every = stderr(&run(&["-v"]));
    let grouped = stderr(&run(&[]));
    assert!(!grouped.contains("info["), "{grouped}");
    assert!(
        grouped.lines().count() < every.lines().count(),
        "{grouped}\n---\n{every}"
    );
    assert!(grouped.contains("batch: 2 files: 2 converted"), "{grouped}");
    let out = run(&["--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["converted"], 2);
    assert_eq!(v["files"].as_array().unwrap().len(), 2);
    assert!(v["files"][0]["report"]["findings"].is_array());
}

/// Acceptance (issue 24): converting Choreonoid's PA10 to Shift prints at most 8 lines
/// without -v (it printed 32: 8 notes, 21 warnings, and two lines more).
#[test]
fn the_pa10_to_shift_prints_at_most_eight_lines() {
    let Some(pa10) = mbconv_test_support::corpus_file("body/share/model/PA10/PA10.body") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("PA10.json");
    let out = mbconv(&["convert", pa10.to_str().unwrap(), "-o", output.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let lines: Vec<&str> = std::str::from_utf8(&out.stderr).unwrap().lines().collect();
    assert!(lines.len() <= 8, "{} lines:\n{}", lines.len(), lines.join("\n"));
    assert!(lines.iter().any(|l| l.starts_with("wrote ")), "{lines:#?}");
    // -v still lists every finding.
    let out = mbconv(&[
        "convert",
        pa10.to_str().unwrap(),
        "-o",
        output.to_str().unwrap(),
        "--force",
        "-v",
    ]);
    let verbose = std::str::from_utf8(&out.stderr).unwrap().lines().count();
    assert!(verbose > 20, "{verbose} lines with -v");
}
