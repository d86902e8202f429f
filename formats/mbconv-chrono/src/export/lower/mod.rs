//! IR -> what Chrono YAML can say, IR to IR. Every change is a finding with its IR path:
//! items Chrono has no place for are removed (`dropped`), values it can only say roughly are
//! replaced by what Chrono will build (`approximated`), and exact re-expressions (a fixed
//! ground body for the world, frames rebuilt from axes) are notes. After this step the emitter
//! writes the model as it is and loses nothing more.

mod bodies;
mod collisions;
mod drives;
mod forces;
mod links;
mod meshes;
mod simulation;
mod springs;

use crate::spec::FORMAT;
use mbconv_ir::format::Lowered;
use mbconv_ir::report::path;
use mbconv_ir::{Body, BodyRef, Category, Extras, Finding, Model, Pose, Report, Severity};

/// Settings of one lowering.
#[derive(Clone, Debug, Default)]
pub(crate) struct LowerSettings {
    /// The simulation file asked for with the `sim-out` setting.
    pub simulation_file: Option<String>,
    /// True when the model file goes to a file (companions can be written beside it).
    pub to_file: bool,
    /// The model file to be written, when known (mesh names are made relative to it).
    pub output_path: Option<std::path::PathBuf>,
}

/// The findings of one lowering.
pub(crate) struct Lowering {
    pub report: Report,
}

impl Lowering {
    /// A warning: something dropped or approximated.
    pub fn lost(&mut self, category: Category, ir_path: &str, message: impl Into<String>) {
        self.push(Severity::Warning, category, ir_path, message);
    }
    /// An informational note: an exact re-expression.
    pub fn note(&mut self, ir_path: &str, message: impl Into<String>) {
        self.push(Severity::Info, Category::Note, ir_path, message);
    }
    fn push(&mut self, severity: Severity, category: Category, ir_path: &str, message: impl Into<String>) {
        let mut finding = Finding::new(format!("{FORMAT}.export"), severity, category, message);
        if !ir_path.is_empty() {
            finding = finding.at(ir_path);
        }
        self.report.push(finding);
    }
    /// Removes the extras of other formats (their data; their exactness aids go silently).
    pub fn strip_foreign_extras(&mut self, extras: &mut Extras, ir_path: &str) {
        let foreign = extras.take_foreign(FORMAT);
        if !foreign.is_empty() {
            self.lost(
                Category::Dropped,
                ir_path,
                format!(
                    "extras of other formats cannot be written to Chrono YAML: {}",
                    foreign.join(", ")
                ),
            );
        }
    }
}

/// Turns `model` into what Chrono YAML can say.
pub(crate) fn lower(model: &Model, settings: &LowerSettings) -> Lowered {
    let mut model = model.clone();
    let mut l = Lowering {
        report: Report::default(),
    };
    // Chrono can neither hold a group's joints nor switch a body off: an immobile group's
    // bodies, like switched-off bodies, are fixed where they start.
    for finding in mbconv_ir::lower::disable_immobile_groups(&mut model, FORMAT) {
        l.report.push(finding);
    }
    for finding in mbconv_ir::lower::fix_inactive_bodies(&mut model, FORMAT) {
        l.report.push(finding);
    }
    // Chrono has no joint coordinates: the initial state goes into body poses and velocities.
    for finding in mbconv_ir::lower::bake_initial_state(&mut model, FORMAT) {
        l.report.push(finding);
    }
    links::joints(&mut l, &mut model);
    links::constraints(&mut l, &mut model);
    forces::force_elements(&mut l, &mut model);
    drives::motors(&mut l, &mut model);
    drives::loads(&mut l, &mut model);
    ground_for_the_world(&mut l, &mut model);
    links::joint_frames(&mut l, &mut model);
    springs::joint_springs(&mut l, &mut model);
    forces::rsda_frames(&mut l, &mut model);
    drives::motor_frames(&mut l, &mut model);
    bodies::bodies(&mut l, &mut model);
    meshes::mesh_paths(&mut l, &mut model, settings.output_path.as_deref());
    collisions::jointed_pairs(&mut l, &model);
    model_parts(&mut l, &mut model);
    simulation::simulation(&mut l, &mut model, settings);
    Lowered::new(model, l.report)
}

/// The reference pose of a body (identity for the world and for unknown bodies).
pub(crate) fn pose_of(model: &Model, r: &BodyRef) -> Pose {
    r.name()
        .and_then(|n| model.body(n))
        .map_or(Pose::identity(), |b| b.pose)
}

/// Chrono YAML has no world body: items attached to the world are attached to an added fixed
/// body at the origin (an exact equivalent).
fn ground_for_the_world(l: &mut Lowering, model: &mut Model) {
    if !super::uses_world(model) {
        return;
    }
    let mut name = "ground".to_owned();
    while model.body(&name).is_some() {
        name.push('_');
    }
    l.note(
        "",
        format!("items attached to the world are attached to an added fixed body {name:?} (Chrono YAML has no world body)"),
    );
    let mut ground = Body::new(name.clone());
    ground.fixed = true;
    model.bodies.insert(0, ground);
    let to_ground = |r: &mut BodyRef| {
        if r.is_world() {
            *r = BodyRef::Body(name.clone());
        }
    };
    for_each_body_ref(model, to_ground);
}

/// Calls `f` on every body reference of the items Chrono writes between bodies.
fn for_each_body_ref(model: &mut Model, mut f: impl FnMut(&mut BodyRef)) {
    for j in &mut model.joints {
        f(&mut j.parent);
        f(&mut j.child);
    }
    for c in &mut model.constraints {
        use mbconv_ir::ConstraintKind as C;
        match &mut c.kind {
            C::Distance { body1, body2, .. }
            | C::RevoluteSpherical { body1, body2, .. }
            | C::RevoluteTranslational { body1, body2, .. }
            | C::ExtraJoint { body1, body2, .. } => {
                f(body1);
                f(body2);
            }
        }
    }
    for e in &mut model.force_elements {
        match &mut e.kind {
            mbconv_ir::ForceKind::Tsda(t) => {
                f(&mut t.body1);
                f(&mut t.body2);
            }
            mbconv_ir::ForceKind::Rsda(r) => {
                f(&mut r.body1);
                f(&mut r.body2);
            }
            _ => {}
        }
    }
    for m in &mut model.motors {
        if let mbconv_ir::MotorTarget::BodyPair { body1, body2, .. } = &mut m.target {
            f(body1);
            f(body2);
        }
    }
}

/// Model-level items Chrono YAML has no place for, and other formats' model extras.
fn model_parts(l: &mut Lowering, model: &mut Model) {
    for d in std::mem::take(&mut model.devices) {
        l.lost(
            Category::Dropped,
            &path::item("devices", &d.name),
            "Chrono YAML has no sensors, cameras or lights",
        );
    }
    for g in std::mem::take(&mut model.groups) {
        l.lost(
            Category::Dropped,
            &path::item("groups", &g.name),
            "Chrono YAML has no groups",
        );
    }
    for f in std::mem::take(&mut model.world_frames) {
        l.lost(
            Category::Dropped,
            &path::item("world_frames", &f.name),
            "Chrono YAML has no named frames",
        );
    }
    l.strip_foreign_extras(&mut model.extras, "");
}
