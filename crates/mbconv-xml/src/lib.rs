//! An XML document as written: parsing with positions, refusing what no model file needs
//! (entity declarations, absurd nesting), and reading typed values (numbers, vectors,
//! booleans, required attributes and children) out of elements with errors that name file,
//! line and column. This is the raw layer that mbconv's XML formats (DART SKEL, URDF) share,
//! as `mbconv-yaml` is for the YAML formats; it knows nothing of any format's elements,
//! which their importers interpret. Its [`write`] module is the one XML writer they share
//! (an element tree serialised with quick-xml), its [`packages`] module the ROS package lookup
//! of URDF's and SDFormat's `package://` URIs.
//!
//! A format describes itself with a [`Dialect`]: the root element it expects, the prefix of
//! its error codes and its name in messages. roxmltree parses the text; every element and
//! attribute keeps its byte range, and numbers are read from the text as written (correctly
//! rounded), so they read back bit for bit.
//!
//! ```
//! use mbconv_ir::format::Source;
//! use mbconv_xml::{Dialect, Numbers, child};
//! const URDF: Dialect = Dialect { root: "robot", prefix: "urdf", name: "URDF", numbers: Numbers::Rust };
//! let source = Source::from_string("r.urdf", "<robot name=\"r\">\n  <origin xyz=\"0 0.1 x\"/>\n</robot>");
//! let document = URDF.parse(&source).unwrap();
//! let origin = child(document.root_element(), "origin").unwrap();
//! let error = URDF.attribute_fixed::<3>(&source, origin, "xyz").unwrap_err();
//! assert_eq!(error.to_string(), "r.urdf:2:22: expected a number in `xyz` of <origin>, found \"x\"");
//! assert_eq!(error.code, "urdf.number");
//! ```

pub mod packages;
pub mod tolerated;
pub mod write;

use mbconv_ir::format::kit::{SourceResult, scan};
use mbconv_ir::format::{Source, SourceError};
use mbconv_ir::report::SourceSpan;
use mbconv_ir::{Value, ValueMap};
pub use roxmltree;
use roxmltree::ParsingOptions;
pub use roxmltree::{Document, Node};

/// The deepest element nesting accepted. Model files nest a dozen levels; the limit keeps the
/// readers, which walk elements recursively, far from the end of the stack.
pub const MAX_DEPTH: usize = 128;

/// What a format tells the XML layer about itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dialect {
    /// The root element every document of the format has (`skel`, `robot`); empty: any root
    /// element (the parts a format's documents include, as MuJoCo reads an included file's
    /// root whatever its name).
    pub root: &'static str,
    /// The prefix of the error codes (`skel` gives `skel.xml`, `skel.number`, …).
    pub prefix: &'static str,
    /// The format's name in messages (`SKEL`, `URDF`).
    pub name: &'static str,
    /// How the format's reference loader converts a number token.
    pub numbers: Numbers,
}

/// How a format's reference loader converts one number token (see `docs/formats/<format>.md`,
/// "Numbers").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Numbers {
    /// Rust's `str::parse::<f64>`: decimal forms and `inf`, `infinity`, `nan` in any case,
    /// correctly rounded; a non-finite value is passed on to the format's reader.
    Rust,
    /// C++'s `std::stod` on each token (DART 6.20's `toDouble`,
    /// [`scan::stod`](mbconv_ir::format::kit::scan::stod)): C's `strtod` on a prefix of the token
    /// (decimal, hexadecimal, `inf`, `nan`); refused when it reads nothing or the value is out
    /// of range (`1e400`, `1e-310`). Text after the number in a token is ignored by the loader,
    /// and refused here. A non-finite value is refused except where read as a bound
    /// ([`Dialect::bound`]).
    Stod,
    /// libstdc++'s `istringstream >> double` on each token, which must be read whole
    /// (urdfdom's `strToDouble`,
    /// [`scan::cxx_stream`](mbconv_ir::format::kit::scan::cxx_stream)): decimal forms only; no
    /// `inf`, `nan` or hexadecimal; an overflow (`1e400`) is refused, an underflow reads as
    /// zero or a subnormal. Every value read is finite.
    CxxStream,
}

/// A whitespace-separated token of a text or an attribute value, with its byte offset in the
/// file.
struct Token<'t> {
    text: &'t str,
    offset: usize,
}

impl Dialect {
    /// An error with the code `<prefix>.<what>`.
    ///
    /// ```
    /// use mbconv_ir::format::Source;
    /// let d = mbconv_xml::Dialect { root: "skel", prefix: "skel", name: "SKEL", numbers: mbconv_xml::Numbers::Rust };
    /// let src = Source::from_string("a.skel", "<skel/>");
    /// let e = d.error(&src, "missing", Some(src.span(1, 4)), "no world");
    /// assert_eq!((e.code.as_str(), e.to_string().as_str()), ("skel.missing", "a.skel:1:2: no world"));
    /// ```
    pub fn error(
        &self,
        source: &Source,
        what: &str,
        span: Option<SourceSpan>,
        message: impl Into<String>,
    ) -> Box<SourceError> {
        Box::new(source.error(&format!("{}.{what}", self.prefix), span, message))
    }

    /// Parses `source` as a document of this dialect.
    ///
    /// Refuses, with a positioned error: text that does not start with `<` (`<prefix>.xml`),
    /// a DOCTYPE that declares entities or has an internal subset (`<prefix>.doctype`),
    /// malformed XML (`<prefix>.xml`), nesting deeper than [`MAX_DEPTH`] (`<prefix>.xml`) and a
    /// root element other than [`Dialect::root`] (`<prefix>.root`).
    ///
    /// ```
    /// use mbconv_ir::format::Source;
    /// let d = mbconv_xml::Dialect { root: "skel", prefix: "skel", name: "SKEL", numbers: mbconv_xml::Numbers::Rust };
    /// let e = d.parse(&Source::from_string("a.skel", "<robot/>")).unwrap_err();
    /// assert_eq!(e.to_string(), "a.skel:1:1: expected the root element <skel>, found <robot>");
    /// ```
    pub fn parse<'s>(&self, source: &'s Source) -> SourceResult<Document<'s>> {
        self.parse_nested(source, MAX_DEPTH)
    }

    /// [`Dialect::parse`] with another nesting limit than [`MAX_DEPTH`]: for a format whose
    /// reference loader reads deeper documents (MJCF nests a kinematic tree's bodies, and
    /// MuJoCo reads them to a depth of about 500), so that no file the loader reads is refused.
    ///
    /// ```
    /// use mbconv_ir::format::Source;
    /// let d = mbconv_xml::Dialect { root: "a", prefix: "skel", name: "SKEL", numbers: mbconv_xml::Numbers::Rust };
    /// let deep = format!("{}{}", "<a>".repeat(200), "</a>".repeat(200));
    /// assert!(d.parse(&Source::from_string("deep.xml", &deep)).is_err());
    /// assert!(d.parse_nested(&Source::from_string("deep.xml", &deep), 500).is_ok());
    /// ```
    pub fn parse_nested<'s>(&self, source: &'s Source, max_depth: usize) -> SourceResult<Document<'s>> {
        let text = source.text.as_str();
        let start = text.len() - text.trim_start_matches(['\u{feff}', ' ', '\t', '\r', '\n']).len();
        if !text[start..].starts_with('<') {
            return Err(self.error(
                source,
                "xml",
                Some(source.span(start, 1)),
                match self.root {
                    "" => "malformed XML: expected `<` (an XML declaration or the root element)".to_owned(),
                    root => {
                        format!("malformed XML: expected `<` (an XML declaration or the <{root}> element)")
                    }
                },
            ));
        }
        if let Some(doctype) = text.find("<!DOCTYPE") {
            let end = text[doctype..].find('>').map_or(text.len(), |e| doctype + e);
            let declares_entities = text[doctype..].contains("<!ENTITY") || text[doctype..end].contains('[');
            if declares_entities {
                let error = self.error(
                    source,
                    "doctype",
                    Some(source.span(doctype, "<!DOCTYPE".len())),
                    format!(
                        "a DOCTYPE with an internal subset or entity declarations is refused: \
                         {} files do not use entities, and expanding them is unsafe",
                        self.name
                    ),
                );
                return Err(Box::new(error.with_help(
                    "remove the <!DOCTYPE ...> declaration and write the values out",
                )));
            }
        }
        let options = ParsingOptions {
            allow_dtd: true,
            ..ParsingOptions::default()
        };
        let document = Document::parse_with_options(text, options).map_err(|e| {
            let pos = e.pos();
            let span = SourceSpan::at_line_column(text, pos.row as usize, pos.col as usize);
            self.error(source, "xml", Some(span), format!("malformed XML: {e}"))
        })?;
        self.refuse_deep_nesting(source, &document, max_depth)?;
        let root = document.root_element();
        if !self.root.is_empty() && root.tag_name().name() != self.root {
            return Err(self.error(
                source,
                "root",
                Some(span_of_node(source, root)),
                format!(
                    "expected the root element <{}>, found <{}>",
                    self.root,
                    root.tag_name().name()
                ),
            ));
        }
        Ok(document)
    }

    /// Refuses a document nested deeper than `max_depth`, pointing at the first element too
    /// deep. One walk with an explicit stack: linear, and no recursion however deep the file.
    fn refuse_deep_nesting(
        &self,
        source: &Source,
        document: &Document,
        max_depth: usize,
    ) -> SourceResult<()> {
        let mut stack = vec![(document.root(), 0usize)];
        while let Some((node, depth)) = stack.pop() {
            if depth > max_depth {
                return Err(self.error(
                    source,
                    "xml",
                    Some(span_of_node(source, node)),
                    format!("elements nested deeper than {max_depth} levels are refused"),
                ));
            }
            stack.extend(node.children().filter(Node::is_element).map(|c| (c, depth + 1)));
        }
        Ok(())
    }

    /// Parses one number token as the format's loader does ([`Numbers`]), or says what was
    /// expected. Non-finite values pass only where `bound` is true or the syntax is
    /// [`Numbers::Rust`].
    fn token_number(&self, source: &Source, token: &Token, what: &str, bound: bool) -> SourceResult<f64> {
        let span = || Some(source.span(token.offset, token.text.len()));
        let refuse = |message: String| self.error(source, "number", span(), message);
        let expected = || refuse(format!("expected a number in {what}, found {:?}", token.text));
        let out_of_range = || {
            refuse(format!(
                "{:?} in {what} is out of the range of a double ({} refuses it)",
                token.text, self.name
            ))
        };
        match self.numbers {
            Numbers::Rust => token.text.parse::<f64>().map_err(|_| expected()),
            Numbers::CxxStream => scan::cxx_stream(token.text).ok_or_else(|| {
                let overflow = scan::strtod(token.text).is_some_and(|(x, end)| {
                    end == token.text.len() && x.is_infinite() && token.text.contains(['e', 'E'])
                });
                if overflow { out_of_range() } else { expected() }
            }),
            Numbers::Stod => {
                let (x, end) = match scan::stod(token.text) {
                    Ok(read) => read,
                    Err(scan::StodError::NoNumber) => return Err(expected()),
                    Err(scan::StodError::OutOfRange) => return Err(out_of_range()),
                };
                if end != token.text.len() {
                    return Err(refuse(format!(
                        "expected a number in {what}, found {:?} ({} reads its start, {x}, and ignores the rest)",
                        token.text, self.name
                    )));
                }
                if !bound && !x.is_finite() {
                    return Err(refuse(format!(
                        "expected a finite number in {what}, found {:?}",
                        token.text
                    )));
                }
                Ok(x)
            }
        }
    }

    fn number(&self, source: &Source, token: &Token, what: &str) -> SourceResult<f64> {
        self.token_number(source, token, what, false)
    }

    /// The bound of a range in element `node`'s text (one number): an infinity on its own
    /// side (`inf` as an upper bound, `-inf` as a lower one) is no bound (`None`); NaN or an
    /// infinity on the other side is an error at the token.
    ///
    /// ```
    /// use mbconv_ir::format::Source;
    /// let d = mbconv_xml::Dialect { root: "u", prefix: "skel", name: "SKEL", numbers: mbconv_xml::Numbers::Stod };
    /// let src = Source::from_string("a.skel", "<u>inf</u>");
    /// let doc = d.parse(&src).unwrap();
    /// assert_eq!(d.bound(&src, doc.root_element(), true).unwrap(), None);
    /// assert!(d.bound(&src, doc.root_element(), false).is_err());
    /// ```
    pub fn bound(&self, source: &Source, node: Node, upper: bool) -> SourceResult<Option<f64>> {
        let what = format!("<{}>", node.tag_name().name());
        let tokens = text_tokens(source, node);
        let [token] = tokens.as_slice() else {
            return Err(self.error(
                source,
                "count",
                Some(span_of_node(source, node)),
                format!("{what} needs 1 number, found {}", tokens.len()),
            ));
        };
        self.bound_token(source, token, &what, upper)
    }

    /// The bound in attribute `name` (see [`Dialect::bound`]); `None` when it is absent.
    pub fn attribute_bound(
        &self,
        source: &Source,
        node: Node,
        name: &str,
        upper: bool,
    ) -> SourceResult<Option<Option<f64>>> {
        let Some(tokens) = attribute_tokens(source, node, name) else {
            return Ok(None);
        };
        let what = format!("`{name}` of <{}>", node.tag_name().name());
        let [token] = tokens.as_slice() else {
            return Err(self.error(
                source,
                "count",
                Some(span_of_attribute(source, node, name)),
                format!("{what} needs 1 number, found {}", tokens.len()),
            ));
        };
        self.bound_token(source, token, &what, upper).map(Some)
    }

    fn bound_token(
        &self,
        source: &Source,
        token: &Token,
        what: &str,
        upper: bool,
    ) -> SourceResult<Option<f64>> {
        let x = self.token_number(source, token, what, true)?;
        if x.is_nan() || (x.is_infinite() && (x > 0.0) != upper) {
            let side = if upper { "upper" } else { "lower" };
            return Err(self.error(
                source,
                "number",
                Some(source.span(token.offset, token.text.len())),
                format!("{:?} in {what} cannot be the {side} bound of a range", token.text),
            ));
        }
        Ok(x.is_finite().then_some(x))
    }

    /// The numbers of an element's text (any count), each error pointing at its token.
    ///
    /// ```
    /// use mbconv_ir::format::Source;
    /// let d = mbconv_xml::Dialect { root: "skel", prefix: "skel", name: "SKEL", numbers: mbconv_xml::Numbers::Rust };
    /// let src = Source::from_string("a.skel", "<skel> 0.1 -2e-3 </skel>");
    /// let doc = d.parse(&src).unwrap();
    /// assert_eq!(d.numbers(&src, doc.root_element()).unwrap(), vec![0.1, -0.002]);
    /// ```
    pub fn numbers(&self, source: &Source, node: Node) -> SourceResult<Vec<f64>> {
        let what = format!("<{}>", node.tag_name().name());
        text_tokens(source, node)
            .iter()
            .map(|t| self.number(source, t, &what))
            .collect()
    }

    /// Exactly `N` numbers in an element's text.
    pub fn fixed<const N: usize>(&self, source: &Source, node: Node) -> SourceResult<[f64; N]> {
        let values = self.numbers(source, node)?;
        values.as_slice().try_into().map_err(|_| {
            self.error(
                source,
                "count",
                Some(span_of_node(source, node)),
                format!(
                    "<{}> needs {N} number{}, found {}",
                    node.tag_name().name(),
                    plural(N),
                    values.len()
                ),
            )
        })
    }

    /// One number in an element's text.
    pub fn scalar(&self, source: &Source, node: Node) -> SourceResult<f64> {
        Ok(self.fixed::<1>(source, node)?[0])
    }

    /// The number in child element `name`, when present.
    pub fn child_scalar(&self, source: &Source, node: Node, name: &str) -> SourceResult<Option<f64>> {
        child(node, name).map(|c| self.scalar(source, c)).transpose()
    }

    /// The number in child element `name`, when present, which may be infinite or NaN as the
    /// loader reads it (a limit whose reader decides what an infinity means: SDFormat's
    /// `<lower>-inf</lower>`, `<effort>inf</effort>`); every other rule of the dialect holds.
    ///
    /// ```
    /// use mbconv_ir::format::Source;
    /// let d = mbconv_xml::Dialect { root: "u", prefix: "sdf", name: "SDFormat", numbers: mbconv_xml::Numbers::Stod };
    /// let src = Source::from_string("a.sdf", "<u><effort>inf</effort></u>");
    /// let doc = d.parse(&src).unwrap();
    /// assert_eq!(d.child_limit(&src, doc.root_element(), "effort").unwrap(), Some(f64::INFINITY));
    /// assert!(d.child_scalar(&src, doc.root_element(), "effort").is_err());
    /// ```
    pub fn child_limit(&self, source: &Source, node: Node, name: &str) -> SourceResult<Option<f64>> {
        let Some(c) = child(node, name) else {
            return Ok(None);
        };
        let what = format!("<{}>", c.tag_name().name());
        let tokens = text_tokens(source, c);
        let [token] = tokens.as_slice() else {
            return Err(self.error(
                source,
                "count",
                Some(span_of_node(source, c)),
                format!("{what} needs 1 number, found {}", tokens.len()),
            ));
        };
        self.token_number(source, token, &what, true).map(Some)
    }

    /// An element's text as a boolean written `1`, `0`, `true` or `false` (any case).
    pub fn boolean(&self, source: &Source, node: Node) -> SourceResult<bool> {
        let value = text(node);
        match value.to_ascii_lowercase().as_str() {
            "1" | "true" => Ok(true),
            "0" | "false" => Ok(false),
            _ => Err(self.error(
                source,
                "bool",
                Some(span_of_node(source, node)),
                format!(
                    "<{}> expects 1, 0, true or false, found {value:?}",
                    node.tag_name().name()
                ),
            )),
        }
    }

    /// The numbers of attribute `name` (any count), or `None` when the attribute is absent;
    /// each error points at its token.
    ///
    /// ```
    /// use mbconv_ir::format::Source;
    /// let d = mbconv_xml::Dialect { root: "robot", prefix: "urdf", name: "URDF", numbers: mbconv_xml::Numbers::Rust };
    /// let src = Source::from_string("r.urdf", "<robot a=\" 1  2.5 \"/>");
    /// let doc = d.parse(&src).unwrap();
    /// assert_eq!(d.attribute_numbers(&src, doc.root_element(), "a").unwrap(), Some(vec![1.0, 2.5]));
    /// assert_eq!(d.attribute_numbers(&src, doc.root_element(), "b").unwrap(), None);
    /// ```
    pub fn attribute_numbers(
        &self,
        source: &Source,
        node: Node,
        name: &str,
    ) -> SourceResult<Option<Vec<f64>>> {
        let Some(tokens) = attribute_tokens(source, node, name) else {
            return Ok(None);
        };
        let what = format!("`{name}` of <{}>", node.tag_name().name());
        tokens
            .iter()
            .map(|t| self.number(source, t, &what))
            .collect::<SourceResult<Vec<f64>>>()
            .map(Some)
    }

    /// Exactly `N` numbers in attribute `name`, or `None` when it is absent.
    pub fn attribute_fixed<const N: usize>(
        &self,
        source: &Source,
        node: Node,
        name: &str,
    ) -> SourceResult<Option<[f64; N]>> {
        let Some(values) = self.attribute_numbers(source, node, name)? else {
            return Ok(None);
        };
        let array: [f64; N] = values.as_slice().try_into().map_err(|_| {
            self.error(
                source,
                "count",
                Some(span_of_attribute(source, node, name)),
                format!(
                    "`{name}` of <{}> needs {N} number{}, found {}",
                    node.tag_name().name(),
                    plural(N),
                    values.len()
                ),
            )
        })?;
        Ok(Some(array))
    }

    /// One number in attribute `name`, or `None` when it is absent.
    pub fn attribute_scalar(&self, source: &Source, node: Node, name: &str) -> SourceResult<Option<f64>> {
        Ok(self.attribute_fixed::<1>(source, node, name)?.map(|[v]| v))
    }

    /// A required attribute.
    pub fn required_attribute<'a>(
        &self,
        source: &Source,
        node: Node<'a, '_>,
        name: &str,
    ) -> SourceResult<&'a str> {
        node.attribute(name).ok_or_else(|| {
            self.error(
                source,
                "attribute",
                Some(span_of_node(source, node)),
                format!("<{}> needs the attribute `{name}`", node.tag_name().name()),
            )
        })
    }

    /// A required child element.
    pub fn required_child<'a, 'input>(
        &self,
        source: &Source,
        node: Node<'a, 'input>,
        name: &str,
    ) -> SourceResult<Node<'a, 'input>> {
        child(node, name).ok_or_else(|| {
            self.error(
                source,
                "missing",
                Some(span_of_node(source, node)),
                format!("<{}> needs a <{name}> element", node.tag_name().name()),
            )
        })
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// The span of an element's start tag name (what an error about the element points at).
///
/// ```
/// use mbconv_ir::format::Source;
/// let d = mbconv_xml::Dialect { root: "skel", prefix: "skel", name: "SKEL", numbers: mbconv_xml::Numbers::Rust };
/// let src = Source::from_string("a.skel", "<skel>\n  <world/></skel>");
/// let doc = d.parse(&src).unwrap();
/// let span = mbconv_xml::span_of_node(&src, mbconv_xml::child(doc.root_element(), "world").unwrap());
/// assert_eq!((span.line, span.column, span.length), (2, 3, 6));
/// ```
pub fn span_of_node(source: &Source, node: Node) -> SourceSpan {
    let range = node.range();
    let len = if node.is_element() {
        node.tag_name().name().len() + 1
    } else {
        range.len()
    };
    source.span(range.start, len.min(range.len()))
}

/// The span of an attribute's value, or of its element when the attribute is absent.
pub fn span_of_attribute(source: &Source, node: Node, name: &str) -> SourceSpan {
    match node.attribute_node(name) {
        Some(attr) => {
            let range = attr.range_value();
            source.span(range.start, range.len())
        }
        None => span_of_node(source, node),
    }
}

/// The first child element named `name`.
pub fn child<'a, 'input>(node: Node<'a, 'input>, name: &str) -> Option<Node<'a, 'input>> {
    node.children()
        .find(|c| c.is_element() && c.tag_name().name() == name)
}

/// All child elements named `name`, in document order.
pub fn children<'a, 'input: 'a>(
    node: Node<'a, 'input>,
    name: &'a str,
) -> impl Iterator<Item = Node<'a, 'input>> + 'a {
    node.children()
        .filter(move |c| c.is_element() && c.tag_name().name() == name)
}

/// All child elements, in document order.
pub fn elements<'a, 'input: 'a>(node: Node<'a, 'input>) -> impl Iterator<Item = Node<'a, 'input>> + 'a {
    node.children().filter(|c| c.is_element())
}

/// The element's text, trimmed (empty when it has none).
pub fn text(node: Node) -> String {
    node.children()
        .filter(|c| c.is_text())
        .filter_map(|c| c.text())
        .collect::<String>()
        .trim()
        .to_owned()
}

/// An element as a value to keep verbatim in IR extras (elements a format does not interpret,
/// kept so that a same-format round trip gives them back). An element without attributes
/// or child elements becomes its trimmed text ([`Value::String`]); otherwise a map with
/// `@name` entries for attributes, one entry per child tag (a list when the tag repeats; a
/// prefixed tag keeps its prefix, `sensor:contact`) and `#text` for text beside attributes or
/// child elements.
///
/// ```
/// let doc = roxmltree::Document::parse("<kv a=\"1\"><x>2</x><x>3</x></kv>").unwrap();
/// let value = mbconv_xml::element_value(doc.root_element());
/// assert_eq!(serde_json::to_string(&value).unwrap(), r#"{"@a":"1","x":["2","3"]}"#);
/// // Text beside attributes is kept (gz-sim's `<fdir1 gz:expressed_in="chassis">1 -1 0</fdir1>`).
/// let doc = roxmltree::Document::parse("<fdir1 frame=\"chassis\">1 -1 0</fdir1>").unwrap();
/// let value = mbconv_xml::element_value(doc.root_element());
/// assert_eq!(serde_json::to_string(&value).unwrap(), r##"{"@frame":"chassis","#text":"1 -1 0"}"##);
/// ```
pub fn element_value(node: Node) -> Value {
    let has_children = node.children().any(|c| c.is_element());
    let text = text(node);
    if node.attributes().len() == 0 && !has_children {
        return Value::String(text);
    }
    let mut map = ValueMap::new();
    for attr in node.attributes() {
        map.insert(
            format!("@{}", qualified_attribute_name(node, &attr)),
            Value::String(attr.value().to_owned()),
        );
    }
    for c in node.children().filter(|c| c.is_element()) {
        let tag = qualified_name(c);
        let value = element_value(c);
        match map.0.iter_mut().find(|(k, _)| *k == tag) {
            None => map.insert(tag, value),
            Some((_, Value::List(items))) => items.push(value),
            Some((_, slot)) => {
                let first = std::mem::take(slot);
                *slot = Value::List(vec![first, value]);
            }
        }
    }
    if !text.is_empty() {
        map.insert("#text", Value::String(text));
    }
    Value::Map(map)
}

/// An element's tag as written: `prefix:name` when its namespace has a prefix, else `name`.
pub fn qualified_name(node: Node) -> String {
    let name = node.tag_name().name();
    match node.tag_name().namespace().and_then(|ns| node.lookup_prefix(ns)) {
        Some(prefix) if !prefix.is_empty() => format!("{prefix}:{name}"),
        _ => name.to_owned(),
    }
}

fn qualified_attribute_name(node: Node, attr: &roxmltree::Attribute) -> String {
    match attr.namespace().and_then(|ns| node.lookup_prefix(ns)) {
        Some(prefix) if !prefix.is_empty() => format!("{prefix}:{}", attr.name()),
        _ => attr.name().to_owned(),
    }
}

/// Splits `raw` (found at `offset` in the file) into whitespace-separated tokens.
fn split<'t>(raw: &'t str, mut offset: usize, out: &mut Vec<Token<'t>>) {
    let mut rest = raw;
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

/// The element's text tokens with file offsets. Text with entity or character references
/// falls back to the decoded text, all tokens pointing at the element.
fn text_tokens<'t>(source: &'t Source, node: Node<'t, 't>) -> Vec<Token<'t>> {
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
        split(raw, range.start, &mut out);
    }
    out
}

/// The tokens of attribute `name` with file offsets, or `None` when it is absent. A value with
/// entity or character references falls back to the decoded value, all tokens pointing at
/// the value.
fn attribute_tokens<'t>(source: &'t Source, node: Node<'t, 't>, name: &str) -> Option<Vec<Token<'t>>> {
    let attr = node.attribute_node(name)?;
    let range = attr.range_value();
    let raw = &source.text[range.clone()];
    let mut out = Vec::new();
    if raw.contains('&') {
        for token in attr.value().split_ascii_whitespace() {
            out.push(Token {
                text: token,
                offset: range.start,
            });
        }
    } else {
        split(raw, range.start, &mut out);
    }
    Some(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    const SKEL: Dialect = Dialect {
        root: "skel",
        prefix: "skel",
        name: "SKEL",
        numbers: Numbers::Rust,
    };
    const URDF: Dialect = Dialect {
        root: "robot",
        prefix: "urdf",
        name: "URDF",
        numbers: Numbers::Rust,
    };

    fn source(text: &str) -> Source {
        Source::from_string("t.skel", text)
    }

    #[test]
    fn numbers_are_exact_and_errors_point_at_the_token() {
        let src = source("<skel>\n  <v> 0.1  -2e-3\t+4 </v>\n  <w>1 x 3</w>\n</skel>");
        let doc = SKEL.parse(&src).unwrap();
        let v = child(doc.root_element(), "v").unwrap();
        assert_eq!(SKEL.fixed::<3>(&src, v).unwrap(), [0.1, -0.002, 4.0]);
        let w = child(doc.root_element(), "w").unwrap();
        let e = SKEL.numbers(&src, w).unwrap_err();
        assert_eq!(e.to_string(), "t.skel:3:8: expected a number in <w>, found \"x\"");
        assert_eq!(e.code, "skel.number");
        let e = SKEL.fixed::<2>(&src, v).unwrap_err();
        assert_eq!(e.to_string(), "t.skel:2:3: <v> needs 2 numbers, found 3");
        assert_eq!(e.code, "skel.count");
    }

    #[test]
    fn booleans_and_entities() {
        let src = source("<skel><a>true</a><b>0</b><c>yes</c><d>1&#32;2</d></skel>");
        let doc = SKEL.parse(&src).unwrap();
        let root = doc.root_element();
        assert!(SKEL.boolean(&src, child(root, "a").unwrap()).unwrap());
        assert!(!SKEL.boolean(&src, child(root, "b").unwrap()).unwrap());
        assert_eq!(
            SKEL.boolean(&src, child(root, "c").unwrap()).unwrap_err().code,
            "skel.bool"
        );
        assert_eq!(
            SKEL.numbers(&src, child(root, "d").unwrap()).unwrap(),
            vec![1.0, 2.0]
        );
    }

    #[test]
    fn doctype_without_entities_is_accepted_with_entities_refused() {
        let src = source("<?xml version=\"1.0\"?>\n<!DOCTYPE skel>\n<skel/>");
        assert!(SKEL.parse(&src).is_ok());
        let src = Source::from_string(
            "r.urdf",
            "<!DOCTYPE robot [<!ENTITY a \"aaaa\">]>\n<robot name=\"&a;\"/>",
        );
        let e = URDF.parse(&src).unwrap_err();
        assert_eq!(e.code, "urdf.doctype");
        assert!(e.to_string().starts_with("r.urdf:1:1: "), "{e}");
        assert!(e.to_string().contains("URDF files do not use entities"), "{e}");
    }

    #[test]
    fn the_root_and_the_prefix_are_the_dialects() {
        let src = Source::from_string("r.urdf", "\n<skel/>");
        let e = URDF.parse(&src).unwrap_err();
        assert_eq!(e.code, "urdf.root");
        assert_eq!(
            e.to_string(),
            "r.urdf:2:1: expected the root element <robot>, found <skel>"
        );
        let e = URDF.parse(&Source::from_string("r.urdf", "robot")).unwrap_err();
        assert_eq!(e.code, "urdf.xml");
        assert!(e.to_string().contains("the <robot> element"), "{e}");
        let e = URDF
            .parse(&Source::from_string("r.urdf", "<robot>\n<link></robot>"))
            .unwrap_err();
        assert_eq!(e.code, "urdf.xml");
        assert!(e.to_string().starts_with("r.urdf:2:"), "{e}");
    }

    #[test]
    fn deep_nesting_is_refused() {
        let text = format!(
            "<robot>{}{}</robot>",
            "<a>".repeat(MAX_DEPTH + 1),
            "</a>".repeat(MAX_DEPTH + 1)
        );
        let e = URDF.parse(&Source::from_string("r.urdf", text)).unwrap_err();
        assert!(e.to_string().contains("nested deeper than 128"), "{e}");
        let text = format!(
            "<robot>{}{}</robot>",
            "<a>".repeat(MAX_DEPTH - 1),
            "</a>".repeat(MAX_DEPTH - 1)
        );
        assert!(URDF.parse(&Source::from_string("r.urdf", text)).is_ok());
    }

    #[test]
    fn attributes_are_read_with_their_places() {
        let src = Source::from_string(
            "r.urdf",
            "<robot>\n <o xyz=\"1 2 3\" rpy=\"0 0\" s=\"7\" e=\"1&#32;2 x\" n=\"\"/>\n</robot>",
        );
        let doc = URDF.parse(&src).unwrap();
        let o = child(doc.root_element(), "o").unwrap();
        assert_eq!(
            URDF.attribute_fixed::<3>(&src, o, "xyz").unwrap(),
            Some([1.0, 2.0, 3.0])
        );
        assert_eq!(URDF.attribute_scalar(&src, o, "s").unwrap(), Some(7.0));
        assert_eq!(URDF.attribute_scalar(&src, o, "absent").unwrap(), None);
        let e = URDF.attribute_fixed::<3>(&src, o, "rpy").unwrap_err();
        assert_eq!(
            e.to_string(),
            "r.urdf:2:22: `rpy` of <o> needs 3 numbers, found 2"
        );
        let e = URDF.attribute_numbers(&src, o, "e").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("r.urdf:2:36: expected a number in `e` of <o>"),
            "{e}"
        );
        assert_eq!(URDF.attribute_numbers(&src, o, "n").unwrap(), Some(vec![]));
        let e = URDF.required_attribute(&src, o, "name").unwrap_err();
        assert_eq!(
            (e.code.as_str(), e.to_string().as_str()),
            ("urdf.attribute", "r.urdf:2:2: <o> needs the attribute `name`")
        );
        let e = URDF.required_child(&src, o, "x").unwrap_err();
        assert_eq!(e.code, "urdf.missing");
    }
}
