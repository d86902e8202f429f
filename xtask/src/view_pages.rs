//! `cargo xtask view-screenshots` (the pages of three models in headless Chromium, into
//! `docs/`) and `cargo xtask bench view` (a 1 000-body chain's page: time to its first rendered
//! frame).

use crate::{cargo, run, workspace_root};
use anyhow::{Context, Result, bail};
use mbconv_test_support::browser::Browser;
use mbconv_test_support::view_page::{self, FIRST_FINDING_WITH_ITEM, READY};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

fn mbconv_binary() -> Result<PathBuf> {
    run(cargo(), &["build", "--release", "-p", "mbconv-cli"])?;
    Ok(workspace_root().join("target/release/mbconv"))
}

fn corpus() -> PathBuf {
    std::env::var_os("MBCONV_CORPUS").map_or_else(|| workspace_root().join("../shared/corpus"), PathBuf::from)
}

/// Runs `mbconv view ARGS... -o page`.
fn write_page(mbconv: &Path, args: &[&str], page: &Path) -> Result<()> {
    let out = Command::new(mbconv)
        .arg("view")
        .args(args)
        .arg("-o")
        .arg(page)
        .arg("--force")
        .output()
        .context("cannot run mbconv view")?;
    if !out.status.success() {
        bail!(
            "mbconv view {} failed:\n{}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(())
}

/// Opens `page` and waits until its scene is built; fails on the page's own errors.
fn open_ready(browser: &mut Browser, page: &Path) -> Result<()> {
    Ok(view_page::open(browser, page, READY)?)
}

/// The three screenshots of `docs/view.md` and the README.
pub fn screenshots() -> Result<()> {
    let mbconv = mbconv_binary()?;
    let dir = workspace_root().join("target/view-screenshots");
    std::fs::create_dir_all(&dir)?;
    let corpus = corpus();
    let biped = corpus.join("skel/biped.skel");
    let crank = corpus.join("chrono/model_slider_crank.yaml");
    let arm = corpus.join("body/share/model/JACO2/JACO2.body");
    let mut browser = Browser::launch()?;
    browser.set_window_size(1400, 900)?;
    let shots: [(&Path, &[&str], &str, f64); 3] = [
        (
            &biped,
            &["--via", "urdf", "--duration", "2"],
            "view-biped.png",
            0.35,
        ),
        (&crank, &["--duration", "2"], "view-slider-crank.png", 0.6),
        (
            &arm,
            &["--via", "shift", "--duration", "2"],
            "view-arm-shift.png",
            1.0,
        ),
    ];
    for (model, args, name, time) in shots {
        let page = dir.join(name.replace(".png", ".html"));
        let mut all: Vec<&str> = vec![model.to_str().context("non-UTF-8 path")?];
        all.extend_from_slice(args);
        write_page(&mbconv, &all, &page)?;
        open_ready(&mut browser, &page)?;
        let drawn = browser.execute("return window.mbconvView.renderedFrames", vec![])?;
        browser.execute("window.mbconvView.seek(arguments[0])", vec![Value::from(time)])?;
        if name == "view-arm-shift.png" {
            select_a_finding(&mut browser)?;
        }
        // The page draws a frame after a change even while paused.
        browser.wait_for(
            &format!("return window.mbconvView.renderedFrames > {drawn}"),
            READY,
        )?;
        std::thread::sleep(Duration::from_millis(500));
        let png = workspace_root().join("docs").join(name);
        browser.screenshot_png(&png)?;
        eprintln!("wrote {}", png.display());
    }
    Ok(())
}

/// Clicks the first finding that names an item, and waits for the page to select it.
fn select_a_finding(browser: &mut Browser) -> Result<()> {
    let found = browser.execute(FIRST_FINDING_WITH_ITEM, vec![])?;
    let (Some(list), Some(index)) = (found[0].as_str(), found[1].as_u64()) else {
        bail!("no finding of the page names an item");
    };
    browser.click(&format!(
        ".mbconv-finding[data-list=\"{list}\"][data-index=\"{index}\"]"
    ))?;
    browser.wait_for("return window.mbconvView.selected !== null", READY)?;
    let selected = browser.execute("return window.mbconvView.selected", vec![])?;
    eprintln!("selected {selected} (the finding names {})", found[2]);
    Ok(())
}

/// `cargo xtask bench view [--bodies N] [--rounds R]`: the page of an N-body chain (default
/// 1 000) simulated for 5 s, opened R times (default 5) in headless Chromium; prints the page's
/// size, the time `mbconv view` took and, per round, the time from navigation to the first
/// rendered frame (`performance.now()` at the first frame, which counts from the navigation).
pub fn bench(args: &[&str]) -> Result<()> {
    let (mut bodies, mut rounds) = (1000usize, 5usize);
    let mut rest = args.iter();
    while let Some(flag) = rest.next() {
        let value = rest.next().context("a flag without its value")?;
        match *flag {
            "--bodies" => bodies = value.parse()?,
            "--rounds" => rounds = value.parse()?,
            other => bail!("unknown flag {other}"),
        }
    }
    let mbconv = mbconv_binary()?;
    let dir = workspace_root().join("target/view-bench");
    std::fs::create_dir_all(&dir)?;
    let model = dir.join(format!("chain-{bodies}.skel"));
    std::fs::write(
        &model,
        with_link_boxes(&crate::bench::convert::skel_model(
            crate::bench::convert::Shape::Chain,
            bodies,
        )),
    )?;
    let page = dir.join(format!("chain-{bodies}.html"));
    let started = std::time::Instant::now();
    write_page(
        &mbconv,
        &[model.to_str().context("non-UTF-8 path")?, "--duration", "5"],
        &page,
    )?;
    let writing = started.elapsed().as_secs_f64();
    let size = std::fs::metadata(&page)?.len();
    let mut browser = Browser::launch()?;
    browser.set_window_size(1400, 900)?;
    let mut firsts = Vec::new();
    for round in 1..=rounds {
        open_ready(&mut browser, &page)?;
        let first = browser
            .execute("return window.mbconvView.firstFrameMs", vec![])?
            .as_f64()
            .context("firstFrameMs is not a number")?;
        let count = browser.execute("return window.mbconvView.bodyCount", vec![])?;
        eprintln!("round {round}: first frame at {first:.0} ms, {count} bodies drawn");
        firsts.push(first);
        browser.open_file(&dir.join("blank.html")).ok();
    }
    firsts.sort_by(f64::total_cmp);
    println!(
        "chain of {bodies} bodies, 5 s: page {:.2} MB written in {writing:.1} s by `mbconv view` (release); \
         first frame after navigation in headless Chromium: median {:.0} ms, worst {:.0} ms over {rounds} rounds",
        size as f64 / 1e6,
        firsts[firsts.len() / 2],
        firsts[firsts.len() - 1],
    );
    Ok(())
}

/// `skel` (the chain of `bench convert`, whose links carry only inertia) with a 0.2 m box per
/// link, drawn and colliding, so that the page draws what a real model has.
fn with_link_boxes(skel: &str) -> String {
    let shape = |kind: &str| {
        format!(
            "<{kind}><transformation>0.1 0 0 0 0 0</transformation><geometry><box><size>0.2 0.02 0.02</size></box></geometry></{kind}>"
        )
    };
    skel.replace(
        "</inertia>\n      </body>",
        &format!(
            "</inertia>\n        {}\n        {}\n      </body>",
            shape("visualization_shape"),
            shape("collision_shape")
        ),
    )
}
