//! The harness of the writers' judged tests (`formats/mbconv-urdf/tests/written.rs`,
//! `formats/mbconv-mjcf/tests/written_all.rs`, `formats/mbconv-sdf/tests/written_all.rs`):
//! [`WrittenSuite`] holds what they share (the golden files, writing each source again, the
//! loop over the judged trajectories), [`RefusalTally`] their lists of refusals, and a format's
//! test gives only its judge. Their golden data is made by `cargo xtask golden urdf-written`, `mjcf-written` and `sdf-written`
//! (one module, `xtask/src/written.rs`), one JSON file per written model naming its source as
//! `fixtures/...` or `corpus/...` and holding the `hash` of the text its simulators judged.

use mbconv_ir::format::{Exported, Imported, Options, Registry, Source};
use nalgebra::{Quaternion, UnitQuaternion, Vector3};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A 64-bit FNV-1a hash of `text` as 16 hex digits: golden data records the hash of the text
/// an oracle judged, so that a test can tell that the text it writes now is the same (and ask
/// for the golden data to be regenerated when it is not). Not a cryptographic hash.
///
/// ```
/// assert_eq!(mbconv_test_support::written_golden::text_hash(""), "cbf29ce484222325");
/// assert_ne!(mbconv_test_support::written_golden::text_hash("a"), mbconv_test_support::written_golden::text_hash("b"));
/// ```
pub fn text_hash(text: &str) -> String {
    let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    format!("{hash:016x}")
}

/// The JSON files of `dir` as (file stem, value), sorted by stem.
///
/// ```
/// let dir = std::env::temp_dir().join("mbconv_test_support_golden_json_files");
/// std::fs::create_dir_all(&dir).unwrap();
/// std::fs::write(dir.join("a.json"), "{\"x\": 1}").unwrap();
/// let files = mbconv_test_support::written_golden::golden_json_files(&dir);
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
/// corpus file when the corpus is absent (after a notice, see [`crate::corpus::corpus_file`]).
///
/// ```
/// let path = mbconv_test_support::written_golden::source_path("fixtures/urdf/arm_mimic.urdf");
/// assert!(path.unwrap().ends_with("fixtures/urdf/arm_mimic.urdf"));
/// ```
///
/// # Panics
/// When `shown` starts with neither `fixtures/` nor `corpus/`.
pub fn source_path(shown: &str) -> Option<PathBuf> {
    if let Some(rest) = shown.strip_prefix("fixtures/") {
        return Some(crate::corpus::fixtures_root().join(rest));
    }
    let rest = shown
        .strip_prefix("corpus/")
        .unwrap_or_else(|| panic!("{shown}: neither fixtures/ nor corpus/"));
    crate::corpus::corpus_file(rest)
}

/// What `registry` reads from the model at `path` (shown as `shown`) in the format it detects,
/// with default settings: the first half of a conversion.
///
/// ```
/// let mut registry = mbconv_ir::format::Registry::new();
/// registry.register(Box::new(mbconv_ir::mbir::MbirFormat));
/// let shown = "fixtures/ir/double_pendulum.mbir.json";
/// let path = mbconv_test_support::fixtures_root().join("ir/double_pendulum.mbir.json");
/// let imported = mbconv_test_support::written_golden::read_source(&registry, shown, &path).unwrap();
/// assert!(!imported.model.bodies.is_empty());
/// ```
///
/// # Errors
/// The reason, as text, when the file cannot be read, detected or read.
pub fn read_source(registry: &Registry, shown: &str, path: &Path) -> Result<Imported, String> {
    let source = Source::from_path(path)
        .map_err(|e| e.to_string())?
        .with_path(shown, Some(path.to_path_buf()));
    let format = registry
        .detect(path, Some(&source.text))
        .map_err(|e| e.to_string())?;
    registry
        .read(format, &source, &Options::default())
        .map_err(|e| e.to_string())
}

/// What `registry` writes in the format named `to` from the model at `path` (shown as
/// `shown`), read with default settings: as `mbconv convert X --to <to>` and the xtask write it.
///
/// # Errors
/// The reason, as text, when the file cannot be read, detected, read or written.
pub fn convert(registry: &Registry, to: &str, shown: &str, path: &Path) -> Result<Exported, String> {
    let imported = read_source(registry, shown, path)?;
    let writer = registry.get(to).map_err(|e| e.to_string())?;
    registry
        .write(writer, &imported.model, &Options::default())
        .map_err(|e| e.to_string())
}

/// The model fixtures of the folders `dirs` (shown as `fixtures/<dir>/<file>`, sorted; the
/// files of [`crate::corpus::FIXTURES_NOT_MODELS`] left out), split into those `registry` writes in
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
        let folder = crate::corpus::fixtures_root().join(dir);
        let entries = std::fs::read_dir(&folder).unwrap_or_else(|e| panic!("{}: {e}", folder.display()));
        for path in entries.filter_map(|e| e.ok().map(|e| e.path())) {
            let relative = format!("{dir}/{}", path.file_name().unwrap_or_default().to_string_lossy());
            if !path.is_file() || crate::corpus::FIXTURES_NOT_MODELS.contains(&relative.as_str()) {
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
            text_hash(&text),
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
/// use mbconv_test_support::written_golden::matches_words;
/// assert!(matches_words("Error: range[0] in joint", "range | joint"));
/// assert!(!matches_words("Error: range[0]", "range | joint"));
/// ```
pub fn matches_words(error: &str, words: &str) -> bool {
    words.split(" | ").all(|w| error.contains(w))
}

/// The largest deviation of `ours` from `theirs`, relative to max(1, |theirs|).
///
/// ```
/// let d = mbconv_test_support::written_golden::relative_deviation(&[2.0, 0.5], &[4.0, 0.5]);
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
/// let com = mbconv_test_support::written_golden::world_com(&body, &[0.0, 0.0, 2.0, half, 0.0, 0.0, half]);
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
/// let worst = mbconv_test_support::written_golden::worst_com_deviation(
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

/// One corpus trajectory in this many is re-simulated by a writer's judged test by default
/// (every fixture always is; the suite's `all_trajectories` variable set to 1 asks for all).
pub const CORPUS_SAMPLE: usize = 8;

/// The harness of a writer's judged test (`formats/mbconv-X/tests/written*.rs`): the golden
/// files `cargo xtask golden X-written` made, the writer that writes each source again, and the
/// loop over the judged trajectories. A format's test gives its registry, its golden folder,
/// the simulator whose results it compares and its own judge; everything else is here.
///
/// ```no_run
/// # fn registry() -> mbconv_ir::format::Registry { unimplemented!() }
/// use mbconv_test_support::written_golden::WrittenSuite;
/// let suite = WrittenSuite {
///     registry: registry(),
///     to: "mjcf",
///     name: "MJCF",
///     golden_dir: std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/written_all"),
///     simulator: "mujoco",
///     judges: "MuJoCo",
///     all_trajectories: "MBCONV_MJCF_WRITTEN_ALL",
/// };
/// suite.assert_fixtures_judged(&["skel"], &[]);
/// ```
pub struct WrittenSuite {
    /// The formats (the facade's `mbconv::formats()`).
    pub registry: Registry,
    /// The short name of the format written (`"mjcf"`), as `--to` takes it.
    pub to: &'static str,
    /// The format's name in messages (`"MJCF"`).
    pub name: &'static str,
    /// The folder of the golden files.
    pub golden_dir: PathBuf,
    /// The golden key of the simulator whose load and trajectory are compared (`"mujoco"`).
    pub simulator: &'static str,
    /// Who judged the texts, for messages (`"MuJoCo"`, `"the simulators"`).
    pub judges: &'static str,
    /// The environment variable that asks for every corpus trajectory (see [`CORPUS_SAMPLE`]).
    pub all_trajectories: &'static str,
}

/// What [`WrittenSuite::judge_trajectories`] judged: how many models and the worst deviation.
#[derive(Debug, Default)]
pub struct Judged {
    /// How many trajectories were compared.
    pub count: usize,
    /// The worst deviation and the golden file it was found in.
    pub worst: (f64, String),
}

/// The fewest golden files and judged trajectories a writer's judged test accepts.
const FEWEST: (usize, usize) = (40, 20);

impl WrittenSuite {
    /// The golden files, sorted by name.
    ///
    /// # Panics
    /// When the folder cannot be read or holds fewer than 40 files.
    pub fn files(&self) -> Vec<(String, Value)> {
        let files = golden_json_files(&self.golden_dir);
        assert!(files.len() >= FEWEST.0, "only {} golden files", files.len());
        files
    }

    /// What the writer writes from `path` (shown as `shown`), read with default settings (as
    /// `mbconv convert X --to <to>` and `cargo xtask golden <to>-written` write it).
    ///
    /// # Errors
    /// The reason, as text, when the source cannot be read or written.
    pub fn write(&self, shown: &str, path: &Path) -> Result<Exported, String> {
        convert(&self.registry, self.to, shown, path)
    }

    /// Asserts that the fixtures of `dirs` are written but those `not_written` lists (fixture,
    /// words of the refusal), and that every golden file's source is written today as the text
    /// that was judged (see [`assert_texts_judged`]).
    ///
    /// # Panics
    /// When a fixture is refused otherwise than listed, or a text is not the one judged.
    pub fn assert_fixtures_judged(&self, dirs: &[&str], not_written: &[(&str, &str)]) {
        let (written, refused) = written_fixtures(&self.registry, self.to, dirs);
        let listed: Vec<&str> = not_written.iter().map(|(f, _)| *f).collect();
        let seen: Vec<&str> = refused.iter().map(|(f, _)| f.as_str()).collect();
        assert_eq!(
            seen, listed,
            "fixtures not written as {}: {refused:#?}",
            self.name
        );
        for ((file, error), (_, words)) in refused.iter().zip(not_written) {
            assert!(error.contains(words), "{file}: {error}");
        }
        let judged = assert_texts_judged(&self.registry, self.to, &self.files(), &written, self.judges);
        eprintln!("{judged} written {} files are the ones judged", self.name);
    }

    /// Runs `compare` on every golden file whose source the simulator loaded, that `keep`
    /// keeps (asked before the corpus sample is drawn), that is in the sample (every fixture,
    /// one corpus entry in [`CORPUS_SAMPLE`] in the order of the files) and whose source is
    /// written today as the judged text (a stale text is left to
    /// [`WrittenSuite::assert_fixtures_judged`]). `compare` gets the golden file's name, its
    /// value, the source's path and the text written, and returns the worst deviation, or
    /// `None` when it judged nothing.
    ///
    /// # Panics
    /// When fewer than 20 trajectories were judged, or a golden file is malformed.
    pub fn judge_trajectories(
        &self,
        mut keep: impl FnMut(&str, &Value) -> bool,
        mut compare: impl FnMut(&str, &Value, &Path, &Exported) -> Option<f64>,
    ) -> Judged {
        let all = std::env::var(self.all_trajectories).is_ok_and(|v| v == "1");
        let mut judged = Judged::default();
        let mut corpus_seen = 0;
        for (name, golden) in self.files() {
            if golden[self.simulator]["loads"].as_bool() != Some(true) || !keep(&name, &golden) {
                continue;
            }
            if name.starts_with("corpus__") {
                corpus_seen += 1;
                if !all && corpus_seen % CORPUS_SAMPLE != 1 {
                    continue;
                }
            }
            let shown = golden["source"]
                .as_str()
                .unwrap_or_else(|| panic!("{name}: no source"));
            let Some(path) = source_path(shown) else {
                continue;
            };
            let written = self.write(shown, &path).unwrap_or_else(|e| panic!("{name}: {e}"));
            if text_hash(&written.text) != golden["hash"].as_str().unwrap_or_default() {
                continue; // stale: assert_fixtures_judged says so
            }
            let Some(deviation) = compare(&name, &golden, &path, &written) else {
                continue;
            };
            if deviation > judged.worst.0 {
                judged.worst = (deviation, name.clone());
            }
            judged.count += 1;
        }
        judged
    }
}

impl Judged {
    /// Asserts that enough trajectories were judged for the test to mean something.
    ///
    /// # Panics
    /// When fewer than 20 were.
    pub fn assert_enough(&self) {
        assert!(self.count >= FEWEST.1, "only {} trajectories judged", self.count);
    }
}

/// Counts, line by line, the refusals a refusal list explains, so that a test can fail on a
/// refusal no line explains and on a line that explains none (a stale line).
///
/// ```
/// use mbconv_test_support::written_golden::RefusalTally;
/// let mut tally = RefusalTally::new(["range | joint", "mesh"]);
/// assert_eq!(tally.explain("Error: range in joint 3", |_| true), Some(0));
/// assert_eq!(tally.explain("unknown", |_| true), None);
/// assert_eq!(tally.used(), [1, 0]);
/// ```
#[derive(Debug)]
pub struct RefusalTally {
    words: Vec<String>,
    used: Vec<usize>,
}

impl RefusalTally {
    /// A tally of the lists' lines, given by their words (`|`-separated, see [`matches_words`]).
    pub fn new<'a>(words: impl IntoIterator<Item = &'a str>) -> Self {
        let words: Vec<String> = words.into_iter().map(str::to_owned).collect();
        let used = vec![0; words.len()];
        Self { words, used }
    }

    /// The first line among those `eligible` (by index) whose words `error` holds, counted;
    /// `None` when no line explains it.
    pub fn explain(&mut self, error: &str, eligible: impl Fn(usize) -> bool) -> Option<usize> {
        let k = (0..self.words.len()).find(|&k| eligible(k) && matches_words(error, &self.words[k]))?;
        self.used[k] += 1;
        Some(k)
    }

    /// How many refusals each line explained.
    pub fn used(&self) -> &[usize] {
        &self.used
    }

    /// Asserts that every line explained a refusal, and prints how many each did; `what`
    /// names the lines in messages (`"MuJoCo refuses"`).
    ///
    /// # Panics
    /// When a line explained none: it is stale.
    pub fn assert_all_used(&self, what: &str) {
        for (words, n) in self.words.iter().zip(&self.used) {
            assert!(
                *n > 0,
                "no refusal says {words:?} ({what}): remove it from the list"
            );
            eprintln!("{what} {n} files: {words}");
        }
    }
}
