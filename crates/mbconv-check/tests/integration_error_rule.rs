//! A fault is blamed only where the original's own integration error cannot part the motions
//! as far (`docs/check.md`, "When the integration error is large"): where the tolerance's
//! widening was capped, a difference that first shows while the estimated error is still
//! small stays `unexplained`, and one that first shows where the error is already as large is
//! `not compared`.

mod common;
use common::Rewriting;
use mbconv_check::{
    CheckSettings, Original, Verdict, WIDEST_POSITION_TOLERANCE, check_target, simulate_original,
};
use mbconv_ir::format::Registry;
use mbconv_ir::{Body, BodyRef, Joint, JointKind, Model};
use nalgebra::Vector3;

/// A 1 kg pendulum 1 m long swinging about y from 0.4 rad, its pivot damped by 0.2 N m s.
fn pendulum() -> Model {
    let mut model = Model::new("pendulum");
    let mut bob = Body::new("bob");
    bob.inertial.com = Vector3::new(0.0, 0.0, -1.0);
    model.bodies.push(bob);
    let mut pivot = Joint::new(
        "pivot",
        JointKind::Revolute { axis: Vector3::y() },
        BodyRef::World,
        BodyRef::body("bob"),
    );
    pivot.q0 = vec![0.4];
    pivot.dofs = vec![mbconv_ir::DofProperties {
        damping: 0.2,
        ..Default::default()
    }];
    model.joints.push(pivot);
    model
}

/// The check of `model` through a format whose one lowering pass silently damps the pivot
/// ten times more, with the original's integration error estimated at `error_from(t)` at each
/// sample `t` (the check's own estimate replaced: a model whose error is known at each instant).
fn verdict_with_error(error_from: impl Fn(f64) -> f64) -> mbconv_check::TargetCheck {
    let model = pendulum();
    let mut registry = Registry::new();
    registry.register(Box::new(Rewriting {
        lower: |s| s.model.joints[0].dofs[0].damping = 2.0,
        emit: |_| {},
    }));
    let format = registry.get("sabotage").expect("registered");
    let settings = CheckSettings {
        duration: 0.5,
        ..CheckSettings::default()
    };
    let simulated = simulate_original(&model, &settings);
    let times = simulated
        .motion
        .as_ref()
        .expect("the pendulum swings")
        .times
        .clone();
    let by_sample: Vec<f64> = times.iter().map(|t| error_from(*t)).collect();
    let original = Original {
        integration_error: by_sample.iter().copied().reduce(f64::max),
        integration_error_by_sample: by_sample,
        ..simulated
    };
    assert_eq!(
        original.tolerances(&settings).position,
        WIDEST_POSITION_TOLERANCE,
        "the widening is capped"
    );
    check_target(&model, &original, &registry, format, &settings)
}

#[test]
fn a_fault_that_shows_before_the_integration_error_grows_is_unexplained() {
    // The extra damping parts the bob by a millimetre within the first tenth of a second; the
    // error reaches a centimetre only from 0.4 s.
    let target = verdict_with_error(|t| if t < 0.4 { 1e-9 } else { 1e-2 });
    assert_eq!(target.verdict, Verdict::Unexplained, "{}", target.message);
    assert!(target.message.contains("\"sabotage\""), "{}", target.message);
}

#[test]
fn a_fault_the_integration_error_can_make_is_not_compared() {
    let target = verdict_with_error(|_| 1e-2);
    assert_eq!(target.verdict, Verdict::NotCompared, "{}", target.message);
    assert!(
        target
            .message
            .contains("integration error can part these motions"),
        "{}",
        target.message
    );
    assert!(
        target.message.contains("lowering pass \"sabotage\""),
        "the blame it would have given is said: {}",
        target.message
    );
    assert!(!target.verdict.is_failure());
}
