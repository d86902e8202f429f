//! The part of lowering that is the same for every format, driven by the format's feature
//! table: what a row declares `lost` is removed by the kit with the row's own words, so the
//! table and what `lower` does cannot disagree. A format's own `lower` keeps only what is
//! specific to it (what it approximates or re-expresses, and how).
//!
//! Two kinds of steps:
//! * [`LowerSession::lose_unsayable_items`] runs one pass per kind of model item (force
//!   elements, motors, loads, groups, world frames, constraints, devices) and removes every item
//!   whose feature the table declares [`Support::Lost`], one finding each, saying the row's
//!   reason;
//! * [`LowerSession::lose_unsayable_body_data`] does the same for what a body carries (its
//!   gravity switch when the format has no per-body gravity, its named frames, its contact
//!   materials and its shapes' contact settings), and [`LowerSession::symmetrise_inertias`]
//!   keeps the symmetric part of an asymmetric inertia tensor, for the formats that write six
//!   numbers.

use super::LowerSession;
use crate::format::support::{Feature, FeatureSupport, Support, lookup};
use crate::report::path;

/// What a format does with a shape that does not collide (`collidable: false`) when its table
/// declares contact materials lost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CollisionSwitch {
    /// The format writes it its own way (a visual-only element, a contact bitmask): the kit
    /// leaves `collidable` alone.
    Said,
    /// The format has no way to say it: the shape is written colliding, reported with the
    /// shape's other contact settings.
    Lost,
}

/// The per-body gravity switch: the table's gravity row says whether the format carries it.
const BODY_GRAVITY_LOST: &str = "switching gravity off for one body (gravity acts on it)";
/// A shape's contact settings (material, contact radius, collision switch).
const SHAPE_CONTACT_LOST: &str = "per-shape contact settings";
/// An inertia tensor that is not symmetric.
const INERTIA_SYMMETRISED: &str = "an asymmetric inertia tensor (its symmetric part is written)";

impl LowerSession {
    /// Starts lowering a copy of `model` for the format called `format`, whose feature table
    /// is `table` (the one its [`Format::feature_support`](crate::format::Format::feature_support)
    /// returns): the kit's table-driven steps read it.
    ///
    /// ```
    /// use mbconv_ir::format::kit::{LowerSession, Tracing};
    /// use mbconv_ir::format::support::{row, Feature, FeatureSupport, Support};
    /// use mbconv_ir::{Group, GroupType, Model};
    /// const TABLE: &[FeatureSupport] = &[row(Feature::Groups, Support::Lost("toy is one robot"))];
    /// let mut model = Model::new("m");
    /// model.groups.push(Group::new("arm", GroupType::Other));
    /// let mut s = LowerSession::with_table("toy", TABLE, &model, Tracing::Off);
    /// s.lose_unsayable_items(&[]);
    /// let lowered = s.finish();
    /// assert!(lowered.model.groups.is_empty());
    /// assert_eq!(lowered.report.findings[0].code, "toy.group_lost");
    /// assert_eq!(lowered.report.findings[0].message, "toy is one robot");
    /// assert_eq!(lowered.report.findings[0].pass.as_deref(), Some("groups"));
    /// ```
    pub fn with_table(
        format: &'static str,
        table: &'static [FeatureSupport],
        model: &crate::model::Model,
        tracing: super::Tracing,
    ) -> Self {
        let mut session = Self::new(format, model, tracing);
        session.table = table;
        session
    }

    /// How the format's table carries `feature` (kept when the table does not list it).
    pub fn support(&self, feature: Feature) -> Support {
        lookup(self.table, feature)
    }

    /// The reason the table gives when it declares `feature` lost.
    fn lost_reason(&self, feature: Feature) -> Option<&'static str> {
        match self.support(feature) {
            Support::Lost(why) => Some(why),
            _ => None,
        }
    }

    /// Removes the model items whose feature the table declares lost, one pass per kind of
    /// item, in this order: `force_elements` (TSDA, RSDA, bushing and restraint elements, each
    /// by its own row), `motors`, `loads`, `groups`, `world_frames` (the named-frames row),
    /// `constraints` (a switched-off one is a note: without it the bodies move the same) and
    /// `devices`. A kind whose row is not `Lost`, or whose feature is in `handled` (the format
    /// removes it itself, keeping some), is left for the format. Each finding says the row's
    /// reason.
    ///
    /// ```
    /// use mbconv_ir::format::kit::{LowerSession, Tracing};
    /// use mbconv_ir::format::support::{row, Feature, FeatureSupport, Support};
    /// use mbconv_ir::{Group, GroupType, Model};
    /// const TABLE: &[FeatureSupport] = &[row(Feature::Groups, Support::Lost("toy is one robot"))];
    /// let mut model = Model::new("m");
    /// model.groups.push(Group::new("arm", GroupType::Other));
    /// let mut s = LowerSession::with_table("toy", TABLE, &model, Tracing::Off);
    /// s.lose_unsayable_items(&[Feature::Groups]); // the format keeps its groups itself
    /// assert_eq!(s.model.groups.len(), 1);
    /// ```
    pub fn lose_unsayable_items(&mut self, handled: &[Feature]) {
        let lost = |s: &Self, feature: Feature| {
            if handled.contains(&feature) {
                None
            } else {
                s.lost_reason(feature)
            }
        };
        let force_features = [
            Feature::Tsda,
            Feature::Rsda,
            Feature::Bushings,
            Feature::Restraints,
        ];
        if force_features.iter().any(|f| lost(self, *f).is_some()) {
            self.run("force_elements", |s| s.lose_unsayable_force_elements(handled));
        }
        if let Some(why) = lost(self, Feature::Motors) {
            self.run("motors", |s| s.lose_all_motors(why));
        }
        if let Some(why) = lost(self, Feature::BodyLoads) {
            self.run("loads", |s| s.lose_all_loads(why));
        }
        if let Some(why) = lost(self, Feature::Groups) {
            self.run("groups", |s| s.lose_all_groups(why));
        }
        if let Some(why) = lost(self, Feature::NamedFrames) {
            self.run("world_frames", |s| s.lose_all_world_frames(why));
        }
        if let Some(why) = lost(self, Feature::Constraints) {
            self.run("constraints", |s| s.lose_all_constraints(|_| why.to_owned()));
        }
        if let Some(why) = lost(self, Feature::Devices) {
            self.run("devices", |s| s.lose_all_devices(why));
        }
    }

    /// The force elements whose own row is lost (and not `handled`), one finding each.
    fn lose_unsayable_force_elements(&mut self, handled: &[Feature]) {
        let mut kept = Vec::new();
        for item in std::mem::take(&mut self.model.force_elements) {
            let (what, feature) = super::lowering::force_element_loss(&item.kind);
            match self.lost_reason(feature).filter(|_| !handled.contains(&feature)) {
                Some(why) => self.lost(what, feature, &path::item("force_elements", &item.name), why),
                None => kept.push(item),
            }
        }
        self.model.force_elements = kept;
    }

    /// Removes from every body what the table says the format cannot carry: the body's gravity
    /// switch when the gravity row is neither kept nor exact (`body_gravity_lost`: gravity then
    /// acts on the body), its named frames when that row is lost (`named_frame_lost`), its
    /// contact materials and its shapes' contact material and radius when that row is lost
    /// (`contact_material_lost`, `shape_contact_settings_lost`; with
    /// [`CollisionSwitch::Lost`] a shape that does not collide is written colliding, in the
    /// same finding). Call it inside the format's pass that lowers bodies.
    ///
    /// ```
    /// use mbconv_ir::format::kit::{CollisionSwitch, LowerSession, Tracing};
    /// use mbconv_ir::format::support::{row, Feature, FeatureSupport, Support};
    /// use mbconv_ir::{Body, Model};
    /// const TABLE: &[FeatureSupport] = &[
    ///     row(Feature::Gravity, Support::Approximated("world gravity only")),
    ///     row(Feature::NamedFrames, Support::Lost("toy has no named frames")),
    /// ];
    /// let mut model = Model::new("m");
    /// let mut body = Body::new("b");
    /// body.gravity = false;
    /// model.bodies.push(body);
    /// let mut s = LowerSession::with_table("toy", TABLE, &model, Tracing::Off);
    /// s.run("body_data", |s| s.lose_unsayable_body_data(CollisionSwitch::Said));
    /// assert!(s.model.bodies[0].gravity);
    /// assert_eq!(s.report.findings[0].code, "toy.body_gravity_lost");
    /// ```
    pub fn lose_unsayable_body_data(&mut self, collision_switch: CollisionSwitch) {
        let gravity_switch_lost = !matches!(
            self.support(Feature::Gravity),
            Support::Kept | Support::Equivalent(_)
        );
        let frames_lost = self.lost_reason(Feature::NamedFrames);
        let contact_lost = self.lost_reason(Feature::ContactMaterials);
        for b in 0..self.model.bodies.len() {
            let at = path::item("bodies", &self.model.bodies[b].name);
            let body = &mut self.model.bodies[b];
            let mut lost: Vec<(&str, Feature, &str)> = Vec::new();
            if gravity_switch_lost && !body.gravity {
                body.gravity = true;
                lost.push(("body_gravity_lost", Feature::Gravity, BODY_GRAVITY_LOST));
            }
            if let Some(why) = frames_lost
                && !body.frames.is_empty()
            {
                body.frames.clear();
                lost.push(("named_frame_lost", Feature::NamedFrames, why));
            }
            if let Some(why) = contact_lost {
                if !body.contact_materials.is_empty() {
                    body.contact_materials.clear();
                    lost.push(("contact_material_lost", Feature::ContactMaterials, why));
                }
                for shape in &mut body.shapes {
                    // `|`, not `||`: every setting is taken off, not only the first one found.
                    let mut taken =
                        shape.contact_material.take().is_some() | shape.contact_radius.take().is_some();
                    if collision_switch == CollisionSwitch::Lost && !shape.collidable {
                        shape.collidable = true;
                        taken = true;
                    }
                    if taken {
                        lost.push((
                            "shape_contact_settings_lost",
                            Feature::ContactMaterials,
                            SHAPE_CONTACT_LOST,
                        ));
                    }
                }
            }
            // One finding per body and kind (not one per shape).
            lost.dedup();
            for (what, feature, message) in lost {
                self.lost(what, feature, &at, message);
            }
        }
    }

    /// Keeps the symmetric part of every asymmetric inertia tensor (`inertia_symmetrised`),
    /// for formats that write an inertia by six numbers.
    ///
    /// ```
    /// use mbconv_ir::format::kit::{LowerSession, Tracing};
    /// use mbconv_ir::{Body, Inertia, Model};
    /// let mut model = Model::new("m");
    /// let mut body = Body::new("b");
    /// let mut m = Inertia::identity().matrix();
    /// m[(0, 1)] = 0.2;
    /// body.inertial.inertia = Inertia::from_matrix(&m);
    /// model.bodies.push(body);
    /// let mut s = LowerSession::new("toy", &model, Tracing::Off);
    /// s.symmetrise_inertias();
    /// assert_eq!(s.report.findings[0].code, "toy.inertia_symmetrised");
    /// assert_eq!(s.model.bodies[0].inertial.inertia.symmetrised(), None);
    /// ```
    pub fn symmetrise_inertias(&mut self) {
        for b in 0..self.model.bodies.len() {
            let body = &mut self.model.bodies[b];
            if let Some(symmetric) = body.inertial.inertia.symmetrised() {
                body.inertial.inertia = symmetric;
                let at = path::item("bodies", &body.name);
                self.lost(
                    "inertia_symmetrised",
                    Feature::InertiaProducts,
                    &at,
                    INERTIA_SYMMETRISED,
                );
            }
        }
    }

    /// Sets to rest what the table says the format cannot start moving: when the
    /// initial-body-velocities row is lost, every body's initial velocity is dropped
    /// (`body_velocity_lost`); when the initial-joint-velocities row is lost, every joint's
    /// rates are set to zero (`joint_velocity_lost`); each finding says the row's reason. Call
    /// it inside the format's pass that lowers the initial state.
    ///
    /// ```
    /// use mbconv_ir::format::kit::{LowerSession, Tracing};
    /// use mbconv_ir::format::support::{row, Feature, FeatureSupport, Support};
    /// use mbconv_ir::{Body, BodyRef, Joint, JointKind, Model};
    /// use nalgebra::Vector3;
    /// const TABLE: &[FeatureSupport] =
    ///     &[row(Feature::InitialJointVelocities, Support::Lost("toy has no initial velocities"))];
    /// let mut model = Model::new("m");
    /// model.bodies.push(Body::new("link"));
    /// let mut hinge =
    ///     Joint::new("hinge", JointKind::Revolute { axis: Vector3::z() }, BodyRef::World, BodyRef::body("link"));
    /// hinge.v0 = vec![2.0];
    /// model.joints.push(hinge);
    /// let mut s = LowerSession::with_table("toy", TABLE, &model, Tracing::Off);
    /// s.lose_unsayable_velocities();
    /// assert_eq!(s.model.joints[0].v0, vec![0.0]);
    /// assert_eq!(s.report.findings[0].code, "toy.joint_velocity_lost");
    /// assert_eq!(s.report.findings[0].message, "toy has no initial velocities: the joint starts at rest");
    /// ```
    pub fn lose_unsayable_velocities(&mut self) {
        if let Some(why) = self.lost_reason(Feature::InitialBodyVelocities) {
            for b in 0..self.model.bodies.len() {
                if self.model.bodies[b].initial_velocity.take().is_some() {
                    let at = path::item("bodies", &self.model.bodies[b].name);
                    let message = format!("{why}: the body starts at rest");
                    self.lost("body_velocity_lost", Feature::InitialBodyVelocities, &at, message);
                }
            }
        }
        if let Some(why) = self.lost_reason(Feature::InitialJointVelocities) {
            for j in 0..self.model.joints.len() {
                let joint = &mut self.model.joints[j];
                if joint.v0.iter().any(|v| *v != 0.0) {
                    joint.v0.iter_mut().for_each(|v| *v = 0.0);
                    let at = path::item("joints", &joint.name);
                    let message = format!("{why}: the joint starts at rest");
                    self.lost(
                        "joint_velocity_lost",
                        Feature::InitialJointVelocities,
                        &at,
                        message,
                    );
                }
            }
        }
    }
}
