//! Chrono simulation files (`type: MBS`) and the solver files they name: the only place
//! Chrono keeps gravity and the time step.

use crate::emit::{self, Y};
use crate::import::fields::{Ctx, Fields};
use crate::raw::{self, Node};
use mbconv_ir::format::{Companion, Source, SourceError};
use mbconv_ir::{Category, Model, Report, Severity, Simulation, Value};
use nalgebra::Vector3;
use std::path::{Path, PathBuf};

/// Chrono's default gravity when the simulation file gives none.
pub const DEFAULT_GRAVITY: [f64; 3] = [0.0, 0.0, -9.8];
/// Chrono's default time step when the solver file has no `integrator` block.
pub const DEFAULT_TIME_STEP: f64 = 1e-3;

/// What a simulation file says.
#[derive(Clone, Debug, PartialEq)]
pub struct SimulationFile {
    /// The model file it names, resolved against the simulation file's directory.
    pub model: Option<PathBuf>,
    /// Gravity, time step, end time and verbatim settings.
    pub simulation: Simulation,
}

/// True when the document is a simulation file: `type: MBS` with a `model:` file name.
pub fn is_simulation(root: &Node) -> bool {
    let mbs = root
        .get("type")
        .and_then(Node::scalar)
        .is_some_and(|t| t.trim().eq_ignore_ascii_case("MBS"));
    mbs && root.get("model").and_then(Node::scalar).is_some()
}

/// Reads a simulation file and the solver file it names.
pub fn read(source: &Source, root: &Node, report: &mut Report) -> Result<SimulationFile, Box<SourceError>> {
    let mut ctx = Ctx::new(source, false);
    let mut f = Fields::new(&ctx, root, "the simulation file")?;
    let base = source.base_dir().map(Path::to_path_buf).unwrap_or_default();
    let model = f.get("model").and_then(Node::scalar).map(|m| base.join(m));
    let mut sim = Simulation::default();
    let mut gravity = Vector3::from(DEFAULT_GRAVITY);
    if let Some(s) = f.get("simulation") {
        let mut fs = Fields::new(&ctx, s, "simulation")?;
        if let Some(g) = fs.get("gravity") {
            gravity = ctx.vec3(g, "gravity")?;
        }
        if let Some(e) = fs.get("end_time") {
            let t = ctx.number(e, "end_time")?;
            if t >= 0.0 {
                sim.end_time = Some(t);
            }
        }
        if let Some(ts) = fs.get("time_step") {
            ctx.finding(
                "chrono.key_ignored",
                Severity::Warning,
                Category::Ignored,
                "simulation",
                Some(ts),
                "simulation.time_step is ignored by Chrono; the time step comes from the solver file".into(),
            );
        }
        for (k, v) in s.entries() {
            if !matches!(k.name.as_str(), "gravity" | "end_time") {
                sim.extras
                    .insert(format!("chrono.simulation.{}", k.name), v.to_value());
            }
        }
        fs.mark("enforce_realtime");
    }
    sim.gravity = Some(gravity);
    sim.time_step = Some(DEFAULT_TIME_STEP);
    match f.get("solver").and_then(Node::scalar) {
        Some(name) => {
            let path = base.join(name);
            let solver = Source::from_path(&path).map_err(|e| {
                let node = root.get("solver").unwrap_or(root);
                Box::new(source.error(
                    "chrono.solver_file",
                    Some(node.span(source)),
                    format!("cannot read the solver file {}: {e}", path.display()),
                ))
            })?;
            let sroot = raw::parse(&solver)?;
            let sctx = Ctx::new(&solver, false);
            let mut fs = Fields::new(&sctx, &sroot, "the solver file")?;
            let cm = sctx.upper(fs.req(&sctx, "contact_method")?, "contact_method")?;
            sim.extras.insert("chrono.contact_method", Value::String(cm));
            if let Some(i) = fs.get("integrator") {
                let mut fi = Fields::new(&sctx, i, "integrator")?;
                sim.time_step = Some(sctx.number(fi.req(&sctx, "time_step")?, "time_step")?);
                sim.extras.insert("chrono.integrator", i.to_value());
            }
            if let Some(s) = fs.get("solver") {
                sim.extras.insert("chrono.solver", s.to_value());
            }
        }
        None => ctx.finding(
            "chrono.no_solver",
            Severity::Info,
            Category::Defaulted,
            "simulation",
            Some(root),
            "no solver file: time step 1e-3 (Chrono applies the gravity only with a solver file)".into(),
        ),
    }
    sim.extras.0.0.sort_by(|a, b| a.0.cmp(&b.0));
    report.extend(ctx.report);
    Ok(SimulationFile {
        model,
        simulation: sim,
    })
}

/// The simulation file and its solver file for `model`, naming the model file `model_file`.
/// `sim_name` is the simulation file's name; the solver file is named after it.
pub fn write(model: &Model, model_file: &str, sim_name: &str) -> Vec<Companion> {
    let sim = &model.simulation;
    let stem = sim_name
        .strip_suffix(".yaml")
        .or_else(|| sim_name.strip_suffix(".yml"))
        .unwrap_or(sim_name);
    let solver_name = format!("{stem}_solver.yaml");
    let gravity = sim.gravity.map_or(DEFAULT_GRAVITY, |g| [g.x, g.y, g.z]);
    let mut simulation: Vec<(String, Y)> = vec![("gravity".into(), Y::nums(&gravity))];
    if let Some(t) = sim.end_time {
        simulation.push(("end_time".into(), Y::Num(t)));
    }
    for (k, v) in sim.extras.for_format("chrono") {
        if let Some(rest) = k.strip_prefix("simulation.") {
            emit::insert_at(&mut simulation, rest, Y::from_value(v));
        }
    }
    let root = vec![
        ("chrono-version".to_owned(), Y::Plain("10.0".into())),
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
    emit::insert_at(
        &mut integrator,
        "time_step",
        Y::Num(sim.time_step.unwrap_or(DEFAULT_TIME_STEP)),
    );
    let mut solver = vec![
        ("chrono-version".to_owned(), Y::Plain("10.0".into())),
        ("contact_method".into(), Y::Plain(contact)),
        ("integrator".into(), Y::Map(integrator)),
    ];
    if let Some(s) = sim.extras.get("chrono.solver") {
        solver.push(("solver".into(), Y::from_value(s)));
    }
    vec![
        Companion {
            file_name: sim_name.to_owned(),
            text: emit::document(&root),
        },
        Companion {
            file_name: solver_name,
            text: emit::document(&solver),
        },
    ]
}
