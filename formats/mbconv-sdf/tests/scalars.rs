//! Numbers as libsdformat reads them: each number token goes through `std::stod` (C's
//! `strtod` on the token, `std::out_of_range` on overflow and underflow, the text after the
//! number ignored). Each row is a spelling and what libsdformat 12.3 (Debian's
//! `libsdformat-dev`, probed with `../shared/oracles/sdformat/sdformat_probe` on the same file,
//! 2026-11-26) makes of it; mbconv gives the same value or refuses with a located error.

#![allow(clippy::unwrap_used)]

use mbconv_ir::format::{Format, Imported, Options, Source};
use mbconv_sdf::SdfFormat;

/// A link of mass `mass` and x position `x`, hinged to the world with the upper limit `upper`.
fn sdf(mass: &str, x: &str, upper: &str) -> String {
    format!(
        r#"<?xml version="1.0"?>
<sdf version="1.9">
  <model name="m">
    <link name="l">
      <pose>{x} 0 0 0 0 0</pose>
      <inertial>
        <mass>{mass}</mass>
      </inertial>
    </link>
    <joint name="j" type="revolute">
      <parent>world</parent>
      <child>l</child>
      <axis>
        <xyz>0 0 1</xyz>
        <limit>
          <lower>-1</lower>
          <upper>{upper}</upper>
        </limit>
      </axis>
    </joint>
  </model>
</sdf>
"#
    )
}

fn read(text: &str) -> Result<Imported, String> {
    SdfFormat
        .read(&Source::from_string("m.sdf", text), &Options::default())
        .map_err(|e| e.to_string())
}

/// What libsdformat reads: `Ok(x)`; `Err(Some(x))`: it reads `x` but mbconv refuses it (a
/// non-finite mass, or a token it reads only the start of); `Err(None)`: it refuses it.
type Reading = Result<f64, Option<f64>>;

const MASSES: &[(&str, Reading)] = &[
    ("2.5", Ok(2.5)),
    ("+2", Ok(2.0)),
    ("2.", Ok(2.0)),
    (".5", Ok(0.5)),
    ("0x1p3", Ok(8.0)),
    ("inf", Err(Some(f64::INFINITY))),
    ("infinity", Err(Some(f64::INFINITY))),
    // libsdformat reads these, then refuses the link's inertia.
    ("-inf", Err(None)),
    ("nan", Err(None)),
    ("2abc", Err(Some(2.0))),
    ("2,5", Err(Some(2.0))),
    ("1_0", Err(Some(1.0))),
    ("1e400", Err(None)),
    ("1e-400", Err(None)),
    (".inf", Err(None)),
];

#[test]
fn masses_read_as_libsdformat_reads_them() {
    for (spelling, want) in MASSES {
        match (read(&sdf(spelling, "0", "2")), want) {
            (Ok(imported), Ok(x)) => {
                let body = &imported.model.bodies[0];
                assert_eq!(body.inertial.mass.to_bits(), x.to_bits(), "{spelling}");
            }
            (Err(e), Err(_)) => assert!(e.starts_with("m.sdf:7:"), "{spelling}: {e}"),
            (got, want) => panic!("{spelling}: read {:?}, libsdformat {want:?}", got.map(|_| ())),
        }
    }
}

/// Pose tokens: libsdformat accepts (`true`) or refuses them; the value is checked on the
/// link's pose where it accepts.
const POSE_X: &[(&str, Option<f64>)] = &[
    ("2", Some(2.0)),
    ("0x1p3", Some(8.0)),
    ("+2", Some(2.0)),
    ("007", Some(7.0)),
    ("-0X1.8P1", Some(-3.0)),
    // Read (only the start) by libsdformat, refused here.
    ("2abc", None),
    ("1,5", None),
    ("1e", None),
    // Refused by libsdformat: out of range, not finite ("Pose values must be finite"), no number.
    ("1e-310", None),
    ("1e400", None),
    ("inf", None),
    ("x", None),
];

#[test]
fn pose_tokens_read_as_libsdformat_reads_them() {
    for (spelling, want) in POSE_X {
        match (read(&sdf("1", spelling, "2")), want) {
            (Ok(imported), Some(x)) => {
                let body = &imported.model.bodies[0];
                assert_eq!(body.pose.translation.x.to_bits(), x.to_bits(), "{spelling}");
            }
            (Err(e), None) => assert!(e.starts_with("m.sdf:5:"), "{spelling}: {e}"),
            (got, want) => panic!("{spelling}: read {:?}, libsdformat {want:?}", got.map(|_| ())),
        }
    }
}

/// Upper limits: an infinity libsdformat keeps is no bound.
const UPPER_BOUNDS: &[(&str, Result<Option<f64>, ()>)] = &[
    ("2", Ok(Some(2.0))),
    ("0x1p1", Ok(Some(2.0))),
    ("inf", Ok(None)),
    ("+inf", Ok(None)),
    ("Infinity", Ok(None)),
    // libsdformat refuses these.
    ("1e400", Err(())),
    (".inf", Err(())),
    ("unlimited", Err(())),
];

#[test]
fn limits_read_as_libsdformat_reads_them() {
    for (spelling, want) in UPPER_BOUNDS {
        match (read(&sdf("1", "0", spelling)), want) {
            (Ok(imported), Ok(bound)) => {
                let limits = imported.model.joints[0].dofs[0].position_limits;
                assert_eq!(limits.lower, Some(-1.0), "{spelling}");
                assert_eq!(
                    limits.upper.map(f64::to_bits),
                    bound.map(f64::to_bits),
                    "{spelling}"
                );
            }
            (Err(e), Err(())) => assert!(e.starts_with("m.sdf:17:"), "{spelling}: {e}"),
            (got, want) => panic!("{spelling}: read {:?}, libsdformat {want:?}", got.map(|_| ())),
        }
    }
}
