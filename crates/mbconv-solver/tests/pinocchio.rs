//! Forward dynamics against Pinocchio's `aba` on random trees and chains (golden data from
//! `oracles/solver/pinocchio_aba.py`).
#![allow(clippy::unwrap_used)]

use serde_json::Value;

const GOLDEN: &str = include_str!("golden/pinocchio_aba.json");

fn vec3(v: &Value) -> [f64; 3] {
    let a = v.as_array().unwrap();
    [
        a[0].as_f64().unwrap(),
        a[1].as_f64().unwrap(),
        a[2].as_f64().unwrap(),
    ]
}

fn close(name: &str, what: &str, got: [f64; 3], want: [f64; 3], tol: f64) -> f64 {
    let scale = want.iter().fold(1.0f64, |m, x| m.max(x.abs()));
    let err = (0..3).map(|i| (got[i] - want[i]).abs()).fold(0.0, f64::max) / scale;
    assert!(
        err < tol,
        "{name} {what}: got {got:?}, Pinocchio {want:?} (relative error {err:e})"
    );
    err
}

#[test]
fn accelerations_match_pinocchio_aba() {
    let golden: Value = serde_json::from_str(GOLDEN).unwrap();
    let mut worst = 0.0f64;
    let cases = golden["cases"].as_array().unwrap();
    assert!(cases.len() >= 9);
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let ir = mbconv_ir::mbir::from_str(&case["ir"].to_string()).unwrap();
        let report = mbconv_solver::dynamics_report(&ir).unwrap();
        for want in case["expected"].as_array().unwrap() {
            let body = want["name"].as_str().unwrap();
            let got = report.bodies.iter().find(|b| b.name == body).unwrap();
            let id = format!("{name}/{body}");
            worst = worst.max(close(
                &id,
                "position",
                got.position,
                vec3(&want["position"]),
                1e-12,
            ));
            close(
                &id,
                "linear velocity",
                got.linear_velocity,
                vec3(&want["linear_velocity"]),
                1e-12,
            );
            close(
                &id,
                "angular velocity",
                got.angular_velocity,
                vec3(&want["angular_velocity"]),
                1e-12,
            );
            let a = close(
                &id,
                "linear acceleration",
                got.linear_acceleration,
                vec3(&want["linear_acceleration"]),
                1e-9,
            );
            let w = close(
                &id,
                "angular acceleration",
                got.angular_acceleration,
                vec3(&want["angular_acceleration"]),
                1e-9,
            );
            worst = worst.max(a).max(w);
        }
        let ke = case["kinetic_energy"].as_f64().unwrap();
        assert!(
            (report.kinetic_energy - ke).abs() < 1e-10 * ke.abs().max(1.0),
            "{name}: kinetic energy"
        );
        let pe = case["potential_energy"].as_f64().unwrap();
        assert!(
            (report.potential_energy - pe).abs() < 1e-10 * pe.abs().max(1.0),
            "{name}: potential energy"
        );
    }
    println!("largest relative difference to Pinocchio: {worst:e}");
}
