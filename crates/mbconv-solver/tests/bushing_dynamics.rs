//! Bushings in motion (issue 5, dynamic acceptance): a penalty bushing replacing a revolute
//! joint converges to the ideal joint as its stiffness grows, a purely torsional Drake bushing
//! conserves energy, and Chrono's `model_bushing.yaml` imports with its compliant joint and
//! obeys Newton's second law while it swings.
#![allow(clippy::unwrap_used)]

use mbconv_bushing::{FrameState, ReplaceParams, replace_joint_with_bushing};
use mbconv_ir::format::{Format, Options, Source};
use mbconv_ir::{
    BodyRef, Bushing, BushingConstants, BushingLaw, ForceElement, ForceKind, Inertia, Joint, JointKind,
    Model as Ir, Pose,
};
use mbconv_solver::{Integrator, SimulateOptions, Trajectory};
use nalgebra::{Quaternion, UnitQuaternion, Vector3};
use std::path::PathBuf;

fn pose(p: &[f64; 7]) -> Pose {
    Pose::new(
        Vector3::new(p[0], p[1], p[2]),
        UnitQuaternion::from_quaternion(Quaternion::new(p[3], p[4], p[5], p[6])),
    )
}

fn body(name: &str, mass: f64, com: Vector3<f64>, moments: [f64; 3]) -> mbconv_ir::Body {
    let mut b = mbconv_ir::Body::new(name);
    b.inertial.mass = mass;
    b.inertial.com = com;
    b.inertial.inertia = Inertia::from_moments_products(moments, [0.0; 3]);
    b
}

fn rk4(duration: f64, dt: f64, energy: bool) -> SimulateOptions {
    SimulateOptions {
        duration,
        dt,
        integrator: Integrator::Rk4,
        every: 1,
        energy,
        joint_limits: false,
        max_steps: None,
    }
}

// ---------------------------------------------------------------------------------------
// 1. Penalty bushing -> ideal revolute joint as the stiffness grows.
// ---------------------------------------------------------------------------------------

/// Centre of mass of the bob in its body frame: off the hinge axis (y) sideways too, so the
/// bushing must carry a moment about x as well as the pivot force.
const BOB_COM: Vector3<f64> = Vector3::new(0.0, 0.2, -1.0);
const BOB_INERTIA: [f64; 3] = [0.1, 0.12, 0.05];

/// A 1 kg physical pendulum hinged at the world origin about y, released from rest at
/// 0.8 rad, gravity on.
fn pendulum() -> Ir {
    let mut ir = Ir::new("pendulum");
    ir.bodies.push(body("bob", 1.0, BOB_COM, BOB_INERTIA));
    let mut hinge = Joint::new(
        "hinge",
        JointKind::Revolute { axis: Vector3::y() },
        BodyRef::World,
        BodyRef::body("bob"),
    );
    hinge.q0 = vec![0.8];
    ir.joints.push(hinge);
    ir
}

/// World positions of the bob's centre of mass, one per sample.
fn com_path(ir: &Ir, options: &SimulateOptions) -> Vec<Vector3<f64>> {
    let (trajectory, _) = Trajectory::record(ir, options).unwrap();
    trajectory
        .poses
        .iter()
        .map(|p| pose(&p[0]).transform_point(&BOB_COM))
        .collect()
}

#[test]
fn penalty_bushing_approaches_the_ideal_revolute_as_stiffness_grows() {
    let ideal = pendulum();
    // The stiffest bushing's fastest mode (the bob rocking about its centre of mass against
    // both springs) is ω ≈ √((kₜ + k_f·r²)/I_com) ≈ 2000 rad/s at k = 1e5: dt = 0.5 ms keeps
    // ω·dt ≈ 1, well inside RK4's stability limit (2.8), for all three stiffnesses.
    let options = rk4(2.0, 5e-4, false);
    let reference = com_path(&ideal, &options);
    // The ideal pendulum really swings (through the bottom and up the other side).
    let swing = reference.iter().map(|p| p.x).fold(f64::INFINITY, f64::min);
    assert!(swing < -0.5, "the ideal pendulum did not swing: min x {swing}");

    let stiffnesses = [1e3, 1e4, 1e5];
    let mut errors = Vec::new();
    for k in stiffnesses {
        // A small fixed damping ratio: the replacement designs damping on the inertia about
        // the joint origin, so ζ = 1 would put the rocking mode's damping rate far beyond
        // what an explicit step of 0.5 ms can integrate.
        let params = ReplaceParams {
            force_stiffness: Some(k),
            torque_stiffness: Some(k),
            damping_ratio: Some(0.05),
            ..ReplaceParams::default()
        };
        let (compliant, _findings) = replace_joint_with_bushing(&ideal, "hinge", &params).unwrap();
        assert!(compliant.joints.is_empty());
        let ForceKind::Bushing(b) = &compliant.force_elements[0].kind else {
            panic!("no bushing")
        };
        // Free about the hinge axis (bushing yaw), stiff everywhere else.
        assert_eq!(b.torque_stiffness, [k, k, 0.0]);
        assert_eq!(b.force_stiffness, [k; 3]);
        let path = com_path(&compliant, &options);
        assert_eq!(path.len(), reference.len());
        let error = path
            .iter()
            .zip(&reference)
            .map(|(a, b)| (a - b).norm())
            .fold(0.0, f64::max);
        println!("stiffness {k:e}: max centre-of-mass error {error:e} m");
        errors.push(error);
    }
    // Strictly decreasing, and by a clear margin each decade (the penalty error is O(1/k):
    // the pivot sags by about m·g/k and the pendulum's period changes with it).
    for (i, w) in errors.windows(2).enumerate() {
        assert!(
            w[1] < w[0] / 5.0,
            "error did not shrink enough from k={:e} to k={:e}: {:?}",
            stiffnesses[i],
            stiffnesses[i + 1],
            errors
        );
    }
    assert!(errors[2] < 1e-3, "stiffest bushing still {} m off", errors[2]);
}

// ---------------------------------------------------------------------------------------
// 2. A purely torsional bushing conserves energy.
// ---------------------------------------------------------------------------------------

/// Two bodies turning about the world origin: `a` on a ball joint to the world, `c` on a
/// ball joint to `a` at the same point, so no translation is left for a force spring. A Drake
/// bushing with torque stiffness only (and `damping` torque damping) joins them at that point.
fn torsional_pair(damping: f64) -> (Ir, Bushing) {
    let mut ir = Ir::new("torsional_pair");
    ir.simulation.gravity = Some(Vector3::zeros());
    ir.bodies
        .push(body("a", 2.0, Vector3::new(0.1, 0.0, 0.3), [0.05, 0.04, 0.03]));
    ir.bodies
        .push(body("c", 1.5, Vector3::new(0.0, -0.2, 0.1), [0.03, 0.02, 0.04]));
    let mut shoulder = Joint::new(
        "shoulder",
        JointKind::Spherical,
        BodyRef::World,
        BodyRef::body("a"),
    );
    shoulder.v0 = vec![0.4, -0.3, 0.6];
    let mut elbow = Joint::new(
        "elbow",
        JointKind::Spherical,
        BodyRef::body("a"),
        BodyRef::body("c"),
    );
    elbow.v0 = vec![2.0, 1.5, -2.5];
    ir.joints.push(shoulder);
    ir.joints.push(elbow);
    let bushing = Bushing {
        law: BushingLaw::DrakeRollPitchYaw,
        body_a: BodyRef::body("a"),
        frame_a: Pose::identity(),
        body_c: BodyRef::body("c"),
        frame_c: Pose::identity(),
        torque_stiffness: [3.0, 5.0, 2.0],
        torque_damping: [damping; 3],
        force_stiffness: [0.0; 3],
        force_damping: [0.0; 3],
    };
    ir.force_elements.push(ForceElement {
        name: "twist".into(),
        kind: ForceKind::Bushing(bushing.clone()),
        extras: Default::default(),
    });
    (ir, bushing)
}

/// Kinetic energy (from the solver) and bushing potential energy (from the poses, computed
/// here independently of the solver) per sample; gravity is off, so the solver's own
/// potential energy must equal the bushing's.
fn pair_energies(damping: f64) -> (Vec<f64>, Vec<f64>) {
    let (ir, bushing) = torsional_pair(damping);
    let (trajectory, _) = Trajectory::record(&ir, &rk4(3.0, 1e-3, true)).unwrap();
    let kinetic = trajectory.kinetic.unwrap();
    let solver_potential = trajectory.potential.clone().unwrap();
    let potential: Vec<f64> = trajectory
        .poses
        .iter()
        .map(|p| {
            let a = FrameState::at_rest(pose(&p[0]) * bushing.frame_a);
            let c = FrameState::at_rest(pose(&p[1]) * bushing.frame_c);
            mbconv_bushing::potential_energy(&bushing, &a, &c).unwrap()
        })
        .collect();
    for (solver, ours) in solver_potential.iter().zip(&potential) {
        assert!(
            (solver - ours).abs() <= 1e-9 * ours.abs().max(1.0),
            "solver {solver} vs {ours}"
        );
    }
    (kinetic, potential)
}

#[test]
fn torsional_bushing_pair_conserves_energy_without_damping() {
    let (kinetic, potential) = pair_energies(0.0);
    let total: Vec<f64> = kinetic.iter().zip(&potential).map(|(k, v)| k + v).collect();
    let e0 = total[0];
    let drift = total.iter().map(|e| (e - e0).abs()).fold(0.0, f64::max) / e0;
    let stored = potential.iter().copied().fold(0.0, f64::max);
    println!("undamped: E0 {e0} J, max bushing energy {stored} J, max relative drift {drift:e}");
    // The bushing really winds up: a large share of the energy passes through it.
    assert!(stored > 0.3 * e0, "bushing stored only {stored} J of {e0} J");
    // The bushing modes run at about 10 rad/s (≤ 5 N·m/rad on a reduced inertia about the
    // pivot of ≈ 0.07 kg·m²); taking ω ≤ 20 rad/s, RK4 at dt = 1 ms runs at ω·dt ≤ 0.02: its
    // energy error per step is of order (ω·dt)⁵/5! ≈ 3e-11 relative, ≤ 1e-7 over 3000 steps
    // even if every step erred the same way. 1e-6 leaves margin for that and nothing more: a
    // non-conservative torque law or a missing potential term shows up at the percent level.
    assert!(drift < 1e-6, "relative energy drift {drift:e}");

    // The same measure sees dissipation at once: a little torsional damping loses energy.
    let (kinetic, potential) = pair_energies(0.05);
    let last = kinetic.last().unwrap() + potential.last().unwrap();
    let loss = (e0 - last) / e0;
    println!("damped: relative energy lost {loss:e}");
    assert!(loss > 1e-2, "damped pair lost only {loss:e} of its energy");
}

// ---------------------------------------------------------------------------------------
// 3. Chrono's model_bushing.yaml.
// ---------------------------------------------------------------------------------------

/// The Chrono corpus file `name` (skips, or fails under `MBCONV_REQUIRE_CORPUS=1`, when absent).
fn corpus_file(name: &str) -> Option<PathBuf> {
    mbconv_test_support::corpus_file(&format!("chrono/{name}"))
}

#[test]
fn chrono_model_bushing_imports_and_swings_under_its_load() {
    let Some(path) = corpus_file("model_bushing.yaml") else {
        return;
    };
    let source = Source::from_path(&path).unwrap();
    let ir = mbconv_chrono::ChronoFormat
        .read(&source, &Options::default())
        .unwrap()
        .model;

    // The compliant revolute joint keeps its bushing_data.
    assert_eq!(ir.joints.len(), 1);
    let joint = &ir.joints[0];
    assert_eq!(joint.name, "bushing");
    assert!(matches!(joint.kind, JointKind::Revolute { .. }));
    let jb = joint.bushing.as_ref().expect("bushing_data imported");
    let constrained = BushingConstants {
        stiffness_linear: 1e5,
        damping_linear: 1e3,
        stiffness_rotational: 1e5,
        damping_rotational: 1e3,
    };
    assert_eq!(jb.constrained, constrained);
    let zero = BushingConstants {
        stiffness_linear: 0.0,
        damping_linear: 0.0,
        stiffness_rotational: 0.0,
        damping_rotational: 0.0,
    };
    assert_eq!(jb.free.unwrap_or(zero), zero);
    let body_index = ir.body_index("body").unwrap();
    let mass = ir.bodies[body_index].inertial.mass;
    assert_eq!(mass, 122.0);
    assert_eq!(ir.bodies[body_index].inertial.com, Vector3::zeros());
    assert_eq!(ir.loads.len(), 1);
    let load = &ir.loads[0];
    assert_eq!(
        (load.vector, load.vector_in_body_frame),
        (Vector3::new(0.0, 0.0, -8e3), false)
    );
    let load_point = load.point; // body coordinates
    assert!(load.point_in_body_frame);

    // The law the solver builds for the joint (Chrono's generic bushing in the joint frames).
    let (k, d) = jb.diagonal(&joint.kind).unwrap();
    let law = Bushing {
        law: BushingLaw::ChronoGeneric,
        body_a: joint.parent.clone(),
        frame_a: joint.parent_frame,
        body_c: joint.child.clone(),
        frame_c: joint.child_frame,
        torque_stiffness: [k[3], k[4], k[5]],
        torque_damping: [d[3], d[4], d[5]],
        force_stiffness: [k[0], k[1], k[2]],
        force_damping: [d[0], d[1], d[2]],
    };
    let ground = pose(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]);
    assert!(ir.bodies[ir.body_index("ground").unwrap()].fixed);

    let h = 1e-3;
    let (trajectory, summary) = Trajectory::record(&ir, &rk4(1.0, h, false)).unwrap();
    assert_eq!(summary.steps, 1000);
    let gravity = ir
        .simulation
        .gravity
        .unwrap_or(Vector3::from(mbconv_solver::DEFAULT_GRAVITY));
    let poses: Vec<Pose> = trajectory.poses.iter().map(|p| pose(&p[body_index])).collect();
    assert!(trajectory.poses.iter().flatten().flatten().all(|x| x.is_finite()));

    let pivot = |x: &Pose| x.transform_point(&joint.child_frame.translation);
    let mut max_deflection = 0.0f64;
    let mut lowest_load_point = f64::INFINITY;
    let mut worst = 0.0f64;
    for i in 1..poses.len() - 1 {
        let (before, now, after) = (&poses[i - 1], &poses[i], &poses[i + 1]);
        max_deflection = max_deflection.max(pivot(now).norm());
        lowest_load_point = lowest_load_point.min(now.transform_point(&load_point).z);
        // Central differences: body-origin (= centre of mass) acceleration, velocity and
        // angular velocity.
        let acceleration = (after.translation - 2.0 * now.translation + before.translation) / (h * h);
        let velocity = (after.translation - before.translation) / (2.0 * h);
        let omega = (after.rotation * before.rotation.inverse()).scaled_axis() / (2.0 * h);
        let body_state = FrameState {
            pose: *now,
            angular_velocity: omega,
            linear_velocity: velocity,
        };
        let c = body_state.compose(&joint.child_frame);
        let a = FrameState::at_rest(ground * joint.parent_frame);
        let (_, on_c) = mbconv_bushing::evaluate(&law, &a, &c).unwrap();
        // Newton: m a = load + m g + bushing force on the body.
        let residual = mass * acceleration - (load.vector + mass * gravity + on_c.force);
        worst = worst.max(residual.norm());
    }
    println!(
        "max pivot deflection {max_deflection} m, lowest load point z {lowest_load_point} m, \
         worst Newton residual {worst} N"
    );
    // The 8 kN load at 2 m swings the body down about the free hinge axis, and the pivot
    // deflects by several F/k = 0.08 m (load, weight and centripetal force) yet stays bounded.
    assert!(
        lowest_load_point < -2.0,
        "the load point only reached z = {lowest_load_point}"
    );
    assert!(
        max_deflection > 8e3 / 1e5 && max_deflection < 0.5,
        "pivot deflection {max_deflection}"
    );
    // Newton's second law holds with the bushing force to finite-difference accuracy: 1 % of
    // the load (without the bushing force the residual would be tens of kN).
    assert!(worst < 80.0, "Newton residual {worst} N");
}
