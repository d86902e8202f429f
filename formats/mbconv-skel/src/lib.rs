//! DART SKEL (XML) models <-> mbconv IR.
//!
//! This crate reads SKEL files the way DART 6.20's `SkelParser` does (checked against dartpy
//! 6.20.0, see `oracles/dart/`) and writes SKEL that DART loads. It applies DART's implicit
//! rules and reports each one: default inertia, inertia computed from shapes, an implicit free
//! root joint, bodies DART never creates, the free-joint velocity convention. It refuses the
//! legacy pre-XML text format, malformed XML and DOCTYPEs with entities with errors that name
//! file, line and column. Writing lowers the model first (body velocities become joint rates,
//! RSDAs about a revolute axis become joint springs, what SKEL cannot say is dropped with a
//! finding), then emits it. It is **not** a DART simulator, and it does not load meshes beyond
//! reading the bounding box of OBJ files (DART needs it for inertia from mesh shapes).
//!
//! Inside: `raw` (the XML with positions, typed values), `spec` (keys, defaults and
//! conventions both directions share), `import` (document -> IR) and `export` (`lower`, then
//! `emit`). The element-by-element mapping is in `docs/formats/skel.md`.
//!
//! ```
//! use mbconv_ir::format::{Format, Options, Source};
//! let text = r#"<skel version="1.0"><world name="w">
//!   <skeleton name="pendulum">
//!     <body name="bob"><transformation>0 0 -1 0 0 0</transformation></body>
//!     <joint type="revolute" name="pivot"><parent>world</parent><child>bob</child>
//!       <transformation>0 0 1 0 0 0</transformation><axis><xyz>0 1 0</xyz></axis></joint>
//!   </skeleton></world></skel>"#;
//! let imported = mbconv_skel::SkelFormat.read(&Source::from_string("p.skel", text), &Options::default()).unwrap();
//! assert_eq!(imported.model.bodies[0].pose.translation.z, -1.0);
//! let written = mbconv_skel::SkelFormat.write(&imported.model, &Options::default()).unwrap();
//! assert!(written.text.contains("<joint type=\"revolute\" name=\"pivot\">"));
//! ```

pub(crate) mod export;
pub(crate) mod import;
pub(crate) mod raw;
pub(crate) mod spec;

use mbconv_ir::Model;
use mbconv_ir::format::kit::Tracing;
use mbconv_ir::format::{Exported, Format, FormatError, FormatInfo, Imported, Lowered, Options, Source};

/// The SKEL format for the registry.
pub struct SkelFormat;

const INFO: FormatInfo = FormatInfo {
    name: "skel",
    aliases: &["dart"],
    extensions: &["skel"],
    description: "DART SKEL (XML)",
    shortcut: Some("skel"),
    read_settings: &[],
    write_settings: &[],
    features: &export::FEATURE_SUPPORT,
};

impl Format for SkelFormat {
    fn info(&self) -> &FormatInfo {
        &INFO
    }

    fn sniff(&self, text: &str) -> bool {
        text.contains("<skel")
    }

    fn read(&self, source: &Source, _options: &Options) -> Result<Imported, FormatError> {
        import::import(source).map_err(|e| e as FormatError)
    }

    fn lower_with(&self, model: &Model, _: &Options, tracing: Tracing) -> Result<Lowered, FormatError> {
        Ok(export::lower(model, tracing))
    }

    fn emit(&self, model: &Model, options: &Options) -> Result<Exported, FormatError> {
        Ok(export::emit(model, options.output_path.as_deref()))
    }
}
