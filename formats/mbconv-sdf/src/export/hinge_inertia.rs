//! Pass `hinge_inertia`: a moving link that Drake cannot simulate gets a mass floor.
//!
//! Drake runs the articulated-body algorithm and factors, for every mobilizer, the
//! articulated body's inertia seen through the joint's freedoms (`D = Sᵀ P S`, `P` the link's
//! spatial inertia with the articulated inertias of the links outboard of it); where that
//! matrix is not positive definite it stops the simulation ("An internal mass matrix
//! associated with the joint that connects body X to body Y is not positive-definite"). Loading
//! succeeds: only a simulation (or any forward dynamics) fails. A link with no mass and no
//! inertia at the end of a chain does that (example-robot-data's Romeo: 24 finger links of mass
//! 0 moved by revolute joints), and so does a massless link of a joint chain whose next joint
//! turns about the same axis (a MuJoCo body with two parallel hinges).
//!
//! This pass computes `D` for every tree joint as Drake does (spatial inertias in world axes at
//! the written poses; a singular direction of an outboard joint transmits nothing, as its
//! pseudo-inverse), and where `D` is singular, scaled by the same quadratic form of the rigid
//! composite of the link and its outboard links (so that round-off of the projection counts as
//! zero, whatever the units), the link gets [`MASS_FLOOR`] of mass where it has less, and
//! [`MASS_FLOOR`] about every axis where its smallest principal moment is less: each such link
//! an `approximated` finding `sdf.moving_body_mass_floor` (MJCF's writer does the same for
//! MuJoCo, which refuses any moving body without mass). Links Drake simulates as written keep
//! their mass properties, massless links of joint chains included.

use mbconv_ir::format::kit::LowerSession;
use mbconv_ir::format::support::Feature;
use mbconv_ir::kinematics::velocity::joint_twist;
use mbconv_ir::kinematics::{Attachment, Configuration, SpanningTree, world_poses};
use mbconv_ir::report::path;
use mbconv_ir::{BodyRef, Inertial, Pose};
use nalgebra::{DMatrix, DVector, Matrix3, Matrix6, Vector3};

/// The mass (kg), and the moment about every axis (kg m²), given to a moving link Drake cannot
/// simulate: far above rounding, far below any real part (MJCF's writer gives the same).
pub(crate) const MASS_FLOOR: f64 = 1e-10;

/// A hinge inertia whose smallest eigenvalue, relative to the rigid composite's, is at most
/// this is singular: what is left of a direction the outboard joints take away entirely is
/// round-off of that size, positive or negative as the arithmetic goes.
const HINGE_ROUND_OFF: f64 = 1e-12;

/// The pass: see the module's documentation.
pub(crate) fn hinge_inertia(s: &mut LowerSession) {
    let tree = SpanningTree::new(&s.model);
    let singular = singular_hinges(&s.model, &tree);
    for (b, joint) in singular {
        let inertial = &mut s.model.bodies[b].inertial;
        let light = inertial.mass < MASS_FLOOR;
        let smallest =
            mbconv_ir::validate::principal_moments(&inertial.inertia.matrix()).map_or(0.0, |[a, _, _]| a);
        let flat = smallest < MASS_FLOOR;
        if !light && !flat {
            continue;
        }
        let mut added = Vec::new();
        if light {
            added.push(format!("mass {} kg -> {MASS_FLOOR} kg", inertial.mass));
            inertial.mass = MASS_FLOOR;
        }
        if flat {
            added.push(format!(
                "{MASS_FLOOR} kg m² added about every axis (smallest principal moment {smallest:e} kg m²)"
            ));
            inertial.inertia.add_about_every_axis(MASS_FLOOR);
        }
        let through = joint.map_or_else(
            || "its free motion".to_owned(),
            |j| format!("joint {:?}", s.model.joints[j].name),
        );
        let name = s.model.bodies[b].name.clone();
        s.approximated(
            "moving_body_mass_floor",
            Feature::MassProperties,
            &path::item("bodies", &name),
            format!(
                "Drake cannot simulate {name:?} moved by {through}: it and the links outboard of it have no mass or inertia to move it (\"An internal mass matrix associated with the joint ... is not positive-definite\"); {}",
                added.join(", ")
            ),
        );
    }
}

/// The bodies (tree order) whose hinge inertia is singular, each with the tree joint that moves
/// it (`None`: a floating root, six freedoms).
fn singular_hinges(model: &mbconv_ir::Model, tree: &SpanningTree) -> Vec<(usize, Option<usize>)> {
    let n = model.bodies.len();
    let poses = world_poses(model, tree, Configuration::Reference);
    let index = |r: &BodyRef| r.name().and_then(|name| model.body_index(name));
    // Articulated (`articulated`) and rigid composite (`composite`) inertias, children first.
    let mut articulated: Vec<Matrix6<f64>> = (0..n)
        .map(|b| spatial_inertia(&model.bodies[b].inertial, &poses[b]))
        .collect();
    let mut composite = articulated.clone();
    let mut singular = Vec::new();
    for &b in tree.order.iter().rev() {
        let (motion, joint, parent) = match tree.attachments[b] {
            Attachment::Joint { joint, parent, .. } => {
                let j = &model.joints[joint];
                let frame = index(&j.parent).map_or(Pose::identity(), |p| poses[p]) * j.parent_frame;
                (joint_motion_subspace(&j.kind, &frame), Some(joint), parent)
            }
            Attachment::Floating => (DMatrix::identity(6, 6), None, None),
            Attachment::Fixed => continue,
        };
        let p = articulated[b];
        let mut transmitted = p;
        if motion.ncols() > 0 {
            let motion6 = motion.clone();
            let d = motion6.transpose() * to_dynamic(&p) * &motion6;
            let rigid = motion6.transpose() * to_dynamic(&composite[b]) * &motion6;
            let scale = DVector::from_fn(d.nrows(), |i, _| {
                let r = rigid[(i, i)];
                if r > 0.0 { 1.0 / r.sqrt() } else { 0.0 }
            });
            let scaled = DMatrix::from_fn(d.nrows(), d.ncols(), |i, k| scale[i] * d[(i, k)] * scale[k]);
            let eigen = nalgebra::SymmetricEigen::new((&scaled + scaled.transpose()) * 0.5);
            let smallest = eigen.eigenvalues.iter().copied().fold(f64::INFINITY, f64::min);
            if smallest <= HINGE_ROUND_OFF || scale.iter().any(|x| *x == 0.0) {
                singular.push((b, joint));
            }
            // The pseudo-inverse: a singular direction transmits nothing.
            let inverse_values = eigen
                .eigenvalues
                .map(|l| if l > HINGE_ROUND_OFF { 1.0 / l } else { 0.0 });
            let scaled_inverse = &eigen.eigenvectors
                * DMatrix::from_diagonal(&inverse_values)
                * eigen.eigenvectors.transpose();
            let inverse = DMatrix::from_fn(d.nrows(), d.ncols(), |i, k| {
                scale[i] * scaled_inverse[(i, k)] * scale[k]
            });
            let u = motion6.transpose() * to_dynamic(&p);
            let removed = u.transpose() * inverse * u;
            transmitted -= Matrix6::from_fn(|i, k| removed[(i, k)]);
            transmitted = (transmitted + transmitted.transpose()) * 0.5;
        }
        if let Some(parent) = parent {
            articulated[parent] += transmitted;
            let rigid = composite[b];
            composite[parent] += rigid;
        }
    }
    singular.reverse();
    singular
}

fn to_dynamic(m: &Matrix6<f64>) -> DMatrix<f64> {
    DMatrix::from_fn(6, 6, |i, k| m[(i, k)])
}

/// The spatial inertia of a body at world pose `pose`: world axes, about the world origin,
/// angular rows and columns first (`½ Vᵀ M V` is the kinetic energy of the twist
/// `V = (ω, v)`, `v` the velocity of the body point at the world origin).
fn spatial_inertia(inertial: &Inertial, pose: &Pose) -> Matrix6<f64> {
    let r = pose.rotation.to_rotation_matrix().into_inner();
    let about_com = r * inertial.inertia_in_body_axes() * r.transpose();
    let c = pose.transform_point(&inertial.com);
    let m = inertial.mass;
    let cross = c.cross_matrix();
    let angular = about_com - m * cross * cross;
    let mut out = Matrix6::zeros();
    out.fixed_view_mut::<3, 3>(0, 0).copy_from(&angular);
    out.fixed_view_mut::<3, 3>(0, 3).copy_from(&(m * cross));
    out.fixed_view_mut::<3, 3>(3, 0)
        .copy_from(&(m * cross).transpose());
    out.fixed_view_mut::<3, 3>(3, 3)
        .copy_from(&(Matrix3::identity() * m));
    out
}

/// A joint's freedoms at zero as twists in world axes (one column each, angular part first,
/// linear part the velocity of the point at the world origin); `frame` is the parent joint
/// frame's world pose.
fn joint_motion_subspace(kind: &mbconv_ir::JointKind, frame: &Pose) -> DMatrix<f64> {
    let nv = kind.nv();
    let zeros = vec![0.0; kind.nq()];
    let r = frame.rotation;
    let origin: Vector3<f64> = frame.translation;
    let mut out = DMatrix::zeros(6, nv);
    for i in 0..nv {
        let mut rates = vec![0.0; nv];
        rates[i] = 1.0;
        let twist = joint_twist(kind, &zeros, &rates);
        let angular = r * twist.angular;
        let linear = r * twist.linear + origin.cross(&angular);
        for k in 0..3 {
            out[(k, i)] = angular[k];
            out[(3 + k, i)] = linear[k];
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use mbconv_ir::{Body, Inertia, Joint, JointKind, Model};

    fn rod(name: &str, mass: f64) -> Body {
        let mut body = Body::new(name);
        body.inertial.mass = mass;
        body.inertial.inertia = Inertia::from_moments_products([mass * 1e-2; 3], [0.0; 3]);
        body
    }

    fn hinge(name: &str, parent: BodyRef, child: &str, axis: Vector3<f64>) -> Joint {
        Joint::new(name, JointKind::Revolute { axis }, parent, BodyRef::body(child))
    }

    #[test]
    fn a_massless_leaf_and_a_link_between_parallel_hinges_are_singular_a_chain_link_is_not() {
        let mut m = Model::new("m");
        m.bodies = vec![
            rod("arm", 1.0),
            rod("finger", 0.0),
            rod("link", 0.0),
            rod("hand", 1.0),
            rod("gimbal", 0.0),
            rod("tool", 1.0),
        ];
        m.joints = vec![
            hinge("shoulder", BodyRef::World, "arm", Vector3::z()),
            hinge("knuckle", BodyRef::body("arm"), "finger", Vector3::y()),
            // Two hinges about z through a massless link: the link's hinge moves nothing.
            hinge("z1", BodyRef::body("arm"), "link", Vector3::z()),
            hinge("z2", BodyRef::body("link"), "hand", Vector3::z()),
            // z then x through a massless link: the tool turns about z with it.
            hinge("a", BodyRef::body("arm"), "gimbal", Vector3::z()),
            hinge("b", BodyRef::body("gimbal"), "tool", Vector3::x()),
        ];
        let tree = SpanningTree::new(&m);
        let singular: Vec<usize> = singular_hinges(&m, &tree).into_iter().map(|(b, _)| b).collect();
        assert_eq!(singular, vec![1, 2], "{singular:?}");
    }
}
