//! `mbconv-bushing` holds the bushing force laws of mbconv and the tools around them:
//! Drake's `LinearBushingRollPitchYaw` reproduced exactly ([`drake`]), Chrono's generic
//! bushing as `bushing_data` builds it ([`chrono`]), conversion of a bushing from one law to
//! the other ([`convert`]), the stiffness/damping design rules of Drake's documentation
//! ([`mod@design`]) and the replacement of an ideal joint by a penalty bushing ([`replace`]).
//! It is **not** a simulator: the solver composes frame states from body states, calls
//! [`evaluate`] and applies the returned wrenches to the bodies.
//!
//! Everything is SI and radians. Frame states and wrenches are in world coordinates.
//!
//! ```
//! use mbconv_bushing::{evaluate, FrameState};
//! use mbconv_ir::{Bushing, BushingLaw, BodyRef, Pose};
//! use nalgebra::Vector3;
//! let bushing = Bushing {
//!     law: BushingLaw::DrakeRollPitchYaw,
//!     body_a: BodyRef::World, frame_a: Pose::identity(),
//!     body_c: BodyRef::body("link"), frame_c: Pose::identity(),
//!     torque_stiffness: [10.0; 3], torque_damping: [0.0; 3],
//!     force_stiffness: [1000.0; 3], force_damping: [0.0; 3],
//! };
//! let a = FrameState::at_rest(Pose::identity());
//! let c = FrameState::at_rest(Pose::from_translation(Vector3::new(0.0, 0.0, -0.01)));
//! let (on_a, on_c) = evaluate(&bushing, &a, &c).unwrap();
//! assert!((on_c.force - Vector3::new(0.0, 0.0, 10.0)).norm() < 1e-12);
//! assert_eq!(on_a.force, -on_c.force);
//! ```

pub mod chrono;
pub mod convert;
pub mod design;
pub mod drake;
mod error;
pub mod kinematics;
pub mod replace;

pub use convert::{ChronoBody1, chrono_bushing_from_joint, convert_law};
pub use design::{DesignInputs, DesignResult, design};
pub use error::BushingError;
pub use replace::{ReplaceParams, replace_joint_with_bushing};

use mbconv_ir::{Bushing, BushingLaw, Pose};
use nalgebra::Vector3;

/// World-frame state of a frame fixed on a body.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FrameState {
    /// World pose of the frame.
    pub pose: Pose,
    /// Angular velocity of the frame, world coordinates.
    pub angular_velocity: Vector3<f64>,
    /// Velocity of the frame origin, world coordinates.
    pub linear_velocity: Vector3<f64>,
}

/// A force and a torque about a frame origin, both in world coordinates.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Wrench {
    /// Torque about the frame origin, world coordinates.
    pub torque: Vector3<f64>,
    /// Force, world coordinates.
    pub force: Vector3<f64>,
}

/// The twelve constants of a bushing as vectors: torque stiffness/damping `[k0 k1 k2]`,
/// `[d0 d1 d2]` and force stiffness/damping `[kx ky kz]`, `[dx dy dz]`.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct LawConstants {
    /// `[k0, k1, k2]` (N·m/rad).
    pub torque_stiffness: Vector3<f64>,
    /// `[d0, d1, d2]` (N·m·s/rad).
    pub torque_damping: Vector3<f64>,
    /// `[kx, ky, kz]` (N/m).
    pub force_stiffness: Vector3<f64>,
    /// `[dx, dy, dz]` (N·s/m).
    pub force_damping: Vector3<f64>,
}

impl LawConstants {
    /// The constants of an IR bushing.
    pub fn of(bushing: &Bushing) -> Self {
        Self {
            torque_stiffness: Vector3::from(bushing.torque_stiffness),
            torque_damping: Vector3::from(bushing.torque_damping),
            force_stiffness: Vector3::from(bushing.force_stiffness),
            force_damping: Vector3::from(bushing.force_damping),
        }
    }

    /// Checks that every constant is finite and, when `non_negative`, not negative (Drake's
    /// precondition). `name` names the bushing in the error.
    pub fn check(&self, name: &str, non_negative: bool) -> Result<(), BushingError> {
        let groups = [
            ("torque_stiffness", &self.torque_stiffness),
            ("torque_damping", &self.torque_damping),
            ("force_stiffness", &self.force_stiffness),
            ("force_damping", &self.force_damping),
        ];
        for (quantity, values) in groups {
            for (index, &value) in values.iter().enumerate() {
                let expected = if !value.is_finite() {
                    Some("a finite number")
                } else if non_negative && value < 0.0 {
                    Some("a non-negative number (Drake's LinearBushingRollPitchYaw)")
                } else {
                    None
                };
                if let Some(expected) = expected {
                    return Err(BushingError::BadConstant {
                        name: name.to_owned(),
                        quantity,
                        index,
                        value,
                        expected,
                    });
                }
            }
        }
        Ok(())
    }
}

/// The wrenches a bushing applies: on frame A about A's origin, and on frame C about C's
/// origin, both in world coordinates. `a` and `c` are the world states of frames A and C
/// (`body_a`'s state composed with `frame_a`, `body_c`'s with `frame_c`; see
/// [`FrameState::compose`]). Dispatches on `bushing.law`.
///
/// Errors: a negative (Drake law) or non-finite constant, a non-finite state, and Drake's
/// gimbal lock. The error carries no name; use [`evaluate_named`] or
/// [`BushingError::with_name`] to name the bushing.
pub fn evaluate(bushing: &Bushing, a: &FrameState, c: &FrameState) -> Result<(Wrench, Wrench), BushingError> {
    evaluate_named("", bushing, a, c)
}

/// [`evaluate`] with the bushing's name in any error message.
pub fn evaluate_named(
    name: &str,
    bushing: &Bushing,
    a: &FrameState,
    c: &FrameState,
) -> Result<(Wrench, Wrench), BushingError> {
    let k = LawConstants::of(bushing);
    a.check_finite(name, "A")?;
    c.check_finite(name, "C")?;
    match bushing.law {
        BushingLaw::DrakeRollPitchYaw => {
            k.check(name, true)?;
            drake::evaluate(&k, a, c).map_err(|e| e.with_name(name))
        }
        BushingLaw::ChronoGeneric => {
            k.check(name, false)?;
            Ok(chrono::evaluate(&k, a, c))
        }
    }
}

/// The energy stored in a bushing's springs for frame states `a` and `c` (see
/// [`drake::potential_energy`] and [`chrono::potential_energy`] for how exact a potential it
/// is). Errors as [`evaluate`] for bad constants or states; gimbal lock is no obstacle here.
pub fn potential_energy(bushing: &Bushing, a: &FrameState, c: &FrameState) -> Result<f64, BushingError> {
    let k = LawConstants::of(bushing);
    a.check_finite("", "A")?;
    c.check_finite("", "C")?;
    Ok(match bushing.law {
        BushingLaw::DrakeRollPitchYaw => {
            k.check("", true)?;
            drake::potential_energy(&k, &kinematics::RelativeMotion::of(a, c))
        }
        BushingLaw::ChronoGeneric => {
            k.check("", false)?;
            chrono::potential_energy(&k, a, c)
        }
    })
}
