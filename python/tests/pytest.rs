//! The Python package's tests, run by `cargo test --workspace` (the README's one test
//! command): makes a virtual environment under `target/python-tests/`, builds the package's
//! wheel from `python/` with pip (maturin builds the extension module with the `dev` profile,
//! sharing the workspace's build), checks it is the abi3 wheel for CPython 3.9+ (`cp39-abi3`)
//! and installs it, installs pytest, mypy, MuJoCo, Pinocchio, Ray and
//! tqdm from PyPI (once: the environment is kept between runs), and runs the pytest
//! suite in `python/tests/` (which also type-checks the package's stubs with mypy and runs the
//! examples of `docs/python.md`).
//!
//! Without `python3` or its `venv` module the test prints a notice and passes;
//! `MBCONV_REQUIRE_PYTHON=1` (as CI runs it) makes that a failure. `MBCONV_PYTHON` names
//! another interpreter. Set `MBCONV_PYTEST_ARGS` to pass arguments to pytest (`-k check`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// The packages the suite needs beside the package: numpy, pytest and mypy; MuJoCo and
/// Pinocchio at the versions `cargo xtask oracles` uses (`test_simulators.py` loads what the
/// package writes with them); Ray, pinned (wheels for CPython 3.9 to 3.13 on Linux x86_64), for
/// `mbconv.ray` on a local instance of two workers (`test_ray.py`); tqdm for the progress bars.
const TEST_PACKAGES: &[&str] = &[
    "numpy>=1.21",
    "pytest>=7",
    "mypy>=1.5",
    "mujoco==4.0.0",
    "pin==4.1.0",
    "ray==2.60.0",
    "tqdm==4.70.1",
];

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("target"))
}

/// Skips with a notice, or fails under `MBCONV_REQUIRE_PYTHON=1`.
fn unavailable(why: &str) {
    if std::env::var_os("MBCONV_REQUIRE_PYTHON").is_some_and(|v| v == "1") {
        panic!("MBCONV_REQUIRE_PYTHON=1 and {why}");
    }
    eprintln!(
        "notice: the Python package's tests are skipped: {why} (MBCONV_REQUIRE_PYTHON=1 makes this a failure)"
    );
}

/// Runs `command`, panicking with its output when it fails.
fn run(command: &mut Command, what: &str) {
    let started = Instant::now();
    let status = command.status().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(status.success(), "{what} failed ({status})");
    eprintln!("{what}: {:.1} s", started.elapsed().as_secs_f64());
}

#[test]
fn the_python_package_installs_and_passes_its_tests() {
    let python = std::env::var("MBCONV_PYTHON").unwrap_or_else(|_| "python3".to_owned());
    let probe = Command::new(&python)
        .args([
            "-c",
            "import venv, ensurepip, sys; assert sys.version_info >= (3, 9)",
        ])
        .output();
    match probe {
        Ok(out) if out.status.success() => {}
        Ok(out) => {
            return unavailable(&format!(
                "{python} has no venv/ensurepip or is older than 3.9: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Err(e) => return unavailable(&format!("{python} cannot be run: {e}")),
    }
    let root = workspace();
    let venv = target_dir().join("python-tests").join("venv");
    let bin = venv.join("bin");
    if !bin.join("python").exists() {
        run(
            Command::new(&python).args(["-m", "venv"]).arg(&venv),
            "python3 -m venv",
        );
    }
    // The test packages, installed again when the list changes.
    let marker = venv.join("mbconv-test-packages.txt");
    let wanted = TEST_PACKAGES.join("\n");
    if std::fs::read_to_string(&marker).ok().as_deref() != Some(wanted.as_str()) {
        let mut install = Command::new(bin.join("python"));
        install.args(["-m", "pip", "install", "--quiet", "--upgrade", "pip"]);
        install.args(TEST_PACKAGES);
        run(&mut install, "pip install numpy pytest mypy mujoco pin ray tqdm");
        std::fs::write(&marker, wanted).unwrap();
    }
    // The package itself, rebuilt every run (cargo decides what to rebuild) as the wheel a
    // release publishes (one abi3 wheel for CPython 3.9 and later: its tag says so), and that
    // wheel installed.
    let wheels = target_dir().join("python-tests").join("wheels");
    let _ = std::fs::remove_dir_all(&wheels);
    run(
        Command::new(bin.join("python"))
            .args(["-m", "pip", "wheel", "--quiet", "--no-deps", "-w"])
            .arg(&wheels)
            .arg(root.join("python"))
            .env("MATURIN_PEP517_ARGS", "--profile dev")
            .env("PIP_DISABLE_PIP_VERSION_CHECK", "1"),
        "pip wheel ./python",
    );
    let wheel = std::fs::read_dir(&wheels)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "whl"))
        .expect("pip wheel wrote a wheel");
    let name = wheel.file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        name.starts_with("mbconv-") && name.contains("-cp39-abi3-"),
        "the wheel is one abi3 wheel for CPython 3.9 and later: {name}"
    );
    run(
        Command::new(bin.join("python"))
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--force-reinstall",
                "--no-deps",
            ])
            .arg(&wheel)
            .env("PIP_DISABLE_PIP_VERSION_CHECK", "1"),
        "pip install the wheel",
    );
    let mut pytest = Command::new(bin.join("python"));
    pytest
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .arg(root.join("python/tests"))
        .current_dir(&root)
        .env("MBCONV_VENV_BIN", &bin);
    if let Ok(args) = std::env::var("MBCONV_PYTEST_ARGS") {
        pytest.args(args.split_whitespace());
    }
    run(&mut pytest, "pytest python/tests");
}
