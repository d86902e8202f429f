//! Gravity, time step and end time: Chrono keeps them in a simulation file and the solver
//! file it names, written beside the model (see [`companion_names`]). A model file read alone
//! has Chrono's default gravity and no time step.

use super::{LowerSettings, Lowering};
use crate::export::companion_names;
use crate::spec::{DEFAULT_GRAVITY, DEFAULT_TIME_STEP};
use mbconv_ir::{Category, Model};
use nalgebra::Vector3;

/// Makes the simulation settings what the written files will say.
pub(super) fn simulation(l: &mut Lowering, model: &mut Model, settings: &LowerSettings) {
    let output = settings.to_file.then_some(std::path::Path::new("model.yaml"));
    let companions = companion_names(model, settings.simulation_file.as_deref(), output);
    let default_gravity = Vector3::from(DEFAULT_GRAVITY);
    let sim = &mut model.simulation;
    if companions.is_none() {
        let mut lost = Vec::new();
        if sim.gravity.is_some_and(|g| g != default_gravity) {
            lost.push("gravity");
        }
        if sim.time_step.take().is_some() {
            lost.push("time step");
        }
        if sim.end_time.take().is_some() {
            lost.push("end time");
        }
        if !sim.extras.is_empty() {
            lost.push("solver settings");
            sim.extras = mbconv_ir::Extras::default();
        }
        if sim.gravity.is_none() {
            l.note(
                "simulation.gravity",
                "a Chrono model file read alone has Chrono's default gravity [0, 0, -9.8]",
            );
        }
        sim.gravity = Some(default_gravity);
        if !lost.is_empty() {
            l.lost(
                Category::Dropped,
                "simulation",
                format!(
                    "{} live in a Chrono simulation file, written beside the model file: write to a file or pass sim-out=FILE (a model file read alone has gravity [0, 0, -9.8])",
                    lost.join(", ")
                ),
            );
        }
        return;
    }
    if sim.gravity.is_none() {
        l.note(
            "simulation.gravity",
            "the simulation file states Chrono's default gravity [0, 0, -9.8]",
        );
        sim.gravity = Some(default_gravity);
    }
    if sim.time_step.is_none() {
        l.note(
            "simulation.time_step",
            format!("the solver file states Chrono's default time step {DEFAULT_TIME_STEP}"),
        );
        sim.time_step = Some(DEFAULT_TIME_STEP);
    }
    l.strip_foreign_extras(&mut sim.extras, "simulation");
}
