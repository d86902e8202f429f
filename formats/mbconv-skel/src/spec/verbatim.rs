//! XML elements kept verbatim in IR extras (soft shapes, elements DART ignores) and written
//! back unchanged.
//!
//! An element without attributes or child elements becomes its trimmed text
//! ([`Value::String`]); otherwise a map with `@name` entries for attributes, one entry per
//! child tag (a list when the tag repeats) and `#text` for text beside child elements.

/// The value of one element (`<kv a="1"><x>2</x><x>3</x></kv>` is `{"@a":"1","x":["2","3"]}`):
/// the shared XML layer's reading.
pub(crate) use mbconv_xml::element_value;

/// The writing half lives in the shared XML layer.
pub(crate) use mbconv_xml::write::{XmlElement, value_element};

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
