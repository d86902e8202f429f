//! xacro inputs through the `mbconv` binary: `info` lists a file's arguments with their
//! defaults (text and `--json`), `formats --settings` documents the `arg:NAME` read setting,
//! and `convert` expands a `.sdf.xacro` for the SDFormat reader.
#![allow(clippy::unwrap_used)]

mod common;

use common::{fixtures, mbconv, stderr};

fn stdout(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn package_path() -> String {
    format!("package_path={}", fixtures().join("xacro").display())
}

#[test]
fn info_lists_a_xacro_files_arguments_with_their_defaults() {
    let arm = fixtures().join("xacro/arm.urdf.xacro");
    let arm = arm.to_str().unwrap();
    let pp = package_path();
    let out = mbconv(&[
        "info",
        arm,
        "--read-option",
        &pp,
        "--read-option",
        "arg:prefix=r_",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("xacro    expanded from 3 files"), "{text}");
    assert!(
        text.contains("arguments (--read-option arg:NAME=VALUE): 2"),
        "{text}"
    );
    assert!(
        text.contains(r#"damping                  default "0.05""#),
        "{text}"
    );
    assert!(
        text.contains(r#"prefix                   default ""  value "r_""#),
        "{text}"
    );
    assert!(
        text.contains("arm_parts.xacro") && text.contains("arm.yaml"),
        "{text}"
    );
    assert!(text.contains("body  r_upper"), "{text}");

    let out = mbconv(&["info", arm, "--json", "--read-option", &pp]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let args = json["xacro"]["args"].as_array().unwrap();
    assert_eq!(args.len(), 2);
    assert_eq!(args[0]["name"], "damping");
    assert_eq!(args[0]["default"], "0.05");
    assert_eq!(args[0]["value"], "0.05");
    assert_eq!(json["xacro"]["files"].as_array().unwrap().len(), 3);
    // A model that is not xacro has no such entry.
    let plain = fixtures().join("ir/double_pendulum.mbir.json");
    let out = mbconv(&["info", plain.to_str().unwrap(), "--json"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(json.get("xacro").is_none());
}

#[test]
fn formats_settings_documents_the_xacro_arguments() {
    let out = mbconv(&["formats", "--settings"]);
    assert!(out.status.success());
    let text = stdout(&out);
    assert!(
        text.contains("xacro inputs (*.urdf.xacro, *.sdf.xacro, *.xacro)"),
        "{text}"
    );
    assert!(text.contains("arg:NAME=text"), "{text}");
    assert!(text.contains("$(find PKG)"), "{text}");
}

#[test]
fn an_sdf_xacro_converts_to_mjcf_and_the_report_names_its_expansion() {
    let dir = tempfile::tempdir().unwrap();
    let out_file = dir.path().join("pendulum.xml");
    let input = fixtures().join("xacro/arm.sdf.xacro");
    let out = mbconv(&[
        "convert",
        input.to_str().unwrap(),
        "--to",
        "mjcf",
        "-o",
        out_file.to_str().unwrap(),
        "--read-option",
        "arg:length=0.8",
        "-v",
    ]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("xacro.expanded"), "{err}");
    assert!(err.contains("arm.sdf.xacro"), "{err}");
    assert!(err.contains("length=0.8"), "{err}");
    assert!(std::fs::read_to_string(&out_file).unwrap().contains("<mujoco"));
}
