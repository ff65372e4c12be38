//! MCP-UI as its servers send it: UI resources embedded in tool results, from a server written
//! with the published `@mcp-ui/server` 6.1.0 on the TypeScript SDK (npm peers, over stdio;
//! `tests/test_data/mcp_ui_server.mjs`), rendered in Chromium and spoken to in MCP-UI's
//! `postMessage` protocol.

use std::collections::BTreeMap;

use interlude_host::ServerSpec;
use interlude_test_support::NpmPeers;
use interlude_test_support::fantoccini::Locator;
use interlude_web::WebOptions;
use serde_json::json;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::harness::{ABSENCE, Page, WAIT, args, eventually, harness_configured, harness_with};

const FILES: [&str; 2] = [
    "@mcp-ui/server/dist/index.mjs",
    "@modelcontextprotocol/sdk/dist/esm/server/index.js",
];

/// The MCP-UI server over stdio.
fn classic_server(peers: &NpmPeers) -> ServerSpec {
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/test_data/mcp_ui_server.mjs");
    ServerSpec::Stdio {
        command: peers.node.to_string_lossy().into_owned(),
        args: vec![script.to_string_lossy().into_owned()],
        env: BTreeMap::from([(
            "INTERLUDE_NPM_PEERS".to_owned(),
            peers.npm.to_string_lossy().into_owned(),
        )]),
    }
}

/// What the view shows in `#log` once it holds `needle` (the page must be in the view).
async fn log_with(page: &Page, needle: &str) -> String {
    let expr = format!(
        "(() => {{ const t = document.getElementById('log')?.textContent || ''; return t.includes({}) ? t : null; }})()",
        serde_json::to_string(needle).unwrap()
    );
    page.until(&expr, &format!("the view never heard {needle}"))
        .await
        .as_str()
        .unwrap()
        .to_owned()
}

/// The messages the view heard, one JSON value per line of its `#log`.
fn heard(log: &str) -> Vec<serde_json::Value> {
    log.lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// The `ui-message-response` the view heard for `message_id`.
fn response_to(log: &str, message_id: &str) -> serde_json::Value {
    heard(log)
        .into_iter()
        .find(|m| m["type"] == "ui-message-response" && m["messageId"] == message_id)
        .unwrap_or_else(|| panic!("no response to {message_id} in {log}"))
}

/// A rawHtml resource from `@mcp-ui/server` renders beside its call on a sandbox origin of its
/// server's own (the result does not show its HTML as text), and its buttons speak MCP-UI's
/// protocol through the host's bridge: `tool` calls the server's tool and the result comes back
/// as `ui-message-response` after `ui-message-received`; `prompt`, `intent` and `notify` are
/// shown to the person (with Copy; nothing goes to a model); `link` reaches URL consent, and
/// the view hears the person's no.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_classic_view_renders_and_speaks_mcp_ui() {
    let Some(peers) = NpmPeers::locate(&FILES) else {
        return;
    };
    let page = harness_with(vec![("classic", classic_server(&peers), None)]).await;
    page.call_from_sidebar("classic", "show_hello").await;
    let frame = page
        .wait_for(
            "li.app-view iframe.app-frame[src]",
            "no frame for the UI resource",
        )
        .await;
    let src = frame.attr("src").await.unwrap().unwrap();
    assert!(
        src.starts_with("http://s") && src.contains(".localhost:"),
        "framed from a sandbox origin of the server's own: {src}"
    );
    let note = page
        .wait_for(
            ".call .embedded-note",
            "the result does not say where its view went",
        )
        .await
        .text()
        .await
        .unwrap();
    assert!(
        note.contains("Shown as a view below (ui://classic/hello)"),
        "{note}"
    );
    let result = page.text(".call .result").await;
    assert!(
        !result.contains("<button") && result.contains("Here is a classic MCP-UI view."),
        "the HTML is not shown as text, the text content is: {result}"
    );

    page.enter_view(frame).await;
    page.until(
        "document.querySelector('h2')?.textContent ?? null",
        "the view did not render",
    )
    .await;
    // Ready: it hears its render data (the call's input and output, the host's context).
    let log = log_with(&page, "ui-lifecycle-iframe-render-data").await;
    let data = heard(&log)
        .into_iter()
        .find(|m| m["type"] == "ui-lifecycle-iframe-render-data")
        .unwrap();
    assert_eq!(
        data["payload"]["renderData"]["displayMode"], "inline",
        "{data}"
    );

    page.click_in_view("#tool").await;
    let log = log_with(&page, "echo 42").await;
    let messages = heard(&log);
    let received = messages
        .iter()
        .position(|m| m["type"] == "ui-message-received" && m["messageId"] == "m-tool")
        .expect("acknowledged");
    let answered = messages
        .iter()
        .position(|m| m["type"] == "ui-message-response" && m["messageId"] == "m-tool")
        .expect("answered");
    assert!(received < answered, "acknowledged before answered: {log}");
    let response = response_to(&log, "m-tool");
    assert_eq!(
        response["payload"]["response"]["structuredContent"],
        json!({"v": 42}),
        "the tool's result: {response}"
    );

    page.click_in_view("#prompt").await;
    page.click_in_view("#intent").await;
    page.click_in_view("#notify").await;
    let log = log_with(&page, "m-notify\",\"payload\":{\"response\"").await;
    assert_eq!(
        response_to(&log, "m-prompt")["payload"]["response"],
        json!({})
    );
    page.leave_view().await;
    let said = page
        .until(
            "document.querySelector('li.app-view .app-message')?.textContent ?? null",
            "the view's prompt was not shown",
        )
        .await;
    assert!(
        said.as_str().unwrap().contains("Summarise my week"),
        "{said}"
    );
    assert!(
        said.as_str()
            .unwrap()
            .contains("nothing is sent to a model"),
        "{said}"
    );
    let intent = page
        .until(
            "document.querySelector('li.app-view .app-intent')?.textContent ?? null",
            "the view's intent was not shown",
        )
        .await;
    assert!(
        intent.as_str().unwrap().contains("add_to_cart")
            && intent.as_str().unwrap().contains("A-42"),
        "{intent}"
    );
    let notice = page
        .until(
            "document.querySelector('li.app-view .app-notice')?.textContent ?? null",
            "the view's notice was not shown",
        )
        .await;
    assert!(
        notice.as_str().unwrap().contains("Saved your settings"),
        "{notice}"
    );
    page.find("li.app-view .app-message button.copy").await;
    page.artifact("mcp-ui-classic").await;

    // `link`: the URL rules and the person's consent, as any view's link.
    page.enter_view_at("li.app-view iframe.app-frame").await;
    page.click_in_view("#link").await;
    page.leave_view().await;
    let card = page
        .wait_for("section.ask", "no consent card for the view's link")
        .await;
    let text = card.text().await.unwrap();
    assert!(
        text.contains("https://modelcontextprotocol.io/docs"),
        "{text}"
    );
    let decline = card
        .find(Locator::XPath(".//button[text()='Decline']"))
        .await
        .unwrap();
    page.click_element(&decline, "Decline").await;
    page.wait_gone("section.ask").await;
    page.enter_view_at("li.app-view iframe.app-frame").await;
    let log = log_with(&page, "m-link\",\"payload\":{\"error\"").await;
    let refused = response_to(&log, "m-link");
    assert!(
        refused["payload"]["error"]["message"].is_string(),
        "{refused}"
    );
    page.leave_view().await;
    assert_eq!(
        page.client().windows().await.unwrap().len(),
        1,
        "nothing opened"
    );
}

/// A hostile classic view is refused as an MCP Apps view is: another server's tool, a tool
/// hidden from views, a malformed payload and an unknown type each get an error response
/// naming the problem; a flood meets the rate limit; navigating the top window fails; and no
/// refused call reaches any server.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hostile_classic_view_is_refused() {
    let Some(peers) = NpmPeers::locate(&FILES) else {
        return;
    };
    let page = harness_with(vec![("classic", classic_server(&peers), None)]).await;
    let url = page.client().current_url().await.unwrap();
    page.call_from_sidebar("classic", "show_hello").await;
    page.enter_view_at("li.app-view iframe.app-frame[src]")
        .await;
    for button in ["#other", "#hidden", "#bad", "#unknown", "#flood", "#top"] {
        page.click_in_view(button).await;
    }
    let log = log_with(&page, "m-flood-39").await;
    let log = if log.contains("top: ") {
        log
    } else {
        log_with(&page, "top: ").await
    };
    let error = |id: &str| response_to(&log, id)["payload"]["error"].clone();
    assert!(
        error("m-other")["message"]
            .as_str()
            .unwrap()
            .contains("is not a tool of classic"),
        "{log}"
    );
    assert!(
        error("m-hidden")["message"]
            .as_str()
            .unwrap()
            .contains("not callable from a view"),
        "{log}"
    );
    assert!(
        error("m-bad")["message"]
            .as_str()
            .unwrap()
            .contains("`toolName` must be a string"),
        "{log}"
    );
    assert_eq!(error("m-unknown")["code"], -32601, "{log}");
    let limited = heard(&log)
        .iter()
        .filter(|m| {
            m["type"] == "ui-message-response"
                && m["payload"]["error"]["message"]
                    .as_str()
                    .is_some_and(|s| s.contains("too many tool calls"))
        })
        .count();
    assert!(limited > 0, "the flood met the rate limit: {log}");
    // Its own log line (the render data holds the view's source, which names it too).
    let said = heard(&log);
    assert!(said.contains(&json!("top: SecurityError")), "{log}");
    assert!(!said.contains(&json!("top: navigated")), "{log}");
    page.leave_view().await;
    tokio::time::sleep(ABSENCE).await;
    assert_eq!(
        page.client().current_url().await.unwrap(),
        url,
        "the page was not navigated away"
    );
    // No refused call reached a server: the demo never heard `contact_info`, the classic
    // server never heard `secret_tool`.
    for server in ["demo", "demo-2025", "classic"] {
        let id = page.server_id(server);
        let reached: Vec<String> = page
            .app
            .host()
            .protocol_log(id)
            .iter()
            .filter(|m| m.method() == Some("tools/call"))
            .filter_map(|m| m.message["params"]["name"].as_str().map(str::to_owned))
            .filter(|name| name == "contact_info" || name == "secret_tool")
            .collect();
        assert!(reached.is_empty(), "{server} heard {reached:?}");
    }
}

/// A page embedded as an external URL (`@mcp-ui/server` 6's externalUrl, and MCP-UI 5's
/// `text/uri-list`) is judged by the URL rules and not framed until the person chooses: then
/// it is framed (sandboxed, from its own origin) and its MCP-UI messages reach the bridge. A
/// page on a private address is refused outright. The page is served on 127.0.0.1, allowed by
/// the development setting.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_embedded_page_is_framed_only_after_the_person_chooses() {
    let Some(peers) = NpmPeers::locate(&FILES) else {
        return;
    };
    let shutdown = CancellationToken::new();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let site = axum::Router::new().route(
        "/page",
        axum::routing::get(|| async {
            axum::response::Html(
                "<!doctype html><h1>An external page</h1><script>\
                 window.parent.postMessage({type:'notify', messageId:'s1', payload:{message:'hello from the site'}}, '*');\
                 </script>",
            )
        }),
    );
    {
        let shutdown = shutdown.clone();
        tokio::spawn(async move {
            axum::serve(listener, site)
                .with_graceful_shutdown(shutdown.cancelled_owned())
                .await
        });
    }
    let page_url = format!("http://127.0.0.1:{port}/page");
    let mut options = WebOptions::default();
    options.host.engine.url_policy.dev_origins =
        vec![interlude_engine::DevOrigin::loopback_http(port)];
    let page = harness_configured(options, vec![("classic", classic_server(&peers), None)]).await;

    page.app
        .call_tool("classic", "show_site", args(json!({"url": page_url})))
        .await
        .unwrap();
    let choice = page
        .wait_for(
            "li.app-view .site-choice",
            "no choice for the embedded page",
        )
        .await;
    let text = choice.text().await.unwrap();
    assert!(text.contains(&page_url), "{text}");
    tokio::time::sleep(ABSENCE).await;
    assert!(
        page.client()
            .find(Locator::Css("li.app-view iframe"))
            .await
            .is_err(),
        "not framed before the person chose"
    );
    page.artifact("mcp-ui-site-choice").await;
    page.click_clear("li.app-view .site-show").await;
    let frame = page
        .wait_for(
            "li.app-view iframe.app-frame[src]",
            "the page was not framed",
        )
        .await;
    assert!(
        frame
            .attr("src")
            .await
            .unwrap()
            .unwrap()
            .contains(".localhost:")
    );
    let notice = page
        .until(
            "document.querySelector('li.app-view .app-notice')?.textContent ?? null",
            "the framed page's message did not reach the host",
        )
        .await;
    assert!(
        notice.as_str().unwrap().contains("hello from the site"),
        "{notice}"
    );
    let view = page
        .app
        .host()
        .snapshot()
        .views
        .iter()
        .find(|v| v.site.is_some())
        .cloned()
        .unwrap();
    assert!(view.site.as_ref().unwrap().framed);

    // MCP-UI 5's form of the same page, and a page on a private address.
    page.app
        .call_tool("classic", "show_uri_list", args(json!({"url": page_url})))
        .await
        .unwrap();
    page.app
        .call_tool(
            "classic",
            "show_site",
            args(json!({"url": "http://10.1.2.3/admin"})),
        )
        .await
        .unwrap();
    eventually("both pages to be recorded", WAIT, || {
        let views = page.app.host().snapshot().views.clone();
        let listed = views
            .iter()
            .find(|v| v.resource_uri == "ui://classic/list")
            .filter(|v| v.state == interlude_host::ViewState::Open && v.site.is_some())?;
        let refused = views.iter().find(|v| {
            v.site.as_ref().is_some_and(|s| s.url.contains("10.1.2.3"))
                && matches!(&v.state, interlude_host::ViewState::Failed { reason } if reason.contains("refused"))
        })?;
        Some((listed.id, refused.id))
    })
    .await;
    let refused = page
        .until(
            "[...document.querySelectorAll('.embedded-note')].map((n) => n.textContent).find((t) => t.includes('10.1.2.3')) ?? null",
            "the refused page's note was not shown",
        )
        .await;
    assert!(refused.as_str().unwrap().contains("refused"), "{refused}");
    shutdown.cancel();
}

/// A base64 blob renders like text; a Remote DOM resource is not rendered, and its call says
/// so in a sentence, with its source folded.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blob_renders_and_remote_dom_says_what_was_not_rendered() {
    let Some(peers) = NpmPeers::locate(&FILES) else {
        return;
    };
    let page = harness_with(vec![("classic", classic_server(&peers), None)]).await;
    page.call_from_sidebar("classic", "show_remote_dom").await;
    let note = page
        .until(
            "[...document.querySelectorAll('.embedded-note')].map((n) => n.textContent).find((t) => t.includes('ui://classic/remote')) ?? null",
            "no note for the Remote DOM resource",
        )
        .await;
    let note = note.as_str().unwrap();
    assert!(
        note.contains("Remote DOM") && note.contains("does not render"),
        "{note}"
    );
    assert!(
        page.text(".call .result")
            .await
            .contains("A cart with 2 items.")
    );

    page.call_from_sidebar("classic", "show_blob").await;
    page.enter_view_at("li.app-view iframe.app-frame[src]")
        .await;
    let shown = page
        .until(
            "document.getElementById('blob')?.textContent ?? null",
            "the blob view did not render",
        )
        .await;
    assert_eq!(shown, "Sent as a blob: héllo");
    page.leave_view().await;
}

/// The demo's order card, written with the server toolkit the MCP-UI way (the view inside
/// `order_card`'s result, its messages by hand): its Refresh calls the demo's `order_status`
/// through the bridge and shows what came back, then posts a notice; its Ask is shown as what
/// the view asks to say, and its Order again as what it asks to do.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demos_order_card_refreshes_through_its_server() {
    let page = crate::harness::harness().await;
    page.call_from_sidebar("demo", "order_card").await;
    page.wait_for(
        "li.app-view iframe.app-frame[src]",
        "the order card's view did not open",
    )
    .await;
    let result = page.text(".call .result").await;
    assert!(
        result.contains("Order #4242") && !result.contains("postMessage"),
        "the text item is shown, not the HTML: {result}"
    );
    page.enter_view_at("li.app-view iframe.app-frame").await;
    let first = page
        .until(
            "document.getElementById('status')?.textContent || null",
            "the card did not render",
        )
        .await;
    assert_ne!(first, "__STATUS__", "the server filled the status in");
    page.click_in_view("#refresh").await;
    let heard = page.until(
        "(() => { const t = document.getElementById('heard')?.textContent || ''; return t.includes('refreshed by the server') || t.includes('Refused') ? t : null; })()",
        "the card's Refresh did not come back",
    )
    .await;
    assert!(
        heard
            .as_str()
            .unwrap_or_default()
            .contains("refreshed by the server"),
        "{heard}"
    );
    let now = page.text("#status").await;
    assert!(
        ["shipped", "out for delivery", "delivered"].contains(&now.as_str()),
        "a later step than the first look ({first}): {now}"
    );
    page.click_in_view("#ask").await;
    page.click_in_view("#reorder").await;
    page.leave_view().await;
    let notice = page
        .until(
            "document.querySelector('li.app-view .app-notice')?.textContent ?? null",
            "the card's notice was not shown",
        )
        .await;
    assert!(
        notice
            .as_str()
            .unwrap_or_default()
            .contains(&format!("Order #4242 is {now}")),
        "{notice}"
    );
    let said = page
        .until(
            "document.querySelector('li.app-view .app-message .said')?.textContent ?? null",
            "what the card asks to say was not shown",
        )
        .await;
    assert!(
        said.as_str()
            .unwrap_or_default()
            .contains("When will order #4242 arrive"),
        "{said}"
    );
    let intent = page
        .until(
            "document.querySelector('li.app-view .app-intent')?.textContent ?? null",
            "what the card asks to do was not shown",
        )
        .await;
    assert!(
        intent.as_str().unwrap_or_default().contains("reorder"),
        "{intent}"
    );
    page.artifact("demo-order-card").await;
}
