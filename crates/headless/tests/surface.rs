//! The headless surface against the demo server in this process (over `tokio::io::duplex`):
//! what a script answers is what the server gets, in order, and only the form's own
//! properties. What it does not test: links and sampling (the host's and the CLI's tests do).
// Outside `#[test]` functions too, a panic is how this file's code fails a test.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use interlude_demo::DemoServer;
use interlude_headless::{Answers, HeadlessSurface};
use interlude_host::{Answer, Connection, Host, HostConfig, ProtocolChoice, Reply, RequestStatus};
use rmcp::ServiceExt;
use serde_json::json;

async fn demo(host: &Host) -> Connection {
    let (host_end, server_end) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        if let Ok(running) = DemoServer::default().serve(server_end).await {
            let _ = running.waiting().await;
        }
    });
    host.connect_transport("demo", host_end, ProtocolChoice::Auto)
        .await
        .expect("the in-process demo connects")
}

fn text(result: &rmcp::model::CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect()
}

/// The answer the host sent for the call's one request.
fn sent(host: &Host, call: interlude_host::CallId) -> RequestStatus {
    let record = host.call(call).expect("recorded");
    let id = record.requests[0];
    host.snapshot()
        .requests
        .iter()
        .find(|r| r.request.id == id)
        .expect("the request is recorded")
        .status
        .clone()
}

#[tokio::test]
async fn answers_with_the_form_s_properties_only() {
    let answers = Answers::from_json(&json!({"username": "ada", "other": 1})).unwrap();
    let host = Host::start(HostConfig::default(), HeadlessSurface::new(answers));
    let conn = demo(&host).await;
    let out = conn.call_tool("github_username", None).await.unwrap();
    assert_eq!(text(&out.result), "Hello, @ada!");
    assert_eq!(
        sent(&host, out.call),
        RequestStatus::Replied(Reply::Answered(Answer::Accepted(
            json!({"username": "ada"}).as_object().cloned().unwrap()
        )))
    );
}

#[tokio::test]
async fn a_script_is_used_in_order_and_requests_beyond_it_are_cancelled() {
    let script = Answers::from_json(&json!([{"username": "ada"}, {"action": "decline"}])).unwrap();
    let host = Host::start(HostConfig::default(), HeadlessSurface::new(script));
    let conn = demo(&host).await;
    let mut actions = Vec::new();
    for _ in 0..3 {
        let out = conn.call_tool("github_username", None).await.unwrap();
        match sent(&host, out.call) {
            RequestStatus::Replied(Reply::Answered(answer)) => actions.push(answer.action_str()),
            other => panic!("not answered: {other:?}"),
        }
    }
    assert_eq!(actions, ["accept", "decline", "cancel"]);
}
