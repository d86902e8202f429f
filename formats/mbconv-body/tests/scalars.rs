//! Numbers as Choreonoid reads them. Choreonoid converts a YAML scalar's text with C's
//! `strtod` (`ValueNode::toDouble` for sizes and positions, which takes the number a text
//! starts with; `ValueNode::read(double&)` for range bounds, which wants the whole text, or the
//! symbol `unlimited`). Each row is a spelling and what Choreonoid makes of it (checked
//! against glibc's `strtod`); mbconv must give the same value or refuse with a located error.

#![allow(clippy::unwrap_used)]

use mbconv_body::BodyFormat;
use mbconv_ir::Model;
use mbconv_ir::format::{Format, Imported, Options, Source};

/// A fixed root and a prismatic child (no degree conversion) with `field` written as given.
fn body(child_fields: &str) -> String {
    format!(
        "format: ChoreonoidBody\nformat_version: 2.0\nlinks:\n  - name: root\n    jointType: fixed\n\
         \x20 - name: slider\n    parent: root\n    jointType: prismatic\n    jointAxis: Z\n    mass: 1\n\
         \x20   inertia: [ 1, 0, 0, 0, 1, 0, 0, 0, 1 ]\n{child_fields}"
    )
}

fn read(text: &str) -> Result<Imported, String> {
    BodyFormat
        .read(&Source::from_string("s.body", text), &Options::default())
        .map_err(|e| e.to_string())
}

/// The slider's properties (defaults, all unbounded, when the reader gave it none).
fn slider(model: &Model) -> mbconv_ir::DofProperties {
    let joint = model.joints.iter().find(|j| j.name == "slider").unwrap();
    joint.dofs.first().cloned().unwrap_or_default()
}

/// Spellings of an upper joint-range bound and the bound Choreonoid keeps (`None`: no bound,
/// as `unlimited` or an infinity gives; `Err`: Choreonoid throws "Unknown symbol is used as
/// a jointRange value").
const UPPER_BOUNDS: &[(&str, Result<Option<f64>, ()>)] = &[
    ("2", Ok(Some(2.0))),
    ("+2", Ok(Some(2.0))),
    ("2.", Ok(Some(2.0))),
    (".5", Ok(Some(0.5))),
    ("1e5", Ok(Some(1e5))),
    ("1E-3", Ok(Some(1e-3))),
    ("0x1p3", Ok(Some(8.0))),
    ("0X1.8p1", Ok(Some(3.0))),
    ("007", Ok(Some(7.0))),
    ("\" 3\"", Ok(Some(3.0))),
    ("\"3 \"", Ok(Some(3.0))),
    ("'4'", Ok(Some(4.0))),
    ("1e-400", Ok(Some(0.0))),
    ("inf", Ok(None)),
    ("+inf", Ok(None)),
    ("INF", Ok(None)),
    ("Inf", Ok(None)),
    ("infinity", Ok(None)),
    ("Infinity", Ok(None)),
    ("1e400", Ok(None)),
    ("unlimited", Ok(None)),
    // Refused by Choreonoid (strtod reads nothing, or not the whole text) ...
    (".inf", Err(())),
    ("+.inf", Err(())),
    ("1_000", Err(())),
    ("\"1,5\"", Err(())),
    ("0.t", Err(())),
    ("infinit", Err(())),
    ("Unlimited", Err(())),
    ("0o17", Err(())),
    ("x", Err(())),
    ("''", Err(())),
    // ... or meaningless as an upper bound (Choreonoid would keep them).
    ("-inf", Err(())),
    ("nan", Err(())),
    ("NaN", Err(())),
    ("-nan(1)", Err(())),
];

#[test]
fn joint_range_bounds_read_as_choreonoid_reads_them() {
    for (spelling, want) in UPPER_BOUNDS {
        let text = body(&format!("    jointRange: [ -1, {spelling} ]\n"));
        match (read(&text), want) {
            (Ok(imported), Ok(bound)) => {
                let limits = slider(&imported.model).position_limits;
                assert_eq!(limits.lower, Some(-1.0), "{spelling}");
                assert_eq!(
                    limits.upper.map(f64::to_bits),
                    bound.map(f64::to_bits),
                    "{spelling}"
                );
            }
            (Err(e), Err(())) => assert!(e.starts_with("s.body:12:23: "), "{spelling}: {e}"),
            (got, want) => panic!("{spelling}: read {:?}, Choreonoid {want:?}", got.map(|_| ())),
        }
    }
}

#[test]
fn an_unbounded_joint_range_written_with_inf_reads_and_writes_as_unlimited() {
    // As a real Choreonoid body file writes an unbounded range.
    let text = body("    jointRange: [ 0.0, inf ]\n    maxJointVelocity: inf\n    maxJointEffort: 1e400\n");
    let imported = read(&text).unwrap();
    let dof = slider(&imported.model);
    assert_eq!(
        (dof.position_limits.lower, dof.position_limits.upper),
        (Some(0.0), None)
    );
    assert!(dof.velocity_limits.is_unlimited());
    assert!(dof.effort_limits.is_unlimited());

    let both = read(&body("    jointRange: [ -Infinity, inf ]\n")).unwrap();
    assert!(slider(&both.model).position_limits.is_unlimited());
    let scalar = read(&body("    jointRange: inf\n")).unwrap();
    assert!(slider(&scalar.model).position_limits.is_unlimited());
    let velocity = read(&body("    jointVelocityRange: [ -inf, 3 ]\n")).unwrap();
    let v = slider(&velocity.model).velocity_limits;
    assert_eq!((v.lower, v.upper), (None, Some(3.0)));

    // Written back, the open side is `unlimited`, which reads to the same model.
    let written = BodyFormat.write(&imported.model, &Options::default()).unwrap();
    let body_text = written.text;
    assert!(body_text.contains("[0, unlimited]"), "{body_text}");
    let again = read(&body_text).unwrap();
    assert_eq!(slider(&again.model).position_limits, dof.position_limits);
}

#[test]
fn a_revolute_range_in_degrees_keeps_its_infinite_side_open() {
    let text =
        body("").replace("jointType: prismatic", "jointType: revolute") + "    jointRange: [ -90, inf ]\n";
    let imported = read(&text).unwrap();
    let limits = slider(&imported.model).position_limits;
    assert_eq!(limits.lower, Some(-std::f64::consts::FRAC_PI_2));
    assert_eq!(limits.upper, None);
}

#[test]
fn a_wrong_side_infinity_is_a_located_error() {
    let e = read(&body("    jointRange: [ inf, 1 ]\n")).unwrap_err();
    assert_eq!(
        e,
        "s.body:12:19: \"inf\" (read as inf) cannot be the lower bound of a range"
    );
    let e = read(&body("    maxJointVelocity: -inf\n")).unwrap_err();
    assert!(e.starts_with("s.body:12:23: \"-inf\""), "{e}");
}

/// The value read and whether text after it was ignored, or `Err`: refused.
type Coordinate = Result<(f64, bool), ()>;

/// Spellings of a centre-of-mass coordinate and what `toDouble` gives (`Err`: refused, by
/// Choreonoid when `strtod` reads nothing, by mbconv when the value is not finite, which a
/// position cannot be). `true`: Choreonoid ignores text after the number, which mbconv reports.
const COORDINATES: &[(&str, Coordinate)] = &[
    ("2", Ok((2.0, false))),
    ("-2", Ok((-2.0, false))),
    ("+2", Ok((2.0, false))),
    ("2.", Ok((2.0, false))),
    (".5", Ok((0.5, false))),
    ("-.5e1", Ok((-5.0, false))),
    ("0x1p-2", Ok((0.25, false))),
    ("0x10", Ok((16.0, false))),
    ("\"\t7\"", Ok((7.0, false))),
    ("1_000", Ok((1.0, true))),
    ("0o17", Ok((0.0, true))),
    ("\"1,5\"", Ok((1.0, true))),
    ("0.t", Ok((0.0, true))),
    ("3 m", Ok((3.0, true))),
    ("1e", Ok((1.0, true))),
    ("inf", Err(())),
    ("-Infinity", Err(())),
    ("1e400", Err(())),
    ("nan", Err(())),
    (".inf", Err(())),
    ("-.inf", Err(())),
    (".nan", Err(())),
    ("x", Err(())),
    ("''", Err(())),
    ("~", Err(())),
];

#[test]
fn coordinates_read_as_choreonoid_reads_them() {
    for (spelling, want) in COORDINATES {
        let text = body(&format!("    centerOfMass: [ {spelling}, 0, 0 ]\n"));
        match (read(&text), want) {
            (Ok(imported), Ok((x, reported))) => {
                let body = imported.model.bodies.iter().find(|b| b.name == "slider").unwrap();
                assert_eq!(body.inertial.com.x.to_bits(), x.to_bits(), "{spelling}");
                let lenient = imported
                    .report
                    .findings
                    .iter()
                    .any(|f| f.message.contains("Choreonoid reads its numeric start"));
                assert_eq!(lenient, *reported, "{spelling}");
            }
            (Err(e), Err(())) => assert!(e.starts_with("s.body:12:21: "), "{spelling}: {e}"),
            (got, want) => panic!("{spelling}: read {:?}, Choreonoid {want:?}", got.map(|_| ())),
        }
    }
}

#[test]
fn a_non_finite_mass_is_a_located_error() {
    let e = read(&body("").replace("mass: 1", "mass: inf")).unwrap_err();
    assert_eq!(
        e,
        "s.body:10:11: expected a finite number, found \"inf\" (Choreonoid reads it as inf)"
    );
}
