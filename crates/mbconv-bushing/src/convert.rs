//! Moving a bushing from one law to the other, and building Chrono's bushing from a joint's
//! `bushing_data`.
//!
//! Both laws use diagonal constants on the same six directions of the same pair of frames:
//! Chrono's `K·S` on the rotation vector of A relative to C and Drake's gimbal torques on the
//! roll-pitch-yaw of C relative to A (and likewise for translations) agree to first order in
//! the deflection, with the same signs. So the conversion keeps frames and constants as they
//! are, index by index — which is exactly the reference table (Chrono REVOLUTE `[Kr, Kr,
//! Kr_dof]` → Drake `k012 = [Kr, Kr, Kr_dof]`, SPHERICAL `[Kr_dof]·3`, UNIVERSAL `[Kr_dof,
//! Kr_dof, Kr]`, LOCK all `Kr`; `kxyz = [Kl]·3`) — and reports an approximation: the laws
//! differ at second order (midpoint frame and force points, roll-pitch-yaw versus rotation
//! vector, rpy rates versus relative angular velocity) and for large rotations.

use crate::{BushingError, LawConstants};
use mbconv_ir::report::path;
use mbconv_ir::rotation::{frame_with_x_along_z_normal, frame_with_z_along};
use mbconv_ir::{BodyRef, Bushing, BushingLaw, Category, Finding, Joint, JointKind, Pose, Severity};
use nalgebra::{UnitQuaternion, Vector3};

/// The law's name as the reports print it.
pub fn law_name(law: BushingLaw) -> &'static str {
    match law {
        BushingLaw::DrakeRollPitchYaw => "Drake's LinearBushingRollPitchYaw",
        BushingLaw::ChronoGeneric => "Chrono's generic bushing (bushing_data)",
    }
}

/// `bushing` under law `target`, and the finding (category [`Category::Approximated`]) that
/// says the result only approximates the original; `None` when the law is already `target`.
/// `name` names the force element in the finding and in errors.
///
/// Errors: converting to Drake's law a bushing with a negative or non-finite constant.
///
/// ```
/// use mbconv_bushing::convert_law;
/// use mbconv_ir::{BodyRef, Bushing, BushingLaw, Category, Pose};
/// let chrono = Bushing { law: BushingLaw::ChronoGeneric, body_a: BodyRef::World, frame_a: Pose::identity(),
///     body_c: BodyRef::body("arm"), frame_c: Pose::identity(), torque_stiffness: [1e5, 1e5, 0.0],
///     torque_damping: [1e3, 1e3, 0.0], force_stiffness: [1e5; 3], force_damping: [1e3; 3] };
/// let (drake, finding) = convert_law("hinge", &chrono, BushingLaw::DrakeRollPitchYaw).unwrap();
/// assert_eq!(drake.torque_stiffness, [1e5, 1e5, 0.0]);
/// assert_eq!(finding.unwrap().category, Category::Approximated);
/// ```
pub fn convert_law(
    name: &str,
    bushing: &Bushing,
    target: BushingLaw,
) -> Result<(Bushing, Option<Finding>), BushingError> {
    if bushing.law == target {
        return Ok((bushing.clone(), None));
    }
    LawConstants::of(bushing).check(name, target == BushingLaw::DrakeRollPitchYaw)?;
    let mut converted = bushing.clone();
    converted.law = target;
    let mut message = format!(
        "converted from {} to {} with the same frames and diagonal constants; the laws agree to first \
         order in the deflection but differ at second order (",
        law_name(bushing.law),
        law_name(target)
    );
    message.push_str(
        "Chrono: rotation vector of A relative to C in C's axes, relative angular velocity, forces at each \
         frame's origin; Drake: roll-pitch-yaw of C in A with gimbal torques, roll-pitch-yaw rates, \
         translation in the half-angle frame, forces at the midpoint) and for large rotations",
    );
    if target == BushingLaw::DrakeRollPitchYaw && bushing.torque_stiffness[1] == 0.0 {
        message.push_str(
            "; the pitch (y) rotation is free, and Drake's law fails at gimbal lock if it reaches ±90°",
        );
    }
    if target == BushingLaw::ChronoGeneric
        && bushing
            .torque_stiffness
            .iter()
            .chain(&bushing.torque_damping)
            .any(|&k| k == 0.0)
    {
        message.push_str(
            "; Chrono's rotation vector is meant for small rotations: a large rotation about a free axis \
             makes the other components differ from Drake's angles",
        );
    }
    let finding = Finding::new(
        "bushing.law_converted",
        Severity::Warning,
        Category::Approximated,
        message,
    )
    .at(path::item("force_elements", name));
    Ok((converted, Some(finding)))
}

/// Which side of an IR joint is Chrono's `body1` (the body whose marker is frame A).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChronoBody1 {
    /// `body1` became the joint's parent.
    Parent,
    /// `body1` became the joint's child.
    Child,
}

/// The axes Chrono's bushing constants refer to, for a joint kind: the columns of the
/// rotation (in joint-frame coordinates) whose z is the free rotation axis (revolute) or
/// whose x and y are the two axes (universal). `None` when the joint frame already is that
/// frame or the kind has no preferred axes.
fn chrono_axes(kind: &JointKind) -> Option<UnitQuaternion<f64>> {
    let q = match kind {
        // The frames Chrono builds for these joints (REVOLUTE: z along the axis, x suggested
        // along (1,0,0); UNIVERSAL: x along the first axis, z normal to both).
        JointKind::Revolute { axis } => frame_with_z_along(axis, Vector3::x())?,
        JointKind::Universal { axis1, axis2 } => frame_with_x_along_z_normal(axis1, axis2)?,
        _ => return None,
    };
    (q.angle() > 0.0).then_some(q)
}

/// The Chrono generic bushing a joint with `bushing_data` stands for.
///
/// Constants come from [`mbconv_ir::JointBushing::diagonal`] (free rotations get the `DOF`
/// constants). Frame A is Chrono's body-1 marker and frame C the body-2 marker, both the joint
/// frame on their bodies. The diagonal refers to the joint frame with z along a revolute
/// axis and x, y along a universal joint's axes (how Chrono builds the frame); if the IR joint
/// frame is oriented otherwise both frames are turned to that frame, which does not change
/// the joint. The bushing's neutral state is the joint at `q = 0`.
///
/// Errors: the joint has no bushing data, or is of a kind Chrono refuses (prismatic,
/// point-line, point-plane and kinds Chrono does not have).
pub fn chrono_bushing_from_joint(joint: &Joint, body1: ChronoBody1) -> Result<Bushing, BushingError> {
    let error = |reason: String| BushingError::Joint {
        joint: joint.name.clone(),
        reason,
    };
    let data = joint
        .bushing
        .as_ref()
        .ok_or_else(|| error("has no bushing data".into()))?;
    let (k, d) = data.diagonal(&joint.kind).ok_or_else(|| {
        error(format!(
            "Chrono does not allow bushing_data on a {} joint (only lock, spherical, revolute, universal)",
            joint.kind.type_name()
        ))
    })?;
    let turn = chrono_axes(&joint.kind).map_or_else(Pose::identity, Pose::from_rotation);
    let parent = (joint.parent.clone(), joint.parent_frame * turn);
    let child = (joint.child.clone(), joint.child_frame * turn);
    let ((body_a, frame_a), (body_c, frame_c)): ((BodyRef, Pose), (BodyRef, Pose)) = match body1 {
        ChronoBody1::Parent => (parent, child),
        ChronoBody1::Child => (child, parent),
    };
    Ok(Bushing {
        law: BushingLaw::ChronoGeneric,
        body_a,
        frame_a,
        body_c,
        frame_c,
        torque_stiffness: [k[3], k[4], k[5]],
        torque_damping: [d[3], d[4], d[5]],
        force_stiffness: [k[0], k[1], k[2]],
        force_damping: [d[0], d[1], d[2]],
    })
}
