//! SDFormat document -> IR, following libsdformat's reading.
//!
//! Two phases. `build` reads every file, parsed by `raw`, (the main one and each `<include>`d one) into owned
//! scopes: one per `<world>` or `<model>`, holding its links, joints, `<frame>`s and nested
//! models as frames with a pose and the frame it is relative to. `resolve` then walks that
//! frame graph: the pose of every frame in its model's frame, the link each frame is attached
//! to, and from those the world pose of every link (a body), the joint frames on the parent
//! and child bodies and the axes in the joint frame. Unknown frames and cycles are errors that
//! name the frames.
//!
//! Modules: `build` (files, worlds, models and frames as written), `include` (`<include>`d
//! files), `pose` (`<pose>` as written), `link` and `joint` (what `build` reads of each),
//! `frames` (the frame graph of a scope) and `resolve` (scopes -> IR); this module holds the
//! scopes' types and the reader's reporting.

mod build;
mod frames;
mod include;
mod joint;
mod link;
mod pose;
mod resolve;

use crate::raw::{self, SDF};
use crate::spec;
use mbconv_ir::format::kit::{ImportSession, SourceResult};
use mbconv_ir::format::{FormatError, Imported, Options, Source};
use mbconv_ir::report::{Category, Severity, SourceSpan};
use mbconv_ir::{Body, DofProperties, Extras, Frame, Model, Pose, Value};
use mbconv_xml::{Node, span_of_node};
use nalgebra::Vector3;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::rc::Rc;

/// How deep `<include>`s may nest (a file including itself is refused before that).
const MAX_INCLUDE_DEPTH: usize = 32;
/// The name of a model's own frame.
const MODEL_FRAME: &str = "__model__";

/// Reads an SDFormat file (and the files it includes); `options` holds the read settings.
pub(crate) fn read(source: &Source, options: &Options) -> Result<Imported, FormatError> {
    import(source, options).map_err(|e| e as FormatError)
}

/// Reads an SDFormat file: what tinyxml2 reads although XML forbids it made readable
/// ([`raw::tolerated`]), then attributes not separated by whitespace (`name="j"type="revolute"`),
/// which libsdformat's parser (tinyxml2) reads too, read with a warning
/// `sdf.attributes_not_separated`: in the main file with the positions of the tolerated text
/// ([`mbconv_xml::tolerated::read_separating_attributes`]), in an included file as
/// [`Reader::build_file`] says.
fn import(source: &Source, options: &Options) -> SourceResult<Imported> {
    let late_declaration = raw::late_declaration(&source.text);
    let tolerated = raw::tolerated(source);
    mbconv_xml::tolerated::read_separating_attributes(
        &tolerated,
        "sdf.attributes_not_separated",
        "libsdformat (tinyxml2) and Drake",
        |source| read_main(source, options, late_declaration),
    )
}

/// [`import`] of the main file's text as parsed (`late_declaration`: the span of an XML
/// declaration after whitespace in the file, which the text has blanked).
fn read_main(
    source: &Source,
    options: &Options,
    late_declaration: Option<(usize, usize)>,
) -> SourceResult<Imported> {
    let mut roots: Vec<PathBuf> = options
        .text(spec::MODEL_PATH)
        .filter(|t| *t != "none")
        .map(split_paths)
        .unwrap_or_default();
    for var in ["GZ_SIM_RESOURCE_PATH", "SDF_PATH"] {
        if let Ok(value) = std::env::var(var) {
            roots.extend(split_paths(&value));
        }
    }
    let packages = mbconv_xml::packages::Packages::from_setting(options.text(spec::PACKAGE_PATH));
    let mut reader = Reader {
        session: ImportSession::new("sdf", source),
        files: vec![Rc::new(source.clone())],
        scopes: Vec::new(),
        roots,
        packages: match source.base_dir() {
            Some(folder) => packages.with_file_folder(folder),
            None => packages,
        },
        model_extras: Extras::default(),
        simulation_gravity: None,
        time_step: None,
        world_name: None,
        main_late_declaration: late_declaration,
    };
    let world = reader.build_file(0, 0)?;
    let model = reader.resolve(world)?;
    Ok(reader.session.finish(model))
}

fn split_paths(text: &str) -> Vec<PathBuf> {
    text.split(':')
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .collect()
}

/// A place in one of the files read.
#[derive(Clone, Copy, Debug)]
struct Loc {
    file: usize,
    offset: usize,
    length: usize,
    line: usize,
    column: usize,
}

impl Loc {
    fn new(file: usize, span: SourceSpan) -> Self {
        Loc {
            file,
            offset: span.offset,
            length: span.length,
            line: span.line,
            column: span.column,
        }
    }

    fn span(self) -> SourceSpan {
        SourceSpan {
            offset: self.offset,
            length: self.length,
            line: self.line,
            column: self.column,
        }
    }
}

/// What a frame of a scope is.
#[derive(Clone, Debug)]
enum Kind {
    Link(usize),
    Joint { child: String },
    Frame { attached_to: Option<String> },
    Model(usize),
}

/// A frame of a scope: its pose relative to `relative_to` (`None`: the kind's default).
#[derive(Clone, Debug)]
struct FrameDef {
    kind: Kind,
    pose: Pose,
    relative_to: Option<String>,
    at: Loc,
}

/// A link as read: the body in the link frame (name, inertial, shapes and extras).
struct LinkDef {
    body: Body,
}

/// One `<axis>`/`<axis2>`.
struct AxisDef {
    xyz: Vector3<f64>,
    expressed_in: Option<String>,
    dof: DofProperties,
}

struct JointDef {
    name: String,
    kind: String,
    parent: String,
    child: String,
    axes: [Option<AxisDef>; 2],
    pitch: f64,
    /// `<drake:damping>` of a `<drake:joint type="planar">`: x, y and the rotation.
    planar_damping: Option<[f64; 3]>,
    extras: Extras,
    at: Loc,
}

/// A `<drake:ball_constraint>`: the point P of link A (`p_ap`, in A) held on the point Q of
/// link B (`p_bq`, in B).
struct BallConstraintDef {
    /// Its `name` attribute (not Drake's; mbconv's writer states it).
    name: Option<String>,
    body_a: String,
    body_b: String,
    p_ap: Vector3<f64>,
    p_bq: Vector3<f64>,
    at: Loc,
}

/// A `<world>` or `<model>`.
struct Scope {
    /// Prefix of the IR names of its links (`outer::inner::`, empty for the file's model).
    prefix: String,
    is_world: bool,
    version: u32,
    is_static: bool,
    canonical: Option<(String, Loc)>,
    placement: Option<(String, Loc)>,
    frames: Vec<(String, FrameDef)>,
    index: BTreeMap<String, usize>,
    links: Vec<(String, LinkDef)>,
    joints: Vec<JointDef>,
    ball_constraints: Vec<BallConstraintDef>,
    self_collide: Option<bool>,
    extras: Extras,
    at: Loc,
}

struct Reader<'s> {
    session: ImportSession<'s>,
    /// The files read (the main one first), shared: every element's reading holds one.
    files: Vec<Rc<Source>>,
    scopes: Vec<Scope>,
    roots: Vec<PathBuf>,
    /// The ROS packages `package://` URIs name (`package_path` setting, `ROS_PACKAGE_PATH`, then
    /// from the main file's folder as the URDF reader finds them), also where a `model://` URI
    /// not under a model root is looked for (Drake reads `model://NAME` as package `NAME`).
    packages: mbconv_xml::packages::Packages,
    model_extras: Extras,
    simulation_gravity: Option<Vector3<f64>>,
    time_step: Option<f64>,
    world_name: Option<String>,
    /// The span of an XML declaration after whitespace in the main file, which [`import`] has
    /// blanked, for [`Reader::build_file`]'s note.
    main_late_declaration: Option<(usize, usize)>,
}

fn push_extra(extras: &mut Extras, key: &str, value: Value) {
    match extras.0.0.iter_mut().find(|(k, _)| k == key) {
        None => extras.insert(key, value),
        Some((_, Value::List(items))) => items.push(value),
        Some((_, slot)) => {
            let first = std::mem::take(slot);
            *slot = Value::List(vec![first, value]);
        }
    }
}

impl<'s> Reader<'s> {
    fn loc(&self, file: usize, node: Node) -> Loc {
        Loc::new(file, span_of_node(&self.files[file], node))
    }

    fn err(&self, at: Loc, what: &str, message: impl Into<String>) -> Box<mbconv_ir::format::SourceError> {
        SDF.error(&self.files[at.file], what, Some(at.span()), message)
    }

    /// A finding; its span only when it is in the main file (the session's).
    fn finding(
        &mut self,
        code: &str,
        severity: Severity,
        category: Category,
        ir: &str,
        at: Loc,
        message: String,
    ) {
        let (span, message) = if at.file == 0 {
            (Some(at.span()), message)
        } else {
            let file = &self.files[at.file].name;
            (None, format!("{file}:{}:{}: {message}", at.line, at.column))
        };
        self.session.finding(code, severity, category, ir, span, message);
    }

    fn note(&mut self, code: &str, category: Category, ir: &str, at: Loc, message: String) {
        self.finding(code, Severity::Info, category, ir, at, message);
    }

    fn warn(&mut self, code: &str, category: Category, ir: &str, at: Loc, message: String) {
        self.finding(code, Severity::Warning, category, ir, at, message);
    }
}

/// Attaches `frame` (pose in the world for now) to the body named `owner`; poses are made
/// body-relative once every frame is placed.
fn pending_frame(model: &mut Model, owner: String, frame: Frame) {
    match model.bodies.iter_mut().find(|b| b.name == owner) {
        Some(body) => body.frames.push(frame),
        None => model.world_frames.push(frame),
    }
}

fn element_extras(extras: &Extras) -> Value {
    let mut map = mbconv_ir::ValueMap::new();
    for (k, v) in extras.iter() {
        map.insert(k.trim_start_matches("sdf."), v.clone());
    }
    Value::Map(map)
}
