//! Many files at once, on every core: a [`Batch`] plans where each input goes (every model
//! file of a folder, its sub-folders' with `recursive`, kept as sub-folders of the output
//! folder) and runs a piece of work on each in parallel (rayon's pool: one thread per core),
//! handing back the results in input order. `mbconv convert IN... --to F -o DIR` and the
//! Python package's `convert_many` are built on it; [`Batch::convert`] is the plain
//! conversion of every file, with its check.
//!
//! ```
//! # fn main() -> Result<(), mbconv::Error> {
//! use mbconv::batch::{Batch, CheckMode};
//! let dir = tempfile::tempdir().unwrap();
//! let models = dir.path().join("models");
//! std::fs::create_dir(&models).unwrap();
//! mbconv::write(&mbconv::demo::pendulum(), models.join("a.mbir.json"))?;
//! mbconv::write(&mbconv::demo::pendulum(), models.join("b.mbir.json"))?;
//! let pipeline = mbconv::Pipeline::new();
//! let skel = pipeline.registry().get("skel")?;
//! let out = dir.path().join("out");
//! let batch = Batch::plan(&pipeline, &[models], &out, skel, false)?;
//! assert_eq!(batch.jobs[1].output, out.join("b.skel"));
//! let ok = batch.convert(&pipeline, &mbconv::Options::default(), CheckMode::None, &|_, _, r| r.is_ok());
//! assert_eq!(ok, [true, true]);
//! assert!(out.join("a.skel").exists());
//! # Ok(())
//! # }
//! ```

use crate::files::{Input, Output, default_output};
use crate::pipeline::{ConversionCheck, Converted, Pipeline, Step};
use crate::{Error, Format, Options, TargetCheck};
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Why a batch cannot be planned, or one of its files not be started.
#[derive(Debug, thiserror::Error)]
pub enum BatchError {
    /// Standard input was named among the inputs.
    #[error("standard input (`-`) cannot be part of a batch")]
    Stdin,
    /// A folder holds no file a format of this build reads (by extension).
    #[error(
        "{} is a directory with no model file that a format of this build reads{}",
        dir.display(),
        if *recursive { "" } else { " (--recursive descends into sub-directories)" }
    )]
    NoModels {
        /// The folder.
        dir: PathBuf,
        /// Whether its sub-folders were searched.
        recursive: bool,
    },
    /// A folder could not be listed.
    #[error("cannot read the directory {}: {source}", path.display())]
    Listing {
        /// The folder.
        path: PathBuf,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
    /// Two inputs would be written to the same file: the later one is not converted.
    #[error("{} would be written to {} as {} is: rename one", input.display(), output.display(), first.display())]
    Clash {
        /// The later input.
        input: PathBuf,
        /// The file both would write.
        output: PathBuf,
        /// The input that writes it.
        first: PathBuf,
    },
    /// The folder of an output could not be made.
    #[error("cannot create the directory of {}: {source}", output.display())]
    OutputFolder {
        /// The output.
        output: PathBuf,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
}

/// One file of a batch: where it is read from and written to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    /// The input file.
    pub input: PathBuf,
    /// Its output: the input's stem with the target's extension, in the output folder (in the
    /// sub-folder it was found in, for a file found in a folder).
    pub output: PathBuf,
    /// The earlier input that writes the same output, if any: this one is then refused.
    pub clash: Option<PathBuf>,
}

impl Job {
    /// Makes the folder of the output, or says why this file cannot be converted (its output
    /// clashes with an earlier file's, or its folder cannot be made).
    ///
    /// # Errors
    /// [`BatchError::Clash`] or [`BatchError::OutputFolder`].
    pub fn prepare(&self) -> Result<(), BatchError> {
        if let Some(first) = &self.clash {
            return Err(BatchError::Clash {
                input: self.input.clone(),
                output: self.output.clone(),
                first: first.clone(),
            });
        }
        match self.output.parent() {
            Some(folder) => std::fs::create_dir_all(folder).map_err(|source| BatchError::OutputFolder {
                output: self.output.clone(),
                source,
            }),
            None => Ok(()),
        }
    }
}

impl Job {
    /// Converts this job's file ([`Job::prepare`], then [`Pipeline::convert`] with `options`,
    /// whose `to` names the target, then the check `check` asks for): one file of
    /// [`Batch::convert`]. `watch` sees each step of the conversion as it ends, so that a
    /// caller can tell an error of the reading from one of the writing.
    ///
    /// ```
    /// # fn main() -> Result<(), mbconv::Error> {
    /// use mbconv::batch::{CheckMode, Job};
    /// let dir = tempfile::tempdir().unwrap();
    /// let input = dir.path().join("a.mbir.json");
    /// mbconv::write(&mbconv::demo::pendulum(), &input)?;
    /// let job = Job { input, output: dir.path().join("out/a.skel"), clash: None };
    /// let options = mbconv::Options { to: Some("skel".into()), ..mbconv::Options::default() };
    /// let (pipeline, mut steps) = (mbconv::Pipeline::new(), 0);
    /// let done = job.convert(&pipeline, &options, CheckMode::None, &mut |_| steps += 1)?;
    /// assert_eq!((steps, done.converted.files.len()), (2, 1));
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    /// The first step that fails (see [`Job::prepare`] and [`Pipeline::convert`]).
    pub fn convert<'r>(
        &self,
        pipeline: &'r Pipeline,
        options: &Options,
        check: CheckMode,
        watch: &mut dyn FnMut(Step<'_>),
    ) -> Converting<'r> {
        self.prepare()?;
        let input = Input::File(self.input.clone());
        let output = Output::File(self.output.clone());
        let converted = pipeline.convert(&input, &output, options, watch)?;
        let check = match check {
            CheckMode::None => None,
            mode => match pipeline.check_conversion(&converted, mode == CheckMode::Full) {
                ConversionCheck::Checked(target) => Some(target),
                ConversionCheck::Empty => None,
            },
        };
        Ok(BatchConverted { converted, check })
    }
}

/// Whether and how [`Batch::convert`] checks each conversion by simulation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckMode {
    /// No check (`--no-check`).
    None,
    /// Within the work budget of the automatic check (`mbconv convert`'s default).
    Budgeted,
    /// Fully (`--check`).
    Full,
}

/// One file [`Batch::convert`] converted: what the pipeline did, and the check.
pub struct BatchConverted<'r> {
    /// The conversion.
    pub converted: Converted<'r>,
    /// Its check, when one ran and had something to compare.
    pub check: Option<Box<TargetCheck>>,
}

/// What [`Batch::convert`] did with one file: converted, or why not.
pub type Converting<'r> = Result<BatchConverted<'r>, Error>;

/// The files of a batch, planned (see the module's documentation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Batch {
    /// The target format (registry name).
    pub to: String,
    /// The files in a stable order: the order of the inputs, a folder's files sorted.
    pub jobs: Vec<Job>,
}

impl Batch {
    /// Plans the conversion of `inputs` to `format` into `out_dir`: a file goes to
    /// `out_dir/<stem>.<ext>`, a folder's model files (those a format reads by extension; with
    /// `recursive`, in its sub-folders too) to the same relative place under `out_dir`. Two
    /// inputs that would write the same file are planned, the later with its
    /// [`Job::clash`]. Nothing is read or written.
    ///
    /// # Errors
    /// Standard input among the inputs, a folder that cannot be listed or holds no model.
    pub fn plan(
        pipeline: &Pipeline,
        inputs: &[PathBuf],
        out_dir: &Path,
        format: &dyn Format,
        recursive: bool,
    ) -> Result<Self, BatchError> {
        let mut planned: Vec<(PathBuf, PathBuf)> = Vec::new();
        for input in inputs {
            if Input::from_arg(input) == Input::Stdin {
                return Err(BatchError::Stdin);
            }
            if input.is_dir() {
                let models = pipeline.models_in(input, recursive).map_err(|e| match e {
                    Error::Io { path, source, .. } => BatchError::Listing { path, source },
                    other => BatchError::Listing {
                        path: input.clone(),
                        source: std::io::Error::other(other.to_string()),
                    },
                })?;
                if models.is_empty() {
                    return Err(BatchError::NoModels {
                        dir: input.clone(),
                        recursive,
                    });
                }
                for relative in models {
                    let output = out_dir.join(default_output(&relative, format));
                    planned.push((input.join(relative), output));
                }
            } else {
                let name = input.file_name().map(PathBuf::from).unwrap_or_default();
                planned.push((input.clone(), out_dir.join(default_output(&name, format))));
            }
        }
        let mut jobs: Vec<Job> = Vec::with_capacity(planned.len());
        for (input, output) in planned {
            let clash = jobs
                .iter()
                .find(|j| j.output == output && j.clash.is_none())
                .map(|j| j.input.clone());
            jobs.push(Job { input, output, clash });
        }
        Ok(Self {
            to: format.info().name.to_owned(),
            jobs,
        })
    }

    /// Runs `work` on every job in parallel, one thread per core, hands each result to `done`
    /// as its job ends (on the worker thread, with the job and the number of jobs ended so
    /// far, this one included) and returns what `done` returns, in the jobs' order. `done` is where a caller
    /// counts progress and turns a result into what it keeps.
    ///
    /// ```
    /// use mbconv::batch::{Batch, Job};
    /// let job = |name: &str| Job { input: name.into(), output: "out".into(), clash: None };
    /// let batch = Batch { to: "urdf".into(), jobs: vec![job("a.skel"), job("bc.skel")] };
    /// let lengths = batch.run(|job| job.input.as_os_str().len(), &|_, _, n| n * 10);
    /// assert_eq!(lengths, [60, 70]);
    /// ```
    pub fn run<T, U: Send>(
        &self,
        work: impl Fn(&Job) -> T + Sync,
        done: &(dyn Fn(&Job, usize, T) -> U + Sync),
    ) -> Vec<U> {
        let count = AtomicUsize::new(0);
        self.jobs
            .par_iter()
            .map(|job| {
                let result = work(job);
                done(job, count.fetch_add(1, Ordering::Relaxed) + 1, result)
            })
            .collect()
    }

    /// Converts every job's file through [`Pipeline::convert`] with `options` (`to` replaced by
    /// the batch's target; `from`, `force`, `strict` and the settings apply to each file), then
    /// checks each conversion as `check` says, on every core ([`Batch::run`]: `done` gets each
    /// file's result as it ends and returns what is kept). One file that fails does not stop
    /// the others: its result holds why.
    pub fn convert<'r, U: Send>(
        &self,
        pipeline: &'r Pipeline,
        options: &Options,
        check: CheckMode,
        done: &(dyn Fn(&Job, usize, Converting<'r>) -> U + Sync),
    ) -> Vec<U> {
        let options = Options {
            to: Some(self.to.clone()),
            ..options.clone()
        };
        self.run(|job| job.convert(pipeline, &options, check, &mut |_| {}), done)
    }
}
