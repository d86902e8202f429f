//! What the SDFormat writer does with each IR feature (the format's row of the loss matrix);
//! the `lower` passes report the same, item by item.

use mbconv_ir::format::support::{FeatureTable, full_table};

/// The SDFormat writer's feature table.
///
/// The rows are kept as text in `support.txt` beside this file (one line a feature: its key,
/// its support and the words), read when the crate is built: a row missing, misspelt or
/// given twice does not build.
pub(crate) const FEATURE_SUPPORT: FeatureTable = full_table(include_str!("support.txt"));
