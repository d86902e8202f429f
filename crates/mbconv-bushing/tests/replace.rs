//! `replace_joint_with_bushing`: free and constrained directions, design constants, initial
//! state, findings and refusals.
#![allow(clippy::unwrap_used)]

use mbconv_bushing::design::critically_damped_product;
use mbconv_bushing::{BushingError, FrameState, ReplaceParams, evaluate, replace_joint_with_bushing};
use mbconv_ir::kinematics::{Configuration, SpanningTree, world_poses};
use mbconv_ir::{
    Body, BodyRef, Bushing, BushingConstants, BushingLaw, Category, ForceKind, Inertia, Joint, JointBushing,
    JointKind, Model, Motor, MotorActuation, MotorTarget, MotorType, Pose, TimeFunction,
};
use nalgebra::{UnitQuaternion, Vector3};

/// A 2 kg bob hanging 1 m below a pivot on the world, joined by `kind`.
fn pendulum(kind: JointKind, q0: Vec<f64>) -> Model {
    let mut m = Model::new("pendulum");
    let mut bob = Body::new("bob");
    bob.pose = Pose::from_translation(Vector3::new(0.0, 0.0, -1.0));
    bob.inertial.mass = 2.0;
    bob.inertial.inertia = Inertia::from_moments_products([0.1, 0.2, 0.3], [0.0; 3]);
    m.bodies.push(bob);
    let mut j = Joint::new("pivot", kind, BodyRef::World, BodyRef::body("bob"));
    j.child_frame = Pose::from_translation(Vector3::new(0.0, 0.0, 1.0));
    j.q0 = q0;
    m.joints.push(j);
    m
}

fn the_bushing(model: &Model) -> &Bushing {
    match &model.force_elements.last().unwrap().kind {
        ForceKind::Bushing(b) => b,
        other => panic!("not a bushing: {other:?}"),
    }
}

fn frame_states(model: &Model, b: &Bushing) -> (FrameState, FrameState) {
    let tree = SpanningTree::new(model);
    let poses = world_poses(model, &tree, Configuration::Initial);
    let pose_of = |r: &BodyRef| {
        r.name()
            .map_or_else(Pose::identity, |n| poses[model.body_index(n).unwrap()])
    };
    (
        FrameState::at_rest(pose_of(&b.body_a) * b.frame_a),
        FrameState::at_rest(pose_of(&b.body_c) * b.frame_c),
    )
}

#[test]
fn revolute_about_y_becomes_a_yaw_free_bushing_with_designed_constants() {
    let model = pendulum(JointKind::Revolute { axis: Vector3::y() }, vec![0.0]);
    let (out, findings) = replace_joint_with_bushing(&model, "pivot", &ReplaceParams::default()).unwrap();
    assert!(out.joints.is_empty());
    assert_eq!(out.force_elements[0].name, "pivot");
    let b = the_bushing(&out);
    assert_eq!(b.law, BushingLaw::DrakeRollPitchYaw);
    assert_eq!(
        (b.body_a.clone(), b.body_c.clone()),
        (BodyRef::World, BodyRef::body("bob"))
    );
    // The hinge axis (world y) is the bushing's z axis on both sides.
    assert!((b.frame_a.rotation * Vector3::z() - Vector3::y()).norm() < 1e-15);
    assert!((b.frame_c.rotation * Vector3::z() - Vector3::y()).norm() < 1e-15);
    // Free yaw, everything else constrained.
    assert_eq!((b.torque_stiffness[2], b.torque_damping[2]), (0.0, 0.0));
    assert!(b.torque_stiffness[..2].iter().all(|k| *k > 0.0));
    // Default: settle to 1 % in 0.01 s, critically damped; the world side is infinitely heavy,
    // so the characteristic mass is the bob's.
    let omega = critically_damped_product(0.01).unwrap() / 0.01;
    assert_eq!(b.force_stiffness, [2.0 * omega * omega; 3]);
    assert!((b.force_damping[0] - 2.0 * b.force_stiffness[0] / omega).abs() < 1e-9 * b.force_damping[0]);
    // Rotations use the bob's inertia about the pivot: Ixx + m·1² along bushing x (world −x or x).
    let inertia_x = {
        let axis = b.frame_c.rotation * Vector3::x();
        0.1 * axis.x.powi(2) + 0.2 * axis.y.powi(2) + 0.3 * axis.z.powi(2) + 2.0 * (1.0 - axis.z.powi(2))
    };
    assert!((b.torque_stiffness[0] - inertia_x * omega * omega).abs() < 1e-9 * b.torque_stiffness[0]);
    let codes: Vec<&str> = findings.iter().map(|f| f.code.as_str()).collect();
    assert!(codes.contains(&"bushing.replaced_joint"), "{codes:?}");
    assert!(codes.contains(&"bushing.default_settling_time"), "{codes:?}");
    assert!(!codes.contains(&"bushing.initial_preload"), "{codes:?}");
    let replaced = findings
        .iter()
        .find(|f| f.code == "bushing.replaced_joint")
        .unwrap();
    assert_eq!(replaced.category, Category::Approximated);
}

#[test]
fn swinging_about_the_hinge_is_free_and_tilting_is_resisted() {
    let model = pendulum(JointKind::Revolute { axis: Vector3::y() }, vec![0.0]);
    let (out, _) = replace_joint_with_bushing(&model, "pivot", &ReplaceParams::default()).unwrap();
    let b = the_bushing(&out).clone();
    let hang = |rotation: UnitQuaternion<f64>| {
        // The bob turned about the pivot (world origin) by `rotation`.
        let pose = Pose::from_rotation(rotation) * out.bodies[0].pose;
        let a = FrameState::at_rest(b.frame_a);
        let c = FrameState::at_rest(pose * b.frame_c);
        evaluate(&b, &a, &c).unwrap()
    };
    let (_, swing) = hang(UnitQuaternion::from_axis_angle(&Vector3::y_axis(), 1.2));
    assert!(
        swing.torque.norm() < 1e-6 && swing.force.norm() < 1e-6,
        "{swing:?}"
    );
    let (_, tilt) = hang(UnitQuaternion::from_axis_angle(&Vector3::x_axis(), 0.01));
    assert!(tilt.torque.x < 0.0, "restoring torque about x: {tilt:?}");
}

#[test]
fn initial_angle_is_kept_by_moving_the_detached_body() {
    let model = pendulum(JointKind::Revolute { axis: Vector3::y() }, vec![0.4]);
    let before = world_poses(&model, &SpanningTree::new(&model), Configuration::Initial);
    let (out, findings) = replace_joint_with_bushing(&model, "pivot", &ReplaceParams::default()).unwrap();
    let after = world_poses(&out, &SpanningTree::new(&out), Configuration::Initial);
    assert!(after[0].distance(&before[0]) < 1e-12);
    // The hinge angle is free in the bushing: no preload.
    let codes: Vec<&str> = findings.iter().map(|f| f.code.as_str()).collect();
    assert!(!codes.contains(&"bushing.initial_preload"), "{codes:?}");
    assert!(!codes.contains(&"bushing.initial_pose_changed"), "{codes:?}");
    let b = the_bushing(&out);
    let (a, c) = frame_states(&out, b);
    let (on_a, _) = evaluate(b, &a, &c).unwrap();
    assert!(on_a.force.norm() < 1e-9 && on_a.torque.norm() < 1e-9);
}

#[test]
fn prismatic_universal_and_spherical_free_the_right_directions() {
    let (out, _) = replace_joint_with_bushing(
        &pendulum(JointKind::Prismatic { axis: Vector3::z() }, vec![0.3]),
        "pivot",
        &ReplaceParams::default(),
    )
    .unwrap();
    let b = the_bushing(&out);
    assert!((b.frame_a.rotation * Vector3::x() - Vector3::z()).norm() < 1e-15);
    assert_eq!(b.force_stiffness[0], 0.0);
    assert!(b.force_stiffness[1] > 0.0 && b.torque_stiffness.iter().all(|k| *k > 0.0));
    let (a, c) = frame_states(&out, b);
    let (on_a, _) = evaluate(b, &a, &c).unwrap();
    assert!(on_a.force.norm() < 1e-9, "sliding along the free axis is free");

    let (out, findings) = replace_joint_with_bushing(
        &pendulum(
            JointKind::Universal {
                axis1: Vector3::x(),
                axis2: Vector3::y(),
            },
            vec![0.0, 0.0],
        ),
        "pivot",
        &ReplaceParams::default(),
    )
    .unwrap();
    let b = the_bushing(&out);
    assert!(
        (b.frame_a.rotation * Vector3::z() - Vector3::x()).norm() < 1e-15,
        "axis1 is yaw"
    );
    assert!(
        (b.frame_a.rotation * Vector3::y() - Vector3::y()).norm() < 1e-15,
        "axis2 is pitch"
    );
    assert_eq!(b.torque_stiffness[1..], [0.0, 0.0]);
    assert!(b.torque_stiffness[0] > 0.0);
    assert!(findings.iter().any(|f| f.code == "bushing.gimbal_lock_risk"));

    let (out, _) = replace_joint_with_bushing(
        &pendulum(JointKind::Spherical, vec![0.0; 3]),
        "pivot",
        &ReplaceParams {
            settling_time: Some(0.1),
            ..ReplaceParams::default()
        },
    )
    .unwrap();
    let b = the_bushing(&out);
    assert_eq!(b.torque_stiffness, [0.0; 3]);
    assert_eq!(b.torque_damping, [0.0; 3]);
    let omega = critically_damped_product(0.01).unwrap() / 0.1;
    assert_eq!(b.force_stiffness, [2.0 * omega * omega; 3]);
}

#[test]
fn explicit_constants_and_reduced_mass() {
    // Two free bodies of 2 kg and 6 kg: reduced mass 1.5 kg.
    let mut m = Model::new("pair");
    for (name, mass) in [("a", 2.0), ("b", 6.0)] {
        let mut body = Body::new(name);
        body.inertial.mass = mass;
        m.bodies.push(body);
    }
    m.joints.push(Joint::new(
        "weld",
        JointKind::Fixed,
        BodyRef::body("a"),
        BodyRef::body("b"),
    ));
    let params = ReplaceParams {
        name: Some("weld_bushing".into()),
        omega_n: Some(100.0),
        damping_ratio: Some(0.5),
        torque_stiffness: Some(40.0),
        ..ReplaceParams::default()
    };
    let (out, _) = replace_joint_with_bushing(&m, "weld", &params).unwrap();
    assert_eq!(out.force_elements[0].name, "weld_bushing");
    let b = the_bushing(&out);
    assert_eq!(b.force_stiffness, [1.5 * 1e4; 3]);
    assert_eq!(b.force_damping, [2.0 * 0.5 * 1.5e4 / 100.0; 3]);
    assert_eq!(b.torque_stiffness, [40.0; 3]);
    assert_eq!(b.torque_damping, [2.0 * 0.5 * 40.0 / 100.0; 3]);
}

#[test]
fn a_chrono_bushing_joint_keeps_its_constants() {
    let mut model = pendulum(JointKind::Revolute { axis: Vector3::z() }, vec![0.0]);
    model.joints[0].bushing = Some(JointBushing {
        constrained: BushingConstants {
            stiffness_linear: 1e5,
            damping_linear: 1e3,
            stiffness_rotational: 1e5,
            damping_rotational: 1e3,
        },
        free: None,
    });
    let (out, findings) = replace_joint_with_bushing(&model, "pivot", &ReplaceParams::default()).unwrap();
    let b = the_bushing(&out);
    assert_eq!(b.torque_stiffness, [1e5, 1e5, 0.0]);
    assert_eq!(b.force_damping, [1e3; 3]);
    assert!(
        findings
            .iter()
            .any(|f| f.code == "bushing.law_converted" && f.category == Category::Approximated)
    );
}

#[test]
fn refusals_name_the_joint() {
    let model = pendulum(JointKind::Free, vec![0.0; 6]);
    let err = replace_joint_with_bushing(&model, "pivot", &ReplaceParams::default()).unwrap_err();
    assert!(
        err.to_string().starts_with("joint 'pivot': is a free joint"),
        "{err}"
    );
    let err = replace_joint_with_bushing(&model, "nope", &ReplaceParams::default()).unwrap_err();
    assert!(matches!(err, BushingError::Joint { ref joint, .. } if joint == "nope"));

    let mut driven = pendulum(JointKind::Revolute { axis: Vector3::y() }, vec![0.0]);
    driven.motors.push(Motor {
        name: "drive".into(),
        motor_type: MotorType::Rotation,
        actuation: MotorActuation::Force,
        function: TimeFunction::Constant { value: 1.0 },
        target: MotorTarget::Joint {
            joint: "pivot".into(),
            dof: 0,
        },
        extras: Default::default(),
    });
    let err = replace_joint_with_bushing(&driven, "pivot", &ReplaceParams::default()).unwrap_err();
    assert!(err.to_string().contains("motor 'drive'"), "{err}");

    let half = ReplaceParams {
        max_force: Some(10.0),
        ..ReplaceParams::default()
    };
    let model = pendulum(JointKind::Revolute { axis: Vector3::y() }, vec![0.0]);
    assert!(matches!(
        replace_joint_with_bushing(&model, "pivot", &half),
        Err(BushingError::Design(_))
    ));
}
