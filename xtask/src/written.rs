//! `cargo xtask golden urdf-written`, `mjcf-written` and `sdf-written`: a writer judged by the
//! simulators that load its format ([`URDF`], [`MJCF`], [`SDF`]: one [`Target`] each).
//!
//! Every model of the other formats (the fixtures of the folders
//! [`mbconv_test_support::JUDGED_FIXTURE_DIRS`] and every file of `../shared/corpus/` that a
//! built format other than the target reads, as `cargo xtask corpus` enumerates them) is
//! converted to the target format with mbconv's library (default settings, as `mbconv convert
//! X --to urdf`). The texts go into a scratch directory (`target/tmp/<format>_written`, never
//! the project), each in its own folder beside links to the meshes its relative paths name
//! (the target's [`FileReference`]: URDF `filename=`, MJCF `<mesh file=>`, SDFormat `<uri>`);
//! the target's oracle script (`oracles/urdf/urdf_written_golden.py`,
//! `oracles/mujoco/mjcf_written_golden.py`, `oracles/drake/sdf_written_golden.py`) loads each
//! and records the simulators' verdicts and a 1 s trajectory (MuJoCo's, Drake's for SDFormat),
//! and writes one JSON file per model into the target's golden
//! folder with the hash of the text it judged ([`mbconv_test_support::text_hash`]). Models
//! that are not read, not valid or not written are listed on standard error and in
//! `not_written.txt` there.
//!
//! With `--stale` ([`Judge::Stale`]) only the models whose written text has changed since their
//! golden file was made (the file's `hash` is not the new text's) are judged again; the other
//! golden files stay as they are, and those of models no longer written are removed. The
//! oracle's verdict depends on the text alone (and the meshes it names), so the result is the
//! golden data a full run gives, in a fraction of its time.

use crate::workspace_root;
use anyhow::{Context, Result};
use mbconv_ir::format::{Options, Registry, Source};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// A format whose writer is judged: where its golden data goes and who judges it.
pub struct Target {
    /// The registry name of the format written (models of this format are not converted).
    pub format: &'static str,
    /// The golden data's folder, relative to the workspace root.
    pub golden: &'static str,
    /// The oracle script, relative to the workspace root.
    pub oracle: &'static str,
    /// Where the written text names files (meshes, textures) relative to itself.
    pub file_reference: FileReference,
    /// The written file's name in its scratch folder.
    pub file_name: &'static str,
    /// The folders of `fixtures/` whose models are converted.
    pub fixture_dirs: &'static [&'static str],
    /// The folders of `../shared/corpus/` whose models are converted (every file a format
    /// reads below them); empty: the whole corpus.
    pub corpus_dirs: &'static [&'static str],
    /// The Python that runs the oracle (its venv made when missing).
    pub python: fn() -> Result<PathBuf>,
}

/// The URDF writer, judged by MuJoCo, Pinocchio and Drake.
pub const URDF: Target = Target {
    format: "urdf",
    golden: "formats/mbconv-urdf/tests/golden/written",
    oracle: "oracles/urdf/urdf_written_golden.py",
    file_reference: FileReference::Attribute("filename=\""),
    file_name: "model.urdf",
    fixture_dirs: &mbconv_test_support::JUDGED_FIXTURE_DIRS,
    corpus_dirs: &[],
    python: oracle_python,
};

/// The MJCF writer, judged by MuJoCo.
pub const MJCF: Target = Target {
    format: "mjcf",
    golden: "formats/mbconv-mjcf/tests/golden/written_all",
    oracle: "oracles/mujoco/mjcf_written_golden.py",
    file_reference: FileReference::Attribute(" file=\""),
    file_name: "model.xml",
    fixture_dirs: &["body", "chrono", "ir", "shift", "skel", "urdf"],
    corpus_dirs: &[],
    python: oracle_python,
};

/// The SDFormat writer, judged by Drake (which refuses loops in SDFormat).
pub const SDF: Target = Target {
    format: "sdf",
    golden: "formats/mbconv-sdf/tests/golden/written_all",
    oracle: "oracles/drake/sdf_written_golden.py",
    file_reference: FileReference::ElementText("uri"),
    file_name: "model.sdf",
    fixture_dirs: &["body", "chrono", "ir", "mjcf", "shift", "skel", "urdf"],
    corpus_dirs: &[],
    python: oracle_python,
};

/// The USD writer, judged by Newton (its USD import and Featherstone solver on the CPU) on
/// every fixture of the other formats and the corpus's Choreonoid, Chrono, MJCF, SDFormat, DART
/// and URDF models (the corpus's Shift models are not judged yet: `docs/formats/usd.md`,
/// "Remaining (issue 40)"). The writer names no files (meshes are not embedded yet).
pub const USD: Target = Target {
    format: "usd",
    golden: "formats/mbconv-usd/tests/golden/newton",
    oracle: "oracles/newton/usd_newton_golden.py",
    file_reference: FileReference::None,
    file_name: "model.usda",
    fixture_dirs: &["body", "chrono", "ir", "mjcf", "sdf", "shift", "skel", "urdf"],
    corpus_dirs: &["body", "chrono", "mjcf", "sdf", "skel", "urdf"],
    python: crate::oracles::newton_python,
};

/// Where a written text names a file relative to itself.
#[derive(Clone, Copy, Debug)]
pub enum FileReference {
    /// In the value of an attribute, given with its `="` (`filename="`).
    Attribute(&'static str),
    /// As the text of an element (`<uri>…</uri>`), given by its tag.
    ElementText(&'static str),
    /// Nowhere: the format's writer names no files.
    None,
}

impl FileReference {
    /// Every value the text gives this way, XML-unescaped.
    fn values(self, text: &str) -> Vec<String> {
        let (open, close) = match self {
            FileReference::Attribute(attribute) => (attribute.to_owned(), "\"".to_owned()),
            FileReference::ElementText(tag) => (format!("<{tag}>"), format!("</{tag}>")),
            FileReference::None => return Vec::new(),
        };
        text.split(open.as_str())
            .skip(1)
            .filter_map(|piece| piece.split(close.as_str()).next())
            .map(unescape)
            .collect()
    }
}

/// The XML text `value` stands for (the five predefined entities).
fn unescape(value: &str) -> String {
    value
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

/// The Python with the oracles: `$MBCONV_ORACLE_PYTHON` when set (a venv made elsewhere, e.g.
/// the main checkout's `target/oracle-venv`), else this checkout's `target/oracle-venv`.
pub(crate) fn oracle_python() -> Result<PathBuf> {
    match std::env::var_os("MBCONV_ORACLE_PYTHON") {
        Some(python) => Ok(PathBuf::from(python)),
        None => crate::oracles::setup(),
    }
}

/// One model to judge: the golden file's stem, the source as shown (`fixtures/skel/a.skel`,
/// `corpus/skel/b.skel`) and its path.
struct Entry {
    name: String,
    shown: String,
    path: PathBuf,
}

/// The golden file stem of a shown source path: `/` becomes `__`.
fn golden_name(shown: &str) -> String {
    shown.replace('/', "__")
}

/// The fixtures and corpus files the writer is judged on.
fn entries(target: &Target, registry: &Registry) -> Result<Vec<Entry>> {
    use mbconv_test_support::{FIXTURES_NOT_MODELS, fixtures_root};
    let mut out = Vec::new();
    for dir in target.fixture_dirs {
        let mut files: Vec<PathBuf> = std::fs::read_dir(fixtures_root().join(dir))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file())
            .collect();
        files.sort();
        for path in files {
            let file = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            let relative = format!("{dir}/{file}");
            if FIXTURES_NOT_MODELS.contains(&relative.as_str()) {
                continue;
            }
            let shown = format!("fixtures/{relative}");
            out.push(Entry {
                name: golden_name(&shown),
                shown,
                path,
            });
        }
    }
    let corpus = mbconv_test_support::corpus_root();
    if corpus.is_dir() {
        let mut files = Vec::new();
        crate::corpus::collect(&corpus, &mut |path| {
            let relative = path.strip_prefix(&corpus).unwrap_or(path);
            let selected = target.corpus_dirs.is_empty()
                || target.corpus_dirs.iter().any(|dir| relative.starts_with(dir));
            if selected && crate::corpus::readable_kind(registry, path) {
                files.push(path.to_path_buf());
            }
        })?;
        for path in files {
            let relative = path.strip_prefix(&corpus).unwrap_or(&path).display().to_string();
            let shown = format!("corpus/{relative}");
            out.push(Entry {
                name: golden_name(&shown),
                shown,
                path,
            });
        }
    } else {
        eprintln!(
            "note: {} is missing: only the fixtures are judged",
            corpus.display()
        );
    }
    Ok(out)
}

/// The text mbconv writes in the target's format for the model at `path` (read with default
/// settings, as `mbconv convert`), or why there is none. Sources of the target's own format
/// are not this task's: `Ok(None)`.
fn written(target: &Target, registry: &Registry, entry: &Entry) -> Result<Option<String>, String> {
    let source = Source::from_path(&entry.path)
        .map_err(|e| e.to_string())?
        .with_path(entry.shown.clone(), Some(entry.path.clone()));
    let format = registry
        .detect(&entry.path, Some(&source.text))
        .map_err(|e| e.to_string())?;
    if format.info().name == target.format {
        return Ok(None);
    }
    let imported = registry
        .read(format, &source, &Options::default())
        .map_err(|e| format!("not read: {e}"))?;
    let validation = mbconv_ir::validate::validate(&imported.model);
    if let Some(error) = validation.at_least(mbconv_ir::Severity::Error).next() {
        return Err(format!("not valid: {error}"));
    }
    let writer = registry.get(target.format).map_err(|e| e.to_string())?;
    let exported = registry
        .write(writer, &imported.model, &Options::default())
        .map_err(|e| format!("not written: {e}"))?;
    Ok(Some(exported.text))
}

/// The relative file names the text gives by `reference` (meshes and textures), without URIs,
/// absolute paths and paths out of the folder.
fn relative_files(text: &str, reference: FileReference) -> Vec<String> {
    let mut out: Vec<String> = reference
        .values(text)
        .into_iter()
        .filter(|name| !name.contains("://") && !name.starts_with('/') && !name.split('/').any(|p| p == ".."))
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Writes the target's golden data (see the module's documentation).
/// Which models a run judges.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Judge {
    /// Every model: the golden folder is made anew.
    All,
    /// Only the models whose golden file judged another text (or is missing).
    Stale,
}

/// The hash recorded in the golden file `path` (of the text its oracle judged), if any.
fn judged_hash(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let value: serde_json::Value = serde_json::from_str(&text).ok()?;
    value.get("hash")?.as_str().map(str::to_owned)
}

/// Writes every model as `target`'s format and has the oracle judge those `judge` selects.
pub fn golden(target: &Target, judge: Judge) -> Result<()> {
    let python = (target.python)()?;
    let root = workspace_root();
    let registry = mbconv::formats();
    let scratch = root.join(format!("target/tmp/{}_written", target.format));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch)?;
    let out = root.join(target.golden);
    let mut manifest = Vec::new();
    let mut kept = std::collections::BTreeSet::new();
    let mut not_written = String::new();
    for entry in entries(target, &registry)? {
        let text = match written(target, &registry, &entry) {
            Ok(Some(text)) => text,
            Ok(None) => continue,
            Err(reason) => {
                let first = reason.lines().next().unwrap_or_default();
                let _ = writeln!(not_written, "{}: {first}", entry.shown);
                continue;
            }
        };
        let hash = mbconv_test_support::text_hash(&text);
        let golden_file = out.join(format!("{}.json", entry.name));
        if judge == Judge::Stale && judged_hash(&golden_file).as_deref() == Some(hash.as_str()) {
            kept.insert(golden_file);
            continue;
        }
        let dir = scratch.join(&entry.name);
        std::fs::create_dir_all(&dir)?;
        let source_dir = entry.path.parent().unwrap_or(Path::new("."));
        for file in relative_files(&text, target.file_reference) {
            let linked = source_dir.join(&file);
            let link = dir.join(&file);
            if linked.exists() && !link.exists() {
                if let Some(parent) = link.parent() {
                    std::fs::create_dir_all(parent)?;
                }
                std::os::unix::fs::symlink(&linked, &link)
                    .with_context(|| format!("cannot link {}", link.display()))?;
            }
        }
        let file = dir.join(target.file_name);
        std::fs::write(&file, &text).with_context(|| format!("cannot write {}", file.display()))?;
        manifest.push(serde_json::json!({
            "name": entry.name,
            "source": entry.shown,
            target.format: file.display().to_string(),
            "hash": hash,
        }));
    }
    eprint!("{not_written}");
    eprintln!(
        "{} models written as {}, {} not; {} to judge, {} judged before",
        manifest.len() + kept.len(),
        target.format,
        not_written.lines().count(),
        manifest.len(),
        kept.len()
    );
    let manifest_path = scratch.join("manifest.json");
    std::fs::write(&manifest_path, serde_json::to_string_pretty(&manifest)?)?;
    match judge {
        Judge::All => {
            let _ = std::fs::remove_dir_all(&out);
        }
        Judge::Stale => {
            for file in std::fs::read_dir(&out)?.filter_map(|e| e.ok().map(|e| e.path())) {
                let golden = file.extension().is_some_and(|e| e == "json");
                if golden && !kept.contains(&file) {
                    std::fs::remove_file(&file)?;
                }
            }
        }
    }
    std::fs::create_dir_all(&out)?;
    let not_written =
        crate::corpus::machine_independent(&not_written, &root, &mbconv_test_support::corpus_root());
    std::fs::write(out.join("not_written.txt"), not_written)?;
    crate::run(
        &python,
        &[
            target.oracle,
            "--manifest",
            &manifest_path.to_string_lossy(),
            "--out",
            &out.to_string_lossy(),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_files_of_attributes_and_element_texts() {
        let urdf = r#"<mesh filename="meshes/a&amp;b.stl"/><mesh filename="package://p/m.stl"/>
            <mesh filename="/abs/m.stl"/><mesh filename="../up.stl"/><mesh filename="meshes/a&amp;b.stl"/>"#;
        assert_eq!(relative_files(urdf, URDF.file_reference), ["meshes/a&b.stl"]);
        let mjcf = r#"<mesh name="m" file="m.obj"/><texture file="t.png"/><mesh profile="x"/>"#;
        assert_eq!(relative_files(mjcf, MJCF.file_reference), ["m.obj", "t.png"]);
        let sdf = "<mesh><uri>meshes/b.dae</uri></mesh><mesh><uri>model://m/x.stl</uri></mesh>\
                   <mesh><uri>a.obj</uri><submesh><name>n</name></submesh></mesh>";
        assert_eq!(relative_files(sdf, SDF.file_reference), ["a.obj", "meshes/b.dae"]);
    }
}
