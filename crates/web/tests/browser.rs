//! Browser end-to-end tests of the web surface: the real page in headless Chromium (driven over
//! WebDriver by `interlude-test-support`), a real `WebApp` on 127.0.0.1, and real MCP servers:
//! the demo served in-process over streamable HTTP and connected twice — `demo` (default
//! negotiation: 2026-07-28, multi round-trip) and `demo-2025` (pinned 2025-11-25, push) — a
//! hostile server of this file's own, and `@modelcontextprotocol/server-everything` over stdio.
//!
//! Everything a person does goes through the page: clicks, typed keys, Enter and Escape. The
//! tests are mandatory in `cargo xtask test`: a missing Chromium fails them (with the command
//! that installs it); only server-everything may be skipped, and only when
//! `INTERLUDE_REQUIRE_PEERS` is not `1`.
//!
//! Each test has its own ChromeDriver and Chromium; waits poll with timeouts (no fixed sleeps).
//! Screenshots land in `target/artifacts/browser-*.png`.
// A skipped test says why on stderr; outside `#[test]` functions too, a panic is how this file's
// code fails a test.
#![allow(
    clippy::print_stderr,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::PathBuf;
use std::time::Duration;

use interlude_host::{ProtocolChoice, ServerSpec};
use interlude_server::{Answer, Ask, AskConfig, AskServer, FormSchema, respond};
use interlude_test_support::Browser;
use interlude_test_support::fantoccini::Locator;
use interlude_test_support::fantoccini::elements::Element;
use interlude_test_support::fantoccini::key::Key;
use interlude_web::{WebApp, WebOptions};
use rmcp::model::{
    CallToolResponse, CallToolResult, ContentBlock, Implementation, ProtocolVersion,
    ServerCapabilities, ServerConfig,
};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, ServerHandler, tool, tool_handler, tool_router};
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

/// How long any one thing may take to appear (generous: CI shares two cores).
const WAIT: Duration = Duration::from_secs(15);

// ---------------------------------------------------------------------------------------------
// Harness.

/// One server to connect besides the demo: name, spec, protocol override.
type Extra = (&'static str, ServerSpec, Option<ProtocolChoice>);

/// A `WebApp` with servers connected, and a browser on its page.
struct Page {
    browser: Browser,
    app: WebApp,
    url: String,
    _servers: StopOnDrop,
}

/// Stops the servers (page, demo) when the test ends, passed or not.
struct StopOnDrop(CancellationToken);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

/// Serves the demo in-process over streamable HTTP on 127.0.0.1 and returns its `/mcp` URL.
async fn serve_demo(shutdown: &CancellationToken) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(interlude_demo::serve_http(
        listener,
        interlude_demo::HttpOptions {
            shutdown: shutdown.child_token(),
            ..Default::default()
        },
    ));
    format!("http://{addr}/mcp")
}

/// The page with `demo` (2026-07-28 by default negotiation) and `demo-2025` (pinned
/// 2025-11-25), both the in-process demo over HTTP.
async fn harness() -> Page {
    harness_with(Vec::new()).await
}

/// [`harness`] plus `extra` servers. The browser starts while the servers connect.
async fn harness_with(extra: Vec<Extra>) -> Page {
    harness_configured(WebOptions::default(), extra).await
}

/// [`harness_with`], the web surface started with `options`.
async fn harness_configured(options: WebOptions, extra: Vec<Extra>) -> Page {
    let shutdown = CancellationToken::new();
    let servers = async {
        let demo = serve_demo(&shutdown).await;
        let app = WebApp::start(options);
        app.add_server("demo", ServerSpec::parse(&demo).unwrap(), None)
            .await;
        app.add_server(
            "demo-2025",
            ServerSpec::parse(&demo).unwrap(),
            Some(ProtocolChoice::Pin(ProtocolVersion::V_2025_11_25)),
        )
        .await;
        for (name, spec, protocol) in extra {
            app.add_server(name, spec, protocol).await;
        }
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = app.url(listener.local_addr().unwrap());
        tokio::spawn(app.clone().serve(listener, shutdown.child_token()));
        (app, url)
    };
    let (browser, (app, url)) = tokio::join!(Browser::start(), servers);
    let browser = browser.unwrap_or_else(|e| panic!("{e}"));
    let page = Page {
        browser,
        app,
        url,
        _servers: StopOnDrop(shutdown),
    };
    page.open().await;
    page
}

/// A JavaScript string literal.
fn js(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

/// The selector of the call card for `tool` on `server` in the timeline.
fn call_selector(server: &str, tool: &str) -> String {
    format!("article.call[aria-label=\"Call {tool} on {server}\"]")
}

impl Page {
    /// Ends the browser session politely (the servers stop when `self` drops).
    async fn close(self) {
        self.browser.close().await;
    }

    fn client(&self) -> &interlude_test_support::fantoccini::Client {
        self.browser.client()
    }

    /// Loads the page and waits for its live channel and the servers' tools.
    async fn open(&self) {
        self.client().goto(&self.url).await.unwrap();
        self.wait_live().await;
    }

    async fn wait_live(&self) {
        self.browser
            .wait_js(
                "document.querySelector('#conn.live') && document.querySelector('.tool-btn')",
                WAIT,
            )
            .await
            .unwrap_or_else(|e| panic!("the page never went live: {e}"));
    }

    /// Picks `tool` of `server` in the sidebar, then presses "Call tool" in the composer.
    async fn call_from_sidebar(&self, server: &str, tool: &str) {
        let button = format!(
            "//li[@data-server={}]//button[contains(@class,'tool-btn')][span[@class='tool-name' and text()={}]]",
            xpath_str(server),
            xpath_str(tool)
        );
        let b = self
            .client()
            .wait()
            .at_most(WAIT)
            .for_element(Locator::XPath(&button))
            .await
            .unwrap_or_else(|e| panic!("no tool button for {server} › {tool}: {e}"));
        b.click().await.unwrap();
        let heading = format!("{server} › {tool}");
        self.browser
            .wait_js(
                &format!(
                    "document.querySelector('#composer h3')?.textContent === {}",
                    js(&heading)
                ),
                WAIT,
            )
            .await
            .unwrap_or_else(|e| panic!("the composer did not open for {heading}: {e}"));
        self.press_call().await;
    }

    /// Presses "Call tool" in the open composer.
    async fn press_call(&self) {
        self.client()
            .find(Locator::Css("#composer button.primary"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
    }

    /// Waits until a card is presented and focus is inside it (other than `not`), checks the
    /// server it names, and returns the card and its request id.
    async fn focused_card(&self, server: &str, not: Option<&str>) -> (Element, String) {
        let not = js(not.unwrap_or(""));
        let id = self
            .browser
            .wait_js(
                &format!(
                    "(() => {{ const c = document.querySelector('section.ask'); \
                     const a = document.activeElement; \
                     return c && a && a !== c && c.contains(a) && c.dataset.request !== {not} \
                       ? c.dataset.request : null; }})()"
                ),
                WAIT,
            )
            .await;
        let id = match id {
            Ok(id) => id,
            Err(e) => {
                let requests: Vec<String> = self
                    .app
                    .host()
                    .snapshot()
                    .requests
                    .iter()
                    .map(|r| format!("{} {:?}", r.view.id, r.status))
                    .collect();
                let focus = self
                    .browser
                    .js("document.activeElement?.outerHTML?.slice(0, 300) ?? null")
                    .await
                    .ok();
                panic!(
                    "no focused card from {server} (not {not}; requests {requests:?}; focus on {focus:?}): {e}"
                )
            }
        };
        let id = id.as_str().unwrap().to_owned();
        let card = self
            .client()
            .find(Locator::Css(&format!("section.ask[data-request=\"{id}\"]")))
            .await
            .unwrap();
        let shown = card.attr("data-server").await.unwrap();
        assert_eq!(
            shown.as_deref(),
            Some(server),
            "the card is for the server that asks"
        );
        (card, id)
    }

    /// The input (or select) of field `name` in the presented card.
    async fn field(&self, name: &str) -> Element {
        self.client()
            .find(Locator::Css(&format!(
                "section.ask [data-field=\"{name}\"] input, section.ask [data-field=\"{name}\"] select"
            )))
            .await
            .unwrap_or_else(|e| panic!("no field {name} in the card: {e}"))
    }

    /// The choice with `value` of field `name` (radio or checkbox) in the presented card.
    async fn choice(&self, name: &str, value: &str) -> Element {
        self.client()
            .find(Locator::Css(&format!(
                "section.ask [data-field=\"{name}\"] input[value=\"{value}\"]"
            )))
            .await
            .unwrap_or_else(|e| panic!("no choice {value} of {name} in the card: {e}"))
    }

    /// Clicks the radio button or checkbox `value` of the choice field `name`.
    async fn click_choice(&self, name: &str, value: &str) {
        self.choice(name, value)
            .await
            .click()
            .await
            .unwrap_or_else(|e| panic!("cannot click choice {value} of {name}: {e}"));
    }

    /// Clicks one of the presented card's buttons by its text.
    async fn press(&self, label: &str) {
        let xpath = format!(
            "//section[contains(@class,'ask')]//div[@class='actions']/button[text()={}]",
            xpath_str(label)
        );
        self.client()
            .find(Locator::XPath(&xpath))
            .await
            .unwrap_or_else(|e| panic!("no {label} button in the card: {e}"))
            .click()
            .await
            .unwrap();
    }

    /// Sends keys to whatever has focus.
    async fn type_keys(&self, keys: &str) {
        self.client()
            .active_element()
            .await
            .unwrap()
            .send_keys(keys)
            .await
            .unwrap();
    }

    /// Waits until the result of one of the calls of `tool` on `server` contains `expected`;
    /// returns that result's text.
    async fn result_containing(&self, server: &str, tool: &str, expected: &str) -> String {
        let sel = format!("{} .result", call_selector(server, tool));
        let expr = format!(
            "Array.from(document.querySelectorAll({})).map((e) => e.textContent).find((t) => t.includes({}))",
            js(&sel),
            js(expected)
        );
        match self.browser.wait_js(&expr, WAIT).await {
            Ok(v) => v.as_str().unwrap().to_owned(),
            Err(e) => {
                let got = self
                    .browser
                    .js(&format!(
                        "Array.from(document.querySelectorAll({})).map((e) => e.textContent).join(' | ')",
                        js(&sel)
                    ))
                    .await
                    .ok();
                self.artifact(&format!("failed-{tool}")).await;
                panic!(
                    "no result of {server} › {tool} containing {expected:?} ({e}); results: {got:?}"
                )
            }
        }
    }

    /// A screenshot of the whole window, for a look (or for a failure).
    async fn artifact(&self, name: &str) -> Option<PathBuf> {
        let path = self
            .browser
            .screenshot(&format!("browser-{name}"))
            .await
            .ok();
        if let Some(p) = &path {
            eprintln!("screenshot: {}", p.display());
        }
        path
    }
}

/// An XPath string literal (the values here never hold both quote kinds).
fn xpath_str(s: &str) -> String {
    if s.contains('\'') {
        format!("\"{s}\"")
    } else {
        format!("'{s}'")
    }
}

// ---------------------------------------------------------------------------------------------
// 1. Every widget, filled with keys and clicks, in both eras.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_widget_by_keyboard_and_mouse_2026() {
    every_widget("demo").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_widget_by_keyboard_and_mouse_2025() {
    every_widget("demo-2025").await;
}

async fn every_widget(server: &str) {
    let page = harness().await;
    page.call_from_sidebar(server, "event_registration").await;
    let (card, _) = page.focused_card(server, None).await;
    // Focus lands on the first field, ready to type.
    let focused_field = page
        .browser
        .js("document.activeElement.closest('[data-field]')?.dataset.field")
        .await
        .unwrap();
    assert_eq!(
        focused_field,
        json!("name"),
        "focus starts on the first field"
    );
    page.type_keys("Ada Lovelace").await;

    // A bad e-mail address first: the engine's own rule shows inline, on the field.
    let email = page.field("email").await;
    email.send_keys("ada@example").await.unwrap();
    let message = page
        .browser
        .wait_js(
            "document.querySelector('section.ask [data-field=\"email\"] .field-error')?.textContent",
            WAIT,
        )
        .await
        .unwrap();
    assert_eq!(
        message,
        json!("Email must be an e-mail address, such as ada@example.com.")
    );
    // The description and the hint, each said once, as sentences (issue 12).
    let help = page
        .browser
        .js("document.querySelector('section.ask [data-field=\"email\"] .hint')?.textContent")
        .await
        .unwrap();
    assert_eq!(
        help,
        json!("Where we send the ticket. For example, ada@example.com.")
    );
    assert_eq!(
        email.attr("aria-invalid").await.unwrap().as_deref(),
        Some("true"),
        "the invalid field is marked for assistive technology"
    );
    email.send_keys(".org").await.unwrap();
    page.browser
        .wait_js(
            "document.querySelector('section.ask [data-field=\"email\"] .field-error')?.textContent === ''",
            WAIT,
        )
        .await
        .expect("the message goes once the address is fixed");

    page.field("website")
        .await
        .send_keys("https://ada.example.org/")
        .await
        .unwrap();
    // Date and date-time inputs take keys in the locale's order (Chromium runs with
    // --lang=en-US: month, day, year; then hours, minutes, AM/PM), each segment moving on by
    // itself once full; Tab moves from the year to the time part.
    let arrival = page.field("arrival").await;
    arrival.send_keys("08142026").await.unwrap();
    let talk = page.field("talk_slot").await;
    talk.send_keys("08152026").await.unwrap();
    talk.send_keys(&format!("{}0930AM", Key::Tab))
        .await
        .unwrap();
    let (arrival_value, talk_value) = (
        arrival.prop("value").await.unwrap(),
        talk.prop("value").await.unwrap(),
    );
    assert_eq!(arrival_value.as_deref(), Some("2026-08-14"), "date typed");
    assert_eq!(
        talk_value.as_deref(),
        Some("2026-08-15T09:30"),
        "date and time typed"
    );
    page.field("guests").await.send_keys("2").await.unwrap();
    page.field("budget").await.send_keys("850.5").await.unwrap();
    // Three titled choices: radio buttons.
    page.click_choice("ticket", "student").await;
    // Eight choices: a <select>, chosen with the keyboard ("F" jumps to France).
    let country = page.field("country").await;
    assert_eq!(country.tag_name().await.unwrap(), "select");
    country.send_keys("France").await.unwrap();
    // One to three workshops: checkboxes.
    page.click_choice("workshops", "rust-mcp").await;
    page.click_choice("workshops", "accessible-forms").await;
    // The switch.
    let newsletter = page.field("newsletter").await;
    assert_eq!(
        newsletter.attr("role").await.unwrap().as_deref(),
        Some("switch")
    );
    newsletter.click().await.unwrap();

    // No field complains once everything is filled.
    page.browser
        .wait_js(
            "Array.from(document.querySelectorAll('section.ask .field-error')).every((e) => e.textContent === '')",
            WAIT,
        )
        .await
        .unwrap();
    // A tall window for the artifact, so the whole card fits (an element screenshot is clipped
    // to the viewport).
    page.client().set_window_size(1280, 2000).await.unwrap();
    let shot = page
        .browser
        .screenshot_element(&card, &format!("browser-event-registration-{server}"))
        .await
        .unwrap();
    eprintln!("screenshot: {}", shot.display());
    page.client().set_window_size(1280, 900).await.unwrap();

    page.press("Accept").await;
    let result = page
        .result_containing(server, "event_registration", "Registered Ada Lovelace")
        .await;
    for typed in [
        "Registered Ada Lovelace <ada@example.org>",
        "website=Some(\"https://ada.example.org/\")",
        "arrival=2026-08-14",
        "talk_slot=Some(\"2026-08-15T09:30:00",
        "guests=2",
        "budget=Some(850.5)",
        "ticket=Student",
        "country=FR",
        "workshops=[RustMcp, AccessibleForms]",
        "newsletter=true",
    ] {
        assert!(result.contains(typed), "{typed:?} missing from {result:?}");
    }
    // The card is gone and the call shows what was sent.
    page.browser.wait_gone("section.ask", WAIT).await.unwrap();
    let record = page
        .client()
        .find(Locator::Css(&format!(
            "{} .request-record.accept",
            call_selector(server, "event_registration")
        )))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(record.contains("You accepted"), "{record}");
    assert!(record.contains("\"guests\": 2"), "{record}");
    page.close().await;
}

// ---------------------------------------------------------------------------------------------
// 2. Decline with the button, cancel with Escape.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn decline_button_and_escape_cancel() {
    let page = harness().await;
    page.call_from_sidebar("demo", "github_username").await;
    page.focused_card("demo", None).await;
    page.press("Decline").await;
    page.result_containing("demo", "github_username", "The user declined.")
        .await;
    page.browser.wait_gone("section.ask", WAIT).await.unwrap();

    page.call_from_sidebar("demo-2025", "github_username").await;
    page.focused_card("demo-2025", None).await;
    page.type_keys("half-typed").await;
    page.type_keys(&Key::Escape).await;
    page.result_containing("demo-2025", "github_username", "The user cancelled.")
        .await;
    page.browser.wait_gone("section.ask", WAIT).await.unwrap();
    let record = page
        .client()
        .find(Locator::Css(&format!(
            "{} .request-record.cancel",
            call_selector("demo-2025", "github_username")
        )))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        !record.contains("half-typed"),
        "a cancel sends nothing: {record}"
    );
    page.close().await;
}

// ---------------------------------------------------------------------------------------------
// 3. A reload loses nothing.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reload_with_a_pending_request() {
    let page = harness().await;
    page.call_from_sidebar("demo-2025", "contact_info").await;
    let (_, before) = page.focused_card("demo-2025", None).await;
    page.client().refresh().await.unwrap();
    page.wait_live().await;
    // The same request, presented and focused again.
    let (_, after) = page.focused_card("demo-2025", None).await;
    assert_eq!(
        before, after,
        "the same request is presented after a reload"
    );
    page.type_keys("Grace Hopper").await;
    page.field("email")
        .await
        .send_keys("grace@example.org")
        .await
        .unwrap();
    let age = page.field("age").await;
    age.send_keys("85").await.unwrap();
    age.send_keys(&Key::Enter).await.unwrap();
    page.result_containing(
        "demo-2025",
        "contact_info",
        "Thanks Grace Hopper (grace@example.org, age 85).",
    )
    .await;
    page.close().await;
}

/// An answer the engine refuses (posted straight to the API, as a second tab or a script could)
/// is shown on the card, nothing reaches the server, and the person's place in the form survives
/// the re-render.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn engine_refusal_is_shown_and_keeps_focus() {
    let page = harness().await;
    page.call_from_sidebar("demo", "contact_info").await;
    let (_, id) = page.focused_card("demo", None).await;
    page.type_keys("Grace").await;
    // The card checks what was typed 180 ms after the last key; once that check is back, the
    // engine's refusal below is the last word on the fields (a later check would judge the
    // form's own content, which has no age yet).
    tokio::time::sleep(Duration::from_millis(600)).await;
    page.browser
        .js(&format!(
            "fetch('/api/answer', {{ method: 'POST', headers: {{ 'content-type': 'application/json', \
             'x-interlude-token': new URLSearchParams(location.search).get('token') }}, \
             body: JSON.stringify({{ id: {id}, action: 'accept', \
             content: {{ name: 'X', email: 'x@example.org', age: 12 }} }}) }}).then((r) => r.status)"
        ))
        .await
        .unwrap();
    let refused = page
        .browser
        .wait_js(
            "document.querySelector('section.ask .ask-errors')?.textContent",
            WAIT,
        )
        .await
        .unwrap();
    assert_eq!(
        refused,
        json!("The host refused this answer. Age must be between 18 and 150.")
    );
    let age_error = page
        .browser
        .js("document.querySelector('section.ask [data-field=\"age\"] .field-error').textContent")
        .await
        .unwrap();
    assert_eq!(age_error, json!("Age must be between 18 and 150."));
    // Still the same card, focus still in the name field, typing goes on where it was.
    let (_, still) = page.focused_card("demo", None).await;
    assert_eq!(still, id);
    page.type_keys(" Hopper").await;
    assert_eq!(
        page.field("name")
            .await
            .prop("value")
            .await
            .unwrap()
            .as_deref(),
        Some("Grace Hopper")
    );
    page.field("email")
        .await
        .send_keys("grace@example.org")
        .await
        .unwrap();
    let age = page.field("age").await;
    age.send_keys("85").await.unwrap();
    age.send_keys(&Key::Enter).await.unwrap();
    let result = page
        .result_containing("demo", "contact_info", "Thanks Grace Hopper")
        .await;
    assert!(!result.contains("age 12"), "{result}");
    page.close().await;
}

// ---------------------------------------------------------------------------------------------
// 4. Two requests: one presented, one queued, presented next.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn queued_request_is_presented_next() {
    let page = harness().await;
    page.call_from_sidebar("demo", "github_username").await;
    let (_, first) = page.focused_card("demo", None).await;
    // A second request queues behind the first. It is started through the app rather than the
    // composer's button, so the person's focus stays in the card they are answering.
    page.app
        .call_tool("demo", "github_username", None)
        .await
        .unwrap();
    let queue = page
        .browser
        .wait_js(
            "(() => { const q = document.getElementById('queue'); return q && !q.hidden ? q.textContent : null; })()",
            WAIT,
        )
        .await
        .unwrap();
    assert!(
        queue.as_str().unwrap().contains("1 more in the queue"),
        "{queue}"
    );
    let summary = page
        .client()
        .find(Locator::Css("#pending-summary"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(summary, "2 requests waiting for you");
    page.type_keys(&format!("first{}", Key::Enter)).await;

    let (_, second) = page.focused_card("demo", Some(&first)).await;
    assert_ne!(first, second);
    page.browser
        .wait_js("document.getElementById('queue').hidden", WAIT)
        .await
        .expect("the queue bar goes once nothing waits behind the card");
    page.type_keys(&format!("second{}", Key::Enter)).await;
    page.result_containing("demo", "github_username", "Hello, @first!")
        .await;
    page.result_containing("demo", "github_username", "Hello, @second!")
        .await;
    // Each page that presented a card reported how long it took.
    let reported = page.app.telemetry();
    for id in [&first, &second] {
        let id: u64 = id.parse().unwrap();
        assert!(
            reported.iter().any(|(r, _)| *r == id),
            "no telemetry for request {id}: {reported:?}"
        );
    }
    page.close().await;
}

// ---------------------------------------------------------------------------------------------
// 5. Two windows on one host stay consistent.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_windows_stay_consistent() {
    let page = harness().await;
    let c = page.client();
    let first = c.window().await.unwrap();
    let second = c.new_window(false).await.unwrap().handle;
    c.switch_to_window(second.clone()).await.unwrap();
    page.open().await;

    // Asked through the second window; both show the card.
    page.call_from_sidebar("demo-2025", "favourite_genre").await;
    let (_, id) = page.focused_card("demo-2025", None).await;
    c.switch_to_window(first.clone()).await.unwrap();
    page.browser
        .wait_for(&format!("section.ask[data-request=\"{id}\"]"), WAIT)
        .await
        .expect("the first window shows the same card");

    // Answered in the first window.
    page.click_choice("genre", "jazz").await;
    page.press("Accept").await;
    page.result_containing("demo-2025", "favourite_genre", "Favourite genre: Jazz.")
        .await;

    // The second window follows: no card, the record and the result.
    c.switch_to_window(second).await.unwrap();
    page.browser.wait_gone("section.ask", WAIT).await.unwrap();
    page.browser
        .wait_for(
            &format!(
                "{} .request-record.accept",
                call_selector("demo-2025", "favourite_genre")
            ),
            WAIT,
        )
        .await
        .unwrap();
    page.result_containing("demo-2025", "favourite_genre", "Favourite genre: Jazz.")
        .await;
    let summary = c
        .find(Locator::Css("#pending-summary"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(summary, "Nothing is waiting for you");
    page.close().await;
}

// ---------------------------------------------------------------------------------------------
// 6. Hostile text is shown as text, and does not break the layout.

const HOSTILE_MESSAGE: &str = "Session expired. <img src=x onerror=\"window.__pwned=1\"> \
     Sign in again at https://evil.example/login to continue. \
     <script>window.__pwned=2</script>";

/// A server whose one tool asks with markup in the message and a 10 000-character title.
#[derive(Clone)]
struct Hostile {
    ask: AskConfig,
}

impl AskServer for Hostile {
    fn ask_config(&self) -> &AskConfig {
        &self.ask
    }
}

#[tool_router]
impl Hostile {
    #[tool(description = "Asks with hostile text.")]
    async fn hostile(&self, ask: Ask) -> Result<CallToolResponse, ErrorData> {
        let title = format!("<b>{}</b>", "W".repeat(10_000 - 7));
        assert_eq!(title.chars().count(), 10_000);
        let schema = FormSchema::parse(&json!({
            "type": "object",
            "properties": {
                "code": {"type": "string", "title": title,
                         "description": "https://evil.example/help <a href=\"https://evil.example\">help</a>"}
            },
            "required": ["code"]
        }))
        .map_err(|e| ErrorData::internal_error(e.to_string(), None))?
        .schema;
        respond(
            async {
                let text = match ask.form_with_schema(HOSTILE_MESSAGE, &schema).await? {
                    Answer::Accepted(c) => format!("got {}", c["code"]),
                    Answer::Declined => "declined".into(),
                    Answer::Cancelled => "cancelled".into(),
                };
                Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
            }
            .await,
        )
    }
}

#[tool_handler]
impl ServerHandler for Hostile {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::default();
        info.capabilities = ServerCapabilities::builder().enable_tools().build();
        info.server_info = Implementation::new("hostile", "0.0.1");
        info
    }
}

async fn serve_hostile(shutdown: &CancellationToken) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let mut config = StreamableHttpServerConfig::default();
    config.cancellation_token = shutdown.child_token();
    // One sealing key for the whole server: 2026-07-28 requests are served statelessly, each by
    // a fresh instance, and a retry must open the state an earlier instance sealed.
    let ask = AskConfig::new();
    let service = StreamableHttpService::new(
        move || Ok(Hostile { ask: ask.clone() }),
        LocalSessionManager::default().into(),
        config,
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let stop = shutdown.child_token();
    tokio::spawn(async move {
        axum::serve(listener, router)
            .with_graceful_shutdown(async move { stop.cancelled().await })
            .await
    });
    format!("http://{addr}/mcp")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_text_is_shown_literally() {
    let hostile_stop = CancellationToken::new();
    let hostile = serve_hostile(&hostile_stop).await;
    let page = harness_with(vec![(
        "hostile",
        ServerSpec::parse(&hostile).unwrap(),
        None,
    )])
    .await;
    page.call_from_sidebar("hostile", "hostile").await;
    let (card, _) = page.focused_card("hostile", None).await;

    let text = card.text().await.unwrap();
    assert!(
        text.contains("<img src=x onerror="),
        "shown literally: {text:.300}"
    );
    assert!(text.contains("https://evil.example/login"), "{text:.300}");
    assert!(text.contains("<script>"), "{text:.300}");
    assert!(text.contains("<b>WWW"), "the title is shown literally too");
    for (selector, what) in [
        ("section.ask img", "an image"),
        ("section.ask script", "a script"),
        ("section.ask b", "bold markup"),
        (".ask-message a", "a link in the message"),
        ("section.ask a", "a link in the card"),
    ] {
        let found = page
            .client()
            .find_all(Locator::Css(selector))
            .await
            .unwrap();
        assert!(found.is_empty(), "the card contains {what} ({selector})");
    }
    assert_eq!(
        page.browser.js("typeof window.__pwned").await.unwrap(),
        json!("undefined"),
        "hostile markup ran"
    );
    let no_overflow = "document.documentElement.scrollWidth <= window.innerWidth";
    assert_eq!(
        page.browser.js(no_overflow).await.unwrap(),
        json!(true),
        "the page scrolls sideways at 1280 px"
    );
    page.artifact("hostile-wide").await;
    // A narrow window too (a phone, or a side panel).
    page.client().set_window_size(420, 900).await.unwrap();
    page.browser
        .wait_js("window.innerWidth <= 420", WAIT)
        .await
        .unwrap();
    let widths = page
        .browser
        .js("[document.documentElement.scrollWidth, window.innerWidth]")
        .await
        .unwrap();
    page.browser
        .js("document.querySelector('section.ask').scrollIntoView({ block: 'start' })")
        .await
        .unwrap();
    page.artifact("hostile-narrow").await;
    assert_eq!(
        page.browser
            .js("document.querySelector('.topbar').getBoundingClientRect().top")
            .await
            .unwrap(),
        json!(0),
        "the top bar stays in view when the page is scrolled down to the card"
    );
    assert_eq!(
        page.browser.js(no_overflow).await.unwrap(),
        json!(true),
        "the page scrolls sideways at 420 px: {widths}"
    );

    // Still answerable.
    page.type_keys(&format!("1234{}", Key::Enter)).await;
    page.result_containing("hostile", "hostile", "got \"1234\"")
        .await;
    assert_eq!(
        page.browser.js("typeof window.__pwned").await.unwrap(),
        json!("undefined")
    );
    page.close().await;
    hostile_stop.cancel();
}

// ---------------------------------------------------------------------------------------------
// 7. server-everything's form, through the page.

const SERVER_EVERYTHING: &str = "@modelcontextprotocol/server-everything/dist/index.js";

/// The published server-everything over stdio.
fn server_everything(peers: &interlude_test_support::NpmPeers) -> ServerSpec {
    ServerSpec::Stdio {
        command: peers.node.to_string_lossy().into_owned(),
        args: vec![
            peers
                .package_file(SERVER_EVERYTHING)
                .to_string_lossy()
                .into_owned(),
            "stdio".into(),
        ],
        env: Default::default(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_everything_form_through_the_page() {
    let Some(peers) = interlude_test_support::NpmPeers::locate(&[SERVER_EVERYTHING]) else {
        return;
    };
    let page = harness_with(vec![("everything", server_everything(&peers), None)]).await;
    page.call_from_sidebar("everything", "trigger-elicitation-request")
        .await;
    let (card, _) = page.focused_card("everything", None).await;
    // Who asks: what the server says it is (its serverInfo title), never the program that
    // runs it, with the name it has here beside it.
    let who = card
        .find(Locator::Css(".ask-server"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(who.starts_with("Everything Reference Server"), "{who}");
    assert!(
        who.ends_with("everything") && !who.contains("node"),
        "{who}"
    );
    let heading = page
        .browser
        .js("document.querySelector('li[data-server=\"everything\"] .server-name').textContent")
        .await
        .unwrap();
    assert_eq!(heading, json!("Everything Reference Server"));

    page.type_keys("Grace Hopper").await;
    // An integer prefilled with its default (42): replaced.
    let integer = page.field("integer").await;
    assert_eq!(integer.prop("value").await.unwrap().as_deref(), Some("42"));
    integer.clear().await.unwrap();
    integer.send_keys("7").await.unwrap();
    // Six untitled choices: a <select>.
    let friend = page.field("untitledSingleSelectEnum").await;
    assert_eq!(friend.tag_name().await.unwrap(), "select");
    friend.select_by_value("Phoebe").await.unwrap();
    // A multi-select prefilled with Guitar: Guitar off, Piano and Violin on.
    page.click_choice("untitledMultipleSelectEnum", "Guitar")
        .await;
    page.click_choice("untitledMultipleSelectEnum", "Piano")
        .await;
    page.click_choice("untitledMultipleSelectEnum", "Violin")
        .await;
    // Titled single select (oneOf): radios.
    page.click_choice("titledSingleSelectEnum", "hero-3").await;
    // The legacy enum with enumNames: radios labelled with the names.
    let birds = page.choice("legacyTitledEnum", "pet-3").await;
    let label = page
        .browser
        .js("document.querySelector('section.ask [data-field=\"legacyTitledEnum\"] input[value=\"pet-3\"]').parentElement.textContent")
        .await
        .unwrap();
    assert_eq!(label, json!("Birds"), "enumNames label the legacy choices");
    birds.click().await.unwrap();
    page.artifact("everything-filled").await;
    page.press("Accept").await;

    let text = page
        .result_containing(
            "everything",
            "trigger-elicitation-request",
            "User provided the requested information",
        )
        .await;
    for line in ["- Name: Grace Hopper", "- Favorite Integer: 7"] {
        assert!(text.contains(line), "{line:?} missing from {text:?}");
    }
    let (_, raw) = text.split_once("Raw result: ").expect("a raw result");
    let raw: Value = serde_json::from_str(raw.trim()).unwrap();
    assert_eq!(raw["action"], "accept");
    let content = &raw["content"];
    assert_eq!(content["name"], "Grace Hopper");
    assert_eq!(content["integer"], 7);
    assert_eq!(content["untitledSingleSelectEnum"], "Phoebe");
    assert_eq!(
        content["untitledMultipleSelectEnum"],
        json!(["Piano", "Violin"])
    );
    assert_eq!(content["titledSingleSelectEnum"], "hero-3");
    assert_eq!(content["legacyTitledEnum"], "pet-3");
    page.close().await;
}

// ---------------------------------------------------------------------------------------------
// URL mode: the consent card, the link opened in a new tab, the server's own page, both eras.

/// The demo over HTTP with its URL flows (pages and sign-in on the demo's origin), and a page
/// whose host allows exactly that origin in plain http (the development setting).
async fn harness_with_flows() -> (Page, String) {
    harness_with_flows_and(|base| async move {
        let cloud = interlude_demo::flows::serve_cloud(
            TcpListener::bind("127.0.0.1:0").await.unwrap(),
            &base,
            "browser-test-secret",
        )
        .unwrap();
        interlude_server::url::OAuthProvider::new(
            "cloud",
            "Example Cloud",
            format!("{}/authorize", cloud.origin),
            format!("{}/token", cloud.origin),
            interlude_demo::flows::CLOUD_CLIENT_ID,
        )
        .with_secret(cloud.secret)
        .with_scopes(["files.read"])
    })
    .await
}

/// [`harness_with_flows`] with the OAuth provider `provider` makes for the flows' base URL.
async fn harness_with_flows_and<F, Fut>(provider: F) -> (Page, String)
where
    F: FnOnce(String) -> Fut,
    Fut: std::future::Future<Output = interlude_server::url::OAuthProvider>,
{
    harness_with_flows_declaring(interlude_engine::Declared::default(), provider).await
}

/// [`harness_with_flows_and`], the host declaring `declare` to the servers.
async fn harness_with_flows_declaring<F, Fut>(
    declare: interlude_engine::Declared,
    provider: F,
) -> (Page, String)
where
    F: FnOnce(String) -> Fut,
    Fut: std::future::Future<Output = interlude_server::url::OAuthProvider>,
{
    let shutdown = CancellationToken::new();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let origin = format!("http://{addr}");
    let key = vec![7u8; 32];
    let store: std::sync::Arc<dyn interlude_server::url::FlowStore> =
        std::sync::Arc::new(interlude_server::url::MemoryStore::default());
    let base = format!("{origin}/flows");
    let cloud = provider(base.clone()).await;
    let flows = interlude_demo::flows::demo_flows_with(&base, store, &key, Some(cloud)).unwrap();
    tokio::spawn(interlude_demo::serve_http(
        listener,
        interlude_demo::HttpOptions {
            shutdown: shutdown.child_token(),
            flows: Some((flows, key)),
            ..Default::default()
        },
    ));
    let demo = format!("{origin}/mcp");
    let mut host = interlude_host::HostConfig {
        declare,
        ..interlude_host::HostConfig::default()
    };
    host.engine.url_policy.dev_origins =
        vec![interlude_engine::DevOrigin::loopback_http(addr.port())];
    let servers = async {
        let app = WebApp::start(WebOptions {
            host,
            ..WebOptions::default()
        });
        app.add_server("demo", ServerSpec::parse(&demo).unwrap(), None)
            .await;
        app.add_server(
            "demo-2025",
            ServerSpec::parse(&demo).unwrap(),
            Some(ProtocolChoice::Pin(ProtocolVersion::V_2025_11_25)),
        )
        .await;
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = app.url(listener.local_addr().unwrap());
        tokio::spawn(app.clone().serve(listener, shutdown.child_token()));
        (app, url)
    };
    let (browser, (app, url)) = tokio::join!(Browser::start(), servers);
    let page = Page {
        browser: browser.unwrap_or_else(|e| panic!("{e}")),
        app,
        url,
        _servers: StopOnDrop(shutdown),
    };
    page.open().await;
    (page, origin)
}

impl Page {
    /// Waits for a second window (the link the page opened), switches to it, and returns the
    /// page's own window to come back to.
    async fn switch_to_new_window(&self) -> interlude_test_support::fantoccini::wd::WindowHandle {
        let home = self.client().window().await.unwrap();
        let deadline = std::time::Instant::now() + WAIT;
        loop {
            let windows = self.client().windows().await.unwrap();
            if let Some(other) = windows.into_iter().find(|w| *w != home) {
                self.client().switch_to_window(other).await.unwrap();
                return home;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the link did not open in a new tab"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// In the flow's tab, not signed in yet: the page says so and links to the server's
    /// sign-in; follow it.
    async fn sign_in_on_the_flow_page(&self) {
        let sign_in = self
            .client()
            .wait()
            .at_most(WAIT)
            .for_element(Locator::Css("main a[href*='/sign-in']"))
            .await
            .unwrap_or_else(|e| panic!("no sign-in link on the flow page: {e}"));
        sign_in.click().await.unwrap();
    }

    /// In the flow's tab: sign in, enter `key`, save; then close the tab and come back.
    async fn complete_flow_in_new_tab(&self, key: &str) {
        let home = self.switch_to_new_window().await;
        let c = self.client();
        // Signed in by an earlier flow of the same test, the key field shows at once.
        let signed_in = self
            .browser
            .wait_js(
                "document.querySelector('input#secret') ? 'key' : \
                 (document.querySelector(\"main a[href*='/sign-in']\") ? 'sign-in' : null)",
                WAIT,
            )
            .await
            .unwrap_or_else(|e| panic!("neither a key field nor a sign-in link: {e}"));
        if signed_in == json!("sign-in") {
            self.sign_in_on_the_flow_page().await;
        }
        let input = c
            .wait()
            .at_most(WAIT)
            .for_element(Locator::Css("input#secret[type=password]"))
            .await
            .unwrap_or_else(|e| panic!("no key field after signing in: {e}"));
        input.send_keys(key).await.unwrap();
        c.find(Locator::Css("button[type=submit]"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        let saved = c
            .wait()
            .at_most(WAIT)
            .for_element(Locator::XPath("//h1[text()='Saved']"))
            .await;
        if saved.is_err() {
            let html = c.source().await.unwrap_or_default();
            let url = c
                .current_url()
                .await
                .map(|u| u.to_string())
                .unwrap_or_default();
            panic!("the server's page did not say Saved; at {url}: {html}");
        }
        let html = c.source().await.unwrap();
        assert!(!html.contains(key), "the page never echoes the key");
        c.close_window().await.unwrap();
        c.switch_to_window(home).await.unwrap();
    }

    /// Everything the host logged or recorded, as text.
    fn host_text(&self) -> String {
        let audit = serde_json::to_string(&self.app.host().audit_records()).unwrap();
        format!("{audit} {:?}", self.app.host().snapshot())
    }
}

/// The link the host let through for the latest URL request, once there is one.
async fn opened_link(page: &Page) -> String {
    for _ in 0..300 {
        let found = page
            .app
            .host()
            .snapshot()
            .requests
            .iter()
            .rev()
            .find_map(|r| match r.link() {
                Some(interlude_host::LinkState::Opened { url }) => Some(url.clone()),
                _ => None,
            });
        if let Some(url) = found {
            return url;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("no link was opened");
}

/// 2025-11-25: the consent card shows the link with its origin and the development-origin
/// note; "Open" opens the server's page in a new tab; after sign-in and the key, the server's
/// completion notification closes the request and the call returns. The key appears nowhere in
/// the host.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn url_flow_through_the_page_2025() {
    let (page, origin) = harness_with_flows().await;
    page.call_from_sidebar("demo-2025", "weather_api_key").await;
    let (card, _) = page.focused_card("demo-2025", None).await;
    let text = card.text().await.unwrap();
    assert!(
        text.contains(&format!("{origin}/flows/")),
        "the full link: {text}"
    );
    assert!(text.contains("development origin"), "the dev note: {text}");
    page.artifact("url-consent").await;
    let open = card.find(Locator::Css("button.primary")).await.unwrap();
    assert!(open.text().await.unwrap().starts_with("Open"));
    open.click().await.unwrap();
    // The link forwarded to someone else: a second browser, signed in as another account,
    // is refused and sees no form.
    let link = opened_link(&page).await;
    let other = Browser::start().await.unwrap_or_else(|e| panic!("{e}"));
    // On the server's own page first (signed out: "Sign in first"), so the cookie is its.
    other.client().goto(&link).await.unwrap();
    let mallory =
        interlude_server::url::SignedCookie::new(interlude_demo::flows::COOKIE, [7u8; 32])
            .unwrap()
            .header_value(&interlude_server::url::UserId::new("mallory"));
    other
        .client()
        .execute(
            "document.cookie = arguments[0]; return true;",
            vec![json!(format!("{mallory}; path=/"))],
        )
        .await
        .unwrap();
    other.client().goto(&link).await.unwrap();
    let refused = other
        .wait_for("main h1", WAIT)
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(refused, "This link is not yours");
    assert!(other.client().find(Locator::Css("form")).await.is_err());
    other.close().await;
    page.complete_flow_in_new_tab("wx-secret-2025").await;
    let result = page
        .result_containing("demo-2025", "weather_api_key", "Saved your Weather API key")
        .await;
    assert!(!result.contains("wx-secret-2025"));
    page.browser
        .wait_js(
            "document.querySelector('[data-link=\"completed\"]') ? true : null",
            WAIT,
        )
        .await
        .unwrap_or_else(|e| panic!("the request was not shown as finished: {e}"));
    page.artifact("url-completed").await;
    assert!(!page.host_text().contains("wx-secret-2025"));
    let html = page.client().source().await.unwrap();
    assert!(!html.contains("wx-secret-2025"));
}

/// 2025-11-25 `-32042`: the forecast needs a key first. The host shows the required link as a
/// request of the call, waits for the server's word once the key is entered, and calls again by
/// itself; the second call gets the forecast. And on another call, "I’m done" ends the wait at
/// the person's word: the record says so while the call goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_that_needs_a_key_first_2025() {
    let (page, _origin) = harness_with_flows().await;
    page.call_from_sidebar("demo-2025", "weather_forecast")
        .await;
    let (card, _) = page.focused_card("demo-2025", None).await;
    let text = card.text().await.unwrap();
    assert!(text.contains("needs your weather service"), "{text}");
    card.find(Locator::Css("button.primary"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let waiting = "document.querySelector('[data-link=\"opened\"] button.link-done') ? true : null";
    page.browser
        .wait_js(waiting, WAIT)
        .await
        .unwrap_or_else(|e| panic!("no waiting record with “I’m done”: {e}"));
    page.artifact("url-required-waiting").await;
    page.complete_flow_in_new_tab("wx-forecast-2025").await;
    let result = page
        .result_containing("demo-2025", "weather_forecast", "Tomorrow in Lisbon")
        .await;
    assert!(result.contains("16-character key"), "{result}");
    assert!(!page.host_text().contains("wx-forecast-2025"));
    let call = &page.app.host().snapshot().calls[0];
    assert_eq!(call.requests.len(), 1, "one link, then one retry");

    // "I’m done" before the server's word.
    page.call_from_sidebar("demo-2025", "weather_api_key").await;
    let (card, _) = page.focused_card("demo-2025", None).await;
    card.find(Locator::Css("button.primary"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    page.browser
        .wait_js(waiting, WAIT)
        .await
        .unwrap_or_else(|e| panic!("no waiting record with “I’m done”: {e}"));
    let button = page
        .client()
        .find(Locator::Css("[data-link=\"opened\"] button.link-done"))
        .await
        .unwrap();
    page.client()
        .execute(
            "arguments[0].scrollIntoView({block: 'center'})",
            vec![serde_json::to_value(&button).unwrap()],
        )
        .await
        .unwrap();
    button.click().await.unwrap();
    let said = page
        .browser
        .wait_js(
            "document.querySelector('[data-link=\"done\"]')?.textContent ?? null",
            WAIT,
        )
        .await
        .unwrap_or_else(|e| panic!("the record did not say done: {e}"));
    assert!(
        said.as_str().unwrap().contains("You said you were done"),
        "{said}"
    );
    page.complete_flow_in_new_tab("wx-secret-done").await;
    page.result_containing("demo-2025", "weather_api_key", "Saved your Weather API key")
        .await;
}

/// 2026-07-28: consent opens the page; the server asks again for the same link while the flow
/// is unfinished, and the card says "waiting for you in the browser"; after the key, "I am done"
/// lets the call go on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn url_flow_through_the_page_2026() {
    let (page, _origin) = harness_with_flows().await;
    page.call_from_sidebar("demo", "weather_api_key").await;
    let (card, first) = page.focused_card("demo", None).await;
    card.find(Locator::Css("button.primary"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    page.complete_flow_in_new_tab("wx-secret-2026").await;
    let (card, _) = page.focused_card("demo", Some(&first)).await;
    let done = card.find(Locator::Css("button.primary")).await.unwrap();
    assert_eq!(done.text().await.unwrap(), "I am done in the browser");
    page.artifact("url-waiting").await;
    done.click().await.unwrap();
    let result = page
        .result_containing("demo", "weather_api_key", "Saved your Weather API key")
        .await;
    assert!(!result.contains("wx-secret-2026"));
    assert!(!page.host_text().contains("wx-secret-2026"));
}

impl Page {
    /// Calls `tool` of `server`, consents on its link card, follows the link into the new tab
    /// and signs in there; returns the page's own window and the first request's id.
    async fn open_the_flow(
        &self,
        server: &str,
        tool: &str,
    ) -> (interlude_test_support::fantoccini::wd::WindowHandle, String) {
        self.call_from_sidebar(server, tool).await;
        let (card, first) = self.focused_card(server, None).await;
        card.find(Locator::Css("button.primary"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        let home = self.switch_to_new_window().await;
        self.sign_in_on_the_flow_page().await;
        (home, first)
    }

    /// Waits for the page in this window to be headed `text` (its source in the failure).
    async fn wait_heading(&self, text: &str) {
        let c = self.client();
        let found = c
            .wait()
            .at_most(WAIT)
            .for_element(Locator::XPath(&format!("//h1[text()={}]", xpath_str(text))))
            .await;
        if found.is_err() {
            let html = c.source().await.unwrap_or_default();
            panic!("no heading {text:?}: {html}");
        }
    }

    /// Closes the flow's tab, comes back, and says "I am done" on the request that follows
    /// `first` (a 2026-07-28 server asking again for the same link).
    async fn back_and_done(
        &self,
        home: interlude_test_support::fantoccini::wd::WindowHandle,
        server: &str,
        first: &str,
    ) {
        let c = self.client();
        c.close_window().await.unwrap();
        c.switch_to_window(home).await.unwrap();
        // Back in the page's window, as a person clicking back to its tab.
        c.execute("window.focus(); return true;", vec![])
            .await
            .unwrap();
        let (card, _) = self.focused_card(server, Some(first)).await;
        card.find(Locator::Css("button.primary"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
    }
}

/// OAuth (2026-07-28): consent opens the server's page, which (once signed in) sends the
/// browser to Example Cloud's consent; "Allow" comes back to the server's callback, which keeps
/// the tokens; "I am done" lets the call go on. No token reaches the host or the page.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oauth_flow_through_the_page() {
    let (page, _origin) = harness_with_flows().await;
    let (home, first) = page.open_the_flow("demo", "connect_cloud_account").await;
    let c = page.client();
    let allow = c
        .wait()
        .at_most(WAIT)
        .for_element(Locator::Css("button.allow"))
        .await
        .unwrap_or_else(|e| panic!("no consent page at Example Cloud: {e}"));
    page.artifact("oauth-consent").await;
    allow.click().await.unwrap();
    page.wait_heading("Example Cloud is connected").await;
    let html = c.source().await.unwrap();
    assert!(!html.contains("ecl_"), "no token on the page");
    page.back_and_done(home, "demo", &first).await;
    let result = page
        .result_containing(
            "demo",
            "connect_cloud_account",
            "Connected your Example Cloud",
        )
        .await;
    assert!(result.contains("files.read"), "{result}");
    assert!(!page.host_text().contains("ecl_"), "no token in the host");
}

const OIDC_PROVIDER: &str = "oidc-provider/lib/index.js";

/// A real OpenID provider (`oidc-provider`, pinned) on 127.0.0.1, stopped when dropped.
struct OidcProvider {
    child: std::process::Child,
    issuer: String,
}

impl Drop for OidcProvider {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl OidcProvider {
    fn start(peers: &interlude_test_support::NpmPeers, redirect_uri: &str) -> OidcProvider {
        use std::io::BufRead;
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .unwrap();
        let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/test_data/oidc_provider.mjs");
        let mut child = std::process::Command::new(&peers.node)
            .arg(script)
            .args([
                &port.to_string(),
                "interlude-test",
                "oidc-test-secret",
                redirect_uri,
            ])
            .env("INTERLUDE_NPM_PEERS", &peers.npm)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let mut reader = std::io::BufReader::new(stdout);
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        // The provider prints notices later on: keep its stdout drained (a closed pipe would
        // end it).
        std::thread::spawn(move || std::io::copy(&mut reader, &mut std::io::sink()));
        let issuer = line
            .trim()
            .strip_prefix("ready ")
            .unwrap_or_else(|| panic!("the OpenID provider did not start: {line:?}"))
            .to_owned();
        OidcProvider { child, issuer }
    }
}

/// The same OAuth flow against a real OpenID provider: its own login and consent pages, its
/// PKCE and code checks.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oauth_flow_with_a_real_openid_provider() {
    let Some(peers) = interlude_test_support::NpmPeers::locate(&[OIDC_PROVIDER]) else {
        return;
    };
    let oidc = std::sync::Arc::new(std::sync::Mutex::new(None));
    let slot = oidc.clone();
    let (page, _origin) = harness_with_flows_and(|base| async move {
        let provider = OidcProvider::start(&peers, &format!("{base}/oauth/callback"));
        let issuer = provider.issuer.clone();
        *slot.lock().unwrap() = Some(provider);
        interlude_server::url::OAuthProvider::new(
            "cloud",
            "Example Cloud",
            format!("{issuer}/auth"),
            format!("{issuer}/token"),
            "interlude-test",
        )
        .with_secret("oidc-test-secret")
        .with_scopes(["openid"])
    })
    .await;
    let (home, first) = page.open_the_flow("demo", "connect_cloud_account").await;
    let c = page.client();
    // The provider's own login page (development interactions: any name and password).
    let login = c
        .wait()
        .at_most(WAIT)
        .for_element(Locator::Css("input[name=login]"))
        .await
        .unwrap_or_else(|e| panic!("no login page at the OpenID provider: {e}"));
    login.send_keys("ada").await.unwrap();
    c.find(Locator::Css("input[name=password]"))
        .await
        .unwrap()
        .send_keys("secret")
        .await
        .unwrap();
    page.artifact("oidc-login").await;
    c.find(Locator::Css("button[type=submit]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    // Its consent page: once the login page is gone (its own submit button would be found
    // first, then go stale as the page navigates).
    let left_login = page
        .browser
        .wait_js(
            "!document.querySelector('input[name=login]') && !!document.querySelector('button[type=submit]') || null",
            WAIT,
        )
        .await;
    let consent = match left_login.map_err(|e| e.to_string()).and(
        c.find(Locator::Css("button[type=submit]"))
            .await
            .map_err(|e| e.to_string()),
    ) {
        Ok(button) => button,
        Err(e) => {
            let url = c
                .current_url()
                .await
                .map(|u| u.to_string())
                .unwrap_or_default();
            let html = c.source().await.unwrap_or_default();
            panic!("no consent page ({e}) at {url}: {html}");
        }
    };
    consent.click().await.unwrap();
    page.wait_heading("Example Cloud is connected").await;
    page.back_and_done(home, "demo", &first).await;
    page.result_containing(
        "demo",
        "connect_cloud_account",
        "Connected your Example Cloud",
    )
    .await;
    drop(oidc);
}

/// "Cancel call" on a running call: the server is told, the request it raised leaves the page,
/// and the call shows as cancelled.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_a_call_from_the_page() {
    let page = harness().await;
    page.call_from_sidebar("demo-2025", "contact_info").await;
    page.focused_card("demo-2025", None).await;
    let button = page
        .client()
        .find(Locator::Css(&format!(
            "{} button.call-cancel",
            call_selector("demo-2025", "contact_info")
        )))
        .await
        .unwrap();
    // Out from under the page's sticky header first.
    page.client()
        .execute(
            "arguments[0].scrollIntoView({block: 'center'})",
            vec![serde_json::to_value(&button).unwrap()],
        )
        .await
        .unwrap();
    button.click().await.unwrap();
    page.browser
        .wait_gone("section.ask", WAIT)
        .await
        .unwrap_or_else(|e| panic!("the request stayed on the page: {e}"));
    let status = page
        .browser
        .wait_js(
            &format!(
                "document.querySelector({} + ' .status.cancelled')?.textContent ?? null",
                js(&call_selector("demo-2025", "contact_info"))
            ),
            WAIT,
        )
        .await
        .unwrap_or_else(|e| panic!("the call did not show as cancelled: {e}"));
    assert_eq!(status.as_str(), Some("cancelled"));
    assert_eq!(
        page.app.host().snapshot().calls[0].status.as_str(),
        "cancelled"
    );
}

const BASIC_APP: &str = "@modelcontextprotocol/server-basic-vanillajs/dist/index.js";

/// Into an app view: its proxy frame `frame`, then the view's frame inside it.
async fn enter_view(page: &Page, frame: interlude_test_support::fantoccini::elements::Element) {
    page.browser
        .enter_app_view(frame, WAIT)
        .await
        .unwrap_or_else(|e| panic!("the proxy holds no view frame: {e}"));
}

/// A published example app server (npm peer `file`) over stdio, with `extra` arguments.
fn npm_app(peers: &interlude_test_support::NpmPeers, file: &str, extra: &[String]) -> ServerSpec {
    let mut args = vec![
        peers.package_file(file).to_string_lossy().into_owned(),
        "--stdio".into(),
    ];
    args.extend(extra.iter().cloned());
    ServerSpec::Stdio {
        command: peers.node.to_string_lossy().into_owned(),
        args,
        env: Default::default(),
    }
}

/// MCP Apps in Chromium: the published server-basic-vanillajs over stdio. Calling `get-time`
/// shows its view beside the call, framed from the server's own sandbox origin (not the
/// page's); the view renders the call's result, its button calls the server's tool through
/// the host's bridge, and what it puts in the conversation (`ui/message`) shows under it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_published_app_renders_beside_its_call_and_calls_its_server() {
    let Some(peers) = interlude_test_support::NpmPeers::locate(&[BASIC_APP]) else {
        return;
    };
    let spec = npm_app(&peers, BASIC_APP, &[]);
    let page = harness_with(vec![("basic", spec, None)]).await;
    page.call_from_sidebar("basic", "get-time").await;
    let frame = page
        .browser
        .wait_for("li.app-view iframe.app-frame[src]", WAIT)
        .await
        .unwrap_or_else(|e| panic!("no app frame: {e}"));
    let src = frame.attr("src").await.unwrap().unwrap();
    assert!(
        src.starts_with("http://s"),
        "a sandbox origin of the server's own: {src}"
    );
    assert!(src.contains(".localhost:"), "{src}");
    let page_origin = page.url.split("/?").next().unwrap().to_owned();
    assert!(
        !src.starts_with(&page_origin),
        "never the page's origin: {src}"
    );

    // Into the proxy, then the view.
    frame.enter_frame().await.unwrap();
    let inner = page
        .browser
        .wait_for("iframe", WAIT)
        .await
        .unwrap_or_else(|e| panic!("the proxy wrote no view frame: {e}"));
    inner.enter_frame().await.unwrap();
    let first = page
        .browser
        .wait_js(
            "(() => { const t = document.getElementById('server-time')?.textContent || ''; return /\\d{2}:\\d{2}/.test(t) ? t : null; })()",
            WAIT,
        )
        .await
        .unwrap_or_else(|e| panic!("the view did not show the call's result: {e}"));
    let first = first.as_str().unwrap().to_owned();
    // Its own button: a tools/call back to its server, through the bridge.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    page.client()
        .find(Locator::Css("#get-time-btn"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    page.browser
        .wait_js(
            &format!(
                "(() => {{ const t = document.getElementById('server-time')?.textContent || ''; return t && t !== {} ? t : null; }})()",
                js(&first)
            ),
            WAIT,
        )
        .await
        .unwrap_or_else(|e| panic!("the view's own call did not come back: {e}"));
    // A message for the conversation.
    let text = page
        .client()
        .find(Locator::Css("#message-text"))
        .await
        .unwrap();
    text.clear().await.unwrap();
    text.send_keys("Hello from the app").await.unwrap();
    page.client()
        .find(Locator::Css("#send-message-btn"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    page.client().enter_parent_frame().await.unwrap();
    page.client().enter_parent_frame().await.unwrap();
    let said = page
        .browser
        .wait_js(
            "document.querySelector('li.app-view .app-message')?.textContent ?? null",
            WAIT,
        )
        .await
        .unwrap_or_else(|e| panic!("the app's message was not shown: {e}"));
    assert!(
        said.as_str().unwrap().contains("Hello from the app"),
        "{said}"
    );
    page.artifact("app-basic").await;
    let view = &page.app.host().snapshot().views[0];
    assert_eq!(view.resource_uri, "ui://get-time/mcp-app.html");
    assert!(view.height.is_some(), "the view told its size");

    // `ui/open-link`: the same consent as a server's URL request, tied to the call.
    let frame = page
        .browser
        .wait_for("li.app-view iframe.app-frame", WAIT)
        .await
        .unwrap();
    enter_view(&page, frame).await;
    page.client()
        .find(Locator::Css("#open-link-btn"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    page.client().enter_parent_frame().await.unwrap();
    page.client().enter_parent_frame().await.unwrap();
    let card = page
        .browser
        .wait_for("section.ask", WAIT)
        .await
        .unwrap_or_else(|e| panic!("no consent card for the app's link: {e}"));
    let text = card.text().await.unwrap();
    assert!(text.contains("https://modelcontextprotocol.io/"), "{text}");
    assert!(
        text.contains("The app of \"basic\" asks you to open a link"),
        "{text}"
    );
    card.find(Locator::XPath(".//button[text()='Decline']"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    page.browser
        .wait_gone("section.ask", WAIT)
        .await
        .unwrap_or_else(|e| panic!("the card stayed: {e}"));
    let snapshot = page.app.host().snapshot();
    let asked = snapshot
        .requests
        .iter()
        .find(|r| matches!(r.view.kind, interlude_engine::RequestKind::Url(_)))
        .expect("a URL request for the app's link");
    assert_eq!(
        asked.view.call, snapshot.views[0].call,
        "tied to the view's call"
    );
    assert_eq!(
        asked.status,
        interlude_host::RequestStatus::Replied(interlude_engine::Reply::Answered(
            interlude_engine::Answer::Declined
        ))
    );
    assert_eq!(
        page.client().windows().await.unwrap().len(),
        1,
        "nothing opened"
    );
}

/// A hostile app, served by the server toolkit's `Apps` from a server in this process: one view
/// that tries what a view must never manage, one model-only tool, one app tool.
mod hostile {
    use interlude_server::apps::{AppResource, Apps, Visibility, tool_meta};
    use rmcp::ErrorData;
    use rmcp::model::{
        CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListResourcesResult,
        ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse,
        ServerCapabilities, ServerConfig, Tool,
    };
    use rmcp::service::{RequestContext, RoleServer};

    pub(crate) const VIEW: &str = "ui://hostile/view.html";

    #[derive(Clone)]
    pub(crate) struct Hostile {
        apps: Apps,
    }

    impl Hostile {
        pub(crate) fn new() -> Self {
            let html = include_str!("test_data/hostile_app.html");
            Hostile {
                apps: Apps::new().with(AppResource::new(VIEW, html).unwrap()),
            }
        }
    }

    fn tool(name: &str, meta: rmcp::model::MetaObject) -> Tool {
        let schema = serde_json::json!({"type": "object"})
            .as_object()
            .cloned()
            .unwrap();
        Tool::new(
            name.to_owned(),
            name.to_owned(),
            std::sync::Arc::new(schema),
        )
        .with_meta(meta)
    }

    impl rmcp::ServerHandler for Hostile {
        fn get_info(&self) -> ServerConfig {
            let mut info = ServerConfig::default();
            let mut caps = ServerCapabilities::builder().enable_tools().build();
            Apps::declare(&mut caps);
            info.capabilities = caps;
            info
        }

        async fn list_tools(
            &self,
            _request: Option<PaginatedRequestParams>,
            _context: RequestContext<RoleServer>,
        ) -> Result<ListToolsResult, ErrorData> {
            Ok(ListToolsResult::with_all_items(vec![
                tool("show", tool_meta(VIEW, Visibility::DEFAULT)),
                tool("admin", tool_meta(VIEW, Visibility::MODEL_ONLY)),
                tool("echo", interlude_server::apps::app_only_meta()),
            ]))
        }

        async fn call_tool(
            &self,
            request: CallToolRequestParams,
            _context: RequestContext<RoleServer>,
        ) -> Result<CallToolResponse, ErrorData> {
            let text = format!("{} ran", request.name);
            Ok(CallToolResponse::Complete(CallToolResult::success(vec![
                ContentBlock::text(text),
            ])))
        }

        async fn list_resources(
            &self,
            _request: Option<PaginatedRequestParams>,
            _context: RequestContext<RoleServer>,
        ) -> Result<ListResourcesResult, ErrorData> {
            Ok(ListResourcesResult::with_all_items(self.apps.list()))
        }

        async fn read_resource(
            &self,
            request: ReadResourceRequestParams,
            _context: RequestContext<RoleServer>,
        ) -> Result<ReadResourceResponse, ErrorData> {
            self.apps
                .read(&request.uri)
                .map(Into::into)
                .ok_or_else(|| ErrorData::resource_not_found("no such resource", None))
        }
    }
}

/// Security: a hostile app tries to read the host page, navigate the top window, open a popup,
/// reach an undeclared site (fetch and image), call a model-only tool of its server and a tool
/// of another server. Each attempt is made (the app's own report, and the browser's CSP
/// violations, say so) and each is blocked; its server's app tool still works; the page is
/// untouched.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hostile_app_is_blocked_at_every_attempt() {
    use rmcp::ServiceExt;
    let page = harness().await;
    let (host_end, server_end) = tokio::io::duplex(256 * 1024);
    tokio::spawn(async move {
        if let Ok(running) = hostile::Hostile::new().serve(server_end).await {
            let _ = running.waiting().await;
        }
    });
    page.app
        .host()
        .connect_transport(
            "hostile",
            host_end,
            ProtocolChoice::Pin(ProtocolVersion::V_2025_11_25),
        )
        .await
        .unwrap();
    page.call_from_sidebar("hostile", "show").await;
    let said = page
        .browser
        .wait_js(
            "document.querySelector('li.app-view .app-message')?.textContent ?? null",
            WAIT,
        )
        .await
        .unwrap_or_else(|e| panic!("the hostile app never reported: {e}"));
    let said = said.as_str().unwrap();
    let json = said.split("REPORT ").nth(1).unwrap();
    let report: serde_json::Value = serde_json::from_str(json).unwrap();
    for key in [
        "readTop",
        "readHostViaProxy",
        "navigateTop",
        "navigateHostViaProxy",
        "popup",
        "fetch",
    ] {
        let outcome = report[key].as_str().unwrap_or_default();
        assert!(
            outcome.starts_with("blocked"),
            "{key}: {outcome} ({report})"
        );
    }
    assert_eq!(report["modelOnlyTool"], "refused: -32602", "{report}");
    assert_eq!(report["otherServersTool"], "refused: -32602", "{report}");
    assert_eq!(report["ownAppTool"], "called", "{report}");
    let violations: Vec<&str> = report["cspViolations"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    assert!(
        violations.contains(&"connect-src"),
        "the fetch was tried: {violations:?}"
    );
    assert!(
        violations.contains(&"img-src"),
        "the image was tried: {violations:?}"
    );
    // The page is where it was, whole.
    let url = page.client().current_url().await.unwrap().to_string();
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    assert_eq!(page.client().windows().await.unwrap().len(), 1, "no popup");
    page.artifact("app-hostile").await;
}

/// The demo's own app, served by the server toolkit: `weather_dashboard` shows the forecast in
/// its view; the view's Refresh and its city picker call the app-only `weather_refresh`
/// through the bridge; the sidebar marks the tool as having an app and does not offer
/// `weather_refresh`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demos_weather_dashboard_renders_and_refreshes_itself() {
    let page = harness().await;
    let sidebar = page
        .client()
        .find(Locator::Css("#servers"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(sidebar.contains("weather_dashboard"), "{sidebar}");
    assert!(
        !sidebar.contains("weather_refresh"),
        "app-only tools are not offered: {sidebar}"
    );
    assert!(sidebar.contains("only its app views call"), "{sidebar}");
    page.call_from_sidebar("demo", "weather_dashboard").await;
    let frame = page
        .browser
        .wait_for("li.app-view iframe.app-frame[src]", WAIT)
        .await
        .unwrap_or_else(|e| {
            panic!(
                "no app frame: {e}; views: {:?}",
                page.app.host().snapshot().views
            )
        });
    // It declared a domain: an origin apart from its server's other views.
    let src = frame.attr("src").await.unwrap().unwrap_or_default();
    assert!(
        src.contains("-weather-interlude-example-") && src.contains(".localhost:"),
        "{src}"
    );
    enter_view(&page, frame).await;
    let issue = |text: &str| -> u64 {
        text.split("forecast #")
            .nth(1)
            .and_then(|n| n.trim_end_matches(')').parse().ok())
            .unwrap_or(0)
    };
    let note = page
        .browser
        .wait_js(
            "(() => { const n = document.getElementById('note')?.textContent || ''; return n.includes('forecast #') ? n : null; })()",
            WAIT,
        )
        .await
        .unwrap_or_else(|e| panic!("the dashboard did not render the result: {e}"));
    let first = issue(note.as_str().unwrap());
    assert_eq!(
        page.client()
            .find(Locator::Css("#city"))
            .await
            .unwrap()
            .text()
            .await
            .unwrap(),
        "Lisbon"
    );
    page.client()
        .find(Locator::Css("#refresh"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    page.browser
        .wait_js(
            &format!("(() => {{ const n = document.getElementById('note')?.textContent || ''; const m = /forecast #(\\d+)/.exec(n); return m && Number(m[1]) > {first} ? n : null; }})()"),
            WAIT,
        )
        .await
        .unwrap_or_else(|e| panic!("the view's refresh did not come back: {e}"));
    page.client()
        .execute(
            "const s = document.getElementById('pick'); s.value = 'Tokyo'; s.dispatchEvent(new Event('change')); return true;",
            vec![],
        )
        .await
        .unwrap();
    page.browser
        .wait_js(
            "document.getElementById('city')?.textContent === 'Tokyo' || null",
            WAIT,
        )
        .await
        .unwrap_or_else(|e| panic!("the city did not change: {e}"));
    // Fullscreen at the view's request; back inline from the host's own control, and the view
    // hears it.
    page.client()
        .find(Locator::Css("#fullscreen"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    page.browser
        .wait_js(
            "document.documentElement.dataset.mode === 'fullscreen' || null",
            WAIT,
        )
        .await
        .unwrap_or_else(|e| panic!("the view did not go fullscreen: {e}"));
    page.client().enter_parent_frame().await.unwrap();
    page.client().enter_parent_frame().await.unwrap();
    let back = page
        .browser
        .wait_for(
            "li.app-view[data-mode=\"fullscreen\"] button.app-inline",
            WAIT,
        )
        .await
        .unwrap_or_else(|e| panic!("the page did not show the view fullscreen: {e}"));
    back.click().await.unwrap();
    page.browser
        .wait_for("li.app-view[data-mode=\"inline\"]", WAIT)
        .await
        .unwrap_or_else(|e| panic!("the view did not come back inline: {e}"));
    let frame = page
        .browser
        .wait_for("li.app-view iframe.app-frame", WAIT)
        .await
        .unwrap();
    enter_view(&page, frame).await;
    page.browser
        .wait_js(
            "document.documentElement.dataset.mode === 'inline' || null",
            WAIT,
        )
        .await
        .unwrap_or_else(|e| panic!("the view did not hear it is inline again: {e}"));
    // `ui/download-file`: the host asks the person, the page saves; refused, nothing is saved.
    for (button, note) in [
        (".app-save", "Saved forecast-Tokyo.csv"),
        (".app-nosave", "Not saved"),
    ] {
        page.client()
            .find(Locator::Css("#download"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        page.client().enter_parent_frame().await.unwrap();
        page.client().enter_parent_frame().await.unwrap();
        let offer = page
            .browser
            .wait_for("li.app-view .app-download", WAIT)
            .await
            .unwrap_or_else(|e| panic!("no offer to save: {e}"));
        let text = offer.text().await.unwrap();
        assert!(text.contains("forecast-Tokyo.csv (text/csv"), "{text}");
        offer
            .find(Locator::Css(button))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        page.browser
            .wait_gone("li.app-view .app-download", WAIT)
            .await
            .unwrap();
        let frame = page
            .browser
            .wait_for("li.app-view iframe.app-frame", WAIT)
            .await
            .unwrap();
        enter_view(&page, frame).await;
        page.browser
            .wait_js(
                &format!(
                    "(document.getElementById('note')?.textContent || '').startsWith({}) || null",
                    js(note)
                ),
                WAIT,
            )
            .await
            .unwrap_or_else(|e| panic!("the view did not hear {note}: {e}"));
    }
    page.client().enter_parent_frame().await.unwrap();
    page.client().enter_parent_frame().await.unwrap();
    page.client()
        .execute(
            "document.querySelector('li.app-view').scrollIntoView({block: 'center'}); return true;",
            vec![],
        )
        .await
        .unwrap();
    page.artifact("app-weather").await;
}

/// The demo's weather view asks for ten years of today (`weather_history`, slow, with progress)
/// in Chromium: the server's progress reaches the view through the page (its bar and words move
/// year by year); Stop cancels the call — the server is told `notifications/cancelled` for the
/// forwarded request and stops reporting, the view hears nothing more; asked again and left
/// alone, the call runs to its answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_weather_views_slow_call_shows_progress_and_stops() {
    let page = harness().await;
    page.call_from_sidebar("demo", "weather_dashboard").await;
    let frame = page
        .browser
        .wait_for("li.app-view iframe.app-frame[src]", WAIT)
        .await
        .unwrap_or_else(|e| panic!("no app frame: {e}"));
    enter_view(&page, frame).await;
    page.browser
        .wait_js(
            "(document.getElementById('note')?.textContent || '').includes('forecast #') || null",
            WAIT,
        )
        .await
        .unwrap_or_else(|e| panic!("the dashboard did not render: {e}"));
    let click = async |id: &str| {
        page.client()
            .find(Locator::Id(id))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
    };
    click("history-start").await;
    let status = page
        .browser
        .wait_js(
            "(() => { const b = document.getElementById('history-bar'); const t = document.getElementById('history-text').textContent; return b && !b.hidden && b.value >= 2 ? [b.value, b.max, t] : null; })()",
            WAIT,
        )
        .await
        .unwrap_or_else(|e| panic!("no progress reached the view: {e}"));
    assert_eq!(status[1], 10, "{status}");
    assert!(
        status[2].as_str().is_some_and(|t| t.contains("of 10")),
        "the server's own words: {status}"
    );
    page.artifact("app-weather-history-progress").await;
    click("history-stop").await;
    page.browser
        .wait_js(
            "document.getElementById('history-text').textContent === 'Stopped.' || null",
            WAIT,
        )
        .await
        .unwrap();
    page.client().enter_parent_frame().await.unwrap();
    page.client().enter_parent_frame().await.unwrap();
    let server = page
        .app
        .host()
        .snapshot()
        .servers
        .iter()
        .find(|s| s.name == "demo")
        .unwrap()
        .id;
    let sent = |log: &[std::sync::Arc<interlude_host::LoggedMessage>], method: &str| {
        log.iter()
            .filter(|m| m.view.is_none() && m.dir == interlude_host::Direction::Send)
            .filter(|m| m.method() == Some(method))
            .map(|m| m.message.clone())
            .collect::<Vec<_>>()
    };
    let deadline = std::time::Instant::now() + WAIT;
    let (call, cancel) = loop {
        let log = page.app.host().protocol_log(server);
        let call = sent(&log, "tools/call")
            .into_iter()
            .find(|m| m["params"]["name"] == "weather_history");
        let cancel = sent(&log, "notifications/cancelled").into_iter().next();
        if let (Some(call), Some(cancel)) = (&call, &cancel) {
            break (call.clone(), cancel.clone());
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the server was never told: {call:?} {cancel:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(
        cancel["params"],
        json!({"requestId": call["id"], "reason": "the person pressed Stop"})
    );
    // The server stops: no progress for that request a second after (it reports every 300 ms).
    let token = call["params"]["_meta"]["progressToken"].clone();
    let reported = |log: &[std::sync::Arc<interlude_host::LoggedMessage>]| {
        log.iter()
            .filter(|m| m.dir == interlude_host::Direction::Recv)
            .filter(|m| m.method() == Some("notifications/progress"))
            .filter(|m| m.message["params"]["progressToken"] == token)
            .count()
    };
    let at_cancel = reported(&page.app.host().protocol_log(server));
    tokio::time::sleep(Duration::from_millis(1_000)).await;
    assert!(
        reported(&page.app.host().protocol_log(server)) <= at_cancel + 1,
        "the server went on reporting after the cancel"
    );
    page.artifact("app-weather-history-stopped").await;

    // Again, to the end.
    let frame = page
        .browser
        .wait_for("li.app-view iframe.app-frame[src]", WAIT)
        .await
        .unwrap();
    enter_view(&page, frame).await;
    click("history-start").await;
    let done = page
        .browser
        .wait_js(
            "(() => { const t = document.getElementById('history-text').textContent; return t.includes('averaged') ? t : null; })()",
            WAIT,
        )
        .await
        .unwrap_or_else(|e| panic!("the history never came: {e}"));
    assert!(done.as_str().unwrap().contains("over 10 years"), "{done}");
    assert_eq!(
        page.browser
            .js("document.getElementById('history-bar').hidden")
            .await
            .unwrap(),
        true
    );
}

/// A one-page PDF, written by hand (server-pdf is given a local file: no network here).
fn tiny_pdf() -> Vec<u8> {
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 144] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
        "<< /Length 44 >>\nstream\nBT /F1 24 Tf 40 70 Td (Interlude) Tj ET\nendstream",
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ];
    let mut pdf = String::from("%PDF-1.4\n");
    let mut offsets = Vec::new();
    for (i, body) in objects.iter().enumerate() {
        offsets.push(pdf.len());
        pdf.push_str(&format!("{} 0 obj\n{body}\nendobj\n", i + 1));
    }
    let xref = pdf.len();
    pdf.push_str(&format!(
        "xref\n0 {}\n0000000000 65535 f \n",
        objects.len() + 1
    ));
    for offset in offsets {
        pdf.push_str(&format!("{offset:010} 00000 n \n"));
    }
    pdf.push_str(&format!(
        "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
        objects.len() + 1
    ));
    pdf.into_bytes()
}

/// The published example apps (npm, pinned, over stdio) each open beside their call and finish
/// the App SDK's handshake in Chromium: budget-allocator (chart.js), debug, system-monitor
/// (which polls an app-only tool), three.js (WebGL, code run with `new Function`: the host's
/// CSP profile allows eval) and pdf (pdf.js and its worker, a local file). Screenshots of each
/// are artifacts.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_published_example_apps_open_and_initialize() {
    let apps: [(&str, &str, &str); 5] = [
        (
            "budget",
            "@modelcontextprotocol/server-budget-allocator/dist/index.js",
            "get-budget-data",
        ),
        (
            "debug",
            "@modelcontextprotocol/server-debug/dist/index.js",
            "debug-tool",
        ),
        (
            "monitor",
            "@modelcontextprotocol/server-system-monitor/dist/index.js",
            "get-system-info",
        ),
        (
            "threejs",
            "@modelcontextprotocol/server-threejs/dist/index.js",
            "show_threejs_scene",
        ),
        (
            "pdf",
            "@modelcontextprotocol/server-pdf/dist/index.js",
            "display_pdf",
        ),
    ];
    let files: Vec<&str> = apps.iter().map(|(_, f, _)| *f).collect();
    let Some(peers) = interlude_test_support::NpmPeers::locate(&files) else {
        return;
    };
    let pdf = std::env::temp_dir().join(format!("interlude-apps-{}.pdf", std::process::id()));
    std::fs::write(&pdf, tiny_pdf()).unwrap();
    let extra: Vec<Extra> = apps
        .iter()
        .map(|(name, file, _)| {
            let extra = if *name == "pdf" {
                vec![pdf.to_string_lossy().into_owned()]
            } else {
                Vec::new()
            };
            (*name, npm_app(&peers, file, &extra), None)
        })
        .collect();
    let page = harness_with(extra).await;
    let mut failures = Vec::new();
    for (name, _, tool) in apps {
        // server-pdf: the local file it was given (its default is a paper on the network).
        let mut arguments = (name == "pdf").then(|| {
            let url = format!("file://{}", pdf.display());
            serde_json::json!({ "url": url })
                .as_object()
                .cloned()
                .unwrap()
        });
        // three.js: the scene's code is the tool's input (its schema's default, as the page's
        // composer fills it in): the view runs what the call was given.
        if name == "threejs" {
            let snapshot = page.app.host().snapshot();
            let server = snapshot.servers.iter().find(|s| s.name == name).unwrap();
            let tool = server.tools.iter().find(|t| t.name == tool).unwrap();
            let code = tool.input_schema["properties"]["code"]["default"].clone();
            assert!(code.is_string(), "{:?}", tool.input_schema);
            arguments = serde_json::json!({ "code": code }).as_object().cloned();
        }
        let call = page.app.call_tool(name, tool, arguments).await.unwrap();
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        let live = loop {
            let snapshot = page.app.host().snapshot();
            let view = snapshot
                .views
                .iter()
                .find(|v| v.call.map(|c| c.0) == Some(call))
                .cloned();
            match view {
                Some(v) if v.live_at_ms.is_some() => break Ok(v),
                Some(v) if matches!(v.state, interlude_host::ViewState::Failed { .. }) => {
                    break Err(format!("{name}: {:?}", v.state));
                }
                other if std::time::Instant::now() > deadline => {
                    break Err(format!("{name}: never initialized ({other:?})"));
                }
                _ => tokio::time::sleep(Duration::from_millis(50)).await,
            }
        };
        match live {
            Ok(view) => {
                if name == "budget" {
                    // The view registers tools of its own: the host lists them, and the person
                    // (in a model's place) calls one from the page. Found and clicked in one
                    // step: the view's notes are redrawn as it reports its size and logs.
                    let selector = format!(
                        "li.app-view[data-view=\"{}\"] button.app-tool[data-tool=\"get-allocations\"]",
                        view.id.0
                    );
                    page.browser
                        .wait_js(
                            &format!("(() => {{ const b = document.querySelector({}); if (!b) return null; b.scrollIntoView({{block: 'center'}}); b.click(); return true; }})()", js(&selector)),
                            WAIT,
                        )
                        .await
                        .unwrap_or_else(|e| panic!("the budget view's tools were not listed: {e}"));
                    let answered = page
                        .browser
                        .wait_js(
                            &format!("document.querySelector('li.app-view[data-view=\"{}\"] .app-tool-result')?.textContent ?? null", view.id.0),
                            WAIT,
                        )
                        .await
                        .unwrap_or_else(|e| panic!("the view's tool did not answer: {e}"));
                    let answered = answered.as_str().unwrap();
                    assert!(answered.starts_with("get-allocations → "), "{answered}");
                    assert!(!answered.contains("error"), "{answered}");
                }
                if name == "threejs" {
                    // The scene really ran (WebGL on SwiftShader): the view's own tool reports
                    // its source, no error, and a render loop going.
                    let selector = format!(
                        "li.app-view[data-view=\"{}\"] button.app-tool[data-tool=\"get-scene-info\"]",
                        view.id.0
                    );
                    let info = page
                        .browser
                        .wait_js(
                            &format!(
                                "(() => {{ const b = document.querySelector({}); const r = document.querySelector('li.app-view[data-view=\"{}\"] .app-tool-result')?.textContent; \
                                 if (r && r.includes('isRendering\":true')) return r; if (b) b.click(); return null; }})()",
                                js(&selector),
                                view.id.0
                            ),
                            WAIT,
                        )
                        .await
                        .unwrap_or_else(|e| panic!("the three.js scene did not report rendering: {e}"));
                    let info = info.as_str().unwrap();
                    let json: Value =
                        serde_json::from_str(info.split_once(" → ").map_or(info, |(_, j)| j))
                            .unwrap_or_else(|e| panic!("{e}: {info}"));
                    assert_eq!(json["error"], Value::Null, "{info}");
                    assert!(
                        json["code"].as_str().is_some_and(|c| c.contains("THREE")),
                        "{info}"
                    );
                    assert_eq!(json["isRendering"], true, "{info}");
                }
                // Into sight first: Chromium runs no animation frames in a cross-origin frame
                // out of sight, so a view framed below the fold has not measured itself (its
                // frame keeps the default 150 px) nor drawn (three.js renders in animation
                // frames) until it is scrolled to. Then wait for its size to reach its frame.
                page.client()
                    .execute(
                        &format!(
                            "document.querySelector('li.app-view[data-view=\"{}\"]').scrollIntoView({{block: 'start'}}); return true;",
                            view.id.0
                        ),
                        vec![],
                    )
                    .await
                    .unwrap();
                let deadline = std::time::Instant::now() + WAIT;
                let height = loop {
                    let height = page
                        .app
                        .host()
                        .snapshot()
                        .views
                        .iter()
                        .find(|v| v.id == view.id)
                        .and_then(|v| v.height);
                    if height.is_some() || std::time::Instant::now() > deadline {
                        break height;
                    }
                    tokio::time::sleep(Duration::from_millis(50)).await;
                };
                let sized = match height {
                    None => Err("the view never said its size".to_owned()),
                    Some(h) => page
                        .browser
                        .wait_js(
                            &format!(
                                "Math.round(document.querySelector('li.app-view[data-view=\"{}\"] iframe.app-frame')?.getBoundingClientRect().height) === {} || null",
                                view.id.0,
                                h.max(80)
                            ),
                            WAIT,
                        )
                        .await
                        .map_err(|e| e.to_string()),
                };
                if let Err(e) = sized {
                    failures.push(format!("{name}: its frame never took the view's size: {e}"));
                }
                if name == "threejs" {
                    // What the person sees: the scene's pixels (see the_threejs_scene_draws_pixels).
                    let frame = page
                        .client()
                        .find(Locator::Css(&format!(
                            "li.app-view[data-view=\"{}\"] iframe.app-frame",
                            view.id.0
                        )))
                        .await
                        .unwrap();
                    enter_view(&page, frame).await;
                    let pixels = scene_pixels(&page).await;
                    page.client().enter_parent_frame().await.unwrap();
                    page.client().enter_parent_frame().await.unwrap();
                    if pixels["green"].as_u64().unwrap_or(0) <= 50 {
                        failures.push(format!("threejs: the canvas shows no cube: {pixels}"));
                    }
                }
                page.artifact(&format!("app-{name}")).await;
            }
            Err(e) => failures.push(e),
        }
    }
    let _ = std::fs::remove_file(&pdf);
    assert!(failures.is_empty(), "{failures:#?}");
}

/// What the three.js view's canvas shows in the frame after the next one drawn: its size, and
/// how many of a grid of its pixels are opaque and how many distinct colours they have. Read
/// inside the view, in an animation frame after the scene's own (the WebGL buffer is only
/// readable before the frame is composited: the scene does not preserve it).
const CANVAS_PIXELS_JS: &str = r#"
const done = arguments[arguments.length - 1];
const canvas = document.querySelector('canvas');
if (!canvas) { done({ canvas: false }); return; }
requestAnimationFrame(() => requestAnimationFrame(() => {
  const w = canvas.width, h = canvas.height;
  const probe = document.createElement('canvas');
  probe.width = w; probe.height = h;
  const ctx = probe.getContext('2d');
  let error = null, opaque = 0, colours = new Set(), green = 0;
  try {
    ctx.drawImage(canvas, 0, 0);
    const data = ctx.getImageData(0, 0, w, h).data;
    for (let y = 0; y < h; y += 4) for (let x = 0; x < w; x += 4) {
      const i = (y * w + x) * 4;
      if (data[i + 3] > 0) {
        opaque++;
        colours.add(`${data[i]},${data[i + 1]},${data[i + 2]},${data[i + 3]}`);
        if (data[i + 1] > data[i] + 40 && data[i + 1] > data[i + 2]) green++;
      }
    }
  } catch (e) { error = String(e); }
  const r = canvas.getBoundingClientRect();
  done({ canvas: true, width: w, height: h, shownWidth: r.width, shownHeight: r.height,
         opaque, colours: colours.size, green, error });
}));
"#;

/// [`CANVAS_PIXELS_JS`] in the three.js view the session is in, until the canvas shows the
/// cube or the wait is over.
async fn scene_pixels(page: &Page) -> Value {
    let deadline = std::time::Instant::now() + WAIT;
    loop {
        let pixels = page
            .client()
            .execute_async(CANVAS_PIXELS_JS, vec![])
            .await
            .unwrap();
        if pixels["green"].as_u64().unwrap_or(0) > 50 || std::time::Instant::now() > deadline {
            return pixels;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The published three.js example draws its scene (a lit, rotating cube) with WebGL on
/// SwiftShader: the canvas is as large as the view shows it, and its pixels are not blank — a
/// green cube, shaded in many colours, over a transparent background. A crop of the page's
/// screenshot is an artifact.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_threejs_scene_draws_pixels() {
    const THREEJS: &str = "@modelcontextprotocol/server-threejs/dist/index.js";
    let Some(peers) = interlude_test_support::NpmPeers::locate(&[THREEJS]) else {
        return;
    };
    let page = harness_with(vec![("threejs", npm_app(&peers, THREEJS, &[]), None)]).await;
    let snapshot = page.app.host().snapshot();
    let server = snapshot
        .servers
        .iter()
        .find(|s| s.name == "threejs")
        .unwrap();
    let tool = server
        .tools
        .iter()
        .find(|t| t.name == "show_threejs_scene")
        .unwrap();
    let code = tool.input_schema["properties"]["code"]["default"].clone();
    assert!(code.is_string(), "{:?}", tool.input_schema);
    let call = page
        .app
        .call_tool(
            "threejs",
            "show_threejs_scene",
            json!({ "code": code }).as_object().cloned(),
        )
        .await
        .unwrap();
    let deadline = std::time::Instant::now() + 2 * WAIT;
    let view = loop {
        let found = page
            .app
            .host()
            .snapshot()
            .views
            .iter()
            .find(|v| v.call.map(|c| c.0) == Some(call) && v.live_at_ms.is_some())
            .map(|v| v.id.0);
        if let Some(view) = found {
            break view;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the view never went live"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let item = format!("li.app-view[data-view=\"{view}\"]");
    page.client()
        .execute(
            &format!(
                "document.querySelector({}).scrollIntoView({{block: 'start'}}); return true;",
                js(&item)
            ),
            vec![],
        )
        .await
        .unwrap();
    let frame = page
        .browser
        .wait_for(&format!("{item} iframe.app-frame[src]"), WAIT)
        .await
        .unwrap();
    enter_view(&page, frame.clone()).await;
    let pixels = scene_pixels(&page).await;
    eprintln!("three.js canvas: {pixels}");
    page.client().enter_parent_frame().await.unwrap();
    page.client().enter_parent_frame().await.unwrap();
    let _ = page
        .browser
        .screenshot_element(&frame, "browser-app-threejs-canvas")
        .await;
    page.artifact("app-threejs-scene").await;
    assert_eq!(pixels["error"], Value::Null, "{pixels}");
    assert!(
        pixels["width"].as_u64().unwrap_or(0) >= 200
            && pixels["height"].as_u64().unwrap_or(0) >= 200,
        "the canvas has a size: {pixels}"
    );
    assert!(
        pixels["opaque"].as_u64().unwrap_or(0) > 100,
        "the scene drew something: {pixels}"
    );
    assert!(
        pixels["colours"].as_u64().unwrap_or(0) >= 3,
        "a lit cube (three faces at least), not one flat colour: {pixels}"
    );
    assert!(
        pixels["green"].as_u64().unwrap_or(0) > 50,
        "the cube is green: {pixels}"
    );
}

/// An app written for ChatGPT's Apps SDK (`text/html+skybridge`, `openai/outputTemplate`,
/// `openai/widgetAccessible`), the demo's counter: the sandbox gives it `window.openai` on top
/// of MCP Apps; it shows the tool's output and calls the tool again through the same bridge.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_apps_sdk_widget_renders_through_window_openai() {
    let page = harness().await;
    page.call_from_sidebar("demo", "apps_sdk_counter").await;
    let frame = page
        .browser
        .wait_for("li.app-view iframe.app-frame[src]", WAIT)
        .await
        .unwrap_or_else(|e| panic!("no app frame: {e}"));
    enter_view(&page, frame).await;
    page.browser
        .wait_js(
            "document.getElementById('count')?.textContent === '1' || null",
            WAIT,
        )
        .await
        .unwrap_or_else(|e| panic!("the widget did not show the tool's output: {e}"));
    let api = page
        .client()
        .execute(
            "return [typeof window.openai.callTool, typeof window.openai.notifyIntrinsicHeight, window.openai.displayMode];",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(api, json!(["function", "function", "inline"]));
    page.client()
        .find(Locator::Css("#more"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    page.browser
        .wait_js(
            "document.getElementById('count')?.textContent === '2' || null",
            WAIT,
        )
        .await
        .unwrap_or_else(|e| panic!("callTool did not come back: {e}"));
    page.client().enter_parent_frame().await.unwrap();
    page.client().enter_parent_frame().await.unwrap();
    let view = page.app.host().snapshot().views[0].clone();
    assert_eq!(view.dialect, interlude_protocol::apps::UiDialect::Skybridge);
    assert!(view.live_at_ms.is_some());
}

const DEBUG_APP: &str = "@modelcontextprotocol/server-debug/dist/index.js";

/// What server-debug's view reported to its server: the view sends each callback it gets and
/// each answer to its own requests through the host's bridge to the app-only tool `debug-log`,
/// which appends `{timestamp, type, payload}` to the file given with `--log-file=` — a record
/// the page and the host do not write.
fn debug_log(path: &std::path::Path) -> Vec<(String, Value)> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .map(|e| {
            (
                e["type"].as_str().unwrap_or("").to_owned(),
                e["payload"].clone(),
            )
        })
        .collect()
}

/// Waits until the view reported an event of `kind` after the first `from` entries whose
/// payload `pick` accepts, and returns it.
async fn debug_event(
    path: &std::path::Path,
    from: usize,
    kind: &str,
    pick: impl Fn(&Value) -> bool,
) -> Value {
    let deadline = std::time::Instant::now() + WAIT;
    loop {
        let log = debug_log(path);
        if let Some((_, payload)) = log.iter().skip(from).find(|(k, p)| k == kind && pick(p)) {
            return payload.clone();
        }
        assert!(
            std::time::Instant::now() < deadline,
            "server-debug's view never reported {kind}; it reported: {:#?}",
            log.iter().skip(from).collect::<Vec<_>>()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Clicks the element `css` of the view the WebDriver session is in.
async fn click_in_view(page: &Page, css: &str) {
    page.client()
        .find(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("no {css} in the view: {e}"))
        .click()
        .await
        .unwrap_or_else(|e| panic!("cannot click {css}: {e}"));
}

/// The published server-debug (its view registers every App SDK callback and has a button for
/// every request a view can make) proves each of them through the host and the page:
/// - host → view: `tool-input` exactly once with the person's arguments and no
///   `tool-input-partial` (a person's call has its arguments whole), `tool-result` with its
///   `_meta`, `host-context-changed` for the page's theme, its width and the display mode,
///   `tools/list` and `tools/call` of the view's own tools, `ui/resource-teardown` (answered,
///   and the view may still call its server meanwhile), and `tool-cancelled` for a call the
///   person cancels — while a tool's error (`isError`) is a `tool-result`, not a cancel;
/// - view → host, each with its answer: `ui/message`, `notifications/message`,
///   `ui/update-model-context` (text and structured), `ui/request-display-mode` (fullscreen,
///   then inline), `ui/notifications/size-changed` (the frame takes the height),
///   `ui/open-link` (the person declines: a JSON-RPC error), and `tools/call` of the server's
///   tools, app-only ones included.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_debug_hears_every_callback_and_gets_every_answer() {
    let Some(peers) = interlude_test_support::NpmPeers::locate(&[DEBUG_APP]) else {
        return;
    };
    let file = std::env::temp_dir().join(format!("interlude-debug-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&file);
    let spec = npm_app(
        &peers,
        DEBUG_APP,
        &[format!("--log-file={}", file.display())],
    );
    // The view reports every event with a tool call of its own: more than the host's default
    // rate limit for a view's calls lets through in a burst.
    let mut options = WebOptions::default();
    options.host.apps.call_burst = 200;
    options.host.apps.calls_per_minute = 6_000;
    let page = harness_configured(options, vec![("debug", spec, None)]).await;
    let app = &page.app;
    let view_of = async |call: u64| -> u64 {
        // Generous: the page, the proxy and the view all load under whatever else CI runs.
        let deadline = std::time::Instant::now() + 2 * WAIT;
        loop {
            let found = app
                .host()
                .snapshot()
                .views
                .iter()
                .find(|v| v.call.map(|c| c.0) == Some(call) && v.live_at_ms.is_some())
                .map(|v| v.id.0);
            if let Some(id) = found {
                return id;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "call {call}'s view never went live"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    let record = |view: u64| {
        app.host()
            .snapshot()
            .views
            .iter()
            .find(|v| v.id.0 == view)
            .cloned()
            .unwrap()
    };
    let args = |v: serde_json::Value| v.as_object().cloned();
    let enter = async |view: u64| {
        let frame = page
            .browser
            .wait_for(
                &format!("li.app-view[data-view=\"{view}\"] iframe.app-frame[src]"),
                WAIT,
            )
            .await
            .unwrap_or_else(|e| panic!("no frame for view {view}: {e}"));
        enter_view(&page, frame).await;
    };
    let leave = async || {
        page.client().enter_parent_frame().await.unwrap();
        page.client().enter_parent_frame().await.unwrap();
    };

    // The person's call, with arguments of their own.
    let sent = json!({"contentType": "text", "multipleBlocks": false, "includeMeta": true});
    let call = app
        .call_tool("debug", "debug-tool", args(sent.clone()))
        .await
        .unwrap();
    let view = view_of(call).await;
    let result = debug_event(&file, 0, "ontoolresult", |_| true).await;
    assert_eq!(
        result["content"][0]["text"], "Debug text content",
        "{result}"
    );
    assert_eq!(
        result["_meta"]["debugInfo"]["serverVersion"], "1.0.0",
        "the result's _meta reaches the view: {result}"
    );
    debug_event(&file, 0, "onlisttools", |_| true).await;
    let log = debug_log(&file);
    let kinds: Vec<&str> = log.iter().map(|(k, _)| k.as_str()).collect();
    let inputs: Vec<&Value> = log
        .iter()
        .filter(|(k, _)| k == "ontoolinput")
        .map(|(_, p)| p)
        .collect();
    assert_eq!(
        inputs,
        [&json!({ "arguments": sent })],
        "tool-input exactly once, the person's arguments: {kinds:?}"
    );
    assert!(
        !kinds.contains(&"ontoolinputpartial"),
        "a person's call streams no partial input: {kinds:?}"
    );
    let position = |k: &str| kinds.iter().position(|x| *x == k).unwrap();
    assert!(
        position("connected") < position("ontoolinput")
            && position("ontoolinput") < position("ontoolresult"),
        "{kinds:?}"
    );

    // host-context-changed: the page's theme (switched until it differs from what the view
    // knows), then its width.
    let mark = debug_log(&file).len();
    let mut themed = None;
    for _ in 0..3 {
        page.client()
            .find(Locator::Id("theme"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        // A theme the view already has changes nothing for it: then the next one.
        let heard = std::time::Instant::now() + Duration::from_secs(3);
        while themed.is_none() && std::time::Instant::now() < heard {
            tokio::time::sleep(Duration::from_millis(50)).await;
            themed = debug_log(&file)
                .into_iter()
                .skip(mark)
                .find(|(k, p)| k == "onhostcontextchanged" && p["theme"].is_string());
        }
        if themed.is_some() {
            break;
        }
    }
    let (_, themed) = themed.expect("the view never heard the page's theme");
    assert!(
        matches!(themed["theme"].as_str(), Some("light" | "dark")),
        "{themed}"
    );
    let mark = debug_log(&file).len();
    // Narrower than the 1280 px the browser starts with: the view's container narrows.
    page.client().set_window_size(1000, 900).await.unwrap();
    debug_event(&file, mark, "onhostcontextchanged", |p| {
        p["containerDimensions"]["width"].is_number()
    })
    .await;

    // The view's requests, each from its own button, each answered.
    enter(view).await;
    let mark = debug_log(&file).len();
    click_in_view(&page, "#send-message-text-btn").await;
    assert_eq!(
        debug_event(&file, mark, "send-message-result", |_| true).await,
        json!({})
    );
    click_in_view(&page, "#log-info-btn").await;
    click_in_view(&page, "#update-context-text-btn").await;
    debug_event(&file, mark, "update-context", |p| p["type"] == "text").await;
    click_in_view(&page, "#update-context-structured-btn").await;
    debug_event(&file, mark, "update-context", |p| p["type"] == "structured").await;
    click_in_view(&page, "#call-debug-refresh-btn").await;
    let refreshed = debug_event(&file, mark, "server-tool-result", |p| {
        p["structuredContent"]["counter"].is_number()
    })
    .await;
    assert!(
        refreshed["content"][0]["text"]
            .as_str()
            .is_some_and(|t| t.starts_with("Server timestamp:"))
    );
    click_in_view(&page, "#call-debug-tool-btn").await;
    debug_event(&file, mark, "server-tool-result", |p| {
        p["structuredContent"]["config"]["contentType"] == "text"
    })
    .await;
    click_in_view(&page, "#display-fullscreen-btn").await;
    assert_eq!(
        debug_event(&file, mark, "display-mode-result", |p| p["mode"]
            == "fullscreen")
        .await["result"],
        json!({"mode": "fullscreen"})
    );
    debug_event(&file, mark, "onhostcontextchanged", |p| {
        p["displayMode"] == "fullscreen"
    })
    .await;
    click_in_view(&page, "#display-inline-btn").await;
    assert_eq!(
        debug_event(&file, mark, "display-mode-result", |p| p["mode"]
            == "inline")
        .await["result"],
        json!({"mode": "inline"})
    );
    // Its own size: automatic sizing off, then 400×300 by hand.
    click_in_view(&page, "#auto-resize-toggle").await;
    click_in_view(&page, "#resize-400x300-btn").await;
    debug_event(&file, mark, "manual-resize", |p| p["height"] == 300).await;
    // A link: the person is asked on the page, and declines.
    click_in_view(&page, "#open-link-btn").await;
    leave().await;
    let decline = page
        .browser
        .wait_for("section.link-ask .actions button:nth-of-type(2)", WAIT)
        .await
        .unwrap_or_else(|e| panic!("the page never asked about the view's link: {e}"));
    assert_eq!(decline.text().await.unwrap(), "Decline");
    decline.click().await.unwrap();
    // The view's promise rejected (it logs the error, which JSON shows as `{}`), with the
    // host's answer: a JSON-RPC error saying the person declined.
    debug_event(&file, mark, "error", |_| true).await;
    let protocol = app.host().protocol_log(record(view).server);
    let asked = protocol
        .iter()
        .find(|m| m.view.map(|v| v.0) == Some(view) && m.method() == Some("ui/open-link"))
        .expect("the view's ui/open-link is in the protocol log");
    let answered = protocol
        .iter()
        .find(|m| {
            m.view.map(|v| v.0) == Some(view)
                && m.dir == interlude_host::Direction::Send
                && m.message["id"] == asked.message["id"]
        })
        .expect("the view's link was answered");
    assert_eq!(
        answered.message["error"]["code"], -32000,
        "{}",
        answered.message
    );
    page.browser
        .wait_js(
            &format!(
                "document.querySelector('li.app-view[data-view=\"{view}\"] iframe.app-frame')?.getBoundingClientRect().height === 300 || null"
            ),
            WAIT,
        )
        .await
        .unwrap_or_else(|e| panic!("the frame did not take the view's height: {e}"));
    let v = record(view);
    assert_eq!(v.height, Some(300));
    assert_eq!(v.display_mode, "inline");
    assert_eq!(
        v.messages,
        [json!([{"type": "text", "text": "Hello from debug app!"}])]
    );
    assert!(
        v.logs
            .iter()
            .any(|(level, data)| level == "info" && data == "Debug log data"),
        "{:?}",
        v.logs
    );
    assert!(
        v.model_context
            .as_ref()
            .is_some_and(|c| c["structuredContent"]["debugState"].is_object()),
        "the last update wins: {:?}",
        v.model_context
    );

    // The view's own tools: the host called tools/list when it went live; now one of them.
    app.host().call_view_tool(
        interlude_host::ViewId(view),
        "probe",
        args(json!({"x": 1})).unwrap(),
    );
    let called = debug_event(&file, mark, "oncalltool", |_| true).await;
    assert_eq!(called["name"], "probe", "{called}");
    let deadline = std::time::Instant::now() + WAIT;
    while record(view).app_tool_results.is_empty() {
        assert!(
            std::time::Instant::now() < deadline,
            "the view's tool never answered"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let (name, answer) = record(view).app_tool_results[0].clone();
    assert_eq!(name, "probe");
    assert_eq!(
        answer.unwrap()["content"][0]["text"],
        "App handled tool call"
    );
    page.artifact("app-debug-every-callback").await;

    // Teardown: the page's Close. The view answers, and may still report to its server.
    page.client()
        .find(Locator::Css(&format!(
            "li.app-view[data-view=\"{view}\"] button.app-close"
        )))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let deadline = std::time::Instant::now() + WAIT;
    while record(view).state != interlude_host::ViewState::Closed {
        assert!(
            std::time::Instant::now() < deadline,
            "the view was never closed"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let server = record(view).server;
    let protocol = app.host().protocol_log(server);
    let teardown = protocol
        .iter()
        .find(|m| m.view.map(|v| v.0) == Some(view) && m.method() == Some("ui/resource-teardown"))
        .expect("the host sent ui/resource-teardown");
    assert!(
        protocol.iter().any(|m| m.view.map(|v| v.0) == Some(view)
            && m.dir == interlude_host::Direction::Recv
            && m.message["id"] == teardown.message["id"]
            && m.message["result"] == json!({})),
        "the view answered its teardown (its onteardown ran)"
    );
    assert!(
        protocol.iter().any(|m| m.view.is_none()
            && m.dir == interlude_host::Direction::Send
            && m.method() == Some("tools/call")
            && m.message["params"]["arguments"]["type"] == "onteardown"),
        "the view's report of its teardown went on to its server: {:#?}",
        protocol
            .iter()
            .filter(|m| m.view.map(|v| v.0) == Some(view) && m.seq >= teardown.seq)
            .map(|m| &m.message)
            .collect::<Vec<_>>()
    );

    // A call the person cancels (a slow one): tool-cancelled, and no result.
    let mark = debug_log(&file).len();
    let slow = app
        .call_tool("debug", "debug-tool", args(json!({"delayMs": 20000})))
        .await
        .unwrap();
    view_of(slow).await;
    debug_event(&file, mark, "ontoolinput", |_| true).await;
    assert!(app.host().cancel_call(interlude_host::CallId(slow)));
    let cancelled = debug_event(&file, mark, "ontoolcancelled", |_| true).await;
    assert!(cancelled["reason"].is_string(), "{cancelled}");
    // Nothing more may come: half a second for a stray result to show.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        !debug_log(&file)
            .iter()
            .skip(mark)
            .any(|(k, _)| k == "ontoolresult"),
        "one outcome only"
    );

    // A tool error is a result (the spec's rule), not a cancel.
    let mark = debug_log(&file).len();
    let failing = app
        .call_tool("debug", "debug-tool", args(json!({"simulateError": true})))
        .await
        .unwrap();
    view_of(failing).await;
    let failed = debug_event(&file, mark, "ontoolresult", |_| true).await;
    assert_eq!(failed["isError"], true, "{failed}");
    assert!(
        !debug_log(&file)
            .iter()
            .skip(mark)
            .any(|(k, _)| k == "ontoolcancelled")
    );
    let _ = std::fs::remove_file(&file);
}

/// Into the view of the question card now shown (app-rendered elicitation), once it has the
/// question (`data-state="asked"` on the demo view's body).
async fn enter_question_view(page: &Page) {
    let frame = match page
        .browser
        .wait_for("section.ask.question iframe.app-frame[src]", WAIT)
        .await
    {
        Ok(frame) => frame,
        Err(e) => {
            page.artifact("question-missing").await;
            let html = page
                .browser
                .js("document.getElementById('timeline')?.innerHTML.slice(0, 3000)")
                .await
                .ok();
            let views: Vec<_> = page
                .app
                .host()
                .snapshot()
                .views
                .iter()
                .map(|v| (v.id, v.request, v.state.clone(), v.live_at_ms))
                .collect();
            panic!("no view in the question card: {e}; views: {views:?}; timeline: {html:?}")
        }
    };
    enter_view(page, frame).await;
    page.browser
        .wait_js("document.body.dataset.state === 'asked' || null", WAIT)
        .await
        .unwrap_or_else(|e| panic!("the view did not get the question: {e}"));
}

/// Seed 004's scenario in both eras: `portfolio_review` asks in the demo's portfolio view; the
/// view renders the question (managers from the schema), an answer that breaks the schema is
/// not sent and the view says why, and the call returns only after the valid answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_portfolio_review_is_answered_in_its_view() {
    let page = harness().await;
    for server in ["demo", "demo-2025"] {
        page.call_from_sidebar(server, "portfolio_review").await;
        enter_question_view(&page).await;
        let managers = page
            .browser
            .js("Array.from(document.querySelectorAll('input[name=manager]')).map((i) => i.value)")
            .await
            .unwrap();
        assert_eq!(
            managers,
            json!(["m-ava", "m-bruno", "m-chloe"]),
            "the picker comes from the schema"
        );
        if server == "demo" {
            page.client().enter_parent_frame().await.unwrap();
            page.client().enter_parent_frame().await.unwrap();
            page.artifact("portfolio-review").await;
            enter_question_view(&page).await;
        }
        // The view answers with content outside the schema (as a buggy or hostile view would).
        page.client()
            .execute(
                "window.parent.postMessage({jsonrpc: '2.0', id: JSON.parse(document.body.dataset.request), \
                 result: {action: 'accept', content: {confirmed: 'yes', selectedManagerId: 'm-zed'}}}, '*'); return true;",
                vec![],
            )
            .await
            .unwrap();
        page.browser
            .wait_js(
                "Number(document.body.dataset.errors || 0) > 0 || null",
                WAIT,
            )
            .await
            .unwrap_or_else(|e| panic!("the view was not told why ({server}): {e}"));
        page.client().enter_parent_frame().await.unwrap();
        page.client().enter_parent_frame().await.unwrap();
        let refused = page
            .browser
            .wait_js(
                "(() => { const t = document.querySelector('section.ask.question .ask-errors')?.textContent || ''; return t.includes('not sent') ? t : null; })()",
                WAIT,
            )
            .await
            .unwrap_or_else(|e| panic!("the card does not say the answer was refused: {e}"));
        assert!(
            refused.as_str().unwrap().contains("selectedManagerId"),
            "{refused}"
        );
        let running = page
            .app
            .host()
            .snapshot()
            .calls
            .iter()
            .filter(|c| {
                c.tool == "portfolio_review" && c.status == interlude_host::CallStatus::Running
            })
            .count();
        assert_eq!(running, 1, "({server}) the server still waits");
        // The person answers in the view.
        enter_question_view(&page).await;
        page.client()
            .execute(
                "document.querySelector('input[name=manager][value=\"m-chloe\"]').click(); \
                 const c = document.getElementById('confirmed'); if (!c.checked) c.click(); \
                 document.getElementById('confirm').click(); return true;",
                vec![],
            )
            .await
            .unwrap();
        page.client().enter_parent_frame().await.unwrap();
        page.client().enter_parent_frame().await.unwrap();
        page.result_containing(
            server,
            "portfolio_review",
            "Portfolio reassigned to m-chloe.",
        )
        .await;
        page.browser
            .wait_js(
                "document.querySelector('section.ask.question') === null || null",
                WAIT,
            )
            .await
            .unwrap_or_else(|e| panic!("the question card stayed: {e}"));
    }
    page.close().await;
}

/// The host's own chrome around the view: Cancel reaches the server as `cancel`; "a plain form
/// instead" tears the view down and shows the question's own form, whose answer is the one sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_host_chrome_cancels_or_swaps_the_view_for_the_plain_form() {
    let page = harness().await;
    page.call_from_sidebar("demo-2025", "portfolio_review")
        .await;
    enter_question_view(&page).await;
    page.client().enter_parent_frame().await.unwrap();
    page.client().enter_parent_frame().await.unwrap();
    page.client()
        .find(Locator::Css("section.ask.question button.question-cancel"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    page.result_containing(
        "demo-2025",
        "portfolio_review",
        "The user cancelled the portfolio review.",
    )
    .await;

    page.call_from_sidebar("demo", "portfolio_review").await;
    enter_question_view(&page).await;
    page.client().enter_parent_frame().await.unwrap();
    page.client().enter_parent_frame().await.unwrap();
    page.client()
        .find(Locator::Css("section.ask.question button.question-plain"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    page.browser
        .wait_js(
            "(() => { const n = document.querySelector('section.ask .fallback-note'); return n && !document.querySelector('section.ask.question') ? n.textContent : null; })()",
            WAIT,
        )
        .await
        .unwrap_or_else(|e| panic!("the plain form did not replace the view: {e}"));
    page.click_choice("selectedManagerId", "m-ava").await;
    page.field("confirmed").await.click().await.unwrap();
    page.press("Accept").await;
    page.result_containing("demo", "portfolio_review", "Portfolio reassigned to m-ava.")
        .await;
    page.close().await;
}

/// A view built on the published MCP Apps SDK (ext-apps, pinned npm peer) with the toolkit's
/// view-side helper (`interlude_server::apps::ELICITATION_HELPER_JS`), served by a toolkit server
/// in this process that asks with `form_with_schema_in_view`.
mod sdk_question {
    use interlude_server::apps::{AppResource, Apps};
    use interlude_server::{Answer, Ask, AskConfig, FormSchema, respond};
    use rmcp::ErrorData;
    use rmcp::model::{
        CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListResourcesResult,
        ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse,
        ServerCapabilities, ServerConfig, Tool,
    };
    use rmcp::service::{RequestContext, RoleServer};

    pub(crate) const VIEW: &str = "ui://sdk/question";

    /// The view: the SDK bundle and the helper, each loaded as a module from a `blob:` URL (the
    /// way a bundler's output would arrive), then `new App(…, ELICITATION_CAPABILITIES)`,
    /// `handleElicitations`, `connect()`.
    pub(crate) fn html(sdk: &str) -> String {
        let literal = |text: &str| serde_json::to_string(text).unwrap().replace("</", "<\\/");
        format!(
            r#"<!doctype html><html lang="en"><head><meta charset="utf-8"><title>SDK question</title></head>
<body data-state="loading"><p id="message"></p><div id="choices"></div>
<script type="module">
const load = (text) => import(URL.createObjectURL(new Blob([text], {{ type: 'text/javascript' }})));
try {{
  const {{ App }} = await load({sdk});
  const {{ ELICITATION_CAPABILITIES, handleElicitations, onHostCancelled }} = await load({helper});
  const app = new App({{ name: 'sdk-question', version: '1.0.0' }}, {{ ...ELICITATION_CAPABILITIES }});
  // The host withdraws a question (Cancel in its chrome): said back to the host as a log line,
  // which outlives this frame in the host's protocol log.
  onHostCancelled(app, ({{ reason }}) => {{
    document.body.dataset.state = 'cancelled';
    window.parent.postMessage({{ jsonrpc: '2.0', method: 'notifications/message',
      params: {{ level: 'info', data: `withdrawn by the host: ${{reason}}` }} }}, '*');
  }});
  handleElicitations(app, (params, {{ errors, signal }}) => new Promise((resolve) => {{
    document.getElementById('message').textContent = params.message;
    document.body.dataset.errors = JSON.stringify(errors);
    const colour = params.requestedSchema.properties.colour;
    const values = colour.enum || (colour.oneOf || []).map((o) => o.const);
    const box = document.getElementById('choices');
    box.replaceChildren(...values.map((v) => {{
      const b = document.createElement('button');
      b.textContent = v;
      b.dataset.value = v;
      b.onclick = () => {{ document.body.dataset.state = 'answered'; resolve({{ action: 'accept', content: {{ colour: v }} }}); }};
      return b;
    }}));
    document.body.dataset.state = 'asked';
  }}));
  await app.connect();
  document.body.dataset.connected = 'yes';
}} catch (e) {{
  document.body.dataset.state = 'failed';
  document.body.dataset.error = String(e && e.stack || e);
}}
</script></body></html>"#,
            sdk = literal(sdk),
            helper = literal(interlude_server::apps::ELICITATION_HELPER_JS),
        )
    }

    #[derive(Clone)]
    pub(crate) struct SdkQuestion {
        apps: Apps,
        ask: AskConfig,
    }

    impl SdkQuestion {
        pub(crate) fn new(sdk: &str) -> Self {
            Self::with_view(html(sdk))
        }

        /// The same server and question with `view` as the view's HTML.
        pub(crate) fn with_view(view: String) -> Self {
            SdkQuestion {
                apps: Apps::new().with(AppResource::new(VIEW, view).unwrap()),
                ask: AskConfig::new(),
            }
        }
    }

    impl rmcp::ServerHandler for SdkQuestion {
        fn get_info(&self) -> ServerConfig {
            let mut info = ServerConfig::default();
            let mut caps = ServerCapabilities::builder().enable_tools().build();
            Apps::declare_with_elicitation(&mut caps);
            info.capabilities = caps;
            info
        }

        async fn list_tools(
            &self,
            _request: Option<PaginatedRequestParams>,
            _context: RequestContext<RoleServer>,
        ) -> Result<ListToolsResult, ErrorData> {
            let schema = serde_json::json!({"type": "object"})
                .as_object()
                .cloned()
                .unwrap();
            Ok(ListToolsResult::with_all_items(vec![Tool::new(
                "pick_colour",
                "Asks for a colour in the SDK-built view.",
                std::sync::Arc::new(schema),
            )]))
        }

        async fn call_tool(
            &self,
            request: CallToolRequestParams,
            context: RequestContext<RoleServer>,
        ) -> Result<CallToolResponse, ErrorData> {
            let ask = Ask::new(&self.ask, &request, context);
            let schema = FormSchema::parse(&serde_json::json!({
                "type": "object",
                "properties": {"colour": {"type": "string", "enum": ["red", "green", "blue"]}},
                "required": ["colour"]
            }))
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?
            .schema;
            respond(
                async {
                    let text = match ask
                        .form_with_schema_in_view("Which colour?", &schema, VIEW)
                        .await?
                    {
                        Answer::Accepted(c) => format!("picked {}", c["colour"]),
                        Answer::Declined => "declined".into(),
                        Answer::Cancelled => "cancelled".into(),
                    };
                    Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
                }
                .await,
            )
        }

        async fn list_resources(
            &self,
            _request: Option<PaginatedRequestParams>,
            _context: RequestContext<RoleServer>,
        ) -> Result<ListResourcesResult, ErrorData> {
            Ok(ListResourcesResult::with_all_items(self.apps.list()))
        }

        async fn read_resource(
            &self,
            request: ReadResourceRequestParams,
            _context: RequestContext<RoleServer>,
        ) -> Result<ReadResourceResponse, ErrorData> {
            self.apps
                .read(&request.uri)
                .map(Into::into)
                .ok_or_else(|| ErrorData::resource_not_found("no such resource", None))
        }
    }
}

/// The toolkit's view-side helper works with the published MCP Apps SDK: the view declares the
/// capability through `new App`, gets the forwarded question through `setRequestHandler`, and
/// its answer reaches the server's tool.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_view_built_on_the_apps_sdk_answers_with_the_toolkits_helper() {
    use rmcp::ServiceExt;
    const SDK: &str = "@modelcontextprotocol/ext-apps/dist/src/app-with-deps.js";
    let Some(peers) = interlude_test_support::NpmPeers::locate(&[SDK]) else {
        return;
    };
    let sdk = std::fs::read_to_string(peers.package_file(SDK)).unwrap();
    let page = harness().await;
    let (host_end, server_end) = tokio::io::duplex(1024 * 1024);
    let server = sdk_question::SdkQuestion::new(&sdk);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_end).await {
            let _ = running.waiting().await;
        }
    });
    page.app
        .host()
        .connect_transport(
            "sdk",
            host_end,
            ProtocolChoice::Pin(ProtocolVersion::V_2025_11_25),
        )
        .await
        .unwrap();
    page.call_from_sidebar("sdk", "pick_colour").await;
    let frame = page
        .browser
        .wait_for("section.ask.question iframe.app-frame[src]", WAIT)
        .await
        .unwrap_or_else(|e| panic!("no view in the question card: {e}"));
    enter_view(&page, frame).await;
    let state = page
        .browser
        .wait_js(
            "['asked', 'failed'].includes(document.body.dataset.state) ? [document.body.dataset.state, document.body.dataset.error || ''] : null",
            WAIT,
        )
        .await
        .unwrap_or_else(|e| panic!("the SDK view did not get the question: {e}"));
    assert_eq!(state[0], "asked", "{state}");
    assert_eq!(
        page.browser
            .js("document.getElementById('message').textContent")
            .await
            .unwrap(),
        json!("Which colour?")
    );
    page.client()
        .find(Locator::Css("button[data-value=green]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    page.client().enter_parent_frame().await.unwrap();
    page.client().enter_parent_frame().await.unwrap();
    page.result_containing("sdk", "pick_colour", "picked \"green\"")
        .await;

    // Asked again, then cancelled from the host's chrome: the server hears `cancel`, and the
    // helper's `onHostCancelled` tells the view (which says so in a log line to the host).
    page.call_from_sidebar("sdk", "pick_colour").await;
    let frame = page
        .browser
        .wait_for("section.ask.question iframe.app-frame[src]", WAIT)
        .await
        .unwrap_or_else(|e| panic!("no view in the second question's card: {e}"));
    enter_view(&page, frame).await;
    page.browser
        .wait_js("document.body.dataset.state === 'asked' || null", WAIT)
        .await
        .unwrap_or_else(|e| panic!("the SDK view did not get the second question: {e}"));
    page.client().enter_parent_frame().await.unwrap();
    page.client().enter_parent_frame().await.unwrap();
    page.client()
        .find(Locator::Css("section.ask.question button.question-cancel"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    page.result_containing("sdk", "pick_colour", "cancelled")
        .await;
    let server = page.app.host().connection_named("sdk").unwrap().id();
    interlude_test_support::poll(
        "the view's word on the withdrawn question".into(),
        WAIT,
        || {
            let log = page.app.host().protocol_log(server);
            async move {
                Ok(log
                    .iter()
                    .any(|m| m.message.to_string().contains("withdrawn by the host"))
                    .then_some(()))
            }
        },
    )
    .await
    .unwrap_or_else(|e| panic!("onHostCancelled did not fire: {e}"));
    page.close().await;
}

/// A question's view that never starts (its document runs no handshake) gives way to the plain
/// form once it has been loading for `app_start_ms`, the card saying why; the server still waits
/// (never a silent decline), and the plain form's answer is the one it gets.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_question_view_that_never_starts_gives_way_to_the_plain_form() {
    use rmcp::ServiceExt;
    let mut options = WebOptions::default();
    options.host.engine.app_start_ms = 1_500;
    let page = harness_configured(options, Vec::new()).await;
    let (host_end, server_end) = tokio::io::duplex(64 * 1024);
    let server = sdk_question::SdkQuestion::with_view(
        "<!doctype html><html lang=\"en\"><body><p>This view never starts.</p></body></html>"
            .into(),
    );
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_end).await {
            let _ = running.waiting().await;
        }
    });
    page.app
        .host()
        .connect_transport(
            "silent",
            host_end,
            ProtocolChoice::Pin(ProtocolVersion::V_2025_11_25),
        )
        .await
        .unwrap();
    page.call_from_sidebar("silent", "pick_colour").await;
    page.browser
        .wait_for("section.ask.question iframe.app-frame[src]", WAIT)
        .await
        .unwrap_or_else(|e| panic!("the question's view was not framed: {e}"));
    let note = page
        .browser
        .wait_js(
            "(() => { const n = document.querySelector('section.ask .fallback-note'); return n && !document.querySelector('section.ask.question') ? n.textContent : null; })()",
            WAIT,
        )
        .await
        .unwrap_or_else(|e| panic!("the plain form did not replace the silent view: {e}"));
    assert!(
        note.as_str().unwrap_or_default().contains("did not start"),
        "{note}"
    );
    let running = page
        .app
        .host()
        .snapshot()
        .calls
        .iter()
        .any(|c| c.tool == "pick_colour" && c.status == interlude_host::CallStatus::Running);
    assert!(running, "the server still waits for an answer");
    page.click_choice("colour", "blue").await;
    page.press("Accept").await;
    page.result_containing("silent", "pick_colour", "picked \"blue\"")
        .await;
    page.close().await;
}

/// The protocol pane: every message between the host and a server, in order, with directions,
/// pairing (a response's latency) and the JSON — for a call with one question, in both eras;
/// a question asked in an app view shows the bridge's traffic beside the server's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_protocol_pane_shows_every_message_in_order() {
    let page = harness().await;
    for server in ["demo-2025", "demo"] {
        page.call_from_sidebar(server, "confirm_action").await;
        page.focused_card(server, None).await;
        page.field("confirm").await.click().await.unwrap();
        page.press("Accept").await;
        page.result_containing(server, "confirm_action", "Deleted 3 drafts.")
            .await;
        page.client()
            .find(Locator::Css(&format!(
                "li[data-server=\"{server}\"] button.log-btn"
            )))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        let rows = page
            .browser
            .wait_js(
                &format!(
                    "(() => {{ const h = document.querySelector('#protocol h2')?.textContent; \
                     const rows = Array.from(document.querySelectorAll('#protocol .protocol-row')); \
                     return h === {} && rows.length > 3 ? rows.map((r) => r.dataset.dir + ' ' + r.dataset.method) : null; }})()",
                    js(&format!("Protocol: {server}"))
                ),
                WAIT,
            )
            .await
            .unwrap_or_else(|e| panic!("the protocol pane did not list {server}'s messages: {e}"));
        let rows: Vec<String> = serde_json::from_value(rows).unwrap();
        let wanted: &[&str] = if server == "demo-2025" {
            &[
                "send initialize",
                "recv result",
                "send tools/list",
                "recv result",
                "send tools/call",
                "recv elicitation/create",
                "send result",
                "recv result",
            ]
        } else {
            &[
                "send server/discover",
                "recv result",
                "send tools/call",
                "recv result",
                "send tools/call",
                "recv result",
            ]
        };
        let mut at = 0;
        for row in &rows {
            if at < wanted.len() && row == wanted[at] {
                at += 1;
            }
        }
        assert_eq!(
            at,
            wanted.len(),
            "{server}: {wanted:?} in order, got {rows:?}"
        );
        // A response shows its latency (it was paired with its request), and its JSON opens.
        let latencies = page
            .browser
            .js("document.querySelectorAll('#protocol .protocol-row .lat').length")
            .await
            .unwrap();
        assert!(latencies.as_u64().unwrap() >= 3, "{latencies}");
        // Filtering by method.
        page.client()
            .find(Locator::Css("#protocol input[type=search]"))
            .await
            .unwrap()
            .send_keys("tools/call")
            .await
            .unwrap();
        // As many rows as the host's log has messages naming tools/call, the calls among them.
        let server_id = page.app.host().connection_named(server).unwrap().id();
        let matching = page
            .app
            .host()
            .protocol_log(server_id)
            .iter()
            .filter(|m| m.message.to_string().contains("tools/call"))
            .count();
        let count = page
            .browser
            .wait_js(
                &format!(
                    "(() => {{ const rows = Array.from(document.querySelectorAll('#protocol .protocol-row'));                      const c = document.querySelector('#protocol .count')?.textContent || '';                      return c.startsWith('{matching} of') && rows.length === {matching}                        && rows.some((r) => r.dataset.method === 'tools/call') ? c : null; }})()"
                ),
                WAIT,
            )
            .await
            .unwrap_or_else(|e| panic!("the filter did not apply ({matching} expected): {e}"));
        assert!(count.as_str().is_some());
        // A message's JSON opens under the list.
        page.client()
            .find(Locator::Css(
                "#protocol .protocol-row[data-method='tools/call'] .row-btn",
            ))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        let json = page
            .browser
            .wait_js(
                "document.querySelector('#protocol .protocol-detail pre')?.textContent || null",
                WAIT,
            )
            .await
            .unwrap();
        let json: Value = serde_json::from_str(json.as_str().unwrap()).unwrap();
        assert_eq!(json["method"], "tools/call");
        if server == "demo" {
            page.artifact("protocol-pane").await;
        }
        page.client()
            .find(Locator::Css(&format!(
                "li[data-server=\"{server}\"] button.log-btn"
            )))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        page.browser
            .wait_js("document.getElementById('protocol').hidden || null", WAIT)
            .await
            .unwrap();
    }
    page.close().await;
}

/// server-everything's long operation shows its progress advancing on its call (the host sends
/// a progress token with every call), and Cancel ends it as cancelled, the server told
/// (`notifications/cancelled` in the protocol log); its simulated logging shows in the server's
/// log view, at the level the person asks for (`logging/setLevel`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_everything_progress_cancel_and_logs_in_the_page() {
    let Some(peers) = interlude_test_support::NpmPeers::locate(&[SERVER_EVERYTHING]) else {
        return;
    };
    let page = harness_with(vec![("everything", server_everything(&peers), None)]).await;
    let args = json!({"duration": 60, "steps": 60});
    let call = page
        .app
        .call_tool(
            "everything",
            "trigger-long-running-operation",
            args.as_object().cloned(),
        )
        .await
        .unwrap();
    let card = call_selector("everything", "trigger-long-running-operation");
    let progress = |at_least: u32| {
        format!(
            "(() => {{ const p = document.querySelector('{card} .call-progress progress'); \
             const t = document.querySelector('{card} .call-progress .progress-text')?.textContent || ''; \
             return p && Number(p.value) >= {at_least} && Number(p.max) === 60 ? t : null; }})()"
        )
    };
    let first = page
        .browser
        .wait_js(&progress(1), WAIT)
        .await
        .unwrap_or_else(|e| panic!("no progress on the call: {e}"));
    assert!(first.as_str().unwrap().contains("of 60"), "{first}");
    // It advances.
    page.browser
        .wait_js(&progress(3), WAIT)
        .await
        .unwrap_or_else(|e| panic!("the progress did not advance: {e}"));
    let elapsed = page
        .browser
        .js(&format!(
            "document.querySelector('{card} .call-time .took')?.textContent"
        ))
        .await
        .unwrap();
    assert!(
        elapsed.as_str().unwrap_or_default().ends_with(" s"),
        "{elapsed}"
    );
    page.client()
        .find(Locator::Css(&format!("{card} button.call-cancel")))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    page.browser
        .wait_js(
            &format!(
                "document.querySelector('{card} .status')?.textContent === 'cancelled' || null"
            ),
            WAIT,
        )
        .await
        .unwrap_or_else(|e| panic!("the call did not end as cancelled: {e}"));
    let record = page.app.host().call(interlude_host::CallId(call)).unwrap();
    assert!(
        matches!(record.status, interlude_host::CallStatus::Cancelled { .. }),
        "{:?}",
        record.status
    );
    let server = page.app.host().connection_named("everything").unwrap().id();
    interlude_test_support::poll("the server told of the cancel".into(), WAIT, || {
        let log = page.app.host().protocol_log(server);
        async move {
            Ok(log
                .iter()
                .any(|m| {
                    m.dir == interlude_host::Direction::Send
                        && m.message["method"] == "notifications/cancelled"
                })
                .then_some(()))
        }
    })
    .await
    .unwrap_or_else(|e| panic!("no notifications/cancelled went to the server: {e}"));

    // Simulated logging, every debug message and up, in the server's log view.
    page.client()
        .find(Locator::Css(
            "li[data-server=\"everything\"] button.log-btn",
        ))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    page.browser
        .wait_js(
            "(() => { const b = Array.from(document.querySelectorAll('#protocol .segmented button')).find((b) => b.textContent === 'Server logs'); if (b) b.click(); return !!b || null; })()",
            WAIT,
        )
        .await
        .unwrap_or_else(|e| panic!("the protocol pane has no server-logs view: {e}"));
    page.browser
        .wait_js(
            "document.querySelector(\"#protocol select[aria-label='Server log level']\") ? true : null",
            WAIT,
        )
        .await
        .unwrap();
    page.client()
        .find(Locator::Css(
            "#protocol select[aria-label='Server log level']",
        ))
        .await
        .unwrap()
        .select_by_value("debug")
        .await
        .unwrap();
    page.browser
        .wait_js(
            "(document.querySelector('#protocol .level-note')?.textContent || '').includes('logs from debug up') || null",
            WAIT,
        )
        .await
        .unwrap_or_else(|e| panic!("the level was not taken: {e}"));
    page.app
        .call_tool("everything", "toggle-simulated-logging", None)
        .await
        .unwrap();
    let row = page
        .browser
        .wait_js(
            "(() => { const r = document.querySelector('#protocol .log-row'); return r ? [r.dataset.level, r.querySelector('.log-text').textContent] : null; })()",
            Duration::from_secs(30),
        )
        .await
        .unwrap_or_else(|e| panic!("no server log shown: {e}"));
    assert!(!row[1].as_str().unwrap_or_default().is_empty(), "{row}");
    page.artifact("server-everything-logs").await;
    // Stop the logging before the server is closed.
    page.app
        .call_tool("everything", "toggle-simulated-logging", None)
        .await
        .unwrap();
    page.close().await;
}

/// Rough edges a person hit in `interlude demo`, each pinned by what they saw:
/// - the page has one `h1`; the guide shows code as code (no raw backticks) and lists the event
///   registration; the guide's and the theme's buttons are named by their visible text;
/// - "N fields need attention" follows the fields as they are fixed;
/// - an optional single choice shown as radio buttons can be left unanswered again;
/// - no inline check runs once a card is gone (no 404 from `/api/validate`);
/// - after Esc or Accept, focus goes to the call the request came from (not the page's body) and
///   screen readers hear what happened; Esc cancels wherever focus is while a card is open.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rough_edges_a_person_hit_are_smoothed() {
    let options = WebOptions {
        guide: Some(interlude_demo::guide()),
        ..WebOptions::default()
    };
    let page = harness_configured(options, Vec::new()).await;
    let b = &page.browser;
    assert_eq!(
        b.js("document.querySelectorAll('h1').length")
            .await
            .unwrap(),
        json!(1)
    );
    let guide = b
        .wait_js("document.querySelector('#guide li') ? document.getElementById('guide').textContent : null", WAIT)
        .await
        .unwrap();
    let guide = guide.as_str().unwrap();
    assert!(!guide.contains('`'), "raw backticks in the guide: {guide}");
    assert!(guide.contains("Event registration"), "{guide}");
    assert_eq!(
        b.js("!!document.querySelector('#guide code')")
            .await
            .unwrap(),
        json!(true)
    );
    let names = b
        .js("Array.from(document.querySelectorAll('#guide button')).map((b) => b.getAttribute('aria-label'))")
        .await
        .unwrap();
    assert!(
        names.as_array().unwrap().iter().all(Value::is_null),
        "the guide's buttons are named by their visible text: {names}"
    );
    assert_eq!(
        b.js("document.getElementById('theme').getAttribute('aria-label')")
            .await
            .unwrap(),
        Value::Null,
        "the theme button is named by what it shows"
    );

    // The count follows the fixes.
    page.call_from_sidebar("demo", "contact_info").await;
    page.focused_card("demo", None).await;
    page.press("Accept").await;
    b.wait_js(
        "(document.querySelector('section.ask .ask-errors')?.textContent || '').startsWith('3 fields') || null",
        WAIT,
    )
    .await
    .unwrap_or_else(|e| panic!("no count of the fields needing attention: {e}"));
    page.field("name")
        .await
        .send_keys("Grace Hopper")
        .await
        .unwrap();
    b.wait_js(
        "(document.querySelector('section.ask .ask-errors')?.textContent || '').startsWith('2 fields') || null",
        WAIT,
    )
    .await
    .unwrap_or_else(|e| panic!("the count did not follow the fixed field: {e}"));
    page.field("email")
        .await
        .send_keys("grace@example.org")
        .await
        .unwrap();
    page.field("age").await.send_keys("85").await.unwrap();
    b.wait_js(
        "document.querySelector('section.ask .ask-errors')?.textContent === '' || null",
        WAIT,
    )
    .await
    .unwrap_or_else(|e| panic!("the count stayed after every field was fixed: {e}"));

    // No check after the card is gone: type, then Esc at once (the check would come 180 ms
    // later). Esc leaves focus on the call, and screen readers hear it.
    b.js("(() => { window.__validate = []; const f = window.fetch; window.fetch = async (...a) => { const r = await f(...a); if (String(a[0]).includes('/api/validate')) window.__validate.push(r.status); return r; }; return true; })()")
        .await
        .unwrap();
    page.field("name").await.send_keys(" Jr").await.unwrap();
    page.type_keys(&Key::Escape).await;
    page.result_containing("demo", "contact_info", "").await;
    let focus = b
        .wait_js(
            "(() => { const a = document.activeElement; const li = a?.closest('li[data-key^=\"call-\"]'); return li ? li.dataset.key : null; })()",
            WAIT,
        )
        .await
        .unwrap_or_else(|e| panic!("focus fell to the page's body after Esc: {e}"));
    assert!(focus.as_str().unwrap().starts_with("call-"), "{focus}");
    let said = b
        .js("document.getElementById('announcer').textContent")
        .await
        .unwrap();
    assert!(
        said.as_str().unwrap_or_default().contains("Cancelled"),
        "{said}"
    );
    tokio::time::sleep(Duration::from_millis(600)).await;
    let statuses = b.js("window.__validate").await.unwrap();
    assert!(
        !statuses.as_array().unwrap().iter().any(|s| s == 404),
        "a check ran after the card was gone: {statuses}"
    );

    // Esc with focus outside the card.
    page.call_from_sidebar("demo", "confirm_action").await;
    page.focused_card("demo", None).await;
    b.js("(() => { document.getElementById('theme').focus(); return true; })()")
        .await
        .unwrap();
    page.type_keys(&Key::Escape).await;
    b.wait_gone("section.ask", WAIT)
        .await
        .unwrap_or_else(|e| panic!("Esc outside the card did not cancel it: {e}"));

    // An optional single choice can be cleared.
    page.call_from_sidebar("demo", "event_registration").await;
    page.focused_card("demo", None).await;
    page.click_choice("meal", "vegan").await;
    let none = page
        .client()
        .find(Locator::Css(
            "section.ask [data-field=\"meal\"] input[data-none]",
        ))
        .await
        .unwrap_or_else(|e| panic!("no way to leave the meal unanswered: {e}"));
    none.click().await.unwrap();
    let review = b
        .js("Array.from(document.querySelectorAll('section.ask .review dt')).find((d) => d.textContent === 'meal')?.nextElementSibling?.textContent")
        .await
        .unwrap();
    assert_eq!(review, json!("(not sent)"));
    page.press("Cancel").await;
    page.close().await;
}

/// For server authors: a card shows the `requestedSchema` exactly as the server sent it and the
/// response Accept will send (kept current as the person answers), and both a card and a call
/// open the protocol pane on that call's messages only.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_card_shows_the_wire_and_a_call_jumps_to_its_messages() {
    let page = harness().await;
    let b = &page.browser;
    page.call_from_sidebar("demo-2025", "confirm_action").await;
    page.focused_card("demo-2025", None).await;
    b.js("(() => { document.querySelector('section.ask details.wire').open = true; return true; })()")
        .await
        .unwrap();
    let schema = b
        .js("document.querySelector('section.ask .wire-schema')?.textContent")
        .await
        .unwrap();
    let schema: Value = serde_json::from_str(schema.as_str().unwrap()).unwrap();
    assert_eq!(schema["type"], "object", "{schema}");
    assert!(schema["properties"]["confirm"].is_object(), "{schema}");
    async fn response(b: &interlude_test_support::Browser) -> Value {
        let text = b
            .js("document.querySelector('section.ask .wire-response')?.textContent")
            .await
            .unwrap();
        serde_json::from_str::<Value>(text.as_str().unwrap()).unwrap()
    }
    assert_eq!(response(b).await["action"], "accept");
    page.field("confirm").await.click().await.unwrap();
    interlude_test_support::poll("the response to follow the answer".into(), WAIT, || async {
        Ok((response(b).await["content"]["confirm"] == json!(true)).then_some(()))
    })
    .await
    .unwrap();
    page.artifact("card-wire").await;

    // The card's way to its call's messages.
    page.client()
        .find(Locator::XPath(
            "//section[contains(@class,'ask')]//details[contains(@class,'wire')]//button[text()='Messages of this call']",
        ))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let rows = b
        .wait_js(
            "(() => { const rows = Array.from(document.querySelectorAll('#protocol .protocol-row')); \
             const only = document.querySelector('#protocol .call-only'); \
             return only && rows.length >= 2 ? rows.map((r) => [r.dataset.call, r.dataset.method]) : null; })()",
            WAIT,
        )
        .await
        .unwrap_or_else(|e| panic!("the pane did not open on the call's messages: {e}"));
    let rows: Vec<(String, String)> = serde_json::from_value(rows).unwrap();
    let call = page.app.host().snapshot().calls[0].id.0.to_string();
    assert!(rows.iter().all(|(c, _)| *c == call), "{rows:?}");
    let methods: Vec<&str> = rows.iter().map(|(_, m)| m.as_str()).collect();
    assert_eq!(methods, ["tools/call", "elicitation/create"], "{rows:?}");

    // Answered, the call's own button shows the rest of its messages.
    page.press("Accept").await;
    page.result_containing("demo-2025", "confirm_action", "Deleted")
        .await;
    page.client()
        .find(Locator::Css(&format!(
            "{} button.call-messages",
            call_selector("demo-2025", "confirm_action")
        )))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let methods = b
        .wait_js(
            "(() => { const rows = Array.from(document.querySelectorAll('#protocol .protocol-row')); \
             return rows.length >= 4 ? rows.map((r) => r.dataset.method) : null; })()",
            WAIT,
        )
        .await
        .unwrap_or_else(|e| panic!("the call's messages did not show: {e}"));
    assert_eq!(
        methods,
        json!(["tools/call", "elicitation/create", "result", "result"]),
        "the call, its question, the host's answer and the call's result"
    );
    page.close().await;
}

/// While a server connects, the page says how the protocol version is being negotiated: a
/// server that ignores `server/discover` (the scripted server's `silent` mode) keeps the host
/// waiting, and the person sees why.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_shows_the_negotiation_while_a_server_connects() {
    let page = harness().await;
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../demo/tests/test_data/scripted_server.py");
    let spec = ServerSpec::Stdio {
        command: "python3".into(),
        args: vec![script.to_string_lossy().into_owned(), "silent".into()],
        env: Default::default(),
    };
    let app = page.app.clone();
    let connecting = tokio::spawn(async move { app.add_server("silent", spec, None).await });
    let note = page
        .browser
        .wait_js(
            "document.querySelector('li[data-server=\"silent\"] .negotiation')?.textContent || null",
            WAIT,
        )
        .await
        .unwrap_or_else(|e| panic!("no word on the negotiation: {e}"));
    let note = note.as_str().unwrap();
    assert!(
        note.contains("server/discover") && note.contains("10 s"),
        "{note}"
    );
    connecting.abort();
    page.close().await;
}

/// At 390 px the top bar wraps to two rows; a card brought into view stops below it, never
/// under it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_390_px_the_top_bar_covers_no_card() {
    let page = harness().await;
    page.client().set_window_size(390, 844).await.unwrap();
    page.browser
        .wait_js("window.innerWidth <= 390 || null", WAIT)
        .await
        .unwrap();
    page.call_from_sidebar("demo", "contact_info").await;
    page.focused_card("demo", None).await;
    let gap = page
        .browser
        .wait_js(
            "(() => { const bar = document.querySelector('.topbar').getBoundingClientRect(); \
             const card = document.querySelector('section.ask').getBoundingClientRect(); \
             return bar.height > 60 ? [bar.bottom, card.top] : null; })()",
            WAIT,
        )
        .await
        .unwrap_or_else(|e| panic!("the top bar did not wrap at 390 px: {e}"));
    let (bar, card) = (gap[0].as_f64().unwrap(), gap[1].as_f64().unwrap());
    assert!(
        card >= bar,
        "the card's top ({card}) is under the top bar (bottom {bar})"
    );
    page.artifact("card-at-390").await;
    page.close().await;
}

/// A server that cannot connect says why in one line, its tools cannot be called, and the page
/// offers Retry and Remove: retried once the server is up, it connects; removed, it is gone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_server_can_be_retried_or_removed() {
    // A port nobody listens on yet: the demo starts there later.
    let port = {
        let probe = TcpListener::bind("127.0.0.1:0").await.unwrap();
        probe.local_addr().unwrap().port()
    };
    let late = ServerSpec::parse(&format!("http://127.0.0.1:{port}/mcp")).unwrap();
    let missing = ServerSpec::Stdio {
        command: "/nonexistent/mcp-server".into(),
        args: Vec::new(),
        env: Default::default(),
    };
    let page = harness_with(vec![("late", late, None), ("missing", missing, None)]).await;
    let b = &page.browser;
    let error = b
        .wait_js(
            "document.querySelector('li[data-server=\"missing\"] .server-error')?.textContent || null",
            WAIT,
        )
        .await
        .unwrap_or_else(|e| panic!("no reason for the failure: {e}"));
    let error = error.as_str().unwrap();
    assert!(
        !error.contains('\n') && error.contains("/nonexistent/mcp-server"),
        "{error}"
    );
    b.wait_js(
        "document.querySelector('li[data-server=\"late\"] button.server-retry') ? true : null",
        WAIT,
    )
    .await
    .unwrap_or_else(|e| panic!("no Retry for the server that is not up yet: {e}"));

    // Up now: Retry connects it, and its tools can be called.
    let listener = TcpListener::bind(("127.0.0.1", port)).await.unwrap();
    let shutdown = CancellationToken::new();
    tokio::spawn(interlude_demo::serve_http(
        listener,
        interlude_demo::HttpOptions {
            shutdown: shutdown.child_token(),
            ..Default::default()
        },
    ));
    page.client()
        .find(Locator::Css("li[data-server=\"late\"] button.server-retry"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    b.wait_js(
        "(() => { const li = document.querySelector('li[data-server=\"late\"]'); \
         return li && li.querySelector('.dot.ready') && !li.querySelector('button.tool-btn[disabled]') || null; })()",
        WAIT,
    )
    .await
    .unwrap_or_else(|e| panic!("Retry did not connect the server: {e}"));

    // Remove takes the other off the page.
    page.client()
        .find(Locator::Css(
            "li[data-server=\"missing\"] button.server-remove",
        ))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    b.wait_gone("li[data-server=\"missing\"]", WAIT)
        .await
        .unwrap_or_else(|e| panic!("Remove left the server on the page: {e}"));
    shutdown.cancel();
    page.close().await;
}

/// A server whose tools' arguments the host checks: `book`, a flat form (bounds, a format, a
/// pattern; extra properties allowed, as JSON Schema allows them by default), and `plot`, whose
/// nested `point` no form can show. It records every call it receives.
mod shapes {
    use std::sync::{Arc, Mutex};

    use rmcp::ErrorData;
    use rmcp::model::{
        CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, JsonObject,
        ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
    };
    use rmcp::service::{RequestContext, RoleServer};
    use serde_json::json;

    /// Every call received: the tool's name and its arguments.
    pub(crate) type Received = Arc<Mutex<Vec<(String, Option<JsonObject>)>>>;

    #[derive(Clone, Default)]
    pub(crate) struct Shapes {
        pub(crate) received: Received,
    }

    fn tool(name: &str, schema: serde_json::Value) -> Tool {
        Tool::new(
            name.to_owned(),
            format!("{name}, with checked arguments"),
            Arc::new(schema.as_object().cloned().unwrap()),
        )
    }

    impl rmcp::ServerHandler for Shapes {
        fn get_info(&self) -> ServerConfig {
            let mut info = ServerConfig::default();
            info.capabilities = ServerCapabilities::builder().enable_tools().build();
            info
        }

        async fn list_tools(
            &self,
            _request: Option<PaginatedRequestParams>,
            _context: RequestContext<RoleServer>,
        ) -> Result<ListToolsResult, ErrorData> {
            Ok(ListToolsResult::with_all_items(vec![
                tool(
                    "book",
                    json!({"type": "object", "properties": {
                        "guests": {"type": "integer", "minimum": 1, "maximum": 4},
                        "email": {"type": "string", "format": "email"},
                        "code": {"type": "string", "pattern": "^[A-Z]{3}$"}},
                        "required": ["guests", "email"]}),
                ),
                tool(
                    "plot",
                    json!({"type": "object", "properties": {
                        "point": {"type": "object", "properties": {
                            "x": {"type": "number"}, "y": {"type": "number"}},
                            "required": ["x", "y"]},
                        "label": {"type": "string"}},
                        "required": ["point"]}),
                ),
            ]))
        }

        async fn call_tool(
            &self,
            request: CallToolRequestParams,
            _context: RequestContext<RoleServer>,
        ) -> Result<CallToolResponse, ErrorData> {
            let name = request.name.to_string();
            if let Ok(mut r) = self.received.lock() {
                r.push((name.clone(), request.arguments.clone()));
            }
            Ok(CallToolResponse::Complete(CallToolResult::success(vec![
                ContentBlock::text(format!("{name} ran")),
            ])))
        }
    }
}

impl Page {
    /// Opens the tool form of `tool` of `server` (without calling).
    async fn open_composer(&self, server: &str, tool: &str) {
        let button = format!(
            "//li[@data-server={}]//button[contains(@class,'tool-btn')][span[@class='tool-name' and text()={}]]",
            xpath_str(server),
            xpath_str(tool)
        );
        self.client()
            .wait()
            .at_most(WAIT)
            .for_element(Locator::XPath(&button))
            .await
            .unwrap_or_else(|e| panic!("no tool button for {server} › {tool}: {e}"))
            .click()
            .await
            .unwrap();
        let heading = format!("{server} › {tool}");
        self.browser
            .wait_js(
                &format!(
                    "document.querySelector('#composer h3')?.textContent === {}",
                    js(&heading)
                ),
                WAIT,
            )
            .await
            .unwrap_or_else(|e| panic!("the composer did not open for {heading}: {e}"));
    }

    /// Waits until the composer's JavaScript expression `expr` is truthy; returns its value.
    async fn composer_shows(&self, expr: &str, what: &str) -> Value {
        self.browser
            .wait_js(expr, WAIT)
            .await
            .unwrap_or_else(|e| panic!("the tool form never showed {what}: {e}"))
    }

    /// Puts `text` in the composer's JSON editor, as typing would.
    async fn type_json(&self, text: &str) {
        self.browser
            .js(&format!(
                "(() => {{ const t = document.querySelector('#composer textarea.args-json'); \
                 t.value = {}; t.dispatchEvent(new Event('input', {{ bubbles: true }})); \
                 return true; }})()",
                js(text)
            ))
            .await
            .unwrap();
    }
}

/// Issue 12: a tool's arguments are checked against its whole input schema before the call.
/// Invalid ones show the host's messages under their fields, as on a request's card, and no
/// call is made — not from the form, not from a hand-made POST; "Edit as JSON" sends what the
/// form cannot express, and a JSON parse error is named; a tool no form can show is edited as
/// JSON, checked the same way.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tool_arguments_are_checked_before_the_call() {
    use rmcp::ServiceExt;
    let page = harness().await;
    let server = shapes::Shapes::default();
    let received = server.received.clone();
    let (host_end, server_end) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_end).await {
            let _ = running.waiting().await;
        }
    });
    page.app
        .host()
        .connect_transport(
            "shapes",
            host_end,
            ProtocolChoice::Pin(ProtocolVersion::V_2025_11_25),
        )
        .await
        .unwrap();
    let calls_of_shapes = || {
        page.app
            .host()
            .snapshot()
            .calls
            .iter()
            .filter(|c| c.server_name == "shapes")
            .count()
    };

    page.open_composer("shapes", "book").await;
    let field = |name: &str| format!("#composer [data-field=\"{name}\"]");
    let input = page
        .client()
        .find(Locator::Css(&format!("{} input", field("guests"))))
        .await
        .unwrap();
    input.send_keys("9").await.unwrap();
    let email = page
        .client()
        .find(Locator::Css(&format!("{} input", field("email"))))
        .await
        .unwrap();
    email.send_keys("nope").await.unwrap();
    let error_of = |name: &str| {
        format!(
            "document.querySelector('{} .field-error')?.textContent || null",
            field(name)
        )
    };
    let guests = page
        .composer_shows(&error_of("guests"), "the guests' message")
        .await;
    assert_eq!(guests, json!("Guests must be at most 4."));
    let said = page
        .composer_shows(&error_of("email"), "the e-mail's message")
        .await;
    assert_eq!(
        said,
        json!("Email must be an e-mail address, such as ada@example.com.")
    );
    assert_eq!(
        input.attr("aria-invalid").await.unwrap().as_deref(),
        Some("true"),
        "marked as on a card"
    );

    // Call: refused on the page, the fields named, nothing sent.
    page.press_call().await;
    let count = page
        .composer_shows(
            "document.querySelector('#composer .ask-errors')?.textContent || null",
            "how many fields need attention",
        )
        .await;
    assert_eq!(count, json!("2 fields need attention."));
    // Refused by the host too, whatever the page does.
    let status = page
        .browser
        .js(
            "fetch('/api/call', { method: 'POST', headers: { 'content-type': 'application/json', \
             'x-interlude-token': new URLSearchParams(location.search).get('token') }, \
             body: JSON.stringify({ server: 'shapes', tool: 'book', arguments: { guests: 0 } }) }) \
             .then(async (r) => [r.status, (await r.json()).errors.map((e) => e.message)])",
        )
        .await
        .unwrap();
    assert_eq!(
        status,
        json!([400, ["Enter email.", "Guests must be at least 1."]])
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(calls_of_shapes(), 0, "no call in the host's record");
    assert!(
        received.lock().unwrap().is_empty(),
        "nothing reached the server"
    );

    // Fixed, then edited as JSON: the arguments go along; a parse error is named.
    input.clear().await.unwrap();
    input.send_keys("2").await.unwrap();
    email.clear().await.unwrap();
    email.send_keys("ada@example.com").await.unwrap();
    page.composer_shows(
        &format!("{} === ''", error_of("email").replace(" || null", "")),
        "the e-mail's message gone",
    )
    .await;
    page.client()
        .find(Locator::Css("#composer .json-switch input"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let text = page
        .composer_shows(
            "document.querySelector('#composer textarea.args-json')?.value || null",
            "the JSON editor",
        )
        .await;
    let shown: Value = serde_json::from_str(text.as_str().unwrap()).unwrap();
    assert_eq!(shown, json!({"guests": 2, "email": "ada@example.com"}));
    page.type_json("{\"guests\": 2,").await;
    let parse = page
        .composer_shows(
            "document.querySelector('#composer .json-errors li')?.textContent || null",
            "the parse error",
        )
        .await;
    assert_eq!(
        parse,
        json!("The arguments are not valid JSON: EOF while parsing a value at line 1, column 13.")
    );
    page.press_call().await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(calls_of_shapes(), 0, "unreadable JSON is not sent");
    page.browser
        .screenshot_element(
            &page.client().find(Locator::Css("#composer")).await.unwrap(),
            "browser-tool-arguments-json-error",
        )
        .await
        .unwrap();

    // What no field can show: a nested note, sent as typed.
    page.type_json(
        "{\"guests\": 2, \"email\": \"ada@example.com\", \"note\": {\"floors\": [1, 2]}}",
    )
    .await;
    page.composer_shows(
        "document.querySelector('#composer .json-errors') && document.querySelector('#composer .json-errors').children.length === 0",
        "no message",
    )
    .await;
    page.press_call().await;
    page.result_containing("shapes", "book", "book ran").await;
    let got = received.lock().unwrap().clone();
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(
        Value::Object(got[0].1.clone().unwrap()),
        json!({"guests": 2, "email": "ada@example.com", "note": {"floors": [1, 2]}})
    );

    // A tool no form can show: JSON from the start, checked the same way.
    page.open_composer("shapes", "plot").await;
    let no_switch = page
        .browser
        .js("document.querySelector('#composer .json-switch') === null")
        .await
        .unwrap();
    assert_eq!(no_switch, json!(true));
    page.type_json("{\"point\": {\"x\": 1}, \"label\": 3}")
        .await;
    let said = page
        .composer_shows(
            "(() => { const l = document.querySelectorAll('#composer .json-errors li'); \
             return l.length === 2 ? Array.from(l).map((e) => e.textContent) : null; })()",
            "the nested messages",
        )
        .await;
    assert_eq!(
        said,
        json!(["Enter Point \u{203a} Y.", "Label must be text."])
    );
    page.press_call().await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(calls_of_shapes(), 1, "only the one good call");
    page.browser
        .screenshot_element(
            &page.client().find(Locator::Css("#composer")).await.unwrap(),
            "browser-tool-arguments-nested",
        )
        .await
        .unwrap();
    page.type_json("{\"point\": {\"x\": 1, \"y\": 2}}").await;
    page.composer_shows(
        "document.querySelector('#composer .json-errors').children.length === 0",
        "no message",
    )
    .await;
    page.press_call().await;
    page.result_containing("shapes", "plot", "plot ran").await;
    page.close().await;
}

// ---------------------------------------------------------------------------------------------
// The User Interaction draft (seed 000): `interaction/create` from a server written by hand
// against the draft's JSON, and from the demo's toolkit, answered through the page.

/// The hand-written seed-000 server (`crates/demo/tests/test_data/interaction_server.py`):
/// each of its tools returns, as its text, the JSON of what it saw.
fn seed_000_server() -> ServerSpec {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../demo/tests/test_data/interaction_server.py");
    ServerSpec::Stdio {
        command: "python3".into(),
        args: vec![script.to_string_lossy().into_owned()],
        env: Default::default(),
    }
}

/// A page whose host declares the User Interaction draft, with only `seed` (the hand-written
/// server, pinned to 2025-11-25) connected. The `ua`'s host name resolves to a public address
/// from a fixed table (nothing is looked up on this machine).
async fn harness_seed_000() -> Page {
    let shutdown = CancellationToken::new();
    let public: std::net::IpAddr = "93.184.215.14".parse().unwrap();
    let host = interlude_host::HostConfig {
        declare: interlude_engine::Declared::default().with_user_interaction(),
        resolver: interlude_host::Resolver::fixed([("oauth.example.com", vec![public])]),
        url_wait: Duration::from_secs(10),
        ..interlude_host::HostConfig::default()
    };
    let servers = async {
        let app = WebApp::start(WebOptions {
            host,
            ..WebOptions::default()
        });
        app.add_server(
            "seed",
            seed_000_server(),
            Some(ProtocolChoice::Pin(ProtocolVersion::V_2025_11_25)),
        )
        .await;
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = app.url(listener.local_addr().unwrap());
        tokio::spawn(app.clone().serve(listener, shutdown.child_token()));
        (app, url)
    };
    let (browser, (app, url)) = tokio::join!(Browser::start(), servers);
    let page = Page {
        browser: browser.unwrap_or_else(|e| panic!("{e}")),
        app,
        url,
        _servers: StopOnDrop(shutdown),
    };
    page.open().await;
    page
}

/// A `prompt` through the page: the card says it came through the draft (chip and note), shows
/// the server's message and its three fields with the e-mail rule inline as for any form;
/// Accept answers `{"result": {"content": …}}` with what was typed, and a second prompt
/// declined gets the draft's error `-1`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seed_000_prompt_is_a_form_marked_as_the_draft() {
    let page = harness_seed_000().await;
    page.call_from_sidebar("seed", "prompt").await;
    let (card, _) = page.focused_card("seed", None).await;
    let chip = card
        .find(Locator::Css(".ask-head .chip.draft"))
        .await
        .unwrap_or_else(|e| panic!("no draft chip on the card: {e}"));
    assert_eq!(chip.text().await.unwrap(), "interaction/create · draft");
    assert_eq!(
        chip.attr("title").await.unwrap().as_deref(),
        Some("User Interaction draft (interaction/create)")
    );
    // The draft's chip stands in for the era's chip: no "2025-11-25" chip beside it.
    assert!(
        card.find(Locator::Css(".ask-head .chip[class*='era-']"))
            .await
            .is_err(),
        "an era chip beside the draft's"
    );
    let message = card
        .find(Locator::Css(".ask-message"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(message, "Let us know some information about you.");
    let notes = card.text().await.unwrap();
    assert!(
        notes.contains("Asked through the User Interaction draft (seed 000)"),
        "{notes}"
    );
    let fields = page
        .browser
        .js("Array.from(document.querySelectorAll('section.ask [data-field]')).map((f) => f.dataset.field)")
        .await
        .unwrap();
    assert_eq!(
        fields,
        json!(["name", "email", "age"]),
        "the author's order"
    );

    page.type_keys("Ada Lovelace").await;
    let email = page.field("email").await;
    email.send_keys("ada@example").await.unwrap();
    let complaint = page
        .browser
        .wait_js(
            "document.querySelector('section.ask [data-field=\"email\"] .field-error')?.textContent || null",
            WAIT,
        )
        .await
        .unwrap();
    assert_eq!(
        complaint,
        json!("Email must be an e-mail address, such as ada@example.com.")
    );
    email.send_keys(".org").await.unwrap();
    page.field("age").await.send_keys("36").await.unwrap();
    page.browser
        .wait_js(
            "Array.from(document.querySelectorAll('section.ask .field-error')).every((e) => e.textContent === '') || null",
            WAIT,
        )
        .await
        .expect("no field complains once the address is fixed");
    // What Accept sends, as the draft has it: a result with `content`, no `action`.
    let wire = page
        .browser
        .js("document.querySelector('section.ask .wire-response')?.textContent")
        .await
        .unwrap();
    let wire: Value = serde_json::from_str(wire.as_str().unwrap()).unwrap();
    assert_eq!(
        wire,
        json!({"content": {"name": "Ada Lovelace", "email": "ada@example.org", "age": 36}})
    );
    let shot = page
        .browser
        .screenshot_element(&card, "browser-seed-000-prompt")
        .await
        .unwrap();
    eprintln!("screenshot: {}", shot.display());

    page.press("Accept").await;
    let result = page.result_containing("seed", "prompt", "\"result\"").await;
    let seen = json_in(&result);
    assert_eq!(
        seen,
        json!({"result": {"content": {"name": "Ada Lovelace", "email": "ada@example.org", "age": 36}}}),
        "{result}"
    );
    page.browser.wait_gone("section.ask", WAIT).await.unwrap();

    // Declined: the draft's refusal, error -1.
    page.call_from_sidebar("seed", "prompt").await;
    page.focused_card("seed", None).await;
    page.press("Decline").await;
    let result = page.result_containing("seed", "prompt", "\"error\"").await;
    assert!(
        result.contains(r#""code": -1"#)
            && result.contains("User did not consent to the interaction")
            && result.contains(r#""action": "decline""#),
        "{result}"
    );
    page.close().await;
}

/// The JSON object in a result's text (after its label and copy button).
fn json_in(result: &str) -> Value {
    let (start, end) = (result.find('{').unwrap(), result.rfind('}').unwrap());
    serde_json::from_str(&result[start..=end])
        .unwrap_or_else(|e| panic!("the server's text is its JSON: {e}: {result}"))
}

/// A `ua` through the page: the link card says it came through the draft; once the person
/// consents, the server gets `{}` and the host tracks the interaction with
/// `interaction/notify`; the server's progress shows on the waiting record, its answer ends the
/// wait ("Finished in the browser"), and the tool's result has the reply and the notify.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seed_000_ua_is_a_link_marked_as_the_draft_and_tracked_to_its_end() {
    let page = harness_seed_000().await;
    page.call_from_sidebar("seed", "ua").await;
    let (card, _) = page.focused_card("seed", None).await;
    let chip = card
        .find(Locator::Css(".ask-head .chip.draft"))
        .await
        .unwrap_or_else(|e| panic!("no draft chip on the link card: {e}"));
    assert_eq!(
        chip.text().await.unwrap(),
        "interaction/create · ua · draft"
    );
    let text = card.text().await.unwrap();
    assert!(text.contains("Please sign in to your account."), "{text}");
    assert!(
        text.contains("https://oauth.example.com/authorize?client_id=abc123&state=1234567890"),
        "the full link before consent: {text}"
    );
    page.artifact("seed-000-ua-consent").await;
    // Every text the waiting record's progress line ever shows (it may last a moment only).
    page.browser
        .js("(() => { window.progressSeen = []; new MutationObserver(() => { \
             for (const e of document.querySelectorAll('.link-progress')) \
               if (!window.progressSeen.includes(e.textContent)) window.progressSeen.push(e.textContent); \
             }).observe(document.body, { childList: true, subtree: true, characterData: true }); \
             return true; })()")
        .await
        .unwrap();
    let open = card.find(Locator::Css("button.primary")).await.unwrap();
    assert_eq!(
        open.text().await.unwrap(),
        "Open example.com in a new tab",
        "consent names the registrable domain"
    );
    open.click().await.unwrap();

    let result = page.result_containing("seed", "ua", "\"reply\"").await;
    let seen = json_in(&result);
    assert_eq!(seen["reply"], json!({"result": {}}), "{result}");
    assert_eq!(seen["notify"]["id"], "c8ec9a71-ua", "{result}");
    page.browser
        .wait_js(
            "document.querySelector('[data-link=\"completed\"]') ? true : null",
            WAIT,
        )
        .await
        .unwrap_or_else(|e| panic!("the link was not shown as finished: {e}"));
    let progress = page.browser.js("window.progressSeen").await.unwrap();
    assert_eq!(
        progress,
        json!(["The server says: 50 of 100 (50%) — Reticulating splines..."]),
        "the server's progress on the waiting record"
    );
    page.artifact("seed-000-ua-finished").await;
    page.close().await;
}

/// The demo's `newsletter_sign_up` on the 2025 era (`demo-2025`) from a host that declares the
/// User Interaction draft: the form comes through `interaction/create` (the draft's chip on the
/// card), then the confirmation on the server's own page through a `ua` link (the draft's chip
/// again); once confirmed there, the call ends saying it asked through `interaction/create`.
/// The same tool on the 2026-07-28 era (`demo`) asks through elicitation: no draft chip.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demos_newsletter_sign_up_asks_through_the_draft_on_2025() {
    let (page, _origin) = harness_with_flows_declaring(
        interlude_engine::Declared::default().with_user_interaction(),
        |base| async move {
            interlude_server::url::OAuthProvider::new(
                "cloud",
                "Example Cloud",
                format!("{base}/unused/authorize"),
                format!("{base}/unused/token"),
                interlude_demo::flows::CLOUD_CLIENT_ID,
            )
        },
    )
    .await;
    page.call_from_sidebar("demo-2025", "newsletter_sign_up")
        .await;
    let (card, form_id) = page.focused_card("demo-2025", None).await;
    let chip = card
        .find(Locator::Css(".ask-head .chip.draft"))
        .await
        .unwrap_or_else(|e| panic!("the form did not come through the draft: {e}"));
    assert_eq!(chip.text().await.unwrap(), "interaction/create · draft");
    page.type_keys("Ada Lovelace").await;
    page.field("email")
        .await
        .send_keys("ada@example.org")
        .await
        .unwrap();
    page.press("Accept").await;

    // The confirmation: a ua link to the demo's own page.
    let (card, _) = page.focused_card("demo-2025", Some(&form_id)).await;
    let chip = card
        .find(Locator::Css(".ask-head .chip.draft"))
        .await
        .unwrap_or_else(|e| panic!("the link did not come through the draft: {e}"));
    assert_eq!(
        chip.text().await.unwrap(),
        "interaction/create · ua · draft"
    );
    card.find(Locator::Css("button.primary"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let home = page.switch_to_new_window().await;
    page.sign_in_on_the_flow_page().await;
    let confirm = page
        .client()
        .wait()
        .at_most(WAIT)
        .for_element(Locator::Css("button[value=confirm]"))
        .await
        .unwrap_or_else(|e| panic!("no Confirm on the server's page: {e}"));
    confirm.click().await.unwrap();
    page.client()
        .wait()
        .at_most(WAIT)
        .for_element(Locator::XPath("//h1[text()='Confirmed']"))
        .await
        .unwrap_or_else(|e| panic!("the server's page did not say Confirmed: {e}"));
    page.client().close_window().await.unwrap();
    page.client().switch_to_window(home).await.unwrap();
    let result = page
        .result_containing("demo-2025", "newsletter_sign_up", "Signed up")
        .await;
    assert!(
        result.contains(
            "Signed up Ada Lovelace <ada@example.org> and confirmed on the server's page"
        ) && result.contains("asked through the User Interaction draft, interaction/create"),
        "{result}"
    );

    // 2026-07-28: the toolkit asks through elicitation, and the card says nothing of the draft.
    page.call_from_sidebar("demo", "newsletter_sign_up").await;
    let (card, _) = page.focused_card("demo", None).await;
    assert!(
        card.find(Locator::Css(".chip.draft")).await.is_err(),
        "a draft chip on an elicitation"
    );
    page.press("Decline").await;
    let result = page
        .result_containing("demo", "newsletter_sign_up", "You declined")
        .await;
    assert!(result.contains("asked through elicitation"), "{result}");
    page.close().await;
}

// ---------------------------------------------------------------------------------------------
// Kinds: the page draws each kind of request from one table (`kinds.js`).

/// Each kind the host sends has a renderer in the page's table, and a kind the page has none for
/// is an error it shows (in words, as an alert), not a blank. That every kind the host can send
/// has a row is the crate's unit test (`kinds_covered.rs`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_kind_of_request_is_an_error_the_page_shows() {
    let page = harness().await;
    page.browser
        .js("(window.kindsSeen = null, import('/assets/kinds.js').then((m) => { \
               const known = ['form', 'url', 'app-form'].map((k) => typeof m.rendererOf({ kind: k }).ask); \
               let error = null; \
               try { m.rendererOf({ id: 99, kind: 'sampling', server: 'demo' }); } catch (e) { \
                 error = e.message; \
                 document.body.append(m.unrenderable({ id: 99, kind: 'sampling', server: 'demo' }, e)); \
               } \
               window.kindsSeen = { known, error }; \
             }), true)")
        .await
        .unwrap();
    let seen = page
        .browser
        .wait_js("window.kindsSeen", WAIT)
        .await
        .unwrap();
    assert_eq!(seen["known"], json!(["function", "function", "function"]));
    assert_eq!(
        seen["error"],
        json!("This page cannot show a request of kind \"sampling\" from demo.")
    );
    let shown = page
        .browser
        .wait_js(
            "document.querySelector('.request-record.unrenderable[role=alert]')?.textContent",
            WAIT,
        )
        .await
        .unwrap();
    assert_eq!(
        shown,
        json!(
            "Cannot show this request. This page cannot show a request of kind \"sampling\" from demo."
        )
    );
    page.close().await;
}
