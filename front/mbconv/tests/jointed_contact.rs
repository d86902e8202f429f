//! Contact between jointed bodies, which DART, Choreonoid, MuJoCo and Drake never check and
//! Chrono does (every shape in collision family 0): the Chrono writer takes out the collision
//! shapes that make a jointed pair touch at the start (or keeps them with
//! `keep-jointed-contact`, reported), the check says `not compared in chrono` for the pairs that
//! touch later, a Chrono model converted to a format that filters such pairs reports the pairs
//! that touch, and MJCF gets an `<exclude>` where MuJoCo would check a jointed pair.
#![allow(clippy::unwrap_used)]

use mbconv::ir::format::Options;
use mbconv::ir::{Body, BodyRef, Geometry, Inertia, Joint, JointKind, Model, Pose, Shape, ShapeRole};
use mbconv::{CheckSettings, Verdict};
use nalgebra::{UnitQuaternion, Vector3};

fn body(name: &str, pose: Pose, mass: f64) -> Body {
    let mut b = Body::new(name);
    b.pose = pose;
    b.inertial.mass = mass;
    b.inertial.inertia = Inertia::from_moments_products([0.1 * mass, 0.1 * mass, 0.01 * mass], [0.0; 3]);
    b
}

fn collision_box(size: [f64; 3], at: Vector3<f64>) -> Shape {
    let mut s = Shape::new(ShapeRole::Collision, Geometry::Box { size });
    s.pose = Pose::from_translation(at);
    s
}

/// A double pendulum hanging from the world whose links are 1.2 m boxes on 1 m arms: they
/// overlap by 0.2 m around the elbow, by design.
fn overlapping_chain() -> Model {
    let mut m = Model::new("overlapping_chain");
    for (name, x) in [("upper", 0.0), ("lower", 1.0)] {
        let mut b = body(name, Pose::from_translation(Vector3::new(x, 0.0, 0.0)), 1.0);
        b.inertial.com = Vector3::new(0.5, 0.0, 0.0);
        b.shapes
            .push(collision_box([1.2, 0.1, 0.1], Vector3::new(0.5, 0.0, 0.0)));
        m.bodies.push(b);
    }
    m.joints.push(Joint::new(
        "shoulder",
        JointKind::Revolute { axis: Vector3::y() },
        BodyRef::World,
        BodyRef::body("upper"),
    ));
    let mut elbow = Joint::new(
        "elbow",
        JointKind::Revolute { axis: Vector3::y() },
        BodyRef::body("upper"),
        BodyRef::body("lower"),
    );
    elbow.parent_frame = Pose::from_translation(Vector3::new(1.0, 0.0, 0.0));
    m.joints.push(elbow);
    m.simulation.gravity = Some(Vector3::new(0.0, 0.0, -9.81));
    m
}

/// A fixed base (a 1 m box reaching along -x) with an arm hinged just above its end, standing
/// tilted over the base: 1 cm apart at the start, the arm falls onto the base.
fn falling_arm() -> Model {
    let mut m = Model::new("falling_arm");
    let mut base = body("base", Pose::identity(), 5.0);
    base.fixed = true;
    base.shapes
        .push(collision_box([1.0, 0.2, 0.2], Vector3::new(-0.5, 0.0, 0.0)));
    m.bodies.push(base);
    let tilt = UnitQuaternion::from_axis_angle(&Vector3::y_axis(), -0.3);
    let mut arm = body("arm", Pose::new(Vector3::new(0.0, 0.0, 0.16), tilt), 1.0);
    arm.inertial.com = Vector3::new(0.0, 0.0, 0.5);
    arm.shapes
        .push(collision_box([0.1, 0.1, 1.0], Vector3::new(0.0, 0.0, 0.55)));
    m.bodies.push(arm);
    m.joints.push(Joint::new(
        "hinge",
        JointKind::Revolute { axis: Vector3::y() },
        BodyRef::body("base"),
        BodyRef::body("arm"),
    ));
    m.simulation.gravity = Some(Vector3::new(0.0, 0.0, -9.81));
    m
}

fn settings(keep: bool) -> CheckSettings {
    let mut settings = CheckSettings {
        duration: 1.0,
        ..CheckSettings::default()
    };
    if keep {
        let mut options = Options::default();
        options.set("keep-jointed-contact", "true");
        settings.write_options.insert("chrono".into(), options);
    }
    settings
}

fn lowered(model: &Model, target: &str, options: &Options) -> mbconv::ir::format::Lowered {
    let registry = mbconv::formats();
    registry.get(target).unwrap().lower(model, options).unwrap()
}

fn codes(lowered: &mbconv::ir::format::Lowered) -> Vec<String> {
    lowered.report.findings.iter().map(|f| f.code.clone()).collect()
}

#[test]
fn the_chrono_writer_takes_out_the_shape_that_makes_a_jointed_pair_touch() {
    let model = overlapping_chain();
    let lowered = lowered(&model, "chrono", &Options::default());
    let removed: Vec<_> = lowered
        .report
        .findings
        .iter()
        .filter(|f| f.code == "chrono.jointed_contact_shape_removed")
        .collect();
    // One shape is enough (the child's), and it names the shape it touched.
    assert_eq!(removed.len(), 1, "{:?}", codes(&lowered));
    assert!(
        removed[0].message.contains(r#"bodies["upper"].shapes[0]"#),
        "{}",
        removed[0].message
    );
    let lower = lowered.model.body("lower").unwrap();
    assert!(lower.shapes.is_empty());
    assert_eq!(lowered.model.body("upper").unwrap().shapes.len(), 1);
    assert!(lowered.model.simulation.jointed_bodies_collide);
    // The motion is the same (mbconv simulates no contact), and nothing touches any more.
    let report = mbconv::check(&model, &["chrono"], &settings(false)).unwrap();
    let target = &report.targets[0];
    assert_eq!(target.verdict, Verdict::Exact, "{target:#?}");
    assert!(target.not_compared.is_empty(), "{:?}", target.not_compared);
}

#[test]
fn kept_shapes_are_reported_and_the_check_says_they_are_not_compared() {
    let model = overlapping_chain();
    let mut options = Options::default();
    options.set("keep-jointed-contact", "true");
    let lowered = lowered(&model, "chrono", &options);
    assert!(
        codes(&lowered).contains(&"chrono.jointed_bodies_touch".to_owned()),
        "{:?}",
        codes(&lowered)
    );
    assert_eq!(lowered.model.body("lower").unwrap().shapes.len(), 1);
    let report = mbconv::check(&model, &["chrono", "skel"], &settings(true)).unwrap();
    let chrono = &report.targets[0];
    assert!(
        chrono
            .not_compared
            .iter()
            .any(|n| n.contains("jointed bodies \"upper\" and \"lower\" touch from t = 0 s")),
        "{:?}",
        chrono.not_compared
    );
    // DART filters the pair as the original's simulator does: nothing to say there.
    assert!(
        report.targets[1].not_compared.is_empty(),
        "{:?}",
        report.targets[1].not_compared
    );
    let text = mbconv::checker::render_table(&report);
    assert!(text.contains("not compared in chrono: contact:"), "{text}");
}

#[test]
fn a_pair_apart_at_the_start_stays_and_the_check_finds_when_it_touches() {
    let model = falling_arm();
    let lowered = lowered(&model, "chrono", &Options::default());
    assert!(
        !codes(&lowered)
            .iter()
            .any(|c| c == "chrono.jointed_contact_shape_removed"),
        "{:?}",
        codes(&lowered)
    );
    assert!(codes(&lowered).contains(&"chrono.jointed_bodies_collide".to_owned()));
    let report = mbconv::check(&model, &["chrono"], &settings(false)).unwrap();
    let notes = &report.targets[0].not_compared;
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0].contains("\"base\" and \"arm\" touch from t = "),
        "{}",
        notes[0]
    );
    assert!(!notes[0].contains("t = 0 s"), "{}", notes[0]);
}

#[test]
fn a_chrono_model_keeps_its_shapes_and_formats_that_filter_report_the_touching_pairs() {
    let mut model = overlapping_chain();
    model.simulation.jointed_bodies_collide = true;
    let lowered_chrono = lowered(&model, "chrono", &Options::default());
    assert_eq!(lowered_chrono.model.body("lower").unwrap().shapes.len(), 1);
    for target in ["skel", "body", "urdf", "mjcf", "sdf", "shift"] {
        let lowered = lowered(&model, target, &Options::default());
        assert!(
            codes(&lowered).contains(&format!("{target}.jointed_contact_filtered")),
            "{target}: {:?}",
            codes(&lowered)
        );
        assert!(!lowered.model.simulation.jointed_bodies_collide, "{target}");
    }
    // Read from Chrono, the original's contact between the links is tested along its motion.
    let report = mbconv::check(&model, &["skel"], &settings(false)).unwrap();
    assert!(
        report.targets[0]
            .not_compared
            .iter()
            .any(|n| n.contains("\"upper\" and \"lower\" touch from t = 0 s")),
        "{:?}",
        report.targets[0].not_compared
    );
}

#[test]
fn chrono_files_read_as_colliding_their_jointed_bodies() {
    let text = "chrono-version: 10.0\nmodel:\n  name: one\n  bodies:\n    - name: b\n      location: [0, 0, 0]\n      mass: 1\n      inertia:\n        moments: [1, 1, 1]\n";
    let model = mbconv::read_str(text, "chrono").unwrap().model;
    assert!(model.simulation.jointed_bodies_collide);
}

#[test]
fn mjcf_excludes_the_pairs_mujoco_would_check() {
    // The arm is hinged to a base welded to the world: MuJoCo checks that pair unless told.
    let model = falling_arm();
    let registry = mbconv::formats();
    let written = registry
        .write(registry.get("mjcf").unwrap(), &model, &Options::default())
        .unwrap();
    assert!(
        written.text.contains(r#"<exclude body1="base" body2="arm"/>"#),
        "{}",
        written.text
    );
    // A moving parent is filtered by MuJoCo itself: no exclude.
    let chain = registry
        .write(
            registry.get("mjcf").unwrap(),
            &overlapping_chain(),
            &Options::default(),
        )
        .unwrap();
    assert!(!chain.text.contains("<exclude"), "{}", chain.text);
}
