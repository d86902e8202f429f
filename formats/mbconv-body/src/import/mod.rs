//! Choreonoid Body YAML -> IR, following `StdBodyLoader`: the header, the `links` list (Link,
//! ContinuousTrack, SubBody, Skip), the link tree, and `extraJoints`; then the IR model: one
//! body per link (its frame is the joint frame), one joint per link from its parent (the world
//! for the root link), devices, shapes and loop constraints. A Choreonoid project (`.cnoid`)
//! reads as the body files its body items name, placed and posed as the project says, with the
//! simulator item's gravity and time step (`project`, `project_state`).

mod body;
mod elements;
mod extra_joints;
mod fields;
mod foreign;
mod geometry;
mod links;
mod model;
mod project;
mod project_state;

pub(crate) use project::ProjectSettings;

use crate::raw;
use fields::Doc;
use mbconv_ir::format::kit::SourceResult;
use mbconv_ir::format::{Imported, Source};

/// Reads a `.body` file or a Choreonoid project.
pub(crate) fn read(source: &Source, settings: &ProjectSettings) -> SourceResult<Imported> {
    let root = raw::parse(source)?;
    if project::is_project(&root) {
        return project::read(source, root, settings);
    }
    body_document(source, root)
}

/// Reads a `.body` file (a project names these).
fn read_body(source: &Source) -> SourceResult<Imported> {
    let root = raw::parse(source)?;
    body_document(source, root)
}

fn body_document(source: &Source, root: raw::Node) -> SourceResult<Imported> {
    model::import(source, Doc::main(source, root))
}
