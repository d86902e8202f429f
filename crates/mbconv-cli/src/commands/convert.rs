//! `mbconv convert` and the `x2y` shortcuts.

use crate::cli::ConversionFlags;
use crate::failure::Failure;
use crate::io::{
    default_output, diagnostic_failure, ensure_not_input, is_stdio, load, parse_options, write_atomic,
};
use crate::render::print_report;
use mbconv_ir::format::{Direction, Registry};
use std::path::Path;

/// One conversion request.
pub struct Request<'a> {
    pub input: &'a Path,
    pub output: Option<&'a Path>,
    pub from: Option<&'a str>,
    pub to: Option<&'a str>,
    pub flags: &'a ConversionFlags,
    /// Shortcuts also accept IR JSON in place of their input format.
    pub ir_input_accepted: bool,
    pub quiet: bool,
}

/// Reads, validates, writes and reports.
pub fn convert(registry: &Registry, request: &Request) -> Result<(), Failure> {
    // Resolve the target first so a missing writer is reported before any work.
    let out_format = match (request.to, request.output) {
        (Some(name), _) => registry.get(name)?,
        (None, Some(out)) if !is_stdio(out) => registry.detect_output(out)?,
        (None, _) => {
            return Err(Failure::bad_input(miette::miette!(
                "cannot tell the output format: pass --to FORMAT or an output file name with -o"
            )));
        }
    };
    // Refuse unknown or ill-typed write settings before reading anything.
    let mut write_options = parse_options(&request.flags.write_options)?;
    if let Some(sim_out) = &request.flags.chrono_sim_out {
        write_options.set("sim-out", sim_out.clone());
    }
    write_options
        .check(
            out_format.info().name,
            Direction::Write,
            out_format.write_settings(),
        )
        .map_err(|e| Failure::bad_input(miette::Report::new(e)))?;
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
    loaded.require_valid(request.quiet)?;
    let (in_format, imported) = (loaded.format, &loaded.imported);
    let import_report = loaded.import_report();

    let output = match request.output {
        Some(out) => out.to_path_buf(),
        None if is_stdio(request.input) => "-".into(),
        None => default_output(request.input, out_format),
    };
    ensure_not_input(request.input, &output)?;
    write_options.output_path = (!is_stdio(&output)).then(|| output.clone());
    let exported = registry
        .write(out_format, &imported.model, &write_options)
        .map_err(diagnostic_failure)?;
    let mut export_report = exported.report.clone();
    export_report.file = Some(output.display().to_string());

    print_report(&export_report, request.quiet);
    if request.flags.strict && (import_report.has_loss() || export_report.has_loss()) {
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
    for companion in &exported.companions {
        let path = companion_dir.join(&companion.file_name);
        ensure_not_input(request.input, &path)?;
        write_atomic(&path, &companion.text)?;
    }
    write_atomic(&output, &exported.text)?;
    if !request.quiet && !is_stdio(&output) {
        eprintln!(
            "wrote {} ({} -> {})",
            output.display(),
            in_format.info().name,
            out_format.info().name
        );
    }
    if request.flags.no_check {
        return Ok(());
    }
    super::check::after_convert(
        registry,
        &super::check::AfterConvert {
            model: &imported.model,
            name: &loaded.source.name,
            format: out_format,
            write_options: &write_options,
            forced: request.flags.check,
            quiet: request.quiet,
            to_file: !is_stdio(&output),
        },
        &output.display().to_string(),
    )
}
