//! MJCF -> IR, as MuJoCo's compiler reads the file.
//!
//! Order of work: the document with includes spliced (`raw`), `<compiler>` settings, default
//! classes, assets, `<option>`, the body tree (bodies, frames, joints, geoms, sites, mass
//! properties), equality constraints, then the sections the IR has no typed home for (kept as
//! `mjcf.*` extras and reported), and last the keyframe the `keyframe` setting picks.

mod attach;
mod bodies;
mod compiler;
mod meshes;
mod values;

use crate::import::compiler::defaults::{ClassId, Classes};
use crate::import::compiler::orientation::{AngleUnit, EulerSeq};
use crate::raw::{self, Element, Loc};
use mbconv_ir::format::kit::{ImportSession, SourceResult};
use mbconv_ir::format::{Imported, Options, Source};
use mbconv_ir::report::{Category, Finding, Severity};
use mbconv_ir::{
    DofProperties, Extras, JointKind, Limits, Model, Motor, MotorActuation, MotorTarget, MotorType,
    TimeFunction, Value, ValueMap,
};
use nalgebra::Vector3;
use values::Values;

/// `<compiler inertiafromgeom>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FromGeom {
    False,
    True,
    Auto,
}

/// The `<compiler>` settings the reader applies.
#[derive(Debug, Clone)]
pub(crate) struct Compiler {
    pub angle: AngleUnit,
    pub eulerseq: EulerSeq,
    pub autolimits: bool,
    pub inertiafromgeom: FromGeom,
    pub inertiagrouprange: [i64; 2],
    pub boundmass: f64,
    pub boundinertia: f64,
    pub balanceinertia: bool,
    pub settotalmass: f64,
    pub discardvisual: bool,
    pub alignfree: bool,
    pub meshdir: Option<String>,
    pub fitaabb: bool,
}

impl Default for Compiler {
    fn default() -> Self {
        Compiler {
            angle: AngleUnit::Degree,
            eulerseq: EulerSeq::default(),
            autolimits: true,
            inertiafromgeom: FromGeom::Auto,
            inertiagrouprange: [0, 5],
            boundmass: 0.0,
            boundinertia: 0.0,
            balanceinertia: false,
            settotalmass: -1.0,
            discardvisual: false,
            alignfree: false,
            meshdir: None,
            fitaabb: false,
        }
    }
}

/// Element kinds that take defaults, by the element name a `<default>` lists them under.
const DEFAULT_KINDS: &[&str] = &[
    "mesh", "material", "joint", "geom", "site", "camera", "light", "pair", "equality", "tendon",
];
/// Actuator elements; they share one default slot (`actuator`) per class.
const ACTUATORS: &[&str] = &[
    "general",
    "motor",
    "position",
    "velocity",
    "damper",
    "intvelocity",
    "orientation",
    "pid",
    "cylinder",
    "muscle",
    "adhesion",
    "dcmotor",
];

/// The state of one import.
pub(crate) struct Reader<'d> {
    pub session: ImportSession<'d>,
    pub values: &'d Values<'d>,
    pub compiler: Compiler,
    pub model: Model,
    pub root: &'d Element,
    /// Materials by name: rgba.
    pub materials: Vec<(String, [f64; 4])>,
    /// `<mesh>` assets in order.
    pub meshes: Vec<meshes::MeshAsset<'d>>,
    /// Joints in MuJoCo's order (body order, then joint order) for keyframes.
    pub qpos_layout: Vec<bodies::JointSlot>,
    /// MuJoCo body ids given so far (unnamed bodies are called `body<id>`).
    pub body_ids: usize,
    /// Name suffixes of `<replicate>` copies; the first is empty.
    pub suffixes: Vec<String>,
    /// `<option><flag>` switches that change what the IR says, as the last `<flag>` left them.
    pub flags: Flags,
    /// Name prefixes of `<attach>`ed subtrees; the first is empty.
    pub prefixes: Vec<String>,
    /// The model whose elements are being read: 0 the main one, else an attached one (see
    /// [`attach`]).
    pub current: usize,
    /// The `<model>` assets of the model being read: name and model index.
    pub models: Vec<(String, usize)>,
    /// The directory the model being read lies in (mesh and model files resolve there).
    pub base_dir: Option<std::path::PathBuf>,
    /// The other models' settings while one is being read (index: model; the current one's
    /// are in the fields above, and its slot holds the one it was entered from).
    pub contexts: Vec<Option<attach::Context<'d>>>,
}

/// The `<option><flag>` switches that change the model's dynamics (MuJoCo's disable bits): a
/// disabled one is applied to the IR after the body tree is read (see [`Reader::apply_flags`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Flags {
    pub gravity: bool,
    pub spring: bool,
    pub damper: bool,
    pub frictionloss: bool,
    pub limit: bool,
    pub equality: bool,
    pub constraint: bool,
}

/// MuJoCo 4.0's `<flag>` attributes: the disable bits (default `enable`) and the enable bits
/// (default `disable`).
pub(crate) const FLAG_NAMES: &[&str] = &[
    "constraint",
    "equality",
    "frictionloss",
    "limit",
    "contact",
    "spring",
    "damper",
    "gravity",
    "clampctrl",
    "warmstart",
    "filterparent",
    "actuation",
    "refsafe",
    "sensor",
    "midphase",
    "eulerdamp",
    "autoreset",
    "nativeccd",
    "island",
    "multiccd",
    "override",
    "energy",
    "fwdinv",
    "invdiscrete",
    "sleep",
    "diagexact",
    "ipc",
    "speculative",
];

/// The default classes of one document.
pub(crate) fn classes_of(document: &raw::Document) -> SourceResult<Values<'_>> {
    let mut values = Values {
        files: &document.files,
        classes: Classes::new(),
    };
    for d in document.root.children_named("default") {
        if let Some(class) = d.attr("class")
            && class.value != "main"
        {
            return Err(values.files.error(
                &class.loc,
                "default",
                "top-level default class 'main' cannot be renamed",
            ));
        }
        default_class(&mut values, d, ClassId::MAIN)?;
    }
    Ok(values)
}

/// Reads MJCF text.
pub(crate) fn import(source: &Source, options: &Options) -> SourceResult<Imported> {
    let document = raw::read(source)?;
    let session = ImportSession::new("mjcf", source);
    // Models named by `<model>` assets (for `<attach>`), each read once, with their classes.
    let (attached, links) = attach::load(&document)?;
    let values = classes_of(&document)?;
    let mut attached_values = Vec::with_capacity(attached.len());
    for d in &attached {
        attached_values.push(classes_of(d)?);
    }
    let name = document.root.value("model").unwrap_or("MuJoCo Model").to_string();
    let mut reader = Reader {
        session,
        values: &values,
        compiler: Compiler::default(),
        model: Model::new(name),
        root: &document.root,
        materials: Vec::new(),
        meshes: Vec::new(),
        qpos_layout: Vec::new(),
        body_ids: 0,
        suffixes: vec![String::new()],
        flags: Flags::default(),
        prefixes: vec![String::new()],
        current: 0,
        models: links[0].clone(),
        base_dir: source.base_dir().map(std::path::Path::to_path_buf),
        contexts: vec![None],
    };
    for (k, (d, v)) in attached.iter().zip(&attached_values).enumerate() {
        reader
            .contexts
            .push(Some(attach::Context::new(d, v, links[k + 1].clone())));
    }
    reader.run(options)?;
    let Reader { session, model, .. } = reader;
    Ok(session.finish(model))
}

impl<'d> Reader<'d> {
    fn run(&mut self, options: &Options) -> SourceResult<()> {
        let root = self.root;
        for c in root.children_named("compiler") {
            self.compiler_section(c)?;
        }
        for d in root.children_named("default") {
            let kept = verbatim(d);
            self.append_extra("mjcf.default", kept);
        }
        for a in root.children_named("asset") {
            self.assets(a)?;
        }
        self.attached_settings()?;
        for o in root.children_named("option") {
            self.option(o)?;
        }
        for w in root.children_named("worldbody") {
            if let Some(a) = w.attrs.first() {
                return Err(self
                    .values
                    .files
                    .error(&a.loc, "world", "World body cannot have attributes"));
            }
            self.worldbody(w)?;
        }
        self.settotalmass();
        for e in root.children_named("equality") {
            self.equality(e)?;
        }
        self.apply_flags();
        self.keep_sections()?;
        self.keyframe(options)?;
        Ok(())
    }

    /// A finding at a place of any file.
    pub(crate) fn finding(
        &mut self,
        code: &str,
        severity: Severity,
        category: Category,
        path: &str,
        loc: Option<&Loc>,
        message: impl Into<String>,
    ) {
        let (span, file) = match loc {
            Some(l) => (Some(l.span.clone()), l.file),
            None => (None, 0),
        };
        let mut f = Finding::new(format!("mjcf.{code}"), severity, category, message).with_span(span);
        if !path.is_empty() {
            f = f.at(path);
        }
        if file != 0 || (loc.is_some() && self.current != 0) {
            f = f.in_file(self.values.files.name(file));
        }
        self.session.report.push(f);
    }

    /// Records the source of an IR path (main-file positions only: the source map has one
    /// file).
    pub(crate) fn record(&mut self, path: &str, loc: &Loc) {
        if loc.file == 0 && self.current == 0 {
            self.session.record(path, loc.span.clone());
        }
    }

    pub(crate) fn error(
        &self,
        loc: &Loc,
        code: &str,
        message: impl Into<String>,
    ) -> Box<mbconv_ir::format::SourceError> {
        self.values.files.error(loc, code, message)
    }

    fn compiler_section(&mut self, c: &'d Element) -> SourceResult<()> {
        let v = self.values;
        for a in &c.attrs {
            match a.name.as_str() {
                "angle" => {
                    self.compiler.angle = AngleUnit::parse(a.value.trim()).ok_or_else(|| {
                        v.files.error(
                            &a.loc,
                            "keyword",
                            format!("invalid angle {:?}: degree or radian", a.value),
                        )
                    })?
                }
                "eulerseq" => {
                    self.compiler.eulerseq = EulerSeq::parse(a.value.trim()).ok_or_else(|| {
                        v.files.error(
                            &a.loc,
                            "keyword",
                            "euler sequence can only contain x, y, z, X, Y, Z (three of them)",
                        )
                    })?
                }
                "autolimits" => self.compiler.autolimits = v.boolean(a)?,
                "inertiafromgeom" => {
                    self.compiler.inertiafromgeom = match v.keyword(a, &["false", "true", "auto"])? {
                        "false" => FromGeom::False,
                        "true" => FromGeom::True,
                        _ => FromGeom::Auto,
                    }
                }
                "inertiagrouprange" => {
                    let n = v.numbers(a, 2, true)?;
                    self.compiler.inertiagrouprange = [n[0] as i64, n[1] as i64];
                }
                "boundmass" => self.compiler.boundmass = v.numbers(a, 1, true)?[0],
                "boundinertia" => self.compiler.boundinertia = v.numbers(a, 1, true)?[0],
                "balanceinertia" => self.compiler.balanceinertia = v.boolean(a)?,
                "settotalmass" => self.compiler.settotalmass = v.numbers(a, 1, true)?[0],
                "discardvisual" => self.compiler.discardvisual = v.boolean(a)?,
                "alignfree" => self.compiler.alignfree = v.boolean(a)?,
                "fitaabb" => self.compiler.fitaabb = v.boolean(a)?,
                "meshdir" => self.compiler.meshdir = Some(a.value.clone()),
                "assetdir" if self.compiler.meshdir.is_none() => {
                    self.compiler.meshdir = Some(a.value.clone())
                }
                "coordinate" if a.value == "global" => {
                    return Err(v.files.error(
                        &a.loc,
                        "compiler",
                        "global coordinates no longer supported. To convert existing models, load and save them in MuJoCo 2.3.3 or older",
                    ));
                }
                "fusestatic" if v.boolean(a)? => {
                    let loc = a.loc.clone();
                    self.finding(
                            "fusestatic",
                            Severity::Info,
                            Category::Note,
                            "",
                            Some(&loc),
                            "fusestatic: MuJoCo fuses bodies without joints into their parents; mbconv keeps them as bodies welded by fixed joints (the same motion)",
                        );
                }
                _ => {}
            }
            if self.current == 0 {
                self.model.extras.insert(
                    format!("mjcf.compiler.{}", a.name),
                    Value::String(a.value.clone()),
                );
            }
        }
        Ok(())
    }

    fn assets(&mut self, a: &'d Element) -> SourceResult<()> {
        for e in &a.children {
            match e.name.as_str() {
                "material" => {
                    let class = self.class_of(e, ClassId::MAIN)?;
                    let rgba = self
                        .values
                        .vector(e, "material", class, "rgba", &[1.0, 1.0, 1.0, 1.0], true)?
                        .0;
                    let name = e.value("name").unwrap_or_default().to_string();
                    self.materials.push((name, [rgba[0], rgba[1], rgba[2], rgba[3]]));
                }
                "mesh" => self.mesh_asset(e)?,
                _ => {}
            }
        }
        if self.current == 0 {
            let kept = verbatim(a);
            self.append_extra("mjcf.asset", kept);
        }
        Ok(())
    }

    /// The attributes an element takes from its default classes, each with the class that
    /// sets it (the nearest along the chain): `{attribute: class}`, kept as `mjcf.from_class`
    /// so that a writer can restore the class structure.
    pub(crate) fn class_origins(&self, e: &Element, kind: &str, class: ClassId) -> Option<Value> {
        let mut m = ValueMap::new();
        let classes = &self.values.classes;
        for id in classes.chain(class).into_iter().rev() {
            for (name, _) in classes.own(id, kind) {
                if e.attr(name).is_none() && m.get(name).is_none() {
                    m.insert(name.to_string(), Value::String(classes.name(id).to_string()));
                }
            }
        }
        (!m.0.is_empty()).then_some(Value::Map(m))
    }

    /// The class an element uses (its `class`, else the one in force).
    pub(crate) fn class_of(&self, e: &Element, in_force: ClassId) -> SourceResult<ClassId> {
        match e.attr("class") {
            None => Ok(in_force),
            Some(a) => self.values.classes.find(&a.value).ok_or_else(|| {
                self.error(
                    &a.loc,
                    "class",
                    format!("unknown default class name '{}'", a.value),
                )
            }),
        }
    }

    fn option(&mut self, o: &'d Element) -> SourceResult<()> {
        let v = self.values;
        for a in &o.attrs {
            match a.name.as_str() {
                "gravity" => {
                    let g = v.numbers(a, 3, true)?;
                    self.model.simulation.gravity = Some(Vector3::new(g[0], g[1], g[2]));
                }
                "timestep" => self.model.simulation.time_step = Some(v.numbers(a, 1, true)?[0]),
                "integrator" => {
                    v.keyword(a, &["Euler", "RK4", "implicit", "implicitfast", "discrete"])?;
                    self.model
                        .simulation
                        .extras
                        .insert("mjcf.integrator", Value::String(a.value.clone()));
                }
                _ => {
                    self.model
                        .simulation
                        .extras
                        .insert(format!("mjcf.option.{}", a.name), Value::String(a.value.clone()));
                }
            }
        }
        if self.model.simulation.gravity.is_none() {
            self.model.simulation.gravity = Some(Vector3::new(0.0, 0.0, -9.81));
            self.session
                .defaulted("simulation.gravity", None, "MuJoCo's default gravity 0 0 -9.81");
        }
        if self.model.simulation.time_step.is_none() {
            self.model.simulation.time_step = Some(0.002);
            self.session
                .defaulted("simulation.time_step", None, "MuJoCo's default time step 0.002 s");
        }
        for child in &o.children {
            if child.name == "flag" {
                self.flag(child)?;
                // Several <option>s merge their flags, as MuJoCo does: one map, later wins.
                let key = "mjcf.option.flag";
                let mut merged = match self.model.simulation.extras.get(key) {
                    Some(Value::Map(m)) => m.clone(),
                    _ => ValueMap::new(),
                };
                if let Value::Map(m) = verbatim(child) {
                    for (k, v) in m.0 {
                        merged.insert(k, v);
                    }
                }
                self.model.simulation.extras.insert(key, Value::Map(merged));
                continue;
            }
            self.model
                .simulation
                .extras
                .insert(format!("mjcf.option.{}", child.name), verbatim(child));
        }
        self.fluid(o)?;
        Ok(())
    }

    /// `<flag>`: every attribute is `enable` or `disable`; the switches that change the
    /// dynamics the IR describes are remembered for [`Reader::apply_flags`].
    fn flag(&mut self, f: &'d Element) -> SourceResult<()> {
        let v = self.values;
        for a in &f.attrs {
            if !FLAG_NAMES.contains(&a.name.as_str()) {
                return Err(self.error(
                    &a.loc,
                    "option",
                    format!("unrecognized attribute: '{}' in <flag>", a.name),
                ));
            }
            let disabled = v.keyword(a, &["disable", "enable"])? == "disable";
            let slot = match a.name.as_str() {
                "gravity" => &mut self.flags.gravity,
                "spring" => &mut self.flags.spring,
                "damper" => &mut self.flags.damper,
                "frictionloss" => &mut self.flags.frictionloss,
                "limit" => &mut self.flags.limit,
                "equality" => &mut self.flags.equality,
                "constraint" => &mut self.flags.constraint,
                _ => continue,
            };
            *slot = disabled;
        }
        Ok(())
    }

    /// `density`, `viscosity` and `wind`: MuJoCo's fluid forces act on every body when the
    /// medium has a density or a viscosity; the IR has no medium, so that is reported.
    fn fluid(&mut self, o: &'d Element) -> SourceResult<()> {
        let v = self.values;
        let mut medium = Vec::new();
        for name in ["density", "viscosity"] {
            if let Some(a) = o.attr(name) {
                let x = v.numbers(a, 1, true)?[0];
                if x != 0.0 {
                    medium.push(format!("{name} {x}"));
                }
            }
        }
        if let Some(a) = o.attr("wind") {
            v.numbers(a, 3, true)?;
        }
        if !medium.is_empty() {
            let loc = o.loc.clone();
            self.finding(
                "fluid",
                Severity::Warning,
                Category::Dropped,
                "simulation",
                Some(&loc),
                format!(
                    "<option> {}: MuJoCo applies fluid forces (drag, and wind when given) to every body; the IR has no medium, they are kept as mjcf.option.* extras only",
                    medium.join(", ")
                ),
            );
        }
        Ok(())
    }

    /// Applies the disabled `<flag>` switches to what was read, so that the IR moves as MuJoCo
    /// moves the model: `gravity` zeroes the gravity vector (the written one kept as the
    /// `mjcf.gravity` simulation extra); `spring`, `damper`, `frictionloss` and `limit` (the
    /// last two also by `constraint`) zero joint stiffness, damping and Coulomb friction and
    /// lift position limits; `equality` (or `constraint`) switches the loop joints read from
    /// `<equality>` off. Each zeroed value is kept in the joint's `mjcf.flag_off` extra (the
    /// writer restores it beside the flag), each change reported.
    fn apply_flags(&mut self) {
        let f = self.flags;
        if f.gravity
            && let Some(g) = self.model.simulation.gravity
        {
            self.model.simulation.extras.insert(
                "mjcf.gravity",
                Value::List(g.iter().map(|&x| Value::Float(x)).collect()),
            );
            self.model.simulation.gravity = Some(Vector3::zeros());
            self.finding(
                "flag_gravity",
                Severity::Info,
                Category::Note,
                "simulation.gravity",
                None,
                format!(
                    "<flag gravity=\"disable\"/>: gravity is zero (the written vector {} {} {} is kept as mjcf.gravity)",
                    g.x, g.y, g.z
                ),
            );
        }
        let frictionloss = f.frictionloss || f.constraint;
        let limit = f.limit || f.constraint;
        let equality = f.equality || f.constraint;
        let mut changed: Vec<(String, Vec<&'static str>)> = Vec::new();
        for joint in &mut self.model.joints {
            let mut off = ValueMap::new();
            if equality && joint.enabled && joint.extras.get("mjcf.equality").is_some() {
                joint.enabled = false;
                off.insert("enabled", Value::Bool(true));
            }
            let mut take = |what: &'static str, x: &mut f64| {
                if *x != 0.0 {
                    off.insert(what, Value::Float(*x));
                    *x = 0.0;
                }
            };
            // Every degree of freedom of an MJCF joint carries the same values.
            if let Some(dof) = joint.dofs.first().cloned() {
                let mut d = dof;
                if f.spring {
                    take("spring_stiffness", &mut d.spring_stiffness);
                }
                if f.damper {
                    take("damping", &mut d.damping);
                }
                if frictionloss {
                    take("friction", &mut d.friction);
                }
                if limit && !d.position_limits.is_unlimited() {
                    let l = d.position_limits;
                    off.insert(
                        "position_limits",
                        Value::List(
                            [l.lower, l.upper]
                                .iter()
                                .map(|x| x.map_or(Value::Null, Value::Float))
                                .collect(),
                        ),
                    );
                    d.position_limits = Limits::default();
                }
                for x in &mut joint.dofs {
                    *x = d.clone();
                }
                if joint.dofs.iter().all(|x| *x == DofProperties::default()) {
                    joint.dofs.clear();
                }
            }
            if !off.0.is_empty() {
                changed.push((
                    joint.name.clone(),
                    off.0.iter().map(|(k, _)| flag_word(k)).collect(),
                ));
                joint.extras.insert("mjcf.flag_off", Value::Map(off));
            }
        }
        for (name, what) in changed {
            self.finding(
                "flag_joint",
                Severity::Info,
                Category::Note,
                &mbconv_ir::report::path::item("joints", &name),
                None,
                format!(
                    "joint '{name}': switched off by <flag {}=\"disable\"/> as MuJoCo does (the written values kept as mjcf.flag_off)",
                    what.join("/")
                ),
            );
        }
    }

    fn settotalmass(&mut self) {
        let target = self.compiler.settotalmass;
        if target <= 0.0 {
            return;
        }
        let total: f64 = self.model.bodies.iter().map(|b| b.inertial.mass).sum();
        if total <= 0.0 {
            return;
        }
        let scale = target / total;
        for b in &mut self.model.bodies {
            b.inertial.mass *= scale;
            for row in b.inertial.inertia.0.iter_mut() {
                for x in row.iter_mut() {
                    *x *= scale;
                }
            }
        }
        self.finding(
            "settotalmass",
            Severity::Info,
            Category::Note,
            "",
            None,
            format!("settotalmass: every mass and inertia scaled by {scale} to a total of {target} kg"),
        );
    }

    /// Sections the IR has no typed home for: kept verbatim, with a finding per section
    /// saying what a simulation without them lacks.
    fn keep_sections(&mut self) -> SourceResult<()> {
        let root = self.root;
        for e in &root.children {
            let (code, severity, category, what) = match e.name.as_str() {
                "actuator" if !e.children.is_empty() => {
                    let v = verbatim(e);
                    self.append_extra("mjcf.actuator", v);
                    self.actuators(e)?;
                    continue;
                }
                "tendon" if !e.children.is_empty() => (
                    "tendon_kept",
                    Severity::Warning,
                    Category::Dropped,
                    "tendons are kept as mjcf.tendon extras only; their coupling, springs and limits act in MuJoCo, not in the IR model",
                ),
                "contact" if !e.children.is_empty() => (
                    "contact_kept",
                    Severity::Info,
                    Category::Ignored,
                    "contact <exclude>/<pair> are kept as mjcf.contact extras; the IR has no contact filter",
                ),
                "sensor" if !e.children.is_empty() => (
                    "sensor_kept",
                    Severity::Info,
                    Category::Ignored,
                    "sensors are kept as mjcf.sensor extras",
                ),
                "visual" | "statistic" | "size" | "custom" | "extension" | "deformable" | "keyframe" => {
                    let v = verbatim(e);
                    self.append_extra(&format!("mjcf.{}", e.name), v);
                    continue;
                }
                "compiler" | "default" | "asset" | "option" | "worldbody" | "equality" | "actuator"
                | "tendon" | "contact" | "sensor" => continue,
                other => {
                    return Err(self.error(
                        &e.loc,
                        "element",
                        format!("unrecognized element <{other}> in <mujoco>"),
                    ));
                }
            };
            let v = verbatim(e);
            self.append_extra(&format!("mjcf.{}", e.name), v);
            let loc = e.loc.clone();
            self.finding(
                code,
                severity,
                category,
                "",
                Some(&loc),
                format!("{} ({} elements)", what, e.children.len()),
            );
        }
        Ok(())
    }

    /// `<actuator>`: a `motor` on a hinge or slide joint becomes an IR force motor on that
    /// coordinate at MuJoCo's initial control, zero (its force is `gear · ctrl`); servos
    /// (`position`, `velocity`, …), `general` and actuators on tendons or sites are kept in the
    /// `mjcf.actuator` extra and reported.
    fn actuators(&mut self, section: &'d Element) -> SourceResult<()> {
        let mut dropped = Vec::new();
        for (i, a) in section.children.iter().enumerate() {
            let class = self.class_of(a, ClassId::MAIN)?;
            let joint = a
                .value("joint")
                .and_then(|j| self.model.joints.iter().find(|x| x.name == j));
            let motor_type = match joint.map(|j| &j.kind) {
                Some(JointKind::Revolute { .. }) => Some(MotorType::Rotation),
                Some(JointKind::Prismatic { .. }) => Some(MotorType::Linear),
                _ => None,
            };
            // A control range that excludes zero clamps the initial control away from it.
            let range = self
                .values
                .vector(a, "actuator", class, "ctrlrange", &[0.0, 0.0], true)?
                .0;
            let clamps = range[0] < range[1] && (range[0] > 0.0 || range[1] < 0.0);
            match (a.name.as_str(), motor_type) {
                ("motor", Some(motor_type)) if !clamps => {
                    let joint = a.value("joint").unwrap_or_default().to_string();
                    let wanted = a
                        .value("name")
                        .map_or_else(|| format!("actuator{i}"), str::to_string);
                    let name = self.session.unique_name("motors", &wanted, "mjcf");
                    let mut extras = Extras::default();
                    extras.insert("mjcf.actuator", verbatim(a));
                    self.model.motors.push(Motor {
                        name: name.clone(),
                        motor_type,
                        actuation: MotorActuation::Force,
                        target: MotorTarget::Joint { joint, dof: 0 },
                        function: TimeFunction::Constant { value: 0.0 },
                        extras,
                    });
                    let path = mbconv_ir::report::path::item("motors", &name);
                    self.record(&path, &a.loc);
                }
                _ => dropped.push(a),
            }
        }
        if !self.model.motors.is_empty() {
            self.finding(
                "actuator_zero_control",
                Severity::Info,
                Category::Note,
                "",
                Some(&section.loc),
                format!(
                    "{} joint motor(s) read as force motors at MuJoCo's initial control (zero force); the control signal is not part of the model",
                    self.model.motors.len()
                ),
            );
        }
        if let Some(first) = dropped.first() {
            let names: Vec<String> = dropped
                .iter()
                .map(|a| a.value("name").map_or_else(|| a.name.clone(), str::to_string))
                .collect();
            let loc = first.loc.clone();
            self.finding(
                "actuator_kept",
                Severity::Warning,
                Category::Dropped,
                "",
                Some(&loc),
                format!(
                    "{} actuator(s) kept as mjcf.actuator extras only (servos, general actuators, tendon or site transmissions, or a control range excluding zero): {}",
                    dropped.len(),
                    names.join(", ")
                ),
            );
        }
        Ok(())
    }

    /// Appends a verbatim section to a model extra holding a list of them.
    pub(crate) fn append_extra(&mut self, key: &str, value: Value) {
        match self.model.extras.0.0.iter_mut().find(|(k, _)| k == key) {
            Some((_, Value::List(list))) => list.push(value),
            _ => self.model.extras.insert(key, Value::List(vec![value])),
        }
    }

    fn equality(&mut self, section: &'d Element) -> SourceResult<()> {
        for e in &section.children {
            bodies::equality(self, e)?;
        }
        Ok(())
    }

    fn keyframe(&mut self, options: &Options) -> SourceResult<()> {
        let keys: Vec<&'d Element> = self
            .root
            .children_named("keyframe")
            .flat_map(|k| k.children_named("key"))
            .collect();
        // MuJoCo checks the sizes of every keyframe, used or not.
        for key in &keys {
            bodies::check_keyframe(self, key)?;
        }
        let Some(wanted) = options
            .text("keyframe")
            .filter(|k| !k.is_empty() && *k != "qpos0")
        else {
            return Ok(());
        };
        let picked = match wanted.parse::<usize>() {
            Ok(i) => keys.get(i).copied(),
            Err(_) => keys.iter().copied().find(|k| k.value("name") == Some(wanted)),
        };
        let Some(key) = picked else {
            let names: Vec<String> = keys
                .iter()
                .enumerate()
                .map(|(i, k)| k.value("name").map_or(i.to_string(), |n| format!("{i} ({n})")))
                .collect();
            return Err(Box::new(self.session.source.error(
                "mjcf.keyframe",
                None,
                format!(
                    "no keyframe {wanted:?} in this model; keyframes: {}",
                    if names.is_empty() {
                        "none".to_string()
                    } else {
                        names.join(", ")
                    }
                ),
            )));
        };
        bodies::apply_keyframe(self, key)
    }
}

/// The `<flag>` attribute that switches an IR field off.
fn flag_word(field: &str) -> &'static str {
    match field {
        "spring_stiffness" => "spring",
        "damping" => "damper",
        "friction" => "frictionloss",
        "position_limits" => "limit",
        _ => "equality",
    }
}

fn default_class<'d>(values: &mut Values<'d>, d: &'d Element, class: ClassId) -> SourceResult<()> {
    for child in &d.children {
        let name = child.name.as_str();
        if name == "default" {
            let Some(cname) = child.attr("class") else {
                return Err(values.files.error(&child.loc, "default", "empty class name"));
            };
            let files = values.files;
            let id = values
                .classes
                .add(&cname.value, class)
                .map_err(|e| files.error(&cname.loc, "default", e.to_string()))?;
            default_class(values, child, id)?;
            continue;
        }
        let kind = if ACTUATORS.contains(&name) {
            "actuator"
        } else if DEFAULT_KINDS.contains(&name) {
            name
        } else {
            return Err(values.files.error(
                &child.loc,
                "default",
                format!("unrecognized element <{name}> in <default>"),
            ));
        };
        for a in &child.attrs {
            values.classes.set(class, kind, &a.name, a);
        }
    }
    Ok(())
}

/// An element kept verbatim as a value: `{element, attributes…, children: […]}`.
pub(crate) fn verbatim(e: &Element) -> Value {
    let mut m = ValueMap::new();
    m.insert("element", Value::String(e.name.clone()));
    for a in &e.attrs {
        m.insert(a.name.clone(), Value::String(a.value.clone()));
    }
    if !e.children.is_empty() {
        m.insert("children", Value::List(e.children.iter().map(verbatim).collect()));
    }
    Value::Map(m)
}
