//! The hand-written fixtures of `fixtures/sdf/`, each checked against values computed by hand
//! from the SDFormat rules (pose-frame semantics of 1.7 and later, the older rules, includes,
//! screw pitch conventions, degrees and quaternions), and valid in the IR.
#![allow(clippy::unwrap_used)]

use mbconv_ir::format::{Format, Imported, Options, Source};
use mbconv_ir::{BodyRef, Joint, JointKind, Model, Pose, Severity};
use nalgebra::{UnitQuaternion, Vector3};
use std::f64::consts::{FRAC_PI_2, PI};
use std::path::PathBuf;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/sdf")
        .join(name)
}

fn read_with(name: &str, options: &Options) -> Imported {
    let source = Source::from_path(&fixture(name)).unwrap();
    let imported = mbconv_sdf::SdfFormat
        .read(&source, options)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let report = mbconv_ir::validate::validate(&imported.model);
    let errors: Vec<String> = report.at_least(Severity::Error).map(|f| f.to_string()).collect();
    assert!(errors.is_empty(), "{name}: {errors:?}");
    imported
}

fn read(name: &str) -> Imported {
    read_with(name, &Options::default())
}

fn body_pose(model: &Model, name: &str) -> Pose {
    model
        .bodies
        .iter()
        .find(|b| b.name == name)
        .unwrap_or_else(|| panic!("no body {name}"))
        .pose
}

fn joint<'m>(model: &'m Model, name: &str) -> &'m Joint {
    model
        .joints
        .iter()
        .find(|j| j.name == name)
        .unwrap_or_else(|| panic!("no joint {name}"))
}

fn close(a: Vector3<f64>, b: [f64; 3]) -> bool {
    (a - Vector3::from(b)).norm() < 1e-12
}

fn yaw(angle: f64) -> UnitQuaternion<f64> {
    UnitQuaternion::from_axis_angle(&Vector3::z_axis(), angle)
}

#[test]
fn relative_to_chains_through_frames_and_nested_models() {
    let model = read("relative_to_chain.sdf").model;
    // Model at x=1; base 0.5 up; shoulder 0.25 above base turned 90° about z; elbow 0.5 along
    // the shoulder's x (the world's y); arm at the elbow.
    assert!(close(body_pose(&model, "base").translation, [1.0, 0.0, 0.5]));
    let arm = body_pose(&model, "arm");
    assert!(close(arm.translation, [1.0, 0.5, 0.75]));
    assert!(arm.rotation.angle_to(&yaw(FRAC_PI_2)) < 1e-12);
    // The joint frame is the shoulder frame: 0.25 above base, half a metre behind the arm
    // along the arm's own x.
    let j = joint(&model, "shoulder_joint");
    assert_eq!(j.parent, BodyRef::body("base"));
    assert!(close(j.parent_frame.translation, [0.0, 0.0, 0.25]));
    assert!(close(j.child_frame.translation, [-0.5, 0.0, 0.0]));
    // The axis is the model's x, expressed in the joint frame turned 90°: -y.
    let JointKind::Revolute { axis } = j.kind else {
        panic!("{:?}", j.kind)
    };
    assert!(close(axis, [0.0, -1.0, 0.0]));
    assert_eq!(j.dofs[0].position_limits.lower, Some(-1.0));
    // The nested model hangs 0.1 below the arm; its palm 0.05 below that; its frame `tip` is
    // on the palm, 0.05 below it.
    let palm = model.bodies.iter().find(|b| b.name == "hand::palm").unwrap();
    assert!(close(palm.pose.translation, [1.0, 0.5, 0.6]));
    let tip = palm.frames.iter().find(|f| f.name == "hand::tip").unwrap();
    assert!(close(tip.pose.translation, [0.0, 0.0, -0.05]));
    let wrist = joint(&model, "wrist");
    assert_eq!(wrist.child, BodyRef::body("hand::palm"));
    assert!(close(wrist.child_frame.translation, [0.0, 0.0, 0.0]));
    assert!(close(wrist.parent_frame.translation, [0.0, 0.0, -0.15]));
    // No joint holds the base: it floats, as in Drake and Gazebo.
    assert!(!model.bodies[0].fixed);
}

#[test]
fn four_bar_loop_is_a_fourth_joint() {
    let imported = read("four_bar.sdf");
    let model = &imported.model;
    assert_eq!(model.joints.len(), 4);
    assert!(imported.report.contains("sdf.loop"));
    let close_joint = joint(model, "close");
    // The joint sits 0.5 above the rocker's centre, which is the coupler's far end.
    assert!(close(close_joint.child_frame.translation, [0.0, 0.0, 0.5]));
    let coupler = body_pose(model, "coupler");
    let world = coupler * close_joint.parent_frame;
    assert!(close(world.translation, [1.0, 0.0, 1.0]));
}

#[test]
fn world_with_two_models_and_includes() {
    let mut options = Options::default();
    options.set("model_path", fixture("models").display().to_string());
    let imported = read_with("world_include.sdf", &options);
    let model = &imported.model;
    assert_eq!(model.name, "yard");
    assert_eq!(model.simulation.gravity, Some(Vector3::new(0.0, 0.0, -9.81)));
    assert_eq!(model.simulation.time_step, Some(0.002));
    let names: Vec<&str> = model.bodies.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(
        names,
        ["ground::floor", "pendulum::bob", "crate_a::body", "crate_b::body"]
    );
    assert!(model.bodies[0].fixed && model.bodies[3].fixed && !model.bodies[2].fixed);
    // The include's pose replaces the file's; without one the file's pose stays.
    assert!(close(
        body_pose(model, "crate_a::body").translation,
        [3.0, 0.0, 0.0]
    ));
    assert!(close(
        body_pose(model, "crate_b::body").translation,
        [0.0, 0.0, 0.25]
    ));
    assert!(close(
        body_pose(model, "pendulum::bob").translation,
        [0.0, 2.0, 0.0]
    ));
    let pivot = joint(model, "pendulum::pivot");
    assert_eq!(pivot.parent, BodyRef::World);
    assert!(close(pivot.parent_frame.translation, [0.0, 2.0, 1.0]));
    assert_eq!(pivot.dofs[0].damping, 0.1);
    assert!(pivot.dofs[0].position_limits.is_unlimited());
    assert!(model.extras.get("sdf.light").is_some());
    let bob = &model.bodies[1];
    // The model's plugin rides on its canonical link, marked as the model's.
    assert!(bob.extras.get("sdf.sensor").is_some() && bob.extras.get("sdf.model.plugin").is_some());
    // Held-out round (docs/held-out.md): the writer gives it back in the <model>, where
    // libsdformat (Drake) takes it; inside the <link> Drake refused 22 written gz-sim worlds
    // and gazebo_models (plugins, <allow_auto_disable>).
    let text = mbconv_sdf::SdfFormat
        .write(model, &Options::default())
        .unwrap()
        .text;
    let document = mbconv_xml::roxmltree::Document::parse(&text).unwrap();
    let plugin = document
        .descendants()
        .find(|n| n.has_tag_name("plugin") && n.attribute("name") == Some("foo"))
        .unwrap();
    assert_eq!(
        plugin.parent_element().unwrap().tag_name().name(),
        "model",
        "{text}"
    );
}

#[test]
fn model_uri_without_a_model_path_is_a_located_error() {
    let source = Source::from_path(&fixture("world_include.sdf")).unwrap();
    let error = mbconv_sdf::SdfFormat
        .read(&source, &Options::default())
        .unwrap_err()
        .to_string();
    assert!(error.contains("world_include.sdf:34:"), "{error}");
    assert!(error.contains("model://crate"), "{error}");
}

#[test]
fn screw_pitch_follows_each_versions_convention() {
    let old = read("screw_versions.sdf").model;
    let JointKind::Screw { pitch, .. } = joint(&old, "thread").kind else {
        panic!()
    };
    // -2π / -4π = 0.5 m per turn.
    assert!((pitch - 0.5).abs() < 1e-15);
    let new = read("screw_1_10.sdf").model;
    let JointKind::Screw { pitch, .. } = joint(&new, "thread").kind else {
        panic!()
    };
    assert_eq!(pitch, 0.25);
}

#[test]
fn degrees_quaternions_rotated_inertia_and_springs_in_1_12() {
    let model = read("degrees_1_12.sdf").model;
    let base = &model.bodies[0];
    assert!(base.pose.rotation.angle_to(&yaw(FRAC_PI_2)) < 1e-15);
    assert_eq!(base.inertial.mass, 3.0);
    assert_eq!(base.inertial.inertia.0[0][1], 0.01);
    assert_eq!(base.inertial.inertia.0[1][2], 0.03);
    assert!((base.inertial.inertia_rotation.angle() - 0.5).abs() < 1e-15);
    // The arm's quaternion is 90° about z, relative to the base (itself 90°): 180° in all.
    let arm = body_pose(&model, "arm");
    assert!(arm.rotation.angle_to(&yaw(PI)) < 1e-12);
    assert!(close(arm.translation, [0.0, 0.0, 0.5]));
    let j = joint(&model, "spring");
    let JointKind::Revolute { axis } = j.kind else {
        panic!()
    };
    let h = std::f64::consts::FRAC_1_SQRT_2;
    assert!(close(axis, [0.0, h, h]));
    let dof = &j.dofs[0];
    assert_eq!(
        (
            dof.damping,
            dof.friction,
            dof.spring_rest_position,
            dof.spring_stiffness
        ),
        (0.5, 0.1, 0.2, 40.0)
    );
    assert_eq!(
        (dof.effort_limits.upper, dof.velocity_limits.upper),
        (Some(10.0), Some(2.0))
    );
}

#[test]
fn use_parent_model_frame_before_1_7() {
    let model = read("parent_model_frame_1_5.sdf").model;
    // Joint frames are the child link frames, turned 90° about z.
    let JointKind::Revolute { axis } = joint(&model, "in_joint_frame").kind else {
        panic!()
    };
    assert!(close(axis, [1.0, 0.0, 0.0]));
    // The model's x in a frame turned 90° about z is -y.
    let JointKind::Revolute { axis } = joint(&model, "in_model_frame").kind else {
        panic!()
    };
    assert!(close(axis, [0.0, -1.0, 0.0]));
}

fn read_text(text: &str) -> Model {
    let source = Source::from_string("inline.sdf", text);
    mbconv_sdf::SdfFormat
        .read(&source, &Options::default())
        .unwrap_or_else(|e| panic!("{e}"))
        .model
}

#[test]
fn axes_of_1_4_are_in_the_model_frame() {
    // libsdformat's 1.4 -> 1.5 conversion adds use_parent_model_frame=true to every axis.
    let text = std::fs::read_to_string(fixture("parent_model_frame_1_5.sdf"))
        .unwrap()
        .replace("version=\"1.5\"", "version=\"1.4\"");
    let model = read_text(&text);
    for name in ["in_joint_frame", "in_model_frame"] {
        let JointKind::Revolute { axis } = joint(&model, name).kind else {
            panic!()
        };
        assert!(close(axis, [0.0, -1.0, 0.0]), "{name}: {axis:?}");
    }
}

#[test]
fn placement_frame_places_the_model_and_canonical_link_holds_its_frames() {
    let model = read_text(
        r#"<sdf version="1.8"><world name="w">
          <model name="m" placement_frame="foot" canonical_link="b">
            <pose>0 0 0 0 0 0</pose>
            <link name="a"><pose>5 0 0 0 0 0</pose></link>
            <link name="b"/>
            <frame name="foot"><pose>0 0 -0.5 0 0 0</pose></frame>
          </model></world></sdf>"#,
    );
    // The foot is put at the world origin, so the model frame is 0.5 up.
    assert!(close(body_pose(&model, "m::b").translation, [0.0, 0.0, 0.5]));
    assert!(close(body_pose(&model, "m::a").translation, [5.0, 0.0, 0.5]));
    // The frame attached to the model frame rides on the canonical link, b.
    let b = model.bodies.iter().find(|x| x.name == "m::b").unwrap();
    assert_eq!(b.frames[0].name, "m::foot");
    assert!(close(b.frames[0].pose.translation, [0.0, 0.0, -0.5]));
}

#[test]
fn later_attributes_are_read_in_every_version() {
    // libsdformat converts every file to its newest version before reading it, so
    // relative_to, degrees, frames and canonical_link work in a 1.6 file (as Drake 1.51 reads
    // it: b at z = 2 turned 90°, c 1 m along b's x).
    for version in ["1.6", "1.8", "1.12"] {
        let model = read_text(&format!(
            r#"<sdf version="{version}"><model name="m" canonical_link="b">
              <link name="a"><pose>0 0 1 0 0 0</pose></link>
              <link name="b"><pose relative_to="a" degrees="true">0 0 1 0 0 90</pose></link>
              <frame name="f" attached_to="b"><pose>1 0 0 0 0 0</pose></frame>
              <link name="c"><pose relative_to="f">0 0 0 0 0 0</pose></link>
            </model></sdf>"#
        ));
        let b = body_pose(&model, "b");
        assert!(close(b.translation, [0.0, 0.0, 2.0]), "{version}");
        assert!(b.rotation.angle_to(&yaw(FRAC_PI_2)) < 1e-12, "{version}");
        assert!(
            close(body_pose(&model, "c").translation, [0.0, 1.0, 2.0]),
            "{version}"
        );
    }
}

#[test]
fn automatic_inertia_from_collisions() {
    // A 1 m cube of density 6 beside a sphere of radius 0.5 at the default density 1000,
    // 2 m apart along x (inertial_stats_auto.sdf has the cube alone: mass 6, as Drake reads it).
    let model = read_text(
        r#"<sdf version="1.11"><model name="m"><link name="a">
          <inertial auto="true"><pose>9 9 9 0 0 0</pose></inertial>
          <collision name="cube"><density>6</density><geometry><box><size>1 1 1</size></box></geometry></collision>
          <collision name="ball"><pose>2 0 0 0 0 0</pose><geometry><sphere><radius>0.5</radius></sphere></geometry></collision>
          <visual name="v"><geometry><box><size>5 5 5</size></box></geometry></visual>
        </link></model></sdf>"#,
    );
    let inertial = &model.bodies[0].inertial;
    let ball = 1000.0 * 4.0 / 3.0 * PI * 0.125;
    let total = 6.0 + ball;
    assert!((inertial.mass - total).abs() < 1e-9);
    assert!(close(inertial.com, [2.0 * ball / total, 0.0, 0.0]));
    // About the centre of mass: each part's own inertia plus its parallel-axis term.
    let (xc, xb) = (inertial.com.x, 2.0 - inertial.com.x);
    let iyy = 6.0 / 6.0 + 6.0 * xc * xc + 0.4 * ball * 0.25 + ball * xb * xb;
    assert!((inertial.inertia.0[1][1] - iyy).abs() < 1e-9);
    assert!((inertial.inertia.0[0][0] - (1.0 + 0.1 * ball)).abs() < 1e-9);
}

#[test]
fn an_error_inside_an_included_file_names_that_file() {
    let dir = std::env::temp_dir().join(format!("mbconv-sdf-include-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("broken")).unwrap();
    std::fs::write(
        dir.join("broken/model.sdf"),
        "<sdf version=\"1.9\">\n<model name=\"b\">\n  <link name=\"a\"><pose>0 0 x 0 0 0</pose></link>\n</model>\n</sdf>\n",
    )
    .unwrap();
    let main = dir.join("world.sdf");
    std::fs::write(
        &main,
        "<sdf version=\"1.9\"><world name=\"w\">\n<include><uri>broken</uri></include>\n</world></sdf>\n",
    )
    .unwrap();
    let error = mbconv_sdf::SdfFormat
        .read(&Source::from_path(&main).unwrap(), &Options::default())
        .unwrap_err()
        .to_string();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(error.contains("broken/model.sdf:3:"), "{error}");
    assert!(error.contains("\"x\""), "{error}");
}

/// `package://` mesh URIs resolve as the URDF reader resolves them: a package found by the
/// `<name>` of its `package.xml` under the `package_path` setting, then by its folder's name;
/// a file missing in a package that was found says so, as does a package not found.
#[test]
fn package_uris_resolve_through_the_package_path_setting() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src/robot-data/meshes")).unwrap();
    std::fs::write(dir.path().join("src/robot-data/meshes/arm.stl"), "solid").unwrap();
    std::fs::write(
        dir.path().join("src/robot-data/package.xml"),
        "<package format=\"3\"><name>robot_data</name></package>",
    )
    .unwrap();
    let text = r#"<sdf version="1.9"><model name="m"><link name="l">
      <visual name="a"><geometry><mesh><uri>package://robot_data/meshes/arm.stl</uri></mesh></geometry></visual>
      <visual name="b"><geometry><mesh><uri>package://robot_data/meshes/leg.stl</uri></mesh></geometry></visual>
      <visual name="c"><geometry><mesh><uri>package://elsewhere/x.stl</uri></mesh></geometry></visual>
    </link></model></sdf>"#;
    let mut options = Options::default();
    options.set("package_path", dir.path().display().to_string());
    let imported = mbconv_sdf::SdfFormat
        .read(&Source::from_string("m.sdf", text), &options)
        .unwrap();
    let resolved: Vec<Option<String>> = imported.model.bodies[0]
        .shapes
        .iter()
        .map(|s| match &s.geometry {
            mbconv_ir::Geometry::Mesh(m) => m.resolved_path.clone(),
            g => panic!("{g:?}"),
        })
        .collect();
    let arm = dir.path().join("src/robot-data/meshes/arm.stl");
    assert_eq!(resolved, [Some(arm.display().to_string()), None, None]);
    let message = |code: &str| {
        imported
            .report
            .findings
            .iter()
            .find(|f| f.code == code)
            .unwrap_or_else(|| panic!("no {code}: {:#?}", imported.report.findings))
            .message
            .clone()
    };
    assert!(message("sdf.package_file_missing").contains("not found in package \"robot_data\""));
    assert!(message("sdf.package_unresolved").contains("package \"elsewhere\""));
}

/// A package folder beside the SDFormat file is found for `package://` URIs, and a `model://`
/// URI under no model root is looked for as a package, as Drake reads it (Pinocchio's
/// `models/simple_humanoid.sdf` naming `model://simple_humanoid_description/box.stl`); a
/// package found nowhere stays a note.
#[test]
fn model_and_package_uris_find_a_package_folder_beside_the_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("robot_description/meshes")).unwrap();
    std::fs::write(dir.path().join("robot_description/meshes/arm.stl"), "solid").unwrap();
    let main = dir.path().join("robot.sdf");
    std::fs::write(
        &main,
        r#"<sdf version="1.9"><model name="m"><link name="l">
      <visual name="a"><geometry><mesh><uri>model://robot_description/meshes/arm.stl</uri></mesh></geometry></visual>
      <visual name="b"><geometry><mesh><uri>package://robot_description/meshes/arm.stl</uri></mesh></geometry></visual>
      <visual name="c"><geometry><mesh><uri>model://elsewhere/x.stl</uri></mesh></geometry></visual>
    </link></model></sdf>"#,
    )
    .unwrap();
    let mut options = Options::default();
    options.set("model_path", "none");
    let imported = mbconv_sdf::SdfFormat
        .read(&Source::from_path(&main).unwrap(), &options)
        .unwrap();
    let resolved: Vec<Option<String>> = imported.model.bodies[0]
        .shapes
        .iter()
        .map(|s| match &s.geometry {
            mbconv_ir::Geometry::Mesh(m) => m.resolved_path.clone(),
            g => panic!("{g:?}"),
        })
        .collect();
    let arm = dir.path().join("robot_description/meshes/arm.stl");
    let arm = Some(arm.display().to_string());
    assert_eq!(resolved, [arm.clone(), arm, None]);
    assert!(imported.report.contains("sdf.model_as_package"));
    assert!(imported.report.contains("sdf.model_file_missing"));
}
