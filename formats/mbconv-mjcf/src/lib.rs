//! MuJoCo MJCF (XML) models -> mbconv IR.
//!
//! This crate reads MJCF the way MuJoCo 4.0's compiler does: `<include>` spliced, `<compiler>`
//! settings, `<default>` classes with inheritance and `childclass` (each inherited value's class
//! remembered), bodies and frames with every orientation form in degrees or radians, joints
//! (several in one body composed through massless bodies), mass and inertia from geoms exactly as
//! MuJoCo computes them (mesh geoms from their STL, OBJ or inline meshes, decoded only when a
//! mass needs them), sites, `connect`/`weld` loops, keyframes and `<attach>`ed models (their
//! bodies, with their own classes and settings, names prefixed); everything else is kept as
//! `mjcf.*` extras and reported. `spec` holds the compiler's semantics apart from XML. It is
//! **not** a MuJoCo simulator. Its writer is [`export::lower::lower`] (any model -> one MJCF can say,
//! every change reported on its IR path) then [`export::emit::emit`] (MJCF text MuJoCo
//! compiles, losing nothing more); [`MjcfFormat`] is the registry's `Format`
//! (registered as `mjcf`). The element-by-element mapping is in `docs/formats/mjcf.md`.
//!
//! ```
//! use mbconv_mjcf::spec::orientation::{resolve, Alternative, AngleUnit, EulerSeq};
//! // MJCF's default unit is degrees: euler="0 0 90" is a quarter turn about z.
//! let q = resolve(&Alternative::Euler([0.0, 0.0, 90.0]), AngleUnit::Degree, EulerSeq::default()).unwrap();
//! assert!((q[0] - q[3]).abs() < 1e-15);
//! ```

pub mod export;
pub(crate) mod import;
pub(crate) mod raw;
pub mod spec;

use mbconv_ir::Model;
use mbconv_ir::format::kit::{SourceResult, Tracing};
use mbconv_ir::format::support::FeatureSupport;
use mbconv_ir::format::{
    Exported, Format, FormatError, FormatInfo, Imported, Lowered, Options, SettingKind, SettingSpec, Source,
};

/// Name, extensions and description, as the registry will show them.
pub const INFO: FormatInfo = FormatInfo {
    name: "mjcf",
    aliases: &["mujoco"],
    extensions: &["xml", "mjcf"],
    description: "MuJoCo MJCF",
    shortcut: Some("mjcf"),
};

/// The settings [`read`] understands (the registry's `--read-option` names, for when the
/// format is registered).
pub const READ_SETTINGS: &[SettingSpec] = &[SettingSpec {
    name: "keyframe",
    kind: SettingKind::Text,
    default: "qpos0",
    help: "initial state from this <key> of <keyframe> (its name or index); qpos0 (the model's reference configuration, MuJoCo's state at load) by default",
}];

/// True when `text` is an MJCF document (its root element is `<mujoco>`), for `.xml` files
/// that several formats share.
///
/// ```
/// assert!(mbconv_mjcf::sniff("<?xml version=\"1.0\"?>\n<!-- x -->\n<mujoco model=\"m\"/>"));
/// assert!(!mbconv_mjcf::sniff("<robot name=\"r\"/>"));
/// ```
pub fn sniff(text: &str) -> bool {
    let mut rest = text.trim_start_matches('\u{feff}').trim_start();
    loop {
        if let Some(r) = rest.strip_prefix("<?") {
            rest = r.split_once("?>").map_or("", |(_, after)| after).trim_start();
        } else if let Some(r) = rest.strip_prefix("<!--") {
            rest = r.split_once("-->").map_or("", |(_, after)| after).trim_start();
        } else if let Some(r) = rest.strip_prefix("<!") {
            rest = r.split_once('>').map_or("", |(_, after)| after).trim_start();
        } else {
            break;
        }
    }
    rest.strip_prefix("<mujoco")
        .is_some_and(|r| r.starts_with(|c: char| c.is_whitespace() || c == '>' || c == '/'))
}

/// Reads an MJCF model (a file read with [`Source::from_path`], so that `<include>` and mesh
/// files resolve next to it) the way MuJoCo's compiler does. `options` may set `keyframe`.
///
/// ```
/// use mbconv_ir::format::{Options, Source};
/// let text = r#"<mujoco><worldbody><body name="bob" pos="0 0 -1">
///   <joint name="pivot" axis="0 1 0" pos="0 0 1"/><geom size="0.1"/></body></worldbody></mujoco>"#;
/// let imported = mbconv_mjcf::read(&Source::from_string("p.xml", text), &Options::default()).unwrap();
/// let bob = &imported.model.bodies[0];
/// assert_eq!(bob.pose.translation.z, -1.0);
/// // A sphere of radius 0.1 and MuJoCo's default density 1000.
/// assert!((bob.inertial.mass - 4.0 / 3.0 * std::f64::consts::PI * 1e-3 * 1000.0).abs() < 1e-12);
/// ```
pub fn read(source: &Source, options: &Options) -> SourceResult<Imported> {
    import::import(source, options)
}

/// Reads MJCF text held in memory (includes resolve against the working directory).
pub fn read_str(name: &str, text: &str) -> SourceResult<Imported> {
    read(&Source::from_string(name, text), &Options::default())
}

/// The MJCF format for the registry: reads with [`read`], writes with
/// [`export::lower::lower`] then [`export::emit::emit`].
///
/// ```
/// use mbconv_ir::format::{Format, Options, Source};
/// let text = r#"<mujoco><worldbody><body name="bob" pos="0 0 -1">
///   <joint name="pivot" axis="0 1 0" pos="0 0 1"/><geom size="0.1"/></body></worldbody></mujoco>"#;
/// let mjcf = mbconv_mjcf::MjcfFormat;
/// let read = mjcf.read(&Source::from_string("p.xml", text), &Options::default()).unwrap();
/// let written = mjcf.write(&read.model, &Options::default()).unwrap();
/// assert!(written.text.contains(r#"<compiler angle="radian" inertiafromgeom="false""#));
/// let back = mbconv_mjcf::read_str("p.xml", &written.text).unwrap().model;
/// assert_eq!(back.bodies[0].inertial.mass, read.model.bodies[0].inertial.mass);
/// ```
pub struct MjcfFormat;

impl Format for MjcfFormat {
    fn info(&self) -> &FormatInfo {
        &INFO
    }

    fn read_settings(&self) -> &'static [SettingSpec] {
        READ_SETTINGS
    }

    fn feature_support(&self) -> &'static [FeatureSupport] {
        export::support::FEATURE_SUPPORT
    }

    fn sniff(&self, text: &str) -> bool {
        sniff(text)
    }

    fn read(&self, source: &Source, options: &Options) -> Result<Imported, FormatError> {
        read(source, options).map_err(|e| e as FormatError)
    }

    fn lower(&self, model: &Model, _options: &Options) -> Result<Lowered, FormatError> {
        Ok(export::lower::lower(model, Tracing::Off))
    }

    /// The same lowering, keeping the model after each named pass.
    fn lower_traced(&self, model: &Model, _options: &Options) -> Result<Lowered, FormatError> {
        Ok(export::lower::lower(model, Tracing::On))
    }

    fn emit(&self, model: &Model, options: &Options) -> Result<Exported, FormatError> {
        export::emit::emit_exported(model, options.output_path.as_deref())
            .map_err(|e| Box::new(e) as FormatError)
    }
}
