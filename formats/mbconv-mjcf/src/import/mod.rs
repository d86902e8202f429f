//! MJCF -> IR, as MuJoCo's compiler reads the file.
//!
//! Order of work: the document with includes spliced (`raw`), `<compiler>` settings
//! (`compiler_settings`), default classes (`defaults`), assets (`assets`: materials and
//! meshes), `<option>` (`option`), the body tree (`bodies`, with `joints`, `geoms`, `frames`
//! for positions, orientations, `<replicate>` and sites, `mass`, and `attach` for attached
//! models), equality constraints (`equality`), then the sections the IR has no typed home for
//! (`sections`: kept as `mjcf.*` extras and reported; joint motors read), and last the keyframe
//! the `keyframe` setting picks (`keyframes`). What MuJoCo's compiler computes apart from XML
//! (orientations, default classes, inertia from geoms, meshes) is in `compiler`; typed
//! attribute values with their defaults in `values`.

mod assets;
mod attach;
mod bodies;
mod compiler;
mod compiler_settings;
mod defaults;
mod equality;
mod frames;
mod geoms;
mod joints;
mod keyframes;
mod mass;
mod option;
mod sections;
mod values;

use crate::raw::{self, Element, Loc};
use mbconv_ir::format::kit::{ImportSession, SourceResult};
use mbconv_ir::format::{Imported, Options, Source};
use mbconv_ir::report::{Category, Finding, Severity};
use mbconv_ir::{Model, Value, ValueMap};
use values::Values;

use compiler_settings::{Compiler, FromGeom};
use defaults::classes_of;
use option::Flags;

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
    pub meshes: Vec<assets::MeshAsset<'d>>,
    /// Joints in MuJoCo's order (body order, then joint order) for keyframes.
    pub qpos_layout: Vec<joints::JointSlot>,
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
    reader.tolerated(&document)?;
    for (k, d) in attached.iter().enumerate() {
        reader.in_model(k + 1, |r| r.tolerated(d))?;
    }
    reader.run(options)?;
    let Reader { session, model, .. } = reader;
    Ok(session.finish(model))
}

impl<'d> Reader<'d> {
    /// A warning (`mjcf.attributes_not_separated`, `mjcf.content_after_root_ignored`) for each
    /// file of `document` (the model being read) that has what XML forbids and MuJoCo reads
    /// ([`raw::Document::tolerated`]).
    fn tolerated(&mut self, document: &raw::Document) -> SourceResult<()> {
        for (loc, code, message) in &document.tolerated {
            self.finding(
                code,
                Severity::Warning,
                Category::Note,
                "",
                Some(loc),
                message.clone(),
            );
        }
        Ok(())
    }

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

    /// An error at a place of any file.
    pub(crate) fn error(
        &self,
        loc: &Loc,
        code: &str,
        message: impl Into<String>,
    ) -> Box<mbconv_ir::format::SourceError> {
        self.values.files.error(loc, code, message)
    }

    /// Appends a verbatim section to a model extra holding a list of them.
    pub(crate) fn append_extra(&mut self, key: &str, value: Value) {
        match self.model.extras.0.0.iter_mut().find(|(k, _)| k == key) {
            Some((_, Value::List(list))) => list.push(value),
            _ => self.model.extras.insert(key, Value::List(vec![value])),
        }
    }
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
