//! The stiff scheme (Rodas4 in the tangent space) and Dormand–Prince's switch to it: a joint
//! with a very stiff damper against its closed form, a non-stiff double pendulum against
//! Dopri5, and quaternions of free and ball joints kept unit.
#![allow(clippy::unwrap_used)]

use mbconv_ir::{Body, BodyRef, DofProperties, Inertia, Joint, JointKind, Model as Ir, Pose, Twist};
use mbconv_solver::{
    Data, Integrator, Model, RosenbrockWork, SimulateOptions, State, Trajectory, advance_dopri5,
    advance_rosenbrock,
};
use nalgebra::{UnitQuaternion, Vector3};

const TOL: f64 = 1e-10;

/// Dopri5 at [`TOL`] for `duration`, sampled every 10 ms.
fn dopri5(duration: f64) -> SimulateOptions {
    SimulateOptions {
        duration,
        dt: 1e-2,
        integrator: Integrator::Dopri5 { rtol: TOL, atol: TOL },
        every: 1,
        energy: false,
        joint_limits: false,
        max_steps: None,
    }
}

fn body(name: &str, mass: f64, com: Vector3<f64>, inertia: [f64; 3]) -> Body {
    let mut b = Body::new(name);
    b.inertial.mass = mass;
    b.inertial.com = com;
    b.inertial.inertia = Inertia::from_moments_products(inertia, [0.0; 3]);
    b
}

/// A slider of mass `M` on a spring `K` and a damper `C` with `C² ≫ 4MK`: the modes
/// `s ≈ −K/C` (slow) and `s ≈ −C/M` (fast, here −10⁵ /s) make it stiff.
const M: f64 = 1e-4;
const K: f64 = 100.0;
const C: f64 = 10.0;
const X0: f64 = 0.1;

fn stiff_slider() -> Ir {
    let mut ir = Ir::new("stiff_slider");
    ir.simulation.gravity = Some(Vector3::zeros());
    ir.bodies.push(body("slider", M, Vector3::zeros(), [1e-6; 3]));
    let mut j = Joint::new(
        "rail",
        JointKind::Prismatic { axis: Vector3::x() },
        BodyRef::World,
        BodyRef::body("slider"),
    );
    j.q0 = vec![X0];
    j.dofs = vec![DofProperties {
        spring_stiffness: K,
        damping: C,
        ..Default::default()
    }];
    ir.joints.push(j);
    ir
}

/// The slider's closed form from rest at `X0`.
fn slider_exact(t: f64) -> f64 {
    let root = (C * C - 4.0 * M * K).sqrt();
    let (slow, fast) = ((-C + root) / (2.0 * M), (-C - root) / (2.0 * M));
    X0 * (fast * (slow * t).exp() - slow * (fast * t).exp()) / (fast - slow)
}

/// Runs `advance` over `[0, duration]` sample by sample (`dt`); returns the largest
/// deviation of `q[0]` from `exact` at the samples and the (accepted, rejected) steps.
fn run_samples(
    model: &Model,
    duration: f64,
    dt: f64,
    exact: impl Fn(f64) -> f64,
    mut advance: impl FnMut(&mut Data, &mut State, f64, &mut f64) -> (usize, usize),
) -> (f64, usize, usize) {
    let (mut data, mut state) = (Data::new(model), State::initial(model));
    let (mut worst, mut accepted, mut rejected) = (0.0f64, 0, 0);
    let mut h = dt;
    for k in 1..=(duration / dt).round() as usize {
        let (a, r) = advance(&mut data, &mut state, k as f64 * dt, &mut h);
        accepted += a;
        rejected += r;
        worst = worst.max((state.q[0] - exact(state.t)).abs());
    }
    (worst, accepted, rejected)
}

#[test]
fn stiff_damper_rosenbrock_matches_the_closed_form_in_far_fewer_steps_than_dopri5() {
    let model = Model::new(&stiff_slider()).unwrap();
    let (duration, dt) = (0.5, 1e-2);
    let (dopri_error, dopri_steps, _) =
        run_samples(&model, duration, dt, slider_exact, |data, state, t, h| {
            advance_dopri5(&model, data, state, t, h, TOL, TOL, None).unwrap()
        });
    let mut work = RosenbrockWork::new(&model);
    let (rosenbrock_error, rosenbrock_steps, _) =
        run_samples(&model, duration, dt, slider_exact, |data, state, t, h| {
            advance_rosenbrock(&model, data, &mut work, state, t, h, TOL, TOL).unwrap()
        });
    eprintln!(
        "dopri5: {dopri_steps} steps, error {dopri_error:e}; rosenbrock: {rosenbrock_steps} steps, \
         {} Jacobians, error {rosenbrock_error:e}",
        work.jacobians()
    );
    assert!(dopri_error < 1e-8, "dopri5 error {dopri_error:e}");
    assert!(rosenbrock_error < 1e-8, "rosenbrock error {rosenbrock_error:e}");
    assert!(
        dopri_steps > 20 * rosenbrock_steps,
        "dopri5 {dopri_steps} steps, rosenbrock {rosenbrock_steps}"
    );
}

/// `count` copies of the stiff slider side by side, each on its own rail: uncoupled.
fn stiff_sliders(count: usize) -> Ir {
    let one = stiff_slider();
    let mut ir = Ir::new("stiff_sliders");
    ir.simulation.gravity = Some(Vector3::zeros());
    for i in 0..count {
        let mut b = one.bodies[0].clone();
        b.name = format!("slider{i}");
        ir.bodies.push(b);
        let mut j = one.joints[0].clone();
        j.name = format!("rail{i}");
        j.child = BodyRef::body(format!("slider{i}"));
        ir.joints.push(j);
    }
    ir
}

#[test]
fn uncoupled_stiff_bodies_cost_one_body_s_jacobian_and_each_follows_its_closed_form() {
    let evaluations_per_jacobian = |count: usize| {
        let model = Model::new(&stiff_sliders(count)).unwrap();
        let mut work = RosenbrockWork::new(&model);
        let (mut data, mut state) = (Data::new(&model), State::initial(&model));
        let mut h = 1e-2;
        for k in 1..=20 {
            let t = k as f64 * 1e-2;
            advance_rosenbrock(&model, &mut data, &mut work, &mut state, t, &mut h, TOL, TOL).unwrap();
            for q in &state.q {
                assert!(
                    (q - slider_exact(t)).abs() < 1e-8,
                    "t = {t}: {q} against {}",
                    slider_exact(t)
                );
            }
        }
        work.jacobian_evaluations() as f64 / work.jacobians() as f64
    };
    assert_eq!(evaluations_per_jacobian(1), 4.0);
    assert_eq!(evaluations_per_jacobian(8), 4.0);
}

#[test]
fn dopri5_switches_to_the_stiff_scheme_on_the_stiff_damper() {
    let options = dopri5(0.5);
    let (trajectory, summary) = Trajectory::record(&stiff_slider(), &options).unwrap();
    let from = summary.stiff_from.expect("the switch to the stiff scheme");
    assert!(from > 0.0 && from < 0.01, "switched at {from}");
    assert!(summary.steps < 2000, "{} steps", summary.steps);
    let worst = trajectory
        .t
        .iter()
        .zip(&trajectory.poses)
        .map(|(t, p)| (p[0][0] - slider_exact(*t)).abs())
        .fold(0.0, f64::max);
    assert!(worst < 1e-8, "largest deviation from the closed form {worst:e}");
    // A fixed-step scheme the user asked for stays as asked.
    let rk4 = SimulateOptions {
        duration: 0.01,
        dt: 1e-5,
        integrator: Integrator::Rk4,
        ..options
    };
    let (_, summary) = Trajectory::record(&stiff_slider(), &rk4).unwrap();
    assert_eq!((summary.stiff_from, summary.steps), (None, 1000));
}

fn double_pendulum() -> Ir {
    let mut ir = Ir::new("double_pendulum");
    ir.bodies.push(body(
        "upper",
        1.0,
        Vector3::new(0.0, 0.0, -0.5),
        [0.02, 0.02, 0.005],
    ));
    ir.bodies.push(body(
        "lower",
        0.7,
        Vector3::new(0.0, 0.0, -0.4),
        [0.01, 0.01, 0.003],
    ));
    let mut shoulder = Joint::new(
        "shoulder",
        JointKind::Revolute { axis: Vector3::y() },
        BodyRef::World,
        BodyRef::body("upper"),
    );
    shoulder.q0 = vec![1.2];
    let mut elbow = Joint::new(
        "elbow",
        JointKind::Revolute { axis: Vector3::y() },
        BodyRef::body("upper"),
        BodyRef::body("lower"),
    );
    elbow.parent_frame = Pose::from_translation(Vector3::new(0.0, 0.0, -1.0));
    elbow.q0 = vec![-0.5];
    elbow.v0 = vec![2.0];
    ir.joints.push(shoulder);
    ir.joints.push(elbow);
    ir
}

fn largest_gap(a: &Trajectory, b: &Trajectory) -> f64 {
    assert_eq!(a.t.len(), b.t.len());
    let mut worst = 0.0f64;
    for (pa, pb) in a.poses.iter().zip(&b.poses) {
        for (x, y) in pa.iter().zip(pb) {
            for (u, w) in x.iter().zip(y) {
                worst = worst.max((u - w).abs());
            }
        }
    }
    worst
}

#[test]
fn double_pendulum_does_not_switch_and_rosenbrock_agrees_with_dopri5() {
    let options = dopri5(2.0);
    let (dopri, summary) = Trajectory::record(&double_pendulum(), &options).unwrap();
    assert_eq!(summary.stiff_from, None, "a non-stiff model keeps Dopri5");
    let reference_options = SimulateOptions {
        integrator: Integrator::Dopri5 {
            rtol: TOL / 1000.0,
            atol: TOL / 1000.0,
        },
        ..options.clone()
    };
    let (reference, _) = Trajectory::record(&double_pendulum(), &reference_options).unwrap();
    let rosenbrock_options = SimulateOptions {
        integrator: Integrator::Rosenbrock { rtol: TOL, atol: TOL },
        ..options
    };
    let (rosenbrock, rosenbrock_summary) =
        Trajectory::record(&double_pendulum(), &rosenbrock_options).unwrap();
    let (dopri_error, rosenbrock_error) = (
        largest_gap(&dopri, &reference),
        largest_gap(&rosenbrock, &reference),
    );
    eprintln!(
        "dopri5 {} steps, error {dopri_error:e}; rosenbrock {} steps, error {rosenbrock_error:e}",
        summary.steps, rosenbrock_summary.steps
    );
    // Comparable accuracy at the same tolerance.
    assert!(dopri_error < 1e-8, "dopri5 error {dopri_error:e}");
    assert!(rosenbrock_error < 1e-8, "rosenbrock error {rosenbrock_error:e}");
}

/// A free body with an asymmetric inertia, spinning and flying, carrying a pendulum on a
/// damped ball joint.
fn spinner_with_ball_pendulum() -> Ir {
    let mut ir = Ir::new("spinner");
    let mut top = body("top", 1.5, Vector3::zeros(), [1.0, 2.0, 3.0]);
    top.inertial.inertia = Inertia::from_moments_products([1.0, 2.0, 3.0], [0.1, -0.05, 0.2]);
    top.pose = Pose::new(
        Vector3::new(0.1, 0.2, 0.3),
        UnitQuaternion::from_euler_angles(0.3, -0.2, 1.0),
    );
    top.initial_velocity = Some(Twist {
        linear: Vector3::new(0.1, 0.0, 2.0),
        angular: Vector3::new(0.4, 3.0, 0.2),
    });
    ir.bodies.push(top);
    let mut bob = body("bob", 0.3, Vector3::new(0.0, 0.0, -0.4), [0.01, 0.02, 0.004]);
    bob.pose = Pose::from_translation(Vector3::new(0.1, 0.2, 0.3));
    ir.bodies.push(bob);
    let mut ball = Joint::new(
        "ball",
        JointKind::Spherical,
        BodyRef::body("top"),
        BodyRef::body("bob"),
    );
    ball.dofs = vec![
        DofProperties {
            damping: 0.05,
            ..Default::default()
        };
        3
    ];
    ball.v0 = vec![1.0, -2.0, 0.5];
    ir.joints.push(ball);
    ir
}

#[test]
fn quaternions_stay_unit_and_free_and_ball_joints_follow_dopri5() {
    let ir = spinner_with_ball_pendulum();
    let model = Model::new(&ir).unwrap();
    let mut work = RosenbrockWork::new(&model);
    let (mut data, mut state) = (Data::new(&model), State::initial(&model));
    let mut h = 1e-2;
    let initial = State::initial(&model).q;
    let mut worst_norm = 0.0f64;
    for k in 1..=100 {
        advance_rosenbrock(
            &model,
            &mut data,
            &mut work,
            &mut state,
            k as f64 * 1e-2,
            &mut h,
            TOL,
            TOL,
        )
        .unwrap();
        for i in 0..state.q.len().saturating_sub(3) {
            // Every run of four coordinates that is a unit quaternion in the initial state.
            if (initial[i..i + 4].iter().map(|x| x * x).sum::<f64>() - 1.0).abs() < 1e-12 {
                let n = state.q[i..i + 4].iter().map(|x| x * x).sum::<f64>().sqrt();
                worst_norm = worst_norm.max((n - 1.0).abs());
            }
        }
    }
    assert!(worst_norm < 1e-14, "quaternion norm off by {worst_norm:e}");
    let options = SimulateOptions {
        integrator: Integrator::Dopri5 {
            rtol: TOL / 100.0,
            atol: TOL / 100.0,
        },
        ..dopri5(1.0)
    };
    let (reference, _) = Trajectory::record(&ir, &options).unwrap();
    let rosenbrock_options = SimulateOptions {
        integrator: Integrator::Rosenbrock { rtol: TOL, atol: TOL },
        ..options
    };
    let (rosenbrock, _) = Trajectory::record(&ir, &rosenbrock_options).unwrap();
    let gap = largest_gap(&rosenbrock, &reference);
    assert!(gap < 1e-8, "rosenbrock against dopri5: {gap:e}");
}

/// A chain of `links` pendulum links swinging under gravity, its last link a light finger on
/// a damper whose mode `−C/I` is `rate` per second: stiff enough for Dopri5's steps to sit at
/// its stability limit, mild beside the cost of a Jacobian of the whole chain.
fn chain_with_a_damped_finger(links: usize, rate: f64) -> Ir {
    let mut ir = Ir::new("chain");
    let mut parent = BodyRef::World;
    for i in 0..links {
        let name = format!("link{i}");
        ir.bodies.push(body(
            &name,
            1.0,
            Vector3::new(0.0, 0.0, -0.05),
            [1e-3, 1e-3, 1e-4],
        ));
        let mut j = Joint::new(
            format!("joint{i}"),
            JointKind::Revolute { axis: Vector3::y() },
            parent.clone(),
            BodyRef::body(&name),
        );
        if i > 0 {
            j.parent_frame = Pose::from_translation(Vector3::new(0.0, 0.0, -0.1));
        }
        j.q0 = vec![if i == 0 { 1.0 } else { 0.1 }];
        ir.joints.push(j);
        parent = BodyRef::body(&name);
    }
    let inertia = 1e-6;
    ir.bodies
        .push(body("finger", 1e-3, Vector3::zeros(), [inertia; 3]));
    let mut finger = Joint::new(
        "finger_joint",
        JointKind::Revolute { axis: Vector3::y() },
        parent,
        BodyRef::body("finger"),
    );
    finger.parent_frame = Pose::from_translation(Vector3::new(0.0, 0.0, -0.1));
    finger.dofs = vec![DofProperties {
        damping: rate * inertia,
        ..Default::default()
    }];
    ir.joints.push(finger);
    ir
}

#[test]
fn a_mildly_stiff_chain_goes_back_to_dopri5_when_rosenbrock_does_more_work() {
    let options = SimulateOptions {
        dt: 1e-3,
        ..dopri5(0.2)
    };
    let rosenbrock = SimulateOptions {
        integrator: Integrator::Rosenbrock { rtol: TOL, atol: TOL },
        ..options.clone()
    };
    // A finger mode of 1e5 /s: Dopri5's steps sit at its stability limit (3.3e-5 s), and each
    // Rodas4 step's Jacobian of the 41-link chain costs 84 evaluations of the dynamics.
    let mild = chain_with_a_damped_finger(40, 1e5);
    let (_, auto) = Trajectory::record(&mild, &options).unwrap();
    let (_, implicit) = Trajectory::record(&mild, &rosenbrock).unwrap();
    assert!(
        auto.stiff_from.is_some(),
        "Dopri5 finds the steps limited by stability"
    );
    assert!(auto.stiff_returns > 0, "and goes back to Dopri5 after a trial");
    assert!(auto.stiff_time < 0.05, "{} s in Rodas4", auto.stiff_time);
    assert!(
        auto.evaluations < implicit.evaluations,
        "{} evaluations against {} in Rodas4",
        auto.evaluations,
        implicit.evaluations
    );
    // At 1e6 /s the explicit scheme would need 6e4 steps: Rodas4 keeps the run.
    let stiff = chain_with_a_damped_finger(40, 1e6);
    let (_, auto) = Trajectory::record(&stiff, &options).unwrap();
    assert!(auto.stiff_time > 0.19, "{} s in Rodas4", auto.stiff_time);
    assert!(auto.steps < 1000, "{} steps", auto.steps);
}
