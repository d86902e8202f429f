//! Every malformed URDF of `fixtures/bad/` (the files named `urdf_*`) is refused with an error naming the file,
//! a line and a column: by the reader (XML, structure, numbers), or, for values that parse
//! but cannot mean anything (a NaN or negative mass, a zero axis), by the IR's validation
//! with the span the reader recorded, as `mbconv convert` refuses them. No panic.
//! (The CLI's bad-input test, `front/mbconv-cli/tests/bad_inputs.rs`, gives the same files to
//! `mbconv convert`; this one reads them through the crate alone.)
#![allow(clippy::unwrap_used)]

use mbconv_ir::Severity;
use mbconv_ir::format::{Format, Options, Source};

/// True when `text` holds `name:LINE:COLUMN` with both numbers positive.
fn names_place(text: &str, name: &str) -> bool {
    text.match_indices(&format!("{name}:")).any(|(i, m)| {
        let mut parts = text[i + m.len()..].splitn(3, ':');
        let positive = |p: Option<&str>| p.and_then(|p| p.parse::<usize>().ok()).is_some_and(|n| n > 0);
        positive(parts.next()) && positive(parts.next())
    })
}

/// The refusal of one file, as text, or why it was not refused.
fn refusal(path: &std::path::Path) -> Result<String, String> {
    let source = match Source::from_path(path) {
        Ok(source) => source,
        Err(e) => return Ok(e.to_string()),
    };
    match mbconv_urdf::UrdfFormat.read(&source, &Options::default()) {
        Err(e) => Ok(e.to_string()),
        Ok(imported) => {
            let report = mbconv_ir::validate::validate_with_spans(&imported.model, &imported.source_map);
            let first = report.at_least(Severity::Error).next().ok_or("read and valid")?;
            let span = first
                .span
                .as_ref()
                .ok_or(format!("error without a place: {first}"))?;
            Ok(format!(
                "{}:{}:{}: {}",
                source.name, span.line, span.column, first.message
            ))
        }
    }
}

#[test]
fn every_bad_urdf_is_refused_with_its_place() {
    let dir = mbconv_test_support::fixtures_root().join("bad");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("urdf_"))
        })
        .collect();
    files.sort();
    assert!(files.len() >= 25, "only {} bad URDF inputs", files.len());
    let mut wrong = Vec::new();
    for file in &files {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        match std::panic::catch_unwind(|| refusal(file)) {
            Err(_) => wrong.push(format!("{name}: panicked")),
            Ok(Err(why)) => wrong.push(format!("{name}: not refused ({why})")),
            Ok(Ok(message)) if !names_place(&message, &name) => {
                wrong.push(format!("{name}: no {name}:LINE:COLUMN in {message:?}"))
            }
            Ok(Ok(message)) => eprintln!("{message}"),
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} mishandled:\n{}",
        wrong.len(),
        files.len(),
        wrong.join("\n")
    );
}

#[test]
fn the_messages_say_what_is_wrong() {
    let dir = mbconv_test_support::fixtures_root().join("bad");
    let cases = [
        (
            "urdf_multi_parent.urdf",
            "urdf_multi_parent.urdf:7:",
            "two parent joints",
        ),
        ("urdf_cycle.urdf", "urdf_cycle.urdf:", "cycle"),
        (
            "urdf_two_roots.urdf",
            "urdf_two_roots.urdf:3:",
            "more than one root link",
        ),
        (
            "urdf_xyz_not_number.urdf",
            "urdf_xyz_not_number.urdf:5:20:",
            "\"zero\"",
        ),
        ("urdf_xacro.urdf", "urdf_xacro.urdf:3:3:", "xacro"),
        (
            "urdf_entity_expansion.urdf",
            "urdf_entity_expansion.urdf:2:1:",
            "DOCTYPE",
        ),
        (
            "urdf_unknown_parent_link.urdf",
            "urdf_unknown_parent_link.urdf:4:",
            "parent link \"base\"",
        ),
        ("urdf_version_2.urdf", "urdf_version_2.urdf:1:", "1.0 and 1.1"),
    ];
    for (file, place, words) in cases {
        let message = refusal(&dir.join(file)).unwrap();
        assert!(
            message.starts_with(&dir.join(file).display().to_string()),
            "{message}"
        );
        assert!(
            message.contains(place) && message.contains(words),
            "{file}: {message}"
        );
    }
}
