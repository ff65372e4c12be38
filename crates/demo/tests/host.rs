//! End to end over real transports: the Interlude host against the demo server as a child
//! process (stdio) and on 127.0.0.1 (streamable HTTP), against misbehaving servers (child
//! processes), and the server toolkit against hostile clients, in both protocol eras. The host's
//! behaviour itself is tested in-process in `crates/host/tests/host.rs`.
// Outside `#[test]` functions too, a panic is how this file's code fails a test.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::time::Duration;

use interlude_engine::Answer;
use interlude_headless::{Answers, HeadlessSurface};
use interlude_host::{Host, HostConfig, HostError, ProtocolChoice, ServerSpec, ServerStream};
use interlude_protocol::ProtocolEra;
use interlude_test_support::surface::{RecordingSurface, Step};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientCapabilities, ClientConfig, ElicitRequestParams,
    ElicitResult, ElicitationAction, ElicitationCapability, ErrorData, FormElicitationCapability,
    ProtocolVersion,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RequestContext, RoleClient};
use rmcp::{ClientHandler, ServiceExt};
use serde_json::{Value, json};

const DEMO: &str = env!("CARGO_BIN_EXE_interlude-demo");

/// rmcp's HTTP client is built without a default TLS provider (as in the host): install one.
fn install_tls() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

fn text_of(result: &rmcp::model::CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

#[derive(Clone, Copy, Debug)]
enum Transport {
    Stdio,
    Http,
}

const ERAS: [ProtocolVersion; 2] = [ProtocolVersion::V_2025_11_25, ProtocolVersion::V_2026_07_28];

/// Starts the demo: as a child process (stdio) or on a loopback port (HTTP, in this process).
async fn demo_spec(transport: Transport) -> ServerSpec {
    match transport {
        Transport::Stdio => ServerSpec::parse(DEMO).unwrap(),
        Transport::Http => {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            tokio::spawn(interlude_demo::serve_http(listener, Default::default()));
            ServerSpec::parse(&format!("http://{addr}/mcp")).unwrap()
        }
    }
}

fn pinned(version: &ProtocolVersion) -> HostConfig {
    HostConfig {
        protocol: ProtocolChoice::Pin(version.clone()),
        ..HostConfig::default()
    }
}

fn accept(v: Value) -> Step {
    Step::accept(v)
}

/// The 2025-11-25 experimental tasks end to end, on both transports: the demo lists
/// `deploy_release` as allowing a task and declares task calls; the host reads both off the
/// wire (rmcp drops them) and calls it as a task at once (`params.task`), follows its status
/// line, answers its approval pushed on `tasks/result` (tied to the call), and ends with the
/// result; the call's record holds the task, completed.
#[tokio::test]
async fn a_2025_11_25_task_tool_runs_as_a_task_on_every_transport() {
    let version = ProtocolVersion::V_2025_11_25;
    for transport in [Transport::Stdio, Transport::Http] {
        let surface = RecordingSurface::new(vec![accept(json!({"approve": true}))]);
        let host = Host::start(pinned(&version), surface.clone());
        let conn = host
            .connect("demo", demo_spec(transport).await)
            .await
            .unwrap();
        let ctx = format!("{transport:?}");
        let outcome = conn.call_tool("deploy_release", None).await.unwrap();
        assert_eq!(
            text_of(&outcome.result),
            "2.4.0 is deployed to production.",
            "{ctx}"
        );
        let record = host.call(outcome.call).unwrap();
        let task = record.task.as_ref().expect("the call ran as a task");
        assert_eq!(task.status, "completed", "{ctx}");
        let log = host.protocol_log(conn.id());
        let asked_for_a_task = log.iter().any(|m| {
            m.message["method"] == "tools/call" && m.message["params"]["task"].is_object()
        });
        assert!(asked_for_a_task, "no task call in the log, {ctx}");
        let pushed = log
            .iter()
            .find(|m| m.message["method"] == "elicitation/create");
        let pushed = pushed.expect("the approval was asked");
        assert_eq!(
            pushed.message["params"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
            task.id.as_str(),
            "{ctx}"
        );
        let seen = surface.seen();
        assert_eq!(seen.presented.len(), 1, "{ctx}");
        assert_eq!(
            seen.presented[0].call,
            Some(outcome.call),
            "tied to its call, {ctx}"
        );
        conn.close().await;
    }
}

/// Two 2025-11-25 tasks of one server in flight at once (the demo over stdio), each waiting for
/// its own approval, pushed on its own `tasks/result`: answered in the opposite order, with
/// different notes, each ends with its own — the host ties each pushed question to its call.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_2025_11_25_tasks_in_flight_each_end_with_their_own_answer() {
    let version = ProtocolVersion::V_2025_11_25;
    let host = Host::start(pinned(&version), RecordingSurface::new(vec![]));
    let conn = host
        .connect("demo", demo_spec(Transport::Stdio).await)
        .await
        .unwrap();
    let start =
        |v: &str| conn.start_call("deploy_release", json!({"version": v}).as_object().cloned());
    let (first, second) = (start("1.0.0"), start("2.0.0"));
    let (a, b) = (first.id(), second.id());
    let first = tokio::spawn(first.outcome());
    let second = tokio::spawn(second.outcome());
    let waiting = |call| {
        host.call(call)?
            .requests
            .iter()
            .copied()
            .find(|r| host.request(*r).is_some_and(|r| r.status.is_pending()))
    };
    let (asked_a, asked_b) = interlude_test_support::wait_until(
        "both tasks to ask for their approval",
        Duration::from_secs(30),
        || Some((waiting(a)?, waiting(b)?)),
    )
    .await
    .unwrap();
    for (request, v) in [(asked_a, "1.0.0"), (asked_b, "2.0.0")] {
        let message = host.request(request).unwrap().request.message().to_owned();
        assert!(
            message.starts_with(&format!("The checks passed for {v} ")),
            "{message}"
        );
    }
    let accepted = |note: &str| {
        interlude_engine::Answer::Accepted(
            json!({"approve": true, "note": note})
                .as_object()
                .cloned()
                .unwrap(),
        )
    };
    let sink = host.answer_sink();
    sink.answer(asked_b, accepted("second, answered first"));
    let ended_b = second.await.unwrap().unwrap();
    assert_eq!(
        text_of(&ended_b.result),
        "2.0.0 is deployed to production. Note: second, answered first"
    );
    assert!(host.request(asked_a).unwrap().status.is_pending());
    sink.answer(asked_a, accepted("first, answered second"));
    let ended_a = first.await.unwrap().unwrap();
    assert_eq!(
        text_of(&ended_a.result),
        "1.0.0 is deployed to production. Note: first, answered second"
    );
    let (task_a, task_b) = (
        host.call(a).unwrap().task.clone().unwrap(),
        host.call(b).unwrap().task.clone().unwrap(),
    );
    assert_ne!(task_a.id, task_b.id);
    assert_eq!(
        (task_a.status.as_str(), task_b.status.as_str()),
        ("completed", "completed")
    );
    conn.close().await;
}

/// Whether a server can reach the host outside a tool call: always on stdio; over HTTP once the
/// standalone SSE stream is open (2025-11-25 sessions); never on stateless 2026-07-28 HTTP.
#[tokio::test]
async fn the_server_stream_is_reported_per_transport_and_era() {
    let patience = Duration::from_secs(10);
    for (transport, version, expected) in [
        (Transport::Stdio, &ERAS[0], ServerStream::Open),
        (Transport::Stdio, &ERAS[1], ServerStream::Open),
        (Transport::Http, &ERAS[0], ServerStream::Open),
        (Transport::Http, &ERAS[1], ServerStream::Unavailable),
    ] {
        install_tls();
        let host = Host::start(pinned(version), HeadlessSurface::new(Answers::Defaults));
        let conn = host
            .connect("demo", demo_spec(transport).await)
            .await
            .unwrap();
        let state = conn.wait_server_stream(patience).await;
        assert_eq!(state, expected, "{transport:?} {version}");
        assert_eq!(conn.server_stream(), expected);
        conn.close().await;
    }
}

#[tokio::test]
async fn accept_decline_cancel_on_every_transport_and_era() {
    for transport in [Transport::Stdio, Transport::Http] {
        for version in &ERAS {
            let surface = RecordingSurface::new(vec![
                accept(json!({"name": "Ada Lovelace", "email": "ada@example.com", "age": 36})),
                Step::Answer(Answer::Declined),
                Step::Answer(Answer::Cancelled),
            ]);
            let host = Host::start(pinned(version), surface.clone());
            let conn = host
                .connect("demo", demo_spec(transport).await)
                .await
                .unwrap();
            let ctx = format!("{transport:?} {version}");
            assert_eq!(conn.info().protocol_version, version.as_str(), "{ctx}");
            assert_eq!(conn.info().era, ProtocolEra::of(version), "{ctx}");
            assert_eq!(
                conn.info().server_info.as_ref().map(|i| i.name.as_str()),
                Some("interlude-demo")
            );

            let accepted = conn.call_tool("contact_info", None).await.unwrap();
            assert_eq!(
                text_of(&accepted.result),
                "Thanks Ada Lovelace (ada@example.com, age 36).",
                "{ctx}"
            );
            let expected_rounds = usize::from(ProtocolEra::of(version) == ProtocolEra::Mrtr);
            assert_eq!(accepted.rounds, expected_rounds, "{ctx}");

            let declined = conn.call_tool("confirm_action", None).await.unwrap();
            assert_eq!(text_of(&declined.result), "The user declined.", "{ctx}");
            let cancelled = conn.call_tool("github_username", None).await.unwrap();
            assert_eq!(text_of(&cancelled.result), "The user cancelled.", "{ctx}");

            let seen = surface.seen();
            assert_eq!(seen.presented.len(), 3, "{ctx}");
            let first = &seen.presented[0];
            assert_eq!(&*first.server_name, "demo");
            assert_eq!(first.message(), "Please provide your contact information");
            let interlude_engine::RequestKind::Form(form) = &first.kind else {
                panic!("a form request");
            };
            let names: Vec<&str> = form.schema.fields.iter().map(|f| f.name.as_str()).collect();
            assert_eq!(names, ["name", "email", "age"], "field order kept, {ctx}");
            assert_eq!(first.era, ProtocolEra::of(version));
            assert_eq!(first.call, Some(accepted.call), "tied to its call, {ctx}");
            conn.close().await;
        }
    }
}

/// A question the server asks in its own view (`portfolio_review`, SEP-3118) is presented as
/// one, its view named, on every transport and era: a stdio server's question reaches the
/// engine as JSON, its `_meta` (where the view is named) put back in its params as for a typed
/// one.
#[tokio::test]
async fn a_question_in_a_view_names_its_view_on_every_transport_and_era() {
    for transport in [Transport::Stdio, Transport::Http] {
        for version in &ERAS {
            let surface = RecordingSurface::new(vec![Step::Answer(Answer::Cancelled)]);
            let config = HostConfig {
                declare: interlude_engine::Declared::FORM_AND_URL
                    .with_apps()
                    .with_app_elicitation(),
                ..pinned(version)
            };
            let host = Host::start(config, surface.clone());
            let conn = host
                .connect("demo", demo_spec(transport).await)
                .await
                .unwrap();
            let ctx = format!("{transport:?} {version}");
            let _ = conn.call_tool("portfolio_review", None).await;
            let seen = surface.seen();
            let first = seen.presented.first().unwrap_or_else(|| panic!("{ctx}"));
            let interlude_engine::RequestKind::AppForm(app) = &first.kind else {
                panic!("not asked in its view, {ctx}: {:?}", first.kind);
            };
            assert!(
                app.resource_uri.starts_with("ui://"),
                "{ctx}: {}",
                app.resource_uri
            );
            conn.close().await;
        }
    }
}

fn scripted(mode: &str) -> ServerSpec {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/test_data/scripted_server.py"
    );
    ServerSpec::parse(&format!("python3 {script} {mode}")).unwrap()
}

#[tokio::test]
async fn a_nested_schema_is_refused_with_32602_naming_the_property_and_nothing_is_shown() {
    let surface = RecordingSurface::new(vec![]);
    let host = Host::start(pinned(&ProtocolVersion::V_2025_11_25), surface.clone());
    let conn = host.connect("nested", scripted("nested")).await.unwrap();
    let out = conn.call_tool("ask", None).await.unwrap();
    let reply: Value = serde_json::from_str(&text_of(&out.result)).unwrap();
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(message.contains("address"), "{message}");
    assert_eq!(
        reply["error"]["data"]["field"],
        "requestedSchema.properties.address"
    );
    assert!(surface.seen().presented.is_empty());
    conn.close().await;
}

#[tokio::test]
async fn an_oversized_message_is_refused_and_nothing_is_shown() {
    let surface = RecordingSurface::new(vec![]);
    let host = Host::start(pinned(&ProtocolVersion::V_2025_11_25), surface.clone());
    let conn = host.connect("huge", scripted("huge")).await.unwrap();
    let out = conn.call_tool("ask", None).await.unwrap();
    let reply: Value = serde_json::from_str(&text_of(&out.result)).unwrap();
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    assert_eq!(reply["error"]["data"]["field"], "message");
    assert!(surface.seen().presented.is_empty());
    conn.close().await;
}

#[tokio::test]
async fn a_server_dying_mid_elicitation_closes_the_request_and_the_host_keeps_running() {
    let surface =
        RecordingSurface::new(vec![Step::Never, accept(json!({"username": "still-here"}))]);
    let host = Host::start(pinned(&ProtocolVersion::V_2025_11_25), surface.clone());
    let mut events = surface.events();
    let doomed = host.connect("doomed", scripted("die")).await.unwrap();
    let err = doomed.call_tool("ask", None).await.unwrap_err();
    assert!(matches!(err, HostError::Service { .. }), "{err}");
    assert_eq!(
        err.to_string(),
        "the call to `ask` on `doomed` failed: the server exited with status 3"
    );

    // The pending request was closed with a notice naming the server, as soon as the
    // connection's end was signalled.
    tokio::time::timeout(Duration::from_secs(5), doomed.closed())
        .await
        .expect("the end of the connection is signalled");
    let closing = async {
        while let Some(event) = events.recv().await {
            if matches!(event, interlude_host::HostEvent::RequestClosed(_)) {
                return;
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(5), closing)
        .await
        .expect("the request is closed");
    let closed = surface.seen().closed;
    assert_eq!(closed.len(), 1, "{closed:?}");
    assert_eq!(closed[0].server, "doomed");
    assert!(surface.seen().replies.is_empty());

    // The host is unharmed: another server is served as usual.
    let conn = host
        .connect("demo", demo_spec(Transport::Stdio).await)
        .await
        .unwrap();
    let out = conn.call_tool("github_username", None).await.unwrap();
    assert_eq!(text_of(&out.result), "Hello, @still-here!");
    conn.close().await;
}

/// The reason on server `id`'s record once it failed (it is recorded as the end of the
/// connection is signalled).
async fn failed_reason(host: &Host, id: interlude_engine::ServerId) -> String {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let state = host.server(id).unwrap().state.clone();
        if let interlude_host::ServerState::Failed { reason } = state {
            return reason;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the server never failed: {state:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn a_server_answering_with_something_nested_too_deeply_fails_saying_what_it_sent() {
    let surface = RecordingSurface::new(vec![]);
    let host = Host::start(pinned(&ProtocolVersion::V_2025_11_25), surface.clone());
    let conn = host.connect("deep", scripted("deep")).await.unwrap();
    // rmcp alone skips the line and the call waits for ever.
    let err = tokio::time::timeout(Duration::from_secs(10), conn.call_tool("ask", None))
        .await
        .expect("the call ends")
        .unwrap_err();
    let said = err.to_string();
    let sent = r#"the server sent something that is not a JSON-RPC message: "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[],\"deep\":[[[["#;
    assert!(
        said.starts_with(&format!("the call to `ask` on `deep` failed: {sent}")),
        "{said}"
    );
    assert!(said.ends_with("[[[…\" (nested too deeply)"), "{said}");
    // The record says it too, and the protocol log has the line, marked.
    let reason = failed_reason(&host, conn.id()).await;
    assert!(reason.starts_with(sent), "{reason}");
    assert!(reason.ends_with("(nested too deeply)"), "{reason}");
    let log = host.protocol_log(conn.id());
    let line = log
        .iter()
        .find(|m| m.unparsable.is_some())
        .expect("the line is in the protocol log");
    assert_eq!(line.unparsable.as_deref(), Some("nested too deeply"));
    assert!(
        line.message
            .as_str()
            .unwrap()
            .starts_with(r#"{"jsonrpc":"2.0","id":2,"result""#),
        "{:?}",
        line.message
    );
}

#[tokio::test]
async fn a_server_that_prints_a_traceback_and_exits_says_so_escaped() {
    let surface = RecordingSurface::new(vec![]);
    let host = Host::start(pinned(&ProtocolVersion::V_2025_11_25), surface.clone());
    let conn = host.connect("garbage", scripted("garbage")).await.unwrap();
    let err = conn.call_tool("ask", None).await.unwrap_err();
    let why = "the server exited with status 1 after writing something that is not a JSON-RPC \
               message: \"Traceback (most recent call last): \\u{1b}[31moops\\u{1b}[0m\" (not JSON: \
               expected value at line 1 column 1)";
    assert_eq!(
        err.to_string(),
        format!("the call to `ask` on `garbage` failed: {why}")
    );
    assert_eq!(failed_reason(&host, conn.id()).await, why);
}

#[tokio::test]
async fn a_server_dying_mid_call_or_answering_an_error_says_why_in_a_sentence() {
    let surface = RecordingSurface::new(vec![]);
    let host = Host::start(pinned(&ProtocolVersion::V_2025_11_25), surface.clone());

    let conn = host.connect("crash", scripted("crash")).await.unwrap();
    let err = conn.call_tool("ask", None).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "the call to `ask` on `crash` failed: the server exited with status 3"
    );
    assert_eq!(
        failed_reason(&host, conn.id()).await,
        "the server exited with status 3"
    );
    let call = host.snapshot().calls.last().cloned().unwrap();
    assert_eq!(
        call.status,
        interlude_host::CallStatus::Failed {
            reason: err.to_string()
        }
    );

    let conn = host.connect("error", scripted("error")).await.unwrap();
    let err = conn.call_tool("ask", None).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "the call to `ask` on `error` failed: the server answered with an error: \
         \"the database is down\" (code -32603, internal error); data: \"{\\\"retry\\\":false}\""
    );
    conn.close().await;

    let err = host.connect("early", scripted("early")).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot connect to `early`: the server exited with status 2 before it was ready"
    );
}

/// A client that accepts every elicitation with whatever content it was given, unvalidated: a
/// stand-in for a buggy or hostile host.
#[derive(Clone)]
struct HostileClient {
    content: Value,
}

impl ClientHandler for HostileClient {
    async fn create_elicitation(
        &self,
        _request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        Ok(ElicitResult::new(ElicitationAction::Accept).with_content(self.content.clone()))
    }

    fn get_info(&self) -> ClientConfig {
        let mut caps = ClientCapabilities::default();
        caps.elicitation =
            Some(ElicitationCapability::new().with_form(FormElicitationCapability::new()));
        let mut info = ClientConfig::default();
        info.capabilities = caps;
        info.protocol_version = ProtocolVersion::V_2025_11_25;
        info
    }
}

#[tokio::test]
async fn the_server_toolkit_refuses_invalid_content_from_a_hostile_push_client() {
    let transport =
        rmcp::transport::TokioChildProcess::new(tokio::process::Command::new(DEMO)).unwrap();
    let client = HostileClient {
        content: json!({"name": "Mallory", "email": "mallory@example.com", "age": 12}),
    }
    .serve(transport)
    .await
    .unwrap();
    let err = client
        .call_tool(CallToolRequestParams::new("contact_info"))
        .await
        .unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("-32602") || text.contains("Invalid params") || text.contains("age"),
        "{text}"
    );
    assert!(text.contains("age"), "{text}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn the_server_toolkit_refuses_invalid_or_tampered_round_trip_answers() {
    install_tls();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(interlude_demo::serve_http(listener, Default::default()));
    let transport =
        rmcp::transport::StreamableHttpClientTransport::from_uri(format!("http://{addr}/mcp"));
    let client = HostileClient { content: json!({}) }
        .serve_with_lifecycle(
            transport,
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .unwrap();
    let first = client
        .call_tool_once(CallToolRequestParams::new("contact_info"))
        .await
        .unwrap();
    let CallToolResponse::InputRequired(ir) = first else {
        panic!("expected input_required");
    };
    let requests = ir.input_requests.clone().unwrap();
    let key = requests.keys().next().unwrap().clone();
    let state = ir.request_state.clone().unwrap();

    let retry = |content: Value, state: String| {
        let mut p = CallToolRequestParams::new("contact_info");
        let mut responses = std::collections::BTreeMap::new();
        responses.insert(key.clone(), json!({"action": "accept", "content": content}));
        p.input_responses = Some(responses);
        p.request_state = Some(state);
        p
    };

    // Content that breaks the schema: refused, naming the field.
    let err = client
        .call_tool_once(retry(
            json!({"name": "Mallory", "email": "mallory@example.com", "age": 12}),
            state.clone(),
        ))
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("age"), "{err}");

    // A tampered requestState: refused.
    let mut tampered = state.clone();
    let last = tampered.pop().unwrap();
    tampered.push(if last == 'A' { 'B' } else { 'A' });
    let err = client
        .call_tool_once(retry(
            json!({"name": "Ada", "email": "ada@example.com", "age": 36}),
            tampered,
        ))
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("requestState"), "{err}");

    // A valid answer with the genuine state completes.
    let done = client
        .call_tool_once(retry(
            json!({"name": "Ada", "email": "ada@example.com", "age": 36}),
            state,
        ))
        .await
        .unwrap();
    let CallToolResponse::Complete(result) = done else {
        panic!("expected a complete result");
    };
    assert_eq!(text_of(&result), "Thanks Ada (ada@example.com, age 36).");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_client_without_form_support_is_refused_with_32021_on_2026() {
    #[derive(Clone)]
    struct NoElicitation;
    impl ClientHandler for NoElicitation {}
    install_tls();

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(interlude_demo::serve_http(listener, Default::default()));
    let transport =
        rmcp::transport::StreamableHttpClientTransport::from_uri(format!("http://{addr}/mcp"));
    let client = NoElicitation
        .serve_with_lifecycle(
            transport,
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .unwrap();
    let err = client
        .call_tool_once(CallToolRequestParams::new("contact_info"))
        .await
        .unwrap_err();
    let rmcp::ServiceError::McpError(data) = err else {
        panic!("expected a JSON-RPC error, got {err}");
    };
    assert_eq!(data.code.0, -32021);
    assert_eq!(
        data.data.unwrap()["requiredCapabilities"],
        json!({"elicitation": {"form": {}}})
    );
    client.cancel().await.unwrap();
}

/// The message the bridge posts to view `view` that `pick` accepts (the test plays the view,
/// as the web page relays a real one).
async fn posted_to_view(
    events: &mut tokio::sync::mpsc::UnboundedReceiver<interlude_host::HostEvent>,
    view: interlude_host::ViewId,
    mut pick: impl FnMut(&Value) -> bool,
) -> Value {
    let found = async {
        while let Some(event) = events.recv().await {
            if let interlude_host::HostEvent::ViewMessage { view: v, message } = &event
                && *v == view
                && pick(message)
            {
                return Some(message.clone());
            }
        }
        None
    };
    tokio::time::timeout(Duration::from_secs(15), found)
        .await
        .expect("the view got it in time")
        .expect("the host is alive")
}

/// Everything posted to view `view` within `wait`.
async fn posted_within(
    events: &mut tokio::sync::mpsc::UnboundedReceiver<interlude_host::HostEvent>,
    view: interlude_host::ViewId,
    wait: Duration,
) -> Vec<Value> {
    let mut seen = Vec::new();
    let deadline = tokio::time::Instant::now() + wait;
    while let Ok(Some(event)) = tokio::time::timeout_at(deadline, events.recv()).await {
        if let interlude_host::HostEvent::ViewMessage { view: v, message } = event
            && v == view
        {
            seen.push(message);
        }
    }
    seen
}

/// The demo's weather view calls the slow, app-only `weather_history` through the bridge (the
/// test plays the view over `Host::view_message`, the demo runs as a child process): the
/// server's `notifications/progress` reach the view under the view's own token, then the
/// answer; a call the view cancels is cancelled at the server (`notifications/cancelled` for
/// the forwarded request, with the view's reason), the server stops reporting, and the view
/// hears nothing more of it; a call in flight when the view is closed is cancelled too.
#[tokio::test]
async fn a_views_call_gets_its_progress_and_its_cancellation_reaches_the_server() {
    use interlude_engine::Declared;
    use interlude_host::{Direction, HostEvent, ViewState};

    let surface = RecordingSurface::new(Vec::new());
    let mut events = surface.events();
    let config = HostConfig {
        declare: Declared::FORM_AND_URL.with_apps(),
        ..HostConfig::default()
    };
    let host = Host::start(config, surface);
    let conn = host
        .connect("demo", demo_spec(Transport::Stdio).await)
        .await
        .unwrap();
    let server = conn.id();
    let call = conn.start_call(
        "weather_dashboard",
        json!({"city": "Lisbon"}).as_object().cloned(),
    );
    let running = tokio::spawn(call.outcome());
    let view = loop {
        match tokio::time::timeout(Duration::from_secs(15), events.recv()).await {
            Ok(Some(HostEvent::ViewChanged(v))) if v.state == ViewState::Open => break v.id,
            Ok(Some(_)) => {}
            other => panic!("the view never opened: {other:?}"),
        }
    };
    host.view_message(
        view,
        json!({"jsonrpc": "2.0", "id": 0, "method": "ui/initialize", "params": {
            "appInfo": {"name": "weather", "version": "1"}, "appCapabilities": {},
            "protocolVersion": "2026-01-26"}}),
    );
    posted_to_view(&mut events, view, |m| m["id"] == 0).await;
    host.view_message(
        view,
        json!({"jsonrpc": "2.0", "method": "ui/notifications/initialized"}),
    );
    posted_to_view(&mut events, view, |m| {
        m["method"] == "ui/notifications/tool-result"
    })
    .await;
    running.await.unwrap().unwrap();

    let history = |id: &str, token: &str| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": "weather_history", "arguments": {"city": "Tokyo"},
            "_meta": {"progressToken": token}}})
    };

    // 1. To the end: ten progress notifications under the view's token, then the answer.
    host.view_message(view, history("h1", "view-token-1"));
    let mut progress = Vec::new();
    let answer = loop {
        let m = posted_to_view(&mut events, view, |m| {
            m["method"] == "notifications/progress" || m["id"] == "h1"
        })
        .await;
        if m["id"] == "h1" {
            break m;
        }
        assert_eq!(m["params"]["progressToken"], "view-token-1", "{m}");
        assert_eq!(m["params"]["total"], 10.0, "{m}");
        progress.push(m["params"]["progress"].as_f64().unwrap());
    };
    assert_eq!(
        progress,
        (1..=10).map(f64::from).collect::<Vec<_>>(),
        "every step, in order, before the answer"
    );
    assert_eq!(
        answer["result"]["structuredContent"]["years"], 10,
        "{answer}"
    );

    // 2. Cancelled by the view after its first progress.
    host.view_message(view, history("h2", "view-token-2"));
    let first = posted_to_view(&mut events, view, |m| {
        m["method"] == "notifications/progress"
    })
    .await;
    assert_eq!(first["params"]["progressToken"], "view-token-2");
    host.view_message(
        view,
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {
            "requestId": "h2", "reason": "the person pressed Stop"}}),
    );
    // Longer than the rest of the tool's steps would take (nine × 300 ms).
    let after = posted_within(&mut events, view, Duration::from_millis(3_500)).await;
    assert!(
        after.is_empty(),
        "no late progress, answer or error for a cancelled call: {after:?}"
    );
    let log = host.protocol_log(server);
    // The n-th `weather_history` the host sent the server: its JSON-RPC id there.
    let forwarded = |log: &[std::sync::Arc<interlude_host::LoggedMessage>], n: usize| {
        log.iter()
            .filter(|m| m.view.is_none() && m.dir == Direction::Send)
            .filter(|m| m.method() == Some("tools/call"))
            .filter(|m| m.message["params"]["name"] == "weather_history")
            .nth(n)
            .map(|m| m.message["id"].clone())
    };
    let h2 = forwarded(&log, 1).expect("the second call went to the server");
    let cancels: Vec<&Value> = log
        .iter()
        .filter(|m| m.view.is_none() && m.dir == Direction::Send)
        .filter(|m| m.method() == Some("notifications/cancelled"))
        .map(|m| &m.message["params"])
        .collect();
    assert_eq!(
        cancels,
        [&json!({"requestId": h2, "reason": "the person pressed Stop"})],
        "the server is told once, about the forwarded request"
    );
    // The server stopped: its progress for that request ended with the cancel.
    let token = log
        .iter()
        .find(|m| m.dir == Direction::Send && m.view.is_none() && m.message["id"] == h2)
        .map(|m| m.message["params"]["_meta"]["progressToken"].clone())
        .unwrap();
    let reported = log
        .iter()
        .filter(|m| m.dir == Direction::Recv && m.method() == Some("notifications/progress"))
        .filter(|m| m.message["params"]["progressToken"] == token)
        .count();
    assert!(
        reported < 4,
        "the server went on after the cancel: {reported} progress notifications"
    );

    // 3. In flight when the view is closed: cancelled at the server.
    host.view_message(view, history("h3", "view-token-3"));
    posted_to_view(&mut events, view, |m| {
        m["method"] == "notifications/progress"
    })
    .await;
    host.close_view(view);
    let teardown =
        posted_to_view(&mut events, view, |m| m["method"] == "ui/resource-teardown").await;
    host.view_message(
        view,
        json!({"jsonrpc": "2.0", "id": teardown["id"], "result": {}}),
    );
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let h3 = forwarded(&host.protocol_log(server), 2).expect("the third call went to the server");
    loop {
        let cancelled = host.protocol_log(server).iter().any(|m| {
            m.dir == Direction::Send
                && m.method() == Some("notifications/cancelled")
                && m.message["params"]["requestId"] == h3
                && m.message["params"]["reason"] == "the app view that asked was closed"
        });
        if cancelled {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "closing the view did not cancel its call at the server"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let h3_answer = posted_within(&mut events, view, Duration::from_millis(500)).await;
    assert!(h3_answer.iter().all(|m| m["id"] != "h3"), "{h3_answer:?}");
    host.close_all().await;
}
