#![allow(clippy::unwrap_used)]
//! Bad input gives an error whose Display starts with `file:line:column:` (the CLI maps read
//! errors to exit code 2), never a panic.

use mbconv_chrono::ChronoFormat;
use mbconv_ir::format::{Format, Options, Source};

const HEADER: &str = "chrono-version: 10.0\nmodel:\n  bodies:\n    - name: ground\n      location: [0, 0, 0]\n      fixed: true\n    - name: a\n      location: [1, 0, 0]\n      mass: 1\n      inertia:\n        moments: [1, 1, 1]\n";

fn error_of(text: &str) -> String {
    ChronoFormat
        .read(&Source::from_string("bad.yaml", text), &Options::default())
        .map(|_| ())
        .unwrap_err()
        .to_string()
}

fn with_joint(joint: &str) -> String {
    format!("{HEADER}  joints:\n    - name: j\n{joint}")
}

#[test]
fn unknown_joint_type_is_an_error_at_the_value() {
    let text =
        with_joint("      type: HINGE\n      body1: ground\n      body2: a\n      location: [0, 0, 0]\n");
    let e = error_of(&text);
    assert!(
        e.starts_with("bad.yaml:14:13: unknown joint type \"HINGE\""),
        "{e}"
    );
}

#[test]
fn unknown_joint_type_with_lenient_becomes_lock_as_in_chrono() {
    let text =
        with_joint("      type: HINGE\n      body1: ground\n      body2: a\n      location: [0, 0, 0]\n");
    let mut options = Options::default();
    options.set("lenient", "true");
    let imported = ChronoFormat
        .read(&Source::from_string("bad.yaml", text), &options)
        .unwrap();
    assert_eq!(imported.model.joints[0].kind, mbconv_ir::JointKind::Fixed);
    assert!(imported.report.contains("chrono.unknown_joint_type"));
}

#[test]
fn missing_required_field_names_the_key_and_the_item() {
    let text = "chrono-version: 10.0\nmodel:\n  bodies:\n    - name: a\n      mass: 1\n      inertia:\n        moments: [1, 1, 1]\n";
    let e = error_of(text);
    assert_eq!(e, "bad.yaml:4:7: missing required key `location` in a body");
    let text = "chrono-version: 10.0\nmodel:\n  bodies:\n    - name: a\n      location: [0, 0, 0]\n";
    let e = error_of(text);
    assert!(
        e.starts_with("bad.yaml:4:7: missing required key `mass` in body \"a\""),
        "{e}"
    );
}

#[test]
fn wrong_array_length_points_at_the_list() {
    let text =
        "chrono-version: 10.0\nmodel:\n  bodies:\n    - name: a\n      location: [1, 2]\n      fixed: true\n";
    let e = error_of(text);
    assert_eq!(
        e,
        "bad.yaml:5:17: expected a list of 3 numbers for body location, found 2 numbers"
    );
    let text = "chrono-version: 10.0\nmodel:\n  bodies:\n    - name: a\n      location: [1, 2, 3]\n      orientation: [1, 2, 3, 4, 5]\n      fixed: true\n";
    let e = error_of(text);
    assert!(e.starts_with("bad.yaml:6:20: expected 3 Cardan angles"), "{e}");
}

#[test]
fn non_number_points_at_the_value() {
    let text = "chrono-version: 10.0\nmodel:\n  bodies:\n    - name: a\n      location: [0, 0, 0]\n      mass: heavy\n      inertia:\n        moments: [1, 1, 1]\n";
    let e = error_of(text);
    assert_eq!(e, "bad.yaml:6:13: expected a number for mass, found \"heavy\"");
    let text = "chrono-version: 10.0\nmodel:\n  bodies:\n    - name: a\n      location: [0, x, 0]\n      fixed: true\n";
    assert_eq!(
        error_of(text),
        "bad.yaml:5:21: expected a number for body location, found \"x\""
    );
}

#[test]
fn unknown_body_name_in_a_joint() {
    let text = with_joint(
        "      type: REVOLUTE\n      body1: ground\n      body2: nobody\n      location: [0, 0, 0]\n      axis: [0, 0, 1]\n",
    );
    let e = error_of(&text);
    assert_eq!(
        e,
        "bad.yaml:16:14: unknown body name \"nobody\" in `body2`: no body has this name"
    );
}

#[test]
fn duplicate_names_are_errors() {
    let text = format!("{HEADER}    - name: a\n      location: [0, 0, 0]\n      fixed: true\n");
    let e = error_of(&text);
    assert!(
        e.starts_with("bad.yaml:12:13: duplicate name \"a\" in bodies"),
        "{e}"
    );
    let joint = "      type: LOCK\n      body1: ground\n      body2: a\n      location: [0, 0, 0]\n";
    let text = with_joint(&format!("{joint}    - name: j\n{joint}"));
    let e = error_of(&text);
    assert!(
        e.starts_with("bad.yaml:18:13: duplicate name \"j\" in joints"),
        "{e}"
    );
}

#[test]
fn yaml_syntax_errors_and_duplicate_keys_have_positions() {
    let e = error_of("chrono-version: 10.0\nmodel:\n  bodies: [\n");
    assert!(e.starts_with("bad.yaml:"), "{e}");
    let e = error_of("chrono-version: 10.0\nmodel:\n  name: a\n  name: b\n  bodies: []\n");
    assert!(e.starts_with("bad.yaml:4:3:"), "{e}");
}

#[test]
fn other_bad_values_are_errors_not_panics() {
    for (bad, needle) in [
        (
            "      type: REVOLUTE\n      body1: ground\n      body2: a\n      location: [0, 0, 0]\n      axis: [0, 0, 0]\n",
            "axis is zero",
        ),
        (
            "      type: PRISMATIC\n      body1: ground\n      body2: a\n      location: [0, 0, 0]\n      axis: [1, 0, 0]\n      bushing_data:\n        stiffness_linear: 1\n        damping_linear: 1\n        stiffness_rotational: 1\n        damping_rotational: 1\n",
            "bushing_data on a PRISMATIC joint",
        ),
        (
            "      type: UNIVERSAL\n      body1: ground\n      body2: a\n      location: [0, 0, 0]\n      axis1: [1, 0, 0]\n      axis2: [2, 0, 0]\n",
            "parallel",
        ),
        ("      type: [REVOLUTE]\n", "expected text for joint type"),
    ] {
        let e = error_of(&with_joint(bad));
        assert!(e.starts_with("bad.yaml:") && e.contains(needle), "{e}");
    }
    let motor = "  motors:\n    - name: m\n      type: LINEAR\n      body1: a\n      body2: ground\n      location: [0, 0, 0]\n      axis: [1, 0, 0]\n      actuation_type: TORQUE\n      actuation_function:\n        type: CONSTANT\n        value: 1\n";
    let e = error_of(&format!("{HEADER}{motor}"));
    assert!(
        e.starts_with("bad.yaml:19:23: unknown actuation_type \"TORQUE\""),
        "{e}"
    );
    let func = "  motors:\n    - name: m\n      type: LINEAR\n      body1: a\n      body2: ground\n      location: [0, 0, 0]\n      axis: [1, 0, 0]\n      actuation_type: SPEED\n      actuation_function:\n        type: DATA\n        data: [[0, 1], [0, 2]]\n";
    let e = error_of(&format!("{HEADER}{func}"));
    assert!(e.contains("duplicate time 0"), "{e}");
    let e = error_of("chrono-version: 10.0\nbodies: []\n");
    assert_eq!(e, "bad.yaml:1:1: missing required key `model` in the file");
    let e = error_of("- 1\n- 2\n");
    assert!(
        e.starts_with("bad.yaml:1:1: expected a mapping for the file"),
        "{e}"
    );
}

mod no_panic {
    use super::*;
    use proptest::prelude::*;

    fn fixtures() -> Vec<String> {
        let dir = std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/chrono"));
        [
            "joints.yaml",
            "springs.yaml",
            "motors.yaml",
            "contact_visual.yaml",
            "loads.yaml",
            "bodies.yaml",
        ]
        .iter()
        .map(|f| std::fs::read_to_string(dir.join(f)).unwrap())
        .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        /// Replacing any stretch of a valid file with other text gives a model or an error,
        /// never a panic; errors always name a place.
        #[test]
        fn damaged_files_give_errors_not_panics(which in 0usize..6, at in 0.0f64..1.0, len in 0usize..12, junk in "[a-z0-9 :\\[\\],.\\-\n]{0,8}") {
            let text = &fixtures()[which];
            let start = ((text.len() as f64) * at) as usize;
            let start = (0..=start).rev().find(|i| text.is_char_boundary(*i)).unwrap_or(0);
            let end = (start + len).min(text.len());
            let end = (end..=text.len()).find(|i| text.is_char_boundary(*i)).unwrap_or(text.len());
            let damaged = format!("{}{}{}", &text[..start], junk, &text[end..]);
            let source = Source::from_string("d.yaml", damaged);
            if let Err(e) = ChronoFormat.read(&source, &Options::default()) {
                let shown = e.to_string();
                prop_assert!(shown.starts_with("d.yaml:"), "{}", shown);
            }
        }
    }
}
