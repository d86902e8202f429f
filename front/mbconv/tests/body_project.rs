//! Every y-up DART world of the corpus converted to Choreonoid Body: the project written beside
//! the body file carries the world's gravity and time step, and the check, which reads the
//! conversion back through that project, no longer names gravity; with `up=z` the model is
//! turned, the project's gravity points down -z, and the check, compared in the original
//! world, gives the same verdict.
#![allow(clippy::unwrap_used)]

use mbconv::ir::Model;
use mbconv::ir::format::{Options, Source};
use mbconv::{CheckSettings, TargetCheck};
use nalgebra::Vector3;
use std::path::{Path, PathBuf};

fn corpus_skel() -> Option<PathBuf> {
    let root = std::env::var_os("MBCONV_CORPUS").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"),
        PathBuf::from,
    );
    let dir = root.join("skel");
    if dir.is_dir() {
        return Some(dir);
    }
    assert!(
        std::env::var_os("MBCONV_REQUIRE_CORPUS").is_none(),
        "{} is missing",
        dir.display()
    );
    eprintln!("note: {} is missing: skipped", dir.display());
    None
}

fn skel_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            skel_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "skel") {
            out.push(path);
        }
    }
}

/// The corpus worlds whose gravity does not point down -z, read as `mbconv` reads them.
fn y_up_worlds() -> Vec<(String, Model)> {
    let Some(dir) = corpus_skel() else {
        return Vec::new();
    };
    let mut files = Vec::new();
    skel_files(&dir, &mut files);
    files.sort();
    let registry = mbconv::formats();
    let skel = registry.get("skel").unwrap();
    files
        .iter()
        .filter_map(|path| {
            let source = Source::from_path(path).unwrap();
            let model = registry.read(skel, &source, &Options::default()).ok()?.model;
            let g = model.simulation.gravity?;
            let name = path.strip_prefix(&dir).unwrap().display().to_string();
            (g.y != 0.0 && g.x == 0.0 && g.z == 0.0).then_some((name, model))
        })
        .collect()
}

/// The project text the Body writer puts beside `NAME.body`.
fn project(model: &Model, options: &Options) -> serde_json::Value {
    let registry = mbconv::formats();
    let body = registry.get("body").unwrap();
    let mut options = options.clone();
    options.output_path = Some(PathBuf::from("/nowhere/world.body"));
    let written = registry.write(body, model, &options).unwrap();
    assert_eq!(written.entry.as_deref(), Some("world.cnoid"));
    mbconv_yaml_value(&written.companions[0].text)
}

fn mbconv_yaml_value(text: &str) -> serde_json::Value {
    // The project is plain YAML; JSON's data model holds it.
    serde_saphyr::from_str(text).unwrap()
}

fn simulator(project: &serde_json::Value) -> &serde_json::Value {
    project["items"]["children"][0]["children"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["class"] == "AISTSimulatorItem")
        .unwrap()
}

fn vector(v: &serde_json::Value) -> Vector3<f64> {
    let n = |i: usize| v[i].as_f64().unwrap();
    Vector3::new(n(0), n(1), n(2))
}

/// The check blames the world's gravity (not a body's own gravity switch, which a body file
/// cannot say either way).
fn names_gravity(target: &TargetCheck) -> bool {
    const WORLD_GRAVITY: [&str; 3] = [
        "body.gravity_lost",
        "body.gravity_magnitude_lost",
        "body.gravity_defaulted",
    ];
    target
        .explained_by
        .iter()
        .any(|e| WORLD_GRAVITY.contains(&e.code.as_str()))
        || target.message.contains("simulation.gravity")
}

fn check(model: &Model, up: Option<&str>) -> TargetCheck {
    let mut settings = CheckSettings {
        duration: 0.3,
        ..CheckSettings::default()
    };
    if let Some(up) = up {
        let mut options = Options::default();
        options.set("up", up);
        settings.write_options.insert("body".to_owned(), options);
    }
    let report = mbconv::check(model, &["body"], &settings).unwrap();
    report.targets.into_iter().next().unwrap()
}

#[test]
fn y_up_skel_worlds_keep_their_gravity_in_the_project_and_up_z_changes_no_verdict() {
    let worlds = y_up_worlds();
    if worlds.is_empty() {
        return;
    }
    assert!(worlds.len() >= 50, "only {} y-up worlds", worlds.len());
    for (name, model) in &worlds {
        let gravity = model.simulation.gravity.unwrap();
        let written = project(model, &Options::default());
        let sim = &simulator(&written)["data"];
        assert_eq!(vector(&sim["gravity"]), gravity, "{name}");
        if let Some(step) = model.simulation.time_step {
            assert_eq!(sim["time_step"].as_f64(), Some(step), "{name}");
        }
        let plain = check(model, None);
        assert!(!names_gravity(&plain), "{name}: {}", plain.message);

        let mut up = Options::default();
        up.set("up", "z");
        let turned_project = project(model, &up);
        let turned_gravity = vector(&simulator(&turned_project)["data"]["gravity"]);
        assert_eq!(turned_gravity, Vector3::new(0.0, 0.0, -gravity.norm()), "{name}");
        let turned = check(model, Some("z"));
        assert_eq!(
            plain.verdict, turned.verdict,
            "{name}: {} / {}",
            plain.message, turned.message
        );
        assert!(!names_gravity(&turned), "{name}: {}", turned.message);
    }
}
