//! IR -> Shift JSON: [`lower`] (IR -> IR, every change reported) then [`emit`] (text, losing
//! nothing more), and the feature table both follow.

mod emit;
mod json;
mod lower;
mod support;

pub(crate) use emit::emit;
pub(crate) use lower::lower;
pub(crate) use support::FEATURE_SUPPORT;
