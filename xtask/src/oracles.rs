//! The oracle virtualenv and the golden data it produces.

use crate::{cargo, run, workspace_root};
use anyhow::{Result, bail};
use std::path::PathBuf;

/// Pinned oracle packages (the newest with Python 3.11 wheels; see shared/reference/oracles.md).
const PACKAGES: [&str; 5] = [
    "dartpy==6.20.0",
    "pin==4.1.0",
    "mujoco==4.0.0",
    "drake==1.51.1",
    "numpy",
];

/// Creates (or reuses) `target/oracle-venv` and returns its Python.
pub fn setup() -> Result<PathBuf> {
    let venv = workspace_root().join("target/oracle-venv");
    let python = venv.join("bin/python");
    if !python.exists() {
        run("python3", &["-m", "venv", &venv.to_string_lossy()])?;
    }
    let mut args = vec!["-m", "pip", "install", "--quiet"];
    args.extend(PACKAGES);
    run(&python, &args)?;
    Ok(python)
}

fn shared() -> Result<PathBuf> {
    let shared = workspace_root().join("../shared");
    if !shared.join("corpus").is_dir() {
        bail!("../shared/corpus is missing: the oracles run on the shared corpus");
    }
    Ok(shared)
}

/// DART golden data for the SKEL reader and writer (`formats/mbconv-skel/tests/golden`).
pub fn golden_dart() -> Result<()> {
    let python = setup()?;
    let shared = shared()?;
    let out = "formats/mbconv-skel/tests/golden";
    let script = "oracles/dart/dart_golden.py";
    let corpus = shared.join("corpus/skel");
    run(
        &python,
        &[
            script,
            "--root",
            &corpus.to_string_lossy(),
            "--prefix",
            "corpus",
            "--out",
            out,
        ],
    )?;
    run(
        &python,
        &[
            script,
            "--root",
            "fixtures/skel",
            "--prefix",
            "fixtures",
            "--out",
            out,
        ],
    )?;
    let written = workspace_root().join("target/skel-written");
    run(
        cargo(),
        &[
            "run",
            "-p",
            "mbconv-skel",
            "--example",
            "write_skel",
            "--",
            &corpus.to_string_lossy(),
            &written.to_string_lossy(),
        ],
    )?;
    run(
        &python,
        &[
            script,
            "--root",
            &written.to_string_lossy(),
            "--prefix",
            "written",
            "--out",
            out,
        ],
    )?;
    golden_dart_from_other_formats(&python)
}

/// DART loading the SKEL files mbconv writes from the other formats' fixtures
/// (`front/mbconv-cli/tests/golden/dart_written`; see the README there). The files are written
/// into `target/tmp/dart_written`, where the test writes them too, so relative mesh paths agree.
fn golden_dart_from_other_formats(python: &std::path::Path) -> Result<()> {
    let root = workspace_root();
    let golden = root.join("front/mbconv-cli/tests/golden/dart_written");
    let written = root.join("target/tmp/dart_written");
    run(cargo(), &["build", "-p", "mbconv-cli"])?;
    let mbconv = root.join("target/debug/mbconv");
    let _ = std::fs::remove_dir_all(&written);
    let _ = std::fs::remove_dir_all(golden.join("skel"));
    for entry in std::fs::read_dir(&golden)? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "json") {
            std::fs::remove_file(path)?;
        }
    }
    let mut inputs = vec![("ir", root.join("fixtures/ir/double_pendulum.mbir.json"))];
    let mut chrono: Vec<PathBuf> = std::fs::read_dir(root.join("fixtures/chrono"))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        // solver.yaml is a Chrono solver file, not a model.
        .filter(|p| p.extension().is_some_and(|e| e == "yaml") && !p.ends_with("solver.yaml"))
        .collect();
    chrono.sort();
    inputs.extend(chrono.into_iter().map(|p| ("chrono", p)));
    for (prefix, input) in &inputs {
        let dir = written.join(prefix);
        std::fs::create_dir_all(&dir)?;
        let stem = input
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.split('.').next())
            .unwrap_or("model");
        let out = dir.join(format!("{stem}.skel"));
        run(
            &mbconv,
            &[
                "-q",
                "convert",
                &input.to_string_lossy(),
                "-o",
                &out.to_string_lossy(),
            ],
        )?;
    }
    for prefix in ["chrono", "ir"] {
        let dir = written.join(prefix);
        let (dir_text, golden_text) = (dir.to_string_lossy(), golden.to_string_lossy());
        run(
            python,
            &[
                "oracles/dart/dart_golden.py",
                "--root",
                &dir_text,
                "--prefix",
                prefix,
                "--out",
                &golden_text,
            ],
        )?;
        let copy = golden.join("skel").join(prefix);
        std::fs::create_dir_all(&copy)?;
        for entry in std::fs::read_dir(&dir)? {
            let path = entry?.path();
            if let Some(name) = path.file_name() {
                std::fs::copy(&path, copy.join(name))?;
            }
        }
    }
    dart_trajectories_of_written_skel(python, &written.join("chrono"), &golden.join("trajectories"))
}

/// DART's 1 s trajectory (semi-implicit Euler at the file's own time step, collisions off,
/// every body's centre of mass every 0.1 s) of each SKEL file in `dir`, written as
/// `chrono__<name>.json` into `out` (`oracles/dart/dart_trajectory.py`).
fn dart_trajectories_of_written_skel(
    python: &std::path::Path,
    dir: &std::path::Path,
    out: &std::path::Path,
) -> Result<()> {
    let _ = std::fs::remove_dir_all(out);
    std::fs::create_dir_all(out)?;
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "skel"))
        .collect();
    files.sort();
    for file in files {
        let text = std::fs::read_to_string(&file)?;
        let dt = skel_time_step(&text).unwrap_or(1e-3);
        let every = ((0.1 / dt).round() as usize).max(1);
        let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or("model");
        let target = out.join(format!("chrono__{stem}.json"));
        run(
            python,
            &[
                "oracles/dart/dart_trajectory.py",
                &file.to_string_lossy(),
                "--dt",
                &format!("{dt:e}"),
                "--duration",
                "1",
                "--every",
                &every.to_string(),
                "--out",
                &target.to_string_lossy(),
            ],
        )?;
    }
    Ok(())
}

/// The `<time_step>` a SKEL text states, if any.
fn skel_time_step(text: &str) -> Option<f64> {
    let start = text.find("<time_step>")? + "<time_step>".len();
    let end = start + text[start..].find("</time_step>")?;
    text[start..end].trim().parse().ok()
}

/// Pinocchio ABA and DART trajectory golden data for the solver
/// (`crates/mbconv-solver/tests/golden`): the corpus SKEL files and the project's SKEL fixtures.
pub fn golden_solver() -> Result<()> {
    let python = setup()?;
    let shared = shared()?;
    let golden = "crates/mbconv-solver/tests/golden";
    run(
        &python,
        &[
            "oracles/solver/pinocchio_aba.py",
            &format!("{golden}/pinocchio_aba.json"),
        ],
    )?;
    run(
        &python,
        &[
            "oracles/solver/dart_skel.py",
            &shared.join("corpus/skel").to_string_lossy(),
            &format!("{golden}/dart_skel.json"),
        ],
    )?;
    run(
        &python,
        &[
            "oracles/solver/dart_skel.py",
            "fixtures/skel",
            &format!("{golden}/dart_fixtures.json"),
        ],
    )
}

/// Small corpus models whose 1 s trajectories MuJoCo records for the solver comparison.
const MJCF_TRAJECTORY_CORPUS: [&str; 7] = [
    "dm_control/dm_control/suite/acrobot.xml",
    "dm_control/dm_control/suite/pendulum.xml",
    "drake/multibody/benchmarks/acrobot/acrobot.xml",
    "drake/multibody/parsing/test/mujoco_parser_test/pendulum.xml",
    "mujoco/test/engine/testdata/rotations.xml",
    "mujoco/test/engine/testdata/spin_recoil.xml",
    "mujoco/test/user/testdata/dzhanibekov.xml",
];

/// The model files of `<corpus>/README.md` (first column of its table) whose names end with
/// one of `extensions` (`.xml`).
fn corpus_models(corpus: &std::path::Path, extensions: &[&str]) -> Result<Vec<String>> {
    let readme = std::fs::read_to_string(corpus.join("README.md"))?;
    let files: Vec<String> = readme
        .lines()
        .filter_map(|line| line.strip_prefix("| `"))
        .filter_map(|rest| rest.split('`').next())
        .filter(|file| extensions.iter().any(|e| file.ends_with(e)))
        .map(str::to_owned)
        .collect();
    if files.is_empty() {
        bail!("no model files in {}", corpus.join("README.md").display());
    }
    Ok(files)
}

/// The names of the files in `dir` whose extension is one of `extensions` (`xml`), sorted.
fn fixture_names(dir: &std::path::Path, extensions: &[&str]) -> Result<Vec<String>> {
    let mut names: Vec<String> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| extensions.iter().any(|x| e == *x)))
        .filter_map(|p| p.file_name().and_then(|n| n.to_str()).map(str::to_owned))
        .collect();
    names.sort();
    Ok(names)
}

/// Removes the `.json` files directly in `dir` (not its subfolders); a missing `dir` is fine.
fn remove_json_files(dir: &std::path::Path) -> Result<()> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    for path in entries.filter_map(|e| e.ok().map(|e| e.path())) {
        if path.is_file() && path.extension().is_some_and(|e| e == "json") {
            std::fs::remove_file(&path)?;
        }
    }
    Ok(())
}

/// Runs an oracle `script` on every corpus model of `models` under `corpus` (golden files
/// named `corpus__…` in `out`), with trajectories for those in `with_trajectory` only.
fn judge_corpus(
    python: &std::path::Path,
    script: &str,
    corpus: &std::path::Path,
    out: &str,
    models: &[String],
    with_trajectory: &[&str],
) -> Result<()> {
    let corpus_root = corpus.to_string_lossy();
    let base = [
        script,
        "--root",
        &*corpus_root,
        "--prefix",
        "corpus",
        "--out",
        out,
    ];
    let mut args = base.to_vec();
    args.extend(
        models
            .iter()
            .map(String::as_str)
            .filter(|m| !with_trajectory.contains(m)),
    );
    run(python, &args)?;
    let mut args = base.to_vec();
    args.push("--trajectory");
    args.extend(with_trajectory);
    run(python, &args)
}

/// MuJoCo golden data for the MJCF reader and writer (`formats/mbconv-mjcf/tests/golden`):
/// every fixture of `fixtures/mjcf` (with trajectories; `keyframes.xml` also at its keyframe
/// `moved`), every model file of the MJCF corpus (a few small ones with trajectories), and every
/// MJCF, IR, SKEL and Chrono fixture as mbconv writes it in MJCF (with trajectories and the
/// written text's hash).
pub fn golden_mjcf() -> Result<()> {
    let python = setup()?;
    let corpus = shared()?.join("corpus/mjcf");
    let root = workspace_root();
    let out = root.join("formats/mbconv-mjcf/tests/golden");
    // Its own files only: `written_all/` below is `golden mjcf-written`'s.
    remove_json_files(&out)?;
    let script = root.join("oracles/mujoco/mujoco_golden.py");
    let (script, out) = (script.to_string_lossy(), out.to_string_lossy());
    let fixtures = fixture_names(&root.join("fixtures/mjcf"), &["xml"])?;
    let fixture_root = root.join("fixtures/mjcf");
    let fixture_root = fixture_root.to_string_lossy();
    let mut args = vec![
        &*script,
        "--root",
        &*fixture_root,
        "--prefix",
        "fixtures",
        "--out",
        &*out,
        "--trajectory",
        "--keyframe",
        "keyframes.xml=moved",
    ];
    args.extend(fixtures.iter().map(String::as_str));
    run(&python, &args)?;
    let models = corpus_models(&corpus, &[".xml"])?;
    judge_corpus(&python, &script, &corpus, &out, &models, &MJCF_TRAJECTORY_CORPUS)?;
    // The writer judged by MuJoCo: every MJCF, IR, SKEL and Chrono fixture written as MJCF by
    // mbconv (examples/write_mjcf.rs), loaded and moved by MuJoCo, each text's hash recorded.
    let written = root.join("target/tmp/mjcf-written");
    let _ = std::fs::remove_dir_all(&written);
    run(
        cargo(),
        &[
            "run",
            "-q",
            "-p",
            "mbconv-mjcf",
            "--example",
            "write_mjcf",
            "--",
            &written.to_string_lossy(),
        ],
    )?;
    let mut texts: Vec<String> = std::fs::read_dir(&written)?
        .filter_map(|e| e.ok().and_then(|e| e.file_name().to_str().map(str::to_owned)))
        .collect();
    texts.sort();
    let written_root = written.to_string_lossy();
    let mut args = vec![
        &*script,
        "--root",
        &*written_root,
        "--prefix",
        "written",
        "--out",
        &*out,
        "--trajectory",
        "--hash",
    ];
    args.extend(texts.iter().map(String::as_str));
    run(&python, &args)
}

/// Small corpus SDFormat models (no contact-relevant content) whose 1 s trajectories Drake
/// records for the solver comparison.
const SDF_TRAJECTORY_CORPUS: [&str; 9] = [
    "drake/bindings/pydrake/multibody/test/double_pendulum.sdf",
    "drake/bindings/pydrake/multibody/test/pendulum_on_rail.sdf",
    "drake/examples/acrobot/Acrobot.sdf",
    "drake/multibody/benchmarks/acrobot/acrobot.sdf",
    "drake/multibody/meshcat/test/universal_joint.sdf",
    "drake/multibody/parsing/test/sdf_parser_test/revolute_spring_parsing_test.sdf",
    "drake/multibody/plant/test/split_pendulum.sdf",
    "gz-sim/examples/worlds/world_joint.sdf",
    "sdformat/test/sdf/double_pendulum.sdf",
];

/// Drake 1.51's golden data for the SDFormat reader (`formats/mbconv-sdf/tests/golden`,
/// `oracles/drake/sdf_golden.py`): every `.sdf` fixture of `fixtures/sdf` (with 1 s
/// trajectories; the models of `fixtures/sdf/models` given to Drake as packages so that
/// `model://NAME` resolves) and every model file of the SDFormat corpus (`MBCONV_CORPUS`, else
/// `../shared/corpus`; a few small ones with trajectories). Then DART 6.20's reading of the
/// same files whose `<sdf version>` is 1.4, 1.5 or 1.6 (`tests/golden/dart`,
/// `oracles/dart/sdf_golden.py`), a second opinion. The Python is `$MBCONV_ORACLE_PYTHON` when
/// set, else this checkout's `target/oracle-venv`.
pub fn golden_sdf() -> Result<()> {
    let python = crate::written::oracle_python()?;
    let root = workspace_root();
    let corpus = std::env::var_os("MBCONV_CORPUS")
        .map_or_else(|| root.join("../shared/corpus"), PathBuf::from)
        .join("sdf");
    if !corpus.is_dir() {
        bail!(
            "{} is missing: the oracles run on the shared corpus (set MBCONV_CORPUS)",
            corpus.display()
        );
    }
    let out = root.join("formats/mbconv-sdf/tests/golden");
    // Its own files only: `written_all/` below is `golden sdf-written`'s.
    remove_json_files(&out)?;
    let script = root.join("oracles/drake/sdf_golden.py");
    let (script, out) = (script.to_string_lossy(), out.to_string_lossy());
    let fixture_root = root.join("fixtures/sdf");
    let fixtures = fixture_names(&fixture_root, &["sdf", "world"])?;
    let mut packages: Vec<String> = std::fs::read_dir(fixture_root.join("models"))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .filter_map(|p| p.file_name().and_then(|n| n.to_str()).map(str::to_owned))
        .map(|name| format!("{name}=models/{name}"))
        .collect();
    packages.sort();
    let fixture_root = fixture_root.to_string_lossy();
    let mut args = vec![
        &*script,
        "--root",
        &*fixture_root,
        "--prefix",
        "fixtures",
        "--out",
        &*out,
        "--trajectory",
    ];
    for package in &packages {
        args.extend(["--package", package.as_str()]);
    }
    args.extend(fixtures.iter().map(String::as_str));
    run(&python, &args)?;
    let models = corpus_models(&corpus, &[".sdf", ".world"])?;
    judge_corpus(&python, &script, &corpus, &out, &models, &SDF_TRAJECTORY_CORPUS)?;
    // DART 6.20's second opinion on the same files; the script judges the SDFormat 1.4-1.6
    // ones only (the only versions DART's SdfParser reads) and names the others it skips.
    let dart = root.join("formats/mbconv-sdf/tests/golden/dart");
    let dart_script = root.join("oracles/dart/sdf_golden.py");
    let (dart_script, dart) = (dart_script.to_string_lossy(), dart.to_string_lossy());
    let corpus_root = corpus.to_string_lossy();
    for (place, prefix, files) in [
        (&*fixture_root, "fixtures", &fixtures),
        (&*corpus_root, "corpus", &models),
    ] {
        let mut args = vec![
            &*dart_script,
            "--root",
            place,
            "--prefix",
            prefix,
            "--out",
            &*dart,
        ];
        args.extend(files.iter().map(String::as_str));
        run(&python, &args)?;
    }
    Ok(())
}

/// Creates (or reuses) the venv `target/oracles/<name>` with the pinned packages of
/// `oracles/<name>/requirements.txt` (or the given requirements file) and returns its Python.
/// Each USD judge has a venv of its own: usd-core and usd-exchange both ship a `pxr`.
pub fn venv(name: &str, requirements: &str) -> Result<PathBuf> {
    let venv = workspace_root().join("target/oracles").join(name);
    let python = venv.join("bin/python");
    if !python.exists() {
        run("python3", &["-m", "venv", &venv.to_string_lossy()])?;
    }
    run(&python, &["-m", "pip", "install", "--quiet", "-r", requirements])?;
    Ok(python)
}

/// The Python of the Newton venv (`target/oracles/newton`, `oracles/newton/requirements.txt`).
pub fn newton_python() -> Result<PathBuf> {
    venv("newton", "oracles/newton/requirements.txt")
}

/// OpenUSD's reading of the USD fixtures (`formats/mbconv-usd/tests/golden/*.json`) and of the
/// USD corpus `cargo xtask download newton` fetches (`golden/downloads/`), by
/// `oracles/usd/usd_golden.py` in the venv `target/oracles/usd`; and, when `cargo xtask
/// peers-usd` has left the peers' USD in `target/peers-usd`, OpenUSD's reading of each of those
/// (the reader's held-out set, `openusd.json` beside each root layer, never in the repository).
pub fn golden_usd() -> Result<()> {
    let python = venv("usd", "oracles/usd/requirements.txt")?;
    run(&python, &["oracles/usd/usd_golden.py"])?;
    // The USD corpus (the `newton` wheel's stages), fetched when missing.
    crate::downloads::download(&["newton"])?;
    run(
        &python,
        &[
            "oracles/usd/usd_golden.py",
            "--downloads",
            &crate::downloads::downloads_dir().to_string_lossy(),
        ],
    )?;
    let held_out = workspace_root().join("target/peers-usd");
    if held_out.is_dir() {
        run(
            &python,
            &[
                "oracles/usd/usd_golden.py",
                "--held-out",
                &held_out.to_string_lossy(),
            ],
        )?;
    }
    golden_usd_newton_read()
}

/// The USD corpus's folders of stages in each download (docs/formats/usd.md, "Corpus"), as
/// `oracles/usd/usd_golden.py` parses them.
const USD_CORPUS: [(&str, &[&str]); 1] =
    [("newton-1.8.0", &["newton/examples/assets", "newton/tests/assets"])];

/// Newton's 1 s trajectory of every USD fixture (`fixtures/usd`, the layers under a `Payload/`
/// folder aside) and of every stage of the USD corpus (fetched when missing), written by
/// `oracles/newton/usd_newton_golden.py` (the Newton venv) to
/// `formats/mbconv-usd/tests/golden/newton_read/<name>.json`, `<name>` the stage's path from
/// the fixtures' folder (`fixtures__usd__...`) or the download (`newton-1.8.0__...`) with `/`
/// as `__`; each file holds the hash of the stage's root layer it judged.
pub fn golden_usd_newton_read() -> Result<()> {
    let python = newton_python()?;
    crate::downloads::download(&["newton"])?;
    let root = workspace_root();
    let mut stages: Vec<(String, PathBuf)> = Vec::new();
    let fixtures = root.join("fixtures/usd");
    crate::corpus::collect(&fixtures, &mut |path| {
        let relative = path.strip_prefix(&fixtures).unwrap_or(path);
        let layer = path
            .extension()
            .is_some_and(|e| ["usda", "usdc", "usdz"].contains(&e.to_string_lossy().as_ref()));
        if layer && !relative.components().any(|c| c.as_os_str() == "Payload") {
            let name = format!("fixtures/usd/{}", relative.display());
            stages.push((name, path.to_path_buf()));
        }
    })?;
    for (download, folders) in USD_CORPUS {
        let base = crate::downloads::downloads_dir().join(download);
        for folder in folders {
            crate::corpus::collect(&base.join(folder), &mut |path| {
                if path.extension().is_some_and(|e| e == "usda" || e == "usd") {
                    let relative = path.strip_prefix(&base).unwrap_or(path);
                    stages.push((format!("{download}/{}", relative.display()), path.to_path_buf()));
                }
            })?;
        }
    }
    let mut manifest = Vec::new();
    for (shown, path) in &stages {
        let bytes = std::fs::read(path)?;
        manifest.push(serde_json::json!({
            "name": shown.replace('/', "__"),
            "source": shown,
            "usd": path,
            "hash": mbconv_test_support::text_hash(&String::from_utf8_lossy(&bytes)),
        }));
    }
    let scratch = root.join("target/tmp/usd_newton_read");
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch)?;
    let manifest_path = scratch.join("manifest.json");
    std::fs::write(&manifest_path, serde_json::to_string_pretty(&manifest)?)?;
    let out = root.join("formats/mbconv-usd/tests/golden/newton_read");
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out)?;
    eprintln!("{} USD stages for Newton to run", manifest.len());
    run(
        &python,
        &[
            "oracles/newton/usd_newton_golden.py",
            "--manifest",
            &manifest_path.to_string_lossy(),
            "--out",
            &out.to_string_lossy(),
        ],
    )
}
