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

/// Judges one converter's Newton run against the truth (both as `oracles/peers/peers_usd.py`
/// reports them: every body with its name, or none where the source names it not, and its
/// position every `every` seconds): which of the run's bodies stands for each of the truth's
/// (`pair_bodies`), the largest distance between the two and where, the moving bodies with no
/// match, and whether the USD keeps the motion (every moving body matched, every matched body
/// within `tolerance` at every sample).
fn judge(truth: &Value, run: &Value, tolerance: f64, every: f64) -> Value {
    let empty = Vec::new();
    let (truth_bodies, run_bodies) = (
        truth["bodies"].as_array().unwrap_or(&empty),
        run["bodies"].as_array().unwrap_or(&empty),
    );
    let pairs = pair_bodies(truth_bodies, run_bodies);
    let mut missing = Vec::new();
    let (mut error, mut at) = (0.0_f64, None::<String>);
    for (t, pair) in truth_bodies.iter().zip(&pairs) {
        let Some(r) = *pair else {
            if t["moving"].as_bool() == Some(true) {
                missing.push(body_label(t));
            }
            continue;
        };
        let distances = sample_distances(t, &run_bodies[r]);
        for (k, d) in distances.iter().enumerate() {
            if *d > error {
                error = *d;
                let label = match t["name"].as_str() {
                    Some(name) => name.to_owned(),
                    None => format!(
                        "{} ({})",
                        body_label(t),
                        run_bodies[r]["name"].as_str().unwrap_or("?")
                    ),
                };
                at = Some(format!("{label} at t = {:.1} s", k as f64 * every));
            }
        }
    }
    missing.sort();
    json!({
        "loads": true,
        "error": if error.is_finite() { json!(error) } else { Value::Null },
        "finite": error.is_finite(),
        "where": at,
        "missing": missing,
        "keeps": error.is_finite() && error <= tolerance && missing.is_empty(),
        "articulation_root_added": run["articulation_root_added"],
    })
}

/// How the truth's body is named in the document: its name, or for a body the source names not,
/// its id there (MuJoCo's body id).
fn body_label(body: &Value) -> String {
    match body["name"].as_str() {
        Some(name) => name.to_owned(),
        None => format!("unnamed body {}", body["id"]),
    }
}

/// The distance between a truth body and a run's body at every sample (infinite where the run's
/// position is not finite or missing).
fn sample_distances(truth: &Value, run: &Value) -> Vec<f64> {
    let point = |p: &Value| -> Option<[f64; 3]> {
        let a = p.as_array()?;
        Some([a.first()?.as_f64()?, a.get(1)?.as_f64()?, a.get(2)?.as_f64()?])
    };
    let empty = Vec::new();
    let (a, b) = (
        truth["positions"].as_array().unwrap_or(&empty),
        run["positions"].as_array().unwrap_or(&empty),
    );
    a.iter()
        .enumerate()
        .map(|(k, p)| match (point(p), b.get(k).and_then(point)) {
            (Some(p), Some(q)) => {
                ((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2) + (p[2] - q[2]).powi(2)).sqrt()
            }
            _ => f64::INFINITY,
        })
        .collect()
}

/// Which of a run's bodies (in the stage's prim order) stands for each of the truth's (in the
/// source's order). A body the source names is the first run body of that name. A body the
/// source leaves unnamed (an MJCF `<body>` with no `name`: the truth knows it by its MuJoCo id
/// only, and each converter names it as it likes) is the run's body, among those not yet
/// matched, whose largest distance to it over the samples is the smallest (the first in prim
/// order on a tie); the unnamed bodies at moving joints choose first, then the others, each in
/// the source's order. The same rule for every converter: no converter's naming is the truth's.
fn pair_bodies(truth: &[Value], run: &[Value]) -> Vec<Option<usize>> {
    let mut pairs = vec![None; truth.len()];
    let mut taken = vec![false; run.len()];
    for (t, body) in truth.iter().enumerate() {
        let Some(name) = body["name"].as_str() else {
            continue;
        };
        if let Some(r) = run
            .iter()
            .position(|b| b["name"].as_str() == Some(name))
            .filter(|&r| !taken[r])
        {
            pairs[t] = Some(r);
            taken[r] = true;
        }
    }
    let unnamed = |moving: bool| {
        truth
            .iter()
            .enumerate()
            .filter(move |(_, b)| b["name"].is_null() && (b["moving"].as_bool() == Some(true)) == moving)
    };
    let order: Vec<usize> = unnamed(true).chain(unnamed(false)).map(|(t, _)| t).collect();
    for t in order {
        let mut best: Option<(f64, usize)> = None;
        for (r, body) in run.iter().enumerate() {
            if taken[r] {
                continue;
            }
            let far = sample_distances(&truth[t], body)
                .into_iter()
                .fold(0.0_f64, f64::max);
            if best.is_none_or(|(d, _)| far < d) {
                best = Some((far, r));
            }
        }
        if let Some((_, r)) = best {
            pairs[t] = Some(r);
            taken[r] = true;
        }
    }
    pairs
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
    let tolerance = results["tolerance"].as_f64().unwrap_or(0.0);
    let every = results["every"].as_f64().unwrap_or(0.1);
    let mut entries = results["results"].as_array().cloned().unwrap_or_default();
    for e in &mut entries {
        for (key, _) in CONVERTERS {
            if e[key]["loads"].as_bool() == Some(true) {
                e[key] = judge(&e["truth"], &e[key], tolerance, every);
            }
        }
    }
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
         joint limits, drives, damping, friction and MuJoCo's fluid forces off, gravity tilted off \
         the vertical, also where a model switches gravity off) against \
         the source in its own simulator from the same zero pose (Pinocchio 4.1 for a URDF, root \
         welded; MuJoCo 4.0 for an MJCF). A USD keeps the motion when every body at a moving joint \
         is one of its bodies and stays within {:e} m of the truth every 0.1 s. Bodies are matched \
         by name (the USD's `mbconv:name` or `displayName`, else its prim name); a body the MJCF \
         leaves unnamed, which MuJoCo knows by its id only and each converter names as it likes \
         (mbconv's MJCF reader `bodyN`, the peer `Body`, `Body_1`, ...), is matched, by the same \
         rule for both converters, to the USD body not yet matched whose positions stay closest \
         to its own over the run (`pair_bodies` in xtask/src/peers_usd.rs).\n",
        run["commit"].as_str().unwrap_or("?"),
        results["dt"],
        tolerance
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A body moving along x at `speed` m/s from `x0`, sampled every 0.1 s for 1 s.
    fn path(x0: f64, speed: f64) -> Value {
        json!(
            (0..=10)
                .map(|k| [x0 + speed * 0.1 * f64::from(k), 0.0, 0.0])
                .collect::<Vec<_>>()
        )
    }

    fn truth_body(name: Option<&str>, id: u32, moving: bool, positions: Value) -> Value {
        json!({"name": name, "id": id, "moving": moving, "positions": positions})
    }

    fn run_body(name: &str, positions: Value) -> Value {
        json!({"name": name, "positions": positions})
    }

    /// slider_crank.xml's shape: two unnamed moving bodies and a named one, the truth knowing
    /// the unnamed ones by id; mbconv's USD names them `body1`, `body2` beside a static
    /// `worldbody` at the same place, the peer's `Body` twice (nested). Both keep the motion.
    #[test]
    fn unnamed_bodies_are_matched_by_their_motion_for_both_converters() {
        let truth = json!({"bodies": [
            truth_body(None, 1, true, path(0.0, 1.0)),
            truth_body(None, 2, true, path(0.0, 2.0)),
            truth_body(Some("arm"), 3, true, path(1.0, -1.0)),
        ]});
        let mbconv = json!({"bodies": [
            run_body("worldbody", path(0.0, 0.0)),
            run_body("body1", path(0.0, 1.0)),
            run_body("body2", path(0.0, 2.0)),
            run_body("arm", path(1.0, -1.0)),
        ]});
        let peer = json!({"bodies": [
            run_body("Body", path(0.0, 2.0)),
            run_body("arm", path(1.0, -1.0)),
            run_body("Body", path(0.0, 1.0)),
        ]});
        for run in [&mbconv, &peer] {
            let verdict = judge(&truth, run, 1e-4, 0.1);
            assert_eq!(verdict["keeps"], json!(true), "{verdict}");
            assert_eq!(verdict["missing"], json!([]));
        }
        assert_eq!(
            pair_bodies(
                truth["bodies"].as_array().expect("bodies"),
                mbconv["bodies"].as_array().expect("bodies")
            ),
            [Some(1), Some(2), Some(3)]
        );
        assert_eq!(
            pair_bodies(
                truth["bodies"].as_array().expect("bodies"),
                peer["bodies"].as_array().expect("bodies")
            ),
            [Some(2), Some(0), Some(1)]
        );
    }

    /// The match finds the closest body, not a good one: an unnamed body whose USD body moves
    /// away is judged moving away (named in the document by its MuJoCo id and the USD's name);
    /// one with no USD body left is missing; a named body is never taken by an unnamed one.
    #[test]
    fn unnamed_bodies_that_move_away_or_are_missing_fail() {
        let truth = json!({"bodies": [
            truth_body(Some("arm"), 1, true, path(1.0, -1.0)),
            truth_body(None, 2, true, path(0.0, 1.0)),
        ]});
        let away = json!({"bodies": [run_body("arm", path(1.0, -1.0)), run_body("Body", path(0.0, 1.5))]});
        let verdict = judge(&truth, &away, 1e-4, 0.1);
        assert_eq!(verdict["keeps"], json!(false));
        assert!(
            (verdict["error"].as_f64().expect("an error") - 0.5).abs() < 1e-9,
            "{verdict}"
        );
        assert_eq!(verdict["where"], json!("unnamed body 2 (Body) at t = 1.0 s"));
        let none = json!({"bodies": [run_body("arm", path(0.0, 1.0))]});
        let verdict = judge(&truth, &none, 1e-4, 0.1);
        assert_eq!(verdict["missing"], json!(["unnamed body 2"]));
        assert_eq!(verdict["keeps"], json!(false));
        let nan = json!({"bodies": [run_body("arm", path(1.0, -1.0)), run_body("b", json!([[null, 0, 0]]))]});
        let verdict = judge(&truth, &nan, 1e-4, 0.1);
        assert_eq!(verdict["finite"], json!(false));
        assert_eq!(verdict["keeps"], json!(false));
    }
}
