//! The facade's errors as the Python package's exceptions (`mbconv/_errors.py`): the class by
//! what failed, with the diagnostic's code, the file, line and column it points at, the
//! message, the diagnostic rendered as the CLI prints it, and the findings of an invalid
//! model's report.

use mbconv::LookupError;
use mbconv::batch::BatchError;
use miette::{Diagnostic, GraphicalReportHandler, GraphicalTheme, SourceSpan};
use pyo3::prelude::*;
use std::path::Path;

/// What was being done when the error came: a reader's diagnostic is a `ReadError`, a
/// writer's a `WriteError`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Reading (and validating) a model.
    Read,
    /// Lowering, emitting or writing a model.
    Write,
    /// Checking conversions.
    Check,
    /// Simulating.
    Simulate,
}

/// Where a diagnostic points: file, 1-based line and column.
#[derive(Default)]
struct Location {
    file: Option<String>,
    line: Option<usize>,
    column: Option<usize>,
}

/// The exception class (in `mbconv._errors`) for `error` met while doing `phase`.
fn class(error: &mbconv::Error, code: Option<&str>, phase: Phase) -> &'static str {
    use mbconv::Error;
    match error {
        Error::Io { writing: false, .. } | Error::Stdio { writing: false, .. } => "ReadError",
        Error::Io { .. } | Error::Stdio { .. } | Error::Create { .. } => "WriteError",
        Error::Exists { .. } | Error::OverwritesInput { .. } => "WriteError",
        Error::NoOutputFormat | Error::Lookup(_) => "FormatLookupError",
        Error::Dubious { .. } | Error::Lossy { .. } => "StrictError",
        Error::Invalid { .. } => "InvalidModelError",
        Error::Solver(_) => "SimulationError",
        Error::Batch(BatchError::Clash { .. } | BatchError::OutputFolder { .. }) => "WriteError",
        Error::Batch(_) => "ReadError",
        Error::Format(_) if code.is_some_and(|c| c.ends_with("_setting")) => "SettingError",
        Error::Format(_) if code == Some("mbconv::integrator") => "SettingError",
        Error::Format(_) => match phase {
            Phase::Read => "ReadError",
            Phase::Write => "WriteError",
            Phase::Check => "CheckError",
            Phase::Simulate => "SimulationError",
        },
    }
}

/// The first place `diagnostic` (or one of its related diagnostics) marks in its source.
fn located(diagnostic: &dyn Diagnostic) -> Location {
    let first = diagnostic
        .labels()
        .and_then(|mut labels| labels.next())
        .map(|label| *label.inner());
    if let (Some(span), Some(source)) = (first, diagnostic.source_code()) {
        return place(source, span);
    }
    diagnostic
        .related()
        .and_then(|mut related| related.find_map(|d| Some(located(d)).filter(|l| l.line.is_some())))
        .unwrap_or_default()
}

/// Line and column (1-based, in characters) of `span` in `source`, and the source's name.
fn place(source: &dyn miette::SourceCode, span: SourceSpan) -> Location {
    let before = SourceSpan::new(0.into(), span.offset());
    let Ok(contents) = source.read_span(&before, 0, 0) else {
        return Location::default();
    };
    let data = contents.data();
    let upto = &data[..span
        .offset()
        .saturating_sub(contents.span().offset())
        .min(data.len())];
    let text = String::from_utf8_lossy(upto);
    let line_start = text.rfind('\n').map_or(0, |i| i + 1);
    Location {
        file: contents.name().map(str::to_owned),
        line: Some(contents.line() + text.matches('\n').count() + 1),
        column: Some(text[line_start..].chars().count() + 1),
    }
}

/// The message in the words of the Python API: the facade's messages name the command's flags
/// (`--force`, `--strict`, `--to`, `-o`, `--recursive`), which mean nothing to a caller of
/// `mbconv.convert`; these name the keyword arguments instead. Every other message is the
/// facade's as it is.
fn python_message(error: &mbconv::Error) -> String {
    use mbconv::Error;
    match error {
        Error::Exists { path } => {
            format!("{} already exists; pass force=True to replace it", path.display())
        }
        Error::OverwritesInput { path } => format!(
            "refusing to overwrite the input {}; choose another output path",
            path.display()
        ),
        Error::NoOutputFormat => "cannot tell the output format: name it (to= for convert, \
             format= for Model.write) or give the output file a format's extension"
            .to_owned(),
        Error::Dubious { name, warnings } => {
            format!(
                "strict=True: {name} is physically dubious ({}); refused",
                mbconv::ir::report::counted(*warnings, "warning")
            )
        }
        Error::Lossy { losses } => {
            format!("strict=True: the conversion would lose or approximate {losses} item(s); nothing written")
        }
        Error::Batch(BatchError::NoModels {
            dir,
            recursive: false,
        }) => format!(
            "{} is a directory with no model file that a format of this build reads \
             (recursive=True descends into sub-directories)",
            dir.display()
        ),
        Error::Lookup(LookupError::Ambiguous { path, candidates }) => format!(
            "several formats write {path} ({candidates}); name one (to= for convert, format= \
             for Model.write)"
        ),
        Error::Lookup(LookupError::Undetected { path }) => format!(
            "cannot tell the format of {path}; name it (format= for read and Model.write, \
             from_format= or to= for convert)"
        ),
        other => other.to_string(),
    }
}

/// The diagnostic as the CLI prints it (without colour).
fn rendered(diagnostic: &dyn Diagnostic) -> String {
    let mut text = String::new();
    let handler = GraphicalReportHandler::new_themed(GraphicalTheme::unicode_nocolor());
    if handler.render_report(&mut text, diagnostic).is_err() {
        text = diagnostic.to_string();
    }
    text
}

/// The Python exception for `error`, met while doing `phase`.
pub fn raise(py: Python<'_>, error: mbconv::Error, phase: Phase) -> PyErr {
    raise_about(py, error, phase, None)
}

/// The Python exception for `error`, met while doing `phase` to the file `about` (a batch's
/// input): its `file` when the error names none.
pub fn raise_about(py: Python<'_>, error: mbconv::Error, phase: Phase, about: Option<&Path>) -> PyErr {
    let code = error.code().map(|c| c.to_string());
    let class_name = class(&error, code.as_deref(), phase);
    let mut location = match &error {
        mbconv::Error::Format(diagnostic) => located(diagnostic.as_ref()),
        _ => Location::default(),
    };
    let mut findings = None;
    match &error {
        mbconv::Error::Io { path, .. }
        | mbconv::Error::Create { path, .. }
        | mbconv::Error::Exists { path }
        | mbconv::Error::OverwritesInput { path }
        | mbconv::Error::Batch(
            BatchError::Clash { input: path, .. }
            | BatchError::OutputFolder { output: path, .. }
            | BatchError::NoModels { dir: path, .. }
            | BatchError::Listing { path, .. },
        ) => {
            location.file = Some(path.display().to_string());
        }
        mbconv::Error::Dubious { name, .. } => location.file = Some(name.clone()),
        mbconv::Error::Invalid { name, report } => {
            let mut report = report.clone();
            report.file.get_or_insert_with(|| name.clone());
            report.pin_file();
            let first = report.at_least(mbconv::Severity::Error).next();
            location.file = first.and_then(|f| f.file.clone()).or(Some(name.clone()));
            location.line = first.and_then(|f| f.span.as_ref()).map(|s| s.line);
            location.column = first.and_then(|f| f.span.as_ref()).map(|s| s.column);
            findings = serde_json::to_string(&report).ok();
        }
        _ => {}
    }
    if location.file.is_none() {
        location.file = about.map(|p| p.display().to_string());
    }
    let message = python_message(&error);
    let rendered = rendered(&error);
    let made = py.import("mbconv._errors").and_then(|module| {
        module.getattr(class_name)?.call1((
            message.clone(),
            code,
            location.file,
            location.line,
            location.column,
            rendered,
            findings,
        ))
    });
    match made {
        Ok(exception) => PyErr::from_value(exception),
        Err(e) => e,
    }
}
