//! `mbconv-solver` simulates any mbconv IR model: reduced coordinates on a spanning tree,
//! forward dynamics by the articulated-body algorithm, loop closures, kinematic constraints
//! and position/speed motors as constraint rows with Lagrange multipliers (kept on the
//! constraint manifold by projection), force elements (gravity, joint springs/dampers/friction,
//! TSDA, RSDA, bushings, Shift restraints, body loads, force motors) and four integrators
//! (semi-implicit Euler as DART and MuJoCo step, RK4, adaptive Dormand–Prince 5(4), which
//! hands a stiff model over to the adaptive Rosenbrock method Rodas4).
//!
//! It is **not** a contact or collision simulator (shapes are ignored), and it does not read
//! files: build an [`mbconv_ir::Model`] with a format crate first. See `docs/solver.md`.
//!
//! The model is built once ([`Model`]); the mutable [`State`] (t, q, v) and the preallocated
//! workspace [`Data`] are separate, and the step loop allocates nothing.
//!
//! ```
//! use mbconv_ir::{Body, BodyRef, Joint, JointKind, Model};
//! use mbconv_solver::{dynamics_report, simulate, SimulateOptions, Integrator};
//! let mut ir = Model::new("pendulum");
//! let mut bob = Body::new("bob");
//! bob.inertial.com = nalgebra::Vector3::new(0.0, 0.0, -1.0);
//! ir.bodies.push(bob);
//! ir.joints.push(Joint::new("pivot", JointKind::Revolute { axis: nalgebra::Vector3::y() }, BodyRef::World, BodyRef::body("bob")));
//! let report = dynamics_report(&ir).unwrap();
//! assert_eq!(report.bodies[0].name, "bob");
//! let options = SimulateOptions { duration: 0.01, dt: 1e-3, integrator: Integrator::Rk4, every: 1, energy: true, joint_limits: false, max_steps: None };
//! let summary = simulate(&ir, &options, &mut |_sample| {}).unwrap();
//! assert_eq!(summary.samples, 11);
//! ```

mod constraints;
mod coupling;
mod data;
mod dynamics;
mod error;
mod forces;
mod integrate;
mod joint;
mod model;
mod projection;
mod report;
mod simulate;
pub mod spatial;
mod stiff;
mod stops;

pub use data::{Data, State};
pub use dynamics::{least_coordinate_inertia, tree_forward_dynamics};
pub use error::{STOPS_CHATTER, SolverError};
pub use forces::FRICTION_SPEED;
pub use integrate::{
    DEFAULT_ATOL, DEFAULT_RTOL, Integrator, accelerations, advance_dopri5, step_rk4, step_semi_implicit_euler,
};
pub use model::{DEFAULT_GRAVITY, Model};
pub use projection::{PROJECTION_ITERATIONS, PROJECTION_TOLERANCE};
pub use report::{
    BodyDynamics, DynamicsReport, body_motions, dynamics_report, dynamics_report_implicit, energies,
};
pub use simulate::{
    LimitReached, Sample, SimulateOptions, SimulationSummary, Trajectory, simulate, simulate_model,
};
pub use stiff::{
    RosenbrockWork, STIFF_ADVANTAGE, STIFF_SPAN_STEPS, STIFF_STEPS, STIFF_TRIAL_STEPS, STIFFNESS_QUOTIENT,
    StiffnessTest, advance_rosenbrock,
};

/// Assembles `state` (closes loops by Newton's method, projects velocities); returns the
/// largest residual left.
pub fn assemble(model: &Model, data: &mut Data, state: &mut State) -> Result<f64, SolverError> {
    projection::assemble(model, data, state)
}
