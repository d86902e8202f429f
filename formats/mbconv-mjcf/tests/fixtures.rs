//! The MJCF fixtures of `fixtures/mjcf/` against values computed here independently (textbook
//! formulas, rotations built with nalgebra), not by the reader's own code. Each fixture was
//! also compiled by MuJoCo 4.0: per-body mass, world centre of mass, world inertia and world
//! frame at qpos0 agree to 1e-15, and 1 s of motion (RK4, 1e-4 s) to 1e-11 for
//! `two_hinges_slide.xml` and `keyframes.xml` (the commands are in docs/formats/mjcf.md).
#![allow(clippy::unwrap_used)]

use mbconv_ir::format::{Format, Options, Source};
use mbconv_ir::{Body, BodyRef, JointKind, Model};
use nalgebra::{Rotation3, Unit, UnitQuaternion, Vector3};
use std::f64::consts::PI;
use std::path::Path;

fn read_with(file: &str, options: &Options) -> mbconv_ir::format::Imported {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/mjcf")
        .join(file);
    mbconv_mjcf::MjcfFormat
        .read(&Source::from_path(&path).unwrap(), options)
        .unwrap_or_else(|e| panic!("{e}"))
}

fn read(file: &str) -> Model {
    let imported = read_with(file, &Options::default());
    let report = mbconv_ir::validate(&imported.model);
    assert!(!report.has_errors(), "{file}: {:?}", report.findings);
    imported.model
}

fn body<'m>(m: &'m Model, name: &str) -> &'m Body {
    m.bodies
        .iter()
        .find(|b| b.name == name)
        .unwrap_or_else(|| panic!("no body {name}"))
}

fn joint<'m>(m: &'m Model, name: &str) -> &'m mbconv_ir::Joint {
    m.joints
        .iter()
        .find(|j| j.name == name)
        .unwrap_or_else(|| panic!("no joint {name}"))
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

fn same_rotation(a: &UnitQuaternion<f64>, b: &UnitQuaternion<f64>) -> bool {
    a.angle_to(b) < 1e-12
}

#[test]
fn default_classes_three_deep_with_childclass() {
    let m = read("defaults_childclass.xml");
    let dof = |j: &str| joint(&m, j).dofs[0].clone();
    // shoulder: damping and armature from main, stiffness and range from limb.
    let s = dof("shoulder");
    assert_eq!((s.damping, s.rotor_inertia, s.spring_stiffness), (0.5, 0.01, 2.0));
    assert_eq!(
        (s.position_limits.lower, s.position_limits.upper),
        (Some(-1.0), Some(1.0))
    );
    // elbow: forearm overrides the damping only.
    let e = dof("elbow");
    assert_eq!(
        (e.damping, e.spring_stiffness, e.rotor_inertia),
        (0.25, 2.0, 0.01)
    );
    // wrist: the class `hand` on the element wins over the childclass; its axis is x.
    assert_eq!(
        joint(&m, "wrist").kind,
        JointKind::Revolute { axis: Vector3::x() }
    );
    // Geoms: a partial size over a class's size keeps the class's half length.
    let lower = body(&m, "lower");
    match lower.shapes[0].geometry {
        mbconv_ir::Geometry::Capsule { radius, length } => assert_eq!((radius, length), (0.04, 0.4)),
        ref g => panic!("{g:?}"),
    }
    // Masses: capsule of radius 0.05 and length 0.4 at density 500; the palm box at 1000.
    let capsule = |r: f64, l: f64, rho: f64| rho * (PI * r * r * l + 4.0 / 3.0 * PI * r * r * r);
    assert!(close(
        body(&m, "upper").inertial.mass,
        capsule(0.05, 0.4, 500.0),
        1e-12
    ));
    assert!(close(
        body(&m, "lower").inertial.mass,
        capsule(0.04, 0.4, 500.0),
        1e-12
    ));
    assert!(close(
        body(&m, "hand").inertial.mass,
        1000.0 * 0.06 * 0.04 * 0.02,
        1e-15
    ));
    // Which class each inherited value came from is kept for a writer.
    let origins = joint(&m, "elbow").extras.get("mjcf.from_class").unwrap();
    let from = |attr: &str| match origins {
        mbconv_ir::Value::Map(map) => map.get(attr).cloned(),
        _ => None,
    };
    assert_eq!(from("damping"), Some(mbconv_ir::Value::String("forearm".into())));
    assert_eq!(from("stiffness"), Some(mbconv_ir::Value::String("limb".into())));
    assert_eq!(from("armature"), Some(mbconv_ir::Value::String("main".into())));
    assert!(m.extras.get("mjcf.default").is_some());
    // The colour from the class limb reaches the hand two levels down.
    let colour = body(&m, "hand").shapes[0]
        .appearance
        .as_ref()
        .unwrap()
        .diffuse
        .unwrap();
    assert_eq!(colour, [0.8, 0.2, 0.2]);
}

#[test]
fn every_orientation_form_in_degrees() {
    let m = read("orientations_degrees.xml");
    let d = PI / 180.0;
    let axis = |x: f64, y: f64, z: f64| Unit::new_normalize(Vector3::new(x, y, z));
    let rot = |b: &str| body(&m, b).pose.rotation;
    let by_quat = UnitQuaternion::from_axis_angle(&Vector3::y_axis(), 45.0 * d);
    assert!(same_rotation(&rot("by_quat"), &by_quat));
    assert!(same_rotation(
        &rot("by_axisangle"),
        &UnitQuaternion::from_axis_angle(&axis(1.0, 1.0, 0.0), 60.0 * d)
    ));
    // eulerseq="ZYX": rotations about fixed axes, z then y then x: R = Rx(c)·Ry(b)·Rz(a).
    let euler = UnitQuaternion::from_axis_angle(&Vector3::x_axis(), 60.0 * d)
        * UnitQuaternion::from_axis_angle(&Vector3::y_axis(), -45.0 * d)
        * UnitQuaternion::from_axis_angle(&Vector3::z_axis(), 30.0 * d);
    assert!(same_rotation(&rot("by_euler"), &euler));
    // xyaxes: x along +y, y made orthogonal to it.
    let x = Vector3::new(0.0, 1.0, 0.0);
    let y = Vector3::new(-1.0, 0.0, 0.5).normalize();
    let frame = Rotation3::from_basis_unchecked(&[x, y, x.cross(&y)]);
    assert!(same_rotation(
        &rot("by_xyaxes"),
        &UnitQuaternion::from_rotation_matrix(&frame)
    ));
    // zaxis: the shortest rotation taking z onto (1, 1, 1).
    let z = rot("by_zaxis") * Vector3::z();
    assert!((z - Vector3::new(1.0, 1.0, 1.0).normalize()).norm() < 1e-15);
    let shortest = UnitQuaternion::rotation_between(&Vector3::z(), &Vector3::new(1.0, 1.0, 1.0)).unwrap();
    assert!(same_rotation(&rot("by_zaxis"), &shortest));
    // The geom's own euler="0 0 90" follows eulerseq="ZYX": its third angle turns about x.
    let geom = body(&m, "by_zaxis").shapes[0].pose.rotation;
    assert!(same_rotation(
        &geom,
        &UnitQuaternion::from_axis_angle(&Vector3::x_axis(), PI / 2.0)
    ));
    // A frame turned a quarter turn about z carries the body from (5,0,0)+(1,0,0) to (5,1,0).
    let f = body(&m, "in_frame");
    assert!((f.pose.translation - Vector3::new(5.0, 1.0, 0.0)).norm() < 1e-15);
    assert!(same_rotation(
        &f.pose.rotation,
        &UnitQuaternion::from_axis_angle(&Vector3::z_axis(), PI / 2.0)
    ));
}

#[test]
fn two_hinges_and_a_slide_in_one_body() {
    let m = read("two_hinges_slide.xml");
    // The three joints chain through two massless bodies, in the order written.
    let chain: Vec<(&str, Option<&str>, Option<&str>)> = ["hinge_y", "hinge_x", "slide_z"]
        .iter()
        .map(|n| {
            let j = joint(&m, n);
            (*n, j.parent.name(), j.child.name())
        })
        .collect();
    assert_eq!(
        chain,
        [
            ("hinge_y", Some("base"), Some("arm.hinge_y")),
            ("hinge_x", Some("arm.hinge_y"), Some("arm.hinge_x")),
            ("slide_z", Some("arm.hinge_x"), Some("arm")),
        ]
    );
    for helper in ["arm.hinge_y", "arm.hinge_x"] {
        assert_eq!(body(&m, helper).inertial.mass, 0.0);
        assert_eq!(body(&m, helper).pose, body(&m, "arm").pose);
    }
    // ref and springref in degrees; the IR coordinate is MuJoCo's minus ref.
    let d = PI / 180.0;
    let y = &joint(&m, "hinge_y").dofs[0];
    assert!(close(y.spring_rest_position, 20.0 * d, 1e-15));
    assert!(close(y.position_limits.lower.unwrap(), -100.0 * d, 1e-15));
    assert!(close(y.position_limits.upper.unwrap(), 80.0 * d, 1e-15));
    assert_eq!((y.spring_stiffness, y.damping, y.rotor_inertia), (4.0, 0.1, 0.02));
    assert_eq!(joint(&m, "hinge_x").dofs[0].friction, 0.01);
    let z = &joint(&m, "slide_z").dofs[0];
    assert!(close(z.spring_rest_position, 0.01, 1e-16));
    assert!(close(z.position_limits.lower.unwrap(), -0.35, 1e-16));
    // The hinges turn about the anchor 0.3 above the arm's origin, in the arm's axes.
    let hy = joint(&m, "hinge_y");
    assert_eq!(hy.child_frame.translation, Vector3::new(0.0, 0.0, 0.3));
    let arm = body(&m, "arm");
    let anchor = arm.pose.transform_point(&Vector3::new(0.0, 0.0, 0.3));
    let expected = Vector3::new(0.3 * (20.0 * d).sin(), 0.0, 0.7 + 0.3 * (20.0 * d).cos());
    assert!((anchor - expected).norm() < 1e-15, "{anchor}");
    assert_eq!(m.simulation.time_step, Some(0.001));
}

#[test]
fn mass_from_geoms_of_every_primitive() {
    let m = read("mass_from_geoms.xml");
    let mass = |b: &str| body(&m, b).inertial.mass;
    let moments = |b: &str| body(&m, b).inertial.inertia_in_body_axes();
    let sphere = 2000.0 * 4.0 / 3.0 * PI * 1e-3;
    assert!(close(mass("sphere"), sphere, 1e-12));
    assert!(close(moments("sphere")[(0, 0)], 0.4 * sphere * 0.01, 1e-15));
    let capsule = 1000.0 * (PI * 0.0025 * 0.4 + 4.0 / 3.0 * PI * 0.05f64.powi(3));
    assert!(close(mass("capsule"), capsule, 1e-12));
    assert_eq!(mass("cylinder"), 3.0);
    assert!(close(moments("cylinder")[(2, 2)], 3.0 * 0.0025 / 2.0, 1e-15));
    assert!(close(
        moments("cylinder")[(0, 0)],
        3.0 * (3.0 * 0.0025 + 0.16) / 12.0,
        1e-15
    ));
    let ellipsoid = 1000.0 * 4.0 / 3.0 * PI * 0.006;
    assert!(close(mass("ellipsoid"), ellipsoid, 1e-12));
    assert!(close(
        moments("ellipsoid")[(0, 0)],
        ellipsoid * (0.04 + 0.09) / 5.0,
        1e-14
    ));
    assert!(close(mass("box"), 1000.0 * 0.2 * 0.4 * 0.6, 1e-12));
    assert!(close(moments("box")[(2, 2)], 48.0 * (0.04 + 0.16) / 12.0, 1e-13));
    // A spherical shell: area density, 2/3 m r².
    let shell = 10.0 * 4.0 * PI * 0.01;
    assert!(close(mass("shell"), shell, 1e-13));
    assert!(close(moments("shell")[(0, 0)], 2.0 / 3.0 * shell * 0.01, 1e-15));
    // fromto: a cylinder 0.5 long from the origin to (0.3, 0.4, 0), centred between them.
    let ft = body(&m, "fromto");
    assert!(close(ft.inertial.mass, 1000.0 * PI * 0.0025 * 0.5, 1e-12));
    assert!((ft.inertial.com - Vector3::new(0.15, 0.2, 0.0)).norm() < 1e-15);
    // Several geoms: the group-3 sphere is outside inertiagrouprange and does not count.
    let boxm = 1000.0 * 0.008;
    let capm = 1000.0 * (PI * 0.0025 * 0.2 + 4.0 / 3.0 * PI * 0.05f64.powi(3));
    let several = body(&m, "several");
    assert!(close(several.inertial.mass, boxm + capm, 1e-12));
    let com = (Vector3::new(0.2, 0.0, 0.0) * boxm + Vector3::new(-0.1, 0.1, 0.0) * capm) / (boxm + capm);
    assert!((several.inertial.com - com).norm() < 1e-15);
    // Explicit fullinertia wins over the geom (inertiafromgeom auto); MuJoCo's decomposition
    // is accurate to about 1e-8.
    let ex = body(&m, "explicit");
    assert_eq!(ex.inertial.mass, 2.0);
    let i = ex.inertial.inertia_in_body_axes();
    let given = nalgebra::Matrix3::new(0.3, 0.01, -0.02, 0.01, 0.2, 0.03, -0.02, 0.03, 0.25);
    assert!((i - given).abs().max() < 1e-8, "{i}");
}

#[test]
fn four_bar_closed_by_connect_and_a_weld() {
    let m = read("four_bar_connect.xml");
    let close_joint = joint(&m, "close");
    assert_eq!(close_joint.kind, JointKind::Spherical);
    assert_eq!(
        (close_joint.parent.name(), close_joint.child.clone()),
        (Some("rocker"), BodyRef::World)
    );
    // The anchor in the rocker and the same point of the world coincide at qpos0.
    let rocker = body(&m, "rocker");
    let in_world = rocker.pose * close_joint.parent_frame;
    let other = close_joint.child_frame;
    assert!((in_world.translation - other.translation).norm() < 1e-15);
    assert!((in_world.translation - Vector3::new(0.4, 0.0, 0.0)).norm() < 1e-15);
    let hold = joint(&m, "hold");
    assert_eq!(hold.kind, JointKind::Fixed);
    let (tip, coupler) = (body(&m, "tip"), body(&m, "coupler"));
    let rel = tip.pose.inverse() * coupler.pose;
    assert!((hold.parent_frame.translation - rel.translation).norm() < 1e-15);
    let tree = mbconv_ir::kinematics::SpanningTree::new(&m);
    assert_eq!(tree.loop_joints.len(), 2);
}

#[test]
fn joint_coupling_tendon_and_actuator_are_reported_and_kept() {
    let imported = read_with("joint_coupling.xml", &Options::default());
    let r = &imported.report;
    for code in ["mjcf.equality_joint", "mjcf.tendon_kept", "mjcf.actuator_kept"] {
        assert!(r.contains(code), "{code}: {:?}", r.findings);
    }
    let m = &imported.model;
    for key in ["mjcf.equality", "mjcf.tendon", "mjcf.actuator"] {
        assert!(m.extras.get(key).is_some(), "{key}");
    }
    // The motor is an IR force motor on its joint at MuJoCo's initial control, zero.
    assert_eq!(m.motors.len(), 1);
    let drive = &m.motors[0];
    assert_eq!(drive.name, "drive");
    assert_eq!(drive.actuation, mbconv_ir::MotorActuation::Force);
    assert_eq!(
        drive.target,
        mbconv_ir::MotorTarget::Joint {
            joint: "ja".into(),
            dof: 0
        }
    );
    assert_eq!(drive.function, mbconv_ir::TimeFunction::Constant { value: 0.0 });
    assert!(r.contains("mjcf.actuator_zero_control"));
}

#[test]
fn keyframes_qpos0_by_default_or_picked() {
    let m = read("keyframes.xml");
    assert!(m.joints.iter().all(|j| j.q0.iter().all(|&q| q == 0.0)));
    let mut options = Options::default();
    options.set("keyframe", "moved");
    let moved = read_with("keyframes.xml", &options).model;
    let q = |n: &str| moved.joints.iter().find(|j| j.name == n).unwrap().q0.clone();
    let v = |n: &str| moved.joints.iter().find(|j| j.name == n).unwrap().v0.clone();
    // Hinge: qpos minus ref; slide as is.
    assert!(close(q("hinge")[0], 0.5, 1e-15));
    assert_eq!(q("slide"), vec![0.05]);
    assert_eq!(v("hinge"), vec![0.5]);
    // Ball: the quaternion (a quarter turn about x) as a rotation vector.
    let ball = q("ball");
    assert!(close(ball[0], PI / 2.0, 1e-15) && ball[1] == 0.0 && ball[2] == 0.0);
    assert_eq!(v("ball"), vec![0.0, 0.0, 3.0]);
    // Free: world position and orientation relative to the body's reference pose (z turned
    // by 0.5 rad at (0, 0, 1)).
    let free = q("float");
    let reference = UnitQuaternion::from_axis_angle(&Vector3::z_axis(), 0.5);
    let p = reference.inverse() * Vector3::new(0.1, 0.2, 0.5);
    assert!((Vector3::new(free[0], free[1], free[2]) - p).norm() < 1e-15);
    assert!((Vector3::new(free[3], free[4], free[5]) - Vector3::new(0.0, 0.0, -0.5)).norm() < 1e-15);
    // By index too; an unknown keyframe is an error naming the ones there are.
    let mut by_index = Options::default();
    by_index.set("keyframe", "1");
    assert_eq!(read_with("keyframes.xml", &by_index).model.joints, moved.joints);
    let mut unknown = Options::default();
    unknown.set("keyframe", "jump");
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/mjcf/keyframes.xml");
    let err = mbconv_mjcf::MjcfFormat
        .read(&Source::from_path(&path).unwrap(), &unknown)
        .unwrap_err();
    assert!(
        err.to_string().contains("keyframes: 0 (rest), 1 (moved)"),
        "{err}"
    );
}

#[test]
fn replicate_turns_moves_and_renames_copies() {
    let m = read("replicate.xml");
    assert_eq!(m.bodies.len(), 12);
    assert_eq!(m.bodies[0].name, "post-00");
    assert_eq!(m.bodies[11].name, "post-11");
    assert!(m.joints.iter().any(|j| j.name == "hinge-03"));
    // Copy i stands at the sum of the offsets turned by 0, 30, …, 30·(i−1) degrees, turned by 30·i.
    let d = PI / 180.0;
    let mut expected = Vector3::zeros();
    for i in 0..12 {
        let b = body(&m, &format!("post-{i:02}"));
        assert!(
            (b.pose.translation - expected).norm() < 1e-14,
            "{i}: {}",
            b.pose.translation
        );
        let turn = UnitQuaternion::from_axis_angle(&Vector3::z_axis(), 30.0 * d * i as f64);
        assert!(same_rotation(&b.pose.rotation, &turn), "{i}");
        expected += turn * Vector3::x();
    }
    // Nested copies: the inner suffix first, then the outer one.
    let names: Vec<&str> = body(&m, "post-02")
        .frames
        .iter()
        .map(|f| f.name.as_str())
        .collect();
    assert_eq!(names, ["mark0-02", "mark1-02"]);
    assert!((body(&m, "post-02").frames[1].pose.translation - Vector3::new(0.0, 0.2, 0.0)).norm() < 1e-15);
}

#[test]
fn disabled_flags_switch_gravity_springs_dampers_friction_limits_and_loops_off() {
    let m = read("flags_off.xml");
    assert_eq!(m.simulation.gravity, Some(Vector3::zeros()));
    let kept = m.simulation.extras.get("mjcf.gravity").unwrap();
    assert_eq!(
        *kept,
        mbconv_ir::Value::List(vec![
            mbconv_ir::Value::Float(0.0),
            mbconv_ir::Value::Float(0.0),
            mbconv_ir::Value::Float(-9.81)
        ])
    );
    let hinge = joint(&m, "hinge").dof(0);
    // Springs act; damping, Coulomb friction and limits are off.
    assert_eq!((hinge.spring_stiffness, hinge.spring_rest_position), (20.0, 0.8));
    assert_eq!((hinge.damping, hinge.friction), (0.0, 0.0));
    assert!(hinge.position_limits.is_unlimited());
    let off = joint(&m, "slider").extras.get("mjcf.flag_off").unwrap();
    let mbconv_ir::Value::Map(off) = off else {
        panic!("{off:?}")
    };
    assert_eq!(off.get("damping"), Some(&mbconv_ir::Value::Float(2.0)));

    // constraint="disable" in a second <option> adds to spring="disable" of the first.
    let m = read("flags_constraint.xml");
    assert_eq!(m.simulation.gravity, Some(Vector3::new(0.0, 0.0, -9.81)));
    let shoulder = joint(&m, "shoulder").dof(0);
    assert_eq!(shoulder.spring_stiffness, 0.0);
    assert_eq!(shoulder.damping, 0.2);
    assert_eq!(shoulder.friction, 0.0);
    assert!(shoulder.position_limits.is_unlimited());
    assert!(!joint(&m, "hold").enabled);
    assert!(joint(&m, "shoulder").enabled);
}
