//! Output a user can act on (issue 39): a conversion prints its warnings grouped by code within
//! ten lines, counts its notes on the summary line, `-v` prints every finding and `--json`
//! keeps them all; a massless frame welded to a body is a note that says so. Counted on a
//! fixture of this file and, when the shared corpus is beside the project, on MuJoCo Menagerie
//! and example-robot-data robots (skipped without it).
#![allow(clippy::unwrap_used)]

mod common;

use common::{mbconv, stderr};
use std::path::Path;

/// The most lines a conversion prints without `-v`.
const MOST_LINES: usize = 10;

/// A robot with a bit of everything a Shift writer cannot say, a massless frame welded to its
/// base, a massless moving link and a flat inertia.
const ROBOT: &str = r#"<?xml version="1.0"?>
<robot name="busy">
  <material name="red"><color rgba="1 0 0 1"/></material>
  <link name="base">
    <inertial><mass value="2"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial>
    <visual><geometry><box size="0.2 0.2 0.2"/></geometry><material name="red"/></visual>
    <collision><geometry><box size="0.2 0.2 0.2"/></geometry></collision>
  </link>
  <link name="camera_frame"/>
  <joint name="camera_weld" type="fixed">
    <parent link="base"/><child link="camera_frame"/>
    <origin xyz="0.1 0 0"/>
  </joint>
  <link name="spacer"/>
  <joint name="spacer_hinge" type="revolute">
    <parent link="base"/><child link="spacer"/>
    <axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="5" velocity="2"/>
  </joint>
  <link name="arm">
    <inertial><mass value="1"/><inertia ixx="0" iyy="0" izz="0.3" ixy="0" ixz="0" iyz="0"/></inertial>
    <visual><geometry><cylinder radius="0.05" length="0.5"/></geometry><material name="red"/></visual>
    <collision><geometry><sphere radius="0.05"/></geometry></collision>
  </link>
  <joint name="shoulder" type="revolute">
    <parent link="base"/><child link="arm"/>
    <origin xyz="0 0 0.2"/>
    <axis xyz="0 1 0"/>
    <limit lower="-1.5" upper="1.5" effort="10" velocity="3"/>
    <dynamics damping="0.1" friction="0.2"/>
  </joint>
  <link name="hand">
    <inertial><mass value="0.5"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    <visual><geometry><box size="0.1 0.1 0.1"/></geometry></visual>
  </link>
  <joint name="wrist" type="prismatic">
    <dynamics damping="0.5" friction="0.1"/>
    <limit lower="0" upper="0.1" effort="20" velocity="1"/>
    <axis xyz="0 0 1"/>
    <parent link="arm"/><child link="hand"/><origin xyz="0 0 0.5"/>
  </joint>
  <joint name="cover" type="fixed">
    <parent link="arm"/><child link="arm_cover"/>
    <limit lower="0" upper="1" effort="1" velocity="1"/>
  </joint>
  <link name="arm_cover">
    <inertial><mass value="0.1"/><inertia ixx="0.001" iyy="0.001" izz="0.001" ixy="0" ixz="0" iyz="0"/></inertial>
  </link>
</robot>
"#;

/// Runs `mbconv convert INPUT --to TO -o OUTPUT --force` with `extra`; returns standard error
/// (the conversion must succeed) and standard output.
fn convert(input: &Path, to: &str, output: &Path, extra: &[&str]) -> (String, String) {
    let mut args = vec![
        "convert",
        input.to_str().unwrap(),
        "--to",
        to,
        "-o",
        output.to_str().unwrap(),
        "--force",
    ];
    args.extend(extra);
    let out = mbconv(&args);
    assert!(out.status.success(), "{args:?}\n{}", stderr(&out));
    (stderr(&out), String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The findings `-v` prints (one line each).
fn finding_lines(text: &str) -> usize {
    text.lines()
        .filter(|l| l.contains(": warning[") || l.contains(": info[") || l.contains(": error["))
        .count()
}

/// Converts `input` to `to`: at most [`MOST_LINES`] lines by default (`check` runs the check,
/// whose line counts), every finding with `-v` and in `--json`. Returns the default output.
fn assert_short(input: &Path, to: &str, extra: &[&str], check: bool) -> String {
    let dir = tempfile::tempdir().unwrap();
    let output = dir
        .path()
        .join(format!("out.{}", if to == "mjcf" { "xml" } else { to }));
    let no_check: &[&str] = if check { &[] } else { &["--no-check"] };
    let default = convert(input, to, &output, &[extra, no_check].concat()).0;
    let lines = default.lines().count();
    assert!(
        lines <= MOST_LINES,
        "{} -> {to}: {lines} lines:\n{default}",
        input.display()
    );
    assert!(!default.contains(": info["), "notes are only counted:\n{default}");
    let verbose = convert(input, to, &output, &[extra, &["--no-check", "-v"]].concat()).0;
    let json = convert(input, to, &output, &[extra, &["--no-check", "--json"]].concat()).1;
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    let findings = value["report"]["findings"].as_array().unwrap();
    assert_eq!(finding_lines(&verbose), findings.len(), "{verbose}");
    // The summary line counts every warning and note -v prints.
    let count = |severity: &str| findings.iter().filter(|f| f["severity"] == severity).count();
    let summary = default.lines().find(|l| l.starts_with("wrote ")).unwrap();
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    assert!(
        summary.contains(&plural(count("warning"), "warning"))
            && summary.contains(&plural(count("info"), "note")),
        "{summary}"
    );
    default
}

#[test]
fn a_busy_robot_prints_at_most_ten_lines_and_every_finding_with_v() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("busy.urdf");
    std::fs::write(&input, ROBOT).unwrap();
    for to in ["shift", "chrono", "skel", "body", "mjcf", "sdf"] {
        assert_short(&input, to, &[], to == "shift");
    }
    // Shift can say least of it: every warning code -v prints is on a line of the default
    // output (several codes on the very same items share one).
    let output = dir.path().join("busy.json");
    let (default, _) = convert(&input, "shift", &output, &["--no-check"]);
    let (verbose, _) = convert(&input, "shift", &output, &["--no-check", "-v"]);
    let codes: std::collections::BTreeSet<&str> = verbose
        .lines()
        .filter_map(|l| l.split(": warning[").nth(1))
        .filter_map(|rest| rest.split(']').next())
        .collect();
    assert!(codes.len() >= 5, "{verbose}");
    for code in codes {
        assert!(default.contains(code), "{code}:\n{default}");
    }
}

/// Runs `mbconv COMMAND busy.urdf` on [`ROBOT`]: its exit status and standard error.
fn on_robot(command: &str) -> (bool, String) {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("busy.urdf");
    std::fs::write(&input, ROBOT).unwrap();
    let out = mbconv(&[command, input.to_str().unwrap()]);
    (out.status.success(), stderr(&out))
}

#[test]
fn a_massless_frame_welded_to_a_body_is_a_note_that_says_so() {
    let (_, text) = on_robot("validate");
    let frame = text
        .lines()
        .find(|l| l.contains("mass.zero") && l.contains("camera_frame"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(frame.contains("info[mass.zero]"), "{frame}");
    assert!(frame.contains("fixed joint \"camera_weld\""), "{frame}");
    assert!(!frame.contains("not fixed"), "{frame}");
    let spacer = text
        .lines()
        .find(|l| l.contains("mass.zero") && l.contains("spacer"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(spacer.contains("warning[mass.zero]"), "{spacer}");
    assert!(spacer.contains("moves on joint \"spacer_hinge\""), "{spacer}");
    // A <limit> on a fixed joint is ignored as the loaders ignore it: a note.
    assert!(text.contains("info[urdf.limit_ignored]"), "{text}");
}

#[test]
fn info_counts_its_notes_on_one_line() {
    let (success, text) = on_robot("info");
    assert!(success, "{text}");
    assert!(!text.contains(": info["), "{text}");
    assert!(text.contains("busy.urdf: read with"), "{text}");
}

/// The formats a conversion writes: every writer of the build.
const WRITERS: [&str; 8] = ["urdf", "mjcf", "sdf", "chrono", "skel", "body", "shift", "usd"];

/// Every robot of `robots` converted to every format but its own: at most ten lines each
/// (`extra` are the read options; the check runs on the `checked` target, whose line counts: it
/// is slow on the others).
fn robots_in_ten_lines(robots: &[std::path::PathBuf], own: &str, extra: &[&str], checked: &str) {
    for input in robots {
        for to in WRITERS.into_iter().filter(|t| *t != own) {
            assert_short(input, to, extra, to == checked);
        }
    }
}

/// Acceptance (issue 39): a Menagerie robot's conversion prints at most ten lines without -v,
/// to every format, its check included: every MJCF file of the corpus's Menagerie.
#[test]
fn menagerie_robots_convert_in_at_most_ten_lines() {
    let Some(root) = mbconv_test_support::corpus("mjcf/menagerie") else {
        return;
    };
    let robots = mbconv_test_support::corpus::files_with_extension(&root, "xml");
    assert!(robots.len() >= 8, "{robots:?}");
    robots_in_ten_lines(&robots, "mjcf", &[], "skel");
    for input in robots {
        // `info` warns no more about the actuators the IR keeps for MJCF only.
        let out = mbconv(&["info", input.to_str().unwrap()]);
        assert!(!stderr(&out).contains("actuator_kept"), "{}", stderr(&out));
    }
}

/// The same for example-robot-data robots, their `package://` meshes resolved.
#[test]
fn example_robot_data_robots_convert_in_at_most_ten_lines() {
    let Some(packages) = mbconv_test_support::corpus("urdf") else {
        return;
    };
    let package_path = format!("package_path={}", packages.display());
    let robots: Option<Vec<_>> = [
        "urdf/example-robot-data/robots/pr2_description/urdf/pr2.urdf",
        "urdf/example-robot-data/robots/hyq_description/robots/hyq_no_sensors.urdf",
        "urdf/example-robot-data/robots/simple_humanoid_description/urdf/simple_humanoid.urdf",
    ]
    .into_iter()
    .map(mbconv_test_support::corpus_file)
    .collect();
    robots_in_ten_lines(
        &robots.unwrap_or_default(),
        "urdf",
        &["--read-option", &package_path],
        "none",
    );
}
