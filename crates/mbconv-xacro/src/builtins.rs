//! What Python gives xacro's expressions: the operators on each type, the global functions
//! xacro exposes (`len`, `str`, `float`, `int`, `min`, `max`, `round`, the whole `math` module
//! by name, the `python`, `math` and `xacro` namespaces) and the methods of strings, lists and
//! dictionaries that robot descriptions call.

use crate::expr::{EResult, Eval, fail, number_of};
use crate::value::{Builtin, Dict, Num, Value, float_repr, parse_float, parse_int_value};
use num_bigint::BigInt;
use std::rc::Rc;

/// The built-ins xacro exposes directly and in its `python` namespace.
const DIRECT_BUILTINS: &[&str] = &[
    "list", "dict", "map", "len", "str", "float", "int", "bool", "min", "max", "round", "sorted", "range",
];

/// The functions of the `xacro` namespace that xacro also exposes directly.
const DIRECT_XACRO: &[&str] = &["load_yaml", "abs_filename", "dotify"];

/// The rest of the `python` namespace.
const PYTHON_ONLY: &[&str] = &[
    "abs",
    "all",
    "any",
    "divmod",
    "enumerate",
    "filter",
    "ord",
    "repr",
    "reversed",
    "sum",
    "tuple",
    "zip",
    "set",
    "frozenset",
    "hash",
    "isinstance",
    "issubclass",
    "slice",
    "type",
    "vars",
    "complex",
];

/// The built-ins that are classes in Python (printed `<class 'int'>`, the answers of
/// `python.type`).
pub(crate) const TYPES: &[&str] = &[
    "list",
    "dict",
    "map",
    "str",
    "float",
    "int",
    "bool",
    "range",
    "tuple",
    "set",
    "frozenset",
    "slice",
    "complex",
    "enumerate",
    "filter",
    "reversed",
    "zip",
    "type",
];

/// The class `name` as a value, if it is one of [`TYPES`].
fn class(name: &str) -> Option<Value> {
    TYPES
        .iter()
        .find(|t| **t == name)
        .map(|t| Value::Func(Builtin::Named(t)))
}

/// Whether class `a` is class `b` or derives from it (`bool` from `int`).
fn subclass(a: &str, b: &str) -> bool {
    a == b || (a == "bool" && b == "int")
}

/// The class names of `isinstance`'s and `issubclass`'s second argument (a class or a tuple
/// of them).
fn classes(v: &Value, what: &str) -> EResult<Vec<&'static str>> {
    match v {
        Value::Func(Builtin::Named(n)) if TYPES.contains(n) => Ok(vec![*n]),
        Value::Tuple(t) => t
            .iter()
            .map(|c| classes(c, what))
            .collect::<EResult<Vec<_>>>()
            .map(|v| v.concat()),
        _ => fail(format!(
            "{what}() arg 2 must be a type, a tuple of types, or a union"
        )),
    }
}

/// The `math` module's functions.
const MATH_FUNCS: &[&str] = &[
    "acos",
    "acosh",
    "asin",
    "asinh",
    "atan",
    "atan2",
    "atanh",
    "cbrt",
    "ceil",
    "comb",
    "copysign",
    "cos",
    "cosh",
    "degrees",
    "dist",
    "erf",
    "erfc",
    "exp",
    "exp2",
    "expm1",
    "fabs",
    "factorial",
    "floor",
    "fmod",
    "frexp",
    "fsum",
    "gamma",
    "gcd",
    "hypot",
    "isclose",
    "isfinite",
    "isinf",
    "isnan",
    "isqrt",
    "lcm",
    "ldexp",
    "lgamma",
    "log",
    "log10",
    "log1p",
    "log2",
    "modf",
    "nextafter",
    "perm",
    "pow",
    "prod",
    "radians",
    "remainder",
    "sin",
    "sinh",
    "sqrt",
    "tan",
    "tanh",
    "trunc",
    "ulp",
];

/// The `xacro` namespace.
const XACRO_FUNCS: &[&str] = &[
    "load_yaml",
    "abs_filename",
    "dotify",
    "arg",
    "message",
    "warning",
    "error",
    "print_location",
    "fatal",
    "tokenize",
];

fn math_const(name: &str) -> Option<f64> {
    Some(match name {
        "pi" => std::f64::consts::PI,
        "e" => std::f64::consts::E,
        "tau" => std::f64::consts::TAU,
        "inf" => f64::INFINITY,
        "nan" => f64::NAN,
        _ => return None,
    })
}

fn leak_name(prefix: &str, name: &str, list: &'static [&'static str]) -> Option<Value> {
    let found = list.iter().find(|n| **n == name)?;
    Some(Value::Func(Builtin::Named(match prefix {
        "" => found,
        "xacro." => XACRO_NAMES
            .iter()
            .find(|n| n.ends_with(found) && n.len() == found.len() + 6)?,
        _ => found,
    })))
}

/// `xacro.<name>` for every function of the `xacro` namespace (so that a call knows where
/// it goes).
const XACRO_NAMES: &[&str] = &[
    "xacro.load_yaml",
    "xacro.abs_filename",
    "xacro.dotify",
    "xacro.arg",
    "xacro.message",
    "xacro.warning",
    "xacro.error",
    "xacro.print_location",
    "xacro.fatal",
    "xacro.tokenize",
];

/// The global symbol `name` (xacro's `_global_symbols`), if there is one.
pub(crate) fn global(name: &str) -> Option<Value> {
    match name {
        "True" => return Some(Value::Bool(true)),
        "False" => return Some(Value::Bool(false)),
        "python" | "math" | "xacro" => {
            return Some(Value::Namespace(crate::scope::Scope::builtin(match name {
                "python" => "python",
                "math" => "math",
                _ => "xacro",
            })));
        }
        "load_yaml" | "abs_filename" | "dotify" => return leak_name("xacro.", name, XACRO_FUNCS),
        _ => {}
    }
    if let Some(c) = math_const(name) {
        return Some(Value::Float(c));
    }
    leak_name("", name, DIRECT_BUILTINS)
        .or_else(|| leak_name("", name, DIRECT_XACRO))
        .or_else(|| leak_name("", name, MATH_FUNCS))
}

/// Member `name` of the built-in namespace `kind`.
pub(crate) fn namespace_member(kind: &str, name: &str) -> Option<Value> {
    match kind {
        "python" => match name {
            "True" => Some(Value::Bool(true)),
            "False" => Some(Value::Bool(false)),
            _ => leak_name("", name, DIRECT_BUILTINS).or_else(|| leak_name("", name, PYTHON_ONLY)),
        },
        "math" => math_const(name)
            .map(Value::Float)
            .or_else(|| leak_name("", name, MATH_FUNCS)),
        "xacro" => leak_name("xacro.", name, XACRO_FUNCS),
        _ => None,
    }
}

fn to_f(v: &Value, what: &str) -> EResult<f64> {
    Ok(number_of(v, what)?.to_f64())
}

fn int_overflow<T>() -> EResult<T> {
    fail("integer overflow: mbconv's xacro evaluates integers in 64 bits")
}

/// `a op b` for integers, in 64 bits when the result fits, else exactly (`bignum`).
fn int_op(op: &str, a: i64, b: i64) -> EResult<Value> {
    crate::bignum::binary(op, &BigInt::from(a), &BigInt::from(b))
}

/// Compares two numbers of which one may be an integer beyond 64 bits, exactly (`None`:
/// not both numbers, or a NaN).
pub(crate) fn int_cmp(a: &Value, b: &Value) -> Option<std::cmp::Ordering> {
    match (crate::bignum::of(a), crate::bignum::of(b)) {
        (Some(x), Some(y)) => Some(x.cmp(&y)),
        (Some(x), None) => match b {
            Value::Float(f) => crate::bignum::cmp_float(&x, *f),
            _ => None,
        },
        (None, Some(y)) => match a {
            Value::Float(f) => crate::bignum::cmp_float(&y, *f).map(std::cmp::Ordering::reverse),
            _ => None,
        },
        (None, None) => None,
    }
}

/// A value usable as a dictionary key.
pub(crate) fn hashable(v: &Value) -> EResult<()> {
    match v {
        Value::List(_) | Value::Dict(_) => fail(format!("unhashable type: '{}'", v.type_name())),
        Value::Tuple(items) => items.iter().try_for_each(hashable),
        _ => Ok(()),
    }
}

/// An integer index.
pub(crate) fn as_index(v: &Value) -> EResult<i64> {
    match v {
        Value::Int(i) => Ok(*i),
        Value::Bool(b) => Ok(i64::from(*b)),
        Value::Big(_) => fail("cannot fit 'int' into an index-sized integer"),
        other => fail(format!(
            "indices must be integers or slices, not {}",
            other.type_name()
        )),
    }
}

/// The items of an iterable.
pub(crate) fn iterate(v: &Value) -> EResult<Vec<Value>> {
    match v {
        Value::List(l) => Ok(l.borrow().clone()),
        Value::Tuple(t) => Ok(t.to_vec()),
        Value::Iter(items, _) => Ok(items.to_vec()),
        Value::Range(start, stop, step) => {
            if range_len(*start, *stop, *step) > 10_000_000 {
                return fail("range() is too long for mbconv's xacro (more than 10 million items)");
            }
            let mut out = Vec::new();
            let mut i = *start;
            while (*step > 0 && i < *stop) || (*step < 0 && i > *stop) {
                out.push(Value::Int(i));
                i += step;
            }
            Ok(out)
        }
        Value::Str(s) => Ok(s.chars().map(|c| Value::str(&c.to_string())).collect()),
        Value::Dict(d) => Ok(d.borrow().entries.iter().map(|(k, _)| k.clone()).collect()),
        other => fail(format!("'{}' object is not iterable", other.type_name())),
    }
}

fn norm_index(i: i64, len: usize, what: &str) -> EResult<usize> {
    let len_i = i64::try_from(len).unwrap_or(i64::MAX);
    let j = if i < 0 { i + len_i } else { i };
    if j < 0 || j >= len_i {
        return fail(format!("{what} index out of range"));
    }
    Ok(usize::try_from(j).unwrap_or(0))
}

/// `obj[index]`.
pub(crate) fn index(obj: &Value, index: &Value) -> EResult<Value> {
    match obj {
        Value::List(l) => {
            let l = l.borrow();
            Ok(l[norm_index(as_index_of(index, "list")?, l.len(), "list")?].clone())
        }
        Value::Tuple(t) => Ok(t[norm_index(as_index_of(index, "tuple")?, t.len(), "tuple")?].clone()),
        Value::Range(start, _, step) => {
            let len = usize::try_from(range_len_of(obj)).unwrap_or(usize::MAX);
            let i = i64::try_from(norm_index(
                as_index_of(index, "range object")?,
                len,
                "range object",
            )?)
            .unwrap_or(0);
            Ok(Value::Int(start + i * step))
        }
        Value::Str(s) => {
            let chars: Vec<char> = s.chars().collect();
            let i = norm_index(as_index_of(index, "string")?, chars.len(), "string")?;
            Ok(Value::str(&chars[i].to_string()))
        }
        Value::Dict(d) => {
            hashable(index)?;
            let d = d.borrow();
            match d.get(index) {
                Some(v) if d.dotted => Ok(dotted(v)),
                Some(v) => Ok(v.clone()),
                None if d.dotted => fail(format!("The yaml dictionary has no key '{}'", index.to_py_str())),
                None => fail(format!("KeyError: {}", index.repr())),
            }
        }
        other => fail(format!("'{}' object is not subscriptable", other.type_name())),
    }
}

fn as_index_of(v: &Value, what: &str) -> EResult<i64> {
    match v {
        Value::Int(i) => Ok(*i),
        Value::Bool(b) => Ok(i64::from(*b)),
        other => fail(format!(
            "{what} indices must be integers or slices, not {}",
            other.type_name()
        )),
    }
}

/// Python's `slice.indices(len)`: start, stop and step within a sequence of `len` items.
fn slice_bounds(len: i64, bounds: [Option<i64>; 3]) -> EResult<(i64, i64, i64)> {
    let n = len;
    let step = bounds[2].unwrap_or(1);
    if step == 0 {
        return fail("slice step cannot be zero");
    }
    let clamp = |i: i64, lo: i64, hi: i64| {
        let i = if i < 0 { i.saturating_add(n) } else { i };
        i.clamp(lo, hi)
    };
    Ok(if step > 0 {
        (
            bounds[0].map_or(0, |i| clamp(i, 0, n)),
            bounds[1].map_or(n, |i| clamp(i, 0, n)),
            step,
        )
    } else {
        (
            bounds[0].map_or(n - 1, |i| clamp(i, -1, n - 1)),
            bounds[1].map_or(-1, |i| clamp(i, -1, n - 1)),
            step,
        )
    })
}

fn range_len_of(v: &Value) -> i64 {
    match v {
        Value::Range(a, b, c) => range_len(*a, *b, *c),
        _ => 0,
    }
}

/// The number of items of `range(start, stop, step)`.
pub(crate) fn range_len(start: i64, stop: i64, step: i64) -> i64 {
    let (lo, hi, st) = if step > 0 {
        (i128::from(start), i128::from(stop), i128::from(step))
    } else {
        (i128::from(stop), i128::from(start), -i128::from(step))
    };
    if lo >= hi {
        0
    } else {
        i64::try_from((hi - lo - 1) / st + 1).unwrap_or(i64::MAX)
    }
}

fn slice_indices(len: usize, bounds: [Option<i64>; 3]) -> EResult<Vec<usize>> {
    let (start, stop, step) = slice_bounds(i64::try_from(len).unwrap_or(i64::MAX), bounds)?;
    let mut out = Vec::new();
    let mut i = start;
    while (step > 0 && i < stop) || (step < 0 && i > stop) {
        out.push(usize::try_from(i).unwrap_or(0));
        i += step;
    }
    Ok(out)
}

/// `obj[a:b:c]`.
pub(crate) fn slice(obj: &Value, bounds: [Option<i64>; 3]) -> EResult<Value> {
    match obj {
        Value::List(l) => {
            let l = l.borrow();
            let idx = slice_indices(l.len(), bounds)?;
            Ok(Value::list(idx.into_iter().map(|i| l[i].clone()).collect()))
        }
        Value::Tuple(t) => {
            let idx = slice_indices(t.len(), bounds)?;
            Ok(Value::Tuple(Rc::new(
                idx.into_iter().map(|i| t[i].clone()).collect(),
            )))
        }
        Value::Str(s) => {
            let chars: Vec<char> = s.chars().collect();
            let idx = slice_indices(chars.len(), bounds)?;
            Ok(Value::str(&idx.into_iter().map(|i| chars[i]).collect::<String>()))
        }
        Value::Range(start, _, step) => {
            let (a, b, c) = slice_bounds(range_len_of(obj), bounds)?;
            let at = |i: i64| i128::from(*start) + i128::from(i) * i128::from(*step);
            let fit = |v: i128| i64::try_from(v).map_or_else(|_| int_overflow(), Ok);
            Ok(Value::Range(
                fit(at(a))?,
                fit(at(b))?,
                fit(i128::from(*step) * i128::from(c))?,
            ))
        }
        other => fail(format!("'{}' object is not subscriptable", other.type_name())),
    }
}

/// An item read from a dictionary with dotted access (xacro's `YamlDictWrapper`): a
/// dictionary in it reads with dotted access too, and so do the dictionaries of a list in it
/// (a copy, as xacro wraps it; already dotted ones, as YAML's, are kept).
fn dotted(v: &Value) -> Value {
    fn needs(v: &Value) -> bool {
        match v {
            Value::Dict(d) => !d.borrow().dotted,
            Value::List(l) => l.borrow().iter().any(needs),
            _ => false,
        }
    }
    match v {
        Value::Dict(d) if !d.borrow().dotted => {
            let mut copy = d.borrow().clone();
            copy.dotted = true;
            Value::dict(copy)
        }
        Value::List(l) if needs(v) => Value::list(l.borrow().iter().map(dotted).collect()),
        other => other.clone(),
    }
}

/// The part of `s` between the character indices `args[first]` and `args[first + 1]` (a
/// slice's `start` and `end`, `None` or absent for the ends) and where it starts; `None` when
/// the start is past the end, where `find`, `count` and `startswith` find nothing.
fn window(s: &str, args: &[Value], first: usize) -> EResult<Option<(String, i64)>> {
    let chars: Vec<char> = s.chars().collect();
    let len = i64::try_from(chars.len()).unwrap_or(i64::MAX);
    let bound = |i: usize, default: i64| -> EResult<i64> {
        Ok(match args.get(i) {
            None | Some(Value::None) => default,
            Some(v) => {
                let n = as_index(v)?;
                if n < 0 { (n + len).max(0) } else { n }
            }
        })
    };
    let (start, end) = (bound(first, 0)?, bound(first + 1, len)?.min(len));
    if start > end {
        return Ok(None);
    }
    let at = |i: i64| usize::try_from(i).unwrap_or(0);
    Ok(Some((chars[at(start)..at(end)].iter().collect(), start)))
}

/// `obj.name`.
pub(crate) fn attribute(ev: &mut Eval, obj: Value, name: &str) -> EResult<Value> {
    match &obj {
        Value::Namespace(ns) => ev.env.namespace_attr(ns, name),
        Value::Complex(re, im) if matches!(name, "real" | "imag") => {
            Ok(Value::Float(if name == "real" { *re } else { *im }))
        }
        Value::Float(_) | Value::Int(_) | Value::Big(_) | Value::Bool(_)
            if matches!(name, "real" | "imag") =>
        {
            Ok(if name == "imag" {
                if matches!(obj, Value::Float(_)) {
                    Value::Float(0.0)
                } else {
                    Value::Int(0)
                }
            } else if let Value::Bool(b) = obj {
                Value::Int(i64::from(b))
            } else {
                obj.clone()
            })
        }
        Value::Time(t) if t.field(name).is_some() => Ok(Value::Int(t.field(name).unwrap_or_default())),
        Value::Dict(d) if d.borrow().dotted && !is_dict_method(name) => {
            let d = d.borrow();
            match d.get(&Value::str(name)) {
                Some(v) => Ok(dotted(v)),
                None => fail(format!("The yaml dictionary has no key '{name}'")),
            }
        }
        Value::Str(_)
        | Value::List(_)
        | Value::Dict(_)
        | Value::Tuple(_)
        | Value::Int(_)
        | Value::Complex(..)
        | Value::Float(_) => {
            if has_method(&obj, name) {
                Ok(Value::Method(Box::new(obj.clone()), Rc::from(name)))
            } else {
                fail(format!("'{}' object has no attribute '{name}'", obj.type_name()))
            }
        }
        other => fail(format!(
            "'{}' object has no attribute '{name}'",
            other.type_name()
        )),
    }
}

fn is_dict_method(name: &str) -> bool {
    matches!(name, "get" | "keys" | "values" | "items")
}

fn has_method(obj: &Value, name: &str) -> bool {
    match obj {
        Value::Str(_) => matches!(
            name,
            "upper"
                | "lower"
                | "strip"
                | "lstrip"
                | "rstrip"
                | "split"
                | "rsplit"
                | "join"
                | "replace"
                | "startswith"
                | "endswith"
                | "format"
                | "find"
                | "rfind"
                | "count"
                | "isdigit"
                | "isalpha"
                | "isalnum"
                | "isspace"
                | "capitalize"
                | "title"
                | "zfill"
                | "index"
                | "splitlines"
                | "isupper"
                | "islower"
                | "swapcase"
                | "removeprefix"
                | "removesuffix"
                | "center"
                | "ljust"
                | "rjust"
                | "partition"
                | "rpartition"
                | "rindex"
                | "casefold"
                | "expandtabs"
                | "isnumeric"
                | "isdecimal"
                | "istitle"
                | "encode"
        ),
        Value::List(_) => matches!(name, "index" | "count" | "append" | "extend" | "copy"),
        Value::Tuple(_) => matches!(name, "index" | "count"),
        Value::Dict(_) => is_dict_method(name) || name == "copy",
        Value::Float(_) => matches!(name, "is_integer"),
        Value::Complex(..) => name == "conjugate",
        _ => false,
    }
}

/// Unary operators.
pub(crate) fn unary(op: &str, x: &Value) -> EResult<Value> {
    match (op, x) {
        ("-", Value::Complex(re, im)) => return Ok(Value::Complex(-re, -im)),
        ("+", Value::Complex(..)) => return Ok(x.clone()),
        _ => {}
    }
    match (op, x.as_number()) {
        ("-", Some(Num::Int(i))) => i
            .checked_neg()
            .map_or_else(|| int_op("-", 0, i), |v| Ok(Value::Int(v))),
        ("-", Some(Num::Float(f))) => Ok(Value::Float(-f)),
        ("+", Some(Num::Int(i))) => Ok(Value::Int(i)),
        ("+", Some(Num::Float(f))) => Ok(Value::Float(f)),
        ("~", Some(Num::Int(i))) => Ok(Value::Int(!i)),
        (_, None) if matches!(x, Value::Big(_)) => {
            let b = crate::bignum::of(x).unwrap_or_default();
            match op {
                "-" => Ok(crate::bignum::value(-b)),
                "+" => Ok(x.clone()),
                _ => Ok(crate::bignum::value(-b - 1)),
            }
        }
        _ => fail(format!("bad operand type for unary {op}: '{}'", x.type_name())),
    }
}

fn py_mod_f(a: f64, b: f64) -> f64 {
    let m = a % b;
    if m != 0.0 && (m < 0.0) != (b < 0.0) {
        m + b
    } else if m == 0.0 {
        0.0_f64.copysign(b)
    } else {
        m
    }
}

fn py_floordiv_f(a: f64, b: f64) -> f64 {
    // CPython's float floor division: from the same divmod as `%`.
    let m = a % b;
    let mut div = (a - m) / b;
    if m != 0.0 && (b < 0.0) != (m < 0.0) {
        div -= 1.0;
    }
    if div == 0.0 {
        0.0_f64.copysign(a / b)
    } else {
        let floor = div.floor();
        if div - floor > 0.5 { floor + 1.0 } else { floor }
    }
}

fn int_pow(base: i64, exp: i64) -> EResult<Value> {
    if exp < 0 {
        #[allow(clippy::cast_precision_loss)]
        let (b, e) = (base as f64, exp as f64);
        if base == 0 {
            return fail("0.0 cannot be raised to a negative power");
        }
        return Ok(Value::Float(b.powf(e)));
    }
    match u32::try_from(exp).ok().and_then(|e| base.checked_pow(e)) {
        Some(v) => Ok(Value::Int(v)),
        None => int_op("**", base, exp),
    }
}

/// The longest text an expression may make (a budget: a runaway expansion is stopped with an
/// error instead of running out of memory).
pub(crate) const MAX_TEXT: usize = 16 << 20;

/// The error of a text beyond [`MAX_TEXT`].
pub(crate) fn too_long<T>() -> EResult<T> {
    fail(format!(
        "the text would be longer than {} MiB: the expansion is stopped",
        MAX_TEXT >> 20
    ))
}

/// Fails when printing `v` would make a text longer than [`MAX_TEXT`] (estimated without
/// printing: nested repetitions share their items, so a small value can print huge).
pub(crate) fn printable(v: &Value) -> EResult<()> {
    fn size(v: &Value, budget: &mut usize) -> bool {
        let own = match v {
            Value::Str(s) => s.len() + 2,
            Value::Big(b) if crate::bignum::text(b).is_err() => return false,
            Value::List(l) => {
                for item in l.borrow().iter() {
                    if !size(item, budget) {
                        return false;
                    }
                }
                2
            }
            Value::Tuple(t) | Value::Iter(t, _) => {
                for item in t.iter() {
                    if !size(item, budget) {
                        return false;
                    }
                }
                2
            }
            Value::Dict(d) => {
                for (k, item) in &d.borrow().entries {
                    if !size(k, budget) || !size(item, budget) {
                        return false;
                    }
                }
                2
            }
            _ => 24,
        };
        match budget.checked_sub(own + 2) {
            Some(rest) => {
                *budget = rest;
                true
            }
            None => false,
        }
    }
    if let Value::Big(b) = v {
        crate::bignum::text(b)?;
    }
    let mut budget = MAX_TEXT;
    if size(v, &mut budget) { Ok(()) } else { too_long() }
}

fn repeat<T: Clone>(items: &[T], n: i64) -> EResult<Vec<T>> {
    let n = usize::try_from(n.max(0)).unwrap_or(0);
    if items.len().saturating_mul(n) > 10_000_000 {
        return fail("the repetition makes a sequence too large (more than 10 million items)");
    }
    Ok(items.iter().cloned().cycle().take(items.len() * n).collect())
}

/// Binary operators.
pub(crate) fn binary(op: &str, a: &Value, b: &Value) -> EResult<Value> {
    if let (Some(x), Some(y)) = (a.as_number(), b.as_number()) {
        return numeric(op, x, y);
    }
    if let Some(v) = big_binary(op, a, b) {
        return v;
    }
    if (matches!(a, Value::Complex(..)) || matches!(b, Value::Complex(..)))
        && let Some(v) = crate::complex::binary(op, a, b)
    {
        return v;
    }
    match (op, a, b) {
        ("+", Value::Str(x), Value::Str(y)) => {
            if x.len() + y.len() > MAX_TEXT {
                return too_long();
            }
            Ok(Value::str(&format!("{x}{y}")))
        }
        ("+", Value::List(x), Value::List(y)) => {
            let mut v = x.borrow().clone();
            v.extend(y.borrow().iter().cloned());
            Ok(Value::list(v))
        }
        ("+", Value::Tuple(x), Value::Tuple(y)) => {
            let mut v = x.to_vec();
            v.extend(y.iter().cloned());
            Ok(Value::Tuple(Rc::new(v)))
        }
        ("*", Value::Str(s), n) | ("*", n, Value::Str(s)) if matches!(n, Value::Int(_) | Value::Bool(_)) => {
            let chars: Vec<char> = s.chars().collect();
            Ok(Value::str(
                &repeat(&chars, as_index(n)?)?.into_iter().collect::<String>(),
            ))
        }
        ("*", Value::List(l), n) | ("*", n, Value::List(l))
            if matches!(n, Value::Int(_) | Value::Bool(_)) =>
        {
            Ok(Value::list(repeat(&l.borrow(), as_index(n)?)?))
        }
        ("*", Value::Tuple(t), n) | ("*", n, Value::Tuple(t))
            if matches!(n, Value::Int(_) | Value::Bool(_)) =>
        {
            Ok(Value::Tuple(Rc::new(repeat(t, as_index(n)?)?)))
        }
        ("%", Value::Str(fmt), args) => crate::format::percent(fmt, args),
        _ => fail(format!(
            "unsupported operand type(s) for {op}: '{}' and '{}'",
            a.type_name(),
            b.type_name()
        )),
    }
}

/// A binary operation with an integer beyond 64 bits and a number (`None`: not that case).
fn big_binary(op: &str, a: &Value, b: &Value) -> Option<EResult<Value>> {
    if !matches!(a, Value::Big(_)) && !matches!(b, Value::Big(_)) {
        return None;
    }
    let as_float = |v: &Value| match v {
        Value::Float(f) => Ok(*f),
        v => crate::bignum::of(v).map_or(Ok(f64::NAN), |i| crate::bignum::to_f64(&i)),
    };
    match (crate::bignum::of(a), crate::bignum::of(b)) {
        (Some(x), Some(y)) => Some(crate::bignum::binary(op, &x, &y)),
        _ if matches!(a, Value::Float(_)) || matches!(b, Value::Float(_)) => Some(
            as_float(a)
                .and_then(|x| Ok((x, as_float(b)?)))
                .and_then(|(x, y)| numeric(op, Num::Float(x), Num::Float(y))),
        ),
        _ => None,
    }
}

fn numeric(op: &str, x: Num, y: Num) -> EResult<Value> {
    use Num::Int;
    let zero = || {
        fail(match op {
            "/" => "division by zero",
            "//" => "integer division or modulo by zero",
            _ => "integer modulo by zero",
        })
    };
    match (x, y) {
        (Int(a), Int(b)) => match op {
            "+" => a
                .checked_add(b)
                .map_or_else(|| int_op(op, a, b), |v| Ok(Value::Int(v))),
            "-" => a
                .checked_sub(b)
                .map_or_else(|| int_op(op, a, b), |v| Ok(Value::Int(v))),
            "*" => a
                .checked_mul(b)
                .map_or_else(|| int_op(op, a, b), |v| Ok(Value::Int(v))),
            "/" => {
                if b == 0 {
                    return zero();
                }
                // Python divides integers exactly rounded (through f64 when both fit 53 bits).
                crate::bignum::true_div(&BigInt::from(a), &BigInt::from(b)).map(Value::Float)
            }
            "//" => {
                if b == 0 {
                    return zero();
                }
                let Some(q) = a.checked_div(b) else {
                    return int_op(op, a, b);
                };
                Ok(Value::Int(if (a % b != 0) && ((a < 0) != (b < 0)) {
                    q - 1
                } else {
                    q
                }))
            }
            "%" => {
                if b == 0 {
                    return zero();
                }
                let r = a.checked_rem(b).unwrap_or(0);
                Ok(Value::Int(if r != 0 && ((r < 0) != (b < 0)) { r + b } else { r }))
            }
            "**" => int_pow(a, b),
            "&" => Ok(Value::Int(a & b)),
            "|" => Ok(Value::Int(a | b)),
            "^" => Ok(Value::Int(a ^ b)),
            "<<" => {
                let s =
                    u32::try_from(b).map_err(|_| crate::expr::EvalError("negative shift count".into()))?;
                a.checked_shl(s)
                    .filter(|v| v >> s == a)
                    .map_or_else(|| int_op(op, a, b), |v| Ok(Value::Int(v)))
            }
            ">>" => {
                let s =
                    u32::try_from(b).map_err(|_| crate::expr::EvalError("negative shift count".into()))?;
                Ok(Value::Int(a >> s.min(63)))
            }
            _ => fail(format!("unsupported operand type(s) for {op}: 'int' and 'int'")),
        },
        (x, y) => {
            let (a, b) = (x.to_f64(), y.to_f64());
            match op {
                "+" => Ok(Value::Float(a + b)),
                "-" => Ok(Value::Float(a - b)),
                "*" => Ok(Value::Float(a * b)),
                "/" => {
                    if b == 0.0 {
                        return fail("float division by zero");
                    }
                    Ok(Value::Float(a / b))
                }
                "//" => {
                    if b == 0.0 {
                        return fail("float floor division by zero");
                    }
                    Ok(Value::Float(py_floordiv_f(a, b)))
                }
                "%" => {
                    if b == 0.0 {
                        return fail("float modulo");
                    }
                    Ok(Value::Float(py_mod_f(a, b)))
                }
                "**" => {
                    if a == 0.0 && b < 0.0 {
                        return fail("0.0 cannot be raised to a negative power");
                    }
                    if a < 0.0 && b != b.floor() {
                        // Python: a negative number to a fractional power is complex.
                        let (re, im) = crate::complex::pow((a, 0.0), (b, 0.0))?;
                        return Ok(Value::Complex(re, im));
                    }
                    let r = a.powf(b);
                    if r.is_infinite() && a.is_finite() && b.is_finite() {
                        return fail("(34, 'Numerical result out of range')");
                    }
                    Ok(Value::Float(r))
                }
                _ => fail(format!(
                    "unsupported operand type(s) for {op}: 'float' and 'float'"
                )),
            }
        }
    }
}

fn ordering(a: &Value, b: &Value) -> EResult<std::cmp::Ordering> {
    use std::cmp::Ordering;
    if let (Some(x), Some(y)) = (a.as_number(), b.as_number()) {
        return Ok(match (x, y) {
            (Num::Int(x), Num::Int(y)) => x.cmp(&y),
            (Num::Int(i), Num::Float(f)) if i.unsigned_abs() > 1 << 53 => {
                crate::bignum::cmp_float(&i.into(), f).unwrap_or(Ordering::Equal)
            }
            (Num::Float(f), Num::Int(i)) if i.unsigned_abs() > 1 << 53 => {
                crate::bignum::cmp_float(&i.into(), f).map_or(Ordering::Equal, Ordering::reverse)
            }
            (x, y) => x.to_f64().partial_cmp(&y.to_f64()).unwrap_or(Ordering::Equal),
        });
    }
    if (matches!(a, Value::Big(_)) || matches!(b, Value::Big(_)))
        && let Some(o) = int_cmp(a, b)
    {
        return Ok(o);
    }
    let seq = |x: &[Value], y: &[Value]| -> EResult<Ordering> {
        for (p, q) in x.iter().zip(y) {
            if !p.py_eq(q) {
                return ordering(p, q);
            }
        }
        Ok(x.len().cmp(&y.len()))
    };
    match (a, b) {
        (Value::Str(x), Value::Str(y)) => Ok(x.cmp(y)),
        (Value::List(x), Value::List(y)) => seq(&x.borrow(), &y.borrow()),
        (Value::Tuple(x), Value::Tuple(y)) => seq(x, y),
        (Value::Time(x), Value::Time(y)) => x.py_cmp(y).or_else(fail),
        _ => fail(format!(
            "'<' not supported between instances of '{}' and '{}'",
            a.type_name(),
            b.type_name()
        )),
    }
}

fn contains(container: &Value, item: &Value) -> EResult<bool> {
    match container {
        Value::Str(s) => match item {
            Value::Str(i) => Ok(s.contains(&**i)),
            other => fail(format!(
                "'in <string>' requires string as left operand, not {}",
                other.type_name()
            )),
        },
        Value::Dict(d) => {
            hashable(item)?;
            Ok(d.borrow().get(item).is_some())
        }
        Value::Namespace(_) => fail("argument of type 'NameSpace' is not iterable"),
        other => Ok(iterate(other)?.iter().any(|v| v.py_eq(item))),
    }
}

/// Comparison operators.
pub(crate) fn compare(op: &str, a: &Value, b: &Value) -> EResult<bool> {
    use std::cmp::Ordering::{Equal, Greater, Less};
    let nan = |v: &Value| matches!(v, Value::Float(f) if f.is_nan());
    if (nan(a) || nan(b)) && (matches!(a, Value::Big(_)) || matches!(b, Value::Big(_))) {
        return Ok(op == "!=" || op == "not in" && contains(b, a).is_ok_and(|c| !c));
    }
    Ok(match op {
        "==" => a.py_eq(b),
        "!=" => !a.py_eq(b),
        "in" => contains(b, a)?,
        "not in" => !contains(b, a)?,
        "is" => same(a, b),
        "is not" => !same(a, b),
        _ if nan(a) || nan(b) => false,
        "<" => ordering(a, b)? == Less,
        ">" => ordering(a, b)? == Greater,
        "<=" => ordering(a, b)? != Greater,
        ">=" => ordering(a, b)? != Less,
        _ => ordering(a, b)? == Equal,
    })
}

fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::None, Value::None) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::List(x), Value::List(y)) => Rc::ptr_eq(x, y),
        (Value::Dict(x), Value::Dict(y)) => Rc::ptr_eq(x, y),
        (Value::Int(x), Value::Int(y)) => x == y && (-5..=256).contains(x),
        (Value::Str(x), Value::Str(y)) => x == y,
        _ => false,
    }
}

fn arity(name: &str, args: &[Value], min: usize, max: usize) -> EResult<()> {
    if args.len() < min || args.len() > max {
        return fail(format!(
            "{name}() takes {} arguments ({} given)",
            if min == max {
                min.to_string()
            } else {
                format!("{min} to {max}")
            },
            args.len()
        ));
    }
    Ok(())
}

fn no_kwargs(name: &str, kwargs: &[(String, Value)]) -> EResult<()> {
    match kwargs.first() {
        Some((k, _)) => fail(format!("{name}() got an unexpected keyword argument '{k}'")),
        None => Ok(()),
    }
}

/// Python's `int(x)`.
pub(crate) fn to_int(v: &Value) -> EResult<Value> {
    match v {
        Value::Int(i) => Ok(Value::Int(*i)),
        Value::Big(_) => Ok(v.clone()),
        Value::Bool(b) => Ok(Value::Int(i64::from(*b))),
        Value::Float(f) => crate::bignum::from_f64(*f),
        Value::Str(s) => parse_int_value(s)?.map_or_else(
            || {
                fail(format!(
                    "invalid literal for int() with base 10: {}",
                    crate::value::str_repr(s)
                ))
            },
            Ok,
        ),
        other => fail(format!(
            "int() argument must be a string, a bytes-like object or a real number, not '{}'",
            other.type_name()
        )),
    }
}

/// Python's `float(x)`.
pub(crate) fn to_float(v: &Value) -> EResult<Value> {
    match v {
        Value::Str(s) => parse_float(s).map_or_else(
            || {
                fail(format!(
                    "could not convert string to float: {}",
                    crate::value::str_repr(s)
                ))
            },
            |f| Ok(Value::Float(f)),
        ),
        other => Ok(Value::Float(to_f(other, "float()")?)),
    }
}

fn round(args: &[Value]) -> EResult<Value> {
    arity("round", args, 1, 2)?;
    let ndigits = match args.get(1) {
        None | Some(Value::None) => None,
        Some(v) => Some(as_index(v)?),
    };
    match (&args[0], ndigits) {
        (v @ (Value::Int(_) | Value::Bool(_) | Value::Big(_)), None) => to_int(v),
        (v @ (Value::Int(_) | Value::Bool(_) | Value::Big(_)), Some(n)) if n >= 0 => to_int(v),
        (v @ Value::Big(_), Some(n)) => {
            let p = crate::bignum::binary("**", &BigInt::from(10), &BigInt::from(-i128::from(n)))?;
            let (Some(i), Some(p)) = (crate::bignum::of(v), crate::bignum::of(&p)) else {
                return int_overflow();
            };
            let (q, r) = num_integer::Integer::div_mod_floor(&i, &p);
            let twice: BigInt = &r * 2;
            let q = match twice.cmp(&p) {
                std::cmp::Ordering::Greater => q + 1,
                std::cmp::Ordering::Equal if num_integer::Integer::is_odd(&q) => q + 1,
                _ => q,
            };
            crate::bignum::binary("*", &q, &p)
        }
        (v @ (Value::Int(_) | Value::Bool(_)), Some(n)) => {
            let Value::Int(i) = to_int(v)? else {
                return int_overflow();
            };
            let Some(p) = u32::try_from(-n).ok().and_then(|k| 10i128.checked_pow(k)) else {
                return Ok(Value::Int(0));
            };
            let i = i128::from(i);
            let (q, r) = (i.div_euclid(p), i.rem_euclid(p));
            let q = match (2 * r).cmp(&p) {
                std::cmp::Ordering::Greater => q + 1,
                std::cmp::Ordering::Equal if q % 2 != 0 => q + 1,
                _ => q,
            };
            q.checked_mul(p)
                .and_then(|v| i64::try_from(v).ok())
                .map_or_else(int_overflow, |v| Ok(Value::Int(v)))
        }
        (v, None) => {
            let f = to_f(v, "round()")?;
            let r = f.round_ties_even();
            to_int(&Value::Float(r))
        }
        (v, Some(n)) => {
            let f = to_f(v, "round()")?;
            if !f.is_finite() {
                return Ok(Value::Float(f));
            }
            if n > 300 {
                return Ok(Value::Float(f));
            }
            if n < 0 {
                let p = 10f64.powi(i32::try_from(-n).unwrap_or(400));
                return Ok(Value::Float((f / p).round_ties_even() * p));
            }
            // Correctly rounded to `n` decimals, as CPython does (through the decimal text).
            let text = format!("{f:.prec$}", prec = usize::try_from(n).unwrap_or(0));
            Ok(Value::Float(text.parse().unwrap_or(f)))
        }
    }
}

fn min_max(ev: &mut Eval, name: &str, args: Vec<Value>, kwargs: &[(String, Value)]) -> EResult<Value> {
    let mut default = None;
    let mut key = None;
    for (k, v) in kwargs {
        match k.as_str() {
            "default" => default = Some(v.clone()),
            "key" if !matches!(v, Value::None) => key = Some(v.clone()),
            "key" => {}
            _ => return fail(format!("{name}() got an unexpected keyword argument '{k}'")),
        }
    }
    let items = if args.len() == 1 { iterate(&args[0])? } else { args };
    let mut best: Option<(Value, Value)> = None;
    for v in items {
        let k = match &key {
            Some(f) => ev.call(f, vec![v.clone()], Vec::new())?,
            None => v.clone(),
        };
        best = Some(match best {
            None => (v, k),
            Some((bv, bk)) => {
                let better = if name == "min" {
                    compare("<", &k, &bk)?
                } else {
                    compare(">", &k, &bk)?
                };
                if better { (v, k) } else { (bv, bk) }
            }
        });
    }
    match best.map(|(v, _)| v).or(default) {
        Some(v) => Ok(v),
        None => fail(format!("{name}() arg is an empty sequence")),
    }
}

fn sort(items: &mut [Value]) -> EResult<()> {
    let mut err = None;
    items.sort_by(|a, b| {
        ordering(a, b).unwrap_or_else(|e| {
            err = Some(e);
            std::cmp::Ordering::Equal
        })
    });
    err.map_or(Ok(()), Err)
}

/// The inverse hyperbolic functions as the C library computes them, from its `log`, `log1p`
/// and `sqrt` (Rust's own `asinh`, `acosh`, `atanh` differ from glibc's in the last bit for
/// some arguments): the textbook rearrangements of `ln(x + sqrt(x² ± 1))` and
/// `½ ln((1 + x) / (1 - x))` that keep precision near 0, 1 and for large `x`.
const HUGE: f64 = 268_435_456.0; // 2^28

fn asinh(x: f64) -> f64 {
    let a = x.abs();
    if !a.is_finite() || a < 1.0 / HUGE {
        return x + x * 0.0;
    }
    let r = if a > HUGE {
        a.ln() + std::f64::consts::LN_2
    } else if a > 2.0 {
        (2.0 * a + 1.0 / ((a * a + 1.0).sqrt() + a)).ln()
    } else {
        let t = a * a;
        (a + t / (1.0 + (1.0 + t).sqrt())).ln_1p()
    };
    r.copysign(x)
}

fn acosh(x: f64) -> f64 {
    if x >= HUGE {
        if x.is_infinite() {
            return x;
        }
        x.ln() + std::f64::consts::LN_2
    } else if x == 1.0 {
        0.0
    } else if x > 2.0 {
        let t = x * x;
        (2.0 * x - 1.0 / (x + (t - 1.0).sqrt())).ln()
    } else {
        let t = x - 1.0;
        (t + (2.0 * t + t * t).sqrt()).ln_1p()
    }
}

fn atanh(x: f64) -> f64 {
    let a = x.abs();
    if a < 1.0 / HUGE {
        return x;
    }
    let r = if a < 0.5 {
        let t = a + a;
        0.5 * (t + t * a / (1.0 - a)).ln_1p()
    } else {
        0.5 * ((a + a) / (1.0 - a)).ln_1p()
    };
    r.copysign(x)
}

fn math1(name: &str, x: f64) -> EResult<Value> {
    let domain = || fail("math domain error");
    let v = match name {
        "sin" => x.sin(),
        "cos" => x.cos(),
        "tan" => x.tan(),
        "asin" if (-1.0..=1.0).contains(&x) => x.asin(),
        "acos" if (-1.0..=1.0).contains(&x) => x.acos(),
        "atan" => x.atan(),
        "sinh" => x.sinh(),
        "cosh" => x.cosh(),
        "tanh" => x.tanh(),
        "asinh" => asinh(x),
        "acosh" if x >= 1.0 => acosh(x),
        "atanh" if x > -1.0 && x < 1.0 => atanh(x),
        "sqrt" if x >= 0.0 => x.sqrt(),
        "cbrt" => x.cbrt(),
        "exp" => x.exp(),
        "exp2" => x.exp2(),
        "expm1" => x.exp_m1(),
        "log10" if x > 0.0 => x.log10(),
        "log2" if x > 0.0 => x.log2(),
        "log1p" if x > -1.0 => x.ln_1p(),
        "fabs" => x.abs(),
        "degrees" => x.to_degrees(),
        "radians" => x.to_radians(),
        "isnan" => return Ok(Value::Bool(x.is_nan())),
        "isinf" => return Ok(Value::Bool(x.is_infinite())),
        "isfinite" => return Ok(Value::Bool(x.is_finite())),
        "floor" => return to_int(&Value::Float(x.floor())),
        "ceil" => return to_int(&Value::Float(x.ceil())),
        "trunc" => return to_int(&Value::Float(x.trunc())),
        "asin" | "acos" | "acosh" | "atanh" | "sqrt" | "log10" | "log2" | "log1p" => return domain(),
        other => return fail(format!("math.{other}() is not supported by mbconv's xacro")),
    };
    if v.is_infinite() && x.is_finite() {
        return fail("math range error");
    }
    Ok(Value::Float(v))
}

/// Calls built-in function `name`.
pub(crate) fn call(
    ev: &mut Eval,
    name: &str,
    args: Vec<Value>,
    kwargs: Vec<(String, Value)>,
) -> EResult<Value> {
    let (mut args, mut kwargs) = (args, kwargs);
    if name == "int" && args.len() == 1 && kwargs.len() == 1 && kwargs[0].0 == "base" {
        args.extend(kwargs.pop().map(|(_, v)| v));
    }
    if !matches!(
        name,
        "min" | "max" | "sorted" | "round" | "isclose" | "dict" | "enumerate"
    ) {
        no_kwargs(name, &kwargs)?;
    }
    match name {
        "len" => {
            arity(name, &args, 1, 1)?;
            let n = match &args[0] {
                Value::Str(s) => s.chars().count(),
                Value::List(l) => l.borrow().len(),
                Value::Tuple(t) => t.len(),
                Value::Dict(d) => d.borrow().entries.len(),
                r @ Value::Range(..) => usize::try_from(range_len_of(r)).unwrap_or(usize::MAX),
                other => return fail(format!("object of type '{}' has no len()", other.type_name())),
            };
            Ok(Value::Int(i64::try_from(n).unwrap_or(i64::MAX)))
        }
        "str" => {
            arity(name, &args, 0, 1)?;
            if let Some(v) = args.first() {
                printable(v)?;
                no_address(v)?;
            }
            Ok(Value::str(
                &args.first().map(Value::to_py_str).unwrap_or_default(),
            ))
        }
        "repr" => {
            arity(name, &args, 1, 1)?;
            printable(&args[0])?;
            no_address(&args[0])?;
            Ok(Value::str(&args[0].repr()))
        }
        "float" => {
            arity(name, &args, 0, 1)?;
            args.first().map_or(Ok(Value::Float(0.0)), to_float)
        }
        "int" => {
            arity(name, &args, 0, 2)?;
            if args.len() == 2 {
                let (Value::Str(s), base) = (&args[0], as_index(&args[1])?) else {
                    return fail("int() can't convert non-string with explicit base");
                };
                if base != 0 && !(2..=36).contains(&base) {
                    return fail("int() base must be >= 2 and <= 36, or 0");
                }
                let t: String = s.trim().chars().filter(|c| *c != '_').collect();
                let (sign, digits) = match t.strip_prefix('-') {
                    Some(rest) => ("-", rest),
                    None => ("", t.strip_prefix('+').unwrap_or(&t)),
                };
                let lower = digits.to_ascii_lowercase();
                let prefixed = [("0x", 16), ("0o", 8), ("0b", 2)]
                    .into_iter()
                    .find(|(p, b)| lower.starts_with(p) && (base == 0 || base == *b));
                let (digits, base_used) = match prefixed {
                    Some((_, b)) => (&digits[2..], b),
                    // Base 0 without a prefix is decimal, and refuses leading zeros.
                    None if base == 0
                        && digits.len() > 1
                        && digits.starts_with('0')
                        && digits.trim_start_matches('0').is_empty() =>
                    {
                        ("0", 10)
                    }
                    None if base == 0 && digits.len() > 1 && digits.starts_with('0') => ("?", 10),
                    None if base == 0 => (digits, 10),
                    None => (digits, base),
                };
                let t = format!("{sign}{digits}");
                let u32_base = u32::try_from(base_used).unwrap_or(10);
                let valid = !digits.is_empty() && digits.chars().all(|c| c.is_digit(u32_base));
                return match valid
                    .then(|| crate::bignum::parse(&t, u32_base))
                    .transpose()?
                    .flatten()
                {
                    Some(v) => Ok(v),
                    None => fail(format!(
                        "invalid literal for int() with base {base}: {}",
                        crate::value::str_repr(s)
                    )),
                };
            }
            args.first().map_or(Ok(Value::Int(0)), to_int)
        }
        "bool" => {
            arity(name, &args, 0, 1)?;
            Ok(Value::Bool(args.first().is_some_and(Value::truthy)))
        }
        "abs" => {
            arity(name, &args, 1, 1)?;
            if let Value::Complex(re, im) = args[0] {
                return crate::complex::abs(re, im);
            }
            if let Value::Big(b) = &args[0] {
                return Ok(crate::bignum::value(num_traits::Signed::abs(&**b)));
            }
            match number_of(&args[0], "abs()")? {
                Num::Int(i) => i
                    .checked_abs()
                    .map_or_else(|| int_op("-", 0, i), |v| Ok(Value::Int(v))),
                Num::Float(f) => Ok(Value::Float(f.abs())),
            }
        }
        "list" | "tuple" => {
            arity(name, &args, 0, 1)?;
            let items = match args.first() {
                Some(v) => iterate(v)?,
                None => Vec::new(),
            };
            Ok(if name == "list" {
                Value::list(items)
            } else {
                Value::Tuple(Rc::new(items))
            })
        }
        "dict" => {
            let mut d = Dict::default();
            if let Some(src) = args.first() {
                arity(name, &args, 1, 1)?;
                match src {
                    Value::Dict(s) => d.entries.clone_from(&s.borrow().entries),
                    other => {
                        for item in iterate(other)? {
                            let kv = iterate(&item)?;
                            if kv.len() != 2 {
                                return fail("dictionary update sequence element has wrong length");
                            }
                            hashable(&kv[0])?;
                            d.insert(kv[0].clone(), kv[1].clone());
                        }
                    }
                }
            }
            for (k, v) in kwargs {
                d.insert(Value::str(&k), v);
            }
            Ok(Value::dict(d))
        }
        "min" | "max" => min_max(ev, name, args, &kwargs),
        "round" => {
            if let Some((k, v)) = kwargs.first() {
                if k != "ndigits" {
                    return fail(format!("round() got an unexpected keyword argument '{k}'"));
                }
                let mut a = args;
                a.push(v.clone());
                return round(&a);
            }
            round(&args)
        }
        "sorted" => {
            arity(name, &args, 1, 1)?;
            let mut items = iterate(&args[0])?;
            let mut reverse = false;
            let mut key = None;
            for (k, v) in &kwargs {
                match k.as_str() {
                    "reverse" => reverse = v.truthy(),
                    "key" if !matches!(v, Value::None) => key = Some(v.clone()),
                    "key" => {}
                    _ => return fail(format!("sort() got an unexpected keyword argument '{k}'")),
                }
            }
            if let Some(f) = key {
                // Python's sort is stable and compares the keys only; reverse keeps the
                // original order of equal keys.
                let mut keyed = Vec::with_capacity(items.len());
                for v in items {
                    keyed.push((ev.call(&f, vec![v.clone()], Vec::new())?, v));
                }
                let mut err = None;
                keyed.sort_by(|a, b| {
                    let o = ordering(&a.0, &b.0).unwrap_or_else(|e| {
                        err = Some(e);
                        std::cmp::Ordering::Equal
                    });
                    if reverse { o.reverse() } else { o }
                });
                if let Some(e) = err {
                    return Err(e);
                }
                return Ok(Value::list(keyed.into_iter().map(|(_, v)| v).collect()));
            }
            if reverse {
                // Stable in reverse: equal items keep their order.
                let mut err = None;
                items.sort_by(|a, b| {
                    ordering(b, a).unwrap_or_else(|e| {
                        err = Some(e);
                        std::cmp::Ordering::Equal
                    })
                });
                if let Some(e) = err {
                    return Err(e);
                }
                return Ok(Value::list(items));
            }
            sort(&mut items)?;
            if reverse {
                items.reverse();
            }
            Ok(Value::list(items))
        }
        "range" => {
            arity(name, &args, 1, 3)?;
            let ints = args.iter().map(as_index).collect::<EResult<Vec<i64>>>()?;
            let (start, stop, step) = match ints.as_slice() {
                [stop] => (0, *stop, 1),
                [a, b] => (*a, *b, 1),
                [a, b, c] => (*a, *b, *c),
                _ => unreachable!(),
            };
            if step == 0 {
                return fail("range() arg 3 must not be zero");
            }
            Ok(Value::Range(start, stop, step))
        }
        "map" => {
            if args.len() < 2 {
                return fail("map() must have at least two arguments.");
            }
            let lists = args[1..].iter().map(iterate).collect::<EResult<Vec<_>>>()?;
            let n = lists.iter().map(Vec::len).min().unwrap_or(0);
            let mut out = Vec::with_capacity(n);
            for i in 0..n {
                let call_args = lists.iter().map(|l| l[i].clone()).collect();
                out.push(ev.call(&args[0], call_args, Vec::new())?);
            }
            Ok(Value::Iter(Rc::new(out), "map"))
        }
        "filter" => {
            arity(name, &args, 2, 2)?;
            let mut out = Vec::new();
            for item in iterate(&args[1])? {
                let keep = match &args[0] {
                    Value::None => item.truthy(),
                    f => ev.call(f, vec![item.clone()], Vec::new())?.truthy(),
                };
                if keep {
                    out.push(item);
                }
            }
            Ok(Value::Iter(Rc::new(out), "filter"))
        }
        "zip" => {
            let lists = args.iter().map(iterate).collect::<EResult<Vec<_>>>()?;
            let n = lists.iter().map(Vec::len).min().unwrap_or(0);
            let out = (0..n)
                .map(|i| Value::Tuple(Rc::new(lists.iter().map(|l| l[i].clone()).collect())))
                .collect();
            Ok(Value::Iter(Rc::new(out), "zip"))
        }
        "enumerate" => {
            let mut args = args;
            for (k, v) in &kwargs {
                if k != "start" {
                    return fail(format!("enumerate() got an unexpected keyword argument '{k}'"));
                }
                args.push(v.clone());
            }
            arity(name, &args, 1, 2)?;
            let start = args.get(1).map(as_index).transpose()?.unwrap_or(0);
            let out = iterate(&args[0])?
                .into_iter()
                .zip(start..)
                .map(|(v, i)| Value::Tuple(Rc::new(vec![Value::Int(i), v])))
                .collect();
            Ok(Value::Iter(Rc::new(out), "enumerate"))
        }
        "reversed" => {
            arity(name, &args, 1, 1)?;
            let mut items = iterate(&args[0])?;
            items.reverse();
            Ok(Value::Iter(Rc::new(items), "list_reverseiterator"))
        }
        "sum" => {
            arity(name, &args, 1, 2)?;
            let mut acc = args.get(1).cloned().unwrap_or(Value::Int(0));
            for v in iterate(&args[0])? {
                acc = binary("+", &acc, &v)?;
            }
            Ok(acc)
        }
        "all" => Ok(Value::Bool(
            iterate(args.first().unwrap_or(&Value::None))?
                .iter()
                .all(Value::truthy),
        )),
        "any" => Ok(Value::Bool(
            iterate(args.first().unwrap_or(&Value::None))?
                .iter()
                .any(Value::truthy),
        )),
        "divmod" => {
            arity(name, &args, 2, 2)?;
            let q = binary("//", &args[0], &args[1])?;
            let r = binary("%", &args[0], &args[1])?;
            Ok(Value::Tuple(Rc::new(vec![q, r])))
        }
        "ord" => match args.as_slice() {
            [Value::Str(s)] if s.chars().count() == 1 => {
                Ok(Value::Int(i64::from(s.chars().next().map_or(0, |c| c as u32))))
            }
            _ => fail("ord() expected a character"),
        },
        "atan2" | "hypot" | "copysign" | "fmod" | "pow" | "remainder" | "log" | "isclose" | "ldexp" => {
            if name == "log" {
                arity(name, &args, 1, 2)?;
                let x = to_f(&args[0], "log()")?;
                if x <= 0.0 {
                    return fail("math domain error");
                }
                return match args.get(1) {
                    None => Ok(Value::Float(x.ln())),
                    Some(b) => {
                        let b = to_f(b, "log()")?;
                        if b <= 0.0 || b == 1.0 {
                            return fail(if b == 1.0 {
                                "float division by zero"
                            } else {
                                "math domain error"
                            });
                        }
                        Ok(Value::Float(x.ln() / b.ln()))
                    }
                };
            }
            if name == "hypot" {
                let xs = args
                    .iter()
                    .map(|a| to_f(a, "hypot()"))
                    .collect::<EResult<Vec<f64>>>()?;
                return Ok(Value::Float(match xs.as_slice() {
                    [x, y] => x.hypot(*y),
                    _ => xs.iter().map(|x| x * x).sum::<f64>().sqrt(),
                }));
            }
            if name == "isclose" {
                arity(name, &args, 2, 2)?;
                let (a, b) = (to_f(&args[0], "isclose()")?, to_f(&args[1], "isclose()")?);
                let mut rel = 1e-9;
                let mut abs = 0.0;
                for (k, v) in &kwargs {
                    match k.as_str() {
                        "rel_tol" => rel = to_f(v, "isclose()")?,
                        "abs_tol" => abs = to_f(v, "isclose()")?,
                        _ => return fail(format!("isclose() got an unexpected keyword argument '{k}'")),
                    }
                }
                return Ok(Value::Bool(
                    a == b || (a - b).abs() <= f64::max(rel * b.abs().max(a.abs()), abs),
                ));
            }
            arity(name, &args, 2, 2)?;
            let (a, b) = (to_f(&args[0], name)?, to_f(&args[1], name)?);
            Ok(Value::Float(match name {
                "atan2" => a.atan2(b),
                "copysign" => a.copysign(b),
                "fmod" => {
                    if b == 0.0 {
                        return fail("math domain error");
                    }
                    a % b
                }
                "remainder" => a - (a / b).round_ties_even() * b,
                "ldexp" => a * 2f64.powf(b),
                _ => {
                    let r = a.powf(b);
                    if a.is_finite() && b.is_finite() {
                        // As CPython's math.pow: NaN or a pole is a domain error, an overflow a
                        // range error.
                        if r.is_nan() || (r.is_infinite() && a == 0.0) {
                            return fail("math domain error");
                        }
                        if r.is_infinite() {
                            return fail("math range error");
                        }
                    }
                    r
                }
            }))
        }
        "factorial" => {
            arity(name, &args, 1, 1)?;
            let n = as_index(&args[0])?;
            if n < 0 {
                return fail("factorial() not defined for negative values");
            }
            if n > 20_000 {
                return fail("factorial() of a number this large is too large for mbconv's xacro");
            }
            let mut acc = BigInt::from(1);
            for k in 2..=n {
                acc *= k;
            }
            Ok(crate::bignum::value(acc))
        }
        "gcd" | "lcm" => {
            let mut acc = BigInt::from(i32::from(name == "lcm"));
            for a in &args {
                let Some(x) = crate::bignum::of(a) else {
                    return fail(format!(
                        "'{}' object cannot be interpreted as an integer",
                        a.type_name()
                    ));
                };
                acc = if name == "lcm" {
                    num_integer::Integer::lcm(&acc, &x)
                } else {
                    num_integer::Integer::gcd(&acc, &x)
                };
            }
            Ok(crate::bignum::value(acc))
        }
        "fsum" | "prod" => {
            arity(name, &args, 1, 1)?;
            let xs = iterate(&args[0])?;
            if name == "prod" {
                let mut acc = Value::Int(1);
                for x in xs {
                    acc = binary("*", &acc, &x)?;
                }
                return Ok(acc);
            }
            let v = xs
                .iter()
                .map(|x| to_f(x, "fsum()"))
                .collect::<EResult<Vec<f64>>>()?;
            Ok(Value::Float(exact_sum(&v)))
        }
        "comb" | "perm" => {
            arity(name, &args, if name == "perm" { 1 } else { 2 }, 2)?;
            let n = as_index(&args[0])?;
            let k = args.get(1).map(as_index).transpose()?.unwrap_or(n);
            if n < 0 || k < 0 {
                return fail(format!(
                    "{} must be a non-negative integer",
                    if n < 0 { "n" } else { "k" }
                ));
            }
            if k > n {
                return Ok(Value::Int(0));
            }
            let k = if name == "comb" { k.min(n - k) } else { k };
            if k > 100_000 {
                return fail(format!(
                    "{name}() of numbers this large is too large for mbconv's xacro"
                ));
            }
            let mut acc = BigInt::from(1);
            for i in 0..k {
                acc *= n - i;
                if name == "comb" {
                    acc /= i + 1;
                }
            }
            Ok(crate::bignum::value(acc))
        }
        "isqrt" => {
            arity(name, &args, 1, 1)?;
            if let Value::Big(b) = &args[0] {
                if num_traits::Signed::is_negative(&**b) {
                    return fail("isqrt() argument must be nonnegative");
                }
                return Ok(crate::bignum::value(b.sqrt()));
            }
            let n = as_index(&args[0])?;
            if n < 0 {
                return fail("isqrt() argument must be nonnegative");
            }
            let mut r = u64::try_from(n).unwrap_or(0).isqrt();
            while r.checked_mul(r).is_none_or(|sq| sq > n.unsigned_abs()) {
                r -= 1;
            }
            Ok(Value::Int(i64::try_from(r).unwrap_or(0)))
        }
        "dist" => {
            arity(name, &args, 2, 2)?;
            let (p, q) = (iterate(&args[0])?, iterate(&args[1])?);
            if p.len() != q.len() {
                return fail("both points must have the same number of dimensions");
            }
            let mut d = Vec::with_capacity(p.len());
            for (a, b) in p.iter().zip(&q) {
                d.push(to_f(a, "dist()")? - to_f(b, "dist()")?);
            }
            Ok(Value::Float(match d.as_slice() {
                [x] => x.abs(),
                [x, y] => x.hypot(*y),
                _ => d.iter().map(|x| x * x).sum::<f64>().sqrt(),
            }))
        }
        "modf" => {
            arity(name, &args, 1, 1)?;
            let x = to_f(&args[0], "modf()")?;
            let int = x.trunc();
            let frac = if x.is_infinite() {
                0f64.copysign(x)
            } else {
                x - int
            };
            Ok(Value::Tuple(Rc::new(vec![Value::Float(frac), Value::Float(int)])))
        }
        "frexp" => {
            arity(name, &args, 1, 1)?;
            let x = to_f(&args[0], "frexp()")?;
            if x == 0.0 || !x.is_finite() {
                return Ok(Value::Tuple(Rc::new(vec![Value::Float(x), Value::Int(0)])));
            }
            // x = m * 2**e with 0.5 <= |m| < 1; subnormals scaled up first.
            let (x, shift) = if x.abs() < f64::MIN_POSITIVE {
                (x * 2f64.powi(64), -64)
            } else {
                (x, 0)
            };
            let bits = x.to_bits();
            let exp = i64::try_from((bits >> 52) & 0x7ff).unwrap_or(0) - 1022;
            let m = f64::from_bits((bits & !(0x7ff << 52)) | (1022 << 52));
            Ok(Value::Tuple(Rc::new(vec![
                Value::Float(m),
                Value::Int(exp + shift),
            ])))
        }
        "nextafter" => {
            arity(name, &args, 2, 2)?;
            let (x, y) = (to_f(&args[0], name)?, to_f(&args[1], name)?);
            Ok(Value::Float(next_after(x, y)))
        }
        "ulp" => {
            arity(name, &args, 1, 1)?;
            let x = to_f(&args[0], name)?.abs();
            Ok(Value::Float(if x.is_nan() || x.is_infinite() {
                x
            } else if x == f64::MAX {
                x - next_after(x, 0.0)
            } else {
                next_after(x, f64::INFINITY) - x
            }))
        }
        "load_yaml" | "abs_filename" | "dotify" => ev.env.call_xacro(name, args, kwargs),
        "complex" => crate::complex::construct(&args),
        "type" => {
            arity(name, &args, 1, 1)?;
            let t = args[0].type_name();
            class(t).map_or_else(
                || fail(format!("type() of a '{t}' is not supported by mbconv's xacro")),
                Ok,
            )
        }
        "isinstance" => {
            arity(name, &args, 2, 2)?;
            let t = args[0].type_name();
            Ok(Value::Bool(
                classes(&args[1], name)?.iter().any(|c| subclass(t, c)),
            ))
        }
        "issubclass" => {
            arity(name, &args, 2, 2)?;
            let Value::Func(Builtin::Named(a)) = &args[0] else {
                return fail("issubclass() arg 1 must be a class");
            };
            if !TYPES.contains(a) {
                return fail("issubclass() arg 1 must be a class");
            }
            Ok(Value::Bool(
                classes(&args[1], name)?.iter().any(|c| subclass(a, c)),
            ))
        }
        n if MATH_FUNCS.contains(&n) => {
            arity(n, &args, 1, 1)?;
            let x = to_f(&args[0], n)?;
            math1(n, x)
        }
        other => fail(format!("{other}() is not supported by mbconv's xacro")),
    }
}

/// The next float after `x` toward `y` (C's `nextafter`).
fn next_after(x: f64, y: f64) -> f64 {
    if x.is_nan() || y.is_nan() {
        return f64::NAN;
    }
    if x == y {
        return y;
    }
    if x == 0.0 {
        return f64::from_bits(1).copysign(y);
    }
    let bits = x.to_bits();
    let up = (y > x) == (x > 0.0);
    f64::from_bits(if up { bits + 1 } else { bits - 1 })
}

/// The correctly rounded sum of `xs` (Python's `math.fsum`, Shewchuk's algorithm).
fn exact_sum(xs: &[f64]) -> f64 {
    let mut partials: Vec<f64> = Vec::new();
    for &x in xs {
        let mut x = x;
        let mut i = 0;
        for j in 0..partials.len() {
            let mut y = partials[j];
            if x.abs() < y.abs() {
                std::mem::swap(&mut x, &mut y);
            }
            let hi = x + y;
            let lo = y - (hi - x);
            if lo != 0.0 {
                partials[i] = lo;
                i += 1;
            }
            x = hi;
        }
        partials.truncate(i);
        partials.push(x);
    }
    partials.iter().sum()
}

fn str_arg<'a>(args: &'a [Value], i: usize, what: &str) -> EResult<Option<&'a str>> {
    match args.get(i) {
        None | Some(Value::None) => Ok(None),
        Some(Value::Str(s)) => Ok(Some(s)),
        Some(other) => fail(format!(
            "{what} arg must be None or str, not {}",
            other.type_name()
        )),
    }
}

fn split(s: &str, sep: Option<&str>, maxsplit: i64, from_right: bool) -> EResult<Vec<Value>> {
    let limit = usize::try_from(maxsplit).unwrap_or(usize::MAX);
    let parts: Vec<String> = match sep {
        Some("") => return fail("empty separator"),
        Some(sep) => {
            if from_right {
                let mut v: Vec<String> = s
                    .rsplitn(limit.saturating_add(1), sep)
                    .map(str::to_owned)
                    .collect();
                v.reverse();
                v
            } else {
                s.splitn(limit.saturating_add(1), sep)
                    .map(str::to_owned)
                    .collect()
            }
        }
        None => {
            let mut out = Vec::new();
            let mut rest = s.trim_start();
            while !rest.is_empty() {
                if out.len() == limit {
                    out.push(rest.trim_end().to_owned());
                    break;
                }
                let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
                out.push(rest[..end].to_owned());
                rest = rest[end..].trim_start();
            }
            out
        }
    };
    Ok(parts.iter().map(|p| Value::str(p)).collect())
}

/// Calls method `name` of `obj`.
pub(crate) fn method(
    ev: &mut Eval,
    obj: &Value,
    name: &str,
    args: Vec<Value>,
    kwargs: Vec<(String, Value)>,
) -> EResult<Value> {
    if let Value::Str(s) = obj {
        if name == "format" {
            return crate::format::format_method(s, &args, &kwargs);
        }
        let mut args = args;
        for (k, v) in kwargs {
            match (name, k.as_str()) {
                ("split" | "rsplit", "sep") => {
                    if args.is_empty() {
                        args.push(v);
                    } else {
                        args.insert(0, v);
                    }
                }
                ("split" | "rsplit", "maxsplit") => {
                    while args.is_empty() {
                        args.push(Value::None);
                    }
                    args.push(v);
                }
                _ => return fail(format!("{name}() got an unexpected keyword argument '{k}'")),
            }
        }
        let s: &str = s;
        let strip_chars = |i: usize| -> EResult<Option<Vec<char>>> {
            Ok(str_arg(&args, i, name)?.map(|c| c.chars().collect()))
        };
        return Ok(match name {
            "upper" => Value::str(&s.to_uppercase()),
            "lower" => Value::str(&s.to_lowercase()),
            "swapcase" => Value::str(
                &s.chars()
                    .map(|c| {
                        if c.is_uppercase() {
                            c.to_lowercase().collect::<String>()
                        } else {
                            c.to_uppercase().collect()
                        }
                    })
                    .collect::<String>(),
            ),
            "strip" | "lstrip" | "rstrip" => {
                let chars = strip_chars(0)?;
                let pred = |c: char| chars.as_ref().map_or(c.is_whitespace(), |cs| cs.contains(&c));
                Value::str(match name {
                    "strip" => s.trim_matches(pred),
                    "lstrip" => s.trim_start_matches(pred),
                    _ => s.trim_end_matches(pred),
                })
            }
            "split" | "rsplit" => {
                let sep = str_arg(&args, 0, name)?;
                let max = args.get(1).map(as_index).transpose()?.unwrap_or(-1);
                Value::list(split(s, sep, max, name == "rsplit")?)
            }
            "splitlines" => Value::list(s.lines().map(Value::str).collect()),
            "join" => {
                arity(name, &args, 1, 1)?;
                let mut parts = Vec::new();
                for (i, v) in iterate(&args[0])?.into_iter().enumerate() {
                    match v {
                        Value::Str(p) => parts.push(p.to_string()),
                        other => {
                            return fail(format!(
                                "sequence item {i}: expected str instance, {} found",
                                other.type_name()
                            ));
                        }
                    }
                }
                let total =
                    parts.iter().map(String::len).sum::<usize>() + s.len().saturating_mul(parts.len());
                if total > MAX_TEXT {
                    return too_long();
                }
                Value::str(&parts.join(s))
            }
            "replace" => {
                arity(name, &args, 2, 3)?;
                let (Some(from), Some(to)) = (str_arg(&args, 0, name)?, str_arg(&args, 1, name)?) else {
                    return fail("replace() arguments must be str");
                };
                match args.get(2).map(as_index).transpose()? {
                    Some(n) if n >= 0 => Value::str(&s.replacen(from, to, usize::try_from(n).unwrap_or(0))),
                    _ => Value::str(&s.replace(from, to)),
                }
            }
            "startswith" | "endswith" => {
                arity(name, &args, 1, 3)?;
                let options = match &args[0] {
                    Value::Tuple(t) => t.to_vec(),
                    v => vec![v.clone()],
                };
                let window = window(s, &args, 1)?;
                let mut hit = false;
                for o in options {
                    let Value::Str(p) = o else {
                        return fail(format!("{name} first arg must be str or a tuple of str"));
                    };
                    let Some((part, _)) = &window else { continue };
                    hit |= if name == "startswith" {
                        part.starts_with(&*p)
                    } else {
                        part.ends_with(&*p)
                    };
                }
                Value::Bool(hit)
            }
            "casefold" => {
                arity(name, &args, 0, 0)?;
                // Full case folding: the lower case of the upper case (`ß` -> `ss`, `ς` -> `σ`),
                // except the dotless `ı`, which folds to itself.
                Value::str(
                    &s.chars()
                        .map(|c| {
                            if c == '\u{131}' {
                                c.to_string()
                            } else {
                                c.to_uppercase().collect::<String>().to_lowercase()
                            }
                        })
                        .collect::<String>(),
                )
            }
            "expandtabs" => {
                arity(name, &args, 0, 1)?;
                let size = args.first().map(as_index).transpose()?.unwrap_or(8);
                let mut out = String::new();
                let mut column = 0i64;
                for c in s.chars() {
                    match c {
                        '\t' => {
                            if size > 0 {
                                let n = size - column % size;
                                out.extend(std::iter::repeat_n(' ', usize::try_from(n).unwrap_or(0)));
                                column += n;
                            }
                        }
                        '\n' | '\r' => {
                            out.push(c);
                            column = 0;
                        }
                        _ => {
                            out.push(c);
                            column += 1;
                        }
                    }
                    if out.len() > MAX_TEXT {
                        return too_long();
                    }
                }
                Value::str(&out)
            }
            "removeprefix" => Value::str(
                s.strip_prefix(str_arg(&args, 0, name)?.unwrap_or(""))
                    .unwrap_or(s),
            ),
            "removesuffix" => Value::str(
                s.strip_suffix(str_arg(&args, 0, name)?.unwrap_or(""))
                    .unwrap_or(s),
            ),
            "center" | "ljust" | "rjust" => {
                arity(name, &args, 1, 2)?;
                let width = usize::try_from(as_index(&args[0])?).unwrap_or(0);
                if width > MAX_TEXT {
                    return too_long();
                }
                let fill = match str_arg(&args, 1, name)? {
                    None => ' ',
                    Some(f) if f.chars().count() == 1 => f.chars().next().unwrap_or(' '),
                    Some(_) => return fail("The fill character must be exactly one character long"),
                };
                let n = s.chars().count();
                let margin = width.saturating_sub(n);
                // CPython's pad(): center puts the odd character left when the width is odd.
                let left = match name {
                    "ljust" => 0,
                    "rjust" => margin,
                    _ => margin / 2 + (margin & width & 1),
                };
                let pad = |k: usize| std::iter::repeat_n(fill, k).collect::<String>();
                Value::str(&format!("{}{s}{}", pad(left), pad(margin - left)))
            }
            "partition" | "rpartition" => {
                arity(name, &args, 1, 1)?;
                let Some(sep) = str_arg(&args, 0, name)? else {
                    return fail(format!("must be str, not {}", args[0].type_name()));
                };
                if sep.is_empty() {
                    return fail("empty separator");
                }
                let at = if name == "partition" {
                    s.find(sep)
                } else {
                    s.rfind(sep)
                };
                let parts = match at {
                    Some(b) => [&s[..b], sep, &s[b + sep.len()..]],
                    None if name == "partition" => [s, "", ""],
                    None => ["", "", s],
                };
                Value::Tuple(Rc::new(parts.iter().map(|p| Value::str(p)).collect()))
            }
            "find" | "rfind" | "index" | "rindex" => {
                let sub = str_arg(&args, 0, name)?.unwrap_or("");
                let at = window(s, &args, 1)?.and_then(|(part, start)| {
                    let at = if name == "rfind" || name == "rindex" {
                        part.rfind(sub)
                    } else {
                        part.find(sub)
                    };
                    at.map(|b| start + i64::try_from(part[..b].chars().count()).unwrap_or(0))
                });
                match at {
                    Some(i) => Value::Int(i),
                    None if name.ends_with("index") => return fail("substring not found"),
                    None => Value::Int(-1),
                }
            }
            "count" => {
                let sub = str_arg(&args, 0, name)?.unwrap_or("");
                let n = match window(s, &args, 1)? {
                    None => 0,
                    Some((part, _)) if sub.is_empty() => part.chars().count() + 1,
                    Some((part, _)) => part.matches(sub).count(),
                };
                Value::Int(i64::try_from(n).unwrap_or(0))
            }
            "isnumeric" => Value::Bool(!s.is_empty() && s.chars().all(char::is_numeric)),
            "isdecimal" => Value::Bool(!s.is_empty() && s.chars().all(|c| c.is_ascii_digit())),
            "istitle" => {
                // Upper case only after an uncased character, lower case only after a cased one,
                // and at least one cased character.
                let (mut cased, mut previous_cased, mut ok) = (false, false, true);
                for c in s.chars() {
                    if c.is_uppercase() {
                        ok &= !previous_cased;
                        previous_cased = true;
                        cased = true;
                    } else if c.is_lowercase() {
                        ok &= previous_cased;
                        previous_cased = true;
                        cased = true;
                    } else {
                        previous_cased = false;
                    }
                }
                Value::Bool(ok && cased)
            }
            "isdigit" => Value::Bool(!s.is_empty() && s.chars().all(|c| c.is_ascii_digit())),
            "isalpha" => Value::Bool(!s.is_empty() && s.chars().all(char::is_alphabetic)),
            "isalnum" => Value::Bool(!s.is_empty() && s.chars().all(char::is_alphanumeric)),
            "isspace" => Value::Bool(!s.is_empty() && s.chars().all(char::is_whitespace)),
            "isupper" => Value::Bool(s.chars().any(char::is_uppercase) && !s.chars().any(char::is_lowercase)),
            "islower" => Value::Bool(s.chars().any(char::is_lowercase) && !s.chars().any(char::is_uppercase)),
            "capitalize" => {
                let mut c = s.chars();
                Value::str(&match c.next() {
                    Some(f) => f
                        .to_uppercase()
                        .chain(c.flat_map(char::to_lowercase))
                        .collect::<String>(),
                    None => String::new(),
                })
            }
            "title" => {
                let mut out = String::new();
                let mut prev_alpha = false;
                for c in s.chars() {
                    if prev_alpha {
                        out.extend(c.to_lowercase());
                    } else {
                        out.extend(c.to_uppercase());
                    }
                    prev_alpha = c.is_alphabetic();
                }
                Value::str(&out)
            }
            "zfill" => {
                let width = usize::try_from(as_index(args.first().unwrap_or(&Value::Int(0)))?).unwrap_or(0);
                if width > MAX_TEXT {
                    return too_long();
                }
                let n = s.chars().count();
                if n >= width {
                    Value::str(s)
                } else {
                    let (sign, rest) = match s.chars().next() {
                        Some(c @ ('+' | '-')) => (c.to_string(), &s[1..]),
                        _ => (String::new(), s),
                    };
                    Value::str(&format!("{sign}{}{rest}", "0".repeat(width - n)))
                }
            }
            other => return fail(format!("str.{other}() is not supported by mbconv's xacro")),
        });
    }
    no_kwargs(name, &kwargs)?;
    match (obj, name) {
        (Value::Dict(d), "get") => {
            arity(name, &args, 1, 2)?;
            hashable(&args[0])?;
            Ok(d.borrow()
                .get(&args[0])
                .cloned()
                .unwrap_or_else(|| args.get(1).cloned().unwrap_or(Value::None)))
        }
        (Value::Dict(d), "keys") => Ok(Value::Iter(
            Rc::new(d.borrow().entries.iter().map(|(k, _)| k.clone()).collect()),
            "dict_keys",
        )),
        (Value::Dict(d), "values") => Ok(Value::Iter(
            Rc::new(d.borrow().entries.iter().map(|(_, v)| v.clone()).collect()),
            "dict_values",
        )),
        (Value::Dict(d), "items") => Ok(Value::Iter(
            Rc::new(
                d.borrow()
                    .entries
                    .iter()
                    .map(|(k, v)| Value::Tuple(Rc::new(vec![k.clone(), v.clone()])))
                    .collect(),
            ),
            "dict_items",
        )),
        (Value::Dict(d), "copy") => Ok(Value::dict(d.borrow().clone())),
        (Value::List(l), "append") => {
            arity(name, &args, 1, 1)?;
            l.borrow_mut().push(args[0].clone());
            Ok(Value::None)
        }
        (Value::List(l), "extend") => {
            arity(name, &args, 1, 1)?;
            let more = iterate(&args[0])?;
            l.borrow_mut().extend(more);
            Ok(Value::None)
        }
        (Value::List(l), "copy") => Ok(Value::list(l.borrow().clone())),
        (Value::List(_) | Value::Tuple(_), "index" | "count") => {
            arity(name, &args, 1, 1)?;
            let items = iterate(obj)?;
            if name == "count" {
                return Ok(Value::Int(
                    i64::try_from(items.iter().filter(|v| v.py_eq(&args[0])).count()).unwrap_or(0),
                ));
            }
            match items.iter().position(|v| v.py_eq(&args[0])) {
                Some(i) => Ok(Value::Int(i64::try_from(i).unwrap_or(0))),
                None => fail(format!("{} is not in list", args[0].repr())),
            }
        }
        (Value::Float(f), "is_integer") => Ok(Value::Bool(f.fract() == 0.0)),
        (Value::Complex(re, im), "conjugate") => {
            arity(name, &args, 0, 0)?;
            Ok(Value::Complex(*re, -im))
        }
        _ => {
            let _ = ev;
            fail(format!("'{}' object has no attribute '{name}'", obj.type_name()))
        }
    }
}

/// What `v` holds whose Python text has a memory address (`<generator object <genexpr> at
/// 0x7f...>`, `<function <lambda> at 0x...>`), which no expansion can reproduce (`None`:
/// nothing).
fn addressed(v: &Value) -> Option<String> {
    match v {
        Value::Iter(_, kind) if !kind.starts_with("dict_") => Some(format!("a {kind} object")),
        Value::Lambda(_) => Some("a lambda".to_owned()),
        Value::Method(_, name) => Some(format!("the method {name}")),
        Value::Func(crate::value::Builtin::Named(name)) if name.starts_with("xacro.") => {
            Some(format!("the function {name}"))
        }
        Value::Namespace(_) => Some("a namespace".to_owned()),
        Value::Block(_) => Some("an XML block".to_owned()),
        Value::List(l) => l.borrow().iter().find_map(addressed),
        Value::Tuple(t) => t.iter().find_map(addressed),
        Value::Dict(d) => d
            .borrow()
            .entries
            .iter()
            .find_map(|(k, v)| addressed(k).or_else(|| addressed(v))),
        _ => None,
    }
}

/// Fails when `v`'s Python text would hold a memory address (see `addressed`): printing it is
/// refused with an error naming what it holds, as a text no comparison could match.
pub(crate) fn no_address(v: &Value) -> EResult<()> {
    addressed(v).map_or(Ok(()), |what| {
        fail(format!(
            "printing {what}: Python's text for it holds a memory address, which mbconv's xacro does not invent"
        ))
    })
}

/// The text of `v` in the document (`text_of`), refused for a value whose text would hold a
/// memory address (`no_address`).
pub(crate) fn printed(v: &Value) -> EResult<String> {
    no_address(v)?;
    Ok(text_of(v))
}

/// The text xacro puts into the document for a value: Python's `str()`.
pub(crate) fn text_of(v: &Value) -> String {
    match v {
        Value::Float(f) => float_repr(*f),
        other => other.to_py_str(),
    }
}
