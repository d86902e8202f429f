//! IR -> URDF: [`lower_with`] turns any model into one URDF can say (every change a finding
//! on its IR path), then [`emit`] writes that model as text, losing nothing more. The write
//! setting `root` ([`RootWriting`]) says how a floating root is written, for both.

mod emit;
mod lower;
mod support;
#[cfg(test)]
mod tests;

pub(crate) use lower::{RootWriting, lower_with};
pub(crate) use support::FEATURE_SUPPORT;

use crate::spec;
use mbconv_ir::Model;
use mbconv_ir::format::{Exported, FormatError, Options};
use mbconv_ir::report::Report;

/// Writes a lowered `model` as URDF text, a floating root as `options` say; a model URDF
/// cannot say as it stands is refused, naming the item.
pub(crate) fn emit(model: &Model, options: &Options) -> Result<Exported, FormatError> {
    let root = RootWriting::from_options(options);
    let text = emit::emit_with(model, root).map_err(|e| Box::new(e) as FormatError)?;
    Ok(Exported::text(text, Report::default()))
}

/// The read settings that read back what `write_options` wrote: a root written free
/// (`root=free`) is read back free.
pub(crate) fn read_back_options(write_options: &Options) -> Options {
    let mut options = Options::default();
    if RootWriting::from_options(write_options) == RootWriting::Free {
        options.set(spec::ROOT, "free");
    }
    options
}
