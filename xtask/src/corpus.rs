//! `cargo xtask corpus`: `mbconv check --all` on every model of `../shared/corpus/` and
//! `fixtures/` (but `fixtures/bad/`), on all cores, and `docs/corpus-matrix.md` from the verdicts.
//!
//! `cargo xtask loss-matrix`: `docs/loss-matrix.md` from the formats' feature tables.

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use mbconv_check::{CheckSettings, TargetCheck, Verdict};
use mbconv_ir::format::{Options, Registry, Source};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What happened to one file.
pub(crate) enum Outcome {
    /// No built format reads this kind of file.
    NotAModel,
    /// A format claimed it but could not read it, or the model is invalid.
    NotRead { format: String, reason: String },
    /// Read and checked.
    Checked {
        format: String,
        targets: Vec<TargetCheck>,
    },
}

/// Runs the corpus check and writes `docs/corpus-matrix.md`.
pub fn run() -> Result<()> {
    let root = crate::workspace_root();
    let corpus =
        std::env::var_os("MBCONV_CORPUS").map_or_else(|| root.join("../shared/corpus"), PathBuf::from);
    let registry = mbconv::formats();
    let mut files = Vec::new();
    for (label, dir) in [("fixtures", root.join("fixtures")), ("corpus", corpus.clone())] {
        if !dir.is_dir() {
            eprintln!("note: {} is missing; skipped", dir.display());
            continue;
        }
        // `fixtures/bad/` holds malformed input on purpose (the bad-input test's): not models.
        let bad = root.join("fixtures/bad");
        collect(&dir, &mut |path| {
            if readable_kind(&registry, path) && !path.starts_with(&bad) {
                let shown = format!("{label}/{}", path.strip_prefix(&dir).unwrap_or(path).display());
                files.push((shown, path.to_path_buf()));
            }
        })?;
    }
    files.sort();
    let bar = ProgressBar::new(files.len() as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} models  {elapsed} elapsed, eta {eta}  {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let started = Instant::now();
    let timed: Vec<(String, Outcome, f64)> = files
        .par_iter()
        // One file a task: a few files take minutes (stiff models the accurate integrator
        // steps slowly through), and a thread that has finished takes the next file instead of
        // waiting while another works through a batch of them.
        .with_max_len(1)
        .map(|(shown, path)| {
            bar.set_message(shown.clone());
            let file_started = Instant::now();
            let outcome = check_file(&registry, shown, path);
            let seconds = file_started.elapsed().as_secs_f64();
            if seconds >= SLOW_FILE_SECONDS {
                bar.suspend(|| eprintln!("{shown}: {seconds:.0} s"));
            }
            bar.inc(1);
            (shown.clone(), outcome, seconds)
        })
        .collect();
    bar.finish_and_clear();
    let elapsed = started.elapsed().as_secs_f64();
    report_slowest(&timed);
    let outcomes: Vec<(String, Outcome)> = timed.into_iter().map(|(s, o, _)| (s, o)).collect();
    let verdict_of = |shown: &str, target: &str| verdict_in(&outcomes, shown, target);
    let (mut text, not_explained) = matrix(&registry, &outcomes);
    text.push_str(&crate::simulators::section(&verdict_of));
    let text = machine_independent(&text, &root, &corpus);
    let out = root.join("docs/corpus-matrix.md");
    std::fs::write(&out, &text).with_context(|| format!("cannot write {}", out.display()))?;
    eprintln!(
        "checked {} files in {elapsed:.1} s on {} threads; wrote {}",
        outcomes.len(),
        rayon::current_num_threads(),
        out.display()
    );
    if not_explained > 0 {
        anyhow::bail!(
            "{not_explained} failing rows are under no open problem (see \"Not explained yet\" in {})",
            out.display()
        );
    }
    Ok(())
}

/// A file whose check takes this long (s, on one core) is named as it finishes.
const SLOW_FILE_SECONDS: f64 = 60.0;

/// How many of the slowest files the run names at the end.
const SLOWEST_REPORTED: usize = 10;

/// Names the files whose checks took longest (stderr): where the run's time goes.
fn report_slowest(timed: &[(String, Outcome, f64)]) {
    let mut by_time: Vec<(&str, f64)> = timed.iter().map(|(s, _, t)| (s.as_str(), *t)).collect();
    by_time.sort_by(|a, b| b.1.total_cmp(&a.1));
    let total: f64 = by_time.iter().map(|(_, t)| t).sum();
    eprintln!("slowest files ({total:.0} s of checking in all):");
    for (shown, seconds) in by_time.iter().take(SLOWEST_REPORTED) {
        eprintln!("  {seconds:7.1} s  {shown}");
    }
}

/// mbconv's verdict for the model shown as `shown` converted to `target`, among `outcomes`.
pub(crate) fn verdict_in(outcomes: &[(String, Outcome)], shown: &str, target: &str) -> Option<Verdict> {
    outcomes
        .iter()
        .find(|(s, _)| s == shown)
        .and_then(|(_, outcome)| match outcome {
            Outcome::Checked { targets, .. } => {
                targets.iter().find(|t| t.format == target).map(|t| t.verdict)
            }
            _ => None,
        })
}

/// Writes `docs/loss-matrix.md` from the registry's feature tables and the findings the
/// lowering passes produce on the fixtures.
pub fn loss_matrix() -> Result<()> {
    use mbconv_test_support::{FIXTURES_NOT_MODELS, JUDGED_FIXTURE_DIRS, fixtures_root};
    let out = crate::workspace_root().join("docs/loss-matrix.md");
    let registry = mbconv::formats();
    let models = mbconv_check::read_models(
        &registry,
        &fixtures_root(),
        &JUDGED_FIXTURE_DIRS,
        &FIXTURES_NOT_MODELS,
    )
    .map_err(anyhow::Error::msg)?;
    let produced = mbconv_check::ProducedFindings::lowering(&registry, &models);
    let text = mbconv_check::loss_matrix(&registry, &produced);
    for problem in produced.problems(&registry) {
        eprintln!("warning: {problem}");
    }
    std::fs::write(&out, text).with_context(|| format!("cannot write {}", out.display()))?;
    eprintln!("wrote {}", out.display());
    Ok(())
}

/// Messages may name files by absolute path; the matrix names them relative to the corpus and
/// the workspace, so that it reads the same on every machine.
pub(crate) fn machine_independent(text: &str, root: &Path, corpus: &Path) -> String {
    let corpus = corpus.display().to_string();
    let root = format!("{}/", root.display());
    text.replace(&corpus, "corpus").replace(&root, "")
}

pub(crate) fn collect(dir: &Path, found: &mut dyn FnMut(&Path)) -> Result<()> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot list {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            collect(&path, found)?;
        } else {
            found(&path);
        }
    }
    Ok(())
}

/// True when a built format claims the file by its extension and recognises its content
/// (so that the Choreonoid YAML files of the corpus are not taken for Chrono models).
pub(crate) fn readable_kind(registry: &Registry, path: &Path) -> bool {
    let claimed: Vec<_> = registry
        .formats()
        .filter(|f| f.info().matches_extension(path))
        .collect();
    if claimed.is_empty() {
        return false;
    }
    std::fs::read_to_string(path).is_ok_and(|text| claimed.iter().any(|f| f.sniff(&text)))
}

/// Reads `path` and checks it against every format (as `mbconv check --all`).
pub(crate) fn check_file(registry: &Registry, shown: &str, path: &Path) -> Outcome {
    let source = match Source::from_path(path) {
        Ok(source) => source.with_path(shown, Some(path.to_path_buf())),
        Err(_) => return Outcome::NotAModel,
    };
    let Ok(format) = registry.detect(path, Some(&source.text)) else {
        return Outcome::NotAModel;
    };
    let format_name = format.info().name.to_owned();
    // As `mbconv` reads it: a reader may hand a file it names in another format (a Choreonoid
    // project's URDF body item) to that format's reader.
    let mut options = Options::default();
    options.readers = Some(mbconv::readers());
    let imported = match registry.read(format, &source, &options) {
        Ok(imported) => imported,
        Err(e) => {
            return Outcome::NotRead {
                format: format_name,
                reason: one_line(&e.to_string()),
            };
        }
    };
    let validation = mbconv_ir::validate::validate(&imported.model);
    if let Some(error) = validation.at_least(mbconv_ir::Severity::Error).next() {
        return Outcome::NotRead {
            format: format_name,
            reason: one_line(&format!("invalid model: {error}")),
        };
    }
    let formats: Vec<_> = registry.formats().collect();
    let report = mbconv_check::check(
        &imported.model,
        shown,
        registry,
        &formats,
        &CheckSettings::default(),
    );
    Outcome::Checked {
        format: format_name,
        targets: report.targets,
    }
}

fn one_line(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default().trim();
    if line.chars().count() > 300 {
        format!("{}…", line.chars().take(300).collect::<String>())
    } else {
        line.to_owned()
    }
}

#[derive(Default)]
struct Counts {
    read: usize,
    written: usize,
    read_back: usize,
    verdicts: BTreeMap<Verdict, usize>,
}

/// The matrix's text and the number of failing rows no open problem covers.
fn matrix(registry: &Registry, outcomes: &[(String, Outcome)]) -> (String, usize) {
    let mut cells: BTreeMap<(String, String), Counts> = BTreeMap::new();
    let mut not_read: BTreeMap<String, usize> = BTreeMap::new();
    let mut problems = Vec::new();
    let mut not_read_lines = Vec::new();
    for (shown, outcome) in outcomes {
        match outcome {
            Outcome::NotAModel => {}
            Outcome::NotRead { format, reason } => {
                *not_read.entry(format.clone()).or_default() += 1;
                not_read_lines.push(format!("- `{shown}` ({format}): {reason}"));
            }
            Outcome::Checked { format, targets } => {
                for t in targets {
                    let counts = cells.entry((format.clone(), t.format.clone())).or_default();
                    counts.read += 1;
                    counts.written += usize::from(t.written());
                    counts.read_back += usize::from(t.read_back());
                    *counts.verdicts.entry(t.verdict).or_default() += 1;
                    if t.verdict.is_failure() {
                        problems.push(crate::open_problems::Row {
                            model: shown.clone(),
                            target: t.format.clone(),
                            line: format!(
                                "- `{shown}` -> {}: **{}**: {}",
                                t.format,
                                t.verdict,
                                one_line(&t.message)
                            ),
                        });
                    }
                }
            }
        }
    }
    let names: Vec<&str> = registry.formats().map(|f| f.info().name).collect();
    let mut text = String::from(
        "# Corpus matrix\n\n\
         `mbconv check --all` on every model of `../shared/corpus/` and `fixtures/` that a\n\
         built format reads, with the default settings (1 s sampled at the model's own time step\n\
         or 1 ms, adaptive Dormand–Prince tight enough that only the physics counts, tolerances\n\
         1e-6 m and 1e-6 rad; see `docs/check.md`). Generated by\n\
         `cargo xtask corpus`; do not edit.\n\n\
         Per source format (rows) and target format: models read, written (lower and emit\n\
         succeeded), read back, and the verdicts.\n\n\
         | source | target | read | written | read back | exact | explained | unexplained | failed |\n\
         |---|---|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for source in &names {
        for target in &names {
            let Some(c) = cells.get(&((*source).to_owned(), (*target).to_owned())) else {
                continue;
            };
            let v = |verdict| c.verdicts.get(&verdict).copied().unwrap_or(0);
            let _ = writeln!(
                text,
                "| {source} | {target} | {} | {} | {} | {} | {} | {} | {} |",
                c.read,
                c.written,
                c.read_back,
                v(Verdict::Exact),
                v(Verdict::Explained),
                v(Verdict::Unexplained),
                v(Verdict::Failed)
            );
        }
    }
    text.push_str(&crate::open_problems::section(&problems));
    let unexplained = crate::open_problems::unlisted(&problems);
    let total: usize = not_read.values().sum();
    let _ = writeln!(text, "\n## Not read or not valid ({total})\n");
    if not_read_lines.is_empty() {
        text.push_str("None.\n");
    } else {
        text.push_str(&not_read_lines.join("\n"));
        text.push('\n');
    }
    (text, unexplained)
}
