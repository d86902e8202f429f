//! SKEL files that mbconv writes from the fixtures of the other formats, checked against DART.
//!
//! For every Chrono YAML model fixture (`fixtures/chrono/*.yaml`) and the IR example
//! (`fixtures/ir/double_pendulum.mbir.json`) this test converts the fixture to SKEL with the
//! `mbconv` binary and checks the written file against what DART 6.20 built from the same bytes
//! (golden data in `tests/golden/dart_written/`, made by `oracles/dart/dart_golden.py`; see the
//! README there):
//!
//! * the written SKEL is byte-identical to the copy DART loaded (`golden/dart_written/skel/`);
//! * DART loaded it (no `load_error`);
//! * every body's world pose at the initial state and mass from `mbconv info OUT.skel --json`
//!   match DART's to 1e-9 (quaternions compared up to sign), and the body velocities from
//!   `mbconv dynamics OUT.skel --json` match DART's;
//! * the same poses and masses match `mbconv info FIXTURE --json` of the original fixture, so the
//!   poses survived the conversion; every difference between the fixture and the SKEL model
//!   (implicit weld/free joints, dropped loop-closing joints, dropped body velocities, default
//!   gravity) must be the one the writer's export report announces.
//!
//! `fixtures/chrono/solver.yaml` is a Chrono solver file, not a model: the Chrono reader refuses
//! it, and the test checks that it does.
#![allow(clippy::unwrap_used)]

mod common;

use common::{mbconv, stderr_unwrapped};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

/// Absolute tolerance on positions, quaternion components, masses and velocities.
const TOLERANCE: f64 = 1e-9;

/// Chrono fixtures that are not models (the Chrono reader refuses them), with the reason.
const CHRONO_NOT_MODELS: &[(&str, &str)] = &[("solver.yaml", "missing required key `model`")];

/// The IR fixtures converted besides the Chrono ones.
const IR_FIXTURES: &[&str] = &["double_pendulum.mbir.json"];

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Where the test writes its SKEL files (also where the golden data was made from):
/// `target/tmp/dart_written/<prefix>/` of the workspace, whatever `CARGO_TARGET_DIR` says (the
/// writer makes mesh paths relative to the output, so a target directory elsewhere, as in a
/// clone built with `CARGO_TARGET_DIR=/tmp/x`, would change the bytes written).
fn written_dir(prefix: &str) -> PathBuf {
    let dir = workspace().join("target/tmp").join("dart_written").join(prefix);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/dart_written")
}

/// Runs `mbconv <command> <model> --json` and parses its standard output.
fn json_of(command: &str, model: &Path) -> Value {
    let out = mbconv(&[command, model.to_str().unwrap(), "--json"]);
    assert!(
        out.status.success(),
        "mbconv {command} {} failed: {}",
        model.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// One finding of the writer's export report, as printed on standard error by `convert`.
#[derive(Debug)]
struct Finding {
    code: String,
    path: String,
    message: String,
}

/// The SKEL writer's `skel.*` findings in `convert`'s standard error: lines
/// `FILE: severity[skel.code] PATH: message`.
fn export_findings(stderr: &str) -> Vec<Finding> {
    stderr
        .lines()
        .filter_map(|line| {
            let start = line.find("[skel.")?;
            let rest = &line[start + 1..];
            let end = rest.find(']')?;
            let code = rest[..end].to_owned();
            let (path, message) = rest[end + 1..].trim_start().split_once(": ")?;
            Some(Finding {
                code,
                path: path.to_owned(),
                message: message.to_owned(),
            })
        })
        .collect()
}

/// The item name in an IR path such as `bodies["ground"]` or `joints["lock"].dofs[0]`.
fn item_name<'a>(path: &'a str, collection: &str) -> Option<&'a str> {
    let rest = path.strip_prefix(collection)?.strip_prefix("[\"")?;
    Some(&rest[..rest.find("\"]")?])
}

/// The first `"quoted"` word after `marker` in `text`.
fn quoted_after<'a>(text: &'a str, marker: &str) -> Option<&'a str> {
    let rest = &text[text.find(marker)? + marker.len()..];
    let rest = &rest[rest.find('"')? + 1..];
    Some(&rest[..rest.find('"')?])
}

fn numbers(value: &Value) -> Vec<f64> {
    value
        .as_array()
        .unwrap_or_else(|| panic!("expected an array of numbers, found {value}"))
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

fn assert_close(what: &str, actual: &[f64], expected: &[f64]) {
    assert_eq!(actual.len(), expected.len(), "{what}: lengths differ");
    let error = actual
        .iter()
        .zip(expected)
        .map(|(a, e)| (a - e).abs())
        .fold(0.0, f64::max);
    assert!(
        error <= TOLERANCE,
        "{what}: {actual:?} vs {expected:?} (error {error:e})"
    );
}

/// Quaternions `[w, x, y, z]` compared up to sign (q and -q are the same rotation).
fn assert_same_rotation(what: &str, actual: &[f64], expected: &[f64]) {
    let negated: Vec<f64> = expected.iter().map(|x| -x).collect();
    let distance = |other: &[f64]| {
        actual
            .iter()
            .zip(other)
            .map(|(a, e)| (a - e).abs())
            .fold(0.0, f64::max)
    };
    let error = distance(expected).min(distance(&negated));
    assert!(
        error <= TOLERANCE,
        "{what}: quaternion {actual:?} vs {expected:?} (error {error:e}, sign-insensitive)"
    );
}

/// The unit quaternion `[w, x, y, z]` of a rotation matrix (Shepperd's method: the largest of
/// the four candidate components is computed first, so the result is accurate to rounding).
fn quaternion_of(r: [[f64; 3]; 3]) -> [f64; 4] {
    let trace = r[0][0] + r[1][1] + r[2][2];
    let candidates = [trace, r[0][0], r[1][1], r[2][2]];
    let largest = (0..4)
        .max_by(|&a, &b| candidates[a].total_cmp(&candidates[b]))
        .unwrap();
    match largest {
        0 => {
            let s = 2.0 * (1.0 + trace).sqrt();
            [
                s / 4.0,
                (r[2][1] - r[1][2]) / s,
                (r[0][2] - r[2][0]) / s,
                (r[1][0] - r[0][1]) / s,
            ]
        }
        1 => {
            let s = 2.0 * (1.0 + r[0][0] - r[1][1] - r[2][2]).sqrt();
            [
                (r[2][1] - r[1][2]) / s,
                s / 4.0,
                (r[0][1] + r[1][0]) / s,
                (r[0][2] + r[2][0]) / s,
            ]
        }
        2 => {
            let s = 2.0 * (1.0 - r[0][0] + r[1][1] - r[2][2]).sqrt();
            [
                (r[0][2] - r[2][0]) / s,
                (r[0][1] + r[1][0]) / s,
                s / 4.0,
                (r[1][2] + r[2][1]) / s,
            ]
        }
        _ => {
            let s = 2.0 * (1.0 - r[0][0] - r[1][1] + r[2][2]).sqrt();
            [
                (r[1][0] - r[0][1]) / s,
                (r[0][2] + r[2][0]) / s,
                (r[1][2] + r[2][1]) / s,
                s / 4.0,
            ]
        }
    }
}

/// Position and orientation `[w, x, y, z]` of a DART `world_transform` (4x4, row major).
fn dart_pose(world_transform: &Value) -> ([f64; 3], [f64; 4]) {
    let rows: Vec<Vec<f64>> = world_transform.as_array().unwrap().iter().map(numbers).collect();
    assert_eq!(rows.len(), 4, "world_transform has 4 rows");
    assert_close("world_transform bottom row", &rows[3], &[0.0, 0.0, 0.0, 1.0]);
    let rotation: [[f64; 3]; 3] = std::array::from_fn(|i| std::array::from_fn(|j| rows[i][j]));
    ([rows[0][3], rows[1][3], rows[2][3]], quaternion_of(rotation))
}

/// DART's joint type name for an IR joint kind name, for the kinds the writer emits.
fn dart_joint_type(ir_type: &str) -> &'static str {
    match ir_type {
        "fixed" => "WeldJoint",
        "revolute" => "RevoluteJoint",
        "prismatic" => "PrismaticJoint",
        "screw" => "ScrewJoint",
        "universal" => "UniversalJoint",
        "spherical" => "BallJoint",
        "euler" => "EulerJoint",
        "translational" => "TranslationalJoint",
        "planar" => "PlanarJoint",
        "free" => "FreeJoint",
        other => panic!("the SKEL writer emits no joint of kind {other}"),
    }
}

/// Items of a JSON array keyed by their `name` (names must be unique).
fn by_name<'a>(items: impl IntoIterator<Item = &'a Value>, what: &str) -> BTreeMap<String, &'a Value> {
    let mut map = BTreeMap::new();
    for item in items {
        let name = item["name"].as_str().unwrap().to_owned();
        assert!(map.insert(name.clone(), item).is_none(), "{what}: {name} twice");
    }
    map
}

/// What DART built: all bodies and joints of all skeletons, by name.
struct DartWorld<'a> {
    record: &'a Value,
    bodies: BTreeMap<String, &'a Value>,
    joints: BTreeMap<String, &'a Value>,
}

impl<'a> DartWorld<'a> {
    fn new(record: &'a Value, what: &str) -> Self {
        assert!(
            record.get("load_error").is_none(),
            "{what}: DART did not load the written SKEL: {}",
            record["load_error"]
        );
        assert_eq!(record["entry"], "readWorld", "{what}: loaded as a world");
        let skeletons = record["skeletons"].as_array().unwrap();
        for skeleton in skeletons {
            // Bodies outside skeleton groups: one skeleton per tree, named after its root.
            assert_eq!(
                skeleton["name"], skeleton["bodies"][0]["name"],
                "{what}: skeleton named after its root body"
            );
        }
        DartWorld {
            record,
            bodies: by_name(
                skeletons.iter().flat_map(|s| s["bodies"].as_array().unwrap()),
                what,
            ),
            joints: by_name(
                skeletons.iter().flat_map(|s| s["joints"].as_array().unwrap()),
                what,
            ),
        }
    }
}

/// Converts one fixture and checks the SKEL file against DART and against the fixture.
/// `prefix` is the golden-name prefix (`chrono`, `ir`), `file` the fixture's file name.
fn check_fixture(prefix: &str, file: &str) {
    let fixture = workspace().join("fixtures").join(prefix).join(file);
    let stem = file.split('.').next().unwrap();
    let what = format!("{prefix}/{file}");

    // Convert with the binary into `target/tmp/dart_written/<prefix>/`: a fixed place inside the
    // workspace, so the mesh paths the writer makes relative to the output are the same on
    // every machine (and match the files DART loaded).
    let dir = written_dir(prefix);
    let written = dir.join(format!("{stem}.skel"));
    let convert = mbconv(&[
        "convert",
        fixture.to_str().unwrap(),
        "-o",
        written.to_str().unwrap(),
        "--force", // the place persists from run to run
        "-v",      // every finding on its own line, notes included
    ]);
    let stderr = String::from_utf8_lossy(&convert.stderr).into_owned();
    assert!(convert.status.success(), "{what}: conversion failed: {stderr}");
    let findings = export_findings(&stderr);

    // The bytes DART loaded.
    let golden_skel = golden_dir()
        .join("skel")
        .join(prefix)
        .join(format!("{stem}.skel"));
    assert!(
        std::fs::read(&written).unwrap() == std::fs::read(&golden_skel).unwrap(),
        "{what}: the written SKEL differs from {} (the file the DART golden data was made \
         from): regenerate the golden data (tests/golden/dart_written/README.md)",
        golden_skel.display()
    );
    let golden_json = golden_dir().join(format!("{prefix}__{stem}.skel.json"));
    let record: Value = serde_json::from_str(&std::fs::read_to_string(&golden_json).unwrap()).unwrap();
    assert_eq!(record["file"], format!("{stem}.skel"), "{what}: golden record");
    let dart = DartWorld::new(&record, &what);

    let skel_info = json_of("info", &written);
    let skel_dynamics = json_of("dynamics", &written);
    let fixture_info = json_of("info", &fixture);

    check_bodies(&what, &dart, &skel_info, &fixture_info);
    check_velocities(&what, &dart, &skel_dynamics, &findings);
    check_joints(&what, &dart, &skel_info, &fixture_info, &findings);
    check_physics(&what, &dart, &skel_info, &fixture_info, &findings);
}

/// Poses and masses: SKEL read back by mbconv vs DART, and vs the original fixture.
fn check_bodies(what: &str, dart: &DartWorld, skel_info: &Value, fixture_info: &Value) {
    let skel_bodies = by_name(skel_info["bodies"].as_array().unwrap(), what);
    let fixture_bodies = by_name(fixture_info["bodies"].as_array().unwrap(), what);
    let names = |m: &BTreeMap<String, &Value>| m.keys().cloned().collect::<BTreeSet<_>>();
    assert_eq!(
        names(&skel_bodies),
        names(&dart.bodies),
        "{what}: bodies (mbconv vs DART)"
    );
    assert_eq!(
        names(&skel_bodies),
        names(&fixture_bodies),
        "{what}: bodies (SKEL vs fixture)"
    );
    for (name, skel) in &skel_bodies {
        let at = format!("{what}: body {name}");
        let (dart_position, dart_rotation) = dart_pose(&dart.bodies[name]["world_transform"]);
        let position = numbers(&skel["position"]);
        let rotation = numbers(&skel["orientation_wxyz"]);
        let mass = skel["mass"].as_f64().unwrap();
        assert_close(&format!("{at} position vs DART"), &position, &dart_position);
        assert_same_rotation(&format!("{at} orientation vs DART"), &rotation, &dart_rotation);
        assert_close(
            &format!("{at} mass vs DART"),
            &[mass],
            &[dart.bodies[name]["mass"].as_f64().unwrap()],
        );
        let original = fixture_bodies[name];
        assert_close(
            &format!("{at} position vs fixture"),
            &position,
            &numbers(&original["position"]),
        );
        assert_same_rotation(
            &format!("{at} orientation vs fixture"),
            &rotation,
            &numbers(&original["orientation_wxyz"]),
        );
        assert_close(
            &format!("{at} mass vs fixture"),
            &[mass],
            &[original["mass"].as_f64().unwrap()],
        );
        // SKEL has no "fixed" flag: a fixed body comes back as a body welded to the world
        // (checked with the joints), never as a fixed body.
        assert_eq!(skel["fixed"], false, "{at}: SKEL bodies are never `fixed`");
    }
}

/// Initial body velocities: mbconv's dynamics of the SKEL vs DART. Bodies whose velocity the
/// writer reported as dropped (`skel.body_velocity_lost`) start at rest in DART.
fn check_velocities(what: &str, dart: &DartWorld, skel_dynamics: &Value, findings: &[Finding]) {
    let dropped: BTreeSet<&str> = findings
        .iter()
        .filter(|f| f.code == "skel.body_velocity_lost")
        .filter_map(|f| item_name(&f.path, "bodies"))
        .collect();
    for body in skel_dynamics["bodies"].as_array().unwrap() {
        let name = body["name"].as_str().unwrap();
        let at = format!("{what}: body {name}");
        let dart_body = dart.bodies[name];
        let linear = numbers(&dart_body["linear_velocity_world"]);
        let angular = numbers(&dart_body["angular_velocity_world"]);
        assert_close(
            &format!("{at} linear velocity vs DART"),
            &numbers(&body["linear_velocity"]),
            &linear,
        );
        assert_close(
            &format!("{at} angular velocity vs DART"),
            &numbers(&body["angular_velocity"]),
            &angular,
        );
        if dropped.contains(name) {
            assert_eq!(linear, [0.0; 3], "{at}: reported dropped velocity");
            assert_eq!(angular, [0.0; 3], "{at}: reported dropped velocity");
        }
    }
}

/// Joints: the fixture's tree joints are written as they are; loop-closing joints are dropped
/// and reported; bodies without a joint get the weld (fixed body) or free joint to the world
/// that the export report names.
fn check_joints(what: &str, dart: &DartWorld, skel_info: &Value, fixture_info: &Value, findings: &[Finding]) {
    let skel_joints = by_name(skel_info["joints"].as_array().unwrap(), what);
    let mut expected: BTreeMap<String, (String, String, String, u64)> = BTreeMap::new();
    let mut has_joint: BTreeSet<String> = BTreeSet::new();
    for joint in fixture_info["joints"].as_array().unwrap() {
        let name = joint["name"].as_str().unwrap();
        if joint["closes_loop"] == true {
            assert!(
                findings
                    .iter()
                    .any(|f| f.code == "skel.loop_joint_lost" && item_name(&f.path, "joints") == Some(name)),
                "{what}: loop-closing joint {name} dropped without a skel.loop_joint_lost finding"
            );
            continue;
        }
        has_joint.insert(joint["child"].as_str().unwrap().to_owned());
        expected.insert(
            name.to_owned(),
            (
                joint["type"].as_str().unwrap().to_owned(),
                joint["parent"].as_str().unwrap().to_owned(),
                joint["child"].as_str().unwrap().to_owned(),
                joint["dof"].as_u64().unwrap(),
            ),
        );
    }
    for body in fixture_info["bodies"].as_array().unwrap() {
        let name = body["name"].as_str().unwrap();
        if has_joint.contains(name) {
            continue;
        }
        let fixed = body["fixed"] == true;
        let (kind, dof, marker, code) = if fixed {
            ("fixed", 0, "weld joint", "skel.fixed_body_as_weld_joint")
        } else {
            ("free", 6, "free joint", "skel.free_joint")
        };
        let joint = findings
            .iter()
            .filter(|f| f.code == code)
            .filter(|f| item_name(&f.path, "bodies") == Some(name))
            .find_map(|f| quoted_after(&f.message, marker))
            .unwrap_or_else(|| panic!("{what}: body {name} has no joint but no {code} {marker}"));
        expected.insert(
            joint.to_owned(),
            (kind.to_owned(), "world".to_owned(), name.to_owned(), dof),
        );
    }
    let names = |m: &BTreeMap<String, &Value>| m.keys().cloned().collect::<BTreeSet<_>>();
    assert_eq!(
        names(&skel_joints),
        expected.keys().cloned().collect(),
        "{what}: joints of the SKEL"
    );
    assert_eq!(
        names(&dart.joints),
        names(&skel_joints),
        "{what}: joints DART built"
    );
    for (name, (kind, parent, child, dof)) in &expected {
        let at = format!("{what}: joint {name}");
        let skel = skel_joints[name];
        assert_eq!(skel["type"], kind.as_str(), "{at}: kind");
        assert_eq!(skel["parent"], parent.as_str(), "{at}: parent");
        assert_eq!(skel["child"], child.as_str(), "{at}: child");
        assert_eq!(skel["dof"], *dof, "{at}: dof");
        let dart_joint = dart.joints[name];
        assert_eq!(dart_joint["type"], dart_joint_type(kind), "{at}: DART type");
        assert_eq!(dart_joint["dofs"], *dof, "{at}: DART dofs");
        let dart_parent = if parent == "world" {
            Value::Null
        } else {
            Value::from(parent.as_str())
        };
        assert_eq!(dart_joint["parent"], dart_parent, "{at}: DART parent");
        assert_eq!(dart_joint["child"], child.as_str(), "{at}: DART child");
    }
}

/// Gravity and time step: the fixture's when it gives them, else DART's defaults (reported
/// as `skel.gravity_default` for gravity).
fn check_physics(
    what: &str,
    dart: &DartWorld,
    skel_info: &Value,
    fixture_info: &Value,
    findings: &[Finding],
) {
    let dart_gravity = numbers(&dart.record["gravity"]);
    assert_close(
        &format!("{what}: gravity mbconv vs DART"),
        &numbers(&skel_info["gravity"]),
        &dart_gravity,
    );
    if fixture_info["gravity"].is_null() {
        assert!(
            findings.iter().any(|f| f.code == "skel.gravity_default"),
            "{what}: no gravity in the fixture but no skel.gravity_default finding"
        );
        assert_eq!(dart_gravity, [0.0, 0.0, -9.81], "{what}: DART's default gravity");
    } else {
        assert_close(
            &format!("{what}: gravity vs fixture"),
            &dart_gravity,
            &numbers(&fixture_info["gravity"]),
        );
    }
    let dart_step = dart.record["time_step"].as_f64().unwrap();
    assert_eq!(
        skel_info["time_step"].as_f64(),
        Some(dart_step),
        "{what}: time step"
    );
    if let Some(step) = fixture_info["time_step"].as_f64() {
        assert_eq!(dart_step, step, "{what}: time step vs fixture");
    } else {
        assert_eq!(dart_step, 0.001, "{what}: DART's default time step");
    }
}

/// The Chrono YAML files of `fixtures/chrono`, sorted, without the non-models.
fn chrono_models() -> Vec<String> {
    let mut files: Vec<String> = std::fs::read_dir(workspace().join("fixtures/chrono"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.ends_with(".yaml"))
        .filter(|name| CHRONO_NOT_MODELS.iter().all(|(skip, _)| skip != name))
        .collect();
    files.sort();
    files
}

#[test]
fn every_chrono_model_fixture_loads_in_dart_with_the_same_poses() {
    let models = chrono_models();
    assert!(
        models.len() >= 9,
        "expected the Chrono fixtures, found {models:?}"
    );
    for file in &models {
        check_fixture("chrono", file);
    }
}

#[test]
fn ir_example_loads_in_dart_with_the_same_poses() {
    for file in IR_FIXTURES {
        check_fixture("ir", file);
    }
}

#[test]
fn chrono_files_that_are_not_models_are_refused() {
    for (file, reason) in CHRONO_NOT_MODELS {
        let fixture = workspace().join("fixtures/chrono").join(file);
        let dir = tempfile::tempdir().unwrap();
        let written = dir.path().join("out.skel");
        let out = mbconv(&[
            "convert",
            fixture.to_str().unwrap(),
            "-o",
            written.to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(2), "{file}: refused as input");
        assert!(
            stderr_unwrapped(&out).contains(reason),
            "{file}: refused because {reason}"
        );
        assert!(!written.exists(), "{file}: nothing written");
    }
}

#[test]
fn golden_data_covers_exactly_the_converted_fixtures() {
    let mut expected: BTreeSet<String> = chrono_models()
        .iter()
        .map(|file| format!("chrono__{}.skel.json", file.split('.').next().unwrap()))
        .collect();
    for file in IR_FIXTURES {
        expected.insert(format!("ir__{}.skel.json", file.split('.').next().unwrap()));
    }
    let present: BTreeSet<String> = std::fs::read_dir(golden_dir())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.ends_with(".json"))
        .collect();
    assert_eq!(present, expected, "golden records vs fixtures");
}

/// Largest distance allowed between DART's centre of mass of a body of the written SKEL and
/// mbconv's simulation of the original Chrono model (m).
const TRAJECTORY_TOLERANCE: f64 = 1e-6;

/// Where the check says a Chrono fixture converts to SKEL `exact`, the written SKEL, run by DART
/// (semi-implicit Euler at the model's step, collisions off; golden data in
/// `golden/dart_written/trajectories/`), follows mbconv's own simulation of the model as lowered
/// for SKEL (the same integrator, step and form of each element: a Chrono RSDA about a joint
/// axis is the joint's spring on both sides) to 1e-6 m at every 0.1 s sample over 1 s. The others
/// are `explained` (the check names the losses) and listed by the test's output.
#[test]
fn skel_written_from_exact_chrono_fixtures_moves_in_dart_as_the_original_does_in_mbconv() {
    let registry = mbconv::formats();
    let skel = registry.get("skel").unwrap();
    let mut compared = Vec::new();
    let mut failures = Vec::new();
    for file in chrono_models() {
        let stem = file.split('.').next().unwrap();
        let golden_path = golden_dir().join(format!("trajectories/chrono__{stem}.json"));
        let golden: Value =
            serde_json::from_str(&std::fs::read_to_string(&golden_path).unwrap_or_else(|e| {
                panic!("{}: {e} (run `cargo xtask golden dart`)", golden_path.display())
            }))
            .unwrap();
        assert!(
            golden.get("load_error").is_none(),
            "{file}: DART refused the SKEL: {golden}"
        );
        let path = workspace().join("fixtures/chrono").join(&file);
        let source = mbconv::ir::format::Source::from_path(&path).unwrap();
        let format = registry.detect(&path, Some(&source.text)).unwrap();
        let model = registry
            .read(format, &source, &mbconv::ir::format::Options::default())
            .unwrap()
            .model;
        let settings = mbconv::checker::CheckSettings::default();
        let report = mbconv::checker::check(&model, &file, &registry, &[skel], &settings);
        // The check proved (with accurate integration) that the written SKEL moves like the
        // original. DART integrates it with semi-implicit Euler, joint springs implicitly: it is
        // compared with mbconv's run of the same lowered model with the same scheme, so that
        // only DART's reading of what was written and mbconv's can differ.
        let settings = mbconv::checker::CheckSettings {
            integrator: Some(mbconv::solver::Integrator::SemiImplicitEuler),
            dt: model.simulation.time_step,
            ..settings
        };
        let verdict = report.targets[0].verdict;
        if verdict != mbconv::checker::Verdict::Exact {
            println!("{file}: chrono -> skel is {verdict}, not compared with DART");
            continue;
        }
        let simulation = settings.simulation(&model);
        let dt = golden["dt"].as_f64().unwrap();
        assert_eq!(
            dt, simulation.dt,
            "{file}: DART ran the written SKEL at the model's step"
        );
        let lowered = skel
            .lower(&model, &mbconv::ir::format::Options::default())
            .unwrap()
            .model;
        let motion = mbconv::checker::Motion::simulate(&lowered, &simulation).unwrap();
        let mut worst = 0.0_f64;
        for (name, samples) in golden["bodies"].as_object().unwrap() {
            let Some(body) = motion.body_index(name) else {
                // A body the SKEL writer adds (none so far) has no counterpart.
                failures.push(format!(
                    "{file}: DART body {name:?} is not a body of the original"
                ));
                continue;
            };
            for (k, t) in golden["times"].as_array().unwrap().iter().enumerate() {
                let t = t.as_f64().unwrap();
                let i = (t / dt).round() as usize;
                let dart = numbers(&samples[k]);
                let ours = motion.com[i][body];
                let distance = (ours - nalgebra::Vector3::new(dart[0], dart[1], dart[2])).norm();
                worst = worst.max(distance);
                if distance > TRAJECTORY_TOLERANCE {
                    failures.push(format!(
                        "{file}: body {name:?} at t = {t}: DART {dart:?}, mbconv [{}, {}, {}] ({distance:.3e} m apart)",
                        ours.x, ours.y, ours.z
                    ));
                }
            }
        }
        println!("{file}: exact; DART's run of the written SKEL within {worst:.3e} m");
        compared.push(file);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        compared.len() >= 3,
        "too few Chrono fixtures convert to SKEL exactly to compare with DART: {compared:?}"
    );
}

#[test]
fn export_findings_are_parsed() {
    let line = "/tmp/x.skel: info[skel.fixed_body_as_weld_joint] bodies[\"ground\"]: body has no joint; \
                written with a weld joint \"ground_weld\" to the world at its pose";
    let findings = export_findings(line);
    assert_eq!(findings.len(), 1);
    assert_eq!(findings[0].code, "skel.fixed_body_as_weld_joint");
    assert_eq!(item_name(&findings[0].path, "bodies"), Some("ground"));
    assert_eq!(
        quoted_after(&findings[0].message, "weld joint"),
        Some("ground_weld")
    );
    assert_eq!(quoted_after(&findings[0].message, "free joint"), None);
}

#[test]
fn quaternion_of_matrix_recovers_rotations_about_every_axis() {
    // Half turns about x, y, z take each branch of Shepperd's method but the trace one.
    let half_turns = [
        (
            [[1.0, 0.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, -1.0]],
            [0.0, 1.0, 0.0, 0.0],
        ),
        (
            [[-1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, -1.0]],
            [0.0, 0.0, 1.0, 0.0],
        ),
        (
            [[-1.0, 0.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, 1.0]],
            [0.0, 0.0, 0.0, 1.0],
        ),
    ];
    for (matrix, quaternion) in half_turns {
        assert_same_rotation("half turn", &quaternion_of(matrix), &quaternion);
    }
    // 90 degrees about z: the trace branch.
    let h = std::f64::consts::FRAC_1_SQRT_2;
    let quarter = [[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]];
    assert_same_rotation("quarter turn", &quaternion_of(quarter), &[h, 0.0, 0.0, h]);
}
