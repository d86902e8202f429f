//! Choreonoid as a dynamic judge: `cargo xtask golden choreonoid-sim`.
//!
//! Runs Choreonoid's own forward dynamics (`body_sim_oracle`, built by `cargo xtask oracles
//! choreonoid` into `target/choreonoid-oracle/`; the driver's source and CLI are in
//! `../shared/oracles/choreonoid/`) the way its AIST simulator does without contact: the body
//! loaded as a `DyBody`, placed at its initial position, in a `DyWorld<ConstraintForceSolver>`
//! with collision detection off, stepped [`DURATION`] s with the semi-implicit Euler method at
//! [`DT`] s, a sample every [`EVERY`] steps. Each trajectory is Choreonoid's CSV as the driver
//! prints it (`t`, then per link its world frame `NAME.x .y .z .qw .qx .qy .qz` and world
//! centre of mass `NAME.cx .cy .cz`), one file per model in
//! `formats/mbconv-body/tests/golden_sim/`, listed in `index.json` (name, group, source, the
//! gravity Choreonoid ran with and, for conversions, the hash of the Body text it ran). Three
//! groups:
//!
//! * `fixtures`: every `.body` file of `fixtures/body/` (default gravity (0, 0, -9.80665));
//! * `corpus`: the contact-free selection [`CORPUS`] of `../shared/corpus/body/` (each with
//!   why it is there);
//! * `converted`: every Chrono, SKEL and Shift fixture converted to Body as `mbconv convert X
//!   --to body` writes it, run with the gravity the converted model has (the Body lowering's
//!   gravity: a body file has none, so Choreonoid is told it with `--gravity`); where that is
//!   not the original's gravity, the same file is also run with the original's gravity
//!   (`converted_source_gravity`: what a project file carrying the gravity would run), so that
//!   everything else the conversion does is judged too.
//!
//! Files Choreonoid (or mbconv's writer) refuses are listed in `refused.txt` with the reason.
//! The test `formats/mbconv-body/tests/choreonoid_sim.rs` reads only this data: CI never
//! builds Choreonoid. Measured (2026-11-26, 83 runs in about a minute): mbconv's solver and
//! Choreonoid agree on every link frame to 8.9e-16 m on the Body fixtures and 5.0e-14 m on the
//! corpus selection (a loop fixture 1.8e-6 m); of 62 conversion runs 10 are exact (1.7e-13 m),
//! 44 explained by the lowering's reported losses (Choreonoid = mbconv's lowered model to
//! 1.7e-8 m), 8 listed with why (see "Choreonoid as a dynamic judge" in
//! `docs/formats/body.md`).

use crate::workspace_root;
use anyhow::{Context, Result, bail};
use mbconv_ir::format::{Options, Registry};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Simulated time (s).
pub const DURATION: f64 = 1.0;
/// Time step (s), as the AIST simulator item's default.
pub const DT: f64 = 1e-3;
/// A sample every this many steps.
pub const EVERY: usize = 20;

/// The corpus models judged, relative to `../shared/corpus/body/`, and why each. A bounded
/// selection (the whole corpus would be tens of MB of trajectories): the models Choreonoid
/// loads whose motion without contact is more than a free fall — a fixed root with moving
/// joints (arms, a hanging humanoid, closed loops) — and a few small floating ones (the free
/// root's integration); floors, terrains and single rigid bodies fall or stay, and the large
/// floating robots (SR1, WAREC1, GR001, DoubleArmV7) fall without their joints moving.
pub const CORPUS: &[(&str, &str)] = &[
    (
        "share/model/PA10/PA10.body",
        "fixed-base 7-axis arm with gripper, rotor inertias",
    ),
    (
        "share/model/JACO2/JACO2.body",
        "fixed-base arm with three fingers, rotor inertias",
    ),
    (
        "sample/AGXDynamics/agxMaterialSample.body",
        "fixed root, 19 joints",
    ),
    (
        "share/model/misc/ClosedLinkSample.body",
        "a closed loop (extra joint) whose anchors are 0.04 m apart along its axis",
    ),
    ("share/model/misc/conveyor.body", "fixed root, one joint"),
    (
        "sample/WRS2018/model/CollapsedCeilingG.body",
        "fixed root, one hinged panel",
    ),
    ("sample/WRS2018/model/GroovedPlate3.body", "fixed root, one joint"),
    (
        "share/model/misc/FourWheelCar.body",
        "floating root, wheels and steering",
    ),
    (
        "share/model/misc/CustomizedSpringModel.body",
        "floating root, one joint",
    ),
    (
        "share/model/Tank/SimpleTank.body",
        "floating root, pseudo-continuous tracks and a turret",
    ),
    ("share/model/misc/crawler.body", "floating root, two track joints"),
    ("sample/WRS2018/model/Spreader.body", "floating root, two joints"),
    // These load in body_oracle but not in the dynamics driver (refused.txt says how): a
    // `SubBody` link is loaded as a plain `Link`, which a `DyBody` refuses or crashes on (the
    // AIST simulator item copies a loaded body into a `DyBody` instead); a large loop model
    // crashes while stepping.
    (
        "share/model/SR1/SR1-floor-box.body",
        "SR1 humanoid on a fixed root: 31 joints",
    ),
    (
        "share/model/misc/BoxesOnFloor.body",
        "fixed root, four sub-bodies",
    ),
    (
        "share/model/Tank/Tank.body",
        "floating root with tracks (a sub-body)",
    ),
    (
        "share/model/DoubleArmV7/DoubleArmV7S.body",
        "closed loops whose anchors are apart",
    ),
];

/// The fixture folders converted to Body.
const CONVERTED_DIRS: [&str; 3] = ["chrono", "skel", "shift"];

fn oracle_binary() -> PathBuf {
    workspace_root().join("target/choreonoid-oracle/body_sim_oracle")
}

fn golden_dir() -> PathBuf {
    workspace_root().join("formats/mbconv-body/tests/golden_sim")
}

/// The golden name of a model: its group and path with `/` as `__`, without the extension.
fn golden_name(group: &str, relative: &str) -> String {
    let stem = relative.rsplit_once('.').map_or(relative, |(s, _)| s);
    format!("{group}__{}", stem.replace('/', "__"))
}

/// Runs the oracle on `body` with `gravity`; its CSV, or the reason it refused.
fn run_oracle(body: &Path, gravity: [f64; 3]) -> Result<std::result::Result<String, String>> {
    let root = workspace_root();
    let arg = body.strip_prefix(&root).unwrap_or(body).to_path_buf();
    let g: Vec<String> = gravity.iter().map(|x| format!("{x:e}")).collect();
    let output = Command::new(oracle_binary())
        .arg(&arg)
        .args(["--duration", &DURATION.to_string()])
        .args(["--dt", &DT.to_string()])
        .args(["--every", &EVERY.to_string()])
        .arg("--gravity")
        .args(&g)
        .current_dir(&root)
        .output()
        .context("cannot run body_sim_oracle")?;
    if output.status.success() {
        return Ok(Ok(String::from_utf8(output.stdout)?));
    }
    if let Some(signal) = std::os::unix::process::ExitStatusExt::signal(&output.status) {
        return Ok(Err(format!("crashed (signal {signal})")));
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let reason = stderr
        .lines()
        .skip(1)
        .find(|l| !l.trim().is_empty())
        .or_else(|| stderr.lines().next())
        .unwrap_or("refused")
        .trim()
        .to_owned();
    Ok(Err(reason))
}

/// The default gravity of Choreonoid's AIST simulator item, which a body file runs with.
const CHOREONOID_GRAVITY: [f64; 3] = [0.0, 0.0, -9.80665];

struct Golden {
    entries: Vec<Value>,
    refused: Vec<String>,
}

impl Golden {
    /// Runs the oracle and records the trajectory (or the refusal).
    fn judge(
        &mut self,
        group: &str,
        name: String,
        source: &str,
        body: &Path,
        gravity: [f64; 3],
        extra: Value,
    ) -> Result<()> {
        match run_oracle(body, gravity)? {
            Ok(csv) => {
                std::fs::write(golden_dir().join(format!("{name}.csv")), csv)?;
                let mut entry = json!({
                    "name": name,
                    "group": group,
                    "source": source,
                    "gravity": gravity,
                });
                if let (Value::Object(e), Value::Object(x)) = (&mut entry, extra) {
                    e.extend(x);
                }
                self.entries.push(entry);
            }
            Err(reason) => self
                .refused
                .push(format!("{group} {source}: Choreonoid: {reason}")),
        }
        Ok(())
    }
}

/// Every `.body` file directly in `dir`, sorted.
fn body_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot list {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "body"))
        .collect();
    files.sort();
    Ok(files)
}

/// Converts one fixture to Body in `scratch` and judges it; refusals go to the list.
fn judge_conversion(
    golden: &mut Golden,
    registry: &Registry,
    dir: &str,
    path: &Path,
    scratch: &Path,
) -> Result<()> {
    let file = path
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();
    let shown = format!("fixtures/{dir}/{file}");
    let relative = format!("{dir}/{file}");
    let converted = (|| -> std::result::Result<_, String> {
        let imported = mbconv_test_support::written_golden::read_source(registry, &shown, path)?;
        let body = registry.get("body").map_err(|e| e.to_string())?;
        let lowered = registry
            .lower(body, &imported.model, &Options::default())
            .map_err(|e| e.to_string())?;
        let exported = registry
            .write(body, &imported.model, &Options::default())
            .map_err(|e| e.to_string())?;
        Ok((imported.model, lowered.model, exported))
    })();
    let (original, lowered, exported) = match converted {
        Ok(c) => c,
        Err(e) => {
            golden.refused.push(format!("converted {shown}: mbconv: {e}"));
            return Ok(());
        }
    };
    let folder = scratch.join(dir);
    std::fs::create_dir_all(&folder)?;
    // The Body text names meshes as the source did (as `mbconv convert X --to body` writes to
    // standard output); each is linked into the scratch folder where that name resolves.
    for body in &original.bodies {
        for shape in &body.shapes {
            if let mbconv_ir::Geometry::Mesh(mesh) = &shape.geometry {
                let (uri, Some(resolved)) = (Path::new(&mesh.uri), &mesh.resolved_path) else {
                    continue;
                };
                let link = folder.join(uri);
                if uri.is_relative() && !link.exists() {
                    if let Some(parent) = link.parent() {
                        std::fs::create_dir_all(parent)?;
                    }
                    std::os::unix::fs::symlink(resolved, &link)?;
                }
            }
        }
    }
    let body_path = folder.join(format!("{}.body", file.split('.').next().unwrap_or("model")));
    std::fs::write(&body_path, &exported.text)?;
    let hash = mbconv_test_support::text_hash(&exported.text);
    let g = lowered.simulation.gravity_or_unstated();
    let lowered_gravity = [g.x, g.y, g.z];
    let g = original.simulation.gravity_or_unstated();
    let source_gravity = [g.x, g.y, g.z];
    let extra = json!({ "hash": hash });
    golden.judge(
        "converted",
        golden_name("converted", &relative),
        &shown,
        &body_path,
        lowered_gravity,
        extra.clone(),
    )?;
    if lowered_gravity != source_gravity {
        golden.judge(
            "converted_source_gravity",
            golden_name("converted_source_gravity", &relative),
            &shown,
            &body_path,
            source_gravity,
            extra,
        )?;
    }
    Ok(())
}

/// Regenerates `formats/mbconv-body/tests/golden_sim/`.
pub fn golden() -> Result<()> {
    if !oracle_binary().exists() {
        bail!(
            "{} is not built: run `cargo xtask oracles choreonoid` first",
            oracle_binary().display()
        );
    }
    let root = workspace_root();
    let out = golden_dir();
    std::fs::create_dir_all(&out)?;
    for entry in std::fs::read_dir(&out)? {
        let path = entry?.path();
        if path
            .extension()
            .is_some_and(|e| e == "csv" || e == "json" || e == "txt")
        {
            std::fs::remove_file(path)?;
        }
    }
    let mut golden = Golden {
        entries: Vec::new(),
        refused: Vec::new(),
    };
    for path in body_files(&root.join("fixtures/body"))? {
        let file = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let shown = format!("fixtures/body/{file}");
        golden.judge(
            "fixtures",
            golden_name("fixtures", &file),
            &shown,
            &path,
            CHOREONOID_GRAVITY,
            json!({}),
        )?;
    }
    let corpus = mbconv_test_support::corpus_root().join("body");
    for (relative, why) in CORPUS {
        let path = corpus.join(relative);
        if !path.is_file() {
            bail!("{} is missing from the corpus", path.display());
        }
        golden.judge(
            "corpus",
            golden_name("corpus", relative),
            &format!("corpus/body/{relative}"),
            &path,
            CHOREONOID_GRAVITY,
            json!({ "why": why }),
        )?;
    }
    // The loop whose anchors start apart, swinging: under gravity along -x the parallelogram
    // moves and the gap along the hinge axis is kept (under the default -z it hangs still).
    let swinging = "share/model/misc/ClosedLinkSample.body";
    golden.judge(
        "corpus",
        golden_name("corpus_gravity_minus_x", swinging),
        &format!("corpus/body/{swinging}"),
        &corpus.join(swinging),
        [-9.80665, 0.0, 0.0],
        json!({
            "why": "the open loop swinging under gravity along -x: the 0.04 m gap is kept",
            "gravity_set": true,
        }),
    )?;
    let registry = mbconv::formats();
    let scratch = root.join("target/tmp/choreonoid-sim");
    let _ = std::fs::remove_dir_all(&scratch);
    for dir in CONVERTED_DIRS {
        let folder = root.join("fixtures").join(dir);
        let mut files: Vec<PathBuf> = std::fs::read_dir(&folder)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file())
            .collect();
        files.sort();
        for path in files {
            let file = path
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            if mbconv_test_support::FIXTURES_NOT_MODELS.contains(&format!("{dir}/{file}").as_str()) {
                continue;
            }
            judge_conversion(&mut golden, &registry, dir, &path, &scratch)?;
        }
    }
    let index = json!({
        "oracle": "body_sim_oracle (../shared/oracles/choreonoid, Choreonoid 25994f3)",
        "integration": "semi-implicit Euler (AIST simulator default), no contact",
        "duration": DURATION,
        "dt": DT,
        "every": EVERY,
        "entries": golden.entries,
    });
    std::fs::write(
        out.join("index.json"),
        serde_json::to_string_pretty(&index)? + "\n",
    )?;
    let mut refused = golden.refused.join("\n");
    if !refused.is_empty() {
        refused.push('\n');
    }
    std::fs::write(out.join("refused.txt"), refused)?;
    eprintln!(
        "Choreonoid ran {} models ({} refused); golden data in {}",
        golden.entries.len(),
        golden.refused.len(),
        out.display()
    );
    Ok(())
}
