//! What the MJCF writer does with each IR feature (the format's row of the loss matrix); the
//! `lower` passes report the same, item by item.

use mbconv_ir::format::support::{Feature, FeatureSupport, Support, row};

/// The MJCF writer's feature table.
pub(crate) const FEATURE_SUPPORT: &[FeatureSupport] = &[
    row(
        Feature::MassProperties,
        Support::Approximated(
            "explicit <inertial>, never recomputed from geoms; a moving body without mass or with a zero principal moment gets 1e-10 (MuJoCo refuses it otherwise)",
        ),
    ),
    row(
        Feature::InertiaProducts,
        Support::Equivalent("fullinertia, or diaginertia with the axes' quat"),
    ),
    row(
        Feature::FixedBodies,
        Support::Equivalent("a body without joints under <worldbody>"),
    ),
    row(
        Feature::InitialJointPositions,
        Support::Equivalent("baked into the written configuration, which is qpos0, MuJoCo's state at load"),
    ),
    row(
        Feature::InitialJointVelocities,
        Support::Equivalent(
            "keyframe `initial` (qvel): MuJoCo starts at rest at load, mj_resetDataKeyframe applies it",
        ),
    ),
    row(
        Feature::InitialBodyVelocities,
        Support::Equivalent(
            "keyframe `initial` (qvel): MuJoCo starts at rest at load, mj_resetDataKeyframe applies it",
        ),
    ),
    row(
        Feature::FixedJoint,
        Support::Approximated(
            "a nested body without joints; a loop weld as <weld>; a continuous track as a weld (surface motion lost)",
        ),
    ),
    row(
        Feature::RevoluteJoint,
        Support::Equivalent("hinge, in its body's frame"),
    ),
    row(
        Feature::PrismaticJoint,
        Support::Equivalent("slide, in its body's frame"),
    ),
    row(
        Feature::ScrewJoint,
        Support::Approximated("a hinge; the coupled translation is lost"),
    ),
    row(
        Feature::UniversalJoint,
        Support::Equivalent("two hinges in one body"),
    ),
    row(
        Feature::SphericalJoint,
        Support::Equivalent("ball; a loop ball joint as <connect>"),
    ),
    row(
        Feature::EulerJoint,
        Support::Equivalent("three hinges in one body"),
    ),
    row(
        Feature::CylindricalJoint,
        Support::Equivalent("a slide and a hinge in one body"),
    ),
    row(
        Feature::PlanarJoint,
        Support::Equivalent("two slides and a hinge in one body"),
    ),
    row(
        Feature::TranslationalJoint,
        Support::Equivalent("three slides in one body"),
    ),
    row(
        Feature::FreeJoint,
        Support::Approximated(
            "freejoint from the world; below another body three slides and three hinges (gimbal)",
        ),
    ),
    row(
        Feature::PointJoints,
        Support::Approximated("slides and three hinges (gimbal)"),
    ),
    row(
        Feature::KinematicLoops,
        Support::Approximated(
            "ball and fixed loop joints as <connect>/<weld> (soft in MuJoCo); other loop joints cut",
        ),
    ),
    row(
        Feature::JointLimits,
        Support::Approximated(
            "range with limited=\"true\" (soft in MuJoCo); one-sided limits and ball-joint limits dropped",
        ),
    ),
    row(Feature::JointVelocityEffortLimits, Support::Lost("not written")),
    row(
        Feature::JointSprings,
        Support::Approximated("stiffness and springref on hinges and slides; ball-joint springs lost"),
    ),
    row(Feature::JointDamping, Support::Kept),
    row(Feature::JointFriction, Support::Equivalent("frictionloss")),
    row(
        Feature::JointActuators,
        Support::Approximated(
            "rotor inertia as armature (times the gear ratio squared); actuator kinds lost",
        ),
    ),
    row(Feature::Constraints, Support::Lost("not written")),
    row(
        Feature::Tsda,
        Support::Equivalent(
            "linear, without end stops, along a slide joint's axis between its bodies: the joint's stiffness, \
             springref and damping; others lost (MJCF tendons are not written)",
        ),
    ),
    row(
        Feature::Rsda,
        Support::Equivalent(
            "linear, about a hinge joint's axis between its bodies: the joint's stiffness, springref and damping; \
             others lost",
        ),
    ),
    row(Feature::Bushings, Support::Lost("not written")),
    row(Feature::Restraints, Support::Lost("not written")),
    row(
        Feature::Motors,
        Support::Approximated("a zero-force joint motor as <motor> at ctrl 0; others lost"),
    ),
    row(Feature::BodyLoads, Support::Lost("not written")),
    row(
        Feature::Shapes,
        Support::Approximated(
            "sphere, box, capsule, cylinder, ellipsoid, mesh; plane on bodies welded to the world (MuJoCo refuses it on a moving body); others lost",
        ),
    ),
    row(
        Feature::Meshes,
        Support::Approximated(
            "STL, OBJ and MSH files by path; other mesh formats and meshes referenced by URI (package://) left out",
        ),
    ),
    row(
        Feature::Appearance,
        Support::Approximated("rgba and material names"),
    ),
    row(Feature::ContactMaterials, Support::Lost("not written")),
    row(Feature::Devices, Support::Lost("not written")),
    row(Feature::Groups, Support::Lost("MJCF is one model")),
    row(
        Feature::NamedFrames,
        Support::Equivalent("sites (renamed when a name repeats)"),
    ),
    row(
        Feature::Gravity,
        Support::Approximated("<option gravity>; a body's own gravity switch lost"),
    ),
    row(
        Feature::TimeStep,
        Support::Approximated("<option timestep>; the end time lost"),
    ),
    row(
        Feature::FormatExtras,
        Support::Lost(
            "other formats' extras are dropped; MJCF's own option flags, integrator and materials are written back",
        ),
    ),
];
