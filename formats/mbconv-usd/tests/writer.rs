//! The writer: every joint kind the IR has is written as UsdPhysics says it and read back as
//! the same kind with its limits; 32-bit rounding is reported and the doubles come back
//! through the `mbconv:` attributes; names that are not prim names are made valid and kept;
//! what USD cannot say is reported.
#![allow(clippy::unwrap_used)]

use mbconv_ir::format::{Format, Options, Source};
use mbconv_ir::{Body, BodyRef, DofProperties, Inertia, Joint, JointKind, Limits, Model, Pose};
use mbconv_usd::UsdFormat;
use nalgebra::{UnitQuaternion, Vector3};

/// A chain from the world: one body per joint kind, each hanging below the last.
fn every_kind() -> Model {
    let kinds = [
        JointKind::Fixed,
        JointKind::Revolute {
            axis: Vector3::new(0.0, 0.6, 0.8),
        },
        JointKind::Prismatic { axis: Vector3::z() },
        JointKind::Spherical,
        JointKind::Cylindrical { axis: Vector3::y() },
        JointKind::Universal {
            axis1: Vector3::x(),
            axis2: Vector3::y(),
        },
        JointKind::Planar {
            axis1: Vector3::x(),
            axis2: Vector3::y(),
        },
        JointKind::Translational,
        JointKind::PointLine,
        JointKind::PointPlane,
    ];
    let mut m = Model::new("every kind");
    m.simulation.gravity = Some(Vector3::new(0.0, 0.0, -9.81));
    let mut parent = BodyRef::World;
    for (i, kind) in kinds.into_iter().enumerate() {
        let name = format!("link {i}");
        let mut body = Body::new(name.clone());
        body.pose = Pose::from_translation(Vector3::new(0.0, 0.0, -0.3 * i as f64));
        body.inertial.mass = 0.1 + 0.1 * i as f64;
        body.inertial.inertia = Inertia::from_moments_products([0.01, 0.02, 0.03], [0.001, 0.0, 0.0]);
        m.bodies.push(body);
        let mut joint = Joint::new(
            format!("joint.{i}"),
            kind,
            parent.clone(),
            BodyRef::body(name.clone()),
        );
        joint.parent_frame = Pose::from_translation(Vector3::new(
            0.0,
            0.0,
            -0.3 * i as f64 + if i == 0 { 0.0 } else { 0.3 },
        ));
        if matches!(
            joint.kind,
            JointKind::Revolute { .. } | JointKind::Cylindrical { .. } | JointKind::Planar { .. }
        ) {
            joint.dofs = (0..joint.kind.nv())
                .map(|k| DofProperties {
                    position_limits: Limits::new(-0.5 - k as f64, 0.25 + k as f64),
                    ..DofProperties::default()
                })
                .collect();
        }
        if let JointKind::Revolute { .. } = joint.kind {
            joint.dofs[0].spring_stiffness = 3.0;
            joint.dofs[0].spring_rest_position = 0.1;
            joint.dofs[0].damping = 0.2;
        }
        m.joints.push(joint);
        parent = BodyRef::body(name);
    }
    m
}

fn round_trip(m: &Model) -> (String, Model) {
    let written = UsdFormat.write(m, &Options::default()).unwrap();
    let back = UsdFormat
        .read(
            &Source::from_string("w.usda", written.text.clone()),
            &Options::default(),
        )
        .unwrap();
    (written.text, back.model)
}

#[test]
fn every_joint_kind_comes_back() {
    let m = every_kind();
    let (text, back) = round_trip(&m);
    assert!(text.contains("def PhysicsJoint \"joint_4\""), "{text}");
    assert!(text.contains("string mbconv:name = \"joint.4\""));
    assert_eq!(back.name, "every kind");
    for (a, b) in m.joints.iter().zip(&back.joints) {
        assert_eq!(a.name, b.name);
        match (&a.kind, &b.kind) {
            // The skewed revolute axis goes into the joint frames: X.
            (JointKind::Revolute { .. }, JointKind::Revolute { axis }) => assert_eq!(*axis, Vector3::x()),
            (JointKind::Cylindrical { .. }, JointKind::Cylindrical { axis }) => {
                assert_eq!(*axis, Vector3::x())
            }
            _ => assert_eq!(a.kind, b.kind, "{}", a.name),
        }
        assert_eq!(a.dofs, b.dofs, "{}", a.name);
    }
    for (a, b) in m.bodies.iter().zip(&back.bodies) {
        assert_eq!(a.name, b.name);
        assert_eq!(a.inertial.mass, b.inertial.mass, "{}", a.name);
        assert_eq!(a.inertial.inertia, b.inertial.inertia, "{}", a.name);
        assert_eq!(a.pose, b.pose, "{}", a.name);
    }
    // The revolute joint's frames are turned, not its motion: the axis in world is the same.
    let (a, b) = (&m.joints[1], &back.joints[1]);
    let JointKind::Revolute { axis } = a.kind else {
        panic!()
    };
    let world_axis = a.parent_frame.rotation * axis.normalize();
    assert!((b.parent_frame.rotation * Vector3::x() - world_axis).norm() < 1e-15);
}

/// Newton 1.8 frees an axis of a generic `PhysicsJoint` only where a `PhysicsLimitAPI` instance
/// gives it a range (`lower < upper`) and locks the others: every axis gets an instance, a free
/// unlimited one `-inf`..`inf` (UsdPhysics' "not limited", as an axis with no instance), and the
/// reader still takes those axes as free and unlimited (`every_joint_kind_comes_back`).
#[test]
fn every_axis_of_a_generic_joint_has_a_limit_instance() {
    let (text, back) = round_trip(&every_kind());
    let start = text.find("def PhysicsJoint \"joint_5\"").unwrap();
    let end = start + text[start..].find("\n    }").unwrap();
    let universal = &text[start..end];
    for dof in ["transX", "transY", "transZ", "rotX", "rotY", "rotZ"] {
        assert!(
            universal.contains(&format!("\"PhysicsLimitAPI:{dof}\"")),
            "{dof}: {universal}"
        );
    }
    for (dof, low, high) in [
        ("transX", "1", "-1"),
        ("rotX", "-inf", "inf"),
        ("rotY", "-inf", "inf"),
        ("rotZ", "1", "-1"),
    ] {
        for (side, value) in [("low", low), ("high", high)] {
            let line = format!("float limit:{dof}:physics:{side} = {value}\n");
            assert!(universal.contains(&line), "{line}: {universal}");
        }
    }
    assert!(
        matches!(back.joints[5].kind, JointKind::Universal { .. }),
        "{:?}",
        back.joints[5].kind
    );
    assert!(
        back.joints[5]
            .dofs
            .iter()
            .all(|d| d.position_limits.is_unlimited())
    );
}

#[test]
fn float_rounding_is_reported_and_the_doubles_come_back() {
    let m = every_kind();
    let written = UsdFormat.write(&m, &Options::default()).unwrap();
    let note = written
        .report
        .findings
        .iter()
        .find(|f| f.code == "usd.float_rounding")
        .unwrap();
    assert!(note.message.contains("32-bit"), "{}", note.message);
    assert!(
        written
            .text
            .contains("double mbconv:physics:mass = 0.30000000000000004"),
        "{}",
        written.text
    );
    assert!(written.text.contains("float physics:mass = 0.3\n"));
}

#[test]
fn a_hand_written_double_is_preferred_to_the_float() {
    let text = r#"#usda 1.0
(
    metersPerUnit = 1
)
def Xform "W"
{
    def Xform "b" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
    {
        float physics:mass = 0.1
        double mbconv:physics:mass = 0.1
    }
}
"#;
    let m = UsdFormat
        .read(&Source::from_string("d.usda", text), &Options::default())
        .unwrap()
        .model;
    assert_eq!(m.bodies[0].inertial.mass, 0.1);
}

#[test]
fn what_usd_cannot_say_is_reported() {
    let mut m = every_kind();
    m.simulation.time_step = Some(0.001);
    // Friction and armature: Newton's attributes on a single-axis joint (the prismatic one),
    // lost on a universal joint.
    let rough = DofProperties {
        friction: 0.5,
        rotor_inertia: 0.25,
        ..DofProperties::default()
    };
    m.joints[2].dofs = vec![rough.clone()];
    m.joints[5].dofs = vec![rough.clone(), DofProperties::default()];
    m.joints[3].q0 = vec![0.1, 0.0, 0.0];
    m.bodies[4].inertial.inertia_rotation = UnitQuaternion::from_euler_angles(0.1, 0.2, 0.3);
    let lowered = UsdFormat.lower(&m, &Options::default()).unwrap();
    let codes: Vec<&str> = lowered.report.findings.iter().map(|f| f.code.as_str()).collect();
    for code in ["usd.time_step_lost", "usd.joint_friction_lost", "usd.prim_name"] {
        assert!(codes.contains(&code), "{code} not in {codes:?}");
    }
    // The initial position is in the body poses now; it comes back as the lowered model.
    let (_, back) = round_trip(&lowered.model);
    for (a, b) in lowered.model.bodies.iter().zip(&back.bodies) {
        assert_eq!(a.pose, b.pose);
        assert_eq!(a.inertial, b.inertial);
    }
    assert_eq!(back.joints[2].dofs, [rough]);
}

/// A free joint is not written (the body floats), so what it carries must be reported lost, or
/// the check cannot tell the changed motion from a writer bug: a prescribed motion (DART's
/// `acceleration` actuator holds its body; collision_of_prescribed_joints_test.skel fell 4.9 m
/// `unexplained`) and an armature (MuJoCo's default class gives one to a free joint too;
/// auto_limits.xml moved 1.2e-4 m `unexplained`).
#[test]
fn what_a_free_joint_carries_is_reported_lost() {
    let lost = |actuator: Option<mbconv_ir::ActuatorKind>, armature: f64| {
        let mut m = Model::new("held");
        let mut block = Body::new("block");
        block.inertial.mass = 1.0;
        block.inertial.inertia = Inertia::from_moments_products([0.1; 3], [0.0; 3]);
        m.bodies.push(block);
        let mut free = Joint::new("hold", JointKind::Free, BodyRef::World, BodyRef::body("block"));
        free.actuator = actuator;
        let dof = DofProperties {
            rotor_inertia: armature,
            ..DofProperties::default()
        };
        free.dofs = vec![dof; 6];
        m.joints.push(free);
        let lowered = UsdFormat.lower(&m, &Options::default()).unwrap();
        assert!(lowered.model.joints.is_empty());
        lowered
            .report
            .findings
            .iter()
            .filter(|f| f.category.is_loss())
            .map(|f| f.code.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(lost(None, 0.0), Vec::<String>::new());
    assert_eq!(
        lost(Some(mbconv_ir::ActuatorKind::Acceleration), 0.0),
        ["usd.joint_actuator_lost"]
    );
    assert_eq!(lost(None, 0.1), ["usd.free_joint_data"]);
}

#[test]
fn mesh_files_are_embedded_and_distances_written_as_distance_joints() {
    let mut m = every_kind();
    let stl = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/urdf/mesh_assets/mesh_assets_demo/meshes/base.stl");
    let mut mesh = mbconv_ir::MeshRef::new("meshes/base.stl");
    mesh.resolved_path = Some(stl.display().to_string());
    mesh.scale = [2.0, 2.0, 2.0];
    let file = mbconv_mesh::read(&stl).unwrap();
    m.bodies[1].shapes.push(mbconv_ir::Shape::new(
        mbconv_ir::ShapeRole::Both,
        mbconv_ir::Geometry::Mesh(mesh),
    ));
    let (a, b) = (m.bodies[1].name.clone(), m.bodies[2].name.clone());
    m.constraints.push(mbconv_ir::Constraint {
        name: "rod".into(),
        kind: mbconv_ir::ConstraintKind::Distance {
            body1: BodyRef::body(a),
            point1: Vector3::new(0.1, 0.0, 0.0),
            body2: BodyRef::body(b),
            point2: Vector3::zeros(),
            distance: None,
        },
        enabled: true,
        extras: Default::default(),
    });
    let (text, back) = round_trip(&m);
    assert!(text.contains("def Mesh"), "{text}");
    assert!(text.contains("def PhysicsDistanceJoint \"rod\""), "{text}");
    let Some(mbconv_ir::Geometry::TriangleMesh { vertices, triangles }) =
        back.bodies[1].shapes.last().map(|s| s.geometry.clone())
    else {
        panic!("no mesh came back: {:?}", back.bodies[1].shapes);
    };
    assert_eq!(triangles.len(), file.faces.len());
    assert_eq!(vertices[0], file.vertices[0].map(|x| 2.0 * x));
    assert_eq!(back.constraints.len(), 1);
    // A binary output is refused, saying how to get one.
    let mut options = Options::default();
    options.output_path = Some("robot.usdc".into());
    let refused = UsdFormat.write(&m, &options).err().unwrap().to_string();
    assert!(refused.contains("usdcat"), "{refused}");
}

/// A point mass (a mass and a zero inertia, as ROS descriptions give their optical frames)
/// comes back a point mass: UsdPhysics reads `diagonalInertia = (0, 0, 0)` as unstated, and
/// with no collider to compute one from the reader keeps the zero (it read a unit inertia,
/// and the camera chain moved otherwise: PAL's talos through USD).
/// A body held only by a distance constraint (chrono's `DISTANCE`) hangs from the other body's
/// articulation by a distance joint that is not excluded, so that Newton builds it (it builds
/// no body for one listed only across an excluded joint); a distance constraint inside a tree
/// (a loop) stays excluded. The reader reads both back as the constraints they were.
#[test]
fn a_body_held_only_by_a_distance_joint_hangs_from_the_articulation() {
    let mut m = every_kind();
    let mut bob = Body::new("bob");
    bob.pose = Pose::from_translation(Vector3::new(1.0, 0.0, -1.0));
    bob.inertial.mass = 0.5;
    bob.inertial.inertia = Inertia::from_moments_products([0.01, 0.01, 0.01], [0.0, 0.0, 0.0]);
    m.bodies.push(bob);
    let distance = |name: &str, body1: &str, body2: &str| mbconv_ir::Constraint {
        name: name.into(),
        kind: mbconv_ir::ConstraintKind::Distance {
            body1: BodyRef::body(body1),
            point1: Vector3::zeros(),
            body2: BodyRef::body(body2),
            point2: Vector3::zeros(),
            distance: None,
        },
        enabled: true,
        extras: Default::default(),
    };
    m.constraints.push(distance("rope", "link 0", "bob"));
    m.constraints.push(distance("rod", "link 1", "link 3"));
    let (text, back) = round_trip(&m);
    let prim = |name: &str| {
        let start = text
            .find(&format!("def PhysicsDistanceJoint \"{name}\""))
            .unwrap();
        let end = start + text[start..].find("\n        }").unwrap();
        text[start..end].to_owned()
    };
    let (rope, rod) = (prim("rope"), prim("rod"));
    assert!(!rope.contains("excludeFromArticulation"), "{rope}");
    assert!(
        rope.contains("physics:body1 = </every_kind/bodies/bob>"),
        "{rope}"
    );
    assert!(rod.contains("bool physics:excludeFromArticulation = 1"), "{rod}");
    let start = text.find("def Xform \"bob\"").unwrap();
    let bob = &text[start..start + text[start..].find("\n        }").unwrap()];
    assert!(!bob.contains("ArticulationRootAPI"), "{bob}");
    assert_eq!(back.constraints.len(), 2);
    let mbconv_ir::ConstraintKind::Distance { body1, body2, .. } = &back.constraints[0].kind else {
        panic!("{:?}", back.constraints[0]);
    };
    assert_eq!((body1, body2), (&BodyRef::body("link 0"), &BodyRef::body("bob")));
}

#[test]
fn a_point_mass_comes_back_a_point_mass_and_moves_alike() {
    let fixture =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/usd/point_mass_sensor.usda");
    let source = Source::from_path(&fixture).unwrap();
    let m = UsdFormat.read(&source, &Options::default()).unwrap().model;
    let frame = m.body("camera_optical_frame").unwrap();
    assert_eq!(frame.inertial.inertia, Inertia([[0.0; 3]; 3]));
    let lowered = UsdFormat.lower(&m, &Options::default()).unwrap();
    let codes: Vec<&str> = lowered.report.findings.iter().map(|f| f.code.as_str()).collect();
    assert!(codes.contains(&"usd.zero_inertia"), "{codes:?}");
    let (_, back) = round_trip(&lowered.model);
    for (a, b) in lowered.model.bodies.iter().zip(&back.bodies) {
        assert_eq!(a.inertial, b.inertial, "{}", a.name);
    }
    // And it moves as the lowered model moves.
    let options = mbconv_solver::SimulateOptions {
        duration: 0.5,
        dt: 1e-3,
        every: 50,
        ..mbconv_solver::SimulateOptions::default()
    };
    let poses = |model: &Model| {
        let mut out: Vec<Vec<[f64; 7]>> = Vec::new();
        mbconv_solver::simulate(model, &options, &mut |s| out.push(s.poses.to_vec())).unwrap();
        out
    };
    let (a, b) = (poses(&lowered.model), poses(&back));
    assert_ne!(a[0], a[a.len() - 1], "the arm swings");
    assert_eq!(a, b);
}

/// A point mass with colliders comes back a point mass too: the reader would compute the
/// colliders' inertia from `(0, 0, 0)`, so the writer keeps the zero in `mbconv:inertia` (PAL's
/// talos_arm_right: `wrist_right_ft_tool_link`, 1 g, a cylinder collider).
#[test]
fn a_point_mass_with_colliders_keeps_its_zero_inertia() {
    let fixture =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/usd/point_mass_sensor.usda");
    let source = Source::from_path(&fixture).unwrap();
    let mut m = UsdFormat.read(&source, &Options::default()).unwrap().model;
    let frame = m
        .bodies
        .iter_mut()
        .find(|b| b.name == "camera_optical_frame")
        .unwrap();
    frame.shapes.push(mbconv_ir::Shape::new(
        mbconv_ir::ShapeRole::Collision,
        mbconv_ir::Geometry::Cylinder {
            radius: 0.01,
            length: 0.02,
        },
    ));
    let lowered = UsdFormat.lower(&m, &Options::default()).unwrap();
    let (text, back) = round_trip(&lowered.model);
    assert!(
        text.contains("double[] mbconv:inertia = [0, 0, 0, 0, 0, 0, 0, 0, 0]"),
        "{text}"
    );
    for (a, b) in lowered.model.bodies.iter().zip(&back.bodies) {
        assert_eq!(a.inertial, b.inertial, "{}", a.name);
    }
}

/// A massless fixed body (MJCF's `worldbody` with its floor) is written with a stand-in of
/// 1 kg and unit inertia for other readers (Newton integrates a massless kinematic body to
/// NaN), and comes back massless: the zeros are kept in the `mbconv:` doubles.
#[test]
fn a_massless_fixed_body_gets_a_stand_in_mass_and_comes_back_massless() {
    let mut m = Model::new("grounded");
    let mut world = Body::new("worldbody");
    world.fixed = true;
    world.inertial.mass = 0.0;
    world.inertial.inertia = Inertia([[0.0; 3]; 3]);
    world.shapes.push(mbconv_ir::Shape::new(
        mbconv_ir::ShapeRole::Both,
        mbconv_ir::Geometry::Box {
            size: [1.0, 1.0, 0.1],
        },
    ));
    m.bodies.push(world);
    let mut bob = Body::new("bob");
    bob.pose = Pose::from_translation(Vector3::new(0.0, 0.0, -1.0));
    m.bodies.push(bob);
    m.joints.push(Joint::new(
        "hinge",
        JointKind::Revolute { axis: Vector3::y() },
        BodyRef::Body("worldbody".into()),
        BodyRef::Body("bob".into()),
    ));
    let lowered = UsdFormat.lower(&m, &Options::default()).unwrap();
    let (text, back) = round_trip(&lowered.model);
    for line in [
        "float physics:mass = 1\n",
        "double mbconv:physics:mass = 0\n",
        "float3 physics:diagonalInertia = (1, 1, 1)\n",
        "double[] mbconv:inertia = [0, 0, 0, 0, 0, 0, 0, 0, 0]\n",
    ] {
        assert!(text.contains(line), "{line} in {text}");
    }
    let (a, b) = (
        lowered.model.body("worldbody").unwrap(),
        back.body("worldbody").unwrap(),
    );
    assert!(b.fixed);
    assert_eq!(a.inertial, b.inertial);
}

/// Articulations as OpenUSD's parse and Newton build them: a tree held to the world hangs from
/// an anchor of its own (a rigid body marked `mbconv:world`, welded to the world by a fixed
/// joint with `PhysicsArticulationRootAPI`) that its joints to the world name and its fixed
/// bodies are welded to; a floating tree carries the API on its root body; the joint closing a
/// loop is excluded; a joint met from its child side is turned. The reader takes the anchors
/// back as the world: the same bodies, the same joints, the fixed body fixed.
#[test]
fn trees_are_declared_articulations_and_the_anchors_come_back_as_the_world() {
    let mut m = Model::new("articulated");
    m.simulation.gravity = Some(Vector3::new(0.0, 0.0, -9.81));
    for (name, x, fixed) in [
        ("post", 0.0, true),
        ("arm", 0.5, false),
        ("bob", 2.0, false),
        ("crank", 3.0, false),
        ("rocker", 4.0, false),
        ("torso", 6.0, false),
        ("leg", 6.5, false),
    ] {
        let mut body = Body::new(name);
        body.fixed = fixed;
        body.pose = Pose::from_translation(Vector3::new(x, 0.0, 1.0));
        m.bodies.push(body);
    }
    let hinge = |name: &str, parent: BodyRef, child: &str, at: [f64; 3]| {
        let mut j = Joint::new(
            name,
            JointKind::Revolute { axis: Vector3::y() },
            parent,
            BodyRef::body(child),
        );
        j.parent_frame = Pose::from_translation(Vector3::from(at));
        j
    };
    let body = |n: &str| BodyRef::body(n);
    m.joints = vec![
        // hangs from the fixed post
        hinge("shoulder", body("post"), "arm", [0.5, 0.0, 0.0]),
        // a pendulum: its only joint goes to the world
        hinge("pivot", BodyRef::World, "bob", [2.0, 0.0, 1.0]),
        // a loop through the world: crank and rocker joined
        hinge("ground_crank", BodyRef::World, "crank", [3.0, 0.0, 1.0]),
        hinge("ground_rocker", BodyRef::World, "rocker", [4.0, 0.0, 1.0]),
        hinge("close", body("crank"), "rocker", [1.0, 0.0, 0.0]),
        // a floating tree, its joint written from the leg's side
        hinge("hip", body("leg"), "torso", [-0.5, 0.0, 0.0]),
    ];
    let lowered = UsdFormat.lower(&m, &Options::default()).unwrap();
    let (text, back) = round_trip(&lowered.model);
    // Three trees held to the world (post and arm; bob; crank and rocker), three anchors.
    assert_eq!(
        text.matches("bool mbconv:world = 1\n").count(),
        3 + 3 + 1,
        "{text}"
    );
    assert_eq!(
        text.matches("prepend apiSchemas = [\"PhysicsArticulationRootAPI\"]")
            .count(),
        3,
        "{text}"
    );
    for wanted in [
        "rel physics:body0 = </articulated/bodies/world_anchor_2>\n            rel physics:body1 = </articulated/bodies/bob>",
        "bool mbconv:fixed = 1\n",
    ] {
        assert!(text.contains(wanted), "{wanted} in {text}");
    }
    let torso = &text[text.find("def Xform \"torso\"").unwrap()..];
    assert!(torso[..torso.find('{').unwrap()].contains("PhysicsArticulationRootAPI"));
    assert!(!text.contains("physics:kinematicEnabled"), "{text}");
    let close = &text[text.find("\"close\"").unwrap()..];
    assert!(close[..close.find('}').unwrap()].contains("bool physics:excludeFromArticulation = 1"));
    let hip = lowered.model.joints.iter().find(|j| j.name == "hip").unwrap();
    assert_eq!(
        (hip.parent.clone(), hip.child.clone()),
        (body("torso"), body("leg"))
    );
    // Read back: the anchors are the world.
    let names = |m: &Model| m.bodies.iter().map(|b| b.name.clone()).collect::<Vec<_>>();
    assert_eq!(names(&back), names(&lowered.model));
    assert_eq!(back.joints.len(), lowered.model.joints.len());
    for (a, b) in lowered.model.joints.iter().zip(&back.joints) {
        assert_eq!((&a.name, &a.parent, &a.child), (&b.name, &b.parent, &b.child));
        assert_eq!(
            a.parent_frame.translation, b.parent_frame.translation,
            "{}",
            a.name
        );
    }
    assert!(back.body("post").unwrap().fixed);
}

/// The attributes `newton:*:velocity` the prim `def <...> "prim"` of `text` holds, with their
/// values.
fn newton_rates(text: &str, prim: &str) -> Vec<(String, f64)> {
    let start = text.find(&format!("\"{prim}\"")).unwrap();
    let block = &text[start..];
    let block = &block[..block[1..].find("def ").map_or(block.len(), |e| e + 1)];
    block
        .lines()
        .filter_map(|l| l.trim().strip_prefix("double newton:"))
        .map(|l| {
            let (name, value) = l.split_once(" = ").unwrap();
            (name.to_owned(), value.parse().unwrap())
        })
        .collect()
}

/// Newton 1.8 starts an articulated body from its joint's rate, not from the body velocity
/// UsdPhysics states: the writer writes the rates Newton reads beside the body velocities (a
/// revolute joint's in degrees per second, a prismatic joint's, a generic joint's rotations'),
/// none where Newton has no attribute (a spherical joint, a generic joint's translations), and
/// the reader still takes the body velocities.
#[test]
fn joint_rates_are_written_as_newton_reads_them() {
    let mut m = every_kind();
    let rates: [(usize, &[f64]); 5] = [
        (1, &[1.5]),
        (2, &[0.25]),
        (3, &[0.0, 0.5, 0.0]),
        (4, &[0.1, 0.7]),
        (5, &[0.3, -0.4]),
    ];
    for (j, v0) in rates {
        m.joints[j].v0 = v0.to_vec();
    }
    let (text, back) = round_trip(&m);
    let degrees = 180.0 / std::f64::consts::PI;
    let expected: [(&str, &[(&str, f64)]); 7] = [
        ("joint_0", &[]),
        ("joint_1", &[("angular:velocity", 1.5 * degrees)]),
        ("joint_2", &[("linear:velocity", 0.25)]),
        ("joint_3", &[]),
        ("joint_4", &[("rotX:velocity", 0.7 * degrees)]),
        (
            "joint_5",
            &[
                ("rotX:velocity", 0.3 * degrees),
                ("rotY:velocity", -0.4 * degrees),
            ],
        ),
        ("joint_6", &[]),
    ];
    for (prim, said) in expected {
        let written = newton_rates(&text, prim);
        assert_eq!(written.len(), said.len(), "{prim}: {written:?}");
        for ((name, value), (want, rate)) in written.iter().zip(said) {
            assert_eq!(name, want, "{prim}");
            assert!(
                (value - rate).abs() < 1e-9 * rate.abs().max(1.0),
                "{prim}: {value} for {rate}"
            );
        }
    }
    // The body velocities are there as before: the spherical joint's body spins about Y on
    // top of the revolute joint's 1.5 rad/s about (0, 0.6, 0.8).
    let spinning = back.body("link 3").unwrap().initial_velocity.unwrap();
    let expected = Vector3::new(0.0, 0.6 * 1.5 + 0.5, 0.8 * 1.5);
    assert!((spinning.angular - expected).norm() < 1e-6, "{spinning:?}");
}

#[test]
fn a_universal_joint_turned_towards_its_root_keeps_the_order_of_its_axes() {
    // Held-out round (docs/held-out.md): gazebo_models' fire_hose_long_curled, a chain of
    // universal joints hung from its far end. Turned towards the root, a universal joint's axes
    // swap (Y first, then X); written as a generic joint's rotX and rotY they came back in the
    // other order, and the read-back moved unlike the lowered model.
    let mut m = Model::new("turned hose");
    m.simulation.gravity = Some(Vector3::new(0.0, 0.0, -9.81));
    for (name, z) in [("hose", -0.3), ("nozzle", 0.0)] {
        let mut body = Body::new(name);
        body.pose = Pose::from_translation(Vector3::new(0.0, 0.0, z));
        body.inertial.mass = 0.5;
        body.inertial.com = Vector3::new(0.1, 0.05, 0.0);
        body.inertial.inertia = Inertia::from_moments_products([0.01, 0.02, 0.03], [0.0; 3]);
        m.bodies.push(body);
    }
    let mut universal = Joint::new(
        "link",
        JointKind::Universal {
            axis1: Vector3::y(),
            axis2: Vector3::z(),
        },
        BodyRef::body("hose"),
        BodyRef::body("nozzle"),
    );
    universal.parent_frame = Pose::from_translation(Vector3::new(0.0, 0.0, 0.3));
    m.joints.push(universal);
    let mut hinge = Joint::new(
        "mount",
        JointKind::Revolute { axis: Vector3::x() },
        BodyRef::World,
        BodyRef::body("nozzle"),
    );
    hinge.q0 = vec![0.4];
    m.joints.push(hinge);
    let settings = mbconv::CheckSettings {
        duration: 0.5,
        ..Default::default()
    };
    let report = mbconv::check(&m, &["usd"], &settings).unwrap();
    let target = &report.targets[0];
    assert_eq!(target.verdict, mbconv::Verdict::Exact, "{}", target.message);
    let (text, _) = round_trip(&m);
    let turned = text.find("body0 = </turned_hose/bodies/nozzle>");
    assert!(turned.is_some(), "the joint is written from the nozzle: {text}");
}
