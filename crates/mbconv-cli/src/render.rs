//! Printing diagnostics and conversion reports.

use mbconv_ir::{Report, Severity};
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
    for finding in &report.findings {
        if quiet && finding.severity < Severity::Error {
            continue;
        }
        let mut place = report.file.clone().unwrap_or_default();
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
        eprintln!(
            "{lead}{}[{}]{path}: {}",
            finding.severity, finding.code, finding.message
        );
    }
}
