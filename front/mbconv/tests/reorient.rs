//! Re-orienting a model (`mbconv::ir::lower::reorient`) turns its motion and changes nothing
//! else: every fixture of every format, turned so that its gravity points down x, y and z, and
//! turned by an arbitrary rotation, moves in mbconv's solver as the original turned.
#![allow(clippy::unwrap_used)]

use mbconv::ir::format::{Options, Source};
use mbconv::ir::lower::{UpAxis, reorient, rotation_to_up};
use mbconv::{Integrator, SimulateOptions, Trajectory};
use nalgebra::{Quaternion, UnitQuaternion, Vector3};
use std::path::PathBuf;

/// Fixed-step RK4 turns rounding only; over this time no fixture amplifies it beyond the tolerance.
const DURATION: f64 = 0.2;

/// Agreement asked for, relative to max(1, |coordinate|) (m, and quaternion components).
const TOLERANCE: f64 = 1e-8;

fn fixture_files() -> Vec<(PathBuf, Options)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let mut files = Vec::new();
    for dir in ["body", "chrono", "ir", "mjcf", "sdf", "shift", "skel", "urdf"] {
        let mut options = Options::default();
        if dir == "sdf" {
            options.set("model_path", root.join("sdf/models").display().to_string());
        }
        let mut paths: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_file() && !p.ends_with("chrono/solver.yaml"))
            .collect();
        paths.sort();
        files.extend(paths.into_iter().map(|p| (p, options.clone())));
    }
    files
}

fn simulate(model: &mbconv::ir::Model) -> Option<Trajectory> {
    let options = SimulateOptions {
        duration: DURATION,
        dt: 1e-3,
        integrator: Integrator::Rk4,
        every: 20,
        ..SimulateOptions::default()
    };
    Trajectory::record(model, &options).ok().map(|(t, _)| t)
}

/// The largest deviation of `turned` from `original` turned by `rotation`.
fn deviation(original: &Trajectory, turned: &Trajectory, rotation: &UnitQuaternion<f64>) -> f64 {
    let mut worst: f64 = 0.0;
    for (a, b) in original.poses.iter().zip(&turned.poses) {
        for (p, q) in a.iter().zip(b) {
            let position = rotation * Vector3::new(p[0], p[1], p[2]);
            let attitude =
                rotation * UnitQuaternion::from_quaternion(Quaternion::new(p[3], p[4], p[5], p[6]));
            let theirs = UnitQuaternion::from_quaternion(Quaternion::new(q[3], q[4], q[5], q[6]));
            for k in 0..3 {
                worst = worst.max((position[k] - q[k]).abs() / position[k].abs().max(1.0));
            }
            worst = worst.max(attitude.angle_to(&theirs));
        }
    }
    worst
}

#[test]
fn every_fixture_turned_moves_as_the_original_turned() {
    let registry = mbconv::formats();
    let mut compared = 0;
    for (path, options) in fixture_files() {
        let Ok(format) = registry.detect(&path, None) else {
            continue;
        };
        let source = Source::from_path(&path).unwrap();
        let Ok(imported) = registry.read(format, &source, &options) else {
            continue; // not a model on its own (an included SDFormat model)
        };
        let model = imported.model;
        let Some(original) = simulate(&model) else {
            continue;
        };
        let gravity = model.simulation.gravity_or_unstated();
        let arbitrary = UnitQuaternion::from_euler_angles(0.3, -0.7, 1.1);
        let rotations = [UpAxis::X, UpAxis::Y, UpAxis::Z]
            .into_iter()
            .filter_map(|up| rotation_to_up(&gravity, up))
            .chain([arbitrary]);
        for rotation in rotations {
            let mut turned = model.clone();
            let findings = reorient(&mut turned, &rotation, "test");
            assert!(findings.iter().any(|f| f.code == "test.reoriented"));
            let g = turned.simulation.gravity.unwrap();
            assert!((g - rotation * gravity).norm() <= 1e-12 * gravity.norm());
            let moved = simulate(&turned)
                .unwrap_or_else(|| panic!("{}: the turned model does not simulate", path.display()));
            let d = deviation(&original, &moved, &rotation);
            assert!(
                d <= TOLERANCE,
                "{}: turned by {rotation:?}, it moves {d} away from the original turned",
                path.display()
            );
            compared += 1;
        }
    }
    assert!(compared >= 100, "only {compared} turned fixtures compared");
    eprintln!("{compared} turned fixtures move as their originals turned");
}

#[test]
fn gravity_down_the_axis_already_needs_no_turn_and_gravity_up_it_a_half_turn() {
    let down = Vector3::new(0.0, 0.0, -9.81);
    assert!(rotation_to_up(&down, UpAxis::Z).is_none());
    let half = rotation_to_up(&-down, UpAxis::Z).unwrap();
    assert!((half * -down - down).norm() < 1e-12);
    assert!(rotation_to_up(&Vector3::zeros(), UpAxis::Z).is_none());
}

/// A double pendulum with one of each item stated in world coordinates: a spring from a world
/// point, a restraint measured along the world's x axis, a force fixed in the world, a
/// distance constraint to a world point.
fn pendulum_tied_to_the_world() -> mbconv::ir::Model {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/ir");
    let text = std::fs::read_to_string(root.join("double_pendulum.mbir.json")).unwrap();
    let mut model: mbconv::ir::Model =
        serde_json::from_value(serde_json::from_str::<serde_json::Value>(&text).unwrap()["model"].clone())
            .unwrap();
    let elements = serde_json::json!([
        {"name": "to_ground", "kind": {"type": "tsda", "body1": null, "point1": [0.3, 0.2, 0.4],
            "body2": "link2", "point2": [1.0, 0.0, 0.0], "free_length": 0.5,
            "law": {"law": "linear", "stiffness": 40.0, "damping": 0.5}}},
        {"name": "along_world_x", "kind": {"type": "restraint", "restraint_type": "spring",
            "target": {"on": "frame_pair", "body1": null, "frame1": "origin", "body2": "link2",
                "frame2": "origin", "distance": "x"},
            "function": {"knots": [], "pieces": [[0.0, 30.0]]}}}
    ]);
    model.force_elements = serde_json::from_value(elements).unwrap();
    let loads = serde_json::json!([
        {"name": "push", "load_type": "force", "body": "link1", "vector": [0.0, 3.0, 1.0],
            "vector_in_body_frame": false, "point": [0.5, 0.0, 0.0], "point_in_body_frame": true,
            "external": true}
    ]);
    model.loads = serde_json::from_value(loads).unwrap();
    let constraints = serde_json::json!([
        {"name": "tether", "kind": {"type": "distance", "body1": null, "point1": [1.5, 0.0, 0.3],
            "body2": "link2", "point2": [0.5, 0.0, 0.0]}}
    ]);
    model.constraints = serde_json::from_value(constraints).unwrap();
    model
}

#[test]
fn items_stated_in_world_coordinates_turn_with_the_model() {
    let model = pendulum_tied_to_the_world();
    let original = simulate(&model).expect("the tied pendulum simulates");
    let rotation = UnitQuaternion::from_euler_angles(0.3, -0.7, 1.1);
    let mut turned = model.clone();
    let findings = reorient(&mut turned, &rotation, "test");
    assert!(findings.iter().any(|f| f.code == "test.world_axes_kept"));
    assert!(
        turned
            .world_frames
            .iter()
            .any(|f| f.name == mbconv::ir::lower::OLD_WORLD_FRAME)
    );
    let moved = simulate(&turned).expect("the turned pendulum simulates");
    let d = deviation(&original, &moved, &rotation);
    assert!(
        d <= TOLERANCE,
        "turned, it moves {d} away from the original turned"
    );
    // The items matter: without turning them, the motion differs.
    let mut bodies_only = model.clone();
    for body in &mut bodies_only.bodies {
        body.pose = mbconv::ir::Pose::from_rotation(rotation) * body.pose;
    }
    bodies_only.simulation.gravity = Some(rotation * model.simulation.gravity_or_unstated());
    for joint in &mut bodies_only.joints {
        if joint.parent == mbconv::ir::BodyRef::World {
            joint.parent_frame = mbconv::ir::Pose::from_rotation(rotation) * joint.parent_frame;
        }
    }
    let moved = simulate(&bodies_only).expect("the half-turned pendulum simulates");
    assert!(deviation(&original, &moved, &rotation) > 1e-3);
}
