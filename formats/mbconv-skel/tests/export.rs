//! Writing IR models that did not come from SKEL: everything SKEL cannot say is reported, and
//! what it can say reads back with the same initial body poses.
#![allow(clippy::unwrap_used)]

use mbconv_ir::kinematics::{Configuration, SpanningTree, world_poses};
use mbconv_ir::model::motor::{Motor, MotorActuation, MotorTarget, MotorType};
use mbconv_ir::{
    Body, BodyRef, Category, Geometry, Joint, JointKind, Model, Pose, Shape, ShapeRole, TimeFunction,
};
use nalgebra::{UnitQuaternion, Vector3};

fn poses(model: &Model) -> Vec<(String, Pose)> {
    let tree = SpanningTree::new(model);
    let poses = world_poses(model, &tree, Configuration::Initial);
    model.bodies.iter().map(|b| b.name.clone()).zip(poses).collect()
}

/// A model in the shape other formats produce: a chain whose second joint is stored
/// child-to-parent, a loop-closing joint, a floating body, a fixed body, a cylindrical joint.
fn foreign_model() -> Model {
    let mut m = Model::new("foreign");
    let turn = UnitQuaternion::from_euler_angles(0.2, -0.1, 0.4);
    for (name, x) in [("a", 0.0), ("b", 1.0), ("c", 2.0)] {
        let mut body = Body::new(name);
        body.pose = Pose::new(Vector3::new(x, 0.0, 1.0), turn);
        m.bodies.push(body);
    }
    let mut floating = Body::new("floating");
    floating.pose = Pose::new(Vector3::new(0.0, 5.0, 0.0), turn);
    let mut shape = Shape::new(ShapeRole::Both, Geometry::Sphere { radius: 0.1 });
    shape.pose.translation = Vector3::new(0.0, 0.0, 0.1);
    floating.shapes.push(shape);
    m.bodies.push(floating);
    let mut fixed = Body::new("ground");
    fixed.fixed = true;
    fixed.pose = Pose::from_translation(Vector3::new(0.0, 0.0, -1.0));
    m.bodies.push(fixed);
    let mut slider = Body::new("slider");
    slider.pose = Pose::from_translation(Vector3::new(3.0, 0.0, 0.0));
    m.bodies.push(slider);

    let mut j1 = Joint::new(
        "j1",
        JointKind::Revolute { axis: Vector3::z() },
        BodyRef::World,
        BodyRef::body("a"),
    );
    j1.parent_frame = m.bodies[0].pose;
    j1.q0 = vec![0.3];
    m.joints.push(j1);
    // Stored from c to b: the tree meets it from its child side.
    let mut j2 = Joint::new(
        "j2",
        JointKind::Revolute { axis: Vector3::y() },
        BodyRef::body("c"),
        BodyRef::body("b"),
    );
    j2.parent_frame = Pose::from_translation(Vector3::new(-0.5, 0.0, 0.0));
    j2.child_frame = Pose::from_translation(Vector3::new(0.5, 0.0, 0.0));
    j2.q0 = vec![-0.2];
    let mut j3 = Joint::new(
        "j3",
        JointKind::Revolute { axis: Vector3::y() },
        BodyRef::body("a"),
        BodyRef::body("b"),
    );
    j3.parent_frame = Pose::from_translation(Vector3::new(0.5, 0.0, 0.0));
    j3.child_frame = Pose::from_translation(Vector3::new(-0.5, 0.0, 0.0));
    j3.q0 = vec![0.4];
    m.joints.push(j3);
    m.joints.push(j2);
    // Closes a loop b–c.
    let mut j4 = Joint::new(
        "loop",
        JointKind::Spherical,
        BodyRef::body("b"),
        BodyRef::body("c"),
    );
    j4.parent_frame = Pose::from_translation(Vector3::new(1.0, 0.0, 0.0));
    m.joints.push(j4);
    let mut cyl = Joint::new(
        "cyl",
        JointKind::Cylindrical { axis: Vector3::x() },
        BodyRef::World,
        BodyRef::body("slider"),
    );
    cyl.parent_frame = Pose::from_translation(Vector3::new(3.0, 0.0, 0.0));
    m.joints.push(cyl);
    m.motors.push(Motor {
        name: "drive".into(),
        motor_type: MotorType::Rotation,
        actuation: MotorActuation::Speed,
        target: MotorTarget::Joint {
            joint: "j1".into(),
            dof: 0,
        },
        function: TimeFunction::Constant { value: 1.0 },
        extras: Default::default(),
    });
    // Store the reference-configuration poses the joints imply, as importers do.
    let tree = SpanningTree::new(&m);
    let reference = world_poses(&m, &tree, Configuration::Reference);
    for (body, pose) in m.bodies.iter_mut().zip(reference) {
        body.pose = pose;
    }
    m
}

#[test]
fn foreign_model_is_written_with_every_loss_reported() {
    let model = foreign_model();
    let exported = write_string(&model);
    let codes: Vec<&str> = exported.report.findings.iter().map(|f| f.code.as_str()).collect();
    for code in [
        "skel.loop_joint_lost",
        "skel.motor_lost",
        "skel.joint_as_free_joint",
        "skel.joint_reversed",
    ] {
        assert!(codes.contains(&code), "{code} missing from {codes:?}");
    }
    let losses = exported
        .report
        .findings
        .iter()
        .filter(|f| f.category == Category::Dropped)
        .count();
    assert!(losses >= 3);
    let text = &exported.text;
    assert!(
        text.starts_with("<?xml version=\"1.0\"?>\n<skel version=\"1.0\">\n  <world name=\"foreign\">"),
        "{text}"
    );
    assert_eq!(text.matches("<visualization_shape>").count(), 1);
    assert_eq!(text.matches("<collision_shape>").count(), 1);
    assert!(
        text.contains("<joint type=\"weld\" name=\"ground_weld\">"),
        "{text}"
    );
    assert!(
        text.contains("<joint type=\"free\" name=\"floating_free_joint\">"),
        "{text}"
    );

    // What SKEL can say reads back with the same initial poses (the cylindrical joint became a
    // free joint at q = 0, which leaves the slider at its reference pose as well).
    let back = read_str("foreign.skel", text).unwrap().model;
    let before = poses(&model);
    let after = poses(&back);
    for (name, pose) in &before {
        let (_, other) = after
            .iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("{name} lost"));
        assert!(pose.distance(other) < 1e-12, "{name}: {pose:?} vs {other:?}");
    }
}

#[test]
fn the_lowered_foreign_model_is_valid_and_emits_without_loss() {
    use mbconv_ir::format::{Format, Options};
    let lowered = mbconv_skel::SkelFormat
        .lower(&foreign_model(), &Options::default())
        .unwrap();
    let errors: Vec<String> = mbconv_ir::validate(&lowered.model)
        .at_least(mbconv_ir::Severity::Error)
        .map(|f| f.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    let unplaced: Vec<_> = lowered
        .report
        .findings
        .iter()
        .filter(|f| f.path.is_none())
        .collect();
    assert!(unplaced.is_empty(), "findings without an IR path: {unplaced:?}");
    let emitted = mbconv_skel::SkelFormat
        .emit(&lowered.model, &Options::default())
        .unwrap();
    assert!(!emitted.report.has_loss(), "{:?}", emitted.report.findings);
    assert_eq!(emitted.text, write_string(&foreign_model()).text);
}

#[test]
fn output_is_deterministic() {
    let model = foreign_model();
    assert_eq!(write_string(&model).text, write_string(&model).text);
}

#[test]
fn format_info_and_sniffing() {
    use mbconv_ir::format::Format;
    let format = mbconv_skel::SkelFormat;
    let info = format.info();
    assert_eq!(
        (info.name, info.aliases, info.extensions),
        ("skel", &["dart"][..], &["skel"][..])
    );
    assert!(format.sniff("<?xml version=\"1.0\"?>\n<skel version=\"1.0\">"));
    assert!(!format.sniff("{\"mbir\": \"1\"}"));
}

#[test]
fn skeleton_without_joints_is_reported_and_its_bodies_dropped() {
    let text =
        "<skel><world name=\"w\"><skeleton name=\"s\"><body name=\"lonely\"/></skeleton></world></skel>";
    let imported = read_str("lonely.skel", text).unwrap();
    assert!(imported.model.bodies.is_empty());
    assert!(imported.report.contains("skel.skeleton_without_joints"));
    assert!(imported.report.contains("skel.orphan_body"));
}

#[test]
fn repeated_names_across_skeletons_are_renamed_and_written_back() {
    let text = "<skel><world name=\"w\">\
        <skeleton name=\"a\"><body name=\"b\"/><joint type=\"free\" name=\"j\"><parent>world</parent><child>b</child></joint></skeleton>\
        <skeleton name=\"c\"><body name=\"b\"/><joint type=\"free\" name=\"j\"><parent>world</parent><child>b</child></joint></skeleton>\
        </world></skel>";
    let imported = read_str("names.skel", text).unwrap();
    let names: Vec<&str> = imported.model.bodies.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["b", "c/b"]);
    assert!(imported.model.joint("c/j").is_some());
    assert_eq!(imported.report.renames.len(), 2);
    let written = write_string(&imported.model).text;
    assert_eq!(written.matches("<body name=\"b\">").count(), 2, "{written}");
    assert_eq!(
        written.matches("<joint type=\"free\" name=\"j\">").count(),
        2,
        "{written}"
    );
}

#[test]
fn implicit_root_joints_in_two_skeletons_keep_dart_names() {
    let skeleton = |s: &str| {
        format!(
            "<skeleton name=\"{s}\"><body name=\"base\"/><body name=\"arm\"/>\
             <joint type=\"revolute\" name=\"hinge\"><parent>base</parent><child>arm</child><axis><xyz>0 0 1</xyz></axis></joint></skeleton>"
        )
    };
    let text = format!(
        "<skel><world name=\"w\">{}{}</world></skel>",
        skeleton("one"),
        skeleton("two")
    );
    let first = read_str("roots.skel", &text).unwrap().model;
    assert!(first.joint("root").is_some() && first.joint("two/root").is_some());
    let written = write_string(&first).text;
    assert_eq!(
        written.matches("<joint type=\"free\" name=\"root\">").count(),
        2,
        "{written}"
    );
    let second = read_str("roots.skel", &written).unwrap().model;
    assert_eq!(
        mbconv_ir::mbir::to_string(&first),
        mbconv_ir::mbir::to_string(&second)
    );
}

/// Reads `text` as the file `name` through the format's public surface.
fn read_str(name: &str, text: &str) -> Result<mbconv_ir::format::Imported, mbconv_ir::format::FormatError> {
    use mbconv_ir::format::{Format, Options, Source};
    mbconv_skel::SkelFormat.read(&Source::from_string(name, text), &Options::default())
}

/// Lowers and writes `model` with the default settings through the format's public surface.
fn write_string(model: &mbconv_ir::Model) -> mbconv_ir::format::Exported {
    use mbconv_ir::format::{Format, Options};
    mbconv_skel::SkelFormat.write(model, &Options::default()).unwrap()
}
