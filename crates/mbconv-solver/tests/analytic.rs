//! Analytic checks: pendulum period, energy conservation, angular momentum, spring-mass
//! oscillation and damping, four-bar loop closure.
#![allow(clippy::unwrap_used)]

use mbconv_ir::{
    Body, BodyRef, DofProperties, ForceElement, ForceKind, Inertia, Joint, JointKind, Model as Ir, Pose,
    SpringDamperLaw, Tsda,
};
use mbconv_solver::{
    Data, Integrator, Model, SimulateOptions, State, Trajectory, body_motions, energies, simulate,
};
use nalgebra::{Matrix3, UnitQuaternion, Vector3};

fn revolute(name: &str, parent: BodyRef, child: &str, axis: Vector3<f64>, at: Vector3<f64>) -> Joint {
    let mut j = Joint::new(name, JointKind::Revolute { axis }, parent, BodyRef::body(child));
    j.parent_frame = Pose::from_translation(at);
    j
}

fn body(name: &str, mass: f64, com: Vector3<f64>, inertia: [f64; 3]) -> Body {
    let mut b = Body::new(name);
    b.inertial.mass = mass;
    b.inertial.com = com;
    b.inertial.inertia = Inertia::from_moments_products(inertia, [0.0; 3]);
    b
}

#[test]
fn pendulum_small_angle_period() {
    let (m, l, ic, g) = (2.0, 0.8, 0.01, 9.81);
    let mut ir = Ir::new("pendulum");
    ir.bodies
        .push(body("bob", m, Vector3::new(0.0, 0.0, -l), [ic, ic, ic]));
    let mut j = revolute("pivot", BodyRef::World, "bob", Vector3::y(), Vector3::zeros());
    j.q0 = vec![1e-3];
    ir.joints.push(j);
    let expected = 2.0 * std::f64::consts::PI * ((ic + m * l * l) / (m * g * l)).sqrt();
    let options = SimulateOptions {
        duration: 3.0 * expected,
        dt: 1e-4,
        integrator: Integrator::Rk4,
        every: 1,
        energy: false,
        joint_limits: false,
        max_steps: None,
    };
    // The bob's body x coordinate is 0; track the angle through the orientation instead.
    let mut samples = Vec::new();
    simulate(&ir, &options, &mut |s| {
        let q = UnitQuaternion::from_quaternion(nalgebra::Quaternion::new(
            s.poses[0][3],
            s.poses[0][4],
            s.poses[0][5],
            s.poses[0][6],
        ));
        samples.push((s.t, q.scaled_axis().y));
    })
    .unwrap();
    // Downward zero crossings, linearly interpolated.
    let mut crossings = Vec::new();
    for w in samples.windows(2) {
        let ((t0, a0), (t1, a1)) = (w[0], w[1]);
        if a0 > 0.0 && a1 <= 0.0 {
            crossings.push(t0 + (t1 - t0) * a0 / (a0 - a1));
        }
    }
    assert!(crossings.len() >= 3, "{crossings:?}");
    let period = crossings[2] - crossings[1];
    assert!(
        (period - expected).abs() / expected < 1e-5,
        "period {period}, expected {expected}"
    );
}

/// The 3-D chain of `oracles/chain_models.py`.
pub fn chain(n: usize) -> Ir {
    let (l, m, r) = (0.2, 1.0, 0.02);
    let mut ir = Ir::new(format!("chain{n}"));
    for i in 0..n {
        let mut b = body(
            &format!("link{i}"),
            m,
            Vector3::new(l / 2.0, 0.0, 0.0),
            [0.5 * m * r * r, m * l * l / 12.0, m * l * l / 12.0],
        );
        b.pose = Pose::from_translation(Vector3::new(i as f64 * l, 0.0, 0.0));
        ir.bodies.push(b);
        let axis = if i % 2 == 0 { Vector3::y() } else { Vector3::z() };
        let (parent, at) = if i == 0 {
            (BodyRef::World, Vector3::zeros())
        } else {
            (BodyRef::body(format!("link{}", i - 1)), Vector3::new(l, 0.0, 0.0))
        };
        ir.joints.push(revolute(
            &format!("joint{i}"),
            parent,
            &format!("link{i}"),
            axis,
            at,
        ));
    }
    ir
}

#[test]
fn conservative_chain_conserves_energy_with_rk4() {
    let mut ir = chain(5);
    for (i, j) in ir.joints.iter_mut().enumerate() {
        j.q0 = vec![0.3 * (i as f64 + 1.0).sin()];
        j.v0 = vec![0.5 * (i as f64).cos()];
    }
    let options = SimulateOptions {
        duration: 10.0,
        dt: 1e-4,
        integrator: Integrator::Rk4,
        every: 1000,
        energy: true,
        joint_limits: false,
        max_steps: None,
    };
    let (trajectory, _) = Trajectory::record(&ir, &options).unwrap();
    let ke = trajectory.kinetic.as_ref().unwrap();
    let pe = trajectory.potential.as_ref().unwrap();
    let e0 = ke[0] + pe[0];
    let scale = ke[0].abs() + pe[0].abs();
    let drift = ke
        .iter()
        .zip(pe)
        .map(|(k, p)| (k + p - e0).abs())
        .fold(0.0, f64::max)
        / scale;
    assert!(drift < 1e-6, "relative energy drift {drift:e}");
    // And the chain really moved.
    assert!(ke.iter().cloned().fold(0.0, f64::max) > 2.0 * ke[0]);
}

#[test]
fn torque_free_body_conserves_angular_momentum() {
    let mut ir = Ir::new("spinner");
    ir.simulation.gravity = Some(Vector3::zeros());
    let mut b = body("top", 1.5, Vector3::zeros(), [1.0, 2.0, 3.0]);
    b.inertial.inertia = Inertia::from_moments_products([1.0, 2.0, 3.0], [0.1, -0.05, 0.2]);
    b.pose = Pose::new(
        Vector3::new(0.1, 0.2, 0.3),
        UnitQuaternion::from_euler_angles(0.3, -0.2, 1.0),
    );
    b.initial_velocity = Some(mbconv_ir::Twist {
        linear: Vector3::new(0.1, 0.0, 0.0),
        angular: Vector3::new(0.4, 3.0, 0.2),
    });
    let inertia = b.inertial.inertia.matrix();
    ir.bodies.push(b);
    let model = Model::new(&ir).unwrap();
    let mut data = Data::new(&model);
    let mut state = State::initial(&model);
    let momentum = |data: &mut Data, state: &State| {
        let m = &body_motions(&model, data, state).unwrap()[0];
        let q = m.orientation_wxyz;
        let r = UnitQuaternion::from_quaternion(nalgebra::Quaternion::new(q[0], q[1], q[2], q[3]))
            .to_rotation_matrix();
        let w = Vector3::from(m.angular_velocity);
        let i_world: Matrix3<f64> = r.matrix() * inertia * r.matrix().transpose();
        i_world * w
    };
    let l0 = momentum(&mut data, &state);
    let mut worst = 0.0f64;
    for _ in 0..10_000 {
        mbconv_solver::step_rk4(&model, &mut data, &mut state, 1e-3).unwrap();
        worst = worst.max((momentum(&mut data, &state) - l0).norm() / l0.norm());
    }
    assert!(worst < 1e-9, "angular momentum drift {worst:e}");
    // The body's angular velocity really changed direction (it is not a trivial spin).
    let w = body_motions(&model, &mut data, &state).unwrap()[0].angular_velocity;
    assert!((Vector3::from(w) - Vector3::new(0.4, 3.0, 0.2)).norm() > 0.1);
}

fn spring_mass(k: f64, c: f64, m: f64) -> Ir {
    let mut ir = Ir::new("spring_mass");
    ir.simulation.gravity = Some(Vector3::zeros());
    let mut b = body("mass", m, Vector3::zeros(), [0.1, 0.1, 0.1]);
    b.pose = Pose::from_translation(Vector3::new(1.0, 0.0, 0.0));
    ir.bodies.push(b);
    let mut j = Joint::new(
        "rail",
        JointKind::Prismatic { axis: Vector3::x() },
        BodyRef::World,
        BodyRef::body("mass"),
    );
    j.parent_frame = Pose::from_translation(Vector3::new(1.0, 0.0, 0.0));
    j.q0 = vec![0.1];
    ir.joints.push(j);
    ir.force_elements.push(ForceElement {
        name: "spring".into(),
        kind: ForceKind::Tsda(Tsda {
            body1: BodyRef::body("mass"),
            point1: Vector3::zeros(),
            body2: BodyRef::World,
            point2: Vector3::zeros(),
            free_length: 1.0,
            preload: 0.0,
            law: SpringDamperLaw::Linear {
                stiffness: Some(k),
                damping: (c > 0.0).then_some(c),
            },
            min_length: None,
            max_length: None,
            visualization: None,
        }),
        extras: Default::default(),
    });
    ir
}

#[test]
fn mass_on_tsda_oscillates_at_sqrt_k_over_m() {
    let (k, m): (f64, f64) = (400.0, 2.5);
    let omega: f64 = (k / m).sqrt();
    let options = SimulateOptions {
        duration: 2.0,
        dt: 1e-3,
        integrator: Integrator::Rk4,
        every: 1,
        energy: false,
        joint_limits: false,
        max_steps: None,
    };
    let (tr, _) = Trajectory::record(&spring_mass(k, 0.0, m), &options).unwrap();
    let worst =
        tr.t.iter()
            .zip(&tr.poses)
            .map(|(t, p)| (p[0][0] - 1.0 - 0.1 * (omega * t).cos()).abs())
            .fold(0.0, f64::max);
    assert!(worst < 1e-7, "largest deviation from 0.1 cos(ωt): {worst:e}");
}

#[test]
fn damped_mass_settles_as_the_closed_form() {
    let (k, c, m): (f64, f64, f64) = (400.0, 6.0, 2.5);
    let omega = (k / m).sqrt();
    let zeta = c / (2.0 * (k * m).sqrt());
    let wd = omega * (1.0 - zeta * zeta).sqrt();
    let exact =
        |t: f64| 0.1 * (-zeta * omega * t).exp() * ((wd * t).cos() + zeta * omega / wd * (wd * t).sin());
    let options = SimulateOptions {
        duration: 3.0,
        dt: 1e-3,
        integrator: Integrator::Rk4,
        every: 1,
        energy: false,
        joint_limits: false,
        max_steps: None,
    };
    let (tr, _) = Trajectory::record(&spring_mass(k, c, m), &options).unwrap();
    let worst =
        tr.t.iter()
            .zip(&tr.poses)
            .map(|(t, p)| (p[0][0] - 1.0 - exact(*t)).abs())
            .fold(0.0, f64::max);
    assert!(worst < 1e-7, "largest deviation from the closed form: {worst:e}");
    let last = tr.poses.last().unwrap()[0][0] - 1.0;
    assert!(last.abs() < 0.1 * (-zeta * omega * 3.0).exp() * 1.1);
}

#[test]
fn joint_spring_and_damper_match_tsda() {
    // The same oscillator through DofProperties instead of a TSDA, with Dopri5.
    let (k, c, m) = (400.0, 6.0, 2.5);
    let mut ir = spring_mass(k, c, m);
    ir.force_elements.clear();
    ir.joints[0].dofs = vec![DofProperties {
        spring_stiffness: k,
        damping: c,
        ..Default::default()
    }];
    let options = SimulateOptions {
        duration: 1.0,
        dt: 1e-2,
        integrator: Integrator::Dopri5 {
            rtol: 1e-10,
            atol: 1e-12,
        },
        every: 1,
        energy: false,
        joint_limits: false,
        max_steps: None,
    };
    let (a, summary) = Trajectory::record(&ir, &options).unwrap();
    let (b, _) = Trajectory::record(&spring_mass(k, c, m), &options).unwrap();
    assert!(summary.steps > 10 && a.t.len() == 101);
    for (pa, pb) in a.poses.iter().zip(&b.poses) {
        assert!((pa[0][0] - pb[0][0]).abs() < 1e-9);
    }
}

/// A parallelogram four-bar: ground pivots at x = 0 and x = 2, links of 1 m; the last
/// revolute joint closes the loop.
pub fn four_bar() -> Ir {
    let mut ir = Ir::new("four_bar");
    let link = |name: &str, at: Vector3<f64>, com: Vector3<f64>| {
        let mut b = body(name, 1.0, com, [0.05, 0.05, 0.05]);
        b.pose = Pose::from_translation(at);
        b
    };
    ir.bodies
        .push(link("crank", Vector3::zeros(), Vector3::new(0.0, 0.0, 0.5)));
    ir.bodies.push(link(
        "coupler",
        Vector3::new(0.0, 0.0, 1.0),
        Vector3::new(1.0, 0.0, 0.0),
    ));
    ir.bodies.push(link(
        "rocker",
        Vector3::new(2.0, 0.0, 0.0),
        Vector3::new(0.0, 0.0, 0.5),
    ));
    let mut j1 = revolute("a", BodyRef::World, "crank", Vector3::y(), Vector3::zeros());
    j1.q0 = vec![0.3];
    j1.v0 = vec![1.0];
    ir.joints.push(j1);
    ir.joints.push(revolute(
        "b",
        BodyRef::body("crank"),
        "coupler",
        Vector3::y(),
        Vector3::new(0.0, 0.0, 1.0),
    ));
    ir.joints.push(revolute(
        "d",
        BodyRef::World,
        "rocker",
        Vector3::y(),
        Vector3::new(2.0, 0.0, 0.0),
    ));
    let mut c = revolute(
        "c",
        BodyRef::body("coupler"),
        "rocker",
        Vector3::y(),
        Vector3::new(2.0, 0.0, 0.0),
    );
    c.child_frame = Pose::from_translation(Vector3::new(0.0, 0.0, 1.0));
    ir.joints.push(c);
    ir
}

#[test]
fn four_bar_keeps_its_loop_closed() {
    let ir = four_bar();
    let report = mbconv_solver::dynamics_report(&ir).unwrap();
    assert!(report.assembly_residual < 1e-12);
    // Assembly turned the rocker by the crank angle (parallelogram).
    let rocker = &report.bodies[2];
    let coupler = &report.bodies[1];
    assert!((coupler.orientation_wxyz[0] - 1.0).abs() < 1e-12, "{coupler:?}");
    assert!((rocker.position[0] - 2.0).abs() < 1e-15);
    for integrator in [Integrator::SemiImplicitEuler, Integrator::Rk4] {
        let options = SimulateOptions {
            duration: 10.0,
            dt: 1e-3,
            integrator,
            every: 10,
            energy: true,
            joint_limits: false,
            max_steps: None,
        };
        let (tr, summary) = Trajectory::record(&ir, &options).unwrap();
        assert!(
            summary.max_constraint_residual < 1e-8,
            "{integrator:?}: residual {:e}",
            summary.max_constraint_residual
        );
        // The coupler stays level (parallelogram) while the mechanism swings.
        for p in &tr.poses {
            assert!(
                p[1][4].abs() < 1e-8 && p[1][5].abs() < 1e-8 && p[1][6].abs() < 1e-8,
                "{p:?}"
            );
            // Crank and rocker stay parallel (same orientation up to the quaternion sign).
            let dot: f64 = (3..7).map(|i| p[0][i] * p[2][i]).sum();
            assert!((dot.abs() - 1.0).abs() < 1e-8, "{p:?}");
        }
        if integrator == Integrator::Rk4 {
            let ke = tr.kinetic.as_ref().unwrap();
            let pe = tr.potential.as_ref().unwrap();
            let e0 = ke[0] + pe[0];
            let drift = ke
                .iter()
                .zip(pe)
                .map(|(k, p)| (k + p - e0).abs())
                .fold(0.0, f64::max);
            assert!(drift < 1e-4 * (ke[0] + pe[0].abs()), "energy drift {drift:e}");
        }
    }
    let model = Model::new(&ir).unwrap();
    let mut data = Data::new(&model);
    let state = State::initial(&model);
    let (ke, _) = energies(&model, &mut data, &state);
    assert!(ke > 0.0);
}
