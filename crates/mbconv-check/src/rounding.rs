//! How far rounding alone moves a model: the check's resolution for models that amplify the
//! last bits of their numbers.
//!
//! An exact re-expression computed in floating point equals the original only to rounding,
//! and a writer's numbers read back to the last bit at best. Most models move the same under
//! such changes (1e-13 m or less), but some amplify them: overconstrained loops whose
//! constraint projection stalls at its rounding floor (the Bricard linkage, delta robots),
//! or chaotic motion. For those, a change in the last bits moves bodies by micrometres, and a
//! difference of that size says nothing about a conversion. The check measures it only when
//! it would otherwise blame a pass or the writer: it simulates the model again with every
//! number nudged by one unit in the last place ([`nudged`]) and takes the largest centre-of-
//! mass distance and rotation angle between the two runs ([`rounding_sensitivity`]). A
//! difference no larger than ten times those is within the check's resolution for this model,
//! and the verdict says so.

use crate::compare::{BodyMatch, Difference, Tolerances};
use crate::motion::{Motion, SimulationSettings};
use mbconv_ir::Model;
use serde_json::Value;

/// How many times the rounding sensitivity a difference may reach and still be rounding.
pub const ROUNDING_MARGIN: f64 = 10.0;

/// `model` with every non-zero finite number it holds moved by one unit in the last place,
/// up and down in turn (in the order of the model's JSON form); integers (indices, counts)
/// are left alone. `None` if the nudged model cannot be rebuilt.
///
/// ```
/// use mbconv_ir::{Body, Model};
/// let mut model = Model::new("m");
/// let mut body = Body::new("b");
/// body.inertial.mass = 2.0;
/// model.bodies.push(body);
/// let nudged = mbconv_check::rounding::nudged(&model).unwrap();
/// let mass = nudged.bodies[0].inertial.mass;
/// assert_ne!(mass, 2.0);
/// assert!((mass - 2.0).abs() <= 2.0 * f64::EPSILON);
/// ```
pub fn nudged(model: &Model) -> Option<Model> {
    let mut value = serde_json::to_value(model).ok()?;
    let mut up = true;
    nudge(&mut value, &mut up);
    serde_json::from_value(value).ok()
}

fn nudge(value: &mut Value, up: &mut bool) {
    match value {
        Value::Number(n) if n.is_f64() => {
            let Some(x) = n.as_f64() else { return };
            if x != 0.0 && x.is_finite() {
                let moved = if *up { x.next_up() } else { x.next_down() };
                *up = !*up;
                if let Some(m) = serde_json::Number::from_f64(moved) {
                    *n = m;
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| nudge(v, up)),
        Value::Object(fields) => fields.values_mut().for_each(|v| nudge(v, up)),
        _ => {}
    }
}

/// How far rounding alone moves `model` (whose motion with `simulation` is `motion`): the
/// largest centre-of-mass distance (m) and rotation angle (rad) between `motion` and the
/// motion of the [`nudged`] model, as [`Tolerances`]. `None` when the nudged model cannot be
/// built or simulated.
pub fn rounding_sensitivity(
    model: &Model,
    simulation: &SimulationSettings,
    motion: &Motion,
) -> Option<Tolerances> {
    let other = Motion::simulate(&nudged(model)?, simulation).ok()?;
    let matching = BodyMatch::new(&motion.bodies, &other.bodies, &[]);
    let difference = Difference::between(motion, &other, &matching);
    if !difference.missing.is_empty() {
        return None;
    }
    Some(Tolerances {
        position: difference.max_com_error,
        rotation: difference.max_rotation_error,
    })
}

/// `tolerances` widened, position and rotation each, to [`ROUNDING_MARGIN`] times what
/// rounding alone does to the model (`sensitivity`).
///
/// ```
/// use mbconv_check::Tolerances;
/// use mbconv_check::rounding::widened;
/// let asked = Tolerances { position: 1e-6, rotation: 1e-6 };
/// let tiny = Tolerances { position: 1e-14, rotation: 1e-13 };
/// assert_eq!(widened(&asked, &tiny), asked);
/// let large = Tolerances { position: 4e-6, rotation: 5e-8 };
/// let w = widened(&asked, &large);
/// assert!((w.position - 4e-5).abs() < 1e-18);
/// assert_eq!(w.rotation, 1e-6);
/// ```
pub fn widened(tolerances: &Tolerances, sensitivity: &Tolerances) -> Tolerances {
    Tolerances {
        position: tolerances.position.max(ROUNDING_MARGIN * sensitivity.position),
        rotation: tolerances.rotation.max(ROUNDING_MARGIN * sensitivity.rotation),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use mbconv_ir::{
        Body, BodyRef, Extras, ForceElement, ForceKind, Joint, JointKind, PiecewisePolynomial, Restraint,
        RestraintTarget, RestraintType,
    };
    use mbconv_solver::Integrator;
    use nalgebra::Vector3;

    fn pendulum() -> Model {
        let mut model = Model::new("pendulum");
        let mut bob = Body::new("bob");
        bob.inertial.mass = 1.5;
        bob.inertial.com = Vector3::new(0.0, 0.0, -0.7);
        model.bodies.push(bob);
        let mut pivot = Joint::new(
            "pivot",
            JointKind::Universal {
                axis1: Vector3::x(),
                axis2: Vector3::y(),
            },
            BodyRef::World,
            BodyRef::body("bob"),
        );
        pivot.q0 = vec![0.4, -0.2];
        model.joints.push(pivot);
        model
    }

    #[test]
    fn integers_are_not_nudged_and_floats_move_by_one_unit() {
        let mut model = pendulum();
        model.force_elements.push(ForceElement {
            name: "spring".to_owned(),
            kind: ForceKind::Restraint(Restraint {
                restraint_type: RestraintType::Spring,
                target: RestraintTarget::Joint {
                    joint: "pivot".to_owned(),
                    dof: 1,
                },
                function: PiecewisePolynomial {
                    knots: vec![],
                    pieces: vec![vec![0.0, 3.0]],
                },
            }),
            extras: Extras::default(),
        });
        let nudged = nudged(&model).unwrap();
        let ForceKind::Restraint(r) = &nudged.force_elements[0].kind else {
            panic!("not a restraint")
        };
        assert!(matches!(r.target, RestraintTarget::Joint { dof: 1, .. }));
        assert_eq!(r.function.pieces[0][0], 0.0, "zero stays zero");
        let one_unit = |x: f64, was: f64| x == was.next_up() || x == was.next_down();
        let q0 = &nudged.joints[0].q0;
        assert!(one_unit(q0[0], 0.4) && one_unit(q0[1], -0.2), "{q0:?}");
        assert!(one_unit(nudged.bodies[0].inertial.mass, 1.5));
    }

    #[test]
    fn a_smooth_pendulum_is_insensitive_to_rounding() {
        let model = pendulum();
        let settings = SimulationSettings::new(0.5, 1e-3, Integrator::Rk4);
        let motion = Motion::simulate(&model, &settings).unwrap();
        let sensitivity = rounding_sensitivity(&model, &settings, &motion).unwrap();
        assert!(sensitivity.position > 0.0, "the nudge must change something");
        assert!(sensitivity.position < 1e-12, "{sensitivity:?}");
        assert!(sensitivity.rotation < 1e-12, "{sensitivity:?}");
    }
}
