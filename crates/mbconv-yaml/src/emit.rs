//! The YAML writer of every YAML format (Chrono YAML, Choreonoid Body): deterministic text with
//! block mappings and lists, flow lists of numbers, numbers in the kit's shortest round-trip
//! form, and strings plain only where every reader of these formats reads them back as the
//! same string.
//!
//! A document is built as a [`Yaml`] tree and written by [`document`], or line by line with a
//! [`Writer`] (same layout: two spaces a level, list items as `- `). Either way scalars go
//! through the same rules:
//!
//! * a number is [`number`]: `1`, `0.5`, `1e-7` (`format::kit::numbers`), `.nan`, `.inf`,
//!   `-.inf`; every finite value reads back bit for bit;
//! * a string is [`string`]: plain when [`plain_is_safe`] says so, double-quoted with escapes
//!   otherwise;
//! * a verbatim value from extras is [`Yaml::from_value`]: a float keeps a decimal point so
//!   that it reads back as a float, a string that would read as a number is quoted.
//!
//! ```
//! use mbconv_yaml::emit::{Yaml, document};
//! let text = document(&[
//!     ("name".into(), Yaml::Str("yes".into())),
//!     ("bodies".into(), Yaml::Seq(vec![Yaml::Map(vec![
//!         ("name".into(), Yaml::Str("arm".into())),
//!         ("location".into(), Yaml::nums(&[1.0, 0.0, -0.5])),
//!     ])])),
//! ]);
//! assert_eq!(text, "name: \"yes\"\nbodies:\n  - name: arm\n    location: [1, 0, -0.5]\n");
//! ```

use mbconv_ir::Value;
use mbconv_ir::format::kit::numbers::format_number;

/// A YAML value to write.
#[derive(Clone, Debug, PartialEq)]
pub enum Yaml {
    /// A number (written by [`number`]: `1`, `0.5`, `1e-7`).
    Num(f64),
    /// Text written as is: a keyword or an enumeration value of the format (`REVOLUTE`), a
    /// version (`10.0`), an integer. The caller vouches that it reads back as meant.
    Plain(String),
    /// A string (quoted when it would otherwise read as something else).
    Str(String),
    /// A boolean.
    Bool(bool),
    /// `null`.
    Null,
    /// A flow list `[a, b]`.
    Flow(Vec<Yaml>),
    /// A block list (a flow list where it stands inside a flow value).
    Seq(Vec<Yaml>),
    /// A block mapping in this key order (a flow mapping inside a flow value).
    Map(Vec<(String, Yaml)>),
}

impl Yaml {
    /// A flow list of numbers.
    ///
    /// ```
    /// use mbconv_yaml::emit::{Yaml, inline};
    /// assert_eq!(inline(&Yaml::nums(&[1.0, 0.25, 1e-7])), "[1, 0.25, 1e-7]");
    /// ```
    pub fn nums(values: &[f64]) -> Yaml {
        Yaml::Flow(values.iter().map(|x| Yaml::Num(*x)).collect())
    }

    /// A verbatim value (from extras): floats keep a decimal point so that they read back as
    /// floats, strings that would read as anything else are quoted, lists of scalars are flow
    /// lists and mappings are block mappings.
    ///
    /// ```
    /// use mbconv_ir::Value;
    /// use mbconv_yaml::emit::{Yaml, inline};
    /// assert_eq!(inline(&Yaml::from_value(&Value::Float(2.0))), "2.0");
    /// assert_eq!(inline(&Yaml::from_value(&Value::String("12".into()))), "\"12\"");
    /// ```
    pub fn from_value(v: &Value) -> Yaml {
        match v {
            Value::Null => Yaml::Null,
            Value::Bool(b) => Yaml::Bool(*b),
            Value::Int(i) => Yaml::Plain(i.to_string()),
            Value::Float(x) => Yaml::Plain(float(*x)),
            Value::String(s) => Yaml::Str(s.clone()),
            Value::List(items) => {
                let ys: Vec<Yaml> = items.iter().map(Yaml::from_value).collect();
                if ys.iter().all(|y| !matches!(y, Yaml::Map(_) | Yaml::Seq(_))) {
                    Yaml::Flow(ys)
                } else {
                    Yaml::Seq(ys)
                }
            }
            Value::Map(m) => Yaml::Map(
                m.iter()
                    .map(|(k, v)| (k.to_owned(), Yaml::from_value(v)))
                    .collect(),
            ),
        }
    }
}

/// Writes a document (a mapping) as YAML text.
pub fn document(root: &[(String, Yaml)]) -> String {
    let mut out = String::new();
    block_map(&mut out, root, 0, None);
    out
}

fn block_map(out: &mut String, entries: &[(String, Yaml)], indent: usize, first_prefix: Option<&str>) {
    for (i, (k, v)) in entries.iter().enumerate() {
        match (i, first_prefix) {
            (0, Some(p)) => out.push_str(p),
            _ => out.push_str(&" ".repeat(indent)),
        }
        out.push_str(&string(k));
        out.push(':');
        match v {
            Yaml::Map(m) if !m.is_empty() => {
                out.push('\n');
                block_map(out, m, indent + 2, None);
            }
            Yaml::Seq(s) if !s.is_empty() => {
                out.push('\n');
                block_seq(out, s, indent + 2);
            }
            other => {
                out.push(' ');
                out.push_str(&inline(other));
                out.push('\n');
            }
        }
    }
}

fn block_seq(out: &mut String, items: &[Yaml], indent: usize) {
    let pad = " ".repeat(indent);
    for item in items {
        match item {
            Yaml::Map(m) if !m.is_empty() => block_map(out, m, indent + 2, Some(&format!("{pad}- "))),
            Yaml::Seq(s) if !s.is_empty() => {
                out.push_str(&pad);
                out.push_str("-\n");
                block_seq(out, s, indent + 2);
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

/// A value in flow style, as it stands after `key: ` or inside `[...]`.
///
/// ```
/// use mbconv_yaml::emit::{Yaml, inline};
/// let v = Yaml::Map(vec![("a".into(), Yaml::Num(1.0)), ("b c".into(), Yaml::Str("on".into()))]);
/// assert_eq!(inline(&v), "{a: 1, b c: \"on\"}");
/// ```
pub fn inline(y: &Yaml) -> String {
    match y {
        Yaml::Num(x) => number(*x),
        Yaml::Plain(s) => s.clone(),
        Yaml::Str(s) => string(s),
        Yaml::Bool(b) => b.to_string(),
        Yaml::Null => "null".to_owned(),
        Yaml::Flow(items) | Yaml::Seq(items) => {
            let parts: Vec<String> = items.iter().map(inline).collect();
            format!("[{}]", parts.join(", "))
        }
        Yaml::Map(m) => {
            let parts: Vec<String> = m
                .iter()
                .map(|(k, v)| format!("{}: {}", string(k), inline(v)))
                .collect();
            format!("{{{}}}", parts.join(", "))
        }
    }
}

/// A number as written: shortest round-trip form, `.nan`, `.inf` or `-.inf`.
///
/// ```
/// assert_eq!(mbconv_yaml::emit::number(2.0), "2");
/// assert_eq!(mbconv_yaml::emit::number(f64::NEG_INFINITY), "-.inf");
/// ```
pub fn number(x: f64) -> String {
    if x.is_nan() {
        ".nan".to_owned()
    } else if x.is_infinite() {
        if x > 0.0 { ".inf" } else { "-.inf" }.to_owned()
    } else {
        format_number(x)
    }
}

/// A flow list of numbers: `[1, 0.5, 2]`.
pub fn numbers(values: &[f64]) -> String {
    inline(&Yaml::nums(values))
}

/// A number that reads back as a float (never as an integer): `2.0`, `0.25`, `1e-7`, `.nan`.
///
/// ```
/// assert_eq!(mbconv_yaml::emit::float(1.0), "1.0");
/// assert_eq!(mbconv_yaml::emit::float(1e-7), "1e-7");
/// ```
pub fn float(x: f64) -> String {
    let text = number(x);
    if text.contains(['.', 'e', 'E']) {
        text
    } else {
        format!("{text}.0")
    }
}

/// A verbatim value in flow style (what [`Yaml::from_value`] gives, written inline).
pub fn value(v: &Value) -> String {
    inline(&Yaml::from_value(v))
}

/// A string: plain when [`plain_is_safe`], double-quoted otherwise.
///
/// ```
/// use mbconv_yaml::emit::string;
/// assert_eq!(string("link 1"), "link 1");
/// assert_eq!(string("yes"), "\"yes\"");
/// assert_eq!(string("1.5"), "\"1.5\"");
/// assert_eq!(string("a: b"), "\"a: b\"");
/// ```
pub fn string(s: &str) -> String {
    if plain_is_safe(s) { s.to_owned() } else { quote(s) }
}

/// True when `s`, written as a plain scalar in block or flow context, reads back as the string
/// `s` under the YAML 1.2 core schema (yaml-cpp, as Chrono reads), under YAML 1.1 (libyaml as
/// Choreonoid reads: `yes`, `on`, `y`, `~`, `.5` and `1_000` are not strings there), and when
/// no number reader that takes text (`strtod`, Rust's `parse`) would read it as a number
/// (`nan`, `inf`, `infinity`).
///
/// The rule is deliberately narrow: plain scalars are ASCII letters, digits, space and `_ - .
/// / + ( )`, starting with a letter, `_`, `/` or `.`, not ending with a space, and not one of
/// the words or numbers above in any letter case. Everything else is quoted.
pub fn plain_is_safe(s: &str) -> bool {
    let Some(first) = s.chars().next() else {
        return false;
    };
    let lower = s.to_ascii_lowercase();
    (first.is_ascii_alphabetic() || matches!(first, '_' | '/' | '.'))
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, ' ' | '_' | '-' | '.' | '/' | '+' | '(' | ')'))
        && !s.ends_with(' ')
        && !matches!(
            lower.as_str(),
            "true" | "false" | "yes" | "no" | "on" | "off" | "y" | "n" | "null" | "~"
        )
        && !is_number_like(&lower)
}

/// Numbers some reader could make of a lowercase plain scalar that starts with a letter, `_`,
/// `/` or `.`: `.5` and `.5e3` (YAML 1.1 and 1.2 floats), `.inf`, `.nan`, and what `strtod`
/// reads (`nan`, `inf`, `infinity`, `nan(…)`). A lone `.` or `..` stays plain: the pattern in
/// the YAML 1.1 type repository would match it, but no resolver in use applies it so (libyaml
/// leaves resolution to Choreonoid, which reads the text; PyYAML's pattern wants a digit), and
/// Chrono files write `root: .`.
fn is_number_like(lower: &str) -> bool {
    if let Some(rest) = lower.strip_prefix('.')
        && (rest.starts_with("inf")
            || rest.starts_with("nan")
            || rest.starts_with(|c: char| c.is_ascii_digit()))
    {
        return true;
    }
    lower.parse::<f64>().is_ok() || lower.starts_with("nan(")
}

/// A double-quoted string with escapes (`\"`, `\\`, `\n`, `\t`, `\xNN` for other C0 and C1
/// control characters, `\uNNNN` for the line and paragraph separators, the byte order mark and
/// non-characters); other non-ASCII characters stay as they are (the text is UTF-8).
///
/// ```
/// assert_eq!(mbconv_yaml::emit::quote("a\"b\n"), "\"a\\\"b\\n\"");
/// ```
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || ('\u{7f}'..='\u{9f}').contains(&c) => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            // Line and paragraph separators are line breaks in YAML 1.1 (libyaml folds them),
            // a byte order mark and non-characters are not printable.
            '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}' => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Inserts `value` at a dotted path (`a.b.c`) inside a mapping, creating mappings on the way
/// and replacing what stood there.
///
/// ```
/// use mbconv_yaml::emit::{Yaml, document, insert_at};
/// let mut root = vec![];
/// insert_at(&mut root, "solver.type", Yaml::Plain("BARZILAIBORWEIN".into()));
/// assert_eq!(document(&root), "solver:\n  type: BARZILAIBORWEIN\n");
/// ```
pub fn insert_at(entries: &mut Vec<(String, Yaml)>, dotted: &str, value: Yaml) {
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
            if !entries
                .iter()
                .any(|(k, v)| k == head && matches!(v, Yaml::Map(_)))
            {
                entries.retain(|(k, _)| k != head);
                entries.push((head.to_owned(), Yaml::Map(Vec::new())));
            }
            if let Some((_, Yaml::Map(m))) = entries.iter_mut().find(|(k, _)| k == head) {
                insert_at(m, rest, value);
            }
        }
    }
}

/// YAML written line by line, for writers that walk a model once: the same layout as
/// [`document`] (two spaces a level, list items as `- `). Values are given already written
/// ([`string`], [`number`], [`numbers`], [`value`], [`inline`]); keys are written by
/// [`string`] by the caller when they are not the format's own.
///
/// ```
/// use mbconv_yaml::emit::{Writer, numbers, string};
/// let mut w = Writer::default();
/// w.open(0, "links");
/// w.item(1, "name", &string("base"));
/// w.entry(2, "translation", &numbers(&[0.0, 0.0, 1.5]));
/// assert_eq!(w.finish(), "links:\n  - name: base\n    translation: [0, 0, 1.5]\n");
/// ```
#[derive(Debug, Default)]
pub struct Writer {
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

/// Strings that a YAML 1.1 or 1.2 reader, or a reader taking numbers from text, could read as
/// something other than that string when written plain: nulls, booleans, numbers in every
/// notation, indicators, comments, quotes, spaces at the ends, control and non-ASCII
/// characters. Every YAML format's tests write each through this emitter and read it back
/// through the format's reader.
pub const AMBIGUOUS_SCALARS: &[&str] = &[
    "",
    " ",
    "~",
    "null",
    "Null",
    "NULL",
    "yes",
    "Yes",
    "YES",
    "no",
    "No",
    "NO",
    "on",
    "On",
    "ON",
    "off",
    "Off",
    "OFF",
    "y",
    "Y",
    "n",
    "N",
    "true",
    "True",
    "TRUE",
    "false",
    "False",
    "FALSE",
    "nan",
    "NaN",
    "inf",
    "-inf",
    "+inf",
    "infinity",
    "Infinity",
    "nan(1)",
    ".nan",
    ".NaN",
    ".NAN",
    ".inf",
    ".Inf",
    ".INF",
    "-.inf",
    "+.inf",
    ".",
    "..",
    ".5",
    ".5e3",
    "._",
    "0x10",
    "0X10",
    "0o10",
    "0b101",
    "010",
    "08",
    "1_000",
    "1e3",
    "1E3",
    "1e-7",
    "1.0",
    "+1",
    "-1",
    "-0",
    "1.",
    "190:20:30",
    "2001-12-14",
    "2001-12-14t21:59:43.10-05:00",
    "<<",
    "=",
    ": ",
    "a: b",
    "a:",
    ":a",
    "a #b",
    " #",
    "#",
    "#a",
    "a#b",
    "-",
    "- a",
    "-a",
    "--",
    "---",
    "...",
    "?",
    "? a",
    "?a",
    "[",
    "]",
    "a[0]",
    "{",
    "}",
    "a{b}",
    ",",
    "a, b",
    "*a",
    "&a",
    "!t",
    "!!str",
    "%",
    "%YAML",
    "@",
    "`",
    "'",
    "''",
    "a'b",
    "\"",
    "a\"b",
    "\\",
    "a\\nb",
    "|",
    ">",
    "a|b",
    " a",
    "a ",
    " a ",
    "a  b",
    "a\nb",
    "\n",
    "a\tb",
    "\t",
    "\r",
    "\u{7f}",
    "\u{1}",
    "é",
    "ünïcødé",
    "名前",
    "\u{feff}a",
    "\u{a0}",
    "a\u{2028}b",
    "link 1",
    "link_1",
    "/abs/path.obj",
    "../mesh.obj",
    "a(b)",
    "a+b",
    "A-1.5",
    "Body",
    "_x",
];
