#![allow(clippy::unwrap_used)]
//! The writer's `lower` step: what Chrono YAML cannot say is decided there (a finding each),
//! and `emit` only writes. Initial joint states are baked, joint springs become RSDAs and
//! TSDAs, gravity and time step go to companion files, jointed colliding bodies are reported.

use mbconv_chrono::ChronoFormat;
use mbconv_ir::format::support::Feature;
use mbconv_ir::format::{Format, Options, Source};
use mbconv_ir::kinematics::{Configuration, SpanningTree, world_poses};
use mbconv_ir::{
    Body, BodyRef, Category, DofProperties, EulerOrder, ForceKind, Geometry, Joint, JointKind, Model, Pose,
    Shape, ShapeRole, SpringDamperLaw,
};
use nalgebra::{UnitQuaternion, Vector3};
use std::path::{Path, PathBuf};

fn body(name: &str, x: f64) -> Body {
    let mut b = Body::new(name);
    b.pose = Pose::from_translation(Vector3::new(x, 0.0, 0.0));
    b.inertial.mass = 1.0;
    b
}

/// A pendulum on a revolute joint about Y from the world, with a second link on an elbow.
fn pendulum() -> Model {
    let mut m = Model::new("pendulum");
    m.bodies.push(body("link1", 0.0));
    m.bodies.push(body("link2", 1.0));
    let shoulder = Joint::new(
        "shoulder",
        JointKind::Revolute { axis: Vector3::y() },
        BodyRef::World,
        BodyRef::body("link1"),
    );
    let mut elbow = Joint::new(
        "elbow",
        JointKind::Revolute { axis: Vector3::y() },
        BodyRef::body("link1"),
        BodyRef::body("link2"),
    );
    elbow.parent_frame = Pose::from_translation(Vector3::new(1.0, 0.0, 0.0));
    m.joints.push(shoulder);
    m.joints.push(elbow);
    m
}

fn write_and_read(model: &Model, options: &Options) -> (mbconv_ir::format::Exported, Model) {
    let written = ChronoFormat.write(model, options).unwrap();
    let back = ChronoFormat
        .read(
            &Source::from_string("back.yaml", written.text.clone()),
            &Options::default(),
        )
        .unwrap_or_else(|e| panic!("{e}\n{}", written.text));
    (written, back.model)
}

fn assert_close(a: &Pose, b: &Pose, what: &str) {
    assert!(a.distance(b) < 1e-12, "{what}: {a:?} vs {b:?}");
}

#[test]
fn a_body_with_an_initial_joint_angle_starts_where_it_started() {
    let mut m = pendulum();
    m.joints[0].q0 = vec![0.7];
    m.joints[1].q0 = vec![-0.3];
    let started = world_poses(&m, &SpanningTree::new(&m), Configuration::Initial);
    let (written, back) = write_and_read(&m, &Options::default());
    for (i, b) in m.bodies.iter().enumerate() {
        let again = back.body(&b.name).unwrap();
        assert_close(&again.pose, &started[i], &b.name);
    }
    assert!(
        written
            .report
            .findings
            .iter()
            .all(|f| !(f.category.is_loss() && f.path.as_deref().is_some_and(|p| p.starts_with("joints")))),
        "{:#?}",
        written.report.findings
    );
    // The joints still turn about the same world axis through the same point.
    let elbow = back.joints.iter().find(|j| j.name == "elbow").unwrap();
    let link1 = back.body("link1").unwrap().pose;
    let frame = link1 * elbow.parent_frame;
    let axis = frame.rotation * Vector3::z();
    let expected_axis = started[0].rotation * Vector3::y();
    assert!((axis - expected_axis).norm() < 1e-12, "{axis:?}");
    assert!((frame.translation - started[1].translation).norm() < 1e-12);
}

#[test]
fn initial_joint_rates_become_body_velocities() {
    let mut m = pendulum();
    m.joints[0].v0 = vec![2.0];
    let (_, back) = write_and_read(&m, &Options::default());
    let link2 = back.body("link2").unwrap();
    let twist = link2.initial_velocity.unwrap();
    // link2's origin is 1 m out along X from the shoulder turning at 2 rad/s about Y.
    assert!(
        (twist.angular - Vector3::new(0.0, 2.0, 0.0)).norm() < 1e-12,
        "{twist:?}"
    );
    assert!(
        (twist.linear - Vector3::new(0.0, 0.0, -2.0)).norm() < 1e-12,
        "{twist:?}"
    );
}

/// The initial velocities the reader reads back from what emit wrote are the lowered ones,
/// bit for bit: Chrono's velocities (centre-of-mass velocity, angular velocity in the
/// centre-of-mass frame) are a rotation away from the IR's, and the Shift Bricard linkage
/// turned last-bit differences there into micrometres of motion.
#[test]
fn read_back_initial_velocities_are_the_lowered_ones_bit_for_bit() {
    let mut m = pendulum();
    for (i, b) in m.bodies.iter_mut().enumerate() {
        b.pose.rotation = UnitQuaternion::from_euler_angles(0.3 + i as f64, -0.7, 1.1);
        b.inertial.com = Vector3::new(0.123, -0.456, 0.789);
        b.inertial.inertia_rotation = UnitQuaternion::from_euler_angles(0.2, 0.1, -0.4);
    }
    m.joints[0].kind = JointKind::Revolute {
        axis: Vector3::new(0.3, 0.5, 0.8),
    };
    m.joints[0].v0 = vec![0.1];
    m.joints[1].v0 = vec![-0.026233221190000003];
    let lowered = ChronoFormat.lower(&m, &Options::default()).unwrap().model;
    let emitted = ChronoFormat.emit(&lowered, &Options::default()).unwrap();
    let back = ChronoFormat
        .read(
            &Source::from_string("back.yaml", emitted.text),
            &Options::default(),
        )
        .unwrap()
        .model;
    let bits = |v: &Vector3<f64>| v.map(f64::to_bits);
    let mut moving = 0;
    for b in &lowered.bodies {
        let again = back.body(&b.name).unwrap();
        assert_eq!(
            b.initial_velocity.is_some(),
            again.initial_velocity.is_some(),
            "{}",
            b.name
        );
        if let (Some(t), Some(u)) = (&b.initial_velocity, &again.initial_velocity) {
            assert_eq!(bits(&t.linear), bits(&u.linear), "{}", b.name);
            assert_eq!(bits(&t.angular), bits(&u.angular), "{}", b.name);
            moving += usize::from(t.angular.norm() > 0.0);
        }
    }
    assert_eq!(moving, 2);
    // Lowering what was read back changes nothing more.
    let again = ChronoFormat.lower(&back, &Options::default()).unwrap().model;
    for b in &back.bodies {
        let (t, u) = (b.initial_velocity, again.body(&b.name).unwrap().initial_velocity);
        assert_eq!(
            t.map(|t| bits(&t.linear)),
            u.map(|u| bits(&u.linear)),
            "{}",
            b.name
        );
    }
}

#[test]
fn a_revolute_joint_spring_becomes_an_rsda_with_a_linear_law() {
    let mut m = pendulum();
    m.joints[1].dofs = vec![DofProperties {
        spring_stiffness: 5.0,
        spring_rest_position: 0.2,
        damping: 0.1,
        ..DofProperties::default()
    }];
    // Chrono's own gravity: a model without one gets Chrono's default, an approximation.
    m.simulation.gravity = Some(Vector3::new(0.0, 0.0, -9.8));
    let (written, back) = write_and_read(&m, &Options::default());
    let spring = back
        .force_elements
        .iter()
        .find(|f| f.name == "elbow_spring")
        .unwrap_or_else(|| panic!("{}", written.text));
    let ForceKind::Rsda(r) = &spring.kind else {
        panic!("{spring:?}")
    };
    assert_eq!(
        r.law,
        SpringDamperLaw::Linear {
            stiffness: Some(5.0),
            damping: Some(0.1)
        }
    );
    assert!((r.free_angle - 0.2).abs() < 1e-12, "{}", r.free_angle);
    assert_eq!((r.body1.name(), r.body2.name()), (Some("link1"), Some("link2")));
    // About the elbow axis, through the elbow.
    let w1 = back.body("link1").unwrap().pose * r.frame1;
    assert!((w1.rotation * Vector3::z() - Vector3::y()).norm() < 1e-12);
    assert!((w1.translation - Vector3::new(1.0, 0.0, 0.0)).norm() < 1e-12);
    let note = written
        .report
        .findings
        .iter()
        .find(|f| f.message.contains("RSDA \"elbow_spring\""))
        .unwrap();
    assert_eq!(note.category, Category::Note);
    assert!(!written.report.has_loss(), "{:#?}", written.report.findings);
}

#[test]
fn a_prismatic_joint_spring_becomes_a_tsda_along_the_axis() {
    let mut m = Model::new("slider");
    m.bodies.push(body("cart", 0.0));
    let mut rail = Joint::new(
        "rail",
        JointKind::Prismatic { axis: Vector3::x() },
        BodyRef::World,
        BodyRef::body("cart"),
    );
    rail.dofs = vec![DofProperties {
        spring_stiffness: 40.0,
        spring_rest_position: 0.5,
        ..DofProperties::default()
    }];
    m.joints.push(rail);
    let (written, back) = write_and_read(&m, &Options::default());
    let ForceKind::Tsda(t) = &back.force_elements[0].kind else {
        panic!("{}", written.text)
    };
    // Deformation = length − free length = q − rest: −0.5 at q = 0.
    let p1 = back
        .body(t.body1.name().unwrap())
        .unwrap()
        .pose
        .transform_point(&t.point1);
    let p2 = back.body("cart").unwrap().pose.transform_point(&t.point2);
    assert!(((p1 - p2).norm() - t.free_length + 0.5).abs() < 1e-9);
    assert!(((p2 - p1).normalize() - Vector3::x()).norm() < 1e-12);
    assert_eq!(
        t.law,
        SpringDamperLaw::Linear {
            stiffness: Some(40.0),
            damping: None
        }
    );
}

#[test]
fn euler_joints_become_spherical_with_a_note_on_the_coordinates() {
    let mut m = pendulum();
    m.joints[1].kind = JointKind::Euler {
        order: EulerOrder::Xyz,
    };
    let (written, back) = write_and_read(&m, &Options::default());
    assert_eq!(back.joints[1].kind, JointKind::Spherical);
    let note = written
        .report
        .findings
        .iter()
        .find(|f| f.path.as_deref() == Some("joints[\"elbow\"]"))
        .unwrap();
    assert_eq!(note.category, Category::Note);
    assert!(
        note.message.contains("SPHERICAL") && note.message.contains("XYZ"),
        "{}",
        note.message
    );
}

#[test]
fn planar_and_translational_joints_say_why_chrono_cannot_have_them() {
    let mut m = pendulum();
    m.joints[1].kind = JointKind::Translational;
    let lowered = ChronoFormat.lower(&m, &Options::default()).unwrap();
    let finding = lowered
        .report
        .findings
        .iter()
        .find(|f| f.path.as_deref() == Some("joints[\"elbow\"]"))
        .unwrap();
    assert_eq!(finding.category, Category::Dropped);
    assert!(
        finding.message.contains("intermediate bodies"),
        "{}",
        finding.message
    );
    assert_eq!(lowered.model.joints.len(), 1);
}

fn collision_box() -> Shape {
    Shape::new(ShapeRole::Collision, Geometry::Box { size: [0.1; 3] })
}

#[test]
fn jointed_bodies_whose_shapes_touch_lose_the_child_shape_and_apart_ones_get_a_note() {
    // Boxes 1 m apart at the body origins: Chrono will check them, nothing touches yet.
    let mut m = pendulum();
    m.bodies[0].shapes.push(collision_box());
    m.bodies[1].shapes.push(collision_box());
    let lowered = ChronoFormat.lower(&m, &Options::default()).unwrap();
    let note = lowered
        .report
        .findings
        .iter()
        .find(|f| f.code == "chrono.jointed_bodies_collide")
        .unwrap();
    assert_eq!(note.category, Category::Note);
    assert_eq!(lowered.model.body("link2").unwrap().shapes.len(), 1);
    // A box reaching to the elbow touches the next link's box there: the child's goes.
    m.bodies[0].shapes[0].geometry = Geometry::Box {
        size: [2.0, 0.1, 0.1],
    };
    let lowered = ChronoFormat.lower(&m, &Options::default()).unwrap();
    let removed = lowered
        .report
        .findings
        .iter()
        .find(|f| f.code == "chrono.jointed_contact_shape_removed")
        .unwrap();
    assert_eq!(removed.path.as_deref(), Some("bodies[\"link2\"].shapes[0]"));
    assert!(
        removed.message.contains("bodies[\"link1\"].shapes[0]"),
        "{}",
        removed.message
    );
    assert_eq!(removed.category, Category::Dropped);
    assert!(lowered.model.body("link2").unwrap().shapes.is_empty());
    // With keep-jointed-contact the shapes stay and the joint is reported.
    let mut keep = Options::default();
    keep.set("keep-jointed-contact", "true");
    let kept = ChronoFormat.lower(&m, &keep).unwrap();
    let touch = kept
        .report
        .findings
        .iter()
        .find(|f| f.code == "chrono.jointed_bodies_touch")
        .unwrap();
    assert_eq!(touch.path.as_deref(), Some("joints[\"elbow\"]"));
    assert!(touch.message.contains("bodies[\"link1\"]") && touch.message.contains("bodies[\"link2\"]"));
    assert_eq!(touch.category, Category::Approximated);
    assert_eq!(kept.model.body("link2").unwrap().shapes.len(), 1);
}

/// A fresh directory under the target directory.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn gravity_and_time_step_go_to_companions_named_after_the_output() {
    let mut m = pendulum();
    m.simulation.gravity = Some(Vector3::new(0.0, -9.81, 0.0));
    m.simulation.time_step = Some(2e-4);
    let dir = scratch("companions");
    let out = dir.join("arm.yaml");
    let mut options = Options::default();
    options.output_path = Some(out.clone());
    let written = ChronoFormat.write(&m, &options).unwrap();
    let names: Vec<&str> = written.companions.iter().map(|c| c.file_name.as_str()).collect();
    assert_eq!(names, ["arm.simulation.yaml", "arm.solver.yaml"]);
    assert_eq!(written.entry.as_deref(), Some("arm.simulation.yaml"));
    let sim = &written.companions[0].text;
    assert!(
        sim.contains("type: MBS")
            && sim.contains("model: arm.yaml")
            && sim.contains("solver: arm.solver.yaml")
    );
    assert!(sim.contains("gravity: [0, -9.81, 0]"), "{sim}");
    assert!(written.companions[1].text.contains("time_step: 0.0002"));
    assert!(!written.report.has_loss(), "{:#?}", written.report.findings);
    std::fs::write(&out, &written.text).unwrap();
    for c in &written.companions {
        std::fs::write(dir.join(&c.file_name), &c.text).unwrap();
    }
    let back = ChronoFormat
        .read(
            &Source::from_path(&dir.join("arm.simulation.yaml")).unwrap(),
            &Options::default(),
        )
        .unwrap()
        .model;
    assert_eq!(back.simulation.gravity, m.simulation.gravity);
    assert_eq!(back.simulation.time_step, Some(2e-4));
}

#[test]
fn sim_out_still_names_the_simulation_file() {
    let mut options = Options::default();
    options.set("sim-out", "run.yaml");
    options.output_path = Some(PathBuf::from("/x/model_out.yaml"));
    let written = ChronoFormat.write(&pendulum(), &options).unwrap();
    let names: Vec<&str> = written.companions.iter().map(|c| c.file_name.as_str()).collect();
    assert_eq!(names, ["run.yaml", "run_solver.yaml"]);
    assert!(written.companions[0].text.contains("model: model_out.yaml"));
}

#[test]
fn a_model_file_read_alone_has_chronos_default_gravity() {
    let text = "chrono-version: 10.0\nmodel:\n  bodies:\n    - name: ground\n      location: [0, 0, 0]\n      fixed: true\n";
    let imported = ChronoFormat
        .read(&Source::from_string("m.yaml", text), &Options::default())
        .unwrap();
    assert_eq!(
        imported.model.simulation.gravity,
        Some(Vector3::new(0.0, 0.0, -9.8))
    );
    let finding = imported
        .report
        .findings
        .iter()
        .find(|f| f.path.as_deref() == Some("simulation.gravity"))
        .unwrap();
    assert_eq!(finding.category, Category::Defaulted);
}

#[test]
fn writing_to_standard_output_reports_a_gravity_it_cannot_write() {
    let mut m = pendulum();
    m.simulation.gravity = Some(Vector3::new(0.0, 0.0, -1.62));
    let lowered = ChronoFormat.lower(&m, &Options::default()).unwrap();
    assert!(
        lowered
            .report
            .findings
            .iter()
            .any(|f| f.code == "chrono.gravity_lost"
                && f.path.as_deref() == Some("simulation.gravity")
                && f.feature == Some(Feature::Gravity)
                && f.category == Category::Dropped
                && f.message.contains("gravity"))
    );
    assert_eq!(
        lowered.model.simulation.gravity,
        Some(Vector3::new(0.0, 0.0, -9.8))
    );
}

/// Every Chrono fixture and IR fixture: `emit` reports nothing (lowering decided every loss),
/// and reading the emitted text back gives the lowered model's bodies where they were.
#[test]
fn emit_loses_nothing_more_for_every_fixture() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let mut models = Vec::new();
    for path in mbconv_test_support::files_with_extension(&root.join("chrono"), "yaml") {
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        if let Ok(imported) = ChronoFormat.read(&Source::from_path(&path).unwrap(), &Options::default()) {
            models.push((name, imported.model));
        }
    }
    for path in mbconv_test_support::files_with_extension(&root.join("ir"), "mbir.json") {
        let source = Source::from_path(&path).unwrap();
        let imported = mbconv_ir::mbir::MbirFormat
            .read(&source, &Options::default())
            .unwrap();
        models.push((path.display().to_string(), imported.model));
    }
    assert!(models.len() >= 9, "{}", models.len());
    for (name, model) in &models {
        let lowered = ChronoFormat.lower(model, &Options::default()).unwrap();
        let emitted = ChronoFormat.emit(&lowered.model, &Options::default()).unwrap();
        assert!(
            emitted.report.findings.is_empty(),
            "{name}: {:#?}",
            emitted.report.findings
        );
        let back = ChronoFormat
            .read(
                &Source::from_string("back.yaml", emitted.text.clone()),
                &Options::default(),
            )
            .unwrap()
            .model;
        assert_eq!(back.bodies.len(), lowered.model.bodies.len(), "{name}");
        assert_eq!(back.joints.len(), lowered.model.joints.len(), "{name}");
        for b in &lowered.model.bodies {
            let again = back.body(&b.name).unwrap_or_else(|| panic!("{name}: {}", b.name));
            assert_close(&again.pose, &b.pose, &format!("{name}: {}", b.name));
            assert_eq!(again.inertial.mass.to_bits(), b.inertial.mass.to_bits(), "{name}");
        }
        for (j, again) in lowered.model.joints.iter().zip(&back.joints) {
            assert_eq!(j.kind, again.kind, "{name}: {}", j.name);
            assert_close(
                &j.parent_frame,
                &again.parent_frame,
                &format!("{name}: {}", j.name),
            );
            assert_close(&j.child_frame, &again.child_frame, &format!("{name}: {}", j.name));
        }
        // A second lowering has nothing left to change (the collision-pair report is about
        // Chrono's contact semantics, not a change, and comes again).
        let lowered_again = ChronoFormat.lower(&back, &Options::default()).unwrap();
        let changes: Vec<_> = lowered_again
            .report
            .findings
            .iter()
            .filter(|f| f.category.is_loss() && !f.message.contains("collision family 0"))
            .collect();
        assert!(
            changes.is_empty(),
            "{name}: a second lowering still changes things: {changes:#?}"
        );
    }
}

#[test]
fn a_rotated_cylinder_keeps_its_axis() {
    let mut m = pendulum();
    let mut cyl = Shape::new(
        ShapeRole::Visual,
        Geometry::Cylinder {
            radius: 0.1,
            length: 1.0,
        },
    );
    cyl.pose.rotation = UnitQuaternion::from_euler_angles(0.3, 0.2, 0.9);
    m.bodies[0].shapes.push(cyl.clone());
    let (_, back) = write_and_read(&m, &Options::default());
    let again = &back.body("link1").unwrap().shapes[0];
    let axis = |s: &Shape| s.pose.rotation * Vector3::z();
    assert!((axis(again) - axis(&cyl)).norm() < 1e-12);
}

/// The models the traced-lowering test runs on: every Chrono fixture, the IR fixtures, and
/// models with what only other formats say (initial joint state, springs, euler joints).
fn lowering_cases() -> Vec<(String, Model)> {
    let root = mbconv_test_support::workspace_root().join("fixtures");
    let mut cases = Vec::new();
    for file in mbconv_test_support::files_with_extension(&root.join("chrono"), "yaml") {
        let source = Source::from_path(&file).unwrap();
        // `solver.yaml` is a companion file, not a model.
        let Ok(imported) = ChronoFormat.read(&source, &Options::default()) else {
            continue;
        };
        let model = imported.model;
        cases.push((file.display().to_string(), model));
    }
    for file in mbconv_test_support::files_with_extension(&root.join("ir"), "json") {
        let model = mbconv_ir::mbir::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        cases.push((file.display().to_string(), model));
    }
    let mut springs = pendulum();
    springs.joints[1].dofs = vec![DofProperties {
        spring_stiffness: 5.0,
        damping: 0.1,
        ..DofProperties::default()
    }];
    springs.joints[1].q0 = vec![0.3];
    springs.joints[0].kind = JointKind::Euler {
        order: EulerOrder::Xyz,
    };
    springs.joints[0].q0 = vec![0.1, 0.2, 0.3];
    springs.joints[0].dofs = vec![DofProperties::default(); 3];
    cases.push(("springs and euler".into(), springs));
    cases
}

#[test]
fn traced_lowering_gives_the_same_model_and_report_pass_by_pass() {
    let cases = lowering_cases();
    assert!(cases.len() >= 10, "{}", cases.len());
    let verified = mbconv_ir::format::kit::verify_traced_lowerings(
        &ChronoFormat,
        &cases,
        "disable_immobile_groups",
        "simulation_settings",
    );
    assert_eq!(verified, Ok(()));
}
