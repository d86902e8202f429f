//! The solver's joint stops decide on physics, not on rounding: a model and the same model with
//! every hinge's axis turned into its joint frames (an exact re-expression, as writers make it:
//! the USD writer's `axis_in_frames`) move alike to rounding, through the stops' events.
//!
//! Held-out round (docs/held-out.md): Robonaut 2 (`r2b.urdf`) moved 8e-2 m apart after 0.4 s
//! when two jaws' frames were turned. A coordinate at rest on its stop with no force either way
//! has a free acceleration and a holding force that are both rounding, and their signs can
//! disagree: the settling after an event locked and released it in turn and left it as the
//! count of passes fell.
#![allow(clippy::unwrap_used)]

use mbconv::ir::{JointKind, Model};
use mbconv::{Integrator, SimulateOptions};
use nalgebra::{UnitQuaternion, Vector3};

/// `model` with every revolute joint's axis put on the joint frames' X (both frames turned by
/// the rotation that takes X to the axis): the same mechanism, other rounding.
fn axes_turned_into_frames(model: &Model) -> Model {
    let mut turned = model.clone();
    for joint in &mut turned.joints {
        let JointKind::Revolute { axis } = joint.kind else {
            continue;
        };
        let Some(turn) = UnitQuaternion::rotation_between(&Vector3::x(), &axis) else {
            continue;
        };
        joint.parent_frame.rotation *= turn;
        joint.child_frame.rotation *= turn;
        joint.kind = JointKind::Revolute { axis: Vector3::x() };
    }
    turned
}

/// One second sampled every 10 ms, the error-controlled scheme at 1e-10, stops on.
fn accurate_with_stops() -> SimulateOptions {
    SimulateOptions {
        duration: 1.0,
        dt: 1e-2,
        integrator: Integrator::Dopri5 {
            rtol: 1e-10,
            atol: 1e-10,
        },
        joint_limits: true,
        ..Default::default()
    }
}

/// The largest distance between the two runs' body origins over all samples (m).
fn farthest_apart(model: &Model, other: &Model) -> f64 {
    let options = accurate_with_stops();
    let a = mbconv::simulate(model, &options).unwrap().trajectory;
    let b = mbconv::simulate(other, &options).unwrap().trajectory;
    assert_eq!(a.t.len(), b.t.len());
    let mut farthest: f64 = 0.0;
    for (pa, pb) in a.poses.iter().zip(&b.poses) {
        for (x, y) in pa.iter().zip(pb) {
            let d = (Vector3::new(x[0], x[1], x[2]) - Vector3::new(y[0], y[1], y[2])).norm();
            farthest = farthest.max(d);
        }
    }
    farthest
}

#[test]
fn pr2_moves_alike_with_its_hinge_axes_turned_into_the_joint_frames() {
    // Two of PR2's coordinates come to rest on a stop with rounding for a force: before, the
    // two forms parted by 1.2e-8 m at 0.2 s; now by 1e-15 m.
    let Some(path) =
        mbconv_test_support::corpus_file("urdf/example-robot-data/robots/pr2_description/urdf/pr2.urdf")
    else {
        return;
    };
    let model = mbconv::read(&path).unwrap().model;
    let turned = axes_turned_into_frames(&model);
    assert_ne!(turned, model);
    let apart = farthest_apart(&model, &turned);
    assert!(apart < 1e-12, "PR2 and its turned form part by {apart:e} m");
}

#[test]
fn a_stop_whose_holding_force_passes_through_zero_releases_its_coordinate_once() {
    // Choreonoid's RIC30 hangs on both knees' stops; at 0.0865 s their holding forces pass
    // through zero together. Released at a pull of 5e-19 N m, one knee's free acceleration
    // (rounding too) still pushed it into its stop: met, locked and released again every
    // 7e-13 s, the accurate integration ran out of its two million steps by 0.0865 s.
    let Some(path) = mbconv_test_support::corpus_file("body/share/model/RIC30/RIC30.body") else {
        return;
    };
    let model = mbconv::read(&path).unwrap().model;
    let options = accurate_with_stops();
    let run = mbconv::simulate(&model, &options).unwrap();
    assert_eq!(run.trajectory.t.len(), 101);
    let turned = axes_turned_into_frames(&model);
    let apart = farthest_apart(&model, &turned);
    assert!(apart < 1e-9, "RIC30 and its turned form part by {apart:e} m");
}

#[test]
fn a_coordinate_a_closed_loop_holds_on_its_stop_is_not_an_event_of_rounding() {
    // The Robotiq 2F-85 gripper on a Universal Robots arm: its finger tips rest on their stops
    // at t = 0, free (the stops would pull them), their motion decided by the fingers' closed
    // loops. A step dipped them 1e-20 rad into their stops: locked at once, released by the
    // settling, and so on without end at t = 0 ("the joint stops chatter").
    let Some(path) = mbconv_test_support::corpus_file("body/share/model/UniversalRobots/UR3-2F85.body")
    else {
        return;
    };
    let model = mbconv::read(&path).unwrap().model;
    let run = mbconv::simulate(&model, &accurate_with_stops()).unwrap();
    assert_eq!(run.trajectory.t.len(), 101);
}
