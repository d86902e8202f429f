//! The USD mbconv writes from every model of the other formats, and its golden data
//! (`tests/golden/newton/`, made by `cargo xtask golden usd-newton`: one file per written
//! model with its source, the hash of the text judged, Newton's judgement under `newton` and
//! OpenUSD's under `openusd`), shared by `tests/newton.rs` and `tests/openusd.rs`.

#![allow(dead_code)] // each test crate uses its part

use mbconv_ir::format::{Exported, Source};
use mbconv_test_support::written_golden::WrittenSuite;
use std::path::Path;

/// The written stages' golden files and the writer that writes each again.
pub fn suite() -> WrittenSuite {
    WrittenSuite {
        registry: mbconv::formats(),
        to: "usd",
        name: "USD",
        golden_dir: Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/newton"),
        simulator: "newton",
        judges: "Newton",
        all_trajectories: "MBCONV_USD_NEWTON_ALL",
    }
}

/// The written text as a source, named after the golden file `name` and placed beside the
/// model at `path` (as `mbconv check --via usd` reads it back).
pub fn written_source(name: &str, path: &Path, written: &Exported) -> Source {
    let beside = path.with_file_name("written.usda");
    Source::from_string("written.usda", written.text.clone()).with_path(format!("{name}.usda"), Some(beside))
}
