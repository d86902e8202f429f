//! The URDF fixtures of `fixtures/urdf/`, each read and checked against values worked out
//! here independently of the reader (nalgebra's own Euler angles and isometries).
#![allow(clippy::unwrap_used)]

use mbconv_ir::format::{Format, Imported, Options, Source};
use mbconv_ir::{ActuatorKind, BodyRef, Geometry, JointKind, Limits, Model, Value};
use nalgebra::{Isometry3, Matrix3, Rotation3, Translation3, UnitQuaternion, Vector3};
use std::path::PathBuf;

fn fixture(name: &str) -> PathBuf {
    mbconv_test_support::fixtures_root().join("urdf").join(name)
}

fn read_with(name: &str, options: &Options) -> Imported {
    let imported = mbconv_urdf::UrdfFormat
        .read(&Source::from_path(&fixture(name)).unwrap(), options)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let errors: Vec<String> = mbconv_ir::validate(&imported.model)
        .at_least(mbconv_ir::Severity::Error)
        .map(|f| f.to_string())
        .collect();
    assert!(errors.is_empty(), "{name}: {errors:?}");
    imported
}

fn read(name: &str) -> Imported {
    read_with(name, &Options::default())
}

/// URDF's `<origin>` as an isometry, through nalgebra's extrinsic roll-pitch-yaw.
fn origin(xyz: [f64; 3], rpy: [f64; 3]) -> Isometry3<f64> {
    Isometry3::from_parts(
        Translation3::new(xyz[0], xyz[1], xyz[2]),
        UnitQuaternion::from_euler_angles(rpy[0], rpy[1], rpy[2]),
    )
}

fn assert_pose(model: &Model, body: &str, expected: Isometry3<f64>) {
    let pose = model.body(body).unwrap().pose.to_isometry();
    let dt = (pose.translation.vector - expected.translation.vector).norm();
    let dr = pose.rotation.angle_to(&expected.rotation);
    assert!(dt < 1e-12 && dr < 1e-12, "{body}: pose {pose} != {expected}");
}

fn joint<'m>(model: &'m Model, name: &str) -> &'m mbconv_ir::Joint {
    model.joints.iter().find(|j| j.name == name).unwrap()
}

#[test]
fn the_inertial_origin_rotates_the_tensor() {
    let imported = read("rotated_inertia.urdf");
    let m = &imported.model;
    assert!(m.body("base").unwrap().fixed);
    let plate = m.body("plate").unwrap();
    assert_pose(m, "plate", origin([0.0, 0.0, 1.0], [0.2, 0.0, -0.4]));
    assert_eq!(plate.inertial.mass, 2.5);
    assert_eq!(plate.inertial.com, Vector3::new(0.1, -0.05, -0.3));
    let written = Matrix3::new(0.09, -0.012, 0.004, -0.012, 0.05, 0.007, 0.004, 0.007, 0.11);
    let r = Rotation3::from_euler_angles(0.3, -0.7, 1.1).into_inner();
    let expected = r * written * r.transpose();
    let got = plate.inertial.inertia_in_body_axes();
    assert!((got - expected).norm() < 1e-15, "{got} != {expected}");
    // The angles as written come back bit for bit: kept when the rotation does not give them.
    let spelled = |extras: &mbconv_ir::Extras, aid: &str, rotation: &UnitQuaternion<f64>| {
        mbconv_ir::format::kit::aids::kept_array::<3>(extras, "urdf", aid)
            .unwrap_or_else(|| mbconv_ir::rotation::rpy::from_quaternion(rotation))
    };
    let rpy = spelled(
        &plate.extras,
        "inertial.origin.rpy",
        &plate.inertial.inertia_rotation,
    );
    assert_eq!(rpy.map(f64::to_bits), [0.3, -0.7, 1.1].map(f64::to_bits));
    let hinge = joint(m, "skewed_hinge");
    let rpy = spelled(&hinge.extras, "origin.rpy", &hinge.parent_frame.rotation);
    assert_eq!(rpy.map(f64::to_bits), [0.2, 0.0, -0.4].map(f64::to_bits));
    let rpy = spelled(
        &plate.shapes[0].extras,
        "origin.rpy",
        &plate.shapes[0].pose.rotation,
    );
    assert_eq!(rpy.map(f64::to_bits), [0.0, 0.0, 0.25].map(f64::to_bits));
    // The products of inertia are the tensor's entries, not their negatives.
    assert_eq!(plate.inertial.inertia.0[0][1], -0.012);
    let hinge = joint(m, "skewed_hinge");
    assert_eq!(
        hinge.kind,
        JointKind::Revolute {
            axis: Vector3::new(0.3, 0.8, -0.52)
        }
    );
    assert_eq!(hinge.parent, BodyRef::body("base"));
    let dof = hinge.dof(0);
    assert_eq!(dof.position_limits, Limits::new(-1.5, 2.0));
    assert_eq!(dof.effort_limits, Limits::new(-30.0, 30.0));
    assert_eq!(dof.velocity_limits, Limits::new(-4.0, 4.0));
    assert_eq!((dof.damping, dof.friction), (0.05, 0.01));
    assert_eq!(plate.shapes.len(), 2);
    assert_eq!(
        (plate.shapes[0].role, plate.shapes[1].role),
        (mbconv_ir::ShapeRole::Visual, mbconv_ir::ShapeRole::Collision)
    );
}

#[test]
fn continuous_revolute_prismatic_mimic_and_what_urdf_keeps() {
    let imported = read("arm_mimic.urdf");
    let m = &imported.model;
    let spin = joint(m, "spin");
    assert!(matches!(spin.kind, JointKind::Revolute { .. }));
    let dof = spin.dof(0);
    assert!(
        dof.position_limits.is_unlimited(),
        "continuous: no position limits"
    );
    assert_eq!(dof.effort_limits, Limits::new(-12.0, 12.0));
    assert_eq!(dof.damping, 0.2);
    // `lower` missing: 0, with a finding.
    assert_eq!(
        joint(m, "shoulder").dof(0).position_limits,
        Limits::new(0.0, 1.57)
    );
    assert!(imported.report.contains("urdf.default"));
    assert_eq!(joint(m, "shoulder").actuator, Some(ActuatorKind::Force));
    assert!(
        joint(m, "shoulder")
            .extras
            .get("urdf.safety_controller")
            .is_some()
    );
    assert!(joint(m, "shoulder").extras.get("urdf.calibration").is_some());
    let right = joint(m, "right_slide");
    assert_eq!(
        right.kind,
        JointKind::Prismatic {
            axis: Vector3::new(0.0, -1.0, 0.0)
        }
    );
    let Some(Value::Map(mimic)) = right.extras.get("urdf.mimic") else {
        panic!("no mimic kept")
    };
    assert_eq!(mimic.get("@joint"), Some(&Value::String("left_slide".into())));
    assert!(imported.report.contains("urdf.mimic"));
    // Poses: base at the origin, turntable 5 cm up, upper arm pitched 0.4 rad 10 cm above it.
    let turntable = origin([0.0, 0.0, 0.05], [0.0; 3]);
    let upper = turntable * origin([0.0, 0.0, 0.1], [0.0, 0.4, 0.0]);
    assert_pose(m, "upper_arm", upper);
    assert_pose(m, "right_finger", upper * origin([0.0, -0.02, 0.4], [0.0; 3]));
    // Materials: global by name, inline, and an inline name reused by a later visual.
    let base_visual = &m.body("base_link").unwrap().shapes[0];
    assert_eq!(
        base_visual.appearance.as_ref().unwrap().diffuse,
        Some([0.0, 0.0, 0.8])
    );
    let arm_visual = &m.body("upper_arm").unwrap().shapes[0];
    assert_eq!(arm_visual.appearance.as_ref().unwrap().alpha, Some(0.8));
    assert_eq!(
        arm_visual.geometry,
        Geometry::Capsule {
            radius: 0.03,
            length: 0.34
        }
    );
    assert_eq!(
        m.body("turntable").unwrap().shapes[0].name.as_deref(),
        Some("turntable_visual")
    );
    // Extensions kept verbatim: two <gazebo> elements, the transmission.
    let Some(Value::List(gazebo)) = m.extras.get("urdf.gazebo") else {
        panic!("no gazebo list")
    };
    assert_eq!(gazebo.len(), 2);
    assert!(m.extras.get("urdf.transmission").is_some());
}

#[test]
fn a_world_link_and_fixed_chains() {
    let imported = read("fixed_chain.urdf");
    let m = &imported.model;
    assert!(m.body("world").is_none());
    assert_eq!(m.bodies.len(), 5);
    assert!(
        m.bodies.iter().all(|b| !b.fixed),
        "the world holds the chain; no root to weld"
    );
    assert!(!imported.report.contains("urdf.root"));
    let anchor = joint(m, "anchor");
    assert_eq!(
        (anchor.parent.clone(), &anchor.kind),
        (BodyRef::World, &JointKind::Fixed)
    );
    let pedestal = origin([0.0, 0.0, 1.5], [0.0, 0.0, 0.5]);
    let bracket = pedestal * origin([0.1, 0.0, 0.2], [0.0, 0.1, 0.0]);
    assert_pose(m, "pedestal", pedestal);
    assert_pose(m, "bracket", bracket);
    assert_pose(m, "sensor_mount", bracket * origin([0.1, 0.0, 0.0], [0.0; 3]));
    assert_pose(
        m,
        "tip",
        bracket * origin([0.1, 0.0, 0.0], [0.0; 3]) * origin([0.0, 0.0, -1.0], [0.0; 3]),
    );
    assert_eq!(m.body("sensor_mount").unwrap().inertial.mass, 0.0);
    // No <axis>: (1, 0, 0), reported.
    assert_eq!(joint(m, "wrist").kind, JointKind::Revolute { axis: Vector3::x() });
    assert!(
        imported
            .report
            .findings
            .iter()
            .any(|f| f.code == "urdf.default" && f.message.contains("<axis>"))
    );
    let summary = mbconv_ir::summary::ModelSummary::new(m);
    assert_eq!(summary.dof_total, 2);
}

#[test]
fn a_floating_base_a_planar_joint_and_quaternions() {
    let imported = read("floating_base.urdf");
    let m = &imported.model;
    let root = joint(m, "root");
    assert_eq!(
        (&root.kind, root.parent.clone()),
        (&JointKind::Free, BodyRef::World)
    );
    assert_pose(m, "torso", origin([0.0, 0.0, 1.2], [0.0; 3]));
    let torso = m.body("torso").unwrap();
    let expected = UnitQuaternion::from_axis_angle(&Vector3::z_axis(), std::f64::consts::FRAC_PI_4);
    assert!(torso.inertial.inertia_rotation.angle_to(&expected) < 1e-15);
    let JointKind::Planar { axis1, axis2 } = joint(m, "slider").kind else {
        panic!("not planar")
    };
    assert_eq!((axis1, axis2), (Vector3::x(), Vector3::y()));
    assert_eq!(mbconv_ir::summary::ModelSummary::new(m).dof_total, 6 + 1 + 3);
}

#[test]
fn mesh_uris_resolve_and_the_root_setting_decides() {
    let mut options = Options::default();
    let packages = fixture("packages");
    options.set("package_path", format!("/nonexistent:{}", packages.display()));
    options.set("root", "free");
    let imported = read_with("package_meshes.urdf", &options);
    let body = &imported.model.bodies[0];
    assert!(!body.fixed);
    assert!(
        imported
            .report
            .findings
            .iter()
            .any(|f| f.code == "urdf.root" && f.message.contains("free"))
    );
    let mesh = |i: usize| match &body.shapes[i].geometry {
        Geometry::Mesh(mesh) => mesh.clone(),
        other => panic!("not a mesh: {other:?}"),
    };
    let tri = packages.join("demo_description/meshes/tri.obj");
    assert_eq!(mesh(0).uri, "package://demo_description/meshes/tri.obj");
    assert_eq!(
        mesh(0).resolved_path.as_deref(),
        Some(tri.display().to_string().as_str())
    );
    assert_eq!(mesh(0).scale, [0.5, 0.5, 2.0]);
    let beside = fixture("packages/demo_description/meshes/tri.obj")
        .display()
        .to_string();
    assert_eq!(mesh(1).resolved_path.as_deref(), Some(beside.as_str()));
    assert_eq!(mesh(2).resolved_path.as_deref(), Some(beside.as_str()));
    assert_eq!(mesh(3).uri, "package://missing_description/meshes/gone.stl");
    assert_eq!(mesh(3).resolved_path, None);
    assert!(imported.report.contains("urdf.package_unresolved"));

    let imported = read("package_meshes.urdf");
    assert!(imported.model.bodies[0].fixed, "root=fixed is the default");
}
