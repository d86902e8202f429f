//! How USD carries each IR feature: the table `lower` reports from and the loss matrix is
//! generated from; and where Newton, the simulator the check has in view for USD, solves what
//! the stage says by another law than mbconv's solver.

use mbconv_ir::format::kit::Tracing;
use mbconv_ir::format::support::{Feature, FeatureTable, SimulatorLaw, full_table};
use mbconv_ir::{ConstraintKind, JointKind, Model};
use nalgebra::Vector3;

/// USD's row for every [`Feature`].
///
/// The rows are kept as text in `support.txt` beside this file (one line a feature: its key,
/// its support and the words), read when the crate is built.
pub(crate) const FEATURE_SUPPORT: FeatureTable = full_table(include_str!("support.txt"));

/// Where Newton 1.8 (`ModelBuilder.add_usd`, `SolverFeatherstone`) moves a stage the writer
/// writes exactly otherwise than mbconv's solver moves the model: the check names these where
/// the model uses the feature so, since it simulates both sides with mbconv's law. Measured on
/// every written fixture and corpus robot (`tests/newton.rs`, `docs/formats/usd.md`).
pub(crate) const SIMULATOR_LAWS: &[SimulatorLaw] = &[
    SimulatorLaw {
        feature: Feature::InitialJointVelocities,
        law: "Newton 1.8 starts an articulated body from its joint's rate and has no attribute for a spherical joint's rates or a generic joint's translation rates (the writer writes the rates it reads, newton:*:velocity): those joints start at rest",
        applies: Some(unsaid_joint_rates),
    },
    SimulatorLaw {
        feature: Feature::InitialBodyVelocities,
        law: "Newton 1.8 reads a floating body's physics:velocity and physics:angularVelocity in the body's own axes, where UsdPhysics states the parent's space (mbconv writes the world's): a turned body starts with its velocity turned",
        applies: Some(turned_floating_velocities),
    },
    SimulatorLaw {
        feature: Feature::JointSprings,
        law: "SolverFeatherstone applies a drive's stiffness explicitly, where mbconv's fixed-step scheme takes joint springs implicitly (DART's): the same spring, but at Newton's step the two part (flags_off.xml at dt 1e-3: Newton 6.5e-4 m from the accurate motion, mbconv's semi-implicit Euler 2.2e-3 m; both converge to it)",
        applies: Some(|m| driven(m, |d| d.spring_stiffness != 0.0)),
    },
    SimulatorLaw {
        feature: Feature::JointDamping,
        law: "SolverFeatherstone applies a drive's damping explicitly, where mbconv's fixed-step scheme takes joint damping implicitly (DART's): the same damper, but at Newton's step the two part, and Newton diverges where dt·damping exceeds twice the joint's inertia",
        applies: Some(|m| driven(m, |d| d.damping != 0.0)),
    },
    SimulatorLaw {
        feature: Feature::JointFriction,
        law: "SolverFeatherstone does not apply joint friction (Newton reads newton:friction; its solver documentation lists joint_friction as unsupported): the joints move without it",
        applies: None,
    },
    SimulatorLaw {
        feature: Feature::JointLimits,
        law: "Newton's joint limits are springs (limit_ke 1e4, limit_kd 10), where mbconv's solver stops a joint inelastically at its limit; SolverFeatherstone applies them explicitly, and Newton diverges where a joint past its limit has dt·limit_kd above twice its inertia (below 5e-3 kg·m² about the axis at dt 1e-3: the Unitree H1's ankle, 4.7e-3, as Newton reads its URDF too)",
        applies: None,
    },
    SimulatorLaw {
        feature: Feature::KinematicLoops,
        law: "SolverFeatherstone does not hold a joint excluded from the articulation (physics:excludeFromArticulation): the loop opens",
        applies: None,
    },
    SimulatorLaw {
        feature: Feature::Gravity,
        law: "Newton 1.8 switches gravity off for a whole scene only (newton:gravityEnabled, or physxRigidBody:disableGravity, read on the PhysicsScene), not for one body: a body the model exempts from gravity (written as physxRigidBody:disableGravity on the body) falls in Newton (DART's test_single_body.skel: 4.91 m in 1 s)",
        applies: Some(|m| m.bodies.iter().any(|b| !b.gravity)),
    },
    SimulatorLaw {
        feature: Feature::MassProperties,
        law: "Newton 1.8 gives a body of zero mass no translational inertia: where no joint holds it (a floating body) its free joint has a singular inertia and SolverFeatherstone diverges (DART's inertia_from_shapes.skel: not finite from 0.1 s; finite with 1e-3 kg)",
        applies: Some(floating_zero_mass),
    },
    SimulatorLaw {
        feature: Feature::Constraints,
        law: "SolverFeatherstone integrates a PhysicsDistanceJoint as a free joint (its documentation: DISTANCE treated as FREE)",
        applies: Some(|m| {
            m.constraints
                .iter()
                .any(|c| c.enabled && matches!(c.kind, ConstraintKind::Distance { .. }))
        }),
    },
];

/// The model as the writer writes it (its initial state baked into body poses and velocities,
/// free joints dropped, Newton's joint kinds).
fn lowered(model: &Model) -> Model {
    super::lower(model, Tracing::Off).model
}

/// Whether a joint of the written model has an initial rate Newton has no attribute for.
fn unsaid_joint_rates(model: &Model) -> bool {
    let model = lowered(model);
    model.joints.iter().any(|j| {
        let generic = super::emit::generic_dofs(&j.kind);
        super::rates::newton_rates(&model, j, &generic).1
    })
}

/// Whether a floating body of the written model (held by no joint) has an initial velocity
/// that Newton, reading it in the body's axes, turns into another.
fn turned_floating_velocities(model: &Model) -> bool {
    let model = lowered(model);
    let held = |name: &str| model.joints.iter().any(|j| j.child.name() == Some(name));
    model.bodies.iter().filter(|b| !held(&b.name)).any(|b| {
        let Some(v) = b.initial_velocity else {
            return false;
        };
        // As written: the centre of mass's velocity (UsdPhysics' convention).
        let linear = v.linear + v.angular.cross(&(b.pose.rotation * b.inertial.com));
        let turned = |x: Vector3<f64>| (b.pose.rotation * x - x).amax() > 1e-12 * x.amax().max(1.0);
        turned(linear) || turned(v.angular)
    })
}

/// Whether a body of the written model that no joint holds (a floating body) has zero mass.
fn floating_zero_mass(model: &Model) -> bool {
    let model = lowered(model);
    let held = |name: &str| model.joints.iter().any(|j| j.child.name() == Some(name));
    model
        .bodies
        .iter()
        .any(|b| b.inertial.mass == 0.0 && !held(&b.name))
}

/// Whether a single-axis joint of the written model (its drive) has a coordinate `with`.
fn driven(model: &Model, with: fn(&mbconv_ir::DofProperties) -> bool) -> bool {
    lowered(model).joints.iter().any(|j| {
        matches!(j.kind, JointKind::Revolute { .. } | JointKind::Prismatic { .. })
            && j.dofs.first().is_some_and(with)
    })
}
