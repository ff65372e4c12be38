//! The demo's URL flows under attack, over real transports (streamable HTTP on 127.0.0.1, the
//! flow pages played with raw HTTP/1.1): a confirmed payment's `requestState` sent again, or
//! with another call; two servers sharing one flow store.
// Outside `#[test]` functions too, a panic is how this file's code fails a test.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use interlude_demo::{HttpOptions, serve_http};
use interlude_server::AskConfig;
use interlude_server::url::{FlowStore, SqliteStore};
use interlude_test_support::http1::{exchange, form_token};
use rmcp::ClientHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientCapabilities, ClientConfig,
    ElicitationCapability, FormElicitationCapability, ProtocolVersion, UrlElicitationCapability,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RoleClient, RunningService};
use serde_json::{Value, json};

fn install_tls() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// A 2026-07-28 client that declares form and URL elicitation and answers nothing itself: the
/// test sends every round by hand.
#[derive(Clone)]
struct RoundTripClient;

impl ClientHandler for RoundTripClient {
    fn get_info(&self) -> ClientConfig {
        let mut caps = ClientCapabilities::default();
        caps.elicitation = Some(
            ElicitationCapability::new()
                .with_form(FormElicitationCapability::new())
                .with_url(UrlElicitationCapability::new()),
        );
        let mut info = ClientConfig::default();
        info.capabilities = caps;
        info.protocol_version = ProtocolVersion::V_2026_07_28;
        info
    }
}

/// A folder of this test's own, private, removed on drop.
struct TempFolder(PathBuf);

impl TempFolder {
    fn new(name: &str) -> Self {
        let path = std::env::temp_dir().join(format!(
            "interlude-demo-security-{}-{name}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir(&path).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o700)).unwrap();
        }
        TempFolder(path)
    }
}

impl Drop for TempFolder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// One demo server over HTTP with its flow pages, its flows in `store`, sealing with `ask`.
/// Returns its origin.
async fn demo(store: Arc<dyn FlowStore>, ask: &AskConfig) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    let key = vec![4u8; 32];
    let flows =
        interlude_demo::flows::demo_flows(&format!("{origin}/flows"), store, &key, None).unwrap();
    tokio::spawn(serve_http(
        listener,
        HttpOptions {
            ask: ask.clone(),
            flows: Some((flows, key)),
            ..HttpOptions::default()
        },
    ));
    origin
}

async fn client(origin: &str) -> RunningService<RoleClient, RoundTripClient> {
    install_tls();
    let transport =
        rmcp::transport::StreamableHttpClientTransport::from_uri(format!("{origin}/mcp"));
    RoundTripClient
        .serve_with_lifecycle(
            transport,
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .unwrap()
}

/// One round of `tool`: with `state` and the answer `accept` to `q0` when given.
fn round(tool: &str, state: Option<&str>) -> CallToolRequestParams {
    let mut params = CallToolRequestParams::new(tool.to_owned());
    if let Some(state) = state {
        let mut responses = BTreeMap::new();
        responses.insert("q0".to_owned(), json!({"action": "accept"}));
        params.input_responses = Some(responses);
        params.request_state = Some(state.to_owned());
    }
    params
}

/// The link and the state of an `input_required` answer.
fn asked(response: CallToolResponse) -> (String, String) {
    let CallToolResponse::InputRequired(ir) = response else {
        panic!("expected input_required, got {response:?}");
    };
    let requests = serde_json::to_value(ir.input_requests.as_ref().unwrap()).unwrap();
    let url = requests["q0"]["params"]["url"].as_str().unwrap().to_owned();
    (url, ir.request_state.clone().unwrap())
}

fn text(response: CallToolResponse) -> String {
    let CallToolResponse::Complete(result) = response else {
        panic!("expected a tool result, got {response:?}");
    };
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect()
}

/// The person confirms on the flow page `link`: signs in, opens it, presses Confirm.
async fn confirm(origin: &str, link: &str) {
    let (origin, link) = (origin.to_owned(), link.to_owned());
    let done = tokio::task::spawn_blocking(move || {
        let signed_in = exchange("GET", &format!("{origin}/sign-in"), &[], "").unwrap();
        let cookie = signed_in.cookie().unwrap().to_owned();
        let page = exchange("GET", &link, &[("cookie", &cookie)], "").unwrap();
        // (Pages before issue 21 had no token: the post then goes without one.)
        let token = form_token(&page.body).unwrap_or_default();
        exchange(
            "POST",
            &link,
            &[
                ("cookie", &cookie),
                ("origin", &origin),
                ("content-type", "application/x-www-form-urlencoded"),
            ],
            &format!("decision=confirm&token={token}"),
        )
        .unwrap()
    })
    .await
    .unwrap();
    assert_eq!(done.status, 200, "{}", done.body);
}

/// The JSON-RPC error of a refused round: its message and data.
async fn refused(
    client: &RunningService<RoleClient, RoundTripClient>,
    params: CallToolRequestParams,
) -> (String, Value) {
    match client.call_tool_once(params).await {
        Err(rmcp::ServiceError::McpError(e)) => {
            assert_eq!(e.code, rmcp::model::ErrorCode::INVALID_PARAMS, "{e:?}");
            (e.message.to_string(), e.data.unwrap_or_default())
        }
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}

/// Issue 21, hole 1: a confirmed payment's state is good for one retry. Sent again — the first
/// round's state, or the later round's — it is refused as already used, and so it is when
/// sent in place of a new call's state (whose flow nobody confirmed); the new call's own flow
/// is untouched. A state sent with another tool is refused as another call's.
#[tokio::test]
async fn a_confirmed_payment_s_request_state_is_good_for_one_retry() {
    let folder = TempFolder::new("replay");
    let store: Arc<dyn FlowStore> =
        Arc::new(SqliteStore::open(folder.0.join("flows.sqlite")).unwrap());
    let ask = AskConfig::new();
    let origin = demo(store, &ask).await;
    let client = client(&origin).await;

    // The first round, and a second before the person confirmed: the same link again.
    let (link, first) = asked(
        client
            .call_tool_once(round("verify_payment", None))
            .await
            .unwrap(),
    );
    let (again, later) = asked(
        client
            .call_tool_once(round("verify_payment", Some(&first)))
            .await
            .unwrap(),
    );
    assert_eq!(again, link);
    confirm(&origin, &link).await;
    let verified = client
        .call_tool_once(round("verify_payment", Some(&later)))
        .await
        .unwrap();
    assert_eq!(text(verified), "Payment for order 4711 verified.");

    // Sent again, either state: already used.
    for state in [&later, &first, &later] {
        let (message, data) = refused(&client, round("verify_payment", Some(state))).await;
        assert!(message.contains("already used"), "{message}");
        assert_eq!(data, json!({"requestState": "consumed"}));
    }

    // A new call: its flow is pending; the old state in its place is refused, and the new flow
    // still waits for the person.
    let (new_link, new_state) = asked(
        client
            .call_tool_once(round("verify_payment", None))
            .await
            .unwrap(),
    );
    assert_ne!(new_link, link);
    let (message, _) = refused(&client, round("verify_payment", Some(&first))).await;
    assert!(message.contains("already used"), "{message}");
    let (still, _) = asked(
        client
            .call_tool_once(round("verify_payment", Some(&new_state)))
            .await
            .unwrap(),
    );
    assert_eq!(still, new_link);

    // A state sent with another tool belongs to another call.
    let (message, data) = refused(&client, round("weather_forecast", Some(&new_state))).await;
    assert!(message.contains("another call"), "{message}");
    assert_eq!(data, json!({"requestState": "another_call"}));
    client.cancel().await.unwrap();
}

/// The same replay against a second server sharing the flow store (its own connection to the
/// file) and the sealing key: the outcome was taken once, whichever server took it.
#[tokio::test]
async fn a_replay_is_refused_by_another_server_sharing_the_store() {
    let folder = TempFolder::new("shared");
    let path = folder.0.join("flows.sqlite");
    let ask = AskConfig::with_key([8u8; 32]).unwrap();
    let first_origin = demo(Arc::new(SqliteStore::open(&path).unwrap()), &ask).await;
    let second_origin = demo(Arc::new(SqliteStore::open(&path).unwrap()), &ask).await;
    let first = client(&first_origin).await;
    let second = client(&second_origin).await;

    let (link, state) = asked(
        first
            .call_tool_once(round("verify_payment", None))
            .await
            .unwrap(),
    );
    confirm(&first_origin, &link).await;
    let verified = first
        .call_tool_once(round("verify_payment", Some(&state)))
        .await
        .unwrap();
    assert_eq!(text(verified), "Payment for order 4711 verified.");
    let (message, _) = refused(&second, round("verify_payment", Some(&state))).await;
    assert!(message.contains("already used"), "{message}");
    first.cancel().await.unwrap();
    second.cancel().await.unwrap();
}

const DEMO: &str = env!("CARGO_BIN_EXE_interlude-demo");

/// Issue 21, hole 3: `interlude-demo --http` keeps its flows in the user's data folder
/// (`$XDG_DATA_HOME/interlude`, `0700`), the database and its key file `0600` — and refuses to
/// start on a store file another user could have made (`0666`), naming it.
#[cfg(unix)]
#[tokio::test]
async fn the_http_demo_keeps_its_store_private_in_the_data_folder() {
    use std::os::unix::fs::PermissionsExt;
    use tokio::io::AsyncBufReadExt;
    let data = TempFolder::new("data-home");
    let mode =
        |path: &std::path::Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    let free_port = || {
        std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port()
    };
    let demo = |port: u16| {
        tokio::process::Command::new(DEMO)
            .args(["--http", &format!("127.0.0.1:{port}")])
            .env("XDG_DATA_HOME", &data.0)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap()
    };

    let port = free_port();
    let mut child = demo(port);
    let mut lines = tokio::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let started = tokio::time::timeout(std::time::Duration::from_secs(30), lines.next_line())
        .await
        .unwrap()
        .unwrap()
        .unwrap_or_default();
    assert!(started.contains("streamable HTTP"), "{started}");
    let folder = data.0.join("interlude");
    let store = folder.join(format!("demo-{port}.sqlite"));
    let key = folder.join(format!("demo-{port}.sqlite.key"));
    // The store is opened right after that line.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !(store.exists() && key.exists()) {
        assert!(
            std::time::Instant::now() < deadline,
            "no store in {folder:?}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(mode(&folder), 0o700);
    assert_eq!(mode(&store), 0o600);
    assert_eq!(mode(&key), 0o600);
    child.kill().await.unwrap();

    // Someone made the next port's store file in advance, open to all.
    let port = free_port();
    let planted = folder.join(format!("demo-{port}.sqlite"));
    std::fs::write(&planted, b"").unwrap();
    std::fs::set_permissions(&planted, std::fs::Permissions::from_mode(0o666)).unwrap();
    let out = demo(port).wait_with_output().await.unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("refusing") && stderr.contains(&planted.display().to_string()),
        "{stderr}"
    );
    assert_eq!(std::fs::read(&planted).unwrap(), b"", "left as it was");
}

/// `interlude demo`'s pair: the stdio demo (a child process, told where by its environment as
/// the CLI tells it) and the HTTP demo serving the pages share one store file and its key. The
/// key saved on the HTTP demo's page (sealed by that process) is read back by the stdio demo's
/// tool; and the stdio demo's confirmed payment is claimed once in the shared store.
#[tokio::test]
async fn the_stdio_and_http_demos_share_one_store_and_its_key() {
    use interlude_demo::flows::{FLOWS_ENV, KEY_ENV, STORE_ENV, hex};
    let folder = TempFolder::new("pair");
    let path = folder.0.join("demo-flows.sqlite");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    let base = format!("{origin}/flows");
    let cookie_key = vec![6u8; 32];
    let store: Arc<dyn FlowStore> = Arc::new(SqliteStore::open(&path).unwrap());
    let flows = interlude_demo::flows::demo_flows(&base, store, &cookie_key, None).unwrap();
    tokio::spawn(serve_http(
        listener,
        HttpOptions {
            flows: Some((flows, cookie_key.clone())),
            ..HttpOptions::default()
        },
    ));
    let mut command = tokio::process::Command::new(DEMO);
    command
        .env(FLOWS_ENV, &base)
        .env(STORE_ENV, &path)
        .env(KEY_ENV, hex(&cookie_key));
    let transport = rmcp::transport::TokioChildProcess::new(command).unwrap();
    let stdio = RoundTripClient
        .serve_with_lifecycle(
            transport,
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .unwrap();

    // A key, saved on the HTTP demo's page, read by the stdio demo.
    let (link, state) = asked(
        stdio
            .call_tool_once(round("weather_api_key", None))
            .await
            .unwrap(),
    );
    assert!(link.starts_with(&base), "{link}");
    let (origin_, link_) = (origin.clone(), link.clone());
    let page = tokio::task::spawn_blocking(move || {
        interlude_test_support::http1::complete_demo_flow(&origin_, &link_, "wx-0123456789abcd")
    })
    .await
    .unwrap()
    .unwrap();
    assert_eq!(page.status, 200, "{}", page.body);
    let saved = stdio
        .call_tool_once(round("weather_api_key", Some(&state)))
        .await
        .unwrap();
    assert!(text(saved).contains("(17 characters)"));

    // A payment asked over stdio, confirmed on the HTTP demo's page: one retry counts.
    let (link, state) = asked(
        stdio
            .call_tool_once(round("verify_payment", None))
            .await
            .unwrap(),
    );
    confirm(&origin, &link).await;
    let verified = stdio
        .call_tool_once(round("verify_payment", Some(&state)))
        .await
        .unwrap();
    assert_eq!(text(verified), "Payment for order 4711 verified.");
    let (message, _) = refused(&stdio, round("verify_payment", Some(&state))).await;
    assert!(message.contains("already used"), "{message}");
    stdio.cancel().await.unwrap();
}
