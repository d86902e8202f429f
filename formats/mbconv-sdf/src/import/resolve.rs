//! Resolving: scopes -> IR bodies, frames and joints at their world poses.

use super::{Kind, Loc, Reader, element_extras, pending_frame, push_extra};
use mbconv_ir::format::kit::SourceResult;
use mbconv_ir::report::{Category, path};
use mbconv_ir::{BodyRef, DofProperties, Extras, Frame, FrameKind, Joint, JointKind, Model, Pose, Value};
use nalgebra::{UnitQuaternion, Vector3};
use std::collections::BTreeMap;

/// The world pose of every scope's frame and whether the scope is static, by scope.
type ScopePoses = BTreeMap<usize, (Pose, bool)>;

/// What placing the links gives: the IR name of each link (by scope and link index), the
/// world pose of each body (by IR name), and the `<frame>`s still to place (scope, the
/// scope's world pose, name, where written).
struct Placed {
    names: BTreeMap<(usize, usize), String>,
    poses: BTreeMap<String, Pose>,
    frames: Vec<(usize, Pose, String, Loc)>,
}

impl Reader<'_> {
    pub(super) fn resolve(&mut self, world: usize) -> SourceResult<Model> {
        let scopes = self.scope_poses(world)?;
        let mut model = Model::new(self.world_name.clone().unwrap_or_else(|| "world".to_owned()));
        model.simulation.gravity = self.simulation_gravity;
        model.simulation.time_step = self.time_step;
        model.extras = std::mem::take(&mut self.model_extras);
        self.check_frames(&scopes)?;
        let placed = self.bodies(&scopes, &mut model)?;
        self.place_frames(&placed, &mut model)?;
        self.scope_extras(&scopes, &placed, &mut model)?;
        // Frame poses, world so far, become body-relative.
        for body in &mut model.bodies {
            let inverse = body.pose.inverse();
            for frame in &mut body.frames {
                frame.pose = inverse * frame.pose;
            }
        }
        let mut has_parent: BTreeMap<String, String> = BTreeMap::new();
        for &s in scopes.keys() {
            let (scope_pose, _) = scopes[&s];
            for j in 0..self.scopes[s].joints.len() {
                self.joint_of(s, j, scope_pose, &placed, &mut has_parent, &mut model)?;
            }
        }
        for &s in scopes.keys() {
            for c in 0..self.scopes[s].ball_constraints.len() {
                self.ball_constraint_of(s, c, &placed, &mut model)?;
            }
        }
        Ok(model)
    }

    /// Ball constraint `c` of scope `s` as a loop-closing ball joint from link A to link B,
    /// its frames at P (in A) and Q (in B) with axes that agree at the links' poses as read.
    fn ball_constraint_of(
        &mut self,
        s: usize,
        c: usize,
        placed: &Placed,
        model: &mut Model,
    ) -> SourceResult<()> {
        let def = &self.scopes[s].ball_constraints[c];
        let (at, p_ap, p_bq) = (def.at, def.p_ap, def.p_bq);
        let wanted = def.name.clone().unwrap_or_else(|| "ball_constraint".to_owned());
        let (a, b) = (def.body_a.clone(), def.body_b.clone());
        let link = |reader: &Self, name: &str| -> SourceResult<BodyRef> {
            if name == "world" {
                return Ok(BodyRef::World);
            }
            Ok(match reader.attached(s, name, at, &mut Vec::new())? {
                None => BodyRef::World,
                Some(l) => BodyRef::body(placed.names[&l].clone()),
            })
        };
        let (parent, child) = (link(self, &a)?, link(self, &b)?);
        if parent == child {
            return Err(self.err(
                at,
                "ball_constraint",
                format!("<drake:ball_constraint>: links A {a:?} and B {b:?} are the same link"),
            ));
        }
        let pose_of = |r: &BodyRef| match r {
            BodyRef::World => Pose::identity(),
            BodyRef::Body(b) => placed.poses[b],
        };
        let b_in_a = pose_of(&parent).inverse() * pose_of(&child);
        let base = format!("{}{wanted}", self.scopes[s].prefix);
        let name = (1..)
            .map(|k| {
                if k == 1 {
                    base.clone()
                } else {
                    format!("{base}_{k}")
                }
            })
            .find(|n| model.joints.iter().all(|j| &j.name != n))
            .unwrap_or(base);
        let mut joint = Joint::new(name.clone(), JointKind::Spherical, parent, child);
        joint.parent_frame = Pose::from_translation(p_ap);
        joint.child_frame = Pose::new(p_bq, b_in_a.rotation.inverse());
        let at_ir = path::item("joints", &name);
        self.note(
            "drake_ball_constraint",
            Category::Note,
            &at_ir,
            at,
            format!("<drake:ball_constraint> between {a:?} and {b:?}: read as a loop-closing ball joint, as Drake applies it (libsdformat keeps it as an extension element and Gazebo ignores it)"),
        );
        if at.file == 0 {
            self.session.record(at_ir, at.span());
        }
        model.joints.push(joint);
        Ok(())
    }

    /// Checks every frame resolves (unknown relative_to, cycles), in file order.
    fn check_frames(&self, scopes: &ScopePoses) -> SourceResult<()> {
        for &s in scopes.keys() {
            for (name, def) in &self.scopes[s].frames {
                if !name.contains('\u{0}') {
                    self.pose_in(s, name, def.at, &mut Vec::new())?;
                    self.attached(s, name, def.at, &mut Vec::new())?;
                }
            }
        }
        Ok(())
    }

    /// Every link as a body at its world pose, in file order; the `<frame>`s met on the way
    /// are placed once every body is.
    fn bodies(&mut self, scopes: &ScopePoses, model: &mut Model) -> SourceResult<Placed> {
        let mut placed = Placed {
            names: BTreeMap::new(),
            poses: BTreeMap::new(),
            frames: Vec::new(),
        };
        for (&s, &(scope_pose, is_static)) in scopes {
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
                        placed.names.insert((s, i), body.name.clone());
                        placed.poses.insert(body.name.clone(), body.pose);
                        model.bodies.push(body);
                    }
                    Kind::Frame { .. } => placed.frames.push((s, scope_pose, name.clone(), def.at)),
                    _ => {}
                }
            }
        }
        Ok(placed)
    }

    /// Every `<frame>` at its world pose, on the body it is attached to or on the world.
    fn place_frames(&self, placed: &Placed, model: &mut Model) -> SourceResult<()> {
        for (s, scope_pose, name, at) in &placed.frames {
            let (s, at) = (*s, *at);
            let pose = *scope_pose * self.pose_in(s, name, at, &mut Vec::new())?;
            let full = format!("{}{name}", self.scopes[s].prefix);
            match self.attached(s, name, at, &mut Vec::new())? {
                None => model.world_frames.push(Frame {
                    name: full,
                    pose,
                    kind: FrameKind::Frame,
                    extras: Extras::default(),
                }),
                Some(link) => {
                    let owner = placed.names[&link].clone();
                    pending_frame(
                        model,
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
        Ok(())
    }

    /// A model's plugins and extension elements ride on its canonical link, under
    /// `sdf.model.<tag>`, so that the writer gives them back in the `<model>` (SDFormat 1.9 has no
    /// `<plugin>` in a `<link>` for what the model held, and libsdformat refuses
    /// `<allow_auto_disable>` there).
    fn scope_extras(&self, scopes: &ScopePoses, placed: &Placed, model: &mut Model) -> SourceResult<()> {
        for &s in scopes.keys() {
            if self.scopes[s].is_world || self.scopes[s].extras.is_empty() {
                continue;
            }
            let link = self.canonical(s, self.scopes[s].at, &mut Vec::new())?;
            let owner = &placed.names[&link];
            if let Some(body) = model.bodies.iter_mut().find(|b| &b.name == owner) {
                for (k, v) in self.scopes[s].extras.iter() {
                    let tag = k.strip_prefix("sdf.").unwrap_or(k);
                    push_extra(
                        &mut body.extras,
                        &format!("sdf.{}{tag}", crate::spec::MODEL_EXTRA),
                        v.clone(),
                    );
                }
            }
        }
        Ok(())
    }

    /// Joint `j` of scope `s` as an IR joint in `model` (or kept in the model's extras when the
    /// IR has no such joint); `has_parent` names the first joint into each child.
    fn joint_of(
        &mut self,
        s: usize,
        j: usize,
        scope_pose: Pose,
        placed: &Placed,
        has_parent: &mut BTreeMap<String, String>,
        model: &mut Model,
    ) -> SourceResult<()> {
        let def = &self.scopes[s].joints[j];
        let (name, kind_name, at) = (def.name.clone(), def.kind.clone(), def.at);
        let joint_pose = scope_pose * self.pose_in(s, &name, at, &mut Vec::new())?;
        let (parent_ref, child_ref) = self.joint_bodies(s, j, placed)?;
        let pose_of_body = |r: &BodyRef| match r {
            BodyRef::World => Pose::identity(),
            BodyRef::Body(b) => placed.poses[b],
        };
        let ir_name = format!("{}{name}", self.scopes[s].prefix);
        let at_ir = path::item("joints", &ir_name);
        let needs = match kind_name.as_str() {
            "revolute" | "prismatic" | "screw" | "continuous" => 1,
            "universal" | "revolute2" => 2,
            _ => 0,
        };
        let (axes, dofs) = self.joint_axes(s, j, needs, scope_pose, joint_pose, &at_ir)?;
        let Some(kind) = self.joint_kind(s, j, axes, &ir_name, model) else {
            return Ok(());
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
        if kind_name == "ball" {
            self.ball_dynamics(s, j, &at_ir);
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
        Ok(())
    }

    /// A ball joint's `<axis><dynamics>`: Drake applies its damping as a torque `-damping·ω`
    /// (`BallRpyJoint`) and ignores its friction and spring. mbconv leaves the ball joint
    /// undamped and says so: a dropped damping is a warning, the rest is noted as ignored.
    fn ball_dynamics(&mut self, s: usize, j: usize, at_ir: &str) {
        let def = &self.scopes[s].joints[j];
        let Some(axis) = &def.axes[0] else {
            return;
        };
        let (dof, name, at) = (axis.dof.clone(), def.name.clone(), def.at);
        if dof.damping != 0.0 {
            self.warn(
                "ball_damping_dropped",
                Category::Dropped,
                at_ir,
                at,
                format!(
                    "ball joint {name:?}: <axis><dynamics><damping> {} is dropped: mbconv leaves the ball joint undamped, where Drake damps its three rotations (BallRpyJoint, a torque -damping·ω)",
                    dof.damping
                ),
            );
        }
        if dof.friction != 0.0 || dof.spring_stiffness != 0.0 {
            self.note(
                "ball_dynamics_ignored",
                Category::Ignored,
                at_ir,
                at,
                format!(
                    "ball joint {name:?}: the friction and spring of <axis><dynamics> are ignored, as Drake ignores them"
                ),
            );
        }
    }

    /// The parent and child bodies of joint `j` of scope `s`: the links their frames are
    /// attached to; the child may not be the world nor on the parent's link.
    fn joint_bodies(&self, s: usize, j: usize, placed: &Placed) -> SourceResult<(BodyRef, BodyRef)> {
        let def = &self.scopes[s].joints[j];
        let (name, parent, child_name, at) = (&def.name, &def.parent, &def.child, def.at);
        let parent_ref = if parent == "world" {
            BodyRef::World
        } else {
            match self.attached(s, parent, at, &mut Vec::new())? {
                None => BodyRef::World,
                Some(l) => BodyRef::body(placed.names[&l].clone()),
            }
        };
        let child_ref = match self.attached(s, child_name, at, &mut Vec::new())? {
            None => {
                return Err(self.err(
                    at,
                    "joint",
                    format!("joint {name:?}: the child {child_name:?} is the world"),
                ));
            }
            Some(l) => BodyRef::body(placed.names[&l].clone()),
        };
        if parent_ref == child_ref {
            return Err(self.err(
                at,
                "joint",
                format!("joint {name:?}: parent {parent:?} and child {child_name:?} are on the same link"),
            ));
        }
        Ok((parent_ref, child_ref))
    }

    /// The first `needs` axes of joint `j` of scope `s` in the joint frame (`0 0 1` where
    /// missing, reported) and their dof properties.
    fn joint_axes(
        &mut self,
        s: usize,
        j: usize,
        needs: usize,
        scope_pose: Pose,
        joint_pose: Pose,
        at_ir: &str,
    ) -> SourceResult<([Vector3<f64>; 2], [DofProperties; 2])> {
        let (name, at) = (self.scopes[s].joints[j].name.clone(), self.scopes[s].joints[j].at);
        let mut axes = [Vector3::z(), Vector3::z()];
        let mut dofs = [DofProperties::default(), DofProperties::default()];
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
                    self.note(
                        "defaulted",
                        Category::Defaulted,
                        at_ir,
                        at,
                        format!(
                            "joint {name:?} has no <{which}>: 0 0 1 in the joint frame, libsdformat's default"
                        ),
                    );
                }
            }
        }
        Ok((axes, dofs))
    }

    /// The IR kind of joint `j` of scope `s` with its `axes`; `None` for a joint the IR has no
    /// kind for (gearbox, Drake's extension joints other than planar), kept in the model's
    /// extras and reported.
    fn joint_kind(
        &mut self,
        s: usize,
        j: usize,
        axes: [Vector3<f64>; 2],
        ir_name: &str,
        model: &mut Model,
    ) -> Option<JointKind> {
        let def = &self.scopes[s].joints[j];
        let (pitch, kind) = (def.pitch, def.kind.clone());
        Some(match kind.as_str() {
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
                let mut kept = element_extras(&def.extras);
                if let Value::Map(m) = &mut kept {
                    m.insert("@name", Value::String(ir_name.to_owned()));
                    m.insert("parent", Value::String(def.parent.clone()));
                    m.insert("child", Value::String(def.child.clone()));
                }
                push_extra(&mut model.extras, &key, kept);
                let (name, at) = (def.name.clone(), def.at);
                self.warn(
                    "joint_dropped",
                    Category::Dropped,
                    "model",
                    at,
                    format!(
                        "{other} joint {name:?} has no IR joint: kept in {key} and left out of the joints"
                    ),
                );
                return None;
            }
        })
    }
}
