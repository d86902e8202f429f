//! Mass properties no simulation can use are refused with an error naming the body, before
//! any step, and a motion no body can have stops with an error naming the joint: never a
//! panic, never a trajectory of NaN.
#![allow(clippy::unwrap_used)]

use mbconv_ir::{Body, BodyRef, Inertia, Joint, JointKind, Model};
use mbconv_solver::{SimulateOptions, SolverError, dynamics_report, simulate};
use nalgebra::Vector3;

/// A pendulum whose bob has the given mass and principal moments.
fn pendulum(mass: f64, moments: [f64; 3]) -> Model {
    let mut ir = Model::new("pendulum");
    let mut bob = Body::new("bob");
    bob.inertial.mass = mass;
    bob.inertial.com = Vector3::new(0.0, 0.0, -1.0);
    bob.inertial.inertia = Inertia::from_moments_products(moments, [0.0; 3]);
    ir.bodies.push(bob);
    ir.joints.push(Joint::new(
        "hinge",
        JointKind::Revolute { axis: Vector3::y() },
        BodyRef::World,
        BodyRef::body("bob"),
    ));
    ir
}

#[track_caller]
fn refused(model: &Model, expected: &str) {
    let mut samples = 0;
    let err = simulate(model, &SimulateOptions::default(), &mut |_| samples += 1).unwrap_err();
    assert_eq!(samples, 0, "no sample before the refusal");
    match &err {
        SolverError::InvalidModel { item, message } => {
            assert_eq!(item, r#"bodies["bob"].inertial"#);
            assert!(message.contains(expected), "{message}");
        }
        other => panic!("expected InvalidModel, got {other:?}"),
    }
    assert!(dynamics_report(model).is_err());
}

/// A negative principal moment about an axis the joint does not turn about is simulated as
/// written, as Pinocchio does (example-robot-data's romeo_laas_small has three).
#[test]
fn a_negative_principal_moment_the_motion_does_not_see_simulates() {
    let model = pendulum(1.0, [1.0, 1.0, -0.5]);
    let mut last = None;
    simulate(&model, &SimulateOptions::default(), &mut |s| last = Some(s.t)).unwrap();
    assert!(last.unwrap() > 0.99);
}

/// When the negative moment makes what a joint moves negative, no motion means anything: the
/// simulation stops with an error naming the joint (a check then reports `failed`).
#[test]
fn a_negative_articulated_inertia_stops_the_simulation_naming_the_joint() {
    // About x: -2 kg·m² of its own and 1 kg·m² of its mass 1 m below the hinge.
    let mut model = pendulum(1.0, [-2.0, 1.0, 1.0]);
    model.joints[0].kind = JointKind::Revolute { axis: Vector3::x() };
    let err = simulate(&model, &SimulateOptions::default(), &mut |_| {}).unwrap_err();
    assert!(err.to_string().contains("joint 'hinge'"), "{err}");
    assert!(err.to_string().contains("not positive"), "{err}");
    // A free body of that inertia: its six coordinates' articulated inertia is indefinite.
    let mut free = pendulum(1.0, [-2.0, 1.0, 1.0]);
    free.joints.clear();
    let err = simulate(&free, &SimulateOptions::default(), &mut |_| {}).unwrap_err();
    assert!(err.to_string().contains("not positive"), "{err}");
}

#[test]
fn a_negative_or_non_finite_mass_is_refused() {
    refused(&pendulum(-1.0, [0.1, 0.1, 0.1]), "mass -1");
    refused(&pendulum(f64::NAN, [0.1, 0.1, 0.1]), "mass NaN");
}

#[test]
fn a_non_finite_inertia_is_refused() {
    refused(&pendulum(1.0, [0.1, f64::INFINITY, 0.1]), "non-finite");
}

#[test]
fn a_dubious_but_semidefinite_inertia_simulates() {
    // Breaks the triangle inequality (a warning in validation), but the solver can use it.
    let model = pendulum(1.0, [0.1, 0.1, 0.5]);
    let mut last = None;
    simulate(&model, &SimulateOptions::default(), &mut |s| last = Some(s.t)).unwrap();
    assert!(last.unwrap() > 0.99);
}

/// An asymmetric inertia (a warning: Choreonoid loads one) moves like its symmetric part.
#[test]
fn an_asymmetric_inertia_moves_like_its_symmetric_part() {
    let with_tensor = |rows: [[f64; 3]; 3]| {
        // A free body tumbling: Euler's equations use every entry of the tensor.
        let mut model = pendulum(1.0, [0.1, 0.2, 0.3]);
        model.joints.clear();
        model.bodies[0].inertial.inertia = Inertia(rows);
        model.bodies[0].initial_velocity = Some(mbconv_ir::Twist {
            linear: Vector3::zeros(),
            angular: Vector3::new(1.0, 2.0, 3.0),
        });
        model
    };
    let skewed = with_tensor([[0.1, 0.02, 0.0], [0.0, 0.2, 0.01], [0.0, 0.03, 0.3]]);
    let symmetric = with_tensor([[0.1, 0.01, 0.0], [0.01, 0.2, 0.02], [0.0, 0.02, 0.3]]);
    let trajectory = |model: &Model| {
        let mut poses = Vec::new();
        simulate(model, &SimulateOptions::default(), &mut |s| {
            poses.push(s.poses.to_vec())
        })
        .unwrap();
        poses
    };
    let (a, b) = (trajectory(&skewed), trajectory(&symmetric));
    assert_eq!(a.len(), b.len());
    assert!(a == b, "the skewed tensor moves unlike its symmetric part");
}
