//! Every malformed stage of `fixtures/bad/` (`usd_*`) is refused with an error that names the
//! file, a line and a column (and the prim's path where a prim is at fault), and a stage with
//! no rigid body says so. Each file states what its refusal must say in a last comment line,
//! `# expect: CODE | WORDS` (the error's code starts with CODE, its text holds WORDS); the
//! empty layer and the layer that is not UTF-8 cannot hold one and are checked here. (The
//! CLI's bad-input test also runs them through `mbconv convert`.)
#![allow(clippy::unwrap_used)]

use mbconv_ir::format::{Format, Options, Source};
use mbconv_usd::UsdFormat;
use std::path::{Path, PathBuf};

fn bad_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/bad");
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("usd_"))
        })
        .collect();
    out.sort();
    out
}

/// The source of a bad file as the facade builds it: a binary layer (a crate file, which
/// starts with `PXR-USDC`, or a `.usdz` package) is read from its path, with no text.
fn source(path: &Path) -> std::io::Result<Source> {
    let binary =
        path.extension().is_some_and(|e| e == "usdz") || std::fs::read(path)?.starts_with(b"PXR-USDC");
    if binary {
        let name = path.display().to_string();
        return Ok(Source::from_string(name.clone(), "").with_path(name, Some(path.to_path_buf())));
    }
    Source::from_path(path)
}

/// What the file's `# expect:` line asks of its refusal: the code's start and words.
fn expectation(path: &Path) -> Option<(String, String)> {
    let text = String::from_utf8_lossy(&std::fs::read(path).unwrap()).into_owned();
    let line = text.lines().rev().find_map(|l| l.strip_prefix("# expect: "))?;
    let (code, words) = line.split_once(" | ")?;
    Some((code.trim().to_owned(), words.trim().to_owned()))
}

#[test]
fn every_bad_stage_is_refused_with_a_place_and_its_reason() {
    let files = bad_files();
    assert!(files.len() >= 25, "{} malformed stages", files.len());
    let mut wrong = Vec::new();
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        // Not UTF-8: refused before any reader runs (`Source::from_path`), with its place.
        let source = match source(path) {
            Ok(source) => source,
            Err(e) => {
                if !e.to_string().contains(":2:13: not UTF-8") {
                    wrong.push(format!("{name}: no place in {e}"));
                }
                continue;
            }
        };
        let error = match UsdFormat.read(&source, &Options::default()) {
            Ok(_) => {
                wrong.push(format!("{name}: read"));
                continue;
            }
            Err(e) => e,
        };
        // A label is a place in the file (line and column); the message names the file.
        let text = error.to_string();
        let located = error.labels().is_some_and(|mut labels| labels.next().is_some());
        if !located || !text.starts_with(&source.name) {
            wrong.push(format!("{name}: no place in {text}"));
        }
        let code = error.code().map(|c| c.to_string()).unwrap_or_default();
        let (want_code, words) = match expectation(path) {
            Some(e) => e,
            None if name == "usd_empty.usda" => ("usd.stage".to_owned(), "does not open".to_owned()),
            None => {
                wrong.push(format!("{name}: no `# expect:` line"));
                continue;
            }
        };
        if !code.starts_with(&want_code) || !text.contains(&words) {
            wrong.push(format!(
                "{name}: {code} {text:?}; expected {want_code} saying {words:?}"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
