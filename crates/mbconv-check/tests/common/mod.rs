//! Fixtures the check's tests share.

use mbconv_ir::Model;

/// `fixtures/ir/double_pendulum.mbir.json`: two 1 m links on revolute joints about y.
pub fn double_pendulum() -> Model {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/ir/double_pendulum.mbir.json"
    );
    let text = std::fs::read_to_string(path).expect("the fixture");
    mbconv_ir::mbir::from_str(&text).expect("an IR model")
}
