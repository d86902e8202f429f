//! Fixtures the check's tests share.

use mbconv_ir::Model;

/// `fixtures/ir/double_pendulum.mbir.json`: two 1 m links on revolute joints about y.
#[allow(dead_code)] // not every test file uses it
pub fn double_pendulum() -> Model {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/ir/double_pendulum.mbir.json"
    );
    let text = std::fs::read_to_string(path).expect("the fixture");
    mbconv_ir::mbir::from_str(&text).expect("an IR model")
}

/// A test format over the IR's JSON: lowers with one pass, `lower` (the pass named
/// `"sabotage"`), and writes the lowered model rewritten by `emit`; reads the JSON back as it
/// is. Registered under the name `"sabotage"`.
#[allow(dead_code)] // not every test file uses it
pub struct Rewriting {
    /// The one lowering pass.
    pub lower: fn(&mut mbconv_ir::format::kit::LowerSession),
    /// What the writer does to the lowered model before it writes it.
    pub emit: fn(&mut Model),
}

#[allow(dead_code)]
const INFO: mbconv_ir::format::FormatInfo = mbconv_ir::format::FormatInfo {
    name: "sabotage",
    aliases: &[],
    extensions: &["mbir.json"],
    description: "IR JSON written after one sabotaging pass, rewritten by the writer",
    shortcut: None,
    read_settings: &[],
    write_settings: &[],
    features: &[],
};

impl mbconv_ir::format::Format for Rewriting {
    fn info(&self) -> &mbconv_ir::format::FormatInfo {
        &INFO
    }
    fn sniff(&self, text: &str) -> bool {
        mbconv_ir::mbir::MbirFormat.sniff(text)
    }
    fn read(
        &self,
        source: &mbconv_ir::format::Source,
        options: &mbconv_ir::format::Options,
    ) -> Result<mbconv_ir::format::Imported, mbconv_ir::format::FormatError> {
        mbconv_ir::mbir::MbirFormat.read(source, options)
    }
    fn lower_with(
        &self,
        model: &Model,
        _options: &mbconv_ir::format::Options,
        tracing: mbconv_ir::format::kit::Tracing,
    ) -> Result<mbconv_ir::format::Lowered, mbconv_ir::format::FormatError> {
        let mut s = mbconv_ir::format::kit::LowerSession::new("sabotage", model, tracing);
        s.run("sabotage", self.lower);
        Ok(s.finish())
    }
    fn emit(
        &self,
        lowered: &Model,
        options: &mbconv_ir::format::Options,
    ) -> Result<mbconv_ir::format::Exported, mbconv_ir::format::FormatError> {
        let mut model = lowered.clone();
        (self.emit)(&mut model);
        mbconv_ir::mbir::MbirFormat.emit(&model, options)
    }
}
