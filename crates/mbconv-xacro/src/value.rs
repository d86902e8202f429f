//! The values of xacro expressions: the part of Python's object model that description
//! packages use (None, booleans, integers, floats, strings, lists, tuples, dictionaries,
//! functions), printed as Python prints them (`str` and `repr`, the shortest round-trip
//! float with Python's choice between fixed and exponent notation).

use crate::xml::XNode;
use std::cell::RefCell;
use std::fmt::Write as _;
use std::rc::Rc;

/// A dictionary in insertion order (Python 3.7+), keys compared by value.
#[derive(Clone, Debug, Default)]
pub(crate) struct Dict {
    pub entries: Vec<(Value, Value)>,
    /// Loaded from YAML: items read as attributes too (`d.key`, xacro's `YamlDictWrapper`).
    pub dotted: bool,
}

impl Dict {
    pub fn get(&self, key: &Value) -> Option<&Value> {
        self.entries.iter().find(|(k, _)| k.py_eq(key)).map(|(_, v)| v)
    }
    pub fn insert(&mut self, key: Value, value: Value) {
        match self.entries.iter_mut().find(|(k, _)| k.py_eq(&key)) {
            Some((_, v)) => *v = value,
            None => self.entries.push((key, value)),
        }
    }
}

/// A function the expressions may call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Builtin {
    Named(&'static str),
}

/// A value.
#[derive(Clone, Debug)]
pub(crate) enum Value {
    None,
    Bool(bool),
    Int(i64),
    /// An integer beyond 64 bits (Python's are unbounded; see `bignum`).
    Big(Rc<num_bigint::BigInt>),
    Float(f64),
    /// A complex number (`1j`, `(-8) ** 0.5`): real and imaginary parts (see `complex`).
    Complex(f64, f64),
    Str(Rc<str>),
    List(Rc<RefCell<Vec<Value>>>),
    Tuple(Rc<Vec<Value>>),
    Dict(Rc<RefCell<Dict>>),
    Func(Builtin),
    /// A method bound to its object (`"a b".split`).
    Method(Box<Value>, Rc<str>),
    /// A user function (`lambda`).
    Lambda(Rc<crate::expr::Lambda>),
    /// A namespace: the symbols of `ns` of an include, or a built-in one (`math`, `python`,
    /// `xacro`).
    Namespace(crate::scope::Scope),
    /// An XML block (a `*block` parameter or a block property).
    Block(Rc<XNode>),
    /// `range(start, stop, step)`.
    Range(i64, i64, i64),
    /// A `datetime.date` or `datetime.datetime` (a YAML timestamp).
    Time(crate::timestamp::Timestamp),
    /// An iterator made by `map`, `zip`, `reversed`, `enumerate`, `filter`: its items.
    Iter(Rc<Vec<Value>>, &'static str),
}

impl Value {
    pub fn str(s: &str) -> Value {
        Value::Str(Rc::from(s))
    }
    pub fn list(items: Vec<Value>) -> Value {
        Value::List(Rc::new(RefCell::new(items)))
    }
    pub fn dict(d: Dict) -> Value {
        Value::Dict(Rc::new(RefCell::new(d)))
    }

    /// Python's type name, for messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::None => "NoneType",
            Value::Bool(_) => "bool",
            Value::Int(_) | Value::Big(_) => "int",
            Value::Float(_) => "float",
            Value::Complex(..) => "complex",
            Value::Str(_) => "str",
            Value::List(_) => "list",
            Value::Tuple(_) => "tuple",
            Value::Dict(_) => "dict",
            Value::Func(_) | Value::Lambda(_) => "function",
            Value::Method(..) => "builtin_function_or_method",
            Value::Namespace(_) => "NameSpace",
            Value::Block(_) => "Element",
            Value::Iter(_, kind) => kind,
            Value::Time(t) => t.type_name(),
            Value::Range(..) => "range",
        }
    }

    /// Python's truth value.
    pub fn truthy(&self) -> bool {
        match self {
            Value::None => false,
            Value::Bool(b) => *b,
            Value::Int(i) => *i != 0,
            Value::Float(f) => *f != 0.0,
            Value::Complex(re, im) => *re != 0.0 || *im != 0.0,
            Value::Str(s) => !s.is_empty(),
            Value::Big(_) => true,
            Value::Range(a, b, c) => crate::builtins::range_len(*a, *b, *c) > 0,
            Value::List(l) => !l.borrow().is_empty(),
            Value::Tuple(t) => !t.is_empty(),
            Value::Dict(d) => !d.borrow().entries.is_empty(),
            _ => true,
        }
    }

    /// The number, for arithmetic: bools are integers.
    pub fn as_number(&self) -> Option<Num> {
        match self {
            Value::Bool(b) => Some(Num::Int(i64::from(*b))),
            Value::Int(i) => Some(Num::Int(*i)),
            Value::Float(f) => Some(Num::Float(*f)),
            _ => None,
        }
    }

    /// Python's `==`.
    pub fn py_eq(&self, other: &Value) -> bool {
        if let (Some(a), Some(b)) = (self.as_number(), other.as_number()) {
            return match (a, b) {
                (Num::Int(a), Num::Int(b)) => a == b,
                (Num::Int(i), Num::Float(f)) | (Num::Float(f), Num::Int(i)) if i.unsigned_abs() > 1 << 53 => {
                    crate::bignum::cmp_float(&i.into(), f) == Some(std::cmp::Ordering::Equal)
                }
                (a, b) => a.to_f64() == b.to_f64(),
            };
        }
        if let (Value::Complex(re, im), other) | (other, Value::Complex(re, im)) = (self, other) {
            return match other {
                Value::Complex(x, y) => re == x && im == y,
                _ if other.as_number().is_some() || matches!(other, Value::Big(_)) => {
                    *im == 0.0 && Value::Float(*re).py_eq(other)
                }
                _ => false,
            };
        }
        if matches!(self, Value::Big(_)) || matches!(other, Value::Big(_)) {
            return crate::builtins::int_cmp(self, other) == Some(std::cmp::Ordering::Equal);
        }
        match (self, other) {
            (Value::None, Value::None) => true,
            (Value::Str(a), Value::Str(b)) => a == b,
            (Value::List(a), Value::List(b)) => seq_eq(&a.borrow(), &b.borrow()),
            (Value::Tuple(a), Value::Tuple(b)) => seq_eq(a, b),
            (Value::Dict(a), Value::Dict(b)) => {
                let (a, b) = (a.borrow(), b.borrow());
                a.entries.len() == b.entries.len()
                    && a.entries
                        .iter()
                        .all(|(k, v)| b.get(k).is_some_and(|w| v.py_eq(w)))
            }
            (Value::Func(a), Value::Func(b)) => a == b,
            (Value::Time(a), Value::Time(b)) => a.py_eq(b),
            (Value::Range(a, b, c), Value::Range(x, y, z)) => {
                let (n, m) = (
                    crate::builtins::range_len(*a, *b, *c),
                    crate::builtins::range_len(*x, *y, *z),
                );
                n == m && (n == 0 || a == x && (n == 1 || c == z))
            }
            _ => false,
        }
    }

    /// Python's `str()`.
    pub fn to_py_str(&self) -> String {
        match self {
            Value::Str(s) => s.to_string(),
            Value::Time(t) => t.to_py_str(),
            other => other.repr(),
        }
    }

    /// Python's `repr()`.
    pub fn repr(&self) -> String {
        let mut out = String::new();
        self.write_repr(&mut out);
        out
    }

    fn write_repr(&self, out: &mut String) {
        match self {
            Value::None => out.push_str("None"),
            Value::Bool(true) => out.push_str("True"),
            Value::Bool(false) => out.push_str("False"),
            Value::Int(i) => {
                let _ = write!(out, "{i}");
            }
            Value::Big(b) => {
                let _ = write!(out, "{b}");
            }
            Value::Float(f) => out.push_str(&float_repr(*f)),
            Value::Complex(re, im) => out.push_str(&crate::complex::repr(*re, *im)),
            Value::Str(s) => out.push_str(&str_repr(s)),
            Value::List(l) => {
                out.push('[');
                for (i, v) in l.borrow().iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    v.write_repr(out);
                }
                out.push(']');
            }
            Value::Tuple(t) => {
                out.push('(');
                for (i, v) in t.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    v.write_repr(out);
                }
                if t.len() == 1 {
                    out.push(',');
                }
                out.push(')');
            }
            Value::Dict(d) => {
                out.push('{');
                for (i, (k, v)) in d.borrow().entries.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    k.write_repr(out);
                    out.push_str(": ");
                    v.write_repr(out);
                }
                out.push('}');
            }
            Value::Func(Builtin::Named(name)) if crate::builtins::TYPES.contains(name) => {
                let _ = write!(out, "<class '{name}'>");
            }
            Value::Func(Builtin::Named(name)) => {
                let _ = write!(out, "<built-in function {name}>");
            }
            Value::Method(_, name) => {
                let _ = write!(out, "<built-in method {name}>");
            }
            Value::Lambda(_) => out.push_str("<function <lambda>>"),
            Value::Namespace(_) => out.push_str("<NameSpace>"),
            Value::Block(_) => out.push_str("<DOM Element>"),
            Value::Iter(items, kind) if kind.starts_with("dict_") => {
                let _ = write!(out, "{kind}(");
                Value::List(Rc::new(std::cell::RefCell::new(items.to_vec()))).write_repr(out);
                out.push(')');
            }
            Value::Iter(_, kind) => {
                let _ = write!(out, "<{kind} object>");
            }
            Value::Range(a, b, 1) => {
                let _ = write!(out, "range({a}, {b})");
            }
            Value::Range(a, b, c) => {
                let _ = write!(out, "range({a}, {b}, {c})");
            }
            Value::Time(t) => out.push_str(&t.repr()),
        }
    }
}

fn seq_eq(a: &[Value], b: &[Value]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.py_eq(y))
}

/// A number.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Num {
    Int(i64),
    Float(f64),
}

impl Num {
    pub fn to_f64(self) -> f64 {
        match self {
            // Python converts with correct rounding, as `as` does.
            #[allow(clippy::cast_precision_loss)]
            Num::Int(i) => i as f64,
            Num::Float(f) => f,
        }
    }
}

/// Python's `repr(float)`: the shortest digits that read back as `x`, in fixed notation when
/// the decimal exponent is in -4..16, else in exponent notation (`1e-05`, `1e+16`).
///
/// ```text
/// 0.1 -> "0.1", 1.0 -> "1.0", 1e16 -> "1e+16", 1.5e-5 -> "1.5e-05", -0.0 -> "-0.0"
/// ```
pub(crate) fn float_repr(x: f64) -> String {
    if x.is_nan() {
        return "nan".to_owned();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.to_owned();
    }
    // Rust's `{:e}` gives the shortest round-trip digits: "d.ddde<exp>". Where two texts of
    // that length both read back as `x`, Python takes the one nearest to `x` (and the even
    // last digit on a tie: 1e15 + 0.3 is `1000000000000000.2`), Rust's may take the other:
    // the correctly rounded text of as many digits is Python's whenever it reads back.
    let shortest = format!("{:e}", x.abs());
    let count = shortest
        .split('e')
        .next()
        .map_or(1, |m| m.chars().filter(char::is_ascii_digit).count());
    let nearest = format!("{:.*e}", count.saturating_sub(1), x.abs());
    let sci = if nearest != shortest && nearest.parse::<f64>() == Ok(x.abs()) {
        nearest
    } else {
        shortest
    };
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let sign = if x.is_sign_negative() { "-" } else { "" };
    if (-4..16).contains(&exp) {
        let n = digits.len() as i32;
        let body = if exp >= 0 {
            let int_len = exp + 1;
            if n <= int_len {
                format!("{digits}{}.0", "0".repeat((int_len - n) as usize))
            } else {
                format!("{}.{}", &digits[..int_len as usize], &digits[int_len as usize..])
            }
        } else {
            format!("0.{}{digits}", "0".repeat((-exp - 1) as usize))
        };
        format!("{sign}{body}")
    } else {
        let m = if digits.len() > 1 {
            format!("{}.{}", &digits[..1], &digits[1..])
        } else {
            digits
        };
        let esign = if exp < 0 { '-' } else { '+' };
        format!("{sign}{m}e{esign}{:02}", exp.abs())
    }
}

/// Python's `repr(str)`: single quotes unless the text has a single quote and no double one.
pub(crate) fn str_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// Python's `int(text)`: optional sign and surrounding whitespace, digits with single
/// underscores between them.
pub(crate) fn parse_int(text: &str) -> Option<i64> {
    let t = text.trim();
    let (neg, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    if digits.is_empty()
        || digits.starts_with('_')
        || digits.ends_with('_')
        || digits.contains("__")
        || !digits.chars().all(|c| c.is_ascii_digit() || c == '_')
    {
        return None;
    }
    let clean: String = digits.chars().filter(|c| *c != '_').collect();
    let v: i64 = clean.parse().ok()?;
    Some(if neg { -v } else { v })
}

/// Python's `int(text)` as a value: beyond 64 bits too (an error past 4300 digits).
pub(crate) fn parse_int_value(text: &str) -> crate::expr::EResult<Option<Value>> {
    if let Some(i) = parse_int(text) {
        return Ok(Some(Value::Int(i)));
    }
    let t = text.trim();
    let body = t.trim_start_matches(['+', '-']);
    if t.len() - body.len() > 1
        || body.is_empty()
        || body.starts_with('_')
        || body.ends_with('_')
        || body.contains("__")
        || !body.chars().all(|c| c.is_ascii_digit() || c == '_')
    {
        return Ok(None);
    }
    let clean: String = t.chars().filter(|c| *c != '_').collect();
    crate::bignum::parse(&clean, 10)
}

/// Python's `float(text)`: decimal forms, `inf`, `infinity`, `nan` in any case, with
/// surrounding whitespace and single underscores between digits.
pub(crate) fn parse_float(text: &str) -> Option<f64> {
    let t = text.trim();
    let body = t.trim_start_matches(['+', '-']);
    if t.len() - body.len() > 1 {
        return None;
    }
    let lower = body.to_ascii_lowercase();
    if matches!(lower.as_str(), "inf" | "infinity" | "nan") {
        let v = if lower == "nan" { f64::NAN } else { f64::INFINITY };
        return Some(if t.starts_with('-') { -v } else { v });
    }
    if body.is_empty()
        || !body
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-' | '_'))
    {
        return None;
    }
    // Underscores only between digits.
    let b = body.as_bytes();
    for (i, c) in b.iter().enumerate() {
        if *c == b'_' && !(i > 0 && b[i - 1].is_ascii_digit() && b.get(i + 1).is_some_and(u8::is_ascii_digit))
        {
            return None;
        }
    }
    let clean: String = t.chars().filter(|c| *c != '_').collect();
    if !clean.chars().any(|c| c.is_ascii_digit()) {
        return None;
    }
    clean.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_as_python_prints_them() {
        for (x, s) in [
            (0.1, "0.1"),
            (1.0, "1.0"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (1.5e-5, "1.5e-05"),
            (0.0001, "0.0001"),
            (-0.0, "-0.0"),
            (0.1 + 0.2, "0.30000000000000004"),
            (123_456_789_012_345_680.0, "1.2345678901234568e+17"),
            (1e22, "1e+22"),
            (2.5, "2.5"),
            (f64::INFINITY, "inf"),
            (-1.5e-300, "-1.5e-300"),
            (1e15 + 0.3, "1000000000000000.2"),
        ] {
            assert_eq!(float_repr(x), s);
        }
    }

    #[test]
    fn numbers_parse_as_python_parses_them() {
        assert_eq!(parse_int(" 1_000 "), Some(1000));
        assert_eq!(parse_int("1__0"), None);
        assert_eq!(parse_int("1.0"), None);
        assert_eq!(parse_float("1e5"), Some(1e5));
        assert_eq!(parse_float(" -Infinity "), Some(f64::NEG_INFINITY));
        assert_eq!(parse_float("1."), Some(1.0));
        assert_eq!(parse_float(".5"), Some(0.5));
        assert_eq!(parse_float("e5"), None);
        assert_eq!(parse_float("0.1 0 0"), None);
        assert_eq!(str_repr("a'b"), "\"a'b\"");
    }
}
