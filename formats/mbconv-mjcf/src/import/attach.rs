//! `<attach>` (MuJoCo 3.2+): `<model name file>` in `<asset>` names another MJCF file, and
//! `<attach model body|frame prefix>` inside a body or frame brings that model's body (with its
//! subtree) or frame (with what it holds) there, every name in it prefixed. The attached
//! elements are read with their own model's default classes, `<compiler>` settings and assets,
//! as MuJoCo compiles them; this module loads the models and switches the reader between them.

use super::bodies::{Items, Place};
use super::{Compiler, Reader, assets::MeshAsset, values::Values};
use crate::import::compiler::defaults::ClassId;
use crate::raw::{self, Document, Element};
use crate::spec::arith::normalize;
use mbconv_ir::format::Source;
use mbconv_ir::format::kit::SourceResult;
use mbconv_ir::report::{Category, Severity};
use std::path::{Path, PathBuf};

/// What the reader keeps per model: the settings its elements are read with.
pub(crate) struct Context<'d> {
    pub values: &'d Values<'d>,
    pub compiler: Compiler,
    pub materials: Vec<(String, [f64; 4])>,
    pub meshes: Vec<MeshAsset<'d>>,
    pub models: Vec<(String, usize)>,
    pub base_dir: Option<PathBuf>,
    pub root: &'d Element,
}

impl<'d> Context<'d> {
    /// A model's context before its `<compiler>` and assets are read.
    pub(crate) fn new(document: &'d Document, values: &'d Values<'d>, models: Vec<(String, usize)>) -> Self {
        Context {
            values,
            compiler: Compiler::default(),
            materials: Vec::new(),
            meshes: Vec::new(),
            models,
            base_dir: document.files.sources[0].base_dir().map(Path::to_path_buf),
            root: &document.root,
        }
    }
}

/// Loads every model named by a `<model>` asset, transitively, each file once: the documents
/// (model `k` is `documents[k - 1]`; 0 is the main document) and, per model, its `<model>`
/// names with the model index they refer to.
#[allow(clippy::type_complexity)]
pub(crate) fn load(main: &Document) -> SourceResult<(Vec<Document>, Vec<Vec<(String, usize)>>)> {
    let mut documents: Vec<Document> = Vec::new();
    let mut paths: Vec<PathBuf> = Vec::new();
    let mut links: Vec<Vec<(String, usize)>> = Vec::new();
    let mut next = 0;
    while next <= documents.len() {
        let doc = if next == 0 { main } else { &documents[next - 1] };
        let dir = doc.files.sources[0].base_dir().map(Path::to_path_buf);
        let mut wanted = Vec::new();
        for asset in doc.root.children_named("asset") {
            for m in asset.children_named("model") {
                let Some(file) = m.attr("file") else {
                    return Err(doc
                        .files
                        .error(&m.loc, "attach", "required attribute missing: 'file'"));
                };
                let name = match m.value("name") {
                    Some(n) => n.to_string(),
                    None => Path::new(&file.value)
                        .file_stem()
                        .map(|s| s.to_string_lossy().into_owned())
                        .unwrap_or_default(),
                };
                let path = dir
                    .as_ref()
                    .map_or_else(|| PathBuf::from(&file.value), |d| d.join(&file.value));
                let source = Source::from_path(&path).map_err(|e| {
                    doc.files.error(
                        &file.loc,
                        "attach",
                        format!("cannot read the model file '{}': {e}", file.value),
                    )
                })?;
                wanted.push((name, path, source));
            }
        }
        let mut own = Vec::new();
        for (name, path, source) in wanted {
            let key = path.canonicalize().unwrap_or(path);
            let index = match paths.iter().position(|p| *p == key) {
                Some(i) => i + 1,
                None => {
                    documents.push(raw::read(&source)?);
                    paths.push(key);
                    documents.len()
                }
            };
            own.push((name, index));
        }
        links.push(own);
        next += 1;
    }
    Ok((documents, links))
}

impl<'d> Reader<'d> {
    /// Exchanges the reader's per-model settings with those kept for model `k`.
    fn swap_context(&mut self, k: usize) {
        let Some(c) = self.contexts[k].as_mut() else {
            return;
        };
        std::mem::swap(&mut self.values, &mut c.values);
        std::mem::swap(&mut self.compiler, &mut c.compiler);
        std::mem::swap(&mut self.materials, &mut c.materials);
        std::mem::swap(&mut self.meshes, &mut c.meshes);
        std::mem::swap(&mut self.models, &mut c.models);
        std::mem::swap(&mut self.base_dir, &mut c.base_dir);
    }

    /// Runs `f` with model `k`'s settings in force.
    pub(crate) fn in_model<T>(
        &mut self,
        k: usize,
        f: impl FnOnce(&mut Self) -> SourceResult<T>,
    ) -> SourceResult<T> {
        if k == self.current {
            return f(self);
        }
        let previous = self.current;
        self.swap_context(k);
        self.current = k;
        let out = f(self);
        self.swap_context(k);
        self.current = previous;
        out
    }

    /// The root element of model `k` (0: the main document).
    pub(crate) fn model_root(&self, k: usize) -> &'d Element {
        self.contexts
            .get(k)
            .and_then(Option::as_ref)
            .map_or(self.root, |c| c.root)
    }

    /// Reads the `<compiler>` and `<asset>` sections of every attached model, and reports the
    /// sections an attachment does not bring along.
    pub(super) fn attached_settings(&mut self) -> SourceResult<()> {
        for k in 1..self.contexts.len() {
            let Some(root) = self.contexts[k].as_ref().map(|c| c.root) else {
                continue;
            };
            self.in_model(k, |r| {
                for c in root.children_named("compiler") {
                    r.compiler_section(c)?;
                }
                for a in root.children_named("asset") {
                    r.assets(a)?;
                }
                let left: Vec<&str> = root
                    .children
                    .iter()
                    .filter(|e| {
                        !e.children.is_empty()
                            && matches!(
                                e.name.as_str(),
                                "actuator" | "tendon" | "equality" | "contact" | "sensor" | "keyframe"
                            )
                    })
                    .map(|e| e.name.as_str())
                    .collect();
                if !left.is_empty() {
                    let loc = root.loc.clone();
                    r.finding(
                        "attach_sections",
                        Severity::Warning,
                        Category::Dropped,
                        "",
                        Some(&loc),
                        format!(
                            "an attached model's <{}> sections are not brought along with its bodies (MuJoCo copies the items that name attached elements)",
                            left.join(">, <")
                        ),
                    );
                }
                Ok(())
            })?;
        }
        Ok(())
    }
}

impl<'d> Reader<'d> {
    /// `<attach model body|frame prefix>`: the named body of the model (with its subtree) or
    /// its named frame (with what it holds) placed here, read with that model's classes,
    /// compiler settings and assets, every name prefixed (before any `<replicate>` suffix).
    pub(super) fn attach(
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
}

/// The first `kind` element named `name` below `e` (bodies and frames searched in order).
pub(super) fn find_named<'d>(e: &'d Element, kind: &str, name: &str) -> Option<&'d Element> {
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
