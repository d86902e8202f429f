//! Functions of time (`actuation_function`, `modulation_function`).

use super::fields::{Ctx, Fields};
use crate::raw::Node;
use crate::spec::FORMAT;
use crate::spec::frames as convert;
use mbconv_ir::format::SourceError;
use mbconv_ir::format::kit::aids;
use mbconv_ir::{Category, Extras, Severity, TimeFunction};

/// Reads a function. `prefix` names the key it sits under (`actuation_function.`), for kept
/// values and extras in the owner's `extras`.
pub(super) fn function(
    ctx: &mut Ctx,
    node: &Node,
    extras: &mut Extras,
    prefix: &str,
    ir_path: &str,
) -> Result<TimeFunction, Box<SourceError>> {
    let mut f = Fields::new(ctx, node, "a function")?;
    let ty_node = f.req(ctx, "type")?;
    let ty = ctx.upper(ty_node, "function type")?;
    let base = match ty.as_str() {
        "CONSTANT" => TimeFunction::Constant {
            value: ctx.number(f.req(ctx, "value")?, "function value")?,
        },
        "POLYNOMIAL" => {
            let c = f.req(ctx, "coefficients")?;
            let coefficients = ctx.numbers(c, "polynomial coefficients")?;
            if coefficients.is_empty() {
                return Err(ctx.error(c, "expected at least one polynomial coefficient"));
            }
            TimeFunction::Polynomial { coefficients }
        }
        "SINE" => sine(ctx, &mut f, extras, prefix)?,
        "RAMP" => TimeFunction::Ramp {
            slope: ctx.number(f.req(ctx, "slope")?, "ramp slope")?,
            intercept: match f.get("intercept") {
                Some(n) => ctx.number(n, "ramp intercept")?,
                None => 0.0,
            },
        },
        "DATA" => data(ctx, &mut f, ir_path)?,
        "CONTROLLER" => TimeFunction::External { default: 0.0 },
        other => {
            return Err(ctx.error(
                ty_node,
                format!("unknown function type {other:?}; expected CONSTANT, POLYNOMIAL, SINE, RAMP, DATA or CONTROLLER"),
            ));
        }
    };
    let function = repeat(ctx, &mut f, base, &ty, extras, prefix, ir_path)?;
    f.finish_into(ctx, extras, prefix, ir_path);
    Ok(function)
}

/// A SINE: `amplitude`, `frequency`, `phase` (in the document's angle unit, kept as written)
/// and `shift`.
fn sine(
    ctx: &mut Ctx,
    f: &mut Fields,
    extras: &mut Extras,
    prefix: &str,
) -> Result<TimeFunction, Box<SourceError>> {
    let amplitude = ctx.number(f.req(ctx, "amplitude")?, "sine amplitude")?;
    let frequency = ctx.number(f.req(ctx, "frequency")?, "sine frequency")?;
    let phase = match f.get("phase") {
        Some(n) => {
            let written = ctx.number(n, "sine phase")?;
            let phase = convert::angle_in(written, ctx.degrees);
            aids::keep(
                extras,
                FORMAT,
                &format!("{prefix}phase"),
                &[written],
                &[convert::angle_out(phase, ctx.degrees)],
            );
            phase
        }
        None => 0.0,
    };
    let shift = match f.get("shift") {
        Some(n) => ctx.number(n, "sine shift")?,
        None => 0.0,
    };
    Ok(TimeFunction::Sine {
        amplitude,
        frequency,
        phase,
        shift,
    })
}

/// DATA: `[t, f(t)]` points, sorted by time as Chrono does (noted); a repeated time is an error.
fn data(ctx: &mut Ctx, f: &mut Fields, ir_path: &str) -> Result<TimeFunction, Box<SourceError>> {
    let d = f.req(ctx, "data")?;
    ctx.expect_list(d, "data")?;
    let mut points = Vec::new();
    for row in d.items() {
        points.push(ctx.fixed::<2>(row, "a data point [t, f(t)]")?);
    }
    let sorted = points.windows(2).all(|w| w[0][0] <= w[1][0]);
    if !sorted {
        points.sort_by(|a, b| a[0].total_cmp(&b[0]));
        ctx.finding(
            "chrono.data_sorted",
            Severity::Info,
            Category::Note,
            ir_path,
            Some(d),
            "data points sorted by time, as Chrono does".into(),
        );
    }
    if let Some(w) = points.windows(2).find(|w| w[0][0] == w[1][0]) {
        return Err(ctx.error(
            d,
            format!("duplicate time {} in data points (Chrono rejects it)", w[0][0]),
        ));
    }
    Ok(TimeFunction::Data { points })
}

/// `base` repeated as the function's `repeat` mapping says; on a CONTROLLER function, which
/// Chrono does not repeat, the mapping is kept verbatim and noted.
fn repeat(
    ctx: &mut Ctx,
    f: &mut Fields,
    base: TimeFunction,
    ty: &str,
    extras: &mut Extras,
    prefix: &str,
    ir_path: &str,
) -> Result<TimeFunction, Box<SourceError>> {
    Ok(match f.get("repeat") {
        Some(r) if ty != "CONTROLLER" => {
            let mut fr = Fields::new(ctx, r, "repeat")?;
            let start = ctx.number(fr.req(ctx, "start")?, "repeat start")?;
            let width = ctx.number(fr.req(ctx, "width")?, "repeat width")?;
            let shift = ctx.number(fr.req(ctx, "shift")?, "repeat shift")?;
            fr.finish_into(ctx, extras, &format!("{prefix}repeat."), ir_path);
            TimeFunction::Repeat {
                function: Box::new(base),
                start,
                width,
                shift,
            }
        }
        Some(r) => {
            extras.insert(format!("chrono.{prefix}repeat"), r.to_value());
            ctx.finding(
                "chrono.key_ignored",
                Severity::Warning,
                Category::Ignored,
                ir_path,
                Some(r),
                "Chrono ignores `repeat` on a CONTROLLER function; kept verbatim".into(),
            );
            base
        }
        None => base,
    })
}
