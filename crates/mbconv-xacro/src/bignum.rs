//! Python's unbounded integers: a value that leaves 64 bits is held as a [`BigInt`]
//! (`Value::Big`, never a value that fits an `i64`), with Python's floor division and modulo,
//! its correctly rounded conversions to `float` and true division, exact comparisons with
//! floats, and its limit of 4300 digits on printing and parsing decimal text.

use crate::expr::{EResult, fail};
use crate::value::Value;
use num_bigint::{BigInt, Sign};
use num_integer::Integer;
use num_traits::{FromPrimitive, One, Signed, ToPrimitive, Zero};
use std::cmp::Ordering;
use std::rc::Rc;

/// The most bits an integer may have (a budget: `2 ** 10 ** 9` is stopped, not computed).
const MAX_BITS: u64 = 1 << 20;

/// Python's limit on the digits of an integer converted from or to decimal text.
pub(crate) const MAX_STR_DIGITS: usize = 4300;

/// The integer as a value: `Value::Int` when it fits 64 bits.
pub(crate) fn value(b: BigInt) -> Value {
    match b.to_i64() {
        Some(i) => Value::Int(i),
        None => Value::Big(Rc::new(b)),
    }
}

/// The integer in `v` (a bool, an int of either size), else `None`.
pub(crate) fn of(v: &Value) -> Option<BigInt> {
    match v {
        Value::Bool(b) => Some(BigInt::from(u8::from(*b))),
        Value::Int(i) => Some(BigInt::from(*i)),
        Value::Big(b) => Some((**b).clone()),
        _ => None,
    }
}

/// The error of an integer beyond [`MAX_BITS`].
fn too_big<T>() -> EResult<T> {
    fail(format!(
        "the integer is too large (more than {MAX_BITS} bits): mbconv's xacro stops it"
    ))
}

fn checked(b: BigInt) -> EResult<Value> {
    if b.bits() > MAX_BITS {
        return too_big();
    }
    Ok(value(b))
}

/// `x * 2**k`, exact unless the result leaves the range of floats.
fn ldexp(mut x: f64, mut k: i64) -> f64 {
    while k > 1000 {
        x *= 2f64.powi(1000);
        k -= 1000;
    }
    while k < -1000 {
        x *= 2f64.powi(-1000);
        k += 1000;
    }
    #[allow(clippy::cast_possible_truncation)]
    let k = k as i32;
    x * 2f64.powi(k)
}

/// A magnitude of at least 55 bits, its lowest bit or-ed with whether anything below it was
/// dropped, rounded to a float: correct rounding (the 64-bit conversion rounds half to even).
fn round_magnitude(m: &num_bigint::BigUint, sticky: bool) -> (f64, i64) {
    let bits = m.bits();
    let shift = bits.saturating_sub(64);
    let lost = shift > 0 && m.trailing_zeros().is_some_and(|z| z < shift);
    let top = (m >> shift).to_u64().unwrap_or(u64::MAX) | u64::from(sticky || lost);
    #[allow(clippy::cast_precision_loss)]
    let f = top as f64;
    (f, i64::try_from(shift).unwrap_or(i64::MAX))
}

/// Python's `float(int)`: correctly rounded, an error beyond the range of floats.
pub(crate) fn to_f64(b: &BigInt) -> EResult<f64> {
    let (f, shift) = round_magnitude(b.magnitude(), false);
    let x = ldexp(f, shift);
    if x.is_infinite() {
        return fail("int too large to convert to float");
    }
    Ok(if b.sign() == Sign::Minus { -x } else { x })
}

/// Python's `int / int`: the exact quotient correctly rounded.
pub(crate) fn true_div(a: &BigInt, b: &BigInt) -> EResult<f64> {
    if b.is_zero() {
        return fail("division by zero");
    }
    let limit = BigInt::from(1u64 << 53);
    if a.abs() <= limit && b.abs() <= limit {
        let (x, y) = (a.to_f64().unwrap_or(0.0), b.to_f64().unwrap_or(1.0));
        return Ok(x / y);
    }
    if a.is_zero() {
        return Ok(if b.is_negative() { -0.0 } else { 0.0 });
    }
    let (ma, mb) = (a.magnitude(), b.magnitude());
    let s = 55 + i64::try_from(mb.bits()).unwrap_or(0) - i64::try_from(ma.bits()).unwrap_or(0);
    let (q, r) = if s >= 0 {
        (ma << u64::try_from(s).unwrap_or(0)).div_rem(mb)
    } else {
        ma.div_rem(&(mb << s.unsigned_abs()))
    };
    let (f, shift) = round_magnitude(&q, !r.is_zero());
    let x = ldexp(f, shift - s);
    if x.is_infinite() {
        return fail("integer division result too large for a float");
    }
    Ok(if a.is_negative() == b.is_negative() { x } else { -x })
}

/// The exact integer value of a finite float's integral part.
pub(crate) fn from_f64(f: f64) -> EResult<Value> {
    if f.is_nan() {
        return fail("cannot convert float NaN to integer");
    }
    if f.is_infinite() {
        return fail("cannot convert float infinity to integer");
    }
    Ok(value(BigInt::from_f64(f.trunc()).unwrap_or_default()))
}

/// Compares an integer with a float exactly, as Python does (`None` for NaN).
pub(crate) fn cmp_float(a: &BigInt, f: f64) -> Option<Ordering> {
    if f.is_nan() {
        return None;
    }
    if f.is_infinite() {
        return Some(if f > 0.0 {
            Ordering::Less
        } else {
            Ordering::Greater
        });
    }
    let floor = BigInt::from_f64(f.floor()).unwrap_or_default();
    Some(match a.cmp(&floor) {
        Ordering::Equal if f.fract() != 0.0 => Ordering::Less,
        o => o,
    })
}

/// Integer arithmetic beyond 64 bits (`op` one of Python's binary operators).
pub(crate) fn binary(op: &str, a: &BigInt, b: &BigInt) -> EResult<Value> {
    let zero = || {
        fail(if op == "//" {
            "integer division or modulo by zero"
        } else {
            "integer modulo by zero"
        })
    };
    match op {
        "+" => checked(a + b),
        "-" => checked(a - b),
        "*" => {
            if a.bits() + b.bits() > MAX_BITS + 1 {
                return too_big();
            }
            checked(a * b)
        }
        "/" => true_div(a, b).map(Value::Float),
        "//" if b.is_zero() => zero(),
        "//" => checked(a.div_floor(b)),
        "%" if b.is_zero() => zero(),
        "%" => checked(a.mod_floor(b)),
        "**" => {
            if b.is_negative() {
                if a.is_zero() {
                    return fail("0.0 cannot be raised to a negative power");
                }
                let (x, y) = (to_f64(a)?, to_f64(b)?);
                return Ok(Value::Float(x.powf(y)));
            }
            if a.is_zero() || a.is_one() {
                return Ok(value(if b.is_zero() { BigInt::one() } else { a.clone() }));
            }
            if *a == BigInt::from(-1) {
                return Ok(Value::Int(if b.is_even() { 1 } else { -1 }));
            }
            let e = b
                .to_u64()
                .filter(|e| a.bits().saturating_mul(*e) <= MAX_BITS + 64);
            match e.and_then(|e| u32::try_from(e).ok()) {
                Some(e) => checked(a.pow(e)),
                None => too_big(),
            }
        }
        "&" => checked(a & b),
        "|" => checked(a | b),
        "^" => checked(a ^ b),
        "<<" | ">>" => {
            if b.is_negative() {
                return fail("negative shift count");
            }
            let s = b.to_u64().unwrap_or(u64::MAX);
            if op == ">>" {
                if s >= a.bits() {
                    return Ok(Value::Int(if a.is_negative() { -1 } else { 0 }));
                }
                return checked(a.div_floor(&(BigInt::one() << s)));
            }
            if a.is_zero() {
                return Ok(Value::Int(0));
            }
            if a.bits().saturating_add(s) > MAX_BITS {
                return too_big();
            }
            checked(a << s)
        }
        _ => fail(format!("unsupported operand type(s) for {op}: 'int' and 'int'")),
    }
}

/// Python's `int(text, base)` beyond 64 bits (the text already checked: sign and digits).
pub(crate) fn parse(digits: &str, radix: u32) -> EResult<Option<Value>> {
    let body = digits.trim_start_matches(['+', '-']);
    if radix == 10 && body.len() > MAX_STR_DIGITS {
        return fail(format!(
            "Exceeds the limit ({MAX_STR_DIGITS} digits) for integer string conversion: value \
             has {} digits; use sys.set_int_max_str_digits() to increase the limit",
            body.len()
        ));
    }
    Ok(BigInt::parse_bytes(digits.as_bytes(), radix).map(value))
}

/// Python's `str(int)`, or its error beyond 4300 digits.
pub(crate) fn text(b: &BigInt) -> EResult<String> {
    // Bits over log2(10): a bound on the digits, checked before printing.
    if b.bits() > 14_300 {
        return fail(format!(
            "Exceeds the limit ({MAX_STR_DIGITS} digits) for integer string conversion; use \
             sys.set_int_max_str_digits() to increase the limit"
        ));
    }
    let s = b.to_string();
    if s.trim_start_matches('-').len() > MAX_STR_DIGITS {
        return fail(format!(
            "Exceeds the limit ({MAX_STR_DIGITS} digits) for integer string conversion; use \
             sys.set_int_max_str_digits() to increase the limit"
        ));
    }
    Ok(s)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn big(s: &str) -> BigInt {
        s.parse().unwrap()
    }

    #[test]
    fn arithmetic_is_pythons() {
        let two = BigInt::from(2);
        let p = binary("**", &two, &BigInt::from(100)).unwrap();
        assert_eq!(p.repr(), "1267650600228229401496703205376");
        let m = binary("%", &big("-36893488147419103232"), &BigInt::from(3)).unwrap();
        assert_eq!(m.repr(), "1");
        let d = binary("//", &big("-36893488147419103232"), &BigInt::from(3)).unwrap();
        assert_eq!(d.repr(), "-12297829382473034411");
        assert!(matches!(value(BigInt::from(5)), Value::Int(5)));
    }

    #[test]
    fn conversions_round_correctly() {
        let a = big("1267650600228229401496703205376");
        assert_eq!(
            true_div(&a, &BigInt::from(3)).unwrap(),
            4.225_502_000_760_764_4e29
        );
        assert_eq!(to_f64(&big("9007199254740993")).unwrap(), 9_007_199_254_740_992.0);
        assert_eq!(to_f64(&big("9007199254740995")).unwrap(), 9_007_199_254_740_996.0);
        assert!(to_f64(&(BigInt::one() << 1024u32)).is_err());
        assert_eq!(
            cmp_float(&big("9007199254740993"), 9_007_199_254_740_992.0),
            Some(Ordering::Greater)
        );
    }
}
