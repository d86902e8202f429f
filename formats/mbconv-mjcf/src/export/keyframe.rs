//! The initial velocities of a lowered model as MuJoCo's generalized velocities: the `qvel` of
//! the keyframe [`INITIAL_KEY`] the writer adds when the model does not start at rest.
//!
//! The lowering bakes initial positions into the written configuration (qpos0, MuJoCo's state
//! at load) and leaves every initial velocity on the bodies ([`mbconv_ir::Body::initial_velocity`],
//! world twists at the body origin). MuJoCo starts at rest at load; a keyframe is MJCF's only
//! place for velocities, applied by `mj_resetDataKeyframe`. Per written body, the twist relative
//! to its MJCF parent is spread over the body's degrees of freedom, in MuJoCo's conventions at
//! qpos0: a hinge or slide rate along its world axis; a ball joint's angular velocity in body
//! axes; a free joint's linear velocity of the body origin in world axes, then its angular
//! velocity in body axes. Where the body's joints cannot make the twist exactly (the IR gave
//! a tree body a velocity its joints do not allow), the least-squares rates are written, as
//! mbconv's solver fits them.

use super::{Plan, joint_frames};
use mbconv_ir::kinematics::velocity::initial_twists;
use mbconv_ir::kinematics::{Configuration, world_poses};
use mbconv_ir::model::body::Twist;
use mbconv_ir::{JointKind, Model};
use nalgebra::{DMatrix, DVector, Vector3};

/// The name of the keyframe that holds the initial state.
pub(crate) const INITIAL_KEY: &str = "initial";

/// Every written degree of freedom's initial rate, in MuJoCo's order (bodies depth first in
/// the written order, each body's joints in order), or `None` when all are zero.
pub(crate) fn initial_qvel(model: &Model, plan: &Plan) -> Option<Vec<f64>> {
    let poses = world_poses(model, &plan.tree, Configuration::Initial);
    let from_joints = initial_twists(model, &plan.tree, &poses);
    let twists: Vec<Twist> = model
        .bodies
        .iter()
        .zip(&from_joints)
        .map(|(b, t)| b.initial_velocity.unwrap_or(*t))
        .collect();
    let mut qvel = Vec::new();
    let n = model.bodies.len();
    let mut stack: Vec<usize> = plan.children[n].iter().rev().copied().collect();
    while let Some(b) = stack.pop() {
        qvel.extend(body_rates(model, plan, b, &poses, &twists));
        stack.extend(plan.children[b].iter().rev());
    }
    qvel.iter().any(|v| *v != 0.0).then_some(qvel)
}

/// The rates of body `b`'s written joints that give it its twist relative to its MJCF parent.
fn body_rates(model: &Model, plan: &Plan, b: usize, poses: &[mbconv_ir::Pose], twists: &[Twist]) -> Vec<f64> {
    let pose = poses[b];
    let origin = pose.translation;
    let chain = &plan.chain[b];
    let frames = joint_frames(model, chain);
    // Columns (angular; linear velocity of the body origin), world axes.
    let mut columns: Vec<(Vector3<f64>, Vector3<f64>)> = Vec::new();
    for (&j, frame) in chain.iter().zip(&frames) {
        let joint = &model.joints[j];
        let world = pose * *frame;
        let at = world.translation;
        match &joint.kind {
            JointKind::Revolute { axis } => {
                let a = world.rotation * axis.normalize();
                columns.push((a, a.cross(&(origin - at))));
            }
            JointKind::Prismatic { axis } => {
                columns.push((Vector3::zeros(), world.rotation * axis.normalize()));
            }
            JointKind::Spherical => {
                for e in [Vector3::x(), Vector3::y(), Vector3::z()] {
                    let w = pose.rotation * e;
                    columns.push((w, w.cross(&(origin - at))));
                }
            }
            JointKind::Free => {
                for e in [Vector3::x(), Vector3::y(), Vector3::z()] {
                    columns.push((Vector3::zeros(), e));
                }
                for e in [Vector3::x(), Vector3::y(), Vector3::z()] {
                    columns.push((pose.rotation * e, Vector3::zeros()));
                }
            }
            _ => {}
        }
    }
    if columns.is_empty() {
        return Vec::new();
    }
    let own = twists[b];
    let (parent_angular, parent_linear) = match plan.parent[b] {
        Some(p) => {
            let t = twists[p];
            (
                t.angular,
                t.linear + t.angular.cross(&(origin - poses[p].translation)),
            )
        }
        None => (Vector3::zeros(), Vector3::zeros()),
    };
    let angular = own.angular - parent_angular;
    let linear = own.linear - parent_linear;
    let jacobian = DMatrix::from_fn(6, columns.len(), |r, c| {
        if r < 3 {
            columns[c].0[r]
        } else {
            columns[c].1[r - 3]
        }
    });
    let target = DVector::from_iterator(6, angular.iter().chain(linear.iter()).copied());
    if target.iter().all(|x| *x == 0.0) {
        return vec![0.0; columns.len()];
    }
    let svd = jacobian.svd(true, true);
    match svd.solve(&target, 1e-12) {
        Ok(rates) => rates.iter().copied().collect(),
        Err(_) => vec![0.0; columns.len()],
    }
}
