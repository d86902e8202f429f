//! The small vector, quaternion and inertia arithmetic of MuJoCo's model compiler, on plain
//! arrays and in the compiler's order of operations, so that numbers computed here agree with
//! MuJoCo's compiled model to the last bit where the operations allow it.
//!
//! Conventions (MuJoCo's): quaternions are `[w, x, y, z]`; 3×3 matrices are row-major
//! `[f64; 9]`; a symmetric inertia tensor in six numbers is `[Ixx, Iyy, Izz, Ixy, Ixz, Iyz]`.
//! Written from MuJoCo's documented behaviour and the compiler's source (`user_util.cc`),
//! read for its semantics; no code is taken from it.

/// MuJoCo's compiler tolerance (`mjEPS`): norms below it count as zero, and a vector whose norm
/// is within it of one is left as it is by [`normalize`].
pub(crate) const EPS: f64 = 1e-14;

/// MuJoCo's smallest denominator (`mjMINVAL`).
pub(crate) const MINVAL: f64 = 1e-15;

/// Normalises `v` in place the way MuJoCo's compiler does and returns its previous norm.
///
/// A vector whose squared norm is below [`EPS`] is left untouched and `0` is returned; a
/// vector whose norm is within [`EPS`] of one is left untouched (so unit input keeps its bits).
pub(crate) fn normalize(v: &mut [f64]) -> f64 {
    let squared: f64 = v.iter().map(|x| x * x).sum();
    if squared < EPS {
        return 0.0;
    }
    let norm = squared.sqrt();
    if (norm - 1.0).abs() > EPS {
        for x in v.iter_mut() {
            *x /= norm;
        }
    }
    norm
}

/// Dot product of two 3-vectors.
pub(crate) fn dot3(a: &[f64; 3], b: &[f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// Cross product `b × c`.
pub(crate) fn cross(b: &[f64; 3], c: &[f64; 3]) -> [f64; 3] {
    [
        b[1] * c[2] - b[2] * c[1],
        b[2] * c[0] - b[0] * c[2],
        b[0] * c[1] - b[1] * c[0],
    ]
}

/// Product of two quaternions `a·b`, normalised as MuJoCo's compiler does after every product.
pub(crate) fn mul_quat(a: &[f64; 4], b: &[f64; 4]) -> [f64; 4] {
    let mut q = [
        a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
        a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
        a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
        a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0],
    ];
    normalize(&mut q);
    q
}

/// Rotation matrix (row-major) of a unit quaternion; the identity quaternion gives the exact
/// identity matrix.
pub(crate) fn quat_to_mat(q: &[f64; 4]) -> [f64; 9] {
    if *q == [1.0, 0.0, 0.0, 0.0] {
        return [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];
    }
    let (q00, q01, q02, q03) = (q[0] * q[0], q[0] * q[1], q[0] * q[2], q[0] * q[3]);
    let (q11, q12, q13) = (q[1] * q[1], q[1] * q[2], q[1] * q[3]);
    let (q22, q23, q33) = (q[2] * q[2], q[2] * q[3], q[3] * q[3]);
    [
        q00 + q11 - q22 - q33,
        2.0 * (q12 - q03),
        2.0 * (q13 + q02),
        2.0 * (q12 + q03),
        q00 - q11 + q22 - q33,
        2.0 * (q23 - q01),
        2.0 * (q13 - q02),
        2.0 * (q23 + q01),
        q00 - q11 - q22 + q33,
    ]
}

/// `mat · v` for a row-major 3×3 matrix.
pub(crate) fn mat_vec(mat: &[f64; 9], v: &[f64; 3]) -> [f64; 3] {
    [
        mat[0] * v[0] + mat[1] * v[1] + mat[2] * v[2],
        mat[3] * v[0] + mat[4] * v[1] + mat[5] * v[2],
        mat[6] * v[0] + mat[7] * v[1] + mat[8] * v[2],
    ]
}

/// Rotates `v` by the unit quaternion `q` (zero vectors and the identity quaternion exactly).
pub(crate) fn rotate(v: &[f64; 3], q: &[f64; 4]) -> [f64; 3] {
    if *v == [0.0; 3] {
        return [0.0; 3];
    }
    if *q == [1.0, 0.0, 0.0, 0.0] {
        return *v;
    }
    let t = [
        q[0] * v[0] + q[2] * v[2] - q[3] * v[1],
        q[0] * v[1] + q[3] * v[0] - q[1] * v[2],
        q[0] * v[2] + q[1] * v[1] - q[2] * v[0],
    ];
    [
        v[0] + 2.0 * (q[2] * t[2] - q[3] * t[1]),
        v[1] + 2.0 * (q[3] * t[0] - q[1] * t[2]),
        v[2] + 2.0 * (q[1] * t[1] - q[2] * t[0]),
    ]
}

/// The minimal rotation taking `+z` onto the direction `v` (which MuJoCo normalises first).
pub(crate) fn z_to_quat(v: &[f64; 3]) -> [f64; 4] {
    let mut axis = cross(&[0.0, 0.0, 1.0], v);
    let s = normalize(&mut axis);
    if s < 1e-10 {
        axis = [1.0, 0.0, 0.0];
    }
    let angle = s.atan2(v[2]);
    let (sin, cos) = ((angle / 2.0).sin(), (angle / 2.0).cos());
    [cos, axis[0] * sin, axis[1] * sin, axis[2] * sin]
}

/// The quaternion of the frame whose axes (in parent coordinates) are `x`, `y` and `z`,
/// by the largest-component rule MuJoCo's compiler uses, normalised.
pub(crate) fn frame_to_quat(x: &[f64; 3], y: &[f64; 3], z: &[f64; 3]) -> [f64; 4] {
    // m[c][r]: column c (an axis), row r.
    let m = [x, y, z];
    let mut q = [0.0; 4];
    if m[0][0] + m[1][1] + m[2][2] > 0.0 {
        q[0] = 0.5 * (1.0 + m[0][0] + m[1][1] + m[2][2]).sqrt();
        q[1] = 0.25 * (m[1][2] - m[2][1]) / q[0];
        q[2] = 0.25 * (m[2][0] - m[0][2]) / q[0];
        q[3] = 0.25 * (m[0][1] - m[1][0]) / q[0];
    } else if m[0][0] > m[1][1] && m[0][0] > m[2][2] {
        q[1] = 0.5 * (1.0 + m[0][0] - m[1][1] - m[2][2]).sqrt();
        q[0] = 0.25 * (m[1][2] - m[2][1]) / q[1];
        q[2] = 0.25 * (m[1][0] + m[0][1]) / q[1];
        q[3] = 0.25 * (m[2][0] + m[0][2]) / q[1];
    } else if m[1][1] > m[2][2] {
        q[2] = 0.5 * (1.0 - m[0][0] + m[1][1] - m[2][2]).sqrt();
        q[0] = 0.25 * (m[2][0] - m[0][2]) / q[2];
        q[1] = 0.25 * (m[1][0] + m[0][1]) / q[2];
        q[3] = 0.25 * (m[2][1] + m[1][2]) / q[2];
    } else {
        q[3] = 0.5 * (1.0 - m[0][0] - m[1][1] + m[2][2]).sqrt();
        q[0] = 0.25 * (m[0][1] - m[1][0]) / q[3];
        q[1] = 0.25 * (m[2][0] + m[0][2]) / q[3];
        q[2] = 0.25 * (m[2][1] + m[1][2]) / q[3];
    }
    normalize(&mut q);
    q
}

/// A frame: position and orientation relative to a parent frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Frame {
    /// Origin in parent coordinates.
    pub pos: [f64; 3],
    /// Orientation relative to the parent, `[w, x, y, z]`.
    pub quat: [f64; 4],
}

impl Frame {
    /// The identity frame.
    pub(crate) const IDENTITY: Frame = Frame {
        pos: [0.0; 3],
        quat: [1.0, 0.0, 0.0, 0.0],
    };

    /// `self ∘ child`: the child frame expressed in this frame's parent (MuJoCo's
    /// `frameaccum`: position by the rotation matrix, orientation by a normalised product).
    pub(crate) fn compose(&self, child: &Frame) -> Frame {
        let mat = quat_to_mat(&self.quat);
        let v = mat_vec(&mat, &child.pos);
        Frame {
            pos: [self.pos[0] + v[0], self.pos[1] + v[1], self.pos[2] + v[2]],
            quat: mul_quat(&self.quat, &child.quat),
        }
    }
}

/// The six-number tensor `R·diag(d)·Rᵀ` of a diagonal inertia `d` in axes rotated by `q`.
pub(crate) fn global_inertia(d: &[f64; 3], q: &[f64; 4]) -> [f64; 6] {
    let m = quat_to_mat(q);
    let t = [
        m[0] * d[0],
        m[3] * d[0],
        m[6] * d[0],
        m[1] * d[1],
        m[4] * d[1],
        m[7] * d[1],
        m[2] * d[2],
        m[5] * d[2],
        m[8] * d[2],
    ];
    [
        m[0] * t[0] + m[1] * t[3] + m[2] * t[6],
        m[3] * t[1] + m[4] * t[4] + m[5] * t[7],
        m[6] * t[2] + m[7] * t[5] + m[8] * t[8],
        m[0] * t[1] + m[1] * t[4] + m[2] * t[7],
        m[0] * t[2] + m[1] * t[5] + m[2] * t[8],
        m[3] * t[2] + m[4] * t[5] + m[5] * t[8],
    ]
}

/// The parallel-axis term of a point mass `mass` at offset `v`, as a six-number tensor.
pub(crate) fn offset_inertia(mass: f64, v: &[f64; 3]) -> [f64; 6] {
    [
        mass * (v[1] * v[1] + v[2] * v[2]),
        mass * (v[0] * v[0] + v[2] * v[2]),
        mass * (v[0] * v[0] + v[1] * v[1]),
        -mass * v[0] * v[1],
        -mass * v[0] * v[2],
        -mass * v[1] * v[2],
    ]
}

/// The full 3×3 tensor (row-major) of a six-number tensor `[Ixx, Iyy, Izz, Ixy, Ixz, Iyz]`.
pub(crate) fn six_to_matrix(i: &[f64; 6]) -> [f64; 9] {
    [i[0], i[3], i[4], i[3], i[1], i[5], i[4], i[5], i[2]]
}

/// Product of two row-major 3×3 matrices.
pub(crate) fn mat_mul(a: &[f64; 9], b: &[f64; 9]) -> [f64; 9] {
    let mut out = [0.0; 9];
    for r in 0..3 {
        for c in 0..3 {
            out[3 * r + c] = a[3 * r] * b[c] + a[3 * r + 1] * b[3 + c] + a[3 * r + 2] * b[6 + c];
        }
    }
    out
}

/// Transpose of a row-major 3×3 matrix.
pub(crate) fn transpose(m: &[f64; 9]) -> [f64; 9] {
    [m[0], m[3], m[6], m[1], m[4], m[7], m[2], m[5], m[8]]
}

/// Principal moments of a symmetric six-number tensor, in decreasing order, and the
/// orientation of the principal axes, by the compiler's method: Jacobi rotations accumulated
/// as a quaternion (largest off-diagonal element first, stopping below 4e-15 of the largest
/// diagonal element, as MuJoCo 4.0.0 does), then the
/// moments sorted by quarter turns. The compiler's `fullinertia`, geom sums and free-joint
/// alignment all go through it, so the principal frame agrees with MuJoCo's. Like MuJoCo's, it
/// stops once a rotation's cosine is within 1e-12 of one, so the moments and axes are accurate
/// to about 1e-8 relative, not to the last bit: mbconv follows it to agree with MuJoCo's
/// compiled model rather than with the exact tensor.
pub(crate) fn eig3(tensor: &[f64; 6]) -> ([f64; 3], [f64; 4]) {
    const TOL: f64 = 1e-12;
    let mat = six_to_matrix(tensor);
    let mut quat = [1.0, 0.0, 0.0, 0.0];
    let mut values = [0.0; 3];
    for _ in 0..500 {
        let v = quat_to_mat(&quat);
        let d = mat_mul(&mat_mul(&transpose(&v), &mat), &v);
        values = [d[0], d[4], d[8]];
        let (rk, ck, axis) = if d[1].abs() > d[2].abs() && d[1].abs() > d[5].abs() {
            (0, 1, 2)
        } else if d[2].abs() > d[5].abs() {
            (0, 2, 1)
        } else {
            (1, 2, 0)
        };
        let off = d[3 * rk + ck];
        // MuJoCo 4.0.0 (the oracle's build) stops relative to the matrix's size: its
        // decomposition is scale-invariant, and measured on diagonal matrices it stops once the
        // largest off-diagonal element is below 4e-15 times the largest diagonal one (the
        // corpus commit's source had an absolute 1e-12, which leaves the axes of small
        // inertias, such as a small mesh's, 1e-3 rad off MuJoCo's).
        let scale = d[0].abs().max(d[4].abs()).max(d[8].abs());
        if off == 0.0 || off.abs() < 4e-15 * scale {
            break;
        }
        let tau = (d[4 * ck] - d[4 * rk]) / (2.0 * off);
        let t = if tau >= 0.0 {
            1.0 / (tau + (1.0 + tau * tau).sqrt())
        } else {
            -1.0 / (-tau + (1.0 + tau * tau).sqrt())
        };
        let c = 1.0 / (1.0 + t * t).sqrt();
        if c > 1.0 - TOL {
            break;
        }
        let mut step = [0.0; 4];
        let s = (0.5 - 0.5 * c).sqrt();
        step[axis + 1] = if tau >= 0.0 { -s } else { s };
        if axis == 1 {
            step[axis + 1] = -step[axis + 1];
        }
        step[0] = (1.0 - step[axis + 1] * step[axis + 1]).sqrt();
        normalize(&mut step);
        quat = mul_quat(&quat, &step);
        normalize(&mut quat);
    }
    for j in 0..3 {
        let lead = j % 2;
        if values[lead] + TOL < values[lead + 1] {
            values.swap(lead, lead + 1);
            // MuJoCo's own 15-digit cos(π/4), not the correctly rounded constant.
            #[allow(clippy::approx_constant)]
            let mut turn = [0.707106781186548, 0.0, 0.0, 0.0];
            turn[(lead + 2) % 3 + 1] = turn[0];
            quat = mul_quat(&quat, &turn);
            normalize(&mut quat);
        }
    }
    (values, quat)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn eig3_is_scale_invariant_and_handles_zero() {
        let t = [9.3e-10, 4.4e-10, 8.8e-10, 9.7e-14, 4.0e-11, -1.1e-12];
        let big: Vec<f64> = t.iter().map(|x| x * 1e9).collect();
        let (small_values, small_quat) = eig3(&t);
        let (big_values, big_quat) = eig3(&[big[0], big[1], big[2], big[3], big[4], big[5]]);
        for k in 0..4 {
            assert!((small_quat[k] - big_quat[k]).abs() < 1e-12);
        }
        for k in 0..3 {
            assert!((small_values[k] * 1e9 - big_values[k]).abs() < 1e-12 * big_values[0]);
        }
        assert_eq!(eig3(&[0.0; 6]), ([0.0; 3], [1.0, 0.0, 0.0, 0.0]));
    }

    #[test]
    fn normalize_keeps_unit_and_tiny_vectors() {
        let mut unit = [1.0, 0.0, 0.0, 0.0];
        assert_eq!(normalize(&mut unit), 1.0);
        assert_eq!(unit, [1.0, 0.0, 0.0, 0.0]);
        let mut tiny = [1e-8, 0.0, 0.0];
        assert_eq!(normalize(&mut tiny), 0.0);
        assert_eq!(tiny, [1e-8, 0.0, 0.0]);
        let mut q = [2.0, 0.0, 0.0, 0.0];
        assert_eq!(normalize(&mut q), 2.0);
        assert_eq!(q, [1.0, 0.0, 0.0, 0.0]);
    }

    #[test]
    fn rotation_matrix_and_rotate_agree() {
        let mut q = [0.3, -0.2, 0.5, 0.7];
        normalize(&mut q);
        let m = quat_to_mat(&q);
        let v = [0.4, -1.5, 2.0];
        let a = mat_vec(&m, &v);
        let b = rotate(&v, &q);
        for k in 0..3 {
            assert!((a[k] - b[k]).abs() < 1e-15);
        }
        // The frame of the matrix columns gives the quaternion back.
        let back = frame_to_quat(&[m[0], m[3], m[6]], &[m[1], m[4], m[7]], &[m[2], m[5], m[8]]);
        for k in 0..4 {
            assert!((back[k] - q[k]).abs() < 1e-15, "{back:?} {q:?}");
        }
    }

    #[test]
    fn frame_to_quat_covers_every_branch() {
        // Half turns about x, y and z take the three non-w branches.
        let x = frame_to_quat(&[1.0, 0.0, 0.0], &[0.0, -1.0, 0.0], &[0.0, 0.0, -1.0]);
        assert_eq!(x, [0.0, 1.0, 0.0, 0.0]);
        let y = frame_to_quat(&[-1.0, 0.0, 0.0], &[0.0, 1.0, 0.0], &[0.0, 0.0, -1.0]);
        assert_eq!(y, [0.0, 0.0, 1.0, 0.0]);
        let z = frame_to_quat(&[-1.0, 0.0, 0.0], &[0.0, -1.0, 0.0], &[0.0, 0.0, 1.0]);
        assert_eq!(z, [0.0, 0.0, 0.0, 1.0]);
    }

    #[test]
    fn z_to_quat_maps_z_onto_the_direction() {
        for v in [
            [1.0, 0.0, 0.0],
            [0.0, -1.0, 0.0],
            [0.6, 0.0, 0.8],
            [0.0, 0.0, -1.0],
        ] {
            let q = z_to_quat(&v);
            let z = rotate(&[0.0, 0.0, 1.0], &q);
            for k in 0..3 {
                assert!((z[k] - v[k]).abs() < 1e-15, "{v:?} -> {z:?}");
            }
        }
        // Antiparallel: a half turn about x, as MuJoCo picks.
        let q = z_to_quat(&[0.0, 0.0, -1.0]);
        assert!((q[1] - 1.0).abs() < 1e-15 && q[0].abs() < 1e-15);
    }

    #[test]
    fn inertia_of_a_rotated_diagonal_tensor() {
        // A quarter turn about z swaps the x and y moments.
        let h = std::f64::consts::FRAC_1_SQRT_2;
        let i = global_inertia(&[1.0, 2.0, 3.0], &[h, 0.0, 0.0, h]);
        assert!((i[0] - 2.0).abs() < 1e-15 && (i[1] - 1.0).abs() < 1e-15);
        assert!((i[2] - 3.0).abs() < 1e-14);
        assert!(i[3].abs() < 1e-15 && i[4].abs() < 1e-15 && i[5].abs() < 1e-15);
        assert_eq!(
            offset_inertia(2.0, &[1.0, 2.0, 0.0]),
            [8.0, 2.0, 10.0, -4.0, -0.0, -0.0]
        );
    }

    #[test]
    fn eig3_diagonalises_a_rotated_tensor() {
        let mut q = [0.9, 0.2, -0.3, 0.1];
        normalize(&mut q);
        let t = global_inertia(&[1.0, 2.0, 4.0], &q);
        let (values, axes) = eig3(&t);
        for (v, e) in values.iter().zip([4.0, 2.0, 1.0]) {
            assert!((v - e).abs() < 1e-7, "{values:?}");
        }
        // The principal frame gives the tensor back, to the method's accuracy.
        let back = global_inertia(&values, &axes);
        for k in 0..6 {
            assert!((back[k] - t[k]).abs() < 1e-7, "{back:?} {t:?}");
        }
        // An already diagonal tensor comes back to MuJoCo's 15-digit quarter turns.
        let (values, axes) = eig3(&[2.0, 1.0, 3.0, 0.0, 0.0, 0.0]);
        assert_eq!(values, [3.0, 2.0, 1.0]);
        let back = global_inertia(&values, &axes);
        for (b, e) in back.iter().zip([2.0, 1.0, 3.0, 0.0, 0.0, 0.0]) {
            assert!((b - e).abs() < 1e-13, "{back:?}");
        }
    }

    #[test]
    fn example_normalize() {
        let mut v = [3.0, 4.0, 0.0];
        assert_eq!(normalize(&mut v), 5.0);
        assert_eq!(v, [0.6, 0.8, 0.0]);
    }

    #[test]
    fn example_mul_quat() {
        let half_turn_z = [0.0, 0.0, 0.0, 1.0];
        assert_eq!(mul_quat(&half_turn_z, &half_turn_z), [-1.0, 0.0, 0.0, 0.0]);
    }

    #[test]
    fn example_z_to_quat() {
        let q = z_to_quat(&[0.0, 0.0, 1.0]);
        assert_eq!(q, [1.0, 0.0, 0.0, 0.0]);
    }

    #[test]
    fn example_frame_compose() {
        let parent = Frame {
            pos: [1.0, 0.0, 0.0],
            quat: [0.0, 0.0, 0.0, 1.0],
        };
        let child = Frame {
            pos: [1.0, 0.0, 0.0],
            quat: [1.0, 0.0, 0.0, 0.0],
        };
        assert_eq!(parent.compose(&child).pos, [0.0, 0.0, 0.0]);
    }

    #[test]
    fn example_eig3() {
        let (moments, quat) = eig3(&[1.0, 3.0, 2.0, 0.0, 0.0, 0.0]);
        assert_eq!(moments, [3.0, 2.0, 1.0]);
        assert!(
            (quat[0] * quat[0] + quat[1] * quat[1] + quat[2] * quat[2] + quat[3] * quat[3] - 1.0).abs()
                < 1e-13
        );
    }
}
