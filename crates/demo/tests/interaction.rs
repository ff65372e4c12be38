//! The User Interaction draft (seed 000) end to end over stdio: the Interlude host against a
//! server written by hand against the draft's JSON (`test_data/interaction_server.py`, not the
//! toolkit), and the host against the demo server, whose toolkit speaks the draft to a client
//! that declares it.
// Outside `#[test]` functions too, a panic is how this file's code fails a test.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::time::Duration;

use interlude_engine::{Answer, Declared, RequestKind, RequestMethod};
use interlude_host::{
    Host, HostConfig, HostEvent, LinkState, ProtocolChoice, RequestStatus, ServerSpec,
};
use interlude_test_support::surface::{RecordingSurface, Step};
use rmcp::model::ProtocolVersion;
use serde_json::{Value, json};

fn text_of(result: &rmcp::model::CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

fn seed_server() -> ServerSpec {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/test_data/interaction_server.py"
    );
    ServerSpec::parse(&format!("python3 {script}")).unwrap()
}

/// A host that declares the draft, on the 2025 lifecycle, looking no link's name up.
fn declaring() -> HostConfig {
    let mut config = HostConfig {
        protocol: ProtocolChoice::Pin(ProtocolVersion::V_2025_11_25),
        declare: Declared::default().with_user_interaction(),
        url_wait: Duration::from_secs(10),
        ..HostConfig::default()
    };
    config.engine.resolve_links = false;
    config
}

async fn call_json(conn: &interlude_host::Connection, tool: &str) -> Value {
    let out = conn.call_tool(tool, None).await.unwrap();
    serde_json::from_str(&text_of(&out.result)).unwrap()
}

#[tokio::test]
async fn the_capability_is_declared_at_the_top_level_of_initialize() {
    let host = Host::start(declaring(), RecordingSurface::new(vec![]));
    let conn = host.connect("seed", seed_server()).await.unwrap();
    let capabilities = call_json(&conn, "capabilities").await;
    assert_eq!(
        capabilities["userInteraction"],
        json!({"types": ["ua", "prompt"], "progress": true}),
        "{capabilities}"
    );
    assert!(capabilities["elicitation"].is_object(), "elicitation stays");
    conn.close().await;

    // Off by default: nothing declared, and an interaction/create is an unknown method.
    let host = Host::start(
        HostConfig {
            protocol: ProtocolChoice::Pin(ProtocolVersion::V_2025_11_25),
            ..HostConfig::default()
        },
        RecordingSurface::new(vec![]),
    );
    let conn = host.connect("seed", seed_server()).await.unwrap();
    let capabilities = call_json(&conn, "capabilities").await;
    assert!(
        capabilities.get("userInteraction").is_none(),
        "{capabilities}"
    );
    let reply = call_json(&conn, "prompt").await;
    assert_eq!(reply["error"]["code"], -32601, "{reply}");
    conn.close().await;
}

#[tokio::test]
async fn a_prompt_is_shown_as_a_form_and_answered_with_content_or_the_drafts_refusal() {
    let surface = RecordingSurface::new(vec![
        Step::accept(json!({"name": "Monalisa", "email": "monalisa@example.com", "age": 30})),
        Step::Answer(Answer::Declined),
    ]);
    let host = Host::start(declaring(), surface.clone());
    let conn = host.connect("seed", seed_server()).await.unwrap();

    let reply = call_json(&conn, "prompt").await;
    assert_eq!(
        reply,
        json!({"result": {"content": {"name": "Monalisa", "email": "monalisa@example.com", "age": 30}}})
    );
    let shown = &surface.seen().presented[0];
    assert_eq!(shown.method, RequestMethod::Interaction);
    assert_eq!(shown.message(), "Let us know some information about you.");
    let RequestKind::Form(form) = &shown.kind else {
        panic!("a prompt is a form: {:?}", shown.kind);
    };
    let names: Vec<&str> = form.schema.fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["name", "email", "age"]);

    let reply = call_json(&conn, "prompt").await;
    assert_eq!(
        reply,
        json!({"error": {"code": -1, "message": "User did not consent to the interaction",
                         "data": {"action": "decline"}}})
    );
    // The audit log names the draft's method.
    let audit = host.audit_records();
    assert!(
        audit.iter().any(|r| matches!(&r.event,
            interlude_engine::AuditEvent::Received { method, .. } if *method == "interaction/create")),
        "{audit:?}"
    );
    conn.close().await;
}

#[tokio::test]
async fn a_ua_is_consented_answered_empty_then_tracked_with_notify_and_its_progress_shown() {
    // Consent to the link (a URL request is accepted with no content).
    let surface = RecordingSurface::new(vec![Step::accept(json!({}))]);
    let host = Host::start(declaring(), surface.clone());
    let conn = host.connect("seed", seed_server()).await.unwrap();
    let out = call_json(&conn, "ua").await;
    assert_eq!(out["reply"], json!({"result": {}}), "{out}");
    assert_eq!(out["notify"]["id"], "c8ec9a71-ua", "{out}");
    assert!(
        out["notify"]["_meta"]["progressToken"].is_string()
            || out["notify"]["_meta"]["progressToken"].is_number(),
        "the notify carries a progress token: {out}"
    );
    let shown = &surface.seen().presented[0];
    let RequestKind::Url(url) = &shown.kind else {
        panic!("a ua is a link");
    };
    assert_eq!(url.message, "Please sign in to your account.");
    assert_eq!(url.elicitation_id.as_deref(), Some("c8ec9a71-ua"));

    // The server's progress showed on the request, and its answer to the notify closed it.
    let events = surface.seen().events;
    let progressed = events.iter().find_map(|e| match e {
        HostEvent::RequestChanged(r) => r.progress().cloned(),
        _ => None,
    });
    let progress = progressed.expect("progress on the request");
    assert_eq!(progress.message.as_deref(), Some("Reticulating splines..."));
    assert_eq!(progress.total, Some(100.0));
    // The notify's answer and the call's result race to the host: wait for the former.
    let mut link = None;
    for _ in 0..200 {
        link = host.request(shown.id).and_then(|r| r.link().cloned());
        if matches!(link, Some(LinkState::Completed { .. })) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert!(
        matches!(link, Some(LinkState::Completed { .. })),
        "{link:?}"
    );
    conn.close().await;
}

#[tokio::test]
async fn a_request_the_server_cancels_closes_on_the_surface_and_gets_no_answer() {
    let surface = RecordingSurface::new(vec![Step::Never]);
    let host = Host::start(declaring(), surface.clone());
    let conn = host.connect("seed", seed_server()).await.unwrap();
    let out = call_json(&conn, "cancel").await;
    assert_eq!(out, json!({"answered_after_cancel": false}));
    let seen = surface.seen();
    assert_eq!(seen.closed.len(), 1, "{:?}", seen.closed);
    assert!(seen.replies.is_empty(), "{:?}", seen.replies);
    let id = seen.presented[0].id;
    assert!(matches!(
        host.request(id).unwrap().status,
        RequestStatus::Closed(_)
    ));
    conn.close().await;
}

#[tokio::test]
async fn interaction_required_presents_the_link_then_retries_the_call_once() {
    let surface = RecordingSurface::new(vec![Step::accept(json!({}))]);
    let host = Host::start(declaring(), surface.clone());
    let conn = host.connect("seed", seed_server()).await.unwrap();
    let started = std::time::Instant::now();
    let out = call_json(&conn, "required").await;
    assert_eq!(out, json!({"calls": 2, "done": true}));
    // The notify's answer ended the wait, not url_wait.
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "{:?}",
        started.elapsed()
    );
    let shown = &surface.seen().presented[0];
    assert_eq!(shown.method, RequestMethod::Interaction);
    assert_eq!(
        shown.message(),
        "Authorization is required to access your files."
    );
    assert!(shown.call.is_some(), "the link belongs to the call");

    // Declined: the call ends, saying why.
    let surface = RecordingSurface::new(vec![Step::Answer(Answer::Declined)]);
    let host = Host::start(declaring(), surface);
    let conn = host.connect("seed", seed_server()).await.unwrap();
    let err = conn.call_tool("required", None).await.unwrap_err();
    assert!(err.to_string().contains("decline"), "{err}");
    conn.close().await;
}

// ---- the host against the demo, whose toolkit speaks the draft to a client declaring it ----

const DEMO: &str = env!("CARGO_BIN_EXE_interlude-demo");
const KEY: [u8; 32] = [8u8; 32];

#[tokio::test]
async fn the_toolkit_asks_through_the_draft_only_when_the_client_declares_it() {
    // Over stdio: the toolkit reads the top-level capability through `normalized`.
    let surface = RecordingSurface::new(vec![Step::accept(
        json!({"name": "Ada", "email": "ada@example.com"}),
    )]);
    let host = Host::start(declaring(), surface.clone());
    let conn = host
        .connect("demo", ServerSpec::parse(DEMO).unwrap())
        .await
        .unwrap();
    let out = conn.call_tool("newsletter_sign_up", None).await.unwrap();
    let text = text_of(&out.result);
    assert!(
        text.contains("Signed up Ada <ada@example.com>") && text.contains("interaction/create"),
        "{text}"
    );
    assert_eq!(
        surface.seen().presented[0].method,
        RequestMethod::Interaction
    );
    // The prompt is tied to its call, as an elicitation is.
    assert_eq!(surface.seen().presented[0].call, Some(out.call));
    conn.close().await;

    // The same host without the draft: elicitation.
    let surface = RecordingSurface::new(vec![Step::accept(
        json!({"name": "Ada", "email": "ada@example.com"}),
    )]);
    let host = Host::start(
        HostConfig {
            protocol: ProtocolChoice::Pin(ProtocolVersion::V_2025_11_25),
            ..HostConfig::default()
        },
        surface.clone(),
    );
    let conn = host
        .connect("demo", ServerSpec::parse(DEMO).unwrap())
        .await
        .unwrap();
    let out = conn.call_tool("newsletter_sign_up", None).await.unwrap();
    assert!(
        text_of(&out.result).contains("asked through elicitation"),
        "{}",
        text_of(&out.result)
    );
    assert_eq!(
        surface.seen().presented[0].method,
        RequestMethod::Elicitation
    );
    conn.close().await;
}

struct Rig {
    host: Host,
    origin: String,
    surface: RecordingSurface,
}

/// The demo over streamable HTTP with its flow pages, and a host declaring the draft that
/// consents to every link.
async fn rig() -> Rig {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let origin = format!("http://{addr}");
    let store: std::sync::Arc<dyn interlude_server::url::FlowStore> =
        std::sync::Arc::new(interlude_server::url::MemoryStore::default());
    let flows =
        interlude_demo::flows::demo_flows(&format!("{origin}/flows"), store, &KEY, None).unwrap();
    tokio::spawn(interlude_demo::serve_http(
        listener,
        interlude_demo::HttpOptions {
            flows: Some((flows, KEY.to_vec())),
            ..Default::default()
        },
    ));
    let surface = RecordingSurface::new(vec![Step::accept(json!({})); 4]);
    let mut config = declaring();
    config.engine.url_policy.dev_origins =
        vec![interlude_engine::DevOrigin::loopback_http(addr.port())];
    let host = Host::start(config, surface.clone());
    host.connect("demo", ServerSpec::parse(&format!("{origin}/mcp")).unwrap())
        .await
        .unwrap();
    Rig {
        host,
        origin,
        surface,
    }
}

/// The link the host opened for the person (its request's record says so).
async fn opened_link(host: &Host) -> (interlude_engine::RequestId, String) {
    for _ in 0..400 {
        for record in host.snapshot().requests {
            if let Some(LinkState::Opened { url }) = record.link() {
                return (record.request.id, url.clone());
            }
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("no link was opened");
}

async fn http(method: &str, url: &str, headers: Vec<(String, String)>) -> u16 {
    let (method, url) = (method.to_owned(), url.to_owned());
    tokio::task::spawn_blocking(move || {
        let headers: Vec<(&str, &str)> = headers
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        interlude_test_support::http1::exchange(&method, &url, &headers, "")
            .unwrap()
            .status
    })
    .await
    .unwrap()
}

async fn complete(origin: &str, link: &str) {
    let (origin, link) = (origin.to_owned(), link.to_owned());
    let page = tokio::task::spawn_blocking(move || {
        interlude_test_support::http1::complete_demo_flow(&origin, &link, "draft-key-7")
    })
    .await
    .unwrap()
    .unwrap();
    assert!(page.status < 400, "{page:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ua_flow_is_the_users_own_and_its_notify_ends_when_the_page_completes_it() {
    let rig = rig().await;
    let conn = rig.host.connection_named("demo").unwrap();
    let call = tokio::spawn(async move { conn.call_tool("weather_api_key", None).await });
    let (id, link) = opened_link(&rig.host).await;
    assert!(
        link.starts_with(&format!("{}/flows/", rig.origin)),
        "{link}"
    );
    let shown = &rig.surface.seen().presented[0];
    assert_eq!(shown.method, RequestMethod::Interaction);
    assert!(
        matches!(shown.kind, RequestKind::Url(_)),
        "{:?}",
        shown.kind
    );

    // Someone else signed in gets nothing done on this user's flow.
    let cookie = interlude_server::url::SignedCookie::new(interlude_demo::flows::COOKIE, KEY)
        .unwrap()
        .header_value(&interlude_server::url::UserId::new("mallory"));
    let status = http("GET", &link, vec![("cookie".into(), cookie)]).await;
    assert_eq!(status, 403, "another user's page");

    // The server said it waits for the person, on the request tracked with interaction/notify.
    let mut progressed = None;
    for _ in 0..200 {
        progressed = rig.host.request(id).and_then(|r| r.progress().cloned());
        if progressed.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let progress = progressed.expect("progress on the tracked request");
    assert!(
        progress
            .message
            .as_deref()
            .is_some_and(|m| m.contains("browser")),
        "{progress:?}"
    );

    complete(&rig.origin, &link).await;
    let out = tokio::time::timeout(Duration::from_secs(10), call)
        .await
        .expect("the call ends")
        .unwrap()
        .unwrap();
    assert!(
        text_of(&out.result).starts_with("Saved your Weather API key (11 characters)"),
        "{}",
        text_of(&out.result)
    );
    // The notify's answer closed the request's link.
    let mut completed = false;
    for _ in 0..200 {
        completed = matches!(
            rig.host.request(id).and_then(|r| r.link().cloned()),
            Some(LinkState::Completed { .. })
        );
        if completed {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert!(
        completed,
        "{:?}",
        rig.host.request(id).map(|r| r.link().cloned())
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_that_needs_a_flow_first_answers_32003_and_succeeds_on_the_retry() {
    let rig = rig().await;
    let conn = rig.host.connection_named("demo").unwrap();
    let call = tokio::spawn(async move { conn.call_tool("weather_forecast", None).await });
    let (_, link) = opened_link(&rig.host).await;
    let shown = &rig.surface.seen().presented[0];
    assert_eq!(shown.method, RequestMethod::Interaction);
    complete(&rig.origin, &link).await;
    let out = tokio::time::timeout(Duration::from_secs(15), call)
        .await
        .expect("the retried call ends")
        .unwrap()
        .unwrap();
    assert!(
        text_of(&out.result).starts_with("Tomorrow in Lisbon"),
        "{}",
        text_of(&out.result)
    );
    // The -32003 answer is in the protocol log, as the server sent it.
    let server = rig.host.connection_named("demo").unwrap().id();
    let log = rig.host.protocol_log(server);
    let required = log
        .iter()
        .find(|m| m.message["error"]["message"] == "interaction_required")
        .expect("the -32003 error is logged");
    assert_eq!(required.message["error"]["code"], -32003);
    assert_eq!(required.message["error"]["data"]["type"], "ua");
}
