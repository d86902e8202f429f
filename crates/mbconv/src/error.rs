//! What can go wrong.

use mbconv_ir::Report;
use mbconv_ir::format::{FormatError, LookupError};
use std::fmt;
use std::path::PathBuf;

/// Why a read, write, conversion, check or simulation failed. It is a [`miette::Diagnostic`]:
/// a reader's error keeps its code, source snippet and help.
///
/// ```
/// let err = mbconv::read("no/such/model.skel").unwrap_err();
/// assert!(matches!(err, mbconv::Error::Io { .. }));
/// assert!(err.to_string().starts_with("cannot read no/such/model.skel"));
/// ```
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file could not be read or written.
    #[error("cannot {} {}: {source}", if *.writing { "write" } else { "read" }, path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Reading (false) or writing (true).
        writing: bool,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
    /// No format answers to a name, an extension or a content.
    #[error(transparent)]
    Lookup(#[from] LookupError),
    /// A reader refused its input, a writer its model, or a setting is unknown or ill-typed.
    #[error("{0}")]
    Format(FormatError),
    /// The model breaks the rules of the IR (a negative mass, a joint to a body that does not
    /// exist, …); the report lists every error.
    #[error("{name} is not a valid model ({} errors){}", report.at_least(mbconv_ir::Severity::Error).count(), first_error(report))]
    Invalid {
        /// The input's name.
        name: String,
        /// What validation found.
        report: Report,
    },
    /// The simulation failed (diverged, or could not close a loop).
    #[error(transparent)]
    Solver(#[from] mbconv_solver::SolverError),
}

fn first_error(report: &Report) -> String {
    report
        .at_least(mbconv_ir::Severity::Error)
        .next()
        .map(|f| format!(": {}", f.message))
        .unwrap_or_default()
}

impl miette::Diagnostic for Error {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        match self {
            Self::Io { .. } => Some(Box::new("mbconv::io")),
            Self::Lookup(e) => e.code(),
            Self::Format(e) => e.code(),
            Self::Invalid { .. } => Some(Box::new("mbconv::invalid")),
            Self::Solver(e) => e.code(),
        }
    }
    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        match self {
            Self::Lookup(e) => e.help(),
            Self::Format(e) => e.help(),
            Self::Solver(e) => e.help(),
            _ => None,
        }
    }
    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        match self {
            Self::Format(e) => e.source_code(),
            _ => None,
        }
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        match self {
            Self::Format(e) => e.labels(),
            _ => None,
        }
    }
    fn related<'a>(&'a self) -> Option<Box<dyn Iterator<Item = &'a dyn miette::Diagnostic> + 'a>> {
        match self {
            Self::Format(e) => e.related(),
            _ => None,
        }
    }
}
