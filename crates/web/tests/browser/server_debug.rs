use interlude_test_support::NpmPeers;
use interlude_web::WebOptions;
use serde_json::{Value, json};

use crate::harness::{ABSENCE, WAIT, args, eventually, harness_configured, npm_app};

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
    let found = interlude_test_support::wait_until(kind, WAIT, || {
        debug_log(path)
            .into_iter()
            .skip(from)
            .find(|(k, p)| k == kind && pick(p))
    })
    .await;
    match found {
        Ok((_, payload)) => payload,
        Err(_) => panic!(
            "server-debug's view never reported {kind}; it reported: {:#?}",
            debug_log(path).iter().skip(from).collect::<Vec<_>>()
        ),
    }
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
    let Some(peers) = NpmPeers::locate(&[DEBUG_APP]) else {
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
    // Generous: the page, the proxy and the view all load under whatever else CI runs.
    let view_of = async |call: u64| page.live_view_of(call, 2 * WAIT).await;
    let record = |view: u64| {
        app.host()
            .snapshot()
            .views
            .iter()
            .find(|v| v.id.0 == view)
            .cloned()
            .unwrap()
    };
    let enter = async |view: u64| {
        page.enter_view_at(&format!(
            "li.app-view[data-view=\"{view}\"] iframe.app-frame[src]"
        ))
        .await;
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
    // The theme the page shows (the view was told it when it started); the theme button goes
    // round auto, light, dark: pressed until the page shows the other one.
    let shown = "document.documentElement.dataset.theme === 'dark' || (!document.documentElement.dataset.theme \
                 && matchMedia('(prefers-color-scheme: dark)').matches) ? 'dark' : 'light'";
    let told = page.js(shown).await;
    for _ in 0..3 {
        page.click("#theme").await;
        if page.js(shown).await != told {
            break;
        }
    }
    let themed = debug_event(&file, mark, "onhostcontextchanged", |p| {
        p["theme"].is_string()
    })
    .await;
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
    page.click_in_view("#send-message-text-btn").await;
    assert_eq!(
        debug_event(&file, mark, "send-message-result", |_| true).await,
        json!({})
    );
    page.click_in_view("#log-info-btn").await;
    page.click_in_view("#update-context-text-btn").await;
    debug_event(&file, mark, "update-context", |p| p["type"] == "text").await;
    page.click_in_view("#update-context-structured-btn").await;
    debug_event(&file, mark, "update-context", |p| p["type"] == "structured").await;
    page.click_in_view("#call-debug-refresh-btn").await;
    let refreshed = debug_event(&file, mark, "server-tool-result", |p| {
        p["structuredContent"]["counter"].is_number()
    })
    .await;
    assert!(
        refreshed["content"][0]["text"]
            .as_str()
            .is_some_and(|t| t.starts_with("Server timestamp:"))
    );
    page.click_in_view("#call-debug-tool-btn").await;
    debug_event(&file, mark, "server-tool-result", |p| {
        p["structuredContent"]["config"]["contentType"] == "text"
    })
    .await;
    page.click_in_view("#display-fullscreen-btn").await;
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
    page.click_in_view("#display-inline-btn").await;
    assert_eq!(
        debug_event(&file, mark, "display-mode-result", |p| p["mode"]
            == "inline")
        .await["result"],
        json!({"mode": "inline"})
    );
    // Its own size: automatic sizing off, then 400×300 by hand.
    page.click_in_view("#auto-resize-toggle").await;
    page.click_in_view("#resize-400x300-btn").await;
    debug_event(&file, mark, "manual-resize", |p| p["height"] == 300).await;
    // A link: the person is asked on the page, and declines.
    page.click_in_view("#open-link-btn").await;
    page.leave_view().await;
    let decline = page
        .wait_for(
            "section.link-ask .actions button:nth-of-type(2)",
            "the page never asked about the view's link",
        )
        .await;
    assert_eq!(decline.text().await.unwrap(), "Decline");
    page.click_element(&decline, "Decline").await;
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
    page.until(&format!(
                "document.querySelector('li.app-view[data-view=\"{view}\"] iframe.app-frame')?.getBoundingClientRect().height === 300 || null"
            ), "the frame did not take the view's height").await;
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
    let (name, answer) = eventually("the view's tool to answer", WAIT, || {
        record(view).app_tool_results.front().cloned()
    })
    .await;
    assert_eq!(name, "probe");
    assert_eq!(
        answer.unwrap()["content"][0]["text"],
        "App handled tool call"
    );
    page.artifact("app-debug-every-callback").await;

    // Teardown: the page's Close. The view answers, and may still report to its server.
    page.click_clear(&format!(
        "li.app-view[data-view=\"{view}\"] button.app-close"
    ))
    .await;
    eventually("the view to be closed", WAIT, || {
        (record(view).state == interlude_host::ViewState::Closed).then_some(())
    })
    .await;
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
    // Nothing more may come: a moment for a stray result to show.
    tokio::time::sleep(ABSENCE).await;
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
