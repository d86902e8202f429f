//! `docs/architecture.md` states the workspace's crates and the rules of which may depend on
//! which; this test compares both with `cargo metadata`, so the page cannot drift from the
//! code: every crate of the workspace is listed at its path, every listed crate exists, every
//! crate has a rule, and no crate depends on a workspace crate its rule does not allow. It
//! also checks the folder rule: the folders read top-down (`front/`, `formats/`, `crates/`), a
//! crate depends only on crates in its own folder or below, and a format crate on no other.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Workspace packages: name -> (path relative to the root, normal dependencies on workspace
/// packages).
fn workspace() -> BTreeMap<String, (String, BTreeSet<String>)> {
    let root = workspace_root().canonicalize().unwrap();
    let out = std::process::Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--no-deps",
            "--format-version",
            "1",
            "--manifest-path",
        ])
        .arg(root.join("Cargo.toml"))
        .output()
        .expect("cargo metadata runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let meta: Value = serde_json::from_slice(&out.stdout).unwrap();
    let packages = meta["packages"].as_array().unwrap();
    let names: BTreeSet<String> = packages
        .iter()
        .map(|p| p["name"].as_str().unwrap().to_owned())
        .collect();
    packages
        .iter()
        .map(|p| {
            let manifest = PathBuf::from(p["manifest_path"].as_str().unwrap());
            let dir = manifest.parent().unwrap().canonicalize().unwrap();
            let rel = dir
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            let deps = p["dependencies"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|d| d["kind"].is_null())
                .map(|d| d["name"].as_str().unwrap().to_owned())
                .filter(|d| names.contains(d))
                .collect();
            (p["name"].as_str().unwrap().to_owned(), (rel, deps))
        })
        .collect()
}

/// The page's `## Crates` section.
fn crates_section() -> String {
    let text = std::fs::read_to_string(workspace_root().join("docs/architecture.md")).unwrap();
    let start = text.find("\n## Crates\n").expect("a `## Crates` section");
    let rest = &text[start + 1..];
    let end = rest[3..].find("\n## ").map_or(rest.len(), |i| i + 3);
    rest[..end].to_owned()
}

/// The paths listed in the section's code block, in the page's order (the first word of each
/// line that does not start with a space).
fn listed_in_order(section: &str) -> Vec<String> {
    let block = section
        .split("```")
        .nth(1)
        .expect("a code block listing the crates");
    block
        .lines()
        .skip(1)
        .filter(|l| !l.is_empty() && !l.starts_with(' '))
        .map(|l| l.split_whitespace().next().unwrap().to_owned())
        .collect()
}

/// The paths listed in the section's code block.
fn listed_paths(section: &str) -> BTreeSet<String> {
    listed_in_order(section).into_iter().collect()
}

/// The folders that hold the crates, top-down: what faces users (the facade, the CLI), one
/// crate per format, the foundations that know no format. `xtask` sits beside them.
const FOLDERS: [&str; 3] = ["front", "formats", "crates"];

/// The folder of a crate at `path` (its rank in [`FOLDERS`], 0 on top), `None` for `xtask`
/// and `python` (the Python package's extension crate, which sits beside them as `xtask`
/// does), `Err` for a crate in no folder of the rule.
fn folder_rank(path: &str) -> Result<Option<usize>, ()> {
    if path == "xtask" || path == "python" {
        return Ok(None);
    }
    let folder = path.split_once('/').map_or("", |(folder, _)| folder);
    FOLDERS.iter().position(|f| *f == folder).map(Some).ok_or(())
}

/// Breaches of the folder rule: a crate in no folder, or a crate that depends on one in a folder
/// above its own or, for a format crate, on another format crate.
fn folder_problems(packages: &BTreeMap<String, (String, BTreeSet<String>)>) -> Vec<String> {
    let mut problems = Vec::new();
    for (name, (path, deps)) in packages {
        let Ok(rank) = folder_rank(path) else {
            problems.push(format!("{name} ({path}) lies in none of {FOLDERS:?}"));
            continue;
        };
        let Some(rank) = rank else { continue };
        for dep in deps {
            let dep_path = &packages[dep].0;
            let Ok(Some(dep_rank)) = folder_rank(dep_path) else {
                continue;
            };
            if dep_rank < rank || (dep_rank == rank && FOLDERS[rank] == "formats") {
                problems.push(format!(
                    "{name} ({path}) depends on {dep} ({dep_path}), which the folder rule does not allow"
                ));
            }
        }
    }
    problems
}

/// The rules table: selector (a crate name or a `dir/*` pattern) -> the selectors of the
/// allowed dependencies (`None` for `any`).
fn rules(section: &str) -> Vec<(String, Option<BTreeSet<String>>)> {
    let ticked =
        |cell: &str| -> Vec<String> { cell.split('`').skip(1).step_by(2).map(str::to_owned).collect() };
    section
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let cells: Vec<&str> = l.trim_matches('|').split('|').map(str::trim).collect();
            assert_eq!(cells.len(), 2, "a rule row has two cells: {l}");
            let selector = ticked(cells[0]).into_iter().next().unwrap();
            let allowed = match cells[1] {
                "any" => None,
                "nothing" => Some(BTreeSet::new()),
                cell => Some(ticked(cell).into_iter().collect()),
            };
            (selector, allowed)
        })
        .collect()
}

fn selects(selector: &str, name: &str, path: &str) -> bool {
    match selector.strip_suffix("/*") {
        Some(dir) => path.rsplit_once('/').is_some_and(|(parent, _)| parent == dir),
        None => selector == name,
    }
}

#[test]
fn the_architecture_page_lists_every_crate_and_its_dependency_rule() {
    let packages = workspace();
    let section = crates_section();
    let listed = listed_paths(&section);
    let actual: BTreeSet<String> = packages.values().map(|(path, _)| path.clone()).collect();
    let unlisted: Vec<_> = actual.difference(&listed).collect();
    let missing: Vec<_> = listed.difference(&actual).collect();
    assert!(
        unlisted.is_empty() && missing.is_empty(),
        "docs/architecture.md: crates not listed: {unlisted:?}; listed but not in the workspace: {missing:?}"
    );

    let rules = rules(&section);
    assert!(!rules.is_empty(), "no dependency rules found");
    let mut problems = Vec::new();
    for (selector, allowed) in &rules {
        for s in std::iter::once(selector).chain(allowed.iter().flatten()) {
            if !packages.iter().any(|(name, (path, _))| selects(s, name, path)) {
                problems.push(format!(
                    "the rule for `{selector}` names `{s}`, which is no crate"
                ));
            }
        }
    }
    for (name, (path, deps)) in &packages {
        let matching: Vec<_> = rules.iter().filter(|(s, _)| selects(s, name, path)).collect();
        match matching.as_slice() {
            [(_, None)] => {}
            [(_, Some(allowed))] => {
                for dep in deps {
                    let dep_path = &packages[dep].0;
                    if !allowed.iter().any(|a| selects(a, dep, dep_path)) {
                        problems.push(format!("{name} depends on {dep}, which its rule does not allow"));
                    }
                }
            }
            [] => problems.push(format!("{name} ({path}) has no dependency rule")),
            _ => problems.push(format!("{name} ({path}) has several dependency rules")),
        }
    }
    assert!(
        problems.is_empty(),
        "docs/architecture.md: {}",
        problems.join("; ")
    );
}

#[test]
fn the_folders_read_top_down() {
    let packages = workspace();
    let problems = folder_problems(&packages);
    assert!(problems.is_empty(), "{}", problems.join("; "));
    // The page lists the folders in the same order, top-down.
    let mut order: Vec<&str> = Vec::new();
    let listed = listed_in_order(&crates_section());
    for path in &listed {
        if let Ok(Some(rank)) = folder_rank(path)
            && order.last() != Some(&FOLDERS[rank])
        {
            order.push(FOLDERS[rank]);
        }
    }
    assert_eq!(
        order, FOLDERS,
        "docs/architecture.md lists the crates folder by folder, top-down: {listed:?}"
    );
}

#[test]
fn the_folder_rule_refuses_a_dependency_upward_or_between_formats() {
    let package = |path: &str, deps: &[&str]| {
        let name = path.rsplit('/').next().unwrap().to_owned();
        (
            name,
            (path.to_owned(), deps.iter().map(|d| (*d).to_owned()).collect()),
        )
    };
    let packages: BTreeMap<_, _> = [
        package("crates/ir", &[]),
        package("crates/solver", &["ir"]),
        package("formats/a", &["ir"]),
        package("formats/b", &["ir", "a"]),
        package("front/facade", &["a", "solver"]),
        package("front/cli", &["facade"]),
        package("xtask", &["cli"]),
        package("crates/low", &["a"]),
        package("formats/c", &["cli"]),
        package("tools/stray", &[]),
    ]
    .into_iter()
    .collect();
    let problems = folder_problems(&packages);
    let named: Vec<&str> = problems
        .iter()
        .map(|p| p.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(named, ["b", "c", "low", "stray"], "{problems:?}");
}

#[test]
fn the_rules_parser_reads_what_the_page_writes() {
    let section = "## Crates\n\n```\ncrates/a   x\n           y\nformats/b  z\n```\n\n| crate | may depend on |\n|---|---|\n| `a` | nothing |\n| `formats/*` | `a`, `c` |\n| `c` | any |\n";
    assert_eq!(
        listed_paths(section),
        BTreeSet::from(["crates/a".to_owned(), "formats/b".to_owned()])
    );
    let rules = rules(section);
    assert_eq!(rules.len(), 3);
    assert_eq!(rules[0].1, Some(BTreeSet::new()));
    assert_eq!(rules[1].1, Some(BTreeSet::from(["a".to_owned(), "c".to_owned()])));
    assert_eq!(rules[2].1, None);
    assert!(selects("formats/*", "b", "formats/b") && !selects("formats/*", "a", "crates/a"));
}
