//! `cargo xtask`: project automation for mbconv.
//!
//! The tasks are the rows of [`TASKS`]: each row's words select it, its text is what
//! `cargo xtask help` prints, and its function runs it, so the list of tasks is written once.
//! `cargo xtask ci` runs `.ci/run`, the one definition of CI; the others set up the oracles,
//! regenerate golden data, write the generated documents and run the benchmarks and fuzzers.

mod bench;
mod choreonoid;
mod choreonoid_sim;
mod chrono;
mod chrono_contact;
mod corpus;
mod downloads;
mod field;
mod fuzz;
mod open_problems;
mod oracles;
mod peers;
mod peers_usd;
mod simulators;
mod urdf_golden;
mod view_pages;
mod written;
mod xacro_golden;

use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};
use std::process::Command;

/// One task: the words that select it, its arguments and description as `help` prints them,
/// and the function that runs it with the arguments after its words.
struct Task {
    words: &'static [&'static str],
    args: &'static str,
    about: &'static str,
    run: fn(&[&str]) -> Result<()>,
}

/// Every task, in the order `help` lists them. A command runs the task whose words are the
/// longest prefix of it.
const TASKS: &[Task] = &[
    Task {
        words: &["ci"],
        args: "",
        about: "run .ci/run, the one definition of CI (fmt check, clippy -D warnings, the \
                workspace tests with the shared corpus required)",
        run: |rest| none(rest).and_then(|()| ci()),
    },
    Task {
        words: &["download"],
        args: "[NAME ...]",
        about: "fetch the corpus a registry serves (xacro's source distribution, \
                example-robot-data's and newton's wheels from PyPI, pinned by version and \
                SHA-256) into target/downloads, the ones named or all; CI fetches xacro (the \
                tests skip its cases without it), cargo xtask field uses example-robot-data, \
                the USD reader's corpus tests newton's stages",
        run: downloads::download,
    },
    Task {
        words: &["oracles"],
        args: "",
        about: "create target/oracle-venv with the oracle packages from PyPI, pinned \
                (dartpy, pin, mujoco, drake)",
        run: |rest| none(rest).and_then(|()| oracles::setup().map(|_| ())),
    },
    Task {
        words: &["oracles", "chrono"],
        args: "",
        about: "build Project Chrono and its driver from ../shared/oracles/chrono into \
                target/chrono-oracle (about 25 minutes on 2 cores; cmake and libeigen3-dev \
                needed)",
        run: |rest| none(rest).and_then(|()| chrono::build()),
    },
    Task {
        words: &["oracles", "choreonoid"],
        args: "",
        about: "build Choreonoid's Body library and its driver from \
                ../shared/oracles/choreonoid into target/choreonoid-oracle (cmake, libzip-dev \
                and a few -dev packages needed, see xtask/src/choreonoid.rs)",
        run: |rest| none(rest).and_then(|()| choreonoid::build()),
    },
    Task {
        words: &["golden"],
        args: "[dart|solver|all]",
        about: "regenerate golden data from the oracles: DART loading SKEL files, Pinocchio \
                ABA and DART trajectories for the solver (default: all = dart and solver)",
        run: |rest| match rest {
            [] | ["all"] => oracles::golden_dart().and_then(|()| oracles::golden_solver()),
            ["dart"] => oracles::golden_dart(),
            ["solver"] => oracles::golden_solver(),
            _ => unexpected(rest),
        },
    },
    Task {
        words: &["golden", "mjcf"],
        args: "",
        about: "regenerate the MJCF golden data: MuJoCo's reading of every MJCF fixture and \
                corpus model (mass, world COM and inertia, body poses), its 1 s trajectories \
                of the fixtures and a few small corpus models (formats/mbconv-mjcf/tests/golden)",
        run: |rest| none(rest).and_then(|()| oracles::golden_mjcf()),
    },
    Task {
        words: &["golden", "urdf"],
        args: "",
        about: "regenerate the URDF reading golden data: MuJoCo, Pinocchio, Drake and DART on \
                every URDF fixture and corpus file (per body: mass, world COM, world link \
                pose), MuJoCo's 1 s trajectories (formats/mbconv-urdf/tests/golden/read)",
        run: |rest| none(rest).and_then(|()| urdf_golden::golden()),
    },
    Task {
        words: &["golden", "xacro"],
        args: "",
        about: "regenerate the xacro golden data: the reference xacro 2.1.1 (PyPI, in \
                target/xacro-venv or MBCONV_XACRO_PYTHON) expanding every corpus row and \
                fixture (crates/mbconv-xacro/tests/golden)",
        run: |rest| none(rest).and_then(|()| xacro_golden::golden()),
    },
    Task {
        words: &["golden", "urdf-written"],
        args: "[--stale]",
        about: "regenerate the URDF writer's golden data: MuJoCo, Pinocchio and Drake loading \
                mbconv's URDF of every other model, and MuJoCo's trajectories \
                (formats/mbconv-urdf/tests/golden/written; MBCONV_ORACLE_PYTHON: the venv's \
                python); --stale: see below",
        run: |rest| written::golden(&written::URDF, stale(rest)?),
    },
    Task {
        words: &["golden", "mjcf-written"],
        args: "[--stale]",
        about: "regenerate the MJCF writer's golden data: MuJoCo loading mbconv's MJCF of \
                every other model, and its trajectories \
                (formats/mbconv-mjcf/tests/golden/written_all)",
        run: |rest| written::golden(&written::MJCF, stale(rest)?),
    },
    Task {
        words: &["golden", "sdf-written"],
        args: "[--stale]",
        about: "regenerate the SDFormat writer's golden data: Drake 1.51 loading mbconv's \
                SDFormat of every other model (or its refusal: loops), and its trajectories \
                (formats/mbconv-sdf/tests/golden/written_all). With --stale, any of the three \
                X-written tasks judges only the models whose written text is not the one \
                their golden file judged (its hash) and removes golden files of models no \
                longer written; the others are kept as they are",
        run: |rest| written::golden(&written::SDF, stale(rest)?),
    },
    Task {
        words: &["golden", "usd"],
        args: "",
        about: "regenerate the USD reader's golden data: OpenUSD's parse \
                (UsdPhysics.LoadUsdPhysicsFromRange, usd-core in target/oracles/usd) of every \
                stage of fixtures/usd and of the USD corpus (the newton wheel's stages, \
                fetched by cargo xtask download) (formats/mbconv-usd/tests/golden), and of the \
                peers' USD target/peers-usd holds; then Newton's 1 s trajectory of every USD \
                fixture and corpus stage (golden usd-newton-read)",
        run: |rest| none(rest).and_then(|()| oracles::golden_usd()),
    },
    Task {
        words: &["golden", "usd-newton-read"],
        args: "",
        about: "regenerate the USD reader's Newton golden data only: Newton 1.8 \
                (target/oracles/newton) loading every stage of fixtures/usd and of the USD \
                corpus, and its 1 s Featherstone trajectory on the CPU \
                (formats/mbconv-usd/tests/golden/newton_read)",
        run: |rest| none(rest).and_then(|()| oracles::golden_usd_newton_read()),
    },
    Task {
        words: &["golden", "usd-newton"],
        args: "[--stale]",
        about: "regenerate the USD writer's golden data: Newton 1.8 (target/oracles/newton) \
                loading mbconv's USD of every fixture of the other formats and of the corpus's \
                Choreonoid, Chrono, MJCF, DART and URDF models, and its 1 s Featherstone trajectories on the CPU \
                (formats/mbconv-usd/tests/golden/newton)",
        run: |rest| written::golden(&written::USD, stale(rest)?),
    },
    Task {
        words: &["golden", "usd-written"],
        args: "[--stale]",
        about: "the same as golden usd-newton (the name the writers' tests give it)",
        run: |rest| written::golden(&written::USD, stale(rest)?),
    },
    Task {
        words: &["golden", "sdf"],
        args: "",
        about: "regenerate the SDFormat golden data: Drake 1.51's reading of every SDF \
                fixture and corpus model (per body: mass, world COM, world pose; Drake's \
                refusals), its trajectories of the fixtures and a few small corpus models \
                (formats/mbconv-sdf/tests/golden), DART 6.20's reading of the 1.4-1.6 ones \
                (MBCONV_CORPUS: the corpus, MBCONV_ORACLE_PYTHON: the venv's python)",
        run: |rest| none(rest).and_then(|()| oracles::golden_sdf()),
    },
    Task {
        words: &["golden", "chrono"],
        args: "",
        about: "regenerate the Chrono golden data: Chrono's initial state of every Chrono \
                model, and DART/Chrono trajectories of every SKEL and Chrono model and its \
                conversion (needs oracles chrono)",
        run: |rest| none(rest).and_then(|()| chrono::golden()),
    },
    Task {
        words: &["golden", "chrono-contact"],
        args: "",
        about: "measure contact between jointed bodies in Chrono: every SKEL corpus model \
                with collision shapes on jointed bodies, written by default and with \
                keep-jointed-contact, run with Chrono's contact solver against DART with \
                collisions on (front/mbconv-cli/tests/golden/jointed_contact; needs oracles \
                chrono)",
        run: |rest| none(rest).and_then(|()| chrono_contact::golden()),
    },
    Task {
        words: &["golden", "choreonoid"],
        args: "",
        about: "regenerate the Body golden data: Choreonoid's reading of every .body model of \
                the corpus and fixtures/body/ and of mbconv's rewrite of it (needs oracles \
                choreonoid)",
        run: |rest| none(rest).and_then(|()| choreonoid::golden()),
    },
    Task {
        words: &["golden", "choreonoid-sim"],
        args: "",
        about: "regenerate the Body dynamics golden data: Choreonoid's own simulation (its \
                AIST simulator's semi-implicit Euler, dt 1e-3, 1 s, no contact) of every Body \
                fixture, a contact-free corpus selection and every Chrono, SKEL and Shift \
                fixture converted to Body (formats/mbconv-body/tests/golden_sim; needs oracles \
                choreonoid)",
        run: |rest| none(rest).and_then(|()| choreonoid_sim::golden()),
    },
    Task {
        words: &["corpus"],
        args: "",
        about: "mbconv check --all on every model of ../shared/corpus/ and fixtures/ (all \
                cores); writes docs/corpus-matrix.md",
        run: |rest| none(rest).and_then(|()| corpus::run()),
    },
    Task {
        words: &["corpus", "simulators"],
        args: "",
        about: "rewrite only the simulators' section of docs/corpus-matrix.md from the \
                cross-simulator golden data (of golden chrono)",
        run: |rest| none(rest).and_then(|()| simulators::rewrite_section()),
    },
    Task {
        words: &["field"],
        args: "[--via F,..] [--timeout S] [--jobs N] [--menagerie D] [--only T] [--document]",
        about: "every robot of example-robot-data (the download, or --erd DIR) and MuJoCo \
                Menagerie (the corpus's, and --menagerie DIR) read by mbconv against \
                Pinocchio / MuJoCo at load, checked via each writer (default: all; each run \
                stopped after S s, default 60), its MJCF, URDF and SDF loaded in MuJoCo, \
                Pinocchio and Drake; writes docs/field.md (target/field/field.md with \
                --only; --document: only the document again, from the last run's target/field)",
        run: |rest| field::parse_plan(rest).and_then(|plan| field::run_field(&plan)),
    },
    Task {
        words: &["peers"],
        args: "[--timeout S] [--jobs N] [--erd DIR] [--only TEXT] [--document]",
        about: "every URDF of example-robot-data converted to MJCF by MuJoCo's own URDF import \
                and by mbconv, simulated in MuJoCo, and to SDFormat by libsdformat (gz sdf -p, \
                with and without <gazebo>) and by mbconv, simulated in Drake, each against \
                Pinocchio's ground truth (root welded, 1 s from a bent pose, contact off); \
                writes docs/peers.md (target/peers/peers.md with --only; --document: only \
                the document again, from the last run's target/peers)",
        run: |rest| field::parse_plan(rest).and_then(|plan| peers::run_peers(&plan)),
    },
    Task {
        words: &["peers-usd"],
        args: "[--document]",
        about: "every URDF and MJCF robot of the corpus converted to USD by NVIDIA's \
                converters (urdf-usd-converter, mujoco-usd-converter; venv \
                target/oracles/usd-peers) and by mbconv, each loaded in Newton and simulated \
                against Pinocchio / MuJoCo (1 s from the zero pose, contact, limits and drives \
                off); writes docs/peers-usd.md (--document: only the document again, from the \
                last run's target/peers-usd)",
        run: peers_usd::run,
    },
    Task {
        words: &["loss-matrix"],
        args: "",
        about: "write docs/loss-matrix.md from the formats' feature tables",
        run: |rest| none(rest).and_then(|()| corpus::loss_matrix()),
    },
    Task {
        words: &["bench", "solver"],
        args: "[--rounds N]",
        about: "mbconv's forward dynamics and semi-implicit Euler step beside Pinocchio's aba \
                and MuJoCo's mj_step on 7/30/100-link chains, alternated N times (default 3), \
                best median of each, with ratios",
        run: |rest| match rest {
            [] => bench::solver(3),
            ["--rounds", n] => bench::solver(n.parse()?),
            _ => unexpected(rest),
        },
    },
    Task {
        words: &["bench", "convert"],
        args: "[--sizes 1000,10000,100000] [--dart-sizes 1000,3000] [--dart-timeout S]",
        about: "mbconv convert (release, --no-check) on generated chains and trees, every \
                format to every format: wall time and peak RSS; DART's SkelParser.readWorld on \
                the same SKEL chains beside it",
        run: |rest| bench::convert::convert(&bench::convert::parse_plan(rest)?),
    },
    Task {
        words: &["bench", "xacro"],
        args: "[--rounds N]",
        about: "expanding the PR2 (xacro 2.1.1's test inputs) and, with MBCONV_XACRO_FIELD, the \
                UR and Franka descriptions: mbconv-xacro (release) beside the reference xacro \
                2.1.1, median of N (default 20) in-process expansions each",
        run: |rest| match rest {
            [] => bench::xacro::bench(20),
            ["--rounds", n] => bench::xacro::bench(n.parse()?),
            _ => unexpected(rest),
        },
    },
    Task {
        words: &["bench", "python"],
        args: "[--links N [--rounds R]]",
        about: "the N-link chain (default 10 000) converted from Python (mbconv.convert, the \
                package built in release mode) beside the mbconv command, R alternated rounds \
                (default 3): wall time, the call alone, peak RSS, ratio",
        run: bench::python::bench,
    },
    Task {
        words: &["bench", "view"],
        args: "[--bodies N] [--rounds R]",
        about: "the mbconv view page of an N-body chain (default 1000) simulated for 5 s, \
                opened R times (default 5) in headless Chromium: time from navigation to the \
                first rendered frame",
        run: view_pages::bench,
    },
    Task {
        words: &["view-screenshots"],
        args: "",
        about: "docs/view-*.png, the three screenshots of docs/view.md and the README: three \
                models' pages in headless Chromium",
        run: |rest| none(rest).and_then(|()| view_pages::screenshots()),
    },
    Task {
        words: &["fuzz"],
        args: "[--seconds N] [--targets chrono,skel,...]",
        about: "the cargo-fuzz targets of fuzz/ (one per reader), N seconds each (default 60), \
                one after the other; needs cargo-fuzz (RUSTC_BOOTSTRAP=1 stands in for nightly)",
        run: |rest| fuzz::run(&fuzz::parse_plan(rest)?),
    },
];

/// Where a task's description starts in `help`.
const ABOUT_COLUMN: usize = 27;
/// The width `help` wraps descriptions to.
const WIDTH: usize = 92;

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    if matches!(args.as_slice(), [] | ["help"] | ["--help"]) {
        eprintln!("{}", usage());
        return Ok(());
    }
    match task_of(&args) {
        Some((task, rest)) => (task.run)(rest),
        None => unknown(&args),
    }
}

/// The task a command names (the one whose words are its longest prefix) and the arguments
/// after those words.
fn task_of<'a, 'b>(args: &'b [&'a str]) -> Option<(&'static Task, &'b [&'a str])> {
    TASKS
        .iter()
        .filter(|task| args.starts_with(task.words))
        .max_by_key(|task| task.words.len())
        .map(|task| (task, &args[task.words.len()..]))
}

/// The text of `cargo xtask help`, made from [`TASKS`].
fn usage() -> String {
    let mut text = String::from("usage: cargo xtask <task>\n\ntasks:");
    for task in TASKS {
        let mut name = format!("  {}", task.words.join(" "));
        if !task.args.is_empty() {
            name = format!("{name} {}", task.args);
        }
        let mut line = if name.len() < ABOUT_COLUMN {
            format!("{name:<ABOUT_COLUMN$}")
        } else {
            text.push('\n');
            text.push_str(&name);
            " ".repeat(ABOUT_COLUMN)
        };
        for word in task.about.split_whitespace() {
            if line.len() + word.len() > WIDTH && !line.trim_start().is_empty() {
                text.push('\n');
                text.push_str(line.trim_end());
                line = " ".repeat(ABOUT_COLUMN);
            }
            line.push_str(word);
            line.push(' ');
        }
        text.push('\n');
        text.push_str(line.trim_end());
    }
    text
}

/// Fails with the command and the usage text.
fn unknown<T>(args: &[&str]) -> Result<T> {
    bail!("unknown task {:?}\n\n{}", args.join(" "), usage())
}

/// Refuses arguments after a task that takes none.
fn none(rest: &[&str]) -> Result<()> {
    if rest.is_empty() { Ok(()) } else { unexpected(rest) }
}

/// Fails with arguments a task does not take and the usage text.
fn unexpected<T>(rest: &[&str]) -> Result<T> {
    bail!("unexpected arguments {:?}\n\n{}", rest.join(" "), usage())
}

/// Whether an X-written task judges every model or only the stale ones.
fn stale(rest: &[&str]) -> Result<written::Judge> {
    match rest {
        [] => Ok(written::Judge::All),
        ["--stale"] => Ok(written::Judge::Stale),
        _ => unexpected(rest),
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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn every_command_selects_its_own_task() {
        for task in TASKS {
            let (found, rest) = task_of(task.words).unwrap();
            assert_eq!(found.words, task.words);
            assert!(rest.is_empty());
        }
        let (found, rest) = task_of(&["golden", "mjcf-written", "--stale"]).unwrap();
        assert_eq!(
            (found.words, rest),
            (&["golden", "mjcf-written"][..], &["--stale"][..])
        );
        assert!(task_of(&["nothing"]).is_none());
    }

    #[test]
    fn help_lists_every_task_within_its_width() {
        let text = usage();
        for task in TASKS {
            assert!(text.contains(&format!("\n  {}", task.words.join(" "))));
        }
        assert!(text.lines().all(|line| line.len() <= WIDTH), "{text}");
    }
}
