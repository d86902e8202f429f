//! Re-orienting a whole model: one rotation about the world origin applied to everything the
//! model states in world coordinates, so that the model moves as before, turned. A target whose
//! gravity points down a fixed axis by convention (Choreonoid's -z, URDF's none) takes a DART
//! world whose gravity points down -y this way.

use super::body_frame::FrameChange;
use super::note;
use crate::format::support::Feature;
use crate::model::force::{ForceKind, ORIGIN_FRAME, RestraintTarget};
use crate::model::{BodyRef, Model};
use crate::pose::Pose;
use crate::report::{Category, Finding, Severity};
use nalgebra::{Matrix3, UnitQuaternion, Vector3};

/// A world axis that gravity should point down (`z`: gravity along -z).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UpAxis {
    /// Gravity along -x.
    X,
    /// Gravity along -y.
    Y,
    /// Gravity along -z.
    Z,
}

impl UpAxis {
    /// The axis's unit vector.
    pub fn vector(self) -> Vector3<f64> {
        match self {
            UpAxis::X => Vector3::x(),
            UpAxis::Y => Vector3::y(),
            UpAxis::Z => Vector3::z(),
        }
    }

    /// The axis by its letter (`x`, `y`, `z`).
    ///
    /// ```
    /// use mbconv_ir::lower::UpAxis;
    /// assert_eq!(UpAxis::parse("y"), Some(UpAxis::Y));
    /// assert_eq!(UpAxis::parse("w"), None);
    /// ```
    pub fn parse(letter: &str) -> Option<Self> {
        match letter {
            "x" => Some(UpAxis::X),
            "y" => Some(UpAxis::Y),
            "z" => Some(UpAxis::Z),
            _ => None,
        }
    }

    /// The axis's letter (`x`, `y`, `z`), as the write setting `up` takes it.
    pub fn letter(self) -> &'static str {
        match self {
            UpAxis::X => "x",
            UpAxis::Y => "y",
            UpAxis::Z => "z",
        }
    }

    /// The world axis a half turn is made about when gravity points up this axis: the next
    /// axis in the cycle x -> y -> z -> x (a half turn about it reverses this one).
    fn half_turn_axis(self) -> Vector3<f64> {
        match self {
            UpAxis::X => Vector3::y(),
            UpAxis::Y => Vector3::z(),
            UpAxis::Z => Vector3::x(),
        }
    }
}

/// The smallest rotation that turns `gravity` (the model's:
/// [`Simulation::gravity_or_unstated`](crate::Simulation::gravity_or_unstated)) to point down `up` (along its negative
/// direction); a half turn about the next world axis when gravity points up it; `None` when
/// gravity is zero, not finite, or already points down `up` exactly.
///
/// ```
/// use mbconv_ir::lower::{UpAxis, rotation_to_up};
/// use nalgebra::Vector3;
/// let turn = rotation_to_up(&Vector3::new(0.0, -9.81, 0.0), UpAxis::Z).unwrap();
/// let turned = turn * Vector3::new(0.0, -9.81, 0.0);
/// assert!((turned - Vector3::new(0.0, 0.0, -9.81)).norm() < 1e-12);
/// assert!(rotation_to_up(&Vector3::new(0.0, 0.0, -9.81), UpAxis::Z).is_none());
/// ```
pub fn rotation_to_up(gravity: &Vector3<f64>, up: UpAxis) -> Option<UnitQuaternion<f64>> {
    let norm = gravity.norm();
    if !norm.is_finite() || norm == 0.0 {
        return None;
    }
    let down = -up.vector();
    let direction = gravity / norm;
    if direction == down {
        return None;
    }
    UnitQuaternion::rotation_between(&direction, &down).or_else(|| {
        Some(UnitQuaternion::from_axis_angle(
            &nalgebra::Unit::new_normalize(up.half_turn_axis()),
            std::f64::consts::PI,
        ))
    })
}

/// Turns the whole model by `rotation` about the world origin: gravity (an unstated one
/// stated, as mbconv simulates it), every body's pose and
/// initial velocity, the world-side frames of joints, constraints, force elements, motors and
/// devices,
/// world-fixed load vectors and points, and the world frames. What the model states relative
/// to a body is unchanged, so the model moves as before, turned: a body's motion in the new
/// world is `rotation` times its motion in the old. Returns a note `<format>.reoriented` that
/// gives the rotation, and notes on what is not simply turned: format extras (kept verbatim),
/// and restraints measured from the world frame itself (re-targeted to a world frame
/// [`OLD_WORLD_FRAME`] that keeps the old axes).
///
/// ```
/// use mbconv_ir::lower::{UpAxis, reorient, rotation_to_up};
/// use mbconv_ir::{Body, Model};
/// use nalgebra::Vector3;
/// let mut model = Model::new("m");
/// model.simulation.gravity = Some(Vector3::new(0.0, -9.81, 0.0));
/// let mut body = Body::new("b");
/// body.pose.translation = Vector3::new(0.0, 1.0, 0.0);
/// model.bodies.push(body);
/// let turn = rotation_to_up(&Vector3::new(0.0, -9.81, 0.0), UpAxis::Z).unwrap();
/// let findings = reorient(&mut model, &turn, "body");
/// // A quarter turn takes axes onto axes: coordinates move between them exactly.
/// assert_eq!(model.bodies[0].pose.translation, Vector3::new(0.0, 0.0, 1.0));
/// assert_eq!(model.simulation.gravity, Some(Vector3::new(0.0, 0.0, -9.81)));
/// assert!(findings.iter().any(|f| f.code == "body.reoriented"));
/// ```
pub fn reorient(model: &mut Model, rotation: &UnitQuaternion<f64>, format: &str) -> Vec<Finding> {
    let turn = Turn::new(rotation);
    let turn_point = |p: &mut Vector3<f64>| *p = turn.point(p);
    let turn_frame = |f: &mut Pose| *f = turn.pose(f);
    let mut findings = Vec::new();
    let mut extras_kept = false;
    // An unstated gravity is mbconv's, which does not turn with the model: it is stated.
    model.simulation.gravity = Some(turn.point(&model.simulation.gravity_or_unstated()));
    for body in &mut model.bodies {
        turn_frame(&mut body.pose);
        if let Some(v) = &mut body.initial_velocity {
            turn_point(&mut v.linear);
            turn_point(&mut v.angular);
        }
        extras_kept |= !body.extras.is_empty();
    }
    let at_world = |r: &BodyRef| (*r == BodyRef::World).then_some(turn);
    super::body_frame::re_express_attachments(model, &at_world);
    extras_kept |= model.joints.iter().any(|j| !j.extras.is_empty())
        || model.constraints.iter().any(|c| !c.extras.is_empty())
        || model.motors.iter().any(|m| !m.extras.is_empty())
        || model.devices.iter().any(|d| !d.extras.is_empty());
    let mut old_world_axes = false;
    for element in &mut model.force_elements {
        extras_kept |= !element.extras.is_empty();
        let ForceKind::Restraint(restraint) = &mut element.kind else {
            continue;
        };
        if let RestraintTarget::FramePair {
            body1,
            frame1,
            body2,
            frame2,
            ..
        } = &mut restraint.target
        {
            // The world's own frame is the one thing whose axes turn with the world: a frame
            // that keeps the old axes stands in for it.
            for (body, frame) in [(&*body1, frame1), (&*body2, frame2)] {
                let world_origin = *body == BodyRef::World
                    && frame == ORIGIN_FRAME
                    && !model.world_frames.iter().any(|f| f.name == ORIGIN_FRAME);
                if world_origin {
                    *frame = OLD_WORLD_FRAME.to_owned();
                    old_world_axes = true;
                }
            }
        }
    }
    for load in &mut model.loads {
        if !load.vector_in_body_frame {
            turn_point(&mut load.vector);
        }
        if !load.point_in_body_frame {
            turn_point(&mut load.point);
        }
        extras_kept |= !load.extras.is_empty();
    }
    for frame in &mut model.world_frames {
        turn_frame(&mut frame.pose);
    }
    if old_world_axes {
        model.world_frames.push(crate::model::body::Frame {
            name: OLD_WORLD_FRAME.to_owned(),
            pose: Pose::from_rotation(*rotation),
            kind: crate::model::body::FrameKind::Frame,
            extras: crate::Extras::default(),
        });
        findings.push(note(
            format,
            "world_axes_kept",
            Feature::Restraints,
            "",
            &format!(
                "restraints measured from the world frame keep its old axes: they name a new world frame {OLD_WORLD_FRAME:?}"
            ),
        ));
    }
    extras_kept |= !model.extras.is_empty() || !model.simulation.extras.is_empty();
    let (axis, angle) = rotation
        .axis_angle()
        .map_or((Vector3::z(), 0.0), |(a, angle)| (a.into_inner(), angle));
    findings.push(
        Finding::new(
            format!("{format}.reoriented"),
            Severity::Info,
            Category::Note,
            format!(
                "the whole model is turned by {:.6} rad about ({:.6}, {:.6}, {:.6}) through the world origin, so that gravity points down the target's axis (quaternion wxyz {:?}); it moves as before, turned",
                angle,
                axis.x,
                axis.y,
                axis.z,
                crate::pose::wxyz(rotation)
            ),
        )
        .for_feature(Feature::Gravity)
        .at("simulation.gravity"),
    );
    if extras_kept {
        findings.push(note(
            format,
            "reoriented_extras_kept",
            Feature::FormatExtras,
            "",
            "format extras are kept as written: what they state in world coordinates is not turned",
        ));
    }
    findings
}

/// For a writer whose format fixes gravity down `up` (Choreonoid's and URDF's -z): a clause
/// that names the shared write setting that turns the model so, for a message about a
/// `gravity` that points elsewhere; empty when no turn helps (gravity zero or not finite).
///
/// ```
/// use mbconv_ir::lower::{UpAxis, turn_hint};
/// use nalgebra::Vector3;
/// assert!(turn_hint(&Vector3::new(0.0, -9.81, 0.0), UpAxis::Z).contains("--up z"));
/// assert_eq!(turn_hint(&Vector3::zeros(), UpAxis::Z), "");
/// ```
pub fn turn_hint(gravity: &Vector3<f64>, up: UpAxis) -> String {
    if rotation_to_up(gravity, up).is_none() {
        return String::new();
    }
    let axis = up.letter();
    format!(
        "; pass --up {axis} (the write setting up={axis}) to turn the whole model so that gravity points down -{axis}"
    )
}

/// A rotation of the world as a change of coordinates. One that takes world axes onto world
/// axes (a quarter or half turn about an axis, as from a y-up world to a z-up one) moves
/// points and directions by its exact matrix of zeros and ones, so that coordinates move
/// between axes unchanged (0.3 along y becomes 0.3 along z, with no 1e-17 left along y);
/// orientations are turned by the quaternion.
#[derive(Clone, Copy)]
struct Turn {
    rotation: UnitQuaternion<f64>,
    axis_permutation: Option<Matrix3<f64>>,
}

impl Turn {
    fn new(rotation: &UnitQuaternion<f64>) -> Self {
        // Within rounding of the quaternion's components: a true permutation's entries are
        // 0 and ±1 to ~1e-16.
        const SNAP: f64 = 1e-12;
        let matrix = rotation.to_rotation_matrix().into_inner();
        let snapped = matrix.map(|e| {
            if e.abs() < SNAP {
                0.0
            } else if (e.abs() - 1.0).abs() < SNAP {
                e.signum()
            } else {
                f64::NAN
            }
        });
        Self {
            rotation: *rotation,
            axis_permutation: snapped.iter().all(|e| !e.is_nan()).then_some(snapped),
        }
    }
}

impl FrameChange for Turn {
    fn pose(&self, pose: &Pose) -> Pose {
        Pose::new(self.point(&pose.translation), self.rotation * pose.rotation)
    }
    fn point(&self, point: &Vector3<f64>) -> Vector3<f64> {
        match &self.axis_permutation {
            Some(matrix) => matrix * point,
            None => self.rotation * point,
        }
    }
    fn vector(&self, vector: &Vector3<f64>) -> Vector3<f64> {
        self.point(vector)
    }
}

/// The world frame that keeps the world's axes as they were before [`reorient`].
pub const OLD_WORLD_FRAME: &str = "world_before_reorientation";
