//! Deterministic YAML text: block mappings and lists built line by line, flow lists of numbers,
//! strings quoted when a plain scalar would read as something else, verbatim values in flow
//! style. Numbers go through `mbconv_ir::format::kit::numbers`.

use mbconv_ir::Value;
use mbconv_ir::format::kit::numbers::format_number;

/// A number as written.
pub(crate) fn number(x: f64) -> String {
    format_number(x)
}

/// A flow list of numbers: `[1, 0.5, 2]`.
pub(crate) fn numbers(values: &[f64]) -> String {
    let items: Vec<String> = values.iter().map(|x| number(*x)).collect();
    format!("[{}]", items.join(", "))
}

/// A string: plain when it reads back as the same string, else double-quoted.
pub(crate) fn string(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | '+'))
        && s.chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '/')
        && !matches!(
            s.to_ascii_lowercase().as_str(),
            "true"
                | "false"
                | "yes"
                | "no"
                | "on"
                | "off"
                | "y"
                | "n"
                | "null"
                | "nan"
                | "inf"
                | ".nan"
                | ".inf"
        );
    if plain { s.to_owned() } else { quote(s) }
}

/// A double-quoted string with escapes.
pub(crate) fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A verbatim value in flow style. Floats keep a decimal point (or exponent) so they read back
/// as floats.
pub(crate) fn value(v: &Value) -> String {
    match v {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Float(x) => float(*x),
        Value::String(s) => {
            let plain = string(s);
            if plain == *s && s.parse::<f64>().is_err() {
                plain
            } else {
                quote(s)
            }
        }
        Value::List(items) => {
            let items: Vec<String> = items.iter().map(value).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Map(map) => {
            let items: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{}: {}", string(k), value(v)))
                .collect();
            format!("{{{}}}", items.join(", "))
        }
    }
}

/// A float that reads back as a float.
pub(crate) fn float(x: f64) -> String {
    if x.is_nan() {
        return ".nan".to_owned();
    }
    if x.is_infinite() {
        return if x > 0.0 {
            ".inf".to_owned()
        } else {
            "-.inf".to_owned()
        };
    }
    let text = format_number(x);
    if text.contains(['.', 'e', 'E']) {
        text
    } else {
        format!("{text}.0")
    }
}

/// Lines of YAML with indentation.
#[derive(Default)]
pub(crate) struct Writer {
    text: String,
}

impl Writer {
    /// `key: value` at `indent` levels (two spaces each).
    pub fn entry(&mut self, indent: usize, key: &str, value: &str) {
        self.line(indent, &format!("{key}: {value}"));
    }
    /// `key:` opening a block.
    pub fn open(&mut self, indent: usize, key: &str) {
        self.line(indent, &format!("{key}:"));
    }
    /// `- key: value`, the first entry of a list item at `indent`.
    pub fn item(&mut self, indent: usize, key: &str, value: &str) {
        self.line(indent, &format!("- {key}: {value}"));
    }
    /// One line.
    pub fn line(&mut self, indent: usize, text: &str) {
        for _ in 0..indent {
            self.text.push_str("  ");
        }
        self.text.push_str(text);
        self.text.push('\n');
    }
    /// The text.
    pub fn finish(self) -> String {
        self.text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_that_would_read_otherwise_are_quoted() {
        assert_eq!(string("link1"), "link1");
        assert_eq!(string("yes"), "\"yes\"");
        assert_eq!(string("1.5"), "\"1.5\"");
        assert_eq!(string("a b"), "\"a b\"");
        assert_eq!(value(&Value::String("12".into())), "\"12\"");
    }

    #[test]
    fn floats_stay_floats() {
        assert_eq!(float(1.0), "1.0");
        assert_eq!(float(0.25), "0.25");
        assert_eq!(float(1e-7), "1e-7");
    }
}
