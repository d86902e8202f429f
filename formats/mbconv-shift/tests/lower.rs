//! Lowering models Shift cannot say as they are: each change keeps the motion and is reported.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use mbconv_ir::format::{Format, Options};
use mbconv_ir::kinematics::{Configuration, SpanningTree, world_poses};
use mbconv_ir::{
    Body, BodyRef, DofProperties, ForceKind, Joint, JointKind, Model, Pose, RestraintType, Twist,
};
use mbconv_shift::ShiftFormat;
use nalgebra::Vector3;

fn initial_poses(model: &Model) -> Vec<(String, Pose)> {
    let tree = SpanningTree::new(model);
    let poses = world_poses(model, &tree, Configuration::Initial);
    model.bodies.iter().map(|b| b.name.clone()).zip(poses).collect()
}

fn sample() -> Model {
    let mut m = Model::new("sample");
    let mut base = Body::new("base");
    base.fixed = true;
    base.pose = Pose::from_translation(Vector3::new(0.0, 0.0, 1.0));
    let mut arm = Body::new("arm");
    arm.pose = Pose::from_translation(Vector3::new(0.0, 0.0, 1.0));
    let mut tool = Body::new("tool");
    tool.pose = Pose::from_translation(Vector3::new(0.0, 0.0, 1.0));
    let mut ball = Body::new("ball");
    ball.pose = Pose::from_translation(Vector3::new(3.0, 0.0, 0.0));
    ball.initial_velocity = Some(Twist {
        linear: Vector3::new(1.0, 0.0, 0.0),
        angular: Vector3::zeros(),
    });
    m.bodies = vec![base, arm, tool, ball];
    let axis = Vector3::new(1.0, 1.0, 0.0);
    let mut hinge = Joint::new(
        "hinge",
        JointKind::Revolute { axis },
        BodyRef::body("base"),
        BodyRef::body("arm"),
    );
    hinge.q0 = vec![0.4];
    hinge.dofs = vec![DofProperties {
        spring_stiffness: 10.0,
        spring_rest_position: 0.1,
        damping: 2.0,
        ..Default::default()
    }];
    let mut cross = Joint::new(
        "cross",
        JointKind::Universal {
            axis1: Vector3::x(),
            axis2: Vector3::y(),
        },
        BodyRef::body("arm"),
        BodyRef::body("tool"),
    );
    cross.q0 = vec![0.2, -0.3];
    m.joints = vec![hinge, cross];
    m
}

#[test]
fn lowering_keeps_the_initial_poses_and_reports_each_change() {
    let model = sample();
    for dialect in ["spec", "2.0"] {
        let mut options = Options::default();
        options.set("dialect", dialect);
        let lowered = ShiftFormat.lower(&model, &options).unwrap();
        let before = initial_poses(&model);
        let after = initial_poses(&lowered.model);
        for (name, pose) in &before {
            let (_, other) = after.iter().find(|(n, _)| n == name).unwrap();
            assert!(
                pose.distance(other) < 1e-12,
                "{dialect}: {name} moved: {pose:?} -> {other:?}"
            );
        }
        for code in [
            "shift.fixed_body_as_rigid_joint",
            "shift.universal_as_two_revolutes",
            "shift.joint_spring_as_restraint",
            "shift.joint_damping_as_restraint",
        ] {
            assert!(lowered.report.contains(code), "{dialect}: no {code}");
        }
        assert_eq!(
            lowered.report.contains("shift.axis_turned_to_z"),
            dialect == "spec"
        );
        let problems = mbconv_ir::validate(&lowered.model);
        assert!(!problems.has_errors(), "{dialect}: {:?}", problems.findings);
        // The spring k(q − q_r) is the ascending polynomial [−k·q_r, k]; the damper [0, c].
        let restraint = |name: &str| {
            let e = lowered
                .model
                .force_elements
                .iter()
                .find(|e| e.name == name)
                .unwrap();
            let ForceKind::Restraint(r) = &e.kind else {
                panic!()
            };
            r.clone()
        };
        let spring = restraint("hinge.stiffness");
        assert_eq!(spring.restraint_type, RestraintType::Spring);
        assert_eq!(spring.function.pieces, vec![vec![-1.0, 10.0]]);
        assert_eq!(restraint("hinge.damping").function.pieces, vec![vec![0.0, 2.0]]);
        // The floating ball that moves gets a float joint carrying its velocity.
        let float = lowered
            .model
            .joints
            .iter()
            .find(|j| j.kind == JointKind::Free)
            .unwrap();
        assert_eq!(float.v0, vec![1.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
        // What was lowered is written and read back exactly.
        let written = ShiftFormat.emit(&lowered.model, &options).unwrap();
        let mut again = read_str("sample.json", &written.text).unwrap().model;
        again.name.clone_from(&lowered.model.name);
        assert_eq!(again, lowered.model, "{dialect}");
    }
}

#[test]
fn joint_friction_becomes_a_continuous_friction_restraint() {
    let mut model = sample();
    model.joints[0].dofs[0].friction = 0.3;
    let lowered = ShiftFormat.lower(&model, &Options::default()).unwrap();
    assert!(lowered.report.contains("shift.joint_friction_as_restraint"));
    let friction = lowered
        .model
        .force_elements
        .iter()
        .find_map(|e| match &e.kind {
            ForceKind::Restraint(r) if e.name == "hinge.friction" => Some(r.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(friction.restraint_type, RestraintType::Friction);
    let f = &friction.function;
    // ±f away from rest; no step anywhere (an integrator with error control would chatter on
    // one), and at zero rate the slope f/0.01 of the solver's f·tanh(v/0.01).
    assert_eq!(f.value(-1.0), -0.3);
    assert_eq!(f.value(1.0), 0.3);
    assert_eq!(f.value(0.0), 0.0);
    for knot in &f.knots {
        let (below, above) = (f.value(knot - 1e-12), f.value(knot + 1e-12));
        assert!((below - above).abs() < 1e-9, "step at {knot}: {below} -> {above}");
    }
    assert!((f.value(1e-4) / 1e-4 - 0.3 / 1e-2).abs() < 1e-9);
}

#[test]
fn sniff_claims_shift_files_but_not_ir_files() {
    assert!(ShiftFormat.sniff("{\n  \"model_parameters\": {}, \"assemblies\": []}"));
    let ir = mbconv_ir::mbir::to_string(&sample());
    assert!(!ShiftFormat.sniff(&ir));
}

#[test]
fn an_ir_fixture_is_written_and_read_back_as_lowered() {
    let path = mbconv_test_support::workspace_root().join("fixtures/ir/double_pendulum.mbir.json");
    let model = mbconv_ir::mbir::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    for dialect in ["spec", "2.0"] {
        let mut options = Options::default();
        options.set("dialect", dialect);
        let lowered = ShiftFormat.lower(&model, &options).unwrap().model;
        let written = ShiftFormat.emit(&lowered, &options).unwrap();
        let mut again = read_str("p.json", &written.text).unwrap().model;
        again.name.clone_from(&lowered.name);
        assert_eq!(again, lowered, "{dialect}");
        let before = initial_poses(&model);
        let after = initial_poses(&again);
        for ((name, a), (_, b)) in before.iter().zip(&after) {
            assert!(a.distance(b) < 1e-12, "{dialect}: {name} moved");
        }
    }
}

#[test]
fn a_linear_tsda_becomes_frame_pair_restraints() {
    use mbconv_ir::{ForceElement, RestraintTarget, SpringDamperLaw, Tsda};
    let mut m = Model::new("bouncer");
    let mut mass = Body::new("mass");
    mass.pose = Pose::from_translation(Vector3::new(0.0, 0.0, -1.0));
    m.bodies.push(mass);
    // The slide is across the spring (along x): a TSDA along it would be its spring instead.
    m.joints.push(Joint::new(
        "slide",
        JointKind::Prismatic { axis: Vector3::x() },
        BodyRef::World,
        BodyRef::body("mass"),
    ));
    m.joints[0].child_frame = Pose::from_translation(Vector3::new(0.0, 0.0, 1.0));
    m.force_elements.push(ForceElement {
        name: "spring".into(),
        kind: ForceKind::Tsda(Tsda {
            body1: BodyRef::World,
            point1: Vector3::zeros(),
            body2: BodyRef::body("mass"),
            point2: Vector3::new(0.0, 0.0, 0.5),
            free_length: 0.8,
            preload: 3.0,
            law: SpringDamperLaw::Linear {
                stiffness: Some(100.0),
                damping: Some(5.0),
            },
            min_length: None,
            max_length: None,
            visualization: None,
        }),
        extras: Default::default(),
    });
    let lowered = ShiftFormat.lower(&m, &Options::default()).unwrap();
    assert!(lowered.report.contains("shift.tsda_as_restraints"));
    let restraints: Vec<_> = lowered
        .model
        .force_elements
        .iter()
        .map(|e| match &e.kind {
            ForceKind::Restraint(r) => r.clone(),
            other => panic!("{other:?} left"),
        })
        .collect();
    // At L = 0.9 the TSDA pushes apart with 3 − 100·0.1 = −7 N: the restraint pulls back with 7.
    assert!((restraints[0].function.value(0.9) - 7.0).abs() < 1e-12);
    assert_eq!(restraints[1].restraint_type, RestraintType::Damper);
    assert_eq!(restraints[1].function.value(2.0), 10.0);
    let RestraintTarget::FramePair { frame1, frame2, .. } = &restraints[0].target else {
        panic!()
    };
    assert_eq!((frame1.as_str(), frame2.as_str()), ("spring_1", "spring_2"));
    let written = ShiftFormat.emit(&lowered.model, &Options::default()).unwrap();
    let mut again = read_str("b.json", &written.text).unwrap().model;
    again.name.clone_from(&lowered.model.name);
    assert_eq!(again, lowered.model);
}

/// The traced lowering is the same lowering: the same model and report, and the model after
/// the last pass that changed it is the lowered model.
#[test]
fn traced_lowering_gives_the_same_model_and_report() {
    let root = mbconv_test_support::workspace_root();
    let mut models = vec![sample()];
    let ir = std::fs::read_to_string(root.join("fixtures/ir/double_pendulum.mbir.json")).unwrap();
    models.push(mbconv_ir::mbir::from_str(&ir).unwrap());
    for name in [
        "assemblies.json",
        "loop.json",
        "restraints.json",
        "v2_joints.json",
    ] {
        let text = std::fs::read_to_string(root.join("fixtures/shift").join(name)).unwrap();
        models.push(read_str(name, &text).unwrap().model);
    }
    for model in &models {
        for dialect in ["spec", "2.0"] {
            let mut options = Options::default();
            options.set("dialect", dialect);
            let plain = ShiftFormat.lower(model, &options).unwrap();
            let traced = ShiftFormat.lower_traced(model, &options).unwrap();
            assert!(plain.passes.is_empty());
            assert_eq!(traced.model, plain.model, "{} {dialect}", model.name);
            assert_eq!(traced.report, plain.report, "{} {dialect}", model.name);
            assert!(traced.passes.len() > 10, "{}", model.name);
            let last = traced.passes.iter().rev().find_map(|p| p.model.as_ref());
            assert_eq!(last.unwrap_or(model), &plain.model, "{} {dialect}", model.name);
            let per_pass: usize = traced.passes.iter().map(|p| p.report.findings.len()).sum();
            assert_eq!(per_pass, plain.report.findings.len(), "{}", model.name);
            for f in &plain.report.findings {
                assert!(f.code.starts_with("shift."), "{}", f.code);
                assert!(f.feature.is_some() && f.pass.is_some(), "{f:?}");
            }
        }
    }
}

/// An euler joint is written as a spherical joint that holds the same rotation and angular
/// velocity: the child starts where it did, turning the same way.
#[test]
fn an_euler_joint_becomes_a_spherical_joint_with_the_same_state() {
    use mbconv_ir::EulerOrder;
    use mbconv_ir::kinematics::velocity::initial_twists;
    for order in [EulerOrder::Xyz, EulerOrder::Zyx] {
        let mut m = Model::new("gimbal");
        let mut head = Body::new("head");
        head.inertial.mass = 1.0;
        head.pose = Pose::from_translation(Vector3::new(0.0, 0.0, 1.0));
        m.bodies.push(head);
        let mut joint = Joint::new(
            "neck",
            JointKind::Euler { order },
            BodyRef::World,
            BodyRef::body("head"),
        );
        joint.parent_frame = Pose::from_translation(Vector3::new(0.0, 0.0, 1.0));
        joint.q0 = vec![0.3, -0.7, 1.1];
        joint.v0 = vec![0.5, 2.0, -1.5];
        m.joints.push(joint);
        let lowered = ShiftFormat.lower(&m, &Options::default()).unwrap();
        assert!(lowered.report.contains("shift.euler_as_spherical"));
        assert!(!lowered.report.has_loss(), "{:?}", lowered.report.findings);
        assert_eq!(lowered.model.joints[0].kind, JointKind::Spherical);
        let state = |model: &Model| {
            let tree = SpanningTree::new(model);
            let poses = world_poses(model, &tree, Configuration::Initial);
            let twists = initial_twists(model, &tree, &poses);
            (poses[0], twists[0])
        };
        let ((p0, t0), (p1, t1)) = (state(&m), state(&lowered.model));
        assert!(p0.distance(&p1) < 1e-14, "{order:?}: {p0:?} vs {p1:?}");
        assert!((t0.angular - t1.angular).norm() < 1e-14, "{order:?}");
        assert!((t0.linear - t1.linear).norm() < 1e-14, "{order:?}");
    }
}

/// Scoped names from SDFormat (`crate_a::body`, `crate_b::body`) whose last parts clash, in the
/// one assembly the model's loose bodies go to: each is written so that the reader gives back
/// the name the writer reported (once named `yard:body_`, which came back as `body_`).
#[test]
fn scoped_names_with_clashing_last_parts_read_back_as_reported() {
    let mut m = Model::new("yard");
    for name in ["crate_a::body", "crate_b::body", "pendulum::bob"] {
        m.bodies.push(Body::new(name));
    }
    let shift = ShiftFormat;
    let written = shift.write(&m, &Options::default()).unwrap();
    let source = mbconv_ir::format::Source::from_string("yard.json", written.text.clone());
    let back = shift.read(&source, &Options::default()).unwrap();
    let mut names: Vec<String> = back.model.bodies.iter().map(|b| b.name.clone()).collect();
    names.sort();
    let mut reported: Vec<String> = m
        .bodies
        .iter()
        .map(|b| {
            let mut name = b.name.clone();
            for r in written.report.renames.iter().filter(|r| r.item == "body") {
                if r.from == name {
                    name.clone_from(&r.to);
                }
            }
            name
        })
        .collect();
    reported.sort();
    assert_eq!(names, reported, "{}", written.text);
}

/// Reads `text` as the file `name` through the format's public surface.
fn read_str(name: &str, text: &str) -> Result<mbconv_ir::format::Imported, mbconv_ir::format::FormatError> {
    use mbconv_ir::format::{Format, Options, Source};
    mbconv_shift::ShiftFormat.read(&Source::from_string(name, text), &Options::default())
}
