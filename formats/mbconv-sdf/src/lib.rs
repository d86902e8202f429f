//! SDFormat (the model and world format of Gazebo, also read by Drake) -> mbconv IR.
//!
//! This crate reads SDFormat versions 1.4 to 1.12 the way libsdformat reads them: a `<world>`
//! (gravity, the step of its `<physics>`, several models, `<include>`s resolved through the
//! `model_path` setting, `GZ_SIM_RESOURCE_PATH` and `SDF_PATH`) or a lone `<model>`; nested
//! models (bodies named `outer::inner::link`), `static` models, `@canonical_link`,
//! `@placement_frame`, `<frame>`s and poses `@relative_to` any frame of their scope (the
//! pose-frame semantics, read in every version as libsdformat converts each file to its newest
//! version; 1.4 axes are in the model frame, 1.5 and 1.6 follow `use_parent_model_frame`),
//! `rotation_format` and `degrees`; links with their
//! inertials and shapes; joints of every SDFormat type with their axes (`@expressed_in`),
//! limits and dynamics; loops (a joint whose child already has a parent is an ordinary IR
//! joint closing a loop). Plugins, sensors, lights and contact filters (`collide_bitmask`,
//! `self_collide`) are kept verbatim in `sdf.*` extras. Malformed input, unknown frames and
//! frame cycles are refused with errors that name file, line and column.
//!
//! Its writer lowers any model to one SDFormat can say (every change reported on its IR path),
//! then emits that model as one `<world>` of SDFormat 1.9 or the version the `version` setting
//! names, losing nothing more. It does not load meshes, fetch Fuel URIs or run plugins.
//!
//! Inside: `raw` (the document as read: SDFormat's dialect of the shared XML layer, the
//! version and root), `spec` (versions, settings, conventions both directions share), `import`
//! (document -> IR) and `export` (`lower`, `emit` and the feature table). The
//! element-by-element mapping is in `docs/formats/sdf.md`.
//!
//! ```
//! use mbconv_ir::format::{Format, Options, Source};
//! let text = r#"<sdf version="1.9"><model name="m">
//!   <link name="base"><pose>0 0 1 0 0 0</pose></link>
//!   <link name="bob"><pose relative_to="base">0 0 -1 0 0 0</pose></link>
//!   <joint name="pivot" type="revolute"><parent>base</parent><child>bob</child>
//!     <axis><xyz>0 1 0</xyz></axis></joint>
//! </model></sdf>"#;
//! let imported = mbconv_sdf::SdfFormat.read(&Source::from_string("p.sdf", text), &Options::default()).unwrap();
//! assert_eq!(imported.model.bodies[1].pose.translation.z, 0.0);
//! assert_eq!(imported.model.joints[0].name, "pivot");
//! ```

pub(crate) mod export;
pub(crate) mod import;
pub(crate) mod raw;
pub(crate) mod spec;

use mbconv_ir::Model;
use mbconv_ir::format::kit::Tracing;
use mbconv_ir::format::{
    Exported, Format, FormatError, FormatInfo, Imported, Lowered, Options, SettingSpec, Source,
};

/// Name, extensions and description, as the registry will show them.
pub const INFO: FormatInfo = FormatInfo {
    name: "sdf",
    aliases: &["sdformat"],
    extensions: &["sdf", "world"],
    description: "SDFormat (Gazebo, Drake)",
    shortcut: Some("sdf"),
    read_settings: READ_SETTINGS,
    write_settings: WRITE_SETTINGS,
    features: &export::support::FEATURE_SUPPORT,
};

/// The settings the reader understands: `model_path`, directories holding models,
/// `:`-separated, searched before `GZ_SIM_RESOURCE_PATH` and `SDF_PATH` for `model://` URIs,
/// and `package_path`, directories holding ROS packages, searched before `ROS_PACKAGE_PATH`
/// for `package://` mesh URIs (a package found by its `package.xml` name or its folder's).
pub const READ_SETTINGS: &[SettingSpec] = spec::READ_SETTINGS;

/// The settings the writer understands: `version` (the `<sdf version>` written, 1.9 to
/// 1.12), `poses` (what link poses are relative to: `parent` or `model`) and `loops` (a
/// loop-closing ball joint as a `<joint>`, `joints`, or as Drake's `<drake:ball_constraint>`,
/// `drake`).
pub const WRITE_SETTINGS: &[SettingSpec] = spec::WRITE_SETTINGS;

/// The SDFormat format for the registry: reads a file (a `<world>` or a lone `<model>`, with
/// its `<include>`s), lowers a model to what SDFormat can say, then emits it as one `<world>`.
///
/// ```
/// use mbconv_ir::format::{Format, Options, Source};
/// let text = r#"<sdf version="1.9"><model name="m"><link name="a"/></model></sdf>"#;
/// let sdf = mbconv_sdf::SdfFormat;
/// let read = sdf.read(&Source::from_string("m.sdf", text), &Options::default()).unwrap();
/// let written = sdf.write(&read.model, &Options::default()).unwrap();
/// assert!(written.text.contains("<world name=\"m\">"));
/// assert!(written.text.contains("<link name=\"a\">"));
/// ```
pub struct SdfFormat;

impl Format for SdfFormat {
    fn info(&self) -> &FormatInfo {
        &INFO
    }

    fn sniff(&self, text: &str) -> bool {
        raw::sniff(text)
    }

    fn read(&self, source: &Source, options: &Options) -> Result<Imported, FormatError> {
        import::read(source, options)
    }

    fn lower_with(&self, model: &Model, options: &Options, tracing: Tracing) -> Result<Lowered, FormatError> {
        let writing = export::emit::Writing::from_options(options);
        Ok(export::lower::lower_with(
            model,
            writing,
            options.output_path.as_deref(),
            tracing,
        ))
    }

    fn emit(&self, model: &Model, options: &Options) -> Result<Exported, FormatError> {
        export::emit(model, options)
    }
}
