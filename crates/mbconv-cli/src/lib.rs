//! The command line of the `mbconv` tool: its arguments, and the parser that adds one `x2y`
//! shortcut for every pair of the registry's formats with a short name ([`cli::parse_from`]),
//! so that a format that registers a short name gets its shortcuts with no change here; and
//! the lowered model written back in its source format that the simulators judge a conversion
//! against ([`written_back`], for `cargo xtask golden chrono` and the simulator golden test).
//!
//! It is not the library for tool authors (that is the `mbconv` crate, which this package
//! uses for every format, the check and the simulator) and holds no conversion logic: the
//! commands themselves live in the `mbconv` binary of this package.
//!
//! ```
//! use mbconv_cli::cli::{Invocation, parse_from};
//! let registry = mbconv::formats();
//! let Ok(Invocation::Shortcut { shortcut, .. }) = parse_from(&registry, ["mbconv", "skel2yaml", "arm.skel"]) else {
//!     panic!("skel2yaml is a shortcut")
//! };
//! assert_eq!((shortcut.from, shortcut.to), ("skel", "chrono"));
//! ```

pub mod cli;
pub mod written_back;
