//! Bodies, their mass properties and named frames.

use crate::model::geometry::{ContactMaterial, Shape};
use crate::pose::{Pose, quaternion_wxyz};
use crate::value::Extras;
use nalgebra::{Matrix3, UnitQuaternion, Vector3};
use serde::{Deserialize, Serialize};

/// A rigid body.
///
/// `pose` is the world pose of the body frame in the **reference configuration**: every
/// spanning-tree joint at zero. The initial state puts each joint's `q0` on top of it
/// (see [`crate::kinematics`]). Shapes, frames, the centre of mass and joint frames are all
/// expressed in the body frame.
///
/// ```
/// use mbconv_ir::Body;
/// let body = Body::new("link1");
/// assert_eq!(body.inertial.mass, 1.0);
/// assert!(body.gravity && !body.fixed);
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Body {
    /// Unique body name.
    pub name: String,
    /// World pose of the body frame in the reference configuration.
    #[serde(default)]
    pub pose: Pose,
    /// Welded to the world at `pose`.
    #[serde(default, skip_serializing_if = "is_false")]
    pub fixed: bool,
    /// Mass, centre of mass and inertia.
    pub inertial: Inertial,
    /// Whether gravity acts on this body.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub gravity: bool,
    /// False for a body the model switches off (Shift `active: false`): it takes no part in
    /// the dynamics (it stays where it is, and the joints touching it are left out of the
    /// spanning tree). See [`Model::active_bodies`](crate::Model::active_bodies).
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub enabled: bool,
    /// Velocity of the body at the initial state, for bodies whose velocity a format gives
    /// directly (Chrono). Joint velocities (`v0`) are applied on top.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_velocity: Option<Twist>,
    /// Visual and collision shapes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shapes: Vec<Shape>,
    /// Contact materials that shapes of this body refer to by name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub contact_materials: Vec<ContactMaterial>,
    /// Named frames and markers fixed to the body.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub frames: Vec<Frame>,
    /// Format-specific data kept verbatim.
    #[serde(default, skip_serializing_if = "Extras::is_empty")]
    pub extras: Extras,
}

impl Body {
    /// A free body at the origin with unit mass and unit inertia (the default of DART,
    /// Choreonoid and Shift when nothing is said).
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            pose: Pose::identity(),
            fixed: false,
            inertial: Inertial::default(),
            gravity: true,
            enabled: true,
            initial_velocity: None,
            shapes: Vec::new(),
            contact_materials: Vec::new(),
            frames: Vec::new(),
            extras: Extras::default(),
        }
    }

    /// The named frame on this body (`"origin"` is not implicit here; formats add it).
    pub fn frame(&self, name: &str) -> Option<&Frame> {
        self.frames.iter().find(|f| f.name == name)
    }
}

/// Mass properties: mass, centre of mass and the inertia tensor about the centre of mass.
///
/// The tensor is expressed in the axes of `inertia_rotation` (relative to the body frame),
/// which is the identity unless a format states a rotated centroidal frame (Chrono's
/// `com.orientation`); use [`Inertial::inertia_in_body_axes`] for the body-axes tensor.
///
/// ```
/// use mbconv_ir::{Inertial, Inertia};
/// let i = Inertial { mass: 2.0, inertia: Inertia::from_moments_products([1.0, 2.0, 3.0], [0.0; 3]), ..Inertial::default() };
/// assert_eq!(i.inertia_in_body_axes()[(2, 2)], 3.0);
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Inertial {
    /// Mass in kilograms.
    pub mass: f64,
    /// Centre of mass in the body frame.
    #[serde(default = "Vector3::zeros")]
    pub com: Vector3<f64>,
    /// Inertia tensor about the centre of mass, in `inertia_rotation` axes.
    pub inertia: Inertia,
    /// Orientation of the axes the tensor is expressed in, relative to the body frame.
    #[serde(
        default = "UnitQuaternion::identity",
        with = "quaternion_wxyz",
        skip_serializing_if = "is_identity_rotation"
    )]
    pub inertia_rotation: UnitQuaternion<f64>,
}

impl Default for Inertial {
    fn default() -> Self {
        Self {
            mass: 1.0,
            com: Vector3::zeros(),
            inertia: Inertia::identity(),
            inertia_rotation: UnitQuaternion::identity(),
        }
    }
}

impl Inertial {
    /// The inertia tensor about the centre of mass in body-frame axes: `R I Rᵀ`.
    pub fn inertia_in_body_axes(&self) -> Matrix3<f64> {
        let r = self.inertia_rotation.to_rotation_matrix().into_inner();
        if self.inertia_rotation == UnitQuaternion::identity() {
            self.inertia.matrix()
        } else {
            r * self.inertia.matrix() * r.transpose()
        }
    }

    /// The principal moments of the tensor in body axes and the rotation whose columns are
    /// their axes (a proper rotation): the same tensor to rounding, written as a diagonal in
    /// rotated axes (USD's `diagonalInertia` and `principalAxes`, MJCF's `diaginertia` and
    /// `quat`).
    ///
    /// ```
    /// let mut i = mbconv_ir::Inertial::default();
    /// i.inertia = mbconv_ir::Inertia::from_moments_products([2.0, 2.0, 1.0], [0.5, 0.0, 0.0]);
    /// let (moments, axes) = i.principal_axes();
    /// let r = axes.to_rotation_matrix().into_inner();
    /// let rebuilt = r * nalgebra::Matrix3::from_diagonal(&moments.into()) * r.transpose();
    /// assert!((rebuilt - i.inertia_in_body_axes()).amax() < 1e-12);
    /// ```
    pub fn principal_axes(&self) -> ([f64; 3], UnitQuaternion<f64>) {
        let eigen = nalgebra::SymmetricEigen::new(self.inertia_in_body_axes());
        let mut v: Matrix3<f64> = eigen.eigenvectors;
        if v.determinant() < 0.0 {
            v.set_column(2, &(-v.column(2)));
        }
        let axes = UnitQuaternion::from_rotation_matrix(&nalgebra::Rotation3::from_matrix_unchecked(v));
        (eigen.eigenvalues.into(), axes)
    }
}

/// A 3×3 inertia tensor (kg·m²), stored row by row as written, tensor entries
/// (`I[0][1] = Ixy = −∫xy dm`). A format that writes only six numbers gives a symmetric one;
/// validation reports an asymmetric one.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Inertia(pub [[f64; 3]; 3]);

impl Inertia {
    /// The unit tensor.
    pub fn identity() -> Self {
        Self([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    }
    /// The zero tensor.
    pub fn zero() -> Self {
        Self([[0.0; 3]; 3])
    }
    /// A symmetric tensor from moments `[Ixx, Iyy, Izz]` and products `[Ixy, Ixz, Iyz]`.
    pub fn from_moments_products(moments: [f64; 3], products: [f64; 3]) -> Self {
        let [ixx, iyy, izz] = moments;
        let [ixy, ixz, iyz] = products;
        Self([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])
    }
    /// A tensor from an nalgebra matrix.
    pub fn from_matrix(m: &Matrix3<f64>) -> Self {
        Self([0, 1, 2].map(|i| [m[(i, 0)], m[(i, 1)], m[(i, 2)]]))
    }
    /// The tensor as an nalgebra matrix.
    pub fn matrix(&self) -> Matrix3<f64> {
        Matrix3::from_fn(|i, j| self.0[i][j])
    }
    /// `[Ixx, Iyy, Izz]`.
    pub fn moments(&self) -> [f64; 3] {
        [self.0[0][0], self.0[1][1], self.0[2][2]]
    }
    /// `[Ixy, Ixz, Iyz]` from the upper triangle.
    pub fn products(&self) -> [f64; 3] {
        [self.0[0][1], self.0[0][2], self.0[1][2]]
    }
    /// Adds `moment` (kg·m²) about every axis: the tensor of a uniform spherical shell added,
    /// which keeps the principal axes in any frame and raises every principal moment by
    /// `moment`.
    ///
    /// ```
    /// use mbconv_ir::Inertia;
    /// let mut inertia = Inertia::from_moments_products([1.0, 2.0, 3.0], [0.5, 0.0, 0.0]);
    /// inertia.add_about_every_axis(0.25);
    /// assert_eq!(inertia.moments(), [1.25, 2.25, 3.25]);
    /// assert_eq!(inertia.products(), [0.5, 0.0, 0.0]);
    /// ```
    pub fn add_about_every_axis(&mut self, moment: f64) {
        for i in 0..3 {
            self.0[i][i] += moment;
        }
    }

    /// The symmetric part of the tensor when it is not symmetric (each product the mean of its
    /// two entries), for writers whose formats hold six numbers; `None` when it is symmetric.
    ///
    /// ```
    /// use mbconv_ir::Inertia;
    /// let skewed = Inertia([[1.0, 0.2, 0.0], [0.4, 1.0, 0.0], [0.0, 0.0, 1.0]]);
    /// assert_eq!(skewed.symmetrised().unwrap().products(), [0.30000000000000004, 0.0, 0.0]);
    /// assert_eq!(Inertia::identity().symmetrised(), None);
    /// ```
    pub fn symmetrised(&self) -> Option<Inertia> {
        let m = self.0;
        if m[0][1] == m[1][0] && m[0][2] == m[2][0] && m[1][2] == m[2][1] {
            return None;
        }
        let mut sym = m;
        for (r, c) in [(0, 1), (0, 2), (1, 2)] {
            let v = 0.5 * (m[r][c] + m[c][r]);
            sym[r][c] = v;
            sym[c][r] = v;
        }
        Some(Inertia(sym))
    }
}

/// A spatial velocity in world coordinates: `linear` is the velocity of the body-frame origin.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Twist {
    /// Linear velocity of the body-frame origin, world frame (m/s).
    pub linear: Vector3<f64>,
    /// Angular velocity, world frame (rad/s).
    pub angular: Vector3<f64>,
}

/// A named frame fixed to a body (or to the world): Shift frames, DART markers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Frame {
    /// Name, unique within its body.
    pub name: String,
    /// Pose of the frame in the body frame.
    #[serde(default)]
    pub pose: Pose,
    /// What the format called it.
    #[serde(default, skip_serializing_if = "FrameKind::is_frame")]
    pub kind: FrameKind,
    /// Format-specific data kept verbatim.
    #[serde(default, skip_serializing_if = "Extras::is_empty")]
    pub extras: Extras,
}

/// The kind of a named frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FrameKind {
    /// A coordinate system (Shift frames, Drake frames).
    #[default]
    Frame,
    /// A marker (DART `<marker>`: position only).
    Marker,
}

impl FrameKind {
    fn is_frame(&self) -> bool {
        *self == FrameKind::Frame
    }
}

pub(crate) fn is_false(b: &bool) -> bool {
    !*b
}
pub(crate) fn is_true(b: &bool) -> bool {
    *b
}
pub(crate) fn yes() -> bool {
    true
}
pub(crate) fn is_identity_rotation(q: &UnitQuaternion<f64>) -> bool {
    let q = q.quaternion();
    q.w.to_bits() == 1.0f64.to_bits() && [q.i, q.j, q.k].iter().all(|x| x.to_bits() == 0)
}
