//! App-rendered elicitation (SEP-3118) through the host, in both eras, against the demo server
//! (in this process, over an rmcp transport on a duplex pipe): `portfolio_review` asks with the
//! view `ui://demo/portfolio` when both sides negotiated it and with a plain form otherwise; the
//! host binds a view to the question, forwards the request to it once it is live, judges its
//! answer outside the view, and gives the person the plain form when the view does not start.
//!
//! The view here is played by the test through `Host::view_message`, exactly as the web page
//! relays a frame's messages (the browser tests in `crates/web` run the real view in Chromium).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::time::Duration;

use interlude_demo::DemoServer;
use interlude_engine::{Answer, AppStage, Declared, EngineConfig, RequestKind};
use interlude_host::{
    Connection, Direction, Host, HostConfig, HostEvent, ProtocolChoice, ViewState,
};
use interlude_test_support::surface::{RecordingSurface, Step};
use rmcp::ServiceExt;
use rmcp::model::ProtocolVersion;
use serde_json::{Value, json};
use tokio::sync::mpsc::UnboundedReceiver;

const ERAS: [ProtocolVersion; 2] = [ProtocolVersion::V_2025_11_25, ProtocolVersion::V_2026_07_28];

fn host(declare: Declared, start_ms: u64) -> (Host, RecordingSurface) {
    let surface = RecordingSurface::new(vec![Step::Never]);
    let config = HostConfig {
        declare,
        engine: EngineConfig {
            app_start_ms: start_ms,
            ..EngineConfig::default()
        },
        ..HostConfig::default()
    };
    (Host::start(config, surface.clone()), surface)
}

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

async fn next<T>(
    events: &mut UnboundedReceiver<HostEvent>,
    f: impl Fn(&HostEvent) -> Option<T>,
) -> T {
    tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            let event = events.recv().await.expect("the host is running");
            if let Some(found) = f(&event) {
                return found;
            }
        }
    })
    .await
    .expect("the event came in time")
}

fn text_of(result: &rmcp::model::CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test]
async fn the_view_gets_the_question_and_only_a_valid_answer_reaches_the_server() {
    for version in ERAS {
        let (host, surface) = host(Declared::FORM_AND_URL.with_app_elicitation(), 10_000);
        let mut events = surface.events();
        let conn = demo(&host, &version).await;
        let call = conn.start_call("portfolio_review", None);
        let running = tokio::spawn(call.outcome());

        let (request, uri) = next(&mut events, |e| match e {
            HostEvent::RequestPresented(r) => match &r.request.kind {
                RequestKind::AppForm(app) => Some((r.request.id, app.resource_uri.clone())),
                other => panic!("{version}: a question in its view, not {other:?}"),
            },
            _ => None,
        })
        .await;
        assert_eq!(uri, "ui://demo/portfolio");
        // Its view opens, bound to it, from the asking server's resource.
        let view = next(&mut events, |e| match e {
            HostEvent::ViewChanged(v)
                if v.request == Some(request) && v.state == ViewState::Open =>
            {
                Some(v.id)
            }
            _ => None,
        })
        .await;
        assert!(
            host.view(view)
                .unwrap()
                .html
                .as_deref()
                .unwrap()
                .contains("<html")
        );

        // The view starts, declaring that it renders questions.
        host.view_message(
            view,
            json!({"jsonrpc": "2.0", "id": 1, "method": "ui/initialize", "params": {
                "protocolVersion": "2026-01-26", "appInfo": {"name": "test", "version": "1"},
                "appCapabilities": {"elicitation": {}}}}),
        );
        let init = next(&mut events, |e| match e {
            HostEvent::ViewMessage { message, .. } if message["id"] == 1 => Some(message.clone()),
            _ => None,
        })
        .await;
        assert_eq!(init["result"]["hostCapabilities"]["elicitation"], json!({}));
        host.view_message(
            view,
            json!({"jsonrpc": "2.0", "method": "ui/notifications/initialized"}),
        );
        let forwarded = next(&mut events, |e| match e {
            HostEvent::ViewMessage { message, .. } if message["method"] == "elicitation/create" => {
                Some(message.clone())
            }
            _ => None,
        })
        .await;
        let params = &forwarded["params"];
        assert_eq!(params["_meta"]["ui"]["resourceUri"], "ui://demo/portfolio");
        assert!(params["message"].as_str().unwrap().contains("Northwind"));
        let schema = &params["requestedSchema"]["properties"];
        assert_eq!(schema["confirmed"]["type"], "boolean", "{params}");
        let ids: Vec<Value> = schema["selectedManagerId"]["oneOf"]
            .as_array()
            .map(|o| o.iter().map(|c| c["const"].clone()).collect())
            .or_else(|| schema["selectedManagerId"]["enum"].as_array().cloned())
            .unwrap();
        assert!(ids.contains(&json!("m-chloe")), "{ids:?}");

        // An answer outside the schema is not sent; the view is asked again, with the reasons.
        host.view_message(
            view,
            json!({"jsonrpc": "2.0", "id": forwarded["id"],
                   "result": {"action": "accept", "content": {"confirmed": true, "selectedManagerId": "m-nobody"}}}),
        );
        let again = next(&mut events, |e| match e {
            HostEvent::ViewMessage { message, .. } if message["method"] == "elicitation/create" => {
                Some(message.clone())
            }
            _ => None,
        })
        .await;
        let told = &again["params"]["_meta"]["dev.interlude/answerErrors"];
        assert_eq!(told[0]["field"], "selectedManagerId", "{told}");
        assert!(!running.is_finished(), "{version}: the server still waits");
        assert_eq!(surface.seen().invalid.len(), 1);

        // A valid answer goes to the server, and the call returns only now.
        host.view_message(
            view,
            json!({"jsonrpc": "2.0", "id": again["id"],
                   "result": {"action": "accept", "content": {"confirmed": true, "selectedManagerId": "m-chloe"}}}),
        );
        let outcome = running.await.unwrap().unwrap();
        assert_eq!(
            text_of(&outcome.result),
            "Portfolio reassigned to m-chloe.",
            "{version}"
        );
        // The view is torn down.
        let teardown = next(&mut events, |e| match e {
            HostEvent::ViewMessage { message, .. }
                if message["method"] == "ui/resource-teardown" =>
            {
                Some(message.clone())
            }
            _ => None,
        })
        .await;
        // The protocol log holds the forwarded question and the view's answers beside the
        // server's own messages.
        let log = host.protocol_log(conn.id());
        let to_view = log.iter().filter(|m| {
            m.view == Some(view)
                && m.dir == Direction::Send
                && m.method() == Some("elicitation/create")
        });
        assert_eq!(
            to_view.count(),
            2,
            "{version}: forwarded, then again after the refusal"
        );
        assert!(log.iter().any(|m| m.view == Some(view)
            && m.dir == Direction::Recv
            && m.message["result"]["content"]["selectedManagerId"] == "m-chloe"));
        assert!(
            log.iter()
                .any(|m| m.view.is_none() && m.method() == Some("tools/call"))
        );
        host.view_message(
            view,
            json!({"jsonrpc": "2.0", "id": teardown["id"], "result": {}}),
        );
        next(&mut events, |e| match e {
            HostEvent::ViewChanged(v) if v.id == view && v.state == ViewState::Closed => Some(()),
            _ => None,
        })
        .await;
        host.close_all().await;
    }
}

#[tokio::test]
async fn a_view_that_never_starts_gives_the_person_the_plain_form() {
    for version in ERAS {
        let (host, surface) = host(Declared::FORM_AND_URL.with_app_elicitation(), 300);
        let mut events = surface.events();
        let conn = demo(&host, &version).await;
        let running = tokio::spawn(conn.start_call("portfolio_review", None).outcome());
        let view = next(&mut events, |e| match e {
            HostEvent::ViewChanged(v) if v.request.is_some() && v.state == ViewState::Open => {
                Some(v.id)
            }
            _ => None,
        })
        .await;
        // Until a surface loads the view, its clock does not run: nothing falls back.
        tokio::time::sleep(std::time::Duration::from_millis(600)).await;
        assert!(
            host.snapshot().requests.iter().all(
                |r| !matches!(&r.request.kind, RequestKind::AppForm(a) if a.stage != AppStage::View)
            ),
            "{version}: a view nobody loads has not failed"
        );
        // A surface loads it, and it never says `ui/initialize`.
        host.view_loading(view);
        let (id, reason) = next(&mut events, |e| match e {
            HostEvent::RequestChanged(r) => match &r.request.kind {
                RequestKind::AppForm(app) => match &app.stage {
                    AppStage::Form { reason } => Some((r.request.id, reason.clone())),
                    AppStage::View => None,
                },
                _ => None,
            },
            _ => None,
        })
        .await;
        assert!(reason.contains("did not start"), "{reason}");
        assert!(!running.is_finished(), "{version}: never a silent decline");
        host.answer_sink().answer(
            id,
            Answer::Accepted(
                json!({"confirmed": false, "selectedManagerId": "m-ava"})
                    .as_object()
                    .cloned()
                    .unwrap(),
            ),
        );
        let outcome = running.await.unwrap().unwrap();
        assert_eq!(
            text_of(&outcome.result),
            "Not confirmed: nothing reassigned (m-ava was chosen).",
            "{version}"
        );
        host.close_all().await;
    }
}

#[tokio::test]
async fn the_person_cancelling_from_the_host_reaches_the_server() {
    for version in ERAS {
        let (host, surface) = host(Declared::FORM_AND_URL.with_app_elicitation(), 10_000);
        let mut events = surface.events();
        let conn = demo(&host, &version).await;
        let running = tokio::spawn(conn.start_call("portfolio_review", None).outcome());
        let request = next(&mut events, |e| match e {
            HostEvent::RequestPresented(r) => Some(r.request.id),
            _ => None,
        })
        .await;
        host.answer_sink().answer(request, Answer::Cancelled);
        let outcome = running.await.unwrap().unwrap();
        assert_eq!(
            text_of(&outcome.result),
            "The user cancelled the portfolio review.",
            "{version}"
        );
        host.close_all().await;
    }
}

#[tokio::test]
async fn without_the_capability_the_server_asks_a_plain_form() {
    for version in ERAS {
        // The host renders apps but does not offer questions in them.
        let (host, surface) = host(Declared::FORM_AND_URL.with_apps(), 10_000);
        let mut events = surface.events();
        let conn = demo(&host, &version).await;
        let running = tokio::spawn(conn.start_call("portfolio_review", None).outcome());
        let (id, plain) = next(&mut events, |e| match e {
            HostEvent::RequestPresented(r) => {
                Some((r.request.id, matches!(r.request.kind, RequestKind::Form(_))))
            }
            _ => None,
        })
        .await;
        assert!(plain, "{version}: a plain form");
        host.answer_sink().answer(id, Answer::Declined);
        let outcome = running.await.unwrap().unwrap();
        assert_eq!(
            text_of(&outcome.result),
            "The user declined the portfolio review.",
            "{version}"
        );
        host.close_all().await;
    }
}
