//! Checking a model against each target format, or against a file converted earlier.

use crate::compare::{BodyMatch, Difference, Tolerances, com_path};
use crate::motion::{Motion, SimulationSettings};
use crate::roundtrip::{RoundTrip, Step, StepError, round_trip};
use crate::verdict::{TargetCheck, Trace, Verdict};
use mbconv_ir::Model;
use mbconv_ir::format::{Format, Imported, Options, Registry};
use mbconv_solver::{Integrator, SolverError};
use serde::Serialize;
use std::collections::BTreeMap;

/// The time step used when neither the settings nor the model give one (s).
pub const DEFAULT_STEP: f64 = 1e-3;
/// The simulated time when the settings give none (s).
pub const DEFAULT_DURATION: f64 = 1.0;

/// How to check: simulation settings, tolerances and the write settings of each format.
///
/// ```
/// let settings = mbconv_check::CheckSettings::default();
/// assert_eq!(settings.duration, 1.0);
/// assert_eq!(settings.tolerances.position, 1e-6);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct CheckSettings {
    /// Simulated time (s).
    pub duration: f64,
    /// Time step (s); `None`: the original model's own step, else [`DEFAULT_STEP`].
    pub dt: Option<f64>,
    /// The integrator for all three simulations.
    pub integrator: Integrator,
    /// How far motions may part and still count as the same.
    pub tolerances: Tolerances,
    /// Write settings per format (registry name), as a conversion would pass them.
    pub write_options: BTreeMap<String, Options>,
    /// Write as to a file (true, the default) or as to standard output, as the conversion
    /// being checked does (a writer may say more when it can write companion files).
    pub to_file: bool,
}

impl Default for CheckSettings {
    fn default() -> Self {
        Self {
            duration: DEFAULT_DURATION,
            dt: None,
            integrator: Integrator::SemiImplicitEuler,
            tolerances: Tolerances::default(),
            write_options: BTreeMap::new(),
            to_file: true,
        }
    }
}

impl CheckSettings {
    /// The simulation settings for `model`: its own step unless the settings give one.
    pub fn simulation(&self, model: &Model) -> SimulationSettings {
        SimulationSettings {
            duration: self.duration,
            dt: self.dt.or(model.simulation.time_step).unwrap_or(DEFAULT_STEP),
            integrator: self.integrator,
        }
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

impl CheckReport {
    /// True when no target is `unexplained` or `failed`.
    pub fn passed(&self) -> bool {
        !self.targets.iter().any(|t| t.verdict.is_failure())
    }
}

/// Checks `model` against each of `formats`: lower, emit, read back, simulate the original
/// (A), the lowered (L) and the read-back (B) model with the same settings, and compare.
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
    let (simulation, original) = simulate_original(model, settings);
    let targets = formats
        .iter()
        .map(|format| {
            let mut target = check_target(model, &original, &simulation, registry, *format, settings);
            note_refined_step(&mut target, &simulation, settings, model);
            target
        })
        .collect();
    CheckReport {
        model: name.to_owned(),
        targets,
    }
}

/// How many times the check divides the step by [`REFINEMENT`] when the original's simulation
/// diverges at the model's own step.
const DIVERGENCE_REFINEMENTS: u32 = 2;

/// The finer steps the check may retry a diverging simulation of `model` at: `dt / 10`, then
/// `dt / 100` (each divided from the one before), as long as the run stays within
/// [`REFINEMENT_BUDGET`] body-steps.
fn finer_steps(model: &Model, from: &SimulationSettings) -> impl Iterator<Item = SimulationSettings> + use<> {
    let bodies = model.bodies.len().max(1) as f64;
    std::iter::successors(Some(from.clone()), |s| {
        Some(SimulationSettings {
            dt: s.dt / REFINEMENT,
            ..s.clone()
        })
    })
    .skip(1)
    .take(DIVERGENCE_REFINEMENTS as usize)
    .take_while(move |s| s.duration / s.dt * bodies <= REFINEMENT_BUDGET)
}

/// Simulates the original with `settings`. When it diverges at the model's own step (the
/// settings give none) and the integrator is semi-implicit Euler, the step was too large for an
/// explicit integrator (a stiff bushing or spring that the source simulator integrates
/// implicitly): the original is simulated again at `dt / 10`, then `dt / 100`, within
/// [`REFINEMENT_BUDGET`], and the step that worked is the one every target is checked at.
/// When every such step diverges, the original is simulated with [`ADAPTIVE_FALLBACK`]
/// sampled at the model's step, and every target is checked with it.
/// Returns the settings used and the original's motion.
pub fn simulate_original(
    model: &Model,
    settings: &CheckSettings,
) -> (SimulationSettings, Result<Motion, StepError>) {
    let mut simulation = settings.simulation(model);
    let mut result = Motion::simulate(model, &simulation);
    let may_refine = settings.dt.is_none() && settings.integrator == Integrator::SemiImplicitEuler;
    if may_refine && matches!(result, Err(SolverError::Diverged { .. })) {
        for finer in finer_steps(model, &simulation) {
            let attempt = Motion::simulate(model, &finer);
            if attempt.is_ok() {
                simulation = finer;
                result = attempt;
                break;
            }
        }
    }
    if may_refine && matches!(result, Err(SolverError::Diverged { .. })) {
        // No step within the budget is small enough: the model moves too fast for a
        // fixed-step explicit scheme (the Shift double pendulum starts its joints at 1000 rad/s
        // and asks Shift for its adaptive ode113). Integrate adaptively instead, sampled at the
        // model's step.
        let adaptive = SimulationSettings {
            integrator: ADAPTIVE_FALLBACK,
            ..settings.simulation(model)
        };
        let attempt = Motion::simulate(model, &adaptive);
        if attempt.is_ok() {
            simulation = adaptive;
            result = attempt;
        }
    }
    if result.is_err() {
        // Report the failure at the settings the user asked for.
        simulation = settings.simulation(model);
    }
    (
        simulation,
        result.map_err(|e| StepError::new(Step::SimulateOriginal, e)),
    )
}

/// Says in the message of a decided target that the check ran at a finer step than the
/// model's own, and why.
fn note_refined_step(
    target: &mut TargetCheck,
    simulation: &SimulationSettings,
    settings: &CheckSettings,
    model: &Model,
) {
    let own = settings.simulation(model).dt;
    if target.verdict == Verdict::Failed {
        return;
    }
    if let Integrator::Dopri5 { rtol, atol } = simulation.integrator
        && settings.integrator != simulation.integrator
    {
        target.message.push_str(&format!(
            " (checked with dopri5, rtol = {rtol:e}, atol = {atol:e}, sampled every {:e} s: with the explicit integrator the original's simulation diverges at the model's step and at every finer step tried)",
            simulation.dt
        ));
        return;
    }
    if simulation.dt != own {
        target.message.push_str(&format!(
            " (checked at dt = {:e} s: at the model's step, {:e} s, the original's simulation diverges with the explicit integrator)",
            simulation.dt, own
        ));
    }
}

/// Checks one target, given the original's motion (simulated once for all targets) and the
/// settings it was simulated with.
pub fn check_target(
    model: &Model,
    original: &Result<Motion, StepError>,
    simulation: &SimulationSettings,
    registry: &Registry,
    format: &dyn Format,
    settings: &CheckSettings,
) -> TargetCheck {
    let name = format.info().name;
    match try_target(model, original, simulation, registry, format, settings) {
        Ok(target) => target,
        Err(e) => refine_for_target(model, simulation, registry, format, settings, &e)
            .unwrap_or_else(|| TargetCheck::failed_at(name, &e)),
    }
}

/// When the original ran but the lowered or read-back model diverged with the explicit
/// integrator at the step the check chose (and the user chose no step), the target is checked
/// again, original included, at `dt / 10`, then `dt / 100`, within [`REFINEMENT_BUDGET`]: a
/// joint damper that became a force element is integrated explicitly and may need a finer
/// step than the original's implicit joint damping did. Returns the first decided check, its
/// message naming the step, or `None` when no finer step helps.
fn refine_for_target(
    model: &Model,
    simulation: &SimulationSettings,
    registry: &Registry,
    format: &dyn Format,
    settings: &CheckSettings,
    error: &StepError,
) -> Option<TargetCheck> {
    let converted_diverged =
        error.diverged && matches!(error.step, Step::SimulateLowered | Step::SimulateReadBack);
    if !converted_diverged || settings.dt.is_some() || simulation.integrator != Integrator::SemiImplicitEuler
    {
        return None;
    }
    for finer in finer_steps(model, simulation) {
        let original =
            Motion::simulate(model, &finer).map_err(|e| StepError::simulation(Step::SimulateOriginal, &e));
        if let Ok(mut target) = try_target(model, &original, &finer, registry, format, settings) {
            let which = if error.step == Step::SimulateLowered {
                "lowered"
            } else {
                "read-back"
            };
            target.message.push_str(&format!(
                " (checked at dt = {:e} s: at {:e} s the {which} model's simulation diverges with the explicit integrator)",
                finer.dt, simulation.dt
            ));
            return Some(target);
        }
    }
    None
}

fn try_target(
    model: &Model,
    original: &Result<Motion, StepError>,
    simulation: &SimulationSettings,
    registry: &Registry,
    format: &dyn Format,
    settings: &CheckSettings,
) -> Result<TargetCheck, StepError> {
    let name = format.info().name;
    let default_options = Options::default();
    let write_options = settings.write_options.get(name).unwrap_or(&default_options);
    let RoundTrip {
        lowered,
        exported,
        read_back,
    } = round_trip(registry, format, model, write_options, settings.to_file)?;
    let a = original.as_ref().map_err(Clone::clone)?;
    let simulation = simulation.clone();
    let l_owned;
    let l = if lowered.model == *model {
        a
    } else {
        l_owned = Motion::simulate(&lowered.model, &simulation)
            .map_err(|e| StepError::simulation(Step::SimulateLowered, &e))?;
        &l_owned
    };
    let b_owned;
    let b = if read_back.model == lowered.model {
        l
    } else {
        b_owned = Motion::simulate(&read_back.model, &simulation)
            .map_err(|e| StepError::simulation(Step::SimulateReadBack, &e))?;
        &b_owned
    };
    let (lower_report, emit_report, read_report) = (&lowered.report, &exported.report, &read_back.report);
    let a_to_b = BodyMatch::new(&a.bodies, &b.bodies, &[lower_report, emit_report, read_report]);
    let l_to_b = BodyMatch::new(&l.bodies, &b.bodies, &[emit_report, read_report]);
    let ab = Difference::between(a, b, &a_to_b);
    let lb = Difference::between(l, b, &l_to_b);
    let tolerances = &settings.tolerances;
    let (verdict, message) = if ab.within(tolerances) {
        (Verdict::Exact, "moves like the original".to_owned())
    } else if lb.within(tolerances) {
        let losses = loss_codes(lower_report);
        let refined = if losses.is_empty() {
            same_motion_as_the_step_shrinks(model, &lowered.model, &simulation, lower_report, &ab, tolerances)
        } else {
            None
        };
        if let Some(fine) = refined {
            (
                Verdict::Explained,
                format!(
                    "{}; explained by {DISCRETISATION}: the lowered model says the same physics in a form the solver integrates differently (a force element as a joint spring or damper, integrated implicitly as DART does); at dt / {REFINEMENT} the gap shrinks to {:.3e} m, {:.3e} rad",
                    describe(&ab),
                    fine.max_com_error,
                    fine.max_rotation_error
                ),
            )
        } else if losses.is_empty() {
            (
                Verdict::Unexplained,
                format!(
                    "lowering changed the motion without reporting a loss: {}",
                    describe(&ab)
                ),
            )
        } else {
            (
                Verdict::Explained,
                format!(
                    "{}; the lowered model moves the same, explained by {}",
                    describe(&ab),
                    losses.join(", ")
                ),
            )
        }
    } else {
        let losses = loss_codes(emit_report);
        if losses.is_empty() {
            (
                Verdict::Unexplained,
                format!(
                    "the read-back model moves unlike the lowered one ({}): a writer or reader bug",
                    describe(&lb)
                ),
            )
        } else {
            (
                Verdict::Explained,
                format!(
                    "{}; emit reported the losses {} (they belong in lower, which should leave emit nothing to lose)",
                    describe(&ab),
                    losses.join(", ")
                ),
            )
        }
    };
    let mut target = TargetCheck::decided(name, verdict, &ab, &[lower_report, emit_report], message);
    target.trace = trace(a, b, &a_to_b, &ab);
    Ok(target)
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
    let simulation = settings.simulation(model);
    let target = (|| -> Result<TargetCheck, StepError> {
        let a =
            Motion::simulate(model, &simulation).map_err(|e| StepError::new(Step::SimulateOriginal, e))?;
        let b = Motion::simulate(&other.model, &simulation)
            .map_err(|e| StepError::new(Step::SimulateReadBack, e))?;
        let matching = BodyMatch::new(&a.bodies, &b.bodies, &[&other.report]);
        let difference = Difference::between(&a, &b, &matching);
        let (verdict, message) = if difference.within(&settings.tolerances) {
            (Verdict::Exact, "moves like the original".to_owned())
        } else {
            (
                Verdict::Unexplained,
                format!("moves unlike the original: {}", describe(&difference)),
            )
        };
        let mut target = TargetCheck::decided(format, verdict, &difference, &[], message);
        target.trace = trace(&a, &b, &matching, &difference);
        Ok(target)
    })()
    .unwrap_or_else(|e| TargetCheck::failed_at(format, &e));
    CheckReport {
        model: name.to_owned(),
        targets: vec![target],
    }
}

/// Codes of the findings of `report` that record a loss, each once.
/// The pseudo-finding that names a difference of discretisation, not of model.
pub const DISCRETISATION: &str = "check.discretisation";

/// How much finer the step is when the check tells a different discretisation from a
/// different model.
const REFINEMENT: f64 = 10.0;

/// The integrator the check falls back to when the original diverges with semi-implicit
/// Euler at every step tried: adaptive Dormand–Prince at the CLI's default tolerances.
pub const ADAPTIVE_FALLBACK: Integrator = Integrator::Dopri5 {
    rtol: mbconv_solver::DEFAULT_RTOL,
    atol: mbconv_solver::DEFAULT_ATOL,
};

/// The largest number of body-steps the refined simulations may take together.
const REFINEMENT_BUDGET: f64 = 4.0e6;

/// When lowering rewrote an item into an equivalent one that the solver integrates
/// differently (a Chrono RSDA on a revolute axis as that joint's DART spring, which DART, and
/// so mbconv's solver, integrates implicitly), the lowered model follows another discrete
/// trajectory at the same step but the same continuous one. Simulates the original and the
/// lowered model at `dt / REFINEMENT`; returns their difference there when it shrank as a
/// first-order difference does (at least half the refinement factor) or fell within tolerance.
fn same_motion_as_the_step_shrinks(
    model: &Model,
    lowered: &Model,
    simulation: &SimulationSettings,
    lower_report: &mbconv_ir::Report,
    coarse: &Difference,
    tolerances: &Tolerances,
) -> Option<Difference> {
    let steps = simulation.duration / simulation.dt * REFINEMENT;
    if steps * (model.bodies.len() + lowered.bodies.len()) as f64 > REFINEMENT_BUDGET {
        return None;
    }
    let fine = SimulationSettings {
        dt: simulation.dt / REFINEMENT,
        ..simulation.clone()
    };
    let a = Motion::simulate(model, &fine).ok()?;
    let l = Motion::simulate(lowered, &fine).ok()?;
    let matching = BodyMatch::new(&a.bodies, &l.bodies, &[lower_report]);
    let difference = Difference::between(&a, &l, &matching);
    let shrank =
        |fine: f64, coarse: f64, tolerance: f64| fine <= tolerance || fine <= coarse * 2.0 / REFINEMENT;
    let first_order = difference.missing.is_empty()
        && shrank(
            difference.max_com_error,
            coarse.max_com_error,
            tolerances.position,
        )
        && shrank(
            difference.max_rotation_error,
            coarse.max_rotation_error,
            tolerances.rotation,
        );
    first_order.then_some(difference)
}

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
    let body = d.max_com_error_body.as_deref()?;
    let i = a.body_index(body)?;
    let j = matching.pairs.iter().find(|(k, _)| *k == i)?.1?;
    Some(Trace {
        body: body.to_owned(),
        times: a.times.clone(),
        original: com_path(a, i),
        converted: com_path(b, j),
    })
}
