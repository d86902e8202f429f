//! A stand-in for a tool author's crate: it depends on `mbconv` only, and its tests read,
//! convert, check and simulate fixtures through the facade, so that the facade's public API
//! is proven to be enough for that (nothing here reaches into `mbconv-ir`, a format crate or
//! the CLI). It is not published and holds nothing but [`fixture`].
//!
//! ```
//! assert!(mbconv_facade_test::fixture("skel/joint_revolute.skel").is_file());
//! ```

use std::path::PathBuf;

/// A file of the workspace's `fixtures/` directory.
pub fn fixture(relative: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(relative)
}
