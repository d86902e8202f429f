//! Command-line arguments: the built-in subcommands ([`Cli`]) and the `x2y` shortcuts, made
//! at run time from a registry's short names ([`command`], [`parse_from`]).

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};
use mbconv::{Registry, Shortcut};
use std::ffi::OsString;
use std::path::PathBuf;

/// What `mbconv --help` says after the options: how the `x2y` shortcuts are formed (they are
/// commands, hidden from the list), a few examples and the exit codes.
const AFTER_HELP: &str = "\
Shortcuts: `mbconv <from>2<to> INPUT` converts between two formats by their short names, e.g.
`mbconv urdf2mjcf robot.urdf`; `mbconv formats` lists them.

Examples: mbconv convert robot.skel -o robot.yaml; mbconv check robot.urdf --via mjcf,sdf
Exit codes: 0 ok, 1 a check failed (--strict refused, a difference no loss explains, a batch
file failed), 2 bad input or usage, 3 a proof could not be completed. See docs/errors.md.";

/// Convert multibody models between formats through one neutral model; report what a
/// conversion cannot carry. ([`command`] names the formats the registry holds.)
#[derive(Debug, Parser)]
#[command(name = "mbconv", version, after_help = AFTER_HELP)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
    /// Print only errors.
    #[arg(short, long, global = true)]
    pub quiet: bool,
    /// Print every finding, one line each (default: warnings grouped by code, notes counted).
    #[arg(short, long, global = true)]
    pub verbose: bool,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Convert a model from one format to another.
    Convert(ConvertArgs),
    /// Prove a conversion by simulation: convert, read back, simulate both, compare motions.
    ///
    /// Converts to each target, reads it back, simulates the original and the conversion and
    /// compares body motions; exit 1 if a difference is unexplained, 3 if a step of the proof
    /// failed.
    Check(CheckArgs),
    /// See a model move, and its conversion as a ghost over it, in one offline HTML page.
    ///
    /// One HTML page (three.js) that opens offline in a browser.
    View(ViewArgs),
    /// Summarise a model: bodies, joints, degrees of freedom, loops.
    Info(InspectArgs),
    /// Check a model against the rules of the IR; exit 2 if it is invalid.
    Validate(InspectArgs),
    /// Simulate a model and write the body trajectories as CSV (or JSON).
    Simulate(SimulateArgs),
    /// Positions, velocities and accelerations of every body at the initial state.
    Dynamics(DynamicsArgs),
    /// Design bushing constants, or replace an ideal joint by a bushing.
    #[command(subcommand)]
    Bushing(BushingCommand),
    /// List the formats this build reads and writes (with --settings: every format setting).
    Formats(FormatsArgs),
}

/// `mbconv formats` arguments.
#[derive(Debug, clap::Args)]
pub struct FormatsArgs {
    /// Also list each format's read and write settings (`--read-option`/`--write-option`
    /// KEY=VALUE): name, values, default, what it does.
    #[arg(long)]
    pub settings: bool,
}

/// Arguments of `convert`.
#[derive(Debug, Args)]
pub struct ConvertArgs {
    /// Input model (`-` for standard input). Several inputs, or a directory (every file in it
    /// whose extension a format reads), convert in a batch into the directory `-o DIR`.
    #[arg(required = true, num_args = 1..)]
    pub inputs: Vec<PathBuf>,
    /// Output file (`-` for standard output). Default: the input's name with the target
    /// format's extension, beside the input. In a batch: the directory to write into.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Batch: also take the models in the sub-directories of a directory input (their
    /// relative paths are kept under the output directory).
    #[arg(short, long)]
    pub recursive: bool,
    /// Input format (default: by extension and content).
    #[arg(long, value_name = "FORMAT")]
    pub from: Option<String>,
    /// Output format (default: by the output's extension).
    #[arg(long, value_name = "FORMAT")]
    pub to: Option<String>,
    /// Conversion settings.
    #[command(flatten)]
    pub flags: ConversionFlags,
}

/// Arguments of the `x2y` shortcuts.
#[derive(Debug, Args)]
pub struct ShortcutArgs {
    /// Input model (`-` for standard input). An IR JSON file (`.mbir.json`) is accepted too.
    pub input: PathBuf,
    /// Output file (`-` for standard output). Default: beside the input, with the target's
    /// extension.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Conversion settings.
    #[command(flatten)]
    pub flags: ConversionFlags,
}

/// Settings shared by every conversion.
#[derive(Debug, Args, Default)]
pub struct ConversionFlags {
    /// Fail (exit 1, nothing written) if the conversion drops or approximates anything, or
    /// the model is physically dubious (a validation warning; see `docs/errors.md`).
    #[arg(long)]
    pub strict: bool,
    /// Replace an output file that exists (by default it is kept and the command fails).
    #[arg(long)]
    pub force: bool,
    /// Print the whole report (every finding of the reading, validation and writing, and the
    /// outcome) as one JSON object on standard output instead of the messages; in a batch,
    /// one object for every file.
    #[arg(long)]
    pub json: bool,
    /// A reader setting, `KEY=VALUE` (repeatable); see `docs/formats/`.
    #[arg(long = "read-option", value_name = "KEY=VALUE")]
    pub read_options: Vec<String>,
    /// A writer setting, `KEY=VALUE` (repeatable); see `docs/formats/`.
    #[arg(long = "write-option", value_name = "KEY=VALUE")]
    pub write_options: Vec<String>,
    /// Turn the whole model about the world origin so that gravity points down this axis
    /// (the write setting `up`, which every writer takes); the check compares the conversion
    /// turned back into the original world.
    #[arg(long, value_enum, value_name = "AXIS")]
    pub up: Option<UpName>,
    /// What to do with the mesh files the model names (the write setting `assets`, which
    /// every writer takes): `reference` names them where they are (relative to the output, or
    /// by the URI read), `copy` copies them into `<output stem>_meshes/` beside the output.
    /// Files the target cannot read (COLLADA for MuJoCo) are converted there either way.
    #[arg(long, value_enum, value_name = "HOW")]
    pub assets: Option<AssetsName>,
    /// Check the conversion fully, without the automatic check's work budget (500 000
    /// body-steps per simulation, measured as it runs; past it the verdict is `skipped`; see
    /// `docs/check.md`).
    #[arg(long, conflicts_with = "no_check")]
    pub check: bool,
    /// Do not check the conversion by simulation.
    #[arg(long)]
    pub no_check: bool,
    /// Also write the `mbconv view` page of this conversion (the original and the conversion
    /// moving side by side, with the check's verdict and the findings) into this HTML file.
    #[arg(long, value_name = "FILE.html")]
    pub view: Option<PathBuf>,
}

/// Arguments of `check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The model (`-` for standard input).
    pub model: PathBuf,
    /// Refuse (exit 1) a model that is physically dubious (a validation warning; see
    /// `docs/errors.md`).
    #[arg(long)]
    pub strict: bool,
    /// Target formats, by registry name (`chrono,skel,mbir`). Default: every format this
    /// build writes (as `--all`).
    #[arg(long, value_delimiter = ',', value_name = "F1,F2,...", conflicts_with_all = ["all", "against"])]
    pub via: Vec<String>,
    /// Every format this build writes.
    #[arg(long, conflicts_with = "against")]
    pub all: bool,
    /// Compare with a model converted earlier or by another tool instead of converting.
    #[arg(long, value_name = "FILE")]
    pub against: Option<PathBuf>,
    /// Input format (default: by extension and content).
    #[arg(long, value_name = "FORMAT")]
    pub from: Option<String>,
    /// Simulated time in seconds.
    #[arg(long, default_value_t = mbconv::checker::DEFAULT_DURATION, value_parser = positive_number)]
    pub duration: f64,
    /// Time step in seconds. Default: the model's own, else 1e-3.
    #[arg(long, value_parser = positive_number)]
    pub dt: Option<f64>,
    /// Integration scheme (the same for every simulation of the check). Default: adaptive
    /// Dormand–Prince at a tolerance tight enough that only the physics counts (its estimated
    /// error is below a tenth of --tol-pos); a scheme named here is used as it is.
    #[arg(long, value_enum)]
    pub integrator: Option<IntegratorName>,
    /// Largest centre-of-mass distance that counts as the same motion (m).
    #[arg(long, default_value_t = 1e-6, value_name = "M", value_parser = positive_number)]
    pub tol_pos: f64,
    /// Largest rotation angle that counts as the same motion (rad).
    #[arg(long, default_value_t = 1e-6, value_name = "RAD", value_parser = positive_number)]
    pub tol_rot: f64,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Draw the centre of mass of each target's worst body over time, original against
    /// converted, into this SVG file.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// Also write the `mbconv view` page of the check (the original and each conversion moving
    /// side by side, the per-body error over time, the verdicts and the findings) into this
    /// HTML file.
    #[arg(long, value_name = "FILE.html")]
    pub view: Option<PathBuf>,
    /// Replace a plot or page file that exists.
    #[arg(long)]
    pub force: bool,
    /// Reader settings, as for `convert`.
    #[arg(long = "read-option", value_name = "KEY=VALUE")]
    pub read_options: Vec<String>,
    /// Check the conversions as `convert --up AXIS` makes them: the model turned so that
    /// gravity points down AXIS, the converted motion compared turned back into the original
    /// world.
    #[arg(long, value_enum, value_name = "AXIS", conflicts_with = "against")]
    pub up: Option<UpName>,
}

/// Arguments of `view`.
#[derive(Debug, Args)]
pub struct ViewArgs {
    /// The model (`-` for standard input).
    pub model: PathBuf,
    /// Also convert the model to this format (registry name), read it back and draw it as a
    /// ghost over the original, with the check's verdict, the per-body error over time and
    /// the conversion's findings. Repeatable or comma-separated: the page has a selector.
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "FORMAT",
        conflicts_with = "against"
    )]
    pub via: Vec<String>,
    /// Draw this model (converted earlier or by another tool) as the ghost instead.
    #[arg(long, value_name = "FILE")]
    pub against: Option<PathBuf>,
    /// Input format (default: by extension and content).
    #[arg(long, value_name = "FORMAT")]
    pub from: Option<String>,
    /// Simulated time in seconds.
    #[arg(long, default_value_t = mbconv::viewer::DEFAULT_DURATION)]
    pub duration: f64,
    /// Time step in seconds. Default: the model's own, else 1e-3.
    #[arg(long)]
    pub dt: Option<f64>,
    /// The page to write. Default: the model's file name with `.html`, in the current
    /// directory.
    #[arg(short, long, value_name = "FILE.html")]
    pub output: Option<PathBuf>,
    /// Replace a page that exists.
    #[arg(long)]
    pub force: bool,
    /// Reader settings, as for `convert`.
    #[arg(long = "read-option", value_name = "KEY=VALUE")]
    pub read_options: Vec<String>,
    /// Writer settings for `--via`, as for `convert`.
    #[arg(long = "write-option", value_name = "KEY=VALUE")]
    pub write_options: Vec<String>,
}

/// The world axes `--up` takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum UpName {
    /// Gravity down -x.
    X,
    /// Gravity down -y.
    Y,
    /// Gravity down -z.
    Z,
}

impl UpName {
    /// The value of the write setting `up`.
    pub fn letter(self) -> &'static str {
        let axis = match self {
            UpName::X => mbconv::ir::lower::UpAxis::X,
            UpName::Y => mbconv::ir::lower::UpAxis::Y,
            UpName::Z => mbconv::ir::lower::UpAxis::Z,
        };
        axis.letter()
    }
}

/// The values `--assets` takes (the write setting `assets`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum AssetsName {
    /// Name mesh files where they are.
    Reference,
    /// Copy mesh files beside the output.
    Copy,
}

impl AssetsName {
    /// The value of the write setting `assets`.
    pub fn word(self) -> &'static str {
        let words = mbconv::ir::format::settings::ASSET_POLICIES;
        match self {
            AssetsName::Reference => words[0],
            AssetsName::Copy => words[1],
        }
    }
}

/// Arguments of `info` and `validate`.
#[derive(Debug, Args)]
pub struct InspectArgs {
    /// The model (`-` for standard input).
    pub model: PathBuf,
    /// Refuse (exit 1) a model that is physically dubious (a validation warning; see
    /// `docs/errors.md`).
    #[arg(long)]
    pub strict: bool,
    /// Input format (default: by extension and content).
    #[arg(long, value_name = "FORMAT")]
    pub from: Option<String>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// Reader settings, as for `convert`.
    #[arg(long = "read-option", value_name = "KEY=VALUE")]
    pub read_options: Vec<String>,
}

/// Integrators of `simulate`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum IntegratorName {
    /// Semi-implicit (symplectic) Euler, as DART and MuJoCo step.
    SemiImplicitEuler,
    /// Classical fourth-order Runge-Kutta.
    Rk4,
    /// Adaptive Dormand-Prince 5(4); a run that turns out stiff continues with rosenbrock.
    Dopri5,
    /// Adaptive linearly implicit Rosenbrock 4(3) (Rodas4), for stiff models.
    Rosenbrock,
}

/// Arguments of `simulate`.
#[derive(Debug, Args)]
pub struct SimulateArgs {
    /// The model (`-` for standard input).
    pub model: PathBuf,
    /// Refuse (exit 1) a model that is physically dubious (a validation warning; see
    /// `docs/errors.md`).
    #[arg(long)]
    pub strict: bool,
    /// Input format (default: by extension and content).
    #[arg(long, value_name = "FORMAT")]
    pub from: Option<String>,
    /// Simulated time in seconds.
    #[arg(long, default_value_t = 1.0)]
    pub duration: f64,
    /// Time step in seconds (output interval for dopri5). Default: the model's hint, else 1e-3.
    #[arg(long)]
    pub dt: Option<f64>,
    /// Integration scheme.
    #[arg(long, value_enum, default_value = "semi-implicit-euler")]
    pub integrator: IntegratorName,
    /// dopri5 and rosenbrock relative tolerance.
    #[arg(long, default_value_t = 1e-8)]
    pub rtol: f64,
    /// dopri5 and rosenbrock absolute tolerance.
    #[arg(long, default_value_t = 1e-10)]
    pub atol: f64,
    /// Write every N-th step.
    #[arg(long, default_value_t = 1)]
    pub every: usize,
    /// Output file (default: standard output).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Replace an output file that exists.
    #[arg(long)]
    pub force: bool,
    /// Write JSON instead of CSV.
    #[arg(long)]
    pub json: bool,
    /// Add kinetic and potential energy columns.
    #[arg(long)]
    pub energy: bool,
    /// Enforce joint position limits (off by default, as in DART).
    #[arg(long)]
    pub joint_limits: bool,
    /// Reader settings, as for `convert`.
    #[arg(long = "read-option", value_name = "KEY=VALUE")]
    pub read_options: Vec<String>,
}

/// Arguments of `dynamics`.
///
/// When the model gives a time step (or `--dt` does), joint springs and dampers are treated
/// implicitly over that step, as DART's forward dynamics and the semi-implicit Euler integrator
/// do; `--continuous` reports the continuous-time accelerations instead. The two differ only
/// for joints with springs or dampers.
#[derive(Debug, Args)]
pub struct DynamicsArgs {
    /// The model (`-` for standard input).
    pub model: PathBuf,
    /// Refuse (exit 1) a model that is physically dubious (a validation warning; see
    /// `docs/errors.md`).
    #[arg(long)]
    pub strict: bool,
    /// Time step for implicit joint springs and dampers (default: the model's time step).
    #[arg(long, conflicts_with = "continuous")]
    pub dt: Option<f64>,
    /// Continuous-time accelerations (joint springs and dampers explicit).
    #[arg(long)]
    pub continuous: bool,
    /// Input format (default: by extension and content).
    #[arg(long, value_name = "FORMAT")]
    pub from: Option<String>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// Reader settings, as for `convert`.
    #[arg(long = "read-option", value_name = "KEY=VALUE")]
    pub read_options: Vec<String>,
}

/// `mbconv bushing …`.
#[derive(Debug, Subcommand)]
pub enum BushingCommand {
    /// Stiffness, damping and natural frequency from experiment or design targets.
    Design(BushingDesignArgs),
    /// Turn an ideal joint into a penalty bushing (Drake's roll-pitch-yaw law).
    Replace(BushingReplaceArgs),
}

/// Underdamped settling-time approximations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum UnderdampedFormulaName {
    /// ωn ≈ −ln(ratio) / (ζ tₛ).
    Envelope,
    /// ωn ≈ −ln(ratio √(1 − ζ²)) / (ζ tₛ).
    EnvelopeWithAmplitude,
}

/// Arguments of `bushing design` (SI units; for a rotational direction read inertia for mass,
/// a moment for the load and an angle for the displacement).
#[derive(Debug, Args)]
pub struct BushingDesignArgs {
    /// Natural frequency ωn (rad/s).
    #[arg(long)]
    pub omega_n: Option<f64>,
    /// Settling time (s), to derive ωn.
    #[arg(long)]
    pub settling_time: Option<f64>,
    /// Settling ratio (default 0.01).
    #[arg(long)]
    pub settling_ratio: Option<f64>,
    /// Damping ratio ζ (default 1).
    #[arg(long)]
    pub damping_ratio: Option<f64>,
    /// Logarithmic decrement, to derive ζ.
    #[arg(long)]
    pub log_decrement: Option<f64>,
    /// Ratio of successive peaks, to derive ζ.
    #[arg(long)]
    pub decay_ratio: Option<f64>,
    /// Underdamped approximation.
    #[arg(long, value_enum, default_value = "envelope")]
    pub underdamped_formula: UnderdampedFormulaName,
    /// Mass (kg) or, with --inertia, the moment of inertia (kg·m²).
    #[arg(long, alias = "inertia")]
    pub mass: Option<f64>,
    /// Stiffness, given directly.
    #[arg(long)]
    pub stiffness: Option<f64>,
    /// Static or maximum load (N or N·m).
    #[arg(long)]
    pub load: Option<f64>,
    /// Displacement under the load (m or rad).
    #[arg(long)]
    pub displacement: Option<f64>,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `bushing replace`.
#[derive(Debug, Args)]
pub struct BushingReplaceArgs {
    /// The model (`-` for standard input).
    pub model: PathBuf,
    /// The joint to replace.
    #[arg(long)]
    pub joint: String,
    /// Output file (`-` for standard output; default: standard output).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Replace an output file that exists.
    #[arg(long)]
    pub force: bool,
    /// Refuse (exit 1) a model that is physically dubious.
    #[arg(long)]
    pub strict: bool,
    /// Input format (default: by extension and content).
    #[arg(long, value_name = "FORMAT")]
    pub from: Option<String>,
    /// Output format (default: by the output's extension, else the input's format).
    #[arg(long, value_name = "FORMAT")]
    pub to: Option<String>,
    /// Name of the new bushing (default: the joint's name).
    #[arg(long)]
    pub name: Option<String>,
    /// Settling time (s) of the bushing's stiff directions.
    #[arg(long)]
    pub settling_time: Option<f64>,
    /// Settling ratio.
    #[arg(long)]
    pub settling_ratio: Option<f64>,
    /// Damping ratio.
    #[arg(long)]
    pub damping_ratio: Option<f64>,
    /// Natural frequency (rad/s).
    #[arg(long)]
    pub omega_n: Option<f64>,
    /// Characteristic mass (kg) for the force directions.
    #[arg(long)]
    pub mass: Option<f64>,
    /// Characteristic inertia (kg·m²) for the torque directions.
    #[arg(long)]
    pub inertia: Option<f64>,
    /// Force stiffness (N/m), given directly.
    #[arg(long)]
    pub force_stiffness: Option<f64>,
    /// Torque stiffness (N·m/rad), given directly.
    #[arg(long)]
    pub torque_stiffness: Option<f64>,
    /// Maximum force (N), with --max-displacement.
    #[arg(long)]
    pub max_force: Option<f64>,
    /// Maximum displacement (m) under --max-force.
    #[arg(long)]
    pub max_displacement: Option<f64>,
    /// Maximum torque (N·m), with --max-angle.
    #[arg(long)]
    pub max_torque: Option<f64>,
    /// Maximum angle (rad) under --max-torque.
    #[arg(long)]
    pub max_angle: Option<f64>,
}

/// What a command line asks for.
#[derive(Debug)]
pub enum Invocation {
    /// A built-in subcommand.
    Command(Cli),
    /// An `x2y` conversion shortcut of the registry.
    Shortcut {
        /// Which formats it converts between.
        shortcut: Shortcut,
        /// Its arguments.
        args: ShortcutArgs,
        /// `--quiet`.
        quiet: bool,
        /// `--verbose`.
        verbose: bool,
    },
}

/// The parser: the built-in subcommands, and one `x2y` shortcut subcommand for every pair of
/// `registry`'s formats that register a short name ([`Registry::shortcuts`]), each taking
/// [`ShortcutArgs`].
///
/// ```
/// let command = mbconv_cli::cli::command(&mbconv::formats());
/// assert!(command.find_subcommand("json2body").is_some());
/// assert!(command.find_subcommand("convert").is_some());
/// ```
pub fn command(registry: &Registry) -> clap::Command {
    let about = format!(
        "Convert between {} through one neutral model.",
        format_names(registry)
    );
    let mut command = Cli::command().about(about);
    for shortcut in registry.shortcuts() {
        let about = format!(
            "Convert {} -> {} (shortcut; `mbconv formats` names the formats).",
            shortcut.from, shortcut.to
        );
        let subcommand = ShortcutArgs::augment_args(clap::Command::new(shortcut.name.clone()));
        // Listed in one line of the help (`AFTER_HELP`), not one by one.
        command = command.subcommand(subcommand.about(about).hide(true));
    }
    command
}

/// The registered formats by the short names their descriptions start with (the words before
/// a parenthesis), in the registry's order: what `mbconv --help` says it converts between.
///
/// ```
/// let names = mbconv_cli::cli::format_names(&mbconv::formats());
/// assert!(names.contains("MuJoCo MJCF") && names.contains("OpenUSD physics"));
/// ```
pub fn format_names(registry: &Registry) -> String {
    let names: Vec<&str> = registry
        .formats()
        .map(|f| f.info().description.split(" (").next().unwrap_or_default().trim())
        .collect();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => names.concat(),
    }
}

/// Parses a command line (the program name first) against [`command`]`(registry)`.
///
/// ```
/// use mbconv_cli::cli::{Command, Invocation, parse_from};
/// let registry = mbconv::formats();
/// let Ok(Invocation::Command(cli)) = parse_from(&registry, ["mbconv", "formats"]) else {
///     panic!("formats is a command")
/// };
/// assert!(matches!(cli.command, Command::Formats(_)));
/// assert!(parse_from(&registry, ["mbconv", "skel2nothing", "a.skel"]).is_err());
/// ```
pub fn parse_from<I, T>(registry: &Registry, args: I) -> Result<Invocation, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let mut command = command(registry);
    let matches = command.try_get_matches_from_mut(args)?;
    if let Some((name, sub)) = matches.subcommand()
        && let Some(shortcut) = registry.shortcuts().into_iter().find(|s| s.name == name)
    {
        let args = ShortcutArgs::from_arg_matches(sub).map_err(|e| e.format(&mut command))?;
        return Ok(Invocation::Shortcut {
            shortcut,
            args,
            quiet: matches.get_flag("quiet"),
            verbose: matches.get_flag("verbose"),
        });
    }
    Cli::from_arg_matches(&matches)
        .map(Invocation::Command)
        .map_err(|e| e.format(&mut command))
}

/// A command-line number that must be positive and finite (a time, a step, a tolerance): a
/// zero step or a negative tolerance is refused before any work, with the value named.
fn positive_number(text: &str) -> Result<f64, String> {
    let value: f64 = text.parse().map_err(|e| format!("{e}: {text:?}"))?;
    if value > 0.0 && value.is_finite() {
        Ok(value)
    } else {
        Err(format!("expected a positive, finite number, got {text}"))
    }
}
