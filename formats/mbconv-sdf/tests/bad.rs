//! Every malformed SDFormat file of `fixtures/bad/` (`sdf_*.sdf`) is refused with an error
//! naming the file, a line and a column, and damaged copies of the good fixtures (every prefix,
//! bytes flipped) never panic: they are read or refused with a place. (The CLI's bad-input
//! test also runs them through `mbconv convert`.)
#![allow(clippy::unwrap_used)]

use mbconv_ir::format::{Format, Options, Source};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

/// True when `text` holds `name:LINE:COLUMN` with both numbers positive.
fn names_place(text: &str, name: &str) -> bool {
    text.match_indices(&format!("{name}:")).any(|(i, m)| {
        let mut parts = text[i + m.len()..].splitn(3, ':');
        let positive = |p: Option<&str>| p.and_then(|p| p.parse::<usize>().ok()).is_some_and(|n| n > 0);
        positive(parts.next()) && positive(parts.next())
    })
}

/// The `.sdf` files of `dir` whose names start with `prefix`.
fn files(dir: &Path, prefix: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "sdf"))
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with(prefix))
        })
        .collect();
    out.sort();
    out
}

#[test]
fn every_bad_file_is_refused_with_a_place() {
    let bad = files(&root().join("bad"), "sdf_");
    assert!(bad.len() >= 25, "{} malformed inputs", bad.len());
    let mut wrong = Vec::new();
    for path in &bad {
        let source = Source::from_path(path).unwrap();
        match mbconv_sdf::SdfFormat.read(&source, &Options::default()) {
            Ok(_) => wrong.push(format!("{}: read", path.display())),
            Err(e) => {
                let text = e.to_string();
                if !names_place(&text, &source.name) {
                    wrong.push(format!("{}: no place in {text:?}", path.display()));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn frame_errors_name_the_frames() {
    let read = |name: &str| {
        let source = Source::from_path(&root().join("bad").join(format!("sdf_{name}"))).unwrap();
        mbconv_sdf::SdfFormat
            .read(&source, &Options::default())
            .unwrap_err()
            .to_string()
    };
    let cycle = read("frame_cycle.sdf");
    assert!(
        cycle.contains("f1 -> f2 -> f1") || cycle.contains("f2 -> f1 -> f2"),
        "{cycle}"
    );
    let relative = read("relative_to_cycle.sdf");
    assert!(
        relative.contains("a -> b -> a") || relative.contains("b -> a -> b"),
        "{relative}"
    );
    let unknown = read("unknown_relative_to.sdf");
    assert!(
        unknown.contains("unknown frame \"nowhere\" (from frame \"b\")"),
        "{unknown}"
    );
}

#[test]
fn damaged_fixtures_never_panic() {
    for path in files(&root().join("sdf"), "") {
        let text = std::fs::read_to_string(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let mut damaged: Vec<String> = (0..text.len())
            .filter(|&i| text.is_char_boundary(i))
            .map(|i| text[..i].to_owned())
            .collect();
        for (i, c) in text.char_indices().step_by(7) {
            let mut t = text.clone();
            let replacement = match c {
                '<' => ">",
                '"' => "'",
                '0'..='9' => "x",
                _ => "<",
            };
            t.replace_range(i..i + c.len_utf8(), replacement);
            damaged.push(t);
        }
        for t in damaged {
            let source = Source::from_string(name.clone(), t).with_path(name.clone(), Some(path.clone()));
            if let Err(e) = mbconv_sdf::SdfFormat.read(&source, &Options::default()) {
                let message = e.to_string();
                assert!(message.contains(':'), "{name}: {message}");
            }
        }
    }
}
