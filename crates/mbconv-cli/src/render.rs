//! Printing diagnostics and conversion reports.

use mbconv::ir::{Report, Severity};
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

/// Prints a report's findings to standard error, one per line:
/// `file:line:column: severity[code] path: message`. With `quiet`, only errors.
pub fn print_report(report: &Report, quiet: bool) {
    eprint!("{}", format_report(report, quiet));
}

/// A report's findings as [`print_report`] prints them, one line each. Each finding names the
/// file its line belongs to (its own, else the report's).
pub fn format_report(report: &Report, quiet: bool) -> String {
    let mut out = String::new();
    for finding in &report.findings {
        if quiet && finding.severity < Severity::Error {
            continue;
        }
        let mut place = report.file_of(finding).unwrap_or_default().to_owned();
        if let Some(span) = &finding.span {
            place = format!("{place}:{}:{}", span.line, span.column);
        }
        let path = finding
            .path
            .as_deref()
            .map(|p| format!(" {p}"))
            .unwrap_or_default();
        let lead = if place.is_empty() {
            String::new()
        } else {
            format!("{place}: ")
        };
        out.push_str(&format!(
            "{lead}{}[{}]{path}: {}\n",
            finding.severity, finding.code, finding.message
        ));
    }
    out
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
