//! `mbconv view`, and the page `convert --view` and `check --view` write.

use crate::cli::ViewArgs;
use crate::failure::Failure;
use crate::io::{Loaded, ensure_new, is_stdio, load, parse_options, write_atomic};
use crate::render::Verbosity;
use mbconv::ir::format::{Options, Registry};
use mbconv::viewer::{FRAME_RATE, View};
use std::path::{Path, PathBuf};

/// Runs `mbconv view`.
pub fn view(registry: &Registry, args: &ViewArgs, verbosity: Verbosity) -> Result<(), Failure> {
    let output = args.output.clone().unwrap_or_else(|| default_page(&args.model));
    can_write_page(&output, args.force)?;
    let read_options = parse_options(&args.read_options)?;
    let loaded = load(registry, &args.model, args.from.as_deref(), &read_options, false)?;
    loaded.admit(false, Verbosity::Quiet)?;
    let mut page = page_of(&loaded, &args.model);
    page.settings.duration = args.duration;
    page.settings.dt = args.dt;
    let model = &loaded.imported.model;
    if let Some(other) = &args.against {
        let converted = load(registry, other, None, &Options::default(), false)?;
        converted.admit(false, Verbosity::Quiet)?;
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
    let write_options = parse_options(&args.write_options)?;
    for name in &args.via {
        let format = registry.get(name.trim())?;
        registry
            .check_write_options(format, &write_options)
            .map_err(|e| Failure::bad_input(miette::Report::new(e)))?;
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

/// The page of `loaded` alone: its model, title, format, mesh folder and reading findings, the
/// check's default settings but for the view's duration.
pub fn page_of(loaded: &Loaded, path: &Path) -> View {
    let mut page = View::new(
        loaded.imported.model.clone(),
        &loaded.source.name,
        loaded.format.info().name,
    );
    page.base_dir = (!is_stdio(path)).then(|| path.parent().map(Path::to_path_buf).unwrap_or_default());
    page.findings = loaded.import_report().findings;
    page.findings.extend(loaded.validation.findings.iter().cloned());
    page
}

/// Renders `page` and writes it to `path` (atomically).
pub fn write_page(page: &View, path: &Path, force: bool, verbosity: Verbosity) -> Result<(), Failure> {
    let html = mbconv::viewer::render(page).map_err(anyhow::Error::new)?;
    write_atomic(path, &html, force)?;
    if !verbosity.is_quiet() && !is_stdio(path) {
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
    ensure_new(path, force)?;
    if mbconv::viewer::bundle().is_none() {
        return Err(anyhow::Error::new(mbconv::viewer::ViewError::NoBundle).into());
    }
    Ok(())
}

/// `robot.urdf` -> `robot.html` in the current directory; standard input -> `model.html`.
fn default_page(model: &Path) -> PathBuf {
    if is_stdio(model) {
        return PathBuf::from("model.html");
    }
    let name = model
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = name
        .strip_suffix(".mbir.json")
        .unwrap_or_else(|| name.rsplit_once('.').map_or(&name, |(s, _)| s));
    PathBuf::from(format!("{stem}.html"))
}
