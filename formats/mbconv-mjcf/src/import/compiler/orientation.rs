//! MJCF orientations: `quat` and its alternatives `axisangle`, `euler` (with the compiler's
//! `eulerseq`), `xyaxes` and `zaxis`, in degrees or radians (the compiler's `angle`), turned
//! into a quaternion exactly as MuJoCo's compiler does.
//!
//! One element may state `quat` or one alternative, not two (MuJoCo: "multiple orientation
//! specifiers are not allowed"); an alternative, when there is one, wins over `quat`, also a
//! `quat` of a default class or of the element itself. The checks and messages follow
//! MuJoCo's (`axisangle too small`, `xaxis too small`, …).

use crate::spec::arith::{EPS, cross, dot3, frame_to_quat, mul_quat, normalize, z_to_quat};
use std::fmt;

/// Unit of the angles of a model (the compiler's `angle`; MuJoCo's default is degrees).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum AngleUnit {
    /// Degrees (`angle="degree"`, the default).
    #[default]
    Degree,
    /// Radians (`angle="radian"`).
    Radian,
}

impl AngleUnit {
    /// Parses the compiler's `angle` value (`degree` or `radian`).
    pub(crate) fn parse(text: &str) -> Option<AngleUnit> {
        match text {
            "degree" => Some(AngleUnit::Degree),
            "radian" => Some(AngleUnit::Radian),
            _ => None,
        }
    }

    /// An angle of this unit in radians (MuJoCo's arithmetic: `a / 180 * π`).
    pub(crate) fn to_radians(self, angle: f64) -> f64 {
        match self {
            AngleUnit::Degree => angle / 180.0 * std::f64::consts::PI,
            AngleUnit::Radian => angle,
        }
    }

    /// A joint angle (range, `ref`, `springref`) in radians: MuJoCo converts those by
    /// multiplying with `π/180`, a different rounding from [`AngleUnit::to_radians`].
    pub(crate) fn joint_to_radians(self, angle: f64) -> f64 {
        match self {
            AngleUnit::Degree => angle * (std::f64::consts::PI / 180.0),
            AngleUnit::Radian => angle,
        }
    }
}

/// The compiler's `eulerseq`: three axes from `xyzXYZ`; lower case rotates about the moving
/// (already rotated) axes, upper case about the fixed axes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct EulerSeq([u8; 3]);

impl Default for EulerSeq {
    fn default() -> Self {
        EulerSeq(*b"xyz")
    }
}

impl EulerSeq {
    /// Parses a sequence: exactly three characters from `xyzXYZ`.
    pub(crate) fn parse(text: &str) -> Option<EulerSeq> {
        let bytes = text.as_bytes();
        if bytes.len() != 3 || !bytes.iter().all(|b| b"xyzXYZ".contains(b)) {
            return None;
        }
        Some(EulerSeq([bytes[0], bytes[1], bytes[2]]))
    }
}

/// An orientation alternative, values as written (angles in the model's unit).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Alternative {
    /// `axisangle="x y z a"`.
    AxisAngle([f64; 4]),
    /// `xyaxes="x1 x2 x3 y1 y2 y3"`.
    XyAxes([f64; 6]),
    /// `zaxis="x y z"`.
    ZAxis([f64; 3]),
    /// `euler="a b c"`.
    Euler([f64; 3]),
}

/// Why an orientation cannot be resolved (MuJoCo's words).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(clippy::enum_variant_names)] // named after MuJoCo's messages (`axisangle too small`, ...)
pub(crate) enum OrientationError {
    /// The axis of `axisangle` has (nearly) zero length.
    AxisAngleTooSmall,
    /// The first axis of `xyaxes` has (nearly) zero length.
    XAxisTooSmall,
    /// The second axis of `xyaxes` is (nearly) parallel to the first.
    YAxisTooSmall,
    /// The axes of `xyaxes` do not span a plane.
    CrossTooSmall,
    /// `zaxis` has (nearly) zero length.
    ZAxisTooSmall,
}

impl fmt::Display for OrientationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            OrientationError::AxisAngleTooSmall => "axisangle too small",
            OrientationError::XAxisTooSmall => "xaxis too small",
            OrientationError::YAxisTooSmall => "yaxis too small",
            OrientationError::CrossTooSmall => "cross(xaxis, yaxis) too small",
            OrientationError::ZAxisTooSmall => "zaxis too small",
        })
    }
}

impl std::error::Error for OrientationError {}

/// The quaternion of an alternative (MuJoCo's `ResolveOrientation`).
pub(crate) fn resolve(
    alt: &Alternative,
    unit: AngleUnit,
    seq: EulerSeq,
) -> Result<[f64; 4], OrientationError> {
    match *alt {
        Alternative::AxisAngle(v) => {
            let angle = unit.to_radians(v[3]);
            let mut axis = [v[0], v[1], v[2]];
            if normalize(&mut axis) < EPS {
                return Err(OrientationError::AxisAngleTooSmall);
            }
            let half = angle / 2.0;
            let s = half.sin();
            Ok([half.cos(), s * axis[0], s * axis[1], s * axis[2]])
        }
        Alternative::XyAxes(v) => {
            let mut x = [v[0], v[1], v[2]];
            if normalize(&mut x) < EPS {
                return Err(OrientationError::XAxisTooSmall);
            }
            let mut y = [v[3], v[4], v[5]];
            let d = dot3(&x, &y);
            y[0] -= x[0] * d;
            y[1] -= x[1] * d;
            y[2] -= x[2] * d;
            if normalize(&mut y) < EPS {
                return Err(OrientationError::YAxisTooSmall);
            }
            let mut z = cross(&x, &y);
            if normalize(&mut z) < EPS {
                return Err(OrientationError::CrossTooSmall);
            }
            Ok(frame_to_quat(&x, &y, &z))
        }
        Alternative::ZAxis(v) => {
            let mut z = v;
            if normalize(&mut z) < EPS {
                return Err(OrientationError::ZAxisTooSmall);
            }
            Ok(z_to_quat(&z))
        }
        Alternative::Euler(v) => {
            let mut q = [1.0, 0.0, 0.0, 0.0];
            for (i, &axis) in seq.0.iter().enumerate() {
                let angle = unit.to_radians(v[i]);
                let s = (angle / 2.0).sin();
                let mut step = [(angle / 2.0).cos(), 0.0, 0.0, 0.0];
                match axis.to_ascii_lowercase() {
                    b'x' => step[1] = s,
                    b'y' => step[2] = s,
                    _ => step[3] = s,
                }
                q = if axis.is_ascii_lowercase() {
                    mul_quat(&q, &step)
                } else {
                    mul_quat(&step, &q)
                };
            }
            normalize(&mut q);
            Ok(q)
        }
    }
}

/// The orientation of a body, geom, site or inertial frame: `quat` normalised, then replaced by
/// the alternative when there is one (the compiler's order for those elements).
pub(crate) fn orientation(
    quat: [f64; 4],
    alt: Option<&Alternative>,
    unit: AngleUnit,
    seq: EulerSeq,
) -> Result<[f64; 4], OrientationError> {
    match alt {
        Some(alt) => resolve(alt, unit, seq),
        None => {
            let mut q = quat;
            normalize(&mut q);
            Ok(q)
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::spec::arith::{quat_to_mat, rotate};
    use std::f64::consts::PI;

    fn close(a: &[f64], b: &[f64], tol: f64) -> bool {
        a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tol)
    }

    /// Rotation matrix about a principal axis, for reference.
    fn rot(axis: usize, a: f64) -> nalgebra::Matrix3<f64> {
        let v = match axis {
            0 => nalgebra::Vector3::x_axis(),
            1 => nalgebra::Vector3::y_axis(),
            _ => nalgebra::Vector3::z_axis(),
        };
        *nalgebra::Rotation3::from_axis_angle(&v, a).matrix()
    }

    fn mat(q: &[f64; 4]) -> nalgebra::Matrix3<f64> {
        let m = quat_to_mat(q);
        nalgebra::Matrix3::from_row_slice(&m)
    }

    #[test]
    fn euler_intrinsic_and_extrinsic_sequences() {
        let (a, b, c) = (0.3, -0.7, 1.1);
        let xyz = resolve(
            &Alternative::Euler([a, b, c]),
            AngleUnit::Radian,
            EulerSeq::default(),
        )
        .unwrap();
        // Moving axes: R = Rx(a)·Ry(b)·Rz(c).
        let expected = rot(0, a) * rot(1, b) * rot(2, c);
        assert!((mat(&xyz) - expected).abs().max() < 1e-15);
        let seq = EulerSeq::parse("XYZ").unwrap();
        let fixed = resolve(&Alternative::Euler([a, b, c]), AngleUnit::Radian, seq).unwrap();
        // Fixed axes: R = Rz(c)·Ry(b)·Rx(a).
        let expected = rot(2, c) * rot(1, b) * rot(0, a);
        assert!((mat(&fixed) - expected).abs().max() < 1e-15);
        let mixed = resolve(
            &Alternative::Euler([a, b, c]),
            AngleUnit::Radian,
            EulerSeq::parse("zXy").unwrap(),
        )
        .unwrap();
        // z moving, then X fixed (pre-multiply), then y moving (post-multiply).
        let expected = rot(0, b) * rot(2, a) * rot(1, c);
        assert!((mat(&mixed) - expected).abs().max() < 1e-15);
    }

    #[test]
    fn degrees_are_converted_once() {
        let deg = resolve(
            &Alternative::Euler([90.0, 0.0, 0.0]),
            AngleUnit::Degree,
            EulerSeq::default(),
        )
        .unwrap();
        let rad = resolve(
            &Alternative::Euler([PI / 2.0, 0.0, 0.0]),
            AngleUnit::Radian,
            EulerSeq::default(),
        )
        .unwrap();
        assert_eq!(deg, rad);
        let aa = resolve(
            &Alternative::AxisAngle([1.0, 0.0, 0.0, 90.0]),
            AngleUnit::Degree,
            EulerSeq::default(),
        )
        .unwrap();
        assert!(close(&aa, &deg, 1e-16));
    }

    #[test]
    fn axisangle_normalises_its_axis() {
        let q = resolve(
            &Alternative::AxisAngle([0.0, 3.0, 0.0, 1.0]),
            AngleUnit::Radian,
            EulerSeq::default(),
        )
        .unwrap();
        assert_eq!(q, [(0.5f64).cos(), 0.0, (0.5f64).sin(), 0.0]);
        assert_eq!(
            resolve(
                &Alternative::AxisAngle([0.0, 0.0, 0.0, 1.0]),
                AngleUnit::Radian,
                EulerSeq::default()
            ),
            Err(OrientationError::AxisAngleTooSmall)
        );
    }

    #[test]
    fn xyaxes_orthogonalises_y() {
        let q = resolve(
            &Alternative::XyAxes([0.0, 2.0, 0.0, -1.0, 5.0, 0.0]),
            AngleUnit::Degree,
            EulerSeq::default(),
        )
        .unwrap();
        // x -> +y, y -> -x: a quarter turn about z.
        assert!(close(&rotate(&[1.0, 0.0, 0.0], &q), &[0.0, 1.0, 0.0], 1e-15));
        assert!(close(&rotate(&[0.0, 1.0, 0.0], &q), &[-1.0, 0.0, 0.0], 1e-15));
        let parallel = Alternative::XyAxes([1.0, 0.0, 0.0, 2.0, 0.0, 0.0]);
        assert_eq!(
            resolve(&parallel, AngleUnit::Degree, EulerSeq::default()),
            Err(OrientationError::YAxisTooSmall)
        );
        let zero = Alternative::XyAxes([0.0, 0.0, 0.0, 2.0, 0.0, 0.0]);
        assert_eq!(
            resolve(&zero, AngleUnit::Degree, EulerSeq::default()),
            Err(OrientationError::XAxisTooSmall)
        );
    }

    #[test]
    fn zaxis_is_the_minimal_rotation() {
        let q = resolve(
            &Alternative::ZAxis([1.0, 0.0, 0.0]),
            AngleUnit::Degree,
            EulerSeq::default(),
        )
        .unwrap();
        // A quarter turn about +y.
        assert!(close(&q, &[(PI / 4.0).cos(), 0.0, (PI / 4.0).sin(), 0.0], 1e-16));
        assert_eq!(
            resolve(
                &Alternative::ZAxis([0.0; 3]),
                AngleUnit::Degree,
                EulerSeq::default()
            )
            .unwrap_err()
            .to_string(),
            "zaxis too small"
        );
    }

    #[test]
    fn quat_is_normalised_and_alternatives_win() {
        let q = orientation([0.0, 0.0, 0.0, 3.0], None, AngleUnit::Degree, EulerSeq::default()).unwrap();
        assert_eq!(q, [0.0, 0.0, 0.0, 1.0]);
        let alt = Alternative::Euler([0.0, 0.0, 0.0]);
        let q = orientation(
            [0.0, 0.0, 0.0, 3.0],
            Some(&alt),
            AngleUnit::Degree,
            EulerSeq::default(),
        )
        .unwrap();
        assert_eq!(q, [1.0, 0.0, 0.0, 0.0]);
    }

    #[test]
    fn example_angle_unit_parse() {
        assert_eq!(AngleUnit::parse("radian"), Some(AngleUnit::Radian));
        assert_eq!(AngleUnit::parse("rad"), None);
    }

    #[test]
    fn example_angle_unit_to_radians() {
        assert_eq!(AngleUnit::Degree.to_radians(180.0), std::f64::consts::PI);
        assert_eq!(AngleUnit::Radian.to_radians(2.0), 2.0);
    }

    #[test]
    fn example_angle_unit_joint_to_radians() {
        assert_eq!(
            AngleUnit::Degree.joint_to_radians(90.0),
            90.0 * (std::f64::consts::PI / 180.0)
        );
    }

    #[test]
    fn example_euler_seq_parse() {
        assert!(EulerSeq::parse("XYZ").is_some());
        assert!(EulerSeq::parse("xyw").is_none());
        assert!(EulerSeq::parse("xy").is_none());
    }

    #[test]
    fn example_resolve() {
        let q = resolve(
            &Alternative::AxisAngle([0.0, 0.0, 2.0, 180.0]),
            AngleUnit::Degree,
            EulerSeq::default(),
        )
        .unwrap();
        assert!((q[3] - 1.0).abs() < 1e-15 && q[0].abs() < 1e-15);
    }

    #[test]
    fn example_orientation() {
        assert_eq!(
            orientation([2.0, 0.0, 0.0, 0.0], None, AngleUnit::Degree, EulerSeq::default()).unwrap(),
            [1.0, 0.0, 0.0, 0.0]
        );
    }

    #[test]
    fn euler_is_in_degrees_by_default() {
        // MJCF's default unit is degrees: euler="0 0 90" is a quarter turn about z.
        let q = resolve(
            &Alternative::Euler([0.0, 0.0, 90.0]),
            AngleUnit::Degree,
            EulerSeq::default(),
        )
        .unwrap();
        assert!((q[0] - q[3]).abs() < 1e-15);
    }
}
