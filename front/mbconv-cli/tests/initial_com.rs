//! Every fixture, written to every other format and read back, starts every body where it
//! started: the world centre of mass of each body at the initial state is kept within 1e-9 m,
//! unless the conversion reports that it dropped or approximated something about that body
//! (or its joint). Bodies are matched by name through the renames the reports list.
#![allow(clippy::unwrap_used)]

use mbconv::ir::format::{Options, Source};
use mbconv::ir::kinematics::{Configuration, SpanningTree, world_poses};
use mbconv::ir::{Model, Report};
use nalgebra::Vector3;
use std::path::Path;

const TOLERANCE: f64 = 1e-9;

/// (body name, world centre of mass at the initial state).
fn initial_coms(model: &Model) -> Vec<(String, Vector3<f64>)> {
    let tree = SpanningTree::new(model);
    let poses = world_poses(model, &tree, Configuration::Initial);
    model
        .bodies
        .iter()
        .zip(poses)
        .map(|(body, pose)| (body.name.clone(), pose.transform_point(&body.inertial.com)))
        .collect()
}

/// True when a finding with a loss (dropped or approximated) names this body or a joint it
/// hangs from, or renames it.
fn reported(report: &Report, model: &Model, body: &str) -> bool {
    let joints: Vec<&str> = model
        .joints
        .iter()
        .filter(|j| j.child.name() == Some(body) || j.parent.name() == Some(body))
        .map(|j| j.name.as_str())
        .collect();
    report.findings.iter().any(|f| {
        let path = f.path.as_deref().unwrap_or_default();
        let about = path.contains(&format!("\"{body}\""))
            || joints.iter().any(|j| path.contains(&format!("\"{j}\"")));
        about && (f.category.is_loss() || f.code.ends_with("rename") || f.code.ends_with("renamed"))
    })
}

#[test]
fn every_fixture_starts_every_body_where_it_started_in_every_format() {
    let registry = mbconv::formats();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let mut failures = Vec::new();
    let mut compared = 0;
    for dir in ["body", "shift", "skel", "chrono"] {
        let mut files: Vec<_> = std::fs::read_dir(fixtures.join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_file())
            .collect();
        files.sort();
        for path in files {
            let source = Source::from_path(&path).unwrap();
            let Ok(from) = registry.detect(&path, Some(&source.text)) else {
                continue;
            };
            let Ok(imported) = registry.read(from, &source, &Options::default()) else {
                continue;
            };
            if mbconv::ir::validate(&imported.model).has_errors() {
                continue; // deliberately invalid fixtures
            }
            let before = initial_coms(&imported.model);
            for target in ["skel", "chrono", "body", "shift"] {
                let format = registry.get(target).unwrap();
                let written = format.write(&imported.model, &Options::default()).unwrap();
                // The model file itself (a Chrono simulation file only names it).
                let text = written.text.clone();
                let name = format!("back.{}", format.info().extensions[0]);
                let back = registry
                    .read(format, &Source::from_string(name, text), &Options::default())
                    .unwrap_or_else(|e| panic!("{} -> {target}: {e}", path.display()));
                let after = initial_coms(&back.model);
                for (body, com) in &before {
                    if reported(&written.report, &imported.model, body) {
                        continue;
                    }
                    let Some((_, other)) = after.iter().find(|(n, _)| n == body) else {
                        failures.push(format!(
                            "{} -> {target}: body {body:?} is missing",
                            path.display()
                        ));
                        continue;
                    };
                    compared += 1;
                    if (com - other).norm() > TOLERANCE {
                        failures.push(format!(
                            "{} -> {target}: body {body:?} starts at {:?}, not {:?}",
                            path.display(),
                            other.as_slice(),
                            com.as_slice()
                        ));
                    }
                }
            }
        }
    }
    eprintln!("{compared} bodies compared");
    assert!(compared > 200, "only {compared} bodies compared");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
