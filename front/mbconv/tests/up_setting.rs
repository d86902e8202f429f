//! The shared write setting `up` (`--up` on the command line): every writer takes it, the
//! registry turns the whole model so that gravity points down the axis before the format's
//! own lowering, and the check compares the conversion turned back into the original world,
//! so that a turn alone never changes a verdict.
#![allow(clippy::unwrap_used)]

use mbconv::ir::format::{Options, Source};
use mbconv::ir::lower::{UpAxis, reorient, rotation_to_up};
use mbconv::ir::{Model, Pose};
use mbconv::{CheckSettings, Verdict};
use nalgebra::Vector3;
use std::path::PathBuf;

/// The formats whose files state gravity (Body in the project written beside the body file):
/// a turn loses nothing there.
const WITH_GRAVITY: &[&str] = &["mbir", "chrono", "skel", "body", "shift", "mjcf", "sdf"];

fn read(relative: &str) -> Model {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(relative);
    let registry = mbconv::formats();
    let format = registry.detect(&path, None).unwrap();
    let source = Source::from_path(&path).unwrap();
    registry.read(format, &source, &Options::default()).unwrap().model
}

/// `model` turned so that its gravity points down -y, as a DART world is often written.
fn y_up(mut model: Model) -> Model {
    let gravity = model.simulation.gravity_or_unstated();
    if let Some(turn) = rotation_to_up(&gravity, UpAxis::Y) {
        reorient(&mut model, &turn, "test");
    }
    model
}

/// A few models that exercise what a turn must carry: springs to the world, loops, skewed
/// axes, initial velocities, rotated inertia frames.
fn y_up_models() -> Vec<(&'static str, Model)> {
    [
        "skel/joint_universal_ball.skel",
        "skel/dofs_markers_soft.skel",
        "ir/double_pendulum.mbir.json",
        "chrono/constraints.yaml",
        "chrono/springs.yaml",
    ]
    .into_iter()
    .map(|file| (file, y_up(read(file))))
    .collect()
}

fn settings(up: Option<&str>) -> CheckSettings {
    let mut settings = CheckSettings {
        duration: 0.3,
        ..CheckSettings::default()
    };
    if let Some(up) = up {
        for format in WITH_GRAVITY {
            let mut options = Options::default();
            options.set("up", up);
            settings.write_options.insert((*format).to_owned(), options);
        }
    }
    settings
}

#[test]
fn a_turn_changes_no_verdict_where_the_target_states_gravity() {
    let registry = mbconv::formats();
    for (file, model) in y_up_models() {
        for format in WITH_GRAVITY {
            let options = &settings(Some("z")).write_options[*format];
            let lowered = registry
                .lower(registry.get(format).unwrap(), &model, options)
                .unwrap();
            assert!(lowered.turned_by.is_some(), "{file} via {format}: not turned");
        }
        let plain = mbconv::check(&model, WITH_GRAVITY, &settings(None)).unwrap();
        for up in ["z", "x"] {
            let turned = mbconv::check(&model, WITH_GRAVITY, &settings(Some(up))).unwrap();
            for (a, b) in plain.targets.iter().zip(&turned.targets) {
                assert_eq!(
                    a.verdict, b.verdict,
                    "{file} via {} with up={up}: {} / {}",
                    a.format, a.message, b.message
                );
                if a.verdict == Verdict::Exact {
                    assert!(b.max_com_error <= 1e-6, "{file} via {}: {}", b.format, b.message);
                }
            }
        }
    }
}

#[test]
fn the_lowered_model_has_gravity_exactly_down_the_axis_and_coordinates_moved_between_axes() {
    let registry = mbconv::formats();
    let mbir = registry.get("mbir").unwrap();
    let model = read("skel/joint_universal_ball.skel");
    let gravity = model.simulation.gravity.unwrap();
    assert_eq!(gravity, Vector3::new(0.0, -9.81, 0.0), "the fixture is y-up");
    let mut options = Options::default();
    options.set("up", "z");
    let lowered = registry.lower(mbir, &model, &options).unwrap();
    assert_eq!(
        lowered.model.simulation.gravity,
        Some(Vector3::new(0.0, 0.0, -9.81))
    );
    let turn = lowered.turned_by.unwrap();
    for (before, after) in model.bodies.iter().zip(&lowered.model.bodies) {
        let t = before.pose.translation;
        // A quarter turn about x: y goes to z, z to -y, exactly.
        assert_eq!(
            after.pose.translation,
            Vector3::new(t.x, -t.z, t.y),
            "{}",
            before.name
        );
        let expected = Pose::from_rotation(turn) * before.pose;
        assert!(after.pose.distance(&expected) < 1e-15, "{}", before.name);
    }
    assert_eq!(lowered.report.findings[0].code, "mbir.reoriented");
    assert_eq!(lowered.report.findings[0].pass.as_deref(), Some("reorient"));
}

#[test]
fn gravity_already_down_the_axis_is_noted_and_nothing_turns() {
    let registry = mbconv::formats();
    let mjcf = registry.get("mjcf").unwrap();
    let mut model = read("ir/double_pendulum.mbir.json");
    model.simulation.gravity = Some(Vector3::new(0.0, 0.0, -9.81));
    let mut options = Options::default();
    options.set("up", "z");
    let lowered = registry.lower(mjcf, &model, &options).unwrap();
    assert!(lowered.turned_by.is_none());
    let plain = registry.lower(mjcf, &model, &Options::default()).unwrap();
    assert_eq!(lowered.model, plain.model);
    let note = &lowered.report.findings[0];
    assert_eq!(note.code, "mjcf.not_reoriented");
    assert!(note.message.contains("already points down"), "{}", note.message);
}

#[test]
fn an_axis_that_is_none_is_refused_naming_the_choices() {
    let registry = mbconv::formats();
    let model = read("ir/double_pendulum.mbir.json");
    for format in registry.formats() {
        let mut options = Options::default();
        options.set("up", "w");
        let error = registry.lower(format, &model, &options).unwrap_err().to_string();
        assert!(error.contains("up=\"w\": expected x | y | z"), "{error}");
        assert!(registry.write_settings(format).iter().any(|s| s.name == "up"));
    }
}

#[test]
fn a_body_file_without_a_project_loses_only_the_magnitude_once_the_model_is_turned() {
    let model = y_up(read("ir/double_pendulum.mbir.json"));
    let registry = mbconv::formats();
    let body = registry.get("body").unwrap();
    let plain = registry.lower(body, &model, &Options::default()).unwrap();
    let lost = plain
        .report
        .findings
        .iter()
        .find(|f| f.code == "body.gravity_lost")
        .unwrap();
    assert!(lost.message.contains("--up z"), "{}", lost.message);
    let mut options = Options::default();
    options.set("up", "z");
    let turned = registry.lower(body, &model, &options).unwrap();
    assert!(!turned.report.contains("body.gravity_lost"));
    // The check writes to a file, and the project beside the body file carries gravity:
    // neither the turn nor gravity explains anything.
    let mut settings = settings(None);
    settings.write_options.insert("body".to_owned(), options);
    let report = mbconv::check(&model, &["body"], &settings).unwrap();
    let target = &report.targets[0];
    assert!(!target.verdict.is_failure(), "{}", target.message);
    assert!(
        target
            .explained_by
            .iter()
            .all(|e| e.code != "body.gravity_lost" && e.pass != "reorient"),
        "{:?}",
        target.explained_by
    );
}
