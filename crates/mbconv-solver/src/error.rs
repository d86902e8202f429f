//! The solver's error type.

use miette::Diagnostic;
use thiserror::Error;

/// The message of the [`SolverError::Diverged`] an error-controlled run ends with when joint
/// stops reached as events keep producing events at one instant (see
/// [`SolverError::stops_chatter`]).
pub const STOPS_CHATTER: &str = "the joint stops chatter: events do not settle at one instant";

/// Why a model cannot be simulated, or a simulation failed. Each variant names the offending
/// item by its IR path as the report writes it (`joints["elbow"]`, `force_elements["spring"]`, …).
#[derive(Debug, Error, Diagnostic, Clone, PartialEq)]
pub enum SolverError {
    /// The model has an item the solver cannot represent.
    #[error("{item}: {message}")]
    #[diagnostic(code(mbconv::solver::unsupported))]
    Unsupported {
        /// IR path of the item.
        item: String,
        /// What is not supported.
        message: String,
    },
    /// The model data is unusable (zero axis, wrong coordinate count, unknown body, …).
    #[error("{item}: {message}")]
    #[diagnostic(code(mbconv::solver::invalid_model))]
    InvalidModel {
        /// IR path of the item.
        item: String,
        /// What is wrong.
        message: String,
    },
    /// The assembly step could not close the loops.
    #[error(
        "assembly failed: constraint residual {residual:e} after {iterations} Newton iterations (worst: {item})"
    )]
    #[diagnostic(
        code(mbconv::solver::assembly),
        help("check the loop-closing joints and constraints for consistent geometry")
    )]
    Assembly {
        /// Largest residual left.
        residual: f64,
        /// Iterations done.
        iterations: usize,
        /// The constraint with the largest residual.
        item: String,
    },
    /// The state became non-finite or a linear system was singular.
    #[error("simulation diverged at t = {time}: {message}")]
    #[diagnostic(
        code(mbconv::solver::diverged),
        help("try a smaller time step or another integrator")
    )]
    Diverged {
        /// Simulation time.
        time: f64,
        /// What happened.
        message: String,
    },
    /// The run took more steps than its budget ([`crate::SimulateOptions::max_steps`]).
    #[error(
        "the simulation needed more than {steps} steps by t = {time} s (a stiff model for an explicit integrator)"
    )]
    #[diagnostic(code(mbconv::solver::step_budget))]
    StepBudget {
        /// Simulation time reached.
        time: f64,
        /// Steps taken.
        steps: usize,
    },
    /// A force element could not be evaluated.
    #[error("{item}: {message}")]
    #[diagnostic(code(mbconv::solver::force))]
    Force {
        /// IR path of the force element.
        item: String,
        /// The underlying message.
        message: String,
    },
    /// Bad simulation options.
    #[error("invalid simulation options: {0}")]
    #[diagnostic(code(mbconv::solver::options))]
    Options(String),
}

impl SolverError {
    /// True when an error-controlled run stopped because joint stops located as events kept
    /// producing events at one instant (a Zeno cascade the event scheme cannot step past; a
    /// fixed-step scheme, which clamps stops after each step, goes on).
    ///
    /// ```
    /// use mbconv_solver::{SolverError, STOPS_CHATTER};
    /// let chatter = SolverError::Diverged { time: 0.2, message: STOPS_CHATTER.into() };
    /// assert!(chatter.stops_chatter());
    /// let underflow = SolverError::Diverged { time: 0.9, message: "step size underflow".into() };
    /// assert!(!underflow.stops_chatter());
    /// ```
    pub fn stops_chatter(&self) -> bool {
        matches!(self, Self::Diverged { message, .. } if message == STOPS_CHATTER)
    }

    pub(crate) fn unsupported(item: impl Into<String>, message: impl Into<String>) -> Self {
        Self::Unsupported {
            item: item.into(),
            message: message.into(),
        }
    }
    pub(crate) fn invalid(item: impl Into<String>, message: impl Into<String>) -> Self {
        Self::InvalidModel {
            item: item.into(),
            message: message.into(),
        }
    }
}
