//! Joints: the edges of the body graph.

use crate::model::BodyRef;
use crate::model::body::{is_true, yes};
use crate::pose::Pose;
use crate::value::Extras;
use nalgebra::Vector3;
use serde::{Deserialize, Serialize};

/// A joint between two bodies (or a body and the world).
///
/// The relative pose of the child body frame in the parent body frame is
/// `X_parent_child(q) = parent_frame · J(q) · child_frame⁻¹`, where `J(q)` is the motion of
/// [`JointKind`] (see [`crate::kinematics::joint_motion`]). At `q = 0` the two joint frames
/// coincide. Axes are expressed in the joint frame.
///
/// `q0` and `v0` hold [`JointKind::nq`] and [`JointKind::nv`] numbers; `dofs` holds one entry
/// per velocity coordinate, or none (all defaults).
///
/// ```
/// use mbconv_ir::{BodyRef, Joint, JointKind};
/// use nalgebra::Vector3;
/// let j = Joint::new("hinge", JointKind::Revolute { axis: Vector3::z() }, BodyRef::World, BodyRef::body("link1"));
/// assert_eq!(j.kind.nq(), 1);
/// assert_eq!(j.q0, vec![0.0]);
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Joint {
    /// Unique joint name.
    pub name: String,
    /// Type and type-specific parameters.
    pub kind: JointKind,
    /// Parent body (or the world).
    pub parent: BodyRef,
    /// Child body (or the world: Shift allows `fixed` as a child).
    pub child: BodyRef,
    /// Joint frame on the parent, in parent body coordinates (world coordinates for the world).
    #[serde(default)]
    pub parent_frame: Pose,
    /// Joint frame on the child, in child body coordinates.
    #[serde(default)]
    pub child_frame: Pose,
    /// Initial position coordinates (`nq` numbers).
    #[serde(default)]
    pub q0: Vec<f64>,
    /// Initial velocity coordinates (`nv` numbers).
    #[serde(default)]
    pub v0: Vec<f64>,
    /// Per-degree-of-freedom properties: none, or one per velocity coordinate.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dofs: Vec<DofProperties>,
    /// How the joint is actuated, when the format says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actuator: Option<ActuatorKind>,
    /// Controller index (Choreonoid `jointId`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub joint_id: Option<i64>,
    /// When set, the joint is not an ideal constraint but a compliant bushing with these
    /// constants (Chrono `bushing_data`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bushing: Option<JointBushing>,
    /// False for a joint the model switches off (Shift `active: false`).
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub enabled: bool,
    /// Format-specific data kept verbatim.
    #[serde(default, skip_serializing_if = "Extras::is_empty")]
    pub extras: Extras,
}

impl Joint {
    /// A joint with identity frames, zero initial state and default properties.
    pub fn new(name: impl Into<String>, kind: JointKind, parent: BodyRef, child: BodyRef) -> Self {
        let (nq, nv) = (kind.nq(), kind.nv());
        Self {
            name: name.into(),
            kind,
            parent,
            child,
            parent_frame: Pose::identity(),
            child_frame: Pose::identity(),
            q0: vec![0.0; nq],
            v0: vec![0.0; nv],
            dofs: Vec::new(),
            actuator: None,
            joint_id: None,
            bushing: None,
            enabled: true,
            extras: Extras::default(),
        }
    }

    /// Properties of velocity coordinate `i` (defaults when `dofs` is empty).
    pub fn dof(&self, i: usize) -> DofProperties {
        self.dofs.get(i).cloned().unwrap_or_default()
    }
}

/// The joint types of every format mbconv reads, with their parameters. Vectors are in the joint frame.
///
/// Position (`q`) and velocity (`v`) coordinates:
///
/// | kind | q | v |
/// |---|---|---|
/// | fixed, pseudo_continuous_track | — | — |
/// | revolute, prismatic, screw | angle or displacement | its rate |
/// | universal | `[q1, q2]`, `R = Rot(axis1, q1)·Rot(axis2, q2)` | rates |
/// | spherical | rotation vector of child in parent joint frame | angular velocity, child joint frame |
/// | euler | three angles in `order` | their rates |
/// | cylindrical | `[translation, angle]` along/about `axis` | rates |
/// | planar | `[t1, t2, angle]`: `Trans(t1·axis1 + t2·axis2)·Rot(axis1 × axis2, angle)` | rates |
/// | translational | `[x, y, z]` | rates |
/// | free | `[x, y, z, rx, ry, rz]`: translation, then rotation vector | `[v, ω]` of the child joint frame, parent joint frame |
/// | point_line | `[s, rx, ry, rz]`: slide along joint-frame X, then rotation vector | `[ṡ, ω]`, ω in child joint frame |
/// | point_plane | `[u, v, rx, ry, rz]`: slide in joint-frame XY, then rotation vector | `[u̇, v̇, ω]`, ω in child joint frame |
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum JointKind {
    /// No relative motion (weld, lock, rigid, fixed).
    Fixed,
    /// Rotation about an axis.
    Revolute {
        /// Rotation axis.
        axis: Vector3<f64>,
    },
    /// Translation along an axis.
    Prismatic {
        /// Translation axis.
        axis: Vector3<f64>,
    },
    /// Rotation about an axis coupled to translation along it.
    Screw {
        /// Screw axis.
        axis: Vector3<f64>,
        /// Translation per full turn, metres per revolution (DART `pitch`).
        pitch: f64,
    },
    /// Two rotations (Hooke joint).
    Universal {
        /// First axis (fixed in the parent joint frame).
        axis1: Vector3<f64>,
        /// Second axis (turned by the first rotation).
        axis2: Vector3<f64>,
    },
    /// Free rotation about a point (ball).
    Spherical,
    /// Three rotations about coordinate axes in a fixed order.
    Euler {
        /// Axis order.
        order: EulerOrder,
    },
    /// Translation along and rotation about one axis.
    Cylindrical {
        /// The axis.
        axis: Vector3<f64>,
    },
    /// Two translations in a plane and a rotation about its normal.
    Planar {
        /// First in-plane translation axis.
        axis1: Vector3<f64>,
        /// Second in-plane translation axis.
        axis2: Vector3<f64>,
    },
    /// Three translations.
    Translational,
    /// Six degrees of freedom (float).
    Free,
    /// A point of the child slides on the parent joint frame's X line; rotation is free.
    PointLine,
    /// A point of the child slides in the parent joint frame's XY plane; rotation is free.
    PointPlane,
    /// A Choreonoid track: no kinematic freedom; the surface moves along `axis`.
    PseudoContinuousTrack {
        /// Direction of surface motion.
        axis: Vector3<f64>,
    },
}

impl JointKind {
    /// Number of position coordinates.
    pub fn nq(&self) -> usize {
        match self {
            JointKind::Fixed | JointKind::PseudoContinuousTrack { .. } => 0,
            JointKind::Revolute { .. } | JointKind::Prismatic { .. } | JointKind::Screw { .. } => 1,
            JointKind::Universal { .. } | JointKind::Cylindrical { .. } => 2,
            JointKind::Spherical
            | JointKind::Euler { .. }
            | JointKind::Planar { .. }
            | JointKind::Translational => 3,
            JointKind::PointLine => 4,
            JointKind::PointPlane => 5,
            JointKind::Free => 6,
        }
    }

    /// Number of velocity coordinates (degrees of freedom).
    pub fn nv(&self) -> usize {
        self.nq()
    }

    /// The snake_case type name used in IR JSON and `mbconv info`.
    pub fn type_name(&self) -> &'static str {
        match self {
            JointKind::Fixed => "fixed",
            JointKind::Revolute { .. } => "revolute",
            JointKind::Prismatic { .. } => "prismatic",
            JointKind::Screw { .. } => "screw",
            JointKind::Universal { .. } => "universal",
            JointKind::Spherical => "spherical",
            JointKind::Euler { .. } => "euler",
            JointKind::Cylindrical { .. } => "cylindrical",
            JointKind::Planar { .. } => "planar",
            JointKind::Translational => "translational",
            JointKind::Free => "free",
            JointKind::PointLine => "point_line",
            JointKind::PointPlane => "point_plane",
            JointKind::PseudoContinuousTrack { .. } => "pseudo_continuous_track",
        }
    }

    /// Whether velocity coordinate `i` is a rotation (radians) rather than a translation.
    pub fn is_angular(&self, i: usize) -> bool {
        match self {
            JointKind::Revolute { .. } | JointKind::Screw { .. } => true,
            JointKind::Universal { .. } | JointKind::Spherical | JointKind::Euler { .. } => true,
            JointKind::Cylindrical { .. } => i == 1,
            JointKind::Planar { .. } => i == 2,
            JointKind::Free => i >= 3,
            JointKind::PointLine => i >= 1,
            JointKind::PointPlane => i >= 2,
            _ => false,
        }
    }

    /// The axis vectors the kind carries, with their field names (for validation).
    pub fn axes(&self) -> Vec<(&'static str, Vector3<f64>)> {
        match self {
            JointKind::Revolute { axis }
            | JointKind::Prismatic { axis }
            | JointKind::Screw { axis, .. }
            | JointKind::Cylindrical { axis }
            | JointKind::PseudoContinuousTrack { axis } => vec![("axis", *axis)],
            JointKind::Universal { axis1, axis2 } | JointKind::Planar { axis1, axis2 } => {
                vec![("axis1", *axis1), ("axis2", *axis2)]
            }
            _ => Vec::new(),
        }
    }
}

/// Axis order of an [`JointKind::Euler`] joint.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EulerOrder {
    /// `R = Rx(q0)·Ry(q1)·Rz(q2)`.
    Xyz,
    /// `R = Rz(q0)·Ry(q1)·Rx(q2)`.
    Zyx,
}

/// Properties of one degree of freedom. Units follow the coordinate: radians and N·m for
/// rotations, metres and N for translations. The default has no limits, no damping, friction
/// or spring, no rotor inertia and a gear ratio of 1.
///
/// ```
/// assert_eq!(mbconv_ir::DofProperties::default().gear_ratio, 1.0);
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DofProperties {
    /// A name for the coordinate (DART `<dof name>`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Position limits.
    #[serde(default, skip_serializing_if = "Limits::is_unlimited")]
    pub position_limits: Limits,
    /// Velocity limits.
    #[serde(default, skip_serializing_if = "Limits::is_unlimited")]
    pub velocity_limits: Limits,
    /// Acceleration limits.
    #[serde(default, skip_serializing_if = "Limits::is_unlimited")]
    pub acceleration_limits: Limits,
    /// Effort (force or torque) limits.
    #[serde(default, skip_serializing_if = "Limits::is_unlimited")]
    pub effort_limits: Limits,
    /// Viscous damping coefficient.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub damping: f64,
    /// Coulomb friction force or torque.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub friction: f64,
    /// Spring stiffness.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub spring_stiffness: f64,
    /// Spring rest position.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub spring_rest_position: f64,
    /// Rotor (armature) inertia, before the gear ratio.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub rotor_inertia: f64,
    /// Gear ratio; the reflected inertia is `gear_ratio² · rotor_inertia`.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub gear_ratio: f64,
}

impl Default for DofProperties {
    fn default() -> Self {
        Self {
            name: None,
            position_limits: Limits::default(),
            velocity_limits: Limits::default(),
            acceleration_limits: Limits::default(),
            effort_limits: Limits::default(),
            damping: 0.0,
            friction: 0.0,
            spring_stiffness: 0.0,
            spring_rest_position: 0.0,
            rotor_inertia: 0.0,
            gear_ratio: 1.0,
        }
    }
}

impl DofProperties {
    /// The inertia the rotor adds to this coordinate: `gear_ratio² · rotor_inertia`.
    pub fn reflected_inertia(&self) -> f64 {
        self.gear_ratio * self.gear_ratio * self.rotor_inertia
    }
}

/// Lower and upper bounds; `None` is unbounded on that side.
#[derive(Clone, Copy, Debug, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// Lower bound.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lower: Option<f64>,
    /// Upper bound.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upper: Option<f64>,
}

impl Limits {
    /// Both sides bounded.
    pub fn new(lower: f64, upper: f64) -> Self {
        Self {
            lower: Some(lower),
            upper: Some(upper),
        }
    }
    /// True when neither side is bounded.
    pub fn is_unlimited(&self) -> bool {
        self.lower.is_none() && self.upper.is_none()
    }
}

/// How a joint is driven. Names follow DART's actuator types and Choreonoid's actuation modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActuatorKind {
    /// Commanded force or torque (DART `force`, Choreonoid `joint_effort`).
    Force,
    /// No actuation (DART `passive`).
    Passive,
    /// Velocity servo with force limits (DART `servo`).
    Servo,
    /// Prescribed acceleration (DART `acceleration`).
    Acceleration,
    /// Prescribed velocity (DART `velocity`, Choreonoid `joint_velocity`).
    Velocity,
    /// Locked at its position (DART `locked`).
    Locked,
    /// Prescribed position (Choreonoid `joint_displacement`).
    Position,
    /// Prescribed link pose (Choreonoid `link_position`).
    LinkPosition,
}

/// Compliance that replaces an ideal joint by a bushing (Chrono `bushing_data`).
///
/// Directions the joint constrains get the `constrained` constants; directions it leaves free
/// get `free` (zero when absent). [`JointBushing::diagonal`] maps them per joint type.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JointBushing {
    /// Constants for the directions the joint constrains.
    pub constrained: BushingConstants,
    /// Constants for the directions the joint leaves free (Chrono `DOF`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub free: Option<BushingConstants>,
}

/// Stiffness and damping for translations and rotations.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BushingConstants {
    /// N/m.
    pub stiffness_linear: f64,
    /// N·s/m.
    pub damping_linear: f64,
    /// N·m/rad.
    pub stiffness_rotational: f64,
    /// N·m·s/rad.
    pub damping_rotational: f64,
}

impl JointBushing {
    /// Diagonal stiffness and damping `[x, y, z, rx, ry, rz]` in the joint frame for `kind`,
    /// as Chrono builds them: start from the constrained constants, then replace the free
    /// rotations (spherical: all three; revolute: z; universal: x and y) by the free
    /// constants. `None` for kinds Chrono refuses (prismatic, point-line, point-plane, …).
    ///
    /// ```
    /// use mbconv_ir::{BushingConstants, JointBushing, JointKind};
    /// let c = BushingConstants { stiffness_linear: 1e5, damping_linear: 1e3, stiffness_rotational: 2e5, damping_rotational: 2e3 };
    /// let b = JointBushing { constrained: c, free: None };
    /// let (k, _d) = b.diagonal(&JointKind::Revolute { axis: nalgebra::Vector3::z() }).unwrap();
    /// assert_eq!(k, [1e5, 1e5, 1e5, 2e5, 2e5, 0.0]);
    /// ```
    pub fn diagonal(&self, kind: &JointKind) -> Option<([f64; 6], [f64; 6])> {
        let c = &self.constrained;
        let f = self.free.unwrap_or(BushingConstants {
            stiffness_linear: 0.0,
            damping_linear: 0.0,
            stiffness_rotational: 0.0,
            damping_rotational: 0.0,
        });
        let mut k = [c.stiffness_linear; 6];
        let mut d = [c.damping_linear; 6];
        for i in 3..6 {
            k[i] = c.stiffness_rotational;
            d[i] = c.damping_rotational;
        }
        let free_rotations: &[usize] = match kind {
            JointKind::Fixed => &[],
            JointKind::Spherical => &[3, 4, 5],
            JointKind::Revolute { .. } => &[5],
            JointKind::Universal { .. } => &[3, 4],
            _ => return None,
        };
        for &i in free_rotations {
            k[i] = f.stiffness_rotational;
            d[i] = f.damping_rotational;
        }
        Some((k, d))
    }
}

pub(crate) fn is_zero(x: &f64) -> bool {
    x.to_bits() == 0
}
fn one() -> f64 {
    1.0
}
fn is_one(x: &f64) -> bool {
    x.to_bits() == 1.0f64.to_bits()
}
