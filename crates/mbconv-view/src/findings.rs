//! Findings as the page lists them: each with the body, joint or group its IR path names, so
//! that a click on it selects that item.

use crate::data::FindingData;
use mbconv_ir::report::path;
use mbconv_ir::{Finding, Model};

/// Whose items a finding's path names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The original model's (reading, validation, lowering and emitting findings).
    Original,
    /// The conversion's read-back model's (the read-back findings).
    Conversion,
}

impl Side {
    fn name(self) -> &'static str {
        match self {
            Side::Original => "original",
            Side::Conversion => "conversion",
        }
    }
}

/// The IR paths of `model`'s bodies, joints and groups.
pub(crate) fn item_paths(model: &Model) -> Vec<String> {
    let bodies = model.bodies.iter().map(|b| path::item("bodies", &b.name));
    let joints = model.joints.iter().map(|j| path::item("joints", &j.name));
    let groups = model.groups.iter().map(|g| path::item("groups", &g.name));
    bodies.chain(joints).chain(groups).collect()
}

/// The longest of `items` that starts `finding_path` and ends where a path element ends.
pub(crate) fn named_item<'i>(finding_path: &str, items: &'i [String]) -> Option<&'i String> {
    items
        .iter()
        .filter(|item| {
            finding_path
                .strip_prefix(item.as_str())
                .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']))
        })
        .max_by_key(|item| item.len())
}

/// `finding` for the page, its item looked up among `items` (the paths of `side`'s model).
pub(crate) fn finding_data(finding: &Finding, side: Side, items: &[String]) -> FindingData {
    let span = finding.span.as_ref();
    FindingData {
        severity: finding.severity.to_string(),
        category: serde_json::to_value(finding.category)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default(),
        code: finding.code.clone(),
        message: finding.message.clone(),
        path: finding.path.clone(),
        item: finding
            .path
            .as_deref()
            .and_then(|p| named_item(p, items))
            .cloned(),
        scene: side.name(),
        file: finding.file.clone(),
        line: span.map(|s| s.line),
        column: span.map(|s| s.column),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_longest_whole_item_path_is_named() {
        let items = vec![r#"bodies["a"]"#.to_owned(), r#"bodies["ab"]"#.to_owned()];
        assert_eq!(named_item(r#"bodies["ab"].shapes[0]"#, &items), Some(&items[1]));
        assert_eq!(named_item(r#"bodies["a"]"#, &items), Some(&items[0]));
        assert_eq!(named_item(r#"joints["a"]"#, &items), None);
    }
}
