use std::sync::{Arc, Mutex};

use interlude_test_support::NpmPeers;
use rmcp::model::JsonObject;
use serde_json::{Value, json};

use crate::harness::{
    ABSENCE, Page, SERVER_EVERYTHING, args, call_selector, eventually, harness, harness_with, js,
    server_everything,
};
use crate::in_process::{TestServer, text_result, tool};

/// "Cancel call" on a running call: the server is told, the request it raised leaves the page,
/// and the call shows as cancelled.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_a_call_from_the_page() {
    let page = harness().await;
    page.call_from_sidebar("demo-2025", "contact_info").await;
    page.focused_card("demo-2025", None).await;
    // Out from under the page's sticky header first.
    page.click_clear(&format!(
        "{} button.call-cancel",
        call_selector("demo-2025", "contact_info")
    ))
    .await;
    page.wait_gone("section.ask").await;
    let status = page
        .until(
            &format!(
                "document.querySelector({} + ' .status.cancelled')?.textContent ?? null",
                js(&call_selector("demo-2025", "contact_info"))
            ),
            "the call did not show as cancelled",
        )
        .await;
    assert_eq!(status.as_str(), Some("cancelled"));
    assert_eq!(
        page.app.host().snapshot().calls[0].status.as_str(),
        "cancelled"
    );
}

/// server-everything's long operation shows its progress advancing on its call (the host sends
/// a progress token with every call), and Cancel ends it as cancelled, the server told
/// (`notifications/cancelled` in the protocol log); its simulated logging shows in the server's
/// log view, at the level the person asks for (`logging/setLevel`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_everything_progress_cancel_and_logs_in_the_page() {
    let Some(peers) = NpmPeers::locate(&[SERVER_EVERYTHING]) else {
        return;
    };
    let page = harness_with(vec![("everything", server_everything(&peers), None)]).await;
    let call = page
        .app
        .call_tool(
            "everything",
            "trigger-long-running-operation",
            args(json!({"duration": 60, "steps": 60})),
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
    let first = page.until(&progress(1), "no progress on the call").await;
    assert!(first.as_str().unwrap().contains("of 60"), "{first}");
    // It advances.
    page.until(&progress(3), "the progress did not advance")
        .await;
    let elapsed = page
        .js(&format!(
            "document.querySelector('{card} .call-time .took')?.textContent"
        ))
        .await;
    assert!(
        elapsed.as_str().unwrap_or_default().ends_with(" s"),
        "{elapsed}"
    );
    page.click(&format!("{card} button.call-cancel")).await;
    page.until(
        &format!("document.querySelector('{card} .status')?.textContent === 'cancelled' || null"),
        "the call did not end as cancelled",
    )
    .await;
    let record = page.app.host().call(interlude_host::CallId(call)).unwrap();
    assert!(
        matches!(record.status, interlude_host::CallStatus::Cancelled { .. }),
        "{:?}",
        record.status
    );
    page.logged(
        page.server_id("everything"),
        "no notifications/cancelled went to the server",
        |m| {
            m.dir == interlude_host::Direction::Send
                && m.message["method"] == "notifications/cancelled"
        },
    )
    .await;

    // Simulated logging, every debug message and up, in the server's log view.
    page.click("li[data-server=\"everything\"] button.log-btn")
        .await;
    page.until("(() => { const b = Array.from(document.querySelectorAll('#protocol .segmented button')).find((b) => b.textContent === 'Server logs'); if (b) b.click(); return !!b || null; })()", "the protocol pane has no server-logs view").await;
    page.wait_for(
        "#protocol select[aria-label='Server log level']",
        "no log level to pick",
    )
    .await
    .select_by_value("debug")
    .await
    .unwrap();
    page.until("(document.querySelector('#protocol .level-note')?.textContent || '').includes('logs from debug up') || null", "the level was not taken").await;
    page.app
        .call_tool("everything", "toggle-simulated-logging", None)
        .await
        .unwrap();
    let row = page
        .until(
            "(() => { const r = document.querySelector('#protocol .log-row'); return r ? [r.dataset.level, r.querySelector('.log-text').textContent] : null; })()",
            "no server log shown",
        )
        .await;
    assert!(!row[1].as_str().unwrap_or_default().is_empty(), "{row}");
    page.artifact("server-everything-logs").await;

    // A server that does not declare logging is not offered a level to set.
    page.click("li[data-server=\"demo\"] button.log-btn").await;
    page.until("(() => { const b = Array.from(document.querySelectorAll('#protocol .segmented button')).find((b) => b.textContent === 'Server logs'); if (b) b.click(); return (b && (document.querySelector('#protocol h2, #protocol h3')?.textContent || '').includes('demo')) || null; })()", "no server-logs view for demo").await;
    let said = page
        .until(
            "document.querySelector('#protocol .no-logging')?.textContent ?? null",
            "the pane offers demo a log level it never declared",
        )
        .await;
    assert!(
        said.as_str()
            .unwrap_or_default()
            .contains("does not declare logging"),
        "{said}"
    );
    assert_eq!(
        page.js("!!document.querySelector(\"#protocol select[aria-label='Server log level']\")")
            .await,
        json!(false)
    );
    // Stop the logging before the server is closed.
    page.app
        .call_tool("everything", "toggle-simulated-logging", None)
        .await
        .unwrap();
    page.close().await;
}

/// Every call a server received: the tool's name and its arguments.
type Received = Arc<Mutex<Vec<(String, Option<JsonObject>)>>>;

/// A server whose tools' arguments the host checks: `book`, a flat form (bounds, a format, a
/// pattern; extra properties allowed, as JSON Schema allows them by default), and `plot`, whose
/// nested `point` no form can show. It records every call it receives.
fn shapes() -> (TestServer, Received) {
    let received = Received::default();
    let tool = |name: &str, schema| tool(name, &format!("{name}, with checked arguments"), schema);
    let tools = vec![
        tool(
            "book",
            json!({"type": "object", "properties": {
                "guests": {"type": "integer", "minimum": 1, "maximum": 4},
                "email": {"type": "string", "format": "email"},
                "code": {"type": "string", "pattern": "^[A-Z]{3}$"}},
                "required": ["guests", "email"]}),
        ),
        tool(
            "rsvp",
            json!({"type": "object", "properties": {
                "name": {"type": "string"},
                "vip": {"type": "boolean", "description": "Seat at the front"}},
                "required": ["name"]}),
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
    ];
    let record = received.clone();
    let server = TestServer::new(tools, move |request, _| {
        let name = request.name.to_string();
        if let Ok(mut r) = record.lock() {
            r.push((name.clone(), request.arguments.clone()));
        }
        async move { Ok(text_result(format!("{name} ran"))) }
    });
    (server, received)
}

impl Page {
    /// Waits until the composer's JavaScript expression `expr` is truthy; returns its value.
    async fn composer_shows(&self, expr: &str, what: &str) -> Value {
        self.until(expr, &format!("the tool form never showed {what}"))
            .await
    }

    /// Puts `text` in the composer's JSON editor, as typing would.
    async fn type_json(&self, text: &str) {
        self.js(&format!(
            "(() => {{ const t = document.querySelector('#composer textarea.args-json'); \
             t.value = {}; t.dispatchEvent(new Event('input', {{ bubbles: true }})); \
             return true; }})()",
            js(text)
        ))
        .await;
    }
}

/// Issue 12: a tool's arguments are checked against its whole input schema before the call.
/// Invalid ones show the host's messages under their fields, as on a request's card, and no
/// call is made — not from the form, not from a hand-made POST; "Edit as JSON" sends what the
/// form cannot express, and a JSON parse error is named; a tool no form can show is edited as
/// JSON, checked the same way.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tool_arguments_are_checked_before_the_call() {
    let page = harness().await;
    let (server, received) = shapes();
    page.connect_in_process("shapes", server).await;
    let calls_of_shapes = || {
        page.app
            .host()
            .snapshot()
            .calls
            .iter()
            .filter(|c| &*c.server_name == "shapes")
            .count()
    };

    page.open_composer("shapes", "book").await;
    let field = |name: &str| format!("#composer [data-field=\"{name}\"]");
    let input = page.find(&format!("{} input", field("guests"))).await;
    input.send_keys("9").await.unwrap();
    let email = page.find(&format!("{} input", field("email"))).await;
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
        .js(
            "fetch('/api/call', { method: 'POST', headers: { 'content-type': 'application/json', \
             'x-interlude-token': new URLSearchParams(location.search).get('token') }, \
             body: JSON.stringify({ server: 'shapes', tool: 'book', arguments: { guests: 0 } }) }) \
             .then(async (r) => [r.status, (await r.json()).errors.map((e) => e.message)])",
        )
        .await;
    assert_eq!(
        status,
        json!([400, ["Enter email.", "Guests must be at least 1."]])
    );
    // An absence: a call that should not be made is given a moment to show.
    tokio::time::sleep(ABSENCE).await;
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
    page.click("#composer .json-switch input").await;
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
    tokio::time::sleep(ABSENCE).await;
    assert_eq!(calls_of_shapes(), 0, "unreadable JSON is not sent");
    page.element_artifact(&page.find("#composer").await, "tool-arguments-json-error")
        .await;

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
        .js("document.querySelector('#composer .json-switch') === null")
        .await;
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
    tokio::time::sleep(ABSENCE).await;
    assert_eq!(calls_of_shapes(), 1, "only the one good call");
    page.element_artifact(&page.find("#composer").await, "tool-arguments-nested")
        .await;
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

/// An optional switch nobody touched is not sent: an unanswered question is not a "no"
/// (issue 23). Touched, it is sent as it stands.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_untouched_optional_switch_is_not_sent() {
    let page = harness().await;
    let (server, received) = shapes();
    page.connect_in_process("shapes", server).await;
    let field = |name: &str| format!("#composer [data-field=\"{name}\"]");
    for toggles in [0, 2] {
        page.open_composer("shapes", "rsvp").await;
        // The form keeps what was typed for the next call: the name is typed once.
        if toggles == 0 {
            page.find(&format!("{} input", field("name")))
                .await
                .send_keys("Ada")
                .await
                .unwrap();
        }
        for _ in 0..toggles {
            page.click(&format!("{} input", field("vip"))).await;
        }
        page.press_call().await;
        let calls = usize::from(toggles > 0) + 1;
        let got = eventually(
            "the server got the call",
            std::time::Duration::from_secs(30),
            || {
                let got = received.lock().unwrap();
                (got.len() >= calls).then(|| got.last().cloned())
            },
        )
        .await
        .unwrap();
        let expected = if toggles == 0 {
            json!({"name": "Ada"})
        } else {
            json!({"name": "Ada", "vip": false})
        };
        assert_eq!(
            got.1.map(Value::Object),
            Some(expected),
            "after {toggles} toggles"
        );
    }
    page.close().await;
}
