//! Chrono's generic bushing by hand-computed cases, its balance of forces and moments, the
//! mapping of `bushing_data` per joint type, and the conversion between the two laws.
#![allow(clippy::unwrap_used)]

use mbconv_bushing::chrono;
use mbconv_bushing::{
    BushingError, ChronoBody1, FrameState, LawConstants, chrono_bushing_from_joint, convert_law, evaluate,
};
use mbconv_ir::rotation::{rot_z, rotation_vector::from_quaternion};
use mbconv_ir::{
    BodyRef, Bushing, BushingConstants, BushingLaw, Category, Joint, JointBushing, JointKind, Pose,
};
use nalgebra::{UnitQuaternion, Vector3};

fn close(a: &Vector3<f64>, b: &Vector3<f64>, tol: f64) -> bool {
    (a - b).norm() <= tol
}

fn constants() -> LawConstants {
    LawConstants {
        torque_stiffness: Vector3::new(10.0, 20.0, 30.0),
        torque_damping: Vector3::new(1.0, 2.0, 3.0),
        force_stiffness: Vector3::new(100.0, 200.0, 300.0),
        force_damping: Vector3::new(4.0, 5.0, 6.0),
    }
}

fn ir_bushing(law: BushingLaw, k: &LawConstants) -> Bushing {
    Bushing {
        law,
        body_a: BodyRef::body("one"),
        frame_a: Pose::identity(),
        body_c: BodyRef::body("two"),
        frame_c: Pose::identity(),
        torque_stiffness: k.torque_stiffness.into(),
        torque_damping: k.torque_damping.into(),
        force_stiffness: k.force_stiffness.into(),
        force_damping: k.force_damping.into(),
    }
}

#[test]
fn pure_translation_in_the_axes_of_c() {
    // C (body 2 marker) at the origin turned +90° about z; A (body 1 marker) displaced.
    let r = rot_z(std::f64::consts::FRAC_PI_2);
    let c = FrameState::at_rest(Pose::from_rotation(r));
    let a = FrameState::at_rest(Pose::new(Vector3::new(0.01, -0.02, 0.03), r));
    // A in C's axes: (y, −x, z) = (−0.02, −0.01, 0.03); f_C = K∘S = (−2, −2, 9); in world
    // Rz(90°)·(−2, −2, 9) = (2, −2, 9).
    let (on_a, on_c) = chrono::evaluate(&constants(), &a, &c);
    assert!(
        close(&on_c.force, &Vector3::new(2.0, -2.0, 9.0), 1e-13),
        "{}",
        on_c.force
    );
    assert!(close(&on_a.force, &Vector3::new(-2.0, 2.0, -9.0), 1e-13));
    assert!(close(&on_c.torque, &Vector3::zeros(), 1e-15));
    assert!(close(&on_a.torque, &Vector3::zeros(), 1e-15));
    // The same through the IR contract.
    let (a2, c2) = evaluate(&ir_bushing(BushingLaw::ChronoGeneric, &constants()), &a, &c).unwrap();
    assert_eq!((a2, c2), (on_a, on_c));
}

#[test]
fn translational_rate_is_seen_in_c() {
    // A moves along world z at 1 m/s, C at rest and identity: Ṡ = (0, 0, 1), f = d_z = 6.
    let c = FrameState::at_rest(Pose::identity());
    let a = FrameState {
        pose: Pose::identity(),
        angular_velocity: Vector3::zeros(),
        linear_velocity: Vector3::new(0.0, 0.0, 1.0),
    };
    let e = chrono::evaluate_relative(&constants(), &a, &c);
    assert_eq!(e.displacement_rate, Vector3::new(0.0, 0.0, 1.0));
    assert_eq!(e.force_c, Vector3::new(0.0, 0.0, 6.0));
    // C spinning about z at 2 rad/s with A 1 m away along x and fixed in space: seen from C,
    // A moves along −y at 2 m/s: Ṡ = (0, −2, 0).
    let c = FrameState {
        pose: Pose::identity(),
        angular_velocity: Vector3::new(0.0, 0.0, 2.0),
        linear_velocity: Vector3::zeros(),
    };
    let a = FrameState::at_rest(Pose::from_translation(Vector3::x()));
    let e = chrono::evaluate_relative(&constants(), &a, &c);
    assert!(close(&e.displacement_rate, &Vector3::new(0.0, -2.0, 0.0), 1e-15));
}

#[test]
fn pure_small_rotation_gives_k_times_angle() {
    let r = rot_z(std::f64::consts::FRAC_PI_2);
    let c = FrameState::at_rest(Pose::from_rotation(r));
    // A turned by 0.01 rad about C's own x axis.
    let tilt = UnitQuaternion::from_axis_angle(&Vector3::x_axis(), 0.01);
    let a = FrameState::at_rest(Pose::from_rotation(r * tilt));
    let e = chrono::evaluate_relative(&constants(), &a, &c);
    assert!(close(&e.rotation_vector, &Vector3::new(0.01, 0.0, 0.0), 1e-16));
    assert!(close(&e.torque_c, &Vector3::new(0.1, 0.0, 0.0), 1e-15));
    let (on_a, on_c) = chrono::evaluate(&constants(), &a, &c);
    // C's x axis is world y: the restoring torque on C turns it towards A about world +y.
    assert!(
        close(&on_c.torque, &Vector3::new(0.0, 0.1, 0.0), 1e-15),
        "{}",
        on_c.torque
    );
    assert!(close(&on_a.torque, &Vector3::new(0.0, -0.1, 0.0), 1e-15));
    assert!(close(&on_c.force, &Vector3::zeros(), 1e-15));
    // Rotational damping uses the relative angular velocity in C's axes.
    let a = FrameState {
        pose: Pose::identity(),
        angular_velocity: Vector3::new(0.0, 0.0, 2.0),
        linear_velocity: Vector3::zeros(),
    };
    let c = FrameState::at_rest(Pose::identity());
    let e = chrono::evaluate_relative(&constants(), &a, &c);
    assert_eq!(e.torque_c, Vector3::new(0.0, 0.0, 6.0));
}

/// The rotation vector of `q` as Chrono's bushing computes it: angle `2·atan2(|v|, w)` wrapped
/// into `[−π, π]` times `v/|v|` (written out here to check the IR's conversion against it).
fn chrono_rotation_vector(q: &UnitQuaternion<f64>) -> Vector3<f64> {
    let v = q.imag();
    let sin_half = v.norm();
    if sin_half == 0.0 {
        return Vector3::zeros();
    }
    let mut angle = 2.0 * sin_half.atan2(q.w);
    if angle > std::f64::consts::PI {
        angle -= 2.0 * std::f64::consts::PI;
    }
    v * (angle / sin_half)
}

fn rotation_vector(q: &UnitQuaternion<f64>) -> Vector3<f64> {
    Vector3::from(from_quaternion(q))
}

#[test]
fn rotation_vector_wraps_into_minus_pi_pi() {
    let q = UnitQuaternion::from_axis_angle(&Vector3::z_axis(), 1.5 * std::f64::consts::PI);
    assert!(close(
        &rotation_vector(&q),
        &Vector3::new(0.0, 0.0, -0.5 * std::f64::consts::PI),
        1e-15
    ));
    let q = UnitQuaternion::from_axis_angle(&Vector3::y_axis(), -0.7);
    assert!(close(&rotation_vector(&q), &Vector3::new(0.0, -0.7, 0.0), 1e-15));
    assert_eq!(rotation_vector(&UnitQuaternion::identity()), Vector3::zeros());
}

#[test]
fn ir_rotation_vector_is_chronos_convention() {
    // Both signs of every quaternion, angles from tiny to past π, axes in every octant.
    let mut worst: f64 = 0.0;
    for i in 0..400u32 {
        let t = f64::from(i);
        let axis = Vector3::new((0.7 * t).sin(), (1.3 * t + 0.4).cos(), (0.37 * t - 1.0).sin());
        let angle = [
            1e-9,
            1e-4,
            0.3,
            1.0,
            2.5,
            3.1,
            std::f64::consts::PI,
            3.5,
            5.0,
            6.2,
        ][i as usize % 10];
        let q = UnitQuaternion::from_scaled_axis(axis.normalize() * angle);
        for q in [q, UnitQuaternion::new_unchecked(-q.into_inner())] {
            let (ir, chrono) = (rotation_vector(&q), chrono_rotation_vector(&q));
            assert!(ir.norm() <= std::f64::consts::PI + 1e-15);
            // The same rotation vector to rounding (relative to its length) ...
            worst = worst.max((ir - chrono).norm() / chrono.norm().max(1.0));
            // ... and the same rotation.
            assert!(UnitQuaternion::from_scaled_axis(ir).angle_to(&q) < 1e-14);
        }
    }
    assert!(worst < 4.0 * f64::EPSILON, "largest difference {worst:e}");
}

#[test]
fn action_reaction_and_moment_balance() {
    let a = FrameState {
        pose: Pose::new(
            Vector3::new(0.1, 0.2, -0.05),
            UnitQuaternion::from_euler_angles(0.1, -0.2, 0.3),
        ),
        angular_velocity: Vector3::new(0.3, -0.1, 0.2),
        linear_velocity: Vector3::new(0.05, 0.02, -0.4),
    };
    let c = FrameState {
        pose: Pose::new(
            Vector3::new(0.12, 0.18, -0.02),
            UnitQuaternion::from_euler_angles(0.12, -0.15, 0.31),
        ),
        angular_velocity: Vector3::new(-0.2, 0.1, 0.0),
        linear_velocity: Vector3::new(0.0, 0.1, 0.2),
    };
    let (on_a, on_c) = chrono::evaluate(&constants(), &a, &c);
    assert_eq!(on_a.force, -on_c.force);
    assert_eq!(on_a.torque, -on_c.torque);
    // Forces act at the two frame origins: the net moment about Ao is (Co − Ao) × f.
    let net = on_a.torque + on_c.shift(&c.pose.translation, &a.pose.translation).torque;
    let arm = (c.pose.translation - a.pose.translation).cross(&on_c.force);
    assert!(close(&net, &arm, 1e-14), "{net} vs {arm}");
    assert!(arm.norm() > 1e-3, "the test deflects the bushing");
    // With coincident origins the pair balances.
    let a0 = FrameState {
        pose: Pose::new(c.pose.translation, a.pose.rotation),
        ..a
    };
    let (on_a, on_c) = chrono::evaluate(&constants(), &a0, &c);
    let net = on_a.torque + on_c.torque;
    assert!(net.norm() < 1e-15);
}

fn joint(kind: JointKind, free: Option<BushingConstants>) -> Joint {
    let mut j = Joint::new("j", kind, BodyRef::body("one"), BodyRef::body("two"));
    j.parent_frame = Pose::from_translation(Vector3::new(1.0, 0.0, 0.0));
    j.child_frame = Pose::from_translation(Vector3::new(0.0, 0.0, -0.5));
    j.bushing = Some(JointBushing {
        constrained: BushingConstants {
            stiffness_linear: 1e5,
            damping_linear: 1e3,
            stiffness_rotational: 2e5,
            damping_rotational: 2e3,
        },
        free,
    });
    j
}

#[test]
fn bushing_data_maps_per_joint_type() {
    let dof = Some(BushingConstants {
        stiffness_linear: 7.0,
        damping_linear: 7.0,
        stiffness_rotational: 5.0,
        damping_rotational: 0.5,
    });
    let cases = [
        (JointKind::Fixed, [2e5, 2e5, 2e5]),
        (JointKind::Spherical, [5.0, 5.0, 5.0]),
        (JointKind::Revolute { axis: Vector3::z() }, [2e5, 2e5, 5.0]),
        (
            JointKind::Universal {
                axis1: Vector3::x(),
                axis2: Vector3::y(),
            },
            [5.0, 5.0, 2e5],
        ),
    ];
    for (kind, torque_stiffness) in cases {
        let b = chrono_bushing_from_joint(&joint(kind.clone(), dof), ChronoBody1::Parent).unwrap();
        assert_eq!(b.law, BushingLaw::ChronoGeneric);
        assert_eq!(b.torque_stiffness, torque_stiffness, "{kind:?}");
        assert_eq!(b.force_stiffness, [1e5; 3]);
        assert_eq!(b.force_damping, [1e3; 3]);
        assert_eq!(b.body_a, BodyRef::body("one"));
        assert_eq!(b.frame_a.translation, Vector3::new(1.0, 0.0, 0.0));
    }
    let swapped = chrono_bushing_from_joint(&joint(JointKind::Fixed, None), ChronoBody1::Child).unwrap();
    assert_eq!(swapped.body_a, BodyRef::body("two"));
    assert_eq!(swapped.frame_c.translation, Vector3::new(1.0, 0.0, 0.0));
    let refused = chrono_bushing_from_joint(
        &joint(JointKind::Prismatic { axis: Vector3::z() }, None),
        ChronoBody1::Parent,
    );
    assert!(matches!(refused, Err(BushingError::Joint { .. })));
}

#[test]
fn revolute_axis_off_z_turns_the_frames_like_chrono() {
    // Chrono's model_bushing: REVOLUTE about world y; the free rotation must be about y.
    let b = chrono_bushing_from_joint(
        &joint(JointKind::Revolute { axis: Vector3::y() }, None),
        ChronoBody1::Parent,
    )
    .unwrap();
    assert!(close(&(b.frame_a.rotation * Vector3::z()), &Vector3::y(), 1e-15));
    assert!(close(&(b.frame_c.rotation * Vector3::z()), &Vector3::y(), 1e-15));
    assert_eq!(b.torque_stiffness, [2e5, 2e5, 0.0]);
    // Turning body two about y (the hinge) costs no torque.
    let a = FrameState::at_rest(Pose::identity() * b.frame_a);
    let spin = Pose::new(
        Vector3::new(1.0, 0.0, 0.0)
            - UnitQuaternion::from_axis_angle(&Vector3::y_axis(), 0.2) * Vector3::new(0.0, 0.0, -0.5),
        UnitQuaternion::from_axis_angle(&Vector3::y_axis(), 0.2),
    );
    let c = FrameState::at_rest(spin * b.frame_c);
    let (on_a, on_c) = evaluate(&b, &a, &c).unwrap();
    assert!(on_c.torque.norm() < 1e-9 && on_c.force.norm() < 1e-9, "{on_c:?}");
    assert!(on_a.force.norm() < 1e-9);
}

#[test]
fn law_conversion_keeps_constants_and_says_it_approximates() {
    let k = constants();
    let chrono_bushing = ir_bushing(BushingLaw::ChronoGeneric, &k);
    let (drake_bushing, finding) =
        convert_law("mount", &chrono_bushing, BushingLaw::DrakeRollPitchYaw).unwrap();
    let finding = finding.unwrap();
    assert_eq!(finding.category, Category::Approximated);
    assert_eq!(finding.path.as_deref(), Some("force_elements[\"mount\"]"));
    assert!(
        finding.message.contains("approx") || finding.message.contains("differ"),
        "{}",
        finding.message
    );
    assert_eq!(drake_bushing.law, BushingLaw::DrakeRollPitchYaw);
    assert_eq!(drake_bushing.torque_stiffness, chrono_bushing.torque_stiffness);
    assert_eq!(drake_bushing.frame_a, chrono_bushing.frame_a);
    let (back, back_finding) = convert_law("mount", &drake_bushing, BushingLaw::ChronoGeneric).unwrap();
    assert_eq!(back, chrono_bushing);
    assert_eq!(back_finding.unwrap().category, Category::Approximated);
    let (same, none) = convert_law("mount", &chrono_bushing, BushingLaw::ChronoGeneric).unwrap();
    assert_eq!(same, chrono_bushing);
    assert!(none.is_none());
    // Negative Chrono constants cannot become a Drake bushing.
    let mut negative = chrono_bushing.clone();
    negative.torque_stiffness[0] = -1.0;
    assert!(matches!(
        convert_law("mount", &negative, BushingLaw::DrakeRollPitchYaw),
        Err(BushingError::BadConstant { .. })
    ));
}

/// The two laws agree to first order: the difference of their wrenches shrinks like the
/// square of the deflection.
#[test]
fn laws_agree_to_first_order() {
    let k = constants();
    let chrono_bushing = ir_bushing(BushingLaw::ChronoGeneric, &k);
    let (drake_bushing, _) = convert_law("m", &chrono_bushing, BushingLaw::DrakeRollPitchYaw).unwrap();
    let deflect = |eps: f64| {
        let a = FrameState::at_rest(Pose::identity());
        let c = FrameState {
            pose: Pose::new(
                Vector3::new(1.0, -2.0, 1.5) * eps,
                UnitQuaternion::from_scaled_axis(Vector3::new(0.7, 0.4, -0.9) * eps),
            ),
            angular_velocity: Vector3::new(0.3, -0.2, 0.5) * eps,
            linear_velocity: Vector3::new(-0.1, 0.4, 0.2) * eps,
        };
        let (da, dc) = evaluate(&drake_bushing, &a, &c).unwrap();
        let (ca, cc) = evaluate(&chrono_bushing, &a, &c).unwrap();
        let size = dc.torque.norm() + dc.force.norm();
        let diff = (da.torque - ca.torque).norm()
            + (da.force - ca.force).norm()
            + (dc.torque - cc.torque).norm()
            + (dc.force - cc.force).norm();
        (diff, size)
    };
    let (d1, s1) = deflect(1e-2);
    let (d2, s2) = deflect(1e-3);
    assert!(d1 / s1 < 0.05, "relative difference {} at 1e-2", d1 / s1);
    // Relative difference ~ first order in eps, absolute ~ second order.
    let order = (d1 / d2).log10();
    assert!((1.8..2.2).contains(&order), "difference scales like eps^{order}");
    assert!(s1 / s2 > 9.9);
}

/// Power of the returned wrenches against the rate of the stored energy along a motion of C
/// (A at rest): `P = t_C·ω_C + f_C·v_Co` must equal `−dV/dt`.
fn power_mismatch(bushing: &Bushing, w: Vector3<f64>, v: Vector3<f64>) -> f64 {
    use mbconv_bushing::potential_energy;
    let a = FrameState::at_rest(Pose::identity());
    let r0 = UnitQuaternion::from_euler_angles(0.3, -0.4, 0.5);
    let p0 = Vector3::new(0.1, -0.2, 0.15);
    let at = |t: f64| FrameState {
        pose: Pose::new(p0 + v * t, UnitQuaternion::from_scaled_axis(w * t) * r0),
        angular_velocity: w,
        linear_velocity: v,
    };
    let h = 1e-5;
    let rate = (potential_energy(bushing, &a, &at(h)).unwrap()
        - potential_energy(bushing, &a, &at(-h)).unwrap())
        / (2.0 * h);
    let (_, on_c) = evaluate(bushing, &a, &at(0.0)).unwrap();
    let power = on_c.torque.dot(&w) + on_c.force.dot(&v);
    (power + rate).abs() / rate.abs()
}

#[test]
fn drake_torsional_springs_are_conservative() {
    let mut k = constants();
    k.torque_damping = Vector3::zeros();
    k.force_damping = Vector3::zeros();
    let rotation_only = LawConstants {
        force_stiffness: Vector3::zeros(),
        ..k
    };
    let b = ir_bushing(BushingLaw::DrakeRollPitchYaw, &rotation_only);
    let mismatch = power_mismatch(&b, Vector3::new(0.3, -0.8, 0.5), Vector3::new(0.2, 0.1, -0.3));
    assert!(mismatch < 1e-8, "torsional power mismatch {mismatch}");
    // Translational springs: exact for pure translation …
    let translation_only = LawConstants {
        torque_stiffness: Vector3::zeros(),
        ..k
    };
    let b = ir_bushing(BushingLaw::DrakeRollPitchYaw, &translation_only);
    assert!(power_mismatch(&b, Vector3::zeros(), Vector3::new(0.2, 0.1, -0.3)) < 1e-8);
    // … and only approximate with rotation (Drake's ½·w_AC for frame B).
    let rotating = power_mismatch(&b, Vector3::new(0.3, -0.8, 0.5), Vector3::new(0.2, 0.1, -0.3));
    assert!(
        rotating > 1e-6 && rotating < 0.1,
        "translational mismatch {rotating}"
    );
}
