//! The one path every model takes through mbconv: read (a file, standard input or text; the
//! format named, or found by extension and content; the reader's settings) -> validate ->
//! admit -> lower and emit -> write atomically, companions too -> check. [`read`](crate::read),
//! [`read_str`](crate::read_str), [`write`](crate::write()), [`convert`](crate::convert) and the
//! `mbconv` command all go through a [`Pipeline`]; a tool that prints as it goes (the command
//! does) watches the steps of [`Pipeline::convert`] or calls the steps one by one
//! ([`Pipeline::read`], [`Loaded::admit`], [`Pipeline::emit`], [`Emitted::write`],
//! [`Pipeline::check_conversion`]).
//!
//! ```
//! # fn main() -> Result<(), mbconv::Error> {
//! use mbconv::files::{Input, Output};
//! let dir = tempfile::tempdir().unwrap();
//! let input = dir.path().join("pendulum.mbir.json");
//! mbconv::write(&mbconv::demo::pendulum(), &input)?;
//! let pipeline = mbconv::Pipeline::new();
//! let output = Output::File(dir.path().join("pendulum.skel"));
//! let mut steps = Vec::new();
//! let converted = pipeline.convert(&Input::File(input), &output, &mbconv::Options::default(), &mut |step| {
//!     steps.push(matches!(step, mbconv::Step::Read { .. }));
//! })?;
//! assert_eq!(steps, [true, false]); // read (and admitted), then emitted
//! assert_eq!((converted.loaded.format.info().name, converted.target.info().name), ("mbir", "skel"));
//! assert_eq!(converted.files, [dir.path().join("pendulum.skel")]);
//! // Again: the output exists, and nothing is replaced unless forced.
//! let again = pipeline.convert(&Input::File(dir.path().join("pendulum.mbir.json")), &output, &mbconv::Options::default(), &mut |_| {});
//! assert!(matches!(again, Err(mbconv::Error::Exists { .. })));
//! # Ok(())
//! # }
//! ```

use crate::files::{Input, Output, Staged, ensure_new, ensure_not_input, write_atomic};
use crate::ir::format::{Asset, Format, Imported, Registry, Source};
use crate::ir::validate::{Admission, admission, validate_with_spans};
use crate::{Error, Model, Options, Report, Settings};
use mbconv_check::{CheckSettings, TargetCheck};
use std::path::{Path, PathBuf};

/// The work budget of the check a conversion runs without being asked
/// ([`Pipeline::check_conversion`]), in body-steps per simulation (see
/// [`CheckSettings::work_budget`]): measured as the simulations run, so a small but stiff model
/// is stopped as soon as a large smooth one, and a check that goes over it is `skipped` (over
/// budget) instead of holding the conversion up. At this size one simulation takes about a
/// second (see `docs/check.md` for the measurements); `--check` runs the check fully.
pub const AUTO_CHECK_WORK: usize = 500_000;

/// How [`Pipeline::read`] reads.
///
/// ```
/// let mut options = mbconv::ReadOptions::default();
/// options.from = Some("chrono".into());
/// options.settings.set("lenient", "true");
/// assert!(!options.accept_ir);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadOptions {
    /// The input format, by registry name or alias; `None`: by extension and content.
    pub from: Option<String>,
    /// The reader's settings (`mbconv formats --settings` lists them).
    pub settings: Settings,
    /// Read IR JSON whatever `from` says, when the input is IR JSON (the `x2y` shortcuts
    /// accept it in place of their source format).
    pub accept_ir: bool,
}

/// A model as read: its text, the format that read it, what the reader found and what
/// validation found. Not yet admitted ([`Loaded::admit`]).
pub struct Loaded<'r> {
    /// The input's text and name.
    pub source: Source,
    /// The format it was read with.
    pub format: &'r dyn Format,
    /// The model, the reader's report and source map.
    pub imported: Imported,
    /// What validation found, with spans from the source map, naming the file they point into.
    pub validation: Report,
    /// The directory the input's relative references resolve against (`None`: the working
    /// directory, for standard input and text).
    pub dir: Option<PathBuf>,
    /// For a xacro file, its expansion: the files it read and the arguments it declares
    /// ([`crate::xacro`]).
    pub xacro: Option<crate::xacro::XacroInput>,
}

impl Loaded<'_> {
    /// The reader's report, naming the input.
    pub fn import_report(&self) -> Report {
        let mut report = self.imported.report.clone();
        report.file = Some(self.source.name.clone());
        report
    }

    /// The reader's report and the validation (each validation finding naming the file it
    /// points into), naming the input.
    pub fn report(&self) -> Report {
        let mut report = self.import_report();
        let mut validation = self.validation.clone();
        validation.pin_file();
        report.extend(validation);
        report
    }

    /// What the validation makes of the model: clean, dubious (warnings) or invalid (errors).
    pub fn admission(&self) -> Admission {
        admission(&self.validation)
    }

    /// The policy every reading applies (`docs/errors.md`): an invalid model is refused
    /// ([`Error::Invalid`]); a physically dubious one is refused when `strict`
    /// ([`Error::Dubious`]).
    ///
    /// # Errors
    /// As said.
    pub fn admit(&self, strict: bool) -> Result<(), Error> {
        match self.admission() {
            Admission::Invalid { .. } => Err(Error::Invalid {
                name: self.source.name.clone(),
                report: self.validation.clone(),
            }),
            Admission::Dubious { warnings } if strict => Err(Error::Dubious {
                name: self.source.name.clone(),
                warnings,
            }),
            _ => Ok(()),
        }
    }

    /// The model with the reader's report and the validation in one report, each finding
    /// naming its file.
    pub fn into_imported(self) -> Imported {
        let mut report = self.report();
        report.pin_file();
        Imported {
            report,
            ..self.imported
        }
    }

    /// The `mbconv view` page of this model alone: its model, title, format, mesh folder and
    /// reading findings, the check's default settings.
    pub fn page(&self) -> crate::viewer::View {
        let mut page = crate::viewer::View::new(
            self.imported.model.clone(),
            &self.source.name,
            self.format.info().name,
        );
        page.base_dir.clone_from(&self.dir);
        page.findings = self.import_report().findings;
        page.findings.extend(self.validation.findings.iter().cloned());
        page
    }
}

/// A model lowered and emitted for an output, not yet written.
#[derive(Clone, Debug)]
pub struct Emitted {
    /// Where it goes.
    pub output: Output,
    /// The main file's text.
    pub text: String,
    /// The companions (a Chrono simulation file, a Choreonoid project, …): path beside the
    /// output and text.
    pub companions: Vec<(PathBuf, String)>,
    /// The files the text names that are written with it (meshes copied or converted,
    /// [`Asset`]): path beside the output and what to write there.
    pub assets: Vec<(PathBuf, Asset)>,
    /// What the writer could not say or had to change, naming the output.
    pub report: Report,
    /// The write settings it was emitted with, the output's path among them.
    pub settings: Settings,
}

impl Emitted {
    /// Writes the assets, the companions, then the main file, each atomically. Before
    /// anything is written, every companion and asset is refused that is the input or
    /// (without `force`) exists, so that a refusal leaves no file of the set behind; the
    /// assets are written under temporary names first and put in place only when all of them
    /// could be, and taken away again when a later file fails, so that an error leaves no
    /// half-written set either. An asset whose place already holds the same bytes (an earlier
    /// conversion of the model into this folder) is left as it is. Returns the files written:
    /// the output (unless standard output), its companions, then its assets.
    ///
    /// # Errors
    /// [`Error::OverwritesInput`], [`Error::Exists`] or a system error.
    pub fn write(&self, input: Option<&Input>, force: bool) -> Result<Vec<PathBuf>, Error> {
        // An asset already there, byte for byte (written by an earlier conversion of the same
        // model into this folder), is left as it is.
        let assets: Vec<(PathBuf, Asset)> = self
            .assets
            .iter()
            .filter(|(path, asset)| !already_there(path, asset))
            .cloned()
            .collect();
        for path in self
            .companions
            .iter()
            .map(|(path, _)| path)
            .chain(assets.iter().map(|(path, _)| path))
        {
            let other = Output::File(path.clone());
            if let Some(input) = input {
                ensure_not_input(input, &other)?;
            }
            ensure_new(&other, force)?;
        }
        let mut placed = PlacedAssets::default();
        let result = placed.write(&assets, force).and_then(|()| {
            for (path, text) in &self.companions {
                write_atomic(&Output::File(path.clone()), text, force)?;
            }
            write_atomic(&self.output, &self.text, force)
        });
        if let Err(e) = result {
            placed.undo();
            return Err(e);
        }
        Ok(self
            .output
            .path()
            .map(Path::to_path_buf)
            .into_iter()
            .chain(self.companions.iter().map(|(path, _)| path.clone()))
            .chain(assets.into_iter().map(|(path, _)| path))
            .collect())
    }
}

/// True when the file at `path` holds what `asset` would write there.
fn already_there(path: &Path, asset: &Asset) -> bool {
    let Ok(there) = std::fs::metadata(path) else {
        return false;
    };
    let wanted_len = match &asset.bytes {
        Some(bytes) => bytes.len() as u64,
        None => match std::fs::metadata(&asset.source) {
            Ok(m) => m.len(),
            Err(_) => return false,
        },
    };
    if !there.is_file() || there.len() != wanted_len {
        return false;
    }
    let Ok(contents) = std::fs::read(path) else {
        return false;
    };
    match &asset.bytes {
        Some(bytes) => contents == *bytes,
        None => std::fs::read(&asset.source).is_ok_and(|source| source == contents),
    }
}

/// The asset files and folders one [`Emitted::write`] made, to take away if a later file
/// fails.
#[derive(Default)]
struct PlacedAssets {
    files: Vec<PathBuf>,
    folders: Vec<PathBuf>,
}

impl PlacedAssets {
    /// Writes every asset under a temporary name (its folders made), then puts them all in
    /// place.
    fn write(&mut self, assets: &[(PathBuf, Asset)], force: bool) -> Result<(), Error> {
        let mut staged = Vec::new();
        for (path, asset) in assets {
            if let Some(parent) = path.parent() {
                self.make_folder(parent)?;
            }
            staged.push(Staged::new(path, |tmp| {
                asset.write_to(tmp).map_err(|e| match &asset.bytes {
                    Some(_) => e,
                    None => std::io::Error::new(e.kind(), format!("copying {}: {e}", asset.source.display())),
                })
            })?);
        }
        for (file, (path, _)) in staged.into_iter().zip(assets) {
            file.commit(force)?;
            self.files.push(path.clone());
        }
        Ok(())
    }

    /// Makes `folder` and the folders above it that are missing, remembering them.
    fn make_folder(&mut self, folder: &Path) -> Result<(), Error> {
        let missing: Vec<PathBuf> = folder
            .ancestors()
            .take_while(|f| !f.as_os_str().is_empty() && !f.exists())
            .map(Path::to_path_buf)
            .collect();
        std::fs::create_dir_all(folder).map_err(|source| Error::Io {
            path: folder.to_path_buf(),
            writing: true,
            source,
        })?;
        // Deepest first, the order they are removed in.
        self.folders.extend(missing);
        Ok(())
    }

    /// Removes the files put in place and the folders made (those left empty).
    fn undo(self) {
        for file in &self.files {
            let _ = std::fs::remove_file(file);
        }
        for folder in &self.folders {
            let _ = std::fs::remove_dir(folder);
        }
    }
}

/// A step of [`Pipeline::convert`], for a caller that reports as it goes.
pub enum Step<'a> {
    /// The input was read and validated. `refused` says whether the admission refuses it
    /// (the conversion then fails with that refusal after this step).
    Read {
        /// The model as read.
        loaded: &'a Loaded<'a>,
        /// The model is invalid, or dubious under `strict`.
        refused: bool,
    },
    /// The model was lowered and emitted for the output; nothing is written yet.
    Emitted(&'a Emitted),
}

/// What [`Pipeline::convert`] did.
pub struct Converted<'r> {
    /// The input as read.
    pub loaded: Loaded<'r>,
    /// The output format.
    pub target: &'r dyn Format,
    /// Where it went.
    pub output: Output,
    /// The write settings used, the output's path among them.
    pub settings: Settings,
    /// The files written: the output (unless standard output), its companions, then its
    /// assets.
    pub files: Vec<PathBuf>,
    /// Every finding of the reading, validation and writing, each naming its file.
    pub report: Report,
    /// The reading or the writing dropped or approximated something.
    pub losses: bool,
}

/// What [`Pipeline::check_conversion`] found.
#[derive(Clone, Debug)]
pub enum ConversionCheck {
    /// The check of the conversion (`skipped` when it went over [`AUTO_CHECK_WORK`]).
    Checked(Box<TargetCheck>),
    /// The check had nothing to compare.
    Empty,
}

/// The registry of formats, and the steps every model goes through (see the module's
/// documentation).
///
/// ```
/// let pipeline = mbconv::Pipeline::new();
/// assert!(pipeline.registry().get("urdf").is_ok());
/// ```
pub struct Pipeline {
    registry: Registry,
}

impl Default for Pipeline {
    fn default() -> Self {
        Self::new()
    }
}

impl Pipeline {
    /// Every format of this build ([`crate::formats`]).
    pub fn new() -> Self {
        Self::with_registry(crate::formats())
    }

    /// The formats of `registry`.
    pub fn with_registry(registry: Registry) -> Self {
        Self { registry }
    }

    /// The formats.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// The formats `names` name (registry names or aliases), or every format for none.
    ///
    /// ```
    /// let pipeline = mbconv::Pipeline::new();
    /// assert_eq!(pipeline.formats_named(&["yaml"]).unwrap()[0].info().name, "chrono");
    /// assert!(pipeline.formats_named(&[]).unwrap().len() >= 8);
    /// ```
    ///
    /// # Errors
    /// [`Error::Lookup`] for a name no format answers to.
    pub fn formats_named(&self, names: &[&str]) -> Result<Vec<&dyn Format>, Error> {
        if names.is_empty() {
            return Ok(self.registry.formats().collect());
        }
        names
            .iter()
            .map(|name| self.registry.get(name).map_err(Error::from))
            .collect()
    }

    /// The output format: `to`, else by the output file's extension.
    ///
    /// ```
    /// use mbconv::files::Output;
    /// let pipeline = mbconv::Pipeline::new();
    /// let format = pipeline.target(None, &Output::from_arg("robot.sdf")).unwrap();
    /// assert_eq!(format.info().name, "sdf");
    /// assert!(pipeline.target(None, &Output::Stdout).is_err());
    /// ```
    ///
    /// # Errors
    /// [`Error::Lookup`], or [`Error::NoOutputFormat`] for standard output without `to`.
    pub fn target(&self, to: Option<&str>, output: &Output) -> Result<&dyn Format, Error> {
        match (to, output) {
            (Some(name), _) => Ok(self.registry.get(name)?),
            (None, Output::File(path)) => Ok(self.registry.detect_output(path)?),
            (None, Output::Stdout) => Err(Error::NoOutputFormat),
        }
    }

    /// Refuses a write setting `format` does not take, or a value of the wrong type.
    ///
    /// # Errors
    /// [`Error::Format`] with the setting's diagnostic.
    pub fn check_write_settings(&self, format: &dyn Format, settings: &Settings) -> Result<(), Error> {
        self.registry
            .check_write_options(format, settings)
            .map_err(|e| Error::Format(Box::new(e)))
    }

    /// Reads `input` and validates the model: the format is `options.from` (IR JSON in its
    /// place with `options.accept_ir`), else found by extension and content; the reader's
    /// settings are checked first. The model is not admitted yet ([`Loaded::admit`]).
    ///
    /// ```
    /// # fn main() -> Result<(), mbconv::Error> {
    /// use mbconv::files::Input;
    /// let pipeline = mbconv::Pipeline::new();
    /// let text = r#"<robot name="r"><link name="a"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link></robot>"#;
    /// let input = Input::Text { name: "r.urdf".into(), text: text.into() };
    /// let loaded = pipeline.read(&input, &mbconv::ReadOptions::default())?;
    /// assert_eq!(loaded.format.info().name, "urdf");
    /// loaded.admit(false)?;
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    /// The input cannot be read, no format answers, a setting is unknown or the reader
    /// refuses the text.
    pub fn read(&self, input: &Input, options: &ReadOptions) -> Result<Loaded<'_>, Error> {
        let source = input.source()?;
        let detection = input.detection_path();
        if crate::xacro::is_xacro(&detection) {
            return self.read_xacro(input, &source, &detection, options);
        }
        let format = self.input_format(&source, &detection, options)?;
        // A reader may hand a file it names in another format to that format's reader.
        let mut settings = options.settings.clone();
        settings.readers.get_or_insert_with(crate::readers);
        let imported = self
            .registry
            .read(format, &source, &settings)
            .map_err(Error::Format)?;
        Ok(self.validated(input, source, format, imported, None))
    }

    /// Reads a xacro file: expands it ([`crate::xacro`]), reads the expansion with the format
    /// of its name without `.xacro` (else of its content), and moves what the reader placed in
    /// the expansion back to the xacro files.
    fn read_xacro(
        &self,
        input: &Input,
        source: &Source,
        detection: &Path,
        options: &ReadOptions,
    ) -> Result<Loaded<'_>, Error> {
        let (expanded, mut settings, xacro) = crate::xacro::expand(source, detection, &options.settings)?;
        settings.readers.get_or_insert_with(crate::readers);
        let format = self.input_format(&expanded, &crate::xacro::detection_path(detection), options)?;
        let mut imported = self
            .registry
            .read(format, &expanded, &settings)
            .map_err(|e| xacro.relocate(e))?;
        xacro.relocate_report(&mut imported.report, &source.name);
        imported.report.findings.insert(0, xacro.note());
        imported.report.findings.extend(xacro.warnings());
        let named = Source::from_string(source.name.clone(), expanded.text.clone())
            .with_path(source.name.clone(), source.path.clone());
        Ok(self.validated(input, named, format, imported, Some(xacro)))
    }

    /// Validates what was read.
    fn validated<'r>(
        &'r self,
        input: &Input,
        source: Source,
        format: &'r dyn Format,
        imported: Imported,
        xacro: Option<crate::xacro::XacroInput>,
    ) -> Loaded<'r> {
        let mut validation = validate_with_spans(&imported.model, &imported.source_map);
        if let Some(x) = &xacro {
            x.relocate_report(&mut validation, &source.name);
        }
        // The spans point into the file the importer says, else the input.
        validation.file = Some(
            imported
                .source_map_file
                .clone()
                .unwrap_or_else(|| source.name.clone()),
        );
        Loaded {
            source,
            format,
            imported,
            validation,
            dir: input
                .path()
                .map(|path| path.parent().map(Path::to_path_buf).unwrap_or_default()),
            xacro,
        }
    }

    /// The input format: IR JSON when accepted and the text is IR JSON, else `from`, else by
    /// extension and content.
    fn input_format(
        &self,
        source: &Source,
        path: &Path,
        options: &ReadOptions,
    ) -> Result<&dyn Format, Error> {
        if options.accept_ir {
            let ir = self.registry.get("mbir")?;
            if ir.sniff(&source.text) {
                return Ok(ir);
            }
        }
        Ok(match &options.from {
            Some(name) => self.registry.get(name)?,
            None => self.registry.detect(path, Some(&source.text))?,
        })
    }

    /// Lowers and emits `model` with `format` for `output` (the writer sees the output's path:
    /// relative mesh names, companions beside it); nothing is written yet.
    ///
    /// # Errors
    /// A write setting is unknown or the writer refuses the model.
    pub fn emit(
        &self,
        model: &Model,
        format: &dyn Format,
        settings: &Settings,
        output: &Output,
    ) -> Result<Emitted, Error> {
        let mut settings = settings.clone();
        settings.output_path = output.path().map(Path::to_path_buf);
        let exported = self
            .registry
            .write(format, model, &settings)
            .map_err(Error::Format)?;
        let mut report = exported.report;
        report.file = Some(output.to_string());
        let dir = output.companion_dir();
        Ok(Emitted {
            output: output.clone(),
            text: exported.text,
            companions: exported
                .companions
                .into_iter()
                .map(|c| (dir.join(&c.file_name), c.text))
                .collect(),
            assets: exported
                .assets
                .into_iter()
                .map(|a| (dir.join(&a.file_name), a))
                .collect(),
            report,
            settings,
        })
    }

    /// Converts `input` to `output`: the target is `options.to`, else the output's extension;
    /// the output must not be the input nor (without `options.force`) exist; the input is
    /// read ([`Pipeline::read`]), admitted ([`Loaded::admit`], `options.strict` refusing a
    /// dubious model), emitted ([`Pipeline::emit`]), refused under `options.strict` if
    /// anything was dropped or approximated ([`Error::Lossy`], nothing written), and written
    /// ([`Emitted::write`]). `watch` sees each step as it ends, so that its findings can be
    /// shown before a later step fails.
    ///
    /// # Errors
    /// The first step that fails.
    pub fn convert(
        &self,
        input: &Input,
        output: &Output,
        options: &Options,
        watch: &mut dyn FnMut(Step<'_>),
    ) -> Result<Converted<'_>, Error> {
        let target = self.target(options.to.as_deref(), output)?;
        self.check_write_settings(target, &options.write)?;
        ensure_not_input(input, output)?;
        ensure_new(output, options.force)?;
        let read = ReadOptions {
            from: options.from.clone(),
            settings: options.read.clone(),
            accept_ir: options.accept_ir,
        };
        let loaded = self.read(input, &read)?;
        let admitted = loaded.admit(options.strict);
        watch(Step::Read {
            loaded: &loaded,
            refused: admitted.is_err(),
        });
        admitted?;
        let emitted = self.emit(&loaded.imported.model, target, &options.write, output)?;
        watch(Step::Emitted(&emitted));
        let import_report = loaded.import_report();
        let losses = import_report.has_loss() || emitted.report.has_loss();
        if options.strict && losses {
            let losses = import_report
                .findings
                .iter()
                .chain(&emitted.report.findings)
                .filter(|f| f.category.is_loss())
                .count();
            return Err(Error::Lossy { losses });
        }
        let files = emitted.write(Some(input), options.force)?;
        let mut report = loaded.report();
        report.pin_file();
        let mut export_report = emitted.report;
        export_report.pin_file();
        report.extend(export_report);
        report.file = None;
        Ok(Converted {
            loaded,
            target,
            output: emitted.output,
            settings: emitted.settings,
            files,
            report,
            losses,
        })
    }

    /// Checks by simulation the conversion [`Pipeline::convert`] made (`mbconv check --via`
    /// for its target, with its write settings), within [`AUTO_CHECK_WORK`] unless `forced`.
    pub fn check_conversion(&self, converted: &Converted, forced: bool) -> ConversionCheck {
        let mut settings = CheckSettings {
            to_file: converted.output.path().is_some(),
            work_budget: (!forced).then_some(AUTO_CHECK_WORK),
            ..CheckSettings::default()
        };
        let model = &converted.loaded.imported.model;
        settings.write_options.insert(
            converted.target.info().name.to_owned(),
            converted.settings.clone(),
        );
        let report = mbconv_check::check(
            model,
            &converted.loaded.source.name,
            &self.registry,
            &[converted.target],
            &settings,
        );
        match report.targets.into_iter().next() {
            Some(target) => ConversionCheck::Checked(Box::new(target)),
            None => ConversionCheck::Empty,
        }
    }

    /// The `mbconv view` page of a conversion: the original, and the conversion as a ghost
    /// over it, labelled `from -> output`.
    pub fn conversion_page(&self, converted: &Converted) -> crate::viewer::View {
        let mut page = converted.loaded.page();
        page.settings.to_file = converted.output.path().is_some();
        page.settings.write_options.insert(
            converted.target.info().name.to_owned(),
            converted.settings.clone(),
        );
        page.conversions.push(crate::viewer::via(
            &converted.loaded.imported.model,
            &self.registry,
            converted.target,
            &page.settings,
            None,
            crate::viewer::FRAME_RATE,
        ));
        page.conversions[0].label =
            format!("{} -> {}", converted.loaded.format.info().name, converted.output);
        page
    }

    /// The model files of directory `dir`, sorted, with their paths relative to `dir`; with
    /// `recursive`, the sub-directories' too. A model file is one a format reads by extension,
    /// or a robot description kept as `*.urdf.xacro` or `*.sdf.xacro` (a plain `*.xacro` is
    /// most often a library of macros that other files include). A ROS package's manifest,
    /// `package.xml` (root `<package>`), is not a model, though `.xml` is an MJCF extension.
    ///
    /// # Errors
    /// [`Error::Io`] when a directory cannot be listed.
    pub fn models_in(&self, dir: &Path, recursive: bool) -> Result<Vec<PathBuf>, Error> {
        let mut found = Vec::new();
        let mut pending = vec![PathBuf::new()];
        while let Some(relative) = pending.pop() {
            let here = dir.join(&relative);
            let entries = std::fs::read_dir(&here).map_err(|source| Error::Io {
                path: here.clone(),
                writing: false,
                source,
            })?;
            for entry in entries.flatten() {
                let name = relative.join(entry.file_name());
                let path = dir.join(&name);
                if path.is_dir() {
                    if recursive {
                        pending.push(name);
                    }
                } else if self.is_model_file(&path) {
                    found.push(name);
                }
            }
        }
        found.sort();
        Ok(found)
    }

    /// See [`Pipeline::models_in`].
    fn is_model_file(&self, path: &Path) -> bool {
        let by_extension = |p: &Path| self.registry.formats().any(|f| f.info().matches_extension(p));
        if crate::xacro::is_xacro(path) {
            let described = crate::xacro::detection_path(path);
            return described.extension().is_some() && by_extension(&described);
        }
        by_extension(path) && !is_package_manifest(path)
    }
}

/// True for a ROS package manifest: a file named `package.xml` whose root element is
/// `<package>` (a model file of that name is still read).
fn is_package_manifest(path: &Path) -> bool {
    let named = path
        .file_name()
        .is_some_and(|n| n.eq_ignore_ascii_case("package.xml"));
    named
        && std::fs::read_to_string(path).is_ok_and(|text| {
            mbconv_xml::roxmltree::Document::parse(&text)
                .is_ok_and(|d| d.root_element().has_tag_name("package"))
        })
}
