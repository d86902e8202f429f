//! `mbconv convert` (one file, or a batch) and the `x2y` shortcuts.

use crate::cli::ConversionFlags;
use crate::failure::Failure;
use crate::io::{
    default_output, diagnostic_failure, ensure_new, ensure_not_input, is_stdio, load, parse_options,
    write_atomic,
};
use crate::render::{Log, Tally, Verbosity, format_report};
use mbconv::ir::Report;
use mbconv::ir::format::{Format, Options, Registry};
use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

/// One conversion request.
pub struct Request<'a> {
    pub input: &'a Path,
    pub output: Option<&'a Path>,
    pub from: Option<&'a str>,
    pub to: Option<&'a str>,
    pub flags: &'a ConversionFlags,
    /// Shortcuts also accept IR JSON in place of their input format.
    pub ir_input_accepted: bool,
    /// How much to print (`--json` prints nothing but failures on standard error).
    pub verbosity: Verbosity,
}

/// What a conversion that wrote its file found.
#[derive(Clone, Debug, PartialEq)]
pub struct Converted {
    /// The import or export reported a loss.
    pub losses: bool,
    /// The input and output formats.
    pub formats: (&'static str, &'static str),
    /// Every finding of the reading, validation and writing, each naming its file.
    pub report: Report,
}

/// Reads, validates, writes and reports; messages go to standard error as they come (with
/// `--json`, the report goes to standard output as one JSON object once the file is written).
pub fn convert(registry: &Registry, request: &Request) -> Result<(), Failure> {
    let out_format = target_format(registry, request.to, request.output)?;
    if request.flags.json && request.output.is_some_and(is_stdio) {
        return Err(Failure::bad_input(miette::miette!(
            "--json prints the report on standard output: write the model to a file with -o FILE"
        )));
    }
    let write_options = write_options(registry, out_format, request.flags)?;
    let converted = convert_one(registry, request, out_format, &write_options, &mut Log::direct())?;
    if request.flags.json {
        let output = match request.output {
            Some(out) => out.to_path_buf(),
            None => default_output(request.input, out_format),
        };
        let value = json_entry(request.input, &output, Ok(&converted));
        println!(
            "{}",
            serde_json::to_string_pretty(&value).map_err(anyhow::Error::from)?
        );
    }
    Ok(())
}

/// The JSON of one conversion: its files, formats, outcome and whole report (or the reason it
/// failed).
fn json_entry(input: &Path, output: &Path, result: Result<&Converted, String>) -> serde_json::Value {
    let mut entry = serde_json::json!({
        "input": input.display().to_string(),
        "output": output.display().to_string(),
    });
    match result {
        Ok(converted) => {
            entry["status"] = "converted".into();
            entry["from"] = converted.formats.0.into();
            entry["to"] = converted.formats.1.into();
            entry["losses"] = converted.losses.into();
            entry["report"] = serde_json::to_value(&converted.report).unwrap_or_default();
        }
        Err(message) => {
            entry["status"] = "failed".into();
            entry["error"] = message.into();
        }
    }
    entry
}

/// The target format: `to`, else by the output file's extension.
fn target_format<'r>(
    registry: &'r Registry,
    to: Option<&str>,
    output: Option<&Path>,
) -> Result<&'r dyn Format, Failure> {
    match (to, output) {
        (Some(name), _) => Ok(registry.get(name)?),
        (None, Some(out)) if !is_stdio(out) => Ok(registry.detect_output(out)?),
        (None, _) => Err(Failure::bad_input(miette::miette!(
            "cannot tell the output format: pass --to FORMAT or an output file name with -o"
        ))),
    }
}

/// The write settings, refused (exit 2) when unknown or ill-typed, before anything is read.
fn write_options(
    registry: &Registry,
    out_format: &dyn Format,
    flags: &ConversionFlags,
) -> Result<Options, Failure> {
    let mut write_options = parse_options(&flags.write_options)?;
    if let Some(sim_out) = &flags.chrono_sim_out {
        write_options.set("sim-out", sim_out.clone());
    }
    if let Some(up) = flags.up {
        write_options.set(mbconv::ir::format::settings::UP.name, up.letter());
    }
    registry
        .check_write_options(out_format, &write_options)
        .map_err(|e| Failure::bad_input(miette::Report::new(e)))?;
    Ok(write_options)
}

/// Converts one file, writing its messages to `log`.
fn convert_one(
    registry: &Registry,
    request: &Request,
    out_format: &dyn Format,
    write_options: &Options,
    log: &mut Log,
) -> Result<Converted, Failure> {
    let mut write_options = write_options.clone();
    let output = match request.output {
        Some(out) => out.to_path_buf(),
        None if is_stdio(request.input) => "-".into(),
        None => default_output(request.input, out_format),
    };
    ensure_not_input(request.input, &output)?;
    ensure_new(&output, request.flags.force)?;
    if let Some(page) = &request.flags.view {
        ensure_not_input(request.input, page)?;
        super::view::can_write_page(page, request.flags.force)?;
    }
    let mut read_options = parse_options(&request.flags.read_options)?;
    if let Some(sim) = &request.flags.chrono_sim {
        read_options.set("sim", sim.display().to_string());
    }
    let loaded = load(
        registry,
        request.input,
        request.from,
        &read_options,
        request.ir_input_accepted,
    )?;
    // With --json the findings go into the JSON object, not to standard error.
    let verbosity = if request.flags.json {
        Verbosity::Quiet
    } else {
        request.verbosity
    };
    let mut findings = String::new();
    let admitted = loaded.admit_into(request.flags.strict, verbosity, &mut findings);
    log.write(&findings);
    admitted?;
    let (in_format, imported) = (loaded.format, &loaded.imported);
    let import_report = loaded.import_report();

    write_options.output_path = (!is_stdio(&output)).then(|| output.clone());
    let exported = registry
        .write(out_format, &imported.model, &write_options)
        .map_err(diagnostic_failure)?;
    let mut export_report = exported.report.clone();
    export_report.file = Some(output.display().to_string());

    log.write(&format_report(&export_report, verbosity));
    let losses = import_report.has_loss() || export_report.has_loss();
    if request.flags.strict && losses {
        let losses = import_report
            .findings
            .iter()
            .chain(&export_report.findings)
            .filter(|f| f.category.is_loss())
            .count();
        return Err(Failure::check_failed(format!(
            "--strict: the conversion would lose or approximate {losses} item(s); nothing written"
        )));
    }

    let companion_dir = output.parent().map(Path::to_path_buf).unwrap_or_default();
    let companions: Vec<(PathBuf, &str)> = exported
        .companions
        .iter()
        .map(|c| (companion_dir.join(&c.file_name), c.text.as_str()))
        .collect();
    // Refuse before writing anything, so that a refusal leaves no file of the set behind.
    for (path, _) in &companions {
        ensure_not_input(request.input, path)?;
        ensure_new(path, request.flags.force)?;
    }
    for (path, text) in &companions {
        write_atomic(path, text, request.flags.force)?;
    }
    write_atomic(&output, &exported.text, request.flags.force)?;
    let mut report = import_report;
    report.pin_file();
    let mut validation = loaded.validation.clone();
    validation.pin_file();
    report.extend(validation);
    export_report.pin_file();
    report.extend(export_report);
    report.file = None;
    if !verbosity.is_quiet() && !is_stdio(&output) {
        let mut tally = Tally::default();
        tally.add(&report);
        log.line(format!(
            "wrote {} ({} -> {}): {}",
            output.display(),
            in_format.info().name,
            out_format.info().name,
            tally.describe(verbosity)
        ));
    }
    let converted = Converted {
        losses,
        formats: (in_format.info().name, out_format.info().name),
        report,
    };
    if let Some(path) = &request.flags.view {
        let mut page = super::view::page_of(&loaded, request.input);
        page.settings.to_file = !is_stdio(&output);
        page.settings
            .write_options
            .insert(out_format.info().name.to_owned(), write_options.clone());
        page.conversions.push(mbconv::viewer::via(
            &imported.model,
            registry,
            out_format,
            &page.settings,
            None,
            mbconv::viewer::FRAME_RATE,
        ));
        page.conversions[0].label = format!("{} -> {}", in_format.info().name, output.display());
        super::view::write_page(&page, path, request.flags.force, verbosity)?;
    }
    if request.flags.no_check {
        return Ok(converted);
    }
    super::check::after_convert(
        registry,
        &super::check::AfterConvert {
            model: &imported.model,
            name: &loaded.source.name,
            format: out_format,
            write_options: &write_options,
            forced: request.flags.check,
            verbosity,
            to_file: !is_stdio(&output),
        },
        &output.display().to_string(),
        log,
    )?;
    Ok(converted)
}

/// A batch: the inputs, each with its output path under the output directory.
struct Batch {
    /// `(input, output)` in a stable order (the order of the arguments, directories sorted).
    jobs: Vec<(PathBuf, PathBuf)>,
}

/// True when `convert`'s arguments ask for a batch: several inputs, a directory input, or an
/// output that is a directory (or ends with `/`).
pub fn is_batch(inputs: &[PathBuf], output: Option<&Path>) -> bool {
    let to_directory = output.is_some_and(|o| {
        !is_stdio(o) && (o.is_dir() || o.as_os_str().to_string_lossy().ends_with(['/', '\\']))
    });
    inputs.len() > 1 || inputs.iter().any(|p| p.is_dir()) || to_directory
}

/// The files of a directory that a format of `registry` reads by extension, sorted, with their
/// paths relative to `dir`. With `recursive`, sub-directories too.
fn models_in(registry: &Registry, dir: &Path, recursive: bool) -> Result<Vec<PathBuf>, Failure> {
    let mut found = Vec::new();
    let mut pending = vec![PathBuf::new()];
    while let Some(relative) = pending.pop() {
        let here = dir.join(&relative);
        let entries = std::fs::read_dir(&here).map_err(|e| {
            Failure::bad_input(miette::miette!(
                "cannot read the directory {}: {e}",
                here.display()
            ))
        })?;
        for entry in entries.flatten() {
            let name = relative.join(entry.file_name());
            let path = dir.join(&name);
            if path.is_dir() {
                if recursive {
                    pending.push(name);
                }
            } else if registry.formats().any(|f| f.info().matches_extension(&path)) {
                found.push(name);
            }
        }
    }
    found.sort();
    Ok(found)
}

/// The output name of `relative` (an input path relative to where it was found): its stem with
/// the target's extension, in the same relative directory under `out_dir`.
fn batch_output(out_dir: &Path, relative: &Path, format: &dyn Format) -> PathBuf {
    let beside = default_output(relative, format);
    out_dir.join(beside)
}

impl Batch {
    fn plan(
        registry: &Registry,
        inputs: &[PathBuf],
        out_dir: &Path,
        format: &dyn Format,
        recursive: bool,
    ) -> Result<Self, Failure> {
        let mut jobs = Vec::new();
        for input in inputs {
            if is_stdio(input) {
                return Err(Failure::bad_input(miette::miette!(
                    "standard input (`-`) cannot be part of a batch"
                )));
            }
            if input.is_dir() {
                let models = models_in(registry, input, recursive)?;
                if models.is_empty() {
                    // A directory where a model file was meant, or one with nothing to convert:
                    // either way the request cannot be carried out.
                    return Err(Failure::bad_input(miette::miette!(
                        "{} is a directory with no model file that a format of this build reads{}",
                        input.display(),
                        if recursive {
                            ""
                        } else {
                            " (--recursive descends into sub-directories)"
                        }
                    )));
                }
                for relative in models {
                    let output = batch_output(out_dir, &relative, format);
                    jobs.push((input.join(relative), output));
                }
            } else {
                let name = input.file_name().map(PathBuf::from).unwrap_or_default();
                jobs.push((input.clone(), batch_output(out_dir, &name, format)));
            }
        }
        Ok(Self { jobs })
    }
}

/// How one file of a batch went.
enum Outcome {
    Converted(Converted),
    /// Why it failed.
    Failed(String),
}

/// `mbconv convert IN... --to F -o DIR`: converts every input (every model of a directory
/// input) in parallel, prints each file's messages in input order and a summary line; exit 1
/// when any file failed. One bad file never stops the others.
pub fn batch(
    registry: &Registry,
    inputs: &[PathBuf],
    args: &crate::cli::ConvertArgs,
    verbosity: Verbosity,
) -> Result<(), Failure> {
    use rayon::prelude::*;
    if args.flags.view.is_some() {
        return Err(Failure::bad_input(miette::miette!(
            "--view writes the page of one conversion: give one input file (or run `mbconv view` on each)"
        )));
    }
    let Some(out_dir) = args.output.as_deref().filter(|o| !is_stdio(o)) else {
        return Err(Failure::bad_input(miette::miette!(
            "a batch (several inputs or a directory) needs an output directory: -o DIR"
        )));
    };
    let Some(to) = args.to.as_deref() else {
        return Err(Failure::bad_input(miette::miette!(
            "a batch needs the target format: --to FORMAT"
        )));
    };
    if args.flags.chrono_sim_out.is_some() {
        return Err(Failure::bad_input(miette::miette!(
            "--chrono-sim-out names one file and cannot be used in a batch"
        )));
    }
    if out_dir.exists() && !out_dir.is_dir() {
        return Err(Failure::bad_input(miette::miette!(
            "the batch output {} is not a directory",
            out_dir.display()
        )));
    }
    let out_format = registry.get(to)?;
    let write_options = write_options(registry, out_format, &args.flags)?;
    let batch = Batch::plan(registry, inputs, out_dir, out_format, args.recursive)?;
    // Two inputs with the same stem would write the same file: the later ones fail.
    let mut first_for: BTreeMap<&Path, &Path> = BTreeMap::new();
    let clashes: Vec<Option<&Path>> = batch
        .jobs
        .iter()
        .map(|(input, output)| match first_for.get(output.as_path()) {
            Some(first) => Some(*first),
            None => {
                first_for.insert(output, input);
                None
            }
        })
        .collect();

    let bar = progress_bar(batch.jobs.len() as u64, verbosity.is_quiet());
    let results: Vec<(Outcome, String)> = batch
        .jobs
        .par_iter()
        .zip(clashes.par_iter())
        .map(|((input, output), clash)| {
            let mut log = Log::buffered();
            let result = match clash {
                Some(first) => Err(Failure::bad_input(miette::miette!(
                    "{} would be written to {} as {} is: rename one",
                    input.display(),
                    output.display(),
                    first.display()
                ))),
                None => output
                    .parent()
                    .map_or(Ok(()), std::fs::create_dir_all)
                    .map_err(|e| {
                        Failure::bad_input(miette::miette!(
                            "cannot create the directory of {}: {e}",
                            output.display()
                        ))
                    })
                    .and_then(|()| {
                        let request = Request {
                            input,
                            output: Some(output),
                            from: args.from.as_deref(),
                            to: Some(to),
                            flags: &args.flags,
                            ir_input_accepted: false,
                            verbosity,
                        };
                        convert_one(registry, &request, out_format, &write_options, &mut log)
                    }),
            };
            let outcome = match result {
                Ok(converted) => Outcome::Converted(converted),
                Err(failure) => {
                    let message = failure.message();
                    log.write(&message);
                    log.line(format!("{}: failed", input.display()));
                    Outcome::Failed(message.trim_end().to_owned())
                }
            };
            bar.inc(1);
            (outcome, log.take())
        })
        .collect();
    bar.finish_and_clear();

    let (mut converted, mut with_losses, mut failed) = (0, 0, 0);
    let mut entries = Vec::new();
    for ((outcome, messages), (input, output)) in results.iter().zip(&batch.jobs) {
        eprint!("{messages}");
        match outcome {
            Outcome::Converted(c) => {
                converted += 1;
                with_losses += usize::from(c.losses);
            }
            Outcome::Failed(_) => failed += 1,
        }
        if args.flags.json {
            let result = match outcome {
                Outcome::Converted(c) => Ok(c),
                Outcome::Failed(message) => Err(message.clone()),
            };
            entries.push(json_entry(input, output, result));
        }
    }
    let summary = format!(
        "batch: {} files: {converted} converted ({with_losses} with losses), {failed} failed; output in {}",
        results.len(),
        out_dir.display()
    );
    if args.flags.json {
        let value = serde_json::json!({
            "files": entries,
            "converted": converted,
            "with_losses": with_losses,
            "failed": failed,
            "output": out_dir.display().to_string(),
        });
        println!(
            "{}",
            serde_json::to_string_pretty(&value).map_err(anyhow::Error::from)?
        );
    } else {
        eprintln!("{summary}");
    }
    if failed > 0 {
        return Err(Failure::check_failed(format!(
            "{failed} of {} files failed",
            results.len()
        )));
    }
    Ok(())
}

/// A progress bar on standard error, hidden when it is not a terminal or with `--quiet`.
fn progress_bar(len: u64, quiet: bool) -> indicatif::ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(len);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} files  eta {eta}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    bar
}
