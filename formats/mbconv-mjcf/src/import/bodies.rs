//! The body tree: `<worldbody>` and `<body>`s with what they hold (`<frame>`s flattened, the
//! class in force carried down), a body's mass from its geoms or `<inertial>` as the compiler
//! bounds it, free-joint alignment, and its joints (none: a weld; several: a chain through
//! massless bodies). Joints, geoms, sites and frames are read in their own modules.

use super::mass::ir_inertial;
use super::{FromGeom, Reader, verbatim};
use crate::import::compiler::defaults::ClassId;
use crate::import::compiler::inertia::{self, BodyInertia, BodyMass, combine};
use crate::raw::Element;
use crate::spec::arith::{Frame, normalize};
use mbconv_ir::format::kit::SourceResult;
use mbconv_ir::report::{Category, Severity, path};
use mbconv_ir::{Body, BodyRef, Inertia, Inertial, Joint, JointKind, Pose, Value};
use nalgebra::{Quaternion, UnitQuaternion, Vector3};

/// Where an element stands inside its body: the accumulated `<frame>`s, the class in force and
/// the name suffix of the `<replicate>` copies it is in (an index into `Reader::suffixes`).
#[derive(Debug, Clone, Copy)]
pub(super) struct Place {
    pub(super) frame: Frame,
    pub(super) class: ClassId,
    pub(super) suffix: usize,
    /// The model the element is from (0: the main one; see `attach`).
    pub(super) model: usize,
    /// The `<attach>` name prefix in force (an index into `Reader::prefixes`).
    pub(super) prefix: usize,
}

/// The elements of one body, frames flattened.
#[derive(Default)]
pub(super) struct Items<'d> {
    pub(super) inertial: Option<&'d Element>,
    pub(super) joints: Vec<(&'d Element, Place)>,
    pub(super) geoms: Vec<(&'d Element, Place)>,
    pub(super) sites: Vec<(&'d Element, Place)>,
    pub(super) bodies: Vec<(&'d Element, Place)>,
    pub(super) kept: Vec<Value>,
}

/// The IR pose of a compiler frame.
pub(super) fn pose(f: &Frame) -> Pose {
    Pose::new(
        Vector3::new(f.pos[0], f.pos[1], f.pos[2]),
        UnitQuaternion::new_unchecked(Quaternion::new(f.quat[0], f.quat[1], f.quat[2], f.quat[3])),
    )
}

/// A frame moved by `p`, not turned.
pub(super) fn translation(p: [f64; 3]) -> Frame {
    Frame {
        pos: p,
        quat: [1.0, 0.0, 0.0, 0.0],
    }
}

impl<'d> Reader<'d> {
    /// `<worldbody>`: its geoms on a fixed, massless `worldbody` body, its sites as world
    /// frames, its bodies.
    pub(super) fn worldbody(&mut self, w: &'d Element) -> SourceResult<()> {
        let mut items = Items::default();
        let place = Place {
            frame: Frame::IDENTITY,
            class: ClassId::MAIN,
            suffix: 0,
            model: 0,
            prefix: 0,
        };
        self.collect(w, place, &mut items, true)?;
        if !items.geoms.is_empty() || !items.kept.is_empty() {
            // Shapes fixed in the world: a fixed, massless body named `worldbody` carries them.
            // MuJoCo merges every `<worldbody>` of a file (a scene and the robot it includes
            // each have one) into its one world body: so does this body, made at the first.
            let existing = self
                .model
                .bodies
                .iter()
                .position(|b| b.extras.get("mjcf.worldbody").is_some());
            let index = match existing {
                Some(index) => index,
                None => {
                    let name = self.session.unique_name("bodies", "worldbody", "mjcf");
                    let mut body = Body::new(name);
                    body.fixed = true;
                    body.inertial = Inertial {
                        mass: 0.0,
                        inertia: Inertia::zero(),
                        ..Inertial::default()
                    };
                    body.extras.insert("mjcf.worldbody", Value::Bool(true));
                    self.model.bodies.push(body);
                    self.model.bodies.len() - 1
                }
            };
            let body_path = path::item("bodies", &self.model.bodies[index].name);
            let mut shapes = Vec::new();
            for (g, p) in items.geoms.clone() {
                if let Some((shape, _)) = self.in_model(p.model, |r| r.geom(g, p, &body_path, false))?
                    && self.keeps_shape(&shape, g, &body_path)
                {
                    shapes.push(shape);
                }
            }
            let body = &mut self.model.bodies[index];
            body.shapes.extend(shapes);
            if !items.kept.is_empty() {
                let mut kept = match body.extras.remove("mjcf.kept") {
                    Some(Value::List(list)) => list,
                    _ => Vec::new(),
                };
                kept.append(&mut items.kept);
                body.extras.insert("mjcf.kept", Value::List(kept));
            }
        }
        for (s, p) in items.sites.clone() {
            let frame = self.in_model(p.model, |r| r.site(s, p, "world_frames"))?;
            self.model.world_frames.push(frame);
        }
        for (b, p) in items.bodies {
            self.in_model(p.model, |r| r.body(b, p, BodyRef::World, Frame::IDENTITY))?;
        }
        Ok(())
    }

    /// Flattens the children of a body (or frame) into `items`.
    pub(super) fn collect(
        &mut self,
        e: &'d Element,
        place: Place,
        items: &mut Items<'d>,
        world: bool,
    ) -> SourceResult<()> {
        for c in &e.children {
            match c.name.as_str() {
                "inertial" if world => {
                    return Err(self.error(&c.loc, "world", "World body cannot have inertia"));
                }
                "joint" | "freejoint" if world => {
                    return Err(self.error(&c.loc, "world", "World body cannot have joints"));
                }
                "inertial" => items.inertial = Some(c),
                "joint" | "freejoint" => items.joints.push((c, place)),
                "geom" => items.geoms.push((c, place)),
                "site" => items.sites.push((c, place)),
                "body" => items.bodies.push((c, place)),
                "frame" => {
                    let local = self.own_orientation(c, true)?;
                    let mut frame = place.frame.compose(&local);
                    normalize(&mut frame.quat);
                    let class = self.class_of(c, place.class)?;
                    let class = self.childclass(c, class)?;
                    self.collect(
                        c,
                        Place {
                            frame,
                            class,
                            ..place
                        },
                        items,
                        world,
                    )?;
                }
                "camera" | "light" | "plugin" => items.kept.push(verbatim(c)),
                "replicate" => self.replicate(c, place, items, world)?,
                "attach" => self.attach(c, place, items, world)?,
                "composite" | "flexcomp" => {
                    return Err(self.error(
                        &c.loc,
                        "unsupported",
                        format!(
                            "<{}> is not read by mbconv yet (MuJoCo expands it into bodies at load time)",
                            c.name
                        ),
                    ));
                }
                other => {
                    return Err(self.error(
                        &c.loc,
                        "element",
                        format!("unrecognized element <{other}> in <{}>", e.name),
                    ));
                }
            }
        }
        Ok(())
    }

    /// An element's name with the suffix of the `<replicate>` copies it is in.
    pub(super) fn name_of(&self, e: &Element, place: Place) -> Option<String> {
        e.value("name").map(|n| {
            format!(
                "{}{n}{}",
                self.prefixes[place.prefix], self.suffixes[place.suffix]
            )
        })
    }

    /// A `<body>` under `parent` (whose world frame is `parent_world`): the IR body with its
    /// shapes, frames and mass, its joints (helper bodies for a chain), then its children.
    pub(super) fn body(
        &mut self,
        e: &'d Element,
        place: Place,
        parent: BodyRef,
        parent_world: Frame,
    ) -> SourceResult<()> {
        let own = self.own_orientation(e, false)?;
        let local = place.frame.compose(&own);
        let world = parent_world.compose(&local);
        let class = self.class_of(e, place.class)?;
        let class = self.childclass(e, class)?;
        self.body_ids += 1;
        let id = self.body_ids;
        let wanted = self.name_of(e, place).unwrap_or_else(|| format!("body{id}"));
        let name = self
            .session
            .unique_name("bodies", &wanted, parent.name().unwrap_or("world"));
        let body_path = path::item("bodies", &name);
        self.record(&body_path, &e.loc);

        let mut items = Items::default();
        self.collect(
            e,
            Place {
                frame: Frame::IDENTITY,
                class,
                ..place
            },
            &mut items,
            false,
        )?;

        let mut body = Body::new(name.clone());
        body.pose = pose(&world);
        self.body_attributes(e, &mut body, &body_path)?;
        let mass = self.body_mass(e, &items, &mut body, own, &body_path)?;
        for (s, p) in items.sites.clone() {
            let frame = self.in_model(p.model, |r| r.site(s, p, &body_path))?;
            body.frames.push(frame);
        }
        // Free-joint alignment: the body frame moves to the inertial frame.
        let mut world = world;
        let mut local = local;
        self.align_free(&items, &mass, &mut body, (&mut world, &mut local), &body_path)?;
        if !items.kept.is_empty() {
            body.extras
                .insert("mjcf.kept", Value::List(std::mem::take(&mut items.kept)));
        }
        self.body_joints(&items.joints, &parent, &mut body, local, world)?;
        self.model.bodies.push(body);

        for (b, p) in items.bodies {
            self.in_model(p.model, |r| r.body(b, p, BodyRef::body(name.clone()), world))?;
        }
        Ok(())
    }

    /// A body's attributes beyond its place, kept as `mjcf.*` extras (`gravcomp` reported).
    fn body_attributes(&mut self, e: &'d Element, body: &mut Body, body_path: &str) -> SourceResult<()> {
        let name = body.name.clone();
        for a in &e.attrs {
            match a.name.as_str() {
                "name" | "pos" | "quat" | "axisangle" | "xyaxes" | "zaxis" | "euler" | "childclass"
                | "class" => {}
                "mocap" => {
                    if self.values.boolean(a)? {
                        body.extras.insert("mjcf.mocap", Value::Bool(true));
                    }
                }
                _ => body
                    .extras
                    .insert(format!("mjcf.{}", a.name), Value::String(a.value.clone())),
            }
        }
        if let Some(c) = e.attr("childclass") {
            body.extras
                .insert("mjcf.childclass", Value::String(c.value.clone()));
        }
        if e.attr("gravcomp").is_some() {
            let loc = e.loc.clone();
            self.finding(
                "gravcomp",
                Severity::Warning,
                Category::Dropped,
                body_path,
                Some(&loc),
                format!("body '{name}': gravity compensation (gravcomp) is kept as an extra only"),
            );
        }
        Ok(())
    }

    /// A body's shapes from its geoms, and its mass as the compiler leaves it: from the geoms
    /// or its `<inertial>` (as `inertiafromgeom` says), bounded and balanced as the compiler's
    /// settings say.
    fn body_mass(
        &mut self,
        e: &'d Element,
        items: &Items<'d>,
        body: &mut Body,
        own: Frame,
        body_path: &str,
    ) -> SourceResult<BodyMass> {
        let name = body.name.clone();
        // Geoms: shapes, and what they weigh.
        let mut masses = Vec::new();
        let explicit = items.inertial.is_some();
        let from_geoms = self.compiler.inertiafromgeom == FromGeom::True
            || (!explicit && self.compiler.inertiafromgeom == FromGeom::Auto);
        let infer = !explicit || self.compiler.inertiafromgeom == FromGeom::True;
        for (g, p) in items.geoms.clone() {
            if let Some((shape, mass)) = self.in_model(p.model, |r| r.geom(g, p, body_path, infer))? {
                if let Some(m) = mass {
                    masses.push(m);
                }
                if self.keeps_shape(&shape, g, body_path) {
                    body.shapes.push(shape);
                }
            }
        }
        let mut mass: Option<BodyMass> = None;
        if let Some(i) = items.inertial {
            mass = Some(self.inertial(i)?);
            body.extras.insert("mjcf.inertial", verbatim(i));
        }
        if from_geoms {
            let computed = combine(&masses).map_err(|err| self.error(&e.loc, "inertia", err.to_string()))?;
            if let Some(computed) = computed {
                mass = Some(inertia::principal(computed));
            }
        }
        // Nothing says the mass: MuJoCo copies the body's own pos and quat into the inertial
        // frame (they only matter to a bounded mass).
        let mass = mass.unwrap_or(BodyMass {
            mass: 0.0,
            com: own.pos,
            inertia: BodyInertia::Principal {
                moments: [0.0; 3],
                quat: own.quat,
            },
        });
        let c = &self.compiler;
        let (mass, changed) = inertia::finish(mass, c.boundmass, c.boundinertia, c.balanceinertia)
            .map_err(|err| self.error(&e.loc, "inertia", format!("{err} (body '{name}')")))?;
        if changed {
            let loc = e.loc.clone();
            self.finding(
                "inertia_bounded",
                Severity::Info,
                Category::Note,
                body_path,
                Some(&loc),
                format!("body '{name}': mass or inertia raised by boundmass/boundinertia or balanced by balanceinertia, as MuJoCo does"),
            );
        }
        body.inertial = ir_inertial(&mass);
        Ok(mass)
    }

    /// Free-joint alignment: a body whose only joint is a free joint that aligns (and that has
    /// no children) moves its frame to its inertial frame, as do its `world` and `local` frames.
    fn align_free(
        &mut self,
        items: &Items<'d>,
        mass: &BodyMass,
        body: &mut Body,
        (world, local): (&mut Frame, &mut Frame),
        body_path: &str,
    ) -> SourceResult<()> {
        let name = body.name.clone();
        if let [(j, _)] = items.joints.as_slice()
            && items.bodies.is_empty()
            && self.is_free(j)?
            && self.aligns(j)?
        {
            let (moments, iquat) = match mass.inertia {
                BodyInertia::Principal { moments, quat } => (moments, quat),
                BodyInertia::Full(t) => crate::spec::arith::eig3(&t),
            };
            let inertial = Frame {
                pos: mass.com,
                quat: iquat,
            };
            *world = world.compose(&inertial);
            *local = local.compose(&inertial);
            let inverse = pose(&inertial).inverse();
            for shape in &mut body.shapes {
                shape.pose = inverse * shape.pose;
            }
            for frame in &mut body.frames {
                frame.pose = inverse * frame.pose;
            }
            body.pose = pose(world);
            body.inertial = ir_inertial(&BodyMass {
                mass: mass.mass,
                com: [0.0; 3],
                inertia: BodyInertia::Principal {
                    moments,
                    quat: [1.0, 0.0, 0.0, 0.0],
                },
            });
            body.extras.insert("mjcf.aligned", Value::Bool(true));
            let loc = j.loc.clone();
            self.finding(
                "free_aligned",
                Severity::Info,
                Category::Note,
                body_path,
                Some(&loc),
                format!("body '{name}': free-joint alignment moves the body frame to its inertial frame, as MuJoCo does"),
            );
        }
        Ok(())
    }

    /// A body's joints: none gives a weld to `parent`, several a chain through massless helper
    /// bodies (the last joint moves the body itself).
    fn body_joints(
        &mut self,
        joints: &[(&'d Element, Place)],
        parent: &BodyRef,
        body: &mut Body,
        local: Frame,
        world: Frame,
    ) -> SourceResult<()> {
        let name = body.name.clone();
        let n = joints.len();
        let mut chain_parent = parent.clone();
        let mut first_frame = local;
        for (k, (j, p)) in joints.iter().enumerate() {
            let child_name = if k + 1 == n {
                name.clone()
            } else {
                let jname = self.name_of(j, *p).unwrap_or_else(|| "joint".to_string());
                let helper = self
                    .session
                    .unique_name("bodies", &format!("{name}.{jname}"), &name);
                let mut hb = Body::new(helper.clone());
                hb.pose = pose(&world);
                hb.inertial = Inertial {
                    mass: 0.0,
                    inertia: Inertia::zero(),
                    ..Inertial::default()
                };
                hb.extras
                    .insert("mjcf.joint_body_of", Value::String(name.clone()));
                self.model.bodies.push(hb);
                helper
            };
            self.joint(j, *p, &chain_parent, &child_name, first_frame, &name)?;
            chain_parent = BodyRef::body(child_name);
            first_frame = Frame::IDENTITY;
        }
        if n == 0 {
            let jname = self.session.unique_name("joints", &format!("{name}.weld"), &name);
            let mut joint = Joint::new(
                jname,
                JointKind::Fixed,
                parent.clone(),
                BodyRef::body(name.clone()),
            );
            joint.parent_frame = pose(&local);
            joint.extras.insert("mjcf.weld", Value::Bool(true));
            if body.extras.get("mjcf.mocap").is_some() {
                body.fixed = parent.is_world();
            }
            self.model.joints.push(joint);
        }
        Ok(())
    }
}
