//! The SDFormat writer: what it writes reads back as the lowered model (and again after a
//! second write), the same input gives the same bytes, and the settings (version, pose layout)
//! do what they say.
#![allow(clippy::unwrap_used)]

use mbconv_ir::format::{Format, Options, Source};
use mbconv_ir::{Body, BodyRef, Geometry, Joint, JointKind, Model, Pose, Shape, ShapeRole};
use mbconv_sdf::SdfFormat;
use nalgebra::{UnitQuaternion, Vector3};
use std::path::PathBuf;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/sdf")
}

fn read_options() -> Options {
    let mut options = Options::default();
    options.set("model_path", fixtures().join("models").display().to_string());
    options
}

fn read_text(name: &str, text: &str) -> Model {
    SdfFormat
        .read(&Source::from_string(name, text), &read_options())
        .unwrap_or_else(|e| panic!("{name}: {e}\n{text}"))
        .model
}

fn write(model: &Model, options: &Options) -> String {
    SdfFormat.write(model, options).unwrap().text
}

/// Every body of `a` has a body of `b` with its name, pose and mass (to `tol`).
fn same_bodies(a: &Model, b: &Model, tol: f64) -> Result<(), String> {
    if a.bodies.len() != b.bodies.len() {
        return Err(format!("{} bodies, then {}", a.bodies.len(), b.bodies.len()));
    }
    for body in &a.bodies {
        let other = b
            .body(&body.name)
            .ok_or_else(|| format!("no body {:?}", body.name))?;
        let d = body.pose.distance(&other.pose);
        if d > tol || (body.inertial.mass - other.inertial.mass).abs() > tol {
            return Err(format!("{:?}: pose off by {d}", body.name));
        }
    }
    Ok(())
}

#[test]
fn every_fixture_reads_back_as_lowered_in_both_layouts() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(fixtures())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "sdf" || e == "world"))
        .collect();
    files.sort();
    assert!(files.len() >= 7);
    for layout in ["parent", "model"] {
        let mut options = Options::default();
        options.set("poses", layout);
        for path in &files {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let source = Source::from_path(path).unwrap();
            let model = SdfFormat.read(&source, &read_options()).unwrap().model;
            let lowered = SdfFormat.lower(&model, &options).unwrap().model;
            let first = write(&model, &options);
            let back = read_text(&name, &first);
            same_bodies(&lowered, &back, 1e-12).unwrap_or_else(|e| panic!("{name} ({layout}): {e}\n{first}"));
            assert_eq!(lowered.joints.len(), back.joints.len(), "{name}");
            // Written again, it reads the same (the poses the lowering recomputes from the joint
            // frames may move in their last bits, so the text is not compared).
            let second = write(&back, &options);
            same_bodies(&back, &read_text(&name, &second), 1e-12)
                .unwrap_or_else(|e| panic!("{name} ({layout}), written again: {e}\n{second}"));
            // Same input, same bytes.
            assert_eq!(first, write(&model, &options), "{name} ({layout})");
        }
    }
}

fn pendulum() -> Model {
    let mut model = Model::new("pendulum");
    let mut bob = Body::new("bob");
    bob.pose = Pose::new(
        Vector3::new(0.0, 0.0, -1.0),
        UnitQuaternion::from_euler_angles(0.1, 0.2, 0.3),
    );
    model.bodies.push(bob);
    let mut arm = Body::new("arm");
    arm.pose = Pose::from_translation(Vector3::new(0.0, 0.0, -2.0));
    model.bodies.push(arm);
    let hinge = JointKind::Revolute { axis: Vector3::y() };
    let mut pivot = Joint::new("pivot", hinge.clone(), BodyRef::World, BodyRef::body("bob"));
    pivot.child_frame = model.bodies[0].pose.inverse();
    model.joints.push(pivot);
    let mut elbow = Joint::new("elbow", hinge, BodyRef::body("bob"), BodyRef::body("arm"));
    elbow.parent_frame = model.bodies[0].pose.inverse() * model.bodies[1].pose;
    model.joints.push(elbow);
    model
}

#[test]
fn bodies_of_other_formats_become_links_of_one_model_with_renames() {
    let lowered = SdfFormat.lower(&pendulum(), &Options::default()).unwrap();
    let names: Vec<&str> = lowered.model.bodies.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["pendulum::bob", "pendulum::arm"]);
    assert!(
        lowered
            .report
            .renames
            .iter()
            .any(|r| r.from == "bob" && r.to == "pendulum::bob")
    );
    let text = write(&pendulum(), &Options::default());
    assert!(text.contains("<world name=\"pendulum\">"), "{text}");
    assert!(text.contains("<model name=\"pendulum\">"), "{text}");
    assert!(text.contains("<gravity>0 0 -9.81</gravity>"), "{text}");
}

#[test]
fn link_poses_are_relative_to_the_parent_link_or_the_model() {
    let parent = write(&pendulum(), &Options::default());
    assert!(parent.contains("<pose relative_to=\"bob\">"), "{parent}");
    let mut options = Options::default();
    options.set("poses", "model");
    let model = write(&pendulum(), &options);
    assert!(!model.contains("relative_to"), "{model}");
    same_bodies(&read_text("a.sdf", &parent), &read_text("b.sdf", &model), 1e-12).unwrap();
}

#[test]
fn the_version_decides_screw_pitch_and_cones() {
    let mut model = Model::new("m");
    model.bodies.push(Body::new("nut"));
    let mut bolt = Body::new("bolt");
    bolt.shapes.push(Shape::new(
        ShapeRole::Visual,
        Geometry::Cone {
            radius: 0.1,
            length: 0.2,
        },
    ));
    model.bodies.push(bolt);
    let screw = JointKind::Screw {
        axis: Vector3::z(),
        pitch: 0.25,
    };
    model.joints.push(Joint::new(
        "thread",
        screw,
        BodyRef::body("nut"),
        BodyRef::body("bolt"),
    ));
    let old = SdfFormat.write(&model, &Options::default()).unwrap();
    assert!(old.text.contains("<sdf version=\"1.9\">"));
    assert!(old.text.contains("<thread_pitch>"), "{}", old.text);
    assert!(!old.text.contains("<cone>"));
    assert!(old.report.contains("sdf.shape_lost"));
    let mut options = Options::default();
    options.set("version", "1.11");
    let new = SdfFormat.write(&model, &options).unwrap();
    assert!(
        new.text.contains("<screw_thread_pitch>0.25</screw_thread_pitch>"),
        "{}",
        new.text
    );
    assert!(new.text.contains("<cone>"));
    for text in [&old.text, &new.text] {
        let back = read_text("screw.sdf", text);
        match back.joint("m::thread").unwrap().kind {
            JointKind::Screw { pitch, .. } => assert!((pitch - 0.25).abs() < 1e-15, "{pitch}"),
            ref other => panic!("{other:?}"),
        }
    }
}

#[test]
fn a_loop_is_written_as_a_joint_whose_child_has_a_parent() {
    let source = Source::from_path(&fixtures().join("four_bar.sdf")).unwrap();
    let model = SdfFormat.read(&source, &Options::default()).unwrap().model;
    let written = SdfFormat.write(&model, &Options::default()).unwrap();
    assert!(written.report.contains("sdf.loop_as_joint"));
    let back = read_text("four_bar.sdf", &written.text);
    assert_eq!(back.joints.len(), model.joints.len());
}

#[test]
fn fixed_bodies_make_a_static_model_or_a_weld() {
    let mut model = Model::new("m");
    let mut ground = Body::new("ground::floor");
    ground.fixed = true;
    model.bodies.push(ground);
    let mut post = Body::new("robot::post");
    post.fixed = true;
    model.bodies.push(post);
    model.bodies.push(Body::new("robot::bob"));
    let written = SdfFormat.write(&model, &Options::default()).unwrap();
    assert!(written.text.contains("<static>true</static>"), "{}", written.text);
    assert!(written.report.contains("sdf.fixed_body_welded"));
    let back = read_text("m.sdf", &written.text);
    assert!(back.body("ground::floor").unwrap().fixed);
    let weld = back.joint("robot::post_weld").unwrap();
    assert_eq!(
        (weld.kind.clone(), weld.parent.clone()),
        (JointKind::Fixed, BodyRef::World)
    );
}

/// A lone model's nested models joined by moving joints (`fixtures/sdf/nested_models_joined.sdf`:
/// the reader names their links `jamb::post`, `door::leaf`, leaving the lone model's name out)
/// stay nested in a model named after it, the joints in that model: as world joints, Drake
/// refuses them ("Only fixed joints are permitted in world joints").
#[test]
fn moving_joints_between_nested_models_are_written_in_a_model_not_the_world() {
    let source = Source::from_path(&fixtures().join("nested_models_joined.sdf")).unwrap();
    let model = SdfFormat.read(&source, &read_options()).unwrap().model;
    assert_eq!(model.joint("hinge").unwrap().parent, BodyRef::body("jamb::post"));
    let written = SdfFormat.write(&model, &Options::default()).unwrap();
    let back = read_text("doorway.sdf", &written.text);
    for (from, to) in [("hinge", "doorway::hinge"), ("slide", "doorway::slide")] {
        let (a, b) = (
            model.joint(from).unwrap(),
            back.joint(to)
                .unwrap_or_else(|| panic!("no {to}\n{}", written.text)),
        );
        assert_eq!(a.kind.type_name(), b.kind.type_name(), "{to}");
        assert_eq!(a.dof(0).position_limits, b.dof(0).position_limits, "{to}");
        let axis = |m: &Model, j: &Joint| {
            let parent = m.body(j.parent.name().unwrap()).unwrap().pose;
            (parent * j.parent_frame).rotation * j.kind.axes()[0].1
        };
        assert!((axis(&model, a) - axis(&back, b)).norm() < 1e-12, "{to}");
    }
    for (from, to) in [
        ("jamb::post", "doorway::jamb::post"),
        ("door::leaf", "doorway::door::leaf"),
    ] {
        assert!(
            written
                .report
                .renames
                .iter()
                .any(|r| r.from == from && r.to == to),
            "{from}"
        );
        let d = model
            .body(from)
            .unwrap()
            .pose
            .distance(&back.body(to).unwrap().pose);
        assert!(d < 1e-12, "{from}: {d}");
    }
    // The static jamb, now in a model that moves, is welded to the world.
    let weld = back.joint("doorway::jamb::post_weld").unwrap();
    assert_eq!(
        (&weld.kind, &weld.parent, &weld.child),
        (
            &JointKind::Fixed,
            &BodyRef::World,
            &BodyRef::body("doorway::jamb::post")
        )
    );
    // A joint of a nested model keeps its name there.
    assert!(back.joint("doorway::door::turn").is_some(), "{}", written.text);
    // No joint of the world moves: every joint read back is in the model `doorway`.
    assert!(
        back.joints.iter().all(|j| j.name.starts_with("doorway::")),
        "{}",
        written.text
    );
}

#[test]
fn reserved_and_repeated_names_are_renamed() {
    let mut model = Model::new("m");
    model.bodies.push(Body::new("world"));
    model.bodies.push(Body::new("arm"));
    model.bodies.push(Body::new("arm::tip"));
    let kind = JointKind::Revolute { axis: Vector3::x() };
    model.joints.push(Joint::new(
        "arm",
        kind,
        BodyRef::body("world"),
        BodyRef::body("arm"),
    ));
    let written = SdfFormat.write(&model, &Options::default()).unwrap();
    let back = read_text("m.sdf", &written.text);
    let mut names: Vec<&str> = back.bodies.iter().map(|b| b.name.as_str()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        ["m::arm::tip", "m::arm_link", "m::name_world"],
        "{}",
        written.text
    );
    assert_eq!(back.joints[0].name, "m::arm_joint");
}

/// A ball joint closing a loop whose two frames meet but are turned against each other moves
/// nothing (the turn only shifts its coordinates' zero); a hinge closing the same loop is
/// reported moved.
#[test]
fn only_a_loop_whose_constraint_changes_is_reported_moved() {
    let model_with = |kind: JointKind| {
        let mut model = Model::new("m");
        for name in ["a", "b", "c"] {
            model.bodies.push(Body::new(name));
        }
        let hinge = JointKind::Revolute { axis: Vector3::z() };
        for (name, parent, child) in [
            ("j1", BodyRef::World, "a"),
            ("j2", BodyRef::body("a"), "b"),
            ("j3", BodyRef::body("a"), "c"),
        ] {
            model
                .joints
                .push(Joint::new(name, hinge.clone(), parent, BodyRef::body(child)));
        }
        let mut closing = Joint::new("close", kind, BodyRef::body("b"), BodyRef::body("c"));
        closing.parent_frame = Pose::from_rotation(UnitQuaternion::from_euler_angles(0.0, 0.0, 0.7));
        model.joints.push(closing);
        model
    };
    let ball = SdfFormat
        .lower(&model_with(JointKind::Spherical), &Options::default())
        .unwrap();
    assert!(ball.report.contains("sdf.loop_as_joint"));
    assert!(!ball.report.contains("sdf.loop_frame_moved"));
    let hinge = JointKind::Revolute { axis: Vector3::x() };
    let turned = SdfFormat.lower(&model_with(hinge), &Options::default()).unwrap();
    assert!(turned.report.contains("sdf.loop_frame_moved"));
}

/// A free joint from the world is no joint in SDFormat (its link floats, exactly), but what it
/// carried (damping, an actuator) goes with it and is reported lost.
#[test]
fn a_free_joint_is_dropped_and_what_it_carried_is_reported() {
    let mut model = Model::new("m");
    model.bodies.push(Body::new("puck"));
    let plain = Joint::new("float", JointKind::Free, BodyRef::World, BodyRef::body("puck"));
    model.joints.push(plain.clone());
    let lowered = SdfFormat.lower(&model, &Options::default()).unwrap();
    assert!(lowered.model.joints.is_empty());
    assert!(lowered.report.contains("sdf.free_joint_implicit"));
    assert!(!lowered.report.contains("sdf.free_joint_data_lost"));
    let mut damped = plain;
    damped.dofs = vec![
        mbconv_ir::DofProperties {
            damping: 0.5,
            ..Default::default()
        };
        6
    ];
    model.joints[0] = damped;
    let lowered = SdfFormat.lower(&model, &Options::default()).unwrap();
    assert!(lowered.report.contains("sdf.free_joint_data_lost"));
}

/// Principal moments as gz-math's `MassMatrix3::ValidMoments` judges them, with a stricter
/// tolerance than its ten ε: every moment and every pairwise sum above the third.
fn strictly_physical(inertia: &mbconv_ir::Inertia) -> bool {
    let [a, b, c] = mbconv_ir::validate::principal_moments(&inertia.matrix()).unwrap();
    a > 0.0 && a + b > c * (1.0 + 1e-12)
}

#[test]
fn an_inertia_libsdformat_refuses_is_moved_just_inside_the_triangle_inequality() {
    let mut model = pendulum();
    let turned = UnitQuaternion::from_euler_angles(0.4, -0.2, 0.9);
    // Broken: 1 + 1 < 3 (DART's joint_revolute.skel has such a link), about turned axes.
    model.bodies[0].inertial.inertia = mbconv_ir::Inertia::from_matrix(
        &(turned.to_rotation_matrix().matrix()
            * nalgebra::Matrix3::from_diagonal(&Vector3::new(1.0, 1.0, 3.0))
            * turned.to_rotation_matrix().matrix().transpose()),
    );
    // On the edge: a thin plate, 1 + 2 = 3.
    model.bodies[1].inertial.inertia = mbconv_ir::Inertia::from_moments_products([1.0, 2.0, 3.0], [0.0; 3]);
    let lowered = SdfFormat.lower(&model, &Options::default()).unwrap();
    let broken = &lowered.model.bodies[0].inertial.inertia;
    let plate = &lowered.model.bodies[1].inertial.inertia;
    assert!(strictly_physical(broken) && strictly_physical(plate));
    // The nearest physical moments (4/3, 4/3, 8/3) plus the nudge, about the same axes.
    let [a, b, c] = mbconv_ir::validate::principal_moments(&broken.matrix()).unwrap();
    let nudge = 5.0 * 1e-9;
    for (got, want) in [
        (a, 4.0 / 3.0 + nudge),
        (b, 4.0 / 3.0 + nudge),
        (c, 8.0 / 3.0 + nudge),
    ] {
        assert!((got - want).abs() < 1e-12, "{got} != {want}");
    }
    let axis = turned * Vector3::z();
    let about_axis = axis.dot(&(broken.matrix() * axis));
    assert!(
        (about_axis - c).abs() < 1e-12,
        "the largest moment stays about the same axis"
    );
    assert_eq!(plate.products(), [0.0; 3], "a nudge keeps the axes");
    assert_eq!(plate.moments(), [1.0, 2.0, 3.0].map(|m| m + 6.0 * 1e-9));
    let codes: Vec<&str> = lowered.report.findings.iter().map(|f| f.code.as_str()).collect();
    assert!(codes.contains(&"sdf.inertia_made_physical"), "{codes:?}");
    assert!(codes.contains(&"sdf.inertia_nudged"), "{codes:?}");
    // A body well inside is written as it is.
    let lowered = SdfFormat.lower(&pendulum(), &Options::default()).unwrap();
    assert!(!lowered.report.contains("sdf.inertia_made_physical"));
    assert!(!lowered.report.contains("sdf.inertia_nudged"));
}

#[test]
fn a_negative_principal_moment_is_made_physical_with_its_size() {
    // romeo_laas_small's hip: moments -2.7e-3, 3.95e-2, 5.4e-2 (Drake would read a sphere of
    // water instead): moved onto the triangle inequality, which a negative moment breaks.
    let mut model = pendulum();
    model.bodies[0].inertial.inertia =
        mbconv_ir::Inertia::from_moments_products([-2.7e-3, 3.95e-2, 5.4e-2], [0.0; 3]);
    // Well below zero: the mean moment about every axis.
    model.bodies[1].inertial.inertia = mbconv_ir::Inertia::from_moments_products([-1.0, 1.0, 3.0], [0.0; 3]);
    let lowered = SdfFormat.lower(&model, &Options::default()).unwrap();
    for b in 0..2 {
        assert!(
            strictly_physical(&lowered.model.bodies[b].inertial.inertia),
            "{b}"
        );
    }
    let made: Vec<_> = lowered
        .report
        .findings
        .iter()
        .filter(|f| f.code == "sdf.inertia_made_physical")
        .collect();
    assert_eq!(made.len(), 2, "{made:?}");
    assert!(
        made[0].message.contains("hold a negative one"),
        "{}",
        made[0].message
    );
    assert!(made[0].message.contains("kg m² or"), "{}", made[0].message);
}

#[test]
fn a_rank_one_inertia_is_made_physical_too() {
    // HyQ's feet and DART's force_torque_test2 links: every entry equal, principal moments
    // (0, 0, 3x) with the zeros off by rounding.
    let mut model = pendulum();
    model.bodies[0].inertial.inertia = mbconv_ir::Inertia([[1e-6; 3]; 3]);
    let lowered = SdfFormat.lower(&model, &Options::default()).unwrap();
    assert!(strictly_physical(&lowered.model.bodies[0].inertial.inertia));
    assert!(lowered.report.contains("sdf.inertia_made_physical"));
}

#[test]
fn a_zero_mass_under_an_inertia_is_written_as_a_mass_drake_keeps_and_read_as_drake_reads_it() {
    // example-robot-data's Bolt feet: mass 0, inertia 5.7e-7, 8.4e-7, 5.3e-7. Drake reads such a
    // link as a 1 kg sphere of water, which moved the robot 0.45 m in a second.
    let mut model = pendulum();
    model.bodies[1].inertial.mass = 0.0;
    model.bodies[1].inertial.inertia =
        mbconv_ir::Inertia::from_moments_products([5.7e-7, 8.4e-7, 5.3e-7], [0.0; 3]);
    let written = SdfFormat.write(&model, &Options::default()).unwrap();
    assert!(written.text.contains("<mass>1e-30</mass>"), "{}", written.text);
    let lowered = SdfFormat.lower(&model, &Options::default()).unwrap();
    let finding = lowered
        .report
        .findings
        .iter()
        .find(|f| f.code == "sdf.zero_mass_given")
        .expect("a finding");
    assert!(finding.message.contains("1e-30 kg"), "{}", finding.message);
    assert_eq!(finding.category, mbconv_ir::Category::Approximated);
    // Read back, the mass is what was written.
    let back = read_text("back.sdf", &written.text);
    assert_eq!(back.body("pendulum::arm").unwrap().inertial.mass, 1e-30);
    // A massless link without inertia is not given that mass (Drake reads it massless); moved
    // by a joint with nothing outboard, Drake cannot simulate it: the mass floor instead.
    model.bodies[1].inertial.inertia = mbconv_ir::Inertia::zero();
    let lowered = SdfFormat.lower(&model, &Options::default()).unwrap();
    assert!(!lowered.report.contains("sdf.zero_mass_given"));
    assert!(lowered.report.contains("sdf.moving_body_mass_floor"));
    assert_eq!(lowered.model.bodies[1].inertial.mass, 1e-10);
    // A file that says mass 0 under an inertia is read as Drake reads it: its plausible sphere.
    let text = written.text.replace("<mass>1e-30</mass>", "<mass>0</mass>");
    let imported = SdfFormat
        .read(&Source::from_string("zero.sdf", &text), &read_options())
        .unwrap();
    let arm = imported.model.body("pendulum::arm").unwrap();
    assert!((arm.inertial.mass - 1.0).abs() < 1e-12);
    assert!((arm.inertial.inertia.moments()[0] - 0.00153934).abs() < 1e-8);
    assert!(imported.report.contains("sdf.zero_mass_inertia"));
}

#[test]
fn a_world_gravity_drake_ignores_is_said() {
    let mut model = pendulum();
    model.simulation.gravity = Some(Vector3::new(0.0, 0.0, -1.62));
    let lowered = SdfFormat.lower(&model, &Options::default()).unwrap();
    let finding = lowered
        .report
        .findings
        .iter()
        .find(|f| f.code == "sdf.gravity_ignored_by_drake")
        .expect("a finding");
    assert!(finding.message.contains("8.19"), "{}", finding.message);
    // Drake's own gravity, or none stated (written as Drake's): nothing to say.
    for gravity in [Some(Vector3::new(0.0, 0.0, -9.81)), None] {
        model.simulation.gravity = gravity;
        let lowered = SdfFormat.lower(&model, &Options::default()).unwrap();
        assert!(!lowered.report.contains("sdf.gravity_ignored_by_drake"));
    }
}

/// The model of `fixtures/urdf/welded_inertia/fingertip.urdf`, read by mbconv's URDF reader.
fn fingertip() -> Model {
    let path = mbconv_test_support::fixtures_root().join("urdf/welded_inertia/fingertip.urdf");
    let registry = mbconv::formats();
    let source = Source::from_path(&path).unwrap();
    let urdf = registry.get("urdf").unwrap();
    registry.read(urdf, &source, &Options::default()).unwrap().model
}

#[test]
fn a_finger_made_physical_by_its_welded_tip_carries_the_tip_and_the_tip_is_written_massless() {
    // Wonik's Allegro hand: each finger link's own inertia breaks the triangle inequality, the
    // finger with its fixed tip does not. The composite goes on the finger (exactly: one rigid
    // body), the tip is written with mass 0 and a zero inertia, which libsdformat and Drake
    // read as massless (no <inertial> at all would be 1 kg).
    let model = fingertip();
    let lowered = SdfFormat.lower(&model, &Options::default()).unwrap();
    let body = |name: &str| {
        lowered
            .model
            .bodies
            .iter()
            .find(|b| b.name == format!("fingertip::{name}"))
            .unwrap()
    };
    assert!((body("finger").inertial.mass - 0.09).abs() < 1e-15);
    assert!(strictly_physical(&body("finger").inertial.inertia));
    assert_eq!(body("tip").inertial.mass, 0.0);
    assert_eq!(body("tip").inertial.inertia.matrix(), nalgebra::Matrix3::zeros());
    let lumped: Vec<_> = lowered
        .report
        .findings
        .iter()
        .filter(|f| f.code == "sdf.inertia_lumped")
        .collect();
    assert_eq!(lumped.len(), 1, "{lumped:?}");
    assert_eq!(lumped[0].path.as_deref(), Some("bodies[\"fingertip::finger\"]"));
    assert!(!lowered.report.contains("sdf.inertia_made_physical"));
    let written = SdfFormat.write(&model, &Options::default()).unwrap();
    let tip = &written.text[written.text.find("<link name=\"tip\">").unwrap()..];
    let tip = &tip[..tip.find("</link>").unwrap()];
    assert!(
        tip.contains("<mass>0</mass>") && tip.contains("<izz>0</izz>"),
        "{tip}"
    );
}

#[test]
fn an_inertia_of_round_off_only_is_written_as_zero_with_its_size() {
    // example-robot-data's iCub: `head` has zeros but ixz = 2.4e-35 (moments -2.4e-35, 0,
    // 2.4e-35), `hip` ixx = iyy = -5.4e-20; libsdformat reports both invalid and Drake refuses
    // the file. Round-off against the model (a 1 kg m² torso): written as zero, mass kept (the
    // centres of mass off the joint axes, so Drake simulates them without a mass floor).
    let urdf = r#"<robot name="r">
  <link name="torso"><inertial><mass value="10"/>
    <inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>
  <link name="head"><inertial><origin xyz="0 0.1 0.1"/><mass value="1.3"/>
    <inertia ixx="0" ixy="0" ixz="2.40741e-35" iyy="0" iyz="0" izz="0"/></inertial></link>
  <link name="hip"><inertial><origin xyz="0 0 -0.1"/><mass value="0.5"/>
    <inertia ixx="-5.42101e-20" ixy="0" ixz="0" iyy="-5.42101e-20" iyz="0" izz="0"/></inertial></link>
  <joint name="neck" type="revolute"><parent link="torso"/><child link="head"/>
    <axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  <joint name="leg" type="revolute"><parent link="torso"/><child link="hip"/>
    <axis xyz="1 0 0"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>"#;
    let registry = mbconv::formats();
    let source = Source::from_string("r.urdf", urdf.to_owned());
    let model = registry
        .read(registry.get("urdf").unwrap(), &source, &Options::default())
        .unwrap()
        .model;
    let lowered = SdfFormat.lower(&model, &Options::default()).unwrap();
    for name in ["head", "hip"] {
        let body = lowered
            .model
            .bodies
            .iter()
            .find(|b| b.name.ends_with(name))
            .unwrap();
        assert_eq!(
            body.inertial.inertia.matrix(),
            nalgebra::Matrix3::zeros(),
            "{name}"
        );
        assert!(body.inertial.mass > 0.4, "{name}");
    }
    let zeroed: Vec<_> = lowered
        .report
        .findings
        .iter()
        .filter(|f| f.code == "sdf.inertia_round_off_zeroed")
        .collect();
    assert_eq!(zeroed.len(), 2, "{zeroed:?}");
    assert!(
        zeroed.iter().any(|f| f.message.contains("2.40741e-35")),
        "{zeroed:?}"
    );
    assert!(
        zeroed.iter().any(|f| f.message.contains("5.42101e-20")),
        "{zeroed:?}"
    );
    let written = SdfFormat.write(&model, &Options::default()).unwrap();
    let head = &written.text[written.text.find("<link name=\"head\">").unwrap()..];
    let head = &head[..head.find("</link>").unwrap()];
    assert!(
        head.contains("<ixz>0</ixz>") && head.contains("<mass>1.3</mass>"),
        "{head}"
    );
}

#[test]
fn a_massless_moving_finger_drake_cannot_simulate_gets_a_mass_floor_and_a_gimbal_link_does_not() {
    // example-robot-data's Romeo: finger links of mass 0 and zero inertia on revolute joints
    // (Drake: "An internal mass matrix associated with the joint that connects body
    // LFinger12Link to body LFinger13Link is not positive-definite"). A massless link between
    // two crossed hinges moves the tool's inertia about its axis: Drake simulates it as written.
    let massless = r#"<inertial><mass value="0"/>
    <inertia ixx="0" ixy="0" ixz="0" iyy="0" iyz="0" izz="0"/></inertial>"#;
    let urdf = format!(
        r#"<robot name="r">
  <link name="wrist"><inertial><mass value="1"/>
    <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial></link>
  <link name="phalanx1">{massless}</link>
  <link name="phalanx2">{massless}</link>
  <link name="gimbal">{massless}</link>
  <link name="tool"><inertial><mass value="0.5"/>
    <inertia ixx="0.001" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.001"/></inertial></link>
  <joint name="knuckle1" type="revolute"><parent link="wrist"/><child link="phalanx1"/>
    <origin xyz="0.1 0 0"/><axis xyz="0 1 0"/><limit lower="0" upper="1" effort="1" velocity="1"/></joint>
  <joint name="knuckle2" type="revolute"><parent link="phalanx1"/><child link="phalanx2"/>
    <origin xyz="0.02 0 0"/><axis xyz="0 1 0"/><limit lower="0" upper="1" effort="1" velocity="1"/></joint>
  <joint name="yaw" type="revolute"><parent link="wrist"/><child link="gimbal"/>
    <origin xyz="0 0 0.1"/><axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  <joint name="roll" type="revolute"><parent link="gimbal"/><child link="tool"/>
    <origin xyz="0 0 0.05"/><axis xyz="1 0 0"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>"#
    );
    let registry = mbconv::formats();
    let source = Source::from_string("r.urdf", urdf);
    let model = registry
        .read(registry.get("urdf").unwrap(), &source, &Options::default())
        .unwrap()
        .model;
    let lowered = SdfFormat.lower(&model, &Options::default()).unwrap();
    let floored: Vec<_> = lowered
        .report
        .findings
        .iter()
        .filter(|f| f.code == "sdf.moving_body_mass_floor")
        .collect();
    let at: Vec<_> = floored.iter().map(|f| f.path.as_deref().unwrap_or("")).collect();
    assert_eq!(at.len(), 2, "{floored:?}");
    assert!(
        at.iter().any(|p| p.contains("phalanx1")) && at.iter().any(|p| p.contains("phalanx2")),
        "{at:?}"
    );
    let body = |name: &str| {
        lowered
            .model
            .bodies
            .iter()
            .find(|b| b.name.ends_with(name))
            .unwrap()
            .inertial
            .clone()
    };
    for name in ["phalanx1", "phalanx2"] {
        assert_eq!(body(name).mass, 1e-10, "{name}");
        assert_eq!(body(name).inertia.moments(), [1e-10; 3], "{name}");
    }
    assert_eq!(body("gimbal").mass, 0.0);
    let written = SdfFormat.write(&model, &Options::default()).unwrap();
    let phalanx = &written.text[written.text.find("<link name=\"phalanx2\">").unwrap()..];
    let phalanx = &phalanx[..phalanx.find("</link>").unwrap()];
    assert!(
        phalanx.contains("<mass>1e-10</mass>") && phalanx.contains("<ixx>1e-10</ixx>"),
        "{phalanx}"
    );
}

/// A loop cut at a hinge by the breadth-first tree, with a ball joint elsewhere on it (as
/// Cassie's heel spring hangs from its Achilles rod): world -hip-> a -rod (ball)-> b
/// -heel-> d, and a -knee-> c -ankle-> d closes the loop at the ankle.
fn heel_loop() -> Model {
    let mut model = Model::new("leg");
    for name in ["a", "b", "c", "d"] {
        model.bodies.push(Body::new(name));
    }
    let hinge = JointKind::Revolute { axis: Vector3::y() };
    for (name, kind, parent, child) in [
        ("hip", hinge.clone(), BodyRef::World, "a"),
        ("rod", JointKind::Spherical, BodyRef::body("a"), "b"),
        ("knee", hinge.clone(), BodyRef::body("a"), "c"),
        ("heel", hinge.clone(), BodyRef::body("b"), "d"),
        ("ankle", hinge, BodyRef::body("c"), "d"),
    ] {
        model
            .joints
            .push(Joint::new(name, kind, parent, BodyRef::body(child)));
    }
    model
}

/// Drake refuses a loop of joints in SDFormat; `loops=drake` writes the loop's ball joint as
/// Drake's `<drake:ball_constraint>` instead (the heel then hangs the tree the other way round),
/// and the reader reads the constraint back as a loop-closing ball joint.
#[test]
fn a_ball_joint_on_a_loop_is_written_as_drake_s_ball_constraint_under_loops_drake() {
    let plain = SdfFormat.write(&heel_loop(), &Options::default()).unwrap();
    assert!(plain.report.contains("sdf.loop_as_joint"));
    assert!(!plain.text.contains("drake:ball_constraint"), "{}", plain.text);
    let mut options = Options::default();
    options.set("loops", "drake");
    let written = SdfFormat.write(&heel_loop(), &options).unwrap();
    let text = &written.text;
    assert!(written.report.contains("sdf.loop_as_drake_ball_constraint"));
    assert!(text.contains("xmlns:drake=\"http://drake.mit.edu\""), "{text}");
    assert!(text.contains("<drake:ball_constraint name=\"rod\">"), "{text}");
    assert!(
        text.contains("<drake:ball_constraint_body_A>a</drake:ball_constraint_body_A>"),
        "{text}"
    );
    assert!(!text.contains("<joint name=\"rod\""), "{text}");
    // The heel now hangs b from d: the file's joints form a tree from the hip.
    let heel = &text[text.find("<joint name=\"heel\"").unwrap()..];
    assert!(
        heel.contains("<parent>d</parent>") && heel.contains("<child>b</child>"),
        "{heel}"
    );
    let back = read_text("leg.sdf", text);
    assert_eq!(back.joints.len(), 5);
    let rod = back.joints.iter().find(|j| j.name == "leg::rod").unwrap();
    assert_eq!(rod.kind, JointKind::Spherical);
    assert_eq!(
        (rod.parent.to_string(), rod.child.to_string()),
        ("leg::a".to_owned(), "leg::b".to_owned())
    );
    let tree = mbconv_ir::kinematics::SpanningTree::new(&back);
    assert_eq!(tree.loop_joints.len(), 1);
}

/// `<drake:ball_constraint>` holds point P of link A on point Q of link B: a ball joint with
/// its frames at P and Q, closing a loop, with a note.
#[test]
fn drake_s_ball_constraint_is_read_as_a_loop_closing_ball_joint() {
    let text = r#"<sdf version="1.9" xmlns:drake="http://drake.mit.edu">
  <model name="m">
    <link name="a"/>
    <link name="b"><pose>1 0 0 0 0 0</pose></link>
    <joint name="j" type="revolute"><parent>world</parent><child>a</child><axis><xyz>0 1 0</xyz></axis></joint>
    <joint name="k" type="revolute"><parent>a</parent><child>b</child><axis><xyz>0 1 0</xyz></axis></joint>
    <drake:ball_constraint>
      <drake:ball_constraint_body_A>world</drake:ball_constraint_body_A>
      <drake:ball_constraint_body_B>b</drake:ball_constraint_body_B>
      <drake:ball_constraint_p_AP>2 0 0</drake:ball_constraint_p_AP>
      <drake:ball_constraint_p_BQ>1 0 0</drake:ball_constraint_p_BQ>
    </drake:ball_constraint>
  </model>
</sdf>"#;
    let read = SdfFormat
        .read(&Source::from_string("m.sdf", text), &Options::default())
        .unwrap();
    assert!(read.report.contains("sdf.drake_ball_constraint"));
    let ball = read
        .model
        .joints
        .iter()
        .find(|j| j.kind == JointKind::Spherical)
        .unwrap();
    assert_eq!(ball.name, "ball_constraint");
    assert_eq!(
        (ball.parent.clone(), ball.child.clone()),
        (BodyRef::World, BodyRef::body("b"))
    );
    assert_eq!(ball.parent_frame.translation, Vector3::new(2.0, 0.0, 0.0));
    assert_eq!(ball.child_frame.translation, Vector3::new(1.0, 0.0, 0.0));
    let missing = text.replace(
        "<drake:ball_constraint_p_BQ>1 0 0</drake:ball_constraint_p_BQ>",
        "",
    );
    let error = SdfFormat
        .read(&Source::from_string("m.sdf", &missing), &Options::default())
        .unwrap_err()
        .to_string();
    assert!(error.contains("ball_constraint_p_BQ"), "{error}");
}

/// Held-out round of session ho15: the MJCF reader gives a mocap body both `fixed` and a fixed
/// joint from the world (`robot0:mocap.weld` in IsaacGymEnvs' Fetch tasks); the writer welded it
/// a second time (`robot0:mocap_weld`), and Drake 1.51 refused the written file ("This
/// LinkJointGraph already has joint ... connecting link 'world' to link 'robot0:mocap'").
/// A fixed body a fixed joint from the world already holds is welded once.
#[test]
fn a_fixed_body_already_welded_to_the_world_is_welded_once() {
    let mut model = pendulum();
    let mut mocap = Body::new("mocap");
    mocap.fixed = true;
    mocap.pose = Pose::from_translation(Vector3::new(0.5, 0.0, 1.0));
    model.bodies.push(mocap);
    let mut weld = Joint::new(
        "mocap.weld",
        JointKind::Fixed,
        BodyRef::World,
        BodyRef::body("mocap"),
    );
    weld.parent_frame = Pose::from_translation(Vector3::new(0.5, 0.0, 1.0));
    model.joints.push(weld);
    let text = write(&model, &Options::default());
    assert_eq!(text.matches("<child>mocap</child>").count(), 1, "{text}");
    let back = read_text("mocap.sdf", &text);
    assert_eq!(back.bodies.len(), 3);
    let holds_mocap = |j: &&Joint| matches!(&j.child, BodyRef::Body(c) if c.ends_with("mocap"));
    assert_eq!(back.joints.iter().filter(holds_mocap).count(), 1);
}
