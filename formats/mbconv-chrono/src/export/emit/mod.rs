//! A lowered model -> Chrono YAML text and companion files. Deterministic: same model, same
//! bytes. Lowering has already made the model something Chrono YAML can say, so nothing here
//! drops or approximates: items the lowering would have removed are skipped without a word.

mod body;
mod drives;
mod forces;
mod links;
mod sim;

use crate::spec::{CHRONO_VERSION, FORMAT};
use mbconv_ir::format::Exported;
use mbconv_ir::{BodyRef, Extras, Model, Report, Value};
use mbconv_yaml::emit::{self as yaml, Yaml as Y};
use std::path::PathBuf;

/// Settings of one emit.
#[derive(Clone, Debug, Default)]
pub(crate) struct EmitSettings {
    /// `Some(true)` degrees, `Some(false)` radians, `None`: as the model was read (degrees
    /// for models from other formats).
    pub degrees: Option<bool>,
    /// The simulation file to write beside the model (the `sim-out` setting).
    pub simulation_file: Option<String>,
    /// Where the model file goes (companions are named after it).
    pub output_path: Option<PathBuf>,
}

/// Writes a lowered model: the model file and, when the model states gravity or a time step
/// (or `sim-out` asks for one), its simulation and solver files.
pub(crate) fn emit(model: &Model, settings: &EmitSettings) -> Exported {
    let text = model_file(model, settings.degrees);
    let names = super::companion_names(
        model,
        settings.simulation_file.as_deref(),
        settings.output_path.as_deref(),
    );
    let (companions, entry) = match names {
        Some(names) => (sim::write(model, &names), Some(names.simulation)),
        None => (Vec::new(), None),
    };
    Exported {
        text,
        companions,
        report: Report::default(),
        entry,
        read_back: mbconv_ir::format::Options::default(),
        assets: Vec::new(),
    }
}

/// What every item writer needs.
pub(crate) struct Out<'m> {
    pub model: &'m Model,
    pub degrees: bool,
    /// Name of the ground body added for items attached to the world (a model that was not
    /// lowered; lowering adds the ground body itself).
    pub ground: Option<String>,
}

impl Out<'_> {
    /// The Chrono body name for a body reference (the added ground for the world).
    pub fn body_name(&self, r: &BodyRef) -> String {
        match r {
            BodyRef::Body(n) => n.clone(),
            BodyRef::World => self.ground.clone().unwrap_or_else(|| "ground".to_owned()),
        }
    }
    /// The reference pose of a body (identity for the world).
    pub fn pose(&self, r: &BodyRef) -> mbconv_ir::Pose {
        r.name()
            .and_then(|n| self.model.body(n))
            .map_or(mbconv_ir::Pose::identity(), |b| b.pose)
    }
}

/// Writes the `chrono.*` extras of an item back at their place (exactness aids, the model
/// file reference and file-level keys excepted).
pub(crate) fn write_extras(entries: &mut Vec<(String, Y)>, extras: &Extras) {
    for (rest, value) in extras.for_format(FORMAT) {
        if !(rest.starts_with("source.") || rest == "model_file" || rest.starts_with("file.")) {
            yaml::insert_at(entries, rest, Y::from_value(value));
        }
    }
}

/// The model file's text.
fn model_file(model: &Model, degrees: Option<bool>) -> String {
    let degrees = degrees.unwrap_or_else(|| match model.extras.get("chrono.source.angle_degrees") {
        Some(Value::Bool(b)) => *b,
        _ => true,
    });
    let mut out = Out {
        model,
        degrees,
        ground: None,
    };
    if super::uses_world(model) {
        let mut name = "ground".to_owned();
        while model.body(&name).is_some() {
            name.push('_');
        }
        out.ground = Some(name);
    }
    let version = match model.extras.get("chrono.source.chrono-version") {
        Some(Value::String(s)) => s.clone(),
        _ => CHRONO_VERSION.to_owned(),
    };
    let mut root: Vec<(String, Y)> = vec![("chrono-version".into(), Y::Plain(version))];
    for (key, value) in model.extras.for_format("chrono") {
        if let Some(rest) = key.strip_prefix("file.") {
            yaml::insert_at(&mut root, rest, Y::from_value(value));
        }
    }
    let mut m: Vec<(String, Y)> = vec![
        ("name".into(), Y::Str(model.name.clone())),
        ("angle_degrees".into(), Y::Bool(degrees)),
    ];
    if let Some(dp) = model.extras.get("chrono.data_path") {
        m.push(("data_path".into(), Y::from_value(dp)));
    }
    let mut bodies = Vec::new();
    if let Some(g) = &out.ground {
        bodies.push(Y::Map(vec![
            ("name".into(), Y::Str(g.clone())),
            ("fixed".into(), Y::Bool(true)),
            ("location".into(), Y::nums(&[0.0; 3])),
        ]));
    }
    for b in &model.bodies {
        bodies.push(body::body(&out, b));
    }
    m.push(("bodies".into(), Y::Seq(bodies)));
    let lists = [
        ("joints", links::joints(&out)),
        ("constraints", links::constraints(&out)),
        ("tsdas", forces::tsdas(&out)),
        ("rsdas", forces::rsdas(&out)),
        ("motors", drives::motors(&out)),
        ("body_loads", drives::loads(&out, false)),
        ("load_controllers", drives::loads(&out, true)),
    ];
    for (key, items) in lists {
        if !items.is_empty() {
            m.push((key.into(), Y::Seq(items)));
        }
    }
    let mut rest = Extras::default();
    for (k, v) in model.extras.iter() {
        if k != "chrono.data_path" {
            rest.insert(k, v.clone());
        }
    }
    write_extras(&mut m, &rest);
    root.push(("model".into(), Y::Map(m)));
    yaml::document(&root)
}
