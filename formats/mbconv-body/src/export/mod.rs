//! IR -> Choreonoid Body: `lower` (IR -> IR, every change a finding), then `emit` (the lowered
//! model as format 2.0 YAML, losing nothing more).

mod emit;
mod lower;
mod shapes;
mod support;

pub(crate) use emit::emit;
pub(crate) use lower::lower;
pub(crate) use support::FEATURE_SUPPORT;
