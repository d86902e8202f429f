//! What tinyxml2, the XML parser of urdfdom (Pinocchio), libsdformat, Drake and MuJoCo, reads
//! although XML forbids it and roxmltree refuses it, made readable without moving what the
//! readers point at:
//!
//! * an XML declaration after whitespace ([`late_declaration`]), blanked in place by the
//!   readers;
//! * namespace prefixes used without a declaration (`<sensor:camera>` in a URDF `<gazebo>`
//!   block, `<gz:system_priority>` in an SDFormat `<plugin>`), which tinyxml2, knowing no
//!   namespaces, reads as part of the name: [`declare_undeclared_prefixes`] declares them on the
//!   root element;
//! * attributes that no whitespace separates from the previous attribute's value
//!   (`name="a"type="box"`): after a value tinyxml2 skips whitespace if there is any and reads
//!   the next name, where XML requires whitespace; [`separate_attributes`] inserts a space
//!   before each, and [`SeparatedAttributes`] maps positions in the text read back to the file;
//! * an end tag after the root element has closed (`</mujoco>` written twice at the end of
//!   Unitree's G1 scene): tinyxml2 ends the document there without an error and reads nothing
//!   after it; [`blank_after_stray_end_tag`] blanks it and the rest in place.

use mbconv_ir::format::kit::SourceResult;
use mbconv_ir::format::{Imported, Source, SourceError};
use mbconv_ir::report::{Category, Finding, Severity, SourceSpan};
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

/// `source` with everything from the first end tag that follows the root element's end (a
/// stray `</mujoco>` after `</mujoco>`) to the end of the text blanked in place (spaces, line
/// breaks kept, so every offset, line and column stays true), and the stray tag's span (offset,
/// length); `None` when there is no such tag.
///
/// XML allows only comments, processing instructions and whitespace after the root element.
/// tinyxml2 (MuJoCo's, urdfdom's and libsdformat's parser), meeting an end tag at the document's
/// level, ends the document there without an error and ignores what follows (measured with
/// MuJoCo 4.0: a scene ending in `</mujoco>\n</mujoco>` loads, the same as without the second).
///
/// ```
/// use mbconv_ir::format::Source;
/// let source = Source::from_string("s.xml", "<mujoco>\n</mujoco>\n</mujoco>\n<x/>");
/// let (blanked, span) = mbconv_xml::tolerated::blank_after_stray_end_tag(&source).unwrap();
/// assert_eq!(span, (19, 9));
/// assert_eq!(blanked.text, "<mujoco>\n</mujoco>\n         \n    ");
/// assert!(roxmltree::Document::parse(&blanked.text).is_ok());
/// assert!(mbconv_xml::tolerated::blank_after_stray_end_tag(&Source::from_string("a.xml", "<a><b/></a>\n<!-- </a> -->")).is_none());
/// ```
pub fn blank_after_stray_end_tag(source: &Source) -> Option<(Source, (usize, usize))> {
    let text = source.text.as_str();
    let mut depth = 0usize;
    let mut root_closed = false;
    let mut stray = None;
    for_each_tag(text, |open, end, tag| {
        if tag != Tag::Element || stray.is_some() {
            return;
        }
        let inner = &text[open + 1..end.min(text.len())];
        if inner.starts_with('/') {
            if root_closed {
                stray = Some((open, (end + 1).min(text.len()) - open));
                return;
            }
            depth = depth.saturating_sub(1);
            root_closed = depth == 0;
        } else if inner.ends_with('/') {
            root_closed |= depth == 0;
        } else {
            depth += 1;
        }
    });
    let (at, length) = stray?;
    // One space per byte blanked, so that the offsets after stay true.
    let blanked: String = text[..at]
        .chars()
        .chain(
            text[at..]
                .bytes()
                .map(|b| if b == b'\n' || b == b'\r' { b as char } else { ' ' }),
        )
        .collect();
    let source =
        Source::from_string(source.name.clone(), blanked).with_path(source.name.clone(), source.path.clone());
    Some((source, (at, length)))
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
    for_each_tag(text, |open, end, tag| {
        if tag == Tag::Element {
            let inner = &text[open + 1..end];
            names(inner.strip_prefix('/').unwrap_or(inner), &mut used, &mut declared);
            if root_end.is_none() && !inner.starts_with('/') {
                root_end = Some(end);
            }
        }
    });
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

/// A source with a space inserted before every attribute that follows the previous attribute's
/// value directly, and where: what [`separate_attributes`] makes.
#[derive(Clone, Debug)]
pub struct SeparatedAttributes {
    /// The text with the spaces inserted, under the original's name and path.
    pub source: Source,
    /// The byte offsets, in the original text, of the attributes a space was inserted before
    /// (ascending).
    pub places: Vec<usize>,
}

/// `source` with a space inserted before each attribute name that directly follows the closing
/// quote of the previous attribute's value in a start tag or in the XML declaration
/// (`<geom name="a"type="box"/>`), which XML forbids and tinyxml2 (MuJoCo, urdfdom, libsdformat,
/// Drake, DART) reads: after a value it skips whitespace, if any, and reads the next name (a
/// name starts with a letter, `_`, `:` or a non-ASCII character). Comments, CDATA sections,
/// other processing instructions and text are left alone. `None` when there is no such
/// attribute.
///
/// ```
/// use mbconv_ir::format::Source;
/// let source = Source::from_string("m.xml", "<mujoco>\n<geom name=\"a\"type=\"box\"/></mujoco>");
/// let separated = mbconv_xml::tolerated::separate_attributes(&source).unwrap();
/// assert_eq!(separated.places, [23]);
/// assert!(separated.source.text.contains("name=\"a\" type=\"box\""));
/// let document = roxmltree::Document::parse(&separated.source.text).unwrap();
/// let kind = document.root_element().first_element_child().unwrap().attribute_node("type").unwrap();
/// // Positions read in the separated text map back to the file.
/// let span = separated.original_span(&source, &separated.source.span(kind.range_value().start, 3));
/// assert_eq!((span.offset, span.line, span.column), (29, 2, 21));
/// assert_eq!(&source.text[span.offset..span.offset + span.length], "box");
/// ```
pub fn separate_attributes(source: &Source) -> Option<SeparatedAttributes> {
    let text = source.text.as_str();
    let mut places = Vec::new();
    for_each_tag(text, |open, end, _| {
        if !text[open..].starts_with("</") {
            values_followed_by_names(text, open, end, &mut places);
        }
    });
    if places.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(text.len() + places.len());
    let mut from = 0;
    for &place in &places {
        out.push_str(&text[from..place]);
        out.push(' ');
        from = place;
    }
    out.push_str(&text[from..]);
    let separated =
        Source::from_string(source.name.clone(), out).with_path(source.name.clone(), source.path.clone());
    Some(SeparatedAttributes {
        source: separated,
        places,
    })
}

/// Reads `source` with `read`, as [`separate_attributes`] makes it readable when it has
/// attributes not separated by whitespace: then `read` gets the separated text, and every
/// position of what it returns in that text (an error's, the findings' and the source map's) is
/// mapped back into `source`, and a warning `code` (severity warning, category note, IR path
/// `model`) at the first place names every place and `loader`, who reads them so, comes first
/// among the findings. An error about another file (an included one) is passed on as it is.
pub fn read_separating_attributes(
    source: &Source,
    code: &str,
    loader: &str,
    read: impl FnOnce(&Source) -> SourceResult<Imported>,
) -> SourceResult<Imported> {
    let Some(separated) = separate_attributes(source) else {
        return read(source);
    };
    let mut imported = read(&separated.source).map_err(|e| {
        if e.file == source.name {
            separated.original_error(source, e)
        } else {
            e
        }
    })?;
    separated.original_imported(source, &mut imported);
    let (span, message) = separated.warning(source, loader);
    let warning = Finding::new(code, Severity::Warning, Category::Note, message)
        .with_span(Some(span))
        .at("model");
    imported.report.findings.insert(0, warning);
    Ok(imported)
}

/// Adds to `places` the offset of each name start character that directly follows a quoted
/// value's closing quote in `text[open..end]` (one tag).
fn values_followed_by_names(text: &str, open: usize, end: usize, places: &mut Vec<usize>) {
    let mut quote = None;
    let mut closed = false;
    for (i, c) in text[open..end].char_indices() {
        if closed && (c.is_alphabetic() || matches!(c, '_' | ':') || !c.is_ascii()) {
            places.push(open + i);
        }
        closed = false;
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => {
                quote = None;
                closed = true;
            }
            _ => {}
        }
    }
}

impl SeparatedAttributes {
    /// The offset in the original text of `offset` in the separated text (an inserted space
    /// maps to the attribute after it).
    pub fn original_offset(&self, offset: usize) -> usize {
        // The space inserted before places[k] sits at places[k] + k in the separated text.
        let mut low = 0;
        let mut high = self.places.len();
        while low < high {
            let mid = (low + high) / 2;
            if self.places[mid] + mid < offset {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        offset - low
    }

    /// `span` (of the separated text) as a span of `original`, the source separated: offset,
    /// length, line and column as in the file.
    pub fn original_span(&self, original: &Source, span: &SourceSpan) -> SourceSpan {
        let start = self.original_offset(span.offset);
        let end = self.original_offset(span.offset + span.length).max(start);
        original.span(start, end - start)
    }

    /// `error` (raised reading the separated text) pointing into `original` instead: its span
    /// mapped back, a position `at L:C` ending its message (roxmltree's) too, and the snippet
    /// taken from the file.
    pub fn original_error(&self, original: &Source, error: Box<SourceError>) -> Box<SourceError> {
        let SourceError {
            code,
            mut message,
            span,
            help,
            ..
        } = *error;
        let span = span.map(|s| {
            let mapped = self.original_span(original, &s);
            if let Some(head) = message.strip_suffix(&format!(" at {}:{}", s.line, s.column)) {
                message = format!("{head} at {}:{}", mapped.line, mapped.column);
            }
            mapped
        });
        let mut mapped = original.error(&code, span, message);
        mapped.help = help;
        Box::new(mapped)
    }

    /// The places as `line:column` in `original`, for messages.
    pub fn places_in(&self, original: &Source) -> Vec<String> {
        self.places
            .iter()
            .map(|&p| {
                let span = original.span(p, 0);
                format!("{}:{}", span.line, span.column)
            })
            .collect()
    }

    /// The warning a reader gives: the span of the first attribute name not separated (in
    /// `original`) and a message naming it, every place, and `loader` (who reads it so).
    pub fn warning(&self, original: &Source, loader: &str) -> (SourceSpan, String) {
        let first = self.places[0];
        let name: String = original.text[first..]
            .chars()
            .take_while(|c| !c.is_whitespace() && !matches!(c, '=' | '/' | '>' | '?'))
            .collect();
        let places = self.places_in(original);
        let others = match places.len() {
            1 => String::new(),
            n => format!(" ({n} places in this file: {})", places.join(", ")),
        };
        (
            original.span(first, name.len()),
            format!(
                "the attribute `{name}` follows the previous attribute's value without whitespace, \
                 which XML forbids{others}: read, as {loader} reads it"
            ),
        )
    }

    /// `imported` (read from the separated text) with the spans of its findings in the file
    /// read and of its source map (when that is the file read) mapped back into `original`.
    pub fn original_imported(&self, original: &Source, imported: &mut Imported) {
        for finding in imported.report.findings.iter_mut().filter(|f| f.file.is_none()) {
            if let Some(span) = finding.span.as_mut() {
                *span = self.original_span(original, span);
            }
        }
        if imported.source_map_file.is_none() {
            for span in imported.source_map.values_mut() {
                *span = self.original_span(original, span);
            }
        }
    }
}

/// What [`for_each_tag`] visits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tag {
    /// The XML declaration (`<?xml ...?>`): `end` is past its `?>`.
    Declaration,
    /// A start, end or empty-element tag: `end` is its `>` (or the end of the text).
    Element,
}

/// Calls `f(open, end, tag)` for each tag of `text` in order, skipping comments, CDATA
/// sections, DOCTYPEs and processing instructions other than the XML declaration; quotes are
/// skipped in tags (a `>` in an attribute value does not end its tag).
fn for_each_tag(text: &str, mut f: impl FnMut(usize, usize, Tag)) {
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
            if rest.starts_with("<?xml") && rest[5..].starts_with(char::is_whitespace) {
                f(open, at, Tag::Declaration);
            }
        } else if rest.starts_with("<!") {
            at = skip_to(">");
        } else {
            let end = tag_end(text, open);
            f(open, end, Tag::Element);
            at = (end + 1).min(text.len());
        }
    }
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

    fn separate(text: &str) -> Option<SeparatedAttributes> {
        separate_attributes(&Source::from_string("t.xml", text))
    }

    #[test]
    fn separated_attributes_and_other_markup_are_left_alone() {
        assert!(separate("<r a=\"1\" b='2'>\"x\"y<c d=\"3\"\n\te=\"4\"/></r>").is_none());
        assert!(separate("<?xml version=\"1.0\" encoding=\"UTF-8\"?><!-- \"a\"b --><r><![CDATA[<c d=\"1\"e=\"2\">]]></r>").is_none());
        assert!(separate("<?xml-stylesheet href=\"a\"type=\"b\"?><r a=\"1\"/>\"2\"b").is_none());
        // Not a name after the value: XML's own error stays.
        assert!(separate("<r a=\"1\"=\"2\"/>").is_none());
    }

    #[test]
    fn attributes_without_whitespace_are_separated_and_positions_map_back() {
        let text = "<?xml version=\"1.0\"encoding=\"UTF-8\"?>\n<mujoco model=\"m\">\n  <geom name=\"a\"type='box'_x=\"1 > 0\"/>\n  <b c=\"é\"d=\"2\"></b>\n</mujoco>";
        let source = Source::from_string("t.xml", text);
        let separated = separate_attributes(&source).unwrap();
        let names: Vec<&str> = separated.places.iter().map(|&p| &text[p..p + 1]).collect();
        assert_eq!(names, ["e", "t", "_", "d"]);
        let document = roxmltree::Document::parse(&separated.source.text).unwrap();
        let mut read = Vec::new();
        for node in document.descendants().filter(roxmltree::Node::is_element) {
            for attribute in node.attributes() {
                let range = attribute.range_value();
                let span = separated.original_span(&source, &separated.source.span(range.start, range.len()));
                assert_eq!(&text[span.offset..span.offset + span.length], attribute.value());
                assert_eq!(span, source.span(span.offset, span.length));
                read.push(format!(
                    "{}={}@{}:{}",
                    attribute.name(),
                    attribute.value(),
                    span.line,
                    span.column
                ));
            }
        }
        assert_eq!(
            read,
            [
                "model=m@2:16",
                "name=a@3:15",
                "type=box@3:23",
                "_x=1 > 0@3:31",
                "c=é@4:9",
                "d=2@4:14"
            ]
        );
        assert_eq!(separated.places_in(&source), ["1:20", "3:17", "3:27", "4:11"]);
    }

    #[test]
    fn an_error_in_the_separated_text_points_into_the_file() {
        let text = "<r a=\"1\"b=\"2\">\n<x y=\"1\"z=\"2\" w=></x></r>";
        let source = Source::from_string("t.xml", text);
        let separated = separate_attributes(&source).unwrap();
        let dialect = crate::Dialect {
            root: "r",
            prefix: "t",
            name: "T",
            numbers: crate::Numbers::Rust,
        };
        let error = dialect.parse(&separated.source).unwrap_err();
        let shifted = error.span.clone().unwrap();
        let error = separated.original_error(&source, error);
        let span = error.span.clone().unwrap();
        assert_eq!((span.line, span.column), (2, shifted.column - 1));
        assert_eq!(&text[span.offset..span.offset + 1], ">");
        assert!(
            error.message.ends_with(&format!(" at 2:{}", span.column)),
            "{}",
            error.message
        );
        assert_eq!(
            error.to_string(),
            format!("t.xml:2:{}: {}", span.column, error.message)
        );
    }
}
