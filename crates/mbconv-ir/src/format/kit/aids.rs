//! Exactness aids: the numbers a file wrote, kept under `<format>.source.<key>` in an item's
//! extras when the writer would not reproduce them bit for bit from the IR value (an angle in
//! degrees, a rotation given as Euler angles, axes DART orthonormalises). The format's own
//! writer uses them; every other format ignores them ([`Extras::not_for_format`] leaves them
//! out), because they are not data, only a way to give the same file back.

use crate::value::{Extras, Value};

/// The extras key of the aid `key` of `format`: `<format>.source.<key>`.
///
/// ```
/// assert_eq!(mbconv_ir::format::kit::aids::key("skel", "transformation"), "skel.source.transformation");
/// ```
pub fn key(format: &str, key: &str) -> String {
    format!("{format}.source.{key}")
}

/// Keeps `written` under `<format>.source.<key>` unless it equals `fresh` (what the writer would
/// produce from the IR value) bit for bit.
///
/// ```
/// use mbconv_ir::Extras;
/// use mbconv_ir::format::kit::aids;
/// let mut extras = Extras::default();
/// aids::keep(&mut extras, "chrono", "location", &[0.1, 0.2], &[0.1, 0.2]);
/// assert!(extras.is_empty());
/// aids::keep(&mut extras, "chrono", "location", &[0.1, 0.2], &[0.1, 0.20000000000000004]);
/// assert_eq!(aids::kept(&extras, "chrono", "location"), Some(vec![0.1, 0.2]));
/// ```
pub fn keep(extras: &mut Extras, format: &str, aid: &str, written: &[f64], fresh: &[f64]) {
    if !same_bits(written, fresh) {
        extras.insert(key(format, aid), numbers_value(written));
    }
}

/// The numbers kept under `<format>.source.<key>`.
pub fn kept(extras: &Extras, format: &str, aid: &str) -> Option<Vec<f64>> {
    value_numbers(extras.get(&key(format, aid))?)
}

/// The numbers kept under `<format>.source.<key>`, when there are exactly `N` of them.
pub fn kept_array<const N: usize>(extras: &Extras, format: &str, aid: &str) -> Option<[f64; N]> {
    kept(extras, format, aid)?.try_into().ok()
}

/// Numbers as a verbatim list of floats.
pub fn numbers_value(numbers: &[f64]) -> Value {
    Value::List(numbers.iter().map(|x| Value::Float(*x)).collect())
}

/// A verbatim list of numbers back to floats (`None` when an item is not a number).
pub fn value_numbers(value: &Value) -> Option<Vec<f64>> {
    let Value::List(items) = value else { return None };
    items
        .iter()
        .map(|v| match v {
            Value::Float(x) => Some(*x),
            Value::Int(i) => Some(*i as f64),
            _ => None,
        })
        .collect()
}

/// Bitwise equality of two lists of numbers (`-0` differs from `0`, `NaN` equals itself).
///
/// ```
/// use mbconv_ir::format::kit::aids::same_bits;
/// assert!(same_bits(&[1.0, f64::NAN], &[1.0, f64::NAN]));
/// assert!(!same_bits(&[0.0], &[-0.0]));
/// ```
pub fn same_bits(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}
