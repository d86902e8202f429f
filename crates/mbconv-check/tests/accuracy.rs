//! The check integrates accurately by default: an original that moves too fast for any
//! fixed explicit step is followed, and the integration error is estimated and bounded.

use mbconv_check::{CheckSettings, Motion, SimulationSettings, Verdict, check, simulate_original};
use mbconv_ir::format::Registry;
use mbconv_ir::mbir::MbirFormat;
use mbconv_ir::{Body, BodyRef, Joint, JointKind, Model};
use mbconv_solver::{Integrator, SolverError};
use nalgebra::Vector3;

/// The Shift corpus double pendulum: two 1 kg links about x, both joints starting at
/// 1000 rad/s, sampled every 0.03 s (Shift integrates it with its adaptive ode113).
fn spinning_double_pendulum() -> Model {
    let mut model = Model::new("spinning");
    model.simulation.gravity = Some(Vector3::new(0.0, 0.0, 9.81));
    model.simulation.time_step = Some(0.03);
    for name in ["link1", "link2"] {
        let mut link = Body::new(name);
        link.inertial.com = Vector3::new(0.0, 0.0, -0.5);
        model.bodies.push(link);
    }
    let mut a = Joint::new(
        "a",
        JointKind::Revolute { axis: Vector3::x() },
        BodyRef::World,
        BodyRef::body("link1"),
    );
    a.q0 = vec![std::f64::consts::FRAC_PI_2];
    a.v0 = vec![1000.0];
    let mut b = Joint::new(
        "b",
        JointKind::Revolute { axis: Vector3::x() },
        BodyRef::body("link1"),
        BodyRef::body("link2"),
    );
    b.parent_frame.translation = Vector3::new(0.1, 0.0, -1.0);
    b.v0 = vec![1000.0];
    model.joints.push(a);
    model.joints.push(b);
    model
}

#[test]
fn the_explicit_integrator_diverges_at_every_step_the_old_check_tried() {
    let model = spinning_double_pendulum();
    for dt in [0.03, 0.003, 0.0003] {
        let settings = SimulationSettings::new(1.0, dt, Integrator::SemiImplicitEuler);
        assert!(
            matches!(
                Motion::simulate(&model, &settings),
                Err(SolverError::Diverged { .. })
            ),
            "dt = {dt}"
        );
    }
}

#[test]
fn the_accurate_integration_follows_the_spinning_links_and_estimates_its_error() {
    let model = spinning_double_pendulum();
    let original = simulate_original(&model, &CheckSettings::default());
    assert!(matches!(
        original.simulation.integrator,
        Integrator::Dopri5 { .. }
    ));
    assert_eq!(
        original.simulation.dt, 1e-3,
        "the check samples at its own interval, not at the model's 0.03 s step"
    );
    let motion = original
        .motion
        .expect("the adaptive integrator follows the spinning links");
    assert_eq!(motion.times.len(), 1001);
    // link1's centre of mass stays on its 0.5 m circle.
    for com in &motion.com {
        let r = com[0].norm();
        assert!((r - 0.5).abs() < 1e-9, "radius {r}");
    }
    let error = original.integration_error.expect("estimated");
    assert!(
        error <= 1e-7,
        "estimated integration error {error:e} above a tenth of the tolerance"
    );
}

#[test]
fn the_check_of_the_spinning_links_is_exact_and_reports_its_integration_error() {
    let model = spinning_double_pendulum();
    let registry = Registry::new();
    let report = check(
        &model,
        "spinning",
        &registry,
        &[&MbirFormat],
        &CheckSettings::default(),
    );
    let target = &report.targets[0];
    assert_eq!(target.verdict, Verdict::Exact, "{}", target.message);
    assert!(target.integration_error.is_some());
}

#[test]
fn an_integrator_asked_for_is_used_as_it_is() {
    let model = spinning_double_pendulum();
    let settings = CheckSettings {
        dt: Some(0.03),
        integrator: Some(Integrator::SemiImplicitEuler),
        ..CheckSettings::default()
    };
    let original = simulate_original(&model, &settings);
    assert_eq!(original.simulation.integrator, Integrator::SemiImplicitEuler);
    assert!(original.motion.is_err());
    assert!(original.integration_error.is_none());
}
