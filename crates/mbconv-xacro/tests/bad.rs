//! Every malformed xacro file of `fixtures/bad/` (the files named `xacro_*`) is refused with an
//! error that names the file, line and column, with a `xacro.*` code, quickly.

#![allow(clippy::unwrap_used, missing_docs)]

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

#[test]
fn every_bad_xacro_is_refused_with_its_place() {
    let dir = mbconv_test_support::workspace_root().join("fixtures/bad");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("xacro_"))
        })
        .collect();
    files.sort();
    assert!(files.len() >= 25, "only {} bad xacro files", files.len());
    let settings = mbconv_xacro::Settings {
        env: Some(BTreeMap::new()),
        ..Default::default()
    };
    let mut failures = Vec::new();
    for file in &files {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let start = Instant::now();
        match mbconv_xacro::expand_file(file, &settings) {
            Ok(_) => failures.push(format!("{name}: expanded")),
            Err(e) => {
                let text = e.to_string();
                let placed = text.match_indices(&format!("{name}:")).any(|(i, m)| {
                    let mut parts = text[i + m.len()..].splitn(3, ':');
                    let n = |p: Option<&str>| p.and_then(|p| p.parse::<usize>().ok()).is_some_and(|n| n > 0);
                    n(parts.next()) && n(parts.next())
                });
                if !placed || !e.code.starts_with("xacro.") {
                    failures.push(format!("{name}: {} {text}", e.code));
                }
            }
        }
        if start.elapsed() > Duration::from_secs(10) {
            failures.push(format!("{name}: took {:?}", start.elapsed()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Endless recursion, exponential growth (of elements or of text) and a never-ending include
/// are stopped by a budget with an error that says so, never a hang or an out-of-memory.
#[test]
fn runaway_expansions_are_stopped_by_budgets() {
    let dir = mbconv_test_support::workspace_root().join("fixtures/bad");
    let settings = mbconv_xacro::Settings {
        env: Some(BTreeMap::new()),
        ..Default::default()
    };
    for (file, code, says) in [
        (
            "xacro_infinite_recursion.urdf.xacro",
            "xacro.budget",
            "endless recursion is stopped",
        ),
        (
            "xacro_exponential_blowup.urdf.xacro",
            "xacro.budget",
            "is stopped",
        ),
        ("xacro_text_blowup.urdf.xacro", "xacro.budget", "MiB of text"),
        ("xacro_string_bomb.urdf.xacro", "xacro.expression", "too large"),
        ("xacro_nested_repetition.urdf.xacro", "xacro.expression", "16 MiB"),
        (
            "xacro_device_include.urdf.xacro",
            "xacro.include",
            "not a regular file",
        ),
    ] {
        let start = Instant::now();
        let e = mbconv_xacro::expand_file(&dir.join(file), &settings).unwrap_err();
        assert_eq!(e.code, code, "{file}: {e}");
        assert!(e.to_string().contains(says), "{file}: {e}");
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "{file}: {:?}",
            start.elapsed()
        );
    }
}
