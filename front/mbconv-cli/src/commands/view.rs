//! `mbconv view`, and the page `convert --view` and `check --view` write.

use crate::cli::ViewArgs;
use crate::failure::Failure;
use crate::render::Verbosity;
use mbconv::Pipeline;
use mbconv::files::{Input, Output, ensure_new, write_atomic};
use mbconv::viewer::{FRAME_RATE, View};
use std::path::{Path, PathBuf};

/// Runs `mbconv view`.
pub fn view(pipeline: &Pipeline, args: &ViewArgs, verbosity: Verbosity) -> Result<(), Failure> {
    let output = args.output.clone().unwrap_or_else(|| default_page(&args.model));
    can_write_page(&output, args.force)?;
    let loaded = super::read(pipeline, &args.model, args.from.as_deref(), &args.read_options)?;
    crate::render::admit(&loaded, false, Verbosity::Quiet)?;
    let mut page = loaded.page();
    page.settings.duration = args.duration;
    page.settings.dt = args.dt;
    let model = &loaded.imported.model;
    if let Some(other) = &args.against {
        let converted = super::read(pipeline, other, None, &[])?;
        crate::render::admit(&converted, false, Verbosity::Quiet)?;
        let label = converted.source.name.clone();
        let format = converted.format.info().name;
        page.conversions.push(mbconv::viewer::against(
            model,
            &label,
            &converted.imported,
            format,
            &page.settings,
            &[],
            FRAME_RATE,
        ));
    }
    let write_options = super::settings(&args.write_options)?;
    let registry = pipeline.registry();
    for name in &args.via {
        let format = registry.get(name.trim())?;
        pipeline.check_write_settings(format, &write_options)?;
        page.settings
            .write_options
            .insert(format.info().name.to_owned(), write_options.clone());
        page.conversions.push(mbconv::viewer::via(
            model,
            registry,
            format,
            &page.settings,
            None,
            FRAME_RATE,
        ));
    }
    write_page(&page, &output, args.force, verbosity)
}

/// Renders `page` and writes it to `path` (atomically).
pub fn write_page(page: &View, path: &Path, force: bool, verbosity: Verbosity) -> Result<(), Failure> {
    let html = mbconv::viewer::render(page).map_err(anyhow::Error::new)?;
    let output = Output::from_arg(path);
    write_atomic(&output, &html, force)?;
    if !verbosity.is_quiet() && output.path().is_some() {
        eprintln!(
            "wrote {} ({} KiB): open it in a browser",
            path.display(),
            html.len() / 1024
        );
    }
    Ok(())
}

/// Refuses at once, before any reading or simulation, a page that exists (without `force`) or
/// a build without the page's front-end.
pub fn can_write_page(path: &Path, force: bool) -> Result<(), Failure> {
    ensure_new(&Output::from_arg(path), force)?;
    if mbconv::viewer::bundle().is_none() {
        return Err(anyhow::Error::new(mbconv::viewer::ViewError::NoBundle).into());
    }
    Ok(())
}

/// `robot.urdf` -> `robot.html` in the current directory; standard input -> `model.html`.
fn default_page(model: &Path) -> PathBuf {
    let input = Input::from_arg(model);
    let stem = input.path().map_or("model", mbconv::files::model_stem);
    PathBuf::from(format!("{stem}.html"))
}
