//! The names and paths of a parsed root layer, checked before the `openusd` crate composes it.
//!
//! OpenUSD's text parser accepts only identifiers as prim names and only well-formed paths
//! (`</World/arm>`, `<../arm.physics:mass>`, `</A{look=red}B>`); the `openusd` crate (0.6) takes
//! any quoted string as a prim name and anything between `<` and `>` as a path, and composing a
//! path its own `Path::parent` cannot walk up (a prim named `a } b`: the parent of `/W/a } b` is
//! itself) recurses until the stack overflows, an abort no `catch_unwind` stops. So every prim
//! name, every spec's path and every path a field holds (relationship targets, connections,
//! inherits, specializes, references', payloads' and relocates' paths, `defaultPrim`) is
//! checked here against the grammar of SdfPath first, and the first one that is not well formed
//! is refused with the place it is written.

use openusd::sdf::{Path, SpecData, Value};
use std::collections::HashMap;

/// A name or path of the layer that is not well formed: what it is, and the text to look for
/// in the layer to locate it.
#[derive(Debug)]
pub(crate) struct IllFormed {
    /// The offending name or path, as the layer spells it.
    pub text: String,
    /// What it is and why it is refused.
    pub message: String,
}

/// The first ill-formed prim name or path among `specs` (in path order, so the answer does not
/// depend on the map's order), or `None`.
pub(crate) fn first_ill_formed(specs: &HashMap<Path, SpecData>) -> Option<IllFormed> {
    let mut sorted: Vec<(&Path, &SpecData)> = specs.iter().collect();
    sorted.sort_by(|a, b| a.0.as_str().cmp(b.0.as_str()));
    for (path, spec) in sorted {
        for (field, value) in &spec.fields {
            if let Some(bad) = ill_formed_field(field, value) {
                return Some(bad);
            }
        }
        if !path.is_abs_root() && !path.is_empty() && !well_formed(path.as_str(), false) {
            return Some(IllFormed {
                text: path.as_str().to_owned(),
                message: format!("the spec path {:?} is not a well-formed USD path", path.as_str()),
            });
        }
    }
    None
}

/// The ill-formed name or path the field `field` holds, if any.
fn ill_formed_field(field: &str, value: &Value) -> Option<IllFormed> {
    let bad_path = |p: &Path, relative: bool| -> Option<IllFormed> {
        let text = p.as_str();
        (!well_formed(text, relative)).then(|| IllFormed {
            text: text.to_owned(),
            message: format!("{} {text:?} is not a well-formed USD path", what(field)),
        })
    };
    match (field, value) {
        ("primChildren", Value::TokenVec(names)) => names.iter().map(|n| n.as_str()).find_map(|name| {
            (!is_identifier(name)).then(|| IllFormed {
                text: name.to_owned(),
                message: format!(
                    "the prim name {name:?} is not an identifier: a prim name is a letter or `_` followed by letters, digits and `_`"
                ),
            })
        }),
        ("defaultPrim", Value::Token(name)) => {
            let name = name.as_str();
            (!name.is_empty() && !well_formed(name, true)).then(|| IllFormed {
                text: name.to_owned(),
                message: format!("`defaultPrim` is {name:?}, which is not a prim name or path"),
            })
        }
        (_, Value::PathListOp(list)) => list
            .iter()
            .chain(&list.deleted_items)
            .chain(&list.ordered_items)
            .find_map(|p| bad_path(p, true)),
        (_, Value::PathVec(paths)) => paths.iter().find_map(|p| bad_path(p, true)),
        (_, Value::ReferenceListOp(list)) => list
            .iter()
            .filter(|r| !r.prim_path.is_empty())
            .find_map(|r| bad_path(&r.prim_path, false)),
        (_, Value::PayloadListOp(list)) => list
            .iter()
            .filter(|p| !p.prim_path.is_empty())
            .find_map(|p| bad_path(&p.prim_path, false)),
        (_, Value::Payload(p)) if !p.prim_path.is_empty() => bad_path(&p.prim_path, false),
        (_, Value::Relocates(pairs)) => pairs
            .iter()
            .find_map(|(from, to)| bad_path(from, true).or_else(|| bad_path(to, true))),
        _ => None,
    }
}

/// What the field `field` holds, in words.
fn what(field: &str) -> String {
    match field {
        "targetPaths" => "the relationship target".to_owned(),
        "connectionPaths" => "the attribute connection".to_owned(),
        "inheritPaths" => "the inherited path".to_owned(),
        "specializes" => "the specialized path".to_owned(),
        "references" => "the referenced prim path".to_owned(),
        "payload" => "the payload's prim path".to_owned(),
        "layerRelocates" | "relocates" => "the relocated path".to_owned(),
        other => format!("the path in `{other}`"),
    }
}

/// True for a USD identifier: a letter (any script) or `_`, then letters, digits and `_`.
pub(crate) fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_')
}

/// A namespaced property name: identifiers joined by `:`.
fn is_property_name(name: &str) -> bool {
    name.split(':').all(is_identifier)
}

/// A variant set or variant name: letters, digits, `_`, `|` and `-` (a variant may be empty in
/// a selection, `{look=}`).
fn is_variant_name(name: &str) -> bool {
    name.chars()
        .all(|c| c.is_alphanumeric() || matches!(c, '_' | '|' | '-'))
}

/// True when `text` is a well-formed SdfPath: absolute (`/A/B{set=sel}C.prop`), or, with
/// `relative`, relative to a prim (`B`, `../B`, `.prop`, `..`). A property may carry a target
/// path (`.rel[/A].attr`).
pub(crate) fn well_formed(text: &str, relative: bool) -> bool {
    if text == "/" {
        return true;
    }
    let (mut rest, mut need_element) = match text.strip_prefix('/') {
        Some(rest) => (rest, true),
        None if relative => {
            let mut rest = text;
            let mut walked = false;
            while let Some(after) = rest.strip_prefix("..") {
                walked = true;
                match after.strip_prefix('/') {
                    Some(more) if !more.is_empty() => rest = more,
                    _ => {
                        rest = after;
                        break;
                    }
                }
            }
            if rest.is_empty() {
                return walked;
            }
            if let Some(property) = rest.strip_prefix('.') {
                return property_part(property);
            }
            (rest, true)
        }
        None => return false,
    };
    // Prim elements, each followed by any variant selections; `/` between elements (none after
    // a selection), then at most one property.
    loop {
        if need_element {
            let end = rest.find(['/', '{', '.']).unwrap_or(rest.len());
            if !is_identifier(&rest[..end]) {
                return false;
            }
            rest = &rest[end..];
        }
        let mut after_selection = false;
        while let Some(inner) = rest.strip_prefix('{') {
            let Some(close) = inner.find('}') else {
                return false;
            };
            let Some((set, variant)) = inner[..close].split_once('=') else {
                return false;
            };
            if set.is_empty() || !is_variant_name(set) || !is_variant_name(variant) {
                return false;
            }
            rest = &inner[close + 1..];
            after_selection = true;
        }
        match rest.as_bytes().first() {
            None => return true,
            Some(b'/') => {
                rest = &rest[1..];
                need_element = true;
            }
            Some(b'.') => return property_part(&rest[1..]),
            Some(_) if after_selection => need_element = true,
            Some(_) => return false,
        }
    }
}

/// The part of a path after a prim's `.`: a property name, then optionally a target path in
/// brackets and one more property (`rel[/A/B].attr`).
fn property_part(text: &str) -> bool {
    match text.split_once('[') {
        None => is_property_name(text),
        Some((name, tail)) => {
            let Some(close) = tail.rfind(']') else {
                return false;
            };
            let after = &tail[close + 1..];
            is_property_name(name)
                && well_formed(&tail[..close], false)
                && (after.is_empty() || after.strip_prefix('.').is_some_and(is_property_name))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn well_formed_paths_pass_and_broken_ones_do_not() {
        for ok in [
            "/",
            "/World",
            "/World/arm",
            "/World/arm.physics:mass",
            "/A{look=red}B",
            "/A{look=}",
            "/A{look=red}{size=big}B/C",
            "/Wörld/bras",
            "/A.rel[/B/C].attr",
        ] {
            assert!(well_formed(ok, false), "{ok}");
        }
        for ok in ["arm", "../arm", "..", "../..", ".physics:mass", "a/b.c"] {
            assert!(well_formed(ok, true), "{ok}");
        }
        for bad in [
            "",
            "//A",
            "/A/",
            "/A } b",
            "/W/gripbinding:physics = </W/rubber>\n}",
            "/A{look}",
            "/A{=x}",
            "/1a",
            "/A.",
            "/A.b.c",
            "/A/../B",
            "arm",
            "/A}",
        ] {
            assert!(!well_formed(bad, false), "{bad:?}");
        }
        assert!(!well_formed("...", true));
        assert!(!well_formed("../", true));
    }

    #[test]
    fn identifiers() {
        assert!(is_identifier("_a1"));
        assert!(is_identifier("bras"));
        assert!(!is_identifier("1a"));
        assert!(!is_identifier("a b"));
        assert!(!is_identifier(""));
    }
}
