//! A call that becomes a task (the Tasks extension, 2026-07-28), on the page: the demo's
//! `deploy_release` shows its task's status line on its call as the server reports it, asks
//! its approval midway as a card of the call, and ends with its result; Cancel on a task
//! stops it at the server (`tasks/cancel`).

use crate::harness::{call_selector, harness};

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
