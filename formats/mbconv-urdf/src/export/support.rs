//! What the URDF writer does with each IR feature (the format's row of the loss matrix); the
//! `lower` passes report the same, item by item.

use mbconv_ir::format::support::{Feature, FeatureSupport, Support, row};

/// The URDF writer's feature table.
pub(crate) const FEATURE_SUPPORT: &[FeatureSupport] = &[
    row(
        Feature::MassProperties,
        Support::Approximated(
            "kept; a link moved by a joint without mass or inertia gets 1e-9 kg and 1e-12 kg m² (MuJoCo refuses it)",
        ),
    ),
    row(
        Feature::InertiaProducts,
        Support::Equivalent("the tensor with its axes' rotation in <inertial><origin rpy>"),
    ),
    row(
        Feature::FixedBodies,
        Support::Equivalent("the fixed root link, or a fixed joint to the world link"),
    ),
    row(
        Feature::InitialJointPositions,
        Support::Lost("URDF states the zero configuration only (a free joint's is baked into its origin)"),
    ),
    row(
        Feature::InitialJointVelocities,
        Support::Lost("URDF has no initial velocities"),
    ),
    row(
        Feature::InitialBodyVelocities,
        Support::Lost("URDF has no initial velocities"),
    ),
    row(
        Feature::FixedJoint,
        Support::Approximated(
            "kept; one the tree meets from its child side that cannot be turned round is floating; a continuous track becomes a fixed joint (its surface motion is lost)",
        ),
    ),
    row(
        Feature::RevoluteJoint,
        Support::Equivalent("revolute, or continuous when unlimited"),
    ),
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
        Support::Approximated("three revolute joints through massless links (singular at 90°)"),
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
        Support::Equivalent("planar (or three single-dof joints when its axes are not URDF's)"),
    ),
    row(
        Feature::TranslationalJoint,
        Support::Equivalent("three prismatic joints through massless links"),
    ),
    row(
        Feature::FreeJoint,
        Support::Equivalent(
            "floating from the world link (below another link: six single-dof joints, approximated)",
        ),
    ),
    row(
        Feature::PointJoints,
        Support::Approximated("prismatic and three revolute joints through massless links"),
    ),
    row(
        Feature::KinematicLoops,
        Support::Lost("URDF is a tree: the loop-closing joint is cut"),
    ),
    row(
        Feature::JointLimits,
        Support::Approximated(
            "both bounds or none (a one-sided limit is dropped); an unbounded prismatic joint gets ±1e30 (urdfdom needs a <limit>)",
        ),
    ),
    row(
        Feature::JointVelocityEffortLimits,
        Support::Approximated(
            "symmetric effort and velocity limits only (a <limit> without one of them gets ±1e30, as urdfdom needs both); no acceleration limits",
        ),
    ),
    row(Feature::JointSprings, Support::Lost("URDF has no joint springs")),
    row(Feature::JointDamping, Support::Kept),
    row(Feature::JointFriction, Support::Kept),
    row(
        Feature::JointActuators,
        Support::Approximated(
            "force, velocity and position actuators a kept <transmission> names; others lost",
        ),
    ),
    row(Feature::Constraints, Support::Lost("URDF has no constraints")),
    row(
        Feature::Tsda,
        Support::Equivalent(
            "a pure linear damper along a prismatic joint's axis between its bodies: the joint's <dynamics damping>; \
             others lost (URDF has no force elements, its joints no springs)",
        ),
    ),
    row(
        Feature::Rsda,
        Support::Equivalent(
            "a pure linear damper about a revolute joint's axis between its bodies: the joint's <dynamics damping>; \
             others lost (URDF has no force elements, its joints no springs)",
        ),
    ),
    row(Feature::Bushings, Support::Lost("URDF has no bushings")),
    row(Feature::Restraints, Support::Lost("URDF has no force elements")),
    row(Feature::Motors, Support::Lost("URDF has no motors")),
    row(Feature::BodyLoads, Support::Lost("URDF has no loads")),
    row(
        Feature::Shapes,
        Support::Approximated("box, sphere, cylinder, capsule, ellipsoid (Drake), mesh; others lost"),
    ),
    row(Feature::Meshes, Support::Kept),
    row(
        Feature::Appearance,
        Support::Approximated("a colour and a texture, in a named <material>"),
    ),
    row(
        Feature::ContactMaterials,
        Support::Lost("URDF has no contact materials"),
    ),
    row(Feature::Devices, Support::Lost("URDF has no sensors")),
    row(Feature::Groups, Support::Lost("URDF is one robot")),
    row(Feature::NamedFrames, Support::Lost("URDF has no named frames")),
    row(
        Feature::Gravity,
        Support::Lost("URDF has no gravity: loaders apply (0, 0, -9.81)"),
    ),
    row(Feature::TimeStep, Support::Lost("URDF has no time step")),
    row(
        Feature::FormatExtras,
        Support::Lost(
            "other formats' extras are dropped; URDF's own (<gazebo>, mimic, transmissions, ...) are written back",
        ),
    ),
];
