//! Spanning trees, joint motions and forward kinematics against hand calculations.
#![allow(clippy::unwrap_used)]

use approx::assert_relative_eq;
use mbconv_ir::kinematics::{Attachment, Configuration, SpanningTree, joint_motion, world_poses};
use mbconv_ir::*;
use nalgebra::{UnitQuaternion, Vector3};
use std::f64::consts::FRAC_PI_2;

fn joint(name: &str, kind: JointKind, parent: BodyRef, child: &str) -> Joint {
    Joint::new(name, kind, parent, BodyRef::body(child))
}

#[test]
fn joint_motions_match_hand_calculations() {
    let p = joint_motion(
        &JointKind::Revolute {
            axis: Vector3::new(0.0, 0.0, 2.0),
        },
        &[FRAC_PI_2],
    );
    assert_relative_eq!(p.transform_vector(&Vector3::x()), Vector3::y(), epsilon = 1e-15);

    // Screw: pitch 0.2 m per turn, a quarter turn advances 0.05 m.
    let p = joint_motion(
        &JointKind::Screw {
            axis: Vector3::z(),
            pitch: 0.2,
        },
        &[FRAC_PI_2],
    );
    assert_relative_eq!(p.translation, Vector3::new(0.0, 0.0, 0.05), epsilon = 1e-15);

    // Universal: R = Rot(x, q1)·Rot(y, q2); the y axis after q1 = 90° points along z.
    let p = joint_motion(
        &JointKind::Universal {
            axis1: Vector3::x(),
            axis2: Vector3::y(),
        },
        &[FRAC_PI_2, 0.3],
    );
    assert_relative_eq!(p.transform_vector(&Vector3::y()), Vector3::z(), epsilon = 1e-15);

    // Planar in the xy plane: translate, then turn about z.
    let p = joint_motion(
        &JointKind::Planar {
            axis1: Vector3::x(),
            axis2: Vector3::y(),
        },
        &[1.0, 2.0, FRAC_PI_2],
    );
    assert_relative_eq!(p.translation, Vector3::new(1.0, 2.0, 0.0));
    assert_relative_eq!(p.transform_vector(&Vector3::x()), Vector3::y(), epsilon = 1e-15);

    // Free: translation first in q, then a rotation vector.
    let p = joint_motion(&JointKind::Free, &[1.0, 2.0, 3.0, 0.0, 0.0, FRAC_PI_2]);
    assert_relative_eq!(p.translation, Vector3::new(1.0, 2.0, 3.0));
    assert_relative_eq!(p.rotation.angle(), FRAC_PI_2, epsilon = 1e-15);

    // Euler zyx = Rz(q0)Ry(q1)Rx(q2).
    let p = joint_motion(
        &JointKind::Euler {
            order: EulerOrder::Zyx,
        },
        &[FRAC_PI_2, 0.0, 0.0],
    );
    assert_relative_eq!(p.transform_vector(&Vector3::x()), Vector3::y(), epsilon = 1e-15);

    // Point-line slides along x; point-plane in xy.
    assert_eq!(
        joint_motion(&JointKind::PointLine, &[0.5, 0.0, 0.0, 0.0]).translation,
        Vector3::new(0.5, 0.0, 0.0)
    );
    assert_eq!(
        joint_motion(&JointKind::PointPlane, &[0.5, -1.0, 0.0, 0.0, 0.0]).translation,
        Vector3::new(0.5, -1.0, 0.0)
    );
    assert!(joint_motion(&JointKind::Fixed, &[]).is_exact_identity());
}

/// Four-bar linkage: ground, crank, coupler, rocker; the fourth pin closes the loop.
fn four_bar() -> Model {
    let mut m = Model::new("four_bar");
    for (name, x) in [("crank", 0.0), ("coupler", 0.0), ("rocker", 2.0)] {
        let mut b = Body::new(name);
        b.pose = Pose::from_translation(Vector3::new(x, 0.0, 0.0));
        m.bodies.push(b);
    }
    m.bodies[1].pose = Pose::from_translation(Vector3::new(0.0, 1.0, 0.0));
    let z = || JointKind::Revolute { axis: Vector3::z() };
    m.joints.push(joint("ground_crank", z(), BodyRef::World, "crank"));
    let mut j = joint("crank_coupler", z(), BodyRef::body("crank"), "coupler");
    j.parent_frame = Pose::from_translation(Vector3::new(0.0, 1.0, 0.0));
    m.joints.push(j);
    let mut j = joint("ground_rocker", z(), BodyRef::World, "rocker");
    j.parent_frame = Pose::from_translation(Vector3::new(2.0, 0.0, 0.0));
    m.joints.push(j);
    let mut j = joint("coupler_rocker", z(), BodyRef::body("coupler"), "rocker");
    j.parent_frame = Pose::from_translation(Vector3::new(2.0, 0.0, 0.0));
    j.child_frame = Pose::from_translation(Vector3::new(0.0, 1.0, 0.0));
    m.joints.push(j);
    m
}

#[test]
fn four_bar_has_one_loop_and_one_degree_of_freedom_in_its_tree() {
    let m = four_bar();
    assert!(validate(&m).findings.is_empty(), "{:#?}", validate(&m).findings);
    let tree = SpanningTree::new(&m);
    assert_eq!(tree.loop_joints, vec![3]);
    assert_eq!(tree.dof(&m), 3);
    let summary = ModelSummary::new(&m);
    assert_eq!(summary.loop_count, 1);
    assert!(summary.joints[3].closes_loop);
}

#[test]
fn reversed_tree_joint_gives_the_same_poses() {
    // The rail joint names the cart as parent and the slider as child, but the slider is
    // welded to the world, so the tree reaches the cart from the joint's child side.
    let mut m = Model::new("reversed");
    let mut slider = Body::new("slider");
    slider.fixed = true;
    slider.pose = Pose::new(
        Vector3::new(0.0, 0.0, 1.0),
        UnitQuaternion::from_axis_angle(&Vector3::z_axis(), 0.3),
    );
    let mut cart = Body::new("cart");
    cart.pose = slider.pose * Pose::from_translation(Vector3::new(0.0, 0.0, 0.5));
    m.bodies = vec![cart, slider];
    let mut rail = joint(
        "rail",
        JointKind::Prismatic { axis: Vector3::x() },
        BodyRef::body("cart"),
        "slider",
    );
    rail.parent_frame = Pose::from_translation(Vector3::new(0.0, 0.0, -0.5));
    rail.q0 = vec![0.25];
    m.joints.push(rail);
    let tree = SpanningTree::new(&m);
    assert_eq!(
        tree.attachments[0],
        Attachment::Joint {
            joint: 0,
            parent: Some(1),
            reversed: true
        }
    );
    assert_eq!(tree.attachments[1], Attachment::Fixed);
    let reference = world_poses(&m, &tree, Configuration::Reference);
    assert!(reference[0].distance(&m.bodies[0].pose) < 1e-15);
    // With q = 0.25 the slider moves +0.25 along the joint x relative to the cart, so the
    // cart moves -0.25 along it relative to the fixed slider.
    let initial = world_poses(&m, &tree, Configuration::Initial);
    let expected = m.bodies[0].pose.translation - m.bodies[1].pose.rotation * Vector3::new(0.25, 0.0, 0.0);
    assert_relative_eq!(initial[0].translation, expected, epsilon = 1e-15);
}

#[test]
fn unconnected_bodies_float_and_disabled_joints_are_ignored() {
    let mut m = Model::new("float");
    m.bodies = vec![Body::new("a"), Body::new("b")];
    let mut j = joint("off", JointKind::Fixed, BodyRef::World, "a");
    j.enabled = false;
    m.joints.push(j);
    let tree = SpanningTree::new(&m);
    assert_eq!(tree.attachments, vec![Attachment::Floating, Attachment::Floating]);
    assert_eq!(tree.ignored_joints, vec![0]);
    assert_eq!(tree.dof(&m), 12);
}

#[test]
fn initial_configuration_applies_q0_along_the_chain() {
    let mut m = four_bar();
    m.joints[0].q0 = vec![FRAC_PI_2];
    let summary = ModelSummary::new(&m);
    // The crank turns 90° about z: the coupler's origin (at crank y = 1) moves to x = -1.
    assert_relative_eq!(summary.bodies[1].position[0], -1.0, epsilon = 1e-15);
    assert_relative_eq!(summary.bodies[1].position[1], 0.0, epsilon = 1e-15);
}
