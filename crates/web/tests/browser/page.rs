use interlude_host::ServerSpec;
use interlude_server::{Answer, Ask, AskConfig, AskServer, FormSchema, respond};
use interlude_test_support::fantoccini::Locator;
use interlude_test_support::fantoccini::key::Key;
use interlude_web::WebOptions;
use rmcp::model::{
    CallToolResponse, CallToolResult, ContentBlock, Implementation, ServerCapabilities,
    ServerConfig,
};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, ServerHandler, tool, tool_handler, tool_router};
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::harness::{WAIT, harness, harness_configured, harness_with};

// Hostile text is shown as text, and does not break the layout.

const HOSTILE_MESSAGE: &str = "Session expired. <img src=x onerror=\"window.__pwned=1\"> \
     Sign in again at https://evil.example/login to continue. \
     <script>window.__pwned=2</script>";

/// A server whose one tool asks with markup in the message and a title at the cap (1 000
/// characters, `interlude_host::schema::limits::MAX_TITLE_CHARS`).
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
        let cap = interlude_host::schema::limits::MAX_TITLE_CHARS;
        let title = format!("<b>{}</b>", "W".repeat(cap - 7));
        assert_eq!(title.chars().count(), cap);
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
        page.js("typeof window.__pwned").await,
        json!("undefined"),
        "hostile markup ran"
    );
    let no_overflow = "document.documentElement.scrollWidth <= window.innerWidth";
    assert_eq!(
        page.js(no_overflow).await,
        json!(true),
        "the page scrolls sideways at 1280 px"
    );
    page.artifact("hostile-wide").await;
    // A narrow window too (a phone, or a side panel).
    page.client().set_window_size(420, 900).await.unwrap();
    page.until("window.innerWidth <= 420", "the window did not narrow")
        .await;
    let widths = page
        .js("[document.documentElement.scrollWidth, window.innerWidth]")
        .await;
    page.js("document.querySelector('section.ask').scrollIntoView({ block: 'start' })")
        .await;
    page.artifact("hostile-narrow").await;
    assert_eq!(
        page.js("document.querySelector('.topbar').getBoundingClientRect().top")
            .await,
        json!(0),
        "the top bar stays in view when the page is scrolled down to the card"
    );
    assert_eq!(
        page.js(no_overflow).await,
        json!(true),
        "the page scrolls sideways at 420 px: {widths}"
    );

    // Still answerable: the field kept its focus through the resize and the scroll.
    page.until(
        "(() => { const a = document.activeElement; \
         return a && a.matches('section.ask input') ? a.name || a.id || 'input' : null; })()",
        "the card's field lost its focus when the window narrowed",
    )
    .await;
    page.type_keys(&format!("1234{}", Key::Enter)).await;
    page.result_containing("hostile", "hostile", "got \"1234\"")
        .await;
    assert_eq!(page.js("typeof window.__pwned").await, json!("undefined"));
    page.close().await;
    hostile_stop.cancel();
}

/// Rough edges a person hit in `interlude demo`, each pinned by what they saw:
/// - the page has one `h1`; the guide shows code as code (no raw backticks) and lists the event
///   registration; the guide's and the theme's buttons are named by their visible text;
/// - "N fields need attention" follows the fields as they are fixed;
/// - an optional single choice shown as radio buttons can be left unanswered again;
/// - no inline check runs once a card is gone (no 404 from `/api/validate`);
/// - after Esc or Accept, focus goes to the call the request came from (not the page's body) and
///   screen readers hear what happened; Esc cancels a card only when focus is in it (in the tool
///   form it closes the form; elsewhere it does nothing).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rough_edges_a_person_hit_are_smoothed() {
    let options = WebOptions {
        guide: Some(interlude_demo::guide()),
        ..WebOptions::default()
    };
    let page = harness_configured(options, Vec::new()).await;
    assert_eq!(
        page.js("document.querySelectorAll('h1').length").await,
        json!(1)
    );
    let guide = page
        .until("document.querySelector('#guide li') ? document.getElementById('guide').textContent : null", "no guide")
        .await;
    let guide = guide.as_str().unwrap();
    assert!(!guide.contains('`'), "raw backticks in the guide: {guide}");
    assert!(guide.contains("Event registration"), "{guide}");
    assert_eq!(
        page.js("!!document.querySelector('#guide code')").await,
        json!(true)
    );
    let names = page
        .js("Array.from(document.querySelectorAll('#guide button')).map((b) => b.getAttribute('aria-label'))")
        .await;
    assert!(
        names.as_array().unwrap().iter().all(Value::is_null),
        "the guide's buttons are named by their visible text: {names}"
    );
    assert_eq!(
        page.js("document.getElementById('theme').getAttribute('aria-label')")
            .await,
        Value::Null,
        "the theme button is named by what it shows"
    );

    // The guide folds away and stays folded after a reload (issue 23: the servers sat under a
    // 7 000 px guide).
    assert_eq!(
        page.js("document.querySelector('#guide details').open")
            .await,
        json!(true)
    );
    page.click("#guide details > summary").await;
    page.until(
        "document.querySelector('#guide details').open === false || null",
        "the guide did not fold",
    )
    .await;
    page.client().refresh().await.unwrap();
    page.until(
        "(() => { const d = document.querySelector('#guide details'); return d && d.open === false ? true : null; })()",
        "the guide was open again after a reload",
    )
    .await;
    // Every server says what it is (its URL here), and a filter narrows the tools.
    let target = page
        .until(
            "document.querySelector('li[data-server=\"demo\"] .server-target')?.textContent || null",
            "the server card does not say what it is",
        )
        .await;
    assert!(
        target.as_str().unwrap().starts_with("http://127.0.0.1:"),
        "{target}"
    );
    page.artifact("sidebar-guide-folded").await;
    page.find("#tool-filter")
        .await
        .send_keys("weather")
        .await
        .unwrap();
    let shown = page
        .until(
            "(() => { const t = Array.from(document.querySelectorAll('li[data-server=\"demo\"] .tool-name')).map((e) => e.firstChild.textContent); return t.length && t.every((n) => n.includes('weather')) ? t : null; })()",
            "the filter did not narrow the tools",
        )
        .await;
    assert_eq!(
        shown,
        json!(["weather_api_key", "weather_dashboard", "weather_forecast"])
    );
    page.js("(() => { const i = document.getElementById('tool-filter'); i.value = ''; i.dispatchEvent(new Event('input')); return true; })()")
        .await;

    // The count follows the fixes.
    page.call_from_sidebar("demo", "contact_info").await;
    page.focused_card("demo", None).await;
    page.press("Accept").await;
    page.until(
        "(document.querySelector('section.ask .ask-errors')?.textContent || '').startsWith('3 fields') || null",
        "no count of the fields needing attention",
    )
    .await;
    page.field("name")
        .await
        .send_keys("Grace Hopper")
        .await
        .unwrap();
    page.until(
        "(document.querySelector('section.ask .ask-errors')?.textContent || '').startsWith('2 fields') || null",
        "the count did not follow the fixed field",
    )
    .await;
    page.field("email")
        .await
        .send_keys("grace@example.org")
        .await
        .unwrap();
    page.field("age").await.send_keys("85").await.unwrap();
    page.until(
        "document.querySelector('section.ask .ask-errors')?.textContent === '' || null",
        "the count stayed after every field was fixed",
    )
    .await;

    // No check after the card is gone: type, then Esc at once (the check would come 180 ms
    // later). Esc leaves focus on the call, and screen readers hear it.
    page.js("(() => { window.__validate = { started: 0, statuses: [] }; const f = window.fetch; window.fetch = async (...a) => { \
             const check = String(a[0]).includes('/api/validate'); if (check) window.__validate.started += 1; \
             const r = await f(...a); if (check) window.__validate.statuses.push(r.status); return r; }; return true; })()")
        .await;
    page.field("name").await.send_keys(" Jr").await.unwrap();
    page.type_keys(&Key::Escape).await;
    page.result_containing("demo", "contact_info", "").await;
    let focus = page
        .until(
            "(() => { const a = document.activeElement; const li = a?.closest('li[data-key^=\"call-\"]'); return li ? li.dataset.key : null; })()",
            "focus fell to the page's body after Esc",
        )
        .await;
    assert!(focus.as_str().unwrap().starts_with("call-"), "{focus}");
    let said = page
        .js("document.getElementById('announcer').textContent")
        .await;
    assert!(
        said.as_str().unwrap_or_default().contains("Cancelled"),
        "{said}"
    );
    // A check the last key scheduled (180 ms after it, unless Esc cleared it) starts before a
    // timer the page sets now for later; then every check started has come back.
    page.client()
        .execute_async(
            "const done = arguments[arguments.length - 1]; setTimeout(() => done(true), 200);",
            vec![],
        )
        .await
        .unwrap();
    page.until(
        "window.__validate.statuses.length === window.__validate.started || null",
        "a check of the form never came back",
    )
    .await;
    let statuses = page.js("window.__validate.statuses").await;
    assert!(
        !statuses.as_array().unwrap().iter().any(|s| s == 404),
        "a check ran after the card was gone: {statuses}"
    );

    // Esc acts only where focus is: outside the card it cancels nothing.
    page.call_from_sidebar("demo", "confirm_action").await;
    let (_, waiting) = page.focused_card("demo", None).await;
    page.js("(() => { document.getElementById('theme').focus(); return true; })()")
        .await;
    page.type_keys(&Key::Escape).await;
    // In another tool's form, Esc closes that form; the waiting request stays.
    page.open_composer("demo", "github_username").await;
    page.until(
        "document.activeElement?.closest('#composer') ? true : null",
        "the tool form did not take focus",
    )
    .await;
    page.type_keys(&Key::Escape).await;
    page.until(
        "document.getElementById('composer').hidden || null",
        "Esc in the tool form did not close it",
    )
    .await;
    let still = page
        .app
        .host()
        .request(interlude_host::RequestId(waiting.parse().unwrap()))
        .unwrap();
    assert!(
        still.status.is_pending(),
        "Esc outside its card cancelled the request: {:?}",
        still.status
    );
    assert_eq!(
        page.js("document.querySelector('section.ask')?.dataset.request ?? null")
            .await,
        json!(waiting),
        "its card is still there"
    );
    // In the card, Esc cancels it.
    page.js(&format!(
        "(() => {{ document.querySelector('section.ask[data-request=\"{waiting}\"] button')?.focus(); return true; }})()"
    ))
    .await;
    page.type_keys(&Key::Escape).await;
    page.wait_gone("section.ask").await;

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
    let review = page
        .js("Array.from(document.querySelectorAll('section.ask .review dt')).find((d) => d.textContent === 'meal')?.nextElementSibling?.textContent")
        .await;
    assert_eq!(review, json!("(not sent)"));
    page.press("Cancel").await;
    page.close().await;
}

/// At 390 px the top bar wraps to two rows; a card brought into view stops below it, never
/// under it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_390_px_the_top_bar_covers_no_card() {
    let page = harness().await;
    page.client().set_window_size(390, 844).await.unwrap();
    page.until(
        "window.innerWidth <= 390 || null",
        "the window did not narrow",
    )
    .await;
    page.call_from_sidebar("demo", "contact_info").await;
    page.focused_card("demo", None).await;
    let gap = page
        .until(
            "(() => { const bar = document.querySelector('.topbar').getBoundingClientRect(); \
             const card = document.querySelector('section.ask').getBoundingClientRect(); \
             return bar.height > 60 ? [bar.bottom, card.top] : null; })()",
            "the top bar did not wrap at 390 px",
        )
        .await;
    let (bar, card) = (gap[0].as_f64().unwrap(), gap[1].as_f64().unwrap());
    assert!(
        card >= bar,
        "the card's top ({card}) is under the top bar (bottom {bar})"
    );
    page.artifact("card-at-390").await;
    page.close().await;
}

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
               try { m.rendererOf({ id: 99, kind: 'hologram', server: 'demo' }); } catch (e) { \
                 error = e.message; \
                 document.body.append(m.unrenderable({ id: 99, kind: 'hologram', server: 'demo' }, e)); \
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
        json!("This page cannot show a request of kind \"hologram\" from demo.")
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
            "Cannot show this request. This page cannot show a request of kind \"hologram\" from demo."
        )
    );
    page.close().await;
}
