//! Python's complex numbers, as xacro's expressions meet them: `1j`, `python.complex(1, 2)`,
//! and a negative float to a fractional power (`(-8) ** 0.5`, which Python answers with a
//! complex number). The arithmetic is Python 3.11's: sums and products by components with a
//! real operand taken as `x+0j` (so `inf * 1j` has a NaN part, as in Python), Smith's division,
//! powers by repeated squaring for integer exponents up to 100 and through the polar form
//! otherwise, `abs` as `hypot`; printed as Python's `repr` prints them (`1j`, `(1+2j)`,
//! `(1.7319121124709868e-16+2.8284271247461903j)`, `(-0-1j)`).

use crate::expr::{EResult, fail};
use crate::value::{Value, float_repr, parse_float};

/// A complex number: real and imaginary parts.
pub(crate) type C = (f64, f64);

/// `v` as a complex operand: complex numbers, booleans, integers and floats (`None`:
/// anything else).
pub(crate) fn operand(v: &Value) -> EResult<Option<C>> {
    Ok(Some(match v {
        Value::Complex(re, im) => (*re, *im),
        Value::Bool(b) => (f64::from(u8::from(*b)), 0.0),
        Value::Float(f) => (*f, 0.0),
        Value::Int(_) | Value::Big(_) => match crate::bignum::of(v) {
            Some(i) => (crate::bignum::to_f64(&i)?, 0.0),
            None => return Ok(None),
        },
        _ => return Ok(None),
    }))
}

/// A float printed as Python's `repr` but without the `.0` of an integral value (`1`, `0.5`,
/// `1e+16`, `-0`), as the parts of a complex number print.
fn part(x: f64, sign: bool) -> String {
    let text = float_repr(x);
    let text = text.strip_suffix(".0").map_or(text.clone(), str::to_owned);
    if sign && !text.starts_with('-') {
        format!("+{text}")
    } else {
        text
    }
}

/// Python's `repr(complex)`: only the imaginary part when the real part is `+0.0`.
pub(crate) fn repr(re: f64, im: f64) -> String {
    if re == 0.0 && re.is_sign_positive() {
        format!("{}j", part(im, false))
    } else {
        format!("({}{}j)", part(re, false), part(im, true))
    }
}

fn prod(a: C, b: C) -> C {
    (a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0)
}

/// Smith's division, as CPython divides complex numbers.
fn quot(a: C, b: C) -> EResult<C> {
    let (abs_re, abs_im) = (b.0.abs(), b.1.abs());
    if abs_re >= abs_im {
        if abs_re == 0.0 {
            return fail("complex division by zero");
        }
        let ratio = b.1 / b.0;
        let denom = b.0 + b.1 * ratio;
        Ok(((a.0 + a.1 * ratio) / denom, (a.1 - a.0 * ratio) / denom))
    } else if abs_im >= abs_re {
        let ratio = b.0 / b.1;
        let denom = b.0 * ratio + b.1;
        Ok(((a.0 * ratio + a.1) / denom, (a.1 * ratio - a.0) / denom))
    } else {
        // A NaN in the divisor.
        Ok((f64::NAN, f64::NAN))
    }
}

/// `x ** n` for a natural `n`, by repeated squaring.
fn pow_natural(x: C, n: u64) -> C {
    let (mut r, mut p, mut mask) = ((1.0, 0.0), x, 1u64);
    while mask > 0 && n >= mask {
        if n & mask != 0 {
            r = prod(r, p);
        }
        mask <<= 1;
        p = prod(p, p);
    }
    r
}

/// `a ** b` through the polar form.
fn pow_polar(a: C, b: C) -> EResult<C> {
    if b.0 == 0.0 && b.1 == 0.0 {
        return Ok((1.0, 0.0));
    }
    if a.0 == 0.0 && a.1 == 0.0 {
        if b.1 != 0.0 || b.0 < 0.0 {
            return fail("0.0 to a negative or complex power");
        }
        return Ok((0.0, 0.0));
    }
    let modulus = a.0.hypot(a.1);
    let mut len = modulus.powf(b.0);
    let angle = a.1.atan2(a.0);
    let mut phase = angle * b.0;
    if b.1 != 0.0 {
        len /= (angle * b.1).exp();
        phase += b.1 * modulus.ln();
    }
    Ok((len * phase.cos(), len * phase.sin()))
}

/// `a ** b`.
pub(crate) fn pow(a: C, b: C) -> EResult<C> {
    let r = if b.1 == 0.0 && b.0 == b.0.floor() && b.0.abs() <= 100.0 {
        // An integral exponent of at most 100 in magnitude: exact in an i64.
        #[allow(clippy::cast_possible_truncation)]
        let n = b.0 as i64;
        if n > 0 {
            pow_natural(a, n.unsigned_abs())
        } else {
            quot((1.0, 0.0), pow_natural(a, n.unsigned_abs()))
                .map_err(|_| crate::expr::EvalError("0.0 to a negative or complex power".into()))?
        }
    } else {
        pow_polar(a, b)?
    };
    if r.0.is_infinite() || r.1.is_infinite() {
        return fail("complex exponentiation");
    }
    Ok(r)
}

/// A binary operator with a complex operand (`None`: the other operand is not a number).
pub(crate) fn binary(op: &str, a: &Value, b: &Value) -> Option<EResult<Value>> {
    let (x, y) = match (operand(a), operand(b)) {
        (Ok(Some(x)), Ok(Some(y))) => (x, y),
        (Err(e), _) | (_, Err(e)) => return Some(Err(e)),
        _ => return None,
    };
    let r = match op {
        "+" => Ok((x.0 + y.0, x.1 + y.1)),
        "-" => Ok((x.0 - y.0, x.1 - y.1)),
        "*" => Ok(prod(x, y)),
        "/" => quot(x, y),
        "**" => pow(x, y),
        "//" => fail("can't take floor of complex number."),
        "%" => fail("can't mod complex numbers."),
        _ => fail(format!(
            "unsupported operand type(s) for {op}: '{}' and '{}'",
            a.type_name(),
            b.type_name()
        )),
    };
    Some(r.map(|(re, im)| Value::Complex(re, im)))
}

/// `abs(z)`: the modulus.
pub(crate) fn abs(re: f64, im: f64) -> EResult<Value> {
    if re.is_infinite() || im.is_infinite() {
        return Ok(Value::Float(f64::INFINITY));
    }
    let r = re.hypot(im);
    if r.is_infinite() {
        return fail("absolute value too large");
    }
    Ok(Value::Float(r))
}

/// Python's `complex(real, imag)`, `complex(text)`.
pub(crate) fn construct(args: &[Value]) -> EResult<Value> {
    match args {
        [] => Ok(Value::Complex(0.0, 0.0)),
        [Value::Str(s)] => parse(s).map_or_else(
            || fail("complex() arg is a malformed string"),
            |(re, im)| Ok(Value::Complex(re, im)),
        ),
        [Value::Str(_), _] => fail("complex() can't take second arg if first is a string"),
        [_, Value::Str(_)] => fail("complex() second arg can't be a string"),
        [real, rest @ ..] if rest.len() <= 1 => {
            let number = |v: &Value| {
                operand(v)?.map_or_else(
                    || {
                        fail(format!(
                            "complex() first argument must be a string or a number, not '{}'",
                            v.type_name()
                        ))
                    },
                    Ok,
                )
            };
            let mut r = number(real)?;
            let mut i = match rest.first() {
                Some(v) => number(v)?,
                None => (r.1, 0.0),
            };
            if let Some(Value::Complex(..)) = rest.first() {
                r.0 -= i.1;
            }
            if !rest.is_empty() && matches!(real, Value::Complex(..)) {
                i.0 += r.1;
            }
            Ok(Value::Complex(r.0, i.0))
        }
        _ => fail(format!(
            "complex() takes at most 2 arguments ({} given)",
            args.len()
        )),
    }
}

/// A complex number as Python's `complex(str)` reads it: `1+2j`, `-2.5J`, `j`, `(1-1j)`, `3`,
/// with surrounding whitespace (and inside parentheses).
fn parse(text: &str) -> Option<C> {
    let t = text.trim();
    let t = match t.strip_prefix('(') {
        Some(inner) => inner.strip_suffix(')')?.trim(),
        None => t,
    };
    let imag_part = |s: &str| -> Option<f64> {
        let body = s.strip_suffix(['j', 'J'])?;
        match body {
            "" | "+" => Some(1.0),
            "-" => Some(-1.0),
            _ if body.starts_with(['+', '-'])
                || body
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_digit() || c == '.' || c.is_alphabetic()) =>
            {
                if body.contains(char::is_whitespace) {
                    None
                } else {
                    parse_float(body)
                }
            }
            _ => None,
        }
    };
    if t.is_empty() || t.contains(char::is_whitespace) {
        return None;
    }
    if !t.ends_with(['j', 'J']) {
        return parse_float(t).map(|re| (re, 0.0));
    }
    // The real part ends at the last sign that is not an exponent's.
    let b = t.as_bytes();
    let split = (1..b.len())
        .rev()
        .find(|&k| matches!(b[k], b'+' | b'-') && !matches!(b[k - 1], b'e' | b'E'));
    match split {
        Some(k) => Some((parse_float(&t[..k])?, imag_part(&t[k..])?)),
        None => Some((0.0, imag_part(t)?)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn complex_numbers_print_as_python_prints_them() {
        assert_eq!(repr(0.0, 1.0), "1j");
        assert_eq!(repr(1.0, 2.0), "(1+2j)");
        assert_eq!(repr(-0.0, -1.0), "(-0-1j)");
        assert_eq!(repr(1.5, f64::NAN), "(1.5+nanj)");
        assert_eq!(repr(1e16, 1e-5), "(1e+16+1e-05j)");
        let r = pow((-8.0, 0.0), (0.5, 0.0)).expect("a power");
        assert_eq!(repr(r.0, r.1), "(1.7319121124709868e-16+2.8284271247461903j)");
    }

    #[test]
    fn complex_text_reads_as_python_reads_it() {
        assert_eq!(parse("1+2j"), Some((1.0, 2.0)));
        assert_eq!(parse(" ( -j ) "), Some((0.0, -1.0)));
        assert_eq!(parse("1e-3-2.5J"), Some((1e-3, -2.5)));
        assert_eq!(parse("3"), Some((3.0, 0.0)));
        assert_eq!(parse("1 + 2j"), None);
        assert_eq!(parse("j1"), None);
    }
}
