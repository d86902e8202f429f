//! Verdicts that are not earned are not given: a model stepped coarsely is still compared at
//! the check's own interval, a model without mass is `not compared`, a widened tolerance is
//! capped and said, an automatic check over its work budget is `skipped`, and a joint that
//! feels no inertia about its axis, or an inertia no rigid body has, makes the original `not
//! compared`.

mod common;
use common::double_pendulum;
use mbconv_check::{
    CheckSettings, Original, Tolerances, Verdict, WIDEST_POSITION_TOLERANCE, check, check_against,
    verdict_text,
};
use mbconv_ir::format::{Imported, Registry};
use mbconv_ir::mbir::MbirFormat;
use mbconv_ir::{Body, BodyRef, Joint, JointKind, Model, Report};
use nalgebra::Vector3;

fn registry() -> Registry {
    let mut registry = Registry::new();
    registry.register(Box::new(MbirFormat));
    registry
}

#[test]
fn a_model_stepped_at_two_and_a_half_seconds_is_compared_every_millisecond() {
    let mut original = double_pendulum();
    original.simulation.time_step = Some(2.5);
    let mut heavier = original.clone();
    let link = heavier
        .bodies
        .iter_mut()
        .find(|b| b.name == "link2")
        .expect("link2");
    link.inertial.mass *= 1.5;
    let other = Imported {
        model: heavier,
        report: Report::default(),
        source_map: Default::default(),
        source_map_file: None,
    };
    let settings = CheckSettings::default();
    let report = check_against(&original, "coarse", &other, "mbir", &settings);
    assert_eq!(
        report.targets[0].verdict,
        Verdict::Unexplained,
        "{:?}",
        report.targets[0]
    );
    assert!(report.targets[0].max_com_error > 1e-3);
}

fn massless_chain() -> Model {
    let mut model = Model::new("massless");
    for (i, parent) in [(1, BodyRef::World), (2, BodyRef::body("link1"))] {
        let mut link = Body::new(format!("link{i}"));
        link.inertial.mass = 0.0;
        link.shapes.push(mbconv_ir::Shape::new(
            mbconv_ir::ShapeRole::Both,
            mbconv_ir::Geometry::Sphere { radius: 0.1 },
        ));
        model.bodies.push(link);
        let mut joint = Joint::new(
            format!("joint{i}"),
            JointKind::Revolute { axis: Vector3::y() },
            parent,
            BodyRef::body(format!("link{i}")),
        );
        joint.q0 = vec![0.2];
        model.joints.push(joint);
    }
    model
}

#[test]
fn a_model_whose_bodies_have_no_mass_is_not_compared() {
    let model = massless_chain();
    let registry = registry();
    let mbir = registry.get("mbir").expect("mbir");
    let report = check(&model, "massless", &registry, &[mbir], &CheckSettings::default());
    let target = &report.targets[0];
    assert_eq!(target.verdict, Verdict::NotCompared);
    assert!(target.message.contains("no body has mass"), "{}", target.message);
    assert!(report.passed(), "nothing to compare is not a failure");
    assert!(mbconv_check::summary_line(target).starts_with("check: not compared (no body has mass"));
}

fn original_with_error(error: f64) -> Original {
    Original {
        simulation: CheckSettings::default().simulation(&Model::new("m")),
        motion: Err(mbconv_check::StepError::new(
            mbconv_check::Step::SimulateOriginal,
            "not run",
        )),
        integration_error: Some(error),
        integration_error_by_sample: vec![error],
        not_compared: Vec::new(),
        accurate_failure: None,
        undetermined: None,
        motions: Default::default(),
    }
}

#[test]
fn a_widened_tolerance_is_capped_and_said() {
    let settings = CheckSettings::default();
    let small = original_with_error(1e-8);
    assert_eq!(
        small.tolerances(&settings),
        settings.tolerances,
        "no widening below a tenth"
    );
    let moderate = original_with_error(4.9e-5);
    let widened = moderate.tolerances(&settings);
    assert!((widened.position - 4.9e-4).abs() < 1e-15);
    assert!(!moderate.widening_capped(&settings));
    let large = original_with_error(0.21);
    let capped = large.tolerances(&settings);
    assert_eq!(capped.position, WIDEST_POSITION_TOLERANCE, "never 2.1 m");
    assert!(large.widening_capped(&settings));

    let mut target = mbconv_check::TargetCheck::unproven("mjcf", Verdict::Exact, "moves like the original");
    target.compared_within = Some(Tolerances {
        position: 4.9e-2,
        rotation: 4.9e-2,
    });
    target.tolerance_widened = true;
    assert_eq!(verdict_text(&target), "exact within 4.9e-2 m and 4.9e-2 rad");
    assert!(mbconv_check::summary_line(&target).starts_with("check: exact within 4.9e-2 m"));
}

#[test]
fn an_automatic_check_over_its_work_budget_is_skipped_not_failed() {
    let model = double_pendulum();
    let registry = registry();
    let mbir = registry.get("mbir").expect("mbir");
    let budgeted = CheckSettings {
        work_budget: Some(10),
        ..CheckSettings::default()
    };
    let report = check(&model, "budget", &registry, &[mbir], &budgeted);
    assert_eq!(
        report.targets[0].verdict,
        Verdict::Skipped,
        "{:?}",
        report.targets[0].message
    );
    assert!(report.targets[0].message.starts_with("over budget"));
    let full = check(&model, "budget", &registry, &[mbir], &CheckSettings::default());
    assert!(
        full.targets[0].verdict.is_proof(),
        "{:?}",
        full.targets[0].message
    );
}

/// A pendulum whose bob carries mass but no inertia, its centre of mass `offset` (m) off the
/// axis: the joint feels an inertia of `mass · offset²`.
fn point_mass_on_the_axis(offset: f64, limits: bool) -> Model {
    let mut model = Model::new("point mass");
    let mut bob = Body::new("bob");
    bob.inertial.mass = 1.0;
    bob.inertial.inertia = mbconv_ir::Inertia::zero();
    bob.inertial.com = Vector3::new(offset, 0.0, 0.0);
    model.bodies.push(bob);
    let mut joint = Joint::new(
        "pivot",
        JointKind::Revolute { axis: Vector3::y() },
        BodyRef::World,
        BodyRef::body("bob"),
    );
    if limits {
        joint.dofs = vec![mbconv_ir::DofProperties {
            position_limits: mbconv_ir::Limits::new(-0.1, 0.1),
            ..Default::default()
        }];
    }
    model.joints.push(joint);
    model
}

#[test]
fn a_joint_without_inertia_about_its_axis_is_not_compared() {
    // No stop holds the bob: gravity spins it at 1e11 rad/s², which no integrator follows.
    let model = point_mass_on_the_axis(1e-10, false);
    let registry = registry();
    let mbir = registry.get("mbir").expect("mbir");
    let settings = CheckSettings {
        work_budget: Some(100_000),
        ..CheckSettings::default()
    };
    let report = check(&model, "point mass", &registry, &[mbir], &settings);
    let target = &report.targets[0];
    assert_eq!(target.verdict, Verdict::NotCompared, "{}", target.message);
    assert!(
        target
            .message
            .contains("joint \"pivot\" feels an inertia of 1.0e-20"),
        "{}",
        target.message
    );
    assert!(report.passed(), "an undetermined original is not a failed proof");
}

#[test]
fn an_inertia_no_rigid_body_has_makes_the_original_not_compared() {
    // Spun about its axis, the bob's moment of -1 kg m² makes the articulated inertia
    // negative: the equations of motion have no solution to compare.
    let mut model = point_mass_on_the_axis(0.0, false);
    model.bodies[0].inertial.inertia = mbconv_ir::Inertia::from_moments_products([1.0, -1.0, 1.0], [0.0; 3]);
    model.joints[0].kind = JointKind::Revolute { axis: Vector3::y() };
    let registry = registry();
    let mbir = registry.get("mbir").expect("mbir");
    let report = check(
        &model,
        "indefinite",
        &registry,
        &[mbir],
        &CheckSettings::default(),
    );
    let target = &report.targets[0];
    assert_eq!(target.verdict, Verdict::NotCompared, "{}", target.message);
    assert!(
        target
            .message
            .contains("body \"bob\" has an inertia with a negative principal moment (-1 kg m²)"),
        "{}",
        target.message
    );
    assert!(report.passed(), "an undetermined original is not a failed proof");
}

#[test]
fn a_stop_determines_the_motion_of_a_joint_without_inertia() {
    // Pressed onto its stop from the first instant, the bob stays there: a proof.
    let model = point_mass_on_the_axis(1e-10, true);
    let registry = registry();
    let mbir = registry.get("mbir").expect("mbir");
    let report = check(
        &model,
        "point mass",
        &registry,
        &[mbir],
        &CheckSettings::default(),
    );
    assert_eq!(
        report.targets[0].verdict,
        Verdict::Exact,
        "{}",
        report.targets[0].message
    );
}

#[test]
fn a_determined_joint_feels_its_inertia() {
    let model = point_mass_on_the_axis(0.5, false);
    let solver = mbconv_solver::Model::new(&model).expect("solver model");
    let state = mbconv_solver::State::initial(&solver);
    let (joint, inertia) = mbconv_solver::least_coordinate_inertia(&solver, &state)
        .expect("dynamics")
        .expect("one coordinate");
    assert_eq!(joint, "pivot");
    assert!((inertia - 0.25).abs() < 1e-12, "{inertia}");
}
