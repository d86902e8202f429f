//! Joint stops: a coordinate's position limits as perfectly inelastic stops.
//!
//! With limits on, each limited coordinate is either free or locked on one of its stops. The
//! events are located in time by the adaptive integrators ([`locate_event`]):
//!
//! * a free coordinate reaches a stop: its event function is the distance to the nearer stop,
//!   `min(q − lower, upper − q)`, which turns negative. At the instant of impact the coordinate
//!   is put on the stop and locked, and a momentum-consistent impulse `Δv = M⁻¹ [J; E]ᵀ λ`
//!   removes the velocity of every locked coordinate (and keeps the loop rows' velocities):
//!   the other coordinates change as the impulse makes them (see [`impulse`]);
//! * a locked coordinate is released when the constraint force that holds it on its stop would
//!   pull it away: its event function is the force pressing it into the stop plus
//!   [`RELEASE_FORCE`], which turns negative when the stop pulls by more than that rounding
//!   floor. A coordinate whose two stops are at one position (`lower == upper`) is held
//!   both ways and never released.
//!
//! While locked, a coordinate is a constraint row `E v̇ = 0` of the Lagrange-multiplier solve
//! ([`crate::projection::constrained_accelerations`]), so it stays on its stop exactly with
//! zero velocity and acceleration: no tiny steps bounce on it. After each event the active set
//! is settled ([`settle`]): an impulse or a force that would pull a locked coordinate off its
//! stop releases it.
//!
//! The fixed-step schemes, which reproduce DART's and MuJoCo's steps, do not locate events:
//! after a step a coordinate past a stop is put back on it and the same impulse removes its
//! velocity into the stop ([`clamp_after_step`]).

use crate::constraints::{fill_jacobian, world_columns};
use crate::data::{Data, State};
use crate::error::SolverError;
use crate::integrate::accelerations;
use crate::model::Model;
use crate::projection::{forget_columns, row_times, solve_rows_reusing};

/// A coordinate locked on one of its stops.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Lock {
    /// Index in `Model::limits`.
    pub limit: usize,
    /// Position coordinate.
    pub q: usize,
    /// Velocity coordinate.
    pub v: usize,
    /// The stop's position.
    pub bound: f64,
    /// `+1` on the lower stop, `−1` on the upper one: the direction the stop pushes.
    pub side: f64,
    /// The generalised constraint force of the last acceleration solve (positive along `+q`).
    pub force: f64,
    /// The tree node whose joint the coordinate belongs to.
    pub node: usize,
    /// Held by the articulated-body algorithm itself (a one-dof joint made rigid, in a model
    /// without loop rows) rather than by a row of the multiplier solve.
    pub aba: bool,
    /// Locked at the very start of a step while on its stop (it touched the stop with a
    /// velocity the step could not resolve): the impulse at this instant does not release it.
    pub sticky: bool,
    /// Both stops at one position (`lower == upper`, a joint locked by its limits): the stop
    /// holds the coordinate both ways, whatever side it was locked on, and never releases it.
    pub two_sided: bool,
}

impl Lock {
    /// The force pressing the coordinate into its stop (negative: the stop would pull); a
    /// two-sided stop is pressed whichever way it holds.
    fn pressing(&self) -> f64 {
        if self.two_sided {
            return f64::MAX;
        }
        self.side * self.force
    }
}

/// One step of a scheme without error control: advances the state by the given time and
/// finishes it as the scheme's accepted steps are finished (see [`locate_event`]).
pub(crate) type StepFn<'a> = dyn FnMut(&Model, &mut Data, &mut State, f64) -> Result<(), SolverError> + 'a;

/// Time tolerance of event location, relative to `max(1, |t|)` (s).
pub(crate) const EVENT_TIME_TOLERANCE: f64 = 1e-12;
/// The speed (m/s or rad/s) below which a coordinate on its stop and pressed into it is held
/// at rest rather than let hop off and back: zeroing it moves the coordinate by at most
/// `STICK_SPEED² / 2a` (1e-15 m at a = 5 m/s²).
const STICK_SPEED: f64 = 1e-7;
/// The hop (m or rad) of a coordinate kicked off its stop below which it is held on the stop
/// rather than followed off and back.
const HOP_HEIGHT: f64 = 1e-14;
/// The pull (N or N m) a stop must exert on its locked coordinate before it releases it. The
/// holding force passes through zero when a coordinate is to leave its stop, and there it is
/// rounding, as is the coordinate's free acceleration: their signs may disagree, and a
/// coordinate released at a pull of 1e-19 N m may still be pushed into its stop, met again at
/// once and released again, without end (Choreonoid's RIC30, both knees at 0.0865 s). Past this
/// pull the free acceleration leaves the stop on every model (it is the pull over the joint's
/// effective inertia); releasing that much later moves the coordinate by less than
/// `RELEASE_FORCE t² / 2M` over the time `t` the force takes to grow by it.
const RELEASE_FORCE: f64 = 1e-9;
/// Trial steps allowed to locate one event.
const EVENT_ITERATIONS: usize = 100;
/// Events allowed at one instant before the stops are declared to chatter.
const EVENTS_AT_ONE_INSTANT: usize = 64;

/// The stops' part of the workspace: the active set, the event functions' values and the
/// buffers of event location (sized once).
#[derive(Clone, Debug)]
pub(crate) struct Stops {
    /// The locked coordinates (capacity: one per limit).
    pub locked: Vec<Lock>,
    /// Impacts so far (a coordinate reaching a stop it was not on).
    pub impacts: usize,
    /// Releases so far (a locked coordinate leaving its stop).
    pub releases: usize,
    /// Whether the ABA holds the locks it can (off while an impulse is solved, which needs the
    /// factorisation of the whole tree).
    aba_on: bool,
    /// Per tree node: its joint is locked inside the ABA.
    node_locked: Vec<bool>,
    /// Per tree node: the holding force the ABA computed for its locked joint.
    pub node_force: Vec<f64>,
    /// Scratch: the velocity coordinates locked by rows of the multiplier solve.
    pub unit_rows: Vec<usize>,
    /// Event functions at the state the integrator stands on, valid when `now_t` is its time.
    now: Vec<f64>,
    now_t: f64,
    /// Events handled at `instant_t` in a row (chattering guard).
    instant: usize,
    instant_t: f64,
    pub(crate) start: State,
    trial: State,
    lower_g: Vec<f64>,
    upper_g: Vec<f64>,
    trial_g: Vec<f64>,
    dv: Vec<f64>,
}

impl Stops {
    pub(crate) fn new(model: &Model) -> Self {
        let n = model.limits.len();
        let state = State {
            t: 0.0,
            q: vec![0.0; model.nq],
            v: vec![0.0; model.nv],
        };
        Self {
            locked: Vec::with_capacity(n),
            impacts: 0,
            releases: 0,
            aba_on: true,
            node_locked: vec![false; model.nodes.len()],
            node_force: vec![0.0; model.nodes.len()],
            unit_rows: Vec::with_capacity(n),
            now: vec![0.0; n],
            now_t: f64::NAN,
            instant: 0,
            instant_t: f64::NAN,
            start: state.clone(),
            trial: state,
            lower_g: vec![0.0; n],
            upper_g: vec![0.0; n],
            trial_g: vec![0.0; n],
            dv: vec![0.0; model.nv],
        }
    }

    /// Forgets the active set and the cached event values (limits switched on or off).
    pub(crate) fn clear(&mut self) {
        self.locked.clear();
        self.node_locked.fill(false);
        self.now_t = f64::NAN;
        self.instant = 0;
        self.instant_t = f64::NAN;
    }

    fn lock_of(&self, limit: usize) -> Option<&Lock> {
        self.locked.iter().find(|l| l.limit == limit)
    }

    /// Whether the ABA holds tree node `node` rigid (its one coordinate is locked).
    pub(crate) fn locked_in_aba(&self, node: usize) -> bool {
        self.aba_on && self.node_locked[node]
    }

    /// The velocity coordinates of the locks the multiplier solve holds, in lock order.
    pub(crate) fn row_locks(&self, out: &mut Vec<usize>) {
        out.clear();
        out.extend(
            self.locked
                .iter()
                .filter(|l| !(self.aba_on && l.aba))
                .map(|l| l.v),
        );
    }

    /// Reads every lock's holding force after an acceleration solve: from the ABA, or the
    /// multiplier of its row (`row(j)` for the `j`-th lock of [`Self::row_locks`]).
    pub(crate) fn read_forces(&mut self, row: impl Fn(usize) -> f64) {
        let mut j = 0;
        for lock in self.locked.iter_mut() {
            if self.aba_on && lock.aba {
                lock.force = self.node_force[lock.node];
            } else {
                lock.force = row(j);
                j += 1;
            }
        }
    }

    /// Unlocks the `k`-th lock.
    fn unlock(&mut self, k: usize) {
        let lock = self.locked.remove(k);
        self.node_locked[lock.node] = false;
    }
}

/// Puts every locked coordinate exactly on its stop at rest (after a step or a projection).
pub(crate) fn hold_locked(data: &Data, state: &mut State) {
    for lock in &data.stops.locked {
        state.q[lock.q] = lock.bound;
        state.v[lock.v] = 0.0;
    }
}

/// The event functions at `state` into `g` (one per limit): the distance to the nearer stop for
/// a free coordinate, the force pressing a locked one into its stop plus [`RELEASE_FORCE`].
/// Evaluates the dynamics when a coordinate is locked.
fn event_values(model: &Model, data: &mut Data, state: &State, g: &mut [f64]) -> Result<(), SolverError> {
    if !data.stops.locked.is_empty() {
        accelerations(model, data, state.t, &state.q, &state.v)?;
    }
    for (i, l) in model.limits.iter().enumerate() {
        g[i] = match data.stops.lock_of(i) {
            Some(lock) => lock.pressing() + RELEASE_FORCE,
            None => (state.q[l.q] - l.lower).min(l.upper - state.q[l.q]),
        };
    }
    Ok(())
}

/// The event that happens first between two states whose event values are `a` and `b`
/// (linear interpolation of each crossing), if any crossed.
fn first_crossing(a: &[f64], b: &[f64]) -> Option<usize> {
    let mut best: Option<(usize, f64)> = None;
    for (i, (ga, gb)) in a.iter().zip(b).enumerate() {
        if *ga >= 0.0 && *gb < 0.0 {
            let s = ga / (ga - gb);
            if best.is_none_or(|(_, t)| s < t) {
                best = Some((i, s));
            }
        }
    }
    best.map(|(i, _)| i)
}

/// Makes the active set consistent at `state` before an adaptive integration starts from it:
/// a coordinate on or past a stop is put on it and locked, then [`settle`]. Does nothing when
/// the event values are already known at `state.t`.
pub(crate) fn begin(model: &Model, data: &mut Data, state: &mut State) -> Result<(), SolverError> {
    if !data.joint_limits || model.limits.is_empty() || data.stops.now_t == state.t {
        return Ok(());
    }
    for (i, l) in model.limits.iter().enumerate() {
        if data.stops.lock_of(i).is_some() {
            continue;
        }
        let q = state.q[l.q];
        if q <= l.lower || q >= l.upper {
            lock(model, data, state, i, q <= l.lower);
        }
    }
    settle(model, data, state)?;
    let mut now = std::mem::take(&mut data.stops.now);
    event_values(model, data, state, &mut now)?;
    data.stops.now = now;
    data.stops.now_t = state.t;
    Ok(())
}

/// Tells the stops that the integrator's time was set from `from` to `to` without moving the
/// state (the end of an output interval rounded onto it).
pub(crate) fn retime(data: &mut Data, from: f64, to: f64) {
    if data.stops.now_t == from {
        data.stops.now_t = to;
    }
}

/// Locks limit `i` on its lower (`lower`) or upper stop and puts the coordinate on it.
fn lock(model: &Model, data: &mut Data, state: &mut State, i: usize, lower: bool) {
    let l = &model.limits[i];
    let (bound, side) = if lower { (l.lower, 1.0) } else { (l.upper, -1.0) };
    state.q[l.q] = bound;
    let node = model
        .nodes
        .iter()
        .position(|n| (n.v_index..n.v_index + n.joint.nv()).contains(&l.v))
        .unwrap_or(0);
    let aba = !model.has_constraints() && model.nodes[node].joint.nv() == 1;
    data.stops.node_locked[node] = aba;
    data.stops.locked.push(Lock {
        limit: i,
        q: l.q,
        v: l.v,
        bound,
        side,
        force: 0.0,
        node,
        aba,
        sticky: false,
        two_sided: l.lower == l.upper,
    });
}

/// Event location, generic over the stepping scheme.
///
/// Call it after a step from `start` to `end` that the error control accepted (`end`
/// renormalised and projected, locked coordinates held: what `finish_located_step` leaves). `step`
/// advances a state by a given time with the same scheme and no error control (a shorter step
/// than the accepted one, so at least as accurate), and finishes it the same way.
///
/// When no event function changed sign over the step, returns `Ok(None)` and `end` is
/// untouched. Otherwise the first event's instant is found by the Illinois variant of regula
/// falsi on the step length (re-stepping from `start`), to [`EVENT_TIME_TOLERANCE`]; `end`
/// becomes the state just past it (the side where the event has happened), the stop's law is
/// applied there (impact: the coordinate is put on its stop, locked and the impulse applied;
/// release: it is unlocked) and the active set settled. Returns the number of trial steps the
/// location took. The caller continues from `end`.
pub(crate) fn locate_event(
    model: &Model,
    data: &mut Data,
    start: &State,
    end: &mut State,
    step: &mut StepFn<'_>,
) -> Result<Option<usize>, SolverError> {
    if !data.joint_limits || model.limits.is_empty() {
        return Ok(None);
    }
    let mut ga = std::mem::take(&mut data.stops.lower_g);
    let mut gb = std::mem::take(&mut data.stops.upper_g);
    let mut gc = std::mem::take(&mut data.stops.trial_g);
    let mut trial = std::mem::take(&mut data.stops.trial);
    let result = locate(
        model,
        data,
        start,
        end,
        step,
        [&mut ga, &mut gb, &mut gc],
        &mut trial,
    );
    data.stops.lower_g = ga;
    data.stops.upper_g = gb;
    data.stops.trial_g = gc;
    data.stops.trial = trial;
    result
}

fn locate(
    model: &Model,
    data: &mut Data,
    start: &State,
    end: &mut State,
    step: &mut StepFn<'_>,
    [ga, gb, gc]: [&mut Vec<f64>; 3],
    trial: &mut State,
) -> Result<Option<usize>, SolverError> {
    if data.stops.now_t == start.t {
        ga.copy_from_slice(&data.stops.now);
    } else {
        event_values(model, data, start, ga)?;
    }
    event_values(model, data, end, gb)?;
    hold_grazing(model, data, ga, end, gb);
    let Some(mut event) = first_crossing(ga, gb) else {
        data.stops.now.copy_from_slice(gb);
        data.stops.now_t = end.t;
        return Ok(None);
    };
    let tolerance = EVENT_TIME_TOLERANCE * start.t.abs().max(1.0);
    let (mut a, mut b) = (0.0, end.t - start.t);
    let (mut fa, mut fb) = (ga[event], gb[event]);
    let mut trials = 0;
    // Which end the last iteration kept (Illinois: halve the value of an end kept twice).
    let mut kept = 0i8;
    // On its stop at the start with the event function turning negative over the step: a
    // locked coordinate whose holding force just vanished, or a free one that left its stop
    // (kicked off by an impulse elsewhere) and falls back within the step. With `u` its speed
    // away and `−k` its acceleration (from `g(h) = u h − k h²/2`), it hops `u²/2k` high for
    // `2u/k`: a hop lower than `HOP_HEIGHT` (or slower than `STICK_SPEED`) is not followed,
    // the coordinate rests from the start; a higher one is, from its apex.
    let mut guess = None;
    let at_start = fa == 0.0
        && (data.stops.lock_of(event).is_some() || {
            let l = &model.limits[event];
            let away = if start.q[l.q] <= l.lower {
                start.v[l.v]
            } else {
                -start.v[l.v]
            };
            let k = 2.0 * (away * b - fb) / (b * b);
            let low = k > 0.0 && away * away / (2.0 * k) <= HOP_HEIGHT;
            if !low && k > 0.0 && away > 0.0 {
                guess = Some(away / k);
            }
            away <= STICK_SPEED || low
        });
    if at_start {
        b = 0.0;
        end.clone_from(start);
        gb.copy_from_slice(ga);
        gb[event] = -f64::MIN_POSITIVE;
    }
    while b - a > tolerance && trials < EVENT_ITERATIONS {
        let margin = 0.25 * tolerance;
        let mut c = match guess.take() {
            Some(apex) => apex,
            None if fa == 0.0 => 0.5 * (a + b),
            None => (a * fb - b * fa) / (fb - fa),
        };
        if !c.is_finite() {
            c = 0.5 * (a + b);
        }
        // Regula falsi converges to one end: step just inside it so that the bracket closes.
        c = c.clamp(a + margin, b - margin);
        trial.clone_from(start);
        step(model, data, trial, c)?;
        trials += 1;
        event_values(model, data, trial, gc)?;
        hold_grazing(model, data, ga, trial, gc);
        if let Some(first) = first_crossing(ga, gc) {
            // Some event happened by c: the bracket's end moves to c.
            b = c;
            gb.copy_from_slice(gc);
            end.clone_from(trial);
            if first != event {
                event = first;
                fa = ga[event];
            } else if kept == -1 {
                fa *= 0.5;
            }
            fb = gb[event];
            kept = -1;
        } else {
            a = c;
            ga.copy_from_slice(gc);
            fa = ga[event];
            if kept == 1 {
                fb *= 0.5;
            }
            kept = 1;
        }
    }
    // Every event whose function crossed over the final bracket happens now.
    let mut any = false;
    for (i, l) in model.limits.iter().enumerate() {
        if !(ga[i] >= 0.0 && gb[i] < 0.0) {
            continue;
        }
        any = true;
        if let Some(k) = data.stops.locked.iter().position(|lock| lock.limit == i) {
            data.stops.unlock(k);
            data.stops.releases += 1;
        } else {
            let q = end.q[l.q];
            lock(model, data, end, i, (q - l.lower).abs() <= (l.upper - q).abs());
            data.stops.impacts += 1;
            if at_start {
                // On its stop, pressed into it, with at most `STICK_SPEED` away (left by an
                // impulse elsewhere): it rests.
                end.v[l.v] = 0.0;
                if let Some(lock) = data.stops.locked.last_mut() {
                    lock.sticky = true;
                }
            }
        }
    }
    debug_assert!(any);
    if data.stops.instant_t == end.t {
        data.stops.instant += 1;
        if data.stops.instant > EVENTS_AT_ONE_INSTANT + 4 * model.limits.len() {
            return Err(SolverError::Diverged {
                time: end.t,
                message: crate::error::STOPS_CHATTER.into(),
            });
        }
    } else {
        data.stops.instant = 1;
        data.stops.instant_t = end.t;
    }
    settle(model, data, end)?;
    let mut now = std::mem::take(&mut data.stops.now);
    event_values(model, data, end, &mut now)?;
    data.stops.now = now;
    data.stops.now_t = end.t;
    Ok(Some(trials))
}

/// Holds on its stop a free coordinate that a step took past it by no more than `HOP_HEIGHT`
/// with no more than `STICK_SPEED` into it (`ga` and `g` its event values before and after the
/// step that ends at `state`): the coordinate is put back on the stop and its speed into it
/// removed, and its event value is zero, so that it crosses nothing. Such a dip is rounding:
/// a coordinate resting on its stop, free because the stop would pull it, whose motion the
/// rest of a closed loop decides (the Robotiq 2F-85 gripper's finger tips on a Universal Robots
/// arm dipped 1e-20 rad into their stops, were locked at once and released again at t = 0
/// without end). A coordinate arriving at its stop dips deeper or faster and is an impact.
fn hold_grazing(model: &Model, data: &Data, ga: &[f64], state: &mut State, g: &mut [f64]) {
    for (i, l) in model.limits.iter().enumerate() {
        if !(ga[i] >= 0.0 && g[i] < 0.0 && g[i] >= -HOP_HEIGHT) || data.stops.lock_of(i).is_some() {
            continue;
        }
        let q = state.q[l.q];
        let (bound, into) = if (q - l.lower).abs() <= (l.upper - q).abs() {
            (l.lower, -state.v[l.v])
        } else {
            (l.upper, state.v[l.v])
        };
        if into <= STICK_SPEED {
            state.q[l.q] = bound;
            if into > 0.0 {
                state.v[l.v] = 0.0;
            }
            g[i] = 0.0;
        }
    }
}

/// Settles the active set at `state` after an event: the impulse takes the velocity of every
/// locked coordinate to zero ([`impulse`]); then, until nothing changes, a locked coordinate
/// whose holding force would pull it off its stop by more than [`RELEASE_FORCE`] is released
/// (the most negative first), and a free coordinate on its stop at rest (within `STICK_SPEED`)
/// that the dynamics accelerate into it is locked.
pub(crate) fn settle(model: &Model, data: &mut Data, state: &mut State) -> Result<(), SolverError> {
    impulse(model, data, state)?;
    // A coordinate released here is not locked again here. At rest on its stop with no force
    // either way (balanced, or held by the rest of the tree), the free acceleration and the
    // holding force are both rounding, and their signs may disagree: locked and released in
    // turn, it would be left as the count of passes falls, and the motion after it would hang
    // on its last bits. Released, it moves off its stop or comes back to it as an event.
    let mut released = vec![false; model.limits.len()];
    for _ in 0..=2 * model.limits.len() + 2 {
        accelerations(model, data, state.t, &state.q, &state.v)?;
        let worst = data
            .stops
            .locked
            .iter()
            .enumerate()
            .min_by(|(_, a), (_, b)| a.pressing().total_cmp(&b.pressing()))
            .map(|(k, l)| (k, l.pressing()));
        if let Some((k, pressing)) = worst
            && pressing < -RELEASE_FORCE
        {
            released[data.stops.locked[k].limit] = true;
            data.stops.unlock(k);
            continue;
        }
        let mut joined = false;
        for (i, l) in model.limits.iter().enumerate() {
            let (q, v, a) = (state.q[l.q], state.v[l.v], data.qdd[l.v]);
            if data.stops.lock_of(i).is_none()
                && !released[i]
                && v.abs() <= STICK_SPEED
                && ((q == l.lower && a < 0.0) || (q == l.upper && a > 0.0))
            {
                lock(model, data, state, i, q == l.lower);
                state.v[l.v] = 0.0;
                joined = true;
            }
        }
        if !joined {
            break;
        }
    }
    Ok(())
}

/// The inelastic impact: the smallest change of kinetic energy that brings every locked
/// coordinate to rest and keeps the loop rows' velocities, `Δv = M⁻¹ [J; E]ᵀ λ` with
/// `J (v + Δv) = w(t)` and `E (v + Δv) = 0`, solved as a complementarity problem by pivoting:
/// a locked coordinate whose impulse would pull it off its stop is released (unless it would
/// leave at no more than `STICK_SPEED`: then it stays, at rest), and a free coordinate on its
/// stop that the impulse drives into it is locked; the impulse is solved again until neither
/// happens.
pub(crate) fn impulse(model: &Model, data: &mut Data, state: &mut State) -> Result<(), SolverError> {
    data.stops.aba_on = false;
    let result = solve_impulse(model, data, state);
    data.stops.aba_on = true;
    data.stops.locked.iter_mut().for_each(|lock| lock.sticky = false);
    result?;
    hold_locked(data, state);
    Ok(())
}

fn solve_impulse(model: &Model, data: &mut Data, state: &mut State) -> Result<(), SolverError> {
    let m = model.constraints.rows.len();
    if data.stops.locked.is_empty() {
        return Ok(());
    }
    // The ABA factorisation of M at q (no joint held rigid), and the loop Jacobian.
    accelerations(model, data, state.t, &state.q, &state.v)?;
    if m > 0 {
        world_columns(model, &data.world, &data.joint, &mut data.s_world);
        fill_jacobian(model, &data.world, &data.s_world, &mut data.col, &mut data.jac);
    }
    // Every iteration below solves with this factorisation and Jacobian.
    forget_columns(data);
    let mut dv = std::mem::take(&mut data.stops.dv);
    // A lock removed on trial: its limit and side.
    let mut trial: Option<(usize, bool)> = None;
    for _ in 0..=4 * model.limits.len() + 4 {
        for (r, row) in model.constraints.rows.iter().enumerate() {
            let jv = row_times(&data.jac, r, &state.v);
            data.rhs[r] = row.velocity_target(state.t) - jv;
        }
        let mut units = std::mem::take(&mut data.stops.unit_rows);
        data.stops.row_locks(&mut units);
        for (j, c) in units.iter().enumerate() {
            data.rhs[m + j] = -state.v[*c];
        }
        dv.fill(0.0);
        solve_rows_reusing(model, data, &units, &mut dv);
        data.stops.unit_rows = units;
        if let Some((i, lower)) = trial.take() {
            let l = &model.limits[i];
            let leaving = if lower { 1.0 } else { -1.0 } * (state.v[l.v] + dv[l.v]);
            if leaving <= STICK_SPEED {
                lock(model, data, state, i, lower);
                if let Some(lock) = data.stops.locked.last_mut() {
                    lock.sticky = true;
                }
                continue;
            }
        }
        let pulled = data
            .stops
            .locked
            .iter()
            .enumerate()
            .filter(|(_, lock)| !lock.sticky && !lock.two_sided)
            .map(|(j, lock)| (j, lock.side * data.lambda[m + j]))
            .min_by(|a, b| a.1.total_cmp(&b.1));
        if let Some((j, pressing)) = pulled
            && pressing < 0.0
        {
            let lock = data.stops.locked[j];
            data.stops.unlock(j);
            trial = Some((lock.limit, lock.side > 0.0));
            continue;
        }
        for (v, d) in state.v.iter_mut().zip(&dv) {
            *v += d;
        }
        hold_locked(data, state);
        // Free coordinates on a stop that the impulse drives into it join.
        let mut joined = false;
        for (i, l) in model.limits.iter().enumerate() {
            let (q, v) = (state.q[l.q], state.v[l.v]);
            if data.stops.lock_of(i).is_none() && ((q == l.lower && v < 0.0) || (q == l.upper && v > 0.0)) {
                lock(model, data, state, i, q == l.lower);
                joined = true;
            }
        }
        if !joined {
            break;
        }
    }
    data.stops.dv = dv;
    Ok(())
}

/// The fixed-step schemes' stops: after a step, a coordinate past a stop is put back on it,
/// and the impulse removes the velocity into the stops of the coordinates on them.
pub(crate) fn clamp_after_step(model: &Model, data: &mut Data, state: &mut State) -> Result<(), SolverError> {
    if !data.joint_limits {
        return Ok(());
    }
    data.stops.clear();
    for (i, l) in model.limits.iter().enumerate() {
        let (q, v) = (state.q[l.q], state.v[l.v]);
        if q < l.lower {
            state.q[l.q] = l.lower;
            if v < 0.0 {
                lock(model, data, state, i, true);
            }
        } else if q > l.upper {
            state.q[l.q] = l.upper;
            if v > 0.0 {
                lock(model, data, state, i, false);
            }
        }
    }
    let result = impulse(model, data, state);
    data.stops.clear();
    result
}
