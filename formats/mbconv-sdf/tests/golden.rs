//! mbconv's reading of SDFormat judged by Drake 1.51's golden data (`tests/golden`, written by
//! `cargo xtask golden sdf` from `oracles/drake/sdf_golden.py`; the tests never run Drake):
//! every body's mass, world centre of mass, inertia about it in world axes and world pose at
//! the default configuration, the files Drake refuses, and mbconv's solver against Drake's 1 s
//! contact-free trajectories.
//!
//! Names: Drake puts each model in a model instance named after it (a nested model's instance
//! is `outer::inner`) and names a body by its link, so the golden data names a body
//! `<instance>::<link>`. mbconv names a link `outer::inner::link` inside a world (every model
//! of the world is a scope) and leaves the model's own name out when the file's root is a lone
//! `<model>` (`inner::link`). So a Drake name is looked up as it is in a world file and with
//! its first segment (the lone model's name) taken off otherwise. Drake's world body is not in
//! the golden data; Drake adds no other body (a static model's links are welded to the world,
//! as mbconv fixes them).

#![allow(clippy::unwrap_used)]

use mbconv_ir::format::{Options, Source};
use mbconv_solver::{Integrator, SimulateOptions};
use mbconv_test_support::written::{golden_json_files, relative_deviation, source_path, world_com};
use nalgebra::Vector3;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Agreement asked for on every body: relative to the size of the quantity (at least 1), so
/// 1e-9 kg, 1e-9 m, 1e-9 kg m² and 1e-9 on unit quaternions for unit-sized models.
const STATIC_TOLERANCE: f64 = 1e-9;

/// Trajectory agreement asked for: 1e-6 m on every body's world centre of mass over 1 s
/// (mbconv: fixed-step RK4 at 1e-4 s; Drake: error-controlled RK3 at accuracy 1e-12).
const TRAJECTORY_TOLERANCE: f64 = 1e-6;

/// Files Drake refuses that mbconv reads, and why mbconv reads them.
const READ_THOUGH_REFUSED: &[(&str, &str)] = &[
    (
        "corpus__gz-sim__test__worlds__demo_joint_types.sdf.json",
        "Drake 1.51 has no gearbox joint and refuses the file (\"Joint type (gearbox) not \
         supported\"); libsdformat and DART read it, and so does mbconv: the gearbox has no IR \
         joint, it is kept in Model::extras[\"sdf.gearbox\"] and reported (sdf.joint_dropped)",
    ),
    (
        "corpus__sdformat__test__sdf__joint_nested_parent_child.sdf.json",
        PARALLEL_JOINTS,
    ),
    (
        "corpus__sdformat__test__sdf__joint_screw_thread_pitch.sdf.json",
        PARALLEL_JOINTS,
    ),
    (
        "corpus__sdformat__test__sdf__world_joint_child_frame.sdf.json",
        PARALLEL_JOINTS,
    ),
    (
        "corpus__sdformat__test__sdf__world_joint_parent_frame.sdf.json",
        PARALLEL_JOINTS,
    ),
    (
        "corpus__sdformat__test__sdf__mesh_auto_inertial.sdf.json",
        "Drake runs out of memory (std::bad_alloc) on the automatic inertia of the mesh; \
         mbconv does not load meshes: it leaves the mesh out of the automatic inertia, reports \
         it (sdf.auto_inertia) and keeps the inertial as written",
    ),
    (
        "fixtures__four_bar.sdf.json",
        "a closed loop: Drake refuses loops in SDFormat (\"form one or more loops in the system \
         graph\"); libsdformat reads it and mbconv keeps the closing joint as an IR loop joint",
    ),
    (
        "fixtures__world_include.sdf.json",
        "Drake resolves <include><uri> only through its package map, not relative to the \
         including file (\"Unable to find uri[models/crate]\"); libsdformat resolves a \
         relative URI next to the file, and so does mbconv",
    ),
];

/// Why Drake refuses files with several joints between the same two links.
const PARALLEL_JOINTS: &str = "several joints between the same two links (libsdformat's frame \
     tests): Drake's LinkJointGraph refuses a second joint between two links (\"already has \
     joint\"); libsdformat reads the file and mbconv keeps the extra joints as IR loop joints";

/// Files Drake loads that mbconv refuses, with the words of mbconv's reason.
const NOT_YET: &[(&str, &str)] = &[];

/// Bodies whose reading disagrees with Drake's for a stated reason: (golden file, Drake's
/// body name, the measured worst relative deviation, why). The test checks the deviation is
/// still the one measured.
const DISAGREEMENTS: &[(&str, &str, f64, &str)] = &[(
    "corpus__drake__multibody__parsing__test__sdf_parser_test__joint_parsing_test.sdf.json",
    "joint_parsing_test::link10",
    1.0,
    "child of a <drake:joint type=\"curvilinear\">, which has no IR joint (kept in extras, \
     reported): mbconv floats link10 at its own pose (identity), Drake's curvilinear joint at \
     zero turns it a quarter turn about y (its initial tangent z in the plane of normal x): \
     quaternion (0, 0.7071, 0, 0.7071) against (1, 0, 0, 0); mass, COM, inertia and position \
     agree",
)];

/// Trajectories left out of the solver comparison, and why.
const TRAJECTORY_EXCLUDED: &[(&str, &str)] = &[];

/// What Drake's SDFormat parser does not read, which mbconv's model is brought to Drake's
/// reading of before it is simulated against Drake (the reading itself is judged above):
/// Drake 1.51 ignores `<world><gravity>` (its plant keeps -9.81 m/s², while mbconv reads the
/// world's gravity, SDFormat's default being -9.8) and `<axis><dynamics><friction>` (no
/// warning; checked by running a fixture with and without it). The golden data gives the
/// plant's gravity, which replaces a gravity mbconv read (a model without one falls under the
/// solver's default, Drake's -9.81 too); joint friction is set to zero.
fn as_drake_reads_it(model: &mut mbconv_ir::Model, golden: &Value) -> Vec<String> {
    let mut changed = Vec::new();
    let gravity = Vector3::from_vec(floats(&golden["gravity"]));
    match model.simulation.gravity {
        Some(ours) if ours != gravity => {
            changed.push(format!(
                "gravity {:?} -> {:?}",
                ours.as_slice(),
                gravity.as_slice()
            ));
            model.simulation.gravity = Some(gravity);
        }
        _ => {}
    }
    for joint in &mut model.joints {
        for dof in &mut joint.dofs {
            if dof.friction != 0.0 {
                changed.push(format!("{}: friction {} -> 0", joint.name, dof.friction));
                dof.friction = 0.0;
            }
        }
    }
    changed
}

/// Sets the joints' initial positions and velocities Drake started its trajectory from
/// (`trajectory.start`, by `<instance>::<joint>`, named as bodies are).
fn start_where_drake_started(model: &mut mbconv_ir::Model, trajectory: &Value, world: bool, name: &str) {
    for (drake_name, start) in trajectory["start"].as_object().expect("start") {
        let ours = our_name(drake_name, world);
        let joint = model
            .joints
            .iter_mut()
            .find(|j| j.name == ours)
            .unwrap_or_else(|| panic!("{name}: no joint {ours} (Drake's {drake_name})"));
        joint.q0 = floats(&start["q"]);
        joint.v0 = floats(&start["v"]);
    }
}

/// The golden files, named as the tables above name them (`….sdf.json`).
fn golden_files() -> Vec<(String, Value)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    golden_json_files(&dir)
        .into_iter()
        .map(|(stem, golden)| (format!("{stem}.json"), golden))
        .collect()
}

/// The model file a golden file judges (None: a corpus file and no corpus here).
fn model_path(name: &str, golden: &Value) -> Option<PathBuf> {
    let file = golden["file"].as_str().expect("file");
    let place = if name.starts_with("fixtures__") {
        "fixtures"
    } else {
        "corpus"
    };
    source_path(&format!("{place}/sdf/{file}"))
}

/// Read options: the packages Drake was given (`NAME=DIR`, `model://NAME`) become the
/// `model_path` directories holding them.
fn options(path: &Path, golden: &Value) -> Options {
    let mut options = Options::default();
    let root = path.parent().unwrap();
    let mut dirs: Vec<String> = golden["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p.as_str()?.split_once('='))
        .filter_map(|(_, dir)| Some(root.join(dir).parent()?.display().to_string()))
        .collect();
    dirs.dedup();
    if !dirs.is_empty() {
        options.set("model_path", dirs.join(":"));
    }
    options
}

fn read(path: &Path, options: &Options) -> Result<mbconv_ir::Model, String> {
    let source = Source::from_path(path).map_err(|e| e.to_string())?;
    mbconv_sdf::read(&source, options)
        .map(|i| i.model)
        .map_err(|e| e.to_string())
}

/// True when the file holds a `<world>` outside comments (else it is a lone `<model>`).
fn is_world(path: &Path) -> bool {
    let mut rest = std::fs::read_to_string(path).unwrap();
    while let Some(start) = rest.find("<!--") {
        let end = rest[start..].find("-->").map_or(rest.len(), |e| start + e + 3);
        rest.replace_range(start..end, "");
    }
    rest.contains("<world")
}

/// mbconv's name of Drake's body `<instance>::<link>` (see the module documentation).
fn our_name(drake: &str, world: bool) -> String {
    if world {
        drake.to_owned()
    } else {
        drake.split_once("::").map_or(drake, |(_, rest)| rest).to_owned()
    }
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array()
        .expect("an array")
        .iter()
        .map(|x| x.as_f64().expect("a number"))
        .collect()
}

/// The worst relative deviation of one body from Drake's, per quantity.
fn deviations(drake: &Value, body: &mbconv_ir::Body) -> [(&'static str, f64); 5] {
    let (t, q) = (body.pose.translation, body.pose.rotation);
    let pose = [t.x, t.y, t.z, q.w, q.i, q.j, q.k];
    let com: Vector3<f64> = world_com(body, &pose);
    let r = q.to_rotation_matrix().into_inner();
    let inertia = r * body.inertial.inertia_in_body_axes() * r.transpose();
    let inertia_rows: Vec<f64> = (0..9).map(|k| inertia[(k / 3, k % 3)]).collect();
    let quat = floats(&drake["quat"]);
    let minus: Vec<f64> = pose[3..].iter().map(|x| -x).collect();
    [
        (
            "mass",
            relative_deviation(&[body.inertial.mass], &[drake["mass"].as_f64().unwrap()]),
        ),
        ("com", relative_deviation(com.as_slice(), &floats(&drake["com"]))),
        (
            "inertia",
            relative_deviation(&inertia_rows, &floats(&drake["inertia"])),
        ),
        ("pos", relative_deviation(&pose[..3], &floats(&drake["pos"]))),
        (
            "quat",
            relative_deviation(&pose[3..], &quat).min(relative_deviation(&minus, &quat)),
        ),
    ]
}

#[test]
fn golden_data_covers_exactly_the_fixtures() {
    let dir = mbconv_test_support::fixtures_root().join("sdf");
    let mut fixtures: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "sdf" || e == "world"))
        .map(|p| {
            format!(
                "fixtures__{}.json",
                p.file_name().and_then(|n| n.to_str()).unwrap()
            )
        })
        .collect();
    fixtures.sort();
    let golden: Vec<String> = golden_files()
        .into_iter()
        .map(|(n, _)| n)
        .filter(|n| n.starts_with("fixtures__"))
        .collect();
    assert_eq!(golden, fixtures, "run `cargo xtask golden sdf`");
    assert!(!fixtures.is_empty());
}

#[test]
fn every_body_agrees_with_drake_at_the_default_configuration() {
    let mut worst = (0.0_f64, String::new());
    let mut per_quantity = [("", 0.0_f64); 5];
    let (mut judged, mut bodies) = (0, 0);
    let mut disagreements_seen = Vec::new();
    let mut failures = Vec::new();
    for (name, golden) in golden_files() {
        let Some(path) = model_path(&name, &golden) else {
            continue;
        };
        let result = read(&path, &options(&path, &golden));
        if let Some(error) = golden["load_error"].as_str() {
            match (result, READ_THOUGH_REFUSED.iter().find(|(f, _)| *f == name)) {
                (Err(_), None) | (Ok(_), Some(_)) => {}
                (Ok(_), None) => {
                    failures.push(format!("{name}: Drake refuses it ({error}), mbconv reads it"))
                }
                (Err(e), Some(_)) => {
                    failures.push(format!("{name}: refused ({e}), take it off READ_THOUGH_REFUSED"))
                }
            }
            continue;
        }
        let model = match (result, NOT_YET.iter().find(|(f, _)| *f == name)) {
            (Ok(model), None) => model,
            (Err(e), Some((_, reason))) => {
                assert!(e.contains(reason), "{name}: expected {reason:?}, got {e}");
                continue;
            }
            (Ok(_), Some(_)) => panic!("{name} is read now: take it off NOT_YET"),
            (Err(e), None) => panic!("{name}: Drake loads it, mbconv refuses it: {e}"),
        };
        let world = is_world(&path);
        let drake_bodies = golden["bodies"].as_array().expect("bodies");
        assert_eq!(
            model.bodies.len(),
            drake_bodies.len(),
            "{name}: mbconv has {} bodies, Drake {}",
            model.bodies.len(),
            drake_bodies.len()
        );
        for drake in drake_bodies {
            let drake_name = drake["name"].as_str().expect("name");
            let ours = our_name(drake_name, world);
            let body = model
                .bodies
                .iter()
                .find(|b| b.name == ours)
                .unwrap_or_else(|| panic!("{name}: no body {ours} (Drake's {drake_name})"));
            let listed = DISAGREEMENTS
                .iter()
                .find(|(f, b, ..)| *f == name && *b == drake_name);
            let devs = deviations(drake, body);
            let dev = devs.iter().fold(0.0_f64, |m, (_, d)| m.max(*d));
            if let Some((_, _, measured, why)) = listed {
                assert!(
                    (dev - measured).abs() <= STATIC_TOLERANCE,
                    "{name}: {drake_name} deviates by {dev:e}, not the {measured:e} of DISAGREEMENTS ({why})"
                );
                disagreements_seen.push((name.clone(), drake_name.to_owned()));
                continue;
            }
            for (k, (what, d)) in devs.into_iter().enumerate() {
                per_quantity[k] = (what, per_quantity[k].1.max(d));
                if d > STATIC_TOLERANCE {
                    failures.push(format!(
                        "{name}: body {drake_name}: {what} deviates by {d:e} from Drake"
                    ));
                }
            }
            if dev > worst.0 {
                worst = (dev, format!("{name} {drake_name}"));
            }
            bodies += 1;
        }
        judged += 1;
    }
    eprintln!(
        "{judged} files, {bodies} bodies judged; worst relative deviation {:e} ({})",
        worst.0, worst.1
    );
    eprintln!("worst per quantity: {per_quantity:?}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Without the corpus, only the fixtures' entries can be seen.
    let expected = DISAGREEMENTS
        .iter()
        .filter(|(f, ..)| {
            f.starts_with("fixtures__") || mbconv_test_support::corpus_file("sdf/README.md").is_some()
        })
        .count();
    assert_eq!(
        disagreements_seen.len(),
        expected,
        "DISAGREEMENTS lists bodies not judged"
    );
    assert!(judged >= 5, "only {judged} files judged");
}

#[test]
fn solver_trajectories_agree_with_drake() {
    let mut excluded_seen = Vec::new();
    let mut judged = 0;
    let mut overall = (0.0_f64, String::new());
    let mut failures = Vec::new();
    for (name, golden) in golden_files() {
        let trajectory = &golden["trajectory"];
        if trajectory.is_null() {
            continue;
        }
        let Some(path) = model_path(&name, &golden) else {
            continue;
        };
        if TRAJECTORY_EXCLUDED.iter().any(|(f, _)| *f == name) {
            excluded_seen.push(name);
            continue;
        }
        let convergence = trajectory["convergence"].as_f64().expect("convergence");
        assert!(
            convergence < TRAJECTORY_TOLERANCE / 100.0,
            "{name}: Drake's two accuracies differ by {convergence:e} m"
        );
        let mut model = read(&path, &options(&path, &golden)).expect("read");
        let world = is_world(&path);
        let changed = as_drake_reads_it(&mut model, &golden);
        start_where_drake_started(&mut model, trajectory, world, &name);
        let options = SimulateOptions {
            duration: trajectory["duration"].as_f64().expect("duration"),
            dt: 1e-4,
            integrator: Integrator::Rk4,
            every: 1000,
            energy: false,
            joint_limits: false,
            max_steps: None,
        };
        let solver = mbconv_solver::Model::new(&model).expect("a solver model");
        let names: Vec<String> = solver.body_names().map(str::to_owned).collect();
        let mut samples: Vec<Vec<[f64; 7]>> = Vec::new();
        mbconv_solver::simulate(&model, &options, &mut |s| samples.push(s.poses.to_vec()))
            .expect("simulated");
        let drake_samples = trajectory["samples"].as_array().expect("samples");
        assert_eq!(samples.len(), drake_samples.len(), "{name}: samples");
        let mut worst = 0.0_f64;
        for (b, drake_name) in trajectory["bodies"]
            .as_array()
            .expect("bodies")
            .iter()
            .enumerate()
        {
            let drake_name = drake_name.as_str().expect("name");
            let ours = our_name(drake_name, world);
            let body = model.bodies.iter().find(|x| x.name == ours).expect("the body");
            let i = names.iter().position(|n| *n == ours).expect("a solver body");
            for (k, sample) in drake_samples.iter().enumerate() {
                let com = world_com(body, &samples[k][i]);
                let d = relative_deviation(com.as_slice(), &floats(&sample["com"][b]));
                let t = sample["t"].as_f64().expect("t");
                if d > TRAJECTORY_TOLERANCE {
                    failures.push(format!(
                        "{name}: body {drake_name} at t = {t}: COM off by {d:e} m"
                    ));
                }
                worst = worst.max(d);
            }
        }
        eprintln!(
            "{name}: worst {worst:e} m over 1 s (Drake's convergence {convergence:e} m; as Drake reads it: {changed:?})"
        );
        if worst > overall.0 {
            overall = (worst, name.clone());
        }
        judged += 1;
    }
    let mut listed: Vec<&str> = TRAJECTORY_EXCLUDED.iter().map(|(f, _)| *f).collect();
    listed.sort_unstable();
    assert_eq!(
        excluded_seen, listed,
        "TRAJECTORY_EXCLUDED lists files without golden trajectories"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!(
        "{judged} trajectories judged; worst {:e} m ({})",
        overall.0, overall.1
    );
    // The fixtures alone give 5 (without the corpus); the corpus adds 9.
    assert!(judged >= 5, "only {judged} trajectories judged");
}
