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

/// DART's semi-implicit Euler step of a free joint (`q = [p, quaternion]`, `v = [ω, v]` in
/// the child joint frame J, `acceleration` their time derivatives), taken on the body frame B
/// whose origin is `c` in J. With `R`, `p` the pose of J in the parent joint frame P:
///
/// * `u = R(v + ω×c)`, the velocity of B's origin in P, and its classical acceleration
///   `a = R(ω×(v + ω×c) + v̇ + ω̇×c)`;
/// * `ω' = ω + dt·ω̇` (the same vector in J and in P coordinates up to `R`), `u' = u + dt·a`;
/// * `x_B' = p + R·c + dt·u'`, `R' = exp(dt·Rω')·R = R·exp(dt·ω')`;
/// * back to joint coordinates: `p' = x_B' − R'c`, `v' = R'ᵀu' − ω'×c`.
///
/// Stepping `v` in body coordinates instead (`v += dt·v̇`, then `p += dt·Rv`) differs by the
/// term `dt·ω×v` per step, which drifts by millimetres over a second for a body that spins and
/// translates.
pub fn free_step(q: &mut [f64], v: &mut [f64], acceleration: &[f64], c: &Vector3<f64>, dt: f64) {
    let r = quat_at(&q[3..7]);
    let p = Vector3::new(q[0], q[1], q[2]);
    let (w, lin) = (Vector3::new(v[0], v[1], v[2]), Vector3::new(v[3], v[4], v[5]));
    let (w_dot, lin_dot) = (
        Vector3::new(acceleration[0], acceleration[1], acceleration[2]),
        Vector3::new(acceleration[3], acceleration[4], acceleration[5]),
    );
    let origin_velocity = lin + w.cross(c);
    let u = r * origin_velocity;
    let a = r * (w.cross(&origin_velocity) + lin_dot + w_dot.cross(c));
    let w_next = w + w_dot * dt;
    let u_next = u + a * dt;
    let origin_next = p + r * c + u_next * dt;
    let r_next = r * UnitQuaternion::from_scaled_axis(w_next * dt);
    let p_next = origin_next - r_next * c;
    let lin_next = r_next.inverse() * u_next - w_next.cross(c);
    let n = r_next.quaternion();
    q[..7].copy_from_slice(&[p_next.x, p_next.y, p_next.z, n.w, n.i, n.j, n.k]);
    v[..6].copy_from_slice(&[w_next.x, w_next.y, w_next.z, lin_next.x, lin_next.y, lin_next.z]);
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

    /// Position update by `dt·v` on the joint's manifold (exponential map `R·exp(dt·ω)` for
    /// quaternions, a free joint's translation along its body-frame velocity `p += dt·R·v`),
    /// used by the constraint projection and the finite-difference checks. The
    /// semi-implicit Euler step uses [`JointModel::step_semi_implicit`], which differs for
    /// free joints.
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

    /// One semi-implicit Euler step of this joint's coordinates with accelerations
    /// `acceleration` (`d v / dt`): the velocity first, then the position with the new
    /// velocity, as DART 6.20's `World::step` takes it.
    ///
    /// A free joint steps the frame of the body it moves (origin `moved_body_origin` in the
    /// child joint frame) in the parent joint frame: the body origin's classical velocity and
    /// the angular velocity, both in parent coordinates, advance by `dt` times their
    /// accelerations, then `x += dt·v` and `R ← exp(dt·ω)·R` (see [`free_step`]). Every other
    /// joint steps its own coordinates (`v += dt·a`, then [`JointModel::integrate`]; a ball
    /// rotation `R ← R·exp(dt·ω)` with `ω` in the child joint frame, which is DART's
    /// `BallJoint` step).
    pub fn step_semi_implicit(
        &self,
        q: &mut [f64],
        v: &mut [f64],
        acceleration: &[f64],
        moved_body_origin: &Vector3<f64>,
        dt: f64,
    ) {
        if *self == JointModel::Free {
            free_step(q, v, acceleration, moved_body_origin, dt);
        } else {
            for (v, a) in v.iter_mut().zip(acceleration) {
                *v += dt * a;
            }
            self.integrate(q, v, dt);
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

    fn pose_of(q: &[f64]) -> (Vector3<f64>, UnitQuaternion<f64>) {
        (Vector3::new(q[0], q[1], q[2]), quat_at(&q[3..7]))
    }

    /// The world-frame step of the body frame: its origin moves by `dt` times its new classical
    /// velocity, its rotation by `exp(dt·ω')` on the left, and the new joint coordinates
    /// describe that pose and velocity.
    #[test]
    fn free_step_is_a_world_frame_euler_step_of_the_body_frame() {
        let r = UnitQuaternion::from_scaled_axis(Vector3::new(0.3, -0.2, 0.6));
        let n = r.quaternion();
        let q0 = [0.4, -0.1, 1.2, n.w, n.i, n.j, n.k];
        let v0 = [3.0, -2.0, 5.0, 0.5, 1.0, 2.0];
        let accel = [0.7, -1.1, 0.4, -2.0, 0.3, -9.0];
        let c = Vector3::new(0.1, -0.05, 0.2);
        let dt = 1e-3;
        let (mut q, mut v) = (q0, v0);
        free_step(&mut q, &mut v, &accel, &c, dt);

        let (p, r) = pose_of(&q0);
        let (w, lin) = (
            Vector3::new(v0[0], v0[1], v0[2]),
            Vector3::new(v0[3], v0[4], v0[5]),
        );
        let (w_dot, lin_dot) = (
            Vector3::new(accel[0], accel[1], accel[2]),
            Vector3::new(accel[3], accel[4], accel[5]),
        );
        // World (parent-frame) quantities of the body origin, written out independently.
        let x_body = p + r * c;
        let omega = r * w;
        let u = r * lin + omega.cross(&(r * c));
        let alpha = r * w_dot;
        let a_joint = r * lin_dot + omega.cross(&(r * lin));
        let a = a_joint + alpha.cross(&(r * c)) + omega.cross(&omega.cross(&(r * c)));
        let (omega_next, u_next) = (omega + alpha * dt, u + a * dt);
        let x_next = x_body + u_next * dt;
        let r_next = UnitQuaternion::from_scaled_axis(omega_next * dt) * r;

        let (p_got, r_got) = pose_of(&q);
        assert!(r_got.angle_to(&r_next) < 1e-14);
        assert!((p_got + r_got * c - x_next).norm() < 1e-14);
        let (w_got, lin_got) = (Vector3::new(v[0], v[1], v[2]), Vector3::new(v[3], v[4], v[5]));
        assert!((r_got * w_got - omega_next).norm() < 1e-13);
        let u_got = r_got * lin_got + (r_got * w_got).cross(&(r_got * c));
        assert!((u_got - u_next).norm() < 1e-13);
        // Stepping the body-frame velocity instead lands elsewhere by about dt²·|ω×v|.
        let (mut q_body, mut v_body) = (q0, v0);
        for k in 0..6 {
            v_body[k] += dt * accel[k];
        }
        JointModel::Free.integrate(&mut q_body, &v_body, dt);
        let (p_body, _) = pose_of(&q_body);
        assert!((p_body - p_got).norm() > 1e-6);
    }

    /// Without accelerations a free body keeps its world velocity and moves in a straight line.
    #[test]
    fn free_step_keeps_a_free_body_moving_straight() {
        let c = Vector3::new(0.3, 0.0, -0.1);
        let mut q = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0];
        let mut v = [0.0, 0.0, 4.0, 1.0, 0.0, 0.0];
        // Zero classical acceleration of the body origin: v̇ = −ω×(v + ω×c), ω̇ = 0, in
        // the joint frame at each step.
        let (x0, u0) = (
            c,
            Vector3::new(1.0, 0.0, 0.0) + Vector3::new(0.0, 0.0, 4.0).cross(&c),
        );
        for step in 1..=100 {
            let (w, lin) = (Vector3::new(v[0], v[1], v[2]), Vector3::new(v[3], v[4], v[5]));
            let lin_dot = -w.cross(&(lin + w.cross(&c)));
            free_step(
                &mut q,
                &mut v,
                &[0.0, 0.0, 0.0, lin_dot.x, lin_dot.y, lin_dot.z],
                &c,
                0.01,
            );
            let (p, r) = pose_of(&q);
            let expected = x0 + u0 * (0.01 * f64::from(step));
            assert!((p + r * c - expected).norm() < 1e-12, "step {step}");
        }
    }
}
