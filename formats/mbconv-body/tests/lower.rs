//! Writing models the body format cannot say as they are: multi-dof joints as chains of
//! massless links, joints reversed towards the root, several roots under one root link, body
//! frames moved onto joint frames, loops as extra joints. What is read back must put every body
//! where the original put it at the initial state.

#![allow(clippy::unwrap_used)]

use mbconv_body::BodyFormat;
use mbconv_ir::format::{Format, Options, Source};
use mbconv_ir::kinematics::{Configuration, SpanningTree, world_poses};
use mbconv_ir::{
    Body, BodyRef, ConstraintKind, DofProperties, EulerOrder, Joint, JointKind, Limits, Model, Pose,
};
use nalgebra::{UnitQuaternion, Vector3};

/// Initial world COM of every named body.
fn coms(model: &Model) -> Vec<(String, Vector3<f64>)> {
    let poses = world_poses(model, &SpanningTree::new(model), Configuration::Initial);
    model
        .bodies
        .iter()
        .zip(poses)
        .map(|(b, p)| (b.name.clone(), p.transform_point(&b.inertial.com)))
        .collect()
}

/// Writes, reads back, and checks every original body's initial COM (1e-9).
fn round_trip(model: &Model) -> (Model, mbconv_ir::Report) {
    let written = BodyFormat.write(model, &Options::default()).unwrap();
    let back = BodyFormat
        .read(
            &Source::from_string("w.body", written.text.clone()),
            &Options::default(),
        )
        .unwrap()
        .model;
    let after: std::collections::BTreeMap<String, Vector3<f64>> = coms(&back).into_iter().collect();
    for (name, com) in coms(model) {
        let other = after
            .get(&name)
            .unwrap_or_else(|| panic!("{name} is missing:\n{}", written.text));
        assert!(
            (com - other).norm() < 1e-9,
            "{name}: {com:?} became {other:?}\n{}",
            written.text
        );
    }
    (back, written.report)
}

fn body(name: &str, com: [f64; 3]) -> Body {
    let mut b = Body::new(name);
    b.inertial.com = Vector3::from(com);
    b
}

#[test]
fn multi_dof_joints_become_chains_of_massless_links() {
    let mut m = Model::new("chains");
    m.bodies = vec![
        body("a", [0.1, 0.0, 0.0]),
        body("b", [0.0, 0.2, 0.0]),
        body("c", [0.0, 0.0, 0.3]),
    ];
    let mut j1 = Joint::new(
        "u",
        JointKind::Universal {
            axis1: Vector3::x(),
            axis2: Vector3::y(),
        },
        BodyRef::World,
        BodyRef::body("a"),
    );
    j1.q0 = vec![0.3, -0.4];
    j1.dofs = vec![
        DofProperties {
            position_limits: Limits::new(-1.0, 1.0),
            ..Default::default()
        },
        DofProperties::default(),
    ];
    let mut j2 = Joint::new(
        "e",
        JointKind::Euler {
            order: EulerOrder::Zyx,
        },
        BodyRef::body("a"),
        BodyRef::body("b"),
    );
    j2.parent_frame = Pose::from_translation(Vector3::new(0.0, 0.0, 0.5));
    j2.q0 = vec![0.1, 0.2, 0.3];
    let mut j3 = Joint::new("s", JointKind::Spherical, BodyRef::body("b"), BodyRef::body("c"));
    j3.parent_frame = Pose::from_translation(Vector3::new(0.5, 0.0, 0.0));
    j3.q0 = vec![0.2, -0.1, 0.4];
    m.joints = vec![j1, j2, j3];
    let (back, report) = round_trip(&m);
    // 2 + 3 + 3 single-dof joints, 1 + 2 + 2 massless links, and a fixed massless root link
    // for the first revolute joint to hang from (a Choreonoid root is fixed or free).
    assert_eq!(back.joints.len(), 9);
    assert_eq!(back.bodies.len(), 9);
    assert_eq!(back.joint("root").unwrap().kind, JointKind::Fixed);
    assert_eq!(back.body("u_link1").unwrap().inertial.mass, 0.0);
    assert_eq!(
        back.joint("u").unwrap().dofs[0].position_limits,
        Limits::new(-1.0, 1.0)
    );
    assert!(
        report
            .findings
            .iter()
            .any(|f| f.code == "body.joint_as_gimbal_chain" && f.message.contains("singular"))
    );
}

#[test]
fn joints_met_from_the_child_side_are_reversed_with_mirrored_limits() {
    let mut m = Model::new("reversed");
    m.bodies = vec![body("base", [0.0; 3]), body("arm", [0.0, 0.0, -0.5])];
    m.joints.push(Joint::new(
        "weld",
        JointKind::Fixed,
        BodyRef::World,
        BodyRef::body("base"),
    ));
    // The joint names the arm as its parent: the tree meets it from the base.
    let mut j = Joint::new(
        "hinge",
        JointKind::Revolute { axis: Vector3::y() },
        BodyRef::body("arm"),
        BodyRef::body("base"),
    );
    j.child_frame = Pose::from_translation(Vector3::new(0.0, 0.0, 1.0));
    j.q0 = vec![0.25];
    j.dofs = vec![DofProperties {
        position_limits: Limits::new(-0.5, 1.0),
        ..Default::default()
    }];
    m.joints.push(j);
    m.bodies[1].pose = Pose::from_translation(Vector3::new(0.0, 0.0, 1.0));
    let (back, _) = round_trip(&m);
    let hinge = back.joint("hinge").unwrap();
    assert_eq!(hinge.parent, BodyRef::body("base"));
    assert!((hinge.q0[0] + 0.25).abs() < 1e-15);
    assert_eq!(hinge.dofs[0].position_limits, Limits::new(-1.0, 0.5));
}

#[test]
fn several_bodies_on_the_world_hang_from_one_fixed_root_link() {
    let mut m = Model::new("two_floating");
    let mut a = body("a", [0.0; 3]);
    a.pose = Pose::from_translation(Vector3::new(1.0, 0.0, 0.0));
    let mut b = body("b", [0.0; 3]);
    b.pose = Pose::new(
        Vector3::new(0.0, 2.0, 0.0),
        UnitQuaternion::from_euler_angles(0.1, 0.2, 0.3),
    );
    b.fixed = true;
    m.bodies = vec![a, b];
    let (back, report) = round_trip(&m);
    assert_eq!(back.joint("root").unwrap().kind, JointKind::Fixed);
    assert_eq!(back.joint("a_free_joint").unwrap().kind, JointKind::Free);
    assert_eq!(back.joint("b_fixed").unwrap().parent, BodyRef::body("root"));
    assert!(report.findings.iter().any(|f| f.code == "body.root_link_added"));
}

#[test]
fn body_frames_move_onto_joint_frames() {
    let mut m = Model::new("moved");
    m.bodies = vec![body("link", [0.3, 0.0, 0.0])];
    let mut j = Joint::new(
        "slide",
        JointKind::Prismatic { axis: Vector3::x() },
        BodyRef::World,
        BodyRef::body("link"),
    );
    j.child_frame = Pose::new(
        Vector3::new(-0.2, 0.1, 0.0),
        UnitQuaternion::from_euler_angles(0.0, 0.0, 0.5),
    );
    j.q0 = vec![0.4];
    m.joints.push(j);
    m.bodies[0].pose = Pose::identity() * m.joints[0].child_frame.inverse();
    let (back, report) = round_trip(&m);
    assert_eq!(back.joint("slide").unwrap().child_frame, Pose::identity());
    assert!(report.findings.iter().any(|f| f.code == "body.body_frame_moved"));
}

#[test]
fn loop_closing_joints_become_extra_joints() {
    // A parallelogram four-bar written as four revolute joints: one closes the loop.
    let mut m = Model::new("four_bar");
    m.bodies = vec![
        body("crank", [0.0, 0.0, 0.25]),
        body("coupler", [0.5, 0.0, 0.0]),
        body("rocker", [0.0, 0.0, 0.25]),
    ];
    let y = JointKind::Revolute { axis: Vector3::y() };
    let mut j1 = Joint::new("j1", y.clone(), BodyRef::World, BodyRef::body("crank"));
    j1.q0 = vec![0.5];
    let mut j2 = Joint::new("j2", y.clone(), BodyRef::body("crank"), BodyRef::body("coupler"));
    j2.parent_frame = Pose::from_translation(Vector3::new(0.0, 0.0, 0.5));
    j2.q0 = vec![-0.5];
    let mut j3 = Joint::new("j3", y.clone(), BodyRef::World, BodyRef::body("rocker"));
    j3.parent_frame = Pose::from_translation(Vector3::new(1.0, 0.0, 0.0));
    j3.q0 = vec![0.5];
    let mut j4 = Joint::new("j4", y, BodyRef::body("coupler"), BodyRef::body("rocker"));
    j4.parent_frame = Pose::from_translation(Vector3::new(1.0, 0.0, 0.0));
    j4.child_frame = Pose::from_translation(Vector3::new(0.0, 0.0, 0.5));
    m.joints = vec![j1, j2, j3, j4];
    m.bodies[1].pose = Pose::from_translation(Vector3::new(0.0, 0.0, 0.5));
    m.bodies[2].pose = Pose::from_translation(Vector3::new(1.0, 0.0, 0.0));
    let (back, _) = round_trip(&m);
    assert_eq!(back.constraints.len(), 1);
    assert!(matches!(
        back.constraints[0].kind,
        ConstraintKind::ExtraJoint {
            joint_type: mbconv_ir::ExtraJointType::Hinge,
            ..
        }
    ));
}

/// The models the traced-lowering test runs on: every body fixture, the IR fixtures, and
/// models that need the topology passes (chains, reversed joints, several roots).
fn lowering_cases() -> Vec<(String, Model)> {
    let root = mbconv_test_support::workspace_root().join("fixtures");
    let mut cases = Vec::new();
    for file in mbconv_test_support::files_with_extension(&root.join("body"), "body") {
        let source = Source::from_path(&file).unwrap();
        let model = BodyFormat.read(&source, &Options::default()).unwrap().model;
        cases.push((file.display().to_string(), model));
    }
    for file in mbconv_test_support::files_with_extension(&root.join("ir"), "json") {
        let model = mbconv_ir::mbir::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        cases.push((file.display().to_string(), model));
    }
    let mut m = Model::new("mixed");
    m.bodies = vec![body("a", [0.0, 0.0, -0.5]), body("b", [0.0, 0.0, -0.5])];
    m.bodies[1].pose = Pose::from_translation(Vector3::new(0.0, 0.0, -1.0));
    m.bodies[1].fixed = true;
    let mut ball = Joint::new("ball", JointKind::Spherical, BodyRef::World, BodyRef::body("a"));
    ball.q0 = vec![0.1, 0.2, 0.3];
    ball.dofs = vec![DofProperties::default(); 3];
    m.joints.push(ball);
    m.joints.push(Joint::new(
        "hinge",
        JointKind::Revolute { axis: Vector3::y() },
        BodyRef::body("b"),
        BodyRef::body("a"),
    ));
    m.simulation.gravity = Some(Vector3::new(0.0, 0.0, -9.81));
    cases.push(("mixed topology".into(), m));
    cases
}

#[test]
fn traced_lowering_gives_the_same_model_and_report_pass_by_pass() {
    let cases = lowering_cases();
    assert!(cases.len() >= 10, "{}", cases.len());
    let verified = mbconv_ir::format::kit::verify_traced_lowerings(
        &BodyFormat,
        &cases,
        "disable_immobile_groups",
        "reference_poses",
    );
    assert_eq!(verified, Ok(()));
}

#[test]
fn a_free_joint_held_by_a_loop_is_left_out_and_its_coordinates_data_reported() {
    // A beam on a free joint, also pinned to the world by a ball joint (MJCF's <freejoint>
    // body held by a <connect>): the free joint constrains nothing and goes; the pin holds the
    // beam from the root link.
    let mut m = Model::new("held");
    m.bodies = vec![body("beam", [0.0, -0.5, 0.0])];
    m.joints.push(Joint::new(
        "float",
        JointKind::Free,
        BodyRef::World,
        BodyRef::body("beam"),
    ));
    m.joints.push(Joint::new(
        "pin",
        JointKind::Spherical,
        BodyRef::body("beam"),
        BodyRef::World,
    ));
    let (back, report) = round_trip(&m);
    assert!(report.contains("body.free_loop_joint_dropped"));
    assert!(back.joints.iter().all(|j| j.kind != JointKind::Free));
    // A lone free body keeps its free joint; what a body file cannot say on it is reported.
    let mut lone = Model::new("lone");
    lone.bodies = vec![body("ball", [0.0; 3])];
    let mut float = Joint::new("float", JointKind::Free, BodyRef::World, BodyRef::body("ball"));
    float.dofs = vec![
        DofProperties {
            rotor_inertia: 0.1,
            position_limits: Limits::new(-1.0, 1.0),
            ..Default::default()
        };
        6
    ];
    lone.joints.push(float);
    let lowered = BodyFormat.lower(&lone, &Options::default()).unwrap();
    assert!(lowered.report.contains("body.rotor_inertia_lost"));
    assert!(lowered.report.contains("body.joint_limits_lost"));
    assert!(
        lowered.model.joints[0]
            .dofs
            .iter()
            .all(|d| *d == DofProperties::default())
    );
}
