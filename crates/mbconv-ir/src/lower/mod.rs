//! Lowering passes that more than one format's `lower` step needs. Each is a pure IR -> IR
//! change that keeps the model's motion and returns a finding for every item it changed, with
//! the IR path and the format's code prefix.
//!
//! * [`bake_initial_state`]: for formats without joint coordinates (Chrono): the initial joint
//!   positions go into body poses and joint frames, the initial joint rates into body
//!   velocities, so the reference configuration becomes the initial one.
//! * [`disable_immobile_groups`]: for formats that can switch a group off but not hold its
//!   joints (Shift): an immobile group's bodies go to their initial poses and the group is
//!   disabled.
//! * [`fix_inactive_bodies`]: for formats that can fix a body but not switch it off (Chrono,
//!   SKEL, Choreonoid): switched-off bodies become fixed ones where they are.
//! * [`fit_joint_rates`]: for formats with joint coordinates but no body velocities (SKEL,
//!   Choreonoid): a tree body's initial velocity becomes its joint's rates (least squares,
//!   approximated and reported when the joint cannot move that way).
//! * [`drop_free_loop_joints`]: for formats whose loop-closing elements cannot be free joints
//!   (Choreonoid): a free joint that closes a loop constrains nothing and is left out.
//! * [`force_elements_as_joint_springs`]: for formats whose joints carry springs and dampers
//!   (SKEL, Shift, MJCF, SDFormat; URDF dampers only): an RSDA about a revolute joint's axis or a
//!   TSDA along a prismatic joint's axis, between the joint's own bodies and with a linear law,
//!   becomes that joint's spring and damper (exactly). The inverse, for formats with force
//!   elements but no joint springs, is Chrono's writer's (it needs Chrono's joint frames).
//! * [`explicit_free_joints`]: a floating body (no joint) gets an explicit free joint from the
//!   world that carries its initial velocity.
//! * [`reverse_joint`]: swaps a joint's parent and child (formats whose joints point from the
//!   root outwards), mirroring coordinates, rates, limits and springs.
//! * [`rename_body`]: renames a body and every reference to it (formats whose names are
//!   restricted or derived, such as Shift's and the links MJCF's reader names);
//!   [`rename_bodies`] renames several at once, swaps included (Shift's and SDFormat's names).
//! * [`move_body_frame`]: puts a body's frame elsewhere on the body (formats that fix where a
//!   body frame sits, such as Choreonoid's link frame on the joint axis), re-expressing
//!   everything attached to it.
//! * [`separate_jointed_shapes`]: for formats whose simulator checks contact between jointed
//!   bodies (Chrono): the collision shapes that make a jointed pair touch at the start stop
//!   colliding (or stay, reported), when the model's simulator filters such pairs;
//!   [`filter_jointed_contact`], the other way, reports the pairs that touch for formats whose
//!   simulator filters them.
//! * [`reorient`]: turns the whole model about the world origin (gravity down another axis,
//!   for targets whose gravity is fixed by convention); the model moves as before, turned.
//! * [`lump_unphysical_inertias`]: for formats whose loaders refuse or repair an inertia that
//!   breaks the triangle inequality (MJCF, SDFormat): where the rigid assembly a link is welded
//!   into by fixed joints holds it, the assembly's mass goes onto one link and the others are
//!   massless (exactly).
//!
//! This module is not a writer: it knows nothing about any format's syntax, only which IR
//! items a format cannot say.

mod body_frame;
mod free_loops;
mod inactive;
mod initial_state;
mod joint_rates;
mod joint_springs;
mod jointed_contact;
mod rename;
mod reorient;
mod reverse;
mod welded_mass;

pub use body_frame::{move_body_frame, move_body_frames};
pub use free_loops::drop_free_loop_joints;
pub use inactive::fix_inactive_bodies;
pub use initial_state::{bake_initial_state, disable_immobile_groups};
pub use joint_rates::{FIT_TOLERANCE, explicit_free_joints, fit_joint_rates};
pub use joint_springs::{JointSpringSupport, force_elements_as_joint_springs};
pub use jointed_contact::{
    TOUCH_GAP, TouchingShapes, colliding_jointed_joints, filter_jointed_contact, has_collision_shapes,
    separate_jointed_shapes,
};
pub use rename::{rename_bodies, rename_body};
pub use reorient::{OLD_WORLD_FRAME, UpAxis, reorient, rotation_to_up, turn_hint};
pub use reverse::{ReverseError, reverse_joint};
pub use welded_mass::{WELD_TRIANGLE_SLACK, lump_unphysical_inertias};

use crate::format::support::Feature;
use crate::report::{Category, Finding, Severity};

pub(crate) fn is_nonzero(values: &[f64]) -> bool {
    values.iter().any(|x| *x != 0.0)
}

pub(crate) fn note(format: &str, what: &str, feature: Feature, at: &str, message: &str) -> Finding {
    Finding::new(
        format!("{format}.{what}"),
        Severity::Info,
        Category::Note,
        message,
    )
    .for_feature(feature)
    .at(at)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::kinematics::velocity::initial_twists;
    use crate::kinematics::{Configuration, SpanningTree, world_poses};
    use crate::model::body::{Body, Twist};
    use crate::model::joint::{DofProperties, EulerOrder, Joint, JointKind, Limits};
    use crate::model::{BodyRef, Model};
    use crate::pose::Pose;
    use nalgebra::{UnitQuaternion, Vector3};

    /// A chain from the world through one joint of every kind whose state the passes move,
    /// with non-zero initial positions and rates, plus a floating body.
    fn chain() -> Model {
        let kinds = [
            JointKind::Revolute {
                axis: Vector3::new(0.0, 0.6, 0.8),
            },
            JointKind::Universal {
                axis1: Vector3::x(),
                axis2: Vector3::new(0.0, 1.0, 1.0),
            },
            JointKind::Spherical,
            JointKind::Euler {
                order: EulerOrder::Zyx,
            },
            JointKind::Cylindrical { axis: Vector3::z() },
            JointKind::Planar {
                axis1: Vector3::x(),
                axis2: Vector3::y(),
            },
            JointKind::Free,
        ];
        let mut m = Model::new("chain");
        let mut parent = BodyRef::World;
        for (i, kind) in kinds.into_iter().enumerate() {
            let name = format!("link{i}");
            let mut body = Body::new(&name);
            body.inertial.mass = 1.0;
            m.bodies.push(body);
            let n = kind.nq();
            let mut j = Joint::new(format!("j{i}"), kind, parent.clone(), BodyRef::body(&name));
            j.parent_frame = Pose::new(
                Vector3::new(0.1 * i as f64, 0.2, -0.3),
                UnitQuaternion::from_euler_angles(0.3, -0.2, 0.1 * i as f64),
            );
            j.child_frame = Pose::new(
                Vector3::new(0.0, 0.0, 0.4),
                UnitQuaternion::from_euler_angles(-0.1, 0.5, 0.2),
            );
            j.q0 = (0..n).map(|k| 0.3 + 0.1 * (k + i) as f64).collect();
            j.v0 = (0..n).map(|k| 1.0 - 0.35 * (k + 2 * i) as f64).collect();
            j.dofs = vec![
                DofProperties {
                    position_limits: Limits::new(-2.0, 2.0),
                    ..Default::default()
                };
                if i == 0 { n } else { 0 }
            ];
            m.joints.push(j);
            parent = BodyRef::body(&name);
        }
        let mut ball = Body::new("ball");
        ball.pose = Pose::from_translation(Vector3::new(0.0, 0.0, 3.0));
        ball.initial_velocity = Some(Twist {
            linear: Vector3::new(1.0, 2.0, 0.0),
            angular: Vector3::new(0.0, 0.5, 0.0),
        });
        m.bodies.push(ball);
        m
    }

    fn state(m: &Model) -> (Vec<Pose>, Vec<Twist>) {
        let tree = SpanningTree::new(m);
        let poses = world_poses(m, &tree, Configuration::Initial);
        let twists = initial_twists(m, &tree, &poses);
        (poses, twists)
    }

    fn assert_same_state(a: &(Vec<Pose>, Vec<Twist>), b: &(Vec<Pose>, Vec<Twist>)) {
        for (i, (pa, pb)) in a.0.iter().zip(&b.0).enumerate() {
            assert!(pa.distance(pb) < 1e-12, "pose of body {i}: {}", pa.distance(pb));
        }
        for (i, (ta, tb)) in a.1.iter().zip(&b.1).enumerate() {
            let gap = (ta.linear - tb.linear).norm() + (ta.angular - tb.angular).norm();
            assert!(gap < 1e-12, "twist of body {i}: {gap}");
        }
    }

    #[test]
    fn baking_keeps_every_body_where_and_how_it_starts() {
        let original = chain();
        let mut baked = original.clone();
        let findings = bake_initial_state(&mut baked, "t");
        assert!(
            baked
                .joints
                .iter()
                .all(|j| !is_nonzero(&j.q0) && !is_nonzero(&j.v0))
        );
        let tree = SpanningTree::new(&baked);
        let poses = world_poses(&baked, &tree, Configuration::Reference);
        let (want_poses, want_twists) = state(&original);
        for (b, body) in baked.bodies.iter().enumerate() {
            assert!(body.pose.distance(&want_poses[b]) < 1e-12, "stored pose {b}");
            assert!(poses[b].distance(&want_poses[b]) < 1e-12, "reference pose {b}");
            let twist = body.initial_velocity.unwrap_or_default();
            let gap = (twist.linear - want_twists[b].linear).norm()
                + (twist.angular - want_twists[b].angular).norm();
            assert!(gap < 1e-12, "velocity {b}: {gap}");
        }
        // Separable joints shift their limits; the planar joint has no limits, so only notes.
        assert_eq!(baked.joints[0].dofs[0].position_limits, Limits::new(-2.3, 1.7));
        assert!(findings.iter().all(|f| !f.category.is_loss()));
    }

    #[test]
    fn fitted_rates_give_back_the_baked_velocities() {
        let original = chain();
        let mut lowered = original.clone();
        bake_initial_state(&mut lowered, "t");
        let findings = fit_joint_rates(&mut lowered, "t");
        assert!(findings.iter().all(|f| !f.category.is_loss()), "{findings:?}");
        explicit_free_joints(&mut lowered, "t");
        assert!(lowered.bodies.iter().all(|b| b.initial_velocity.is_none()));
        assert_same_state(&state(&original), &state(&lowered));
    }

    #[test]
    fn a_velocity_the_joint_cannot_give_is_approximated_and_reported() {
        let mut m = Model::new("m");
        let mut wheel = Body::new("wheel");
        wheel.initial_velocity = Some(Twist {
            linear: Vector3::new(1.0, 0.0, 0.0),
            angular: Vector3::new(0.0, 0.0, 2.0),
        });
        m.bodies.push(wheel);
        m.joints.push(Joint::new(
            "axle",
            JointKind::Revolute { axis: Vector3::z() },
            BodyRef::World,
            BodyRef::body("wheel"),
        ));
        let findings = fit_joint_rates(&mut m, "t");
        assert!((m.joints[0].v0[0] - 2.0).abs() < 1e-14);
        assert!(
            findings
                .iter()
                .any(|f| f.code == "t.velocity_fit" && f.category == Category::Approximated)
        );
    }
}
