//! Bad input is an error naming file, line and column, never a panic; an alias bomb is refused
//! fast.

#![allow(clippy::unwrap_used)]

use mbconv_body::BodyFormat;
use mbconv_ir::format::{Format, Options, Source};

const HEAD: &str = "format: ChoreonoidBody\nformat_version: 2.0\n";

/// The error message for `text` (which must fail).
fn error(text: &str) -> String {
    let source = Source::from_string("bad.body", text);
    match BodyFormat.read(&source, &Options::default()) {
        Ok(_) => panic!("read without error:\n{text}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn unknown_joint_type_names_its_place() {
    let e = error(&format!("{HEAD}links:\n  - name: a\n    joint_type: ball\n"));
    assert!(e.starts_with("bad.body:5:17: unknown jointType \"ball\""), "{e}");
}

#[test]
fn unknown_node_type_names_its_place() {
    let e = error(&format!(
        "{HEAD}links:\n  - name: a\n    elements:\n      - type: Teapot\n"
    ));
    assert!(
        e.starts_with("bad.body:6:15: unknown node type \"Teapot\""),
        "{e}"
    );
}

#[test]
fn a_parent_cycle_is_refused() {
    let e = error(&format!(
        "{HEAD}links:\n  - name: root\n  - name: a\n    parent: b\n  - name: b\n    parent: a\n"
    ));
    assert!(
        e.starts_with("bad.body:5:5: the parents of \"a\" form a cycle"),
        "{e}"
    );
}

#[test]
fn an_alias_to_a_missing_anchor_is_refused() {
    let e = error(&format!("{HEAD}links:\n  - name: a\n    mass: *nowhere\n"));
    assert!(
        e.starts_with("bad.body:5:") && e.contains("unknown anchor"),
        "{e}"
    );
}

#[test]
fn a_zero_rotation_axis_is_refused() {
    let e = error(&format!(
        "{HEAD}links:\n  - name: a\n    rotation: [0, 0, 0, 90]\n"
    ));
    assert!(
        e.starts_with("bad.body:5:15: the rotation axis is the zero vector"),
        "{e}"
    );
}

#[test]
fn a_tab_as_indentation_is_refused() {
    let e = error(&format!("{HEAD}links:\n  - name: a\n\tmass: 1\n"));
    assert!(e.starts_with("bad.body:4:") && e.contains("tab"), "{e}");
}

#[test]
fn a_tab_inside_a_flow_list_is_read_as_libyaml_reads_it() {
    let text = format!("{HEAD}links:\n  - name: a\n    center_of_mass: [ 0.5, 0, 0\t]\n");
    let m = BodyFormat
        .read(&Source::from_string("t.body", text), &Options::default())
        .unwrap()
        .model;
    assert_eq!(m.bodies[0].inertial.com.x, 0.5);
}

#[test]
fn a_missing_parent_and_a_missing_format_are_refused() {
    let e = error(&format!("{HEAD}links:\n  - name: root\n  - name: a\n"));
    assert!(e.contains("the parent of \"a\" is not specified"), "{e}");
    let e = error("format_version: 2.0\nlinks: []\n");
    assert!(
        e.starts_with("bad.body:1:1: the file has no `format: ChoreonoidBody`"),
        "{e}"
    );
}

#[test]
fn an_alias_bomb_is_refused_fast() {
    let mut text = String::from(HEAD);
    text.push_str("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..12 {
        let p = i - 1;
        text.push_str(&format!(
            "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
        ));
    }
    text.push_str("links:\n  - name: a\n");
    let start = std::time::Instant::now();
    let e = error(&text);
    assert!(start.elapsed().as_secs_f64() < 5.0, "took {:?}", start.elapsed());
    assert!(e.starts_with("bad.body:") && e.contains("invalid YAML"), "{e}");
}
