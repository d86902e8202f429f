//! Every malformed input of `fixtures/bad/` (and a directory and a missing file made here) given
//! to `mbconv convert`: exit 2, the file named with line and column, no panic, no output file,
//! a bounded time and bounded memory.
//!
//! The memory bound is an address-space limit (`ulimit -v`) on the child: a reader that blows
//! its memory aborts instead of exiting 2, and the test fails. The time bound is a guard
//! against hangs, far above the time a refusal takes (speed belongs to the benchmarks).
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// Address space granted to one `mbconv` run, in KiB.
const ADDRESS_SPACE_KIB: u64 = 1024 * 1024;
/// A refusal taking longer than this is taken for a hang.
const WALL_GUARD: Duration = Duration::from_secs(10);

fn bad_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/bad")
}

/// Runs `mbconv convert INPUT --to TO -o OUTPUT --no-check` under the address-space limit.
fn convert(input: &Path, to: &str, output: &Path) -> (Output, Duration) {
    let start = Instant::now();
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {ADDRESS_SPACE_KIB} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_mbconv"))
        .arg("convert")
        .arg(input)
        .args(["--to", to, "-o"])
        .arg(output)
        .arg("--no-check")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    (out, start.elapsed())
}

/// True when `text` holds `name:LINE:COLUMN` with both numbers positive.
fn names_place(text: &str, name: &str) -> bool {
    text.match_indices(&format!("{name}:")).any(|(i, m)| {
        let mut parts = text[i + m.len()..].splitn(3, ':');
        let positive = |p: Option<&str>| p.and_then(|p| p.parse::<usize>().ok()).is_some_and(|n| n > 0);
        positive(parts.next()) && positive(parts.next())
    })
}

/// What is wrong with one refusal, if anything.
fn judge(label: &str, out: &Output, took: Duration, output: &Path, place: Option<&str>) -> Option<String> {
    let err = String::from_utf8_lossy(&out.stderr);
    let mut wrong = Vec::new();
    if out.status.code() != Some(2) {
        wrong.push(format!("exit {:?}, expected 2", out.status.code()));
    }
    if err.contains("panicked") {
        wrong.push("a panic".to_owned());
    }
    if output.exists() {
        wrong.push("an output file was written".to_owned());
    }
    if took > WALL_GUARD {
        wrong.push(format!("took {took:?}"));
    }
    if let Some(name) = place
        && !names_place(&err, name)
    {
        wrong.push(format!("no {name}:LINE:COLUMN in the message"));
    }
    (!wrong.is_empty()).then(|| format!("{label}: {}\n{err}", wrong.join(", ")))
}

#[test]
fn every_bad_input_is_refused_with_its_place() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(bad_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e != "md"))
        .collect();
    files.sort();
    assert!(files.len() >= 60, "only {} bad inputs", files.len());
    let tmp = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for file in &files {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        // IR JSON goes to SKEL, everything else to IR JSON: a target unlike the source.
        let (to, ext) = if name.ends_with(".mbir.json") {
            ("skel", "skel")
        } else {
            ("mbir", "mbir.json")
        };
        let output = tmp.path().join(format!("{name}.out.{ext}"));
        let (out, took) = convert(file, to, &output);
        failures.extend(judge(&name, &out, took, &output, Some(&name)));
    }
    assert!(
        failures.is_empty(),
        "{} of {} bad inputs mishandled:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}

#[test]
fn a_directory_or_a_missing_file_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("model.skel");
    std::fs::create_dir(&dir).unwrap();
    let missing = tmp.path().join("missing.yaml");
    let mut failures = Vec::new();
    for (input, label) in [(&dir, "model.skel"), (&missing, "missing.yaml")] {
        let output = tmp.path().join(format!("{label}.out.mbir.json"));
        let (out, took) = convert(input, "mbir", &output);
        failures.extend(judge(label, &out, took, &output, None));
        let err = String::from_utf8_lossy(&out.stderr);
        if !err.contains(label) {
            failures.push(format!("{label}: the message does not name the file:\n{err}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn places_are_recognised() {
    assert!(names_place("x.yaml:3:7: bad", "x.yaml"));
    assert!(names_place("see /tmp/x.yaml:12:1", "x.yaml"));
    assert!(!names_place("x.yaml: bad", "x.yaml"));
    assert!(!names_place("x.yaml:0:0: bad", "x.yaml"));
}

/// Inputs that once crashed a reader or writer under `cargo xtask fuzz` but mean something:
/// each converts to every format, or is refused (exit 2), without a panic or a hang.
#[test]
fn fuzz_regressions_convert_to_every_format_without_a_panic() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/fuzz");
    let tmp = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no files in {}", dir.display());
    for file in &files {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        for (to, ext) in [
            ("mbir", "mbir.json"),
            ("chrono", "yaml"),
            ("skel", "skel"),
            ("body", "body"),
            ("shift", "json"),
        ] {
            let output = tmp.path().join(format!("{name}.{ext}"));
            let (out, took) = convert(file, to, &output);
            let err = String::from_utf8_lossy(&out.stderr);
            if !matches!(out.status.code(), Some(0 | 2)) || err.contains("panicked") || took > WALL_GUARD {
                failures.push(format!(
                    "{name} -> {to}: exit {:?} in {took:?}\n{err}",
                    out.status.code()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
