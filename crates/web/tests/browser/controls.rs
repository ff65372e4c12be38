//! Everyday controls (issue 23): run a past call again with its arguments filled in, clear the
//! finished calls from the timeline (remembered through a reload of the tab), export what the
//! protocol pane shows as JSON Lines, and disconnect / reconnect a healthy server.

use serde_json::{Value, json};

use crate::harness::{call_selector, harness};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_again_clear_export_and_reconnect() {
    let page = harness().await;
    // A call with arguments, finished.
    page.app
        .call_tool(
            "demo",
            "weather_dashboard",
            serde_json::json!({"city": "Porto"}).as_object().cloned(),
        )
        .await
        .unwrap();
    page.result_containing("demo", "weather_dashboard", "Porto")
        .await;

    // Run again: the tool form opens with the call's arguments; calling runs it again.
    page.click(&format!(
        "{} button.call-again",
        call_selector("demo", "weather_dashboard")
    ))
    .await;
    let city = page
        .until(
            "document.querySelector('#composer [data-field=\"city\"] input')?.value || null",
            "the tool form did not open with the call's arguments",
        )
        .await;
    assert_eq!(city, json!("Porto"));
    page.press_call().await;
    page.until(
        &format!(
            "document.querySelectorAll('{}').length === 2 || null",
            call_selector("demo", "weather_dashboard")
        ),
        "the call did not run again",
    )
    .await;
    let calls = page.app.host().snapshot().calls;
    assert_eq!(calls.len(), 2);
    assert_eq!(
        calls[1].arguments.clone().map(Value::Object),
        Some(json!({"city": "Porto"}))
    );
    page.until(
        "Array.from(document.querySelectorAll('article.call .status')).every((s) => !s.classList.contains('running')) || null",
        "the second call did not finish",
    )
    .await;

    // Export: what the protocol pane shows, as JSON Lines in the trace's shape.
    page.js(
        "(() => { const make = URL.createObjectURL; window.__exported = null; \
           URL.createObjectURL = (b) => { b.text().then((t) => { window.__exported = t; }); return make(b); }; \
           return true; })()",
    )
    .await;
    page.click("li[data-server=\"demo\"] button.log-btn").await;
    page.until(
        "document.querySelector('#protocol .protocol-row') ? true : null",
        "the protocol pane shows nothing",
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
    assert!(lines.len() >= 4, "{exported}");
    for line in &lines {
        assert_eq!(line["server"], "demo", "{line}");
        assert!(
            line["t_ms"].is_u64() && line["message"].is_object(),
            "{line}"
        );
        assert!(line["dir"] == "send" || line["dir"] == "recv", "{line}");
    }
    assert!(
        lines.iter().any(|l| l["message"]["method"] == "tools/call"
            && l["message"]["params"]["arguments"]["city"] == "Porto"),
        "no tools/call in the export: {exported}"
    );

    // Clear finished: the finished calls go from this tab's timeline, and stay gone after a
    // reload; the host's record keeps them.
    page.click_clear("#clear-finished").await;
    page.wait_gone("article.call").await;
    page.client().refresh().await.unwrap();
    page.until(
        "document.getElementById('conn')?.textContent === 'live' || null",
        "the page did not come back",
    )
    .await;
    assert_eq!(
        page.js("document.querySelectorAll('article.call').length")
            .await,
        json!(0)
    );
    assert_eq!(page.app.host().snapshot().calls.len(), 2);

    // Disconnect a healthy server, then Reconnect it.
    page.click("li[data-server=\"demo-2025\"] button.server-disconnect")
        .await;
    page.until(
        "document.querySelector('li[data-server=\"demo-2025\"] button.server-retry')?.textContent === 'Reconnect' || null",
        "no Reconnect after Disconnect",
    )
    .await;
    page.click("li[data-server=\"demo-2025\"] button.server-retry")
        .await;
    page.until(
        "document.querySelector('li[data-server=\"demo-2025\"] .dot.ready') ? true : null",
        "Reconnect did not connect",
    )
    .await;
    page.close().await;
}

/// The protocol pane opens where the person is (it sits above the timeline) and says clock times
/// as the cards do; Close goes back to the button it was opened from (issue 23).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_protocol_pane_comes_to_the_person_and_goes_back() {
    let page = harness().await;
    for city in ["Porto", "Braga", "Faro", "Évora", "Tavira", "Sintra"] {
        page.app
            .call_tool(
                "demo",
                "weather_dashboard",
                json!({ "city": city }).as_object().cloned(),
            )
            .await
            .unwrap();
        page.result_containing("demo", "weather_dashboard", city)
            .await;
    }
    // The last call's Messages button, far down the page.
    let last = format!(
        "Array.from(document.querySelectorAll('{} button.call-messages')).pop()",
        call_selector("demo", "weather_dashboard")
    );
    page.js(&format!("(() => {{ const b = {last}; b.scrollIntoView({{block: 'end'}}); b.focus(); b.click(); return true; }})()"))
        .await;
    page.until(
        "(() => { const p = document.getElementById('protocol'); if (!p || p.hidden || !p.querySelector('.protocol-row')) return null; \
           const r = p.getBoundingClientRect(); return r.top >= 0 && r.top < window.innerHeight ? true : null; })()",
        "the pane opened out of sight",
    )
    .await;
    let time = page
        .until(
            "document.querySelector('#protocol .protocol-row .t')?.textContent || null",
            "no time on the rows",
        )
        .await;
    let time = time.as_str().unwrap();
    let clock = time.len() == 12
        && time.as_bytes()[2] == b':'
        && time.as_bytes()[5] == b':'
        && time.as_bytes()[8] == b'.';
    assert!(clock, "not a clock time: {time}");
    page.click_clear("#protocol button.log-close").await;
    let back = page
        .until(
            "(() => { const a = document.activeElement; return a && a.classList.contains('call-messages') ? a.closest('article.call').querySelector('.result')?.textContent : null; })()",
            "Close did not go back to the button the pane was opened from",
        )
        .await;
    assert!(back.as_str().unwrap().contains("Sintra"), "{back}");
    page.close().await;
}

/// Export session (issue 23): the finished calls, with what the server asked and what the
/// person typed on the page, download as a recording that `interlude replay` reads.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn export_session_downloads_what_was_asked_and_answered() {
    use interlude_headless::recording::{RecordedAnswer, RecordedOutcome, Recording};
    let page = harness().await;
    assert_eq!(
        page.js("document.getElementById('export-session').hidden")
            .await,
        json!(true),
        "nothing to export before a call has ended"
    );
    page.call_from_sidebar("demo", "github_username").await;
    let (card, _) = page.focused_card("demo", None).await;
    page.type_keys("octocat").await;
    page.press_primary(&card).await;
    page.result_containing("demo", "github_username", "octocat")
        .await;
    page.artifact("export-session").await;

    page.js(
        "(() => { const make = URL.createObjectURL; window.__exported = null; \
           URL.createObjectURL = (b) => { b.text().then((t) => { window.__exported = t; }); return make(b); }; \
           return true; })()",
    )
    .await;
    page.click_clear("#export-session").await;
    let exported = page
        .until("window.__exported", "nothing was exported")
        .await;
    let recording = Recording::from_json(exported.as_str().unwrap()).unwrap();
    assert_eq!(recording.calls.len(), 1, "{exported}");
    let call = &recording.calls[0];
    assert_eq!(
        (call.server.as_str(), call.tool.as_str()),
        ("demo", "github_username")
    );
    assert_eq!(
        call.requests[0].asked.message(),
        "Please provide your GitHub username"
    );
    assert_eq!(
        call.requests[0].answer,
        RecordedAnswer::Accept {
            content: json!({"username": "octocat"}).as_object().cloned().unwrap()
        }
    );
    assert!(
        matches!(&call.outcome, RecordedOutcome::Completed { result }
            if result["content"][0]["text"] == "Hello, @octocat!"),
        "{exported}"
    );
    assert_eq!(
        recording.servers["demo"].protocol_version.as_deref(),
        Some("2026-07-28")
    );
    page.close().await;
}
