//! xacro, the XML macro language of ROS robot descriptions, expanded as the reference
//! implementation (xacro 2.1 from PyPI) expands it, so that mbconv reads `.urdf.xacro` and
//! `.sdf.xacro` files directly: the expansion is the XML document the URDF or SDFormat reader
//! then reads, printed as `xacro` prints it, and every element, attribute and text of it
//! remembers the file and place it came from, so that an error found in the expanded model
//! points into the right `.xacro` file ([`Expansion::locate`]). It knows no model format;
//! the facade `mbconv` hands its output to the format's reader.
//!
//! The language: properties (values and blocks, `scope="parent|global"`, lazy evaluation,
//! `default`, `remove`), arguments (`<xacro:arg>`, `$(arg ...)`, given with
//! [`Settings::args`]), `${...}` expressions (the Python subset real packages use, with
//! Python's arithmetic and number printing), macros (defaults, `^` and `^|` forwarding,
//! `*block` and `**block` parameters, `xacro:call`), `xacro:insert_block`, `xacro:include`
//! (relative, `$(find pkg)`, `ns`, globs, `optional`), `xacro:if`/`xacro:unless`,
//! `xacro:element`/`xacro:attribute`, `xacro.load_yaml` (through `mbconv-yaml`, scalars
//! resolved as PyYAML's YAML 1.1), `$(env)`, `$(optenv)`, `$(eval)`, `$(cwd)`, and the
//! comments the reference keeps and removes. Like xacro 2.1, only elements spelled
//! `xacro:...` are xacro's (the un-prefixed forms of ROS 1's old files are left as they are).
//! Errors name file, line and column, the includes and the macro calls that led there; a
//! runaway expansion (endless recursion, exponential growth) is stopped by a budget.
//!
//! Inside: `xml` (the tree with places, its parser and printer), `value`, `bignum`, `expr`,
//! `builtins`, `complex` and `format` (the expression language), `scope` (symbol and macro tables), `subst`
//! (`$(...)`), `expand` (the expansion). See `docs/xacro.md`.
//!
//! ```
//! let dir = std::env::temp_dir().join(format!("mbconv-xacro-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).unwrap();
//! let file = dir.join("r.urdf.xacro");
//! std::fs::write(&file, r#"<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro">
//!   <xacro:arg name="len" default="0.5"/>
//!   <xacro:property name="half" value="${$(arg len) / 2}"/>
//!   <xacro:macro name="link" params="name *origin">
//!     <link name="${name}"><visual><xacro:insert_block name="origin"/></visual></link>
//!   </xacro:macro>
//!   <xacro:link name="a"><origin xyz="0 0 ${half}"/></xacro:link>
//! </robot>"#).unwrap();
//! let mut settings = mbconv_xacro::Settings::default();
//! settings.args.insert("len".into(), "0.3".into());
//! let expansion = mbconv_xacro::expand_file(&file, &settings).unwrap();
//! assert!(expansion.text.contains(r#"<origin xyz="0 0 0.15"/>"#), "{}", expansion.text);
//! assert_eq!(expansion.args[0].name, "len");
//! std::fs::remove_dir_all(&dir).unwrap();
//! ```

mod bignum;
mod builtins;
mod complex;
mod expand;
mod expr;
mod format;
mod scope;
mod subst;
mod timestamp;
mod value;
mod xml;

use mbconv_ir::format::{Source, SourceError};
use mbconv_ir::report::SourceSpan;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// How to expand: the arguments (`name:=value` on xacro's command line), the directories
/// that hold ROS packages for `$(find)` (searched before `ROS_PACKAGE_PATH`, then
/// `AMENT_PREFIX_PATH`'s `share/`), and the environment `$(env)` and `$(optenv)` read.
///
/// ```
/// let mut settings = mbconv_xacro::Settings::default();
/// settings.args.insert("ur_type".into(), "ur5e".into());
/// assert!(settings.package_path.is_empty());
/// ```
#[derive(Clone, Debug, Default)]
pub struct Settings {
    /// Argument values by name; they override the `default` of `<xacro:arg>`.
    pub args: BTreeMap<String, String>,
    /// Directories holding ROS packages, or packages themselves: a package is a folder whose
    /// `package.xml` gives its name (the directory itself or up to two levels down), else a
    /// folder of that name.
    pub package_path: Vec<PathBuf>,
    /// The environment; `None`: the process's.
    pub env: Option<BTreeMap<String, String>>,
}

/// An argument a file declares with `<xacro:arg>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arg {
    /// Its name.
    pub name: String,
    /// Its `default`, as written.
    pub default: String,
    /// The value the expansion used.
    pub value: String,
}

/// A warning of the expansion (what the reference prints as a warning), with its place.
#[derive(Clone, Debug)]
pub struct Warning {
    /// What.
    pub message: String,
    /// The file it points into, when known.
    pub file: Option<String>,
    /// Where in that file.
    pub span: Option<SourceSpan>,
}

/// An expanded document.
#[derive(Debug)]
pub struct Expansion {
    /// The document as `xacro` prints it (`toprettyxml` with two-space indentation), without
    /// the banner comment xacro puts first.
    pub text: String,
    /// The root element's name (`robot`, `sdf`).
    pub root: String,
    /// Every file read: the input, the included files, the YAML files, in the order read.
    pub files: Vec<PathBuf>,
    /// The arguments the files declare, in the order met, with the values used.
    pub args: Vec<Arg>,
    /// What the reference would warn about.
    pub warnings: Vec<Warning>,
    sources: Vec<Source>,
    spans: Vec<(usize, usize, xml::Loc)>,
}

impl Expansion {
    /// The file and place in it that the text at byte `offset` of [`Expansion::text`] came
    /// from: the innermost element, attribute or text that covers it.
    pub fn locate(&self, offset: usize) -> Option<(&Source, SourceSpan)> {
        let (_, _, loc) = self
            .spans
            .iter()
            .filter(|(start, end, _)| *start <= offset && offset < *end)
            .min_by_key(|(start, end, _)| end - start)?;
        let source = self.sources.get(loc.file as usize)?;
        Some((source, source.span(loc.offset as usize, 1)))
    }

    /// An error a reader found in [`Expansion::text`], moved to the file and place it came
    /// from (the message says it was found in the expansion); `None` when it has no span.
    pub fn relocate(&self, error: &SourceError) -> Option<SourceError> {
        let span = error.span.as_ref()?;
        let (source, at) = self.locate(span.offset)?;
        let mut moved = source.error(
            &error.code,
            Some(at),
            format!("{} (in the xacro expansion)", error.message),
        );
        moved.help.clone_from(&error.help);
        Some(moved)
    }
}

/// Expands the xacro file at `path`.
///
/// # Errors
/// A `SourceError` (code `xacro.*`) naming the file, line and column, with the include sites
/// and macro calls that led there: malformed XML, an unknown macro, a missing parameter, an
/// expression that cannot be evaluated, an include that cannot be read, a package not found,
/// a runaway expansion.
pub fn expand_file(path: &Path, settings: &Settings) -> Result<Expansion, Box<SourceError>> {
    let source = Source::from_path(path).map_err(|e| {
        let src = Source::from_string(path.display().to_string(), String::new());
        Box::new(src.error("xacro.io", None, format!("cannot read {}: {e}", path.display())))
    })?;
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    expand_source(&source.text, &source.name, &absolute, settings)
}

/// Expands xacro text named `name` as if it were the file `path` (relative includes resolve
/// against its directory).
///
/// ```
/// let text = r#"<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro">
///   <xacro:property name="n" value="3"/><link name="l${n * 2}"/></robot>"#;
/// let x = mbconv_xacro::expand_str(text, "r.xacro", std::path::Path::new("r.xacro"), &Default::default()).unwrap();
/// assert!(x.text.contains(r#"<link name="l6"/>"#));
/// let bad = r#"<robot xmlns:xacro="http://www.ros.org/wiki/xacro">
///   <xacro:nope/></robot>"#;
/// let e = mbconv_xacro::expand_str(bad, "b.xacro", std::path::Path::new("b.xacro"), &Default::default()).unwrap_err();
/// assert_eq!(e.to_string(), "b.xacro:2:3: unknown macro name: xacro:nope");
/// ```
///
/// # Errors
/// As [`expand_file`].
pub fn expand_str(
    text: &str,
    name: &str,
    path: &Path,
    settings: &Settings,
) -> Result<Expansion, Box<SourceError>> {
    expand_source(text, name, path, settings)
}

fn expand_source(
    text: &str,
    name: &str,
    path: &Path,
    settings: &Settings,
) -> Result<Expansion, Box<SourceError>> {
    let env = settings.env.clone();
    let inputs = expand::Inputs {
        args: settings.args.clone(),
        env: Box::new(move |k: &str| match &env {
            Some(map) => map.get(k).cloned(),
            None => std::env::var(k).ok(),
        }),
        package_path: settings.package_path.clone(),
        cwd: std::env::current_dir().unwrap_or_default(),
    };
    let mut ex = expand::Expander::new(inputs);
    let file = ex.add_file(
        path.to_path_buf(),
        name.to_owned(),
        name.to_owned(),
        text.to_owned(),
    );
    let result = expand::expand_document(&mut ex, file);
    let sources: Vec<Source> = ex
        .files
        .iter()
        .map(|f| {
            Source::from_string(f.name.clone(), f.text.clone())
                .with_path(f.name.clone(), Some(f.path.clone()))
        })
        .collect();
    let doc = result.map_err(|e| Box::new(to_source_error(&e, &sources, &ex)))?;
    let printed = xml::print(&doc, ex.marker);
    let warnings = ex
        .warnings
        .iter()
        .map(|(at, message)| {
            let place = at.and_then(|l| sources.get(l.file as usize).map(|s| (s, l)));
            Warning {
                message: message.clone(),
                file: place.map(|(s, _)| s.name.clone()),
                span: place.map(|(s, l)| s.span(l.offset as usize, 1)),
            }
        })
        .collect();
    let args = ex
        .declared
        .iter()
        .map(|d| Arg {
            name: d.name.clone(),
            default: d.default.clone(),
            value: ex.args.get(&d.name).cloned().unwrap_or_default(),
        })
        .collect();
    Ok(Expansion {
        text: printed.text,
        root: doc.root.name.clone(),
        files: ex.files.iter().map(|f| f.path.clone()).collect(),
        args,
        warnings,
        sources,
        spans: printed.spans,
    })
}

fn to_source_error(e: &expand::XError, sources: &[Source], ex: &expand::Expander) -> SourceError {
    let place = |l: &xml::Loc| {
        sources
            .get(l.file as usize)
            .map(|s| (s, s.span(l.offset as usize, 1)))
    };
    let mut message = e.message.clone();
    // The innermost calls and includes, then how many more (an endless recursion has many).
    const SHOWN: usize = 8;
    for (name, at) in e.macros.iter().rev().take(SHOWN) {
        if let Some((s, span)) = place(at) {
            message.push_str(&format!(
                "\n  in macro {name} called at {}:{}:{}",
                s.name, span.line, span.column
            ));
        }
    }
    if e.macros.len() > SHOWN {
        message.push_str(&format!(
            "\n  ... and {} macro calls more",
            e.macros.len() - SHOWN
        ));
    }
    for at in e.includes.iter().rev().take(SHOWN) {
        if let Some((s, span)) = place(at) {
            message.push_str(&format!(
                "\n  in a file included at {}:{}:{}",
                s.name, span.line, span.column
            ));
        }
    }
    if e.includes.len() > SHOWN {
        message.push_str(&format!("\n  ... and {} includes more", e.includes.len() - SHOWN));
    }
    let _ = ex;
    match e.at.as_ref().and_then(place) {
        Some((source, span)) => source.error(e.code, Some(span), message),
        None => sources.first().map_or_else(
            || Source::from_string("<xacro>", "").error(e.code, None, message.clone()),
            |s| s.error(e.code, None, message.clone()),
        ),
    }
}
