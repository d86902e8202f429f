//! Gravity, time step and end time: Chrono keeps them in a simulation file and the solver
//! file it names, written beside the model (see [`companion_names`]). A model file read alone
//! has Chrono's default gravity and no time step.

use super::LowerSettings;
use crate::export::companion_names;
use crate::spec::{DEFAULT_GRAVITY, DEFAULT_TIME_STEP};
use mbconv_ir::Model;
use mbconv_ir::format::kit::LowerSession;
use mbconv_ir::format::support::Feature;
use nalgebra::Vector3;

/// Makes the simulation settings what the written files will say.
pub(super) fn simulation(s: &mut LowerSession, model: &mut Model, settings: &LowerSettings) {
    let output = settings.to_file.then_some(std::path::Path::new("model.yaml"));
    let companions = companion_names(model, settings.simulation_file.as_deref(), output);
    let default_gravity = Vector3::from(DEFAULT_GRAVITY);
    let sim = &mut model.simulation;
    const WHERE: &str = "live in a Chrono simulation file, written beside the model file: write to a file or pass sim-out=FILE";
    if sim.gravity.is_none() {
        s.approximated_note(
            "gravity_defaulted",
            Feature::Gravity,
            "simulation.gravity",
            if companions.is_some() {
                "the model states no gravity: the simulation file states Chrono's default [0, 0, -9.8]"
            } else {
                "the model states no gravity: a Chrono model file read alone has Chrono's default [0, 0, -9.8]"
            },
        );
        sim.gravity = Some(default_gravity);
    }
    if companions.is_none() {
        if let Some(g) = sim.gravity.filter(|g| *g != default_gravity) {
            s.lost(
                "gravity_lost",
                Feature::Gravity,
                "simulation.gravity",
                format!(
                    "gravity {:?} and the other simulation settings {WHERE} (a model file read alone has gravity [0, 0, -9.8])",
                    [g.x, g.y, g.z]
                ),
            );
        }
        sim.gravity = Some(default_gravity);
        if sim.time_step.take().is_some() {
            s.lost(
                "time_step_lost",
                Feature::TimeStep,
                "simulation.time_step",
                format!("the time step and the other simulation settings {WHERE}"),
            );
        }
        if sim.end_time.take().is_some() {
            s.lost(
                "end_time_lost",
                Feature::TimeStep,
                "simulation.end_time",
                format!("the end time and the other simulation settings {WHERE}"),
            );
        }
        if !sim.extras.is_empty() {
            s.lost(
                "solver_settings_lost",
                Feature::TimeStep,
                "simulation",
                format!("solver settings {WHERE}"),
            );
            sim.extras = mbconv_ir::Extras::default();
        }
        return;
    }
    if sim.time_step.is_none() {
        s.note(
            "default_time_step",
            Feature::TimeStep,
            "simulation.time_step",
            format!("the solver file states Chrono's default time step {DEFAULT_TIME_STEP}"),
        );
        sim.time_step = Some(DEFAULT_TIME_STEP);
    }
    s.strip_foreign_extras(&mut sim.extras, "simulation");
}
