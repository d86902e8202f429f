//! An original that moves too fast for the explicit integrator at any step the check may
//! afford is checked with the adaptive fallback instead of failing.

use mbconv_check::{
    ADAPTIVE_FALLBACK, CheckSettings, Motion, SimulationSettings, Verdict, check, simulate_original,
};
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
fn the_explicit_integrator_diverges_at_every_step_the_check_tries() {
    let model = spinning_double_pendulum();
    for dt in [0.03, 0.003, 0.0003] {
        let settings = SimulationSettings {
            duration: 1.0,
            dt,
            integrator: Integrator::SemiImplicitEuler,
        };
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
fn a_diverging_original_falls_back_to_the_adaptive_integrator() {
    let model = spinning_double_pendulum();
    let (simulation, motion) = simulate_original(&model, &CheckSettings::default());
    assert_eq!(simulation.integrator, ADAPTIVE_FALLBACK);
    assert_eq!(simulation.dt, 0.03);
    let motion = motion.expect("the adaptive integrator follows the spinning links");
    assert_eq!(motion.times.len(), 34);
    // Energy-conserving to the tolerance: link1's centre of mass stays on its 0.5 m circle.
    for com in &motion.com {
        let r = (com[0] - Vector3::zeros()).norm();
        assert!((r - 0.5).abs() < 1e-6, "radius {r}");
    }
}

#[test]
fn the_check_says_it_used_the_adaptive_integrator() {
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
    assert!(
        target.message.contains("checked with dopri5"),
        "{}",
        target.message
    );
}

#[test]
fn an_explicit_step_asked_for_is_not_replaced() {
    let model = spinning_double_pendulum();
    let settings = CheckSettings {
        dt: Some(0.03),
        ..CheckSettings::default()
    };
    let (simulation, motion) = simulate_original(&model, &settings);
    assert_eq!(simulation.integrator, Integrator::SemiImplicitEuler);
    assert!(motion.is_err());
}
