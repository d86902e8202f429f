//! Test helpers shared by mbconv's crates (a dev-dependency only; nothing here ships), one
//! module per purpose:
//!
//! * [`corpus`](mod@corpus): where the test data is (the workspace, the `fixtures/` folders,
//!   the shared corpus) and skipping or failing when the corpus is missing
//!   (`MBCONV_REQUIRE_CORPUS=1`).
//! * [`read_golden`]: the harness of the readers' golden tests (what a simulator read from
//!   every fixture and corpus model, `cargo xtask golden X`).
//! * [`written_golden`]: the harness of the writers' tests judged by simulators (the golden
//!   files of `cargo xtask golden X-written`, the texts' hashes, trajectory comparisons).
//! * [`simulator_verdicts`]: the cross-simulator golden cases (`cargo xtask golden chrono`) and
//!   how a case's verdict is reached, for the tests and `xtask`.
//! * [`lowered_back`]: the model those simulators judge a conversion against, the original
//!   lowered for the target and written back in its own format (golden-data plumbing).
//! * [`browser`]: a small WebDriver client that drives headless Chromium.
//! * [`view_page`]: opening an `mbconv view` page in that browser and waiting until it is ready.
//!
//! It is **not** a fixture generator or an assertion library. The corpus helpers and
//! [`text_hash`] are also at the crate root, where most tests call them.
//!
//! ```no_run
//! let Some(dir) = mbconv_test_support::corpus("skel") else { return };
//! assert!(dir.join("chain.skel").is_file());
//! ```

pub mod browser;
pub mod corpus;
pub mod lowered_back;
pub mod read_golden;
pub mod simulator_verdicts;
pub mod view_page;
pub mod written_golden;

pub use corpus::{
    FIXTURES_NOT_MODELS, JUDGED_FIXTURE_DIRS, REQUIRE_CORPUS, corpus, corpus_file, corpus_required,
    corpus_root, downloaded, files_with_extension, fixtures_root, line_column, missing,
    read_attributes_not_separated, read_lenient, workspace_root,
};
pub use written_golden::text_hash;
