//! The reader against Chrono itself: every Chrono model of the corpus and of `fixtures/chrono/`
//! read by mbconv gives the initial state Chrono's own parser builds (body frames, centres of
//! mass, masses, velocities) to 1e-9. The golden files come from `cargo xtask golden chrono`
//! (Chrono 10 built from `../shared/oracles/chrono`); the exceptions are the documented ones
//! (`docs/formats/chrono.md`, "Where mbconv and Chrono differ at t = 0"), each checked here to
//! be what it claims.

use mbconv_chrono::ChronoFormat;
use mbconv_ir::Model;
use mbconv_ir::format::{Format, Imported, Options, Source};
use nalgebra::{Quaternion, UnitQuaternion, Vector3};
use serde_json::Value;
use std::path::{Path, PathBuf};

const TOLERANCE: f64 = 1e-9;

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/chrono")
}

/// The model a golden file was made from.
/// The model the golden file `golden` was made from: `Ok(None)` for a corpus model when the
/// corpus is not beside the project (`corpus_file` says so, and fails under
/// `MBCONV_REQUIRE_CORPUS`); `Err(())` when the name names no model.
fn source_of(golden: &str) -> Result<Option<PathBuf>, ()> {
    let name = golden
        .strip_suffix(".json")
        .or_else(|| golden.strip_suffix(".error"))
        .ok_or(())?;
    let (prefix, file) = name.rsplit_once("__").ok_or(())?;
    let project = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    match prefix {
        "fixtures" => Ok(Some(project.join("fixtures/chrono").join(file))),
        "corpus" => Ok(mbconv_test_support::corpus_file(&format!("chrono/{file}"))),
        "corpus__fea" => Ok(mbconv_test_support::corpus_file(&format!("chrono/fea/{file}"))),
        _ => Err(()),
    }
}

fn read(path: &Path) -> Result<Imported, String> {
    let source = Source::from_path(path).map_err(|e| e.to_string())?;
    ChronoFormat
        .read(&source, &Options::default())
        .map_err(|e| e.to_string())
}

fn numbers(v: &Value, key: &str) -> Vec<f64> {
    v[key]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_f64).collect())
        .unwrap_or_default()
}

fn vector(v: &Value, key: &str) -> Vector3<f64> {
    let n = numbers(v, key);
    Vector3::new(n[0], n[1], n[2])
}

/// What mbconv's IR says Chrono's body holds at t = 0.
struct BodyState {
    fixed: bool,
    mass: f64,
    position: Vector3<f64>,
    orientation: UnitQuaternion<f64>,
    com_position: Vector3<f64>,
    com_velocity: Vector3<f64>,
    angular_velocity: Vector3<f64>,
}

fn state(model: &Model, name: &str) -> Option<BodyState> {
    let body = model.bodies.iter().find(|b| b.name == name)?;
    let com_offset = body.pose.rotation * body.inertial.com;
    let twist = body.initial_velocity.unwrap_or_default();
    Some(BodyState {
        fixed: body.fixed,
        mass: body.inertial.mass,
        position: body.pose.translation,
        orientation: body.pose.rotation,
        com_position: body.pose.translation + com_offset,
        com_velocity: twist.linear + twist.angular.cross(&com_offset),
        angular_velocity: twist.angular,
    })
}

/// Differences explained in docs/formats/chrono.md, by the finding code that announces them.
fn explained_by(imported: &Imported, body: &str, field: &str) -> Option<&'static str> {
    let about_body = |code: &str| {
        imported.report.findings.iter().any(|f| {
            f.code == code
                && f.path
                    .as_deref()
                    .is_some_and(|p| p.contains(&format!("\"{body}\"")))
        })
    };
    match field {
        "orientation_norm" if about_body("chrono.quaternion_normalized") => Some(
            "Chrono keeps a non-unit quaternion as written; the IR holds its rotation (the unit quaternion) and reports it",
        ),
        "mass" if about_body("chrono.fixed_body_mass") => Some(
            "Chrono ignores a fixed body's mass (it keeps 1 kg); mbconv keeps the mass written and reports it",
        ),
        _ => None,
    }
}

#[test]
fn mbconv_reads_every_chrono_model_as_chrono_builds_it() {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(golden_dir())
        .expect("tests/golden/chrono exists: run `cargo xtask golden chrono`")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    assert!(
        entries.len() >= 15,
        "expected the corpus and fixture golden files, found {}",
        entries.len()
    );
    let mut failures = Vec::new();
    let mut compared = 0;
    for golden in &entries {
        let name = golden
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_owned();
        let source = match source_of(&name) {
            Ok(Some(source)) => source,
            Ok(None) => continue, // a corpus model, and no corpus here
            Err(()) => {
                failures.push(format!("{name}: cannot tell which model it was made from"));
                continue;
            }
        };
        let imported = read(&source);
        if name.ends_with(".error") {
            // Chrono refused the file: mbconv must refuse it too, or load nothing Chrono would.
            if let Ok(imported) = &imported
                && !imported.model.bodies.is_empty()
            {
                failures.push(format!(
                    "{name}: Chrono refuses this file; mbconv read {} bodies",
                    imported.model.bodies.len()
                ));
            }
            continue;
        }
        let imported = match imported {
            Ok(i) => i,
            Err(e) => {
                // A finite-element model without rigid bodies: Chrono builds no body, mbconv
                // refuses the model as outside its scope (docs/formats/chrono.md).
                let text = std::fs::read_to_string(golden).expect("golden file");
                let chrono: Value = serde_json::from_str(&text).expect("golden JSON");
                let no_bodies = chrono["bodies"].as_array().is_some_and(Vec::is_empty);
                if !(no_bodies && e.contains("finite-element")) {
                    failures.push(format!("{name}: Chrono reads it, mbconv does not: {e}"));
                }
                continue;
            }
        };
        let text = std::fs::read_to_string(golden).expect("golden file");
        let chrono: Value = serde_json::from_str(&text).expect("golden JSON");
        for body in chrono["bodies"].as_array().into_iter().flatten() {
            let body_name = body["name"].as_str().unwrap_or_default();
            let Some(ours) = state(&imported.model, body_name) else {
                failures.push(format!("{name}: Chrono has body {body_name:?}, mbconv does not"));
                continue;
            };
            compared += 1;
            let [w, x, y, z] = numbers(body, "orientation_wxyz")[..] else {
                continue;
            };
            // Chrono keeps a quaternion's norm; its rotation is the unit quaternion's.
            let theirs = Quaternion::new(w, x, y, z);
            let theirs_rotation = UnitQuaternion::new_normalize(theirs);
            let checks = [
                (
                    "mass",
                    (ours.mass - body["mass"].as_f64().unwrap_or(f64::NAN)).abs(),
                ),
                ("position", (ours.position - vector(body, "position")).norm()),
                ("orientation", ours.orientation.angle_to(&theirs_rotation)),
                ("orientation_norm", (theirs.norm() - 1.0).abs()),
                (
                    "com_position",
                    (ours.com_position - vector(body, "com_position")).norm(),
                ),
                (
                    "com_velocity",
                    (ours.com_velocity - vector(body, "com_velocity")).norm(),
                ),
                (
                    "angular_velocity",
                    (ours.angular_velocity - vector(body, "angular_velocity")).norm(),
                ),
            ];
            if ours.fixed != body["fixed"].as_bool().unwrap_or(false) {
                failures.push(format!("{name}: body {body_name:?} fixed differs"));
            }
            for (field, gap) in checks {
                let scale = 1.0 + vector_scale(body, field);
                let within = gap <= TOLERANCE * scale; // NaN gaps are never within
                if !within && explained_by(&imported, body_name, field).is_none() {
                    failures.push(format!("{name}: body {body_name:?} {field} differs by {gap:e}"));
                }
            }
        }
        let chrono_count = chrono["bodies"].as_array().map_or(0, Vec::len);
        if chrono_count != imported.model.bodies.len() {
            failures.push(format!(
                "{name}: Chrono has {chrono_count} bodies, mbconv {}",
                imported.model.bodies.len()
            ));
        }
    }
    assert!(compared > 0, "no body compared");
    assert!(
        failures.is_empty(),
        "{} differences from Chrono:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The magnitude a field's tolerance is relative to (positions far from the origin, large
/// masses).
fn vector_scale(body: &Value, field: &str) -> f64 {
    match field {
        "mass" => body["mass"].as_f64().unwrap_or(0.0).abs(),
        "orientation" | "orientation_norm" => 0.0,
        _ => numbers(body, field).iter().fold(0.0, |m, x| m.max(x.abs())),
    }
}
