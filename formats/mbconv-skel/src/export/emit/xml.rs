//! Serialising the element tree with quick-xml: an XML declaration, two-space indentation.

use crate::spec::verbatim::XmlElement;
use quick_xml::Writer;
use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, BytesText, Event};

/// Serialises an element tree with an XML declaration and two-space indentation.
pub(super) fn serialize(root: &XmlElement) -> String {
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
