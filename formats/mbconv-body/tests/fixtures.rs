//! The hand-written models of `fixtures/body/`, with expectations computed by hand (the
//! comments show the arithmetic).

#![allow(clippy::unwrap_used)]

use mbconv_body::BodyFormat;
use mbconv_ir::format::{Format, Imported, Options, Source};
use mbconv_ir::kinematics::{Configuration, SpanningTree, world_poses};
use mbconv_ir::{
    ConstraintKind, DeviceType, ExtraJointType, Geometry, JointKind, Limits, Model, ShapeRole, Value,
};
use mbconv_test_support::workspace_root;
use nalgebra::Vector3;
use std::f64::consts::PI;

fn read(name: &str) -> Imported {
    let path = workspace_root().join("fixtures/body").join(name);
    BodyFormat
        .read(&Source::from_path(&path).unwrap(), &Options::default())
        .unwrap()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

fn close3(a: &Vector3<f64>, b: [f64; 3]) -> bool {
    (a - Vector3::from(b)).amax() < 1e-12
}

fn initial_com(model: &Model, body: &str) -> Vector3<f64> {
    let poses = world_poses(model, &SpanningTree::new(model), Configuration::Initial);
    let i = model.body_index(body).unwrap();
    poses[i].transform_point(&model.bodies[i].inertial.com)
}

#[test]
fn pendulum_reads_degrees_lists_letters_and_six_number_inertia() {
    let m = read("pendulum.body").model;
    assert_eq!(m.name, "pendulum");
    assert_eq!(m.simulation.gravity, Some(Vector3::new(0.0, 0.0, -9.80665)));
    // translation [[0,0,1],[0,0,0.5]] sums to (0, 0, 1.5); a base with only `mass` keeps the
    // default unit inertia.
    let base = m.body("base").unwrap();
    assert!(close3(&base.pose.translation, [0.0, 0.0, 1.5]));
    assert_eq!(base.inertial.mass, 2.0);
    assert_eq!(base.inertial.inertia.moments(), [1.0, 1.0, 1.0]);
    assert_eq!(m.joint("base").unwrap().kind, JointKind::Fixed);
    let arm = m.joint("arm").unwrap();
    assert_eq!(arm.kind, JointKind::Revolute { axis: -Vector3::y() });
    assert!(close(arm.q0[0], PI / 6.0));
    assert_eq!(arm.joint_id, Some(0));
    // Rz(90°)·Rx(90°) takes x to y, y to z, z to x.
    let r = arm.parent_frame.rotation;
    assert!(close3(&(r * Vector3::x()), [0.0, 1.0, 0.0]));
    assert!(close3(&(r * Vector3::y()), [0.0, 0.0, 1.0]));
    let dof = &arm.dofs[0];
    assert!(close(dof.position_limits.lower.unwrap(), -PI / 2.0));
    assert_eq!(dof.position_limits.upper, None);
    assert!(close(dof.velocity_limits.upper.unwrap(), PI));
    assert_eq!(dof.effort_limits, Limits::new(-10.0, 10.0));
    assert_eq!((dof.rotor_inertia, dof.gear_ratio), (0.01, 100.0));
    assert_eq!(
        m.body("arm").unwrap().inertial.inertia.moments(),
        [0.1, 0.1, 0.01]
    );
    // COM (0,0,-0.5) turned 30° about -Y: (0.25, 0, -0.4330); then x->y, y->z, z->x:
    // (-0.4330, 0.25, 0); plus the link origin (0.5, 0, 1.5).
    let com = initial_com(&m, "arm");
    assert!(close3(&com, [0.5 - 0.5 * (PI / 6.0).cos(), 0.25, 1.5]));
}

#[test]
fn joint_angle_is_converted_even_on_prismatic_joints() {
    let imported = read("quirks.body");
    let m = imported.model;
    assert_eq!(m.name, "quirks");
    assert_eq!(m.joint("base").unwrap().kind, JointKind::Free);
    let slider = m.joint("slider").unwrap();
    assert_eq!(slider.kind, JointKind::Prismatic { axis: Vector3::z() });
    assert!(close(slider.q0[0], PI / 2.0));
    assert_eq!(slider.dofs[0].position_limits, Limits::new(-0.5, 0.5));
    let slide = m.joint("slide").unwrap();
    assert_eq!(slide.kind, JointKind::Prismatic { axis: Vector3::x() });
    assert_eq!(slide.q0, vec![0.25]);
    assert!(close(m.joint("hinge").unwrap().q0[0], PI / 4.0));
    assert!(imported.report.contains("body.default"));
}

#[test]
fn merge_keys_keep_explicit_keys_and_the_first_merged_mapping() {
    let m = read("merge_keys.body").model;
    assert_eq!(m.body("a").unwrap().inertial.mass, 3.0);
    assert_eq!(
        m.joint("a").unwrap().kind,
        JointKind::Revolute { axis: Vector3::z() }
    );
    // Radian unit: 0.5 stays 0.5.
    assert_eq!(m.joint("a").unwrap().q0, vec![0.5]);
    assert_eq!(m.body("b").unwrap().inertial.mass, 5.0);
    assert_eq!(
        m.joint("b").unwrap().kind,
        JointKind::Revolute { axis: Vector3::x() }
    );
    assert_eq!(m.body("c").unwrap().inertial.mass, 7.0);
}

#[test]
fn rigid_bodies_merge_by_the_parallel_axis_theorem() {
    let m = read("rigid_bodies.body").model;
    let i = &m.body("body").unwrap().inertial;
    // m = 2 + 2; c = (2·0 + 2·1)/4 = 0.5 on x; each part is 0.5 from c: +2·0.25 on y and z.
    assert_eq!(i.mass, 4.0);
    assert!(close3(&i.com, [0.5, 0.0, 0.0]));
    let moments = i.inertia.moments();
    assert!(close(moments[0], 2.0) && close(moments[1], 4.0) && close(moments[2], 5.0));
}

#[test]
fn y_axis_primitives_turn_onto_z_and_scales_are_baked() {
    let m = read("shapes.body").model;
    let shapes = &m.body("body").unwrap().shapes;
    assert_eq!(shapes.len(), 4);
    assert_eq!(
        shapes[0].geometry,
        Geometry::Cylinder {
            radius: 0.1,
            length: 1.0
        }
    );
    assert_eq!(shapes[0].role, ShapeRole::Both);
    // The IR cylinder's axis (z) is Choreonoid's y.
    assert!(close3(
        &shapes[0].pose.transform_vector(&Vector3::z()),
        [0.0, 1.0, 0.0]
    ));
    assert_eq!(
        shapes[1].geometry,
        Geometry::Cone {
            radius: 0.2,
            length: 0.5
        }
    );
    assert!(close3(&shapes[1].pose.translation, [0.0, 0.0, 1.0]));
    assert_eq!(
        shapes[1].appearance.as_ref().unwrap().diffuse,
        Some([1.0, 0.0, 0.0])
    );
    assert_eq!(
        shapes[2].geometry,
        Geometry::Box {
            size: [2.0, 4.0, 6.0]
        }
    );
    assert_eq!(shapes[2].role, ShapeRole::Visual);
    assert_eq!(
        shapes[3].geometry,
        Geometry::Capsule {
            radius: 0.05,
            length: 0.3
        }
    );
    assert_eq!(shapes[3].role, ShapeRole::Collision);
}

#[test]
fn the_four_bar_closes_at_its_initial_state() {
    let m = read("four_bar.body").model;
    assert_eq!(m.constraints.len(), 1);
    let ConstraintKind::ExtraJoint {
        joint_type,
        body1,
        frame1,
        body2,
        frame2,
        axis,
    } = &m.constraints[0].kind
    else {
        panic!("not an extra joint");
    };
    assert_eq!(*joint_type, ExtraJointType::Hinge);
    assert_eq!(*axis, Vector3::y());
    let poses = world_poses(&m, &SpanningTree::new(&m), Configuration::Initial);
    let p1 = poses[m.body_index(body1.name().unwrap()).unwrap()].transform_point(&frame1.translation);
    let p2 = poses[m.body_index(body2.name().unwrap()).unwrap()].transform_point(&frame2.translation);
    // Both anchors at (1 + 0.5·sin30°, 0, 0.5·cos30°).
    assert!(close3(&p1, [1.25, 0.0, 0.5 * (PI / 6.0).cos()]));
    assert!((p1 - p2).norm() < 1e-12);
}

#[test]
fn sub_bodies_are_renamed_offset_and_overridden() {
    let m = read("sub_body.body").model;
    let names: Vec<&str> = m.bodies.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(
        names,
        ["torso", "L_shoulder", "L_elbow", "R_shoulder2", "R_elbow2"]
    );
    let left = m.joint("L_shoulder").unwrap();
    assert_eq!(left.kind, JointKind::Revolute { axis: Vector3::x() });
    assert!(close3(&left.parent_frame.translation, [0.0, 0.2, 0.5]));
    assert_eq!(m.joint("R_shoulder2").unwrap().kind, JointKind::Fixed);
    assert_eq!(m.joint("L_elbow").unwrap().joint_id, Some(2));
    assert_eq!(m.joint("R_elbow2").unwrap().joint_id, Some(0));
    assert!(close(m.joint("L_elbow").unwrap().q0[0], PI / 4.0));
    let devices: Vec<&str> = m.devices.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(devices, ["L_wrist_fs", "right_wrist_fs"]);
    assert_eq!(m.devices[1].body.name(), Some("R_elbow2"));
}

#[test]
fn devices_take_the_transform_stack_and_unnamed_ones_get_names() {
    let imported = read("devices.body");
    let m = imported.model;
    let eye = &m.devices[0];
    assert_eq!(
        (eye.name.as_str(), eye.device_type.clone(), eye.id),
        ("eye", DeviceType::Camera, Some(0))
    );
    assert!(close3(&eye.pose.translation, [0.1, 0.0, 0.0]));
    assert!(close3(&eye.pose.transform_vector(&Vector3::x()), [0.0, 1.0, 0.0]));
    let Some(Value::Float(fov)) = eye.parameters.get("fieldOfView") else {
        panic!("no fieldOfView")
    };
    assert!(close(*fov, PI / 3.0));
    assert_eq!(m.devices[1].device_type, DeviceType::RateGyroSensor);
    assert_eq!(m.devices[1].name, "head_RateGyroSensor1");
    assert!(
        imported
            .report
            .findings
            .iter()
            .any(|f| f.message.contains("has no name"))
    );
}

#[test]
fn every_fixture_round_trips() {
    let dir = workspace_root().join("fixtures/body");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "body") {
            continue;
        }
        let first = BodyFormat
            .read(&Source::from_path(&path).unwrap(), &Options::default())
            .unwrap();
        let written = BodyFormat.write(&first.model, &Options::default()).unwrap();
        assert!(
            !written.report.has_loss(),
            "{}: {:?}",
            path.display(),
            written.report
        );
        let again = Source::from_string("again.body", written.text.clone())
            .with_path("again.body", Some(dir.join("again.body")));
        let second = BodyFormat.read(&again, &Options::default()).unwrap();
        let rewritten = BodyFormat.write(&second.model, &Options::default()).unwrap();
        assert_eq!(written.text, rewritten.text, "{}", path.display());
        assert_eq!(second.model.bodies.len(), first.model.bodies.len());
    }
}

#[test]
fn a_fixed_extra_joint_is_a_weld_in_the_ir_and_is_reported() {
    let text = "format: ChoreonoidBody\nformat_version: 2.0\nlinks:\n  - name: a\n  - name: b\n    parent: a\n    joint_type: free\nextra_joints:\n  - link1_name: a\n    link2_name: b\n    joint_type: fixed\n";
    let imported = BodyFormat
        .read(&Source::from_string("w.body", text), &Options::default())
        .unwrap();
    let ConstraintKind::ExtraJoint { joint_type, axis, .. } = &imported.model.constraints[0].kind else {
        panic!("not an extra joint");
    };
    assert_eq!(*joint_type, ExtraJointType::Fixed);
    // No axis given: Choreonoid's default +X.
    assert_eq!(*axis, Vector3::x());
    assert_eq!(imported.model.constraints[0].name, "extra_joint0");
    let finding = imported
        .report
        .findings
        .iter()
        .find(|f| f.code == "body.fixed_extra_joint")
        .unwrap();
    assert_eq!(finding.span.as_ref().unwrap().line, 9);
}

#[test]
fn a_continuous_track_expands_into_a_chain_and_a_track_keeps_its_wheel_axis() {
    let m = read("track.body").model;
    let names: Vec<&str> = m.bodies.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["chassis", "belt0", "belt1", "belt2", "belt3", "tread"]);
    assert_eq!(m.joint("belt0").unwrap().kind, JointKind::Free);
    assert_eq!(
        m.joint("belt0").unwrap().parent,
        mbconv_ir::BodyRef::body("chassis")
    );
    let belt2 = m.joint("belt2").unwrap();
    assert_eq!(belt2.kind, JointKind::Revolute { axis: Vector3::y() });
    assert_eq!(belt2.parent, mbconv_ir::BodyRef::body("belt1"));
    assert!(close3(&belt2.parent_frame.translation, [0.1, 0.0, 0.0]));
    // initialJointAngles [10, 20, 30] degrees go to belt1..belt3.
    assert!(close(belt2.q0[0], 20.0 * PI / 180.0));
    assert_eq!(m.body("belt3").unwrap().inertial.mass, 0.1);
    let tread = m.joint("tread").unwrap();
    assert_eq!(
        tread.kind,
        JointKind::PseudoContinuousTrack { axis: Vector3::y() }
    );
    assert_eq!(tread.actuator, Some(mbconv_ir::ActuatorKind::Velocity));
}

#[test]
fn a_root_link_that_is_neither_fixed_nor_free_is_free_and_its_angle_unused() {
    // Choreonoid places the root at its offset whatever its jointAngle, and simulates a
    // non-fixed root as free.
    let text = "format: ChoreonoidBody\nformat_version: 2.0\nlinks:\n  - name: a\n    translation: [0, 0, 1]\n    joint_type: revolute\n    joint_angle: 30\n    center_of_mass: [1, 0, 0]\n";
    let imported = BodyFormat
        .read(&Source::from_string("r.body", text), &Options::default())
        .unwrap();
    let m = &imported.model;
    assert_eq!(m.joints[0].kind, JointKind::Free);
    assert_eq!(m.joints[0].q0, vec![0.0; 6]);
    assert!(close3(&initial_com(m, "a"), [1.0, 0.0, 1.0]));
    assert!(imported.report.contains("body.root_joint"));
    // Written back as a free root with the unused angle, which reads back the same.
    let written = BodyFormat.write(m, &Options::default()).unwrap();
    assert!(written.text.contains("joint_type: free") && written.text.contains("joint_angle: 30"));
    let again = BodyFormat
        .read(&Source::from_string("r.body", written.text), &Options::default())
        .unwrap();
    assert_eq!(again.model.joints, m.joints);
}
