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
    row(Feature::InitialJointPositions, Support::Kept),
    row(
        Feature::InitialJointVelocities,
        Support::Lost("a body file has no initial velocities"),
    ),
    row(
        Feature::InitialBodyVelocities,
        Support::Lost("a body file has no initial velocities"),
    ),
    row(Feature::FixedJoint, Support::Kept),
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
        Support::Equivalent("two prismatic and a revolute joint through massless links"),
    ),
    row(
        Feature::TranslationalJoint,
        Support::Equivalent("three prismatic joints through massless links"),
    ),
    row(Feature::FreeJoint, Support::Kept),
    row(
        Feature::PointJoints,
        Support::Approximated("prismatic joints and a free rotation chain through massless links"),
    ),
    row(
        Feature::KinematicLoops,
        Support::Equivalent("extraJoints (hinge, ball, piston, fixed)"),
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
    row(Feature::Shapes, Support::Kept),
    row(Feature::Meshes, Support::Kept),
    row(Feature::Appearance, Support::Kept),
    row(
        Feature::ContactMaterials,
        Support::Lost("contact materials live in Choreonoid projects"),
    ),
    row(Feature::Devices, Support::Kept),
    row(Feature::Groups, Support::Lost("a body file is one body")),
    row(
        Feature::NamedFrames,
        Support::Lost("a body file has no named frames"),
    ),
    row(
        Feature::Gravity,
        Support::Lost("the simulator's gravity is (0, 0, -9.80665); other gravity is dropped"),
    ),
    row(
        Feature::TimeStep,
        Support::Lost("the time step lives in Choreonoid projects"),
    ),
    row(
        Feature::FormatExtras,
        Support::Lost("other formats' extras are dropped; the body format's own are written back"),
    ),
];
