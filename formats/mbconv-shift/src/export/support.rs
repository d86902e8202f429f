//! What the Shift writer does with each IR feature (the format's row of the loss matrix).

use mbconv_ir::format::support::{Feature, FeatureSupport, Support, row};

/// How Shift JSON carries each IR feature (what `lower` does).
pub(crate) const FEATURE_SUPPORT: &[FeatureSupport] = &[
    row(Feature::MassProperties, Support::Kept),
    row(
        Feature::InertiaProducts,
        Support::Approximated(
            "products of inertia in body axes; an asymmetric tensor is written by Ixy, Iyz and Izx",
        ),
    ),
    row(
        Feature::FixedBodies,
        Support::Equivalent("a rigid joint from `fixed`"),
    ),
    row(
        Feature::InitialJointPositions,
        Support::Approximated(
            "kept; an immobile group's joints restart from zero at their initial position (a multi-axis \
             joint's limits and spring rest positions are not rebased)",
        ),
    ),
    row(Feature::InitialJointVelocities, Support::Kept),
    row(
        Feature::InitialBodyVelocities,
        Support::Equivalent("joint rates, or a float joint for a floating body"),
    ),
    row(
        Feature::FixedJoint,
        Support::Approximated(
            "`rigid`; a continuous track becomes a plain rigid joint (its surface motion is lost)",
        ),
    ),
    row(
        Feature::RevoluteJoint,
        Support::Equivalent(
            "`Rx`/`Ry`/`Rz` (spec; a skewed axis turns the joint frames) or `revolute` (2.0)",
        ),
    ),
    row(
        Feature::PrismaticJoint,
        Support::Equivalent("`Tx`/`Ty`/`Tz` (spec) or `prismatic` (2.0)"),
    ),
    row(Feature::ScrewJoint, Support::Lost("Shift has no screw joint")),
    row(
        Feature::UniversalJoint,
        Support::Equivalent("two revolute joints through a massless cross body"),
    ),
    row(Feature::SphericalJoint, Support::Equivalent("`spherical`")),
    row(
        Feature::EulerJoint,
        Support::Equivalent("`spherical` (the angles as the rotation vector of the same rotation)"),
    ),
    row(
        Feature::CylindricalJoint,
        Support::Lost("Shift has no cylindrical joint"),
    ),
    row(Feature::PlanarJoint, Support::Lost("Shift has no planar joint")),
    row(
        Feature::TranslationalJoint,
        Support::Lost("Shift has no translational joint"),
    ),
    row(Feature::FreeJoint, Support::Equivalent("`float`")),
    row(
        Feature::PointJoints,
        Support::Lost("Shift has no point-line or point-plane joint"),
    ),
    row(Feature::KinematicLoops, Support::Kept),
    row(Feature::JointLimits, Support::Lost("Shift joints have no limits")),
    row(
        Feature::JointVelocityEffortLimits,
        Support::Lost("Shift joints have no limits"),
    ),
    row(
        Feature::JointSprings,
        Support::Equivalent(
            "a spring restraint on a one-degree-of-freedom joint; a multi-degree-of-freedom joint's are lost",
        ),
    ),
    row(
        Feature::JointDamping,
        Support::Equivalent(
            "a damper restraint on a one-degree-of-freedom joint; a multi-degree-of-freedom joint's is lost",
        ),
    ),
    row(
        Feature::JointFriction,
        Support::Approximated(
            "a friction restraint rising linearly from -f to +f between rates -0.01 and +0.01; a multi-degree-of-freedom joint's is lost",
        ),
    ),
    row(
        Feature::JointActuators,
        Support::Lost("Shift has no actuators, rotor inertia or gear ratios"),
    ),
    row(
        Feature::Constraints,
        Support::Lost("Shift has no constraints besides joints"),
    ),
    row(
        Feature::Tsda,
        Support::Equivalent(
            "linear, without end stops: along a prismatic joint's axis between its bodies, the joint's spring and \
             damper restraints; elsewhere spring and damper restraints on the distance of two frames; other laws are \
             lost",
        ),
    ),
    row(
        Feature::Rsda,
        Support::Equivalent(
            "linear, about a revolute joint's axis between its bodies: the joint's spring and damper restraints; \
             others lost",
        ),
    ),
    row(Feature::Bushings, Support::Lost("Shift has no bushings")),
    row(
        Feature::Restraints,
        Support::Approximated(
            "kept on one-degree-of-freedom joints and frame pairs; a restraint on another joint is lost",
        ),
    ),
    row(Feature::Motors, Support::Lost("Shift has no motors")),
    row(Feature::BodyLoads, Support::Lost("Shift has no body loads")),
    row(
        Feature::Shapes,
        Support::Lost("Shift names mesh files only (kept verbatim when read from Shift)"),
    ),
    row(Feature::Meshes, Support::Lost("mesh shapes are not written")),
    row(
        Feature::Appearance,
        Support::Lost("Shift has no colours besides its mesh materials"),
    ),
    row(
        Feature::ContactMaterials,
        Support::Lost("Shift has no contact materials"),
    ),
    row(
        Feature::Devices,
        Support::Lost("Shift has lights only (kept verbatim when read from Shift)"),
    ),
    row(
        Feature::Groups,
        Support::Equivalent("assemblies named by `:` paths"),
    ),
    row(Feature::NamedFrames, Support::Kept),
    row(
        Feature::Gravity,
        Support::Approximated(
            "kept; a body's exemption from gravity is lost (Shift applies it to every body)",
        ),
    ),
    row(Feature::TimeStep, Support::Kept),
    row(
        Feature::FormatExtras,
        Support::Lost("other formats' extras are not written"),
    ),
];
