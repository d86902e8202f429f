//! A model whose motion hangs on its last bits, written by writers that re-express its frames:
//! the check must call rounding rounding (`exact` within the model's own sensitivity, or
//! `not compared`) and still catch a writer that turns a frame for real (`docs/check.md`,
//! "Rounding: the check's resolution on models that amplify the last bits").
//!
//! The model is a short pole balanced upright on a hinge, on a base welded to the world. Its
//! centre of mass sits exactly above the hinge, so mbconv's solver computes no torque at all
//! and the lowered model stands still; a frame turned by one unit in the last place tips it,
//! and the fall grows as e^(31 t): 2e-16 rad becomes about 4e-5 m in 1 s. This is what
//! franka's FR3 does through MJCF (a stop that engages 10 ms later after 29 numbers moved by
//! at most 2 units): a read-back that re-expresses the fixed joints as welds, writes the
//! identity as a rotation of 1e-32 and turns a 0 into 1e-16.

mod common;
use common::Rewriting;
use mbconv_check::{CheckSettings, TargetCheck, Verdict, check};
use mbconv_ir::format::Registry;
use mbconv_ir::{Body, BodyRef, Inertia, Joint, JointKind, Model};
use nalgebra::{Quaternion, UnitQuaternion, Vector3};

/// The pole balanced on its hinge, on a base welded to the world by the fixed joint `mount`.
fn balanced_pole() -> Model {
    let mut model = Model::new("balanced pole");
    let mut base = Body::new("base");
    base.inertial.mass = 2.0;
    base.inertial.inertia = Inertia::from_moments_products([1e-3, 1e-3, 1e-3], [0.0; 3]);
    model.bodies.push(base);
    let mut pole = Body::new("pole");
    pole.inertial.mass = 1.0;
    pole.inertial.com = Vector3::new(0.0, 0.0, 0.01);
    pole.inertial.inertia = Inertia::from_moments_products([1e-6, 1e-6, 1e-6], [0.0; 3]);
    model.bodies.push(pole);
    let mut mount = Joint::new("mount", JointKind::Fixed, BodyRef::World, BodyRef::body("base"));
    mount.parent_frame.translation = Vector3::new(0.0, 0.0, 0.5);
    model.joints.push(mount);
    model.joints.push(Joint::new(
        "hinge",
        JointKind::Revolute { axis: Vector3::y() },
        BodyRef::body("base"),
        BodyRef::body("pole"),
    ));
    model
}

/// The fixed joint written as a weld named after its child, its identity rotation read back
/// as a turn of 7e-32 (as the MJCF reader composes FR3's welds).
fn weld_reexpressed(model: &mut Model) {
    let mount = model
        .joints
        .iter_mut()
        .find(|j| j.name == "mount")
        .expect("mount");
    mount.name = "base.weld".into();
    mount.parent_frame.rotation = UnitQuaternion::new_unchecked(Quaternion::new(1.0, 0.0, 0.0, 7e-32));
}

/// The hinge's frame turned about y by `sin_half` (the quaternion's y component).
fn hinge_turned(model: &mut Model, sin_half: f64) {
    let hinge = model
        .joints
        .iter_mut()
        .find(|j| j.name == "hinge")
        .expect("hinge");
    hinge.parent_frame.rotation = UnitQuaternion::new_unchecked(Quaternion::new(
        (1.0 - sin_half * sin_half).sqrt(),
        0.0,
        sin_half,
        0.0,
    ));
}

/// The weld re-expressed, the hinge's frame rounded by one unit and the hinge renamed: not
/// the lowered model to the last bits (a name differs), so only the nudges measure rounding.
fn renamed_and_rounded(model: &mut Model) {
    weld_reexpressed(model);
    hinge_turned(model, ONE_UNIT);
    model
        .joints
        .iter_mut()
        .find(|j| j.name == "hinge")
        .expect("hinge")
        .name = "pole.hinge".into();
}

/// One unit in the last place of 1: the rounding of a 0 beside a 1 in a composed rotation.
const ONE_UNIT: f64 = f64::EPSILON / 2.0;

fn verdict(rewrite: fn(&mut Model)) -> TargetCheck {
    verdict_over(rewrite, CheckSettings::default().duration)
}

/// As [`verdict`], the motions over `duration` seconds.
fn verdict_over(rewrite: fn(&mut Model), duration: f64) -> TargetCheck {
    sabotaged(|_| {}, rewrite, duration)
}

/// The verdict on the pole lowered by `lower` (one silent pass) and written by `emit`, the
/// motions over `duration` seconds.
fn sabotaged(
    lower: fn(&mut mbconv_ir::format::kit::LowerSession),
    emit: fn(&mut Model),
    duration: f64,
) -> TargetCheck {
    let mut registry = Registry::new();
    registry.register(Box::new(Rewriting { lower, emit }));
    let format = registry.get("sabotage").expect("registered");
    check(
        &balanced_pole(),
        "balanced pole",
        &registry,
        &[format],
        &CheckSettings {
            duration,
            ..CheckSettings::default()
        },
    )
    .targets
    .remove(0)
}

#[test]
fn the_pole_amplifies_one_unit_in_the_last_place() {
    let t = verdict(|m| hinge_turned(m, ONE_UNIT));
    assert_eq!(1.0 - ONE_UNIT, 1.0_f64.next_down());
    assert!(
        t.max_com_error > 1e-6,
        "the tipped pole falls beyond the tolerance: {t:?}"
    );
}

/// Before: the weld's rotation and the hinge's, left out of the lowered model's JSON as the
/// identity and written in the read-back's, made the two differ in structure; the nudge of
/// every non-zero number tipped nothing (the pole's offsets are zeros), so the fall was a
/// writer bug. Now the identity left out compares with the rotation written, the read-back is
/// the lowered model but for two numbers one unit apart, and the fall is this model's own.
#[test]
fn a_weld_reexpressed_and_a_frame_rounded_are_rounding_not_a_writer_bug() {
    let t = verdict(|m| {
        weld_reexpressed(m);
        hinge_turned(m, ONE_UNIT);
    });
    assert!(
        matches!(t.verdict, Verdict::Exact | Verdict::NotCompared),
        "{:?}: {}",
        t.verdict,
        t.message
    );
    assert!(
        t.message
            .contains("the read-back model is the lowered one but for the last bits of 2 numbers"),
        "{}",
        t.message
    );
}

/// A reader that takes a rotation from a matrix may give `-q` for the lowered model's `q`:
/// the same rotation, so a read-back whose hinge frame is rounded and negated is the lowered
/// model but for its last bits (mink's mobile_kinova through URDF: an inertia rotation read
/// back negated made the check call the fall at its stops a writer bug).
#[test]
fn a_rotation_read_back_negated_is_the_same_rotation() {
    let t = verdict(|m| {
        hinge_turned(m, ONE_UNIT);
        let hinge = m.joints.iter_mut().find(|j| j.name == "hinge").expect("hinge");
        hinge.parent_frame.rotation =
            UnitQuaternion::new_unchecked(-hinge.parent_frame.rotation.into_inner());
    });
    assert!(
        matches!(t.verdict, Verdict::Exact | Verdict::NotCompared),
        "{:?}: {}",
        t.verdict,
        t.message
    );
    assert!(
        t.message
            .contains("the read-back model is the lowered one but for the last bits of 1 number"),
        "{}",
        t.message
    );
}

/// A read-back that renames the hinge is not the lowered model to the last bits (a name
/// differs), so only the nudges can measure the model's sensitivity: nudges that move a 0
/// beside a 0.01 (the pole's offset) tip the pole as the writer's rounding does. A nudge of
/// the non-zero numbers alone measured nothing here and blamed the writer.
#[test]
fn nudges_of_zeros_measure_what_a_rounded_zero_does() {
    let t = verdict(renamed_and_rounded);
    assert!(
        matches!(t.verdict, Verdict::Exact | Verdict::NotCompared),
        "{:?}: {}",
        t.verdict,
        t.message
    );
    assert!(
        t.message
            .contains("a change in the last bits of the lowered model's numbers moves it by"),
        "{}",
        t.message
    );
    // Rounding alone turns the pole by 3e-3 rad, more than a tenth of the widest tolerances
    // the check may compare within: not compared, and within what it could not say so.
    assert_eq!(t.verdict, Verdict::NotCompared, "{}", t.message);
    assert!(
        t.message
            .contains("hangs on its last bits: the read-back model parts from the lowered one by"),
        "{}",
        t.message
    );
    assert!(
        t.message.contains("may compare within (3.0e-4 m and 1.0e-3 rad)"),
        "{}",
        t.message
    );
}

/// Over 0.75 s the rounded zero tips the pole by microradians only: within what rounding does
/// to the model, `exact`, and the tolerances it was compared within are the widened ones, in
/// the message and in `compared_within` (as `--json` prints it).
#[test]
fn a_verdict_widened_by_rounding_says_within_what_everywhere() {
    let t = verdict_over(renamed_and_rounded, 0.75);
    assert_eq!(t.verdict, Verdict::Exact, "{}", t.message);
    assert!(t.message.contains("no more than rounding"), "{}", t.message);
    let within = t.compared_within.expect("compared within");
    assert!(t.tolerance_widened, "{t:?}");
    assert!(within.rotation > 1e-6 && within.rotation < 1e-3, "{within:?}");
    assert!(
        t.message.contains(&format!(
            "(compared within {:.1e} m and {:.1e} rad",
            within.position, within.rotation
        )),
        "{}: {within:?}",
        t.message
    );
}

/// A lowering pass that silently turns the hinge by eight units in the last place, over 1.1 s, when the pole
/// has had time to fall: rounding alone moves the pole by millimetres then, so it covers the
/// pass's change, but beyond the widest tolerance the check may compare within (1 mm): the
/// pass cannot be told from rounding, and the verdict is `not compared`, not `explained`.
#[test]
fn a_silent_pass_only_rounding_could_excuse_beyond_a_millimetre_is_not_explained() {
    let t = sabotaged(|s| hinge_turned(&mut s.model, 4.0 * ONE_UNIT), |_| {}, 1.1);
    assert_ne!(t.verdict, Verdict::Explained, "{}", t.message);
    assert_eq!(t.verdict, Verdict::NotCompared, "{}", t.message);
    assert!(
        t.message.contains("lowering pass \"sabotage\" moved it by"),
        "{}",
        t.message
    );
}

/// The same re-expressed weld beside a hinge frame turned by a milliradian (a writer that
/// composes a frame wrongly): millions of units apart, and far beyond what rounding does to
/// the pole, so the writer is blamed.
#[test]
fn a_frame_turned_for_real_is_still_a_writer_bug() {
    let t = verdict(|m| {
        weld_reexpressed(m);
        hinge_turned(m, 5e-4);
    });
    assert_eq!(t.verdict, Verdict::Unexplained, "{}", t.message);
    assert!(t.message.contains("a writer or reader bug"), "{}", t.message);
}
