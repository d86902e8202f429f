//! Reading Chrono simulation files (`type: MBS`) and the solver files they name: the only
//! place Chrono keeps gravity and the time step.

use super::fields::{Ctx, Fields};
use crate::raw::{self, Node};
use crate::spec::{DEFAULT_GRAVITY, DEFAULT_TIME_STEP};
use mbconv_ir::format::{Source, SourceError};
use mbconv_ir::{Category, Report, Severity, Simulation, Value};
use nalgebra::Vector3;
use std::path::{Path, PathBuf};

/// What a simulation file says.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SimulationFile {
    /// The model file it names, resolved against the simulation file's directory.
    pub model: Option<PathBuf>,
    /// Gravity, time step, end time and verbatim settings.
    pub simulation: Simulation,
}

/// True when the document is a simulation file: `type: MBS` with a `model:` file name.
pub(crate) fn is_simulation(root: &Node) -> bool {
    let mbs = root
        .get("type")
        .and_then(Node::scalar)
        .is_some_and(|t| t.trim().eq_ignore_ascii_case("MBS"));
    mbs && root.get("model").and_then(Node::scalar).is_some()
}

/// Reads a simulation file and the solver file it names.
pub(crate) fn read(
    source: &Source,
    root: &Node,
    report: &mut Report,
) -> Result<SimulationFile, Box<SourceError>> {
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
    report.extend(ctx.session.report);
    Ok(SimulationFile {
        model,
        simulation: sim,
    })
}
