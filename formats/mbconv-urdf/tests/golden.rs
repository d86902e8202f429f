//! mbconv's reading of URDF judged by MuJoCo 4.0, Pinocchio 4.1, Drake 1.51.1 and DART 6.20
//! (golden data in `tests/golden/read`, written by `cargo xtask golden urdf` from
//! `oracles/urdf/urdf_golden.py`; the tests never run a simulator).
//!
//! For every fixture and corpus file, and every library that loads it, every body the library
//! built agrees with mbconv's reading (read with the root as that library treats it: welded
//! for MuJoCo and Pinocchio, free for Drake and DART) at the zero configuration: its mass and
//! world centre of mass against the union of mbconv's bodies for the links the library put in
//! it (MuJoCo fuses fixed links into their parent and the root into the world, Pinocchio puts
//! the links of fixed joints on the body of their moving joint), and the world pose of every
//! link frame. A library that refuses a file refuses it for a reason listed in [`REFUSALS`];
//! where one library disagrees with the others the rule is in [`DISAGREEMENTS`], each used.
//! mbconv's solver follows MuJoCo's 1 s RK4 trajectories (contact off, dt 1e-4) to 1e-6 m;
//! the trajectories left out are in [`TRAJECTORY_EXCLUDED`] with the reason measured.
//! Corpus files are skipped (with a notice) when the shared corpus is absent.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use mbconv_ir::format::{Format, Options, Source};
use mbconv_solver::{Integrator, SimulateOptions};
use mbconv_test_support::read_golden::ReadGolden;
use mbconv_test_support::written_golden::relative_deviation;
use nalgebra::{Point3, Quaternion, UnitQuaternion, Vector3};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// Agreement asked for at the zero configuration: relative to the size of the quantity (at
/// least 1), so 1e-9 kg and 1e-9 m on unit-sized models.
const STATIC_TOLERANCE: f64 = 1e-9;

/// Trajectory agreement asked for: 1e-6 m on every body's frame and centre of mass over 1 s.
const TRAJECTORY_TOLERANCE: f64 = 1e-6;

/// The libraries of the golden data, in its order.
const LIBRARIES: [&str; 4] = ["mujoco", "pinocchio", "drake", "dart"];

/// Why a library refuses a file mbconv reads: (library, a piece of its error or of what it
/// printed, the reason, and what mbconv does). Every refusal in the golden data must match one
/// entry and every entry must be used.
const REFUSALS: &[(&str, &str, &str)] = &[
    (
        "mujoco",
        "Error opening file 'package:",
        "MuJoCo has no package map: a package:// mesh is a missing file. mbconv resolves \
         package:// through package_path and ROS_PACKAGE_PATH (a warning keeps the URI) and \
         reads no mesh",
    ),
    (
        "mujoco",
        "Error opening file 'file:",
        "MuJoCo takes a relative file:// URI as a path with 'file:' in it; mbconv resolves it \
         against the file's directory, as urdfdom's users do",
    ),
    (
        "mujoco",
        "URDF joint parent or child missing",
        "a joint from a `world` link the file does not declare: MuJoCo and urdfdom refuse it, \
         Drake and mbconv read it as the world (finding urdf.world_undeclared)",
    ),
    (
        "mujoco",
        "inertia must have positive eigenvalues",
        "the `world` link carries an <inertial> with a singular tensor (Pendulum.urdf): MuJoCo \
         checks it, mbconv drops the world link's inertial as Drake and DART do (finding \
         urdf.world_content)",
    ),
    (
        "mujoco",
        "mass and inertia of moving bodies must be larger than mjMINVAL",
        "a moving link with no mass (double_pendulum.urdf): MuJoCo refuses it, Pinocchio, Drake \
         and DART build it, and so does mbconv (its solver needs mass only where a joint has \
         nothing else to move)",
    ),
    (
        "mujoco",
        "missing element: 'inertia'",
        "an <inertial> without <inertia>: urdfdom reads a zero tensor and so does mbconv \
         (defaulted); MuJoCo refuses",
    ),
    (
        "mujoco",
        "stl_decoder",
        "MuJoCo's STL decoder refuses the ASCII STL box.stl; mbconv keeps meshes by path and \
         decodes none",
    ),
    (
        "pinocchio",
        "parent link [world] of joint",
        "urdfdom refuses a joint from an undeclared `world` link; Drake and mbconv read it as \
         the world (finding urdf.world_undeclared)",
    ),
    (
        "pinocchio",
        "Visual material must contain a name attribute",
        "urdfdom refuses a <material> without a name (acrobot.urdf); Drake and mbconv read it",
    ),
    (
        "dart",
        "parent link [world] of joint",
        "urdfdom refuses a joint from an undeclared `world` link; Drake and mbconv read it as \
         the world (finding urdf.world_undeclared)",
    ),
    (
        "dart",
        "Visual material must contain a name attribute",
        "urdfdom refuses a <material> without a name (acrobot.urdf); Drake and mbconv read it",
    ),
    (
        "dart",
        "only version 1.0 is currently supported",
        "DART 6.20's urdfdom knows only version 1.0 and refuses version=\"1.1\"; Pinocchio \
         4.1's urdfdom, Drake and mbconv read 1.1 (quat_xyzw)",
    ),
    (
        "dart",
        "Failed loading mesh",
        "DartLoader refuses a skeleton whose mesh it cannot load (an unknown package, an https \
         URI, a relative file:// URI); mbconv keeps meshes by path and decodes none",
    ),
];

/// Where one library departs from the others (and from mbconv): (library, rule, what it
/// does). [`disagreement`] says where each applies; every rule must be seen at least once.
const DISAGREEMENTS: &[(&str, &str, &str)] = &[
    (
        "dart",
        "dart_default_inertia",
        "DartLoader gives a link without <inertial> a default inertia of 1 kg at the link \
         origin; urdfdom, Pinocchio, Drake, MuJoCo and mbconv give it no mass (its pose is \
         still compared)",
    ),
    (
        "pinocchio",
        "pinocchio_world_inertia",
        "Pinocchio adds the <inertial> of a link named `world` to its universe (Pendulum.urdf: \
         0.01 kg); for MuJoCo, Drake, DART and mbconv the world has no mass (finding \
         urdf.world_content)",
    ),
    (
        "drake",
        "drake_floating_joint",
        "Drake builds no `floating` joint: it leaves the child a free body at the identity \
         (\"Leaving 'torso' as a free body\"), dropping the joint's origin, so the child and \
         its subtree sit off by that origin; MuJoCo, Pinocchio and mbconv place the child at \
         the origin",
    ),
];

/// Trajectories left out of the solver comparison: (golden file, reason). The test still
/// runs them and fails if one agrees (then it comes off this list); the deviation measured
/// is printed.
const TRAJECTORY_EXCLUDED: &[(&str, &str)] = &[
    (
        "corpus__sdformat__test__sdf__joint_mimic_rack_pinion.urdf.json",
        "mimic: MuJoCo 4.0 makes it a joint equality (soft); mbconv does not couple the joints",
    ),
    (
        "fixtures__rotated_inertia.urdf.json",
        "<dynamics friction>: MuJoCo makes it frictionloss, a constraint; mbconv's solver uses \
         a smoothed Coulomb torque",
    ),
    (
        "corpus__example-robot-data__robots__simple_humanoid_description__urdf__simple_humanoid_classical.urdf.json",
        "joints reach their limits within 1 s: MuJoCo's limits are soft constraints, mbconv's \
         solver runs without limits (as the other trajectory comparisons do)",
    ),
];

/// The golden data of the reader.
fn read_golden() -> ReadGolden {
    ReadGolden::new(env!("CARGO_MANIFEST_DIR"), "tests/golden/read", "urdf")
}

/// mbconv's reading with the root as `library` treats it, and the package roots the oracle
/// was given.
fn read(path: &Path, library: &str) -> mbconv_ir::Model {
    let mut options = Options::default();
    let free = matches!(library, "drake" | "dart");
    options.set("root", if free { "free" } else { "fixed" });
    let fixtures = mbconv_test_support::fixtures_root().join("urdf/packages");
    options.set("package_path", fixtures.to_string_lossy());
    let source = Source::from_path(path).unwrap();
    mbconv_urdf::UrdfFormat
        .read(&source, &options)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .model
}

fn floats(v: &Value) -> Vec<f64> {
    match v {
        Value::Array(a) => a.iter().map(|x| x.as_f64().expect("a number")).collect(),
        x => vec![x.as_f64().expect("a number")],
    }
}

/// Deviation of two unit quaternions (w, x, y, z), either sign.
fn quat_deviation(ours: &[f64], theirs: &[f64]) -> f64 {
    let minus: Vec<f64> = ours.iter().map(|x| -x).collect();
    relative_deviation(ours, theirs).min(relative_deviation(&minus, theirs))
}

fn pose_of(body: &mbconv_ir::Body) -> [f64; 7] {
    let (t, q) = (body.pose.translation, body.pose.rotation);
    [t.x, t.y, t.z, q.w, q.i, q.j, q.k]
}

/// World centre of mass of a body at the given body-frame pose.
fn world_com(body: &mbconv_ir::Body, pose: [f64; 7]) -> Vector3<f64> {
    let rotation = UnitQuaternion::from_quaternion(Quaternion::new(pose[3], pose[4], pose[5], pose[6]));
    rotation.transform_point(&Point3::from(body.inertial.com)).coords
        + Vector3::new(pose[0], pose[1], pose[2])
}

/// Total mass and combined world centre of mass of `links` (those mbconv has as bodies; the
/// world link has none), at the poses `pose` gives; None when a link is unknown to mbconv.
fn union(
    model: &mbconv_ir::Model,
    links: &[&str],
    pose: &dyn Fn(&mbconv_ir::Body) -> [f64; 7],
) -> Result<(f64, Vector3<f64>), String> {
    let mut mass = 0.0;
    let mut moment = Vector3::zeros();
    for link in links {
        let Some(body) = model.bodies.iter().find(|b| b.name == *link) else {
            if *link == "world" {
                continue;
            }
            return Err(format!("no body {link:?} in mbconv's reading"));
        };
        mass += body.inertial.mass;
        moment += body.inertial.mass * world_com(body, pose(body));
    }
    let com = if mass > 0.0 { moment / mass } else { moment };
    Ok((mass, com))
}

fn names(list: &Value) -> Vec<&str> {
    list.as_array()
        .expect("a list")
        .iter()
        .map(|x| x.as_str().expect("a name"))
        .collect()
}

/// The links of the subtrees of mbconv's bodies named in `roots` (each root included).
fn subtrees(model: &mbconv_ir::Model, roots: &[String]) -> Vec<String> {
    let mut found: Vec<String> = roots.to_vec();
    let mut grew = true;
    while grew {
        grew = false;
        for joint in &model.joints {
            let (mbconv_ir::BodyRef::Body(parent), mbconv_ir::BodyRef::Body(child)) =
                (&joint.parent, &joint.child)
            else {
                continue;
            };
            if found.contains(parent) && !found.contains(child) {
                found.push(child.clone());
                grew = true;
            }
        }
    }
    found
}

/// The bodies Drake left free in place of a `floating` joint, from what it printed.
fn drake_floating(result: &Value) -> Vec<String> {
    let log = result["log"].as_array().expect("log");
    log.iter()
        .filter_map(|line| line.as_str())
        .filter_map(|line| line.split_once("Leaving '"))
        .filter_map(|(_, rest)| rest.split_once("' as a free body"))
        .map(|(name, _)| name.to_owned())
        .collect()
}

/// The rule of [`DISAGREEMENTS`] that explains why the library's body or link frame (`links`,
/// with the library's mass for a body) is not mbconv's, if one applies; `pose` asks about the
/// link frame, else about mass and centre of mass.
fn disagreement(
    library: &str,
    result: &Value,
    model: &mbconv_ir::Model,
    links: &[&str],
    mass: Option<f64>,
) -> Option<&'static str> {
    let ours_mass: f64 = model
        .bodies
        .iter()
        .filter(|b| links.contains(&b.name.as_str()))
        .map(|b| b.inertial.mass)
        .sum();
    let applies = |rule: &str| match rule {
        "dart_default_inertia" => links.len() == 1 && ours_mass == 0.0 && mass == Some(1.0),
        "pinocchio_world_inertia" => links.contains(&"world") && mass.is_some_and(|m| m > ours_mass),
        "drake_floating_joint" => {
            let moved = subtrees(model, &drake_floating(result));
            links.iter().any(|l| moved.iter().any(|m| m == l))
        }
        _ => false,
    };
    DISAGREEMENTS
        .iter()
        .find(|(lib, rule, _)| *lib == library && applies(rule))
        .map(|(_, rule, _)| *rule)
}

/// Every deviation of one library's reading from mbconv's: (worst deviation, problems).
fn judge_library(
    file: &str,
    library: &str,
    model: &mbconv_ir::Model,
    result: &Value,
    rules_seen: &mut BTreeMap<&'static str, usize>,
) -> (f64, Vec<String>) {
    let mut worst = 0.0_f64;
    let mut problems = Vec::new();
    let mut check = |problems: &mut Vec<String>, what: String, dev: f64| {
        worst = worst.max(dev);
        if dev > STATIC_TOLERANCE {
            problems.push(format!("{file}: {library}: {what} deviates by {dev:e}"));
        }
    };
    let poses = |b: &mbconv_ir::Body| pose_of(b);
    for body in result["bodies"].as_array().expect("bodies") {
        let name = body["name"].as_str().expect("name");
        let links = names(&body["links"]);
        let mass = body["mass"].as_f64().expect("mass");
        if let Some(rule) = disagreement(library, result, model, &links, Some(mass)) {
            *rules_seen.entry(rule).or_default() += 1;
            continue;
        }
        match union(model, &links, &poses) {
            Ok((ours, com)) => {
                check(
                    &mut problems,
                    format!("body {name} ({}) mass", links.join("+")),
                    relative_deviation(&[ours], &[mass]),
                );
                if ours > 0.0 {
                    check(
                        &mut problems,
                        format!("body {name} ({}) com", links.join("+")),
                        relative_deviation(com.as_slice(), &floats(&body["com"])),
                    );
                }
            }
            Err(e) => problems.push(format!("{file}: {library}: body {name}: {e}")),
        }
    }
    // Link frames: Pinocchio lists them apart from its bodies (named by their joints); the
    // others' bodies are named by their link.
    let frames = if result["frames"].is_array() {
        &result["frames"]
    } else {
        &result["bodies"]
    };
    for frame in frames.as_array().expect("frames") {
        let name = frame["name"].as_str().expect("name");
        let Some(body) = model.bodies.iter().find(|b| b.name == name) else {
            if name != "world" {
                problems.push(format!("{file}: {library}: no body {name:?} in mbconv"));
            }
            continue;
        };
        if let Some(rule) = disagreement(library, result, model, &[name], None) {
            *rules_seen.entry(rule).or_default() += 1;
            continue;
        }
        let pose = pose_of(body);
        check(
            &mut problems,
            format!("link {name} position"),
            relative_deviation(&pose[..3], &floats(&frame["pos"])),
        );
        check(
            &mut problems,
            format!("link {name} rotation"),
            quat_deviation(&pose[3..], &floats(&frame["quat"])),
        );
    }
    (worst, problems)
}

#[test]
fn golden_data_covers_exactly_the_fixtures() {
    read_golden().assert_covers_fixtures(&["urdf"]);
}

#[test]
fn every_library_that_loads_a_file_reads_it_as_mbconv_does() {
    let mut problems = Vec::new();
    let mut rules_seen: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut refusals_seen: BTreeMap<&str, usize> = BTreeMap::new();
    let mut judged: BTreeMap<&str, usize> = BTreeMap::new();
    let mut worst: BTreeMap<&str, (f64, String)> = BTreeMap::new();
    let mut files = 0;
    for (name, golden) in read_golden().files() {
        let Some(path) = read_golden().model_path(&name, &golden) else {
            continue;
        };
        files += 1;
        for library in LIBRARIES {
            let result = &golden[library];
            if result["loads"].as_bool() != Some(true) {
                let error = result["error"].as_str().expect("error");
                let printed = result["log"].to_string();
                match REFUSALS.iter().find(|(lib, piece, _)| {
                    *lib == library && (error.contains(piece) || printed.contains(piece))
                }) {
                    Some((_, piece, _)) => *refusals_seen.entry(piece).or_default() += 1,
                    None => problems.push(format!(
                        "{name}: {library} refuses it and no REFUSALS entry says why: {error}"
                    )),
                }
                // mbconv reads every file a library refuses (corpus.rs reads every file).
                read(&path, library);
                continue;
            }
            let model = read(&path, library);
            let (dev, found) = judge_library(&name, library, &model, result, &mut rules_seen);
            problems.extend(found);
            *judged.entry(library).or_default() += 1;
            let entry = worst.entry(library).or_insert((0.0, String::new()));
            if dev > entry.0 {
                *entry = (dev, name.clone());
            }
        }
    }
    for (library, (dev, file)) in &worst {
        eprintln!(
            "{library}: {} files agree; worst relative deviation {dev:e} ({file})",
            judged.get(library).copied().unwrap_or(0)
        );
    }
    eprintln!("disagreements applied: {rules_seen:?}; refusals: {refusals_seen:?}");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    if files > 5 {
        for (lib, rule, _) in DISAGREEMENTS {
            assert!(
                rules_seen.contains_key(rule),
                "{lib}: rule {rule} never applied: take it off DISAGREEMENTS"
            );
        }
        for (lib, piece, _) in REFUSALS {
            assert!(
                refusals_seen.contains_key(piece),
                "{lib}: no refusal contains {piece:?}: take it off REFUSALS"
            );
        }
    }
    assert!(judged.values().sum::<usize>() >= 15, "only {judged:?} judged");
}

/// Body-frame poses of every body (by name) along a simulation, by mbconv's solver.
fn solver_poses(model: &mbconv_ir::Model, options: &SimulateOptions) -> BTreeMap<String, Vec<[f64; 7]>> {
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

/// The worst deviation (m) of mbconv's solver from MuJoCo's trajectory in `golden`, and where.
fn trajectory_deviation(path: &Path, golden: &Value) -> (f64, String) {
    let trajectory = &golden["mujoco"]["trajectory"];
    let model = read(path, "mujoco");
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
    let bodies = golden["mujoco"]["bodies"].as_array().expect("bodies");
    let mut worst = (0.0_f64, String::new());
    for (b, body) in bodies.iter().enumerate() {
        let body_name = body["name"].as_str().expect("name");
        let links = names(&body["links"]);
        assert_eq!(poses[body_name].len(), samples.len(), "samples");
        for (k, sample) in samples.iter().enumerate() {
            let at = |x: &mbconv_ir::Body| poses[&x.name][k];
            let (_, com) = union(&model, &links, &at).expect("the links");
            let frame = poses[body_name][k];
            let com_dev = relative_deviation(com.as_slice(), &floats(&sample["com"][b]));
            let pos_dev = relative_deviation(&frame[..3], &floats(&sample["pos"][b]));
            if pos_dev.max(com_dev) > worst.0 {
                let t = sample["t"].as_f64().expect("t");
                worst = (pos_dev.max(com_dev), format!("body {body_name} at t = {t}"));
            }
        }
    }
    worst
}

#[test]
fn solver_trajectories_agree_with_mujoco() {
    let mut judged = 0;
    let mut problems = Vec::new();
    for (name, golden) in read_golden().files() {
        let trajectory = &golden["mujoco"]["trajectory"];
        if trajectory.is_null() {
            continue;
        }
        let Some(path) = read_golden().model_path(&name, &golden) else {
            continue;
        };
        let constrained = trajectory["limit_reached"].as_bool() == Some(true)
            || trajectory["equality_constraints"].as_u64() != Some(0)
            || trajectory["frictionloss"].as_bool() == Some(true);
        let (worst, at) = trajectory_deviation(&path, &golden);
        match TRAJECTORY_EXCLUDED.iter().find(|(f, _)| *f == name) {
            Some((_, reason)) => {
                eprintln!("{name}: left out, {worst:e} m ({at}): {reason}");
                if worst <= TRAJECTORY_TOLERANCE {
                    problems.push(format!(
                        "{name} agrees ({worst:e} m): take it off TRAJECTORY_EXCLUDED"
                    ));
                }
            }
            None => {
                eprintln!("{name}: worst {worst:e} m over 1 s ({at})");
                // A limit, equality or frictionloss MuJoCo used may leave the motion alone
                // (a symmetric mimic, a friction far below the loads): judged all the same.
                if worst > TRAJECTORY_TOLERANCE {
                    let why = if constrained {
                        ": MuJoCo's trajectory uses a constraint (limit, equality or \
                         frictionloss); if that is the cause, list it in TRAJECTORY_EXCLUDED"
                    } else {
                        ""
                    };
                    problems.push(format!("{name}: {worst:e} m ({at}){why}"));
                }
                judged += 1;
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    for (file, _) in TRAJECTORY_EXCLUDED {
        assert!(
            read_golden()
                .files()
                .iter()
                .any(|(n, g)| n == file && !g["mujoco"]["trajectory"].is_null()),
            "{file} has no MuJoCo trajectory: take it off TRAJECTORY_EXCLUDED"
        );
    }
    assert!(judged >= 3, "only {judged} trajectories judged");
}
