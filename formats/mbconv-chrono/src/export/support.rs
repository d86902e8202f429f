//! How Chrono YAML carries each IR feature: the table [`lower`](super::lower) reports from and
//! `docs/loss-matrix.md` is generated from.

use mbconv_ir::format::support::{Feature, FeatureSupport, Support, row};

/// One row per [`Feature`].
pub(crate) const FEATURE_SUPPORT: &[FeatureSupport] = &[
    row(
        Feature::MassProperties,
        Support::Approximated("kept; an asymmetric inertia tensor is written from its upper triangle"),
    ),
    row(Feature::InertiaProducts, Support::Kept),
    row(Feature::FixedBodies, Support::Kept),
    row(
        Feature::InitialJointPositions,
        Support::Approximated(
            "baked into body poses and joint frames (Chrono has no joint coordinates); frames apart in the initial configuration are put together at the parent's",
        ),
    ),
    row(
        Feature::InitialJointVelocities,
        Support::Equivalent("baked into body initial velocities"),
    ),
    row(Feature::InitialBodyVelocities, Support::Kept),
    row(
        Feature::FixedJoint,
        Support::Approximated("LOCK; a continuous-track joint is lost"),
    ),
    row(Feature::RevoluteJoint, Support::Kept),
    row(Feature::PrismaticJoint, Support::Kept),
    row(
        Feature::ScrewJoint,
        Support::Lost("the YAML parser has no screw joint"),
    ),
    row(
        Feature::UniversalJoint,
        Support::Approximated(
            "UNIVERSAL; Chrono builds the frame from the first axis, so a second axis not perpendicular to it is made perpendicular",
        ),
    ),
    row(Feature::SphericalJoint, Support::Kept),
    row(
        Feature::EulerJoint,
        Support::Equivalent("SPHERICAL: the same motion; the three angle coordinates are not kept"),
    ),
    row(
        Feature::CylindricalJoint,
        Support::Lost(
            "the YAML parser has no cylindrical joint; a composition needs an intermediate body with mass",
        ),
    ),
    row(
        Feature::PlanarJoint,
        Support::Lost("the YAML parser has no planar joint; POINT_PLANE leaves the tilts free"),
    ),
    row(
        Feature::TranslationalJoint,
        Support::Lost(
            "the YAML parser has no translational joint; a composition needs intermediate bodies with mass",
        ),
    ),
    row(
        Feature::FreeJoint,
        Support::Equivalent("not written: a body without a joint is free in Chrono"),
    ),
    row(
        Feature::PointJoints,
        Support::Approximated("POINT_LINE / POINT_PLANE use Chrono's fixed model X line / XY plane"),
    ),
    row(Feature::KinematicLoops, Support::Kept),
    row(
        Feature::JointLimits,
        Support::Lost("Chrono YAML joints have no limits"),
    ),
    row(
        Feature::JointVelocityEffortLimits,
        Support::Lost("Chrono YAML joints have no velocity or effort limits"),
    ),
    row(
        Feature::JointSprings,
        Support::Approximated(
            "an RSDA (revolute) or TSDA (prismatic) with a linear law; lost on other joints",
        ),
    ),
    row(
        Feature::JointDamping,
        Support::Approximated(
            "an RSDA (revolute) or TSDA (prismatic) with a linear law; lost on other joints",
        ),
    ),
    row(
        Feature::JointFriction,
        Support::Lost("Chrono YAML joints have no friction"),
    ),
    row(
        Feature::JointActuators,
        Support::Lost(
            "Chrono YAML joints have no actuators, controller ids or rotor inertia (motors act between bodies)",
        ),
    ),
    row(
        Feature::Constraints,
        Support::Approximated(
            "DISTANCE, REVOLUTE-SPHERICAL, REVOLUTE-TRANSLATIONAL from points only; imposed lengths and axes are not kept",
        ),
    ),
    row(Feature::Tsda, Support::Kept),
    row(
        Feature::Rsda,
        Support::Approximated("linear and curve laws only; frames rebuilt from the axis"),
    ),
    row(
        Feature::Bushings,
        Support::Approximated(
            "joint bushings only (not on PRISMATIC, POINT_LINE, POINT_PLANE); bushing force elements are lost",
        ),
    ),
    row(
        Feature::Restraints,
        Support::Lost("Chrono YAML has no restraints"),
    ),
    row(
        Feature::Motors,
        Support::Approximated(
            "between two bodies with CONSTANT, POLYNOMIAL, SINE, RAMP, DATA, one REPEAT or CONTROLLER functions; joint motors are lost",
        ),
    ),
    row(
        Feature::BodyLoads,
        Support::Approximated(
            "kept; modulations Chrono has no function for become CONSTANT 0, an externally set load starts at 0",
        ),
    ),
    row(
        Feature::Shapes,
        Support::Approximated(
            "spheres, boxes, cylinders, meshes and hulls; other shapes, shape names and non-collidable collision shapes are lost",
        ),
    ),
    row(
        Feature::Meshes,
        Support::Approximated("a uniform scale only; node selection is lost"),
    ),
    row(
        Feature::Appearance,
        Support::Approximated("the diffuse colour only"),
    ),
    row(
        Feature::ContactMaterials,
        Support::Approximated(
            "Chrono's material keys; jointed bodies collide (collision family 0 for every shape): shapes that make a jointed pair touch at the start are left out unless keep-jointed-contact",
        ),
    ),
    row(
        Feature::Devices,
        Support::Lost("Chrono YAML has no sensors, cameras or lights"),
    ),
    row(Feature::Groups, Support::Lost("Chrono YAML has no groups")),
    row(
        Feature::NamedFrames,
        Support::Lost("Chrono YAML has no named frames"),
    ),
    row(
        Feature::Gravity,
        Support::Approximated(
            "in the simulation file written beside the model (lost when none is written); no gravity becomes Chrono's default [0, 0, -9.8]; a body's gravity switch is lost",
        ),
    ),
    row(
        Feature::TimeStep,
        Support::Approximated("in the solver file written beside the model; lost when none is written"),
    ),
    row(
        Feature::FormatExtras,
        Support::Lost("other formats' extras are not written; Chrono's own are"),
    ),
];
