//! `cargo xtask`: project automation for mbconv.
//!
//! * `cargo xtask ci` — runs `.ci/run`, the one definition of CI: formatting check, clippy
//!   with warnings denied, the workspace tests (the README's test command) with the shared
//!   corpus required.
//! * `cargo xtask oracles` — a Python virtualenv under `target/oracle-venv` with the oracle
//!   packages from PyPI (dartpy, Pinocchio, MuJoCo), pinned.
//! * `cargo xtask oracles chrono` — build Project Chrono and its driver from
//!   `../shared/oracles/chrono` into `target/chrono-oracle` (once per machine, ~25 minutes).
//! * `cargo xtask oracles choreonoid` — build Choreonoid's Body library and its driver from
//!   `../shared/oracles/choreonoid` into `target/choreonoid-oracle` (once per machine).
//! * `cargo xtask golden [dart|solver|all]` — regenerate the golden data the tests read
//!   (DART loading SKEL files; Pinocchio ABA and DART trajectories for the solver).
//! * `cargo xtask golden mjcf` — MuJoCo's reading of every MJCF fixture and corpus model (mass,
//!   world COM and inertia, body poses) and its 1 s trajectories of the fixtures and a few
//!   small corpus models (`formats/mbconv-mjcf/tests/golden`).
//! * `cargo xtask golden urdf` — MuJoCo's, Pinocchio's, Drake's and DART's reading of every
//!   URDF fixture and corpus file (per body: mass, world COM, world link pose) and MuJoCo's
//!   1 s trajectories (`formats/mbconv-urdf/tests/golden/read`).
//! * `cargo xtask golden urdf-written` — MuJoCo, Pinocchio and Drake loading the URDF mbconv
//!   writes from every fixture and corpus model of the other formats, and MuJoCo's 1 s
//!   trajectory of each (`formats/mbconv-urdf/tests/golden/written`).
//! * `cargo xtask golden mjcf-written` — MuJoCo loading the MJCF mbconv writes from every
//!   fixture and corpus model of the other formats, and its trajectory of each
//!   (`formats/mbconv-mjcf/tests/golden/written_all`).
//! * `cargo xtask golden sdf-written` — Drake 1.51 loading the SDFormat mbconv writes from every
//!   fixture and corpus model of the other formats (or its refusal: loops), and its 1 s
//!   trajectory of each (`formats/mbconv-sdf/tests/golden/written_all`).
//! * `cargo xtask golden sdf` — Drake 1.51's reading of every SDFormat fixture and corpus model
//!   (per body: mass, world COM, world pose; Drake's refusals) and its 1 s trajectories of the
//!   fixtures and a few small corpus models (`formats/mbconv-sdf/tests/golden`); then DART
//!   6.20's reading of the SDFormat 1.4-1.6 ones (`formats/mbconv-sdf/tests/golden/dart`).
//! * `cargo xtask golden chrono` — Chrono's initial state of every Chrono model, and the
//!   cross-simulator trajectories (DART and Chrono on each model and its conversion).
//! * `cargo xtask golden chrono-contact` — contact between jointed bodies measured in Chrono:
//!   every SKEL corpus model with collision shapes on jointed bodies, written by default and
//!   with `keep-jointed-contact`, run with Chrono's contact solver against DART with its
//!   collision checking on (`crates/mbconv-cli/tests/golden/jointed_contact`).
//! * `cargo xtask golden choreonoid` — what Choreonoid's loader reads from every `.body`
//!   model of the corpus and `fixtures/body/`, and from mbconv's rewrites of them.
//! * `cargo xtask golden choreonoid-sim` — Choreonoid's own forward dynamics (its AIST
//!   simulator's semi-implicit Euler, no contact, 1 s at dt 1e-3) of every Body fixture, a
//!   contact-free corpus selection and every Chrono, SKEL and Shift fixture converted to Body
//!   (`formats/mbconv-body/tests/golden_sim`; see `xtask/src/choreonoid_sim.rs`).
//! * `cargo xtask corpus` — `mbconv check --all` on every model of `../shared/corpus/` and
//!   `fixtures/` (all cores), writing `docs/corpus-matrix.md`.
//! * `cargo xtask corpus simulators` — only the simulators' section of `docs/corpus-matrix.md`
//!   (from the golden data of `cargo xtask golden chrono`).
//! * `cargo xtask loss-matrix` — `docs/loss-matrix.md` from the formats' feature tables.
//! * `cargo xtask bench solver [--rounds N]` — mbconv's forward dynamics and semi-implicit
//!   Euler step beside Pinocchio's `aba` and MuJoCo's `mj_step` on 7/30/100-link chains,
//!   alternated N times (default 3), best median of each, with ratios.
//! * `cargo xtask bench convert` — `mbconv convert` (release, `--no-check`) on generated chains
//!   and trees of 1 000 to 100 000 bodies, every format to every format, with wall time and peak
//!   RSS; DART's `SkelParser.readWorld` on the same SKEL chains beside it.
//! * `cargo xtask bench view [--bodies N] [--rounds R]` — the `mbconv view` page of an N-body
//!   chain (default 1 000) simulated for 5 s, opened R times in headless Chromium: time from
//!   navigation to the first rendered frame.
//! * `cargo xtask view-screenshots` — the three screenshots of `docs/view.md` and the README.
//! * `cargo xtask fuzz [--seconds N]` — the cargo-fuzz targets of `fuzz/` (one per reader), each
//!   for N seconds, one after the other.

mod bench;
mod choreonoid;
mod choreonoid_sim;
mod chrono;
mod chrono_contact;
mod corpus;
mod fuzz;
mod open_problems;
mod oracles;
mod simulators;
mod urdf_golden;
mod view_pages;
mod written;

use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};
use std::process::Command;

const USAGE: &str = "usage: cargo xtask <task>

tasks:
  ci                       run .ci/run (fmt check, clippy -D warnings, tests, corpus required)
  oracles                  create target/oracle-venv with dartpy, pin, mujoco, drake
  oracles chrono           build Project Chrono and its driver into target/chrono-oracle
                           (about 25 minutes on 2 cores; cmake and libeigen3-dev needed)
  oracles choreonoid       build Choreonoid's Body library and its driver into
                           target/choreonoid-oracle (cmake, libzip-dev and a few -dev
                           packages needed, see xtask/src/choreonoid.rs)
  golden [dart|solver|all] regenerate golden data from the oracles (default: all = dart
                           and solver)
  golden mjcf              regenerate the MJCF golden data: MuJoCo's reading of every
                           MJCF fixture and corpus model, trajectories of the fixtures
                           and a few small corpus models
  golden urdf              regenerate the URDF reading golden data: MuJoCo, Pinocchio,
                           Drake and DART on every URDF fixture and corpus file, MuJoCo
                           trajectories
  golden urdf-written      regenerate the URDF writer's golden data: MuJoCo, Pinocchio
                           and Drake loading mbconv's URDF of every other model, and
                           MuJoCo's trajectories (MBCONV_ORACLE_PYTHON: the venv's python)
  golden mjcf-written      regenerate the MJCF writer's golden data: MuJoCo loading
                           mbconv's MJCF of every other model, and its trajectories
  golden sdf-written       regenerate the SDFormat writer's golden data: Drake loading
                           mbconv's SDFormat of every other model, and its trajectories
  golden X-written --stale only the models whose written text is not the one their golden
                           file judged (its hash), and golden files of models no longer
                           written removed; the others kept as they are
  golden sdf               regenerate the SDFormat golden data: Drake's reading of every
                           SDF fixture and corpus model, its trajectories of the fixtures
                           and a few small corpus models, DART's reading of the 1.4-1.6
                           ones (MBCONV_CORPUS: the corpus, MBCONV_ORACLE_PYTHON: the
                           venv's python)
  golden chrono            regenerate the Chrono golden data: Chrono's initial state of
                           every Chrono model, and DART/Chrono trajectories of every SKEL
                           and Chrono model and its conversion (needs oracles chrono)
  golden chrono-contact    measure contact between jointed bodies in Chrono: every SKEL
                           corpus model with collision shapes on jointed bodies, written
                           by default and with keep-jointed-contact, run with Chrono's
                           contact solver against DART with collisions on (needs oracles
                           chrono)
  golden choreonoid        regenerate the Body golden data: Choreonoid's reading of every
                           .body model and of mbconv's rewrite of it (needs oracles
                           choreonoid)
  golden choreonoid-sim    regenerate the Body dynamics golden data: Choreonoid's own
                           simulation (semi-implicit Euler, dt 1e-3, 1 s, no contact) of
                           every Body fixture, a corpus selection and every Chrono, SKEL
                           and Shift fixture converted to Body (needs oracles choreonoid)
  corpus                   mbconv check --all on every corpus model and fixture (all
                           cores); writes docs/corpus-matrix.md
  corpus simulators        rewrite only the simulators' section of docs/corpus-matrix.md
                           from the cross-simulator golden data
  loss-matrix              write docs/loss-matrix.md from the formats' feature tables
  bench solver [--rounds N] solver benchmarks beside Pinocchio and MuJoCo, alternated
                           N times (default 3), best median of each, with ratios
  bench convert [--sizes 1000,10000,100000] [--dart-sizes 1000,3000] [--dart-timeout S]
                           mbconv convert (release, --no-check) on generated chains and
                           trees, every format to every format: wall time and peak RSS;
                           DART readWorld on the same SKEL chains beside it
  bench view [--bodies N] [--rounds R]
                           the mbconv view page of an N-body chain (default 1000), 5 s,
                           opened R times (default 5) in headless Chromium: time to the
                           first rendered frame
  view-screenshots         docs/view-*.png: three models' pages in headless Chromium
  fuzz [--seconds N] [--targets chrono,skel,...]
                           cargo-fuzz on every reader (chrono, skel, body, shift, mbir, urdf),
                           N seconds each (default 60), one after the other; needs
                           cargo-fuzz (RUSTC_BOOTSTRAP=1 stands in for nightly)";

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match args.as_slice() {
        ["ci"] => ci(),
        ["oracles"] => oracles::setup().map(|_| ()),
        ["oracles", "chrono"] => chrono::build(),
        ["oracles", "choreonoid"] => choreonoid::build(),
        ["golden"] | ["golden", "all"] => oracles::golden_dart().and_then(|()| oracles::golden_solver()),
        ["golden", "dart"] => oracles::golden_dart(),
        ["golden", "solver"] => oracles::golden_solver(),
        ["golden", "mjcf"] => oracles::golden_mjcf(),
        ["golden", "urdf"] => urdf_golden::golden(),
        ["golden", "urdf-written"] => written::golden(&written::URDF, written::Judge::All),
        ["golden", "mjcf-written"] => written::golden(&written::MJCF, written::Judge::All),
        ["golden", "sdf-written"] => written::golden(&written::SDF, written::Judge::All),
        ["golden", "urdf-written", "--stale"] => written::golden(&written::URDF, written::Judge::Stale),
        ["golden", "mjcf-written", "--stale"] => written::golden(&written::MJCF, written::Judge::Stale),
        ["golden", "sdf-written", "--stale"] => written::golden(&written::SDF, written::Judge::Stale),
        ["golden", "sdf"] => oracles::golden_sdf(),
        ["golden", "chrono"] => chrono::golden(),
        ["golden", "chrono-contact"] => chrono_contact::golden(),
        ["golden", "choreonoid"] => choreonoid::golden(),
        ["golden", "choreonoid-sim"] => choreonoid_sim::golden(),
        ["corpus"] => corpus::run(),
        ["corpus", "simulators"] => simulators::rewrite_section(),
        ["loss-matrix"] => corpus::loss_matrix(),
        ["bench", "solver"] => bench::solver(3),
        ["bench", "solver", "--rounds", n] => bench::solver(n.parse()?),
        ["bench", "convert", rest @ ..] => bench::convert::convert(&bench::convert::parse_plan(rest)?),
        ["bench", "view", rest @ ..] => view_pages::bench(rest),
        ["view-screenshots"] => view_pages::screenshots(),
        ["fuzz", rest @ ..] => fuzz::run(&fuzz::parse_plan(rest)?),
        [] | ["help"] | ["--help"] => {
            eprintln!("{USAGE}");
            Ok(())
        }
        _ => bail!("unknown task {:?}\n\n{USAGE}", args.join(" ")),
    }
}

/// The workspace root (the parent of this crate's directory).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

/// Runs a command in the workspace root, failing on a non-zero exit.
pub fn run(program: impl AsRef<std::ffi::OsStr>, args: &[&str]) -> Result<()> {
    let program = program.as_ref();
    eprintln!("+ {} {}", program.to_string_lossy(), args.join(" "));
    let status = Command::new(program)
        .args(args)
        .current_dir(workspace_root())
        .status()
        .with_context(|| format!("cannot run {}", program.to_string_lossy()))?;
    if !status.success() {
        bail!(
            "{} {} failed ({status})",
            program.to_string_lossy(),
            args.join(" ")
        );
    }
    Ok(())
}

/// The cargo that runs this task.
pub fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned())
}

/// Runs `.ci/run`, so that CI has one definition.
fn ci() -> Result<()> {
    run("bash", &[".ci/run"])
}
