//! A free joint that closes a loop constrains nothing, and the dynamics tree never goes through
//! it (`SpanningTree::for_dynamics`). MJCF writes a body held by an equality weld as a
//! `<freejoint>` body: taken as a tree joint, it made the weld and the arm's hinge reversed
//! tree joints, and the tree ended in a massless body on a hinge whose only inertia came from
//! the loop, which the articulated-body algorithm cannot take (MyoSuite's exosuit stood still
//! where the same model without the free joint swings).
#![allow(clippy::unwrap_used)]

use mbconv_ir::kinematics::SpanningTree;
use mbconv_ir::{Body, BodyRef, Inertia, Joint, JointKind, Model, Pose};
use mbconv_solver::{Integrator, SimulateOptions, Trajectory};
use nalgebra::{UnitQuaternion, Vector3};

fn massive(name: &str, at: Vector3<f64>, mass: f64) -> Body {
    let mut b = Body::new(name);
    b.pose = Pose::from_translation(at);
    b.inertial.mass = mass;
    b.inertial.com = Vector3::new(0.1, 0.0, -0.3);
    b.inertial.inertia = Inertia::from_moments_products([0.02, 0.03, 0.01], [0.0; 3]);
    b
}

/// A post and a pillar welded to the world through a base; on the pillar, a massless gimbal
/// body, and on that a hinge about a tilted axis into the arm; the cuff is welded to the arm and
/// floats on a free joint (`free`: whether the free joint is there). Breadth first from the
/// world, the free joint reaches the cuff, the arm and the gimbal (through the hinge, reversed)
/// before the pillar reaches the gimbal: the tree then ends in the massless gimbal on the
/// hinge, and the yoke welding it to the pillar closes the loop, as in MyoSuite's exosuit.
fn held_cuff(free: bool) -> Model {
    let mut m = Model::new("held cuff");
    m.simulation.gravity = Some(Vector3::new(0.0, 0.0, -9.81));
    m.bodies.push(massive("base", Vector3::zeros(), 2.0));
    m.bodies.push(massive("post", Vector3::new(0.0, 0.0, 0.5), 1.0));
    m.bodies.push(massive("pillar", Vector3::new(0.0, 0.0, 0.8), 1.0));
    let mut gimbal = massive("gimbal", Vector3::new(0.0, 0.0, 1.0), 0.0);
    gimbal.inertial.inertia = Inertia::from_moments_products([0.0; 3], [0.0; 3]);
    m.bodies.push(gimbal);
    m.bodies.push(massive("arm", Vector3::new(0.0, 0.0, 1.0), 1.5));
    m.bodies.push(massive("cuff", Vector3::new(0.0, 0.0, 1.0), 0.2));
    let at = |parent: &str, child: &str, kind: JointKind, name: &str, m: &Model| {
        let origin = |n: &str| m.body(n).map_or_else(Vector3::zeros, |b| b.pose.translation);
        let parent_ref = if parent == "world" {
            BodyRef::World
        } else {
            BodyRef::body(parent)
        };
        let mut j = Joint::new(name, kind, parent_ref, BodyRef::body(child));
        j.parent_frame = Pose::from_translation(origin(child) - origin(parent));
        j
    };
    let axis = Vector3::new(0.3, 1.0, 0.2).normalize();
    let joints = [
        at("world", "base", JointKind::Fixed, "mount", &m),
        at("world", "cuff", JointKind::Free, "float", &m),
        at("base", "post", JointKind::Fixed, "column", &m),
        at("post", "pillar", JointKind::Fixed, "riser", &m),
        at("pillar", "gimbal", JointKind::Fixed, "yoke", &m),
        at("gimbal", "arm", JointKind::Revolute { axis }, "hinge", &m),
        at("arm", "cuff", JointKind::Fixed, "strap", &m),
    ];
    for mut j in joints {
        if j.name == "hinge" {
            j.parent_frame.rotation = UnitQuaternion::from_euler_angles(0.2, 0.1, 0.0);
            j.child_frame.rotation = j.parent_frame.rotation;
        }
        if free || j.name != "float" {
            m.joints.push(j);
        }
    }
    m
}

fn poses(model: &Model) -> Vec<Vec<[f64; 7]>> {
    let options = SimulateOptions {
        duration: 0.3,
        dt: 1e-2,
        integrator: Integrator::Dopri5 {
            rtol: 1e-11,
            atol: 1e-11,
        },
        ..SimulateOptions::default()
    };
    Trajectory::record(model, &options).unwrap().0.poses
}

#[test]
fn the_free_joint_closes_the_loop_in_the_dynamics_tree() {
    let model = held_cuff(true);
    let old = SpanningTree::new(&model);
    assert_eq!(
        old.loop_joints,
        [4],
        "breadth first, the yoke closes the loop at the gimbal"
    );
    let new = SpanningTree::for_dynamics(&model);
    assert_eq!(new.loop_joints, [1], "the free joint closes the loop");
}

#[test]
fn a_body_held_by_a_weld_moves_the_same_with_its_free_joint() {
    let with_free = poses(&held_cuff(true));
    let without = poses(&held_cuff(false));
    let arm = 4;
    let (first, last) = (with_free[0][arm], with_free.last().unwrap()[arm]);
    let swing = (3..7).map(|i| (last[i] - first[i]).abs()).fold(0.0, f64::max);
    assert!(swing > 1e-3, "the arm swings: {swing}");
    for (a, b) in with_free.iter().zip(&without) {
        for (p, q) in a.iter().zip(b) {
            for (x, y) in p.iter().zip(q) {
                assert!((x - y).abs() < 1e-9, "{p:?} vs {q:?}");
            }
        }
    }
}
