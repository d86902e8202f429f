//! What tinyxml2, the XML parser of urdfdom (Pinocchio), libsdformat, Drake and MuJoCo, reads
//! although XML forbids it and roxmltree refuses it, made readable without moving what the
//! readers point at:
//!
//! * an XML declaration after whitespace ([`late_declaration`]), blanked in place by the
//!   readers;
//! * namespace prefixes used without a declaration (`<sensor:camera>` in a URDF `<gazebo>`
//!   block, `<gz:system_priority>` in an SDFormat `<plugin>`), which tinyxml2, knowing no
//!   namespaces, reads as part of the name: [`declare_undeclared_prefixes`] declares them on the
//!   root element.

use mbconv_ir::format::Source;
use std::collections::BTreeSet;

/// The span (offset, length) of an XML declaration that whitespace precedes.
///
/// ```
/// assert_eq!(mbconv_xml::tolerated::late_declaration("\n<?xml version=\"1.0\"?><r/>"), Some((1, 21)));
/// assert_eq!(mbconv_xml::tolerated::late_declaration("<?xml version=\"1.0\"?><r/>"), None);
/// ```
pub fn late_declaration(text: &str) -> Option<(usize, usize)> {
    let start = text.len() - text.trim_start().len();
    let end = text[start..].strip_prefix("<?xml")?.find("?>")? + start + "<?xml".len() + 2;
    let whitespace = text[..start].trim_start_matches('\u{feff}');
    (!whitespace.is_empty()).then_some((start, end - start))
}

/// The start of the namespace URI given to a prefix `P` the file uses without declaring it
/// (`urn:mbconv:undeclared-prefix:P`).
pub const UNDECLARED_PREFIX_URI: &str = "urn:mbconv:undeclared-prefix";

/// `source` with a declaration (`xmlns:P="urn:mbconv:undeclared-prefix:P"`) added at the end of
/// the root element's start tag for each prefix `P` an element or attribute name uses that no
/// `xmlns:P` of the file declares, and those prefixes (sorted); `None` when there is none.
///
/// The declarations go on the root start tag's last line, so the line and column of every
/// other element stay true.
///
/// ```
/// use mbconv_ir::format::Source;
/// let source = Source::from_string("r.urdf", "<robot name=\"r\">\n  <gazebo><sensor:camera/></gazebo>\n</robot>");
/// let (declared, prefixes) = mbconv_xml::tolerated::declare_undeclared_prefixes(&source).unwrap();
/// assert_eq!(prefixes, ["sensor"]);
/// assert!(declared.text.starts_with("<robot name=\"r\" xmlns:sensor=\"urn:mbconv:undeclared-prefix:sensor\">\n"));
/// assert!(roxmltree::Document::parse(&declared.text).is_ok());
/// ```
pub fn declare_undeclared_prefixes(source: &Source) -> Option<(Source, Vec<String>)> {
    let text = source.text.as_str();
    let mut used = BTreeSet::new();
    let mut declared = BTreeSet::new();
    let mut root_end = None;
    let mut at = 0;
    while let Some(open) = text[at..].find('<').map(|o| at + o) {
        let rest = &text[open..];
        let skip_to = |end: &str| rest.find(end).map_or(text.len(), |e| open + e + end.len());
        if rest.starts_with("<!--") {
            at = skip_to("-->");
        } else if rest.starts_with("<![CDATA[") {
            at = skip_to("]]>");
        } else if rest.starts_with("<?") {
            at = skip_to("?>");
        } else if rest.starts_with("<!") {
            at = skip_to(">");
        } else {
            let end = tag_end(text, open);
            let tag = &text[open + 1..end];
            let tag = tag.strip_prefix('/').unwrap_or(tag);
            names(tag, &mut used, &mut declared);
            if root_end.is_none() && !text[open + 1..].starts_with('/') {
                root_end = Some(end);
            }
            at = (end + 1).min(text.len());
        }
    }
    let missing: Vec<String> = used
        .difference(&declared)
        .filter(|p| !matches!(p.as_str(), "xml" | "xmlns"))
        .cloned()
        .collect();
    let root_end = root_end?;
    if missing.is_empty() {
        return None;
    }
    // Before `>` or `/>` of the root start tag.
    let insert = if text[..root_end].ends_with('/') {
        root_end - 1
    } else {
        root_end
    };
    let declarations: String = missing
        .iter()
        .map(|p| format!(" xmlns:{p}=\"{UNDECLARED_PREFIX_URI}:{p}\""))
        .collect();
    let mut out = String::with_capacity(text.len() + declarations.len());
    out.push_str(&text[..insert]);
    out.push_str(&declarations);
    out.push_str(&text[insert..]);
    let tolerated =
        Source::from_string(source.name.clone(), out).with_path(source.name.clone(), source.path.clone());
    Some((tolerated, missing))
}

/// The prefixes of `document` that [`declare_undeclared_prefixes`] declared, each with the first
/// element whose name or one of whose attributes uses it, in document order.
pub fn undeclared_prefix_uses<'a, 'input>(
    document: &'a roxmltree::Document<'input>,
) -> Vec<(String, roxmltree::Node<'a, 'input>)> {
    let prefix_of = |uri: Option<&str>| {
        uri.and_then(|u| u.strip_prefix(UNDECLARED_PREFIX_URI))
            .and_then(|p| p.strip_prefix(':'))
            .map(str::to_owned)
    };
    let mut uses: Vec<(String, roxmltree::Node)> = Vec::new();
    for node in document.descendants().filter(roxmltree::Node::is_element) {
        let names =
            std::iter::once(node.tag_name().namespace()).chain(node.attributes().map(|a| a.namespace()));
        for prefix in names.filter_map(prefix_of) {
            if !uses.iter().any(|(p, _)| *p == prefix) {
                uses.push((prefix, node));
            }
        }
    }
    uses
}

/// The offset of the `>` that closes the tag opened at `open` (quotes skipped), or the end of
/// the text.
fn tag_end(text: &str, open: usize) -> usize {
    let mut quote = None;
    for (i, c) in text[open..].char_indices() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '>') => return open + i,
            _ => {}
        }
    }
    text.len()
}

/// Adds the prefixes the names of one tag (`name attr="v" p:attr='w'`, without `<` and `>`)
/// use to `used`, and those its `xmlns:P` attributes declare to `declared`.
fn names(tag: &str, used: &mut BTreeSet<String>, declared: &mut BTreeSet<String>) {
    let mut rest = tag;
    let mut first = true;
    loop {
        rest = rest.trim_start_matches(|c: char| c.is_whitespace() || c == '/');
        let len = rest
            .find(|c: char| c.is_whitespace() || matches!(c, '=' | '/' | '>'))
            .unwrap_or(rest.len());
        if len == 0 {
            return;
        }
        let name = &rest[..len];
        if let Some((prefix, local)) = name.split_once(':') {
            if prefix == "xmlns" && !first {
                declared.insert(local.to_owned());
            } else {
                used.insert(prefix.to_owned());
            }
        }
        rest = &rest[len..];
        if first {
            first = false;
            continue;
        }
        // The attribute's value: `= "..."` or `= '...'`.
        rest = rest.trim_start();
        let Some(value) = rest.strip_prefix('=') else {
            continue;
        };
        let value = value.trim_start();
        let Some(quote) = value.chars().next().filter(|c| matches!(c, '"' | '\'')) else {
            return;
        };
        match value[1..].find(quote) {
            Some(close) => rest = &value[close + 2..],
            None => return,
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn declare(text: &str) -> Option<(String, Vec<String>)> {
        declare_undeclared_prefixes(&Source::from_string("t.xml", text)).map(|(s, p)| (s.text, p))
    }

    #[test]
    fn declared_prefixes_and_plain_files_are_left_alone() {
        assert_eq!(declare("<robot name=\"r\"><link name=\"a\"/></robot>"), None);
        assert_eq!(
            declare("<robot xmlns:gazebo=\"u\"><gazebo:x gazebo:a=\"1\"/><a xml:lang=\"en\"/></robot>"),
            None
        );
        // Comments, CDATA and processing instructions are not markup.
        assert_eq!(
            declare("<?xml version=\"1.0\"?><!-- <a:b/> --><r><![CDATA[<c:d>]]></r>"),
            None
        );
    }

    #[test]
    fn undeclared_prefixes_of_elements_and_attributes_are_declared_on_the_root() {
        let (text, prefixes) = declare(
            "<?xml version=\"1.0\"?>\n<sdf version=\"1.9\">\n<gz:a q:x='1 > 0' b=\"2\"></gz:a></sdf>",
        )
        .unwrap();
        assert_eq!(prefixes, ["gz", "q"]);
        assert_eq!(
            text.lines().nth(1).unwrap(),
            "<sdf version=\"1.9\" xmlns:gz=\"urn:mbconv:undeclared-prefix:gz\" xmlns:q=\"urn:mbconv:undeclared-prefix:q\">"
        );
        let document = roxmltree::Document::parse(&text).unwrap();
        let a = document.root_element().first_element_child().unwrap();
        assert_eq!(a.tag_name().name(), "a");
        assert_eq!(a.range().start, text.find("<gz:a").unwrap());
        let uses: Vec<(String, usize)> = undeclared_prefix_uses(&document)
            .into_iter()
            .map(|(p, n)| (p, n.range().start))
            .collect();
        assert_eq!(
            uses,
            [
                ("gz".to_owned(), a.range().start),
                ("q".to_owned(), a.range().start)
            ]
        );
        // A root without children: the declaration goes before `/>`.
        let (text, _) = declare("<r p:a=\"1\"/>").unwrap();
        assert_eq!(text, "<r p:a=\"1\" xmlns:p=\"urn:mbconv:undeclared-prefix:p\"/>");
    }
}
