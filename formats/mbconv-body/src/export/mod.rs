//! IR -> Choreonoid Body: `lower` (IR -> IR, every change a finding), then `emit` (the lowered
//! model as format 2.0 YAML, losing nothing more), with the Choreonoid project beside it that
//! carries gravity, time step and the initial state (`project`).

mod emit;
mod lower;
pub(crate) mod project;
mod shapes;
mod support;

pub(crate) use emit::emit;
pub(crate) use lower::lower;
pub(crate) use support::FEATURE_SUPPORT;
