//! XML elements kept verbatim in IR extras (soft shapes, elements DART ignores) and written
//! back unchanged.
//!
//! An element without attributes or child elements becomes its trimmed text
//! ([`Value::String`]); otherwise a map with `@name` entries for attributes, one entry per
//! child tag (a list when the tag repeats) and `#text` for text beside child elements.

use mbconv_ir::Value;
use mbconv_ir::format::kit::numbers::format_number;

/// The value of one element (`<kv a="1"><x>2</x><x>3</x></kv>` is `{"@a":"1","x":["2","3"]}`):
/// the shared XML layer's reading.
pub(crate) use mbconv_xml::element_value;

/// A minimal XML tree to write: what [`element_value`] reads back to the same value.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct XmlElement {
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
pub(crate) fn value_element(tag: &str, value: &Value) -> Vec<XmlElement> {
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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn rebuild(e: &XmlElement) -> String {
        let attrs: String = e
            .attributes
            .iter()
            .map(|(k, v)| format!(" {k}=\"{v}\""))
            .collect();
        let inner: String =
            e.text.clone().unwrap_or_default() + &e.children.iter().map(rebuild).collect::<String>();
        format!("<{}{attrs}>{inner}</{}>", e.tag, e.tag)
    }

    #[test]
    fn attributes_and_repeated_tags() {
        let doc = roxmltree::Document::parse("<kv a=\"1\"><x>2</x><x>3</x></kv>").unwrap();
        let value = element_value(doc.root_element());
        assert_eq!(
            serde_json::to_string(&value).unwrap(),
            r#"{"@a":"1","x":["2","3"]}"#
        );
    }

    #[test]
    fn element_value_round_trips() {
        let xml = "<soft_shape><total_mass>0.5</total_mass><geometry><box><size>1 1 1</size>\
                   <frags>3 3 3</frags></box></geometry><kv a=\"b\">5</kv><kv>6</kv><kv>7</kv></soft_shape>";
        let doc = roxmltree::Document::parse(xml).unwrap();
        let value = element_value(doc.root_element());
        let elements = value_element("soft_shape", &value);
        assert_eq!(elements.len(), 1);
        let text = rebuild(&elements[0]);
        let again = roxmltree::Document::parse(&text).unwrap();
        assert_eq!(element_value(again.root_element()), value);
    }
}
