//! The state and the preallocated workspace.

use crate::joint::JointState;
use crate::model::Model;
use crate::spatial::{Inertia6, Se3, Spatial};
use nalgebra::{DMatrix, DVector, Matrix6};

/// The small mutable state of a simulation: time, positions and velocities.
///
/// `q` holds [`Model::nq`] numbers (each ball or free joint stores a unit quaternion
/// `[w, x, y, z]`), `v` holds [`Model::nv`] numbers (angular velocities of ball-like joints
/// in the child joint frame).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct State {
    /// Time (s).
    pub t: f64,
    /// Position coordinates.
    pub q: Vec<f64>,
    /// Velocity coordinates.
    pub v: Vec<f64>,
}

impl State {
    /// The initial state of `model`: every joint at its IR `q0`/`v0`, floating bodies at their
    /// stored pose and initial velocity (loops are not yet closed: see [`crate::assemble`]).
    pub fn initial(model: &Model) -> Self {
        Self {
            t: 0.0,
            q: model.q_init.clone(),
            v: model.v_init.clone(),
        }
    }
}

/// Preallocated workspace of the algorithms (Pinocchio's `Data`, MuJoCo's `mjData`): one per
/// model, reused by every call; nothing in the step loop allocates.
#[derive(Clone, Debug)]
pub struct Data {
    pub(crate) joint: Vec<JointState>,
    pub(crate) local: Vec<Se3>,
    pub(crate) world: Vec<Se3>,
    pub(crate) vel: Vec<Spatial>,
    pub(crate) bias: Vec<Spatial>,
    pub(crate) ia: Vec<Inertia6>,
    pub(crate) pa: Vec<Spatial>,
    pub(crate) u: Vec<[Spatial; 6]>,
    pub(crate) dinv: Vec<Matrix6<f64>>,
    pub(crate) uvec: Vec<[f64; 6]>,
    pub(crate) acc: Vec<Spatial>,
    pub(crate) f_world: Vec<Spatial>,
    /// Generalised forces (nv).
    pub(crate) tau: Vec<f64>,
    /// Accelerations (nv), the result of forward dynamics.
    pub(crate) qdd: Vec<f64>,
    /// Added to each coordinate's articulated inertia: armature plus implicit spring/damper terms.
    pub(crate) extra_diagonal: Vec<f64>,
    /// Step of DART's implicit joint springs and dampers (0: explicit).
    pub(crate) implicit_step: f64,
    /// Whether joint position limits are enforced after each step.
    pub(crate) joint_limits: bool,
    /// The steps (accepted and rejected) an adaptive advance may still take before the run
    /// stops with [`SolverError::StepBudget`](crate::SolverError::StepBudget); `None`: no
    /// budget. Checked inside an advance, where a model whose error control cannot be
    /// satisfied grinds toward a step-size underflow within one sample interval.
    pub(crate) step_budget: Option<usize>,
    /// Evaluations of the forward dynamics ([`crate::accelerations`]) so far: the work an
    /// integrator did, counted the same way for every scheme (what the switch between the
    /// explicit and the stiff scheme compares).
    pub(crate) evaluations: usize,
    // Scratch for M⁻¹ products and constraints.
    pub(crate) pa2: Vec<Spatial>,
    pub(crate) acc2: Vec<Spatial>,
    pub(crate) uvec2: Vec<[f64; 6]>,
    pub(crate) s_world: Vec<Spatial>,
    pub(crate) joint2: Vec<JointState>,
    pub(crate) world2: Vec<Se3>,
    pub(crate) q2: Vec<f64>,
    pub(crate) col: Vec<f64>,
    pub(crate) jac: DMatrix<f64>,
    pub(crate) minv_jt: DMatrix<f64>,
    /// Columns of `M⁻¹ [J; E]ᵀ` kept while one factorisation serves several constraint solves
    /// (the active-set iterations of an impulse): the loop rows' first, then one per velocity
    /// coordinate; `minv_cached` says which hold a column.
    /// The nonzero entries of one Jacobian row (coordinate, value).
    pub(crate) nonzero: Vec<(usize, f64)>,
    pub(crate) minv_cache: DMatrix<f64>,
    pub(crate) minv_cached: Vec<bool>,
    pub(crate) schur: DMatrix<f64>,
    pub(crate) phi: DVector<f64>,
    pub(crate) rhs: DVector<f64>,
    pub(crate) lambda: DVector<f64>,
    pub(crate) rowv: DVector<f64>,
    pub(crate) rowv2: DVector<f64>,
    pub(crate) perm: Vec<usize>,
    /// `M⁻¹ [J; E]ᵀ λ` of the last constraint solve.
    pub(crate) row_forces: Vec<f64>,
    pub(crate) dv: Vec<f64>,
    // Integrator stages.
    pub(crate) stage_q: Vec<f64>,
    pub(crate) stage_v: Vec<f64>,
    pub(crate) k_q: Vec<Vec<f64>>,
    pub(crate) k_v: Vec<Vec<f64>>,
    pub(crate) err_q: Vec<f64>,
    pub(crate) err_v: Vec<f64>,
    /// Joint stops: the locked coordinates, their events and what happened at them.
    pub(crate) stops: crate::stops::Stops,
}

impl Data {
    /// A workspace sized for `model`.
    pub fn new(model: &Model) -> Self {
        let n = model.nodes.len();
        let (nq, nv) = (model.nq, model.nv);
        let m = model.constraints.row_count();
        // The constraint system holds the loop rows and, with joint limits on, one row per
        // coordinate locked at its stop.
        let rows = m + model.limits.len();
        Self {
            joint: vec![JointState::default(); n],
            local: vec![Se3::identity(); n],
            world: vec![Se3::identity(); n],
            vel: vec![Spatial::zero(); n],
            bias: vec![Spatial::zero(); n],
            ia: vec![Inertia6::zero(); n],
            pa: vec![Spatial::zero(); n],
            u: vec![[Spatial::zero(); 6]; n],
            dinv: vec![Matrix6::zeros(); n],
            uvec: vec![[0.0; 6]; n],
            acc: vec![Spatial::zero(); n],
            f_world: vec![Spatial::zero(); n],
            tau: vec![0.0; nv],
            qdd: vec![0.0; nv],
            extra_diagonal: model.armature.clone(),
            implicit_step: 0.0,
            joint_limits: false,
            step_budget: None,
            evaluations: 0,
            pa2: vec![Spatial::zero(); n],
            acc2: vec![Spatial::zero(); n],
            uvec2: vec![[0.0; 6]; n],
            s_world: vec![Spatial::zero(); nv],
            joint2: vec![JointState::default(); n],
            world2: vec![Se3::identity(); n],
            q2: vec![0.0; nq],
            col: vec![0.0; nv],
            jac: DMatrix::zeros(m, nv),
            minv_jt: DMatrix::zeros(nv, rows),
            nonzero: Vec::with_capacity(nv),
            minv_cache: DMatrix::zeros(nv, m + nv),
            minv_cached: vec![false; m + nv],
            schur: DMatrix::zeros(rows, rows),
            phi: DVector::zeros(m),
            rhs: DVector::zeros(rows),
            lambda: DVector::zeros(rows),
            rowv: DVector::zeros(m),
            rowv2: DVector::zeros(m),
            perm: vec![0; rows],
            row_forces: vec![0.0; nv],
            dv: vec![0.0; nv],
            stage_q: vec![0.0; nq],
            stage_v: vec![0.0; nv],
            k_q: vec![vec![0.0; nq]; 7],
            k_v: vec![vec![0.0; nv]; 7],
            err_q: vec![0.0; nq],
            err_v: vec![0.0; nv],
            stops: crate::stops::Stops::new(model),
        }
    }

    /// Switches joint position limits on or off (off by default, as in DART). When on, each
    /// limit is a perfectly inelastic stop (see `docs/solver.md`, *Joint stops*): the adaptive
    /// integrator locates the instant a coordinate reaches it, applies a momentum-consistent
    /// impulse there and holds the coordinate on the stop while the dynamics push it in; the
    /// fixed-step schemes put a coordinate past its limit back on it after the step and apply
    /// the same impulse.
    pub fn set_joint_limits(&mut self, enforce: bool) {
        self.joint_limits = enforce;
        self.stops.clear();
    }

    /// The accelerations of the last forward-dynamics call.
    pub fn qdd(&self) -> &[f64] {
        &self.qdd
    }
}
