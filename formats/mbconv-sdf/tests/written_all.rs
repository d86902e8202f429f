//! The SDFormat writer judged by Drake on every other model: the golden data of
//! `tests/golden/written_all/` (written by `cargo xtask golden sdf-written` from
//! `oracles/drake/sdf_written_golden.py`; these tests never run Drake) says, for the SDFormat
//! mbconv writes from every fixture of the other formats (`fixtures/{body,chrono,ir,mjcf,shift,
//! skel,urdf}`) and every corpus model a format other than SDFormat reads, whether Drake 1.51
//! loads it (else its error) and, when it does, what Drake built and its 1 s contact-free
//! trajectory (every revolute, prismatic, screw and universal joint started at 0.3 and 0.5 per
//! second; error-controlled RK3 at accuracy 1e-12; world centres of mass every 0.1 s).
//!
//! The tests write each SDFormat text again (its hash must be the one judged), check that Drake
//! loaded it (but the refusals listed in [`REFUSALS`], each with its reason shown on mbconv's
//! reading of the text: a loop Drake refuses is a loop there; and the trajectories Drake could
//! not run,
//! [`TRAJECTORY_REFUSALS`]), read it back with mbconv and simulate it with mbconv's solver from
//! Drake's start, after bringing it to what Drake reads (`drake::as_drake_reads_it`: Drake
//! ignores the world's `<gravity>`, joint friction and the springs of universal and screw
//! joints; what changed is printed): RK4 at 1e-4 s, or Dopri5 ([`STIFF`]) where RK4's fixed step
//! diverges; every centre of mass agrees with Drake's within [`TRAJECTORY_TOLERANCE`]. Where
//! Drake's own two accuracies differ by more than a hundredth of the tolerance, that difference
//! is printed beside mbconv's (the convergence shown).
//!
//! A written SDFormat file is always one `<world>`, so Drake's body `<instance>::<link>` is
//! mbconv's body of that name. Corpus entries are judged when `../shared/corpus` (or
//! `$MBCONV_CORPUS`) is present and skipped with a notice otherwise.
#![allow(clippy::unwrap_used)]

#[path = "support/drake.rs"]
mod drake;

use mbconv_ir::format::{Exported, Format, Options, Source};
use mbconv_ir::kinematics::{Attachment, SpanningTree};
use mbconv_solver::Integrator;
use mbconv_test_support::written_golden::{RefusalTally, WrittenSuite, source_path};
use serde_json::Value;
use std::path::Path;

/// Agreement asked for between Drake's and mbconv's centres of mass over 1 s (m), relative to
/// max(1, |Drake's coordinate|).
const TRAJECTORY_TOLERANCE: f64 = 1e-6;

/// The integrator of a model whose RK4 run at 1e-4 s diverges (stiff: a light link behind a
/// damper, like MuJoCo's Allegro hand), error-controlled like Drake's.
const STIFF: Integrator = Integrator::Dopri5 {
    rtol: 1e-11,
    atol: 1e-13,
};

/// Bodies whose mass Drake reads otherwise than the file says, left out of the comparison:
/// (golden name, Drake's body name, why). The test checks that Drake's mass is not the file's.
const DRAKE_READS_OTHERWISE: &[(&str, &str, &str)] = &[(
    "corpus__skel__test__inertia_from_shapes.skel",
    "shape inertia coverage::zero_mass",
    "a free link of mass 0 with a unit inertia (DART's test of zero mass): Drake warns \
     (\"While re-expressing as central inertia: ... condition 'mass > 0' failed\") and gives the \
     link a mass of 1 kg, so it falls; mbconv keeps the mass 0, and a massless free body is \
     moved by no force",
)];

/// The fixture folders whose models are written as SDFormat (`xtask/src/written.rs`, `SDF`).
const FIXTURE_DIRS: [&str; 7] = ["body", "chrono", "ir", "mjcf", "shift", "skel", "urdf"];

/// What a refusal must be shown to be, on mbconv's reading of the written text.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Shown {
    /// A closed loop: the spanning tree has a loop-closing joint.
    Loop,
}

/// Drake's refusals of an SDFormat file mbconv writes: (the words of Drake's error and log,
/// `|`-separated; what mbconv's reading of the text must show; why); the first that matches
/// counts. Each refusal must match one of these; each line must still match a refusal (else it
/// is stale).
const REFUSALS: &[(&str, Shown, &str)] = &[(
    "form one or more loops in the system graph",
    Shown::Loop,
    "a closed loop: SDFormat holds it as a joint whose child already has a parent \
         (libsdformat and Gazebo read it), and Drake refuses loops in SDFormat",
)];

/// Drake's trajectories that did not run (`trajectory_error`): (its words, why). Each must match
/// one; each line must still match one.
const TRAJECTORY_REFUSALS: &[(&str, &str)] = &[
    (
        "RpyBallMobilizer | singularity",
        "Drake's SDFormat ball joint is a BallRpyJoint (roll-pitch-yaw coordinates), which stops \
         at pitch ±π/2 (a gimbal singularity) when the motion reaches it; mbconv's ball joint is \
         a quaternion and has none",
    ),
    (
        "the trajectory took more than",
        "Drake's error-controlled RK3 at accuracy 1e-12 needed more than 90 s of wall time (on two \
         shared cores) for 1 s of motion of these larger or stiffer models",
    ),
    (
        "Error control wants to select step smaller than minimum allowed",
        "DART's kima_human_left_leg.skel: its hip is an Euler joint, which SDFormat cannot say, \
         written as a chain of three revolute joints (z, y, x) through massless links. Started \
         off zero as every revolute joint is, the motion takes the middle angle to -pi/2 at \
         t = 0.577 s: the gimbal singularity, where the first and third axes align and the mass \
         matrix is singular (smallest eigenvalue 5.5e-16 there, measured with Drake), so Drake's \
         error control stops. The source's Euler joint has the same singularity in DART and in \
         mbconv's solver",
    ),
];

/// The SDFormat writer's suite: every corpus trajectory is re-simulated with
/// `MBCONV_SDF_WRITTEN_ALL=1`, else a sample, so that the test stays short on two shared cores.
fn suite() -> WrittenSuite {
    WrittenSuite {
        registry: mbconv::formats(),
        to: "sdf",
        name: "SDFormat",
        golden_dir: Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/written_all"),
        simulator: "drake",
        judges: "Drake",
        all_trajectories: "MBCONV_SDF_WRITTEN_ALL",
    }
}

/// mbconv's reading of the written text (with `read_back_options`), placed beside the source so
/// that relative mesh paths resolve as in the scratch folder.
fn read_back(name: &str, path: &Path, written: &Exported) -> mbconv_ir::Model {
    let options = mbconv_sdf::SdfFormat.read_back_options(&Options::default(), written);
    let beside = path.with_file_name("written.sdf");
    let source = Source::from_string("written.sdf", written.text.clone())
        .with_path(format!("{name}.sdf"), Some(beside));
    mbconv_sdf::SdfFormat
        .read(&source, &options)
        .unwrap_or_else(|e| panic!("{name}: mbconv cannot read its own SDFormat: {e}"))
        .model
}

#[test]
fn every_fixture_of_the_other_formats_is_written_as_the_text_drake_judged() {
    suite().assert_fixtures_judged(&FIXTURE_DIRS, &[]);
}

/// Drake's error and log as one text.
fn error_and_log(result: &Value) -> String {
    let mut text = result["error"].as_str().unwrap_or_default().to_owned();
    for line in result["log"].as_array().into_iter().flatten() {
        text.push('\n');
        text.push_str(line.as_str().unwrap_or_default());
    }
    text
}

/// Checks that mbconv's reading of the written text shows what `shown` says.
fn show(name: &str, golden: &Value, shown: Shown) {
    let source = golden["source"].as_str().unwrap();
    let Some(path) = source_path(source) else {
        return;
    };
    let written = suite().write(source, &path).unwrap();
    let model = read_back(name, &path, &written);
    match shown {
        Shown::Loop => assert!(
            !SpanningTree::new(&model).loop_joints.is_empty(),
            "{name}: Drake refuses a loop, but mbconv reads no loop from the text"
        ),
    }
}

#[test]
fn every_written_sdf_loads_in_drake_but_the_listed_refusals() {
    let mut tally = RefusalTally::new(REFUSALS.iter().map(|(words, ..)| *words));
    let mut trajectory_tally = RefusalTally::new(TRAJECTORY_REFUSALS.iter().map(|(words, _)| *words));
    let files = suite().files();
    let mut loads = 0;
    for (name, golden) in &files {
        let result = &golden["drake"];
        if result["loads"].as_bool() == Some(true) {
            loads += 1;
            if let Some(error) = result["trajectory_error"].as_str()
                && trajectory_tally.explain(error, |_| true).is_none()
            {
                panic!("{name}: Drake's trajectory did not run: {error}");
            }
            continue;
        }
        let text = error_and_log(result);
        let Some(k) = tally.explain(&text, |_| true) else {
            panic!("{name}: Drake refuses mbconv's SDFormat: {text}");
        };
        show(name, golden, REFUSALS[k].1);
    }
    tally.assert_all_used("Drake refuses");
    trajectory_tally.assert_all_used("Drake's trajectory did not run for");
    eprintln!("of {} written files Drake loads {loads}", files.len());
}

/// Compares mbconv's trajectory of the written text with Drake's; returns the worst
/// deviation, what was changed to bring the model to Drake's reading and the samples off by
/// more than [`TRAJECTORY_TOLERANCE`].
fn compare(name: &str, path: &Path, written: &Exported, result: &Value) -> (f64, Vec<String>, Vec<String>) {
    let mut model = read_back(name, path, written);
    assert_eq!(
        Some(model.bodies.len() as u64),
        result["nbody"].as_u64(),
        "{name}: bodies"
    );
    let dof: usize = SpanningTree::new(&model)
        .attachments
        .iter()
        .map(|a| match a {
            Attachment::Joint { joint, .. } => model.joints[*joint].kind.nv(),
            Attachment::Floating => 6,
            Attachment::Fixed => 0,
        })
        .sum();
    assert_eq!(
        Some(dof as u64),
        result["nv"].as_u64(),
        "{name}: degrees of freedom"
    );
    let trajectory = &result["trajectory"];
    let changed = drake::as_drake_reads_it(&mut model, result);
    drake::start_where_drake_started(&mut model, trajectory, true, name);
    let skip: Vec<&str> = DRAKE_READS_OTHERWISE
        .iter()
        .filter(|(n, ..)| *n == name)
        .map(|(_, body, _)| {
            let drake = result["bodies"]
                .as_array()
                .unwrap()
                .iter()
                .find(|b| b["name"] == *body)
                .unwrap_or_else(|| panic!("{name}: Drake has no body {body}"));
            let ours = model.body(body).unwrap().inertial.mass;
            assert_ne!(
                drake["mass"].as_f64(),
                Some(ours),
                "{name}: Drake reads the mass of {body} as the file says: take it off \
                 DRAKE_READS_OTHERWISE"
            );
            *body
        })
        .collect();
    let compare = |integrator| {
        drake::compare_with_drake(
            name,
            &model,
            trajectory,
            true,
            TRAJECTORY_TOLERANCE,
            integrator,
            &skip,
        )
    };
    let (worst, failures) = compare(Integrator::Rk4);
    if failures.len() == 1 && failures[0].contains("mbconv's solver: simulation diverged") {
        // Stiff (a light link behind a damper): RK4's fixed step is past its stability limit.
        eprintln!("{name}: RK4 at 1e-4 s diverges, so {STIFF:?}: {}", failures[0]);
        let (worst, failures) = compare(STIFF);
        return (worst, changed, failures);
    }
    (worst, changed, failures)
}

#[test]
fn every_written_sdf_moves_in_mbconvs_solver_as_in_drake() {
    let mut failures = Vec::new();
    // A null trajectory is one of TRAJECTORY_REFUSALS.
    let keep = |_: &str, golden: &Value| !golden["drake"]["trajectory"].is_null();
    let judged = suite().judge_trajectories(keep, |name, golden, path, written| {
        let result = &golden["drake"];
        let (dev, changed, off) = compare(name, path, written, result);
        let convergence = result["trajectory"]["convergence"].as_f64().unwrap();
        if convergence >= TRAJECTORY_TOLERANCE / 100.0 {
            // Drake's coarse run (accuracy 1e-9, steps up to 1e-2 s) is off; its fine run is
            // what is compared, and mbconv's RK4 agreeing with it is the convergence shown.
            eprintln!(
                "{name}: Drake's two accuracies differ by {convergence:e} m; mbconv's RK4 and \
                 Drake's fine run differ by {dev:e} m"
            );
        }
        if let Some(first) = off.first() {
            failures.push(format!("{first} (and {} more samples)", off.len() - 1));
        }
        if !changed.is_empty() {
            eprintln!("{name}: as Drake reads it: {changed:?}");
        }
        Some(dev)
    });
    eprintln!(
        "{} trajectories agree with Drake; worst relative deviation {:e} ({})",
        judged.count, judged.worst.0, judged.worst.1
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    judged.assert_enough();
}
