//! Chrono's absolute, angle-based geometry and the IR's body-local poses: the conversions both
//! directions share, so that each can check the other bit for bit.
//!
//! Chrono gives joint, motor, RSDA, TSDA and constraint geometry as absolute points and axes in
//! the initial configuration; the IR keeps body-fixed frames. Chrono angles are Cardan
//! `[yaw, pitch, roll]` in degrees (or radians); the IR keeps quaternions.

use crate::spec::rotation as conv;
use mbconv_ir::format::kit::aids;
use mbconv_ir::{Extras, Pose};
use nalgebra::{Matrix3, Quaternion, UnitQuaternion, Vector3};

/// Chrono's degree-to-radian factor (π/180).
pub const DEG_TO_RAD: f64 = std::f64::consts::PI / 180.0;

/// An angle read from the file, in radians.
pub fn angle_in(x: f64, degrees: bool) -> f64 {
    if degrees { x * DEG_TO_RAD } else { x }
}

/// An angle in radians as the file writes it.
pub fn angle_out(x: f64, degrees: bool) -> f64 {
    if degrees { x / DEG_TO_RAD } else { x }
}

/// Tolerance below which a quaternion's norm is taken as 1 and kept bit for bit.
pub const UNIT_TOLERANCE: f64 = 1e-10;

/// A rotation from 3 Cardan angles or a 4-number quaternion `[e0, e1, e2, e3]`; also returns
/// the quaternion's norm (1 for angles). `None` for other lengths or a zero quaternion.
///
/// A quaternion whose norm is within [`UNIT_TOLERANCE`] of 1 is kept exactly as written;
/// otherwise it is divided by its norm.
pub fn orientation_from(values: &[f64], degrees: bool) -> Option<(UnitQuaternion<f64>, f64)> {
    match values {
        [a, b, c] => Some((
            conv::cardan_to_quaternion([
                angle_in(*a, degrees),
                angle_in(*b, degrees),
                angle_in(*c, degrees),
            ]),
            1.0,
        )),
        [w, x, y, z] => {
            let raw = Quaternion::new(*w, *x, *y, *z);
            let norm = raw.norm();
            if !norm.is_finite() || norm == 0.0 {
                return None;
            }
            if (norm - 1.0).abs() <= UNIT_TOLERANCE {
                Some((UnitQuaternion::new_unchecked(raw), norm))
            } else {
                Some((UnitQuaternion::new_unchecked(raw / norm), norm))
            }
        }
        _ => None,
    }
}

/// The matrix Chrono builds from an orientation as written (`ChMatrix33` from a quaternion):
/// for a quaternion `q = [e0, e1, e2, e3]` with `s = |q|²` the entries are those of the unit
/// formula with `e0² + e1² + e2² + e3²` replaced by 1 only on the diagonal (`2(e0² + e1²) − 1`,
/// …), so the matrix is `s·R + (s − 1)·I` with `R` the rotation of `q/|q|`: a rotation only when
/// `s = 1` (`[2, 0, 0, 0]` gives `7·I`). Cardan angles give their rotation. `None` where
/// [`orientation_from`] gives `None`.
pub fn chrono_matrix(values: &[f64], degrees: bool) -> Option<Matrix3<f64>> {
    match values {
        [e0, e1, e2, e3] => {
            orientation_from(values, degrees)?;
            let (w, x, y, z) = (*e0, *e1, *e2, *e3);
            Some(Matrix3::new(
                2.0 * (w * w + x * x) - 1.0,
                2.0 * (x * y - w * z),
                2.0 * (x * z + w * y),
                2.0 * (x * y + w * z),
                2.0 * (w * w + y * y) - 1.0,
                2.0 * (y * z - w * x),
                2.0 * (x * z - w * y),
                2.0 * (y * z + w * x),
                2.0 * (w * w + z * z) - 1.0,
            ))
        }
        _ => orientation_from(values, degrees).map(|(q, _)| q.to_rotation_matrix().into_inner()),
    }
}

/// Where Chrono's parser puts the centre of mass of a body, in the body's reference frame
/// rotated by the unit rotation `body_unit`: `R̂ᵀ · M_body · M_com · M_comᵀ · com`, with `M` the
/// matrices of [`chrono_matrix`] (`ChBodyAuxRef::SetFrameCOMToRef` stores the inverse of the COM
/// frame, whose matrix is `M_comᵀ`, and `SetFrameRefToAbs` inverts it back, which multiplies by
/// `M_com` instead of undoing it). Equal to `com` (to rounding) when both orientations are
/// unit; a COM frame `[2, 0, 0, 0]` puts the COM 49 times as far (`7·I` twice).
pub fn chrono_com(
    body_values: &[f64],
    body_unit: &UnitQuaternion<f64>,
    com_values: &[f64],
    com: &Vector3<f64>,
    degrees: bool,
) -> Option<Vector3<f64>> {
    let m_body = chrono_matrix(body_values, degrees)?;
    let m_com = chrono_matrix(com_values, degrees)?;
    let absolute = m_body * (m_com * (m_com.transpose() * com));
    Some(body_unit.inverse_transform_vector(&absolute))
}

/// The numbers the writer uses for a rotation: `[0, 0, 0]` for the identity, Cardan angles
/// when they read back to the same bits, otherwise the quaternion `[e0, e1, e2, e3]`.
pub fn orientation_to(q: &UnitQuaternion<f64>, degrees: bool) -> Vec<f64> {
    if same_rotation(q, &UnitQuaternion::identity()) {
        return vec![0.0, 0.0, 0.0];
    }
    let cardan: Vec<f64> = conv::quaternion_to_cardan(q)
        .iter()
        .map(|a| angle_out(*a, degrees))
        .collect();
    // `-0` reads back as the same rotation in almost every case; prefer the plain zero.
    let tidy: Vec<f64> = cardan.iter().map(|a| if *a == 0.0 { 0.0 } else { *a }).collect();
    for candidate in [tidy, cardan] {
        if orientation_from(&candidate, degrees).is_some_and(|(back, _)| same_rotation(&back, q)) {
            return candidate;
        }
    }
    let q = q.quaternion();
    vec![q.w, q.i, q.j, q.k]
}

/// Keeps the orientation numbers as written (an exactness aid, see [`aids::keep`]) unless they are a quaternion that
/// had to be normalised: the writer never reuses those, it writes a unit rotation.
pub fn keep_orientation(
    extras: &mut Extras,
    key: &str,
    written: &[f64],
    q: &UnitQuaternion<f64>,
    degrees: bool,
) {
    let unit = orientation_from(written, degrees).is_some_and(|(_, n)| (n - 1.0).abs() <= UNIT_TOLERANCE);
    if unit {
        aids::keep(extras, super::FORMAT, key, written, &orientation_to(q, degrees));
    }
}

/// Bitwise equality of two quaternions.
pub fn same_rotation(a: &UnitQuaternion<f64>, b: &UnitQuaternion<f64>) -> bool {
    let (a, b) = (a.quaternion(), b.quaternion());
    a.coords
        .iter()
        .zip(b.coords.iter())
        .all(|(x, y)| x.to_bits() == y.to_bits())
}

/// Bitwise equality of two vectors.
pub fn same_vector(a: &Vector3<f64>, b: &Vector3<f64>) -> bool {
    a.iter().zip(b.iter()).all(|(x, y)| x.to_bits() == y.to_bits())
}

/// Bitwise equality of two poses.
pub fn same_pose(a: &Pose, b: &Pose) -> bool {
    same_vector(&a.translation, &b.translation) && same_rotation(&a.rotation, &b.rotation)
}

/// A world point in body coordinates.
pub fn to_local_point(body: &Pose, p: &Vector3<f64>) -> Vector3<f64> {
    body.inverse_transform_point(p)
}

/// A body point in world coordinates.
pub fn to_world_point(body: &Pose, p: &Vector3<f64>) -> Vector3<f64> {
    body.transform_point(p)
}

/// A world frame in body coordinates.
pub fn to_local_frame(body: &Pose, frame: &Pose) -> Pose {
    body.inverse() * *frame
}

/// The joint geometry Chrono reads: absolute location and the axes the joint type uses.
#[derive(Clone, Debug, PartialEq)]
pub struct JointGeometry {
    /// Absolute location.
    pub location: Vector3<f64>,
    /// `axis` (REVOLUTE, PRISMATIC).
    pub axis: Option<Vector3<f64>>,
    /// `axis1`, `axis2` (UNIVERSAL).
    pub axes: Option<(Vector3<f64>, Vector3<f64>)>,
}

/// Chrono joint types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JointType {
    /// LOCK.
    Lock,
    /// REVOLUTE.
    Revolute,
    /// SPHERICAL.
    Spherical,
    /// PRISMATIC.
    Prismatic,
    /// UNIVERSAL.
    Universal,
    /// POINT_LINE.
    PointLine,
    /// POINT_PLANE.
    PointPlane,
}

impl JointType {
    /// From the upper-cased YAML value.
    pub fn parse(upper: &str) -> Option<Self> {
        Some(match upper {
            "LOCK" => Self::Lock,
            "REVOLUTE" => Self::Revolute,
            "SPHERICAL" => Self::Spherical,
            "PRISMATIC" => Self::Prismatic,
            "UNIVERSAL" => Self::Universal,
            "POINT_LINE" => Self::PointLine,
            "POINT_PLANE" => Self::PointPlane,
            _ => return None,
        })
    }
    /// The YAML value.
    pub fn name(self) -> &'static str {
        match self {
            Self::Lock => "LOCK",
            Self::Revolute => "REVOLUTE",
            Self::Spherical => "SPHERICAL",
            Self::Prismatic => "PRISMATIC",
            Self::Universal => "UNIVERSAL",
            Self::PointLine => "POINT_LINE",
            Self::PointPlane => "POINT_PLANE",
        }
    }
    /// The Chrono joint type that says an IR joint kind as it is (`None`: Chrono YAML has
    /// none).
    pub fn of(kind: &mbconv_ir::JointKind) -> Option<Self> {
        use mbconv_ir::JointKind as K;
        Some(match kind {
            K::Fixed => Self::Lock,
            K::Revolute { .. } => Self::Revolute,
            K::Spherical => Self::Spherical,
            K::Prismatic { .. } => Self::Prismatic,
            K::Universal { .. } => Self::Universal,
            K::PointLine => Self::PointLine,
            K::PointPlane => Self::PointPlane,
            _ => return None,
        })
    }
    /// The IR joint kind (axes in the joint frame Chrono builds).
    pub fn kind(self) -> mbconv_ir::JointKind {
        use mbconv_ir::JointKind as K;
        match self {
            Self::Lock => K::Fixed,
            Self::Revolute => K::Revolute { axis: Vector3::z() },
            Self::Spherical => K::Spherical,
            Self::Prismatic => K::Prismatic { axis: Vector3::z() },
            Self::Universal => K::Universal {
                axis1: Vector3::x(),
                axis2: Vector3::y(),
            },
            Self::PointLine => K::PointLine,
            Self::PointPlane => K::PointPlane,
        }
    }
}

/// The absolute joint frame Chrono builds for a joint type from its geometry. `None` when a
/// needed axis is missing, zero, or (universal) parallel.
pub fn joint_frame(ty: JointType, g: &JointGeometry) -> Option<Pose> {
    let rotation = match ty {
        JointType::Revolute | JointType::Prismatic => conv::joint_frame_from_axis(&g.axis?)?,
        JointType::Universal => {
            let (a1, a2) = g.axes?;
            conv::universal_frame(&a1, &a2)?
        }
        JointType::Lock | JointType::Spherical | JointType::PointLine | JointType::PointPlane => {
            UnitQuaternion::identity()
        }
    };
    Some(Pose::new(g.location, rotation))
}

/// The geometry the writer gives a joint whose absolute frame is `frame`.
pub fn joint_geometry(ty: JointType, frame: &Pose) -> JointGeometry {
    let r = frame.rotation;
    JointGeometry {
        location: frame.translation,
        axis: matches!(ty, JointType::Revolute | JointType::Prismatic).then(|| r * Vector3::z()),
        axes: (ty == JointType::Universal).then(|| (r * Vector3::x(), r * Vector3::y())),
    }
}

/// The absolute frame Chrono builds for motors and RSDAs (Z = axis).
pub fn axis_frame(location: &Vector3<f64>, axis: &Vector3<f64>) -> Option<Pose> {
    Some(Pose::new(*location, conv::motor_frame_from_axis(axis)?))
}

/// A vector as three numbers.
pub fn v3(v: &Vector3<f64>) -> [f64; 3] {
    [v.x, v.y, v.z]
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn chrono_matrix_of_a_non_unit_quaternion_is_scaled_and_shifted() {
        // [2, 0, 0, 0]: s = 4, R = I, so 4·I + 3·I.
        let m = super::chrono_matrix(&[2.0, 0.0, 0.0, 0.0], true).unwrap();
        assert_eq!(m, nalgebra::Matrix3::identity() * 7.0);
        // A unit quaternion gives its rotation.
        let h = std::f64::consts::FRAC_1_SQRT_2;
        let r = super::chrono_matrix(&[h, 0.0, 0.0, h], true).unwrap();
        assert!((r - nalgebra::Matrix3::new(0.0, -1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0)).norm() < 1e-15);
        // s·R + (s − 1)·I for a general one.
        let q = [1.0, 0.2, 0.3, 0.1];
        let s2: f64 = q.iter().map(|x| x * x).sum();
        let (unit, _) = super::orientation_from(&q, true).unwrap();
        let expected =
            unit.to_rotation_matrix().into_inner() * s2 + nalgebra::Matrix3::identity() * (s2 - 1.0);
        assert!((super::chrono_matrix(&q, true).unwrap() - expected).norm() < 1e-15);
    }

    #[test]
    fn chrono_com_is_where_chrono_builds_it() {
        let (identity, _) = super::orientation_from(&[1.0, 0.0, 0.0, 0.0], true).unwrap();
        let c = super::chrono_com(
            &[1.0, 0.0, 0.0, 0.0],
            &identity,
            &[2.0, 0.0, 0.0, 0.0],
            &Vector3::x(),
            true,
        );
        assert_eq!(c, Some(Vector3::new(49.0, 0.0, 0.0)));
        // Measured with Chrono 10 (chrono_oracle --json): com.location [0.5, 0, 0] with
        // com.orientation [1, 0.2, 0.3, 0.1] on a body at the origin puts the COM at
        // [0.7912, 0.0168, 0.0056].
        let c = super::chrono_com(
            &[1.0, 0.0, 0.0, 0.0],
            &identity,
            &[1.0, 0.2, 0.3, 0.1],
            &Vector3::new(0.5, 0.0, 0.0),
            true,
        )
        .unwrap();
        assert!((c - Vector3::new(0.7912, 0.0168, 0.0056)).norm() < 1e-15, "{c}");
    }

    proptest! {
        /// Whatever rotation the IR holds, the numbers the writer picks read back to the
        /// same bits, in degrees and in radians.
        #[test]
        fn written_orientations_read_back_bit_for_bit(w in -1.0f64..1.0, x in -1.0f64..1.0, y in -1.0f64..1.0, z in -1.0f64..1.0, degrees: bool) {
            let raw = Quaternion::new(w, x, y, z);
            prop_assume!(raw.norm() > 1e-3);
            let q = UnitQuaternion::new_normalize(raw);
            let written = orientation_to(&q, degrees);
            let (back, _) = orientation_from(&written, degrees).unwrap();
            prop_assert!(same_rotation(&back, &q));
        }

        /// Cardan angles in degrees give Chrono's rotation R = Rz·Ry·Rx.
        #[test]
        fn cardan_degrees_match_the_matrix_product(yaw in -180.0f64..180.0, pitch in -89.0f64..89.0, roll in -180.0f64..180.0) {
            let (q, _) = orientation_from(&[yaw, pitch, roll], true).unwrap();
            let r = nalgebra::Rotation3::from_axis_angle(&Vector3::z_axis(), yaw * DEG_TO_RAD)
                * nalgebra::Rotation3::from_axis_angle(&Vector3::y_axis(), pitch * DEG_TO_RAD)
                * nalgebra::Rotation3::from_axis_angle(&Vector3::x_axis(), roll * DEG_TO_RAD);
            prop_assert!((q.to_rotation_matrix().matrix() - r.matrix()).abs().max() < 1e-12);
        }
    }

    #[test]
    fn joint_frames_match_the_reference_vectors() {
        let frame = |ty, axis: [f64; 3]| {
            joint_frame(
                ty,
                &JointGeometry {
                    location: Vector3::zeros(),
                    axis: Some(Vector3::from(axis)),
                    axes: None,
                },
            )
            .unwrap()
            .rotation
        };
        let h = 0.5;
        let s = std::f64::consts::FRAC_1_SQRT_2;
        for (axis, q) in [
            ([1.0, 0.0, 0.0], [h, h, h, h]),
            ([0.0, 1.0, 0.0], [s, -s, 0.0, 0.0]),
            ([0.0, 0.0, 1.0], [1.0, 0.0, 0.0, 0.0]),
            ([0.0, 0.0, -1.0], [0.0, 1.0, 0.0, 0.0]),
            ([-1.0, 0.0, 0.0], [h, -h, -h, h]),
        ] {
            let r = frame(JointType::Revolute, axis);
            let expected = UnitQuaternion::new_normalize(Quaternion::new(q[0], q[1], q[2], q[3]));
            assert!(r.angle_to(&expected) < 1e-12, "axis {axis:?}: {r:?}");
        }
    }
}
