//! Joints as SKEL says them: turned round when met from the child side; kinds SKEL lacks
//! replaced by a stand-in; actuators, bushings, joint ids, rotor inertia and gear ratios SKEL
//! lacks dropped; arbitrary planar axes made perpendicular as DART makes them.

use super::CODE;
use crate::spec::plane::orthonormal_plane;
use crate::spec::{FORMAT, TRANSFORMATION_AID, actuator_name};
use mbconv_ir::format::kit::aids;
use mbconv_ir::kinematics::joint_motion;
use mbconv_ir::{Category, Finding, Joint, JointKind, Severity};
use nalgebra::Vector3;

fn finding(
    what: &str,
    severity: Severity,
    category: Category,
    at: &str,
    message: impl Into<String>,
) -> Finding {
    Finding::new(format!("{CODE}.{what}"), severity, category, message).at(at)
}

fn dropped(what: &str, at: &str, message: impl Into<String>) -> Finding {
    finding(what, Severity::Warning, Category::Dropped, at, message)
}

/// A tree joint met from its child side, turned around so the tree parent is the parent,
/// with the finding that says so (a note where the coordinates convert exactly).
pub(super) fn reversed(joint: &Joint) -> (Joint, Finding) {
    let at = mbconv_ir::report::path::item("joints", &joint.name);
    let mut flipped = joint.clone();
    std::mem::swap(&mut flipped.parent, &mut flipped.child);
    std::mem::swap(&mut flipped.parent_frame, &mut flipped.child_frame);
    flipped.extras.remove(&aids::key(FORMAT, TRANSFORMATION_AID));
    let negate = matches!(
        joint.kind,
        JointKind::Fixed
            | JointKind::Revolute { .. }
            | JointKind::Prismatic { .. }
            | JointKind::Screw { .. }
            | JointKind::Spherical
            | JointKind::Translational
    );
    if !negate {
        let message = format!(
            "a {} joint met from its child side is written with parent and child swapped; its coordinates are \
             not converted",
            joint.kind.type_name()
        );
        let f = finding(
            "reversed_joint",
            Severity::Warning,
            Category::Approximated,
            &at,
            message,
        );
        return (flipped, f);
    }
    // `0.0 - x` rather than `-x`: a zero stays +0 and is not written as "-0".
    flipped.q0 = joint.q0.iter().map(|x| 0.0 - x).collect();
    if let JointKind::Spherical = joint.kind {
        // ω of the new child (old parent) in its joint frame: -R(q)ᵀ ω.
        let q = joint_motion(&joint.kind, &joint.q0).rotation;
        let w = Vector3::from_iterator(joint.v0.iter().copied().chain(std::iter::repeat(0.0)).take(3));
        let w = q * w;
        flipped.v0 = vec![0.0 - w.x, 0.0 - w.y, 0.0 - w.z];
    } else {
        flipped.v0 = joint.v0.iter().map(|x| 0.0 - x).collect();
    }
    let f = finding(
        "reversed_joint",
        Severity::Info,
        Category::Note,
        &at,
        "written with parent and child swapped (SKEL joints point away from the world)",
    );
    (flipped, f)
}

/// Lowers one tree joint in place; returns a finding per change.
pub(super) fn lower_joint(joint: &mut Joint, at: &str) -> Vec<Finding> {
    let mut findings = Vec::new();
    if let Some(actuator) = joint.actuator
        && actuator_name(actuator).is_none()
    {
        joint.actuator = None;
        findings.push(dropped(
            "actuator",
            at,
            format!("DART has no {actuator:?} actuator; the joint is written without one"),
        ));
    }
    let has_coordinates = lower_kind(joint, at, &mut findings);
    if joint.bushing.take().is_some() {
        findings.push(dropped(
            "bushing",
            at,
            "SKEL joints are ideal; the bushing compliance is dropped",
        ));
    }
    if joint.joint_id.take().is_some() {
        findings.push(finding(
            "joint_id",
            Severity::Info,
            Category::Dropped,
            at,
            "SKEL has no joint ids",
        ));
    }
    if has_coordinates {
        lower_dofs(joint, at, &mut findings);
    }
    findings
}

/// Replaces a kind SKEL lacks; false when the joint became a stand-in without coordinates.
fn lower_kind(joint: &mut Joint, at: &str, findings: &mut Vec<Finding>) -> bool {
    let stand_in = match &joint.kind {
        JointKind::Screw { .. } => {
            findings.push(finding(
                "screw",
                Severity::Warning,
                Category::Note,
                at,
                "DART 6.20 reads screw joints but does not create them (and stops building the skeleton)",
            ));
            return true;
        }
        JointKind::Planar { axis1, axis2 } => {
            if axis1.dot(axis2).abs() > 1e-12 * axis1.norm() * axis2.norm()
                && let Some((t1, t2)) = orthonormal_plane(axis1, axis2)
            {
                joint.kind = JointKind::Planar { axis1: t1, axis2: t2 };
                findings.push(finding(
                    "planar_axes",
                    Severity::Warning,
                    Category::Approximated,
                    at,
                    "DART makes the second planar axis perpendicular to the first",
                ));
            }
            return true;
        }
        JointKind::Fixed
        | JointKind::Revolute { .. }
        | JointKind::Prismatic { .. }
        | JointKind::Universal { .. }
        | JointKind::Spherical
        | JointKind::Euler { .. }
        | JointKind::Translational
        | JointKind::Free => return true,
        JointKind::PseudoContinuousTrack { .. } => {
            findings.push(dropped(
                "joint_kind",
                at,
                "SKEL has no continuous track; written as a weld (the surface motion is lost)",
            ));
            JointKind::Fixed
        }
        other => {
            findings.push(dropped(
                "joint_kind",
                at,
                format!(
                    "SKEL has no {} joint; written as a free joint (the constraint is lost)",
                    other.type_name()
                ),
            ));
            JointKind::Free
        }
    };
    joint.q0 = vec![0.0; stand_in.nq()];
    joint.v0 = vec![0.0; stand_in.nv()];
    joint.kind = stand_in;
    joint.dofs.clear();
    false
}

/// Rotor inertia and gear ratios (SKEL has neither) are dropped, one finding per DOF.
fn lower_dofs(joint: &mut Joint, at: &str, findings: &mut Vec<Finding>) {
    let n = joint.kind.nq();
    for dof in joint.dofs.iter_mut().take(n) {
        let gear = if dof.gear_ratio == 0.0 {
            1.0
        } else {
            dof.gear_ratio
        };
        if dof.rotor_inertia != 0.0 || gear != 1.0 {
            dof.rotor_inertia = 0.0;
            dof.gear_ratio = 1.0;
            findings.push(dropped(
                "rotor_inertia",
                at,
                "SKEL has no rotor inertia or gear ratio",
            ));
        }
    }
}
