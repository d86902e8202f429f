//! `mbconv` reads, writes, converts, checks and simulates multibody models from Rust: Project
//! Chrono YAML, DART SKEL, Choreonoid Body, Shift JSON, URDF, MuJoCo MJCF, SDFormat, OpenUSD physics and the mbconv IR as JSON, all through
//! one neutral model, [`Model`]. It is the crate for tool authors: one dependency, a cargo
//! feature per format (`chrono`, `skel`, `body`, `shift`, `urdf`, `mjcf`, `sdf`, `usd`, all on by default; the IR's own JSON
//! is always built), a few functions ([`read`], [`read_str`], [`write()`], [`convert`],
//! [`check`], [`simulate`], [`formats`]), and a [`Report`] with every conversion that says
//! what it could not carry. Every model goes in and out through one [`Pipeline`] (read ->
//! validate -> admit -> lower and emit -> atomic write -> check), which the functions and the
//! `mbconv` command share; [`files`] says where models come from and go to, and [`batch`]
//! converts many files on every core.
//!
//! It is not the command-line tool (that is the `mbconv` binary of the `mbconv-cli` package,
//! a user of this crate), and it holds no format, solver or check logic of its own: formats
//! live in their crates (`mbconv-chrono`, `mbconv-skel`, …), simulation in `mbconv-solver`,
//! the proof by simulation in `mbconv-check`. This crate puts them behind one front door and
//! re-exports the types a caller needs; [`ir`], [`solver`], [`checker`] and [`viewer`] give the
//! whole of those crates for anything more.
//!
//! ```
//! # fn main() -> Result<(), mbconv::Error> {
//! let dir = tempfile::tempdir().unwrap();
//! // A pendulum, built in code and written as the IR's JSON.
//! let model = mbconv::demo::pendulum();
//! let path = dir.path().join("pendulum.mbir.json");
//! mbconv::write(&model, &path)?;
//! // Read it back and convert it to DART SKEL: the report says what SKEL cannot carry.
//! let read = mbconv::read(&path)?;
//! assert_eq!(read.model, model);
//! let conversion = mbconv::convert(&path, dir.path().join("pendulum.skel"), &mbconv::Options::default())?;
//! assert_eq!(conversion.files, [dir.path().join("pendulum.skel")]);
//! # Ok(())
//! # }
//! ```

pub mod batch;
pub mod demo;
mod error;
pub mod files;
pub mod pipeline;
pub mod xacro;

pub use error::Error;
pub use pipeline::{Converted, Emitted, Loaded, Pipeline, ReadOptions, Step};

/// The whole of the check's crate (`mbconv-check`): round trips, verdicts, tables, plots.
pub use mbconv_check as checker;
/// The whole of the neutral model's crate (`mbconv-ir`): model types, kinematics, lowering
/// passes, the format kit.
pub use mbconv_ir as ir;
/// The whole of the simulator's crate (`mbconv-solver`).
pub use mbconv_solver as solver;
/// The whole of the page's crate (`mbconv-view`): the `mbconv view` page, a model and its
/// conversions moving side by side in one HTML file.
pub use mbconv_view as viewer;

pub use mbconv_check::{CheckReport, CheckSettings, TargetCheck, Tolerances, Verdict};
pub use mbconv_ir::format::{
    Format, FormatInfo, Imported, LookupError, Options as Settings, Registry, SettingSpec, Shortcut,
};
pub use mbconv_ir::{
    Body, BodyRef, Category, Finding, Inertial, Joint, JointKind, Model, ModelSummary, Pose, Report,
    Severity, Simulation, validate,
};
pub use mbconv_solver::{Integrator, SimulateOptions, SimulationSummary, Trajectory};

use files::{Input, Output};
use std::path::{Path, PathBuf};

/// Every format this build reads and writes, each registered by its crate with its names,
/// aliases, extensions, shortcut name and settings: the IR's JSON (`mbir`) always, then each
/// format whose cargo feature is on (`chrono`, `skel`, `body`, `shift`, `urdf`, `mjcf`, `sdf`,
/// `usd`).
///
/// ```
/// let registry = mbconv::formats();
/// assert_eq!(registry.get("json").unwrap().info().name, "shift");
/// let shortcuts: Vec<String> = registry.shortcuts().into_iter().map(|s| s.name).collect();
/// assert!(shortcuts.contains(&"skel2yaml".to_owned()));
/// ```
pub fn formats() -> Registry {
    let mut registry = Registry::new();
    registry.register(Box::new(mbconv_ir::mbir::MbirFormat));
    #[cfg(feature = "chrono")]
    registry.register(Box::new(mbconv_chrono::ChronoFormat));
    #[cfg(feature = "skel")]
    registry.register(Box::new(mbconv_skel::SkelFormat));
    #[cfg(feature = "body")]
    registry.register(Box::new(mbconv_body::BodyFormat));
    #[cfg(feature = "shift")]
    registry.register(Box::new(mbconv_shift::ShiftFormat));
    #[cfg(feature = "urdf")]
    registry.register(Box::new(mbconv_urdf::UrdfFormat));
    #[cfg(feature = "mjcf")]
    registry.register(Box::new(mbconv_mjcf::MjcfFormat));
    #[cfg(feature = "sdf")]
    registry.register(Box::new(mbconv_sdf::SdfFormat));
    #[cfg(feature = "usd")]
    registry.register(Box::new(mbconv_usd::UsdFormat));
    registry
}

/// The readers of every built format as the hook a reader hands a file of another format to
/// ([`mbconv_ir::format::Readers`]: a Choreonoid project whose body item names a URDF file reads
/// it with the URDF reader); the [`Pipeline`] puts it in every reader's options.
///
/// ```
/// use mbconv::ir::format::Source;
/// let urdf = Source::from_string("r.urdf", r#"<robot name="r"><link name="a"/></robot>"#);
/// let settings = mbconv::Settings::default();
/// let read = mbconv::readers().read("urdf", &urdf, &settings).unwrap().unwrap();
/// assert_eq!(read.model.name, "r");
/// assert!(mbconv::readers().read("no-such-format", &urdf, &settings).is_none());
/// ```
pub fn readers() -> mbconv_ir::format::Readers {
    mbconv_ir::format::Readers::new(|name, source, options| {
        let registry = formats();
        let format = registry.get(name).ok()?;
        Some(registry.read(format, source, options))
    })
}

/// How [`convert`] reads and writes.
///
/// ```
/// let mut options = mbconv::Options::default();
/// options.to = Some("chrono".into());
/// options.write.set("angles", "radians");
/// assert_eq!(options.write.get("angles"), Some("radians"));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// The input format, by registry name or alias; `None`: by extension and content.
    pub from: Option<String>,
    /// The output format; `None`: by the output's extension.
    pub to: Option<String>,
    /// The reader's settings (`mbconv formats --settings` lists them).
    pub read: Settings,
    /// The writer's settings.
    pub write: Settings,
    /// Replace output files that exist (by default the conversion fails with
    /// [`Error::Exists`] and writes nothing).
    pub force: bool,
    /// Refuse (write nothing) a model that is physically dubious ([`Error::Dubious`]) or a
    /// conversion that drops or approximates anything ([`Error::Lossy`]).
    pub strict: bool,
    /// Read IR JSON whatever `from` says, when the input is IR JSON (as the `x2y` shortcuts
    /// do).
    pub accept_ir: bool,
}

/// What [`convert`] did.
///
/// ```
/// # fn main() -> Result<(), mbconv::Error> {
/// let dir = tempfile::tempdir().unwrap();
/// let input = dir.path().join("p.mbir.json");
/// mbconv::write(&mbconv::demo::pendulum(), &input)?;
/// let conversion = mbconv::convert(&input, dir.path().join("p.json"), &mbconv::Options::default())?;
/// assert_eq!(conversion.model, mbconv::demo::pendulum());
/// // Every finding of the reading, validation and writing names its file.
/// for finding in &conversion.report.findings {
///     assert!(finding.file.is_some());
/// }
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct Conversion {
    /// The model as read (and validated).
    pub model: Model,
    /// Everything the reading, validation and writing found, each finding naming its file.
    pub report: Report,
    /// The files written: the output, then its companions.
    pub files: Vec<PathBuf>,
}

impl Conversion {
    /// True when the reading or the writing dropped or approximated something.
    ///
    /// ```
    /// let conversion = mbconv::Conversion {
    ///     model: mbconv::Model::new("m"),
    ///     report: mbconv::Report::default(),
    ///     files: vec![],
    /// };
    /// assert!(!conversion.has_loss());
    /// ```
    pub fn has_loss(&self) -> bool {
        self.report.has_loss()
    }
}

/// What [`write()`] wrote.
///
/// ```
/// # fn main() -> Result<(), mbconv::Error> {
/// let dir = tempfile::tempdir().unwrap();
/// let written = mbconv::write(&mbconv::demo::pendulum(), dir.path().join("p.skel"))?;
/// assert_eq!(written.files.len(), 1);
/// assert!(written.report.file.as_deref().unwrap().ends_with("p.skel"));
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct Written {
    /// What the writer could not say or had to change, naming the output file.
    pub report: Report,
    /// The files written: the output, then its companions.
    pub files: Vec<PathBuf>,
}

/// Reads a model from a file, its format found by extension and content, and validates it
/// (through the [`Pipeline`]).
/// The report holds what the reader found (defaults applied, keys ignored) and what validation
/// found (warnings: the model is physically dubious); a model that breaks the IR's rules is
/// refused with [`Error::Invalid`].
///
/// ```
/// # fn main() -> Result<(), mbconv::Error> {
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("m.mbir.json");
/// mbconv::write(&mbconv::demo::pendulum(), &path)?;
/// let read = mbconv::read(&path)?;
/// assert_eq!(read.model.bodies[0].name, "bob");
/// assert!(!read.report.has_loss());
/// # Ok(())
/// # }
/// ```
pub fn read(path: impl AsRef<Path>) -> Result<Imported, Error> {
    let input = Input::File(path.as_ref().to_path_buf());
    admitted(&Pipeline::new(), &input, ReadOptions::default())
}

/// Reads `input` with `options` and admits the model (not strictly).
fn admitted(pipeline: &Pipeline, input: &Input, options: ReadOptions) -> Result<Imported, Error> {
    let loaded = pipeline.read(input, &options)?;
    loaded.admit(false)?;
    Ok(loaded.into_imported())
}

/// Reads a model from text in the named format (registry name or alias: `skel`, `yaml`,
/// `json`, …) and validates it, as [`read`] does. Relative references (meshes, included
/// files) resolve against the working directory.
///
/// ```
/// # fn main() -> Result<(), mbconv::Error> {
/// let skel = r#"<skel version="1.0"><world name="w"><skeleton name="s">
///   <body name="ball"><inertia><mass>2</mass></inertia></body>
///   <joint type="free" name="j"><parent>world</parent><child>ball</child></joint>
/// </skeleton></world></skel>"#;
/// let read = mbconv::read_str(skel, "skel")?;
/// assert_eq!(read.model.bodies[0].inertial.mass, 2.0);
/// # Ok(())
/// # }
/// ```
pub fn read_str(text: &str, format: &str) -> Result<Imported, Error> {
    let pipeline = Pipeline::new();
    let name = pipeline.registry().get(format)?.info().name;
    let input = Input::Text {
        name: format!("<{name} text>"),
        text: text.to_owned(),
    };
    let options = ReadOptions {
        from: Some(name.to_owned()),
        ..ReadOptions::default()
    };
    admitted(&pipeline, &input, options)
}

/// Writes a model to a file in the format of its extension, with the file's companions
/// (a Choreonoid project, for example) beside it, each atomically (a temporary file renamed
/// into place), replacing files that exist. Returns what the writer could not say.
///
/// ```
/// # fn main() -> Result<(), mbconv::Error> {
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("pendulum.json");
/// let written = mbconv::write(&mbconv::demo::pendulum(), &path)?;
/// assert_eq!(written.files, [path.clone()]);
/// assert!(std::fs::read_to_string(&path).unwrap().contains("bob"));
/// # Ok(())
/// # }
/// ```
pub fn write(model: &Model, path: impl AsRef<Path>) -> Result<Written, Error> {
    let pipeline = Pipeline::new();
    let output = Output::File(path.as_ref().to_path_buf());
    let format = pipeline.target(None, &output)?;
    let emitted = pipeline.emit(model, format, &Settings::default(), &output)?;
    let files = emitted.write(None, true)?;
    let mut report = emitted.report;
    report.pin_file();
    Ok(Written { report, files })
}

/// Reads `input`, validates it and writes it to `output` (with its companions, each
/// atomically), in the formats the options name or the files' extensions (and the input's
/// content) tell, through [`Pipeline::convert`]: an output that exists is refused unless
/// [`Options::force`], and so is an output that is the input. The report holds every finding
/// of the three steps, each naming its file; [`Conversion::has_loss`] says whether anything
/// was dropped or approximated.
///
/// ```
/// # fn main() -> Result<(), mbconv::Error> {
/// let dir = tempfile::tempdir().unwrap();
/// let input = dir.path().join("pendulum.mbir.json");
/// mbconv::write(&mbconv::demo::pendulum(), &input)?;
/// let output = dir.path().join("pendulum.yaml");
/// let conversion = mbconv::convert(&input, &output, &mbconv::Options::default())?;
/// assert_eq!(conversion.files[0], output);
/// let back = mbconv::read(&output)?.model;
/// assert!(back.bodies.iter().any(|b| b.name == "bob"));
/// # Ok(())
/// # }
/// ```
pub fn convert(
    input: impl AsRef<Path>,
    output: impl AsRef<Path>,
    options: &Options,
) -> Result<Conversion, Error> {
    let pipeline = Pipeline::new();
    let input = Input::File(input.as_ref().to_path_buf());
    let output = Output::File(output.as_ref().to_path_buf());
    let converted = pipeline.convert(&input, &output, options, &mut |_| {})?;
    let mut report = converted.report;
    report.file = Some(converted.loaded.source.name);
    Ok(Conversion {
        model: converted.loaded.imported.model,
        report,
        files: converted.files,
    })
}

/// Proves conversions by simulation: converts `model` to each of `targets` (registry names;
/// empty: every format this build writes), reads each back, simulates the original, the
/// lowered and the read-back model, and compares the bodies' motions. A target's verdict is
/// `exact`, `explained` (every difference comes from a reported loss), `unexplained` or
/// `failed`; [`CheckReport::passed`] is false for the last two. See `docs/check.md`.
///
/// ```
/// # fn main() -> Result<(), mbconv::Error> {
/// let settings = mbconv::CheckSettings { duration: 0.1, ..Default::default() };
/// let report = mbconv::check(&mbconv::demo::pendulum(), &["mbir", "skel"], &settings)?;
/// assert_eq!(report.targets[0].verdict, mbconv::Verdict::Exact);
/// assert!(report.passed());
/// # Ok(())
/// # }
/// ```
pub fn check(model: &Model, targets: &[&str], settings: &CheckSettings) -> Result<CheckReport, Error> {
    let pipeline = Pipeline::new();
    let formats = pipeline.formats_named(targets)?;
    Ok(mbconv_check::check(
        model,
        &model.name,
        pipeline.registry(),
        &formats,
        settings,
    ))
}

/// A simulation: every sample, and what the integrator did.
///
/// ```
/// # fn main() -> Result<(), mbconv::Error> {
/// let options = mbconv::SimulateOptions { duration: 0.1, every: 10, ..Default::default() };
/// let simulated = mbconv::simulate(&mbconv::demo::pendulum(), &options)?;
/// assert_eq!(simulated.trajectory.t.len(), simulated.summary.samples);
/// assert_eq!(simulated.trajectory.bodies, ["bob"]);
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct Simulated {
    /// Time, body poses and (when asked for) energies at every sample.
    pub trajectory: Trajectory,
    /// Steps taken, residuals.
    pub summary: SimulationSummary,
}

impl Simulated {
    /// The largest distance of the total energy from its initial value over the samples (J),
    /// when the simulation recorded energies ([`SimulateOptions::energy`]).
    ///
    /// ```
    /// # fn main() -> Result<(), mbconv::Error> {
    /// let options = mbconv::SimulateOptions { duration: 0.5, energy: true, ..Default::default() };
    /// let simulated = mbconv::simulate(&mbconv::demo::pendulum(), &options)?;
    /// assert!(simulated.energy_drift().unwrap() < 1e-2);
    /// # Ok(())
    /// # }
    /// ```
    pub fn energy_drift(&self) -> Option<f64> {
        let (kinetic, potential) = (
            self.trajectory.kinetic.as_ref()?,
            self.trajectory.potential.as_ref()?,
        );
        let total: Vec<f64> = kinetic.iter().zip(potential).map(|(k, p)| k + p).collect();
        let first = *total.first()?;
        Some(total.iter().map(|e| (e - first).abs()).fold(0.0, f64::max))
    }
}

/// Simulates a model from its initial state (after closing its loops) with the solver of
/// `mbconv-solver`, keeping every `options.every`-th sample.
///
/// ```
/// # fn main() -> Result<(), mbconv::Error> {
/// let options = mbconv::SimulateOptions { duration: 0.2, dt: 1e-3, ..Default::default() };
/// let simulated = mbconv::simulate(&mbconv::demo::pendulum(), &options)?;
/// assert_eq!(simulated.trajectory.t.len(), 201);
/// assert_eq!(simulated.summary.steps, 200);
/// # Ok(())
/// # }
/// ```
pub fn simulate(model: &Model, options: &SimulateOptions) -> Result<Simulated, Error> {
    let mut trajectory = Trajectory::new(
        model.bodies.iter().map(|b| b.name.clone()).collect(),
        options.energy,
    );
    let summary = mbconv_solver::simulate(model, options, &mut |sample| trajectory.push(sample))?;
    Ok(Simulated { trajectory, summary })
}
