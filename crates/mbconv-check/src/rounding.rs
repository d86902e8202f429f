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
//! number nudged by one unit in the last place ([`nudged_with`]), in each of a few patterns
//! ([`NUDGES`]: a model whose motion turns on a threshold is blind to some), and takes the
//! largest centre-of-mass distance and rotation angle between a nudged run and the model's
//! ([`rounding_sensitivity`]). A
//! difference no larger than ten times those is within the check's resolution for this model,
//! and the verdict says so.

use crate::compare::{BodyMatch, Difference, Tolerances};
use crate::motion::{Motion, SimulationSettings, extent, numeric_scale};
use mbconv_ir::Model;
use serde_json::Value;

/// How many times the rounding sensitivity a difference may reach and still be rounding.
pub const ROUNDING_MARGIN: f64 = 10.0;

/// How a [`nudged_with`] model moves its numbers, one unit in the last place each: the
/// check tries every pattern of [`NUDGES`] and takes the largest spread, since a model whose
/// motion turns on a threshold (a stop that engages or not) can be blind to one pattern and
/// not to another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Nudge {
    /// Up, down, up, … in the order of the model's JSON form.
    Alternating,
    /// Down, up, down, … in the same order.
    AlternatingDown,
    /// Every number up.
    Up,
    /// Every number down.
    Down,
}

/// Every [`Nudge`], in the order the check tries them.
pub const NUDGES: [Nudge; 4] = [Nudge::Alternating, Nudge::AlternatingDown, Nudge::Up, Nudge::Down];

impl Nudge {
    /// Whether the `index`-th number nudged goes up.
    fn up(self, index: usize) -> bool {
        match self {
            Nudge::Alternating => index.is_multiple_of(2),
            Nudge::AlternatingDown => !index.is_multiple_of(2),
            Nudge::Up => true,
            Nudge::Down => false,
        }
    }
}

/// `model` nudged by [`Nudge::Alternating`] (see [`nudged_with`]). `None` if the nudged model
/// cannot be rebuilt.
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
    nudged_with(model, Nudge::Alternating)
}

/// `model` with every finite number it holds moved by one unit in the last place, up or down
/// as `pattern` says (in the order of the model's JSON form), counted as the check counts a
/// writer's rounding ([`DynamicsKey::last_bits_from`](crate::DynamicsKey::last_bits_from)): a
/// component of a vector or matrix at the scale of its largest component (so a zero beside
/// non-zero components moves too, as a writer composing frames turns 0 into 1e-17), a
/// translation at the model's extent. A zero on its own (a damping, a velocity) stays zero,
/// and integers (indices, counts) are left alone. `None` if the nudged model cannot be
/// rebuilt.
///
/// ```
/// use mbconv_check::rounding::{Nudge, nudged_with};
/// use mbconv_ir::{Body, Model};
/// let mut model = Model::new("m");
/// let mut body = Body::new("b");
/// body.inertial.mass = 2.0;
/// body.inertial.com = nalgebra::Vector3::new(0.0, 0.0, 0.5);
/// model.bodies.push(body);
/// let nudged = nudged_with(&model, Nudge::Up).unwrap();
/// assert_eq!(nudged.bodies[0].inertial.mass, 2.0_f64.next_up());
/// let com = nudged.bodies[0].inertial.com;
/// assert!(com.x > 0.0 && com.x < 1e-16, "a zero beside 0.5 moves at 0.5's scale: {com:?}");
/// ```
pub fn nudged_with(model: &Model, pattern: Nudge) -> Option<Model> {
    let mut value = serde_json::to_value(model).ok()?;
    let extent = extent(&value);
    let mut count = 0;
    nudge(&mut value, 0.0, extent, pattern, &mut count);
    serde_json::from_value(value).ok()
}

/// Nudges every number under `value`, each at the larger of its own magnitude and `scale`.
fn nudge(value: &mut Value, scale: f64, extent: f64, pattern: Nudge, count: &mut usize) {
    match value {
        Value::Number(n) if n.is_f64() => {
            let Some(x) = n.as_f64() else { return };
            let at = scale.max(x.abs());
            if at == 0.0 || !x.is_finite() || !at.is_finite() {
                return;
            }
            let unit = at - at.next_down();
            // At a power of two the gap above is twice the gap below: never less than one step.
            let moved = if pattern.up(*count) {
                (x + unit).max(x.next_up())
            } else {
                (x - unit).min(x.next_down())
            };
            *count += 1;
            if let Some(m) = serde_json::Number::from_f64(moved) {
                *n = m;
            }
        }
        Value::Array(_) => {
            let scale = scale.max(numeric_scale(value));
            if let Value::Array(items) = value {
                items
                    .iter_mut()
                    .for_each(|v| nudge(v, scale, extent, pattern, count));
            }
        }
        Value::Object(fields) => fields.iter_mut().for_each(|(key, v)| {
            let scale = if key == "translation" { extent } else { 0.0 };
            nudge(v, scale, extent, pattern, count);
        }),
        _ => {}
    }
}

/// How far rounding alone moves `model` (whose motion with `simulation` is `motion`): the
/// largest centre-of-mass distance (m) and rotation angle (rad) between `motion` and the
/// motion of the model [`nudged_with`] each pattern of [`NUDGES`], as [`Tolerances`].
/// `None` when no nudged model can be built and simulated.
pub fn rounding_sensitivity(
    model: &Model,
    simulation: &SimulationSettings,
    motion: &Motion,
) -> Option<Tolerances> {
    spreads(model, simulation, motion).reduce(|a, b| larger(&a, &b))
}

/// The rounding sensitivity of `model` (as [`rounding_sensitivity`]) when it covers
/// `difference` within [`ROUNDING_MARGIN`] times it and `tolerances` ([`widened`]); the
/// patterns are tried in turn and the search stops at the first that covers it, so a model
/// the first nudge already explains costs one simulation. `None` when no pattern covers it.
pub(crate) fn covering_sensitivity(
    model: &Model,
    simulation: &SimulationSettings,
    motion: &Motion,
    difference: &Difference,
    tolerances: &Tolerances,
) -> Option<Tolerances> {
    let mut largest: Option<Tolerances> = None;
    for spread in spreads(model, simulation, motion) {
        let so_far = largest.map_or(spread, |l| larger(&l, &spread));
        if difference.within(&widened(tolerances, &so_far)) {
            return Some(so_far);
        }
        largest = Some(so_far);
    }
    None
}

/// The spread between `motion` and the motion of each nudged model, pattern by pattern.
fn spreads<'a>(
    model: &'a Model,
    simulation: &'a SimulationSettings,
    motion: &'a Motion,
) -> impl Iterator<Item = Tolerances> + 'a {
    NUDGES.into_iter().filter_map(move |pattern| {
        let other = Motion::simulate(&nudged_with(model, pattern)?, simulation).ok()?;
        let matching = BodyMatch::new(&motion.bodies, &other.bodies, &[]);
        let difference = Difference::between(motion, &other, &matching);
        difference.missing.is_empty().then_some(Tolerances {
            position: difference.max_com_error,
            rotation: difference.max_rotation_error,
        })
    })
}

/// Position and rotation each the larger of `a`'s and `b`'s.
fn larger(a: &Tolerances, b: &Tolerances) -> Tolerances {
    Tolerances {
        position: a.position.max(b.position),
        rotation: a.rotation.max(b.rotation),
    }
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
    fn integers_and_lone_zeros_are_not_nudged_and_floats_move_by_one_unit() {
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
        let beside = r.function.pieces[0][0];
        assert!(
            beside != 0.0 && beside.abs() <= 3.0 - 3.0_f64.next_down(),
            "a zero beside 3 moves at 3's scale: {beside}"
        );
        assert_eq!(
            nudged.joints[0].v0, model.joints[0].v0,
            "zeros on their own stay zero"
        );
        assert!(model.joints[0].v0.iter().all(|v| *v == 0.0));
        let one_unit = |x: f64, was: f64| x == was.next_up() || x == was.next_down();
        let q0 = &nudged.joints[0].q0;
        let unit_of_04 = 0.4 - 0.4_f64.next_down();
        assert!(
            one_unit(q0[0], 0.4) && (q0[1] + 0.2).abs() == unit_of_04,
            "{q0:?}: -0.2 moves at 0.4's scale"
        );
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
