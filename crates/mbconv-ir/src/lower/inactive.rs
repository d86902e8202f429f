//! Switched-off bodies (Shift's `active: false`) for formats that cannot switch bodies off.

use super::note;
use crate::format::support::Feature;
use crate::model::force::{ForceKind, RestraintTarget};
use crate::model::motor::MotorTarget;
use crate::model::{BodyRef, Model};
use crate::report::{Finding, path};

/// Writes switched-off bodies as fixed ones, for formats that can fix a body where it is but
/// cannot switch it off: every body that is disabled, or in a disabled group, becomes a fixed,
/// enabled body at its pose with no initial velocity; every group is enabled. The joints that
/// join a switched-off body move nothing (the spanning tree leaves them out) but would hold a
/// fixed body's neighbour: they are removed, with the motors and joint restraints on them.
/// Each change is a note: the motion is unchanged.
///
/// ```
/// use mbconv_ir::{lower::fix_inactive_bodies, Body, BodyRef, Joint, JointKind, Model};
/// use nalgebra::Vector3;
/// let mut m = Model::new("spare");
/// let mut crate_body = Body::new("crate");
/// crate_body.enabled = false;
/// m.bodies.push(crate_body);
/// m.bodies.push(Body::new("lid"));
/// m.joints.push(Joint::new("hinge", JointKind::Revolute { axis: Vector3::z() }, BodyRef::body("crate"), BodyRef::body("lid")));
/// let findings = fix_inactive_bodies(&mut m, "skel");
/// assert!(m.bodies[0].fixed && m.bodies[0].enabled);
/// assert!(m.joints.is_empty());
/// assert!(findings.iter().all(|f| !f.category.is_loss()));
/// ```
pub fn fix_inactive_bodies(model: &mut Model, format: &str) -> Vec<Finding> {
    let active = model.active_bodies();
    let mut findings = Vec::new();
    if active.iter().all(|a| *a) {
        return findings;
    }
    let inactive = |r: &BodyRef, model: &Model| match r {
        BodyRef::World => false,
        BodyRef::Body(name) => model.body_index(name).is_some_and(|b| !active[b]),
    };
    let removed: Vec<String> = model
        .joints
        .iter()
        .filter(|j| inactive(&j.parent, model) || inactive(&j.child, model))
        .map(|j| j.name.clone())
        .collect();
    for name in &removed {
        findings.push(note(
            format,
            "inactive_joint",
            Feature::FixedBodies,
            &path::item("joints", name),
            "the joint joins a switched-off body and moves nothing; it is not written",
        ));
    }
    model.joints.retain(|j| !removed.contains(&j.name));
    model.motors.retain(|m| match &m.target {
        MotorTarget::Joint { joint, .. } if removed.contains(joint) => {
            findings.push(note(
                format,
                "inactive_joint",
                Feature::FixedBodies,
                &path::item("motors", &m.name),
                "the motor drives a joint of a switched-off body; it is not written",
            ));
            false
        }
        _ => true,
    });
    model.force_elements.retain(|e| match &e.kind {
        ForceKind::Restraint(r) => match &r.target {
            RestraintTarget::Joint { joint, .. } if removed.contains(joint) => {
                findings.push(note(
                    format,
                    "inactive_joint",
                    Feature::FixedBodies,
                    &path::item("force_elements", &e.name),
                    "the restraint acts on a joint of a switched-off body; it is not written",
                ));
                false
            }
            _ => true,
        },
        _ => true,
    });
    for (body, is_active) in model.bodies.iter_mut().zip(&active) {
        if !is_active {
            body.enabled = true;
            body.fixed = true;
            body.initial_velocity = None;
            findings.push(note(
                format,
                "inactive_body",
                Feature::FixedBodies,
                &path::item("bodies", &body.name),
                "the switched-off body is written fixed where it is",
            ));
        }
    }
    for group in &mut model.groups {
        group.enabled = true;
    }
    findings
}
