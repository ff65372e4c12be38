use interlude_host::ServerSpec;
use serde_json::{Value, json};

use crate::harness::{harness, js, pin_2025};
use crate::in_process::{TestServer, text_result, tool};

/// The protocol pane's Network view of a server reached over HTTP: after a call, one row per
/// HTTP exchange with its status (200 for the call), kind and size; a row opens on its headers,
/// the credentials the host sends shown redacted; its tools/call links to that message among
/// the messages, whose detail links back to the exchange; Export writes the rows as JSON Lines.
/// A server not reached over HTTP offers no Network view.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_network_view_shows_each_exchange_linked_to_its_messages() {
    let page = harness().await;
    // The demo once more, sending a credential of its own.
    let url = page
        .app
        .host()
        .snapshot()
        .servers
        .iter()
        .find(|s| s.name == "demo")
        .map(|s| s.target.clone())
        .unwrap();
    let headers = [("Authorization".to_owned(), "Bearer sk-live-7c1e".to_owned())].into();
    page.app
        .add_server("keyed", ServerSpec::Http { url, headers }, Some(pin_2025()))
        .await;
    let piped = TestServer::new(
        vec![tool("noop", "Does nothing", json!({"type": "object"}))],
        |_, _| async move { Ok(text_result("done")) },
    );
    page.connect_in_process("piped", piped).await;

    page.call_from_sidebar("keyed", "confirm_action").await;
    page.focused_card("keyed", None).await;
    page.field("confirm").await.click().await.unwrap();
    page.press("Accept").await;
    page.result_containing("keyed", "confirm_action", "Deleted 3 drafts.")
        .await;
    page.click("li[data-server=\"keyed\"] button.log-btn").await;
    page.click_clear("#protocol button.view-network").await;

    // The call's exchange: a POST answered 200 with an event stream, over once answered.
    let call_row = "Array.from(document.querySelectorAll('#protocol .net-row')).find((r) => \
                    r.querySelector('.m')?.textContent.startsWith('tools/call'))";
    let state = page
        .until(
            &format!(
                "(() => {{ const r = {call_row}; if (!r) return null; \
                 const s = [r.dataset.method, r.dataset.status, r.dataset.kind, \
                 r.querySelector('.dur')?.textContent.endsWith(' ms') || false]; \
                 return JSON.stringify(s) === JSON.stringify(['POST', '200', 'sse', true]) ? s : null; }})()"
            ),
            "no finished tools/call exchange answered 200",
        )
        .await;
    assert_eq!(state, json!(["POST", "200", "sse", true]));
    let statuses: Vec<String> = serde_json::from_value(
        page.js("Array.from(document.querySelectorAll('#protocol .net-row')).map((r) => r.dataset.status)")
            .await,
    )
    .unwrap();
    // The handshake, the tool list, the call, the person's answer (202), the stream (GET).
    assert!(statuses.len() >= 5, "{statuses:?}");
    assert!(
        statuses.iter().all(|s| s == "200" || s == "202"),
        "{statuses:?}"
    );
    assert!(statuses.iter().any(|s| s == "202"), "{statuses:?}");

    // Opened: its headers, the credential and the session's id redacted.
    page.js(&format!("{call_row}.querySelector('.row-btn').click()"))
        .await;
    let redacted = page
        .until(
            "(() => { const d = document.querySelector('#protocol .net-row.selected .net-detail'); \
             const auth = d?.querySelector('tr[data-name=\"authorization\"]'); \
             const session = d?.querySelector('tr[data-name=\"mcp-session-id\"]'); \
             return auth && session ? [auth.dataset.redacted, auth.querySelector('td').textContent, \
             session.dataset.redacted, d.textContent.includes('sk-live')] : null; })()",
            "the exchange did not open on its headers",
        )
        .await;
    assert_eq!(redacted[0], "yes");
    assert_eq!(redacted[1], "Bearer ••• redacted");
    assert_eq!(redacted[2], "yes");
    assert_eq!(redacted[3], false, "the credential itself is on the page");
    page.artifact("network-view").await;

    // From the exchange to its tools/call among the messages.
    let seq = page
        .js("(() => { const b = Array.from(document.querySelectorAll('#protocol .net-row.selected .to-message')) \
             .find((b) => b.textContent.startsWith('→ tools/call')); b?.click(); return b ? Number(b.dataset.seq) : null; })()")
        .await;
    let seq = seq.as_u64().expect("a link to the call's message");
    let json = page
        .until(
            &format!(
                "(() => {{ const row = document.querySelector('#protocol .protocol-row.selected'); \
                 const pre = document.querySelector('#protocol .protocol-detail pre'); \
                 return row && row.dataset.seq === '{seq}' && pre ? pre.textContent : null; }})()"
            ),
            "the link did not lead to the call's message",
        )
        .await;
    let message: Value = serde_json::from_str(json.as_str().unwrap()).unwrap();
    assert_eq!(message["method"], "tools/call");
    assert_eq!(message["params"]["name"], "confirm_action");

    // And back: the message's detail names the exchange that carried it.
    page.click_clear("#protocol .protocol-detail .to-exchange")
        .await;
    let back = page
        .until(
            "(() => { const r = document.querySelector('#protocol .net-row.selected'); \
             return r && document.querySelector('#protocol h2')?.textContent === 'Network: keyed' \
             ? r.querySelector('.m').textContent : null; })()",
            "the message's link did not lead back to its exchange",
        )
        .await;
    assert!(back.as_str().unwrap().starts_with("tools/call"), "{back}");

    // Export: the rows as JSON Lines.
    page.js(
        "(() => { const make = URL.createObjectURL; window.__exported = null; \
           URL.createObjectURL = (b) => { b.text().then((t) => { window.__exported = t; }); return make(b); }; \
           return true; })()",
    )
    .await;
    page.click_clear("#protocol button.log-export").await;
    let exported = page
        .until("window.__exported", "nothing was exported")
        .await;
    let lines: Vec<Value> = exported
        .as_str()
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), statuses.len(), "{exported}");
    assert!(
        lines
            .iter()
            .all(|l| l["server"] == "keyed" && l["method"].is_string()),
        "{exported}"
    );
    assert!(
        !exported.as_str().unwrap().contains("sk-live"),
        "{exported}"
    );

    // A server reached over a pipe has no Network view.
    page.click("#protocol button.log-close").await;
    page.click("li[data-server=\"piped\"] button.log-btn").await;
    let views = page
        .until(
            &format!(
                "(() => document.querySelector('#protocol h2')?.textContent === {} \
                 ? Array.from(document.querySelectorAll('#protocol .segmented button')).map((b) => b.textContent) : null)()",
                js("Protocol: piped")
            ),
            "the pane did not open on the piped server",
        )
        .await;
    assert_eq!(views, json!(["Messages", "Server logs"]));
    page.close().await;
}
