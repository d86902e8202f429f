//! The hand-written stages of `fixtures/usd/` read as UsdPhysics states them: units, gravity,
//! composed xform stacks, mass properties (stated and from colliders), joints with their
//! frames, limits and drives, shapes, and a stage whose physics is in a payload layer.
#![allow(clippy::unwrap_used)]

use approx::assert_relative_eq;
use mbconv_ir::format::{Format, Imported, Options, Source};
use mbconv_ir::{BodyRef, Geometry, JointKind, ShapeRole};
use mbconv_usd::UsdFormat;
use nalgebra::{UnitQuaternion, Vector3};
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/usd")
        .join(name)
}

fn read(name: &str) -> Imported {
    let source = Source::from_path(&fixture(name)).unwrap();
    UsdFormat.read(&source, &Options::default()).unwrap()
}

/// A float as UsdPhysics stores it, widened.
fn f(x: f32) -> f64 {
    f64::from(x)
}

const DEG: f64 = 180.0 / std::f64::consts::PI;

#[test]
fn pendulum() {
    let m = read("pendulum.usda").model;
    assert_eq!(m.name, "pendulum");
    assert_eq!(m.simulation.gravity, Some(Vector3::new(0.0, 0.0, -f(9.81))));
    let bob = &m.bodies[0];
    assert_eq!(bob.pose.translation, Vector3::new(0.0, 0.0, 1.0));
    assert_eq!(bob.inertial.mass, 1.0);
    assert_eq!(bob.inertial.inertia.moments(), [f(0.004); 3]);
    assert_eq!(bob.shapes[0].geometry, Geometry::Sphere { radius: 0.1 });
    assert_eq!(bob.shapes[0].role, ShapeRole::Both);
    assert_eq!(
        bob.shapes[0].appearance.as_ref().unwrap().diffuse,
        Some([f(0.8), f(0.2), f(0.2)])
    );
    let pivot = &m.joints[0];
    assert_eq!(pivot.kind, JointKind::Revolute { axis: Vector3::y() });
    assert_eq!(pivot.parent, BodyRef::World);
    assert_eq!(pivot.parent_frame.translation, Vector3::new(0.0, 0.0, 2.0));
    assert_eq!(pivot.child_frame.translation, Vector3::new(0.0, 0.0, 1.0));
}

#[test]
fn double_pendulum_limits_and_drive() {
    let imported = read("double_pendulum_limits.usda");
    let m = &imported.model;
    // No magnitude in the scene: Earth gravity down the up axis.
    assert_eq!(m.simulation.gravity, Some(Vector3::new(0.0, 0.0, -9.81)));
    let upper = m.body("upper").unwrap();
    let expected = UnitQuaternion::from_axis_angle(&Vector3::z_axis(), std::f64::consts::FRAC_PI_2);
    assert!(upper.pose.rotation.angle_to(&expected) < 1e-15);
    let rod = &upper.shapes[0];
    assert_eq!(
        rod.geometry,
        Geometry::Capsule {
            radius: 0.05,
            length: 0.9
        }
    );
    let elbow = m.joint("elbow").unwrap();
    let dof = &elbow.dofs[0];
    assert_eq!(dof.position_limits.lower, Some(-90.0 / DEG));
    assert_eq!(dof.position_limits.upper, Some(45.0 / DEG));
    assert_eq!(dof.spring_stiffness, f(0.1) * DEG);
    assert_eq!(dof.damping, f(0.01) * DEG);
    assert_eq!(dof.spring_rest_position, 10.0 / DEG);
    assert_eq!(elbow.parent, BodyRef::body("upper"));
}

#[test]
fn stage_units_scale_lengths_and_masses() {
    let imported = read("slider_units.usda");
    let m = &imported.model;
    // metersPerUnit unauthored: centimetres (reported); kilogramsPerUnit 0.001.
    assert!(
        imported
            .report
            .findings
            .iter()
            .any(|f| f.message.contains("metersPerUnit"))
    );
    assert_relative_eq!(m.simulation.gravity.unwrap().z, -9.81, max_relative = 1e-12);
    let cart = m.body("cart").unwrap();
    assert_relative_eq!(cart.pose.translation.z, 0.1, max_relative = 1e-15);
    assert_relative_eq!(cart.inertial.mass, 0.5, max_relative = 1e-15);
    assert_relative_eq!(
        cart.inertial.inertia.moments()[0],
        f(3333.3333) * 1e-7,
        max_relative = 1e-12
    );
    let Geometry::Box { size } = cart.shapes[0].geometry else {
        panic!()
    };
    assert_relative_eq!(size[0], 0.2, max_relative = 1e-15);
    let rail = m.joint("rail").unwrap();
    assert_relative_eq!(
        rail.dofs[0].position_limits.upper.unwrap(),
        0.3,
        max_relative = 1e-15
    );
    // The block: no PhysicsMassAPI, its mass from its scaled collider (20 x 10 x 10 cm of
    // water), its initial velocity in cm/s and degrees/s.
    let block = m.body("block").unwrap();
    assert_relative_eq!(block.inertial.mass, 2.0, max_relative = 1e-12);
    let Geometry::Box { size } = block.shapes[0].geometry else {
        panic!()
    };
    assert_relative_eq!(size[0], 0.2, max_relative = 1e-15);
    assert_relative_eq!(size[1], 0.1, max_relative = 1e-15);
    let v = block.initial_velocity.unwrap();
    assert_relative_eq!(v.linear.x, 0.1, max_relative = 1e-15);
    assert_relative_eq!(v.angular.z, std::f64::consts::FRAC_PI_2, max_relative = 1e-15);
    assert!(
        imported
            .report
            .findings
            .iter()
            .any(|f| f.code == "usd.mass_from_shapes")
    );
    assert!(
        imported
            .report
            .findings
            .iter()
            .any(|f| f.code == "usd.body_scale")
    );
}

#[test]
fn spherical_fixed_generic_and_kinematic() {
    let imported = read("spherical_fixed.usda");
    let m = &imported.model;
    assert!(m.body("base").unwrap().fixed);
    assert_eq!(m.joint("socket").unwrap().kind, JointKind::Spherical);
    assert!(
        imported
            .report
            .findings
            .iter()
            .any(|f| f.code == "usd.cone_limit")
    );
    assert_eq!(m.joint("weld").unwrap().kind, JointKind::Fixed);
    assert_eq!(
        m.joint("axle").unwrap().kind,
        JointKind::Revolute { axis: Vector3::z() }
    );
    let arm = m.body("arm").unwrap();
    assert_eq!(arm.inertial.com, Vector3::new(0.0, 0.0, f(0.05)));
    assert_relative_eq!(arm.inertial.inertia_rotation.w, f(0.9659258), max_relative = 1e-7);
    let link = &arm.shapes[0];
    assert_eq!(link.role, ShapeRole::Collision);
    assert_eq!(
        link.geometry,
        Geometry::Box {
            size: [0.1, 0.1, 0.5]
        }
    );
    let marker = &arm.shapes[1];
    assert_eq!(marker.role, ShapeRole::Visual);
    let Geometry::TriangleMesh { triangles, .. } = &marker.geometry else {
        panic!()
    };
    assert_eq!(triangles, &[[0, 1, 2], [0, 2, 3], [0, 2, 4]]);
    // The stored poses agree with the joints: no pose warning.
    assert!(
        !imported
            .report
            .findings
            .iter()
            .any(|f| f.code == "pose.inconsistent")
    );
}

#[test]
fn physics_in_a_payload_layer_is_composed() {
    let m = read("composed/robot.usda").model;
    assert_eq!(m.bodies.len(), 2);
    assert_eq!(m.body("base").unwrap().inertial.mass, 3.0);
    assert_eq!(m.body("link").unwrap().pose.translation.z, 0.8);
    let hinge = m.joint("hinge").unwrap();
    assert_eq!(hinge.kind, JointKind::Revolute { axis: Vector3::y() });
    assert_eq!(hinge.dofs[0].position_limits.upper, Some(120.0 / DEG));
    assert_eq!(m.body("base").unwrap().shapes[0].role, ShapeRole::Both);
}

#[test]
fn a_binary_layer_is_read_from_its_file() {
    let dir = std::env::temp_dir().join(format!("mbconv-usd-binary-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let usdc = dir.join("pendulum.usdc");
    let stage = openusd::usd::Stage::open(fixture("pendulum.usda").to_str().unwrap()).unwrap();
    stage.root_layer().export(usdc.to_str().unwrap()).unwrap();
    assert!(std::fs::read(&usdc).unwrap().starts_with(b"PXR-USDC"));
    let source = Source::from_string(usdc.display().to_string(), "")
        .with_path(usdc.display().to_string(), Some(usdc.clone()));
    let binary = UsdFormat.read(&source, &Options::default()).unwrap().model;
    assert_eq!(binary, read("pendulum.usda").model);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn every_fixture_round_trips() {
    for name in [
        "pendulum.usda",
        "double_pendulum_limits.usda",
        "slider_units.usda",
        "spherical_fixed.usda",
        "composed/robot.usda",
        "contacts_and_joint_dynamics.usda",
        "joint_targets.usda",
    ] {
        let first = read(name).model;
        let written = UsdFormat.write(&first, &Options::default()).unwrap();
        let again = UsdFormat
            .read(
                &Source::from_string("again.usda", written.text.clone()),
                &Options::default(),
            )
            .unwrap()
            .model;
        let rewritten = UsdFormat.write(&again, &Options::default()).unwrap();
        assert_eq!(written.text, rewritten.text, "{name}: the second write differs");
        assert_eq!(first.bodies.len(), again.bodies.len(), "{name}");
        for (a, b) in first.bodies.iter().zip(&again.bodies) {
            assert_eq!(a.pose, b.pose, "{name}: {}", a.name);
            assert_eq!(a.inertial, b.inertial, "{name}: {}", a.name);
        }
        assert_eq!(first.constraints, again.constraints, "{name}");
        for (a, b) in first.joints.iter().zip(&again.joints) {
            assert_eq!(a.kind, b.kind, "{name}: {}", a.name);
            assert_eq!(a.dofs, b.dofs, "{name}: {}", a.name);
            assert_eq!(
                (a.parent_frame, a.child_frame),
                (b.parent_frame, b.child_frame),
                "{name}: {}",
                a.name
            );
        }
    }
}

#[test]
fn binary_layers_written_by_openusd_read_as_their_text() {
    // Made by `fixtures/usd/binary/make.py` with OpenUSD (usd-core): a crate file, a package
    // holding a crate file, and a package holding a root layer and its payload layer.
    for (binary, text) in [
        ("binary/pendulum.usdc", "pendulum.usda"),
        (
            "binary/double_pendulum_limits.usdz",
            "double_pendulum_limits.usda",
        ),
        ("binary/robot.usdz", "composed/robot.usda"),
    ] {
        let path = fixture(binary);
        let name = path.display().to_string();
        let source = Source::from_string(name.clone(), "").with_path(name, Some(path));
        let model = UsdFormat.read(&source, &Options::default()).unwrap().model;
        assert_eq!(model, read(text).model, "{binary}");
    }
}

#[test]
fn materials_filters_distance_joints_and_joint_dynamics() {
    let imported = read("contacts_and_joint_dynamics.usda");
    let m = &imported.model;
    // The material bound to both colliders (`material:binding:physics` and `material:binding`).
    for (body, shape) in [("base", "block"), ("arm", "ball")] {
        let b = m.body(body).unwrap();
        assert_eq!(b.shapes[0].contact_material.as_deref(), Some("rubber"), "{shape}");
        let material = &b.contact_materials[0];
        assert_eq!(material.friction, Some(f(0.8)));
        assert_eq!(material.restitution, Some(f(0.25)));
    }
    // Joint dynamics in the Newton, MuJoCo and PhysX spellings, SI units.
    let shoulder = &m.joint("shoulder").unwrap().dofs[0];
    assert_eq!(shoulder.rotor_inertia, f(0.02));
    assert_eq!(shoulder.friction, f(0.1));
    assert_eq!(shoulder.damping, f(0.3));
    assert_relative_eq!(
        shoulder.velocity_limits.upper.unwrap(),
        std::f64::consts::PI,
        epsilon = 1e-12
    );
    let slide = &m.joint("slide").unwrap().dofs[0];
    assert_eq!((slide.rotor_inertia, slide.friction), (0.5, 2.0));
    // A fixed-length distance joint is the IR's distance constraint; a range is kept.
    assert_eq!(m.constraints.len(), 1);
    match &m.constraints[0].kind {
        mbconv_ir::ConstraintKind::Distance {
            body1,
            body2,
            distance,
            ..
        } => {
            assert_eq!(*body1, BodyRef::body("bob"));
            assert_eq!(*body2, BodyRef::body("weight"));
            assert_eq!(*distance, Some(f(0.6)));
        }
        other => panic!("{other:?}"),
    }
    let codes: Vec<&str> = imported.report.findings.iter().map(|f| f.code.as_str()).collect();
    for code in [
        "usd.distance_joint",
        "usd.contact_filter",
        "usd.static_friction",
        "usd.joint_friction_coefficient",
    ] {
        assert!(codes.contains(&code), "{code} not in {codes:?}");
    }
    assert!(m.extras.get("usd.filtered_pairs").is_some());
    assert!(m.extras.get("usd.collision_groups").is_some());
    assert!(m.extras.get("usd.distance_joints").is_some());
}

#[test]
fn a_stated_mass_with_no_inertia_and_no_collider_is_a_point_mass() {
    let imported = read("point_mass_sensor.usda");
    let m = &imported.model;
    let frame = m.body("camera_optical_frame").unwrap();
    assert_eq!(frame.inertial.mass, f(0.01));
    // (0, 0, 0) is unstated: the colliders' inertia, and there is none (it was a unit
    // inertia, silently).
    assert_eq!(frame.inertial.inertia, mbconv_ir::Inertia([[0.0; 3]; 3]));
    let said: Vec<_> = imported
        .report
        .findings
        .iter()
        .filter(|f| f.code == "usd.point_mass")
        .collect();
    assert_eq!(said.len(), 1, "{:?}", imported.report.findings);
    assert_eq!(
        said[0].path.as_deref(),
        Some(mbconv_ir::report::path::item("bodies", "camera_optical_frame").as_str())
    );
    // The camera states its inertia, the arm's collider would give one: nothing defaulted.
    assert_eq!(
        m.body("camera").unwrap().inertial.inertia.moments(),
        [f(0.00003), f(0.000002), f(0.00003)]
    );
}

/// Joints naming prims that are not rigid bodies (OpenUSD's parse of the same stage is in
/// tests/golden/joint_targets.json): a prim inside a body is that body at the prim's pose; a
/// prim under a static collider, an Xform outside every body and a prim not on the stage are
/// the world (OpenUSD and Newton read the last as the world too: it was refused).
#[test]
fn joint_targets_that_are_not_rigid_bodies() {
    let imported = read("joint_targets.usda");
    let m = &imported.model;
    let joint = |name: &str| m.joint(name).unwrap();
    let inside = joint("inside_a_body");
    assert_eq!(inside.parent, BodyRef::body("arm"));
    assert_relative_eq!(inside.parent_frame.translation, Vector3::new(0.0, 0.0, -0.5));
    // The collider is turned 90° about Z at (0, 0, 2); its child prim is 1 m along its X.
    let collider = joint("to_collider");
    assert_eq!(collider.parent, BodyRef::World);
    assert_relative_eq!(
        collider.parent_frame.translation,
        Vector3::new(0.0, 1.0, 2.5),
        epsilon = 1e-7
    );
    assert_eq!(joint("to_a_frame").parent, BodyRef::World);
    assert_eq!(
        joint("to_a_frame").parent_frame.translation,
        Vector3::new(0.0, 3.0, 1.0)
    );
    let nothing = joint("to_nothing");
    assert_eq!(
        (nothing.parent.clone(), nothing.child.clone()),
        (BodyRef::World, BodyRef::body("loose"))
    );
    assert_eq!(nothing.parent_frame.translation, Vector3::new(0.0, -2.0, 1.0));
    let said: Vec<_> = imported
        .report
        .findings
        .iter()
        .filter(|f| f.code == "usd.joint_target")
        .collect();
    assert_eq!(said.len(), 1, "{:?}", imported.report.findings);
    assert!(said[0].message.contains("/World/nowhere"), "{}", said[0].message);
    assert_eq!(
        said[0].path.as_deref(),
        Some(mbconv_ir::report::path::item("joints", "to_nothing").as_str())
    );
}

/// A generic joint whose free translations are not the IR kind's axes (Newton's
/// `test_joint_d6_6dof_*.usda`: transY locked, the others free or limited) is a point on a plane
/// whose normal is the frame's Y: both joint frames turn alike so that it is their Z (it was
/// refused as no joint type mbconv knows); a point on a line along Z turns X onto it.
#[test]
fn point_joints_along_any_axis_turn_their_frames() {
    let stage = |locked: &[&str]| {
        let limits: String = locked
            .iter()
            .map(|dof| format!("float limit:{dof}:physics:low = 1\nfloat limit:{dof}:physics:high = -1\n"))
            .collect();
        let apis: Vec<String> = locked
            .iter()
            .map(|d| format!("\"PhysicsLimitAPI:{d}\""))
            .collect();
        format!(
            "#usda 1.0\n(\nmetersPerUnit = 1\nupAxis = \"Z\"\n)\ndef Xform \"a\" (prepend apiSchemas = [\"PhysicsRigidBodyAPI\"])\n{{\n}}\n\
             def PhysicsJoint \"j\" (prepend apiSchemas = [{}])\n{{\nrel physics:body1 = </a>\npoint3f physics:localPos1 = (0.5, 0, 0)\n{limits}}}\n",
            apis.join(", ")
        )
    };
    let read = |text: String| {
        UsdFormat
            .read(&Source::from_string("j.usda", text), &Options::default())
            .unwrap()
            .model
    };
    let plane = read(stage(&["transY"]));
    let joint = &plane.joints[0];
    assert_eq!(joint.kind, JointKind::PointPlane);
    assert_relative_eq!(
        joint.parent_frame.rotation * Vector3::z(),
        Vector3::y(),
        epsilon = 1e-15
    );
    assert_relative_eq!(
        joint.child_frame.rotation * Vector3::z(),
        Vector3::y(),
        epsilon = 1e-15
    );
    assert_eq!(joint.child_frame.translation, Vector3::new(0.5, 0.0, 0.0));
    let line = read(stage(&["transX", "transY"]));
    let joint = &line.joints[0];
    assert_eq!(joint.kind, JointKind::PointLine);
    assert_relative_eq!(
        joint.parent_frame.rotation * Vector3::x(),
        Vector3::z(),
        epsilon = 1e-15
    );
    // The kind's own axes: no turn.
    let canonical = read(stage(&["transZ"]));
    assert_eq!(
        canonical.joints[0].parent_frame.rotation,
        UnitQuaternion::identity()
    );
}
