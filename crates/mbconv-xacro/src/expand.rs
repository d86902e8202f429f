//! The expansion itself: xacro 2.1's `eval_all` over the document, element by element and in
//! document order, with its properties, arguments, macros, blocks, includes, conditionals,
//! `xacro:element`/`xacro:attribute`, text and comment evaluation, and its rules for the
//! comments it removes before xacro elements.

use crate::builtins::{self, text_of};
use crate::expr::{self, EResult, Env, EvalError, Expr};
use crate::scope::{Entry, Kind, Macro, MacroEntry, Macros, Scope};
use crate::subst;
use crate::value::{Value, parse_float, parse_int};
use crate::xml::{self, Element, Loc, Text, XNode};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// An error of the expansion: code, message, where, and the include sites and macro calls
/// that led there.
#[derive(Debug, Clone)]
pub(crate) struct XError {
    pub code: &'static str,
    pub message: String,
    pub at: Option<Loc>,
    pub includes: Vec<Loc>,
    pub macros: Vec<(String, Loc)>,
}

pub(crate) type R<T> = Result<T, XError>;

/// A file read by the expansion.
pub(crate) struct File {
    pub path: PathBuf,
    pub name: String,
    /// The name xacro's file stack holds for it: the input as it was named, an include as
    /// `abs_filename_spec` joined it (what `xacro.abs_filename` builds on).
    pub spec: String,
    pub text: String,
}

/// An argument a `<xacro:arg>` declares.
#[derive(Clone, Debug)]
pub(crate) struct DeclaredArg {
    pub name: String,
    pub default: String,
}

/// The largest file an include or `load_yaml` reads.
const MAX_FILE_BYTES: u64 = 64 << 20;

/// Reads an included or YAML file: a regular file of at most [`MAX_FILE_BYTES`] (a device
/// such as `/dev/zero` or a pipe would never end).
fn read_file(path: &std::path::Path) -> std::io::Result<String> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(std::io::Error::other(format!(
            "larger than {} MiB, the most mbconv's xacro reads",
            MAX_FILE_BYTES >> 20
        )));
    }
    std::fs::read_to_string(path)
}

/// Budgets that stop runaway expansions.
const MAX_DEPTH: usize = 400;
const MAX_NODES: usize = 200_000;
/// The most text (attribute values and text nodes) an expansion makes.
const MAX_TEXT_BYTES: usize = 64 << 20;
const MAX_MACRO_DEPTH: usize = 150;

/// How the environment is read.
pub(crate) type EnvFn = Box<dyn Fn(&str) -> Option<String>>;

/// What the expansion needs from outside: arguments, environment, package path.
pub(crate) struct Inputs {
    pub args: BTreeMap<String, String>,
    pub env: EnvFn,
    pub package_path: Vec<PathBuf>,
    pub cwd: PathBuf,
}

/// The expander's state.
pub(crate) struct Expander {
    pub files: Vec<File>,
    pub args: BTreeMap<String, String>,
    pub declared: Vec<DeclaredArg>,
    pub warnings: Vec<(Option<Loc>, String)>,
    pub inputs: Inputs,
    filestack: Vec<u32>,
    includes: Vec<Loc>,
    macro_stack: Vec<(String, Loc)>,
    pub marker: u64,
    nodes: usize,
    /// Bytes of attribute values and text made so far (the budget MAX_TEXT_BYTES).
    text_bytes: usize,
    depth: usize,
    cache: HashMap<String, Rc<Expr>>,
    /// Where the node being evaluated is (for errors raised deep in an expression).
    here: Option<Loc>,
    packages: HashMap<String, PathBuf>,
    /// The tables that hold include namespaces (emptied when the expansion ends).
    cycles: crate::scope::Registry,
}

fn is_space(s: &str) -> bool {
    !s.is_empty() && s.chars().all(char::is_whitespace)
}

const PY_KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def",
    "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is",
    "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
];

/// A Python identifier that is not a keyword.
fn is_valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_')
        && !PY_KEYWORDS.contains(&name)
}

/// xacro's `Table._eval_literal`: a quoted text loses its quotes, a number or boolean
/// written as text becomes one (not when it has an underscore).
fn eval_literal(v: Value) -> Value {
    let Value::Str(s) = &v else { return v };
    if s.len() >= 2 && s.starts_with('\'') && s.ends_with('\'') {
        return Value::str(&s[1..s.len() - 1]);
    }
    if s.contains('_') {
        return v;
    }
    if let Ok(Some(i)) = crate::value::parse_int_value(s) {
        return i;
    }
    if let Some(f) = parse_float(s) {
        return Value::Float(f);
    }
    match &**s {
        "true" | "True" => Value::Bool(true),
        "false" | "False" => Value::Bool(false),
        _ => v,
    }
}

/// The truth of a condition as xacro reads it (`get_boolean_value`).
fn boolean(v: &Value) -> Option<bool> {
    match v {
        Value::Str(s) => match &**s {
            "true" | "True" => Some(true),
            "false" | "False" => Some(false),
            t => parse_int(t).map(|i| i != 0),
        },
        other => Some(other.truthy()),
    }
}

/// One step of the parse of a macro's `params`: the parameter, its forwarding and default
/// (`None` when it has no default at all), and the rest of the text. See the reference's
/// `re_macro_arg`.
#[allow(clippy::type_complexity)]
fn parse_macro_arg(s: &str) -> (String, Option<(bool, Option<String>)>, String) {
    if let Some(found) = match_macro_arg(s) {
        return found;
    }
    let t = s.trim_start();
    match t.find(char::is_whitespace) {
        Some(i) => (t[..i].to_owned(), None, t[i..].trim_start().to_owned()),
        None => (t.to_owned(), None, String::new()),
    }
}

fn ws_len(s: &str) -> usize {
    s.len() - s.trim_start().len()
}

/// After a default ending at `end`: `(?:\s+|$)` then the rest up to a newline.
fn after_default(s: &str, end: usize) -> Option<String> {
    let rest = &s[end..];
    let w = ws_len(rest);
    if w == 0 && !rest.is_empty() {
        return None;
    }
    let rest = &rest[w..];
    Some(rest.split('\n').next().unwrap_or("").to_owned())
}

#[allow(clippy::type_complexity)]
fn match_macro_arg(s: &str) -> Option<(String, Option<(bool, Option<String>)>, String)> {
    let start = ws_len(s);
    let body = &s[start..];
    let name_len = body
        .find(|c: char| c.is_whitespace() || c == ':' || c == '=')
        .unwrap_or(body.len());
    if name_len == 0 {
        return None;
    }
    let name = &body[..name_len];
    let mut p = start + name_len;
    p += ws_len(&s[p..]);
    if s[p..].starts_with(":=") {
        p += 2;
    } else if s[p..].starts_with('=') {
        p += 1;
    } else {
        return None;
    }
    let ws_total = ws_len(&s[p..]);
    // `\s*` is greedy: try the longest run of whitespace first.
    for ws in (0..=ws_total).rev() {
        let q = p + ws;
        for caret in ["^|", "^", ""] {
            if !s[q..].starts_with(caret) {
                continue;
            }
            let d = q + caret.len();
            for end in default_ends(s, d) {
                if let Some(rest) = after_default(s, end) {
                    let default = &s[d..end];
                    return Some((
                        name.to_owned(),
                        Some((
                            !caret.is_empty(),
                            (!default.is_empty()).then(|| default.to_owned()),
                        )),
                        rest,
                    ));
                }
            }
        }
    }
    None
}

/// The ends of the default value starting at `d`, in the order the regex tries them.
fn default_ends(s: &str, d: usize) -> Vec<usize> {
    let mut ends = Vec::new();
    let line_end = s[d..].find('\n').map_or(s.len(), |i| d + i);
    for (open, close) in [("${", '}'), ("$(", ')')] {
        if s[d..].starts_with(open) {
            for (i, c) in s[d + 2..line_end].char_indices() {
                if c == close {
                    ends.push(d + 2 + i + 1);
                }
            }
        }
    }
    // `(?:'.*?'|".*?"|[^\s'"]+)+`, greedily.
    let mut q = d;
    let mut tokens = Vec::new();
    loop {
        let rest = &s[q..line_end];
        let Some(c) = rest.chars().next() else { break };
        if c == '\'' || c == '"' {
            match rest[1..].find(c) {
                Some(i) => q += i + 2,
                None => break,
            }
        } else if c.is_whitespace() {
            break;
        } else {
            let n = rest
                .find(|x: char| x.is_whitespace() || x == '\'' || x == '"')
                .unwrap_or(rest.len());
            q += n;
        }
        tokens.push(q);
    }
    ends.extend(tokens.into_iter().rev());
    ends.push(d);
    ends
}

/// xacro's YAML unit tags and their factors.
const UNITS: &[(&str, f64)] = &[
    ("!radians", 1.0),
    ("!degrees", std::f64::consts::PI / 180.0),
    ("!meters", 1.0),
    ("!millimeters", 0.001),
    ("!foot", 0.3048),
    ("!inches", 0.0254),
];

/// `text` with xacro's unit tags blanked out, and the offset of the value each tagged (the
/// first character after the tag and its spaces) with the tag's factor.
fn unit_tags(text: &str) -> (String, HashMap<usize, f64>) {
    let mut out = text.to_owned();
    let mut units = HashMap::new();
    for (tag, factor) in UNITS {
        let mut from = 0;
        while let Some(i) = text[from..].find(tag).map(|i| from + i) {
            from = i + tag.len();
            let after = &text[from..];
            if !after.starts_with([' ', '\t'])
                || (i > 0 && !text[..i].ends_with([' ', '\t', '[', ',', '-', ':']))
            {
                continue;
            }
            out.replace_range(i..from, &" ".repeat(tag.len()));
            units.insert(from + ws_len(after), *factor);
        }
    }
    (out, units)
}

/// Globals only: how a unit tag's value is evaluated.
struct GlobalsEnv;

impl Env for GlobalsEnv {
    fn lookup(&mut self, name: &str) -> EResult<Value> {
        builtins::global(name).ok_or_else(|| EvalError(format!("name '{name}' is not defined")))
    }
    fn call_xacro(&mut self, name: &str, _: Vec<Value>, _: Vec<(String, Value)>) -> EResult<Value> {
        Err(EvalError(format!(
            "xacro.{name}() cannot be called in a YAML unit tag"
        )))
    }
    fn namespace_attr(&mut self, ns: &Scope, name: &str) -> EResult<Value> {
        match ns.0.kind {
            Kind::Builtin(kind) => builtins::namespace_member(kind, name)
                .ok_or_else(|| EvalError(format!("name '{name}' is not defined"))),
            _ => Err(EvalError(format!("name '{name}' is not defined"))),
        }
    }
}

/// Converts a YAML node as PyYAML's safe loader resolves YAML 1.1 scalars (xacro's unit
/// tags applied).
fn yaml_value(node: &mbconv_yaml::Node, units: &HashMap<usize, f64>) -> EResult<Value> {
    use mbconv_yaml::NodeKind;
    Ok(match &node.kind {
        NodeKind::Null => Value::None,
        NodeKind::Scalar { text, quoted, .. } => {
            if let Some(factor) = units.get(&node.offset) {
                let v = expr::evaluate(text, &mut GlobalsEnv)?;
                let f = builtins::to_float(&v)?;
                let Value::Float(f) = f else { return Ok(f) };
                return Ok(Value::Float(f * factor));
            }
            if *quoted {
                Value::str(text)
            } else {
                yaml_plain(text)?
            }
        }
        NodeKind::Seq(items) => Value::list(
            items
                .iter()
                .map(|i| yaml_value(i, units))
                .collect::<EResult<_>>()?,
        ),
        NodeKind::Map(entries) => {
            let mut d = crate::value::Dict {
                dotted: true,
                ..Default::default()
            };
            for (k, v) in merged_entries(entries)? {
                d.insert(yaml_plain(&k.name)?, yaml_value(v, units)?);
            }
            Value::dict(d)
        }
    })
}

/// A mapping's entries with its merge keys (`<<`) applied as PyYAML 6.0.4's
/// `flatten_mapping` applies them: the merged mappings' entries first, in the order met (a
/// list of mappings from its first to its last), then the mapping's own. Among the merged
/// entries a key already merged is skipped when it is the same key object in PyYAML: the same
/// node (an alias met twice) or a key of at most one Latin-1 character (CPython shares those
/// strings); any other repeated key is kept, and the later value replaces the earlier one at
/// the earlier one's place when the dictionary is built.
fn merged_entries(
    entries: &[(mbconv_yaml::Key, mbconv_yaml::Node)],
) -> EResult<Vec<(&mbconv_yaml::Key, &mbconv_yaml::Node)>> {
    use mbconv_yaml::NodeKind;
    let refuse = |what: &str, found: &mbconv_yaml::Node| {
        EvalError(format!(
            "while constructing a mapping: expected {what} for merging, but found {}",
            found.describe()
        ))
    };
    let mut merged: Vec<(&mbconv_yaml::Key, &mbconv_yaml::Node)> = Vec::new();
    let mut own = Vec::new();
    for (key, value) in entries {
        if key.name != "<<" {
            own.push((key, value));
            continue;
        }
        let sources: Vec<&[(mbconv_yaml::Key, mbconv_yaml::Node)]> = match &value.kind {
            NodeKind::Map(inner) => vec![inner],
            NodeKind::Seq(items) => items
                .iter()
                .map(|item| match &item.kind {
                    NodeKind::Map(inner) => Ok(inner.as_slice()),
                    _ => Err(refuse("a mapping", item)),
                })
                .collect::<EResult<_>>()?,
            _ => return Err(refuse("a mapping or list of mappings", value)),
        };
        for inner in sources {
            for (k, v) in merged_entries(inner)? {
                if !merged.iter().any(|(m, _)| same_key_object(m, k)) {
                    merged.push((k, v));
                }
            }
        }
    }
    merged.extend(own);
    Ok(merged)
}

/// Whether two YAML keys are one string object in PyYAML: the same node, or equal texts of at
/// most one Latin-1 character (CPython's shared one-character strings).
fn same_key_object(a: &mbconv_yaml::Key, b: &mbconv_yaml::Key) -> bool {
    let shared = |s: &str| s.chars().count() <= 1 && s.chars().all(|c| u32::from(c) < 256);
    a.defined == b.defined || (a.name == b.name && shared(&a.name))
}

/// A plain scalar as PyYAML's safe loader constructs it: a timestamp (`datetime.date`,
/// `datetime.datetime`; one that does not exist is Python's `ValueError`) or what
/// [`yaml_scalar`] resolves.
fn yaml_plain(text: &str) -> EResult<Value> {
    match crate::timestamp::Timestamp::parse(text) {
        Some(Ok(t)) => Ok(Value::Time(t)),
        Some(Err(e)) => Err(EvalError(e)),
        None => Ok(yaml_scalar(text)),
    }
}

fn yaml_scalar(text: &str) -> Value {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Value::None,
        "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => return Value::Bool(true),
        "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            return Value::Bool(false);
        }
        _ => {}
    }
    let (neg, body) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let digits_ok = |s: &str, f: fn(char) -> bool| !s.is_empty() && s.chars().all(|c| f(c) || c == '_');
    let clean = |s: &str| s.chars().filter(|c| *c != '_').collect::<String>();
    let signed = |v: i64| Value::Int(if neg { -v } else { v });
    // Integers.
    if let Some(b) = body.strip_prefix("0b")
        && digits_ok(b, |c| c == '0' || c == '1')
        && let Ok(v) = i64::from_str_radix(&clean(b), 2)
    {
        return signed(v);
    }
    if let Some(h) = body.strip_prefix("0x")
        && digits_ok(h, |c| c.is_ascii_hexdigit())
        && let Ok(v) = i64::from_str_radix(&clean(h), 16)
    {
        return signed(v);
    }
    if body.len() > 1
        && body.starts_with('0')
        && digits_ok(&body[1..], |c| ('0'..='7').contains(&c))
        && let Ok(v) = i64::from_str_radix(&clean(&body[1..]), 8)
    {
        return signed(v);
    }
    if (body == "0"
        || (body.starts_with(|c: char| ('1'..='9').contains(&c)) && digits_ok(body, |c| c.is_ascii_digit())))
        && let Ok(v) = clean(body).parse::<i64>()
    {
        return signed(v);
    }
    // Floats: digits '.' digits [e±digits], or '.' digits (unsigned), or .inf / .nan.
    let lower = body.to_ascii_lowercase();
    if lower == ".inf" {
        return Value::Float(if neg { f64::NEG_INFINITY } else { f64::INFINITY });
    }
    if text == ".nan" || text == ".NaN" || text == ".NAN" {
        return Value::Float(f64::NAN);
    }
    let float_form = |s: &str| -> bool {
        let (mant, exp) = match s.find(['e', 'E']) {
            Some(i) => (&s[..i], Some(&s[i + 1..])),
            None => (s, None),
        };
        let Some((int, frac)) = mant.split_once('.') else {
            return false;
        };
        let int_ok = int.starts_with(|c: char| c.is_ascii_digit()) && digits_ok(int, |c| c.is_ascii_digit());
        let frac_ok = frac.is_empty() || digits_ok(frac, |c| c.is_ascii_digit());
        let exp_ok = exp.is_none_or(|e| {
            (e.starts_with('+') || e.starts_with('-'))
                && e.len() > 1
                && e[1..].chars().all(|c| c.is_ascii_digit())
        });
        int_ok && frac_ok && exp_ok
    };
    let unsigned_dot = |s: &str| -> bool {
        let Some(rest) = s.strip_prefix('.') else {
            return false;
        };
        let (frac, exp) = match rest.find(['e', 'E']) {
            Some(i) => (&rest[..i], Some(&rest[i + 1..])),
            None => (rest, None),
        };
        digits_ok(frac, |c| c.is_ascii_digit())
            && frac.starts_with(|c: char| c.is_ascii_digit() || c == '_')
            && exp.is_none_or(|e| {
                (e.starts_with('+') || e.starts_with('-'))
                    && e.len() > 1
                    && e[1..].chars().all(|c| c.is_ascii_digit())
            })
    };
    if (float_form(body) || (body.len() == text.len() && unsigned_dot(text)))
        && let Some(v) = parse_float(&clean(text))
    {
        return Value::Float(v);
    }
    sexagesimal(neg, body).unwrap_or_else(|| Value::str(text))
}

/// YAML 1.1's base-60 numbers, as PyYAML resolves them: `1:30` is the integer 90, `1:30.5`
/// the float 90.5 (the first part without a leading zero for an integer, the others 0 to 59).
fn sexagesimal(neg: bool, body: &str) -> Option<Value> {
    let (whole, frac) = match body.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (body, None),
    };
    let mut parts = whole.split(':');
    let first = parts.next()?;
    let rest: Vec<&str> = parts.collect();
    let digits = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit());
    let first_ok = first.starts_with(|c: char| c.is_ascii_digit())
        && first.chars().all(|c| c.is_ascii_digit() || c == '_')
        && (frac.is_some() || !first.starts_with('0'));
    let rest_ok = !rest.is_empty()
        && rest
            .iter()
            .all(|p| digits(p) && p.len() <= 2 && p.parse::<u32>().is_ok_and(|v| v < 60));
    if !first_ok || !rest_ok || frac.is_some_and(|f| !f.chars().all(|c| c.is_ascii_digit() || c == '_')) {
        return None;
    }
    let first: String = first.chars().filter(|c| *c != '_').collect();
    if let Some(frac) = frac {
        let mut value = 0.0;
        let mut base = 1.0;
        let last = format!("{}.{}", rest[rest.len() - 1], frac.replace('_', ""));
        let mut all: Vec<String> = std::iter::once(first)
            .chain(rest.iter().map(|p| (*p).to_owned()))
            .collect();
        if let Some(l) = all.last_mut() {
            *l = last;
        }
        for part in all.iter().rev() {
            value += part.parse::<f64>().ok()? * base;
            base *= 60.0;
        }
        return Some(Value::Float(if neg { -value } else { value }));
    }
    let mut value: i64 = 0;
    for part in std::iter::once(first.as_str()).chain(rest.iter().copied()) {
        value = value.checked_mul(60)?.checked_add(part.parse::<i64>().ok()?)?;
    }
    Some(Value::Int(if neg { -value } else { value }))
}

impl Expander {
    pub(crate) fn new(inputs: Inputs) -> Self {
        Expander {
            files: Vec::new(),
            args: inputs.args.clone(),
            declared: Vec::new(),
            warnings: Vec::new(),
            inputs,
            filestack: Vec::new(),
            includes: Vec::new(),
            macro_stack: Vec::new(),
            marker: 0,
            nodes: 0,
            text_bytes: 0,
            depth: 0,
            cache: HashMap::new(),
            cycles: crate::scope::Registry::default(),
            here: None,
            packages: HashMap::new(),
        }
    }

    pub(crate) fn error(&self, code: &'static str, at: Option<Loc>, message: impl Into<String>) -> XError {
        XError {
            code,
            message: message.into(),
            at: at.or(self.here),
            includes: self.includes.clone(),
            macros: self.macro_stack.clone(),
        }
    }

    fn warn(&mut self, at: Option<Loc>, message: impl Into<String>) {
        self.warnings.push((at.or(self.here), message.into()));
    }

    /// Adds a file to the list and returns its number.
    pub(crate) fn add_file(&mut self, path: PathBuf, name: String, spec: String, text: String) -> u32 {
        self.files.push(File {
            path,
            name,
            spec,
            text,
        });
        u32::try_from(self.files.len() - 1).unwrap_or(u32::MAX)
    }

    /// Parses file `file`.
    pub(crate) fn parse_file(&self, file: u32) -> R<xml::Document> {
        let text = &self.files[file as usize].text;
        xml::parse(text, file).map_err(|e| {
            let mut err = self.error(
                "xacro.xml",
                Some(Loc {
                    file,
                    offset: u32::try_from(e.offset).unwrap_or(u32::MAX),
                }),
                format!("XML parsing error: {}", e.message),
            );
            err.at = Some(Loc {
                file,
                offset: u32::try_from(e.offset).unwrap_or(u32::MAX),
            });
            err
        })
    }

    fn current_dir(&self) -> PathBuf {
        self.filestack
            .last()
            .and_then(|f| self.files[*f as usize].path.parent().map(Path::to_path_buf))
            .unwrap_or_else(|| self.inputs.cwd.clone())
    }

    /// xacro's `abs_filename_spec` as text: a relative `spec` joined to the directory of the
    /// processed file's name as xacro holds it (`os.path.join`, not normalised; `.` when
    /// that name is empty), an absolute one as it is. What `xacro.abs_filename` answers.
    fn abs_filename_spec(&self, spec: &str) -> String {
        if spec.starts_with('/') {
            return spec.to_owned();
        }
        let current = self
            .filestack
            .last()
            .map_or("", |f| self.files[*f as usize].spec.as_str());
        let base = if current.is_empty() {
            "."
        } else {
            python_dirname(current)
        };
        python_join(base, spec)
    }

    /// xacro's `abs_filename_spec` on disk: relative to the directory of the file being
    /// processed.
    fn abs_filename(&self, spec: &str) -> PathBuf {
        let p = Path::new(spec);
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.current_dir().join(p)
        }
    }

    // ----- text evaluation -------------------------------------------------------------

    /// xacro's `eval_text`: `${...}` expressions, `$(...)` substitutions, `$$` escapes; one
    /// piece comes back typed, several are joined as text.
    pub(crate) fn eval_text(&mut self, text: &str, scope: &Scope) -> R<Value> {
        if !text.contains('$') {
            return Ok(Value::str(text));
        }
        let mut results: Vec<Value> = Vec::new();
        let mut rest = text;
        while !rest.is_empty() {
            let b = rest.as_bytes();
            if b[0] == b'$' {
                // `$$+` followed by `{` or `(`: drop one `$`.
                let dollars = rest.len() - rest.trim_start_matches('$').len();
                if dollars >= 2 && matches!(b.get(dollars), Some(b'{' | b'(')) {
                    results.push(Value::str(&rest[1..=dollars]));
                    rest = &rest[dollars + 1..];
                    continue;
                }
                if b.get(1) == Some(&b'{') {
                    if let Some(end) = rest.find('}') {
                        let inner = &rest[2..end];
                        rest = &rest[end + 1..];
                        results.push(self.handle_expr(inner, scope)?);
                        continue;
                    }
                } else if b.get(1) == Some(&b'(') {
                    if let Some(end) = rest.find(')') {
                        let inner = &rest[2..end];
                        rest = &rest[end + 1..];
                        results.push(self.handle_extension(inner, scope)?);
                        continue;
                    }
                } else if rest.len() == 1 {
                    results.push(Value::str("$"));
                    break;
                } else if !matches!(b[1], b'$') {
                    let n = rest[1..].find(['{', '(', '$']).map_or(rest.len(), |i| i + 1);
                    results.push(Value::str(&rest[..n]));
                    rest = &rest[n..];
                    continue;
                }
                return Err(self.error("xacro.syntax", None, format!("invalid expression: {rest}")));
            }
            let n = rest.find('$').unwrap_or(rest.len());
            results.push(Value::str(&rest[..n]));
            rest = &rest[n..];
        }
        if results.len() == 1 {
            return Ok(results.pop().unwrap_or(Value::None));
        }
        let mut joined = String::new();
        for v in &results {
            joined.push_str(&builtins::printed(v).map_err(|e| self.expr_error(&e, text))?);
        }
        Ok(Value::str(&joined))
    }

    fn handle_expr(&mut self, inner: &str, scope: &Scope) -> R<Value> {
        let src = text_of(&self.eval_text(inner, scope)?);
        let src = src.trim();
        let parsed = match self.cache.get(src) {
            Some(e) => e.clone(),
            None => {
                let e = expr::parse_checked(src).map_err(|e| self.expr_error(&e, inner))?;
                let e = Rc::new(e);
                self.cache.insert(src.to_owned(), e.clone());
                e
            }
        };
        let mut env = ExprEnv {
            ex: self,
            scope: scope.clone(),
            inner: None,
        };
        let result = expr::Eval {
            env: &mut env,
            locals: Vec::new(),
            depth: 0,
        }
        .eval(&parsed);
        let inner_err = env.inner.take();
        let result = result.and_then(|v| builtins::printable(&v).map(|()| v));
        match result {
            Ok(v) => Ok(v),
            Err(e) => Err(match inner_err {
                Some(x) => x,
                None => self.expr_error(&e, inner),
            }),
        }
    }

    fn expr_error(&self, e: &EvalError, src: &str) -> XError {
        self.error(
            "xacro.expression",
            None,
            format!("{} (when evaluating expression '{src}')", e.0),
        )
    }

    fn handle_extension(&mut self, inner: &str, scope: &Scope) -> R<Value> {
        let inner = text_of(&self.eval_text(inner, scope)?);
        let text = format!("$({inner})");
        let mut ctx = SubstCtx { ex: self };
        match subst::resolve(&text, &mut ctx) {
            Ok(v) => Ok(Value::str(&v)),
            Err(e) => Err(self.error("xacro.substitution", None, format!("{} (in {text})", e.0))),
        }
    }

    // ----- symbols ---------------------------------------------------------------------

    /// The value of `name` seen from `scope`, evaluating a lazy property where it is held;
    /// `None` when no table holds it.
    pub(crate) fn lookup(&mut self, scope: &Scope, name: &str) -> R<Option<Value>> {
        let mut s = scope.clone();
        loop {
            if s.is_root() {
                return Ok(builtins::global(name));
            }
            if let Some(entry) = s.get_entry(name) {
                return match entry {
                    Entry::Value(v) => Ok(Some(v)),
                    Entry::Lazy(text, at) => {
                        if s.0.resolving.borrow().iter().any(|n| n == name) {
                            let mut chain = s.0.resolving.borrow().clone();
                            chain.push(name.to_owned());
                            return Err(self.error(
                                "xacro.circular",
                                Some(at),
                                format!(
                                    "circular variable definition: {} (consider lazy_eval=\"false\")",
                                    chain.join(" -> ")
                                ),
                            ));
                        }
                        s.0.resolving.borrow_mut().push(name.to_owned());
                        let saved = self.here.replace(at);
                        let v = self.eval_text(&text, &s);
                        self.here = saved;
                        s.0.resolving.borrow_mut().retain(|n| n != name);
                        let v = eval_literal(v?);
                        s.set(name, Entry::Value(v.clone()));
                        Ok(Some(v))
                    }
                };
            }
            match s.parent() {
                Some(p) => s = p.clone(),
                None => return Ok(None),
            }
        }
    }

    /// xacro's `Table._setitem`.
    fn set_symbol(&mut self, scope: &Scope, name: &str, value: Value, lazy: bool, at: Loc) {
        if builtins::global(name).is_some() {
            self.warn(Some(at), format!("redefining global symbol: {name}"));
        }
        let v = eval_literal(value);
        match v {
            Value::Str(s) if lazy => scope.set(name, Entry::Lazy(s.to_string(), at)),
            v => scope.set(name, Entry::Value(v)),
        }
    }

    // ----- the tree ----------------------------------------------------------------------

    fn count(&mut self, at: Loc) -> R<()> {
        self.nodes += 1;
        if self.nodes > MAX_NODES {
            return Err(self.error(
                "xacro.budget",
                Some(at),
                format!(
                    "the expansion grows beyond {MAX_NODES} elements: an exponential or endless \
                     expansion is stopped here"
                ),
            ));
        }
        Ok(())
    }

    /// Counts `bytes` of text made at `at` against [`MAX_TEXT_BYTES`].
    fn account_text(&mut self, bytes: usize, at: Loc) -> R<()> {
        self.text_bytes += bytes;
        if self.text_bytes > MAX_TEXT_BYTES {
            return Err(self.error(
                "xacro.budget",
                Some(at),
                format!(
                    "the expansion makes more than {} MiB of text: an exponential or endless \
                     expansion is stopped",
                    MAX_TEXT_BYTES >> 20
                ),
            ));
        }
        Ok(())
    }

    /// xacro's `eval_all` on an element: its attributes, then its children.
    pub(crate) fn eval_all(&mut self, el: &mut Element, macros: &Macros, symbols: &Scope) -> R<()> {
        self.count(el.at)?;
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error(
                "xacro.budget",
                Some(el.at),
                format!(
                    "elements and macro calls nested deeper than {MAX_DEPTH} levels: the expansion is stopped"
                ),
            ));
        }
        let attrs = std::mem::take(&mut el.attrs);
        for a in attrs {
            if a.name.starts_with("xacro:") {
                continue;
            }
            self.here = Some(a.at);
            let v = self.eval_text(&a.value, symbols)?;
            let value = builtins::printed(&v).map_err(|e| self.expr_error(&e, &a.value))?;
            self.account_text(value.len(), a.at)?;
            el.attrs.push(xml::Attr { value, ..a });
        }
        el.remove_attr("xmlns:xacro");
        self.eval_children(el, macros, symbols)?;
        self.depth -= 1;
        Ok(())
    }

    fn live(&self, node: &XNode) -> bool {
        !matches!(node, XNode::Marker(g) if *g != self.marker)
    }

    /// The index of the node before `j` that is there (stale markers are not).
    fn previous(&self, children: &[XNode], j: usize) -> Option<usize> {
        (0..j).rev().find(|&k| self.live(&children[k]))
    }

    /// xacro's `remove_previous_comments` for the node at `i`: returns its new index.
    fn remove_previous_comments(&mut self, children: &mut Vec<XNode>, i: usize) -> usize {
        let mut i = i;
        let has_next = (i + 1..children.len()).any(|k| self.live(&children[k]));
        let mut prev = self.previous(children, i);
        while let Some(mut p) = prev {
            let skip = match &children[p] {
                XNode::Text(t) => is_space(&t.data) && t.data.matches('\n').count() <= 1,
                _ => false,
            };
            if skip {
                match self.previous(children, p) {
                    Some(q) => p = q,
                    None => return i,
                }
            }
            if matches!(children[p], XNode::Comment(_)) {
                prev = self.previous(children, p);
                children.remove(p);
                i -= 1;
            } else {
                let next_is_marker = (i + 1..children.len())
                    .find(|&k| self.live(&children[k]))
                    .is_some_and(|k| matches!(children[k], XNode::Marker(_)));
                if has_next && !next_is_marker {
                    self.marker += 1;
                    children.insert(i + 1, XNode::Marker(self.marker));
                }
                return i;
            }
        }
        i
    }

    fn take_element(children: &mut [XNode], i: usize) -> Element {
        match std::mem::replace(&mut children[i], XNode::Marker(u64::MAX)) {
            XNode::Element(e) => e,
            _ => unreachable!("an element is taken"),
        }
    }

    /// xacro's `check_attrs`: the required and optional attributes, a warning for others.
    fn check_attrs(&mut self, el: &Element, required: &[&str], optional: &[&str]) -> R<Vec<Option<String>>> {
        let mut out = Vec::new();
        for r in required {
            match el.attr(r) {
                Some(v) => out.push(Some(v.to_owned())),
                None => {
                    return Err(self.error(
                        "xacro.missing_attribute",
                        Some(el.at),
                        format!("{}: missing attribute '{r}'", el.name),
                    ));
                }
            }
        }
        for o in optional {
            out.push(el.attr(o).map(str::to_owned));
        }
        let extra: Vec<&str> = el
            .attrs
            .iter()
            .map(|a| a.name.as_str())
            .filter(|n| !required.contains(n) && !optional.contains(n) && !n.starts_with("xmlns:"))
            .collect();
        if !extra.is_empty() {
            let message = format!("{}: unknown attribute(s): {}", el.name, extra.join(", "));
            self.warn(Some(el.at), message);
        }
        Ok(out)
    }

    fn eval_children(&mut self, el: &mut Element, macros: &Macros, symbols: &Scope) -> R<()> {
        let mut i = 0;
        let mut eval_comments = false;
        while i < el.children.len() {
            let after = el.children.len() - i - 1;
            match &mut el.children[i] {
                XNode::Element(child) => {
                    eval_comments = false;
                    self.here = Some(child.at);
                    let name = child.name.clone();
                    match name.as_str() {
                        "xacro:insert_block" => self.insert_block(el, i, macros, symbols)?,
                        "xacro:include" => self.include(el, i, macros, symbols)?,
                        "xacro:property" => self.property(el, i, symbols)?,
                        "xacro:macro" => self.grab_macro(el, i, macros)?,
                        "xacro:arg" => self.arg(el, i, symbols)?,
                        "xacro:element" => {
                            let at = child.at;
                            let Some(raw) = child.attr("xacro:name").map(str::to_owned) else {
                                return Err(self.error(
                                    "xacro.missing_attribute",
                                    Some(at),
                                    "xacro:element: missing attribute 'xacro:name'",
                                ));
                            };
                            let new = text_of(&self.eval_text(&raw, symbols)?);
                            if new.is_empty() {
                                return Err(self.error(
                                    "xacro.element",
                                    Some(at),
                                    "xacro:element: empty name",
                                ));
                            }
                            if let XNode::Element(child) = &mut el.children[i] {
                                child.remove_attr("xacro:name");
                                child.name = new;
                            }
                            continue;
                        }
                        "xacro:attribute" => {
                            let at = child.at;
                            let (Some(n), Some(v)) = (child.attr("name"), child.attr("value")) else {
                                let missing = if child.attr("name").is_none() {
                                    "name"
                                } else {
                                    "value"
                                };
                                return Err(self.error(
                                    "xacro.missing_attribute",
                                    Some(at),
                                    format!("xacro:attribute: missing attribute '{missing}'"),
                                ));
                            };
                            let (n, v) = (n.to_owned(), v.to_owned());
                            let n = text_of(&self.eval_text(&n, symbols)?);
                            let v = self.eval_text(&v, symbols)?;
                            if n.is_empty() {
                                return Err(self.error(
                                    "xacro.attribute",
                                    Some(at),
                                    "xacro:attribute: empty name",
                                ));
                            }
                            let Value::Str(v) = v else {
                                return Err(self.error(
                                    "xacro.attribute",
                                    Some(at),
                                    format!(
                                        "xacro:attribute {n}: the value is a {}, not text (xacro cannot write it)",
                                        v.type_name()
                                    ),
                                ));
                            };
                            el.set_attr(&n, v.to_string(), at);
                            el.children.remove(i);
                        }
                        "xacro:if" | "xacro:unless" => self.conditional(el, i, macros, symbols)?,
                        n if n.starts_with("xacro:") => self.macro_call(el, i, macros, symbols)?,
                        _ => {
                            if let XNode::Element(child) = &mut el.children[i] {
                                self.eval_all(child, macros, symbols)?;
                            }
                        }
                    }
                    i = el.children.len() - after;
                }
                XNode::Text(t) => {
                    if t.data.contains('$') {
                        let t_at = t.at;
                        self.here = Some(t.at);
                        let data = std::mem::take(&mut t.data);
                        let v = self.eval_text(&data, symbols)?;
                        let data = builtins::printed(&v).map_err(|e| self.expr_error(&e, &data))?;
                        self.account_text(data.len(), t_at)?;
                        if let XNode::Text(t) = &mut el.children[i] {
                            t.data = data;
                        }
                    }
                    if let XNode::Text(t) = &el.children[i]
                        && !t.data.trim().is_empty()
                    {
                        eval_comments = false;
                    }
                    i += 1;
                }
                XNode::Comment(c) => {
                    if c.data.contains("xacro:eval-comments") {
                        eval_comments = !c.data.contains("xacro:eval-comments:off");
                        el.children.remove(i);
                    } else {
                        if eval_comments {
                            self.here = Some(c.at);
                            let data = c.data.clone();
                            let v = self.eval_text(&data, symbols)?;
                            let text = builtins::printed(&v).map_err(|e| self.expr_error(&e, &data))?;
                            if let XNode::Comment(c) = &mut el.children[i] {
                                c.data = text;
                            }
                        }
                        i += 1;
                    }
                }
                _ => i += 1,
            }
        }
        Ok(())
    }

    fn insert_block(&mut self, el: &mut Element, i: usize, macros: &Macros, symbols: &Scope) -> R<()> {
        let XNode::Element(node) = &el.children[i] else {
            return Ok(());
        };
        let node = node.clone();
        let name = self.check_attrs(&node, &["name"], &[])?[0]
            .clone()
            .unwrap_or_default();
        let (key, content_only) = if symbols.contains(&format!("**{name}")) {
            (format!("**{name}"), true)
        } else if symbols.contains(&format!("*{name}")) {
            (format!("*{name}"), false)
        } else {
            return Err(self.error(
                "xacro.undefined_block",
                Some(node.at),
                format!("Undefined block \"{name}\""),
            ));
        };
        let Some(Value::Block(block)) = self.lookup(symbols, &key)? else {
            return Err(self.error(
                "xacro.undefined_block",
                Some(node.at),
                format!("Undefined block \"{name}\""),
            ));
        };
        let mut block = self.clone_block(&block);
        self.eval_all(&mut block, macros, symbols)?;
        let nodes = if content_only {
            block.children
        } else {
            vec![XNode::Element(block)]
        };
        el.children.splice(i..=i, nodes);
        Ok(())
    }

    /// A deep copy of a block: the live marker becomes plain text, as a copy of the shared
    /// node is a node of its own.
    fn clone_block(&self, node: &XNode) -> Element {
        fn copy(e: &Element, live: u64) -> Element {
            Element {
                name: e.name.clone(),
                attrs: e.attrs.clone(),
                at: e.at,
                children: e
                    .children
                    .iter()
                    .filter_map(|c| match c {
                        XNode::Marker(g) if *g == live => Some(XNode::Text(Text {
                            data: "\n\n".to_owned(),
                            at: e.at,
                        })),
                        XNode::Marker(_) => None,
                        XNode::Element(c) => Some(XNode::Element(copy(c, live))),
                        other => Some(other.clone()),
                    })
                    .collect(),
            }
        }
        match node {
            XNode::Element(e) => copy(e, self.marker),
            _ => Element {
                name: String::new(),
                attrs: Vec::new(),
                children: Vec::new(),
                at: Loc { file: 0, offset: 0 },
            },
        }
    }

    fn arg(&mut self, el: &mut Element, i: usize, symbols: &Scope) -> R<()> {
        let XNode::Element(node) = &el.children[i] else {
            return Ok(());
        };
        let node = node.clone();
        let a = self.check_attrs(&node, &["name", "default"], &[])?;
        let (name, default) = (a[0].clone().unwrap_or_default(), a[1].clone().unwrap_or_default());
        if !self.declared.iter().any(|d| d.name == name) {
            self.declared.push(DeclaredArg {
                name: name.clone(),
                default: default.clone(),
            });
        }
        if !self.args.contains_key(&name) {
            let v = self.eval_text(&default, symbols)?;
            self.args.insert(name, text_of(&v));
        }
        let i = self.remove_previous_comments(&mut el.children, i);
        el.children.remove(i);
        Ok(())
    }

    fn conditional(&mut self, el: &mut Element, i: usize, macros: &Macros, symbols: &Scope) -> R<()> {
        let i = self.remove_previous_comments(&mut el.children, i);
        let mut node = Self::take_element(&mut el.children, i);
        let cond = self.check_attrs(&node, &["value"], &[])?[0]
            .clone()
            .unwrap_or_default();
        self.here = node.attr_node("value").map(|a| a.at);
        let v = self.eval_text(&cond, symbols)?;
        let Some(mut keep) = boolean(&v) else {
            return Err(self.error(
                "xacro.condition",
                None,
                format!(
                    "Xacro conditional \"{cond}\" evaluated to \"{}\", which is not a boolean expression.",
                    text_of(&v)
                ),
            ));
        };
        if node.name == "xacro:unless" {
            keep = !keep;
        }
        if keep {
            self.eval_all(&mut node, macros, symbols)?;
            el.children.splice(i..=i, node.children);
        } else {
            el.children.remove(i);
        }
        Ok(())
    }

    fn property(&mut self, el: &mut Element, i: usize, table: &Scope) -> R<()> {
        let i = self.remove_previous_comments(&mut el.children, i);
        let node = Self::take_element(&mut el.children, i);
        let at = node.at;
        let a = self.check_attrs(
            &node,
            &["name"],
            &["value", "default", "remove", "scope", "lazy_eval"],
        )?;
        let (name, value, default, remove, scope, lazy) = (
            a[0].clone().unwrap_or_default(),
            a[1].clone(),
            a[2].clone(),
            a[3].clone(),
            a[4].clone(),
            a[5].clone(),
        );
        let name = text_of(&self.eval_text(&name, table)?);
        if !is_valid_name(&name) {
            el.children.remove(i);
            return Err(self.error(
                "xacro.property_name",
                Some(at),
                format!("Property names must be valid python identifiers: {name}"),
            ));
        }
        if name.starts_with("__") {
            return Err(self.error(
                "xacro.property_name",
                Some(at),
                format!("Property names must not start with double underscore: {name}"),
            ));
        }
        let rv = self.eval_text(remove.as_deref().unwrap_or("false"), table)?;
        let Some(remove_it) = boolean(&rv) else {
            return Err(self.error(
                "xacro.condition",
                Some(at),
                format!(
                    "Xacro conditional \"{}\" evaluated to \"{}\", which is not a boolean expression.",
                    remove.unwrap_or_default(),
                    text_of(&rv)
                ),
            ));
        };
        if usize::from(value.is_some()) + usize::from(default.is_some()) + usize::from(remove_it) > 1 {
            return Err(self.error(
                "xacro.property",
                Some(at),
                format!("Property attributes default, value, and remove are mutually exclusive: {name}"),
            ));
        }
        if remove_it && table.contains(&name) {
            table.remove(&name);
            el.children.remove(i);
            return Ok(());
        }
        let mut value = value;
        if let Some(d) = default {
            if scope.is_some() {
                self.warn(
                    Some(at),
                    format!("{name}: default property value can only be defined on local scope"),
                );
            }
            if table.contains(&name) {
                el.children.remove(i);
                return Ok(());
            }
            value = Some(d);
        }
        el.children.remove(i);
        let (key, value) = match value {
            Some(v) => (name.clone(), Value::str(&v)),
            None => (format!("**{name}"), Value::Block(Rc::new(XNode::Element(node)))),
        };
        let lv = self.eval_text(lazy.as_deref().unwrap_or("true"), table)?;
        let Some(mut lazy_eval) = boolean(&lv) else {
            return Err(self.error(
                "xacro.condition",
                Some(at),
                format!(
                    "Xacro conditional \"{}\" evaluated to \"{}\", which is not a boolean expression.",
                    lazy.unwrap_or_default(),
                    text_of(&lv)
                ),
            ));
        };
        let target = match scope.as_deref() {
            Some("global") => {
                lazy_eval = false;
                table.top()
            }
            Some("parent") => {
                let Some(mut target) = table.parent().cloned() else {
                    self.warn(Some(at), format!("{name}: no parent scope at global scope"));
                    return Ok(());
                };
                lazy_eval = false;
                if table.0.kind != Kind::Namespace {
                    while target.0.kind == Kind::Namespace {
                        match target.parent() {
                            Some(p) => target = p.clone(),
                            None => break,
                        }
                    }
                }
                if target.is_root() {
                    return Err(self.error(
                        "xacro.scope",
                        Some(at),
                        format!(
                            "property {name}: scope=\"parent\" at the document's level, which has no parent scope \
                             (xacro fails here: 'dict' object has no attribute '_setitem')"
                        ),
                    ));
                }
                target
            }
            _ => table.clone(),
        };
        let value = match value {
            Value::Str(s) if !lazy_eval => {
                self.here = Some(at);
                self.eval_text(&s, table)?
            }
            v => v,
        };
        self.set_symbol(&target, &key, value, lazy_eval, at);
        Ok(())
    }

    fn grab_macro(&mut self, el: &mut Element, i: usize, macros: &Macros) -> R<()> {
        let i = self.remove_previous_comments(&mut el.children, i);
        let node = Self::take_element(&mut el.children, i);
        el.children.remove(i);
        let a = self.check_attrs(&node, &["name"], &["params"])?;
        let mut name = a[0].clone().unwrap_or_default();
        if name == "call" {
            return Err(self.error(
                "xacro.macro_name",
                Some(node.at),
                "Invalid use of macro name 'call'",
            ));
        }
        if name.contains('.') {
            return Err(self.error(
                "xacro.macro_name",
                Some(node.at),
                format!("macro names must not contain '.' (reserved for namespaces): {name}"),
            ));
        }
        if let Some(stripped) = name.strip_prefix("xacro:") {
            self.warn(
                Some(node.at),
                format!("macro names must not contain prefix 'xacro:': {name}"),
            );
            name = stripped.to_owned();
        }
        let mut params = Vec::new();
        let mut defaults = HashMap::new();
        let mut rest = a[1].clone().unwrap_or_default();
        while !rest.is_empty() {
            let (param, value, r) = parse_macro_arg(&rest);
            if param.is_empty() {
                break;
            }
            if let Some((forward, default)) = value {
                defaults.insert(param.clone(), (forward.then(|| param.clone()), default));
            }
            params.push(param);
            rest = r;
        }
        macros.set(
            &name.clone(),
            MacroEntry::Macro(Rc::new(Macro {
                name,
                body: node,
                params,
                defaults,
            })),
        );
        Ok(())
    }

    fn resolve_macro(
        &mut self,
        full: &str,
        macros: &Macros,
        symbols: &Scope,
    ) -> R<Option<(Macros, Scope, Rc<Macro>)>> {
        if let Some(MacroEntry::Macro(m)) = macros.get(full) {
            return Ok(Some((macros.clone(), symbols.clone(), m)));
        }
        let mut parts: Vec<&str> = full.split('.').collect();
        let name = parts.pop().unwrap_or_default();
        if parts.is_empty() {
            return Ok(None);
        }
        let (mut m, mut s) = (macros.clone(), symbols.clone());
        for ns in parts {
            let Some(MacroEntry::Namespace(next)) = m.get(ns) else {
                return Ok(None);
            };
            let Some(Value::Namespace(next_s)) = self.lookup(&s, ns)? else {
                return Ok(None);
            };
            m = next;
            s = next_s;
        }
        Ok(match m.get(name) {
            Some(MacroEntry::Macro(found)) => Some((m, s, found)),
            _ => None,
        })
    }

    fn macro_call(&mut self, el: &mut Element, i: usize, macros: &Macros, symbols: &Scope) -> R<()> {
        let mut node = Self::take_element(&mut el.children, i);
        if node.name == "xacro:call" {
            let Some(raw) = node.attr("macro").map(str::to_owned) else {
                return Err(self.error(
                    "xacro.missing_attribute",
                    Some(node.at),
                    "xacro:call: missing attribute 'macro'",
                ));
            };
            if raw.is_empty() {
                return Err(self.error(
                    "xacro.call",
                    Some(node.at),
                    "xacro:call is missing the 'macro' attribute",
                ));
            }
            let name = text_of(&self.eval_text(&raw, symbols)?);
            node.remove_attr("macro");
            node.name = format!("xacro:{name}");
        }
        let name = node.name["xacro:".len()..].to_owned();
        let Some((scoped_macros, scoped_symbols, m)) = self.resolve_macro(&name, macros, symbols)? else {
            return Err(self.error(
                "xacro.unknown_macro",
                Some(node.at),
                format!("unknown macro name: {}", node.name),
            ));
        };
        if self.macro_stack.len() >= MAX_MACRO_DEPTH {
            return Err(self.error(
                "xacro.budget",
                Some(node.at),
                format!(
                    "macro calls nested deeper than {MAX_MACRO_DEPTH}: an endless recursion is stopped here"
                ),
            ));
        }
        self.macro_stack.push((m.name.clone(), node.at));
        let result = self.expand_call(el, i, node, &m, macros, symbols, &scoped_macros, &scoped_symbols);
        if result.is_ok() {
            self.macro_stack.pop();
        }
        result
    }

    #[allow(clippy::too_many_arguments)]
    fn expand_call(
        &mut self,
        el: &mut Element,
        i: usize,
        mut node: Element,
        m: &Rc<Macro>,
        macros: &Macros,
        symbols: &Scope,
        scoped_macros: &Macros,
        scoped_symbols: &Scope,
    ) -> R<()> {
        let local = Scope::child(scoped_symbols);
        let local_macros = Macros::new(Some(scoped_macros));
        let mut params = m.params.clone();
        for a in &mut node.attrs {
            let Some(k) = params.iter().position(|p| *p == a.name) else {
                return Err(self.error(
                    "xacro.parameter",
                    Some(a.at),
                    format!("Invalid parameter \"{}\" of macro {}", a.name, m.name),
                ));
            };
            params.remove(k);
            self.here = Some(a.at);
            let v = self.eval_text(&a.value, symbols)?;
            self.set_symbol(&local, &a.name, v, false, a.at);
            a.value = String::new();
        }
        self.eval_all(&mut node, macros, symbols)?;
        let mut blocks = node.children.iter().filter(|c| matches!(c, XNode::Element(_)));
        let mut block = blocks.next();
        for param in params.clone() {
            if param.starts_with('*') {
                let Some(b) = block else {
                    return Err(self.error(
                        "xacro.blocks",
                        Some(node.at),
                        format!(
                            "Not enough blocks for macro {} (its parameter {param} has none)",
                            m.name
                        ),
                    ));
                };
                params.retain(|p| *p != param);
                local.set(&param, Entry::Value(Value::Block(Rc::new(b.clone()))));
                block = blocks.next();
            }
        }
        if let Some(XNode::Element(b)) = block {
            return Err(self.error(
                "xacro.blocks",
                Some(b.at),
                format!("Unused block \"{}\" in the call of macro {}", b.name, m.name),
            ));
        }
        for param in params.clone() {
            if param.starts_with('*') {
                continue;
            }
            let Some((forward, default)) = m.defaults.get(&param).cloned() else {
                continue;
            };
            if forward.is_none() && default.is_none() {
                continue;
            }
            let v = match forward {
                None => self.eval_text(default.as_deref().unwrap_or(""), symbols)?,
                Some(f) => match self.lookup(symbols, &f)? {
                    Some(v) => v,
                    None => match default {
                        Some(d) => self.eval_text(&d, symbols)?,
                        None => {
                            return Err(self.error(
                                "xacro.forward",
                                Some(node.at),
                                format!("Undefined property to forward: {f} (macro {})", m.name),
                            ));
                        }
                    },
                },
            };
            self.set_symbol(&local, &param, v, false, node.at);
            params.retain(|p| *p != param);
        }
        if !params.is_empty() {
            return Err(self.error(
                "xacro.parameter",
                Some(node.at),
                format!("Undefined parameters [{}] of macro {}", params.join(","), m.name),
            ));
        }
        let mut body = m.body.clone();
        self.eval_all(&mut body, &local_macros, &local)?;
        let i = self.remove_previous_comments(&mut el.children, i);
        self.import_namespaces(el, &body);
        el.children.splice(i..=i, body.children);
        Ok(())
    }

    fn import_namespaces(&mut self, parent: &mut Element, from: &Element) {
        for a in &from.attrs {
            if a.name.starts_with("xmlns:") {
                match parent.attr(&a.name) {
                    Some(old) if old != a.value => {
                        let message = format!("inconsistent namespace redefinitions for {}", a.name);
                        self.warn(Some(a.at), message);
                    }
                    _ => parent.set_attr(&a.name, a.value.clone(), a.at),
                }
            }
        }
    }

    fn include(&mut self, el: &mut Element, i: usize, macros: &Macros, symbols: &Scope) -> R<()> {
        let XNode::Element(node) = &el.children[i] else {
            return Ok(());
        };
        let node = node.clone();
        let a = self.check_attrs(&node, &["filename"], &["ns", "optional"])?;
        let (spec, ns, optional) = (a[0].clone().unwrap_or_default(), a[1].clone(), a[2].clone());
        let (ns_macros, ns_symbols) = match ns.filter(|n| !n.is_empty()) {
            Some(ns) => {
                let ns = text_of(&self.eval_text(&ns, symbols)?);
                let nm = Macros::new(None);
                macros.set(&ns, MacroEntry::Namespace(nm.clone()));
                let scope = Scope::namespace(symbols);
                self.cycles.keep(symbols);
                self.cycles.keep(&scope);
                self.set_symbol(symbols, &ns, Value::Namespace(scope.clone()), true, node.at);
                (nm, scope)
            }
            None => (macros.clone(), symbols.clone()),
        };
        let optional = match optional.as_deref() {
            None => false,
            Some(t) => boolean(&Value::str(t)).ok_or_else(|| {
                self.error(
                    "xacro.condition",
                    Some(node.at),
                    format!(
                        "Xacro conditional \"None\" evaluated to \"{t}\", which is not a boolean expression."
                    ),
                )
            })?,
        };
        if node.children.iter().any(|c| matches!(c, XNode::Element(_))) {
            self.warn(
                Some(node.at),
                "Child elements of a <xacro:include> tag are ignored",
            );
        }
        self.here = node.attr_node("filename").map(|a| a.at);
        let spec = text_of(&self.eval_text(&spec, symbols)?);
        let full = self.abs_filename(&spec);
        let full_spec = self.abs_filename_spec(&spec);
        let globbed = spec.contains(['*', '[', '?']);
        let files = if globbed {
            let found = glob(&full);
            if found.is_empty() {
                self.warn(
                    Some(node.at),
                    format!("Include tag's filename spec \"{spec}\" matched no files."),
                );
            }
            found
        } else {
            vec![full]
        };
        let mut included = Vec::new();
        for path in files {
            let text = match read_file(&path) {
                Ok(t) => t,
                Err(_) if optional => continue,
                Err(e) => {
                    let reason = match e.kind() {
                        std::io::ErrorKind::NotFound => "No such file or directory".to_owned(),
                        _ => e.to_string(),
                    };
                    return Err(self.error(
                        "xacro.include",
                        self.here,
                        format!("{reason}: {}", path.display()),
                    ));
                }
            };
            let on_stack = self
                .filestack
                .iter()
                .any(|f| self.files[*f as usize].path == path);
            if self.includes.len() >= 32 && on_stack {
                return Err(self.error(
                    "xacro.include_cycle",
                    Some(node.at),
                    format!(
                        "{} includes itself (include cycle, {} includes deep): the expansion is stopped",
                        path.display(),
                        self.includes.len()
                    ),
                ));
            }
            let name = path.display().to_string();
            // A glob's match keeps the pattern's directory as written, as Python's `glob`.
            let spec = match path.file_name() {
                Some(matched) if globbed => {
                    python_join(python_dirname(&full_spec), &matched.to_string_lossy())
                }
                _ => full_spec.clone(),
            };
            let file = self.add_file(path, name, spec, text);
            self.includes.push(node.at);
            self.filestack.push(file);
            let mut doc = self.parse_file(file)?;
            self.eval_all(&mut doc.root, &ns_macros, &ns_symbols)?;
            self.import_namespaces(el, &doc.root);
            self.filestack.pop();
            self.includes.pop();
            included.push(doc.root);
        }
        let i = self.remove_previous_comments(&mut el.children, i);
        el.children
            .splice(i..=i, included.into_iter().flat_map(|r| r.children));
        Ok(())
    }

    /// `xacro.load_yaml(filename)`.
    fn load_yaml(&mut self, spec: &str) -> EResult<Value> {
        let path = self.abs_filename(spec);
        let text = read_file(&path).map_err(|e| {
            EvalError(format!(
                "[Errno 2] {}: '{}'",
                if e.kind() == std::io::ErrorKind::NotFound {
                    "No such file or directory"
                } else {
                    "cannot read"
                },
                path.display()
            ))
        })?;
        let name = path.display().to_string();
        // xacro's unit tags: taken out of the text (blanked, so that places stay) and applied
        // to the scalar that follows.
        let (blanked, units) = unit_tags(&text);
        let source = mbconv_ir::format::Source::from_string(name.clone(), blanked);
        let spec = self.abs_filename_spec(spec);
        self.add_file(path, name, spec, text);
        let mut options = mbconv_yaml::serde_saphyr::Options::default();
        options.duplicate_keys = mbconv_yaml::serde_saphyr::DuplicateKeyPolicy::PassThrough;
        // Merge keys come through as `<<` entries: `merged_entries` applies them in PyYAML's
        // order (the parser would put the mapping's own keys first).
        options.merge_keys = mbconv_yaml::serde_saphyr::MergeKeyPolicy::AsOrdinary;
        let node =
            mbconv_yaml::parse(&source, "xacro.yaml", options).map_err(|e| EvalError(e.to_string()))?;
        yaml_value(&node, &units)
    }

    /// `$(find PKG)`: the package's directory under the package path.
    fn find_package(&mut self, package: &str) -> EResult<String> {
        if let Some(p) = self.packages.get(package) {
            return Ok(p.display().to_string());
        }
        let mut roots: Vec<PathBuf> = self.inputs.package_path.clone();
        if let Some(ros) = (self.inputs.env)("ROS_PACKAGE_PATH") {
            roots.extend(ros.split(':').filter(|p| !p.is_empty()).map(PathBuf::from));
        }
        let mut searched: Vec<String> = roots.iter().map(|r| r.display().to_string()).collect();
        // A package is what its manifest names, as ROS's package crawl finds it; a folder
        // of the package's name without a manifest counts too (a `package://` tree copied
        // without its `package.xml`), but only after the manifests: xacro's own source tree
        // holds a Python folder `xacro/` beside the manifest naming the tree `xacro`.
        for root in &roots {
            if let Some(dir) = manifest_under(root, package, 2) {
                return Ok(self.found(package, dir));
            }
            if root.file_name().is_some_and(|n| n == package) && root.is_dir() {
                return Ok(self.found(package, root.clone()));
            }
            let direct = root.join(package);
            if direct.is_dir() {
                return Ok(self.found(package, direct));
            }
        }
        if let Some(ament) = (self.inputs.env)("AMENT_PREFIX_PATH") {
            for prefix in ament.split(':').filter(|p| !p.is_empty()) {
                let share = Path::new(prefix).join("share").join(package);
                searched.push(format!("{prefix}/share"));
                if share.is_dir() {
                    return Ok(self.found(package, share));
                }
            }
        }
        fail_package(package, &searched)
    }

    /// Records a package's directory and returns it as `$(find)` gives it: absolute (a
    /// relative package path is taken from the working directory, as ROS's is), so that an
    /// include of the result does not resolve against the including file's folder.
    fn found(&mut self, package: &str, dir: PathBuf) -> String {
        let dir = std::path::absolute(&dir).unwrap_or(dir);
        let text = dir.display().to_string();
        self.packages.insert(package.to_owned(), dir);
        text
    }
}

fn fail_package(package: &str, searched: &[String]) -> EResult<String> {
    Err(EvalError(format!(
        "package '{package}' not found (searched the package_path setting, ROS_PACKAGE_PATH and AMENT_PREFIX_PATH: {})",
        if searched.is_empty() {
            "none set".to_owned()
        } else {
            searched.join(", ")
        }
    )))
}

/// A directory under `root` (at most `depth` levels down) whose `package.xml` names `package`.
fn manifest_under(root: &Path, package: &str, depth: usize) -> Option<PathBuf> {
    let manifest = std::fs::read_to_string(root.join("package.xml")).ok();
    if let Some(text) = manifest {
        let name = text
            .split_once("<name>")
            .and_then(|(_, r)| r.split_once("</name>"))
            .map(|(n, _)| n.trim().to_owned());
        return (name.as_deref() == Some(package)).then(|| root.to_path_buf());
    }
    if depth == 0 {
        return None;
    }
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root)
        .ok()?
        .filter_map(Result::ok)
        .filter(|e| {
            e.file_type().is_ok_and(|t| t.is_dir()) && !e.file_name().to_string_lossy().starts_with('.')
        })
        .map(|e| e.path())
        .collect();
    dirs.sort();
    dirs.iter().find_map(|d| manifest_under(d, package, depth - 1))
}

/// Python's `glob.glob` for a pattern in the file name (sorted; hidden files only when the
/// pattern starts with a dot).
fn glob(pattern: &Path) -> Vec<PathBuf> {
    let (Some(dir), Some(name)) = (pattern.parent(), pattern.file_name().and_then(|n| n.to_str())) else {
        return Vec::new();
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|e| {
            let n = e.file_name().to_string_lossy().into_owned();
            (name.starts_with('.') || !n.starts_with('.')) && wildcard(name, &n)
        })
        .map(|e| dir.join(e.file_name()))
        .collect();
    found.sort();
    found
}

/// Python's `os.path.dirname` of a POSIX path: up to the last `/`, trailing slashes taken
/// off unless the head is nothing but slashes.
fn python_dirname(path: &str) -> &str {
    let head = &path[..path.rfind('/').map_or(0, |i| i + 1)];
    if head.is_empty() || head.bytes().all(|b| b == b'/') {
        head
    } else {
        head.trim_end_matches('/')
    }
}

/// Python's `os.path.join(base, rel)` for two POSIX parts: an absolute `rel` replaces `base`;
/// a `/` goes between them unless `base` is empty or already ends with one.
fn python_join(base: &str, rel: &str) -> String {
    if rel.starts_with('/') || base.is_empty() {
        rel.to_owned()
    } else if base.ends_with('/') {
        format!("{base}{rel}")
    } else {
        format!("{base}/{rel}")
    }
}

/// `fnmatch` of `*`, `?` and `[...]`.
fn wildcard(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    fn go(p: &[char], n: &[char]) -> bool {
        match p.first() {
            None => n.is_empty(),
            Some('*') => (0..=n.len()).any(|k| go(&p[1..], &n[k..])),
            Some('?') => !n.is_empty() && go(&p[1..], &n[1..]),
            Some('[') => {
                let Some(end) = p.iter().skip(1).position(|c| *c == ']').map(|e| e + 1) else {
                    return n.first() == Some(&'[') && go(&p[1..], &n[1..]);
                };
                let Some(c) = n.first() else { return false };
                let set = &p[1..end];
                let (neg, set) = match set.first() {
                    Some('!') => (true, &set[1..]),
                    _ => (false, set),
                };
                let mut hit = false;
                let mut k = 0;
                while k < set.len() {
                    if k + 2 < set.len() && set[k + 1] == '-' {
                        hit |= set[k] <= *c && *c <= set[k + 2];
                        k += 3;
                    } else {
                        hit |= set[k] == *c;
                        k += 1;
                    }
                }
                hit != neg && go(&p[end + 1..], &n[1..])
            }
            Some(c) => n.first() == Some(c) && go(&p[1..], &n[1..]),
        }
    }
    go(&p, &n)
}

/// The expressions' view of the expander.
struct ExprEnv<'a> {
    ex: &'a mut Expander,
    scope: Scope,
    /// An expansion error raised inside the expression (a lazy property's), kept whole.
    inner: Option<XError>,
}

impl ExprEnv<'_> {
    fn keep(&mut self, e: XError) -> EvalError {
        let message = e.message.clone();
        self.inner.get_or_insert(e);
        EvalError(message)
    }
}

impl Env for ExprEnv<'_> {
    fn lookup(&mut self, name: &str) -> EResult<Value> {
        if name.starts_with("__") {
            return Err(EvalError(format!("Use of invalid name(s): {name}")));
        }
        let scope = self.scope.clone();
        match self.ex.lookup(&scope, name) {
            Ok(Some(v)) => Ok(v),
            Ok(None) => Err(EvalError(format!("name '{name}' is not defined"))),
            Err(e) => Err(self.keep(e)),
        }
    }

    fn namespace_attr(&mut self, ns: &Scope, name: &str) -> EResult<Value> {
        if name.starts_with("__") {
            return Err(EvalError(format!("Use of invalid name(s): {name}")));
        }
        if let Kind::Builtin(kind) = ns.0.kind {
            return builtins::namespace_member(kind, name)
                .ok_or_else(|| EvalError(format!("name '{name}' is not defined")));
        }
        match self.ex.lookup(ns, name) {
            Ok(Some(v)) => Ok(v),
            Ok(None) => Err(EvalError(format!("name '{name}' is not defined"))),
            Err(e) => Err(self.keep(e)),
        }
    }

    fn call_xacro(&mut self, name: &str, args: Vec<Value>, kwargs: Vec<(String, Value)>) -> EResult<Value> {
        let text = |i: usize| args.get(i).map(text_of).unwrap_or_default();
        match name {
            "load_yaml" => {
                let Some(Value::Str(spec)) = args.first() else {
                    return Err(EvalError("load_yaml() takes a file name".into()));
                };
                self.ex.load_yaml(spec)
            }
            "abs_filename" => Ok(Value::str(&self.ex.abs_filename_spec(&text(0)))),
            "dotify" => match args.first() {
                Some(Value::Dict(d)) => {
                    let mut copy = d.borrow().clone();
                    copy.dotted = true;
                    Ok(Value::dict(copy))
                }
                _ => Err(EvalError("dotify() takes a dictionary".into())),
            },
            "arg" => self
                .ex
                .args
                .get(&text(0))
                .map(|v| Value::str(v))
                .ok_or_else(|| EvalError(format!("KeyError: '{}'", text(0)))),
            "message" | "warning" | "error" | "print_location" => {
                let words: Vec<String> = args.iter().map(text_of).collect();
                let _ = kwargs;
                if name != "message" {
                    self.ex.warn(None, format!("xacro.{name}: {}", words.join(" ")));
                }
                Ok(Value::str(""))
            }
            "fatal" => Err(EvalError(args.iter().map(text_of).collect::<Vec<_>>().join(" "))),
            "tokenize" => {
                let s = text(0);
                let sep = match (args.get(1), kwargs.iter().find(|(k, _)| k == "sep")) {
                    (_, Some((_, v))) | (Some(v), None) => text_of(v),
                    _ => ",; ".to_owned(),
                };
                let skip = match (args.get(2), kwargs.iter().find(|(k, _)| k == "skip_empty")) {
                    (_, Some((_, v))) | (Some(v), None) => v.truthy(),
                    _ => true,
                };
                let parts: Vec<Value> = s
                    .split(|c: char| sep.contains(c))
                    .filter(|p| !skip || !p.is_empty())
                    .map(Value::str)
                    .collect();
                Ok(Value::list(parts))
            }
            other => Err(EvalError(format!(
                "xacro.{other}() is not supported by mbconv's xacro"
            ))),
        }
    }
}

/// The substitutions' view of the expander.
struct SubstCtx<'a> {
    ex: &'a mut Expander,
}

impl subst::Context for SubstCtx<'_> {
    fn arg(&self, name: &str) -> Option<String> {
        self.ex.args.get(name).cloned()
    }
    fn env(&self, name: &str) -> Option<String> {
        (self.ex.inputs.env)(name)
    }
    fn find(&mut self, package: &str) -> EResult<String> {
        self.ex.find_package(package)
    }
    fn cwd(&self) -> String {
        self.ex.inputs.cwd.display().to_string()
    }
    fn args(&self) -> BTreeMap<String, String> {
        self.ex.args.clone()
    }
}

/// Expands file `file` (already added) as the document: returns the document and the
/// marker generation that is live.
pub(crate) fn expand_document(ex: &mut Expander, file: u32) -> R<xml::Document> {
    ex.filestack.push(file);
    let mut doc = ex.parse_file(file)?;
    let macros = Macros::new(None);
    let symbols = Scope::child(&Scope::globals());
    ex.cycles.keep(&symbols);
    if let Some(target) = doc.root.attr("xacro:targetNamespace").map(str::to_owned) {
        doc.root.remove_attr("xacro:targetNamespace");
        let at = doc.root.at;
        doc.root.set_attr("xmlns", target, at);
    }
    ex.eval_all(&mut doc.root, &macros, &symbols)?;
    Ok(doc)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn macro_parameters_parse_as_the_reference_regex() {
        // (text, parameter, forwarded, default (`-`: none at all, `~`: empty), rest)
        let cases = [
            ("a b", "a", false, "-", "b"),
            ("a:=1 b", "a", false, "1", "b"),
            ("a:=^ b", "a", true, "~", "b"),
            ("a:=^|0.5 b", "a", true, "0.5", "b"),
            ("a:='x y' b", "a", false, "'x y'", "b"),
            ("a:=${x + 1} b", "a", false, "${x + 1}", "b"),
            ("a:=${x}y b", "a", false, "${x}y", "b"),
            ("a:= b", "a", false, "b", ""),
            ("*origin **content", "*origin", false, "-", "**content"),
            ("a=", "a", false, "~", ""),
        ];
        for (text, param, forward, default, rest) in cases {
            let value = match default {
                "-" => None,
                "~" => Some((forward, None)),
                d => Some((forward, Some(d.to_owned()))),
            };
            assert_eq!(
                parse_macro_arg(text),
                (param.to_owned(), value, rest.to_owned()),
                "{text}"
            );
        }
    }

    #[test]
    fn yaml_scalars_resolve_as_pyyaml() {
        assert!(matches!(yaml_scalar("1"), Value::Int(1)));
        assert!(matches!(yaml_scalar("010"), Value::Int(8)));
        assert!(matches!(yaml_scalar("1.5"), Value::Float(f) if f == 1.5));
        assert!(matches!(yaml_scalar("1e-3"), Value::Str(_)));
        assert!(matches!(yaml_scalar("1.0e-3"), Value::Float(f) if f == 1e-3));
        assert!(matches!(yaml_scalar("-.5"), Value::Str(_)));
        assert!(matches!(yaml_scalar(".5"), Value::Float(f) if f == 0.5));
        assert!(matches!(yaml_scalar("yes"), Value::Bool(true)));
        assert!(matches!(yaml_scalar("-.inf"), Value::Float(f) if f == f64::NEG_INFINITY));
        assert!(matches!(yaml_scalar("09"), Value::Str(_)));
        assert!(matches!(yaml_scalar("1:30"), Value::Int(90)));
        assert!(matches!(yaml_scalar("-1:00:05"), Value::Int(-3605)));
        assert!(matches!(yaml_scalar("1:30.5"), Value::Float(f) if f == 90.5));
        assert!(matches!(yaml_scalar("1:60"), Value::Str(_)));
        assert!(matches!(yaml_scalar("01:30"), Value::Str(_)));
    }

    #[test]
    fn literals_become_typed_as_xacro_makes_them() {
        assert!(matches!(eval_literal(Value::str("1")), Value::Int(1)));
        assert!(matches!(eval_literal(Value::str("1_0")), Value::Str(_)));
        assert!(matches!(eval_literal(Value::str("'a'")), Value::Str(s) if &*s == "a"));
        assert!(matches!(eval_literal(Value::str("True")), Value::Bool(true)));
        assert!(matches!(eval_literal(Value::str("1e3")), Value::Float(_)));
    }
}
