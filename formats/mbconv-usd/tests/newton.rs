//! The USD writer judged by Newton on every other model: the golden data of
//! `tests/golden/newton/` (written by `cargo xtask golden usd-newton` from
//! `oracles/newton/usd_newton_golden.py`; these tests never run Newton) says, for the USD mbconv
//! writes from every fixture of the other formats and every Choreonoid, Chrono, MJCF, DART and
//! URDF model of the corpus (`xtask/src/written.rs`, `USD.corpus_dirs`),
//! whether Newton 1.8 loads it (else its error) and Newton's 1 s trajectory of it
//! (`SolverFeatherstone` on the CPU in 32-bit floats, semi-implicit Euler at dt 1e-3, no contact,
//! world poses and centres of mass every 0.1 s). The tests write each USD again (its hash must be
//! the one judged), read it back with mbconv and simulate it with mbconv's solver with the same
//! scheme and step (the model `mbconv check --via usd` compares with the original): where
//! Newton's law is mbconv's (no joint limit reached: Newton's limits are springs), every centre
//! of mass agrees within [`TRAJECTORY_TOLERANCE`], but the models [`DIFFERS`] lists, each with
//! why.
//!
//! Corpus entries are judged when `../shared/corpus` (or `$MBCONV_CORPUS`) is present and
//! skipped with a notice otherwise.
#![allow(clippy::unwrap_used)]

mod newton_motion;
mod written_usd;

use mbconv_ir::Model;
use mbconv_ir::format::{Exported, Format, Options};
use mbconv_test_support::written_golden::{RefusalTally, read_source, source_path};
use mbconv_usd::UsdFormat;
use serde_json::Value;
use std::path::Path;
use written_usd::suite;

/// Agreement asked for between Newton's and mbconv's centres of mass over 1 s (m), relative to
/// max(1, |Newton's coordinate|): the bound. The scheme and step are the same; Newton
/// runs in 32-bit floats.
const TRAJECTORY_TOLERANCE: f64 = 1e-4;

/// The fixture folders whose models are written as USD (`xtask/src/written.rs`, `USD`).
const FIXTURE_DIRS: [&str; 8] = ["body", "chrono", "ir", "mjcf", "sdf", "shift", "skel", "urdf"];

/// Fixtures the USD writer refuses: (fixture, words of the refusal).
const NOT_WRITTEN: &[(&str, &str)] = &[("fixtures/sdf/world_include.sdf", "cannot find \"model://crate\"")];

/// Newton's refusals of a USD mbconv writes: (the error's words, `|`-separated, why).
const REFUSALS: &[(&str, &str)] = &[(
    "Newton built no rigid body",
    "no body to build: the files of dm_control's suite/common are assets and materials included \
     by the models, and DART's empty.skel, test/empty.skel and test/drop_BENCHMARK.skel are worlds \
     with no skeleton (OpenUSD parses no rigid body either)",
)];

/// The loop-closing joint is excluded from the articulation (`physics:excludeFromArticulation`)
/// and `SolverFeatherstone` does not hold it: the loop opens.
const LOOPS: &str = "closed loops: SolverFeatherstone does not hold the loop-closing joint";
/// Newton starts an articulated body from its joint's rate: it reads `physics:velocity` and
/// `physics:angularVelocity` only on floating bodies, while UsdPhysics (and mbconv's reader)
/// take a jointed body's initial velocity from them (USD has no joint velocities). The writer
/// writes the rates Newton reads beside them (`newton:angular:velocity`, `newton:linear:velocity`,
/// `newton:rotX:velocity`, ...); Newton has none for a spherical joint or a generic joint's
/// translations, which start at rest.
const JOINT_VELOCITY: &str =
    "initial joint velocities: Newton starts a spherical joint or a generic joint's translations at rest";
/// Newton 1.8 reads a free body's `physics:velocity` in the body's own axes, where UsdPhysics
/// states the parent prim's space (mbconv writes the world's): measured on
/// `motion_elements.yaml`'s `tumbler` (yawed 1 rad, v0 (0.5, 0.2, 3) m/s), Newton's centre of
/// mass at 1 s is (0.102, -0.471, -0.905) m, the start plus the velocity turned by the body's yaw
/// plus gravity's fall, to the float. The same in `joint_free.skel` (measured: with the written
/// velocities turned into the bodies' axes Newton agrees, see `docs/formats/usd.md`), and by
/// the check's rule in chrono `bodies.yaml` and `sim_bodies.yaml` (turned floating bodies with
/// initial velocities, a floating root of an articulation among them).
const FREE_VELOCITY: &str = "initial velocities of floating bodies: Newton reads them in the body's axes";
/// A body the writer hangs from an articulation by a distance joint (its only hold; see the
/// writer's `Articulations::tree_distances`): Newton builds it, and `SolverFeatherstone`
/// integrates a `PhysicsDistanceJoint` as a free joint (its documentation: "DISTANCE (treated as
/// FREE)"), so the body falls where mbconv holds it at its distance.
const DISTANCE: &str = "constraints: SolverFeatherstone treats distance joints as free joints";
/// Newton's drives (`joint_target_ke`/`kd`, PD terms of Featherstone) are mbconv's springs and
/// dampers, applied explicitly, where mbconv's semi-implicit Euler takes joint springs and
/// dampers implicitly (DART's scheme): measured on `flags_off.xml`'s written USD, the tip's x at
/// 1 s is 0.149678 m in Newton at dt 1e-3, 0.149093 at 1e-4, 0.151259 in mbconv's semi-implicit
/// Euler at 1e-3, 0.149250 at 1e-4, and 0.149026 in mbconv's accurate runs (RK4 at 1e-4,
/// Dopri5): both converge to the same motion, at dt 1e-3 they part.
const DRIVES: &str =
    "joint springs, joint damping (drives): Newton integrates them explicitly, mbconv implicitly";

/// Joints with Coulomb friction (`newton:friction`; in `rotated_inertia.urdf` with a velocity
/// bound, `physxJoint:maxJointVelocity`): Newton moves 6e-4 m (`rotated_inertia.urdf`) and
/// 0.25 m (MuJoCo's `connect/multiple_constraints.xml`) away: `SolverFeatherstone` applies no
/// joint friction (its documentation lists `joint_friction` as not supported).
const FRICTION: &str = "joint Coulomb friction: SolverFeatherstone applies none";

/// A body the model exempts from gravity (DART's `<gravity>0</gravity>`; written as
/// `physxRigidBody:disableGravity` on the body): Newton 1.8 reads gravity on or off for the
/// scene only (`import_usd.py` reads `gravity_enabled` on the `PhysicsScene`), so the body falls
/// in Newton: measured on `test/test_single_body.skel`, Newton's `link 1` is 4.9099 m below its
/// start at 1 s (g = 9.81 m/s² over 1 s of semi-implicit Euler at dt 1e-3), mbconv's stays.
const BODY_GRAVITY: &str = "gravity: Newton switches gravity off per scene only, not per body";

/// Models whose trajectory in Newton is not mbconv's, measured, and why: Newton's law (or how
/// it builds the stage) differs. Each must still differ (else the line is stale), and the
/// words before the cause's colon name the features whose law `mbconv check --via usd` names
/// for it (see [`where_newton_moves_otherwise_the_check_names_newtons_law`]).
const DIFFERS: &[(&str, &str)] = &[
    ("fixtures__chrono__motion_elements.yaml", FREE_VELOCITY),
    (
        "fixtures__ir__cylindrical_point_planar_joints.mbir.json",
        JOINT_VELOCITY,
    ),
    ("fixtures__skel__initial_state_every_joint.skel", JOINT_VELOCITY),
    ("fixtures__chrono__constraints.yaml", DISTANCE),
    ("fixtures__mjcf__four_bar_connect.xml", LOOPS),
    ("fixtures__sdf__four_bar.sdf", LOOPS),
    ("fixtures__shift__loop.json", LOOPS),
    ("fixtures__shift__offset_loop.json", LOOPS),
    ("fixtures__chrono__bodies.yaml", FREE_VELOCITY),
    ("fixtures__chrono__sim_bodies.yaml", FREE_VELOCITY),
    ("fixtures__ir__asymmetric_inertia_top.mbir.json", JOINT_VELOCITY),
    ("fixtures__skel__free_body_spinning.skel", JOINT_VELOCITY),
    ("fixtures__skel__joint_free.skel", FREE_VELOCITY),
    ("fixtures__skel__sprung_arm.skel", DRIVES),
    ("fixtures__skel__sprung_chain.skel", JOINT_VELOCITY),
    (
        "corpus__mjcf__mujoco__test__engine__testdata__core_smooth__ten_armature_offtree.xml",
        DRIVES,
    ),
    (
        "corpus__mjcf__pinocchio__unittest__models__test_composite.xml",
        DRIVES,
    ),
    (
        "corpus__urdf__sdformat__test__integration__fixed_joint_reduction_joint_frame_extension.urdf",
        DRIVES,
    ),
    ("fixtures__mjcf__flags_constraint.xml", DRIVES),
    ("fixtures__mjcf__flags_off.xml", DRIVES),
    ("fixtures__mjcf__two_hinges_slide.xml", DRIVES),
    ("fixtures__sdf__degrees_1_12.sdf", DRIVES),
    (
        "corpus__mjcf__mujoco__test__engine__testdata__core_smooth__rne_post__connect__multiple_constraints.xml",
        FRICTION,
    ),
    ("fixtures__urdf__rotated_inertia.urdf", FRICTION),
    ("corpus__skel__test__test_single_body.skel", BODY_GRAVITY),
    (
        "corpus__sdf__gz-sim__examples__worlds__joint_trajectory_controller.sdf",
        DRIVES,
    ),
    ("corpus__sdf__gz-sim__test__worlds__demo_joint_types.sdf", DRIVES),
];

#[test]
fn every_fixture_of_the_other_formats_is_written_as_the_text_newton_judged() {
    suite().assert_fixtures_judged(&FIXTURE_DIRS, NOT_WRITTEN);
}

#[test]
fn every_written_usd_loads_in_newton_but_the_listed_refusals() {
    let mut tally = RefusalTally::new(REFUSALS.iter().map(|(words, _)| *words));
    let files = suite().files();
    let (mut loads, mut root_added) = (0, 0);
    for (name, golden) in &files {
        let result = &golden["newton"];
        if result["loads"].as_bool() == Some(true) {
            loads += 1;
            if result["articulation_root_added"].as_bool() == Some(true) {
                root_added += 1;
            }
            continue;
        }
        let error = result["error"].as_str().unwrap_or_default();
        if tally.explain(error, |_| true).is_none() {
            panic!("{name}: Newton refuses mbconv's USD: {error}");
        }
    }
    tally.assert_all_used("Newton refuses");
    eprintln!(
        "of {} written files Newton loads {loads} ({root_added} only with a \
         PhysicsArticulationRootAPI applied to the default prim)",
        files.len()
    );
}

/// The written text read back by mbconv (the model `mbconv check --via usd` compares).
fn read_back(name: &str, path: &Path, written: &Exported) -> Model {
    let options = UsdFormat.read_back_options(&Options::default(), written);
    let source = written_usd::written_source(name, path, written);
    UsdFormat
        .read(&source, &options)
        .unwrap_or_else(|e| panic!("{name}: mbconv cannot read its own USD: {e}"))
        .model
}

/// Models of which Newton builds fewer bodies than mbconv reads back from the same USD (or
/// builds one twice), measured, and why. Each must still lose one (else the line is stale).
const NOT_BUILT: &[(&str, &str)] = &[];

/// Every body of the written USD as mbconv reads it back is a body Newton builds, once (the
/// anchors aside): a body Newton leaves out would pass the trajectory comparison unnoticed,
/// which compares Newton's bodies only.
#[test]
fn newton_builds_every_body_mbconv_reads_back() {
    let (mut lost, mut listed_seen) = (Vec::new(), Vec::new());
    let judged = suite().judge_trajectories(
        |_, _| true,
        |name, golden, path, written| {
            let model = read_back(name, path, written);
            let newton: Vec<&str> = golden["newton"]["bodies"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|b| b["anchor"].as_bool() != Some(true))
                .filter_map(|b| b["name"].as_str())
                .collect();
            let count = |n: &str| newton.iter().filter(|m| **m == n).count();
            let wrong: Vec<String> = model
                .bodies
                .iter()
                .map(|b| b.name.as_str())
                .filter(|n| count(n) != 1)
                .map(|n| format!("{n} built {} times", count(n)))
                .collect();
            if NOT_BUILT.iter().any(|(n, _)| *n == name) {
                assert!(
                    !wrong.is_empty(),
                    "{name} is listed in NOT_BUILT but Newton builds every body once: remove it"
                );
                listed_seen.push(name.to_owned());
            } else if !wrong.is_empty() {
                lost.push(format!("{name}: {}", wrong.join(", ")));
            }
            Some(0.0)
        },
    );
    eprintln!(
        "Newton builds every body once in {} of {} written files ({} listed as not)",
        judged.count - listed_seen.len() - lost.len(),
        judged.count,
        listed_seen.len()
    );
    assert!(
        lost.is_empty(),
        "Newton does not build mbconv's bodies:\n{}",
        lost.join("\n")
    );
    judged.assert_enough();
}

/// mbconv's centres of mass of the written text read back, beside Newton's samples: the worst
/// relative deviation, and where (the writer's world anchors aside).
fn compare_with_newton(name: &str, path: &Path, written: &Exported, newton: &Value) -> (f64, String) {
    let model = read_back(name, path, written);
    newton_motion::deviation_from_newton(name, &model, newton, |body| {
        // an anchor is the writer's stand-in for the world, welded to it
        (body["anchor"].as_bool() != Some(true)).then(|| body["name"].as_str().unwrap().to_owned())
    })
}

#[test]
fn every_written_usd_moves_in_newton_as_in_mbconvs_solver() {
    let (mut limits, mut not_finite) = (0, 0);
    let mut differs_seen = Vec::new();
    let mut failures = Vec::new();
    let keep = |_: &str, golden: &Value| {
        let trajectory = &golden["newton"]["trajectory"];
        if trajectory["finite"].as_bool() != Some(true) {
            not_finite += 1;
            return false;
        }
        if !trajectory["limits"].as_array().unwrap().is_empty() {
            limits += 1; // Newton's joint limits are springs, mbconv's exact
            return false;
        }
        true
    };
    let judged = suite().judge_trajectories(keep, |name, golden, path, written| {
        let (deviation, place) = compare_with_newton(name, path, written, &golden["newton"]);
        let listed = DIFFERS.iter().any(|(n, _)| *n == name);
        if listed {
            if deviation <= TRAJECTORY_TOLERANCE {
                failures.push(format!(
                    "{name} is listed in DIFFERS but agrees with Newton ({deviation:e} m): remove it"
                ));
            }
            differs_seen.push(format!("{name}: {deviation:.1e} m"));
            return None;
        }
        if deviation > TRAJECTORY_TOLERANCE {
            failures.push(format!("{name}: {deviation:e} m ({place})"));
        }
        Some(deviation)
    });
    eprintln!(
        "{} trajectories agree with Newton ({limits} not compared: a joint limit acted, \
         {not_finite} not finite in Newton, {} listed as differing: {}); worst relative deviation \
         {:e} ({})",
        judged.count,
        differs_seen.len(),
        differs_seen.join(", "),
        judged.worst.0,
        judged.worst.1
    );
    assert!(
        failures.is_empty(),
        "Newton moves otherwise:\n{}",
        failures.join("\n")
    );
    judged.assert_enough();
}

/// The model a golden file's source holds, as mbconv reads it (`None` for a corpus file when
/// the corpus is not here).
fn source_model(registry: &mbconv_ir::format::Registry, name: &str, golden: &Value) -> Option<Model> {
    let shown = golden["source"].as_str().unwrap();
    let path = source_path(shown)?;
    let read = read_source(registry, shown, &path).unwrap_or_else(|e| panic!("{name}: {e}"));
    Some(read.model)
}

/// Models whose run in Newton is not finite, and the laws of Newton's that take it there
/// (features by their titles), each found by running Newton on the written stage
/// with that feature's data removed (limits widened to infinity, drive gains set to 0): the run
/// is finite without the listed features. Newton applies its limit springs (`limit_ke` 1e4,
/// `limit_kd` 10) and a drive's gains explicitly: at dt 1e-3 a joint whose inertia about its
/// axis is below dt·kd/2 diverges (a single hinge run into its limit in Newton 1.8: 4e-3 kg·m²
/// not finite from 0.37 s, 5.5e-3 finite). In `double_pendulum.urdf` both joints are locked by
/// their limits (lower = upper = 0) and the links weigh 4e-4 kg·m² about their axes: not
/// finite from 7e-3 s, as Newton reads the URDF too; the Allegro hands' fingers diverge by
/// either their limits or their damping alone; dm_control's arm (`manipulator.xml`,
/// `stacker.xml`) and `active_adhesion.xml` by their drives (the arm's limits alone from 0.07 s
/// too, but the check's run reaches none). Measured 2026-12-01 the same way: Choreonoid's
/// `UR10-2F85.body` (not finite at 1 s, 12 joints past their limits) and DART's
/// `test/dof_attribute_test.skel` (not finite from 0.1 s, 3 joints past their limits) are finite
/// for 1 s with their limits removed (and the first with an armature of 0.01 on every joint);
/// neither has a drive. DART's `test/inertia_from_shapes.skel` floats a body of zero mass
/// (`zero_mass`, held by no joint): not finite from 0.1 s, finite with its mass set to 1e-3 kg.
const NOT_FINITE: &[(&str, &str)] = &[
    (
        "corpus__urdf__example-robot-data__robots__double_pendulum_description__urdf__double_pendulum.urdf",
        "joint position limits",
    ),
    (
        "corpus__mjcf__menagerie__wonik_allegro__left_hand.xml",
        "joint damping, joint position limits",
    ),
    (
        "corpus__mjcf__menagerie__wonik_allegro__right_hand.xml",
        "joint damping, joint position limits",
    ),
    (
        "corpus__mjcf__menagerie__wonik_allegro__scene_left.xml",
        "joint damping, joint position limits",
    ),
    (
        "corpus__mjcf__menagerie__wonik_allegro__scene_right.xml",
        "joint damping, joint position limits",
    ),
    (
        "corpus__mjcf__dm_control__dm_control__suite__manipulator.xml",
        "joint springs, joint damping",
    ),
    (
        "corpus__mjcf__dm_control__dm_control__suite__stacker.xml",
        "joint springs, joint damping",
    ),
    (
        "corpus__mjcf__mujoco__model__adhesion__active_adhesion.xml",
        "joint springs, joint damping",
    ),
    (
        "corpus__body__share__model__UniversalRobots__UR10-2F85.body",
        "joint position limits",
    ),
    (
        "corpus__skel__test__dof_attribute_test.skel",
        "joint position limits",
    ),
    (
        "corpus__skel__test__inertia_from_shapes.skel",
        "mass, COM, inertia",
    ),
];

/// Where Newton moves a written model otherwise than mbconv's solver ([`DIFFERS`]) or gives no
/// finite motion ([`NOT_FINITE`]), `mbconv check --via usd` does not call the conversion exact:
/// it names a law of Newton's the model uses ([`Format::simulator_laws`], the check's
/// `differing_laws`), for a listed model the law of its cause, and where Newton's run is not
/// finite a law of the cause that says Newton diverges. Run on the golden files (fixtures, and
/// the corpus when present), with no joint limit reached for the models that part (Newton's
/// limit springs are named where the check's run reaches one; the trajectory test leaves those
/// models out).
#[test]
fn where_newton_moves_otherwise_the_check_names_newtons_law() {
    let registry = mbconv::formats();
    let (mut named, mut unnamed) = (0, Vec::new());
    for (name, golden) in suite().files() {
        let newton = &golden["newton"];
        let finite = newton["trajectory"]["finite"].as_bool() == Some(true);
        let listed =
            |list: &[(&'static str, &'static str)]| list.iter().find(|(n, _)| *n == name).map(|(_, c)| *c);
        let cause = if finite {
            listed(DIFFERS)
        } else {
            listed(NOT_FINITE)
        };
        if newton["loads"].as_bool() != Some(true) || (finite && cause.is_none()) {
            continue;
        }
        let Some(model) = source_model(&registry, &name, &golden) else {
            continue; // the corpus is not here
        };
        let Some(cause) = cause else {
            unnamed.push(format!(
                "{name}: not finite in Newton, and not listed in NOT_FINITE with its cause"
            ));
            continue;
        };
        let features = cause.split(':').next().unwrap();
        let shown = golden["source"].as_str().unwrap();
        let laws = newton_motion::named_laws(
            &registry,
            &model,
            shown,
            features.contains("joint position limits"),
        );
        let of_cause = |law: &&String| law.split(':').next().is_some_and(|f| features.contains(f));
        let said = laws
            .iter()
            .filter(of_cause)
            .any(|law| finite || law.contains("diverges"));
        if said {
            named += 1;
        } else {
            unnamed.push(format!("{name} ({cause}): the check names {laws:?}"));
        }
    }
    eprintln!("the check names Newton's law for {named} models Newton moves otherwise");
    assert!(
        unnamed.is_empty(),
        "the check would call these exact:\n{}",
        unnamed.join("\n")
    );
    assert!(named >= 20, "only {named} models judged");
}

/// Models whose run in Newton goes past a joint limit that the check's own run does not reach:
/// (model, the law the check names for what moves Newton there, by its feature's title). In
/// `joint_revolute.skel` the hinge starts at pi/2 rad turning at 0.5 rad/s below its upper limit
/// of 2 rad, with Coulomb friction 0.1 N m, damping 0.5 and a spring: mbconv's run stays below
/// the limit, Newton's passes it (its Featherstone applies no joint friction, and the spring
/// and damper explicitly; which of them takes it past was not isolated), and the check names
/// all three laws.
const LIMIT_IN_NEWTON_ONLY: &[(&str, &str)] =
    &[("fixtures__skel__joint_revolute.skel", "joint Coulomb friction")];

/// Where Newton's run of a written model goes past a joint limit (the golden trajectory's
/// `limits`; the trajectory test leaves these models out, Newton's limits being springs where
/// mbconv's are exact stops), `mbconv check --via usd` does not call the motion proven in
/// Newton: its own run reaches a limit too and the verdict names Newton's law of joint
/// limits (`joint position limits: ...`, [`Format::simulator_laws`]), but for the models
/// [`LIMIT_IN_NEWTON_ONLY`] lists, where it names the law that moves Newton there. Run on the golden files
/// whose Newton trajectory is finite (the fixtures, and the corpus when present), each checked
/// as `mbconv check X --to usd` checks it (default settings).
#[test]
fn where_newton_reaches_a_joint_limit_the_check_names_the_limits_law() {
    use mbconv::{CheckSettings, checker};
    use mbconv_ir::format::support::Feature;
    let registry = mbconv::formats();
    let title = Feature::JointLimits.title();
    let (mut named, mut unnamed) = (Vec::new(), Vec::new());
    for (name, golden) in suite().files() {
        let trajectory = &golden["newton"]["trajectory"];
        let reached = trajectory["limits"].as_array().is_some_and(|l| !l.is_empty());
        if trajectory["finite"].as_bool() != Some(true) || !reached {
            continue;
        }
        let Some(model) = source_model(&registry, &name, &golden) else {
            continue; // the corpus is not here
        };
        let shown = golden["source"].as_str().unwrap();
        let report = checker::check(&model, shown, &registry, &[&UsdFormat], &CheckSettings::default());
        let target = &report.targets[0];
        let listed = LIMIT_IN_NEWTON_ONLY.iter().find(|(n, _)| *n == name);
        let names = |words: &str| target.not_compared.iter().any(|l| l.starts_with(words));
        match listed {
            Some((_, law)) if target.verdict.is_proof() && names(law) && !names(title) => {
                named.push(name);
                continue;
            }
            Some(_) => {
                unnamed.push(format!(
                    "{name} is listed in LIMIT_IN_NEWTON_ONLY, but the check names {:?} (limits reached in its run: {:?})",
                    target.not_compared, target.joint_limits_reached
                ));
                continue;
            }
            None => {}
        }
        match names(title) {
            true if target.verdict.is_proof() => named.push(name),
            _ => unnamed.push(format!(
                "{name}: {} (limits reached in the check's run: {:?}; not compared: {:?})",
                target.verdict, target.joint_limits_reached, target.not_compared
            )),
        }
    }
    eprintln!(
        "the check names Newton's law of joint limits for the {} models whose run in Newton reaches a limit",
        named.len()
    );
    assert!(
        unnamed.is_empty(),
        "Newton's run reaches a joint limit, the check does not name Newton's limits:\n{}",
        unnamed.join("\n")
    );
    assert!(named.len() >= 4, "only {} models judged", named.len());
}
