//! How the reference loaders turn a text into a number, so that each reader accepts the
//! spellings its loader accepts, with the value the loader gives, and refuses the others.
//!
//! Two runtime conversions are modelled here, bit for bit, in the "C" locale:
//!
//! - [`strtod`]: C's `strtod` as glibc implements it (Choreonoid's YAML scalars; urdfdom and
//!   libsdformat go through it too): leading white space, a sign, decimal or hexadecimal
//!   (`0x1p3`) digits, `inf`/`infinity`/`nan`/`nan(...)` in any case; an overflow gives an
//!   infinity, an underflow zero or a subnormal. It reads a *prefix* and says where it stopped.
//! - [`cxx_stream`]: `std::istringstream >> double` of libstdc++ (yaml-cpp's conversion, used by
//!   Chrono), with `std::noskipws` and only white space allowed after the number: decimal forms
//!   only, no `inf`/`nan`/hex, and an out-of-range value (`1e400`) is a failure.
//!
//! What each format's loader adds on top (yaml-cpp's `.inf`, Choreonoid's `unlimited`, ...) lives
//! in that format's crate. This module only reads; it never decides whether a non-finite number
//! means something.

/// C's `strtod` in the "C" locale: the number `text` starts with and the byte offset where
/// the conversion stopped, or `None` when no conversion is possible (`strtod` then returns 0
/// and sets the end to the start).
///
/// ```
/// use mbconv_ir::format::kit::scan::strtod;
/// assert_eq!(strtod("  1.5e2xyz"), Some((150.0, 7)));
/// assert_eq!(strtod("0x1p3"), Some((8.0, 5)));
/// assert_eq!(strtod("-Infinity"), Some((f64::NEG_INFINITY, 9)));
/// assert_eq!(strtod("inf"), Some((f64::INFINITY, 3)));
/// assert_eq!(strtod("1e400"), Some((f64::INFINITY, 5)));
/// assert_eq!(strtod("1_000"), Some((1.0, 1)));
/// assert_eq!(strtod(".inf"), None);
/// assert!(strtod("nan(7)").is_some_and(|(x, end)| x.is_nan() && end == 6));
/// ```
pub fn strtod(text: &str) -> Option<(f64, usize)> {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() && is_c_space(b[i]) {
        i += 1;
    }
    let mut negative = false;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        negative = b[i] == b'-';
        i += 1;
    }
    let sign = |x: f64| if negative { -x } else { x };
    let rest = &b[i..];
    if starts_with_ignore_case(rest, b"inf") {
        let len = if starts_with_ignore_case(rest, b"infinity") {
            8
        } else {
            3
        };
        return Some((sign(f64::INFINITY), i + len));
    }
    if starts_with_ignore_case(rest, b"nan") {
        let mut end = i + 3;
        if b.get(end) == Some(&b'(') {
            let mut j = end + 1;
            while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
                j += 1;
            }
            if b.get(j) == Some(&b')') {
                end = j + 1;
            }
        }
        return Some((sign(f64::NAN), end));
    }
    if rest.len() > 2
        && rest[0] == b'0'
        && (rest[1] == b'x' || rest[1] == b'X')
        && let Some((x, len, _)) = hex(&rest[2..])
    {
        return Some((sign(x), i + 2 + len));
    }
    let len = decimal_prefix(rest)?;
    // The prefix is a decimal number Rust's parser reads the same way, correctly rounded.
    let x: f64 = text[i..i + len].parse().ok()?;
    Some((sign(x), i + len))
}

/// Why `std::stod` throws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StodError {
    /// `std::invalid_argument`: `strtod` read nothing.
    NoNumber,
    /// `std::out_of_range`: `strtod` set `errno` to `ERANGE`: the value overflows to an
    /// infinity, or underflows (a nonzero number read as zero or as an inexact subnormal).
    OutOfRange,
}

/// C++'s `std::stod` with libstdc++ and glibc: [`strtod`], refused when it reads nothing or
/// sets `ERANGE`. Like `strtod` it reads a prefix (the rest is ignored: `std::stod` only
/// reports where it stopped), so the end offset is returned too. `inf` and `nan` read (no
/// `ERANGE`), `1e400` and `1e-310` do not. A decimal text is taken to underflow whenever its
/// nonzero value reads as zero or a subnormal (an exact decimal subnormal needs some 750
/// digits).
///
/// ```
/// use mbconv_ir::format::kit::scan::{StodError, stod};
/// assert_eq!(stod("0.t"), Ok((0.0, 2)));
/// assert_eq!(stod("-inf"), Ok((f64::NEG_INFINITY, 4)));
/// assert_eq!(stod("1e400"), Err(StodError::OutOfRange));
/// assert_eq!(stod("1e-310"), Err(StodError::OutOfRange));
/// assert_eq!(stod("0x1p-1074"), Ok((f64::from_bits(1), 9)));
/// assert_eq!(stod("x"), Err(StodError::NoNumber));
/// ```
pub fn stod(text: &str) -> Result<(f64, usize), StodError> {
    let (x, end) = strtod(text).ok_or(StodError::NoNumber)?;
    let read = text[..end].trim_start_matches(|c: char| c.is_ascii() && is_c_space(c as u8));
    let digits = read.trim_start_matches(['+', '-']);
    let is_hex = digits.len() > 1 && digits.as_bytes()[1].eq_ignore_ascii_case(&b'x');
    let named = digits.starts_with(|c: char| c.is_ascii_alphabetic()); // inf, nan
    if named {
        return Ok((x, end));
    }
    let range_error = if is_hex {
        let b = digits.as_bytes();
        hex(&b[2..])
            .is_some_and(|(_, _, inexact)| inexact && (x.is_infinite() || x.abs() < f64::MIN_POSITIVE))
    } else {
        let mantissa = digits.split(['e', 'E']).next().unwrap_or("");
        let nonzero = mantissa.bytes().any(|c| matches!(c, b'1'..=b'9'));
        x.is_infinite() || (nonzero && x.abs() < f64::MIN_POSITIVE)
    };
    if range_error {
        Err(StodError::OutOfRange)
    } else {
        Ok((x, end))
    }
}

/// `std::istringstream(text) >> std::noskipws >> x` followed by `(stream >> std::ws).eof()`
/// with libstdc++ in the "C" locale: the whole text must be a decimal number (an optional
/// sign, digits with an optional point, an optional exponent with digits), then only white
/// space. No leading white space, no `inf`, `nan` or hexadecimal; a value out of the range of
/// `f64` fails (libstdc++ sets `failbit`), an underflow reads as zero or a subnormal.
///
/// ```
/// use mbconv_ir::format::kit::scan::cxx_stream;
/// assert_eq!(cxx_stream("1."), Some(1.0));
/// assert_eq!(cxx_stream("+.5e1 "), Some(5.0));
/// assert_eq!(cxx_stream(" 1"), None);
/// assert_eq!(cxx_stream("1e400"), None);
/// assert_eq!(cxx_stream("inf"), None);
/// assert_eq!(cxx_stream("0x10"), None);
/// ```
pub fn cxx_stream(text: &str) -> Option<f64> {
    let b = text.as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        i += 1;
    }
    let len = decimal_prefix(&b[i..])?;
    // libstdc++ gathers `e` and a sign even without exponent digits, then `strtod` stops
    // before them: the field is then not fully converted and the read fails.
    let mut gathered = i + len;
    if gathered < b.len() && (b[gathered] == b'e' || b[gathered] == b'E') {
        gathered += 1;
        if gathered < b.len() && (b[gathered] == b'+' || b[gathered] == b'-') {
            gathered += 1;
        }
        while gathered < b.len() && b[gathered].is_ascii_digit() {
            gathered += 1;
        }
        if gathered != i + len {
            return None;
        }
    }
    if !b[gathered..].iter().all(|&c| is_c_space(c)) {
        return None;
    }
    let x: f64 = text[..i + len].parse().ok()?;
    x.is_finite().then_some(x)
}

/// C's `isspace` in the "C" locale.
pub fn is_c_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r')
}

fn starts_with_ignore_case(text: &[u8], word: &[u8]) -> bool {
    text.len() >= word.len() && text[..word.len()].eq_ignore_ascii_case(word)
}

/// The length of the decimal number (no sign) `b` starts with: digits, an optional point and
/// digits (at least one digit in all), an exponent only when digits follow it.
fn decimal_prefix(b: &[u8]) -> Option<usize> {
    let mut end = 0;
    let mut digits = 0;
    while end < b.len() && b[end].is_ascii_digit() {
        end += 1;
        digits += 1;
    }
    if end < b.len() && b[end] == b'.' {
        end += 1;
        while end < b.len() && b[end].is_ascii_digit() {
            end += 1;
            digits += 1;
        }
    }
    if digits == 0 {
        return None;
    }
    if end < b.len() && (b[end] == b'e' || b[end] == b'E') {
        let mut e = end + 1;
        if e < b.len() && (b[e] == b'+' || b[e] == b'-') {
            e += 1;
        }
        let first = e;
        while e < b.len() && b[e].is_ascii_digit() {
            e += 1;
        }
        if e > first {
            end = e;
        }
    }
    Some(end)
}

/// The hexadecimal significand and binary exponent after `0x`: its value, correctly rounded
/// to nearest (ties to even, subnormals included), and its length, or `None` without a digit.
fn hex(b: &[u8]) -> Option<(f64, usize, bool)> {
    const KEPT: u32 = 112; // significant bits gathered before the rest only counts as sticky
    let mut mantissa: u128 = 0;
    let mut bits: u32 = 0; // significant bits held in `mantissa`
    let mut exponent: i64 = 0;
    let mut sticky = false;
    let mut digits = 0;
    let mut end = 0;
    let mut after_point = false;
    loop {
        match b.get(end) {
            Some(&c) if c.is_ascii_hexdigit() => {
                let d = u128::from((c as char).to_digit(16).unwrap_or(0));
                digits += 1;
                if bits + 4 <= KEPT {
                    mantissa = (mantissa << 4) | d;
                    if mantissa != 0 {
                        bits = 128 - mantissa.leading_zeros();
                    }
                    if after_point {
                        exponent -= 4;
                    }
                } else {
                    sticky |= d != 0;
                    if !after_point {
                        exponent += 4;
                    }
                }
            }
            Some(b'.') if !after_point => after_point = true,
            _ => break,
        }
        end += 1;
    }
    if digits == 0 {
        return None;
    }
    if end < b.len() && (b[end] == b'p' || b[end] == b'P') {
        let mut e = end + 1;
        let mut negative = false;
        if e < b.len() && (b[e] == b'+' || b[e] == b'-') {
            negative = b[e] == b'-';
            e += 1;
        }
        let first = e;
        let mut value: i64 = 0;
        while e < b.len() && b[e].is_ascii_digit() {
            value = (value * 10 + i64::from(b[e] - b'0')).min(1 << 20);
            e += 1;
        }
        if e > first {
            exponent += if negative { -value } else { value };
            end = e;
        }
    }
    let (x, inexact) = round_binary(mantissa, exponent, sticky);
    Some((x, end, inexact))
}

/// `mantissa · 2^exponent` (plus a nonzero amount below the last bit when `sticky`) rounded
/// to the nearest `f64`, ties to even, and whether that rounding changed the value.
fn round_binary(mantissa: u128, exponent: i64, sticky: bool) -> (f64, bool) {
    if mantissa == 0 {
        return (0.0, sticky);
    }
    let width = i64::from(128 - mantissa.leading_zeros());
    let top = width - 1 + exponent; // the exponent of the leading bit
    if top > 1023 {
        return (f64::INFINITY, true);
    }
    // Bits of precision available at this magnitude (53, fewer for subnormals).
    let precision = if top >= -1022 { 53 } else { 53 - (-1022 - top) };
    let shift = width - precision.max(0);
    let (mut q, mut scale, mut inexact) = (mantissa, exponent, sticky);
    if shift > 0 {
        let (kept, dropped, half) = if shift >= 128 {
            (0, mantissa, None)
        } else {
            (
                mantissa >> shift,
                mantissa & ((1u128 << shift) - 1),
                Some(1u128 << (shift - 1)),
            )
        };
        let up = match half {
            Some(half) => dropped > half || (dropped == half && (sticky || kept & 1 == 1)),
            None => false,
        };
        inexact |= dropped != 0;
        q = kept + u128::from(up);
        scale = exponent + shift;
    }
    if q == 0 {
        return (0.0, true);
    }
    // q < 2^54 and q · 2^scale is an `f64` (or overflows to infinity): scale in two exact steps.
    let first = scale.clamp(-1000, 1000);
    let x = (q as f64) * pow2(first);
    (x * pow2(scale - first), inexact)
}

/// `2^k` for `k` in the normal exponent range (clamped to it).
fn pow2(k: i64) -> f64 {
    let k = k.clamp(-1022, 1023);
    f64::from_bits(((k + 1023) as u64) << 52)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn strtod_reads_what_glibc_reads() {
        let cases: &[(&str, Option<(f64, usize)>)] = &[
            ("0", Some((0.0, 1))),
            ("+1", Some((1.0, 2))),
            ("1.", Some((1.0, 2))),
            (".5", Some((0.5, 2))),
            ("1e5", Some((1e5, 3))),
            ("1e", Some((1.0, 1))),
            ("1e+", Some((1.0, 1))),
            ("\t 2", Some((2.0, 3))),
            ("2 ", Some((2.0, 1))),
            ("INF", Some((f64::INFINITY, 3))),
            ("infinit", Some((f64::INFINITY, 3))),
            ("-infinity", Some((f64::NEG_INFINITY, 9))),
            ("0x", Some((0.0, 1))),
            ("0x.8", Some((0.5, 4))),
            ("0X1.8P1", Some((3.0, 7))),
            ("0x1p", Some((1.0, 3))),
            ("0x1p-1074", Some((f64::from_bits(1), 9))),
            ("0x1p-1075", Some((0.0, 9))),
            ("0x3p-1076", Some((f64::from_bits(1), 9))),
            ("0x1.fffffffffffff8p0", Some((2.0, 20))),
            (
                "0x1.fffffffffffff7p0",
                Some((f64::from_bits(0x3fff_ffff_ffff_ffff), 20)),
            ),
            ("0x1p1024", Some((f64::INFINITY, 8))),
            ("1e-400", Some((0.0, 6))),
            (".", None),
            ("-", None),
            ("e5", None),
            (".inf", None),
            ("", None),
        ];
        for (text, want) in cases {
            let got = strtod(text);
            match (got, want) {
                (Some((x, e)), Some((y, f))) => {
                    assert_eq!((x.to_bits(), e), (y.to_bits(), *f), "{text:?}")
                }
                _ => assert_eq!(got, *want, "{text:?}"),
            }
        }
        let (x, end) = strtod("-nan(").unwrap();
        assert!(x.is_nan() && x.is_sign_negative() && end == 4);
    }

    #[test]
    fn hexadecimal_reads_round_to_nearest_even() {
        let one_ulp = 1.0 + f64::EPSILON;
        let cases: &[(&str, f64)] = &[
            ("0x1.00000000000008p0", 1.0),
            ("0x1.00000000000018p0", 1.0 + 2.0 * f64::EPSILON),
            // Past the 112 bits gathered, a nonzero digit still breaks the tie upwards.
            ("0x1.00000000000008000000000000000000000000001p0", one_ulp),
            ("0x1.00000000000008000000000000000000000000000p0", 1.0),
            ("0x100000000000000000000000000000000000000000p-164", 1.0),
        ];
        for (text, want) in cases {
            assert_eq!(strtod(text).unwrap().0.to_bits(), want.to_bits(), "{text:?}");
        }
    }

    #[test]
    fn stod_refuses_what_sets_erange_in_glibc() {
        // Checked against glibc's strtod and errno.
        let cases: &[(&str, Result<f64, StodError>)] = &[
            ("1e-310", Err(StodError::OutOfRange)),
            ("4.9406564584124654e-324", Err(StodError::OutOfRange)),
            ("2.2250738585072011e-308", Err(StodError::OutOfRange)),
            ("2.2250738585072014e-308", Ok(f64::MIN_POSITIVE)),
            ("1e-400", Err(StodError::OutOfRange)),
            ("0e-400", Ok(0.0)),
            ("0x1p-1074", Ok(f64::from_bits(1))),
            ("0x1.8p-1074", Err(StodError::OutOfRange)),
            ("0x1p-1022", Ok(f64::MIN_POSITIVE)),
            ("0x1p1024", Err(StodError::OutOfRange)),
            ("1e400", Err(StodError::OutOfRange)),
            ("inf", Ok(f64::INFINITY)),
            ("  -0", Ok(-0.0)),
            ("", Err(StodError::NoNumber)),
            ("-.", Err(StodError::NoNumber)),
        ];
        for (text, want) in cases {
            let got = stod(text).map(|(x, _)| x.to_bits());
            assert_eq!(got, want.map(f64::to_bits), "{text:?}");
        }
    }

    #[test]
    fn the_stream_reads_whole_decimal_fields_only() {
        let cases: &[(&str, Option<f64>)] = &[
            ("1", Some(1.0)),
            ("-2.5", Some(-2.5)),
            ("+3", Some(3.0)),
            ("007", Some(7.0)),
            ("1E+2", Some(100.0)),
            ("1e-400", Some(0.0)),
            ("4 \t", Some(4.0)),
            ("1e", None),
            ("1e+", None),
            ("1x", None),
            ("1 2", None),
            ("1_000", None),
            ("-1e400", None),
            ("nan", None),
            (".", None),
            ("", None),
        ];
        for (text, want) in cases {
            assert_eq!(cxx_stream(text), *want, "{text:?}");
        }
    }
}
