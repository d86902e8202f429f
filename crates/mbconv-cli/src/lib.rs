//! The parts of the `mbconv` command-line tool that other tools of the workspace share: the
//! registry of every format this build reads and writes (`cargo xtask corpus` and
//! `cargo xtask loss-matrix` use it, so that they see exactly the formats the CLI sees).
//!
//! It is not the command-line interface itself (that is the `mbconv` binary of this package)
//! and holds no conversion logic: formats live in their own crates, the check in
//! `mbconv-check`.
//!
//! ```
//! let registry = mbconv_cli::registry::registry();
//! assert!(registry.get("mbir").is_ok());
//! ```

pub mod registry;
