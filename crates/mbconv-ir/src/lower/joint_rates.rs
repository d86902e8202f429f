//! Body velocities as joint rates: fitted rates for tree bodies, explicit free joints for
//! floating ones.

use super::note;
use crate::format::support::Feature;
use crate::kinematics::velocity::jointed_twist;
use crate::kinematics::{Attachment, Configuration, SpanningTree, world_poses};
use crate::model::body::Twist;
use crate::model::joint::{Joint, JointKind};
use crate::model::{BodyRef, Model};
use crate::pose::Pose;
use crate::report::{Category, Finding, Severity, path};
use nalgebra::{DMatrix, DVector};

/// Relative tolerance under which a fitted velocity counts as met exactly.
pub const FIT_TOLERANCE: f64 = 1e-9;

/// Turns the initial velocities of tree bodies into their joints' rates (`v0`), body by body
/// from the root, and clears them. The rates are the least-squares fit of the joint's motion to
/// the body's twist given its tree parent's; when the joint cannot move the body that way (a
/// residual above [`FIT_TOLERANCE`] of the twist) the finding says `approximated` and how far
/// off it is. Floating and fixed bodies keep theirs.
///
/// ```
/// use mbconv_ir::{lower::fit_joint_rates, Body, BodyRef, Joint, JointKind, Model, Twist};
/// use nalgebra::Vector3;
/// let mut m = Model::new("spinner");
/// let mut wheel = Body::new("wheel");
/// wheel.initial_velocity = Some(Twist { linear: Vector3::zeros(), angular: Vector3::new(0.0, 0.0, 3.0) });
/// m.bodies.push(wheel);
/// m.joints.push(Joint::new("axle", JointKind::Revolute { axis: Vector3::z() }, BodyRef::World, BodyRef::body("wheel")));
/// let findings = fit_joint_rates(&mut m, "skel");
/// assert!((m.joints[0].v0[0] - 3.0).abs() < 1e-15);
/// assert!(m.bodies[0].initial_velocity.is_none());
/// assert!(findings.iter().all(|f| !f.category.is_loss()));
/// ```
pub fn fit_joint_rates(model: &mut Model, format: &str) -> Vec<Finding> {
    let tree = SpanningTree::new(model);
    let wanted = |b: usize| {
        matches!(tree.attachments[b], Attachment::Joint { .. }) && model.bodies[b].initial_velocity.is_some()
    };
    if !(0..model.bodies.len()).any(wanted) {
        return Vec::new();
    }
    let poses = world_poses(model, &tree, Configuration::Initial);
    let mut twists = vec![Twist::default(); model.bodies.len()];
    let mut findings = Vec::new();
    for &b in &tree.order {
        let Attachment::Joint {
            joint,
            parent,
            reversed,
        } = tree.attachments[b]
        else {
            twists[b] = match tree.attachments[b] {
                Attachment::Floating => model.bodies[b].initial_velocity.unwrap_or_default(),
                _ => Twist::default(),
            };
            continue;
        };
        if let Some(target) = model.bodies[b].initial_velocity.take() {
            let fit = fit_one(
                &model.joints[joint],
                reversed,
                parent,
                b,
                &poses,
                &twists,
                &target,
            );
            let at = path::item("bodies", &model.bodies[b].name);
            findings.push(fit.finding(format, &at, &model.joints[joint].name));
            model.joints[joint].v0 = fit.rates;
        }
        twists[b] = jointed_twist(&model.joints[joint], reversed, parent, b, &poses, &twists);
    }
    findings
}

/// Joint rates fitted to a body twist, and how far off they are.
struct Fit {
    rates: Vec<f64>,
    residual: f64,
    scale: f64,
}

impl Fit {
    fn finding(&self, format: &str, at: &str, joint: &str) -> Finding {
        if self.residual > FIT_TOLERANCE * self.scale.max(f64::MIN_POSITIVE) {
            Finding::new(
                format!("{format}.velocity_fit"),
                Severity::Warning,
                Category::Approximated,
                format!(
                    "the body's initial velocity is written as the rates of joint {joint:?} that come closest (the joint cannot move the body that way; {:.3e} off in the twist)",
                    self.residual
                ),
            )
            .for_feature(Feature::InitialBodyVelocities)
            .at(at)
        } else {
            note(
                format,
                "velocity_fit",
                Feature::InitialBodyVelocities,
                at,
                &format!("the body's initial velocity is written as the rates of joint {joint:?} (exactly)"),
            )
        }
    }
}

/// The least-squares rates of `joint` that give body `b` the world twist `target`.
fn fit_one(
    joint: &Joint,
    reversed: bool,
    parent: Option<usize>,
    b: usize,
    poses: &[Pose],
    twists: &[Twist],
    target: &Twist,
) -> Fit {
    let nv = joint.kind.nv();
    let mut trial = joint.clone();
    let twist_with = |trial: &mut Joint, rates: Vec<f64>| {
        trial.v0 = rates;
        jointed_twist(trial, reversed, parent, b, poses, twists)
    };
    let base = twist_with(&mut trial, vec![0.0; nv]);
    let mut columns = DMatrix::zeros(6, nv);
    for i in 0..nv {
        let t = twist_with(&mut trial, unit_rate(nv, i));
        columns
            .fixed_view_mut::<3, 1>(0, i)
            .copy_from(&(t.angular - base.angular));
        columns
            .fixed_view_mut::<3, 1>(3, i)
            .copy_from(&(t.linear - base.linear));
    }
    let wanted = DVector::from_iterator(
        6,
        (target.angular - base.angular)
            .iter()
            .chain((target.linear - base.linear).iter())
            .copied(),
    );
    let rates = least_squares(&columns, &wanted);
    Fit {
        residual: (&columns * &rates - &wanted).norm(),
        scale: target.angular.norm() + target.linear.norm() + base.angular.norm() + base.linear.norm(),
        rates: rates.iter().copied().collect(),
    }
}

fn unit_rate(n: usize, i: usize) -> Vec<f64> {
    let mut v = vec![0.0; n];
    v[i] = 1.0;
    v
}

/// The minimum-norm least-squares solution of `a·x = b`.
fn least_squares(a: &DMatrix<f64>, b: &DVector<f64>) -> DVector<f64> {
    // A joint without velocity coordinates (a weld) has no rates to fit; nalgebra panics on
    // the SVD of an empty matrix (found by `cargo xtask fuzz`).
    if a.is_empty() {
        return DVector::zeros(a.ncols());
    }
    let svd = a.clone().svd(true, true);
    svd.solve(b, 1e-12).unwrap_or_else(|_| DVector::zeros(a.ncols()))
}

/// Gives every floating body (no joint to the world or to another body) an explicit free joint
/// from the world at its pose, carrying its initial velocity as the joint's rates
/// (`[v, ω]` of the body frame, in the body's initial frame). Names are `<body>_free_joint`
/// (made unique). Returns the findings (notes: the motion is the same).
///
/// ```
/// use mbconv_ir::{lower::explicit_free_joints, Body, JointKind, Model, Twist};
/// use nalgebra::Vector3;
/// let mut m = Model::new("throw");
/// let mut ball = Body::new("ball");
/// ball.initial_velocity = Some(Twist { linear: Vector3::new(1.0, 0.0, 2.0), angular: Vector3::zeros() });
/// m.bodies.push(ball);
/// explicit_free_joints(&mut m, "skel");
/// assert_eq!(m.joints[0].kind, JointKind::Free);
/// assert_eq!(m.joints[0].v0, vec![1.0, 0.0, 2.0, 0.0, 0.0, 0.0]);
/// assert!(m.bodies[0].initial_velocity.is_none());
/// ```
pub fn explicit_free_joints(model: &mut Model, format: &str) -> Vec<Finding> {
    let tree = SpanningTree::new(model);
    let mut findings = Vec::new();
    for b in 0..model.bodies.len() {
        if tree.attachments[b] != Attachment::Floating {
            continue;
        }
        let body = &mut model.bodies[b];
        let mut name = format!("{}_free_joint", body.name);
        while model.joints.iter().any(|j| j.name == name) {
            name.push('_');
        }
        let body = &mut model.bodies[b];
        let mut joint = Joint::new(name, JointKind::Free, BodyRef::World, BodyRef::body(&body.name));
        joint.parent_frame = body.pose;
        joint.q0 = vec![0.0; 6];
        let twist = body.initial_velocity.take().unwrap_or_default();
        let to_frame = body.pose.rotation.inverse();
        let (v, w) = (to_frame * twist.linear, to_frame * twist.angular);
        joint.v0 = vec![v.x, v.y, v.z, w.x, w.y, w.z];
        findings.push(note(
            format,
            "free_joint",
            Feature::FreeJoint,
            &path::item("bodies", &body.name),
            &format!(
                "the floating body is attached to the world by an added free joint {:?} that carries its initial velocity",
                joint.name
            ),
        ));
        model.joints.push(joint);
    }
    findings
}
