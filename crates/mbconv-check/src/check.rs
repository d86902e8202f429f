//! Checking a model against each target format, or against a file converted earlier.

use crate::attribution::{Attribution, Known, attribute, summed_pass_motion};
use crate::compare::{BodyMatch, Difference, Tolerances, com_path};
use crate::motion::{DynamicsKey, LastBits, Motion, MotionMemo, SimulationSettings};
use crate::rounding::{ROUNDING_MARGIN, covering_sensitivity, widened};
use crate::roundtrip::{RoundTrip, Step, StepError, round_trip};
use crate::verdict::{TargetCheck, Trace, Verdict};
use mbconv_ir::Model;
use mbconv_ir::format::{Format, Imported, Options, Registry};
use mbconv_solver::Integrator;
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The sampling interval (and the step of a fixed-step integrator) when the settings give
/// none (s). The model's own time step is a setting of its source simulator, not of the
/// proof: a model stepped at 2.5 s is still compared every millisecond.
pub const DEFAULT_STEP: f64 = 1e-3;
/// The simulated time when the settings give none (s).
pub const DEFAULT_DURATION: f64 = 1.0;
/// The relative and absolute tolerance of the accurate integration the check uses by default
/// (adaptive Dormand–Prince 5(4)).
pub const ACCURATE_TOLERANCE: f64 = 1e-10;
/// The tightest tolerance the check goes to when the estimated integration error at
/// [`ACCURATE_TOLERANCE`] is above a tenth of the position tolerance.
pub const TIGHTEST_TOLERANCE: f64 = 1e-13;
/// How many times the check tightens the tolerance of the accurate integration.
const TIGHTENINGS: usize = 3;
/// The most integrator steps (accepted and rejected) one simulation of the check may take.
/// An explicit adaptive scheme on a stiff model steps no longer than its stability limit
/// allows; past this budget the target fails and says the model is too stiff.
pub const STEP_BUDGET: usize = 2_000_000;
/// The widest position tolerance (m) the check widens to when the original's integration error
/// is large (see [`Original::tolerances`]): a conversion that moves a body by more than a
/// millimetre is never called `exact` for the integrator's sake.
pub const WIDEST_POSITION_TOLERANCE: f64 = 1e-3;

/// How to check: simulation settings, tolerances and the write settings of each format.
///
/// ```
/// let settings = mbconv_check::CheckSettings::default();
/// assert_eq!(settings.duration, 1.0);
/// assert_eq!(settings.tolerances.position, 1e-6);
/// assert!(settings.integrator.is_none(), "accurate adaptive integration by default");
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct CheckSettings {
    /// Simulated time (s).
    pub duration: f64,
    /// Sampling interval, and the step of a fixed-step integrator (s); `None`:
    /// [`DEFAULT_STEP`] (never the model's own time step, a setting of its source simulator).
    pub dt: Option<f64>,
    /// The integrator for all three simulations. `None` (the default): adaptive
    /// Dormand–Prince at [`ACCURATE_TOLERANCE`], tightened until its estimated error is below a
    /// tenth of the position tolerance, so that how a format writes an element (a force
    /// element or a joint spring) does not change the verdict. `Some`: that scheme as it is, for
    /// users who want to see how a particular scheme treats the two models.
    pub integrator: Option<Integrator>,
    /// How far motions may part and still count as the same.
    pub tolerances: Tolerances,
    /// Write settings per format (registry name), as a conversion would pass them.
    pub write_options: BTreeMap<String, Options>,
    /// Write as to a file (true, the default) or as to standard output, as the conversion
    /// being checked does (a writer may say more when it can write companion files).
    pub to_file: bool,
    /// The most work one simulation of the check may do, in body-steps (integrator steps,
    /// accepted and rejected, times the model's size: each body counts one, each constraint
    /// and motor [`CONSTRAINT_WEIGHT`]), measured as it runs; past it the target is `skipped`
    /// (over budget). `None` (the default, `mbconv check`): [`STEP_BUDGET`] steps, past
    /// which the target `failed` and says the model is too stiff.
    pub work_budget: Option<usize>,
}

/// How many bodies a constraint or a motor costs like in a work budget (they cost the solver
/// an assembly and a projection each step).
pub const CONSTRAINT_WEIGHT: usize = 10;

impl Default for CheckSettings {
    fn default() -> Self {
        Self {
            duration: DEFAULT_DURATION,
            dt: None,
            integrator: None,
            tolerances: Tolerances::default(),
            write_options: BTreeMap::new(),
            to_file: true,
            work_budget: None,
        }
    }
}

impl CheckSettings {
    /// The simulation settings: the settings' step or [`DEFAULT_STEP`] (whatever step
    /// `model` was made for), the chosen integrator or the accurate one at
    /// [`ACCURATE_TOLERANCE`], joint limits off, and a step budget: [`STEP_BUDGET`], or the
    /// [`work_budget`](CheckSettings::work_budget) divided by the model's size.
    ///
    /// ```
    /// let mut model = mbconv_ir::Model::new("coarse");
    /// model.simulation.time_step = Some(2.5);
    /// let settings = mbconv_check::CheckSettings::default();
    /// assert_eq!(settings.simulation(&model).dt, mbconv_check::DEFAULT_STEP);
    /// ```
    pub fn simulation(&self, model: &Model) -> SimulationSettings {
        SimulationSettings {
            duration: self.duration,
            dt: self.dt.unwrap_or(DEFAULT_STEP),
            integrator: self.integrator.unwrap_or(accurate(ACCURATE_TOLERANCE)),
            joint_limits: false,
            max_steps: Some(match self.work_budget {
                Some(work) => (work / model_size(model)).max(1),
                None => STEP_BUDGET,
            }),
        }
    }
}

/// The size of `model` in a work budget: each body counts one, each constraint and motor
/// [`CONSTRAINT_WEIGHT`].
fn model_size(model: &Model) -> usize {
    model.bodies.len().max(1) + CONSTRAINT_WEIGHT * (model.constraints.len() + model.motors.len())
}

fn accurate(tolerance: f64) -> Integrator {
    Integrator::Dopri5 {
        rtol: tolerance,
        atol: tolerance,
    }
}

/// The verdicts of one check: the model and one row per target.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CheckReport {
    /// The model checked, as named by the caller (usually its path).
    pub model: String,
    /// One result per target, in the order asked for.
    pub targets: Vec<TargetCheck>,
}

impl Original {
    /// The tolerances the motions are compared with: the settings', widened (both in the same
    /// ratio) to ten times the estimated integration error when the accurate integration could
    /// not bring its error below a tenth of the position tolerance (a chaotic model), so that
    /// integration error does not decide a verdict; never wider than
    /// [`WIDEST_POSITION_TOLERANCE`] (or the tolerance asked for, when that is wider). Every
    /// verdict compared within widened tolerances says so ([`TargetCheck::tolerance_widened`]).
    pub fn tolerances(&self, settings: &CheckSettings) -> Tolerances {
        let asked = settings.tolerances;
        let (floor, cap) = self.widening(settings);
        if floor <= asked.position {
            return asked;
        }
        let position = floor.min(cap);
        let ratio = position / asked.position;
        Tolerances {
            position,
            rotation: asked.rotation * ratio,
        }
    }

    /// True when the widening of [`Original::tolerances`] stopped at
    /// [`WIDEST_POSITION_TOLERANCE`]: the integration error may then be mistaken for a
    /// difference, and the verdict says so.
    pub fn widening_capped(&self, settings: &CheckSettings) -> bool {
        let (floor, cap) = self.widening(settings);
        floor > cap
    }

    /// The position tolerance the integration error asks for (ten times it) and the widest
    /// the widening may go ([`WIDEST_POSITION_TOLERANCE`], or the tolerance asked for when wider).
    fn widening(&self, settings: &CheckSettings) -> (f64, f64) {
        (
            10.0 * self.integration_error.unwrap_or(0.0),
            WIDEST_POSITION_TOLERANCE.max(settings.tolerances.position),
        )
    }
}

impl CheckReport {
    /// True when no target is `unexplained` or `failed`.
    pub fn passed(&self) -> bool {
        !self.targets.iter().any(|t| t.verdict.is_failure())
    }
}

/// Checks `model` against each of `formats`: lower, emit, read back, simulate the original
/// (A), the lowered (L) and the read-back (B) model with the same settings, and compare.
/// When A and L part, the format's lowering passes are replayed one at a time to find which
/// pass moved which body (see [`Explanation`](crate::Explanation)).
///
/// ```
/// use mbconv_check::{CheckSettings, Verdict, check};
/// use mbconv_ir::{Body, BodyRef, Joint, JointKind, Model};
/// use mbconv_ir::format::Registry;
/// let mut registry = Registry::new();
/// registry.register(Box::new(mbconv_ir::mbir::MbirFormat));
/// let mut model = Model::new("pendulum");
/// let mut bob = Body::new("bob");
/// bob.inertial.com = nalgebra::Vector3::new(0.0, 0.0, -1.0);
/// model.bodies.push(bob);
/// model.joints.push(Joint::new("pivot", JointKind::Revolute { axis: nalgebra::Vector3::y() }, BodyRef::World, BodyRef::body("bob")));
/// model.joints[0].q0 = vec![0.3];
/// let settings = CheckSettings { duration: 0.2, ..CheckSettings::default() };
/// let mbir = registry.get("mbir").unwrap();
/// let report = check(&model, "pendulum", &registry, &[mbir], &settings);
/// assert_eq!(report.targets[0].verdict, Verdict::Exact);
/// assert!(report.passed());
/// ```
pub fn check(
    model: &Model,
    name: &str,
    registry: &Registry,
    formats: &[&dyn Format],
    settings: &CheckSettings,
) -> CheckReport {
    let original = simulate_original(model, settings);
    let targets = formats
        .iter()
        .map(|format| check_target(model, &original, registry, *format, settings))
        .collect();
    CheckReport {
        model: name.to_owned(),
        targets,
    }
}

/// The original's simulation, shared by every target: the settings it ran with, its motion,
/// the estimated integration error, and what was not compared.
#[derive(Clone, Debug)]
pub struct Original {
    /// The settings the original was simulated with (and every target is).
    pub simulation: SimulationSettings,
    /// Its motion, or why it could not be simulated.
    pub motion: Result<Motion, StepError>,
    /// The estimated integration error (m): against a more accurate reference run when
    /// integrated accurately, by halving the step when the check fell back to the fixed-step
    /// scheme. The largest of [`integration_error_by_sample`](Original::integration_error_by_sample).
    pub integration_error: Option<f64>,
    /// The estimated integration error (m) at each sample of the original's run, the largest
    /// over its bodies; empty when it is not estimated. A difference that first appears where
    /// this error is already as large is no proof of a conversion fault
    /// ([`integration_can_part`]).
    pub integration_error_by_sample: Vec<f64>,
    /// What the check does not compare (contact).
    pub not_compared: Vec<String>,
    /// Why the accurate (error-controlled) integration of the original failed, when the check
    /// fell back to the fixed-step scheme ([`FALLBACK_INTEGRATOR`]) for every motion it compares.
    pub accurate_failure: Option<String>,
    /// Why the original's motion is not determined by the model, when it could not be
    /// simulated at all and a coordinate feels next to no inertia ([`DEGENERATE_INERTIA`]).
    pub undetermined: Option<String>,
    /// The motions this check simulated, shared by every target (a clone shares it too): a
    /// converted or partly lowered model the solver reads as one simulated before is not
    /// simulated again.
    pub motions: Arc<MotionMemo>,
}

impl Original {
    /// The original simulated again with [`FALLBACK_INTEGRATOR`] at the same sampling, because
    /// the accurate run of a converted model failed with `failure` (chattering stops): every
    /// motion of the target is then compared as MuJoCo and DART step, and its integration
    /// error is not estimated (a note says so).
    fn stepped_fixed(&self, model: &Model, failure: &StepError) -> Original {
        let simulation = SimulationSettings {
            integrator: FALLBACK_INTEGRATOR,
            ..self.simulation.clone()
        };
        let motion = self
            .motions
            .simulate(model, &simulation)
            .map_err(|e| StepError::simulation(Step::SimulateOriginal, &e));
        let mut not_compared = self.not_compared.clone();
        let whose = match failure.step {
            Step::SimulateLowered => "lowered model",
            Step::SimulateReadBack => "read-back model",
            _ => "original",
        };
        not_compared.push(fixed_step_note(whose, &failure.message, simulation.dt));
        let by_sample = motion
            .as_ref()
            .ok()
            .and_then(|run| fixed_step_gap(model, &simulation, run, &self.motions))
            .unwrap_or_default();
        Original {
            simulation,
            motion,
            integration_error: largest(&by_sample),
            integration_error_by_sample: by_sample,
            not_compared,
            accurate_failure: Some(failure.message.clone()),
            undetermined: None,
            motions: Arc::clone(&self.motions),
        }
    }
}

/// The note of a target whose motions are all simulated with [`FALLBACK_INTEGRATOR`] at `dt`
/// because the accurate run of `whose` (the original, the lowered or the read-back model)
/// failed with `failure`.
fn fixed_step_note(whose: &str, failure: &str, dt: f64) -> String {
    format!(
        "integration accuracy: the error-controlled integration of the {whose} failed ({failure}); every motion is simulated with fixed-step semi-implicit Euler at {dt} s, as MuJoCo and DART step, and its integration error is estimated by halving the step"
    )
}

/// The integration error of `run`, the model simulated with the fixed-step
/// [`FALLBACK_INTEGRATOR`] at `simulation.dt`, estimated by halving the step, at each of the
/// run's samples: the scheme is first order, so the run at half the step carries half the
/// error, and the COM distance between the two is half the run's error. `None` when the run
/// at half the step fails. The run at half the step is kept in `motions`: every target whose
/// read-back falls back estimates the same original's error.
fn fixed_step_gap(
    model: &Model,
    simulation: &SimulationSettings,
    run: &Motion,
    motions: &MotionMemo,
) -> Option<Vec<f64>> {
    let halved = SimulationSettings {
        dt: simulation.dt / 2.0,
        ..simulation.clone()
    };
    let reference = motions.simulate(model, &halved).ok()?;
    let by_sample = gap_by_sample(run, &reference)?;
    Some(by_sample.into_iter().map(|gap| 2.0 * gap).collect())
}

/// The largest COM distance between `run` and `reference`, a run of the same model sampled at
/// half the interval, at each sample of `run`; `None` when `reference` ends early.
fn gap_by_sample(run: &Motion, reference: &Motion) -> Option<Vec<f64>> {
    run.com
        .iter()
        .enumerate()
        .map(|(s, sample)| {
            let fine = reference.com.get(2 * s)?;
            Some(
                sample
                    .iter()
                    .zip(fine)
                    .map(|(a, b)| (a - b).norm())
                    .fold(0.0, f64::max),
            )
        })
        .collect()
}

/// The largest of `values`; `None` when there is none.
fn largest(values: &[f64]) -> Option<f64> {
    values.iter().copied().reduce(f64::max)
}

/// The inertia (kg m², or kg for a translation) below which a coordinate's motion counts as
/// undetermined by the model: rounding of the model's own numbers is of that order, and any
/// force gives such a coordinate an acceleration no integrator can follow.
pub const DEGENERATE_INERTIA: f64 = 1e-12;

/// Simulates the original with `settings`. With the accurate integration (the default) the
/// original's integration error is estimated against a far more accurate reference run (see
/// [`reference_gap`]). When that estimate is above a tenth of the position tolerance, the
/// tolerance is tightened in proportion (down to [`TIGHTEST_TOLERANCE`]) and the original
/// simulated again, at most [`TIGHTENINGS`] times; every target is simulated with the tolerance
/// chosen here.
pub fn simulate_original(model: &Model, settings: &CheckSettings) -> Original {
    let mut simulation = settings.simulation(model);
    // Stops located as events change nothing until one is reached: a model with limits is
    // simulated with them from the start, once.
    simulation.joint_limits = has_position_limits(model);
    let mut motion = Motion::simulate(model, &simulation);
    let mut accurate_failure = None;
    if settings.integrator.is_none()
        && let Err(error) = &motion
        && !matches!(error, mbconv_solver::SolverError::StepBudget { .. })
    {
        // The error-controlled run broke down (a joint whose inertia about its axis is next
        // to nothing, stops that chatter): the motions are compared as MuJoCo and DART step
        // them, with a fixed step, rather than not at all.
        let fixed = SimulationSettings {
            integrator: FALLBACK_INTEGRATOR,
            ..simulation.clone()
        };
        if let Ok(fixed_motion) = Motion::simulate(model, &fixed) {
            accurate_failure = Some(error.to_string());
            simulation = fixed;
            motion = Ok(fixed_motion);
        }
    }
    let motions = Arc::new(MotionMemo::default());
    let mut by_sample = Vec::new();
    if accurate_failure.is_some()
        && let Ok(run) = &motion
    {
        by_sample = fixed_step_gap(model, &simulation, run, &motions).unwrap_or_default();
    }
    if settings.integrator.is_none() && accurate_failure.is_none() && motion.is_ok() {
        let target = settings.tolerances.position / 10.0;
        let mut tolerance = ACCURATE_TOLERANCE;
        for attempt in 0..=TIGHTENINGS {
            let Ok(run) = &motion else { break };
            let Some(gaps) = reference_gap(model, &simulation, tolerance, run) else {
                break;
            };
            let error = largest(&gaps).unwrap_or(0.0);
            by_sample = gaps;
            if error <= target || tolerance <= TIGHTEST_TOLERANCE || attempt == TIGHTENINGS {
                break;
            }
            // Tighten in proportion to the excess, with a margin of two.
            tolerance = (tolerance * 0.5 * target / error).max(TIGHTEST_TOLERANCE);
            let tight = SimulationSettings {
                integrator: accurate(tolerance),
                max_steps: Some(within_budget(simulation.max_steps, run.steps)),
                ..simulation.clone()
            };
            match Motion::simulate(model, &tight) {
                Ok(tight_motion) => {
                    simulation = tight;
                    motion = Ok(tight_motion);
                }
                Err(_) => break,
            }
        }
    }
    let mut not_compared = motion
        .as_ref()
        .map(|m| crate::contact::contact_notes(model, m))
        .unwrap_or_default();
    if let Some(failure) = &accurate_failure {
        not_compared.push(fixed_step_note("original", failure, simulation.dt));
    }
    let undetermined = motion.as_ref().err().and_then(|e| undetermined_motion(model, e));
    if let Ok(motion) = &motion {
        motions.remember(model, &simulation, motion);
    }
    Original {
        simulation,
        motion: motion.map_err(|e| StepError::simulation(Step::SimulateOriginal, &e)),
        integration_error: largest(&by_sample),
        integration_error_by_sample: by_sample,
        not_compared,
        accurate_failure,
        undetermined,
        motions,
    }
}

/// Why `model`'s motion is not determined, when its simulation failed with `error` and a
/// coordinate feels less than [`DEGENERATE_INERTIA`] at the initial state.
fn undetermined_motion(model: &Model, error: &mbconv_solver::SolverError) -> Option<String> {
    if let Some(reason) = indefinite_inertia(model, error) {
        return Some(reason);
    }
    let solver_model = mbconv_solver::Model::new(model).ok()?;
    let state = mbconv_solver::State::initial(&solver_model);
    let (joint, inertia) = mbconv_solver::least_coordinate_inertia(&solver_model, &state).ok()??;
    let sliding = model
        .joints
        .iter()
        .any(|j| j.name == joint && matches!(j.kind, mbconv_ir::JointKind::Prismatic { .. }));
    let (unit, along) = if sliding {
        ("kg", "along")
    } else {
        ("kg m²", "about")
    };
    (inertia < DEGENERATE_INERTIA).then(|| {
        format!(
            "the original's motion is not determined by the model: joint {joint:?} feels an inertia of {inertia:.1e} {unit} at the initial pose (a body with mass but next to no inertia {along} its axis), so any force accelerates it beyond what an integrator can follow (simulating it failed: {error})"
        )
    })
}

/// Why `model`'s motion is not determined, when its simulation failed with `error` and a body
/// has an inertia with a negative principal moment (which no rigid body has: the validation's
/// `inertia.not_psd`): the equations of motion then need not have a solution, and the
/// conversion's motion would prove nothing either way.
fn indefinite_inertia(model: &Model, error: &mbconv_solver::SolverError) -> Option<String> {
    // A principal moment below zero by no more than the round-off of the body and the model
    // (the validation's tolerance: iCub's `r_hip_2`, -5.4e-20 kg m² on a robot of 1e-1) is a
    // zero, not an indefinite inertia.
    let scale = mbconv_ir::validate::model_inertia_scale(model);
    let (body, least) = model
        .bodies
        .iter()
        .filter_map(|b| {
            let moments = mbconv_ir::validate::principal_moments(&b.inertial.inertia.matrix())?;
            let rounding = mbconv_ir::validate::inertial_tolerance(&b.inertial, scale);
            (moments[0] < -rounding).then_some((b, moments[0]))
        })
        .min_by(|a, b| a.1.total_cmp(&b.1))?;
    Some(format!(
        "the original's motion is not determined by the model: body {:?} has an inertia with a negative principal moment ({} kg m²), which no rigid body has, so its equations of motion need not have a solution (simulating it failed: {error})",
        body.name,
        mbconv_ir::report::number(least)
    ))
}

/// The scheme every motion of a check is simulated with when the error-controlled integration
/// of the original fails: semi-implicit Euler at the sampling step, as MuJoCo and DART step.
pub const FALLBACK_INTEGRATOR: Integrator = Integrator::SemiImplicitEuler;

/// How much more work than the run it refines a reference or tightened run may take
/// ([`REFINEMENT_WORK`] times its steps), within the budget the run had: a fifth-order
/// scheme at a hundredth of the tolerance and half the sampling interval takes about five
/// times the steps, and a model whose error control cannot reach the tighter tolerance (a
/// loop's projection at its rounding floor) would otherwise grind until the step size
/// underflows, minutes for an estimate the check then does without.
fn within_budget(budget: Option<usize>, run_steps: usize) -> usize {
    let refined = REFINEMENT_WORK.saturating_mul(run_steps.max(1_000));
    budget.map_or(refined, |b| b.min(refined))
}

/// See [`within_budget`].
const REFINEMENT_WORK: usize = 8;

/// True when a moving joint of `model` has a position limit.
fn has_position_limits(model: &Model) -> bool {
    model
        .joints
        .iter()
        .flat_map(|j| &j.dofs)
        .any(|d| !d.position_limits.is_unlimited())
}

/// The integration error of `run` (the model simulated with `simulation` at `tolerance`),
/// estimated against a reference run that is far more accurate in either regime of the
/// adaptive integrator: sampled at half the interval (its steps are clipped at the samples, so
/// a run whose steps the sampling limits takes half steps, 32 times more accurate at fifth
/// order) at a hundredth of the tolerance (100 times more accurate where the error control
/// limits the steps). The largest COM distance between the two at each of the run's samples
/// is then the run's error there to within a few percent. `None` when the reference run fails.
fn reference_gap(
    model: &Model,
    simulation: &SimulationSettings,
    tolerance: f64,
    run: &Motion,
) -> Option<Vec<f64>> {
    let reference_settings = SimulationSettings {
        dt: simulation.dt / 2.0,
        integrator: accurate(tolerance / 100.0),
        max_steps: Some(within_budget(simulation.max_steps, run.steps)),
        ..simulation.clone()
    };
    let reference = Motion::simulate(model, &reference_settings).ok()?;
    gap_by_sample(run, &reference)
}

/// Checks one target, given the original's simulation (made once for all targets).
pub fn check_target(
    model: &Model,
    original: &Original,
    registry: &Registry,
    format: &dyn Format,
    settings: &CheckSettings,
) -> TargetCheck {
    let name = format.info().name;
    let attempt = try_target(model, original, &original.simulation, registry, format, settings);
    // The converted model's stops chattered where the original's did not: all three motions
    // are compared with the fixed-step scheme, as when the original's accurate run fails.
    let fallback = match &attempt {
        Err(e) if converted_stops_chatter(e, original, settings) => Some(original.stepped_fixed(model, e)),
        _ => None,
    };
    let (attempt, original) = match &fallback {
        Some(fixed) => (
            try_target(model, fixed, &fixed.simulation, registry, format, settings),
            fixed,
        ),
        None => (attempt, original),
    };
    let mut target = match attempt {
        Ok(target) => target,
        Err(e) if e.out_of_steps && settings.work_budget.is_some() => TargetCheck::unproven(
            name,
            Verdict::Skipped,
            format!(
                "over budget: a simulation ({}) needed more than the {} body-steps an automatic check may take; pass --check to run it fully",
                e.step.describe(),
                settings.work_budget.unwrap_or_default()
            ),
        ),
        Err(e) => {
            let mut failed = TargetCheck::failed_at(name, &e);
            if e.out_of_steps {
                failed.message.push_str(&format!(
                    " (with the accurate explicit integrator the model needed more than {STEP_BUDGET} steps: pass --integrator to check it with a fixed-step scheme)"
                ));
            }
            failed
        }
    };
    target.integration_error = original.integration_error;
    // The original's notes first, then what only the conversion's simulator checks.
    let converted = std::mem::replace(&mut target.not_compared, original.not_compared.clone());
    target.not_compared.extend(converted);
    if target.verdict.is_proof() {
        let laws = differing_laws(model, format, &target.joint_limits_reached);
        target.not_compared.extend(laws);
    }
    state_tolerances(&mut target, original, settings);
    target
}

/// True when `error` is the lowered or read-back model's accurate run ending in chattering
/// stops while the original's accurate run went through: the one failure of the event scheme
/// that the fixed-step scheme, which clamps stops after each step, does not share.
fn converted_stops_chatter(error: &StepError, original: &Original, settings: &CheckSettings) -> bool {
    error.stops_chatter
        && matches!(error.step, Step::SimulateLowered | Step::SimulateReadBack)
        && settings.integrator.is_none()
        && original.accurate_failure.is_none()
}

/// The laws by which the target's simulator solves a feature the model uses differently from
/// mbconv's solver ([`Format::simulator_laws`]), as the verdict's `not compared` lines name them
/// (`<feature>: <law>`): the check simulates both sides with mbconv's law, so the motion in
/// that simulator is not proven there. A law that says where it applies
/// ([`SimulatorLaw::applies`](mbconv_ir::format::support::SimulatorLaw::applies)) decides for
/// itself; otherwise joint limits count when a limit was reached (`limits_reached`, the joints
/// whose limit the check's run reached), closed loops when the model has any, joint friction
/// when a moving joint has it, any other feature always.
///
/// ```
/// use mbconv_check::differing_laws;
/// use mbconv_ir::mbir::MbirFormat;
/// // mbconv's own format is moved by mbconv's solver: no law differs.
/// let pendulum = mbconv_ir::Model::new("pendulum");
/// assert!(differing_laws(&pendulum, &MbirFormat, &["hinge".to_owned()]).is_empty());
/// ```
pub fn differing_laws(model: &Model, format: &dyn Format, limits_reached: &[String]) -> Vec<String> {
    use mbconv_ir::format::support::Feature;
    format
        .simulator_laws()
        .iter()
        .filter(|law| match (law.applies, law.feature) {
            (Some(applies), _) => applies(model),
            (None, Feature::JointFriction) => model.joints.iter().any(|j| {
                !matches!(j.kind, mbconv_ir::JointKind::Fixed) && j.dofs.iter().any(|d| d.friction != 0.0)
            }),
            (None, Feature::JointLimits) => !limits_reached.is_empty(),
            (None, Feature::KinematicLoops) => mbconv_ir::ModelSummary::new(model).loop_count > 0,
            (None, _) => true,
        })
        .map(|law| format!("{}: {}", law.feature.title(), law.law))
        .collect()
}

/// Records within what `target`'s motions were compared (the tolerances its verdict was
/// decided with, which the rounding of its writer may have widened, or the original's), and
/// says in its message when the original's integration error widened them (and whether that
/// widening was capped); a widening by rounding says itself where it was decided.
fn state_tolerances(target: &mut TargetCheck, original: &Original, settings: &CheckSettings) {
    if target.verdict.is_proof() || target.verdict == Verdict::Unexplained {
        let integration = original.tolerances(settings);
        let compared = target.compared_within.unwrap_or(integration);
        target.compared_within = Some(compared);
        target.tolerance_widened = compared != settings.tolerances;
        if integration != settings.tolerances {
            let capped = if original.widening_capped(settings) {
                format!(
                    "; widened no further than {WIDEST_POSITION_TOLERANCE:.0e} m, so integration error may show as a difference"
                )
            } else {
                String::new()
            };
            let scheme = if original.accurate_failure.is_some() {
                "fixed-step"
            } else {
                "accurate"
            };
            target.message.push_str(&format!(
                " (compared within {:.1e} m and {:.1e} rad: the {scheme} integration's error is estimated at {:.1e} m, above a tenth of the tolerance, as at joint stops or in a chaotic model{capped})",
                integration.position,
                integration.rotation,
                original.integration_error.unwrap_or(0.0)
            ));
        }
    }
}

/// Why a model gives the check nothing to compare, if it does: no body has mass, so no
/// centre of mass moves and a conversion that changes everything would still look exact.
fn nothing_to_compare(model: &Model) -> Option<String> {
    let massive = model.bodies.iter().any(|b| b.inertial.mass > 0.0);
    (!massive).then(|| {
        "no body has mass: no centre of mass moves, so the motions prove nothing about the conversion"
            .to_owned()
    })
}

fn try_target(
    model: &Model,
    original: &Original,
    simulation: &SimulationSettings,
    registry: &Registry,
    format: &dyn Format,
    settings: &CheckSettings,
) -> Result<TargetCheck, StepError> {
    let name = format.info().name;
    let default_options = Options::default();
    let write_options = settings.write_options.get(name).unwrap_or(&default_options);
    let round = match round_trip(registry, format, model, write_options, settings.to_file) {
        Ok(round) => round,
        // A model without a single body writes a file with nothing in it, which a format whose
        // reader requires a body (USD: a stage without a rigid body) refuses to read back.
        // Nothing moves either way.
        Err(error) if model.bodies.is_empty() && error.step == Step::ReadBack => {
            return Ok(TargetCheck::unproven(
                name,
                Verdict::NotCompared,
                format!(
                    "the model has no body, so nothing moves (and {} failed: {})",
                    error.step.describe(),
                    error.message
                ),
            ));
        }
        Err(error) => return Err(error),
    };
    if let Some(reason) = nothing_to_compare(model).or_else(|| original.undetermined.clone()) {
        return Ok(TargetCheck::unproven(name, Verdict::NotCompared, reason));
    }
    // A model the solver reads as the one before it moves as that one: no simulation.
    let original_key = DynamicsKey::of(model);
    let lowered_key = DynamicsKey::of(&round.lowered.model);
    let read_back_key = DynamicsKey::of(&round.read_back.model);
    let a = original.motion.as_ref().map_err(Clone::clone)?;
    // L and B move in the converted world; a turn the conversion made (`up`) is undone before
    // they are compared with A.
    let l = if lowered_key == original_key {
        a.reused_for(&round.lowered.model)
    } else {
        (original.motions)
            .simulate(&round.lowered.model, simulation)
            .map_err(|e| StepError::simulation(Step::SimulateLowered, &e))?
    };
    let b = if read_back_key == lowered_key {
        l.reused_for(&round.read_back.model)
    } else {
        (original.motions)
            .simulate(&round.read_back.model, simulation)
            .map_err(|e| StepError::simulation(Step::SimulateReadBack, &e))?
    };
    let (l, b) = (&l, &b);
    let converted_reached = !(l.limits_reached.is_empty() && b.limits_reached.is_empty());
    if !simulation.joint_limits && converted_reached {
        // A limit the original never reached is reached after the conversion: compare with
        // the limits enforced everywhere.
        let with_limits = SimulationSettings {
            joint_limits: true,
            ..simulation.clone()
        };
        let original = Original {
            motion: (original.motions)
                .simulate(model, &with_limits)
                .map_err(|e| StepError::simulation(Step::SimulateOriginal, &e)),
            motions: Arc::clone(&original.motions),
            simulation: with_limits.clone(),
            integration_error: original.integration_error,
            integration_error_by_sample: original.integration_error_by_sample.clone(),
            not_compared: original.not_compared.clone(),
            accurate_failure: original.accurate_failure.clone(),
            undetermined: original.undetermined.clone(),
        };
        return try_target(model, &original, &with_limits, registry, format, settings);
    }
    let limits = reached_limits(&[a, l, b]);
    let tolerances = original.tolerances(settings);
    let b_in_original = round.lowered.turned_by.map(|turn| b.turned(&turn.inverse()));
    let seen = Seen {
        original: a,
        lowered: l,
        read_back: b,
        read_back_in_original: b_in_original.as_ref().unwrap_or(b),
        motions: &original.motions,
        integration_error_by_sample: &original.integration_error_by_sample,
    };
    decide(model, registry, format, &round, &seen, simulation, &tolerances).map(|mut target| {
        target.joint_limits_reached = limits;
        // The conversion's simulator checks contact between jointed bodies, the original's
        // does not: the pairs that still touch are not compared.
        if round.read_back.model.simulation.jointed_bodies_collide && !model.simulation.jointed_bodies_collide
        {
            target.not_compared = crate::contact::jointed_contact_notes(&round.read_back.model, b);
        }
        target
    })
}

/// The joints whose limits any of `motions` reached, each once.
fn reached_limits(motions: &[&Motion]) -> Vec<String> {
    let mut joints: Vec<String> = Vec::new();
    for reached in motions.iter().flat_map(|m| &m.limits_reached) {
        if !joints.contains(&reached.joint) {
            joints.push(reached.joint.clone());
        }
    }
    joints
}

/// The three motions a target's verdict compares: the original (A), the lowered (L) and the
/// read-back (B) model's, and B turned back into A's world (B itself when the conversion
/// turned nothing).
struct Seen<'m> {
    original: &'m Motion,
    lowered: &'m Motion,
    read_back: &'m Motion,
    read_back_in_original: &'m Motion,
    motions: &'m MotionMemo,
    /// The original's estimated integration error at each sample (empty when not estimated).
    integration_error_by_sample: &'m [f64],
}

fn decide(
    model: &Model,
    registry: &Registry,
    format: &dyn Format,
    round: &RoundTrip,
    seen: &Seen,
    simulation: &SimulationSettings,
    tolerances: &Tolerances,
) -> Result<TargetCheck, StepError> {
    let name = format.info().name;
    // L and B are compared in the converted world, A and B in the original's.
    let (a, l, b, b_in_a) = (
        seen.original,
        seen.lowered,
        seen.read_back,
        seen.read_back_in_original,
    );
    let (lower_report, emit_report, read_report) = (
        &round.lowered.report,
        &round.exported.report,
        &round.read_back.report,
    );
    let a_to_b = BodyMatch::new(&a.bodies, &b.bodies, &[lower_report, emit_report, read_report]);
    let l_to_b = BodyMatch::new(&l.bodies, &b.bodies, &[emit_report, read_report]);
    let ab = Difference::between(a, b_in_a, &a_to_b);
    let lb = Difference::between(l, b, &l_to_b);
    // A target that compares nothing, saying why (`message`), with the trace of the gap.
    let not_compared = |message: String| {
        let mut target = TargetCheck::decided(
            name,
            Verdict::NotCompared,
            &ab,
            &[lower_report, emit_report],
            message,
        );
        target.trace = trace(a, b_in_a, &a_to_b, &ab);
        target
    };
    let mut explained_by = Vec::new();
    // The writer's numbers read back to the last bit at best: a model that amplifies rounding
    // is compared with L within what rounding alone does to it.
    let lb_within = lb.within(tolerances);
    // A read-back that is the lowered model to the last bits moves as it does but for what
    // those bits do to this model (a stop one ulp from engaging, chaos): the gap is the
    // model's own sensitivity, measured on the very change the writer made, at no cost.
    let lb_last_bits = (!lb_within)
        .then(|| {
            DynamicsKey::of(&round.lowered.model).last_bits_from(&DynamicsKey::of(&round.read_back.model))
        })
        .flatten()
        .filter(|apart| apart.ulps <= LAST_BITS_ULPS);
    // Otherwise a model that amplifies rounding is compared with L within what nudges of
    // its last bits do to it (one more simulation per nudge pattern tried).
    let lb_rounding = (!lb_within && lb_last_bits.is_none())
        .then(|| covering_sensitivity(&round.lowered.model, simulation, l, &lb, tolerances))
        .flatten();
    // How far rounding alone moves the lowered model: the writer's own last bits, measured,
    // or the nudges' spread.
    let rounding_reach = match (&lb_last_bits, &lb_rounding) {
        (Some(_), _) => Some(gap_of(&lb)),
        (None, Some(sensitivity)) => Some(*sensitivity),
        (None, None) => None,
    };
    let resolution = rounding_reach.map_or(*tolerances, |reach| rounding_resolution(tolerances, &reach));
    let tolerances = &resolution;
    // The writer's own last bits part the motions by more than a tenth of what the check
    // compares within; or the nudges' spread covers the read-back's gap only beyond the widest
    // tolerances the check may compare within.
    let hanging = match (&lb_last_bits, &rounding_reach) {
        (Some(_), Some(reach)) => hangs_on_rounding(reach, tolerances) && !ab.within(tolerances),
        (None, Some(_)) => !lb.within(tolerances),
        _ => false,
    };
    if let Some(reach) = rounding_reach
        && hanging
    {
        // Rounding alone moves this model further than the check calls exact (a centre of
        // mass, or a short body's rotation): its motion cannot prove the conversion either way.
        let how = match lb_last_bits {
            Some(apart) => format!("{} ({})", last_bits_text(apart, &lb), last_bits_cause(l, b)),
            None => format!(
                "the read-back model parts from the lowered one by {:.3e} m and {:.3e} rad, and a change in the last bits of the lowered model's numbers moves it by {:.3e} m and {:.3e} rad ({})",
                lb.max_com_error,
                lb.max_rotation_error,
                reach.position,
                reach.rotation,
                last_bits_cause(l, b)
            ),
        };
        let message = format!(
            "{}: not compared, as this model's motion hangs on its last bits: {how}, more than a tenth of the widest tolerances the check may compare within ({:.1e} m and {:.1e} rad); a shorter --duration may compare it",
            describe(&ab),
            tolerances.position,
            tolerances.rotation
        );
        return Ok(not_compared(message));
    }
    let (verdict, mut message) = if !lb_within && lb_rounding.is_none() && lb_last_bits.is_none() {
        // Emit never excuses: the emitted file must say exactly the lowered model.
        let emit_losses = loss_codes(emit_report);
        let said = if emit_losses.is_empty() {
            String::new()
        } else {
            format!(
                "; emit reported {} (emit may lose nothing: such a change belongs in a lowering pass)",
                emit_losses.join(", ")
            )
        };
        (
            Verdict::Unexplained,
            format!(
                "the read-back model moves unlike the lowered one ({}): a writer or reader bug{said}",
                describe(&lb)
            ),
        )
    } else if ab.within(tolerances) {
        (Verdict::Exact, "moves like the original".to_owned())
    } else {
        let known = Known {
            original: a,
            lowered: (DynamicsKey::of(&round.lowered.model), l),
            motions: seen.motions,
        };
        match attribute(
            registry,
            format,
            model,
            &round.options,
            &known,
            simulation,
            tolerances,
        )? {
            Attribution::Guilty {
                pass,
                difference,
                moved,
                others,
            } => {
                explained_by = others;
                (
                    Verdict::Unexplained,
                    format!(
                        "{}; lowering pass {pass:?} changed the motion ({}; bodies moved: {}) without reporting a loss that can move them",
                        describe(&ab),
                        describe(&difference),
                        short_list(&moved)
                    ),
                )
            }
            Attribution::Accumulated => (
                Verdict::Unexplained,
                format!(
                    "{}; no single lowering pass changed the motion beyond the tolerances, yet together they did",
                    describe(&ab)
                ),
            ),
            Attribution::Explained(explanations) => {
                let summed = summed_pass_motion(&explanations);
                let gap = ab.max_com_error;
                let hanging = explanations.iter().find_map(|e| {
                    e.rounding_sensitivity
                        .filter(|s| e.max_com_error > rounding_resolution(tolerances, s).position)
                        .map(|s| (e, s))
                });
                if let Some((excused, reach)) = hanging {
                    // A pass excused only because rounding alone moves the model before it as
                    // far, by more than the widest tolerances the check may compare within:
                    // no motion of this model proves that pass either way.
                    (
                        Verdict::NotCompared,
                        format!(
                            "{}: not compared, as this model's motion hangs on its last bits: lowering pass {:?} moved it by {:.3e} m, beyond the widest tolerance the check may compare within ({:.1e} m), and reports no loss that can; only rounding covers that, as a change in the last bits of the numbers of the model before that pass moves it by {:.3e} m and {:.3e} rad ({}); a shorter --duration may compare it",
                            describe(&ab),
                            excused.pass,
                            excused.max_com_error,
                            WIDEST_POSITION_TOLERANCE.max(tolerances.position),
                            reach.position,
                            reach.rotation,
                            last_bits_cause(a, l)
                        ),
                    )
                } else if gap > tolerances.position && summed < 0.5 * gap {
                    explained_by = explanations;
                    (
                        Verdict::Unexplained,
                        format!(
                            "{}; the lowering passes that report losses moved bodies by {summed:.3e} m on their own, less than half the gap",
                            describe(&ab)
                        ),
                    )
                } else {
                    let text = explanations
                        .iter()
                        .map(|e| match e.rounding_sensitivity {
                            Some(sensitivity) => format!(
                                "{} (rounding: {:.3e} m, and a change in the last bits of the model's own numbers moves it by {:.3e} m and {:.3e} rad)",
                                e.pass, e.max_com_error, sensitivity.position, sensitivity.rotation
                            ),
                            None => format!(
                                "{} ({} at {}, {:.3e} m)",
                                e.pass,
                                e.code,
                                display_path(&e.path),
                                e.max_com_error
                            ),
                        })
                        .collect::<Vec<_>>()
                        .join("; ");
                    explained_by = explanations;
                    (
                        Verdict::Explained,
                        format!("{}; explained by lowering passes: {text}", describe(&ab)),
                    )
                }
            }
        }
    };
    // A fault found where A and B part is earned only if the original's own integration error
    // could not part them there (the read-back's gap from the lowered model is the writer's
    // and reader's, both stepped alike, and stays decided).
    let blamed_on_lowering =
        verdict == Verdict::Unexplained && (lb_within || lb_rounding.is_some() || lb_last_bits.is_some());
    if blamed_on_lowering
        && let Some(parting) =
            integration_can_part(a, b_in_a, &a_to_b, tolerances, seen.integration_error_by_sample)
    {
        let message = format!(
            "{}: not compared, as integration error can part these motions: {parting}; without that the check would say: {message}; a shorter --duration may compare it",
            describe(&ab)
        );
        let mut target = not_compared(message);
        target.compared_within = Some(*tolerances);
        return Ok(target);
    }
    if let Some(apart) = lb_last_bits {
        message.push_str(&format!(
            " (compared within {:.1e} m and {:.1e} rad: {}, {})",
            tolerances.position,
            tolerances.rotation,
            last_bits_text(apart, &lb),
            last_bits_cause(l, b)
        ));
    }
    if let Some(sensitivity) = lb_rounding {
        message.push_str(&format!(
            " (compared within {:.1e} m and {:.1e} rad: the read-back model parts from the lowered one by {:.3e} m and {:.3e} rad, no more than rounding: a change in the last bits of the lowered model's numbers moves it by {:.3e} m and {:.3e} rad)",
            tolerances.position,
            tolerances.rotation,
            lb.max_com_error,
            lb.max_rotation_error,
            sensitivity.position,
            sensitivity.rotation
        ));
    }
    let mut target = TargetCheck::decided(name, verdict, &ab, &[lower_report, emit_report], message);
    target.compared_within = Some(*tolerances);
    target.explained_by = explained_by;
    target.trace = trace(a, b_in_a, &a_to_b, &ab);
    Ok(target)
}

/// How many times the original's estimated integration error a difference must exceed, at
/// the instant the motions first part, to be a conversion's and not the integrator's: the
/// same margin as the widening of [`Original::tolerances`].
pub const INTEGRATION_MARGIN: f64 = 10.0;

/// Where the original's own integration error can part `a` and `b` (bodies matched by
/// `matching`) as far as they part, if it can: at the first sample where they part beyond
/// `tolerances`, the largest integration error estimated up to that sample (`error_by_sample`,
/// the original's) is more than a tenth ([`INTEGRATION_MARGIN`]) of the position tolerance.
/// Where the widening of the tolerances reached the integration error this never holds; where
/// it was capped ([`WIDEST_POSITION_TOLERANCE`]), a difference that first shows while the error
/// is still small is the conversion's, and one that first shows later proves nothing. `None`
/// also when the error was not estimated, or a body is missing (no integrator loses a body).
///
/// ```
/// use mbconv_check::{BodyMatch, Motion, SimulationSettings, Tolerances, integration_can_part};
/// let mut model = mbconv_ir::Model::new("drop");
/// model.bodies.push(mbconv_ir::Body::new("ball"));
/// let settings = SimulationSettings::new(0.01, 1e-3, mbconv_solver::Integrator::Rk4);
/// let a = Motion::simulate(&model, &settings).unwrap();
/// model.bodies[0].pose.translation.x = 2e-3;
/// let b = Motion::simulate(&model, &settings).unwrap();
/// let matching = BodyMatch::new(&a.bodies, &b.bodies, &[]);
/// let within = Tolerances { position: 1e-3, rotation: 1e-3 };
/// // Parted from t = 0, while the integration error was next to nothing: the conversion's.
/// let small = vec![1e-9; a.times.len()];
/// assert!(integration_can_part(&a, &b, &matching, &within, &small).is_none());
/// // An integration error of a centimetre from the start can part them as far.
/// let large = vec![1e-2; a.times.len()];
/// assert!(integration_can_part(&a, &b, &matching, &within, &large).is_some());
/// ```
pub fn integration_can_part(
    a: &Motion,
    b: &Motion,
    matching: &BodyMatch,
    tolerances: &Tolerances,
    error_by_sample: &[f64],
) -> Option<String> {
    if error_by_sample.is_empty() || matching.pairs.iter().any(|(_, j)| j.is_none()) {
        return None;
    }
    let (position, rotation) = crate::compare::body_errors(a, b, matching);
    let first = position.iter().zip(&rotation).position(|(p, r)| {
        p.iter().any(|e| *e > tolerances.position) || r.iter().any(|e| *e > tolerances.rotation)
    })?;
    let error = error_by_sample
        .iter()
        .take(first + 1)
        .copied()
        .fold(0.0, f64::max);
    (INTEGRATION_MARGIN * error > tolerances.position).then(|| {
        format!(
            "they first part beyond {:.1e} m or {:.1e} rad at t = {} s, where the original's integration error is already estimated at {:.1e} m, more than a tenth of that",
            tolerances.position,
            tolerances.rotation,
            mbconv_ir::report::number(a.times[first]),
            error
        )
    })
}

/// The tolerances of a target whose lowered model rounding alone moves by `reach` (the
/// read-back's own last bits, or the nudges' spread): [`ROUNDING_MARGIN`] times that reach,
/// position no wider than [`WIDEST_POSITION_TOLERANCE`] (or the tolerance asked for, when
/// wider) and rotation in the same proportion.
fn rounding_resolution(tolerances: &Tolerances, reach: &Tolerances) -> Tolerances {
    let wide = widened(tolerances, reach);
    let cap = WIDEST_POSITION_TOLERANCE.max(tolerances.position);
    Tolerances {
        position: wide.position.min(cap),
        rotation: wide.rotation.min(tolerances.rotation * cap / tolerances.position),
    }
}

/// True when rounding's `reach` is more than a tenth ([`ROUNDING_MARGIN`]) of the
/// `tolerances` the check compares within: the model's motion then hangs on its last bits.
fn hangs_on_rounding(reach: &Tolerances, tolerances: &Tolerances) -> bool {
    ROUNDING_MARGIN * reach.position > tolerances.position
        || ROUNDING_MARGIN * reach.rotation > tolerances.rotation
}

/// The largest gap of `difference`, as tolerances.
fn gap_of(difference: &Difference) -> Tolerances {
    Tolerances {
        position: difference.max_com_error,
        rotation: difference.max_rotation_error,
    }
}

/// The most units in the last place a read-back's number may part from the lowered model's
/// for the two to count as one model rounded (a writer composing frames rounds each product
/// once or twice; a wrong number is millions of units away).
const LAST_BITS_ULPS: u64 = 16;

/// What a read-back that is the lowered model but for its last bits differs in, and how far
/// those bits alone part the two motions (`lb`).
fn last_bits_text(apart: LastBits, lb: &Difference) -> String {
    format!(
        "the read-back model is the lowered one but for the last bits of {} ({} apart at most), and those bits alone part their motions by {:.3e} m and {:.3e} rad",
        plural(apart.numbers, "number"),
        plural(
            usize::try_from(apart.ulps).unwrap_or(usize::MAX),
            "unit in the last place"
        ),
        lb.max_com_error,
        lb.max_rotation_error
    )
}

/// Why rounding moves a model: its joint stops when any was reached, else chaos.
fn last_bits_cause(lowered: &Motion, read_back: &Motion) -> &'static str {
    if lowered.limits_reached.is_empty() && read_back.limits_reached.is_empty() {
        "as in a chaotic model"
    } else {
        "as joint stops engage at instants a rounding can shift"
    }
}

/// `count` and `what`, with an `s` on `what`'s first word unless `count` is 1.
fn plural(count: usize, what: &str) -> String {
    if count == 1 {
        return format!("1 {what}");
    }
    match what.split_once(' ') {
        Some((first, rest)) => format!("{count} {first}s {rest}"),
        None => format!("{count} {what}s"),
    }
}

fn display_path(path: &str) -> &str {
    if path.is_empty() { "the model" } else { path }
}

fn short_list(names: &[String]) -> String {
    const SHOWN: usize = 5;
    let mut text = names
        .iter()
        .take(SHOWN)
        .map(|n| format!("{n:?}"))
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > SHOWN {
        text.push_str(&format!(" and {} more", names.len() - SHOWN));
    }
    text
}

/// Compares `model` with a model converted earlier or by another tool (`other`, read with
/// the format called `format`): `exact` when they move alike within tolerance, else
/// `unexplained`. Bodies are matched by name, through the renames `other`'s reader made.
pub fn check_against(
    model: &Model,
    name: &str,
    other: &Imported,
    format: &str,
    settings: &CheckSettings,
) -> CheckReport {
    let original = simulate_original(model, settings);
    let simulation = original.simulation.clone();
    let mut target = (|| -> Result<TargetCheck, StepError> {
        let a = original.motion.as_ref().map_err(Clone::clone)?;
        let b = Motion::simulate(&other.model, &simulation)
            .map_err(|e| StepError::new(Step::SimulateReadBack, e))?;
        let matching = BodyMatch::new(&a.bodies, &b.bodies, &[&other.report]);
        let difference = Difference::between(a, &b, &matching);
        let (verdict, message) = if difference.within(&original.tolerances(settings)) {
            (Verdict::Exact, "moves like the original".to_owned())
        } else {
            (
                Verdict::Unexplained,
                format!("moves unlike the original: {}", describe(&difference)),
            )
        };
        let mut target = TargetCheck::decided(format, verdict, &difference, &[], message);
        target.trace = trace(a, &b, &matching, &difference);
        Ok(target)
    })()
    .unwrap_or_else(|e| TargetCheck::failed_at(format, &e));
    target.integration_error = original.integration_error;
    state_tolerances(&mut target, &original, settings);
    target.not_compared = original.not_compared;
    CheckReport {
        model: name.to_owned(),
        targets: vec![target],
    }
}

/// Codes of the findings of `report` that record a loss, each once.
fn loss_codes(report: &mbconv_ir::Report) -> Vec<String> {
    let mut codes: Vec<String> = Vec::new();
    for finding in report.findings.iter().filter(|f| f.category.is_loss()) {
        if !codes.contains(&finding.code) {
            codes.push(finding.code.clone());
        }
    }
    codes
}

/// `centre of mass of "b" off by 1.2e-3 m at t = 0.5 s, rotation off by 3e-4 rad`.
fn describe(d: &Difference) -> String {
    if !d.missing.is_empty() {
        return format!("bodies missing after the conversion: {}", d.missing.join(", "));
    }
    let mut text = format!(
        "centre of mass of {:?} off by {:.3e} m at t = {} s",
        d.max_com_error_body.as_deref().unwrap_or("?"),
        d.max_com_error,
        crate::render::seconds(d.max_com_error_time)
    );
    if d.max_rotation_error > 0.0 {
        text.push_str(&format!(
            ", rotation of {:?} off by {:.3e} rad",
            d.max_rotation_error_body.as_deref().unwrap_or("?"),
            d.max_rotation_error
        ));
    }
    text
}

fn trace(a: &Motion, b: &Motion, matching: &BodyMatch, d: &Difference) -> Option<Trace> {
    let worst = d.max_com_error_body.as_deref().and_then(|body| {
        let i = a.body_index(body)?;
        let j = matching.pairs.iter().find(|(k, _)| *k == i)?.1?;
        Some((body, i, j))
    });
    let (position_error, rotation_error) = crate::compare::body_errors(a, b, matching);
    Some(Trace {
        body: worst.map(|(body, _, _)| body.to_owned()),
        times: a.times.clone(),
        original: worst.map_or_else(Vec::new, |(_, i, _)| com_path(a, i)),
        converted: worst.map_or_else(Vec::new, |(_, _, j)| com_path(b, j)),
        bodies: a.bodies.clone(),
        position_error,
        rotation_error,
    })
}
