//! The demo over streamable HTTP (in this process, on 127.0.0.1), seen at the HTTP level.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use interlude_demo::{HttpOptions, serve_http};
use interlude_test_support::http1::exchange;
use tokio_util::sync::CancellationToken;

/// The demo over HTTP on 127.0.0.1: its endpoint, and the token that stops it.
async fn demo() -> (String, CancellationToken) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let shutdown = CancellationToken::new();
    tokio::spawn(serve_http(
        listener,
        HttpOptions {
            shutdown: shutdown.child_token(),
            ..HttpOptions::default()
        },
    ));
    (url, shutdown)
}

/// Ending a 2025-11-25 session (`DELETE /mcp` with its id) answers `204 No Content`: clients
/// such as the Python SDK expect 200 or 204 and warn about rmcp's `202`. A notification keeps
/// its `202`.
#[tokio::test]
async fn ending_a_session_answers_no_content() {
    let (url, shutdown) = demo().await;
    let (started, ended, notified) = tokio::task::spawn_blocking(move || {
        let initialize = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
        let started = exchange(
            "POST",
            &url,
            &[
                ("content-type", "application/json"),
                ("accept", "application/json, text/event-stream"),
            ],
            initialize,
        )
        .unwrap();
        let session = started.header("mcp-session-id").unwrap_or_default().to_owned();
        // A notification is still accepted with 202: only the end of a session changes.
        let notified = exchange(
            "POST",
            &url,
            &[
                ("content-type", "application/json"),
                ("accept", "application/json, text/event-stream"),
                ("mcp-session-id", &session),
                ("mcp-protocol-version", "2025-11-25"),
            ],
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        )
        .unwrap();
        let ended = exchange("DELETE", &url, &[("mcp-session-id", &session)], "").unwrap();
        (started, ended, notified)
    })
    .await
    .unwrap();
    shutdown.cancel();
    assert_eq!(started.status, 200, "{started:?}");
    assert!(started.header("mcp-session-id").is_some(), "{started:?}");
    assert_eq!(ended.status, 204, "{ended:?}");
    assert_eq!(notified.status, 202, "{notified:?}");
}

/// Over HTTP too, a request of a known method whose params do not fit it is answered -32602
/// naming the field (`interlude_server::checked_http`), not 404 "method not found".
#[tokio::test]
async fn a_misfit_request_is_answered_naming_the_field() {
    let (url, shutdown) = demo().await;
    let reply = tokio::task::spawn_blocking(move || {
        let call = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"github_username","arguments":{},"inputResponses":[1],"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}"#;
        exchange(
            "POST",
            &url,
            &[
                ("content-type", "application/json"),
                ("accept", "application/json, text/event-stream"),
                ("mcp-protocol-version", "2026-07-28"),
                ("mcp-method", "tools/call"),
                ("mcp-name", "github_username"),
            ],
            call,
        )
        .unwrap()
    })
    .await
    .unwrap();
    shutdown.cancel();
    assert_eq!(reply.status, 200, "{reply:?}");
    let body: serde_json::Value = serde_json::from_str(&reply.body).unwrap();
    assert_eq!(body["id"], 7, "{body}");
    assert_eq!(body["error"]["code"], -32602, "{body}");
    assert_eq!(body["error"]["data"]["field"], "inputResponses", "{body}");
}

/// Over HTTP too, a response under an id the server never sent (`"0"`, `0.0`) is refused: `400`
/// with a -32600 error saying why, before rmcp could take it for the server's request 0.
#[tokio::test]
async fn a_response_under_a_look_alike_id_is_refused() {
    let (url, shutdown) = demo().await;
    let replies = tokio::task::spawn_blocking(move || {
        ["\"0\"", "0.0"].map(|id| {
            let body = format!(
                r#"{{"jsonrpc":"2.0","id":{id},"result":{{"action":"accept","content":{{}}}}}}"#
            );
            exchange(
                "POST",
                &url,
                &[
                    ("content-type", "application/json"),
                    ("accept", "application/json, text/event-stream"),
                    ("mcp-protocol-version", "2025-11-25"),
                ],
                &body,
            )
            .unwrap()
        })
    })
    .await
    .unwrap();
    shutdown.cancel();
    for reply in replies {
        assert_eq!(reply.status, 400, "{reply:?}");
        let body: serde_json::Value = serde_json::from_str(&reply.body).unwrap();
        assert_eq!(body["error"]["code"], -32600, "{body}");
        assert!(
            body["error"]["message"]
                .as_str()
                .unwrap()
                .contains("answers none of them"),
            "{body}"
        );
    }
}

/// A POST body larger than the toolkit reads (4 MiB) is refused with `413` (or, when the server
/// answers before the body is all sent, the connection is cut), and the server goes on serving.
#[tokio::test]
async fn an_oversized_post_is_refused_and_the_server_goes_on() {
    let (url, shutdown) = demo().await;
    let (big, after) = tokio::task::spawn_blocking(move || {
        let headers = [
            ("content-type", "application/json"),
            ("accept", "application/json, text/event-stream"),
        ];
        let big = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"2025-11-25","capabilities":{{}},"clientInfo":{{"name":"{}","version":"1"}}}}}}"#,
            "a".repeat(5 * 1024 * 1024)
        );
        // The server may answer 413 before the body is all sent and hang up: the rest of the
        // write then fails (a broken pipe or a reset) — refused either way.
        let big = exchange("POST", &url, &headers, &big);
        let initialize = r#"{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
        let after = exchange("POST", &url, &headers, initialize).unwrap();
        (big, after)
    })
    .await
    .unwrap();
    shutdown.cancel();
    match big {
        Ok(big) => assert_eq!(big.status, 413, "{}", big.status),
        Err(e) => assert!(
            matches!(
                e.kind(),
                std::io::ErrorKind::BrokenPipe | std::io::ErrorKind::ConnectionReset
            ),
            "{e}"
        ),
    }
    assert_eq!(after.status, 200, "{after:?}");
}
