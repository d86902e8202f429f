//! The formats this build reads and writes.

use mbconv_ir::format::{FormatInfo, Registry};

/// Short names used by the `x2y` shortcuts, and the format each stands for.
pub const SHORT_NAMES: [(&str, &str); 4] = [
    ("skel", "skel"),
    ("yaml", "chrono"),
    ("body", "body"),
    ("json", "shift"),
];

/// Every format mbconv knows; those whose crate is not built yet are registered as planned.
pub fn registry() -> Registry {
    let mut registry = Registry::new();
    registry.register(Box::new(mbconv_ir::mbir::MbirFormat));
    registry.register(Box::new(mbconv_chrono::ChronoFormat));
    registry.register(Box::new(mbconv_skel::SkelFormat));
    for info in planned() {
        registry.register_planned(info);
    }
    registry
}

fn planned() -> [FormatInfo; 4] {
    [
        FormatInfo {
            name: "chrono",
            aliases: &["yaml", "chrono-yaml"],
            extensions: &["yaml", "yml"],
            description: "Chrono YAML multibody model",
        },
        FormatInfo {
            name: "skel",
            aliases: &["dart"],
            extensions: &["skel"],
            description: "DART SKEL (XML)",
        },
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
    ]
}
