//! Kinematic constraints that are not joints.

use crate::model::BodyRef;
use crate::model::body::{is_true, yes};
use crate::pose::Pose;
use crate::value::Extras;
use nalgebra::Vector3;
use serde::{Deserialize, Serialize};

/// A constraint between two bodies. Points and frames are body-fixed, in body coordinates.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Constraint {
    /// Unique name.
    pub name: String,
    /// Type and parameters.
    pub kind: ConstraintKind,
    /// False for a switched-off constraint.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub enabled: bool,
    /// Format-specific data kept verbatim.
    #[serde(default, skip_serializing_if = "Extras::is_empty")]
    pub extras: Extras,
}

/// Constraint types.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ConstraintKind {
    /// Keeps the distance between two points constant (one equation).
    Distance {
        /// First body.
        body1: BodyRef,
        /// Point on the first body.
        point1: Vector3<f64>,
        /// Second body.
        body2: BodyRef,
        /// Point on the second body.
        point2: Vector3<f64>,
        /// Imposed distance; `None` = the distance in the reference configuration.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        distance: Option<f64>,
    },
    /// Revolute on body 1, spherical on body 2, with a rigid link between (Chrono
    /// REVOLUTE-SPHERICAL): the distance is fixed and the link stays perpendicular to the axis.
    RevoluteSpherical {
        /// Body carrying the revolute end.
        body1: BodyRef,
        /// Revolute end point on body 1.
        point1: Vector3<f64>,
        /// Revolute axis on body 1, when the format gives one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        axis1: Option<Vector3<f64>>,
        /// Body carrying the spherical end.
        body2: BodyRef,
        /// Spherical end point on body 2.
        point2: Vector3<f64>,
        /// Link length; `None` = the distance in the reference configuration.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        distance: Option<f64>,
    },
    /// Revolute on body 1, translational on body 2 (Chrono REVOLUTE-TRANSLATIONAL).
    RevoluteTranslational {
        /// Body carrying the revolute end.
        body1: BodyRef,
        /// Revolute point on body 1.
        point1: Vector3<f64>,
        /// Revolute axis on body 1, when given.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        axis1: Option<Vector3<f64>>,
        /// Body carrying the translational end.
        body2: BodyRef,
        /// Point on body 2.
        point2: Vector3<f64>,
        /// Sliding direction on body 2, when given.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        axis2: Option<Vector3<f64>>,
        /// Link length; `None` = the distance in the reference configuration.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        distance: Option<f64>,
    },
    /// A Choreonoid extra joint closing a loop.
    ExtraJoint {
        /// Binding type.
        joint_type: ExtraJointType,
        /// First link.
        body1: BodyRef,
        /// Anchor frame on the first link (translation = `link1LocalPos`, rotation =
        /// `rotation_in_link1`).
        frame1: Pose,
        /// Second link.
        body2: BodyRef,
        /// Anchor frame on the second link.
        frame2: Pose,
        /// Axis for hinge and piston, interpreted in each anchor frame.
        axis: Vector3<f64>,
    },
}

impl ConstraintKind {
    /// The type name used in IR JSON.
    pub fn type_name(&self) -> &'static str {
        match self {
            ConstraintKind::Distance { .. } => "distance",
            ConstraintKind::RevoluteSpherical { .. } => "revolute_spherical",
            ConstraintKind::RevoluteTranslational { .. } => "revolute_translational",
            ConstraintKind::ExtraJoint { .. } => "extra_joint",
        }
    }
    /// The two bodies the constraint connects.
    pub fn bodies(&self) -> [&BodyRef; 2] {
        match self {
            ConstraintKind::Distance { body1, body2, .. }
            | ConstraintKind::RevoluteSpherical { body1, body2, .. }
            | ConstraintKind::RevoluteTranslational { body1, body2, .. }
            | ConstraintKind::ExtraJoint { body1, body2, .. } => [body1, body2],
        }
    }
}

/// Choreonoid extra joint types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExtraJointType {
    /// Rigid binding (Choreonoid's AIST solver applies no constraint for it).
    Fixed,
    /// Coincident points and collinear axes.
    Hinge,
    /// Coincident points.
    Ball,
    /// Coincident points except along the axis.
    Piston,
}
