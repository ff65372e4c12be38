//! Resources and prompts of a server, browsed on the page: the published server-everything
//! (npm peer, over stdio) lists its documents, its dynamic text and blob templates and its
//! prompts; the person reads a document, fills a template's variable and reads what it names
//! (text, then a blob offered as a download), and gets a prompt with its argument.

use interlude_test_support::NpmPeers;

use crate::harness::{SERVER_EVERYTHING, harness, harness_with, server_everything};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_everything_resources_and_prompts_through_the_page() {
    let Some(peers) = NpmPeers::locate(&[SERVER_EVERYTHING]) else {
        return;
    };
    let page = harness_with(vec![("everything", server_everything(&peers), None)]).await;
    page.click_clear("li[data-server=\"everything\"] button.server-catalog")
        .await;
    // Focus goes to the panel, which lists what the server offers.
    page.until(
        "document.activeElement?.closest('#catalog') ? true : null",
        "focus did not go to the catalog",
    )
    .await;
    page.wait_for(
        "#catalog .catalog-resources button.catalog-read",
        "no resources listed",
    )
    .await;
    let listed = page.text("#catalog").await;
    assert!(listed.contains("architecture.md"), "{listed}");
    assert!(
        listed.contains("args-prompt") || listed.contains("Arguments Prompt"),
        "{listed}"
    );
    assert!(
        listed.contains("demo://resource/dynamic/text/{resourceId}"),
        "{listed}"
    );

    // A document: its text, with Copy.
    page.click_clear("#catalog button.catalog-read[data-uri$=\"architecture.md\"]")
        .await;
    let text = page
        .until(
            "document.querySelector('#catalog .catalog-result .catalog-text')?.textContent || null",
            "the document was not shown",
        )
        .await;
    assert!(text.as_str().unwrap_or_default().len() > 100, "{text}");
    page.find("#catalog .catalog-result button.copy").await;

    // A template: the variable is a field; the URI is built from it.
    let text_template = "#catalog li[data-template=\"demo://resource/dynamic/text/{resourceId}\"]";
    let field = page
        .find(&format!("{text_template} input[name=\"resourceId\"]"))
        .await;
    field.send_keys("3").await.unwrap();
    page.click_clear(&format!("{text_template} button[type=\"submit\"]"))
        .await;
    let read = page
        .until(
            "(() => { const r = document.querySelector('#catalog .catalog-result'); return r && r.dataset.uri === 'demo://resource/dynamic/text/3' ? r.textContent : null; })()",
            "the template's resource was not read",
        )
        .await;
    assert!(
        read.as_str().unwrap_or_default().contains("Resource 3"),
        "{read}"
    );

    // A blob: offered as a download, with its size.
    let blob_template = "#catalog li[data-template=\"demo://resource/dynamic/blob/{resourceId}\"]";
    let field = page
        .find(&format!("{blob_template} input[name=\"resourceId\"]"))
        .await;
    field.send_keys("5").await.unwrap();
    page.click_clear(&format!("{blob_template} button[type=\"submit\"]"))
        .await;
    let download = page
        .until(
            "document.querySelector('#catalog .catalog-result a.catalog-download')?.textContent || null",
            "the blob was not offered",
        )
        .await;
    assert!(
        download
            .as_str()
            .unwrap_or_default()
            .starts_with("Download ("),
        "{download}"
    );

    // A prompt with its argument.
    let prompt = "#catalog li[data-prompt=\"args-prompt\"]";
    let city = page.find(&format!("{prompt} input[name=\"city\"]")).await;
    city.send_keys("Lisbon").await.unwrap();
    page.click_clear(&format!("{prompt} button[type=\"submit\"]"))
        .await;
    let said = page
        .until(
            "document.querySelector('#catalog .catalog-result[data-prompt] .catalog-message .said')?.textContent || null",
            "the prompt's messages were not shown",
        )
        .await;
    assert_eq!(
        said.as_str().unwrap_or_default(),
        "What's weather in Lisbon?"
    );
    page.artifact("catalog").await;

    // Completion: what the server suggests as the person types, the earlier argument given as
    // context (the team members depend on the department).
    let team = "#catalog li[data-prompt=\"completable-prompt\"]";
    // The suggestions of field `name` once they are `expected` (each answer replaces the last).
    let suggested = |name: &str, expected: &str| {
        format!(
            "(() => {{ const i = document.querySelector('{team} input[name=\"{name}\"]'); const l = i && i.list; const got = l ? Array.from(l.options).map((o) => o.value).join(',') : ''; return got === '{expected}' ? got : null; }})()"
        )
    };
    let department = page
        .find(&format!("{team} input[name=\"department\"]"))
        .await;
    department.send_keys("Eng").await.unwrap();
    page.until(
        &suggested("department", "Engineering"),
        "the departments starting Eng were not suggested",
    )
    .await;
    department.clear().await.unwrap();
    department.send_keys("Sales").await.unwrap();
    let name = page.find(&format!("{team} input[name=\"name\"]")).await;
    name.send_keys("").await.unwrap();
    name.click().await.unwrap();
    page.until(
        &suggested("name", "David,Eve,Frank"),
        "the Sales team was not suggested",
    )
    .await;

    // Close: the panel goes; the server's button says so.
    page.click_clear("#catalog button.catalog-close").await;
    page.wait_gone("#catalog:not([hidden])").await;
    let pressed = page
        .js("document.querySelector('li[data-server=\"everything\"] button.server-catalog').getAttribute('aria-pressed')")
        .await;
    assert_eq!(pressed, serde_json::json!("false"));

    // Its tasks (2025-11-25 `tasks/list`): a research query, which runs only as a task, is
    // listed once it has run, with its status.
    page.app
        .call_tool(
            "everything",
            "simulate-research-query",
            serde_json::json!({"topic": "tides"}).as_object().cloned(),
        )
        .await
        .unwrap();
    page.result_containing(
        "everything",
        "simulate-research-query",
        "# Research Report: tides",
    )
    .await;
    page.click_clear("li[data-server=\"everything\"] button.server-catalog")
        .await;
    let status = page
        .until(
            "(() => { const s = document.querySelector('#catalog .catalog-tasks li[data-task] .task-status')?.textContent; return s === 'completed' ? s : null; })()",
            "the finished task is not listed",
        )
        .await;
    assert_eq!(status, serde_json::json!("completed"));
    page.artifact("catalog-tasks").await;
}

/// The demo's `trip_brief` asks the person how long the trip is before it is written: on
/// 2026-07-28 as the `input_required` answer to `prompts/get` (the host drives the round), on
/// a 2025 session as an `elicitation/create` pushed while the prompt request waits. Either
/// way the question is a card like any other, and the prompt's messages carry the answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_that_asks_first_is_answered_on_the_page_in_both_eras() {
    let page = harness().await;
    for (server, days) in [("demo", "5"), ("demo-2025", "2")] {
        page.click_clear(&format!(
            "li[data-server=\"{server}\"] button.server-catalog"
        ))
        .await;
        let prompt = "#catalog li[data-prompt=\"trip_brief\"]";
        page.wait_for(prompt, "the demo's prompt is not listed")
            .await;
        let city = page.find(&format!("{prompt} input[name=\"city\"]")).await;
        city.send_keys("Porto").await.unwrap();
        page.click_clear(&format!("{prompt} button[type=\"submit\"]"))
            .await;
        // The server asks first: a card, focused, with the question.
        let (card, _) = page.focused_card(server, None).await;
        let asked = card.text().await.unwrap();
        assert!(
            asked.contains("How many days is the trip to Porto?"),
            "{asked}"
        );
        let field = page.field("days").await;
        field.clear().await.unwrap();
        field.send_keys(days).await.unwrap();
        page.press_primary(&card).await;
        let said = page
            .until(
                "document.querySelector('#catalog .catalog-result[data-prompt] .catalog-message .said')?.textContent || null",
                "the prompt's messages were not shown",
            )
            .await;
        assert_eq!(
            said.as_str().unwrap_or_default(),
            format!(
                "Plan a {days}-day trip to Porto: a day-by-day outline, one sight and one meal a day."
            ),
            "{server}"
        );
        if server == "demo" {
            page.artifact("catalog-prompt-asks").await;
        }
        page.click_clear("#catalog button.catalog-close").await;
        page.wait_gone("#catalog:not([hidden])").await;
    }
}

/// Issue 23: a resource subscribed to on the page. Subscribe on server-everything's document
/// (2025: `resources/subscribe`); its simulated updates (started by its own tool, which sends one
/// at once) mark the resource "updated hh:mm:ss"; the mark reads it again; a reload shows the
/// subscription (the host's record); Unsubscribe ends it. A server that declares no
/// subscriptions says so and offers no toggle.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resource_subscribed_to_shows_when_it_was_updated() {
    let Some(peers) = NpmPeers::locate(&[SERVER_EVERYTHING]) else {
        return;
    };
    const URI: &str = "demo://resource/static/document/architecture.md";
    let page = harness_with(vec![("everything", server_everything(&peers), None)]).await;
    let open_catalog = async |server: &str| {
        page.click_clear(&format!(
            "li[data-server=\"{server}\"] button.server-catalog"
        ))
        .await;
        page.until(
            &format!(
                "document.querySelector('#catalog h2')?.textContent === 'Resources and prompts of {server}' && document.querySelector('#catalog .catalog-resources button.catalog-read') ? true : null"
            ),
            "no resources listed",
        )
        .await;
    };

    // The demo declares no subscriptions: said, and no toggle.
    open_catalog("demo").await;
    let note = page.text("#catalog .catalog-no-subscriptions").await;
    assert!(note.contains("offers no subscriptions"), "{note}");
    assert_eq!(
        page.js("document.querySelectorAll('#catalog button.catalog-subscribe').length")
            .await,
        serde_json::json!(0)
    );

    open_catalog("everything").await;
    let toggle = format!("#catalog li[data-resource=\"{URI}\"] button.catalog-subscribe");
    let pressed = format!(
        "document.querySelector('{toggle}')?.getAttribute('aria-pressed') === 'true' ? 'true' : null"
    );
    page.wait_for(&toggle, "no Subscribe on the document").await;
    assert_eq!(page.text(&toggle).await, "Subscribe");
    page.click_clear(&toggle).await;
    page.until(&pressed, "the toggle did not say subscribed")
        .await;
    assert_eq!(page.text(&toggle).await, "Unsubscribe");

    // The server's updates start with one at once.
    let conn = page.app.host().connection_named("everything").unwrap();
    conn.call_tool("toggle-subscriber-updates", None)
        .await
        .unwrap();
    let mark = format!("#catalog li[data-resource=\"{URI}\"] button.catalog-updated");
    let marked = format!(
        "(() => {{ const t = document.querySelector('{mark}')?.textContent || ''; return /^updated \\d\\d:\\d\\d:\\d\\d$/.test(t) ? t : null; }})()"
    );
    let said = page.until(&marked, "no 'updated' mark").await;
    // The time is the host's record of the last update, on this computer's clock.
    let record = page.app.host().server(conn.id()).unwrap();
    let at = record.catalog.subscriptions[URI].updated_at_ms.unwrap();
    let clock = page
        .js(&format!(
            "(() => {{ const d = new Date({at}); const t = (n) => String(n).padStart(2, '0'); return `updated ${{t(d.getHours())}}:${{t(d.getMinutes())}}:${{t(d.getSeconds())}}`; }})()"
        ))
        .await;
    // Another update may have come between the two looks (every 5 s): then the mark moved on.
    let now = page.text(&mark).await;
    assert!(
        said == clock || serde_json::json!(now) == clock,
        "{said} / {now} / {clock}"
    );
    page.artifact("catalog-subscribed").await;

    // The mark reads the resource again.
    page.click_clear(&mark).await;
    page.until(
        &format!(
            "document.querySelector('#catalog .catalog-result[data-uri=\"{URI}\"] .catalog-text') ? true : null"
        ),
        "the resource was not read again",
    )
    .await;

    // A reload shows the subscription and its mark: they are the host's.
    page.open().await;
    open_catalog("everything").await;
    page.until(&pressed, "after a reload the toggle did not say subscribed")
        .await;
    page.until(&marked, "after a reload no 'updated' mark")
        .await;

    // Unsubscribe: the toggle says so, the mark goes, the record has it no more.
    page.click_clear(&toggle).await;
    page.until(
        &format!(
            "document.querySelector('{toggle}')?.getAttribute('aria-pressed') === 'false' && !document.querySelector('{mark}') ? true : null"
        ),
        "the toggle did not say unsubscribed",
    )
    .await;
    let record = page.app.host().server(conn.id()).unwrap();
    assert!(!record.catalog.is_subscribed(URI));
    // Its simulated updates stop.
    conn.call_tool("toggle-subscriber-updates", None)
        .await
        .unwrap();
}
