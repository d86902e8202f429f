//! The YAML document as written: a tree of nodes, each with the place it came from. The node
//! layer is shared with the other YAML format ([`mbconv_yaml`]); this module only says how
//! Chrono's files are parsed: with serde-saphyr's defaults, so a repeated key is an error
//! (Chrono's yaml-cpp reader would silently keep one of them).

use mbconv_ir::format::{Source, SourceError};
pub use mbconv_yaml::{Key, Node, NodeKind};

/// Parses a Chrono YAML text into a node tree. Syntax errors (and duplicate keys) come back as
/// `file:line:column` errors.
pub fn parse(source: &Source) -> Result<Node, Box<SourceError>> {
    mbconv_yaml::parse(
        source,
        "chrono.yaml_syntax",
        mbconv_yaml::serde_saphyr::Options::default(),
    )
}
