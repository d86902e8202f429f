//! A tiny JSON tree and its deterministic pretty printer: two-space indent, arrays of scalars
//! on one line, numbers by `kit::numbers` (integral floats keep a `.0`, so they read back as
//! floats).

use mbconv_ir::Value;
use mbconv_ir::format::kit::numbers::format_number;

/// A JSON value to write.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Out {
    Null,
    Bool(bool),
    /// A float (written so that it reads back as a float).
    Float(f64),
    /// An integer.
    Int(i64),
    String(String),
    Array(Vec<Out>),
    Object(Vec<(String, Out)>),
}

impl Out {
    pub fn str(s: impl Into<String>) -> Out {
        Out::String(s.into())
    }
    pub fn floats(values: &[f64]) -> Out {
        Out::Array(values.iter().map(|x| Out::Float(*x)).collect())
    }
    pub fn object() -> Out {
        Out::Object(Vec::new())
    }
    /// Adds a member to an object (no effect on other values).
    pub fn with(mut self, key: &str, value: Out) -> Out {
        self.push(key, value);
        self
    }
    /// Adds a member to an object, replacing one of the same key.
    pub fn push(&mut self, key: &str, value: Out) {
        if let Out::Object(members) = self {
            if let Some(m) = members.iter_mut().find(|(k, _)| k == key) {
                m.1 = value;
            } else {
                members.push((key.to_owned(), value));
            }
        }
    }
    fn is_scalar(&self) -> bool {
        !matches!(self, Out::Array(_) | Out::Object(_))
    }
}

/// An IR value as JSON.
pub(crate) fn from_value(value: &Value) -> Out {
    match value {
        Value::Null => Out::Null,
        Value::Bool(b) => Out::Bool(*b),
        Value::Int(i) => Out::Int(*i),
        Value::Float(x) => Out::Float(*x),
        Value::String(s) => Out::String(s.clone()),
        Value::List(items) => Out::Array(items.iter().map(from_value).collect()),
        Value::Map(map) => Out::Object(map.iter().map(|(k, v)| (k.to_owned(), from_value(v))).collect()),
    }
}

/// The text of `value`, ending with a newline.
pub(crate) fn to_text(value: &Out) -> String {
    let mut out = String::new();
    write(value, 0, &mut out);
    out.push('\n');
    out
}

fn write(value: &Out, indent: usize, out: &mut String) {
    match value {
        Out::Null => out.push_str("null"),
        Out::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Out::Int(i) => out.push_str(&i.to_string()),
        Out::Float(x) => out.push_str(&float_text(*x)),
        Out::String(s) => string(s, out),
        Out::Array(items) if items.is_empty() => out.push_str("[]"),
        Out::Array(items) if items.iter().all(Out::is_scalar) || items.iter().all(is_row) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write(item, indent, out);
            }
            out.push(']');
        }
        Out::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                out.push_str(if i > 0 { ",\n" } else { "\n" });
                pad(indent + 1, out);
                write(item, indent + 1, out);
            }
            out.push('\n');
            pad(indent, out);
            out.push(']');
        }
        Out::Object(members) if members.is_empty() => out.push_str("{}"),
        Out::Object(members) => {
            out.push('{');
            for (i, (key, item)) in members.iter().enumerate() {
                out.push_str(if i > 0 { ",\n" } else { "\n" });
                pad(indent + 1, out);
                string(key, out);
                out.push_str(": ");
                write(item, indent + 1, out);
            }
            out.push('\n');
            pad(indent, out);
            out.push('}');
        }
    }
}

/// A short array of scalars (a matrix row, a `[body, frame]` pair).
fn is_row(item: &Out) -> bool {
    matches!(item, Out::Array(items) if items.len() <= 4 && items.iter().all(Out::is_scalar))
}

fn pad(indent: usize, out: &mut String) {
    for _ in 0..indent {
        out.push_str("  ");
    }
}

/// The shortest text that reads back to `x` as a float (`1.0`, not `1`). Non-finite numbers,
/// which JSON cannot say, become `null`.
pub(crate) fn float_text(x: f64) -> String {
    if !x.is_finite() {
        return "null".to_owned();
    }
    let text = format_number(x);
    if text.contains(['.', 'e', 'E']) {
        text
    } else {
        format!("{text}.0")
    }
}

fn string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pretty_prints_deterministically() {
        let v = Out::object()
            .with("gravity", Out::floats(&[0.0, 0.0, 9.81]))
            .with(
                "R",
                Out::Array(vec![Out::floats(&[1.0, 0.0, 0.0]), Out::floats(&[0.0, 1.0, 0.0])]),
            )
            .with("name", Out::str("a\"b"))
            .with("n", Out::Int(3));
        assert_eq!(
            to_text(&v),
            "{\n  \"gravity\": [0.0, 0.0, 9.81],\n  \"R\": [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],\n  \"name\": \"a\\\"b\",\n  \"n\": 3\n}\n"
        );
        assert_eq!(float_text(1e-7), "1e-7");
        assert_eq!(float_text(-0.0), "-0.0");
    }
}
