//! End-to-end tests of the `mbconv` binary.
#![allow(clippy::unwrap_used)]

mod common;

use common::{mbconv, stderr};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/ir/double_pendulum.mbir.json")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The `x2y` shortcuts of this build, from the registry's short names.
fn shortcuts() -> Vec<mbconv::Shortcut> {
    mbconv::formats().shortcuts()
}

/// Formats this build reads and writes, from `mbconv formats`.
fn built_formats() -> Vec<String> {
    stdout(&mbconv(&["formats"]))
        .lines()
        .filter(|l| l.contains("read+write"))
        .map(|l| l.split_whitespace().next().unwrap().to_owned())
        .collect()
}

#[test]
fn help_lists_every_command() {
    let out = mbconv(&["--help"]);
    assert!(out.status.success());
    let help = stdout(&out);
    for cmd in [
        "convert", "check", "view", "info", "validate", "formats", "simulate", "dynamics", "bushing",
    ] {
        assert!(help.contains(cmd), "--help does not list {cmd}:\n{help}");
    }
}

/// `mbconv --help` fits in 30 lines and names every registered format; the 56 `x2y` shortcuts
/// are one line that says how they are formed (not listed one by one) and still convert.
#[test]
fn help_is_short_names_the_formats_and_describes_the_shortcuts_in_one_line() {
    let help = stdout(&mbconv(&["--help"]));
    let lines = help.lines().count();
    assert!(lines <= 30, "--help has {lines} lines:\n{help}");
    let one_line = help.split_whitespace().collect::<Vec<_>>().join(" ");
    for format in [
        "Chrono YAML",
        "DART SKEL",
        "Choreonoid Body",
        "Shift JSON",
        "URDF",
        "MJCF",
        "SDFormat",
        "OpenUSD",
        "mbconv IR",
    ] {
        assert!(
            one_line.contains(format),
            "--help does not name {format}:\n{help}"
        );
    }
    assert!(
        one_line.contains("<from>2<to>") && one_line.contains("mbconv formats"),
        "{help}"
    );
    let shortcuts: Vec<String> = shortcuts().into_iter().map(|s| s.name).collect();
    assert_eq!(shortcuts.len(), 8 * 7, "{shortcuts:?}"); // chrono, skel, body, shift, urdf, mjcf, sdf, usd
    let listed: Vec<&String> = shortcuts
        .iter()
        .filter(|name| help.lines().any(|l| l.trim_start().starts_with(name.as_str())))
        .collect();
    assert!(listed.is_empty(), "--help lists shortcuts one by one: {listed:?}");
    // A shortcut is still a command.
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("double_pendulum.xml");
    let out = mbconv(&[
        "json2mjcf",
        example().to_str().unwrap(),
        "-o",
        output.to_str().unwrap(),
        "--no-check",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(std::fs::read_to_string(&output).unwrap().contains("<mujoco"));
}

#[test]
fn every_shortcut_converts_or_names_the_missing_format() {
    let dir = tempfile::tempdir().unwrap();
    let built = built_formats();
    assert!(built.contains(&"mbir".to_owned()));
    for mbconv::Shortcut { name, from, to } in shortcuts() {
        let shortcut = name.as_str();
        let out_path = dir.path().join(format!("{shortcut}.out"));
        // The IR JSON example stands in for the input format.
        let out = mbconv(&[
            shortcut,
            example().to_str().unwrap(),
            "-o",
            out_path.to_str().unwrap(),
        ]);
        if built.iter().any(|f| f == to) {
            assert!(out.status.success(), "{shortcut}: {}", stderr(&out));
            assert!(out_path.exists());
        } else {
            assert_eq!(out.status.code(), Some(2), "{shortcut}: {}", stderr(&out));
            assert!(
                stderr(&out).contains(&format!("the {to} format")),
                "{shortcut}: {}",
                stderr(&out)
            );
            assert!(!out_path.exists(), "{shortcut} left an output file");
        }
        // With a real input of the source format, a missing reader is named too.
        if !built.iter().any(|f| f == from) {
            let input = dir.path().join("model.in");
            std::fs::write(&input, "not a model").unwrap();
            let out = mbconv(&[
                shortcut,
                input.to_str().unwrap(),
                "-o",
                out_path.to_str().unwrap(),
            ]);
            assert_eq!(out.status.code(), Some(2));
            let err = stderr(&out);
            assert!(
                err.contains(&format!("the {from} format")) || err.contains(&format!("the {to} format")),
                "{err}"
            );
        }
    }
}

#[test]
fn convert_ir_to_ir_is_byte_identical_after_one_pass() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.mbir.json");
    let b = dir.path().join("b.mbir.json");
    let out = mbconv(&["convert", example().to_str().unwrap(), "-o", a.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = mbconv(&["convert", a.to_str().unwrap(), "-o", b.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
}

#[test]
fn info_json_has_the_documented_keys() {
    let out = mbconv(&["info", example().to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for key in ["name", "gravity", "bodies", "joints", "dof_total", "loop_count"] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    let body = &v["bodies"][1];
    for key in [
        "name",
        "mass",
        "fixed",
        "position",
        "orientation_wxyz",
        "com_position",
    ] {
        assert!(body.get(key).is_some(), "missing bodies[].{key}");
    }
    let joint = &v["joints"][0];
    for key in ["name", "type", "parent", "child", "dof"] {
        assert!(joint.get(key).is_some(), "missing joints[].{key}");
    }
    assert_eq!(v["dof_total"], 2);
    assert_eq!(v["loop_count"], 0);
    assert_eq!(joint["parent"], "world");
    assert_eq!(joint["type"], "revolute");
    // link2 at the initial state: shoulder 0.5 rad about y moves (1, 0, 0) to (cos 0.5, 0, -sin 0.5).
    let p = body["position"].as_array().unwrap();
    assert!((p[0].as_f64().unwrap() - 0.5f64.cos()).abs() < 1e-15);
    assert!((p[2].as_f64().unwrap() + 0.5f64.sin()).abs() < 1e-15);
}

#[test]
fn syntax_error_names_file_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.mbir.json");
    std::fs::write(&bad, "{\n  \"mbir\": \"1\",\n  \"model\": { \"name\": \"x\", \"bodies\": [ { \"name\": \"b\", \"inertial\": { \"mass\": five } } ] }\n}\n").unwrap();
    for cmd in ["validate", "info"] {
        let out = mbconv(&[cmd, bad.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2));
        let err = stderr(&out);
        assert!(err.contains("bad.mbir.json:3:"), "{err}");
    }
    let out = mbconv(&[
        "convert",
        bad.to_str().unwrap(),
        "-o",
        dir.path().join("o.mbir.json").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!dir.path().join("o.mbir.json").exists());
}

#[test]
fn unknown_field_is_an_error_with_position() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("typo.mbir.json");
    std::fs::write(
        &bad,
        "{\"mbir\": \"1\", \"model\": {\"name\": \"x\", \"bodys\": []}}",
    )
    .unwrap();
    let out = mbconv(&["validate", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("unknown field `bodys`"), "{}", stderr(&out));
    assert!(stderr(&out).contains("typo.mbir.json:1:"), "{}", stderr(&out));
}

#[test]
fn invalid_model_fails_validation_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(example())
        .unwrap()
        .replacen("\"mass\": 1.0", "\"mass\": -1.0", 1);
    let bad = dir.path().join("negative.mbir.json");
    std::fs::write(&bad, text).unwrap();
    let out = mbconv(&["validate", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("mass.negative"), "{}", stderr(&out));
    let target = dir.path().join("out.mbir.json");
    let out = mbconv(&["convert", bad.to_str().unwrap(), "-o", target.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!target.exists());
    assert!(
        std::fs::read_dir(dir.path()).unwrap().all(|e| !e
            .unwrap()
            .file_name()
            .to_string_lossy()
            .ends_with(".tmp"))
    );
}

#[test]
fn validate_accepts_the_example() {
    let out = mbconv(&["validate", example().to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = mbconv(&["validate", example().to_str().unwrap(), "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["findings"].as_array().unwrap().is_empty());
}

#[test]
fn refuses_to_overwrite_the_input() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("m.mbir.json");
    std::fs::copy(example(), &input).unwrap();
    let out = mbconv(&["convert", input.to_str().unwrap(), "-o", input.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("refusing to overwrite"));
}

#[test]
fn an_existing_output_is_kept_without_force() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("m.mbir.json");
    std::fs::copy(example(), &input).unwrap();
    let output = dir.path().join("m.skel");
    std::fs::write(&output, "keep me").unwrap();
    let (i, o) = (input.to_str().unwrap(), output.to_str().unwrap());
    for args in [
        vec!["convert", i, "-o", o, "--no-check"],
        vec!["json2skel", i, "-o", o, "--no-check"],
    ] {
        let out = mbconv(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("already exists; pass --force"),
            "{}",
            stderr(&out)
        );
        assert_eq!(std::fs::read_to_string(&output).unwrap(), "keep me");
    }
    let trajectory = dir.path().join("t.csv");
    std::fs::write(&trajectory, "keep me").unwrap();
    let out = mbconv(&[
        "simulate",
        i,
        "--duration",
        "0.01",
        "-o",
        trajectory.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&trajectory).unwrap(), "keep me");

    let out = mbconv(&["convert", i, "-o", o, "--no-check", "--force"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(std::fs::read_to_string(&output).unwrap().contains("<skel"));
    // No temporary file is left beside the output.
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.ends_with(".tmp")), "{names:?}");
}

#[test]
fn stdin_to_stdout() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mbconv"))
        .args(["convert", "-", "--from", "mbir", "--to", "mbir"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(&std::fs::read(example()).unwrap())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).starts_with("{\n  \"mbir\": \"1\""));
}

#[test]
fn unknown_format_and_missing_output_format_are_usage_errors() {
    let out = mbconv(&["convert", example().to_str().unwrap(), "--to", "fbx"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("unknown format \"fbx\""));
    let out = mbconv(&["convert", example().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("cannot tell the output format"));
    let out = mbconv(&["frobnicate"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn dynamics_json_has_the_documented_keys() {
    let out = mbconv(&["dynamics", example().to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["kinetic_energy"].is_number() && v["potential_energy"].is_number());
    let body = &v["bodies"][0];
    for key in [
        "name",
        "position",
        "orientation_wxyz",
        "linear_velocity",
        "angular_velocity",
        "linear_acceleration",
        "angular_acceleration",
    ] {
        assert!(body.get(key).is_some(), "missing bodies[].{key}");
    }
    // At rest, gravity only pulls the links down: potential energy is m g z of both COMs.
    let pe = v["potential_energy"].as_f64().unwrap();
    let z1 = -0.5 * 0.5f64.sin();
    let z2 = -0.5f64.sin() - 0.5 * (0.25f64).sin();
    assert!((pe - 9.81 * (z1 + z2)).abs() < 1e-12, "{pe}");
}

#[test]
fn simulate_writes_the_documented_csv() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("traj.csv");
    let out = mbconv(&[
        "simulate",
        example().to_str().unwrap(),
        "--duration",
        "0.01",
        "--dt",
        "0.001",
        "--integrator",
        "rk4",
        "--energy",
        "-o",
        csv.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next().unwrap(),
        "t,link1.x,link1.y,link1.z,link1.qw,link1.qx,link1.qy,link1.qz,\
         link2.x,link2.y,link2.z,link2.qw,link2.qx,link2.qy,link2.qz,kinetic,potential"
    );
    assert_eq!(lines.count(), 11);
    for integrator in ["semi-implicit-euler", "dopri5"] {
        let out = mbconv(&[
            "simulate",
            example().to_str().unwrap(),
            "--duration",
            "0.01",
            "--integrator",
            integrator,
            "--json",
        ]);
        assert!(out.status.success(), "{integrator}: {}", stderr(&out));
        let _: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    }
}

/// `simulate -o` writes CSV a CSV reader reads for any body name (DART names bodies like
/// `sphere skeleton - cog offset (0.05, 0.0, 0.0)/sphere link 1`), with the same numbers, bit
/// for bit, as `--json`.
#[test]
fn simulate_csv_reads_back_for_any_body_name() {
    let names = [
        "sphere skeleton - cog offset (0.05, 0.0, 0.0)/sphere link 1",
        "a \"quoted\",\nmulti-line link",
    ];
    let mut text = std::fs::read_to_string(example()).unwrap();
    for (plain, name) in ["\"link1\"", "\"link2\""].iter().zip(names) {
        text = text.replace(plain, &serde_json::to_string(name).unwrap());
    }
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("named.mbir.json");
    std::fs::write(&model, text).unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec![
            "simulate",
            model.to_str().unwrap(),
            "--duration",
            "0.01",
            "--dt",
            "0.001",
            "--integrator",
            "rk4",
            "--energy",
        ];
        args.extend(extra);
        let out = mbconv(&args);
        assert!(out.status.success(), "{}", stderr(&out));
        out
    };
    let csv_path = dir.path().join("traj.csv");
    run(&["-o", csv_path.to_str().unwrap()]);
    let json: serde_json::Value = serde_json::from_slice(&run(&["--json"]).stdout).unwrap();
    let mut reader = csv::Reader::from_path(&csv_path).unwrap();
    let header: Vec<String> = reader.headers().unwrap().iter().map(str::to_owned).collect();
    let mut expected = vec!["t".to_owned()];
    for name in names {
        for c in ["x", "y", "z", "qw", "qx", "qy", "qz"] {
            expected.push(format!("{name}.{c}"));
        }
    }
    expected.extend(["kinetic".to_owned(), "potential".to_owned()]);
    assert_eq!(header, expected);
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    let times = json["t"].as_array().unwrap();
    assert_eq!(rows.len(), times.len());
    assert_eq!(rows.len(), 11);
    for (k, row) in rows.iter().enumerate() {
        let mut want = vec![times[k].as_f64().unwrap()];
        for pose in json["poses"][k].as_array().unwrap() {
            want.extend(pose.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()));
        }
        want.push(json["kinetic"][k].as_f64().unwrap());
        want.push(json["potential"][k].as_f64().unwrap());
        let got: Vec<u64> = row.iter().map(|f| f.parse::<f64>().unwrap().to_bits()).collect();
        let want: Vec<u64> = want.iter().map(|x| x.to_bits()).collect();
        assert_eq!(got, want, "sample {k}");
    }
}

#[test]
fn bushing_design_prints_omega_stiffness_and_damping() {
    let out = mbconv(&[
        "bushing",
        "design",
        "--mass",
        "2",
        "--settling-time",
        "0.05",
        "--json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let (w, k, c) = (
        v["omega_n"].as_f64().unwrap(),
        v["stiffness"].as_f64().unwrap(),
        v["damping"].as_f64().unwrap(),
    );
    // Critically damped: k = m ωn², c = 2 m ωn.
    assert!((k - 2.0 * w * w).abs() < 1e-9 * k);
    assert!((c - 4.0 * w).abs() < 1e-9 * c);
    let out = mbconv(&["bushing", "design", "--json"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn bushing_replace_turns_a_joint_into_a_force_element() {
    let dir = tempfile::tempdir().unwrap();
    let soft = dir.path().join("soft.mbir.json");
    let out = mbconv(&[
        "bushing",
        "replace",
        example().to_str().unwrap(),
        "--joint",
        "elbow",
        "-o",
        soft.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = mbconv(&["info", soft.to_str().unwrap(), "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["joints"].as_array().unwrap().len(), 1);
    let out = mbconv(&[
        "bushing",
        "replace",
        example().to_str().unwrap(),
        "--joint",
        "nope",
    ]);
    assert_eq!(out.status.code(), Some(2));
}

/// The extension decides when one format claims it; `.xml` (URDF, MJCF, SDFormat, and files
/// that are no model) is decided by the content; an output extension several formats write
/// names none of them.
#[test]
fn formats_are_detected_by_extension_then_content() {
    let dir = tempfile::tempdir().unwrap();
    let robot = r#"<robot name="r"><link name="a"/></robot>"#;
    // A `.skel` file with a <robot> root is a broken SKEL file, not URDF.
    let skel = dir.path().join("robot.skel");
    std::fs::write(&skel, robot).unwrap();
    let out = mbconv(&["convert", skel.to_str().unwrap(), "--to", "mbir", "-o", "-"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(!stderr(&out).contains("urdf"), "{}", stderr(&out));
    // The same text in `.xml` is URDF.
    let xml = dir.path().join("robot.xml");
    std::fs::write(&xml, robot).unwrap();
    let out = mbconv(&["convert", xml.to_str().unwrap(), "--to", "mbir", "-o", "-"]);
    assert!(out.status.success(), "{}", stderr(&out));
    // An `.xml` file no format recognises is not taken for any of them.
    let other = dir.path().join("other.xml");
    std::fs::write(&other, "<catalog/>").unwrap();
    let out = mbconv(&["convert", other.to_str().unwrap(), "--to", "mbir", "-o", "-"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("cannot tell the format"),
        "{}",
        stderr(&out)
    );
}

/// `--up z` turns a y-up model for any target: the written file's gravity points down -z,
/// the report gives the turn, and the check after the conversion compares in the original
/// world (exact through MJCF); `mbconv check --up` does the same for every target.
#[test]
fn up_turns_the_model_and_the_check_compares_in_the_original_world() {
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/skel/joint_universal_ball.skel");
    let dir = tempfile::tempdir().unwrap();
    let out_path = dir.path().join("turned.xml");
    let out = mbconv(&[
        "convert",
        model.to_str().unwrap(),
        "--to",
        "mjcf",
        "--up",
        "z",
        "-v",
        "-o",
        out_path.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = std::fs::read_to_string(&out_path).unwrap();
    assert!(text.contains("gravity=\"0 0 -9.81\""), "{text}");
    let err = stderr(&out);
    assert!(err.contains("mjcf.reoriented"), "{err}");
    assert!(err.contains("check: exact"), "{err}");

    let out = mbconv(&[
        "check",
        model.to_str().unwrap(),
        "--via",
        "mbir,mjcf",
        "--up",
        "z",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let table = stdout(&out);
    assert!(
        table
            .lines()
            .filter(|l| l.ends_with("exact") || l.contains(" exact within "))
            .count()
            == 2,
        "{table}"
    );

    let out = mbconv(&[
        "convert",
        model.to_str().unwrap(),
        "--to",
        "mjcf",
        "--write-option",
        "up=w",
        "-o",
        dir.path().join("refused.xml").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("expected x | y | z"), "{}", stderr(&out));
}
