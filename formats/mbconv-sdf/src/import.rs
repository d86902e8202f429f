//! SDFormat document -> IR, following libsdformat's reading.
//!
//! Two phases. `build` reads every file (the main one and each `<include>`d one) into owned
//! scopes: one per `<world>` or `<model>`, holding its links, joints, `<frame>`s and nested
//! models as frames with a pose and the frame it is relative to. `resolve` then walks that
//! frame graph: the pose of every frame in its model's frame, the link each frame is attached
//! to, and from those the world pose of every link (a body), the joint frames on the parent
//! and child bodies and the axes in the joint frame. Unknown frames and cycles are errors that
//! name the frames.

use crate::spec;
use mbconv_ir::format::kit::{ImportSession, SourceResult};
use mbconv_ir::format::{Imported, Options, Source};
use mbconv_ir::report::{Category, Severity, SourceSpan, path};
use mbconv_ir::{
    Body, BodyRef, DofProperties, Extras, Frame, FrameKind, Geometry, Inertia, Inertial, Joint, JointKind,
    Limits, MeshRef, Model, Pose, Shape, ShapeRole, Value,
};
use mbconv_xml::{
    Dialect, Node, child, children, element_value, elements, qualified_name, span_of_attribute, span_of_node,
    text,
};
use nalgebra::{UnitQuaternion, Vector3};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The SDFormat dialect of the shared XML layer.
pub(crate) const SDF: Dialect = Dialect {
    root: "sdf",
    prefix: "sdf",
    name: "SDFormat",
};

/// How deep `<include>`s may nest (a file including itself is refused before that).
const MAX_INCLUDE_DEPTH: usize = 32;
/// The name of a model's own frame.
const MODEL_FRAME: &str = "__model__";

pub(crate) fn import(source: &Source, options: &Options) -> SourceResult<Imported> {
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
    let mut reader = Reader {
        session: ImportSession::new("sdf", source),
        files: vec![source.clone()],
        scopes: Vec::new(),
        roots,
        model_extras: Extras::default(),
        simulation_gravity: None,
        time_step: None,
        world_name: None,
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
    self_collide: Option<bool>,
    extras: Extras,
    at: Loc,
}

struct Reader<'s> {
    session: ImportSession<'s>,
    files: Vec<Source>,
    scopes: Vec<Scope>,
    roots: Vec<PathBuf>,
    model_extras: Extras,
    simulation_gravity: Option<Vector3<f64>>,
    time_step: Option<f64>,
    world_name: Option<String>,
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

    // ---- build: files -> scopes ------------------------------------------------------------

    /// Reads file `file` (the main one: a world or a model; an included one: a model) and
    /// returns its top scope, a world holding the model when the file is a model.
    fn build_file(&mut self, file: usize, depth: usize) -> SourceResult<usize> {
        let source = comments_without_double_hyphens(&self.files[file]);
        self.files[file] = source.clone();
        let document = SDF.parse(&source)?;
        let root = document.root_element();
        let Some(version_text) = root.attribute("version") else {
            return Err(SDF.error(
                &source,
                "version",
                Some(span_of_node(&source, root)),
                "<sdf> needs the attribute `version` (1.4 to 1.12)",
            ));
        };
        let Some(version) = spec::minor_version(version_text) else {
            return Err(SDF.error(
                &source,
                "version",
                Some(span_of_attribute(&source, root, "version")),
                format!("SDFormat version {version_text:?} is not read: versions 1.4 to 1.12 are"),
            ));
        };
        let worlds: Vec<Node> = children(root, "world").collect();
        let models: Vec<Node> = children(root, "model").collect();
        if file == 0 && worlds.len() == 1 && models.is_empty() {
            return self.world(file, version, worlds[0], depth);
        }
        if worlds.len() > 1 {
            return Err(SDF.error(
                &source,
                "world",
                Some(span_of_node(&source, worlds[1])),
                "more than one <world>: mbconv reads one world per file",
            ));
        }
        let Some(model) = models.first() else {
            let what = if worlds.is_empty() {
                "<sdf> holds no <world> and no <model>"
            } else {
                "an included file must hold a <model>, not a <world>"
            };
            return Err(SDF.error(&source, "missing", Some(span_of_node(&source, root)), what));
        };
        if !worlds.is_empty() || models.len() > 1 {
            let extra = if worlds.is_empty() { models[1] } else { worlds[0] };
            return Err(SDF.error(
                &source,
                "root",
                Some(span_of_node(&source, extra)),
                "<sdf> must hold exactly one <model> or one <world> (libsdformat refuses others)",
            ));
        }
        for other in elements(root) {
            if !matches!(other.tag_name().name(), "model") {
                let at = self.loc(file, other);
                self.warn(
                    "ignored",
                    Category::Ignored,
                    "model",
                    at,
                    format!("<{}> beside the <model> is not read", other.tag_name().name()),
                );
            }
        }
        let world = self.new_scope(String::new(), true, version, false, self.loc(file, root));
        let name = SDF.required_attribute(&source, *model, "name")?.to_owned();
        let scope = self.model(file, version, *model, String::new(), false, depth)?;
        let pose = self.pose_of(file, *model)?;
        self.add_frame(world, &name, Kind::Model(scope), pose, self.loc(file, *model))?;
        if file == 0 {
            self.world_name = Some(name);
        }
        Ok(world)
    }

    fn new_scope(&mut self, prefix: String, is_world: bool, version: u32, is_static: bool, at: Loc) -> usize {
        self.scopes.push(Scope {
            prefix,
            is_world,
            version,
            is_static,
            canonical: None,
            placement: None,
            frames: Vec::new(),
            index: BTreeMap::new(),
            links: Vec::new(),
            joints: Vec::new(),
            self_collide: None,
            extras: Extras::default(),
            at,
        });
        self.scopes.len() - 1
    }

    /// Adds a frame, refusing a name already used in the scope (1.7 and later: links, joints,
    /// frames and models share one namespace) and the reserved names.
    fn add_frame(
        &mut self,
        scope: usize,
        name: &str,
        kind: Kind,
        pose: (Pose, Option<String>),
        at: Loc,
    ) -> SourceResult<()> {
        let version = self.scopes[scope].version;
        if name.is_empty() {
            return Err(self.err(at, "name", "an empty name is refused"));
        }
        if version >= 7
            && (name == "world"
                || name == MODEL_FRAME
                || (version >= 8 && name.contains("::") && !matches!(kind, Kind::Model(_))))
        {
            return Err(self.err(
                at,
                "name",
                format!("the name {name:?} is reserved (libsdformat refuses it)"),
            ));
        }
        if self.scopes[scope].index.contains_key(name) {
            if version >= 7 || !matches!(kind, Kind::Joint { .. }) {
                return Err(self.err(
                    at,
                    "duplicate",
                    format!("the name {name:?} is used twice in this scope (libsdformat refuses sibling frames with the same name)"),
                ));
            }
            // 1.4 to 1.6 allow a joint named like a link: the joint's frame is not addressable.
            let s = &mut self.scopes[scope];
            s.frames.push((
                format!("{name}\u{0}joint"),
                FrameDef {
                    kind,
                    pose: pose.0,
                    relative_to: pose.1,
                    at,
                },
            ));
            return Ok(());
        }
        let s = &mut self.scopes[scope];
        s.index.insert(name.to_owned(), s.frames.len());
        s.frames.push((
            name.to_owned(),
            FrameDef {
                kind,
                pose: pose.0,
                relative_to: pose.1,
                at,
            },
        ));
        Ok(())
    }

    fn world(&mut self, file: usize, version: u32, node: Node, depth: usize) -> SourceResult<usize> {
        let source = self.files[file].clone();
        let name = SDF.required_attribute(&source, node, "name")?.to_owned();
        self.unique_sibling_names(file, node, &name)?;
        self.world_name = Some(name);
        let scope = self.new_scope(String::new(), true, version, false, self.loc(file, node));
        self.simulation_gravity = Some(match child(node, "gravity") {
            Some(g) => Vector3::from(SDF.fixed::<3>(&source, g)?),
            None => Vector3::new(0.0, 0.0, -9.8),
        });
        let physics: Vec<Node> = children(node, "physics").collect();
        let chosen = physics
            .iter()
            .find(|p| p.attribute("default").is_some_and(|d| d == "true" || d == "1"))
            .or(physics.first());
        self.time_step = Some(match chosen.and_then(|p| child(*p, "max_step_size")) {
            Some(step) => SDF.scalar(&source, step)?,
            None => 0.001,
        });
        for element in elements(node) {
            let at = self.loc(file, element);
            match qualified_name(element).as_str() {
                "gravity" | "physics" => {}
                "model" => {
                    let name = SDF.required_attribute(&source, element, "name")?.to_owned();
                    let inner = self.model(file, version, element, format!("{name}::"), false, depth)?;
                    let pose = self.pose_of(file, element)?;
                    self.add_frame(scope, &name, Kind::Model(inner), pose, at)?;
                }
                "include" => self.include(file, scope, element, "", false, depth)?,
                "frame" => self.frame(file, scope, element)?,
                "joint" => {
                    let joint = self.joint(file, version, element)?;
                    let pose = self.pose_of(file, element)?;
                    self.add_frame(
                        scope,
                        &joint.name.clone(),
                        Kind::Joint {
                            child: joint.child.clone(),
                        },
                        pose,
                        at,
                    )?;
                    self.scopes[scope].joints.push(joint);
                }
                tag @ ("light"
                | "plugin"
                | "actor"
                | "scene"
                | "atmosphere"
                | "spherical_coordinates"
                | "magnetic_field"
                | "wind"
                | "gui"
                | "audio"
                | "population"
                | "road"
                | "state") => {
                    push_extra(
                        &mut self.model_extras,
                        &format!("sdf.{tag}"),
                        element_value(element),
                    );
                    self.note(
                        "kept",
                        Category::Note,
                        "model",
                        at,
                        format!("<{tag}> of the world kept verbatim in sdf.{tag}"),
                    );
                }
                tag if tag.contains(':') => {
                    push_extra(
                        &mut self.model_extras,
                        &format!("sdf.{tag}"),
                        element_value(element),
                    );
                    self.note(
                        "extension_kept",
                        Category::Note,
                        "model",
                        at,
                        format!("<{tag}> is an extension element: kept verbatim in sdf.{tag}"),
                    );
                }
                tag => {
                    self.warn(
                        "ignored",
                        Category::Ignored,
                        "model",
                        at,
                        format!("<{tag}> of the world is not read"),
                    );
                }
            }
        }
        Ok(scope)
    }

    /// libsdformat refuses a world whose named children (models, lights, frames, joints, …)
    /// share a name, whatever their types, in every version.
    fn unique_sibling_names(&self, file: usize, node: Node, world: &str) -> SourceResult<()> {
        let mut seen = std::collections::BTreeSet::new();
        for element in elements(node) {
            if let Some(name) = element.attribute("name")
                && !seen.insert(name)
            {
                let count = elements(node)
                    .filter(|e| e.attribute("name") == Some(name))
                    .count();
                return Err(self.err(
                    self.loc(file, element),
                    "duplicate",
                    format!("Non-unique name {name:?} detected {count} times in the children of world {world:?} (libsdformat refuses it)"),
                ));
            }
        }
        Ok(())
    }

    /// A `<model>` as a scope. `prefix` names its links in the IR.
    fn model(
        &mut self,
        file: usize,
        version: u32,
        node: Node,
        prefix: String,
        parent_static: bool,
        depth: usize,
    ) -> SourceResult<usize> {
        let source = self.files[file].clone();
        let is_static = parent_static
            || match child(node, "static") {
                Some(s) => SDF.boolean(&source, s)?,
                None => false,
            };
        let scope = self.new_scope(prefix.clone(), false, version, is_static, self.loc(file, node));
        // libsdformat converts every file to its newest version before reading it, so the
        // attributes of later versions are read in older files too.
        for (attr, slot) in [("canonical_link", 0), ("placement_frame", 1)] {
            if let Some(value) = node.attribute(attr).filter(|v| !v.is_empty()) {
                let at = Loc::new(file, span_of_attribute(&source, node, attr));
                if slot == 0 {
                    self.scopes[scope].canonical = Some((value.to_owned(), at));
                } else {
                    self.scopes[scope].placement = Some((value.to_owned(), at));
                }
            }
        }
        if let Some(sc) = child(node, "self_collide") {
            self.scopes[scope].self_collide = Some(SDF.boolean(&source, sc)?);
        }
        for element in elements(node) {
            let at = self.loc(file, element);
            match qualified_name(element).as_str() {
                "static" | "pose" | "self_collide" => {}
                "link" => {
                    let name = SDF.required_attribute(&source, element, "name")?.to_owned();
                    if name == "world" {
                        return Err(self.err(
                            at,
                            "name",
                            "the link name \"world\" is reserved (libsdformat refuses it in every version)",
                        ));
                    }
                    let link = self.link(file, element, &format!("{prefix}{name}"))?;
                    let pose = self.pose_of(file, element)?;
                    let index = self.scopes[scope].links.len();
                    self.add_frame(scope, &name, Kind::Link(index), pose, at)?;
                    self.scopes[scope].links.push((name, link));
                }
                "joint" | "drake:joint" => {
                    let joint = self.joint(file, version, element)?;
                    let pose = self.pose_of(file, element)?;
                    self.add_frame(
                        scope,
                        &joint.name.clone(),
                        Kind::Joint {
                            child: joint.child.clone(),
                        },
                        pose,
                        at,
                    )?;
                    self.scopes[scope].joints.push(joint);
                }
                "frame" => self.frame(file, scope, element)?,
                "model" => {
                    let name = SDF.required_attribute(&source, element, "name")?.to_owned();
                    let inner = self.model(
                        file,
                        version,
                        element,
                        format!("{prefix}{name}::"),
                        is_static,
                        depth,
                    )?;
                    let pose = self.pose_of(file, element)?;
                    self.add_frame(scope, &name, Kind::Model(inner), pose, at)?;
                }
                "include" => self.include(file, scope, element, &prefix, is_static, depth)?,
                tag
                @ ("plugin" | "gripper" | "enable_wind" | "allow_auto_disable" | "enable_wind_forces") => {
                    push_extra(
                        &mut self.scopes[scope].extras,
                        &format!("sdf.{tag}"),
                        element_value(element),
                    );
                }
                tag if tag.contains(':') => {
                    push_extra(
                        &mut self.scopes[scope].extras,
                        &format!("sdf.{tag}"),
                        element_value(element),
                    );
                    self.note(
                        "extension_kept",
                        Category::Note,
                        "model",
                        at,
                        format!("<{tag}> is an extension element: kept verbatim in sdf.{tag}"),
                    );
                }
                tag => {
                    self.warn(
                        "ignored",
                        Category::Ignored,
                        "model",
                        at,
                        format!("<{tag}> of a model is not read"),
                    );
                }
            }
        }
        if self.scopes[scope].links.is_empty()
            && !self.scopes[scope]
                .frames
                .iter()
                .any(|(_, f)| matches!(f.kind, Kind::Model(_)))
        {
            return Err(self.err(
                self.scopes[scope].at,
                "empty_model",
                "a model must have at least one link or nested model (libsdformat refuses it)",
            ));
        }
        Ok(scope)
    }

    /// `<include>`: the model of another file, as a nested model of `scope`, with the
    /// include's name, pose, `static` and `placement_frame` overriding the file's.
    fn include(
        &mut self,
        file: usize,
        scope: usize,
        node: Node,
        prefix: &str,
        parent_static: bool,
        depth: usize,
    ) -> SourceResult<()> {
        let source = self.files[file].clone();
        let at = self.loc(file, node);
        let uri_node = SDF.required_child(&source, node, "uri")?;
        let uri = text(uri_node);
        if depth >= MAX_INCLUDE_DEPTH {
            return Err(self.err(
                at,
                "include",
                format!(
                    "<include> nested deeper than {MAX_INCLUDE_DEPTH} levels (a file that includes itself?)"
                ),
            ));
        }
        let path = self.resolve_uri(&uri, source.base_dir()).ok_or_else(|| {
            self.err(
                self.loc(file, uri_node),
                "include",
                format!("cannot find {uri:?}: model:// URIs are searched in the model_path setting, GZ_SIM_RESOURCE_PATH and SDF_PATH, other URIs relative to this file"),
            )
        })?;
        let text = std::fs::read_to_string(&path).map_err(|e| {
            self.err(
                self.loc(file, uri_node),
                "include",
                format!("cannot read {}: {e}", path.display()),
            )
        })?;
        let included = Source::from_string(path.display().to_string(), text)
            .with_path(path.display().to_string(), Some(path.clone()));
        let index = self.files.len();
        self.files.push(included);
        let world = self.build_file(index, depth + 1)?;
        // The included file's model is the only frame of the world that build_file made.
        let (file_name, def) = self.scopes[world].frames[0].clone();
        let Kind::Model(inner) = def.kind else {
            return Err(self.err(at, "include", "the included file holds no model"));
        };
        let name = match child(node, "name") {
            Some(n) => text_of(n),
            None => file_name,
        };
        self.rename_scope(inner, &format!("{prefix}{name}::"));
        if let Some(s) = child(node, "static") {
            if SDF.boolean(&source, s)? {
                self.make_static(inner);
            }
        } else if parent_static {
            self.make_static(inner);
        }
        if let Some(p) = child(node, "placement_frame") {
            self.scopes[inner].placement = Some((text_of(p), self.loc(file, p)));
        }
        let pose = match child(node, "pose") {
            Some(_) => self.pose_of(file, node)?,
            None => (def.pose, None),
        };
        self.add_frame(scope, &name, Kind::Model(inner), pose, at)?;
        self.note(
            "include",
            Category::Note,
            "model",
            at,
            format!("included {uri:?} from {} as model {name:?}", path.display()),
        );
        Ok(())
    }

    fn rename_scope(&mut self, scope: usize, prefix: &str) {
        let old = self.scopes[scope].prefix.clone();
        let nested: Vec<usize> = self.scopes[scope]
            .frames
            .iter()
            .filter_map(|(_, f)| {
                if let Kind::Model(m) = f.kind {
                    Some(m)
                } else {
                    None
                }
            })
            .collect();
        self.scopes[scope].prefix = prefix.to_owned();
        for (name, link) in &mut self.scopes[scope].links {
            link.body.name = format!("{prefix}{name}");
        }
        for m in nested {
            let rest = self.scopes[m]
                .prefix
                .strip_prefix(&old)
                .unwrap_or_default()
                .to_owned();
            self.rename_scope(m, &format!("{prefix}{rest}"));
        }
    }

    fn make_static(&mut self, scope: usize) {
        self.scopes[scope].is_static = true;
        let nested: Vec<usize> = self.scopes[scope]
            .frames
            .iter()
            .filter_map(|(_, f)| {
                if let Kind::Model(m) = f.kind {
                    Some(m)
                } else {
                    None
                }
            })
            .collect();
        for m in nested {
            self.make_static(m);
        }
    }

    /// The file a `<uri>` names: `model://NAME/rest` under a model root, `file://` and
    /// relative paths against `base`; a directory gives its `model.config`'s newest `<sdf>`
    /// file, else its `model.sdf`.
    fn resolve_uri(&self, uri: &str, base: Option<&Path>) -> Option<PathBuf> {
        let candidates: Vec<PathBuf> = if let Some(rest) = uri.strip_prefix("model://") {
            self.roots.iter().map(|r| r.join(rest)).collect()
        } else if let Some(rest) = uri.strip_prefix("file://") {
            vec![PathBuf::from(rest)]
        } else if uri.contains("://") {
            return None;
        } else {
            let p = PathBuf::from(uri);
            if p.is_absolute() {
                vec![p]
            } else {
                // Relative to the file, then (as libsdformat's find-file callbacks do) under
                // each model root.
                let mut all = vec![base.map_or_else(|| p.clone(), |b| b.join(&p))];
                all.extend(self.roots.iter().map(|r| r.join(&p)));
                all
            }
        };
        candidates.into_iter().find_map(|c| model_file(&c))
    }

    /// `<frame name attached_to>` with its pose.
    fn frame(&mut self, file: usize, scope: usize, node: Node) -> SourceResult<()> {
        let source = self.files[file].clone();
        let name = SDF.required_attribute(&source, node, "name")?.to_owned();
        let attached_to = node
            .attribute("attached_to")
            .filter(|a| !a.is_empty())
            .map(str::to_owned);
        let pose = self.pose_of(file, node)?;
        let at = self.loc(file, node);
        self.add_frame(scope, &name, Kind::Frame { attached_to }, pose, at)
    }

    /// The `<pose>` child of `node` (identity when absent) and its `relative_to`, read in
    /// every version (`frame`, of 1.5 and 1.6, is reported and ignored).
    fn pose_of(&mut self, file: usize, node: Node) -> SourceResult<(Pose, Option<String>)> {
        let Some(pose) = child(node, "pose") else {
            return Ok((Pose::identity(), None));
        };
        let source = self.files[file].clone();
        let at = self.loc(file, pose);
        let mut relative_to = None;
        // Read in every version: libsdformat converts each file to its newest version first.
        if let Some(r) = pose.attribute("relative_to") {
            relative_to = Some(r.to_owned()).filter(|r| !r.is_empty());
        }
        if pose.attribute("frame").is_some_and(|f| !f.is_empty()) {
            self.warn(
                "ignored",
                Category::Ignored,
                "model",
                at,
                "`frame` of <pose> is ignored, as libsdformat ignores it".to_owned(),
            );
        }
        let values = SDF.numbers(&source, pose)?;
        let format = pose.attribute("rotation_format").unwrap_or("euler_rpy");
        let degrees = match pose.attribute("degrees") {
            Some(d) => match d.to_ascii_lowercase().as_str() {
                "true" | "1" => true,
                "false" | "0" => false,
                _ => {
                    return Err(SDF.error(
                        &source,
                        "bool",
                        Some(span_of_attribute(&source, pose, "degrees")),
                        format!("`degrees` expects true or false, found {d:?}"),
                    ));
                }
            },
            None => false,
        };
        if values.is_empty() {
            return Ok((Pose::identity(), relative_to));
        }
        let rotation = match (format, values.len()) {
            ("euler_rpy", 6) => {
                let scale = if degrees {
                    std::f64::consts::PI / 180.0
                } else {
                    1.0
                };
                spec::rpy([values[3] * scale, values[4] * scale, values[5] * scale])
            }
            ("quat_xyzw", 7) => {
                if degrees {
                    return Err(SDF.error(&source, "pose", Some(at.span()), "`degrees` is meaningless with rotation_format=\"quat_xyzw\" (libsdformat refuses it)"));
                }
                match mbconv_ir::rotation::normalize_wxyz([values[6], values[3], values[4], values[5]]) {
                    Some((q, _)) => q,
                    None => {
                        return Err(SDF.error(
                            &source,
                            "pose",
                            Some(at.span()),
                            "the quaternion of <pose> is zero or not finite",
                        ));
                    }
                }
            }
            ("euler_rpy" | "quat_xyzw", n) => {
                let want = if format == "euler_rpy" { 6 } else { 7 };
                return Err(SDF.error(
                    &source,
                    "count",
                    Some(at.span()),
                    format!("<pose> with rotation_format={format:?} needs {want} numbers, found {n}"),
                ));
            }
            (other, _) => {
                return Err(SDF.error(
                    &source,
                    "pose",
                    Some(span_of_attribute(&source, pose, "rotation_format")),
                    format!("unknown rotation_format {other:?} (euler_rpy or quat_xyzw)"),
                ));
            }
        };
        Ok((
            Pose::new(Vector3::new(values[0], values[1], values[2]), rotation),
            relative_to,
        ))
    }

    // ---- links --------------------------------------------------------------------------------

    fn link(&mut self, file: usize, node: Node, ir_name: &str) -> SourceResult<LinkDef> {
        let source = self.files[file].clone();
        let at_ir = path::item("bodies", ir_name);
        let mut body = Body::new(ir_name);
        body.inertial = match child(node, "inertial") {
            Some(inertial) => self.inertial(file, inertial)?,
            None => {
                let at = self.loc(file, node);
                self.note(
                    "defaulted",
                    Category::Defaulted,
                    &path::field(&at_ir, "inertial"),
                    at,
                    "no <inertial>: mass 1 and unit inertia, libsdformat's defaults".to_owned(),
                );
                Inertial {
                    mass: 1.0,
                    inertia: Inertia([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]),
                    ..Inertial::default()
                }
            }
        };
        let mut densities = Vec::new();
        for element in elements(node) {
            let at = self.loc(file, element);
            match qualified_name(element).as_str() {
                "inertial" | "pose" => {}
                tag @ ("visual" | "collision") => {
                    let role = if tag == "visual" {
                        ShapeRole::Visual
                    } else {
                        ShapeRole::Collision
                    };
                    let shape_at = path::index(&at_ir, "shapes", body.shapes.len());
                    if let Some(shape) = self.shape(file, element, role, &shape_at)? {
                        if role == ShapeRole::Collision {
                            let density = SDF.child_scalar(&source, element, "density")?;
                            densities.push((body.shapes.len(), density, self.loc(file, element)));
                        }
                        body.shapes.push(shape);
                    }
                }
                "gravity" => body.gravity = SDF.boolean(&source, element)?,
                "self_collide" => {
                    let v = SDF.boolean(&source, element)?;
                    body.extras.insert("sdf.self_collide", Value::Bool(v));
                }
                tag @ ("sensor" | "light" | "plugin" | "projector" | "particle_emitter" | "audio_source"
                | "audio_sink" | "battery" | "velocity_decay" | "kinematic" | "must_be_base_link"
                | "enable_wind" | "wind_mode") => {
                    push_extra(&mut body.extras, &format!("sdf.{tag}"), element_value(element));
                }
                tag if tag.contains(':') => {
                    push_extra(&mut body.extras, &format!("sdf.{tag}"), element_value(element));
                }
                tag => self.warn(
                    "ignored",
                    Category::Ignored,
                    &at_ir,
                    at,
                    format!("<{tag}> of a link is not read"),
                ),
            }
        }
        if let Some(inertial) = child(node, "inertial")
            && inertial
                .attribute("auto")
                .is_some_and(|a| a == "true" || a == "1")
        {
            let default_density = SDF.child_scalar(&source, inertial, "density")?.unwrap_or(1000.0);
            let mass = SDF.child_scalar(&source, inertial, "mass")?;
            let at = self.loc(file, inertial);
            body.inertial = self.auto_inertial(&body, &densities, default_density, mass, &at_ir, at)?;
        }
        Ok(LinkDef { body })
    }

    /// `<inertial auto="true">` (1.11): mass, centre of mass and inertia of the collision
    /// shapes at their densities (the collision's `<density>`, else the inertial's, else
    /// 1000 kg/m³), scaled to `<mass>` when one is given, as libsdformat computes them.
    fn auto_inertial(
        &mut self,
        body: &Body,
        densities: &[(usize, Option<f64>, Loc)],
        default_density: f64,
        mass: Option<f64>,
        at_ir: &str,
        at: Loc,
    ) -> SourceResult<Inertial> {
        let mut parts = Vec::new();
        for &(index, density, shape_at) in densities {
            let shape = &body.shapes[index];
            let density = density.unwrap_or(default_density);
            match spec::solid(&shape.geometry) {
                Some((volume, unit_inertia)) => parts.push((density * volume, unit_inertia, shape.pose)),
                None => self.warn(
                    "auto_inertia",
                    Category::Approximated,
                    at_ir,
                    shape_at,
                    "this collision's shape has no closed-form volume (a mesh, a plane): left out of the automatic inertia".to_owned(),
                ),
            }
        }
        let total: f64 = parts.iter().map(|(m, ..)| m).sum();
        if !(total > 0.0 && total.is_finite()) {
            self.warn(
                "auto_inertia",
                Category::Approximated,
                &path::field(at_ir, "inertial"),
                at,
                "<inertial auto=\"true\"> has no collision with a volume and a positive density: the inertial as written (or libsdformat's defaults) is kept".to_owned(),
            );
            return Ok(body.inertial.clone());
        }
        let com = parts
            .iter()
            .map(|(m, _, p)| p.translation * *m)
            .sum::<Vector3<f64>>()
            / total;
        let mut inertia = nalgebra::Matrix3::zeros();
        for (m, unit, pose) in &parts {
            let r = pose.rotation.to_rotation_matrix();
            let d = pose.translation - com;
            inertia += r.matrix() * (unit * *m) * r.matrix().transpose()
                + (nalgebra::Matrix3::identity() * d.dot(&d) - d * d.transpose()) * *m;
        }
        let scale = mass.map_or(1.0, |m| m / total);
        let inertia = inertia * scale;
        self.note(
            "auto_inertia",
            Category::Note,
            &path::field(at_ir, "inertial"),
            at,
            format!(
                "<inertial auto=\"true\">: mass {} computed from {} collision(s)",
                total * scale,
                parts.len()
            ),
        );
        let m = |i: usize, j: usize| inertia[(i, j)];
        Ok(Inertial {
            mass: total * scale,
            com,
            inertia: Inertia([
                [m(0, 0), m(0, 1), m(0, 2)],
                [m(1, 0), m(1, 1), m(1, 2)],
                [m(2, 0), m(2, 1), m(2, 2)],
            ]),
            inertia_rotation: UnitQuaternion::identity(),
        })
    }

    fn inertial(&mut self, file: usize, node: Node) -> SourceResult<Inertial> {
        let source = self.files[file].clone();
        let (pose, relative_to) = self.pose_of(file, node)?;
        if relative_to.is_some() {
            let at = self.loc(file, node);
            return Err(self.err(
                at,
                "relative_to",
                "`relative_to` on an <inertial>'s <pose> is refused: it is always relative to the link",
            ));
        }
        let mass = SDF.child_scalar(&source, node, "mass")?.unwrap_or(1.0);
        let mut v = [1.0, 0.0, 0.0, 1.0, 0.0, 1.0];
        if let Some(inertia) = child(node, "inertia") {
            for (k, key) in ["ixx", "ixy", "ixz", "iyy", "iyz", "izz"].iter().enumerate() {
                if let Some(x) = SDF.child_scalar(&source, inertia, key)? {
                    v[k] = x;
                }
            }
        }
        let [ixx, ixy, ixz, iyy, iyz, izz] = v;
        Ok(Inertial {
            mass,
            com: pose.translation,
            inertia: Inertia([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]]),
            inertia_rotation: pose.rotation,
        })
    }

    fn shape(
        &mut self,
        file: usize,
        node: Node,
        role: ShapeRole,
        at_ir: &str,
    ) -> SourceResult<Option<Shape>> {
        let source = self.files[file].clone();
        let (pose, relative_to) = self.pose_of(file, node)?;
        if relative_to.is_some() {
            let at = self.loc(file, node);
            self.warn(
                "relative_to",
                Category::Ignored,
                at_ir,
                at,
                "`relative_to` on a visual or collision pose is read as relative to the link".to_owned(),
            );
        }
        let geometry_node = SDF.required_child(&source, node, "geometry")?;
        let Some(geometry) = self.geometry(file, geometry_node, at_ir)? else {
            return Ok(None);
        };
        let mut shape = Shape::new(role, geometry);
        shape.pose = pose;
        shape.name = node.attribute("name").map(str::to_owned);
        for element in elements(node) {
            match qualified_name(element).as_str() {
                "pose" | "geometry" => {}
                "surface" => {
                    if let Some(bits) = child(element, "contact").and_then(|c| child(c, "collide_bitmask")) {
                        shape
                            .extras
                            .insert("sdf.collide_bitmask", Value::String(text(bits)));
                    }
                    shape.extras.insert("sdf.surface", element_value(element));
                }
                tag => push_extra(&mut shape.extras, &format!("sdf.{tag}"), element_value(element)),
            }
        }
        Ok(Some(shape))
    }

    fn geometry(&mut self, file: usize, node: Node, at_ir: &str) -> SourceResult<Option<Geometry>> {
        let source = self.files[file].clone();
        let Some(kind) = elements(node).next() else {
            let at = self.loc(file, node);
            self.warn(
                "empty_geometry",
                Category::Dropped,
                at_ir,
                at,
                "<geometry> is empty: no shape".to_owned(),
            );
            return Ok(None);
        };
        let need = |name: &str| -> SourceResult<f64> {
            let c = SDF.required_child(&source, kind, name)?;
            SDF.scalar(&source, c)
        };
        Ok(Some(match kind.tag_name().name() {
            "box" => Geometry::Box {
                size: SDF.fixed::<3>(&source, SDF.required_child(&source, kind, "size")?)?,
            },
            "sphere" => Geometry::Sphere {
                radius: need("radius")?,
            },
            "cylinder" => Geometry::Cylinder {
                radius: need("radius")?,
                length: need("length")?,
            },
            "capsule" => Geometry::Capsule {
                radius: need("radius")?,
                length: need("length")?,
            },
            "cone" => Geometry::Cone {
                radius: need("radius")?,
                length: need("length")?,
            },
            "ellipsoid" => Geometry::Ellipsoid {
                radii: SDF.fixed::<3>(&source, SDF.required_child(&source, kind, "radii")?)?,
            },
            "plane" => {
                let normal = match child(kind, "normal") {
                    Some(n) => Vector3::from(SDF.fixed::<3>(&source, n)?),
                    None => Vector3::z(),
                };
                if normal.norm() == 0.0 || !normal.iter().all(|x| x.is_finite()) {
                    return Err(SDF.error(
                        &source,
                        "plane",
                        Some(span_of_node(&source, kind)),
                        "the <normal> of a <plane> is zero",
                    ));
                }
                Geometry::Plane {
                    normal: normal.normalize(),
                    offset: 0.0,
                }
            }
            "mesh" => {
                let uri = text(SDF.required_child(&source, kind, "uri")?);
                let mut mesh = MeshRef::new(uri.clone());
                if let Some(scale) = child(kind, "scale") {
                    mesh.scale = SDF.fixed::<3>(&source, scale)?;
                }
                if let Some(sub) = child(kind, "submesh") {
                    mesh.node = Some(text(SDF.required_child(&source, sub, "name")?));
                }
                if !uri.contains("://") || uri.starts_with("file://") {
                    let p = PathBuf::from(uri.trim_start_matches("file://"));
                    let full = if p.is_absolute() {
                        p
                    } else {
                        source.base_dir().map_or(p.clone(), |b| b.join(&p))
                    };
                    mesh.resolved_path = Some(full.display().to_string());
                } else if let Some(rest) = uri.strip_prefix("model://") {
                    mesh.resolved_path = self
                        .roots
                        .iter()
                        .map(|r| r.join(rest))
                        .find(|p| p.is_file())
                        .map(|p| p.display().to_string());
                }
                Geometry::Mesh(mesh)
            }
            tag @ ("heightmap" | "image" | "polyline" | "empty") => {
                let at = self.loc(file, kind);
                self.warn(
                    "geometry",
                    Category::Dropped,
                    at_ir,
                    at,
                    format!("<{tag}> geometry has no IR shape: the shape is dropped"),
                );
                return Ok(None);
            }
            tag => {
                return Err(SDF.error(
                    &source,
                    "geometry",
                    Some(span_of_node(&source, kind)),
                    format!("unknown geometry <{tag}>"),
                ));
            }
        }))
    }

    // ---- joints -------------------------------------------------------------------------------

    fn joint(&mut self, file: usize, version: u32, node: Node) -> SourceResult<JointDef> {
        let source = self.files[file].clone();
        let at = self.loc(file, node);
        let name = SDF.required_attribute(&source, node, "name")?.to_owned();
        let kind = SDF.required_attribute(&source, node, "type")?.to_owned();
        let drake = qualified_name(node) == "drake:joint";
        let known = matches!(
            kind.as_str(),
            "revolute"
                | "revolute2"
                | "prismatic"
                | "ball"
                | "universal"
                | "screw"
                | "gearbox"
                | "continuous"
                | "fixed"
        );
        if !(known || drake) {
            return Err(SDF.error(
                &source,
                "joint_type",
                Some(span_of_attribute(&source, node, "type")),
                format!("unknown joint type {kind:?}"),
            ));
        }
        let parent = text(SDF.required_child(&source, node, "parent")?);
        let child_name = text(SDF.required_child(&source, node, "child")?);
        if child_name == "world" {
            return Err(SDF.error(
                &source,
                "joint",
                Some(span_of_node(&source, SDF.required_child(&source, node, "child")?)),
                format!("joint {name:?}: the child cannot be the world"),
            ));
        }
        if child_name == parent {
            return Err(self.err(
                at,
                "joint",
                format!("joint {name:?}: parent and child are the same frame {parent:?}"),
            ));
        }
        let mut axes = [None, None];
        for (i, tag) in ["axis", "axis2"].iter().enumerate() {
            if let Some(axis) = child(node, tag) {
                axes[i] = Some(self.axis(file, version, axis, &kind)?);
            }
        }
        let pitch = {
            let new = if version >= 10 {
                SDF.child_scalar(&source, node, "screw_thread_pitch")?
            } else {
                None
            };
            match (new, SDF.child_scalar(&source, node, "thread_pitch")?) {
                (Some(p), _) => p,
                (None, Some(t)) => {
                    if t == 0.0 {
                        return Err(self.err(
                            at,
                            "screw",
                            format!("joint {name:?}: a thread_pitch of 0 is no screw"),
                        ));
                    }
                    spec::pitch_from_thread_pitch(t)
                }
                (None, None) => spec::pitch_from_thread_pitch(1.0),
            }
        };
        let mut planar_damping = None;
        if drake
            && kind == "planar"
            && let Some(d) = child(node, "damping")
        {
            planar_damping = Some(SDF.fixed::<3>(&source, d)?);
        }
        let mut extras = Extras::default();
        for element in elements(node) {
            match qualified_name(element).as_str() {
                "parent" | "child" | "axis" | "axis2" | "pose" | "thread_pitch" | "screw_thread_pitch"
                | "drake:parent" | "drake:child" | "drake:damping" => {}
                tag => push_extra(&mut extras, &format!("sdf.{tag}"), element_value(element)),
            }
        }
        Ok(JointDef {
            name,
            kind,
            parent,
            child: child_name,
            axes,
            pitch,
            planar_damping,
            extras,
            at,
        })
    }

    fn axis(&mut self, file: usize, version: u32, node: Node, kind: &str) -> SourceResult<AxisDef> {
        let source = self.files[file].clone();
        let xyz_node = child(node, "xyz");
        let xyz = match xyz_node {
            Some(x) => Vector3::from(SDF.fixed::<3>(&source, x)?),
            None => Vector3::z(),
        };
        let norm = xyz.norm();
        if !(norm.is_finite() && norm > 0.0) {
            let span = span_of_node(&source, xyz_node.unwrap_or(node));
            return Err(SDF.error(
                &source,
                "axis",
                Some(span),
                "the axis <xyz> is zero or not finite (libsdformat refuses it)",
            ));
        }
        let mut expressed_in = None;
        if let Some(e) = xyz_node
            .and_then(|x| x.attribute("expressed_in"))
            .filter(|e| !e.is_empty())
        {
            expressed_in = Some(e.to_owned());
        } else if version == 4 {
            // 1.4 axes are in the model frame: libsdformat's 1.4 -> 1.5 conversion adds
            // <use_parent_model_frame>true</use_parent_model_frame> to every axis.
            expressed_in = Some(MODEL_FRAME.to_owned());
        } else if version < 7
            && let Some(u) = child(node, "use_parent_model_frame")
            && SDF.boolean(&source, u)?
        {
            expressed_in = Some(MODEL_FRAME.to_owned());
        }
        let mut dof = DofProperties::default();
        if let Some(limit) = child(node, "limit") {
            if kind != "continuous" {
                let lower = SDF.child_scalar(&source, limit, "lower")?.unwrap_or(-1e16);
                let upper = SDF.child_scalar(&source, limit, "upper")?.unwrap_or(1e16);
                dof.position_limits = Limits {
                    lower: spec::bound(lower),
                    upper: spec::bound(upper),
                };
            }
            if let Some(effort) = SDF.child_scalar(&source, limit, "effort")?
                && effort >= 0.0
                && effort.is_finite()
            {
                dof.effort_limits = Limits {
                    lower: Some(-effort),
                    upper: Some(effort),
                };
            }
            if let Some(velocity) = SDF.child_scalar(&source, limit, "velocity")?
                && velocity >= 0.0
                && velocity.is_finite()
            {
                dof.velocity_limits = Limits {
                    lower: Some(-velocity),
                    upper: Some(velocity),
                };
            }
        }
        if let Some(dynamics) = child(node, "dynamics") {
            dof.damping = SDF.child_scalar(&source, dynamics, "damping")?.unwrap_or(0.0);
            dof.friction = SDF.child_scalar(&source, dynamics, "friction")?.unwrap_or(0.0);
            dof.spring_rest_position = SDF
                .child_scalar(&source, dynamics, "spring_reference")?
                .unwrap_or(0.0);
            dof.spring_stiffness = SDF
                .child_scalar(&source, dynamics, "spring_stiffness")?
                .unwrap_or(0.0);
        }
        Ok(AxisDef {
            xyz: xyz / norm,
            expressed_in,
            dof,
        })
    }

    // ---- resolve: scopes -> IR -------------------------------------------------------------

    /// The frame `name` of `scope` is relative to when its pose says nothing.
    fn default_base(&self, scope: usize, def: &FrameDef) -> String {
        let s = &self.scopes[scope];
        let model = if s.is_world { "world" } else { MODEL_FRAME };
        match &def.kind {
            Kind::Joint { child } => child.clone(),
            Kind::Frame { attached_to } => attached_to.clone().unwrap_or_else(|| model.to_owned()),
            _ => model.to_owned(),
        }
    }

    fn is_scope_frame(&self, scope: usize, name: &str) -> bool {
        name == MODEL_FRAME || (self.scopes[scope].is_world && name == "world")
    }

    fn lookup(
        &self,
        scope: usize,
        name: &str,
        at: Loc,
        stack: &[(usize, String)],
    ) -> SourceResult<&FrameDef> {
        match self.scopes[scope].index.get(name) {
            Some(&i) => Ok(&self.scopes[scope].frames[i].1),
            None => {
                let from = stack
                    .last()
                    .map(|(_, n)| format!(" (from frame {n:?})"))
                    .unwrap_or_default();
                Err(self.err(at, "frame", format!("unknown frame {name:?}{from}")))
            }
        }
    }

    fn cycle(&self, at: Loc, stack: &[(usize, String)], name: &str) -> Box<mbconv_ir::format::SourceError> {
        let start = stack.iter().position(|(_, n)| n == name).unwrap_or(0);
        let chain: Vec<&str> = stack[start..]
            .iter()
            .map(|(_, n)| n.as_str())
            .chain([name])
            .collect();
        self.err(
            at,
            "frame_cycle",
            format!("the frame graph has a cycle: {}", chain.join(" -> ")),
        )
    }

    /// The pose of frame `name` in the frame of scope `scope` (its model frame, or the world).
    fn pose_in(
        &self,
        scope: usize,
        name: &str,
        at: Loc,
        stack: &mut Vec<(usize, String)>,
    ) -> SourceResult<Pose> {
        if self.is_scope_frame(scope, name) {
            return Ok(Pose::identity());
        }
        if let Some((head, rest)) = name.split_once("::")
            && !self.scopes[scope].index.contains_key(name)
        {
            let def = self.lookup(scope, head, at, stack)?;
            let Kind::Model(inner) = def.kind else {
                return Err(self.err(at, "frame", format!("{head:?} in {name:?} is not a nested model")));
            };
            let outer = self.pose_in(scope, head, at, stack)?;
            return Ok(outer * self.pose_in(inner, rest, at, stack)?);
        }
        if stack.iter().any(|(s, n)| *s == scope && n == name) {
            return Err(self.cycle(at, stack, name));
        }
        let def = self.lookup(scope, name, at, stack)?.clone();
        stack.push((scope, name.to_owned()));
        let base = def
            .relative_to
            .clone()
            .unwrap_or_else(|| self.default_base(scope, &def));
        let base_pose = self.pose_in(scope, &base, def.at, stack)?;
        let mut pose = base_pose * def.pose;
        if let Kind::Model(inner) = def.kind
            && let Some((placement, p_at)) = self.scopes[inner].placement.clone()
        {
            // The pose places the placement frame; the model frame follows.
            let in_model = self.pose_in(inner, &placement, p_at, stack)?;
            pose = pose * in_model.inverse();
        }
        stack.pop();
        Ok(pose)
    }

    /// The link frame `name` of `scope` is attached to, as (scope, link index); `None` for the
    /// world.
    fn attached(
        &self,
        scope: usize,
        name: &str,
        at: Loc,
        stack: &mut Vec<(usize, String)>,
    ) -> SourceResult<Option<(usize, usize)>> {
        if self.scopes[scope].is_world && (name == "world" || name == MODEL_FRAME) {
            return Ok(None);
        }
        if name == MODEL_FRAME {
            return self.canonical(scope, at, stack).map(Some);
        }
        if let Some((head, rest)) = name.split_once("::")
            && !self.scopes[scope].index.contains_key(name)
        {
            let def = self.lookup(scope, head, at, stack)?;
            let Kind::Model(inner) = def.kind else {
                return Err(self.err(at, "frame", format!("{head:?} in {name:?} is not a nested model")));
            };
            return self.attached(inner, rest, at, stack);
        }
        if stack.iter().any(|(s, n)| *s == scope && n == name) {
            return Err(self.cycle(at, stack, name));
        }
        let def = self.lookup(scope, name, at, stack)?.clone();
        stack.push((scope, name.to_owned()));
        let result = match &def.kind {
            Kind::Link(i) => Some((scope, *i)),
            Kind::Joint { child } => self.attached(scope, child, def.at, stack)?,
            Kind::Frame { attached_to } => {
                let to = attached_to.clone().unwrap_or_else(|| MODEL_FRAME.to_owned());
                self.attached(scope, &to, def.at, stack)?
            }
            Kind::Model(inner) => Some(self.canonical(*inner, def.at, stack)?),
        };
        stack.pop();
        Ok(result)
    }

    /// The canonical link of a model: `@canonical_link`, else its first link, else the
    /// canonical link of its first nested model.
    fn canonical(
        &self,
        scope: usize,
        at: Loc,
        stack: &mut Vec<(usize, String)>,
    ) -> SourceResult<(usize, usize)> {
        let s = &self.scopes[scope];
        if let Some((name, c_at)) = &s.canonical {
            return match self.attached(scope, name, *c_at, stack)? {
                Some(found) if self.is_link_name(scope, name) => Ok(found),
                _ => Err(self.err(
                    *c_at,
                    "canonical_link",
                    format!("canonical_link {name:?} is not a link of this model"),
                )),
            };
        }
        if !s.links.is_empty() {
            return Ok((scope, 0));
        }
        for (_, def) in &s.frames {
            if let Kind::Model(inner) = def.kind {
                return self.canonical(inner, at, stack);
            }
        }
        Err(self.err(at, "empty_model", "the model has no link"))
    }

    fn is_link_name(&self, scope: usize, name: &str) -> bool {
        match name.split_once("::") {
            Some((head, rest)) => match self.scopes[scope]
                .index
                .get(head)
                .map(|&i| &self.scopes[scope].frames[i].1.kind)
            {
                Some(Kind::Model(inner)) => self.is_link_name(*inner, rest),
                _ => false,
            },
            None => self.scopes[scope]
                .index
                .get(name)
                .is_some_and(|&i| matches!(self.scopes[scope].frames[i].1.kind, Kind::Link(_))),
        }
    }

    /// The world pose of every scope's frame, outermost first.
    fn scope_poses(&self, world: usize) -> SourceResult<BTreeMap<usize, (Pose, bool)>> {
        let mut out = BTreeMap::new();
        out.insert(world, (Pose::identity(), false));
        let mut todo = vec![world];
        while let Some(s) = todo.pop() {
            let (pose, _) = out[&s];
            for (name, def) in &self.scopes[s].frames {
                if let Kind::Model(inner) = def.kind {
                    let local = self.pose_in(s, name, def.at, &mut Vec::new())?;
                    out.insert(inner, (pose * local, self.scopes[inner].is_static));
                    todo.push(inner);
                }
            }
        }
        Ok(out)
    }

    fn resolve(&mut self, world: usize) -> SourceResult<Model> {
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

/// tinyxml2 (libsdformat's parser) accepts `--` inside comments, which XML forbids and
/// roxmltree refuses: each such `--` becomes `- ` (same length, so positions stay true).
fn comments_without_double_hyphens(source: &Source) -> Source {
    let text = &source.text;
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(start) = rest.find("<!--") {
        out.push_str(&rest[..start + 4]);
        rest = &rest[start + 4..];
        let Some(end) = rest.find("-->") else { break };
        out.push_str(&rest[..end].replace("--", "- "));
        out.push_str("-->");
        rest = &rest[end + 3..];
    }
    out.push_str(rest);
    if out == *text {
        return source.clone();
    }
    Source::from_string(source.name.clone(), out).with_path(source.name.clone(), source.path.clone())
}

fn text_of(node: Node) -> String {
    text(node)
}

/// The model file of an include target: a file as is; a directory's `model.config` `<sdf>`
/// entry with the highest version, else its `model.sdf`.
fn model_file(candidate: &Path) -> Option<PathBuf> {
    if candidate.is_file() {
        return Some(candidate.to_path_buf());
    }
    if !candidate.is_dir() {
        return None;
    }
    if let Ok(config) = std::fs::read_to_string(candidate.join("model.config"))
        && let Ok(doc) = mbconv_xml::roxmltree::Document::parse(&config)
    {
        let best = doc
            .descendants()
            .filter(|n| n.has_tag_name("sdf"))
            .filter_map(|n| {
                let version = n.attribute("version").and_then(spec::minor_version).unwrap_or(0);
                let file = n.text()?.trim().to_owned();
                Some((version, file))
            })
            .max_by_key(|(v, _)| *v);
        if let Some((_, file)) = best {
            let path = candidate.join(file);
            if path.is_file() {
                return Some(path);
            }
        }
    }
    let fallback = candidate.join("model.sdf");
    fallback.is_file().then_some(fallback)
}
