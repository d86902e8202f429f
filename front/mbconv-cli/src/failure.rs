//! How a command fails: an exit code and a diagnostic to print.

/// Exit code for a failed check: `--strict` found a loss, a difference no reported loss
/// explains (`unexplained`), a file of a batch failed.
pub const CHECK_FAILED: u8 = 1;
/// Exit code for bad input or usage.
pub const BAD_INPUT: u8 = 2;
/// Exit code for a proof that could not be completed (verdict `failed`: a step of the check
/// errored, e.g. the read-back model could not be simulated); the files were written.
pub const PROOF_FAILED: u8 = 3;

/// A failed command.
pub struct Failure {
    code: u8,
    report: Option<miette::Report>,
}

impl Failure {
    /// Bad input or usage, with a diagnostic.
    pub fn bad_input(report: impl Into<miette::Report>) -> Self {
        Self {
            code: BAD_INPUT,
            report: Some(report.into()),
        }
    }
    /// A failed check; the details were already printed.
    pub fn check_failed(message: impl Into<String>) -> Self {
        Self {
            code: CHECK_FAILED,
            report: Some(miette::miette!("{}", message.into())),
        }
    }
    /// A proof that could not be completed (verdict `failed`).
    pub fn proof_failed(message: impl Into<String>) -> Self {
        Self {
            code: PROOF_FAILED,
            report: Some(miette::miette!("{}", message.into())),
        }
    }
    /// The same failure with its diagnostic already printed (only the exit code remains).
    pub fn reported(self) -> Self {
        Self {
            code: self.code,
            report: None,
        }
    }
    /// The diagnostic as text (empty when it was already printed).
    pub fn message(&self) -> String {
        self.report.as_ref().map(|r| format!("{r:?}")).unwrap_or_default()
    }
    /// Prints the diagnostic and returns the exit code.
    pub fn report(self) -> u8 {
        if let Some(report) = self.report {
            eprintln!("{report:?}");
        }
        self.code
    }
}

impl From<anyhow::Error> for Failure {
    fn from(e: anyhow::Error) -> Self {
        Self::bad_input(miette::miette!("{e:#}"))
    }
}

/// The facade's errors as the command prints them: a reader's, writer's or setting's
/// diagnostic with its code and snippet; a `--strict` refusal as a failed check (exit 1); an
/// invalid model by its count of errors (its findings were printed before); everything else as
/// its message alone.
impl From<mbconv::Error> for Failure {
    fn from(e: mbconv::Error) -> Self {
        use mbconv::Error;
        match e {
            Error::Lookup(e) => Self::bad_input(e),
            Error::Format(e) => Self::bad_input(miette::Report::new_boxed(e)),
            Error::Solver(e) => Self::bad_input(miette::Report::new(e)),
            Error::Invalid { name, report } => Self::bad_input(miette::miette!(
                "{name} is not a valid model ({})",
                mbconv::ir::report::counted(report.at_least(mbconv::Severity::Error).count(), "error")
            )),
            e @ (Error::Dubious { .. } | Error::Lossy { .. }) => Self::check_failed(e.to_string()),
            e => Self::bad_input(miette::miette!("{e}")),
        }
    }
}

impl From<mbconv::ir::format::LookupError> for Failure {
    fn from(e: mbconv::ir::format::LookupError) -> Self {
        Self::bad_input(e)
    }
}
