//! `mbconv._native`, the extension module of the `mbconv` Python package (`pip install
//! ./python`): the facade crate `mbconv` and the `mbconv` command, for Python. It holds no
//! format, check or solver logic of its own, like the CLI: each function reads, writes,
//! converts, checks or simulates through the facade's [`mbconv::Pipeline`], with the GIL
//! released while Rust works, and hands back the model (one Rust value, never copied into
//! Python), reports and check results as the JSON the CLI prints, and trajectories as packed
//! little-endian `f64` bytes that the Python layer views as numpy arrays without a copy per
//! element. Errors become the Python package's exceptions (`mbconv/_errors.py`), with code,
//! file, line, column and the diagnostic as the CLI prints it.
//!
//! Inside: [`Model`], the functions of the module (`read`, `read_string`, `convert`, `check`,
//! `simulate`, `convert_many`, `plan_batch`, `formats`, `run_cli`) and the error mapping (`errors`). The Python API (typed,
//! documented) is in `mbconv/__init__.py`; `mbconv/_native.pyi` types this module.

mod errors;

use errors::{Phase, raise, raise_about};
use mbconv::files::{Input, Output};
use mbconv::ir::ModelSummary;
use mbconv::{Options, Pipeline, ReadOptions, Settings};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// A model in the neutral representation, held once, in Rust.
#[pyclass(module = "mbconv._native", frozen)]
struct Model {
    model: mbconv::Model,
}

/// The stack of the threads the extension works on, as the `mbconv` command's: models nest as
/// deep as their kinematic trees, and the readers and writers that follow the nesting recurse
/// once per level (a 10 000-link chain written as MJCF needs more than a Python thread's 8
/// MiB). Reserved, not committed: only the pages the work touches are.
const STACK_BYTES: usize = 1 << 30;

/// Runs `work` with the GIL released on a thread with a [`STACK_BYTES`] stack (on the calling
/// thread if no such thread can be made), and returns what it returns; a panic in `work` is
/// resumed on the calling thread.
fn deep<T: Send>(py: Python<'_>, work: impl FnOnce() -> T + Send) -> T {
    py.detach(|| {
        let slot = std::sync::Mutex::new(Some(work));
        let take = || {
            slot.lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .take()
        };
        let spawned = std::thread::scope(|scope| {
            let thread = std::thread::Builder::new()
                .name("mbconv".into())
                .stack_size(STACK_BYTES)
                .spawn_scoped(scope, || take().map(|work| work()));
            thread.ok().map(|thread| match thread.join() {
                Ok(done) => done,
                Err(panic) => std::panic::resume_unwind(panic),
            })
        });
        match spawned.flatten() {
            Some(done) => done,
            None => match take() {
                Some(work) => work(),
                None => unreachable!("the work ran on its thread"),
            },
        }
    })
}

/// Settings as the registry takes them (`key=value`, as `--read-option` and `--write-option`).
fn settings(items: BTreeMap<String, String>) -> Settings {
    let mut settings = Settings::default();
    for (key, value) in items {
        settings.set(key, value);
    }
    settings
}

/// A Python progress callable, called from Rust code that runs without the GIL: each call
/// takes the GIL for itself, and the first exception the callable raises is kept (and later
/// calls skipped) so that the caller raises it once the work is done.
struct Progress {
    callable: Option<Py<PyAny>>,
    raised: std::sync::Mutex<Option<PyErr>>,
}

impl Progress {
    fn new(callable: Option<Py<PyAny>>) -> Self {
        Self {
            callable,
            raised: std::sync::Mutex::new(None),
        }
    }

    /// Calls the callable with `args` (nothing without one, or after it raised); `None` when
    /// it was not called or raised.
    fn call<A>(&self, args: A) -> Option<Py<PyAny>>
    where
        A: for<'py> pyo3::call::PyCallArgs<'py>,
    {
        let callable = self.callable.as_ref()?;
        let mut raised = self
            .raised
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if raised.is_some() {
            return None;
        }
        Python::attach(|py| match callable.bind(py).call1(args) {
            Ok(value) => Some(value.unbind()),
            Err(e) => {
                *raised = Some(e);
                None
            }
        })
    }

    /// The exception the callable raised, if any.
    fn finish(self) -> PyResult<()> {
        match self
            .raised
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
        {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// The JSON of a value the facade serialises (reports, summaries, checks).
fn json(value: &impl serde::Serialize) -> String {
    serde_json::to_string(value).unwrap_or_else(|e| format!("{{\"error\": {:?}}}", e.to_string()))
}

/// Reads and admits `input` (not strictly) through the pipeline: the model and the report of
/// the reading and validation, each finding naming its file.
fn read_input(input: &Input, options: &ReadOptions) -> Result<(mbconv::Model, String), mbconv::Error> {
    let pipeline = Pipeline::new();
    let loaded = pipeline.read(input, options)?;
    loaded.admit(false)?;
    let mut report = loaded.report();
    report.pin_file();
    Ok((loaded.imported.model, json(&report)))
}

#[pymethods]
impl Model {
    /// The model's name.
    #[getter]
    fn name(&self) -> &str {
        &self.model.name
    }

    /// The gravity vector (m/s²), if the model states one.
    #[getter]
    fn gravity(&self) -> Option<(f64, f64, f64)> {
        self.model.simulation.gravity.map(|g| (g[0], g[1], g[2]))
    }

    /// The time step hint (s), if the model states one.
    #[getter]
    fn time_step(&self) -> Option<f64> {
        self.model.simulation.time_step
    }

    /// The model's summary at its initial state, as `mbconv info --json` prints it.
    fn summary_json(&self, py: Python<'_>) -> String {
        deep(py, || {
            serde_json::to_string_pretty(&ModelSummary::new(&self.model)).unwrap_or_default()
        })
    }

    /// The model as the IR's JSON (`.mbir.json`).
    fn to_json(&self, py: Python<'_>) -> String {
        deep(py, || mbconv::ir::mbir::to_string(&self.model))
    }

    /// A model from the IR's JSON, validated and admitted as `read` admits it; `name` is the
    /// name its errors use.
    #[staticmethod]
    fn from_json(py: Python<'_>, text: String, name: String) -> PyResult<(Model, String)> {
        let input = Input::Text { name, text };
        let options = ReadOptions {
            from: Some("mbir".to_owned()),
            ..ReadOptions::default()
        };
        let read = deep(py, || read_input(&input, &options));
        let (model, report) = read.map_err(|e| raise(py, e, Phase::Read))?;
        Ok((Model { model }, report))
    }

    /// Writes the model to `path` in the format of `format` (else of its extension) with the
    /// writer's settings, with its companions, each atomically, replacing files that exist:
    /// the files written and the writer's report.
    #[pyo3(signature = (path, format=None, write_settings=BTreeMap::new()))]
    fn write(
        &self,
        py: Python<'_>,
        path: PathBuf,
        format: Option<String>,
        write_settings: BTreeMap<String, String>,
    ) -> PyResult<(Vec<PathBuf>, String)> {
        let written = deep(py, || -> Result<_, mbconv::Error> {
            let pipeline = Pipeline::new();
            let output = Output::File(path);
            let target = pipeline.target(format.as_deref(), &output)?;
            let settings = settings(write_settings);
            pipeline.check_write_settings(target, &settings)?;
            let emitted = pipeline.emit(&self.model, target, &settings, &output)?;
            let files = emitted.write(None, true)?;
            let mut report = emitted.report;
            report.pin_file();
            Ok((files, json(&report)))
        });
        written.map_err(|e| raise(py, e, Phase::Write))
    }

    /// The model's text in `format` with the writer's settings (companion files are not
    /// returned), and the writer's report.
    #[pyo3(signature = (format, write_settings=BTreeMap::new()))]
    fn to_text(
        &self,
        py: Python<'_>,
        format: String,
        write_settings: BTreeMap<String, String>,
    ) -> PyResult<(String, String)> {
        let emitted = deep(py, || -> Result<_, mbconv::Error> {
            let pipeline = Pipeline::new();
            let target = pipeline.target(Some(&format), &Output::Stdout)?;
            let settings = settings(write_settings);
            pipeline.check_write_settings(target, &settings)?;
            let emitted = pipeline.emit(&self.model, target, &settings, &Output::Stdout)?;
            let mut report = emitted.report;
            report.file = None;
            Ok((emitted.text, json(&report)))
        });
        emitted.map_err(|e| raise(py, e, Phase::Write))
    }
}

/// Reads the model in the file `path` (format by `format`, else by extension and content) with
/// the reader's settings: the model and the report.
#[pyfunction]
#[pyo3(signature = (path, format=None, read_settings=BTreeMap::new()))]
fn read(
    py: Python<'_>,
    path: PathBuf,
    format: Option<String>,
    read_settings: BTreeMap<String, String>,
) -> PyResult<(Model, String)> {
    let options = ReadOptions {
        from: format,
        settings: settings(read_settings),
        accept_ir: false,
    };
    let read = deep(py, || read_input(&Input::File(path), &options));
    let (model, report) = read.map_err(|e| raise(py, e, Phase::Read))?;
    Ok((Model { model }, report))
}

/// Reads a model from `text` in `format`, as `mbconv::read_str` does, with the reader's
/// settings; `name` is the name its findings and errors use (default `<FORMAT text>`).
#[pyfunction]
#[pyo3(signature = (text, format, read_settings=BTreeMap::new(), name=None))]
fn read_string(
    py: Python<'_>,
    text: String,
    format: String,
    read_settings: BTreeMap<String, String>,
    name: Option<String>,
) -> PyResult<(Model, String)> {
    let read = deep(py, || -> Result<_, mbconv::Error> {
        let format = Pipeline::new().registry().get(&format)?.info().name;
        let input = Input::Text {
            name: name.unwrap_or_else(|| format!("<{format} text>")),
            text,
        };
        let options = ReadOptions {
            from: Some(format.to_owned()),
            settings: settings(read_settings),
            accept_ir: false,
        };
        read_input(&input, &options)
    });
    let (model, report) = read.map_err(|e| raise(py, e, Phase::Read))?;
    Ok((Model { model }, report))
}

/// What `convert` did: the model read, the files written, the report, and the check of the
/// conversion (`TargetCheck` JSON) when one ran.
type Converted = (Model, Vec<PathBuf>, String, Option<String>);

/// Converts the file `input` to `output` as `mbconv convert` does (through
/// `Pipeline::convert`), then checks the conversion when `check` says so (`auto`: within the
/// work budget the command's own check has; `full`: `--check`; `none`: `--no-check`).
#[pyfunction]
#[pyo3(signature = (input, output, from_format=None, to_format=None, read_settings=BTreeMap::new(), write_settings=BTreeMap::new(), force=false, strict=false, check="auto"))]
#[allow(clippy::too_many_arguments)] // one argument per option of the command
fn convert(
    py: Python<'_>,
    input: PathBuf,
    output: PathBuf,
    from_format: Option<String>,
    to_format: Option<String>,
    read_settings: BTreeMap<String, String>,
    write_settings: BTreeMap<String, String>,
    force: bool,
    strict: bool,
    check: &str,
) -> PyResult<Converted> {
    let options = Options {
        from: from_format,
        to: to_format,
        read: settings(read_settings),
        write: settings(write_settings),
        force,
        strict,
        accept_ir: false,
    };
    let check = check.to_owned();
    let about = input.clone();
    let converted = deep(py, || {
        let pipeline = Pipeline::new();
        let mut phase = Phase::Read;
        let converted = pipeline.convert(
            &Input::File(input),
            &Output::File(output),
            &options,
            &mut |step| {
                if let mbconv::Step::Read { refused: false, .. } = step {
                    phase = Phase::Write;
                }
            },
        );
        let converted = converted.map_err(|e| (e, phase))?;
        let checked = match check.as_str() {
            "none" => None,
            how => match pipeline.check_conversion(&converted, how == "full") {
                mbconv::pipeline::ConversionCheck::Checked(target) => Some(json(&*target)),
                mbconv::pipeline::ConversionCheck::Empty => None,
            },
        };
        Ok((
            converted.loaded.imported.model,
            converted.files,
            json(&converted.report),
            checked,
        ))
    });
    let (model, files, report, checked) =
        converted.map_err(|(e, phase)| raise_about(py, e, phase, Some(&about)))?;
    Ok((Model { model }, files, report, checked))
}

/// Converts every file of `inputs` (a folder: its model files, with `recursive` its
/// sub-folders' too) to `to` into `out_dir` on every core, as `mbconv convert IN... --to F -o
/// DIR` does (the facade's [`mbconv::batch::Batch`]), with the GIL released. `sink(done,
/// total, item)` is called (with the GIL) as each file ends, `item` being `(input, output,
/// conversion or None, exception or None)`, the conversion as `convert` returns it; what
/// `sink` returns is kept, and the list of those, in input order, is returned.
#[pyfunction]
#[pyo3(signature = (inputs, to, out_dir, sink, from_format=None, read_settings=BTreeMap::new(), write_settings=BTreeMap::new(), force=false, strict=false, recursive=false, check="none"))]
#[allow(clippy::too_many_arguments)] // one argument per option of the command
fn convert_many(
    py: Python<'_>,
    inputs: Vec<PathBuf>,
    to: String,
    out_dir: PathBuf,
    sink: Py<PyAny>,
    from_format: Option<String>,
    read_settings: BTreeMap<String, String>,
    write_settings: BTreeMap<String, String>,
    force: bool,
    strict: bool,
    recursive: bool,
    check: &str,
) -> PyResult<Vec<Py<PyAny>>> {
    use mbconv::batch::{Batch, CheckMode};
    let options = Options {
        from: from_format,
        to: Some(to.clone()),
        read: settings(read_settings),
        write: settings(write_settings),
        force,
        strict,
        accept_ir: false,
    };
    let mode = match check {
        "none" => CheckMode::None,
        "full" => CheckMode::Full,
        _ => CheckMode::Budgeted,
    };
    let sink = Progress::new(Some(sink));
    let done = deep(py, || -> Result<_, mbconv::Error> {
        let pipeline = Pipeline::new();
        let target = pipeline.registry().get(&to)?;
        pipeline.check_write_settings(target, &options.write)?;
        let batch = Batch::plan(&pipeline, &inputs, &out_dir, target, recursive)?;
        let total = batch.jobs.len();
        let options = Options {
            to: Some(batch.to.clone()),
            ..options
        };
        // Each file as `Batch::convert` converts it, the step it failed at kept so that a
        // writer's refusal is a `WriteError`, as in `convert`.
        let work = |job: &mbconv::batch::Job| {
            let mut phase = Phase::Read;
            let result = job.convert(&pipeline, &options, mode, &mut |step| {
                if let mbconv::Step::Read { refused: false, .. } = step {
                    phase = Phase::Write;
                }
            });
            (result, phase)
        };
        Ok(batch.run(work, &|job, count, (result, phase)| {
            let item = Python::attach(|py| {
                let (converted, error) = match result {
                    Ok(done) => {
                        let checked = done.check.as_deref().map(json);
                        let files = done.converted.files;
                        let report = json(&done.converted.report);
                        let model = Model {
                            model: done.converted.loaded.imported.model,
                        };
                        (Some((model, files, report, checked)), None)
                    }
                    Err(e) => (
                        None,
                        Some(raise_about(py, e, phase, Some(&job.input)).into_value(py)),
                    ),
                };
                (job.input.clone(), job.output.clone(), converted, error)
            });
            sink.call((count, total, item))
        }))
    });
    let done = done.map_err(|e| raise(py, e, Phase::Read))?;
    sink.finish()?;
    Ok(done
        .into_iter()
        .map(|item| item.unwrap_or_else(|| py.None()))
        .collect())
}

/// A solver integrator by the command's name (`semi-implicit-euler`, `rk4`, `dopri5`,
/// `rosenbrock`), with the tolerances of the adaptive ones.
fn integrator(name: &str, rtol: f64, atol: f64) -> Result<mbconv::Integrator, mbconv::Error> {
    use mbconv::Integrator;
    Ok(match name {
        "semi-implicit-euler" => Integrator::SemiImplicitEuler,
        "rk4" => Integrator::Rk4,
        "dopri5" => Integrator::Dopri5 { rtol, atol },
        "rosenbrock" => Integrator::Rosenbrock { rtol, atol },
        other => {
            return Err(mbconv::Error::Format(Box::new(
                miette::MietteDiagnostic::new(format!(
                    "unknown integrator {other:?}; expected semi-implicit-euler, rk4, dopri5 or rosenbrock"
                ))
                .with_code("mbconv::integrator"),
            )));
        }
    })
}

/// The check's duration, step and tolerances, refused when out of range (a check of a negative
/// or endless duration, or with a step of zero, cannot run).
fn check_arguments(duration: f64, dt: Option<f64>, tol_pos: f64, tol_rot: f64) -> Result<(), mbconv::Error> {
    let why = if !(duration.is_finite() && duration > 0.0) {
        format!("the duration must be positive and finite, got {duration}")
    } else if let Some(dt) = dt.filter(|dt| !(dt.is_finite() && *dt > 0.0)) {
        format!("the step dt must be positive and finite, got {dt}")
    } else if !(tol_pos.is_finite() && tol_pos >= 0.0 && tol_rot.is_finite() && tol_rot >= 0.0) {
        format!("the tolerances must be finite and not negative, got tol_pos={tol_pos}, tol_rot={tol_rot}")
    } else {
        return Ok(());
    };
    Err(mbconv::Error::Format(Box::new(
        miette::MietteDiagnostic::new(format!("cannot check: {why}")).with_code("mbconv::check"),
    )))
}

/// One target's motions, as [`mbconv::checker::Trace`] holds them: the format, the body that
/// parted most, the times, that body's centre-of-mass paths in the original and the
/// conversion (`[x, y, z]` per sample), the bodies, and every body's position and rotation
/// error per sample (all packed `f64`s).
type Traced<'py> = (
    String,
    Option<String>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Vec<String>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
);

/// A check's result: the report as `mbconv check --json` prints it, and the motions of each
/// compared target.
type Checked<'py> = (String, Vec<Traced<'py>>);

/// Proves conversions of `model` (named `name` in the report) by simulation, as `mbconv
/// check` does: to each of `via` (every format for none), read back, simulated and compared.
/// `progress(done, total, step)` is called after the original's simulation (`step` is
/// `"original"`) and after each target (its format).
#[pyfunction]
#[pyo3(signature = (model, name, via, duration, dt=None, integrator_name=None, tol_pos=1e-6, tol_rot=1e-6, progress=None))]
#[allow(clippy::too_many_arguments)] // one argument per option of the command
fn check<'py>(
    py: Python<'py>,
    model: &Model,
    name: String,
    via: Vec<String>,
    duration: f64,
    dt: Option<f64>,
    integrator_name: Option<String>,
    tol_pos: f64,
    tol_rot: f64,
    progress: Option<Py<PyAny>>,
) -> PyResult<Checked<'py>> {
    let progress = Progress::new(progress);
    let report = deep(py, || -> Result<_, mbconv::Error> {
        check_arguments(duration, dt, tol_pos, tol_rot)?;
        let pipeline = Pipeline::new();
        let integrator = integrator_name
            .map(|n| integrator(&n, mbconv::solver::DEFAULT_RTOL, mbconv::solver::DEFAULT_ATOL))
            .transpose()?;
        let settings = mbconv::CheckSettings {
            duration,
            dt,
            integrator,
            tolerances: mbconv::Tolerances {
                position: tol_pos,
                rotation: tol_rot,
            },
            ..mbconv::CheckSettings::default()
        };
        let via: Vec<&str> = via.iter().map(|v| v.trim()).collect();
        let formats = pipeline.formats_named(&via)?;
        // `mbconv::checker::check`, one step at a time for the progress.
        let total = formats.len() + 1;
        let original = mbconv::checker::simulate_original(&model.model, &settings);
        progress.call((1, total, "original"));
        let targets = formats
            .iter()
            .enumerate()
            .map(|(i, format)| {
                let target = mbconv::checker::check_target(
                    &model.model,
                    &original,
                    pipeline.registry(),
                    *format,
                    &settings,
                );
                progress.call((i + 2, total, format.info().name));
                target
            })
            .collect();
        Ok(mbconv::CheckReport { model: name, targets })
    });
    let report = report.map_err(|e| raise(py, e, Phase::Check))?;
    progress.finish()?;
    let traces = report
        .targets
        .iter()
        .filter_map(|target| {
            let trace = target.trace.as_ref()?;
            let flat = |rows: &[Vec<f64>]| -> Vec<f64> { rows.iter().flatten().copied().collect() };
            Some((
                target.format.clone(),
                trace.body.clone(),
                bytes(py, &trace.times),
                bytes(
                    py,
                    &trace
                        .original
                        .iter()
                        .flat_map(|p| [p.x, p.y, p.z])
                        .collect::<Vec<f64>>(),
                ),
                bytes(
                    py,
                    &trace
                        .converted
                        .iter()
                        .flat_map(|p| [p.x, p.y, p.z])
                        .collect::<Vec<f64>>(),
                ),
                trace.bodies.clone(),
                bytes(py, &flat(&trace.position_error)),
                bytes(py, &flat(&trace.rotation_error)),
            ))
        })
        .collect();
    Ok((mbconv::checker::render_json(&report), traces))
}

/// `values` as packed native-endian `f64` bytes (numpy's `frombuffer` views them).
fn bytes<'py>(py: Python<'py>, values: &[f64]) -> Bound<'py, PyBytes> {
    let raw: Vec<u8> = values.iter().flat_map(|v| v.to_ne_bytes()).collect();
    PyBytes::new(py, &raw)
}

/// A simulation's samples: times, positions `[x, y, z]` and orientations `[qw, qx, qy, qz]`
/// per sample and body (packed `f64`s), the body names, the energies when recorded, and the
/// summary (steps, residuals) as JSON.
type Simulated<'py> = (
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Vec<String>,
    Option<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)>,
    String,
);

/// Simulates `model` as `mbconv simulate` does: the step `dt`, else the model's hint, else
/// 1 ms; every `every`-th sample kept.
#[pyfunction]
#[pyo3(signature = (model, duration, dt=None, integrator_name="semi-implicit-euler", rtol=1e-8, atol=1e-10, every=1, energy=false, joint_limits=false, progress=None))]
#[allow(clippy::too_many_arguments)] // one argument per option of the command
fn simulate<'py>(
    py: Python<'py>,
    model: &Model,
    duration: f64,
    dt: Option<f64>,
    integrator_name: &str,
    rtol: f64,
    atol: f64,
    every: usize,
    energy: bool,
    joint_limits: bool,
    progress: Option<Py<PyAny>>,
) -> PyResult<Simulated<'py>> {
    let integrator_name = integrator_name.to_owned();
    let progress = Progress::new(progress);
    let simulated = deep(py, || -> Result<_, mbconv::Error> {
        let options = mbconv::SimulateOptions {
            duration,
            dt: dt.or(model.model.simulation.time_step).unwrap_or(1e-3),
            integrator: integrator(&integrator_name, rtol, atol)?,
            every,
            energy,
            joint_limits,
            max_steps: None,
        };
        // `mbconv::simulate`, with `progress(t, duration)` at every hundredth of the duration.
        let names = model.model.bodies.iter().map(|b| b.name.clone()).collect();
        let mut trajectory = mbconv::Trajectory::new(names, energy);
        let mut next = 0.0;
        let summary = mbconv::solver::simulate(&model.model, &options, &mut |sample| {
            trajectory.push(sample);
            if sample.t >= next {
                progress.call((sample.t, duration));
                next = sample.t + duration / 100.0;
            }
        })?;
        let simulated = mbconv::Simulated { trajectory, summary };
        let trajectory = &simulated.trajectory;
        let (mut position, mut orientation) = (Vec::new(), Vec::new());
        for sample in &trajectory.poses {
            for pose in sample {
                position.extend_from_slice(&pose[..3]);
                orientation.extend_from_slice(&pose[3..]);
            }
        }
        let summary = serde_json::json!({
            "steps": simulated.summary.steps,
            "samples": simulated.summary.samples,
            "final_time": simulated.summary.final_time,
            "assembly_residual": simulated.summary.assembly_residual,
            "max_constraint_residual": simulated.summary.max_constraint_residual,
        });
        Ok((simulated.trajectory, position, orientation, summary.to_string()))
    });
    let (trajectory, position, orientation, summary) =
        simulated.map_err(|e| raise(py, e, Phase::Simulate))?;
    progress.finish()?;
    let energies = trajectory
        .kinetic
        .as_ref()
        .zip(trajectory.potential.as_ref())
        .map(|(k, p)| (bytes(py, k), bytes(py, p)));
    Ok((
        bytes(py, &trajectory.t),
        bytes(py, &position),
        bytes(py, &orientation),
        trajectory.bodies,
        energies,
        summary,
    ))
}

/// One setting as the Python `Setting` takes it.
fn setting_json(s: &mbconv::SettingSpec) -> serde_json::Value {
    serde_json::json!({
        "name": s.name,
        "expected": s.kind.expected(),
        "default": s.default,
        "help": s.help,
    })
}

/// Every format of this build with its names, extensions, description and settings, as JSON.
#[pyfunction]
fn formats() -> String {
    let registry = mbconv::formats();
    let all: Vec<serde_json::Value> = registry
        .formats()
        .map(|f| {
            let info = f.info();
            serde_json::json!({
                "name": info.name,
                "aliases": info.aliases,
                "extensions": info.extensions,
                "description": info.description,
                "short": info.shortcut,
                "read_settings": f.read_settings().iter().map(setting_json).collect::<Vec<_>>(),
                "write_settings": registry.write_settings(f).iter().map(setting_json).collect::<Vec<_>>(),
            })
        })
        .collect();
    serde_json::Value::Array(all).to_string()
}

/// The read settings of a `.xacro` input besides its format's ([`mbconv::xacro::READ_SETTINGS`]),
/// as JSON.
#[pyfunction]
fn xacro_settings() -> String {
    let all: Vec<serde_json::Value> = mbconv::xacro::READ_SETTINGS.iter().map(setting_json).collect();
    serde_json::Value::Array(all).to_string()
}

/// The files a batch of `inputs` converted to `to` into `out_dir` reads and writes (the
/// facade's [`mbconv::batch::Batch::plan`], as `mbconv convert IN... --to F -o DIR` plans
/// them): `(input, output, clash)`, `clash` the message refusing a file whose output an
/// earlier file writes.
#[pyfunction]
fn plan_batch(
    py: Python<'_>,
    inputs: Vec<PathBuf>,
    to: String,
    out_dir: PathBuf,
    recursive: bool,
) -> PyResult<Vec<(PathBuf, PathBuf, Option<String>)>> {
    let planned = deep(py, || -> Result<_, mbconv::Error> {
        let pipeline = Pipeline::new();
        let target = pipeline.registry().get(&to)?;
        let batch = mbconv::batch::Batch::plan(&pipeline, &inputs, &out_dir, target, recursive)?;
        Ok(batch
            .jobs
            .into_iter()
            .map(|job| {
                // A clash is refused before anything is made (prepare makes no folder then).
                let clash = job
                    .clash
                    .is_some()
                    .then(|| job.prepare().err())
                    .flatten()
                    .map(|e| e.to_string());
                (job.input, job.output, clash)
            })
            .collect())
    });
    planned.map_err(|e| raise(py, e, Phase::Read))
}

/// Runs the `mbconv` command with `argv` (the program's name first) and returns its exit code.
#[pyfunction]
fn run_cli(py: Python<'_>, argv: Vec<String>) -> u8 {
    deep(py, move || mbconv_cli::run(argv))
}

/// The extension module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // `convert_many`'s workers (rayon's pool, this module's own) nest as deep as the models do,
    // like `deep`'s thread. Without such threads on this machine, rayon's default pool serves.
    let _ = rayon::ThreadPoolBuilder::new()
        .stack_size(STACK_BYTES)
        .thread_name(|i| format!("mbconv-batch-{i}"))
        .build_global();
    m.add_class::<Model>()?;
    m.add_function(wrap_pyfunction!(read, m)?)?;
    m.add_function(wrap_pyfunction!(read_string, m)?)?;
    m.add_function(wrap_pyfunction!(convert, m)?)?;
    m.add_function(wrap_pyfunction!(convert_many, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(simulate, m)?)?;
    m.add_function(wrap_pyfunction!(formats, m)?)?;
    m.add_function(wrap_pyfunction!(xacro_settings, m)?)?;
    m.add_function(wrap_pyfunction!(plan_batch, m)?)?;
    m.add_function(wrap_pyfunction!(run_cli, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
