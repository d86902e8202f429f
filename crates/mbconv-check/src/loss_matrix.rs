//! `docs/loss-matrix.md`, generated from each registered format's feature table.

use mbconv_ir::format::Registry;
use mbconv_ir::format::support::{Feature, lookup};

/// The loss matrix as Markdown: one row per IR feature, one column per registered format,
/// saying what the format's `lower` step keeps, says through an exact equivalent,
/// approximates (how) or loses (why). A format that declares no table yet shows
/// "not declared" in every row.
///
/// ```
/// let mut registry = mbconv_ir::format::Registry::new();
/// registry.register(Box::new(mbconv_ir::mbir::MbirFormat));
/// let text = mbconv_check::loss_matrix(&registry);
/// assert!(text.contains("| gravity |"));
/// ```
pub fn loss_matrix(registry: &Registry) -> String {
    let formats: Vec<_> = registry.formats().collect();
    let mut text = String::from(
        "# Loss matrix\n\n\
         What each format keeps of each IR feature when mbconv writes it: `kept`, `exact: how`\n\
         (said through an exact equivalent), `approximated: how`, or `lost: why`. Generated from\n\
         the formats' own feature tables (`Format::feature_support`, the table each `lower` step\n\
         reports from) by `cargo xtask loss-matrix`; a test fails when this file differs from\n\
         what the code declares. \"not declared\": the format has no table yet.\n\n",
    );
    text.push_str("| feature |");
    for f in &formats {
        text.push_str(&format!(" {} |", f.info().name));
    }
    text.push_str("\n|---|");
    for _ in &formats {
        text.push_str("---|");
    }
    text.push('\n');
    for feature in Feature::ALL {
        text.push_str(&format!("| {} |", feature.title()));
        for f in &formats {
            let table = f.feature_support();
            let cell = if table.is_empty() {
                "not declared".to_owned()
            } else {
                lookup(table, feature).describe()
            };
            text.push_str(&format!(" {} |", cell.replace('|', "\\|")));
        }
        text.push('\n');
    }
    text
}
