//! How USD carries each IR feature: the table `lower` reports from and the loss matrix is
//! generated from.

use mbconv_ir::format::support::{FeatureTable, full_table};

/// USD's row for every [`Feature`](mbconv_ir::format::support::Feature).
///
/// The rows are kept as text in `support.txt` beside this file (one line a feature: its key,
/// its support and the words), read when the crate is built.
pub(crate) const FEATURE_SUPPORT: FeatureTable = full_table(include_str!("support.txt"));
