//! Numbers as MuJoCo reads them: C's `strtod` must read each whole token; a finite spelling
//! that overflows is "too large". Each row is a spelling and what MuJoCo 4.0 (its Python
//! `MjModel.from_xml_string`, probed on the same model) makes of it; mbconv gives the same
//! value or refuses with a located error.

#![allow(clippy::unwrap_used)]

use mbconv_ir::format::{Format, Options, Source};

fn model(x: &str) -> String {
    format!(
        "<mujoco>\n  <worldbody>\n    <body name=\"b\" pos=\"{x} 0 0.5\">\n      <geom type=\"sphere\" size=\"0.1\" mass=\"1\"/>\n    </body>\n  </worldbody>\n</mujoco>\n"
    )
}

/// Spellings and MuJoCo's value: `Ok(x)`; `Err(Some(x))`: MuJoCo keeps `x` (non-finite),
/// mbconv refuses it; `Err(None)`: MuJoCo refuses it ("bad format", "number is too large").
const SPELLINGS: &[(&str, Result<f64, Option<f64>>)] = &[
    ("2", Ok(2.0)),
    ("+2", Ok(2.0)),
    ("2.", Ok(2.0)),
    (".5", Ok(0.5)),
    ("1e5", Ok(1e5)),
    ("007", Ok(7.0)),
    ("0x10", Ok(16.0)),
    ("0x1p3", Ok(8.0)),
    ("1e-400", Ok(0.0)),
    ("1e-310", Ok(1e-310)),
    ("inf", Err(Some(f64::INFINITY))),
    ("-inf", Err(Some(f64::NEG_INFINITY))),
    ("Infinity", Err(Some(f64::INFINITY))),
    ("INF", Err(Some(f64::INFINITY))),
    ("nan", Err(Some(f64::NAN))),
    ("1e400", Err(None)),
    (".inf", Err(None)),
    ("1_000", Err(None)),
    ("0.t", Err(None)),
    ("1e", Err(None)),
    ("x", Err(None)),
];

#[test]
fn numbers_read_as_mujoco_reads_them() {
    for (spelling, want) in SPELLINGS {
        let source = Source::from_string("s.xml", model(spelling));
        match (mbconv_mjcf::MjcfFormat.read(&source, &Options::default()), want) {
            (Ok(imported), Ok(x)) => {
                let b = imported.model.bodies.iter().find(|b| b.name == "b").unwrap();
                assert_eq!(b.pose.translation.x.to_bits(), x.to_bits(), "{spelling}");
            }
            (Err(e), Err(_)) => {
                let e = e.to_string();
                assert!(e.starts_with("s.xml:3:"), "{spelling}: {e}");
            }
            (got, want) => panic!("{spelling}: read {:?}, MuJoCo {want:?}", got.map(|_| ())),
        }
    }
}

#[test]
fn an_overflow_is_too_large() {
    let source = Source::from_string("s.xml", model("1e400"));
    let e = mbconv_mjcf::MjcfFormat
        .read(&source, &Options::default())
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(e.contains("number is too large in attribute `pos`"), "{e}");
}
