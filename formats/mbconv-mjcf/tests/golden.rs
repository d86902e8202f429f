//! mbconv's reading of MJCF judged by MuJoCo 4.0's golden data (`tests/golden`, written by
//! `cargo xtask golden mjcf` from `oracles/mujoco/mujoco_golden.py`; the tests never run
//! MuJoCo): every body's mass, world centre of mass, world inertia and body-frame pose at
//! qpos0 and at the fixture keyframe, files MuJoCo refuses, and mbconv's solver against
//! MuJoCo's 1 s RK4 trajectories with contact disabled; and the writer: every MJCF, IR, SKEL
//! and Chrono fixture as mbconv writes it in MJCF (`written__*`, the text's hash recorded)
//! loads in MuJoCo and moves there as mbconv's solver moves what mbconv reads back.

#[path = "support/written.rs"]
mod written;

use mbconv_ir::format::{Format, Options, Source};
use mbconv_solver::{Integrator, SimulateOptions};
use mbconv_test_support::read_golden::{ReadGolden, read_as_listed};
use mbconv_test_support::written_golden::relative_deviation;
use nalgebra::{Matrix3, Point3, Quaternion, UnitQuaternion, Vector3};
use serde_json::Value;
use std::path::Path;

/// Agreement asked for on every body: relative to the size of the quantity (at least 1), so
/// 1e-9 kg, 1e-9 m and 1e-9 kg m² on unit-sized models. mbconv computes the same arithmetic as
/// MuJoCo's compiler (its eig3 for principal axes, see docs/formats/mjcf.md); the measured
/// worst deviation is far below (see the "Judged by MuJoCo" section there).
const STATIC_TOLERANCE: f64 = 1e-9;

/// Trajectory agreement asked for: 1e-6 m on body-frame positions and centres of mass over 1 s.
const TRAJECTORY_TOLERANCE: f64 = 1e-6;

/// Files MuJoCo loads that mbconv refuses, with the reason mbconv gives.
const NOT_YET: &[(&str, &str)] = &[];

/// Files MuJoCo refuses that mbconv reads, and why mbconv reads them.
const READ_THOUGH_REFUSED: &[(&str, &str)] = &[
    (
        "corpus__mujoco__model__tendon_arm__arm26.xml.json",
        "MuJoCo's compiler runs a simulation to find the muscles' length ranges and it does not \
     converge; mbconv keeps actuators as mjcf.actuator extras and computes no length range",
    ),
    (
        "corpus__pinocchio__models__simple_humanoid.xml.json",
        "MuJoCo's STL decoder refuses the ASCII STL box.stl; mbconv does not decode meshes whose \
         geoms take no part in the mass (they stay as mesh shapes by path)",
    ),
];

/// Trajectories left out of the solver comparison, and why.
const TRAJECTORY_EXCLUDED: &[(&str, &str)] = &[
    (
        "fixtures__four_bar_connect.xml.json",
        "closed by a connect and a weld: MuJoCo keeps them soft (solref/solimp), mbconv's loop \
         joints are exact",
    ),
    (
        "fixtures__joint_coupling.xml.json",
        "a joint equality (coupling): soft in MuJoCo (solref/solimp), exact in mbconv",
    ),
];

/// The golden data of the reader and of the fixtures' writer (`written__*`).
fn read_golden() -> ReadGolden {
    ReadGolden::new(env!("CARGO_MANIFEST_DIR"), "tests/golden", "mjcf")
}

/// Golden data of the reader (fixtures and corpus).
fn golden_files() -> Vec<(String, Value)> {
    let mut all = read_golden().files();
    all.retain(|(n, _)| !n.starts_with("written__"));
    all
}

fn options(golden: &Value) -> Options {
    let mut options = Options::default();
    if let Some(key) = golden["keyframe"]["name"].as_str() {
        options.set("keyframe", key);
    }
    options
}

fn read(path: &Path, options: &Options) -> Result<mbconv_ir::Model, String> {
    let source = Source::from_path(path).map_err(|e| e.to_string())?;
    mbconv_mjcf::MjcfFormat
        .read(&source, options)
        .map(|i| i.model)
        .map_err(|e| e.to_string())
}

fn floats(v: &Value) -> Vec<f64> {
    match v {
        Value::Array(a) => a.iter().map(|x| x.as_f64().expect("a number")).collect(),
        x => vec![x.as_f64().expect("a number")],
    }
}

/// Compares one MuJoCo body with mbconv's values; returns the worst relative deviation.
fn compare_body(
    file: &str,
    mj: &Value,
    mass: f64,
    com: Vector3<f64>,
    inertia: Matrix3<f64>,
    pose: [f64; 7],
) -> f64 {
    let name = mj["name"].as_str().expect("name");
    let quat = floats(&mj["quat"]);
    let ours_quat = [pose[3], pose[4], pose[5], pose[6]];
    let minus: Vec<f64> = ours_quat.iter().map(|x| -x).collect();
    let inertia_rows: Vec<f64> = (0..9).map(|k| inertia[(k / 3, k % 3)]).collect();
    let checks = [
        ("mass", relative_deviation(&[mass], &floats(&mj["mass"]))),
        ("com", relative_deviation(com.as_slice(), &floats(&mj["com"]))),
        (
            "inertia",
            relative_deviation(&inertia_rows, &floats(&mj["inertia"])),
        ),
        ("pos", relative_deviation(&pose[..3], &floats(&mj["pos"]))),
        (
            "quat",
            relative_deviation(&ours_quat, &quat).min(relative_deviation(&minus, &quat)),
        ),
    ];
    let mut worst = 0.0_f64;
    for (what, dev) in checks {
        assert!(
            dev <= STATIC_TOLERANCE,
            "{file}: body {name}: {what} deviates by {dev:e} from MuJoCo"
        );
        worst = worst.max(dev);
    }
    worst
}

/// World inertia about the COM, world COM and body-frame pose of every IR body at the given pose.
fn ir_body_world(body: &mbconv_ir::Body, pose: [f64; 7]) -> (Vector3<f64>, Matrix3<f64>) {
    let rotation = UnitQuaternion::from_quaternion(Quaternion::new(pose[3], pose[4], pose[5], pose[6]));
    let r = rotation.to_rotation_matrix().into_inner();
    let com = rotation.transform_point(&Point3::from(body.inertial.com)).coords
        + Vector3::new(pose[0], pose[1], pose[2]);
    (com, r * body.inertial.inertia_in_body_axes() * r.transpose())
}

fn ir_pose(body: &mbconv_ir::Body) -> [f64; 7] {
    let (t, q) = (body.pose.translation, body.pose.rotation);
    [t.x, t.y, t.z, q.w, q.i, q.j, q.k]
}

/// Body-frame poses of every body (by name) at the model's initial state, by the solver.
fn solver_poses(model: &mbconv_ir::Model, options: &SimulateOptions) -> Vec<(String, Vec<[f64; 7]>)> {
    let names: Vec<String> = mbconv_solver::Model::new(model)
        .expect("a solver model")
        .body_names()
        .map(str::to_owned)
        .collect();
    let mut samples: Vec<Vec<[f64; 7]>> = Vec::new();
    mbconv_solver::simulate(model, options, &mut |s| samples.push(s.poses.to_vec())).expect("simulated");
    names
        .into_iter()
        .enumerate()
        .map(|(i, n)| (n, samples.iter().map(|s| s[i]).collect()))
        .collect()
}

#[test]
fn golden_data_covers_exactly_the_fixtures() {
    read_golden().assert_covers_fixtures(&["xml"]);
}

#[test]
fn every_body_agrees_with_mujoco_at_qpos0_and_at_the_keyframe() {
    let mut worst = (0.0_f64, String::new());
    let mut judged = 0;
    for (name, golden) in golden_files() {
        let Some(path) = read_golden().model_path(&name, &golden) else {
            continue;
        };
        let options = options(&golden);
        let result = read(&path, &options);
        if let Some(error) = golden["load_error"].as_str() {
            match (result, READ_THOUGH_REFUSED.iter().find(|(f, _)| *f == name)) {
                (Err(_), None) => {}
                (Ok(_), Some(_)) => {}
                (Ok(_), None) => panic!("{name}: MuJoCo refuses it ({error}), mbconv reads it"),
                (Err(e), Some(_)) => panic!("{name}: refused ({e}), take it off READ_THOUGH_REFUSED"),
            }
            continue;
        }
        let Some(model) = read_as_listed(&name, result, NOT_YET, "MuJoCo") else {
            continue;
        };
        for mj in golden["qpos0"].as_array().expect("qpos0") {
            let body_name = mj["name"].as_str().expect("name");
            let body = model
                .bodies
                .iter()
                .find(|b| b.name == body_name)
                .unwrap_or_else(|| panic!("{name}: no body {body_name}"));
            let pose = ir_pose(body);
            let (com, inertia) = ir_body_world(body, pose);
            let dev = compare_body(&name, mj, body.inertial.mass, com, inertia, pose);
            if dev > worst.0 {
                worst = (dev, format!("{name} {body_name}"));
            }
        }
        if let Some(bodies) = golden["keyframe"]["bodies"].as_array() {
            let at_start = SimulateOptions {
                duration: 0.0,
                dt: 1e-4,
                integrator: Integrator::Rk4,
                every: 1,
                energy: false,
                joint_limits: false,
                max_steps: None,
            };
            let poses = solver_poses(&model, &at_start);
            for mj in bodies {
                let body_name = mj["name"].as_str().expect("name");
                let body = model
                    .bodies
                    .iter()
                    .find(|b| b.name == body_name)
                    .expect("the body");
                let pose = poses
                    .iter()
                    .find(|(n, _)| n == body_name)
                    .expect("a solver body")
                    .1[0];
                let (com, inertia) = ir_body_world(body, pose);
                let dev = compare_body(&name, mj, body.inertial.mass, com, inertia, pose);
                if dev > worst.0 {
                    worst = (dev, format!("{name} (keyframe) {body_name}"));
                }
            }
        }
        judged += 1;
    }
    eprintln!(
        "{judged} files judged; worst relative deviation {:e} ({})",
        worst.0, worst.1
    );
    assert!(judged >= 8, "only {judged} files judged");
}

#[test]
fn solver_trajectories_agree_with_mujoco() {
    let mut excluded_seen = Vec::new();
    let mut judged = 0;
    for (name, golden) in golden_files() {
        let trajectory = &golden["trajectory"];
        if trajectory.is_null() {
            continue;
        }
        let Some(path) = read_golden().model_path(&name, &golden) else {
            continue;
        };
        let soft = trajectory["limit_reached"].as_bool() == Some(true)
            || trajectory["equality_constraints"].as_u64() != Some(0);
        if TRAJECTORY_EXCLUDED.iter().any(|(f, _)| *f == name) {
            excluded_seen.push(name);
            continue;
        }
        assert!(
            !soft,
            "{name}: MuJoCo's trajectory uses soft constraints: list it in TRAJECTORY_EXCLUDED"
        );
        let model = read(&path, &options(&golden)).expect("read");
        let options = SimulateOptions {
            duration: trajectory["duration"].as_f64().expect("duration"),
            dt: trajectory["dt"].as_f64().expect("dt"),
            integrator: Integrator::Rk4,
            every: 1000,
            energy: false,
            joint_limits: false,
            max_steps: None,
        };
        let poses = solver_poses(&model, &options);
        let samples = trajectory["samples"].as_array().expect("samples");
        let mut worst = 0.0_f64;
        for (b, body_name) in trajectory["bodies"]
            .as_array()
            .expect("bodies")
            .iter()
            .enumerate()
        {
            let body_name = body_name.as_str().expect("name");
            let body = model
                .bodies
                .iter()
                .find(|x| x.name == body_name)
                .expect("the body");
            let ours = &poses
                .iter()
                .find(|(n, _)| n == body_name)
                .expect("a solver body")
                .1;
            assert_eq!(ours.len(), samples.len(), "{name}: samples");
            for (k, sample) in samples.iter().enumerate() {
                let (com, _) = ir_body_world(body, ours[k]);
                let pos_dev = relative_deviation(&ours[k][..3], &floats(&sample["pos"][b]));
                let com_dev = relative_deviation(com.as_slice(), &floats(&sample["com"][b]));
                let t = sample["t"].as_f64().expect("t");
                assert!(
                    pos_dev.max(com_dev) <= TRAJECTORY_TOLERANCE,
                    "{name}: body {body_name} at t = {t}: {pos_dev:e} m (frame), {com_dev:e} m (COM)"
                );
                worst = worst.max(pos_dev).max(com_dev);
            }
        }
        eprintln!("{name}: worst {worst:e} m over 1 s");
        judged += 1;
    }
    let mut listed: Vec<&str> = TRAJECTORY_EXCLUDED.iter().map(|(f, _)| *f).collect();
    listed.sort_unstable();
    assert_eq!(
        excluded_seen, listed,
        "TRAJECTORY_EXCLUDED lists files without golden trajectories"
    );
    assert!(judged >= 8, "only {judged} trajectories judged");
}

/// Written fixtures MuJoCo cannot load from the scratch directory the golden data is made in,
/// and why.
const WRITTEN_NOT_LOADED: &[(&str, &str)] = &[
    (
        "written__chrono__contact_visual.yaml.xml.json",
        "its mesh part.obj lies next to the fixture, not next to the written copy",
    ),
    (
        "written__skel__shapes.skel.xml.json",
        "its mesh meshes/wedge.obj lies next to the fixture, not next to the written copy",
    ),
];

#[test]
fn written_mjcf_loads_in_mujoco_and_moves_as_in_mbconv() {
    let texts = written::written();
    let golden: Vec<(String, Value)> = read_golden()
        .files()
        .into_iter()
        .filter(|(n, _)| n.starts_with("written__"))
        .collect();
    let names: Vec<String> = texts.iter().map(|(n, _)| format!("written__{n}.json")).collect();
    let mut sorted = names.clone();
    sorted.sort();
    let golden_names: Vec<String> = golden.iter().map(|(n, _)| n.clone()).collect();
    assert_eq!(golden_names, sorted, "run `cargo xtask golden mjcf`");
    let (mut judged, mut soft, mut worst) = (0, 0, (0.0_f64, String::new()));
    for ((name, text), golden_name) in texts.iter().zip(&names) {
        let golden = &golden.iter().find(|(n, _)| n == golden_name).expect("golden").1;
        assert_eq!(
            golden["written_fnv1a64"].as_str(),
            Some(mbconv_test_support::text_hash(text).as_str()),
            "{name}: the writer's output changed: run `cargo xtask golden mjcf`"
        );
        if let Some(error) = golden["load_error"].as_str() {
            assert!(
                WRITTEN_NOT_LOADED.iter().any(|(n, _)| n == golden_name),
                "{name}: MuJoCo refuses the written MJCF: {error}"
            );
            continue;
        }
        assert!(
            !WRITTEN_NOT_LOADED.iter().any(|(n, _)| n == golden_name),
            "{name} loads now: take it off WRITTEN_NOT_LOADED"
        );
        let trajectory = &golden["trajectory"];
        if trajectory["limit_reached"].as_bool() == Some(true)
            || trajectory["equality_constraints"].as_u64() != Some(0)
        {
            soft += 1; // MuJoCo's limits and equalities are soft, the IR's exact
            continue;
        }
        let model = mbconv_mjcf::MjcfFormat
            .read(&Source::from_string("written.xml", text), &Options::default())
            .expect("read back")
            .model;
        let options = SimulateOptions {
            duration: trajectory["duration"].as_f64().expect("duration"),
            dt: trajectory["dt"].as_f64().expect("dt"),
            integrator: Integrator::Rk4,
            every: 1000,
            energy: false,
            joint_limits: false,
            max_steps: None,
        };
        let poses = solver_poses(&model, &options);
        let samples = trajectory["samples"].as_array().expect("samples");
        for (b, body_name) in trajectory["bodies"]
            .as_array()
            .expect("bodies")
            .iter()
            .enumerate()
        {
            let body_name = body_name.as_str().expect("name");
            let body = model.body(body_name).expect("the body");
            let ours = &poses
                .iter()
                .find(|(n, _)| n == body_name)
                .expect("a solver body")
                .1;
            for (k, sample) in samples.iter().enumerate() {
                let (com, _) = ir_body_world(body, ours[k]);
                let d = relative_deviation(&ours[k][..3], &floats(&sample["pos"][b]))
                    .max(relative_deviation(com.as_slice(), &floats(&sample["com"][b])));
                assert!(d <= TRAJECTORY_TOLERANCE, "{name}: body {body_name}: {d:e} m");
                if d > worst.0 {
                    worst = (d, format!("{name} {body_name}"));
                }
            }
        }
        judged += 1;
    }
    eprintln!(
        "{} written files: {judged} move as in MuJoCo (worst {:e} m, {}), {soft} with soft limits or equalities",
        texts.len(),
        worst.0,
        worst.1
    );
    assert!(judged >= 30, "only {judged} judged");
}
