use interlude_test_support::fantoccini::Locator;
use serde_json::{Value, json};

use crate::harness::{call_selector, harness, js};

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
        page.click(&format!("li[data-server=\"{server}\"] button.log-btn"))
            .await;
        let rows = page.until(&format!(
                    "(() => {{ const h = document.querySelector('#protocol h2')?.textContent; \
                     const rows = Array.from(document.querySelectorAll('#protocol .protocol-row')); \
                     return h === {} && rows.length > 3 ? rows.map((r) => r.dataset.dir + ' ' + r.dataset.method) : null; }})()",
                    js(&format!("Protocol: {server}"))
                ), &format!("the protocol pane did not list {server}'s messages")).await;
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
            .js("document.querySelectorAll('#protocol .protocol-row .lat').length")
            .await;
        assert!(latencies.as_u64().unwrap() >= 3, "{latencies}");
        // Filtering by method.
        page.find("#protocol input[type=search]")
            .await
            .send_keys("tools/call")
            .await
            .unwrap();
        // As many rows as the host's log has messages naming tools/call, the calls among them.
        let server_id = page.server_id(server);
        let matching = page
            .app
            .host()
            .protocol_log(server_id)
            .iter()
            .filter(|m| m.message.to_string().contains("tools/call"))
            .count();
        let count = page.until(&format!(
                    "(() => {{ const rows = Array.from(document.querySelectorAll('#protocol .protocol-row'));                      const c = document.querySelector('#protocol .count')?.textContent || '';                      return c.startsWith('{matching} of') && rows.length === {matching}                        && rows.some((r) => r.dataset.method === 'tools/call') ? c : null; }})()"
                ), &format!("the filter did not apply ({matching} expected)")).await;
        assert!(count.as_str().is_some());
        // A message's JSON opens under the list.
        page.click("#protocol .protocol-row[data-method='tools/call'] .row-btn")
            .await;
        let json = page
            .until(
                "document.querySelector('#protocol .protocol-detail pre')?.textContent || null",
                "a message's JSON did not open",
            )
            .await;
        let json: Value = serde_json::from_str(json.as_str().unwrap()).unwrap();
        assert_eq!(json["method"], "tools/call");
        if server == "demo" {
            page.artifact("protocol-pane").await;
        }
        page.click(&format!("li[data-server=\"{server}\"] button.log-btn"))
            .await;
        page.until(
            "document.getElementById('protocol').hidden || null",
            "the protocol pane did not close",
        )
        .await;
    }
    page.close().await;
}

/// For server authors: a card shows the `requestedSchema` exactly as the server sent it and the
/// response Accept will send (kept current as the person answers), and both a card and a call
/// open the protocol pane on that call's messages only.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_card_shows_the_wire_and_a_call_jumps_to_its_messages() {
    let page = harness().await;
    page.call_from_sidebar("demo-2025", "confirm_action").await;
    page.focused_card("demo-2025", None).await;
    page.js("(() => { document.querySelector('section.ask details.wire').open = true; return true; })()")
        .await;
    let schema = page
        .js("document.querySelector('section.ask .wire-schema')?.textContent")
        .await;
    let schema: Value = serde_json::from_str(schema.as_str().unwrap()).unwrap();
    assert_eq!(schema["type"], "object", "{schema}");
    assert!(schema["properties"]["confirm"].is_object(), "{schema}");
    let response = "JSON.parse(document.querySelector('section.ask .wire-response')?.textContent)";
    assert_eq!(page.js(response).await["action"], "accept");
    page.field("confirm").await.click().await.unwrap();
    page.until(
        &format!("{response}.content.confirm === true || null"),
        "the response did not follow the answer",
    )
    .await;
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
    let rows = page
        .until(
            "(() => { const rows = Array.from(document.querySelectorAll('#protocol .protocol-row')); \
             const only = document.querySelector('#protocol .call-only'); \
             return only && rows.length >= 2 ? rows.map((r) => [r.dataset.call, r.dataset.method]) : null; })()",
            "the pane did not open on the call's messages",
        )
        .await;
    let rows: Vec<(String, String)> = serde_json::from_value(rows).unwrap();
    let call = page.app.host().snapshot().calls[0].id.0.to_string();
    assert!(rows.iter().all(|(c, _)| *c == call), "{rows:?}");
    let methods: Vec<&str> = rows.iter().map(|(_, m)| m.as_str()).collect();
    assert_eq!(methods, ["tools/call", "elicitation/create"], "{rows:?}");
    // A call's row names its tool, as the HTTP transport's `Mcp-Name` header does.
    assert_eq!(
        page.js("document.querySelector(\"#protocol .protocol-row[data-method='tools/call'] .m\")?.textContent")
            .await,
        serde_json::json!("tools/call confirm_action")
    );

    // Answered, the call's own button shows the rest of its messages.
    page.press("Accept").await;
    page.result_containing("demo-2025", "confirm_action", "Deleted")
        .await;
    page.click(&format!(
        "{} button.call-messages",
        call_selector("demo-2025", "confirm_action")
    ))
    .await;
    let methods = page
        .until(
            "(() => { const rows = Array.from(document.querySelectorAll('#protocol .protocol-row')); \
             return rows.length >= 4 ? rows.map((r) => r.dataset.method) : null; })()",
            "the call's messages did not show",
        )
        .await;
    assert_eq!(
        methods,
        json!(["tools/call", "elicitation/create", "result", "result"]),
        "the call, its question, the host's answer and the call's result"
    );
    page.close().await;
}
