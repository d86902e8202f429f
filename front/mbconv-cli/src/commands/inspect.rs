//! `mbconv info` and `mbconv validate`.

use crate::cli::InspectArgs;
use crate::failure::Failure;
use crate::render::Verbosity;
use crate::render::print_report;
use mbconv::ir::report::counted;
use mbconv::ir::{ModelSummary, Severity};
use mbconv::{Loaded, Pipeline};

fn load<'p>(pipeline: &'p Pipeline, args: &InspectArgs) -> Result<Loaded<'p>, Failure> {
    super::read(pipeline, &args.model, args.from.as_deref(), &args.read_options)
}

/// Prints a summary of the model at its initial state.
pub fn info(pipeline: &Pipeline, args: &InspectArgs, verbosity: Verbosity) -> Result<(), Failure> {
    let loaded = load(pipeline, args)?;
    crate::render::admit(&loaded, args.strict, verbosity)?;
    let summary = ModelSummary::new(&loaded.imported.model);
    if args.json {
        let mut json = serde_json::to_value(&summary).map_err(anyhow::Error::from)?;
        if let (Some(x), Some(object)) = (&loaded.xacro, json.as_object_mut()) {
            object.insert("xacro".to_owned(), xacro_json(x));
        }
        println!(
            "{}",
            serde_json::to_string_pretty(&json).map_err(anyhow::Error::from)?
        );
        return Ok(());
    }
    println!("model    {}", summary.name);
    match summary.gravity {
        Some(g) => println!("gravity  [{}, {}, {}] m/s²", g[0], g[1], g[2]),
        None => println!("gravity  (not given)"),
    }
    println!(
        "bodies   {}   joints {}   dof {}   loops {}",
        summary.bodies.len(),
        summary.joints.len(),
        summary.dof_total,
        summary.loop_count
    );
    for b in &summary.bodies {
        let p = b.position;
        println!(
            "  body  {:<24} mass {:<10} at [{:.6}, {:.6}, {:.6}]{}",
            b.name,
            b.mass,
            p[0],
            p[1],
            p[2],
            if b.fixed { "  fixed" } else { "" }
        );
    }
    for j in &summary.joints {
        println!(
            "  joint {:<24} {:<14} {} -> {} ({} dof){}",
            j.name,
            j.joint_type,
            j.parent,
            j.child,
            j.dof,
            if j.closes_loop { "  closes a loop" } else { "" }
        );
    }
    let c = &summary.counts;
    println!(
        "also     {} constraints, {} force elements, {} motors, {} loads, {} devices, {} groups, {} shapes",
        c.constraints, c.force_elements, c.motors, c.loads, c.devices, c.groups, c.shapes
    );
    if let Some(x) = &loaded.xacro {
        print_xacro(x);
    }
    Ok(())
}

/// The files a xacro input was expanded from and the arguments it declares.
fn print_xacro(x: &mbconv::xacro::XacroInput) {
    let files = x.files();
    println!(
        "xacro    expanded from {} file{}; arguments (--read-option arg:NAME=VALUE): {}",
        files.len(),
        if files.len() == 1 { "" } else { "s" },
        x.args().len()
    );
    for a in x.args() {
        let given = if a.value == a.default {
            String::new()
        } else {
            format!("  value {:?}", a.value)
        };
        println!("  arg   {:<24} default {:?}{given}", a.name, a.default);
    }
    for f in files {
        println!("  file  {}", f.display());
    }
}

/// The same, for `--json`: `{"files": [...], "args": [{"name", "default", "value"}]}`.
fn xacro_json(x: &mbconv::xacro::XacroInput) -> serde_json::Value {
    serde_json::json!({
        "files": x.files().iter().map(|f| f.display().to_string()).collect::<Vec<_>>(),
        "args": x.args().iter().map(|a| serde_json::json!({
            "name": a.name,
            "default": a.default,
            "value": a.value,
        })).collect::<Vec<_>>(),
    })
}

/// Validates a model; exit 2 when it has errors.
pub fn validate(pipeline: &Pipeline, args: &InspectArgs, verbosity: Verbosity) -> Result<(), Failure> {
    let loaded = load(pipeline, args)?;
    let source = &loaded.source;
    // The validation's spans may point into another file than the input (a model read through
    // a file that names it): each finding keeps its file.
    let all = loaded.report();
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&all).map_err(anyhow::Error::from)?
        );
    } else {
        // Listing the findings is what `validate` is for: every one, unless --quiet.
        let every = if verbosity.is_quiet() {
            verbosity
        } else {
            Verbosity::Every
        };
        print_report(&all, every);
    }
    let errors = all.at_least(Severity::Error).count();
    let warnings = all
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Warning)
        .count();
    // The same policy as every command; the findings are printed above.
    let verdict = loaded.admit(args.strict).map_err(Failure::from);
    if !args.json {
        match &verdict {
            Err(_) if errors > 0 => {
                eprintln!(
                    "{}: invalid ({}, {})",
                    source.name,
                    counted(errors, "error"),
                    counted(warnings, "warning")
                )
            }
            Err(_) => eprintln!(
                "{}: refused by --strict ({})",
                source.name,
                counted(warnings, "warning")
            ),
            Ok(()) if !verbosity.is_quiet() => {
                eprintln!("{}: valid ({})", source.name, counted(warnings, "warning"))
            }
            Ok(()) => {}
        }
    }
    verdict.map_err(|failure| failure.reported())
}
