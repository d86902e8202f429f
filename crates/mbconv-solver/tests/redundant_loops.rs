//! Redundant loop constraints: the motion does not depend on the order in which the model
//! lists its bodies and joints. A Sarrus linkage (three two-link limbs between a fixed base
//! and a top that can only translate) has redundant loop rows, so its constraint systems are
//! singular and solved by pivoted Cholesky; a factorisation that went wrong after a pivot swap
//! made the Shift corpus `sarrus.json` written to Choreonoid Body (which lists the bodies
//! depth first) fall 5 m away from the same model listed breadth first.
#![allow(clippy::unwrap_used)]

use mbconv_ir::{Body, BodyRef, Joint, JointKind, Model, Pose};
use mbconv_solver::{Integrator, SimulateOptions, Trajectory};
use nalgebra::Vector3;

/// Base radius (m).
const R: f64 = 1.0;
/// Length of each limb link (m).
const L: f64 = 1.5;
/// Initial height of the top above the base (m).
const H: f64 = 2.0;

fn body(name: &str, at: Vector3<f64>, com: Vector3<f64>) -> Body {
    let mut b = Body::new(name);
    b.pose = Pose::from_translation(at);
    b.inertial.mass = 1.0;
    b.inertial.com = com;
    b
}

/// A revolute joint about `axis` (world) at the world point `at`; every body frame is
/// world-aligned, so the joint frames are translations only.
fn hinge(
    name: &str,
    model: &Model,
    parent: &str,
    child: &str,
    axis: Vector3<f64>,
    at: Vector3<f64>,
) -> Joint {
    let origin = |n: &str| model.body(n).unwrap().pose.translation;
    let mut j = Joint::new(
        name,
        JointKind::Revolute { axis },
        BodyRef::body(parent),
        BodyRef::body(child),
    );
    j.parent_frame = Pose::from_translation(at - origin(parent));
    j.child_frame = Pose::from_translation(at - origin(child));
    j
}

fn sarrus() -> Model {
    let mut m = Model::new("sarrus");
    m.simulation.gravity = Some(Vector3::new(0.0, 0.0, -9.81));
    let mut base = body("base", Vector3::zeros(), Vector3::zeros());
    base.fixed = true;
    m.bodies.push(base);
    let top_at = Vector3::new(0.0, 0.0, H);
    m.bodies.push(body("top", top_at, Vector3::zeros()));
    let reach = (L * L - H * H / 4.0).sqrt();
    for k in 0..3 {
        let angle = 2.0 * std::f64::consts::PI * f64::from(k) / 3.0;
        let u = Vector3::new(angle.cos(), angle.sin(), 0.0);
        let axis = Vector3::z().cross(&u);
        let foot = R * u;
        let knee = foot + reach * u + H / 2.0 * Vector3::z();
        let head = foot + H * Vector3::z();
        let (lower, upper) = (format!("lower{k}"), format!("upper{k}"));
        m.bodies.push(body(&lower, foot, (knee - foot) / 2.0));
        m.bodies.push(body(&upper, knee, (head - knee) / 2.0));
        let hip = hinge(&format!("hip{k}"), &m, "base", &lower, axis, foot);
        let mid = hinge(&format!("knee{k}"), &m, &lower, &upper, axis, knee);
        let top = hinge(&format!("head{k}"), &m, &upper, "top", axis, head);
        m.joints.extend([hip, mid, top]);
    }
    m
}

/// World positions of the body frames, by body name, at every sample.
fn positions(model: &Model) -> Vec<std::collections::BTreeMap<String, Vector3<f64>>> {
    let options = SimulateOptions {
        duration: 0.5,
        dt: 1e-3,
        integrator: Integrator::SemiImplicitEuler,
        ..SimulateOptions::default()
    };
    let (trajectory, _) = Trajectory::record(model, &options).unwrap();
    trajectory
        .poses
        .iter()
        .map(|row| {
            trajectory
                .bodies
                .iter()
                .zip(row)
                .map(|(name, p)| (name.clone(), Vector3::new(p[0], p[1], p[2])))
                .collect()
        })
        .collect()
}

#[test]
fn the_top_of_a_sarrus_linkage_falls_straight_down() {
    let run = positions(&sarrus());
    let last = &run[run.len() - 1]["top"];
    assert!(last.z < H - 0.1, "the top falls: {last:?}");
    assert!(
        last.x.abs() < 1e-9 && last.y.abs() < 1e-9,
        "and only translates: {last:?}"
    );
}

#[test]
fn a_sarrus_linkage_moves_the_same_whatever_the_order_of_bodies_and_joints() {
    let listed = sarrus();
    let mut reordered = listed.clone();
    reordered.bodies.reverse();
    reordered.joints.reverse();
    let (a, b) = (positions(&listed), positions(&reordered));
    assert_eq!(a.len(), b.len());
    for (k, (x, y)) in a.iter().zip(&b).enumerate() {
        for (name, p) in x {
            let d = (p - y[name]).norm();
            assert!(d < 1e-9, "sample {k}: {name} off by {d}");
        }
    }
}
