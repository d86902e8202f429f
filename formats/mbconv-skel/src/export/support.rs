//! How SKEL carries each IR feature: the table `lower` reports from and the loss matrix is
//! generated from.

use mbconv_ir::format::support::{Feature, FeatureSupport, Support, row};

/// SKEL's row for every [`Feature`].
pub(crate) const FEATURE_SUPPORT: &[FeatureSupport] = &[
    row(Feature::MassProperties, Support::Kept),
    row(
        Feature::InertiaProducts,
        Support::Approximated("six numbers: an asymmetric tensor is written by its upper triangle"),
    ),
    row(
        Feature::FixedBodies,
        Support::Equivalent("a weld joint to the world"),
    ),
    row(
        Feature::InitialJointPositions,
        Support::Approximated(
            "kept; where a stored body pose disagrees with its joint's frames, the parent-side frame is moved \
             to agree with the pose (DART derives it from the poses); a free or planar joint met from its child \
             side is turned round without converting its coordinates, rates and DOF data",
        ),
    ),
    row(Feature::InitialJointVelocities, Support::Kept),
    row(
        Feature::InitialBodyVelocities,
        Support::Equivalent(
            "a free joint from the world carrying the velocity; tree bodies' as fitted joint rates; a fixed \
             body's is lost",
        ),
    ),
    row(
        Feature::FixedJoint,
        Support::Approximated("kept; a continuous track becomes a weld (its surface motion is lost)"),
    ),
    row(Feature::RevoluteJoint, Support::Kept),
    row(Feature::PrismaticJoint, Support::Kept),
    row(
        Feature::ScrewJoint,
        Support::Approximated("written, but DART 6.20 does not build screw joints"),
    ),
    row(Feature::UniversalJoint, Support::Kept),
    row(Feature::SphericalJoint, Support::Kept),
    row(Feature::EulerJoint, Support::Kept),
    row(
        Feature::CylindricalJoint,
        Support::Lost("no cylindrical joint: a free joint stands in"),
    ),
    row(
        Feature::PlanarJoint,
        Support::Approximated("kept; non-perpendicular axes are made perpendicular, as DART does"),
    ),
    row(Feature::TranslationalJoint, Support::Kept),
    row(Feature::FreeJoint, Support::Kept),
    row(
        Feature::PointJoints,
        Support::Lost("no point-line or point-plane joint: a free joint stands in"),
    ),
    row(
        Feature::KinematicLoops,
        Support::Lost("DART discards a body's second parent joint"),
    ),
    row(Feature::JointLimits, Support::Kept),
    row(Feature::JointVelocityEffortLimits, Support::Kept),
    row(Feature::JointSprings, Support::Kept),
    row(Feature::JointDamping, Support::Kept),
    row(Feature::JointFriction, Support::Kept),
    row(
        Feature::JointActuators,
        Support::Approximated(
            "DART's actuator types; position actuators, rotor inertia and gear ratios are dropped",
        ),
    ),
    row(Feature::Constraints, Support::Lost("SKEL has no constraints")),
    row(
        Feature::Tsda,
        Support::Equivalent(
            "along a prismatic joint's axis with a linear law and no end stops: the joint's spring; others lost",
        ),
    ),
    row(
        Feature::Rsda,
        Support::Equivalent(
            "about a revolute joint's axis with a linear law: the joint's spring; others lost",
        ),
    ),
    row(Feature::Bushings, Support::Lost("SKEL joints are ideal")),
    row(Feature::Restraints, Support::Lost("SKEL has no restraints")),
    row(Feature::Motors, Support::Lost("SKEL has no motors")),
    row(Feature::BodyLoads, Support::Lost("SKEL has no external loads")),
    row(
        Feature::Shapes,
        Support::Approximated("SKEL's primitives and meshes; other geometries are dropped"),
    ),
    row(
        Feature::Meshes,
        Support::Approximated("the file and scale; a node inside the file is dropped"),
    ),
    row(Feature::Appearance, Support::Approximated("RGB(A) colour only")),
    row(
        Feature::ContactMaterials,
        Support::Lost("SKEL has no contact materials"),
    ),
    row(
        Feature::Devices,
        Support::Lost("SKEL has no sensors, cameras or lights"),
    ),
    row(
        Feature::Groups,
        Support::Approximated("skeletons only; other groups are written by connected tree"),
    ),
    row(
        Feature::NamedFrames,
        Support::Approximated("markers on bodies, position only; world frames dropped"),
    ),
    row(Feature::Gravity, Support::Kept),
    row(
        Feature::TimeStep,
        Support::Approximated("the time step is kept; the end time is lost"),
    ),
    row(
        Feature::FormatExtras,
        Support::Lost("other formats' data has no place in SKEL"),
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_feature_has_one_row() {
        for feature in Feature::ALL {
            let rows = FEATURE_SUPPORT.iter().filter(|r| r.feature == feature).count();
            assert_eq!(rows, 1, "{feature:?}");
        }
        assert_eq!(FEATURE_SUPPORT.len(), Feature::ALL.len());
    }
}
