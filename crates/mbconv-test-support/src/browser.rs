//! Headless Chromium for the page tests and the page benchmark: a small blocking client of the
//! W3C WebDriver protocol, spoken to `chromedriver` over HTTP with `ureq`. The tests are plain
//! `#[test]` functions and need a handful of commands (open a file, run a script, click,
//! screenshot, read the console), one request each; a blocking client needs no async runtime
//! (fantoccini and thirtyfour bring tokio).
//!
//! WebGL works headless through SwiftShader, Chromium's software renderer ([`CHROMIUM_ARGS`]:
//! `--use-angle=swiftshader --enable-unsafe-swiftshader`; with only `--disable-gpu` there is no
//! WebGL context at all). Console errors come from chromedriver's log endpoint
//! (`POST /session/{id}/se/log`, still answered in W3C mode), which needs the session's
//! `goog:loggingPrefs`; a script cannot hook `console.error` before a `file://` page's own
//! scripts run, so the log is the only way to see errors raised while the page loads.
//!
//! ```no_run
//! use mbconv_test_support::browser::Browser;
//! let mut browser = Browser::launch().unwrap();
//! browser.open_file(std::path::Path::new("/tmp/page.html")).unwrap();
//! let title = browser.execute("return document.title", vec![]).unwrap();
//! assert!(title.is_string());
//! ```

use base64::Engine;
use serde_json::{Value, json};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The environment variable that turns a missing browser from a skip into a failure.
pub const REQUIRE_BROWSER: &str = "MBCONV_REQUIRE_BROWSER";

/// How to install what the tests need.
pub const INSTALL_HINT: &str =
    "install Debian's Chromium and its driver: apt-get install -y chromium chromium-driver";

/// How long chromedriver gets to answer one command (its own page-load timeout is 300 s)
/// before the command fails instead of hanging the test.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(330);

/// How long chromedriver gets to start and say it is ready.
const START_TIMEOUT: Duration = Duration::from_secs(20);

/// The key of a web element's id in W3C WebDriver answers (the W3C specification's
/// "web element identifier").
const ELEMENT_KEY: &str = "element-6066-11e4-a52e-4f735466cecf";

/// The arguments Chromium runs with: headless, WebGL through SwiftShader (no GPU here), and
/// none of the background connections this machine's closed network refuses.
pub const CHROMIUM_ARGS: [&str; 12] = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--use-angle=swiftshader",
    "--enable-unsafe-swiftshader",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1400,900",
    "--allow-file-access-from-files",
];

/// What went wrong with the browser.
#[derive(Debug, thiserror::Error)]
pub enum BrowserError {
    /// Chromium or chromedriver is not installed.
    #[error("{0} not found: {INSTALL_HINT}")]
    Missing(String),
    /// chromedriver could not be started or did not answer.
    #[error("chromedriver: {0}")]
    Driver(String),
    /// A WebDriver command failed.
    #[error("WebDriver {command}: {message}")]
    Command {
        /// The command.
        command: String,
        /// The driver's message.
        message: String,
    },
    /// A condition did not hold in time.
    #[error("timed out after {0:?} waiting for: {1}")]
    Timeout(Duration, String),
    /// A file could not be written.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// A headless Chromium session driven through chromedriver; both end when it is dropped
/// (also when a test panics): the session is deleted, chromedriver killed and waited for,
/// and the temporary profile folder removed.
///
/// ```no_run
/// use mbconv_test_support::browser::Browser;
/// use std::time::Duration;
/// let mut browser = Browser::launch().unwrap();
/// browser.open_file(std::path::Path::new("page.html")).unwrap();
/// browser.click("#start").unwrap();
/// browser.wait_for("return window.started === true", Duration::from_secs(5)).unwrap();
/// assert!(browser.console_errors().unwrap().is_empty());
/// browser.screenshot_png(std::path::Path::new("page.png")).unwrap();
/// ```
#[derive(Debug)]
pub struct Browser {
    driver: Child,
    agent: ureq::Agent,
    base: String,
    session: String,
    profile: PathBuf,
}

/// `program` from its environment variable, the Debian path, or the PATH.
fn find(variable: &str, debian: &str, name: &str) -> Result<PathBuf, BrowserError> {
    if let Some(given) = std::env::var_os(variable) {
        let given = PathBuf::from(given);
        if given.is_file() {
            return Ok(given);
        }
        return Err(BrowserError::Missing(format!(
            "{name} ({variable}={})",
            given.display()
        )));
    }
    if Path::new(debian).is_file() {
        return Ok(PathBuf::from(debian));
    }
    std::env::var_os("PATH")
        .into_iter()
        .flat_map(|paths| std::env::split_paths(&paths).collect::<Vec<_>>())
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
        .ok_or_else(|| BrowserError::Missing(name.to_owned()))
}

/// True when Chromium and chromedriver are installed (found as [`Browser::launch`] looks for
/// them: `MBCONV_CHROMIUM` / `MBCONV_CHROMEDRIVER` when set, else `/usr/bin`, else the PATH).
pub fn available() -> bool {
    programs().is_ok()
}

/// Chromium and chromedriver, or which of them is missing.
fn programs() -> Result<(PathBuf, PathBuf), BrowserError> {
    Ok((
        find("MBCONV_CHROMIUM", "/usr/bin/chromium", "chromium")?,
        find("MBCONV_CHROMEDRIVER", "/usr/bin/chromedriver", "chromedriver")?,
    ))
}

/// A browser for the test `test`, or `None` after a notice when Chromium is missing. Panics
/// with the install hint when it is missing and `MBCONV_REQUIRE_BROWSER=1` (CI), and when it
/// is installed but does not start.
///
/// ```no_run
/// let Some(mut browser) = mbconv_test_support::browser::browser_or_skip("my_test") else {
///     return;
/// };
/// let two = browser.execute("return 1 + 1", vec![]).unwrap();
/// assert_eq!(two, 2);
/// ```
pub fn browser_or_skip(test: &str) -> Option<Browser> {
    if let Err(missing) = programs() {
        if std::env::var(REQUIRE_BROWSER).is_ok_and(|v| v == "1") {
            panic!("{test}: {missing}; {REQUIRE_BROWSER}=1 makes a missing browser a failure");
        }
        eprintln!("skipping {test}: {missing} (set {REQUIRE_BROWSER}=1 to fail instead)");
        return None;
    }
    match Browser::launch() {
        Ok(browser) => Some(browser),
        Err(e) => panic!("{test}: Chromium is installed but did not start: {e}"),
    }
}

/// A file's `file://` URL, with the characters a URL path cannot hold percent-encoded.
fn file_url(path: &Path) -> String {
    let mut url = String::from("file://");
    for &byte in path.as_os_str().as_encoded_bytes() {
        if byte.is_ascii_alphanumeric() || b"/-._~!$&'()*+,;=:@".contains(&byte) {
            url.push(char::from(byte));
        } else {
            url.push_str(&format!("%{byte:02X}"));
        }
    }
    url
}

/// A profile folder no other browser of this or another process uses.
fn new_profile_dir(port: u16) -> PathBuf {
    static COUNT: AtomicU64 = AtomicU64::new(0);
    let n = COUNT.fetch_add(1, Ordering::Relaxed);
    std::env::temp_dir().join(format!("mbconv-chromium-{}-{port}-{n}", std::process::id()))
}

fn free_port() -> Result<u16, BrowserError> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    Ok(listener.local_addr()?.port())
}

/// The `value` of a WebDriver answer, or its error.
fn answer(command: &str, result: Result<ureq::Response, ureq::Error>) -> Result<Value, BrowserError> {
    let failed = |message: String| BrowserError::Command {
        command: command.to_owned(),
        message,
    };
    let response = match result {
        Ok(response) => response,
        Err(ureq::Error::Status(_, response)) => {
            let body: Value = response.into_json().unwrap_or(Value::Null);
            let value = &body["value"];
            return Err(failed(format!(
                "{}: {}",
                value["error"].as_str().unwrap_or("error"),
                value["message"].as_str().unwrap_or("(no message)")
            )));
        }
        Err(e) => return Err(failed(e.to_string())),
    };
    let body: Value = response.into_json().map_err(|e| failed(e.to_string()))?;
    Ok(body["value"].clone())
}

impl Browser {
    /// Starts chromedriver on a free local port and a headless Chromium session with
    /// [`CHROMIUM_ARGS`] and a new profile folder.
    pub fn launch() -> Result<Self, BrowserError> {
        let (chromium, chromedriver) = programs()?;
        let port = free_port()?;
        let driver = Command::new(&chromedriver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| BrowserError::Driver(format!("cannot start {}: {e}", chromedriver.display())))?;
        let profile = new_profile_dir(port);
        let mut browser = Self {
            driver,
            agent: ureq::AgentBuilder::new()
                .timeout_connect(Duration::from_secs(5))
                .timeout(COMMAND_TIMEOUT)
                .build(),
            base: format!("http://127.0.0.1:{port}"),
            session: String::new(),
            profile,
        };
        browser.wait_until_ready()?;
        let mut args: Vec<String> = CHROMIUM_ARGS.iter().map(|a| (*a).to_owned()).collect();
        args.push(format!("--user-data-dir={}", browser.profile.display()));
        let capabilities = json!({
            "capabilities": {"alwaysMatch": {
                "browserName": "chrome",
                "goog:chromeOptions": {"binary": chromium, "args": args},
                "goog:loggingPrefs": {"browser": "ALL"},
            }}
        });
        let created = answer(
            "new session",
            browser
                .agent
                .post(&format!("{}/session", browser.base))
                .send_json(capabilities),
        )?;
        browser.session = created["sessionId"]
            .as_str()
            .ok_or_else(|| BrowserError::Driver(format!("no session id in {created}")))?
            .to_owned();
        Ok(browser)
    }

    fn wait_until_ready(&mut self) -> Result<(), BrowserError> {
        let started = Instant::now();
        let status_url = format!("{}/status", self.base);
        while started.elapsed() < START_TIMEOUT {
            let request = self.agent.get(&status_url).timeout(Duration::from_secs(2));
            if let Ok(status) = answer("status", request.call())
                && status["ready"] == Value::Bool(true)
            {
                return Ok(());
            }
            if let Ok(Some(exit)) = self.driver.try_wait() {
                return Err(BrowserError::Driver(format!("exited at start ({exit})")));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Err(BrowserError::Driver(format!(
            "did not become ready within {} s",
            START_TIMEOUT.as_secs()
        )))
    }

    fn url(&self, command: &str) -> String {
        format!("{}/session/{}/{command}", self.base, self.session)
    }

    fn post(&self, command: &str, body: Value) -> Result<Value, BrowserError> {
        answer(command, self.agent.post(&self.url(command)).send_json(body))
    }

    fn get(&self, command: &str) -> Result<Value, BrowserError> {
        answer(command, self.agent.get(&self.url(command)).call())
    }

    /// Opens a local file (made absolute, as a `file://` URL) and waits for its load event.
    pub fn open_file(&mut self, path: &Path) -> Result<(), BrowserError> {
        let absolute = std::path::absolute(path)?;
        self.post("url", json!({ "url": file_url(&absolute) }))
            .map(|_| ())
    }

    /// Runs `script` (a function body: `return ...` gives the result) with `args`
    /// (`arguments[0]`, …) in the page, synchronously. A script that throws is an error.
    ///
    /// ```no_run
    /// # let mut browser = mbconv_test_support::browser::Browser::launch().unwrap();
    /// let sum = browser.execute("return arguments[0] + 1", vec![41.into()]).unwrap();
    /// assert_eq!(sum, 42);
    /// ```
    pub fn execute(&mut self, script: &str, args: Vec<Value>) -> Result<Value, BrowserError> {
        self.post("execute/sync", json!({ "script": script, "args": args }))
    }

    /// Polls `script` (returning a boolean) every 50 ms until it returns true; an error after
    /// `timeout`, or at once when the script throws.
    pub fn wait_for(&mut self, script: &str, timeout: Duration) -> Result<(), BrowserError> {
        let started = Instant::now();
        loop {
            if self.execute(script, vec![])? == Value::Bool(true) {
                return Ok(());
            }
            if started.elapsed() > timeout {
                return Err(BrowserError::Timeout(timeout, script.trim().to_owned()));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Clicks the first element `selector` (CSS) matches, as a user would.
    pub fn click(&mut self, selector: &str) -> Result<(), BrowserError> {
        let found = self.post("element", json!({ "using": "css selector", "value": selector }))?;
        let id = found[ELEMENT_KEY].as_str().ok_or_else(|| BrowserError::Command {
            command: "element".to_owned(),
            message: format!("no element matches {selector:?}: {found}"),
        })?;
        self.post(&format!("element/{id}/click"), json!({})).map(|_| ())
    }

    /// Writes a PNG screenshot of the viewport to `path`.
    pub fn screenshot_png(&mut self, path: &Path) -> Result<(), BrowserError> {
        let encoded = self.get("screenshot")?;
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(encoded.as_str().unwrap_or_default())
            .map_err(|e| BrowserError::Command {
                command: "screenshot".to_owned(),
                message: e.to_string(),
            })?;
        std::fs::write(path, bytes)?;
        Ok(())
    }

    /// The console messages at level SEVERE since the last call (each call takes them from
    /// the log), through chromedriver's log endpoint: `console.error` calls, uncaught
    /// exceptions, and resources that failed to load, including those while the page loaded.
    /// Each message starts with where it came from (`file:///…/page.html 12:9 "text"`).
    pub fn console_errors(&mut self) -> Result<Vec<String>, BrowserError> {
        let entries = self.post("se/log", json!({ "type": "browser" }))?;
        Ok(entries
            .as_array()
            .into_iter()
            .flatten()
            .filter(|e| e["level"] == "SEVERE")
            .map(|e| e["message"].as_str().unwrap_or_default().to_owned())
            .collect())
    }

    /// Sets the window's outer size (`window.outerWidth`, `window.outerHeight`) in CSS pixels.
    pub fn set_window_size(&mut self, width: u32, height: u32) -> Result<(), BrowserError> {
        self.post("window/rect", json!({ "width": width, "height": height }))
            .map(|_| ())
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let _ = self
                .agent
                .delete(&format!("{}/session/{}", self.base, self.session))
                .timeout(Duration::from_secs(10))
                .call();
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}
