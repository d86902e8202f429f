//! Velocity kinematics: the relative twist a joint's rates give ([`joint_twist`]) and the
//! world twists of every body at the initial state ([`initial_twists`]).
//!
//! A twist here is a [`Twist`]: angular velocity and the velocity of one named point (the body
//! frame's origin for bodies, the child joint frame's origin for joints), the convention of
//! `Body::initial_velocity`.

use super::{Attachment, SpanningTree, joint_motion};
use crate::model::Model;
use crate::model::body::Twist;
use crate::model::joint::{EulerOrder, Joint, JointKind};
use crate::pose::Pose;
use crate::rotation::unit_vector;
use nalgebra::{UnitQuaternion, Vector3};

/// The motion of the child joint frame relative to the parent joint frame at coordinates `q`
/// and rates `v`: angular velocity and velocity of the child joint frame's origin, both in
/// parent-joint-frame coordinates (the rate conventions are those of [`JointKind`]).
///
/// ```
/// use mbconv_ir::{kinematics::velocity::joint_twist, JointKind};
/// use nalgebra::Vector3;
/// let t = joint_twist(&JointKind::Revolute { axis: Vector3::z() }, &[0.3], &[2.0]);
/// assert_eq!(t.angular, Vector3::new(0.0, 0.0, 2.0));
/// assert_eq!(t.linear, Vector3::zeros());
/// ```
pub fn joint_twist(kind: &JointKind, q: &[f64], v: &[f64]) -> Twist {
    let rate = |i: usize| v.get(i).copied().unwrap_or(0.0);
    let vec3 = |i: usize| Vector3::new(rate(i), rate(i + 1), rate(i + 2));
    let axis = |a: &Vector3<f64>| unit_vector(a).unwrap_or_else(Vector3::zeros);
    let rotation = || joint_motion(kind, q).rotation;
    let (angular, linear) = match kind {
        JointKind::Fixed | JointKind::PseudoContinuousTrack { .. } => (Vector3::zeros(), Vector3::zeros()),
        JointKind::Revolute { axis: a } => (axis(a) * rate(0), Vector3::zeros()),
        JointKind::Prismatic { axis: a } => (Vector3::zeros(), axis(a) * rate(0)),
        JointKind::Screw { axis: a, pitch } => (
            axis(a) * rate(0),
            axis(a) * (rate(0) * pitch / (2.0 * std::f64::consts::PI)),
        ),
        JointKind::Universal { axis1, axis2 } => {
            let first = about(&axis(axis1), q.first().copied().unwrap_or(0.0));
            (
                axis(axis1) * rate(0) + first * axis(axis2) * rate(1),
                Vector3::zeros(),
            )
        }
        JointKind::Spherical => (rotation() * vec3(0), Vector3::zeros()),
        JointKind::Euler { order } => (euler_rate(*order, q, v), Vector3::zeros()),
        JointKind::Cylindrical { axis: a } => (axis(a) * rate(1), axis(a) * rate(0)),
        JointKind::Planar { axis1, axis2 } => (
            axis(&axis1.cross(axis2)) * rate(2),
            axis(axis1) * rate(0) + axis(axis2) * rate(1),
        ),
        JointKind::Translational => (Vector3::zeros(), vec3(0)),
        JointKind::Free => (vec3(3), vec3(0)),
        JointKind::PointLine => (rotation() * vec3(1), Vector3::x() * rate(0)),
        JointKind::PointPlane => (
            rotation() * vec3(2),
            Vector3::x() * rate(0) + Vector3::y() * rate(1),
        ),
    };
    Twist { linear, angular }
}

/// `ω = e₁q̇₁ + R₁e₂q̇₂ + R₁R₂e₃q̇₃` for the euler joint's rotation sequence.
fn euler_rate(order: EulerOrder, q: &[f64], v: &[f64]) -> Vector3<f64> {
    let at = |s: &[f64], i: usize| s.get(i).copied().unwrap_or(0.0);
    let axes: [Vector3<f64>; 3] = match order {
        EulerOrder::Xyz => [Vector3::x(), Vector3::y(), Vector3::z()],
        EulerOrder::Zyx => [Vector3::z(), Vector3::y(), Vector3::x()],
    };
    let mut turned = UnitQuaternion::identity();
    let mut omega = Vector3::zeros();
    for (i, axis) in axes.iter().enumerate() {
        omega += turned * axis * at(v, i);
        turned *= about(axis, at(q, i));
    }
    omega
}

fn about(axis: &Vector3<f64>, angle: f64) -> UnitQuaternion<f64> {
    UnitQuaternion::from_scaled_axis(axis * angle)
}

/// The world twist of a body moving with `parent_twist` (a body whose frame origin is at
/// `parent_origin`) plus a relative motion `relative` (world coordinates, velocity of the
/// world point `at`), taken at the world point `origin`.
fn compose(
    parent_twist: &Twist,
    parent_origin: &Vector3<f64>,
    relative: &Twist,
    at: &Vector3<f64>,
    origin: &Vector3<f64>,
) -> Twist {
    let angular = parent_twist.angular + relative.angular;
    let linear = parent_twist.linear
        + parent_twist.angular.cross(&(origin - parent_origin))
        + relative.linear
        + relative.angular.cross(&(origin - at));
    Twist { linear, angular }
}

/// The twist of a joint's child joint frame relative to its parent joint frame, in world
/// coordinates, with the world position of the child joint frame's origin.
///
/// `parent_pose` is the world pose of the joint's parent body (identity for the world).
pub fn joint_world_twist(joint: &Joint, parent_pose: &Pose) -> (Twist, Vector3<f64>) {
    let parent_joint_frame = *parent_pose * joint.parent_frame;
    let relative = joint_twist(&joint.kind, &joint.q0, &joint.v0);
    let child_origin = (parent_joint_frame * joint_motion(&joint.kind, &joint.q0)).translation;
    let r = parent_joint_frame.rotation;
    (
        Twist {
            linear: r * relative.linear,
            angular: r * relative.angular,
        },
        child_origin,
    )
}

/// The world twist of tree body `b` moved by `joint` (with its `q0` and `v0`; `reversed` when
/// `b` is the joint's parent side) from its tree parent `parent` (`None`: the world), given the
/// initial world poses and the twists of the bodies before it in tree order.
pub(crate) fn jointed_twist(
    joint: &Joint,
    reversed: bool,
    parent: Option<usize>,
    b: usize,
    poses: &[Pose],
    twists: &[Twist],
) -> Twist {
    let (tree_parent_twist, tree_parent_origin) = match parent {
        Some(p) => (twists[p], poses[p].translation),
        None => (Twist::default(), Vector3::zeros()),
    };
    // The joint's own parent body is the tree parent, or this body when reversed.
    let joint_parent_pose = if reversed {
        poses[b]
    } else {
        parent.map_or_else(Pose::identity, |p| poses[p])
    };
    let (relative, at) = joint_world_twist(joint, &joint_parent_pose);
    let sign = if reversed { -1.0 } else { 1.0 };
    let relative = Twist {
        linear: relative.linear * sign,
        angular: relative.angular * sign,
    };
    compose(
        &tree_parent_twist,
        &tree_parent_origin,
        &relative,
        &at,
        &poses[b].translation,
    )
}

/// World twists (angular velocity and velocity of the body-frame origin) of every body at the
/// initial state, from the tree joints' `q0` and `v0`. `poses` are the world poses at the
/// initial state (`world_poses(model, tree, Configuration::Initial)`). Fixed bodies are at
/// rest; a floating body moves with its own `initial_velocity` (zero when it has none). A
/// tree body's own `initial_velocity` is not used: it is what the solver fits joint rates to.
///
/// ```
/// use mbconv_ir::kinematics::{velocity::initial_twists, world_poses, Configuration, SpanningTree};
/// use mbconv_ir::{Body, BodyRef, Joint, JointKind, Model, Pose};
/// use nalgebra::Vector3;
/// let mut m = Model::new("pendulum");
/// let mut bob = Body::new("bob");
/// bob.pose = Pose::from_translation(Vector3::new(0.0, 0.0, -1.0));
/// m.bodies.push(bob);
/// let mut j = Joint::new("pivot", JointKind::Revolute { axis: Vector3::y() }, BodyRef::World, BodyRef::body("bob"));
/// j.child_frame = Pose::from_translation(Vector3::new(0.0, 0.0, 1.0));
/// j.v0 = vec![2.0];
/// m.joints.push(j);
/// let tree = SpanningTree::new(&m);
/// let poses = world_poses(&m, &tree, Configuration::Initial);
/// let twists = initial_twists(&m, &tree, &poses);
/// assert!((twists[0].linear - Vector3::new(-2.0, 0.0, 0.0)).norm() < 1e-15);
/// ```
pub fn initial_twists(model: &Model, tree: &SpanningTree, poses: &[Pose]) -> Vec<Twist> {
    let rest = Twist::default();
    let mut twists = vec![rest; model.bodies.len()];
    for &b in &tree.order {
        twists[b] = match &tree.attachments[b] {
            Attachment::Fixed => rest,
            Attachment::Floating => model.bodies[b].initial_velocity.unwrap_or(rest),
            Attachment::Joint {
                joint,
                parent,
                reversed,
            } => jointed_twist(&model.joints[*joint], *reversed, *parent, b, poses, &twists),
        };
    }
    twists
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::kinematics::{Configuration, world_poses};
    use crate::model::BodyRef;
    use crate::model::body::Body;

    /// Finite-difference angular velocity `Ṙ·Rᵀ` and origin velocity of `J(q + t·v)`, for
    /// joint types whose rates are the derivatives of their coordinates.
    fn numeric(kind: &JointKind, q: &[f64], v: &[f64]) -> Twist {
        let h = 1e-6;
        let at = |s: f64| {
            let qs: Vec<f64> = q.iter().zip(v).map(|(a, b)| a + s * b).collect();
            joint_motion(kind, &qs)
        };
        let (plus, minus) = (at(h), at(-h));
        let linear = (plus.translation - minus.translation) / (2.0 * h);
        let d = (plus.rotation * minus.rotation.inverse()).scaled_axis() / (2.0 * h);
        Twist { linear, angular: d }
    }

    #[test]
    fn rates_match_finite_differences_of_the_joint_motion() {
        let q = [0.3, -0.7, 1.1];
        let v = [0.9, 1.7, -2.3];
        let skew = Vector3::new(0.2, -0.5, 0.8);
        let kinds = [
            JointKind::Revolute { axis: skew },
            JointKind::Prismatic { axis: skew },
            JointKind::Screw {
                axis: skew,
                pitch: 0.3,
            },
            JointKind::Universal {
                axis1: skew,
                axis2: Vector3::new(0.1, 1.0, 0.0),
            },
            JointKind::Euler {
                order: EulerOrder::Xyz,
            },
            JointKind::Euler {
                order: EulerOrder::Zyx,
            },
            JointKind::Cylindrical { axis: skew },
            JointKind::Planar {
                axis1: Vector3::new(1.0, 0.2, 0.0),
                axis2: Vector3::new(0.0, 1.0, 0.3),
            },
            JointKind::Translational,
        ];
        for kind in kinds {
            let n = kind.nq();
            let exact = joint_twist(&kind, &q[..n], &v[..n]);
            let approx = numeric(&kind, &q[..n], &v[..n]);
            assert!(
                (exact.angular - approx.angular).norm() < 1e-8,
                "{kind:?}: {exact:?} vs {approx:?}"
            );
            assert!(
                (exact.linear - approx.linear).norm() < 1e-8,
                "{kind:?}: {exact:?} vs {approx:?}"
            );
        }
    }

    #[test]
    fn spherical_rates_are_child_frame_angular_velocity() {
        let q = [0.4, -0.2, 0.9];
        let w = [1.0, 2.0, 3.0];
        let t = joint_twist(&JointKind::Spherical, &q, &w);
        let r = joint_motion(&JointKind::Spherical, &q).rotation;
        assert!((t.angular - r * Vector3::from(w)).norm() < 1e-15);
    }

    #[test]
    fn a_reversed_joint_gives_the_same_relative_motion() {
        // Two bodies joined by a revolute; the joint's parent is attached to the world by a
        // prismatic so that the tree meets the revolute from its child side.
        let mut m = Model::new("m");
        let mut a = Body::new("a");
        a.pose = Pose::from_translation(Vector3::new(1.0, 0.0, 0.0));
        m.bodies = vec![a, Body::new("b")];
        let mut slide = Joint::new(
            "slide",
            JointKind::Prismatic { axis: Vector3::x() },
            BodyRef::World,
            BodyRef::body("b"),
        );
        slide.v0 = vec![0.5];
        let mut hinge = Joint::new(
            "hinge",
            JointKind::Revolute { axis: Vector3::z() },
            BodyRef::body("a"),
            BodyRef::body("b"),
        );
        hinge.parent_frame = Pose::from_translation(Vector3::new(-1.0, 0.0, 0.0));
        hinge.q0 = vec![0.3];
        hinge.v0 = vec![2.0];
        m.joints = vec![slide, hinge];
        let tree = SpanningTree::new(&m);
        assert!(matches!(
            tree.attachments[0],
            Attachment::Joint { reversed: true, .. }
        ));
        let poses = world_poses(&m, &tree, Configuration::Initial);
        let twists = initial_twists(&m, &tree, &poses);
        // b slides at 0.5 along x; a turns at -2 about z relative to b, about b's origin.
        assert!((twists[1].linear - Vector3::new(0.5, 0.0, 0.0)).norm() < 1e-15);
        assert!((twists[0].angular - Vector3::new(0.0, 0.0, -2.0)).norm() < 1e-15);
        let lever = poses[0].translation - poses[1].translation;
        let expected = Vector3::new(0.5, 0.0, 0.0) + Vector3::new(0.0, 0.0, -2.0).cross(&lever);
        assert!((twists[0].linear - expected).norm() < 1e-14);
    }
}
