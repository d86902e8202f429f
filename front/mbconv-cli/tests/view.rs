//! `mbconv view`, `convert --view` and `check --view` from the command line: the page is
//! written (atomically, refusing to replace a file without --force), holds what the command
//! did, and is the same bytes for the same input. A build without the front-end says how to
//! enable it instead. The page in a browser: `view_browser.rs`.
#![allow(clippy::unwrap_used)]

mod common;

use common::{mbconv, stderr};
use std::path::{Path, PathBuf};

fn fixture(relative: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(relative)
        .display()
        .to_string()
}

/// The page's data, parsed from its `<script type="application/json">` element.
fn page_data(page: &Path) -> serde_json::Value {
    let html = std::fs::read_to_string(page).unwrap();
    let start_tag = r#"<script type="application/json" id="mbconv-view-data">"#;
    let start = html.find(start_tag).unwrap() + start_tag.len();
    let end = start + html[start..].find("</script>").unwrap();
    serde_json::from_str(&html[start..end]).unwrap()
}

/// Skips a test of pages in a build without the front-end (after checking what such a build
/// says); CI builds it.
fn bundled() -> bool {
    if mbconv::viewer::bundle().is_some() {
        return true;
    }
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("p.html");
    let out = mbconv(&[
        "view",
        &fixture("skel/joint_revolute.skel"),
        "-o",
        page.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("npm"), "{}", stderr(&out));
    assert!(!page.exists());
    false
}

fn temp_page(dir: &tempfile::TempDir, name: &str) -> PathBuf {
    dir.path().join(name)
}

#[test]
fn view_via_a_format_draws_the_conversion_over_the_original() {
    if !bundled() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let page = temp_page(&dir, "links.html");
    let model = fixture("skel/overlapping_links.skel");
    let out = mbconv(&[
        "view",
        &model,
        "--via",
        "urdf",
        "--duration",
        "1",
        "-o",
        page.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let data = page_data(&page);
    assert_eq!(data["source"], "skel");
    let conversion = &data["conversions"][0];
    assert_eq!(conversion["format"], "urdf");
    assert!(conversion["verdict"].is_string());
    let bodies = data["original"]["bodies"].as_array().unwrap().len();
    assert_eq!(conversion["match"].as_array().unwrap().len(), bodies);
    assert_eq!(data["times"].as_array().unwrap().last().unwrap(), 1.0);
    // The same input gives the same bytes.
    let again = temp_page(&dir, "again.html");
    let out = mbconv(&[
        "view",
        &model,
        "--via",
        "urdf",
        "--duration",
        "1",
        "-o",
        again.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(std::fs::read(&page).unwrap(), std::fs::read(&again).unwrap());
}

#[test]
fn a_page_that_exists_is_kept_without_force() {
    if !bundled() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let page = temp_page(&dir, "kept.html");
    std::fs::write(&page, "mine").unwrap();
    let model = fixture("skel/joint_revolute.skel");
    let out = mbconv(&["view", &model, "--duration", "0.1", "-o", page.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("--force"), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&page).unwrap(), "mine");
    let out = mbconv(&[
        "view",
        &model,
        "--duration",
        "0.1",
        "-o",
        page.to_str().unwrap(),
        "--force",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(page_data(&page)["conversions"].as_array().unwrap().is_empty());
}

#[test]
fn view_against_a_file_compares_with_it() {
    if !bundled() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let converted = dir.path().join("arm.json");
    let arm = fixture("body/arm.body");
    let out = mbconv(&["convert", &arm, "-o", converted.to_str().unwrap(), "--no-check"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let page = temp_page(&dir, "arm.html");
    let out = mbconv(&[
        "view",
        &arm,
        "--against",
        converted.to_str().unwrap(),
        "--duration",
        "0.5",
        "-o",
        page.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let data = page_data(&page);
    assert_eq!(data["conversions"][0]["format"], "shift");
    assert!(
        data["conversions"][0]["label"]
            .as_str()
            .unwrap()
            .starts_with("against ")
    );
}

#[test]
fn convert_and_check_write_the_page_of_what_they_did() {
    if !bundled() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let model = fixture("skel/sprung_chain.skel");
    let output = dir.path().join("chain.yaml");
    let page = temp_page(&dir, "convert.html");
    let out = mbconv(&[
        "convert",
        &model,
        "-o",
        output.to_str().unwrap(),
        "--view",
        page.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(output.exists());
    let data = page_data(&page);
    assert_eq!(data["conversions"][0]["format"], "chrono");
    assert!(
        data["conversions"][0]["label"]
            .as_str()
            .unwrap()
            .contains("chain.yaml")
    );

    let page = temp_page(&dir, "check.html");
    let out = mbconv(&[
        "check",
        &model,
        "--via",
        "mbir,urdf",
        "--view",
        page.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let data = page_data(&page);
    let formats: Vec<&str> = data["conversions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["format"].as_str().unwrap())
        .collect();
    assert_eq!(formats, ["mbir", "urdf"]);
    // The check's duration (1 s by default), not the view's.
    assert_eq!(data["times"].as_array().unwrap().last().unwrap(), 1.0);
}

#[test]
fn a_batch_refuses_view() {
    let dir = tempfile::tempdir().unwrap();
    let out = mbconv(&[
        "convert",
        &fixture("skel/joint_revolute.skel"),
        &fixture("skel/joint_screw.skel"),
        "--to",
        "urdf",
        "-o",
        dir.path().to_str().unwrap(),
        "--view",
        dir.path().join("p.html").to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("--view writes the page of one conversion"),
        "{}",
        stderr(&out)
    );
}
