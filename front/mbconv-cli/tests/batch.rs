//! `mbconv convert IN... --to F -o DIR`: many files in one command, one bad file never stops
//! the others, a summary line, exit 1 when any failed.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

mod common;
use common::{fixtures, mbconv, stderr};

/// The summary line: `batch: N files: C converted (L with losses), F failed; …`.
fn summary(err: &str) -> (usize, usize, usize) {
    let line = err
        .lines()
        .find(|l| l.starts_with("batch: "))
        .unwrap_or_else(|| panic!("no summary line in {err}"));
    let number_before = |word: &str| -> usize {
        let end = line.find(word).unwrap();
        line[..end]
            .trim_end()
            .rsplit([' ', '('])
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    (
        number_before(" converted"),
        number_before(" with losses"),
        number_before(" failed"),
    )
}

/// A directory of models: two SKEL files at the top, one in a sub-directory, one bad SKEL
/// file, one file no format reads.
fn input_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir(root.join("sub")).unwrap();
    for (from, to) in [
        ("skel/joint_screw.skel", "screw.skel"),
        ("skel/joint_planar.skel", "planar.skel"),
        ("skel/joint_free.skel", "sub/free.skel"),
    ] {
        std::fs::copy(fixtures().join(from), root.join(to)).unwrap();
    }
    std::fs::write(root.join("broken.skel"), "<skel><world name=\"w\"><body").unwrap();
    std::fs::write(root.join("notes.txt"), "not a model").unwrap();
    dir
}

#[test]
fn a_directory_converts_file_by_file_and_one_bad_file_stops_nothing() {
    let input = input_dir();
    let out_dir = tempfile::tempdir().unwrap();
    let target = out_dir.path().join("out");
    let (i, o) = (input.path().to_str().unwrap(), target.to_str().unwrap());
    let out = mbconv(&["convert", i, "--to", "chrono", "-o", o, "--no-check"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(summary(&err).0, 2, "{err}");
    assert_eq!(summary(&err).2, 1, "{err}");
    assert!(
        err.contains("broken.skel:1:"),
        "the bad file's error names its place: {err}"
    );
    assert!(target.join("screw.yaml").is_file());
    assert!(target.join("planar.yaml").is_file());
    assert!(!target.join("broken.yaml").exists());
    assert!(!target.join("sub").exists(), "not recursive");
    assert!(
        !err.contains("notes.txt"),
        "a file no format reads is not an input: {err}"
    );

    // Recursive: the sub-directory is kept under the output directory. The files already
    // written are kept without --force (they fail), and replaced with it.
    let out = mbconv(&[
        "convert",
        i,
        "--recursive",
        "--to",
        "chrono",
        "-o",
        o,
        "--no-check",
    ]);
    let err = stderr(&out);
    assert_eq!(summary(&err), (1, summary(&err).1, 3), "{err}");
    assert!(err.contains("already exists; pass --force"), "{err}");
    assert!(target.join("sub/free.yaml").is_file());
    let first = std::fs::read(target.join("screw.yaml")).unwrap();
    let out = mbconv(&[
        "convert",
        i,
        "--recursive",
        "--to",
        "chrono",
        "-o",
        o,
        "--no-check",
        "--force",
    ]);
    let err = stderr(&out);
    assert_eq!(summary(&err).0, 3, "{err}");
    assert_eq!(summary(&err).2, 1, "{err}");
    assert_eq!(
        std::fs::read(target.join("screw.yaml")).unwrap(),
        first,
        "same input, same bytes"
    );
    let temporaries = walk(&target)
        .into_iter()
        .filter(|p| p.to_string_lossy().ends_with(".tmp"))
        .count();
    assert_eq!(temporaries, 0);
}

#[test]
fn several_files_convert_and_a_clean_batch_exits_0() {
    let out_dir = tempfile::tempdir().unwrap();
    let a = fixtures().join("skel/joint_screw.skel");
    let b = fixtures().join("ir/double_pendulum.mbir.json");
    let out = mbconv(&[
        "convert",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--to",
        "skel",
        "-o",
        out_dir.path().to_str().unwrap(),
    ]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert_eq!(summary(&err).0, 2, "{err}");
    assert_eq!(summary(&err).2, 0, "{err}");
    assert!(out_dir.path().join("joint_screw.skel").is_file());
    assert!(out_dir.path().join("double_pendulum.skel").is_file());

    // One file into a directory is a batch of one.
    let out = mbconv(&[
        "convert",
        fixtures().join("skel/joint_planar.skel").to_str().unwrap(),
        "--to",
        "skel",
        "-o",
        &format!("{}/", out_dir.path().display()),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(out_dir.path().join("joint_planar.skel").is_file());
}

#[test]
fn a_batch_needs_a_target_and_an_output_directory() {
    let input = input_dir();
    let i = input.path().to_str().unwrap();
    let out = mbconv(&["convert", i, "--to", "chrono"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("-o DIR"), "{}", stderr(&out));
    let out = mbconv(&["convert", i, "-o", "somewhere"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--to FORMAT"), "{}", stderr(&out));
}

/// Acceptance: the SKEL corpus converts to Chrono in one command, with a summary. Only the
/// files that are not SKEL XML (DART's legacy text format) fail.
#[test]
fn the_skel_corpus_converts_in_one_command() {
    let Some(corpus) = mbconv_test_support::corpus("skel") else {
        return;
    };
    let out_dir = tempfile::tempdir().unwrap();
    let out = mbconv(&[
        "convert",
        corpus.to_str().unwrap(),
        "--recursive",
        "--to",
        "chrono",
        "-o",
        out_dir.path().to_str().unwrap(),
        "--no-check",
        "--quiet",
    ]);
    let err = stderr(&out);
    let (converted, _, failed) = summary(&err);
    let skel_files = mbconv_test_support::files_with_extension(&corpus, "skel").len();
    assert_eq!(converted + failed, skel_files, "{err}");
    assert!(converted >= 60, "{err}");
    for line in err.lines().filter(|l| l.ends_with(": failed")) {
        assert!(
            line.contains("legacy_text_format"),
            "unexpected failure: {line}\n{err}"
        );
    }
    assert_eq!(out.status.code(), Some(if failed > 0 { 1 } else { 0 }));
    let written = walk(out_dir.path())
        .into_iter()
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            // Each model comes with its simulation and solver files.
            name.ends_with(".yaml") && !name.ends_with(".simulation.yaml") && !name.ends_with(".solver.yaml")
        })
        .count();
    assert_eq!(written, converted);
    assert!(
        out_dir
            .path()
            .join("test/gazebo/force_torque_test2.yaml")
            .is_file(),
        "relative directories are kept, dubious models convert"
    );
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(d) = pending.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = entry.path();
            if p.is_dir() {
                pending.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out
}

/// A ROS description package as it is kept: `.urdf.xacro` robots, a `.xacro` macro library
/// they include and the package's `package.xml` manifest, with an MJCF `.xml` model beside.
#[test]
fn a_description_folder_converts_its_xacro_robots_and_skips_the_manifest_and_macro_libraries() {
    let input = tempfile::tempdir().unwrap();
    let root = input.path();
    std::fs::write(
        root.join("arm.urdf.xacro"),
        "<robot name=\"arm\" xmlns:xacro=\"http://www.ros.org/wiki/xacro\"><xacro:property name=\"m\" value=\"2\"/><link name=\"base\"><inertial><mass value=\"${m}\"/><inertia ixx=\"1\" iyy=\"1\" izz=\"1\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial></link></robot>",
    )
    .unwrap();
    std::fs::copy(fixtures().join("xacro/package.xml"), root.join("package.xml")).unwrap();
    std::fs::write(
        root.join("colors.xacro"),
        "<robot xmlns:xacro=\"http://www.ros.org/wiki/xacro\"><xacro:property name=\"red\" value=\"1 0 0 1\"/></robot>",
    )
    .unwrap();
    std::fs::copy(
        fixtures().join("mjcf/joint_coupling.xml"),
        root.join("pendulum.xml"),
    )
    .unwrap();
    let out_dir = tempfile::tempdir().unwrap();
    let target = out_dir.path().join("out");
    let (i, o) = (root.to_str().unwrap(), target.to_str().unwrap());
    let out = mbconv(&["convert", i, "--to", "sdf", "-o", o, "--no-check"]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    let mut written: Vec<String> = std::fs::read_dir(&target)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    written.sort();
    assert_eq!(written, ["arm.sdf", "pendulum.sdf"], "{err}");
    assert!(err.contains("2 files"), "{err}");
}
