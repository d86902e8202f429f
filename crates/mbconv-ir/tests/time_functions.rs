//! Time functions against the Chrono-derived vectors and hand calculations.
#![allow(clippy::unwrap_used)]
// 3.14 is the value written in model_slider_crank.yaml, not an approximation of π.
#![allow(clippy::approx_constant)]

use mbconv_ir::{PiecewisePolynomial, TimeFunction};
use serde_json::Value;

/// The Chrono-derived vectors: skipped with a notice when missing, a failure under
/// `MBCONV_REQUIRE_CORPUS=1`.
fn vectors() -> Option<Value> {
    let path = mbconv_test_support::corpus_file("chrono_derived/chrono_conventions_vectors.json")?;
    Some(serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap())
}

#[test]
fn sine_matches_chrono_vectors() {
    let Some(v) = vectors() else { return };
    let mut checked = 0;
    for case in v["sine_examples"].as_array().unwrap() {
        let phase = match case.get("phase_yaml") {
            Some(deg) => deg.as_f64().unwrap().to_radians(),
            None => case["phase"].as_f64().unwrap(),
        };
        let f = TimeFunction::Sine {
            amplitude: case["amplitude"].as_f64().unwrap(),
            frequency: case["frequency"].as_f64().unwrap(),
            phase,
            shift: 0.0,
        };
        let t = case["t"].as_f64().unwrap();
        let expected = case["value"].as_f64().unwrap();
        assert!((f.value(t) - expected).abs() <= 1e-12, "{case}: {}", f.value(t));
        checked += 1;
    }
    assert_eq!(checked, 7);
}

#[test]
fn slider_crank_data_with_repeat_matches_chrono_vectors() {
    let Some(v) = vectors() else { return };
    // model_slider_crank.yaml: DATA table, repeat start 0, width 16, shift 16.
    let data = [
        [0.0, 0.0],
        [1.0, 3.14],
        [4.0, 3.14],
        [5.0, 0.0],
        [8.0, 0.0],
        [9.0, -3.14],
        [12.0, -3.14],
        [13.0, 0.0],
    ];
    let f = TimeFunction::Repeat {
        function: Box::new(TimeFunction::Data {
            points: data.to_vec(),
        }),
        start: 0.0,
        width: 16.0,
        shift: 16.0,
    };
    for case in v["slider_crank_DATA_repeat"].as_array().unwrap() {
        let t = case["t"].as_f64().unwrap();
        assert!(
            (f.value(t) - case["value"].as_f64().unwrap()).abs() <= 1e-12,
            "t = {t}: {}",
            f.value(t)
        );
    }
}

#[test]
fn polynomial_ramp_constant_and_derivatives() {
    let p = TimeFunction::Polynomial {
        coefficients: vec![1.0, -2.0, 3.0],
    };
    assert_eq!(p.value(2.0), 1.0 - 4.0 + 12.0);
    assert_eq!(p.derivative(2.0), -2.0 + 12.0);
    let r = TimeFunction::Ramp {
        slope: 0.5,
        intercept: -1.0,
    };
    assert_eq!((r.value(4.0), r.derivative(4.0)), (1.0, 0.5));
    let c = TimeFunction::Constant { value: 7.0 };
    assert_eq!((c.value(-3.0), c.derivative(1.0)), (7.0, 0.0));
    let s = TimeFunction::Sine {
        amplitude: 2.0,
        frequency: 0.25,
        phase: 0.0,
        shift: 1.0,
    };
    assert!((s.derivative(0.0) - 2.0 * 2.0 * std::f64::consts::PI * 0.25).abs() < 1e-15);
    assert!((s.value(1.0) - 3.0).abs() < 1e-15);
}

#[test]
fn data_is_held_outside_the_table_and_piecewise_picks_its_piece() {
    let d = TimeFunction::Data {
        points: vec![[1.0, 2.0], [3.0, 6.0]],
    };
    assert_eq!((d.value(0.0), d.value(2.0), d.value(9.0)), (2.0, 4.0, 6.0));
    assert_eq!((d.derivative(0.0), d.derivative(2.0)), (0.0, 2.0));
    let pw = TimeFunction::Piecewise {
        knots: vec![1.0],
        pieces: vec![
            TimeFunction::Constant { value: -1.0 },
            TimeFunction::Ramp {
                slope: 1.0,
                intercept: 0.0,
            },
        ],
    };
    assert_eq!((pw.value(0.5), pw.value(1.0), pw.value(2.0)), (-1.0, 1.0, 2.0));
    let shift = PiecewisePolynomial {
        knots: vec![0.0],
        pieces: vec![vec![0.0, 0.5, 2.0], vec![0.0]],
    };
    assert_eq!(shift.value(-2.0), 2.0 * 4.0 - 1.0);
}

#[test]
fn repeat_uses_c_fmod_semantics() {
    // fmod keeps the sign of the dividend: t + shift = -1 maps to start - 1.
    let f = TimeFunction::Repeat {
        function: Box::new(TimeFunction::Ramp {
            slope: 1.0,
            intercept: 0.0,
        }),
        start: 10.0,
        width: 4.0,
        shift: 0.0,
    };
    assert_eq!(f.value(-1.0), 9.0);
    assert_eq!(f.value(5.0), 11.0);
}
