//! Force elements: spring-dampers, bushings and Shift restraints.

use crate::model::BodyRef;
use crate::pose::Pose;
use crate::value::Extras;
use nalgebra::Vector3;
use serde::{Deserialize, Serialize};

/// A named force element acting between two bodies.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ForceElement {
    /// Unique name.
    pub name: String,
    /// The element.
    pub kind: ForceKind,
    /// Format-specific data kept verbatim.
    #[serde(default, skip_serializing_if = "Extras::is_empty")]
    pub extras: Extras,
}

/// Force element types.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ForceKind {
    /// Translational spring-damper-actuator between two points.
    Tsda(Tsda),
    /// Rotational spring-damper about a common axis.
    Rsda(Rsda),
    /// Six-axis bushing between two frames with a named law.
    Bushing(Bushing),
    /// Shift restraint: a piecewise polynomial on a joint coordinate or a frame distance.
    Restraint(Restraint),
}

impl ForceKind {
    /// The type name used in IR JSON.
    pub fn type_name(&self) -> &'static str {
        match self {
            ForceKind::Tsda(_) => "tsda",
            ForceKind::Rsda(_) => "rsda",
            ForceKind::Bushing(_) => "bushing",
            ForceKind::Restraint(_) => "restraint",
        }
    }
}

/// Translational spring-damper-actuator (Chrono TSDA).
///
/// With `d = p1 − p2` (world), `L = |d|`, `u = d/L` and `δ = L − free_length`, the element
/// pushes the bodies apart with `F = preload − spring(δ) − damper(L̇)` (+ end stops when both
/// lengths are given): body 1 gets `+F·u` at `point1`, body 2 gets `−F·u` at `point2`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tsda {
    /// First body.
    pub body1: BodyRef,
    /// Attachment point on body 1, body-1 coordinates.
    pub point1: Vector3<f64>,
    /// Second body.
    pub body2: BodyRef,
    /// Attachment point on body 2, body-2 coordinates.
    pub point2: Vector3<f64>,
    /// Rest length.
    pub free_length: f64,
    /// Constant force added to the law (pushes apart when positive).
    #[serde(default)]
    pub preload: f64,
    /// Spring and damper characteristics.
    pub law: SpringDamperLaw,
    /// Length below which the bump stop acts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_length: Option<f64>,
    /// Length above which the rebound stop acts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_length: Option<f64>,
    /// How to draw it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visualization: Option<SpringVisual>,
}

/// Rotational spring-damper (Chrono RSDA).
///
/// The angle θ is the rotation of `frame2` relative to `frame1` about their common Z axis
/// (zero when the frames coincide); the torque `T = preload − spring(θ − free_angle) −
/// damper(θ̇)` acts `+T·Z` on body 2 and `−T·Z` on body 1.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rsda {
    /// First body.
    pub body1: BodyRef,
    /// Frame on body 1 whose Z is the axis.
    pub frame1: Pose,
    /// Second body.
    pub body2: BodyRef,
    /// Frame on body 2 whose Z is the axis.
    pub frame2: Pose,
    /// Rest angle in radians.
    pub free_angle: f64,
    /// Constant torque added to the law.
    #[serde(default)]
    pub preload: f64,
    /// Spring and damper characteristics.
    pub law: SpringDamperLaw,
}

/// Spring and damper characteristics shared by TSDA and RSDA. Forces follow the restoring
/// convention: a positive spring value for a positive deformation pulls back.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "law", rename_all = "snake_case", deny_unknown_fields)]
pub enum SpringDamperLaw {
    /// Linear spring `k·δ` and/or linear damper `c·v`.
    Linear {
        /// Spring coefficient, if there is a spring.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        stiffness: Option<f64>,
        /// Damping coefficient, if there is a damper.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        damping: Option<f64>,
    },
    /// Degressive damper: `c·v/(1 + de·v)` in expansion, `c·v/(1 − dc·v)` in compression.
    DegressiveDamper {
        /// Damping coefficient.
        damping: f64,
        /// Degressivity in compression.
        degressivity_compression: f64,
        /// Degressivity in expansion.
        degressivity_expansion: f64,
    },
    /// Piecewise-linear curves (held constant outside the table).
    Curves {
        /// `[[deformation, force], …]`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        spring: Option<Vec<[f64; 2]>>,
        /// `[[velocity, force], …]`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        damping: Option<Vec<[f64; 2]>>,
    },
    /// Full map `F(δ, v)`, bilinear with linear extrapolation.
    Map {
        /// Deformation grid, ascending.
        deformations: Vec<f64>,
        /// Velocity grid, ascending.
        velocities: Vec<f64>,
        /// `forces[i][j] = F(deformations[j], velocities[i])`.
        forces: Vec<Vec<f64>>,
    },
    /// No characteristic (the element exerts only its preload, or nothing).
    None,
}

/// How a TSDA is drawn.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpringVisual {
    /// `segment` or `spring`.
    pub style: SpringStyle,
    /// Coil radius.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub radius: Option<f64>,
    /// Subdivisions per turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolution: Option<u32>,
    /// Number of turns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turns: Option<u32>,
    /// Colour `[r, g, b]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color: Option<[f64; 3]>,
}

/// Drawing styles of a TSDA.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SpringStyle {
    /// A line.
    Segment,
    /// A helix.
    Spring,
}

/// A six-axis bushing between frame A on one body and frame C on another.
///
/// Stiffness and damping are diagonal: torque constants about x, y, z and force constants
/// along x, y, z. What they act on depends on `law`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bushing {
    /// The force law.
    pub law: BushingLaw,
    /// Body carrying frame A.
    pub body_a: BodyRef,
    /// Frame A in body-A coordinates.
    pub frame_a: Pose,
    /// Body carrying frame C.
    pub body_c: BodyRef,
    /// Frame C in body-C coordinates.
    pub frame_c: Pose,
    /// `[k0, k1, k2]` (N·m/rad).
    pub torque_stiffness: [f64; 3],
    /// `[d0, d1, d2]` (N·m·s/rad).
    pub torque_damping: [f64; 3],
    /// `[kx, ky, kz]` (N/m).
    pub force_stiffness: [f64; 3],
    /// `[dx, dy, dz]` (N·s/m).
    pub force_damping: [f64; 3],
}

/// Bushing force laws.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BushingLaw {
    /// Drake's `LinearBushingRollPitchYaw`: roll-pitch-yaw of C in A with gimbal torques,
    /// translation in the half-angle frame, forces at the midpoint.
    DrakeRollPitchYaw,
    /// Chrono's `ChLoadBodyBodyBushingGeneric` as `bushing_data` builds it: log-map rotation of
    /// A relative to C in C's frame, forces at each frame's origin.
    ChronoGeneric,
}

/// A Shift restraint: spring, damper or friction given as a piecewise polynomial.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Restraint {
    /// Spring (of displacement), damper (of velocity) or friction.
    pub restraint_type: RestraintType,
    /// What the polynomial's variable is.
    pub target: RestraintTarget,
    /// The characteristic; the generalized force acts against the variable.
    pub function: PiecewisePolynomial,
}

/// Restraint kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RestraintType {
    /// Function of displacement.
    Spring,
    /// Function of velocity.
    Damper,
    /// Friction, function of velocity.
    Friction,
}

/// The variable of a restraint.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "on", rename_all = "snake_case", deny_unknown_fields)]
pub enum RestraintTarget {
    /// A joint coordinate.
    Joint {
        /// Joint name.
        joint: String,
        /// Velocity coordinate index within the joint.
        #[serde(default)]
        dof: usize,
    },
    /// The distance between two named frames.
    FramePair {
        /// First body.
        body1: BodyRef,
        /// Frame on the first body: one of its `frames` (or of the model's `world_frames`), or
        /// [`ORIGIN_FRAME`] for the body frame itself.
        frame1: String,
        /// Second body.
        body2: BodyRef,
        /// Frame on the second body, named as `frame1` is.
        frame2: String,
        /// Euclidean distance or one axis of frame 1.
        #[serde(default)]
        distance: DistanceType,
    },
}

/// The name that, where a frame is named, means the body frame itself (or the world frame)
/// when the body has no frame of that name (Shift's `origin`).
pub const ORIGIN_FRAME: &str = "origin";

/// How a frame-pair distance is measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DistanceType {
    /// `|p2 − p1|`.
    #[default]
    Euclidean,
    /// Along frame 1's x axis.
    X,
    /// Along frame 1's y axis.
    Y,
    /// Along frame 1's z axis.
    Z,
}

/// A piecewise polynomial: piece `i` applies on `[knots[i-1], knots[i])`, coefficients in
/// ascending powers; `pieces.len() == knots.len() + 1`.
///
/// ```
/// use mbconv_ir::PiecewisePolynomial;
/// // Shift's example: 2φ² + 0.5φ for φ < 0, else 0.
/// let f = PiecewisePolynomial { knots: vec![0.0], pieces: vec![vec![0.0, 0.5, 2.0], vec![0.0]] };
/// assert_eq!(f.value(-1.0), 1.5);
/// assert_eq!(f.value(1.0), 0.0);
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PiecewisePolynomial {
    /// Breakpoints, ascending.
    pub knots: Vec<f64>,
    /// Coefficients of each piece, ascending powers.
    pub pieces: Vec<Vec<f64>>,
}

impl PiecewisePolynomial {
    /// The same function of a shifted argument: `g(y) = f(y + a)`, with the knots moved by
    /// `−a` and each piece's coefficients expanded about the new origin (Taylor shift).
    ///
    /// ```
    /// use mbconv_ir::PiecewisePolynomial;
    /// let f = PiecewisePolynomial { knots: vec![0.0], pieces: vec![vec![1.0, 2.0], vec![1.0, -1.0, 3.0]] };
    /// let g = f.shifted(0.5);
    /// for y in [-2.0, -0.6, -0.5, -0.25, 0.0, 1.5] {
    ///     assert!((g.value(y) - f.value(y + 0.5)).abs() < 1e-12, "{y}");
    /// }
    /// ```
    pub fn shifted(&self, a: f64) -> Self {
        let pieces = self
            .pieces
            .iter()
            .map(|c| {
                // g_j = Σ_{k ≥ j} c_k · C(k, j) · a^(k − j)
                (0..c.len())
                    .map(|j| {
                        let mut binomial = 1.0;
                        let mut power = 1.0;
                        let mut sum = 0.0;
                        for (step, ck) in c.iter().enumerate().skip(j) {
                            if step > j {
                                let m = (step - j) as f64;
                                binomial *= (j as f64 + m) / m;
                                power *= a;
                            }
                            sum += ck * binomial * power;
                        }
                        sum
                    })
                    .collect()
            })
            .collect();
        Self {
            knots: self.knots.iter().map(|k| k - a).collect(),
            pieces,
        }
    }

    /// The value at `x`.
    pub fn value(&self, x: f64) -> f64 {
        let i = self.knots.partition_point(|k| *k <= x);
        self.pieces
            .get(i)
            .map_or(0.0, |c| c.iter().rev().fold(0.0, |acc, c| acc * x + c))
    }
}
