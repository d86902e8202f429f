//! Printing diagnostics and conversion reports.

use mbconv::ir::{Category, Finding, Report, Severity};
use std::io::IsTerminal;

/// Sets miette's renderer: colours only on a terminal and without `NO_COLOR`.
pub fn install_miette_hook() {
    let colour = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let _ = miette::set_hook(Box::new(move |_| {
        let theme = if colour {
            miette::GraphicalTheme::unicode()
        } else {
            miette::GraphicalTheme::unicode_nocolor()
        };
        Box::new(miette::MietteHandlerOpts::new().graphical_theme(theme).build())
    }));
}

/// How much of a report the commands print.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verbosity {
    /// `--quiet`: errors only.
    Quiet,
    /// The default: errors one line each, warnings grouped by code (one line per code, with a
    /// count when it repeats), notes only counted.
    Grouped,
    /// `-v`: every finding, one line each.
    Every,
}

impl Verbosity {
    /// From the `--quiet` and `--verbose` flags (quiet wins).
    pub fn new(quiet: bool, verbose: bool) -> Self {
        match (quiet, verbose) {
            (true, _) => Self::Quiet,
            (false, true) => Self::Every,
            (false, false) => Self::Grouped,
        }
    }
    /// True for `--quiet`.
    pub fn is_quiet(self) -> bool {
        self == Self::Quiet
    }
}

/// Prints a report's findings to standard error as [`format_report`] writes them.
pub fn print_report(report: &Report, verbosity: Verbosity) {
    eprint!("{}", format_report(report, verbosity));
}

/// A report's findings as [`print_report`] prints them: one line each,
/// `file:line:column: severity[code] path: message`, naming the file each belongs to (its own,
/// else the report's). By default ([`Verbosity::Grouped`]) the warnings of one code and file
/// make one line, `file: warning[code] N × feature dropped: message (path, …; -v lists them)`,
/// and notes are left out; codes repeated on the very same items share a line. With
/// [`Verbosity::Quiet`] only errors are printed.
pub fn format_report(report: &Report, verbosity: Verbosity) -> String {
    let mut out = String::new();
    let shown = |f: &&Finding| match verbosity {
        Verbosity::Quiet => f.severity >= Severity::Error,
        Verbosity::Grouped => f.severity >= Severity::Warning,
        Verbosity::Every => true,
    };
    let findings: Vec<&Finding> = report.findings.iter().filter(shown).collect();
    if verbosity != Verbosity::Grouped {
        for finding in findings {
            out.push_str(&finding_line(report, finding));
        }
        return out;
    }
    // Groups in the order of their first finding; errors are never grouped.
    let mut groups: Vec<Vec<&Finding>> = Vec::new();
    for finding in findings {
        let group = groups.iter_mut().find(|g| {
            let first = g[0];
            finding.severity < Severity::Error
                && first.severity == finding.severity
                && first.code == finding.code
                && report.file_of(first) == report.file_of(finding)
        });
        match group {
            Some(group) => group.push(finding),
            None => groups.push(vec![finding]),
        }
    }
    // Repeated codes on the very same items (a joint's position and its velocity limits, a
    // shape and its mesh) share one line.
    let paths = |g: &[&Finding]| g.iter().map(|f| f.path.clone()).collect::<Vec<_>>();
    let mut lines: Vec<Vec<Vec<&Finding>>> = Vec::new();
    for group in groups {
        let joined = (group.len() > 1)
            .then(|| {
                lines.iter_mut().find(|line| {
                    let first = &line[0];
                    first.len() > 1
                        && first[0].severity == group[0].severity
                        && report.file_of(first[0]) == report.file_of(group[0])
                        && paths(first) == paths(&group)
                })
            })
            .flatten();
        match joined {
            Some(line) => line.push(group),
            None => lines.push(vec![group]),
        }
    }
    for line in lines {
        match line.as_slice() {
            [one] if one.len() == 1 => out.push_str(&finding_line(report, one[0])),
            groups => out.push_str(&group_line(report, groups)),
        }
    }
    out
}

/// `file:line:column: ` of a finding, or nothing when it names no file.
fn place(report: &Report, finding: &Finding, with_span: bool) -> String {
    let mut place = report.file_of(finding).unwrap_or_default().to_owned();
    if with_span && let Some(span) = &finding.span {
        place = format!("{place}:{}:{}", span.line, span.column);
    }
    if place.is_empty() {
        place
    } else {
        format!("{place}: ")
    }
}

fn finding_line(report: &Report, finding: &Finding) -> String {
    let path = finding
        .path
        .as_deref()
        .map(|p| format!(" {p}"))
        .unwrap_or_default();
    format!(
        "{}{}[{}]{path}: {}\n",
        place(report, finding, true),
        finding.severity,
        finding.code,
        finding.message
    )
}

/// How many paths a grouped line names before `… N more`.
const PATHS_SHOWN: usize = 3;

/// One line for several findings of one code, or of several codes on the same items: their
/// count, what they did to which feature (when a code's findings agree), the message (the
/// first one's when they differ) and the first paths.
fn group_line(report: &Report, groups: &[Vec<&Finding>]) -> String {
    let first = groups[0][0];
    let mut codes = Vec::new();
    let mut whats = Vec::new();
    for group in groups {
        let lead = group[0];
        let same = |f: fn(&Finding) -> String| group.iter().all(|g| f(g) == f(lead));
        let feature = lead.feature.filter(|_| same(|f| format!("{:?}", f.feature)));
        let category = same(|f| format!("{:?}", f.category)).then_some(lead.category);
        let what = match (feature, category) {
            (Some(feature), Some(category)) => format!("{} {}: ", feature.title(), category_word(category)),
            (Some(feature), None) => format!("{}: ", feature.title()),
            (None, Some(category)) if category.is_loss() => format!("items {}: ", category_word(category)),
            _ => String::new(),
        };
        let message = if same(|f| f.message.clone()) {
            lead.message.clone()
        } else {
            format!("{} (and alike)", lead.message)
        };
        codes.push(lead.code.as_str());
        whats.push(format!("{what}{message}"));
    }
    let paths: Vec<&str> = groups[0].iter().filter_map(|f| f.path.as_deref()).collect();
    let mut listed = paths
        .iter()
        .take(PATHS_SHOWN)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    if paths.len() > PATHS_SHOWN {
        listed.push_str(&format!(", … {} more", paths.len() - PATHS_SHOWN));
    }
    if !listed.is_empty() {
        listed.push_str("; ");
    }
    format!(
        "{}{}[{}] {} × {} ({listed}-v lists them)\n",
        place(report, first, false),
        first.severity,
        codes.join(", "),
        groups[0].len(),
        whats.join("; ")
    )
}

fn category_word(category: Category) -> &'static str {
    match category {
        Category::Dropped => "dropped",
        Category::Approximated => "approximated",
        Category::Renamed => "renamed",
        Category::Defaulted => "defaulted",
        Category::Ignored => "ignored",
        Category::Invalid => "invalid",
        Category::Note => "noted",
    }
}

/// Counts of a conversion's findings by severity, for its summary line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Errors.
    pub errors: usize,
    /// Warnings.
    pub warnings: usize,
    /// Notes (information).
    pub notes: usize,
}

impl Tally {
    /// Adds the findings of `report`.
    pub fn add(&mut self, report: &Report) {
        for f in &report.findings {
            match f.severity {
                Severity::Error => self.errors += 1,
                Severity::Warning => self.warnings += 1,
                Severity::Info => self.notes += 1,
            }
        }
    }
    /// `N warnings, M notes` (what there is), with a hint at `-v` when the default output
    /// left findings out or grouped them.
    pub fn describe(&self, verbosity: Verbosity) -> String {
        let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
        let mut parts = Vec::new();
        if self.errors > 0 {
            parts.push(plural(self.errors, "error"));
        }
        parts.push(plural(self.warnings, "warning"));
        parts.push(plural(self.notes, "note"));
        let mut text = parts.join(", ");
        if verbosity == Verbosity::Grouped && self.warnings + self.notes > 0 {
            text.push_str(" (-v lists every finding)");
        }
        text
    }
}

/// Where a command's messages go: straight to standard error, or into a buffer that a batch
/// prints once the file is done (so that parallel conversions do not interleave their lines).
pub struct Log {
    buffer: Option<String>,
}

impl Log {
    /// Messages go to standard error as they come.
    pub fn direct() -> Self {
        Self { buffer: None }
    }
    /// Messages are kept; [`Log::take`] returns them.
    pub fn buffered() -> Self {
        Self {
            buffer: Some(String::new()),
        }
    }
    /// Adds text (whole lines, each ending in a newline).
    pub fn write(&mut self, text: &str) {
        match &mut self.buffer {
            Some(buffer) => buffer.push_str(text),
            None => eprint!("{text}"),
        }
    }
    /// Adds one line.
    pub fn line(&mut self, line: impl AsRef<str>) {
        self.write(&format!("{}\n", line.as_ref()));
    }
    /// The kept messages (empty for a direct log).
    pub fn take(&mut self) -> String {
        self.buffer.as_mut().map(std::mem::take).unwrap_or_default()
    }
}

/// The findings of reading `loaded` as the commands print them: the reader's, then the
/// validation's, as `verbosity` says; a `refused` model's validation findings are printed even
/// with `--quiet`, since they say why.
pub fn reading_findings(loaded: &mbconv::Loaded, refused: bool, verbosity: Verbosity) -> String {
    let validation_verbosity = if refused && verbosity.is_quiet() {
        Verbosity::Grouped
    } else {
        verbosity
    };
    format_report(&loaded.import_report(), verbosity)
        + &format_report(&loaded.validation, validation_verbosity)
}

/// The policy every command applies to a model it reads (`docs/errors.md`,
/// [`mbconv::Loaded::admit`]): prints the reading's findings ([`reading_findings`]) and fails
/// with exit 2 when the model is invalid, or with exit 1 when it is physically dubious and
/// `strict` is set.
pub fn admit(
    loaded: &mbconv::Loaded,
    strict: bool,
    verbosity: Verbosity,
) -> Result<(), crate::failure::Failure> {
    let verdict = loaded.admit(strict);
    eprint!("{}", reading_findings(loaded, verdict.is_err(), verbosity));
    Ok(verdict?)
}
