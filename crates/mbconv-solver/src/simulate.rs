//! `simulate`: run a model for a duration and stream samples; `Trajectory` collects them and
//! writes CSV or JSON.

use crate::data::{Data, State};
use crate::dynamics::{kinematics, kinetic_energy};
use crate::error::SolverError;
use crate::integrate::{Integrator, advance_dopri5, step_rk4, step_semi_implicit_euler};
use crate::model::Model;
use crate::projection::{assemble, residual};
use crate::report::{body_pose, potential_energy};
use crate::stiff::{RosenbrockWork, SchemeChoice, advance_rosenbrock};
use serde::{Deserialize, Serialize};
use std::io::Write;

/// Options of [`simulate`].
///
/// ```
/// let o = mbconv_solver::SimulateOptions::default();
/// assert_eq!((o.duration, o.dt, o.every), (1.0, 1e-3, 1));
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SimulateOptions {
    /// Simulated time (s).
    pub duration: f64,
    /// Time step (s); for the adaptive schemes ([`Integrator::Dopri5`],
    /// [`Integrator::Rosenbrock`]), the output interval and first trial step.
    pub dt: f64,
    /// The integrator.
    pub integrator: Integrator,
    /// Emit a sample every `every` steps (the initial state is always emitted).
    pub every: usize,
    /// Compute kinetic and potential energy for each sample.
    pub energy: bool,
    /// Enforce joint position limits as inelastic stops (off by default, as in DART).
    #[serde(default)]
    pub joint_limits: bool,
    /// The most integrator steps (accepted and rejected) the run may take; past it the run
    /// stops with [`SolverError::StepBudget`]. `None`: no budget. An adaptive explicit scheme
    /// on a stiff model takes steps no longer than its stability limit allows, so a budget
    /// bounds what a stiff model costs.
    #[serde(default)]
    pub max_steps: Option<usize>,
}

impl SimulateOptions {
    /// Refuses options no run can follow: a step that is not positive and finite, a duration
    /// that is negative or not finite, `every` of 0, adaptive tolerances that are not positive.
    ///
    /// ```
    /// let mut options = mbconv_solver::SimulateOptions::default();
    /// assert!(options.validate().is_ok());
    /// options.dt = 0.0;
    /// assert_eq!(options.validate().unwrap_err().to_string(), "invalid simulation options: dt must be positive, got 0");
    /// ```
    ///
    /// # Errors
    /// [`SolverError::Options`], saying which option and its value.
    pub fn validate(&self) -> Result<(), SolverError> {
        if !(self.dt > 0.0 && self.dt.is_finite()) {
            return Err(SolverError::Options(format!(
                "dt must be positive, got {}",
                self.dt
            )));
        }
        if !(self.duration >= 0.0 && self.duration.is_finite()) {
            return Err(SolverError::Options(format!(
                "duration must be non-negative, got {}",
                self.duration
            )));
        }
        if self.every == 0 {
            return Err(SolverError::Options("every must be at least 1".into()));
        }
        if let Integrator::Dopri5 { rtol, atol } | Integrator::Rosenbrock { rtol, atol } = self.integrator
            && !(rtol > 0.0 && atol > 0.0)
        {
            return Err(SolverError::Options(
                "the adaptive integrators need positive rtol and atol".into(),
            ));
        }
        Ok(())
    }
}

impl Default for SimulateOptions {
    fn default() -> Self {
        Self {
            duration: 1.0,
            dt: 1e-3,
            integrator: Integrator::SemiImplicitEuler,
            every: 1,
            energy: false,
            joint_limits: false,
            max_steps: None,
        }
    }
}

/// One output sample: time, the world pose of every body frame in model order as
/// `[x, y, z, qw, qx, qy, qz]`, and optionally the energies.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample<'a> {
    /// Time (s).
    pub t: f64,
    /// Body poses in model order.
    pub poses: &'a [[f64; 7]],
    /// Kinetic energy (J), when asked for.
    pub kinetic: Option<f64>,
    /// Potential energy (J), when asked for.
    pub potential: Option<f64>,
}

/// What a simulation did.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SimulationSummary {
    /// Integrator steps accepted.
    pub steps: usize,
    /// Steps rejected by the error control (adaptive schemes only).
    pub rejected_steps: usize,
    /// When [`Integrator::Dopri5`] found the model stiff (its steps limited by stability, not
    /// accuracy; see [`StiffnessTest`](crate::StiffnessTest)): the time (s) from which the run
    /// first continued with [`Integrator::Rosenbrock`] at the same tolerances. `None`: no
    /// switch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stiff_from: Option<f64>,
    /// Simulated time (s) the stiff scheme integrated, over all its spans.
    #[serde(default)]
    pub stiff_time: f64,
    /// Times the run went back from the stiff scheme to Dormand–Prince because the stiff one
    /// did more work per simulated second (its work counted in evaluations of the dynamics).
    #[serde(default)]
    pub stiff_returns: usize,
    /// Evaluations of the forward dynamics the run took (stages, Jacobian columns, event
    /// location): its work, independent of the machine.
    #[serde(default)]
    pub evaluations: usize,
    /// Samples emitted.
    pub samples: usize,
    /// Final time.
    pub final_time: f64,
    /// Residual left by the assembly step.
    pub assembly_residual: f64,
    /// Largest constraint residual seen at the samples.
    pub max_constraint_residual: f64,
    /// The joints whose position limits a coordinate reached, with the first sample time it
    /// was at or beyond one, in joint order (with limits enforced, a stop that held the
    /// coordinate counts as reached).
    #[serde(default)]
    pub limits_reached: Vec<LimitReached>,
    /// Impacts on joint stops the adaptive integrator located (a coordinate reaching a stop;
    /// 0 with limits off or with a fixed-step scheme, which does not locate events).
    #[serde(default)]
    pub stop_impacts: usize,
    /// Releases from joint stops the adaptive integrator located (a coordinate held on its stop
    /// leaving it when the holding force would pull).
    #[serde(default)]
    pub stop_releases: usize,
}

/// A joint whose coordinate reached one of its position limits during a simulation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LimitReached {
    /// The joint's name.
    pub joint: String,
    /// The first sample time (s) at which a coordinate of the joint was at or beyond a limit.
    pub time: f64,
}

fn fill_sample(
    model: &Model,
    data: &mut Data,
    state: &State,
    energy: bool,
    poses: &mut [[f64; 7]],
) -> (Option<f64>, Option<f64>) {
    kinematics(model, data, &state.q, &state.v);
    for (i, p) in poses.iter_mut().enumerate() {
        let x = body_pose(model, data, i);
        let r = x.quaternion();
        let r = r.quaternion();
        *p = [x.p.x, x.p.y, x.p.z, r.w, r.i, r.j, r.k];
    }
    if energy {
        (
            Some(kinetic_energy(model, data)),
            Some(potential_energy(model, data, &state.q)),
        )
    } else {
        (None, None)
    }
}

/// Simulates `ir` from its initial state (after assembly) and calls `sink` for every sample.
///
/// ```
/// use mbconv_ir::{Body, Model};
/// use mbconv_solver::{simulate, SimulateOptions};
/// let mut ir = Model::new("drop");
/// ir.bodies.push(Body::new("ball"));
/// let options = SimulateOptions { duration: 1.0, dt: 1e-3, every: 1000, ..SimulateOptions::default() };
/// let mut last_z = 0.0;
/// let summary = simulate(&ir, &options, &mut |s| last_z = s.poses[0][2]).unwrap();
/// assert_eq!(summary.samples, 2);
/// assert!((last_z + 0.5 * 9.81).abs() < 1e-2);
/// ```
pub fn simulate(
    ir: &mbconv_ir::Model,
    options: &SimulateOptions,
    sink: &mut dyn FnMut(&Sample),
) -> Result<SimulationSummary, SolverError> {
    let model = Model::new(ir)?;
    simulate_model(&model, options, sink)
}

/// [`simulate`] on an already built solver model.
pub fn simulate_model(
    model: &Model,
    options: &SimulateOptions,
    sink: &mut dyn FnMut(&Sample),
) -> Result<SimulationSummary, SolverError> {
    options.validate()?;
    let mut data = Data::new(model);
    data.set_joint_limits(options.joint_limits);
    let mut state = State::initial(model);
    let assembly_residual = assemble(model, &mut data, &mut state)?;
    let mut poses = vec![[0.0; 7]; model.bodies.len()];
    let steps = (options.duration / options.dt).round() as usize;
    let mut summary = SimulationSummary {
        steps: 0,
        rejected_steps: 0,
        stiff_from: None,
        stiff_time: 0.0,
        stiff_returns: 0,
        evaluations: 0,
        samples: 0,
        final_time: 0.0,
        assembly_residual,
        max_constraint_residual: assembly_residual,
        limits_reached: Vec::new(),
        stop_impacts: 0,
        stop_releases: 0,
    };
    let mut reached_at: Vec<Option<f64>> = vec![None; ir_joint_count(model)];
    let mut emit = |data: &mut Data, state: &State, summary: &mut SimulationSummary| {
        let (kinetic, potential) = fill_sample(model, data, state, options.energy, &mut poses);
        if model.has_constraints() {
            let r = residual(model, data, &state.q, state.t);
            summary.max_constraint_residual = summary.max_constraint_residual.max(r);
        }
        for l in &model.limits {
            let q = state.q[l.q];
            if (q <= l.lower || q >= l.upper) && reached_at[l.joint].is_none() {
                reached_at[l.joint] = Some(state.t);
            }
        }
        sink(&Sample {
            t: state.t,
            poses: &poses,
            kinetic,
            potential,
        });
        summary.samples += 1;
    };
    emit(&mut data, &state, &mut summary);
    let mut h = options.dt;
    let mut choice = SchemeChoice::default();
    let mut rosenbrock: Option<RosenbrockWork> = None;
    for k in 1..=steps {
        let t_end = k as f64 * options.dt;
        data.step_budget = options
            .max_steps
            .map(|budget| budget.saturating_sub(summary.steps + summary.rejected_steps));
        match options.integrator {
            Integrator::SemiImplicitEuler => {
                step_semi_implicit_euler(model, &mut data, &mut state, options.dt)?;
                summary.steps += 1;
            }
            Integrator::Rk4 => {
                step_rk4(model, &mut data, &mut state, options.dt)?;
                summary.steps += 1;
            }
            Integrator::Dopri5 { rtol, atol } => {
                if !choice.is_stiff() {
                    let (a, r) = advance_dopri5(
                        model,
                        &mut data,
                        &mut state,
                        t_end,
                        &mut h,
                        rtol,
                        atol,
                        Some(choice.test()),
                    )
                    .map_err(counting(&summary))?;
                    summary.steps += a;
                    summary.rejected_steps += r;
                    choice.after_explicit(state.t, data.evaluations);
                }
                if choice.is_stiff() {
                    // Continue the same run, from the current state, with the stiff scheme.
                    let work = rosenbrock.get_or_insert_with(|| RosenbrockWork::new(model));
                    let accepted = advance_stiff(
                        model,
                        &mut data,
                        work,
                        &mut state,
                        t_end,
                        &mut h,
                        (rtol, atol),
                        &mut summary,
                    )?;
                    choice.after_stiff(accepted, state.t, data.evaluations);
                }
            }
            Integrator::Rosenbrock { rtol, atol } => {
                let work = rosenbrock.get_or_insert_with(|| RosenbrockWork::new(model));
                advance_stiff(
                    model,
                    &mut data,
                    work,
                    &mut state,
                    t_end,
                    &mut h,
                    (rtol, atol),
                    &mut summary,
                )?;
            }
        }
        if let Some(budget) = options.max_steps
            && summary.steps + summary.rejected_steps > budget
        {
            return Err(SolverError::StepBudget {
                time: state.t,
                steps: summary.steps + summary.rejected_steps,
            });
        }
        if state.q.iter().chain(state.v.iter()).any(|x| !x.is_finite()) {
            return Err(SolverError::Diverged {
                time: state.t,
                message: "the state became non-finite".into(),
            });
        }
        if k % options.every == 0 || k == steps {
            emit(&mut data, &state, &mut summary);
        }
    }
    summary.final_time = state.t;
    choice.finish(state.t);
    summary.stiff_from = choice.stiff_from;
    summary.stiff_time = choice.stiff_time;
    summary.stiff_returns = choice.returns;
    summary.evaluations = data.evaluations;
    summary.stop_impacts = data.stops.impacts;
    summary.stop_releases = data.stops.releases;
    summary.limits_reached = reached_at
        .iter()
        .enumerate()
        .filter_map(|(j, t)| {
            t.map(|time| LimitReached {
                joint: model.joint_names[j].clone(),
                time,
            })
        })
        .collect();
    Ok(summary)
}

/// One sample interval of Rodas4 to `t_end`, its steps added to `summary`; returns the steps
/// it accepted.
#[allow(clippy::too_many_arguments)]
fn advance_stiff(
    model: &Model,
    data: &mut Data,
    work: &mut RosenbrockWork,
    state: &mut State,
    t_end: f64,
    h: &mut f64,
    (rtol, atol): (f64, f64),
    summary: &mut SimulationSummary,
) -> Result<usize, SolverError> {
    let (accepted, rejected) =
        advance_rosenbrock(model, data, work, state, t_end, h, rtol, atol).map_err(counting(summary))?;
    summary.steps += accepted;
    summary.rejected_steps += rejected;
    Ok(accepted)
}

fn ir_joint_count(model: &Model) -> usize {
    model.joint_names.len()
}

/// Samples collected in memory, written as CSV or JSON.
///
/// CSV header: `t`, then for each body in model order
/// `<body>.x,<body>.y,<body>.z,<body>.qw,<body>.qx,<body>.qy,<body>.qz`, then
/// `kinetic,potential` when energies were recorded. Fields are quoted as RFC 4180 requires
/// (a body name may hold commas, quotes or line breaks). Numbers use Rust's shortest
/// round-trip formatting, so they parse back to the same bits.
///
/// ```
/// use mbconv_ir::{Body, Model};
/// use mbconv_solver::{SimulateOptions, Trajectory};
/// let mut ir = Model::new("drop");
/// ir.bodies.push(Body::new("ball"));
/// let options = SimulateOptions { duration: 0.002, dt: 1e-3, ..SimulateOptions::default() };
/// let (trajectory, _) = Trajectory::record(&ir, &options).unwrap();
/// let mut csv = Vec::new();
/// trajectory.write_csv(&mut csv).unwrap();
/// let text = String::from_utf8(csv).unwrap();
/// assert!(text.starts_with("t,ball.x,ball.y,ball.z,ball.qw,ball.qx,ball.qy,ball.qz\n0,0,0,0,1,0,0,0\n"));
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Trajectory {
    /// Body names in model order.
    pub bodies: Vec<String>,
    /// Sample times.
    pub t: Vec<f64>,
    /// `poses[k][b]` = `[x, y, z, qw, qx, qy, qz]` of body `b` at sample `k`.
    pub poses: Vec<Vec<[f64; 7]>>,
    /// Kinetic energy per sample, when recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kinetic: Option<Vec<f64>>,
    /// Potential energy per sample, when recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub potential: Option<Vec<f64>>,
}

impl Trajectory {
    /// An empty trajectory for these body names.
    pub fn new(bodies: Vec<String>, energy: bool) -> Self {
        Self {
            bodies,
            t: Vec::new(),
            poses: Vec::new(),
            kinetic: energy.then(Vec::new),
            potential: energy.then(Vec::new),
        }
    }

    /// Appends a sample.
    pub fn push(&mut self, sample: &Sample) {
        self.t.push(sample.t);
        self.poses.push(sample.poses.to_vec());
        if let (Some(k), Some(x)) = (self.kinetic.as_mut(), sample.kinetic) {
            k.push(x);
        }
        if let (Some(p), Some(x)) = (self.potential.as_mut(), sample.potential) {
            p.push(x);
        }
    }

    /// Simulates `ir` and collects every sample.
    pub fn record(
        ir: &mbconv_ir::Model,
        options: &SimulateOptions,
    ) -> Result<(Self, SimulationSummary), SolverError> {
        let names = ir.bodies.iter().map(|b| b.name.clone()).collect();
        let mut trajectory = Trajectory::new(names, options.energy);
        let summary = simulate(ir, options, &mut |s| trajectory.push(s))?;
        Ok((trajectory, summary))
    }

    /// The CSV column names: `t`, seven per body, then `kinetic` and `potential` when
    /// `energy` is set.
    ///
    /// ```
    /// let columns = mbconv_solver::Trajectory::csv_header(&["arm, left".to_string()], false);
    /// assert_eq!(columns.len(), 8);
    /// assert_eq!(columns[1], "arm, left.x");
    /// ```
    pub fn csv_header(bodies: &[String], energy: bool) -> Vec<String> {
        let mut columns = vec!["t".to_string()];
        for b in bodies {
            for c in ["x", "y", "z", "qw", "qx", "qy", "qz"] {
                columns.push(format!("{b}.{c}"));
            }
        }
        if energy {
            columns.extend(["kinetic".to_string(), "potential".to_string()]);
        }
        columns
    }

    /// Writes the CSV text (RFC 4180: a field holding a comma, a quote or a line break, as a
    /// body name may, is quoted; records end with `\n`).
    pub fn write_csv(&self, out: &mut dyn Write) -> std::io::Result<()> {
        let energy = self.kinetic.is_some() && self.potential.is_some();
        let mut writer = csv::WriterBuilder::new()
            .terminator(csv::Terminator::Any(b'\n'))
            .quote_style(csv::QuoteStyle::Necessary)
            .from_writer(out);
        writer.write_record(Self::csv_header(&self.bodies, energy))?;
        let mut record: Vec<String> = Vec::new();
        for (k, t) in self.t.iter().enumerate() {
            record.clear();
            record.push(t.to_string());
            for p in &self.poses[k] {
                record.extend(p.iter().map(f64::to_string));
            }
            if let (Some(ke), Some(pe)) = (&self.kinetic, &self.potential) {
                record.push(ke[k].to_string());
                record.push(pe[k].to_string());
            }
            writer.write_record(&record)?;
        }
        writer.flush()
    }

    /// Writes the JSON text (one object: `bodies`, `t`, `poses`, optional `kinetic`,
    /// `potential`), newline-terminated.
    pub fn write_json(&self, out: &mut dyn Write) -> std::io::Result<()> {
        serde_json::to_writer(&mut *out, self).map_err(std::io::Error::other)?;
        writeln!(out)
    }
}

/// Makes a step-budget error raised inside an advance (which counts its own steps) count the
/// run's steps before it too.
fn counting(summary: &SimulationSummary) -> impl Fn(SolverError) -> SolverError + use<> {
    let before = summary.steps + summary.rejected_steps;
    move |error| match error {
        SolverError::StepBudget { time, steps } => SolverError::StepBudget {
            time,
            steps: steps + before,
        },
        other => other,
    }
}
