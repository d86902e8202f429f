//! Writing XML: a small element tree ([`XmlElement`]), the tree a verbatim value stands for
//! ([`value_element`], the inverse of [`crate::element_value`]) and its serialisation with
//! quick-xml ([`serialize`]: an XML declaration, two-space indentation, text and attribute
//! values escaped). Numbers in verbatim values are written by the number policy
//! (`format_number`: shortest round trip).
//!
//! ```
//! use mbconv_xml::write::{XmlElement, serialize};
//! let tree = XmlElement::new("robot").attr("name", "r&d").child(XmlElement::new("link").attr("name", "a"));
//! assert_eq!(serialize(&tree), "<?xml version=\"1.0\"?>\n<robot name=\"r&amp;d\">\n  <link name=\"a\"/>\n</robot>\n");
//! ```

use mbconv_ir::Value;
use mbconv_ir::format::kit::numbers::format_number;
use quick_xml::Writer;
use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, BytesText, Event};

/// A minimal XML tree to write: what [`element_value`] reads back to the same value.
#[derive(Clone, Debug, PartialEq)]
pub struct XmlElement {
    /// Tag name.
    pub tag: String,
    /// Attributes in order.
    pub attributes: Vec<(String, String)>,
    /// Text content (written before children).
    pub text: Option<String>,
    /// Child elements.
    pub children: Vec<XmlElement>,
}

impl XmlElement {
    /// An element with text only.
    pub fn text(tag: impl Into<String>, text: impl Into<String>) -> Self {
        Self {
            tag: tag.into(),
            attributes: Vec::new(),
            text: Some(text.into()),
            children: Vec::new(),
        }
    }
    /// An empty element.
    pub fn new(tag: impl Into<String>) -> Self {
        Self {
            tag: tag.into(),
            attributes: Vec::new(),
            text: None,
            children: Vec::new(),
        }
    }
    /// Adds an attribute.
    pub fn attr(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.attributes.push((name.into(), value.into()));
        self
    }
    /// Adds a child.
    pub fn child(mut self, child: XmlElement) -> Self {
        self.children.push(child);
        self
    }
    /// Adds a child when there is one.
    pub fn child_opt(mut self, child: Option<XmlElement>) -> Self {
        self.children.extend(child);
        self
    }
    /// Adds children.
    pub fn children(mut self, children: impl IntoIterator<Item = XmlElement>) -> Self {
        self.children.extend(children);
        self
    }
}

/// The element tree a verbatim value stands for, under tag `tag`.
///
/// Values not produced by [`element_value`] are written in the nearest form: numbers and
/// booleans as text, null as an empty element.
pub fn value_element(tag: &str, value: &Value) -> Vec<XmlElement> {
    match value {
        Value::List(items) => items.iter().flat_map(|v| value_element(tag, v)).collect(),
        Value::Map(map) => {
            let mut element = XmlElement::new(tag);
            for (key, v) in map.iter() {
                if let Some(attr) = key.strip_prefix('@') {
                    element.attributes.push((attr.to_owned(), scalar_text(v)));
                } else if key == "#text" {
                    element.text = Some(scalar_text(v));
                } else {
                    element.children.extend(value_element(key, v));
                }
            }
            vec![element]
        }
        other => {
            let text = scalar_text(other);
            vec![if text.is_empty() {
                XmlElement::new(tag)
            } else {
                XmlElement::text(tag, text)
            }]
        }
    }
}

fn scalar_text(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::Bool(b) => if *b { "true" } else { "false" }.to_owned(),
        Value::Int(i) => i.to_string(),
        Value::Float(x) => format_number(*x),
        Value::String(s) => s.clone(),
        Value::List(items) => items.iter().map(scalar_text).collect::<Vec<_>>().join(" "),
        Value::Map(_) => String::new(),
    }
}

/// Serialises an element tree with an XML declaration and two-space indentation.
pub fn serialize(root: &XmlElement) -> String {
    let mut writer = Writer::new_with_indent(Vec::new(), b' ', 2);
    // Writing into a Vec cannot fail.
    let _ = writer.write_event(Event::Decl(BytesDecl::new("1.0", None, None)));
    write_element(&mut writer, root);
    let mut text = String::from_utf8(writer.into_inner()).unwrap_or_default();
    text.push('\n');
    text
}

fn write_element(writer: &mut Writer<Vec<u8>>, e: &XmlElement) {
    let mut start = BytesStart::new(e.tag.as_str());
    for (k, v) in &e.attributes {
        start.push_attribute((k.as_str(), v.as_str()));
    }
    let text = e.text.as_deref().filter(|t| !t.is_empty());
    if text.is_none() && e.children.is_empty() {
        let _ = writer.write_event(Event::Empty(start));
        return;
    }
    let _ = writer.write_event(Event::Start(start));
    if let Some(t) = text {
        let _ = writer.write_event(Event::Text(BytesText::new(t)));
    }
    for c in &e.children {
        write_element(writer, c);
    }
    let _ = writer.write_event(Event::End(BytesEnd::new(e.tag.as_str())));
}
