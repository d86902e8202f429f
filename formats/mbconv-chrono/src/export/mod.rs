//! IR -> Chrono YAML text. Deterministic: same model, same bytes. Everything the IR holds
//! that Chrono YAML cannot say is listed in the report.

mod body;
mod drives;
mod forces;
mod links;

use crate::emit::{self, Y};
use mbconv_ir::report::path;
use mbconv_ir::{BodyRef, Category, Extras, Finding, Model, Report, Severity, Value};

/// Settings of one export.
#[derive(Clone, Debug, Default)]
pub struct ExportOptions {
    /// `Some(true)` degrees, `Some(false)` radians, `None`: as the model was read (degrees
    /// for models from other formats).
    pub degrees: Option<bool>,
}

pub(crate) struct Out<'m> {
    pub model: &'m Model,
    pub report: Report,
    pub degrees: bool,
    /// Name of the ground body added for items attached to the world.
    pub ground: Option<String>,
}

impl Out<'_> {
    pub fn lost(&mut self, category: Category, ir_path: &str, message: impl Into<String>) {
        self.push(
            Finding::new("chrono.export", Severity::Warning, category, message),
            ir_path,
        );
    }
    pub fn note(&mut self, ir_path: &str, message: impl Into<String>) {
        self.push(
            Finding::new("chrono.export", Severity::Info, Category::Note, message),
            ir_path,
        );
    }
    fn push(&mut self, finding: Finding, ir_path: &str) {
        let finding = if ir_path.is_empty() {
            finding
        } else {
            finding.at(ir_path)
        };
        self.report.push(finding);
    }
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

/// Writes the extras of an item: `chrono.*` keys back at their place, other formats' keys
/// reported as dropped.
pub(crate) fn write_extras(out: &mut Out, entries: &mut Vec<(String, Y)>, extras: &Extras, ir_path: &str) {
    for (rest, value) in extras.for_format("chrono") {
        if !(rest.starts_with("source.") || rest == "model_file" || rest.starts_with("file.")) {
            emit::insert_at(entries, rest, Y::from_value(value));
        }
    }
    // Other formats' data (their exactness aids, `<format>.source.*`, are not data).
    let foreign: Vec<&str> = extras.not_for_format("chrono").map(|(k, _)| k).collect();
    if !foreign.is_empty() {
        out.lost(
            Category::Dropped,
            ir_path,
            format!(
                "extras of other formats cannot be written to Chrono YAML: {}",
                foreign.join(", ")
            ),
        );
    }
}

/// Writes a model. Returns the text and the report.
pub fn export(model: &Model, options: &ExportOptions) -> (String, Report) {
    let degrees = options
        .degrees
        .unwrap_or_else(|| match model.extras.get("chrono.source.angle_degrees") {
            Some(Value::Bool(b)) => *b,
            _ => true,
        });
    let mut out = Out {
        model,
        report: Report::default(),
        degrees,
        ground: None,
    };
    if uses_world(model) {
        let mut name = "ground".to_owned();
        while model.body(&name).is_some() {
            name.push('_');
        }
        out.note(
            "",
            format!("items attached to the world are attached to an added fixed body {name:?} (Chrono YAML has no world body)"),
        );
        out.ground = Some(name);
    }
    let version = match model.extras.get("chrono.source.chrono-version") {
        Some(Value::String(s)) => s.clone(),
        _ => "10.0".to_owned(),
    };
    let mut root: Vec<(String, Y)> = vec![("chrono-version".into(), Y::Plain(version))];
    for (key, value) in model.extras.for_format("chrono") {
        if let Some(rest) = key.strip_prefix("file.") {
            emit::insert_at(&mut root, rest, Y::from_value(value));
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
        bodies.push(body::body(&mut out, b));
    }
    m.push(("bodies".into(), Y::Seq(bodies)));
    let lists = [
        ("joints", links::joints(&mut out)),
        ("constraints", links::constraints(&mut out)),
        ("tsdas", forces::tsdas(&mut out)),
        ("rsdas", forces::rsdas(&mut out)),
        ("motors", drives::motors(&mut out)),
        ("body_loads", drives::loads(&mut out, false)),
        ("load_controllers", drives::loads(&mut out, true)),
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
    write_extras(&mut out, &mut m, &rest, "");
    dropped_model_parts(&mut out);
    root.push(("model".into(), Y::Map(m)));
    (emit::document(&root), out.report)
}

fn uses_world(model: &Model) -> bool {
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

fn dropped_model_parts(out: &mut Out) {
    let model = out.model;
    for d in &model.devices {
        out.lost(
            Category::Dropped,
            &path::item("devices", &d.name),
            "Chrono YAML has no sensors, cameras or lights",
        );
    }
    for g in &model.groups {
        out.lost(
            Category::Dropped,
            &path::item("groups", &g.name),
            "Chrono YAML has no groups",
        );
    }
    for f in &model.world_frames {
        out.lost(
            Category::Dropped,
            &path::item("world_frames", &f.name),
            "Chrono YAML has no named frames",
        );
    }
}
