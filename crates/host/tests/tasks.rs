//! A call that becomes a task (the Tasks extension, 2026-07-28): the host follows it to its
//! end — its status line on the call's record, its question asked as the call's own request,
//! its answer sent with `tasks/update`, its result the call's — and the person's cancel sends
//! `tasks/cancel`. The server is the demo (`deploy_release`), in this process over a pipe; on
//! 2025-11-25 the same tool is an ordinary call. And the 2025-11-25 experimental tasks against
//! the real server-everything (`simulate-research-query`, which runs only as a task and asks a
//! clarifying question midway). Two tasks in flight at once each end with the answer given to
//! their own question, and a task whose server goes away mid-task ends its call with a
//! sentence, never running on.
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
    let task = host.call(id).unwrap().task.clone().unwrap();
    assert_eq!(task.status, "cancelled", "{task:?}");
}

/// A task call abandoned (its caller drops it, as the terminal's Ctrl-C does) sends
/// `tasks/cancel` for its task too, and the record says the call was cancelled.
#[tokio::test]
async fn abandoning_a_task_call_sends_tasks_cancel() {
    let version = ProtocolVersion::V_2026_07_28;
    let surface = RecordingSurface::new(vec![Step::Never]);
    let host = Host::start(pinned(&version), surface);
    let conn = demo(&host, &version).await;
    let call = conn.start_call("deploy_release", None);
    let id = call.id();
    let running = tokio::spawn(call.outcome());
    let task = interlude_test_support::wait_until(
        "the call to become a task",
        Duration::from_secs(10),
        || host.call(id).and_then(|c| c.task.clone()),
    )
    .await
    .unwrap();
    running.abort();
    let told = interlude_test_support::wait_until(
        "tasks/cancel for the abandoned call's task",
        Duration::from_secs(10),
        || {
            host.protocol_log(conn.id())
                .iter()
                .any(|m| {
                    m.message["method"] == "tasks/cancel"
                        && m.message["params"]["taskId"] == task.id
                })
                .then_some(())
        },
    )
    .await;
    assert!(told.is_ok(), "no tasks/cancel for task {}", task.id);
    let ended = interlude_test_support::wait_until(
        "the abandoned call to end",
        Duration::from_secs(10),
        || host.call(id).filter(|c| c.status != CallStatus::Running),
    )
    .await
    .unwrap();
    assert!(
        matches!(ended.status, CallStatus::Cancelled { .. }),
        "{:?}",
        ended.status
    );
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

/// The demo's `deploy_release` on 2026-07-28, served in this process over a pipe; the server's
/// task is aborted (its transport dropped) by aborting the returned handle.
async fn demo_to_kill(host: &Host) -> (Connection, tokio::task::JoinHandle<()>) {
    let version = ProtocolVersion::V_2026_07_28;
    let (host_end, server_end) = tokio::io::duplex(64 * 1024);
    let server = tokio::spawn(async move {
        if let Ok(running) = DemoServer::default().serve(server_end).await {
            let _ = running.waiting().await;
        }
    });
    let conn = host
        .connect_transport("demo", host_end, ProtocolChoice::Pin(version))
        .await
        .expect("the in-process demo connects");
    (conn, server)
}

/// The request of call `call` that still waits for the person, if there is one.
fn waiting_request(host: &Host, call: interlude_host::CallId) -> Option<interlude_host::RequestId> {
    host.call(call)?
        .requests
        .iter()
        .copied()
        .find(|r| host.request(*r).is_some_and(|r| r.status.is_pending()))
}

fn accepted(values: serde_json::Value) -> interlude_host::Answer<interlude_host::schema::Content> {
    interlude_host::Answer::Accepted(values.as_object().cloned().unwrap())
}

/// Two tasks of one server in flight at once (the Tasks extension), each waiting for its own
/// approval: answered in the opposite order from the one they were asked in, with different
/// answers, each task ends with the answer given to its own question — the host ties each
/// question to its call and sends each answer with `tasks/update` to its own task.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_tasks_in_flight_each_end_with_their_own_answer() {
    let version = ProtocolVersion::V_2026_07_28;
    let host = Host::start(pinned(&version), RecordingSurface::new(vec![]));
    let conn = demo(&host, &version).await;
    let first = conn.start_call(
        "deploy_release",
        json!({"version": "1.0.0"}).as_object().cloned(),
    );
    let second = conn.start_call(
        "deploy_release",
        json!({"version": "2.0.0"}).as_object().cloned(),
    );
    let (a, b) = (first.id(), second.id());
    let first = tokio::spawn(first.outcome());
    let second = tokio::spawn(second.outcome());

    // Both tasks run at once and both ask before either is answered.
    let (asked_a, asked_b) = interlude_test_support::wait_until(
        "both tasks to ask for their approval",
        Duration::from_secs(30),
        || Some((waiting_request(&host, a)?, waiting_request(&host, b)?)),
    )
    .await
    .unwrap();
    let task_a = host
        .call(a)
        .unwrap()
        .task
        .clone()
        .expect("call 1 is a task");
    let task_b = host
        .call(b)
        .unwrap()
        .task
        .clone()
        .expect("call 2 is a task");
    assert_ne!(task_a.id, task_b.id, "two tasks, not one");
    for (request, version) in [(asked_a, "1.0.0"), (asked_b, "2.0.0")] {
        let message = host.request(request).unwrap().request.message().to_owned();
        assert!(
            message.starts_with(&format!("The checks passed for {version} ")),
            "{message}"
        );
    }

    // The second first: its task ends with its answer; the first still waits for its own.
    let sink = host.answer_sink();
    sink.answer(
        asked_b,
        accepted(json!({"approve": true, "note": "second, answered first"})),
    );
    let ended_b = second.await.unwrap().unwrap();
    assert_eq!(ended_b.call, b);
    assert_eq!(
        text(&ended_b.result),
        "2.0.0 is deployed to production. Note: second, answered first"
    );
    assert!(
        host.request(asked_a).unwrap().status.is_pending(),
        "the first task's question went with the second's answer"
    );
    assert_eq!(host.call(a).unwrap().status, CallStatus::Running);

    // Then the first, with a different answer.
    sink.answer(
        asked_a,
        accepted(json!({"approve": true, "note": "first, answered second"})),
    );
    let ended_a = first.await.unwrap().unwrap();
    assert_eq!(ended_a.call, a);
    assert_eq!(
        text(&ended_a.result),
        "1.0.0 is deployed to production. Note: first, answered second"
    );

    // Each answer went to its own task, with `tasks/update`.
    let log = host.protocol_log(conn.id());
    for (task, note) in [
        (&task_a.id, "first, answered second"),
        (&task_b.id, "second, answered first"),
    ] {
        let updates: Vec<_> = log
            .iter()
            .filter(|m| m.message["method"] == "tasks/update")
            .filter(|m| m.message["params"]["taskId"] == **task)
            .collect();
        assert_eq!(updates.len(), 1, "task {task}: {updates:?}");
        let sent = updates[0].message["params"].to_string();
        assert!(sent.contains(note), "task {task} was sent {sent}");
    }
    for (call, task) in [(a, &task_a.id), (b, &task_b.id)] {
        let record = host.call(call).unwrap();
        assert_eq!(record.task.as_ref().unwrap().id, **task);
        assert_eq!(record.task.as_ref().unwrap().status, "completed");
        assert_eq!(record.requests.len(), 1, "{:?}", record.requests);
    }
}

/// A task whose server goes away mid-task (here while its question waits for the person)
/// ends its call with a sentence saying so — failed, not running forever — and its question
/// does not wait on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_whose_server_dies_waiting_for_the_person_ends_failed_with_a_sentence() {
    let version = ProtocolVersion::V_2026_07_28;
    let host = Host::start(pinned(&version), RecordingSurface::new(vec![]));
    let (conn, server) = demo_to_kill(&host).await;
    let call = conn.start_call("deploy_release", None);
    let id = call.id();
    let running = tokio::spawn(call.outcome());
    let asked = interlude_test_support::wait_until(
        "the task to ask for its approval",
        Duration::from_secs(30),
        || waiting_request(&host, id),
    )
    .await
    .unwrap();
    server.abort();
    let ended = tokio::time::timeout(Duration::from_secs(30), running)
        .await
        .expect("the call never ended after its server went away")
        .unwrap();
    assert!(ended.is_err(), "{ended:?}");
    let record = interlude_test_support::wait_until(
        "the call's record to end",
        Duration::from_secs(10),
        || host.call(id).filter(|c| c.status != CallStatus::Running),
    )
    .await
    .unwrap();
    let CallStatus::Failed { reason } = &record.status else {
        panic!("the call ends failed, not {:?}", record.status);
    };
    // "waiting for the person's answer to task `…` on `demo` failed: the connection to the
    // server closed before it answered"
    assert!(
        reason.contains("`demo`") && reason.contains("connection to the server closed"),
        "the sentence does not say the server went away: {reason}"
    );
    assert!(
        reason.contains("waiting for the person's answer"),
        "the person answered nothing: {reason}"
    );
    assert!(record.ended_at_ms.is_some());
    let task = record.task.as_ref().expect("the call's task");
    assert_eq!(
        task.status, "failed",
        "the host no longer follows it: {task:?}"
    );
    let question = interlude_test_support::wait_until(
        "the question to stop waiting",
        Duration::from_secs(10),
        || host.request(asked).filter(|r| !r.status.is_pending()),
    )
    .await
    .unwrap();
    assert!(
        matches!(question.status, RequestStatus::Closed(_)),
        "{:?}",
        question.status
    );
}

/// Likewise while the task works (between two polls): the call ends failed, with a sentence.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_whose_server_dies_while_it_works_ends_failed_with_a_sentence() {
    let version = ProtocolVersion::V_2026_07_28;
    let host = Host::start(pinned(&version), RecordingSurface::new(vec![]));
    let (conn, server) = demo_to_kill(&host).await;
    let call = conn.start_call("deploy_release", None);
    let id = call.id();
    let running = tokio::spawn(call.outcome());
    interlude_test_support::wait_until(
        "the task to report a check",
        Duration::from_secs(30),
        || {
            host.call(id)?
                .task
                .as_ref()?
                .status_message
                .as_ref()
                .filter(|m| m.starts_with("Check "))
                .cloned()
        },
    )
    .await
    .unwrap();
    server.abort();
    let ended = tokio::time::timeout(Duration::from_secs(30), running)
        .await
        .expect("the call never ended after its server went away")
        .unwrap();
    assert!(ended.is_err(), "{ended:?}");
    let record = interlude_test_support::wait_until(
        "the call's record to end",
        Duration::from_secs(10),
        || host.call(id).filter(|c| c.status != CallStatus::Running),
    )
    .await
    .unwrap();
    let CallStatus::Failed { reason } = &record.status else {
        panic!("the call ends failed, not {:?}", record.status);
    };
    // "asking how task `…` stands on `demo` failed: the connection to the server closed
    // before it answered"
    assert!(
        reason.contains("`demo`") && reason.contains("connection to the server closed"),
        "the sentence does not say the server went away: {reason}"
    );
}
