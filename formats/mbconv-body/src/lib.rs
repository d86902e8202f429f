//! Choreonoid Body (YAML) models <-> mbconv IR.
//!
//! This crate reads `.body` files the way Choreonoid's `StdBodyLoader` does (checked against
//! Choreonoid's own loader, see `../shared/oracles/choreonoid/`): both key spellings, anchors,
//! aliases and merge keys, the degree/radian rules with the loader's quirks, links with their
//! joints and mass properties (RigidBody elements merged by the parallel-axis theorem), shapes
//! with their transforms and scales, devices, SubBody files, ContinuousTrack nodes and
//! extraJoints. A Choreonoid link frame is its joint frame, so each link becomes a body whose
//! joint from its parent has `parent_frame` = the link's offset and `child_frame` = identity.
//! Writing lowers the model first (body frames moved onto joint frames, joints reversed towards
//! the root, several roots under one fixed root link, loops as extraJoints, what the format
//! cannot say reported), then emits format 2.0 YAML. A Choreonoid project (`.cnoid`) reads as
//! the body files its body items name, placed and posed as the items say, with the simulator
//! item's gravity, time step and integration mode (several body items: one group each); a body
//! written to a file gets the project `NAME.cnoid` beside it that carries these. It is **not** a
//! Choreonoid simulator, it reads no controller or other item of a project, and it does not open
//! meshes (a missing mesh is a finding, not an error).
//!
//! Inside: `raw` (the YAML with positions), `spec` (keys, units and conventions both directions
//! share), `import` (document -> IR) and `export` (`lower`, then `emit`). The key-by-key mapping
//! is in `docs/formats/body.md`.
//!
//! ```
//! use mbconv_ir::format::{Format, Options, Source};
//! let text = "format: ChoreonoidBody\nformat_version: 2.0\nname: arm\nlinks:\n  - name: base\n    joint_type: fixed\n  - name: upper\n    parent: base\n    translation: [0, 0, 1]\n    joint_type: revolute\n    joint_axis: Y\n    joint_angle: 90\n";
//! let imported = mbconv_body::BodyFormat.read(&Source::from_string("arm.body", text), &Options::default()).unwrap();
//! assert_eq!(imported.model.joints[1].q0, vec![std::f64::consts::FRAC_PI_2]);
//! let written = mbconv_body::BodyFormat.write(&imported.model, &Options::default()).unwrap();
//! assert!(written.text.contains("joint_angle: 90"));
//! ```

pub(crate) mod export;
pub(crate) mod import;

pub(crate) mod raw;
pub(crate) mod spec;

use mbconv_ir::Model;
use mbconv_ir::format::kit::Tracing;
use mbconv_ir::format::{
    Direction, Exported, Format, FormatError, FormatInfo, Imported, Lowered, Options, SettingKind,
    SettingSpec, Source,
};

/// The settings the reader understands: where `${SHARE}` points in a Choreonoid project (a
/// body file says all it means; sub-bodies and resources resolve relative to the file that
/// names them).
pub const READ_SETTINGS: &[SettingSpec] = &[SettingSpec {
    name: "share",
    kind: SettingKind::Path,
    default: "the nearest share directory above the project that has the file",
    help: "Choreonoid's share directory, which `${SHARE}` stands for in a project's body file paths",
}];

/// The settings the writer understands: the name of the project written beside the body file
/// (it always writes format 2.0 in degrees, mesh paths relative to the output file).
pub const WRITE_SETTINGS: &[SettingSpec] = &[SettingSpec {
    name: "project-out",
    kind: SettingKind::Text,
    default: "NAME.cnoid beside NAME.body",
    help: "the name of the Choreonoid project (gravity, time step, initial state) written beside the body file; none is written to standard output",
}];

/// The Choreonoid Body format.
///
/// ```
/// use mbconv_ir::format::Format;
/// assert_eq!(mbconv_body::BodyFormat.info().name, "body");
/// assert!(mbconv_body::BodyFormat.sniff("format: ChoreonoidBody\n"));
/// ```
pub struct BodyFormat;

const INFO: FormatInfo = FormatInfo {
    name: "body",
    aliases: &["choreonoid"],
    extensions: &["body", "cnoid"],
    description: "Choreonoid Body (YAML)",
    shortcut: Some("body"),
    read_settings: READ_SETTINGS,
    write_settings: WRITE_SETTINGS,
    features: &export::FEATURE_SUPPORT,
};

impl Format for BodyFormat {
    fn info(&self) -> &FormatInfo {
        &INFO
    }

    fn sniff(&self, text: &str) -> bool {
        text.lines().take(50).any(|l| {
            (l.trim_start().starts_with("format:") && l.contains("ChoreonoidBody"))
                || l.trim_end() == "items:"
        })
    }

    /// Reads a body file, or a Choreonoid project (`.cnoid`) and the body files it names.
    /// Settings: [`READ_SETTINGS`].
    fn read(&self, source: &Source, options: &Options) -> Result<Imported, FormatError> {
        options.check(INFO.name, Direction::Read, READ_SETTINGS)?;
        let settings = import::ProjectSettings {
            share: options.text("share").map(std::path::PathBuf::from),
            readers: options.readers.clone(),
        };
        import::read(source, &settings).map_err(|e| e as FormatError)
    }

    fn lower_with(&self, model: &Model, options: &Options, tracing: Tracing) -> Result<Lowered, FormatError> {
        options.check(INFO.name, Direction::Write, WRITE_SETTINGS)?;
        Ok(export::lower(
            model,
            export::project::project_for(options).is_some(),
            tracing,
        ))
    }

    /// Writes the body file and, when it goes to a file, the project beside it (the entry to
    /// read the whole model back).
    fn emit(&self, model: &Model, options: &Options) -> Result<Exported, FormatError> {
        options.check(INFO.name, Direction::Write, WRITE_SETTINGS)?;
        let project = export::project::project_for(options);
        Ok(export::emit(
            model,
            options.output_path.as_deref(),
            project.as_ref(),
        ))
    }
}
