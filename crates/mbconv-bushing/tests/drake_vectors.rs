//! Drake's `LinearBushingRollPitchYaw` against the pydrake-verified reference vectors of the
//! shared corpus (every case of both files), plus the gimbal-lock refusal.
#![allow(clippy::unwrap_used)]

use mbconv_bushing::kinematics::RelativeMotion;
use mbconv_bushing::{BushingError, FrameState, LawConstants, Wrench, drake, evaluate, evaluate_named};
use mbconv_ir::rotation::rpy::to_quaternion as rpy_to_quaternion;
use mbconv_ir::{BodyRef, Bushing, BushingLaw, Pose};
use nalgebra::Vector3;
use serde_json::Value;

/// The Drake corpus file `name`, parsed (skips, or fails under `MBCONV_REQUIRE_CORPUS=1`, when
/// absent).
fn corpus_file(name: &str) -> Option<Value> {
    let path = mbconv_test_support::corpus_file(&format!("drake/{name}"))?;
    let text = std::fs::read_to_string(&path).unwrap();
    Some(serde_json::from_str(&text).unwrap())
}

fn v3(v: &Value) -> Vector3<f64> {
    let a = v.as_array().unwrap();
    assert_eq!(a.len(), 3);
    Vector3::new(
        a[0].as_f64().unwrap(),
        a[1].as_f64().unwrap(),
        a[2].as_f64().unwrap(),
    )
}

thread_local! {
    /// Largest normalised error `|got − expected| / max(|expected|, 1)` seen by this thread.
    static WORST: std::cell::Cell<f64> = const { std::cell::Cell::new(0.0) };
}

/// 1e-12 relative, or 1e-12 absolute for components smaller than 1 in magnitude.
fn assert_close(what: &str, got: &Vector3<f64>, expected: &Vector3<f64>) {
    for i in 0..3 {
        let normalised = (got[i] - expected[i]).abs() / expected[i].abs().max(1.0);
        WORST.with(|w| w.set(w.get().max(normalised)));
        let tol = 1e-12 * expected[i].abs().max(1.0);
        assert!(
            (got[i] - expected[i]).abs() <= tol,
            "{what}[{i}]: got {} expected {} (diff {:e})",
            got[i],
            expected[i],
            (got[i] - expected[i]).abs()
        );
    }
}

fn constants(c: &Value) -> LawConstants {
    LawConstants {
        torque_stiffness: v3(&c["k012"]),
        torque_damping: v3(&c["d012"]),
        force_stiffness: v3(&c["kxyz"]),
        force_damping: v3(&c["dxyz"]),
    }
}

fn bushing(k: &LawConstants) -> Bushing {
    Bushing {
        law: BushingLaw::DrakeRollPitchYaw,
        body_a: BodyRef::body("L0"),
        frame_a: Pose::identity(),
        body_c: BodyRef::body("L1"),
        frame_c: Pose::identity(),
        torque_stiffness: k.torque_stiffness.into(),
        torque_damping: k.torque_damping.into(),
        force_stiffness: k.force_stiffness.into(),
        force_damping: k.force_damping.into(),
    }
}

fn pose(p: &Value, rpy: &Value) -> Pose {
    let r = v3(rpy);
    Pose::new(v3(p), rpy_to_quaternion([r.x, r.y, r.z]))
}

#[test]
fn every_world_case_matches_intermediates_and_spatial_forces() {
    let Some(data) = corpus_file("bushing_vectors_world.json") else {
        return;
    };
    let k = constants(&data["constants"]);
    let b = bushing(&k);
    let cases = data["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 36);
    for (i, case) in cases.iter().enumerate() {
        let what = |s: &str| format!("case {i} ({}) {s}", case["source_test"].as_str().unwrap());
        let rel = RelativeMotion {
            rotation: rpy_to_quaternion(v3(&case["rpy_AC"]).into()),
            position: v3(&case["p_AoCo_A"]),
            angular_velocity: v3(&case["w_AC_A"]),
            linear_velocity: v3(&case["v_ACo_A"]),
        };
        // Intermediate results.
        let e = drake::evaluate_relative(&k, &rel).unwrap();
        assert_close(&what("rpy"), &e.rpy, &v3(&case["rpy_AC"]));
        assert_close(&what("rpyDt"), &e.rpy_dt, &v3(&case["rpyDt"]));
        assert_close(&what("tau"), &e.tau, &v3(&case["tau"]));
        assert_close(&what("xyz_B"), &e.xyz_b, &v3(&case["xyz_B"]));
        assert_close(&what("xyzDt_B"), &e.xyz_dt_b, &v3(&case["xyzDt_B"]));
        assert_close(
            &what("F_A_A torque"),
            &e.f_a_a.torque,
            &v3(&case["F_A_A"]["torque_about_Ao"]),
        );
        assert_close(&what("F_A_A force"), &e.f_a_a.force, &v3(&case["F_A_A"]["force"]));
        assert_close(
            &what("F_C_C torque"),
            &e.f_c_c.torque,
            &v3(&case["F_C_C"]["torque_about_Co"]),
        );
        assert_close(&what("F_C_C force"), &e.f_c_c.force, &v3(&case["F_C_C"]["force"]));

        // Through the world-frame contract: frame A = world, frame C moving.
        let a = FrameState::at_rest(Pose::identity());
        let c = FrameState {
            pose: Pose::new(rel.position, rel.rotation),
            angular_velocity: rel.angular_velocity,
            linear_velocity: rel.linear_velocity,
        };
        let (on_a, on_c) = evaluate(&b, &a, &c).unwrap();
        assert_close(
            &what("world A torque"),
            &on_a.torque,
            &v3(&case["F_A_A"]["torque_about_Ao"]),
        );
        assert_close(&what("world A force"), &on_a.force, &v3(&case["F_A_A"]["force"]));
        let r_cw = rel.rotation.inverse();
        assert_close(
            &what("world C torque"),
            &(r_cw * on_c.torque),
            &v3(&case["F_C_C"]["torque_about_Co"]),
        );
        assert_close(
            &what("world C force"),
            &(r_cw * on_c.force),
            &v3(&case["F_C_C"]["force"]),
        );
        // Action and reaction, and the moment balance Drake's quasi-symmetric model guarantees.
        assert!((on_a.force + on_c.force).norm() <= 1e-12 * on_a.force.norm().max(1.0));
        let net = on_a.torque + on_c.shift(&c.pose.translation, &a.pose.translation).torque;
        assert!(
            net.norm() <= 1e-12 * on_a.torque.norm().max(1.0),
            "case {i}: net moment {net}"
        );
    }
    eprintln!(
        "world cases: worst normalised error {:e}",
        WORST.with(|w| w.get())
    );
}

#[test]
fn every_two_body_case_matches_at_frames_and_body_origins() {
    let Some(data) = corpus_file("bushing_vectors_bodies.json") else {
        return;
    };
    let k = constants(&data["constants"]);
    let mut b = bushing(&k);
    let frames = &data["frames"];
    b.frame_a = pose(&frames["A_on_L0"]["p"], &frames["A_on_L0"]["rpy"]);
    b.frame_c = pose(&frames["C_on_L1"]["p"], &frames["C_on_L1"]["rpy"]);
    let cases = data["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 2);
    for (i, case) in cases.iter().enumerate() {
        let body = |name: &str| {
            let p = &case["body_poses_world"][name];
            let v = &case["body_spatial_velocity_world"][name];
            FrameState {
                pose: pose(&p["p"], &p["rpy"]),
                angular_velocity: v3(&v["w"]),
                linear_velocity: v3(&v["v_origin"]),
            }
        };
        let (l0, l1) = (body("L0"), body("L1"));
        let a = l0.compose(&b.frame_a);
        let c = l1.compose(&b.frame_c);

        let rel = RelativeMotion::of(&a, &c);
        let derived = &case["derived"];
        assert_close(
            &format!("case {i} p_AoCo_A"),
            &rel.position,
            &v3(&derived["p_AoCo_A"]),
        );
        assert_close(
            &format!("case {i} w_AC_A"),
            &rel.angular_velocity,
            &v3(&derived["w_AC_A"]),
        );
        assert_close(
            &format!("case {i} v_ACo_A"),
            &rel.linear_velocity,
            &v3(&derived["v_ACo_A"]),
        );
        let e = drake::evaluate_relative(&k, &rel).unwrap();
        assert_close(&format!("case {i} rpy_AC"), &e.rpy, &v3(&derived["rpy_AC"]));

        let (on_a, on_c) = evaluate_named("two-body", &b, &a, &c).unwrap();
        let in_a = on_a.rotated(&a.pose.rotation.inverse());
        let in_c = on_c.rotated(&c.pose.rotation.inverse());
        assert_close(
            &format!("case {i} F_A_A torque"),
            &in_a.torque,
            &v3(&case["F_A_A"]["torque_about_Ao"]),
        );
        assert_close(
            &format!("case {i} F_A_A force"),
            &in_a.force,
            &v3(&case["F_A_A"]["force"]),
        );
        assert_close(
            &format!("case {i} F_C_C torque"),
            &in_c.torque,
            &v3(&case["F_C_C"]["torque_about_Co"]),
        );
        assert_close(
            &format!("case {i} F_C_C force"),
            &in_c.force,
            &v3(&case["F_C_C"]["force"]),
        );

        // At the body origins, in world: what the solver applies to L0 and L1.
        let at_l0: Wrench = on_a.shift(&a.pose.translation, &l0.pose.translation);
        let at_l1: Wrench = on_c.shift(&c.pose.translation, &l1.pose.translation);
        let expected_l0 = &case["F_L0_at_L0origin_W"];
        let expected_l1 = &case["F_L1_at_L1origin_W"];
        assert_close(
            &format!("case {i} L0 torque"),
            &at_l0.torque,
            &v3(&expected_l0["torque"]),
        );
        assert_close(
            &format!("case {i} L0 force"),
            &at_l0.force,
            &v3(&expected_l0["force"]),
        );
        assert_close(
            &format!("case {i} L1 torque"),
            &at_l1.torque,
            &v3(&expected_l1["torque"]),
        );
        assert_close(
            &format!("case {i} L1 force"),
            &at_l1.force,
            &v3(&expected_l1["force"]),
        );
    }
    eprintln!(
        "two-body cases: worst normalised error {:e}",
        WORST.with(|w| w.get())
    );
}

#[test]
fn gimbal_lock_is_refused_naming_the_bushing() {
    // Drake's TestGimbalLock: C at rpy (0, π/2, 0) relative to A.
    let k = LawConstants {
        torque_stiffness: Vector3::new(1.0, 1.0, 1.0),
        ..LawConstants::default()
    };
    let b = bushing(&k);
    let a = FrameState::at_rest(Pose::identity());
    let c = FrameState::at_rest(Pose::from_rotation(rpy_to_quaternion([
        0.0,
        std::f64::consts::FRAC_PI_2,
        0.0,
    ])));
    let err = evaluate_named("knee mount", &b, &a, &c).unwrap_err();
    assert!(matches!(err, BushingError::GimbalLock { .. }), "{err:?}");
    let message = err.to_string();
    assert!(message.starts_with("bushing 'knee mount': "), "{message}");
    assert!(message.contains("gimbal lock"), "{message}");
    assert!(evaluate(&b, &a, &c).is_err());
    // Just outside the tolerance the law evaluates.
    let c_ok = FrameState::at_rest(Pose::from_rotation(rpy_to_quaternion([
        0.0,
        std::f64::consts::FRAC_PI_2 - 0.0081,
        0.0,
    ])));
    assert!(evaluate(&b, &a, &c_ok).is_ok());
}

#[test]
fn negative_constants_are_refused_for_the_drake_law() {
    let k = LawConstants {
        force_damping: Vector3::new(1.0, -2.0, 1.0),
        ..LawConstants::default()
    };
    let b = bushing(&k);
    let s = FrameState::at_rest(Pose::identity());
    let err = evaluate_named("mount", &b, &s, &s).unwrap_err();
    assert_eq!(
        err,
        BushingError::BadConstant {
            name: "mount".into(),
            quantity: "force_damping",
            index: 1,
            value: -2.0,
            expected: "a non-negative number (Drake's LinearBushingRollPitchYaw)"
        }
    );
}
