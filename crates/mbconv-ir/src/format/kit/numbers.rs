//! The one way mbconv writes a number into a model file: the shortest text that reads back to
//! the same bits, in plain notation for magnitudes from 1e-5 up to 1e16 and in exponent
//! notation outside that range (so `1e-300` is six characters, not three hundred digits).

/// `x` as the shortest text that reads back to the same `f64`.
///
/// ```
/// use mbconv_ir::format::kit::numbers::format_number;
/// assert_eq!(format_number(1.0), "1");
/// assert_eq!(format_number(-0.0), "-0");
/// assert_eq!(format_number(0.1), "0.1");
/// assert_eq!(format_number(35000.0), "35000");
/// assert_eq!(format_number(1e-7), "1e-7");
/// assert_eq!(format_number(1e-300), "1e-300");
/// assert_eq!(format_number(2.5e20), "2.5e20");
/// ```
pub fn format_number(x: f64) -> String {
    let magnitude = x.abs();
    if magnitude != 0.0 && magnitude.is_finite() && !(1e-5..1e16).contains(&magnitude) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

/// Numbers separated by `separator`, each written by [`format_number`].
///
/// ```
/// assert_eq!(mbconv_ir::format::kit::numbers::join(&[0.0, 1.5, 1e-9], " "), "0 1.5 1e-9");
/// ```
pub fn join(values: &[f64], separator: &str) -> String {
    values
        .iter()
        .map(|x| format_number(*x))
        .collect::<Vec<_>>()
        .join(separator)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn every_finite_number_reads_back_bit_for_bit(
            x in proptest::num::f64::NORMAL | proptest::num::f64::SUBNORMAL | proptest::num::f64::ZERO
        ) {
            let text = format_number(x);
            prop_assert_eq!(text.parse::<f64>().unwrap().to_bits(), x.to_bits());
            prop_assert!(text.len() <= 24, "{}", text);
        }
    }
}
