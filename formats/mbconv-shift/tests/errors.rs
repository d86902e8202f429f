//! Bad input: every error names file, line and column, and nothing panics.

#![allow(clippy::unwrap_used, clippy::expect_used)]

fn error_of(text: &str) -> String {
    read_str("bad.json", text).map(|_| ()).unwrap_err().to_string()
}

fn model_with_joint(joint: &str) -> String {
    format!(
        r#"{{"assemblies": [{{"name": "a", "bodies": [{{"name": "b", "frames": [{{"name": "f"}}]}}],
"joints": [{joint}]}}]}}"#
    )
}

#[test]
fn unknown_joint_type() {
    let err = error_of(&model_with_joint(
        r#"{"name": "j", "type": "Rw", "body_frame_pairs": [["fixed", "origin"], ["b", "origin"]]}"#,
    ));
    assert!(
        err.starts_with("bad.json:2:34: unknown joint type \"Rw\""),
        "{err}"
    );
}

#[test]
fn path_to_a_missing_body() {
    let err = error_of(&model_with_joint(
        r#"{"name": "j", "type": "Rx", "body_frame_pairs": [["fixed", "origin"], ["a:nobody", "origin"]]}"#,
    ));
    assert!(err.starts_with("bad.json:2:"), "{err}");
    assert!(err.contains("no body \"a:nobody\""), "{err}");
}

#[test]
fn missing_frame() {
    let err = error_of(&model_with_joint(
        r#"{"name": "j", "type": "Rx", "body_frame_pairs": [["fixed", "origin"], ["b", "g"]]}"#,
    ));
    assert!(err.contains("body \"b\" has no frame \"g\""), "{err}");
}

#[test]
fn origin_as_a_frame_name() {
    let err = error_of(r#"{"fixed": {"frames": [{"name": "origin", "T": [0, 0, 1]}]}}"#);
    assert_eq!(
        err,
        "bad.json:1:32: \"origin\" is reserved and cannot name a frame"
    );
}

#[test]
fn colon_in_a_name() {
    let err = error_of(r#"{"assemblies": [{"name": "a", "bodies": [{"name": "x:y"}]}]}"#);
    assert!(
        err.starts_with("bad.json:1:51: body name \"x:y\" contains ':'"),
        "{err}"
    );
}

#[test]
fn deep_nesting_fails_fast_and_cleanly() {
    let text = "[".repeat(100_000);
    let started = std::time::Instant::now();
    let err = error_of(&text);
    assert!(
        err.starts_with("bad.json:1:129: malformed JSON: arrays and objects nested more than 128 deep"),
        "{err}"
    );
    assert!(started.elapsed().as_secs_f64() < 1.0);
}

#[test]
fn malformed_json() {
    let err = error_of("{\n  \"assemblies\": [\n    {\"name\": \"a\",}\n    {\"name\": \"b\"}\n  ]\n}");
    assert!(
        err.starts_with("bad.json:4:5: malformed JSON: expected ',' or ']'"),
        "{err}"
    );
    let err = error_of("{\"a\": tru}");
    assert!(err.starts_with("bad.json:1:7: malformed JSON"), "{err}");
}

#[test]
fn restraint_with_the_wrong_number_of_pieces() {
    let err = error_of(
        r#"{"assemblies": [{"name": "a", "bodies": [{"name": "b"}],
"joints": [{"name": "j", "type": "Rx", "body_frame_pairs": [["fixed", "origin"], ["b", "origin"]]}],
"restraints": [{"name": "r", "type": "spring", "joint": "j", "knot_points": [0, 1], "coefficients": [[1], [2]]}]}]}"#,
    );
    assert!(err.starts_with("bad.json:3:"), "{err}");
    assert!(
        err.contains("2 knot points need 3 coefficient arrays, found 2"),
        "{err}"
    );
}

#[test]
fn truncated_and_mangled_files_give_errors_not_panics() {
    let Some(path) = mbconv_test_support::corpus_file("shift/slider_crank/slider_crank_2substructures.json")
    else {
        return;
    };
    let text = std::fs::read_to_string(path).unwrap();
    let mut failures = 0;
    let mut cuts = 0;
    for cut in (0..text.len()).step_by(41).filter(|i| text.is_char_boundary(*i)) {
        cuts += 1;
        if read_str("cut.json", &text[..cut]).is_err() {
            failures += 1;
        }
        let mangled = format!("{}\"{}", &text[..cut], &text[cut..]);
        let _ = read_str("mangled.json", &mangled);
    }
    assert_eq!(failures, cuts, "every truncated file is an error");
}

/// Reads `text` as the file `name` through the format's public surface.
fn read_str(name: &str, text: &str) -> Result<mbconv_ir::format::Imported, mbconv_ir::format::FormatError> {
    use mbconv_ir::format::{Format, Options, Source};
    mbconv_shift::ShiftFormat.read(&Source::from_string(name, text), &Options::default())
}
