//! The XML tree xacro rewrites: parsed by hand so that every element, attribute and text keeps
//! the file and byte offset it came from, with attributes in document order (namespace
//! declarations among them, as the DOM the reference builds has them), and printed as the
//! reference prints it (`toprettyxml` with xacro's own element writer: attributes sorted,
//! two-space indentation, whitespace-only text left out beside elements).

use std::fmt::Write as _;

/// Where a node came from: the file (an index into the expansion's file list) and the byte
/// offset in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Loc {
    pub file: u32,
    pub offset: u32,
}

/// An attribute, its value as decoded.
#[derive(Clone, Debug)]
pub(crate) struct Attr {
    pub name: String,
    pub value: String,
    pub at: Loc,
}

/// An element.
#[derive(Clone, Debug)]
pub(crate) struct Element {
    pub name: String,
    pub attrs: Vec<Attr>,
    pub children: Vec<XNode>,
    pub at: Loc,
}

/// A character node's text and place.
#[derive(Clone, Debug)]
pub(crate) struct Text {
    pub data: String,
    pub at: Loc,
}

/// A node of the tree.
#[derive(Clone, Debug)]
pub(crate) enum XNode {
    Element(Element),
    Text(Text),
    Comment(Text),
    Cdata(Text),
    /// A processing instruction: target and data.
    Pi(Text, String),
    /// The reference's one shared empty text node ("\n\n") that stops the removal of comments
    /// before later xacro elements; only the newest of its generation is where it is now.
    Marker(u64),
}

impl Element {
    /// The value of attribute `name`.
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|a| a.name == name)
            .map(|a| a.value.as_str())
    }
    /// The attribute `name`.
    pub fn attr_node(&self, name: &str) -> Option<&Attr> {
        self.attrs.iter().find(|a| a.name == name)
    }
    /// Sets attribute `name` (in place if present, else appended).
    pub fn set_attr(&mut self, name: &str, value: String, at: Loc) {
        match self.attrs.iter_mut().find(|a| a.name == name) {
            Some(a) => a.value = value,
            None => self.attrs.push(Attr {
                name: name.to_owned(),
                value,
                at,
            }),
        }
    }
    /// Removes attribute `name`.
    pub fn remove_attr(&mut self, name: &str) {
        self.attrs.retain(|a| a.name != name);
    }
}

/// A parsed document: the nodes before the root element (comments, processing
/// instructions), the root, and the nodes after it.
#[derive(Clone, Debug)]
pub(crate) struct Document {
    pub before: Vec<XNode>,
    pub root: Element,
    pub after: Vec<XNode>,
}

/// A parse error: byte offset in the text and message (as expat words it where it can).
#[derive(Debug)]
pub(crate) struct ParseError {
    pub offset: usize,
    pub message: String,
}

/// The deepest nesting accepted.
pub(crate) const MAX_DEPTH: usize = 256;

struct Parser<'t> {
    text: &'t str,
    bytes: &'t [u8],
    pos: usize,
    file: u32,
}

type PResult<T> = Result<T, ParseError>;

fn is_name_start(c: char) -> bool {
    c.is_alphabetic() || c == '_' || c == ':' || (c as u32 > 0x7f && !c.is_whitespace())
}

fn is_name_char(c: char) -> bool {
    is_name_start(c) || c.is_ascii_digit() || c == '-' || c == '.' || c == '\u{b7}'
}

impl<'t> Parser<'t> {
    fn err<T>(&self, offset: usize, message: impl Into<String>) -> PResult<T> {
        Err(ParseError {
            offset,
            message: message.into(),
        })
    }
    fn loc(&self, offset: usize) -> Loc {
        Loc {
            file: self.file,
            offset: u32::try_from(offset).unwrap_or(u32::MAX),
        }
    }
    fn starts(&self, s: &str) -> bool {
        self.text[self.pos..].starts_with(s)
    }
    fn skip_ws(&mut self) {
        while self.pos < self.bytes.len() && matches!(self.bytes[self.pos], b' ' | b'\t' | b'\r' | b'\n') {
            self.pos += 1;
        }
    }
    fn peek_char(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }
    fn name(&mut self) -> PResult<String> {
        let start = self.pos;
        match self.peek_char() {
            Some(c) if is_name_start(c) => self.pos += c.len_utf8(),
            _ => return self.err(start, "not well-formed (invalid token)"),
        }
        while let Some(c) = self.peek_char() {
            if !is_name_char(c) {
                break;
            }
            self.pos += c.len_utf8();
        }
        Ok(self.text[start..self.pos].to_owned())
    }
    fn until(&mut self, end: &str, what: &str) -> PResult<&'t str> {
        let start = self.pos;
        match self.text[self.pos..].find(end) {
            Some(i) => {
                self.pos += i + end.len();
                Ok(&self.text[start..start + i])
            }
            None => self.err(start, format!("unclosed {what}")),
        }
    }

    /// Decodes the character and entity references of `raw` (which starts at `offset`),
    /// normalising line ends, and in attribute values (`attribute`) whitespace, as XML says.
    fn decode(&self, raw: &str, offset: usize, attribute: bool) -> PResult<String> {
        let mut out = String::with_capacity(raw.len());
        let mut chars = raw.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            match c {
                '&' => {
                    let rest = &raw[i + 1..];
                    let Some(end) = rest.find(';') else {
                        return self.err(offset + i, "not well-formed (invalid token)");
                    };
                    let entity = &rest[..end];
                    let decoded = match entity {
                        "lt" => '<',
                        "gt" => '>',
                        "amp" => '&',
                        "quot" => '"',
                        "apos" => '\'',
                        _ => {
                            let code = if let Some(hex) = entity.strip_prefix("#x") {
                                u32::from_str_radix(hex, 16).ok()
                            } else if let Some(dec) = entity.strip_prefix('#') {
                                dec.parse::<u32>().ok()
                            } else {
                                return self.err(offset + i, format!("undefined entity &{entity};"));
                            };
                            match code.and_then(char::from_u32) {
                                Some(c) if c != '\0' => c,
                                _ => return self.err(offset + i, "reference to invalid character number"),
                            }
                        }
                    };
                    // Skip the entity text.
                    for _ in 0..=end {
                        chars.next();
                    }
                    out.push(decoded);
                }
                '<' if attribute => return self.err(offset + i, "not well-formed (invalid token)"),
                '\r' => {
                    if chars.peek().is_some_and(|(_, n)| *n == '\n') {
                        chars.next();
                    }
                    out.push(if attribute { ' ' } else { '\n' });
                }
                '\n' | '\t' if attribute => out.push(' '),
                c => out.push(c),
            }
        }
        Ok(out)
    }

    /// A comment, at `<!--`.
    fn comment(&mut self) -> PResult<XNode> {
        let at = self.pos;
        self.pos += 4;
        let body = self.until("-->", "comment")?;
        if body.contains("--") || body.ends_with('-') {
            return self.err(at, "not well-formed (invalid token)");
        }
        Ok(XNode::Comment(Text {
            data: self.decode_newlines(body),
            at: self.loc(at),
        }))
    }

    fn misc(&mut self, into: &mut Vec<XNode>) -> PResult<bool> {
        self.skip_ws();
        if self.starts("<!--") {
            into.push(self.comment()?);
            Ok(true)
        } else if self.starts("<?") {
            let at = self.pos;
            self.pos += 2;
            let target = self.name()?;
            let body = self.until("?>", "processing instruction")?;
            if target.eq_ignore_ascii_case("xml") {
                return self.err(at, "XML or text declaration not at start of entity");
            }
            into.push(XNode::Pi(
                Text {
                    data: body.trim_start().to_owned(),
                    at: self.loc(at),
                },
                target,
            ));
            Ok(true)
        } else if self.starts("<!DOCTYPE") {
            let at = self.pos;
            let body = self.until(">", "DOCTYPE")?;
            if body.contains('[') {
                return self.err(
                    at,
                    "a DOCTYPE with an internal subset (entity declarations) is refused",
                );
            }
            Ok(true)
        } else {
            Ok(false)
        }
    }

    fn decode_newlines(&self, raw: &str) -> String {
        if raw.contains('\r') {
            raw.replace("\r\n", "\n").replace('\r', "\n")
        } else {
            raw.to_owned()
        }
    }

    fn element(&mut self, scopes: &mut Vec<Vec<String>>, depth: usize) -> PResult<Element> {
        let start = self.pos;
        if depth > MAX_DEPTH {
            return self.err(
                start,
                format!("elements nested deeper than {MAX_DEPTH} levels are refused"),
            );
        }
        self.pos += 1; // '<'
        let name = self.name()?;
        let mut attrs: Vec<Attr> = Vec::new();
        let empty;
        loop {
            let before = self.pos;
            self.skip_ws();
            if self.starts("/>") {
                self.pos += 2;
                empty = true;
                break;
            }
            if self.starts(">") {
                self.pos += 1;
                empty = false;
                break;
            }
            if self.pos == before || self.pos >= self.bytes.len() {
                return self.err(self.pos, "not well-formed (invalid token)");
            }
            let at = self.pos;
            let attr = self.name()?;
            self.skip_ws();
            if !self.starts("=") {
                return self.err(self.pos, "not well-formed (invalid token)");
            }
            self.pos += 1;
            self.skip_ws();
            let quote = match self.bytes.get(self.pos) {
                Some(b'"') => "\"",
                Some(b'\'') => "'",
                _ => return self.err(self.pos, "not well-formed (invalid token)"),
            };
            self.pos += 1;
            let value_at = self.pos;
            let raw = self.until(quote, "attribute value")?;
            let value = self.decode(raw, value_at, true)?;
            if attrs.iter().any(|a| a.name == attr) {
                return self.err(at, "duplicate attribute");
            }
            attrs.push(Attr {
                name: attr,
                value,
                at: self.loc(at),
            });
        }
        // Namespaces: the prefixes this element declares, then every prefix used must be bound.
        let declared: Vec<String> = attrs
            .iter()
            .filter_map(|a| a.name.strip_prefix("xmlns:").map(str::to_owned))
            .collect();
        scopes.push(declared);
        let bound = |prefix: &str, scopes: &[Vec<String>]| {
            prefix == "xml" || scopes.iter().any(|s| s.iter().any(|p| p == prefix))
        };
        if let Some((prefix, _)) = name.split_once(':')
            && !bound(prefix, scopes)
        {
            return self.err(start, "unbound prefix");
        }
        for a in &attrs {
            if let Some((prefix, _)) = a.name.split_once(':')
                && prefix != "xmlns"
                && !bound(prefix, scopes)
            {
                return self.err(a.at.offset as usize, "unbound prefix");
            }
        }
        let mut element = Element {
            name,
            attrs,
            children: Vec::new(),
            at: self.loc(start),
        };
        if !empty {
            self.content(&mut element, scopes, depth)?;
        }
        scopes.pop();
        Ok(element)
    }

    fn content(&mut self, element: &mut Element, scopes: &mut Vec<Vec<String>>, depth: usize) -> PResult<()> {
        loop {
            if self.pos >= self.bytes.len() {
                return self.err(self.pos, "no element found");
            }
            if self.starts("</") {
                let at = self.pos;
                self.pos += 2;
                let name = self.name()?;
                self.skip_ws();
                if !self.starts(">") || name != element.name {
                    return self.err(at, "mismatched tag");
                }
                self.pos += 1;
                return Ok(());
            } else if self.starts("<!--") {
                let comment = self.comment()?;
                element.children.push(comment);
            } else if self.starts("<![CDATA[") {
                let at = self.pos;
                self.pos += 9;
                let body = self.until("]]>", "CDATA section")?;
                let data = self.decode_newlines(body);
                element.children.push(XNode::Cdata(Text {
                    data,
                    at: self.loc(at),
                }));
            } else if self.starts("<?") {
                let mut pis = Vec::new();
                self.misc(&mut pis)?;
                element.children.extend(pis);
            } else if self.starts("<") {
                let child = self.element(scopes, depth + 1)?;
                element.children.push(XNode::Element(child));
            } else {
                let at = self.pos;
                let end = self.text[at..].find('<').map_or(self.text.len(), |i| at + i);
                let raw = &self.text[at..end];
                if let Some(i) = raw.find("]]>") {
                    return self.err(at + i, "not well-formed (invalid token)");
                }
                self.pos = end;
                let data = self.decode(raw, at, false)?;
                // Adjacent character data is one text node, as the reference's DOM has it.
                if let Some(XNode::Text(last)) = element.children.last_mut() {
                    last.data.push_str(&data);
                } else {
                    element.children.push(XNode::Text(Text {
                        data,
                        at: self.loc(at),
                    }));
                }
            }
        }
    }
}

/// Parses `text` (file number `file`) into a document.
pub(crate) fn parse(text: &str, file: u32) -> Result<Document, ParseError> {
    let mut p = Parser {
        text,
        bytes: text.as_bytes(),
        pos: 0,
        file,
    };
    if p.starts("\u{feff}") {
        p.pos += 3;
    }
    if p.starts("<?xml")
        && p.bytes
            .get(5)
            .is_some_and(|b| b.is_ascii_whitespace() || *b == b'?')
    {
        p.until("?>", "XML declaration")?;
    }
    let mut before = Vec::new();
    while p.misc(&mut before)? {}
    if p.pos >= p.bytes.len() {
        return p.err(p.pos, "no element found");
    }
    if !p.starts("<") {
        return p.err(p.pos, "syntax error");
    }
    let mut scopes = Vec::new();
    let root = p.element(&mut scopes, 0)?;
    let mut after = Vec::new();
    while p.misc(&mut after)? {}
    p.skip_ws();
    if p.pos < p.bytes.len() {
        return p.err(p.pos, "junk after document element");
    }
    Ok(Document { before, root, after })
}

/// The text of a printed document and, for each printed element, attribute and text, the
/// range of the output it took and where it came from.
pub(crate) struct Printed {
    pub text: String,
    pub spans: Vec<(usize, usize, Loc)>,
}

fn escape(out: &mut String, data: &str) {
    for c in data.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '"' => out.push_str("&quot;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
}

fn is_space(s: &str) -> bool {
    !s.is_empty() && s.chars().all(char::is_whitespace)
}

/// The nodes of `children` the printer sees: live markers as "\n\n" text, stale ones
/// left out.
fn visible(children: &[XNode], live: u64) -> impl Iterator<Item = &XNode> {
    children
        .iter()
        .filter(move |c| !matches!(c, XNode::Marker(g) if *g != live))
}

struct Printer {
    out: String,
    spans: Vec<(usize, usize, Loc)>,
    live: u64,
}

const MARKER_TEXT: &str = "\n\n";

impl Printer {
    fn node(&mut self, node: &XNode, indent: &str) {
        match node {
            XNode::Element(e) => self.element(e, indent),
            XNode::Text(t) => {
                let start = self.out.len();
                self.out.push_str(indent);
                escape(&mut self.out, &t.data);
                self.out.push('\n');
                self.spans.push((start, self.out.len(), t.at));
            }
            XNode::Marker(_) => {
                self.out.push_str(indent);
                self.out.push_str(MARKER_TEXT);
                self.out.push('\n');
            }
            XNode::Comment(t) => {
                let _ = writeln!(self.out, "{indent}<!--{}-->", t.data);
            }
            XNode::Cdata(t) => {
                let _ = write!(self.out, "<![CDATA[{}]]>", t.data);
            }
            XNode::Pi(t, target) => {
                let _ = writeln!(self.out, "{indent}<?{target} {}?>", t.data);
            }
        }
    }

    fn element(&mut self, e: &Element, indent: &str) {
        let start = self.out.len();
        self.out.push_str(indent);
        self.out.push('<');
        self.out.push_str(&e.name);
        let mut attrs: Vec<&Attr> = e.attrs.iter().collect();
        attrs.sort_by(|a, b| a.name.cmp(&b.name));
        for a in attrs {
            let from = self.out.len() + 1;
            self.out.push(' ');
            self.out.push_str(&a.name);
            self.out.push_str("=\"");
            escape(&mut self.out, &a.value);
            self.out.push('"');
            self.spans.push((from, self.out.len(), a.at));
        }
        let children: Vec<&XNode> = visible(&e.children, self.live).collect();
        if children.is_empty() {
            self.out.push_str("/>\n");
        } else if let [only] = children.as_slice()
            && matches!(only, XNode::Text(_) | XNode::Marker(_))
        {
            self.out.push('>');
            let from = self.out.len();
            match only {
                XNode::Text(t) => {
                    escape(&mut self.out, &t.data);
                    self.spans.push((from, self.out.len(), t.at));
                }
                _ => self.out.push_str(MARKER_TEXT),
            }
            let _ = writeln!(self.out, "</{}>", e.name);
        } else {
            self.out.push_str(">\n");
            let inner = format!("{indent}  ");
            for child in children {
                match child {
                    XNode::Text(t) if t.data.is_empty() || is_space(&t.data) => continue,
                    XNode::Marker(_) => continue,
                    _ => self.node(child, &inner),
                }
            }
            let _ = writeln!(self.out, "{indent}</{}>", e.name);
        }
        self.spans.push((start, self.out.len(), e.at));
    }
}

/// Prints `doc` as the reference does (`toprettyxml(indent="  ")` after its banner, which
/// is left out here); `live` is the generation of the marker that is where it is.
pub(crate) fn print(doc: &Document, live: u64) -> Printed {
    let mut p = Printer {
        out: String::from("<?xml version=\"1.0\" ?>\n"),
        spans: Vec::new(),
        live,
    };
    for n in visible(&doc.before, live) {
        p.node(n, "");
    }
    p.element(&doc.root, "");
    for n in visible(&doc.after, live) {
        p.node(n, "");
    }
    Printed {
        text: p.out,
        spans: p.spans,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_like_the_reference() {
        let doc = parse(
            "<?xml version=\"1.0\"?>\n<!-- c -->\n<r xmlns:x=\"u\" b=\"1&amp;2\" a='q\tz'>\n  <x:e/>t&lt;<![CDATA[<c>]]><k>v</k>\n</r>",
            0,
        )
        .unwrap();
        let printed = print(&doc, 0);
        assert_eq!(
            printed.text,
            "<?xml version=\"1.0\" ?>\n<!-- c -->\n<r a=\"q z\" b=\"1&amp;2\" xmlns:x=\"u\">\n  <x:e/>\n  t&lt;\n<![CDATA[<c>]]>  <k>v</k>\n</r>\n"
        );
    }

    #[test]
    fn refuses_what_expat_refuses() {
        assert_eq!(parse("<r><x:a/></r>", 0).unwrap_err().message, "unbound prefix");
        assert_eq!(parse("<r><a></b></r>", 0).unwrap_err().message, "mismatched tag");
        assert_eq!(
            parse("<r a='1' a='2'/>", 0).unwrap_err().message,
            "duplicate attribute"
        );
        assert_eq!(
            parse("<r/><s/>", 0).unwrap_err().message,
            "junk after document element"
        );
        assert_eq!(parse("<r>", 0).unwrap_err().message, "no element found");
        assert!(parse("<!DOCTYPE r [<!ENTITY a 'b'>]><r/>", 0).is_err());
    }
}
