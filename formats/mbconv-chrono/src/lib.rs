//! Chrono YAML multibody models (`chrono-version` + `model:`, as read by Project Chrono's
//! `ChParserMbsYAML`) to and from the mbconv IR, plus Chrono simulation files (`type: MBS`) for
//! gravity and time step.
//!
//! The reader follows what Chrono's parser does where it differs from the published
//! specification (product-of-inertia order `[Ixy, Ixz, Iyz]`, `physical_properties.Young_modulus`,
//! SINE phase in degrees, …) and reports every key Chrono ignores. The writer produces files
//! Chrono accepts, deterministically, and reports what the IR holds that Chrono YAML cannot say.
//! This crate is **not** a Chrono simulation front end: FEA sections, vehicle files and
//! solver settings beyond the time step are kept verbatim or reported, not interpreted.
//!
//! ```
//! use mbconv_ir::format::{Format, Options, Source};
//! let text = "chrono-version: 10.0\nmodel:\n  bodies:\n    - name: ground\n      location: [0, 0, 0]\n      fixed: true\n";
//! let imported = mbconv_chrono::ChronoFormat.read(&Source::from_string("m.yaml", text), &Options::default()).unwrap();
//! assert_eq!(imported.model.bodies.len(), 1);
//! let written = mbconv_chrono::ChronoFormat.write(&imported.model, &Options::default()).unwrap();
//! assert!(written.text.contains("location: [0, 0, 0]"));
//! ```

pub mod convert;
pub mod emit;
pub mod export;
pub mod import;
pub mod raw;
pub mod sim;

use mbconv_ir::format::{
    Exported, Format, FormatError, FormatInfo, Imported, Lowered, Options, SettingKind, SettingSpec, Source,
};
use mbconv_ir::{Category, Finding, Model, Severity};
use std::path::Path;

/// Chrono YAML models: the [`Format`] the CLI registers.
pub struct ChronoFormat;

const INFO: FormatInfo = FormatInfo {
    name: "chrono",
    aliases: &["yaml", "chrono-yaml"],
    extensions: &["yaml", "yml"],
    description: "Project Chrono YAML multibody models (chrono-version 10.0)",
};

/// A bad format option.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error("invalid chrono option {key}={value:?}: expected {expected}")]
#[diagnostic(code(chrono::option))]
pub struct OptionError {
    /// The option key.
    pub key: String,
    /// The value given.
    pub value: String,
    /// What is accepted.
    pub expected: &'static str,
}

/// The settings [`ChronoFormat`] reads with.
pub const READ_SETTINGS: &[SettingSpec] = &[
    SettingSpec {
        name: "sim",
        kind: SettingKind::Path,
        default: "none",
        help: "take gravity and time step from this Chrono simulation file (`--chrono-sim`)",
    },
    SettingSpec {
        name: "lenient",
        kind: SettingKind::Flag,
        default: "false",
        help: "Chrono's fallbacks for unknown enum values (joint type -> LOCK, unknown shapes dropped) instead of errors",
    },
];

/// The settings [`ChronoFormat`] writes with.
pub const WRITE_SETTINGS: &[SettingSpec] = &[
    SettingSpec {
        name: "angles",
        kind: SettingKind::Choice(&["degrees", "radians"]),
        default: "as read, else degrees",
        help: "the unit of the angles written (`angle_degrees`)",
    },
    SettingSpec {
        name: "sim-out",
        kind: SettingKind::Text,
        default: "none",
        help: "also write a simulation file of this name (and its solver file) beside the model (`--chrono-sim-out`)",
    },
];

impl Format for ChronoFormat {
    fn info(&self) -> &FormatInfo {
        &INFO
    }

    fn read_settings(&self) -> &'static [SettingSpec] {
        READ_SETTINGS
    }

    fn write_settings(&self) -> &'static [SettingSpec] {
        WRITE_SETTINGS
    }

    fn sniff(&self, text: &str) -> bool {
        text.lines()
            .any(|l| l.starts_with("chrono-version:") || l.starts_with("model:"))
    }

    /// Reads a model file, or a simulation file and the model it names. Options:
    /// `sim=FILE` (take gravity and time step from a simulation file), `lenient=true`
    /// (Chrono's fallbacks for unknown enum values instead of errors).
    fn read(&self, source: &Source, options: &Options) -> Result<Imported, FormatError> {
        let lenient = match options.get("lenient") {
            None | Some("false") => false,
            Some("true") => true,
            Some(v) => return Err(option_error("lenient", v, "true or false")),
        };
        let import_options = import::ImportOptions { lenient };
        let root = raw::parse(source).map_err(diagnostic)?;
        if sim::is_simulation(&root) {
            let mut report = mbconv_ir::Report::for_file(&source.name);
            let simfile = sim::read(source, &root, &mut report).map_err(diagnostic)?;
            let model_path = simfile.model.clone().unwrap_or_default();
            let model_source = Source::from_path(&model_path).map_err(|e| {
                let node = root.get("model").unwrap_or(&root);
                Box::new(source.error(
                    "chrono.model_file",
                    Some(node.span(source)),
                    format!("cannot read the model file {}: {e}", model_path.display()),
                )) as FormatError
            })?;
            let model_root = raw::parse(&model_source).map_err(diagnostic)?;
            let mut imported =
                import::import(&model_source, &model_root, &import_options).map_err(diagnostic)?;
            imported.model.simulation = simfile.simulation;
            report.extend(imported.report);
            imported.report = report;
            return Ok(imported);
        }
        let mut imported = import::import(source, &root, &import_options).map_err(diagnostic)?;
        if let Some(sim_path) = options.get("sim") {
            let sim_source = Source::from_path(Path::new(sim_path)).map_err(|e| {
                Box::new(Source::from_string(sim_path, "").error(
                    "chrono.sim_file",
                    None,
                    format!("cannot read the simulation file: {e}"),
                )) as FormatError
            })?;
            let sim_root = raw::parse(&sim_source).map_err(diagnostic)?;
            let simfile = sim::read(&sim_source, &sim_root, &mut imported.report).map_err(diagnostic)?;
            imported.model.simulation = simfile.simulation;
        }
        Ok(imported)
    }

    /// Writes a model. Options: `angles=degrees|radians` (default: as read, else degrees),
    /// `sim-out=FILE` (also write a simulation file and its solver file as companions).
    fn lower(&self, model: &Model, _options: &Options) -> Result<Lowered, FormatError> {
        Ok(Lowered {
            model: model.clone(),
            report: mbconv_ir::Report::default(),
        })
    }

    fn emit(&self, model: &Model, options: &Options) -> Result<Exported, FormatError> {
        let degrees = match options.get("angles") {
            None => None,
            Some(v) if v.eq_ignore_ascii_case("degrees") => Some(true),
            Some(v) if v.eq_ignore_ascii_case("radians") => Some(false),
            Some(v) => return Err(option_error("angles", v, "degrees or radians")),
        };
        let (text, mut report) = export::export(model, &export::ExportOptions { degrees });
        let mut companions = Vec::new();
        match options.get("sim-out") {
            Some(sim_name) => {
                let model_file = options
                    .output_path
                    .as_deref()
                    .and_then(Path::file_name)
                    .and_then(|f| f.to_str())
                    .unwrap_or("model.yaml");
                companions = sim::write(model, model_file, sim_name);
            }
            None => {
                let s = &model.simulation;
                if s.gravity.is_some() || s.time_step.is_some() || s.end_time.is_some() {
                    report.push(
                        Finding::new(
                            "chrono.export",
                            Severity::Warning,
                            Category::Dropped,
                            "gravity, time step and end time live in a Chrono simulation file; pass sim-out=FILE to write one",
                        )
                        .at("simulation"),
                    );
                }
            }
        }
        Ok(Exported {
            text,
            companions,
            report,
            entry: None,
        })
    }
}

/// A source error as the boxed diagnostic `Format` returns.
fn diagnostic(e: Box<mbconv_ir::format::SourceError>) -> FormatError {
    e
}

fn option_error(key: &str, value: &str, expected: &'static str) -> FormatError {
    Box::new(OptionError {
        key: key.to_owned(),
        value: value.to_owned(),
        expected,
    })
}
