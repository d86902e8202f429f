//! `cargo xtask peers`: mbconv beside the converter people use, on the URDFs of
//! example-robot-data, with `docs/peers.md` written from what happened.
//!
//! Every URDF is converted to MJCF and to SDFormat by mbconv (`mbconv convert --no-check --to
//! mjcf|sdf`, release build, the package path given as `cargo xtask field` gives it), to MJCF
//! by MuJoCo's own URDF import (as the file is, and without its meshes) and to SDFormat by
//! libsdformat's own conversion (the one behind `gz sdf -p`, built by the oracle against the
//! system's libsdformat: Debian's `libsdformat-dev`); `oracles/peers/peers_oracle.py` simulates
//! each MJCF in MuJoCo and each SDFormat in Drake against Pinocchio's ground truth (root
//! welded, 1 s from a bent pose, contact off; see the script) and says which keep the motion.
//!
//! `MBCONV_PEERS_CLI=PATH` converts with that mbconv binary instead of the release build (a
//! dev build of the same commit, where a release build does not fit; the document says which);
//! the release build is still asked of `$CARGO`.

use crate::field::Plan;
use crate::workspace_root;
use anyhow::Result;
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::process::Command;
use std::time::Instant;

/// The peers as the oracle names them, with the document's words for them.
const PEERS: [(&str, &str); 6] = [
    ("mujoco_import", "MuJoCo's URDF import, the file as it is"),
    (
        "mujoco_import_no_meshes",
        "MuJoCo's URDF import, the file without <visual> and <collision>",
    ),
    ("mbconv_mjcf", "mbconv -> MJCF, loaded in MuJoCo"),
    (
        "sdformat_import",
        "libsdformat's URDF -> SDFormat conversion (`gz sdf -p`), loaded in Drake",
    ),
    (
        "sdformat_import_no_gazebo",
        "libsdformat's conversion of the URDF without <gazebo>, loaded in Drake",
    ),
    ("mbconv_sdf", "mbconv -> SDFormat, loaded in Drake"),
];

/// The peers that are not mbconv: each mbconv conversion is held to all of them.
const OTHERS: [&str; 4] = [
    "mujoco_import",
    "mujoco_import_no_meshes",
    "sdformat_import",
    "sdformat_import_no_gazebo",
];

/// Each of mbconv's targets: its key in the manifest (its `--to` too), its file name, mbconv's
/// peer key, the document's word for it and the peers that convert to the same format.
type Target = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static [&'static str],
);
const TARGETS: [Target; 2] = [
    (
        "mjcf",
        "model.xml",
        "mbconv_mjcf",
        "MJCF",
        &["mujoco_import", "mujoco_import_no_meshes"],
    ),
    (
        "sdf",
        "model.sdf",
        "mbconv_sdf",
        "SDFormat",
        &["sdformat_import", "sdformat_import_no_gazebo"],
    ),
];

/// Why a robot moves away in every converter, where it was looked into: (a part of the robot's
/// name, the cause found). The document prints each under "Causes found".
const KNOWN_CAUSES: &[(&str, &str)] = &[
    (
        "/romeo_small.urdf",
        "the model, not a conversion: RShoulderYawLink and RElbowYawLink have rotational inertias \
         whose principal moments break the triangle inequality (6.6e-4 + 6.8e-4 < 6.6e-3 and \
         2.1e-4 + 3.5e-4 < 2.1e-3 kg m²). Pinocchio simulates them as written; no target does: \
         MuJoCo refuses them, Drake's parser replaces each by an isotropic inertia (libsdformat \
         keeps them), mbconv -> MJCF writes them balanced (`mjcf.inertia_balanced`) and mbconv -> \
         SDFormat made physical (`sdf.inertia_made_physical`). Pinocchio run on the URDF with \
         those two inertias replaced by what each target simulates agrees with the target within \
         4e-15 m (libsdformat's SDFormat in Drake), 3e-13 m (mbconv's SDFormat in Drake) and \
         3e-10 m (mbconv's MJCF in MuJoCo), and 1.4e-1, 1.5e-1 and 9.9e-2 m away from Pinocchio \
         on the file as it is: the two inertias are the whole difference \
         (`oracles/peers/inertias_as_simulated.py`)",
    ),
    (
        "/romeo_laas_small.urdf",
        "the model, not a conversion: `body`, LHipPitch_link and RHipPitch_link have a negative \
         principal moment of inertia (-2.1e-2, -2.7e-3, -2.8e-3 kg m²) and LShoulderYaw_link and \
         LElbowYaw_link break the triangle inequality. Pinocchio simulates them as written; no \
         target does: MuJoCo refuses them, mbconv -> MJCF writes them balanced \
         (`mjcf.inertia_balanced`) and mbconv -> SDFormat made physical \
         (`sdf.inertia_made_physical`). Pinocchio run on the URDF with those five inertias \
         replaced by what each target simulates agrees with the target within 1.4e-15 m \
         (mbconv's SDFormat in Drake) and 3.4e-11 m (mbconv's MJCF in MuJoCo), and 9.5e-2 and \
         2.3e-1 m away from Pinocchio on the file as it is \
         (`oracles/peers/inertias_as_simulated.py`). libsdformat's conversions lack the \
         grippers (`l_gripper`, `r_gripper`)",
    ),
];

/// The causes [`KNOWN_CAUSES`] gives for the robots of a run: (robot, cause), in the run's
/// order.
fn known_causes(entries: &[Value]) -> Vec<(&str, &'static str)> {
    entries
        .iter()
        .filter_map(|e| e["name"].as_str())
        .filter_map(|name| {
            KNOWN_CAUSES
                .iter()
                .find(|(part, _)| name.ends_with(part))
                .map(|(_, cause)| (name, *cause))
        })
        .collect()
}

/// The robots (by name) whose `mbconv` conversion does not keep the motion and one of `peers`
/// does, as a sentence's end: "none" or a list of names in backticks.
fn behind(entries: &[Value], mbconv: &str, peers: &[&str]) -> String {
    let names: Vec<String> = entries
        .iter()
        .filter(|e| {
            e[mbconv]["keeps"].as_bool() != Some(true)
                && peers.iter().any(|k| e[*k]["keeps"].as_bool() == Some(true))
        })
        .filter_map(|e| e["name"].as_str())
        .map(|n| format!("`{n}`"))
        .collect();
    if names.is_empty() {
        "none".to_owned()
    } else {
        names.join(", ")
    }
}

/// Runs the comparison and writes `docs/peers.md` (`target/peers/peers.md` for a run narrowed
/// by `--only`).
pub fn run_peers(plan: &Plan) -> Result<()> {
    let root = workspace_root();
    let out = root.join("target/peers");
    if plan.document {
        return write_document(&out);
    }
    let (models, collections, release) = crate::field::prepare(plan, false)?;
    let (mbconv, build) = match std::env::var_os("MBCONV_PEERS_CLI") {
        Some(path) => {
            let build = format!("the build `{}`", path.to_string_lossy());
            (std::path::PathBuf::from(path), build)
        }
        None => (release, "release build".to_owned()),
    };
    let commit = crate::field::git_head(&root);
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out)?;
    let started = Instant::now();
    let mut manifest = Vec::new();
    for model in &models {
        let dir = out.join(model.shown.replace('/', "__"));
        std::fs::create_dir_all(&dir)?;
        let mut entry = json!({"name": model.shown, "urdf": model.path});
        for (key, name, ..) in TARGETS {
            let file = dir.join(name);
            let mut command = Command::new("timeout");
            command
                .arg(format!("{}", plan.timeout.as_secs_f64()))
                .arg(&mbconv);
            command.args(["-q", "convert", "--no-check", "--force"]);
            for option in &model.read_options {
                command.args(["--read-option", option]);
            }
            command.arg(&model.path).args(["--to", key, "-o"]).arg(&file);
            let output = command.output()?;
            if output.status.success() && file.is_file() {
                entry[key] = json!(file);
            } else {
                entry[key] = Value::Null;
                entry[format!("{key}_error")] =
                    json!(crate::field::message(&String::from_utf8_lossy(&output.stderr)));
            }
        }
        manifest.push(entry);
    }
    let convert_seconds = started.elapsed().as_secs_f64();
    // The oracle's results.json is what the document is written from.
    crate::field::judged("oracles/peers/peers_oracle.py", &out, &manifest, plan.jobs, &[])?;
    let source = collections
        .first()
        .map_or_else(String::new, |c| c.version.clone());
    let run = json!({
        "source": source,
        "commit": commit,
        "build": build,
        "convert_seconds": convert_seconds,
        "date": today(),
        "only": plan.only,
    });
    std::fs::write(out.join("run.json"), serde_json::to_string_pretty(&run)?)?;
    write_document(&out)
}

/// The day of the run, `YYYY-MM-DD HH:MM UTC` as `date -u` says it (empty without `date`).
fn today() -> String {
    Command::new("date")
        .args(["-u", "+%Y-%m-%d %H:%M UTC"])
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default()
}

/// Writes `docs/peers.md` from a run's `run.json` and `results.json` in `out`.
fn write_document(out: &std::path::Path) -> Result<()> {
    let read = |name: &str| -> Result<Value> {
        let text = std::fs::read_to_string(out.join(name))
            .map_err(|e| anyhow::anyhow!("no {name} in {}: {e}; run cargo xtask peers", out.display()))?;
        Ok(serde_json::from_str(&text)?)
    };
    let (run, results) = (read("run.json")?, read("results.json")?);
    let text = document(
        &results,
        run["source"].as_str().unwrap_or("?"),
        run["commit"].as_str().unwrap_or("unknown"),
        run["build"].as_str().unwrap_or("release build"),
        run["date"].as_str().unwrap_or("unknown"),
        run["convert_seconds"].as_f64().unwrap_or(0.0),
    );
    let path = crate::field::document_path(out, &run, "peers.md");
    std::fs::write(&path, text)?;
    eprintln!("{} written", path.display());
    Ok(())
}

/// One peer's cell: `keeps 3e-9`, `moves 2e-2 (link at t)`, or its refusal, shortened.
fn cell(result: &Value) -> String {
    match result["loads"].as_bool() {
        Some(true) => {
            let error = result["error"].as_f64().unwrap_or(f64::NAN);
            let missing = result["missing"].as_array().map_or(0, Vec::len);
            if result["keeps"].as_bool() == Some(true) {
                format!("keeps ({error:.0e} m)")
            } else if missing > 0 {
                format!("{missing} moving links missing")
            } else {
                format!("moves {error:.0e} m")
            }
        }
        _ => "refused".to_owned(),
    }
}

/// `docs/peers.md`.
fn document(
    results: &Value,
    source: &str,
    commit: &str,
    build: &str,
    date: &str,
    convert_seconds: f64,
) -> String {
    let entries = results["results"].as_array().cloned().unwrap_or_default();
    let tolerance = results["tolerance"].as_f64().unwrap_or(0.0);
    let mut text = String::new();
    let sdformat = results["sdformat_version"].as_str().unwrap_or("(not built)");
    let _ = writeln!(
        text,
        "# mbconv beside the peers: URDF to MJCF and to SDFormat, motion kept or not\n"
    );
    let _ = writeln!(
        text,
        "Generated by `cargo xtask peers` (xtask/src/peers.rs, oracles/peers/peers_oracle.py); do \
         not edit by hand. Every URDF of example-robot-data ({source}) is simulated for 1 s from a \
         bent pose (every joint at 0.5 rad or 0.05 m, moved inside its limits), the root welded, \
         contact, joint limits, damping and friction off: Pinocchio 4.1 (`aba`, RK4 at 1e-4 s) is \
         the ground truth, and each MJCF made from the URDF is simulated in MuJoCo 4.0 (RK4 at \
         1e-4 s). A conversion keeps the motion when every link frame it has stays within \
         {tolerance:e} m of Pinocchio's every 0.1 s and every link that moves in Pinocchio is one \
         of its bodies. Run on {date}: mbconv commit {commit}, {build} (`mbconv -q convert --no-check \
         --read-option package_path=... ROBOT.urdf --to mjcf|sdf -o FILE`; its conversions took \
         {convert_seconds:.0} s). The SDFormat side: libsdformat {sdformat} (Debian's \
         `libsdformat-dev`, installed with apt) converts each URDF as `gz sdf -p ROBOT.urdf` \
         does (`sdf::Root::Load` of the URDF, its SDFormat text written out: \
         oracles/peers/urdf2sdf.cpp; also the URDF without its `<gazebo>` elements, whose \
         Gazebo-classic extensions Drake refuses), and each SDFormat, libsdformat's and \
         mbconv's, is \
         simulated in Drake 1.51.1 (a continuous MultibodyPlant with no SceneGraph, so no \
         contact; joint damping 0, limits off, the root link welded to the world at the \
         identity, its time derivatives integrated by RK4 at 1e-4 s as Pinocchio and MuJoCo \
         are), its body frames compared with Pinocchio's link frames as the MJCFs are. Pinocchio's `aba` \
         refuses mimic joints: for the robots marked `mimic dropped` the truth is the URDF \
         without its mimic couplings, MuJoCo runs them with its equality constraints disabled \
         and Drake's continuous plant has no mimic couplings. Run as `cargo xtask peers --jobs \
         N` (after `cargo xtask download`; `--document` writes this file again from the last \
         run's target/peers).\n"
    );
    let truths = entries
        .iter()
        .filter(|e| e["truth"]["loads"].as_bool() == Some(true))
        .count();
    let _ = writeln!(text, "## Counts\n");
    let _ = writeln!(
        text,
        "{} URDFs; Pinocchio loads {truths} (the ground truth exists for those only).\n",
        entries.len()
    );
    let _ = writeln!(
        text,
        "| converter | keeps the motion | moves away | refused or incomplete |"
    );
    let _ = writeln!(text, "|---|---|---|---|");
    for (key, words) in PEERS {
        let judged: Vec<&Value> = entries
            .iter()
            .filter(|e| e["truth"]["loads"].as_bool() == Some(true))
            .map(|e| &e[key])
            .collect();
        let keeps = judged
            .iter()
            .filter(|r| r["keeps"].as_bool() == Some(true))
            .count();
        let moves = judged
            .iter()
            .filter(|r| {
                r["loads"].as_bool() == Some(true)
                    && r["keeps"].as_bool() == Some(false)
                    && r["missing"].as_array().is_none_or(Vec::is_empty)
            })
            .count();
        let _ = writeln!(
            text,
            "| {words} | {keeps} | {moves} | {} |",
            judged.len() - keeps - moves
        );
    }
    let _ = writeln!(text);
    let kept = |key: &str| {
        entries
            .iter()
            .filter(|e| e[key]["keeps"].as_bool() == Some(true))
            .count()
    };
    let best = OTHERS.iter().map(|k| kept(k)).max().unwrap_or(0);
    for (_, _, mbconv, words, same) in TARGETS {
        let _ = writeln!(
            text,
            "mbconv -> {words} keeps the motion of {} robots, the best peer {best}. Robots where \
             a peer converting to {words} keeps the motion and mbconv -> {words} does not: {}. \
             Where any of the four peers keeps it and mbconv -> {words} does not: {}.\n",
            kept(mbconv),
            behind(&entries, mbconv, same),
            behind(&entries, mbconv, &OTHERS),
        );
    }
    let _ = writeln!(text, "## Every robot\n");
    let _ = writeln!(
        text,
        "Each cell: `keeps (largest distance)`, `moves (largest distance)`, `N moving links \
         missing` (the MJCF or SDFormat lacks bodies the truth moves), or `refused` (the reasons follow).\n"
    );
    let _ = writeln!(
        text,
        "| robot | dof | MuJoCo import | MuJoCo import, no meshes | mbconv -> MJCF | \
         libsdformat -> Drake | libsdformat, no <gazebo> -> Drake | mbconv -> SDFormat -> \
         Drake |"
    );
    let _ = writeln!(text, "|---|---|---|---|---|---|---|---|");
    for e in &entries {
        let name = e["name"].as_str().unwrap_or("?");
        if e["truth"]["loads"].as_bool() != Some(true) {
            let _ = writeln!(text, "| `{name}` | Pinocchio refuses it | | | | | | |");
            continue;
        }
        let cells: Vec<String> = PEERS.iter().map(|(key, _)| cell(&e[*key])).collect();
        let _ = writeln!(
            text,
            "| `{name}` | {}{} | {} |",
            e["truth"]["nv"],
            if e["truth"]["mimic_dropped"].as_bool() == Some(true) {
                " (mimic dropped)"
            } else {
                ""
            },
            cells.join(" | ")
        );
    }
    let _ = writeln!(text, "\n## Failure modes\n");
    for (key, words) in PEERS {
        let _ = writeln!(text, "{words}:\n");
        let mut any = false;
        for e in &entries {
            let r = &e[key];
            let name = e["name"].as_str().unwrap_or("?");
            let line = match r["loads"].as_bool() {
                Some(false) => format!("refused: {}", r["error"].as_str().unwrap_or_default()),
                Some(true) if r["keeps"].as_bool() == Some(false) => {
                    let missing: Vec<&str> = r["missing"]
                        .as_array()
                        .map(|a| a.iter().filter_map(Value::as_str).collect())
                        .unwrap_or_default();
                    if missing.is_empty() {
                        format!(
                            "moves {:.2e} m away ({})",
                            r["error"].as_f64().unwrap_or(f64::NAN),
                            r["where"].as_str().unwrap_or("-")
                        )
                    } else {
                        format!("moving links missing: {}", missing.join(", "))
                    }
                }
                _ => continue,
            };
            any = true;
            let _ = writeln!(text, "- `{name}`: {}", crate::field::one_line(&line));
        }
        if !any {
            let _ = writeln!(text, "- none");
        }
        let _ = writeln!(text);
    }
    let causes = known_causes(&entries);
    if !causes.is_empty() {
        let _ = writeln!(text, "## Causes found\n");
        for (name, cause) in causes {
            let _ = writeln!(text, "- `{name}`: {cause}.");
        }
        let _ = writeln!(text);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One robot's results: Pinocchio loads it, every converter moves it 0.1 m away.
    fn moved(name: &str) -> Value {
        let mut entry = json!({"name": name, "truth": {"loads": true, "nv": 31}});
        for (key, _) in PEERS {
            entry[key] = json!({"loads": true, "keeps": false, "error": 0.1, "where": "l at t = 1.0 s"});
        }
        entry
    }

    #[test]
    fn a_known_cause_is_printed_once_under_causes_found() {
        let romeo = "example-robot-data/robots/romeo_description/urdf/romeo_small.urdf";
        let results = json!({"tolerance": 1e-4, "results": [moved(romeo), moved("other/robot.urdf")]});
        let text = document(&results, "erd", "abc", "release build", "today", 1.0);
        let section = text.split("## Causes found").nth(1).expect("the section");
        assert_eq!(section.matches("RShoulderYawLink").count(), 1, "{section}");
        assert!(
            section.contains(&format!("- `{romeo}`: the model, not a conversion")),
            "{section}"
        );
        assert!(!section.contains("other/robot.urdf"), "{section}");
        // romeo_laas_small is a robot of its own, not a romeo_small.
        let laas = "example-robot-data/robots/romeo_description/urdf/romeo_laas_small.urdf";
        assert_eq!(
            known_causes(&[moved(laas)])[0]
                .1
                .matches("negative principal")
                .count(),
            1
        );
        let without = json!({"tolerance": 1e-4, "results": [moved("other/robot.urdf")]});
        let text = document(&without, "erd", "abc", "release build", "today", 1.0);
        assert!(!text.contains("## Causes found"), "{text}");
    }
}
