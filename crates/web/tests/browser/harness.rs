//! What every browser test stands on: a `WebApp` on 127.0.0.1 connected to its servers, a
//! headless Chromium on its page ([`Page`]), and the few things a person does there — pick a
//! tool, wait for the card that asks, fill it, press its buttons, read the call's result, step
//! into an app's view and back. Everything a test waits for here is a state of the page or of
//! the host's record, polled until [`WAIT`] runs out (never a fixed sleep).

use std::future::Future;
use std::path::PathBuf;
use std::time::Duration;

use interlude_host::{ProtocolChoice, ServerSpec};
use interlude_test_support::fantoccini::elements::Element;
use interlude_test_support::fantoccini::wd::WindowHandle;
use interlude_test_support::fantoccini::{Client, Locator};
use interlude_test_support::{Browser, NpmPeers};
use interlude_web::{WebApp, WebOptions};
use rmcp::model::ProtocolVersion;
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

/// How long any one thing may take to appear: generous, for a machine whose two cores are
/// shared with builds and other tests. Only a failing test ever waits this long.
pub(crate) const WAIT: Duration = Duration::from_secs(30);

/// How long a test gives something that must not happen (a call the page refused, progress
/// after a cancel) to show before it says it did not. A correct page passes however short this
/// is: it bounds what a regression may take to be seen, never what a pass waits for.
pub(crate) const ABSENCE: Duration = Duration::from_millis(500);

/// One server to connect: name, spec, protocol override.
pub(crate) type Extra = (&'static str, ServerSpec, Option<ProtocolChoice>);

/// The 2025-11-25 protocol, pinned (the push era).
pub(crate) fn pin_2025() -> ProtocolChoice {
    ProtocolChoice::Pin(ProtocolVersion::V_2025_11_25)
}

/// A `WebApp` with servers connected, and a browser on its page.
pub(crate) struct Page {
    pub(crate) browser: Browser,
    pub(crate) app: WebApp,
    pub(crate) url: String,
    /// The proxy frame of the app view the session last entered ([`Page::enter_view`]).
    view_frame: std::sync::Mutex<Option<Element>>,
    _servers: StopOnDrop,
}

/// Stops the servers (page, demo) when the test ends, passed or not.
struct StopOnDrop(CancellationToken);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

/// Serves the demo in-process over streamable HTTP on `listener` and returns its `/mcp` URL.
pub(crate) fn serve_demo_on(listener: TcpListener, shutdown: &CancellationToken) -> String {
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

/// The demo at `url` connected twice: `demo` (2026-07-28 by default negotiation) and
/// `demo-2025` (pinned 2025-11-25).
fn demo_twice(url: &str) -> Vec<Extra> {
    vec![
        ("demo", ServerSpec::parse(url).unwrap(), None),
        (
            "demo-2025",
            ServerSpec::parse(url).unwrap(),
            Some(pin_2025()),
        ),
    ]
}

/// The page with `demo` (2026-07-28 by default negotiation) and `demo-2025` (pinned
/// 2025-11-25), both the in-process demo over HTTP.
pub(crate) async fn harness() -> Page {
    harness_with(Vec::new()).await
}

/// [`harness`] plus `extra` servers. The browser starts while the servers connect.
pub(crate) async fn harness_with(extra: Vec<Extra>) -> Page {
    harness_configured(WebOptions::default(), extra).await
}

/// [`harness_with`], the web surface started with `options`.
pub(crate) async fn harness_configured(options: WebOptions, extra: Vec<Extra>) -> Page {
    let shutdown = CancellationToken::new();
    let demo = {
        let shutdown = shutdown.clone();
        async move {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let mut servers = demo_twice(&serve_demo_on(listener, &shutdown));
            servers.extend(extra);
            servers
        }
    };
    start(options, shutdown, demo).await
}

/// A `WebApp` started with `options`, connected to what `servers` yields (in order) and served
/// until `shutdown`; a browser (started meanwhile) on its page, live. Its Export session is the
/// CLI's (`interlude_headless::recording::export`) unless `options` name another.
pub(crate) async fn start(
    options: WebOptions,
    shutdown: CancellationToken,
    servers: impl Future<Output = Vec<Extra>>,
) -> Page {
    let options = WebOptions {
        export: options
            .export
            .or(Some(interlude_headless::recording::export)),
        ..options
    };
    let app = async {
        let servers = servers.await;
        let app = WebApp::start(options);
        for (name, spec, protocol) in servers {
            app.add_server(name, spec, protocol).await;
        }
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = app.url(listener.local_addr().unwrap());
        tokio::spawn(app.clone().serve(listener, shutdown.child_token()));
        (app, url)
    };
    let (browser, (app, url)) = tokio::join!(Browser::start(), app);
    let page = Page {
        browser: browser.unwrap_or_else(|e| panic!("{e}")),
        app,
        url,
        view_frame: std::sync::Mutex::new(None),
        _servers: StopOnDrop(shutdown),
    };
    page.open().await;
    page
}

/// The demo over HTTP with its URL flows (pages and sign-in on the demo's origin), and a page
/// whose host allows exactly that origin in plain http (the development setting).
pub(crate) async fn harness_with_flows() -> (Page, String) {
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
pub(crate) async fn harness_with_flows_and<F, Fut>(provider: F) -> (Page, String)
where
    F: FnOnce(String) -> Fut,
    Fut: Future<Output = interlude_server::url::OAuthProvider>,
{
    harness_with_flows_declaring(interlude_engine::Declared::default(), provider).await
}

/// [`harness_with_flows_and`], the host declaring `declare` to the servers.
pub(crate) async fn harness_with_flows_declaring<F, Fut>(
    declare: interlude_engine::Declared,
    provider: F,
) -> (Page, String)
where
    F: FnOnce(String) -> Fut,
    Fut: Future<Output = interlude_server::url::OAuthProvider>,
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
    let options = WebOptions {
        host,
        export: Some(interlude_headless::recording::export),
        ..WebOptions::default()
    };
    let page = start(options, shutdown, async move { demo_twice(&demo) }).await;
    (page, origin)
}

/// The published server-everything's entry point below the npm peers.
pub(crate) const SERVER_EVERYTHING: &str = "@modelcontextprotocol/server-everything/dist/index.js";

/// The published server-everything over stdio.
pub(crate) fn server_everything(peers: &NpmPeers) -> ServerSpec {
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

/// A published example app server (npm peer `file`) over stdio, with `extra` arguments.
pub(crate) fn npm_app(peers: &NpmPeers, file: &str, extra: &[String]) -> ServerSpec {
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

/// A JavaScript string literal.
pub(crate) fn js(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

/// An XPath string literal (the values here never hold both quote kinds).
pub(crate) fn xpath_str(s: &str) -> String {
    if s.contains('\'') {
        format!("\"{s}\"")
    } else {
        format!("'{s}'")
    }
}

/// The selector of the call card for `tool` on `server` in the timeline.
pub(crate) fn call_selector(server: &str, tool: &str) -> String {
    format!("article.call[aria-label=\"Call {tool} on {server}\"]")
}

/// Calls `check` until it yields a value; fails naming `what` after `timeout`. For states of
/// the host's record (or of files a server writes), which the page does not show.
pub(crate) async fn eventually<T>(
    what: &str,
    timeout: Duration,
    mut check: impl FnMut() -> Option<T>,
) -> T {
    interlude_test_support::wait_until(what, timeout, &mut check)
        .await
        .unwrap_or_else(|e| panic!("{e}"))
}

impl Page {
    /// Ends the browser session politely (the servers stop when `self` drops).
    pub(crate) async fn close(self) {
        self.browser.close().await;
    }

    pub(crate) fn client(&self) -> &Client {
        self.browser.client()
    }

    /// Loads the page and waits for its live channel and the servers' tools.
    pub(crate) async fn open(&self) {
        self.client().goto(&self.url).await.unwrap();
        self.wait_live().await;
    }

    pub(crate) async fn wait_live(&self) {
        self.until(
            "document.querySelector('#conn.live') && document.querySelector('.tool-btn')",
            "the page never went live",
        )
        .await;
    }

    /// Waits until the JavaScript expression `expr` is truthy and returns its value; fails
    /// saying `what` did not happen.
    pub(crate) async fn until(&self, expr: &str, what: &str) -> Value {
        self.browser
            .wait_js(expr, WAIT)
            .await
            .unwrap_or_else(|e| panic!("{what}: {e}"))
    }

    /// The value of the JavaScript expression `expr`, now.
    pub(crate) async fn js(&self, expr: &str) -> Value {
        self.browser
            .js(expr)
            .await
            .unwrap_or_else(|e| panic!("{expr}: {e}"))
    }

    /// The element matching `css` (in the frame the session is in), now.
    pub(crate) async fn find(&self, css: &str) -> Element {
        self.client()
            .find(Locator::Css(css))
            .await
            .unwrap_or_else(|e| panic!("no {css}: {e}"))
    }

    /// Waits for an element matching `css`; fails saying `what` did not appear.
    pub(crate) async fn wait_for(&self, css: &str, what: &str) -> Element {
        self.browser
            .wait_for(css, WAIT)
            .await
            .unwrap_or_else(|e| panic!("{what}: {e}"))
    }

    /// Waits until nothing matches `css`.
    pub(crate) async fn wait_gone(&self, css: &str) {
        self.browser
            .wait_gone(css, WAIT)
            .await
            .unwrap_or_else(|e| panic!("{css} stayed: {e}"));
    }

    /// Clicks the element matching `css` (in the frame the session is in).
    pub(crate) async fn click(&self, css: &str) {
        self.find(css)
            .await
            .click()
            .await
            .unwrap_or_else(|e| panic!("cannot click {css}: {e}"));
    }

    /// Clicks the element matching `css` once it is there (it may still be being drawn: a pane
    /// just opened), in view and nothing covers it (a sticky bar, an overlay): for what may lie
    /// under the page's chrome.
    pub(crate) async fn click_clear(&self, css: &str) {
        let element = self.wait_for(css, css).await;
        self.click_element(&element, css).await;
    }

    /// Clicks `element` (named `what` in a failure) once it is scrolled into view and is what a
    /// click at its centre would reach: nothing of the page (a sticky bar, an overlay, a frame's
    /// border) covers it.
    pub(crate) async fn click_element(&self, element: &Element, what: &str) {
        if let Err(e) = self.browser.click_when_clear(element, WAIT).await {
            self.artifact("failed-click").await;
            panic!("cannot click {what}: {e}");
        }
    }

    /// The text of the element matching `css`.
    pub(crate) async fn text(&self, css: &str) -> String {
        self.find(css).await.text().await.unwrap()
    }

    /// Opens the tool form of `tool` of `server` (without calling).
    pub(crate) async fn open_composer(&self, server: &str, tool: &str) {
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
        self.until(
            &format!(
                "document.querySelector('#composer h3')?.textContent === {}",
                js(&heading)
            ),
            &format!("the composer did not open for {heading}"),
        )
        .await;
    }

    /// Picks `tool` of `server` in the sidebar, then presses "Call tool" in the composer.
    pub(crate) async fn call_from_sidebar(&self, server: &str, tool: &str) {
        self.open_composer(server, tool).await;
        self.press_call().await;
    }

    /// Presses "Call tool" in the open composer.
    pub(crate) async fn press_call(&self) {
        self.find("#composer button.primary")
            .await
            .click()
            .await
            .unwrap();
    }

    /// Waits until a card is presented and focus is inside it (other than `not`), checks the
    /// server it names, and returns the card and its request id.
    pub(crate) async fn focused_card(&self, server: &str, not: Option<&str>) -> (Element, String) {
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
                    .map(|r| format!("{} {:?}", r.request.id, r.status))
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
            .find(&format!("section.ask[data-request=\"{id}\"]"))
            .await;
        let shown = card.attr("data-server").await.unwrap();
        assert_eq!(
            shown.as_deref(),
            Some(server),
            "the card is for the server that asks"
        );
        (card, id)
    }

    /// Presses the presented card's main button (Open, Accept, "I am done in the browser").
    pub(crate) async fn press_primary(&self, card: &Element) {
        card.find(Locator::Css("button.primary"))
            .await
            .unwrap_or_else(|e| panic!("no main button on the card: {e}"))
            .click()
            .await
            .unwrap();
    }

    /// The input (or select) of field `name` in the presented card.
    pub(crate) async fn field(&self, name: &str) -> Element {
        self.client()
            .find(Locator::Css(&format!(
                "section.ask [data-field=\"{name}\"] input, section.ask [data-field=\"{name}\"] select"
            )))
            .await
            .unwrap_or_else(|e| panic!("no field {name} in the card: {e}"))
    }

    /// The choice with `value` of field `name` (radio or checkbox) in the presented card.
    pub(crate) async fn choice(&self, name: &str, value: &str) -> Element {
        self.client()
            .find(Locator::Css(&format!(
                "section.ask [data-field=\"{name}\"] input[value=\"{value}\"]"
            )))
            .await
            .unwrap_or_else(|e| panic!("no choice {value} of {name} in the card: {e}"))
    }

    /// Clicks the radio button or checkbox `value` of the choice field `name`.
    pub(crate) async fn click_choice(&self, name: &str, value: &str) {
        self.choice(name, value)
            .await
            .click()
            .await
            .unwrap_or_else(|e| panic!("cannot click choice {value} of {name}: {e}"));
    }

    /// Clicks one of the presented card's buttons by its text.
    pub(crate) async fn press(&self, label: &str) {
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
    pub(crate) async fn type_keys(&self, keys: &str) {
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
    pub(crate) async fn result_containing(
        &self,
        server: &str,
        tool: &str,
        expected: &str,
    ) -> String {
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
                let requests: Vec<String> = self
                    .app
                    .host()
                    .snapshot()
                    .requests
                    .iter()
                    .map(|r| format!("{} {:?}", r.request.id, r.status))
                    .collect();
                let page = self
                    .browser
                    .js("[document.activeElement?.outerHTML?.slice(0, 200) ?? null, \
                         Array.from(document.querySelectorAll('section.ask')).map((c) => c.textContent.slice(0, 300))]")
                    .await
                    .ok();
                panic!(
                    "no result of {server} › {tool} containing {expected:?} ({e}); results: {got:?}; \
                     requests: {requests:?}; focus and cards: {page:?}"
                )
            }
        }
    }

    /// The text of the request record (`accept`, `cancel`…) on the call of `tool` on `server`.
    pub(crate) async fn request_record(&self, server: &str, tool: &str, kind: &str) -> String {
        self.text(&format!(
            "{} .request-record.{kind}",
            call_selector(server, tool)
        ))
        .await
    }

    /// A screenshot of the whole window, for a look (or for a failure).
    pub(crate) async fn artifact(&self, name: &str) -> Option<PathBuf> {
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

    /// A screenshot of `element` alone (an element screenshot is clipped to the viewport).
    pub(crate) async fn element_artifact(&self, element: &Element, name: &str) {
        let shot = self
            .browser
            .screenshot_element(element, &format!("browser-{name}"))
            .await
            .unwrap();
        eprintln!("screenshot: {}", shot.display());
    }

    /// Into an app view: its proxy frame `frame`, then the view's frame inside it.
    pub(crate) async fn enter_view(&self, frame: Element) {
        *self.view_frame.lock().unwrap() = Some(frame.clone());
        self.browser
            .enter_app_view(frame, WAIT)
            .await
            .unwrap_or_else(|e| panic!("the proxy holds no view frame: {e}"));
    }

    /// Into the view framed by the first element matching `frame_css`, once there is one.
    pub(crate) async fn enter_view_at(&self, frame_css: &str) {
        let frame = self
            .wait_for(frame_css, &format!("no app frame {frame_css}"))
            .await;
        self.enter_view(frame).await;
    }

    /// Clicks the element `css` of the app view the session is in, once a click reaches it:
    /// scrolled into the view's sight, uncovered there, and nothing moving — no transition in
    /// the view, its proxy or the page (the page animates a view's frame as it changes size or
    /// display mode) and the same boxes (the element's, the frames') on two polls in a row.
    /// WebDriver aims a click where the element was when it scrolled to it: while a frame
    /// still resizes, that point may no longer be over the frame ("element click intercepted").
    pub(crate) async fn click_in_view(&self, css: &str) {
        let element = self.find(css).await;
        let frame = self.view_frame.lock().unwrap().clone();
        let frame = frame.unwrap_or_else(|| panic!("click_in_view({css}) outside a view"));
        let deadline = std::time::Instant::now() + WAIT;
        let mut previous = Value::Null;
        loop {
            let inner = self
                .browser
                .click_state(&element)
                .await
                .unwrap_or_else(|e| panic!("cannot find where {css} is: {e}"));
            self.client().enter_parent_frame().await.unwrap();
            let proxy = self.js(FRAMES_STATE_JS).await;
            self.client().enter_parent_frame().await.unwrap();
            let page = self.js(FRAMES_STATE_JS).await;
            self.enter_view(frame.clone()).await;
            let state = json!({
                "box": [&inner["box"], &proxy["frames"], &page["frames"]],
                "clear": inner["clear"],
                "settled": inner["settled"] == true
                    && proxy["settled"] == true
                    && page["settled"] == true,
            });
            if interlude_test_support::clickable(&state, &previous) {
                break;
            }
            if std::time::Instant::now() >= deadline {
                self.artifact("failed-click-in-view").await;
                panic!("{css} in the view never came to rest uncovered: {inner} {proxy} {page}");
            }
            previous = state;
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        element
            .click()
            .await
            .unwrap_or_else(|e| panic!("cannot click {css} in the view: {e}"));
    }

    /// Out of an app view (the view's frame, then its proxy) back to the page.
    pub(crate) async fn leave_view(&self) {
        self.client().enter_parent_frame().await.unwrap();
        self.client().enter_parent_frame().await.unwrap();
    }

    /// Connects `server`, served in this process over an in-memory pipe, as `name` (pinned to
    /// 2025-11-25).
    pub(crate) async fn connect_in_process<S>(&self, name: &str, server: S)
    where
        S: rmcp::ServerHandler + Send + 'static,
    {
        use rmcp::ServiceExt;
        let (host_end, server_end) = tokio::io::duplex(1024 * 1024);
        tokio::spawn(async move {
            if let Ok(running) = server.serve(server_end).await {
                let _ = running.waiting().await;
            }
        });
        self.app
            .host()
            .connect_transport(name, host_end, pin_2025())
            .await
            .unwrap_or_else(|e| panic!("cannot connect {name}: {e}"));
    }

    /// The host's id of the server connected as `name`.
    pub(crate) fn server_id(&self, name: &str) -> interlude_host::ServerId {
        self.app.host().connection_named(name).unwrap().id()
    }

    /// Waits until the protocol log of `server` holds a message `pick` accepts; returns the
    /// first one.
    pub(crate) async fn logged(
        &self,
        server: interlude_host::ServerId,
        what: &str,
        pick: impl Fn(&interlude_host::LoggedMessage) -> bool,
    ) -> std::sync::Arc<interlude_host::LoggedMessage> {
        eventually(what, WAIT, || {
            self.app
                .host()
                .protocol_log(server)
                .into_iter()
                .find(|m| pick(m))
        })
        .await
    }

    /// How many calls of `tool` are running, in the host's record.
    pub(crate) fn running(&self, tool: &str) -> usize {
        self.app
            .host()
            .snapshot()
            .calls
            .iter()
            .filter(|c| c.tool == tool && c.status == interlude_host::CallStatus::Running)
            .count()
    }

    /// Waits until call `call` has a view that went live; returns the view's id.
    pub(crate) async fn live_view_of(&self, call: u64, timeout: Duration) -> u64 {
        eventually(&format!("call {call}'s view to go live"), timeout, || {
            self.app
                .host()
                .snapshot()
                .views
                .iter()
                .find(|v| v.call.map(|c| c.0) == Some(call) && v.live_at_ms.is_some())
                .map(|v| v.id.0)
        })
        .await
    }

    /// Waits for a second window (the link the page opened), switches to it, and returns the
    /// page's own window to come back to.
    pub(crate) async fn switch_to_new_window(&self) -> WindowHandle {
        let home = self.client().window().await.unwrap();
        let other =
            interlude_test_support::poll("the link to open in a new tab".into(), WAIT, || {
                let home = home.clone();
                async move {
                    let windows = self.client().windows().await?;
                    Ok(windows.into_iter().find(|w| *w != home))
                }
            })
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        self.client().switch_to_window(other).await.unwrap();
        home
    }

    /// In the flow's tab, not signed in yet: the page says so and links to the server's
    /// sign-in; follow it.
    pub(crate) async fn sign_in_on_the_flow_page(&self) {
        let sign_in = self
            .client()
            .wait()
            .at_most(WAIT)
            .for_element(Locator::Css("main a[href*='/sign-in']"))
            .await
            .unwrap_or_else(|e| panic!("no sign-in link on the flow page: {e}"));
        sign_in.click().await.unwrap();
    }

    /// Waits for the page in this window to be headed `text` (its source in the failure).
    pub(crate) async fn wait_heading(&self, text: &str) {
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
}

/// Whether a CSS transition runs in the document (`settled` when none does), and where its
/// frames are.
const FRAMES_STATE_JS: &str = "({ \
    settled: document.getAnimations().every((a) => !(a instanceof CSSTransition)), \
    frames: Array.from(document.querySelectorAll('iframe')).map((f) => { \
      const r = f.getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; }) })";

/// `json!` of `value` as a JSON object, for a call's arguments.
pub(crate) fn args(value: Value) -> Option<rmcp::model::JsonObject> {
    value.as_object().cloned()
}
