//! Where models come from and go to, and how files are written: a file, standard input or
//! text in memory ([`Input`]); a file or standard output ([`Output`]); the default output name
//! ([`default_output`]); and the one way every file is written ([`write_atomic`]): a temporary
//! file in the same directory renamed into place, so that no reader ever sees a half-written
//! file, never over a file that exists unless forced ([`ensure_new`]) and never over the input
//! ([`ensure_not_input`]).

use crate::Error;
use crate::ir::format::{Format, Source};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// Where a model is read from.
///
/// ```
/// use mbconv::files::Input;
/// assert_eq!(Input::from_arg("-"), Input::Stdin);
/// assert_eq!(Input::from_arg("arm.skel").path(), Some(std::path::Path::new("arm.skel")));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// A file.
    File(PathBuf),
    /// Standard input, named `<stdin>` in messages; relative references resolve against the
    /// working directory.
    Stdin,
    /// Text in memory, with the name its messages use; relative references resolve against
    /// the working directory.
    Text {
        /// The name findings and errors use.
        name: String,
        /// The model's text.
        text: String,
    },
}

impl Input {
    /// A command-line argument: `-` is standard input, anything else a file.
    pub fn from_arg(arg: impl Into<PathBuf>) -> Self {
        let path = arg.into();
        if path.as_os_str() == "-" {
            Self::Stdin
        } else {
            Self::File(path)
        }
    }

    /// The file, when the input is one.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Self::File(path) => Some(path),
            _ => None,
        }
    }

    /// The path format detection looks at: the file, `-` for standard input, the name of text.
    pub(crate) fn detection_path(&self) -> PathBuf {
        match self {
            Self::File(path) => path.clone(),
            Self::Stdin => PathBuf::from("-"),
            Self::Text { name, .. } => PathBuf::from(name),
        }
    }

    /// Reads the whole input.
    ///
    /// # Errors
    /// [`Error::Io`] for a file, [`Error::Stdio`] for standard input.
    pub fn source(&self) -> Result<Source, Error> {
        match self {
            Self::File(path) => binary_usd_source(path)
                .transpose()
                .unwrap_or_else(|| Source::from_path(path))
                .map_err(|source| Error::Io {
                    path: path.clone(),
                    writing: false,
                    source,
                }),
            Self::Stdin => {
                let mut text = String::new();
                std::io::stdin()
                    .read_to_string(&mut text)
                    .map_err(|source| Error::Stdio {
                        writing: false,
                        source,
                    })?;
                Ok(Source::from_string("<stdin>", text))
            }
            Self::Text { name, text } => Ok(Source::from_string(name.clone(), text.clone())),
        }
    }
}

/// A binary USD layer (a `.usdc` crate file, whose first bytes are `PXR-USDC`, or a `.usdz`
/// package) as a source with no text and its path: the USD reader opens such a layer from its
/// file. `None` for every other file, which is read as UTF-8 text.
fn binary_usd_source(path: &Path) -> std::io::Result<Option<Source>> {
    let package = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("usdz"));
    let mut magic = [0u8; 8];
    let crate_file = std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .is_ok_and(|()| &magic == b"PXR-USDC");
    if !package && !crate_file {
        return Ok(None);
    }
    // The file must be there and readable, as for a text file.
    std::fs::metadata(path)?;
    let name = path.display().to_string();
    Ok(Some(
        Source::from_string(name.clone(), String::new()).with_path(name, Some(path.to_path_buf())),
    ))
}

/// Where a model (or any text mbconv writes) goes.
///
/// ```
/// use mbconv::files::Output;
/// assert_eq!(Output::from_arg("-"), Output::Stdout);
/// assert_eq!(Output::from_arg("out.yaml").to_string(), "out.yaml");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Output {
    /// A file.
    File(PathBuf),
    /// Standard output (`-` in messages).
    Stdout,
}

impl Output {
    /// A command-line argument: `-` is standard output, anything else a file.
    pub fn from_arg(arg: impl Into<PathBuf>) -> Self {
        let path = arg.into();
        if path.as_os_str() == "-" {
            Self::Stdout
        } else {
            Self::File(path)
        }
    }

    /// The file, when the output is one.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Self::File(path) => Some(path),
            Self::Stdout => None,
        }
    }

    /// The output of a conversion of `input` to `format` when none is named: standard output
    /// for standard input or text, else [`default_output`] beside the input.
    ///
    /// ```
    /// use mbconv::files::{Input, Output};
    /// let registry = mbconv::formats();
    /// let chrono = registry.get("chrono").unwrap();
    /// let output = Output::for_input(&Input::from_arg("models/arm.skel"), chrono);
    /// assert_eq!(output, Output::File("models/arm.yaml".into()));
    /// assert_eq!(Output::for_input(&Input::Stdin, chrono), Output::Stdout);
    /// ```
    pub fn for_input(input: &Input, format: &dyn Format) -> Self {
        match input.path() {
            Some(path) => Self::File(default_output(path, format)),
            None => Self::Stdout,
        }
    }

    /// The directory companions are written into: the output's (the working directory for
    /// standard output).
    pub(crate) fn companion_dir(&self) -> PathBuf {
        self.path()
            .and_then(Path::parent)
            .map(Path::to_path_buf)
            .unwrap_or_default()
    }
}

impl std::fmt::Display for Output {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::File(path) => write!(f, "{}", path.display()),
            Self::Stdout => f.write_str("-"),
        }
    }
}

/// The default output path: the input's file stem with the target format's main extension,
/// in the input's directory (`arm.mbir.json` -> `arm.yaml`).
///
/// ```
/// let registry = mbconv::formats();
/// let skel = registry.get("skel").unwrap();
/// let out = mbconv::files::default_output("ir/arm.mbir.json".as_ref(), skel);
/// assert_eq!(out, std::path::Path::new("ir/arm.skel"));
/// ```
pub fn default_output(input: &Path, format: &dyn Format) -> PathBuf {
    let stem = model_stem(input);
    let ext = format.info().extensions.first().copied().unwrap_or("out");
    input.with_file_name(format!("{stem}.{ext}"))
}

/// A model file's name without its extension: the longest known compound extension first
/// (`.mbir.json`, and the xacro descriptions' `.urdf.xacro` and `.sdf.xacro`), else the last
/// one; `model` for a path without a (UTF-8) file name.
///
/// ```
/// use mbconv::files::model_stem;
/// assert_eq!(model_stem("ir/arm.mbir.json".as_ref()), "arm");
/// assert_eq!(model_stem("robot.urdf".as_ref()), "robot");
/// assert_eq!(model_stem("ur5e.urdf.xacro".as_ref()), "ur5e");
/// ```
pub fn model_stem(path: &Path) -> &str {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("model");
    let lower = name.to_ascii_lowercase();
    [".mbir.json", ".urdf.xacro", ".sdf.xacro"]
        .iter()
        .find_map(|ext| lower.ends_with(ext).then(|| &name[..name.len() - ext.len()]))
        .unwrap_or_else(|| name.rsplit_once('.').map_or(name, |(stem, _)| stem))
}

/// Refuses ([`Error::OverwritesInput`]) to write `output` when it is the input file.
///
/// ```
/// use mbconv::files::{Input, Output, ensure_not_input};
/// let input = Input::from_arg("arm.skel");
/// assert!(ensure_not_input(&input, &Output::from_arg("arm.skel")).is_err());
/// assert!(ensure_not_input(&input, &Output::Stdout).is_ok());
/// ```
///
/// # Errors
/// When `output` names the input file (after following links, when both exist).
pub fn ensure_not_input(input: &Input, output: &Output) -> Result<(), Error> {
    let (Some(input), Some(output)) = (input.path(), output.path()) else {
        return Ok(());
    };
    let same = match (input.canonicalize(), output.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => input == output,
    };
    if same {
        return Err(Error::OverwritesInput {
            path: input.to_path_buf(),
        });
    }
    Ok(())
}

/// Refuses ([`Error::Exists`]) an output file that exists, unless `force`. Called before any
/// work so that the refusal is immediate; [`write_atomic`] refuses again at the last moment.
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("m.yaml");
/// let output = mbconv::files::Output::File(path.clone());
/// assert!(mbconv::files::ensure_new(&output, false).is_ok());
/// std::fs::write(&path, "").unwrap();
/// assert!(mbconv::files::ensure_new(&output, false).is_err());
/// assert!(mbconv::files::ensure_new(&output, true).is_ok());
/// ```
///
/// # Errors
/// When the file exists and `force` is false.
pub fn ensure_new(output: &Output, force: bool) -> Result<(), Error> {
    match output.path() {
        Some(path) if !force && path.exists() => Err(Error::Exists {
            path: path.to_path_buf(),
        }),
        _ => Ok(()),
    }
}

/// Writes `text` to `output` atomically (a temporary file in the same directory, then a
/// rename), or to standard output. Without `force` an existing file is never replaced: the
/// temporary file is linked to its name, which fails if the name is taken, so that no other
/// writer can slip in between a check and the write.
///
/// ```
/// use mbconv::files::{Output, write_atomic};
/// let dir = tempfile::tempdir().unwrap();
/// let output = Output::File(dir.path().join("notes.txt"));
/// write_atomic(&output, "one", false).unwrap();
/// assert!(matches!(write_atomic(&output, "two", false), Err(mbconv::Error::Exists { .. })));
/// write_atomic(&output, "three", true).unwrap();
/// assert_eq!(std::fs::read_to_string(dir.path().join("notes.txt")).unwrap(), "three");
/// ```
///
/// # Errors
/// [`Error::Exists`] when the file exists and `force` is false; [`Error::Create`],
/// [`Error::Io`] or [`Error::Stdio`] when the system refuses.
pub fn write_atomic(output: &Output, text: &str, force: bool) -> Result<(), Error> {
    let path = match output {
        Output::Stdout => {
            let mut out = std::io::stdout().lock();
            return out
                .write_all(text.as_bytes())
                .and_then(|()| out.flush())
                .map_err(|source| Error::Stdio {
                    writing: true,
                    source,
                });
        }
        Output::File(path) => path,
    };
    let staged = Staged::new(path, |tmp| {
        let mut file = std::fs::File::create(tmp)?;
        file.write_all(text.as_bytes()).and_then(|()| file.sync_all())
    })?;
    staged.commit(force)
}

/// A file written under a temporary name in its destination's directory and not yet in place
/// ([`Staged::commit`] puts it there, [`Staged::discard`] or dropping it removes it): what
/// lets a set of files (a model and the meshes it names) appear only when every one of them
/// could be written.
#[derive(Debug)]
pub struct Staged {
    tmp: PathBuf,
    path: PathBuf,
}

impl Staged {
    /// Writes the temporary file for `path` with `write` (given the temporary file's path).
    ///
    /// ```
    /// let dir = tempfile::tempdir().unwrap();
    /// let path = dir.path().join("mesh.stl");
    /// let staged = mbconv::files::Staged::new(&path, |tmp| std::fs::write(tmp, b"solid")).unwrap();
    /// assert!(!path.exists());
    /// staged.commit(false).unwrap();
    /// assert_eq!(std::fs::read(&path).unwrap(), b"solid");
    /// ```
    ///
    /// # Errors
    /// [`Error::Create`] when the temporary file cannot be made or written.
    pub fn new(path: &Path, write: impl FnOnce(&Path) -> std::io::Result<()>) -> Result<Self, Error> {
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let file_name = path.file_name().and_then(|n| n.to_str()).unwrap_or("output");
        let tmp = dir.join(format!(
            ".{file_name}.{}.{:?}.tmp",
            std::process::id(),
            std::thread::current().id()
        ));
        let staged = Self {
            tmp,
            path: path.to_path_buf(),
        };
        write(&staged.tmp).map_err(|source| Error::Create {
            path: staged.path.clone(),
            temporary: staged.tmp.clone(),
            source,
        })?;
        Ok(staged)
    }

    /// Puts the file at its path. Without `force` an existing file is never replaced: the
    /// temporary file is linked to its name, which fails if the name is taken, so that no
    /// other writer can slip in between a check and the write.
    ///
    /// # Errors
    /// [`Error::Exists`] when the file exists and `force` is false; [`Error::Io`] when the
    /// system refuses.
    pub fn commit(self, force: bool) -> Result<(), Error> {
        let (tmp, path) = (&self.tmp, &self.path);
        let writing = |source| Error::Io {
            path: path.clone(),
            writing: true,
            source,
        };
        if force {
            return std::fs::rename(tmp, path).map_err(writing);
        }
        let exists = || Error::Exists { path: path.clone() };
        match std::fs::hard_link(tmp, path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Err(exists()),
            // A file system without hard links: check, then rename.
            Err(_) if path.exists() => Err(exists()),
            Err(_) => std::fs::rename(tmp, path).map_err(writing),
        }
    }

    /// Removes the temporary file without putting it in place.
    pub fn discard(self) {}
}

impl Drop for Staged {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.tmp);
    }
}
