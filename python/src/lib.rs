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
//! `simulate`, `formats`, `default_output`, `models_in`, `run_cli`) and the error mapping (`errors`). The Python API (typed,
//! documented) is in `mbconv/__init__.py`; `mbconv/_native.pyi` types this module.

mod errors;

use errors::{Phase, raise};
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

/// Settings as the registry takes them (`key=value`, as `--read-option` and `--write-option`).
fn settings(items: BTreeMap<String, String>) -> Settings {
    let mut settings = Settings::default();
    for (key, value) in items {
        settings.set(key, value);
    }
    settings
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

    /// The model's summary at its initial state, as `mbconv info --json` prints it.
    fn summary_json(&self, py: Python<'_>) -> String {
        py.detach(|| serde_json::to_string_pretty(&ModelSummary::new(&self.model)).unwrap_or_default())
    }

    /// The model as the IR's JSON (`.mbir.json`).
    fn to_json(&self, py: Python<'_>) -> String {
        py.detach(|| mbconv::ir::mbir::to_string(&self.model))
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
        let read = py.detach(|| read_input(&input, &options));
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
        let written = py.detach(|| -> Result<_, mbconv::Error> {
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
        let emitted = py.detach(|| -> Result<_, mbconv::Error> {
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
    let read = py.detach(|| read_input(&Input::File(path), &options));
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
    let read = py.detach(|| -> Result<_, mbconv::Error> {
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
    let converted = py.detach(|| {
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
    let (model, files, report, checked) = converted.map_err(|(e, phase)| raise(py, e, phase))?;
    Ok((Model { model }, files, report, checked))
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

/// A check's result: the report as `mbconv check --json` prints it, and per target the worst
/// body's centre-of-mass paths (format, body, times, original and converted positions as
/// packed `f64`s).
type Checked<'py> = (
    String,
    Vec<(
        String,
        String,
        Bound<'py, PyBytes>,
        Bound<'py, PyBytes>,
        Bound<'py, PyBytes>,
    )>,
);

/// Proves conversions of `model` (named `name` in the report) by simulation, as `mbconv
/// check` does: to each of `via` (every format for none), read back, simulated and compared.
#[pyfunction]
#[pyo3(signature = (model, name, via, duration, dt=None, integrator_name=None, tol_pos=1e-6, tol_rot=1e-6))]
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
) -> PyResult<Checked<'py>> {
    let report = py.detach(|| -> Result<_, mbconv::Error> {
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
        Ok(mbconv::checker::check(
            &model.model,
            &name,
            pipeline.registry(),
            &formats,
            &settings,
        ))
    });
    let report = report.map_err(|e| raise(py, e, Phase::Check))?;
    let traces = report
        .targets
        .iter()
        .filter_map(|target| {
            let trace = target.trace.as_ref()?;
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
#[pyo3(signature = (model, duration, dt=None, integrator_name="semi-implicit-euler", rtol=1e-8, atol=1e-10, every=1, energy=false, joint_limits=false))]
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
) -> PyResult<Simulated<'py>> {
    let integrator_name = integrator_name.to_owned();
    let simulated = py.detach(|| -> Result<_, mbconv::Error> {
        let options = mbconv::SimulateOptions {
            duration,
            dt: dt.or(model.model.simulation.time_step).unwrap_or(1e-3),
            integrator: integrator(&integrator_name, rtol, atol)?,
            every,
            energy,
            joint_limits,
            max_steps: None,
        };
        let simulated = mbconv::simulate(&model.model, &options)?;
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

/// Every format of this build with its names, extensions, description and settings, as JSON.
#[pyfunction]
fn formats() -> String {
    let registry = mbconv::formats();
    let spec = |s: &mbconv::SettingSpec| {
        serde_json::json!({
            "name": s.name,
            "expected": s.kind.expected(),
            "default": s.default,
            "help": s.help,
        })
    };
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
                "read_settings": f.read_settings().iter().map(spec).collect::<Vec<_>>(),
                "write_settings": registry.write_settings(f).iter().map(spec).collect::<Vec<_>>(),
            })
        })
        .collect();
    serde_json::Value::Array(all).to_string()
}

/// The file a conversion of `input` to `format` writes by default (`mbconv convert IN --to
/// FORMAT` without `-o`): the input's stem with the format's extension, beside the input.
#[pyfunction]
fn default_output(py: Python<'_>, input: PathBuf, format: String) -> PyResult<PathBuf> {
    let registry = mbconv::formats();
    let format = registry
        .get(&format)
        .map_err(|e| raise(py, e.into(), Phase::Write))?;
    Ok(mbconv::files::default_output(&input, format))
}

/// The model files of the folder `dir` (those a format reads by extension), sorted, relative
/// to `dir`; with `recursive`, its sub-folders' too.
#[pyfunction]
fn models_in(py: Python<'_>, dir: PathBuf, recursive: bool) -> PyResult<Vec<PathBuf>> {
    let found = py.detach(|| Pipeline::new().models_in(&dir, recursive));
    found.map_err(|e| raise(py, e, Phase::Read))
}

/// Runs the `mbconv` command with `argv` (the program's name first) and returns its exit code.
#[pyfunction]
fn run_cli(py: Python<'_>, argv: Vec<String>) -> u8 {
    py.detach(|| mbconv_cli::run(argv))
}

/// The extension module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Model>()?;
    m.add_function(wrap_pyfunction!(read, m)?)?;
    m.add_function(wrap_pyfunction!(read_string, m)?)?;
    m.add_function(wrap_pyfunction!(convert, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(simulate, m)?)?;
    m.add_function(wrap_pyfunction!(formats, m)?)?;
    m.add_function(wrap_pyfunction!(default_output, m)?)?;
    m.add_function(wrap_pyfunction!(models_in, m)?)?;
    m.add_function(wrap_pyfunction!(run_cli, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
