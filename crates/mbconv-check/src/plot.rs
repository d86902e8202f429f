//! An SVG of the body that parted most, per target: its centre-of-mass coordinates over time,
//! original (solid) against converted (dashed).

use crate::check::CheckReport;
use crate::verdict::Trace;
use plotters::prelude::*;

/// Error drawing a plot.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error("cannot draw the plot: {0}")]
#[diagnostic(code(check::plot))]
pub struct PlotError(String);

const PANEL_WIDTH: u32 = 1200;
const PANEL_HEIGHT: u32 = 320;
const COLOURS: [RGBColor; 3] = [
    RGBColor(200, 40, 40),
    RGBColor(30, 130, 40),
    RGBColor(40, 70, 200),
];

/// Draws one panel per target that has a trace (the body whose centre of mass parted most):
/// x, y and z of its centre of mass over time, the original as solid lines and the converted
/// model as dashed lines. Returns the SVG text.
///
/// ```
/// use mbconv_check::{CheckSettings, check, plot_svg};
/// use mbconv_ir::{Body, Model};
/// let mut registry = mbconv_ir::format::Registry::new();
/// registry.register(Box::new(mbconv_ir::mbir::MbirFormat));
/// let mut model = Model::new("drop");
/// model.bodies.push(Body::new("ball"));
/// let settings = CheckSettings { duration: 0.1, ..CheckSettings::default() };
/// let report = check(&model, "drop", &registry, &[registry.get("mbir").unwrap()], &settings);
/// let svg = plot_svg(&report).unwrap();
/// assert!(svg.starts_with("<svg"));
/// ```
pub fn plot_svg(report: &CheckReport) -> Result<String, PlotError> {
    let traced: Vec<_> = report
        .targets
        .iter()
        .filter_map(|t| {
            let trace = t.trace.as_ref()?;
            Some((t, trace, trace.body.as_deref()?))
        })
        .collect();
    let panels = traced.len().max(1) as u32;
    let mut svg = String::new();
    {
        let root =
            SVGBackend::with_string(&mut svg, (PANEL_WIDTH, PANEL_HEIGHT * panels)).into_drawing_area();
        root.fill(&WHITE).map_err(error)?;
        if traced.is_empty() {
            root.draw(&Text::new(
                format!("{}: nothing to plot (every target failed)", report.model),
                (20, 20),
                ("sans-serif", 16),
            ))
            .map_err(error)?;
        }
        let areas = root.split_evenly((traced.len().max(1), 1));
        for ((target, trace, body), panel) in traced.iter().zip(areas) {
            let (area, error_area) = panel.split_horizontally(PANEL_WIDTH * 62 / 100);
            let (lo, hi) = trace
                .original
                .iter()
                .chain(&trace.converted)
                .flat_map(|p| p.iter().copied())
                .filter(|x| x.is_finite())
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
                    (lo.min(x), hi.max(x))
                });
            let (lo, hi) = if lo <= hi { (lo, hi) } else { (-1.0, 1.0) };
            let pad = ((hi - lo) * 0.05).max(1e-6);
            let t_end = trace.times.last().copied().unwrap_or(1.0).max(1e-9);
            let mut chart = ChartBuilder::on(&area)
                .caption(
                    format!(
                        "{} -> {}: body {:?} ({}, COM error {:.3e} m)",
                        report.model, target.format, body, target.verdict, target.max_com_error
                    ),
                    ("sans-serif", 15),
                )
                .margin(12)
                .x_label_area_size(32)
                .y_label_area_size(64)
                .build_cartesian_2d(0.0..t_end, (lo - pad)..(hi + pad))
                .map_err(error)?;
            chart
                .configure_mesh()
                .x_desc("t (s)")
                .y_desc("COM (m)")
                .draw()
                .map_err(error)?;
            for (axis, colour) in COLOURS.iter().enumerate() {
                let name = ["x", "y", "z"][axis];
                let original = trace
                    .times
                    .iter()
                    .zip(&trace.original)
                    .map(|(t, p)| (*t, p[axis]));
                chart
                    .draw_series(LineSeries::new(original, colour.stroke_width(2)))
                    .map_err(error)?
                    .label(format!("{name} original"))
                    .legend(move |(x, y)| PathElement::new([(x, y), (x + 18, y)], colour.stroke_width(2)));
                let converted = trace
                    .times
                    .iter()
                    .zip(&trace.converted)
                    .map(|(t, p)| (*t, p[axis]))
                    .filter(|(_, x)| x.is_finite());
                chart
                    .draw_series(DashedLineSeries::new(converted, 6, 4, colour.stroke_width(1)))
                    .map_err(error)?
                    .label(format!("{name} {}", target.format))
                    .legend(move |(x, y)| PathElement::new([(x, y), (x + 8, y)], colour.stroke_width(1)));
            }
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.8))
                .border_style(BLACK)
                .position(SeriesLabelPosition::UpperRight)
                .draw()
                .map_err(error)?;
            draw_distance(&error_area, trace)?;
        }
        root.present().map_err(error)?;
    }
    Ok(svg)
}

/// The distance between the two centres of mass over time, beside the coordinates, so that
/// a small parting shows where the coordinates overlap.
fn draw_distance<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    trace: &Trace,
) -> Result<(), PlotError> {
    let distances: Vec<(f64, f64)> = trace
        .times
        .iter()
        .zip(trace.original.iter().zip(&trace.converted))
        .map(|(t, (a, b))| (*t, (a - b).norm()))
        .filter(|(_, d)| d.is_finite())
        .collect();
    let largest = distances.iter().map(|(_, d)| *d).fold(0.0, f64::max);
    let t_end = trace.times.last().copied().unwrap_or(1.0).max(1e-9);
    let mut chart = ChartBuilder::on(area)
        .caption("distance between the centres of mass", ("sans-serif", 13))
        .margin(12)
        .x_label_area_size(32)
        .y_label_area_size(64)
        .build_cartesian_2d(0.0..t_end, 0.0..(largest * 1.05).max(1e-9))
        .map_err(error)?;
    chart
        .configure_mesh()
        .x_desc("t (s)")
        .y_desc("|COM error| (m)")
        .y_label_formatter(&|y| format!("{y:.1e}"))
        .draw()
        .map_err(error)?;
    chart
        .draw_series(LineSeries::new(distances, BLACK.stroke_width(2)))
        .map_err(error)?;
    Ok(())
}

fn error(e: impl std::fmt::Display) -> PlotError {
    PlotError(e.to_string())
}
