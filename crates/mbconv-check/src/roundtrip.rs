//! Lower, emit and read back a model through one format, with the emitted files on disk so
//! that companions (a Chrono simulation file naming its model file) are read as a user would.

use mbconv_ir::Model;
use mbconv_ir::format::{Exported, Format, FormatError, Imported, Lowered, Options, Registry, Source};
use std::path::Path;

/// Which step of a check went wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Lowering the model for the target format.
    Lower,
    /// Emitting the lowered model.
    Emit,
    /// Writing the emitted files to a temporary directory.
    WriteFiles,
    /// Reading the emitted files back.
    ReadBack,
    /// Simulating the original model (A).
    SimulateOriginal,
    /// Simulating the lowered model (L).
    SimulateLowered,
    /// Simulating the read-back model (B).
    SimulateReadBack,
}

impl Step {
    /// A few words naming the step, for messages.
    pub fn describe(self) -> &'static str {
        match self {
            Step::Lower => "lowering",
            Step::Emit => "emitting",
            Step::WriteFiles => "writing the emitted files",
            Step::ReadBack => "reading the emitted file back",
            Step::SimulateOriginal => "simulating the original",
            Step::SimulateLowered => "simulating the lowered model",
            Step::SimulateReadBack => "simulating the read-back model",
        }
    }
}

/// A step that errored, with the error's text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic)]
#[error("{} failed: {message}", step.describe())]
#[diagnostic(code(check::step_failed))]
pub struct StepError {
    /// The step.
    pub step: Step,
    /// What the step reported.
    pub message: String,
    /// True when the step was a simulation that diverged (the state stopped being finite).
    pub diverged: bool,
    /// True when the step was a simulation that ran past its step budget (a stiff model for
    /// the accurate explicit integrator).
    pub out_of_steps: bool,
    /// True when the step was an error-controlled simulation whose joint stops chattered
    /// ([`mbconv_solver::SolverError::stops_chatter`]).
    pub stops_chatter: bool,
}

impl StepError {
    /// A step's error, keeping its whole text (a diagnostic's `Display` names file, line and
    /// column).
    pub fn new(step: Step, message: impl std::fmt::Display) -> Self {
        Self {
            step,
            message: message.to_string(),
            diverged: false,
            out_of_steps: false,
            stops_chatter: false,
        }
    }

    /// A simulation step's error; remembers whether the simulation diverged.
    pub fn simulation(step: Step, error: &mbconv_solver::SolverError) -> Self {
        Self {
            diverged: matches!(error, mbconv_solver::SolverError::Diverged { .. }),
            out_of_steps: matches!(error, mbconv_solver::SolverError::StepBudget { .. }),
            stops_chatter: error.stops_chatter(),
            ..Self::new(step, error)
        }
    }
}

fn format_error(step: Step, e: FormatError) -> StepError {
    StepError::new(step, e)
}

/// What one pass through a format gave.
#[derive(Debug)]
pub struct RoundTrip {
    /// The lowered model and lower's findings.
    pub lowered: Lowered,
    /// The emitted text, companions and emit's findings.
    pub exported: Exported,
    /// The model read back from the emitted files.
    pub read_back: Imported,
    /// The write settings the model was lowered and emitted with (the check's replay lowers
    /// with the same).
    pub options: Options,
}

/// Lowers `model` for `format`, emits it, writes the files into a temporary directory and
/// reads the entry file back through the registry. With `to_file`, the writer is told the
/// output path (`model.EXT` in that directory), as when a conversion writes a file; without,
/// it writes as to standard output.
pub fn round_trip(
    registry: &Registry,
    format: &dyn Format,
    model: &Model,
    write_options: &Options,
    to_file: bool,
) -> Result<RoundTrip, StepError> {
    let dir = tempfile::Builder::new()
        .prefix("mbconv-check-")
        .tempdir()
        .map_err(|e| StepError::new(Step::WriteFiles, e))?;
    let extension = format.info().extensions.first().copied().unwrap_or("txt");
    let main_path = dir.path().join(format!("model.{extension}"));
    let mut options = write_options.clone();
    options.output_path = to_file.then(|| main_path.clone());
    let lowered = registry
        .lower(format, model, &options)
        .map_err(|e| format_error(Step::Lower, e))?;
    let exported = registry
        .emit(format, &lowered.model, &options)
        .map_err(|e| format_error(Step::Emit, e))?;
    write(&main_path, &exported.text)?;
    for companion in &exported.companions {
        write(&dir.path().join(&companion.file_name), &companion.text)?;
    }
    // The meshes the writer copied or converted, where the written text names them.
    for asset in &lowered.assets {
        asset
            .write_into(dir.path())
            .map_err(|e| StepError::new(Step::WriteFiles, format!("{}: {e}", asset.file_name)))?;
    }
    let entry = match &exported.entry {
        Some(name) => dir.path().join(name),
        None => main_path,
    };
    // Messages name the emitted files as `<emitted>/…`, not by their temporary directory, so
    // that the same check gives the same text every time.
    let hide_dir = |e: &dyn std::fmt::Display| {
        let text = e.to_string();
        StepError::new(
            Step::ReadBack,
            text.replace(&*dir.path().to_string_lossy(), "<emitted>"),
        )
    };
    let source = Source::from_path(&entry).map_err(|e| hide_dir(&e))?;
    let read_back = registry
        .read(
            format,
            &source,
            &format.read_back_options(
                &write_options.without(mbconv_ir::format::SHARED_WRITE_SETTINGS),
                &exported,
            ),
        )
        .map_err(|e| hide_dir(&e))?;
    Ok(RoundTrip {
        lowered,
        exported,
        read_back,
        options,
    })
}

fn write(path: &Path, text: &str) -> Result<(), StepError> {
    std::fs::write(path, text)
        .map_err(|e| StepError::new(Step::WriteFiles, format!("{}: {e}", path.display())))
}
