//! Reversing a joint: the child becomes the parent, with the same motion.

use crate::format::support::Feature;
use crate::kinematics::joint_motion;
use crate::model::Model;
use crate::model::force::{ForceKind, RestraintTarget};
use crate::model::joint::{DofProperties, EulerOrder, Joint, JointKind, Limits};
use crate::model::motor::MotorTarget;
use crate::report::{Category, Finding, Severity, path};

/// Why a joint cannot be reversed without changing the motion.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ReverseError {
    /// No joint has this index.
    #[error("no joint with index {0}")]
    NoSuchJoint(usize),
    /// The inverse motion of this joint type is not a joint of the same family with mirrored
    /// coordinates (planar, free, point-line, point-plane, track).
    #[error("joint {joint:?}: a {kind} joint cannot be reversed with mirrored coordinates")]
    NotReversible {
        /// Joint name.
        joint: String,
        /// Joint type name.
        kind: &'static str,
    },
    /// A motor or restraint drives the joint's coordinates, whose signs would change.
    #[error("joint {joint:?} is driven by {by:?}, whose commands are in the joint's coordinates")]
    Driven {
        /// Joint name.
        joint: String,
        /// The motor or force element naming the joint.
        by: String,
    },
    /// The joint is a compliant bushing, whose law is stated in the parent's frame.
    #[error("joint {joint:?} is a compliant bushing; its law is not symmetric in the two bodies")]
    Bushing {
        /// Joint name.
        joint: String,
    },
}

/// Swaps joint `index`'s parent and child (bodies and frames) so that it points the other way
/// with the same motion: the new joint motion is the inverse of the old one. Coordinates,
/// rates, position/velocity/acceleration/effort limits (`[lo, hi] -> [-hi, -lo]`) and spring
/// rest positions are mirrored; a universal joint's axes and an euler joint's angles swap
/// order (`xyz` <-> `zyx`); a spherical joint's rotation vector is negated and its angular
/// velocity re-expressed in the new child frame. Damping, stiffness and friction keep their
/// values (they act equally on both bodies).
///
/// Returns one note, or an error when the motion cannot be kept (see [`ReverseError`]).
///
/// ```
/// use mbconv_ir::{lower::reverse_joint, BodyRef, Joint, JointKind, Limits, Model, Body};
/// use mbconv_ir::model::joint::DofProperties;
/// use nalgebra::Vector3;
/// let mut m = Model::new("m");
/// m.bodies.push(Body::new("arm"));
/// let mut j = Joint::new("elbow", JointKind::Revolute { axis: Vector3::z() }, BodyRef::World, BodyRef::body("arm"));
/// j.q0 = vec![0.25];
/// j.dofs = vec![DofProperties { position_limits: Limits::new(-0.5, 1.0), ..Default::default() }];
/// m.joints.push(j);
/// reverse_joint(&mut m, 0, "body").unwrap();
/// let j = &m.joints[0];
/// assert_eq!((j.parent.clone(), j.child.clone()), (BodyRef::body("arm"), BodyRef::World));
/// assert_eq!(j.q0, vec![-0.25]);
/// assert_eq!(j.dofs[0].position_limits, Limits::new(-1.0, 0.5));
/// ```
pub fn reverse_joint(model: &mut Model, index: usize, format: &str) -> Result<Vec<Finding>, ReverseError> {
    let joint = model.joints.get(index).ok_or(ReverseError::NoSuchJoint(index))?;
    if let Some(by) = driver_of(model, &joint.name) {
        return Err(ReverseError::Driven {
            joint: joint.name.clone(),
            by,
        });
    }
    if joint.bushing.is_some() {
        return Err(ReverseError::Bushing {
            joint: joint.name.clone(),
        });
    }
    let reversal = Reversal::of(joint)?;
    let joint = &mut model.joints[index];
    let mut findings = vec![
        Finding::new(
            format!("{format}.joint_reversed"),
            Severity::Info,
            Category::Note,
            format!(
                "the joint now points from {} to {} (same motion; its coordinates, rates, limits and spring rest positions change sign)",
                joint.child, joint.parent
            ),
        )
        .for_feature(Feature::of_joint(&joint.kind))
        .at(path::item("joints", &joint.name)),
    ];
    if reversal.anisotropic_rates && joint.dofs.iter().any(has_rate_dependent_property) {
        findings.push(
            Finding::new(
                format!("{format}.reversed_rate_properties"),
                Severity::Warning,
                Category::Approximated,
                "the spherical joint's per-axis damping, friction or velocity limits now apply about the other body's axes",
            )
            .for_feature(Feature::JointDamping)
            .at(path::item("joints", &joint.name)),
        );
    }
    std::mem::swap(&mut joint.parent, &mut joint.child);
    std::mem::swap(&mut joint.parent_frame, &mut joint.child_frame);
    let old_q = std::mem::take(&mut joint.q0);
    joint.q0 = reversal.positions(&old_q);
    joint.v0 = reversal.rates(&old_q, &joint.v0);
    joint.dofs = reversal.order(&joint.dofs).into_iter().map(mirrored).collect();
    joint.kind = reversal.kind;
    Ok(findings)
}

/// The motor or restraint that commands `joint`'s coordinates, if any.
fn driver_of(model: &Model, joint: &str) -> Option<String> {
    let motor = model
        .motors
        .iter()
        .find(|m| matches!(&m.target, MotorTarget::Joint { joint: j, .. } if j == joint));
    let restraint = model.force_elements.iter().find(|f| {
        matches!(&f.kind, ForceKind::Restraint(r) if matches!(&r.target, RestraintTarget::Joint { joint: j, .. } if j == joint))
    });
    motor
        .map(|m| m.name.clone())
        .or_else(|| restraint.map(|f| f.name.clone()))
}

/// How one joint's kind and coordinates change when it is reversed.
struct Reversal {
    /// The reversed kind.
    kind: JointKind,
    /// The old kind (needed for the spherical velocity).
    old_kind: JointKind,
    /// True: the coordinate order reverses (universal, euler).
    reorder: bool,
    /// True: the rates are an angular velocity that must be re-expressed (spherical).
    anisotropic_rates: bool,
}

impl Reversal {
    fn of(joint: &Joint) -> Result<Self, ReverseError> {
        let same = |reorder| (joint.kind.clone(), reorder);
        let (kind, reorder) = match &joint.kind {
            JointKind::Fixed
            | JointKind::Revolute { .. }
            | JointKind::Prismatic { .. }
            | JointKind::Screw { .. }
            | JointKind::Cylindrical { .. }
            | JointKind::Translational
            | JointKind::Spherical => same(false),
            JointKind::Universal { axis1, axis2 } => (
                JointKind::Universal {
                    axis1: *axis2,
                    axis2: *axis1,
                },
                true,
            ),
            JointKind::Euler { order } => (
                JointKind::Euler {
                    order: match order {
                        EulerOrder::Xyz => EulerOrder::Zyx,
                        EulerOrder::Zyx => EulerOrder::Xyz,
                    },
                },
                true,
            ),
            other => {
                return Err(ReverseError::NotReversible {
                    joint: joint.name.clone(),
                    kind: other.type_name(),
                });
            }
        };
        Ok(Self {
            kind,
            old_kind: joint.kind.clone(),
            reorder,
            anisotropic_rates: joint.kind == JointKind::Spherical,
        })
    }

    fn order<T: Clone>(&self, items: &[T]) -> Vec<T> {
        let mut items = items.to_vec();
        if self.reorder {
            items.reverse();
        }
        items
    }

    fn positions(&self, q: &[f64]) -> Vec<f64> {
        self.order(q).into_iter().map(|x| -x).collect()
    }

    /// `v' = -R(q)·v` for a spherical joint (angular velocity in the child joint frame);
    /// mirrored (and reordered) rates otherwise.
    fn rates(&self, q: &[f64], v: &[f64]) -> Vec<f64> {
        if self.old_kind == JointKind::Spherical && v.len() == 3 {
            let w = joint_motion(&self.old_kind, q).rotation * nalgebra::Vector3::new(v[0], v[1], v[2]);
            return vec![-w.x, -w.y, -w.z];
        }
        self.positions(v)
    }
}

fn has_rate_dependent_property(dof: &DofProperties) -> bool {
    dof.damping != 0.0 || dof.friction != 0.0 || !dof.velocity_limits.is_unlimited()
}

fn mirrored(dof: DofProperties) -> DofProperties {
    let flip = |l: Limits| Limits {
        lower: l.upper.map(|x| -x),
        upper: l.lower.map(|x| -x),
    };
    DofProperties {
        position_limits: flip(dof.position_limits),
        velocity_limits: flip(dof.velocity_limits),
        acceleration_limits: flip(dof.acceleration_limits),
        effort_limits: flip(dof.effort_limits),
        spring_rest_position: -dof.spring_rest_position,
        ..dof
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::kinematics::relative_pose;
    use crate::kinematics::velocity::joint_twist;
    use crate::model::BodyRef;
    use crate::model::body::Body;
    use crate::pose::Pose;
    use nalgebra::{UnitQuaternion, Vector3};

    fn model_with(kind: JointKind, q0: Vec<f64>, v0: Vec<f64>) -> Model {
        let mut m = Model::new("m");
        m.bodies.push(Body::new("a"));
        m.bodies.push(Body::new("b"));
        let mut j = Joint::new("j", kind, BodyRef::body("a"), BodyRef::body("b"));
        j.parent_frame = Pose::new(
            Vector3::new(0.1, -0.2, 0.3),
            UnitQuaternion::from_euler_angles(0.2, -0.4, 0.9),
        );
        j.child_frame = Pose::new(
            Vector3::new(-0.5, 0.0, 0.25),
            UnitQuaternion::from_euler_angles(-1.1, 0.3, 0.2),
        );
        j.q0 = q0;
        j.v0 = v0;
        m.joints.push(j);
        m
    }

    fn reversible_kinds() -> Vec<JointKind> {
        let a = Vector3::new(0.3, -0.5, 0.8);
        let b = Vector3::new(-0.6, 0.2, 0.1);
        vec![
            JointKind::Fixed,
            JointKind::Revolute { axis: a },
            JointKind::Prismatic { axis: a },
            JointKind::Screw { axis: a, pitch: 0.7 },
            JointKind::Cylindrical { axis: a },
            JointKind::Translational,
            JointKind::Universal { axis1: a, axis2: b },
            JointKind::Euler {
                order: EulerOrder::Xyz,
            },
            JointKind::Euler {
                order: EulerOrder::Zyx,
            },
            JointKind::Spherical,
        ]
    }

    fn numbers(n: usize, seed: f64) -> Vec<f64> {
        (0..n).map(|i| seed * (i as f64 + 1.0).sin()).collect()
    }

    #[test]
    fn the_reversed_joint_places_the_old_parent_where_it_was() {
        for kind in reversible_kinds() {
            let n = kind.nq();
            let mut m = model_with(kind.clone(), numbers(n, 0.7), numbers(n, 1.3));
            let before = relative_pose(&m.joints[0], &m.joints[0].q0);
            reverse_joint(&mut m, 0, "t").unwrap();
            let after = relative_pose(&m.joints[0], &m.joints[0].q0);
            let gap = (before * after).distance(&Pose::identity());
            assert!(gap < 1e-14, "{}: {gap}", kind.type_name());
        }
    }

    #[test]
    fn the_reversed_joint_moves_the_bodies_apart_at_the_same_rate() {
        for kind in reversible_kinds() {
            let n = kind.nq();
            let joint = model_with(kind.clone(), numbers(n, 0.7), numbers(n, 1.3))
                .joints
                .remove(0);
            let mut m = model_with(kind.clone(), joint.q0.clone(), joint.v0.clone());
            reverse_joint(&mut m, 0, "t").unwrap();
            let reversed = &m.joints[0];
            // Old child relative to old parent, in the old parent joint frame; the reversed
            // twist is the old parent relative to the old child, in the old child joint frame.
            let forward = joint_twist(&joint.kind, &joint.q0, &joint.v0);
            let backward = joint_twist(&reversed.kind, &reversed.q0, &reversed.v0);
            let motion = joint_motion(&joint.kind, &joint.q0);
            let expected_angular = -(motion.rotation.inverse() * forward.angular);
            let angular_gap = (backward.angular - expected_angular).norm();
            assert!(angular_gap < 1e-13, "{}: angular {angular_gap}", kind.type_name());
            // The old parent joint origin in the old child joint frame is the translation of
            // J(q)⁻¹; its rate, by finite differences, is the reversed linear velocity.
            let h = 1e-7;
            let step = |q: &[f64], v: &[f64], k: &JointKind| -> Pose {
                if *k == JointKind::Spherical {
                    let r = joint_motion(k, q).rotation
                        * UnitQuaternion::from_scaled_axis(Vector3::new(v[0], v[1], v[2]) * h);
                    Pose::from_rotation(r)
                } else {
                    let q: Vec<f64> = q.iter().zip(v).map(|(q, v)| q + v * h).collect();
                    joint_motion(k, &q)
                }
            };
            let moved = step(&joint.q0, &joint.v0, &joint.kind).inverse();
            let rate = (moved.translation - motion.inverse().translation) / h;
            let linear_gap = (backward.linear - rate).norm();
            assert!(linear_gap < 1e-5, "{}: linear {linear_gap}", kind.type_name());
        }
    }

    #[test]
    fn limits_and_rest_positions_mirror_and_universal_axes_swap() {
        let a = Vector3::x();
        let b = Vector3::y();
        let mut m = model_with(
            JointKind::Universal { axis1: a, axis2: b },
            vec![0.1, 0.2],
            vec![0.3, 0.4],
        );
        m.joints[0].dofs = vec![
            DofProperties {
                position_limits: Limits::new(-1.0, 2.0),
                spring_rest_position: 0.5,
                spring_stiffness: 3.0,
                ..Default::default()
            },
            DofProperties {
                effort_limits: Limits {
                    lower: None,
                    upper: Some(4.0),
                },
                ..Default::default()
            },
        ];
        reverse_joint(&mut m, 0, "t").unwrap();
        let j = &m.joints[0];
        assert_eq!(j.kind, JointKind::Universal { axis1: b, axis2: a });
        assert_eq!(j.q0, vec![-0.2, -0.1]);
        assert_eq!(j.v0, vec![-0.4, -0.3]);
        assert_eq!(
            j.dofs[0].effort_limits,
            Limits {
                lower: Some(-4.0),
                upper: None
            }
        );
        assert_eq!(j.dofs[1].position_limits, Limits::new(-2.0, 1.0));
        assert_eq!(j.dofs[1].spring_rest_position, -0.5);
        assert_eq!(j.dofs[1].spring_stiffness, 3.0);
    }

    #[test]
    fn joints_whose_inverse_is_not_mirrored_or_that_are_driven_are_refused() {
        let mut m = model_with(JointKind::Free, vec![0.0; 6], vec![0.0; 6]);
        assert!(matches!(
            reverse_joint(&mut m, 0, "t"),
            Err(ReverseError::NotReversible { .. })
        ));
        let mut m = model_with(JointKind::Revolute { axis: Vector3::z() }, vec![0.0], vec![0.0]);
        m.motors.push(crate::model::motor::Motor {
            name: "drive".into(),
            motor_type: crate::model::motor::MotorType::Rotation,
            actuation: crate::model::motor::MotorActuation::Speed,
            target: MotorTarget::Joint {
                joint: "j".into(),
                dof: 0,
            },
            function: crate::model::function::TimeFunction::Constant { value: 1.0 },
            extras: Default::default(),
        });
        assert!(matches!(
            reverse_joint(&mut m, 0, "t"),
            Err(ReverseError::Driven { .. })
        ));
        assert!(matches!(
            reverse_joint(&mut m, 5, "t"),
            Err(ReverseError::NoSuchJoint(5))
        ));
    }
}
