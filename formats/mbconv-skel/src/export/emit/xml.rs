//! Serialising the element tree: the shared XML layer's writer (an XML declaration,
//! two-space indentation).

pub(super) use mbconv_xml::write::serialize;
