//! The WebDriver client against a small page of its own: a click changes the page, WebGL
//! works headless, a screenshot is a PNG, console errors are read (also those raised while
//! the page loads), and a test that panics leaves no browser process or profile behind.
//! Skipped without Chromium unless `MBCONV_REQUIRE_BROWSER=1`.
#![allow(clippy::unwrap_used)]

use mbconv_test_support::browser::browser_or_skip;
use serde_json::Value;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

/// The tests count this process's browsers: one at a time.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

const PAGE: &str = r#"<!DOCTYPE html><html><body>
<button id="count" onclick="window.clicks = (window.clicks || 0) + 1; console.error('clicked');">count</button>
<canvas id="c" width="64" height="64"></canvas>
<script>
const gl = document.getElementById('c').getContext('webgl2');
window.webgl = gl !== null;
if (gl) {
  gl.clearColor(0.2, 0.4, 0.8, 1); gl.clear(gl.COLOR_BUFFER_BIT);
  const p = new Uint8Array(4); gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, p);
  window.pixel = Array.from(p);
}
</script></body></html>"#;

/// A page whose script fails while it loads.
const FAILING_PAGE: &str = r#"<!DOCTYPE html><html><body><script>
console.error('at load');
throw new Error('thrown at load');
</script></body></html>"#;

#[test]
fn a_page_is_opened_clicked_drawn_and_photographed() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let Some(mut browser) = browser_or_skip("a_page_is_opened_clicked_drawn_and_photographed") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // A path a URL must encode.
    let page = dir.path().join("a page #1.html");
    std::fs::write(&page, PAGE).unwrap();
    browser.open_file(&page).unwrap();
    assert_eq!(
        browser.execute("return window.webgl", vec![]).unwrap(),
        Value::Bool(true),
        "WebGL 2 headless"
    );
    // Read back before the frame is composited (the drawing buffer is not preserved).
    let pixel = browser.execute("return window.pixel", vec![]).unwrap();
    assert_eq!(pixel, serde_json::json!([51, 102, 204, 255]), "WebGL drew");
    assert!(browser.console_errors().unwrap().is_empty());
    browser.click("#count").unwrap();
    browser.click("#count").unwrap();
    browser
        .wait_for("return window.clicks === 2", Duration::from_secs(5))
        .unwrap();
    let errors = browser.console_errors().unwrap();
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(errors[0].contains("clicked"));
    assert!(browser.console_errors().unwrap().is_empty(), "read once");
    let png = dir.path().join("shot.png");
    browser.screenshot_png(&png).unwrap();
    assert!(std::fs::read(&png).unwrap().starts_with(b"\x89PNG\r\n\x1a\n"));
    assert_eq!(
        browser
            .execute("return arguments[0] + 1", vec![Value::from(41)])
            .unwrap(),
        Value::from(42)
    );
    assert!(browser.click("#missing").is_err());
    assert!(browser.execute("throw new Error('no')", vec![]).is_err());
    let timeout = browser.wait_for("return false", Duration::from_millis(200));
    assert!(timeout.unwrap_err().to_string().contains("timed out"));

    browser.set_window_size(800, 600).unwrap();
    let size = browser
        .execute("return [window.outerWidth, window.outerHeight]", vec![])
        .unwrap();
    assert_eq!(size, serde_json::json!([800, 600]));

    let failing = dir.path().join("failing.html");
    std::fs::write(&failing, FAILING_PAGE).unwrap();
    browser.open_file(&failing).unwrap();
    let errors = browser.console_errors().unwrap();
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(errors[0].contains("at load"), "{errors:?}");
    assert!(errors[1].contains("thrown at load"), "{errors:?}");
}

/// The processes whose command line names one of this process's browser profiles.
fn browser_processes() -> Vec<String> {
    let marker = format!("mbconv-chromium-{}-", std::process::id());
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|entry| std::fs::read(entry.path().join("cmdline")).ok())
        .map(|cmdline| String::from_utf8_lossy(&cmdline).replace('\0', " "))
        .filter(|cmdline| cmdline.contains(&marker))
        .collect()
}

/// This process's browser profile folders.
fn profiles() -> Vec<PathBuf> {
    let marker = format!("mbconv-chromium-{}-", std::process::id());
    std::fs::read_dir(std::env::temp_dir())
        .unwrap()
        .flatten()
        .filter(|entry| entry.file_name().to_string_lossy().starts_with(&marker))
        .map(|entry| entry.path())
        .collect()
}

#[test]
fn a_panicking_test_leaves_no_browser_behind() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let Some(browser) = browser_or_skip("a_panicking_test_leaves_no_browser_behind") else {
        return;
    };
    assert!(!browser_processes().is_empty(), "Chromium runs with its profile");
    assert_eq!(profiles().len(), 1);
    let panicked = std::thread::spawn(move || {
        let _browser = browser;
        panic!("a failing page test (expected)");
    })
    .join();
    assert!(panicked.is_err());
    let left = browser_processes();
    assert!(left.is_empty(), "left running: {left:?}");
    assert!(profiles().is_empty(), "profile left: {:?}", profiles());
}
