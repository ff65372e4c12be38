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
            interlude_engine::AuditEvent::Received { method, .. } if method == "interaction/create")),
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
        HostEvent::RequestProgressed(r) => r.progress.clone(),
        _ => None,
    });
    let progress = progressed.expect("progress on the request");
    assert_eq!(progress.message.as_deref(), Some("Reticulating splines..."));
    assert_eq!(progress.total, Some(100.0));
    let record = host.request(shown.id).unwrap();
    assert!(
        matches!(record.link, Some(LinkState::Completed { .. })),
        "{:?}",
        record.link
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
