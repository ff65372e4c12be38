use interlude_test_support::NpmPeers;
use interlude_web::WebOptions;
use serde_json::json;

use interlude_server::apps::{AppResource, Apps};
use interlude_server::{Answer, Ask, AskConfig, FormSchema, respond};
use rmcp::ErrorData;
use rmcp::model::{CallToolResult, ContentBlock};

use crate::harness::{Page, WAIT, harness, harness_configured};
use crate::in_process::{self, TestServer};

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
    page.enter_view(frame).await;
    page.until(
        "document.body.dataset.state === 'asked' || null",
        "the view did not get the question",
    )
    .await;
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
            .js("Array.from(document.querySelectorAll('input[name=manager]')).map((i) => i.value)")
            .await;
        assert_eq!(
            managers,
            json!(["m-ava", "m-bruno", "m-chloe"]),
            "the picker comes from the schema"
        );
        if server == "demo" {
            page.leave_view().await;
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
        page.until(
            "Number(document.body.dataset.errors || 0) > 0 || null",
            &format!("the view was not told why ({server})"),
        )
        .await;
        page.leave_view().await;
        let refused = page.until("(() => { const t = document.querySelector('section.ask.question .ask-errors')?.textContent || ''; return t.includes('not sent') ? t : null; })()", "the card does not say the answer was refused").await;
        assert!(
            refused.as_str().unwrap().contains("selectedManagerId"),
            "{refused}"
        );
        let running = page.running("portfolio_review");
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
        page.leave_view().await;
        page.result_containing(
            server,
            "portfolio_review",
            "Portfolio reassigned to m-chloe.",
        )
        .await;
        page.until(
            "document.querySelector('section.ask.question') === null || null",
            "the question card stayed",
        )
        .await;
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
    page.leave_view().await;
    page.click_clear("section.ask.question button.question-cancel")
        .await;
    page.result_containing(
        "demo-2025",
        "portfolio_review",
        "The user cancelled the portfolio review.",
    )
    .await;

    page.call_from_sidebar("demo", "portfolio_review").await;
    enter_question_view(&page).await;
    // The view's answer is refused first (outside the schema)…
    page.client()
        .execute(
            "window.parent.postMessage({jsonrpc: '2.0', id: JSON.parse(document.body.dataset.request), \
             result: {action: 'accept', content: {confirmed: 'yes', selectedManagerId: 'm-zed'}}}, '*'); return true;",
            vec![],
        )
        .await
        .unwrap();
    page.leave_view().await;
    page.until("(document.querySelector('section.ask.question .ask-errors')?.textContent || '').includes('not sent') || null", "the card does not say the view's answer was refused").await;
    page.click_clear("section.ask.question button.question-plain")
        .await;
    page.until("(() => { const n = document.querySelector('section.ask .fallback-note'); return n && !document.querySelector('section.ask.question') ? n.textContent : null; })()", "the plain form did not replace the view").await;
    // …and the fresh form does not carry that complaint: the person typed nothing yet.
    let shown = page
        .js("Array.from(document.querySelectorAll('section.ask .ask-errors, section.ask .field-error')).map((e) => e.textContent).join(' ')")
        .await;
    assert_eq!(
        shown.as_str().unwrap_or_default().trim(),
        "",
        "the view's refused answer shows on the fresh form"
    );
    page.click_choice("selectedManagerId", "m-ava").await;
    page.field("confirmed").await.click().await.unwrap();
    page.press("Accept").await;
    page.result_containing("demo", "portfolio_review", "Portfolio reassigned to m-ava.")
        .await;
    page.close().await;
}

/// The view of the question asked in a view, built on the published MCP Apps SDK (ext-apps,
/// pinned npm peer) with the toolkit's view-side helper
/// (`interlude_server::apps::ELICITATION_HELPER_JS`).
const VIEW: &str = "ui://sdk/question";

/// The view: the SDK bundle and the helper, each loaded as a module from a `blob:` URL (the
/// way a bundler's output would arrive), then `new App(…, ELICITATION_CAPABILITIES)`,
/// `handleElicitations`, `connect()`.
fn sdk_view(sdk: &str) -> String {
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

/// A toolkit server in this process whose `pick_colour` asks for a colour with
/// `form_with_schema_in_view`, in a view whose HTML is `view`.
fn colour_question(view: String) -> TestServer {
    let tool = in_process::tool(
        "pick_colour",
        "Asks for a colour in the SDK-built view.",
        json!({"type": "object"}),
    );
    let config = AskConfig::new();
    TestServer::new(vec![tool], move |request, context| {
        let ask = Ask::new(&config, &request, context);
        async move {
            let schema = FormSchema::parse(&json!({
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
    })
    .with_question_views(Apps::new().with(AppResource::new(VIEW, view).unwrap()))
}

/// The toolkit's view-side helper works with the published MCP Apps SDK: the view declares the
/// capability through `new App`, gets the forwarded question through `setRequestHandler`, and
/// its answer reaches the server's tool.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_view_built_on_the_apps_sdk_answers_with_the_toolkits_helper() {
    const SDK: &str = "@modelcontextprotocol/ext-apps/dist/src/app-with-deps.js";
    let Some(peers) = NpmPeers::locate(&[SDK]) else {
        return;
    };
    let sdk = std::fs::read_to_string(peers.package_file(SDK)).unwrap();
    let page = harness().await;
    page.connect_in_process("sdk", colour_question(sdk_view(&sdk)))
        .await;
    page.call_from_sidebar("sdk", "pick_colour").await;
    page.enter_view_at("section.ask.question iframe.app-frame[src]")
        .await;
    let state = page.until("['asked', 'failed'].includes(document.body.dataset.state) ? [document.body.dataset.state, document.body.dataset.error || ''] : null", "the SDK view did not get the question").await;
    assert_eq!(state[0], "asked", "{state}");
    assert_eq!(
        page.js("document.getElementById('message').textContent")
            .await,
        json!("Which colour?")
    );
    page.click_in_view("button[data-value=green]").await;
    page.leave_view().await;
    page.result_containing("sdk", "pick_colour", "picked \"green\"")
        .await;

    // Asked again, then cancelled from the host's chrome: the server hears `cancel`, and the
    // helper's `onHostCancelled` tells the view (which says so in a log line to the host).
    page.call_from_sidebar("sdk", "pick_colour").await;
    page.enter_view_at("section.ask.question iframe.app-frame[src]")
        .await;
    page.until(
        "document.body.dataset.state === 'asked' || null",
        "the SDK view did not get the second question",
    )
    .await;
    page.leave_view().await;
    page.click_clear("section.ask.question button.question-cancel")
        .await;
    page.result_containing("sdk", "pick_colour", "cancelled")
        .await;
    page.logged(page.server_id("sdk"), "onHostCancelled did not fire", |m| {
        m.message.to_string().contains("withdrawn by the host")
    })
    .await;
    page.close().await;
}

/// A question's view that never starts (its document runs no handshake) gives way to the plain
/// form once it has been loading for `app_start_ms`, the card saying why; the server still waits
/// (never a silent decline), and the plain form's answer is the one it gets.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_question_view_that_never_starts_gives_way_to_the_plain_form() {
    let mut options = WebOptions::default();
    options.host.engine.app_start_ms = 1_500;
    let page = harness_configured(options, Vec::new()).await;
    let server = colour_question(
        "<!doctype html><html lang=\"en\"><body><p>This view never starts.</p></body></html>"
            .into(),
    );
    page.connect_in_process("silent", server).await;
    // The frame lives only until the plain form replaces it: the page notes that it was there.
    page.js(
        "(() => { window.__framed = false; new MutationObserver(() => { \
         if (document.querySelector('section.ask.question iframe.app-frame[src]')) window.__framed = true; \
         }).observe(document.body, { childList: true, subtree: true, attributes: true }); return true; })()",
    )
    .await;
    page.call_from_sidebar("silent", "pick_colour").await;
    page.until(
        "window.__framed || null",
        "the question's view was not framed",
    )
    .await;
    let note = page.until("(() => { const n = document.querySelector('section.ask .fallback-note'); return n && !document.querySelector('section.ask.question') ? n.textContent : null; })()", "the plain form did not replace the silent view").await;
    assert!(
        note.as_str().unwrap_or_default().contains("did not start"),
        "{note}"
    );
    assert_eq!(
        page.running("pick_colour"),
        1,
        "the server still waits for an answer"
    );
    page.click_choice("colour", "blue").await;
    page.press("Accept").await;
    page.result_containing("silent", "pick_colour", "picked \"blue\"")
        .await;
    page.close().await;
}
