//! Every string the emitter writes reads back as that string: through this crate's reader (with
//! the parser settings of both YAML formats), and under the reference loaders' rules, checked
//! token by token against the resolution patterns of YAML 1.2's core schema (yaml-cpp, as
//! Chrono reads) and of YAML 1.1's type repository (libyaml under Choreonoid's reader, whose
//! booleans are `yes/no/on/off/y/n`), the plain-scalar syntax of YAML 1.2, and `strtod` (a
//! reader that takes a number from text).
#![allow(clippy::unwrap_used)]

use mbconv_ir::Value;
use mbconv_ir::format::Source;
use mbconv_yaml::emit::{AMBIGUOUS_SCALARS, Yaml, document, float, number, quote, string};
use mbconv_yaml::{NodeKind, serde_saphyr};
use proptest::prelude::*;
use regex::Regex;

/// The parser settings of Chrono YAML (serde-saphyr's defaults) and Choreonoid Body (last
/// duplicate key wins, many aliases per anchor).
fn reader_settings() -> Vec<(&'static str, serde_saphyr::Options)> {
    let body = serde_saphyr::options! {
        budget: serde_saphyr::budget! { enforce_alias_anchor_ratio: false },
        duplicate_keys: serde_saphyr::DuplicateKeyPolicy::LastWins,
    };
    vec![("chrono", serde_saphyr::Options::default()), ("body", body)]
}

fn full(pattern: &str) -> Regex {
    Regex::new(&format!("^(?:{pattern})$")).unwrap()
}

/// What YAML 1.2's core schema resolves a plain scalar to other than a string (spec 10.3.2).
fn yaml12_core_non_string(plain: &str) -> Option<&'static str> {
    let rules = [
        ("null", r"null|Null|NULL|~|"),
        ("bool", r"true|True|TRUE|false|False|FALSE"),
        ("int", r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+"),
        (
            "float",
            r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?|[-+]?(\.inf|\.Inf|\.INF)|\.nan|\.NaN|\.NAN",
        ),
    ];
    rules
        .iter()
        .find(|(_, p)| full(p).is_match(plain))
        .map(|(t, _)| *t)
}

/// What a YAML 1.1 resolver makes of a plain scalar other than a string: the patterns of the
/// type repository (yaml.org/type), with the float pattern as resolvers implement it (PyYAML's:
/// a digit is required, where the repository's pattern would also take `.` and `..`).
fn yaml11_non_string(plain: &str) -> Option<&'static str> {
    let rules = [
        ("null", r"~|null|Null|NULL|"),
        (
            "bool",
            r"y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF",
        ),
        (
            "int",
            r"[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(:[0-5]?[0-9])+",
        ),
        (
            "float",
            r"[-+]?([0-9][0-9_]*)\.[0-9_]*([eE][-+][0-9]+)?|\.[0-9][0-9_]*([eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN)",
        ),
        ("merge", r"<<"),
        ("value", r"="),
        (
            "timestamp",
            r"[0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(\.[0-9]*)?(([ \t]*)Z|[-+][0-9]{1,2}(:[0-9]{2})?)?",
        ),
    ];
    rules
        .iter()
        .find(|(_, p)| full(p).is_match(plain))
        .map(|(t, _)| *t)
}

/// True when C's `strtod` reads the whole text as a number (decimal, hexadecimal, `inf`,
/// `infinity`, `nan`, `nan(chars)`, any case, after optional leading white space).
fn strtod_reads_a_number(text: &str) -> bool {
    full(
        r"[ \t\n\v\f\r]*[-+]?([0-9]+\.?[0-9]*([eE][-+]?[0-9]+)?|\.[0-9]+([eE][-+]?[0-9]+)?|0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)([pP][-+]?[0-9]+)?|(?i:inf|infinity|nan|nan\([0-9a-z_]*\)))",
    )
    .is_match(text)
}

/// True when `text` is a plain scalar by YAML 1.2's syntax (ns-plain-first, ns-plain-char, no
/// `: ` or ` #`, no white space at the ends), in flow context when `flow` (no `,[]{}`).
fn plain_syntax_ok(text: &str, flow: bool) -> bool {
    let Some(first) = text.chars().next() else {
        return false;
    };
    let second = text.chars().nth(1);
    let indicator = "-?:,[]{}#&*!|>'\"%@`".contains(first);
    let first_ok =
        !indicator || (matches!(first, '-' | '?' | ':') && second.is_some_and(|c| !c.is_whitespace()));
    let printable = text
        .chars()
        .all(|c| c == '\t' || (c >= ' ' && c != '\u{7f}' && !('\u{80}'..='\u{9f}').contains(&c)));
    first_ok
        && printable
        && !text.contains(['\n', '\r', '\t', '\u{2028}', '\u{2029}', '\u{85}', '\u{feff}'])
        && !text.contains(": ")
        && !text.ends_with(':')
        && !text.contains(" #")
        && !text.starts_with(' ')
        && !text.ends_with(' ')
        && !(flow && text.contains([',', '[', ']', '{', '}']))
}

/// Decodes a double-quoted YAML scalar that uses only the escapes the emitter writes, per
/// YAML 1.2 §5.7.
fn decode_double_quoted(token: &str) -> String {
    let inner = token.strip_prefix('"').unwrap().strip_suffix('"').unwrap();
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        assert!(c != '"' && !"\n\r".contains(c), "unescaped {c:?} in {token}");
        if c != '\\' {
            out.push(c);
            continue;
        }
        let code = |n: usize, chars: &mut std::str::Chars| {
            let hex: String = chars.take(n).collect();
            char::from_u32(u32::from_str_radix(&hex, 16).unwrap()).unwrap()
        };
        match chars.next().unwrap() {
            '"' => out.push('"'),
            '\\' => out.push('\\'),
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'x' => out.push(code(2, &mut chars)),
            'u' => out.push(code(4, &mut chars)),
            e => panic!("escape \\{e} in {token}"),
        }
    }
    out
}

/// The string a reader makes of the node, or why it is not one.
fn read_string(node: &mbconv_yaml::Node) -> Result<String, String> {
    match (&node.kind, node.to_value()) {
        (NodeKind::Scalar { text, .. }, Value::String(s)) if *text == s => Ok(s),
        (_, other) => Err(format!("read as {other:?}")),
    }
}

/// Every place a string stands in an emitted document: a value, a key, a list item, inside a
/// flow list and as a flow mapping's key and value.
fn documents(s: &str) -> Vec<(String, Vec<Vec<Step>>)> {
    let text = Yaml::Str(s.to_owned());
    vec![
        (
            document(&[("k".into(), text.clone())]),
            vec![vec![Step::Key("k")]],
        ),
        (
            document(&[(s.to_owned(), Yaml::Num(1.0))]),
            vec![vec![Step::KeyName(0)]],
        ),
        (
            document(&[("k".into(), Yaml::Seq(vec![Yaml::Map(vec![]), text.clone()]))]),
            vec![vec![Step::Key("k"), Step::Item(1)]],
        ),
        (
            document(&[("k".into(), Yaml::Flow(vec![text.clone(), Yaml::Num(2.0)]))]),
            vec![vec![Step::Key("k"), Step::Item(0)]],
        ),
        (
            document(&[(
                "k".into(),
                Yaml::Flow(vec![Yaml::Map(vec![(s.to_owned(), text.clone())])]),
            )]),
            vec![
                vec![Step::Key("k"), Step::Item(0), Step::KeyName(0)],
                vec![Step::Key("k"), Step::Item(0), Step::Value(0)],
            ],
        ),
    ]
}

#[derive(Clone, Copy)]
enum Step {
    Key(&'static str),
    Item(usize),
    Value(usize),
    KeyName(usize),
}

fn check_reads_back(s: &str) -> Result<(), String> {
    let token = string(s);
    if token == s {
        for (flow, what) in [(false, "block"), (true, "flow")] {
            if !plain_syntax_ok(&token, flow) {
                return Err(format!("{token:?} is no plain scalar in {what} context"));
            }
        }
        if let Some(t) = yaml12_core_non_string(&token) {
            return Err(format!("{token:?} is a {t} under YAML 1.2 core (yaml-cpp)"));
        }
        if let Some(t) = yaml11_non_string(&token) {
            return Err(format!("{token:?} is a {t} under YAML 1.1 (libyaml, Choreonoid)"));
        }
        if strtod_reads_a_number(&token) {
            return Err(format!("{token:?} reads as a number through strtod"));
        }
    } else if decode_double_quoted(&token) != s {
        return Err(format!("{token} decodes to {:?}", decode_double_quoted(&token)));
    }
    for (text, paths) in documents(s) {
        for (reader, options) in reader_settings() {
            let root = mbconv_yaml::parse(&Source::from_string("s.yaml", text.clone()), "t.yaml", options)
                .map_err(|e| format!("{reader} reader refuses {text:?}: {e:?}"))?;
            for path in &paths {
                let mut node = root.clone();
                let mut name = None;
                for step in path {
                    match *step {
                        Step::Key(k) => node = node.get(k).unwrap().clone(),
                        Step::Item(i) => node = node.items()[i].clone(),
                        Step::Value(i) => node = node.entries()[i].1.clone(),
                        Step::KeyName(i) => name = Some(node.entries()[i].0.name.clone()),
                    }
                }
                let back = match name {
                    Some(n) => Ok(n),
                    None => read_string(&node),
                };
                if back.as_deref() != Ok(s) {
                    return Err(format!("{reader} reader reads {text:?} as {back:?}"));
                }
            }
        }
    }
    Ok(())
}

#[test]
fn every_ambiguous_scalar_reads_back_as_the_same_string() {
    let failures: Vec<String> = AMBIGUOUS_SCALARS
        .iter()
        .filter_map(|s| check_reads_back(s).err())
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_reference_rules_catch_what_they_should() {
    // The checks above can fail: each rule rejects what it names.
    assert_eq!(yaml12_core_non_string("~"), Some("null"));
    assert_eq!(yaml12_core_non_string("0o10"), Some("int"));
    assert_eq!(yaml12_core_non_string("yes"), None);
    assert_eq!(yaml11_non_string("yes"), Some("bool"));
    assert_eq!(yaml11_non_string("1_000"), Some("int"));
    assert_eq!(yaml11_non_string(".5"), Some("float"));
    assert_eq!(yaml11_non_string("."), None);
    assert_eq!(yaml11_non_string("1e3"), None);
    assert!(strtod_reads_a_number("nan(1)") && strtod_reads_a_number("Infinity"));
    assert!(
        !plain_syntax_ok("a: b", false) && !plain_syntax_ok("a,b", true) && !plain_syntax_ok("*a", false)
    );
    assert!(check_reads_back("plain").is_ok());
}

#[test]
fn plain_strings_stay_plain() {
    for s in [
        "link1",
        "link 1",
        "../mesh.obj",
        "a(b)",
        "a+b",
        "_x",
        "Body",
        "left-arm.v2",
    ] {
        assert_eq!(string(s), s);
    }
    assert_eq!(quote("a\u{2028}b"), "\"a\\u2028b\"");
}

#[test]
fn numbers_and_floats_are_written_as_numbers() {
    assert_eq!(number(1.0), "1");
    assert_eq!(number(-0.0), "-0");
    assert_eq!(float(1.0), "1.0");
    assert_eq!(float(f64::NAN), ".nan");
    assert_eq!(float(f64::INFINITY), ".inf");
    assert_eq!(number(1e-300), "1e-300");
}

proptest! {
    /// Every finite number (the IR holds no others: validation refuses them, and both readers
    /// refuse `.inf` and `.nan`).
    #[test]
    fn numbers_read_back_bit_for_bit(x in proptest::num::f64::NORMAL | proptest::num::f64::SUBNORMAL | proptest::num::f64::ZERO) {
        for written in [number(x), float(x)] {
            let text = format!("a: {written}\nb: [{written}]\n");
            for (_, options) in reader_settings() {
                let root = mbconv_yaml::parse(&Source::from_string("n.yaml", text.clone()), "t.yaml", options).unwrap();
                for node in [root.get("a").unwrap(), &root.get("b").unwrap().items()[0]] {
                    prop_assert_eq!(node.as_f64().unwrap().to_bits(), x.to_bits(), "{}", written);
                }
            }
        }
    }

    #[test]
    fn strings_read_back(s in "[ -~]{0,12}|\\PC{0,6}|[\\x00-\\x1f\\x7f-\\u{a0}\\u{2028}\\u{feff}a: #-]{0,6}") {
        prop_assert_eq!(check_reads_back(&s), Ok(()));
    }
}
