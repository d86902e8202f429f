//! xacro inputs through the facade: every robot expansion of the golden sets (the PR2 of
//! xacro 2.1.1's own test inputs, `cargo xtask download`; the UR and Franka packages when
//! `MBCONV_XACRO_FIELD` holds them: `crates/mbconv-xacro/tests/golden/*.md`) read as URDF gives
//! the same model as the reference's expansion (xacro 2.1.1) read as URDF: bodies, joints,
//! masses, frames, exactly; and a xacro file converts to MJCF with its arguments given as
//! `arg:NAME` read settings.

#![allow(clippy::unwrap_used, missing_docs)]

use mbconv::files::Input;
use mbconv::{Pipeline, ReadOptions, Settings};
use std::path::Path;

/// The golden expansions of the set `name`.
fn golden_dir(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../crates/mbconv-xacro/tests/golden")
        .join(name)
}

/// The xacro file and read settings a golden file's name stands for.
fn expansion_of(name: &str, root: &Path) -> (std::path::PathBuf, Settings) {
    let stem = name.trim_end_matches(".xml");
    let mut path = Vec::new();
    let mut settings = Settings::default();
    settings.set("package_path", root.display().to_string());
    for part in stem.split("__") {
        match part.split_once('=') {
            Some((k, v)) => settings.set(format!("arg:{k}"), v),
            None => path.push(part),
        }
    }
    (root.join(path.join("/")), settings)
}

#[test]
fn the_references_pr2_reads_as_the_references_expansion_reads() {
    let Some(root) = mbconv_test_support::downloaded("xacro-2.1.1") else {
        return;
    };
    assert_reads_as_golden("xacro-2.1.1", &root, 1);
}

#[test]
fn the_field_packages_read_as_the_references_expansion_reads() {
    let Some(root) = std::env::var_os("MBCONV_XACRO_FIELD") else {
        eprintln!("notice: MBCONV_XACRO_FIELD is not set; the field packages are not compared");
        return;
    };
    assert_reads_as_golden("field", Path::new(&root), 13);
}

/// Reads every robot (`.urdf.xacro`) of the golden set `set` from `root` through the facade
/// and the reference's expansion as URDF, and fails unless the models are equal (or both
/// refused alike); at least `least` robots must be compared.
fn assert_reads_as_golden(set: &str, root: &Path, least: usize) {
    let pipeline = Pipeline::new();
    let mut names: Vec<String> = std::fs::read_dir(golden_dir(set))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".xml") && n.contains(".urdf.xacro"))
        .collect();
    names.sort();
    assert!(names.len() >= least, "{} robots in {set}", names.len());
    let mut failures = Vec::new();
    for name in &names {
        let (file, settings) = expansion_of(name, root);
        let ours = pipeline.read(
            &Input::File(file.clone()),
            &ReadOptions {
                settings: settings.clone(),
                ..Default::default()
            },
        );
        let reference = std::fs::read_to_string(golden_dir(set).join(name))
            .unwrap()
            .replace("@ROOT@", &root.display().to_string());
        let mut plain = Settings::default();
        plain.set("package_path", root.display().to_string());
        let input = Input::Text {
            name: "reference.urdf".into(),
            text: reference,
        };
        let theirs = pipeline.read(
            &input,
            &ReadOptions {
                settings: plain,
                from: Some("urdf".into()),
                ..Default::default()
            },
        );
        match (ours, theirs) {
            (Ok(ours), Ok(theirs)) => {
                assert_eq!(ours.format.info().name, "urdf");
                assert!(ours.imported.report.contains("xacro.expanded"), "{name}");
                if ours.imported.model != theirs.imported.model {
                    failures.push(format!("{name}: the models differ"));
                }
            }
            // A model the URDF reader refuses (two roots) is refused alike from both.
            (Err(a), Err(b)) => {
                let (a, b) = (a.to_string(), b.to_string());
                let tail = |s: &str| s.split(": ").skip(1).collect::<Vec<_>>().join(": ");
                if tail(&a).replace(" (in the xacro expansion)", "") != tail(&b) {
                    failures.push(format!("{name}: refused differently:\n  {a}\n  {b}"));
                }
            }
            (a, b) => failures.push(format!(
                "{name}: ours {:?}, reference's {:?}",
                a.err().map(|e| e.to_string()),
                b.err().map(|e| e.to_string())
            )),
        }
    }
    assert!(failures.is_empty(), "models differ: {failures:?}");
}

#[test]
fn a_xacro_file_converts_with_its_arguments_and_errors_point_into_it() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("arm.urdf.xacro");
    std::fs::write(
        &file,
        r#"<?xml version="1.0"?>
<robot name="arm" xmlns:xacro="http://www.ros.org/wiki/xacro">
  <xacro:arg name="length" default="1"/>
  <xacro:property name="l" value="$(arg length)"/>
  <xacro:macro name="link" params="name mass">
    <link name="${name}"><inertial><mass value="${mass}"/>
      <inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial></link>
  </xacro:macro>
  <xacro:link name="base" mass="1"/>
  <xacro:link name="bob" mass="${2 * l}"/>
  <joint name="pivot" type="continuous"><parent link="base"/><child link="bob"/>
    <origin xyz="0 0 ${-l}"/><axis xyz="0 1 0"/></joint>
</robot>"#,
    )
    .unwrap();
    let mut options = mbconv::Options::default();
    options.read.set("arg:length", "0.5");
    options.to = Some("mjcf".into());
    let out = dir.path().join("arm.xml");
    let conversion = mbconv::convert(&file, &out, &options).unwrap();
    assert_eq!(conversion.model.bodies[1].inertial.mass, 1.0);
    assert_eq!(conversion.model.bodies[1].pose.translation.z, -0.5);
    assert!(std::fs::read_to_string(&out).unwrap().contains("<mujoco"));
    // A reader's error in the expansion points into the xacro file.
    std::fs::write(
        &file,
        std::fs::read_to_string(&file)
            .unwrap()
            .replace("${2 * l}", "heavy"),
    )
    .unwrap();
    let err = mbconv::read(&file).unwrap_err().to_string();
    assert!(err.contains("arm.urdf.xacro:"), "{err}");
    // An unknown argument setting on a file that is not xacro is refused.
    let mut options = mbconv::Options::default();
    options.read.set("arg:length", "0.5");
    options.from = Some("mjcf".into());
    assert!(mbconv::convert(&out, dir.path().join("again.urdf"), &options).is_err());
}

/// Reads the xacro file `file` with the read settings `settings` through the facade, checks
/// that the report says it was expanded and from which files, and proves its conversion to
/// MJCF, SDFormat and USD by simulation (`mbconv check`'s proof: every target exact or
/// explained).
fn assert_converts_with_proof(file: &Path, settings: &Settings, format: &str, least_files: usize) {
    let pipeline = Pipeline::new();
    let loaded = pipeline
        .read(
            &Input::File(file.to_path_buf()),
            &ReadOptions {
                settings: settings.clone(),
                ..Default::default()
            },
        )
        .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    assert_eq!(loaded.format.info().name, format, "{}", file.display());
    let note = loaded
        .imported
        .report
        .findings
        .iter()
        .find(|f| f.code == "xacro.expanded")
        .unwrap_or_else(|| panic!("{}: no xacro.expanded note", file.display()));
    assert!(
        note.message.contains(&file.display().to_string()),
        "{}",
        note.message
    );
    let xacro = loaded.xacro.as_ref().unwrap();
    assert!(xacro.files().len() >= least_files, "{}", note.message);
    let check = mbconv::CheckSettings {
        duration: 0.5,
        ..Default::default()
    };
    let targets = ["mjcf", "sdf", "usd"];
    let report = mbconv::check(&loaded.imported.model, &targets, &check).unwrap();
    let verdicts: Vec<String> = report
        .targets
        .iter()
        .map(|t| format!("{} {:?} ({} m)", t.format, t.verdict, t.max_com_error))
        .collect();
    assert_eq!(report.targets.len(), targets.len(), "{verdicts:?}");
    assert!(report.passed(), "{}: {verdicts:?}", file.display());
}

#[test]
fn the_xacro_fixture_robots_convert_to_mjcf_sdf_and_usd_with_the_checks_proof() {
    let dir = mbconv_test_support::workspace_root().join("fixtures/xacro");
    let mut settings = Settings::default();
    settings.set("package_path", dir.display().to_string());
    // The URDF arm: macros, an include, a YAML file and arguments.
    assert_converts_with_proof(&dir.join("arm.urdf.xacro"), &settings, "urdf", 3);
    let mut given = settings.clone();
    given.set("arg:prefix", "r_");
    given.set("arg:damping", "0.2");
    assert_converts_with_proof(&dir.join("arm.urdf.xacro"), &given, "urdf", 3);
    // The SDFormat pendulum: `.sdf.xacro` expands and is read by the SDFormat reader.
    assert_converts_with_proof(&dir.join("arm.sdf.xacro"), &settings, "sdf", 1);
}

#[test]
fn an_sdf_xacro_file_converts_to_mjcf() {
    let dir = mbconv_test_support::workspace_root().join("fixtures/xacro");
    let out = tempfile::tempdir().unwrap();
    let mut options = mbconv::Options::default();
    options.read.set("arg:length", "0.8");
    options.to = Some("mjcf".into());
    let written = out.path().join("pendulum.xml");
    let conversion = mbconv::convert(dir.join("arm.sdf.xacro"), &written, &options).unwrap();
    assert!(conversion.report.contains("xacro.expanded"));
    let lower = conversion
        .model
        .bodies
        .iter()
        .find(|b| b.name == "lower")
        .unwrap();
    assert_eq!(lower.inertial.mass, 0.5);
    assert!(std::fs::read_to_string(&written).unwrap().contains("<mujoco"));
}

#[test]
fn the_field_robots_convert_to_mjcf_sdf_and_usd_with_the_checks_proof() {
    let Some(root) = std::env::var_os("MBCONV_XACRO_FIELD") else {
        eprintln!("notice: MBCONV_XACRO_FIELD is not set; the UR and Franka conversions are not checked");
        return;
    };
    let root = Path::new(&root);
    for (file, args) in [
        (
            "ur_description/urdf/ur.urdf.xacro",
            &[("ur_type", "ur5e"), ("name", "ur5e")][..],
        ),
        ("franka_description/robots/fr3/fr3.urdf.xacro", &[][..]),
    ] {
        let mut settings = Settings::default();
        settings.set("package_path", root.display().to_string());
        for (k, v) in args {
            settings.set(format!("arg:{k}"), *v);
        }
        assert_converts_with_proof(&root.join(file), &settings, "urdf", 3);
    }
}
