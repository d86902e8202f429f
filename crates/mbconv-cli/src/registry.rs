//! The formats this build reads and writes, from the format crates' own metadata.

use mbconv_ir::format::{FormatInfo, Registry};

/// Short names used by the `x2y` shortcuts, and the format each stands for.
pub const SHORT_NAMES: [(&str, &str); 4] = [
    ("skel", "skel"),
    ("yaml", "chrono"),
    ("body", "body"),
    ("json", "shift"),
];

/// Every format mbconv knows: each built format crate registers itself with its own
/// [`FormatInfo`] and settings; the formats whose crate does not exist yet are registered as
/// planned, so asking for one names it.
pub fn registry() -> Registry {
    let mut registry = Registry::new();
    registry.register(Box::new(mbconv_ir::mbir::MbirFormat));
    registry.register(Box::new(mbconv_chrono::ChronoFormat));
    registry.register(Box::new(mbconv_skel::SkelFormat));
    for info in NOT_YET_BUILT {
        registry.register_planned(info);
    }
    registry
}

/// Formats with no crate yet. A format moves out of this list when its crate is written.
const NOT_YET_BUILT: [FormatInfo; 2] = [
    FormatInfo {
        name: "body",
        aliases: &["choreonoid"],
        extensions: &["body"],
        description: "Choreonoid Body (YAML)",
    },
    FormatInfo {
        name: "shift",
        aliases: &["json", "shift-json"],
        extensions: &["json"],
        description: "Shift JSON",
    },
];
