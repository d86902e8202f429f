//! `cargo xtask fuzz`: the cargo-fuzz targets of `fuzz/`, one after the other, each for a fixed
//! time, with the figures libFuzzer reports (executions, corpus size) and the crashes found.
//!
//! cargo-fuzz needs nightly compiler flags (`-Zsanitizer`); on a stable toolchain
//! `RUSTC_BOOTSTRAP=1` lets them through, and this task sets it.

use crate::{cargo, workspace_root};
use anyhow::{Context, Result, bail};
use std::path::Path;
use std::process::Command;

/// Every target, with the fixtures directory that seeds its corpus.
pub const TARGETS: [(&str, &str); 10] = [
    ("chrono", "fixtures/chrono"),
    ("skel", "fixtures/skel"),
    ("body", "fixtures/body"),
    ("shift", "fixtures/shift"),
    ("mbir", "fixtures/ir"),
    ("urdf", "fixtures/urdf"),
    ("mjcf", "fixtures/mjcf"),
    ("sdf", "fixtures/sdf"),
    ("usd", "fixtures/usd"),
    ("xacro", "fixtures/xacro"),
];

/// What to run.
pub struct Plan {
    /// Seconds per target.
    pub seconds: u64,
    /// Targets to run (default: all).
    pub targets: Vec<String>,
}

/// Parses `[--seconds N] [--targets a,b]`.
pub fn parse_plan(args: &[&str]) -> Result<Plan> {
    let mut plan = Plan {
        seconds: 60,
        targets: TARGETS.iter().map(|(t, _)| (*t).to_owned()).collect(),
    };
    let mut it = args.iter();
    while let Some(&flag) = it.next() {
        let value = it.next().with_context(|| format!("{flag} needs a value"))?;
        match flag {
            "--seconds" => plan.seconds = value.parse().with_context(|| format!("--seconds {value}"))?,
            "--targets" => {
                plan.targets = value.split(',').map(str::to_owned).collect();
                if let Some(bad) = plan.targets.iter().find(|t| !TARGETS.iter().any(|(n, _)| n == t)) {
                    let names: Vec<&str> = TARGETS.iter().map(|(n, _)| *n).collect();
                    bail!("no fuzz target {bad:?}; targets: {}", names.join(", "));
                }
            }
            _ => bail!("unknown option {flag} of fuzz"),
        }
    }
    Ok(plan)
}

/// What one run reported.
#[derive(Debug, Default, PartialEq)]
struct Figures {
    executions: Option<u64>,
    corpus_units: Option<u64>,
    crashed: bool,
}

/// Runs every target of the plan and prints one line of figures per target; fails when a
/// target crashed (its input is under `fuzz/artifacts/TARGET/`).
pub fn run(plan: &Plan) -> Result<()> {
    let root = workspace_root();
    let fuzz_dir = root.join("fuzz");
    let mut lines = Vec::new();
    let mut crashed = Vec::new();
    for target in &plan.targets {
        let seeds = TARGETS
            .iter()
            .find(|(t, _)| t == target)
            .map(|(_, s)| root.join(s))
            .context("unknown target")?;
        let corpus = fuzz_dir.join("corpus").join(target);
        std::fs::create_dir_all(&corpus)?;
        eprintln!("+ cargo fuzz run {target} ({} s)", plan.seconds);
        let out = Command::new(cargo())
            .env("RUSTC_BOOTSTRAP", "1")
            .current_dir(&fuzz_dir)
            .args(["fuzz", "run", target])
            .arg(&corpus)
            .arg(&seeds)
            .args([
                "--",
                &format!("-max_total_time={}", plan.seconds),
                "-timeout=10",
                "-rss_limit_mb=2048",
                "-print_final_stats=1",
            ])
            .output()
            .context("cannot run cargo fuzz (cargo install cargo-fuzz)")?;
        let log = String::from_utf8_lossy(&out.stderr);
        let log_file = fuzz_dir.join("artifacts").join(format!("{target}.log"));
        std::fs::create_dir_all(log_file.parent().unwrap_or(Path::new(".")))?;
        std::fs::write(&log_file, log.as_bytes())?;
        let mut figures = parse_figures(&log);
        figures.crashed |= !out.status.success();
        if figures.crashed {
            crashed.push(target.clone());
        }
        let files = std::fs::read_dir(&corpus).map(|d| d.count()).unwrap_or(0);
        lines.push(format!(
            "| {target} | {} | {} | {} | {files} | {} |",
            plan.seconds,
            figures.executions.map_or("—".to_owned(), |e| e.to_string()),
            figures.corpus_units.map_or("—".to_owned(), |e| e.to_string()),
            if figures.crashed { "yes (see the log)" } else { "0" }
        ));
        eprintln!("{}", lines.last().map_or("", String::as_str));
    }
    println!("| target | seconds | executions | corpus units (libFuzzer) | corpus files | crashes |");
    println!("|---|---|---|---|---|---|");
    for line in &lines {
        println!("{line}");
    }
    if !crashed.is_empty() {
        bail!(
            "crashes in {}: inputs under fuzz/artifacts/, logs in fuzz/artifacts/TARGET.log",
            crashed.join(", ")
        );
    }
    Ok(())
}

/// The figures of libFuzzer's final lines: `stat::number_of_executed_units: N`, the corpus
/// size of the last `corp: N/...` status line, and whether it reported a crash.
fn parse_figures(log: &str) -> Figures {
    let mut figures = Figures::default();
    for line in log.lines() {
        if let Some(n) = line.strip_prefix("stat::number_of_executed_units:") {
            figures.executions = n.trim().parse().ok();
        }
        if let Some((_, rest)) = line.split_once(" corp: ")
            && let Some(n) = rest.split('/').next()
        {
            figures.corpus_units = n.trim().parse().ok().or(figures.corpus_units);
        }
        if line.contains("ERROR: libFuzzer")
            || line.contains("ERROR: AddressSanitizer")
            || line.contains("panicked at")
        {
            figures.crashed = true;
        }
    }
    figures
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_libfuzzer_figures() {
        let log = "#2\tINITED cov: 10 ft: 11 corp: 3/120b exec/s: 0 rss: 40Mb\n\
                   #4096\tpulse  cov: 50 ft: 90 corp: 42/3Kb lim: 40 exec/s: 2048 rss: 60Mb\n\
                   Done 5000 runs in 2 second(s)\n\
                   stat::number_of_executed_units: 5000\n";
        assert_eq!(
            parse_figures(log),
            Figures {
                executions: Some(5000),
                corpus_units: Some(42),
                crashed: false
            }
        );
        assert!(parse_figures("==1== ERROR: libFuzzer: deadly signal\n").crashed);
    }

    #[test]
    fn refuses_unknown_targets() {
        let refused = parse_plan(&["--targets", "gltf"]).err().map(|e| e.to_string());
        assert!(
            refused.is_some_and(|e| e.contains("usd")),
            "the message lists the targets"
        );
        let plan = parse_plan(&["--seconds", "5", "--targets", "skel"]).unwrap_or_else(|_| Plan {
            seconds: 0,
            targets: Vec::new(),
        });
        assert_eq!((plan.seconds, plan.targets.len()), (5, 1));
    }
}
