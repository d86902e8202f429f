//! Fuzz target: arbitrary bytes expanded as a xacro file (beside `fixtures/xacro`, so its
//! relative includes, `$(find xacro_fixtures)` and YAML files resolve), then, when it
//! expands, the expansion read as URDF (or SDFormat), validated, lowered and emitted.
#![no_main]

use std::collections::BTreeMap;
use std::path::PathBuf;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/xacro");
    let settings = mbconv_xacro::Settings {
        args: BTreeMap::new(),
        package_path: vec![dir.clone()],
        env: Some(BTreeMap::new()),
    };
    let Ok(expansion) = mbconv_xacro::expand_str(text, "fuzz.urdf.xacro", &dir.join("fuzz.urdf.xacro"), &settings)
    else {
        return;
    };
    // Every place of the expansion maps back into a file.
    for offset in (0..expansion.text.len()).step_by(97) {
        let _ = expansion.locate(offset);
    }
    let format = if expansion.root == "sdf" { "sdf" } else { "urdf" };
    mbconv_fuzz::exercise(format, expansion.text.as_bytes());
});
