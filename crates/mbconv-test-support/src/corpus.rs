//! Where the test data is: the workspace, its `fixtures/` folders and the shared corpus
//! (`../shared/corpus` beside the project, or `$MBCONV_CORPUS`). Tests that read the corpus call
//! [`corpus`] or [`corpus_file`]: when the data is missing they are skipped with a notice on
//! standard error, unless `MBCONV_REQUIRE_CORPUS=1` is set (CI sets it), in which case the test
//! fails and names what is missing, so a moved corpus file can never turn a test green silently.
//!
//! ```no_run
//! let Some(dir) = mbconv_test_support::corpus::corpus("skel") else { return };
//! assert!(dir.join("chain.skel").is_file());
//! ```

use std::path::{Path, PathBuf};

/// The folders of `fixtures/` whose models the loss matrix (`docs/loss-matrix.md`) and the
/// written-file golden tests take: the fixtures of the formats that had them before the XML
/// formats came, and IR JSON. The XML formats' own folders (`mjcf`, `sdf`, `urdf`) are not
/// among them yet: their files written to the other formats have no simulator golden data
/// (making it needs the oracles, `cargo xtask written`); `mbconv check --all` takes every
/// folder but `fixtures/bad` (malformed inputs) in the corpus matrix (`cargo xtask corpus`).
pub const JUDGED_FIXTURE_DIRS: [&str; 5] = ["body", "chrono", "ir", "shift", "skel"];

/// Files in [`JUDGED_FIXTURE_DIRS`] that are not models, relative to `fixtures/`.
pub const FIXTURES_NOT_MODELS: [&str; 1] = ["chrono/solver.yaml"];

/// The `fixtures/` folder.
pub fn fixtures_root() -> PathBuf {
    workspace_root().join("fixtures")
}

/// The environment variable that turns a missing corpus from a skip into a failure.
pub const REQUIRE_CORPUS: &str = "MBCONV_REQUIRE_CORPUS";

/// The workspace root (the directory holding the top-level `Cargo.toml`).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// The shared corpus root: `$MBCONV_CORPUS` when set, else `../shared/corpus` beside the
/// workspace. It may not exist.
pub fn corpus_root() -> PathBuf {
    match std::env::var_os("MBCONV_CORPUS") {
        Some(dir) => PathBuf::from(dir),
        None => workspace_root().join("../shared/corpus"),
    }
}

/// True when `MBCONV_REQUIRE_CORPUS=1`: a missing corpus path fails the test.
pub fn corpus_required() -> bool {
    std::env::var(REQUIRE_CORPUS).is_ok_and(|v| v == "1")
}

/// The corpus directory `relative` (e.g. `"skel"`, `"chrono_derived"`), or `None` after a
/// printed notice when it is missing. Panics, naming the path, when it is missing and
/// `MBCONV_REQUIRE_CORPUS=1`.
pub fn corpus(relative: &str) -> Option<PathBuf> {
    found(corpus_root().join(relative), Path::is_dir)
}

/// The corpus file `relative`, like [`corpus`].
pub fn corpus_file(relative: &str) -> Option<PathBuf> {
    found(corpus_root().join(relative), Path::is_file)
}

/// The registry download `name` (e.g. `"xacro-2.1.1"`), unpacked by `cargo xtask download`
/// into `$MBCONV_DOWNLOADS` when set, else `target/downloads` of the workspace; like
/// [`corpus`], `None` after a notice when it is missing, a panic under
/// `MBCONV_REQUIRE_CORPUS=1`.
pub fn downloaded(name: &str) -> Option<PathBuf> {
    let dir = match std::env::var_os("MBCONV_DOWNLOADS") {
        Some(dir) => PathBuf::from(dir),
        None => workspace_root().join("target/downloads"),
    };
    let path = dir.join(name);
    if path.join(".mbconv-download-complete").is_file() {
        return Some(path);
    }
    missing(&format!("{} (fetched by `cargo xtask download`)", path.display()));
    None
}

/// The `share` folder (holding `example-robot-data/robots/`) of the example-robot-data wheel
/// that `cargo xtask download example-robot-data` unpacks into `$MBCONV_DOWNLOADS` or
/// `target/downloads` (131 MB, which CI does not fetch), or `None` after a notice when it is
/// not there: a skip even under `MBCONV_REQUIRE_CORPUS=1`.
pub fn example_robot_data_share() -> Option<PathBuf> {
    let dir = match std::env::var_os("MBCONV_DOWNLOADS") {
        Some(dir) => PathBuf::from(dir),
        None => workspace_root().join("target/downloads"),
    };
    let root = dir.join("example-robot-data-6.0.0");
    if root.join(".mbconv-download-complete").is_file() {
        return Some(root.join("cmeel.prefix/share"));
    }
    eprintln!(
        "notice: {} not found (`cargo xtask download example-robot-data`); test skipped",
        root.display()
    );
    None
}

/// A whole MuJoCo Menagerie checkout named by `$MBCONV_MENAGERIE` (as `cargo xtask field
/// --menagerie DIR` takes it; the shared corpus holds only a few of its robots), or `None`
/// after a notice when the variable is not set or names no folder: a skip even under
/// `MBCONV_REQUIRE_CORPUS=1`, as the download above.
///
/// ```
/// if let Some(dir) = mbconv_test_support::corpus::menagerie_checkout() {
///     assert!(dir.is_dir());
/// }
/// ```
pub fn menagerie_checkout() -> Option<PathBuf> {
    let dir = std::env::var_os("MBCONV_MENAGERIE").map(PathBuf::from);
    match dir {
        Some(dir) if dir.is_dir() => Some(dir),
        _ => {
            eprintln!("notice: no Menagerie checkout ($MBCONV_MENAGERIE); test skipped");
            None
        }
    }
}

fn found(path: PathBuf, exists: fn(&Path) -> bool) -> Option<PathBuf> {
    if exists(&path) {
        return Some(path);
    }
    missing(&path.display().to_string());
    None
}

/// Reports a missing corpus item: a panic naming it under `MBCONV_REQUIRE_CORPUS=1`, a notice
/// otherwise. For tests that look for corpus data in their own way.
pub fn missing(what: &str) {
    if corpus_required() {
        panic!("{what} is missing and {REQUIRE_CORPUS}=1: the shared corpus must be present");
    }
    eprintln!("notice: {what} not found; corpus test skipped (set {REQUIRE_CORPUS}=1 to fail instead)");
}

/// Every file under `dir` (recursively) whose name ends with `.{extension}`, sorted.
pub fn files_with_extension(dir: &Path, extension: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else if p
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.ends_with(&format!(".{extension}")))
            {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Reads `fixtures/FORMAT/lenient/NAME` with `format` and default options, panicking when the
/// reader refuses it or when the model read fails validation with an error: a lenient fixture
/// is a file its reference loader reads, so mbconv must read it (with its findings).
pub fn read_lenient(format: &dyn mbconv_ir::format::Format, name: &str) -> mbconv_ir::format::Imported {
    use mbconv_ir::format::{Options, Source};
    let path = fixtures_root()
        .join(format.info().name)
        .join("lenient")
        .join(name);
    let source = Source::from_path(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
    let imported = format
        .read(&source, &Options::default())
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let errors: Vec<String> = mbconv_ir::validate(&imported.model)
        .at_least(mbconv_ir::Severity::Error)
        .map(|f| f.to_string())
        .collect();
    assert!(errors.is_empty(), "{name}: {errors:?}");
    imported
}

/// Reads the lenient fixture `NAME` of `format` (see [`read_lenient`]), a file with attributes
/// not separated by whitespace from the previous value (`name="a"type="box"`), which XML
/// forbids and the format's loader (tinyxml2) reads, and checks what every XML reader does with
/// it: one warning `<format>.attributes_not_separated` (severity warning) pointing at the
/// first such attribute's name in the file, and the model read the one the same text gives
/// with a space before each attribute named in `attributes` (the mbir texts equal), read
/// without that warning. Returns what was read and the file's text.
pub fn read_attributes_not_separated(
    format: &dyn mbconv_ir::format::Format,
    name: &str,
    attributes: &[&str],
) -> (mbconv_ir::format::Imported, String) {
    use mbconv_ir::format::{Format, Options, Source};
    let imported = read_lenient(format, name);
    let path = fixtures_root()
        .join(format.info().name)
        .join("lenient")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
    let code = format!("{}.attributes_not_separated", format.info().name);
    let warnings: Vec<_> = imported
        .report
        .findings
        .iter()
        .filter(|f| f.code == code)
        .collect();
    assert_eq!(warnings.len(), 1, "{name}: {warnings:?}");
    assert_eq!(warnings[0].severity, mbconv_ir::Severity::Warning, "{name}");
    let span = warnings[0]
        .span
        .clone()
        .unwrap_or_else(|| panic!("{name}: no span"));
    let first = &text[span.offset..span.offset + span.length];
    assert!(
        attributes.contains(&first),
        "{name}: the warning points at {first:?}"
    );
    assert_eq!(
        (span.line, span.column),
        line_column(&text, span.offset),
        "{name}: the warning's line and column"
    );
    let mut separated = text.clone();
    for attribute in attributes {
        separated = separated.replace(&format!("\"{attribute}="), &format!("\" {attribute}="));
    }
    assert_ne!(separated, text, "{name}");
    let plain = format
        .read(
            &Source::from_string(path.display().to_string(), separated)
                .with_path(path.display().to_string(), Some(path.clone())),
            &Options::default(),
        )
        .unwrap_or_else(|e| panic!("{name} separated: {e}"));
    assert!(plain.report.findings.iter().all(|f| f.code != code), "{name}");
    let mbir = |i: &mbconv_ir::format::Imported| {
        mbconv_ir::mbir::MbirFormat
            .write(&i.model, &Options::default())
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .text
    };
    assert_eq!(
        mbir(&imported),
        mbir(&plain),
        "{name}: not the model of the separated text"
    );
    (imported, text)
}

/// The 1-based line and column (in characters) of byte `offset` of `text`, as the readers
/// report positions.
///
/// ```
/// assert_eq!(mbconv_test_support::corpus::line_column("ab\ncé\nd", 6), (2, 3));
/// ```
pub fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (
        before.matches('\n').count() + 1,
        before[line_start..].chars().count() + 1,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_corpus_root_is_beside_the_workspace() {
        assert!(workspace_root().join("Cargo.toml").is_file());
        assert!(corpus_root().ends_with("shared/corpus") || std::env::var_os("MBCONV_CORPUS").is_some());
    }
}
