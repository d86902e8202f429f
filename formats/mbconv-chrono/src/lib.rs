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
//! The crate has the kit's rooms: `raw` (the YAML document with spans), `spec` (Chrono's
//! defaults and conventions, shared by both directions), `import` (document -> IR) and
//! `export` (`lower`: IR -> what Chrono YAML can say, every change a finding; `emit`: the
//! lowered model as text and companion files). The public surface is [`ChronoFormat`], its
//! settings ([`READ_SETTINGS`], [`WRITE_SETTINGS`]) and its feature table.
//!
//! ```
//! use mbconv_ir::format::{Format, Options, Source};
//! let text = "chrono-version: 10.0\nmodel:\n  bodies:\n    - name: ground\n      location: [0, 0, 0]\n      fixed: true\n";
//! let imported = mbconv_chrono::ChronoFormat.read(&Source::from_string("m.yaml", text), &Options::default()).unwrap();
//! assert_eq!(imported.model.bodies.len(), 1);
//! let written = mbconv_chrono::ChronoFormat.write(&imported.model, &Options::default()).unwrap();
//! assert!(written.text.contains("location: [0, 0, 0]"));
//! ```

mod export;
mod import;
mod raw;
mod spec;

use mbconv_ir::Model;
use mbconv_ir::format::kit::Tracing;
use mbconv_ir::format::{
    Direction, Exported, Format, FormatError, FormatInfo, Imported, Lowered, Options, SettingKind,
    SettingSpec, Source,
};

/// Chrono YAML models: the [`Format`] the CLI registers.
pub struct ChronoFormat;

const INFO: FormatInfo = FormatInfo {
    name: "chrono",
    aliases: &["yaml", "chrono-yaml"],
    extensions: &["yaml", "yml"],
    description: "Project Chrono YAML multibody models (chrono-version 10.0)",
    shortcut: Some("yaml"),
    read_settings: READ_SETTINGS,
    write_settings: WRITE_SETTINGS,
    features: &export::FEATURE_SUPPORT,
};

/// The values of the `angles` write setting.
const ANGLE_UNITS: &[&str] = &["degrees", "radians"];

/// The settings [`ChronoFormat`] reads with.
pub const READ_SETTINGS: &[SettingSpec] = &[
    SettingSpec {
        name: "sim",
        kind: SettingKind::Path,
        default: "none",
        help: "take gravity and time step from this Chrono simulation file",
    },
    SettingSpec {
        name: "lenient",
        kind: SettingKind::Flag,
        default: "false",
        help: "Chrono's fallbacks for unknown enum values (joint type -> LOCK, unknown shapes dropped) instead of errors",
    },
    SettingSpec {
        name: "normalize-quaternions",
        kind: SettingKind::Flag,
        default: "false",
        help: "normalise a non-unit quaternion as written (the centre of mass where the unit rotation puts it) instead of reading the centre of mass where Chrono's parser puts it",
    },
];

/// The settings [`ChronoFormat`] writes with.
pub const WRITE_SETTINGS: &[SettingSpec] = &[
    SettingSpec {
        name: "angles",
        kind: SettingKind::Choice(ANGLE_UNITS),
        default: "as read, else degrees",
        help: "the unit of the angles written (`angle_degrees`)",
    },
    SettingSpec {
        name: "sim-out",
        kind: SettingKind::Text,
        default: "none",
        help: "also write a simulation file of this name (and its solver file) beside the model",
    },
    SettingSpec {
        name: "keep-jointed-contact",
        kind: SettingKind::Flag,
        default: "false",
        help: "keep the collision shapes that make two jointed bodies touch at the start (Chrono checks contact between jointed bodies; by default they stop colliding when the source's simulator never checks such a pair)",
    },
];

impl Format for ChronoFormat {
    fn info(&self) -> &FormatInfo {
        &INFO
    }

    fn sniff(&self, text: &str) -> bool {
        text.lines()
            .any(|l| l.starts_with("chrono-version:") || l.starts_with("model:"))
    }

    /// Reads a model file, or a simulation file and the model it names. Settings:
    /// [`READ_SETTINGS`].
    fn read(&self, source: &Source, options: &Options) -> Result<Imported, FormatError> {
        options.check(INFO.name, Direction::Read, READ_SETTINGS)?;
        let import_options = import::ImportOptions {
            lenient: options.flag("lenient"),
            normalize_quaternions: options.flag("normalize-quaternions"),
            simulation_file: options.text("sim").map(str::to_owned),
        };
        import::read(source, &import_options).map_err(|e| e as FormatError)
    }

    /// Turns a model into what Chrono YAML can say; every change is a finding.
    fn lower_with(&self, model: &Model, options: &Options, tracing: Tracing) -> Result<Lowered, FormatError> {
        options.check(INFO.name, Direction::Write, WRITE_SETTINGS)?;
        Ok(export::lower::lower(
            model,
            &export::lower::LowerSettings::from_options(options),
            tracing,
        ))
    }

    /// Writes a lowered model. Settings: [`WRITE_SETTINGS`].
    fn emit(&self, model: &Model, options: &Options) -> Result<Exported, FormatError> {
        options.check(INFO.name, Direction::Write, WRITE_SETTINGS)?;
        let settings = export::emit::EmitSettings {
            degrees: options
                .choice("angles", ANGLE_UNITS)
                .map(|unit| unit == "degrees"),
            simulation_file: options.text("sim-out").map(str::to_owned),
            output_path: options.output_path.clone(),
        };
        Ok(export::emit::emit(model, &settings))
    }
}
