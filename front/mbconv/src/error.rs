//! What can go wrong.

use mbconv_ir::Report;
use mbconv_ir::format::{FormatError, LookupError};
use mbconv_ir::report::counted;
use std::fmt;
use std::path::PathBuf;

/// Why a read, write, conversion, check or simulation failed. It is a [`miette::Diagnostic`]:
/// a reader's error keeps its code, source snippet and help. The messages name the `mbconv`
/// command's flags (`--force`, `--strict`, `-o`), the words its users see.
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
    /// Standard input could not be read, or standard output written.
    #[error("cannot {}: {source}", if *.writing { "write to standard output" } else { "read standard input" })]
    Stdio {
        /// Writing (true) or reading (false).
        writing: bool,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
    /// The temporary file of an atomic write could not be created (a missing or read-only
    /// directory).
    // The message names the file asked for; the temporary file (named after the process and
    // thread) is an implementation detail a user cannot act on, kept in `temporary`.
    #[error("cannot write {}: {source}", path.display())]
    Create {
        /// The file being written.
        path: PathBuf,
        /// Its temporary file, beside it.
        temporary: PathBuf,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
    /// An output file exists and the write was not forced; it is untouched.
    #[error("{} already exists; pass --force to replace it", path.display())]
    Exists {
        /// The file.
        path: PathBuf,
    },
    /// An output names the input file.
    #[error("refusing to overwrite the input {}; choose another output with -o", path.display())]
    OverwritesInput {
        /// The input.
        path: PathBuf,
    },
    /// Neither a format name nor an output file name says what to write.
    #[error("cannot tell the output format: pass --to FORMAT or an output file name with -o")]
    NoOutputFormat,
    /// A strict conversion refused a model that is physically dubious (validation warnings).
    #[error("--strict: {name} is physically dubious ({}); refused", counted(*.warnings, "warning"))]
    Dubious {
        /// The input's name.
        name: String,
        /// How many warnings validation found.
        warnings: usize,
    },
    /// A strict conversion would drop or approximate something; nothing was written.
    #[error("--strict: the conversion would lose or approximate {losses} item(s); nothing written")]
    Lossy {
        /// How many findings record a loss.
        losses: usize,
    },
    /// No format answers to a name, an extension or a content.
    #[error(transparent)]
    Lookup(#[from] LookupError),
    /// A reader refused its input, a writer its model, or a setting is unknown or ill-typed.
    #[error("{0}")]
    Format(FormatError),
    /// The model breaks the rules of the IR (a negative mass, a joint to a body that does not
    /// exist, …); the report lists every error.
    #[error("{name} is not a valid model ({}){}", counted(report.at_least(mbconv_ir::Severity::Error).count(), "error"), first_error(report))]
    Invalid {
        /// The input's name.
        name: String,
        /// What validation found.
        report: Report,
    },
    /// The simulation failed (diverged, or could not close a loop).
    #[error(transparent)]
    Solver(#[from] mbconv_solver::SolverError),
    /// A batch could not be planned, or one of its files not be started
    /// ([`crate::batch`]).
    #[error(transparent)]
    Batch(#[from] crate::batch::BatchError),
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
            Self::Stdio { .. } | Self::Create { .. } => Some(Box::new("mbconv::io")),
            Self::Exists { .. } | Self::OverwritesInput { .. } => Some(Box::new("mbconv::output")),
            Self::NoOutputFormat => Some(Box::new("mbconv::no_output_format")),
            Self::Dubious { .. } | Self::Lossy { .. } => Some(Box::new("mbconv::strict")),
            Self::Solver(e) => e.code(),
            Self::Batch(_) => Some(Box::new("mbconv::batch")),
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
