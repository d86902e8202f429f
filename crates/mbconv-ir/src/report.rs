//! The conversion report: what an import, export or validation found.
//!
//! Every importer and exporter returns its model or file together with a [`Report`]. Each
//! [`Finding`] has a stable code, a severity, a category saying what happened to the data
//! (dropped, approximated, …), a message, the IR path of the item and, for imports, the
//! source span it came from. `--strict` turns any loss into a failure.

use serde::{Deserialize, Serialize};
use std::fmt;

/// How serious a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// For information: a default was applied as the reference loader does.
    Info,
    /// Data was changed or lost, or looks wrong, but the result is usable.
    Warning,
    /// The model is invalid.
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

/// What happened to the data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    /// Not carried over: the target cannot say it.
    Dropped,
    /// Carried over with a change of meaning or precision.
    Approximated,
    /// A name was changed (collision or illegal characters).
    Renamed,
    /// A value the source did not give was filled in.
    Defaulted,
    /// Something the reference loader would ignore or treat specially.
    Ignored,
    /// The model breaks a rule of the IR.
    Invalid,
    /// Anything else worth knowing.
    Note,
}

impl Category {
    /// True for categories that mean information was lost or changed (`--strict` fails on them).
    pub fn is_loss(self) -> bool {
        matches!(
            self,
            Category::Dropped | Category::Approximated | Category::Ignored
        )
    }
}

/// A position in a source file. Lines and columns are 1-based; `offset` and `length` are bytes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceSpan {
    /// Byte offset of the first character.
    pub offset: usize,
    /// Length in bytes.
    pub length: usize,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
}

impl SourceSpan {
    /// The span of `length` bytes at `offset` in `text`, with line and column computed.
    ///
    /// ```
    /// let span = mbconv_ir::SourceSpan::locate("ab\ncd", 3, 1);
    /// assert_eq!((span.line, span.column), (2, 1));
    /// ```
    pub fn locate(text: &str, offset: usize, length: usize) -> Self {
        let offset = offset.min(text.len());
        let before = &text[..floor_char_boundary(text, offset)];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let column = before[line_start..].chars().count() + 1;
        Self {
            offset,
            length,
            line,
            column,
        }
    }

    /// The span at 1-based `line` and `column` of `text` (one character long).
    pub fn at_line_column(text: &str, line: usize, column: usize) -> Self {
        let mut offset = 0;
        for (i, l) in text.split_inclusive('\n').enumerate() {
            if i + 1 == line {
                let col_bytes: usize = l.chars().take(column.saturating_sub(1)).map(char::len_utf8).sum();
                offset += col_bytes;
                break;
            }
            offset += l.len();
        }
        let offset = offset.min(text.len());
        let length = text[offset..].chars().next().map_or(0, char::len_utf8);
        Self {
            offset,
            length,
            line: line.max(1),
            column: column.max(1),
        }
    }
}

fn floor_char_boundary(text: &str, mut i: usize) -> usize {
    while i > 0 && !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// One thing a conversion or validation found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    /// Stable identifier, `area.what` (e.g. `inertia.not_psd`, `export.dropped`).
    pub code: String,
    /// How serious it is.
    pub severity: Severity,
    /// What happened to the data.
    pub category: Category,
    /// Human-readable explanation.
    pub message: String,
    /// IR path of the item, e.g. `bodies["link 1"].inertial`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Where in the source file, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span: Option<SourceSpan>,
    /// The file the span refers to when it is not the report's own [`Report::file`] (a Chrono
    /// simulation file and the model file it names are read as one input).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The feature row of the format's table this finding reports on (lowering findings).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feature: Option<crate::format::support::Feature>,
    /// The lowering pass that made the change (lowering findings).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pass: Option<String>,
}

impl Finding {
    /// A finding without path or span.
    pub fn new(
        code: impl Into<String>,
        severity: Severity,
        category: Category,
        message: impl Into<String>,
    ) -> Self {
        Self {
            code: code.into(),
            severity,
            category,
            message: message.into(),
            path: None,
            span: None,
            file: None,
            feature: None,
            pass: None,
        }
    }
    /// Sets the IR path.
    pub fn at(mut self, path: impl Into<String>) -> Self {
        self.path = Some(path.into());
        self
    }
    /// Sets the source span.
    pub fn with_span(mut self, span: Option<SourceSpan>) -> Self {
        self.span = span;
        self
    }
    /// Tags the finding with the feature row it reports on.
    ///
    /// ```
    /// use mbconv_ir::format::support::Feature;
    /// use mbconv_ir::{Category, Finding, Severity};
    /// let f = Finding::new("chrono.joint_damping_lost", Severity::Warning, Category::Dropped, "no damper")
    ///     .for_feature(Feature::JointDamping);
    /// assert!(f.can_change_motion());
    /// ```
    pub fn for_feature(mut self, feature: crate::format::support::Feature) -> Self {
        self.feature = Some(feature);
        self
    }
    /// Whether this finding records a loss or approximation that can change how a body moves
    /// in mbconv's solver: a loss category on a feature that [moves
    /// bodies](crate::format::support::Feature::moves_bodies). A finding with no feature
    /// cannot explain a difference of motion.
    ///
    /// ```
    /// use mbconv_ir::format::support::Feature;
    /// use mbconv_ir::{Category, Finding, Severity};
    /// let group = Finding::new("chrono.group_lost", Severity::Warning, Category::Dropped, "no groups")
    ///     .for_feature(Feature::Groups);
    /// assert!(!group.can_change_motion());
    /// let untagged = Finding::new("x.y", Severity::Warning, Category::Dropped, "?");
    /// assert!(!untagged.can_change_motion());
    /// ```
    pub fn can_change_motion(&self) -> bool {
        self.category.is_loss() && self.feature.is_some_and(|f| f.moves_bodies())
    }
    /// Sets the file the span refers to (when it is not the report's file).
    ///
    /// ```
    /// use mbconv_ir::{Category, Finding, Report, Severity};
    /// let mut report = Report::for_file("sim.yaml");
    /// report.push(Finding::new("c", Severity::Warning, Category::Note, "m").in_file("model.yaml"));
    /// assert_eq!(report.file_of(&report.findings[0]), Some("model.yaml"));
    /// ```
    pub fn in_file(mut self, file: impl Into<String>) -> Self {
        self.file = Some(file.into());
        self
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} [{}]", self.severity, self.code)?;
        if let Some(path) = &self.path {
            write!(f, " {path}")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// A renamed item, so that tools can match items across a conversion.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rename {
    /// `body`, `joint`, …
    pub item: String,
    /// Name in the source.
    pub from: String,
    /// Name in the result.
    pub to: String,
}

/// Findings of one import, export or validation, with the file they refer to.
///
/// ```
/// use mbconv_ir::{Category, Finding, Report, Severity};
/// let mut report = Report::for_file("robot.skel");
/// report.push(Finding::new("export.dropped", Severity::Warning, Category::Dropped, "joint limits"));
/// assert!(report.has_loss());
/// assert!(!report.has_errors());
/// ```
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
pub struct Report {
    /// The file the spans refer to, as given on the command line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The findings, in the order they were made.
    pub findings: Vec<Finding>,
    /// Renamed items.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub renames: Vec<Rename>,
}

impl Report {
    /// An empty report about `file`.
    pub fn for_file(file: impl Into<String>) -> Self {
        Self {
            file: Some(file.into()),
            ..Self::default()
        }
    }
    /// Adds a finding.
    pub fn push(&mut self, finding: Finding) {
        self.findings.push(finding);
    }
    /// Adds a finding from its parts.
    pub fn add(
        &mut self,
        code: &str,
        severity: Severity,
        category: Category,
        path: impl Into<String>,
        message: impl Into<String>,
    ) {
        self.push(Finding::new(code, severity, category, message).at(path));
    }
    /// Records a rename and the finding that explains it.
    pub fn rename(&mut self, item: &str, from: &str, to: &str, path: impl Into<String>) {
        self.renames.push(Rename {
            item: item.to_owned(),
            from: from.to_owned(),
            to: to.to_owned(),
        });
        self.push(
            Finding::new(
                "name.renamed",
                Severity::Warning,
                Category::Renamed,
                format!("{item} {from:?} renamed to {to:?}"),
            )
            .at(path),
        );
    }
    /// Appends another report's findings and renames.
    pub fn extend(&mut self, other: Report) {
        self.findings.extend(other.findings);
        self.renames.extend(other.renames);
    }
    /// True if any finding is an error.
    pub fn has_errors(&self) -> bool {
        self.findings.iter().any(|f| f.severity == Severity::Error)
    }
    /// True if any finding records a loss (`--strict` fails on these).
    pub fn has_loss(&self) -> bool {
        self.findings.iter().any(|f| f.category.is_loss())
    }
    /// Findings with at least `severity`.
    pub fn at_least(&self, severity: Severity) -> impl Iterator<Item = &Finding> {
        self.findings.iter().filter(move |f| f.severity >= severity)
    }
    /// True when a finding with `code` exists.
    pub fn contains(&self, code: &str) -> bool {
        self.findings.iter().any(|f| f.code == code)
    }
    /// The file `finding`'s span refers to: its own file, else the report's.
    pub fn file_of<'a>(&'a self, finding: &'a Finding) -> Option<&'a str> {
        finding.file.as_deref().or(self.file.as_deref())
    }
    /// Names `file` on every finding that names none yet, so that the findings keep their file
    /// when merged into a report about another file.
    ///
    /// ```
    /// use mbconv_ir::{Category, Finding, Report, Severity};
    /// let mut model = Report::for_file("model.yaml");
    /// model.push(Finding::new("c", Severity::Warning, Category::Note, "m"));
    /// model.pin_file();
    /// let mut sim = Report::for_file("sim.yaml");
    /// sim.extend(model);
    /// assert_eq!(sim.file_of(&sim.findings[0]), Some("model.yaml"));
    /// ```
    pub fn pin_file(&mut self) {
        if let Some(file) = &self.file {
            for f in self.findings.iter_mut().filter(|f| f.file.is_none()) {
                f.file = Some(file.clone());
            }
        }
    }
}

/// A number as messages print it: plain notation between 1e-4 and 1e7, else scientific, with
/// the shortest digits that read back as the same `f64` (`-2.2204460492503132e-17`, not 35
/// digits of zeros).
///
/// ```
/// use mbconv_ir::report::number;
/// assert_eq!(number(0.3), "0.3");
/// assert_eq!(number(-2.2204460492503132e-17), "-2.2204460492503132e-17");
/// assert_eq!(number(0.0), "0");
/// assert_eq!(number(1.5e9), "1.5e9");
/// assert_eq!(number(f64::NAN), "NaN");
/// ```
pub fn number(x: f64) -> String {
    let magnitude = x.abs();
    if x == 0.0 || !x.is_finite() || (1e-4..1e7).contains(&magnitude) {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

/// Numbers as a list, `[a, b, c]`, each formatted by [`number`].
///
/// ```
/// assert_eq!(mbconv_ir::report::numbers(&[1.0, -1e-20]), "[1, -1e-20]");
/// ```
pub fn numbers(xs: &[f64]) -> String {
    let items: Vec<String> = xs.iter().map(|&x| number(x)).collect();
    format!("[{}]", items.join(", "))
}

/// Builds IR paths such as `bodies["link 1"].shapes[2]`.
///
/// ```
/// use mbconv_ir::report::path;
/// assert_eq!(path::item("bodies", "link 1"), r#"bodies["link 1"]"#);
/// assert_eq!(path::field(&path::item("joints", "j"), "q0"), r#"joints["j"].q0"#);
/// ```
pub mod path {
    /// A named item of a top-level list.
    pub fn item(list: &str, name: &str) -> String {
        format!("{list}[{name:?}]")
    }
    /// A field of an item.
    pub fn field(base: &str, field: &str) -> String {
        format!("{base}.{field}")
    }
    /// An element of a list field by index.
    pub fn index(base: &str, field: &str, i: usize) -> String {
        format!("{base}.{field}[{i}]")
    }
}

/// `count` and `noun`, the noun in the plural unless the count is one: the counts of
/// findings that messages give ("1 error", "3 warnings").
///
/// ```
/// use mbconv_ir::report::counted;
/// assert_eq!(counted(1, "error"), "1 error");
/// assert_eq!(counted(0, "warning"), "0 warnings");
/// assert_eq!(counted(3, "warning"), "3 warnings");
/// ```
pub fn counted(count: usize, noun: &str) -> String {
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
    }
}
