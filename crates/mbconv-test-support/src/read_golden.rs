//! The harness of the readers' golden tests (`formats/mbconv-{mjcf,urdf,sdf}/tests/golden.rs`):
//! one JSON file per model a simulator read (`fixtures__<file>.json`, `corpus__<path>.json`,
//! made by `cargo xtask golden <format>`), naming the model's `file` under the format's folder
//! of `fixtures/` or of the corpus. [`ReadGolden`] lists the files, finds the model each judges
//! and checks that they cover exactly the fixtures; a format's test gives only its comparison.

use crate::corpus::{corpus_file, fixtures_root};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A reader's golden data: its folder, the format's folder name and the task that makes it.
///
/// ```no_run
/// use mbconv_test_support::read_golden::ReadGolden;
/// let golden = ReadGolden::new(env!("CARGO_MANIFEST_DIR"), "tests/golden", "mjcf");
/// for (name, value) in golden.files() {
///     let Some(model) = golden.model_path(&name, &value) else { continue };
///     assert!(model.is_file());
/// }
/// ```
pub struct ReadGolden {
    /// The folder of the golden files.
    pub dir: PathBuf,
    /// The format's folder in `fixtures/` and in the corpus (`"mjcf"`).
    pub format: &'static str,
    /// The command that regenerates the golden data, for messages.
    pub task: String,
}

impl ReadGolden {
    /// The golden data in `folder` of the crate at `manifest_dir` (its `CARGO_MANIFEST_DIR`)
    /// for the format whose folder of `fixtures/` and of the corpus is `format`, made by
    /// `cargo xtask golden <format>`.
    pub fn new(manifest_dir: &str, folder: &str, format: &'static str) -> Self {
        Self {
            dir: Path::new(manifest_dir).join(folder),
            format,
            task: format!("cargo xtask golden {format}"),
        }
    }

    /// The golden files as (file name, value), sorted by file name.
    ///
    /// # Panics
    /// When the folder cannot be read or a file is not JSON.
    pub fn files(&self) -> Vec<(String, Value)> {
        let mut files: Vec<(String, Value)> = crate::written_golden::golden_json_files(&self.dir)
            .into_iter()
            .map(|(stem, value)| (format!("{stem}.json"), value))
            .collect();
        files.sort_by(|a, b| a.0.cmp(&b.0));
        files
    }

    /// The model file the golden file `name` judges; `None` for a corpus file when the corpus
    /// is absent (after a notice, see [`corpus_file`]).
    ///
    /// # Panics
    /// When the golden value names no `file`.
    pub fn model_path(&self, name: &str, golden: &Value) -> Option<PathBuf> {
        let file = golden["file"]
            .as_str()
            .unwrap_or_else(|| panic!("{name}: no file"));
        if name.starts_with("fixtures__") {
            Some(fixtures_root().join(self.format).join(file))
        } else {
            corpus_file(&format!("{}/{file}", self.format))
        }
    }

    /// Asserts that the golden files of fixtures (`fixtures__*`) are exactly one per file of
    /// the format's fixture folder (not its subfolders) whose name ends with one of
    /// `extensions` (without the dot), and that there is at least one.
    ///
    /// # Panics
    /// When they differ: the message names the task that regenerates the data.
    pub fn assert_covers_fixtures(&self, extensions: &[&str]) {
        let dir = fixtures_root().join(self.format);
        let mut fixtures: Vec<String> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file())
            .filter_map(|p| file_name(&p))
            .filter(|n| extensions.iter().any(|e| n.ends_with(&format!(".{e}"))))
            .map(|n| format!("fixtures__{n}.json"))
            .collect();
        fixtures.sort();
        let golden: Vec<String> = self
            .files()
            .into_iter()
            .map(|(n, _)| n)
            .filter(|n| n.starts_with("fixtures__"))
            .collect();
        assert_eq!(golden, fixtures, "run `{}`", self.task);
        assert!(!fixtures.is_empty());
    }
}

fn file_name(path: &Path) -> Option<String> {
    path.file_name().and_then(|n| n.to_str()).map(str::to_owned)
}

/// mbconv's reading of a file its judge (`judge`, for messages) loaded, held to the list of
/// files mbconv does not read yet (`not_yet`: golden name, words of mbconv's refusal): the
/// model, or `None` for a listed file refused with the listed words.
///
/// ```
/// use mbconv_test_support::read_golden::read_as_listed;
/// let not_yet = [("b.json", "unsupported")];
/// assert_eq!(read_as_listed("a.json", Ok::<_, String>(1), &not_yet, "MuJoCo"), Some(1));
/// assert_eq!(read_as_listed("b.json", Err::<i32, _>("unsupported tag".into()), &not_yet, "MuJoCo"), None);
/// ```
///
/// # Panics
/// When a listed file is read, or refused otherwise, or an unlisted file is refused.
pub fn read_as_listed<T>(
    name: &str,
    result: Result<T, String>,
    not_yet: &[(&str, &str)],
    judge: &str,
) -> Option<T> {
    match (result, not_yet.iter().find(|(f, _)| *f == name)) {
        (Ok(model), None) => Some(model),
        (Err(e), Some((_, reason))) => {
            assert!(e.contains(reason), "{name}: expected {reason:?}, got {e}");
            None
        }
        (Ok(_), Some(_)) => panic!("{name} is read now: take it off NOT_YET"),
        (Err(e), None) => panic!("{name}: {judge} loads it, mbconv refuses it: {e}"),
    }
}
