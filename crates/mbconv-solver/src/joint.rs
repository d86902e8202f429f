//! Joint models of the solver: motion `J(q)`, motion subspace `S(q)`, bias `Ṡq̇` and the
//! position update, for every IR joint type (quaternions for ball-like rotations).

// Numeric kernels index several arrays with the same coordinate index.
#![allow(clippy::needless_range_loop)]

use crate::spatial::{Se3, Spatial, axis_angle};
use nalgebra::{Matrix3, Quaternion, UnitQuaternion, Vector3};

/// The rotational part of a [`JointModel::SlideRotate`] joint.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RotationPart {
    /// No rotation.
    None,
    /// Rotation about a fixed unit axis (one angle coordinate).
    Axis(Vector3<f64>),
    /// Free rotation: a unit quaternion `[w, x, y, z]` and the angular velocity in the child
    /// joint frame.
    Ball,
}

/// One joint of the solver's tree. All vectors are unit vectors in the joint frames.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum JointModel {
    /// Rotation about `axis`.
    Revolute {
        /// Unit axis.
        axis: Vector3<f64>,
    },
    /// Translation along `axis`.
    Prismatic {
        /// Unit axis.
        axis: Vector3<f64>,
    },
    /// Rotation about `axis` with `lead` metres of translation per radian.
    Helical {
        /// Unit axis.
        axis: Vector3<f64>,
        /// Translation per radian.
        lead: f64,
    },
    /// `R = Rot(a₀, q₀)·Rot(a₁, q₁)·…` (universal and Euler joints).
    RotationSequence {
        /// Axes (the first `count` are used).
        axes: [Vector3<f64>; 3],
        /// Number of rotations.
        count: usize,
    },
    /// `Trans(Σ slidesᵢ qᵢ) · rotation` (translational, cylindrical, planar, spherical,
    /// point-line, point-plane).
    SlideRotate {
        /// Slide axes (the first `slide_count` are used).
        slides: [Vector3<f64>; 3],
        /// Number of slide coordinates.
        slide_count: usize,
        /// Rotation part.
        rotation: RotationPart,
    },
    /// Six degrees of freedom: `q = [x, y, z, qw, qx, qy, qz]` (pose of the child joint frame
    /// in the parent joint frame), `v = [ω, v]` in the child joint frame (body velocity).
    Free,
}

/// Output of [`JointModel::calc`].
#[derive(Clone, Copy, Debug, Default)]
pub struct JointState {
    /// Pose of the child joint frame in the parent joint frame.
    pub motion: Se3,
    /// Motion subspace columns (child joint frame); the first `nv` are meaningful.
    pub s: [Spatial; 6],
    /// Joint velocity `S q̇`.
    pub vj: Spatial,
    /// Bias `Ṡ q̇`.
    pub cj: Spatial,
}

fn quat_at(q: &[f64]) -> UnitQuaternion<f64> {
    UnitQuaternion::new_normalize(Quaternion::new(q[0], q[1], q[2], q[3]))
}

/// Writes `exp(½ ω dt)`-rotated quaternion `q ⊗ exp(ω dt)` back into `q`.
fn quat_integrate(q: &mut [f64], omega: &Vector3<f64>, dt: f64) {
    let cur = quat_at(q);
    let next = cur * UnitQuaternion::from_scaled_axis(omega * dt);
    let n = next.quaternion();
    q[0] = n.w;
    q[1] = n.i;
    q[2] = n.j;
    q[3] = n.k;
}

/// `½ q ⊗ (0, ω)` into `out[0..4]`.
fn quat_rate(q: &[f64], omega: &Vector3<f64>, out: &mut [f64]) {
    let d = Quaternion::new(q[0], q[1], q[2], q[3]) * Quaternion::new(0.0, omega.x, omega.y, omega.z) * 0.5;
    out[0] = d.w;
    out[1] = d.i;
    out[2] = d.j;
    out[3] = d.k;
}

fn normalize_quat(q: &mut [f64]) {
    let n = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
    if n > 0.0 {
        q.iter_mut().take(4).for_each(|x| *x /= n);
    } else {
        q[0] = 1.0;
    }
}

impl JointModel {
    /// Number of position coordinates (quaternions count four).
    pub fn nq(&self) -> usize {
        match self {
            JointModel::Revolute { .. } | JointModel::Prismatic { .. } | JointModel::Helical { .. } => 1,
            JointModel::RotationSequence { count, .. } => *count,
            JointModel::SlideRotate {
                slide_count,
                rotation,
                ..
            } => {
                slide_count
                    + match rotation {
                        RotationPart::None => 0,
                        RotationPart::Axis(_) => 1,
                        RotationPart::Ball => 4,
                    }
            }
            JointModel::Free => 7,
        }
    }

    /// Number of velocity coordinates.
    pub fn nv(&self) -> usize {
        match self {
            JointModel::SlideRotate {
                slide_count,
                rotation: RotationPart::Ball,
                ..
            } => slide_count + 3,
            JointModel::Free => 6,
            other => other.nq(),
        }
    }

    /// Index of the first quaternion coordinate within `q`, if the joint has one.
    pub fn quaternion_offset(&self) -> Option<usize> {
        match self {
            JointModel::SlideRotate {
                slide_count,
                rotation: RotationPart::Ball,
                ..
            } => Some(*slide_count),
            JointModel::Free => Some(3),
            _ => None,
        }
    }

    /// Motion, subspace, joint velocity and bias at `(q, v)`.
    pub fn calc(&self, q: &[f64], v: &[f64], out: &mut JointState) {
        match self {
            JointModel::Revolute { axis } => {
                out.motion = Se3 {
                    r: axis_angle(axis, q[0]),
                    p: Vector3::zeros(),
                };
                out.s[0] = Spatial::new(*axis, Vector3::zeros());
                out.vj = out.s[0].scale(v[0]);
                out.cj = Spatial::zero();
            }
            JointModel::Prismatic { axis } => {
                out.motion = Se3 {
                    r: Matrix3::identity(),
                    p: axis * q[0],
                };
                out.s[0] = Spatial::new(Vector3::zeros(), *axis);
                out.vj = out.s[0].scale(v[0]);
                out.cj = Spatial::zero();
            }
            JointModel::Helical { axis, lead } => {
                out.motion = Se3 {
                    r: axis_angle(axis, q[0]),
                    p: axis * (lead * q[0]),
                };
                out.s[0] = Spatial::new(*axis, axis * *lead);
                out.vj = out.s[0].scale(v[0]);
                out.cj = Spatial::zero();
            }
            JointModel::RotationSequence { axes, count } => {
                // Frames F_k = F_{k-1} Rot(a_k, q_k); angular velocity w_k in F_k.
                let mut r = Matrix3::identity();
                let mut w = Vector3::zeros();
                let mut c = Vector3::zeros();
                let mut rots = [Matrix3::identity(); 3];
                for k in 0..*count {
                    rots[k] = axis_angle(&axes[k], q[k]);
                    r *= rots[k];
                    let rt = rots[k].transpose();
                    let wk = axes[k] * v[k];
                    c = rt * c - wk.cross(&(rt * w));
                    w = rt * w + wk;
                }
                // S_k = (R_{k+1} … R_n)ᵀ a_k.
                let mut tail = Matrix3::identity();
                for k in (0..*count).rev() {
                    out.s[k] = Spatial::new(tail.transpose() * axes[k], Vector3::zeros());
                    tail = rots[k] * tail;
                }
                out.motion = Se3 {
                    r,
                    p: Vector3::zeros(),
                };
                out.vj = Spatial::new(w, Vector3::zeros());
                out.cj = Spatial::new(c, Vector3::zeros());
            }
            JointModel::SlideRotate {
                slides,
                slide_count,
                rotation,
            } => {
                let n = *slide_count;
                let mut p = Vector3::zeros();
                let mut pdot = Vector3::zeros();
                for k in 0..n {
                    p += slides[k] * q[k];
                    pdot += slides[k] * v[k];
                }
                let (r, w) = match rotation {
                    RotationPart::None => (Matrix3::identity(), Vector3::zeros()),
                    RotationPart::Axis(axis) => {
                        out.s[n] = Spatial::new(*axis, Vector3::zeros());
                        (axis_angle(axis, q[n]), axis * v[n])
                    }
                    RotationPart::Ball => {
                        for k in 0..3 {
                            let mut e = Vector3::zeros();
                            e[k] = 1.0;
                            out.s[n + k] = Spatial::new(e, Vector3::zeros());
                        }
                        (
                            quat_at(&q[n..n + 4]).to_rotation_matrix().into_inner(),
                            Vector3::new(v[n], v[n + 1], v[n + 2]),
                        )
                    }
                };
                let rt = r.transpose();
                for k in 0..n {
                    out.s[k] = Spatial::new(Vector3::zeros(), rt * slides[k]);
                }
                let lin = rt * pdot;
                out.motion = Se3 { r, p };
                out.vj = Spatial::new(w, lin);
                out.cj = Spatial::new(Vector3::zeros(), -w.cross(&lin));
            }
            JointModel::Free => {
                let r = quat_at(&q[3..7]).to_rotation_matrix().into_inner();
                out.motion = Se3 {
                    r,
                    p: Vector3::new(q[0], q[1], q[2]),
                };
                for k in 0..3 {
                    let mut e = Vector3::zeros();
                    e[k] = 1.0;
                    out.s[k] = Spatial::new(e, Vector3::zeros());
                    out.s[k + 3] = Spatial::new(Vector3::zeros(), e);
                }
                out.vj = Spatial::new(Vector3::new(v[0], v[1], v[2]), Vector3::new(v[3], v[4], v[5]));
                out.cj = Spatial::zero();
            }
        }
    }

    /// Position update by `dt·v` on the joint's manifold (exponential map for quaternions,
    /// translation of a free joint along its body-frame velocity): the update of DART's
    /// `integratePositions`.
    pub fn integrate(&self, q: &mut [f64], v: &[f64], dt: f64) {
        match self {
            JointModel::SlideRotate {
                slide_count,
                rotation: RotationPart::Ball,
                ..
            } => {
                let n = *slide_count;
                for k in 0..n {
                    q[k] += dt * v[k];
                }
                quat_integrate(&mut q[n..n + 4], &Vector3::new(v[n], v[n + 1], v[n + 2]), dt);
            }
            JointModel::Free => {
                let r = quat_at(&q[3..7]);
                let dp = r * Vector3::new(v[3], v[4], v[5]) * dt;
                q[0] += dp.x;
                q[1] += dp.y;
                q[2] += dp.z;
                quat_integrate(&mut q[3..7], &Vector3::new(v[0], v[1], v[2]), dt);
            }
            _ => {
                for k in 0..self.nq() {
                    q[k] += dt * v[k];
                }
            }
        }
    }

    /// Time derivative of the position coordinates (`nq` numbers) for velocity `v`.
    pub fn position_rate(&self, q: &[f64], v: &[f64], out: &mut [f64]) {
        match self {
            JointModel::SlideRotate {
                slide_count,
                rotation: RotationPart::Ball,
                ..
            } => {
                let n = *slide_count;
                out[..n].copy_from_slice(&v[..n]);
                quat_rate(
                    &q[n..n + 4],
                    &Vector3::new(v[n], v[n + 1], v[n + 2]),
                    &mut out[n..n + 4],
                );
            }
            JointModel::Free => {
                let r = quat_at(&q[3..7]);
                let dp = r * Vector3::new(v[3], v[4], v[5]);
                out[0] = dp.x;
                out[1] = dp.y;
                out[2] = dp.z;
                quat_rate(&q[3..7], &Vector3::new(v[0], v[1], v[2]), &mut out[3..7]);
            }
            _ => out[..self.nq()].copy_from_slice(&v[..self.nq()]),
        }
    }

    /// Renormalises quaternion coordinates.
    pub fn normalize(&self, q: &mut [f64]) {
        if let Some(o) = self.quaternion_offset() {
            normalize_quat(&mut q[o..o + 4]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Ṡq̇` and `S q̇` against finite differences of the motion.
    fn check_joint(j: JointModel, q: &[f64], v: &[f64]) {
        let mut st = JointState::default();
        j.calc(q, v, &mut st);
        let h = 1e-6;
        let mut qp = q.to_vec();
        j.integrate(&mut qp, v, h);
        let mut qm = q.to_vec();
        j.integrate(&mut qm, v, -h);
        let mut sp = JointState::default();
        let mut sm = JointState::default();
        j.calc(&qp, v, &mut sp);
        j.calc(&qm, v, &mut sm);
        // Body velocity from the motion: Rᵀ Ṙ and Rᵀ ṗ.
        let rdot = (sp.motion.r - sm.motion.r) / (2.0 * h);
        let w = st.motion.r.transpose() * rdot;
        let w = Vector3::new(w[(2, 1)], w[(0, 2)], w[(1, 0)]);
        let pdot = st.motion.r.transpose() * (sp.motion.p - sm.motion.p) / (2.0 * h);
        assert!((w - st.vj.ang).norm() < 1e-8, "{j:?}: {w} vs {}", st.vj.ang);
        assert!((pdot - st.vj.lin).norm() < 1e-8, "{j:?}");
        // Bias: derivative of S q̇ at fixed q̇.
        let c = (sp.vj - sm.vj).scale(1.0 / (2.0 * h));
        assert!(
            (c - st.cj).ang.norm() < 1e-7 && (c - st.cj).lin.norm() < 1e-7,
            "{j:?}: {c:?} vs {:?}",
            st.cj
        );
    }

    #[test]
    fn joints_match_finite_differences() {
        let a = Vector3::new(0.3, -0.5, 0.8).normalize();
        let b = Vector3::new(-0.6, 0.1, 0.4).normalize();
        let ex = Vector3::x();
        let ey = Vector3::y();
        let ez = Vector3::z();
        check_joint(JointModel::Revolute { axis: a }, &[0.7], &[1.3]);
        check_joint(JointModel::Helical { axis: a, lead: 0.2 }, &[0.7], &[1.3]);
        check_joint(
            JointModel::RotationSequence {
                axes: [a, b, ez],
                count: 2,
            },
            &[0.7, -0.4],
            &[1.3, 0.9],
        );
        check_joint(
            JointModel::RotationSequence {
                axes: [ex, ey, ez],
                count: 3,
            },
            &[0.7, -0.4, 0.2],
            &[1.3, 0.9, -2.0],
        );
        check_joint(
            JointModel::SlideRotate {
                slides: [a, b, ez],
                slide_count: 2,
                rotation: RotationPart::Axis(a.cross(&b).normalize()),
            },
            &[0.7, -0.4, 0.3],
            &[1.3, 0.9, 2.1],
        );
        let q = UnitQuaternion::from_scaled_axis(Vector3::new(0.3, 0.2, -0.5));
        let qw = q.quaternion();
        check_joint(
            JointModel::SlideRotate {
                slides: [ex, ey, ez],
                slide_count: 2,
                rotation: RotationPart::Ball,
            },
            &[0.7, -0.4, qw.w, qw.i, qw.j, qw.k],
            &[1.3, 0.9, 2.1, -0.3, 0.5],
        );
        check_joint(
            JointModel::Free,
            &[0.7, -0.4, 0.1, qw.w, qw.i, qw.j, qw.k],
            &[1.3, 0.9, 2.1, -0.3, 0.5, 0.2],
        );
    }
}
