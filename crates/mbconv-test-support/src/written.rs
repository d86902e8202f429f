//! Helpers of the writers' judged tests (`formats/mbconv-urdf/tests/written.rs`,
//! `formats/mbconv-mjcf/tests/written_all.rs`, `formats/mbconv-sdf/tests/written_all.rs`): their
//! golden data is made by `cargo xtask golden urdf-written`, `mjcf-written` and `sdf-written`
//! (one module, `xtask/src/written.rs`), one JSON file per written model naming its source as
//! `fixtures/...` or `corpus/...` and holding the `hash` of the text its simulators judged.

use mbconv_ir::format::{Exported, Options, Registry, Source};
use nalgebra::{Quaternion, UnitQuaternion, Vector3};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The JSON files of `dir` as (file stem, value), sorted by stem.
///
/// ```
/// let dir = std::env::temp_dir().join("mbconv_test_support_golden_json_files");
/// std::fs::create_dir_all(&dir).unwrap();
/// std::fs::write(dir.join("a.json"), "{\"x\": 1}").unwrap();
/// let files = mbconv_test_support::written::golden_json_files(&dir);
/// assert_eq!(files[0].0, "a");
/// assert_eq!(files[0].1["x"], 1);
/// ```
///
/// # Panics
/// When `dir` cannot be read or a file is not JSON.
pub fn golden_json_files(dir: &Path) -> Vec<(String, Value)> {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let mut files: Vec<(String, Value)> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            let value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            let name = p
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            (name, value)
        })
        .collect();
    files.sort_by(|a, b| a.0.cmp(&b.0));
    files
}

/// The file a golden entry's source names (`fixtures/...` or `corpus/...`); `None` for a
/// corpus file when the corpus is absent (after a notice, see [`crate::corpus_file`]).
///
/// ```
/// let path = mbconv_test_support::written::source_path("fixtures/urdf/arm_mimic.urdf");
/// assert!(path.unwrap().ends_with("fixtures/urdf/arm_mimic.urdf"));
/// ```
///
/// # Panics
/// When `shown` starts with neither `fixtures/` nor `corpus/`.
pub fn source_path(shown: &str) -> Option<PathBuf> {
    if let Some(rest) = shown.strip_prefix("fixtures/") {
        return Some(crate::fixtures_root().join(rest));
    }
    let rest = shown
        .strip_prefix("corpus/")
        .unwrap_or_else(|| panic!("{shown}: neither fixtures/ nor corpus/"));
    crate::corpus_file(rest)
}

/// What `registry` writes in the format named `to` from the model at `path` (shown as
/// `shown`), read with default settings: as `mbconv convert X --to <to>` and the xtask write it.
///
/// # Errors
/// The reason, as text, when the file cannot be read, detected, read or written.
pub fn convert(registry: &Registry, to: &str, shown: &str, path: &Path) -> Result<Exported, String> {
    let source = Source::from_path(path)
        .map_err(|e| e.to_string())?
        .with_path(shown, Some(path.to_path_buf()));
    let format = registry
        .detect(path, Some(&source.text))
        .map_err(|e| e.to_string())?;
    let imported = registry
        .read(format, &source, &Options::default())
        .map_err(|e| e.to_string())?;
    let writer = registry.get(to).map_err(|e| e.to_string())?;
    registry
        .write(writer, &imported.model, &Options::default())
        .map_err(|e| e.to_string())
}

/// The model fixtures of the folders `dirs` (shown as `fixtures/<dir>/<file>`, sorted; the
/// files of [`crate::FIXTURES_NOT_MODELS`] left out), split into those `registry` writes in
/// the format `to` and those it refuses (with why), as the xtask that makes the golden data
/// enumerates them.
///
/// # Panics
/// When a folder cannot be read.
pub fn written_fixtures(
    registry: &Registry,
    to: &str,
    dirs: &[&str],
) -> (Vec<String>, Vec<(String, String)>) {
    let mut written = Vec::new();
    let mut refused = Vec::new();
    for dir in dirs {
        let folder = crate::fixtures_root().join(dir);
        let entries = std::fs::read_dir(&folder).unwrap_or_else(|e| panic!("{}: {e}", folder.display()));
        for path in entries.filter_map(|e| e.ok().map(|e| e.path())) {
            let relative = format!("{dir}/{}", path.file_name().unwrap_or_default().to_string_lossy());
            if !path.is_file() || crate::FIXTURES_NOT_MODELS.contains(&relative.as_str()) {
                continue;
            }
            let shown = format!("fixtures/{relative}");
            match convert(registry, to, &shown, &path) {
                Ok(_) => written.push(shown),
                Err(e) => refused.push((shown, e)),
            }
        }
    }
    written.sort();
    refused.sort();
    (written, refused)
}

/// Asserts that the golden files cover exactly the fixtures written (`written`, from
/// [`written_fixtures`]), and that every golden file's source is written in the format `to`
/// today as the text its simulators (`judges`, for the message) judged: the `hash` it records.
/// Returns how many texts were compared (corpus entries are skipped when the corpus is absent).
///
/// # Panics
/// When a fixture has no golden file or a golden file no fixture, or a text has changed: the
/// message names the xtask that judges it again.
pub fn assert_texts_judged(
    registry: &Registry,
    to: &str,
    golden: &[(String, Value)],
    written: &[String],
    judges: &str,
) -> usize {
    let task = format!("cargo xtask golden {to}-written --stale");
    let fixtures: Vec<&str> = golden
        .iter()
        .filter(|(n, _)| n.starts_with("fixtures__"))
        .filter_map(|(_, v)| v["source"].as_str())
        .collect();
    assert_eq!(
        fixtures, written,
        "the judged fixtures are not the fixtures written: run `{task}`"
    );
    let mut compared = 0;
    for (name, value) in golden {
        let Some(shown) = value["source"].as_str() else {
            panic!("{name}: no source");
        };
        let Some(path) = source_path(shown) else {
            continue;
        };
        let text = convert(registry, to, shown, &path)
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .text;
        assert_eq!(
            crate::text_hash(&text),
            value["hash"].as_str().unwrap_or_default(),
            "{name}: the {to} written from {shown} has changed since {judges} judged it: run `{task}`"
        );
        compared += 1;
    }
    compared
}

/// True when `error` holds every `" | "`-separated piece of `words` (a refusal list's entry).
///
/// ```
/// use mbconv_test_support::written::matches_words;
/// assert!(matches_words("Error: range[0] in joint", "range | joint"));
/// assert!(!matches_words("Error: range[0]", "range | joint"));
/// ```
pub fn matches_words(error: &str, words: &str) -> bool {
    words.split(" | ").all(|w| error.contains(w))
}

/// The largest deviation of `ours` from `theirs`, relative to max(1, |theirs|).
///
/// ```
/// let d = mbconv_test_support::written::relative_deviation(&[2.0, 0.5], &[4.0, 0.5]);
/// assert_eq!(d, 0.5);
/// ```
pub fn relative_deviation(ours: &[f64], theirs: &[f64]) -> f64 {
    let scale = theirs.iter().fold(1.0_f64, |m, x| m.max(x.abs()));
    ours.iter()
        .zip(theirs)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max)
        / scale
}

/// The world centre of mass of `body` when its frame is at `pose` (`[x, y, z, qw, qx, qy, qz]`,
/// as mbconv's solver reports poses).
///
/// ```
/// let mut body = mbconv_ir::Body::new("link");
/// body.inertial.com = nalgebra::Vector3::new(1.0, 0.0, 0.0);
/// // A quarter turn about z carries the centre of mass from x to y.
/// let half = std::f64::consts::FRAC_1_SQRT_2;
/// let com = mbconv_test_support::written::world_com(&body, &[0.0, 0.0, 2.0, half, 0.0, 0.0, half]);
/// assert!((com - nalgebra::Vector3::new(0.0, 1.0, 2.0)).norm() < 1e-15);
/// ```
pub fn world_com(body: &mbconv_ir::Body, pose: &[f64; 7]) -> Vector3<f64> {
    let rotation = UnitQuaternion::from_quaternion(Quaternion::new(pose[3], pose[4], pose[5], pose[6]));
    rotation * body.inertial.com + Vector3::new(pose[0], pose[1], pose[2])
}

/// Compares mbconv's centres of mass with the samples of a MuJoCo trajectory (golden
/// `trajectory.samples`, each with `t` and `com[b]` for MuJoCo's body `b` of `bodies`);
/// `ours(sample, b)` is mbconv's centre of mass of that body then, `None` where there is none
/// to compare. Returns the worst deviation relative to max(1, |MuJoCo's coordinate|).
///
/// ```
/// let samples = serde_json::json!([{"t": 0.0, "com": [[0.0, 0.0, 1.0]]}]);
/// let bodies = ["link".to_owned()];
/// let worst = mbconv_test_support::written::worst_com_deviation(
///     "example", samples.as_array().unwrap(), &bodies, 1e-6,
///     |_, _| Some(nalgebra::Vector3::new(0.0, 0.0, 1.0 + 1e-9)),
/// );
/// assert!(worst < 2e-9);
/// ```
///
/// # Panics
/// When a sample is malformed or a deviation exceeds `tolerance` (naming the model, body and
/// time).
pub fn worst_com_deviation(
    name: &str,
    samples: &[Value],
    bodies: &[String],
    tolerance: f64,
    ours: impl Fn(usize, usize) -> Option<Vector3<f64>>,
) -> f64 {
    let mut worst = 0.0_f64;
    for (k, sample) in samples.iter().enumerate() {
        let t = sample["t"]
            .as_f64()
            .unwrap_or_else(|| panic!("{name}: sample without t"));
        for (b, body_name) in bodies.iter().enumerate() {
            let Some(com) = ours(k, b) else { continue };
            let theirs: Vec<f64> = sample["com"][b]
                .as_array()
                .unwrap_or_else(|| panic!("{name}: no centre of mass of {body_name} at t = {t}"))
                .iter()
                .filter_map(Value::as_f64)
                .collect();
            let deviation = relative_deviation(com.as_slice(), &theirs);
            assert!(
                deviation <= tolerance,
                "{name}: body {body_name} at t = {t}: centre of mass {deviation:e} m from MuJoCo's"
            );
            worst = worst.max(deviation);
        }
    }
    worst
}
