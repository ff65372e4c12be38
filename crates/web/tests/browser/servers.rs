use interlude_host::ServerSpec;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::harness::{harness, harness_with, serve_demo_on};

/// While a server connects, the page says how the protocol version is being negotiated: a
/// server that ignores `server/discover` (the scripted server's `silent` mode) keeps the host
/// waiting, and the person sees why.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_shows_the_negotiation_while_a_server_connects() {
    let page = harness().await;
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../demo/tests/test_data/scripted_server.py");
    let spec = ServerSpec::Stdio {
        command: "python3".into(),
        args: vec![script.to_string_lossy().into_owned(), "silent".into()],
        env: Default::default(),
    };
    let app = page.app.clone();
    let connecting = tokio::spawn(async move { app.add_server("silent", spec, None).await });
    let note = page.until("document.querySelector('li[data-server=\"silent\"] .negotiation')?.textContent || null", "no word on the negotiation").await;
    let note = note.as_str().unwrap();
    assert!(
        note.contains("server/discover") && note.contains("10 s"),
        "{note}"
    );
    connecting.abort();
    page.close().await;
}

/// A server that cannot connect says why in one line, its tools cannot be called, and the page
/// offers Retry and Remove: retried once the server is up, it connects; removed, it is gone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_server_can_be_retried_or_removed() {
    // A port nobody listens on yet: the demo starts there later.
    let port = {
        let probe = TcpListener::bind("127.0.0.1:0").await.unwrap();
        probe.local_addr().unwrap().port()
    };
    let late = ServerSpec::parse(&format!("http://127.0.0.1:{port}/mcp")).unwrap();
    let missing = ServerSpec::Stdio {
        command: "/nonexistent/mcp-server".into(),
        args: Vec::new(),
        env: Default::default(),
    };
    let page = harness_with(vec![("late", late, None), ("missing", missing, None)]).await;
    let error = page
        .until(
            "document.querySelector('li[data-server=\"missing\"] .server-error')?.textContent || null",
            "no reason for the failure",
        )
        .await;
    let error = error.as_str().unwrap();
    assert!(
        !error.contains('\n') && error.contains("/nonexistent/mcp-server"),
        "{error}"
    );
    page.until(
        "document.querySelector('li[data-server=\"late\"] button.server-retry') ? true : null",
        "no Retry for the server that is not up yet",
    )
    .await;

    let order =
        "Array.from(document.querySelectorAll('li[data-server]')).map((li) => li.dataset.server)";
    let before = page.js(order).await;
    let late_error = page
        .js("document.querySelector('li[data-server=\"late\"] .server-error')?.textContent")
        .await;
    // Said in words, not as the HTTP client's chain of wrappers.
    assert_eq!(
        late_error,
        serde_json::json!(format!(
            "nothing is listening at http://127.0.0.1:{port}/mcp (connection refused)"
        ))
    );

    // Up now: Retry connects it, and its tools can be called.
    let listener = TcpListener::bind(("127.0.0.1", port)).await.unwrap();
    let shutdown = CancellationToken::new();
    serve_demo_on(listener, &shutdown);
    page.click("li[data-server=\"late\"] button.server-retry")
        .await;
    page.until(
        "(() => { const li = document.querySelector('li[data-server=\"late\"]'); \
         return li && li.querySelector('.dot.ready') && !li.querySelector('button.tool-btn[disabled]') || null; })()",
        "Retry did not connect the server",
    )
    .await;
    // Retried, it keeps its place in the list.
    assert_eq!(page.js(order).await, before, "Retry moved the server");

    // Remove takes the other off the page.
    page.click("li[data-server=\"missing\"] button.server-remove")
        .await;
    page.wait_gone("li[data-server=\"missing\"]").await;
    shutdown.cancel();
    page.close().await;
}

/// What a stdio server writes on stderr has a place in its server logs (a `stderr` row each,
/// beside its log messages), and only there: the protocol messages view leaves it out. The
/// server: the published server-everything, started by a shell that first writes a line to
/// stderr.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stdio_servers_stderr_is_in_its_server_logs() {
    use crate::harness::SERVER_EVERYTHING;
    let Some(peers) = interlude_test_support::NpmPeers::locate(&[SERVER_EVERYTHING]) else {
        return;
    };
    let spec = ServerSpec::Stdio {
        command: "sh".into(),
        args: vec![
            "-c".into(),
            "echo 'warming the cache: 42 entries' >&2; exec \"$0\" \"$1\" stdio".into(),
            peers.node.to_string_lossy().into_owned(),
            peers
                .package_file(SERVER_EVERYTHING)
                .to_string_lossy()
                .into_owned(),
        ],
        env: Default::default(),
    };
    let page = harness_with(vec![("chatty", spec, None)]).await;
    page.until(
        "document.querySelector('li[data-server=\"chatty\"] button.log-btn') ? true : null",
        "the server never connected",
    )
    .await;
    page.click("li[data-server=\"chatty\"] button.log-btn")
        .await;
    page.until("(() => { const b = Array.from(document.querySelectorAll('#protocol .segmented button')).find((b) => b.textContent === 'Server logs'); if (b) b.click(); return !!b || null; })()", "the protocol pane has no server-logs view").await;
    let row = page
        .until(
            "Array.from(document.querySelectorAll('#protocol .log-row[data-level=\"stderr\"] .log-text')).map((e) => e.textContent).find((t) => t.includes('warming the cache')) ?? null",
            "the stderr line is not in the server logs",
        )
        .await;
    assert_eq!(row, serde_json::json!("warming the cache: 42 entries"));
    page.artifact("stderr-in-server-logs").await;
    // The messages view is the protocol's: no stderr row there.
    page.until("(() => { const b = Array.from(document.querySelectorAll('#protocol .segmented button')).find((b) => b.textContent === 'Messages'); if (b) b.click(); return document.querySelector('#protocol .protocol-list.windowed') ? true : null; })()", "no messages view").await;
    let leaked = page
        .js("(document.querySelector('#protocol .protocol-list.windowed')?.textContent || '').includes('warming the cache')")
        .await;
    assert_eq!(
        leaked,
        serde_json::json!(false),
        "a stderr line in the protocol messages"
    );
    page.close().await;
}
