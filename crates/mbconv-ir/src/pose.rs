//! Rigid transforms of the IR.
//!
//! A [`Pose`] maps coordinates of a child frame into its parent frame:
//! `p_parent = R * p_child + t`. Rotations are unit quaternions, serialised scalar first
//! (`[w, x, y, z]`) so the IR JSON reads like the formats do.

use nalgebra::{Isometry3, Point3, Quaternion, Translation3, UnitQuaternion, Vector3};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A rigid transform (rotation, then translation) between two frames.
///
/// ```
/// use mbconv_ir::Pose;
/// use nalgebra::{UnitQuaternion, Vector3};
/// let a = Pose::new(Vector3::new(1.0, 0.0, 0.0), UnitQuaternion::from_euler_angles(0.0, 0.0, std::f64::consts::FRAC_PI_2));
/// let p = a.transform_point(&Vector3::new(1.0, 0.0, 0.0));
/// assert!((p - Vector3::new(1.0, 1.0, 0.0)).norm() < 1e-15);
/// assert!((a * a.inverse()).is_identity_within(1e-15));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pose {
    /// Origin of the child frame, in parent coordinates.
    pub translation: Vector3<f64>,
    /// Orientation of the child frame relative to the parent frame.
    pub rotation: UnitQuaternion<f64>,
}

impl Default for Pose {
    fn default() -> Self {
        Self::identity()
    }
}

impl Pose {
    /// The identity transform.
    pub fn identity() -> Self {
        Self {
            translation: Vector3::zeros(),
            rotation: UnitQuaternion::identity(),
        }
    }
    /// A transform from its parts.
    pub fn new(translation: Vector3<f64>, rotation: UnitQuaternion<f64>) -> Self {
        Self {
            translation,
            rotation,
        }
    }
    /// A pure translation.
    pub fn from_translation(translation: Vector3<f64>) -> Self {
        Self::new(translation, UnitQuaternion::identity())
    }
    /// A pure rotation.
    pub fn from_rotation(rotation: UnitQuaternion<f64>) -> Self {
        Self::new(Vector3::zeros(), rotation)
    }
    /// The equivalent nalgebra isometry.
    pub fn to_isometry(&self) -> Isometry3<f64> {
        Isometry3::from_parts(Translation3::from(self.translation), self.rotation)
    }
    /// A pose from an nalgebra isometry.
    pub fn from_isometry(iso: &Isometry3<f64>) -> Self {
        Self::new(iso.translation.vector, iso.rotation)
    }
    /// The inverse transform.
    pub fn inverse(&self) -> Self {
        let rotation = self.rotation.inverse();
        Self::new(-(rotation * self.translation), rotation)
    }
    /// Maps a point from child to parent coordinates.
    pub fn transform_point(&self, p: &Vector3<f64>) -> Vector3<f64> {
        self.rotation * p + self.translation
    }
    /// Rotates a free vector from child to parent coordinates.
    pub fn transform_vector(&self, v: &Vector3<f64>) -> Vector3<f64> {
        self.rotation * v
    }
    /// Maps a point from parent to child coordinates.
    pub fn inverse_transform_point(&self, p: &Vector3<f64>) -> Vector3<f64> {
        self.rotation.inverse() * (p - self.translation)
    }
    /// True when translation and rotation are bit-for-bit the identity (`+0.0` and `[1,0,0,0]`).
    pub fn is_exact_identity(&self) -> bool {
        let q = self.rotation.quaternion();
        self.translation.iter().all(|x| x.to_bits() == 0)
            && q.w.to_bits() == 1.0f64.to_bits()
            && [q.i, q.j, q.k].iter().all(|x| x.to_bits() == 0)
    }
    /// True when the transform is the identity within `tol` (metres and radians).
    pub fn is_identity_within(&self, tol: f64) -> bool {
        self.translation.norm() <= tol && self.rotation.angle() <= tol
    }
    /// Largest of the translation distance and the rotation angle between two poses.
    pub fn distance(&self, other: &Pose) -> f64 {
        let d = self.inverse() * *other;
        d.translation.norm().max(d.rotation.angle())
    }
    /// The point `[x, y, z]` as an nalgebra point.
    pub fn origin(&self) -> Point3<f64> {
        Point3::from(self.translation)
    }
}

impl std::ops::Mul for Pose {
    type Output = Pose;
    fn mul(self, rhs: Pose) -> Pose {
        Pose::new(
            self.rotation * rhs.translation + self.translation,
            self.rotation * rhs.rotation,
        )
    }
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct PoseRepr {
    #[serde(default, skip_serializing_if = "is_zero_bits")]
    translation: [f64; 3],
    #[serde(default = "unit_w", skip_serializing_if = "is_unit_w")]
    rotation: [f64; 4],
}

fn is_zero_bits(v: &[f64; 3]) -> bool {
    v.iter().all(|x| x.to_bits() == 0)
}
fn unit_w() -> [f64; 4] {
    [1.0, 0.0, 0.0, 0.0]
}
fn is_unit_w(q: &[f64; 4]) -> bool {
    q[0].to_bits() == 1.0f64.to_bits() && q[1..].iter().all(|x| x.to_bits() == 0)
}

impl Serialize for Pose {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let q = self.rotation.quaternion();
        PoseRepr {
            translation: [self.translation.x, self.translation.y, self.translation.z],
            rotation: [q.w, q.i, q.j, q.k],
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Pose {
    /// Reads `{"translation": [x,y,z], "rotation": [w,x,y,z]}`. The quaternion is stored as
    /// written (never renormalised, so bits survive); validation reports a non-unit one.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let repr = PoseRepr::deserialize(deserializer)?;
        let [w, x, y, z] = repr.rotation;
        Ok(Pose::new(
            Vector3::from(repr.translation),
            UnitQuaternion::new_unchecked(Quaternion::new(w, x, y, z)),
        ))
    }
}

/// Serde helper for an `nalgebra::UnitQuaternion` written scalar first, `[w, x, y, z]`.
pub mod quaternion_wxyz {
    use nalgebra::{Quaternion, UnitQuaternion};
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    /// Writes `[w, x, y, z]`.
    pub fn serialize<S: Serializer>(q: &UnitQuaternion<f64>, s: S) -> Result<S::Ok, S::Error> {
        let q = q.quaternion();
        [q.w, q.i, q.j, q.k].serialize(s)
    }
    /// Reads `[w, x, y, z]` without renormalising.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<UnitQuaternion<f64>, D::Error> {
        let [w, x, y, z] = <[f64; 4]>::deserialize(d)?;
        Ok(UnitQuaternion::new_unchecked(Quaternion::new(w, x, y, z)))
    }
}

/// `[w, x, y, z]` of a unit quaternion.
pub fn wxyz(q: &UnitQuaternion<f64>) -> [f64; 4] {
    let q = q.quaternion();
    [q.w, q.i, q.j, q.k]
}
