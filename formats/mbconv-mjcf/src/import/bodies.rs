//! The body tree: bodies, frames, joints (several per body composed through massless bodies),
//! geoms, sites and mass properties; then equality constraints and keyframes, which refer to
//! them.

use super::{FromGeom, Reader, verbatim};
use crate::import::compiler::defaults::ClassId;
use crate::import::compiler::inertia::{
    self, BodyInertia, BodyMass, GeomMass, GeomType, InertiaKind, MassError, combine, counts_for_inertia,
    geom_mass,
};
use crate::import::compiler::mesh::mass::MeshMass;
use crate::import::compiler::orientation::{Alternative, orientation, resolve};
use crate::raw::{Element, Loc};
use crate::spec::arith::{EPS, Frame, normalize, rotate, z_to_quat};
use mbconv_ir::format::kit::SourceResult;
use mbconv_ir::report::{Category, Severity, path};
use mbconv_ir::{
    Appearance, Body, BodyRef, DofProperties, Geometry, Inertia, Inertial, Joint, JointKind, Limits, MeshRef,
    Pose, Shape, ShapeRole, Value,
};
use nalgebra::{Quaternion, UnitQuaternion, Vector3};

/// MuJoCo's joint types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MjJoint {
    Free,
    Ball,
    Slide,
    Hinge,
}

/// A joint in MuJoCo's coordinate order, for keyframes.
#[derive(Debug, Clone)]
pub(crate) struct JointSlot {
    /// IR joint name.
    pub name: String,
    pub kind: MjJoint,
    /// `ref` in the IR's unit (hinge: radians).
    pub reference: f64,
    /// Free joints: the pose of the parent joint frame (the body's reference pose).
    pub frame: Frame,
}

/// Where an element stands inside its body: the accumulated `<frame>`s, the class in force and
/// the name suffix of the `<replicate>` copies it is in (an index into `Reader::suffixes`).
#[derive(Debug, Clone, Copy)]
struct Place {
    frame: Frame,
    class: ClassId,
    suffix: usize,
    /// The model the element is from (0: the main one; see `attach`).
    model: usize,
    /// The `<attach>` name prefix in force (an index into `Reader::prefixes`).
    prefix: usize,
}

/// The elements of one body, frames flattened.
#[derive(Default)]
struct Items<'d> {
    inertial: Option<&'d Element>,
    joints: Vec<(&'d Element, Place)>,
    geoms: Vec<(&'d Element, Place)>,
    sites: Vec<(&'d Element, Place)>,
    bodies: Vec<(&'d Element, Place)>,
    kept: Vec<Value>,
}

fn pose(f: &Frame) -> Pose {
    Pose::new(
        Vector3::new(f.pos[0], f.pos[1], f.pos[2]),
        UnitQuaternion::new_unchecked(Quaternion::new(f.quat[0], f.quat[1], f.quat[2], f.quat[3])),
    )
}

fn translation(p: [f64; 3]) -> Frame {
    Frame {
        pos: p,
        quat: [1.0, 0.0, 0.0, 0.0],
    }
}

impl<'d> Reader<'d> {
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
            let name = self.session.unique_name("bodies", "worldbody", "mjcf");
            let mut body = Body::new(name.clone());
            body.fixed = true;
            body.inertial = Inertial {
                mass: 0.0,
                inertia: Inertia::zero(),
                ..Inertial::default()
            };
            body.extras.insert("mjcf.worldbody", Value::Bool(true));
            let body_path = path::item("bodies", &name);
            for (g, p) in items.geoms.clone() {
                if let Some((shape, _)) = self.in_model(p.model, |r| r.geom(g, p, &body_path, false))?
                    && self.keeps_shape(&shape, g, &body_path)
                {
                    body.shapes.push(shape);
                }
            }
            if !items.kept.is_empty() {
                body.extras
                    .insert("mjcf.kept", Value::List(std::mem::take(&mut items.kept)));
            }
            self.model.bodies.push(body);
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
    fn collect(
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

    fn is_free(&self, j: &Element) -> SourceResult<bool> {
        if j.name == "freejoint" {
            return Ok(true);
        }
        Ok(self.values.word(
            j,
            "joint",
            self.class_of(j, ClassId::MAIN)?,
            "type",
            &["free", "ball", "slide", "hinge"],
            "hinge",
        )? == "free")
    }

    /// Whether a free joint aligns its body with the inertial frame (`align`, else the
    /// compiler's `alignfree`).
    fn aligns(&self, j: &Element) -> SourceResult<bool> {
        match j.attr("align") {
            Some(a) => Ok(match self.values.keyword(a, &["false", "true", "auto"])? {
                "true" => true,
                "false" => false,
                _ => self.compiler.alignfree,
            }),
            None => Ok(self.compiler.alignfree),
        }
    }

    /// An element's name with the suffix of the `<replicate>` copies it is in.
    fn name_of(&self, e: &Element, place: Place) -> Option<String> {
        e.value("name").map(|n| {
            format!(
                "{}{n}{}",
                self.prefixes[place.prefix], self.suffixes[place.suffix]
            )
        })
    }

    /// `<replicate count offset euler sep>`: `count` copies of the children, copy `i` turned by
    /// `i·euler` and moved by the offsets of the copies before it (each turned like its copy),
    /// every name in copy `i` suffixed by `sep` and `i` padded to the digits of `count`.
    fn replicate(
        &mut self,
        c: &'d Element,
        place: Place,
        items: &mut Items<'d>,
        world: bool,
    ) -> SourceResult<()> {
        let v = self.values;
        let Some(count_attr) = c.attr("count") else {
            return Err(self.error(&c.loc, "replicate", "required attribute missing: 'count'"));
        };
        let count = v.integer(count_attr)?;
        if count <= 0 {
            return Err(self.error(
                &count_attr.loc,
                "replicate",
                "count must be positive in replicate",
            ));
        }
        let offset = v.own_fixed::<3>(c, "offset")?.unwrap_or([0.0; 3]);
        let euler = v.own_fixed::<3>(c, "euler")?.unwrap_or([0.0; 3]);
        let sep = c.value("sep").unwrap_or("").to_string();
        let class = self.class_of(c, place.class)?;
        let class = self.childclass(c, class)?;
        let (unit, seq) = (self.compiler.angle, self.compiler.eulerseq);
        let step = resolve(&Alternative::Euler(euler), unit, seq).unwrap_or([1.0, 0.0, 0.0, 0.0]);
        let digits = count.to_string().len();
        let mut pos = [0.0; 3];
        for i in 0..count {
            let turned = i as f64;
            let quat = resolve(&Alternative::Euler(euler.map(|a| turned * a)), unit, seq)
                .unwrap_or([1.0, 0.0, 0.0, 0.0]);
            let copy = Frame { pos, quat };
            let mut accumulated = Frame { pos, quat };
            accumulated = accumulated.compose(&Frame {
                pos: offset,
                quat: step,
            });
            pos = accumulated.pos;
            let suffix = format!("{sep}{i:0digits$}{}", self.suffixes[place.suffix]);
            self.suffixes.push(suffix);
            let frame = place.frame.compose(&copy);
            let inner = Place {
                frame,
                class,
                suffix: self.suffixes.len() - 1,
                ..place
            };
            self.collect(c, inner, items, world)?;
        }
        Ok(())
    }

    /// `<attach model body|frame prefix>`: the named body of the model (with its subtree) or
    /// its named frame (with what it holds) placed here, read with that model's classes,
    /// compiler settings and assets, every name prefixed (before any `<replicate>` suffix).
    fn attach(
        &mut self,
        c: &'d Element,
        place: Place,
        items: &mut Items<'d>,
        world: bool,
    ) -> SourceResult<()> {
        let Some(model_attr) = c.attr("model") else {
            return Err(self.error(&c.loc, "attach", "required attribute missing: 'model'"));
        };
        let Some(&(_, k)) = self.models.iter().find(|(n, _)| *n == model_attr.value) else {
            return Err(self.error(
                &model_attr.loc,
                "attach",
                format!(
                    "could not find model '{}' (no <model> asset of that name)",
                    model_attr.value
                ),
            ));
        };
        let prefix = format!(
            "{}{}",
            self.prefixes[place.prefix],
            c.value("prefix").unwrap_or("")
        );
        self.prefixes.push(prefix);
        let inner = Place {
            class: ClassId::MAIN,
            model: k,
            prefix: self.prefixes.len() - 1,
            ..place
        };
        let root = self.model_root(k);
        let (kind, wanted) = match (c.attr("body"), c.attr("frame")) {
            (Some(b), None) => ("body", b),
            (None, Some(f)) => ("frame", f),
            _ => {
                return Err(self.error(
                    &c.loc,
                    "attach",
                    "an attach names either a body or a frame of the model",
                ));
            }
        };
        let found = root
            .children_named("worldbody")
            .find_map(|w| find_named(w, kind, &wanted.value));
        let Some(element) = found else {
            return Err(self.error(
                &wanted.loc,
                "attach",
                format!(
                    "could not find {kind} '{}' in model '{}'",
                    wanted.value, model_attr.value
                ),
            ));
        };
        if kind == "body" {
            items.bodies.push((element, inner));
            return Ok(());
        }
        self.in_model(k, |r| {
            let local = r.own_orientation(element, true)?;
            let mut frame = inner.frame.compose(&local);
            normalize(&mut frame.quat);
            let class = r.childclass(element, ClassId::MAIN)?;
            r.collect(
                element,
                Place {
                    frame,
                    class,
                    ..inner
                },
                items,
                world,
            )
        })
    }

    fn childclass(&self, e: &Element, class: ClassId) -> SourceResult<ClassId> {
        match e.attr("childclass") {
            None => Ok(class),
            Some(a) => self
                .values
                .classes
                .find(&a.value)
                .ok_or_else(|| self.error(&a.loc, "class", "unknown default childclass")),
        }
    }

    /// `pos` and the orientation of an element without defaults (body, frame, inertial).
    /// Frames resolve their alternative without normalising `quat` first, as MuJoCo does.
    fn own_orientation(&self, e: &Element, is_frame: bool) -> SourceResult<Frame> {
        let pos = self.values.own_fixed::<3>(e, "pos")?.unwrap_or([0.0; 3]);
        let quat = self.quat_attr(e)?.unwrap_or([1.0, 0.0, 0.0, 0.0]);
        let alt = self.alternative_of(e)?;
        let c = &self.compiler;
        let q = match (&alt, is_frame) {
            (Some((a, loc)), _) => resolve(a, c.angle, c.eulerseq).map_err(|err| {
                self.error(loc, "orientation", format!("error '{err}' in frame alternative"))
            })?,
            (None, true) => quat,
            (None, false) => orientation(quat, None, c.angle, c.eulerseq).unwrap_or(quat),
        };
        Ok(Frame { pos, quat: q })
    }

    fn quat_attr(&self, e: &Element) -> SourceResult<Option<[f64; 4]>> {
        let q = self.values.own_fixed::<4>(e, "quat")?;
        if q == Some([0.0; 4])
            && let Some(a) = e.attr("quat")
        {
            return Err(self.error(&a.loc, "orientation", "zero quaternion is not allowed"));
        }
        Ok(q)
    }

    /// The element's own orientation alternative, refusing two specifiers.
    fn alternative_of(&self, e: &Element) -> SourceResult<Option<(Alternative, Loc)>> {
        let mut found: Vec<(Alternative, Loc)> = Vec::new();
        let v = self.values;
        for name in ["axisangle", "xyaxes", "zaxis", "euler"] {
            let Some(a) = e.attr(name) else { continue };
            let len = match name {
                "axisangle" => 4,
                "xyaxes" => 6,
                _ => 3,
            };
            let n = v.numbers(a, len, false)?;
            let mut buf = [0.0; 6];
            buf[..n.len()].copy_from_slice(&n);
            let alt = match name {
                "axisangle" => Alternative::AxisAngle([buf[0], buf[1], buf[2], buf[3]]),
                "xyaxes" => Alternative::XyAxes(buf),
                "zaxis" => Alternative::ZAxis([buf[0], buf[1], buf[2]]),
                _ => Alternative::Euler([buf[0], buf[1], buf[2]]),
            };
            found.push((alt, a.loc.clone()));
        }
        let count = found.len() + usize::from(e.attr("quat").is_some());
        if count > 1 {
            return Err(self.error(
                &e.loc,
                "orientation",
                "multiple orientation specifiers are not allowed",
            ));
        }
        Ok(found.pop())
    }

    /// Orientation of a geom or site, whose defaults may carry `quat` or an alternative: the
    /// last alternative set along the class chain and the element wins over any `quat`.
    fn class_orientation(&self, e: &'d Element, kind: &str, class: ClassId) -> SourceResult<[f64; 4]> {
        let v = self.values;
        let mut alt: Option<(&str, Vec<f64>)> = None;
        let mut quat = [1.0, 0.0, 0.0, 0.0];
        let mut loc = e.loc.clone();
        for id in v.classes.chain(class) {
            let own: Vec<(&str, &&crate::raw::Attr)> = v.classes.own(id, kind).collect();
            for name in ["quat", "axisangle", "xyaxes", "zaxis", "euler"] {
                let Some((_, a)) = own.iter().find(|(n, _)| *n == name) else {
                    continue;
                };
                let len = match name {
                    "quat" | "axisangle" => 4,
                    "xyaxes" => 6,
                    _ => 3,
                };
                let n = v.numbers(a, len, name == "quat")?;
                if name == "quat" {
                    quat.copy_from_slice(&n);
                } else {
                    let mut merged = match &alt {
                        Some((k, prev)) if *k == name => prev.clone(),
                        _ => vec![0.0; len],
                    };
                    merged[..n.len()].copy_from_slice(&n);
                    alt = Some((name, merged));
                    loc = a.loc.clone();
                }
            }
        }
        if let Some(q) = self.quat_attr(e)? {
            quat = q;
        }
        if let Some((a, l)) = self.alternative_of(e)? {
            let (name, n): (&str, Vec<f64>) = match a {
                Alternative::AxisAngle(x) => ("axisangle", x.to_vec()),
                Alternative::XyAxes(x) => ("xyaxes", x.to_vec()),
                Alternative::ZAxis(x) => ("zaxis", x.to_vec()),
                Alternative::Euler(x) => ("euler", x.to_vec()),
            };
            let written = e
                .attr(name)
                .map(|a| a.value.split_ascii_whitespace().count())
                .unwrap_or(n.len());
            let mut merged = match &alt {
                Some((k, prev)) if *k == name => prev.clone(),
                _ => vec![0.0; n.len()],
            };
            merged[..written].copy_from_slice(&n[..written]);
            alt = Some((name, merged));
            loc = l;
        }
        let alt = alt.map(|(name, n)| match name {
            "axisangle" => Alternative::AxisAngle([n[0], n[1], n[2], n[3]]),
            "xyaxes" => Alternative::XyAxes([n[0], n[1], n[2], n[3], n[4], n[5]]),
            "zaxis" => Alternative::ZAxis([n[0], n[1], n[2]]),
            _ => Alternative::Euler([n[0], n[1], n[2]]),
        });
        let c = &self.compiler;
        orientation(quat, alt.as_ref(), c.angle, c.eulerseq).map_err(|err| {
            self.error(
                &loc,
                "orientation",
                format!("orientation specification error '{err}' in {kind}"),
            )
        })
    }

    fn body(
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
                &body_path,
                Some(&loc),
                format!("body '{name}': gravity compensation (gravcomp) is kept as an extra only"),
            );
        }

        // Geoms: shapes, and what they weigh.
        let mut masses = Vec::new();
        let explicit = items.inertial.is_some();
        let from_geoms = self.compiler.inertiafromgeom == FromGeom::True
            || (!explicit && self.compiler.inertiafromgeom == FromGeom::Auto);
        let infer = !explicit || self.compiler.inertiafromgeom == FromGeom::True;
        for (g, p) in items.geoms.clone() {
            if let Some((shape, mass)) = self.in_model(p.model, |r| r.geom(g, p, &body_path, infer))? {
                if let Some(m) = mass {
                    masses.push(m);
                }
                if self.keeps_shape(&shape, g, &body_path) {
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
                &body_path,
                Some(&loc),
                format!("body '{name}': mass or inertia raised by boundmass/boundinertia or balanced by balanceinertia, as MuJoCo does"),
            );
        }
        body.inertial = ir_inertial(&mass);
        for (s, p) in items.sites.clone() {
            let frame = self.in_model(p.model, |r| r.site(s, p, &body_path))?;
            body.frames.push(frame);
        }
        // Free-joint alignment: the body frame moves to the inertial frame.
        let mut world = world;
        let mut local = local;
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
            world = world.compose(&inertial);
            local = local.compose(&inertial);
            let inverse = pose(&inertial).inverse();
            for shape in &mut body.shapes {
                shape.pose = inverse * shape.pose;
            }
            for frame in &mut body.frames {
                frame.pose = inverse * frame.pose;
            }
            body.pose = pose(&world);
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
                &body_path,
                Some(&loc),
                format!("body '{name}': free-joint alignment moves the body frame to its inertial frame, as MuJoCo does"),
            );
        }
        if !items.kept.is_empty() {
            body.extras
                .insert("mjcf.kept", Value::List(std::mem::take(&mut items.kept)));
        }

        // Joints: zero gives a weld, several a chain of massless bodies.
        let joints = items.joints.clone();
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
            self.joint(j, *p, &chain_parent, &child_name, first_frame, world, &name)?;
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
        self.model.bodies.push(body);

        for (b, p) in items.bodies {
            self.in_model(p.model, |r| r.body(b, p, BodyRef::body(name.clone()), world))?;
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn joint(
        &mut self,
        j: &'d Element,
        place: Place,
        parent: &BodyRef,
        child: &str,
        parent_offset: Frame,
        body_world: Frame,
        body_name: &str,
    ) -> SourceResult<()> {
        let v = self.values;
        let free = j.name == "freejoint";
        let class = if free {
            place.class
        } else {
            self.class_of(j, place.class)?
        };
        let kind = if free {
            MjJoint::Free
        } else {
            match v.word(
                j,
                "joint",
                class,
                "type",
                &["free", "ball", "slide", "hinge"],
                "hinge",
            )? {
                "free" => MjJoint::Free,
                "ball" => MjJoint::Ball,
                "slide" => MjJoint::Slide,
                _ => MjJoint::Hinge,
            }
        };
        let wanted = self
            .name_of(j, place)
            .unwrap_or_else(|| format!("{body_name}.joint"));
        let name = self.session.unique_name("joints", &wanted, body_name);
        let jpath = path::item("joints", &name);
        self.record(&jpath, &j.loc);
        if kind == MjJoint::Free && !parent.is_world() {
            return Err(self.error(&j.loc, "joint", "free joint can only be used on top level"));
        }
        let (pos, axis_raw) = if free {
            ([0.0; 3], [0.0, 0.0, 1.0])
        } else {
            let pos = v.vector(j, "joint", class, "pos", &[0.0; 3], true)?.0;
            let axis = v.vector(j, "joint", class, "axis", &[0.0, 0.0, 1.0], true)?.0;
            ([pos[0], pos[1], pos[2]], [axis[0], axis[1], axis[2]])
        };
        // Frames: the axis turns with them, the anchor moves with them.
        let mut axis = match kind {
            MjJoint::Free | MjJoint::Ball => [0.0, 0.0, 1.0],
            _ => rotate(&axis_raw, &place.frame.quat),
        };
        if normalize(&mut axis) < EPS {
            let loc = j.attr("axis").map_or(j.loc.clone(), |a| a.loc.clone());
            return Err(self.error(&loc, "joint", "axis too small in joint"));
        }
        let anchor = match kind {
            MjJoint::Free => [0.0; 3],
            _ => place.frame.compose(&translation(pos)).pos,
        };
        let unit = self.compiler.angle;
        let angular = matches!(kind, MjJoint::Hinge);
        let conv = |x: f64| if angular { unit.joint_to_radians(x) } else { x };
        let (reference, springref, stiffness, damping, armature, frictionloss, range, limited_attr) = if free
        {
            (0.0, 0.0, vec![0.0], vec![0.0], 0.0, 0.0, vec![0.0, 0.0], None)
        } else {
            (
                v.scalar(j, "joint", class, "ref", 0.0)?,
                v.scalar(j, "joint", class, "springref", 0.0)?,
                v.vector(j, "joint", class, "stiffness", &[0.0; 4], false)?.0,
                v.vector(j, "joint", class, "damping", &[0.0; 4], false)?.0,
                v.scalar(j, "joint", class, "armature", 0.0)?,
                v.scalar(j, "joint", class, "frictionloss", 0.0)?,
                v.vector(j, "joint", class, "range", &[0.0, 0.0], true)?.0,
                v.get(j, "joint", class, "limited"),
            )
        };
        // Limits: MuJoCo's `limited` (false, true, auto) and the compiler's autolimits.
        let limited_word = match limited_attr {
            Some((a, _)) => v.keyword(a, &["false", "true", "auto"])?,
            None => "auto",
        };
        let has_range = !(range[0] == 0.0 && range[1] == 0.0);
        if kind != MjJoint::Free && limited_word == "auto" && has_range && !self.compiler.autolimits {
            return Err(self.error(
                &j.loc,
                "joint",
                "joint has `range` but not `limited`. set the autolimits=\"true\" compiler option, specify `limited` explicitly (\"true\" or \"false\"), or remove the `range` attribute.",
            ));
        }
        let limited = kind != MjJoint::Free
            && (limited_word == "true" || (limited_word == "auto" && range[0] < range[1]));
        if limited && kind != MjJoint::Ball && range[0] >= range[1] {
            return Err(self.error(
                &j.loc,
                "joint",
                "range[0] should be smaller than range[1] in joint",
            ));
        }
        if limited && kind == MjJoint::Ball && range[0] != 0.0 {
            return Err(self.error(&j.loc, "joint", "range[0] should be 0 in ball joint"));
        }
        let to_rad = |x: f64| {
            if matches!(kind, MjJoint::Hinge | MjJoint::Ball) && x != 0.0 {
                unit.joint_to_radians(x)
            } else {
                x
            }
        };
        let (reference, springref) = (conv(reference), conv(springref));
        let (lo, hi) = (to_rad(range[0]), to_rad(range[1]));

        let ir_kind = match kind {
            MjJoint::Hinge => JointKind::Revolute {
                axis: Vector3::from(axis),
            },
            MjJoint::Slide => JointKind::Prismatic {
                axis: Vector3::from(axis),
            },
            MjJoint::Ball => JointKind::Spherical,
            MjJoint::Free => JointKind::Free,
        };
        let mut joint = Joint::new(
            name.clone(),
            ir_kind.clone(),
            parent.clone(),
            BodyRef::body(child),
        );
        let anchor_frame = translation(anchor);
        joint.parent_frame = pose(&parent_offset.compose(&anchor_frame));
        joint.child_frame = pose(&anchor_frame);
        let nv = ir_kind.nv();
        joint.q0 = vec![0.0; ir_kind.nq()];
        joint.v0 = vec![0.0; nv];
        let mut dof = DofProperties {
            damping: damping[0],
            friction: frictionloss,
            rotor_inertia: armature,
            ..DofProperties::default()
        };
        match kind {
            MjJoint::Hinge | MjJoint::Slide => {
                dof.spring_stiffness = stiffness[0];
                dof.spring_rest_position = springref - reference;
                if limited {
                    dof.position_limits = Limits {
                        lower: Some(lo - reference),
                        upper: Some(hi - reference),
                    };
                }
            }
            MjJoint::Ball | MjJoint::Free => {
                if stiffness[0] != 0.0 {
                    self.finding(
                        "joint_spring",
                        Severity::Warning,
                        Category::Dropped,
                        &jpath,
                        Some(&j.loc),
                        format!("joint '{name}': the stiffness of a {kind:?} joint (a spring on its rotation) has no IR home; kept as an extra"),
                    );
                }
                if limited && kind == MjJoint::Ball {
                    self.finding(
                        "ball_limit",
                        Severity::Warning,
                        Category::Dropped,
                        &jpath,
                        Some(&j.loc),
                        format!("joint '{name}': a ball joint's cone limit ({hi} rad) has no IR home; kept as an extra"),
                    );
                }
            }
        }
        if stiffness.iter().skip(1).any(|&x| x != 0.0) || damping.iter().skip(1).any(|&x| x != 0.0) {
            self.finding(
                "joint_polynomial",
                Severity::Warning,
                Category::Dropped,
                &jpath,
                Some(&j.loc),
                format!("joint '{name}': nonlinear stiffness or damping terms are kept as extras; the IR keeps the linear coefficient"),
            );
        }
        if dof != DofProperties::default() {
            joint.dofs = vec![dof; nv];
        }
        if reference != 0.0 {
            joint.extras.insert("mjcf.ref", Value::Float(reference));
        }
        if free {
            joint.extras.insert("mjcf.freejoint", Value::Bool(true));
        }
        if j.attr("class").is_some() {
            joint.extras.insert(
                "mjcf.class",
                Value::String(self.values.classes.name(class).to_string()),
            );
        }
        if !free && let Some(origins) = self.class_origins(j, "joint", class) {
            joint.extras.insert("mjcf.from_class", origins);
        }
        for a in &j.attrs {
            match a.name.as_str() {
                "name" | "type" | "pos" | "axis" | "ref" | "springref" | "armature" | "frictionloss"
                | "range" | "limited" | "class" => {}
                "stiffness" | "damping" if a.value.split_ascii_whitespace().count() == 1 => {}
                "springdamper" => {
                    joint
                        .extras
                        .insert("mjcf.springdamper", Value::String(a.value.clone()));
                    self.finding(
                        "springdamper",
                        Severity::Warning,
                        Category::Dropped,
                        &jpath,
                        Some(&a.loc),
                        format!("joint '{name}': springdamper (stiffness and damping from a time constant and damping ratio) is kept as an extra only"),
                    );
                }
                _ => joint
                    .extras
                    .insert(format!("mjcf.{}", a.name), Value::String(a.value.clone())),
            }
        }
        let _ = body_world;
        self.qpos_layout.push(JointSlot {
            name: name.clone(),
            kind,
            reference,
            frame: parent_offset.compose(&anchor_frame),
        });
        self.model.joints.push(joint);
        Ok(())
    }

    fn inertial(&self, i: &'d Element) -> SourceResult<BodyMass> {
        let v = self.values;
        let Some(pos) = v.own_fixed::<3>(i, "pos")? else {
            return Err(self.error(&i.loc, "inertial", "required attribute missing: 'pos'"));
        };
        let Some(mass) = v.own_scalar(i, "mass")? else {
            return Err(self.error(&i.loc, "inertial", "required attribute missing: 'mass'"));
        };
        let full = v.own_fixed::<6>(i, "fullinertia")?;
        let diag = v.own_fixed::<3>(i, "diaginertia")?;
        let alt = self.alternative_of(i)?;
        if let Some(full) = full {
            if alt.is_some() || i.attr("quat").is_some() {
                return Err(self.error(
                    &i.loc,
                    "inertial",
                    "fullinertia and inertial orientation cannot both be specified",
                ));
            }
            if diag.is_some_and(|d| d.iter().any(|&x| x != 0.0)) {
                return Err(self.error(
                    &i.loc,
                    "inertial",
                    "fullinertia and diagonal inertia cannot both be specified",
                ));
            }
            inertia::check_full_inertia(&full)
                .map_err(|err| self.error(&i.loc, "inertial", format!("error '{err}' in fullinertia")))?;
            return Ok(BodyMass {
                mass,
                com: pos,
                inertia: BodyInertia::Full(full),
            });
        }
        let quat = self.quat_attr(i)?.unwrap_or([1.0, 0.0, 0.0, 0.0]);
        let c = &self.compiler;
        let q = orientation(quat, alt.as_ref().map(|(a, _)| a), c.angle, c.eulerseq).map_err(|err| {
            self.error(
                &i.loc,
                "inertial",
                format!("error '{err}' in inertia alternative"),
            )
        })?;
        Ok(BodyMass {
            mass,
            com: pos,
            inertia: BodyInertia::Principal {
                moments: diag.unwrap_or([0.0; 3]),
                quat: q,
            },
        })
    }

    /// A geom: its shape, and (when `infer`) what it weighs, in the body frame.
    #[allow(clippy::type_complexity)]
    fn geom(
        &mut self,
        g: &'d Element,
        place: Place,
        body_path: &str,
        infer: bool,
    ) -> SourceResult<Option<(Shape, Option<GeomMass>)>> {
        let v = self.values;
        let class = self.class_of(g, place.class)?;
        const TYPES: &[&str] = &[
            "plane",
            "hfield",
            "sphere",
            "capsule",
            "ellipsoid",
            "cylinder",
            "box",
            "mesh",
            "sdf",
        ];
        let type_word = v.word(g, "geom", class, "type", TYPES, "sphere")?;
        let kind = GeomType::parse(type_word).unwrap_or(GeomType::Sphere);
        let contype = v.int(g, "geom", class, "contype", 1)?;
        let conaffinity = v.int(g, "geom", class, "conaffinity", 1)?;
        if self.compiler.discardvisual && contype == 0 && conaffinity == 0 {
            return Ok(None);
        }
        let group = v.int(g, "geom", class, "group", 0)?;
        let sz = v.vector(g, "geom", class, "size", &[0.0; 3], false)?.0;
        let mut size = [sz[0], sz[1], sz[2]];
        let fromto = match v.get(g, "geom", class, "fromto") {
            Some(_) => Some(v.vector(g, "geom", class, "fromto", &[0.0; 6], true)?.0),
            None => None,
        };
        let pos = v.vector(g, "geom", class, "pos", &[0.0; 3], true)?.0;
        let mut local = Frame {
            pos: [pos[0], pos[1], pos[2]],
            quat: [1.0, 0.0, 0.0, 0.0],
        };
        if let Some(ft) = &fromto {
            if !matches!(
                kind,
                GeomType::Capsule | GeomType::Cylinder | GeomType::Ellipsoid | GeomType::Box
            ) {
                return Err(self.error(
                    &g.loc,
                    "geom",
                    "fromto requires capsule, cylinder, box or ellipsoid in geom",
                ));
            }
            if local.pos != [0.0; 3] {
                return Err(self.error(&g.loc, "geom", "both pos and fromto defined in geom"));
            }
            let mut d = [ft[0] - ft[3], ft[1] - ft[4], ft[2] - ft[5]];
            size[1] = normalize(&mut d) / 2.0;
            if size[1] < EPS {
                return Err(self.error(&g.loc, "geom", "fromto points too close in geom"));
            }
            if matches!(kind, GeomType::Ellipsoid | GeomType::Box) {
                size[2] = size[1];
                size[1] = size[0];
            }
            local.pos = [
                (ft[0] + ft[3]) / 2.0,
                (ft[1] + ft[4]) / 2.0,
                (ft[2] + ft[5]) / 2.0,
            ];
            local.quat = z_to_quat(&d);
        } else {
            local.quat = self.class_orientation(g, "geom", class)?;
        }
        // A mesh named by the geom: a mesh geom's shape, or the mesh a primitive is fitted to.
        let mesh_attr = v.get(g, "geom", class, "mesh").map(|(a, _)| a);
        let mesh_index = match mesh_attr {
            Some(a) if matches!(kind, GeomType::Mesh | GeomType::Sdf) || kind.size_count() > 0 => {
                match self.mesh_index(&a.value) {
                    Some(i) => Some(i),
                    None => {
                        return Err(self.error(&a.loc, "geom", format!("mesh '{}' not found", a.value)));
                    }
                }
            }
            _ => None,
        };
        if mesh_index.is_some() && fromto.is_some() {
            return Err(self.error(&g.loc, "geom", "fromto cannot be used with mesh geom"));
        }
        // The frame the compiler adds to the geom's: the mesh's inertial frame (and for a
        // fitted primitive the centre of the fitted box); known once the mesh is processed.
        let mut mesh_frame: Option<Frame> = None;
        if let Some(i) = mesh_index
            && !matches!(kind, GeomType::Mesh | GeomType::Sdf)
        {
            let m = self.mesh_mass(i)?;
            let fitscale = v.scalar(g, "geom", class, "fitscale", 1.0)?;
            let Some((fitted, center)) = fit(kind, &m, self.compiler.fitaabb, size) else {
                return Err(self.error(
                    &g.loc,
                    "geom",
                    format!("invalid geom type in fitting mesh {}", self.meshes[i].name),
                ));
            };
            size = fitted.map(|x| x * fitscale);
            let c = rotate(&center, &m.quat);
            mesh_frame = Some(Frame {
                pos: [c[0] + m.pos[0], c[1] + m.pos[1], c[2] + m.pos[2]],
                quat: m.quat,
            });
        }
        // Sizes as MuJoCo checks them.
        if kind == GeomType::Plane {
            if size[2] <= 0.0 {
                return Err(self.error(&g.loc, "geom", "plane size(3) must be positive"));
            }
        } else {
            for (i, s) in size.iter().enumerate().take(kind.size_count()) {
                if *s <= 0.0 {
                    return Err(self.error(&g.loc, "geom", format!("size {i} must be positive in geom")));
                }
            }
        }
        let shell = if v.flag(g, "geom", class, "shellinertia", false)? {
            InertiaKind::Shell
        } else {
            InertiaKind::Volume
        };
        let mass_attr = v.optional(g, "geom", class, "mass")?;
        let density = v.scalar(g, "geom", class, "density", 1000.0)?;
        if matches!(kind, GeomType::Mesh | GeomType::Sdf) && shell == InertiaKind::Shell {
            return Err(self.error(
                &g.loc,
                "geom",
                "for mesh geoms, inertia should be specified in the mesh asset",
            ));
        }
        // Mass, before the frame moves the geom (MuJoCo's order; the sizes do not change).
        let mut weighed = None;
        if infer && group >= self.compiler.inertiagrouprange[0] && group <= self.compiler.inertiagrouprange[1]
        {
            match kind {
                GeomType::Sdf if mesh_index.is_none() => {
                    return Err(self.error(
                        &g.loc,
                        "mesh_inertia",
                        "mass and inertia from an sdf geom without a mesh (a plugin's signed distance field) are not computed by mbconv; give the body an <inertial> (or put the geom outside inertiagrouprange)",
                    ));
                }
                GeomType::Mesh | GeomType::Sdf => {
                    let Some(i) = mesh_index else {
                        return Err(self.error(&g.loc, "geom", "mesh geom must have valid meshid"));
                    };
                    let (m, moments) = self.mesh_geom_mass(g, i, mass_attr, density, &mut mesh_frame)?;
                    weighed = Some((m, moments));
                }
                _ => {
                    let (m, moments) = geom_mass(kind, &size, shell, mass_attr, density)
                        .map_err(|err: MassError| self.error(&g.loc, "geom", err.to_string()))?;
                    weighed = Some((m, moments));
                }
            }
        }
        let placed = place.frame.compose(&local);
        let mut placed = placed;
        normalize(&mut placed.quat);
        // Where the compiler puts the geom's frame: offset by the mesh's frame.
        let mut compiled = match &mesh_frame {
            Some(f) => placed.compose(f),
            None => placed,
        };
        normalize(&mut compiled.quat);
        let mass = weighed.and_then(|(m, moments)| {
            counts_for_inertia(group, self.compiler.inertiagrouprange, m).then_some(GeomMass {
                mass: m,
                inertia: moments,
                pos: compiled.pos,
                quat: compiled.quat,
            })
        });

        // The shape: a primitive where the compiler puts it; a mesh at its written pose.
        let mut shape_frame = if matches!(kind, GeomType::Mesh | GeomType::Sdf) {
            placed
        } else {
            compiled
        };
        let geometry = match kind {
            GeomType::Sphere => Geometry::Sphere { radius: size[0] },
            GeomType::Capsule => Geometry::Capsule {
                radius: size[0],
                length: 2.0 * size[1],
            },
            GeomType::Cylinder => Geometry::Cylinder {
                radius: size[0],
                length: 2.0 * size[1],
            },
            GeomType::Ellipsoid => Geometry::Ellipsoid { radii: size },
            GeomType::Box => Geometry::Box {
                size: [2.0 * size[0], 2.0 * size[1], 2.0 * size[2]],
            },
            GeomType::Plane => Geometry::Plane {
                normal: Vector3::z(),
                offset: 0.0,
            },
            // An sdf geom made from a mesh asset is that mesh (kept as `mjcf.type`).
            GeomType::Mesh | GeomType::Sdf if kind == GeomType::Mesh || mesh_index.is_some() => {
                let Some(i) = mesh_index else {
                    return Err(self.error(&g.loc, "geom", "mesh geom must have valid meshid"));
                };
                let asset = &self.meshes[i];
                let (file, t) = (asset.file.clone(), asset.transform);
                let (uri, resolved) = self.mesh_uri(&file);
                let mut mesh = MeshRef::new(uri);
                mesh.scale = t.scale;
                mesh.resolved_path = resolved.map(|p| p.to_string_lossy().into_owned());
                // The file's coordinates are kept: the shape sits at the written pose, moved
                // by the asset's refpos/refquat (which the compiler applies before scaling).
                if t.refpos != [0.0; 3] || t.refquat != [1.0, 0.0, 0.0, 0.0] {
                    let (frame, exact) = reference_frame(t.scale, t.refpos, t.refquat);
                    shape_frame = placed.compose(&frame);
                    normalize(&mut shape_frame.quat);
                    if !exact {
                        self.finding(
                            "mesh_reference",
                            Severity::Warning,
                            Category::Approximated,
                            body_path,
                            Some(&g.loc),
                            format!("mesh '{}': refquat with an unequal scale turns the mesh before scaling it, which a scaled mesh shape cannot say; the shape is placed as if the scale were applied first", asset.name),
                        );
                    }
                }
                Geometry::Mesh(mesh)
            }
            GeomType::Hfield | GeomType::Sdf | GeomType::Mesh => {
                self.finding(
                    "geom_dropped",
                    Severity::Warning,
                    Category::Dropped,
                    body_path,
                    Some(&g.loc),
                    format!("a {type_word} geom has no IR shape; kept as an extra of the body"),
                );
                return Ok(None);
            }
        };
        let collides = contype != 0 || conaffinity != 0;
        let mut shape = Shape::new(
            if collides {
                ShapeRole::Both
            } else {
                ShapeRole::Visual
            },
            geometry,
        );
        shape.name = self.name_of(g, place);
        shape.pose = pose(&shape_frame);
        if kind == GeomType::Sdf {
            shape.extras.insert("mjcf.type", Value::String("sdf".to_string()));
        }
        // Colour: an rgba other than MuJoCo's default wins over the material's.
        let rgba = v.vector(g, "geom", class, "rgba", &[0.5, 0.5, 0.5, 1.0], true)?.0;
        let material = v.get(g, "geom", class, "material").map(|(a, _)| a.value.clone());
        let colour = if rgba != [0.5, 0.5, 0.5, 1.0] {
            Some(rgba)
        } else {
            material
                .as_ref()
                .and_then(|m| self.materials.iter().find(|(n, _)| n == m))
                .map(|(_, c)| c.to_vec())
                .or(Some(rgba))
        };
        if let Some(c) = colour {
            shape.appearance = Some(Appearance {
                diffuse: Some([c[0], c[1], c[2]]),
                alpha: Some(c[3]),
                ..Appearance::default()
            });
        }
        if let Some(m) = material {
            shape.extras.insert("mjcf.material", Value::String(m));
        }
        if kind == GeomType::Plane {
            shape.extras.insert(
                "mjcf.size",
                Value::List(size.iter().map(|&x| Value::Float(x)).collect()),
            );
        }
        if let Some(c) = g.attr("class") {
            shape.extras.insert("mjcf.class", Value::String(c.value.clone()));
        }
        if let Some(origins) = self.class_origins(g, "geom", class) {
            shape.extras.insert("mjcf.from_class", origins);
        }
        for a in &g.attrs {
            match a.name.as_str() {
                "name" | "type" | "size" | "fromto" | "pos" | "quat" | "axisangle" | "xyaxes" | "zaxis"
                | "euler" | "rgba" | "material" | "mesh" | "class" => {}
                _ => shape
                    .extras
                    .insert(format!("mjcf.{}", a.name), Value::String(a.value.clone())),
            }
        }
        Ok(Some((shape, mass)))
    }

    /// False, with a finding, for the shape of a mesh given inline (`<mesh vertex=… face=…>`,
    /// no file): the IR's mesh shape names a file, so the shape is not carried (what it weighs
    /// is: the geom's mass counts as MuJoCo counts it).
    fn keeps_shape(&mut self, shape: &Shape, g: &Element, body_path: &str) -> bool {
        let inline = matches!(&shape.geometry, Geometry::Mesh(m) if m.uri.is_empty());
        if inline {
            self.finding(
                "inline_mesh_dropped",
                Severity::Warning,
                Category::Dropped,
                body_path,
                Some(&g.loc),
                "a mesh given inline (vertex/face, no file) has no IR shape: the geom's shape is not carried (its mass is)".to_string(),
            );
        }
        !inline
    }

    /// A site: a named frame.
    fn site(&mut self, s: &'d Element, place: Place, owner: &str) -> SourceResult<mbconv_ir::Frame> {
        let v = self.values;
        let class = self.class_of(s, place.class)?;
        let pos = v.vector(s, "site", class, "pos", &[0.0; 3], true)?.0;
        let mut local = Frame {
            pos: [pos[0], pos[1], pos[2]],
            quat: [1.0, 0.0, 0.0, 0.0],
        };
        if v.get(s, "site", class, "fromto").is_some() {
            let ft = v.vector(s, "site", class, "fromto", &[0.0; 6], true)?.0;
            let mut d = [ft[0] - ft[3], ft[1] - ft[4], ft[2] - ft[5]];
            normalize(&mut d);
            local.pos = [
                (ft[0] + ft[3]) / 2.0,
                (ft[1] + ft[4]) / 2.0,
                (ft[2] + ft[5]) / 2.0,
            ];
            local.quat = z_to_quat(&d);
        } else {
            local.quat = self.class_orientation(s, "site", class)?;
        }
        let mut placed = place.frame.compose(&local);
        normalize(&mut placed.quat);
        let wanted = self.name_of(s, place).unwrap_or_else(|| "site".to_string());
        let name = self
            .session
            .unique_name(&format!("{owner}.frames"), &wanted, owner);
        let mut frame = mbconv_ir::Frame {
            name,
            pose: pose(&placed),
            kind: mbconv_ir::FrameKind::Frame,
            extras: mbconv_ir::Extras::default(),
        };
        for a in &s.attrs {
            match a.name.as_str() {
                "name" | "pos" | "quat" | "axisangle" | "xyaxes" | "zaxis" | "euler" | "fromto" => {}
                _ => frame
                    .extras
                    .insert(format!("mjcf.{}", a.name), Value::String(a.value.clone())),
            }
        }
        if s.value("name").is_none() {
            frame.extras.insert("mjcf.unnamed", Value::Bool(true));
        }
        if let Some(origins) = self.class_origins(s, "site", class) {
            frame.extras.insert("mjcf.from_class", origins);
        }
        Ok(frame)
    }
}

/// The size of a primitive fitted to a mesh, and the centre of the fitted box in the mesh's
/// principal frame (MuJoCo's `FitGeom`: the equivalent inertia box, or with the compiler's
/// `fitaabb` the axis-aligned bounding box); sizes the type does not use keep their values.
fn fit(kind: GeomType, m: &MeshMass, aabb: bool, size: [f64; 3]) -> Option<([f64; 3], [f64; 3])> {
    let mut out = size;
    if !aabb {
        let b = m.boxsz;
        match kind {
            GeomType::Sphere => out[0] = (b[0] + b[1] + b[2]) / 3.0,
            GeomType::Capsule => {
                out[0] = (b[0] + b[1]) / 2.0;
                out[1] = (b[2] - out[0] / 2.0).max(0.0);
            }
            GeomType::Cylinder => {
                out[0] = (b[0] + b[1]) / 2.0;
                out[1] = b[2];
            }
            GeomType::Ellipsoid | GeomType::Box => out = b,
            _ => return None,
        }
        return Some((out, [0.0; 3]));
    }
    let a = m.aamm;
    let center = [(a[0] + a[3]) / 2.0, (a[1] + a[4]) / 2.0, (a[2] + a[5]) / 2.0];
    let half = [a[3] - center[0], a[4] - center[1], a[5] - center[2]];
    match kind {
        GeomType::Sphere => out[0] = half[0].max(half[1]).max(half[2]),
        GeomType::Capsule | GeomType::Cylinder => {
            out[0] = half[0].max(half[1]);
            out[1] = half[2];
            if kind == GeomType::Capsule {
                out[1] -= out[0];
            }
        }
        GeomType::Ellipsoid | GeomType::Box => out = half,
        _ => return None,
    }
    Some((out, center))
}

/// Where a mesh shape's file coordinates sit in the geom frame given the asset's `refpos` and
/// `refquat` (the compiler subtracts `refpos`, turns by the inverse of `refquat`, then scales);
/// false when an unequal scale after a turn makes that no rigid placement.
fn reference_frame(scale: [f64; 3], refpos: [f64; 3], refquat: [f64; 4]) -> (Frame, bool) {
    let mut q = refquat;
    normalize(&mut q);
    let inverse = [q[0], -q[1], -q[2], -q[3]];
    let turned = rotate(&refpos, &inverse);
    let frame = Frame {
        pos: [
            -scale[0] * turned[0],
            -scale[1] * turned[1],
            -scale[2] * turned[2],
        ],
        quat: inverse,
    };
    let uniform = scale[0] == scale[1] && scale[1] == scale[2];
    (frame, uniform || q == [1.0, 0.0, 0.0, 0.0])
}

impl Reader<'_> {
    /// A mesh geom's mass and principal moments (MuJoCo's rules: `mass="0"` or zero density
    /// weigh nothing without the mesh; an explicit mass sets the density from the volume),
    /// and the mesh's inertial frame, which the compiler adds to the geom's.
    fn mesh_geom_mass(
        &mut self,
        g: &Element,
        index: usize,
        mass_attr: Option<f64>,
        density: f64,
        mesh_frame: &mut Option<Frame>,
    ) -> SourceResult<(f64, [f64; 3])> {
        let needed = match mass_attr {
            Some(m) => m != 0.0,
            None => density != 0.0,
        };
        if !needed {
            return Ok((0.0, [0.0; 3]));
        }
        let m = self.mesh_mass(index)?;
        *mesh_frame = Some(Frame {
            pos: m.pos,
            quat: m.quat,
        });
        let (mass, density) = match mass_attr {
            Some(x) if m.volume > EPS => (x, x / m.volume),
            Some(_) => (0.0, density),
            None => (density * m.volume, density),
        };
        let moments = m.moments(mass);
        if mass < 0.0 || density < 0.0 || moments.iter().any(|&i| i < 0.0) {
            return Err(self.error(&g.loc, "geom", MassError::NegativeGeom.to_string()));
        }
        Ok((mass, moments))
    }
}

fn ir_inertial(m: &BodyMass) -> Inertial {
    let com = Vector3::new(m.com[0], m.com[1], m.com[2]);
    match m.inertia {
        BodyInertia::Principal { moments, quat } => Inertial {
            mass: m.mass,
            com,
            inertia: Inertia::from_moments_products(moments, [0.0; 3]),
            inertia_rotation: UnitQuaternion::new_unchecked(Quaternion::new(
                quat[0], quat[1], quat[2], quat[3],
            )),
        },
        BodyInertia::Full(t) => Inertial {
            mass: m.mass,
            com,
            inertia: Inertia::from_moments_products([t[0], t[1], t[2]], [t[3], t[4], t[5]]),
            inertia_rotation: UnitQuaternion::identity(),
        },
    }
}

/// The first `kind` element named `name` below `e` (bodies and frames searched in order).
fn find_named<'d>(e: &'d Element, kind: &str, name: &str) -> Option<&'d Element> {
    for c in &e.children {
        if c.name == kind && c.value("name") == Some(name) {
            return Some(c);
        }
        if matches!(c.name.as_str(), "body" | "frame" | "replicate")
            && let Some(found) = find_named(c, kind, name)
        {
            return Some(found);
        }
    }
    None
}

/// One `<equality>` element: `connect` and `weld` close loops as ball and fixed joints; the
/// rest is kept as extras and reported.
pub(super) fn equality<'d>(r: &mut Reader<'d>, e: &'d Element) -> SourceResult<()> {
    let active = match e.attr("active") {
        Some(a) => r.values.boolean(a)?,
        None => true,
    };
    let body_pose = |r: &Reader, name: &str| -> Option<Pose> {
        r.model.bodies.iter().find(|b| b.name == name).map(|b| b.pose)
    };
    let resolve_body =
        |r: &Reader<'d>, attr: &str, required: bool| -> SourceResult<Option<(BodyRef, Pose)>> {
            match e.attr(attr) {
                None if required => Err(r.error(
                    &e.loc,
                    "equality",
                    format!("required attribute missing: '{attr}'"),
                )),
                None => Ok(Some((BodyRef::World, Pose::identity()))),
                Some(a) if a.value == "world" => Ok(Some((BodyRef::World, Pose::identity()))),
                Some(a) => match body_pose(r, &a.value) {
                    Some(p) => Ok(Some((BodyRef::body(a.value.clone()), p))),
                    None => Err(r.error(
                        &a.loc,
                        "equality",
                        format!("unknown body '{}' in equality constraint", a.value),
                    )),
                },
            }
        };
    let kind = e.name.as_str();
    let wanted = e
        .value("name")
        .map(str::to_string)
        .unwrap_or_else(|| format!("{kind}{}", r.model.joints.len()));
    match kind {
        "connect" if e.attr("body1").is_some() && e.attr("anchor").is_none() => {
            return Err(r.error(
                &e.loc,
                "equality",
                "connect with body1 needs an anchor (without one MuJoCo reads site1 and site2)",
            ));
        }
        "connect" | "weld" if e.attr("body1").is_some() => {
            let Some((b1, p1)) = resolve_body(r, "body1", true)? else {
                return Ok(());
            };
            let Some((b2, p2)) = resolve_body(r, "body2", false)? else {
                return Ok(());
            };
            let name = r.session.unique_name("joints", &wanted, "equality");
            let jpath = path::item("joints", &name);
            r.record(&jpath, &e.loc);
            let rel = p1.inverse() * p2; // body2 in body1 at the reference configuration
            let mut joint = if kind == "connect" {
                let anchor = r.values.own_fixed::<3>(e, "anchor")?.unwrap_or([0.0; 3]);
                let a = Vector3::from(anchor);
                let mut j = Joint::new(name.clone(), JointKind::Spherical, b1, b2);
                j.parent_frame = Pose::from_translation(a);
                // The same point in body2, with axes aligned at the reference configuration.
                let inv = rel.inverse();
                j.child_frame = Pose::new(inv.transform_point(&a), inv.rotation);
                j
            } else {
                let mut j = Joint::new(name.clone(), JointKind::Fixed, b1, b2);
                let relpose = r.values.own_fixed::<7>(e, "relpose")?;
                let target = match relpose {
                    Some(rp) if rp[3..].iter().any(|&x| x != 0.0) => {
                        let mut q = [rp[3], rp[4], rp[5], rp[6]];
                        normalize(&mut q);
                        pose(&Frame {
                            pos: [rp[0], rp[1], rp[2]],
                            quat: q,
                        })
                    }
                    _ => rel,
                };
                j.parent_frame = target;
                j
            };
            joint.q0 = vec![0.0; joint.kind.nq()];
            joint.v0 = vec![0.0; joint.kind.nv()];
            joint.enabled = active;
            joint.extras.insert("mjcf.equality", verbatim(e));
            r.model.joints.push(joint);
        }
        "connect" | "weld" | "joint" | "tendon" | "flex" | "flexvert" | "flexstrain" => {
            let code = if kind == "joint" {
                "equality_joint"
            } else {
                "equality_kept"
            };
            let what = match kind {
                "joint" => "a joint coupling (polynomial between two joint coordinates) has no IR home",
                "tendon" => "a tendon equality has no IR home",
                _ => "this equality form (sites or flexes) is not read into the IR yet",
            };
            r.append_extra("mjcf.equality", verbatim(e));
            let loc = e.loc.clone();
            r.finding(
                code,
                Severity::Warning,
                Category::Dropped,
                "",
                Some(&loc),
                format!("<{kind}> equality '{wanted}': {what}; kept as an mjcf.equality extra"),
            );
        }
        other => {
            return Err(r.error(
                &e.loc,
                "element",
                format!("unrecognized element <{other}> in <equality>"),
            ));
        }
    }
    Ok(())
}

/// Numbers of position and velocity coordinates, as MuJoCo counts them.
fn sizes(r: &Reader) -> (usize, usize) {
    r.qpos_layout.iter().fold((0, 0), |(q, v), s| match s.kind {
        MjJoint::Free => (q + 7, v + 6),
        MjJoint::Ball => (q + 4, v + 3),
        _ => (q + 1, v + 1),
    })
}

/// A keyframe's `qpos` and `qvel`, checked against the model's sizes (MuJoCo's messages).
#[allow(clippy::type_complexity)]
pub(super) fn check_keyframe(
    r: &Reader,
    key: &Element,
) -> SourceResult<(Option<Vec<f64>>, Option<Vec<f64>>)> {
    let (nq, nv) = sizes(r);
    let name = key.value("name").unwrap_or("");
    let read = |attr: &str, n: usize| -> SourceResult<Option<Vec<f64>>> {
        let Some(a) = key.attr(attr) else { return Ok(None) };
        let q = r.values.numbers(a, usize::MAX, false)?;
        if !q.is_empty() && q.len() != n {
            return Err(r.error(
                &a.loc,
                "keyframe",
                format!(
                    "Keyframe '{name}' has invalid {attr} size, got {}, should be {n}",
                    q.len()
                ),
            ));
        }
        Ok((!q.is_empty()).then_some(q))
    };
    Ok((read("qpos", nq)?, read("qvel", nv)?))
}

/// Sets joint initial positions and velocities from a `<key>`.
pub(super) fn apply_keyframe<'d>(r: &mut Reader<'d>, key: &'d Element) -> SourceResult<()> {
    let (qpos, qvel) = check_keyframe(r, key)?;
    let (mut iq, mut iv) = (0usize, 0usize);
    for slot in r.qpos_layout.clone() {
        let Some(joint) = r.model.joints.iter_mut().find(|j| j.name == slot.name) else {
            continue;
        };
        match slot.kind {
            MjJoint::Hinge | MjJoint::Slide => {
                if let Some(q) = &qpos {
                    joint.q0 = vec![q[iq] - slot.reference];
                }
                if let Some(v) = &qvel {
                    joint.v0 = vec![v[iv]];
                }
                iq += 1;
                iv += 1;
            }
            MjJoint::Ball => {
                if let Some(q) = &qpos {
                    let rv = rotation_vector([q[iq], q[iq + 1], q[iq + 2], q[iq + 3]]);
                    joint.q0 = rv.to_vec();
                }
                if let Some(v) = &qvel {
                    joint.v0 = v[iv..iv + 3].to_vec();
                }
                iq += 4;
                iv += 3;
            }
            MjJoint::Free => {
                // MuJoCo: world position and orientation; linear velocity in world axes,
                // angular velocity in body axes. The IR: relative to the parent joint frame.
                let f = pose(&slot.frame);
                if let Some(q) = &qpos {
                    let p = f.inverse_transform_point(&Vector3::new(q[iq], q[iq + 1], q[iq + 2]));
                    let world = UnitQuaternion::from_quaternion(Quaternion::new(
                        q[iq + 3],
                        q[iq + 4],
                        q[iq + 5],
                        q[iq + 6],
                    ));
                    let rel = f.rotation.inverse() * world;
                    let rv = rel.scaled_axis();
                    joint.q0 = vec![p.x, p.y, p.z, rv.x, rv.y, rv.z];
                }
                if let Some(v) = &qvel {
                    let lin = f.rotation.inverse() * Vector3::new(v[iv], v[iv + 1], v[iv + 2]);
                    let q_now = match &qpos {
                        Some(q) => UnitQuaternion::from_quaternion(Quaternion::new(
                            q[iq + 3],
                            q[iq + 4],
                            q[iq + 5],
                            q[iq + 6],
                        )),
                        None => f.rotation,
                    };
                    let ang = f.rotation.inverse() * (q_now * Vector3::new(v[iv + 3], v[iv + 4], v[iv + 5]));
                    joint.v0 = vec![lin.x, lin.y, lin.z, ang.x, ang.y, ang.z];
                }
                iq += 7;
                iv += 6;
            }
        }
    }
    let name = key.value("name").unwrap_or("").to_string();
    r.model
        .extras
        .insert("mjcf.keyframe_applied", Value::String(name));
    let loc = key.loc.clone();
    r.finding(
        "keyframe",
        Severity::Info,
        Category::Note,
        "",
        Some(&loc),
        "initial joint positions and velocities from this keyframe (MuJoCo itself starts at qpos0 unless the keyframe is reset to)",
    );
    Ok(())
}

/// The rotation vector of a quaternion (normalised first, as MuJoCo normalises ball joints).
fn rotation_vector(q: [f64; 4]) -> [f64; 3] {
    let u = UnitQuaternion::from_quaternion(Quaternion::new(q[0], q[1], q[2], q[3]));
    let v = u.scaled_axis();
    [v.x, v.y, v.z]
}
