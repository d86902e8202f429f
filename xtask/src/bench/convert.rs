//! `cargo xtask bench convert`: `mbconv convert` on generated serial chains and trees of
//! 1 000 to 100 000 bodies, every source format to every target format, with wall time and peak
//! resident memory; DART's `SkelParser.readWorld` on the same SKEL chains beside it.

use crate::{cargo, oracles, run, workspace_root};
use anyhow::{Context, Result, bail};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What to measure.
pub struct Plan {
    /// Body counts of the generated models.
    pub sizes: Vec<usize>,
    /// Chain lengths DART reads (it is slow: quadratic in the links).
    pub dart_sizes: Vec<usize>,
    /// DART runs longer than this are stopped and reported as "> timeout".
    pub dart_timeout: Duration,
}

impl Default for Plan {
    fn default() -> Self {
        Self {
            sizes: vec![1_000, 10_000, 100_000],
            dart_sizes: vec![1_000, 3_000],
            dart_timeout: Duration::from_secs(120),
        }
    }
}

/// The shape of a generated model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Body `i` hangs from body `i - 1` (the first from the world).
    Chain,
    /// Body `i` hangs from body `(i - 1) / 2`: a balanced binary tree.
    Tree,
}

impl Shape {
    fn name(self) -> &'static str {
        match self {
            Shape::Chain => "chain",
            Shape::Tree => "tree",
        }
    }
    /// The parent of body `i` (`None`: the world).
    fn parent(self, i: usize) -> Option<usize> {
        match (self, i) {
            (_, 0) => None,
            (Shape::Chain, i) => Some(i - 1),
            (Shape::Tree, i) => Some((i - 1) / 2),
        }
    }
}

/// A SKEL world with one skeleton of `n` bodies of 1 kg, 0.2 m apart, linked by revolute
/// joints alternating about y and z, in the given shape.
pub fn skel_model(shape: Shape, n: usize) -> String {
    let mut s = String::with_capacity(n * 700);
    s.push_str("<?xml version=\"1.0\"?>\n<skel version=\"1.0\">\n  <world name=\"bench\">\n");
    s.push_str("    <physics>\n      <time_step>0.001</time_step>\n      <gravity>0 0 -9.81</gravity>\n    </physics>\n");
    let _ = writeln!(s, "    <skeleton name=\"{}_{n}\">", shape.name());
    let mut depth = vec![0usize; n];
    for i in 0..n {
        let parent = shape.parent(i);
        depth[i] = parent.map_or(1, |p| depth[p] + 1);
        // Bodies of one tree level spread along y so that no two coincide.
        let (x, y) = (0.2 * depth[i] as f64, 0.001 * i as f64);
        let _ = write!(
            s,
            "      <body name=\"link{i}\">\n        <transformation>{x} {y} 0 0 0 0</transformation>\n        \
             <inertia>\n          <mass>1</mass>\n          <offset>0.1 0 0</offset>\n          \
             <moment_of_inertia><ixx>0.001</ixx><iyy>0.004</iyy><izz>0.004</izz><ixy>0</ixy><ixz>0</ixz><iyz>0</iyz></moment_of_inertia>\n        \
             </inertia>\n      </body>\n"
        );
        let parent_name = parent.map_or_else(|| "world".to_owned(), |p| format!("link{p}"));
        let axis = if i % 2 == 0 { "0 1 0" } else { "0 0 1" };
        let _ = write!(
            s,
            "      <joint type=\"revolute\" name=\"joint{i}\">\n        <parent>{parent_name}</parent>\n        \
             <child>link{i}</child>\n        <axis><xyz>{axis}</xyz></axis>\n      </joint>\n"
        );
    }
    s.push_str("    </skeleton>\n  </world>\n</skel>\n");
    s
}

/// One timed run.
#[derive(Clone, Copy, Debug)]
struct Measure {
    seconds: f64,
    peak_mib: f64,
}

/// Builds the release binary, generates the models, times every direction and prints the
/// Markdown tables for `docs/performance.md`.
pub fn convert(plan: &Plan) -> Result<()> {
    run(cargo(), &["build", "--release", "-p", "mbconv-cli"])?;
    let root = workspace_root();
    let mbconv = root.join("target/release/mbconv");
    let dir = work_dir();
    if dir.exists() {
        std::fs::remove_dir_all(&dir).with_context(|| format!("cannot clear {}", dir.display()))?;
    }
    let registry = mbconv::formats();
    // Every format this build writes, with the extension its files get.
    let formats: Vec<(&str, &str)> = registry
        .formats()
        .map(|f| (f.info().name, f.info().extensions[0]))
        .collect();
    let mut table = String::new();
    let _ = writeln!(
        table,
        "Each cell: wall seconds / peak RSS MiB of `mbconv convert SOURCE --to TARGET -o OUT --no-check --quiet` (release).\n"
    );
    let header: Vec<&str> = formats.iter().map(|(name, _)| *name).collect();
    let _ = writeln!(table, "| model | bodies | from \\ to | {} |", header.join(" | "));
    let _ = writeln!(table, "|---|---|---|{}", "---|".repeat(formats.len()));
    let mut worst: Vec<(Shape, usize, Measure, Measure)> = Vec::new();
    for shape in [Shape::Chain, Shape::Tree] {
        for &n in &plan.sizes {
            let stem = format!("{}-{n}", shape.name());
            let src_dir = dir.join(&stem).join("sources");
            let out_dir = dir.join(&stem).join("out");
            std::fs::create_dir_all(&src_dir)?;
            std::fs::create_dir_all(&out_dir)?;
            let skel = src_dir.join(format!("{stem}.skel"));
            std::fs::write(&skel, skel_model(shape, n))?;
            // One file per format, converted from the generated SKEL (not timed).
            let mut sources = Vec::new();
            for &(name, ext) in &formats {
                let path = src_dir.join(format!("{stem}.{ext}"));
                if name != "skel" {
                    convert_once(&mbconv, &skel, name, &path)
                        .with_context(|| format!("cannot make the {name} source of {stem}"))?;
                }
                sources.push((name, path));
            }
            let (mut slowest, mut largest) = (
                Measure {
                    seconds: 0.0,
                    peak_mib: 0.0,
                },
                Measure {
                    seconds: 0.0,
                    peak_mib: 0.0,
                },
            );
            for (from, source) in &sources {
                let mut cells = Vec::new();
                for &(to, ext) in &formats {
                    let out = out_dir.join(format!("{stem}.from-{from}.{ext}"));
                    let m = convert_once(&mbconv, source, to, &out)
                        .with_context(|| format!("{stem}: {from} -> {to} failed"))?;
                    eprintln!(
                        "{stem}: {from} -> {to}: {:.3} s, {:.0} MiB",
                        m.seconds, m.peak_mib
                    );
                    if m.seconds > slowest.seconds {
                        slowest = m;
                    }
                    if m.peak_mib > largest.peak_mib {
                        largest = m;
                    }
                    cells.push(format!("{:.2} / {:.0}", m.seconds, m.peak_mib));
                }
                let _ = writeln!(
                    table,
                    "| {} | {n} | {from} | {} |",
                    shape.name(),
                    cells.join(" | ")
                );
            }
            worst.push((shape, n, slowest, largest));
            // Keep the disk use bounded: the 100 000-body files are large.
            std::fs::remove_dir_all(dir.join(&stem))?;
        }
    }
    let _ = writeln!(
        table,
        "\nWorst direction per model, and growth against the model 10x smaller:\n"
    );
    let _ = writeln!(
        table,
        "| model | bodies | slowest s | time growth | largest peak MiB |"
    );
    let _ = writeln!(table, "|---|---|---|---|---|");
    for (i, (shape, n, slowest, largest)) in worst.iter().enumerate() {
        let growth = worst[..i]
            .iter()
            .find(|(s, m, _, _)| s == shape && m * 10 == *n)
            .map_or_else(
                || "—".to_owned(),
                |(_, _, w, _)| format!("{:.1}x", slowest.seconds / w.seconds),
            );
        let _ = writeln!(
            table,
            "| {} | {n} | {:.2} | {growth} | {:.0} |",
            shape.name(),
            slowest.seconds,
            largest.peak_mib
        );
    }
    table.push_str(&dart_table(plan, &mbconv, &dir)?);
    println!("{table}");
    Ok(())
}

/// DART's `readWorld` on SKEL chains beside `mbconv convert` of the same file to IR JSON.
fn dart_table(plan: &Plan, mbconv: &Path, dir: &Path) -> Result<String> {
    let python = oracles::setup()?;
    let script = workspace_root().join("oracles/dart/read_skel_timed.py");
    let mut table = String::new();
    let _ = writeln!(
        table,
        "\nSKEL chains read by DART 6.20 (`SkelParser.readWorld`, the call alone) and converted by mbconv (whole process), timeout {} s:\n",
        plan.dart_timeout.as_secs()
    );
    let _ = writeln!(table, "| links | DART readWorld s | mbconv skel -> mbir s |");
    let _ = writeln!(table, "|---|---|---|");
    let dart_dir = dir.join("dart");
    std::fs::create_dir_all(&dart_dir)?;
    for &n in &plan.dart_sizes {
        let skel = dart_dir.join(format!("chain-{n}.skel"));
        std::fs::write(&skel, skel_model(Shape::Chain, n))?;
        let ours = convert_once(
            mbconv,
            &skel,
            "mbir",
            &dart_dir.join(format!("chain-{n}.mbir.json")),
        )?;
        let mut child = Command::new(&python)
            .arg(&script)
            .arg(&skel)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .context("cannot run the DART reader")?;
        let start = Instant::now();
        let dart = loop {
            if let Some(status) = child.try_wait()? {
                let out = child.wait_with_output()?;
                if !status.success() {
                    bail!(
                        "DART failed on {}: {}",
                        skel.display(),
                        String::from_utf8_lossy(&out.stderr)
                    );
                }
                let text = String::from_utf8_lossy(&out.stdout);
                let seconds: f64 = text
                    .split_whitespace()
                    .next()
                    .and_then(|s| s.parse().ok())
                    .with_context(|| format!("unexpected DART output {text:?}"))?;
                break format!("{seconds:.2}");
            }
            if start.elapsed() > plan.dart_timeout {
                child.kill()?;
                child.wait()?;
                break format!("> {}", plan.dart_timeout.as_secs());
            }
            std::thread::sleep(Duration::from_millis(100));
        };
        eprintln!("DART chain {n}: {dart} s");
        let _ = writeln!(table, "| {n} | {dart} | {:.2} |", ours.seconds);
    }
    Ok(table)
}

/// Runs `mbconv convert SOURCE --to FORMAT -o OUT --no-check --quiet` under `/usr/bin/time`,
/// which reports the child's peak resident set; the wall time is measured here.
fn convert_once(mbconv: &Path, source: &Path, to: &str, out: &Path) -> Result<Measure> {
    let rusage = out.with_extension("time");
    let start = Instant::now();
    let output = Command::new("/usr/bin/time")
        .args(["-f", "%M", "-o"])
        .arg(&rusage)
        .arg(mbconv)
        .arg("convert")
        .arg(source)
        .args(["--to", to, "-o"])
        .arg(out)
        .args(["--no-check", "--quiet"])
        .output()
        .context("cannot run /usr/bin/time (the `time` package)")?;
    let seconds = start.elapsed().as_secs_f64();
    if !output.status.success() {
        bail!(
            "mbconv convert {} --to {to} failed:\n{}",
            source.display(),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let text = std::fs::read_to_string(&rusage)?;
    let kib: f64 = text
        .lines()
        .last()
        .and_then(|l| l.trim().parse().ok())
        .with_context(|| format!("unexpected /usr/bin/time output {text:?}"))?;
    std::fs::remove_file(&rusage)?;
    Ok(Measure {
        seconds,
        peak_mib: kib / 1024.0,
    })
}

/// Parses `[--sizes 1000,10000] [--dart-sizes 1000,3000] [--dart-timeout SECONDS]`.
pub fn parse_plan(args: &[&str]) -> Result<Plan> {
    let mut plan = Plan::default();
    let mut it = args.iter();
    while let Some(&flag) = it.next() {
        let value = it.next().with_context(|| format!("{flag} needs a value"))?;
        let list = || -> Result<Vec<usize>> {
            value
                .split(',')
                .map(|v| v.parse().with_context(|| format!("{flag}: {v:?} is not a count")))
                .collect()
        };
        match flag {
            "--sizes" => plan.sizes = list()?,
            "--dart-sizes" => plan.dart_sizes = list()?,
            "--dart-timeout" => plan.dart_timeout = Duration::from_secs(value.parse()?),
            _ => bail!("unknown option {flag} of bench convert"),
        }
    }
    Ok(plan)
}

/// Where the generated models go (under the target directory, never in the repository).
fn work_dir() -> PathBuf {
    workspace_root().join("target/bench-convert")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_link_every_body_once() {
        assert_eq!(Shape::Chain.parent(5), Some(4));
        assert_eq!(Shape::Tree.parent(5), Some(2));
        assert_eq!(Shape::Tree.parent(0), None);
        let text = skel_model(Shape::Tree, 7);
        assert_eq!(text.matches("<body ").count(), 7);
        assert_eq!(text.matches("<parent>link2</parent>").count(), 2);
        assert_eq!(text.matches("<parent>world</parent>").count(), 1);
    }

    #[test]
    fn parses_the_plan() {
        let plan = parse_plan(&["--sizes", "10,100", "--dart-timeout", "5"]).unwrap_or_default();
        assert_eq!(plan.sizes, vec![10, 100]);
        assert_eq!(plan.dart_timeout, Duration::from_secs(5));
        assert!(parse_plan(&["--sizes", "ten"]).is_err());
    }
}
