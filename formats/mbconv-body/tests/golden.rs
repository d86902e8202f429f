//! mbconv reads every model Choreonoid loads as Choreonoid does: every link is a body with
//! Choreonoid's mass, world frame and world centre of mass at the initial position (joints at
//! their initial values), within 1e-9. The golden data is Choreonoid's own reading
//! (`cargo xtask golden choreonoid`, see `xtask/src/choreonoid.rs`).

#![allow(clippy::unwrap_used)]

use mbconv_body::BodyFormat;
use mbconv_ir::format::{Format, Options, Source};
use mbconv_ir::kinematics::{Configuration, SpanningTree, world_poses};
use mbconv_test_support::{corpus, files_with_extension, workspace_root};
use nalgebra::{Quaternion, UnitQuaternion, Vector3};
use std::path::Path;

const TOLERANCE: f64 = 1e-9;

fn golden_dir() -> std::path::PathBuf {
    workspace_root().join("formats/mbconv-body/tests/golden")
}

/// The golden file name of a model (as `xtask/src/choreonoid.rs` names it).
fn golden_name(prefix: &str, relative: &str) -> String {
    let stem = relative.strip_suffix(".body").unwrap_or(relative);
    format!("{prefix}__{}.json", stem.replace('/', "__"))
}

fn vector(v: &serde_json::Value) -> Vector3<f64> {
    let a: Vec<f64> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    Vector3::new(a[0], a[1], a[2])
}

/// Compares one model with Choreonoid's reading; returns the problems.
fn compare(path: &Path, golden: &serde_json::Value) -> Vec<String> {
    let source = Source::from_path(path).unwrap();
    let model = match BodyFormat.read(&source, &Options::default()) {
        Ok(imported) => imported.model,
        Err(e) => return vec![format!("not read: {e}")],
    };
    let tree = SpanningTree::new(&model);
    let poses = world_poses(&model, &tree, Configuration::Initial);
    let mut problems = Vec::new();
    let links = golden["bodies"].as_array().unwrap();
    // Choreonoid skips a sub-body it cannot load (a missing mesh inside it) and says so; mbconv
    // reads it (a missing mesh is a finding), so only Choreonoid's links are compared then.
    let skipped_sub_body = golden["messages"]
        .as_str()
        .unwrap_or("")
        .contains("SubBody specified by uri");
    if links.len() != model.bodies.len() && !skipped_sub_body {
        problems.push(format!(
            "{} links in Choreonoid, {} bodies read",
            links.len(),
            model.bodies.len()
        ));
    }
    for link in links {
        let name = link["name"].as_str().unwrap();
        let Some(index) = model.body_index(name) else {
            problems.push(format!("link {name:?} is not a body"));
            continue;
        };
        let body = &model.bodies[index];
        let pose = poses[index];
        let mass = link["mass"].as_f64().unwrap();
        if (body.inertial.mass - mass).abs() > TOLERANCE {
            problems.push(format!("{name}: mass {} instead of {mass}", body.inertial.mass));
        }
        let p = vector(&link["position"]);
        if (pose.translation - p).amax() > TOLERANCE {
            problems.push(format!(
                "{name}: position {:?} instead of {:?}",
                pose.translation, p
            ));
        }
        let q: Vec<f64> = link["orientation_wxyz"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        let expected = UnitQuaternion::from_quaternion(Quaternion::new(q[0], q[1], q[2], q[3]));
        if pose.rotation.angle_to(&expected) > TOLERANCE {
            problems.push(format!(
                "{name}: orientation off by {} rad",
                pose.rotation.angle_to(&expected)
            ));
        }
        let com = pose.transform_point(&body.inertial.com);
        let expected_com = vector(&link["com_position"]);
        if (com - expected_com).amax() > TOLERANCE {
            problems.push(format!("{name}: world COM {com:?} instead of {expected_com:?}"));
        }
    }
    problems
}

#[test]
fn every_model_choreonoid_loads_reads_as_choreonoid_reads_it() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for (prefix, dir) in [
        ("corpus", corpus("body")),
        ("fixtures", Some(workspace_root().join("fixtures/body"))),
    ] {
        let Some(dir) = dir else { continue };
        for file in files_with_extension(&dir, "body") {
            let relative = file
                .strip_prefix(&dir)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            // Choreonoid's reading of the file, and of the file mbconv writes from it: both
            // must be mbconv's reading of the file.
            for golden_prefix in [prefix.to_owned(), format!("written_{prefix}")] {
                let golden_file = golden_dir().join(golden_name(&golden_prefix, &relative));
                let Ok(text) = std::fs::read_to_string(&golden_file) else {
                    continue;
                };
                let golden: serde_json::Value = serde_json::from_str(&text).unwrap();
                checked += 1;
                let problems = compare(&file, &golden);
                if !problems.is_empty() {
                    failures.push(format!(
                        "{golden_prefix}/{relative}:\n    {}",
                        problems
                            .iter()
                            .take(5)
                            .cloned()
                            .collect::<Vec<_>>()
                            .join("\n    ")
                    ));
                }
            }
        }
    }
    let golden_files = std::fs::read_dir(golden_dir())
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "json")
        })
        .count();
    if corpus("body").is_some() {
        assert_eq!(checked, golden_files, "every golden file has its model");
    }
    eprintln!(
        "{checked} models compared with Choreonoid, {} differ",
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
