//! Rotation maths that knows no format: elementary rotations, angle sequences, rotation vectors
//! and frames built from axes. The IR stores orientations as unit quaternions; each format's
//! own conventions (which angle sequence its files use, which frame it builds from an axis)
//! live in that format's `spec` module and are written with these:
//!
//! | item | maths |
//! |---|---|
//! | [`rot_x`], [`rot_y`], [`rot_z`] | elementary rotations |
//! | [`rpy`] | roll-pitch-yaw `[r, p, y]`, `R = Rz(y)·Ry(p)·Rx(r)` (extrinsic X-Y-Z) |
//! | [`xyz_angles`] | intrinsic X-Y′-Z″ angles `[a, b, c]`, `R = Rx(a)·Ry(b)·Rz(c)` |
//! | [`euler`] | the rotation of an IR euler joint (`xyz`, `zyx`) |
//! | [`rotation_vector`] | exponential coordinates |
//! | [`frame_with_z_along`], [`frame_with_x_along_z_normal`], [`orthogonal_with_suggestion`] | frames from axes (Gram–Schmidt) |
//!
//! Angles are radians everywhere here; degree handling belongs to the importers.

use nalgebra::{Matrix3, Quaternion, Rotation3, UnitQuaternion, Vector3};

/// The unit vector along `v`, or `None` when `v` is zero or not finite.
///
/// ```
/// use nalgebra::Vector3;
/// assert_eq!(mbconv_ir::rotation::unit_vector(&Vector3::new(0.0, 3.0, 4.0)), Some(Vector3::new(0.0, 0.6, 0.8)));
/// assert_eq!(mbconv_ir::rotation::unit_vector(&Vector3::zeros()), None);
/// ```
pub fn unit_vector(v: &Vector3<f64>) -> Option<Vector3<f64>> {
    let n = v.norm();
    (n.is_finite() && n > 0.0).then(|| v / n)
}

/// A rotation about the x axis.
pub fn rot_x(angle: f64) -> UnitQuaternion<f64> {
    half_angle(angle, 0)
}
/// A rotation about the y axis.
pub fn rot_y(angle: f64) -> UnitQuaternion<f64> {
    half_angle(angle, 1)
}
/// A rotation about the z axis.
pub fn rot_z(angle: f64) -> UnitQuaternion<f64> {
    half_angle(angle, 2)
}

fn half_angle(angle: f64, axis: usize) -> UnitQuaternion<f64> {
    let (s, c) = (angle * 0.5).sin_cos();
    let mut v = [0.0; 3];
    v[axis] = s;
    UnitQuaternion::new_unchecked(Quaternion::new(c, v[0], v[1], v[2]))
}

/// A rotation matrix from its three column vectors (the axes of the rotated frame).
pub fn from_columns(x: &Vector3<f64>, y: &Vector3<f64>, z: &Vector3<f64>) -> UnitQuaternion<f64> {
    let m = Matrix3::from_columns(&[*x, *y, *z]);
    UnitQuaternion::from_rotation_matrix(&Rotation3::from_matrix_unchecked(m))
}

/// The quaternion with non-negative scalar part (the same rotation).
pub fn canonical(q: &UnitQuaternion<f64>) -> UnitQuaternion<f64> {
    if q.w < 0.0 {
        UnitQuaternion::new_unchecked(-q.into_inner())
    } else {
        *q
    }
}

/// Normalises a 4-vector `[w, x, y, z]` into a unit quaternion; returns it with the original
/// norm, or `None` when the norm is zero or not finite.
///
/// ```
/// let (q, norm) = mbconv_ir::rotation::normalize_wxyz([2.0, 0.0, 0.0, 0.0]).unwrap();
/// assert_eq!(norm, 2.0);
/// assert_eq!(q.w, 1.0);
/// ```
pub fn normalize_wxyz(q: [f64; 4]) -> Option<(UnitQuaternion<f64>, f64)> {
    let raw = Quaternion::new(q[0], q[1], q[2], q[3]);
    let norm = raw.norm();
    if !norm.is_finite() || norm == 0.0 {
        return None;
    }
    Some((UnitQuaternion::new_unchecked(raw / norm), norm))
}

/// `v × s` for a suggested direction `s` that is not parallel to `v`: when `v × s` vanishes,
/// the suggestion's components are raised by one in turn (x, then y, then z) until it does
/// not. This is the Gram–Schmidt step of [`frame_with_z_along`]; the result is not normalised.
pub fn orthogonal_with_suggestion(v: &Vector3<f64>, suggestion: Vector3<f64>) -> Vector3<f64> {
    let mut suggestion = suggestion;
    let mut w = v.cross(&suggestion);
    for bump in 0..3 {
        if w.norm() >= f64::MIN_POSITIVE {
            break;
        }
        suggestion[bump] += 1.0;
        w = v.cross(&suggestion);
    }
    w
}

/// The frame whose z axis is along `axis` and whose x axis is as close as possible to
/// `suggested_x`: `z = axis/|axis|`, `y = normalize(z × s)` (see
/// [`orthogonal_with_suggestion`]), `x = y × z`. `None` for a zero or non-finite axis.
///
/// ```
/// use nalgebra::Vector3;
/// let q = mbconv_ir::rotation::frame_with_z_along(&Vector3::new(0.0, 0.0, 2.0), Vector3::x()).unwrap();
/// assert!(q.angle() < 1e-15);
/// ```
pub fn frame_with_z_along(axis: &Vector3<f64>, suggested_x: Vector3<f64>) -> Option<UnitQuaternion<f64>> {
    let z = unit_vector(axis)?;
    let y = orthogonal_with_suggestion(&z, suggested_x).normalize();
    let x = y.cross(&z);
    Some(from_columns(&x, &y, &z))
}

/// The frame whose x axis is along `axis1` and whose z axis is normal to `axis1` and `axis2`:
/// `x = axis1/|axis1|`, `z = normalize(x × axis2)`, `y = z × x`. `None` when an axis is zero
/// or the axes are parallel.
pub fn frame_with_x_along_z_normal(
    axis1: &Vector3<f64>,
    axis2: &Vector3<f64>,
) -> Option<UnitQuaternion<f64>> {
    let x = unit_vector(axis1)?;
    let z = unit_vector(&x.cross(axis2))?;
    let y = z.cross(&x).normalize();
    Some(from_columns(&x, &y, &z))
}

/// Intrinsic X-Y′-Z″ angles.
pub mod xyz_angles {
    use super::*;

    /// `[a, b, c]` to a quaternion, `R = Rx(a)·Ry(b)·Rz(c)`.
    ///
    /// ```
    /// let q = mbconv_ir::rotation::xyz_angles::to_quaternion([0.5, 0.0, 0.0]);
    /// assert!((q.angle() - 0.5).abs() < 1e-15);
    /// ```
    pub fn to_quaternion(abc: [f64; 3]) -> UnitQuaternion<f64> {
        rot_x(abc[0]) * rot_y(abc[1]) * rot_z(abc[2])
    }

    /// The inverse of [`to_quaternion`], with `b` in `[-π/2, π/2]`; at gimbal lock
    /// (`b = ±π/2`, where only `a ± c` is defined) `c` is 0.
    pub fn from_quaternion(q: &UnitQuaternion<f64>) -> [f64; 3] {
        let r = q.to_rotation_matrix().into_inner();
        // R = Rx(a)Ry(b)Rz(c): R02 = sin b, R12 = -sin a cos b, R22 = cos a cos b,
        // R01 = -cos b sin c, R00 = cos b cos c.
        // atan2 keeps b accurate near ±π/2, where asin(R02) loses half the digits.
        let b = r[(0, 2)].atan2(r[(1, 2)].hypot(r[(2, 2)]));
        if (1.0 - r[(0, 2)].abs()) > 1e-12 {
            let a = (-r[(1, 2)]).atan2(r[(2, 2)]);
            let c = (-r[(0, 1)]).atan2(r[(0, 0)]);
            [a, b, c]
        } else {
            // Gimbal lock: only a ± c is defined; put everything into a.
            let a = r[(2, 1)].atan2(r[(1, 1)]);
            [a, b, 0.0]
        }
    }
}

/// The rotation of an IR euler joint.
pub mod euler {
    use super::*;
    use crate::EulerOrder;

    /// The rotation at coordinates `q`: `xyz` is `Rx(q0)·Ry(q1)·Rz(q2)`, `zyx` is
    /// `Rz(q0)·Ry(q1)·Rx(q2)`.
    ///
    /// ```
    /// use mbconv_ir::EulerOrder;
    /// let q = mbconv_ir::rotation::euler::rotation(EulerOrder::Zyx, [0.5, 0.0, 0.0]);
    /// assert!((q.angle() - 0.5).abs() < 1e-15);
    /// ```
    pub fn rotation(order: EulerOrder, q: [f64; 3]) -> UnitQuaternion<f64> {
        match order {
            EulerOrder::Xyz => rot_x(q[0]) * rot_y(q[1]) * rot_z(q[2]),
            EulerOrder::Zyx => rot_z(q[0]) * rot_y(q[1]) * rot_x(q[2]),
        }
    }
}

/// Roll-pitch-yaw angles (extrinsic X-Y-Z: roll about x, then pitch about y, then yaw about z).
pub mod rpy {
    use super::*;

    /// `[roll, pitch, yaw]` to a quaternion, `R = Rz(yaw)·Ry(pitch)·Rx(roll)`.
    pub fn to_quaternion(rpy: [f64; 3]) -> UnitQuaternion<f64> {
        rot_z(rpy[2]) * rot_y(rpy[1]) * rot_x(rpy[0])
    }

    /// A rotation as `[roll, pitch, yaw]` with roll, yaw in `[-π, π]` and pitch in
    /// `[-π/2, π/2]`: pitch from the matrix, roll and yaw from the canonical quaternion's
    /// half-angle sums (the algorithm of Drake's `RollPitchYaw`, which the bushing law needs
    /// bit for bit).
    pub fn from_quaternion(q: &UnitQuaternion<f64>) -> [f64; 3] {
        use std::f64::consts::PI;
        let r = q.to_rotation_matrix().into_inner();
        let pitch = (-r[(2, 0)]).atan2(
            ((r[(2, 2)].powi(2) + r[(2, 1)].powi(2) + r[(1, 0)].powi(2) + r[(0, 0)].powi(2)) / 2.0).sqrt(),
        );
        let c = canonical(q);
        let (e0, e1, e2, e3) = (c.w, c.i, c.j, c.k);
        let guarded_atan2 = |y: f64, x: f64| {
            if y.abs() <= f64::EPSILON && x.abs() <= f64::EPSILON {
                0.0
            } else {
                y.atan2(x)
            }
        };
        let z_a = guarded_atan2(e1 + e3, e0 - e2);
        let z_b = guarded_atan2(e3 - e1, e0 + e2);
        let wrap = |a: f64| {
            if a > PI {
                a - 2.0 * PI
            } else if a < -PI {
                a + 2.0 * PI
            } else {
                a
            }
        };
        [wrap(z_a - z_b), pitch, wrap(z_a + z_b)]
    }
}

/// Exponential coordinates (rotation vectors): the IR's coordinates of spherical and free
/// joints.
pub mod rotation_vector {
    use super::*;

    /// The rotation `exp([v]×)`: angle `|v|` about `v/|v|`.
    pub fn to_quaternion(v: [f64; 3]) -> UnitQuaternion<f64> {
        UnitQuaternion::from_scaled_axis(Vector3::from(v))
    }

    /// The rotation vector of `q`, with angle in `[0, π]`.
    pub fn from_quaternion(q: &UnitQuaternion<f64>) -> [f64; 3] {
        let v = canonical(q).scaled_axis();
        [v.x, v.y, v.z]
    }
}
