//! IR -> Chrono YAML: [`lower`] turns a model into what Chrono YAML can say (IR -> IR, every
//! change a finding), [`emit`] writes a lowered model as text and companion files.

pub(crate) mod emit;
mod geometry;
pub(crate) mod lower;
mod support;

use mbconv_ir::Model;
use std::path::Path;
pub(crate) use support::FEATURE_SUPPORT;

/// The files written beside the model file for gravity and time step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CompanionNames {
    /// The model file's name, as the simulation file names it.
    pub model: String,
    /// The simulation file (`type: MBS`).
    pub simulation: String,
    /// The solver file the simulation file names.
    pub solver: String,
}

/// The companion files to write, if any: the `sim-out` file when asked for (its solver file
/// named `<stem>_solver.yaml`), else, when the model states gravity, a time step or an end
/// time and goes to a file `NAME.yaml`, `NAME.simulation.yaml` and `NAME.solver.yaml`.
/// Nothing when writing to standard output without `sim-out`.
pub(crate) fn companion_names(
    model: &Model,
    simulation_file: Option<&str>,
    output_path: Option<&Path>,
) -> Option<CompanionNames> {
    let model_file = output_path
        .and_then(Path::file_name)
        .and_then(|f| f.to_str())
        .unwrap_or("model.yaml")
        .to_owned();
    let stem_of = |name: &str| {
        name.strip_suffix(".yaml")
            .or_else(|| name.strip_suffix(".yml"))
            .unwrap_or(name)
            .to_owned()
    };
    if let Some(sim) = simulation_file {
        return Some(CompanionNames {
            model: model_file,
            simulation: sim.to_owned(),
            solver: format!("{}_solver.yaml", stem_of(sim)),
        });
    }
    let s = &model.simulation;
    let stated = s.gravity.is_some() || s.time_step.is_some() || s.end_time.is_some();
    if !stated || output_path.is_none() {
        return None;
    }
    let stem = stem_of(&model_file);
    Some(CompanionNames {
        simulation: format!("{stem}.simulation.yaml"),
        solver: format!("{stem}.solver.yaml"),
        model: model_file,
    })
}

/// True when something is attached to the world (Chrono YAML has no world body: lowering adds
/// a fixed ground body for it, and emit writes one for a model that was not lowered).
pub(crate) fn uses_world(model: &Model) -> bool {
    use mbconv_ir::BodyRef;
    let w = |r: &BodyRef| r.is_world();
    model.joints.iter().any(|j| w(&j.parent) || w(&j.child))
        || model
            .constraints
            .iter()
            .any(|c| c.kind.bodies().iter().any(|r| w(r)))
        || model.force_elements.iter().any(|f| match &f.kind {
            mbconv_ir::ForceKind::Tsda(t) => w(&t.body1) || w(&t.body2),
            mbconv_ir::ForceKind::Rsda(r) => w(&r.body1) || w(&r.body2),
            _ => false,
        })
        || model.motors.iter().any(|m| match &m.target {
            mbconv_ir::MotorTarget::BodyPair { body1, body2, .. } => w(body1) || w(body2),
            _ => false,
        })
}
