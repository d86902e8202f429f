//! Every format crate has the same rooms (`docs/architecture.md`, "Every format crate has the
//! same rooms"): `raw`, `spec`, `import/`, `export/` with `lower`, `emit` and the feature table
//! `support.rs`, and a `lib.rs` that holds only the format's type and settings. This test reads
//! the folders of `formats/` and fails when one drifts from that shape, so a newcomer copying
//! any crate copies the house.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

fn formats_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../formats")
}

fn format_crates() -> Vec<PathBuf> {
    let mut crates: Vec<PathBuf> = std::fs::read_dir(formats_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("Cargo.toml").is_file())
        .collect();
    crates.sort();
    crates
}

/// `name.rs` or `name/mod.rs` beside it: a module either way.
fn has_module(dir: &Path, name: &str) -> bool {
    dir.join(format!("{name}.rs")).is_file() || dir.join(name).join("mod.rs").is_file()
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files
}

/// What is wrong with one crate's rooms (empty when nothing is).
fn room_problems(krate: &Path) -> Vec<String> {
    let src = krate.join("src");
    let mut problems = Vec::new();
    for room in ["raw", "spec"] {
        if !has_module(&src, room) {
            problems.push(format!("no `{room}` room (src/{room}.rs or src/{room}/mod.rs)"));
        }
    }
    for room in ["import", "export"] {
        if !src.join(room).join("mod.rs").is_file() {
            problems.push(format!("no `{room}/` room (src/{room}/mod.rs)"));
        }
    }
    let export = src.join("export");
    for room in ["lower", "emit"] {
        if !has_module(&export, room) {
            problems.push(format!(
                "no `export/{room}` (src/export/{room}.rs or src/export/{room}/mod.rs)"
            ));
        }
    }
    if !export.join("support.rs").is_file() {
        problems.push("no feature table in src/export/support.rs".to_owned());
    }
    let allowed = ["lib.rs", "raw.rs", "raw", "spec.rs", "spec", "import", "export"];
    for entry in std::fs::read_dir(&src).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if !allowed.contains(&name.as_str()) {
            problems.push(format!("src/{name} is outside the rooms"));
        }
    }
    problems.extend(lib_problems(
        &std::fs::read_to_string(src.join("lib.rs")).unwrap(),
    ));
    for (room, other) in [("import", "export"), ("export", "import")] {
        for file in rust_files(&src.join(room)) {
            let text = std::fs::read_to_string(&file).unwrap();
            if text.contains(&format!("crate::{other}")) {
                problems.push(format!(
                    "{} uses crate::{other} (the reader and the writer share only spec)",
                    file.strip_prefix(krate).unwrap().display()
                ));
            }
        }
    }
    problems
}

/// `lib.rs` holds the format's type, its `FormatInfo`, its settings and the `impl Format`:
/// no free functions, no public modules, no other types.
fn lib_problems(lib: &str) -> Vec<String> {
    let mut problems = Vec::new();
    for line in lib.lines() {
        let item = line.trim_end();
        let free_function =
            item.starts_with("fn ") || item.starts_with("pub fn ") || item.starts_with("pub(crate) fn ");
        let public_module = item.starts_with("pub mod ");
        let other_type = (item.starts_with("pub enum ") || item.starts_with("enum "))
            || ((item.starts_with("pub struct ") || item.starts_with("struct "))
                && !item.ends_with("Format;"));
        let other_impl = item.starts_with("impl ") && !item.starts_with("impl Format for ");
        if free_function || public_module || other_type || other_impl {
            problems.push(format!(
                "lib.rs holds `{item}` (only the format type and settings belong there)"
            ));
        }
    }
    problems
}

#[test]
fn every_format_crate_has_the_same_rooms() {
    let crates = format_crates();
    assert!(crates.len() >= 7, "the format crates are missing: {crates:?}");
    let problems: Vec<String> = crates
        .iter()
        .flat_map(|krate| {
            let name = krate.file_name().unwrap().to_string_lossy().into_owned();
            room_problems(krate)
                .into_iter()
                .map(move |p| format!("{name}: {p}"))
        })
        .collect();
    assert!(
        problems.is_empty(),
        "format crates out of their rooms:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_room_check_sees_a_crate_out_of_shape() {
    let flat = "pub mod emit;\npub fn read() {}\npub struct Settings;\nimpl Format for XFormat {}\n";
    let problems = lib_problems(flat);
    assert_eq!(problems.len(), 3, "{problems:?}");
    assert!(lib_problems("pub struct XFormat;\nimpl Format for XFormat {\n    fn info() {}\n}\n").is_empty());
}
