//! Force elements, motors, constraints and joint variants against closed forms.
#![allow(clippy::unwrap_used)]

use mbconv_ir::{
    Body, BodyLoad, BodyRef, Constraint, ConstraintKind, ForceElement, ForceKind, Inertia, Joint, JointKind,
    LoadType, Model as Ir, Motor, MotorActuation, MotorTarget, MotorType, PiecewisePolynomial, Pose,
    Restraint, RestraintTarget, RestraintType, Rsda, SpringDamperLaw, TimeFunction,
};
use mbconv_solver::{Integrator, SimulateOptions, Trajectory, dynamics_report};
use nalgebra::{UnitQuaternion, Vector3};

fn body(name: &str, mass: f64, inertia: [f64; 3]) -> Body {
    let mut b = Body::new(name);
    b.inertial.mass = mass;
    b.inertial.inertia = Inertia::from_moments_products(inertia, [0.0; 3]);
    b
}

fn angle_about_z(p: &[f64; 7]) -> f64 {
    UnitQuaternion::from_quaternion(nalgebra::Quaternion::new(p[3], p[4], p[5], p[6]))
        .scaled_axis()
        .z
}

fn rk4(duration: f64) -> SimulateOptions {
    SimulateOptions {
        duration,
        dt: 1e-3,
        integrator: Integrator::Rk4,
        every: 1,
        energy: false,
        joint_limits: false,
        max_steps: None,
    }
}

fn rotor(q0: f64) -> Ir {
    let mut ir = Ir::new("rotor");
    ir.simulation.gravity = Some(Vector3::zeros());
    ir.bodies.push(body("disc", 1.0, [0.5, 0.5, 0.8]));
    let mut j = Joint::new(
        "axle",
        JointKind::Revolute { axis: Vector3::z() },
        BodyRef::World,
        BodyRef::body("disc"),
    );
    j.q0 = vec![q0];
    ir.joints.push(j);
    ir
}

#[test]
fn rsda_oscillates_at_sqrt_k_over_i() {
    let mut ir = rotor(0.2);
    ir.force_elements.push(ForceElement {
        name: "torsion".into(),
        kind: ForceKind::Rsda(Rsda {
            body1: BodyRef::World,
            frame1: Pose::identity(),
            body2: BodyRef::body("disc"),
            frame2: Pose::identity(),
            free_angle: 0.0,
            preload: 0.0,
            law: SpringDamperLaw::Linear {
                stiffness: Some(20.0),
                damping: None,
            },
        }),
        extras: Default::default(),
    });
    let omega: f64 = (20.0f64 / 0.8).sqrt();
    let (tr, _) = Trajectory::record(&ir, &rk4(2.0)).unwrap();
    let worst =
        tr.t.iter()
            .zip(&tr.poses)
            .map(|(t, p)| (angle_about_z(&p[0]) - 0.2 * (omega * t).cos()).abs())
            .fold(0.0, f64::max);
    assert!(worst < 1e-8, "{worst:e}");
}

#[test]
fn joint_restraint_acts_like_a_spring() {
    let mut ir = rotor(0.2);
    // Spring 20·φ as a piecewise polynomial with a knot at 0 (same law both sides).
    ir.force_elements.push(ForceElement {
        name: "restraint".into(),
        kind: ForceKind::Restraint(Restraint {
            restraint_type: RestraintType::Spring,
            target: RestraintTarget::Joint {
                joint: "axle".into(),
                dof: 0,
            },
            function: PiecewisePolynomial {
                knots: vec![0.0],
                pieces: vec![vec![0.0, 20.0], vec![0.0, 20.0]],
            },
        }),
        extras: Default::default(),
    });
    let omega: f64 = (20.0f64 / 0.8).sqrt();
    let (tr, _) = Trajectory::record(&ir, &rk4(2.0)).unwrap();
    let worst =
        tr.t.iter()
            .zip(&tr.poses)
            .map(|(t, p)| (angle_about_z(&p[0]) - 0.2 * (omega * t).cos()).abs())
            .fold(0.0, f64::max);
    assert!(worst < 1e-8, "{worst:e}");
}

#[test]
fn position_and_speed_motors_drive_the_joint() {
    let mut ir = rotor(0.0);
    ir.motors.push(Motor {
        name: "servo".into(),
        motor_type: MotorType::Rotation,
        actuation: MotorActuation::Position,
        target: MotorTarget::Joint {
            joint: "axle".into(),
            dof: 0,
        },
        function: TimeFunction::Sine {
            amplitude: 0.5,
            frequency: 0.5,
            phase: 0.0,
            shift: 0.0,
        },
        extras: Default::default(),
    });
    let (tr, summary) = Trajectory::record(&ir, &rk4(2.0)).unwrap();
    let worst =
        tr.t.iter()
            .zip(&tr.poses)
            .map(|(t, p)| (angle_about_z(&p[0]) - 0.5 * (std::f64::consts::PI * t).sin()).abs())
            .fold(0.0, f64::max);
    assert!(
        worst < 1e-9 && summary.max_constraint_residual < 1e-9,
        "{worst:e}"
    );

    let mut ir = rotor(0.0);
    ir.motors.push(Motor {
        name: "spinner".into(),
        motor_type: MotorType::Rotation,
        actuation: MotorActuation::Speed,
        target: MotorTarget::Joint {
            joint: "axle".into(),
            dof: 0,
        },
        function: TimeFunction::Ramp {
            slope: 1.0,
            intercept: 0.0,
        },
        extras: Default::default(),
    });
    let (tr, _) = Trajectory::record(&ir, &rk4(1.0)).unwrap();
    // θ = t²/2.
    let worst =
        tr.t.iter()
            .zip(&tr.poses)
            .map(|(t, p)| (angle_about_z(&p[0]) - 0.5 * t * t).abs())
            .fold(0.0, f64::max);
    assert!(worst < 1e-6, "{worst:e}");
}

#[test]
fn body_loads_accelerate_a_free_body() {
    let mut ir = Ir::new("loads");
    ir.simulation.gravity = Some(Vector3::zeros());
    let mut b = body("block", 2.0, [0.1, 0.2, 0.4]);
    b.pose = Pose::new(
        Vector3::new(1.0, 0.0, 0.0),
        UnitQuaternion::from_euler_angles(0.0, 0.0, std::f64::consts::FRAC_PI_2),
    );
    ir.bodies.push(b);
    let load = |name: &str, load_type, vector, in_body, point: Vector3<f64>| BodyLoad {
        name: name.into(),
        load_type,
        body: "block".into(),
        vector,
        vector_in_body_frame: in_body,
        point,
        point_in_body_frame: true,
        modulation: Some(TimeFunction::Constant { value: 2.0 }),
        external: false,
        extras: Default::default(),
    };
    // Body-frame x force at the body-frame point (0, 1, 0): world force +y (the body is
    // turned 90° about z) applied at world (0, 0, 0), i.e. 1 m in −x from the centre.
    ir.loads.push(load(
        "push",
        LoadType::Force,
        Vector3::new(1.5, 0.0, 0.0),
        true,
        Vector3::new(0.0, 1.0, 0.0),
    ));
    ir.loads.push(load(
        "twist",
        LoadType::Torque,
        Vector3::new(0.0, 0.0, 0.2),
        false,
        Vector3::zeros(),
    ));
    let report = dynamics_report(&ir).unwrap();
    let a = &report.bodies[0];
    // F = 3 N along +y: a = 1.5 m/s². Torque: r × F = (−1, 0, 0) × (0, 3, 0) = (0, 0, −3), plus 0.4: −2.6 about z.
    let expect_lin = [0.0, 1.5, 0.0];
    let expect_ang = [0.0, 0.0, -2.6 / 0.4];
    for k in 0..3 {
        assert!((a.linear_acceleration[k] - expect_lin[k]).abs() < 1e-12, "{a:?}");
        assert!((a.angular_acceleration[k] - expect_ang[k]).abs() < 1e-12, "{a:?}");
    }
}

#[test]
fn distance_constraint_makes_a_pendulum() {
    // A point-like free body held 1 m below a world point by a distance constraint: the same
    // small-angle period as a revolute pendulum.
    let (m, l, ic) = (1.0, 1.0, 1e-3);
    let mut ir = Ir::new("distance_pendulum");
    let mut b = body("bob", m, [ic, ic, ic]);
    let angle: f64 = 0.01;
    b.pose = Pose::from_translation(Vector3::new(l * angle.sin(), 0.0, -l * angle.cos()));
    ir.bodies.push(b);
    ir.constraints.push(Constraint {
        name: "rod".into(),
        kind: ConstraintKind::Distance {
            body1: BodyRef::World,
            point1: Vector3::zeros(),
            body2: BodyRef::body("bob"),
            point2: Vector3::zeros(),
            distance: Some(l),
        },
        enabled: true,
        extras: Default::default(),
    });
    let options = SimulateOptions {
        duration: 10.0,
        dt: 1e-3,
        integrator: Integrator::Rk4,
        every: 1,
        energy: false,
        joint_limits: false,
        max_steps: None,
    };
    let (tr, summary) = Trajectory::record(&ir, &options).unwrap();
    assert!(
        summary.max_constraint_residual < 1e-10,
        "{:e}",
        summary.max_constraint_residual
    );
    // The bob does not rotate (ball-like hanging point mass): period of a point pendulum.
    let expected = 2.0 * std::f64::consts::PI * (l / 9.81f64).sqrt();
    let xs: Vec<(f64, f64)> = tr.t.iter().zip(&tr.poses).map(|(t, p)| (*t, p[0][0])).collect();
    let mut crossings = Vec::new();
    for w in xs.windows(2) {
        if w[0].1 > 0.0 && w[1].1 <= 0.0 {
            crossings.push(w[0].0 + (w[1].0 - w[0].0) * w[0].1 / (w[0].1 - w[1].1));
        }
    }
    let period = (crossings[3] - crossings[0]) / 3.0;
    assert!(
        (period - expected).abs() / expected < 1e-4,
        "{period} vs {expected}"
    );
}

#[test]
fn reversed_joints_move_like_forward_ones() {
    // A two-link chain described once parent→child and once with every joint reversed.
    let build = |reversed: bool| {
        let mut ir = Ir::new("chain");
        let mut a = body("a", 1.0, [0.1, 0.2, 0.3]);
        a.inertial.com = Vector3::new(0.3, 0.0, 0.1);
        let mut b = body("b", 2.0, [0.2, 0.1, 0.3]);
        b.inertial.com = Vector3::new(0.2, 0.1, 0.0);
        b.pose = Pose::from_translation(Vector3::new(0.5, 0.0, 0.0));
        ir.bodies.push(a);
        ir.bodies.push(b);
        let kinds = [
            JointKind::Universal {
                axis1: Vector3::y(),
                axis2: Vector3::x(),
            },
            JointKind::Cylindrical {
                axis: Vector3::new(0.0, 1.0, 1.0),
            },
        ];
        let q0 = [vec![0.3, -0.2], vec![0.1, 0.4]];
        let v0 = [vec![0.5, 1.0], vec![-0.3, 0.7]];
        let pairs = [
            (BodyRef::World, "a", Vector3::new(0.0, 0.0, 0.0)),
            (BodyRef::body("a"), "b", Vector3::new(0.5, 0.0, 0.0)),
        ];
        for (k, (parent, child, at)) in pairs.into_iter().enumerate() {
            let mut j = Joint::new(format!("j{k}"), kinds[k].clone(), parent, BodyRef::body(child));
            j.parent_frame = Pose::from_translation(at);
            j.q0 = q0[k].clone();
            j.v0 = v0[k].clone();
            if reversed {
                // Same relation written from the other side: the parent becomes the child and the
                // motion is inverted, so J(q)⁻¹ must equal the old J(q) — use negated axes.
                std::mem::swap(&mut j.parent, &mut j.child);
                std::mem::swap(&mut j.parent_frame, &mut j.child_frame);
                j.kind = match &j.kind {
                    JointKind::Universal { .. } => JointKind::Universal {
                        axis1: -Vector3::x(),
                        axis2: -Vector3::y(),
                    },
                    JointKind::Cylindrical { axis } => JointKind::Cylindrical { axis: -axis },
                    other => other.clone(),
                };
                if k == 0 {
                    j.q0 = vec![q0[k][1], q0[k][0]];
                    j.v0 = vec![v0[k][1], v0[k][0]];
                }
            }
            ir.joints.push(j);
        }
        ir
    };
    let forward = dynamics_report(&build(false)).unwrap();
    let reversed = dynamics_report(&build(true)).unwrap();
    for (f, r) in forward.bodies.iter().zip(&reversed.bodies) {
        for k in 0..3 {
            assert!((f.position[k] - r.position[k]).abs() < 1e-12, "{f:?}\n{r:?}");
            assert!(
                (f.linear_velocity[k] - r.linear_velocity[k]).abs() < 1e-12,
                "{f:?}\n{r:?}"
            );
            assert!(
                (f.linear_acceleration[k] - r.linear_acceleration[k]).abs() < 1e-10,
                "{f:?}\n{r:?}"
            );
            assert!(
                (f.angular_acceleration[k] - r.angular_acceleration[k]).abs() < 1e-10,
                "{f:?}\n{r:?}"
            );
        }
    }
}

#[test]
fn bodies_without_gravity_float() {
    let mut ir = Ir::new("mixed");
    ir.bodies.push(body("heavy", 1.0, [0.1, 0.1, 0.1]));
    let mut light = body("light", 1.0, [0.1, 0.1, 0.1]);
    light.gravity = false;
    light.pose = Pose::from_translation(Vector3::new(2.0, 0.0, 0.0));
    ir.bodies.push(light);
    ir.simulation.gravity = Some(Vector3::new(0.0, -3.0, 0.0));
    let report = dynamics_report(&ir).unwrap();
    assert_eq!(report.bodies[0].linear_acceleration, [0.0, -3.0, 0.0]);
    assert_eq!(report.bodies[1].linear_acceleration, [0.0, 0.0, 0.0]);
}

#[test]
fn every_joint_type_simulates_and_conserves_energy() {
    let kinds = [
        JointKind::Revolute {
            axis: Vector3::new(0.0, 1.0, 0.2),
        },
        JointKind::Prismatic {
            axis: Vector3::new(1.0, 0.0, 1.0),
        },
        JointKind::Screw {
            axis: Vector3::x(),
            pitch: 0.3,
        },
        JointKind::Universal {
            axis1: Vector3::x(),
            axis2: Vector3::y(),
        },
        JointKind::Spherical,
        JointKind::Euler {
            order: mbconv_ir::EulerOrder::Zyx,
        },
        JointKind::Euler {
            order: mbconv_ir::EulerOrder::Xyz,
        },
        JointKind::Cylindrical { axis: Vector3::z() },
        JointKind::Planar {
            axis1: Vector3::x(),
            axis2: Vector3::z(),
        },
        JointKind::Translational,
        JointKind::Free,
        JointKind::PointLine,
        JointKind::PointPlane,
        JointKind::Fixed,
    ];
    for kind in kinds {
        let mut ir = Ir::new("one");
        let mut a = body("base", 1.0, [0.1, 0.2, 0.3]);
        a.inertial.com = Vector3::new(0.0, 0.0, -0.3);
        ir.bodies.push(a);
        let mut b = body("tip", 0.5, [0.05, 0.04, 0.03]);
        b.inertial.com = Vector3::new(0.2, 0.1, 0.0);
        b.pose = Pose::from_translation(Vector3::new(0.0, 0.0, -0.6));
        ir.bodies.push(b);
        let mut j0 = Joint::new(
            "j0",
            JointKind::Revolute { axis: Vector3::x() },
            BodyRef::World,
            BodyRef::body("base"),
        );
        j0.v0 = vec![0.7];
        ir.joints.push(j0);
        let mut j = Joint::new("j1", kind.clone(), BodyRef::body("base"), BodyRef::body("tip"));
        j.parent_frame = Pose::from_translation(Vector3::new(0.0, 0.0, -0.6));
        j.q0 = (0..kind.nq()).map(|i| 0.2 + 0.1 * i as f64).collect();
        j.v0 = (0..kind.nv()).map(|i| 0.5 - 0.2 * i as f64).collect();
        ir.joints.push(j);
        let options = SimulateOptions {
            duration: 1.0,
            dt: 1e-3,
            integrator: Integrator::Rk4,
            every: 100,
            energy: true,
            joint_limits: false,
            max_steps: None,
        };
        let (tr, _) = Trajectory::record(&ir, &options).unwrap();
        let ke = tr.kinetic.as_ref().unwrap();
        let pe = tr.potential.as_ref().unwrap();
        let e0 = ke[0] + pe[0];
        let drift = ke
            .iter()
            .zip(pe)
            .map(|(k, p)| (k + p - e0).abs())
            .fold(0.0, f64::max);
        assert!(
            drift < 1e-8 * (ke[0] + pe[0].abs()),
            "{}: energy drift {drift:e}",
            kind.type_name()
        );
        // The initial pose matches the IR forward kinematics.
        let tree = mbconv_ir::kinematics::SpanningTree::new(&ir);
        let poses =
            mbconv_ir::kinematics::world_poses(&ir, &tree, mbconv_ir::kinematics::Configuration::Initial);
        let p = &tr.poses[0][1];
        assert!(
            (Vector3::new(p[0], p[1], p[2]) - poses[1].translation).norm() < 1e-14,
            "{}",
            kind.type_name()
        );
        let q = UnitQuaternion::from_quaternion(nalgebra::Quaternion::new(p[3], p[4], p[5], p[6]));
        assert!(q.angle_to(&poses[1].rotation) < 1e-14, "{}", kind.type_name());
    }
}

#[test]
fn bushings_hold_a_body_against_gravity() {
    use mbconv_ir::{Bushing, BushingConstants, BushingLaw, JointBushing};
    let (m, k, c) = (2.0, 1e4, 200.0);
    for law in [BushingLaw::DrakeRollPitchYaw, BushingLaw::ChronoGeneric] {
        let mut ir = Ir::new("bushing");
        ir.bodies.push(body("hanging", m, [0.1, 0.1, 0.1]));
        ir.force_elements.push(ForceElement {
            name: "mount".into(),
            kind: ForceKind::Bushing(Bushing {
                law,
                body_a: BodyRef::World,
                frame_a: Pose::identity(),
                body_c: BodyRef::body("hanging"),
                frame_c: Pose::identity(),
                torque_stiffness: [100.0; 3],
                torque_damping: [10.0; 3],
                force_stiffness: [k; 3],
                force_damping: [c; 3],
            }),
            extras: Default::default(),
        });
        let options = SimulateOptions {
            duration: 2.0,
            dt: 1e-3,
            integrator: Integrator::Rk4,
            every: 2000,
            energy: false,
            joint_limits: false,
            max_steps: None,
        };
        let (tr, _) = Trajectory::record(&ir, &options).unwrap();
        let z = tr.poses.last().unwrap()[0][2];
        assert!(
            (z + m * 9.81 / k).abs() < 1e-6,
            "{law:?}: settled at {z}, expected {}",
            -m * 9.81 / k
        );
    }
    // A Chrono compliant revolute joint (bushing_data): a stiff pendulum pivot.
    let mut ir = Ir::new("compliant_pendulum");
    let mut bob = body("bob", m, [0.01, 0.01, 0.01]);
    bob.inertial.com = Vector3::new(0.0, 0.0, -0.5);
    ir.bodies.push(bob);
    let mut j = Joint::new(
        "pivot",
        JointKind::Revolute { axis: Vector3::y() },
        BodyRef::World,
        BodyRef::body("bob"),
    );
    let constants = BushingConstants {
        stiffness_linear: 1e6,
        damping_linear: 1e3,
        stiffness_rotational: 1e5,
        damping_rotational: 1e2,
    };
    j.bushing = Some(JointBushing {
        constrained: constants,
        free: None,
    });
    ir.joints.push(j);
    let options = SimulateOptions {
        duration: 0.5,
        dt: 1e-4,
        integrator: Integrator::Rk4,
        every: 5000,
        energy: false,
        joint_limits: false,
        max_steps: None,
    };
    let (tr, _) = Trajectory::record(&ir, &options).unwrap();
    // The pivot sags by about m g / k and the bob stays below it (no swing started).
    let p = tr.poses.last().unwrap()[0];
    assert!(p[0].abs() < 1e-6 && (p[2] + m * 9.81 / 1e6).abs() < 1e-6, "{p:?}");
}

#[test]
fn joint_limits_stop_a_pendulum_only_when_asked() {
    let mut ir = Ir::new("limited");
    let mut bob = body("bob", 1.0, [0.01, 0.01, 0.01]);
    bob.inertial.com = Vector3::new(1.0, 0.0, 0.0);
    ir.bodies.push(bob);
    let mut j = Joint::new(
        "pivot",
        JointKind::Revolute { axis: Vector3::y() },
        BodyRef::World,
        BodyRef::body("bob"),
    );
    j.dofs = vec![mbconv_ir::DofProperties {
        position_limits: mbconv_ir::Limits::new(-0.5, 0.5),
        ..Default::default()
    }];
    ir.joints.push(j);
    // Gravity turns the horizontal bob about +y (positive angle): it falls to the upper limit.
    let angle = |p: &[f64; 7]| {
        UnitQuaternion::from_quaternion(nalgebra::Quaternion::new(p[3], p[4], p[5], p[6]))
            .scaled_axis()
            .y
    };
    let mut options = SimulateOptions {
        duration: 1.0,
        dt: 1e-3,
        every: 100,
        ..SimulateOptions::default()
    };
    let (free, _) = Trajectory::record(&ir, &options).unwrap();
    assert!(free.poses.iter().any(|p| angle(&p[0]) > 0.6));
    options.joint_limits = true;
    let (limited, _) = Trajectory::record(&ir, &options).unwrap();
    let last = angle(&limited.poses.last().unwrap()[0]);
    assert!(limited.poses.iter().all(|p| angle(&p[0]) <= 0.5 + 1e-12));
    assert!((last - 0.5).abs() < 1e-12, "{last}");
}

#[test]
fn revolute_translational_constraint_makes_a_scotch_yoke() {
    // Crank about world z with a pin at radius r; the yoke slides along x and its slot runs
    // along y: x_yoke − x_pin = d.
    let (r, d) = (0.5, 1.0);
    let mut ir = Ir::new("scotch_yoke");
    ir.simulation.gravity = Some(Vector3::zeros());
    ir.bodies.push(body("crank", 1.0, [0.1, 0.1, 0.2]));
    let mut yoke = body("yoke", 2.0, [0.1, 0.1, 0.1]);
    yoke.pose = Pose::from_translation(Vector3::new(r + d, 0.0, 0.0));
    ir.bodies.push(yoke);
    let mut crank = Joint::new(
        "pivot",
        JointKind::Revolute { axis: Vector3::z() },
        BodyRef::World,
        BodyRef::body("crank"),
    );
    crank.v0 = vec![3.0];
    ir.joints.push(crank);
    let mut rail = Joint::new(
        "rail",
        JointKind::Prismatic { axis: Vector3::x() },
        BodyRef::World,
        BodyRef::body("yoke"),
    );
    rail.parent_frame = Pose::from_translation(Vector3::new(r + d, 0.0, 0.0));
    ir.joints.push(rail);
    ir.constraints.push(Constraint {
        name: "slot".into(),
        kind: ConstraintKind::RevoluteTranslational {
            body1: BodyRef::body("crank"),
            point1: Vector3::new(r, 0.0, 0.0),
            axis1: Some(Vector3::z()),
            body2: BodyRef::body("yoke"),
            point2: Vector3::zeros(),
            axis2: Some(Vector3::y()),
            distance: None,
        },
        enabled: true,
        extras: Default::default(),
    });
    let options = SimulateOptions {
        duration: 3.0,
        dt: 1e-3,
        integrator: Integrator::Rk4,
        every: 10,
        energy: true,
        joint_limits: false,
        max_steps: None,
    };
    let (tr, summary) = Trajectory::record(&ir, &options).unwrap();
    assert!(
        summary.max_constraint_residual < 1e-8,
        "{:e}",
        summary.max_constraint_residual
    );
    let mut turned = 0.0f64;
    for p in &tr.poses {
        let theta = angle_about_z(&p[0]);
        turned = turned.max(theta.abs());
        assert!((p[1][0] - (r * theta.cos() + d)).abs() < 1e-8, "{p:?}");
    }
    assert!(turned > 3.0, "the crank did not turn: {turned}");
    let e: Vec<f64> = tr.kinetic.unwrap();
    assert!(e.iter().all(|x| (x - e[0]).abs() < 1e-6 * e[0]));
}

#[test]
fn body_initial_velocities_become_joint_rates() {
    // A pendulum whose bob is given a body velocity (as Chrono does) instead of a joint rate.
    let mut ir = Ir::new("kicked");
    let mut bob = body("bob", 1.0, [0.01, 0.01, 0.01]);
    bob.pose = Pose::from_translation(Vector3::new(0.0, 0.0, -1.0));
    bob.initial_velocity = Some(mbconv_ir::Twist {
        linear: Vector3::new(2.0, 0.0, 0.0),
        angular: Vector3::new(0.0, 2.0, 0.0),
    });
    ir.bodies.push(bob);
    let mut j = Joint::new(
        "pivot",
        JointKind::Revolute { axis: Vector3::y() },
        BodyRef::World,
        BodyRef::body("bob"),
    );
    j.child_frame = Pose::from_translation(Vector3::new(0.0, 0.0, 1.0));
    ir.joints.push(j);
    let report = dynamics_report(&ir).unwrap();
    let b = &report.bodies[0];
    // ω = 2 about +y asks for θ̇ = 2, the origin velocity (2, 0, 0) of a bob 1 m below the pivot
    // for θ̇ = −2 ((0, 2, 0) × (0, 0, −1) = (−2, 0, 0)): least squares balances them at 0.
    assert!(
        b.angular_velocity[1].abs() < 1e-9 && b.linear_velocity[0].abs() < 1e-9,
        "{b:?}"
    );
    // A consistent twist is reproduced exactly.
    ir.bodies[0].initial_velocity = Some(mbconv_ir::Twist {
        linear: Vector3::new(-2.0, 0.0, 0.0),
        angular: Vector3::new(0.0, 2.0, 0.0),
    });
    let b = &dynamics_report(&ir).unwrap().bodies[0];
    assert!(
        (b.angular_velocity[1] - 2.0).abs() < 1e-8 && (b.linear_velocity[0] + 2.0).abs() < 1e-8,
        "{b:?}"
    );
}

#[test]
fn a_floating_base_keeps_its_initial_velocity_while_its_children_are_fitted() {
    // A free-floating base carrying an arm on a ball joint, both given body velocities (as
    // Chrono does): the ball joint's rates are fitted, the base keeps its own twist.
    let mut ir = Ir::new("flyer");
    let mut base = body("base", 3.0, [0.05, 0.04, 0.03]);
    base.pose = Pose::from_translation(Vector3::new(-1.0, 0.5, 2.0));
    let base_twist = mbconv_ir::Twist {
        linear: Vector3::new(0.0, -0.4, 1.0),
        angular: Vector3::new(-1.0, 2.0, 0.5),
    };
    base.initial_velocity = Some(base_twist);
    let mut arm = body("arm", 1.0, [0.01, 0.002, 0.01]);
    arm.pose = Pose::from_translation(Vector3::new(-1.0, 0.9, 2.0));
    // The arm turns relative to the base by ω_rel about the joint at y = 0.6 (world).
    let joint_point = Vector3::new(-1.0, 0.6, 2.0);
    let omega_arm = base_twist.angular + Vector3::new(-2.0, 1.0, 0.5);
    let joint_velocity = base_twist.linear + base_twist.angular.cross(&(joint_point - base.pose.translation));
    let arm_twist = mbconv_ir::Twist {
        linear: joint_velocity + omega_arm.cross(&(arm.pose.translation - joint_point)),
        angular: omega_arm,
    };
    arm.initial_velocity = Some(arm_twist);
    ir.bodies.push(base);
    ir.bodies.push(arm);
    let mut elbow = Joint::new(
        "elbow",
        JointKind::Spherical,
        BodyRef::body("base"),
        BodyRef::body("arm"),
    );
    elbow.parent_frame = Pose::from_translation(Vector3::new(0.0, 0.1, 0.0));
    elbow.child_frame = Pose::from_translation(Vector3::new(0.0, -0.3, 0.0));
    ir.joints.push(elbow);
    let report = dynamics_report(&ir).unwrap();
    let close = |got: &[f64; 3], want: &Vector3<f64>| (Vector3::from(*got) - want).norm() < 1e-9;
    let (b, a) = (&report.bodies[0], &report.bodies[1]);
    assert!(close(&b.angular_velocity, &base_twist.angular), "{b:?}");
    assert!(close(&b.linear_velocity, &base_twist.linear), "{b:?}");
    assert!(close(&a.angular_velocity, &arm_twist.angular), "{a:?}");
    assert!(close(&a.linear_velocity, &arm_twist.linear), "{a:?}");
}

#[test]
fn errors_name_the_item_by_its_report_path() {
    let mut ir = Ir::new("bad axis");
    ir.bodies.push(body("link 1", 1.0, [0.01; 3]));
    ir.joints.push(Joint::new(
        "hinge \"a\"",
        JointKind::Revolute {
            axis: Vector3::zeros(),
        },
        BodyRef::World,
        BodyRef::body("link 1"),
    ));
    let error = dynamics_report(&ir).unwrap_err().to_string();
    assert!(error.starts_with(r#"joints["hinge \"a\""]: "#), "{error}");
}
