//! Typed format settings: each format declares the settings it reads and writes with
//! [`SettingSpec`]s, and [`Options::check`] refuses an unknown or ill-typed one before any work
//! is done, naming the setting and listing the valid ones.
//!
//! The values themselves travel as `KEY=VALUE` text (that is how users type them); once
//! checked, a format reads them with the typed getters [`Options::flag`], [`Options::choice`]
//! and [`Options::text`].

use super::{FormatError, Imported, Source};
use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

/// Which way a setting applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Settings of a reader (`--read-option`).
    Read,
    /// Settings of a writer (`--write-option`).
    Write,
}

impl fmt::Display for Direction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Read => "read",
            Self::Write => "write",
        })
    }
}

/// The type of a setting's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SettingKind {
    /// `true` or `false`.
    Flag,
    /// One of the listed words (compared without regard to case).
    Choice(&'static [&'static str]),
    /// A file path.
    Path,
    /// Free text.
    Text,
}

impl SettingKind {
    /// What a value of this kind looks like, for messages and `mbconv formats --settings`.
    pub fn expected(&self) -> String {
        match self {
            Self::Flag => "true or false".to_owned(),
            Self::Choice(words) => words.join(" | "),
            Self::Path => "a file path".to_owned(),
            Self::Text => "text".to_owned(),
        }
    }

    fn accepts(&self, value: &str) -> bool {
        match self {
            Self::Flag => matches!(value, "true" | "false"),
            Self::Choice(words) => words.iter().any(|w| w.eq_ignore_ascii_case(value)),
            Self::Path | Self::Text => !value.is_empty(),
        }
    }
}

/// One setting a format understands.
///
/// ```
/// use mbconv_ir::format::settings::{SettingKind, SettingSpec};
/// const ANGLES: SettingSpec = SettingSpec {
///     name: "angles",
///     kind: SettingKind::Choice(&["degrees", "radians"]),
///     default: "as read, else degrees",
///     help: "the unit of the angles written",
/// };
/// assert_eq!(ANGLES.kind.expected(), "degrees | radians");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SettingSpec {
    /// The key users type.
    pub name: &'static str,
    /// The value's type.
    pub kind: SettingKind,
    /// The default, in words.
    pub default: &'static str,
    /// One line on what it does.
    pub help: &'static str,
}

/// An unknown setting, or a value of the wrong type.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, miette::Diagnostic)]
pub enum SettingError {
    /// The format has no setting of this name.
    #[error("the {format} format has no {direction} setting {name:?}; valid {direction} settings: {valid}")]
    #[diagnostic(
        code(format::unknown_setting),
        help("`mbconv formats --settings` lists every setting of every format")
    )]
    Unknown {
        /// Format name.
        format: String,
        /// Read or write.
        direction: Direction,
        /// The key given.
        name: String,
        /// The valid keys, or `none`.
        valid: String,
    },
    /// The value does not fit the setting's type.
    #[error("invalid {format} {direction} setting {name}={value:?}: expected {expected}")]
    #[diagnostic(code(format::bad_setting))]
    BadValue {
        /// Format name.
        format: String,
        /// Read or write.
        direction: Direction,
        /// The key.
        name: String,
        /// The value given.
        value: String,
        /// What the setting takes.
        expected: String,
    },
}

/// The shared write setting `up=x|y|z`: the registry turns the whole model about the world
/// origin so that gravity points down this axis before the format's own lowering
/// ([`crate::lower::reorient`]); every writer accepts it, and the check compares the
/// conversion's motion turned back into the original world.
pub const UP: SettingSpec = SettingSpec {
    name: "up",
    kind: SettingKind::Choice(UP_AXES),
    default: "none: the model keeps its world axes",
    help: "turn the whole model about the world origin so that gravity points down this axis (reported with the rotation)",
};

/// The values of [`UP`]: the world axes.
pub const UP_AXES: &[&str] = &["x", "y", "z"];

/// The shared write setting `assets=reference|copy`: whether the files a written model names
/// (meshes) are referenced where they are (`reference`, the default: a relative name is
/// rewritten relative to the output, a `package://` URI kept) or copied into a folder beside
/// the output, `<output stem>_meshes/` (`copy`), so that the output folder holds everything it
/// names. A file the target cannot read (a COLLADA mesh for MuJoCo) is converted into that
/// folder either way. The [`Registry`](super::Registry) applies it after the format's
/// lowering ([`super::kit::copy_meshes`]).
pub const ASSETS: SettingSpec = SettingSpec {
    name: "assets",
    kind: SettingKind::Choice(ASSET_POLICIES),
    default: "reference",
    help: "reference: name mesh files where they are (relative to the output, or the URI as read); copy: copy them into <output stem>_meshes/ beside the output (files the target cannot read are converted there either way)",
};

/// The values of [`ASSETS`].
pub const ASSET_POLICIES: &[&str] = &["reference", "copy"];

/// The write settings every format accepts because the [`Registry`](super::Registry) applies
/// them itself, before and around the format's own steps.
pub const SHARED_WRITE_SETTINGS: &[SettingSpec] = &[UP, ASSETS];

/// Format settings as `KEY=VALUE` text, plus where the output goes.
///
/// ```
/// use mbconv_ir::format::settings::{Direction, Options, SettingKind, SettingSpec};
/// const SPECS: &[SettingSpec] = &[SettingSpec {
///     name: "lenient", kind: SettingKind::Flag, default: "false", help: "accept what the loader accepts",
/// }];
/// let mut o = Options::default();
/// o.set("lenient", "true");
/// assert!(o.check("chrono", Direction::Read, SPECS).is_ok());
/// assert!(o.flag("lenient"));
/// o.set("no_such_setting", "1");
/// let err = o.check("chrono", Direction::Read, SPECS).unwrap_err();
/// assert!(err.to_string().contains("no_such_setting"));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    values: BTreeMap<String, String>,
    /// The output path, when writing to a file (writers name companion files after it).
    pub output_path: Option<PathBuf>,
    /// The readers of the other formats, for a reader whose file names a file of another
    /// format (a Choreonoid project's body item naming a URDF file): the facade `mbconv` fills
    /// it with every built format's reader; a format crate used alone has none.
    pub readers: Option<Readers>,
}

/// The signature of a [`Readers`] hook: the format's registry name, the source and that
/// format's read settings; `None` when no such reader is built.
type ReadWith = dyn Fn(&str, &Source, &Options) -> Option<Result<Imported, FormatError>> + Send + Sync;

/// A hook through which a reader hands a file of another format to that format's reader,
/// since a format crate depends on no other format. The facade fills [`Options::readers`] with
/// its registry's readers; two hooks are equal when they are the same hook.
///
/// ```
/// use mbconv_ir::format::{Options, Readers, Source};
/// // A registry that knows only the IR as JSON.
/// let readers = Readers::new(|format, source, options| {
///     (format == "mbir").then(|| {
///         use mbconv_ir::format::Format;
///         mbconv_ir::mbir::MbirFormat.read(source, options)
///     })
/// });
/// let text = mbconv_ir::mbir::to_string(&mbconv_ir::Model::new("m"));
/// let source = Source::from_string("m.mbir.json", text);
/// let read = readers.read("mbir", &source, &Options::default()).unwrap().unwrap();
/// assert_eq!(read.model.name, "m");
/// assert!(readers.read("urdf", &source, &Options::default()).is_none());
/// ```
#[derive(Clone)]
pub struct Readers(Arc<ReadWith>);

impl Readers {
    /// A hook that reads with `read_with(format, source, options)`.
    pub fn new(
        read_with: impl Fn(&str, &Source, &Options) -> Option<Result<Imported, FormatError>>
        + Send
        + Sync
        + 'static,
    ) -> Self {
        Self(Arc::new(read_with))
    }

    /// Reads `source` with the reader of `format` (a registry name) and `options` (that
    /// format's read settings, checked by the registry); `None` when no such reader is built.
    pub fn read(
        &self,
        format: &str,
        source: &Source,
        options: &Options,
    ) -> Option<Result<Imported, FormatError>> {
        (self.0)(format, source, options)
    }
}

impl fmt::Debug for Readers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Readers(..)")
    }
}

impl PartialEq for Readers {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for Readers {}

impl Options {
    /// Sets a value.
    pub fn set(&mut self, key: impl Into<String>, value: impl Into<String>) {
        self.values.insert(key.into(), value.into());
    }
    /// The value under `key`, as typed.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.values.get(key).map(String::as_str)
    }
    /// All settings.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.values.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }
    /// Refuses a key that `specs` does not declare and a value that does not fit its kind.
    pub fn check(
        &self,
        format: &str,
        direction: Direction,
        specs: &[SettingSpec],
    ) -> Result<(), SettingError> {
        for (name, value) in &self.values {
            let Some(spec) = specs.iter().find(|s| s.name == name) else {
                let valid: Vec<&str> = specs.iter().map(|s| s.name).collect();
                return Err(SettingError::Unknown {
                    format: format.to_owned(),
                    direction,
                    name: name.clone(),
                    valid: if valid.is_empty() {
                        "none".to_owned()
                    } else {
                        valid.join(", ")
                    },
                });
            };
            if !spec.kind.accepts(value) {
                return Err(SettingError::BadValue {
                    format: format.to_owned(),
                    direction,
                    name: name.clone(),
                    value: value.clone(),
                    expected: spec.kind.expected(),
                });
            }
        }
        Ok(())
    }
    /// These settings without the ones `specs` declares (the registry's shared settings taken
    /// out before a format sees them).
    ///
    /// ```
    /// use mbconv_ir::format::settings::{Options, SHARED_WRITE_SETTINGS};
    /// let mut o = Options::default();
    /// o.set("up", "z");
    /// o.set("angles", "degrees");
    /// let own = o.without(SHARED_WRITE_SETTINGS);
    /// assert_eq!(own.get("up"), None);
    /// assert_eq!(own.get("angles"), Some("degrees"));
    /// ```
    pub fn without(&self, specs: &[SettingSpec]) -> Options {
        let mut kept = self.clone();
        kept.values
            .retain(|name, _| !specs.iter().any(|s| s.name == name));
        kept
    }
    /// A checked [`SettingKind::Flag`]: `true` only when set to `true`.
    pub fn flag(&self, key: &str) -> bool {
        self.get(key) == Some("true")
    }
    /// A checked [`SettingKind::Choice`], in the spelling of `words` (the declared list).
    pub fn choice(&self, key: &str, words: &[&'static str]) -> Option<&'static str> {
        let value = self.get(key)?;
        words.iter().copied().find(|w| w.eq_ignore_ascii_case(value))
    }
    /// A checked [`SettingKind::Path`] or [`SettingKind::Text`].
    pub fn text(&self, key: &str) -> Option<&str> {
        self.get(key)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    const SPECS: &[SettingSpec] = &[
        SettingSpec {
            name: "angles",
            kind: SettingKind::Choice(&["degrees", "radians"]),
            default: "degrees",
            help: "",
        },
        SettingSpec {
            name: "strict",
            kind: SettingKind::Flag,
            default: "false",
            help: "",
        },
    ];

    #[test]
    fn ill_typed_values_name_the_setting_and_what_it_takes() {
        let mut o = Options::default();
        o.set("angles", "gradians");
        let err = o.check("chrono", Direction::Write, SPECS).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid chrono write setting angles=\"gradians\": expected degrees | radians"
        );
        let mut o = Options::default();
        o.set("strict", "1");
        assert!(o.check("chrono", Direction::Write, SPECS).is_err());
    }

    #[test]
    fn unknown_settings_list_the_valid_ones() {
        let mut o = Options::default();
        o.set("no_such_setting", "1");
        let err = o.check("skel", Direction::Read, &[]).unwrap_err();
        assert!(err.to_string().contains("valid read settings: none"), "{err}");
        let err = o.check("chrono", Direction::Write, SPECS).unwrap_err();
        assert!(err.to_string().contains("angles, strict"), "{err}");
    }

    #[test]
    fn choices_come_back_in_the_declared_spelling() {
        let mut o = Options::default();
        o.set("angles", "Radians");
        assert!(o.check("chrono", Direction::Write, SPECS).is_ok());
        assert_eq!(o.choice("angles", &["degrees", "radians"]), Some("radians"));
    }
}
