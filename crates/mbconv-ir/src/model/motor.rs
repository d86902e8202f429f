//! Motors driven by functions of time.

use crate::model::BodyRef;
use crate::model::function::TimeFunction;
use crate::pose::Pose;
use crate::value::Extras;
use serde::{Deserialize, Serialize};

/// A motor: a force, speed or position driver between two bodies or on a joint coordinate.
///
/// For a body pair, motion is that of `frame1` (on body 1) relative to `frame2` (on body 2),
/// along or about `frame2`'s Z axis (Chrono's convention); a force motor pushes body 1 with
/// `+f·Z2` and body 2 with `−f·Z2`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Motor {
    /// Unique name.
    pub name: String,
    /// Linear or rotational.
    pub motor_type: MotorType,
    /// What the function prescribes.
    pub actuation: MotorActuation,
    /// What the motor acts on.
    pub target: MotorTarget,
    /// The input signal (m, m/s, N or rad, rad/s, N·m).
    pub function: TimeFunction,
    /// Format-specific data kept verbatim.
    #[serde(default, skip_serializing_if = "Extras::is_empty")]
    pub extras: Extras,
}

/// Linear or rotational motor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MotorType {
    /// Along an axis.
    Linear,
    /// About an axis.
    Rotation,
}

/// The quantity a motor's function prescribes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MotorActuation {
    /// Displacement or angle.
    Position,
    /// Linear or angular speed.
    Speed,
    /// Force or torque.
    Force,
}

/// What a motor acts on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "on", rename_all = "snake_case", deny_unknown_fields)]
pub enum MotorTarget {
    /// Two bodies, with a guide constraining the other relative motions.
    BodyPair {
        /// First body.
        body1: BodyRef,
        /// Motor frame on body 1.
        frame1: Pose,
        /// Second body.
        body2: BodyRef,
        /// Motor frame on body 2 (its Z is the axis).
        frame2: Pose,
        /// Constraint on the other five relative motions.
        guide: MotorGuide,
    },
    /// One coordinate of a joint.
    Joint {
        /// Joint name.
        joint: String,
        /// Velocity coordinate index.
        #[serde(default)]
        dof: usize,
    },
}

/// Constraints a body-pair motor adds on the relative motions it does not drive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MotorGuide {
    /// Nothing.
    Free,
    /// Linear motor: x, y and all rotations fixed.
    Prismatic,
    /// Linear motor: x, y fixed, rotations free.
    Spherical,
    /// Rotation motor: translations and x, y rotations fixed.
    Revolute,
    /// Rotation motor: x, y translations and x, y rotations fixed.
    Cylindrical,
}
