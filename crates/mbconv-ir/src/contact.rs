//! The distance between two collision shapes of the IR, each placed at a world pose: GJK on
//! the shapes' support functions, and a half-space test for planes. It answers "do these two
//! shapes touch here?" (for instance two bodies joined by a joint, in the initial
//! configuration or along a motion), exactly for convex primitives and conservatively for
//! inline meshes and multi-spheres (their convex hulls). It is **not** a contact solver (no
//! contact points, normals or penetration depth: overlapping shapes are at distance 0), and
//! it reads no mesh file.
//!
//! Exact for the convex primitives (box, sphere, ellipsoid, cylinder, capsule, cone,
//! pyramid) up to the tolerance below. **Conservative** for the rest: a multi-sphere is the
//! convex hull of its spheres (as the IR defines it after DART; more than the union of the
//! spheres), and an inline mesh ([`Geometry::TriangleMesh`], [`Geometry::IndexedFaceSet`])
//! is the convex hull of the vertices its faces use, so a non-convex mesh may be reported
//! touching where its surface does not. A plane is the half-space `n̂ · x ≤ offset` in its
//! shape frame (`n̂` the unit normal: solid on the side opposite the normal, as mbconv-check
//! bounds it). Undecided (`None`): geometries whose extent mbconv does not know (mesh and
//! convex-hull files, fitted primitives, extrusions, elevation grids), two planes, a size
//! that is negative or not finite, a pose that is not finite, a zero plane normal, a mesh
//! with no face or an index out of range. The shape's `contact_radius` (a simulator's
//! margin) is not added.
//!
//! GJK stops when its upper and lower bounds agree to 1e-10 of the distance (or 1e-14 of the
//! size of the scene), when it stalls in floating point, or after 64 iterations; it returns
//! its best **lower bound** in every case (within the tolerance of the distance when it
//! converged), never more than the true distance up to rounding, so a pair that touches is
//! not called apart.

mod gjk;
mod support;
#[cfg(test)]
mod tests;

use crate::model::geometry::{Geometry, Shape};
use crate::pose::Pose;
use gjk::Placed;
use nalgebra::Vector3;
use support::Convex;

/// The distance between two shapes' surfaces (m): 0.0 when they overlap or touch, `None` when
/// undecided.
///
/// `body_pose_a` and `body_pose_b` are the bodies' world poses; each shape's own `pose` (its
/// frame in the body frame) is applied on top. See the [module](self) for what each
/// geometry is taken to be and which cases are undecided.
///
/// ```
/// use mbconv_ir::contact::separation;
/// use mbconv_ir::{Geometry, Pose, Shape, ShapeRole};
/// use nalgebra::Vector3;
/// let ball = Shape::new(ShapeRole::Collision, Geometry::Sphere { radius: 0.5 });
/// let cube = Shape::new(ShapeRole::Collision, Geometry::Box { size: [1.0, 1.0, 1.0] });
/// let here = Pose::identity();
/// let there = Pose::from_translation(Vector3::new(2.0, 0.0, 0.0));
/// let d = separation(&ball, &here, &cube, &there).unwrap();
/// assert!((d - 1.0).abs() < 1e-12);
/// assert_eq!(separation(&ball, &here, &cube, &here), Some(0.0));
/// ```
pub fn separation(a: &Shape, body_pose_a: &Pose, b: &Shape, body_pose_b: &Pose) -> Option<f64> {
    let pose_a = placed(body_pose_a, &a.pose)?;
    let pose_b = placed(body_pose_b, &b.pose)?;
    match (&a.geometry, &b.geometry) {
        (Geometry::Plane { .. }, Geometry::Plane { .. }) => None,
        (Geometry::Plane { normal, offset }, _) => to_plane(normal, *offset, &pose_a, &b.geometry, &pose_b),
        (_, Geometry::Plane { normal, offset }) => to_plane(normal, *offset, &pose_b, &a.geometry, &pose_a),
        (ga, gb) => {
            let (ca, cb) = (Convex::of(ga)?, Convex::of(gb)?);
            // Coordinates about a's origin, so that far-away scenes lose no precision.
            let pa = Placed {
                convex: &ca,
                rotation: pose_a.rotation,
                translation: Vector3::zeros(),
            };
            let pb = Placed {
                convex: &cb,
                rotation: pose_b.rotation,
                translation: pose_b.translation - pose_a.translation,
            };
            let lower = gjk::distance(&pa, &pb).lower;
            lower.is_finite().then_some(lower.max(0.0))
        }
    }
}

/// True when [`separation`] is `Some(d)` with `d <= gap`; `None` when it is undecided.
///
/// ```
/// use mbconv_ir::contact::touching;
/// use mbconv_ir::{Geometry, Pose, Shape, ShapeRole};
/// use nalgebra::Vector3;
/// let ball = Shape::new(ShapeRole::Collision, Geometry::Sphere { radius: 0.5 });
/// let apart = Pose::from_translation(Vector3::new(1.001, 0.0, 0.0));
/// assert_eq!(touching(&ball, &Pose::identity(), &ball, &apart, 1e-9), Some(false));
/// assert_eq!(touching(&ball, &Pose::identity(), &ball, &apart, 1e-2), Some(true));
/// ```
pub fn touching(a: &Shape, body_pose_a: &Pose, b: &Shape, body_pose_b: &Pose, gap: f64) -> Option<bool> {
    separation(a, body_pose_a, b, body_pose_b).map(|d| d <= gap)
}

/// The shape's world pose, `None` when it is not finite.
fn placed(body: &Pose, shape: &Pose) -> Option<Pose> {
    let world = *body * *shape;
    let q = world.rotation.quaternion();
    let finite = world
        .translation
        .iter()
        .chain(q.coords.iter())
        .all(|x| x.is_finite());
    finite.then_some(world)
}

/// Distance from the half-space `n̂ · x ≤ offset` (shape frame at `plane_pose`) to a convex
/// shape: `max(0, min over the shape of n̂ · x − offset)`, the minimum being at the shape's
/// support point along `−n̂`.
fn to_plane(
    normal: &Vector3<f64>,
    offset: f64,
    plane_pose: &Pose,
    other: &Geometry,
    pose: &Pose,
) -> Option<f64> {
    let length = normal.norm();
    if !(length.is_finite() && length > 0.0 && offset.is_finite()) {
        return None;
    }
    let convex = Convex::of(other)?;
    let n = plane_pose.rotation * (normal / length);
    // The support point in the shape's frame, about the plane's origin.
    let lowest = pose.rotation * convex.support(&pose.rotation.inverse_transform_vector(&-n))
        + (pose.translation - plane_pose.translation);
    let d = n.dot(&lowest) - offset;
    d.is_finite().then_some(d.max(0.0))
}
