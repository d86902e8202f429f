//! `cargo xtask bench xacro`: expanding description packages, mbconv (`mbconv-xacro`, release)
//! beside the reference (xacro 2.1.1 in Python), side by side in one run: the median of N
//! expansions each, in-process for both (neither the program's nor the interpreter's start-up
//! counted). The PR2 of xacro 2.1.1's test inputs (`cargo xtask download xacro`)
//! always; the UR and Franka descriptions when `MBCONV_XACRO_FIELD` names the folder holding
//! them.

use crate::{cargo, workspace_root};
use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};
use std::process::Command;

/// One expansion measured: the file (relative to its root), its arguments, the packages
/// `$(find)` needs (name, directory relative to the root).
struct Case {
    label: &'static str,
    root: PathBuf,
    file: &'static str,
    args: &'static [&'static str],
    packages: &'static [(&'static str, &'static str)],
}

fn cases() -> Result<Vec<Case>> {
    crate::downloads::download(&["xacro"])?;
    let download = crate::downloads::downloads_dir().join("xacro-2.1.1");
    let mut cases = vec![Case {
        label: "PR2 (xacro 2.1.1 test inputs)",
        root: download,
        file: "test/robots/pr2/pr2.urdf.xacro",
        args: &[],
        packages: &[("xacro", ".")],
    }];
    match std::env::var_os("MBCONV_XACRO_FIELD") {
        Some(field) => {
            let field = PathBuf::from(field);
            cases.push(Case {
                label: "UR5e (ur_description, ur.urdf.xacro)",
                root: field.clone(),
                file: "ur_description/urdf/ur.urdf.xacro",
                args: &["ur_type:=ur5e", "name:=ur5e"],
                packages: &[("ur_description", "ur_description")],
            });
            cases.push(Case {
                label: "FR3 (franka_description, fr3.urdf.xacro)",
                root: field,
                file: "franka_description/robots/fr3/fr3.urdf.xacro",
                args: &[],
                packages: &[("franka_description", "franka_description")],
            });
        }
        None => eprintln!("notice: MBCONV_XACRO_FIELD is not set; UR and Franka are not measured"),
    }
    Ok(cases)
}

fn median_ms(out: std::process::Output, what: &str) -> Result<f64> {
    if !out.status.success() {
        bail!(
            "{what} failed:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .with_context(|| format!("{what}: no time printed"))
}

/// Measures every case `rounds` times with both and prints the table.
pub fn bench(rounds: usize) -> Result<()> {
    let root = workspace_root();
    let status = Command::new(cargo())
        .args(["build", "--release", "-p", "mbconv-xacro", "--example", "expand"])
        .current_dir(&root)
        .status()?;
    if !status.success() {
        bail!("cannot build the expand example");
    }
    let ours = root.join("target/release/examples/expand");
    let python = crate::xacro_golden::python()?;
    let script = root.join("oracles/xacro/bench_xacro.py");
    println!("| expansion | files read | mbconv (ms) | xacro 2.1.1 (ms) | ratio |");
    println!("|---|---|---|---|---|");
    for case in cases()? {
        let file = case.root.join(case.file);
        let files = files_read(&ours, &case.root, &file, case.args)?;
        let mut cmd = Command::new(&ours);
        cmd.arg(&file)
            .args(["--package-path"])
            .arg(&case.root)
            .args(case.args);
        cmd.args(["--time", &rounds.to_string()]).current_dir(&case.root);
        let mine = median_ms(cmd.output()?, "mbconv")?;
        let map: Vec<String> = case
            .packages
            .iter()
            .map(|(n, d)| format!("{n}={}", case.root.join(d).display()))
            .collect();
        let out = Command::new(&python)
            .arg(&script)
            .arg(&file)
            .arg(rounds.to_string())
            .arg(map.join(";"))
            .args(case.args)
            .current_dir(&case.root)
            .output()?;
        let theirs = median_ms(out, "the reference")?;
        println!(
            "| {} | {files} | {mine:.1} | {theirs:.1} | {:.0}x |",
            case.label,
            theirs / mine
        );
    }
    Ok(())
}

/// How many files the expansion reads (from the example's report on standard error).
fn files_read(ours: &Path, root: &Path, file: &Path, args: &[&str]) -> Result<usize> {
    let out = Command::new(ours)
        .arg(file)
        .arg("--package-path")
        .arg(root)
        .args(args)
        .arg("--files")
        .current_dir(root)
        .output()?;
    median_ms(out, "mbconv --files").map(|n| n as usize)
}
