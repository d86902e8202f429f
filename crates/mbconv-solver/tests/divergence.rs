//! A simulation that blows up returns an error naming the time; it never hangs.
#![allow(clippy::unwrap_used)]

use mbconv_bushing::{ReplaceParams, replace_joint_with_bushing};
use mbconv_ir::{Body, BodyRef, Inertia, Joint, JointKind, Model};
use mbconv_solver::{Integrator, SimulateOptions, SolverError, simulate};
use nalgebra::Vector3;
use std::sync::mpsc;
use std::time::Duration;

/// A pendulum whose bob has a small inertia about its centre of mass, hinged by a stiff,
/// heavily damped penalty bushing: the damping rate is far beyond what RK4 at 1 ms can
/// integrate, so the state explodes within milliseconds.
fn unstable_model() -> Model {
    let mut ir = Model::new("unstable");
    let mut bob = Body::new("bob");
    bob.inertial.com = Vector3::new(0.0, 0.2, -1.0);
    bob.inertial.inertia = Inertia::from_moments_products([0.01, 0.02, 0.03], [0.0; 3]);
    ir.bodies.push(bob);
    let mut hinge = Joint::new(
        "hinge",
        JointKind::Revolute { axis: Vector3::y() },
        BodyRef::World,
        BodyRef::body("bob"),
    );
    hinge.q0 = vec![0.8];
    ir.joints.push(hinge);
    let params = ReplaceParams {
        force_stiffness: Some(1e3),
        torque_stiffness: Some(1e3),
        damping_ratio: Some(1.0),
        ..ReplaceParams::default()
    };
    replace_joint_with_bushing(&ir, "hinge", &params).unwrap().0
}

#[test]
fn a_diverging_simulation_is_an_error_not_a_hang() {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let options = SimulateOptions {
            duration: 1.0,
            dt: 1e-3,
            integrator: Integrator::Rk4,
            ..SimulateOptions::default()
        };
        let _ = tx.send(simulate(&unstable_model(), &options, &mut |_| {}));
    });
    let result = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("the simulation hung");
    // Either the step check sees the non-finite state, or a force element refuses it first
    // (the bushing law checks its frame states); both name what went wrong.
    match result {
        Err(SolverError::Diverged { time, .. }) => assert!(time > 0.0 && time < 1.0, "diverged at {time}"),
        Err(e @ SolverError::Force { .. }) => assert!(e.to_string().contains("not finite"), "{e}"),
        other => panic!("expected an error, got {other:?}"),
    }
}
