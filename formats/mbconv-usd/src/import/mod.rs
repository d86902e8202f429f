//! The composed stage -> IR, as UsdPhysics states it: stage units (`metersPerUnit`,
//! `kilogramsPerUnit`) applied to every length, mass and inertia; the `PhysicsScene`'s
//! gravity; every prim with `PhysicsRigidBodyAPI` a body at its composed world transform
//! (`body`, with its mass properties from `mass` and its shapes from `shapes`); every
//! joint prim a joint (`joints`). Each default the schemas state is applied and reported.
//!
//! Where the writer kept a value in double precision beside a 32-bit schema attribute
//! (`mbconv:<attribute>`, SI units), the reader takes it instead of the float.

mod body;
mod joints;
mod mass;
mod shapes;
mod xform;

use crate::raw::{self, RawPrim, RawStage, number, vec3};
use crate::spec::{
    EARTH_GRAVITY, FALLBACK_KILOGRAMS_PER_UNIT, FALLBACK_METERS_PER_UNIT, FORMAT, api, attr, axis_vector,
    exact_attr, prim,
};
use mbconv_ir::format::kit::{ImportSession, SourceResult};
use mbconv_ir::format::{Imported, Source, SourceError};
use mbconv_ir::{Category, Model, Severity, Value as IrValue};
use nalgebra::Vector3;
use openusd::sdf::Value;
use std::collections::HashMap;
use xform::Xf;

/// Reads a USD stage into the IR.
pub(crate) fn import(source: &Source) -> SourceResult<Imported> {
    import_with_paths(source).map(|(imported, _)| imported)
}

/// Reads a USD stage into the IR, with the prim each body and joint was read from.
pub(crate) fn import_with_paths(source: &Source) -> SourceResult<(Imported, PrimPaths)> {
    let stage = raw::open(source)?;
    let mut importer = Importer::new(source, &stage)?;
    for error in &stage.composition_errors {
        importer.session.finding(
            "composition",
            Severity::Warning,
            Category::Ignored,
            "model",
            None,
            format!("composition: {error}"),
        );
    }
    for arc in &stage.left_out_arcs {
        importer.session.finding(
            "inherit_redundant",
            Severity::Info,
            Category::Note,
            "model",
            None,
            arc.clone(),
        );
    }
    importer.units();
    importer.scene();
    importer.bodies()?;
    if importer.model.bodies.is_empty() {
        return Err(no_rigid_body(source, &stage));
    }
    importer.joints()?;
    importer.filters();
    let Importer {
        session,
        model,
        paths,
        ..
    } = importer;
    Ok((session.finish(model), paths))
}

/// The prim each item of a model read from a stage comes from: OpenUSD names bodies and joints
/// by prim path, and several prims may share a name (NVIDIA's converters name every joint
/// `PhysicsFixedJoint`, ...; MuJoCo's unnamed bodies are each `Body`), where the IR's names are
/// made unique (`parent/name`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PrimPaths {
    /// The prim path of each of `model.bodies`, in order.
    pub bodies: Vec<String>,
    /// The prim path of each of `model.joints`, in order (a `PhysicsDistanceJoint` is read as a
    /// constraint, not a joint).
    pub joints: Vec<String>,
}

impl crate::UsdFormat {
    /// Reads a stage as [`Format::read`](mbconv_ir::format::Format::read) does, and says which prim each body and joint of the
    /// model was read from.
    ///
    /// ```
    /// use mbconv_ir::format::Source;
    /// let text = r#"#usda 1.0
    /// (
    ///     metersPerUnit = 1
    ///     upAxis = "Z"
    /// )
    /// def Xform "arm" (prepend apiSchemas = ["PhysicsRigidBodyAPI"])
    /// {
    ///     def Xform "Body" (prepend apiSchemas = ["PhysicsRigidBodyAPI"])
    ///     {
    ///         def PhysicsFixedJoint "PhysicsFixedJoint"
    ///         {
    ///             rel physics:body0 = </arm>
    ///             rel physics:body1 = </arm/Body>
    ///         }
    ///     }
    /// }
    /// def Xform "leg" (prepend apiSchemas = ["PhysicsRigidBodyAPI"])
    /// {
    ///     def Xform "Body" (prepend apiSchemas = ["PhysicsRigidBodyAPI"])
    ///     {
    ///         def PhysicsFixedJoint "PhysicsFixedJoint"
    ///         {
    ///             rel physics:body0 = </leg>
    ///             rel physics:body1 = </leg/Body>
    ///         }
    ///     }
    /// }
    /// "#;
    /// let source = Source::from_string("two.usda", text);
    /// let (imported, paths) = mbconv_usd::UsdFormat.read_with_prim_paths(&source).unwrap();
    /// assert_eq!(paths.bodies, ["/arm", "/arm/Body", "/leg", "/leg/Body"]);
    /// assert_eq!(paths.joints, ["/arm/Body/PhysicsFixedJoint", "/leg/Body/PhysicsFixedJoint"]);
    /// // The second `Body` is renamed in the IR; its prim path says which one it is.
    /// assert_eq!(imported.model.bodies[3].name, "leg/Body");
    /// assert_eq!(imported.model.joints[1].child, mbconv_ir::BodyRef::body("leg/Body"));
    /// ```
    ///
    /// # Errors
    /// The stage's refusal, as [`Format::read`](mbconv_ir::format::Format::read) gives it.
    pub fn read_with_prim_paths(
        &self,
        source: &Source,
    ) -> Result<(Imported, PrimPaths), mbconv_ir::format::FormatError> {
        import_with_paths(source).map_err(|e| e as mbconv_ir::format::FormatError)
    }
}

/// The error for a stage without rigid bodies: it names the composition errors (a payload or
/// reference that did not load is the usual reason) and points at the first one's asset path,
/// or at the first prim.
fn no_rigid_body(source: &Source, stage: &RawStage) -> Box<SourceError> {
    let mut message = "the stage has no rigid body: no prim has PhysicsRigidBodyAPI applied".to_owned();
    let mut place = stage.prims.first().and_then(|p| raw::prim_span(source, &p.path));
    if stage.composition_errors.is_empty() {
        message.push_str(" (a stage without physics)");
    } else {
        message.push_str(&format!(
            "; what did not compose: {}",
            stage.composition_errors.join("; ")
        ));
        let named = stage.composition_errors.iter().find_map(|e| {
            e.split(['@', ' ', '\'', '"'])
                .filter(|w| w.contains(".usd"))
                .filter_map(|w| std::path::Path::new(w).file_name())
                .find_map(|n| source.text.find(&*n.to_string_lossy()))
        });
        if let Some(at) = named {
            place = Some(source.span(at, 1));
        }
    }
    let error = source.error(
        &format!("{FORMAT}.no_rigid_body"),
        Some(place.unwrap_or_else(|| raw::start_span(source))),
        message,
    );
    Box::new(error.with_help("apply PhysicsRigidBodyAPI to the Xform of each moving part"))
}

/// One import: the session, the stage, every prim's world transform and the model so far.
struct Importer<'s> {
    session: ImportSession<'s>,
    source: &'s Source,
    stage: &'s RawStage,
    /// Every prim's world transform, in stage units.
    world: Vec<Xf>,
    /// Metres per stage unit.
    length: f64,
    /// Kilograms per stage mass unit.
    mass: f64,
    /// The body index of each rigid-body prim, by prim index.
    bodies: HashMap<usize, usize>,
    model: Model,
    /// The prim of each body and joint of `model`, in the same order.
    paths: PrimPaths,
}

impl<'s> Importer<'s> {
    fn new(source: &'s Source, stage: &'s RawStage) -> SourceResult<Self> {
        let mut world: Vec<Xf> = Vec::with_capacity(stage.prims.len());
        for p in &stage.prims {
            let (local, reset) = xform::local(p).map_err(|e| {
                let message = match e {
                    xform::XformError::Op(m) => m,
                    xform::XformError::UnknownOp(op) => format!("{op} is not an xform op UsdGeom defines"),
                };
                raw::prim_error(source, "xform", &p.path, message)
            })?;
            let parent = match (reset, p.parent) {
                (false, Some(i)) => world[i],
                _ => Xf::identity(),
            };
            world.push(parent.then(&local));
        }
        let name = stage
            .default_prim
            .clone()
            .or_else(|| stage.prims.first().map(|p| p.name.clone()))
            .unwrap_or_else(|| "stage".to_owned());
        let name = stage
            .index_of(&format!("/{name}"))
            .and_then(|i| string(&stage.prims[i], attr::MBCONV_NAME))
            .unwrap_or(name);
        Ok(Self {
            session: ImportSession::new(FORMAT, source),
            source,
            stage,
            world,
            length: 1.0,
            mass: 1.0,
            bodies: HashMap::new(),
            model: Model::new(name),
            paths: PrimPaths::default(),
        })
    }

    /// A finding about the prim `path` and the IR item `at`.
    fn note(&mut self, code: &str, category: Category, at: &str, path: &str, message: impl Into<String>) {
        let span = raw::prim_span(self.source, path);
        let severity = if category.is_loss() {
            Severity::Warning
        } else {
            Severity::Info
        };
        self.session.finding(
            code,
            severity,
            category,
            at,
            span,
            format!("{path}: {}", message.into()),
        );
    }

    /// An error about the prim `path`.
    fn error(&self, code: &str, path: &str, message: impl Into<String>) -> Box<SourceError> {
        raw::prim_error(self.source, code, path, message)
    }

    /// Stage units and the up axis.
    fn units(&mut self) {
        let stage = self.stage;
        self.length = stage.meters_per_unit.unwrap_or_else(|| {
            self.session.defaulted(
                "model",
                None,
                format!("no metersPerUnit: UsdGeom's fallback {FALLBACK_METERS_PER_UNIT} (centimetres) applies to every length"),
            );
            FALLBACK_METERS_PER_UNIT
        });
        self.mass = stage.kilograms_per_unit.unwrap_or(FALLBACK_KILOGRAMS_PER_UNIT);
        match stage.up_axis.as_deref() {
            None | Some("Z") => {}
            Some(up) => {
                self.model
                    .extras
                    .insert("usd.up_axis", IrValue::String(up.to_owned()));
                self.session.finding(
                    "up_axis",
                    Severity::Info,
                    Category::Note,
                    "model",
                    None,
                    format!("upAxis is {up}: the stage is read as it stands (gravity follows the PhysicsScene); write with --up to turn it"),
                );
            }
        }
    }

    /// The stage's up axis as a vector (Y when unauthored, as UsdGeom's fallback).
    fn up(&self) -> Vector3<f64> {
        self.stage
            .up_axis
            .as_deref()
            .and_then(axis_vector)
            .unwrap_or_else(Vector3::y)
    }

    /// Down the up axis (with no negative zeros).
    fn down(&self) -> Vector3<f64> {
        self.up().map(|x| 0.0 - x)
    }

    /// Gravity from the first `PhysicsScene`.
    fn scene(&mut self) {
        let stage = self.stage;
        let scenes: Vec<&RawPrim> = stage
            .prims
            .iter()
            .filter(|p| p.type_name == prim::SCENE)
            .collect();
        let Some(scene) = scenes.first() else {
            let g = self.down() * EARTH_GRAVITY;
            self.model.simulation.gravity = Some(g);
            self.session.defaulted(
                "simulation.gravity",
                None,
                format!(
                    "no PhysicsScene: the schema's default gravity, {EARTH_GRAVITY} m/s² down the up axis"
                ),
            );
            return;
        };
        if scenes.len() > 1 {
            let path = scene.path.clone();
            self.note(
                "scenes",
                Category::Ignored,
                "simulation",
                &path,
                "more than one PhysicsScene: the first one's gravity is read",
            );
        }
        let direction = exact3(scene, attr::GRAVITY_DIRECTION)
            .map(|(d, _)| Vector3::from(d))
            .filter(|d| d.norm() > 0.0)
            .map_or_else(|| self.down(), |d| d.normalize());
        let magnitude = match exact(scene, attr::GRAVITY_MAGNITUDE) {
            Some((m, true)) => m,
            Some((m, false)) if m.is_finite() && m >= 0.0 => m * self.length,
            _ => EARTH_GRAVITY,
        };
        self.model.simulation.gravity = Some(direction * magnitude);
    }
}

impl Importer<'_> {
    /// Contact filters (`PhysicsFilteredPairsAPI`'s pairs, `PhysicsCollisionGroup`s with their
    /// colliders and filtered groups): the IR has no contact filter, so they are kept in the
    /// model's extras (`usd.filtered_pairs`, `usd.collision_groups`) and reported.
    fn filters(&mut self) {
        let stage = self.stage;
        let targets = |p: &RawPrim, rel: &str| p.relationships.get(rel).cloned().unwrap_or_default();
        let mut pairs = Vec::new();
        for p in stage.prims.iter().filter(|p| p.has_api(api::FILTERED_PAIRS)) {
            for t in targets(p, attr::FILTERED_PAIRS) {
                pairs.push(format!("{} ~ {t}", p.path));
            }
        }
        let mut groups = Vec::new();
        for p in stage
            .prims
            .iter()
            .filter(|p| p.type_name == prim::COLLISION_GROUP)
        {
            groups.push(format!(
                "{}: colliders [{}], filtered groups [{}]",
                p.path,
                targets(p, attr::COLLIDERS_INCLUDES).join(", "),
                targets(p, attr::FILTERED_GROUPS).join(", ")
            ));
        }
        for (key, list, what) in [
            (
                "usd.filtered_pairs",
                pairs,
                "filtered pairs (PhysicsFilteredPairsAPI)",
            ),
            (
                "usd.collision_groups",
                groups,
                "collision groups (PhysicsCollisionGroup)",
            ),
        ] {
            if list.is_empty() {
                continue;
            }
            self.session.finding(
                "contact_filter",
                Severity::Warning,
                Category::Ignored,
                "model",
                None,
                format!(
                    "{} {what}: the IR has no contact filter, kept in extras[{key:?}] and not simulated ({})",
                    list.len(),
                    list.join("; ")
                ),
            );
            self.model.extras.insert(key, IrValue::String(list.join("; ")));
        }
    }
}

/// The scalar attribute `name`, preferring its `mbconv:` double (then `true`: SI units).
fn exact(prim: &RawPrim, name: &str) -> Option<(f64, bool)> {
    if let Some(v) = prim.attribute(&exact_attr(name)).and_then(number) {
        return Some((v, true));
    }
    prim.attribute(name).and_then(number).map(|v| (v, false))
}

/// The three-vector attribute `name`, preferring its `mbconv:` double (then `true`).
fn exact3(prim: &RawPrim, name: &str) -> Option<([f64; 3], bool)> {
    if let Some(v) = prim.attribute(&exact_attr(name)).and_then(vec3) {
        return Some((v, true));
    }
    prim.attribute(name).and_then(vec3).map(|v| (v, false))
}

/// The quaternion attribute `name`, preferring its `mbconv:` double (then `true`).
fn exact_quat(prim: &RawPrim, name: &str) -> Option<([f64; 4], bool)> {
    if let Some(v) = prim.attribute(&exact_attr(name)).and_then(raw::quat) {
        return Some((v, true));
    }
    prim.attribute(name).and_then(raw::quat).map(|v| (v, false))
}

/// A token or string attribute.
fn string(prim: &RawPrim, name: &str) -> Option<String> {
    match prim.attribute(name)? {
        Value::Token(t) => Some(t.as_str().to_owned()),
        Value::String(s) => Some(s.clone()),
        _ => None,
    }
}

/// A boolean attribute.
fn flag(prim: &RawPrim, name: &str) -> Option<bool> {
    match prim.attribute(name)? {
        Value::Bool(b) => Some(*b),
        _ => None,
    }
}

/// True for prims with `PhysicsRigidBodyAPI`, but for the anchors this writer adds for the world
/// (`mbconv:world`), which are the world.
fn is_body(prim: &RawPrim) -> bool {
    prim.has_api(api::RIGID_BODY) && flag(prim, attr::MBCONV_WORLD) != Some(true)
}
