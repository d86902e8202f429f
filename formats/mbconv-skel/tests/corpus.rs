//! Every SKEL file of the shared corpus: it reads (or, for the legacy text format, is refused),
//! matches DART's golden data, and survives read -> write -> read unchanged.
#![allow(clippy::unwrap_used)]

mod common;

use mbconv_ir::format::{Format, Options, Source};
use mbconv_skel::SkelFormat;

const POSE_TOLERANCE: f64 = 1e-9;
const INERTIA_TOLERANCE: f64 = 1e-12;

fn read(path: &std::path::Path) -> Result<mbconv_ir::format::Imported, mbconv_ir::format::FormatError> {
    SkelFormat.read(&Source::from_path(path).unwrap(), &Options::default())
}

#[test]
fn every_xml_file_reads_and_matches_dart() {
    let Some(root) = common::skel_corpus() else { return };
    let mut compared = 0;
    let mut worst = common::Deviation::default();
    for path in common::skel_files(&root) {
        let shown = path.strip_prefix(&root).unwrap().display().to_string();
        if shown.starts_with("legacy_text_format") {
            continue;
        }
        let imported = read(&path).unwrap_or_else(|e| panic!("{shown}: {e}"));
        let validation = mbconv_ir::validate(&imported.model);
        // Physical data as written in the files (a negative box size in kima_human_left_leg.skel,
        // inertias breaking the triangle inequality in force_torque_test2.skel) stays as read;
        // every structural rule of the IR must hold.
        let errors: Vec<String> = validation
            .at_least(mbconv_ir::Severity::Error)
            .filter(|f| {
                !matches!(
                    f.code.as_str(),
                    "shape.size" | "inertia.triangle" | "inertia.not_psd" | "mass.zero"
                )
            })
            .map(|f| f.to_string())
            .collect();
        assert!(
            errors.is_empty(),
            "{shown}: the imported model is invalid: {errors:?}"
        );
        let golden_file = common::golden_path("corpus", &root, &path);
        let golden: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&golden_file).unwrap_or_else(|_| {
                panic!(
                    "{shown}: no golden file {}; run oracles/dart/dart_golden.py",
                    golden_file.display()
                )
            }))
            .unwrap();
        if golden.get("load_error").is_some() {
            continue;
        }
        let dev = common::compare(&imported.model, &golden, &shown);
        assert!(dev.pose <= POSE_TOLERANCE, "{shown}: pose deviation {}", dev.pose);
        assert!(
            dev.mass <= INERTIA_TOLERANCE,
            "{shown}: mass deviation {}",
            dev.mass
        );
        assert!(
            dev.inertia <= INERTIA_TOLERANCE,
            "{shown}: inertia deviation {}",
            dev.inertia
        );
        assert!(
            dev.velocity <= POSE_TOLERANCE,
            "{shown}: velocity deviation {}",
            dev.velocity
        );
        worst.pose = worst.pose.max(dev.pose);
        worst.mass = worst.mass.max(dev.mass);
        worst.inertia = worst.inertia.max(dev.inertia);
        worst.bodies += dev.bodies;
        compared += 1;
    }
    eprintln!(
        "compared {compared} corpus files ({} bodies) with DART: max pose deviation {:e}, mass {:e}, inertia {:e}",
        worst.bodies, worst.pose, worst.mass, worst.inertia
    );
    assert!(compared >= 50, "only {compared} files compared");
}

#[test]
fn legacy_text_format_is_refused_with_position() {
    let Some(legacy) = mbconv_test_support::corpus("skel/legacy_text_format") else {
        return;
    };
    let files = common::skel_files(&legacy);
    assert_eq!(files.len(), 22);
    for path in files {
        let error = read(&path)
            .err()
            .unwrap_or_else(|| panic!("{} was accepted", path.display()));
        let text = error.to_string();
        assert!(text.contains("legacy pre-XML"), "{text}");
        assert!(text.starts_with(&format!("{}:", path.display())), "{text}");
    }
}

#[test]
fn read_write_read_is_identical_for_every_corpus_file() {
    let Some(root) = common::skel_corpus() else { return };
    let mut count = 0;
    for path in common::skel_files(&root) {
        let shown = path.strip_prefix(&root).unwrap().display().to_string();
        if shown.starts_with("legacy_text_format") {
            continue;
        }
        let first = read(&path).unwrap().model;
        let written = SkelFormat.write(&first, &Options::default()).unwrap();
        let again = SkelFormat.write(&first, &Options::default()).unwrap();
        assert_eq!(written.text, again.text, "{shown}: output is not deterministic");
        let mut source = Source::from_string(path.display().to_string(), written.text.clone());
        source.path = Some(path.clone());
        let second = SkelFormat
            .read(&source, &Options::default())
            .unwrap_or_else(|e| panic!("{shown}: written file does not read back: {e}\n{}", written.text))
            .model;
        let (a, b) = (
            mbconv_ir::mbir::to_string(&first),
            mbconv_ir::mbir::to_string(&second),
        );
        if a != b {
            let line = a.lines().zip(b.lines()).position(|(x, y)| x != y).unwrap_or(0);
            let context: Vec<String> = a
                .lines()
                .zip(b.lines())
                .skip(line.saturating_sub(8))
                .take(12)
                .map(|(x, y)| format!("{x}  |  {y}"))
                .collect();
            panic!(
                "{shown}: IR differs after a round trip at line {line}:\n{}",
                context.join("\n")
            );
        }
        count += 1;
    }
    assert!(count >= 55, "only {count} files");
}

/// The corpus written by mbconv (`examples/write_skel.rs`) and loaded by DART
/// (`tests/golden/written__*.json`): DART builds the same bodies at the same poses with the
/// same masses and inertias as from the original files, and as mbconv reads the originals.
#[test]
fn written_files_load_in_dart_with_the_same_poses() {
    let Some(root) = common::skel_corpus() else { return };
    let mut compared = 0;
    for path in common::skel_files(&root) {
        let shown = path.strip_prefix(&root).unwrap().display().to_string();
        if shown.starts_with("legacy_text_format") {
            continue;
        }
        let load = |prefix: &str| -> serde_json::Value {
            let file = common::golden_path(prefix, &root, &path);
            serde_json::from_str(
                &std::fs::read_to_string(&file).unwrap_or_else(|_| panic!("missing {}", file.display())),
            )
            .unwrap()
        };
        let (original, written) = (load("corpus"), load("written"));
        assert_eq!(
            original.get("load_error").is_some(),
            written.get("load_error").is_some(),
            "{shown}: DART loads only one of the original and the written file"
        );
        if written.get("load_error").is_some() {
            continue;
        }
        let model = read(&path).unwrap().model;
        let dev = common::compare(&model, &written, &shown);
        assert!(
            dev.pose <= POSE_TOLERANCE,
            "{shown}: written pose deviation {}",
            dev.pose
        );
        assert!(
            dev.mass <= INERTIA_TOLERANCE && dev.inertia <= INERTIA_TOLERANCE,
            "{shown}: {dev:?}"
        );
        assert!(dev.velocity <= POSE_TOLERANCE, "{shown}: {dev:?}");
        compared += 1;
    }
    assert!(compared >= 60, "only {compared} written files compared");
}
