//! Resolving: scopes -> IR bodies, frames and joints at their world poses.

use super::{Kind, Reader, element_extras, pending_frame, push_extra};
use mbconv_ir::format::kit::SourceResult;
use mbconv_ir::report::{Category, path};
use mbconv_ir::{BodyRef, DofProperties, Extras, Frame, FrameKind, Joint, JointKind, Model, Pose, Value};
use nalgebra::{UnitQuaternion, Vector3};
use std::collections::BTreeMap;

impl Reader<'_> {
    pub(super) fn resolve(&mut self, world: usize) -> SourceResult<Model> {
        let scopes = self.scope_poses(world)?;
        let mut model = Model::new(self.world_name.clone().unwrap_or_else(|| "world".to_owned()));
        model.simulation.gravity = self.simulation_gravity;
        model.simulation.time_step = self.time_step;
        model.extras = std::mem::take(&mut self.model_extras);
        // Check every frame resolves (unknown relative_to, cycles), in file order.
        for &s in scopes.keys() {
            for (name, def) in &self.scopes[s].frames {
                if !name.contains('\u{0}') {
                    self.pose_in(s, name, def.at, &mut Vec::new())?;
                    self.attached(s, name, def.at, &mut Vec::new())?;
                }
            }
        }
        // Bodies.
        let mut body_names: BTreeMap<(usize, usize), String> = BTreeMap::new();
        let mut body_poses: BTreeMap<String, Pose> = BTreeMap::new();
        let mut frames_here = Vec::new();
        for (&s, &(scope_pose, is_static)) in &scopes {
            for (name, def) in &self.scopes[s].frames {
                match def.kind {
                    Kind::Link(i) => {
                        let (_, link) = &self.scopes[s].links[i];
                        let mut body = link.body.clone();
                        body.pose = scope_pose * self.pose_in(s, name, def.at, &mut Vec::new())?;
                        body.fixed = is_static;
                        if let Some(sc) = self.scopes[s].self_collide
                            && body.extras.get("sdf.self_collide").is_none()
                        {
                            body.extras.insert("sdf.self_collide", Value::Bool(sc));
                        }
                        let unique = self.session.unique_name("bodies", &body.name, "link");
                        body.name = unique;
                        if def.at.file == 0 {
                            self.session
                                .record(path::item("bodies", &body.name), def.at.span());
                        }
                        body_names.insert((s, i), body.name.clone());
                        body_poses.insert(body.name.clone(), body.pose);
                        model.bodies.push(body);
                    }
                    Kind::Frame { .. } => frames_here.push((s, scope_pose, name.clone(), def.at)),
                    _ => {}
                }
            }
        }
        {
            for (s, scope_pose, name, at) in frames_here {
                let pose = scope_pose * self.pose_in(s, &name, at, &mut Vec::new())?;
                let full = format!("{}{name}", self.scopes[s].prefix);
                match self.attached(s, &name, at, &mut Vec::new())? {
                    None => model.world_frames.push(Frame {
                        name: full,
                        pose,
                        kind: FrameKind::Frame,
                        extras: Extras::default(),
                    }),
                    Some(link) => {
                        let owner = body_names[&link].clone();
                        pending_frame(
                            &mut model,
                            owner,
                            Frame {
                                name: full,
                                pose,
                                kind: FrameKind::Frame,
                                extras: Extras::default(),
                            },
                        );
                    }
                }
            }
        }
        // A model's plugins and extension elements ride on its canonical link.
        for &s in scopes.keys() {
            if self.scopes[s].is_world || self.scopes[s].extras.is_empty() {
                continue;
            }
            let link = self.canonical(s, self.scopes[s].at, &mut Vec::new())?;
            let owner = &body_names[&link];
            if let Some(body) = model.bodies.iter_mut().find(|b| &b.name == owner) {
                for (k, v) in self.scopes[s].extras.iter() {
                    push_extra(&mut body.extras, k, v.clone());
                }
            }
        }
        // Frame poses, world so far, become body-relative.
        for body in &mut model.bodies {
            let inverse = body.pose.inverse();
            for frame in &mut body.frames {
                frame.pose = inverse * frame.pose;
            }
        }
        // Joints.
        let mut has_parent: BTreeMap<String, String> = BTreeMap::new();
        for &s in scopes.keys() {
            let (scope_pose, _) = scopes[&s];
            let joints: Vec<usize> = (0..self.scopes[s].joints.len()).collect();
            for j in joints {
                let def = &self.scopes[s].joints[j];
                let (name, kind_name, parent, child_name, at) = (
                    def.name.clone(),
                    def.kind.clone(),
                    def.parent.clone(),
                    def.child.clone(),
                    def.at,
                );
                let joint_pose = scope_pose * self.pose_in(s, &name, at, &mut Vec::new())?;
                let parent_ref = if parent == "world" {
                    BodyRef::World
                } else {
                    match self.attached(s, &parent, at, &mut Vec::new())? {
                        None => BodyRef::World,
                        Some(l) => BodyRef::body(body_names[&l].clone()),
                    }
                };
                let child_ref = match self.attached(s, &child_name, at, &mut Vec::new())? {
                    None => {
                        return Err(self.err(
                            at,
                            "joint",
                            format!("joint {name:?}: the child {child_name:?} is the world"),
                        ));
                    }
                    Some(l) => BodyRef::body(body_names[&l].clone()),
                };
                if parent_ref == child_ref {
                    return Err(self.err(
                        at,
                        "joint",
                        format!(
                            "joint {name:?}: parent {parent:?} and child {child_name:?} are on the same link"
                        ),
                    ));
                }
                let pose_of_body = |r: &BodyRef| match r {
                    BodyRef::World => Pose::identity(),
                    BodyRef::Body(b) => body_poses[b],
                };
                let ir_name = format!("{}{name}", self.scopes[s].prefix);
                let at_ir = path::item("joints", &ir_name);
                let mut axes = [Vector3::z(), Vector3::z()];
                let mut dofs = [DofProperties::default(), DofProperties::default()];
                let needs = match kind_name.as_str() {
                    "revolute" | "prismatic" | "screw" | "continuous" => 1,
                    "universal" | "revolute2" => 2,
                    _ => 0,
                };
                for (k, slot) in axes.iter_mut().enumerate().take(needs) {
                    let def = &self.scopes[s].joints[j];
                    match &def.axes[k] {
                        Some(a) => {
                            let frame_rot = match &a.expressed_in {
                                None => UnitQuaternion::identity(),
                                Some(e) => {
                                    let e_pose = scope_pose * self.pose_in(s, e, at, &mut Vec::new())?;
                                    joint_pose.rotation.inverse() * e_pose.rotation
                                }
                            };
                            *slot = frame_rot * a.xyz;
                            dofs[k] = a.dof.clone();
                        }
                        None => {
                            let which = if k == 0 { "axis" } else { "axis2" };
                            self.note("defaulted", Category::Defaulted, &at_ir, at, format!("joint {name:?} has no <{which}>: 0 0 1 in the joint frame, libsdformat's default"));
                        }
                    }
                }
                let pitch = self.scopes[s].joints[j].pitch;
                let kind = match kind_name.as_str() {
                    "fixed" => JointKind::Fixed,
                    "revolute" | "continuous" => JointKind::Revolute { axis: axes[0] },
                    "prismatic" => JointKind::Prismatic { axis: axes[0] },
                    "screw" => JointKind::Screw { axis: axes[0], pitch },
                    "ball" => JointKind::Spherical,
                    "universal" | "revolute2" => JointKind::Universal {
                        axis1: axes[0],
                        axis2: axes[1],
                    },
                    "planar" => JointKind::Planar {
                        axis1: Vector3::x(),
                        axis2: Vector3::y(),
                    },
                    other => {
                        // gearbox (a coupling of two joints' rates) and Drake's extension
                        // joints other than planar have no IR home.
                        let key = if other == "gearbox" {
                            "sdf.gearbox".to_owned()
                        } else {
                            format!("sdf.drake:joint.{other}")
                        };
                        let mut kept = element_extras(&self.scopes[s].joints[j].extras);
                        if let Value::Map(m) = &mut kept {
                            m.insert("@name", Value::String(ir_name.clone()));
                            m.insert("parent", Value::String(parent.clone()));
                            m.insert("child", Value::String(child_name.clone()));
                        }
                        push_extra(&mut model.extras, &key, kept);
                        self.warn("joint_dropped", Category::Dropped, "model", at, format!("{other} joint {name:?} has no IR joint: kept in {key} and left out of the joints"));
                        continue;
                    }
                };
                if kind_name == "revolute2" {
                    self.note("revolute2", Category::Note, &at_ir, at, format!("revolute2 joint {name:?}: read as a universal joint (two rotations, the second turned by the first)"));
                }
                let mut joint = Joint::new(ir_name.clone(), kind, parent_ref.clone(), child_ref.clone());
                joint.parent_frame = pose_of_body(&parent_ref).inverse() * joint_pose;
                joint.child_frame = pose_of_body(&child_ref).inverse() * joint_pose;
                let nv = joint.kind.nv();
                if needs > 0 && dofs.iter().take(nv).any(|d| *d != DofProperties::default()) {
                    joint.dofs = dofs[..nv].to_vec();
                }
                if let Some(damping) = self.scopes[s].joints[j].planar_damping {
                    joint.dofs = damping
                        .iter()
                        .map(|&d| DofProperties {
                            damping: d,
                            ..DofProperties::default()
                        })
                        .collect();
                }
                joint.extras = self.scopes[s].joints[j].extras.clone();
                let child_key = child_ref.to_string();
                if let Some(first) = has_parent.get(&child_key) {
                    self.note("loop", Category::Note, &at_ir, at, format!("joint {name:?} closes a loop: its child {child_key:?} already has the parent joint {first:?}"));
                } else {
                    has_parent.insert(child_key, ir_name.clone());
                }
                if at.file == 0 {
                    self.session.record(at_ir, at.span());
                }
                model.joints.push(joint);
            }
        }
        Ok(model)
    }
}
