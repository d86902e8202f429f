//! `cargo xtask bench solver`: mbconv beside Pinocchio and MuJoCo, alternated rounds, with
//! ratios; `cargo xtask bench convert` ([`convert`]): conversion time and memory at scale;
//! `cargo xtask bench python` ([`python`]): the Python package beside the command.

pub mod convert;
pub mod python;
pub mod xacro;

use crate::{cargo, oracles, workspace_root};
use anyhow::{Context, Result, bail};
use std::collections::BTreeMap;
use std::process::Command;

const SIZES: [u32; 3] = [7, 30, 100];

/// Runs the criterion bench and the Python oracle timings alternately, `rounds` times, keeps
/// the best median of every measurement (the machine is shared: the minimum is the least
/// disturbed run) and prints the ratio table.
pub fn solver(rounds: usize) -> Result<()> {
    let python = oracles::setup()?;
    let shared_oracles = workspace_root().join("../shared/oracles");
    let mut ours = BTreeMap::new();
    let mut theirs = BTreeMap::new();
    for round in 1..=rounds.max(1) {
        eprintln!("round {round}/{rounds}: cargo bench -p mbconv-solver --bench chains");
        let out = Command::new(cargo())
            .args([
                "bench",
                "-p",
                "mbconv-solver",
                "--bench",
                "chains",
                "--",
                "--noplot",
            ])
            .current_dir(workspace_root())
            .output()
            .context("cannot run cargo bench")?;
        if !out.status.success() {
            bail!("cargo bench failed:\n{}", String::from_utf8_lossy(&out.stderr));
        }
        keep_best(&mut ours, parse_criterion(&String::from_utf8_lossy(&out.stdout)));
        eprintln!(
            "round {round}/{rounds}: {} oracles/solver/bench_oracles.py",
            python.display()
        );
        let out = Command::new(&python)
            .args([
                "oracles/solver/bench_oracles.py",
                &shared_oracles.to_string_lossy(),
            ])
            .current_dir(workspace_root())
            .output()
            .context("cannot run the oracle benchmark")?;
        if !out.status.success() {
            bail!(
                "oracle benchmark failed:\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        keep_best(&mut theirs, parse_plain(&String::from_utf8_lossy(&out.stdout)));
    }
    println!(
        "| links | mbconv ABA µs | Pinocchio aba µs | ratio | mbconv Euler step µs | MuJoCo mj_step µs | ratio | MuJoCo rollout step µs | ratio |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for n in SIZES {
        let get = |m: &BTreeMap<String, f64>, k: &str| m.get(&format!("{k}/{n}")).copied();
        let (aba, pin) = (get(&ours, "aba"), get(&theirs, "pinocchio_aba"));
        let (step, mj, roll) = (
            get(&ours, "euler_step"),
            get(&theirs, "mujoco_mj_step"),
            get(&theirs, "mujoco_rollout_step"),
        );
        println!(
            "| {n} | {} | {} | {} | {} | {} | {} | {} | {} |",
            fmt(aba),
            fmt(pin),
            ratio(aba, pin),
            fmt(step),
            fmt(mj),
            ratio(step, mj),
            fmt(roll),
            ratio(step, roll)
        );
    }
    Ok(())
}

fn keep_best(best: &mut BTreeMap<String, f64>, round: BTreeMap<String, f64>) {
    for (name, value) in round {
        best.entry(name)
            .and_modify(|b| *b = b.min(value))
            .or_insert(value);
    }
}

fn fmt(x: Option<f64>) -> String {
    x.map_or_else(|| "—".to_owned(), |x| format!("{x:.3}"))
}

fn ratio(a: Option<f64>, b: Option<f64>) -> String {
    match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => format!("{:.2}", a / b),
        _ => "—".to_owned(),
    }
}

/// Criterion lines `name   time:   [lo mid hi]` → `name -> mid` in microseconds.
fn parse_criterion(text: &str) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    let mut last_name = String::new();
    for line in text.lines() {
        let trimmed = line.trim();
        let (name, rest) = match trimmed.split_once("time:") {
            Some((name, rest)) => (name.trim(), rest),
            None => {
                if !trimmed.is_empty() && !trimmed.starts_with(['B', 'F', 'W', 'c', 'C', 'N', '(']) {
                    last_name = trimmed.to_owned();
                }
                continue;
            }
        };
        let name = if name.is_empty() {
            last_name.clone()
        } else {
            name.to_owned()
        };
        let parts: Vec<&str> = rest.trim().trim_matches(['[', ']']).split_whitespace().collect();
        if parts.len() >= 4
            && let Ok(value) = parts[2].parse::<f64>()
        {
            let scale = match parts[3] {
                "ns" => 1e-3,
                "µs" | "us" => 1.0,
                "ms" => 1e3,
                "s" => 1e6,
                _ => continue,
            };
            out.insert(name, value * scale);
        }
    }
    out
}

/// Lines `name/n value_us`.
fn parse_plain(text: &str) -> BTreeMap<String, f64> {
    text.lines()
        .filter_map(|l| {
            let mut it = l.split_whitespace();
            Some((it.next()?.to_owned(), it.next()?.parse().ok()?))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_criterion_output() {
        let text = "aba/7                   time:   [1.5000 µs 1.6000 µs 1.7000 µs]\n\
                    euler_step/100\n                        time:   [40.000 µs 41.000 µs 42.000 µs]\n\
                    aba/30 time: [900.00 ns 910.00 ns 920.00 ns]";
        let m = parse_criterion(text);
        assert_eq!(m.get("aba/7"), Some(&1.6));
        assert_eq!(m.get("euler_step/100"), Some(&41.0));
        assert!((m["aba/30"] - 0.91).abs() < 1e-12);
    }

    #[test]
    fn parses_oracle_lines() {
        let m = parse_plain("pinocchio_aba/7 2.500\nmujoco_mj_step/7 3.250\n");
        assert_eq!(m.get("pinocchio_aba/7"), Some(&2.5));
    }
}
