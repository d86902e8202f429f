//! xacro inputs: a file whose name ends in `.xacro` (`robot.urdf.xacro`, `robot.sdf.xacro`,
//! `robot.xacro`) is expanded by `mbconv-xacro` as xacro 2.1 expands it, and the expansion is
//! what the format reads: the format of the name without `.xacro`, else of the expansion's
//! root element (`<robot>`: URDF, `<sdf>`: SDFormat). The reader's settings `arg:NAME=VALUE`
//! are the file's arguments (xacro's `NAME:=VALUE`) and `package_path` also serves
//! `$(find)`; errors and findings the reader places in the expansion are moved back to the
//! `.xacro` file and place they came from; the report says the file was expanded and from
//! which files.

use crate::error::Error;
use crate::ir::format::{SettingKind, SettingSpec, Source, SourceError};
use crate::{Category, Finding, Report, Settings, Severity};
use std::path::{Path, PathBuf};

/// The prefix of the reader settings that give a xacro file's arguments (`arg:name=value`).
pub const ARG_PREFIX: &str = "arg:";

/// A xacro file as expanded for its reader.
#[derive(Debug)]
pub struct XacroInput {
    /// The expansion (text, files read, arguments, the map back to the files).
    pub expansion: mbconv_xacro::Expansion,
    /// The name the reader was given for the expansion.
    reader_name: String,
}

impl XacroInput {
    /// The arguments the file declares (`<xacro:arg>`), with their defaults and the values used.
    pub fn args(&self) -> &[mbconv_xacro::Arg] {
        &self.expansion.args
    }

    /// The files the expansion read (the input, its includes, YAML files), each once, in the
    /// order first read.
    pub fn files(&self) -> Vec<&Path> {
        let mut files: Vec<&Path> = Vec::new();
        for f in &self.expansion.files {
            if !files.contains(&f.as_path()) {
                files.push(f);
            }
        }
        files
    }
}

/// What xacro inputs are, in one line (`mbconv formats --settings` prints it above
/// [`READ_SETTINGS`]).
pub const DESCRIPTION: &str = "xacro inputs (*.urdf.xacro, *.sdf.xacro, *.xacro): expanded as xacro 2.1 \
expands them, then read as the format of the name without .xacro (else of the expansion's root), with these read settings besides that format's";

/// The read settings a `.xacro` input takes besides those of the format its expansion is read
/// as: `arg:NAME` stands for every argument name (xacro's `NAME:=VALUE`).
///
/// ```
/// let names: Vec<&str> = mbconv::xacro::READ_SETTINGS.iter().map(|s| s.name).collect();
/// assert_eq!(names, ["arg:NAME", "package_path"]);
/// ```
pub const READ_SETTINGS: &[SettingSpec] = &[
    SettingSpec {
        name: "arg:NAME",
        kind: SettingKind::Text,
        default: "the <xacro:arg> default",
        help: "the argument NAME (xacro's NAME:=VALUE); `mbconv info` lists a file's arguments",
    },
    SettingSpec {
        name: "package_path",
        kind: SettingKind::Text,
        default: "ROS_PACKAGE_PATH, then AMENT_PREFIX_PATH's share/",
        help: "directories holding ROS packages, `:`-separated, where $(find PKG) looks, as for package:// URIs",
    },
];

/// True when `path` names a xacro file.
///
/// ```
/// assert!(mbconv::xacro::is_xacro(std::path::Path::new("ur.urdf.xacro")));
/// assert!(!mbconv::xacro::is_xacro(std::path::Path::new("ur.urdf")));
/// ```
pub fn is_xacro(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("xacro"))
}

/// The path the format is detected from: `robot.urdf.xacro` -> `robot.urdf`.
pub(crate) fn detection_path(path: &Path) -> PathBuf {
    path.with_extension("")
}

/// Expands `source` (the xacro file at `path`, or text named so) with the `arg:` settings and
/// `package_path` of `settings`; returns the source the reader reads, the settings it takes
/// (without the arguments) and the expansion.
pub(crate) fn expand(
    source: &Source,
    path: &Path,
    settings: &Settings,
) -> Result<(Source, Settings, XacroInput), Error> {
    let mut xacro = mbconv_xacro::Settings::default();
    let mut rest = Settings::default();
    rest.output_path.clone_from(&settings.output_path);
    rest.readers.clone_from(&settings.readers);
    for (key, value) in settings.iter() {
        match key.strip_prefix(ARG_PREFIX) {
            Some(name) => {
                xacro.args.insert(name.to_owned(), value.to_owned());
            }
            None => rest.set(key, value),
        }
    }
    if let Some(dirs) = settings.get("package_path") {
        xacro.package_path = dirs
            .split(':')
            .filter(|d| !d.is_empty())
            .map(PathBuf::from)
            .collect();
    }
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let expansion = mbconv_xacro::expand_str(&source.text, &source.name, &absolute, &xacro)
        .map_err(|e| Error::Format(e as crate::ir::format::FormatError))?;
    // The reader refuses a `.xacro` name: it is given the expansion under a name of its own,
    // at the place of the file (relative meshes resolve beside it).
    let reader_name = format!("{}.expanded", source.name);
    let reader_path = source.path.as_ref().map(|p| p.with_extension("expanded"));
    let expanded = Source::from_string(reader_name.clone(), expansion.text.clone())
        .with_path(reader_name.clone(), reader_path);
    Ok((
        expanded,
        rest,
        XacroInput {
            expansion,
            reader_name,
        },
    ))
}

impl XacroInput {
    /// A reader's error placed in the expansion, moved to the xacro file and place it came
    /// from.
    pub(crate) fn relocate(&self, error: crate::ir::format::FormatError) -> Error {
        let err: &(dyn std::error::Error + 'static) = &*error;
        if let Some(e) = err.downcast_ref::<SourceError>()
            && e.file == self.reader_name
            && let Some(moved) = self.expansion.relocate(e)
        {
            return Error::Format(Box::new(moved));
        }
        Error::Format(error)
    }

    /// Moves the findings of `report` placed in the expansion to the files they came from,
    /// and adds the note that says what was expanded.
    pub(crate) fn relocate_report(&self, report: &mut Report, input: &str) {
        for f in &mut report.findings {
            let in_expansion = f.file.as_deref().is_none_or(|file| file == self.reader_name);
            if let (true, Some(span)) = (in_expansion, f.span.as_ref())
                && let Some((source, span)) = self.expansion.locate(span.offset)
            {
                f.file = Some(source.name.clone());
                f.span = Some(span);
            } else if in_expansion && f.file.is_some() {
                f.file = Some(input.to_owned());
            }
        }
    }

    /// The note that says the file was expanded, from which files and with which arguments.
    pub(crate) fn note(&self) -> Finding {
        let files: Vec<String> = self.files().iter().map(|f| f.display().to_string()).collect();
        let args: Vec<String> = self
            .expansion
            .args
            .iter()
            .map(|a| format!("{}={}", a.name, a.value))
            .collect();
        let mut message = format!(
            "expanded as xacro 2.1 expands it, from {} file{}: {}",
            files.len(),
            if files.len() == 1 { "" } else { "s" },
            files.join(", ")
        );
        if !args.is_empty() {
            message.push_str(&format!(
                "; arguments (--read-option arg:NAME=VALUE): {}",
                args.join(", ")
            ));
        }
        Finding::new("xacro.expanded", Severity::Info, Category::Note, message)
    }

    /// The expansion's warnings as findings.
    pub(crate) fn warnings(&self) -> impl Iterator<Item = Finding> + '_ {
        self.expansion.warnings.iter().map(|w| {
            let mut f = Finding::new("xacro.warning", Severity::Info, Category::Note, w.message.clone())
                .with_span(w.span.clone());
            f.file.clone_from(&w.file);
            f
        })
    }
}
