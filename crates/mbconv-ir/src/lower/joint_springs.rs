//! Force elements that are a joint's own spring and damper: an RSDA between the two bodies of
//! a revolute joint, about the joint axis, or a TSDA between the two bodies of a prismatic
//! joint, along the joint axis; each with a linear law (a preload only beside a spring, where
//! it shifts the rest position by `preload/k`) and, for a TSDA, no end stops.
//!
//! With `θ` the RSDA angle (frame 2 about frame 1's Z) and `q` the joint coordinate, the
//! frames' Z axes along the joint axis make `θ = c·q + θ₀` with `c = ±1` (the sign of the
//! axes, times -1 when the RSDA's first body is the joint's child) and `θ₀` the angle at
//! `q = 0`. The RSDA torque `-k(θ - θ_free) - d·θ̇` is then the joint spring `-k(q - q_rest)`
//! with `q_rest = c·(θ_free - θ₀)` and the damper `-d·q̇`. The RSDA angle is measured in
//! (-π, π]: when the initial `c·q + θ₀` lies `n` turns outside it, `q_rest` gains `c·2πn`, so
//! that the spring pulls the same way from the start (the two agree while the angle does not
//! wrap again). A spring the joint already has adds up (stiffnesses and dampings add, rest
//! positions average by stiffness).
//!
//! For a TSDA whose attachment points lie on the prismatic axis, the length is
//! `L = s·(ℓ₀ + q)` with `ℓ₀` the signed distance between the points along the axis at `q = 0`
//! and `s` the side the child's point is on at the initial `q`; the spring `-k(L - L_free)` is
//! the joint spring with `q_rest = s·L_free - ℓ₀`, exactly as long as the points do not pass
//! through each other (where the TSDA's direction is undefined).

use super::note;
use crate::format::support::Feature;
use crate::kinematics::{Attachment, SpanningTree};
use crate::model::Model;
use crate::model::force::{ForceElement, ForceKind, Rsda, SpringDamperLaw, Tsda};
use crate::model::joint::{DofProperties, Joint, JointKind};
use crate::pose::Pose;
use crate::report::{Finding, path};
use nalgebra::Vector3;
use std::f64::consts::TAU;

/// How far (as a unit-vector difference, or a distance relative to the points' gap) an
/// element's axis may be from the joint axis and still count as the same axis.
const AXIS_TOLERANCE: f64 = 1e-9;

/// What a format's joints can say of a spring-damper on their coordinate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JointSpringSupport {
    /// A stiffness, a rest position and a damping (SKEL, Shift, MJCF, SDFormat): every linear
    /// element on a joint's axis is taken.
    SpringAndDamper,
    /// A damping only (URDF): only a pure linear damper (no stiffness, no preload) is taken.
    DamperOnly,
}

/// Writes every force element that is exactly a joint's spring and damper as that joint's
/// DOF spring (stiffness, rest position) and damping, for formats whose joints carry springs
/// and dampers but that have no (or fewer) force elements: an RSDA about a revolute joint's
/// axis, or a TSDA along a prismatic joint's axis, between the joint's own two bodies, with a
/// linear law (a preload only beside a spring; a TSDA without end stops). The joint must be
/// enabled and in the model's spanning tree (a loop-closing joint has no coordinate of its
/// own). With [`JointSpringSupport::DamperOnly`] only pure dampers are taken. Every element
/// taken is removed from `force_elements` and reported with a note
/// `<format>.rsda_as_joint_spring` or `<format>.tsda_as_joint_spring` (the motion is
/// unchanged); every other element is left where it is, for the format to write or report.
///
/// ```
/// use mbconv_ir::lower::{JointSpringSupport, force_elements_as_joint_springs};
/// use mbconv_ir::{Body, BodyRef, ForceElement, ForceKind, Joint, JointKind, Model, Pose, Rsda, SpringDamperLaw};
/// use nalgebra::Vector3;
/// let mut m = Model::new("pendulum");
/// m.bodies.push(Body::new("bob"));
/// m.joints.push(Joint::new("pivot", JointKind::Revolute { axis: Vector3::z() }, BodyRef::World, BodyRef::body("bob")));
/// m.force_elements.push(ForceElement {
///     name: "torsion".into(),
///     kind: ForceKind::Rsda(Rsda {
///         body1: BodyRef::World,
///         frame1: Pose::identity(),
///         body2: BodyRef::body("bob"),
///         frame2: Pose::identity(),
///         free_angle: 0.5,
///         preload: 0.0,
///         law: SpringDamperLaw::Linear { stiffness: Some(3.0), damping: Some(0.2) },
///     }),
///     extras: Default::default(),
/// });
/// let findings = force_elements_as_joint_springs(&mut m, "toy", JointSpringSupport::SpringAndDamper);
/// assert!(m.force_elements.is_empty());
/// let dof = &m.joints[0].dofs[0];
/// assert_eq!((dof.spring_stiffness, dof.spring_rest_position, dof.damping), (3.0, 0.5, 0.2));
/// assert_eq!(findings[0].code, "toy.rsda_as_joint_spring");
/// assert!(!findings[0].category.is_loss());
/// ```
pub fn force_elements_as_joint_springs(
    model: &mut Model,
    format: &str,
    support: JointSpringSupport,
) -> Vec<Finding> {
    let tree = SpanningTree::new(model);
    let in_tree: Vec<bool> = (0..model.joints.len())
        .map(|j| {
            tree.attachments
                .iter()
                .any(|a| matches!(a, Attachment::Joint { joint, .. } if *joint == j))
        })
        .collect();
    let elements = std::mem::take(&mut model.force_elements);
    let mut kept = Vec::with_capacity(elements.len());
    let mut findings = Vec::new();
    for element in elements {
        let Some(spring) = as_joint_spring(model, &in_tree, &element, support) else {
            kept.push(element);
            continue;
        };
        let (what, feature) = match element.kind {
            ForceKind::Rsda(_) => ("rsda_as_joint_spring", Feature::Rsda),
            _ => ("tsda_as_joint_spring", Feature::Tsda),
        };
        let message = spring.apply(&mut model.joints[spring.joint]);
        findings.push(note(
            format,
            what,
            feature,
            &path::item("force_elements", &element.name),
            &message,
        ));
    }
    model.force_elements = kept;
    findings
}

/// A force element that is a joint's DOF spring.
struct JointSpring {
    /// Index of the joint in the model.
    joint: usize,
    /// `RSDA` or `TSDA`.
    element: &'static str,
    stiffness: f64,
    rest_position: f64,
    damping: f64,
}

impl JointSpring {
    /// Adds the spring to the joint's DOF 0; returns the finding's message.
    fn apply(&self, joint: &mut Joint) -> String {
        if joint.dofs.is_empty() {
            joint.dofs = vec![DofProperties::default(); joint.kind.nq()];
        }
        let dof = &mut joint.dofs[0];
        let (k0, r0) = (dof.spring_stiffness, dof.spring_rest_position);
        let k = k0 + self.stiffness;
        dof.spring_rest_position = if k0 == 0.0 {
            if self.stiffness == 0.0 {
                r0
            } else {
                self.rest_position
            }
        } else if self.stiffness == 0.0 || k == 0.0 {
            r0
        } else {
            (k0 * r0 + self.stiffness * self.rest_position) / k
        };
        dof.spring_stiffness = k;
        dof.damping += self.damping;
        if self.stiffness == 0.0 {
            format!(
                "the {} along the axis of joint {:?} is that joint's damper (damping {})",
                self.element, joint.name, self.damping
            )
        } else {
            format!(
                "the {} along the axis of joint {:?} is that joint's spring (stiffness {}, rest position {}, \
                 damping {})",
                self.element, joint.name, self.stiffness, self.rest_position, self.damping
            )
        }
    }
}

/// The joint spring `element` is, when it is one the format can say.
fn as_joint_spring(
    model: &Model,
    in_tree: &[bool],
    element: &ForceElement,
    support: JointSpringSupport,
) -> Option<JointSpring> {
    let (law, preload) = match &element.kind {
        ForceKind::Rsda(rsda) => (&rsda.law, rsda.preload),
        ForceKind::Tsda(tsda) => (&tsda.law, tsda.preload),
        _ => return None,
    };
    let SpringDamperLaw::Linear { stiffness, damping } = *law else {
        return None;
    };
    if support == JointSpringSupport::DamperOnly && (stiffness.is_some_and(|k| k != 0.0) || preload != 0.0) {
        return None;
    }
    let usable = |j: usize, joint: &Joint| joint.enabled && in_tree[j];
    let spring = match &element.kind {
        ForceKind::Rsda(rsda) => rsda_spring(model, rsda, stiffness, damping, usable),
        ForceKind::Tsda(tsda) => tsda_spring(model, tsda, stiffness, damping, usable),
        _ => None,
    }?;
    let finite = [spring.stiffness, spring.rest_position, spring.damping]
        .iter()
        .all(|x| x.is_finite());
    finite.then_some(spring)
}

/// The revolute joint spring an RSDA is.
fn rsda_spring(
    model: &Model,
    rsda: &Rsda,
    stiffness: Option<f64>,
    damping: Option<f64>,
    usable: impl Fn(usize, &Joint) -> bool,
) -> Option<JointSpring> {
    let free_angle = shifted_rest(rsda.free_angle, rsda.preload, stiffness)?;
    model.joints.iter().enumerate().find_map(|(j, joint)| {
        let JointKind::Revolute { axis } = joint.kind else {
            return None;
        };
        if !usable(j, joint) || axis.norm() == 0.0 {
            return None;
        }
        // σ = +1 when the RSDA's second body is the joint's child.
        let (on_parent, on_child, sigma) = if (&rsda.body1, &rsda.body2) == (&joint.parent, &joint.child) {
            (&rsda.frame1, &rsda.frame2, 1.0)
        } else if (&rsda.body2, &rsda.body1) == (&joint.parent, &joint.child) {
            (&rsda.frame2, &rsda.frame1, -1.0)
        } else {
            return None;
        };
        let axis = axis.normalize();
        let sign = axis_sign(on_parent, &(joint.parent_frame.rotation * axis))?;
        if axis_sign(on_child, &(joint.child_frame.rotation * axis))? != sign {
            return None;
        }
        // The child relative to the parent at q = 0, then the angle of frame 2 about frame 1.
        let child_at_zero = joint.parent_frame * joint.child_frame.inverse();
        let relative = if sigma > 0.0 {
            rsda.frame1.rotation.inverse() * child_at_zero.rotation * rsda.frame2.rotation
        } else {
            rsda.frame1.rotation.inverse() * child_at_zero.rotation.inverse() * rsda.frame2.rotation
        };
        let m = relative.to_rotation_matrix().into_inner();
        let angle_at_zero = m[(1, 0)].atan2(m[(0, 0)]);
        let c = sign * sigma;
        // The RSDA angle is measured in (-π, π]: at the initial q it is `c·q + θ₀ - 2πn`.
        let initial = c * joint.q0.first().copied().unwrap_or(0.0) + angle_at_zero;
        let turns = ((initial - initial.sin().atan2(initial.cos())) / TAU).round();
        Some(JointSpring {
            joint: j,
            element: "RSDA",
            stiffness: stiffness.unwrap_or(0.0),
            rest_position: c * (free_angle - angle_at_zero + TAU * turns),
            damping: damping.unwrap_or(0.0),
        })
    })
}

/// The prismatic joint spring a TSDA is.
fn tsda_spring(
    model: &Model,
    tsda: &Tsda,
    stiffness: Option<f64>,
    damping: Option<f64>,
    usable: impl Fn(usize, &Joint) -> bool,
) -> Option<JointSpring> {
    if tsda.min_length.is_some() || tsda.max_length.is_some() {
        return None;
    }
    let free_length = shifted_rest(tsda.free_length, tsda.preload, stiffness)?;
    model.joints.iter().enumerate().find_map(|(j, joint)| {
        let JointKind::Prismatic { axis } = joint.kind else {
            return None;
        };
        if !usable(j, joint) || axis.norm() == 0.0 {
            return None;
        }
        let (on_parent, on_child) = if (&tsda.body1, &tsda.body2) == (&joint.parent, &joint.child) {
            (tsda.point1, tsda.point2)
        } else if (&tsda.body2, &tsda.body1) == (&joint.parent, &joint.child) {
            (tsda.point2, tsda.point1)
        } else {
            return None;
        };
        // In the parent body at q = 0: the child's point relative to the parent's, and the axis.
        let child_at_zero = joint.parent_frame * joint.child_frame.inverse();
        let gap = child_at_zero.transform_point(&on_child) - on_parent;
        let axis = joint.parent_frame.rotation * axis.normalize();
        if gap.cross(&axis).norm() > AXIS_TOLERANCE * (1.0 + gap.norm()) {
            return None;
        }
        let along = gap.dot(&axis);
        let initial = along + joint.q0.first().copied().unwrap_or(0.0);
        if initial == 0.0 {
            return None;
        }
        let side = initial.signum();
        Some(JointSpring {
            joint: j,
            element: "TSDA",
            stiffness: stiffness.unwrap_or(0.0),
            rest_position: side * free_length - along,
            damping: damping.unwrap_or(0.0),
        })
    })
}

/// The rest value that folds a constant preload into a linear spring: `preload - k(x - rest)`
/// is `-k(x - (rest + preload/k))`. `None` for a preload without a spring.
fn shifted_rest(rest: f64, preload: f64, stiffness: Option<f64>) -> Option<f64> {
    match stiffness {
        _ if preload == 0.0 => Some(rest),
        Some(k) if k != 0.0 => Some(rest + preload / k),
        _ => None,
    }
}

/// `+1` or `-1` when `frame`'s Z axis is `±axis` (both unit vectors, body coordinates).
fn axis_sign(frame: &Pose, axis: &Vector3<f64>) -> Option<f64> {
    let z = frame.rotation * Vector3::z();
    if (z - axis).norm() <= AXIS_TOLERANCE {
        Some(1.0)
    } else if (z + axis).norm() <= AXIS_TOLERANCE {
        Some(-1.0)
    } else {
        None
    }
}
