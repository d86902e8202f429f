//! A YAML document as written: a tree of nodes, each with the place it came from. This is
//! the raw layer that mbconv's YAML formats (Chrono YAML, Choreonoid Body) share; it knows
//! nothing of either format's keys, which their importers interpret. Their writers share
//! [`emit`], one set of rules for numbers and quoting.
//!
//! serde-saphyr parses the text into [`Node`]s through `Spanned<T>`, so every key and value
//! keeps its line, column and byte span. Scalars keep their text exactly as written (plain
//! scalars) or as decoded (quoted scalars): `version: 10.0` stays `"10.0"`, and numbers
//! are parsed from the text so that they read back bit for bit. No key is ever dropped here.
//!
//! ```
//! use mbconv_ir::format::Source;
//! let source = Source::from_string("m.yaml", "base: &b {x: 1.50}\nuse: *b\n");
//! let root = mbconv_yaml::parse(&source, "example.yaml_syntax", serde_saphyr::Options::default()).unwrap();
//! assert_eq!(root.get("use").unwrap().get("x").unwrap().scalar(), Some("1.50"));
//! ```

pub mod emit;

use mbconv_ir::format::{Source, SourceError};
use mbconv_ir::report::SourceSpan;
use mbconv_ir::{Value, ValueMap};
use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
pub use serde_saphyr;
use serde_saphyr::Spanned;
use std::fmt;

/// One YAML node with its location.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// The content.
    pub kind: NodeKind,
    /// Byte offset of the node in the text.
    pub offset: usize,
    /// Length in bytes (for collections, the opening token only).
    pub length: usize,
}

/// The content of a node.
#[derive(Clone, Debug, PartialEq)]
pub enum NodeKind {
    /// `~`, `null` or nothing.
    Null,
    /// A scalar: its text and whether it was quoted (or a block scalar).
    Scalar {
        /// The text: as written for plain scalars, decoded for quoted ones.
        text: String,
        /// True for quoted and block scalars (always strings).
        quoted: bool,
        /// The value the YAML resolver gave a plain scalar (bool or number), if any.
        resolved: Resolved,
    },
    /// A sequence.
    Seq(Vec<Node>),
    /// A mapping, in source order.
    Map(Vec<(Key, Node)>),
}

/// What the YAML resolver made of a plain scalar.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Resolved {
    /// A string.
    Text,
    /// A boolean.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
}

/// A mapping key with its location.
#[derive(Clone, Debug, PartialEq)]
pub struct Key {
    /// The key text.
    pub name: String,
    /// Byte offset.
    pub offset: usize,
    /// Length in bytes.
    pub length: usize,
    /// Byte offset where the key is written: [`Key::offset`] unless the key comes from an
    /// alias (`<<: *base`), whose keys are placed at the alias and written at the anchor.
    pub defined: usize,
}

/// Parses a YAML text into a node tree with the parser `options`. Syntax errors (and
/// duplicate keys, unless the options allow them) come back as `file:line:column` errors with
/// the finding code `code` (e.g. `chrono.yaml_syntax`). A non-finite number (`.inf`, `1e400`)
/// is no error here: it stays a text scalar, for the format's reader to judge.
///
/// The parser's resource budgets that count nodes, events and scalar bytes grow with the text
/// (see [`scaled_budget`]), so that a machine-made model of 100 000 bodies reads; the limits
/// on nesting depth and on alias replay stay as `options` set them, so that a deeply nested or
/// alias-bomb document is still refused at once, in bounded memory.
pub fn parse(source: &Source, code: &str, options: serde_saphyr::Options) -> Result<Node, Box<SourceError>> {
    let mut options = options;
    // A number out of range (`1e400`) or `.inf` is not a syntax error: each format's reader
    // decides what its loader makes of the text (Choreonoid's `strtod` reads `1e400` as an
    // infinity, yaml-cpp refuses it). The scalar stays text here.
    options.non_finite_float_policy = serde_saphyr::NonFiniteFloatPolicy::AsString;
    options.budget = Some(scaled_budget(
        options.budget.take().unwrap_or_default(),
        source.text.len(),
    ));
    let spanned: Spanned<Tree> = serde_saphyr::from_str_with_options(&source.text, options).map_err(|e| {
        let span = e.location().and_then(|loc| {
            let s = loc.span();
            match (s.byte_offset(), s.byte_len()) {
                (Some(o), Some(l)) => Some(source.span(o as usize, l as usize)),
                _ if loc.line() > 0 => Some(SourceSpan::at_line_column(
                    &source.text,
                    loc.line() as usize,
                    loc.column() as usize,
                )),
                _ => None,
            }
        });
        let message = e.to_string();
        let first = message.lines().next().unwrap_or("invalid YAML").to_owned();
        Box::new(source.error(code, span, format!("invalid YAML: {first}")))
    })?;
    Ok(convert(&source.text, spanned))
}

/// `budget` with its size-proportional limits raised for a text of `len` bytes: every YAML
/// node takes at least one byte of text and at most a few events, so `len` nodes, `4 * len`
/// events and `2 * len` scalar bytes bound any document written out in full. Replayed alias
/// events count against the same budget, and their replay has its own limit besides.
///
/// ```
/// let budget = mbconv_yaml::scaled_budget(mbconv_yaml::serde_saphyr::Budget::default(), 10_000_000);
/// assert_eq!(budget.max_nodes, 10_000_000);
/// assert_eq!(budget.max_depth, mbconv_yaml::serde_saphyr::Budget::default().max_depth);
/// ```
pub fn scaled_budget(mut budget: serde_saphyr::Budget, len: usize) -> serde_saphyr::Budget {
    budget.max_nodes = budget.max_nodes.max(len);
    budget.max_events = budget.max_events.max(len.saturating_mul(4));
    budget.max_total_scalar_bytes = budget.max_total_scalar_bytes.max(len.saturating_mul(2));
    budget
}

fn convert(text: &str, spanned: Spanned<Tree>) -> Node {
    let (offset, length) = byte_span(&spanned.referenced);
    let kind = match spanned.value {
        Tree::Null => NodeKind::Null,
        Tree::Scalar(resolved, decoded) => {
            // The text where the value is defined (an alias `*a` is used elsewhere).
            let (def_offset, def_length) = byte_span(&spanned.defined);
            let raw = text.get(def_offset..def_offset + def_length).unwrap_or("");
            let raw = if raw.starts_with(['&', '*', '!']) { "" } else { raw };
            // A block scalar's span starts after its indicator (`|`, `>`), and a plain
            // scalar written over several lines is folded into one: for both the decoded text
            // is the value, and it is a string.
            let folded = raw.contains('\n') && decoded != raw;
            let quoted = raw.starts_with(['"', '\'', '|', '>']) || folded;
            let text = if quoted || raw.is_empty() {
                decoded
            } else {
                raw.to_owned()
            };
            NodeKind::Scalar {
                text,
                quoted,
                resolved: if quoted { Resolved::Text } else { resolved },
            }
        }
        Tree::Seq(items) => NodeKind::Seq(items.into_iter().map(|n| convert(text, n)).collect()),
        Tree::Map(entries) => NodeKind::Map(
            entries
                .into_iter()
                .map(|(k, v)| {
                    let (ko, kl) = byte_span(&k.referenced);
                    let (defined, _) = byte_span(&k.defined);
                    (
                        Key {
                            name: k.value,
                            offset: ko,
                            length: kl,
                            defined,
                        },
                        convert(text, v),
                    )
                })
                .collect(),
        ),
    };
    Node { kind, offset, length }
}

fn byte_span(loc: &serde_saphyr::Location) -> (usize, usize) {
    let s = loc.span();
    (
        s.byte_offset().unwrap_or(0) as usize,
        s.byte_len().unwrap_or(0) as usize,
    )
}

/// The serde-facing tree (values plus spans of the children).
enum Tree {
    Null,
    Scalar(Resolved, String),
    Seq(Vec<Spanned<Tree>>),
    Map(Vec<(Spanned<String>, Spanned<Tree>)>),
}

impl<'de> Deserialize<'de> for Tree {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TreeVisitor;
        impl<'de> Visitor<'de> for TreeVisitor {
            type Value = Tree;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any YAML value")
            }
            fn visit_unit<E>(self) -> Result<Tree, E> {
                Ok(Tree::Null)
            }
            fn visit_none<E>(self) -> Result<Tree, E> {
                Ok(Tree::Null)
            }
            fn visit_bool<E>(self, b: bool) -> Result<Tree, E> {
                Ok(Tree::Scalar(Resolved::Bool(b), b.to_string()))
            }
            fn visit_i64<E>(self, i: i64) -> Result<Tree, E> {
                Ok(Tree::Scalar(Resolved::Int(i), i.to_string()))
            }
            fn visit_u64<E>(self, u: u64) -> Result<Tree, E> {
                Ok(match i64::try_from(u) {
                    Ok(i) => Tree::Scalar(Resolved::Int(i), u.to_string()),
                    Err(_) => Tree::Scalar(Resolved::Float(u as f64), u.to_string()),
                })
            }
            fn visit_f64<E>(self, x: f64) -> Result<Tree, E> {
                Ok(Tree::Scalar(Resolved::Float(x), x.to_string()))
            }
            fn visit_str<E>(self, s: &str) -> Result<Tree, E> {
                Ok(Tree::Scalar(Resolved::Text, s.to_owned()))
            }
            fn visit_string<E>(self, s: String) -> Result<Tree, E> {
                Ok(Tree::Scalar(Resolved::Text, s))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Tree, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(Tree::Seq(items))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Tree, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = map.next_entry()? {
                    entries.push(entry);
                }
                Ok(Tree::Map(entries))
            }
        }
        deserializer.deserialize_any(TreeVisitor)
    }
}

impl Node {
    /// The value under `key`, when this is a mapping that has it.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.entry(key).map(|(_, v)| v)
    }
    /// The key and value under `key`.
    pub fn entry(&self, key: &str) -> Option<(&Key, &Node)> {
        match &self.kind {
            NodeKind::Map(entries) => entries.iter().find(|(k, _)| k.name == key).map(|(k, v)| (k, v)),
            _ => None,
        }
    }
    /// The entries of a mapping (empty otherwise).
    pub fn entries(&self) -> &[(Key, Node)] {
        match &self.kind {
            NodeKind::Map(entries) => entries,
            _ => &[],
        }
    }
    /// The items of a sequence (empty otherwise).
    pub fn items(&self) -> &[Node] {
        match &self.kind {
            NodeKind::Seq(items) => items,
            _ => &[],
        }
    }
    /// True for `null` / empty values.
    pub fn is_null(&self) -> bool {
        matches!(self.kind, NodeKind::Null)
    }
    /// A short description of the node's kind, for messages.
    pub fn describe(&self) -> &'static str {
        match &self.kind {
            NodeKind::Null => "nothing",
            NodeKind::Scalar { .. } => "a scalar",
            NodeKind::Seq(_) => "a list",
            NodeKind::Map(_) => "a mapping",
        }
    }
    /// The span of the node in `source`.
    pub fn span(&self, source: &Source) -> SourceSpan {
        source.span(self.offset, self.length)
    }
    /// The scalar text, if a scalar.
    pub fn scalar(&self) -> Option<&str> {
        match &self.kind {
            NodeKind::Scalar { text, .. } => Some(text),
            _ => None,
        }
    }
    /// The node as a number: plain or quoted numeric text (`1e5`, `"2.5"`), parsed with
    /// correct rounding.
    pub fn as_f64(&self) -> Option<f64> {
        let NodeKind::Scalar { text, resolved, .. } = &self.kind else {
            return None;
        };
        if let Some(x) = parse_number(text) {
            return Some(x);
        }
        match resolved {
            Resolved::Int(i) => Some(*i as f64),
            Resolved::Float(x) if x.is_finite() => Some(*x),
            _ => None,
        }
    }
    /// The node as a boolean (`true/false/yes/no/on/off/y/n`, any case).
    pub fn as_bool(&self) -> Option<bool> {
        let NodeKind::Scalar { text, resolved, .. } = &self.kind else {
            return None;
        };
        if let Resolved::Bool(b) = resolved {
            return Some(*b);
        }
        match text.trim().to_ascii_lowercase().as_str() {
            "true" | "yes" | "on" | "y" => Some(true),
            "false" | "no" | "off" | "n" => Some(false),
            _ => None,
        }
    }
    /// The node as a verbatim value (for extras): numbers keep integer/float, strings stay text.
    pub fn to_value(&self) -> Value {
        match &self.kind {
            NodeKind::Null => Value::Null,
            NodeKind::Scalar {
                text,
                quoted,
                resolved,
            } => {
                if *quoted {
                    return Value::String(text.clone());
                }
                match resolved {
                    Resolved::Bool(b) => Value::Bool(*b),
                    Resolved::Int(i) => Value::Int(*i),
                    Resolved::Float(x) => Value::Float(parse_number(text).unwrap_or(*x)),
                    Resolved::Text => Value::String(text.clone()),
                }
            }
            NodeKind::Seq(items) => Value::List(items.iter().map(Node::to_value).collect()),
            NodeKind::Map(entries) => Value::Map(ValueMap(
                entries
                    .iter()
                    .map(|(k, v)| (k.name.clone(), v.to_value()))
                    .collect(),
            )),
        }
    }
}

/// Parses a finite decimal number (`1`, `-8e3`, `0.35e5`, `+2.`), as Rust does: correctly
/// rounded. Returns `None` for anything else (including `inf` and `nan`).
pub fn parse_number(text: &str) -> Option<f64> {
    let t = text.trim();
    let ok = !t.is_empty()
        && t.chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'))
        && t.chars().any(|c| c.is_ascii_digit());
    if !ok {
        return None;
    }
    t.parse::<f64>().ok().filter(|x| x.is_finite())
}

/// A scalar's text as yaml-cpp's `Node::as<double>()` converts it (the conversion Chrono's
/// YAML parser uses for every number): libstdc++'s `istringstream >> double` on the whole text
/// in the "C" locale ([`scan::cxx_stream`](mbconv_ir::format::kit::scan::cxx_stream): decimal
/// forms only, white space after the number allowed, `1e400` refused), else the YAML
/// spellings of infinity and NaN exactly as yaml-cpp lists them: `.inf`, `.Inf`, `.INF` (with
/// an optional `+`), `-.inf`, `-.Inf`, `-.INF`, `.nan`, `.NaN`, `.NAN`. `None`: yaml-cpp throws
/// `BadConversion`. Whether a non-finite value means anything is the format's call.
///
/// ```
/// use mbconv_yaml::yaml_cpp_double;
/// assert_eq!(yaml_cpp_double("2."), Some(2.0));
/// assert_eq!(yaml_cpp_double("-.Inf"), Some(f64::NEG_INFINITY));
/// assert_eq!(yaml_cpp_double("inf"), None);
/// assert_eq!(yaml_cpp_double("0x10"), None);
/// assert_eq!(yaml_cpp_double(".iNf"), None);
/// ```
pub fn yaml_cpp_double(text: &str) -> Option<f64> {
    if let Some(x) = mbconv_ir::format::kit::scan::cxx_stream(text) {
        return Some(x);
    }
    match text {
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => Some(f64::INFINITY),
        "-.inf" | "-.Inf" | "-.INF" => Some(f64::NEG_INFINITY),
        ".nan" | ".NaN" | ".NAN" => Some(f64::NAN),
        _ => None,
    }
}

/// The node the anchor `&name` is set on in `text` (parsed into `root`): the first node at or
/// after the first such anchor at or after byte `from`. `None` when there is no such anchor.
pub fn anchored<'n>(text: &str, root: &'n Node, name: &str, from: usize) -> Option<&'n Node> {
    let marker = format!("&{name}");
    let start = text.match_indices(&marker).map(|(i, _)| i).find(|&i| {
        i >= from
            && text[i + marker.len()..]
                .chars()
                .next()
                .is_none_or(|c| c.is_whitespace() || matches!(c, ',' | '{' | '[' | '}' | ']'))
    })?;
    let mut best: Option<&Node> = None;
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if node.offset >= start && best.is_none_or(|b| node.offset < b.offset) {
            best = Some(node);
        }
        match &node.kind {
            NodeKind::Seq(items) => stack.extend(items.iter()),
            NodeKind::Map(entries) => stack.extend(entries.iter().map(|(_, v)| v)),
            _ => {}
        }
    }
    best
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn flow_lists_are_parsed_into_items() {
        let src = Source::from_string("m.yaml", "a: [1, 2e3]\n");
        let root = super::parse(&src, "t.yaml_syntax", serde_saphyr::Options::default()).unwrap();
        assert_eq!(root.get("a").unwrap().items().len(), 2);
    }

    #[test]
    fn aliases_and_merge_keys_read_their_values() {
        let text = "base: &b\n  x: &n 1.50\n  y: 2\nuse:\n  <<: *b\n  z: *n\n";
        let root = parse(
            &Source::from_string("a.yaml", text),
            "t.yaml_syntax",
            serde_saphyr::Options::default(),
        )
        .unwrap();
        let used = root.get("use").unwrap();
        assert_eq!(used.get("z").unwrap().scalar(), Some("1.50"));
        assert_eq!(used.get("x").unwrap().as_f64(), Some(1.5));
        assert_eq!(used.get("y").unwrap().as_f64(), Some(2.0));
    }

    #[test]
    fn block_and_folded_scalars_are_their_decoded_text() {
        let text = "literal: |\n  one\n  two\nfolded: >-\n  one\n  two\nplain: one\n  two\nnumber: 1.50\n";
        let root = parse(
            &Source::from_string("b.yaml", text),
            "t.yaml_syntax",
            serde_saphyr::Options::default(),
        )
        .unwrap();
        assert_eq!(root.get("literal").unwrap().scalar(), Some("one\ntwo\n"));
        assert_eq!(root.get("folded").unwrap().scalar(), Some("one two"));
        assert_eq!(root.get("plain").unwrap().scalar(), Some("one two"));
        assert_eq!(root.get("number").unwrap().scalar(), Some("1.50"));
    }

    #[test]
    fn an_anchor_names_the_node_it_is_set_on() {
        let text = "A: &A\n  mass: 1\nB: &B {mass: 2}\nC: [*B]\n";
        let root = parse(
            &Source::from_string("r.yaml", text),
            "t.yaml_syntax",
            serde_saphyr::Options::default(),
        )
        .unwrap();
        let a = anchored(text, &root, "A", 0).unwrap();
        assert_eq!(a.get("mass").unwrap().as_f64(), Some(1.0));
        let b = anchored(text, &root, "B", 0).unwrap();
        assert_eq!(b.get("mass").unwrap().as_f64(), Some(2.0));
        assert!(anchored(text, &root, "Z", 0).is_none());
        // Only anchors at or after `from` count.
        assert!(anchored(text, &root, "A", 5).is_none());
    }
}
