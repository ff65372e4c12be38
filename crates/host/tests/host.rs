//! The host end to end, in-process: the demo server over `tokio::io::duplex`, through
//! [`Host::connect_transport`], in both protocol eras. Fast, and exactly the host's behaviour:
//! the record of servers and calls, the exact link of every request to its call, the engine's
//! rules on the way out, and what happens when a server goes away. Real transports (child
//! processes, HTTP on 127.0.0.1) are tested in `crates/demo/tests/host.rs`.
// Outside `#[test]` functions too, a panic is how this file's code fails a test.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use interlude_demo::DemoServer;
use interlude_engine::{Answer, CallId, Reply, RequestKind};
use interlude_headless::{Answers, HeadlessSurface};
use interlude_host::{
    AnswerSink, CallStatus, Connection, Direction, Host, HostConfig, HostEvent, ProtocolChoice,
    RequestStatus, ServerState, Surface,
};
use interlude_protocol::ProtocolEra;
use interlude_schema::Content;
use interlude_test_support::surface::{RecordingSurface, Step};
use rmcp::ServiceExt;
use rmcp::model::ProtocolVersion;
use serde_json::{Value, json};
use tokio::task::JoinHandle;

const ERAS: [ProtocolVersion; 2] = [ProtocolVersion::V_2025_11_25, ProtocolVersion::V_2026_07_28];

fn pinned(version: &ProtocolVersion) -> HostConfig {
    HostConfig {
        protocol: ProtocolChoice::Pin(version.clone()),
        ..HostConfig::default()
    }
}

fn content(v: Value) -> Content {
    v.as_object().cloned().expect("an object")
}

fn text_of(result: &rmcp::model::CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The demo server in this process, on one end of a duplex pipe; the host on the other. The
/// returned task serves it (abort it to make the server vanish).
async fn demo(host: &Host, name: &str, version: &ProtocolVersion) -> (Connection, JoinHandle<()>) {
    let (host_end, server_end) = tokio::io::duplex(64 * 1024);
    let server = tokio::spawn(async move {
        if let Ok(running) = DemoServer::default().serve(server_end).await {
            let _ = running.waiting().await;
        }
    });
    let conn = host
        .connect_transport(name, host_end, ProtocolChoice::Pin(version.clone()))
        .await
        .expect("the in-process demo connects");
    (conn, server)
}

/// Like [`demo`], but the pipe between host and server runs through a relay task: aborting the
/// returned relay cuts the connection at once, as a server that crashes does (the server gets
/// no chance to answer anything first).
async fn severable_demo(
    host: &Host,
    name: &str,
    version: &ProtocolVersion,
) -> (Connection, JoinHandle<()>) {
    let (host_end, mut relay_host_side) = tokio::io::duplex(64 * 1024);
    let (mut relay_server_side, server_end) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        if let Ok(running) = DemoServer::default().serve(server_end).await {
            let _ = running.waiting().await;
        }
    });
    let relay = tokio::spawn(async move {
        let _ = tokio::io::copy_bidirectional(&mut relay_host_side, &mut relay_server_side).await;
    });
    let conn = host
        .connect_transport(name, host_end, ProtocolChoice::Pin(version.clone()))
        .await
        .expect("the in-process demo connects");
    (conn, relay)
}

/// Waits (without polling) for the first event `pick` accepts.
async fn wait_for<T>(
    events: &mut tokio::sync::mpsc::UnboundedReceiver<HostEvent>,
    mut pick: impl FnMut(&HostEvent) -> Option<T>,
) -> T {
    let found = async {
        while let Some(event) = events.recv().await {
            if let Some(t) = pick(&event) {
                return Some(t);
            }
        }
        None
    };
    tokio::time::timeout(Duration::from_secs(10), found)
        .await
        .expect("the event came in time")
        .expect("the host is alive")
}

#[tokio::test]
async fn the_record_holds_the_server_its_identity_tools_and_every_call() {
    for version in &ERAS {
        let surface = RecordingSurface::new(vec![
            Step::accept(json!({"name": "Ada Lovelace", "email": "ada@example.com", "age": 36})),
            Step::Answer(Answer::Declined),
            Step::Answer(Answer::Cancelled),
        ]);
        let host = Host::start(pinned(version), surface.clone());
        let (conn, _server) = demo(&host, "demo", version).await;

        let server = host.server(conn.id()).unwrap();
        assert_eq!(server.name, "demo");
        assert_eq!(server.transport, "in-process");
        assert_eq!(server.state, ServerState::Ready);
        let identity = server.identity.as_ref().unwrap();
        assert_eq!(identity.name, "interlude-demo");
        assert_eq!(identity.protocol_version, version.as_str());
        assert_eq!(identity.era, ProtocolEra::of(version));
        let tools: Vec<&str> = server.tools.iter().map(|t| t.name.as_ref()).collect();
        assert!(tools.contains(&"contact_info"), "{tools:?}");

        let accepted = conn.call_tool("contact_info", None).await.unwrap();
        assert_eq!(
            text_of(&accepted.result),
            "Thanks Ada Lovelace (ada@example.com, age 36)."
        );
        let declined = conn.call_tool("confirm_action", None).await.unwrap();
        assert_eq!(text_of(&declined.result), "The user declined.");
        let cancelled = conn.call_tool("github_username", None).await.unwrap();
        assert_eq!(text_of(&cancelled.result), "The user cancelled.");

        let rounds = usize::from(ProtocolEra::of(version) == ProtocolEra::Mrtr);
        for (outcome, action) in [
            (&accepted, "accept"),
            (&declined, "decline"),
            (&cancelled, "cancel"),
        ] {
            let call = host.call(outcome.call).unwrap();
            assert!(matches!(call.status, CallStatus::Completed(_)), "{call:?}");
            assert!(call.ended_at_ms.is_some());
            assert_eq!(call.rounds, rounds, "{version}");
            let [request] = call.requests.as_slice() else {
                panic!("one request per call: {call:?}");
            };
            let request = host.request(*request).unwrap();
            assert_eq!(request.request.call, Some(call.id), "{version}");
            let RequestStatus::Replied(Reply::Answered(given)) = &request.status else {
                panic!("answered: {request:?}");
            };
            assert_eq!(given.action_str(), action);
        }
        // In order: the call started before its request was queued, which was replied to
        // before the call ended.
        let kinds: Vec<&str> = surface
            .seen()
            .events
            .iter()
            .filter_map(|e| match e {
                HostEvent::CallStarted(c) if c.id == accepted.call => Some("started"),
                HostEvent::RequestQueued(r) if r.request.call == Some(accepted.call) => {
                    Some("queued")
                }
                HostEvent::RequestReplied(r) if r.request.call == Some(accepted.call) => {
                    Some("replied")
                }
                HostEvent::CallEnded(c) if c.id == accepted.call => Some("ended"),
                _ => None,
            })
            .collect();
        assert_eq!(
            kinds,
            ["started", "queued", "replied", "ended"],
            "{version}"
        );
        conn.close().await;
        let mut events = surface.events();
        if host.server(conn.id()).unwrap().state != ServerState::Closed {
            wait_for(&mut events, |e| match e {
                HostEvent::ServerChanged(s) if s.state == ServerState::Closed => Some(()),
                _ => None,
            })
            .await;
        }
    }
}

/// Answers each request by what its form asks, after a while (so that several are pending at
/// once), and records which call each request named.
#[derive(Clone, Default)]
struct ByForm {
    links: Arc<Mutex<Vec<Link>>>,
}

/// The first field of a presented form, and the call its request named.
type Link = (String, Option<CallId>);

impl Surface for ByForm {
    fn on_event(&mut self, event: &HostEvent, sink: &AnswerSink) {
        let HostEvent::RequestPresented(record) = event else {
            return;
        };
        let request = &record.request;
        let RequestKind::Form(form) = &request.kind else {
            panic!("a form request");
        };
        let first = form
            .schema
            .fields
            .first()
            .map(|f| f.name.clone())
            .unwrap_or_default();
        self.links
            .lock()
            .unwrap()
            .push((first.clone(), request.call));
        let answer = match first.as_str() {
            "name" => json!({"name": "Ada", "email": "ada@example.com", "age": 36}),
            "username" => json!({"username": "octocat"}),
            "genre" => json!({"genre": "jazz"}),
            other => panic!("unexpected form starting with {other}"),
        };
        let (sink, id) = (sink.clone(), request.id);
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(100)).await;
            sink.answer(id, Answer::Accepted(content(answer)));
        });
    }
}

#[tokio::test]
async fn every_request_names_its_own_call_with_several_calls_in_flight() {
    for version in &ERAS {
        let surface = ByForm::default();
        let host = Host::start(pinned(version), surface.clone());
        let (one, _s1) = demo(&host, "one", version).await;
        let (two, _s2) = demo(&host, "two", version).await;
        // Two calls in flight on one server, one on the other, each asking something.
        let contact = one.start_call("contact_info", None);
        let user = one.start_call("github_username", None);
        let genre = two.start_call("favourite_genre", None);
        let ids = HashMap::from([
            ("name", contact.id()),
            ("username", user.id()),
            ("genre", genre.id()),
        ]);
        let (a, b, c) = tokio::join!(contact.outcome(), user.outcome(), genre.outcome());
        assert_eq!(
            text_of(&a.unwrap().result),
            "Thanks Ada (ada@example.com, age 36)."
        );
        assert_eq!(text_of(&b.unwrap().result), "Hello, @octocat!");
        assert_eq!(text_of(&c.unwrap().result), "Favourite genre: Jazz.");

        let links = surface.links.lock().unwrap().clone();
        assert_eq!(links.len(), 3, "{links:?}");
        for (first_field, call) in &links {
            assert_eq!(
                *call,
                Some(ids[first_field.as_str()]),
                "the {first_field} form names its call ({version})"
            );
        }
        for (first_field, id) in &ids {
            let call = host.call(*id).unwrap();
            assert_eq!(call.requests.len(), 1, "{first_field}: {call:?}");
            let request = host.request(call.requests[0]).unwrap();
            assert_eq!(request.request.call, Some(*id));
        }
    }
}

#[tokio::test]
async fn a_server_that_goes_away_mid_call_ends_its_call_and_request_with_a_notice() {
    for version in &ERAS {
        let surface = RecordingSurface::new(vec![Step::Never]);
        let mut events = surface.events();
        let host = Host::start(pinned(version), surface.clone());
        let (conn, relay) = severable_demo(&host, "doomed", version).await;
        let call = conn.start_call("github_username", None);
        let call_id = call.id();
        let running = tokio::spawn(call.outcome());
        wait_for(&mut events, |e| match e {
            HostEvent::RequestPresented(r) => Some(r.request.id),
            _ => None,
        })
        .await;

        relay.abort();
        // The end is signalled: no sleeping, no polling.
        tokio::time::timeout(Duration::from_secs(5), conn.closed())
            .await
            .expect("the connection's end is signalled");
        // Both are told, in whichever order the transport's end and the server's end came.
        let (mut notice, mut failed) = (None, None);
        wait_for(&mut events, |e| {
            match e {
                HostEvent::RequestClosed(r) => {
                    if let RequestStatus::Closed(n) = &r.status {
                        notice = Some(n.clone());
                    }
                }
                HostEvent::ServerChanged(s) => {
                    if let ServerState::Failed { reason } = &s.state {
                        failed = Some(reason.clone());
                    }
                }
                _ => {}
            }
            (notice.is_some() && failed.is_some()).then_some(())
        })
        .await;
        let (notice, failed) = (notice.unwrap(), failed.unwrap());
        assert_eq!(notice.server, "doomed", "{version}");
        assert!(!notice.text.is_empty());
        // One sentence of the host's on the server's own record, never rmcp's words.
        assert_eq!(failed, "the server closed the connection", "{version}");

        let outcome = running.await.unwrap();
        assert!(outcome.is_err(), "the call fails ({version}): {outcome:?}");
        let call = host.call(call_id).unwrap();
        assert!(matches!(call.status, CallStatus::Failed { .. }), "{call:?}");
        assert!(surface.seen().replies.is_empty(), "nothing was answered");
        assert!(
            host.snapshot()
                .requests
                .iter()
                .all(|r| !r.status.is_pending())
        );
    }
}

#[tokio::test]
async fn an_abandoned_call_is_recorded_as_such_and_its_request_withdrawn() {
    let surface = RecordingSurface::new(vec![Step::Never]);
    let mut events = surface.events();
    let host = Host::start(pinned(&ERAS[0]), surface.clone());
    let (conn, _server) = demo(&host, "demo", &ERAS[0]).await;
    let call = conn.start_call("github_username", None);
    let id = call.id();
    let running = tokio::spawn(call.outcome());
    wait_for(&mut events, |e| {
        matches!(e, HostEvent::RequestPresented(_)).then_some(())
    })
    .await;
    running.abort();
    let ended = wait_for(&mut events, |e| match e {
        HostEvent::CallEnded(c) if c.id == id => Some(c.clone()),
        _ => None,
    })
    .await;
    assert!(
        matches!(&ended.status, CallStatus::Cancelled { reason } if reason.contains("abandoned")),
        "{ended:?}"
    );
    wait_for(&mut events, |e| {
        matches!(e, HostEvent::RequestClosed(_)).then_some(())
    })
    .await;
}

#[tokio::test]
async fn every_seed_example_round_trips_typed_values() {
    for version in &ERAS {
        let surface = RecordingSurface::new(vec![
            Step::accept(json!({"username": "octocat"})),
            Step::accept(json!({"genre": "hip-hop"})),
            Step::accept(json!({"topics": ["research", "events"]})),
            Step::accept(json!({"confirm": true})),
        ]);
        let host = Host::start(pinned(version), surface.clone());
        let (conn, _server) = demo(&host, "demo", version).await;
        let mut texts = Vec::new();
        for tool in [
            "github_username",
            "favourite_genre",
            "newsletter_topics",
            "confirm_action",
        ] {
            texts.push(text_of(&conn.call_tool(tool, None).await.unwrap().result));
        }
        assert_eq!(
            texts,
            [
                "Hello, @octocat!",
                "Favourite genre: HipHop.",
                "Subscribed to Research, Events.",
                "Deleted 3 drafts."
            ],
            "{version}"
        );
    }
}

/// Every `requestedSchema` in `value`, depth first (a pushed question's params, or the input
/// requests of a 2026-07-28 round).
fn requested_schemas(value: &Value, found: &mut Vec<Value>) {
    match value {
        Value::Object(o) => {
            if let Some(schema) = o.get("requestedSchema") {
                found.push(schema.clone());
            }
            o.values().for_each(|v| requested_schemas(v, found));
        }
        Value::Array(a) => a.iter().for_each(|v| requested_schemas(v, found)),
        _ => {}
    }
}

#[tokio::test]
async fn the_record_keeps_each_form_s_requested_schema_as_the_server_sent_it() {
    for version in &ERAS {
        let surface = RecordingSurface::new(vec![
            Step::accept(json!({"username": "octocat"})),
            Step::accept(json!({"username": "hubot"})),
        ]);
        let host = Host::start(pinned(version), surface.clone());
        let (conn, _server) = demo(&host, "demo", version).await;
        let mut kept = Vec::new();
        for _ in 0..2 {
            let outcome = conn.call_tool("github_username", None).await.unwrap();
            let call = host.call(outcome.call).expect("recorded");
            let request = host
                .request(call.requests[0])
                .expect("its request is recorded");
            kept.push(
                request
                    .requested_schema()
                    .cloned()
                    .expect("a form keeps its requestedSchema"),
            );
        }
        let mut sent = Vec::new();
        for message in host.protocol_log(conn.id()) {
            if message.dir == Direction::Recv {
                requested_schemas(&message.message, &mut sent);
            }
        }
        assert_eq!(sent.len(), 2, "{version}: two questions were sent");
        assert_eq!(
            kept, sent,
            "{version}: the record keeps what the server sent"
        );
        assert!(
            kept[0]["properties"]["username"].is_object(),
            "{version}: {}",
            kept[0]
        );
    }
}

#[tokio::test]
async fn an_invalid_answer_never_leaves_the_host() {
    for version in &ERAS {
        let surface = RecordingSurface::new(vec![
            Step::accept(json!({"name": "Ada", "email": "not-an-email", "age": 12})),
            Step::accept(json!({"name": "Ada", "email": "ada@example.com", "age": 36})),
        ]);
        let host = Host::start(pinned(version), surface.clone());
        let (conn, _server) = demo(&host, "demo", version).await;
        let out = conn.call_tool("contact_info", None).await.unwrap();
        assert_eq!(
            text_of(&out.result),
            "Thanks Ada (ada@example.com, age 36)."
        );
        let seen = surface.seen();
        assert_eq!(seen.invalid.len(), 1, "{version}");
        let fields: Vec<&str> = seen.invalid[0].iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["email", "age"]);
        assert_eq!(
            seen.replies,
            [Reply::Answered(Answer::Accepted(content(
                json!({"name": "Ada", "email": "ada@example.com", "age": 36})
            )))]
        );
    }
}

#[tokio::test]
async fn defaults_are_applied_before_the_answer_leaves() {
    let host = Host::start(pinned(&ERAS[0]), HeadlessSurface::new(Answers::Defaults));
    let (conn, _server) = demo(&host, "demo", &ERAS[0]).await;
    let out = conn
        .call_tool("test_elicitation_sep1034_defaults", None)
        .await
        .unwrap();
    assert_eq!(
        text_of(&out.result),
        r#"Elicitation completed: action=accept, content={"name":"John Doe","age":30,"score":95.5,"status":"active","verified":true}"#
    );
    // The audit log says who asked as the server says it is, beside the name it has here.
    assert!(
        host.audit_records()
            .iter()
            .all(|r| r.server_title.as_deref() == Some("Interlude demo")),
        "{:?}",
        host.audit_records()
    );
    let kinds: Vec<String> = host
        .audit_records()
        .iter()
        .map(|r| {
            serde_json::to_value(&r.event).unwrap()["kind"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(kinds, ["received", "accepted"]);
}

#[tokio::test]
async fn the_call_timeout_pauses_while_a_person_answers() {
    for version in &ERAS {
        let surface = RecordingSurface::new(vec![Step::After(
            Duration::from_millis(1200),
            Answer::Accepted(content(json!({"username": "slow-typist"}))),
        )]);
        let config = HostConfig {
            call_timeout: Some(Duration::from_millis(600)),
            ..pinned(version)
        };
        let host = Host::start(config, surface);
        let (conn, _server) = demo(&host, "demo", version).await;
        let out = conn.call_tool("github_username", None).await.unwrap();
        assert_eq!(text_of(&out.result), "Hello, @slow-typist!", "{version}");
    }
}

#[tokio::test]
async fn a_second_live_server_of_the_same_name_is_refused() {
    let host = Host::start(
        HostConfig::default(),
        HeadlessSurface::new(Answers::Defaults),
    );
    let (_conn, _server) = demo(&host, "demo", &ERAS[0]).await;
    let (host_end, _server_end) = tokio::io::duplex(1024);
    let err = host
        .connect_transport("demo", host_end, ProtocolChoice::Auto)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("already connected"), "{err}");
}

// ---------------------------------------------------------------------------------------------
// URL requests. The server toolkit's URL flows come with their own tests; here a bare rmcp
// server plays a URL-mode server (push `elicitation/create` with `mode: "url"` and the
// completion notification, the `-32042` error, and 2026-07-28 rounds), so that the host's part
// is tested on its own.
// ---------------------------------------------------------------------------------------------

mod link_server {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use interlude_protocol::url::ELICITATION_COMPLETE_METHOD;
    use rmcp::ServerHandler;
    use rmcp::model::{
        CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, CustomNotification,
        ElicitRequestParams, ErrorCode, ErrorData, InputRequiredResult, ListToolsResult,
        PaginatedRequestParams, ProtocolVersion, ServerCapabilities, ServerConfig,
        ServerNotification, Tool,
    };
    use rmcp::service::{Peer, RequestContext, RoleServer};
    use serde_json::json;
    use tokio::sync::Notify;

    pub(crate) const LINK: &str = "https://accounts.example.com/connect?flow=f1";
    pub(crate) const KEY_LINK: &str = "https://keys.example.com/enter?flow=k1";

    /// `connect` asks for [`LINK`] and, once the flow is "done" (`finish`), says so and returns;
    /// `needs_key` first fails with -32042 for [`KEY_LINK`], then succeeds.
    #[derive(Clone, Default)]
    pub(crate) struct LinkServer {
        pub(crate) finish: Arc<Notify>,
        key_calls: Arc<AtomicUsize>,
    }

    async fn complete(peer: &Peer<RoleServer>, id: &str) {
        let done = CustomNotification::new(
            ELICITATION_COMPLETE_METHOD,
            Some(json!({ "elicitationId": id })),
        );
        let _ = peer
            .send_notification(ServerNotification::CustomNotification(done))
            .await;
    }

    fn text(t: String) -> CallToolResponse {
        CallToolResponse::Complete(CallToolResult::success(vec![ContentBlock::text(t)]))
    }

    fn url_params(url: &str, id: Option<&str>) -> serde_json::Value {
        let mut p = json!({"mode": "url", "message": "Connect your account", "url": url});
        if let Some(id) = id {
            p["elicitationId"] = json!(id);
        }
        p
    }

    impl ServerHandler for LinkServer {
        fn get_info(&self) -> ServerConfig {
            let mut info = ServerConfig::default();
            info.capabilities = ServerCapabilities::builder().enable_tools().build();
            info
        }

        async fn list_tools(
            &self,
            _request: Option<PaginatedRequestParams>,
            _context: RequestContext<RoleServer>,
        ) -> Result<ListToolsResult, ErrorData> {
            let schema = Arc::new(json!({"type": "object"}).as_object().cloned().unwrap());
            Ok(ListToolsResult::with_all_items(vec![
                Tool::new("connect", "Connect an account", schema.clone()),
                Tool::new("needs_key", "Needs an API key first", schema),
            ]))
        }

        async fn call_tool(
            &self,
            request: CallToolRequestParams,
            context: RequestContext<RoleServer>,
        ) -> Result<CallToolResponse, ErrorData> {
            let mrtr = context
                .protocol_version()
                .is_some_and(|v| v == ProtocolVersion::V_2026_07_28);
            match (request.name.as_ref(), mrtr) {
                ("connect", false) => {
                    let params: ElicitRequestParams =
                        serde_json::from_value(url_params(LINK, Some("flow-1"))).unwrap();
                    let result = context
                        .peer
                        .create_elicitation(params)
                        .await
                        .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
                    let action = serde_json::to_value(result.action).unwrap();
                    if result.content.is_some() {
                        return Ok(text("content came with consent".into()));
                    }
                    self.finish.notified().await;
                    complete(&context.peer, "flow-1").await;
                    Ok(text(format!("connect: {}", action.as_str().unwrap_or("?"))))
                }
                ("connect", true) => {
                    // Round 0 asks; round 1 (consented, flow unfinished) asks again; round 2 ends.
                    let round = match request.request_state.as_deref() {
                        None => 0,
                        Some("r1") => 1,
                        Some("r2") => 2,
                        Some(other) => return Ok(text(format!("bad state {other}"))),
                    };
                    let answered = request
                        .input_responses
                        .as_ref()
                        .and_then(|r| serde_json::to_value(r).ok())
                        .and_then(|v| v["link"]["action"].as_str().map(str::to_owned));
                    if round == 2 {
                        return Ok(text(format!(
                            "connected after {round} rounds: {answered:?}"
                        )));
                    }
                    let ir: InputRequiredResult = serde_json::from_value(json!({
                        "resultType": "input_required",
                        "inputRequests": {"link": {"method": "elicitation/create",
                            "params": url_params(LINK, None)}},
                        "requestState": format!("r{}", round + 1),
                    }))
                    .unwrap();
                    Ok(CallToolResponse::InputRequired(ir))
                }
                (tool @ ("needs_key" | "needs_key_draft"), _) => {
                    if self.key_calls.fetch_add(1, Ordering::SeqCst) == 0 {
                        // The draft (seed 003) has its own code, and its example spells the id
                        // `elicitionId`.
                        let (code, id_key) = if tool == "needs_key" {
                            (-32042, "elicitationId")
                        } else {
                            (-32604, "elicitionId")
                        };
                        let mut required = url_params(KEY_LINK, None);
                        required[id_key] = json!("key-1");
                        let peer = context.peer.clone();
                        let finish = self.finish.clone();
                        tokio::spawn(async move {
                            finish.notified().await;
                            complete(&peer, "key-1").await;
                        });
                        return Err(ErrorData::new(
                            ErrorCode(code),
                            "an API key is needed first",
                            Some(json!({"elicitations": [required]})),
                        ));
                    }
                    Ok(text("key stored".into()))
                }
                ("always_needs_key", _) => {
                    // The same link every time, never completed: a server in a loop.
                    let n = self.key_calls.fetch_add(1, Ordering::SeqCst);
                    let mut required = url_params(KEY_LINK, None);
                    required["elicitationId"] = json!(format!("loop-{n}"));
                    Err(ErrorData::new(
                        ErrorCode(-32042),
                        "an API key is needed first",
                        Some(json!({"elicitations": [required]})),
                    ))
                }
                _ => Err(ErrorData::invalid_params("no such tool", None)),
            }
        }
    }
}

async fn link_host(
    version: &ProtocolVersion,
    steps: Vec<Step>,
) -> (
    Host,
    Connection,
    link_server::LinkServer,
    tokio::sync::mpsc::UnboundedReceiver<HostEvent>,
) {
    let surface = RecordingSurface::new(steps);
    let events = surface.events();
    let public: std::net::IpAddr = "93.184.215.14".parse().unwrap();
    let config = HostConfig {
        resolver: interlude_host::Resolver::fixed([
            ("accounts.example.com", vec![public]),
            ("keys.example.com", vec![public]),
        ]),
        url_wait: Duration::from_secs(10),
        ..pinned(version)
    };
    let host = Host::start(config, surface);
    let server = link_server::LinkServer::default();
    let (host_end, server_end) = tokio::io::duplex(64 * 1024);
    let serving = server.clone();
    tokio::spawn(async move {
        if let Ok(running) = serving.serve(server_end).await {
            let _ = running.waiting().await;
        }
    });
    let conn = host
        .connect_transport("links", host_end, ProtocolChoice::Pin(version.clone()))
        .await
        .expect("the link server connects");
    (host, conn, server, events)
}

fn consent() -> Step {
    Step::Answer(Answer::Accepted(Content::new()))
}

/// 2025-11-25: the link is shown tied to its call, consented to, looked up, replied to without
/// content, handed to the surface to open, and closed by the server's completion notification.
#[tokio::test]
async fn a_push_url_request_is_consented_opened_and_completed() {
    let version = ProtocolVersion::V_2025_11_25;
    let (host, conn, server, mut events) = link_host(&version, vec![consent()]).await;
    let call = conn.start_call("connect", None);
    let call_id = call.id();
    let running = tokio::spawn(call.outcome());
    let opened = wait_for(&mut events, link_opened).await;
    assert_eq!(opened.request.call, Some(call_id));
    assert_eq!(opened.status, RequestStatus::Replied(Reply::Consented));
    let RequestKind::Url(url) = &opened.request.kind else {
        panic!("a URL request");
    };
    assert_eq!(url.url, link_server::LINK);
    assert_eq!(url.elicitation_id.as_deref(), Some("flow-1"));
    assert_eq!(
        opened.link(),
        Some(&interlude_host::LinkState::Opened {
            url: link_server::LINK.into()
        })
    );
    server.finish.notify_one();
    let completed = wait_for(&mut events, link_finished).await;
    assert_eq!(completed.request.id, opened.request.id);
    let outcome = running.await.unwrap().unwrap();
    assert_eq!(text_of(&outcome.result), "connect: accept");
    drop(host);
}

/// 2025-11-25 `-32042`: the required link is presented as a request of the same call, the host
/// waits for its completion, then retries the call once.
#[tokio::test]
async fn a_url_required_error_is_presented_then_the_call_retried_once() {
    // -32042, and the out-of-band draft's -32604 (seed 003) with its `elicitionId` spelling.
    for tool in ["needs_key", "needs_key_draft"] {
        url_required_then_retry(tool).await;
    }
}

async fn url_required_then_retry(tool: &str) {
    let version = ProtocolVersion::V_2025_11_25;
    let (host, conn, server, mut events) = link_host(&version, vec![consent()]).await;
    let call = conn.start_call(tool, None);
    let call_id = call.id();
    let running = tokio::spawn(call.outcome());
    let opened = wait_for(&mut events, link_opened).await;
    assert_eq!(opened.request.call, Some(call_id));
    server.finish.notify_one();
    let outcome = tokio::time::timeout(Duration::from_secs(5), running)
        .await
        .expect("retried after the completion, well before url_wait")
        .unwrap()
        .unwrap();
    assert_eq!(text_of(&outcome.result), "key stored");
    let record = host.call(call_id).unwrap();
    assert_eq!(record.requests, [opened.request.id]);
    assert!(matches!(
        host.request(opened.request.id).unwrap().link(),
        Some(interlude_host::LinkState::Completed { .. })
    ));
}

/// After a `-32042`, the person may say they are done before the server does (its notification
/// may never come): the call is retried at once, not after `url_wait`; the server's late word
/// changes nothing.
#[tokio::test]
async fn a_url_required_call_is_retried_when_the_person_says_done() {
    let version = ProtocolVersion::V_2025_11_25;
    let (host, conn, server, mut events) = link_host(&version, vec![consent()]).await;
    let call = conn.start_call("needs_key", None);
    let running = tokio::spawn(call.outcome());
    let opened = wait_for(&mut events, link_opened).await;
    assert!(!running.is_finished(), "the call waits for the link");
    assert!(host.link_done(opened.request.id));
    let done = wait_for(&mut events, link_finished).await;
    assert!(matches!(
        done.link(),
        Some(interlude_host::LinkState::Done { .. })
    ));
    let outcome = tokio::time::timeout(Duration::from_secs(5), running)
        .await
        .expect("retried at the person's word, well before url_wait (10 s)")
        .unwrap()
        .unwrap();
    assert_eq!(text_of(&outcome.result), "key stored");
    assert!(
        !host.link_done(opened.request.id),
        "nothing waits for it any more"
    );
    server.finish.notify_one();
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(matches!(
        host.request(opened.request.id).unwrap().link(),
        Some(interlude_host::LinkState::Done { .. })
    ));
}

/// A server that answers the retry with `-32042` for the same link again is in a loop: the call
/// ends with a clear error instead of asking the person forever.
#[tokio::test]
async fn the_same_required_link_again_after_the_retry_ends_the_call() {
    let version = ProtocolVersion::V_2025_11_25;
    let (host, conn, _server, mut events) = link_host(&version, vec![consent()]).await;
    let call = conn.start_call("always_needs_key", None);
    let running = tokio::spawn(call.outcome());
    let opened = wait_for(&mut events, link_opened).await;
    assert!(host.link_done(opened.request.id));
    let err = tokio::time::timeout(Duration::from_secs(5), running)
        .await
        .expect("ended at once")
        .unwrap()
        .unwrap_err();
    let text = err.to_string();
    assert!(text.contains("the same link again"), "{text}");
    assert!(text.contains("an API key is needed first"), "{text}");
    assert_eq!(host.snapshot().requests.len(), 1, "asked the person once");
}

/// A `-32042` the person declines ends the call with the server's reason and the person's.
#[tokio::test]
async fn a_declined_url_required_error_ends_the_call() {
    let version = ProtocolVersion::V_2025_11_25;
    let (_host, conn, _server, _events) =
        link_host(&version, vec![Step::Answer(Answer::Declined)]).await;
    let err = conn.call_tool("needs_key", None).await.unwrap_err();
    let text = err.to_string();
    assert!(text.contains("an API key is needed first"), "{text}");
    assert!(text.contains("decline"), "{text}");
}

/// 2026-07-28: consent in the first round; the same link in the next round of the same call is
/// "waiting", and the person's "done" lets the call go on.
#[tokio::test]
async fn an_mrtr_url_request_asked_again_in_the_same_call_waits_for_the_person() {
    let version = ProtocolVersion::V_2026_07_28;
    let (_host, conn, _server, mut events) = link_host(&version, vec![consent(), consent()]).await;
    let call = conn.start_call("connect", None);
    let running = tokio::spawn(call.outcome());
    let mut stages = Vec::new();
    while stages.len() < 2 {
        let stage = wait_for(&mut events, |e| match e {
            HostEvent::RequestPresented(r) => match &r.request.kind {
                RequestKind::Url(u) => Some(u.stage),
                RequestKind::Form(_)
                | RequestKind::AppForm(_)
                | RequestKind::ViewLink(_)
                | RequestKind::Sampling(_) => None,
            },
            _ => None,
        })
        .await;
        stages.push(stage);
    }
    assert_eq!(
        stages,
        [
            interlude_engine::UrlStage::Consent,
            interlude_engine::UrlStage::Waiting
        ]
    );
    let outcome = running.await.unwrap().unwrap();
    assert_eq!(outcome.rounds, 2);
    assert_eq!(
        text_of(&outcome.result),
        "connected after 2 rounds: Some(\"accept\")"
    );
}

/// A call cancelled by the person ends at once for whoever awaits it, its pending request is
/// withdrawn, and the record says so; cancelling it again finds nothing.
#[tokio::test]
async fn a_cancelled_call_ends_and_withdraws_its_request() {
    for version in &ERAS {
        let surface = RecordingSurface::new(vec![Step::Never]);
        let mut events = surface.events();
        let host = Host::start(pinned(version), surface);
        let (conn, _server) = demo(&host, "demo", version).await;
        let call = conn.start_call("contact_info", None);
        let id = call.id();
        let running = tokio::spawn(call.outcome());
        let request = wait_for(&mut events, |e| match e {
            HostEvent::RequestPresented(r) => Some(r.request.id),
            _ => None,
        })
        .await;
        assert!(host.cancel_call(id));
        let err = running.await.unwrap().unwrap_err();
        assert!(
            matches!(err, interlude_host::HostError::Cancelled { .. }),
            "{err}"
        );
        let closed = wait_for(&mut events, |e| match e {
            HostEvent::RequestClosed(r) if r.request.id == request => Some(r.clone()),
            _ => None,
        })
        .await;
        assert!(matches!(closed.status, RequestStatus::Closed(_)));
        let record = host.call(id).unwrap();
        assert_eq!(record.status.as_str(), "cancelled");
        assert!(
            !host.cancel_call(id),
            "{version}: a finished call cannot be cancelled"
        );
    }
}

/// The protocol log ties each message of a call to it: every round's `tools/call` and its
/// response, the question the call raised and the host's answer (push era); the handshake
/// belongs to no call.
#[tokio::test]
async fn the_protocol_log_names_the_call_of_each_message() {
    for version in ERAS {
        let host = Host::start(pinned(&version), HeadlessSurface::new(Answers::Defaults));
        let (conn, _server) = demo(&host, "demo", &version).await;
        let out = conn
            .call_tool("test_elicitation_sep1034_defaults", None)
            .await
            .unwrap();
        let log = host.protocol_log(conn.id());
        let of_call: Vec<String> = log
            .iter()
            .filter(|m| m.call == Some(out.call))
            .map(|m| {
                let what = m.message["method"]
                    .as_str()
                    .map_or_else(|| "response".to_owned(), str::to_owned);
                format!("{:?} {what}", m.dir)
            })
            .collect();
        let expected: &[&str] = if version == ProtocolVersion::V_2025_11_25 {
            &[
                "Send tools/call",
                "Recv elicitation/create",
                "Send response",
                "Recv response",
            ]
        } else {
            &[
                "Send tools/call",
                "Recv response",
                "Send tools/call",
                "Recv response",
            ]
        };
        assert_eq!(of_call, expected, "{version}");
        let initialize = log
            .iter()
            .find(|m| {
                m.message["method"] == "initialize" || m.message["method"] == "server/discover"
            })
            .unwrap();
        assert_eq!(initialize.call, None, "{version}");
        host.close_all().await;
    }
}

/// The record of a request whose link was just opened, from a `RequestChanged` event.
fn link_opened(e: &HostEvent) -> Option<Arc<interlude_host::RequestRecord>> {
    match e {
        HostEvent::RequestChanged(r)
            if matches!(r.link(), Some(interlude_host::LinkState::Opened { .. })) =>
        {
            Some(r.clone())
        }
        _ => None,
    }
}

/// The record of a request whose link's flow just finished (the server or the person said so).
fn link_finished(e: &HostEvent) -> Option<Arc<interlude_host::RequestRecord>> {
    match e {
        HostEvent::RequestChanged(r)
            if matches!(
                r.link(),
                Some(
                    interlude_host::LinkState::Completed { .. }
                        | interlude_host::LinkState::Done { .. }
                )
            ) =>
        {
            Some(r.clone())
        }
        _ => None,
    }
}

/// Sampling answered by a person, in both eras, over the demo's `draft_tagline` (the toolkit's
/// `Ask::sample`): the request is a sampling request tied to its call, with the conversation,
/// the system prompt and the limits; the reply the person writes is the model's; a decline
/// reaches the server as one.
#[tokio::test]
async fn sampling_is_answered_by_the_person_in_both_eras() {
    for version in ERAS {
        let surface = RecordingSurface::new(vec![
            Step::accept(json!({"text": "Boil water with sunshine.", "model": "ada"})),
            Step::Answer(Answer::Declined),
        ]);
        let host = Host::start(pinned(&version), surface.clone());
        let (conn, _server) = demo(&host, "demo", &version).await;
        let call = conn.start_call("draft_tagline", None);
        let call_id = call.id();
        let running = tokio::spawn(call.outcome());
        let outcome = running.await.unwrap().unwrap();
        assert_eq!(
            text_of(&outcome.result),
            "Tagline for a solar-powered kettle: Boil water with sunshine. (written by ada)",
            "{version}"
        );
        let presented = surface.seen().presented;
        let request = presented.first().expect("a request was presented");
        assert_eq!(request.call, Some(call_id), "{version}");
        let RequestKind::Sampling(sampling) = &request.kind else {
            panic!("{version}: not a sampling request: {:?}", request.kind)
        };
        assert_eq!(
            sampling.system_prompt.as_deref(),
            Some("You write short, honest product taglines.")
        );
        assert_eq!(sampling.max_tokens, 60);
        assert_eq!(sampling.model_hints, vec!["claude".to_owned()]);
        // Declining: a 2025 server hears the spec's "user rejected" error (the toolkit reads it
        // as a decline); a 2026-07-28 round has no way to say it, so the call ends, said so.
        let declined = conn.call_tool("draft_tagline", None).await;
        if version == ProtocolVersion::V_2025_11_25 {
            assert_eq!(text_of(&declined.unwrap().result), "The user declined.");
        } else {
            let error = declined.unwrap_err().to_string();
            assert!(error.contains("declined"), "{version}: {error}");
            assert!(error.contains("a model's reply"), "{version}: {error}");
        }
    }
}

/// Roots come from the host's configuration in both eras (the demo's `project_folders`, the
/// toolkit's `Ask::roots`); `Host::set_roots` changes what the next call lists and tells the
/// connected server (`notifications/roots/list_changed` in the protocol log).
#[tokio::test]
async fn roots_are_the_configurations_and_changes_are_told() {
    for version in ERAS {
        let mut config = pinned(&version);
        config.roots = vec![interlude_host::Root {
            uri: "file:///srv/projects/atlas".into(),
            name: Some("atlas".into()),
        }];
        let host = Host::start(config, HeadlessSurface::new(Answers::Defaults));
        let (conn, _server) = demo(&host, "demo", &version).await;
        let listed = conn.call_tool("project_folders", None).await.unwrap();
        assert_eq!(
            text_of(&listed.result),
            "Folders this server may work in:\n- atlas: file:///srv/projects/atlas",
            "{version}"
        );
        host.set_roots(Vec::new());
        let listed = conn.call_tool("project_folders", None).await.unwrap();
        assert!(
            text_of(&listed.result).starts_with("Your client gives this server no folders"),
            "{version}: {}",
            text_of(&listed.result)
        );
        // The list changed while the server was connected: it was told (once the notification
        // went out; the log is written as messages leave).
        let told = async {
            loop {
                let log = host.protocol_log(conn.id());
                if log.iter().any(|m| {
                    m.message.get("method") == Some(&json!("notifications/roots/list_changed"))
                }) {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        };
        tokio::time::timeout(Duration::from_secs(5), told)
            .await
            .unwrap_or_else(|_| panic!("{version}: the server was not told the roots changed"));
    }
}

/// What the host sent server `conn`, as its protocol log has it, in order.
fn sent_to(host: &Host, conn: &interlude_host::Connection) -> Vec<Value> {
    host.protocol_log(conn.id())
        .iter()
        .filter(|m| m.dir == interlude_host::Direction::Send)
        .map(|m| m.message.clone())
        .collect()
}

/// A host told not to declare roots (`HostConfig::declare_roots = false`) says nothing of
/// them in either era — not at `initialize`, not in a 2026-07-28 request's `_meta` — and the
/// demo's `project_folders`, which needs them, fails saying so instead of being given none.
#[tokio::test]
async fn a_host_that_declares_no_roots_says_nothing_of_them() {
    for version in ERAS {
        let mut config = pinned(&version);
        config.declare_roots = false;
        config.roots = vec![interlude_host::Root {
            uri: "file:///srv/projects/atlas".into(),
            name: Some("atlas".into()),
        }];
        let host = Host::start(config, HeadlessSurface::new(Answers::Defaults));
        let (conn, _server) = demo(&host, "demo", &version).await;
        let failed = conn.call_tool("project_folders", None).await;
        let error = match failed {
            Err(e) => e.to_string(),
            Ok(outcome) => text_of(&outcome.result),
        };
        assert!(error.contains("roots"), "{version}: {error}");
        assert!(!error.contains("atlas"), "{version}: {error}");
        let sent: Vec<String> = sent_to(&host, &conn).iter().map(Value::to_string).collect();
        assert!(!sent.is_empty(), "{version}: nothing logged");
        assert!(
            sent.iter().all(|m| !m.contains("\"roots\"")),
            "{version}: roots declared: {sent:#?}"
        );
        // Nobody is told of a change to what was never declared (a call after it: a notice
        // sent at the change would have gone out before the call's answer came back).
        host.set_roots(Vec::new());
        let _ = conn.call_tool("project_folders", None).await;
        assert!(
            host.protocol_log(conn.id())
                .iter()
                .all(|m| m.method() != Some("notifications/roots/list_changed")),
            "{version}"
        );
    }
}

/// Issue 21: servers that misbehave over HTTP hold up nothing else. One drips its answer a
/// byte at a time (about a minute), one answers with an event that never ends; meanwhile a
/// question of the demo is asked, answered and its call completes, and the record answers. The
/// endless event is cut off at the host's limit and its call fails saying so; the dripping call
/// is still waiting when the demo's is done.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_http_servers_hold_up_no_other_server() {
    use interlude_test_support::hostile_http::{HostileHttp, Misbehaviour};
    let version = ProtocolVersion::V_2025_11_25;
    let surface = RecordingSurface::new(vec![Step::accept(json!({"username": "ada"}))]);
    let host = Host::start(pinned(&version), surface.clone());
    let drip = HostileHttp::start(Misbehaviour::SlowDrip).await.unwrap();
    let flood = HostileHttp::start(Misbehaviour::OversizedEvent)
        .await
        .unwrap();
    let spec = |url: &str| interlude_host::ServerSpec::Http {
        url: url.to_owned(),
        headers: Default::default(),
    };
    let dripping = host.connect("drip", spec(drip.url())).await.unwrap();
    let flooding = host.connect("flood", spec(flood.url())).await.unwrap();
    let (conn, _server) = demo(&host, "demo", &version).await;
    let dripping = tokio::spawn(async move { dripping.call_tool("misbehave", None).await });
    let flooding = tokio::spawn(async move { flooding.call_tool("misbehave", None).await });
    interlude_test_support::wait_until(
        "both hostile calls to reach their servers",
        Duration::from_secs(20),
        || (drip.calls() == 1 && flood.calls() == 1).then_some(()),
    )
    .await
    .unwrap();

    let answered = conn.call_tool("github_username", None).await.unwrap();
    assert_eq!(text_of(&answered.result), "Hello, @ada!");
    assert!(host.snapshot().calls.len() >= 3);
    assert!(
        !dripping.is_finished(),
        "the dripping answer is still coming"
    );
    let cut = flooding
        .await
        .unwrap()
        .expect_err("an endless event is no answer");
    assert!(
        cut.to_string()
            .contains("the server sent an event larger than 16 MiB"),
        "{cut}"
    );
    dripping.abort();
}

/// Issue 23: what a server offers besides tools. The demo lists its views as resources, reads
/// one, and lists its one prompt; a resource it does not have is an error naming it.
#[tokio::test]
async fn resources_and_prompts_are_listed_and_read() {
    for version in &ERAS {
        let host = Host::start(pinned(version), RecordingSurface::new(Vec::new()));
        let (conn, _server) = demo(&host, "demo", version).await;
        let resources = conn.list_resources().await.unwrap();
        assert!(
            resources.iter().any(|r| r.uri == "ui://demo/weather"),
            "{resources:?}"
        );
        let read = conn.read_resource("ui://demo/weather").await.unwrap();
        let Some(rmcp::model::ResourceContents::TextResourceContents { text, .. }) =
            read.contents.first()
        else {
            panic!("the view's HTML as text: {read:?}");
        };
        assert!(text.contains("<html"), "{version}");
        let prompts: Vec<String> = conn
            .list_prompts()
            .await
            .unwrap()
            .into_iter()
            .map(|p| p.name)
            .collect();
        assert_eq!(prompts, ["trip_brief"], "{version}");
        let missing = conn.read_resource("ui://demo/nowhere").await.unwrap_err();
        assert!(
            missing.to_string().contains("ui://demo/nowhere"),
            "{missing}"
        );
    }
}

/// A server of this test's own with two prompts and a resource, of which a prompt and the
/// resource ask the person first (a 2026-07-28 `input_required` answer to `prompts/get` and
/// `resources/read`), then use the answer — only with the `requestState` they gave.
#[derive(Clone)]
struct PromptServer;

/// The round a prompt or a read of [`PromptServer`] asks first: a topic, under `requestState`
/// `state`.
fn topic_round(state: &str) -> rmcp::model::InputRequiredResult {
    let request: rmcp::model::InputRequest = serde_json::from_value(json!({
        "method": "elicitation/create",
        "params": {"mode": "form", "message": "Which topic?",
                   "requestedSchema": {"type": "object",
                                       "properties": {"topic": {"type": "string"}},
                                       "required": ["topic"]}}
    }))
    .unwrap();
    rmcp::model::InputRequiredResult::new(
        Some([("topic".to_owned(), request)].into_iter().collect()),
        Some(state.to_owned()),
    )
}

/// The topic a retry carries, when it echoes `state`.
fn topic_of(
    responses: Option<&rmcp::model::InputResponses>,
    echoed: Option<&str>,
    state: &str,
) -> Option<String> {
    if echoed != Some(state) {
        return None;
    }
    let answer = responses?.get("topic")?;
    (answer["action"] == "accept")
        .then(|| answer["content"]["topic"].as_str().map(str::to_owned))?
}

impl rmcp::ServerHandler for PromptServer {
    fn get_info(&self) -> rmcp::model::ServerConfig {
        rmcp::model::ServerConfig::new(
            rmcp::model::ServerCapabilities::builder()
                .enable_prompts()
                .enable_resources()
                .build(),
        )
    }

    async fn list_prompts(
        &self,
        _request: Option<rmcp::model::PaginatedRequestParams>,
        _context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::ListPromptsResult, rmcp::ErrorData> {
        Ok(rmcp::model::ListPromptsResult::with_all_items(vec![
            rmcp::model::Prompt::new("plain", Some("A prompt"), None),
            rmcp::model::Prompt::new("asks_first", Some("A prompt that asks first"), None),
        ]))
    }

    async fn get_prompt(
        &self,
        request: rmcp::model::GetPromptRequestParams,
        _context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::GetPromptResponse, rmcp::ErrorData> {
        use rmcp::model::{GetPromptResponse, GetPromptResult, PromptMessage};
        let text = if request.name == "asks_first" {
            match topic_of(
                request.input_responses.as_ref(),
                request.request_state.as_deref(),
                "prompt-round-1",
            ) {
                Some(topic) => format!("Write about {topic}"),
                None => {
                    return Ok(GetPromptResponse::InputRequired(topic_round(
                        "prompt-round-1",
                    )));
                }
            }
        } else {
            "Hello".to_owned()
        };
        Ok(GetPromptResponse::Complete(GetPromptResult::new(vec![
            PromptMessage::new_text(rmcp::model::Role::User, text),
        ])))
    }

    async fn read_resource(
        &self,
        request: rmcp::model::ReadResourceRequestParams,
        _context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::ReadResourceResponse, rmcp::ErrorData> {
        use rmcp::model::{ReadResourceResponse, ReadResourceResult, ResourceContents};
        match topic_of(
            request.input_responses.as_ref(),
            request.request_state.as_deref(),
            "read-round-1",
        ) {
            Some(topic) => Ok(ReadResourceResponse::Complete(ReadResourceResult::new(
                vec![ResourceContents::text(
                    format!("Notes on {topic}"),
                    request.uri,
                )],
            ))),
            None => Ok(ReadResourceResponse::InputRequired(topic_round(
                "read-round-1",
            ))),
        }
    }
}

/// Issue 23: prompts are listed and got; a prompt or a read that asks the person first
/// (2026-07-28 `input_required`) has its round driven as a tool call's: the person answers
/// the request (tied to no call), and the retry carries the answer and the echoed state.
#[tokio::test]
async fn a_prompt_or_a_read_that_asks_first_gets_its_answer() {
    let version = ProtocolVersion::V_2026_07_28;
    let surface = RecordingSurface::new(vec![
        Step::accept(json!({"topic": "tides"})),
        Step::accept(json!({"topic": "moths"})),
    ]);
    let host = Host::start(pinned(&version), surface.clone());
    let (host_end, server_end) = tokio::io::duplex(64 * 1024);
    let _server = tokio::spawn(async move {
        if let Ok(running) = PromptServer.serve(server_end).await {
            let _ = running.waiting().await;
        }
    });
    let conn = host
        .connect_transport("prompts", host_end, ProtocolChoice::Pin(version))
        .await
        .unwrap();
    let names: Vec<String> = conn
        .list_prompts()
        .await
        .unwrap()
        .into_iter()
        .map(|p| p.name)
        .collect();
    assert_eq!(names, ["plain", "asks_first"]);
    let plain = conn.get_prompt("plain", None).await.unwrap();
    assert_eq!(plain.messages.len(), 1);

    let asked = conn.get_prompt("asks_first", None).await.unwrap();
    let said = serde_json::to_value(&asked.messages).unwrap();
    assert_eq!(said[0]["content"]["text"], "Write about tides", "{said}");
    let read = conn.read_resource("note://today").await.unwrap();
    let read = serde_json::to_value(&read.contents).unwrap();
    assert_eq!(read[0]["text"], "Notes on moths", "{read}");

    // Each was a request for the person, shown with its message and tied to no call.
    let snapshot = host.snapshot();
    let asked: Vec<_> = snapshot
        .requests
        .iter()
        .map(|r| (r.request.message().to_owned(), r.request.call))
        .collect();
    assert_eq!(
        asked,
        [
            ("Which topic?".to_owned(), None),
            ("Which topic?".to_owned(), None)
        ]
    );
    assert!(snapshot.calls.is_empty(), "a prompt is no tool call");
}

/// A stdio server is written to by the host's own line writer: what it sent is in the protocol
/// log as the bytes on the wire (read back as messages), and closing the connection closes the
/// server's stdin — the server sees the end of its input and exits by itself (a killed server
/// would never write its marker).
#[tokio::test]
async fn a_stdio_servers_input_is_logged_as_sent_and_closed_on_close() {
    let dir = std::env::temp_dir().join(format!("interlude-stdin-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let marker = dir.join("ended");
    let _ = std::fs::remove_file(&marker);
    // Answers the 2025-11-25 handshake and `tools/list`; at the end of its input, says so.
    let script = r#"
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    mid = m.get("id")
    if mid is None:
        continue
    if m.get("method") == "initialize":
        r = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
             "serverInfo": {"name": "eof", "version": "1"}}
    else:
        r = {"tools": []}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": mid, "result": r}) + "\n")
    sys.stdout.flush()
open(sys.argv[1], "w").write("end of input")
"#;
    let host = Host::start(
        pinned(&ProtocolVersion::V_2025_11_25),
        HeadlessSurface::new(Answers::Single(Answer::Cancelled)),
    );
    let conn = host
        .connect(
            "eof",
            interlude_host::ServerSpec::Stdio {
                command: "python3".into(),
                args: vec![
                    "-c".into(),
                    script.into(),
                    marker.to_string_lossy().into_owned(),
                ],
                env: Default::default(),
            },
        )
        .await
        .unwrap();

    let sent = sent_to(&host, &conn);
    assert_eq!(
        sent.first().and_then(|m| m["method"].as_str()),
        Some("initialize"),
        "{sent:#?}"
    );
    assert_eq!(sent[0]["params"]["protocolVersion"], "2025-11-25");

    conn.close().await;
    // `close` waits for the server to exit (killing it after 3 s): by then it has written.
    let said = async {
        loop {
            if let Ok(said) = std::fs::read_to_string(&marker)
                && !said.is_empty()
            {
                return said;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    let said = tokio::time::timeout(Duration::from_secs(10), said)
        .await
        .expect("the server saw the end of its input and said so");
    assert_eq!(said, "end of input");
    let _ = std::fs::remove_dir_all(&dir);
}
