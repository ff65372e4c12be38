//! A call that becomes a task, on the page. The Tasks extension (2026-07-28): the demo's
//! `deploy_release` shows its task's status line on its call as the server reports it, asks
//! its approval midway as a card of the call, and ends with its result; a reload while it
//! waits shows the task and its question again. The 2025-11-25 experimental tasks: the
//! published server-everything's `simulate-research-query`, asked about an ambiguous topic,
//! asks which one is meant as a card of the call, and its report names the answer; Cancel on
//! it ends the call cancelled and the task cancelled at the server (its `tasks/list`, in the
//! server's "Resources and prompts" panel).

use interlude_host::{CallStatus, Direction};
use interlude_test_support::NpmPeers;
use serde_json::json;

use crate::harness::{
    Page, SERVER_EVERYTHING, WAIT, call_selector, eventually, harness, harness_with, js,
    server_everything,
};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_shows_its_status_line_asks_midway_and_ends() {
    let page = harness().await;
    page.call_from_sidebar("demo", "deploy_release").await;
    let call = call_selector("demo", "deploy_release");
    // The status line follows the server: a check, then the wait for the approval.
    page.until(
        &format!(
            "(() => {{ const t = document.querySelector('{call} .call-task')?.textContent || ''; return t.includes('Check ') ? t : null; }})()"
        ),
        "the task's status line never named a check",
    )
    .await;
    let (card, _) = page.focused_card("demo", None).await;
    let asked = card.text().await.unwrap();
    assert!(asked.contains("The checks passed for 2.4.0"), "{asked}");
    let line = page.text(&format!("{call} .call-task")).await;
    assert!(line.contains("waiting for you"), "{line}");
    page.artifact("task-asks").await;
    page.field("approve").await.click().await.unwrap();
    page.press_primary(&card).await;
    page.result_containing("demo", "deploy_release", "2.4.0 is deployed to production")
        .await;
    let ended = page
        .until(
            &format!(
                "(() => {{ const t = document.querySelector('{call} .task-status')?.textContent; return t === 'completed' ? t : null; }})()"
            ),
            "the task did not show completed",
        )
        .await;
    assert_eq!(ended, serde_json::json!("completed"));
    page.close().await;
}

/// The research tool of server-everything, on a topic with several meanings: it runs only as a
/// task, and asks midway which meaning is meant.
const RESEARCH: &str = "simulate-research-query";

/// The toolkit's own 2025-11-25 task (the demo's `demo-2025`, over HTTP): the server lists
/// `deploy_release` as allowing a task, so the host calls it as one; its status line follows the
/// checks, its approval arrives on `tasks/result` as a card labelled so, and it ends with its
/// result and `completed`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_toolkit_s_2025_11_25_task_asks_midway_and_ends() {
    let page = harness().await;
    page.call_from_sidebar("demo-2025", "deploy_release").await;
    let call = call_selector("demo-2025", "deploy_release");
    page.until(
        &format!(
            "(() => {{ const t = document.querySelector('{call} .call-task')?.textContent || ''; return t.includes('Check ') ? t : null; }})()"
        ),
        "the task's status line never named a check",
    )
    .await;
    let (card, request) = page.focused_card("demo-2025", None).await;
    let asked = card.text().await.unwrap();
    assert!(asked.contains("The checks passed for 2.4.0"), "{asked}");
    let era = page
        .text(&format!(
            "section.ask[data-request=\"{request}\"] .chip.era-push"
        ))
        .await;
    assert_eq!(era, "2025-11-25 · task");
    page.artifact("task-2025-toolkit-asks").await;
    page.field("approve").await.click().await.unwrap();
    page.press_primary(&card).await;
    page.result_containing(
        "demo-2025",
        "deploy_release",
        "2.4.0 is deployed to production",
    )
    .await;
    page.until(
        &format!(
            "(() => {{ const t = document.querySelector('{call} .task-status')?.textContent; return t === 'completed' ? t : null; }})()"
        ),
        "the task did not show completed",
    )
    .await;
    page.close().await;
}

/// Calls [`RESEARCH`] on "python", ambiguous, from the tool form (the topic typed, the
/// `ambiguous` box ticked), and waits for its question: a card inside the call, focused, that
/// is the call's own request in the host's record. Returns the card's request id.
async fn research_until_it_asks(page: &Page) -> String {
    page.open_composer("everything", RESEARCH).await;
    page.find("#composer [data-field=\"topic\"] input")
        .await
        .send_keys("python")
        .await
        .unwrap();
    page.click("#composer [data-field=\"ambiguous\"] input")
        .await;
    page.press_call().await;
    let (card, request) = page.focused_card("everything", None).await;
    let asked = card.text().await.unwrap();
    assert!(
        asked.contains("The research query \"python\" could have multiple interpretations"),
        "{asked}"
    );
    // The card says how the answer travels: in the 2025-11-25 design, on the task's open
    // `tasks/result` (not the extension's `tasks/update`).
    let era = page
        .text(&format!(
            "section.ask[data-request=\"{request}\"] .chip.era-push"
        ))
        .await;
    assert_eq!(era, "2025-11-25 · task");
    let note = page
        .text(&format!(
            "section.ask[data-request=\"{request}\"] .ask-note"
        ))
        .await;
    assert!(note.contains("tasks/result"), "{note}");
    // The card is the call's: on its call on the page, and in the call's record.
    let call = call_selector("everything", RESEARCH);
    page.find(&format!("{call} section.ask[data-request=\"{request}\"]"))
        .await;
    let record = page.app.host().snapshot();
    let of_call = record
        .calls
        .iter()
        .find(|c| c.tool == RESEARCH)
        .expect("the research call is in the record");
    assert!(
        of_call.requests.iter().any(|r| r.0.to_string() == request),
        "request {request} is not the call's: {:?}",
        of_call.requests
    );
    // The call is a task waiting for the person, and its line says so.
    page.until(
        &format!(
            "(() => {{ const t = document.querySelector('{call} .task-status')?.textContent; return t === 'waiting for you' ? t : null; }})()"
        ),
        "the task did not show it waits for the person",
    )
    .await;
    request
}

/// server-everything 2026.8.31 (2025-11-25 experimental tasks, over stdio): its question
/// arrives as a card of the call, the person picks a meaning, and the report shown as the
/// call's result names it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_everythings_research_task_asks_on_the_page_and_reports_the_answer() {
    let Some(peers) = NpmPeers::locate(&[SERVER_EVERYTHING]) else {
        return;
    };
    let page = harness_with(vec![("everything", server_everything(&peers), None)]).await;
    research_until_it_asks(&page).await;
    // A choice of three meanings; the snake it is.
    for meaning in ["programming", "snake", "comedy"] {
        page.choice("interpretation", meaning).await;
    }
    page.click_choice("interpretation", "snake").await;
    page.artifact("task-research-asks").await;
    page.press("Accept").await;
    let report = page
        .result_containing("everything", RESEARCH, "# Research Report: python (snake)")
        .await;
    assert!(
        report.contains("- **Clarification**: snake"),
        "the report does not name the answer: {report}"
    );
    let call = call_selector("everything", RESEARCH);
    let accepted = page.request_record("everything", RESEARCH, "accept").await;
    assert!(!accepted.is_empty(), "no record of the answer on the call");
    page.until(
        &format!(
            "(() => {{ const t = document.querySelector('{call} .task-status')?.textContent; return t === 'completed' ? t : null; }})()"
        ),
        "the task did not show completed",
    )
    .await;
    page.close().await;
}

/// Cancel on a running 2025-11-25 task (server-everything's research, waiting for its
/// question): the call shows cancelled, its question leaves the page, and the server has the
/// task cancelled — `tasks/cancel` answered, and the task listed `cancelled` in the server's
/// "Resources and prompts" panel (`tasks/list`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_a_task_ends_it_on_the_page_and_at_the_server() {
    let Some(peers) = NpmPeers::locate(&[SERVER_EVERYTHING]) else {
        return;
    };
    let page = harness_with(vec![("everything", server_everything(&peers), None)]).await;
    research_until_it_asks(&page).await;
    let call = call_selector("everything", RESEARCH);
    let task = page
        .app
        .host()
        .snapshot()
        .calls
        .iter()
        .find(|c| c.tool == RESEARCH)
        .and_then(|c| c.task.clone())
        .expect("the call is a task");
    page.click_clear(&format!("{call} button.call-cancel"))
        .await;
    page.wait_gone("section.ask").await;
    let status = page
        .until(
            &format!(
                "document.querySelector({} + ' .status.cancelled')?.textContent ?? null",
                js(&call)
            ),
            "the call did not show as cancelled",
        )
        .await;
    assert_eq!(status, json!("cancelled"));
    // Its task line ends with it (no "waiting for you" under a call that no longer waits), and
    // the call says what was done.
    page.until(
        &format!(
            "(() => {{ const t = document.querySelector('{call} .task-status')?.textContent; return t === 'cancelled' ? t : null; }})()"
        ),
        "the task's line did not end cancelled",
    )
    .await;
    let said = page
        .text(&format!("{call} .result.is-cancelled .text"))
        .await;
    assert_eq!(
        said,
        "cancelled by the person; the server was told to stop its task (tasks/cancel)"
    );
    let record = page
        .app
        .host()
        .snapshot()
        .calls
        .iter()
        .find(|c| c.tool == RESEARCH)
        .cloned()
        .unwrap();
    assert!(
        matches!(record.status, CallStatus::Cancelled { .. }),
        "{:?}",
        record.status
    );

    // The server was told, and said the task is cancelled.
    let server = page.server_id("everything");
    page.logged(server, "no tasks/cancel for the task", |m| {
        m.dir == Direction::Send
            && m.message["method"] == "tasks/cancel"
            && m.message["params"]["taskId"] == task.id.as_str()
    })
    .await;
    page.logged(server, "the server did not answer tasks/cancel", |m| {
        m.dir == Direction::Recv
            && m.message["result"]["taskId"] == task.id.as_str()
            && m.message["result"]["status"] == "cancelled"
    })
    .await;

    // Its task list says so.
    page.click_clear("li[data-server=\"everything\"] button.server-catalog")
        .await;
    let listed = page
        .until(
            &format!(
                "document.querySelector('#catalog .catalog-tasks li[data-task={}] .task-status')?.textContent || null",
                js(&task.id)
            ),
            "the task is not in the server's list",
        )
        .await;
    page.artifact("task-cancelled").await;
    assert_eq!(listed, json!("cancelled"));
    page.close().await;
}

/// A reload while a task waits for its question (the demo's `deploy_release`, the Tasks
/// extension): the new page shows the task's status line and the question again, as a card of
/// the call; answered there, the task ends with the answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reload_while_a_task_waits_shows_its_line_and_question_again() {
    let page = harness().await;
    page.call_from_sidebar("demo", "deploy_release").await;
    let call = call_selector("demo", "deploy_release");
    let (_, before) = page.focused_card("demo", None).await;
    let waiting = format!(
        "(() => {{ const t = document.querySelector('{call} .call-task')?.textContent || ''; \
         return t.includes('waiting for you') && t.includes('The checks passed; waiting for the approval') ? t : null; }})()"
    );
    page.until(&waiting, "the task's line did not say it waits")
        .await;

    // A new page: nothing of the old one is left.
    page.js("window.interludeBeforeReload = true").await;
    page.client().refresh().await.unwrap();
    page.wait_live().await;
    assert_eq!(
        page.js("window.interludeBeforeReload ?? null").await,
        serde_json::Value::Null,
        "the page was not reloaded"
    );
    let line = page
        .until(&waiting, "after the reload the task's line is not shown")
        .await;
    assert!(line.as_str().unwrap().contains("task"), "{line}");
    let (card, after) = page.focused_card("demo", None).await;
    assert_eq!(before, after, "the same question is asked after the reload");
    page.find(&format!("{call} section.ask[data-request=\"{after}\"]"))
        .await;
    let asked = card.text().await.unwrap();
    assert!(asked.contains("The checks passed for 2.4.0"), "{asked}");
    let era = page
        .text(&format!(
            "section.ask[data-request=\"{after}\"] .chip.era-mrtr"
        ))
        .await;
    assert_eq!(era, "2026-07-28 · task");
    page.artifact("task-reloaded").await;

    page.field("approve").await.click().await.unwrap();
    page.field("note")
        .await
        .send_keys("after a reload")
        .await
        .unwrap();
    page.press_primary(&card).await;
    page.result_containing(
        "demo",
        "deploy_release",
        "2.4.0 is deployed to production. Note: after a reload",
    )
    .await;
    let id = eventually("the call to end", WAIT, || {
        page.app
            .host()
            .snapshot()
            .calls
            .iter()
            .find(|c| c.tool == "deploy_release" && c.status != CallStatus::Running)
            .map(|c| c.id)
    })
    .await;
    let task = page.app.host().call(id).unwrap().task.clone().unwrap();
    assert_eq!(task.status, "completed");
    page.close().await;
}
