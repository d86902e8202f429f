//! The SKEL document as text: parsing the XML with positions, and reading typed values
//! (numbers, vectors, booleans) out of elements with errors that name file, line and column.

use mbconv_ir::format::kit::SourceResult;
use mbconv_ir::format::{Source, SourceError};
use mbconv_ir::report::SourceSpan;
use roxmltree::{Document, Node, ParsingOptions};

/// Parses `source` as a SKEL XML document.
///
/// Refuses, with a positioned error: the legacy pre-XML text format, a DOCTYPE that declares
/// entities, malformed XML, and a root element other than `<skel>`.
pub(crate) fn parse(source: &Source) -> SourceResult<Document<'_>> {
    let text = source.text.as_str();
    let start = text.len() - text.trim_start_matches(['\u{feff}', ' ', '\t', '\r', '\n']).len();
    if !text[start..].starts_with('<') {
        return Err(legacy_or_garbage(source, start));
    }
    if let Some(doctype) = text.find("<!DOCTYPE") {
        let end = text[doctype..].find('>').map_or(text.len(), |e| doctype + e);
        let declares_entities = text[doctype..].contains("<!ENTITY") || text[doctype..end].contains('[');
        if declares_entities {
            return Err(Box::new(
                source
                    .error(
                        "skel.doctype",
                        Some(source.span(doctype, "<!DOCTYPE".len())),
                        "a DOCTYPE with an internal subset or entity declarations is refused: \
                     SKEL files do not use entities, and expanding them is unsafe",
                    )
                    .with_help("remove the <!DOCTYPE ...> declaration and write the values out"),
            ));
        }
    }
    let options = ParsingOptions {
        allow_dtd: true,
        ..ParsingOptions::default()
    };
    let document = Document::parse_with_options(text, options).map_err(|e| {
        let pos = e.pos();
        let span = SourceSpan::at_line_column(text, pos.row as usize, pos.col as usize);
        Box::new(source.error("skel.xml", Some(span), format!("malformed XML: {e}")))
    })?;
    refuse_deep_nesting(source, &document)?;
    let root = document.root_element();
    if root.tag_name().name() != "skel" {
        return Err(Box::new(source.error(
            "skel.root",
            Some(span_of_node(source, root)),
            format!(
                "expected the root element <skel>, found <{}>",
                root.tag_name().name()
            ),
        )));
    }
    Ok(document)
}

/// The deepest element nesting accepted. SKEL files nest a dozen levels; the limit keeps the
/// readers, which walk elements recursively, far from the end of the stack.
pub(crate) const MAX_DEPTH: usize = 128;

/// Refuses a document nested deeper than [`MAX_DEPTH`], pointing at the first element too
/// deep. One walk with an explicit stack: linear, and no recursion however deep the file.
fn refuse_deep_nesting(source: &Source, document: &Document) -> SourceResult<()> {
    let mut stack = vec![(document.root(), 0usize)];
    while let Some((node, depth)) = stack.pop() {
        if depth > MAX_DEPTH {
            return Err(Box::new(source.error(
                "skel.xml",
                Some(span_of_node(source, node)),
                format!("elements nested deeper than {MAX_DEPTH} levels are refused"),
            )));
        }
        stack.extend(node.children().filter(Node::is_element).map(|c| (c, depth + 1)));
    }
    Ok(())
}

fn legacy_or_garbage(source: &Source, start: usize) -> Box<SourceError> {
    let head: String = source.text[start..].chars().take(2000).collect();
    let legacy = ["dofs", "node", "chain", "primitive", "mass"]
        .iter()
        .any(|word| head.contains(&format!("{word} {{")) || head.contains(&format!("{word}{{")));
    let span = Some(source.span(start, 1));
    if legacy {
        Box::new(
            source
                .error(
                    "skel.legacy_text_format",
                    span,
                    "this is the legacy pre-XML DART skeleton text format (`dofs { ... }`, \
                 `node ... { chain { ... } }`), not SKEL XML; DART's SkelParser refuses it and so \
                 does mbconv",
                )
                .with_help("only XML files with a <skel> root element are SKEL files"),
        )
    } else {
        Box::new(source.error(
            "skel.xml",
            span,
            "malformed XML: expected `<` (an XML declaration or the <skel> element)",
        ))
    }
}

/// The span of an element's start tag name (what an error about the element points at).
pub(crate) fn span_of_node(source: &Source, node: Node) -> SourceSpan {
    let range = node.range();
    let len = if node.is_element() {
        node.tag_name().name().len() + 1
    } else {
        range.len()
    };
    source.span(range.start, len.min(range.len()))
}

/// The span of an attribute's value, or of its element when the attribute is absent.
pub(crate) fn span_of_attribute(source: &Source, node: Node, name: &str) -> SourceSpan {
    match node.attribute_node(name) {
        Some(attr) => {
            let range = attr.range_value();
            source.span(range.start, range.len())
        }
        None => span_of_node(source, node),
    }
}

/// The first child element named `name`.
pub(crate) fn child<'a, 'input>(node: Node<'a, 'input>, name: &str) -> Option<Node<'a, 'input>> {
    node.children()
        .find(|c| c.is_element() && c.tag_name().name() == name)
}

/// All child elements named `name`, in document order.
pub(crate) fn children<'a, 'input: 'a>(
    node: Node<'a, 'input>,
    name: &'a str,
) -> impl Iterator<Item = Node<'a, 'input>> + 'a {
    node.children()
        .filter(move |c| c.is_element() && c.tag_name().name() == name)
}

/// All child elements, in document order.
pub(crate) fn elements<'a, 'input: 'a>(
    node: Node<'a, 'input>,
) -> impl Iterator<Item = Node<'a, 'input>> + 'a {
    node.children().filter(|c| c.is_element())
}

/// A whitespace-separated token of an element's text, with its byte offset in the file.
struct Token<'t> {
    text: &'t str,
    offset: usize,
}

/// The element's text tokens with file offsets. Text with entity or character references
/// falls back to the decoded text, all tokens pointing at the element.
fn tokens<'t>(source: &'t Source, node: Node<'t, 't>) -> Vec<Token<'t>> {
    let mut out = Vec::new();
    for text_node in node.children().filter(|c| c.is_text()) {
        let range = text_node.range();
        let raw = &source.text[range.clone()];
        if raw.contains('&') || raw.starts_with("<![CDATA[") {
            let decoded = text_node.text().unwrap_or_default();
            for token in decoded.split_ascii_whitespace() {
                out.push(Token {
                    text: token,
                    offset: node.range().start,
                });
            }
            continue;
        }
        let mut rest = raw;
        let mut offset = range.start;
        while let Some(first) = rest.find(|c: char| !c.is_ascii_whitespace()) {
            rest = &rest[first..];
            offset += first;
            let len = rest.find(|c: char| c.is_ascii_whitespace()).unwrap_or(rest.len());
            out.push(Token {
                text: &rest[..len],
                offset,
            });
            rest = &rest[len..];
            offset += len;
        }
    }
    out
}

/// The element's text, trimmed (empty when it has none).
pub(crate) fn text<'a>(node: Node<'a, '_>) -> String {
    node.children()
        .filter(|c| c.is_text())
        .filter_map(|c| c.text())
        .collect::<String>()
        .trim()
        .to_owned()
}

/// Parses one number token exactly (correctly rounded), or says what was expected.
fn number(source: &Source, token: &Token, what: &str) -> SourceResult<f64> {
    token.text.parse::<f64>().map_err(|_| {
        Box::new(source.error(
            "skel.number",
            Some(source.span(token.offset, token.text.len())),
            format!("expected a number in {what}, found {:?}", token.text),
        ))
    })
}

/// The numbers of an element's text (any count).
pub(crate) fn numbers(source: &Source, node: Node) -> SourceResult<Vec<f64>> {
    let what = format!("<{}>", node.tag_name().name());
    tokens(source, node)
        .iter()
        .map(|t| number(source, t, &what))
        .collect()
}

/// Exactly `N` numbers.
pub(crate) fn fixed<const N: usize>(source: &Source, node: Node) -> SourceResult<[f64; N]> {
    let values = numbers(source, node)?;
    values.as_slice().try_into().map_err(|_| {
        Box::new(source.error(
            "skel.count",
            Some(span_of_node(source, node)),
            format!(
                "<{}> needs {N} number{}, found {}",
                node.tag_name().name(),
                if N == 1 { "" } else { "s" },
                values.len()
            ),
        ))
    })
}

/// One number.
pub(crate) fn scalar(source: &Source, node: Node) -> SourceResult<f64> {
    Ok(fixed::<1>(source, node)?[0])
}

/// The number in child element `name`, when present.
pub(crate) fn child_scalar(source: &Source, node: Node, name: &str) -> SourceResult<Option<f64>> {
    child(node, name).map(|c| scalar(source, c)).transpose()
}

/// A boolean written `1`, `0`, `true` or `false` (DART's `toBool`).
pub(crate) fn boolean(source: &Source, node: Node) -> SourceResult<bool> {
    let value = text(node);
    match value.to_ascii_lowercase().as_str() {
        "1" | "true" => Ok(true),
        "0" | "false" => Ok(false),
        _ => Err(Box::new(source.error(
            "skel.bool",
            Some(span_of_node(source, node)),
            format!(
                "<{}> expects 1, 0, true or false, found {value:?}",
                node.tag_name().name()
            ),
        ))),
    }
}

/// A required attribute.
pub(crate) fn required_attribute<'a>(
    source: &Source,
    node: Node<'a, '_>,
    name: &str,
) -> SourceResult<&'a str> {
    node.attribute(name).ok_or_else(|| {
        Box::new(source.error(
            "skel.attribute",
            Some(span_of_node(source, node)),
            format!("<{}> needs the attribute `{name}`", node.tag_name().name()),
        ))
    })
}

/// A required child element.
pub(crate) fn required_child<'a, 'input>(
    source: &Source,
    node: Node<'a, 'input>,
    name: &str,
) -> SourceResult<Node<'a, 'input>> {
    child(node, name).ok_or_else(|| {
        Box::new(source.error(
            "skel.missing",
            Some(span_of_node(source, node)),
            format!("<{}> needs a <{name}> element", node.tag_name().name()),
        ))
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn source(text: &str) -> Source {
        Source::from_string("t.skel", text)
    }

    #[test]
    fn numbers_are_exact_and_errors_point_at_the_token() {
        let src = source("<skel>\n  <v> 0.1  -2e-3\t+4 </v>\n  <w>1 x 3</w>\n</skel>");
        let doc = parse(&src).unwrap();
        let v = child(doc.root_element(), "v").unwrap();
        assert_eq!(fixed::<3>(&src, v).unwrap(), [0.1, -0.002, 4.0]);
        let w = child(doc.root_element(), "w").unwrap();
        let e = numbers(&src, w).unwrap_err();
        assert_eq!(e.to_string(), "t.skel:3:8: expected a number in <w>, found \"x\"");
        let e = fixed::<2>(&src, v).unwrap_err();
        assert_eq!(e.to_string(), "t.skel:2:3: <v> needs 2 numbers, found 3");
    }

    #[test]
    fn booleans_and_entities() {
        let src = source("<skel><a>true</a><b>0</b><c>yes</c><d>1&#32;2</d></skel>");
        let doc = parse(&src).unwrap();
        let root = doc.root_element();
        assert!(boolean(&src, child(root, "a").unwrap()).unwrap());
        assert!(!boolean(&src, child(root, "b").unwrap()).unwrap());
        assert!(boolean(&src, child(root, "c").unwrap()).is_err());
        assert_eq!(numbers(&src, child(root, "d").unwrap()).unwrap(), vec![1.0, 2.0]);
    }

    #[test]
    fn doctype_without_entities_is_accepted() {
        let src = source("<?xml version=\"1.0\"?>\n<!DOCTYPE skel>\n<skel/>");
        assert!(parse(&src).is_ok());
    }
}
