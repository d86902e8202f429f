//! The reader on damaged input: every prefix of every fixture, and each fixture with bytes
//! replaced by XML's special characters at pseudo-random places (a fixed sequence, so the test
//! is the same every run). Each read either succeeds or returns an error naming a place; it
//! never panics. (The cargo-fuzz target joins `fuzz/` when URDF is registered.)
#![allow(clippy::unwrap_used)]

use mbconv_ir::format::{Format, Options, Source};

fn fixtures() -> Vec<(String, String)> {
    let dir = mbconv_test_support::fixtures_root().join("urdf");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "urdf"))
        .collect();
    files.sort();
    assert!(files.len() >= 5);
    files
        .iter()
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read_to_string(p).unwrap(),
            )
        })
        .collect()
}

fn survives(name: &str, text: &str) -> Result<(), String> {
    let source = Source::from_string(name, text);
    let outcome = std::panic::catch_unwind(|| {
        mbconv_urdf::UrdfFormat
            .read(&source, &Options::default())
            .map(|imported| {
                mbconv_ir::validate::validate_with_spans(&imported.model, &imported.source_map);
            })
    });
    match outcome {
        Err(_) => Err(format!("{name}: panicked on {text:?}")),
        Ok(Err(e)) if !e.to_string().starts_with(&format!("{name}:")) => {
            Err(format!("{name}: error without the file name: {e}"))
        }
        Ok(_) => Ok(()),
    }
}

#[test]
fn every_prefix_reads_or_is_refused() {
    for (name, text) in fixtures() {
        for end in (0..text.len()).filter(|&i| text.is_char_boundary(i)) {
            survives(&name, &text[..end]).unwrap();
        }
    }
}

#[test]
fn damaged_bytes_read_or_are_refused() {
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let specials = [
        "<", ">", "\"", "/", "&", " ", "=", "-", "e", "0", "nan", "world", "a",
    ];
    for (name, text) in fixtures() {
        for _ in 0..600 {
            let mut damaged = text.clone();
            for _ in 0..1 + next() % 3 {
                let at = (next() as usize) % damaged.len();
                if !damaged.is_char_boundary(at) || !damaged.is_char_boundary(at + 1) {
                    continue;
                }
                let with = specials[(next() as usize) % specials.len()];
                damaged.replace_range(at..at + 1, with);
            }
            survives(&name, &damaged).unwrap();
        }
    }
}
