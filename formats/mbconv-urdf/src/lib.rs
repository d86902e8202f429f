//! URDF (the ROS Unified Robot Description Format) models -> mbconv IR.
//!
//! This crate reads URDF files the way urdfdom (the parser behind Pinocchio, DART and ROS)
//! reads them, versions 1.0 and 1.1 (`quat_xyzw`, capsules), and says where the loaders that
//! build on it disagree: the root link (welded or free, the `root` setting), missing limit
//! attributes, an undeclared `world` link. Links become bodies whose frame is the frame of
//! their parent joint, joints keep their axes in that frame, inertials keep their rotated
//! axes, visuals and collisions become shapes with their materials, mesh paths are resolved
//! (relative, `file://`, `package://` through the `package_path` setting and
//! `ROS_PACKAGE_PATH`), and everything the IR has no home for (mimic, calibration,
//! safety controllers, transmissions, `<gazebo>` and other extension elements) is kept
//! verbatim in `urdf.*` extras. Malformed input, xacro sources and kinematic loops are
//! refused with errors that name file, line and column.
//!
//! Its writer is [`lower::lower`] (any model -> one URDF can say, every change reported on
//! its IR path) then [`emit::emit`] (that model -> text, losing nothing more). It does not
//! load meshes and it does not expand xacro.
//!
//! Inside: `raw` (the URDF dialect of the shared XML layer, the xacro refusal), `spec` (poses,
//! settings and defaults), `import` (document -> IR), `lower` (IR -> what URDF can say) and `emit` (IR -> text). The element-by-element mapping is in
//! `docs/formats/urdf.md`.
//!
//! ```
//! use mbconv_ir::format::{Options, Source};
//! let text = r#"<robot name="pendulum">
//!   <link name="base"/>
//!   <link name="bob"><inertial><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>
//!   <joint name="pivot" type="continuous"><parent link="base"/><child link="bob"/>
//!     <origin xyz="0 0 -1"/><axis xyz="0 1 0"/></joint>
//! </robot>"#;
//! let imported = mbconv_urdf::read(&Source::from_string("p.urdf", text), &Options::default()).unwrap();
//! assert_eq!(imported.model.bodies[1].pose.translation.z, -1.0);
//! assert!(imported.model.bodies[0].fixed); // root=fixed, the default
//! assert!(imported.report.contains("urdf.root"));
//! ```

pub mod emit;
pub(crate) mod import;
pub mod lower;
pub(crate) mod raw;
pub mod spec;
mod support;

use mbconv_ir::Model;
use mbconv_ir::format::kit::Tracing;
use mbconv_ir::format::support::FeatureSupport;
use mbconv_ir::format::{
    Exported, Format, FormatError, FormatInfo, Imported, Lowered, Options, SettingSpec, Source,
};

/// Name, extensions and description, as the registry will show them.
pub const INFO: FormatInfo = FormatInfo {
    name: "urdf",
    aliases: &[],
    extensions: &["urdf", "xml"],
    description: "URDF (ROS Unified Robot Description Format)",
    shortcut: Some("urdf"),
};

/// The settings [`read`] understands (see [`spec::ROOT`] and [`spec::PACKAGE_PATH`]).
pub const READ_SETTINGS: &[SettingSpec] = spec::READ_SETTINGS;

/// True when `text` looks like URDF: an XML document whose root element is `<robot>`.
///
/// ```
/// assert!(mbconv_urdf::sniff("<?xml version=\"1.0\"?>\n<!-- r -->\n<robot name=\"r\"/>"));
/// assert!(!mbconv_urdf::sniff("<skel version=\"1.0\"/>"));
/// ```
pub fn sniff(text: &str) -> bool {
    raw::root_is_robot(text)
}

/// Reads a URDF model. Errors in the input come back as diagnostics naming file, line and
/// column; `options` holds the read settings ([`READ_SETTINGS`]), already checked by the
/// caller.
pub fn read(source: &Source, options: &Options) -> Result<Imported, FormatError> {
    import::import(source, options).map_err(|e| e as FormatError)
}

/// The URDF format for the registry: reads with [`read`], writes with [`lower::lower`] then
/// [`emit::emit`].
///
/// ```
/// use mbconv_ir::format::{Format, Options, Source};
/// let text = r#"<robot name="r"><link name="a"/></robot>"#;
/// let urdf = mbconv_urdf::UrdfFormat;
/// let read = urdf.read(&Source::from_string("r.urdf", text), &Options::default()).unwrap();
/// let written = urdf.write(&read.model, &Options::default()).unwrap();
/// assert!(written.text.contains("<link name=\"a\""));
/// ```
pub struct UrdfFormat;

impl Format for UrdfFormat {
    fn info(&self) -> &FormatInfo {
        &INFO
    }

    fn read_settings(&self) -> &'static [SettingSpec] {
        READ_SETTINGS
    }

    fn write_settings(&self) -> &'static [SettingSpec] {
        spec::WRITE_SETTINGS
    }

    /// A root written free (`root=free`) is read back free.
    fn read_back_options(&self, write_options: &Options, _written: &Exported) -> Options {
        let mut options = Options::default();
        if lower::RootWriting::from_options(write_options) == lower::RootWriting::Free {
            options.set(spec::ROOT, "free");
        }
        options
    }

    fn feature_support(&self) -> &'static [FeatureSupport] {
        support::FEATURE_SUPPORT
    }

    fn sniff(&self, text: &str) -> bool {
        sniff(text)
    }

    fn read(&self, source: &Source, options: &Options) -> Result<Imported, FormatError> {
        read(source, options)
    }

    fn lower(&self, model: &Model, options: &Options) -> Result<Lowered, FormatError> {
        Ok(lower::lower_with(
            model,
            lower::RootWriting::from_options(options),
            Tracing::Off,
        ))
    }

    /// The same lowering, keeping the model after each named pass.
    fn lower_traced(&self, model: &Model, options: &Options) -> Result<Lowered, FormatError> {
        Ok(lower::lower_with(
            model,
            lower::RootWriting::from_options(options),
            Tracing::On,
        ))
    }

    fn emit(&self, model: &Model, options: &Options) -> Result<Exported, FormatError> {
        let root = lower::RootWriting::from_options(options);
        let text = emit::emit_with(model, root).map_err(|e| Box::new(e) as FormatError)?;
        Ok(Exported::text(text, mbconv_ir::report::Report::default()))
    }
}
