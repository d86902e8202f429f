//! Numbers in Shift JSON. Shift's loader is not public; its files are JSON, so mbconv reads
//! numbers by the JSON grammar (RFC 8259, as serde_json does): an optional `-`, no leading
//! zero, digits with an optional fraction and exponent, correctly rounded; an overflow
//! (`1e400`) is refused, an underflow reads as zero or a subnormal. The non-JSON spellings
//! Shift files could meet (Python's `json`, which writes the published models' generator
//! output, writes `Infinity` and `NaN` for non-finite floats) are refused with a located
//! error that says why.

#![allow(clippy::unwrap_used)]

fn model(x: &str) -> String {
    format!(
        "{{\"assemblies\": [{{\"name\": \"a\", \"bodies\": [{{\"name\": \"b\",\n\"center_of_mass\": [{x}, 0, 0]}}]}}]}}"
    )
}

/// Spellings and the value JSON gives (`None`: not a JSON number).
const SPELLINGS: &[(&str, Option<f64>)] = &[
    ("2", Some(2.0)),
    ("-2", Some(-2.0)),
    ("0", Some(0.0)),
    ("-0", Some(-0.0)),
    ("0.5", Some(0.5)),
    ("1e5", Some(1e5)),
    ("1E+5", Some(1e5)),
    ("2.5e-3", Some(2.5e-3)),
    ("1e-400", Some(0.0)),
    ("1e-310", Some(1e-310)),
    ("1e400", None),
    ("-1e400", None),
    ("+2", None),
    (".5", None),
    ("-.5", None),
    ("2.", None),
    ("007", None),
    ("-01", None),
    ("0x10", None),
    ("1_000", None),
    ("1e", None),
    ("Infinity", None),
    ("-Infinity", None),
    ("NaN", None),
    ("inf", None),
    ("nan", None),
    ("\"2\"", None),
];

#[test]
fn numbers_read_by_the_json_grammar() {
    for (spelling, want) in SPELLINGS {
        let read = read_str("s.json", &model(spelling));
        match (read, want) {
            (Ok(imported), Some(x)) => {
                let b = imported
                    .model
                    .bodies
                    .iter()
                    .find(|b| b.name.ends_with('b'))
                    .unwrap();
                assert_eq!(b.inertial.com.x.to_bits(), x.to_bits(), "{spelling}");
            }
            (Err(e), None) => {
                let e = e.to_string();
                assert!(e.starts_with("s.json:2:"), "{spelling}: {e}");
            }
            (got, want) => panic!("{spelling}: read {:?}, JSON {want:?}", got.map(|_| ())),
        }
    }
}

#[test]
fn the_errors_say_what_is_not_json() {
    let error = |x: &str| read_str("s.json", &model(x)).map(|_| ()).unwrap_err().to_string();
    assert!(
        error("Infinity").starts_with("s.json:2:20: malformed JSON: `Infinity` is not a JSON number"),
        "{}",
        error("Infinity")
    );
    assert!(error("-Infinity").contains("no Shift number can be infinite or NaN"));
    assert!(
        error("1e400").contains("\"1e400\" is out of the range of a double"),
        "{}",
        error("1e400")
    );
    assert!(error("007").contains("no leading zero"), "{}", error("007"));
    assert!(error("+2").contains("no leading `+`"), "{}", error("+2"));
    assert!(error(".5").contains("write `0.5`"), "{}", error(".5"));
    assert!(error("0x10").contains("no hexadecimal"), "{}", error("0x10"));
}

/// Reads `text` as the file `name` through the format's public surface.
fn read_str(name: &str, text: &str) -> Result<mbconv_ir::format::Imported, mbconv_ir::format::FormatError> {
    use mbconv_ir::format::{Format, Options, Source};
    mbconv_shift::ShiftFormat.read(&Source::from_string(name, text), &Options::default())
}
