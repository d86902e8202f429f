//! Spatial algebra in Featherstone's notation, written out in 3×3 blocks.
//!
//! Spatial vectors keep the angular part first: a motion is `(ω, v)` with `v` the velocity of
//! the point at the frame origin; a force is `(n, f)` with `n` the moment about the origin.

use nalgebra::{Matrix3, UnitQuaternion, Vector3};

/// A spatial motion or force vector (angular part first).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Spatial {
    /// Angular velocity, or moment about the frame origin.
    pub ang: Vector3<f64>,
    /// Linear velocity of the origin point, or force.
    pub lin: Vector3<f64>,
}

impl Spatial {
    /// The zero vector.
    pub fn zero() -> Self {
        Self {
            ang: Vector3::zeros(),
            lin: Vector3::zeros(),
        }
    }
    /// A vector from its parts.
    pub fn new(ang: Vector3<f64>, lin: Vector3<f64>) -> Self {
        Self { ang, lin }
    }
    /// True when every component is zero (of either sign).
    ///
    /// ```
    /// use mbconv_solver::spatial::Spatial;
    /// use nalgebra::Vector3;
    /// assert!(Spatial::new(Vector3::new(-0.0, 0.0, 0.0), Vector3::zeros()).is_zero());
    /// assert!(!Spatial::new(Vector3::zeros(), Vector3::new(0.0, 1e-300, 0.0)).is_zero());
    /// ```
    #[inline]
    pub fn is_zero(&self) -> bool {
        let (a, l) = (&self.ang, &self.lin);
        a.x == 0.0 && a.y == 0.0 && a.z == 0.0 && l.x == 0.0 && l.y == 0.0 && l.z == 0.0
    }
    /// Scalar product of a motion with a force (power).
    #[inline]
    pub fn dot(&self, other: &Spatial) -> f64 {
        self.ang.dot(&other.ang) + self.lin.dot(&other.lin)
    }
    /// `self × m` for two motions.
    #[inline]
    pub fn cross_motion(&self, m: &Spatial) -> Spatial {
        Spatial {
            ang: self.ang.cross(&m.ang),
            lin: self.ang.cross(&m.lin) + self.lin.cross(&m.ang),
        }
    }
    /// `self ×* f`: a motion acting on a force.
    #[inline]
    pub fn cross_force(&self, f: &Spatial) -> Spatial {
        Spatial {
            ang: self.ang.cross(&f.ang) + self.lin.cross(&f.lin),
            lin: self.ang.cross(&f.lin),
        }
    }
    /// `self * s`.
    #[inline]
    pub fn scale(&self, s: f64) -> Spatial {
        Spatial {
            ang: self.ang * s,
            lin: self.lin * s,
        }
    }
}

impl std::ops::Add for Spatial {
    type Output = Spatial;
    #[inline]
    fn add(self, o: Spatial) -> Spatial {
        Spatial {
            ang: self.ang + o.ang,
            lin: self.lin + o.lin,
        }
    }
}
impl std::ops::Sub for Spatial {
    type Output = Spatial;
    #[inline]
    fn sub(self, o: Spatial) -> Spatial {
        Spatial {
            ang: self.ang - o.ang,
            lin: self.lin - o.lin,
        }
    }
}
impl std::ops::AddAssign for Spatial {
    #[inline]
    fn add_assign(&mut self, o: Spatial) {
        self.ang += o.ang;
        self.lin += o.lin;
    }
}
impl std::ops::SubAssign for Spatial {
    #[inline]
    fn sub_assign(&mut self, o: Spatial) {
        self.ang -= o.ang;
        self.lin -= o.lin;
    }
}
impl std::ops::Neg for Spatial {
    type Output = Spatial;
    #[inline]
    fn neg(self) -> Spatial {
        Spatial {
            ang: -self.ang,
            lin: -self.lin,
        }
    }
}

/// A rigid transform: the pose of a child frame in a parent frame (`x_parent = r x_child + p`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Se3 {
    /// Orientation of the child frame in the parent frame.
    pub r: Matrix3<f64>,
    /// Origin of the child frame in parent coordinates.
    pub p: Vector3<f64>,
}

impl Default for Se3 {
    fn default() -> Self {
        Self::identity()
    }
}

impl Se3 {
    /// The identity.
    pub fn identity() -> Self {
        Self {
            r: Matrix3::identity(),
            p: Vector3::zeros(),
        }
    }
    /// From an IR pose (the quaternion is normalised).
    pub fn from_pose(pose: &mbconv_ir::Pose) -> Self {
        let q = UnitQuaternion::new_normalize(*pose.rotation.quaternion());
        Self {
            r: q.to_rotation_matrix().into_inner(),
            p: pose.translation,
        }
    }
    /// `self * other`.
    #[inline]
    pub fn compose(&self, other: &Se3) -> Se3 {
        Se3 {
            r: self.r * other.r,
            p: self.p + self.r * other.p,
        }
    }
    /// The inverse transform.
    pub fn inverse(&self) -> Se3 {
        let rt = self.r.transpose();
        Se3 {
            r: rt,
            p: -(rt * self.p),
        }
    }
    /// Maps a point from child to parent coordinates.
    #[inline]
    pub fn point(&self, x: &Vector3<f64>) -> Vector3<f64> {
        self.r * x + self.p
    }
    /// Child-coordinate motion to parent coordinates.
    #[inline]
    pub fn act_motion(&self, m: &Spatial) -> Spatial {
        let ang = self.r * m.ang;
        Spatial {
            ang,
            lin: self.r * m.lin + self.p.cross(&ang),
        }
    }
    /// Parent-coordinate motion to child coordinates.
    #[inline]
    pub fn inv_act_motion(&self, m: &Spatial) -> Spatial {
        let rt = self.r.transpose();
        Spatial {
            ang: rt * m.ang,
            lin: rt * (m.lin - self.p.cross(&m.ang)),
        }
    }
    /// Child-coordinate force to parent coordinates.
    #[inline]
    pub fn act_force(&self, f: &Spatial) -> Spatial {
        let lin = self.r * f.lin;
        Spatial {
            ang: self.r * f.ang + self.p.cross(&lin),
            lin,
        }
    }
    /// Parent-coordinate force to child coordinates.
    #[inline]
    pub fn inv_act_force(&self, f: &Spatial) -> Spatial {
        let rt = self.r.transpose();
        Spatial {
            ang: rt * (f.ang - self.p.cross(&f.lin)),
            lin: rt * f.lin,
        }
    }
    /// The orientation as a unit quaternion (closed form, no iteration: a matrix with
    /// non-finite entries gives a non-finite quaternion instead of hanging).
    pub fn quaternion(&self) -> UnitQuaternion<f64> {
        let q = UnitQuaternion::from_rotation_matrix(&nalgebra::Rotation3::from_matrix_unchecked(self.r));
        // Renormalise: `r` is orthonormal only up to rounding after many products.
        UnitQuaternion::new_normalize(q.into_inner())
    }
}

/// The cross-product matrix `[v]×`.
#[inline]
pub fn skew(v: &Vector3<f64>) -> Matrix3<f64> {
    Matrix3::new(0.0, -v.z, v.y, v.z, 0.0, -v.x, -v.y, v.x, 0.0)
}

/// Rotation by `angle` about the unit vector `axis` (Rodrigues).
#[inline]
pub fn axis_angle(axis: &Vector3<f64>, angle: f64) -> Matrix3<f64> {
    let (s, c) = angle.sin_cos();
    let (x, y, z) = (axis.x, axis.y, axis.z);
    let t = 1.0 - c;
    Matrix3::new(
        t * x * x + c,
        t * x * y - s * z,
        t * x * z + s * y,
        t * x * y + s * z,
        t * y * y + c,
        t * y * z - s * x,
        t * x * z - s * y,
        t * y * z + s * x,
        t * z * z + c,
    )
}

/// A (articulated or rigid) spatial inertia `[[a, b], [bᵀ, c]]` mapping motion to force.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Inertia6 {
    /// Angular–angular block.
    pub a: Matrix3<f64>,
    /// Angular–linear block.
    pub b: Matrix3<f64>,
    /// Linear–linear block.
    pub c: Matrix3<f64>,
}

impl Default for Inertia6 {
    fn default() -> Self {
        Self::zero()
    }
}

impl Inertia6 {
    /// The zero inertia.
    pub fn zero() -> Self {
        Self {
            a: Matrix3::zeros(),
            b: Matrix3::zeros(),
            c: Matrix3::zeros(),
        }
    }
    /// A rigid body: `mass`, centre of mass `com` and inertia `i_com` about it (frame axes).
    pub fn rigid(mass: f64, com: &Vector3<f64>, i_com: &Matrix3<f64>) -> Self {
        let h = skew(com);
        Self {
            a: i_com - mass * h * h,
            b: mass * h,
            c: Matrix3::identity() * mass,
        }
    }
    /// `I m`.
    #[inline]
    pub fn mul(&self, m: &Spatial) -> Spatial {
        Spatial {
            ang: self.a * m.ang + self.b * m.lin,
            lin: self.b.tr_mul(&m.ang) + self.c * m.lin,
        }
    }
    /// `self -= u uᵀ / d` for a force-like `u`.
    #[inline]
    pub fn sub_rank1(&mut self, u: &Spatial, inv_d: f64) {
        let ua = u.ang * inv_d;
        let ul = u.lin * inv_d;
        self.a -= ua * u.ang.transpose();
        self.b -= ua * u.lin.transpose();
        self.c -= ul * u.lin.transpose();
    }
    /// The inertia expressed in the parent frame of `x` (the pose of this inertia's frame
    /// in the parent): `Xᵀ I X` with `X` the parent-to-child motion transform.
    #[inline]
    pub fn to_parent(&self, x: &Se3) -> Inertia6 {
        let r = &x.r;
        let a = r * self.a * r.transpose();
        let b = r * self.b * r.transpose();
        let c = r * self.c * r.transpose();
        let h = skew(&x.p);
        let hc = h * c;
        let bh = b * h;
        Inertia6 {
            a: a - bh - bh.transpose() - hc * h,
            b: b + hc,
            c,
        }
    }
}

impl std::ops::AddAssign for Inertia6 {
    #[inline]
    fn add_assign(&mut self, o: Inertia6) {
        self.a += o.a;
        self.b += o.b;
        self.c += o.c;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn full(i: &Inertia6) -> nalgebra::Matrix6<f64> {
        let mut m = nalgebra::Matrix6::zeros();
        m.fixed_view_mut::<3, 3>(0, 0).copy_from(&i.a);
        m.fixed_view_mut::<3, 3>(0, 3).copy_from(&i.b);
        m.fixed_view_mut::<3, 3>(3, 0).copy_from(&i.b.transpose());
        m.fixed_view_mut::<3, 3>(3, 3).copy_from(&i.c);
        m
    }

    #[test]
    fn inertia_transform_preserves_power() {
        let i = Inertia6::rigid(
            2.0,
            &Vector3::new(0.1, -0.2, 0.3),
            &Matrix3::new(1.0, 0.1, 0.0, 0.1, 2.0, 0.2, 0.0, 0.2, 3.0),
        );
        let x = Se3 {
            r: axis_angle(&Vector3::new(0.0, 0.6, 0.8), 0.7),
            p: Vector3::new(0.3, 0.5, -1.0),
        };
        let vp = Spatial::new(Vector3::new(0.2, -0.4, 1.1), Vector3::new(-0.3, 0.8, 0.5));
        let vc = x.inv_act_motion(&vp);
        let e_child = vc.dot(&i.mul(&vc));
        let ip = i.to_parent(&x);
        let e_parent = vp.dot(&ip.mul(&vp));
        assert!((e_child - e_parent).abs() < 1e-12);
        // The force maps consistently too.
        let f = x.act_force(&i.mul(&vc));
        let g = ip.mul(&vp);
        assert!((f - g).ang.norm() < 1e-12 && (f - g).lin.norm() < 1e-12);
        assert!((full(&ip) - full(&ip).transpose()).norm() < 1e-12);
    }
}
