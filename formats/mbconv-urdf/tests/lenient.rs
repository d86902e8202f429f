//! What urdfdom, Pinocchio and Drake read although it is dubious, read by mbconv too, each with
//! its finding (the fixtures of `fixtures/urdf/lenient/` named after the defect; each reproduces a
//! file of example-robot-data or Drake's tests that mbconv refused).
#![allow(clippy::unwrap_used)]

use mbconv_ir::format::{Format, Imported, Options, Source};
use mbconv_ir::{Geometry, Severity, Value};
use nalgebra::{Matrix3, Vector3};

fn read(name: &str) -> Imported {
    mbconv_test_support::read_lenient(&mbconv_urdf::UrdfFormat, name)
}

/// The findings with `code`: (severity, IR path, message).
fn findings(imported: &Imported, code: &str) -> Vec<(Severity, String, String)> {
    imported
        .report
        .findings
        .iter()
        .filter(|f| f.code == code)
        .map(|f| (f.severity, f.path.clone().unwrap_or_default(), f.message.clone()))
        .collect()
}

#[test]
fn a_texture_without_filename_is_ignored_with_a_note() {
    let imported = read("texture_without_filename.urdf");
    let m = &imported.model;
    let notes = findings(&imported, "urdf.texture_empty");
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(notes.iter().all(|(s, _, _)| *s == Severity::Info));
    let base = m.body("base").unwrap();
    let appearance = base.shapes[0].appearance.as_ref().unwrap();
    assert_eq!(
        (appearance.diffuse, &appearance.texture),
        (Some([0.2, 0.2, 0.2]), &None)
    );
    let arm = m.body("arm").unwrap();
    let appearance = arm.shapes[0].appearance.as_ref().unwrap();
    assert_eq!(appearance.diffuse, Some([0.5, 0.5, 0.5]));
    assert_eq!(appearance.texture, None);
}

#[test]
fn a_fixed_link_unphysical_alone_is_read_into_the_body_it_is_welded_to() {
    let imported = read("welded_unphysical_inertia.urdf");
    let m = &imported.model;
    let warnings = findings(&imported, "urdf.inertia_welded");
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    let (severity, at, message) = &warnings[0];
    assert_eq!(*severity, Severity::Warning);
    assert_eq!(at, "bodies[\"antenna\"].inertial");
    assert!(
        message.contains("\"body\"") && message.contains("-3.5"),
        "{message}"
    );
    // The antenna is massless; the body holds the composite, worked out here from the file's
    // numbers: the antenna's frame is at (-0.2, 0.1, 0.19) rotated 0.3 about x in the mount's,
    // which is at (0, 0.1, 0.2) rotated 0.5 about z in the body's.
    let antenna = m.body("antenna").unwrap();
    assert_eq!(antenna.inertial.mass, 0.0);
    assert_eq!(antenna.inertial.inertia.matrix(), Matrix3::zeros());
    let body = m.body("body").unwrap();
    let (m1, m2) = (2.0, 0.000001);
    assert_eq!(body.inertial.mass, m1 + m2);
    let mount = nalgebra::Isometry3::new(Vector3::new(0.0, 0.1, 0.2), Vector3::new(0.0, 0.0, 0.5));
    let antenna_frame =
        mount * nalgebra::Isometry3::new(Vector3::new(-0.2, 0.1, 0.19), Vector3::new(0.3, 0.0, 0.0));
    let c2 = antenna_frame * nalgebra::Point3::new(0.01, 0.0, 0.0);
    let c1 = Vector3::new(0.0, 0.0, 0.1);
    let com = (c1 * m1 + c2.coords * m2) / (m1 + m2);
    assert!((body.inertial.com - com).norm() < 1e-15);
    let r = antenna_frame.rotation.to_rotation_matrix().into_inner();
    let own = Matrix3::new(
        2.371e-8, 6.119e-8, 1.179e-8, 6.119e-8, 2.833e-8, 7.74e-9, 1.179e-8, 7.74e-9, 3.849e-8,
    );
    let point = |m: f64, d: Vector3<f64>| (Matrix3::identity() * d.dot(&d) - d * d.transpose()) * m;
    let expected = Matrix3::from_diagonal(&Vector3::new(0.02, 0.03, 0.04))
        + point(m1, c1 - com)
        + r * own * r.transpose()
        + point(m2, c2.coords - com);
    let got = body.inertial.inertia_in_body_axes();
    assert!((got - expected).norm() < 1e-15, "{got} != {expected}");
}

#[test]
fn a_fixed_link_unphysical_even_welded_is_read_as_written_with_a_warning() {
    // Nothing heavy to weld to: the composite keeps the negative moment, so the link keeps it
    // as urdfdom, Pinocchio and Drake do, and validation warns with its size.
    let text = r#"<robot name="r">
      <link name="base"/>
      <link name="bad"><inertial><mass value="1"/><inertia ixx="-1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>
      <joint name="w" type="fixed"><parent link="base"/><child link="bad"/></joint>
    </robot>"#;
    let imported = mbconv_urdf::UrdfFormat
        .read(&Source::from_string("r.urdf", text), &Options::default())
        .unwrap();
    assert!(!imported.report.contains("urdf.inertia_welded"));
    let validation = mbconv_ir::validate(&imported.model);
    let finding = validation
        .findings
        .iter()
        .find(|f| f.code == "inertia.not_psd")
        .unwrap();
    assert_eq!(finding.severity, mbconv_ir::report::Severity::Warning);
    assert!(
        finding.message.contains("negative principal moment of -1 "),
        "{}",
        finding.message
    );
    assert!(!validation.has_errors());
}

#[test]
fn a_visual_or_collision_without_geometry_is_skipped_with_a_warning() {
    let imported = read("visual_without_geometry.urdf");
    let warnings = findings(&imported, "urdf.geometry_missing");
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(warnings.iter().all(|(s, _, _)| *s == Severity::Warning));
    let a = imported.model.body("a").unwrap();
    assert_eq!(a.shapes.len(), 2);
    assert!(
        a.shapes
            .iter()
            .all(|s| matches!(s.geometry, Geometry::Sphere { .. }))
    );
}

#[test]
fn an_undefined_material_leaves_the_visual_without_one() {
    let imported = read("undefined_material.urdf");
    let warnings = findings(&imported, "urdf.material_undefined");
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].2.contains("\"chrome\""), "{warnings:?}");
    let a = imported.model.body("a").unwrap();
    assert_eq!(a.shapes.len(), 3);
    assert!(a.shapes[0].appearance.is_none());
    assert!(a.shapes[0].extras.get("urdf.material").is_none());
    // A material a visual defines is known to the visuals after it.
    let red = a.shapes[2].appearance.as_ref().unwrap();
    assert_eq!(red.diffuse, Some([1.0, 0.0, 0.0]));
}

#[test]
fn a_mimic_of_a_joint_that_does_not_exist_is_dropped_with_a_warning() {
    let imported = read("mimic_unknown_joint.urdf");
    let warnings = findings(&imported, "urdf.mimic_unknown");
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert_eq!(warnings[0].1, "joints[\"j\"]");
    let joint = |name: &str| imported.model.joints.iter().find(|j| j.name == name).unwrap();
    assert!(joint("j").extras.get("urdf.mimic").is_none());
    assert!(matches!(joint("i").extras.get("urdf.mimic"), Some(Value::Map(_))));
    // The mimic of "i" is reported as ever; the dropped one is not also reported as kept.
    let mimics = findings(&imported, "urdf.mimic");
    assert_eq!(mimics.len(), 1, "{mimics:?}");
}

#[test]
fn packages_are_found_by_their_manifest_and_a_missing_file_says_so() {
    let packages = mbconv_test_support::fixtures_root().join("urdf").join("packages");
    let path = mbconv_test_support::fixtures_root().join("urdf/lenient/package_by_manifest.urdf");
    let mut options = Options::default();
    options.set("package_path", packages.display().to_string());
    let imported = mbconv_urdf::UrdfFormat
        .read(&Source::from_path(&path).unwrap(), &options)
        .unwrap();
    let body = &imported.model.bodies[0];
    let resolved = |i: usize| match &body.shapes[i].geometry {
        Geometry::Mesh(mesh) => mesh.resolved_path.clone(),
        other => panic!("not a mesh: {other:?}"),
    };
    let shown = |p: std::path::PathBuf| Some(p.display().to_string());
    assert_eq!(
        resolved(0),
        shown(packages.join("vendor/manifest-named/meshes/tri.obj"))
    );
    assert_eq!(resolved(1), None);
    assert_eq!(
        resolved(2),
        shown(packages.join("demo_description/meshes/tri.obj"))
    );
    let missing = findings(&imported, "urdf.package_file_missing");
    assert_eq!(missing.len(), 1, "{missing:?}");
    let demo = packages.join("demo_description").display().to_string();
    assert!(
        missing[0].2.contains("\"meshes/gone.stl\"")
            && missing[0].2.contains("package \"demo_description\"")
            && missing[0].2.contains(&demo),
        "{missing:?}"
    );
    assert!(!imported.report.contains("urdf.package_unresolved"));
}

#[test]
fn a_package_under_no_root_is_found_from_the_model_files_folder_up() {
    // With no package_path: the folder above the file whose package.xml names the package,
    // and the folder above the file named after it (example-robot-data's pr2.urdf).
    let packages = mbconv_test_support::fixtures_root().join("urdf").join("packages");
    let by_manifest = packages.join("vendor/manifest-named");
    let path = by_manifest.join("urdf/beside.urdf");
    let imported = mbconv_urdf::UrdfFormat
        .read(&Source::from_path(&path).unwrap(), &Options::default())
        .unwrap();
    let body = &imported.model.bodies[0];
    let resolved = |i: usize| match &body.shapes[i].geometry {
        Geometry::Mesh(mesh) => mesh.resolved_path.clone(),
        other => panic!("not a mesh: {other:?}"),
    };
    assert_eq!(
        resolved(0),
        Some(by_manifest.join("meshes/tri.obj").display().to_string())
    );
    assert_eq!(resolved(1), None);
    assert_eq!(resolved(2), None);
    // Said once, where it was found.
    let beside = findings(&imported, "urdf.package_beside_file");
    assert_eq!(beside.len(), 1, "{beside:?}");
    assert!(
        beside[0].0 == Severity::Info && beside[0].2.contains(&by_manifest.display().to_string()),
        "{beside:?}"
    );
    // A file missing from the package found is a missing file, not a missing package.
    let missing = findings(&imported, "urdf.package_file_missing");
    assert_eq!(missing.len(), 1, "{missing:?}");
    assert!(missing[0].2.contains("\"meshes/gone.stl\""), "{missing:?}");
    let unresolved = findings(&imported, "urdf.package_unresolved");
    assert_eq!(unresolved.len(), 1, "{unresolved:?}");
    assert!(
        unresolved[0].2.contains("elsewhere_description"),
        "{unresolved:?}"
    );

    let by_name = packages.join("demo_description");
    let path = by_name.join("urdf/beside.urdf");
    let imported = mbconv_urdf::UrdfFormat
        .read(&Source::from_path(&path).unwrap(), &Options::default())
        .unwrap();
    let Geometry::Mesh(mesh) = &imported.model.bodies[0].shapes[0].geometry else {
        panic!("not a mesh");
    };
    assert_eq!(
        mesh.resolved_path,
        Some(by_name.join("meshes/tri.obj").display().to_string())
    );
    // A root that holds the package comes first: the same package under package_path.
    let mut options = Options::default();
    options.set("package_path", packages.display().to_string());
    let imported = mbconv_urdf::UrdfFormat
        .read(&Source::from_path(&path).unwrap(), &options)
        .unwrap();
    assert!(!imported.report.contains("urdf.package_beside_file"));
}

#[test]
fn a_moving_link_whose_inertia_is_round_off_is_read_as_written_with_a_warning() {
    // iCub's links: tensors of 1e-20 whose principal moments come out negative. The check is
    // relative to the link's inertia about its frame origin, so they are singular, not
    // unphysical, and kept as written (Pinocchio and Drake read them).
    let imported = read("roundoff_inertia.urdf");
    let m = &imported.model;
    let hip = m.body("hip").unwrap();
    assert_eq!(hip.inertial.inertia.0[0][0], -5.42101e-20);
    assert_eq!(m.body("ankle").unwrap().inertial.inertia.0[0][2], 1.35525e-20);
    let validation = mbconv_ir::validate(m);
    let singular: Vec<&str> = validation
        .findings
        .iter()
        .filter(|f| f.code.starts_with("inertia."))
        .map(|f| {
            assert_eq!(
                (f.code.as_str(), f.severity),
                ("inertia.singular", Severity::Warning)
            );
            f.path.as_deref().unwrap_or_default()
        })
        .collect();
    assert_eq!(
        singular,
        ["bodies[\"ankle\"].inertial", "bodies[\"hip\"].inertial"]
    );
}

#[test]
fn a_namespace_prefix_without_declaration_is_read_with_a_note() {
    // Held-out round (docs/held-out.md): a fetch.urdf whose <gazebo> block uses `sensor:`.
    let imported = read("undeclared_prefix.urdf");
    let notes = findings(&imported, "urdf.undeclared_prefix");
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert_eq!(notes[0].0, Severity::Info);
    assert!(notes[0].2.contains("`sensor`"), "{}", notes[0].2);
    let finding = imported
        .report
        .findings
        .iter()
        .find(|f| f.code == "urdf.undeclared_prefix")
        .unwrap();
    let span = finding.span.as_ref().unwrap();
    assert_eq!((span.line, span.column), (27, 5), "{span:?}");
    let m = &imported.model;
    assert_eq!(m.bodies.len(), 2);
    assert_eq!(m.body("head").unwrap().inertial.mass, 0.5);
    // Positions after the root element stay true.
    assert_eq!(imported.span_of("joints[\"pan\"]").unwrap().line, 12);
}

#[test]
fn whitespace_before_the_declaration_is_read_with_a_note() {
    // Held-out round (docs/held-out.md): pybullet's diff_ring.urdf starts with a blank line.
    let imported = read("declaration_after_blank_line.urdf");
    let notes = findings(&imported, "urdf.declaration_after_whitespace");
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert_eq!(notes[0].0, Severity::Info);
    assert_eq!(imported.model.bodies.len(), 2);
    assert_eq!(imported.span_of("joints[\"axle\"]").unwrap().line, 12);
}

#[test]
fn xacro_macro_calls_left_in_a_written_file_are_skipped_with_a_warning() {
    // Held-out round (docs/held-out.md): robotisOP2.urdf (<xacro:grey/> in visuals) and
    // Valkyrie's valkyrie_sim.urdf (<xacro:v1_pelvis_sensors_usb .../> beside the links),
    // written by xacro with calls left unexpanded; Pinocchio and Drake read them.
    let imported = read("xacro_leftover_calls.urdf");
    let warnings = findings(&imported, "urdf.xacro_call_skipped");
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(warnings.iter().all(|(s, _, _)| *s == Severity::Warning));
    assert!(warnings[0].2.contains("<xacro:grey>"), "{}", warnings[0].2);
    assert!(
        warnings[1].2.contains("<xacro:pelvis_sensors>"),
        "{}",
        warnings[1].2
    );
    let m = &imported.model;
    assert_eq!(m.bodies.len(), 2);
    assert_eq!(m.body("torso").unwrap().shapes.len(), 1);
    // The call is not kept as an extension element to be written back.
    assert!(m.extras.get("urdf.xacro:pelvis_sensors").is_none());
    assert!(findings(&imported, "urdf.extension_kept").is_empty());
}

#[test]
fn limits_with_lower_above_upper_are_read_as_no_limit_with_a_warning() {
    // Held-out round (docs/held-out.md): pybullet's cube_no_rotation.urdf (lower="1"
    // upper="-1") and a Pioneer base's pan joint; Pinocchio and MuJoCo read them and apply
    // no stop.
    let imported = read("inverted_limits.urdf");
    let warnings = findings(&imported, "urdf.limits_inverted");
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(warnings.iter().all(|(s, _, _)| *s == Severity::Warning));
    assert!(warnings[1].2.contains("2.775"), "{}", warnings[1].2);
    for joint in &imported.model.joints {
        let dof = &joint.dofs[0];
        assert!(
            dof.position_limits.lower.is_none() && dof.position_limits.upper.is_none(),
            "{}",
            joint.name
        );
        assert!(dof.effort_limits.upper.is_some());
    }
}

#[test]
fn shapes_urdfdom_cannot_parse_are_skipped_with_a_warning() {
    // Held-out round (docs/held-out.md): pybullet's racecar_differential.urdf (a mesh `scale`
    // of four numbers); Pinocchio reads the robot without the link's shapes.
    let imported = read("shape_unreadable.urdf");
    let warnings = findings(&imported, "urdf.shape_unreadable");
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(warnings.iter().all(|(s, _, _)| *s == Severity::Warning));
    assert!(warnings[0].2.contains("`scale`"), "{}", warnings[0].2);
    assert!(warnings[1].2.contains("`size`"), "{}", warnings[1].2);
    let chassis = imported.model.body("chassis").unwrap();
    assert_eq!(chassis.shapes.len(), 1);
    assert!(matches!(chassis.shapes[0].geometry, Geometry::Box { .. }));
    assert_eq!(chassis.inertial.mass, 4.0);
    // The files fixtures/bad/ held before the round: each one shape, skipped.
    for name in [
        "shape_unreadable_box_without_size.urdf",
        "shape_unreadable_geometry_empty.urdf",
        "shape_unreadable_mesh_without_filename.urdf",
    ] {
        let imported = read(name);
        assert_eq!(findings(&imported, "urdf.shape_unreadable").len(), 1, "{name}");
        assert!(imported.model.bodies[0].shapes.is_empty(), "{name}");
    }
}

#[test]
fn attributes_not_separated_by_whitespace_are_read_with_a_warning_and_true_positions() {
    // Held-out round (docs/held-out.md, defect 2, found in an MJCF file): urdfdom's XML parser
    // reads `name="hinge"type="revolute"`; Pinocchio 4.1 and Drake 1.51 read this fixture as
    // the same text with the spaces (measured: joints, limits, inertias, placements equal).
    let (imported, text) = mbconv_test_support::read_attributes_not_separated(
        &mbconv_urdf::UrdfFormat,
        "attributes_not_separated.urdf",
        &["ixy", "rpy", "type", "upper"],
    );
    let warning = &imported.report.findings[0];
    let span = warning.span.as_ref().unwrap();
    assert_eq!((span.line, span.column, span.length), (6, 66, 3));
    assert!(
        warning
            .message
            .contains("(4 places in this file: 6:66, 7:51, 7:182, 7:274)"),
        "{}",
        warning.message
    );
    // The joint follows two places on its line: its position is the file's.
    let joint = imported.span_of("joints[\"hinge\"]").unwrap();
    let at = text.find("<joint name=\"hinge\"").unwrap();
    assert_eq!((joint.offset, joint.line, joint.column), (at, 7, 163));
    // An error after such a place on the same line points into the file.
    let bad = text.replace("upper=\"1\"", "upper=\"x\"");
    let error = mbconv_urdf::UrdfFormat
        .read(
            &Source::from_string("bad.urdf", bad.as_str()),
            &Options::default(),
        )
        .unwrap_err()
        .to_string();
    let (line, column) = mbconv_test_support::line_column(&bad, bad.find("upper=\"x\"").unwrap() + 7);
    assert!(
        error.starts_with(&format!("bad.urdf:{line}:{column}: ")),
        "{error}"
    );
}
