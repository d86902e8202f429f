//! Passes and steps several writers run alike, each under one name, so that the formats'
//! lowerings and the check's attribution (which names passes) read the same everywhere.

use super::LowerSession;
use crate::format::support::Feature;
use crate::kinematics::{Configuration, SpanningTree, world_poses};
use crate::lower::{
    JointSpringSupport, disable_immobile_groups, filter_jointed_contact, fix_inactive_bodies,
    force_elements_as_joint_springs,
};
use crate::report::path;
use crate::{BodyRef, JointKind};

impl LowerSession {
    /// The three passes a writer runs first when its format can switch neither a body nor a
    /// group off and has no switch for contact between jointed bodies:
    /// `disable_immobile_groups` (an immobile group's joints are fixed where they start),
    /// `fix_inactive_bodies` (a switched-off body is fixed where it is) and `jointed_contact`
    /// (contact between bodies a joint connects, as the format's simulator filters it).
    ///
    /// ```
    /// use mbconv_ir::format::kit::{LowerSession, Tracing};
    /// use mbconv_ir::Model;
    /// let mut s = LowerSession::new("toy", &Model::new("m"), Tracing::On);
    /// s.run_settling_passes();
    /// let passes: Vec<_> = s.finish().passes.into_iter().map(|p| p.pass).collect();
    /// assert_eq!(passes, ["disable_immobile_groups", "fix_inactive_bodies", "jointed_contact"]);
    /// ```
    pub fn run_settling_passes(&mut self) {
        self.run_shared("disable_immobile_groups", disable_immobile_groups);
        self.run_shared("fix_inactive_bodies", fix_inactive_bodies);
        self.run_shared("jointed_contact", filter_jointed_contact);
    }

    /// The pass `joint_springs`: spring-dampers acting along or about a joint's own axis
    /// become the joint's spring and damper, as far as `support` says the format has them.
    pub fn run_joint_springs(&mut self, support: JointSpringSupport) {
        self.run_shared("joint_springs", |model, format| {
            force_elements_as_joint_springs(model, format, support)
        });
    }

    /// Drops the simulation's end time, which the format cannot state (`end_time_lost`,
    /// saying `why`).
    pub fn lose_end_time(&mut self, why: &str) {
        if self.model.simulation.end_time.take().is_some() {
            self.lost("end_time_lost", Feature::TimeStep, "simulation.end_time", why);
        }
    }

    /// Removes other formats' extras from the simulation settings and from the model
    /// ([`strip_foreign_extras`](Self::strip_foreign_extras)).
    pub fn strip_foreign_model_extras(&mut self) {
        let mut extras = std::mem::take(&mut self.model.simulation.extras);
        self.strip_foreign_extras(&mut extras, "simulation");
        self.model.simulation.extras = extras;
        let mut extras = std::mem::take(&mut self.model.extras);
        self.strip_foreign_extras(&mut extras, "");
        self.model.extras = extras;
    }
}

impl LowerSession {
    /// For a format that states no simulation settings: `sim`'s time step, end time and
    /// solver settings (the simulation's extras) are lost (`time_step_lost`, `end_time_lost`,
    /// `solver_settings_lost`), each said as `say` says it of "time step", "end time" and
    /// "solver settings".
    ///
    /// ```
    /// use mbconv_ir::format::kit::{LowerSession, Tracing};
    /// use mbconv_ir::Model;
    /// let mut model = Model::new("m");
    /// model.simulation.time_step = Some(1e-3);
    /// let mut s = LowerSession::new("toy", &model, Tracing::Off);
    /// let sim = std::mem::take(&mut s.model.simulation);
    /// s.lose_simulation_settings(&sim, |what| format!("Toy has no {what}"));
    /// assert_eq!(s.report.findings[0].code, "toy.time_step_lost");
    /// assert_eq!(s.report.findings[0].message, "Toy has no time step");
    /// ```
    pub fn lose_simulation_settings(&mut self, sim: &crate::Simulation, say: impl Fn(&str) -> String) {
        if sim.time_step.is_some() {
            self.lost(
                "time_step_lost",
                Feature::TimeStep,
                "simulation.time_step",
                say("time step"),
            );
        }
        if sim.end_time.is_some() {
            self.lost(
                "end_time_lost",
                Feature::TimeStep,
                "simulation.end_time",
                say("end time"),
            );
        }
        if !sim.extras.is_empty() {
            let words = say("solver settings");
            self.lost("solver_settings_lost", Feature::TimeStep, "simulation", words);
        }
    }
}

impl LowerSession {
    /// Welds body `b`, which is fixed, to the world by a fixed joint called `joint` at the
    /// body's pose; the body is no longer fixed (`fixed_body_welded`, saying `message`).
    pub fn weld_fixed_body(&mut self, b: usize, joint: String, message: impl Into<String>) {
        let body = &mut self.model.bodies[b];
        body.fixed = false;
        let mut weld = crate::Joint::new(joint, JointKind::Fixed, BodyRef::World, BodyRef::body(&body.name));
        weld.parent_frame = body.pose;
        let at = path::item("bodies", &body.name);
        self.model.joints.push(weld);
        self.note("fixed_body_welded", Feature::FixedBodies, &at, message);
    }

    /// Welds every fixed body to the world by a fixed joint `<body>_fixed` (with `_` added
    /// until no joint has the name), said as welded to `world` ("the world link").
    ///
    /// ```
    /// use mbconv_ir::format::kit::{LowerSession, Tracing};
    /// use mbconv_ir::{Body, Model};
    /// let mut model = Model::new("m");
    /// let mut base = Body::new("base");
    /// base.fixed = true;
    /// model.bodies.push(base);
    /// let mut s = LowerSession::new("toy", &model, Tracing::Off);
    /// s.weld_fixed_bodies("the world");
    /// assert!(!s.model.bodies[0].fixed);
    /// assert_eq!(s.model.joints[0].name, "base_fixed");
    /// assert_eq!(s.report.findings[0].message, "the fixed body is welded to the world by a fixed joint");
    /// ```
    pub fn weld_fixed_bodies(&mut self, world: &str) {
        for b in 0..self.model.bodies.len() {
            if self.model.bodies[b].fixed {
                let mut name = format!("{}_fixed", self.model.bodies[b].name);
                while self.model.joints.iter().any(|j| j.name == name) {
                    name.push('_');
                }
                let message = format!("the fixed body is welded to {world} by a fixed joint");
                self.weld_fixed_body(b, name, message);
            }
        }
    }
}

impl LowerSession {
    /// Recomputes every body's pose from the joint frames in the reference configuration,
    /// walking `tree`: the passes before it change joint frames, add links and move body frames
    /// without touching the stored poses, which the emitters of tree formats then write.
    pub fn reset_reference_poses(&mut self, tree: &SpanningTree) {
        let poses = world_poses(&self.model, tree, Configuration::Reference);
        for (body, pose) in self.model.bodies.iter_mut().zip(poses) {
            body.pose = pose;
        }
    }
}

/// What [`LowerSession::state_unstated_simulation`] filled in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unstated {
    /// The model stated no gravity: it now has the writer's.
    pub gravity: bool,
    /// The model stated no time step: it now has the writer's.
    pub time_step: bool,
}

impl LowerSession {
    /// For a writer that must state gravity and a time step: a model that leaves either
    /// unstated is given `gravity` or `time_step`; says which, for the writer to report in its
    /// own words (a default its simulator would apply anyway is a note, another an
    /// approximation).
    ///
    /// ```
    /// use mbconv_ir::format::kit::{LowerSession, Tracing};
    /// use mbconv_ir::Model;
    /// use nalgebra::Vector3;
    /// let mut model = Model::new("m");
    /// model.simulation.time_step = Some(1e-3);
    /// let mut s = LowerSession::new("toy", &model, Tracing::Off);
    /// let unstated = s.state_unstated_simulation(Vector3::new(0.0, 0.0, -9.81), 1e-2);
    /// assert!(unstated.gravity && !unstated.time_step);
    /// assert_eq!(s.model.simulation.time_step, Some(1e-3));
    /// ```
    pub fn state_unstated_simulation(&mut self, gravity: nalgebra::Vector3<f64>, time_step: f64) -> Unstated {
        let sim = &mut self.model.simulation;
        let unstated = Unstated {
            gravity: sim.gravity.is_none(),
            time_step: sim.time_step.is_none(),
        };
        sim.gravity.get_or_insert(gravity);
        sim.time_step.get_or_insert(time_step);
        unstated
    }
}
