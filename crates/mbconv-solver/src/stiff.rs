//! Stiff models: the linearly implicit Rosenbrock method Rodas4 with its embedded error
//! estimate, integrated in the tangent space of the state (quaternions stay on their sphere),
//! and Hairer's stiffness test that lets Dormand–Prince hand a run over to it.
//!
//! Rodas4 (Hairer & Wanner, *Solving ODEs II*, §IV.7) is L-stable and stiffly accurate, of
//! order 4 with an embedded order-3 solution; its six stages share one LU factorisation of
//! `I/(hγ) − J`. The state `(q, v)` lives on a manifold when ball or free joints hold
//! quaternions (`nq ≠ nv`), so each step works in the chart `q = q₀ ⊕ δq`, `v = v₀ + δv`
//! around the step's start, `δ ∈ ℝ^{2nv}`, where `⊕` is each joint's own position update
//! ([`crate::joint::JointModel::integrate`] with `dt = 1`: the exponential map for rotations).
//! In the chart the equations of motion read `δq̇ = dexp⁻¹(δq)·v`, `δv̇ = a(q₀ ⊕ δq, v₀ + δv)`
//! with `a` the full forward dynamics ([`crate::accelerations`]: force elements, springs,
//! dampers, friction and constraints), and the Jacobian `∂δ̇/∂δ` at `δ = 0` is taken by
//! forward differences.
//!
//! The Jacobian is block-diagonal over the model's coupled components (trees and what ties
//! them, [`crate::coupling`]): a forward difference perturbs one column of every component at
//! once, so a Jacobian costs `2·m + 1` evaluations of the dynamics for a largest component of
//! `m` velocity coordinates (the last evaluation for `∂/∂t`), and each component's block of the
//! iteration matrix is factorised on its own. A model that is one tree is one block, computed
//! exactly as a dense Jacobian would be; 64 free particles beside a robot arm cost what the arm
//! costs.

// Numeric kernels index several arrays with the same coordinate index.
#![allow(clippy::needless_range_loop)]

use crate::coupling::Components;
use crate::data::{Data, State};
use crate::dynamics::normalize;
use crate::error::SolverError;
use crate::integrate::{accelerations, finish_located_step, over_budget};
use crate::joint::{JointModel, RotationPart};
use crate::model::Model;
use crate::stops;
use nalgebra::{DMatrix, DVector, Dyn, LU, UnitQuaternion, Vector3};

/// Rodas4's diagonal `γ`.
const GAMMA: f64 = 0.25;
/// The stage times `αᵢ` (stage `i` is evaluated at `t + αᵢ h`).
const ALPHA: [f64; 6] = [0.0, 0.386, 0.21, 0.63, 1.0, 1.0];
/// `γᵢ = Σⱼ γᵢⱼ`, the weights of `∂f/∂t` in the stages.
const GAMMA_SUM: [f64; 6] = [0.25, -0.1043, 0.1035, -0.0362, 0.0, 0.0];
/// The stage points `Yᵢ = Y₀ + Σⱼ aᵢⱼ Kⱼ` (rows 5 and 6 are the embedded and the final
/// solution: the method is stiffly accurate).
const A: [&[f64]; 6] = [
    &[],
    &[1.544],
    &[0.946_678_528_081_582_6, 0.255_701_169_898_328_4],
    &[
        3.314_825_187_068_521,
        2.896_124_015_972_201,
        0.998_641_913_997_781_7,
    ],
    &[
        1.221_224_509_226_641,
        6.019_134_481_288_629,
        12.537_083_329_320_87,
        -0.687_886_036_105_895,
    ],
    &[
        1.221_224_509_226_641,
        6.019_134_481_288_629,
        12.537_083_329_320_87,
        -0.687_886_036_105_895,
        1.0,
    ],
];
/// The stage right-hand sides `f(Yᵢ) + Σⱼ (cᵢⱼ/h) Kⱼ + h γᵢ ∂f/∂t`.
const C: [&[f64]; 6] = [
    &[],
    &[-5.6688],
    &[-2.430_093_356_833_875, -0.206_359_915_709_191_5],
    &[
        -0.107_352_905_815_137_5,
        -9.594_562_251_023_355,
        -20.470_286_148_096_16,
    ],
    &[
        7.496_443_313_967_647,
        -10.246_804_314_643_52,
        -33.999_903_528_199_05,
        11.708_908_932_061_6,
    ],
    &[
        8.083_246_795_921_522,
        -7.981_132_988_064_893,
        -31.521_594_328_743_71,
        16.319_305_431_231_36,
        -6.058_818_238_834_054,
    ],
];
/// The stiffness test's threshold on `h·‖f(y₇) − f(y₆)‖ / ‖y₇ − y₆‖`, an estimate of `h·|λ|`
/// for the dominant eigenvalue `λ`. Dormand–Prince's stability boundary is about 3.3 on the
/// negative real axis and Hairer's `dopri5.f` tests 3.25; a stiff transient restarted at every
/// step (a coordinate put back on its stop after each step) holds the steps just below the
/// boundary (3.09 on the Allegro hand), so the test takes 2.5. Accuracy alone never lets a step
/// that long through: at `h·|λ| = 2.5` a mode the step must follow has a local error of order
/// `(h·|λ|)⁵/5! ≈ 1`.
pub const STIFFNESS_QUOTIENT: f64 = 2.5;
/// Accepted steps above [`STIFFNESS_QUOTIENT`] (without six non-stiff steps in a row between
/// them) that make a model stiff.
pub const STIFF_STEPS: usize = 15;
/// Non-stiff accepted steps in a row that reset the count of stiff ones.
const NON_STIFF_RESET: usize = 6;

/// Accepted steps the stiff scheme takes after a switch before its work per simulated second
/// is compared with what Dormand–Prince spent over the steps that made the run stiff.
pub const STIFF_TRIAL_STEPS: usize = 15;

/// Hairer's stiffness test for Dormand–Prince 5(4) (as in `dopri5.f`): after each accepted
/// step, `h·|λ| ≈ h·‖k₇ − k₆‖ / ‖y₇ − y₆‖` (the last two stages are both at `t + h`) estimates
/// the step's position on the dominant eigenvalue's ray; a step near the stability boundary
/// (above [`STIFFNESS_QUOTIENT`]) is limited by stability, not accuracy. [`STIFF_STEPS`] such
/// steps make the run stiff. The test also measures what those steps cost: evaluations of the
/// dynamics per simulated second from the streak's first stiff step to its last
/// ([`StiffnessTest::explicit_rate`]), the figure the stiff scheme has to beat.
///
/// ```
/// let mut test = mbconv_solver::StiffnessTest::default();
/// for k in 0..mbconv_solver::STIFF_STEPS {
///     // Steps of 1 ms, six evaluations each.
///     test.observe(3.1, 1e-3 * (k + 1) as f64, 6 * (k + 1));
/// }
/// assert!(test.is_stiff());
/// let rate = test.explicit_rate();
/// assert!((rate - 6000.0).abs() < 1e-6, "{rate}");
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct StiffnessTest {
    stiff_steps: usize,
    non_stiff_steps: usize,
    stiff: bool,
    /// Stiff steps that make the run stiff: [`STIFF_STEPS`], more after the stiff scheme
    /// did not pay ([`StiffnessTest::needing`]).
    needed: usize,
    /// Time and evaluations of the dynamics at the end of the streak's first stiff step.
    streak_start: (f64, usize),
    /// Evaluations per simulated second over the streak, once it made the run stiff.
    explicit_rate: f64,
}

impl Default for StiffnessTest {
    fn default() -> Self {
        Self::needing(STIFF_STEPS)
    }
}

impl StiffnessTest {
    /// A test that takes `needed` stiff steps (at least two) to call the run stiff.
    pub fn needing(needed: usize) -> Self {
        Self {
            stiff_steps: 0,
            non_stiff_steps: 0,
            stiff: false,
            needed: needed.max(2),
            streak_start: (0.0, 0),
            explicit_rate: f64::INFINITY,
        }
    }

    /// Counts one accepted step whose estimated `h·|λ|` is `quotient`, ending at time `t` after
    /// `evaluations` evaluations of the dynamics since the run began.
    pub fn observe(&mut self, quotient: f64, t: f64, evaluations: usize) {
        if quotient > STIFFNESS_QUOTIENT {
            self.non_stiff_steps = 0;
            self.stiff_steps += 1;
            if self.stiff_steps == 1 {
                self.streak_start = (t, evaluations);
            }
            if self.stiff_steps >= self.needed {
                self.stiff = true;
                let (t0, e0) = self.streak_start;
                if t > t0 {
                    self.explicit_rate = evaluations.saturating_sub(e0) as f64 / (t - t0);
                }
            }
        } else {
            self.non_stiff_steps += 1;
            if self.non_stiff_steps >= NON_STIFF_RESET {
                self.stiff_steps = 0;
            }
        }
    }

    /// Whether the steps seen so far were limited by stability.
    pub fn is_stiff(&self) -> bool {
        self.stiff
    }

    /// The stiff steps this test takes to call the run stiff.
    pub fn needed(&self) -> usize {
        self.needed
    }

    /// Dormand–Prince's evaluations of the dynamics per simulated second over the stiff
    /// streak; infinite until the run is stiff.
    pub fn explicit_rate(&self) -> f64 {
        self.explicit_rate
    }
}

/// How many times less work per simulated second, counted in evaluations of the dynamics,
/// Rodas4 has to do than Dormand–Prince to keep a run: a Rodas4 step also factorises its
/// iteration matrix (`(2m)³/3` flops for a tree of `m` coordinates) and solves six stages with
/// it, work the count leaves out. Measured on Talos (Dopri5 at 1e-12: 13 s alone, 24 s when
/// Rodas4 kept the spans it won by evaluations alone), the left-out work is about as large as
/// the counted one.
pub const STIFF_ADVANTAGE: f64 = 2.0;

/// Accepted steps the stiff scheme keeps a run after winning its first trial before
/// Dormand–Prince is tried again (doubled at every such probe).
pub const STIFF_SPAN_STEPS: usize = 8 * STIFF_TRIAL_STEPS;

/// Which scheme an error-controlled run uses from one sample interval to the next:
/// Dormand–Prince until its [`StiffnessTest`] finds the steps limited by stability, then
/// Rodas4 on trial. After [`STIFF_TRIAL_STEPS`] accepted Rodas4 steps (counted at the end of a
/// sample interval) the two are compared by their work per simulated second, counted in
/// evaluations of the dynamics (a Rodas4 step costs `2·m + 2` of them for its Jacobian and
/// five for its stages, a Dormand–Prince step six; the Rodas4 factorisations are not counted,
/// which favours the stiff scheme). If Rodas4 did more work, the run goes back to
/// Dormand–Prince with a test that needs twice as many stiff steps. If it did less, it keeps
/// the run for [`STIFF_SPAN_STEPS`] accepted steps (twice as many after each such span), then
/// Dormand–Prince is probed again with a fresh test: a model stiff only for a while (fingers
/// pressed on their stops) gets the explicit scheme back, and a stiff one pays a few explicit
/// steps per span. So a mildly stiff model (steps at Dormand–Prince's stability limit, yet
/// cheap beside the Jacobian of a large tree: the Talos and Alex robots) keeps the explicit
/// scheme, and a stiff one (the Allegro hand's dampers on 1e-6 kg m² fingers) the implicit one.
/// Every choice depends on counts, not on clocks: the same run gives the same bits.
#[derive(Clone, Debug, Default)]
pub(crate) struct SchemeChoice {
    test: StiffnessTest,
    /// The current Rodas4 span.
    span: Option<StiffSpan>,
    /// Accepted steps of the next span won (0: [`STIFF_SPAN_STEPS`]).
    span_steps: usize,
    /// The time of the first switch to Rodas4.
    pub(crate) stiff_from: Option<f64>,
    /// Simulated time spent in Rodas4 spans that ended.
    pub(crate) stiff_time: f64,
    /// Times the run went back to Dormand–Prince.
    pub(crate) returns: usize,
}

/// A span of the run integrated by Rodas4: where it began, its accepted steps, and the window
/// of steps being judged (its start time, the evaluations there, its accepted steps).
#[derive(Clone, Copy, Debug)]
struct StiffSpan {
    t: f64,
    accepted: usize,
    window_t: f64,
    window_evaluations: usize,
    window_accepted: usize,
}

impl SchemeChoice {
    /// Whether the stiff scheme runs now.
    pub(crate) fn is_stiff(&self) -> bool {
        self.span.is_some()
    }

    /// The stiffness test Dormand–Prince feeds.
    pub(crate) fn test(&mut self) -> &mut StiffnessTest {
        &mut self.test
    }

    /// After a Dormand–Prince advance ending at `t` after `evaluations` evaluations: switches
    /// to Rodas4, on trial, when the test found the run stiff.
    pub(crate) fn after_explicit(&mut self, t: f64, evaluations: usize) {
        if self.test.is_stiff() && self.span.is_none() {
            self.stiff_from.get_or_insert(t);
            self.span = Some(StiffSpan {
                t,
                accepted: 0,
                window_t: t,
                window_evaluations: evaluations,
                window_accepted: 0,
            });
        }
    }

    /// After a Rodas4 advance that accepted `accepted` steps, ending at `t` after
    /// `evaluations` evaluations: judges the span's last [`STIFF_TRIAL_STEPS`] steps or more
    /// against the explicit scheme's work, and ends a span that is over.
    pub(crate) fn after_stiff(&mut self, accepted: usize, t: f64, evaluations: usize) {
        let Some(span) = self.span.as_mut() else {
            return;
        };
        span.accepted += accepted;
        span.window_accepted += accepted;
        if span.window_accepted < STIFF_TRIAL_STEPS || t <= span.window_t {
            return;
        }
        let stiff_rate = evaluations.saturating_sub(span.window_evaluations) as f64 / (t - span.window_t);
        if STIFF_ADVANTAGE * stiff_rate > self.test.explicit_rate() {
            let needed = 2 * self.test.needed();
            self.back_to_explicit(t, needed);
            return;
        }
        (span.window_t, span.window_evaluations, span.window_accepted) = (t, evaluations, 0);
        let length = self.span_steps.max(STIFF_SPAN_STEPS);
        if span.accepted >= length {
            self.span_steps = 2 * length;
            self.back_to_explicit(t, STIFF_STEPS);
        }
    }

    fn back_to_explicit(&mut self, t: f64, needed: usize) {
        if let Some(span) = self.span.take() {
            self.stiff_time += t - span.t;
        }
        self.returns += 1;
        self.test = StiffnessTest::needing(needed);
    }

    /// Closes the accounting at the end of the run (time `t`).
    pub(crate) fn finish(&mut self, t: f64) {
        if let Some(span) = self.span.take() {
            self.stiff_time += t - span.t;
        }
    }
}

/// `h·‖k₇ − k₆‖ / ‖y₇ − y₆‖` of a Dormand–Prince step of size `h` from its stage derivatives
/// `k_q`, `k_v` and the rows `a6`, `a7` of its tableau (`y₇ − y₆ = h Σⱼ (a₇ⱼ − a₆ⱼ) kⱼ`); zero
/// when the two points coincide.
pub(crate) fn dopri_quotient(h: f64, k_q: &[Vec<f64>], k_v: &[Vec<f64>], a6: &[f64], a7: &[f64]) -> f64 {
    let (mut num, mut den) = (0.0, 0.0);
    for k in [k_q, k_v] {
        for i in 0..k[0].len() {
            let df = k[6][i] - k[5][i];
            let mut dy = 0.0;
            for (j, a) in a7.iter().enumerate() {
                dy += (a - a6.get(j).copied().unwrap_or(0.0)) * k[j][i];
            }
            num += df * df;
            den += (h * dy) * (h * dy);
        }
    }
    if den > 0.0 { h * (num / den).sqrt() } else { 0.0 }
}

/// The workspace of [`advance_rosenbrock`]: the Jacobian, its factorisation's input, the six
/// stage vectors and the chart's origin. One per run; a step reuses everything.
#[derive(Clone, Debug)]
pub struct RosenbrockWork {
    /// Chart origin (the state at the start of the step).
    q0: Vec<f64>,
    v0: Vec<f64>,
    t0: f64,
    /// The point being evaluated.
    q: Vec<f64>,
    v: Vec<f64>,
    /// `f(0)`, `∂f/∂t`, a scratch evaluation and the stage point in the chart.
    f0: Vec<f64>,
    ft: Vec<f64>,
    f: Vec<f64>,
    delta: Vec<f64>,
    /// `∂f/∂δ` at the chart's origin, one block per coupled component, and whether it
    /// belongs to the current origin.
    blocks: Vec<Block>,
    fresh: bool,
    /// The forward-difference step of each chart coordinate.
    steps: Vec<f64>,
    /// A stage's right-hand side.
    rhs: Vec<f64>,
    k: Vec<Vec<f64>>,
    /// The size of each chart coordinate for the error scale (0 for rotations, whose
    /// error is measured absolutely).
    size0: Vec<f64>,
    size1: Vec<f64>,
    /// Jacobians computed, and the evaluations of the dynamics they took (for the summary and
    /// tests).
    jacobians: usize,
    jacobian_evaluations: usize,
}

/// The Jacobian block of one coupled component: its chart coordinates (the component's
/// velocity coordinates `i` as position coordinates `i`, then as velocity coordinates `nv + i`),
/// `∂f/∂δ` restricted to them, and the stage solve's scratch vector.
#[derive(Clone, Debug)]
struct Block {
    chart: Vec<usize>,
    jacobian: DMatrix<f64>,
    rhs: DVector<f64>,
}

impl Block {
    fn new(coordinates: &[usize], nv: usize) -> Self {
        let chart: Vec<usize> = coordinates
            .iter()
            .copied()
            .chain(coordinates.iter().map(|i| nv + i))
            .collect();
        let m = chart.len();
        Self {
            chart,
            jacobian: DMatrix::zeros(m, m),
            rhs: DVector::zeros(m),
        }
    }

    /// The LU factors of `I/(hγ) − J` on this block.
    fn iteration_matrix(&self, h: f64) -> LU<f64, Dyn, Dyn> {
        let mut matrix = -&self.jacobian;
        for i in 0..matrix.nrows() {
            matrix[(i, i)] += 1.0 / (h * GAMMA);
        }
        matrix.lu()
    }
}

impl RosenbrockWork {
    /// A workspace sized for `model`.
    pub fn new(model: &Model) -> Self {
        let (nq, nv) = (model.nq, model.nv);
        let n = 2 * nv;
        let blocks = Components::of(model)
            .coordinates
            .iter()
            .map(|c| Block::new(c, nv))
            .collect();
        Self {
            q0: vec![0.0; nq],
            v0: vec![0.0; nv],
            t0: f64::NAN,
            q: vec![0.0; nq],
            v: vec![0.0; nv],
            f0: vec![0.0; n],
            ft: vec![0.0; n],
            f: vec![0.0; n],
            delta: vec![0.0; n],
            blocks,
            fresh: false,
            steps: vec![0.0; n],
            rhs: vec![0.0; n],
            k: vec![vec![0.0; n]; 6],
            size0: vec![0.0; n],
            size1: vec![0.0; n],
            jacobians: 0,
            jacobian_evaluations: 0,
        }
    }

    /// How many Jacobians the runs with this workspace computed.
    pub fn jacobians(&self) -> usize {
        self.jacobians
    }

    /// How many evaluations of the dynamics those Jacobians took: `2·m + 2` each (the point,
    /// `m` columns of every coupled component at once, and `∂/∂t`), `m` the velocity
    /// coordinates of the largest component.
    pub fn jacobian_evaluations(&self) -> usize {
        self.jacobian_evaluations
    }

    /// Sets the chart's origin to `state`; the Jacobian is stale unless the state is the one
    /// it was taken at.
    fn set_origin(&mut self, state: &State) {
        if self.t0 != state.t || self.q0 != state.q || self.v0 != state.v {
            self.q0.copy_from_slice(&state.q);
            self.v0.copy_from_slice(&state.v);
            self.t0 = state.t;
            self.fresh = false;
        }
    }
}

/// `J_r⁻¹(φ)·ω`: the rate of the rotation vector `φ` of `R = R₀·exp(φ)` for the angular
/// velocity `ω` in the rotated frame.
fn rotation_vector_rate(phi: &Vector3<f64>, omega: &Vector3<f64>) -> Vector3<f64> {
    let theta = phi.norm();
    let cross = phi.cross(omega);
    let coefficient = if theta < 1e-4 {
        1.0 / 12.0 + theta * theta / 720.0
    } else {
        1.0 / (theta * theta) - (1.0 + theta.cos()) / (2.0 * theta * theta.sin())
    };
    omega + 0.5 * cross + coefficient * phi.cross(&cross)
}

/// The chart rate `δq̇` of one joint: `v` for scalar coordinates, `J_r⁻¹(φ)·ω` for a rotation
/// vector, and `exp(φ)·v` for a free joint's translation (it moves along its body-frame
/// velocity, `p = p₀ + R₀·δp`).
fn chart_rate(joint: &JointModel, delta: &[f64], v: &[f64], out: &mut [f64]) {
    let vec3 = |s: &[f64], o: usize| Vector3::new(s[o], s[o + 1], s[o + 2]);
    match joint {
        JointModel::SlideRotate {
            slide_count,
            rotation: RotationPart::Ball,
            ..
        } => {
            let n = *slide_count;
            out[..n].copy_from_slice(&v[..n]);
            let rate = rotation_vector_rate(&vec3(delta, n), &vec3(v, n));
            out[n..n + 3].copy_from_slice(rate.as_slice());
        }
        JointModel::Free => {
            let phi = vec3(delta, 0);
            let rate = rotation_vector_rate(&phi, &vec3(v, 0));
            let translation = UnitQuaternion::from_scaled_axis(phi) * vec3(v, 3);
            out[..3].copy_from_slice(rate.as_slice());
            out[3..6].copy_from_slice(translation.as_slice());
        }
        other => out[..other.nv()].copy_from_slice(&v[..other.nv()]),
    }
}

/// Whether chart coordinate `k` of `joint` is a rotation-vector component.
fn is_rotation(joint: &JointModel, k: usize) -> bool {
    match joint {
        JointModel::SlideRotate {
            slide_count,
            rotation: RotationPart::Ball,
            ..
        } => k >= *slide_count,
        JointModel::Free => k < 3,
        _ => false,
    }
}

/// `f(t, δ)` in the chart around `work.q0, work.v0`, into `work.f`.
fn evaluate(model: &Model, data: &mut Data, work: &mut RosenbrockWork, t: f64) -> Result<(), SolverError> {
    let nv = model.nv;
    let RosenbrockWork {
        q0,
        v0,
        q,
        v,
        delta,
        f,
        ..
    } = work;
    q.copy_from_slice(q0);
    for node in &model.nodes {
        let (qi, vi) = (node.q_index, node.v_index);
        let (nq, nvj) = (node.joint.nq(), node.joint.nv());
        node.joint
            .integrate(&mut q[qi..qi + nq], &delta[vi..vi + nvj], 1.0);
    }
    normalize(model, q);
    for i in 0..nv {
        v[i] = v0[i] + delta[nv + i];
    }
    accelerations(model, data, t, q, v)?;
    f[nv..].copy_from_slice(&data.qdd);
    for node in &model.nodes {
        let (vi, nvj) = (node.v_index, node.joint.nv());
        chart_rate(
            &node.joint,
            &delta[vi..vi + nvj],
            &v[vi..vi + nvj],
            &mut f[vi..vi + nvj],
        );
    }
    Ok(())
}

/// `f(0)`, `∂f/∂δ` and `∂f/∂t` at the chart's origin by forward differences (steps
/// `√ε·max(|yᵢ|, 1)`), the `k`-th column of every block from one evaluation.
fn jacobian(model: &Model, data: &mut Data, work: &mut RosenbrockWork) -> Result<(), SolverError> {
    let n = 2 * model.nv;
    let t0 = work.t0;
    work.delta.fill(0.0);
    evaluate(model, data, work, t0)?;
    work.f0.copy_from_slice(&work.f);
    let root_eps = f64::EPSILON.sqrt();
    for j in 0..n {
        let size = if j < model.nv {
            work.size0[j]
        } else {
            work.v0[j - model.nv].abs()
        };
        work.steps[j] = root_eps * size.max(1.0);
    }
    let columns = work.blocks.iter().map(|b| b.chart.len()).max().unwrap_or(0);
    for k in 0..columns {
        work.delta.fill(0.0);
        for block in &work.blocks {
            if let Some(&j) = block.chart.get(k) {
                work.delta[j] = work.steps[j];
            }
        }
        evaluate(model, data, work, t0)?;
        for block in &mut work.blocks {
            if let Some(&j) = block.chart.get(k) {
                for (r, &i) in block.chart.iter().enumerate() {
                    block.jacobian[(r, k)] = (work.f[i] - work.f0[i]) / work.steps[j];
                }
            }
        }
    }
    let step = root_eps * t0.abs().max(1.0);
    work.delta.fill(0.0);
    evaluate(model, data, work, t0 + step)?;
    for i in 0..n {
        work.ft[i] = (work.f[i] - work.f0[i]) / step;
    }
    work.fresh = true;
    work.jacobians += 1;
    work.jacobian_evaluations += columns + 2;
    Ok(())
}

/// The size of each chart coordinate of `q`, `v` for the error scale: `|qᵢ|` for scalar
/// coordinates and a free joint's translation, 1 for rotation-vector components (a unit
/// quaternion's size), `|vᵢ|` for velocities.
fn sizes(model: &Model, q: &[f64], v: &[f64], out: &mut [f64]) {
    let nv = model.nv;
    for node in &model.nodes {
        let (qi, vi) = (node.q_index, node.v_index);
        for k in 0..node.joint.nv() {
            out[vi + k] = if is_rotation(&node.joint, k) {
                1.0
            } else if node.joint == JointModel::Free {
                q[qi + k - 3].abs()
            } else {
                q[qi + k].abs()
            };
        }
    }
    for i in 0..nv {
        out[nv + i] = v[i].abs();
    }
}

/// One Rodas4 step of size `h` from the chart's origin: the stages into `work.k`. Fails on
/// a singular iteration matrix or a failed evaluation.
fn stages(model: &Model, data: &mut Data, work: &mut RosenbrockWork, h: f64) -> Result<(), SolverError> {
    let n = 2 * model.nv;
    let factors: Vec<LU<f64, Dyn, Dyn>> = work.blocks.iter().map(|b| b.iteration_matrix(h)).collect();
    for s in 0..6 {
        if s == 0 {
            work.f.copy_from_slice(&work.f0);
        } else {
            work.delta.fill(0.0);
            for (j, a) in A[s].iter().enumerate() {
                for i in 0..n {
                    work.delta[i] += a * work.k[j][i];
                }
            }
            evaluate(model, data, work, work.t0 + ALPHA[s] * h)?;
        }
        for i in 0..n {
            let mut r = work.f[i] + h * GAMMA_SUM[s] * work.ft[i];
            for (j, c) in C[s].iter().enumerate() {
                r += c / h * work.k[j][i];
            }
            work.rhs[i] = r;
        }
        for (block, lu) in work.blocks.iter_mut().zip(&factors) {
            for (r, &i) in block.chart.iter().enumerate() {
                block.rhs[r] = work.rhs[i];
            }
            if !lu.solve_mut(&mut block.rhs) {
                return Err(SolverError::Diverged {
                    time: work.t0,
                    message: "singular Rosenbrock iteration matrix".into(),
                });
            }
            for (r, &i) in block.chart.iter().enumerate() {
                work.k[s][i] = block.rhs[r];
            }
        }
    }
    Ok(())
}

/// Adaptive Rodas4 from `state.t` to `t_end`, starting with step `*h` (updated to the next
/// step size). Error control `|errᵢ| ≤ atol + rtol·max(|yᵢ|, |yᵢ′|)` in the chart (RMS norm,
/// rotation vectors against 1), steps shortened to land on `t_end`; after each accepted step
/// quaternions are renormalised, constraints projected and joint stops applied as after any
/// other step. The Jacobian is taken once per accepted step and reused by rejected trials.
/// Returns (accepted, rejected) step counts.
///
/// ```
/// use mbconv_ir::{Body, BodyRef, Joint, JointKind, Model as Ir};
/// use mbconv_solver::{Data, Model, RosenbrockWork, State, advance_rosenbrock};
/// let mut ir = Ir::new("pendulum");
/// let mut bob = Body::new("bob");
/// bob.inertial.com = nalgebra::Vector3::new(0.0, 0.0, -1.0);
/// ir.bodies.push(bob);
/// ir.joints.push(Joint::new("pivot", JointKind::Revolute { axis: nalgebra::Vector3::y() }, BodyRef::World, BodyRef::body("bob")));
/// let model = Model::new(&ir).unwrap();
/// let (mut data, mut state) = (Data::new(&model), State::initial(&model));
/// let mut work = RosenbrockWork::new(&model);
/// let mut h = 1e-3;
/// let (accepted, _) = advance_rosenbrock(&model, &mut data, &mut work, &mut state, 0.1, &mut h, 1e-8, 1e-8).unwrap();
/// assert!(accepted > 0 && state.t == 0.1);
/// ```
#[allow(clippy::too_many_arguments)]
pub fn advance_rosenbrock(
    model: &Model,
    data: &mut Data,
    work: &mut RosenbrockWork,
    state: &mut State,
    t_end: f64,
    h: &mut f64,
    rtol: f64,
    atol: f64,
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
        // A trial that cannot be evaluated (a stage through a singular configuration) is
        // rejected like one whose error is too large.
        let norm = match rosenbrock_trial(model, data, work, state, step, rtol, atol) {
            Ok(norm) => norm,
            Err(error) => {
                retry_shorter(error, h, step, h_min)?;
                rejected += 1;
                continue;
            }
        };
        let factor = if !norm.is_finite() {
            0.2
        } else if norm == 0.0 {
            6.0
        } else {
            (0.9 * norm.powf(-0.25)).clamp(0.2, 6.0)
        };
        if norm <= 1.0 {
            // With joint limits on, an event (a stop reached, or a locked coordinate pulled off
            // its stop) over the step is located by re-stepping from the step's start (the
            // chart's origin, whose Jacobian the trial steps reuse), as Dopri5 does.
            let mut start = std::mem::take(&mut data.stops.start);
            if events {
                start.clone_from(state);
            }
            let result = rosenbrock_accept(model, data, work, state, step).and_then(|()| {
                if !events {
                    return Ok(None);
                }
                let mut restep = |model: &Model, data: &mut Data, s: &mut State, dt: f64| {
                    rosenbrock_trial(model, data, work, s, dt, rtol, atol)?;
                    rosenbrock_accept(model, data, work, s, dt)
                };
                stops::locate_event(model, data, &start, state, &mut restep)
            });
            data.stops.start = start;
            accepted += 1;
            match result? {
                // Restart from the event with the step that reached it, not longer; the
                // dynamics changed there, so the Jacobian is taken again.
                Some(trials) => {
                    rejected += trials;
                    work.fresh = false;
                    work.t0 = f64::NAN;
                }
                None => {
                    if step >= *h * 0.999 || factor < 1.0 {
                        *h = step * factor;
                    }
                }
            }
        } else {
            rejected += 1;
            shrink_step(h, step * factor.min(1.0), h_min, state.t)?;
        }
    }
    if events {
        stops::retime(data, state.t, t_end);
    }
    state.t = t_end;
    Ok((accepted, rejected))
}

/// One Rodas4 trial of length `step` from `state` (the chart's origin; the Jacobian is taken
/// there unless it already was): the candidate into `work.q`, `work.v`, and the RMS norm of the
/// error estimate relative to `atol + rtol·max(|y|, |y'|)` (returned; not finite when the
/// candidate is not).
fn rosenbrock_trial(
    model: &Model,
    data: &mut Data,
    work: &mut RosenbrockWork,
    state: &State,
    step: f64,
    rtol: f64,
    atol: f64,
) -> Result<f64, SolverError> {
    let n = 2 * model.nv;
    work.set_origin(state);
    if !work.fresh {
        sizes(model, &state.q, &state.v, &mut work.size0);
        jacobian(model, data, work)?;
    }
    stages(model, data, work, step)?;
    // The new point in the chart: Y₆ + K₆ = Σⱼ a₆ⱼ Kⱼ + K₆; the error is K₆.
    work.delta.fill(0.0);
    for (j, a) in A[5].iter().enumerate() {
        for i in 0..n {
            work.delta[i] += a * work.k[j][i];
        }
    }
    for i in 0..n {
        work.delta[i] += work.k[5][i];
    }
    work.q.copy_from_slice(&work.q0);
    for node in &model.nodes {
        let (qi, vi) = (node.q_index, node.v_index);
        let (nq, nvj) = (node.joint.nq(), node.joint.nv());
        node.joint
            .integrate(&mut work.q[qi..qi + nq], &work.delta[vi..vi + nvj], 1.0);
    }
    for i in 0..model.nv {
        work.v[i] = work.v0[i] + work.delta[model.nv + i];
    }
    sizes(model, &work.q, &work.v, &mut work.size1);
    let mut sum = 0.0;
    for i in 0..n {
        let scale = atol + rtol * work.size0[i].max(work.size1[i]);
        sum += (work.k[5][i] / scale).powi(2);
    }
    let finite = work.q.iter().chain(&work.v).all(|x| x.is_finite());
    Ok(if finite {
        (sum / n.max(1) as f64).sqrt()
    } else {
        f64::NAN
    })
}

/// Moves `state` to the candidate of the last [`rosenbrock_trial`] and finishes the step
/// (quaternions renormalised, constraints projected, locked coordinates held on their stops).
fn rosenbrock_accept(
    model: &Model,
    data: &mut Data,
    work: &RosenbrockWork,
    state: &mut State,
    step: f64,
) -> Result<(), SolverError> {
    state.q.copy_from_slice(&work.q);
    state.v.copy_from_slice(&work.v);
    state.t += step;
    // Stops are events here (see `advance_rosenbrock`): the step keeps the active set, as
    // Dopri5's does; clamping after the step would forget every lock.
    finish_located_step(model, data, state)
}

/// After a trial of an adaptive scheme that could not be evaluated (`error`): a trial too
/// long for the model (a stiff spring flinging a link through a singular configuration) is
/// retried with a fifth of the step; any other error, or a step below `h_min`, ends the run.
pub(crate) fn retry_shorter(
    error: SolverError,
    h: &mut f64,
    step: f64,
    h_min: f64,
) -> Result<(), SolverError> {
    if !matches!(error, SolverError::Diverged { .. }) || step * 0.2 < h_min {
        return Err(error);
    }
    *h = step * 0.2;
    Ok(())
}

/// After a rejected trial of an adaptive scheme: the next trial step becomes `next`, unless it
/// is below `h_min` (the run cannot go on from time `t`).
pub(crate) fn shrink_step(h: &mut f64, next: f64, h_min: f64, t: f64) -> Result<(), SolverError> {
    *h = next;
    if next < h_min {
        return Err(SolverError::Diverged {
            time: t,
            message: "step size underflow".into(),
        });
    }
    Ok(())
}
