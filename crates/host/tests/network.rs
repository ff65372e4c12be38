//! The network log against a real streamable-HTTP server: the demo on 127.0.0.1, in this
//! process, in both protocol eras. Each HTTP exchange is recorded with its status, sizes,
//! timing and the JSON-RPC messages it carried, linked to the protocol log's rows; the
//! credentials the host sends come out redacted; a server not reached over HTTP has none.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::time::Duration;

use interlude_demo::{DemoServer, HttpOptions};
use interlude_host::{
    BodyKind, ExchangeState, Host, HostConfig, HttpExchange, NoNetworkLog, ProtocolChoice,
    ServerSpec,
};
use interlude_test_support::surface::{RecordingSurface, Step};
use interlude_test_support::wait_until;
use rmcp::ServiceExt;
use rmcp::model::ProtocolVersion;
use serde_json::json;
use tokio_util::sync::CancellationToken;

const ERAS: [ProtocolVersion; 2] = [ProtocolVersion::V_2025_11_25, ProtocolVersion::V_2026_07_28];

/// The credentials the host is configured to send: none may appear in the log.
const SECRETS: [&str; 3] = ["sk-live-4f9a", "sid-77c1", "apikey-0d2e"];

/// Secret-ish request headers the retest of issue 34 (round two) saw in clear, each sent with
/// a value of its own: none may appear in the log.
const SECRET_HEADERS: [&str; 6] = [
    "X-Password",
    "X-Pass",
    "X-Passphrase",
    "X-Credential",
    "X-Session",
    "X-Signature",
];

/// The demo on a loopback port; it stops when the token is cancelled (or the test ends).
async fn demo_over_http() -> (String, CancellationToken) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let shutdown = CancellationToken::new();
    let options = HttpOptions {
        shutdown: shutdown.clone(),
        ..HttpOptions::default()
    };
    tokio::spawn(interlude_demo::serve_http(listener, options));
    (format!("http://{addr}/mcp"), shutdown)
}

/// The exchange whose request carried a request of `method`.
fn carrying<'a>(exchanges: &'a [HttpExchange], method: &str) -> Option<&'a HttpExchange> {
    exchanges.iter().find(|x| {
        x.sent
            .iter()
            .any(|m| m.kind == "request" && m.method.as_deref() == Some(method))
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_http_exchange_is_recorded_redacted_and_linked_to_its_messages() {
    for version in &ERAS {
        let (url, shutdown) = demo_over_http().await;
        let surface = RecordingSurface::new(vec![Step::accept(json!({"username": "ada"}))]);
        let host = Host::start(
            HostConfig {
                protocol: ProtocolChoice::Pin(version.clone()),
                ..HostConfig::default()
            },
            surface,
        );
        let headers = [
            ("Authorization", format!("Bearer {}", SECRETS[0])),
            ("Cookie", format!("sid={}", SECRETS[1])),
            ("X-Api-Key", SECRETS[2].to_owned()),
        ]
        .into_iter()
        .chain(SECRET_HEADERS.map(|h| (h, format!("{h}-value-9b1e"))))
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
        let conn = host
            .connect("demo", ServerSpec::Http { url, headers })
            .await
            .unwrap();
        let server = conn.id();
        let outcome = conn.call_tool("github_username", None).await.unwrap();
        let text: Vec<_> = outcome
            .result
            .content
            .iter()
            .filter_map(|c| c.as_text().map(|t| t.text.clone()))
            .collect();
        assert_eq!(text, ["Hello, @ada!"], "{version}");

        // The call's last exchange is over once its answer was read (an event stream's end
        // comes just after): wait for exactly that state.
        let exchanges = wait_until(
            &format!("{version}: the tools/call exchanges done and linked"),
            Duration::from_secs(10),
            || {
                let all = host.network_log(server).ok()?;
                let calls: Vec<_> = all
                    .iter()
                    .filter(|x| {
                        x.sent
                            .iter()
                            .any(|m| m.method.as_deref() == Some("tools/call"))
                    })
                    .collect();
                // The person's answer is posted on an exchange of its own, whose 202 may
                // come after the call's result: it must be over as well.
                let replies_done = all
                    .iter()
                    .filter(|x| x.sent.iter().any(|m| m.kind == "response"))
                    .all(|x| x.state == ExchangeState::Done);
                let settled = !calls.is_empty()
                    && replies_done
                    && calls.iter().all(|x| {
                        x.state == ExchangeState::Done
                            && x.received.iter().all(|m| m.log_seq.is_some())
                            && x.sent.iter().all(|m| m.log_seq.is_some())
                    });
                settled.then_some(all)
            },
        )
        .await
        .unwrap_or_else(|e| panic!("{e}: {:#?}", host.network_log(server)));

        // The handshake: `initialize` (or `server/discover`) posted and answered 200.
        let opening = carrying(&exchanges, "initialize")
            .or_else(|| carrying(&exchanges, "server/discover"))
            .expect("the handshake's exchange");
        assert_eq!(opening.method, "POST");
        assert_eq!(opening.path, "/mcp");
        assert_eq!(opening.status, Some(200), "{version}: {opening:?}");
        assert!(opening.headers_ms.is_some() && opening.duration_ms.is_some());

        // The call: sizes as sent and read, what it carried each way.
        let call = carrying(&exchanges, "tools/call").expect("the call's exchange");
        assert_eq!(call.status, Some(200), "{version}: {call:?}");
        assert!(matches!(call.body, BodyKind::Json | BodyKind::Sse));
        assert!(call.request_bytes > 20, "{call:?}");
        assert!(call.response_bytes > 20, "{call:?}");
        assert!(
            call.duration_ms.unwrap() >= call.headers_ms.unwrap(),
            "{call:?}"
        );
        let answered = call.received.iter().any(|m| m.kind == "response");
        let asked = exchanges.iter().any(|x| {
            x.received
                .iter()
                .any(|m| m.method.as_deref() == Some("elicitation/create"))
        });
        if *version == ProtocolVersion::V_2025_11_25 {
            // The push era: the question came on the call's stream, the answer was posted.
            assert_eq!(call.body, BodyKind::Sse, "{call:?}");
            assert!(asked, "{exchanges:#?}");
            let reply = exchanges
                .iter()
                .find(|x| x.sent.iter().any(|m| m.kind == "response"))
                .expect("the person's answer was posted");
            assert_eq!(reply.status, Some(202), "{reply:?}");
            assert_eq!(reply.body, BodyKind::Empty);
            assert_eq!(reply.response_bytes, 0);
        } else {
            // 2026-07-28: the call is asked again with the answer; the last one answers.
            let rounds = exchanges
                .iter()
                .filter(|x| {
                    x.sent
                        .iter()
                        .any(|m| m.method.as_deref() == Some("tools/call"))
                })
                .count();
            assert_eq!(rounds, 2, "{exchanges:#?}");
        }
        assert!(answered, "{call:?}");

        // Linked both ways: each carried message's row in the protocol log is that message.
        let log = host.protocol_log(server);
        for x in &exchanges {
            for (m, dir) in x
                .sent
                .iter()
                .map(|m| (m, interlude_host::Direction::Send))
                .chain(
                    x.received
                        .iter()
                        .map(|m| (m, interlude_host::Direction::Recv)),
                )
            {
                let Some(seq) = m.log_seq else { continue };
                let row = log.iter().find(|r| r.seq == seq).expect("the linked row");
                assert_eq!(row.dir, dir, "{m:?}");
                assert_eq!(row.method(), m.method.as_deref(), "{m:?}");
                if let Some(id) = &m.id {
                    assert_eq!(&row.message["id"], id, "{m:?}");
                }
            }
        }

        // The credentials and the session id: redacted wherever they went.
        let header = |x: &HttpExchange, name: &str| {
            x.request_headers
                .iter()
                .find(|h| h.name == name)
                .cloned()
                .unwrap_or_else(|| panic!("{name} in {x:?}"))
        };
        let auth = header(call, "authorization");
        assert!(auth.redacted);
        assert_eq!(auth.value, "Bearer");
        for name in ["cookie", "x-api-key"] {
            let h = header(call, name);
            assert!(h.redacted && h.value.is_empty(), "{h:?}");
        }
        assert_eq!(header(call, "content-type").value, "application/json");
        let all = serde_json::to_string(&exchanges).unwrap();
        for secret in SECRETS {
            assert!(!all.contains(secret), "{secret} in the network log");
        }
        for name in SECRET_HEADERS {
            let h = header(call, &name.to_ascii_lowercase());
            assert!(h.redacted && h.value.is_empty(), "{h:?}");
            assert!(!all.contains("-value-9b1e"), "{name} in the network log");
        }
        if *version == ProtocolVersion::V_2025_11_25 {
            let session = header(call, "mcp-session-id");
            assert!(session.redacted);
            assert_eq!(session.value.chars().count(), 4, "{session:?}");
            let given = opening
                .response_headers
                .iter()
                .find(|h| h.name == "mcp-session-id")
                .expect("the session's id as the server gave it");
            assert_eq!(given.value, session.value);

            // The standalone stream: a GET answered with an event stream, open while the
            // session is.
            let stream = wait_until(
                "the standalone GET stream recorded open",
                Duration::from_secs(10),
                || {
                    host.network_log(server)
                        .ok()?
                        .into_iter()
                        .find(|x| x.method == "GET" && x.status == Some(200))
                },
            )
            .await
            .unwrap();
            assert_eq!(stream.body, BodyKind::Sse);
            assert_eq!(stream.state, ExchangeState::Open);
            assert_eq!(stream.duration_ms, None);

            // Closing the session: a DELETE, answered 204; the stream ends with a duration.
            conn.close().await;
            let (delete, stream) = wait_until(
                "the DELETE done and the stream ended",
                Duration::from_secs(10),
                || {
                    let all = host.network_log(server).ok()?;
                    let delete = all
                        .iter()
                        .find(|x| x.method == "DELETE" && x.state == ExchangeState::Done)?
                        .clone();
                    let stream = all
                        .iter()
                        .find(|x| x.seq == stream.seq && x.state != ExchangeState::Open)?
                        .clone();
                    Some((delete, stream))
                },
            )
            .await
            .unwrap();
            assert_eq!(delete.status, Some(204), "{delete:?}");
            assert!(stream.duration_ms.is_some(), "{stream:?}");
        }
        shutdown.cancel();
    }
}

#[tokio::test]
async fn a_server_not_reached_over_http_has_no_exchanges_and_says_so() {
    let host = Host::start(HostConfig::default(), RecordingSurface::new(Vec::new()));
    let (host_end, server_end) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        if let Ok(running) = DemoServer::default().serve(server_end).await {
            let _ = running.waiting().await;
        }
    });
    let conn = host
        .connect_transport(
            "piped",
            host_end,
            ProtocolChoice::Pin(ProtocolVersion::V_2025_11_25),
        )
        .await
        .unwrap();
    let why = host.network_log(conn.id()).unwrap_err();
    assert_eq!(
        why,
        NoNetworkLog::NotHttp {
            transport: "in-process".into()
        }
    );
    assert_eq!(why.to_string(), "in-process: no HTTP exchanges");
    assert_eq!(
        NoNetworkLog::NotHttp {
            transport: "stdio".into()
        }
        .to_string(),
        "stdio: no HTTP exchanges"
    );
    assert_eq!(
        host.network_log(interlude_host::ServerId(999)),
        Err(NoNetworkLog::UnknownServer)
    );
}
