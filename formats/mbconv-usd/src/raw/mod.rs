//! The stage as read: the `openusd` crate opens and composes it (sublayers, references,
//! payloads, variants; `.usda`, `.usdc` and `.usdz`), and this module copies out what the
//! reader needs, prim by prim in traversal order, with the place of each prim in the root
//! layer's text where it is there.
//!
//! The root layer is read from the source's text (so a stage handed over as text, not as a
//! file, composes too); the layers it names are found next to the source's path.

mod arcs;
mod paths;

use crate::spec::{FORMAT, attr};
use mbconv_ir::SourceSpan;
use mbconv_ir::format::kit::SourceResult;
use mbconv_ir::format::{Source, SourceError};
use openusd::ar::{Asset, DefaultResolver, ResolvedPath, Resolver};
use openusd::sdf::{SpecData, SpecType, Value};
use openusd::usd;
use std::collections::{BTreeMap, HashMap};
use std::io;
use std::path::PathBuf;

/// One composed prim.
#[derive(Clone, Debug)]
pub(crate) struct RawPrim {
    /// Its path on the stage (`/World/base`).
    pub path: String,
    /// Its last path element.
    pub name: String,
    /// Its type (`Xform`, `PhysicsRevoluteJoint`, ...), empty when untyped.
    pub type_name: String,
    /// Its applied API schemas (`PhysicsRigidBodyAPI`, `PhysicsDriveAPI:angular`, ...).
    pub api_schemas: Vec<String>,
    /// Its attributes' composed default values (unauthored ones are absent).
    pub attributes: BTreeMap<String, Value>,
    /// Its relationships' targets.
    pub relationships: BTreeMap<String, Vec<String>>,
    /// The index of its parent prim in [`RawStage::prims`] (`None` for a root prim).
    pub parent: Option<usize>,
}

impl RawPrim {
    /// True when the API schema `name` (or an instance of it, `name:instance`) is applied.
    pub(crate) fn has_api(&self, name: &str) -> bool {
        self.api_schemas
            .iter()
            .any(|a| a == name || a.strip_prefix(name).is_some_and(|rest| rest.starts_with(':')))
    }

    /// The attribute `name`, when authored.
    pub(crate) fn attribute(&self, name: &str) -> Option<&Value> {
        self.attributes.get(name)
    }

    /// The first target of the relationship `name`, when it has one.
    pub(crate) fn target(&self, name: &str) -> Option<&str> {
        self.relationships
            .get(name)
            .and_then(|t| t.first())
            .map(String::as_str)
    }
}

/// The composed stage.
#[derive(Clone, Debug)]
pub(crate) struct RawStage {
    /// Every active prim, parents before children.
    pub prims: Vec<RawPrim>,
    /// `upAxis`, when authored.
    pub up_axis: Option<String>,
    /// `metersPerUnit`, when authored.
    pub meters_per_unit: Option<f64>,
    /// `kilogramsPerUnit`, when authored.
    pub kilograms_per_unit: Option<f64>,
    /// `defaultPrim`, when authored.
    pub default_prim: Option<String>,
    /// The composition errors the stage recovered from (a reference that does not resolve, ...).
    pub composition_errors: Vec<String>,
    /// The root layer's arcs left out before composing, each said in one line: a prim's
    /// inherit or specialize arc that its ancestor's own arc already brings it (see `arcs`).
    pub left_out_arcs: Vec<String>,
    /// The index in [`Self::prims`] of each prim path.
    pub by_path: HashMap<String, usize>,
}

impl RawStage {
    /// The index of the prim at `path`.
    pub(crate) fn index_of(&self, path: &str) -> Option<usize> {
        self.by_path.get(path).copied()
    }
}

/// The place of the prim `path` in the root layer's text: its `def` line's quoted name, found
/// by walking the path's names in order. `None` when the prim comes from another layer.
pub(crate) fn prim_span(source: &Source, path: &str) -> Option<SourceSpan> {
    let text = &source.text;
    let mut from = 0;
    let mut found = None;
    for name in path.split('/').filter(|n| !n.is_empty()) {
        let quoted = format!("\"{name}\"");
        let at = from + text.get(from..)?.find(&quoted)?;
        found = Some(source.span(at, quoted.len()));
        from = at + quoted.len();
    }
    found
}

/// An error about the prim `path`: located in the root layer when the prim is written there,
/// and naming the prim's path in any case.
pub(crate) fn prim_error(
    source: &Source,
    code: &str,
    path: &str,
    message: impl Into<String>,
) -> Box<SourceError> {
    let message = format!("{path}: {}", message.into());
    let span = prim_span(source, path).unwrap_or_else(|| start_span(source));
    Box::new(source.error(&format!("{FORMAT}.{code}"), Some(span), message))
}

/// A resolver that serves the source's text as the root layer (when the root is text) and
/// resolves everything else as `openusd`'s default resolver does (next to the root layer),
/// checking each other text layer's names and paths (`paths`) before the crate composes it.
struct SourceResolver {
    root: String,
    text: Option<Vec<u8>>,
    inner: DefaultResolver,
}

impl Resolver for SourceResolver {
    fn create_identifier(&self, asset_path: &str, anchor: Option<&ResolvedPath>) -> String {
        self.inner.create_identifier(asset_path, anchor)
    }
    fn resolve(&self, asset_path: &str) -> Option<ResolvedPath> {
        if asset_path == self.root && self.text.is_some() {
            return Some(ResolvedPath::new(&self.root));
        }
        self.inner.resolve(asset_path)
    }
    fn resolve_for_new_asset(&self, asset_path: &str) -> Option<ResolvedPath> {
        self.inner.resolve_for_new_asset(asset_path)
    }
    fn open_asset(&self, resolved_path: &ResolvedPath) -> io::Result<Box<dyn Asset>> {
        let is_root = resolved_path.to_str() == Some(self.root.as_str());
        if let (true, Some(text)) = (is_root, &self.text) {
            return Ok(Box::new(io::Cursor::new(text.clone())));
        }
        let mut asset = self.inner.open_asset(resolved_path)?;
        let bytes = asset.read_all()?;
        if let Some(problem) = std::str::from_utf8(&bytes).ok().and_then(layer_problem) {
            let name = resolved_path.to_str().unwrap_or_default();
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{name}: {problem}"),
            ));
        }
        Ok(Box::new(io::Cursor::new(bytes)))
    }
}

/// Why a text layer other than the root may not be handed to the `openusd` crate: blocks
/// nested past the parser's bound, or an ill-formed prim name or path. `None` for a layer that
/// is not text or does not parse (the crate's own error then says where).
fn layer_problem(text: &str) -> Option<String> {
    if !text.trim_start().starts_with("#usda") {
        return None;
    }
    if let Some(at) = nested_past_bound(text) {
        let line = text[..at].matches('\n').count() + 1;
        return Some(format!(
            "line {line}: blocks are nested more than {} levels deep",
            MAX_PRIM_DEPTH + BLOCK_MARGIN
        ));
    }
    let specs = openusd::usda::parser::Parser::new(text).parse().ok()?;
    paths::first_ill_formed(&specs).map(|bad| {
        let line = text
            .find(&bad.text)
            .map(|at| format!("line {}: ", text[..at].matches('\n').count() + 1));
        format!("{}{}", line.unwrap_or_default(), bad.message)
    })
}

/// The file name the root layer is known by: the source's path, or its name in the working
/// directory (with a `.usda` ending when it has none of USD's, so that it parses as text).
fn root_path(source: &Source) -> PathBuf {
    let path = source.path.clone().unwrap_or_else(|| {
        let name = std::path::Path::new(&source.name)
            .file_name()
            .map_or_else(|| "stage".into(), |n| n.to_string_lossy().replace(['<', '>'], ""));
        std::env::current_dir().unwrap_or_default().join(name)
    });
    let usd = ["usda", "usdc", "usdz", "usd"];
    match path.extension().and_then(|e| e.to_str()) {
        Some(e) if usd.contains(&e.to_ascii_lowercase().as_str()) => path,
        _ => path.with_extension("usda"),
    }
}

/// Opens and composes the stage whose root layer is `source`. A binary layer (`.usdc`,
/// `.usdz`) whose text is empty is read from its path.
pub(crate) fn open(source: &Source) -> SourceResult<RawStage> {
    let root = root_path(source);
    let inner = DefaultResolver::new();
    let root_id = inner.create_identifier(&root.to_string_lossy(), None);
    let from_file = source.text.is_empty() && root.exists();
    let (mut text, mut left_out) = (None, Vec::new());
    if !from_file {
        let specs = parse_root(source)?;
        if let Some(bad) = paths::first_ill_formed(&specs) {
            return Err(ill_formed_error(source, &bad));
        }
        if let Some(error) = beyond_bounds(source, &specs) {
            return Err(error);
        }
        let redundant = arcs::redundant_arcs(&specs);
        let name_end = |prim: &str| prim_span(source, prim).map(|s| s.offset + s.length);
        // the text left: it parses and states no such arc any more, else the first is refused
        let left_clean = |text: &str| {
            let parsed = openusd::usda::parser::Parser::new(text).parse();
            parsed.is_ok_and(|specs| arcs::redundant_arcs(&specs).is_empty())
        };
        let served = match arcs::without_arcs(&source.text, &redundant, name_end) {
            Ok(text) if redundant.is_empty() || left_clean(&text) => text,
            Ok(_) => return Err(arc_refusal(source, &redundant[0])),
            Err(arc) => return Err(arc_refusal(source, arc)),
        };
        left_out = redundant
            .iter()
            .map(|arc| {
                format!(
                    "{}: {}; left out before composing, as OpenUSD composes the arc once (the openusd 0.6 crate would compose it without end)",
                    arc.prim,
                    arc.describe()
                )
            })
            .collect();
        text = Some(served.into_bytes());
    }
    let resolver = SourceResolver {
        root: root_id.clone(),
        text,
        inner,
    };
    let opened = usd::Stage::builder().resolver(resolver).open(&root_id);
    let stage = opened.map_err(|e| {
        let message = format!("{e:#}");
        // Point at the asset path the message names, when the root layer spells it.
        let span = message
            .rsplit(": ")
            .next()
            .map(|tail| tail.trim())
            .and_then(|asset| std::path::Path::new(asset).file_name())
            .and_then(|name| source.text.find(&*name.to_string_lossy()))
            .map_or_else(|| start_span(source), |at| source.span(at, 1));
        let error = source.error(
            &format!("{FORMAT}.stage"),
            Some(span),
            format!("the stage does not open: {message}"),
        );
        Box::new(error.with_help("check that every layer the stage names exists and parses"))
    })?;
    let mut raw = collect(&stage).map_err(|e| {
        Box::new(source.error(
            &format!("{FORMAT}.stage"),
            Some(start_span(source)),
            format!("the stage does not compose: {e:#}"),
        ))
    })?;
    raw.left_out_arcs = left_out;
    Ok(raw)
}

/// The refusal of a prim's redundant arc (see `arcs`) the reader could not leave out of the
/// text, located at the prim.
fn arc_refusal(source: &Source, arc: &arcs::RedundantArc) -> Box<SourceError> {
    let message = format!(
        "{}; OpenUSD composes the arc once, but the USD library this reader uses (openusd 0.6) composes it without end, and the reader leaves such an arc out only where the prim's metadata states it in one statement it finds. Remove the redundant arc",
        arc.describe()
    );
    prim_error(source, "inherit_cycle", &arc.prim, message)
}

/// The refusal of a root layer with an ill-formed prim name or path, at the place the layer
/// spells it (the quoted name, the `<path>`, or the text itself), else at its first character.
fn ill_formed_error(source: &Source, bad: &paths::IllFormed) -> Box<SourceError> {
    let text = &source.text;
    let span = [
        format!("\"{}\"", bad.text),
        format!("<{}>", bad.text),
        bad.text.clone(),
    ]
    .iter()
    .find_map(|needle| text.find(needle.as_str()).map(|at| source.span(at, needle.len())))
    .unwrap_or_else(|| start_span(source));
    let error = source.error(&format!("{FORMAT}.name"), Some(span), bad.message.clone());
    Box::new(
        error.with_help("USD prim names are identifiers and paths are written `</Parent/child.property>`"),
    )
}

/// The root layer's specs, or its first syntax error, located, when its text does not parse as
/// `.usda`.
fn parse_root(source: &Source) -> SourceResult<HashMap<openusd::sdf::Path, SpecData>> {
    if !source.text.trim_start().starts_with("#usda") {
        let message = "not a text USD layer: a .usda layer starts with `#usda 1.0` (binary .usdc and .usdz layers are read from their file)";
        return Err(Box::new(source.error(
            &format!("{FORMAT}.header"),
            Some(start_span(source)),
            message,
        )));
    }
    if let Some(at) = nested_past_bound(&source.text) {
        let message = format!(
            "blocks are nested more than {} levels deep here: the reader composes prims nested up to {MAX_PRIM_DEPTH} levels",
            MAX_PRIM_DEPTH + BLOCK_MARGIN
        );
        return Err(Box::new(source.error(
            &format!("{FORMAT}.too_deep"),
            Some(source.span(at, 1)),
            message,
        )));
    }
    let mut parser = openusd::usda::parser::Parser::new(&source.text);
    parser.parse().map_err(|error| {
        let span = parser.last_error_highlight().map_or_else(
            || start_span(source),
            |h| SourceSpan::at_line_column(&source.text, h.line, h.column),
        );
        Box::new(source.error(
            &format!("{FORMAT}.syntax"),
            Some(span),
            format!("the layer does not parse: {error:#}"),
        ))
    })
}

/// The deepest prim nesting the reader composes. The `openusd` crate (0.6) works out each
/// prim's status (active, defined, ...) by walking its ancestors for every field, so a stage's
/// cost grows with the cube of its depth (400 levels: 2 s; 2 000: minutes); robots are a few
/// dozen levels deep.
pub(crate) const MAX_PRIM_DEPTH: usize = 256;

/// A refusal, located, for a root layer the `openusd` crate would not finish composing: prims
/// nested deeper than [`MAX_PRIM_DEPTH`], checked on the root layer's specs before composition.
/// (A prim that inherits what its ancestor's own inherit already brings it, which the crate
/// would compose without end too, is left out of the text the crate composes: see `arcs`.)
fn beyond_bounds(source: &Source, specs: &HashMap<openusd::sdf::Path, SpecData>) -> Option<Box<SourceError>> {
    let prims: Vec<&openusd::sdf::Path> = specs
        .iter()
        .filter(|(_, s)| s.ty == SpecType::Prim)
        .map(|(p, _)| p)
        .collect();
    if let Some(deep) = prims
        .iter()
        .filter(|p| p.as_str().matches('/').count() > MAX_PRIM_DEPTH)
        .min_by_key(|p| p.as_str().len())
    {
        let message = format!(
            "prims are nested more than {MAX_PRIM_DEPTH} levels deep (first past it: {}): the reader composes stages up to that depth",
            ancestor_at(deep.as_str(), MAX_PRIM_DEPTH + 1)
        );
        return Some(prim_error(source, "too_deep", deep.as_str(), message));
    }
    None
}

/// The `{` blocks a layer may nest beyond [`MAX_PRIM_DEPTH`] (dictionaries in metadata, variant
/// sets) before the text is refused unparsed.
const BLOCK_MARGIN: usize = 16;

/// The byte offset of the first `{` nested deeper than `MAX_PRIM_DEPTH + BLOCK_MARGIN` in a
/// `.usda` text (strings and comments skipped): the `openusd` crate parses blocks recursively,
/// and a text nested thousands deep would overflow the stack before the specs' own check.
fn nested_past_bound(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let (mut depth, mut i) = (0usize, 0);
    while i < bytes.len() {
        match bytes[i] {
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            quote @ (b'"' | b'\'') => {
                i += 1;
                while i < bytes.len() && bytes[i] != quote {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'{' => {
                depth += 1;
                if depth > MAX_PRIM_DEPTH + BLOCK_MARGIN {
                    return Some(i);
                }
            }
            b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    None
}

/// The first `depth` elements of the prim path `path`.
fn ancestor_at(path: &str, depth: usize) -> &str {
    let end = path
        .match_indices('/')
        .nth(depth)
        .map_or(path.len(), |(at, _)| at);
    &path[..end]
}

/// The first character of the source: where an error about the whole stage points.
pub(crate) fn start_span(source: &Source) -> SourceSpan {
    source.span(0, 1)
}

/// Copies every active prim of `stage` out, parents first.
fn collect(stage: &usd::Stage) -> anyhow::Result<RawStage> {
    let mut paths = Vec::new();
    stage.traverse(usd::PrimPredicate::DEFAULT, |p| paths.push(p.clone()))?;
    let mut prims: Vec<RawPrim> = Vec::with_capacity(paths.len());
    let mut index = BTreeMap::new();
    for path in paths {
        let prim = stage.prim(path.clone());
        let mut attributes = BTreeMap::new();
        for a in prim.attributes()? {
            if let Some(value) = a.get::<Value>()? {
                let name = property_name(a.path());
                attributes.insert(name, value);
            }
        }
        let mut relationships = BTreeMap::new();
        for r in prim.relationships()? {
            let name = property_name(r.path());
            let targets = r.targets()?.iter().map(|t| t.as_str().to_owned()).collect();
            relationships.insert(name, targets);
        }
        let text = path.as_str().to_owned();
        let parent = path.parent().and_then(|p| index.get(p.as_str()).copied());
        index.insert(text.clone(), prims.len());
        prims.push(RawPrim {
            name: path.name().unwrap_or_default().to_owned(),
            path: text,
            type_name: prim
                .type_name()?
                .map(|t| t.as_str().to_owned())
                .unwrap_or_default(),
            api_schemas: prim
                .api_schemas()?
                .iter()
                .map(|t| t.as_str().to_owned())
                .collect(),
            attributes,
            relationships,
            parent,
        });
    }
    let metadata = |key: &str| stage.stage_metadata(key).ok().flatten();
    let by_path = index.into_iter().collect();
    Ok(RawStage {
        prims,
        by_path,
        up_axis: metadata(attr::UP_AXIS).and_then(|v| match v {
            Value::Token(t) => Some(t.as_str().to_owned()),
            Value::String(s) => Some(s),
            _ => None,
        }),
        meters_per_unit: metadata(attr::METERS_PER_UNIT).and_then(|v| number(&v)),
        kilograms_per_unit: metadata(attr::KILOGRAMS_PER_UNIT).and_then(|v| number(&v)),
        default_prim: stage.default_prim().map(|t| t.as_str().to_owned()),
        composition_errors: stage.composition_errors().iter().map(|e| e.to_string()).collect(),
        left_out_arcs: Vec::new(),
    })
}

/// The name of a property from its path (`/World/bob.physics:mass` -> `physics:mass`).
fn property_name(path: &openusd::sdf::Path) -> String {
    let text = path.as_str();
    text.rsplit_once('.').map_or(text, |(_, name)| name).to_owned()
}

/// A scalar value as a double (a float widened exactly).
pub(crate) fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Double(x) => Some(*x),
        Value::Float(x) => Some(f64::from(*x)),
        Value::Half(x) => Some(f64::from(x.to_f32())),
        Value::Int(x) => Some(f64::from(*x)),
        Value::Int64(x) => Some(*x as f64),
        Value::Uint(x) => Some(f64::from(*x)),
        _ => None,
    }
}

/// A three-vector value as doubles.
pub(crate) fn vec3(v: &Value) -> Option<[f64; 3]> {
    match v {
        Value::Vec3d(v) => Some([v.x, v.y, v.z]),
        Value::Vec3f(v) => Some([v.x, v.y, v.z].map(f64::from)),
        Value::Vec3h(v) => Some([v.x, v.y, v.z].map(|x| f64::from(x.to_f32()))),
        Value::Vec3i(v) => Some([v.x, v.y, v.z].map(f64::from)),
        _ => None,
    }
}

/// A quaternion value as doubles, scalar first.
pub(crate) fn quat(v: &Value) -> Option<[f64; 4]> {
    match v {
        Value::Quatd(q) => Some([q.w, q.x, q.y, q.z]),
        Value::Quatf(q) => Some([q.w, q.x, q.y, q.z].map(f64::from)),
        Value::Quath(q) => Some([q.w, q.x, q.y, q.z].map(|x| f64::from(x.to_f32()))),
        _ => None,
    }
}
