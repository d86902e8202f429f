//! Choreonoid Body YAML -> IR, following `StdBodyLoader`: the header, the `links` list (Link,
//! ContinuousTrack, SubBody, Skip), the link tree, and `extraJoints`; then the IR model: one
//! body per link (its frame is the joint frame), one joint per link from its parent (the world
//! for the root link), devices, shapes and loop constraints.

mod body;
mod elements;
mod extra_joints;
mod fields;
mod geometry;
mod links;
mod model;

use crate::raw;
use fields::Doc;
use mbconv_ir::format::kit::SourceResult;
use mbconv_ir::format::{Imported, Source};
use std::sync::Arc;

/// Reads a `.body` file.
pub(crate) fn read(source: &Source) -> SourceResult<Imported> {
    let root = raw::parse(source)?;
    let doc = Doc {
        source: Arc::new(source.clone()),
        root,
        degree_mode: true,
        is_main: true,
        lenient: Default::default(),
    };
    model::import(source, doc)
}
