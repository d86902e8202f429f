//! `mbconv check` and the check `mbconv convert` runs on the conversion it performs.

use crate::cli::{CheckArgs, IntegratorName};
use crate::failure::Failure;
use crate::io::{load, parse_options, write_atomic};
use crate::render::Verbosity;
use mbconv::checker::{CheckReport, CheckSettings, Tolerances, Verdict};
use mbconv::ir::Model;
use mbconv::ir::format::{Format, Options, Registry};
use mbconv::solver::Integrator;

/// Largest model `convert` checks without `--check`, in body-steps: simulation steps times
/// the model's size, where each body counts 1 and each closed loop, constraint and motor
/// counts [`CONSTRAINT_WEIGHT`] (they cost the solver an assembly and projection each step).
/// At this size a check costs under a second (see `docs/check.md` for the measurements).
pub const AUTO_CHECK_BODY_STEPS: usize = 100_000;

/// How many bodies a closed loop, constraint or motor costs like.
pub const CONSTRAINT_WEIGHT: usize = 10;

/// The size of `model` in body-steps for a check with `settings` (see
/// [`AUTO_CHECK_BODY_STEPS`]).
pub fn body_steps(model: &Model, settings: &CheckSettings) -> usize {
    let simulation = settings.simulation(model);
    let steps = (simulation.duration / simulation.dt).round().max(1.0);
    let steps = if steps.is_finite() && steps < 1e12 {
        steps as usize
    } else {
        usize::MAX
    };
    let loops = mbconv::ir::ModelSummary::new(model).loop_count;
    let size = model.bodies.len().max(1)
        + CONSTRAINT_WEIGHT * (loops + model.constraints.len() + model.motors.len());
    steps.saturating_mul(size)
}

/// The solver's integrator for a command-line name.
pub fn integrator(name: IntegratorName) -> Integrator {
    match name {
        IntegratorName::SemiImplicitEuler => Integrator::SemiImplicitEuler,
        IntegratorName::Rk4 => Integrator::Rk4,
        IntegratorName::Dopri5 => Integrator::Dopri5 {
            rtol: mbconv::solver::DEFAULT_RTOL,
            atol: mbconv::solver::DEFAULT_ATOL,
        },
    }
}

/// Runs `mbconv check`.
pub fn check(registry: &Registry, args: &CheckArgs, verbosity: Verbosity) -> Result<(), Failure> {
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
        crate::io::ensure_new(path, args.force)?;
    }
    if let Some(path) = &args.view {
        super::view::can_write_page(path, args.force)?;
    }
    let read_options = parse_options(&args.read_options)?;
    let loaded = load(registry, &args.model, args.from.as_deref(), &read_options, false)?;
    let mut settings = settings;
    loaded.admit(args.strict, Verbosity::Quiet)?;
    let name = loaded.source.name.clone();
    let model = &loaded.imported.model;
    let mut page = args
        .view
        .as_ref()
        .map(|_| super::view::page_of(&loaded, &args.model));
    let report = match &args.against {
        Some(other) => {
            let converted = load(registry, other, None, &Options::default(), false)?;
            converted.admit(args.strict, Verbosity::Quiet)?;
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
            let formats = targets(registry, &args.via)?;
            if let Some(up) = args.up {
                for format in &formats {
                    let mut options = Options::default();
                    options.set(mbconv::ir::format::settings::UP.name, up.letter());
                    settings
                        .write_options
                        .insert(format.info().name.to_owned(), options);
                }
            }
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
    } else {
        print!("{}", mbconv::checker::render_table(&report));
    }
    if let Some(path) = &args.plot {
        let svg =
            mbconv::checker::plot_svg(&report).map_err(|e| Failure::bad_input(miette::Report::new(e)))?;
        write_atomic(path, &svg, args.force)?;
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

/// The formats `--via` names, or every format this build writes.
fn targets<'r>(registry: &'r Registry, via: &[String]) -> Result<Vec<&'r dyn Format>, Failure> {
    if via.is_empty() {
        return Ok(registry.formats().collect());
    }
    via.iter()
        .map(|name| registry.get(name.trim()).map_err(Failure::from))
        .collect()
}

fn verdict_exit(report: &CheckReport) -> Result<(), Failure> {
    let failing: Vec<String> = report
        .targets
        .iter()
        .filter(|t| t.verdict.is_failure())
        .map(|t| format!("{} ({})", t.format, t.verdict))
        .collect();
    if failing.is_empty() {
        Ok(())
    } else {
        Err(Failure::check_failed(format!(
            "check failed for {}: see the messages above",
            failing.join(", ")
        )))
    }
}

/// What `convert` does about checking.
pub struct AfterConvert<'a> {
    /// The model as read.
    pub model: &'a Model,
    /// Its name (the input path).
    pub name: &'a str,
    /// The target format.
    pub format: &'a dyn Format,
    /// The write settings the conversion used.
    pub write_options: &'a Options,
    /// `--check`: check whatever the model's size.
    pub forced: bool,
    /// How much to print (`--quiet`, `-v`).
    pub verbosity: Verbosity,
    /// The conversion wrote a file (not standard output).
    pub to_file: bool,
}

/// Checks the conversion `convert` just wrote and prints one line. Models larger than
/// [`AUTO_CHECK_BODY_STEPS`] are checked only when forced. Returns a failure (exit 1) for an
/// `unexplained` verdict, saying that the file was written anyway.
pub fn after_convert(
    registry: &Registry,
    request: &AfterConvert,
    output: &str,
    log: &mut crate::render::Log,
) -> Result<(), Failure> {
    let mut settings = CheckSettings {
        to_file: request.to_file,
        ..CheckSettings::default()
    };
    let work = body_steps(request.model, &settings);
    if !request.forced && work > AUTO_CHECK_BODY_STEPS {
        if !request.verbosity.is_quiet() {
            log.line(format!(
                "check: skipped (the model is {work} body-steps, more than the {AUTO_CHECK_BODY_STEPS} checked by default; pass --check to run it)"
            ));
        }
        return Ok(());
    }
    let format_name = request.format.info().name;
    settings
        .write_options
        .insert(format_name.to_owned(), request.write_options.clone());
    let report = mbconv::checker::check(
        request.model,
        request.name,
        registry,
        &[request.format],
        &settings,
    );
    let Some(target) = report.targets.first() else {
        return Ok(());
    };
    if !request.verbosity.is_quiet() || target.verdict.is_failure() {
        log.line(mbconv::checker::summary_line(target));
    }
    if target.verdict == Verdict::Unexplained {
        return Err(Failure::check_failed(format!(
            "{output} was written, but the check found a difference no reported loss explains (a writer or reader bug); run `mbconv check {} --via {format_name}` for details",
            request.name
        )));
    }
    Ok(())
}
