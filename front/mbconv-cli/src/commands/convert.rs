//! `mbconv convert` (one file, or a batch) and the `x2y` shortcuts: arguments in, the
//! facade's pipeline ([`mbconv::Pipeline::convert`]) in between, messages out.

use crate::cli::ConversionFlags;
use crate::failure::Failure;
use crate::render::{Log, Printer, Tally, Verbosity, reading_findings};
use mbconv::batch::Batch;
use mbconv::files::{Input, Output, default_output, ensure_new, ensure_not_input};
use mbconv::ir::Report;
use mbconv::{Format, Pipeline, Settings, Step};
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
pub struct Summary {
    /// The import or export reported a loss.
    pub losses: bool,
    /// The input and output formats.
    pub formats: (&'static str, &'static str),
    /// Every finding of the reading, validation and writing, each naming its file.
    pub report: Report,
    /// The check of the conversion (`None` with `--no-check`, or with nothing to check).
    pub check: Option<Box<mbconv::checker::TargetCheck>>,
    /// The failure the check's verdict ends the command with (`unexplained`: exit 1,
    /// `failed`: exit 3), the file written anyway.
    pub proof: Option<String>,
}

/// Converts one file; messages go to standard error as they come (with `--json`, the report
/// goes to standard output as one JSON object once the file is written).
pub fn convert(pipeline: &Pipeline, request: &Request) -> Result<(), Failure> {
    let output = request.output.map(Output::from_arg);
    let out_format = pipeline.target(request.to, output.as_ref().unwrap_or(&Output::Stdout))?;
    if request.flags.json && output == Some(Output::Stdout) {
        return Err(Failure::bad_input(miette::miette!(
            "--json prints the report on standard output: write the model to a file with -o FILE"
        )));
    }
    let write_options = write_options(pipeline, out_format, request.flags)?;
    let converted = convert_one(pipeline, request, out_format, &write_options, &mut Log::direct())?;
    let failure = proof_failure(&converted);
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
    failure.map_or(Ok(()), Err)
}

/// The failure a converted file's verdict ends the command with, if any.
fn proof_failure(converted: &Summary) -> Option<Failure> {
    let target = converted.check.as_ref()?;
    let message = converted.proof.as_ref()?;
    Some(match target.verdict {
        mbconv::checker::Verdict::Failed => Failure::proof_failed(message.clone()),
        _ => Failure::check_failed(message.clone()),
    })
}

/// The JSON of one conversion: its files, formats, outcome and whole report (or the reason it
/// failed).
fn json_entry(input: &Path, output: &Path, result: Result<&Summary, String>) -> serde_json::Value {
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
            entry["verdict"] = converted
                .check
                .as_ref()
                .map_or(serde_json::Value::Null, |c| c.verdict.name().into());
            entry["check"] = serde_json::to_value(&converted.check).unwrap_or_default();
            entry["report"] = serde_json::to_value(&converted.report).unwrap_or_default();
        }
        Err(message) => {
            entry["status"] = "failed".into();
            entry["error"] = message.into();
        }
    }
    entry
}

/// The write settings, refused (exit 2) when unknown or ill-typed, before anything is read.
fn write_options(
    pipeline: &Pipeline,
    out_format: &dyn Format,
    flags: &ConversionFlags,
) -> Result<Settings, Failure> {
    let mut write_options = super::settings(&flags.write_options)?;
    if let Some(up) = flags.up {
        write_options.set(mbconv::ir::format::settings::UP.name, up.letter());
    }
    if let Some(assets) = flags.assets {
        write_options.set(mbconv::ir::format::settings::ASSETS.name, assets.word());
    }
    pipeline.check_write_settings(out_format, &write_options)?;
    Ok(write_options)
}

/// Converts one file, writing its messages to `log`.
fn convert_one(
    pipeline: &Pipeline,
    request: &Request,
    out_format: &dyn Format,
    write_options: &Settings,
    log: &mut Log,
) -> Result<Summary, Failure> {
    let flags = request.flags;
    let input = Input::from_arg(request.input);
    let output = request
        .output
        .map_or_else(|| Output::for_input(&input, out_format), Output::from_arg);
    // Refuse at once, before any reading.
    ensure_not_input(&input, &output)?;
    ensure_new(&output, flags.force)?;
    if let Some(page) = &flags.view {
        ensure_not_input(&input, &Output::from_arg(page))?;
        super::view::can_write_page(page, flags.force)?;
    }
    let options = mbconv::Options {
        from: request.from.map(str::to_owned),
        to: Some(out_format.info().name.to_owned()),
        read: super::settings(&flags.read_options)?,
        write: write_options.clone(),
        force: flags.force,
        strict: flags.strict,
        accept_ir: request.ir_input_accepted,
    };
    // With --json the findings go into the JSON object, not to standard error.
    let verbosity = if flags.json {
        Verbosity::Quiet
    } else {
        request.verbosity
    };
    // One budget of lines for the reading's and the writing's findings.
    let mut printer = Printer::new(verbosity);
    let converted = pipeline.convert(&input, &output, &options, &mut |step| match step {
        Step::Read { loaded, refused } => log.write(&reading_findings(loaded, refused, &mut printer)),
        Step::Emitted(emitted) => log.write(&printer.report(&emitted.report)),
    })?;
    let formats = (converted.loaded.format.info().name, converted.target.info().name);
    if !verbosity.is_quiet() {
        let mut tally = Tally::default();
        tally.add(&converted.report);
        tally.held = printer.held();
        // Written to standard output, the model has no `wrote` line: the counts get their own.
        let what = match output.path() {
            Some(_) => format!("wrote {output}"),
            None => "converted".to_owned(),
        };
        if output.path().is_some() || tally.held > 0 {
            log.line(format!(
                "{what} ({} -> {}): {}",
                formats.0,
                formats.1,
                tally.describe(verbosity)
            ));
        }
    }
    if let Some(path) = &flags.view {
        let page = pipeline.conversion_page(&converted);
        super::view::write_page(&page, path, flags.force, verbosity)?;
    }
    let check = if flags.no_check {
        None
    } else {
        super::check::after_convert(pipeline, &converted, flags.check, !flags.json, log).map(Box::new)
    };
    let proof = check.as_ref().and_then(|target| {
        super::check::conversion_failure(
            target,
            &converted.loaded.source.name,
            &converted.output.to_string(),
            converted.target.info().name,
        )
    });
    Ok(Summary {
        losses: converted.losses,
        formats,
        report: converted.report.clone(),
        check,
        proof,
    })
}

/// True when `convert`'s arguments ask for a batch: several inputs, a directory input, or an
/// output that is a directory (or ends with `/`).
pub fn is_batch(inputs: &[PathBuf], output: Option<&Path>) -> bool {
    let to_directory = output.is_some_and(|o| {
        Output::from_arg(o) != Output::Stdout
            && (o.is_dir() || o.as_os_str().to_string_lossy().ends_with(['/', '\\']))
    });
    inputs.len() > 1 || inputs.iter().any(|p| p.is_dir()) || to_directory
}

/// How one file of a batch went.
enum Outcome {
    Converted(Summary),
    /// Why it failed.
    Failed(String),
}

/// `mbconv convert IN... --to F -o DIR`: converts every input (every model of a directory
/// input) in parallel, prints each file's messages in input order and a summary line; exit 1
/// when any file failed. One bad file never stops the others.
pub fn batch(
    pipeline: &Pipeline,
    inputs: &[PathBuf],
    args: &crate::cli::ConvertArgs,
    verbosity: Verbosity,
) -> Result<(), Failure> {
    if args.flags.view.is_some() {
        return Err(Failure::bad_input(miette::miette!(
            "--view writes the page of one conversion: give one input file (or run `mbconv view` on each)"
        )));
    }
    let Some(out_dir) = args
        .output
        .as_deref()
        .filter(|o| Output::from_arg(o) != Output::Stdout)
    else {
        return Err(Failure::bad_input(miette::miette!(
            "a batch (several inputs or a directory) needs an output directory: -o DIR"
        )));
    };
    let Some(to) = args.to.as_deref() else {
        return Err(Failure::bad_input(miette::miette!(
            "a batch needs the target format: --to FORMAT"
        )));
    };
    if out_dir.exists() && !out_dir.is_dir() {
        return Err(Failure::bad_input(miette::miette!(
            "the batch output {} is not a directory",
            out_dir.display()
        )));
    }
    let out_format = pipeline.registry().get(to)?;
    let write_options = write_options(pipeline, out_format, &args.flags)?;
    let batch = Batch::plan(pipeline, inputs, out_dir, out_format, args.recursive)
        .map_err(|e| Failure::bad_input(miette::miette!("{e}")))?;

    let bar = progress_bar(batch.jobs.len() as u64, verbosity.is_quiet());
    let results: Vec<(Outcome, String)> = batch.run(
        |job| {
            let mut log = Log::buffered();
            let result = job
                .prepare()
                .map_err(|e| Failure::bad_input(miette::miette!("{e}")))
                .and_then(|()| {
                    let request = Request {
                        input: &job.input,
                        output: Some(&job.output),
                        from: args.from.as_deref(),
                        to: Some(to),
                        flags: &args.flags,
                        ir_input_accepted: false,
                        verbosity,
                    };
                    convert_one(pipeline, &request, out_format, &write_options, &mut log)
                });
            let outcome = match result {
                Ok(converted) => {
                    if let Some(message) = &converted.proof {
                        log.line(message.clone());
                    }
                    Outcome::Converted(converted)
                }
                Err(failure) => {
                    let message = failure.message();
                    log.write(&message);
                    log.line(format!("{}: failed", job.input.display()));
                    Outcome::Failed(message.trim_end().to_owned())
                }
            };
            (outcome, log.take())
        },
        &|_, _, result| {
            bar.inc(1);
            result
        },
    );
    bar.finish_and_clear();

    let (mut converted, mut with_losses, mut failed) = (0, 0, 0);
    let (mut unexplained, mut unproven) = (0, 0);
    let mut entries = Vec::new();
    for ((outcome, messages), job) in results.iter().zip(&batch.jobs) {
        eprint!("{messages}");
        match outcome {
            Outcome::Converted(c) => {
                converted += 1;
                with_losses += usize::from(c.losses);
                match c.check.as_ref().map(|t| t.verdict) {
                    Some(mbconv::checker::Verdict::Unexplained) => unexplained += 1,
                    Some(mbconv::checker::Verdict::Failed) => unproven += 1,
                    _ => {}
                }
            }
            Outcome::Failed(_) => failed += 1,
        }
        if args.flags.json {
            let result = match outcome {
                Outcome::Converted(c) => Ok(c),
                Outcome::Failed(message) => Err(message.clone()),
            };
            entries.push(json_entry(&job.input, &job.output, result));
        }
    }
    let mut verdicts = String::new();
    if unexplained > 0 {
        verdicts.push_str(&format!(", {unexplained} unexplained"));
    }
    if unproven > 0 {
        verdicts.push_str(&format!(", {unproven} whose proof failed"));
    }
    let summary = format!(
        "batch: {} files: {converted} converted ({with_losses} with losses{verdicts}), {failed} failed; output in {}",
        results.len(),
        out_dir.display()
    );
    if args.flags.json {
        let value = serde_json::json!({
            "files": entries,
            "converted": converted,
            "with_losses": with_losses,
            "failed": failed,
            "unexplained": unexplained,
            "proof_failed": unproven,
            "output": out_dir.display().to_string(),
        });
        println!(
            "{}",
            serde_json::to_string_pretty(&value).map_err(anyhow::Error::from)?
        );
    } else {
        eprintln!("{summary}");
    }
    if failed + unexplained > 0 {
        let what = if unexplained == 0 {
            "failed"
        } else {
            "failed or were converted with an unexplained difference"
        };
        return Err(Failure::check_failed(format!(
            "{} of {} files {what}",
            failed + unexplained,
            results.len()
        )));
    }
    if unproven > 0 {
        return Err(Failure::proof_failed(format!(
            "the proof of {unproven} of {} conversions could not be completed",
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
