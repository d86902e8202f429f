//! `mbconv check` and the check `mbconv convert` runs on the conversion it performs.

use crate::cli::{CheckArgs, IntegratorName};
use crate::failure::Failure;
use crate::render::Verbosity;
use mbconv::checker::{CheckReport, CheckSettings, TargetCheck, Tolerances, Verdict};
use mbconv::files::{Output, ensure_new, write_atomic};
use mbconv::ir::format::Options;
use mbconv::pipeline::ConversionCheck;
use mbconv::solver::Integrator;
use mbconv::{Converted, Pipeline};

/// The solver's integrator for a command-line name.
pub fn integrator(name: IntegratorName) -> Integrator {
    match name {
        IntegratorName::SemiImplicitEuler => Integrator::SemiImplicitEuler,
        IntegratorName::Rk4 => Integrator::Rk4,
        IntegratorName::Dopri5 => Integrator::Dopri5 {
            rtol: mbconv::solver::DEFAULT_RTOL,
            atol: mbconv::solver::DEFAULT_ATOL,
        },
        IntegratorName::Rosenbrock => Integrator::Rosenbrock {
            rtol: mbconv::solver::DEFAULT_RTOL,
            atol: mbconv::solver::DEFAULT_ATOL,
        },
    }
}

/// Runs `mbconv check`.
pub fn check(pipeline: &Pipeline, args: &CheckArgs, verbosity: Verbosity) -> Result<(), Failure> {
    let settings = CheckSettings {
        duration: args.duration,
        dt: args.dt,
        integrator: args.integrator.map(integrator),
        tolerances: Tolerances {
            position: args.tol_pos,
            rotation: args.tol_rot,
        },
        ..CheckSettings::default()
    };
    if let Some(path) = &args.plot {
        ensure_new(&Output::from_arg(path), args.force)?;
    }
    if let Some(path) = &args.view {
        super::view::can_write_page(path, args.force)?;
    }
    let loaded = super::read(pipeline, &args.model, args.from.as_deref(), &args.read_options)?;
    let mut settings = settings;
    crate::render::admit(&loaded, args.strict, Verbosity::Quiet)?;
    let name = loaded.source.name.clone();
    let model = &loaded.imported.model;
    let mut page = args.view.as_ref().map(|_| loaded.page());
    let report = match &args.against {
        Some(other) => {
            let converted = super::read(pipeline, other, None, &[])?;
            crate::render::admit(&converted, args.strict, Verbosity::Quiet)?;
            let format = converted.format.info().name;
            if let Some(page) = &mut page {
                page.conversions.push(mbconv::viewer::against(
                    model,
                    &converted.source.name,
                    &converted.imported,
                    format,
                    &settings,
                    &[],
                    mbconv::viewer::FRAME_RATE,
                ));
            }
            mbconv::checker::check_against(model, &name, &converted.imported, format, &settings)
        }
        None => {
            let via: Vec<&str> = args.via.iter().map(|name| name.trim()).collect();
            let formats = pipeline.formats_named(&via)?;
            if let Some(up) = args.up {
                for format in &formats {
                    let mut options = Options::default();
                    options.set(mbconv::ir::format::settings::UP.name, up.letter());
                    settings
                        .write_options
                        .insert(format.info().name.to_owned(), options);
                }
            }
            let registry = pipeline.registry();
            let report = mbconv::checker::check(model, &name, registry, &formats, &settings);
            if let Some(page) = &mut page {
                for (format, target) in formats.iter().zip(&report.targets) {
                    page.conversions.push(mbconv::viewer::via(
                        model,
                        registry,
                        *format,
                        &settings,
                        Some(target),
                        mbconv::viewer::FRAME_RATE,
                    ));
                }
            }
            report
        }
    };
    if args.json {
        println!("{}", mbconv::checker::render_json(&report));
    } else if verbosity == Verbosity::Every {
        // -v: every note whole (every body pair that may touch, ...).
        print!("{}", mbconv::checker::render_table_full(&report));
    } else {
        print!("{}", mbconv::checker::render_table(&report));
    }
    if let Some(path) = &args.plot {
        let svg =
            mbconv::checker::plot_svg(&report).map_err(|e| Failure::bad_input(miette::Report::new(e)))?;
        write_atomic(&Output::from_arg(path), &svg, args.force)?;
        if !verbosity.is_quiet() {
            eprintln!("wrote {}", path.display());
        }
    }
    if let (Some(page), Some(path)) = (&mut page, &args.view) {
        page.settings = settings.clone();
        super::view::write_page(page, path, args.force, verbosity)?;
    }
    verdict_exit(&report)
}

fn verdict_exit(report: &CheckReport) -> Result<(), Failure> {
    let with = |verdict: Verdict| -> Vec<String> {
        report
            .targets
            .iter()
            .filter(|t| t.verdict == verdict)
            .map(|t| t.format.clone())
            .collect()
    };
    let (unexplained, failed) = (with(Verdict::Unexplained), with(Verdict::Failed));
    if !unexplained.is_empty() {
        let mut failing: Vec<String> = unexplained.iter().map(|f| format!("{f} (unexplained)")).collect();
        failing.extend(failed.iter().map(|f| format!("{f} (failed)")));
        Err(Failure::check_failed(format!(
            "check failed for {}: see the messages above",
            failing.join(", ")
        )))
    } else if !failed.is_empty() {
        Err(Failure::proof_failed(format!(
            "the proof could not be completed for {}: see the messages above",
            failed.join(", ")
        )))
    } else {
        Ok(())
    }
}

/// Checks the conversion `convert` just wrote ([`Pipeline::check_conversion`]; `forced`:
/// `--check`, which lifts the automatic check's work budget) and prints its one line unless
/// `print` is false (`--json`, which carries the verdict instead); `-q` prints it too, so that
/// a script sees the verdict. `None` when there was nothing to check.
pub fn after_convert(
    pipeline: &Pipeline,
    converted: &Converted,
    forced: bool,
    print: bool,
    log: &mut crate::render::Log,
) -> Option<TargetCheck> {
    let target = match pipeline.check_conversion(converted, forced) {
        ConversionCheck::Empty => return None,
        ConversionCheck::Checked(target) => *target,
    };
    if print {
        log.line(mbconv::checker::summary_line(&target));
    }
    Some(target)
}

/// Why a conversion's verdict fails the command, the file written anyway (`unexplained` and
/// `failed`; see [`crate::failure`] for their exit codes).
pub fn conversion_failure(target: &TargetCheck, input: &str, output: &str, format: &str) -> Option<String> {
    match target.verdict {
        Verdict::Unexplained => Some(format!(
            "{output} was written, but the check found a difference no reported loss explains (a writer or reader bug); run `mbconv check {input} --via {format}` for details"
        )),
        Verdict::Failed => Some(format!(
            "{output} was written, but its proof could not be completed; run `mbconv check {input} --via {format}` for details"
        )),
        _ => None,
    }
}
