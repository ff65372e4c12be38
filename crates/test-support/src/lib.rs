//! Test helpers for Interlude's own tests: a headless Chromium driven over WebDriver.
//!
//! Only ever a dev-dependency (never published). [`Browser::start`] runs
//! `chromedriver --port=<free port>` (killed, with the Chromium it started, when the [`Browser`]
//! is dropped), opens a WebDriver session on Debian's Chromium with the flags this machine needs
//! (headless, no sandbox because tests run as root, no background networking because there is no
//! network beyond loopback) and a fresh `--user-data-dir`, and offers the few waits and artifacts
//! the browser tests need:
//!
//! - [`Browser::wait_for`]: an element matching a CSS selector, polled until a timeout;
//! - [`Browser::wait_js`]: a JavaScript expression, polled until it is truthy;
//! - [`Browser::click_when_clear`]: a click once the element is in view, still and uncovered
//!   ([`Browser::click_state`] says where it is and what covers it);
//! - [`Browser::screenshot`]: a PNG into `target/artifacts/<name>.png` (see [`artifacts_dir`]);
//! - [`wait_until`]: any other state (a host's record, a file), polled until a timeout.
//!
//! For host tests, [`surface::RecordingSurface`] answers from a script and records every event
//! the host sends.
//!
//! It also knows where the other real peers are ([`NpmPeers`]: Node 22 and the pinned npm
//! packages; [`PythonPeers`]: the virtual environment with the pinned Python packages) and what a test does when one is missing ([`missing_peer`]: a note, or a failure
//! under `INTERLUDE_REQUIRE_PEERS=1`).
//!
//! A missing browser is an error naming what is missing and how to install it
//! (`cargo xtask peers`), never a silent skip: the browser tests are mandatory.
//!
//! The paths default to `/usr/bin/chromium` and `/usr/bin/chromedriver`; `INTERLUDE_CHROMIUM`
//! and `INTERLUDE_CHROMEDRIVER` override them.
//!
//! # Example
//! ```no_run
//! use std::time::Duration;
//! use interlude_test_support::Browser;
//!
//! # async fn run() -> Result<(), interlude_test_support::Error> {
//! let browser = Browser::start().await?;
//! browser.client().goto("http://127.0.0.1:7280/").await?;
//! let title = browser.wait_for("#title", Duration::from_secs(5)).await?;
//! assert_eq!(title.text().await?, "Interlude");
//! browser.screenshot("front-page").await?;
//! browser.close().await;
//! # Ok(()) }
//! ```

use std::fs::File;
use std::future::Future;
use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

pub use fantoccini;

pub mod hostile_http;
pub mod http1;
mod peers;
pub mod surface;
pub mod tmux;
use fantoccini::elements::Element;
use fantoccini::error::{CmdError, NewSessionError};
use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;
pub use peers::{NpmPeers, PythonPeers, missing_peer, peers_required, workspace_root};
use serde_json::{Value, json};

/// The default Chromium binary (Debian's `chromium` package).
pub const CHROMIUM: &str = "/usr/bin/chromium";
/// The default ChromeDriver binary (Debian's `chromium-driver` package).
pub const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// The flags Chromium runs with: headless, as root (no sandbox), and quiet on a machine whose
/// only network is loopback. No GPU: WebGL (MCP Apps such as the three.js example) runs on
/// SwiftShader, which recent Chromium enables only when asked.
pub const CHROMIUM_FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--enable-unsafe-swiftshader",
    "--use-angle=swiftshader",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--lang=en-US",
    "--window-size=1280,900",
];

/// How long starting ChromeDriver and a session may take.
const START_TIMEOUT: Duration = Duration::from_secs(30);
/// How often the waits poll.
const POLL: Duration = Duration::from_millis(25);

/// What can go wrong with the browser.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Chromium or ChromeDriver is not installed.
    #[error(
        "{what} not found at {path} (the browser tests are mandatory: run `cargo xtask peers`, \
         which installs Debian's chromium and chromium-driver)"
    )]
    Missing {
        /// Which program.
        what: &'static str,
        /// Where it was looked for.
        path: PathBuf,
    },
    /// A file or process operation failed.
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The underlying error.
        source: std::io::Error,
    },
    /// ChromeDriver did not give us a session.
    #[error(
        "cannot open a WebDriver session on {url}: {source}\nchromedriver log ({log}):\n{tail}"
    )]
    Session {
        /// ChromeDriver's address.
        url: String,
        /// The last error.
        source: Box<NewSessionError>,
        /// ChromeDriver's log file.
        log: String,
        /// The end of that log.
        tail: String,
    },
    /// A WebDriver command failed.
    #[error("webdriver command failed: {0}")]
    Command(Box<CmdError>),
    /// A wait ran out of time.
    #[error("timed out after {timeout:?} waiting for {what}")]
    Timeout {
        /// What was awaited.
        what: String,
        /// How long.
        timeout: Duration,
    },
}

fn io(context: impl Into<String>) -> impl FnOnce(std::io::Error) -> Error {
    let context = context.into();
    move |source| Error::Io { context, source }
}

/// A program path: the environment override, else the default; an error when it is missing.
fn program(var: &str, default: &str, what: &'static str) -> Result<PathBuf, Error> {
    let path = std::env::var_os(var).map_or_else(|| PathBuf::from(default), PathBuf::from);
    if path.is_file() {
        Ok(path)
    } else {
        Err(Error::Missing { what, path })
    }
}

/// A loopback port nobody listens on right now.
fn free_port() -> Result<u16, Error> {
    let listener = TcpListener::bind("127.0.0.1:0").map_err(io("cannot find a free port"))?;
    Ok(listener
        .local_addr()
        .map_err(io("cannot find a free port"))?
        .port())
}

/// A fresh folder under the system's temporary folder, removed by [`Scratch`]'s drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(prefix: &str) -> Result<Self, Error> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let dir = std::env::temp_dir().join(format!(
            "{prefix}-{}-{}-{nanos}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).map_err(io(format!("cannot create {}", dir.display())))?;
        Ok(Scratch(dir))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The running `chromedriver`, in a process group of its own so that dropping it also ends the
/// Chromium processes it started.
struct Driver {
    child: Child,
}

impl Drop for Driver {
    fn drop(&mut self) {
        // The whole group: chromedriver and every Chromium process it started (they inherit the
        // group). Only our own group id, never a name.
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", self.child.id())])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A headless Chromium session. Dropping it kills ChromeDriver and the browser; [`Browser::close`]
/// ends the session politely first.
pub struct Browser {
    // Field order is drop order: the client, then the driver, then the profile folder.
    client: Client,
    driver: Driver,
    scratch: Scratch,
}

impl std::fmt::Debug for Browser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Browser")
            .field("chromedriver_pid", &self.driver.child.id())
            .field("scratch", &self.scratch.0)
            .finish_non_exhaustive()
    }
}

fn tail(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    let last = lines.len().saturating_sub(20);
    lines.get(last..).unwrap_or_default().join("\n")
}

impl Browser {
    /// Starts ChromeDriver on a free loopback port and opens a headless Chromium session with
    /// [`CHROMIUM_FLAGS`] and a fresh profile.
    pub async fn start() -> Result<Browser, Error> {
        Self::start_with(&[]).await
    }

    /// [`Browser::start`] with extra Chromium flags.
    pub async fn start_with(extra_flags: &[&str]) -> Result<Browser, Error> {
        let chromium = program("INTERLUDE_CHROMIUM", CHROMIUM, "chromium")?;
        let chromedriver = program("INTERLUDE_CHROMEDRIVER", CHROMEDRIVER, "chromedriver")?;
        let scratch = Scratch::new("interlude-chromium")?;
        let profile = scratch.0.join("profile");
        let log = scratch.0.join("chromedriver.log");
        let log_file =
            File::create(&log).map_err(io(format!("cannot create {}", log.display())))?;
        let log_err = log_file
            .try_clone()
            .map_err(io("cannot share the log file"))?;
        let port = free_port()?;
        let child = Command::new(&chromedriver)
            .arg(format!("--port={port}"))
            .arg("--allowed-ips=127.0.0.1")
            .stdin(Stdio::null())
            .stdout(log_file)
            .stderr(log_err)
            .process_group(0)
            .spawn()
            .map_err(io(format!("cannot start {}", chromedriver.display())))?;
        let driver = Driver { child };

        let mut args: Vec<String> = CHROMIUM_FLAGS.iter().map(|s| (*s).to_owned()).collect();
        args.push(format!("--user-data-dir={}", profile.display()));
        args.extend(extra_flags.iter().map(|s| (*s).to_owned()));
        let mut caps = serde_json::Map::new();
        caps.insert("browserName".into(), json!("chrome"));
        caps.insert(
            "goog:chromeOptions".into(),
            json!({ "binary": chromium.to_string_lossy(), "args": args }),
        );
        let url = format!("http://127.0.0.1:{port}");
        let started = Instant::now();
        let client = loop {
            let attempt = ClientBuilder::new(HttpConnector::new())
                .capabilities(caps.clone())
                .connect(&url)
                .await;
            match attempt {
                Ok(client) => break client,
                Err(e) if started.elapsed() > START_TIMEOUT => {
                    return Err(Error::Session {
                        url,
                        source: Box::new(e),
                        log: log.display().to_string(),
                        tail: tail(&log),
                    });
                }
                Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
            }
        };
        Ok(Browser {
            client,
            driver,
            scratch,
        })
    }

    /// The WebDriver client, for everything the helpers here do not cover.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// Ends the session (Chromium quits), then stops ChromeDriver.
    pub async fn close(self) {
        let Browser {
            client,
            driver,
            scratch,
        } = self;
        let _ = tokio::time::timeout(Duration::from_secs(5), client.close()).await;
        drop(driver);
        drop(scratch);
    }

    /// Waits until an element matches `css` and returns it.
    pub async fn wait_for(&self, css: &str, timeout: Duration) -> Result<Element, Error> {
        poll(format!("an element matching `{css}`"), timeout, || async {
            match self.client.find(Locator::Css(css)).await {
                Ok(e) => Ok(Some(e)),
                Err(e) if e.is_no_such_element() => Ok(None),
                Err(e) => Err(Error::Command(Box::new(e))),
            }
        })
        .await
    }

    /// Waits until no element matches `css`.
    pub async fn wait_gone(&self, css: &str, timeout: Duration) -> Result<(), Error> {
        poll(format!("no element matching `{css}`"), timeout, || async {
            let found = self.client.find_all(Locator::Css(css)).await?;
            Ok(found.is_empty().then_some(()))
        })
        .await
    }

    /// Evaluates the JavaScript expression `expr` until it is truthy (not `null`, `false`, `0`
    /// or `""`) and returns its value. `expr` is an expression, not a statement list.
    pub async fn wait_js(&self, expr: &str, timeout: Duration) -> Result<Value, Error> {
        let script = format!("return ({expr});");
        poll(format!("`{expr}` to be truthy"), timeout, || async {
            let v = self.client.execute(&script, Vec::new()).await?;
            let truthy = match &v {
                Value::Null | Value::Bool(false) => false,
                Value::String(s) => !s.is_empty(),
                Value::Number(n) => n.as_f64().is_some_and(|n| n != 0.0),
                _ => true,
            };
            Ok(truthy.then_some(v))
        })
        .await
    }

    /// Opens Interlude's page at `url` and waits until its live channel is up.
    pub async fn open_page(&self, url: &str, timeout: Duration) -> Result<(), Error> {
        self.client.goto(url).await?;
        self.wait_js(
            "document.getElementById('conn')?.textContent === 'live'",
            timeout,
        )
        .await
        .map(drop)
    }

    /// Enters an MCP Apps view framed by the page: its sandbox proxy `frame`, then the view's
    /// own frame inside it (WebDriver commands then run in the view).
    pub async fn enter_app_view(&self, frame: Element, timeout: Duration) -> Result<(), Error> {
        frame.enter_frame().await?;
        self.wait_for("iframe", timeout)
            .await?
            .enter_frame()
            .await?;
        Ok(())
    }

    /// Evaluates the JavaScript expression `expr` once and returns its value.
    pub async fn js(&self, expr: &str) -> Result<Value, Error> {
        Ok(self
            .client
            .execute(&format!("return ({expr});"), Vec::new())
            .await?)
    }

    /// Scrolls `element` to the centre of its document's viewport and says where it is and
    /// whether a click at its centre would reach it, as JSON: `box` (its client rectangle),
    /// `clear` (shown with a size, inside the viewport, and the topmost element there: no
    /// overlay, bar or other element over it), `settled` (no CSS transition is running in its
    /// document: nothing is still moving or resizing) and `top` (what is at its centre). In the
    /// document of the frame the session is in.
    pub async fn click_state(&self, element: &Element) -> Result<Value, Error> {
        let arg = serde_json::to_value(element).map_err(|e| Error::Io {
            context: "cannot pass an element to the page".into(),
            source: std::io::Error::other(e),
        })?;
        Ok(self.client.execute(CLICK_STATE_JS, vec![arg]).await?)
    }

    /// Clicks `element` once a click at its centre reaches it: per [`Browser::click_state`],
    /// clear and settled, and in the same place on two polls in a row. A layout still moving
    /// (a transition, a frame being resized) would send WebDriver's click elsewhere ("element
    /// click intercepted"). Fails after `timeout` with the last state seen.
    pub async fn click_when_clear(
        &self,
        element: &Element,
        timeout: Duration,
    ) -> Result<(), Error> {
        let deadline = Instant::now() + timeout;
        let mut previous = Value::Null;
        loop {
            let state = self.click_state(element).await?;
            if clickable(&state, &previous) {
                return Ok(element.click().await?);
            }
            if Instant::now() >= deadline {
                return Err(Error::Timeout {
                    what: format!("the element to be in view, still and uncovered (last: {state})"),
                    timeout,
                });
            }
            previous = state;
            tokio::time::sleep(POLL).await;
        }
    }

    /// Saves a screenshot of the window into `target/artifacts/<name>.png` and returns the path.
    pub async fn screenshot(&self, name: &str) -> Result<PathBuf, Error> {
        let png = self.client.screenshot().await?;
        save_artifact(name, &png)
    }

    /// Saves a screenshot of one element into `target/artifacts/<name>.png`.
    pub async fn screenshot_element(
        &self,
        element: &Element,
        name: &str,
    ) -> Result<PathBuf, Error> {
        let png = element.screenshot().await?;
        save_artifact(name, &png)
    }
}

/// [`Browser::click_state`]'s script: the element is its argument.
const CLICK_STATE_JS: &str = r"
const e = arguments[0];
e.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
const r = e.getBoundingClientRect();
const x = r.left + r.width / 2, y = r.top + r.height / 2;
const inside = r.width > 0 && r.height > 0 && x >= 0 && y >= 0
  && x < document.documentElement.clientWidth && y < document.documentElement.clientHeight;
const top = inside ? document.elementFromPoint(x, y) : null;
return {
  box: [r.left, r.top, r.width, r.height],
  clear: inside && !!top && (top === e || e.contains(top)),
  settled: document.getAnimations().every((a) => !(a instanceof CSSTransition)),
  top: top ? top.outerHTML.slice(0, 200) : null,
};
";

/// Whether a [`Browser::click_state`] `state` allows a click: clear, settled, and where the
/// `previous` poll saw it.
pub fn clickable(state: &Value, previous: &Value) -> bool {
    let yes = |key: &str| state.get(key) == Some(&Value::Bool(true));
    yes("clear") && yes("settled") && state.get("box") == previous.get("box")
}

/// Calls `check` every few milliseconds until it yields a value or `timeout` passes; the
/// timeout names `what`. For states a test reads without a browser (a host's record, a file a
/// server writes).
pub async fn wait_until<T>(
    what: &str,
    timeout: Duration,
    mut check: impl FnMut() -> Option<T>,
) -> Result<T, Error> {
    poll(what.to_owned(), timeout, || std::future::ready(Ok(check()))).await
}

/// Calls `attempt` every few milliseconds until it yields a value, fails, or `timeout` passes.
pub async fn poll<T, F, Fut>(what: String, timeout: Duration, mut attempt: F) -> Result<T, Error>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<Option<T>, Error>>,
{
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(v) = attempt().await? {
            return Ok(v);
        }
        if Instant::now() >= deadline {
            return Err(Error::Timeout { what, timeout });
        }
        tokio::time::sleep(POLL).await;
    }
}

/// The cargo target folder: `CARGO_TARGET_DIR` when it is absolute, else three levels above the
/// running test or bench executable (`<target>/<profile>/deps/<exe>`).
pub fn target_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from)
        && dir.is_absolute()
    {
        return dir;
    }
    std::env::current_exe()
        .ok()
        .and_then(|exe| exe.ancestors().nth(3).map(Path::to_path_buf))
        .unwrap_or_else(|| PathBuf::from("target"))
}

/// `target/artifacts`, where screenshots go.
pub fn artifacts_dir() -> PathBuf {
    target_dir().join("artifacts")
}

/// Writes `bytes` to `target/artifacts/<name>.png` (creating the folder).
pub fn save_artifact(name: &str, png: &[u8]) -> Result<PathBuf, Error> {
    let dir = artifacts_dir();
    std::fs::create_dir_all(&dir).map_err(io(format!("cannot create {}", dir.display())))?;
    let path = dir.join(format!("{name}.png"));
    std::fs::write(&path, png).map_err(io(format!("cannot write {}", path.display())))?;
    Ok(path)
}

impl From<CmdError> for Error {
    fn from(e: CmdError) -> Self {
        Error::Command(Box::new(e))
    }
}

/// The value at fraction `p` (0.0–1.0) of `sorted` (ascending), nearest rank; 0 when empty.
/// For the benchmarks' medians and p90s.
///
/// ```
/// assert_eq!(interlude_test_support::percentile(&[1, 2, 3, 4, 5], 0.5), 3);
/// assert_eq!(interlude_test_support::percentile(&[], 0.9), 0);
/// ```
pub fn percentile(sorted: &[u64], p: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        clippy::cast_precision_loss
    )]
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted.get(i).or(sorted.last()).copied().unwrap_or(0)
}
