//! Joints as SKEL says them: kinds SKEL lacks replaced by a stand-in; actuators, bushings,
//! joint ids, rotor inertia and gear ratios SKEL lacks dropped; arbitrary planar axes made
//! perpendicular as DART makes them.

use crate::spec::actuator_name;
use crate::spec::plane::orthonormal_plane;
use mbconv_ir::JointKind;
use mbconv_ir::format::kit::LowerSession;
use mbconv_ir::format::support::Feature;
use mbconv_ir::report::path;

/// Actuator kinds DART has no actuator type for.
pub(super) fn drop_actuators(s: &mut LowerSession) {
    for j in 0..s.model.joints.len() {
        let joint = &mut s.model.joints[j];
        let Some(actuator) = joint.actuator else {
            continue;
        };
        if actuator_name(actuator).is_some() {
            continue;
        }
        joint.actuator = None;
        let at = path::item("joints", &joint.name);
        s.lost(
            "actuator_lost",
            Feature::JointActuators,
            &at,
            format!("DART has no {actuator:?} actuator; the joint is written without one"),
        );
    }
}

/// Kinds SKEL lacks: a continuous track becomes a weld, a cylindrical or point joint a free
/// joint; screw joints are written, but DART 6.20 does not build them.
pub(super) fn stand_ins(s: &mut LowerSession) {
    for j in 0..s.model.joints.len() {
        let joint = &mut s.model.joints[j];
        let at = path::item("joints", &joint.name);
        let feature = Feature::of_joint(&joint.kind);
        let (stand_in, what, message) = match &joint.kind {
            JointKind::Screw { .. } => {
                s.approximated(
                    "screw_joint_unbuilt",
                    Feature::ScrewJoint,
                    &at,
                    "DART 6.20 reads screw joints but does not create them (and stops building the skeleton)",
                );
                continue;
            }
            JointKind::Fixed
            | JointKind::Revolute { .. }
            | JointKind::Prismatic { .. }
            | JointKind::Universal { .. }
            | JointKind::Spherical
            | JointKind::Euler { .. }
            | JointKind::Planar { .. }
            | JointKind::Translational
            | JointKind::Free => continue,
            JointKind::PseudoContinuousTrack { .. } => (
                JointKind::Fixed,
                "track_as_weld",
                "SKEL has no continuous track; written as a weld (the surface motion is lost)".to_owned(),
            ),
            other => (
                JointKind::Free,
                "joint_as_free_joint",
                format!(
                    "SKEL has no {} joint; written as a free joint (the constraint is lost)",
                    other.type_name()
                ),
            ),
        };
        joint.q0 = vec![0.0; stand_in.nq()];
        joint.v0 = vec![0.0; stand_in.nv()];
        joint.kind = stand_in;
        joint.dofs.clear();
        s.lost(what, feature, &at, message);
    }
}

/// DART makes an arbitrary plane's second axis perpendicular to the first.
pub(super) fn perpendicular_planar_axes(s: &mut LowerSession) {
    for j in 0..s.model.joints.len() {
        let joint = &mut s.model.joints[j];
        let JointKind::Planar { axis1, axis2 } = &joint.kind else {
            continue;
        };
        if axis1.dot(axis2).abs() <= 1e-12 * axis1.norm() * axis2.norm() {
            continue;
        }
        let Some((t1, t2)) = orthonormal_plane(axis1, axis2) else {
            continue;
        };
        joint.kind = JointKind::Planar { axis1: t1, axis2: t2 };
        let at = path::item("joints", &joint.name);
        s.approximated(
            "planar_axes_made_perpendicular",
            Feature::PlanarJoint,
            &at,
            "DART makes the second planar axis perpendicular to the first",
        );
    }
}

/// Compliant joints: SKEL joints are ideal.
pub(super) fn drop_bushings(s: &mut LowerSession) {
    s.drop_joint_bushings("SKEL joints are ideal; the bushing compliance is dropped");
}

/// Joint ids (Choreonoid's): SKEL has none.
pub(super) fn drop_joint_ids(s: &mut LowerSession) {
    s.drop_joint_ids("SKEL has no joint ids");
}

/// Rotor inertia and gear ratios (SKEL has neither), one finding per joint.
pub(super) fn drop_rotor_inertia(s: &mut LowerSession) {
    for j in 0..s.model.joints.len() {
        let joint = &mut s.model.joints[j];
        let n = joint.kind.nq();
        let mut changed = false;
        for dof in joint.dofs.iter_mut().take(n) {
            let gear = if dof.gear_ratio == 0.0 {
                1.0
            } else {
                dof.gear_ratio
            };
            if dof.rotor_inertia != 0.0 || gear != 1.0 {
                dof.rotor_inertia = 0.0;
                dof.gear_ratio = 1.0;
                changed = true;
            }
        }
        if changed {
            let at = path::item("joints", &joint.name);
            s.lost(
                "rotor_inertia_lost",
                Feature::JointActuators,
                &at,
                "SKEL has no rotor inertia or gear ratio",
            );
        }
    }
}
