//! The YAML document as written: a tree of nodes, each with the place it came from. The node
//! layer is shared with the other YAML format ([`mbconv_yaml`]); this module only says how
//! Choreonoid's files are parsed (see [`parse`]).

use mbconv_ir::format::{Source, SourceError};
use mbconv_yaml::serde_saphyr;
pub use mbconv_yaml::{Key, Node, NodeKind, anchored};

/// Parses a Body YAML text into a node tree. Syntax errors come back as `file:line:column`
/// errors.
pub fn parse(source: &Source) -> Result<Node, Box<SourceError>> {
    mbconv_yaml::parse(source, "body.yaml_syntax", options())
}

/// Parser settings as Choreonoid's YAML reader behaves: a repeated key keeps its last value,
/// files may use many aliases per anchor, but alias expansion stays bounded (an alias bomb
/// is refused after a million replayed events, in bounded memory).
fn options() -> serde_saphyr::Options {
    let budget = serde_saphyr::budget! {
        enforce_alias_anchor_ratio: false,
    };
    serde_saphyr::options! {
        budget: budget,
        duplicate_keys: serde_saphyr::DuplicateKeyPolicy::LastWins,
        alias_limits: serde_saphyr::alias_limits! {
            max_total_replayed_events: 1_000_000,
        },
    }
}
