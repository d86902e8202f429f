//! Every rotation convention of the supported formats, in one place.
//!
//! The IR stores orientations as unit quaternions. Each submodule converts one format's
//! convention to and from them:
//!
//! | module | convention |
//! |---|---|
//! | [`chrono`] | Cardan `[yaw, pitch, roll]`, `R = Rz(yaw)·Ry(pitch)·Rx(roll)`; scalar-first quaternions; the joint, motor and universal frames Chrono builds from axes |
//! | [`skel`] | `<transformation>` angles `R = Rx(a)·Ry(b)·Rz(c)`; euler joints `xyz` and `zyx` |
//! | [`choreonoid`] | axis-angle `[x, y, z, θ]`, lists composed left to right |
//! | [`shift`] | row-major 3×3 matrices whose columns are the frame axes |
//! | [`drake`] | roll-pitch-yaw `[r, p, y]`, `R = Rz(y)·Ry(p)·Rx(r)` |
//! | [`rotation_vector`] | exponential coordinates (DART ball and free joints) |
//!
//! Angles are radians everywhere here; degree handling belongs to the importers.

use nalgebra::{Matrix3, Quaternion, Rotation3, Unit, UnitQuaternion, Vector3};

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

/// Project Chrono's conventions (YAML models, `ChParserMbsYAML`).
pub mod chrono {
    use super::*;

    /// Cardan angles `[yaw, pitch, roll]` (radians) to a quaternion:
    /// `q = qZ(yaw) ⊗ qY(pitch) ⊗ qX(roll)`, i.e. `R = Rz·Ry·Rx`.
    ///
    /// ```
    /// use mbconv_ir::rotation::chrono;
    /// let q = chrono::cardan_to_quaternion([30f64.to_radians(), 20f64.to_radians(), 10f64.to_radians()]);
    /// assert!((q.w - 0.951548524643789).abs() < 1e-12);
    /// ```
    pub fn cardan_to_quaternion(yaw_pitch_roll: [f64; 3]) -> UnitQuaternion<f64> {
        let [yaw, pitch, roll] = yaw_pitch_roll;
        rot_z(yaw) * rot_y(pitch) * rot_x(roll)
    }

    /// The inverse of [`cardan_to_quaternion`], with pitch in `[-π/2, π/2]`.
    pub fn quaternion_to_cardan(q: &UnitQuaternion<f64>) -> [f64; 3] {
        let [roll, pitch, yaw] = super::drake::quaternion_to_rpy(q);
        [yaw, pitch, roll]
    }

    /// Chrono's "Z axis with suggested X = (1,0,0)" frame, used for REVOLUTE and PRISMATIC
    /// joints: `Z = axis/|axis|`, `Y = normalize(Z × s)`, `X = Y × Z`. When `Z × s` vanishes,
    /// Chrono bumps the suggestion to `(2,0,0)` and then `(2,1,0)`. `None` for a zero axis.
    pub fn joint_frame_from_axis(axis: &Vector3<f64>) -> Option<UnitQuaternion<f64>> {
        let z = unit_vector(axis)?;
        let mut suggestion = Vector3::new(1.0, 0.0, 0.0);
        let mut y = z.cross(&suggestion);
        for bump in 0..3 {
            if y.norm() >= f64::MIN_POSITIVE {
                break;
            }
            suggestion[bump] += 1.0;
            y = z.cross(&suggestion);
        }
        let y = y.normalize();
        let x = y.cross(&z);
        Some(from_columns(&x, &y, &z))
    }

    /// The frame Chrono uses for motors, RSDAs and cylinder shapes: "X axis with suggested
    /// Y = (0,1,0)", then a +90° turn about the local Y axis, so that `Z = axis`.
    pub fn motor_frame_from_axis(axis: &Vector3<f64>) -> Option<UnitQuaternion<f64>> {
        let x0 = unit_vector(axis)?;
        let mut suggestion = Vector3::new(0.0, 1.0, 0.0);
        let mut z0 = x0.cross(&suggestion);
        for bump in 0..3 {
            if z0.norm() >= f64::MIN_POSITIVE {
                break;
            }
            suggestion[bump] += 1.0;
            z0 = x0.cross(&suggestion);
        }
        let z0 = z0.normalize();
        let y0 = z0.cross(&x0);
        Some(from_columns(&(-z0), &y0, &x0))
    }

    /// The UNIVERSAL joint frame: `X = axis1`, `Z = axis1 × axis2`, `Y = Z × X` (normalised).
    /// `None` when an axis is zero or the axes are parallel.
    pub fn universal_frame(axis1: &Vector3<f64>, axis2: &Vector3<f64>) -> Option<UnitQuaternion<f64>> {
        let x = unit_vector(axis1)?;
        let z = unit_vector(&x.cross(axis2))?;
        let y = z.cross(&x).normalize();
        Some(from_columns(&x, &y, &z))
    }
}

/// DART SKEL conventions.
pub mod skel {
    use super::*;

    /// `<transformation>` angles `[a, b, c]` to a quaternion, `R = Rx(a)·Ry(b)·Rz(c)`
    /// (intrinsic X-Y'-Z'').
    pub fn xyz_to_quaternion(abc: [f64; 3]) -> UnitQuaternion<f64> {
        rot_x(abc[0]) * rot_y(abc[1]) * rot_z(abc[2])
    }

    /// The inverse of [`xyz_to_quaternion`], with `b` in `[-π/2, π/2]`.
    pub fn quaternion_to_xyz(q: &UnitQuaternion<f64>) -> [f64; 3] {
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

    /// Axis orders of DART euler joints.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum EulerOrder {
        /// `R = Rx(q0)·Ry(q1)·Rz(q2)`.
        Xyz,
        /// `R = Rz(q0)·Ry(q1)·Rx(q2)`.
        Zyx,
    }

    /// The rotation of a DART euler joint at coordinates `q`.
    pub fn euler_joint_rotation(order: EulerOrder, q: [f64; 3]) -> UnitQuaternion<f64> {
        match order {
            EulerOrder::Xyz => rot_x(q[0]) * rot_y(q[1]) * rot_z(q[2]),
            EulerOrder::Zyx => rot_z(q[0]) * rot_y(q[1]) * rot_x(q[2]),
        }
    }
}

/// Choreonoid `.body` conventions.
pub mod choreonoid {
    use super::*;

    /// One axis-angle `[x, y, z, θ]` (θ in radians; the axis is normalised as Choreonoid does).
    /// `None` for a zero or non-finite axis.
    pub fn axis_angle(axis_angle: [f64; 4]) -> Option<UnitQuaternion<f64>> {
        let axis = Vector3::new(axis_angle[0], axis_angle[1], axis_angle[2]);
        let n = axis.norm();
        if !(n.is_finite() && n > 0.0) {
            return None;
        }
        Some(UnitQuaternion::from_axis_angle(
            &Unit::new_unchecked(axis / n),
            axis_angle[3],
        ))
    }

    /// A list of axis-angles composed left to right, `R = R1·R2·…` (first entry outermost).
    /// `None` if any axis is zero.
    pub fn compose(list: &[[f64; 4]]) -> Option<UnitQuaternion<f64>> {
        list.iter()
            .try_fold(UnitQuaternion::identity(), |acc, aa| Some(acc * axis_angle(*aa)?))
    }

    /// A quaternion as a single axis-angle `[x, y, z, θ]` with θ in `[0, π]`;
    /// the identity gives `[0, 0, 1, 0]`.
    pub fn to_axis_angle(q: &UnitQuaternion<f64>) -> [f64; 4] {
        match canonical(q).axis_angle() {
            Some((axis, angle)) => [axis.x, axis.y, axis.z, angle],
            None => [0.0, 0.0, 1.0, 0.0],
        }
    }
}

/// Shift JSON conventions.
pub mod shift {
    use super::*;

    /// A rotation from the matrix rows as written in the file (`R[i] = rows[i]`); the matrix's
    /// columns are the frame axes in body coordinates. Returns the rotation and the matrix's
    /// deviation from orthonormality (`max |RᵀR − I|` plus `|det R − 1|`). A matrix that is not
    /// orthonormal is replaced by the nearest rotation.
    pub fn from_rows(rows: [[f64; 3]; 3]) -> (UnitQuaternion<f64>, f64) {
        let m = Matrix3::from_fn(|i, j| rows[i][j]);
        let deviation = (m.transpose() * m - Matrix3::identity()).abs().max() + (m.determinant() - 1.0).abs();
        let q = if deviation <= 1e-12 {
            UnitQuaternion::from_rotation_matrix(&Rotation3::from_matrix_unchecked(m))
        } else {
            nearest_rotation(&m)
        };
        (q, deviation)
    }

    /// The rotation nearest to `m` (Frobenius norm): `U·diag(1, 1, ±1)·Vᵀ` from the singular
    /// value decomposition `m = U·Σ·Vᵀ` of `m` scaled to entries of at most 1, the sign making
    /// the determinant +1. nalgebra's iterative `from_matrix_eps` loops forever on matrices
    /// with huge entries (`1e52`, found by `cargo xtask fuzz`) and on reflections; the SVD here
    /// has an iteration bound. A zero or non-finite matrix gives the identity.
    ///
    /// ```
    /// let (q, deviation) = mbconv_ir::rotation::shift::from_rows([[1e52, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, -1.0]]);
    /// assert!(deviation > 1.0 && (q.quaternion().norm() - 1.0).abs() < 1e-12);
    /// ```
    fn nearest_rotation(m: &Matrix3<f64>) -> UnitQuaternion<f64> {
        let scale = m.abs().max();
        if !scale.is_finite() || scale == 0.0 {
            return UnitQuaternion::identity();
        }
        let Some(svd) = (m / scale).try_svd(true, true, 1e-15, 1000) else {
            return UnitQuaternion::identity();
        };
        let (Some(mut u), Some(v_t)) = (svd.u, svd.v_t) else {
            return UnitQuaternion::identity();
        };
        if (u * v_t).determinant() < 0.0 {
            u.column_mut(2).neg_mut();
        }
        UnitQuaternion::from_rotation_matrix(&Rotation3::from_matrix_unchecked(u * v_t))
    }

    /// The matrix rows of a rotation, as Shift writes them.
    pub fn to_rows(q: &UnitQuaternion<f64>) -> [[f64; 3]; 3] {
        let m = q.to_rotation_matrix().into_inner();
        [0, 1, 2].map(|i| [m[(i, 0)], m[(i, 1)], m[(i, 2)]])
    }
}

/// Drake's roll-pitch-yaw (`drake::math::RollPitchYaw`).
pub mod drake {
    use super::*;

    /// `[roll, pitch, yaw]` to a quaternion, `R = Rz(yaw)·Ry(pitch)·Rx(roll)`.
    pub fn rpy_to_quaternion(rpy: [f64; 3]) -> UnitQuaternion<f64> {
        rot_z(rpy[2]) * rot_y(rpy[1]) * rot_x(rpy[0])
    }

    /// A rotation as `[roll, pitch, yaw]` with roll, yaw in `[-π, π]` and pitch in
    /// `[-π/2, π/2]`, computed as Drake does (pitch from the matrix, roll and yaw from the
    /// canonical quaternion's half-angle sums).
    pub fn quaternion_to_rpy(q: &UnitQuaternion<f64>) -> [f64; 3] {
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

/// Exponential coordinates (rotation vectors), used by DART ball and free joints.
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
