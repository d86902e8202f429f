//! A small deterministic YAML writer: block mappings and sequences, flow-style number lists,
//! numbers in the kit's shortest round-trip form, strings quoted only when needed.

use mbconv_ir::Value;
use mbconv_ir::format::kit::numbers::format_number;

/// A YAML value to write.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Y {
    /// A number from the model (written `1`, `0.5`, `1e-7`).
    Num(f64),
    /// Text written as is (versions, verbatim numbers).
    Plain(String),
    /// A string (quoted when it would otherwise read as something else).
    Str(String),
    /// A boolean.
    Bool(bool),
    /// `null`.
    Null,
    /// A flow list `[a, b]`.
    Flow(Vec<Y>),
    /// A block list.
    Seq(Vec<Y>),
    /// A block mapping in this key order.
    Map(Vec<(String, Y)>),
}

impl Y {
    /// A flow list of numbers.
    pub(crate) fn nums(values: &[f64]) -> Y {
        Y::Flow(values.iter().map(|x| Y::Num(*x)).collect())
    }
    /// A verbatim value from extras: float values keep a decimal point so they read back as floats.
    pub(crate) fn from_value(v: &Value) -> Y {
        match v {
            Value::Null => Y::Null,
            Value::Bool(b) => Y::Bool(*b),
            Value::Int(i) => Y::Plain(i.to_string()),
            Value::Float(x) => {
                let mut s = format_number(*x);
                if !s.contains(['.', 'e', 'E', 'i', 'N']) {
                    s.push_str(".0");
                }
                Y::Plain(s)
            }
            Value::String(s) => Y::Str(s.clone()),
            Value::List(items) => {
                let ys: Vec<Y> = items.iter().map(Y::from_value).collect();
                if ys.iter().all(|y| !matches!(y, Y::Map(_) | Y::Seq(_))) {
                    Y::Flow(ys)
                } else {
                    Y::Seq(ys)
                }
            }
            Value::Map(m) => Y::Map(m.iter().map(|(k, v)| (k.to_owned(), Y::from_value(v))).collect()),
        }
    }
}

/// Writes a document (a mapping) as YAML text.
pub(crate) fn document(root: &[(String, Y)]) -> String {
    let mut out = String::new();
    map(&mut out, root, 0, None);
    out
}

fn map(out: &mut String, entries: &[(String, Y)], indent: usize, first_prefix: Option<&str>) {
    for (i, (k, v)) in entries.iter().enumerate() {
        match (i, first_prefix) {
            (0, Some(p)) => out.push_str(p),
            _ => out.push_str(&" ".repeat(indent)),
        }
        out.push_str(&key(k));
        out.push(':');
        match v {
            Y::Map(m) if !m.is_empty() => {
                out.push('\n');
                map(out, m, indent + 2, None);
            }
            Y::Seq(s) if !s.is_empty() => {
                out.push('\n');
                seq(out, s, indent + 2);
            }
            other => {
                out.push(' ');
                out.push_str(&inline(other));
                out.push('\n');
            }
        }
    }
}

fn seq(out: &mut String, items: &[Y], indent: usize) {
    let pad = " ".repeat(indent);
    for item in items {
        match item {
            Y::Map(m) if !m.is_empty() => map(out, m, indent + 2, Some(&format!("{pad}- "))),
            Y::Seq(s) if !s.is_empty() => {
                out.push_str(&pad);
                out.push_str("-\n");
                seq(out, s, indent + 2);
            }
            other => {
                out.push_str(&pad);
                out.push_str("- ");
                out.push_str(&inline(other));
                out.push('\n');
            }
        }
    }
}

fn inline(y: &Y) -> String {
    match y {
        Y::Num(x) => format_number(*x),
        Y::Plain(s) => s.clone(),
        Y::Str(s) => string(s),
        Y::Bool(b) => b.to_string(),
        Y::Null => "null".to_owned(),
        Y::Flow(items) | Y::Seq(items) => {
            let parts: Vec<String> = items.iter().map(inline).collect();
            format!("[{}]", parts.join(", "))
        }
        Y::Map(m) => {
            let parts: Vec<String> = m
                .iter()
                .map(|(k, v)| format!("{}: {}", key(k), inline(v)))
                .collect();
            format!("{{{}}}", parts.join(", "))
        }
    }
}

fn key(k: &str) -> String {
    string(k)
}

/// A string, plain when that reads back as the same string, double-quoted otherwise.
pub(crate) fn string(s: &str) -> String {
    let reserved = matches!(
        s.to_ascii_lowercase().as_str(),
        "true" | "false" | "yes" | "no" | "on" | "off" | "y" | "n" | "null" | "~"
    );
    let plain = !s.is_empty()
        && !reserved
        && s.chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '.' || c == '/')
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, ' ' | '_' | '-' | '.' | '/' | '(' | ')'))
        && !s.ends_with(' ')
        && crate::raw::parse_number(s).is_none()
        && !s.starts_with(".inf")
        && !s.eq_ignore_ascii_case(".nan");
    if plain {
        return s.to_owned();
    }
    let mut q = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => q.push_str("\\\""),
            '\\' => q.push_str("\\\\"),
            '\n' => q.push_str("\\n"),
            '\t' => q.push_str("\\t"),
            c if (c as u32) < 0x20 => q.push_str(&format!("\\x{:02x}", c as u32)),
            c => q.push(c),
        }
    }
    q.push('"');
    q
}

/// Inserts `value` at a dotted path inside a mapping, creating mappings on the way.
pub(crate) fn insert_at(entries: &mut Vec<(String, Y)>, dotted: &str, value: Y) {
    let (head, rest) = match dotted.split_once('.') {
        Some((h, r)) => (h, Some(r)),
        None => (dotted, None),
    };
    match rest {
        None => match entries.iter_mut().find(|(k, _)| k == head) {
            Some(slot) => slot.1 = value,
            None => entries.push((head.to_owned(), value)),
        },
        Some(rest) => {
            if !entries.iter().any(|(k, v)| k == head && matches!(v, Y::Map(_))) {
                entries.retain(|(k, _)| k != head);
                entries.push((head.to_owned(), Y::Map(Vec::new())));
            }
            if let Some((_, Y::Map(m))) = entries.iter_mut().find(|(k, _)| k == head) {
                insert_at(m, rest, value);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn numbers_read_back_bit_for_bit(x in proptest::num::f64::NORMAL | proptest::num::f64::SUBNORMAL | proptest::num::f64::ZERO) {
            let text = format_number(x);
            prop_assert_eq!(crate::raw::parse_number(&text).unwrap().to_bits(), x.to_bits());
        }

        #[test]
        fn strings_read_back(s in "[ -~]{0,12}") {
            let doc = document(&[("k".into(), Y::Str(s.clone()))]);
            let root = crate::raw::parse(&mbconv_ir::format::Source::from_string("s.yaml", doc.clone())).unwrap();
            let node = root.get("k").unwrap();
            let back = match &node.kind {
                crate::raw::NodeKind::Null => String::new(),
                _ => node.scalar().unwrap().to_owned(),
            };
            prop_assert_eq!(back, s, "{}", doc);
        }
    }

    #[test]
    fn layout_is_block_with_flow_vectors() {
        let doc = document(&[(
            "bodies".into(),
            Y::Seq(vec![Y::Map(vec![
                ("name".into(), Y::Str("a b".into())),
                ("location".into(), Y::nums(&[1.0, 0.0, -0.5])),
                ("data".into(), Y::Seq(vec![Y::nums(&[0.0, 1.0])])),
            ])]),
        )]);
        assert_eq!(
            doc,
            "bodies:\n  - name: a b\n    location: [1, 0, -0.5]\n    data:\n      - [0, 1]\n"
        );
    }
}
