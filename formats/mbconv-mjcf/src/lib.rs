//! MuJoCo MJCF (XML) models <-> mbconv IR.
//!
//! This crate reads MJCF the way MuJoCo 4.0's compiler does: `<include>` spliced, `<compiler>`
//! settings, `<default>` classes with inheritance and `childclass` (each inherited value's class
//! remembered), bodies and frames with every orientation form in degrees or radians, joints
//! (several in one body composed through massless bodies), mass and inertia from geoms exactly as
//! MuJoCo computes them (mesh geoms from their STL, OBJ or inline meshes, decoded only when a
//! mass needs them), sites, `connect`/`weld` loops, keyframes and `<attach>`ed models (their
//! bodies, with their own classes and settings, names prefixed); everything else is kept as
//! `mjcf.*` extras and reported. It is **not** a MuJoCo simulator. Writing lowers the model
//! first (any model -> one MJCF can say, every change reported on its IR path), then emits MJCF
//! text MuJoCo compiles, losing nothing more; [`MjcfFormat`] is the registry's `Format`
//! (registered as `mjcf`).
//!
//! Inside: `raw` (the document, includes spliced, and the root sniff), `spec` (the compiler
//! arithmetic both directions share), `import` (document -> IR; `import::compiler` is what
//! MuJoCo's compiler computes apart from XML) and `export` (`lower`, then `emit`; the feature
//! table in `support`). The element-by-element mapping is in `docs/formats/mjcf.md`.
//!
//! ```
//! use mbconv_ir::format::{Format, Options, Source};
//! let text = r#"<mujoco><worldbody><body name="bob" pos="0 0 -1">
//!   <joint name="pivot" axis="0 1 0" pos="0 0 1"/><geom size="0.1"/></body></worldbody></mujoco>"#;
//! let imported = mbconv_mjcf::MjcfFormat.read(&Source::from_string("p.xml", text), &Options::default()).unwrap();
//! let bob = &imported.model.bodies[0];
//! assert_eq!(bob.pose.translation.z, -1.0);
//! // A sphere of radius 0.1 and MuJoCo's default density 1000.
//! assert!((bob.inertial.mass - 4.0 / 3.0 * std::f64::consts::PI * 1e-3 * 1000.0).abs() < 1e-12);
//! ```

pub(crate) mod export;
pub(crate) mod import;
pub(crate) mod raw;
pub(crate) mod spec;

use mbconv_ir::Model;
use mbconv_ir::format::kit::Tracing;
use mbconv_ir::format::{
    Exported, Format, FormatError, FormatInfo, Imported, Lowered, Options, SettingKind, SettingSpec, Source,
};

/// The most `<body>` elements MuJoCo reads nested in each other (measured with MuJoCo 4.0.0:
/// its XML parser, tinyxml2, refuses elements nested about 500 deep, and `<mujoco>` and
/// `<worldbody>` take two levels). The writer refuses a kinematic tree deeper than this: MJCF
/// writes a tree only by nesting, so a longer chain cannot be written as MJCF MuJoCo loads.
pub const MUJOCO_MAX_NESTED_BODIES: usize = 496;

/// Name, extensions and description, as the registry will show them.
pub const INFO: FormatInfo = FormatInfo {
    name: "mjcf",
    aliases: &["mujoco"],
    extensions: &["xml", "mjcf"],
    description: "MuJoCo MJCF",
    shortcut: Some("mjcf"),
    read_settings: READ_SETTINGS,
    write_settings: &[],
    features: &export::support::FEATURE_SUPPORT,
};

/// The settings the reader understands (the registry's `--read-option` names, for when the
/// format is registered).
pub const READ_SETTINGS: &[SettingSpec] = &[SettingSpec {
    name: "keyframe",
    kind: SettingKind::Text,
    default: "qpos0",
    help: "initial state from this <key> of <keyframe> (its name or index); qpos0 (the model's reference configuration, MuJoCo's state at load) by default",
}];

/// The MJCF format for the registry: reads as MuJoCo's compiler does (a file read with
/// [`Source::from_path`], so that `<include>`, `<model>` and mesh files resolve next to it;
/// [`READ_SETTINGS`] may pick a keyframe), writes by lowering, then emitting.
///
/// ```
/// use mbconv_ir::format::{Format, Options, Source};
/// let text = r#"<mujoco><worldbody><body name="bob" pos="0 0 -1">
///   <joint name="pivot" axis="0 1 0" pos="0 0 1"/><geom size="0.1"/></body></worldbody></mujoco>"#;
/// let mjcf = mbconv_mjcf::MjcfFormat;
/// let read = mjcf.read(&Source::from_string("p.xml", text), &Options::default()).unwrap();
/// let written = mjcf.write(&read.model, &Options::default()).unwrap();
/// assert!(written.text.contains(r#"<compiler angle="radian" inertiafromgeom="false""#));
/// let back = mjcf.read(&Source::from_string("p.xml", &written.text), &Options::default()).unwrap().model;
/// assert_eq!(back.bodies[0].inertial.mass, read.model.bodies[0].inertial.mass);
/// ```
pub struct MjcfFormat;

impl Format for MjcfFormat {
    fn info(&self) -> &FormatInfo {
        &INFO
    }

    fn sniff(&self, text: &str) -> bool {
        raw::sniff(text)
    }

    fn read(&self, source: &Source, options: &Options) -> Result<Imported, FormatError> {
        import::import(source, options).map_err(|e| e as FormatError)
    }

    fn lower_with(&self, model: &Model, options: &Options, tracing: Tracing) -> Result<Lowered, FormatError> {
        Ok(export::lower::lower(
            model,
            options.output_path.as_deref(),
            tracing,
        ))
    }

    fn simulator_laws(&self) -> &'static [mbconv_ir::format::support::SimulatorLaw] {
        export::support::SIMULATOR_LAWS
    }

    fn emit(&self, model: &Model, options: &Options) -> Result<Exported, FormatError> {
        export::emit::emit_exported(model, options.output_path.as_deref())
            .map_err(|e| Box::new(e) as FormatError)
    }
}
