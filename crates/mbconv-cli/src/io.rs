//! Reading inputs and writing outputs (atomically, never over the input).

use crate::failure::Failure;
use crate::render::Verbosity;
use anyhow::Context;
use mbconv::ir::format::{Format, FormatError, Imported, Options, Registry, Source};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// True when `path` means standard input or output.
pub fn is_stdio(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Reads a file, or standard input for `-`.
pub fn read_source(path: &Path) -> Result<Source, Failure> {
    if is_stdio(path) {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .context("cannot read standard input")?;
        return Ok(Source::from_string("<stdin>", text));
    }
    Ok(Source::from_path(path).with_context(|| format!("cannot read {}", path.display()))?)
}

/// Parses `KEY=VALUE` settings.
pub fn parse_options(items: &[String]) -> Result<Options, Failure> {
    let mut options = Options::default();
    for item in items {
        let (key, value) = item
            .split_once('=')
            .ok_or_else(|| Failure::bad_input(miette::miette!("expected KEY=VALUE, got {item:?}")))?;
        options.set(key.trim(), value.trim());
    }
    Ok(options)
}

/// Chooses the input format: `from` if given (an IR JSON input is accepted in its place when
/// `ir_accepted`), else by extension and content.
pub fn input_format<'r>(
    registry: &'r Registry,
    source: &Source,
    path: &Path,
    from: Option<&str>,
    ir_accepted: bool,
) -> Result<&'r dyn Format, Failure> {
    if ir_accepted {
        let ir = registry.get("mbir")?;
        if ir.sniff(&source.text) {
            return Ok(ir);
        }
    }
    match from {
        Some(name) => Ok(registry.get(name)?),
        None => Ok(registry.detect(path, Some(&source.text))?),
    }
}

/// Reads a model with `format` after checking its read settings; a read error or an unknown
/// setting becomes an exit-2 failure.
pub fn read_model(
    registry: &Registry,
    format: &dyn Format,
    source: &Source,
    options: &Options,
) -> Result<Imported, Failure> {
    registry.read(format, source, options).map_err(diagnostic_failure)
}

/// A format's diagnostic as a bad-input failure.
pub fn diagnostic_failure(e: FormatError) -> Failure {
    Failure::bad_input(miette::Report::new_boxed(e))
}

/// The default output path: the input's file stem with the target format's main extension,
/// in the input's directory.
pub fn default_output(input: &Path, format: &dyn Format) -> PathBuf {
    let name = input.file_name().and_then(|n| n.to_str()).unwrap_or("model");
    let lower = name.to_ascii_lowercase();
    // Strip the longest known compound extension first (`.mbir.json`), then a plain one.
    let stem = [".mbir.json"]
        .iter()
        .find_map(|ext| lower.ends_with(ext).then(|| &name[..name.len() - ext.len()]))
        .unwrap_or_else(|| name.rsplit_once('.').map_or(name, |(stem, _)| stem));
    let ext = format.info().extensions.first().copied().unwrap_or("out");
    input.with_file_name(format!("{stem}.{ext}"))
}

/// Refuses to write over the input file.
pub fn ensure_not_input(input: &Path, output: &Path) -> Result<(), Failure> {
    if is_stdio(input) || is_stdio(output) {
        return Ok(());
    }
    let same = match (input.canonicalize(), output.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => input == output,
    };
    if same {
        return Err(Failure::bad_input(miette::miette!(
            "refusing to overwrite the input {}; choose another output with -o",
            input.display()
        )));
    }
    Ok(())
}

/// Refuses (exit 2) an output file that exists, unless `force`. Called before any work so that
/// the refusal is immediate; [`write_atomic`] refuses again at the last moment.
pub fn ensure_new(path: &Path, force: bool) -> Result<(), Failure> {
    if force || is_stdio(path) {
        return Ok(());
    }
    if path.exists() {
        return Err(exists_failure(path));
    }
    Ok(())
}

fn exists_failure(path: &Path) -> Failure {
    Failure::bad_input(miette::miette!(
        "{} already exists; pass --force to replace it",
        path.display()
    ))
}

/// Writes `text` to `path` atomically (a temporary file in the same directory, then a
/// rename), or to standard output for `-`. Without `force` an existing file is never
/// replaced: the temporary file is linked to its name, which fails if the name is taken, so
/// that no other writer can slip in between a check and the write.
pub fn write_atomic(path: &Path, text: &str, force: bool) -> Result<(), Failure> {
    if is_stdio(path) {
        let mut out = std::io::stdout().lock();
        out.write_all(text.as_bytes())
            .context("cannot write to standard output")?;
        out.flush().context("cannot write to standard output")?;
        return Ok(());
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let file_name = path.file_name().and_then(|n| n.to_str()).unwrap_or("output");
    let tmp = dir.join(format!(
        ".{file_name}.{}.{:?}.tmp",
        std::process::id(),
        std::thread::current().id()
    ));
    let mut exists = false;
    let result = (|| -> anyhow::Result<()> {
        let mut file =
            std::fs::File::create(&tmp).with_context(|| format!("cannot create {}", tmp.display()))?;
        file.write_all(text.as_bytes())
            .and_then(|()| file.sync_all())
            .with_context(|| format!("cannot write {}", tmp.display()))?;
        if force {
            std::fs::rename(&tmp, path).with_context(|| format!("cannot write {}", path.display()))?;
            return Ok(());
        }
        match std::fs::hard_link(&tmp, path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                exists = true;
                anyhow::bail!("{} already exists", path.display());
            }
            // A file system without hard links: check, then rename.
            Err(_) if path.exists() => {
                exists = true;
                anyhow::bail!("{} already exists", path.display());
            }
            Err(_) => {
                std::fs::rename(&tmp, path).with_context(|| format!("cannot write {}", path.display()))?
            }
        }
        Ok(())
    })();
    let _ = std::fs::remove_file(&tmp);
    if exists {
        return Err(exists_failure(path));
    }
    Ok(result?)
}

/// A model read from a file, with the importer's report and the validation, both naming it.
pub struct Loaded<'r> {
    /// The input.
    pub source: Source,
    /// The format it was read with.
    pub format: &'r dyn Format,
    /// The model, the importer's report and source map.
    pub imported: Imported,
    /// What validation found, with spans from the source map.
    pub validation: mbconv::ir::Report,
}

impl Loaded<'_> {
    /// The importer's report, naming the input file.
    pub fn import_report(&self) -> mbconv::ir::Report {
        let mut report = self.imported.report.clone();
        report.file = Some(self.source.name.clone());
        report
    }

    /// The policy every command applies to a model it reads (`docs/errors.md`): prints the
    /// import and validation findings (as `verbosity` says; with `--quiet`, errors only, unless
    /// the model is refused)
    /// and fails with exit 2 when the model is invalid, or with exit 1 when it is physically
    /// dubious and `strict` is set.
    pub fn admit(&self, strict: bool, verbosity: Verbosity) -> Result<(), Failure> {
        let mut log = String::new();
        let result = self.admit_into(strict, verbosity, &mut log);
        eprint!("{log}");
        result
    }

    /// [`Loaded::admit`], writing the findings to `log` instead of standard error.
    pub fn admit_into(&self, strict: bool, verbosity: Verbosity, log: &mut String) -> Result<(), Failure> {
        use mbconv::ir::validate::{Admission, admission};
        let verdict = admission(&self.validation);
        let refused = match verdict {
            Admission::Invalid { .. } => true,
            Admission::Dubious { .. } => strict,
            Admission::Clean => false,
        };
        log.push_str(&crate::render::format_report(&self.import_report(), verbosity));
        // A refused model's findings are printed even with --quiet: they say why.
        let validation_verbosity = if refused && verbosity.is_quiet() {
            Verbosity::Grouped
        } else {
            verbosity
        };
        log.push_str(&crate::render::format_report(
            &self.validation,
            validation_verbosity,
        ));
        match verdict {
            Admission::Invalid { errors } => Err(Failure::bad_input(miette::miette!(
                "{} is not a valid model ({errors} errors)",
                self.source.name
            ))),
            Admission::Dubious { warnings } if strict => Err(Failure::check_failed(format!(
                "--strict: {} is physically dubious ({warnings} warnings); refused",
                self.source.name
            ))),
            _ => Ok(()),
        }
    }
}

/// Reads a model: the file (or standard input), its format (`from`, else by extension and
/// content; IR JSON accepted in place of `from` when `ir_accepted`), the import, validation.
pub fn load<'r>(
    registry: &'r Registry,
    path: &Path,
    from: Option<&str>,
    options: &Options,
    ir_accepted: bool,
) -> Result<Loaded<'r>, Failure> {
    let source = read_source(path)?;
    let format = input_format(registry, &source, path, from, ir_accepted)?;
    let imported = read_model(registry, format, &source, options)?;
    let mut validation = mbconv::ir::validate::validate_with_spans(&imported.model, &imported.source_map);
    // The spans point into the file the importer says, else the input.
    validation.file = Some(
        imported
            .source_map_file
            .clone()
            .unwrap_or_else(|| source.name.clone()),
    );
    Ok(Loaded {
        source,
        format,
        imported,
        validation,
    })
}
