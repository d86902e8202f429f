//! What libsdformat and Drake read although XML or SDFormat frowns on it, read by mbconv too,
//! each with its finding (the fixtures of `fixtures/sdf/lenient/`, named after the case).
#![allow(clippy::unwrap_used)]

use mbconv_ir::format::{Format, Imported, Options, Source};
use mbconv_ir::{JointKind, Severity};

fn read(name: &str) -> Imported {
    mbconv_test_support::read_lenient(&mbconv_sdf::SdfFormat, name)
}

fn finding<'a>(imported: &'a Imported, code: &str) -> Vec<&'a mbconv_ir::Finding> {
    imported
        .report
        .findings
        .iter()
        .filter(|f| f.code == code)
        .collect()
}

#[test]
fn whitespace_before_the_declaration_is_read_with_a_note() {
    let imported = read("leading_whitespace.sdf");
    let notes = finding(&imported, "sdf.declaration_after_whitespace");
    assert_eq!(notes.len(), 1);
    assert_eq!(notes[0].severity, Severity::Info);
    let span = notes[0].span.as_ref().unwrap();
    assert_eq!((span.line, span.column), (2, 1));
    assert_eq!(imported.model.bodies.len(), 1);
    assert_eq!(imported.model.bodies[0].pose.translation.z, -1.0);
    // Positions after the blanked declaration stay true.
    let pivot = imported.span_of("joints[\"pendulum::pivot\"]").unwrap();
    assert_eq!(pivot.line, 12, "{pivot:?}");
}

#[test]
fn a_static_model_without_links_is_a_frame_without_bodies() {
    let imported = read("static_model_without_link.sdf");
    let notes = finding(&imported, "sdf.static_model_empty");
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(notes.iter().all(|f| f.severity == Severity::Info));
    assert!(notes[0].message.contains("\"marker\"") && notes[0].message.contains("libsdformat accepts"));
    let names: Vec<&str> = imported.model.bodies.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["robot::base"]);
    // The frame placed relative to the empty model is placed.
    let frame = imported
        .model
        .world_frames
        .iter()
        .find(|f| f.name == "beside_marker")
        .unwrap_or_else(|| panic!("{:?}", imported.model.world_frames));
    assert_eq!(frame.pose.translation, nalgebra::Vector3::new(1.0, 2.0, 4.0));
}

#[test]
fn a_non_static_model_without_links_is_refused() {
    let text = r#"<sdf version="1.9"><world name="w"><model name="m"/></world></sdf>"#;
    let error = mbconv_sdf::SdfFormat
        .read(&Source::from_string("w.sdf", text), &Options::default())
        .unwrap_err();
    assert!(error.to_string().contains("not static"), "{error}");
}

#[test]
fn a_ball_joint_damping_is_dropped_with_a_warning() {
    let imported = read("ball_damping.sdf");
    let socket = imported.model.joints.iter().find(|j| j.name == "socket").unwrap();
    assert_eq!(socket.kind, JointKind::Spherical);
    assert!(socket.dofs.is_empty());
    let dropped = finding(&imported, "sdf.ball_damping_dropped");
    assert_eq!(dropped.len(), 1);
    assert_eq!(dropped[0].severity, Severity::Warning);
    assert_eq!(dropped[0].path.as_deref(), Some("joints[\"socket\"]"));
    assert!(dropped[0].message.contains("0.25") && dropped[0].message.contains("BallRpyJoint"));
    assert!(!imported.report.contains("sdf.ball_dynamics_ignored"));
}

#[test]
fn gz_sim_plugins_with_undeclared_prefixes_and_shared_names_are_read() {
    // Held-out round (docs/held-out.md): gz-sim worlds whose plugins use `gz:` undeclared
    // (air_pressure.sdf, ...) or share a name (triggered_publisher.sdf); Drake reads them.
    let imported = read("gz_world_plugins.sdf");
    let notes = finding(&imported, "sdf.undeclared_prefix");
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert_eq!(notes[0].severity, Severity::Info);
    assert!(notes[0].message.contains("`gz`"), "{}", notes[0].message);
    let span = notes[0].span.as_ref().unwrap();
    assert_eq!((span.line, span.column), (7, 7), "{span:?}");
    assert_eq!(imported.model.bodies.len(), 2);
    // Positions after the root element stay true.
    let pivot = imported.span_of("joints[\"pendulum::pivot\"]").unwrap();
    assert_eq!(pivot.line, 28, "{pivot:?}");
}

#[test]
fn missing_shape_sizes_read_as_the_defaults_and_a_visual_without_geometry_is_skipped() {
    // Held-out round (docs/held-out.md): gz-sim's levels.sdf (<sphere></sphere>),
    // buoyancy_*_restoring_moments.sdf (<box> without <size>) and plugins.sdf (a visual
    // without <geometry>), which libsdformat completes with the specification's defaults.
    let imported = read("shape_defaults.sdf");
    let defaults = finding(&imported, "sdf.size_default");
    assert_eq!(defaults.len(), 3, "{defaults:?}");
    assert!(defaults.iter().all(|f| f.severity == Severity::Warning));
    let skipped = finding(&imported, "sdf.empty_geometry");
    assert_eq!(skipped.len(), 1, "{skipped:?}");
    let ball = &imported.model.bodies[0];
    let geometries: Vec<String> = ball.shapes.iter().map(|s| format!("{:?}", s.geometry)).collect();
    assert_eq!(
        geometries,
        [
            "Sphere { radius: 1.0 }",
            "Box { size: [1.0, 1.0, 1.0] }",
            "Cylinder { radius: 0.2, length: 1.0 }"
        ]
    );
}

#[test]
fn a_namespace_declared_on_an_inner_element_is_declared_by_the_writer() {
    // Held-out round (docs/held-out.md): gz-sim's mecanum_drive.sdf declares `xmlns:gz` on a
    // <model> and uses `gz:expressed_in` in a wheel's surface; the writer could not declare the
    // prefix and refused the model (`check --via sdf` failed).
    let imported = read("inner_namespace.sdf");
    let text = mbconv_sdf::SdfFormat
        .write(&imported.model, &Options::default())
        .unwrap_or_else(|e| panic!("{e}"))
        .text;
    // Namespace-aware parsing refuses an undeclared prefix: the file is well-formed.
    let document = mbconv_xml::roxmltree::Document::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let root = document.root_element();
    let gz = "http://gazebosim.org/schema";
    assert_eq!(root.lookup_namespace_uri(Some("gz")), Some(gz), "{text}");
    let fdir1 = document.descendants().find(|n| n.has_tag_name("fdir1")).unwrap();
    assert_eq!(fdir1.attribute((gz, "expressed_in")), Some("cart"), "{text}");
    // The direction beside the attribute is kept too (it was dropped: an element with
    // attributes kept only its text when it also had child elements).
    assert_eq!(fdir1.text(), Some("1 -1 0"), "{text}");
    assert!(
        document.descendants().any(|n| n.has_tag_name((gz, "tag"))),
        "{text}"
    );
    // Read back: the same elements.
    let back = mbconv_sdf::SdfFormat
        .read(
            &Source::from_string("written.sdf", text.clone()),
            &Options::default(),
        )
        .unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(
        back.model.bodies[0].extras.get("sdf.gz:tag"),
        imported.model.bodies[0].extras.get("sdf.gz:tag")
    );
}

#[test]
fn what_libsdformat_refuses_in_sdformat_1_5_is_read_with_located_warnings() {
    // Held-out round (docs/held-out.md): gazebo_models' create and simple_gripper (a joint named
    // like a link), fire_hose_long_curled (a joint named "world") and ragdoll (mu = -1) are
    // read by mbconv; libsdformat, so Drake, refuses each. A warning says so where it is.
    let imported = read("libsdformat_refuses.sdf");
    let warnings = finding(&imported, "sdf.libsdformat_refuses");
    let seen: Vec<(usize, usize, bool)> = warnings
        .iter()
        .map(|f| {
            let span = f.span.as_ref().unwrap();
            (span.line, span.column, f.severity == Severity::Warning)
        })
        .collect();
    assert_eq!(
        seen,
        [(13, 5, true), (25, 33, true), (28, 5, true)],
        "{warnings:?}"
    );
    assert!(
        warnings[0].message.contains("\"world\""),
        "{}",
        warnings[0].message
    );
    assert!(
        warnings[1].message.contains("<mu>-1</mu>"),
        "{}",
        warnings[1].message
    );
    assert!(
        warnings[2].message.contains("\"forearm\""),
        "{}",
        warnings[2].message
    );
    assert_eq!(imported.model.bodies.len(), 2);
    assert_eq!(imported.model.joints.len(), 2);
}

#[test]
fn attributes_not_separated_by_whitespace_are_read_with_a_warning_and_true_positions() {
    // Held-out round (docs/held-out.md, defect 2, found in an MJCF file): libsdformat's XML
    // parser (tinyxml2) reads `name="hinge"type="revolute"`; Drake 1.51 reads this fixture as
    // the same text with the spaces (measured: bodies, joints, limits, frames' poses equal).
    let (imported, text) = mbconv_test_support::read_attributes_not_separated(
        &mbconv_sdf::SdfFormat,
        "attributes_not_separated.sdf",
        &["type", "attached_to"],
    );
    let warning = &imported.report.findings[0];
    let span = warning.span.as_ref().unwrap();
    assert_eq!((span.line, span.column, span.length), (9, 24, 4));
    assert!(
        warning.message.contains("(2 places in this file: 9:24, 10:22)"),
        "{}",
        warning.message
    );
    assert!(
        imported
            .model
            .bodies
            .iter()
            .any(|b| b.frames.iter().any(|f| f.name == "tip"))
    );
    // An error after such a place on the same line points into the file.
    let bad = text.replace("<xyz>0 1 0</xyz>", "<xyz>0 1 x</xyz>");
    let error = mbconv_sdf::SdfFormat
        .read(&Source::from_string("bad.sdf", bad.as_str()), &Options::default())
        .unwrap_err()
        .to_string();
    let (line, column) = mbconv_test_support::line_column(&bad, bad.find("0 1 x").unwrap() + 4);
    assert!(
        error.starts_with(&format!("bad.sdf:{line}:{column}: ")),
        "{error}"
    );
}

/// An included file with attributes not separated is read too, with a warning that names the
/// file and the place.
#[test]
fn attributes_not_separated_in_an_included_file_are_read_with_a_warning() {
    let dir = std::env::temp_dir().join(format!("mbconv-sdf-unseparated-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("part")).unwrap();
    std::fs::write(
        dir.join("part/model.sdf"),
        "<sdf version=\"1.9\">\n<model name=\"part\"><link name=\"l\"><inertial><mass>1</mass></inertial></link>\n<joint name=\"j\"type=\"fixed\"><parent>world</parent><child>l</child></joint></model></sdf>",
    )
    .unwrap();
    std::fs::write(
        dir.join("world.sdf"),
        "<sdf version=\"1.9\"><world name=\"w\"><include><uri>part/model.sdf</uri></include></world></sdf>",
    )
    .unwrap();
    let imported = mbconv_sdf::SdfFormat
        .read(
            &Source::from_path(&dir.join("world.sdf")).unwrap(),
            &Options::default(),
        )
        .unwrap();
    let warnings = finding(&imported, "sdf.attributes_not_separated");
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert_eq!(warnings[0].severity, Severity::Warning);
    assert!(
        warnings[0]
            .message
            .contains("model.sdf:3:16: the attribute `type`"),
        "{}",
        warnings[0].message
    );
    assert_eq!(imported.model.bodies.len(), 1);
    std::fs::remove_dir_all(&dir).unwrap();
}
