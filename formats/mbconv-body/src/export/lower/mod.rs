//! IR -> IR: the model as a Choreonoid body can say it, and a finding for every change.
//!
//! In order: simulation settings and items a body file has no key for; velocities (a body file
//! has none); fixed and floating bodies attached to the world by explicit joints; joints met
//! from their child side reversed (`mbconv_ir::lower::reverse_joint`, which mirrors limits);
//! several world joints gathered under one fixed massless root link; loop-closing joints as
//! extra joints; multi-dof joints as chains of massless links; body frames moved onto the
//! joint frames (`move_body_frame`); joint and body data the format lacks; reference poses
//! recomputed from the tree. Emitting the result loses nothing more.

mod topology;

use crate::spec::{FORMAT, GRAVITY};
use mbconv_ir::format::Lowered;
use mbconv_ir::kinematics::{Configuration, SpanningTree, joint_motion, world_poses};
use mbconv_ir::lower::{disable_immobile_groups, explicit_free_joints, fix_inactive_bodies};
use mbconv_ir::report::path;
use mbconv_ir::{
    BodyRef, Category, ConstraintKind, Extras, Geometry, Inertia, Joint, JointKind, Limits, Model, Report,
    Severity,
};
use nalgebra::{UnitQuaternion, Vector3};

const CODE: &str = "export";

/// Lowers `model` for the Choreonoid Body format.
pub(crate) fn lower(model: &Model) -> Lowered {
    let mut l = Lowering {
        model: model.clone(),
        report: Report::default(),
    };
    // A body file can neither hold a group's joints nor switch a link off: an immobile
    // group's bodies, like switched-off bodies, are fixed where they start.
    let disabled = disable_immobile_groups(&mut l.model, FORMAT);
    l.report_all(disabled);
    let fixed = fix_inactive_bodies(&mut l.model, FORMAT);
    l.report_all(fixed);
    l.simulation();
    l.unsayable_items();
    l.velocities();
    l.fixed_bodies();
    let findings = explicit_free_joints(&mut l.model, FORMAT);
    l.report_all(findings);
    l.reversed_joints();
    l.single_root();
    l.loops();
    l.chains();
    l.body_frames();
    l.joint_data();
    l.bodies();
    l.reference_poses();
    Lowered::new(l.model, l.report)
}

/// One lowering in progress: the model being changed and the findings so far.
pub(super) struct Lowering {
    pub(super) model: Model,
    pub(super) report: Report,
}

impl Lowering {
    pub(super) fn finding(
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
    pub(super) fn drop(&mut self, what: &str, at: &str, message: impl Into<String>) {
        self.finding(what, Severity::Warning, Category::Dropped, at, message);
    }
    pub(super) fn approximate(&mut self, what: &str, at: &str, message: impl Into<String>) {
        self.finding(what, Severity::Warning, Category::Approximated, at, message);
    }
    pub(super) fn note(&mut self, what: &str, at: &str, message: impl Into<String>) {
        self.finding(what, Severity::Info, Category::Note, at, message);
    }
    pub(super) fn report_all(&mut self, findings: Vec<mbconv_ir::Finding>) {
        for f in findings {
            self.report.push(f);
        }
    }

    /// Removes the extras other formats own.
    pub(super) fn foreign_extras(&mut self, at: &str, extras: &mut Extras) {
        let keys = extras.take_foreign(FORMAT);
        if keys.is_empty() {
            return;
        }
        self.drop(
            "extras",
            at,
            format!(
                "format-specific data a body file cannot hold: {}",
                keys.join(", ")
            ),
        );
    }

    fn simulation(&mut self) {
        let sim = std::mem::take(&mut self.model.simulation);
        match sim.gravity {
            Some(g) if g != Vector3::from(GRAVITY) => self.drop(
                "gravity",
                "simulation.gravity",
                format!(
                    "a body file has no gravity; Choreonoid applies (0, 0, -9.80665), not {:?}",
                    [g.x, g.y, g.z]
                ),
            ),
            None => self.note(
                "gravity",
                "simulation.gravity",
                "the model gives no gravity; Choreonoid applies (0, 0, -9.80665)",
            ),
            _ => {}
        }
        if sim.time_step.is_some() || sim.end_time.is_some() || !sim.extras.is_empty() {
            self.drop(
                "simulation",
                "simulation",
                "time step, end time and solver settings live in Choreonoid projects",
            );
        }
        self.model.simulation.gravity = Some(Vector3::from(GRAVITY));
        let mut extras = std::mem::take(&mut self.model.extras);
        self.foreign_extras("model", &mut extras);
        self.model.extras = extras;
    }

    fn unsayable_items(&mut self) {
        for item in std::mem::take(&mut self.model.force_elements) {
            self.drop(
                "force_element",
                &path::item("force_elements", &item.name),
                "a body file has no force elements",
            );
        }
        for item in std::mem::take(&mut self.model.motors) {
            self.drop(
                "motor",
                &path::item("motors", &item.name),
                "motors live in Choreonoid controllers",
            );
        }
        for item in std::mem::take(&mut self.model.loads) {
            self.drop(
                "load",
                &path::item("loads", &item.name),
                "a body file has no loads",
            );
        }
        for item in std::mem::take(&mut self.model.groups) {
            self.drop(
                "group",
                &path::item("groups", &item.name),
                "a body file is one body without groups",
            );
        }
        for item in std::mem::take(&mut self.model.world_frames) {
            self.drop(
                "frame",
                &path::item("world_frames", &item.name),
                "a body file has no named frames",
            );
        }
        let constraints = std::mem::take(&mut self.model.constraints);
        for c in constraints {
            let at = path::item("constraints", &c.name);
            if !c.enabled {
                self.drop("constraint", &at, "a disabled constraint is not written");
            } else if matches!(c.kind, ConstraintKind::ExtraJoint { .. }) {
                self.model.constraints.push(c);
            } else {
                self.drop(
                    "constraint",
                    &at,
                    format!("a body file has no {} constraint", c.kind.type_name()),
                );
            }
        }
        let devices = std::mem::take(&mut self.model.devices);
        for d in devices {
            if d.body.is_world() || self.model.body(d.body.name().unwrap_or_default()).is_none() {
                self.drop(
                    "device",
                    &path::item("devices", &d.name),
                    "a device must sit on a link",
                );
            } else {
                self.model.devices.push(d);
            }
        }
        let disabled: Vec<String> = self
            .model
            .joints
            .iter()
            .filter(|j| !j.enabled)
            .map(|j| j.name.clone())
            .collect();
        for name in disabled {
            self.drop(
                "joint",
                &path::item("joints", &name),
                "a disabled joint is not written",
            );
        }
        self.model.joints.retain(|j| j.enabled);
        let world_children: Vec<String> = self
            .model
            .joints
            .iter()
            .filter(|j| j.child.is_world())
            .map(|j| j.name.clone())
            .collect();
        for name in world_children {
            self.note(
                "joint",
                &path::item("joints", &name),
                "a joint whose child is the world is written from the other side",
            );
        }
    }

    fn velocities(&mut self) {
        for i in 0..self.model.bodies.len() {
            if self.model.bodies[i].initial_velocity.take().is_some() {
                let at = path::item("bodies", &self.model.bodies[i].name);
                self.drop("velocity", &at, "a body file has no initial velocities");
            }
        }
        for i in 0..self.model.joints.len() {
            let j = &mut self.model.joints[i];
            if j.v0.iter().any(|v| *v != 0.0) {
                j.v0.iter_mut().for_each(|v| *v = 0.0);
                let at = path::item("joints", &j.name);
                self.drop("velocity", &at, "a body file has no initial joint velocities");
            }
        }
    }

    fn fixed_bodies(&mut self) {
        for i in 0..self.model.bodies.len() {
            if !self.model.bodies[i].fixed {
                continue;
            }
            let body = &mut self.model.bodies[i];
            body.fixed = false;
            let mut name = format!("{}_fixed", body.name);
            while self.model.joints.iter().any(|j| j.name == name) {
                name.push('_');
            }
            let body = &self.model.bodies[i];
            let mut joint = Joint::new(name, JointKind::Fixed, BodyRef::World, BodyRef::body(&body.name));
            joint.parent_frame = body.pose;
            let at = path::item("bodies", &body.name);
            self.model.joints.push(joint);
            self.note(
                "fixed_body",
                &at,
                "the fixed body is welded to the world by a fixed joint",
            );
        }
    }

    fn joint_data(&mut self) {
        for j in 0..self.model.joints.len() {
            let at = path::item("joints", &self.model.joints[j].name);
            let joint = &mut self.model.joints[j];
            let mut lost = Vec::new();
            let mut approximated = Vec::new();
            if joint.kind == JointKind::Free && joint.q0.iter().any(|q| *q != 0.0) {
                let motion = joint_motion(&joint.kind, &joint.q0);
                joint.parent_frame = joint.parent_frame * motion;
                joint.q0 = vec![0.0; 6];
                approximated.push("the free joint's initial position is baked into its offset");
            }
            if joint.bushing.take().is_some() {
                lost.push("bushing compliance");
            }
            for dof in &mut joint.dofs {
                if dof.damping != 0.0
                    || dof.friction != 0.0
                    || dof.spring_stiffness != 0.0
                    || dof.spring_rest_position != 0.0
                {
                    dof.damping = 0.0;
                    dof.friction = 0.0;
                    dof.spring_stiffness = 0.0;
                    dof.spring_rest_position = 0.0;
                    lost.push("damping, friction and springs");
                }
                if !dof.acceleration_limits.is_unlimited() {
                    dof.acceleration_limits = Limits::default();
                    lost.push("acceleration limits");
                }
                if dof.name.take().is_some() {
                    lost.push("coordinate names");
                }
                let e = dof.effort_limits;
                if !e.is_unlimited() && e.lower.map(|x| -x) != e.upper {
                    let bound = e.upper.unwrap_or(0.0).abs().max(e.lower.unwrap_or(0.0).abs());
                    dof.effort_limits = Limits::new(-bound, bound);
                    approximated.push("asymmetric effort limits made symmetric with the larger bound");
                }
            }
            if matches!(
                joint.actuator,
                Some(
                    mbconv_ir::ActuatorKind::Passive
                        | mbconv_ir::ActuatorKind::Servo
                        | mbconv_ir::ActuatorKind::Acceleration
                        | mbconv_ir::ActuatorKind::Locked
                )
            ) {
                joint.actuator = None;
                lost.push("the actuator type");
            }
            let mut extras = std::mem::take(&mut joint.extras);
            self.foreign_extras(&at, &mut extras);
            self.model.joints[j].extras = extras;
            for what in lost {
                self.drop("joint", &at, format!("a body file cannot say {what}"));
            }
            for what in approximated {
                self.approximate("joint", &at, what);
            }
        }
    }

    fn bodies(&mut self) {
        for b in 0..self.model.bodies.len() {
            let at = path::item("bodies", &self.model.bodies[b].name);
            let body = &mut self.model.bodies[b];
            let mut notes = Vec::new();
            let mut lost = Vec::new();
            if body.inertial.inertia_rotation != UnitQuaternion::identity() {
                body.inertial.inertia = Inertia::from_matrix(&body.inertial.inertia_in_body_axes());
                body.inertial.inertia_rotation = UnitQuaternion::identity();
                notes.push("the inertia tensor is rotated into the link axes");
            }
            if !body.gravity {
                body.gravity = true;
                lost.push("switching gravity off for one body");
            }
            if !body.enabled {
                body.enabled = true;
                lost.push("a disabled body (it is written enabled)");
            }
            if !body.frames.is_empty() {
                body.frames.clear();
                lost.push("named frames");
            }
            if !body.contact_materials.is_empty() {
                body.contact_materials.clear();
                lost.push("contact materials");
            }
            let before = body.shapes.len();
            body.shapes.retain(|s| writable(&s.geometry));
            if body.shapes.len() != before {
                lost.push("shapes of geometry types the format has no node for (plane, pyramid, multi-sphere, convex hull, fitted)");
            }
            for shape in &mut body.shapes {
                if shape.contact_material.take().is_some()
                    || shape.contact_radius.take().is_some()
                    || !shape.collidable
                {
                    shape.collidable = true;
                    lost.push("per-shape contact settings");
                }
            }
            let mut extras = std::mem::take(&mut body.extras);
            self.foreign_extras(&at, &mut extras);
            self.model.bodies[b].extras = extras;
            for n in notes {
                self.note("body", &at, n);
            }
            lost.dedup();
            for what in lost {
                self.drop("body", &at, format!("a body file cannot say {what}"));
            }
        }
    }

    /// Body poses from the joint frames (the reference configuration the file states).
    fn reference_poses(&mut self) {
        let tree = SpanningTree::new(&self.model);
        let poses = world_poses(&self.model, &tree, Configuration::Reference);
        for (body, pose) in self.model.bodies.iter_mut().zip(poses) {
            body.pose = pose;
        }
    }
}

fn writable(g: &Geometry) -> bool {
    !matches!(
        g,
        Geometry::Plane { .. }
            | Geometry::Pyramid { .. }
            | Geometry::MultiSphere { .. }
            | Geometry::ConvexHull(_)
            | Geometry::FittedPrimitive { .. }
    )
}
