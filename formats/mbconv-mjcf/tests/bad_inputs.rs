//! Every malformed MJCF input of `fixtures/bad/` (`mjcf_*.mjcf`) is refused by the reader with an
//! error naming the file, a line and a column (never a panic); `mbconv convert`'s test of
//! `fixtures/bad/` runs the same files through the command line.
#![allow(clippy::unwrap_used)]

use mbconv_ir::format::{Format, Options, Source};
use std::path::Path;

#[test]
fn every_bad_input_is_refused_with_its_place() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/bad");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.starts_with("mjcf_") && name.ends_with(".mjcf")
        })
        .collect();
    files.sort();
    assert!(files.len() >= 25, "only {} malformed inputs", files.len());
    for file in files {
        let source = Source::from_path(&file).unwrap();
        let err = match mbconv_mjcf::MjcfFormat.read(&source, &Options::default()) {
            Ok(_) => panic!("{} was read", file.display()),
            Err(e) => e,
        };
        let text = err.to_string();
        let name = file.display().to_string();
        let place = text
            .strip_prefix(&format!("{name}:"))
            .unwrap_or_else(|| panic!("{text}"));
        let mut parts = place.splitn(3, ':');
        let line: usize = parts.next().unwrap().parse().unwrap_or_else(|_| panic!("{text}"));
        let column: usize = parts.next().unwrap().parse().unwrap_or_else(|_| panic!("{text}"));
        assert!(line > 0 && column > 0, "{text}");
        let code = err.code().map(|c| c.to_string()).unwrap_or_default();
        assert!(code.starts_with("mjcf."), "{text}: code {code}");
        println!("{text}");
    }
}

/// Every prefix of every fixture, and every fixture with one byte replaced, is read or refused
/// without a panic (a quick deterministic companion of the `mjcf` fuzz target).
#[test]
fn damaged_fixtures_never_panic() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/mjcf");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "xml"))
        .collect();
    files.sort();
    let mut tried = 0;
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let bytes = text.as_bytes();
        for cut in (0..bytes.len()).step_by(7) {
            let damaged = String::from_utf8_lossy(&bytes[..cut]).into_owned();
            let _ = mbconv_mjcf::MjcfFormat
                .read(&Source::from_string("damaged.xml", &damaged), &Options::default());
            for replacement in [b'"', b'<', b'0', b'-', b' '] {
                let mut changed = bytes.to_vec();
                changed[cut] = replacement;
                let _ = mbconv_mjcf::MjcfFormat.read(
                    &Source::from_string("damaged.xml", String::from_utf8_lossy(&changed).into_owned()),
                    &Options::default(),
                );
                tried += 1;
            }
        }
    }
    assert!(tried > 1000, "{tried}");
}
