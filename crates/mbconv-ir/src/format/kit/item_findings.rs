//! What a writer's pass over one joint's or one body's data loses, approximates and notes,
//! gathered while the item is lowered and said together when it is done: each kind in the
//! order found, repeats of one kind in a row said once (one finding for a loss on every axis or
//! every shape), losses in one wording across formats ("URDF cannot say joint ids").

use super::LowerSession;
use crate::format::support::Feature;
use crate::report::path;
use crate::{Category, DofProperties, Extras, Joint, JointKind, Limits, Severity};

/// One finding waiting for its joint to be done: its code's last part, its feature row and
/// its words.
#[derive(Clone, Debug, PartialEq)]
struct Pending {
    what: &'static str,
    feature: Feature,
    words: String,
}

/// The findings of lowering one joint's or body's data (see the module's introduction).
///
/// ```
/// use mbconv_ir::format::kit::{ItemFindings, LowerSession, Tracing};
/// use mbconv_ir::{Body, BodyRef, Joint, JointKind, Model};
/// let mut model = Model::new("m");
/// model.bodies.push(Body::new("link"));
/// let mut weld = Joint::new("weld", JointKind::Fixed, BodyRef::World, BodyRef::body("link"));
/// weld.joint_id = Some(7);
/// model.joints.push(weld);
/// let mut s = LowerSession::new("toy", &model, Tracing::Off);
/// let mut findings = ItemFindings::new("Toy");
/// findings.lose_joint_id(&mut s.model.joints[0]);
/// s.finish_joint(0, findings);
/// assert_eq!(s.model.joints[0].joint_id, None);
/// assert_eq!(s.report.findings[0].code, "toy.joint_id_lost");
/// assert_eq!(s.report.findings[0].message, "Toy cannot say joint ids");
/// ```
#[derive(Clone, Debug)]
pub struct ItemFindings {
    format: &'static str,
    lost: Vec<Pending>,
    approximated: Vec<Pending>,
    notes: Vec<Pending>,
}

impl ItemFindings {
    /// No findings yet, for the format called `format` as a sentence names it (`URDF`,
    /// `a body file`).
    pub fn new(format: &'static str) -> Self {
        Self {
            format,
            lost: Vec::new(),
            approximated: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// `data` is lost: said as "<format> cannot say <data>".
    pub fn lose(&mut self, what: &'static str, feature: Feature, data: &str) {
        let words = format!("{} cannot say {data}", self.format);
        self.lost.push(Pending { what, feature, words });
    }

    /// A loss, in `message`'s words.
    pub fn lose_in_words(&mut self, what: &'static str, feature: Feature, message: impl Into<String>) {
        let words = message.into();
        self.lost.push(Pending { what, feature, words });
    }

    /// An approximation, in `message`'s words.
    pub fn approximate(&mut self, what: &'static str, feature: Feature, message: impl Into<String>) {
        let words = message.into();
        self.approximated.push(Pending { what, feature, words });
    }

    /// A note, in `message`'s words.
    pub fn note(&mut self, what: &'static str, feature: Feature, message: impl Into<String>) {
        let words = message.into();
        self.notes.push(Pending { what, feature, words });
    }

    /// A continuous track becomes a fixed joint, `written_as` the format says one ("a fixed
    /// joint", "a weld"): its surface motion is lost (`track_as_fixed`).
    pub fn weld_track(&mut self, joint: &mut Joint, written_as: &str) {
        if matches!(joint.kind, JointKind::PseudoContinuousTrack { .. }) {
            joint.kind = JointKind::Fixed;
            let message = format!(
                "{} has no continuous track: written as {written_as} (the surface motion is lost)",
                self.format
            );
            self.approximate("track_as_fixed", Feature::FixedJoint, message);
        }
    }

    /// The joint's bushing compliance is lost: the joint is written rigid (`bushing_lost`).
    pub fn lose_bushing(&mut self, joint: &mut Joint) {
        if joint.bushing.take().is_some() {
            let data = "bushing compliance: the joint is written rigid";
            self.lose("bushing_lost", Feature::Bushings, data);
        }
    }

    /// The joint's id is lost (`joint_id_lost`).
    pub fn lose_joint_id(&mut self, joint: &mut Joint) {
        if joint.joint_id.take().is_some() {
            self.lose("joint_id_lost", Feature::FormatExtras, "joint ids");
        }
    }

    /// The coordinate's name is lost (`coordinate_names_lost`).
    pub fn lose_coordinate_name(&mut self, dof: &mut DofProperties) {
        if dof.name.take().is_some() {
            self.lose("coordinate_names_lost", Feature::FormatExtras, "coordinate names");
        }
    }

    /// The coordinate's acceleration limits are lost (`acceleration_limits_lost`).
    pub fn lose_acceleration_limits(&mut self, dof: &mut DofProperties) {
        if !dof.acceleration_limits.is_unlimited() {
            dof.acceleration_limits = Limits::default();
            let feature = Feature::JointVelocityEffortLimits;
            self.lose("acceleration_limits_lost", feature, "acceleration limits");
        }
    }
}

impl LowerSession {
    /// Ends lowering joint `j`'s data: other formats' extras are removed
    /// ([`strip_foreign_extras`](Self::strip_foreign_extras)), then `findings` are said
    /// (losses, approximations, notes).
    pub fn finish_joint(&mut self, j: usize, findings: ItemFindings) {
        let at = path::item("joints", &self.model.joints[j].name);
        let extras = std::mem::take(&mut self.model.joints[j].extras);
        self.model.joints[j].extras = self.finish_item(&at, extras, findings);
    }

    /// Ends lowering body `b`'s data, as [`finish_joint`](Self::finish_joint) a joint's.
    pub fn finish_body(&mut self, b: usize, findings: ItemFindings) {
        let at = path::item("bodies", &self.model.bodies[b].name);
        let extras = std::mem::take(&mut self.model.bodies[b].extras);
        self.model.bodies[b].extras = self.finish_item(&at, extras, findings);
    }

    /// The item at `at`'s `extras` without other formats' ones, after saying `findings`:
    /// losses, approximations, notes, each list with its repeats in a row said once.
    fn finish_item(&mut self, at: &str, mut extras: Extras, findings: ItemFindings) -> Extras {
        self.strip_foreign_extras(&mut extras, at);
        for (mut pending, category) in [
            (findings.lost, Category::Dropped),
            (findings.approximated, Category::Approximated),
            (findings.notes, Category::Note),
        ] {
            pending.dedup();
            for p in pending {
                let severity = if category.is_loss() {
                    p.feature.loss_severity()
                } else {
                    Severity::Info
                };
                self.finding(p.what, p.feature, severity, category, at, p.words);
            }
        }
        extras
    }
}
