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
//! Its writer lowers the model first (any model -> one URDF can say, every change reported on
//! its IR path) and then emits it (that model -> text, losing nothing more). It does not load
//! meshes and it does not expand xacro.
//!
//! Inside: `raw` (the URDF dialect of the shared XML layer, the xacro refusal, the root-element
//! sniff), `spec` (keys, settings, poses and conventions both directions share), `import`
//! (document -> IR) and `export` (`lower`, then `emit`; the feature table in `support`). The
//! element-by-element mapping is in `docs/formats/urdf.md`.
//!
//! ```
//! use mbconv_ir::format::{Format, Options, Source};
//! let text = r#"<robot name="pendulum">
//!   <link name="base"/>
//!   <link name="bob"><inertial><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>
//!   <joint name="pivot" type="continuous"><parent link="base"/><child link="bob"/>
//!     <origin xyz="0 0 -1"/><axis xyz="0 1 0"/></joint>
//! </robot>"#;
//! let urdf = mbconv_urdf::UrdfFormat;
//! let imported = urdf.read(&Source::from_string("p.urdf", text), &Options::default()).unwrap();
//! assert_eq!(imported.model.bodies[1].pose.translation.z, -1.0);
//! assert!(imported.model.bodies[0].fixed); // root=fixed, the default
//! assert!(imported.report.contains("urdf.root"));
//! let written = urdf.write(&imported.model, &Options::default()).unwrap();
//! assert!(written.text.contains("<joint name=\"pivot\" type=\"continuous\">"));
//! ```

pub(crate) mod export;
pub(crate) mod import;
pub(crate) mod raw;
pub(crate) mod spec;

use mbconv_ir::Model;
use mbconv_ir::format::kit::Tracing;
use mbconv_ir::format::{Exported, Format, FormatError, FormatInfo, Imported, Lowered, Options, Source};

/// Name, extensions and description, as the registry will show them.
pub const INFO: FormatInfo = FormatInfo {
    name: "urdf",
    aliases: &[],
    extensions: &["urdf", "xml"],
    description: "URDF (ROS Unified Robot Description Format)",
    shortcut: Some("urdf"),
    read_settings: READ_SETTINGS,
    write_settings: WRITE_SETTINGS,
    features: &export::FEATURE_SUPPORT,
};

/// The settings the reader understands: `root` (what holds the root link: `fixed`, the
/// default, or `free`) and `package_path` (directories holding ROS packages, for
/// `package://` mesh URIs).
pub use spec::READ_SETTINGS;

/// The settings the writer understands: `root` (how a floating root is written:
/// `floating_joint`, the default, or `free`).
pub use spec::WRITE_SETTINGS;

/// The URDF format for the registry: reads URDF, and writes it by lowering the model, then
/// emitting it.
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

    /// A root written free (`root=free`) is read back free.
    fn read_back_options(&self, write_options: &Options, _written: &Exported) -> Options {
        export::read_back_options(write_options)
    }

    /// True when `text` looks like URDF: an XML document whose root element is `<robot>`.
    fn sniff(&self, text: &str) -> bool {
        raw::root_is_robot(text)
    }

    /// Reads a URDF model. Errors in the input come back as diagnostics naming file, line and
    /// column; `options` holds the read settings ([`READ_SETTINGS`]), already checked by the
    /// caller.
    fn read(&self, source: &Source, options: &Options) -> Result<Imported, FormatError> {
        import::import(source, options).map_err(|e| e as FormatError)
    }

    fn lower_with(&self, model: &Model, options: &Options, tracing: Tracing) -> Result<Lowered, FormatError> {
        Ok(export::lower_with(
            model,
            export::RootWriting::from_options(options),
            options.output_path.as_deref(),
            tracing,
        ))
    }

    fn emit(&self, model: &Model, options: &Options) -> Result<Exported, FormatError> {
        export::emit(model, options)
    }
}
