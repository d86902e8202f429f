//! The design rules against the tables printed in Drake's `LinearBushingRollPitchYaw`
//! documentation (seed `drake_linear_bushing_rpy__002`), and `design()` end to end.
#![allow(clippy::unwrap_used)]

use mbconv_bushing::design::*;
use mbconv_bushing::{BushingError, DesignInputs, design};

/// The critically damped table: settling ratio → ωₙ·tₛ as printed (two decimals).
#[test]
fn critically_damped_table() {
    for (ratio, printed) in [(0.01, "6.64"), (0.02, "5.83"), (0.05, "4.74"), (0.10, "3.89")] {
        let x = critically_damped_product(ratio).unwrap();
        assert_eq!(format!("{x:.2}"), printed, "settling ratio {ratio}");
        // It is a root of (1 + x)·e^(−x) = ratio to rounding.
        assert!(((1.0 + x) * (-x).exp() - ratio).abs() < 1e-15);
        // And ωₙ = x / tₛ.
        assert_eq!(omega_n_critically_damped(2.0, ratio).unwrap(), x / 2.0);
    }
}

/// Rounds `value` the way `printed` is written: fixed decimals ("1.98", "0.005") or a
/// mantissa with decimals and an exponent ("2.9E-5").
fn as_printed(value: f64, printed: &str) -> String {
    match printed.split_once('E') {
        Some((mantissa, exponent)) => {
            let decimals = mantissa.split_once('.').map_or(0, |(_, d)| d.len());
            let e: i32 = exponent.parse().unwrap();
            format!("{:.*}E{e}", decimals, value / 10f64.powi(e))
        }
        None => {
            let decimals = printed.split_once('.').map_or(0, |(_, d)| d.len());
            format!("{value:.decimals$}")
        }
    }
}

/// The overdamped error table (percent error of the dominant-pole ωₙ), every entry to the
/// digits printed.
#[test]
fn overdamped_error_table() {
    let zetas = [1.01, 1.1, 1.2, 1.3, 1.5];
    let table = [
        (0.01, ["1.98", "0.005", "2.9E-5", "1.6E-7", "2.4E-12"]),
        (0.02, ["2.91", "0.016", "1.8E-4", "2.1E-6", "1.6E-10"]),
        (0.05, ["5.10", "0.076", "2.3E-3", "7.0E-5", "4.4E-8"]),
        (0.10, ["8.28", "0.258", "1.6E-2", "1.0E-3", "3.3E-6"]),
    ];
    for (ratio, row) in table {
        for (zeta, printed) in zetas.iter().zip(row) {
            let percent = 100.0 * overdamped_formula_error(ratio, *zeta).unwrap();
            assert_eq!(
                as_printed(percent, printed),
                printed,
                "ratio {ratio}, zeta {zeta}: {percent}"
            );
        }
    }
}

/// The exact overdamped product really is the settling point of the step-free response.
#[test]
fn overdamped_exact_product_satisfies_the_response() {
    for (ratio, zeta) in [(0.01, 1.01), (0.1, 1.5), (0.05, 2.0)] {
        let y = overdamped_exact_product(ratio, zeta).unwrap();
        let sz = (zeta * zeta - 1.0_f64).sqrt();
        let (s1, s2) = (zeta - sz, zeta + sz);
        let response = s2 / (2.0 * sz) * (-s1 * y).exp() - s1 / (2.0 * sz) * (-s2 * y).exp();
        assert!((response - ratio).abs() < 1e-14, "{ratio} {zeta}: {response}");
        let approx = omega_n_overdamped(1.0, ratio, zeta).unwrap();
        assert!(approx >= y, "the dominant-pole estimate never underestimates ωₙ");
    }
}

#[test]
fn underdamped_approximations_match_the_quoted_constants() {
    // "ωₙ ≈ 4.6/(ζ·tₛ) for 1 % and 3/(ζ·tₛ) for 5 %".
    let w = omega_n_underdamped(1.0, 0.01, 0.5, UnderdampedFormula::Envelope).unwrap();
    assert_eq!(format!("{:.1}", w * 0.5), "4.6");
    let w = omega_n_underdamped(1.0, 0.05, 0.5, UnderdampedFormula::Envelope).unwrap();
    assert_eq!(format!("{:.1}", w * 0.5), "3.0");
    let refined = omega_n_underdamped(1.0, 0.01, 0.5, UnderdampedFormula::EnvelopeWithAmplitude).unwrap();
    assert!((refined - (-(0.01 * 0.75_f64.sqrt()).ln() / 0.5)).abs() < 1e-15);
    assert!(omega_n_underdamped(1.0, 0.01, 1.0, UnderdampedFormula::Envelope).is_err());
}

#[test]
fn stiffness_damping_and_log_decrement_rules() {
    assert_eq!(stiffness_from_static_test(50.0, 0.01).unwrap(), 5000.0);
    assert_eq!(stiffness_from_max_load(100.0, 0.001).unwrap(), 100.0 / 0.001);
    assert_eq!(stiffness_from_mass_and_frequency(2.0, 10.0).unwrap(), 200.0);
    assert_eq!(damping_from_ratio_and_frequency(0.5, 200.0, 10.0).unwrap(), 20.0);
    assert_eq!(damping_from_mass_and_stiffness(0.5, 2.0, 200.0).unwrap(), 20.0);
    // δ = 2π/√3 gives ζ = √(δ²/(4π²+δ²)) = 1/2.
    let delta = 2.0 * std::f64::consts::PI / 3f64.sqrt();
    assert!((damping_ratio_from_log_decrement(delta).unwrap() - 0.5).abs() < 1e-15);
    let zeta = damping_ratio_from_decay_ratio((-delta).exp()).unwrap();
    assert!((zeta - 0.5).abs() < 1e-15);
    assert!(stiffness_from_static_test(1.0, 0.0).is_err());
    assert!(damping_ratio_from_decay_ratio(1.5).is_err());
    // A physical check of the decrement: peaks of e^(−ζωₙt)·cos(ω_d t) one period apart.
    let (z, wn) = (0.2_f64, 3.0_f64);
    let wd = wn * (1.0 - z * z).sqrt();
    let ratio = (-z * wn * 2.0 * std::f64::consts::PI / wd).exp();
    assert!((damping_ratio_from_decay_ratio(ratio).unwrap() - z).abs() < 1e-14);
}

#[test]
fn design_from_mass_and_settling_time_is_consistent() {
    let r = design(&DesignInputs {
        mass: Some(2.0),
        settling_time: Some(0.05),
        settling_ratio: Some(0.02),
        ..DesignInputs::default()
    })
    .unwrap();
    let x = critically_damped_product(0.02).unwrap();
    assert_eq!(r.omega_n, x / 0.05);
    assert_eq!(r.stiffness, 2.0 * r.omega_n * r.omega_n);
    assert!((r.damping - 2.0 * (2.0 * r.stiffness).sqrt()).abs() < 1e-9 * r.damping);
    assert_eq!(r.regime, Regime::CriticallyDamped);
    assert_eq!(r.methods.stiffness, "m*omega_n^2");
    let json = serde_json::to_value(&r).unwrap();
    for key in ["omega_n", "stiffness", "damping"] {
        assert!(json[key].is_f64(), "{key} missing in {json}");
    }
}

#[test]
fn design_overdamped_and_underdamped_choose_their_formulas() {
    let over = design(&DesignInputs {
        omega_n: None,
        settling_time: Some(1.0),
        damping_ratio: Some(1.5),
        stiffness: Some(10.0),
        ..DesignInputs::default()
    })
    .unwrap();
    assert_eq!(over.regime, Regime::Overdamped);
    assert_eq!(over.omega_n, omega_n_overdamped(1.0, 0.01, 1.5).unwrap());
    assert_eq!(over.damping, 2.0 * 1.5 * 10.0 / over.omega_n);

    let under = design(&DesignInputs {
        settling_time: Some(2.0),
        log_decrement: Some(1.0),
        mass: Some(3.0),
        ..DesignInputs::default()
    })
    .unwrap();
    assert_eq!(under.regime, Regime::Underdamped);
    let zeta = damping_ratio_from_log_decrement(1.0).unwrap();
    assert_eq!(under.damping_ratio, zeta);
    assert_eq!(under.omega_n, -(0.01_f64).ln() / (zeta * 2.0));
}

#[test]
fn design_from_load_and_mass_without_frequency() {
    let r = design(&DesignInputs {
        load: Some(100.0),
        displacement: Some(0.001),
        mass: Some(4.0),
        damping_ratio: Some(0.5),
        ..DesignInputs::default()
    })
    .unwrap();
    assert_eq!(r.stiffness, 1e5);
    assert_eq!(r.omega_n, (1e5_f64 / 4.0).sqrt());
    assert_eq!(r.methods.damping, "2*zeta*sqrt(m*k)");
    assert!((r.damping - 2.0 * 0.5 * (4.0 * 1e5_f64).sqrt()).abs() < 1e-9);
}

#[test]
fn design_reports_missing_or_conflicting_inputs() {
    let missing = design(&DesignInputs {
        stiffness: Some(10.0),
        ..DesignInputs::default()
    })
    .unwrap_err();
    assert!(
        matches!(missing, BushingError::Design(ref m) if m.contains("natural frequency")),
        "{missing}"
    );
    let conflict = design(&DesignInputs {
        damping_ratio: Some(1.0),
        log_decrement: Some(0.3),
        stiffness: Some(1.0),
        omega_n: Some(1.0),
        ..DesignInputs::default()
    })
    .unwrap_err();
    assert!(conflict.to_string().contains("at most one"), "{conflict}");
    assert!(design(&DesignInputs::default()).is_err());
    let nan = design(&DesignInputs {
        omega_n: Some(f64::NAN),
        stiffness: Some(1.0),
        ..DesignInputs::default()
    });
    assert!(nan.is_err());
}
