//! IR -> MJCF: [`lower`] (any model -> one MJCF can say, every change reported on its IR
//! path), [`emit`] (that model -> MJCF text, losing nothing more) and the feature table
//! ([`support`]). Both steps share [`plan`]: how the IR's spanning tree becomes MJCF's nested
//! bodies; `emit` writes the contact exclusions of [`excludes`] and the initial-state keyframe
//! of [`keyframe`].

pub(crate) mod emit;
mod excludes;
pub(crate) mod keyframe;
pub(crate) mod lower;
pub(crate) mod meshes;
mod plan;
pub(crate) mod support;

pub(crate) use plan::{Plan, joint_frames, tree};

/// MuJoCo's smallest mass and principal moment of a moving body (`mjMINVAL`, 1e-15: smaller
/// ones are refused at load).
pub(crate) use crate::spec::arith::MINVAL as MJ_MINVAL;
