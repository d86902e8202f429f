//! The command line of the `mbconv` tool: its arguments, and the parser that adds one `x2y`
//! shortcut for every pair of the registry's formats with a short name ([`cli::parse_from`]),
//! so that a format that registers a short name gets its shortcuts with no change here.
//!
//! It is not the library for tool authors (that is the `mbconv` crate, whose pipeline reads,
//! validates, converts, writes and checks every model this package handles) and holds no
//! conversion logic: the commands themselves live in the `mbconv` binary of this package, and
//! only parse arguments, call the pipeline and print.
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
