//! OpenUSD physics stages (`UsdPhysics`, `UsdGeom`) <-> mbconv IR.
//!
//! The reader opens a stage with the pure-Rust `openusd` crate (0.6: `.usda`, `.usdc` and
//! `.usdz` layers, composed through sublayers, references, payloads and variants, so the
//! physics NVIDIA's converters put in payload layers is found) and reads what UsdPhysics
//! states: stage units, the `PhysicsScene`'s gravity, rigid bodies at their composed xform
//! stacks with their mass properties, joints with their frames, limits and drives, and the
//! UsdGeom gprims under each body as shapes; every schema default it applies is reported, and
//! bad input is refused with the file and the prim path. The writer lowers the model to what
//! UsdPhysics can say (every change a `usd.*` finding) and emits one `.usda` layer with its
//! own small text emitter (deterministic, numbers by the kit's number policy); where a 32-bit
//! schema attribute cannot hold the IR's double, the double is kept beside it in an
//! `mbconv:` attribute this reader prefers. It is **not** a physics engine or a renderer, it
//! does not write `.usdc` or `.usdz` (a writer hands the facade text; an output path with
//! those endings is refused, saying so), and it reads no animation.
//!
//! Inside: `raw` (the composed stage, prim by prim), `spec` (schema names, defaults, units,
//! the `mbconv:` convention), `import` (stage -> IR) and `export` (`lower`, then `emit`). The
//! field-by-field mapping is in `docs/formats/usd.md`.
//!
//! ```
//! use mbconv_ir::format::{Format, Options, Source};
//! let text = r#"#usda 1.0
//! (
//!     metersPerUnit = 1
//!     upAxis = "Z"
//! )
//! def Xform "World"
//! {
//!     def Xform "bob" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
//!     {
//!         float physics:mass = 2
//!         double3 xformOp:translate = (0, 0, -1)
//!         uniform token[] xformOpOrder = ["xformOp:translate"]
//!     }
//!     def PhysicsRevoluteJoint "pivot"
//!     {
//!         rel physics:body1 = </World/bob>
//!         uniform token physics:axis = "Y"
//!         point3f physics:localPos1 = (0, 0, 1)
//!     }
//! }
//! "#;
//! let imported = mbconv_usd::UsdFormat.read(&Source::from_string("p.usda", text), &Options::default()).unwrap();
//! assert_eq!(imported.model.bodies[0].pose.translation.z, -1.0);
//! assert_eq!(imported.model.bodies[0].inertial.mass, 2.0);
//! let written = mbconv_usd::UsdFormat.write(&imported.model, &Options::default()).unwrap();
//! assert!(written.text.contains("def PhysicsRevoluteJoint \"pivot\""));
//! ```

pub(crate) mod export;
pub(crate) mod import;
pub(crate) mod raw;
pub(crate) mod spec;

use mbconv_ir::Model;
use mbconv_ir::format::kit::Tracing;
use mbconv_ir::format::{Exported, Format, FormatError, FormatInfo, Imported, Lowered, Options, Source};

/// The USD format for the registry.
pub struct UsdFormat;

pub use import::PrimPaths;

const INFO: FormatInfo = FormatInfo {
    name: "usd",
    aliases: &["openusd"],
    extensions: &["usda", "usdc", "usdz", "usd"],
    description: "OpenUSD physics (UsdPhysics; reads .usda/.usdc/.usdz, writes .usda)",
    shortcut: Some("usd"),
    read_settings: &[],
    write_settings: &[],
    features: &export::FEATURE_SUPPORT,
};

impl Format for UsdFormat {
    fn info(&self) -> &FormatInfo {
        &INFO
    }

    fn sniff(&self, text: &str) -> bool {
        text.trim_start().starts_with(spec::USDA_HEADER)
    }

    fn read(&self, source: &Source, _options: &Options) -> Result<Imported, FormatError> {
        import::import(source).map_err(|e| e as FormatError)
    }

    fn lower_with(&self, model: &Model, _: &Options, tracing: Tracing) -> Result<Lowered, FormatError> {
        Ok(export::lower(model, tracing))
    }

    fn simulator_laws(&self) -> &'static [mbconv_ir::format::support::SimulatorLaw] {
        export::SIMULATOR_LAWS
    }

    fn emit(&self, model: &Model, options: &Options) -> Result<Exported, FormatError> {
        if let Some(binary) = export::binary_output(options) {
            return Err(binary);
        }
        export::emit(model).map_err(|e| Box::new(e) as FormatError)
    }
}
