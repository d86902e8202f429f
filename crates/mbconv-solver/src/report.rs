//! `dynamics_report`: the model at its initial state after assembly.

use crate::data::{Data, State};
use crate::dynamics::{gravity_potential, kinetic_energy};
use crate::error::SolverError;
use crate::integrate::accelerations;
use crate::model::Model;
use crate::projection::assemble;
use crate::spatial::Se3;
use nalgebra::Vector3;
use serde::{Deserialize, Serialize};

/// World-frame motion of one body frame (its origin, not its centre of mass).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BodyDynamics {
    /// Body name.
    pub name: String,
    /// Origin position (m).
    pub position: [f64; 3],
    /// Orientation `[w, x, y, z]`.
    pub orientation_wxyz: [f64; 4],
    /// Velocity of the origin (m/s).
    pub linear_velocity: [f64; 3],
    /// Angular velocity (rad/s).
    pub angular_velocity: [f64; 3],
    /// Acceleration of the origin (m/s²): the classical one, `d/dt` of `linear_velocity`.
    pub linear_acceleration: [f64; 3],
    /// Angular acceleration (rad/s²).
    pub angular_acceleration: [f64; 3],
}

/// The report of `mbconv dynamics`: every body's world motion at the initial state after
/// assembly, the total energies and the assembly residual.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DynamicsReport {
    /// Bodies in model order.
    pub bodies: Vec<BodyDynamics>,
    /// Total kinetic energy (J).
    pub kinetic_energy: f64,
    /// Gravitational plus linear-spring potential energy (J), zero at the world origin.
    pub potential_energy: f64,
    /// Largest constraint residual left by the assembly step (m or rad; 0 without loops).
    pub assembly_residual: f64,
}

fn arr(v: &Vector3<f64>) -> [f64; 3] {
    [v.x, v.y, v.z]
}

/// World pose of every body frame at the current kinematics.
pub(crate) fn body_pose(model: &Model, data: &Data, body: usize) -> Se3 {
    let b = &model.bodies[body];
    match b.node {
        Some(n) => data.world[n].compose(&b.offset),
        None => b.offset,
    }
}

/// Body motions from the data of the last [`accelerations`] call.
pub(crate) fn body_dynamics(model: &Model, data: &Data) -> Vec<BodyDynamics> {
    model
        .bodies
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let pose = body_pose(model, data, i);
            let q = pose.quaternion();
            let q = q.quaternion();
            let (mut w, mut v, mut dw, mut dv) = (
                Vector3::zeros(),
                Vector3::zeros(),
                Vector3::zeros(),
                Vector3::zeros(),
            );
            if let Some(n) = b.node {
                let link = &data.world[n];
                let vel = &data.vel[n];
                let mut acc = data.acc[n];
                if model.uniform_gravity {
                    acc.lin += link.r.transpose() * model.gravity;
                }
                let r = &b.offset.p;
                let vr = vel.lin + vel.ang.cross(r);
                w = link.r * vel.ang;
                v = link.r * vr;
                dw = link.r * acc.ang;
                dv = link.r * (acc.lin + acc.ang.cross(r) + vel.ang.cross(&vr));
            }
            BodyDynamics {
                name: b.name.clone(),
                position: arr(&pose.p),
                orientation_wxyz: [q.w, q.i, q.j, q.k],
                linear_velocity: arr(&v),
                angular_velocity: arr(&w),
                linear_acceleration: arr(&dv),
                angular_acceleration: arr(&dw),
            }
        })
        .collect()
}

/// Potential energy at the current kinematics.
pub(crate) fn potential_energy(model: &Model, data: &Data, q: &[f64]) -> f64 {
    gravity_potential(model, data) + model.forces.potential(data, q)
}

/// The model at its initial state after assembly: body motions (with accelerations from
/// forward dynamics), energies and the assembly residual.
///
/// ```
/// use mbconv_ir::{Body, BodyRef, Joint, JointKind, Model};
/// let mut ir = Model::new("drop");
/// ir.bodies.push(Body::new("ball"));
/// let report = mbconv_solver::dynamics_report(&ir).unwrap();
/// // A floating body falls freely.
/// assert_eq!(report.bodies[0].linear_acceleration, [0.0, 0.0, -9.81]);
/// let json = serde_json::to_string(&report).unwrap();
/// assert!(json.contains("\"kinetic_energy\""));
/// ```
pub fn dynamics_report(ir: &mbconv_ir::Model) -> Result<DynamicsReport, SolverError> {
    report_with_step(ir, 0.0)
}

/// [`dynamics_report`] with joint springs and dampers treated implicitly for a step `dt`, as
/// DART's `computeForwardDynamics` does with the world's time step (the accelerations of the
/// first semi-implicit Euler step). Identical to [`dynamics_report`] without joint springs or
/// dampers.
pub fn dynamics_report_implicit(ir: &mbconv_ir::Model, dt: f64) -> Result<DynamicsReport, SolverError> {
    report_with_step(ir, dt)
}

fn report_with_step(ir: &mbconv_ir::Model, dt: f64) -> Result<DynamicsReport, SolverError> {
    let model = Model::new(ir)?;
    let mut data = Data::new(&model);
    let mut state = State::initial(&model);
    let assembly_residual = assemble(&model, &mut data, &mut state)?;
    data.implicit_step = dt;
    accelerations(&model, &mut data, state.t, &state.q, &state.v)?;
    data.implicit_step = 0.0;
    Ok(DynamicsReport {
        bodies: body_dynamics(&model, &data),
        kinetic_energy: kinetic_energy(&model, &data),
        potential_energy: potential_energy(&model, &data, &state.q),
        assembly_residual,
    })
}

/// World motion of every body at `state` (forward dynamics included), in model order.
///
/// ```
/// use mbconv_ir::{Body, Model as Ir};
/// let mut ir = Ir::new("drop");
/// ir.bodies.push(Body::new("ball"));
/// let model = mbconv_solver::Model::new(&ir).unwrap();
/// let mut data = mbconv_solver::Data::new(&model);
/// let state = mbconv_solver::State::initial(&model);
/// let bodies = mbconv_solver::body_motions(&model, &mut data, &state).unwrap();
/// assert_eq!(bodies[0].angular_acceleration, [0.0; 3]);
/// ```
pub fn body_motions(model: &Model, data: &mut Data, state: &State) -> Result<Vec<BodyDynamics>, SolverError> {
    accelerations(model, data, state.t, &state.q, &state.v)?;
    Ok(body_dynamics(model, data))
}

/// Kinetic and potential energy at `state`.
pub fn energies(model: &Model, data: &mut Data, state: &State) -> (f64, f64) {
    crate::dynamics::kinematics(model, data, &state.q, &state.v);
    (
        kinetic_energy(model, data),
        potential_energy(model, data, &state.q),
    )
}
