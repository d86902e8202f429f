//! The `Format` trait, its inputs and outputs, and the registry the CLI dispatches through.
//!
//! A format crate implements [`Format`] for one file format; the CLI registers every built
//! format in a [`Registry`] and finds them by name, alias, extension or content. [`kit`] holds what every format crate
//! shares; [`settings`] the typed format settings the registry checks before reading or
//! writing.

pub mod kit;
pub mod settings;
pub mod support;

pub use settings::{
    Direction, Options, Readers, SHARED_WRITE_SETTINGS, SettingError, SettingKind, SettingSpec,
};

use crate::lower::{UpAxis, reorient, rotation_to_up};
use crate::model::Model;
use crate::report::{Category, Finding, Report, Severity, SourceSpan};
use nalgebra::UnitQuaternion;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

/// Any diagnostic a format reports when it cannot read or write.
pub type FormatError = Box<dyn miette::Diagnostic + Send + Sync + 'static>;

/// A text input: its display name (usually the path as given), its path, and its contents.
#[derive(Clone, Debug)]
pub struct Source {
    /// Name used in messages.
    pub name: String,
    /// Path on disk, when read from a file (used to resolve relative references).
    pub path: Option<PathBuf>,
    /// The whole text.
    pub text: String,
    /// Byte offsets of line starts, built on the first [`Source::span`] call, so that turning
    /// an offset into line and column costs a binary search, not a scan of the file.
    line_starts: OnceLock<Arc<[usize]>>,
}

impl Source {
    /// Reads a file. A file that is not UTF-8 text is refused with an
    /// [`std::io::ErrorKind::InvalidData`] error whose message names `file:line:column` of the
    /// first byte that is not.
    ///
    /// ```
    /// let dir = std::env::temp_dir().join(format!("mbconv-doc-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir).unwrap();
    /// let file = dir.join("m.yaml");
    /// std::fs::write(&file, b"a: 1\nb: x\xffy\n").unwrap();
    /// let err = mbconv_ir::format::Source::from_path(&file).unwrap_err();
    /// assert!(err.to_string().contains("m.yaml:2:5: not UTF-8 text"), "{err}");
    /// std::fs::remove_dir_all(&dir).unwrap();
    /// ```
    pub fn from_path(path: &Path) -> std::io::Result<Self> {
        let name = path.display().to_string();
        let text = String::from_utf8(std::fs::read(path)?).map_err(|e| {
            let bytes = e.as_bytes();
            let valid = e.utf8_error().valid_up_to();
            // Everything before `valid` is UTF-8: line and column count characters there.
            let before = std::str::from_utf8(&bytes[..valid]).unwrap_or_default();
            let line = before.matches('\n').count() + 1;
            let column = before[before.rfind('\n').map_or(0, |i| i + 1)..].chars().count() + 1;
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!(
                    "{name}:{line}:{column}: not UTF-8 text (byte 0x{:02X} at offset {valid}); \
                     model files must be UTF-8",
                    bytes[valid]
                ),
            )
        })?;
        Ok(Self {
            name,
            path: Some(path.to_path_buf()),
            text,
            line_starts: OnceLock::new(),
        })
    }
    /// A source held in memory.
    pub fn from_string(name: impl Into<String>, text: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            path: None,
            text: text.into(),
            line_starts: OnceLock::new(),
        }
    }
    /// The directory relative references resolve against.
    pub fn base_dir(&self) -> Option<&Path> {
        self.path.as_deref().and_then(Path::parent)
    }
    /// The same text under another name and path (a file read through another, say).
    pub fn with_path(mut self, name: impl Into<String>, path: Option<PathBuf>) -> Self {
        self.name = name.into();
        self.path = path;
        self
    }
    /// The span of `length` bytes at `offset`, with its 1-based line and column.
    ///
    /// ```
    /// let src = mbconv_ir::format::Source::from_string("m", "ab\ncé\nd");
    /// let span = src.span(6, 1);
    /// assert_eq!((span.line, span.column), (2, 3));
    /// assert_eq!(span, mbconv_ir::SourceSpan::locate(&src.text, 6, 1));
    /// ```
    pub fn span(&self, offset: usize, length: usize) -> SourceSpan {
        let starts = self.line_starts.get_or_init(|| {
            std::iter::once(0)
                .chain(self.text.match_indices('\n').map(|(i, _)| i + 1))
                .collect()
        });
        let mut offset = offset.min(self.text.len());
        while offset > 0 && !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = starts.partition_point(|&start| start <= offset);
        let line_start = starts[line - 1];
        SourceSpan {
            offset,
            length,
            line,
            column: self.text[line_start..offset].chars().count() + 1,
        }
    }
    /// An error pointing at a span of this source.
    pub fn error(&self, code: &str, span: Option<SourceSpan>, message: impl Into<String>) -> SourceError {
        SourceError {
            code: code.to_owned(),
            message: message.into(),
            file: self.name.clone(),
            span,
            source: miette::NamedSource::new(self.name.clone(), self.text.clone()),
            help: None,
        }
    }
}

/// An error in an input file, with file, line, column and a snippet (rendered by miette).
///
/// Its `Display` reads `file:line:column: message`, so even plain output names the place.
///
/// ```
/// use mbconv_ir::format::Source;
/// let src = Source::from_string("m.json", "{\n  \"mass\": x\n}");
/// let err = src.error("json.syntax", Some(src.span(12, 1)), "expected a number");
/// assert_eq!(err.to_string(), "m.json:2:11: expected a number");
/// ```
#[derive(Debug)]
pub struct SourceError {
    /// Stable error code.
    pub code: String,
    /// What is wrong and what was expected.
    pub message: String,
    /// File name for messages.
    pub file: String,
    /// Where, when known.
    pub span: Option<SourceSpan>,
    /// The file's name and text, for the snippet.
    pub source: miette::NamedSource<String>,
    /// A hint on how to fix it.
    pub help: Option<String>,
}

impl SourceError {
    /// Adds a hint.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
}

impl fmt::Display for SourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.span {
            Some(span) => write!(f, "{}:{}:{}: {}", self.file, span.line, span.column, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

impl std::error::Error for SourceError {}

impl miette::Diagnostic for SourceError {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(&self.code))
    }
    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help.as_ref().map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }
    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        self.span
            .as_ref()
            .map(|_| &self.source as &dyn miette::SourceCode)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        let span = self.span.as_ref()?;
        Some(Box::new(std::iter::once(miette::LabeledSpan::at(
            span.offset..span.offset + span.length,
            "here",
        ))))
    }
}

/// Maps IR paths to the source spans they came from.
pub type SourceMap = BTreeMap<String, SourceSpan>;

/// The result of reading a file.
#[derive(Clone, Debug)]
pub struct Imported {
    /// The model.
    pub model: Model,
    /// What the importer found (defaults applied, keys ignored, …).
    pub report: Report,
    /// Where each item came from, by IR path.
    pub source_map: SourceMap,
    /// The file the source map's spans point into when it is not the input itself (a Chrono
    /// simulation file read with the model file it names); `None` for the input.
    pub source_map_file: Option<String>,
}

impl Imported {
    /// The span recorded for `path` or its nearest recorded ancestor.
    pub fn span_of(&self, path: &str) -> Option<SourceSpan> {
        span_of(&self.source_map, path)
    }
}

/// The span recorded for `path` or its nearest recorded ancestor (`a.b[1].c` → `a.b[1]` → `a.b` → `a`).
pub fn span_of(map: &SourceMap, path: &str) -> Option<SourceSpan> {
    let mut p = path;
    loop {
        if let Some(span) = map.get(p) {
            return Some(span.clone());
        }
        let cut = p.rfind(['.', '['])?;
        p = &p[..cut];
    }
}

/// A file written next to the main output (for example a Chrono simulation file).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Companion {
    /// File name, relative to the main output's directory.
    pub file_name: String,
    /// Contents.
    pub text: String,
}

/// A file written beside the main output that is not text the writer made: a mesh file
/// copied as it is, or converted into a format the target reads. A format's lowering names
/// the assets ([`Lowered::assets`]); whoever writes the output (the facade's pipeline, the
/// check's temporary folder) writes them with it. Built by [`kit::place_asset`].
#[derive(Clone, PartialEq, Eq)]
pub struct Asset {
    /// File name, relative to the main output's directory, with `/` separators
    /// (`robot_meshes/base.stl`).
    pub file_name: String,
    /// The file it is made from.
    pub source: PathBuf,
    /// The contents to write; `None`: the source file copied byte for byte.
    pub bytes: Option<Vec<u8>>,
}

impl fmt::Debug for Asset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Asset")
            .field("file_name", &self.file_name)
            .field("source", &self.source)
            .field("bytes", &self.bytes.as_ref().map(Vec::len))
            .finish()
    }
}

impl Asset {
    /// Writes the asset under `dir` (the main output's directory), making the folders it
    /// needs: its bytes, or a copy of its source.
    ///
    /// ```
    /// let dir = std::env::temp_dir().join(format!("mbconv-asset-doc-{}", std::process::id()));
    /// let asset = mbconv_ir::format::Asset {
    ///     file_name: "m_meshes/a.stl".into(), source: "a.dae".into(), bytes: Some(b"x".to_vec()),
    /// };
    /// asset.write_into(&dir).unwrap();
    /// assert_eq!(std::fs::read(dir.join("m_meshes/a.stl")).unwrap(), b"x");
    /// std::fs::remove_dir_all(&dir).unwrap();
    /// ```
    ///
    /// # Errors
    /// The system's, when a folder cannot be made or the file cannot be written or copied.
    pub fn write_into(&self, dir: &Path) -> std::io::Result<()> {
        self.write_to(&dir.join(&self.file_name))
    }

    /// Writes the asset at `path` (its bytes, or a copy of its source), making the folders it
    /// needs.
    ///
    /// # Errors
    /// The system's.
    pub fn write_to(&self, path: &Path) -> std::io::Result<()> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        match &self.bytes {
            Some(bytes) => std::fs::write(path, bytes),
            None => std::fs::copy(&self.source, path).map(|_| ()),
        }
    }
}

/// The result of writing a model.
#[derive(Clone, Debug)]
pub struct Exported {
    /// The main file's contents.
    pub text: String,
    /// Extra files to write beside it.
    pub companions: Vec<Companion>,
    /// What the exporter could not say or had to change.
    pub report: Report,
    /// The companion to open to read the whole model back (a Chrono simulation file, which
    /// names the model file and adds gravity and time step); `None`: the main file.
    pub entry: Option<String>,
    /// The read settings, beyond the reader's defaults, under which this text reads back as the
    /// model written (MJCF: start from the keyframe the writer added for the initial
    /// velocities). [`Format::read_back_options`] returns them by default.
    pub read_back: Options,
    /// The files to write beside the output that the text names (meshes copied or
    /// converted): the lowering's [`Lowered::assets`], carried by [`Format::write`] and
    /// [`Registry::write`].
    pub assets: Vec<Asset>,
}

impl Exported {
    /// Just a main file, with its report.
    pub fn text(text: String, report: Report) -> Self {
        Self {
            text,
            companions: Vec::new(),
            report,
            entry: None,
            read_back: Options::default(),
            assets: Vec::new(),
        }
    }
}

/// A model turned into what a format can say, and every change that took.
///
/// `emit` writes a lowered model and loses nothing more: reading the emitted text back gives
/// a model that moves exactly like [`Lowered::model`].
#[derive(Clone, Debug)]
pub struct Lowered {
    /// The model as the format will say it.
    pub model: Model,
    /// Every change: kept exactly, approximated, dropped, renamed, each with its IR path.
    pub report: Report,
    /// The model after each pass, when the lowering was traced
    /// ([`Format::lower_traced`]); empty otherwise.
    pub passes: Vec<kit::PassSnapshot>,
    /// The rotation the whole world was turned by before the format's own lowering (the
    /// shared write setting [`settings::UP`]): the lowered model moves as the original does,
    /// turned by it, so its motion turned back by the inverse is compared with the
    /// original's. `None`: not turned.
    pub turned_by: Option<UnitQuaternion<f64>>,
    /// The files the lowered model names that must be written beside the output (meshes
    /// copied or converted, [`Asset`]); the model's mesh references already name them.
    pub assets: Vec<Asset>,
}

impl Lowered {
    /// A lowering that was not traced.
    pub fn new(model: Model, report: Report) -> Self {
        Self {
            model,
            report,
            passes: Vec::new(),
            turned_by: None,
            assets: Vec::new(),
        }
    }

    /// A lowering done in one step from `original`, reported, when `tracing` is on, as one
    /// pass called `lower` (with the model after it when it changed anything).
    ///
    /// ```
    /// use mbconv_ir::format::Lowered;
    /// use mbconv_ir::format::kit::Tracing;
    /// use mbconv_ir::{Model, report::Report};
    /// let model = Model::new("m");
    /// let lowered = Lowered::as_one_pass(&model, model.clone(), Report::default(), Tracing::On);
    /// assert_eq!(lowered.passes.len(), 1);
    /// assert!(lowered.passes[0].model.is_none()); // nothing changed
    /// ```
    pub fn as_one_pass(original: &Model, model: Model, report: Report, tracing: kit::Tracing) -> Self {
        let mut lowered = Self::new(model, report);
        if tracing == kit::Tracing::On {
            let changed = lowered.model != *original;
            lowered.passes = vec![kit::PassSnapshot {
                pass: "lower".to_owned(),
                model: changed.then(|| lowered.model.clone()),
                report: lowered.report.clone(),
            }];
        }
        lowered
    }
}

/// Static facts about a format.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormatInfo {
    /// Canonical name (`chrono`, `skel`, `body`, `shift`, `mbir`).
    pub name: &'static str,
    /// Other accepted names (`yaml`, `json`, …).
    pub aliases: &'static [&'static str],
    /// File name endings without the dot, longest first (`mbir.json`).
    pub extensions: &'static [&'static str],
    /// One line for `mbconv formats`.
    pub description: &'static str,
    /// The short name of the `x2y` conversion shortcuts (`yaml` gives `yaml2skel`,
    /// `skel2yaml`, …), generated for every pair of built formats that have one; `None`: the
    /// format has no shortcuts.
    pub shortcut: Option<&'static str>,
    /// The settings [`Format::read`] understands.
    pub read_settings: &'static [SettingSpec],
    /// The settings [`Format::lower_with`] and [`Format::emit`] understand.
    pub write_settings: &'static [SettingSpec],
    /// How the format carries each IR feature: the table its lowering removes by
    /// ([`kit::LowerSession::with_table`]) and `docs/loss-matrix.md` is generated from. A
    /// feature not listed is kept.
    pub features: &'static [support::FeatureSupport],
}

impl FormatInfo {
    /// True when `name` is the name or an alias.
    pub fn answers_to(&self, name: &str) -> bool {
        self.name.eq_ignore_ascii_case(name) || self.aliases.iter().any(|a| a.eq_ignore_ascii_case(name))
    }
    /// The length of the longest of the extensions `path` ends with, if any.
    ///
    /// ```
    /// use mbconv_ir::format::FormatInfo;
    /// let info = FormatInfo {
    ///     name: "mbir", aliases: &[], extensions: &["mbir.json"], description: "IR", shortcut: None,
    ///     read_settings: &[], write_settings: &[], features: &[],
    /// };
    /// assert_eq!(info.matching_extension_len(std::path::Path::new("a.MBIR.json")), Some(9));
    /// assert_eq!(info.matching_extension_len(std::path::Path::new("a.json")), None);
    /// ```
    pub fn matching_extension_len(&self, path: &Path) -> Option<usize> {
        let file = path
            .file_name()
            .and_then(|f| f.to_str())
            .unwrap_or_default()
            .to_ascii_lowercase();
        self.extensions
            .iter()
            .filter(|ext| file.ends_with(&format!(".{ext}")))
            .map(|ext| ext.len())
            .max()
    }
    /// True when `path` ends with one of the extensions.
    pub fn matches_extension(&self, path: &Path) -> bool {
        self.matching_extension_len(path).is_some()
    }
}

/// A model file format that can be read and written.
///
/// Writing is two steps: [`Format::lower`], a pure IR -> IR step that turns the model into what
/// the format can say and reports every change, then [`Format::emit`], which writes the lowered
/// model and loses nothing more. [`Format::write`] runs both. Callers outside a format crate
/// go through [`Registry::read`] and [`Registry::write`], which check the settings first.
pub trait Format: Send + Sync {
    /// Name, aliases, extensions and description.
    fn info(&self) -> &FormatInfo;
    /// The settings [`Format::read`] understands ([`FormatInfo::read_settings`]).
    fn read_settings(&self) -> &'static [SettingSpec] {
        self.info().read_settings
    }
    /// The settings [`Format::lower`] and [`Format::emit`] understand
    /// ([`FormatInfo::write_settings`]).
    fn write_settings(&self) -> &'static [SettingSpec] {
        self.info().write_settings
    }
    /// The read settings that read back what [`Format::write`] wrote (`written`) with
    /// `write_options`: for a format whose files do not say everything a reader must assume
    /// (URDF's root link: written free, it must be read free; MJCF's initial state: a keyframe
    /// the reader must be told to start from). The check reads its conversions back with them.
    /// The default: the settings the writer put in [`Exported::read_back`].
    fn read_back_options(&self, write_options: &Options, written: &Exported) -> Options {
        let _ = write_options;
        written.read_back.clone()
    }
    /// How this format carries each IR feature ([`FormatInfo::features`]: the table its
    /// `lower` step removes by and reports from; `docs/loss-matrix.md` is generated from it).
    /// A feature not listed is kept.
    fn feature_support(&self) -> &'static [support::FeatureSupport] {
        self.info().features
    }
    /// The laws by which the simulator this format is written for solves a feature it carries
    /// differently from mbconv's solver ([`support::SimulatorLaw`]): the check names them
    /// where the model uses the feature, instead of calling the motion proven there. Default:
    /// none.
    fn simulator_laws(&self) -> &'static [support::SimulatorLaw] {
        &[]
    }
    /// True when `text` looks like this format (used when the extension is ambiguous).
    fn sniff(&self, text: &str) -> bool;
    /// Reads a model. Errors in the input come back as diagnostics with spans.
    fn read(&self, source: &Source, options: &Options) -> Result<Imported, FormatError>;
    /// Turns a model into what this format can say; every change is a finding. With
    /// [`Tracing::On`](kit::Tracing::On) the result's [`Lowered::passes`] also holds the model
    /// after each named pass, for the check's replay; the model and report are the same either
    /// way. A format whose lowering is not a sequence of [`kit::LowerSession`] passes reports
    /// one pass called `lower` ([`Lowered::as_one_pass`]).
    fn lower_with(
        &self,
        model: &Model,
        options: &Options,
        tracing: kit::Tracing,
    ) -> Result<Lowered, FormatError>;
    /// [`lower_with`](Self::lower_with) without tracing: what conversions use.
    fn lower(&self, model: &Model, options: &Options) -> Result<Lowered, FormatError> {
        self.lower_with(model, options, kit::Tracing::Off)
    }
    /// [`lower_with`](Self::lower_with) with tracing: what the check's replay uses.
    fn lower_traced(&self, model: &Model, options: &Options) -> Result<Lowered, FormatError> {
        self.lower_with(model, options, kit::Tracing::On)
    }
    /// Writes a lowered model, losing nothing more.
    fn emit(&self, lowered: &Model, options: &Options) -> Result<Exported, FormatError>;
    /// Lowers and emits; the report holds the findings of both steps.
    fn write(&self, model: &Model, options: &Options) -> Result<Exported, FormatError> {
        let lowered = self.lower(model, options)?;
        let mut exported = self.emit(&lowered.model, options)?;
        let mut report = lowered.report;
        report.extend(std::mem::take(&mut exported.report));
        exported.report = report;
        exported.assets = lowered.assets;
        Ok(exported)
    }
}

/// Why a format could not be found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, miette::Diagnostic)]
pub enum LookupError {
    /// No format has this name.
    #[error("unknown format {name:?}; known formats: {known}")]
    #[diagnostic(code(format::unknown))]
    Unknown {
        /// The name asked for.
        name: String,
        /// Known names.
        known: String,
    },
    /// Several built formats write files with this extension.
    #[error("several formats write {path} ({candidates}); pass --to")]
    #[diagnostic(code(format::ambiguous))]
    Ambiguous {
        /// The file.
        path: String,
        /// The formats that claim its extension.
        candidates: String,
    },
    /// Neither the extension nor the content identifies a format.
    #[error("cannot tell the format of {path}; pass --from or --to")]
    #[diagnostic(code(format::undetected))]
    Undetected {
        /// The file.
        path: String,
    },
}

/// The formats a build knows.
///
/// ```
/// use mbconv_ir::format::Registry;
/// let mut registry = Registry::new();
/// registry.register(Box::new(mbconv_ir::mbir::MbirFormat));
/// assert!(registry.get("mbir").is_ok());
/// assert!(registry.get("skel").is_err());
/// ```
#[derive(Default)]
pub struct Registry {
    formats: Vec<Box<dyn Format>>,
}

impl Registry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }
    /// Adds a format that can be read and written.
    pub fn register(&mut self, format: Box<dyn Format>) {
        self.formats.push(format);
    }
    /// Built formats, in registration order.
    pub fn formats(&self) -> impl Iterator<Item = &dyn Format> {
        self.formats.iter().map(|f| f.as_ref())
    }
    /// The `x2y` conversion shortcuts: one for every ordered pair of distinct built formats
    /// that both have a [`FormatInfo::shortcut`] name, in registration order. A format that
    /// registers a short name gets its shortcuts to and from every other such format.
    ///
    /// ```
    /// use mbconv_ir::format::Registry;
    /// let mut registry = Registry::new();
    /// registry.register(Box::new(mbconv_ir::mbir::MbirFormat));
    /// // The IR's JSON has no short name: no shortcuts.
    /// assert!(registry.shortcuts().is_empty());
    /// ```
    pub fn shortcuts(&self) -> Vec<Shortcut> {
        let named: Vec<(&str, &FormatInfo)> = self
            .formats
            .iter()
            .filter_map(|f| f.info().shortcut.map(|short| (short, f.info())))
            .collect();
        let mut shortcuts = Vec::new();
        for (from_short, from) in &named {
            for (to_short, to) in &named {
                if from.name != to.name {
                    shortcuts.push(Shortcut {
                        name: format!("{from_short}2{to_short}"),
                        from: from.name,
                        to: to.name,
                    });
                }
            }
        }
        shortcuts
    }
    /// The format with this name or alias.
    pub fn get(&self, name: &str) -> Result<&dyn Format, LookupError> {
        if let Some(f) = self.formats.iter().find(|f| f.info().answers_to(name)) {
            return Ok(f.as_ref());
        }
        let known: Vec<&str> = self.formats.iter().map(|f| f.info().name).collect();
        Err(LookupError::Unknown {
            name: name.to_owned(),
            known: known.join(", "),
        })
    }
    /// The format of an input file, by extension and then by content. An extension that
    /// one built format claims decides alone (a `.skel` file with a `<robot>` root is a
    /// broken SKEL file, not URDF); when several formats share the extension (`.json`) or
    /// the extension is a container many formats use (`.xml`), the content decides; a file
    /// whose extension no format claims is recognised by its content.
    ///
    /// ```
    /// use mbconv_ir::format::Registry;
    /// use std::path::Path;
    /// let mut registry = Registry::new();
    /// registry.register(Box::new(mbconv_ir::mbir::MbirFormat));
    /// let json = r#"{"format": "mbir", "version": 1}"#;
    /// assert_eq!(registry.detect(Path::new("m.mbir.json"), Some(json)).unwrap().info().name, "mbir");
    /// assert!(registry.detect(Path::new("m.txt"), Some("hello")).is_err());
    /// ```
    pub fn detect(&self, path: &Path, text: Option<&str>) -> Result<&dyn Format, LookupError> {
        let by_ext: Vec<&dyn Format> = self
            .formats
            .iter()
            .map(|f| f.as_ref())
            .filter(|f| f.info().matches_extension(path))
            .collect();
        let container = is_container(path);
        if by_ext.len() == 1 && !container {
            return Ok(by_ext[0]);
        }
        if let Some(text) = text {
            if let Some(f) = by_ext.iter().find(|f| f.sniff(text)) {
                return Ok(*f);
            }
            if by_ext.is_empty()
                && let Some(f) = self.formats.iter().find(|f| f.sniff(text))
            {
                return Ok(f.as_ref());
            }
        }
        if container {
            return Err(LookupError::Undetected {
                path: path.display().to_string(),
            });
        }
        // Several formats share the ending and none recognises the content (an empty or
        // broken file): the most specific ending decides (`.mbir.json` over `.json`), so that
        // the file's own reader reports what is wrong with it.
        let longest = |f: &dyn Format| f.info().matching_extension_len(path).unwrap_or(0);
        if let Some(best) = by_ext.iter().copied().max_by_key(|f| longest(*f))
            && by_ext.iter().filter(|f| longest(**f) == longest(best)).count() == 1
        {
            return Ok(best);
        }
        Err(LookupError::Undetected {
            path: path.display().to_string(),
        })
    }
    /// Reads with `format` after checking `options` against its read settings.
    pub fn read(
        &self,
        format: &dyn Format,
        source: &Source,
        options: &Options,
    ) -> Result<Imported, FormatError> {
        options.check(format.info().name, Direction::Read, format.read_settings())?;
        format.read(source, options)
    }
    /// Every write setting `format` takes through the registry: its own and the
    /// [`SHARED_WRITE_SETTINGS`] the registry applies itself.
    ///
    /// ```
    /// use mbconv_ir::format::Registry;
    /// let mut registry = Registry::new();
    /// registry.register(Box::new(mbconv_ir::mbir::MbirFormat));
    /// let mbir = registry.get("mbir").unwrap();
    /// assert!(registry.write_settings(mbir).iter().any(|s| s.name == "up"));
    /// ```
    pub fn write_settings(&self, format: &dyn Format) -> Vec<SettingSpec> {
        format
            .write_settings()
            .iter()
            .chain(SHARED_WRITE_SETTINGS)
            .copied()
            .collect()
    }
    /// Refuses a write setting neither `format` nor the registry declares, or a value of the
    /// wrong type.
    pub fn check_write_options(&self, format: &dyn Format, options: &Options) -> Result<(), SettingError> {
        options.check(format.info().name, Direction::Write, &self.write_settings(format))
    }
    /// Lowers with `format` after checking `options` against its write settings and applying
    /// the shared ones: with `up`, the whole model is first turned so that gravity points down
    /// that axis ([`reorient`]); its findings come first in the report and the rotation is
    /// [`Lowered::turned_by`].
    ///
    /// ```
    /// use mbconv_ir::format::{Options, Registry};
    /// use mbconv_ir::{Body, Model};
    /// let mut registry = Registry::new();
    /// registry.register(Box::new(mbconv_ir::mbir::MbirFormat));
    /// let mut model = Model::new("y-up");
    /// model.simulation.gravity = Some(nalgebra::Vector3::new(0.0, -9.81, 0.0));
    /// model.bodies.push(Body::new("b"));
    /// let mut options = Options::default();
    /// options.set("up", "z");
    /// let lowered = registry.lower(registry.get("mbir").unwrap(), &model, &options).unwrap();
    /// let g = lowered.model.simulation.gravity.unwrap();
    /// assert!((g - nalgebra::Vector3::new(0.0, 0.0, -9.81)).norm() < 1e-12);
    /// assert!(lowered.turned_by.is_some());
    /// assert_eq!(lowered.report.findings[0].code, "mbir.reoriented");
    /// ```
    pub fn lower(
        &self,
        format: &dyn Format,
        model: &Model,
        options: &Options,
    ) -> Result<Lowered, FormatError> {
        let prepared = self.prepare_write(format, model, options)?;
        let mut lowered = format.lower(&prepared.model, &prepared.options)?;
        prepared.apply_to(&mut lowered, format.info().name, options, kit::Tracing::Off);
        Ok(lowered)
    }
    /// [`Registry::lower`] traced ([`Format::lower_traced`]): a turn the shared setting `up`
    /// makes is the first pass, `reorient`.
    pub fn lower_traced(
        &self,
        format: &dyn Format,
        model: &Model,
        options: &Options,
    ) -> Result<Lowered, FormatError> {
        let prepared = self.prepare_write(format, model, options)?;
        let mut lowered = format.lower_traced(&prepared.model, &prepared.options)?;
        if prepared.turned_by.is_some() {
            let mut report = Report::default();
            report.findings.clone_from(&prepared.findings);
            lowered.passes.insert(
                0,
                kit::PassSnapshot {
                    pass: REORIENT_PASS.to_owned(),
                    model: Some(prepared.model.clone().into_owned()),
                    report,
                },
            );
        }
        prepared.apply_to(&mut lowered, format.info().name, options, kit::Tracing::On);
        Ok(lowered)
    }
    /// Emits a lowered model with `format`, which sees its own settings only (the shared ones
    /// were applied by [`Registry::lower`]).
    pub fn emit(
        &self,
        format: &dyn Format,
        lowered: &Model,
        options: &Options,
    ) -> Result<Exported, FormatError> {
        format.emit(lowered, &options.without(SHARED_WRITE_SETTINGS))
    }
    /// Writes (lowers and emits) with `format` after checking `options` against its write
    /// settings and applying the shared ones, as [`Registry::lower`] does.
    pub fn write(
        &self,
        format: &dyn Format,
        model: &Model,
        options: &Options,
    ) -> Result<Exported, FormatError> {
        let lowered = self.lower(format, model, options)?;
        let mut exported = self.emit(format, &lowered.model, options)?;
        let mut report = lowered.report;
        report.extend(std::mem::take(&mut exported.report));
        exported.report = report;
        exported.assets = lowered.assets;
        Ok(exported)
    }
    /// Checks `options` and applies the shared write settings to `model`.
    fn prepare_write<'m>(
        &self,
        format: &dyn Format,
        model: &'m Model,
        options: &Options,
    ) -> Result<PreparedWrite<'m>, FormatError> {
        self.check_write_options(format, options)?;
        let own = options.without(SHARED_WRITE_SETTINGS);
        let name = format.info().name;
        let Some(up) = options
            .choice(settings::UP.name, settings::UP_AXES)
            .and_then(UpAxis::parse)
        else {
            return Ok(PreparedWrite::unchanged(model, own));
        };
        let gravity = model.simulation.gravity_or_unstated();
        let Some(rotation) = rotation_to_up(&gravity, up) else {
            let why = if gravity.norm() > 0.0 && gravity.iter().all(|g| g.is_finite()) {
                "gravity already points down that axis"
            } else {
                "gravity is zero, so no direction is down"
            };
            let mut prepared = PreparedWrite::unchanged(model, own);
            prepared.findings.push(
                Finding::new(
                    format!("{name}.not_reoriented"),
                    Severity::Info,
                    Category::Note,
                    format!(
                        "up={}: the model is not turned: {why}",
                        options.get("up").unwrap_or_default()
                    ),
                )
                .for_feature(support::Feature::Gravity)
                .at("simulation.gravity"),
            );
            return Ok(prepared);
        };
        let mut turned = model.clone();
        let mut findings = reorient(&mut turned, &rotation, name);
        for finding in &mut findings {
            finding.pass = Some(REORIENT_PASS.to_owned());
        }
        Ok(PreparedWrite {
            model: Cow::Owned(turned),
            options: own,
            findings,
            turned_by: Some(rotation),
        })
    }
    /// The format to write `path` in, by extension. An extension several built formats
    /// share (`.xml`: URDF, MJCF) names none of them: the caller has to say which.
    pub fn detect_output(&self, path: &Path) -> Result<&dyn Format, LookupError> {
        let by_ext: Vec<&dyn Format> = self
            .formats
            .iter()
            .map(|f| f.as_ref())
            .filter(|f| f.info().matches_extension(path))
            .collect();
        let longest = |f: &dyn Format| f.info().matching_extension_len(path).unwrap_or(0);
        if let Some(best) = by_ext.iter().copied().max_by_key(|f| longest(*f)) {
            let tied: Vec<&str> = by_ext
                .iter()
                .filter(|f| longest(**f) == longest(best))
                .map(|f| f.info().name)
                .collect();
            if tied.len() == 1 {
                return Ok(best);
            }
            return Err(LookupError::Ambiguous {
                path: path.display().to_string(),
                candidates: tied.join(", "),
            });
        }
        Err(LookupError::Undetected {
            path: path.display().to_string(),
        })
    }
}

/// The name of the pass a turn by the shared setting `up` shows as in a traced lowering.
pub const REORIENT_PASS: &str = "reorient";

/// The name of the pass in which the registry copies the mesh files a lowered model names
/// beside the output (the shared write setting `assets=copy`), after the format's own passes.
pub const COPY_ASSETS_PASS: &str = "copy_assets";

/// A model with the shared write settings applied, the format's own settings, and what
/// applying them found.
struct PreparedWrite<'m> {
    model: Cow<'m, Model>,
    options: Options,
    findings: Vec<Finding>,
    turned_by: Option<UnitQuaternion<f64>>,
}

impl<'m> PreparedWrite<'m> {
    fn unchanged(model: &'m Model, options: Options) -> Self {
        Self {
            model: Cow::Borrowed(model),
            options,
            findings: Vec::new(),
            turned_by: None,
        }
    }

    /// Puts the findings first in the lowering's report and records the turn; then, with the
    /// shared setting `assets=copy` ([`settings::ASSETS`]), copies the mesh files the lowered
    /// model names beside the output ([`kit::copy_meshes`], pass [`COPY_ASSETS_PASS`], a
    /// snapshot of its own when traced).
    fn apply_to(self, lowered: &mut Lowered, format: &str, options: &Options, tracing: kit::Tracing) {
        let mut findings = self.findings;
        findings.append(&mut lowered.report.findings);
        lowered.report.findings = findings;
        lowered.turned_by = self.turned_by;
        if options.choice(settings::ASSETS.name, settings::ASSET_POLICIES) != Some("copy") {
            return;
        }
        let before = (tracing == kit::Tracing::On).then(|| lowered.model.clone());
        let mut copied = kit::copy_meshes(
            &mut lowered.model,
            &mut lowered.assets,
            options.output_path.as_deref(),
            format,
        );
        for finding in &mut copied {
            finding.pass = Some(COPY_ASSETS_PASS.to_owned());
        }
        if let Some(before) = before
            && !copied.is_empty()
        {
            let mut report = Report::default();
            report.findings.clone_from(&copied);
            lowered.passes.push(kit::PassSnapshot {
                pass: COPY_ASSETS_PASS.to_owned(),
                model: (lowered.model != before).then(|| lowered.model.clone()),
                report,
            });
        }
        lowered.report.findings.append(&mut copied);
    }
}

/// One `x2y` conversion shortcut of a [`Registry`]: `skel2yaml` converts from `skel` to
/// `chrono`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shortcut {
    /// The command name, `<from short name>2<to short name>`.
    pub name: String,
    /// The registry name of the input format.
    pub from: &'static str,
    /// The registry name of the output format.
    pub to: &'static str,
}

/// Extensions that many formats (and files that are no model) use: `.xml`. They name no
/// format alone; the content decides.
const CONTAINER_EXTENSIONS: &[&str] = &["xml"];

fn is_container(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| CONTAINER_EXTENSIONS.iter().any(|c| e.eq_ignore_ascii_case(c)))
}
