//! Every malformed stage of `fixtures/bad/` (`usd_*`) is refused with an error that names the
//! file, a line and a column (and the prim's path where a prim is at fault), and a stage with
//! no rigid body says so. (The CLI's bad-input test also runs them through `mbconv convert`.)
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

/// The error reading `name` gives, as text, with its code.
fn refusal(name: &str) -> (String, String) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/bad")
        .join(name);
    let source = Source::from_path(&path).unwrap();
    let error = UsdFormat.read(&source, &Options::default()).err().unwrap();
    let code = error.code().map(|c| c.to_string()).unwrap_or_default();
    (code, error.to_string())
}

#[test]
fn every_bad_stage_is_refused_with_a_place() {
    let files = bad_files();
    assert!(files.len() >= 10, "{} malformed stages", files.len());
    let mut wrong = Vec::new();
    for path in &files {
        // Not UTF-8: refused before any reader runs (`Source::from_path`), with its place.
        let source = match Source::from_path(path) {
            Ok(source) => source,
            Err(e) => {
                if !e.to_string().contains(":2:13: not UTF-8") {
                    wrong.push(format!("{}: no place in {e}", path.display()));
                }
                continue;
            }
        };
        match UsdFormat.read(&source, &Options::default()) {
            Ok(_) => wrong.push(format!("{}: read", path.display())),
            // A label is a place in the file (line and column); the message names the file.
            Err(e) => {
                let located = e.labels().is_some_and(|mut labels| labels.next().is_some());
                if !located || !e.to_string().starts_with(&source.name) {
                    wrong.push(format!("{}: no place in {e}", path.display()));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn errors_name_the_prim_and_say_what_is_wrong() {
    for (file, code, words) in [
        ("usd_no_rigid_body.usda", "usd.no_rigid_body", "no rigid body"),
        (
            "usd_missing_payload.usda",
            "usd.no_rigid_body",
            "missing_physics.usda",
        ),
        ("usd_syntax.usda", "usd.syntax", ":9:"),
        ("usd_no_header.usda", "usd.header", "#usda 1.0"),
        (
            "usd_joint_unknown_target.usda",
            "usd.joint_target",
            "/World/hinge: physics:body1 names /World/nowhere",
        ),
        ("usd_joint_same_body.usda", "usd.joint_bodies", "/World/weld"),
        ("usd_bad_axis.usda", "usd.axis", "\"W\""),
        ("usd_capsule_bad_axis.usda", "usd.axis", "/World/link/rod"),
        (
            "usd_xform_op_missing.usda",
            "usd.xform",
            "xformOp:orient is in xformOpOrder but not authored",
        ),
        ("usd_unknown_xform_op.usda", "usd.xform", "xformOp:shear"),
        ("usd_mesh_bad_index.usda", "usd.mesh", "past the 3 points"),
        ("usd_mesh_no_points.usda", "usd.mesh", "without points"),
        (
            "usd_generic_joint_unknown.usda",
            "usd.generic_joint",
            "/World/odd",
        ),
        ("usd_negative_mass.usda", "usd.mass", "-2"),
        ("usd_negative_inertia.usda", "usd.inertia", "diagonalInertia"),
        ("usd_infinite_translate.usda", "usd.xform", "not finite"),
        ("usd_empty.usda", "usd.stage", "does not open"),
    ] {
        let (got, text) = refusal(file);
        assert_eq!(got, code, "{file}: {text}");
        assert!(text.contains(words), "{file}: {text:?} does not say {words:?}");
    }
}
