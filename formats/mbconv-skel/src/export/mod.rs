//! IR -> SKEL: [`lower`] turns a model into what SKEL can say and reports every change;
//! [`emit`] writes a lowered model as text and loses nothing more.
//!
//! A SKEL file is one `<skeleton>` per IR skeleton group (lowering puts every body in one:
//! bodies outside skeleton groups go by connected tree, see [`skeletons`]). Body
//! `<transformation>`s are the stored reference-configuration poses relative to the skeleton
//! frame; joint `<transformation>`s are the child-side joint frames (DART derives the parent
//! side from the poses). Output is deterministic; numbers follow the kit's number policy.

mod emit;
mod lower;
mod skeletons;
mod support;

pub(crate) use emit::emit;
pub(crate) use lower::lower;
pub(crate) use support::FEATURE_SUPPORT;

use crate::spec::NAME;
use mbconv_ir::{Extras, Value};

/// The SKEL name of an item: the original name when the importer had to rename it.
fn skel_name<'a>(name: &'a str, extras: &'a Extras) -> &'a str {
    match extras.get(NAME) {
        Some(Value::String(original)) => original,
        _ => name,
    }
}
