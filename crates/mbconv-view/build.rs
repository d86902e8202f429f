//! Builds the page's front-end bundle (`web/`, three.js) with npm and esbuild into `OUT_DIR`,
//! so that the binary embeds it. Order of preference:
//!
//! 1. `MBCONV_VIEW_BUNDLE=/path/view.js`: that file, as built elsewhere;
//! 2. `web/` built here: `npm ci` when `web/node_modules` is missing or older than the lock
//!    file, then `node build.mjs` (esbuild) with the output in `OUT_DIR`;
//! 3. no Node.js or npm (or `MBCONV_VIEW_BUNDLE=none`): no bundle; the crate builds and
//!    `mbconv view` says how to enable it (cfg `mbconv_view_bundle` unset).
//!
//! A failing npm or esbuild run with Node.js present fails the build: a broken front-end
//! must not pass as a missing one.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(mbconv_view_bundle)");
    println!("cargo::rerun-if-env-changed=MBCONV_VIEW_BUNDLE");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let bundle = out.join("view.js");
    match std::env::var("MBCONV_VIEW_BUNDLE") {
        Ok(given) if given == "none" => return no_bundle("MBCONV_VIEW_BUNDLE=none"),
        Ok(given) => {
            println!("cargo::rerun-if-changed={given}");
            if let Err(e) = std::fs::copy(&given, &bundle) {
                panic!("MBCONV_VIEW_BUNDLE={given}: {e}");
            }
            return with_bundle();
        }
        Err(_) => {}
    }
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let web = manifest.join("../../web");
    for watched in ["src", "package.json", "package-lock.json", "build.mjs"] {
        println!("cargo::rerun-if-changed={}", web.join(watched).display());
    }
    if !web.join("package.json").is_file() {
        return no_bundle("web/package.json is missing");
    }
    if !runs("node") || !runs("npm") {
        return no_bundle("Node.js and npm were not found");
    }
    // One npm at a time: cargo may run this script for two profiles at once.
    let lock = std::fs::File::create(out.join("web.lock")).expect("OUT_DIR is writable");
    lock.lock().expect("lock the web build");
    if needs_install(&web) {
        run(
            Command::new("npm")
                .args(["ci", "--no-audit", "--no-fund"])
                .current_dir(&web),
            "npm ci",
        );
    }
    run(
        Command::new("node")
            .arg("build.mjs")
            .env("MBCONV_VIEW_OUT", &bundle)
            .current_dir(&web),
        "node build.mjs",
    );
    with_bundle();
}

fn with_bundle() {
    println!("cargo::rustc-cfg=mbconv_view_bundle");
}

fn no_bundle(why: &str) {
    println!("cargo::warning=mbconv view is disabled in this build: {why} (see docs/view.md)");
}

fn runs(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn needs_install(web: &Path) -> bool {
    let installed = web.join("node_modules/.package-lock.json");
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    match (modified(&installed), modified(&web.join("package-lock.json"))) {
        (Some(installed), Some(lock)) => installed < lock,
        _ => true,
    }
}

fn run(command: &mut Command, what: &str) {
    match command.status() {
        Ok(status) if status.success() => {}
        Ok(status) => panic!("{what} in web/ failed ({status}); see its output above"),
        Err(e) => panic!("{what} in web/ could not start: {e}"),
    }
}
