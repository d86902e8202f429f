//! The formats this build reads and writes, from the format crates' own metadata.

use mbconv_ir::format::Registry;

/// Short names used by the `x2y` shortcuts, and the format each stands for.
pub const SHORT_NAMES: [(&str, &str); 4] = [
    ("skel", "skel"),
    ("yaml", "chrono"),
    ("body", "body"),
    ("json", "shift"),
];

/// Every format mbconv knows, each registered by its crate with its own [`FormatInfo`]
/// (names, aliases, extensions) and settings.
pub fn registry() -> Registry {
    let mut registry = Registry::new();
    registry.register(Box::new(mbconv_ir::mbir::MbirFormat));
    registry.register(Box::new(mbconv_chrono::ChronoFormat));
    registry.register(Box::new(mbconv_skel::SkelFormat));
    registry.register(Box::new(mbconv_body::BodyFormat));
    registry.register(Box::new(mbconv_shift::ShiftFormat));
    registry
}
