//! The `mbconv view` page in [`Browser`]: opening it until its scene is built, and finding a
//! finding to click. Shared by the page tests and `cargo xtask view-screenshots`.
//!
//! ```no_run
//! use mbconv_test_support::{browser::Browser, view_page};
//! let mut browser = Browser::launch().unwrap();
//! view_page::open(&mut browser, std::path::Path::new("robot.html"), view_page::READY).unwrap();
//! ```

use crate::browser::{Browser, BrowserError};
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

/// How long a page may take to build its scene.
pub const READY: Duration = Duration::from_secs(60);

/// A script returning `[list, index, item]` for the first finding that names an item: the
/// first conversion's list (`"conversion"`), else the reading's (`"original"`); `null` when no
/// finding names one. `.mbconv-finding[data-list=LIST][data-index=INDEX]` is its element.
pub const FIRST_FINDING_WITH_ITEM: &str = r#"
const data = JSON.parse(document.getElementById('mbconv-view-data').textContent);
const lists = [['conversion', (data.conversions[0] || {findings: []}).findings], ['original', data.findings]];
for (const [list, findings] of lists) {
  const i = findings.findIndex(f => f.item !== null);
  if (i >= 0) return [list, i, findings[i].item];
}
return null;"#;

/// Opens `page` and waits until its scene is built (or it gave up); an error names what the
/// page or the browser's console reported.
pub fn open(browser: &mut Browser, page: &Path, timeout: Duration) -> Result<(), BrowserError> {
    browser.open_file(page)?;
    browser.wait_for(
        "return !!(window.mbconvView && (window.mbconvView.ready || window.mbconvView.errors.length))",
        timeout,
    )?;
    let errors = browser.execute("return window.mbconvView.errors", vec![])?;
    let console = browser.console_errors()?;
    if errors != Value::Array(vec![]) || !console.is_empty() {
        return Err(BrowserError::Command {
            command: format!("open {}", page.display()),
            message: format!("the page reported {errors}, the console {console:?}"),
        });
    }
    Ok(())
}
