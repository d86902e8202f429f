//! `cargo xtask bench python`: converting a generated 10 000-link chain from Python
//! (`mbconv.convert`, the package built in release mode) beside the `mbconv` command (release)
//! on the same file, rounds alternated, best of each: wall time and peak resident memory, with
//! the ratio the issue sets (Python no more than 1.2x the command), and the memory the
//! interpreter holds before converting, so that what the conversion adds can be compared (the
//! package holds the model once, in Rust).

use super::convert::{Shape, skel_model};
use crate::{cargo, run, workspace_root};
use anyhow::{Context, Result, bail};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// What one run of a command cost.
#[derive(Clone, Copy, Debug)]
struct Cost {
    /// Wall time of the whole process (s).
    seconds: f64,
    /// Peak resident set (MiB).
    peak_mib: f64,
    /// For Python, the time of the `mbconv.convert` call alone (s).
    call: Option<f64>,
}

/// Runs `program args` under `/usr/bin/time` (peak RSS) and times it; the Python runs print
/// the time of the call alone on standard output.
fn measure(program: &Path, args: &[&str], scratch: &Path) -> Result<Cost> {
    let rusage = scratch.join("rusage.txt");
    let start = Instant::now();
    let output = Command::new("/usr/bin/time")
        .args(["-f", "%M", "-o"])
        .arg(&rusage)
        .arg(program)
        .args(args)
        .output()
        .context("cannot run /usr/bin/time (the `time` package)")?;
    let seconds = start.elapsed().as_secs_f64();
    if !output.status.success() {
        bail!(
            "{} {args:?} failed:\n{}",
            program.display(),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let text = std::fs::read_to_string(&rusage)?;
    let kib: f64 = text
        .lines()
        .last()
        .and_then(|l| l.trim().parse().ok())
        .with_context(|| format!("unexpected /usr/bin/time output {text:?}"))?;
    let call = String::from_utf8_lossy(&output.stdout).trim().parse().ok();
    Ok(Cost {
        seconds,
        peak_mib: kib / 1024.0,
        call,
    })
}

/// The lower of each field over `runs`.
fn best(runs: &[Cost]) -> Cost {
    let min = |f: &dyn Fn(&Cost) -> f64| runs.iter().map(f).fold(f64::INFINITY, f64::min);
    Cost {
        seconds: min(&|c| c.seconds),
        peak_mib: min(&|c| c.peak_mib),
        call: runs.iter().filter_map(|c| c.call).reduce(f64::min),
    }
}

/// A virtual environment under the target directory with numpy and the package built in
/// release mode from `python/` (rebuilt every run: cargo decides what to rebuild).
fn venv(root: &Path) -> Result<PathBuf> {
    let venv = root.join("target/bench-python/venv");
    let python = venv.join("bin/python");
    if !python.exists() {
        run("python3", &["-m", "venv", &venv.to_string_lossy()])?;
        run(&python, &["-m", "pip", "install", "--quiet", "numpy>=1.21"])?;
    }
    let package = root.join("python");
    run(
        &python,
        &[
            "-m",
            "pip",
            "install",
            "--quiet",
            "--force-reinstall",
            "--no-deps",
            &package.to_string_lossy(),
        ],
    )?;
    Ok(python)
}

/// Builds the command and the package (release), generates the chain, and prints the table
/// for `docs/performance.md`.
pub fn bench(args: &[&str]) -> Result<()> {
    let (links, rounds) = match args {
        [] => (10_000, 3),
        ["--links", n] => (n.parse()?, 3),
        ["--links", n, "--rounds", r] => (n.parse()?, r.parse()?),
        _ => bail!("expected [--links N [--rounds R]]"),
    };
    let root = workspace_root();
    run(cargo(), &["build", "--release", "-p", "mbconv-cli"])?;
    let mbconv = root.join("target/release/mbconv");
    let python = venv(&root)?;
    let dir = root.join("target/bench-python/work");
    std::fs::create_dir_all(&dir)?;
    let skel = dir.join(format!("chain-{links}.skel"));
    std::fs::write(&skel, skel_model(Shape::Chain, links))?;
    let skel_text = skel.to_string_lossy().into_owned();
    let mut table = String::new();
    let _ = writeln!(
        table,
        "The {links}-link SKEL chain of `cargo xtask bench convert` converted without a check, best of {rounds} alternated rounds: \
         the command (`mbconv convert IN --to F -o OUT --no-check --quiet`, release) and Python \
         (`python -c \"import mbconv; mbconv.convert(IN, OUT, to=F, check=False)\"`, the package built by pip in release \
         mode; the `read + write` rows: `model = mbconv.read(IN); model.write(OUT)`, the model held in Python while it is written): \
         wall seconds of the whole process, the Python call(s) alone, and peak RSS, each also over what the process \
         holds before it reads (the command: `mbconv --version`; Python: the interpreter with `mbconv` and numpy imported).\n"
    );
    let _ = writeln!(
        table,
        "| to | command s | Python process s | Python call s | call / command | command MiB | Python MiB | command MiB over its start | Python MiB over its import |"
    );
    let _ = writeln!(table, "|---|---|---|---|---|---|---|---|---|");
    // The interpreter with the package (and numpy) imported, converting nothing; the command
    // doing nothing.
    let idle: Vec<Cost> = (0..rounds)
        .map(|_| measure(&python, &["-c", "import mbconv, numpy"], &dir))
        .collect::<Result<_>>()?;
    let idle = best(&idle);
    let cli_idle: Vec<Cost> = (0..rounds)
        .map(|_| measure(&mbconv, &["--version"], &dir))
        .collect::<Result<_>>()?;
    let cli_idle = best(&cli_idle);
    // Not MJCF: the MJCF writer refuses a tree nested deeper than MuJoCo reads (496 bodies).
    let rows = [
        ("mbir", false),
        ("urdf", false),
        ("sdf", false),
        ("chrono", false),
        ("usd", false),
        ("mbir", true),
        ("urdf", true),
    ];
    for (to, held) in rows {
        let (mut cli, mut py) = (Vec::new(), Vec::new());
        for round in 0..rounds {
            let out = dir.join(format!("cli-{to}-{round}.out"));
            let out_text = out.to_string_lossy().into_owned();
            cli.push(measure(
                &mbconv,
                &[
                    "convert",
                    &skel_text,
                    "--to",
                    to,
                    "-o",
                    &out_text,
                    "--no-check",
                    "--quiet",
                    "--force",
                ],
                &dir,
            )?);
            let out = dir.join(format!("py-{to}-{round}.out"));
            let call = if held {
                format!(
                    "model = mbconv.read({skel_text:?})\nmodel.write({:?}, format={to:?})",
                    out.to_string_lossy()
                )
            } else {
                format!(
                    "mbconv.convert({skel_text:?}, {:?}, to={to:?}, check=False, force=True)",
                    out.to_string_lossy()
                )
            };
            let script = format!(
                "import time, warnings, mbconv\nwarnings.simplefilter('ignore')\nt = time.perf_counter()\n\
                 {call}\nprint(time.perf_counter() - t)\n"
            );
            py.push(measure(&python, &["-c", &script], &dir)?);
        }
        let (cli, py) = (best(&cli), best(&py));
        let call = py.call.unwrap_or(py.seconds);
        let label = if held {
            format!("{to} (read + write)")
        } else {
            to.to_owned()
        };
        eprintln!(
            "{links} links to {label}: command {:.3} s {:.0} MiB, Python {:.3} s (call {call:.3} s) {:.0} MiB",
            cli.seconds, cli.peak_mib, py.seconds, py.peak_mib
        );
        let _ = writeln!(
            table,
            "| {label} | {:.3} | {:.3} | {call:.3} | {:.2}x | {:.0} | {:.0} | {:.0} | {:.0} |",
            cli.seconds,
            py.seconds,
            call / cli.seconds,
            cli.peak_mib,
            py.peak_mib,
            cli.peak_mib - cli_idle.peak_mib,
            py.peak_mib - idle.peak_mib
        );
    }
    let _ = writeln!(
        table,
        "\nThe interpreter with `mbconv` and numpy imported: {:.3} s, {:.0} MiB; `mbconv --version`: {:.3} s, {:.0} MiB.",
        idle.seconds, idle.peak_mib, cli_idle.seconds, cli_idle.peak_mib
    );
    std::fs::remove_dir_all(&dir)?;
    println!("{table}");
    Ok(())
}
