#![allow(clippy::unwrap_used)]
//! The derived Chrono convention vectors (`shared/corpus/chrono_derived`) reproduced through
//! the reader: each case is written as a small YAML model and read like any file.

use mbconv_chrono::ChronoFormat;
use mbconv_ir::format::{Format, Options, Source};
use mbconv_ir::{ForceKind, Model, MotorTarget};
use nalgebra::{Quaternion, UnitQuaternion};
use serde_json::Value;

fn vectors() -> Option<Value> {
    let path = mbconv_test_support::corpus_file("chrono_derived/chrono_conventions_vectors.json")?;
    Some(serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap())
}

fn nums(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

fn list(v: &Value) -> String {
    let n: Vec<String> = nums(v).iter().map(|x| x.to_string()).collect();
    format!("[{}]", n.join(", "))
}

fn read(body: &str) -> Model {
    let text = format!("chrono-version: 10.0\nmodel:\n{body}");
    ChronoFormat
        .read(&Source::from_string("v.yaml", text.clone()), &Options::default())
        .unwrap_or_else(|e| panic!("{e}\n{text}"))
        .model
}

const TWO_BODIES: &str = "  bodies:\n    - name: ground\n      location: [0, 0, 0]\n      fixed: true\n    - name: b\n      location: [0, 0, 0]\n      mass: 1\n      inertia:\n        moments: [1, 1, 1]\n";

fn assert_rotation(q: &UnitQuaternion<f64>, expected: &Value, what: &str) {
    let e = nums(expected);
    let e = UnitQuaternion::new_normalize(Quaternion::new(e[0], e[1], e[2], e[3]));
    // The vectors have 15 significant digits.
    assert!(q.angle_to(&e) < 1e-12, "{what}: {q:?} vs {e:?}");
}

#[test]
fn cardan_angles() {
    let Some(v) = vectors() else { return };
    for case in v["cardan_yaw_pitch_roll"].as_array().unwrap() {
        let degrees = case["angle_degrees"].as_bool().unwrap();
        let m = read(&format!(
            "  angle_degrees: {degrees}\n  bodies:\n    - name: b\n      location: [0, 0, 0]\n      orientation: {}\n      fixed: true\n",
            list(&case["input"])
        ));
        assert_rotation(
            &m.bodies[0].pose.rotation,
            &case["quaternion_e0e1e2e3"],
            &case["input"].to_string(),
        );
    }
}

#[test]
fn joint_motor_rsda_cylinder_and_universal_frames() {
    let Some(v) = vectors() else { return };
    for case in v["joint_frame_SetFromAxisZ"].as_array().unwrap() {
        let m = read(&format!(
            "{TWO_BODIES}  joints:\n    - name: j\n      type: REVOLUTE\n      body1: ground\n      body2: b\n      location: [0, 0, 0]\n      axis: {}\n",
            list(&case["axis"])
        ));
        let j = &m.joints[0];
        assert_rotation(&j.parent_frame.rotation, &case["quaternion"], "joint");
        assert_rotation(&j.child_frame.rotation, &case["quaternion"], "joint child");
    }
    for case in v["motor_rsda_cylinder_frame_SetFromAxisX_then_RotY90"]
        .as_array()
        .unwrap()
    {
        let axis = list(&case["axis"]);
        let m = read(&format!(
            "{TWO_BODIES}  motors:\n    - name: m\n      type: ROTATION\n      body1: b\n      body2: ground\n      location: [0, 0, 0]\n      axis: {axis}\n      actuation_type: SPEED\n      actuation_function:\n        type: CONSTANT\n        value: 1\n  rsdas:\n    - name: r\n      body1: ground\n      body2: b\n      axis: {axis}\n      free_angle: 0\n      spring_coefficient: 1\n"
        ));
        let MotorTarget::BodyPair { frame1, frame2, .. } = &m.motors[0].target else {
            panic!()
        };
        assert_rotation(&frame1.rotation, &case["quaternion"], "motor");
        assert_rotation(&frame2.rotation, &case["quaternion"], "motor");
        let ForceKind::Rsda(r) = &m.force_elements[0].kind else {
            panic!()
        };
        assert_rotation(&r.frame1.rotation, &case["quaternion"], "rsda");
        let m = read(&format!(
            "  bodies:\n    - name: b\n      location: [0, 0, 0]\n      fixed: true\n      visualization:\n        shapes:\n          - type: CYLINDER\n            location: [0, 0, 0]\n            axis: {axis}\n            radius: 1\n            length: 1\n"
        ));
        assert_rotation(
            &m.bodies[0].shapes[0].pose.rotation,
            &case["quaternion"],
            "cylinder",
        );
    }
    for case in v["universal_frame"].as_array().unwrap() {
        let m = read(&format!(
            "{TWO_BODIES}  joints:\n    - name: u\n      type: UNIVERSAL\n      body1: ground\n      body2: b\n      location: [0, 0, 0]\n      axis1: {}\n      axis2: {}\n",
            list(&case["axis1"]),
            list(&case["axis2"])
        ));
        assert_rotation(
            &m.joints[0].parent_frame.rotation,
            &case["quaternion"],
            "universal",
        );
    }
}

#[test]
fn slider_crank_data_repeat_and_sine_values() {
    let Some(v) = vectors() else { return };
    let Some(corpus) = mbconv_test_support::corpus_file("chrono/model_slider_crank.yaml") else {
        return;
    };
    let m = ChronoFormat
        .read(&Source::from_path(&corpus).unwrap(), &Options::default())
        .unwrap()
        .model;
    let f = &m.motors[0].function;
    for case in v["slider_crank_DATA_repeat"].as_array().unwrap() {
        let t = case["t"].as_f64().unwrap();
        let expected = case["value"].as_f64().unwrap();
        assert!(
            (f.value(t) - expected).abs() < 1e-12,
            "t = {t}: {} vs {expected}",
            f.value(t)
        );
    }
    for case in v["sine_examples"].as_array().unwrap() {
        let (degrees, phase) = match case.get("phase_yaml") {
            Some(p) => (true, p.as_f64().unwrap()),
            None => (false, case["phase"].as_f64().unwrap()),
        };
        let m = read(&format!(
            "  angle_degrees: {degrees}\n{TWO_BODIES}  motors:\n    - name: m\n      type: LINEAR\n      body1: b\n      body2: ground\n      location: [0, 0, 0]\n      axis: [1, 0, 0]\n      actuation_type: FORCE\n      actuation_function:\n        type: SINE\n        amplitude: {}\n        frequency: {}\n        phase: {phase}\n",
            case["amplitude"], case["frequency"]
        ));
        let t = case["t"].as_f64().unwrap();
        let expected = case["value"].as_f64().unwrap();
        let got = m.motors[0].function.value(t);
        assert!((got - expected).abs() < 1e-9, "{case}: {got}");
    }
}
