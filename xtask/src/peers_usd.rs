//! `cargo xtask peers-usd`: mbconv's USD beside NVIDIA's converters (`urdf-usd-converter`,
//! `mujoco-usd-converter`) on the URDF and MJCF robots of the corpus, each USD simulated in
//! Newton against the source's own simulator; `docs/peers-usd.md` is written from what
//! happened.
//!
//! Every URDF of `../shared/corpus/urdf` and MJCF of `../shared/corpus/mjcf` that mbconv's
//! registry claims is converted to USD by mbconv's library (default settings, as `mbconv
//! convert X --to usd`) and by the peer converter of its format (in the venv
//! `target/oracles/usd-peers`, `oracles/peers/requirements-usd.txt`: the converters ship their own
//! `pxr`), each timed; `oracles/peers/peers_usd.py` (in the Newton venv,
//! `oracles/newton/requirements.txt`) simulates the truth and each USD and says which keep the
//! motion (see the script). The outputs stay in `target/peers-usd/<robot>/` (the peers' are
//! the held-out set of `formats/mbconv-usd/tests/peers_read.rs`).

use crate::workspace_root;
use anyhow::{Context, Result};
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// The converters compared, as the results name them, with the document's words.
const CONVERTERS: [(&str, &str); 2] = [
    (
        "peer",
        "NVIDIA's converter (urdf-usd-converter 0.3.4 / mujoco-usd-converter 0.8.0)",
    ),
    ("mbconv", "mbconv -> USD"),
];

/// Runs the comparison (or, with `--document`, only writes the document again).
pub fn run(rest: &[&str]) -> Result<()> {
    let out = workspace_root().join("target/peers-usd");
    match rest {
        [] => {}
        ["--document"] => return write_document(&out),
        _ => anyhow::bail!("peers-usd takes no argument but --document"),
    }
    let corpus = mbconv_test_support::corpus_root();
    anyhow::ensure!(corpus.is_dir(), "{} is missing", corpus.display());
    let peers = crate::oracles::venv("usd-peers", "oracles/peers/requirements-usd.txt")?;
    let newton = crate::oracles::newton_python()?;
    let bin = peers.parent().map(Path::to_path_buf).unwrap_or_default();
    let registry = mbconv::formats();
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out)?;
    let mut manifest = Vec::new();
    for (kind, tool) in [("urdf", "urdf_usd_converter"), ("mjcf", "mujoco_usd_converter")] {
        let mut files = Vec::new();
        crate::corpus::collect(&corpus.join(kind), &mut |path| {
            if crate::corpus::readable_kind(&registry, path) {
                files.push(path.to_path_buf());
            }
        })?;
        for path in files {
            let relative = path.strip_prefix(&corpus).unwrap_or(&path).display().to_string();
            let name = relative.replace('/', "__");
            let dir = out.join(&name);
            let mut entry = json!({"name": relative, "kind": kind, "source": path});
            let started = Instant::now();
            match mbconv_usd_text(&registry, &relative, &path) {
                Ok(text) => {
                    let file = dir.join("mbconv/model.usda");
                    std::fs::create_dir_all(dir.join("mbconv"))?;
                    std::fs::write(&file, text)?;
                    entry["mbconv"] = json!(file);
                }
                Err(e) => entry["mbconv_error"] = json!(crate::field::one_line(&e)),
            }
            entry["mbconv_seconds"] = json!(started.elapsed().as_secs_f64());
            let started = Instant::now();
            match peer_convert(&bin.join(tool), &path, &dir.join("peer")) {
                Ok(root) => entry["peer"] = json!(root),
                Err(e) => entry["peer_error"] = json!(crate::field::one_line(&e.to_string())),
            }
            entry["peer_seconds"] = json!(started.elapsed().as_secs_f64());
            manifest.push(entry);
        }
    }
    let manifest_path = out.join("manifest.json");
    std::fs::write(&manifest_path, serde_json::to_string_pretty(&manifest)?)?;
    let results = out.join("results.json");
    crate::run(
        &newton,
        &[
            "oracles/peers/peers_usd.py",
            "--manifest",
            &manifest_path.to_string_lossy(),
            "--out",
            &results.to_string_lossy(),
        ],
    )?;
    let run = json!({"commit": crate::field::git_head(&workspace_root())});
    std::fs::write(out.join("run.json"), serde_json::to_string_pretty(&run)?)?;
    write_document(&out)
}

/// mbconv's USD of the model at `path`, read and written with default settings.
fn mbconv_usd_text(
    registry: &mbconv_ir::format::Registry,
    shown: &str,
    path: &Path,
) -> Result<String, String> {
    mbconv_test_support::written_golden::convert(registry, "usd", shown, path).map(|e| e.text)
}

/// Runs a peer converter on `source` into `dir` and returns the root layer it wrote.
fn peer_convert(tool: &Path, source: &Path, dir: &Path) -> Result<PathBuf> {
    let output = Command::new("timeout")
        .arg("300")
        .arg(tool)
        .arg(source)
        .arg(dir)
        .output()
        .with_context(|| format!("cannot run {}", tool.display()))?;
    let roots: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "usda"))
                .collect()
        })
        .unwrap_or_default();
    match (output.status.success(), roots.as_slice()) {
        (true, [root]) => Ok(root.clone()),
        _ => {
            let stderr = String::from_utf8_lossy(&output.stderr);
            let last = stderr
                .lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("no root layer");
            anyhow::bail!("{}", last.trim())
        }
    }
}

/// One converter's cell.
fn cell(result: &Value) -> String {
    if result["loads"].as_bool() != Some(true) {
        return if result["converted"].as_bool() == Some(false) {
            "not converted".to_owned()
        } else {
            "Newton refuses".to_owned()
        };
    }
    let missing = result["missing"].as_array().map_or(0, Vec::len);
    match (result["keeps"].as_bool(), result["error"].as_f64()) {
        (Some(true), Some(e)) => format!("keeps ({e:.0e} m)"),
        _ if missing > 0 => format!("{missing} moving bodies missing"),
        (_, Some(e)) => format!("moves {e:.0e} m"),
        _ => "NaN in Newton".to_owned(),
    }
}

/// The reason a converter's run does not keep the motion, one line.
fn failure(result: &Value) -> Option<String> {
    if result["keeps"].as_bool() == Some(true) {
        return None;
    }
    if result["loads"].as_bool() != Some(true) {
        return Some(result["error"].as_str().unwrap_or("?").to_owned());
    }
    let missing: Vec<&str> = result["missing"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    Some(if !missing.is_empty() {
        format!("moving bodies missing: {}", missing.join(", "))
    } else if let Some(e) = result["error"].as_f64() {
        format!(
            "moves {e:.2e} m away ({})",
            result["where"].as_str().unwrap_or("-")
        )
    } else {
        format!(
            "not finite in Newton ({})",
            result["where"].as_str().unwrap_or("-")
        )
    })
}

/// Writes `docs/peers-usd.md` from a run's `results.json` and `run.json`.
fn write_document(out: &Path) -> Result<()> {
    let read = |name: &str| -> Result<Value> {
        let text = std::fs::read_to_string(out.join(name))
            .with_context(|| format!("no {name} in {}: run cargo xtask peers-usd", out.display()))?;
        Ok(serde_json::from_str(&text)?)
    };
    let (results, run) = (read("results.json")?, read("run.json")?);
    let entries = results["results"].as_array().cloned().unwrap_or_default();
    let judged: Vec<&Value> = entries
        .iter()
        .filter(|e| e["truth"]["loads"].as_bool() == Some(true) && e["truth"]["moving"].as_u64() > Some(0))
        .collect();
    let mut text = String::new();
    let _ = writeln!(
        text,
        "# mbconv beside NVIDIA's converters: URDF and MJCF to USD, motion kept in Newton or not\n"
    );
    let _ = writeln!(
        text,
        "Generated by `cargo xtask peers-usd` (xtask/src/peers_usd.rs, oracles/peers/peers_usd.py, \
         whose documentation states the method); do not edit by hand. Every URDF and MJCF of \
         `../shared/corpus/urdf` and `../shared/corpus/mjcf` is converted to USD by mbconv (commit \
         {}) and by NVIDIA's converter of its format; each USD is loaded in Newton 1.8 and \
         simulated for 1 s (Featherstone on the CPU, semi-implicit Euler at dt {} s, contact, \
         joint limits, drives, damping and friction off, gravity tilted off the vertical) against \
         the source in its own simulator from the same zero pose (Pinocchio 4.1 for a URDF, root \
         welded; MuJoCo 4.0 for an MJCF). A USD keeps the motion when every body at a moving joint \
         is one of its bodies and stays within {:e} m of the truth every 0.1 s.\n",
        run["commit"].as_str().unwrap_or("?"),
        results["dt"],
        results["tolerance"].as_f64().unwrap_or(0.0)
    );
    let _ = writeln!(text, "## Counts\n");
    let _ = writeln!(
        text,
        "{} files; the truth loads and moves {} (the others: not a model the source's simulator \
         loads, or nothing moves).\n",
        entries.len(),
        judged.len()
    );
    let _ = writeln!(
        text,
        "| converter | format | keeps the motion | moves away or NaN | Newton refuses or not converted | conversion time (s, total) |"
    );
    let _ = writeln!(text, "|---|---|---|---|---|---|");
    for (key, words) in CONVERTERS {
        for kind in ["urdf", "mjcf"] {
            let rows: Vec<&&Value> = judged.iter().filter(|e| e["kind"] == kind).collect();
            let keeps = rows
                .iter()
                .filter(|e| e[key]["keeps"].as_bool() == Some(true))
                .count();
            let loads = rows
                .iter()
                .filter(|e| e[key]["loads"].as_bool() == Some(true))
                .count();
            let seconds: f64 = rows
                .iter()
                .filter_map(|e| e[format!("{key}_seconds")].as_f64())
                .sum();
            let _ = writeln!(
                text,
                "| {words} | {} | {keeps} | {} | {} | {seconds:.1} |",
                kind.to_uppercase(),
                loads - keeps,
                rows.len() - loads
            );
        }
    }
    let behind: Vec<String> = judged
        .iter()
        .filter(|e| {
            e["peer"]["keeps"].as_bool() == Some(true) && e["mbconv"]["keeps"].as_bool() != Some(true)
        })
        .map(|e| format!("`{}`", e["name"].as_str().unwrap_or("?")))
        .collect();
    let _ = writeln!(
        text,
        "\nRobots where the peer keeps the motion and mbconv does not: {}.\n",
        if behind.is_empty() {
            "none".to_owned()
        } else {
            behind.join(", ")
        }
    );
    let _ = writeln!(text, "## Every robot\n");
    let _ = writeln!(text, "| robot | dof | NVIDIA's converter | mbconv |");
    let _ = writeln!(text, "|---|---|---|---|");
    for e in &judged {
        let _ = writeln!(
            text,
            "| `{}` | {} | {} | {} |",
            e["name"].as_str().unwrap_or("?"),
            e["truth"]["nv"],
            cell(&e["peer"]),
            cell(&e["mbconv"])
        );
    }
    let _ = writeln!(text, "\n## Where each fails\n");
    for (key, words) in CONVERTERS {
        let _ = writeln!(text, "{words}:\n");
        let mut any = false;
        for e in &judged {
            if let Some(reason) = failure(&e[key]) {
                any = true;
                let _ = writeln!(
                    text,
                    "- `{}`: {}",
                    e["name"].as_str().unwrap_or("?"),
                    crate::field::one_line(&reason)
                );
            }
        }
        if !any {
            let _ = writeln!(text, "- none");
        }
        let _ = writeln!(text);
    }
    let not_judged: Vec<String> = entries
        .iter()
        .filter(|e| !judged.iter().any(|j| j["name"] == e["name"]))
        .map(|e| format!("`{}`", e["name"].as_str().unwrap_or("?")))
        .collect();
    let _ = writeln!(
        text,
        "Not judged (the truth refuses the file or nothing in it moves): {}.",
        not_judged.join(", ")
    );
    std::fs::write(workspace_root().join("docs/peers-usd.md"), text)?;
    eprintln!("docs/peers-usd.md written");
    Ok(())
}
