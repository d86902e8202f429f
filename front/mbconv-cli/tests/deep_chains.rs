//! A model nests as deep as its kinematic tree, and the readers and writers that follow the
//! nesting recurse once per level: a 10 000-link chain written as MJCF (each body inside its
//! parent) overflowed the main thread's stack and aborted. The command runs on a thread with
//! a stack made for it, and the MJCF writer refuses a tree deeper than MuJoCo reads (496
//! nested bodies), with a message.

#![allow(clippy::unwrap_used, missing_docs)]

use std::fmt::Write as _;
use std::process::Command;

/// A URDF serial chain of `n` links.
fn chain(n: usize) -> String {
    let mut urdf = String::from("<robot name=\"chain\">\n");
    for i in 0..n {
        let _ = writeln!(
            urdf,
            "<link name=\"l{i}\"><inertial><mass value=\"1\"/><inertia ixx=\"0.01\" iyy=\"0.01\" izz=\"0.01\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial></link>"
        );
    }
    for i in 1..n {
        let _ = writeln!(
            urdf,
            "<joint name=\"j{i}\" type=\"revolute\"><parent link=\"l{}\"/><child link=\"l{i}\"/><origin xyz=\"0 0 -0.1\"/><axis xyz=\"0 1 0\"/><limit lower=\"-1\" upper=\"1\" effort=\"1\" velocity=\"1\"/></joint>",
            i - 1
        );
    }
    urdf.push_str("</robot>\n");
    urdf
}

/// Converts `source` to `format` into `target`, quietly and without the check.
fn convert(source: &std::path::Path, format: &str, target: &std::path::Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_mbconv"))
        .arg("convert")
        .arg(source)
        .args(["--to", format, "--no-check", "-q", "-o"])
        .arg(target)
        .output()
        .unwrap()
}

#[test]
fn a_ten_thousand_link_chain_converts_to_the_flat_formats_without_overflowing() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("chain.urdf");
    std::fs::write(&source, chain(10_000)).unwrap();
    for (format, file, element) in [
        ("sdf", "chain.sdf", "<link "),
        ("usd", "chain.usda", "PhysicsRevoluteJoint"),
    ] {
        let target = dir.path().join(file);
        let output = convert(&source, format, &target);
        assert!(
            output.status.success(),
            "{format}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let written = std::fs::read_to_string(&target).unwrap();
        assert!(written.matches(element).count() >= 9_999, "{format}");
    }
}

#[test]
fn a_chain_deeper_than_mujoco_reads_is_refused_as_mjcf_with_a_message_not_an_abort() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("chain.urdf");
    std::fs::write(&source, chain(10_000)).unwrap();
    let target = dir.path().join("chain.xml");
    let output = convert(&source, "mjcf", &target);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert!(stderr.contains("MuJoCo reads at most 496"), "{stderr}");
    assert!(!target.exists(), "no file is written");
}
