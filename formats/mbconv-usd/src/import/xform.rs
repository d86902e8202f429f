//! Xform stacks composed as UsdGeom composes them: `xformOpOrder` lists the ops, the first
//! outermost (`["xformOp:translate", "xformOp:orient", "xformOp:scale"]` is `T·R·S`), Euler
//! ops in degrees (`rotateXYZ` turns about X first, so its matrix is `Rz·Ry·Rx`),
//! `!invert!` inverts an op and `!resetXformStack!` drops the parents' transforms.
//!
//! A transform is kept as a pose followed by a scale where it is one (every rigid op before
//! the scales, parents unscaled): then poses compose exactly, as the IR's poses do, and a
//! stack written as `translate` and `orient` reads back bit for bit. Other stacks go through
//! 4×4 matrices and are decomposed (rotation, then scale along the axes).

use crate::raw::{RawPrim, number, quat, vec3};
use crate::spec::attr;
use mbconv_ir::Pose;
use nalgebra::{Matrix3, Matrix4, Rotation3, UnitQuaternion, Vector3};
use openusd::sdf::Value;

/// A transform: `pose · diag(scale)` when `exact`, otherwise `matrix` (which always holds it).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Xf {
    pub pose: Pose,
    pub scale: Vector3<f64>,
    pub matrix: Matrix4<f64>,
    /// True when `pose` and `scale` are the transform composed without rounding through a
    /// matrix.
    pub exact: bool,
    /// True when the matrix has a shear (a rotation between scales): `pose` and `scale` are
    /// then the nearest rotation and the axes' lengths.
    pub sheared: bool,
}

impl Xf {
    /// The identity.
    pub(crate) fn identity() -> Self {
        Self::from_pose_scale(Pose::identity(), Vector3::repeat(1.0))
    }

    fn from_pose_scale(pose: Pose, scale: Vector3<f64>) -> Self {
        let matrix = pose.to_isometry().to_homogeneous() * Matrix4::new_nonuniform_scaling(&scale);
        Self {
            pose,
            scale,
            matrix,
            exact: true,
            sheared: false,
        }
    }

    /// Decomposes a matrix.
    pub(crate) fn from_matrix(matrix: Matrix4<f64>) -> Self {
        let a: Matrix3<f64> = matrix.fixed_view::<3, 3>(0, 0).into();
        let t = Vector3::new(matrix[(0, 3)], matrix[(1, 3)], matrix[(2, 3)]);
        let mut scale = Vector3::new(a.column(0).norm(), a.column(1).norm(), a.column(2).norm());
        let mut r = Matrix3::zeros();
        for i in 0..3 {
            let s = if scale[i] == 0.0 { 1.0 } else { scale[i] };
            r.set_column(i, &(a.column(i) / s));
        }
        if r.determinant() < 0.0 {
            scale[2] = -scale[2];
            r.set_column(2, &(-r.column(2)));
        }
        let sheared = (r.transpose() * r - Matrix3::identity()).abs().max() > 1e-9;
        let rotation = UnitQuaternion::from_rotation_matrix(&Rotation3::from_matrix(&r));
        Self {
            pose: Pose::new(t, rotation),
            scale,
            matrix,
            exact: false,
            sheared,
        }
    }

    /// `self · other`.
    pub(crate) fn then(&self, other: &Xf) -> Xf {
        if self.exact && other.exact && self.scale == Vector3::repeat(1.0) {
            return Self::from_pose_scale(self.pose * other.pose, other.scale);
        }
        if self.exact && other.exact && other.pose == Pose::identity() {
            return Self::from_pose_scale(self.pose, self.scale.component_mul(&other.scale));
        }
        Self::from_matrix(self.matrix * other.matrix)
    }

    /// `self⁻¹ · other` for a rigid `self` (a body frame).
    pub(crate) fn relative(body: &Pose, other: &Xf) -> Xf {
        let inverse = Self::from_pose_scale(body.inverse(), Vector3::repeat(1.0));
        inverse.then(other)
    }

    /// True when the scale is 1 along every axis and there is no shear.
    pub(crate) fn is_rigid(&self) -> bool {
        !self.sheared && (self.scale - Vector3::repeat(1.0)).abs().max() < 1e-12
    }
}

/// What reading a prim's ops found wrong.
#[derive(Debug)]
pub(crate) enum XformError {
    /// An op named in `xformOpOrder` is not authored or has the wrong type.
    Op(String),
    /// An op type UsdGeom does not define.
    UnknownOp(String),
}

/// A prim's local transform and whether it resets the parents' transforms.
pub(crate) fn local(prim: &RawPrim) -> Result<(Xf, bool), XformError> {
    let Some(Value::TokenVec(order)) = prim.attribute(attr::XFORM_OP_ORDER) else {
        return Ok((Xf::identity(), false));
    };
    let mut xf = Xf::identity();
    let mut reset = false;
    for name in order.iter().map(|t| t.as_str()) {
        if name == "!resetXformStack!" {
            reset = true;
            xf = Xf::identity();
            continue;
        }
        let (inverted, op_name) = match name.strip_prefix("!invert!") {
            Some(rest) => (true, rest),
            None => (false, name),
        };
        let mut op = op(prim, op_name)?;
        if inverted {
            op = invert(&op);
        }
        xf = xf.then(&op);
    }
    Ok((xf, reset))
}

fn invert(op: &Xf) -> Xf {
    if op.exact && op.scale == Vector3::repeat(1.0) {
        return Xf::from_pose_scale(op.pose.inverse(), op.scale);
    }
    if op.exact && op.pose == Pose::identity() {
        return Xf::from_pose_scale(Pose::identity(), op.scale.map(|s| 1.0 / s));
    }
    Xf::from_matrix(op.matrix.try_inverse().unwrap_or_else(Matrix4::identity))
}

/// One op's transform.
fn op(prim: &RawPrim, name: &str) -> Result<Xf, XformError> {
    let kind = name
        .strip_prefix("xformOp:")
        .map(|rest| rest.split(':').next().unwrap_or_default())
        .ok_or_else(|| XformError::UnknownOp(name.to_owned()))?;
    let value = prim
        .attribute(name)
        .ok_or_else(|| XformError::Op(format!("{name} is in xformOpOrder but not authored")))?;
    let wrong = || XformError::Op(format!("{name} has a value of the wrong type"));
    let v3 = || vec3(value).map(Vector3::from).ok_or_else(wrong);
    let rigid = |rotation: UnitQuaternion<f64>| {
        Xf::from_pose_scale(Pose::from_rotation(rotation), Vector3::repeat(1.0))
    };
    let about = |axis: Vector3<f64>, degrees: f64| {
        UnitQuaternion::from_axis_angle(&nalgebra::Unit::new_unchecked(axis), degrees.to_radians())
    };
    Ok(match kind {
        "translate" => Xf::from_pose_scale(Pose::from_translation(v3()?), Vector3::repeat(1.0)),
        "scale" => Xf::from_pose_scale(Pose::identity(), v3()?),
        "orient" => {
            rigid(super::mass::unit(quat(value).ok_or_else(wrong)?).ok_or_else(|| {
                XformError::Op(format!("{name} is a zero quaternion, which is no rotation"))
            })?)
        }
        "rotateX" | "rotateY" | "rotateZ" => {
            let degrees = number(value).ok_or_else(wrong)?;
            let axis = match kind {
                "rotateX" => Vector3::x(),
                "rotateY" => Vector3::y(),
                _ => Vector3::z(),
            };
            rigid(about(axis, degrees))
        }
        "transform" => {
            let Value::Matrix4d(m) = value else {
                return Err(wrong());
            };
            // USD matrices are row-vector: the transpose is the column-vector matrix.
            let matrix = Matrix4::from_row_slice(&m.0).transpose();
            Xf::from_matrix(matrix)
        }
        rotate if rotate.len() == 9 && rotate.starts_with("rotate") => {
            let angles = v3()?;
            let mut q = UnitQuaternion::identity();
            // The first letter turns first: its rotation is the innermost.
            for (i, letter) in rotate[6..].chars().enumerate() {
                let axis = match letter {
                    'X' => Vector3::x(),
                    'Y' => Vector3::y(),
                    'Z' => Vector3::z(),
                    _ => return Err(XformError::UnknownOp(name.to_owned())),
                };
                q = about(axis, angles[i]) * q;
            }
            rigid(q)
        }
        _ => return Err(XformError::UnknownOp(name.to_owned())),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matrices_decompose_into_rotation_and_scale() {
        let pose = Pose::new(
            Vector3::new(1.0, 2.0, 3.0),
            UnitQuaternion::from_euler_angles(0.1, 0.2, 0.3),
        );
        let xf = Xf::from_pose_scale(pose, Vector3::new(2.0, 3.0, 4.0));
        let back = Xf::from_matrix(xf.matrix);
        assert!((back.scale - xf.scale).norm() < 1e-12);
        assert!(back.pose.rotation.angle_to(&pose.rotation) < 1e-12);
        assert!(!back.sheared);
    }
}
