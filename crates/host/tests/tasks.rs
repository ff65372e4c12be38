//! A call that becomes a task (the Tasks extension, 2026-07-28): the host follows it to its
//! end — its status line on the call's record, its question asked as the call's own request,
//! its answer sent with `tasks/update`, its result the call's — and the person's cancel sends
//! `tasks/cancel`. The server is the demo (`deploy_release`), in this process over a pipe; on
//! 2025-11-25 the same tool is an ordinary call. And the 2025-11-25 experimental tasks against
//! the real server-everything (`simulate-research-query`, which runs only as a task and asks a
//! clarifying question midway).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::time::Duration;

use interlude_demo::DemoServer;
use interlude_host::{
    CallStatus, Connection, Host, HostConfig, HostEvent, ProtocolChoice, RequestStatus,
};
use interlude_test_support::NpmPeers;
use interlude_test_support::surface::{RecordingSurface, Step};
use rmcp::ServiceExt;
use rmcp::model::ProtocolVersion;
use serde_json::json;

async fn demo(host: &Host, version: &ProtocolVersion) -> Connection {
    let (host_end, server_end) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        if let Ok(running) = DemoServer::default().serve(server_end).await {
            let _ = running.waiting().await;
        }
    });
    host.connect_transport("demo", host_end, ProtocolChoice::Pin(version.clone()))
        .await
        .expect("the in-process demo connects")
}

fn pinned(version: &ProtocolVersion) -> HostConfig {
    HostConfig {
        protocol: ProtocolChoice::Pin(version.clone()),
        ..HostConfig::default()
    }
}

fn text(result: &rmcp::model::CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect()
}

#[tokio::test]
async fn a_call_that_becomes_a_task_is_followed_to_its_result() {
    let version = ProtocolVersion::V_2026_07_28;
    let surface = RecordingSurface::new(vec![Step::accept(
        json!({"approve": true, "note": "ship it"}),
    )]);
    let mut events = surface.events();
    let host = Host::start(pinned(&version), surface.clone());
    let conn = demo(&host, &version).await;
    let outcome = conn.call_tool("deploy_release", None).await.unwrap();
    assert_eq!(
        text(&outcome.result),
        "2.4.0 is deployed to production. Note: ship it"
    );

    // The call's record followed the task: its id, its status lines, its end.
    let mut lines = Vec::new();
    while let Ok(event) = events.try_recv() {
        if let HostEvent::CallProgressed(call) = event
            && let Some(task) = &call.task
            && let Some(line) = &task.status_message
            && lines.last() != Some(line)
        {
            lines.push(line.clone());
        }
    }
    for expected in [
        "Check 1 of 3: unit tests",
        "The checks passed; waiting for the approval",
    ] {
        assert!(
            lines.iter().any(|l| l == expected),
            "no status line {expected:?} in {lines:?}"
        );
    }
    let call = host.call(outcome.call).unwrap();
    let task = call.task.as_ref().expect("the call became a task");
    assert_eq!(task.status, "completed");
    assert_eq!(task.poll_interval_ms, Some(500));
    assert!(matches!(call.status, CallStatus::Completed(_)));

    // The approval was the call's own request, answered as the person did.
    assert_eq!(call.requests.len(), 1);
    let request = host.request(call.requests[0]).unwrap();
    assert!(
        request
            .request
            .message()
            .starts_with("The checks passed for 2.4.0"),
        "{}",
        request.request.message()
    );
    assert!(matches!(request.status, RequestStatus::Replied(_)));
}

#[tokio::test]
async fn on_2025_11_25_the_same_tool_is_an_ordinary_call() {
    let version = ProtocolVersion::V_2025_11_25;
    let surface = RecordingSurface::new(vec![Step::accept(json!({"approve": false}))]);
    let host = Host::start(pinned(&version), surface);
    let conn = demo(&host, &version).await;
    let outcome = conn.call_tool("deploy_release", None).await.unwrap();
    assert_eq!(
        text(&outcome.result),
        "2.4.0 was not deployed: it waits for an approval."
    );
    assert!(host.call(outcome.call).unwrap().task.is_none());
}

#[tokio::test]
async fn cancelling_a_task_call_sends_tasks_cancel() {
    let version = ProtocolVersion::V_2026_07_28;
    let surface = RecordingSurface::new(vec![Step::Never]);
    let mut events = surface.events();
    let host = Host::start(pinned(&version), surface.clone());
    let conn = demo(&host, &version).await;
    let call = conn.start_call("deploy_release", None);
    let id = call.id();
    let running = tokio::spawn(call.outcome());
    // Wait until the call is a task.
    loop {
        match tokio::time::timeout(Duration::from_secs(10), events.recv()).await {
            Ok(Some(HostEvent::CallProgressed(c))) if c.id == id && c.task.is_some() => break,
            Ok(Some(_)) => {}
            other => panic!("the call never became a task: {other:?}"),
        }
    }
    assert!(host.cancel_call(id));
    let ended = running.await.unwrap();
    assert!(ended.is_err(), "{ended:?}");
    // The server was told: `tasks/cancel` went out with the task's id.
    let task = host.call(id).unwrap().task.clone().unwrap();
    let mut told = false;
    for _ in 0..200 {
        told = host.protocol_log(conn.id()).iter().any(|m| {
            m.message["method"] == "tasks/cancel" && m.message["params"]["taskId"] == task.id
        });
        if told {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(told, "no tasks/cancel for task {}", task.id);
    let CallStatus::Cancelled { reason } = host.call(id).unwrap().status.clone() else {
        panic!("the call ends cancelled");
    };
    assert!(reason.contains("tasks/cancel"), "{reason}");
}

const SERVER_EVERYTHING: &str = "@modelcontextprotocol/server-everything/dist/index.js";

/// server-everything 2026.8.31 speaks 2025-11-25 and its `simulate-research-query` runs only
/// as a task (SEP-1686); a plain call is an `isError` result saying so. The host calls it as a
/// task, follows its status, and answers its clarifying question (pushed on `tasks/result`) as
/// the call's own request.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_everythings_research_task_asks_midway_and_ends_with_its_report() {
    let Some(peers) = NpmPeers::locate(&[SERVER_EVERYTHING]) else {
        return;
    };
    let surface =
        RecordingSurface::new(vec![Step::accept(json!({"interpretation": "programming"}))]);
    let host = Host::start(HostConfig::default(), surface);
    let spec = peers.stdio_spec(SERVER_EVERYTHING, &["stdio"]);
    let conn = host.connect("everything", spec).await.unwrap();
    let arguments = json!({"topic": "python", "ambiguous": true});
    let outcome = conn
        .call_tool("simulate-research-query", arguments.as_object().cloned())
        .await
        .unwrap();
    let report = text(&outcome.result);
    assert!(
        report.contains("# Research Report: python (programming)"),
        "{report}"
    );
    let call = host.call(outcome.call).unwrap();
    let task = call.task.as_ref().expect("the call became a task");
    assert_eq!(task.status, "completed", "{task:?}");
    assert_eq!(
        call.requests.len(),
        1,
        "the clarifying question is the call's own"
    );
    let asked = host.request(call.requests[0]).unwrap();
    assert!(
        matches!(asked.status, RequestStatus::Replied(_)),
        "{:?}",
        asked.status
    );

    // The server's task list has it, ended.
    let listed = conn
        .list_tasks()
        .await
        .unwrap()
        .expect("it offers a task list");
    let mine = listed
        .iter()
        .find(|t| t.id == task.id)
        .unwrap_or_else(|| panic!("task {} not listed: {listed:?}", task.id));
    assert_eq!(mine.status, "completed");
}

#[tokio::test]
async fn a_2026_server_offers_no_task_list() {
    let version = ProtocolVersion::V_2026_07_28;
    let host = Host::start(pinned(&version), RecordingSurface::new(Vec::new()));
    let conn = demo(&host, &version).await;
    assert_eq!(conn.list_tasks().await.unwrap(), None);
}
