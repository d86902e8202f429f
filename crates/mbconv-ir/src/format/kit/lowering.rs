//! One lowering in progress, as a named sequence of passes: the model being changed, the
//! findings so far (each tagged with its feature row and the pass that made it), and, when
//! asked, the model after every pass, so that a check can replay the passes one at a time and
//! attribute each change of motion to the pass that made it.

use crate::format::Lowered;
use crate::format::support::Feature;
use crate::model::Model;
use crate::report::{Category, Finding, Report, Severity};
use crate::value::Extras;

/// Whether a lowering keeps the model after each pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Tracing {
    /// Only the final model (what conversions use).
    #[default]
    Off,
    /// The model after every pass that changed it (what the check's replay uses).
    On,
}

/// One pass of a traced lowering: its name, the model after it (when it changed the model)
/// and what it reported.
#[derive(Clone, Debug, PartialEq)]
pub struct PassSnapshot {
    /// The pass's name (`bake_initial_state`, `joint_springs`, ...).
    pub pass: String,
    /// The model after the pass; `None` when the pass left the model as it was.
    pub model: Option<Model>,
    /// The findings (and renames) the pass reported.
    pub report: Report,
}

/// A lowering in progress: the format's passes run one after another through
/// [`LowerSession::run`] (or [`begin`](LowerSession::begin) / [`end`](LowerSession::end)), and
/// report through [`lost`](LowerSession::lost), [`approximated`](LowerSession::approximated)
/// and [`note`](LowerSession::note), which give every finding the code
/// `<format>.<what>`, its feature row and its pass.
///
/// ```
/// use mbconv_ir::format::kit::{LowerSession, Tracing};
/// use mbconv_ir::format::support::Feature;
/// use mbconv_ir::{Group, Model};
/// let mut model = Model::new("m");
/// model.groups.push(Group::new("g", mbconv_ir::GroupType::Other));
/// let mut session = LowerSession::new("toy", &model, Tracing::On);
/// session.run("groups", |s| {
///     for g in std::mem::take(&mut s.model.groups) {
///         s.lost("group_lost", Feature::Groups, &format!("groups[{:?}]", g.name), "toy has no groups");
///     }
/// });
/// session.run("nothing", |_| {});
/// let lowered = session.finish();
/// assert_eq!(lowered.report.findings[0].code, "toy.group_lost");
/// assert_eq!(lowered.report.findings[0].pass.as_deref(), Some("groups"));
/// assert_eq!(lowered.passes.len(), 2);
/// assert!(lowered.passes[0].model.is_some() && lowered.passes[1].model.is_none());
/// ```
#[derive(Debug)]
pub struct LowerSession {
    /// The model being lowered.
    pub model: Model,
    /// The findings so far.
    pub report: Report,
    format: &'static str,
    /// The format's feature table (empty unless started [`with_table`](Self::with_table)).
    pub(super) table: &'static [crate::format::support::FeatureSupport],
    pass: Option<PassStart>,
    trace: Option<Trace>,
    /// The files to write beside the output that the lowered model names (meshes converted
    /// for the target, [`place_asset`](super::place_asset)); [`finish`](Self::finish) hands
    /// them on in [`Lowered::assets`].
    pub assets: Vec<crate::format::Asset>,
}

#[derive(Debug)]
struct PassStart {
    name: &'static str,
    findings: usize,
    renames: usize,
}

#[derive(Debug)]
struct Trace {
    before: Model,
    passes: Vec<PassSnapshot>,
}

impl LowerSession {
    /// Starts lowering a copy of `model` for the format called `format`.
    pub fn new(format: &'static str, model: &Model, tracing: Tracing) -> Self {
        Self {
            model: model.clone(),
            report: Report::default(),
            format,
            table: &[],
            pass: None,
            trace: (tracing == Tracing::On).then(|| Trace {
                before: model.clone(),
                passes: Vec::new(),
            }),
            assets: Vec::new(),
        }
    }

    /// The format's name, the prefix of every finding code.
    pub fn format(&self) -> &'static str {
        self.format
    }

    /// Runs the pass called `name`.
    pub fn run(&mut self, name: &'static str, pass: impl FnOnce(&mut Self)) {
        self.begin(name);
        pass(self);
        self.end();
    }

    /// Runs one of the shared passes of [`crate::lower`] (they take the model and the format's
    /// code prefix and return their findings) as the pass called `name`.
    ///
    /// ```
    /// use mbconv_ir::format::kit::{LowerSession, Tracing};
    /// use mbconv_ir::{Body, Model};
    /// let mut model = Model::new("m");
    /// let mut off = Body::new("off");
    /// off.enabled = false;
    /// model.bodies.push(off);
    /// let mut s = LowerSession::new("skel", &model, Tracing::Off);
    /// s.run_shared("fix_inactive_bodies", mbconv_ir::lower::fix_inactive_bodies);
    /// let lowered = s.finish();
    /// assert!(lowered.report.findings.iter().all(|f| f.pass.as_deref() == Some("fix_inactive_bodies")));
    /// assert!(lowered.model.bodies[0].enabled);
    /// ```
    pub fn run_shared(&mut self, name: &'static str, pass: impl FnOnce(&mut Model, &str) -> Vec<Finding>) {
        self.run(name, |s| {
            let findings = pass(&mut s.model, s.format);
            s.absorb(findings);
        });
    }

    /// Starts the pass called `name` (for passes written as methods of a format's own lowering
    /// type; [`run`](Self::run) is the short form). A pass still open is ended first.
    pub fn begin(&mut self, name: &'static str) {
        if self.pass.is_some() {
            self.end();
        }
        self.pass = Some(PassStart {
            name,
            findings: self.report.findings.len(),
            renames: self.report.renames.len(),
        });
    }

    /// Ends the open pass: tags its findings with its name and, when tracing, keeps the model
    /// after it.
    pub fn end(&mut self) {
        let Some(start) = self.pass.take() else {
            return;
        };
        for finding in &mut self.report.findings[start.findings..] {
            finding.pass.get_or_insert_with(|| start.name.to_owned());
        }
        if let Some(trace) = &mut self.trace {
            let changed = trace.before != self.model;
            if changed {
                trace.before.clone_from(&self.model);
            }
            trace.passes.push(PassSnapshot {
                pass: start.name.to_owned(),
                model: changed.then(|| self.model.clone()),
                report: Report {
                    file: None,
                    findings: self.report.findings[start.findings..].to_vec(),
                    renames: self.report.renames[start.renames..].to_vec(),
                },
            });
        }
    }

    /// A finding `<format>.<what>` on the item at `at` (an IR path; empty for the model).
    pub fn finding(
        &mut self,
        what: &str,
        feature: Feature,
        severity: Severity,
        category: Category,
        at: &str,
        message: impl Into<String>,
    ) {
        let mut finding = Finding::new(self.code(what), severity, category, message).for_feature(feature);
        if !at.is_empty() {
            finding = finding.at(at);
        }
        self.report.push(finding);
    }

    /// The item at `at` was dropped: a warning, or a note for a feature whose loss changes
    /// only the look or the bookkeeping ([`Feature::loss_severity`]).
    pub fn lost(&mut self, what: &str, feature: Feature, at: &str, message: impl Into<String>) {
        self.finding(
            what,
            feature,
            feature.loss_severity(),
            Category::Dropped,
            at,
            message,
        );
    }

    /// The item at `at` was replaced by an approximation: a warning, or a note as for
    /// [`lost`](Self::lost).
    pub fn approximated(&mut self, what: &str, feature: Feature, at: &str, message: impl Into<String>) {
        let severity = feature.loss_severity();
        self.finding(what, feature, severity, Category::Approximated, at, message);
    }

    /// A loss nobody needs to act on (a shape's name, say): a note, still counted as a loss by
    /// `--strict`.
    pub fn lost_note(&mut self, what: &str, feature: Feature, at: &str, message: impl Into<String>) {
        self.finding(what, feature, Severity::Info, Category::Dropped, at, message);
    }

    /// An approximation nobody needs to act on (a value the source does not state, filled in
    /// with the target's default): a note, still a loss the check can explain a difference by.
    pub fn approximated_note(&mut self, what: &str, feature: Feature, at: &str, message: impl Into<String>) {
        self.finding(what, feature, Severity::Info, Category::Approximated, at, message);
    }

    /// A note that the item at `at` was re-expressed exactly.
    pub fn note(&mut self, what: &str, feature: Feature, at: &str, message: impl Into<String>) {
        self.finding(what, feature, Severity::Info, Category::Note, at, message);
    }

    /// Removes something from every joint that has it (`take` returns true when it removed
    /// something) and reports each such joint with one finding `<format>.<what>` of
    /// `category` (a warning for a loss, else information).
    ///
    /// ```
    /// use mbconv_ir::format::kit::{LowerSession, Tracing};
    /// use mbconv_ir::format::support::Feature;
    /// use mbconv_ir::{BodyRef, Category, Joint, JointKind, Model};
    /// let mut model = Model::new("m");
    /// let mut joint = Joint::new("j", JointKind::Spherical, BodyRef::World, BodyRef::World);
    /// joint.joint_id = Some(3);
    /// model.joints.push(joint);
    /// let mut s = LowerSession::new("toy", &model, Tracing::Off);
    /// s.drop_from_joints("joint_id_lost", Feature::FormatExtras, Category::Dropped, "toy has no joint ids", |j| {
    ///     j.joint_id.take().is_some()
    /// });
    /// assert_eq!(s.report.findings[0].path.as_deref(), Some("joints[\"j\"]"));
    /// assert!(s.model.joints[0].joint_id.is_none());
    /// ```
    pub fn drop_from_joints(
        &mut self,
        what: &str,
        feature: Feature,
        category: Category,
        message: &str,
        mut take: impl FnMut(&mut crate::model::joint::Joint) -> bool,
    ) {
        let severity = if category.is_loss() {
            feature.loss_severity()
        } else {
            Severity::Info
        };
        for j in 0..self.model.joints.len() {
            if take(&mut self.model.joints[j]) {
                let at = crate::report::path::item("joints", &self.model.joints[j].name);
                self.finding(what, feature, severity, category, &at, message);
            }
        }
    }

    /// Drops every joint's bushing (the format's joints are ideal), one `joint_bushing_lost`
    /// finding per joint, saying `message`.
    pub fn drop_joint_bushings(&mut self, message: &str) {
        self.drop_from_joints(
            "joint_bushing_lost",
            Feature::Bushings,
            Category::Dropped,
            message,
            |j| j.bushing.take().is_some(),
        );
    }

    /// Drops every joint's id (Choreonoid's), one `joint_id_lost` finding per joint, saying
    /// `message`.
    pub fn drop_joint_ids(&mut self, message: &str) {
        self.drop_from_joints(
            "joint_id_lost",
            Feature::FormatExtras,
            Category::Dropped,
            message,
            |j| j.joint_id.take().is_some(),
        );
    }

    /// Removes every motor, one `motor_lost` finding each, saying `message`.
    pub fn lose_all_motors(&mut self, message: &str) {
        for item in std::mem::take(&mut self.model.motors) {
            let at = crate::report::path::item("motors", &item.name);
            self.lost("motor_lost", Feature::Motors, &at, message);
        }
    }

    /// Removes every body load, one `load_lost` finding each, saying `message`.
    pub fn lose_all_loads(&mut self, message: &str) {
        for item in std::mem::take(&mut self.model.loads) {
            let at = crate::report::path::item("loads", &item.name);
            self.lost("load_lost", Feature::BodyLoads, &at, message);
        }
    }

    /// Removes every group, one `group_lost` finding each, saying `message` (as
    /// [`Self::lose_all_motors`], [`Self::lose_all_loads`] and
    /// [`Self::lose_all_force_elements`] do for their items).
    ///
    /// ```
    /// use mbconv_ir::format::kit::{LowerSession, Tracing};
    /// use mbconv_ir::{Group, GroupType, Model};
    /// let mut model = Model::new("m");
    /// model.groups.push(Group::new("arm", GroupType::Other));
    /// let mut s = LowerSession::new("toy", &model, Tracing::Off);
    /// s.lose_all_groups("toy has no groups");
    /// assert!(s.model.groups.is_empty());
    /// assert_eq!(s.report.findings[0].code, "toy.group_lost");
    /// assert_eq!(s.report.findings[0].path.as_deref(), Some("groups[\"arm\"]"));
    /// ```
    pub fn lose_all_groups(&mut self, message: &str) {
        for item in std::mem::take(&mut self.model.groups) {
            let at = crate::report::path::item("groups", &item.name);
            self.lost("group_lost", Feature::Groups, &at, message);
        }
    }

    /// Removes every device (sensor, camera, light), one `device_lost` finding each, saying
    /// `message`.
    pub fn lose_all_devices(&mut self, message: &str) {
        for item in std::mem::take(&mut self.model.devices) {
            let at = crate::report::path::item("devices", &item.name);
            self.lost("device_lost", Feature::Devices, &at, message);
        }
    }

    /// Leaves out the switched-off joints (they constrain nothing), a `disabled_joint_omitted`
    /// note each.
    pub fn omit_disabled_joints(&mut self) {
        for joint in std::mem::take(&mut self.model.joints) {
            if joint.enabled {
                self.model.joints.push(joint);
            } else {
                let at = crate::report::path::item("joints", &joint.name);
                self.note(
                    "disabled_joint_omitted",
                    Feature::of_joint(&joint.kind),
                    &at,
                    "a switched-off joint is not written (without it the bodies move the same)",
                );
            }
        }
    }

    /// Removes every frame fixed to the world, one `named_frame_lost` finding each, saying
    /// `message`.
    pub fn lose_all_world_frames(&mut self, message: &str) {
        for item in std::mem::take(&mut self.model.world_frames) {
            let at = crate::report::path::item("world_frames", &item.name);
            self.lost("named_frame_lost", Feature::NamedFrames, &at, message);
        }
    }

    /// Removes every constraint: a switched-off one with a `disabled_constraint_omitted` note
    /// (without it the bodies move the same), any other with a `constraint_lost` finding
    /// saying `message(type_name)`.
    ///
    /// ```
    /// use mbconv_ir::format::kit::{LowerSession, Tracing};
    /// use mbconv_ir::{BodyRef, Constraint, ConstraintKind, Extras, Model};
    /// use nalgebra::Vector3;
    /// let mut model = Model::new("m");
    /// let kind = ConstraintKind::Distance {
    ///     body1: BodyRef::World, point1: Vector3::zeros(),
    ///     body2: BodyRef::body("b"), point2: Vector3::zeros(), distance: None,
    /// };
    /// model.constraints.push(Constraint { name: "off".into(), kind, enabled: false, extras: Extras::default() });
    /// let mut s = LowerSession::new("toy", &model, Tracing::Off);
    /// s.lose_all_constraints(|kind| format!("toy has no {kind} constraint"));
    /// assert!(s.model.constraints.is_empty());
    /// assert_eq!(s.report.findings[0].code, "toy.disabled_constraint_omitted");
    /// ```
    pub fn lose_all_constraints(&mut self, message: impl Fn(&str) -> String) {
        for item in std::mem::take(&mut self.model.constraints) {
            let at = crate::report::path::item("constraints", &item.name);
            if item.enabled {
                self.lost(
                    "constraint_lost",
                    Feature::Constraints,
                    &at,
                    message(item.kind.type_name()),
                );
            } else {
                self.note(
                    "disabled_constraint_omitted",
                    Feature::Constraints,
                    &at,
                    "a switched-off constraint is not written (without it the bodies move the same)",
                );
            }
        }
    }

    /// Removes every force element, one finding each (`tsda_lost`, `rsda_lost`,
    /// `bushing_element_lost`, `restraint_lost`), saying `message(type_name)`.
    pub fn lose_all_force_elements(&mut self, message: impl Fn(&str) -> String) {
        for item in std::mem::take(&mut self.model.force_elements) {
            let (what, feature) = force_element_loss(&item.kind);
            let at = crate::report::path::item("force_elements", &item.name);
            self.lost(what, feature, &at, message(item.kind.type_name()));
        }
    }

    /// Adds findings made elsewhere (the shared passes of [`crate::lower`]).
    pub fn absorb(&mut self, findings: impl IntoIterator<Item = Finding>) {
        self.report.findings.extend(findings);
    }

    /// Removes the extras other formats own from `extras` (of the item at `at`), with one
    /// `extras_lost` finding for those that act on the bodies or drive them in their own
    /// simulator ([`ACTING_EXTRAS`]: a warning) and one for the rest, which only say how their
    /// file was written (a note).
    pub fn strip_foreign_extras(&mut self, extras: &mut Extras, at: &str) {
        let (acting, written): (Vec<String>, Vec<String>) = extras
            .take_foreign(self.format)
            .into_iter()
            .partition(|k| acts(k));
        if !acting.is_empty() {
            let message = format!(
                "{} cannot hold other formats' {}: actuators, sensors, couplings, contact pairs or forces their simulator applies",
                self.format,
                acting.join(", ")
            );
            let finding = Finding::new(
                self.code("extras_lost"),
                Severity::Warning,
                Category::Dropped,
                message,
            );
            self.report
                .push(with_place(finding.for_feature(Feature::FormatExtras), at));
        }
        if !written.is_empty() {
            let message = format!(
                "other formats' data {} cannot hold: {}",
                self.format,
                written.join(", ")
            );
            self.lost("extras_lost", Feature::FormatExtras, at, message);
        }
    }

    /// The lowered model, its report and, when tracing, the model after every pass.
    pub fn finish(mut self) -> Lowered {
        self.end();
        Lowered {
            model: self.model,
            report: self.report,
            passes: self.trace.map(|t| t.passes).unwrap_or_default(),
            turned_by: None,
            assets: self.assets,
        }
    }

    fn code(&self, what: &str) -> String {
        format!("{}.{what}", self.format)
    }
}

/// The extras (after their format's prefix, or the start of it before a `.`) that act on the
/// bodies or drive them in their own format's simulator and that no IR field carries: losing
/// one is a warning ([`LowerSession::strip_foreign_extras`]); the other extras only say how
/// their file was written (classes, defaults, compiler settings, names), and losing them is a
/// note.
pub const ACTING_EXTRAS: [&str; 11] = [
    "actuator",
    "transmission",
    "sensor",
    "equality",
    "tendon",
    "contact",
    "springdamper",
    "mimic",
    "option.density",
    "option.viscosity",
    "option.wind",
];

/// Whether the extra `key` (`format.rest`) is one of [`ACTING_EXTRAS`].
fn acts(key: &str) -> bool {
    key.split_once('.').is_some_and(|(_, rest)| {
        ACTING_EXTRAS.iter().any(|a| {
            rest.strip_prefix(a)
                .is_some_and(|tail| tail.is_empty() || tail.starts_with('.'))
        })
    })
}

/// `finding` on the item at `at` (nothing for the model, an empty path).
fn with_place(finding: Finding, at: &str) -> Finding {
    if at.is_empty() { finding } else { finding.at(at) }
}

/// The finding code (`<what>` of `<format>.<what>`) and feature row of losing a force element
/// of kind `kind`.
pub(super) fn force_element_loss(kind: &crate::model::force::ForceKind) -> (&'static str, Feature) {
    use crate::model::force::ForceKind;
    match kind {
        ForceKind::Tsda(_) => ("tsda_lost", Feature::Tsda),
        ForceKind::Rsda(_) => ("rsda_lost", Feature::Rsda),
        ForceKind::Bushing(_) => ("bushing_element_lost", Feature::Bushings),
        ForceKind::Restraint(_) => ("restraint_lost", Feature::Restraints),
    }
}

/// Checks what [`Format::lower_traced`](crate::format::Format::lower_traced) promises for
/// `model`: the same model and report as `lower`, no snapshots from `lower`, the last changed
/// pass's model equal to the lowered model, the passes' findings adding up to the report,
/// every finding coded `<format>.<what>` with its feature row and pass, and no loss on a row
/// the format's table calls kept. Returns the traced
/// lowering, or what does not hold. Format crates call it from their tests.
///
/// ```
/// use mbconv_ir::format::kit::verify_traced_lowering;
/// use mbconv_ir::{Body, Model};
/// let mut model = Model::new("m");
/// model.bodies.push(Body::new("b"));
/// // IR JSON lowers in one untraced step, which the default `lower_traced` reports as one pass.
/// let traced = verify_traced_lowering(&mbconv_ir::mbir::MbirFormat, &model).unwrap();
/// assert_eq!(traced.passes.len(), 1);
/// ```
pub fn verify_traced_lowering(format: &dyn crate::format::Format, model: &Model) -> Result<Lowered, String> {
    let options = crate::format::Options::default();
    let plain = format.lower(model, &options).map_err(|e| e.to_string())?;
    let traced = format.lower_traced(model, &options).map_err(|e| e.to_string())?;
    if plain.model != traced.model {
        return Err("lower and lower_traced give different models".into());
    }
    if plain.report != traced.report {
        return Err("lower and lower_traced give different reports".into());
    }
    if !plain.passes.is_empty() {
        return Err("lower keeps pass snapshots".into());
    }
    let last = traced
        .passes
        .iter()
        .rev()
        .find_map(|p| p.model.as_ref())
        .unwrap_or(model);
    if *last != traced.model {
        return Err("the last changed pass's model is not the lowered model".into());
    }
    let from_passes: Vec<&Finding> = traced.passes.iter().flat_map(|p| &p.report.findings).collect();
    if from_passes.len() != traced.report.findings.len()
        || from_passes
            .iter()
            .zip(&traced.report.findings)
            .any(|(a, b)| *a != b)
    {
        return Err("the passes' findings do not add up to the report".into());
    }
    let prefix = format!("{}.", format.info().name);
    if format.feature_support().is_empty() {
        return Ok(traced);
    }
    for f in &traced.report.findings {
        if !f.code.starts_with(&prefix) || f.feature.is_none() || f.pass.is_none() {
            return Err(format!(
                "finding without its format prefix, feature row or pass: {f:?}"
            ));
        }
    }
    Ok(traced)
}

/// [`verify_traced_lowering`] on every named model of `cases`, and that every traced lowering
/// runs from the pass `first` to the pass `last`. Returns the first failure, named by its case.
pub fn verify_traced_lowerings(
    format: &dyn crate::format::Format,
    cases: &[(String, Model)],
    first: &str,
    last: &str,
) -> Result<(), String> {
    for (name, model) in cases {
        let traced = verify_traced_lowering(format, model).map_err(|e| format!("{name}: {e}"))?;
        let passes = (traced.passes.first(), traced.passes.last());
        if passes.0.map(|p| p.pass.as_str()) != Some(first) || passes.1.map(|p| p.pass.as_str()) != Some(last)
        {
            return Err(format!("{name}: the passes do not run from {first} to {last}"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::model::body::Body;

    #[test]
    fn untraced_sessions_keep_no_snapshots_but_tag_passes() {
        let mut model = Model::new("m");
        model.bodies.push(Body::new("b"));
        let mut s = LowerSession::new("toy", &model, Tracing::Off);
        s.run("mass", |s| {
            s.model.bodies[0].inertial.mass = 2.0;
            s.approximated(
                "mass_rounded",
                Feature::MassProperties,
                "bodies[\"b\"]",
                "rounded",
            );
        });
        let lowered = s.finish();
        assert!(lowered.passes.is_empty());
        assert_eq!(lowered.model.bodies[0].inertial.mass, 2.0);
        let f = &lowered.report.findings[0];
        assert_eq!(
            (f.pass.as_deref(), f.feature),
            (Some("mass"), Some(Feature::MassProperties))
        );
        assert!(f.can_change_motion());
    }

    #[test]
    fn a_traced_pass_keeps_its_renames_and_the_model_after_it() {
        let mut model = Model::new("m");
        model.bodies.push(Body::new("a b"));
        let mut s = LowerSession::new("toy", &model, Tracing::On);
        s.begin("names");
        s.model.bodies[0].name = "a_b".into();
        s.report.rename("body", "a b", "a_b", "bodies[\"a_b\"]");
        s.begin("noop");
        let lowered = s.finish();
        assert_eq!(lowered.passes[0].report.renames.len(), 1);
        assert_eq!(lowered.passes[0].model.as_ref().unwrap().bodies[0].name, "a_b");
        assert_eq!(lowered.passes[1].pass, "noop");
        assert!(lowered.passes[1].model.is_none());
        assert_eq!(lowered.report.findings[0].pass.as_deref(), Some("names"));
    }
}
