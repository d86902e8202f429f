//! What the Shift writer does with each IR feature (the format's row of the loss matrix).

use mbconv_ir::format::support::{FeatureTable, full_table};

/// How Shift JSON carries each IR feature (what `lower` does).
///
/// The rows are kept as text in `support.txt` beside this file (one line a feature: its key,
/// its support and the words), read when the crate is built: a row missing, misspelt or
/// given twice does not build.
pub(crate) const FEATURE_SUPPORT: FeatureTable = full_table(include_str!("support.txt"));
