//! The fixtures MuJoCo judges the MJCF writer on, written as MJCF: shared by
//! `examples/write_mjcf.rs` (which `cargo xtask golden mjcf` runs to give MuJoCo the texts) and
//! `tests/golden.rs` (which writes them again and checks their hash,
//! `mbconv_test_support::text_hash`, against the golden data).

use mbconv_ir::format::{Format, Options, Source};

/// Every fixture written as MJCF: its golden name and the written text.
pub fn written() -> Vec<(String, String)> {
    let root = mbconv_test_support::fixtures_root();
    let mut out = Vec::new();
    let formats: [(&str, &str, &dyn Format); 4] = [
        ("mjcf", "xml", &mbconv_mjcf::MjcfFormat),
        ("ir", "json", &mbconv_ir::mbir::MbirFormat),
        ("skel", "skel", &mbconv_skel::SkelFormat),
        ("chrono", "yaml", &mbconv_chrono::ChronoFormat),
    ];
    for (dir, ext, format) in formats {
        for path in mbconv_test_support::files_with_extension(&root.join(dir), ext) {
            if path.parent() != Some(root.join(dir).as_path()) {
                continue;
            }
            let Ok(source) = Source::from_path(&path) else {
                continue;
            };
            let Ok(read) = format.read(&source, &Options::default()) else {
                continue;
            };
            let Ok(w) = mbconv_mjcf::MjcfFormat.write(&read.model, &Options::default()) else {
                continue;
            };
            let file = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            out.push((format!("{dir}__{file}.xml"), w.text));
        }
    }
    out
}
