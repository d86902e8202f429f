//! Bad input in every built format: exit code 2 and `file:line:column` in the message, no
//! output file left behind.
#![allow(clippy::unwrap_used)]

use std::process::Command;

const CHRONO_OK_BODY: &str = "chrono-version: 10.0
model:
  bodies:
    - name: ground
      location: [0, 0, 0]
      fixed: true
    - name: arm
      location: [1, 0, 0]
      mass: 1
      inertia:
        moments: [1, 1, 1]
";

/// `line:column` (1-based) of the first occurrence of `needle` in `text`.
fn place_of(text: &str, needle: &str) -> String {
    let offset = text
        .find(needle)
        .unwrap_or_else(|| panic!("{needle:?} not in the test input"));
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
    format!("{line}:{column}")
}

/// (file name, contents, the text the error must point at).
fn cases() -> Vec<(&'static str, String, &'static str)> {
    let joint = |body: &str, kind: &str, axis: &str| {
        format!(
            "{CHRONO_OK_BODY}  joints:\n    - name: j\n      type: {kind}\n      body1: ground\n      body2: {body}\n      location: [0, 0, 0]\n      axis: {axis}\n"
        )
    };
    let skel = |joint: &str| {
        format!(
            "<?xml version=\"1.0\"?>\n<skel version=\"1.0\">\n<world name=\"w\">\n<skeleton name=\"s\">\n<body name=\"b\">\n<inertia><mass>1</mass></inertia>\n</body>\n{joint}\n</skeleton>\n</world>\n</skel>\n"
        )
    };
    vec![
        ("unknown_joint.yaml", joint("arm", "HINGE", "[0, 0, 1]"), "HINGE"),
        ("unknown_body.yaml", joint("ghost", "REVOLUTE", "[0, 0, 1]"), "ghost"),
        ("short_axis.yaml", joint("arm", "REVOLUTE", "[0, 1]"), "[0, 1]"),
        ("not_number.yaml", CHRONO_OK_BODY.replace("mass: 1", "mass: heavy"), "heavy"),
        ("missing_location.yaml", CHRONO_OK_BODY.replace("      location: [1, 0, 0]\n", ""), "name: arm"),
        ("duplicate.yaml", CHRONO_OK_BODY.replace("name: arm", "name: ground"), "ground\n      location: [1"),
        ("malformed.skel", skel("<joint type=\"revolute\" name=\"j\">"), "</skeleton>"),
        (
            "unknown_type.skel",
            skel("<joint type=\"hinge\" name=\"j\"><parent>world</parent><child>b</child></joint>"),
            "hinge",
        ),
        (
            "missing_parent.skel",
            skel("<joint type=\"weld\" name=\"j\"><parent>nobody</parent><child>b</child></joint>"),
            "<parent>nobody",
        ),
        ("not_number.skel", skel("").replace("<mass>1</mass>", "<mass>five</mass>"), "five"),
        (
            "entities.skel",
            "<?xml version=\"1.0\"?>\n<!DOCTYPE skel [<!ENTITY boom \"x\">]>\n<skel><world name=\"w\"/></skel>\n".to_owned(),
            "<!DOCTYPE",
        ),
    ]
}

#[test]
fn bad_input_exits_2_with_file_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for (name, text, needle) in cases() {
        let place = place_of(&text, needle);
        let input = dir.path().join(name);
        std::fs::write(&input, &text).unwrap();
        let output = dir.path().join(format!("{name}.out.mbir.json"));
        let out = Command::new(env!("CARGO_BIN_EXE_mbconv"))
            .args(["convert", input.to_str().unwrap(), "-o", output.to_str().unwrap()])
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        if out.status.code() != Some(2) || !err.contains(&format!("{name}:{place}")) || output.exists() {
            failures.push(format!(
                "{name}: expected exit 2 at {name}:{place}, got {:?}:\n{err}",
                out.status.code()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A setting the format does not have is refused before anything is read or written: exit 2,
/// the message names the setting and the settings that exist.
#[test]
fn unknown_format_settings_exit_2_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/skel/joint_universal_ball.skel"
    );
    for flag in ["--write-option", "--read-option"] {
        let output = dir.path().join("out.yaml");
        let out = Command::new(env!("CARGO_BIN_EXE_mbconv"))
            .args(["convert", fixture, "--to", "chrono", "-o"])
            .arg(&output)
            .args([flag, "no_such_setting=1"])
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{flag}: {err}");
        assert!(
            err.contains("\"no_such_setting\""),
            "{flag}: the setting is not named:\n{err}"
        );
        assert!(
            err.contains("settings"),
            "{flag}: the valid settings are not listed:\n{err}"
        );
        assert!(!output.exists(), "{flag}: an output file was written");
    }
}
