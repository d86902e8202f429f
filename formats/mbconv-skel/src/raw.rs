//! The SKEL document as text: the shared XML layer (`mbconv-xml`) with SKEL's dialect (root
//! `<skel>`, error codes `skel.*`), plus SKEL's own refusal of the legacy pre-XML text format.
//! The free functions keep the importers' calls short.

use mbconv_ir::format::kit::SourceResult;
use mbconv_ir::format::{Source, SourceError};
use mbconv_xml::{Dialect, Document, Node};
pub(crate) use mbconv_xml::{child, children, elements, span_of_attribute, span_of_node, text};

/// SKEL for the XML layer.
pub(crate) const SKEL: Dialect = Dialect {
    root: "skel",
    prefix: "skel",
    name: "SKEL",
    numbers: mbconv_xml::Numbers::Stod,
};

/// Parses `source` as a SKEL XML document.
///
/// Refuses, with a positioned error: the legacy pre-XML text format, a DOCTYPE that declares
/// entities, malformed XML, and a root element other than `<skel>`.
pub(crate) fn parse(source: &Source) -> SourceResult<Document<'_>> {
    let text = source.text.as_str();
    let start = text.len() - text.trim_start_matches(['\u{feff}', ' ', '\t', '\r', '\n']).len();
    if !text[start..].starts_with('<') && is_legacy(&text[start..]) {
        return Err(legacy(source, start));
    }
    SKEL.parse(source)
}

/// True when the text reads like DART's legacy skeleton text format.
fn is_legacy(text: &str) -> bool {
    let head: String = text.chars().take(2000).collect();
    ["dofs", "node", "chain", "primitive", "mass"]
        .iter()
        .any(|word| head.contains(&format!("{word} {{")) || head.contains(&format!("{word}{{")))
}

fn legacy(source: &Source, start: usize) -> Box<SourceError> {
    let error = SKEL.error(
        source,
        "legacy_text_format",
        Some(source.span(start, 1)),
        "this is the legacy pre-XML DART skeleton text format (`dofs { ... }`, \
         `node ... { chain { ... } }`), not SKEL XML; DART's SkelParser refuses it and so \
         does mbconv",
    );
    Box::new(error.with_help("only XML files with a <skel> root element are SKEL files"))
}

/// The numbers of an element's text (any count).
pub(crate) fn numbers(source: &Source, node: Node) -> SourceResult<Vec<f64>> {
    SKEL.numbers(source, node)
}

/// Exactly `N` numbers.
pub(crate) fn fixed<const N: usize>(source: &Source, node: Node) -> SourceResult<[f64; N]> {
    SKEL.fixed::<N>(source, node)
}

/// One number.
pub(crate) fn scalar(source: &Source, node: Node) -> SourceResult<f64> {
    SKEL.scalar(source, node)
}

/// The number in child element `name`, when present.
pub(crate) fn child_scalar(source: &Source, node: Node, name: &str) -> SourceResult<Option<f64>> {
    SKEL.child_scalar(source, node, name)
}

/// The range bound in child element `name`, when present: `Some(None)` for an infinity on its
/// side (no bound), as DART keeps it.
pub(crate) fn child_bound(
    source: &Source,
    node: Node,
    name: &str,
    upper: bool,
) -> SourceResult<Option<Option<f64>>> {
    child(node, name)
        .map(|c| SKEL.bound(source, c, upper))
        .transpose()
}

/// A boolean written `1`, `0`, `true` or `false` (DART's `toBool`).
pub(crate) fn boolean(source: &Source, node: Node) -> SourceResult<bool> {
    SKEL.boolean(source, node)
}

/// A required attribute.
pub(crate) fn required_attribute<'a>(
    source: &Source,
    node: Node<'a, '_>,
    name: &str,
) -> SourceResult<&'a str> {
    SKEL.required_attribute(source, node, name)
}

/// A required child element.
pub(crate) fn required_child<'a, 'input>(
    source: &Source,
    node: Node<'a, 'input>,
    name: &str,
) -> SourceResult<Node<'a, 'input>> {
    SKEL.required_child(source, node, name)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn legacy_text_is_named_and_garbage_is_malformed_xml() {
        let src = Source::from_string("t.skel", "dofs {\n 3\n}\n");
        let e = parse(&src).unwrap_err();
        assert_eq!(e.code, "skel.legacy_text_format");
        assert!(e.to_string().starts_with("t.skel:1:1: "), "{e}");
        let e = parse(&Source::from_string("t.skel", "hello")).unwrap_err();
        assert_eq!(e.code, "skel.xml");
        assert!(e.to_string().contains("the <skel> element"), "{e}");
    }

    #[test]
    fn the_skel_root_is_required() {
        let e = parse(&Source::from_string("t.skel", "<robot/>")).unwrap_err();
        assert_eq!(e.code, "skel.root");
        assert!(parse(&Source::from_string("t.skel", "<skel/>")).is_ok());
    }
}
