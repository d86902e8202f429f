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
