//! `mbconv-view` makes the `mbconv view` page: one self-contained HTML file that shows a model
//! and its conversions moving side by side, drawn with three.js in any browser, offline. It
//! gathers what the page shows (the model's bodies, shapes, meshes, joints and groups; the
//! motion from mbconv's solver; for each conversion, the check's verdict, the model read back
//! as a translucent ghost in the original's world, the per-body error over time and the
//! findings with the items they name), serialises it as the JSON contract of
//! `docs/view-data.md`, and wraps it with the front-end bundle built from `web/`.
//!
//! It is not the front-end (that is `web/src`, JavaScript, bundled by `build.rs` with npm and
//! esbuild; a build without Node.js has no bundle and [`render`] says how to get one), not a
//! simulator (it drives `mbconv-solver` through the check's [`Motion`]) and not the check
//! (verdicts come from `mbconv-check`). See `docs/view.md`.
//!
//! ```
//! use mbconv_ir::{Body, Model};
//! let mut model = Model::new("drop");
//! model.bodies.push(Body::new("ball"));
//! let view = mbconv_view::View::new(model, "drop.mbir.json", "mbir");
//! let data = mbconv_view::page_data(&view);
//! assert_eq!(data.original.bodies.len(), 1);
//! // 5 s: a frame every 34 steps of 1 ms (at most 30 per second), from t = 0, and the last.
//! assert_eq!(data.times.len(), 149);
//! if mbconv_view::bundle().is_some() {
//!     let html = mbconv_view::render(&view).unwrap();
//!     assert!(html.starts_with("<!DOCTYPE html>"));
//! }
//! ```

mod comparison;
pub mod data;
mod encode;
mod findings;
mod geometry;
mod html;
mod meshes;
mod scene;

pub use comparison::{Comparison, against, frame_stride, via};
pub use findings::Side;
pub use html::bundle;

use data::{ConversionData, ErrorData, ExplanationData, PageData, WorstData};
use encode::f32_base64;
use findings::{finding_data, item_paths};
use mbconv_check::{CheckSettings, Motion, SimulationSettings};
use mbconv_ir::{Finding, Model};
use meshes::MeshStore;
use std::path::PathBuf;

/// Frames per simulated second the page records, at most.
pub const FRAME_RATE: f64 = 30.0;

/// How long `mbconv view` simulates by default (s).
pub const DEFAULT_DURATION: f64 = 5.0;

/// Why a page could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ViewError {
    /// This build has no front-end bundle.
    #[error(
        "this mbconv was built without the page's front-end (web/), so `view` and `--view` are off: \
         install Node.js (18 or newer) with npm and rebuild (`cargo build --release`); the build runs \
         `npm ci` and esbuild in web/ (see docs/view.md)"
    )]
    NoBundle,
    /// The data could not be serialised.
    #[error("the page's data could not be written: {0}")]
    Data(#[from] serde_json::Error),
}

/// What a page shows: the original model and its motion, its reading findings, and the
/// conversions to draw over it.
#[derive(Clone, Debug)]
pub struct View {
    /// The page's title (the model's path).
    pub title: String,
    /// The original's format (registry name).
    pub source: String,
    /// The model as read.
    pub model: Model,
    /// The folder relative mesh references resolve against (the model file's).
    pub base_dir: Option<PathBuf>,
    /// What reading and validating the model found.
    pub findings: Vec<Finding>,
    /// How the model is simulated (the check's settings; duration [`DEFAULT_DURATION`]).
    pub settings: CheckSettings,
    /// Frames per simulated second, at most.
    pub frame_rate: f64,
    /// The conversions (see [`via`] and [`against`]).
    pub conversions: Vec<Comparison>,
}

impl View {
    /// A view of `model` alone, simulated for [`DEFAULT_DURATION`] with the check's other
    /// defaults.
    pub fn new(model: Model, title: &str, source: &str) -> Self {
        Self {
            title: title.to_owned(),
            source: source.to_owned(),
            model,
            base_dir: None,
            findings: Vec::new(),
            settings: CheckSettings {
                duration: DEFAULT_DURATION,
                ..CheckSettings::default()
            },
            frame_rate: FRAME_RATE,
            conversions: Vec::new(),
        }
    }
}

/// The page for `view` as HTML, or [`ViewError::NoBundle`] in a build without the front-end.
pub fn render(view: &View) -> Result<String, ViewError> {
    let bundle = bundle().ok_or(ViewError::NoBundle)?;
    let data = serde_json::to_string(&page_data(view))?;
    Ok(html::page(&view.title, &data, bundle))
}

/// What the page shows, as serialised into it (`docs/view-data.md`).
pub fn page_data(view: &View) -> PageData {
    let mut meshes = MeshStore::new(view.base_dir.as_deref());
    let mut notes = Vec::new();
    let simulation = comparison::page_simulation(&view.model, &view.settings, false);
    let motion = original_motion(&view.model, &simulation, view.frame_rate, &mut notes);
    let original = scene::scene(&view.model, &motion, &mut meshes);
    let original_items = item_paths(&view.model);
    let conversions = view
        .conversions
        .iter()
        .map(|c| conversion(c, &motion, &original_items, &mut meshes))
        .collect();
    notes.extend(meshes.notes());
    PageData {
        format: 1,
        title: view.title.clone(),
        source: view.source.clone(),
        times: motion.times.clone(),
        original,
        conversions,
        findings: view
            .findings
            .iter()
            .map(|f| finding_data(f, Side::Original, &original_items))
            .collect(),
        meshes: meshes.meshes,
        notes,
    }
}

/// The original's motion at the page's frames; with joint limits when it reaches one (as the
/// check does); the initial pose alone, with a note, when the solver cannot run it.
fn original_motion(
    model: &Model,
    simulation: &SimulationSettings,
    rate: f64,
    notes: &mut Vec<String>,
) -> Motion {
    let stride = frame_stride(simulation.dt, rate);
    let mut run = Motion::simulate_every(model, simulation, stride);
    if run.as_ref().is_ok_and(|m| !m.limits_reached.is_empty()) {
        let limited = SimulationSettings {
            joint_limits: true,
            ..simulation.clone()
        };
        run = Motion::simulate_every(model, &limited, stride);
    }
    match run {
        Ok(motion) => motion,
        Err(e) => {
            notes.push(format!(
                "mbconv's solver could not simulate the model ({e}): it is shown at rest"
            ));
            let at_rest = SimulationSettings {
                duration: 0.0,
                ..simulation.clone()
            };
            Motion::simulate_every(model, &at_rest, 1).unwrap_or_else(|_| resting(model))
        }
    }
}

/// `model` held at its bodies' poses: one sample, at t = 0.
fn resting(model: &Model) -> Motion {
    Motion {
        bodies: model.bodies.iter().map(|b| b.name.clone()).collect(),
        void: model.bodies.iter().map(Motion::is_void).collect(),
        mass: model.bodies.iter().map(|b| b.inertial.mass).collect(),
        welded: Motion::welded_assemblies(model),
        times: vec![0.0],
        com: vec![
            model
                .bodies
                .iter()
                .map(|b| b.pose.transform_point(&b.inertial.com))
                .collect(),
        ],
        rotation: vec![vec![nalgebra::UnitQuaternion::identity(); model.bodies.len()]],
        poses: vec![model.bodies.iter().map(|b| b.pose).collect()],
        limits_reached: Vec::new(),
        steps: 0,
    }
}

fn conversion(
    comparison: &Comparison,
    original: &Motion,
    original_items: &[String],
    meshes: &mut MeshStore,
) -> ConversionData {
    // A conversion that failed before it was read back, or could not be simulated, has no
    // ghost: an empty model at rest.
    let empty = Model::new("");
    let model = comparison.model.as_ref().unwrap_or(&empty);
    let still;
    let motion = match &comparison.motion {
        Some(motion) => motion,
        None => {
            still = resting(&empty);
            &still
        }
    };
    meshes.provide(&comparison.written_meshes);
    let scene = scene::scene(model, motion, meshes);
    let converted_items = item_paths(model);
    let pairs: Vec<Option<usize>> = match &comparison.matching {
        Some(m) => m.pairs.iter().map(|(_, j)| *j).collect(),
        None => vec![None; original.bodies.len()],
    };
    let frames = original.times.len().min(motion.times.len());
    let mut com = Vec::with_capacity(frames * pairs.len());
    let mut rotation = Vec::with_capacity(frames * pairs.len());
    for k in 0..frames {
        for (i, j) in pairs.iter().enumerate() {
            let Some(j) = *j else {
                com.push(f64::NAN);
                rotation.push(f64::NAN);
                continue;
            };
            let com_gap = (original.com[k][i] - motion.com[k][j]).norm();
            com.push(if original.void[i] { f64::NAN } else { com_gap });
            rotation.push(original.rotation[k][i].angle_to(&motion.rotation[k][j]));
        }
    }
    let worst_frame = comparison
        .worst_time
        .map(|t| nearest(&original.times, t))
        .unwrap_or(0);
    ConversionData {
        label: comparison.label.clone(),
        format: comparison.format.clone(),
        verdict: comparison.verdict.map(|v| v.name()),
        message: comparison.message.clone(),
        scene,
        matching: pairs,
        error: ErrorData {
            com: f32_base64(com),
            rotation: f32_base64(rotation),
        },
        worst: WorstData {
            frame: worst_frame,
            time: original.times.get(worst_frame).copied().unwrap_or(0.0),
            body: comparison
                .worst_body
                .as_deref()
                .and_then(|b| original.body_index(b)),
            com: comparison.worst_com,
        },
        findings: comparison
            .findings
            .iter()
            .map(|(f, side)| match side {
                Side::Original => finding_data(f, *side, original_items),
                Side::Conversion => finding_data(f, *side, &converted_items),
            })
            .collect(),
        explained_by: comparison
            .explained_by
            .iter()
            .map(|e| ExplanationData {
                pass: e.pass.clone(),
                code: e.code.clone(),
                path: e.path.clone(),
                com: e.max_com_error,
            })
            .collect(),
        not_compared: comparison.not_compared.clone(),
    }
}

/// The index of the time in `times` nearest `t`.
fn nearest(times: &[f64], t: f64) -> usize {
    (0..times.len())
        .min_by(|&a, &b| (times[a] - t).abs().total_cmp(&(times[b] - t).abs()))
        .unwrap_or(0)
}
