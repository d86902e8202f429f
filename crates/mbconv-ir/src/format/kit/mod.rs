//! What every format crate needs and none should write again: the import session
//! ([`ImportSession`]: source, report, source map, span-aware findings and errors, unique
//! names), the exactness aids ([`aids`]: numbers kept as written so a same-format round trip is
//! bit-exact), one policy for writing numbers ([`numbers`]) and the reference loaders' ways of
//! reading them ([`scan`]), and the lowering session ([`LowerSession`]) with the steps the
//! writers share: table-driven removals of what a format cannot say, the passes several
//! writers run alike, and [`ItemFindings`] for the findings of one joint or body.
//!
//! A format crate has the same rooms as every other: `raw` (the document as read, with spans),
//! `spec` (keys, defaults and conventions both directions share), `import/`, `export/` (`lower`
//! and `emit`) and a `lib.rs` that only implements [`Format`](super::Format). See
//! `docs/adding-a-format.md`.

pub mod aids;
mod assets;
mod common;
mod item_findings;
mod lowering;
mod mesh_paths;
pub mod numbers;
pub mod scan;
mod session;
mod shared_passes;
mod topology;
mod unsayable;

pub use assets::{asset_folder, copy_meshes, place_asset};
pub use common::CollisionSwitch;
pub use item_findings::ItemFindings;
pub use lowering::{
    ACTING_EXTRAS, LowerSession, PassSnapshot, Tracing, verify_traced_lowering, verify_traced_lowerings,
};
pub use mesh_paths::{is_relative_file_name, package_uri_with_its_name, relative_path};
pub use session::{ImportSession, SourceResult, qualified_unique_name};
pub use shared_passes::Unstated;
pub use topology::{
    body_frames_on_joints, joints_as_chains, joints_as_chains_where, reverse_joints_towards_root,
};
pub use unsayable::Unsayable;
