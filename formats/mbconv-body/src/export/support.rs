//! How the Choreonoid Body format carries each IR feature: the table `lower` reports from and
//! the loss matrix is generated from.

use mbconv_ir::format::support::{Feature, FeatureSupport, Support, row};

/// The Body format's row for every [`Feature`].
pub(crate) const FEATURE_SUPPORT: &[FeatureSupport] = &[
    row(Feature::MassProperties, Support::Kept),
    row(
        Feature::InertiaProducts,
        Support::Equivalent("the tensor rotated into the link axes, nine numbers"),
    ),
    row(
        Feature::FixedBodies,
        Support::Equivalent("a fixed joint to the root link"),
    ),
    row(
        Feature::InitialJointPositions,
        Support::Approximated(
            "kept; an immobile group's multi-dof joint baked where it starts keeps position limits and spring rest positions that now mean another position",
        ),
    ),
    row(
        Feature::InitialJointVelocities,
        Support::Lost("a body file has no initial velocities"),
    ),
    row(
        Feature::InitialBodyVelocities,
        Support::Lost("a body file has no initial velocities"),
    ),
    row(
        Feature::FixedJoint,
        Support::Approximated("kept; a continuous track met from its child side becomes a free joint"),
    ),
    row(Feature::RevoluteJoint, Support::Kept),
    row(Feature::PrismaticJoint, Support::Kept),
    row(
        Feature::ScrewJoint,
        Support::Approximated("a revolute joint; the coupled translation is lost"),
    ),
    row(
        Feature::UniversalJoint,
        Support::Equivalent("two revolute joints through a massless link"),
    ),
    row(
        Feature::SphericalJoint,
        Support::Approximated("three revolute joints through massless links (a gimbal: singular at 90°)"),
    ),
    row(
        Feature::EulerJoint,
        Support::Equivalent("three revolute joints through massless links"),
    ),
    row(
        Feature::CylindricalJoint,
        Support::Equivalent("a prismatic and a revolute joint through a massless link"),
    ),
    row(
        Feature::PlanarJoint,
        Support::Equivalent(
            "two prismatic and a revolute joint through massless links (one met from its child side, which mbconv's solver cannot simulate either, becomes a free joint)",
        ),
    ),
    row(
        Feature::TranslationalJoint,
        Support::Equivalent("three prismatic joints through massless links"),
    ),
    row(
        Feature::FreeJoint,
        Support::Approximated("kept; a free joint met from its child side loses its coordinate limits"),
    ),
    row(
        Feature::PointJoints,
        Support::Approximated("prismatic joints and a free rotation chain through massless links"),
    ),
    row(
        Feature::KinematicLoops,
        Support::Approximated(
            "extraJoints: hinge and ball exact; a prismatic loop joint becomes a piston (rotation free), a fixed one a fixed extra joint (ignored by the AIST simulator); other kinds and loops to the world without a fixed root are lost",
        ),
    ),
    row(Feature::JointLimits, Support::Kept),
    row(
        Feature::JointVelocityEffortLimits,
        Support::Approximated("effort limits are symmetric (max_joint_effort); the larger bound is kept"),
    ),
    row(
        Feature::JointSprings,
        Support::Lost("a body file has no joint springs"),
    ),
    row(
        Feature::JointDamping,
        Support::Lost("a body file has no joint damping"),
    ),
    row(
        Feature::JointFriction,
        Support::Lost("a body file has no joint friction"),
    ),
    row(
        Feature::JointActuators,
        Support::Approximated("actuation_mode: effort, position, velocity, link position; others dropped"),
    ),
    row(
        Feature::Constraints,
        Support::Lost("only extra joints; distance and revolute-spherical constraints are dropped"),
    ),
    row(Feature::Tsda, Support::Lost("a body file has no spring-dampers")),
    row(Feature::Rsda, Support::Lost("a body file has no spring-dampers")),
    row(Feature::Bushings, Support::Lost("a body file has no bushings")),
    row(
        Feature::Restraints,
        Support::Lost("a body file has no restraints"),
    ),
    row(
        Feature::Motors,
        Support::Lost("motors live in controllers, not in the body file"),
    ),
    row(Feature::BodyLoads, Support::Lost("a body file has no loads")),
    row(
        Feature::Shapes,
        Support::Approximated("plane, pyramid, multi-sphere, convex hull and fitted shapes are lost"),
    ),
    row(Feature::Meshes, Support::Kept),
    row(Feature::Appearance, Support::Kept),
    row(
        Feature::ContactMaterials,
        Support::Lost("contact materials live in Choreonoid projects"),
    ),
    row(
        Feature::Devices,
        Support::Approximated("devices on links; a device on the world is lost"),
    ),
    row(Feature::Groups, Support::Lost("a body file is one body")),
    row(
        Feature::NamedFrames,
        Support::Lost("a body file has no named frames"),
    ),
    row(
        Feature::Gravity,
        Support::Approximated(
            "in the Choreonoid project written beside the body file (written to standard output: Choreonoid's (0, 0, -9.80665), other gravity lost); a body's gravity switch is lost",
        ),
    ),
    row(
        Feature::TimeStep,
        Support::Approximated(
            "time step, end time and integration mode in the Choreonoid project written beside the body file; lost when none is written",
        ),
    ),
    row(
        Feature::FormatExtras,
        Support::Lost("other formats' extras are dropped; the body format's own are written back"),
    ),
];
