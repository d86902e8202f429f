//! Project Chrono as an oracle: the build (`cargo xtask oracles chrono`) and the golden data it
//! produces (`cargo xtask golden chrono`).
//!
//! * Reader golden data (`formats/mbconv-chrono/tests/golden/chrono/`): Chrono's own initial
//!   state (body frames, centres of mass, masses, velocities) of every Chrono model of the corpus
//!   and of `fixtures/chrono/`, from `chrono_oracle FILE --json`.
//! * Cross-simulator golden data (`front/mbconv-cli/tests/golden/simulators/`): for each SKEL
//!   fixture and corpus model, Chrono runs what `mbconv convert --to chrono` wrote (its
//!   simulation file) and DART runs the model lowered for Chrono and written back as SKEL by
//!   the library (`mbconv_test_support::lowered_back`: the conversion's losses on both sides); for each
//!   Chrono fixture and corpus model, DART runs what `mbconv convert --to skel` wrote and
//!   Chrono runs the model lowered for SKEL written back as Chrono YAML. Both at dt = 1e-4 and
//!   5e-5 for 1 s, every body's centre of mass every 0.1 s, no contact on either side (DART:
//!   collisions off; Chrono: the sparse direct solver). The files both simulators ran are kept
//!   beside the data (`written/CASE/` the conversion, `written/CASE/lowered/` the lowered model
//!   written back), so a test can tell when mbconv writes something else.
//!
//! CI never builds Chrono: the tests read the committed data.

use crate::{cargo, oracles, run, workspace_root};
use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The cross-simulator step and sampling (1e-4 s, a sample every 0.1 s, 1 s).
/// One time step the simulators run at, with the sampling (every 0.1 s) and run-file suffix.
struct Step {
    dt: &'static str,
    every: &'static str,
    suffix: &'static str,
}

/// The golden step, then half of it: the gap between the simulators at both shows whether it
/// is integration error (it halves: both integrators are first order) or a model difference.
const STEPS: [Step; 2] = [
    Step {
        dt: "1e-4",
        every: "1000",
        suffix: "",
    },
    Step {
        dt: "5e-5",
        every: "2000",
        suffix: "_half",
    },
];
const DURATION: &str = "1";
/// The gravity a Chrono model file alone runs with: the YAML parser's simulation default.
const DEFAULT_GRAVITY: [&str; 3] = ["0", "0", "-9.8"];

fn oracle_binary() -> PathBuf {
    workspace_root().join("target/chrono-oracle/chrono_oracle")
}

/// Builds the Chrono oracle into `target/chrono-oracle` unless it is there (about 25 minutes on
/// two cores; needs `apt-get install -y cmake libeigen3-dev`).
pub fn build() -> Result<()> {
    if oracle_binary().exists() {
        eprintln!("{} exists", oracle_binary().display());
        return Ok(());
    }
    let script = workspace_root().join("../shared/oracles/chrono/build.sh");
    if !script.exists() {
        bail!(
            "{} is missing: the Chrono oracle is built from ../shared",
            script.display()
        );
    }
    run("bash", &[&script.to_string_lossy(), "target/chrono-oracle"])
}

/// Regenerates both kinds of Chrono golden data.
pub fn golden() -> Result<()> {
    if !oracle_binary().exists() {
        bail!("the Chrono oracle is not built: run `cargo xtask oracles chrono` first");
    }
    reader_golden()?;
    cross_golden()
}

/// The Chrono model files of the corpus and the fixtures, with the prefix their golden file
/// names start with.
fn chrono_models() -> Result<Vec<(&'static str, PathBuf)>> {
    let root = workspace_root();
    let corpus = mbconv_test_support::corpus_root().join("chrono");
    let mut models = Vec::new();
    for (prefix, dir) in [
        ("corpus", corpus.clone()),
        ("corpus__fea", corpus.join("fea")),
        ("fixtures", root.join("fixtures/chrono")),
    ] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .with_context(|| format!("cannot list {}", dir.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "yaml") && !is_solver_file(p))
            .collect();
        files.sort();
        models.extend(files.into_iter().map(|p| (prefix, p)));
    }
    Ok(models)
}

/// A Chrono solver file (`integrator:`/`solver:` at the top), which is not a model.
fn is_solver_file(path: &Path) -> bool {
    std::fs::read_to_string(path).is_ok_and(|text| {
        !text
            .lines()
            .any(|l| l.starts_with("model:") || l.starts_with("type:"))
    })
}

/// A simulation file (`type: MBS`) rather than a model file.
fn is_simulation_file(path: &Path) -> bool {
    std::fs::read_to_string(path).is_ok_and(|text| text.lines().any(|l| l.starts_with("type:")))
}

fn stem(path: &Path) -> String {
    path.file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.split('.').next())
        .unwrap_or("model")
        .to_owned()
}

/// The longest one Chrono run may take; a contact-free model of the corpus takes seconds.
const CHRONO_TIME_LIMIT: std::time::Duration = std::time::Duration::from_secs(600);

/// Runs the Chrono oracle; a failure (or a run over [`CHRONO_TIME_LIMIT`]) is written into
/// `failure_file` as `error: MESSAGE`.
pub(crate) fn run_oracle(args: &[&str], failure_file: &Path) -> Result<()> {
    eprintln!("+ chrono_oracle {}", args.join(" "));
    let scratch = workspace_root().join("target/tmp/chrono-oracle");
    std::fs::create_dir_all(&scratch)?;
    let stderr_file = scratch.join("last.stderr");
    let mut child = Command::new(oracle_binary())
        .args(args)
        .current_dir(workspace_root())
        .stdout(std::process::Stdio::null())
        .stderr(std::fs::File::create(&stderr_file)?)
        .spawn()
        .context("cannot run the Chrono oracle")?;
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break Some(status);
        }
        if started.elapsed() > CHRONO_TIME_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let stderr = std::fs::read_to_string(&stderr_file).unwrap_or_default();
    let message = match status {
        Some(status) if status.success() => return Ok(()),
        Some(_) => stderr
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("failed")
            .trim()
            .to_owned(),
        None => format!("Chrono ran longer than {} s", CHRONO_TIME_LIMIT.as_secs()),
    };
    std::fs::write(failure_file, format!("error: {message}\n"))?;
    Ok(())
}

/// Chrono's initial state of every Chrono model.
fn reader_golden() -> Result<()> {
    let root = workspace_root();
    let out = root.join("formats/mbconv-chrono/tests/golden/chrono");
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out)?;
    for (prefix, model) in chrono_models()? {
        let file_name = model.file_name().and_then(|n| n.to_str()).unwrap_or("model");
        let json = out.join(format!("{prefix}__{file_name}.json"));
        let failure = out.join(format!("{prefix}__{file_name}.error"));
        let loadable = Loadable::new(prefix, &model)?;
        run_oracle(
            &[
                &loadable.path().to_string_lossy(),
                "--duration",
                "0",
                "--json",
                &json.to_string_lossy(),
            ],
            &failure,
        )?;
    }
    Ok(())
}

/// A Chrono model as the oracle can load it. Chrono resolves `data_path: RELATIVE` against the
/// directory of the simulation file and has none for a model loaded alone, so a fixture with a
/// `data_path` goes through a simulation file written beside it for the run (removed on drop;
/// gravity [0, 0, -9.8], the parser's default).
struct Loadable {
    model: PathBuf,
    beside: Option<PathBuf>,
}

impl Loadable {
    fn new(prefix: &str, model: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(model).unwrap_or_default();
        let file_name = model.file_name().and_then(|n| n.to_str()).unwrap_or("model");
        let beside = (prefix == "fixtures" && text.contains("data_path:") && !is_simulation_file(model))
            .then(|| model.with_file_name(format!(".oracle.{file_name}")));
        if let Some(simulation) = &beside {
            std::fs::write(
                simulation,
                format!(
                    "chrono-version: 10.0\ntype: MBS\nmodel: {file_name}\nsolver: solver.yaml\n\
                     simulation:\n  gravity: [0, 0, -9.8]\n"
                ),
            )?;
        }
        Ok(Self {
            model: model.to_path_buf(),
            beside,
        })
    }

    fn path(&self) -> &Path {
        self.beside.as_deref().unwrap_or(&self.model)
    }
}

impl Drop for Loadable {
    fn drop(&mut self) {
        if let Some(simulation) = &self.beside {
            let _ = std::fs::remove_file(simulation);
        }
    }
}

/// Both simulators on every SKEL and Chrono model and its conversion.
fn cross_golden() -> Result<()> {
    let root = workspace_root();
    let python = oracles::setup()?;
    run(cargo(), &["build", "-p", "mbconv-cli"])?;
    let mbconv = root.join("target/debug/mbconv");
    let golden = root.join("front/mbconv-cli/tests/golden/simulators");
    let work = root.join("target/tmp/simulators");
    let _ = std::fs::remove_dir_all(&golden);
    let _ = std::fs::remove_dir_all(&work);
    let registry = mbconv::formats();
    let cases = Cases {
        python: &python,
        mbconv: &mbconv,
        registry: &registry,
        golden: &golden,
        work: &work,
    };
    for (prefix, skel) in skel_models()? {
        cases.skel_to_chrono(prefix, &skel)?;
    }
    for (prefix, model) in chrono_models()? {
        if prefix != "corpus__fea" {
            cases.chrono_to_skel(prefix, &model)?;
        }
    }
    Ok(())
}

/// The SKEL fixtures and the contact-free corpus models (no collision shape: DART runs with
/// collisions off and Chrono's direct solver does not handle contacts), not the pre-XML legacy
/// files.
fn skel_models() -> Result<Vec<(&'static str, PathBuf)>> {
    let root = workspace_root();
    let mut models = Vec::new();
    for (prefix, dir) in [
        ("fixtures", root.join("fixtures/skel")),
        ("corpus", mbconv_test_support::corpus_root().join("skel")),
    ] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .with_context(|| format!("cannot list {}", dir.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "skel"))
            .collect();
        files.sort();
        if prefix == "corpus" {
            files.retain(|p| std::fs::read_to_string(p).is_ok_and(|t| !t.contains("<collision_shape")));
        }
        models.extend(files.into_iter().map(|p| (prefix, p)));
    }
    Ok(models)
}

/// Where the cross-simulator cases read and write.
struct Cases<'a> {
    python: &'a Path,
    mbconv: &'a Path,
    registry: &'a mbconv_ir::format::Registry,
    golden: &'a Path,
    work: &'a Path,
}

impl Cases<'_> {
    /// DART on the SKEL model lowered for Chrono and written back as SKEL; Chrono on what
    /// mbconv wrote for it.
    fn skel_to_chrono(&self, prefix: &str, skel: &Path) -> Result<()> {
        let case = format!("skel2chrono__{prefix}__{}", stem(skel));
        let dir = self.work.join(&case);
        std::fs::create_dir_all(&dir)?;
        let written = dir.join(format!("{}.yaml", stem(skel)));
        let converted = self.convert(skel, &written);
        let back = self.write_back(skel, "chrono", &written, &dir, "skel");
        let simulation = dir.join(format!("{}.simulation.yaml", stem(skel)));
        for step in &STEPS {
            let dart_out = dir.join(format!("dart{}.json", step.suffix));
            match (&converted, &back) {
                (Err(e), _) => std::fs::write(&dart_out, load_error(&format!("mbconv convert failed: {e}")))?,
                (Ok(()), Ok(back)) => self.dart(&back.entry, &dart_out, step)?,
                (Ok(()), Err(e)) => std::fs::write(
                    &dart_out,
                    load_error(&format!("mbconv could not write the lowered model back: {e}")),
                )?,
            }
            let chrono_out = dir.join(format!("chrono{}.csv", step.suffix));
            match &converted {
                Ok(()) if simulation.exists() => run_oracle(
                    &self.chrono_run_args(&simulation, &chrono_out, false, step),
                    &chrono_out,
                )?,
                Ok(()) => std::fs::write(&chrono_out, "error: mbconv wrote no simulation file\n")?,
                Err(e) => std::fs::write(&chrono_out, format!("error: mbconv convert failed: {e}\n"))?,
            }
        }
        self.keep_written(&case, &dir)?;
        self.merge(&case, &back, |suffix| {
            (
                format!("dart:{}", dir.join(format!("dart{suffix}.json")).display()),
                format!("chrono:{}", dir.join(format!("chrono{suffix}.csv")).display()),
            )
        })
    }

    /// Chrono on the Chrono model lowered for SKEL and written back as Chrono YAML; DART on
    /// what mbconv wrote for it.
    fn chrono_to_skel(&self, prefix: &str, model: &Path) -> Result<()> {
        let case = format!("chrono2skel__{prefix}__{}", stem(model));
        let dir = self.work.join(&case);
        std::fs::create_dir_all(&dir)?;
        let written = dir.join(format!("{}.skel", stem(model)));
        let converted = self.convert(model, &written);
        let back = self.write_back(model, "skel", &written, &dir, "yaml");
        for step in &STEPS {
            let chrono_out = dir.join(format!("chrono{}.csv", step.suffix));
            match (&converted, &back) {
                (Err(e), _) => std::fs::write(&chrono_out, format!("error: mbconv convert failed: {e}\n"))?,
                // The written-back entry is a simulation file (it states the model's gravity)
                // or a model file alone, which runs with the parser's default gravity, as
                // mbconv reads it.
                (Ok(()), Ok(back)) => run_oracle(
                    &self.chrono_run_args(&back.entry, &chrono_out, !is_simulation_file(&back.entry), step),
                    &chrono_out,
                )?,
                (Ok(()), Err(e)) => std::fs::write(
                    &chrono_out,
                    format!("error: mbconv could not write the lowered model back: {e}\n"),
                )?,
            }
            let dart_out = dir.join(format!("dart{}.json", step.suffix));
            match &converted {
                Ok(()) => self.dart(&written, &dart_out, step)?,
                Err(e) => std::fs::write(&dart_out, load_error(&format!("mbconv convert failed: {e}")))?,
            }
        }
        self.keep_written(&case, &dir)?;
        self.merge(&case, &back, |suffix| {
            (
                format!("chrono:{}", dir.join(format!("chrono{suffix}.csv")).display()),
                format!("dart:{}", dir.join(format!("dart{suffix}.json")).display()),
            )
        })
    }

    /// The source model lowered for `target` (as the conversion to `converted` lowers it),
    /// written back in its own format under `dir/lowered/`.
    fn write_back(
        &self,
        source: &Path,
        target: &str,
        converted: &Path,
        dir: &Path,
        extension: &str,
    ) -> Result<mbconv_test_support::lowered_back::WrittenBack> {
        let output = dir.join("lowered").join(format!("{}.{extension}", stem(source)));
        eprintln!(
            "+ write {} lowered for {target} back as {}",
            source.display(),
            output.display()
        );
        Ok(mbconv_test_support::lowered_back::write_lowered_back(
            self.registry,
            source,
            target,
            converted,
            &output,
        )?)
    }

    fn chrono_run_args<'s>(
        &self,
        file: &'s Path,
        csv: &'s Path,
        default_gravity: bool,
        step: &Step,
    ) -> Vec<&'s str> {
        let mut args = vec![
            file.to_str().unwrap_or_default(),
            "--dt",
            step.dt,
            "--duration",
            DURATION,
            "--every",
            step.every,
            "--direct",
            "--csv",
            csv.to_str().unwrap_or_default(),
        ];
        if default_gravity {
            args.push("--gravity");
            args.extend(DEFAULT_GRAVITY);
        }
        args
    }

    fn dart(&self, skel: &Path, out: &Path, step: &Step) -> Result<()> {
        run(
            self.python,
            &[
                "oracles/dart/dart_trajectory.py",
                &skel.to_string_lossy(),
                "--dt",
                step.dt,
                "--duration",
                DURATION,
                "--every",
                step.every,
                "--out",
                &out.to_string_lossy(),
            ],
        )
    }

    fn convert(&self, input: &Path, output: &Path) -> Result<()> {
        run(
            self.mbconv,
            &[
                "-q",
                "convert",
                &input.to_string_lossy(),
                "-o",
                &output.to_string_lossy(),
                "--no-check",
            ],
        )
    }

    /// Copies what mbconv wrote for `case` (the conversion, and under `lowered/` the lowered
    /// model written back) next to the golden data.
    fn keep_written(&self, case: &str, dir: &Path) -> Result<()> {
        for sub in ["", "lowered"] {
            let from = dir.join(sub);
            let keep = self.golden.join("written").join(case).join(sub);
            if !from.is_dir() {
                continue;
            }
            std::fs::create_dir_all(&keep)?;
            for entry in std::fs::read_dir(&from)? {
                let path = entry?.path();
                let is_written = path.extension().is_some_and(|e| e == "yaml" || e == "skel");
                if let (true, Some(name)) = (is_written, path.file_name()) {
                    std::fs::copy(&path, keep.join(name))?;
                }
            }
        }
        Ok(())
    }

    /// Merges the runs of `case` into its golden file; `sides(suffix)` names the source and
    /// target runs of the step with that file suffix; `back` is the written-back model the
    /// source simulator ran, whose motion-changing findings the golden file records.
    fn merge(
        &self,
        case: &str,
        back: &Result<mbconv_test_support::lowered_back::WrittenBack>,
        sides: impl Fn(&str) -> (String, String),
    ) -> Result<()> {
        let out = self.golden.join(format!("{case}.json"));
        let (source, target) = sides(STEPS[0].suffix);
        let (half_source, half_target) = sides(STEPS[1].suffix);
        let losses = back.as_ref().map(|b| b.motion_losses.clone()).unwrap_or_default();
        let losses = serde_json::to_string(&losses)?;
        run(
            self.python,
            &[
                "oracles/simulators/merge.py",
                "--source",
                &source,
                "--target",
                &target,
                "--half-source",
                &half_source,
                "--half-target",
                &half_target,
                "--case",
                case,
                "--dt",
                STEPS[0].dt,
                "--lowered-losses",
                &losses,
                "--out",
                &out.to_string_lossy(),
            ],
        )
    }
}

/// A DART run that did not happen, as `dart_trajectory.py` records a load error.
fn load_error(message: &str) -> String {
    format!("{}\n", serde_json::json!({ "load_error": message }))
}
