//! Time integration: semi-implicit Euler (the scheme of DART and MuJoCo), classical RK4,
//! adaptive Dormand–Prince 5(4) (and, in [`crate::stiff`], the Rosenbrock method for stiff
//! models).

use crate::data::{Data, State};
use crate::dynamics::{aba, add_gravity_forces, check_finite, kinematics, normalize};
use crate::error::SolverError;
use crate::model::Model;
use crate::projection::{constrained_accelerations, project_positions, project_velocities};
use crate::spatial::Spatial;
use crate::stiff::{StiffnessTest, dopri_quotient, retry_shorter, shrink_step};
use crate::stops;
use serde::{Deserialize, Serialize};

/// The integration scheme.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "type")]
pub enum Integrator {
    /// `v += dt·a(q, v); q ⊕= dt·v` (exponential map for rotations; a free joint steps the
    /// classical velocity and pose of the body it moves in its parent joint frame): DART
    /// 6.20's and MuJoCo's scheme, step for step.
    SemiImplicitEuler,
    /// Classical fourth-order Runge–Kutta with fixed step `dt` (quaternions integrated as
    /// four-vectors and renormalised).
    Rk4,
    /// Adaptive Dormand–Prince 5(4) with error control `|err_i| ≤ atol + rtol·|y_i|`
    /// (RMS norm); `dt` is the output interval and the first trial step.
    Dopri5 {
        /// Relative tolerance.
        rtol: f64,
        /// Absolute tolerance.
        atol: f64,
    },
    /// Adaptive Rodas4, a linearly implicit (Rosenbrock) 4(3) method, L-stable, for stiff
    /// models (see [`crate::advance_rosenbrock`]); error control as for `Dopri5`. Dopri5
    /// switches to it by itself when it detects stiffness.
    Rosenbrock {
        /// Relative tolerance.
        rtol: f64,
        /// Absolute tolerance.
        atol: f64,
    },
}

/// Default relative tolerance of `dopri5` and `rosenbrock` when parsed from a name.
pub const DEFAULT_RTOL: f64 = 1e-8;
/// Default absolute tolerance of `dopri5` and `rosenbrock` when parsed from a name.
pub const DEFAULT_ATOL: f64 = 1e-10;

impl std::str::FromStr for Integrator {
    type Err = SolverError;
    /// Parses the CLI names `semi-implicit-euler`, `rk4`, `dopri5` and `rosenbrock` (the
    /// last two with [`DEFAULT_RTOL`], [`DEFAULT_ATOL`]).
    ///
    /// ```
    /// use mbconv_solver::Integrator;
    /// assert_eq!("rk4".parse::<Integrator>().unwrap(), Integrator::Rk4);
    /// assert!(matches!("dopri5".parse::<Integrator>().unwrap(), Integrator::Dopri5 { .. }));
    /// assert!(matches!("rosenbrock".parse::<Integrator>().unwrap(), Integrator::Rosenbrock { .. }));
    /// assert!("euler".parse::<Integrator>().is_err());
    /// ```
    fn from_str(name: &str) -> Result<Self, SolverError> {
        match name {
            "semi-implicit-euler" => Ok(Integrator::SemiImplicitEuler),
            "rk4" => Ok(Integrator::Rk4),
            "dopri5" => Ok(Integrator::Dopri5 {
                rtol: DEFAULT_RTOL,
                atol: DEFAULT_ATOL,
            }),
            "rosenbrock" => Ok(Integrator::Rosenbrock {
                rtol: DEFAULT_RTOL,
                atol: DEFAULT_ATOL,
            }),
            other => Err(SolverError::Options(format!(
                "unknown integrator {other:?}: expected semi-implicit-euler, rk4, dopri5 or rosenbrock"
            ))),
        }
    }
}

/// Forward dynamics with every force element and constraint: writes `data.qdd`.
pub fn accelerations(
    model: &Model,
    data: &mut Data,
    t: f64,
    q: &[f64],
    v: &[f64],
) -> Result<(), SolverError> {
    data.evaluations += 1;
    kinematics(model, data, q, v);
    data.tau.fill(0.0);
    data.extra_diagonal.copy_from_slice(&model.armature);
    data.f_world.iter_mut().for_each(|f| *f = Spatial::zero());
    if !model.uniform_gravity {
        add_gravity_forces(model, data);
    }
    model.forces.apply(data, t, q, v)?;
    aba(model, data).map_err(|e| match e {
        SolverError::Diverged { message, .. } => SolverError::Diverged { time: t, message },
        other => other,
    })?;
    constrained_accelerations(model, data, t, q, v);
    Ok(())
}

/// After a step of an event-locating scheme: renormalise quaternions, project onto the
/// constraints and hold the coordinates locked on their stops there at rest.
pub(crate) fn finish_located_step(
    model: &Model,
    data: &mut Data,
    state: &mut State,
) -> Result<(), SolverError> {
    normalize(model, &mut state.q);
    if model.has_constraints() {
        project_positions(model, data, &mut state.q, state.t);
        project_velocities(model, data, &state.q, &mut state.v, state.t);
    }
    stops::hold_locked(data, state);
    check_finite(state)
}

/// After a step of a scheme that does not locate events (the fixed-step schemes):
/// [`finish_located_step`], then a coordinate past its stop is put
/// back on it with the stop's impulse.
pub(crate) fn finish_step(model: &Model, data: &mut Data, state: &mut State) -> Result<(), SolverError> {
    finish_located_step(model, data, state)?;
    stops::clamp_after_step(model, data, state)?;
    check_finite(state)
}

/// One semi-implicit Euler step of size `dt` as DART 6.20's `World::step` takes it:
/// velocities first, then positions, joint by joint (a free joint steps the classical velocity
/// and pose of the body it moves in its parent joint frame; see `docs/solver.md`). Joint springs and dampers are
/// implicit as in DART: the damper adds `dt·c` and the spring `dt²·k` to the coordinate's
/// inertia, and the spring acts at the predicted position `q + dt·v`.
pub fn step_semi_implicit_euler(
    model: &Model,
    data: &mut Data,
    state: &mut State,
    dt: f64,
) -> Result<(), SolverError> {
    data.implicit_step = dt;
    let result = accelerations(model, data, state.t, &state.q, &state.v);
    data.implicit_step = 0.0;
    result?;
    for node in &model.nodes {
        let (q, v) = (node.q_index, node.v_index);
        let (nq, nv) = (node.joint.nq(), node.joint.nv());
        node.joint.step_semi_implicit(
            &mut state.q[q..q + nq],
            &mut state.v[v..v + nv],
            &data.qdd[v..v + nv],
            &node.moved_body_origin,
            dt,
        );
    }
    state.t += dt;
    finish_step(model, data, state)
}

fn position_rates(model: &Model, q: &[f64], v: &[f64], out: &mut [f64]) {
    for n in &model.nodes {
        let (nq, nv) = (n.joint.nq(), n.joint.nv());
        n.joint.position_rate(
            &q[n.q_index..n.q_index + nq],
            &v[n.v_index..n.v_index + nv],
            &mut out[n.q_index..n.q_index + nq],
        );
    }
}

/// Evaluates stage `s`: `y_s = y + h Σ_j a[j] k_j`, then `k_s = f(t + c h, y_s)`.
fn stage(
    model: &Model,
    data: &mut Data,
    state: &State,
    h: f64,
    s: usize,
    a: &[f64],
    c: f64,
) -> Result<(), SolverError> {
    data.stage_q.copy_from_slice(&state.q);
    data.stage_v.copy_from_slice(&state.v);
    for (j, aj) in a.iter().enumerate() {
        if *aj != 0.0 {
            for (y, k) in data.stage_q.iter_mut().zip(&data.k_q[j]) {
                *y += h * aj * k;
            }
            for (y, k) in data.stage_v.iter_mut().zip(&data.k_v[j]) {
                *y += h * aj * k;
            }
        }
    }
    let mut q = std::mem::take(&mut data.stage_q);
    let v = std::mem::take(&mut data.stage_v);
    normalize(model, &mut q);
    let mut kq = std::mem::take(&mut data.k_q[s]);
    position_rates(model, &q, &v, &mut kq);
    data.k_q[s] = kq;
    let result = accelerations(model, data, state.t + c * h, &q, &v);
    data.k_v[s].copy_from_slice(&data.qdd);
    data.stage_q = q;
    data.stage_v = v;
    result
}

/// One classical RK4 step of size `dt`.
pub fn step_rk4(model: &Model, data: &mut Data, state: &mut State, dt: f64) -> Result<(), SolverError> {
    stage(model, data, state, dt, 0, &[], 0.0)?;
    stage(model, data, state, dt, 1, &[0.5], 0.5)?;
    stage(model, data, state, dt, 2, &[0.0, 0.5], 0.5)?;
    stage(model, data, state, dt, 3, &[0.0, 0.0, 1.0], 1.0)?;
    let b = [1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0];
    for (j, bj) in b.iter().enumerate() {
        for (y, k) in state.q.iter_mut().zip(&data.k_q[j]) {
            *y += dt * bj * k;
        }
        for (y, k) in state.v.iter_mut().zip(&data.k_v[j]) {
            *y += dt * bj * k;
        }
    }
    state.t += dt;
    finish_step(model, data, state)
}

const DP_C: [f64; 7] = [0.0, 1.0 / 5.0, 3.0 / 10.0, 4.0 / 5.0, 8.0 / 9.0, 1.0, 1.0];
const DP_A: [&[f64]; 7] = [
    &[],
    &[1.0 / 5.0],
    &[3.0 / 40.0, 9.0 / 40.0],
    &[44.0 / 45.0, -56.0 / 15.0, 32.0 / 9.0],
    &[
        19372.0 / 6561.0,
        -25360.0 / 2187.0,
        64448.0 / 6561.0,
        -212.0 / 729.0,
    ],
    &[
        9017.0 / 3168.0,
        -355.0 / 33.0,
        46732.0 / 5247.0,
        49.0 / 176.0,
        -5103.0 / 18656.0,
    ],
    &[
        35.0 / 384.0,
        0.0,
        500.0 / 1113.0,
        125.0 / 192.0,
        -2187.0 / 6784.0,
        11.0 / 84.0,
    ],
];
const DP_B: [f64; 7] = [
    35.0 / 384.0,
    0.0,
    500.0 / 1113.0,
    125.0 / 192.0,
    -2187.0 / 6784.0,
    11.0 / 84.0,
    0.0,
];
const DP_B4: [f64; 7] = [
    5179.0 / 57600.0,
    0.0,
    7571.0 / 16695.0,
    393.0 / 640.0,
    -92097.0 / 339200.0,
    187.0 / 2100.0,
    1.0 / 40.0,
];

/// One Dormand–Prince trial step of length `step` from `state`: the stages, the fifth-order
/// candidate in `data.err_q`, `data.err_v`, and the RMS norm of the error estimate relative to
/// `atol + rtol·max(|y|, |y'|)` (returned).
fn dopri_trial(
    model: &Model,
    data: &mut Data,
    state: &State,
    step: f64,
    rtol: f64,
    atol: f64,
) -> Result<f64, SolverError> {
    (0..7).try_for_each(|s| stage(model, data, state, step, s, DP_A[s], DP_C[s]))?;
    let count = (state.q.len() + state.v.len()).max(1) as f64;
    let tolerance = (rtol, atol);
    let sum = dopri_candidate(&state.q, &data.k_q, step, tolerance, &mut data.err_q)
        + dopri_candidate(&state.v, &data.k_v, step, tolerance, &mut data.err_v);
    Ok((sum / count).sqrt())
}

/// The fifth-order candidate `y + step Σ bₛ kₛ` into `out`, and the sum of the squared scaled
/// error estimates of its components.
fn dopri_candidate(y: &[f64], k: &[Vec<f64>], step: f64, (rtol, atol): (f64, f64), out: &mut [f64]) -> f64 {
    let mut sum = 0.0;
    for (i, yi) in y.iter().enumerate() {
        let (mut high, mut err) = (0.0, 0.0);
        for s in 0..7 {
            high += DP_B[s] * k[s][i];
            err += (DP_B[s] - DP_B4[s]) * k[s][i];
        }
        out[i] = yi + step * high;
        let scale = atol + rtol * yi.abs().max(out[i].abs());
        sum += (step * err / scale).powi(2);
    }
    sum
}

/// Fails with [`SolverError::StepBudget`] when an advance that has taken `taken` steps has
/// used up the run's remaining budget ([`Data::step_budget`]).
pub(crate) fn over_budget(data: &Data, state: &State, taken: usize) -> Result<(), SolverError> {
    match data.step_budget {
        Some(budget) if taken >= budget && taken > 0 => Err(SolverError::StepBudget {
            time: state.t,
            steps: taken,
        }),
        _ => Ok(()),
    }
}

/// Moves `state` to the candidate of the last [`dopri_trial`] and finishes the step.
fn dopri_accept(model: &Model, data: &mut Data, state: &mut State, step: f64) -> Result<(), SolverError> {
    state.q.copy_from_slice(&data.err_q);
    state.v.copy_from_slice(&data.err_v);
    state.t += step;
    finish_located_step(model, data, state)
}

/// Adaptive Dormand–Prince 5(4) from `state.t` to `t_end`, starting with step `*h`
/// (updated to the last accepted step size). Returns (accepted, rejected) step counts; the
/// rejected ones include the trial steps that located joint-stop events.
///
/// With joint limits on (see [`Data::set_joint_limits`]), a step that the error control
/// accepts and over which a coordinate reached a stop (or a locked one would be pulled off it)
/// is cut at the event's instant, located by re-stepping from the step's start, the stop's law
/// is applied there and the integration restarts from it, so the error estimate stays valid
/// through impacts.
///
/// With a [`StiffnessTest`], each accepted step (not cut at an event) is tested for
/// stiffness, and the run stops early (at `state.t < t_end`) as soon as the test finds the
/// model stiff, so that the caller can continue with [`crate::advance_rosenbrock`].
#[allow(clippy::too_many_arguments)]
pub fn advance_dopri5(
    model: &Model,
    data: &mut Data,
    state: &mut State,
    t_end: f64,
    h: &mut f64,
    rtol: f64,
    atol: f64,
    mut stiffness: Option<&mut StiffnessTest>,
) -> Result<(usize, usize), SolverError> {
    let (mut accepted, mut rejected) = (0, 0);
    let h_min = 1e-14 * t_end.abs().max(1.0);
    let events = data.joint_limits && !model.limits.is_empty();
    if events {
        stops::begin(model, data, state)?;
    }
    while state.t < t_end - h_min {
        over_budget(data, state, accepted + rejected)?;
        let step = h.min(t_end - state.t);
        // A trial step too long for the model (a stiff spring flinging a link through a
        // singular configuration: a non-positive articulated inertia, a non-finite state) is
        // rejected like one whose error is too large, not the end of the run; the step shrinks
        // until it goes through or underflows.
        let norm = match dopri_trial(model, data, state, step, rtol, atol) {
            Ok(norm) => norm,
            Err(error) => {
                retry_shorter(error, h, step, h_min)?;
                rejected += 1;
                continue;
            }
        };
        if !norm.is_finite() {
            rejected += 1;
            *h = step * 0.2;
            if *h < h_min {
                return Err(SolverError::Diverged {
                    time: state.t,
                    message: "non-finite error estimate".into(),
                });
            }
            continue;
        }
        let factor = if norm == 0.0 {
            5.0
        } else {
            (0.9 * norm.powf(-0.2)).clamp(0.2, 5.0)
        };
        if norm <= 1.0 {
            let mut start = std::mem::take(&mut data.stops.start);
            if events {
                start.clone_from(state);
            }
            let result = dopri_accept(model, data, state, step).and_then(|()| {
                if !events {
                    return Ok(None);
                }
                let mut restep = |model: &Model, data: &mut Data, s: &mut State, dt: f64| {
                    dopri_trial(model, data, s, dt, rtol, atol)?;
                    dopri_accept(model, data, s, dt)
                };
                stops::locate_event(model, data, &start, state, &mut restep)
            });
            data.stops.start = start;
            accepted += 1;
            match result? {
                // Restart from the event with the step that reached it, not longer.
                Some(trials) => rejected += trials,
                None => {
                    if step >= *h * 0.999 || factor < 1.0 {
                        *h = step * factor;
                    }
                    if let Some(test) = stiffness.as_deref_mut() {
                        let quotient = dopri_quotient(step, &data.k_q, &data.k_v, DP_A[5], DP_A[6]);
                        test.observe(quotient, state.t, data.evaluations);
                        if test.is_stiff() {
                            return Ok((accepted, rejected));
                        }
                    }
                }
            }
        } else {
            rejected += 1;
            shrink_step(h, step * factor, h_min, state.t)?;
        }
    }
    if events {
        stops::retime(data, state.t, t_end);
    }
    state.t = t_end;
    Ok((accepted, rejected))
}
