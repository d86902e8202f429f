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

/// How many lines of warnings the default output gives one model (its reading, validation
/// and writing together): with the `wrote` line and the check's, a conversion prints at most
/// ten lines. Errors are always printed; the warnings beyond are counted on the summary line.
pub const WARNING_LINES: usize = 8;

/// The findings of one model as the commands print them, report after report, within
/// [`WARNING_LINES`] by default.
#[derive(Clone, Debug)]
pub struct Printer {
    verbosity: Verbosity,
    left: usize,
    held: usize,
}

impl Printer {
    /// A printer for `verbosity`, with the whole budget of lines.
    pub fn new(verbosity: Verbosity) -> Self {
        Self {
            verbosity,
            left: WARNING_LINES,
            held: 0,
        }
    }
    /// A report's findings as [`format_report`] writes them, the default output's grouped
    /// warning lines within what is left of the budget.
    pub fn report(&mut self, report: &Report) -> String {
        let mut out = String::new();
        for (line, is_error) in report_lines(report, self.verbosity) {
            if is_error || self.verbosity != Verbosity::Grouped {
                out.push_str(&line);
            } else if self.left > 0 {
                self.left -= 1;
                out.push_str(&line);
            } else {
                self.held += 1;
            }
        }
        out
    }
    /// How many warning lines the budget left out.
    pub fn held(&self) -> usize {
        self.held
    }
}

/// A report's findings as [`print_report`] prints them: one line each,
/// `file:line:column: severity[code] path: message`, naming the file each belongs to (its own,
/// else the report's). By default ([`Verbosity::Grouped`]) the warnings of one code and file
/// make one line, `file: warning[code] N × feature dropped: message (path, …; -v lists them)`,
/// and notes are left out; codes repeated on the very same items share a line. With
/// [`Verbosity::Quiet`] only errors are printed.
pub fn format_report(report: &Report, verbosity: Verbosity) -> String {
    report_lines(report, verbosity)
        .into_iter()
        .map(|(line, _)| line)
        .collect()
}

/// The lines of [`format_report`], each with whether it is an error's.
fn report_lines(report: &Report, verbosity: Verbosity) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    let shown = |f: &&Finding| match verbosity {
        Verbosity::Quiet => f.severity >= Severity::Error,
        Verbosity::Grouped => f.severity >= Severity::Warning,
        Verbosity::Every => true,
    };
    let findings: Vec<&Finding> = report.findings.iter().filter(shown).collect();
    let is_error = |f: &Finding| f.severity >= Severity::Error;
    if verbosity != Verbosity::Grouped {
        for finding in findings {
            out.push((finding_line(report, finding), is_error(finding)));
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
        let error = is_error(line[0][0]);
        match line.as_slice() {
            [one] if one.len() == 1 => out.push((finding_line(report, one[0]), error)),
            groups => out.push((group_line(report, groups), error)),
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

/// How many characters of a message a grouped line gives before `…`.
const MESSAGE_SHOWN: usize = 200;

/// `message` cut to [`MESSAGE_SHOWN`] characters.
fn shortened(message: &str) -> String {
    match message.char_indices().nth(MESSAGE_SHOWN) {
        Some((end, _)) => format!("{}…", &message[..end]),
        None => message.to_owned(),
    }
}

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
            shortened(&lead.message)
        } else {
            format!("{} (and alike)", shortened(&lead.message))
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
    /// Lines of warnings the default output left out ([`Printer::held`]).
    pub held: usize,
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
        if self.held > 0 {
            parts.push(format!(
                "{} ({} more {} not shown)",
                plural(self.warnings, "warning"),
                self.held,
                if self.held == 1 { "line" } else { "lines" }
            ));
        } else {
            parts.push(plural(self.warnings, "warning"));
        }
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
pub fn reading_findings(loaded: &mbconv::Loaded, refused: bool, printer: &mut Printer) -> String {
    let reading = printer.report(&loaded.import_report());
    if refused && printer.verbosity.is_quiet() {
        return reading + &format_report(&loaded.validation, Verbosity::Grouped);
    }
    reading + &printer.report(&loaded.validation)
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
    let mut printer = Printer::new(verbosity);
    eprint!("{}", reading_findings(loaded, verdict.is_err(), &mut printer));
    if verbosity == Verbosity::Grouped && verdict.is_ok() {
        let mut tally = Tally::default();
        tally.add(&loaded.import_report());
        tally.add(&loaded.validation);
        tally.held = printer.held();
        if tally.held + tally.notes > 0 {
            eprintln!("{}: read with {}", loaded.source.name, tally.describe(verbosity));
        }
    }
    Ok(verdict?)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A report with one warning of each of `codes` codes, two of the first, and a note.
    fn report(codes: usize) -> Report {
        let mut report = Report::for_file("m.urdf");
        for i in 0..codes {
            let finding = Finding::new(format!("x.code{i}"), Severity::Warning, Category::Dropped, "lost");
            report.push(finding.clone().at(format!("bodies[\"b{i}\"]")));
            if i == 0 {
                report.push(finding.at("bodies[\"other\"]"));
            }
        }
        report.push(Finding::new("x.note", Severity::Info, Category::Note, "noted"));
        report
    }

    #[test]
    fn the_default_output_prints_at_most_its_budget_of_warning_lines_and_counts_the_rest() {
        let (reading, writing) = (report(5), report(6));
        let mut printer = Printer::new(Verbosity::Grouped);
        let text = printer.report(&reading) + &printer.report(&writing);
        assert_eq!(text.lines().count(), WARNING_LINES, "{text}");
        assert!(text.contains("x.code0] 2 × items dropped: lost"), "{text}");
        assert_eq!(printer.held(), 11 - WARNING_LINES);
        let mut tally = Tally::default();
        tally.add(&reading);
        tally.add(&writing);
        tally.held = printer.held();
        assert_eq!(
            tally.describe(Verbosity::Grouped),
            "13 warnings (3 more lines not shown), 2 notes (-v lists every finding)"
        );
        // -v prints every finding, the notes too; an error is printed past the budget.
        let mut every = Printer::new(Verbosity::Every);
        assert_eq!(every.report(&writing).lines().count(), 8);
        let mut invalid = report(0);
        invalid.push(Finding::new(
            "mass.negative",
            Severity::Error,
            Category::Invalid,
            "negative",
        ));
        assert_eq!(printer.report(&invalid).lines().count(), 1);
    }

    #[test]
    fn a_grouped_line_cuts_a_long_message() {
        let message = "é".repeat(MESSAGE_SHOWN + 10);
        let short = shortened(&message);
        assert_eq!(short.chars().count(), MESSAGE_SHOWN + 1);
        assert!(short.ends_with('…'));
        assert_eq!(shortened("short"), "short");
    }
}
