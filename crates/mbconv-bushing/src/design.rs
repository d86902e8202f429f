//! Choosing bushing stiffness and damping: the rules of Drake's `LinearBushingRollPitchYaw`
//! documentation, as functions, plus [`design`], which combines them from whatever inputs are
//! given (what `mbconv bushing design` prints).
//!
//! The model is the prototypical second-order system `m·ẍ + d·ẋ + k·x = 0`, i.e.
//! `ẍ + 2ζωₙ·ẋ + ωₙ²·x = 0` with `ωₙ² = k/m` and `ζ = d/(2√(m·k))`. For rotations read
//! inertia for mass, N·m/rad for N/m and N·m·s/rad for N·s/m.
//!
//! ```
//! use mbconv_bushing::design::*;
//! // Critically damped, settle to 1 % in 0.01 s, 2 kg: ωₙ = 6.638…/(0.01 s).
//! let wn = omega_n_critically_damped(0.01, 0.01).unwrap();
//! assert!((wn - 663.8352067993813).abs() < 1e-9);
//! let k = stiffness_from_mass_and_frequency(2.0, wn).unwrap();
//! let d = damping_from_mass_and_stiffness(1.0, 2.0, k).unwrap();
//! assert!((d - damping_from_ratio_and_frequency(1.0, k, wn).unwrap()).abs() < 1e-9 * d);
//! ```

use crate::BushingError;
use serde::{Deserialize, Serialize};

fn positive(what: &str, value: f64) -> Result<f64, BushingError> {
    if value.is_finite() && value > 0.0 {
        Ok(value)
    } else {
        Err(BushingError::Design(format!(
            "{what} must be a positive finite number, got {value}"
        )))
    }
}

fn non_negative(what: &str, value: f64) -> Result<f64, BushingError> {
    if value.is_finite() && value >= 0.0 {
        Ok(value)
    } else {
        Err(BushingError::Design(format!(
            "{what} must be a non-negative finite number, got {value}"
        )))
    }
}

fn ratio(what: &str, value: f64) -> Result<f64, BushingError> {
    if value.is_finite() && value > 0.0 && value < 1.0 {
        Ok(value)
    } else {
        Err(BushingError::Design(format!(
            "{what} must lie strictly between 0 and 1, got {value}"
        )))
    }
}

/// Stiffness from a static experiment: a known load (force or moment) and the displacement
/// (or angle) it produces, `k = |load| / |displacement|`. Also Drake's penalty method "maximum
/// load over maximum allowed displacement" ([`stiffness_from_max_load`]).
pub fn stiffness_from_static_test(load: f64, displacement: f64) -> Result<f64, BushingError> {
    let displacement = positive("displacement", displacement.abs())?;
    Ok(non_negative("load", load.abs())? / displacement)
}

/// Penalty stiffness from an estimated maximum load and the largest displacement (or angle)
/// the bushing may have under it: `k = load_max / displacement_max`.
pub fn stiffness_from_max_load(max_load: f64, max_displacement: f64) -> Result<f64, BushingError> {
    stiffness_from_static_test(max_load, max_displacement)
}

/// Penalty stiffness from a characteristic mass (or moment of inertia) and a desired
/// natural frequency: `k = m·ωₙ²`.
pub fn stiffness_from_mass_and_frequency(mass: f64, omega_n: f64) -> Result<f64, BushingError> {
    Ok(positive("mass (or inertia)", mass)? * positive("omega_n", omega_n)?.powi(2))
}

/// Damping from a damping ratio, the stiffness and the natural frequency: `d = 2ζ·k/ωₙ`.
pub fn damping_from_ratio_and_frequency(
    damping_ratio: f64,
    stiffness: f64,
    omega_n: f64,
) -> Result<f64, BushingError> {
    Ok(
        2.0 * non_negative("damping ratio", damping_ratio)? * non_negative("stiffness", stiffness)?
            / positive("omega_n", omega_n)?,
    )
}

/// Damping from a damping ratio, a characteristic mass (or inertia) and the stiffness:
/// `d = 2ζ·√(m·k)`.
pub fn damping_from_mass_and_stiffness(
    damping_ratio: f64,
    mass: f64,
    stiffness: f64,
) -> Result<f64, BushingError> {
    Ok(2.0
        * non_negative("damping ratio", damping_ratio)?
        * (positive("mass (or inertia)", mass)? * non_negative("stiffness", stiffness)?).sqrt())
}

/// The two underdamped settling-time approximations the documentation quotes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UnderdampedFormula {
    /// `ωₙ ≈ −ln(settling_ratio) / (ζ·tₛ)` (e.g. `4.6/(ζ·tₛ)` for 1 %).
    #[default]
    Envelope,
    /// `ωₙ ≈ −ln(settling_ratio·√(1 − ζ²)) / (ζ·tₛ)`.
    EnvelopeWithAmplitude,
}

/// `ωₙ` of an underdamped system (`0 < ζ < 1`; the documentation recommends `ζ < 0.7`) that
/// settles to within `settling_ratio` in `settling_time`, by one of the two approximations.
pub fn omega_n_underdamped(
    settling_time: f64,
    settling_ratio: f64,
    damping_ratio: f64,
    formula: UnderdampedFormula,
) -> Result<f64, BushingError> {
    let t_s = positive("settling time", settling_time)?;
    let r = ratio("settling ratio", settling_ratio)?;
    let zeta = ratio("damping ratio (underdamped)", damping_ratio)?;
    let argument = match formula {
        UnderdampedFormula::Envelope => r,
        UnderdampedFormula::EnvelopeWithAmplitude => r * (1.0 - zeta * zeta).sqrt(),
    };
    Ok(-argument.ln() / (zeta * t_s))
}

/// The product `x = ωₙ·tₛ` of a critically damped system: the positive root of
/// `(1 + x)·e^(−x) = settling_ratio`, solved to the last bit by bisection.
///
/// ```
/// let x = mbconv_bushing::design::critically_damped_product(0.05).unwrap();
/// assert_eq!(format!("{x:.2}"), "4.74");
/// ```
pub fn critically_damped_product(settling_ratio: f64) -> Result<f64, BushingError> {
    let r = ratio("settling ratio", settling_ratio)?;
    // g(x) = ln(1 + x) − x − ln r decreases from −ln r > 0 at x = 0.
    let g = |x: f64| x.ln_1p() - x - r.ln();
    let mut hi = 1.0;
    while g(hi) > 0.0 {
        hi *= 2.0;
    }
    Ok(bisect(g, 0.0, hi))
}

/// Bisection of a decreasing function with `g(lo) > 0 ≥ g(hi)` until the bracket no longer
/// shrinks.
fn bisect(g: impl Fn(f64) -> f64, mut lo: f64, mut hi: f64) -> f64 {
    loop {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            return mid;
        }
        if g(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
}

/// `ωₙ` of a critically damped system (`ζ = 1`) settling to `settling_ratio` in
/// `settling_time`: [`critically_damped_product`]` / tₛ`.
pub fn omega_n_critically_damped(settling_time: f64, settling_ratio: f64) -> Result<f64, BushingError> {
    let t_s = positive("settling time", settling_time)?;
    Ok(critically_damped_product(settling_ratio)? / t_s)
}

/// The poles' factors of an overdamped system: `(s1, s2, sz)` with `sz = √(ζ² − 1)`,
/// `s1 = ζ − sz`, `s2 = ζ + sz`.
fn overdamped_factors(damping_ratio: f64) -> Result<(f64, f64, f64), BushingError> {
    if !(damping_ratio.is_finite() && damping_ratio > 1.0) {
        return Err(BushingError::Design(format!(
            "the overdamped formula needs a damping ratio above 1, got {damping_ratio}"
        )));
    }
    let sz = (damping_ratio * damping_ratio - 1.0).sqrt();
    Ok((damping_ratio - sz, damping_ratio + sz, sz))
}

/// `ωₙ` of an overdamped system (the documentation recommends `ζ ≥ 1.01`) by the
/// dominant-pole formula `ωₙ ≈ −ln(2·settling_ratio·sz/s2) / (s1·tₛ)`.
pub fn omega_n_overdamped(
    settling_time: f64,
    settling_ratio: f64,
    damping_ratio: f64,
) -> Result<f64, BushingError> {
    let t_s = positive("settling time", settling_time)?;
    let r = ratio("settling ratio", settling_ratio)?;
    let (s1, s2, sz) = overdamped_factors(damping_ratio)?;
    Ok(-(2.0 * r * sz / s2).ln() / (s1 * t_s))
}

/// The exact `ωₙ·tₛ` of an overdamped system released from rest
/// (`x/x0 = s2/(2sz)·e^(−s1·y) − s1/(2sz)·e^(−s2·y) = settling_ratio`, `y = ωₙ·tₛ`), computed
/// as a correction of the dominant-pole value so that tiny differences keep full precision.
pub fn overdamped_exact_product(settling_ratio: f64, damping_ratio: f64) -> Result<f64, BushingError> {
    let (approximate, correction) = overdamped_product_and_correction(settling_ratio, damping_ratio)?;
    Ok(approximate + correction)
}

fn overdamped_product_and_correction(
    settling_ratio: f64,
    damping_ratio: f64,
) -> Result<(f64, f64), BushingError> {
    let r = ratio("settling ratio", settling_ratio)?;
    let (s1, s2, sz) = overdamped_factors(damping_ratio)?;
    let approximate = -(2.0 * r * sz / s2).ln() / s1;
    // With y = approximate + δ: e^(−s1·δ) − 1 = s1/(2·sz·r)·e^(−s2·y); a contraction in δ.
    let mut delta = 0.0_f64;
    for _ in 0..200 {
        let next = -(s1 / (2.0 * sz * r) * (-s2 * (approximate + delta)).exp()).ln_1p() / s1;
        if next == delta {
            break;
        }
        delta = next;
    }
    Ok((approximate, delta))
}

/// Relative error of the dominant-pole `ωₙ` against the exact one,
/// `(ωₙ,approx − ωₙ,exact)/ωₙ,exact` (a fraction; the documentation's table prints percent).
///
/// ```
/// let e = mbconv_bushing::design::overdamped_formula_error(0.01, 1.01).unwrap();
/// assert_eq!(format!("{:.2}%", 100.0 * e), "1.98%");
/// ```
pub fn overdamped_formula_error(settling_ratio: f64, damping_ratio: f64) -> Result<f64, BushingError> {
    let (approximate, delta) = overdamped_product_and_correction(settling_ratio, damping_ratio)?;
    Ok(-delta / (approximate + delta))
}

/// Damping ratio from a logarithmic decrement `δ = ln(x_k / x_(k+1))` of successive peaks:
/// `ζ = √(δ² / (4π² + δ²))`.
///
/// ```
/// let zeta = mbconv_bushing::design::damping_ratio_from_log_decrement(0.5).unwrap();
/// assert!((zeta - 0.07933).abs() < 1e-5);
/// ```
pub fn damping_ratio_from_log_decrement(log_decrement: f64) -> Result<f64, BushingError> {
    let delta = positive("logarithmic decrement", log_decrement)?;
    let two_pi = 2.0 * std::f64::consts::PI;
    Ok((delta * delta / (two_pi * two_pi + delta * delta)).sqrt())
}

/// Damping ratio from a measured decay ratio (successive peak heights above the final value,
/// later over earlier, in `(0, 1)`): `δ = −ln(decay_ratio)`, then
/// [`damping_ratio_from_log_decrement`].
pub fn damping_ratio_from_decay_ratio(decay_ratio: f64) -> Result<f64, BushingError> {
    damping_ratio_from_log_decrement(-ratio("decay ratio", decay_ratio)?.ln())
}

/// Which settling-time formula a damping ratio calls for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Regime {
    /// `ζ ≤ 0.99`: an underdamped approximation.
    Underdamped,
    /// `0.99 < ζ < 1.01`: `(1 + x)·e^(−x) = settling_ratio` solved exactly.
    CriticallyDamped,
    /// `ζ ≥ 1.01`: the dominant-pole formula.
    Overdamped,
}

impl Regime {
    /// The regime of damping ratio `zeta` (ranges as in the documentation: critical damping
    /// estimates work for `ζ ≈ 1`, the overdamped formula from `ζ ≥ 1.01`).
    pub fn of(zeta: f64) -> Self {
        if zeta >= 1.01 {
            Regime::Overdamped
        } else if zeta > 0.99 {
            Regime::CriticallyDamped
        } else {
            Regime::Underdamped
        }
    }
}

/// `ωₙ` from a settling time and ratio for damping ratio `zeta`, with the formula of its
/// [`Regime`].
pub fn omega_n_from_settling_time(
    settling_time: f64,
    settling_ratio: f64,
    damping_ratio: f64,
    underdamped: UnderdampedFormula,
) -> Result<(f64, Regime), BushingError> {
    let regime = Regime::of(damping_ratio);
    let omega_n = match regime {
        Regime::Underdamped => {
            omega_n_underdamped(settling_time, settling_ratio, damping_ratio, underdamped)?
        }
        Regime::CriticallyDamped => omega_n_critically_damped(settling_time, settling_ratio)?,
        Regime::Overdamped => omega_n_overdamped(settling_time, settling_ratio, damping_ratio)?,
    };
    Ok((omega_n, regime))
}

/// The settling ratio used when none is given (1 %, Drake's definition of settling time).
pub const DEFAULT_SETTLING_RATIO: f64 = 0.01;
/// The damping ratio used when none is given (critical damping).
pub const DEFAULT_DAMPING_RATIO: f64 = 1.0;

/// Inputs of [`design`] (what `mbconv bushing design` takes; all optional, SI units). For a
/// rotational direction read inertia (kg·m²) for mass, a moment for the load and an angle
/// (rad) for the displacement.
///
/// Needed: a **stiffness** (`stiffness`, or `load` + `displacement`, or `mass` + a natural
/// frequency) and a **natural frequency** (`omega_n`, or `settling_time`, or `mass` with the
/// stiffness). The damping ratio defaults to 1, the settling ratio to 0.01.
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DesignInputs {
    /// Natural frequency ωₙ (rad/s), given directly.
    pub omega_n: Option<f64>,
    /// Settling time tₛ (s), to derive ωₙ.
    pub settling_time: Option<f64>,
    /// Settling ratio (default 0.01).
    pub settling_ratio: Option<f64>,
    /// Damping ratio ζ (default 1).
    pub damping_ratio: Option<f64>,
    /// Logarithmic decrement δ, to derive ζ instead.
    pub log_decrement: Option<f64>,
    /// Decay ratio of successive peaks, to derive ζ instead.
    pub decay_ratio: Option<f64>,
    /// Underdamped approximation (default [`UnderdampedFormula::Envelope`]).
    pub underdamped_formula: UnderdampedFormula,
    /// Characteristic mass (kg) or moment of inertia (kg·m²).
    pub mass: Option<f64>,
    /// Stiffness, given directly.
    pub stiffness: Option<f64>,
    /// Load of a static experiment, or the maximum expected load (N or N·m).
    pub load: Option<f64>,
    /// Displacement under `load`, or the maximum allowed one (m or rad).
    pub displacement: Option<f64>,
}

/// How each value of a [`DesignResult`] was obtained.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DesignMethods {
    /// `given`, `log_decrement`, `decay_ratio` or `default`.
    pub damping_ratio: String,
    /// `given`, `settling_time_underdamped`, `settling_time_critically_damped`,
    /// `settling_time_overdamped` or `sqrt(k/m)`.
    pub omega_n: String,
    /// `given`, `load/displacement` or `m*omega_n^2`.
    pub stiffness: String,
    /// `2*zeta*k/omega_n` or `2*zeta*sqrt(m*k)`.
    pub damping: String,
}

/// What [`design`] computed; `mbconv bushing design --json` prints it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DesignResult {
    /// Natural frequency ωₙ (rad/s).
    pub omega_n: f64,
    /// Stiffness k (N/m or N·m/rad).
    pub stiffness: f64,
    /// Damping d (N·s/m or N·m·s/rad).
    pub damping: f64,
    /// Damping ratio ζ.
    pub damping_ratio: f64,
    /// Settling time used (s), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub settling_time: Option<f64>,
    /// Settling ratio used with the settling time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub settling_ratio: Option<f64>,
    /// The damping regime of ζ.
    pub regime: Regime,
    /// The mass (or inertia) the stiffness and damping imply or were computed with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mass: Option<f64>,
    /// How each value was obtained.
    pub methods: DesignMethods,
    /// Caveats (approximations outside their recommended range, inconsistent inputs).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// Computes stiffness, damping and natural frequency from the given inputs, following the
/// documentation's rules (see [`DesignInputs`] for what is needed).
///
/// ```
/// use mbconv_bushing::{design, DesignInputs};
/// // 100 N may move the bushing by at most 1 mm; settle to 1 % in 10 ms, critically damped.
/// let r = design(&DesignInputs { load: Some(100.0), displacement: Some(1e-3), settling_time: Some(0.01),
///     ..DesignInputs::default() }).unwrap();
/// assert_eq!(r.stiffness, 1e5);
/// assert_eq!(format!("{:.1}", r.omega_n), "663.8");
/// assert!((r.damping - 2.0 * 1e5 / r.omega_n).abs() < 1e-9);
/// ```
pub fn design(inputs: &DesignInputs) -> Result<DesignResult, BushingError> {
    let mut notes = Vec::new();
    let (zeta, zeta_method) = match (inputs.damping_ratio, inputs.log_decrement, inputs.decay_ratio) {
        (Some(z), None, None) => (non_negative("damping ratio", z)?, "given"),
        (None, Some(d), None) => (damping_ratio_from_log_decrement(d)?, "log_decrement"),
        (None, None, Some(r)) => (damping_ratio_from_decay_ratio(r)?, "decay_ratio"),
        (None, None, None) => (DEFAULT_DAMPING_RATIO, "default"),
        _ => {
            return Err(BushingError::Design(
                "give at most one of damping ratio, logarithmic decrement and decay ratio".into(),
            ));
        }
    };
    let regime = Regime::of(zeta);
    if inputs.load.is_some() != inputs.displacement.is_some() {
        return Err(BushingError::Design(
            "load and displacement must be given together".into(),
        ));
    }
    if inputs.omega_n.is_some() && inputs.settling_time.is_some() {
        return Err(BushingError::Design(
            "give either omega_n or a settling time, not both".into(),
        ));
    }
    if inputs.settling_ratio.is_some() && inputs.settling_time.is_none() {
        return Err(BushingError::Design(
            "a settling ratio needs a settling time".into(),
        ));
    }
    let mass = inputs
        .mass
        .map(|m| positive("mass (or inertia)", m))
        .transpose()?;

    // Natural frequency from the dynamics requirement, if one is given.
    let mut settling = None;
    let required_omega = match (inputs.omega_n, inputs.settling_time) {
        (Some(w), _) => Some((positive("omega_n", w)?, "given")),
        (None, Some(t_s)) => {
            let r = inputs.settling_ratio.unwrap_or(DEFAULT_SETTLING_RATIO);
            if regime == Regime::Underdamped && zeta >= 0.7 {
                notes.push(format!(
                    "damping ratio {zeta} is underdamped but not below 0.7: the underdamped settling-time \
                     approximation is inaccurate there"
                ));
            }
            let (w, _) = omega_n_from_settling_time(t_s, r, zeta, inputs.underdamped_formula)?;
            settling = Some((t_s, r));
            let method = match regime {
                Regime::Underdamped => "settling_time_underdamped",
                Regime::CriticallyDamped => "settling_time_critically_damped",
                Regime::Overdamped => "settling_time_overdamped",
            };
            Some((w, method))
        }
        (None, None) => None,
    };

    let (stiffness, stiffness_method) = match (inputs.stiffness, inputs.load, inputs.displacement) {
        (Some(_), Some(_), _) => {
            return Err(BushingError::Design(
                "give either a stiffness or a load and displacement, not both".into(),
            ));
        }
        (Some(k), None, _) => (non_negative("stiffness", k)?, "given"),
        (None, Some(load), Some(x)) => (stiffness_from_static_test(load, x)?, "load/displacement"),
        _ => match (mass, required_omega) {
            (Some(m), Some((w, _))) => (stiffness_from_mass_and_frequency(m, w)?, "m*omega_n^2"),
            _ => {
                return Err(BushingError::Design(
                    "cannot determine the stiffness: give a stiffness, a load and displacement, or a mass \
                     (or inertia) with omega_n or a settling time"
                        .into(),
                ));
            }
        },
    };

    let (omega_n, omega_method) = match (required_omega, mass) {
        (Some((w, method)), _) => (w, method),
        (None, Some(m)) => (positive("stiffness", stiffness)?.sqrt() / m.sqrt(), "sqrt(k/m)"),
        (None, None) => {
            return Err(BushingError::Design(
                "cannot determine the natural frequency: give omega_n, a settling time, or a mass (or inertia)"
                    .into(),
            ));
        }
    };

    let (damping, damping_method) = if required_omega.is_some() {
        (
            damping_from_ratio_and_frequency(zeta, stiffness, omega_n)?,
            "2*zeta*k/omega_n",
        )
    } else {
        let m = mass.ok_or_else(|| BushingError::Design("a mass is needed for the damping".into()))?;
        (
            damping_from_mass_and_stiffness(zeta, m, stiffness)?,
            "2*zeta*sqrt(m*k)",
        )
    };

    // With a mass, a stiffness from a load and a required ωₙ, the system's own ωₙ differs.
    let implied_mass = match mass {
        Some(m) => {
            let own = (stiffness / m).sqrt();
            if stiffness_method != "m*omega_n^2"
                && required_omega.is_some()
                && (own - omega_n).abs() > 1e-9 * omega_n
            {
                notes.push(format!(
                    "with mass {m} and stiffness {stiffness} the natural frequency is {own} rad/s, not the \
                     {omega_n} rad/s the damping was chosen for; the effective damping ratio is {}",
                    damping / (2.0 * (m * stiffness).sqrt())
                ));
            }
            Some(m)
        }
        None if stiffness > 0.0 => Some(stiffness / (omega_n * omega_n)),
        None => None,
    };

    Ok(DesignResult {
        omega_n,
        stiffness,
        damping,
        damping_ratio: zeta,
        settling_time: settling.map(|s| s.0),
        settling_ratio: settling.map(|s| s.1),
        regime,
        mass: implied_mass,
        methods: DesignMethods {
            damping_ratio: zeta_method.into(),
            omega_n: omega_method.into(),
            stiffness: stiffness_method.into(),
            damping: damping_method.into(),
        },
        notes,
    })
}
