//! The URDF document as text: the shared XML layer with URDF's dialect (root `<robot>`, error
//! codes `urdf.*`), and the refusal of xacro sources, which must be expanded first.

use mbconv_ir::format::Source;
use mbconv_ir::format::kit::SourceResult;
use mbconv_xml::{Dialect, Document, Node};

/// URDF for the XML layer.
pub(crate) const URDF: Dialect = Dialect {
    root: "robot",
    prefix: "urdf",
    name: "URDF",
    numbers: mbconv_xml::Numbers::CxxStream,
};

/// The hint every xacro refusal gives.
const XACRO_HELP: &str =
    "expand the xacro macros first: `xacro robot.urdf.xacro > robot.urdf`, then convert robot.urdf";

/// xacro's own elements (`<xacro:macro>`, `<xacro:property>`, ...): a file that has one is a
/// xacro source, to be expanded. Any other `<xacro:NAME>` calls a macro.
const XACRO_DIRECTIVES: [&str; 10] = [
    "arg",
    "attribute",
    "call",
    "element",
    "if",
    "include",
    "insert_block",
    "macro",
    "property",
    "unless",
];

/// True for an element in the xacro namespace (under any prefix) or named `xacro:...`.
pub(crate) fn is_xacro_element(node: Node) -> bool {
    node.is_element()
        && (node
            .tag_name()
            .namespace()
            .is_some_and(|ns| ns.contains("wiki/xacro"))
            || mbconv_xml::qualified_name(node).starts_with("xacro:"))
}

/// Parses `source` as a URDF document, refusing xacro sources: a `.xacro` file name, or a
/// xacro directive (`<xacro:macro>`, `<xacro:property>`, `<xacro:include>`, ...) under any
/// prefix. A file xacro wrote that still holds calls of macros it did not define (old xacro
/// versions left them) is read: urdfdom skips those elements (see `import`).
pub(crate) fn parse(source: &Source) -> SourceResult<Document<'_>> {
    let text = source.text.as_str();
    let named_xacro = source
        .path
        .as_ref()
        .and_then(|p| p.extension())
        .is_some_and(|e| e.eq_ignore_ascii_case("xacro"))
        || source.name.to_ascii_lowercase().ends_with(".xacro");
    let mut from = 0;
    while let Some(at) = find_outside_comments(&text[from..], "<xacro:").map(|a| from + a) {
        let name: String = text[at + "<xacro:".len()..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'))
            .collect();
        if XACRO_DIRECTIVES.contains(&name.as_str()) {
            return Err(xacro(
                source,
                at,
                "<xacro:".len() + name.len(),
                "this is a xacro file (it has <xacro:...> elements), not URDF",
            ));
        }
        from = at + 1;
    }
    if named_xacro {
        let start = text.find('<').unwrap_or(0);
        return Err(xacro(
            source,
            start,
            1,
            "this is a xacro file (`.xacro`), not URDF",
        ));
    }
    let document = URDF.parse(source)?;
    if let Some(node) = document
        .descendants()
        .find(|n| is_xacro_element(*n) && XACRO_DIRECTIVES.contains(&n.tag_name().name()))
    {
        let span = mbconv_xml::span_of_node(source, node);
        return Err(xacro(
            source,
            span.offset,
            span.length,
            "this is a xacro file (it has elements in the xacro namespace), not URDF",
        ));
    }
    Ok(document)
}

/// `source` as urdfdom's XML parser (tinyxml2) reads it, when that differs from XML: an XML
/// declaration after whitespace blanked in place (same length, so positions stay true), and
/// namespace prefixes used without a declaration declared on the root element
/// ([`mbconv_xml::tolerated`]). `None` when the source has neither.
pub(crate) fn tolerated(source: &Source) -> Option<Source> {
    let blanked = mbconv_xml::tolerated::late_declaration(&source.text).map(|(start, length)| {
        let mut text = source.text.clone();
        text.replace_range(start..start + length, &" ".repeat(length));
        Source::from_string(source.name.clone(), text).with_path(source.name.clone(), source.path.clone())
    });
    let base = blanked.as_ref().unwrap_or(source);
    match mbconv_xml::tolerated::declare_undeclared_prefixes(base) {
        Some((declared, _)) => Some(declared),
        None => blanked,
    }
}

fn xacro(
    source: &Source,
    offset: usize,
    length: usize,
    message: &str,
) -> Box<mbconv_ir::format::SourceError> {
    let error = URDF.error(source, "xacro", Some(source.span(offset, length)), message);
    Box::new(error.with_help(XACRO_HELP))
}

/// The first offset of `needle` in `text` that is not inside an XML comment.
fn find_outside_comments(text: &str, needle: &str) -> Option<usize> {
    let mut from = 0;
    loop {
        let hit = from + text[from..].find(needle)?;
        let comment = text[from..hit].rfind("<!--").map(|c| from + c);
        match comment {
            Some(open) if !text[open..hit].contains("-->") => {
                from = hit + text[hit..].find("-->").map_or(text.len() - hit, |e| e + 3);
                if from >= text.len() {
                    return None;
                }
            }
            _ => return Some(hit),
        }
    }
}

/// True when the first element of `text` (after the XML declaration, comments and a
/// DOCTYPE) is `<robot`.
pub(crate) fn root_is_robot(text: &str) -> bool {
    let mut rest = text.trim_start_matches('\u{feff}');
    loop {
        rest = rest.trim_start();
        if let Some(after) = rest.strip_prefix("<?") {
            match after.find("?>") {
                Some(end) => rest = &after[end + 2..],
                None => return false,
            }
        } else if let Some(after) = rest.strip_prefix("<!--") {
            match after.find("-->") {
                Some(end) => rest = &after[end + 3..],
                None => return false,
            }
        } else if let Some(after) = rest.strip_prefix("<!") {
            match after.find('>') {
                Some(end) => rest = &after[end + 1..],
                None => return false,
            }
        } else {
            return rest
                .strip_prefix("<robot")
                .is_some_and(|r| r.starts_with(|c: char| c.is_whitespace() || c == '>' || c == '/'));
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn xacro_is_refused_with_the_hint() {
        let src = Source::from_string(
            "r.urdf",
            "<robot name=\"r\" xmlns:xacro=\"http://www.ros.org/wiki/xacro\">\n  <xacro:property name=\"a\" value=\"1\"/>\n</robot>",
        );
        let e = parse(&src).unwrap_err();
        assert_eq!(e.code, "urdf.xacro");
        assert!(e.to_string().starts_with("r.urdf:2:3: "), "{e}");
        assert!(
            e.help
                .as_deref()
                .unwrap()
                .contains("xacro robot.urdf.xacro > robot.urdf")
        );
        let src = Source::from_string(
            "r.urdf",
            "<robot name=\"r\" xmlns:x=\"http://ros.org/wiki/xacro\">\n<x:include filename=\"a\"/></robot>",
        );
        assert_eq!(parse(&src).unwrap_err().code, "urdf.xacro");
        let src = Source::from_string(
            "r.urdf",
            "<robot name=\"r\"><!-- <xacro:a/> --><link name=\"a\"/></robot>",
        );
        assert!(parse(&src).is_ok());
        assert_eq!(find_outside_comments("<!-- <x: --> <x:", "<x:"), Some(13));
        let src = Source::from_string("r.urdf.xacro", "<robot name=\"r\"/>");
        assert_eq!(parse(&src).unwrap_err().code, "urdf.xacro");
        // A file xacro wrote with a call of a macro it did not define left in it: URDF.
        let src = Source::from_string(
            "r.urdf",
            "<robot name=\"r\" xmlns:xacro=\"http://ros.org/wiki/xacro\"><xacro:grey/><link name=\"a\"/></robot>",
        );
        assert!(parse(&src).is_ok());
        // An expanded file keeps the namespace declaration: it is URDF.
        let src = Source::from_string(
            "r.urdf",
            "<robot name=\"r\" xmlns:xacro=\"http://ros.org/wiki/xacro\"/>",
        );
        assert!(parse(&src).is_ok());
    }

    #[test]
    fn sniffing_looks_at_the_root_element() {
        assert!(root_is_robot("<robot name=\"a\">"));
        assert!(root_is_robot(
            "<?xml version=\"1.0\"?><!-- <skel> --><!DOCTYPE robot><robot/>"
        ));
        assert!(!root_is_robot("<robots/>"));
        assert!(!root_is_robot("<mujoco><robot/></mujoco>"));
        assert!(!root_is_robot("<!-- unterminated"));
        assert!(root_is_robot(
            "<?xml version=\"1.0\"?>\n<!-- r -->\n<robot name=\"r\"/>"
        ));
        assert!(!root_is_robot("<skel version=\"1.0\"/>"));
    }
}
