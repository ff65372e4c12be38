use interlude_test_support::NpmPeers;
use interlude_test_support::fantoccini::Locator;
use serde_json::json;

use interlude_server::apps::{AppResource, Apps, Visibility, app_only_meta, tool_meta};

use crate::harness::{ABSENCE, WAIT, eventually, harness, harness_with, js, npm_app};
use crate::in_process::{self, TestServer, text_result};

const BASIC_APP: &str = "@modelcontextprotocol/server-basic-vanillajs/dist/index.js";

/// MCP Apps in Chromium: the published server-basic-vanillajs over stdio. Calling `get-time`
/// shows its view beside the call, framed from the server's own sandbox origin (not the
/// page's); the view renders the call's result, its button calls the server's tool through
/// the host's bridge, and what it puts in the conversation (`ui/message`) shows under it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_published_app_renders_beside_its_call_and_calls_its_server() {
    let Some(peers) = NpmPeers::locate(&[BASIC_APP]) else {
        return;
    };
    let spec = npm_app(&peers, BASIC_APP, &[]);
    let page = harness_with(vec![("basic", spec, None)]).await;
    page.call_from_sidebar("basic", "get-time").await;
    let frame = page
        .wait_for("li.app-view iframe.app-frame[src]", "no app frame")
        .await;
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
    page.enter_view(frame).await;
    let shows_time = "(() => { const t = document.getElementById('server-time')?.textContent || ''; return /\\d{2}:\\d{2}/.test(t) ? t : null; })()";
    page.until(shows_time, "the view did not show the call's result")
        .await;
    // Its own button: a tools/call back to its server, through the bridge. The time shown is
    // struck out first, so the answer shows whatever second it is, and the server got a second
    // tools/call.
    page.js("(() => { document.getElementById('server-time').textContent = 'asking…'; return true; })()")
        .await;
    page.click_in_view("#get-time-btn").await;
    page.until(shows_time, "the view's own call did not come back")
        .await;
    let server = page.server_id("basic");
    eventually("the view's tools/call to reach its server", WAIT, || {
        let calls = page
            .app
            .host()
            .protocol_log(server)
            .iter()
            .filter(|m| {
                m.view.is_none()
                    && m.dir == interlude_host::Direction::Send
                    && m.method() == Some("tools/call")
            })
            .count();
        (calls >= 2).then_some(())
    })
    .await;
    // A message for the conversation.
    let text = page.find("#message-text").await;
    text.clear().await.unwrap();
    text.send_keys("Hello from the app").await.unwrap();
    page.click_in_view("#send-message-btn").await;
    page.leave_view().await;
    let said = page
        .until(
            "document.querySelector('li.app-view .app-message .said')?.textContent ?? null",
            "the app's message was not shown",
        )
        .await;
    assert!(
        said.as_str().unwrap().contains("Hello from the app"),
        "{said}"
    );
    page.artifact("app-basic").await;
    let view = &page.app.host().snapshot().views[0];
    assert_eq!(view.resource_uri, "ui://get-time/mcp-app.html");
    assert!(view.height.is_some(), "the view told its size");

    // `ui/open-link`: a view link, with the same consent as a server's URL request, tied to the
    // call.
    page.enter_view_at("li.app-view iframe.app-frame").await;
    page.click_in_view("#open-link-btn").await;
    page.leave_view().await;
    let card = page
        .wait_for("section.ask", "no consent card for the app's link")
        .await;
    let text = card.text().await.unwrap();
    assert!(text.contains("https://modelcontextprotocol.io/"), "{text}");
    assert!(
        text.contains("The app of \"basic\" asks you to open a link"),
        "{text}"
    );
    assert!(text.contains("An app asks you to open a link"), "{text}");
    let decline = card
        .find(Locator::XPath(".//button[text()='Decline']"))
        .await
        .unwrap();
    page.click_element(&decline, "Decline").await;
    page.wait_gone("section.ask").await;
    let snapshot = page.app.host().snapshot();
    let asked = snapshot
        .requests
        .iter()
        .find(|r| matches!(r.request.kind, interlude_engine::RequestKind::ViewLink(_)))
        .expect("a view link for the app's link");
    assert_eq!(asked.request.method.as_str(), "ui/open-link");
    assert_eq!(
        asked.request.call, snapshot.views[0].call,
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
fn hostile_app() -> TestServer {
    const VIEW: &str = "ui://hostile/view.html";
    let html = include_str!("../test_data/hostile_app.html");
    let tool =
        |name: &str, meta| in_process::tool(name, name, json!({"type": "object"})).with_meta(meta);
    let tools = vec![
        tool("show", tool_meta(VIEW, Visibility::DEFAULT)),
        tool("admin", tool_meta(VIEW, Visibility::MODEL_ONLY)),
        tool("echo", app_only_meta()),
    ];
    TestServer::new(tools, |request, _| async move {
        Ok(text_result(format!("{} ran", request.name)))
    })
    .with_apps(Apps::new().with(AppResource::new(VIEW, html).unwrap()))
}

/// Security: a hostile app tries to read the host page, navigate the top window, open a popup,
/// reach an undeclared site (fetch and image), call a model-only tool of its server and a tool
/// of another server. Each attempt is made (the app's own report, and the browser's CSP
/// violations, say so) and each is blocked; its server's app tool still works; the page is
/// untouched.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hostile_app_is_blocked_at_every_attempt() {
    let page = harness().await;
    page.connect_in_process("hostile", hostile_app()).await;
    page.call_from_sidebar("hostile", "show").await;
    let said = page
        .until(
            "document.querySelector('li.app-view .app-message .said')?.textContent ?? null",
            "the hostile app never reported",
        )
        .await;
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
    // What the page's relay could not take (1 000-deep, 5 MB) is answered, not left to time out.
    assert_eq!(report["deepMessage"], "refused: -32600", "{report}");
    assert_eq!(report["hugeMessage"], "refused: -32600", "{report}");
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
    let sidebar = page.text("#servers").await;
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
    page.enter_view(frame).await;
    let issue = |text: &str| -> u64 {
        text.split("forecast #")
            .nth(1)
            .and_then(|n| n.trim_end_matches(')').parse().ok())
            .unwrap_or(0)
    };
    let note = page.until("(() => { const n = document.getElementById('note')?.textContent || ''; return n.includes('forecast #') ? n : null; })()", "the dashboard did not render the result").await;
    let first = issue(note.as_str().unwrap());
    assert_eq!(page.text("#city").await, "Lisbon");
    page.click_in_view("#refresh").await;
    page.until(&format!("(() => {{ const n = document.getElementById('note')?.textContent || ''; const m = /forecast #(\\d+)/.exec(n); return m && Number(m[1]) > {first} ? n : null; }})()"), "the view's refresh did not come back").await;
    page.client()
        .execute(
            "const s = document.getElementById('pick'); s.value = 'Tokyo'; s.dispatchEvent(new Event('change')); return true;",
            vec![],
        )
        .await
        .unwrap();
    page.until(
        "document.getElementById('city')?.textContent === 'Tokyo' || null",
        "the city did not change",
    )
    .await;
    // Fullscreen at the view's request; back inline from the host's own control, and the view
    // hears it.
    page.click_in_view("#fullscreen").await;
    page.until(
        "document.documentElement.dataset.mode === 'fullscreen' || null",
        "the view did not go fullscreen",
    )
    .await;
    page.leave_view().await;
    let back = page
        .wait_for(
            "li.app-view[data-mode=\"fullscreen\"] button.app-inline",
            "the page did not show the view fullscreen",
        )
        .await;
    page.click_element(&back, "Back inline").await;
    page.wait_for(
        "li.app-view[data-mode=\"inline\"]",
        "the view did not come back inline",
    )
    .await;
    page.enter_view_at("li.app-view iframe.app-frame").await;
    page.until(
        "document.documentElement.dataset.mode === 'inline' || null",
        "the view did not hear it is inline again",
    )
    .await;
    // `ui/download-file`: the host asks the person, the page saves; refused, nothing is saved.
    for (button, note) in [
        (".app-save", "Saved forecast-Tokyo.csv"),
        (".app-nosave", "Not saved"),
    ] {
        page.click_in_view("#download").await;
        page.leave_view().await;
        let offer = page
            .wait_for("li.app-view .app-download", "no offer to save")
            .await;
        let text = offer.text().await.unwrap();
        assert!(text.contains("forecast-Tokyo.csv (text/csv"), "{text}");
        let save = offer.find(Locator::Css(button)).await.unwrap();
        page.click_element(&save, button).await;
        page.wait_gone("li.app-view .app-download").await;
        page.enter_view_at("li.app-view iframe.app-frame").await;
        page.until(
            &format!(
                "(document.getElementById('note')?.textContent || '').startsWith({}) || null",
                js(note)
            ),
            &format!("the view did not hear {note}"),
        )
        .await;
    }
    page.leave_view().await;
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
    page.enter_view_at("li.app-view iframe.app-frame[src]")
        .await;
    page.until(
        "(document.getElementById('note')?.textContent || '').includes('forecast #') || null",
        "the dashboard did not render",
    )
    .await;
    page.click_in_view("#history-start").await;
    let status = page.until("(() => { const b = document.getElementById('history-bar'); const t = document.getElementById('history-text').textContent; return b && !b.hidden && b.value >= 2 ? [b.value, b.max, t] : null; })()", "no progress reached the view").await;
    assert_eq!(status[1], 10, "{status}");
    assert!(
        status[2].as_str().is_some_and(|t| t.contains("of 10")),
        "the server's own words: {status}"
    );
    page.artifact("app-weather-history-progress").await;
    page.click_in_view("#history-stop").await;
    page.until(
        "document.getElementById('history-text').textContent === 'Stopped.' || null",
        "the view did not stop",
    )
    .await;
    page.leave_view().await;
    let server = page.server_id("demo");
    let sent = |log: &[std::sync::Arc<interlude_host::LoggedMessage>], method: &str| {
        log.iter()
            .filter(|m| m.view.is_none() && m.dir == interlude_host::Direction::Send)
            .filter(|m| m.method() == Some(method))
            .map(|m| m.message.clone())
            .collect::<Vec<_>>()
    };
    let (call, cancel) = eventually("the server to be told of the Stop", WAIT, || {
        let log = page.app.host().protocol_log(server);
        let call = sent(&log, "tools/call")
            .into_iter()
            .find(|m| m["params"]["name"] == "weather_history");
        let cancel = sent(&log, "notifications/cancelled").into_iter().next();
        call.zip(cancel)
    })
    .await;
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
    // An absence: a reporter every 300 ms would have reported twice or more by then.
    tokio::time::sleep(2 * ABSENCE).await;
    assert!(
        reported(&page.app.host().protocol_log(server)) <= at_cancel + 1,
        "the server went on reporting after the cancel"
    );
    page.artifact("app-weather-history-stopped").await;

    // Again, to the end.
    page.enter_view_at("li.app-view iframe.app-frame[src]")
        .await;
    page.click_in_view("#history-start").await;
    let done = page.until("(() => { const t = document.getElementById('history-text').textContent; return t.includes('averaged') ? t : null; })()", "the history never came").await;
    assert!(done.as_str().unwrap().contains("over 10 years"), "{done}");
    assert_eq!(
        page.js("document.getElementById('history-bar').hidden")
            .await,
        true
    );
}

/// An app written for ChatGPT's Apps SDK (`text/html+skybridge`, `openai/outputTemplate`,
/// `openai/widgetAccessible`), the demo's counter: the sandbox gives it `window.openai` on top
/// of MCP Apps; it shows the tool's output and calls the tool again through the same bridge.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_apps_sdk_widget_renders_through_window_openai() {
    let page = harness().await;
    page.call_from_sidebar("demo", "apps_sdk_counter").await;
    page.enter_view_at("li.app-view iframe.app-frame[src]")
        .await;
    page.until(
        "document.getElementById('count')?.textContent === '1' || null",
        "the widget did not show the tool's output",
    )
    .await;
    let api = page
        .client()
        .execute(
            "return [typeof window.openai.callTool, typeof window.openai.notifyIntrinsicHeight, window.openai.displayMode];",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(api, json!(["function", "function", "inline"]));
    page.click_in_view("#more").await;
    page.until(
        "document.getElementById('count')?.textContent === '2' || null",
        "callTool did not come back",
    )
    .await;
    page.leave_view().await;
    let view = page.app.host().snapshot().views[0].clone();
    assert_eq!(view.dialect, interlude_protocol::apps::UiDialect::Skybridge);
    assert!(view.live_at_ms.is_some());
}

/// The console of a view: what it writes with `console.log` and `console.error`, and an error
/// it does not catch, show in its log on the page, each with its level — before the view has
/// even finished its handshake, and while the view's own console still works.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_views_console_and_its_errors_show_in_its_log() {
    const VIEW: &str = "ui://console/view.html";
    let html = r#"<!doctype html><html><head><title>Console</title></head><body>
<p id="said">…</p>
<script>
  console.log('hello from the view', {n: 1});
  console.error('something went wrong');
  setTimeout(() => { throw new Error('boom at the end'); }, 0);
  document.getElementById('said').textContent = 'logged';
</script></body></html>"#;
    let tools = vec![
        in_process::tool("show", "show", json!({"type": "object"}))
            .with_meta(tool_meta(VIEW, Visibility::DEFAULT)),
    ];
    let server = TestServer::new(tools, |_, _| async move { Ok(text_result("shown")) })
        .with_apps(Apps::new().with(AppResource::new(VIEW, html).unwrap()));
    let page = harness().await;
    page.connect_in_process("console", server).await;
    page.call_from_sidebar("console", "show").await;
    let log = page
        .until(
            "(() => { const d = document.querySelector('li.app-view details.app-console'); const t = d ? d.textContent : ''; return t.includes('boom at the end') ? t : null; })()",
            "the view's console did not reach its log",
        )
        .await;
    let log = log.as_str().unwrap_or_default();
    assert!(log.contains("info: hello from the view {\"n\":1}"), "{log}");
    assert!(log.contains("error: something went wrong"), "{log}");
    assert!(
        log.contains("error: Uncaught Error: boom at the end"),
        "{log}"
    );
}
