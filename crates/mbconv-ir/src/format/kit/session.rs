//! The state of one import: where the text came from, what was found, where each IR item came
//! from, and which names are taken.

use crate::format::{Imported, Source, SourceError, SourceMap};
use crate::model::Model;
use crate::report::{Category, Finding, Report, Severity, SourceSpan, path};
use std::collections::{BTreeMap, BTreeSet};

/// What an importer returns for input it cannot read: one diagnostic, boxed (it carries the
/// file's text for its snippet).
pub type SourceResult<T> = Result<T, Box<SourceError>>;

/// One import in progress.
///
/// Findings and errors carry the format's name as their code prefix (`chrono.default`), a
/// span where the input has one, and the IR path of the item they concern.
///
/// ```
/// use mbconv_ir::format::{Source, kit::ImportSession};
/// use mbconv_ir::{Category, Model, Severity};
/// let source = Source::from_string("m.skel", "<skel>\n  <world/>\n</skel>");
/// let mut session = ImportSession::new("skel", &source);
/// let world = session.span(9, 8);
/// session.record("model", world.clone());
/// session.defaulted("simulation", Some(world.clone()), "DART's default gravity applies");
/// assert_eq!(session.unique_name("bodies", "link", "arm"), "link");
/// assert_eq!(session.unique_name("bodies", "link", "leg"), "leg/link");
/// let err = session.error("world", Some(world), "expected a <skeleton>");
/// assert_eq!(err.to_string(), "m.skel:2:3: expected a <skeleton>");
/// let imported = session.finish(Model::new("w"));
/// assert!(imported.report.contains("skel.default"));
/// assert_eq!(imported.report.renames.len(), 1);
/// ```
pub struct ImportSession<'s> {
    /// The text being read.
    pub source: &'s Source,
    /// Findings and renames so far.
    pub report: Report,
    /// Where each IR path came from.
    pub source_map: SourceMap,
    format: &'static str,
    /// Names taken, per IR list.
    names: BTreeMap<String, BTreeSet<String>>,
}

impl<'s> ImportSession<'s> {
    /// A new import of `source` by the format named `format` (the code prefix).
    pub fn new(format: &'static str, source: &'s Source) -> Self {
        Self {
            source,
            report: Report::for_file(&source.name),
            source_map: SourceMap::new(),
            format,
            names: BTreeMap::new(),
        }
    }

    /// The format name findings and errors are prefixed with.
    pub fn format(&self) -> &'static str {
        self.format
    }

    /// The span of `length` bytes at `offset` of the source.
    pub fn span(&self, offset: usize, length: usize) -> SourceSpan {
        self.source.span(offset, length)
    }

    /// Records where the item at `ir_path` came from.
    pub fn record(&mut self, ir_path: impl Into<String>, span: SourceSpan) {
        self.source_map.insert(ir_path.into(), span);
    }

    /// A finding with code `<format>.<code>` (a code that already has the prefix is kept).
    pub fn finding(
        &mut self,
        code: &str,
        severity: Severity,
        category: Category,
        ir_path: &str,
        span: Option<SourceSpan>,
        message: impl Into<String>,
    ) {
        let mut finding = Finding::new(self.code(code), severity, category, message).with_span(span);
        if !ir_path.is_empty() {
            finding = finding.at(ir_path);
        }
        self.report.push(finding);
    }

    /// An informational finding: the loader's default applied where the file says nothing.
    pub fn defaulted(&mut self, ir_path: &str, span: Option<SourceSpan>, message: impl Into<String>) {
        self.finding(
            "default",
            Severity::Info,
            Category::Defaulted,
            ir_path,
            span,
            message,
        );
    }

    /// An error at `span` with code `<format>.<code>`.
    pub fn error(
        &self,
        code: &str,
        span: Option<SourceSpan>,
        message: impl Into<String>,
    ) -> Box<SourceError> {
        Box::new(self.source.error(&self.code(code), span, message))
    }

    /// A unique name for `wanted` in the IR list `list`. A clash becomes `qualifier/wanted`,
    /// then `qualifier/wanted#2`, … and is recorded as a rename.
    pub fn unique_name(&mut self, list: &str, wanted: &str, qualifier: &str) -> String {
        let taken = self.names.entry(list.to_owned()).or_default();
        let name = qualified_unique_name(wanted, qualifier, |n| taken.contains(n));
        taken.insert(name.clone());
        if name != wanted {
            self.report
                .rename(item_noun(list), wanted, &name, path::item(list, &name));
        }
        name
    }

    /// Marks `name` as taken in `list` without checking it.
    pub fn take_name(&mut self, list: &str, name: &str) {
        self.names
            .entry(list.to_owned())
            .or_default()
            .insert(name.to_owned());
    }

    /// The finished import.
    pub fn finish(self, model: Model) -> Imported {
        Imported {
            model,
            report: self.report,
            source_map: self.source_map,
            source_map_file: None,
        }
    }

    fn code(&self, code: &str) -> String {
        if code.starts_with(self.format) && code[self.format.len()..].starts_with('.') {
            code.to_owned()
        } else {
            format!("{}.{code}", self.format)
        }
    }
}

/// The noun for one item of an IR list (`bodies` -> `body`, `joints` -> `joint`).
fn item_noun(list: &str) -> &str {
    match list {
        "bodies" => "body",
        "force_elements" => "force element",
        other => other.strip_suffix('s').unwrap_or(other),
    }
}

/// The name [`ImportSession::unique_name`] gives `wanted` when `taken` says which names are
/// in use: `wanted`, else `qualifier/wanted`, else `qualifier/wanted#2`, `#3`, … (a writer
/// that must foresee the names a reader will give uses the same rule).
///
/// ```
/// use mbconv_ir::format::kit::qualified_unique_name;
/// let taken = ["b.joint", "b/b.joint"];
/// assert_eq!(qualified_unique_name("b.joint", "b", |n| taken.contains(&n)), "b/b.joint#2");
/// assert_eq!(qualified_unique_name("c.joint", "c", |n| taken.contains(&n)), "c.joint");
/// ```
pub fn qualified_unique_name(wanted: &str, qualifier: &str, taken: impl Fn(&str) -> bool) -> String {
    if !taken(wanted) {
        return wanted.to_owned();
    }
    let mut name = format!("{qualifier}/{wanted}");
    let mut n = 2;
    while taken(&name) {
        name = format!("{qualifier}/{wanted}#{n}");
        n += 1;
    }
    name
}
