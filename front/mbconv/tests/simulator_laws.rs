//! A law the target's simulator does not share is named in the verdict: MuJoCo solves
//! `frictionloss` as a soft constraint, mbconv's solver regularises Coulomb friction, so a
//! conversion to MJCF of a model with joint friction is not called proven there; Newton, the
//! simulator of USD, ignores joint friction, moves drives otherwise, starts a spherical joint at
//! rest, reads a floating body's velocity in the body's axes, switches gravity off per scene
//! only and gives a floating body of zero mass no inertia.

use mbconv::ir::{Body, BodyRef, Constraint, ConstraintKind, DofProperties, JointKind, Model, Pose, Twist};
use mbconv::{CheckSettings, Pipeline};
use nalgebra::{UnitQuaternion, Vector3};

/// The demo pendulum with Coulomb friction `friction` (N·m) at its pivot.
fn pendulum(friction: f64) -> Model {
    let mut model = mbconv::demo::pendulum();
    model.joints[0].dofs = vec![DofProperties {
        friction,
        ..DofProperties::default()
    }];
    model
}

fn not_compared(model: &Model, via: &str) -> Vec<String> {
    let pipeline = Pipeline::new();
    let registry = pipeline.registry();
    let format = registry.get(via).expect("registered");
    let settings = CheckSettings {
        duration: 0.3,
        ..CheckSettings::default()
    };
    let mut report = mbconv::checker::check(model, "rubbing", registry, &[format], &settings);
    let target = report.targets.remove(0);
    assert!(target.verdict.is_proof(), "{}", target.message);
    target.not_compared
}

#[test]
fn joint_friction_written_for_mujoco_is_named_as_a_law_mujoco_does_not_share() {
    let notes = not_compared(&pendulum(0.3), "mjcf");
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with("joint Coulomb friction: MuJoCo solves frictionloss as a soft constraint")),
        "{notes:?}"
    );
}

#[test]
fn without_friction_or_for_a_target_that_shares_the_law_nothing_is_named() {
    assert!(not_compared(&pendulum(0.0), "mjcf").is_empty());
    assert!(not_compared(&pendulum(0.3), "mbir").is_empty());
}

/// The USD laws `notes` names, by their feature's title.
fn usd_laws(notes: &[String]) -> Vec<&str> {
    notes
        .iter()
        .filter(|n| n.contains("Newton") || n.contains("SolverFeatherstone"))
        .filter_map(|n| n.split(':').next())
        .collect()
}

#[test]
fn newtons_laws_are_named_where_a_model_written_as_usd_uses_them() {
    assert_eq!(
        usd_laws(&not_compared(&pendulum(0.3), "usd")),
        ["joint Coulomb friction"]
    );
    let mut damped = pendulum(0.0);
    damped.joints[0].dofs[0].damping = 0.2;
    assert_eq!(usd_laws(&not_compared(&damped, "usd")), ["joint damping"]);
    let mut sprung = pendulum(0.0);
    sprung.joints[0].dofs[0].spring_stiffness = 2.0;
    assert_eq!(usd_laws(&not_compared(&sprung, "usd")), ["joint springs"]);
}

#[test]
fn a_revolute_joints_initial_rate_is_written_for_newton_and_a_spherical_joints_is_named() {
    let mut swinging = pendulum(0.0);
    swinging.joints[0].v0 = vec![1.5];
    assert!(usd_laws(&not_compared(&swinging, "usd")).is_empty());
    let mut ball = swinging.clone();
    ball.joints[0].kind = JointKind::Spherical;
    ball.joints[0].q0 = vec![1.0, 0.0, 0.0, 0.0];
    ball.joints[0].v0 = vec![0.0, 1.5, 0.0];
    ball.joints[0].dofs.clear();
    assert_eq!(
        usd_laws(&not_compared(&ball, "usd")),
        ["initial joint velocities"]
    );
}

/// A body floating at `pose` with the velocity `linear`, and a second body held at 1 m from it
/// by a distance constraint when `tethered`.
fn floating(pose: Pose, linear: Vector3<f64>, tethered: bool) -> Model {
    let mut model = Model::new("floating");
    let mut body = Body::new("tumbler");
    body.pose = pose;
    body.initial_velocity = Some(Twist {
        linear,
        angular: Vector3::zeros(),
    });
    model.bodies.push(body);
    if tethered {
        let mut bob = Body::new("bob");
        bob.pose = Pose::new(Vector3::new(0.0, 0.0, -1.0), UnitQuaternion::identity());
        model.bodies.push(bob);
        model.constraints.push(Constraint {
            name: "tether".to_owned(),
            kind: ConstraintKind::Distance {
                body1: BodyRef::body("tumbler"),
                point1: Vector3::zeros(),
                body2: BodyRef::body("bob"),
                point2: Vector3::zeros(),
                distance: Some(1.0),
            },
            enabled: true,
            extras: Default::default(),
        });
    }
    model
}

#[test]
fn a_turned_floating_bodys_velocity_and_a_distance_joint_are_named_for_newton() {
    let v = Vector3::new(0.5, 0.2, 3.0);
    let upright = Pose::default();
    let yawed = Pose::new(Vector3::zeros(), UnitQuaternion::from_euler_angles(0.0, 0.0, 1.0));
    assert!(usd_laws(&not_compared(&floating(upright, v, false), "usd")).is_empty());
    assert_eq!(
        usd_laws(&not_compared(&floating(yawed, v, false), "usd")),
        ["initial velocities of floating bodies"]
    );
    // Turned about the velocity itself, the velocity is the same in the body's axes.
    let about_v = Pose::new(
        Vector3::zeros(),
        UnitQuaternion::from_axis_angle(&nalgebra::Unit::new_normalize(v), 1.0),
    );
    assert!(usd_laws(&not_compared(&floating(about_v, v, false), "usd")).is_empty());
    // The check counts a distance constraint as a closed loop too.
    assert!(usd_laws(&not_compared(&floating(upright, v, true), "usd")).contains(&"constraints"));
}

#[test]
fn a_body_without_gravity_and_a_floating_body_of_zero_mass_are_named_for_newton() {
    let upright = Pose::default();
    let still = Vector3::zeros();
    assert!(usd_laws(&not_compared(&floating(upright, still, false), "usd")).is_empty());
    // Newton switches gravity off for the whole scene only.
    let mut weightless = floating(upright, still, false);
    weightless.bodies[0].gravity = false;
    assert_eq!(usd_laws(&not_compared(&weightless, "usd")), ["gravity"]);
    // A floating body of zero mass: Newton's free joint has no translational inertia.
    let mut massless = floating(upright, still, false);
    massless.bodies[0].inertial.mass = 0.0;
    massless.bodies.push(Body::new("ballast")); // a body with mass, for the check to compare
    assert_eq!(usd_laws(&not_compared(&massless, "usd")), ["mass, COM, inertia"]);
}
