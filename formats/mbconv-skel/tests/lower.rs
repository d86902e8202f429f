//! The `lower` step: what SKEL cannot say is changed in the IR with a finding, and `emit` then
//! loses nothing more (its report holds no loss, and the written file reads back moving like
//! the lowered model).
#![allow(clippy::unwrap_used)]

mod common;

use mbconv_ir::format::{Format, Options, Source};
use mbconv_ir::kinematics::velocity::initial_twists;
use mbconv_ir::kinematics::{Configuration, SpanningTree, relative_pose, world_poses};
use mbconv_ir::{
    Body, BodyRef, Category, ForceElement, ForceKind, Inertia, Joint, JointKind, Model, Pose, Rsda,
    SpringDamperLaw, Twist,
};
use mbconv_skel::SkelFormat;
use nalgebra::{UnitQuaternion, Vector3};

fn lower(model: &Model) -> mbconv_ir::format::Lowered {
    SkelFormat.lower(model, &Options::default()).unwrap()
}

/// Writes and reads back.
fn round_trip(model: &Model) -> Model {
    let written = SkelFormat.write(model, &Options::default()).unwrap();
    SkelFormat
        .read(&Source::from_string("t.skel", written.text), &Options::default())
        .unwrap()
        .model
}

/// Every body's initial world twist, by name.
fn twists(model: &Model) -> Vec<(String, Twist)> {
    let tree = SpanningTree::new(model);
    let poses = world_poses(model, &tree, Configuration::Initial);
    let twists = initial_twists(model, &tree, &poses);
    model.bodies.iter().map(|b| b.name.clone()).zip(twists).collect()
}

fn assert_same_twists(a: &Model, b: &Model, tolerance: f64) {
    let after = twists(b);
    for (name, twist) in twists(a) {
        let (_, other) = after.iter().find(|(n, _)| *n == name).unwrap();
        let gap = (twist.linear - other.linear).norm() + (twist.angular - other.angular).norm();
        assert!(gap <= tolerance, "{name}: {twist:?} vs {other:?}");
    }
}

/// A pendulum: a bob on a revolute joint about y, one metre below the pivot.
fn pendulum() -> Model {
    let mut m = Model::new("pendulum");
    let mut bob = Body::new("bob");
    bob.inertial.mass = 2.0;
    bob.pose = Pose::from_translation(Vector3::new(0.0, 0.0, -1.0));
    m.bodies.push(bob);
    let mut pivot = Joint::new(
        "pivot",
        JointKind::Revolute { axis: Vector3::y() },
        BodyRef::World,
        BodyRef::body("bob"),
    );
    pivot.child_frame = Pose::from_translation(Vector3::new(0.0, 0.0, 1.0));
    m.joints.push(pivot);
    m.simulation.gravity = Some(Vector3::new(0.0, 0.0, -9.81));
    m
}

#[test]
fn a_tree_body_velocity_becomes_its_joint_rate() {
    let mut m = pendulum();
    // Swinging about y at 1.5 rad/s: the bob (1 m below the pivot) moves along -x.
    m.bodies[0].initial_velocity = Some(Twist {
        linear: Vector3::new(-1.5, 0.0, 0.0),
        angular: Vector3::new(0.0, 1.5, 0.0),
    });
    let lowered = lower(&m);
    assert!((lowered.model.joints[0].v0[0] - 1.5).abs() < 1e-14);
    assert!(lowered.model.bodies[0].initial_velocity.is_none());
    assert!(
        !lowered.report.findings.iter().any(|f| f.category.is_loss()),
        "{:?}",
        lowered.report.findings
    );
    let back = round_trip(&m);
    assert_same_twists(&lowered.model, &back, 1e-14);
    let (_, twist) = &twists(&back)[0];
    let wanted = m.bodies[0].initial_velocity.unwrap();
    assert!((twist.linear - wanted.linear).norm() + (twist.angular - wanted.angular).norm() < 1e-14);
}

#[test]
fn a_velocity_the_joint_cannot_give_is_approximated() {
    let mut m = pendulum();
    m.bodies[0].initial_velocity = Some(Twist {
        linear: Vector3::new(0.0, 3.0, 0.0),
        angular: Vector3::zeros(),
    });
    let lowered = lower(&m);
    assert!(
        lowered
            .report
            .findings
            .iter()
            .any(|f| f.category == Category::Approximated && f.path.as_deref() == Some("bodies[\"bob\"]")),
        "{:?}",
        lowered.report.findings
    );
}

#[test]
fn a_floating_body_keeps_its_velocity_through_a_free_joint() {
    let mut m = Model::new("throw");
    let mut ball = Body::new("ball");
    ball.pose = Pose::new(
        Vector3::new(0.5, -1.0, 2.0),
        UnitQuaternion::from_euler_angles(0.3, -0.2, 0.9),
    );
    ball.initial_velocity = Some(Twist {
        linear: Vector3::new(1.0, 2.0, -0.5),
        angular: Vector3::new(0.2, -0.4, 3.0),
    });
    m.bodies.push(ball);
    let lowered = lower(&m);
    assert_eq!(lowered.model.joints.len(), 1);
    assert_eq!(lowered.model.joints[0].kind, JointKind::Free);
    assert!(!lowered.report.findings.iter().any(|f| f.category.is_loss()));
    assert!(lowered.report.contains("skel.free_joint"));
    let back = round_trip(&m);
    assert_same_twists(&m, &back, 1e-12);
    assert_same_twists(&lowered.model, &back, 1e-12);
}

/// An RSDA between the pivot's bodies about its axis, with its frames turned about that axis.
fn pendulum_with_rsda(swap_bodies: bool) -> Model {
    let mut m = pendulum();
    // Z along the joint axis (y): a quarter turn about x takes z to -y, so the frames point
    // along -y, and each frame is turned about its own Z by a different angle.
    let along_minus_y = UnitQuaternion::from_euler_angles(std::f64::consts::FRAC_PI_2, 0.0, 0.0);
    let on_world = Pose::new(
        Vector3::new(0.0, 0.3, 0.0),
        along_minus_y * UnitQuaternion::from_euler_angles(0.0, 0.0, 0.4),
    );
    let on_bob = Pose::new(
        Vector3::new(0.0, 0.0, 1.0),
        along_minus_y * UnitQuaternion::from_euler_angles(0.0, 0.0, -0.3),
    );
    let (body1, frame1, body2, frame2) = if swap_bodies {
        (BodyRef::body("bob"), on_bob, BodyRef::World, on_world)
    } else {
        (BodyRef::World, on_world, BodyRef::body("bob"), on_bob)
    };
    m.force_elements.push(ForceElement {
        name: "torsion".into(),
        kind: ForceKind::Rsda(Rsda {
            body1,
            frame1,
            body2,
            frame2,
            free_angle: 0.25,
            preload: 2.0,
            law: SpringDamperLaw::Linear {
                stiffness: Some(40.0),
                damping: Some(0.7),
            },
        }),
        extras: Default::default(),
    });
    m
}

/// The RSDA angle of `rsda` in `model` with the pivot at `q`.
fn rsda_angle(model: &Model, q: f64) -> f64 {
    let ForceKind::Rsda(rsda) = &model.force_elements[0].kind else {
        panic!("not an RSDA")
    };
    // The pivot's parent is the world.
    let bob = relative_pose(&model.joints[0], &[q]);
    let world_of = |body: &BodyRef, frame: &Pose| match body {
        BodyRef::World => *frame,
        BodyRef::Body(_) => bob * *frame,
    };
    let f1 = world_of(&rsda.body1, &rsda.frame1);
    let f2 = world_of(&rsda.body2, &rsda.frame2);
    let m = (f1.rotation.inverse() * f2.rotation)
        .to_rotation_matrix()
        .into_inner();
    m[(1, 0)].atan2(m[(0, 0)])
}

#[test]
fn an_rsda_about_a_revolute_axis_becomes_its_spring() {
    for swap in [false, true] {
        let m = pendulum_with_rsda(swap);
        let lowered = lower(&m);
        assert!(lowered.model.force_elements.is_empty());
        assert!(
            lowered.report.findings.iter().all(|f| !f.category.is_loss()),
            "{:?}",
            lowered.report.findings
        );
        assert!(lowered.report.contains("skel.rsda_as_joint_spring"));
        let dof = lowered.model.joints[0].dof(0);
        assert_eq!((dof.spring_stiffness, dof.damping), (40.0, 0.7));
        // Same torque law for every q: the preload shifts the rest angle by preload/k, and
        // (θ - θ_rest) and (q - rest) differ by a sign at most.
        for q in [-2.0, -0.5, 0.0, 0.4, 1.3, 3.0] {
            let stretch_rsda = rsda_angle(&m, q) - (0.25 + 2.0 / 40.0);
            let stretch_joint = q - dof.spring_rest_position;
            assert!(
                (stretch_rsda.cos() - stretch_joint.cos()).abs() < 1e-12,
                "swap {swap}, q {q}: {stretch_rsda} vs {stretch_joint}"
            );
        }
        let written = SkelFormat.write(&m, &Options::default()).unwrap().text;
        assert!(
            written.contains("<spring_stiffness>40</spring_stiffness>"),
            "{written}"
        );
    }
}

#[test]
fn an_rsda_off_the_joint_axis_is_dropped() {
    let mut m = pendulum_with_rsda(false);
    if let ForceKind::Rsda(rsda) = &mut m.force_elements[0].kind {
        rsda.frame2 = Pose::identity();
    }
    let lowered = lower(&m);
    assert!(lowered.report.contains("skel.rsda_lost"));
    assert!(
        lowered.model.joints[0]
            .dofs
            .iter()
            .all(|d| d.spring_stiffness == 0.0)
    );
}

#[test]
fn an_inertia_symmetric_up_to_rounding_is_not_reported() {
    let mut m = pendulum();
    // A tensor rotated in floating point is symmetric only up to rounding.
    m.bodies[0].inertial.inertia = Inertia::from_moments_products([0.3, 0.2, 0.1], [0.01, 0.0, 0.02]);
    m.bodies[0].inertial.inertia_rotation = UnitQuaternion::from_euler_angles(0.7, -0.3, 1.1);
    let tensor = m.bodies[0].inertial.inertia_in_body_axes();
    assert!(
        (tensor - tensor.transpose()).abs().max() > 0.0,
        "the test needs rounding"
    );
    assert!(!lower(&m).report.contains("skel.inertia_asymmetric"));
    // A real asymmetry is reported and the upper triangle kept.
    m.bodies[0].inertial.inertia = Inertia([[0.3, 0.05, 0.0], [0.0, 0.2, 0.0], [0.0, 0.0, 0.1]]);
    m.bodies[0].inertial.inertia_rotation = UnitQuaternion::identity();
    let lowered = lower(&m);
    assert!(lowered.report.contains("skel.inertia_asymmetric"));
    assert_eq!(lowered.model.bodies[0].inertial.inertia.0[1][0], 0.05);
}

#[test]
fn jointed_bodies_that_both_collide_are_reported_once() {
    use mbconv_ir::{Geometry, Shape, ShapeRole};
    let mut m = pendulum();
    let mut base = Body::new("base");
    base.fixed = true;
    base.shapes
        .push(Shape::new(ShapeRole::Collision, Geometry::Sphere { radius: 0.1 }));
    m.bodies.push(base);
    m.bodies[0]
        .shapes
        .push(Shape::new(ShapeRole::Both, Geometry::Sphere { radius: 0.1 }));
    m.joints[0].parent = BodyRef::body("base");
    let lowered = lower(&m);
    let notes: Vec<_> = lowered
        .report
        .findings
        .iter()
        .filter(|f| f.code == "skel.unchecked_contact")
        .collect();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(notes[0].message.contains("bodies[\"bob\"]") && notes[0].message.contains("bodies[\"base\"]"));
    // Both bodies land in one new skeleton, whose bodies DART does not collide by default.
    assert!(lowered.report.contains("skel.unchecked_self_contact"));
    // A model read back from SKEL already had that skeleton: nothing to note any more.
    let again = lower(&round_trip(&m));
    assert!(!again.report.contains("skel.unchecked_contact"));
    assert!(!again.report.contains("skel.unchecked_self_contact"));
}

/// `emit` reports no loss for any fixture, SKEL or IR, nor for any corpus SKEL file, and every
/// lowered model is structurally valid.
#[test]
fn emit_reports_no_loss() {
    let mut models = vec![pendulum_with_rsda(false)];
    for path in common::skel_files(&common::fixtures()) {
        models.push(
            SkelFormat
                .read(&Source::from_path(&path).unwrap(), &Options::default())
                .unwrap()
                .model,
        );
    }
    let ir = common::crate_dir().join("../../fixtures/ir");
    for path in mbconv_test_support::files_with_extension(&ir, "mbir.json") {
        let text = std::fs::read_to_string(&path).unwrap();
        models.push(mbconv_ir::mbir::from_str(&text).unwrap());
    }
    if let Some(root) = common::skel_corpus() {
        for path in common::skel_files(&root) {
            if let Ok(imported) = SkelFormat.read(&Source::from_path(&path).unwrap(), &Options::default()) {
                models.push(imported.model);
            }
        }
    }
    assert!(models.len() > 20);
    for model in &models {
        let lowered = lower(model);
        let exported = SkelFormat.emit(&lowered.model, &Options::default()).unwrap();
        let losses: Vec<_> = exported
            .report
            .findings
            .iter()
            .filter(|f| f.category.is_loss())
            .collect();
        assert!(losses.is_empty(), "{}: {losses:?}", model.name);
        // Physical data stays as read (the corpus has a few odd inertias and sizes); every
        // structural rule must hold.
        let errors: Vec<String> = mbconv_ir::validate(&lowered.model)
            .at_least(mbconv_ir::Severity::Error)
            .filter(|f| {
                !matches!(
                    f.code.as_str(),
                    "shape.size" | "inertia.triangle" | "inertia.not_psd" | "mass.zero"
                )
            })
            .map(|f| f.to_string())
            .collect();
        assert!(errors.is_empty(), "{}: {errors:?}", model.name);
    }
}

/// Initial world poses by body name.
fn poses(model: &Model) -> Vec<(String, Pose)> {
    let tree = SpanningTree::new(model);
    let poses = world_poses(model, &tree, Configuration::Initial);
    model.bodies.iter().map(|b| b.name.clone()).zip(poses).collect()
}

#[test]
fn a_stored_pose_that_disagrees_with_its_joint_moves_the_joint_frame() {
    let mut m = pendulum();
    m.joints[0].q0 = vec![0.3];
    m.bodies[0].pose.translation.x = 0.25;
    let lowered = lower(&m);
    assert!(lowered.report.contains("skel.pose_mismatch"));
    let back = round_trip(&m);
    let after = poses(&back);
    for (name, pose) in poses(&lowered.model) {
        let (_, other) = after.iter().find(|(n, _)| *n == name).unwrap();
        assert!(pose.distance(other) < 1e-12, "{name}: {pose:?} vs {other:?}");
    }
    assert!(
        lowered.model.joints[0]
            .parent_frame
            .distance(&back.joints[0].parent_frame)
            < 1e-12
    );
}

#[test]
fn a_tsda_along_a_prismatic_axis_becomes_its_spring() {
    use mbconv_ir::Tsda;
    for swap in [false, true] {
        let mut m = Model::new("slider");
        let mut cart = Body::new("cart");
        cart.pose = Pose::from_translation(Vector3::new(2.0, 1.0, 0.0));
        m.bodies.push(cart);
        let axis = Vector3::new(1.0, 1.0, 0.0);
        let mut rail = Joint::new(
            "rail",
            JointKind::Prismatic { axis },
            BodyRef::World,
            BodyRef::body("cart"),
        );
        rail.parent_frame = Pose::from_translation(Vector3::new(2.0, 1.0, 0.0));
        rail.q0 = vec![0.2];
        m.joints.push(rail);
        // Anchored at (1, 0, 0) in the world and at the cart's origin: both on the axis line.
        let (anchor, on_cart) = (Vector3::new(1.0, 0.0, 0.0), Vector3::zeros());
        let (body1, point1, body2, point2) = if swap {
            (BodyRef::body("cart"), on_cart, BodyRef::World, anchor)
        } else {
            (BodyRef::World, anchor, BodyRef::body("cart"), on_cart)
        };
        m.force_elements.push(ForceElement {
            name: "coil".into(),
            kind: ForceKind::Tsda(Tsda {
                body1,
                point1,
                body2,
                point2,
                free_length: 0.5,
                preload: 0.0,
                law: SpringDamperLaw::Linear {
                    stiffness: Some(100.0),
                    damping: Some(2.0),
                },
                min_length: None,
                max_length: None,
                visualization: None,
            }),
            extras: Default::default(),
        });
        let lowered = lower(&m);
        assert!(lowered.model.force_elements.is_empty());
        assert!(lowered.report.findings.iter().all(|f| !f.category.is_loss()));
        let dof = lowered.model.joints[0].dof(0);
        assert_eq!((dof.spring_stiffness, dof.damping), (100.0, 2.0));
        // L(q) - L_free = q - rest for every q that keeps the cart on its side of the anchor.
        for q in [-1.0, 0.0, 0.2, 3.0] {
            let cart_at = relative_pose(&m.joints[0], &[q]).transform_point(&on_cart);
            let stretch = (cart_at - anchor).norm() - 0.5;
            assert!(
                (stretch - (q - dof.spring_rest_position)).abs() < 1e-12,
                "{q}: {stretch}"
            );
        }
    }
}

/// The traced lowering is the same lowering: the same model and report, and the model after
/// the last pass that changed it is the lowered model.
#[test]
fn traced_lowering_gives_the_same_model_and_report() {
    let root = mbconv_test_support::workspace_root();
    let mut models = vec![pendulum_with_rsda(false), pendulum_with_rsda(true)];
    let ir = std::fs::read_to_string(root.join("fixtures/ir/double_pendulum.mbir.json")).unwrap();
    models.push(mbconv_ir::mbir::from_str(&ir).unwrap());
    for name in [
        "joint_free.skel",
        "initial_state_every_joint.skel",
        "implicit_root_orphan.skel",
        "shapes.skel",
    ] {
        let path = root.join("fixtures/skel").join(name);
        let text = std::fs::read_to_string(&path).unwrap();
        models.push(read_str(name, &text).unwrap().model);
    }
    for model in &models {
        let plain = SkelFormat.lower(model, &Options::default()).unwrap();
        let traced = SkelFormat.lower_traced(model, &Options::default()).unwrap();
        assert!(plain.passes.is_empty());
        assert_eq!(traced.model, plain.model, "{}", model.name);
        assert_eq!(traced.report, plain.report, "{}", model.name);
        assert!(traced.passes.len() > 10, "{}", model.name);
        let last = traced.passes.iter().rev().find_map(|p| p.model.as_ref());
        assert_eq!(last.unwrap_or(model), &plain.model, "{}", model.name);
        let per_pass: usize = traced.passes.iter().map(|p| p.report.findings.len()).sum();
        assert_eq!(per_pass, plain.report.findings.len(), "{}", model.name);
        for f in &plain.report.findings {
            assert!(f.code.starts_with("skel."), "{}", f.code);
            assert!(f.feature.is_some() && f.pass.is_some(), "{f:?}");
        }
    }
}

/// The joint spring an RSDA becomes pulls exactly like the RSDA around the initial state, not
/// just up to whole turns: also when the initial angle lies past ±π (where the RSDA angle
/// wraps) and when the joint is met from its child side and turned round.
#[test]
fn an_rsda_joint_spring_matches_on_the_initial_branch_and_through_reversal() {
    for (q0, reversed) in [(2.8, false), (-2.9, false), (2.8, true), (0.4, true)] {
        let forward = pendulum_with_rsda(false);
        let mut m = forward.clone();
        m.joints[0].q0 = vec![q0];
        if reversed {
            let j = &mut m.joints[0];
            std::mem::swap(&mut j.parent, &mut j.child);
            std::mem::swap(&mut j.parent_frame, &mut j.child_frame);
            j.q0 = vec![-q0];
        }
        let lowered = lower(&m);
        assert!(lowered.report.contains("skel.rsda_as_joint_spring"));
        assert!(!lowered.report.has_loss(), "{:?}", lowered.report.findings);
        let joint = &lowered.model.joints[0];
        assert_eq!(joint.parent, BodyRef::World);
        assert!((joint.q0[0] - q0).abs() < 1e-15);
        let rest = joint.dof(0).spring_rest_position;
        let stretches: Vec<(f64, f64)> = [-0.2, -0.1, 0.0, 0.1, 0.2]
            .iter()
            .map(|dq| {
                let q = q0 + dq;
                (rsda_angle(&forward, q) - (0.25 + 2.0 / 40.0), q - rest)
            })
            .collect();
        let sign = stretches[2].0.signum() * stretches[2].1.signum();
        for (rsda, spring) in stretches {
            assert!(
                (rsda - sign * spring).abs() < 1e-12,
                "q0 {q0}, reversed {reversed}: {rsda} vs {spring}"
            );
        }
    }
}

/// A joint between bodies of two skeleton groups (or a skeleton and a body outside any) is a
/// joint of one DART skeleton: the groups are merged, the joint is kept.
#[test]
fn a_joint_between_two_skeletons_merges_them() {
    use mbconv_ir::{Group, GroupType};
    let mut m = pendulum();
    let mut tip = Body::new("tip");
    tip.inertial.mass = 0.5;
    tip.pose = Pose::from_translation(Vector3::new(0.0, 0.0, -2.0));
    m.bodies.push(tip);
    let mut elbow = Joint::new(
        "elbow",
        JointKind::Revolute { axis: Vector3::y() },
        BodyRef::body("bob"),
        BodyRef::body("tip"),
    );
    elbow.child_frame = Pose::from_translation(Vector3::new(0.0, 0.0, 1.0));
    elbow.parent_frame = Pose::identity();
    elbow.q0 = vec![0.3];
    m.joints.push(elbow);
    let mut tail = Body::new("tail");
    tail.pose = Pose::from_translation(Vector3::new(0.0, 0.0, -3.0));
    m.bodies.push(tail);
    let mut wrist = Joint::new(
        "wrist",
        JointKind::Revolute { axis: Vector3::x() },
        BodyRef::body("tip"),
        BodyRef::body("tail"),
    );
    wrist.child_frame = Pose::from_translation(Vector3::new(0.0, 0.0, 1.0));
    m.joints.push(wrist);
    for (name, body) in [("upper", "bob"), ("lower", "tip")] {
        let mut g = Group::new(name, GroupType::Skeleton);
        g.bodies = vec![body.into()];
        m.groups.push(g);
    }
    let lowered = lower(&m);
    assert!(
        lowered.report.findings.iter().all(|f| !f.can_change_motion()),
        "{:?}",
        lowered.report.findings
    );
    assert!(lowered.report.contains("skel.skeletons_merged"));
    assert!(lowered.report.contains("skel.body_joins_skeleton"));
    assert_eq!(lowered.model.groups.len(), 1);
    assert_eq!(lowered.model.groups[0].bodies, ["bob", "tip", "tail"]);
    assert_eq!(
        lowered.model.joints[1].kind,
        JointKind::Revolute { axis: Vector3::y() }
    );
    let back = round_trip(&m);
    assert_same_twists(&m, &back, 1e-12);
}

/// Reads `text` as the file `name` through the format's public surface.
fn read_str(name: &str, text: &str) -> Result<mbconv_ir::format::Imported, mbconv_ir::format::FormatError> {
    use mbconv_ir::format::{Format, Options, Source};
    mbconv_skel::SkelFormat.read(&Source::from_string(name, text), &Options::default())
}
