//! What the SDFormat writer does with each IR feature (the format's row of the loss matrix);
//! the `lower` passes report the same, item by item.

use mbconv_ir::format::support::{Feature, FeatureSupport, Support, row};

/// The SDFormat writer's feature table.
pub(crate) const FEATURE_SUPPORT: &[FeatureSupport] = &[
    row(
        Feature::MassProperties,
        Support::Approximated(
            "an inertia that breaks or meets the triangle inequality (libsdformat refuses it) moved just inside it",
        ),
    ),
    row(
        Feature::InertiaProducts,
        Support::Equivalent("<inertia> products, the inertial frame's rotation in its <pose>"),
    ),
    row(
        Feature::FixedBodies,
        Support::Equivalent("a static model when all its links are fixed, else a fixed joint to the world"),
    ),
    row(
        Feature::InitialJointPositions,
        Support::Equivalent("baked into the written link poses, the state at load"),
    ),
    row(
        Feature::InitialJointVelocities,
        Support::Lost("SDFormat has no initial velocities"),
    ),
    row(
        Feature::InitialBodyVelocities,
        Support::Lost("SDFormat has no initial velocities"),
    ),
    row(
        Feature::FixedJoint,
        Support::Approximated("fixed; a continuous track as fixed (the surface motion lost)"),
    ),
    row(Feature::RevoluteJoint, Support::Equivalent("revolute")),
    row(Feature::PrismaticJoint, Support::Equivalent("prismatic")),
    row(
        Feature::ScrewJoint,
        Support::Equivalent("screw: <thread_pitch> (1.9) or <screw_thread_pitch> (1.10 and later)"),
    ),
    row(
        Feature::UniversalJoint,
        Support::Equivalent(
            "universal with <axis> and <axis2> when they are orthogonal (Drake refuses others), else two revolute joints through a massless link",
        ),
    ),
    row(
        Feature::SphericalJoint,
        Support::Approximated("ball; its per-axis limits, springs, damping and friction lost (no <axis>)"),
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
    row(
        Feature::FreeJoint,
        Support::Approximated(
            "from the world: a link without a joint (exact); below another link three prismatic and three revolute joints (gimbal)",
        ),
    ),
    row(
        Feature::PointJoints,
        Support::Approximated("prismatic joints and three revolute joints (gimbal)"),
    ),
    row(
        Feature::KinematicLoops,
        Support::Equivalent(
            "a joint whose child already has a parent (Gazebo reads it; Drake refuses it); an open loop's parent side moved to the child's frame",
        ),
    ),
    row(
        Feature::JointLimits,
        Support::Equivalent("<limit> lower and upper (a ball joint's: see its row)"),
    ),
    row(
        Feature::JointVelocityEffortLimits,
        Support::Approximated("<limit> effort and velocity, one magnitude each; acceleration limits lost"),
    ),
    row(
        Feature::JointSprings,
        Support::Equivalent("<dynamics> spring_stiffness and spring_reference (a ball joint's: see its row)"),
    ),
    row(
        Feature::JointDamping,
        Support::Equivalent("<dynamics><damping> (a ball joint's: see its row)"),
    ),
    row(
        Feature::JointFriction,
        Support::Equivalent("<dynamics><friction> (a ball joint's: see its row)"),
    ),
    row(
        Feature::JointActuators,
        Support::Lost("rotor inertia, gear ratio and actuator types are not written"),
    ),
    row(Feature::Constraints, Support::Lost("SDFormat has no constraints")),
    row(
        Feature::Tsda,
        Support::Equivalent(
            "linear, without end stops, along a prismatic joint's axis between its bodies: the axis <dynamics> \
             spring_stiffness, spring_reference and damping; others lost (SDFormat has no force elements)",
        ),
    ),
    row(
        Feature::Rsda,
        Support::Equivalent(
            "linear, about a revolute joint's axis between its bodies: the axis <dynamics> spring_stiffness, \
             spring_reference and damping; others lost (SDFormat has no force elements)",
        ),
    ),
    row(Feature::Bushings, Support::Lost("SDFormat has no bushings")),
    row(
        Feature::Restraints,
        Support::Lost("SDFormat has no force elements"),
    ),
    row(
        Feature::Motors,
        Support::Lost("SDFormat has no motors (Gazebo drives joints by plugins)"),
    ),
    row(Feature::BodyLoads, Support::Lost("SDFormat has no body loads")),
    row(
        Feature::Shapes,
        Support::Approximated(
            "box, sphere, cylinder, capsule, ellipsoid, plane, mesh, cone (1.11 and later); others lost",
        ),
    ),
    row(
        Feature::Meshes,
        Support::Equivalent("<mesh> uri, scale and submesh"),
    ),
    row(
        Feature::Appearance,
        Support::Approximated("<material> diffuse, specular and emissive colours; textures lost"),
    ),
    row(
        Feature::ContactMaterials,
        Support::Lost(
            "other formats' contact materials are not written; SDFormat's <surface> is written back",
        ),
    ),
    row(
        Feature::Devices,
        Support::Lost("other formats' sensors are not written"),
    ),
    row(Feature::Groups, Support::Lost("SDFormat has no groups")),
    row(
        Feature::NamedFrames,
        Support::Equivalent("<frame> attached to its link"),
    ),
    row(
        Feature::Gravity,
        Support::Equivalent("<world><gravity>; a link's switch as <gravity>false"),
    ),
    row(
        Feature::TimeStep,
        Support::Approximated("<physics><max_step_size>; the end time lost"),
    ),
    row(
        Feature::FormatExtras,
        Support::Lost(
            "other formats' extras are dropped; SDFormat's own plugins, sensors, lights and surfaces are written back",
        ),
    ),
];
