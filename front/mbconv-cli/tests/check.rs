//! `mbconv check` and the check after `mbconv convert`: verdicts on every fixture, exit codes,
//! `--against`, JSON, plots.
#![allow(clippy::unwrap_used)]

mod common;

use common::{fixtures, mbconv};
use mbconv::checker::CheckSettings;
use mbconv::ir::format::{Options, Source};

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `mbconv check MODEL --via VIA --json`, which must exit 0: its report.
fn check_json(model: &std::path::Path, via: &str) -> serde_json::Value {
    let out = mbconv(&["check", model.to_str().unwrap(), "--via", via, "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    serde_json::from_str(&text(&out.stdout)).unwrap()
}

/// Fixtures that are not models to check: the file, and why. (`skel/joint_revolute.skel`,
/// whose inertia breaks the triangle inequality, is a model: DART loads it, validation warns,
/// and it is checked like the others.)
const NOT_MODELS: [(&str, &str); 1] = [("chrono/solver.yaml", "a Chrono solver file, not a model")];

/// `check --all` on every fixture: no `unexplained`, no `failed`.
#[test]
fn every_fixture_checks_without_unexplained_or_failed() {
    let registry = mbconv::formats();
    let formats: Vec<_> = registry.formats().collect();
    let mut files = Vec::new();
    for dir in ["chrono", "skel", "ir", "body", "shift", "urdf", "mjcf", "sdf"] {
        for entry in std::fs::read_dir(fixtures().join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.is_file() {
                files.push(format!("{dir}/{}", path.file_name().unwrap().to_string_lossy()));
            }
        }
    }
    files.sort();
    let mut listing = Vec::new();
    let mut wrong = Vec::new();
    for file in &files {
        if NOT_MODELS.iter().any(|(f, _)| f == file) {
            continue;
        }
        let path = fixtures().join(file);
        let source = Source::from_path(&path).unwrap();
        let format = registry.detect(&path, Some(&source.text)).unwrap();
        // The SDFormat fixtures include models from `fixtures/sdf/models` (`model://crate`).
        let mut options = Options::default();
        if file.starts_with("sdf/") {
            options.set("model_path", fixtures().join("sdf/models").display().to_string());
        }
        let imported = registry
            .read(format, &source, &options)
            .unwrap_or_else(|e| panic!("{file}: {e}"));
        let report = mbconv::checker::check(
            &imported.model,
            file,
            &registry,
            &formats,
            &CheckSettings::default(),
        );
        for target in &report.targets {
            listing.push(format!("{file} -> {}: {}", target.format, target.verdict));
            if target.verdict.is_failure() {
                wrong.push(format!(
                    "{file} -> {}: {}: {}",
                    target.format, target.verdict, target.message
                ));
            }
        }
    }
    println!("{}", listing.join("\n"));
    assert!(
        listing.len() >= 3 * 18,
        "too few fixtures checked:\n{}",
        listing.join("\n")
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// DART's `force_torque_test2.skel` has strong joint dampers (100 and 30 N·m·s/rad); written to
/// Chrono each becomes an RSDA force element, on which semi-implicit Euler diverges at the
/// model's 1 ms step. The check integrates accurately, so both forms give the same motion.
#[test]
fn strong_joint_dampers_written_as_rsdas_are_exact() {
    let Some(path) = mbconv_test_support::corpus_file("skel/test/gazebo/force_torque_test2.skel") else {
        return;
    };
    let out = mbconv(&["check", path.to_str().unwrap(), "--via", "chrono"]);
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{all}");
    assert!(all.contains("chrono: moves like the original"), "{all}");
}

/// Asserts that a target of `check --json` was integrated by the error-controlled scheme to
/// within 1e-9 m, with no note of a fallback to the fixed step.
fn assert_integrated_accurately(target: &serde_json::Value) {
    assert!(target["integration_error"].as_f64().unwrap() < 1e-9, "{target}");
    let notes = target["not_compared"].as_array().unwrap();
    assert!(
        !notes
            .iter()
            .any(|n| n.as_str().is_some_and(|n| n.starts_with("integration accuracy"))),
        "{target}"
    );
}

/// Choreonoid's GR001 sample: the MJCF read-back's stops chattered at t = 0.186 s and the
/// URDF lowered model's at 0.052 s (a stop released at a pull of rounding, pushed back into it
/// by an acceleration of rounding, met and released again), so every motion fell back to the
/// fixed step. A stop now releases only past a pull of 1e-9 N m: both are integrated
/// accurately.
#[test]
fn a_robot_whose_stops_release_at_a_pull_of_rounding_is_integrated_accurately() {
    let Some(path) = mbconv_test_support::corpus_file("body/sample/PoseSeq/GR001.cnoid") else {
        return;
    };
    let json = check_json(&path, "mjcf,urdf");
    for target in json["targets"].as_array().unwrap() {
        assert!(
            target["verdict"] == "exact" || target["verdict"] == "explained",
            "{target}"
        );
        assert_integrated_accurately(target);
    }
}

/// An arm whose elbow is locked by its stops (lower = upper). The stop was taken as the lower
/// one, released when gravity pulled the elbow up and met again at the same instant ("the joint
/// stops chatter" at t = 0), so every motion fell back to the fixed step. The coinciding stops
/// now hold it both ways: the accurate integration follows it, and written to Chrono, which
/// loses the elbow's limits, the freed elbow is explained by that loss.
#[test]
fn an_arm_whose_elbow_is_locked_by_its_stops_is_integrated_accurately() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("locked_elbow.urdf");
    std::fs::write(&path, LOCKED_ELBOW).unwrap();
    let json = check_json(&path, "chrono");
    let target = &json["targets"][0];
    assert_eq!(target["verdict"], "explained", "{target}");
    assert_integrated_accurately(target);
    let explained_by = target["explained_by"].as_array().unwrap();
    assert!(
        explained_by
            .iter()
            .any(|e| e["code"] == "chrono.joint_limits_lost"),
        "{target}"
    );
}

/// DART's `planar_joint.skel` written as USD: the lowered model's stops chatter at t = 0.131 s
/// (events that do not settle at one instant) where the original's do not. The target is then
/// compared as the original would be had its own run failed so: all three motions with the
/// fixed-step scheme, with a note that says why, instead of `failed`. The check estimates that
/// scheme's error by halving the step (here 0.13 m) and widens the tolerance by it, no further
/// than 1e-3 m, instead of letting the fixed step's error decide the verdict.
#[test]
fn the_fixed_step_scheme_s_integration_error_is_estimated_and_decides_no_verdict() {
    let Some(path) = mbconv_test_support::corpus_file("skel/test/planar_joint.skel") else {
        return;
    };
    let json = check_json(&path, "usd");
    let target = &json["targets"][0];
    assert_ne!(target["verdict"], "failed", "{target}");
    let error = target["integration_error"].as_f64().unwrap();
    assert!(error > 1e-4, "{target}");
    let within = target["compared_within"]["position"].as_f64().unwrap();
    assert!(within > 1e-6 && within <= 1e-3, "{target}");
    let notes = target["not_compared"].as_array().unwrap();
    assert!(
        notes.iter().any(|n| n.as_str().is_some_and(|n| n.starts_with(
            "integration accuracy: the error-controlled integration of the lowered model failed"
        ) && n.contains("the joint stops chatter")
            && n.contains("estimated by halving the step"))),
        "{target}"
    );
}

const LOCKED_ELBOW: &str = r#"<?xml version="1.0"?>
<robot name="locked_arm">
  <link name="world"/>
  <joint name="shoulder" type="continuous">
    <origin xyz="0 0 1"/>
    <axis xyz="1 0 0"/>
    <parent link="world"/>
    <child link="upper"/>
    <dynamics damping="1.0"/>
  </joint>
  <link name="upper">
    <inertial>
      <mass value="10"/>
      <origin xyz="0 -0.5 0"/>
      <inertia ixx="1" ixy="0" ixz="0" iyy="0.5" iyz="0" izz="1"/>
    </inertial>
  </link>
  <joint name="elbow" type="revolute">
    <origin xyz="0 -1 0" rpy="0.3 0 0"/>
    <axis xyz="0 1 0"/>
    <limit lower="0" upper="0" effort="100" velocity="10"/>
    <parent link="upper"/>
    <child link="fore"/>
  </joint>
  <link name="fore">
    <inertial>
      <mass value="5"/>
      <origin xyz="0.2 0.4 0.5" rpy="1 2 3"/>
      <inertia ixx="0.5" ixy="0" ixz="0" iyy="0.6" iyz="0" izz="0.7"/>
    </inertial>
  </link>
</robot>
"#;

/// Shift's Bricard linkage (6 revolute joints in one overconstrained loop) amplifies the last
/// bits of its numbers to micrometres. Written to Chrono, the pass that turns the body twists
/// into the numbers Chrono reads (`quantise_body_velocities`) changes only last bits; the check
/// measures how far such a change moves the model and names the pass as rounding, while the
/// real change (the loop joint's frames, which do not coincide) is explained by its finding.
#[test]
fn a_change_in_the_last_bits_of_an_ill_conditioned_model_is_rounding() {
    let Some(path) = mbconv_test_support::corpus_file("shift/bricard/bricard.json") else {
        return;
    };
    let json = check_json(&path, "chrono");
    let target = &json["targets"][0];
    assert_eq!(target["verdict"], "explained", "{target}");
    let explained_by = target["explained_by"].as_array().unwrap();
    let rounding = explained_by
        .iter()
        .find(|e| e["code"] == "check.rounding")
        .unwrap_or_else(|| panic!("no rounding entry: {target}"));
    assert_eq!(rounding["pass"], "quantise_body_velocities", "{target}");
    let sensitivity = rounding["rounding_sensitivity"]["position"].as_f64().unwrap();
    assert!(
        rounding["max_com_error"].as_f64().unwrap() <= 10.0 * sensitivity,
        "{target}"
    );
    assert!(
        explained_by
            .iter()
            .any(|e| e["code"] == "chrono.joint_frames_apart" && e["pass"] == "joint_frames"),
        "{target}"
    );
}

/// An euler joint written as a spherical one loses the damping on its angles, and a free joint
/// that is not written loses its actuator: both in the pass that makes the change, so the check
/// names that pass and its finding.
#[test]
fn data_on_joints_that_change_kind_is_lost_in_the_pass_that_changes_them() {
    for (file, via, pass, code) in [
        (
            "skel/test/single_pendulum_euler_joint.skel",
            "chrono",
            "joint_kinds",
            "chrono.joint_damping_lost",
        ),
        (
            "skel/test/single_pendulum_euler_joint.skel",
            "shift",
            "euler_as_spherical",
            "shift.joint_damping_lost",
        ),
        (
            "skel/test/collision_of_prescribed_joints_test.skel",
            "chrono",
            "joint_kinds",
            "chrono.joint_actuator_lost",
        ),
    ] {
        let Some(path) = mbconv_test_support::corpus_file(file) else {
            return;
        };
        let out = mbconv(&["check", path.to_str().unwrap(), "--via", via, "--json"]);
        let json: serde_json::Value = serde_json::from_str(&text(&out.stdout)).unwrap();
        let target = &json["targets"][0];
        assert_eq!(target["verdict"], "explained", "{file} -> {via}: {target}");
        assert!(
            target["explained_by"]
                .as_array()
                .unwrap()
                .iter()
                .any(|e| e["pass"] == pass && e["code"] == code),
            "{file} -> {via}: {target}"
        );
    }
}

/// A finger whose own inertia breaks the triangle inequality, made physical by the tip welded
/// to it: SDFormat and MJCF get the composite on the finger and a massless tip, which moves
/// exactly as the original (altering the finger's own inertia moved it 3.9e-3 m in SDFormat,
/// 4.8e-3 m in MJCF). The move itself is a note (`inertia_lumped`), which the JSON's list of
/// losses, approximations and renames leaves out.
#[test]
fn a_finger_made_physical_by_its_welded_tip_converts_exactly() {
    let path = fixtures().join("urdf/welded_inertia/fingertip.urdf");
    let out = mbconv(&["check", path.to_str().unwrap(), "--via", "sdf,mjcf", "--json"]);
    let json: serde_json::Value = serde_json::from_str(&text(&out.stdout)).unwrap();
    let targets = json["targets"].as_array().unwrap();
    assert_eq!(targets.len(), 2, "{json}");
    for target in targets {
        assert_eq!(target["verdict"], "exact", "{target}");
        let codes: Vec<&str> = target["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|c| c.as_str())
            .collect();
        assert!(
            !codes
                .iter()
                .any(|c| c.ends_with("inertia_made_physical") || c.ends_with("inertia_balanced")),
            "{target}"
        );
        assert!(target["max_com_error"].as_f64().unwrap() < 1e-9, "{target}");
    }
}

#[test]
fn check_all_prints_a_table_and_exits_0() {
    let model = fixtures().join("skel/joint_universal_ball.skel");
    let out = mbconv(&["check", model.to_str().unwrap(), "--all"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let table = text(&out.stdout);
    assert!(table.starts_with("target"), "{table}");
    for format in ["mbir", "chrono", "skel"] {
        assert!(table.lines().any(|l| l.starts_with(format)), "{table}");
    }
}

#[test]
fn check_json_has_the_documented_shape() {
    let model = fixtures().join("ir/double_pendulum.mbir.json");
    let json = check_json(&model, "skel,mbir");
    assert!(
        json["model"]
            .as_str()
            .unwrap()
            .ends_with("double_pendulum.mbir.json")
    );
    let targets = json["targets"].as_array().unwrap();
    assert_eq!(targets.len(), 2);
    assert_eq!(targets[0]["format"], "skel");
    assert_eq!(targets[1]["format"], "mbir");
    for target in targets {
        assert_eq!(target["verdict"], "exact");
        assert!(target["max_com_error"].as_f64().unwrap() <= 1e-6);
        assert!(target["max_rotation_error"].is_number());
        assert!(target["findings"].is_array());
        assert!(target["message"].is_string());
    }
}

/// A model without a body (an empty MJCF world) gives nothing to compare in every format, also
/// in USD, whose reader refuses the empty stage written for it.
#[test]
fn a_model_without_a_body_is_not_compared_even_where_it_does_not_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("empty.xml");
    std::fs::write(&model, "<mujoco model=\"empty\"><worldbody/></mujoco>\n").unwrap();
    let json = check_json(&model, "usd,mjcf");
    for target in json["targets"].as_array().unwrap() {
        assert_eq!(target["verdict"], "not_compared", "{target}");
    }
    let usd = &json["targets"][0];
    assert_eq!(usd["format"], "usd");
    let message = usd["message"].as_str().unwrap();
    assert!(
        message.contains("has no body") && message.contains("reading the emitted file back failed"),
        "{message}"
    );
}

#[test]
fn check_via_an_unknown_format_is_bad_usage() {
    let model = fixtures().join("ir/double_pendulum.mbir.json");
    let out = mbconv(&["check", model.to_str().unwrap(), "--via", "fbx"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("unknown format"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn against_an_identical_conversion_is_exact() {
    let dir = tempfile::tempdir().unwrap();
    let model = fixtures().join("skel/joint_universal_ball.skel");
    let converted = dir.path().join("ball.mbir.json");
    let out = mbconv(&[
        "convert",
        model.to_str().unwrap(),
        "-o",
        converted.to_str().unwrap(),
        "--no-check",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = mbconv(&[
        "check",
        model.to_str().unwrap(),
        "--against",
        converted.to_str().unwrap(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert!(text(&out.stdout).contains("exact"), "{}", text(&out.stdout));
}

#[test]
fn against_a_file_with_a_moved_com_is_unexplained_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let model = fixtures().join("ir/double_pendulum.mbir.json");
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&model).unwrap()).unwrap();
    let com = &mut json["model"]["bodies"][1]["inertial"]["com"];
    com[0] = serde_json::json!(com[0].as_f64().unwrap() + 0.01);
    let moved = dir.path().join("moved.mbir.json");
    std::fs::write(&moved, serde_json::to_string_pretty(&json).unwrap()).unwrap();
    let plot = dir.path().join("moved.svg");
    let out = mbconv(&[
        "check",
        model.to_str().unwrap(),
        "--against",
        moved.to_str().unwrap(),
        "--plot",
        plot.to_str().unwrap(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert!(text(&out.stdout).contains("unexplained"), "{}", text(&out.stdout));
    let svg = std::fs::read_to_string(&plot).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("<polyline"), "{svg}");
}

#[test]
fn convert_prints_one_check_line_and_no_check_turns_it_off() {
    let dir = tempfile::tempdir().unwrap();
    let model = fixtures().join("skel/joint_universal_ball.skel");
    let out_file = dir.path().join("ball.mbir.json");
    let out = mbconv(&[
        "convert",
        model.to_str().unwrap(),
        "-o",
        out_file.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let lines: Vec<String> = text(&out.stderr)
        .lines()
        .filter(|l| l.starts_with("check:"))
        .map(str::to_owned)
        .collect();
    assert_eq!(lines.len(), 1, "{}", text(&out.stderr));
    assert!(lines[0].starts_with("check: exact"), "{}", lines[0]);
    let out = mbconv(&[
        "convert",
        model.to_str().unwrap(),
        "-o",
        out_file.to_str().unwrap(),
        "--no-check",
        "--force", // the first conversion wrote it
    ]);
    assert!(out.status.success());
    assert!(!text(&out.stderr).contains("check:"), "{}", text(&out.stderr));
    let out = mbconv(&[
        "convert",
        model.to_str().unwrap(),
        "-o",
        out_file.to_str().unwrap(),
        "--check",
        "--no-check",
    ]);
    assert_eq!(out.status.code(), Some(2), "--check and --no-check conflict");
}

#[test]
fn convert_skips_a_check_over_its_work_budget() {
    let dir = tempfile::tempdir().unwrap();
    // 600 falling bodies: the 1 ms samples alone take 1 000 steps of 600 body-steps each,
    // more than the 500 000 body-steps one simulation of the automatic check may take.
    let bodies: Vec<serde_json::Value> = (0..600)
        .map(|i| {
            serde_json::json!({
                "name": format!("ball{i}"),
                "pose": {"translation": [i as f64, 0.0, 0.0]},
                "inertial": {"mass": 1.0, "com": [0.0, 0.0, 0.0], "inertia": [[0.1, 0.0, 0.0], [0.0, 0.1, 0.0], [0.0, 0.0, 0.1]]}
            })
        })
        .collect();
    let json = serde_json::json!({"mbir": "1", "model": {"name": "crowd", "bodies": bodies}});
    let crowd = dir.path().join("crowd.mbir.json");
    std::fs::write(&crowd, serde_json::to_string_pretty(&json).unwrap()).unwrap();
    let out_file = dir.path().join("crowd.skel");
    let out = mbconv(&[
        "convert",
        crowd.to_str().unwrap(),
        "--from",
        "mbir",
        "-o",
        out_file.to_str().unwrap(),
        "-q",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("check: skipped (over budget: a simulation (simulating the original) needed more than the 500000 body-steps"),
        "the verdict is printed even with -q: {}",
        text(&out.stderr)
    );
}

/// The same physics in another form is `exact`: SKEL joint springs and dampers (on an euler, a
/// skewed revolute and a prismatic joint) become Chrono RSDAs and TSDAs and Shift restraints;
/// Chrono RSDAs about revolute axes and a preloaded TSDA along a prismatic axis become the SKEL
/// joints' springs and dampers. With semi-implicit Euler at 1 ms `sprung_chain.skel` -> chrono
/// parts by 2.5 mm. The check integrates accurately,
/// so the form of an element does not matter (issue 18's acceptance).
#[test]
fn exact_re_expressions_of_springs_and_dampers_are_exact() {
    let cases = [
        ("skel/sprung_chain.skel", "chrono"),
        ("skel/sprung_arm.skel", "chrono"),
        ("skel/sprung_arm.skel", "shift"),
        ("skel/dofs_markers_soft.skel", "chrono"),
        ("skel/dofs_markers_soft.skel", "shift"),
        ("chrono/motion_elements.yaml", "skel"),
    ];
    let mut wrong = Vec::new();
    for (file, target) in cases {
        let model = fixtures().join(file);
        let out = mbconv(&["check", model.to_str().unwrap(), "--via", target, "--json"]);
        let json: serde_json::Value = serde_json::from_str(&text(&out.stdout))
            .unwrap_or_else(|e| panic!("{file} -> {target}: {e}: {}", text(&out.stderr)));
        let t = &json["targets"][0];
        if t["verdict"] != "exact" {
            wrong.push(format!("{file} -> {target}: {}: {}", t["verdict"], t["message"]));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn a_conversion_whose_proof_failed_exits_3_with_the_file_written() {
    let Some(crank) = mbconv_test_support::corpus_file("chrono/model_slider_crank.yaml") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out_file = dir.path().join("crank.body");
    let out = mbconv(&[
        "convert",
        crank.to_str().unwrap(),
        "--to",
        "body",
        "-o",
        out_file.to_str().unwrap(),
    ]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("check: failed ("), "{stderr}");
    assert!(
        common::stderr_unwrapped(&out).contains("its proof could not be completed"),
        "{stderr}"
    );
    assert!(out_file.is_file(), "the file is written");
}

#[test]
fn convert_json_carries_the_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let model = fixtures().join("skel/joint_universal_ball.skel");
    let out_file = dir.path().join("ball.mbir.json");
    let out = mbconv(&[
        "convert",
        model.to_str().unwrap(),
        "-o",
        out_file.to_str().unwrap(),
        "--json",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["verdict"], "exact", "{json:#}");
    assert_eq!(json["check"]["verdict"], "exact");
    assert!(json["check"]["tolerance_widened"].is_boolean());
    assert!(json["check"]["compared_within"]["position"].is_number());
    assert!(
        !text(&out.stderr).contains("check:"),
        "the verdict is in the JSON, not on stderr"
    );
}

/// A step, duration or tolerance no run can use is bad input, refused before any work (a zero
/// step used to overflow sizing the samples and panic).
#[test]
fn a_zero_step_or_a_negative_tolerance_is_refused_not_a_panic() {
    let model = fixtures().join("skel/joint_screw.skel");
    let model = model.to_str().unwrap();
    for bad in ["--dt=0", "--duration=inf", "--tol-pos=-1", "--tol-rot=nan"] {
        let out = mbconv(&["check", model, "--via", "urdf", bad]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bad:?}: {err}");
        assert!(
            err.contains("expected a positive, finite number"),
            "{bad:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{bad:?}: {err}");
    }
}

/// The library refuses the same options with a solver error, never a panic.
#[test]
fn the_library_refuses_a_zero_step_with_an_error() {
    let read = mbconv::read(fixtures().join("skel/joint_screw.skel")).unwrap();
    let settings = CheckSettings {
        dt: Some(0.0),
        ..CheckSettings::default()
    };
    let original = mbconv::checker::simulate_original(&read.model, &settings);
    let error = original.motion.unwrap_err().to_string();
    assert!(error.contains("dt must be positive"), "{error}");
}

/// A chain of twelve links whose spheres all sit at the world origin: many pairs of bodies
/// that are not parent and child may touch, a note longer than the table prints.
fn crowded_chain() -> String {
    let mut urdf = String::from("<robot name=\"crowd\">\n  <link name=\"base\"/>\n");
    for i in 0..12 {
        urdf.push_str(&format!(
            "  <link name=\"l{i}\"><inertial><origin xyz=\"0.1 0 0\"/><mass value=\"1\"/><inertia ixx=\"0.01\" iyy=\"0.01\" izz=\"0.01\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial>\
             <collision><geometry><sphere radius=\"0.1\"/></geometry></collision></link>\n"
        ));
        let parent = if i == 0 {
            "base".to_owned()
        } else {
            format!("l{}", i - 1)
        };
        urdf.push_str(&format!(
            "  <joint name=\"j{i}\" type=\"revolute\"><parent link=\"{parent}\"/><child link=\"l{i}\"/>\
             <axis xyz=\"0 1 0\"/><limit lower=\"-3\" upper=\"3\" effort=\"1\" velocity=\"1\"/></joint>\n"
        ));
    }
    urdf.push_str("</robot>\n");
    urdf
}

#[test]
fn a_long_contact_note_is_cut_in_the_table_and_whole_with_verbose() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("crowd.urdf");
    std::fs::write(&path, crowded_chain()).unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec![
            "check",
            path.to_str().unwrap(),
            "--via",
            "mjcf",
            "--duration",
            "0.01",
        ];
        args.extend_from_slice(extra);
        let out = mbconv(&args);
        String::from_utf8(out.stdout).unwrap()
    };
    let short = run(&[]);
    let full = run(&["-v"]);
    let contact = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| l.contains("may touch"))
            .map(str::to_owned)
            .collect()
    };
    let (short_notes, full_notes) = (contact(&short), contact(&full));
    assert_eq!(short_notes.len(), 1, "one contact line without -v:\n{short}");
    assert_eq!(full_notes.len(), 1, "one contact line with -v:\n{full}");
    assert!(short_notes[0].contains("--json lists every one"), "{short}");
    // The last pair of the crowd ("l9" and "l11") is only in the whole note.
    assert!(full_notes[0].contains("\"l9\" and \"l11\""), "{full}");
    assert!(!short_notes[0].contains("\"l9\" and \"l11\""), "{short}");
    assert!(full_notes[0].len() > short_notes[0].len());
}
