//! One policy for what stops a conversion (`docs/errors.md`), the same in every command: a
//! model that cannot mean anything exits 2 and writes nothing; a physically dubious one
//! converts (exit 0) and `--strict` refuses it (exit 1). Small Chrono models, one per category,
//! and the real corpus files that motivated the policy.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::Output;

mod common;
use common::{mbconv, stderr};

/// A Chrono model: a pendulum `bob` on a revolute joint, with `body` as the bob's extra lines
/// and `joint` as the joint's.
fn chrono_model(bob: &str, joint: &str) -> String {
    format!(
        "chrono-version: 10.0
model:
  name: policy
  bodies:
    - name: ground
      location: [0, 0, 0]
      fixed: true
    - name: bob
      location: [1, 0, 0]
{bob}
  joints:
    - name: hinge
      type: REVOLUTE
      body1: ground
{joint}
      location: [0, 0, 0]
"
    )
}

const GOOD_BOB: &str = "      mass: 1\n      inertia:\n        moments: [0.1, 0.1, 0.1]";
const GOOD_JOINT: &str = "      body2: bob\n      axis: [0, 1, 0]";

/// Models that cannot mean anything: name, text.
fn invalid_models() -> Vec<(&'static str, String)> {
    vec![
        ("syntax error", "chrono-version: 10.0\nmodel: [\n".to_owned()),
        (
            "NaN mass",
            chrono_model(
                "      mass: .nan\n      inertia:\n        moments: [0.1, 0.1, 0.1]",
                GOOD_JOINT,
            ),
        ),
        (
            "negative mass",
            chrono_model(
                "      mass: -1\n      inertia:\n        moments: [0.1, 0.1, 0.1]",
                GOOD_JOINT,
            ),
        ),
        (
            "unresolvable reference",
            chrono_model(GOOD_BOB, "      body2: ghost\n      axis: [0, 1, 0]"),
        ),
        (
            "zero axis",
            chrono_model(GOOD_BOB, "      body2: bob\n      axis: [0, 0, 0]"),
        ),
        (
            "duplicate names",
            chrono_model(
                &format!("{GOOD_BOB}\n    - name: bob\n      location: [2, 0, 0]\n{GOOD_BOB}"),
                GOOD_JOINT,
            ),
        ),
    ]
}

/// Models the source simulator accepts but that are physically dubious: name, text, the code
/// of the warning.
fn dubious_models() -> Vec<(&'static str, String, &'static str)> {
    vec![
        (
            // Pinocchio and Drake read such a tensor; the hinge turns about a positive moment.
            "negative principal moment",
            chrono_model(
                "      mass: 1\n      inertia:\n        moments: [1, 1, -0.5]",
                GOOD_JOINT,
            ),
            "inertia.not_psd",
        ),
        (
            "flat inertia",
            chrono_model(
                "      mass: 1\n      inertia:\n        moments: [0, 0, 0.3]",
                GOOD_JOINT,
            ),
            "inertia.triangle",
        ),
        (
            "triangle inequality",
            chrono_model(
                "      mass: 1\n      inertia:\n        moments: [0.1, 0.1, 0.5]",
                GOOD_JOINT,
            ),
            "inertia.triangle",
        ),
    ]
}

/// Every command on `model`, each with its output (if any) in `dir`: (command, arguments,
/// output file it would write).
fn commands(model: &Path, dir: &Path) -> Vec<(&'static str, Vec<String>, Option<PathBuf>)> {
    let m = model.to_str().unwrap().to_owned();
    let out = |name: &str| dir.join(name);
    let s = |p: &Path| p.to_str().unwrap().to_owned();
    let converted = out("converted.skel");
    let shortcut = out("shortcut.skel");
    let trajectory = out("trajectory.csv");
    vec![
        ("info", vec!["info".into(), m.clone()], None),
        ("validate", vec!["validate".into(), m.clone()], None),
        (
            "convert",
            vec![
                "convert".into(),
                m.clone(),
                "-o".into(),
                s(&converted),
                "--no-check".into(),
            ],
            Some(converted),
        ),
        (
            "yaml2skel",
            vec![
                "yaml2skel".into(),
                m.clone(),
                "-o".into(),
                s(&shortcut),
                "--no-check".into(),
            ],
            Some(shortcut),
        ),
        (
            "simulate",
            vec![
                "simulate".into(),
                m.clone(),
                "--duration".into(),
                "0.01".into(),
                "-o".into(),
                s(&trajectory),
            ],
            Some(trajectory),
        ),
        ("dynamics", vec!["dynamics".into(), m.clone()], None),
        (
            "check",
            vec![
                "check".into(),
                m.clone(),
                "--via".into(),
                "mbir".into(),
                "--duration".into(),
                "0.01".into(),
            ],
            None,
        ),
    ]
}

fn run(args: &[String]) -> Output {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    mbconv(&args)
}

#[test]
fn a_model_that_cannot_mean_anything_exits_2_in_every_command_and_writes_nothing() {
    for (what, text) in invalid_models() {
        let dir = tempfile::tempdir().unwrap();
        let model = dir.path().join("model.yaml");
        std::fs::write(&model, &text).unwrap();
        for (command, args, output) in commands(&model, dir.path()) {
            let out = run(&args);
            assert_eq!(out.status.code(), Some(2), "{what}: {command}: {}", stderr(&out));
            assert!(!stderr(&out).contains("panicked"), "{what}: {command}");
            if let Some(output) = output {
                assert!(!output.exists(), "{what}: {command} wrote {}", output.display());
            }
        }
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n != "model.yaml")
            .collect();
        assert!(left.is_empty(), "{what}: files left: {left:?}");
    }
}

#[test]
fn a_dubious_model_converts_with_a_warning_and_strict_refuses_it() {
    for (what, text, code) in dubious_models() {
        let dir = tempfile::tempdir().unwrap();
        let model = dir.path().join("model.yaml");
        std::fs::write(&model, &text).unwrap();
        for (command, args, output) in commands(&model, dir.path()) {
            let out = run(&args);
            assert_eq!(out.status.code(), Some(0), "{what}: {command}: {}", stderr(&out));
            if command != "check" {
                assert!(
                    stderr(&out).contains(&format!("warning[{code}]")),
                    "{what}: {command}: {}",
                    stderr(&out)
                );
            }
            if let Some(output) = &output {
                assert!(output.exists(), "{what}: {command} wrote nothing");
                std::fs::remove_file(output).unwrap();
            }
            let mut strict = args.clone();
            strict.push("--strict".into());
            let out = run(&strict);
            assert_eq!(
                out.status.code(),
                Some(1),
                "{what}: {command} --strict: {}",
                stderr(&out)
            );
            assert!(stderr(&out).contains(code), "{what}: {command} --strict");
            if let Some(output) = output {
                assert!(!output.exists(), "{what}: {command} --strict wrote a file");
            }
        }
    }
}

/// The real files of issue 14: DART loads them, so they convert with warnings, and `--strict`
/// refuses them.
#[test]
fn real_dubious_files_convert_with_warnings_and_strict_refuses_them() {
    let cases = [
        ("skel/test/gazebo/force_torque_test2.skel", "inertia.triangle"),
        ("skel/kima/kima_human_left_leg.skel", "shape.size"),
    ];
    for (file, code) in cases {
        let Some(path) = mbconv_test_support::corpus_file(file) else {
            continue;
        };
        let dir = tempfile::tempdir().unwrap();
        let output = dir.path().join("out.yaml");
        let (p, o) = (path.to_str().unwrap(), output.to_str().unwrap());
        let out = mbconv(&["convert", p, "--to", "chrono", "-o", o, "--no-check"]);
        assert_eq!(out.status.code(), Some(0), "{file}: {}", stderr(&out));
        assert!(
            stderr(&out).contains(&format!("warning[{code}]")),
            "{file}: {}",
            stderr(&out)
        );
        assert!(output.exists());
        std::fs::remove_file(&output).unwrap();
        let out = mbconv(&["convert", p, "--to", "chrono", "-o", o, "--no-check", "--strict"]);
        assert_eq!(out.status.code(), Some(1), "{file}: {}", stderr(&out));
        assert!(!output.exists(), "{file}: --strict wrote a file");
        let out = mbconv(&["info", p]);
        assert_eq!(out.status.code(), Some(0), "{file}: {}", stderr(&out));
        let out = mbconv(&["validate", p, "--strict"]);
        assert_eq!(out.status.code(), Some(1), "{file}: {}", stderr(&out));
    }
}

/// A number in a message reads as a number, not 35 digits.
#[test]
fn messages_print_numbers_readably() {
    let Some(path) = mbconv_test_support::corpus_file("skel/test/gazebo/force_torque_test2.skel") else {
        return;
    };
    let out = mbconv(&["validate", path.to_str().unwrap()]);
    let err = stderr(&out);
    assert!(
        err.contains("-2.2204460492503132e-17 + 0 < 0.30000000000000004"),
        "{err}"
    );
    assert!(!err.contains("0.0000000000000000222"), "{err}");
}

/// A Chrono model read through its simulation file: the model's findings name the model file
/// with the model's line numbers; the simulation file's name its own.
#[test]
fn findings_name_the_file_their_line_belongs_to() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("model.yaml");
    std::fs::write(
        &model,
        chrono_model(
            "      mass: 1\n      inertia:\n        moments: [0, 0, 0.3]",
            GOOD_JOINT,
        ),
    )
    .unwrap();
    let sim = dir.path().join("sim.yaml");
    std::fs::write(
        &sim,
        "chrono-version: 10.0\ntype: MBS\nmodel: model.yaml\nsimulation:\n  end_time: 1\n  gravity: [0, 0, -9.81]\n",
    )
    .unwrap();
    let bob_line = chrono_model(GOOD_BOB, GOOD_JOINT)
        .lines()
        .position(|l| l.contains("name: bob"))
        .unwrap()
        + 1;
    let expected = format!("model.yaml:{bob_line}:");
    let (m, s) = (model.to_str().unwrap(), sim.to_str().unwrap());
    let sim_option = format!("sim={s}");
    let converted = dir.path().join("out.skel");
    let o = converted.to_str().unwrap();
    // `-v`: every finding, notes included (by default notes are only counted).
    for args in [
        vec!["validate", s],
        vec!["info", s, "-v"],
        vec![
            "convert",
            m,
            "--read-option",
            &sim_option,
            "-o",
            o,
            "--no-check",
            "--force",
            "-v",
        ],
        vec!["convert", s, "-o", o, "--no-check", "--force", "-v"],
    ] {
        let out = mbconv(&args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
        let line = err
            .lines()
            .find(|l| l.contains("warning[inertia.triangle]"))
            .unwrap_or_else(|| panic!("{args:?}: {err}"));
        assert!(line.contains(&expected), "{args:?}: {line}");
        assert!(!line.contains("sim.yaml"), "{args:?}: {line}");
        // The simulation file's own finding names it.
        let no_solver = err
            .lines()
            .find(|l| l.contains("chrono.no_solver"))
            .unwrap_or_else(|| panic!("{args:?}: {err}"));
        assert!(no_solver.contains("sim.yaml:"), "{args:?}: {no_solver}");
    }
}

/// The inputs of `fixtures/dubious/`: an inertia with a negative principal moment in each
/// format that can say it. Their loaders read them (urdfdom, Pinocchio and Drake for URDF), so
/// they convert with a warning that gives the moment's size, and `--strict` refuses them.
#[test]
fn indefinite_inertias_convert_with_a_warning_giving_the_moment() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/dubious");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(files.len() >= 4, "{files:?}");
    for file in files {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let tmp = tempfile::tempdir().unwrap();
        let output = tmp.path().join("out.skel");
        let (p, o) = (file.to_str().unwrap(), output.to_str().unwrap());
        let out = mbconv(&["convert", p, "--to", "skel", "-o", o, "--no-check"]);
        assert_eq!(out.status.code(), Some(0), "{name}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(
            err.contains("warning[inertia.not_psd]") && err.contains("negative principal moment of -"),
            "{name}: {err}"
        );
        assert!(output.exists(), "{name}: nothing written");
        std::fs::remove_file(&output).unwrap();
        let out = mbconv(&["convert", p, "--to", "skel", "-o", o, "--no-check", "--strict"]);
        assert_eq!(out.status.code(), Some(1), "{name}: {}", stderr(&out));
        assert!(!output.exists(), "{name}: --strict wrote a file");
    }
}

/// When the negative moment makes what a joint moves negative, the model is read and written
/// (its loaders read it), and the check says `not compared` with the body and its moment rather
/// than a motion no body can have (Chrono's arm turns about its negative moment): the
/// equations of motion have no solution to compare, which is not a broken proof (exit 0).
#[test]
fn an_indefinite_inertia_the_solver_cannot_move_is_not_compared() {
    let file =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/dubious/chrono_indefinite_inertia.yaml");
    let tmp = tempfile::tempdir().unwrap();
    let output = tmp.path().join("out.skel");
    let out = mbconv(&[
        "convert",
        file.to_str().unwrap(),
        "--to",
        "skel",
        "-o",
        output.to_str().unwrap(),
    ]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(output.exists());
    assert!(err.contains("check: not compared"), "{err}");
    assert!(
        err.contains("body \"arm\" has an inertia with a negative principal moment (-1 kg m²)"),
        "{err}"
    );
    assert!(err.contains("not positive"), "{err}");
}
