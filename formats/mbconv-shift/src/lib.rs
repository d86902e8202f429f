//! Shift JSON models <-> mbconv IR.
//!
//! This crate reads the Shift multibody format in both of its spellings, the documented one
//! (`fixed`, `body_frame_pairs`, primitive joints `Rx`…`Tz`, `rigid`, `float`, `restraints`,
//! nested `assemblies` with `:` paths) and the one the published models use (`parent`/`child`
//! paths, `revolute`/`prismatic` with an axis, `spherical`, `inertia{}`, `active` flags), and
//! writes either (`--write-option dialect=2.0` for the published one). It accepts the comments
//! and trailing commas real files contain, with a finding, and refuses malformed input with
//! file, line and column. The conventions the Shift documentation leaves open are decided in
//! `spec` and described in `docs/formats/shift.md`. It is **not** the Shift simulator: it does
//! not load meshes, and force modules (tyres, controllers) and terrain are kept verbatim but not
//! simulated.
//!
//! Inside: `raw` (a JSON scanner that keeps spans), `spec` (conventions both directions share),
//! `import` (document -> IR) and `export` (`lower`, then `emit`).
//!
//! ```
//! use mbconv_ir::format::{Format, Options, Source};
//! let text = r#"{"model_parameters": {"gravity": [0, 0, 9.81]},
//!   "fixed": {"frames": [{"name": "pivot", "T": [0, 0, -3]}]},
//!   "assemblies": [{"name": "pendulum", "bodies": [{"name": "link", "mass": 2}],
//!     "joints": [{"name": "hinge", "type": "Rx", "body_frame_pairs": [["fixed", "pivot"], ["link", "origin"]],
//!                 "initial_displacement": 0.5, "initial_velocity": 0}]}]}"#;
//! let imported = mbconv_shift::ShiftFormat.read(&Source::from_string("p.json", text), &Options::default()).unwrap();
//! assert_eq!(imported.model.bodies[0].pose.translation.z, -3.0);
//! assert_eq!(imported.model.joints[0].q0, vec![0.5]);
//! ```

pub(crate) mod export;
pub(crate) mod import;
pub(crate) mod raw;
pub(crate) mod spec;

use mbconv_ir::Model;
use mbconv_ir::format::kit::Tracing;
use mbconv_ir::format::{Exported, Format, FormatError, FormatInfo, Imported, Lowered, Options, Source};

/// The Shift JSON format for the registry.
pub struct ShiftFormat;

const INFO: FormatInfo = FormatInfo {
    name: "shift",
    aliases: &["json", "shift-json"],
    extensions: &["json"],
    description: "Shift JSON",
    shortcut: Some("json"),
    read_settings: &[],
    write_settings: spec::WRITE_SETTINGS,
    features: &export::FEATURE_SUPPORT,
};

impl Format for ShiftFormat {
    fn info(&self) -> &FormatInfo {
        &INFO
    }

    /// A JSON object with Shift's top-level keys; never an `.mbir.json` IR file.
    fn sniff(&self, text: &str) -> bool {
        let head: String = text.chars().take(4096).collect();
        let looks_like_ir = head.contains("\"force_elements\"")
            || head.contains("\"world_frames\"")
            || head.contains("\"mbir\"");
        head.trim_start().starts_with(['{', '/'])
            && !looks_like_ir
            && (head.contains("\"assemblies\"")
                || head.contains("\"model_parameters\"")
                || head.contains("\"body_frame_pairs\""))
    }

    fn read(&self, source: &Source, _options: &Options) -> Result<Imported, FormatError> {
        import::import(source).map_err(|e| e as FormatError)
    }

    fn lower_with(&self, model: &Model, options: &Options, tracing: Tracing) -> Result<Lowered, FormatError> {
        Ok(export::lower(
            model,
            spec::Dialect::from_options(options),
            tracing,
        ))
    }

    fn emit(&self, model: &Model, options: &Options) -> Result<Exported, FormatError> {
        Ok(export::emit(model, spec::Dialect::from_options(options)))
    }
}
