//! The project's own SKEL fixtures (`fixtures/skel/`): one per joint type and shape, with
//! expectations computed by hand, checked against DART's golden data and a round trip.
#![allow(clippy::unwrap_used)]

mod common;

use mbconv_ir::format::{Format, Imported, Options, Source};
use mbconv_ir::kinematics::{Configuration, SpanningTree, world_poses};
use mbconv_ir::{
    ActuatorKind, EulerOrder, FrameKind, Geometry, JointKind, Limits, Model, Pose, Severity, ShapeRole, Value,
};
use mbconv_skel::SkelFormat;
use nalgebra::{Matrix3, Vector3};
use std::f64::consts::FRAC_PI_2;

fn read(name: &str) -> Imported {
    let path = common::fixtures().join(name);
    SkelFormat
        .read(&Source::from_path(&path).unwrap(), &Options::default())
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn initial_pose(model: &Model, body: &str) -> Pose {
    let tree = SpanningTree::new(model);
    world_poses(model, &tree, Configuration::Initial)[model.body_index(body).unwrap()]
}

fn close(a: &Vector3<f64>, b: [f64; 3]) {
    assert!((a - Vector3::from(b)).norm() < 1e-12, "{a:?} != {b:?}");
}

fn close_rotation(p: &Pose, m: Matrix3<f64>) {
    let r = p.rotation.to_rotation_matrix().into_inner();
    assert!((r - m).abs().max() < 1e-12, "{r} != {m}");
}

fn rx(a: f64) -> Matrix3<f64> {
    let (s, c) = a.sin_cos();
    Matrix3::new(1.0, 0.0, 0.0, 0.0, c, -s, 0.0, s, c)
}
fn ry(a: f64) -> Matrix3<f64> {
    let (s, c) = a.sin_cos();
    Matrix3::new(c, 0.0, s, 0.0, 1.0, 0.0, -s, 0.0, c)
}
fn rz(a: f64) -> Matrix3<f64> {
    let (s, c) = a.sin_cos();
    Matrix3::new(c, -s, 0.0, s, c, 0.0, 0.0, 0.0, 1.0)
}

fn diagonal(model: &Model, body: &str) -> [f64; 3] {
    model.body(body).unwrap().inertial.inertia.moments()
}

fn close3(a: [f64; 3], b: [f64; 3]) {
    for i in 0..3 {
        assert!(
            (a[i] - b[i]).abs() < 1e-12 * b[i].abs().max(1.0),
            "{a:?} != {b:?}"
        );
    }
}

#[test]
fn every_fixture_matches_dart_and_round_trips() {
    let root = common::fixtures();
    let files = common::skel_files(&root);
    assert!(files.len() >= 11);
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let imported = read(&name);
        let golden_file = common::golden_path("fixtures", &root, &path);
        let golden: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&golden_file).unwrap_or_else(|_| {
                panic!(
                    "{name}: no golden file {}; run oracles/dart/dart_golden.py --root fixtures/skel --prefix fixtures",
                    golden_file.display()
                )
            }))
            .unwrap();
        if name != "joint_screw.skel" {
            let dev = common::compare(&imported.model, &golden, &name);
            assert!(dev.pose <= 1e-9 && dev.velocity <= 1e-9, "{name}: {dev:?}");
            if name == "joint_free.skel" {
                assert_eq!(dev.free_velocities, 2, "both free-joint velocities compared");
            }
            assert!(dev.mass <= 1e-12 && dev.inertia <= 1e-12, "{name}: {dev:?}");
        }
        let written = SkelFormat.write(&imported.model, &Options::default()).unwrap();
        let mut source = Source::from_string(name.clone(), written.text.clone());
        source.path = Some(path.clone());
        let back = SkelFormat.read(&source, &Options::default()).unwrap().model;
        assert_eq!(
            mbconv_ir::mbir::to_string(&imported.model),
            mbconv_ir::mbir::to_string(&back),
            "{name}: round trip\n{}",
            written.text
        );
    }
}

#[test]
fn revolute_pendulum() {
    let m = read("joint_revolute.skel").model;
    assert_eq!(m.name, "revolute");
    assert_eq!(m.simulation.time_step, Some(0.002));
    let j = m.joint("hinge").unwrap();
    assert_eq!(j.kind, JointKind::Revolute { axis: Vector3::y() });
    assert_eq!(j.actuator, Some(ActuatorKind::Servo));
    // Joint frame at z = +1 in the child, child at z = -1: the parent side is the world origin.
    close(&j.parent_frame.translation, [0.0, 0.0, 0.0]);
    assert_eq!((j.q0.clone(), j.v0.clone()), (vec![FRAC_PI_2], vec![0.5]));
    let dof = j.dof(0);
    assert_eq!(dof.position_limits, Limits::new(-1.0, 2.0));
    assert_eq!(
        (
            dof.damping,
            dof.friction,
            dof.spring_rest_position,
            dof.spring_stiffness
        ),
        (0.5, 0.1, 0.2, 3.0)
    );
    // A quarter turn about y swings the bob from (0,0,-1) to (-1,0,0).
    let p = initial_pose(&m, "link");
    close(&p.translation, [-1.0, 0.0, 0.0]);
    close_rotation(&p, ry(FRAC_PI_2));
    let i = &m.body("link").unwrap().inertial;
    assert_eq!(i.inertia.products(), [0.01, 0.02, 0.03]);
    assert_eq!(i.com, Vector3::new(0.0, 0.0, 0.5));
}

#[test]
fn prismatic_slider_in_a_turned_skeleton() {
    let m = read("joint_prismatic_weld.skel").model;
    let g = &m.groups[0];
    close_rotation(&g.pose.unwrap(), rz(FRAC_PI_2));
    assert_eq!(m.joint("anchor").unwrap().kind, JointKind::Fixed);
    assert_eq!(m.joint("slide").unwrap().actuator, Some(ActuatorKind::Velocity));
    // Slider at (1,0,0.5); axis (1,1,0)/√2 in the turned frame is (-1,1,0)/√2 in the world.
    let s = 0.5 / 2f64.sqrt();
    close(&initial_pose(&m, "slider").translation, [1.0 - s, s, 0.5]);
    // No <moment_of_inertia> and no shapes: the unit moment stays.
    assert_eq!(diagonal(&m, "base"), [1.0, 1.0, 1.0]);
    assert_eq!(m.body("base").unwrap().inertial.mass, 5.0);
}

#[test]
fn screw_is_kept_and_dart_does_not_build_it() {
    let imported = read("joint_screw.skel");
    let j = imported.model.joint("thread").unwrap();
    assert_eq!(
        j.kind,
        JointKind::Screw {
            axis: Vector3::z(),
            pitch: 0.01
        }
    );
    assert!(imported.report.contains("skel.screw_not_created"));
    // Half a turn at 0.01 m per turn: 5 mm up from z = 0.2.
    let p = initial_pose(&imported.model, "nut");
    close(&p.translation, [0.0, 0.0, 0.205]);
    let golden = common::golden_path(
        "fixtures",
        &common::fixtures(),
        &common::fixtures().join("joint_screw.skel"),
    );
    let golden: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(golden).unwrap()).unwrap();
    assert_eq!(golden["skeletons"][0]["bodies"].as_array().unwrap().len(), 0);
}

#[test]
fn universal_and_ball() {
    let m = read("joint_universal_ball.skel").model;
    let u = m.joint("cross").unwrap();
    assert_eq!(
        u.kind,
        JointKind::Universal {
            axis1: Vector3::x(),
            axis2: Vector3::y()
        }
    );
    assert_eq!(u.dof(0).position_limits, Limits::new(-0.5, 0.5));
    assert_eq!(u.dof(1).damping, 0.25);
    // R = Rx(0.3)·Ry(-0.2) about the world origin; the shaft centre hangs 0.5 below it.
    let p = initial_pose(&m, "shaft");
    let r = rx(0.3) * ry(-0.2);
    close_rotation(&p, r);
    let c = r * Vector3::new(0.0, 0.0, -0.5);
    close(&p.translation, [c.x, c.y, c.z]);
    let b = m.joint("shoulder").unwrap();
    assert_eq!(b.kind, JointKind::Spherical);
    assert_eq!(b.v0, vec![0.1, 0.2, 0.3]);
    // A quarter turn about z carries the arm from (1,0,0) to (0,1,0).
    let p = initial_pose(&m, "arm");
    close(&p.translation, [0.0, 1.0, 0.0]);
    close_rotation(&p, rz(FRAC_PI_2));
}

#[test]
fn euler_orders_and_translational() {
    let m = read("joint_euler_translational.skel").model;
    assert_eq!(
        m.joint("xyz").unwrap().kind,
        JointKind::Euler {
            order: EulerOrder::Xyz
        }
    );
    assert_eq!(
        m.joint("zyx").unwrap().kind,
        JointKind::Euler {
            order: EulerOrder::Zyx
        }
    );
    assert_eq!(
        m.joint("zyx").unwrap().dof(2).position_limits,
        Limits::new(-0.4, 0.4)
    );
    let outer = rx(0.1) * ry(0.2) * rz(0.3);
    close_rotation(&initial_pose(&m, "outer"), outer);
    close_rotation(&initial_pose(&m, "inner"), outer * rz(0.3) * ry(0.2) * rx(0.1));
    // Translation (1,2,3) in a joint frame turned 90° about z: (-2,1,3) in the world.
    close(&initial_pose(&m, "carriage").translation, [-2.0, 1.0, 3.0]);
}

#[test]
fn planar_planes() {
    let m = read("joint_planar.skel").model;
    assert_eq!(
        m.joint("table").unwrap().kind,
        JointKind::Planar {
            axis1: Vector3::z(),
            axis2: Vector3::x()
        }
    );
    // zx plane: 1 along z, 2 along x, a quarter turn about y.
    let p = initial_pose(&m, "puck");
    close(&p.translation, [2.0, 0.0, 1.0]);
    close_rotation(&p, ry(FRAC_PI_2));
    // Arbitrary plane written as (0,2,0) and (0,1,1): DART makes it y and z, normal x.
    assert_eq!(
        m.joint("slope").unwrap().kind,
        JointKind::Planar {
            axis1: Vector3::y(),
            axis2: Vector3::z()
        }
    );
    let p = initial_pose(&m, "sled");
    close(&p.translation, [0.0, 0.5, 0.25]);
    close_rotation(&p, rx(0.1));
}

#[test]
fn free_joint_coordinates() {
    let imported = read("joint_free.skel");
    let m = &imported.model;
    let j = m.joint("float").unwrap();
    // DART writes rotation first; the IR translation first.
    assert_eq!(j.q0, vec![1.0, 2.0, 3.0, 0.1, 0.2, 0.3]);
    assert!(imported.report.contains("skel.free_joint_velocity"));
    assert_eq!(
        j.extras.get("skel.source.init_vel"),
        Some(&Value::List(
            [1.0, 2.0, 3.0, 4.0, 5.0, 6.0].map(Value::Float).to_vec()
        ))
    );
    // Reference pose: skeleton frame (0.5,0,0) turned 0.3 about z, then the body transformation.
    let body = m.body("brick").unwrap();
    let expected = rz(0.3) * rx(0.4) * ry(0.2) * rz(0.1);
    close_rotation(&body.pose, expected);
    let t = rz(0.3) * Vector3::new(1.0, 2.0, 3.0) + Vector3::new(0.5, 0.0, 0.0);
    close(&body.pose.translation, [t.x, t.y, t.z]);
    // Inertia from the box: m/12 (b² + c²) about the shape centre, shifted to the offset.
    let i = &body.inertial;
    let d = -i.com;
    let ixx = 3.0 / 12.0 * (0.01 + 0.0025) + 3.0 * (d.y * d.y + d.z * d.z);
    assert!((i.inertia.0[0][0] - ixx).abs() < 1e-15);
    assert!((i.inertia.0[0][1] - (-3.0 * d.x * d.y)).abs() < 1e-15);
}

#[test]
fn implicit_root_and_orphan() {
    let imported = read("implicit_root_orphan.skel");
    let m = &imported.model;
    assert!(m.body("spare").is_none());
    assert!(imported.report.contains("skel.orphan_body"));
    assert!(imported.report.contains("skel.implicit_free_joint"));
    let root = m.joint("root").unwrap();
    assert_eq!(root.kind, JointKind::Free);
    assert_eq!(root.child.name(), Some("torso"));
    close(&root.parent_frame.translation, [0.0, 0.0, 1.0]);
    // The arm turns a quarter about z around the shoulder at (0,0,1): from (0.5,0,1) to (0,0.5,1).
    close(&initial_pose(m, "arm").translation, [0.0, 0.5, 1.0]);
}

#[test]
fn shapes_and_inertia_from_each_kind() {
    let imported = read("shapes.skel");
    let m = &imported.model;
    assert_eq!(
        m.simulation.extras.get("skel.collision_detector"),
        Some(&Value::String("fcl".into()))
    );
    let shape = |b: &str| &m.body(b).unwrap().shapes[0];
    assert_eq!(
        shape("box").appearance.as_ref().unwrap().diffuse,
        Some([1.0, 0.0, 0.0])
    );
    assert_eq!(shape("ellipsoid").appearance.as_ref().unwrap().alpha, Some(0.5));
    assert_eq!(
        shape("ellipsoid").geometry,
        Geometry::Ellipsoid {
            radii: [0.1, 0.2, 0.3]
        }
    );
    assert_eq!(shape("sphere").role, ShapeRole::Collision);
    assert!(!shape("sphere").collidable);
    // m = 6 kg; hand-computed DART moments.
    close3(
        diagonal(m, "box"),
        [0.5 * (0.04 + 0.09), 0.5 * (0.01 + 0.09), 0.5 * (0.01 + 0.04)],
    );
    close3(diagonal(m, "sphere"), [0.6; 3]);
    close3(
        diagonal(m, "ellipsoid"),
        [0.3 * (0.16 + 0.36), 0.3 * (0.04 + 0.36), 0.3 * (0.04 + 0.16)],
    );
    close3(
        diagonal(m, "cylinder"),
        [0.5 * (0.03 + 0.16), 0.5 * (0.03 + 0.16), 0.03],
    );
    // Capsule: 4.5 kg in the cylinder (π r² h = 0.004π of 0.004π + 0.004π/3), 1.5 kg in the caps.
    let side = 4.5 * (0.16 / 12.0 + 0.0025) + 1.5 * (0.004 + 0.015 + 0.04);
    close3(diagonal(m, "capsule"), [side, side, 4.5 * 0.005 + 1.5 * 0.004]);
    // DART's cone: 3/20 m (r² + 2/3 h²) and 3/10 m r².
    close3(diagonal(m, "cone"), [0.105, 0.105, 0.018]);
    // Multi-sphere: the box of the bounding box, 0.45 × 0.2 × 0.2.
    close3(
        diagonal(m, "multi_sphere"),
        [0.5 * 0.08, 0.5 * (0.2025 + 0.04), 0.5 * (0.2025 + 0.04)],
    );
    // Mesh: the scaled bounding box is a 0.2 m cube (vertices are rounded to f32 as Assimp does).
    let e = f64::from(0.2f32);
    close3(diagonal(m, "mesh"), [e * e, e * e, e * e]);
    match &shape("mesh").geometry {
        Geometry::Mesh(mesh) => {
            assert_eq!(mesh.scale, [1.0, 2.0, 0.5]);
            assert!(
                mesh.resolved_path
                    .as_deref()
                    .unwrap()
                    .ends_with("meshes/wedge.obj")
            );
        }
        other => panic!("{other:?}"),
    }
    // Pyramid: DART 6.20 has no formula and uses the unit tensor.
    close3(diagonal(m, "pyramid"), [1.0; 3]);
    assert!(matches!(shape("pyramid").geometry, Geometry::Pyramid { height, .. } if height == 0.3));
    // Plane by point: offset = n̂·p = 0.25 for both forms.
    for s in &m.body("plane").unwrap().shapes {
        assert!(matches!(s.geometry, Geometry::Plane { offset, .. } if offset == 0.25));
    }
    assert_eq!(diagonal(m, "plane"), [1.0; 3]);
    assert!(imported.report.contains("skel.default_inertia"));
}

#[test]
fn inertia_defaults_and_composite() {
    let imported = read("inertia_defaults.skel");
    let m = &imported.model;
    assert_eq!(m.body("bare").unwrap().inertial.mass, 1.0);
    assert_eq!(diagonal(m, "bare"), [1.0; 3]);
    assert_eq!(diagonal(m, "mass only"), [1.0; 3]);
    // Two boxes of 1 kg each, 0.1 m above the COM; the collision box is turned 90° about z.
    let own = |x: f64, y: f64, z: f64| {
        [
            (y * y + z * z) / 12.0,
            (x * x + z * z) / 12.0,
            (x * x + y * y) / 12.0,
        ]
    };
    let a = own(0.1, 0.2, 0.3);
    let b = own(0.2, 0.1, 0.3);
    let shift = 0.1 * 0.1;
    close3(
        diagonal(m, "two boxes"),
        [a[0] + b[0] + 2.0 * shift, a[1] + b[1] + 2.0 * shift, a[2] + b[2]],
    );
    let products = m.body("two boxes").unwrap().inertial.inertia.products();
    assert!(products.iter().all(|p| p.abs() < 1e-15));
    assert!(imported.report.contains("skel.inertia_from_shapes"));
}

#[test]
fn dofs_markers_soft_bodies() {
    let imported = read("dofs_markers_soft.skel");
    let m = &imported.model;
    assert!(!m.groups[0].mobile);
    let upper = m.body("upper").unwrap();
    assert!(!upper.gravity);
    assert_eq!(upper.frames[0].kind, FrameKind::Marker);
    close(&upper.frames[0].pose.translation, [0.0, -0.3, 0.0]);
    assert_eq!(
        upper.extras.get("skel.friction_coefficient"),
        Some(&Value::String("0.7".into()))
    );
    assert!(m.body("lower").unwrap().extras.get("skel.soft_shape").is_some());
    assert!(
        imported
            .report
            .findings
            .iter()
            .any(|f| f.code == "skel.soft_body" && f.severity == Severity::Warning)
    );
    let shoulder = m.joint("shoulder").unwrap();
    assert_eq!(shoulder.q0, vec![0.25, 0.0, 0.0]);
    assert_eq!(shoulder.v0, vec![0.5, 0.0, 0.0]);
    let yaw = shoulder.dof(0);
    assert_eq!(yaw.name.as_deref(), Some("yaw"));
    assert_eq!(yaw.position_limits, Limits::new(-1.0, 1.0));
    assert_eq!(yaw.velocity_limits, Limits::new(-2.0, 2.0));
    assert_eq!(yaw.damping, 0.3);
    let roll = shoulder.dof(2);
    assert_eq!(roll.acceleration_limits, Limits::new(-3.0, 3.0));
    assert_eq!(roll.effort_limits, Limits::new(-4.0, 4.0));
    assert_eq!((roll.spring_stiffness, roll.spring_rest_position), (10.0, 0.1));
    let elbow = m.joint("elbow").unwrap();
    assert_eq!(elbow.actuator, Some(ActuatorKind::Locked));
    assert_eq!(elbow.q0, vec![-0.5]);
    assert_eq!(elbow.dof(0).name.as_deref(), Some("bend"));
    assert_eq!(elbow.dof(0).friction, 0.05);
}

#[test]
fn source_map_points_at_the_elements() {
    let imported = read("joint_revolute.skel");
    let text = std::fs::read_to_string(common::fixtures().join("joint_revolute.skel")).unwrap();
    let line_of = |needle: &str| text[..text.find(needle).unwrap()].matches('\n').count() + 1;
    let span = |path: &str| imported.span_of(path).unwrap().line;
    assert_eq!(span(r#"joints["hinge"].q0"#), line_of("<init_pos>"));
    assert_eq!(
        span(r#"joints["hinge"].child_frame"#),
        line_of("<transformation>0 0 1")
    );
    assert_eq!(span(r#"joints["hinge"].dofs[0]"#), line_of("<joint "));
    assert_eq!(span(r#"bodies["link"].inertial.mass"#), line_of("<inertia>"));
    assert_eq!(span(r#"bodies["link"]"#), line_of("<body "));
    assert_eq!(span("groups[\"pendulum\"]"), line_of("<skeleton "));
}
