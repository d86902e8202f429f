//! IR -> USD: [`lower`] turns a model into what UsdPhysics can say and reports every change;
//! [`emit`] writes a lowered model as one `.usda` layer and loses nothing more.
//!
//! The layer has one root prim (the model, the stage's `defaultPrim`) holding a
//! `PhysicsScene` (gravity), a `bodies` scope (one Xform with `PhysicsRigidBodyAPI` and
//! `PhysicsMassAPI` per body, at its world pose as `translate` and `orient` in doubles, its
//! shapes as gprims under it) and a `joints` scope. Stage units are metres and kilograms,
//! Z up.

mod emit;
mod lower;
mod rates;
mod support;

use mbconv_ir::format::kit::Unsayable;
use mbconv_ir::format::{FormatError, Options};

pub(crate) use emit::emit;
pub(crate) use lower::lower;
pub(crate) use support::{FEATURE_SUPPORT, SIMULATOR_LAWS};

/// The refusal of an output path ending in `.usdc` or `.usdz`: the writer emits a `.usda`
/// text layer, and a format hands the facade text, so binary layers are not written (the
/// `openusd` crate could encode them). `None` for any other output.
pub(crate) fn binary_output(options: &Options) -> Option<FormatError> {
    let path = options.output_path.as_deref()?;
    let ending = path.extension()?.to_str()?.to_ascii_lowercase();
    if ending != "usdc" && ending != "usdz" {
        return None;
    }
    let message = format!(
        "{}: mbconv writes USD as .usda text only; a .{ending} layer is binary. Write a .usda \
         (or .usd) file and convert it with OpenUSD (`usdcat model.usda -o model.{ending}`)",
        path.display()
    );
    Some(Box::new(Unsayable::new("USD", "model".to_owned(), message)))
}

/// A valid prim name for `name`: letters, digits and underscores, not starting with a digit.
pub(crate) fn prim_name(name: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

/// Valid, unique prim names for `names`, in order (a clash gets `_2`, `_3`, ...).
pub(crate) fn prim_names<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut taken = std::collections::HashSet::new();
    names
        .into_iter()
        .map(|n| {
            let base = prim_name(n);
            let mut candidate = base.clone();
            let mut k = 2;
            while !taken.insert(candidate.clone()) {
                candidate = format!("{base}_{k}");
                k += 1;
            }
            candidate
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_become_valid_and_unique() {
        assert_eq!(prim_names(["a b", "a-b", "1x", ""]), ["a_b", "a_b_2", "_1x", "_"]);
    }
}
