//! Python's string formatting as expressions use it: `"%s %.3f" % (a, b)` and
//! `"{} {:.3f}".format(a, b)`, with the format-spec mini-language for strings, integers and
//! floats (fill, align, sign, width, precision, `s d i f F e E g G % r`).

use crate::expr::{EResult, fail};
use crate::value::{Num, Value, float_repr};
use num_traits::ToPrimitive;

/// A parsed format spec.
#[derive(Default)]
struct Spec {
    fill: Option<char>,
    align: Option<char>,
    sign: Option<char>,
    zero: bool,
    width: usize,
    precision: Option<usize>,
    kind: Option<char>,
    alternate: bool,
    grouping: Option<char>,
}

fn parse_spec(spec: &str) -> EResult<Spec> {
    let chars: Vec<char> = spec.chars().collect();
    let mut s = Spec::default();
    let mut i = 0;
    if chars.len() >= 2 && matches!(chars[1], '<' | '>' | '^' | '=') {
        s.fill = Some(chars[0]);
        s.align = Some(chars[1]);
        i = 2;
    } else if chars.first().is_some_and(|c| matches!(c, '<' | '>' | '^' | '=')) {
        s.align = Some(chars[0]);
        i = 1;
    }
    if i < chars.len() && matches!(chars[i], '+' | '-' | ' ') {
        s.sign = Some(chars[i]);
        i += 1;
    }
    if i < chars.len() && chars[i] == '#' {
        s.alternate = true;
        i += 1;
    }
    if i < chars.len() && chars[i] == '0' {
        s.zero = true;
        i += 1;
    }
    let start = i;
    while i < chars.len() && chars[i].is_ascii_digit() {
        i += 1;
    }
    s.width = chars[start..i].iter().collect::<String>().parse().unwrap_or(0);
    if i < chars.len() && matches!(chars[i], ',' | '_') {
        s.grouping = Some(chars[i]);
        i += 1;
    }
    if i < chars.len() && chars[i] == '.' {
        i += 1;
        let start = i;
        while i < chars.len() && chars[i].is_ascii_digit() {
            i += 1;
        }
        if start == i {
            return fail("Format specifier missing precision");
        }
        s.precision = chars[start..i].iter().collect::<String>().parse().ok();
    }
    if i < chars.len() {
        s.kind = Some(chars[i]);
        i += 1;
    }
    if i < chars.len() {
        return fail(format!("Invalid format specifier '{spec}'"));
    }
    if (s.alternate && !matches!(s.kind, Some('b' | 'o' | 'x' | 'X'))) || (s.grouping.is_some() && s.zero) {
        return fail(format!(
            "the format specifier '{spec}' is not supported by mbconv's xacro"
        ));
    }
    if s.width > crate::builtins::MAX_TEXT || s.precision.is_some_and(|p| p > crate::builtins::MAX_TEXT) {
        return crate::builtins::too_long();
    }
    Ok(s)
}

/// Python's exponent notation with `prec` digits after the point (`1.500000e+00`).
fn exp_notation(x: f64, prec: usize, upper: bool) -> String {
    let s = format!("{x:.prec$e}");
    let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
    let e: i32 = e.parse().unwrap_or(0);
    let out = format!("{m}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs());
    if upper { out.to_uppercase() } else { out }
}

/// Python's `g` with precision `p` (at least 1).
fn general(x: f64, p: usize, upper: bool, strip: bool) -> String {
    if x == 0.0 {
        return if x.is_sign_negative() { "-0" } else { "0" }.to_owned();
    }
    let p = p.max(1);
    let e_form = format!("{:.*e}", p - 1, x);
    let exp: i32 = e_form.split_once('e').map_or(0, |(_, e)| e.parse().unwrap_or(0));
    let p_i = i32::try_from(p).unwrap_or(17);
    let mut out = if exp < -4 || exp >= p_i {
        exp_notation(x, p - 1, upper)
    } else {
        format!("{:.*}", usize::try_from(p_i - 1 - exp).unwrap_or(0), x)
    };
    if strip {
        if let Some(epos) = out.find(['e', 'E']) {
            let (m, e) = out.split_at(epos);
            let m = if m.contains('.') {
                m.trim_end_matches('0').trim_end_matches('.')
            } else {
                m
            };
            out = format!("{m}{e}");
        } else if out.contains('.') {
            out = out.trim_end_matches('0').trim_end_matches('.').to_owned();
        }
    }
    out
}

fn float_text(x: f64, spec: &Spec) -> EResult<String> {
    if !x.is_finite() {
        let t = if x.is_nan() {
            "nan"
        } else if x > 0.0 {
            "inf"
        } else {
            "-inf"
        };
        let upper = spec.kind.is_some_and(|k| k.is_ascii_uppercase());
        return Ok(if upper { t.to_uppercase() } else { t.to_owned() });
    }
    Ok(match spec.kind {
        Some('f' | 'F') => format!("{:.*}", spec.precision.unwrap_or(6), x),
        Some('e' | 'E') => exp_notation(x, spec.precision.unwrap_or(6), spec.kind == Some('E')),
        Some('g' | 'G') => general(x, spec.precision.unwrap_or(6), spec.kind == Some('G'), true),
        Some('%') => format!("{:.*}%", spec.precision.unwrap_or(6), x * 100.0),
        None => match spec.precision {
            Some(p) => {
                let g = general(x, p, false, true);
                if g.contains(['.', 'e', 'n', 'i']) {
                    g
                } else {
                    format!("{g}.0")
                }
            }
            None => float_repr(x),
        },
        Some(k) => return fail(format!("Unknown format code '{k}' for object of type 'float'")),
    })
}

fn grouped_float(body: String, spec: &Spec) -> String {
    match spec.grouping {
        Some(sep) if body.starts_with(|c: char| c == '-' || c.is_ascii_digit()) => {
            group(&body, sep, 3, false)
        }
        _ => body,
    }
}

fn apply(spec: &Spec, body: String, numeric: bool) -> String {
    let (sign, digits) = match body.strip_prefix('-') {
        Some(rest) if numeric => ("-".to_owned(), rest.to_owned()),
        _ => (
            if numeric {
                match spec.sign {
                    Some('+') => "+".to_owned(),
                    Some(' ') => " ".to_owned(),
                    _ => String::new(),
                }
            } else {
                String::new()
            },
            body,
        ),
    };
    let len = sign.chars().count() + digits.chars().count();
    if len >= spec.width {
        return format!("{sign}{digits}");
    }
    let pad = spec.width - len;
    let (fill, align) = if spec.zero && spec.align.is_none() && numeric {
        ('0', '=')
    } else {
        (
            spec.fill.unwrap_or(' '),
            spec.align.unwrap_or(if numeric { '>' } else { '<' }),
        )
    };
    let fills = |n: usize| std::iter::repeat_n(fill, n).collect::<String>();
    match align {
        '<' => format!("{sign}{digits}{}", fills(pad)),
        '^' => format!("{}{sign}{digits}{}", fills(pad / 2), fills(pad - pad / 2)),
        '=' => format!("{sign}{}{digits}", fills(pad)),
        _ => format!("{}{sign}{digits}", fills(pad)),
    }
}

/// Separates the digits of the integer part of `body` (after a sign, up to a point or an
/// exponent) in groups of `every` with `sep`.
fn group(body: &str, sep: char, every: usize, int_only: bool) -> String {
    let (sign, rest) = body.strip_prefix('-').map_or(("", body), |r| ("-", r));
    let end = if int_only {
        rest.len()
    } else {
        rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len())
    };
    let (int, tail) = rest.split_at(end);
    let mut out = String::new();
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % every == 0 {
            out.push(sep);
        }
        out.push(c);
    }
    format!("{sign}{out}{tail}")
}

/// An integer in a format spec's kind (`d`, `n`, `b`, `o`, `x`, `X`), grouped as asked.
fn int_text(i: &num_bigint::BigInt, spec: &Spec) -> String {
    let neg = i.sign() == num_bigint::Sign::Minus;
    let m = i.magnitude();
    let (digits, prefix) = match spec.kind {
        Some('b') => (m.to_str_radix(2), "0b"),
        Some('o') => (m.to_str_radix(8), "0o"),
        Some('x') => (m.to_str_radix(16), "0x"),
        Some('X') => (m.to_str_radix(16).to_uppercase(), "0X"),
        _ => (m.to_string(), ""),
    };
    let radix = !prefix.is_empty();
    let digits = match spec.grouping {
        Some(sep) => group(&digits, sep, if radix { 4 } else { 3 }, true),
        None => digits,
    };
    let prefix = if spec.alternate { prefix } else { "" };
    format!("{}{prefix}{digits}", if neg { "-" } else { "" })
}

/// `format(value, spec)`.
pub(crate) fn format_value(v: &Value, spec_text: &str) -> EResult<String> {
    if spec_text.is_empty() {
        crate::builtins::printable(v)?;
        crate::builtins::no_address(v)?;
        return Ok(v.to_py_str());
    }
    if let Value::Complex(..) = v {
        return fail(format!(
            "the format spec {spec_text:?} of a complex number is not supported by mbconv's xacro"
        ));
    }
    let spec = parse_spec(spec_text)?;
    let int_kind = matches!(spec.kind, None | Some('d' | 'n' | 'b' | 'o' | 'x' | 'X'));
    if let Some(i) = crate::bignum::of(v) {
        if int_kind && !(matches!(v, Value::Bool(_)) && spec.kind.is_none() && spec_text.is_empty()) {
            if matches!(v, Value::Big(_))
                && spec.grouping.is_none()
                && !matches!(spec.kind, Some('b' | 'o' | 'x' | 'X'))
            {
                crate::bignum::text(&i)?;
            }
            return Ok(apply(&spec, int_text(&i, &spec), true));
        }
        if spec.kind == Some('c') {
            let c = i.to_u32().and_then(char::from_u32);
            return c.map_or_else(
                || fail("%c arg not in range(0x110000)"),
                |c| Ok(apply(&spec, c.to_string(), false)),
            );
        }
        if let Value::Big(b) = v
            && spec.kind != Some('s')
        {
            let x = crate::bignum::to_f64(b)?;
            return Ok(apply(&spec, grouped_float(float_text(x, &spec)?, &spec), true));
        }
    }
    let numeric_kind =
        |k: Option<char>| matches!(k, Some('d' | 'f' | 'F' | 'e' | 'E' | 'g' | 'G' | '%' | 'n'));
    match v {
        Value::Str(s) if !numeric_kind(spec.kind) => {
            let mut s = s.to_string();
            if let Some(p) = spec.precision {
                s = s.chars().take(p).collect();
            }
            Ok(apply(&spec, s, false))
        }
        v => match v.as_number() {
            Some(n) if spec.kind != Some('s') => {
                if let (Num::Float(_), Some(k @ ('d' | 'b' | 'o' | 'x' | 'X' | 'c'))) = (n, spec.kind) {
                    return fail(format!("Unknown format code '{k}' for object of type 'float'"));
                }
                Ok(apply(
                    &spec,
                    grouped_float(float_text(n.to_f64(), &spec)?, &spec),
                    true,
                ))
            }
            _ if spec_text.is_empty() => Ok(v.to_py_str()),
            _ => fail(format!(
                "unsupported format string passed to {}.__format__",
                v.type_name()
            )),
        },
    }
}

/// `"...".format(*args, **kwargs)`.
pub(crate) fn format_method(fmt: &str, args: &[Value], kwargs: &[(String, Value)]) -> EResult<Value> {
    let mut out = String::new();
    let mut auto = 0usize;
    let mut chars = fmt.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                out.push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                out.push('}');
            }
            '}' => return fail("Single '}' encountered in format string"),
            '{' => {
                let mut field = String::new();
                loop {
                    match chars.next() {
                        Some('}') => break,
                        Some(c) => field.push(c),
                        None => return fail("expected '}' before end of string"),
                    }
                }
                let (name, spec) = field.split_once(':').unwrap_or((&field, ""));
                let (name, conversion) = name.split_once('!').unwrap_or((name, ""));
                let (head, rest) = match name.find(['.', '[']) {
                    Some(i) => (&name[..i], &name[i..]),
                    None => (name, ""),
                };
                let mut value = if head.is_empty() {
                    let v = args.get(auto).cloned();
                    auto += 1;
                    v.ok_or_else(|| {
                        crate::expr::EvalError(format!(
                            "Replacement index {} out of range for positional args tuple",
                            auto - 1
                        ))
                    })?
                } else if let Ok(i) = head.parse::<usize>() {
                    args.get(i).cloned().ok_or_else(|| {
                        crate::expr::EvalError(format!(
                            "Replacement index {i} out of range for positional args tuple"
                        ))
                    })?
                } else {
                    kwargs
                        .iter()
                        .find(|(k, _)| k == head)
                        .map(|(_, v)| v.clone())
                        .ok_or_else(|| crate::expr::EvalError(format!("KeyError: '{head}'")))?
                };
                let mut rest = rest;
                while !rest.is_empty() {
                    if let Some(r) = rest.strip_prefix('[') {
                        let end = r
                            .find(']')
                            .ok_or_else(|| crate::expr::EvalError("Missing ']' in format string".into()))?;
                        let key = &r[..end];
                        let k = key.parse::<i64>().map_or_else(|_| Value::str(key), Value::Int);
                        value = crate::builtins::index(&value, &k)?;
                        rest = &r[end + 1..];
                    } else {
                        return fail("attribute access in format fields is not supported by mbconv's xacro");
                    }
                }
                let value = match conversion {
                    "" => value,
                    "r" => Value::str(&value.repr()),
                    "s" => Value::str(&value.to_py_str()),
                    other => return fail(format!("Unknown conversion specifier {other}")),
                };
                out.push_str(&format_value(&value, spec)?);
            }
            c => out.push(c),
        }
    }
    Ok(Value::str(&out))
}

/// `fmt % args`.
pub(crate) fn percent(fmt: &str, args: &Value) -> EResult<Value> {
    let items: Vec<Value> = match args {
        Value::Tuple(t) => t.to_vec(),
        other => vec![other.clone()],
    };
    let mut next = items.into_iter();
    let mut out = String::new();
    let mut chars = fmt.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let mut spec = String::new();
        let kind = loop {
            match chars.next() {
                Some(k) if k.is_ascii_alphabetic() || k == '%' => break k,
                Some('(') => return fail("'%(name)' formatting is not supported by mbconv's xacro"),
                Some(c) => spec.push(c),
                None => return fail("incomplete format"),
            }
        };
        if kind == '%' {
            out.push('%');
            continue;
        }
        let Some(v) = next.next() else {
            return fail("not enough arguments for format string");
        };
        let mut s = parse_spec(&spec.replace('-', "<"))?;
        if spec.starts_with('-') {
            s.align = Some('<');
            s.zero = false;
        }
        match kind {
            's' | 'r' => {
                crate::builtins::printable(&v)?;
                crate::builtins::no_address(&v)?;
                let text = if kind == 's' { v.to_py_str() } else { v.repr() };
                let text = match s.precision {
                    Some(p) => text.chars().take(p).collect(),
                    None => text,
                };
                s.precision = None;
                let numeric = false;
                if s.align.is_none() {
                    s.align = Some('>');
                }
                out.push_str(&apply(&s, text, numeric));
            }
            'd' | 'i' | 'u' => {
                if !matches!(
                    v,
                    Value::Int(_) | Value::Big(_) | Value::Bool(_) | Value::Float(_)
                ) {
                    return fail(format!(
                        "%{kind} format: a real number is required, not {}",
                        v.type_name()
                    ));
                }
                let i = crate::builtins::to_int(&v)?;
                crate::builtins::printable(&i)?;
                out.push_str(&apply(&s, i.repr(), true));
            }
            'c' => {
                let c = match &v {
                    Value::Int(i) => u32::try_from(*i).ok().and_then(char::from_u32),
                    Value::Str(t) if t.chars().count() == 1 => t.chars().next(),
                    _ => None,
                };
                let Some(c) = c else {
                    return fail("%c requires int or char");
                };
                if s.align.is_none() {
                    s.align = Some('>');
                }
                out.push_str(&apply(&s, c.to_string(), false));
            }
            'x' | 'X' | 'o' => {
                if let Value::Big(b) = &v {
                    s.kind = Some(kind);
                    s.alternate = false;
                    out.push_str(&apply(&s, int_text(b, &s), true));
                    continue;
                }
                let i = match v {
                    Value::Int(i) => i,
                    Value::Bool(b) => i64::from(b),
                    other => {
                        return fail(format!(
                            "%{kind} format: an integer is required, not {}",
                            other.type_name()
                        ));
                    }
                };
                let magnitude = match kind {
                    'x' => format!("{:x}", i.unsigned_abs()),
                    'X' => format!("{:X}", i.unsigned_abs()),
                    _ => format!("{:o}", i.unsigned_abs()),
                };
                let sign = if i < 0 { "-" } else { "" };
                out.push_str(&apply(&s, format!("{sign}{magnitude}"), true));
            }
            'f' | 'F' | 'e' | 'E' | 'g' | 'G' => {
                let x = crate::expr::number_of(&v, "%-format")?.to_f64();
                s.kind = Some(kind);
                let body = float_text(x, &s)?;
                out.push_str(&apply(&s, body, true));
            }
            other => return fail(format!("unsupported format character '{other}'")),
        }
    }
    if next.next().is_some() {
        return fail("not all arguments converted during string formatting");
    }
    Ok(Value::str(&out))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn s(v: EResult<Value>) -> String {
        v.unwrap().to_py_str()
    }

    #[test]
    fn formats_as_python() {
        assert_eq!(
            s(format_method(
                "{} {:.3f} {x}",
                &[Value::Int(1), Value::Float(0.5)],
                &[("x".into(), Value::str("a"))]
            )),
            "1 0.500 a"
        );
        assert_eq!(
            s(format_method(
                "{:5}|{:<4}|{:>3}",
                &[Value::Int(1), Value::str("a"), Value::str("b")],
                &[]
            )),
            "    1|a   |  b"
        );
        assert_eq!(
            s(format_method(
                "{:g} {:e}",
                &[Value::Float(1e-5), Value::Float(1234.5)],
                &[]
            )),
            "1e-05 1.234500e+03"
        );
        assert_eq!(
            s(percent(
                "%s_%d %.2f",
                &Value::Tuple(std::rc::Rc::new(vec![
                    Value::str("a"),
                    Value::Int(3),
                    Value::Float(1.005)
                ]))
            )),
            "a_3 1.00"
        );
        assert_eq!(s(format_method("{}", &[Value::Float(0.1)], &[])), "0.1");
    }
}
