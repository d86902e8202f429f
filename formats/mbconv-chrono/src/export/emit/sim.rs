//! Writing Chrono simulation files (`type: MBS`) and the solver files they name: the only
//! place Chrono keeps gravity and the time step.

use crate::export::CompanionNames;
use crate::spec::{CHRONO_VERSION, DEFAULT_GRAVITY, DEFAULT_TIME_STEP};
use mbconv_ir::format::Companion;
use mbconv_ir::{Model, Value};
use mbconv_yaml::emit::{self as yaml, Yaml as Y};

/// The simulation file and its solver file for `model`, under `names`.
pub(crate) fn write(model: &Model, names: &CompanionNames) -> Vec<Companion> {
    let sim = &model.simulation;
    let (model_file, sim_name, solver_name) = (&names.model, &names.simulation, names.solver.clone());
    let gravity = sim.gravity.map_or(DEFAULT_GRAVITY, |g| [g.x, g.y, g.z]);
    let mut simulation: Vec<(String, Y)> = vec![("gravity".into(), Y::nums(&gravity))];
    if let Some(t) = sim.end_time {
        simulation.push(("end_time".into(), Y::Num(t)));
    }
    for (k, v) in sim.extras.for_format("chrono") {
        if let Some(rest) = k.strip_prefix("simulation.") {
            yaml::insert_at(&mut simulation, rest, Y::from_value(v));
        }
    }
    let root = vec![
        ("chrono-version".to_owned(), Y::Plain(CHRONO_VERSION.into())),
        ("type".into(), Y::Plain("MBS".into())),
        ("model".into(), Y::Str(model_file.to_owned())),
        ("solver".into(), Y::Str(solver_name.clone())),
        ("simulation".into(), Y::Map(simulation)),
    ];
    let contact = match sim.extras.get("chrono.contact_method") {
        Some(Value::String(s)) => s.clone(),
        _ => "NSC".to_owned(),
    };
    let mut integrator: Vec<(String, Y)> = match sim.extras.get("chrono.integrator") {
        Some(v @ Value::Map(_)) => match Y::from_value(v) {
            Y::Map(m) => m,
            _ => Vec::new(),
        },
        _ => vec![("type".into(), Y::Plain("EULER_IMPLICIT_LINEARIZED".into()))],
    };
    yaml::insert_at(
        &mut integrator,
        "time_step",
        Y::Num(sim.time_step.unwrap_or(DEFAULT_TIME_STEP)),
    );
    let mut solver = vec![
        ("chrono-version".to_owned(), Y::Plain(CHRONO_VERSION.into())),
        ("contact_method".into(), Y::Plain(contact)),
        ("integrator".into(), Y::Map(integrator)),
    ];
    if let Some(s) = sim.extras.get("chrono.solver") {
        solver.push(("solver".into(), Y::from_value(s)));
    }
    vec![
        Companion {
            file_name: sim_name.to_owned(),
            text: yaml::document(&root),
        },
        Companion {
            file_name: solver_name,
            text: yaml::document(&solver),
        },
    ]
}
