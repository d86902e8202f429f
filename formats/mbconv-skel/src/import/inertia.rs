//! The moment of inertia DART 6.20 derives from a body's shapes when `<inertia>` has a
//! `<mass>` but no `<moment_of_inertia>` (measured with dartpy 6.20.0):
//!
//! * every rigid shape of the body counts, visual and collision alike, each at its pose;
//! * the body mass is split in proportion to the shape volumes;
//! * each shape's own inertia (about its frame origin, in its axes) is rotated into body axes
//!   and moved to the given `<offset>` (the centre of mass) with the parallel-axis theorem;
//! * with no shapes, zero total volume or a mass ≤ 0 the default (identity) stays.
//!
//! Shape volumes and inertias are DART's: a plane has volume 1 and zero inertia; a pyramid
//! has the unit tensor whatever its mass; multi-sphere and mesh shapes use the box of their
//! bounding box (meshes: of the scaled vertices); the cone's tensor is DART's, not the
//! centroidal one.

use mbconv_ir::{Geometry, Shape};
use nalgebra::{Matrix3, Vector3};
use std::f64::consts::PI;

/// Volume and inertia (for `mass`, about the shape origin, shape axes) of one geometry.
/// `None` when DART cannot say (an unreadable mesh).
pub(crate) fn volume_and_inertia(
    geometry: &Geometry,
    mass: f64,
    mesh_extents: Option<[f64; 3]>,
) -> Option<(f64, Matrix3<f64>)> {
    Some(match geometry {
        Geometry::Box { size } => (size[0] * size[1] * size[2], box_inertia(*size, mass)),
        Geometry::Sphere { radius } => {
            let r2 = radius * radius;
            (
                4.0 / 3.0 * PI * r2 * radius,
                Matrix3::identity() * (0.4 * mass * r2),
            )
        }
        Geometry::Ellipsoid { radii } => {
            let d = radii.map(|r| 2.0 * r);
            let volume = PI * d[0] * d[1] * d[2] / 6.0;
            let (x2, y2, z2) = (d[0] * d[0], d[1] * d[1], d[2] * d[2]);
            let inertia = Matrix3::from_diagonal(&Vector3::new(
                mass / 20.0 * (y2 + z2),
                mass / 20.0 * (x2 + z2),
                mass / 20.0 * (x2 + y2),
            ));
            (volume, inertia)
        }
        Geometry::Cylinder { radius, length } => {
            let (r2, h2) = (radius * radius, length * length);
            let side = mass * (3.0 * r2 + h2) / 12.0;
            (
                PI * r2 * length,
                Matrix3::from_diagonal(&Vector3::new(side, side, mass * r2 / 2.0)),
            )
        }
        Geometry::Capsule { radius, length } => {
            let (r, h) = (*radius, *length);
            let (r2, h2) = (r * r, h * h);
            let cylinder = PI * r2 * h;
            let spheres = 4.0 / 3.0 * PI * r2 * r;
            let volume = cylinder + spheres;
            let m_cylinder = mass * cylinder / volume;
            let m_spheres = mass * spheres / volume;
            let side =
                m_cylinder * (h2 / 12.0 + r2 / 4.0) + m_spheres * (0.4 * r2 + 0.375 * r * h + 0.25 * h2);
            let axial = m_cylinder * r2 / 2.0 + m_spheres * 0.4 * r2;
            (volume, Matrix3::from_diagonal(&Vector3::new(side, side, axial)))
        }
        Geometry::Cone { radius, length } => {
            let (r2, h2) = (radius * radius, length * length);
            let side = 3.0 / 20.0 * mass * (r2 + 2.0 / 3.0 * h2);
            (
                PI * r2 * length / 3.0,
                Matrix3::from_diagonal(&Vector3::new(side, side, 3.0 / 10.0 * mass * r2)),
            )
        }
        Geometry::Pyramid {
            base_width,
            base_depth,
            height,
        } => (base_width * base_depth * height / 3.0, Matrix3::identity()),
        Geometry::Plane { .. } => (1.0, Matrix3::zeros()),
        Geometry::MultiSphere { spheres } => {
            let mut lo = Vector3::repeat(f64::INFINITY);
            let mut hi = Vector3::repeat(f64::NEG_INFINITY);
            for s in spheres {
                lo = lo.inf(&(s.center - Vector3::repeat(s.radius)));
                hi = hi.sup(&(s.center + Vector3::repeat(s.radius)));
            }
            let e = if spheres.is_empty() {
                Vector3::zeros()
            } else {
                hi - lo
            };
            (e.x * e.y * e.z, box_inertia([e.x, e.y, e.z], mass))
        }
        Geometry::Mesh(_) => {
            let e = mesh_extents?;
            (e[0] * e[1] * e[2], box_inertia(e, mass))
        }
        _ => return None,
    })
}

fn box_inertia(size: [f64; 3], mass: f64) -> Matrix3<f64> {
    let [x2, y2, z2] = size.map(|s| s * s);
    Matrix3::from_diagonal(&Vector3::new(
        mass / 12.0 * (y2 + z2),
        mass / 12.0 * (x2 + z2),
        mass / 12.0 * (x2 + y2),
    ))
}

/// The tensor DART 6.20 gives a body of `mass` with centre of mass `com` from its shapes, or
/// `None` when it keeps the default. `mesh_extents(i)` is the scaled bounding-box size of shape
/// `i` when it is a readable mesh (a 1 x 2 x 2 box of 12 kg gives `ixx = 8`).
pub(crate) fn from_shapes(
    shapes: &[Shape],
    mass: f64,
    com: &Vector3<f64>,
    mesh_extents: impl Fn(usize) -> Option<[f64; 3]>,
) -> Option<Matrix3<f64>> {
    if shapes.is_empty() || mass.is_nan() || mass <= 0.0 {
        return None;
    }
    let unit: Vec<(f64, Matrix3<f64>)> = shapes
        .iter()
        .enumerate()
        .map(|(i, s)| volume_and_inertia(&s.geometry, 1.0, mesh_extents(i)))
        .collect::<Option<_>>()?;
    let total: f64 = unit.iter().map(|(v, _)| v).sum();
    if total.is_nan() || total <= 0.0 {
        return None;
    }
    let mut sum = Matrix3::zeros();
    for (i, shape) in shapes.iter().enumerate() {
        let m = mass * unit[i].0 / total;
        let (_, own) = volume_and_inertia(&shape.geometry, m, mesh_extents(i))?;
        let r = shape.pose.rotation.to_rotation_matrix().into_inner();
        let d = shape.pose.translation - com;
        let parallel = (Matrix3::identity() * d.dot(&d) - d * d.transpose()) * m;
        sum += r * own * r.transpose() + parallel;
    }
    Some(sum)
}

/// The bounding-box size of the vertices of a Wavefront OBJ text (`v x y z` lines), scaled.
/// Vertices are rounded to `f32` first, as Assimp (DART's mesh loader) stores them.
/// `None` when it has no vertices or a vertex does not parse.
pub(crate) fn obj_extents(text: &str, scale: [f64; 3]) -> Option<[f64; 3]> {
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    let mut any = false;
    for line in text.lines() {
        let mut words = line.split_ascii_whitespace();
        if words.next() != Some("v") {
            continue;
        }
        for axis in 0..3 {
            // Assimp, which loads meshes for DART, stores vertices as f32.
            let x: f32 = words.next()?.parse().ok()?;
            let x = f64::from(x) * scale[axis];
            lo[axis] = lo[axis].min(x);
            hi[axis] = hi[axis].max(x);
        }
        any = true;
    }
    any.then(|| [0, 1, 2].map(|a| hi[a] - lo[a]))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use mbconv_ir::ShapeRole;

    #[test]
    fn a_box_splits_its_mass_by_volume() {
        let shape = Shape::new(
            ShapeRole::Visual,
            Geometry::Box {
                size: [1.0, 2.0, 2.0],
            },
        );
        let i = from_shapes(&[shape], 12.0, &Vector3::zeros(), |_| None).unwrap();
        assert_eq!(i[(0, 0)], 8.0);
    }

    #[test]
    fn obj_extents_are_scaled() {
        let e = obj_extents("v 0 0 0\nv 1 2 3\nf 1 2 1\n", [2.0, 1.0, 1.0]).unwrap();
        assert_eq!(e, [2.0, 2.0, 3.0]);
    }
}
