//! Numbers as DART 6.20 reads them: its XML helpers convert each number with `std::stod`
//! (C's `strtod` on the token, `std::out_of_range` on overflow and underflow). Each row is a
//! spelling and what DART 6.20 (dartpy 6.20's `SkelParser`, probed on the same file) makes of
//! it; mbconv gives the same value or refuses with a located error.

#![allow(clippy::unwrap_used)]

use mbconv_ir::format::{Format, Imported, Options, Source};
use mbconv_skel::SkelFormat;

/// A pendulum whose COM offset x is `x` and whose joint's upper limit is `upper`.
fn skel(x: &str, upper: &str) -> String {
    format!(
        r#"<?xml version="1.0" ?>
<skel version="1.0">
  <world name="w">
    <skeleton name="s">
      <body name="link">
        <inertia>
          <mass>2</mass>
          <offset>{x} 0 0.5</offset>
        </inertia>
      </body>
      <joint type="revolute" name="hinge">
        <parent>world</parent>
        <child>link</child>
        <axis>
          <xyz>0 1 0</xyz>
          <limit>
            <lower>-1</lower>
            <upper>{upper}</upper>
          </limit>
        </axis>
      </joint>
    </skeleton>
  </world>
</skel>
"#
    )
}

fn read(text: &str) -> Result<Imported, String> {
    SkelFormat
        .read(&Source::from_string("s.skel", text), &Options::default())
        .map_err(|e| e.to_string())
}

/// What DART reads: `Ok(x)`; `Err(Some(x))`: DART reads `x` but mbconv refuses it (a non-finite
/// position, or a token DART reads only the start of); `Err(None)`: DART refuses it
/// (`std::invalid_argument` or `std::out_of_range`).
type Reading = Result<f64, Option<f64>>;

const COORDINATES: &[(&str, Reading)] = &[
    ("2", Ok(2.0)),
    ("+2", Ok(2.0)),
    ("-2", Ok(-2.0)),
    ("2.", Ok(2.0)),
    (".5", Ok(0.5)),
    ("1e5", Ok(1e5)),
    ("1E-3", Ok(1e-3)),
    ("007", Ok(7.0)),
    ("0x10", Ok(16.0)),
    ("0x1p3", Ok(8.0)),
    ("-0X1.8P1", Ok(-3.0)),
    ("inf", Err(Some(f64::INFINITY))),
    ("-Infinity", Err(Some(f64::NEG_INFINITY))),
    ("nan", Err(Some(f64::NAN))),
    ("1_000", Err(Some(1.0))),
    ("1,5", Err(Some(1.0))),
    ("0.t", Err(Some(0.0))),
    ("1e", Err(Some(1.0))),
    ("0o17", Err(Some(0.0))),
    ("1e400", Err(None)),
    ("-1e400", Err(None)),
    ("1e-400", Err(None)),
    ("1e-310", Err(None)),
    (".inf", Err(None)),
    ("x", Err(None)),
];

#[test]
fn coordinates_read_as_dart_reads_them() {
    for (spelling, want) in COORDINATES {
        match (read(&skel(spelling, "2")), want) {
            (Ok(imported), Ok(x)) => {
                let body = &imported.model.bodies[0];
                assert_eq!(body.inertial.com.x.to_bits(), x.to_bits(), "{spelling}");
            }
            (Err(e), Err(_)) => assert!(e.starts_with("s.skel:8:19: "), "{spelling}: {e}"),
            (got, want) => panic!("{spelling}: read {:?}, DART {want:?}", got.map(|_| ())),
        }
    }
}

/// Upper limits: an infinity DART keeps is no bound (`Ok(None)`).
const UPPER_BOUNDS: &[(&str, Result<Option<f64>, ()>)] = &[
    ("2", Ok(Some(2.0))),
    ("0x1p1", Ok(Some(2.0))),
    (" 3 ", Ok(Some(3.0))),
    ("inf", Ok(None)),
    ("+inf", Ok(None)),
    ("INF", Ok(None)),
    ("Inf", Ok(None)),
    ("infinity", Ok(None)),
    ("Infinity", Ok(None)),
    // DART keeps these, meaningless as an upper bound.
    ("-inf", Err(())),
    ("nan", Err(())),
    ("-nan", Err(())),
    // DART refuses these.
    ("1e400", Err(())),
    (".inf", Err(())),
    ("unlimited", Err(())),
];

#[test]
fn limits_read_as_dart_reads_them() {
    for (spelling, want) in UPPER_BOUNDS {
        match (read(&skel("0", spelling)), want) {
            (Ok(imported), Ok(bound)) => {
                let limits = imported.model.joints[0].dofs[0].position_limits;
                assert_eq!(limits.lower, Some(-1.0), "{spelling}");
                assert_eq!(
                    limits.upper.map(f64::to_bits),
                    bound.map(f64::to_bits),
                    "{spelling}"
                );
            }
            (Err(e), Err(())) => assert!(e.starts_with("s.skel:18:"), "{spelling}: {e}"),
            (got, want) => panic!("{spelling}: read {:?}, DART {want:?}", got.map(|_| ())),
        }
    }
}

#[test]
fn dof_element_bounds_and_an_infinite_mass() {
    let text = skel("0", "2").replace(
        "      </joint>",
        "        <dof local_index=\"0\"><velocity lower=\"-inf\" upper=\"Infinity\" /><force lower=\"-5\" upper=\"inf\" /></dof>\n      </joint>",
    );
    let imported = read(&text).unwrap();
    let dof = &imported.model.joints[0].dofs[0];
    assert!(dof.velocity_limits.is_unlimited());
    assert_eq!(
        (dof.effort_limits.lower, dof.effort_limits.upper),
        (Some(-5.0), None)
    );

    let e = read(&skel("0", "2").replace("<mass>2</mass>", "<mass>inf</mass>")).unwrap_err();
    assert_eq!(
        e,
        "s.skel:7:17: expected a finite number in <mass>, found \"inf\""
    );
    let e = read(&text.replace("lower=\"-5\"", "lower=\"inf\"")).unwrap_err();
    assert!(e.contains("cannot be the lower bound of a range"), "{e}");
}
