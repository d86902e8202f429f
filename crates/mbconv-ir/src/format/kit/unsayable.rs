//! The error of an emitter handed a model its format cannot say as it stands: the lowering
//! passes should have changed (and reported) the item first.

/// Why a model cannot be written in a format without lowering it first: the item's IR path and
/// what the format cannot say about it. Emitters return it; `Format::write` never does, since
/// it lowers first.
///
/// ```
/// use mbconv_ir::format::kit::Unsayable;
/// let e = Unsayable::new("URDF", "joints[\"j\"]", "a ball joint");
/// assert_eq!(e.to_string(), "joints[\"j\"]: a ball joint (the model must be lowered for URDF first)");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsayable {
    /// The format's name as people write it (`URDF`, `SDFormat`).
    pub format: &'static str,
    /// The IR path of the item.
    pub path: String,
    /// What the format cannot say about it.
    pub reason: String,
}

impl Unsayable {
    /// The item at `path` that `format` cannot say, and why.
    pub fn new(format: &'static str, path: impl Into<String>, reason: impl Into<String>) -> Self {
        Self {
            format,
            path: path.into(),
            reason: reason.into(),
        }
    }
}

impl std::fmt::Display for Unsayable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: {} (the model must be lowered for {} first)",
            self.path, self.reason, self.format
        )
    }
}

impl std::error::Error for Unsayable {}

impl miette::Diagnostic for Unsayable {}
