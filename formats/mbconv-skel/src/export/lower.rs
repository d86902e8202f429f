//! IR -> IR: the model as SKEL can say it, and a finding for every change.
//!
//! In order: the simulation settings; items SKEL has no element for (constraints, motors,
//! loads, devices, world frames, force elements other than the joint springs of
//! `springs`); loop-closing and unusable joints; body velocities (tree bodies: fitted joint
//! rates; floating bodies: an explicit free joint carrying them); skeletons (a group for every
//! tree outside a skeleton group, free stand-ins for joints between two skeletons); joints met
//! from their child side turned round; joint kinds, actuators and DOF data SKEL lacks; body and
//! shape data SKEL lacks (`bodies`); and bodies DART never checks for contact
//! (`collisions`). Emitting the result loses nothing more.

mod bodies;
mod collisions;
mod joints;
mod skeleton_groups;
mod springs;
mod support;
mod tree;

pub(crate) use support::FEATURE_SUPPORT;

use crate::spec::FORMAT;
use mbconv_ir::format::Lowered;
use mbconv_ir::report::path;
use mbconv_ir::{Category, Extras, Model, Report, Severity};

/// The code prefix of lowering findings (`export.<what>`).
const CODE: &str = "export";

/// Distance (the pose metric: the larger of metres and radians) above which a joint's
/// parent-side frame is reported as disagreeing with the stored body poses.
const POSE_MISMATCH: f64 = 1e-6;

/// Lowers `model` for SKEL.
pub(crate) fn lower(model: &Model) -> Lowered {
    let mut lowering = Lowering {
        model: model.clone(),
        report: Report::default(),
    };
    // DART cannot switch a body off: a switched-off body is fixed where it is.
    let fixed = mbconv_ir::lower::fix_inactive_bodies(&mut lowering.model, FORMAT);
    lowering.report.findings.extend(fixed);
    lowering.simulation();
    lowering.unsayable_items();
    lowering.unusable_joints();
    lowering.velocities();
    lowering.skeletons();
    lowering.reversed_joints();
    lowering.pose_agreement();
    lowering.joints();
    lowering.bodies();
    lowering.collisions(model);
    Lowered::new(lowering.model, lowering.report)
}

/// One lowering in progress: the model being changed and the findings so far.
struct Lowering {
    model: Model,
    report: Report,
}

impl Lowering {
    fn finding(
        &mut self,
        what: &str,
        severity: Severity,
        category: Category,
        at: &str,
        message: impl Into<String>,
    ) {
        self.report
            .add(&format!("{CODE}.{what}"), severity, category, at, message);
    }

    /// A warning that something was dropped.
    fn drop(&mut self, what: &str, at: &str, message: impl Into<String>) {
        self.finding(what, Severity::Warning, Category::Dropped, at, message);
    }

    /// Removes the extras other formats own, with one finding per item.
    fn foreign_extras(&mut self, at: &str, extras: &mut Extras) {
        let keys = extras.take_foreign(FORMAT);
        if keys.is_empty() {
            return;
        }
        self.drop(
            "extras",
            at,
            format!("format-specific data SKEL cannot hold: {}", keys.join(", ")),
        );
    }

    /// End time, gravity, foreign simulation and model extras.
    fn simulation(&mut self) {
        let mut simulation = std::mem::take(&mut self.model.simulation);
        if simulation.gravity.is_none() {
            self.finding(
                "gravity_default",
                Severity::Info,
                Category::Note,
                "simulation.gravity",
                "the model gives no gravity; DART will use 0 0 -9.81",
            );
        }
        if simulation.end_time.take().is_some() {
            self.drop("end_time", "simulation.end_time", "SKEL has no end time");
        }
        self.foreign_extras("simulation", &mut simulation.extras);
        self.model.simulation = simulation;
        let mut extras = std::mem::take(&mut self.model.extras);
        self.foreign_extras("model", &mut extras);
        self.model.extras = extras;
    }

    /// Constraints, force elements (but joint springs), motors, loads, devices, world frames.
    fn unsayable_items(&mut self) {
        let m = &mut self.model;
        let constraints = std::mem::take(&mut m.constraints);
        let motors = std::mem::take(&mut m.motors);
        let loads = std::mem::take(&mut m.loads);
        let devices = std::mem::take(&mut m.devices);
        let world_frames = std::mem::take(&mut m.world_frames);
        for c in constraints {
            self.drop(
                "constraint",
                &path::item("constraints", &c.name),
                "SKEL has no constraints",
            );
        }
        self.force_elements();
        for x in motors {
            self.drop("motor", &path::item("motors", &x.name), "SKEL has no motors");
        }
        for x in loads {
            self.drop(
                "load",
                &path::item("loads", &x.name),
                "SKEL has no external loads",
            );
        }
        for x in devices {
            self.drop(
                "device",
                &path::item("devices", &x.name),
                "SKEL has no sensors, cameras or lights",
            );
        }
        for x in world_frames {
            self.drop(
                "world_frame",
                &path::item("world_frames", &x.name),
                "SKEL has no world frames",
            );
        }
    }

    /// Force elements: joint springs where exact (`springs`), dropped otherwise.
    fn force_elements(&mut self) {
        let elements = std::mem::take(&mut self.model.force_elements);
        for element in elements {
            let at = path::item("force_elements", &element.name);
            match springs::as_joint_spring(&self.model, &element) {
                Some(spring) => {
                    let joint = &mut self.model.joints[spring.joint];
                    let message = spring.apply(joint);
                    self.finding("joint_spring", Severity::Info, Category::Note, &at, message);
                }
                None => self.drop(
                    "force_element",
                    &at,
                    "SKEL has no spring-dampers, bushings or restraints",
                ),
            }
        }
    }

    /// Joint kinds, actuators, bushings, ids and DOF data SKEL lacks.
    fn joints(&mut self) {
        let mut all = std::mem::take(&mut self.model.joints);
        for joint in &mut all {
            let at = path::item("joints", &joint.name);
            for finding in joints::lower_joint(joint, &at) {
                self.report.push(finding);
            }
            self.foreign_extras(&at, &mut joint.extras);
        }
        self.model.joints = all;
    }

    /// Body and shape data SKEL lacks.
    fn bodies(&mut self) {
        let mut all = std::mem::take(&mut self.model.bodies);
        for body in &mut all {
            let at = path::item("bodies", &body.name);
            for (k, shape) in body.shapes.iter_mut().enumerate() {
                if bodies::missing_geometry(&shape.geometry).is_none() {
                    self.foreign_extras(&path::index(&at, "shapes", k), &mut shape.extras);
                }
            }
            for finding in bodies::lower_body(body) {
                self.report.push(finding);
            }
            self.foreign_extras(&at, &mut body.extras);
        }
        self.model.bodies = all;
    }

    /// Pairs of jointed bodies that both collide: DART never checks them (pairs already in one
    /// DART skeleton of the `source` model were under that rule before).
    fn collisions(&mut self, source: &Model) {
        for finding in collisions::unchecked_pairs(&self.model, source) {
            self.report.push(finding);
        }
        for finding in collisions::unchecked_skeletons(&self.model, source) {
            self.report.push(finding);
        }
    }
}
