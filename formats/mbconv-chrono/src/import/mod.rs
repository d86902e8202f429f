//! Chrono YAML node tree -> IR, applying every default and convention of Chrono's parser
//! (`ChParserMbsYAML`) explicitly and recording what it ignores or changes in the report.

mod body;
mod drives;
pub(crate) mod fields;
mod forces;
mod function;
mod links;
mod sim;

use crate::raw::{self, Node};
use crate::spec::{DEFAULT_GRAVITY, FORMAT};
use fields::{Ctx, Fields};
use mbconv_ir::format::{Imported, Source, SourceError};
use mbconv_ir::report::path;
use mbconv_ir::{Category, Model, Severity, Value};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// Settings of one import.
#[derive(Clone, Debug, Default)]
pub(crate) struct ImportOptions {
    /// Reproduce Chrono's fallbacks for unknown enum values (joint type -> LOCK, unknown
    /// constraint/shape types dropped) instead of failing.
    pub lenient: bool,
    /// Normalise non-unit quaternions as written (the `normalize-quaternions` setting) instead
    /// of placing the centre of mass where Chrono's parser puts it.
    pub normalize_quaternions: bool,
    /// A simulation file to take gravity and time step from (the `sim` setting).
    pub simulation_file: Option<String>,
}

/// Reads a model file, or a simulation file and the model file it names. Every model read
/// says that jointed bodies collide: Chrono's parser puts every shape in collision family 0.
pub(crate) fn read(source: &Source, options: &ImportOptions) -> Result<Imported, Box<SourceError>> {
    let mut imported = read_files(source, options)?;
    imported.model.simulation.jointed_bodies_collide = true;
    Ok(imported)
}

fn read_files(source: &Source, options: &ImportOptions) -> Result<Imported, Box<SourceError>> {
    let root = raw::parse(source)?;
    if sim::is_simulation(&root) {
        let mut report = mbconv_ir::Report::for_file(&source.name);
        let simfile = sim::read(source, &root, &mut report)?;
        let model_path = simfile.model.clone().unwrap_or_default();
        let model_source = Source::from_path(&model_path).map_err(|e| {
            let node = root.get("model").unwrap_or(&root);
            Box::new(source.error(
                "chrono.model_file",
                Some(node.span(source)),
                format!("cannot read the model file {}: {e}", model_path.display()),
            ))
        })?;
        let model_root = raw::parse(&model_source)?;
        let mut imported = import(&model_source, &model_root, options)?;
        imported.model.simulation = simfile.simulation;
        // The model's findings and spans belong to the model file, not the simulation file.
        imported.report.pin_file();
        report.extend(std::mem::take(&mut imported.report));
        imported.report = report;
        imported.source_map_file = Some(model_source.name.clone());
        return Ok(imported);
    }
    let mut imported = import(source, &root, options)?;
    if let Some(sim_path) = &options.simulation_file {
        let sim_source = Source::from_path(Path::new(sim_path)).map_err(|e| {
            Box::new(Source::from_string(sim_path.as_str(), "").error(
                "chrono.sim_file",
                None,
                format!("cannot read the simulation file: {e}"),
            ))
        })?;
        let sim_root = raw::parse(&sim_source)?;
        // The simulation file's findings name it, not the model file.
        let mut sim_report = mbconv_ir::Report::for_file(&sim_source.name);
        let simfile = sim::read(&sim_source, &sim_root, &mut sim_report)?;
        sim_report.pin_file();
        imported.report.extend(sim_report);
        imported.model.simulation = simfile.simulation;
    } else {
        // Chrono's parser simulates a model file read alone with its default gravity.
        imported.model.simulation.gravity = Some(nalgebra::Vector3::from(DEFAULT_GRAVITY));
        let finding = mbconv_ir::Finding::new(
            format!("{FORMAT}.default"),
            mbconv_ir::Severity::Info,
            Category::Defaulted,
            "gravity [0, 0, -9.8]: a model file without a simulation file gets Chrono's default gravity",
        )
        .at("simulation.gravity");
        imported.report.push(finding);
    }
    Ok(imported)
}

/// The lists of items between bodies, in the order they are read (bodies come first).
const ITEM_LISTS: &[&str] = &[
    "joints",
    "constraints",
    "tsdas",
    "rsdas",
    "motors",
    "body_loads",
    "load_controllers",
];

/// Reads a Chrono YAML model file (already parsed into nodes).
fn import(source: &Source, root: &Node, options: &ImportOptions) -> Result<Imported, Box<SourceError>> {
    let mut ctx = Ctx::new(source, options.lenient);
    ctx.normalize_quaternions = options.normalize_quaternions;
    let mut model = Model::new("model");
    let mut top = Fields::new(&ctx, root, "the file")?;
    let model_node = top.req(&ctx, "model")?;
    read_version(&mut ctx, &mut top, root, &mut model);
    top.finish_into(&mut ctx, &mut model.extras, "file.", "");

    let mut m = Fields::new(&ctx, model_node, "model")?;
    read_settings(&mut ctx, &mut m, model_node, &mut model)?;
    let Some(bodies) = m.get("bodies") else {
        return Err(no_bodies(source, model_node));
    };
    body::bodies(&mut ctx, &mut model, bodies)?;
    let mut lists: Vec<(&str, &Node)> = Vec::new();
    for key in ITEM_LISTS {
        if let Some(n) = m.get(key) {
            lists.push((key, n));
        }
    }
    for (key, node) in lists {
        ctx.expect_list(node, key)?;
        match key {
            "joints" => links::joints(&mut ctx, &mut model, node)?,
            "constraints" => links::constraints(&mut ctx, &mut model, node)?,
            "tsdas" => forces::tsdas(&mut ctx, &mut model, node)?,
            "rsdas" => forces::rsdas(&mut ctx, &mut model, node)?,
            "motors" => drives::motors(&mut ctx, &mut model, node)?,
            "body_loads" => drives::loads(&mut ctx, &mut model, node, false)?,
            _ => drives::loads(&mut ctx, &mut model, node, true)?,
        }
    }
    m.mark("FEA");
    m.finish_into(&mut ctx, &mut model.extras, "", "");
    check_unique_force_names(&ctx, &model)?;
    Ok(ctx.session.finish(model))
}

/// `chrono-version`: kept in the extras; a version other than 10.0, or none, is noted.
fn read_version(ctx: &mut Ctx, top: &mut Fields, root: &Node, model: &mut Model) {
    match top.get("chrono-version") {
        Some(v) => {
            let text = v.scalar().unwrap_or_default().to_owned();
            let ok = {
                let parts: Vec<&str> = text.split('.').collect();
                parts.len() >= 2 && parts[0] == "10" && parts[1] == "0"
            };
            if !ok {
                ctx.finding(
                    "chrono.version",
                    Severity::Warning,
                    Category::Note,
                    "",
                    Some(v),
                    format!(
                        "chrono-version {text:?} is not 10.0: Chrono 10.0's parser would reject the file"
                    ),
                );
            }
            model
                .extras
                .insert("chrono.source.chrono-version", Value::String(text));
        }
        None => ctx.finding(
            "chrono.version_missing",
            Severity::Info,
            Category::Defaulted,
            "",
            Some(root),
            "no chrono-version; Chrono only accepts a file that states 10.0".to_owned(),
        ),
    }
}

/// The `model` mapping's settings: `name`, `angle_degrees` (which sets the context's angle
/// unit), `data_path` and an `FEA` section (kept verbatim and noted).
fn read_settings(
    ctx: &mut Ctx,
    m: &mut Fields,
    model_node: &Node,
    model: &mut Model,
) -> Result<(), Box<SourceError>> {
    match m.get("name") {
        Some(n) => model.name = ctx.string(n, "model name")?,
        None => ctx.defaulted(
            "",
            Some(model_node),
            "model name defaults to \"model\" (Chrono's parser)",
        ),
    }
    ctx.degrees = match m.get("angle_degrees") {
        Some(n) => ctx.boolean(n, "angle_degrees")?,
        None => {
            ctx.defaulted(
                "",
                Some(model_node),
                "angle_degrees defaults to true: angles are in degrees",
            );
            true
        }
    };
    model
        .extras
        .insert("chrono.source.angle_degrees", Value::Bool(ctx.degrees));
    if let Some(dp) = m.get("data_path") {
        ctx.data_path(dp)?;
        model.extras.insert("chrono.data_path", dp.to_value());
    }
    if let Some(fea) = m.get("FEA") {
        let parts: Vec<&str> = fea.entries().iter().map(|(k, _)| k.name.as_str()).collect();
        ctx.finding(
            "chrono.fea_unsupported",
            Severity::Warning,
            Category::Dropped,
            "",
            Some(fea),
            format!(
                "the FEA section ({}) is not supported: mbconv converts rigid multibody models; finite elements are kept verbatim for Chrono output only",
                parts.join(", ")
            ),
        );
        model.extras.insert("chrono.FEA", fea.to_value());
    }
    Ok(())
}

/// The error for a model without `bodies`, pointing at its finite-element keys when it has
/// only those.
fn no_bodies(source: &Source, model_node: &Node) -> Box<SourceError> {
    let fea: Vec<&crate::raw::Key> = model_node
        .entries()
        .iter()
        .map(|(k, _)| k)
        .filter(|k| k.name.starts_with("FEA"))
        .collect();
    let span = match fea.first() {
        Some(k) => source.span(k.offset, k.length),
        None => model_node.span(source),
    };
    let fea: Vec<&str> = fea.iter().map(|k| k.name.as_str()).collect();
    let message = if fea.is_empty() {
        "missing required key `bodies` in model".to_owned()
    } else {
        format!(
            "unsupported model: it has no `bodies`, only finite-element data ({}); mbconv converts rigid multibody models",
            fea.join(", ")
        )
    };
    Box::new(source.error("chrono.missing_key", Some(span), message))
}

fn check_unique_force_names(ctx: &Ctx, model: &Model) -> Result<(), Box<SourceError>> {
    let mut seen = HashSet::new();
    for f in &model.force_elements {
        if !seen.insert(&f.name) {
            let p = path::item("force_elements", &f.name);
            return Err(ctx.session.error(
                "duplicate_name",
                ctx.session.source_map.get(&p).cloned(),
                format!("duplicate name {:?}: a TSDA and an RSDA share it, and mbconv keeps force elements in one list", f.name),
            ));
        }
    }
    Ok(())
}

/// Where data files are looked up (`data_path`).
#[derive(Clone, Debug, Default)]
pub(crate) struct DataPath {
    /// `Some(root)` for RELATIVE.
    pub relative_root: Option<String>,
    /// The model file's directory.
    pub base: Option<PathBuf>,
}
