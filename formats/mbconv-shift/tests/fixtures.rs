//! The hand-written fixtures in `fixtures/shift/`, each checked against numbers computed by
//! hand, and their same-format round trips.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use mbconv_ir::format::{Format, Imported, Options, Source};
use mbconv_ir::kinematics::{Attachment, Configuration, SpanningTree, world_poses};
use mbconv_ir::{
    BodyRef, DistanceType, ForceKind, JointKind, Model, Restraint, RestraintTarget, RestraintType,
};
use mbconv_shift::ShiftFormat;
use nalgebra::Vector3;
use std::f64::consts::FRAC_PI_2;

fn read(name: &str) -> Imported {
    let path = mbconv_test_support::workspace_root()
        .join("fixtures/shift")
        .join(name);
    let source = Source::from_path(&path).unwrap();
    ShiftFormat
        .read(&source, &Options::default())
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

fn assert_vec(actual: &Vector3<f64>, expected: [f64; 3], what: &str) {
    assert!(
        (actual - Vector3::from(expected)).norm() < 1e-12,
        "{what}: {actual:?} != {expected:?}"
    );
}

fn restraint<'m>(model: &'m Model, name: &str) -> &'m Restraint {
    let element = model.force_elements.iter().find(|e| e.name == name).unwrap();
    let ForceKind::Restraint(r) = &element.kind else {
        panic!("{name} is not a restraint")
    };
    r
}

fn round_trips(model: &Model, name: &str) {
    for dialect in ["spec", "2.0"] {
        let mut options = Options::default();
        options.set("dialect", dialect);
        // Reading the written text gives the lowered model back exactly; lowering changes
        // nothing Shift can already say (only a skewed axis in the spec dialect here).
        let lowered = ShiftFormat.lower(model, &options).unwrap().model;
        if !(name == "v2_joints.json" && dialect == "spec") {
            assert_eq!(&lowered, model, "{name} ({dialect}): lowering changed the model");
        }
        let written = ShiftFormat.emit(&lowered, &options).unwrap();
        assert!(!written.report.has_loss());
        let mut again = read_str(name, &written.text).unwrap().model;
        again.name.clone_from(&model.name);
        assert_eq!(
            again, lowered,
            "{name} ({dialect}): read -> write -> read changed the IR"
        );
        let rewritten = ShiftFormat.write(&again, &options).unwrap();
        assert_eq!(rewritten.text, written.text, "{name} ({dialect}): bytes changed");
    }
}

#[test]
fn spec_joints_place_bodies_by_hand_computed_poses() {
    let imported = read("spec_joints.json");
    let m = &imported.model;
    let pose = |name: &str| m.body(name).unwrap().pose;
    // a hangs from the fixed frame `pivot` at (0, 0, 1); b from a's `tip` (1, 0, 0).
    assert_vec(&pose("a").translation, [0.0, 0.0, 1.0], "a");
    assert_vec(&pose("b").translation, [1.0, 0.0, 1.0], "b");
    // rigid j3: X_b_c = offset · mount⁻¹ = (Rz90, (0,0,2)) · (Rz-90, (0,0,-0.5)) = (I, (0,0,1.5)).
    assert_vec(&pose("c").translation, [1.0, 0.0, 2.5], "c");
    assert!(pose("c").rotation.angle() < 1e-12);
    // Rows [[0,-1,0],[1,0,0],[0,0,1]]: the columns are the frame axes, so x maps to y (Rz +90°).
    let mount = m.body("c").unwrap().frame("mount").unwrap().pose;
    assert_vec(&(mount.rotation * Vector3::x()), [0.0, 1.0, 0.0], "mount x axis");
    // float j4: q0 = [T, rotation vector of Rx(90°)], v0 = [v, ω].
    let j4 = m.joint("j4").unwrap();
    assert_eq!(j4.kind, JointKind::Free);
    let expected = [1.0, 2.0, 3.0, FRAC_PI_2, 0.0, 0.0];
    assert!(
        j4.q0.iter().zip(expected).all(|(a, b)| close(*a, b)),
        "{:?}",
        j4.q0
    );
    assert_eq!(j4.v0, vec![1.0, 0.0, 0.0, 0.0, 0.0, 0.5]);
    assert_eq!(
        m.joint("j1").unwrap().kind,
        JointKind::Revolute { axis: Vector3::x() }
    );
    assert_eq!(
        m.joint("j2").unwrap().kind,
        JointKind::Prismatic { axis: Vector3::y() }
    );
    assert_eq!(
        (m.joint("j2").unwrap().q0[0], m.joint("j2").unwrap().v0[0]),
        (0.25, -1.0)
    );
    assert!(!m.joint("j6").unwrap().enabled);
    // Products of inertia are tensor entries: Ixy -> I[0][1], Izx -> I[2][0].
    let inertia = m.body("a").unwrap().inertial.inertia.0;
    assert_eq!(
        (inertia[0][1], inertia[2][0], inertia[0][2]),
        (0.001, 0.002, 0.002)
    );
    // Initial configuration: b = pivot + Rx(0.3)·((1,0,0) + (0,0.25,0)).
    let tree = SpanningTree::new(m);
    let initial = world_poses(m, &tree, Configuration::Initial);
    let b = m.body_index("b").unwrap();
    assert_vec(
        &initial[b].translation,
        [1.0, 0.25 * 0.3f64.cos(), 1.0 + 0.25 * 0.3f64.sin()],
        "b initially",
    );
    let d = m.body_index("d").unwrap();
    assert_vec(&initial[d].translation, [1.0, 2.0, 3.0], "d initially");
    assert_vec(
        &(initial[d].rotation * Vector3::y()),
        [0.0, 0.0, 1.0],
        "d's y axis initially",
    );
    round_trips(m, "spec_joints.json");
}

#[test]
fn published_dialect_joints_read_axes_paths_and_comments() {
    let imported = read("v2_joints.json");
    let m = &imported.model;
    assert!(imported.report.contains("shift.not_strict_json"));
    assert_eq!(
        m.joint("shoulder").unwrap().kind,
        JointKind::Revolute {
            axis: Vector3::new(0.0, 2.0, 0.0)
        }
    );
    assert_eq!(
        m.joint("extend").unwrap().kind,
        JointKind::Prismatic { axis: Vector3::z() }
    );
    let wrist = m.joint("wrist").unwrap();
    assert_eq!(wrist.kind, JointKind::Spherical);
    assert!(
        close(wrist.q0[2], FRAC_PI_2) && close(wrist.q0[0], 0.0),
        "{:?}",
        wrist.q0
    );
    assert_eq!(m.simulation.time_step, Some(0.01));
    assert_vec(
        &m.body("slider").unwrap().pose.translation,
        [0.0, 0.0, 0.0],
        "slider",
    );
    assert_eq!(m.body("upper").unwrap().inertial.mass, 2.0);
    round_trips(m, "v2_joints.json");
}

#[test]
fn restraints_evaluate_to_hand_computed_values() {
    let imported = read("restraints.json");
    let m = &imported.model;
    // The documentation's example: [[2, 0.5, 0], [0]] with knot 0 is 2φ² + 0.5φ for φ < 0.
    let bump = restraint(m, "bump");
    assert_eq!(bump.restraint_type, RestraintType::Spring);
    assert_eq!(bump.function.pieces, vec![vec![0.0, 0.5, 2.0], vec![0.0]]);
    assert_eq!(bump.function.value(-1.0), 1.5);
    assert_eq!(bump.function.value(-0.5), 0.25);
    assert_eq!(bump.function.value(1.0), 0.0);
    assert_eq!(
        bump.target,
        RestraintTarget::Joint {
            joint: "rail".into(),
            dof: 0
        }
    );
    // A damper in the assembly names its joint without a path: 3·v.
    let drag = restraint(m, "drag");
    assert_eq!(
        (drag.restraint_type, drag.function.value(2.0)),
        (RestraintType::Damper, 6.0)
    );
    // Friction: -1 below -0.01, 100·v between, +1 above. The root-level restraint names
    // `axle` without a path: the only joint of that name in the model.
    let brake = restraint(m, "brake");
    assert_eq!(
        brake.target,
        RestraintTarget::Joint {
            joint: "axle".into(),
            dof: 0
        }
    );
    assert_eq!(brake.restraint_type, RestraintType::Friction);
    assert_eq!(
        (
            brake.function.value(-1.0),
            brake.function.value(0.005),
            brake.function.value(1.0)
        ),
        (-1.0, 0.5, 1.0)
    );
    // Frame pair along the first frame's z: 1000·d − 50, so 50 N at d = 0.1.
    let strut = restraint(m, "strut");
    let RestraintTarget::FramePair {
        body2,
        frame2,
        distance,
        ..
    } = &strut.target
    else {
        panic!()
    };
    assert_eq!(
        (body2, frame2.as_str(), *distance),
        (&BodyRef::body("slider"), "top", DistanceType::Z)
    );
    assert!(close(strut.function.value(0.1), 50.0));
    // Joint arrays are ascending: stiffness [-1000, 10000] is -1000 + 10000·q (1000 N at 0.2).
    let stiffness = restraint(m, "track.stiffness");
    assert!(close(stiffness.function.value(0.2), 1000.0));
    assert_eq!(restraint(m, "track.damping").function.value(0.5), 1000.0);
    round_trips(m, "restraints.json");
}

#[test]
fn nested_assemblies_resolve_paths_and_switch_bodies_off() {
    let imported = read("assemblies.json");
    let m = &imported.model;
    let names: Vec<&str> = m.bodies.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(
        names,
        ["floor", "factory:cell1:link", "factory:cell2:link", "crate"]
    );
    let groups: Vec<(&str, Option<&str>, bool)> = m
        .groups
        .iter()
        .map(|g| (g.name.as_str(), g.parent.as_deref(), g.enabled))
        .collect();
    assert_eq!(
        groups,
        [
            ("factory", None, true),
            ("factory:cell1", Some("factory"), true),
            ("factory:cell2", Some("factory"), false),
            ("spare", None, true)
        ]
    );
    // cell1's hinge finds `floor` in the enclosing assembly; cell2's names it by path.
    let joints: Vec<(&str, &BodyRef, &BodyRef)> = m
        .joints
        .iter()
        .map(|j| (j.name.as_str(), &j.parent, &j.child))
        .collect();
    assert_eq!(
        joints[1],
        (
            "hinge",
            &BodyRef::body("floor"),
            &BodyRef::body("factory:cell1:link")
        )
    );
    assert_eq!(
        joints[2],
        (
            "factory/cell2/hinge",
            &BodyRef::body("floor"),
            &BodyRef::body("factory:cell2:link")
        )
    );
    assert_eq!(imported.report.renames.len(), 3);
    assert_eq!(m.active_bodies(), vec![true, true, false, false]);
    // The rigid offset lifts the floor to z = 1; the first link sits on it.
    assert_vec(&m.bodies[0].pose.translation, [0.0, 0.0, 1.0], "floor");
    assert_vec(&m.bodies[1].pose.translation, [0.0, 0.0, 1.0], "cell1 link");
    // The switched-off assembly's link is still placed by its joint (at the floor's `spot`).
    assert_vec(&m.bodies[2].pose.translation, [2.0, 0.0, 1.0], "cell2 link");
    round_trips(m, "assemblies.json");
}

#[test]
fn a_closed_loop_with_fixed_as_child_is_cut_and_closes() {
    let imported = read("loop.json");
    let m = &imported.model;
    let tree = SpanningTree::new(m);
    let index = |n: &str| m.joint_index(n).unwrap();
    // Breadth first from `fixed`: A carries the crank, D (whose child is `fixed`) the rocker,
    // reversed; B the coupler; C closes the loop.
    assert_eq!(
        tree.attachments[m.body_index("rocker").unwrap()],
        Attachment::Joint {
            joint: index("D"),
            parent: None,
            reversed: true
        }
    );
    assert_eq!(tree.loop_joints, vec![index("C")]);
    // The loop closes in the reference configuration: both frames of C at (0, 1, 1).
    let poses = world_poses(m, &tree, Configuration::Reference);
    let c = m.joint("C").unwrap();
    let coupler = poses[m.body_index("coupler").unwrap()] * c.parent_frame;
    let rocker = poses[m.body_index("rocker").unwrap()] * c.child_frame;
    assert_vec(&coupler.translation, [0.0, 1.0, 1.0], "C on the coupler");
    assert_vec(&rocker.translation, [0.0, 1.0, 1.0], "C on the rocker");
    round_trips(m, "loop.json");
}

/// The world poses of the parent-side and child-side frames of joint `name` in the
/// reference configuration.
fn frames_of(m: &Model, name: &str) -> (mbconv_ir::Pose, mbconv_ir::Pose) {
    let tree = SpanningTree::new(m);
    let poses = world_poses(m, &tree, Configuration::Reference);
    let j = m.joint(name).unwrap();
    let at = |r: &BodyRef| match r {
        BodyRef::World => mbconv_ir::Pose::identity(),
        BodyRef::Body(n) => poses[m.body_index(n).unwrap()],
    };
    (at(&j.parent) * j.parent_frame, at(&j.child) * j.child_frame)
}

#[test]
fn a_loop_through_a_rigid_offset_closes_under_the_child_in_parent_reading() {
    let imported = read("offset_loop.json");
    let m = &imported.model;
    let tree = SpanningTree::new(m);
    // Breadth first from `fixed`: A (arm), D (rocker), W (plate), C (coupler, reversed);
    // B closes the loop.
    assert_eq!(tree.loop_joints, vec![m.joint_index("B").unwrap()]);
    // W's {R, T} is the plate's frame in arm.tip: p_tip = Rz(90°)·p_plate + (0, 0.5, 0), so
    // the plate sits at tip + T = (0, 0.5, 1) with its x axis along world y.
    let pose = |name: &str| m.body(name).unwrap().pose;
    assert_vec(&pose("plate").translation, [0.0, 0.5, 1.0], "plate");
    assert_vec(
        &(pose("plate").rotation * Vector3::x()),
        [0.0, 1.0, 0.0],
        "plate x axis",
    );
    assert_vec(&pose("coupler").translation, [0.0, 1.0, 1.0], "coupler");
    assert_vec(&pose("rocker").translation, [0.0, 2.0, 0.0], "rocker");
    // hook = plate + Rz(90°)·(0.5, 0, 0) = (0, 1, 1); its rows [[0,1,0],[-1,0,0],[0,0,1]]
    // (columns: the hook's axes in plate coordinates) undo the plate's turn, so B's axis is
    // world x on both sides and the loop closes exactly, position and orientation.
    let (on_plate, on_coupler) = frames_of(m, "B");
    assert_vec(&on_plate.translation, [0.0, 1.0, 1.0], "B on the plate");
    assert_vec(&on_coupler.translation, [0.0, 1.0, 1.0], "B on the coupler");
    assert!(on_plate.rotation.angle() < 1e-12 && on_coupler.rotation.angle() < 1e-12);
    // The other reading, {R, T} as arm.tip in the plate frame: the plate would sit at
    // tip − Rz(−90°)·T = (−0.5, 0, 1) turned by −90°, the hook at (−0.5, −0.5, 1), and the
    // loop would stay open by |(−0.5, −1.5, 0)| = √2.5 m.
    let mut other = m.clone();
    let w = other.joints.iter_mut().find(|j| j.name == "W").unwrap();
    let tip = mbconv_ir::Pose::from_translation(Vector3::new(0.0, 0.0, 1.0));
    let offset = tip.inverse() * w.parent_frame;
    assert_vec(&offset.translation, [0.0, 0.5, 0.0], "W's T");
    w.parent_frame = tip * offset.inverse();
    let (hook, on_coupler) = frames_of(&other, "B");
    assert_vec(
        &hook.translation,
        [-0.5, -0.5, 1.0],
        "hook under the other reading",
    );
    assert!(close(
        (hook.translation - on_coupler.translation).norm(),
        2.5f64.sqrt()
    ));
    // The loop closes as written: no `loop_gap` note.
    assert!(
        imported
            .report
            .findings
            .iter()
            .all(|f| f.code != "shift.loop_gap")
    );
    round_trips(m, "offset_loop.json");
}

/// Reads `text` as the file `name` through the format's public surface.
fn read_str(name: &str, text: &str) -> Result<mbconv_ir::format::Imported, mbconv_ir::format::FormatError> {
    use mbconv_ir::format::{Format, Options, Source};
    mbconv_shift::ShiftFormat.read(&Source::from_string(name, text), &Options::default())
}
