//! The `mbconv view` page in a real browser (headless Chromium through chromedriver): no
//! errors, one scene object per body and per ghost body, the timeline plays, a click on a
//! finding selects the item it names. Skipped without Chromium unless
//! `MBCONV_REQUIRE_BROWSER=1` (CI installs it); skipped in a build without the front-end
//! bundle (`view.rs` tests what such a build says).
#![allow(clippy::unwrap_used)]

use mbconv_test_support::browser::{Browser, browser_or_skip};
use mbconv_test_support::view_page::{self, FIRST_FINDING_WITH_ITEM, READY};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn fixture(relative: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(relative)
        .display()
        .to_string()
}

/// Writes the page of `mbconv view ARGS...` into `dir`.
fn page(dir: &Path, name: &str, args: &[&str]) -> PathBuf {
    let page = dir.join(name);
    let out = Command::new(env!("CARGO_BIN_EXE_mbconv"))
        .arg("view")
        .args(args)
        .arg("-o")
        .arg(&page)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    page
}

fn browser(test: &str) -> Option<Browser> {
    if mbconv::viewer::bundle().is_none() {
        eprintln!("skipping {test}: this build has no page bundle (see docs/view.md)");
        return None;
    }
    browser_or_skip(test)
}

/// Opens `page`, waits for its scene, and checks that neither the page nor the console
/// reported an error.
fn open(browser: &mut Browser, page: &Path) {
    view_page::open(browser, page, READY).unwrap();
}

fn number(browser: &mut Browser, script: &str) -> f64 {
    browser
        .execute(script, vec![])
        .unwrap()
        .as_f64()
        .unwrap_or_else(|| panic!("{script}: not a number"))
}

#[test]
fn a_conversion_plays_over_the_original_and_a_finding_selects_its_item() {
    let Some(mut browser) = browser("a_conversion_plays_over_the_original_and_a_finding_selects_its_item")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // A Choreonoid arm converted to Shift: the Shift writer reports what it changes, with paths.
    let page = page(
        dir.path(),
        "arm.html",
        &[&fixture("body/arm.body"), "--via", "shift", "--duration", "1"],
    );
    open(&mut browser, &page);
    let model = mbconv::read(fixture("body/arm.body")).unwrap().model;
    assert_eq!(
        number(&mut browser, "return window.mbconvView.bodyCount"),
        model.bodies.len() as f64
    );
    assert!(number(&mut browser, "return window.mbconvView.ghostBodyCount") > 0.0);

    // The timeline plays: frames are drawn and the time advances.
    let (frames, time) = (
        number(&mut browser, "return window.mbconvView.renderedFrames"),
        number(&mut browser, "return window.mbconvView.time"),
    );
    browser.click("#mbconv-play").unwrap();
    browser
        .wait_for(
            &format!(
                "return window.mbconvView.renderedFrames > {frames} + 10 && window.mbconvView.time > {time}"
            ),
            READY,
        )
        .unwrap();
    assert_eq!(
        browser
            .execute("return window.mbconvView.playing", vec![])
            .unwrap(),
        Value::Bool(true)
    );

    // A click on a finding that names an item selects that item.
    let found = browser.execute(FIRST_FINDING_WITH_ITEM, vec![]).unwrap();
    let (list, index, item) = (
        found[0].as_str().unwrap(),
        found[1].as_u64().unwrap(),
        found[2].clone(),
    );
    browser
        .click(&format!(
            ".mbconv-finding[data-list=\"{list}\"][data-index=\"{index}\"]"
        ))
        .unwrap();
    browser
        .wait_for("return window.mbconvView.selected !== null", READY)
        .unwrap();
    assert_eq!(
        browser
            .execute("return window.mbconvView.selected", vec![])
            .unwrap(),
        item
    );
}

#[test]
fn every_fixture_kind_of_shape_and_a_model_alone_draw_without_errors() {
    let Some(mut browser) = browser("every_fixture_kind_of_shape_and_a_model_alone_draw_without_errors")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for (model, name) in [
        ("skel/shapes.skel", "skel_shapes.html"),
        ("body/shapes.body", "body_shapes.html"),
        ("chrono/bodies.yaml", "chrono_bodies.html"),
        ("body/four_bar.body", "four_bar.html"),
    ] {
        let path = fixture(model);
        let page = page(dir.path(), name, &[&path, "--duration", "0.5"]);
        open(&mut browser, &page);
        let bodies = mbconv::read(&path).unwrap().model.bodies.len();
        assert_eq!(
            number(&mut browser, "return window.mbconvView.bodyCount"),
            bodies as f64,
            "{model}"
        );
        assert_eq!(
            number(&mut browser, "return window.mbconvView.ghostBodyCount"),
            0.0,
            "{model}"
        );
        // The tree lists every body.
        let listed = number(
            &mut browser,
            "return document.querySelectorAll('.mbconv-tree-item[data-path^=\"bodies[\"]').length",
        );
        assert_eq!(listed, bodies as f64, "{model}");
    }
}
