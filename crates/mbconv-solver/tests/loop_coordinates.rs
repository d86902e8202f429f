//! A restraint or force motor on the coordinate of a joint that closes a loop acts through that
//! joint, between its two bodies (Shift vehicles put suspension springs on joints the spanning
//! tree cuts). The test: an inverted slider-crank (an arm hinged to the world with a slider on
//! it, a second arm hinged to the world and to the slider) listed in two joint orders, so that
//! the prismatic joint, or the hinge between the second arm and the slider, is a tree joint in
//! one order and closes the loop in the other; the spring, damper or motor on it moves the
//! mechanism the same either way.
#![allow(clippy::unwrap_used)]

use mbconv_ir::kinematics::SpanningTree;
use mbconv_ir::{
    Body, BodyRef, ForceElement, ForceKind, Joint, JointKind, Model, Motor, MotorActuation, MotorTarget,
    MotorType, PiecewisePolynomial, Pose, Restraint, RestraintTarget, RestraintType, TimeFunction,
};
use mbconv_solver::{Integrator, SimulateOptions, Trajectory};
use nalgebra::{Matrix3, Vector3};

/// What acts on the joint's coordinate.
#[derive(Clone, Copy, Debug)]
enum Acting {
    Spring,
    Damper,
    Motor,
}

fn body(name: &str, at: Vector3<f64>, com: Vector3<f64>) -> Body {
    let mut b = Body::new(name);
    b.pose = Pose::from_translation(at);
    b.inertial.mass = 1.5;
    b.inertial.com = com;
    b.inertial.inertia =
        mbconv_ir::Inertia::from_matrix(&Matrix3::from_diagonal(&Vector3::new(0.05, 0.08, 0.04)));
    b
}

/// A joint at the world point `at` (body frames are world-aligned at the reference).
fn joint(name: &str, model: &Model, kind: JointKind, parent: &str, child: &str, at: Vector3<f64>) -> Joint {
    let origin = |n: &str| model.body(n).map_or_else(Vector3::zeros, |b| b.pose.translation);
    let parent_ref = if parent == "world" {
        BodyRef::World
    } else {
        BodyRef::body(parent)
    };
    let mut j = Joint::new(name, kind, parent_ref, BodyRef::body(child));
    j.parent_frame = Pose::from_translation(at - origin(parent));
    j.child_frame = Pose::from_translation(at - origin(child));
    j
}

/// The inverted slider-crank, its joints in the order `order` names them, with `acting` on the
/// joint `on` (nothing when `on` is empty).
fn mechanism(order: &[&str], acting: Acting, on: &str) -> Model {
    let mut m = Model::new("inverted slider-crank");
    m.simulation.gravity = Some(Vector3::new(0.0, 0.0, -9.81));
    let a = Vector3::zeros();
    let d = Vector3::new(1.5, 0.0, 0.0);
    let u = Vector3::new(0.5, 0.0, 3f64.sqrt() / 2.0);
    let p = a + u;
    m.bodies.push(body("arm1", a, 0.6 * u));
    m.bodies.push(body("slider", p, Vector3::zeros()));
    m.bodies.push(body("arm2", d, 0.5 * (p - d)));
    let hinge = || JointKind::Revolute { axis: Vector3::y() };
    let all = [
        joint("hinge_a", &m, hinge(), "world", "arm1", a),
        joint("slide", &m, JointKind::Prismatic { axis: u }, "arm1", "slider", p),
        joint("hinge_d", &m, hinge(), "world", "arm2", d),
        joint("hinge_p", &m, hinge(), "arm2", "slider", p),
    ];
    for name in order {
        m.joints
            .push(all.iter().find(|j| j.name == *name).unwrap().clone());
    }
    if on.is_empty() {
        return m;
    }
    let prismatic = on == "slide";
    let target = RestraintTarget::Joint {
        joint: on.to_owned(),
        dof: 0,
    };
    let law = |restraint_type, pieces| ForceElement {
        name: "law".into(),
        kind: ForceKind::Restraint(Restraint {
            restraint_type,
            target: target.clone(),
            function: PiecewisePolynomial {
                knots: Vec::new(),
                pieces: vec![pieces],
            },
        }),
        extras: Default::default(),
    };
    match acting {
        Acting::Spring => m
            .force_elements
            .push(law(RestraintType::Spring, vec![-20.0, 60.0, 5.0])),
        Acting::Damper => m.force_elements.push(law(RestraintType::Damper, vec![0.0, 8.0])),
        Acting::Motor => m.motors.push(Motor {
            name: "drive".into(),
            motor_type: if prismatic {
                MotorType::Linear
            } else {
                MotorType::Rotation
            },
            actuation: MotorActuation::Force,
            target: MotorTarget::Joint {
                joint: on.to_owned(),
                dof: 0,
            },
            function: TimeFunction::Polynomial {
                coefficients: vec![12.0, -30.0],
            },
            extras: Default::default(),
        }),
    }
    m
}

/// The joint orders: in the first the slide is a tree joint and `hinge_p` closes the loop, in
/// the second `hinge_p` is a tree joint and the slide closes it.
const SLIDE_IN_TREE: [&str; 4] = ["hinge_a", "slide", "hinge_d", "hinge_p"];
const SLIDE_CLOSES: [&str; 4] = ["hinge_d", "hinge_a", "hinge_p", "slide"];

fn loop_joint_name(model: &Model) -> String {
    let tree = SpanningTree::new(model);
    assert_eq!(tree.loop_joints.len(), 1);
    model.joints[tree.loop_joints[0]].name.clone()
}

fn run(model: &Model) -> Vec<Vec<[f64; 7]>> {
    let options = SimulateOptions {
        duration: 0.5,
        dt: 1e-3,
        integrator: Integrator::Rk4,
        ..SimulateOptions::default()
    };
    Trajectory::record(model, &options).unwrap().0.poses
}

#[test]
fn a_law_on_a_loop_closing_joint_moves_the_mechanism_as_on_a_tree_joint() {
    assert_eq!(
        loop_joint_name(&mechanism(&SLIDE_IN_TREE, Acting::Spring, "")),
        "hinge_p"
    );
    assert_eq!(
        loop_joint_name(&mechanism(&SLIDE_CLOSES, Acting::Spring, "")),
        "slide"
    );
    for on in ["slide", "hinge_p"] {
        for acting in [Acting::Spring, Acting::Damper, Acting::Motor] {
            let a = run(&mechanism(&SLIDE_IN_TREE, acting, on));
            let b = run(&mechanism(&SLIDE_CLOSES, acting, on));
            let free = run(&mechanism(&SLIDE_IN_TREE, acting, ""));
            let mut moved: f64 = 0.0;
            for (k, (x, y)) in a.iter().zip(&b).enumerate() {
                for (body, (p, q)) in x.iter().zip(y).enumerate() {
                    for i in 0..7 {
                        assert!(
                            (p[i] - q[i]).abs() < 1e-8,
                            "{acting:?} on {on}: sample {k}, body {body}, component {i}: {} and {}",
                            p[i],
                            q[i]
                        );
                    }
                    let apart = (0..3)
                        .map(|i| (p[i] - free[k][body][i]).abs())
                        .fold(0.0, f64::max);
                    moved = moved.max(apart);
                }
            }
            // The law does something (a test that would pass with nothing applied cannot).
            assert!(
                moved > 1e-2,
                "{acting:?} on {on}: the law moved the mechanism by {moved}"
            );
        }
    }
}
