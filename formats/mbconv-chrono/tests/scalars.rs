//! Numbers as Chrono reads them: its YAML parser converts every number with yaml-cpp's
//! `as<double>()` (a libstdc++ `istringstream >> double` on the whole scalar, then yaml-cpp's
//! own `.inf`/`.nan` spellings). Each row is a spelling and what Chrono's yaml-cpp (the copy
//! bundled with Chrono, probed with a small C++ program linked against it) makes of it; mbconv
//! must give the same value or refuse with a located error.

#![allow(clippy::unwrap_used)]

use mbconv_chrono::ChronoFormat;
use mbconv_ir::format::{Format, Options, Source};

/// A fixed ground and a body `a` whose location's x is written as given.
fn model(x: &str) -> String {
    format!(
        "chrono-version: 10.0\nmodel:\n  bodies:\n    - name: ground\n      location: [0, 0, 0]\n      fixed: true\n\
         \x20   - name: a\n      location: [{x}, 0, 0]\n      mass: 1\n      inertia:\n        moments: [1, 1, 1]\n"
    )
}

/// Spellings and yaml-cpp's reading: `Ok(x)` the value, `Err(true)` a value that is not finite
/// (yaml-cpp accepts it, mbconv refuses it as a position), `Err(false)` refused by yaml-cpp.
const SPELLINGS: &[(&str, Result<f64, bool>)] = &[
    ("2", Ok(2.0)),
    ("+2", Ok(2.0)),
    ("-2", Ok(-2.0)),
    ("2.", Ok(2.0)),
    (".5", Ok(0.5)),
    ("+.5", Ok(0.5)),
    ("-.5e1", Ok(-5.0)),
    ("1e5", Ok(1e5)),
    ("1E-3", Ok(1e-3)),
    ("007", Ok(7.0)),
    ("\"3 \"", Ok(3.0)),
    ("'4'", Ok(4.0)),
    ("1e-400", Ok(0.0)),
    ("1e-310", Ok(1e-310)),
    // yaml-cpp's infinities and NaN: read by Chrono, meaningless for a position.
    (".inf", Err(true)),
    (".Inf", Err(true)),
    (".INF", Err(true)),
    ("+.inf", Err(true)),
    ("-.inf", Err(true)),
    ("-.Inf", Err(true)),
    (".nan", Err(true)),
    (".NaN", Err(true)),
    (".NAN", Err(true)),
    // Refused by yaml-cpp (BadConversion).
    ("1e400", Err(false)),
    ("-1e400", Err(false)),
    ("inf", Err(false)),
    ("INF", Err(false)),
    ("Infinity", Err(false)),
    ("nan", Err(false)),
    ("NaN", Err(false)),
    (".iNf", Err(false)),
    ("0x10", Err(false)),
    ("0x1p3", Err(false)),
    ("0o17", Err(false)),
    ("0b101", Err(false)),
    ("1_000", Err(false)),
    ("\"1,5\"", Err(false)),
    ("0.t", Err(false)),
    ("1e", Err(false)),
    ("\"3 m\"", Err(false)),
    ("\" 3\"", Err(false)),
    (".", Err(false)),
    ("\"+\"", Err(false)),
    ("''", Err(false)),
    ("~", Err(false)),
    ("1:30", Err(false)),
];

#[test]
fn numbers_read_as_chronos_yaml_cpp_reads_them() {
    for (spelling, want) in SPELLINGS {
        let text = model(spelling);
        let read = ChronoFormat.read(&Source::from_string("s.yaml", text), &Options::default());
        match (read, want) {
            (Ok(imported), Ok(x)) => {
                let a = imported.model.bodies.iter().find(|b| b.name == "a").unwrap();
                assert_eq!(a.pose.translation.x.to_bits(), x.to_bits(), "{spelling}");
            }
            (Err(e), Err(finite)) => {
                let e = e.to_string();
                let expected = if *finite {
                    "s.yaml:8:18: expected a finite number for body location"
                } else {
                    "s.yaml:8:18: expected a number for body location"
                };
                assert!(e.starts_with(expected), "{spelling}: {e}");
            }
            (got, want) => panic!("{spelling}: read {:?}, Chrono {want:?}", got.map(|_| ())),
        }
    }
}
