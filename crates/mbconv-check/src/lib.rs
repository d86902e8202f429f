//! `mbconv-check` proves a conversion by simulation: for each target format it lowers the
//! model, emits it, reads the emitted files back, simulates the original (A), the lowered (L)
//! and the read-back (B) model with the same settings, and compares each body's world centre
//! of mass and its rotation since t = 0 at every sample. The verdict is `exact` (A = B),
//! `explained` (A ≠ B but L = B: every difference comes from a loss the lowering reported),
//! `unexplained` (L ≠ B, or a difference no loss accounts for: a writer or reader bug) or
//! `failed` (a step errored). It also renders the results as a table or JSON, plots the body
//! that parted most as SVG, and generates the loss matrix from the formats' feature tables.
//!
//! It is not a format (it reads and writes only through a [`mbconv_ir::format::Registry`]),
//! not a simulator (it drives `mbconv-solver`), and not a command-line tool (the `mbconv
//! check` command and the check after `mbconv convert` live in `mbconv-cli`). See
//! `docs/check.md`.
//!
//! ```
//! use mbconv_check::{CheckSettings, check, render_table};
//! use mbconv_ir::{Body, Model};
//! use mbconv_ir::format::Registry;
//! let mut registry = Registry::new();
//! registry.register(Box::new(mbconv_ir::mbir::MbirFormat));
//! let mut model = Model::new("drop");
//! model.bodies.push(Body::new("ball"));
//! let settings = CheckSettings { duration: 0.1, ..CheckSettings::default() };
//! let report = check(&model, "drop", &registry, &[registry.get("mbir").unwrap()], &settings);
//! assert!(report.passed());
//! assert!(render_table(&report).contains("exact"));
//! ```

mod attribution;
mod check;
mod compare;
mod contact;
mod loss_matrix;
mod motion;
mod plot;
mod render;
pub mod rounding;
mod roundtrip;
mod verdict;

pub use attribution::Explanation;
pub use check::{
    ACCURATE_TOLERANCE, CheckReport, CheckSettings, DEFAULT_DURATION, DEFAULT_STEP, INTEGRATION_MARGIN,
    Original, STEP_BUDGET, TIGHTEST_TOLERANCE, WIDEST_POSITION_TOLERANCE, check, check_against, check_target,
    differing_laws, integration_can_part, simulate_original,
};
pub use compare::{BodyMatch, Difference, Tolerances};
pub use loss_matrix::{ProducedFindings, loss_matrix, read_models};
pub use motion::{DynamicsKey, LastBits, Motion, MotionMemo, SimulationSettings};
pub use plot::plot_svg;
pub use render::{NOTE_CHARS, render_json, render_table, render_table_full, summary_line, verdict_text};
pub use roundtrip::{RoundTrip, Step, StepError, round_trip};
pub use verdict::{FindingCounts, TargetCheck, Trace, Verdict};
