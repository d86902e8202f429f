//! Every Shift model of the shared corpus reads, and survives same-format round trips in both
//! dialects: read -> write -> read gives the identical IR, write -> read -> write identical bytes.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use mbconv_ir::format::{Format, Options, Source};
use mbconv_ir::{Model, validate};
use mbconv_shift::ShiftFormat;
use mbconv_test_support::{corpus, files_with_extension};

fn options(dialect: &str) -> Options {
    let mut options = Options::default();
    options.set("dialect", dialect);
    options
}

fn read_text(name: &str, text: &str) -> Model {
    let source = Source::from_string(name, text);
    ShiftFormat
        .read(&source, &Options::default())
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .model
}

/// Fails naming the first line where the two models' IR JSON differ.
fn assert_same_ir(expected: &Model, actual: &Model, name: &str) {
    if expected == actual {
        return;
    }
    let (a, b) = (
        mbconv_ir::mbir::to_string(expected),
        mbconv_ir::mbir::to_string(actual),
    );
    let line = a.lines().zip(b.lines()).position(|(x, y)| x != y).unwrap_or(0);
    let context = |t: &str| {
        t.lines()
            .skip(line.saturating_sub(3))
            .take(6)
            .collect::<Vec<_>>()
            .join("\n")
    };
    panic!(
        "{name}: read -> write -> read changed the IR at line {line}:\n{}\n---\n{}",
        context(&a),
        context(&b)
    );
}

#[test]
fn every_corpus_model_reads_and_round_trips() {
    let Some(dir) = corpus("shift") else { return };
    let files = files_with_extension(&dir, "json");
    assert_eq!(files.len(), 69, "the corpus holds 69 Shift models");
    let mut fitted = 0;
    let mut comments = 0;
    for file in &files {
        let source = Source::from_path(file).unwrap();
        let imported = ShiftFormat
            .read(&source, &Options::default())
            .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        fitted += imported
            .report
            .findings
            .iter()
            .filter(|f| f.code == "shift.rotation_fitted")
            .count();
        comments += usize::from(imported.report.contains("shift.not_strict_json"));
        let model = imported.model;
        assert!(!model.bodies.is_empty(), "{}", file.display());
        // klann_linkage gives inertia tensors with Ixx = 0 and non-zero products, the vehicle
        // models moments that break the triangle inequality: the files' own data, which
        // validation rightly reports; nothing else may be invalid.
        let problems = validate(&model);
        let errors: Vec<_> = problems
            .at_least(mbconv_ir::Severity::Error)
            .filter(|f| f.code != "inertia.not_psd" && f.code != "inertia.triangle")
            .collect();
        assert!(errors.is_empty(), "{}: {errors:?}", file.display());
        for dialect in ["spec", "2.0"] {
            let name = format!("{} ({dialect})", file.display());
            let written = ShiftFormat.write(&model, &options(dialect)).unwrap();
            let losses: Vec<_> = written
                .report
                .findings
                .iter()
                .filter(|f| f.category.is_loss())
                .collect();
            assert!(
                losses.is_empty(),
                "{name}: a Shift model loses nothing: {losses:?}"
            );
            let mut again = read_text(&name, &written.text);
            again.name.clone_from(&model.name);
            assert_same_ir(&model, &again, &name);
            let rewritten = ShiftFormat.write(&again, &options(dialect)).unwrap();
            assert_eq!(
                rewritten.text, written.text,
                "{name}: write -> read -> write changed the bytes"
            );
        }
    }
    eprintln!(
        "{} models; {fitted} rotations fitted; {comments} files not strict JSON",
        files.len()
    );
    assert_eq!(
        fitted, 43,
        "43 corpus rotation matrices are orthonormal only to 3e-6"
    );
    assert_eq!(comments, 3, "three corpus files have comments or trailing commas");
}
