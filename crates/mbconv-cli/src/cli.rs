//! Command-line arguments.

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

const EXAMPLES: &str = "\
Examples:
  mbconv convert robot.skel -o robot.yaml        convert by file extension
  mbconv skel2yaml robot.skel                    shortcut: writes robot.yaml beside the input
  mbconv body2json arm.body -o - --strict        to stdout; fail if anything would be lost
  mbconv info model.mbir.json --json             bodies, joints, dof and loops as JSON
  mbconv validate model.yaml                     check a model, exit 2 if invalid
  mbconv formats                                 what this build reads and writes

Exit codes: 0 ok, 1 a check failed (--strict), 2 bad input or usage.";

/// Convert multibody models between Chrono YAML, DART SKEL, Choreonoid Body and Shift JSON
/// through one neutral model, and report everything a conversion cannot carry.
#[derive(Debug, Parser)]
#[command(name = "mbconv", version, about, after_help = EXAMPLES)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
    /// Print only errors.
    #[arg(short, long, global = true)]
    pub quiet: bool,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Convert a model from one format to another.
    Convert(ConvertArgs),
    /// DART SKEL -> Chrono YAML.
    #[command(name = "skel2yaml")]
    Skel2Yaml(ShortcutArgs),
    /// DART SKEL -> Choreonoid Body.
    #[command(name = "skel2body")]
    Skel2Body(ShortcutArgs),
    /// DART SKEL -> Shift JSON.
    #[command(name = "skel2json")]
    Skel2Json(ShortcutArgs),
    /// Chrono YAML -> DART SKEL.
    #[command(name = "yaml2skel")]
    Yaml2Skel(ShortcutArgs),
    /// Chrono YAML -> Choreonoid Body.
    #[command(name = "yaml2body")]
    Yaml2Body(ShortcutArgs),
    /// Chrono YAML -> Shift JSON.
    #[command(name = "yaml2json")]
    Yaml2Json(ShortcutArgs),
    /// Choreonoid Body -> DART SKEL.
    #[command(name = "body2skel")]
    Body2Skel(ShortcutArgs),
    /// Choreonoid Body -> Chrono YAML.
    #[command(name = "body2yaml")]
    Body2Yaml(ShortcutArgs),
    /// Choreonoid Body -> Shift JSON.
    #[command(name = "body2json")]
    Body2Json(ShortcutArgs),
    /// Shift JSON -> DART SKEL.
    #[command(name = "json2skel")]
    Json2Skel(ShortcutArgs),
    /// Shift JSON -> Chrono YAML.
    #[command(name = "json2yaml")]
    Json2Yaml(ShortcutArgs),
    /// Shift JSON -> Choreonoid Body.
    #[command(name = "json2body")]
    Json2Body(ShortcutArgs),
    /// Summarise a model: bodies, joints, degrees of freedom, loops.
    Info(InspectArgs),
    /// Check a model against the rules of the IR; exit 2 if it is invalid.
    Validate(InspectArgs),
    /// List the formats this build reads and writes.
    Formats,
}

impl Command {
    /// The `(from, to)` short names of a shortcut command.
    pub fn shortcut(&self) -> Option<(&'static str, &'static str, &ShortcutArgs)> {
        use Command::*;
        Some(match self {
            Skel2Yaml(a) => ("skel", "yaml", a),
            Skel2Body(a) => ("skel", "body", a),
            Skel2Json(a) => ("skel", "json", a),
            Yaml2Skel(a) => ("yaml", "skel", a),
            Yaml2Body(a) => ("yaml", "body", a),
            Yaml2Json(a) => ("yaml", "json", a),
            Body2Skel(a) => ("body", "skel", a),
            Body2Yaml(a) => ("body", "yaml", a),
            Body2Json(a) => ("body", "json", a),
            Json2Skel(a) => ("json", "skel", a),
            Json2Yaml(a) => ("json", "yaml", a),
            Json2Body(a) => ("json", "body", a),
            _ => return None,
        })
    }
}

/// Arguments of `convert`.
#[derive(Debug, Args)]
pub struct ConvertArgs {
    /// Input model (`-` for standard input).
    pub input: PathBuf,
    /// Output file (`-` for standard output). Default: the input's name with the target
    /// format's extension, beside the input.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
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
    /// Fail (exit 1, nothing written) if the conversion drops or approximates anything.
    #[arg(long)]
    pub strict: bool,
    /// A reader setting, `KEY=VALUE` (repeatable); see `docs/formats/`.
    #[arg(long = "read-option", value_name = "KEY=VALUE")]
    pub read_options: Vec<String>,
    /// A writer setting, `KEY=VALUE` (repeatable); see `docs/formats/`.
    #[arg(long = "write-option", value_name = "KEY=VALUE")]
    pub write_options: Vec<String>,
    /// Chrono: simulation file to take gravity and time step from.
    #[arg(long, value_name = "FILE")]
    pub chrono_sim: Option<PathBuf>,
    /// Chrono: also write a simulation file with this name beside the model.
    #[arg(long, value_name = "FILE")]
    pub chrono_sim_out: Option<String>,
}

/// Arguments of `info` and `validate`.
#[derive(Debug, Args)]
pub struct InspectArgs {
    /// The model (`-` for standard input).
    pub model: PathBuf,
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
