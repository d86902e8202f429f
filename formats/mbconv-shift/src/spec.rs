//! What reading and writing share: names, joint types, settings and the conventions the Shift
//! documentation leaves open (decided here, documented in `docs/formats/shift.md`).
//!
//! * A frame's `R` is given row by row; its **columns** are the frame's axes in body
//!   coordinates (`p_body = R·p_frame + T`).
//! * The `{R, T}` of a `rigid` or `float` joint (`initial_displacement`) is the pose of the
//!   child frame in the parent frame: `X_parentframe_childframe = (R, T)`.
//! * Restraint `coefficients` are in **descending** powers (the documentation's example
//!   `[2, 0.5, 0]` is `2φ² + 0.5φ`); a joint's `stiffness`/`damping` arrays are in
//!   **ascending** powers (`[-1000, 10000]` is `-1000 + 10000·q`). The polynomial's value is
//!   the force that acts against the variable (the IR's sign).
//! * A float joint's 6 velocity numbers are `[v, ω]`, the IR free-joint order.

use mbconv_ir::format::SettingSpec;
use mbconv_ir::format::settings::SettingKind;
use nalgebra::Vector3;

/// The format name, prefix of codes and extras keys.
pub(crate) const FORMAT: &str = "shift";

/// The implicit frame of every body and of `fixed`.
pub(crate) const ORIGIN: &str = "origin";

/// The inertial reference body.
pub(crate) const FIXED: &str = "fixed";

/// The path separator of assemblies.
pub(crate) const PATH_SEPARATOR: char = ':';

/// Extras key holding a joint's parent frame name.
pub(crate) const PARENT_FRAME_KEY: &str = "shift.parent_frame";
/// Extras key holding a joint's child frame name.
pub(crate) const CHILD_FRAME_KEY: &str = "shift.child_frame";

/// Aid: a rigid joint's offset `[T, R rows]` as written.
pub(crate) const OFFSET_AID: &str = "offset";
/// Aid: the `R` rows of a float or spherical joint's displacement as written.
pub(crate) const ROWS_AID: &str = "displacement";

/// Shift's rotation matrices: written row by row, their columns the frame's axes in body
/// coordinates.
pub(crate) mod rows {
    use nalgebra::{Matrix3, Rotation3, UnitQuaternion};

    /// A rotation from the matrix rows as written in the file (`R[i] = rows[i]`). Returns the
    /// rotation and the matrix's deviation from orthonormality (`max |RᵀR − I|` plus
    /// `|det R − 1|`). A matrix that is not orthonormal is replaced by the nearest rotation.
    pub(crate) fn from_rows(rows: [[f64; 3]; 3]) -> (UnitQuaternion<f64>, f64) {
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
    pub(crate) fn to_rows(q: &UnitQuaternion<f64>) -> [[f64; 3]; 3] {
        let m = q.to_rotation_matrix().into_inner();
        [0, 1, 2].map(|i| [m[(i, 0)], m[(i, 1)], m[(i, 2)]])
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use nalgebra::Vector3;

        #[test]
        fn matrices_are_rows_whose_columns_are_frame_axes() {
            // A frame whose x axis points along body y: the first column is (0, 1, 0).
            let rows = [[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]];
            let (q, deviation) = from_rows(rows);
            assert_eq!(deviation, 0.0);
            assert!((q * Vector3::x() - Vector3::y()).norm() <= 1e-12);
            assert_eq!(to_rows(&q).map(|r| r.map(|x| x.round())), rows);
            // A matrix printed with few digits is replaced by the nearest rotation and reported.
            let (q, deviation) = from_rows([[0.866, -0.5, 0.0], [0.5, 0.866, 0.0], [0.0, 0.0, 1.0]]);
            assert!(deviation > 1e-5);
            assert!((q.quaternion().norm() - 1.0).abs() <= 1e-12);
            assert!((q.angle() - std::f64::consts::FRAC_PI_6).abs() < 1e-3);
        }

        #[test]
        fn a_huge_or_reflecting_matrix_gives_a_rotation() {
            let (q, deviation) = from_rows([[1e52, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, -1.0]]);
            assert!(deviation > 1.0 && (q.quaternion().norm() - 1.0).abs() < 1e-12);
        }
    }
}

/// `[T, R rows]` of a pose, as the writer gives them.
pub(crate) fn pose_numbers(pose: &mbconv_ir::Pose) -> Vec<f64> {
    let mut out = pose.translation.as_slice().to_vec();
    out.extend(rows::to_rows(&pose.rotation).iter().flatten());
    out
}

/// The `R` rows the writer gives for a rotation vector.
pub(crate) fn rows_of_rotation_vector(v: [f64; 3]) -> Vec<f64> {
    let q = mbconv_ir::rotation::rotation_vector::to_quaternion(v);
    rows::to_rows(&q).iter().flatten().copied().collect()
}

/// Which spelling of the format the writer uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// The documented format: `fixed`, `body_frame_pairs`, `Rx`…`Tz`, `mass` +
    /// `moment_of_inertia`, `restraints`.
    Spec,
    /// The published models' 2.0 syntax: top-level `frames`, `parent`/`child` paths,
    /// `revolute`/`prismatic` with `axis`, `inertia{}`.
    V2,
}

/// The write settings.
pub(crate) const WRITE_SETTINGS: &[SettingSpec] = &[SettingSpec {
    name: "dialect",
    kind: SettingKind::Choice(&["spec", "2.0"]),
    default: "spec",
    help: "`spec`: the documented syntax (body_frame_pairs, Rx..Tz); `2.0`: the published models' parent/child syntax",
}];

impl Dialect {
    /// The dialect `options` ask for.
    pub(crate) fn from_options(options: &mbconv_ir::format::Options) -> Self {
        match options.choice("dialect", &["spec", "2.0"]) {
            Some("2.0") => Self::V2,
            _ => Self::Spec,
        }
    }
}

/// The primitive joint types: name, revolute (else prismatic), axis.
pub(crate) fn primitive_axis(type_name: &str) -> Option<(bool, Vector3<f64>)> {
    Some(match type_name {
        "Rx" => (true, Vector3::x()),
        "Ry" => (true, Vector3::y()),
        "Rz" => (true, Vector3::z()),
        "Tx" => (false, Vector3::x()),
        "Ty" => (false, Vector3::y()),
        "Tz" => (false, Vector3::z()),
        _ => return None,
    })
}

/// The primitive joint type for a unit coordinate axis, if it is one.
pub(crate) fn primitive_name(revolute: bool, axis: &Vector3<f64>) -> Option<&'static str> {
    let names = if revolute {
        ["Rx", "Ry", "Rz"]
    } else {
        ["Tx", "Ty", "Tz"]
    };
    (0..3).find(|&i| *axis == Vector3::ith(i, 1.0)).map(|i| names[i])
}

/// Descending-power coefficients (the file's restraint order) to ascending (the IR's).
pub(crate) fn ascending(descending: &[f64]) -> Vec<f64> {
    descending.iter().rev().copied().collect()
}
