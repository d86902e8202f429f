//! The WebDriver client against a small page of its own: a click changes the page, WebGL
//! works headless, a screenshot is a PNG, console errors are read.
#![allow(clippy::unwrap_used)]

use mbconv_test_support::browser::browser_or_skip;
use serde_json::Value;
use std::time::Duration;

const PAGE: &str = r#"<!DOCTYPE html><html><body>
<button id="count" onclick="window.clicks = (window.clicks || 0) + 1; console.error('clicked');">count</button>
<canvas id="c" width="64" height="64"></canvas>
<script>
const gl = document.getElementById('c').getContext('webgl2');
window.webgl = gl !== null;
if (gl) { gl.clearColor(0.2, 0.4, 0.8, 1); gl.clear(gl.COLOR_BUFFER_BIT); }
</script></body></html>"#;

#[test]
fn a_page_is_opened_clicked_drawn_and_photographed() {
    let Some(mut browser) = browser_or_skip("a_page_is_opened_clicked_drawn_and_photographed") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("page.html");
    std::fs::write(&page, PAGE).unwrap();
    browser.open_file(&page).unwrap();
    assert_eq!(
        browser.execute("return window.webgl", vec![]).unwrap(),
        Value::Bool(true),
        "WebGL 2 headless"
    );
    assert!(browser.console_errors().unwrap().is_empty());
    browser.click("#count").unwrap();
    browser.click("#count").unwrap();
    browser
        .wait_for("return window.clicks === 2", Duration::from_secs(5))
        .unwrap();
    let errors = browser.console_errors().unwrap();
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(errors[0].contains("clicked"));
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
}
