//! The IR's format-free rotation maths against the shared corpus vectors (max error 1e-12) and
//! against independently built matrices. Each format's own conventions are tested in its
//! crate (Chrono's Cardan angles and axis frames in `formats/mbconv-chrono/tests/vectors.rs`).
#![allow(clippy::unwrap_used)]

use mbconv_ir::EulerOrder;
use mbconv_ir::rotation::{self, euler, rotation_vector, rpy, xyz_angles};
use nalgebra::{Matrix3, UnitQuaternion, Vector3};
use serde_json::Value;

const TOL: f64 = 1e-12;

/// A corpus JSON file: skipped with a notice when missing, a failure under
/// `MBCONV_REQUIRE_CORPUS=1`.
fn corpus(rel: &str) -> Option<Value> {
    let path = mbconv_test_support::corpus_file(rel)?;
    Some(serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap())
}

fn v3(v: &Value) -> [f64; 3] {
    let a: Vec<f64> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    [a[0], a[1], a[2]]
}

fn v4(v: &Value) -> [f64; 4] {
    let a: Vec<f64> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    [a[0], a[1], a[2], a[3]]
}

fn m3(v: &Value) -> Matrix3<f64> {
    let rows: Vec<[f64; 3]> = v.as_array().unwrap().iter().map(v3).collect();
    Matrix3::from_fn(|i, j| rows[i][j])
}

/// Distance between two rotations given as quaternions, insensitive to the sign of q.
fn quat_error(q: &UnitQuaternion<f64>, expected: [f64; 4]) -> f64 {
    let c = q.coords; // [x, y, z, w]
    let got = [c[3], c[0], c[1], c[2]];
    let plus = (0..4).map(|i| (got[i] - expected[i]).abs()).fold(0.0, f64::max);
    let minus = (0..4).map(|i| (got[i] + expected[i]).abs()).fold(0.0, f64::max);
    plus.min(minus)
}

fn matrix_error(q: &UnitQuaternion<f64>, expected: &Matrix3<f64>) -> f64 {
    (q.to_rotation_matrix().into_inner() - expected).abs().max()
}

fn rx(a: f64) -> Matrix3<f64> {
    let (s, c) = a.sin_cos();
    Matrix3::new(1.0, 0.0, 0.0, 0.0, c, -s, 0.0, s, c)
}
fn ry(a: f64) -> Matrix3<f64> {
    let (s, c) = a.sin_cos();
    Matrix3::new(c, 0.0, s, 0.0, 1.0, 0.0, -s, 0.0, c)
}
fn rz(a: f64) -> Matrix3<f64> {
    let (s, c) = a.sin_cos();
    Matrix3::new(c, -s, 0.0, s, c, 0.0, 0.0, 0.0, 1.0)
}

// The corpus prints quaternions with 15 decimals, so 1e-12 is far above its rounding.

#[test]
fn roll_pitch_yaw_is_chronos_cardan_angles_reversed() {
    let Some(data) = corpus("chrono_derived/chrono_conventions_vectors.json") else {
        return;
    };
    let cases = data["cardan_yaw_pitch_roll"].as_array().unwrap();
    assert_eq!(cases.len(), 6);
    for case in cases {
        let rpy_angles = v3(&case["drake_rpy_equivalent"]);
        let q = rpy::to_quaternion(rpy_angles);
        assert!(quat_error(&q, v4(&case["quaternion_e0e1e2e3"])) <= TOL, "{case}");
        assert!(matrix_error(&q, &m3(&case["rotation_matrix"])) <= TOL, "{case}");
        let back = rpy::from_quaternion(&q);
        for i in 0..3 {
            assert!(
                (back[i] - rpy_angles[i]).abs() <= TOL,
                "{back:?} vs {rpy_angles:?}"
            );
        }
    }
}

#[test]
fn axis_frames_match_the_corpus_vectors() {
    let Some(data) = corpus("chrono_derived/chrono_conventions_vectors.json") else {
        return;
    };
    let joint = data["joint_frame_SetFromAxisZ"].as_array().unwrap();
    assert_eq!(joint.len(), 9);
    for case in joint {
        let q = rotation::frame_with_z_along(&Vector3::from(v3(&case["axis"])), Vector3::x()).unwrap();
        assert!(matrix_error(&q, &m3(&case["R_columns_are_XYZ"])) <= TOL, "{case}");
        assert!(quat_error(&q, v4(&case["quaternion"])) <= TOL, "{case}");
    }
    for case in data["universal_frame"].as_array().unwrap() {
        let q = rotation::frame_with_x_along_z_normal(
            &Vector3::from(v3(&case["axis1"])),
            &Vector3::from(v3(&case["axis2"])),
        )
        .unwrap();
        assert!(matrix_error(&q, &m3(&case["R"])) <= TOL, "{case}");
        assert!(quat_error(&q, v4(&case["quaternion"])) <= TOL, "{case}");
    }
    assert!(rotation::frame_with_z_along(&Vector3::zeros(), Vector3::x()).is_none());
    assert!(rotation::frame_with_x_along_z_normal(&Vector3::x(), &Vector3::x()).is_none());
}

#[test]
fn scalar_first_quaternions_are_normalised() {
    let (q, norm) = mbconv_ir::rotation::normalize_wxyz([0.0, 0.0, 0.0, 2.0]).unwrap();
    assert_eq!(norm, 2.0);
    assert!(quat_error(&q, [0.0, 0.0, 0.0, 1.0]) <= TOL);
    assert!(mbconv_ir::rotation::normalize_wxyz([0.0; 4]).is_none());
}

#[test]
fn rpy_matches_relative_rotations_of_the_drake_bushing_vectors() {
    let Some(data) = corpus("drake/bushing_vectors_bodies.json") else {
        return;
    };
    let frame = |name: &str| {
        let f = &data["frames"][name];
        (Vector3::from(v3(&f["p"])), rpy::to_quaternion(v3(&f["rpy"])))
    };
    let (p_l0_a, r_l0_a) = frame("A_on_L0");
    let (p_l1_c, r_l1_c) = frame("C_on_L1");
    let cases = data["cases"].as_array().unwrap();
    assert!(!cases.is_empty());
    for case in cases {
        let body = |name: &str| {
            let b = &case["body_poses_world"][name];
            (Vector3::from(v3(&b["p"])), rpy::to_quaternion(v3(&b["rpy"])))
        };
        let (p_w_l0, r_w_l0) = body("L0");
        let (p_w_l1, r_w_l1) = body("L1");
        let r_wa = r_w_l0 * r_l0_a;
        let r_wc = r_w_l1 * r_l1_c;
        let p_wa = p_w_l0 + r_w_l0 * p_l0_a;
        let p_wc = p_w_l1 + r_w_l1 * p_l1_c;
        let r_ac = r_wa.inverse() * r_wc;
        let rpy = rpy::from_quaternion(&r_ac);
        let expected = v3(&case["derived"]["rpy_AC"]);
        for i in 0..3 {
            assert!((rpy[i] - expected[i]).abs() <= TOL, "rpy {rpy:?} vs {expected:?}");
        }
        let p_ac = r_wa.inverse() * (p_wc - p_wa);
        let expected = v3(&case["derived"]["p_AoCo_A"]);
        for i in 0..3 {
            assert!((p_ac[i] - expected[i]).abs() <= TOL);
        }
    }
}

#[test]
fn rpy_round_trips_every_drake_world_vector_case() {
    let Some(data) = corpus("drake/bushing_vectors_world.json") else {
        return;
    };
    let mut checked = 0;
    for case in data["cases"].as_array().unwrap() {
        let rpy = v3(&case["rpy_AC"]);
        if (rpy[1].abs() - std::f64::consts::FRAC_PI_2).abs() < 1e-3 {
            continue; // the gimbal-lock case: yaw and roll are not separable
        }
        let q = rpy::to_quaternion(rpy);
        let m = rz(rpy[2]) * ry(rpy[1]) * rx(rpy[0]);
        assert!(matrix_error(&q, &m) <= TOL);
        let back = rpy::from_quaternion(&q);
        for i in 0..3 {
            assert!((back[i] - rpy[i]).abs() <= TOL, "{back:?} vs {rpy:?}");
        }
        checked += 1;
    }
    assert!(checked >= 30, "checked {checked}");
}

#[test]
fn xyz_angles_are_intrinsic_x_y_z() {
    for abc in [
        [0.1, -0.2, 0.3],
        [1.2, 0.7, -2.5],
        [-3.0, 1.5, 0.01],
        [0.0, 0.0, 0.0],
    ] {
        let q = xyz_angles::to_quaternion(abc);
        assert!(matrix_error(&q, &(rx(abc[0]) * ry(abc[1]) * rz(abc[2]))) <= TOL);
        let back = xyz_angles::to_quaternion(xyz_angles::from_quaternion(&q));
        assert!(q.angle_to(&back) <= TOL);
    }
    // Gimbal lock (b = π/2) still round-trips the rotation.
    let q = xyz_angles::to_quaternion([0.4, std::f64::consts::FRAC_PI_2, 0.3]);
    assert!(q.angle_to(&xyz_angles::to_quaternion(xyz_angles::from_quaternion(&q))) <= 1e-9);
}

#[test]
fn euler_joints_follow_their_axis_order() {
    let q = [0.3, -0.4, 0.5];
    let xyz = euler::rotation(EulerOrder::Xyz, q);
    let zyx = euler::rotation(EulerOrder::Zyx, q);
    assert!(matrix_error(&xyz, &(rx(q[0]) * ry(q[1]) * rz(q[2]))) <= TOL);
    assert!(matrix_error(&zyx, &(rz(q[0]) * ry(q[1]) * rx(q[2]))) <= TOL);
}

#[test]
fn rotation_vectors_round_trip() {
    for v in [
        [0.1, 0.2, -0.3],
        [0.0, 0.0, 0.0],
        [3.0, 0.0, 0.0],
        [-1.0, 2.0, 0.5],
    ] {
        let q = rotation_vector::to_quaternion(v);
        let angle = Vector3::from(v).norm();
        assert!((q.angle() - angle).abs() <= TOL);
        let back = rotation_vector::from_quaternion(&q);
        for i in 0..3 {
            assert!((back[i] - v[i]).abs() <= TOL, "{back:?} vs {v:?}");
        }
    }
}
