//! Choreonoid projects (`.cnoid`) both ways: read as Choreonoid restores them (the body files
//! their body items name, the items' initial state, the simulator item's gravity, time step and
//! integration mode), written beside a body file, and read back as written. The corpus projects
//! are checked against the numbers in the files, read here with a plain YAML reader.

#![allow(clippy::unwrap_used)]

use mbconv_body::BodyFormat;
use mbconv_ir::format::{Format, Imported, Options, Source};
use mbconv_ir::{JointKind, Model};
use mbconv_test_support::{corpus, files_with_extension, fixtures_root};
use nalgebra::{UnitQuaternion, Vector3};
use serde_json::Value;
use std::f64::consts::PI;
use std::path::Path;

fn read(path: &Path) -> Imported {
    let source = Source::from_path(path).unwrap();
    BodyFormat.read(&source, &Options::default()).unwrap()
}

fn fixture(name: &str) -> Imported {
    read(&fixtures_root().join("body").join(name))
}

fn joint<'m>(model: &'m Model, name: &str) -> &'m mbconv_ir::Joint {
    model.joints.iter().find(|j| j.name == name).unwrap()
}

fn body_pose(model: &Model, name: &str) -> mbconv_ir::Pose {
    model.bodies.iter().find(|b| b.name == name).unwrap().pose
}

#[test]
fn todays_keys_place_the_root_set_the_joints_and_the_simulator() {
    let imported = fixture("quirks_project.cnoid");
    let m = &imported.model;
    assert_eq!(m.simulation.gravity, Some(Vector3::new(0.0, -9.8, 0.0)));
    assert_eq!(m.simulation.time_step, Some(0.002));
    assert_eq!(m.simulation.end_time, Some(2.5));
    assert_eq!(
        m.simulation.extras.get("body.integration_mode"),
        Some(&mbconv_ir::Value::String("runge-kutta".into()))
    );
    // The root where the item starts it, turned 90 degrees about z, free.
    let root = body_pose(m, "base");
    assert_eq!(root.translation, Vector3::new(0.1, 0.2, 1.0));
    let turn = UnitQuaternion::from_axis_angle(&Vector3::z_axis(), PI / 2.0);
    assert!(root.rotation.angle_to(&turn) < 1e-15);
    assert!(matches!(joint(m, "base").kind, JointKind::Free));
    // Joint order: no joint ids, so the moving links in tree order (slider, slide, hinge);
    // values in degrees for every joint; the first from initial_joint_displacements.
    assert_eq!(joint(m, "slider").q0, vec![11.459155902616464 * PI / 180.0]);
    assert!((joint(m, "slider").q0[0] - 0.2).abs() < 1e-15);
    assert_eq!(joint(m, "slide").q0, vec![0.0]);
    assert_eq!(joint(m, "hinge").q0, vec![30.0 * PI / 180.0]);
    let report = &imported.report;
    assert!(report.contains("body.project_item_ignored"), "{report:?}");
}

#[test]
fn old_keys_read_as_choreonoid_1_wrote_them() {
    let imported = fixture("arm_old_project.cnoid");
    let m = &imported.model;
    assert_eq!(m.simulation.gravity, Some(Vector3::new(0.0, 0.0, -9.80665)));
    // No time step on the simulator item: the time bar's frame rate.
    assert_eq!(m.simulation.time_step, Some(1.0 / 200.0));
    assert_eq!(m.simulation.end_time, None);
    assert_eq!(
        m.simulation.extras.get("body.integration_mode"),
        Some(&mbconv_ir::Value::String("semi-implicit_euler".into()))
    );
    let shoulder = body_pose(m, "shoulder");
    assert_eq!(shoulder.translation, Vector3::new(0.0, 0.0, 0.5));
    let turn = UnitQuaternion::from_axis_angle(&Vector3::z_axis(), PI / 2.0);
    assert!(shoulder.rotation.angle_to(&turn) < 1e-15);
    // The elbow is 0.4 m above the shoulder, whatever the body file's root position was.
    let elbow = body_pose(m, "elbow");
    assert!((elbow.translation - Vector3::new(0.0, 0.0, 0.9)).norm() < 1e-15);
    assert!(matches!(joint(m, "shoulder").kind, JointKind::Fixed));
    // jointPositions are radians; initialJointPositions wins.
    assert_eq!(joint(m, "elbow").q0, vec![0.3]);
}

#[test]
fn a_written_project_reads_back_as_the_model_written() {
    let original = fixture("quirks_project.cnoid").model;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("quirks.body");
    let mut options = Options::default();
    options.output_path = Some(path.clone());
    let written = BodyFormat.write(&original, &options).unwrap();
    assert_eq!(written.entry.as_deref(), Some("quirks.cnoid"));
    assert_eq!(written.companions.len(), 1);
    std::fs::write(&path, &written.text).unwrap();
    let project = dir.path().join("quirks.cnoid");
    std::fs::write(&project, &written.companions[0].text).unwrap();
    let back = read(&project).model;
    assert_eq!(back.simulation, original.simulation);
    for (a, b) in original.joints.iter().zip(&back.joints) {
        assert_eq!((&a.name, &a.kind, &a.q0), (&b.name, &b.kind, &b.q0));
    }
    for (a, b) in original.bodies.iter().zip(&back.bodies) {
        assert!(
            (a.pose.translation - b.pose.translation).norm() < 1e-15,
            "{}",
            a.name
        );
        assert!(a.pose.rotation.angle_to(&b.pose.rotation) < 1e-15, "{}", a.name);
    }
    // The same bytes twice.
    assert_eq!(
        BodyFormat.write(&original, &options).unwrap().companions,
        written.companions
    );
}

#[test]
fn no_project_on_standard_output_and_gravity_is_then_lost() {
    let model = fixture("quirks_project.cnoid").model;
    let written = BodyFormat.write(&model, &Options::default()).unwrap();
    assert!(written.companions.is_empty());
    assert_eq!(written.entry, None);
    assert!(
        written.report.contains("body.gravity_lost"),
        "{:?}",
        written.report
    );
    assert!(
        written.report.contains("body.time_step_lost"),
        "{:?}",
        written.report
    );
}

fn project_error(text: &str) -> (String, String) {
    let dir = fixtures_root().join("body");
    let source = Source::from_string("bad.cnoid", text).with_path("bad.cnoid", Some(dir.join("bad.cnoid")));
    let error = BodyFormat.read(&source, &Options::default()).unwrap_err();
    let code = error.code().map(|c| c.to_string()).unwrap_or_default();
    (code, error.to_string())
}

#[test]
fn bad_projects_are_refused_with_the_place() {
    let item = |file: &str| {
        format!(
            "items:\n  class: RootItem\n  children:\n    - class: WorldItem\n      children:\n        - class: BodyItem\n          name: b\n          data:\n            file: \"{file}\"\n"
        )
    };
    let (code, message) = project_error(&item("${PROGRAM_TOP}/x.body"));
    assert_eq!(code, "body.path_variable", "{message}");
    assert!(message.contains("PROGRAM_TOP"), "{message}");
    let (code, message) = project_error(&item("missing.body"));
    assert_eq!(code, "body.body_file", "{message}");
    assert!(message.contains("missing.body"), "{message}");
    let (code, _) = project_error("items:\n  class: RootItem\n  children: []\n");
    assert_eq!(code, "body.no_body_item");
    let bad_gravity = format!(
        "{}        - class: AISTSimulatorItem\n          data:\n            gravity: [0, 0]\n",
        item("arm.body")
    );
    let (code, message) = project_error(&bad_gravity);
    assert_eq!(code, "body.list_length", "{message}");
}

/// The item tree of a project as plain YAML data.
fn items(project: &Value) -> Vec<&Value> {
    fn walk<'v>(item: &'v Value, out: &mut Vec<&'v Value>) {
        out.push(item);
        for child in item["children"].as_array().into_iter().flatten() {
            walk(child, out);
        }
    }
    let mut out = Vec::new();
    walk(&project["items"], &mut out);
    out
}

fn number(v: &Value) -> f64 {
    v.as_f64()
        .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
        .unwrap()
}

fn first_key<'v>(data: &'v Value, keys: &[&str]) -> Option<&'v Value> {
    keys.iter().map(|k| &data[*k]).find(|v| !v.is_null())
}

/// Every corpus project whose body files the corpus has reads, with the gravity and time step
/// of its AIST simulator item and the joint values of its body items (joints with a joint id,
/// in degrees or, in old projects, radians); the others fail naming the file that is missing.
#[test]
fn corpus_projects_read_with_the_numbers_in_the_files() {
    let Some(dir) = corpus("body") else {
        return;
    };
    let mut files = files_with_extension(&dir, "cnoid");
    files.sort();
    let (mut read_count, mut compared_joints) = (0, 0);
    let mut failures = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let project: Value = mbconv_yaml::serde_saphyr::from_str(&text).unwrap();
        let source = Source::from_path(file).unwrap();
        let imported = match BodyFormat.read(&source, &Options::default()) {
            Ok(imported) => imported,
            Err(e) => {
                let code = e.code().map(|c| c.to_string()).unwrap_or_default();
                let named = ["body.body_file", "body.path_variable", "body.no_body_item"];
                if !named.contains(&code.as_str()) {
                    failures.push(format!("{}: {e}", file.display()));
                }
                continue;
            }
        };
        read_count += 1;
        let m = &imported.model;
        let invalid: Vec<String> = mbconv_ir::validate(m)
            .at_least(mbconv_ir::Severity::Error)
            .filter(|f| f.code != "inertia.triangle" && f.code != "inertia.asymmetric")
            .map(|f| f.to_string())
            .collect();
        if !invalid.is_empty() {
            failures.push(format!("{}: {}", file.display(), invalid.join("; ")));
        }
        let all = items(&project);
        let aist = all.iter().find(|i| i["class"] == "AISTSimulatorItem");
        let gravity = aist
            .and_then(|a| a["data"]["gravity"].as_array())
            .map_or([0.0, 0.0, -9.80665], |g| {
                [number(&g[0]), number(&g[1]), number(&g[2])]
            });
        if m.simulation.gravity != Some(Vector3::from(gravity)) {
            failures.push(format!("{}: gravity {:?}", file.display(), m.simulation.gravity));
        }
        let step_keys = ["time_step", "timeStep", "timestep"];
        let step = aist.and_then(|a| first_key(&a["data"], &step_keys));
        if let Some(step) = step
            && m.simulation.time_step != Some(number(step))
        {
            failures.push(format!(
                "{}: time step {:?}",
                file.display(),
                m.simulation.time_step
            ));
        }
        let body_items: Vec<&&Value> = all
            .iter()
            .filter(|i| i["class"] == "BodyItem" && first_key(&i["data"], &["file", "modelFile"]).is_some())
            .collect();
        for (n, item) in body_items.iter().enumerate() {
            let data = &item["data"];
            // Choreonoid's rule: the initial list where it has a value, else the current one.
            let list = |keys: &[&str]| -> Vec<f64> {
                first_key(data, keys)
                    .and_then(Value::as_array)
                    .map(|a| a.iter().map(number).collect())
                    .unwrap_or_default()
            };
            let merged = |initial: Vec<f64>, current: Vec<f64>| -> Vec<f64> {
                (0..initial.len().max(current.len()))
                    .map(|i| *initial.get(i).or(current.get(i)).unwrap())
                    .collect()
            };
            let new_keys = ["joint_displacements", "jointDisplacements"];
            let current = list(&new_keys);
            let (values, degrees) = if first_key(data, &new_keys).is_some() {
                let n = current.len();
                let initial = list(&["initial_joint_displacements", "initialJointDisplacements"]);
                let mut values = merged(initial, current);
                values.truncate(n);
                (values, true)
            } else {
                (
                    merged(list(&["initialJointPositions"]), list(&["jointPositions"])),
                    false,
                )
            };
            let joints: Vec<&mbconv_ir::Joint> = if body_items.len() == 1 {
                m.joints.iter().collect()
            } else {
                let group = &m.groups[n];
                m.joints
                    .iter()
                    .filter(|j| group.joints.contains(&j.name))
                    .collect()
            };
            for j in joints {
                let (Some(id), [q]) = (j.joint_id, j.q0.as_slice()) else {
                    continue;
                };
                let Some(&v) = values.get(id as usize) else {
                    continue;
                };
                let want = if degrees { v * PI / 180.0 } else { v };
                if q.to_bits() != want.to_bits() {
                    failures.push(format!("{}: joint {} q0 {q}, file {v}", file.display(), j.name));
                }
                compared_joints += 1;
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!(
        "{read_count} of {} corpus projects read; {compared_joints} joint values compared",
        files.len()
    );
    if !files.is_empty() {
        assert!(read_count >= 37, "only {read_count} corpus projects read");
        assert!(
            compared_joints > 100,
            "only {compared_joints} joint values compared"
        );
    }
}

#[test]
fn scene_files_of_body_items_are_fixed_massless_bodies() {
    let imported = fixture("projects/scene_item.cnoid");
    let m = &imported.model;
    let groups: Vec<&str> = m.groups.iter().map(|g| g.name.as_str()).collect();
    assert_eq!(groups, ["pendulum", "Floor", "Wall"]);
    for (name, file, at) in [
        ("Floor", "floor.scen", Vector3::new(0.0, 0.0, -1.0)),
        ("Wall", "wall.stl", Vector3::new(2.0, 0.0, 0.0)),
    ] {
        let body = m.bodies.iter().find(|b| b.name == name).unwrap();
        assert_eq!(body.inertial.mass, 0.0);
        assert_eq!(body.pose.translation, at, "{name}");
        let mbconv_ir::Geometry::Mesh(mesh) = &body.shapes[0].geometry else {
            panic!("{name}: {:?}", body.shapes[0].geometry)
        };
        assert!(mesh.uri.ends_with(file), "{}", mesh.uri);
        assert!(mesh.resolved_path.as_deref().unwrap().ends_with(file));
        let root = m.joints.iter().find(|j| j.child.name() == Some(name)).unwrap();
        assert!(matches!(root.kind, JointKind::Fixed) && root.parent.is_world());
    }
    let warnings: Vec<_> = imported
        .report
        .findings
        .iter()
        .filter(|f| f.code == "body.scene_item")
        .collect();
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(
        warnings[0]
            .message
            .contains("Choreonoid loads as one static link")
    );
    // The robot is read as ever.
    assert!(m.bodies.iter().any(|b| b.name == "arm"));
    let errors: Vec<String> = mbconv_ir::validate(m)
        .at_least(mbconv_ir::Severity::Error)
        .map(|f| f.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
}

#[test]
fn a_urdf_body_item_is_refused_without_a_urdf_reader_with_words_that_say_why() {
    // The Body format alone (no readers hook in the options; the facade gives one:
    // front/mbconv/tests/foreign_readers.rs reads this project).
    let path = fixtures_root().join("body/projects/urdf_item.cnoid");
    let error = BodyFormat
        .read(&Source::from_path(&path).unwrap(), &Options::default())
        .unwrap_err();
    let text = error.to_string();
    assert!(
        text.contains("names a URDF file") && text.contains("robot.urdf"),
        "{text}"
    );
    assert!(text.contains("urdf_item.cnoid:23:"), "{text}");
}
