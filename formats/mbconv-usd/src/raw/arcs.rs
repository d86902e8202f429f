//! Inherit and specialize arcs of the root layer that a prim's ancestor already brings it.
//!
//! `/World/env_1/Robot` inheriting `</World/env_0/Robot>` where `/World/env_1` inherits
//! `</World/env_0>` (the pattern of Newton's `ant_multi.usda`, environments cloned from
//! `env_0`) states an arc its ancestor's arc already implies: OpenUSD composes the class once,
//! so the composed stage is the same with or without the prim's own arc. The `openusd`
//! 0.6 crate does not finish composing it: pre-caching the prim's inherit targets
//! (`precache_inherit_targets`, `pcp/index_cache.rs`) maps the target through the ancestor's
//! arc back onto the prim itself and recurses on it with no end, overflowing the stack. The
//! reader finds such arcs in the root layer's specs and blanks their statements in the text it
//! hands the crate (spaces in place of the characters, so that every other place in the text
//! stays where it was); an arc it cannot find alone in the text is refused, located.

use openusd::sdf::{Path, SpecData, SpecType, Value};
use std::collections::HashMap;

/// An inherit or specialize arc of a prim that its ancestor's own arc already brings it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RedundantArc {
    /// The prim that states the arc.
    pub prim: String,
    /// The arc's field in the layer: `inheritPaths` or `specializes`.
    pub field: &'static str,
    /// The arc's target, absolute.
    pub target: String,
    /// The target as the layer writes it (relative or absolute).
    pub written: String,
    /// The ancestor whose own arc implies it.
    pub ancestor: String,
    /// The target of the ancestor's arc.
    pub class: String,
}

impl RedundantArc {
    /// What the arc is, for a finding or a refusal.
    pub(crate) fn describe(&self) -> String {
        format!(
            "it {} {}, which its ancestor {} already brings it through its own arc to {}",
            keyword(self.field),
            self.target,
            self.ancestor,
            self.class
        )
    }
}

/// The absolute targets of the inherit and specialize arcs the spec at `path` states, by field.
fn arcs_of(specs: &HashMap<Path, SpecData>, path: &Path) -> Vec<(&'static str, String, String)> {
    let Some(spec) = specs.get(path) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (name, value) in &spec.fields {
        let field = match name.as_str() {
            "inheritPaths" => "inheritPaths",
            "specializes" => "specializes",
            _ => continue,
        };
        if let Value::PathListOp(list) = value {
            for target in list.flatten() {
                let absolute = path.make_absolute(&target).as_str().to_owned();
                out.push((field, absolute, target.as_str().to_owned()));
            }
        }
    }
    out
}

/// Every arc of the root layer's prims that the prim's ancestor's own arc already implies,
/// in path order.
pub(crate) fn redundant_arcs(specs: &HashMap<Path, SpecData>) -> Vec<RedundantArc> {
    let mut prims: Vec<&Path> = specs
        .iter()
        .filter(|(_, s)| s.ty == SpecType::Prim)
        .map(|(p, _)| p)
        .collect();
    prims.sort();
    let mut found = Vec::new();
    for path in prims {
        let own = arcs_of(specs, path);
        if own.is_empty() {
            continue;
        }
        let mut ancestor = path.parent();
        while let Some(a) = ancestor.filter(|a| a.as_str() != "/") {
            let below = &path.as_str()[a.as_str().len()..];
            for (_, class, _) in arcs_of(specs, &a) {
                let implied = format!("{class}{below}");
                for (field, target, written) in &own {
                    let arc = RedundantArc {
                        prim: path.as_str().to_owned(),
                        field,
                        target: target.clone(),
                        written: written.clone(),
                        ancestor: a.as_str().to_owned(),
                        class: class.clone(),
                    };
                    let known = found
                        .iter()
                        .any(|f: &RedundantArc| f.prim == arc.prim && f.target == arc.target);
                    if *target == implied && !known {
                        found.push(arc);
                    }
                }
            }
            ancestor = a.parent();
        }
    }
    found
}

/// The byte range of the block that opens at `open` (`(`, `[` or `{`) up to its matching
/// closing character, strings skipped.
fn block_end(bytes: &[u8], open: usize) -> Option<usize> {
    let (mut depth, mut i) = (0usize, open);
    while i < bytes.len() {
        match bytes[i] {
            quote @ (b'"' | b'\'') => {
                i += 1;
                while i < bytes.len() && bytes[i] != quote {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'<' => {
                while i < bytes.len() && bytes[i] != b'>' {
                    i += 1;
                }
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Replaces `range` of `text` by spaces, line breaks kept.
fn blank_range(text: &mut [u8], range: std::ops::Range<usize>) {
    for byte in &mut text[range] {
        if *byte != b'\n' && *byte != b'\r' {
            *byte = b' ';
        }
    }
}

/// The keyword of `field` in the text format.
fn keyword(field: &str) -> &'static str {
    if field == "specializes" {
        "specializes"
    } else {
        "inherits"
    }
}

/// Blanks `arc`'s target in the metadata of the prim whose quoted name ends at `name_end`:
/// the whole statement when the target is its only one, else the target and a comma beside
/// it. `false` when the statement is not found as written (a relative target, another form).
fn blank_arc(text: &mut [u8], name_end: usize, arc: &RedundantArc) -> bool {
    let mut i = name_end;
    while i < text.len() && text[i].is_ascii_whitespace() {
        i += 1;
    }
    if text.get(i) != Some(&b'(') {
        return false;
    }
    let Some(close) = block_end(text, i) else {
        return false;
    };
    let metadata = String::from_utf8_lossy(&text[i..close]).into_owned();
    let word = keyword(arc.field);
    let target = format!("<{}>", arc.written);
    let mut from = 0;
    while let Some(at) = metadata[from..].find(word).map(|k| from + k) {
        from = at + word.len();
        let before_ok = at == 0 || !metadata.as_bytes()[at - 1].is_ascii_alphanumeric();
        let rest = metadata[from..].trim_start();
        if !before_ok || !rest.starts_with('=') {
            continue;
        }
        let value_at = metadata.len() - rest[1..].trim_start().len();
        let value = &metadata[value_at..];
        let value_end = if value.starts_with('[') {
            match block_end(value.as_bytes(), 0) {
                Some(end) => value_at + end + 1,
                None => return false,
            }
        } else if value.starts_with('<') {
            match value.find('>') {
                Some(end) => value_at + end + 1,
                None => return false,
            }
        } else {
            return false;
        };
        let listed = &metadata[value_at..value_end];
        let copies = listed.matches(&target).count();
        if copies == 0 {
            continue;
        }
        if copies == listed.matches('<').count() {
            // the statement alone, with its list operation (prepend, append, add) before it
            let line_start = metadata[..at].rfind(['\n', '(', ';']).map_or(0, |n| n + 1);
            if !["", "prepend", "append", "add"].contains(&metadata[line_start..at].trim()) {
                return false;
            }
            blank_range(text, i + line_start..i + value_end);
            return true;
        }
        // each copy of the target in a list of others, with the comma after it (before it,
        // for the last)
        let mut searched = value_at;
        while let Some(k) = metadata[searched..value_end].find(&target) {
            let start = searched + k;
            let end = start + target.len();
            let after = &metadata[end..value_end];
            let range = match after.find(',').filter(|c| after[..*c].trim().is_empty()) {
                Some(comma) => start..end + comma + 1,
                None => match metadata[value_at..start].rfind(',') {
                    Some(comma) => value_at + comma..end,
                    None => return false,
                },
            };
            searched = range.end;
            blank_range(text, i + range.start..i + range.end);
        }
        return true;
    }
    false
}

/// `text` with every arc of `arcs` blanked, each found in the metadata of its prim's quoted
/// name (`name_end(prim)`: the byte after it in the root text); the first arc not found as
/// written is returned instead.
pub(crate) fn without_arcs<'a>(
    text: &str,
    arcs: &'a [RedundantArc],
    name_end: impl Fn(&str) -> Option<usize>,
) -> Result<String, &'a RedundantArc> {
    if arcs.is_empty() {
        return Ok(text.to_owned());
    }
    let mut bytes = text.as_bytes().to_vec();
    for arc in arcs {
        let found = name_end(&arc.prim).is_some_and(|end| blank_arc(&mut bytes, end, arc));
        if !found {
            return Err(arc);
        }
    }
    String::from_utf8(bytes).map_err(|_| &arcs[0])
}
