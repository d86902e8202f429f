//! Relative kinematics of two frames, shared by both laws.

use crate::{BushingError, FrameState};
use mbconv_ir::Pose;
use nalgebra::{UnitQuaternion, Vector3};

/// The motion of frame C relative to frame A, everything expressed in frame A.
///
/// ```
/// use mbconv_bushing::{FrameState, kinematics::RelativeMotion};
/// use mbconv_ir::Pose;
/// use nalgebra::Vector3;
/// let a = FrameState::at_rest(Pose::identity());
/// let c = FrameState::at_rest(Pose::from_translation(Vector3::new(1.0, 2.0, 3.0)));
/// let rel = RelativeMotion::of(&a, &c);
/// assert_eq!(rel.position, Vector3::new(1.0, 2.0, 3.0));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RelativeMotion {
    /// `R_AC`: orientation of C in A.
    pub rotation: UnitQuaternion<f64>,
    /// `p_AoCo_A`: position of Co from Ao, in A.
    pub position: Vector3<f64>,
    /// `w_AC_A`: angular velocity of C in A, expressed in A.
    pub angular_velocity: Vector3<f64>,
    /// `v_ACo_A`: velocity of Co in A (time derivative of `p_AoCo` in A), expressed in A.
    pub linear_velocity: Vector3<f64>,
}

impl RelativeMotion {
    /// The motion of `c` relative to `a`, from their world states.
    pub fn of(a: &FrameState, c: &FrameState) -> Self {
        let r_wa = a.pose.rotation;
        let r_aw = r_wa.inverse();
        let p_w = c.pose.translation - a.pose.translation;
        Self {
            rotation: r_aw * c.pose.rotation,
            position: r_aw * p_w,
            angular_velocity: r_aw * (c.angular_velocity - a.angular_velocity),
            linear_velocity: r_aw * (c.linear_velocity - a.linear_velocity - a.angular_velocity.cross(&p_w)),
        }
    }
}

impl FrameState {
    /// A frame at `pose` with zero velocity.
    pub fn at_rest(pose: Pose) -> Self {
        Self {
            pose,
            angular_velocity: Vector3::zeros(),
            linear_velocity: Vector3::zeros(),
        }
    }

    /// The state of a frame fixed on a body: `body` is the body frame's state (velocity of
    /// the body-frame origin) and `frame` the frame's pose in body coordinates.
    ///
    /// ```
    /// use mbconv_bushing::FrameState;
    /// use mbconv_ir::Pose;
    /// use nalgebra::Vector3;
    /// let body = FrameState { pose: Pose::identity(), angular_velocity: Vector3::z(), linear_velocity: Vector3::zeros() };
    /// let f = body.compose(&Pose::from_translation(Vector3::x()));
    /// assert_eq!(f.linear_velocity, Vector3::y());
    /// ```
    pub fn compose(&self, frame: &Pose) -> Self {
        let offset_w = self.pose.rotation * frame.translation;
        Self {
            pose: self.pose * *frame,
            angular_velocity: self.angular_velocity,
            linear_velocity: self.linear_velocity + self.angular_velocity.cross(&offset_w),
        }
    }

    pub(crate) fn check_finite(&self, name: &str, frame: &'static str) -> Result<(), BushingError> {
        let q = self.pose.rotation.quaternion();
        let finite = self.pose.translation.iter().all(|x| x.is_finite())
            && q.coords.iter().all(|x| x.is_finite())
            && self.angular_velocity.iter().all(|x| x.is_finite())
            && self.linear_velocity.iter().all(|x| x.is_finite());
        if finite {
            Ok(())
        } else {
            Err(BushingError::BadState {
                name: name.to_owned(),
                frame,
            })
        }
    }
}

impl crate::Wrench {
    /// The same wrench about another point: `torque + (origin − new_point) × force`, where
    /// `origin` is the point the torque is currently taken about (world coordinates).
    ///
    /// ```
    /// use mbconv_bushing::Wrench;
    /// use nalgebra::Vector3;
    /// let w = Wrench { torque: Vector3::zeros(), force: Vector3::z() };
    /// let shifted = w.shift(&Vector3::x(), &Vector3::zeros());
    /// assert_eq!(shifted.torque, Vector3::new(0.0, -1.0, 0.0));
    /// ```
    pub fn shift(&self, origin: &Vector3<f64>, new_point: &Vector3<f64>) -> Self {
        Self {
            torque: self.torque + (origin - new_point).cross(&self.force),
            force: self.force,
        }
    }

    /// The wrench with both vectors rotated by `rotation`.
    pub fn rotated(&self, rotation: &UnitQuaternion<f64>) -> Self {
        Self {
            torque: rotation * self.torque,
            force: rotation * self.force,
        }
    }
}
