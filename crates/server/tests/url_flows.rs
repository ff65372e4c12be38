//! URL flows end to end on the server side: a real rmcp client over an in-process pipe, the
//! flow pages served over HTTP on 127.0.0.1, and an HTTP client playing the person's browser.
//! The host's side (consent, checks, retries) is tested with the host; here the client answers
//! like a host that consented.
// Outside `#[test]` functions too, a panic is how this file's code fails a test.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::sync::Arc;
use std::time::Duration;

use interlude_protocol::url::ELICITATION_COMPLETE_METHOD;
use interlude_server::task::{TaskOptions, TaskSupport};
use interlude_server::url::{
    FlowKind, FlowStore, LocalUser, MemoryStore, SignedCookie, SqliteStore, UrlFlows, UserId,
};
use interlude_server::{Answer, Ask, AskConfig, AskError, respond};
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResponse, CallToolResult, ClientCapabilities,
    ClientConfig, ClientRequest, ContentBlock, CustomNotification, ElicitRequestParams,
    ElicitResult, ElicitationAction, ElicitationCapability, ErrorData, FormElicitationCapability,
    ListToolsResult, PaginatedRequestParams, ProtocolVersion, ServerCapabilities, ServerConfig,
    ServerResult, Tool, UrlElicitationCapability,
};
use rmcp::service::{
    ClientLifecycleMode, ClientServiceExt as _, NotificationContext, Peer, RequestContext,
    RoleClient, RoleServer, RunningService,
};
use rmcp::{ClientHandler, ServerHandler, ServiceExt};
use serde_json::{Value, json};
use tokio::sync::mpsc;

const KEY: [u8; 32] = [5u8; 32];

fn cookie() -> SignedCookie {
    SignedCookie::new("test_user", KEY).unwrap()
}

fn kind() -> FlowKind {
    FlowKind::api_key("openai", "OpenAI API key")
}

// ---- the server ---------------------------------------------------------------------------

#[derive(Clone)]
struct KeyServer {
    ask: AskConfig,
    flows: UrlFlows,
}

fn text(t: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(t.into())])
}

impl KeyServer {
    async fn set_api_key(&self, ask: &Ask) -> Result<CallToolResult, AskError> {
        Ok(
            match self
                .flows
                .run(ask, &kind(), "Enter your OpenAI API key")
                .await?
            {
                Answer::Accepted(flow) => text(format!("stored for {}", flow.user.as_str())),
                Answer::Declined => text("declined"),
                Answer::Cancelled => text("cancelled"),
            },
        )
    }

    async fn pay(&self, ask: &Ask) -> Result<CallToolResult, AskError> {
        let kind = FlowKind::confirm("payment", "Confirm a payment", "€12.00 to Example Shop");
        Ok(
            match self.flows.run(ask, &kind, "Confirm the payment").await? {
                Answer::Accepted(_) => text("paid"),
                Answer::Declined => text("declined"),
                Answer::Cancelled => text("cancelled"),
            },
        )
    }

    async fn name(&self, ask: &Ask) -> Result<CallToolResult, AskError> {
        #[derive(serde::Deserialize, schemars::JsonSchema)]
        struct Name {
            /// Your name
            name: String,
        }
        Ok(match ask.form::<Name>("Your name?").await? {
            Answer::Accepted(n) => text(format!("hello {}", n.name)),
            Answer::Declined => text("declined"),
            Answer::Cancelled => text("cancelled"),
        })
    }

    async fn needs_key(&self, ask: &Ask) -> Result<CallToolResult, AskError> {
        match self.flows.secret(ask, "openai").await? {
            Some(key) => Ok(text(format!("using a key of {} bytes", key.expose().len()))),
            None => Err(self
                .flows
                .required(ask, &kind(), "Enter your OpenAI API key first")
                .await?
                .into()),
        }
    }
}

impl ServerHandler for KeyServer {
    async fn on_custom_request(
        &self,
        request: rmcp::model::CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::CustomResult, ErrorData> {
        if request.method == interlude_server::interaction::NOTIFY_METHOD {
            return self
                .ask
                .interactions()
                .notify(request.params.as_ref(), &context, Some(&self.flows))
                .await
                .map(rmcp::model::CustomResult);
        }
        if request.method != interlude_protocol::url::TRACK_METHOD {
            return Err(ErrorData::new(
                rmcp::model::ErrorCode::METHOD_NOT_FOUND,
                request.method,
                None,
            ));
        }
        self.flows
            .track(request.params.as_ref(), &context)
            .await
            .map(rmcp::model::CustomResult)
    }

    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::default();
        info.capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_tasks()
            .build();
        info
    }

    async fn get_task(
        &self,
        request: rmcp::model::GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::GetTaskResult, ErrorData> {
        let requestor = interlude_server::task::Requestor::of(&context);
        self.ask.tasks().get(&request, &requestor).await
    }

    async fn update_task(
        &self,
        request: rmcp::model::UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let requestor = interlude_server::task::Requestor::of(&context);
        self.ask.tasks().update(request, &requestor).await
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let schema = Arc::new(json!({"type": "object"}).as_object().cloned().unwrap());
        Ok(ListToolsResult::with_all_items(vec![
            Tool::new("set_api_key", "Store an API key", schema.clone()),
            Tool::new("needs_key", "Needs the key", schema),
        ]))
    }

    async fn call_tool(
        &self,
        params: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let ask = Ask::new(&self.ask, &params, context);
        match params.name.as_ref() {
            "set_api_key" => respond(self.set_api_key(&ask).await),
            "needs_key" => respond(self.needs_key(&ask).await),
            "pay" => respond(self.pay(&ask).await),
            // The same flow inside a task (the Tasks extension).
            "set_api_key_task" => {
                let server = self.clone();
                respond(
                    ask.task(
                        TaskSupport::Optional,
                        TaskOptions::new(),
                        |ask| async move { server.set_api_key(&ask).await },
                    )
                    .await,
                )
            }
            "name" => respond(self.name(&ask).await),
            // `require`: -32042, or the draft's -32003 for a client that declared `ua`.
            "requires_key" => respond(
                self.flows
                    .require(&ask, &kind(), "Enter your OpenAI API key first")
                    .await
                    .map(|_| text("has the key")),
            ),
            "needs_key_draft" => respond(match self.flows.secret(&ask, "openai").await {
                Ok(Some(_)) => Ok(text("using the key")),
                Ok(None) => self
                    .flows
                    .required_draft(&ask, &kind(), "Enter your OpenAI API key first")
                    .await
                    .map_err(AskError::from)
                    .and_then(|e| Err(e.into())),
                Err(e) => Err(e.into()),
            }),
            _ => Err(ErrorData::invalid_params("no such tool", None)),
        }
    }
}

/// The flow pages on 127.0.0.1, and the flows whose base URL points there.
async fn pages(store: Arc<dyn FlowStore>, ask: &AskConfig) -> (KeyServer, String) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    let flows = UrlFlows::new(
        store,
        &format!("{origin}/flows"),
        LocalUser::new(UserId::new("ada"), cookie()),
    )
    // Named as it reads mid-sentence: the pages capitalise it where a sentence starts.
    .with_server_name("the key server");
    let app = axum::Router::new().nest("/flows", flows.router());
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (
        KeyServer {
            ask: ask.clone(),
            flows,
        },
        origin,
    )
}

// ---- the client ---------------------------------------------------------------------------

/// A client that declares form and URL elicitation, consents to every link (sending it down
/// `links`) and reports completion notifications on `done`.
#[derive(Clone)]
struct Client {
    version: ProtocolVersion,
    action: ElicitationAction,
    links: mpsc::UnboundedSender<(String, String)>,
    done: mpsc::UnboundedSender<String>,
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        // It takes tasks (the Tasks extension) too: only a tool that runs as one cares.
        let mut capabilities = ClientCapabilities::builder().enable_tasks().build();
        capabilities.elicitation = Some(
            ElicitationCapability::new()
                .with_form(FormElicitationCapability::new())
                .with_url(UrlElicitationCapability::new()),
        );
        let mut info = ClientConfig::default();
        info.protocol_version = self.version.clone();
        info.capabilities = capabilities;
        info
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        if let ElicitRequestParams::UrlElicitationParams {
            url,
            elicitation_id,
            ..
        } = request
        {
            let _ = self.links.send((url, elicitation_id));
        }
        Ok(ElicitResult::new(self.action.clone()))
    }

    async fn on_custom_notification(
        &self,
        notification: CustomNotification,
        _context: NotificationContext<RoleClient>,
    ) {
        if notification.method == ELICITATION_COMPLETE_METHOD {
            let id = notification.params.unwrap_or_default()["elicitationId"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            let _ = self.done.send(id);
        }
    }
}

struct Session {
    client: RunningService<RoleClient, Client>,
    links: mpsc::UnboundedReceiver<(String, String)>,
    done: mpsc::UnboundedReceiver<String>,
}

async fn connect(
    server: KeyServer,
    version: ProtocolVersion,
    action: ElicitationAction,
) -> Session {
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_end).await {
            let _ = running.waiting().await;
        }
    });
    let (links_tx, links) = mpsc::unbounded_channel();
    let (done_tx, done) = mpsc::unbounded_channel();
    let client = Client {
        version: version.clone(),
        action,
        links: links_tx,
        done: done_tx,
    };
    let client = if version == ProtocolVersion::V_2026_07_28 {
        let mode = ClientLifecycleMode::Discover {
            preferred_versions: vec![version.clone()],
        };
        client.serve_with_lifecycle(client_end, mode).await
    } else {
        client.serve(client_end).await
    }
    .expect("the client connects");
    Session {
        client,
        links,
        done,
    }
}

fn peer(s: &Session) -> Peer<RoleClient> {
    s.client.peer().clone()
}

/// One raw `tools/call`, with round-trip params when given.
async fn call(
    peer: &Peer<RoleClient>,
    tool: &str,
    responses: Option<Value>,
    state: Option<String>,
) -> Result<ServerResult, rmcp::ServiceError> {
    let mut params = CallToolRequestParams::new(tool.to_owned());
    params.input_responses = responses.map(|r| serde_json::from_value(r).unwrap());
    params.request_state = state;
    peer.send_request(ClientRequest::CallToolRequest(CallToolRequest::new(params)))
        .await
}

fn text_of(result: &ServerResult) -> String {
    match result {
        ServerResult::CallToolResult(r) => r
            .content
            .iter()
            .filter_map(|c| c.as_text().map(|t| t.text.clone()))
            .collect(),
        other => panic!("expected a tool result, got {other:?}"),
    }
}

// ---- the browser --------------------------------------------------------------------------

struct Browser {
    http: reqwest::Client,
    cookie: Option<String>,
}

/// reqwest, with a TLS provider installed in case the workspace's features gave it rustls.
fn http_client() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::new()
}

impl Browser {
    fn signed_in_as(user: &str) -> Browser {
        Browser {
            http: http_client(),
            cookie: Some(cookie().header_value(&UserId::new(user))),
        }
    }

    fn anonymous() -> Browser {
        Browser {
            http: http_client(),
            cookie: None,
        }
    }

    async fn get(&self, url: &str) -> (u16, String) {
        let mut r = self.http.get(url);
        if let Some(c) = &self.cookie {
            r = r.header("cookie", c);
        }
        let resp = r.send().await.unwrap();
        let status = resp.status().as_u16();
        (status, resp.text().await.unwrap())
    }

    async fn post_key(&self, url: &str, origin: &str, key: &str) -> (u16, String) {
        self.post_form(url, origin, format!("secret={key}")).await
    }

    /// The form token of the page at `url`, as this browser sees it (empty when it sees no
    /// form there).
    async fn token(&self, url: &str) -> String {
        let (_, page) = self.get(url).await;
        form_token(&page).unwrap_or_default()
    }

    /// Posts `body` to the page at `url` as its own form would: from `origin`, with the token
    /// the page carries.
    async fn post_form(&self, url: &str, origin: &str, body: String) -> (u16, String) {
        let token = self.token(url).await;
        let mut r = self
            .http
            .post(url)
            .header("content-type", "application/x-www-form-urlencoded")
            .header("origin", origin)
            .body(format!("{body}&token={token}"));
        if let Some(c) = &self.cookie {
            r = r.header("cookie", c);
        }
        let resp = r.send().await.unwrap();
        let status = resp.status().as_u16();
        (status, resp.text().await.unwrap())
    }
}

/// The form token a flow page embeds (its hidden `token` field).
fn form_token(page: &str) -> Option<String> {
    let (_, rest) = page.split_once("name=\"token\" value=\"")?;
    let (token, _) = rest.split_once('"')?;
    Some(token.to_owned())
}

async fn next<T>(rx: &mut mpsc::UnboundedReceiver<T>) -> T {
    tokio::time::timeout(Duration::from_secs(10), rx.recv())
        .await
        .expect("in time")
        .expect("still open")
}

// ---- tests --------------------------------------------------------------------------------

/// 2025-11-25: the link goes out as a URL elicitation with an id; the call waits after consent;
/// the page, opened by the same user, stores the key and completes the flow; the client that
/// started it hears of it by id; the call returns. Someone else, or nobody signed in, gets
/// nothing done.
#[tokio::test]
async fn push_flow_completes_on_its_page_for_its_user_only() {
    let store = Arc::new(MemoryStore::default());
    let (server, origin) = pages(store.clone(), &AskConfig::new()).await;
    let mut s = connect(
        server,
        ProtocolVersion::V_2025_11_25,
        ElicitationAction::Accept,
    )
    .await;
    let peer = peer(&s);
    let running = tokio::spawn(async move { call(&peer, "set_api_key", None, None).await });
    let (url, elicitation_id) = next(&mut s.links).await;
    assert!(url.starts_with(&format!("{origin}/flows/")), "{url}");
    assert!(!elicitation_id.is_empty());

    // Phishing: the link forwarded to someone else, or opened signed out.
    let (status, body) = Browser::signed_in_as("mallory").get(&url).await;
    assert_eq!(status, 403, "{body}");
    assert!(!body.contains("<form"), "no form for someone else");
    let (status, _) = Browser::signed_in_as("mallory")
        .post_key(&url, &origin, "sk-mallory")
        .await;
    assert_eq!(status, 403);
    assert_eq!(Browser::anonymous().get(&url).await.0, 401);
    // A tampered id names nothing.
    let tampered = format!("{}x", &url[..url.len() - 1]);
    assert_eq!(Browser::signed_in_as("ada").get(&tampered).await.0, 404);

    let ada = Browser::signed_in_as("ada");
    let (status, body) = ada.get(&url).await;
    assert_eq!(status, 200);
    assert!(body.contains("type=\"password\""), "{body}");
    assert!(body.contains("OpenAI API key"));
    assert!(
        body.contains(
            "<p>The key server asks for your OpenAI API key. It goes to the key server only"
        ),
        "{body}"
    );
    // A post from another origin is refused.
    assert_eq!(
        ada.post_key(&url, "http://127.0.0.1:1", "sk-x").await.0,
        403
    );
    let (status, body) = ada.post_key(&url, &origin, "sk-ada-123").await;
    assert_eq!(status, 200, "{body}");
    assert!(!body.contains("sk-ada-123"), "the secret is never echoed");

    assert_eq!(next(&mut s.done).await, elicitation_id);
    let result = running.await.unwrap().unwrap();
    assert_eq!(text_of(&result), "stored for ada");
    let secret = store
        .secret(&UserId::new("ada"), "openai")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(secret.expose(), b"sk-ada-123");
    assert!(
        store
            .secret(&UserId::new("mallory"), "openai")
            .await
            .unwrap()
            .is_none()
    );
    // Used once: the link is gone.
    assert_eq!(ada.get(&url).await.0, 410);
}

#[tokio::test]
async fn a_declined_link_ends_the_flow() {
    let store = Arc::new(MemoryStore::default());
    let (server, _origin) = pages(store.clone(), &AskConfig::new()).await;
    let mut s = connect(
        server,
        ProtocolVersion::V_2025_11_25,
        ElicitationAction::Decline,
    )
    .await;
    let result = call(&peer(&s), "set_api_key", None, None).await.unwrap();
    assert_eq!(text_of(&result), "declined");
    let (url, _) = next(&mut s.links).await;
    assert_eq!(Browser::signed_in_as("ada").get(&url).await.0, 410);
}

/// 2025-11-25 `-32042`: the tool fails with the link; once the page completed the flow (and
/// the client heard of it), the retried call goes through.
#[tokio::test]
async fn the_url_required_error_then_the_retry() {
    let store = Arc::new(MemoryStore::default());
    let (server, origin) = pages(store, &AskConfig::new()).await;
    let mut s = connect(
        server,
        ProtocolVersion::V_2025_11_25,
        ElicitationAction::Accept,
    )
    .await;
    let err = call(&peer(&s), "needs_key", None, None).await.unwrap_err();
    let rmcp::ServiceError::McpError(error) = err else {
        panic!("expected an MCP error, got {err:?}");
    };
    assert_eq!(error.code.0, -32042);
    let required = &error.data.unwrap()["elicitations"][0];
    assert_eq!(required["mode"], json!("url"));
    let url = required["url"].as_str().unwrap().to_owned();
    let id = required["elicitationId"].as_str().unwrap().to_owned();
    let (status, _) = Browser::signed_in_as("ada")
        .post_key(&url, &origin, "sk-1")
        .await;
    assert_eq!(status, 200);
    assert_eq!(next(&mut s.done).await, id);
    let result = call(&peer(&s), "needs_key", None, None).await.unwrap();
    assert_eq!(text_of(&result), "using a key of 4 bytes");
}

fn input_required(result: &ServerResult) -> (String, String, Value) {
    let ServerResult::InputRequiredResult(ir) = result else {
        panic!("expected input_required, got {result:?}");
    };
    let requests = serde_json::to_value(&ir.input_requests).unwrap();
    let (key, request) = requests.as_object().unwrap().iter().next().unwrap();
    (
        key.clone(),
        ir.request_state.clone().unwrap(),
        request["params"].clone(),
    )
}

/// 2026-07-28: the call returns the link with a sealed state; a retry before the flow is done
/// asks again for the same link; after the page completed it, the retry finishes. A tampered
/// state is refused. And the server may restart in between: the flow is in SQLite.
#[tokio::test]
async fn round_trip_flow_survives_a_restart_and_refuses_tampering() {
    let path = std::env::temp_dir().join(format!("interlude-flows-{}.sqlite", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let ask = AskConfig::with_key([3u8; 32]).unwrap();
    let store: Arc<dyn FlowStore> = Arc::new(SqliteStore::open(&path).unwrap());
    let (server, _) = pages(store, &ask).await;
    let s = connect(
        server,
        ProtocolVersion::V_2026_07_28,
        ElicitationAction::Accept,
    )
    .await;
    let first = call(&peer(&s), "set_api_key", None, None).await.unwrap();
    let (key, state, params) = input_required(&first);
    assert_eq!(params["mode"], json!("url"));
    let url = params["url"].as_str().unwrap().to_owned();
    assert!(
        params.get("elicitationId").is_none_or(|id| id == ""),
        "{params}"
    );

    // Consent given, flow not finished: the same link again.
    let accept = json!({ key.clone(): {"action": "accept"} });
    let again = call(
        &peer(&s),
        "set_api_key",
        Some(accept.clone()),
        Some(state.clone()),
    )
    .await
    .unwrap();
    let (key2, state2, params2) = input_required(&again);
    assert_eq!(
        (key2.as_str(), params2["url"].as_str()),
        (key.as_str(), Some(url.as_str()))
    );

    // A tampered state is refused.
    let mut bad = state2.clone().into_bytes();
    let last = bad.len() - 2;
    bad[last] = if bad[last] == b'A' { b'B' } else { b'A' };
    let err = call(
        &peer(&s),
        "set_api_key",
        Some(accept.clone()),
        Some(String::from_utf8(bad).unwrap()),
    )
    .await
    .unwrap_err();
    assert!(err.to_string().contains("requestState"), "{err}");

    // The server restarts (new store handle, new pages, same file and sealing key).
    drop(s);
    let store: Arc<dyn FlowStore> = Arc::new(SqliteStore::open(&path).unwrap());
    let (server, origin) = pages(store, &ask).await;
    let moved = url.replace(&url[..url.find("/flows/").unwrap()], &origin);
    let (status, body) = Browser::signed_in_as("ada")
        .post_key(&moved, &origin, "sk-after-restart")
        .await;
    assert_eq!(status, 200, "{body}");
    let s = connect(
        server,
        ProtocolVersion::V_2026_07_28,
        ElicitationAction::Accept,
    )
    .await;
    let done = call(&peer(&s), "set_api_key", Some(accept), Some(state2))
        .await
        .unwrap();
    assert_eq!(text_of(&done), "stored for ada");
    let _ = std::fs::remove_file(&path);
}

/// A client that did not declare URL mode gets the spec's missing-capability error, and no
/// flow is started.
#[tokio::test]
async fn a_client_without_url_mode_is_refused() {
    #[derive(Clone)]
    struct FormOnly;
    impl ClientHandler for FormOnly {
        fn get_info(&self) -> ClientConfig {
            let mut capabilities = ClientCapabilities::default();
            capabilities.elicitation =
                Some(ElicitationCapability::new().with_form(FormElicitationCapability::new()));
            let mut info = ClientConfig::default();
            info.protocol_version = ProtocolVersion::V_2025_11_25;
            info.capabilities = capabilities;
            info
        }
    }
    let store = Arc::new(MemoryStore::default());
    let (server, _) = pages(store.clone(), &AskConfig::new()).await;
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_end).await {
            let _ = running.waiting().await;
        }
    });
    let client = FormOnly.serve(client_end).await.unwrap();
    let err = call(client.peer(), "set_api_key", None, None)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("url"), "{err}");
    assert!(
        store
            .pending_flows_of(&UserId::new("ada"), 0)
            .await
            .unwrap()
            .is_empty()
    );
}

/// A confirmation page (a payment): the detail is shown on the server's page only, and the
/// person's decision there ends the call either way.
#[tokio::test]
async fn a_payment_is_confirmed_or_declined_on_the_server_s_page() {
    for (decision, expected) in [("confirm", "paid"), ("decline", "declined")] {
        let store = Arc::new(MemoryStore::default());
        let (server, origin) = pages(store, &AskConfig::new()).await;
        let mut s = connect(
            server,
            ProtocolVersion::V_2025_11_25,
            ElicitationAction::Accept,
        )
        .await;
        let peer = peer(&s);
        let running = tokio::spawn(async move { call(&peer, "pay", None, None).await });
        let (url, _) = next(&mut s.links).await;
        let ada = Browser::signed_in_as("ada");
        let (status, body) = ada.get(&url).await;
        assert_eq!(status, 200);
        assert!(body.contains("€12.00 to Example Shop"), "{body}");
        let (status, body) = ada
            .post_form(&url, &origin, format!("decision={decision}"))
            .await;
        assert_eq!(status, 200, "{body}");
        let result = running.await.unwrap().unwrap();
        assert_eq!(text_of(&result), expected);
    }
}

/// The out-of-band draft (seed 003): `-32604` with the link, then `elicitation/track`, which
/// answers `complete` once the page is done; an unknown id, or another user's flow, is refused.
#[tokio::test]
async fn the_draft_s_elicitation_required_error_and_track() {
    let store = Arc::new(MemoryStore::default());
    let (server, origin) = pages(store.clone(), &AskConfig::new()).await;
    let s = connect(
        server,
        ProtocolVersion::V_2025_11_25,
        ElicitationAction::Accept,
    )
    .await;
    let err = call(&peer(&s), "needs_key_draft", None, None)
        .await
        .unwrap_err();
    let rmcp::ServiceError::McpError(error) = err else {
        panic!("expected an MCP error, got {err:?}");
    };
    assert_eq!(error.code.0, -32604);
    let required = &error.data.unwrap()["elicitations"][0];
    let url = required["url"].as_str().unwrap().to_owned();
    let id = required["elicitationId"].as_str().unwrap().to_owned();

    let track = |id: String| {
        let peer = peer(&s);
        async move {
            let request = rmcp::model::CustomRequest::new(
                interlude_protocol::url::TRACK_METHOD,
                Some(json!({ "elicitationId": id })),
            );
            peer.send_request(ClientRequest::CustomRequest(request))
                .await
        }
    };
    // Unknown ids and other users' flows are refused.
    assert!(track("AAAAAAAAAAAAAAAAAAAAAA".into()).await.is_err());
    let theirs = interlude_server::url::Flow::new(
        UserId::new("mallory"),
        "api_key:openai",
        1,
        10_000_000_000_000,
    );
    store.insert_flow(&theirs).await.unwrap();
    assert!(track(theirs.id.as_str().to_owned()).await.is_err());

    let waiting = tokio::spawn(track(id));
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(
        !waiting.is_finished(),
        "track answers only once the flow is over"
    );
    let (status, _) = Browser::signed_in_as("ada")
        .post_key(&url, &origin, "sk-draft")
        .await;
    assert_eq!(status, 200);
    let answer = tokio::time::timeout(Duration::from_secs(5), waiting)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    let ServerResult::CustomResult(result) = answer else {
        panic!("expected a custom result, got {answer:?}");
    };
    assert_eq!(result.0, json!({"status": "complete"}));
    let again = call(&peer(&s), "needs_key_draft", None, None)
        .await
        .unwrap();
    assert_eq!(text_of(&again), "using the key");
}

// ---- the User Interaction draft (seed 000) ----------------------------------------------------

/// A client written against the draft: it declares `userInteraction` under `experimental`
/// (where rmcp's typed capabilities can carry it), answers `interaction/create` as the draft
/// says, and reports each request it got.
#[derive(Clone)]
struct DraftClient {
    types: Vec<&'static str>,
    /// `accept` (content for a prompt, consent for a ua), `decline` or `cancel`.
    action: &'static str,
    content: Value,
    asked: mpsc::UnboundedSender<(String, Value)>,
}

impl ClientHandler for DraftClient {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        capabilities.elicitation = Some(
            ElicitationCapability::new()
                .with_form(FormElicitationCapability::new())
                .with_url(UrlElicitationCapability::new()),
        );
        capabilities.experimental = Some(
            [(
                "userInteraction".to_owned(),
                json!({"types": self.types, "progress": true})
                    .as_object()
                    .cloned()
                    .unwrap(),
            )]
            .into_iter()
            .collect(),
        );
        let mut info = ClientConfig::default();
        info.protocol_version = ProtocolVersion::V_2025_11_25;
        info.capabilities = capabilities;
        info
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let _ = self.asked.send((
            "elicitation/create".into(),
            serde_json::to_value(&request).unwrap(),
        ));
        Ok(ElicitResult::new(ElicitationAction::Accept).with_content(self.content.clone()))
    }

    async fn on_custom_request(
        &self,
        request: rmcp::model::CustomRequest,
        _context: RequestContext<RoleClient>,
    ) -> Result<rmcp::model::CustomResult, ErrorData> {
        let params = request.params.clone().unwrap_or_default();
        let _ = self.asked.send((request.method.clone(), params.clone()));
        match (self.action, params["type"].as_str()) {
            ("accept", Some("prompt")) => {
                Ok(rmcp::model::CustomResult(json!({"content": self.content})))
            }
            ("accept", _) => Ok(rmcp::model::CustomResult(json!({}))),
            (action, _) => Err(ErrorData::new(
                rmcp::model::ErrorCode(-1),
                "User did not consent to the interaction",
                Some(json!({"action": action})),
            )),
        }
    }
}

async fn draft_session(
    server: KeyServer,
    types: Vec<&'static str>,
    action: &'static str,
    content: Value,
) -> (
    RunningService<RoleClient, DraftClient>,
    mpsc::UnboundedReceiver<(String, Value)>,
) {
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_end).await {
            let _ = running.waiting().await;
        }
    });
    let (tx, asked) = mpsc::unbounded_channel();
    let client = DraftClient {
        types,
        action,
        content,
        asked: tx,
    };
    (client.serve(client_end).await.unwrap(), asked)
}

async fn notify(peer: &Peer<RoleClient>, id: &str) -> Result<ServerResult, rmcp::ServiceError> {
    peer.send_request(ClientRequest::CustomRequest(
        rmcp::model::CustomRequest::new(
            interlude_server::interaction::NOTIFY_METHOD,
            Some(json!({ "id": id })),
        ),
    ))
    .await
}

#[tokio::test]
async fn a_draft_client_gets_a_prompt_and_only_the_types_it_listed() {
    let store = Arc::new(MemoryStore::default());
    let (server, _origin) = pages(store, &AskConfig::new()).await;
    let (client, mut asked) = draft_session(
        server.clone(),
        vec!["prompt"],
        "accept",
        json!({"name": "Ada"}),
    )
    .await;
    let peer = client.peer().clone();
    let result = call(&peer, "name", None, None).await.unwrap();
    assert_eq!(text_of(&result), "hello Ada");
    let (method, params) = next(&mut asked).await;
    assert_eq!(method, "interaction/create");
    assert_eq!(params["type"], "prompt");
    assert_eq!(
        params["interaction"]["message"],
        json!({"type": "text", "text": "Your name?"})
    );
    assert_eq!(
        params["interaction"]["schema"]["properties"]["name"]["type"],
        "string"
    );
    // Its notify is answered: the prompt is over.
    let id = params["id"].as_str().unwrap().to_owned();
    let done = tokio::time::timeout(Duration::from_secs(5), notify(&peer, &id))
        .await
        .expect("answered")
        .unwrap();
    assert!(matches!(done, ServerResult::EmptyResult(_)), "{done:?}");
    // A notify for an id the server never created is never answered.
    let unknown = tokio::time::timeout(Duration::from_millis(800), notify(&peer, "not-ours")).await;
    assert!(
        unknown.is_err(),
        "answered a notify it must not: {unknown:?}"
    );
    // `ua` was not listed: a URL flow goes out as URL-mode elicitation instead.
    let running = tokio::spawn(async move { call(&peer, "set_api_key", None, None).await });
    let (method, params) = next(&mut asked).await;
    assert_eq!(method, "elicitation/create", "{params}");
    assert_eq!(params["mode"], "url");
    running.abort();

    // Content that breaks the schema never reaches the tool; a refusal is a decline.
    let (client, _asked) =
        draft_session(server.clone(), vec!["prompt"], "accept", json!({"name": 7})).await;
    let error = call(client.peer(), "name", None, None).await.unwrap_err();
    assert!(error.to_string().contains("name"), "{error}");
    let (client, _asked) = draft_session(server, vec!["prompt"], "decline", json!({})).await;
    let result = call(client.peer(), "name", None, None).await.unwrap();
    assert_eq!(text_of(&result), "declined");
}

#[tokio::test]
async fn a_draft_ua_is_the_users_flow_and_its_notify_ends_with_it() {
    let store = Arc::new(MemoryStore::default());
    let (server, origin) = pages(store, &AskConfig::new()).await;
    let (client, mut asked) =
        draft_session(server.clone(), vec!["ua", "prompt"], "accept", json!({})).await;
    let peer = client.peer().clone();
    let calling = peer.clone();
    let running = tokio::spawn(async move { call(&calling, "set_api_key", None, None).await });
    let (method, params) = next(&mut asked).await;
    assert_eq!(method, "interaction/create");
    assert_eq!(params["type"], "ua");
    let url = params["interaction"]["url"].as_str().unwrap().to_owned();
    let id = params["id"].as_str().unwrap().to_owned();
    assert!(
        url.ends_with(&id),
        "the interaction's id is the flow's: {url}"
    );

    // Tracked: the notify waits for the page.
    let tracking = {
        let peer = peer.clone();
        let id = id.clone();
        tokio::spawn(async move { notify(&peer, &id).await })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!tracking.is_finished(), "answered before the flow ended");
    // Another user gets nothing done; the user who started it does.
    assert_eq!(Browser::signed_in_as("mallory").get(&url).await.0, 403);
    let (status, body) = Browser::signed_in_as("ada")
        .post_key(&url, &origin, "sk-draft")
        .await;
    assert_eq!(status, 200, "{body}");
    let done = tokio::time::timeout(Duration::from_secs(5), tracking)
        .await
        .expect("the notify is answered")
        .unwrap()
        .unwrap();
    assert!(matches!(done, ServerResult::EmptyResult(_)), "{done:?}");
    let result = tokio::time::timeout(Duration::from_secs(5), running)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(text_of(&result), "stored for ada");

    // Another client (another connection) asking after this client's interaction: no answer.
    let (other, _asked) = draft_session(server.clone(), vec!["ua"], "accept", json!({})).await;
    let foreign = tokio::time::timeout(Duration::from_millis(800), notify(other.peer(), &id)).await;
    assert!(
        foreign.is_err(),
        "answered another client's notify: {foreign:?}"
    );

    // A tool that needs the flow first answers -32003 with the interaction in `data` (a fresh
    // store: the key above is kept).
    drop(server);
    let (server, _origin) = pages(Arc::new(MemoryStore::default()), &AskConfig::new()).await;
    let (client, _asked) = draft_session(server, vec!["ua"], "accept", json!({})).await;
    let error = call(client.peer(), "requires_key", None, None)
        .await
        .unwrap_err();
    let rmcp::ServiceError::McpError(error) = error else {
        panic!("{error}");
    };
    assert_eq!(error.code.0, -32003);
    assert_eq!(error.message, "interaction_required");
    let data = error.data.unwrap();
    assert_eq!(data["type"], "ua");
    assert!(
        data["url"]
            .as_str()
            .unwrap()
            .ends_with(data["id"].as_str().unwrap())
    );
}

/// Issue 21, hole 4: a flow page's form post counts only when it comes from the page itself —
/// a same-origin `Origin` (or, without one, `Sec-Fetch-Site: same-origin`) and the page's
/// form token. `Origin: null`, no origin at all, another origin, a cross-site fetch, a missing
/// or another flow's token: refused, nothing saved, the flow still pending.
#[tokio::test]
async fn a_flow_form_post_needs_its_own_origin_and_its_token() {
    let store = Arc::new(MemoryStore::default());
    let (server, origin) = pages(store.clone(), &AskConfig::new()).await;
    let s = connect(
        server,
        ProtocolVersion::V_2026_07_28,
        ElicitationAction::Accept,
    )
    .await;
    let link = |result: &ServerResult| input_required(result).2["url"].as_str().unwrap().to_owned();
    let url = link(&call(&peer(&s), "set_api_key", None, None).await.unwrap());
    let other = link(&call(&peer(&s), "set_api_key", None, None).await.unwrap());
    let ada = Browser::signed_in_as("ada");
    // Browsers send `Origin: null` with a page's own post under `no-referrer`; the pages say
    // `same-origin`, which leaks the flow's URL to no other origin either.
    let shown = http_client()
        .get(&url)
        .header("cookie", cookie().header_value(&UserId::new("ada")))
        .send()
        .await
        .unwrap();
    assert_eq!(shown.headers()["referrer-policy"], "same-origin");
    let token = ada.token(&url).await;
    let other_token = ada.token(&other).await;
    assert!(!token.is_empty() && token != other_token);
    let cookie = cookie().header_value(&UserId::new("ada"));

    type Headers = Vec<(&'static str, String)>;
    let post = |url: String, headers: Headers, token: String| {
        let cookie = cookie.clone();
        let http = http_client();
        async move {
            let mut r = http
                .post(&url)
                .header("cookie", cookie)
                .header("content-type", "application/x-www-form-urlencoded")
                .body(format!("secret=sk-stolen&token={token}"));
            for (name, value) in headers {
                r = r.header(name, value);
            }
            let resp = r.send().await.unwrap();
            (resp.status().as_u16(), resp.text().await.unwrap())
        }
    };
    let refused: Vec<(&str, Headers, String)> = vec![
        (
            "Origin: null",
            vec![("origin", "null".into())],
            token.clone(),
        ),
        ("no Origin, no Sec-Fetch-Site", vec![], token.clone()),
        (
            "another origin",
            vec![("origin", "http://evil.example".into())],
            token.clone(),
        ),
        (
            "an origin that only starts like ours",
            vec![("origin", format!("{origin}.evil.example"))],
            token.clone(),
        ),
        (
            "cross-site fetch with our Origin",
            vec![
                ("origin", origin.clone()),
                ("sec-fetch-site", "cross-site".into()),
            ],
            token.clone(),
        ),
        (
            "Sec-Fetch-Site: same-site (a sibling origin)",
            vec![("sec-fetch-site", "same-site".into())],
            token.clone(),
        ),
        ("no token", vec![("origin", origin.clone())], String::new()),
        (
            "another flow's token",
            vec![("origin", origin.clone())],
            other_token.clone(),
        ),
        (
            "a forged token",
            vec![("origin", origin.clone())],
            "A".repeat(43),
        ),
    ];
    for (case, headers, token) in refused {
        let (status, body) = post(url.clone(), headers, token).await;
        assert_eq!(status, 403, "{case}: {body}");
        assert!(body.contains("Nothing was saved"), "{case}: {body}");
    }
    assert!(
        store
            .secret(&UserId::new("ada"), "openai")
            .await
            .unwrap()
            .is_none()
    );
    assert_eq!(
        store
            .pending_flows_of(&UserId::new("ada"), 0)
            .await
            .unwrap()
            .len(),
        2
    );

    // From the page itself: our Origin and the token; or no Origin but the browser's
    // `Sec-Fetch-Site: same-origin`, and the token.
    let (status, body) = post(url, vec![("origin", origin.clone())], token).await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = post(
        other,
        vec![("sec-fetch-site", "same-origin".into())],
        other_token,
    )
    .await;
    assert_eq!(status, 200, "{body}");
}

/// A URL flow inside a task (the Tasks extension, 2026-07-28): the consent is one of the task's
/// input requests (a URL elicitation naming the flow), answered with `tasks/update`; the task
/// then waits, `working`, until the page completes the flow, and ends with the tool's result.
#[tokio::test]
async fn a_url_flow_inside_a_task_asks_its_consent_then_waits_for_the_page() {
    let store = Arc::new(MemoryStore::default());
    let (server, origin) = pages(store.clone(), &AskConfig::new()).await;
    let s = connect(
        server,
        ProtocolVersion::V_2026_07_28,
        ElicitationAction::Accept,
    )
    .await;
    let peer = peer(&s);
    let created = peer
        .call_tool_once(CallToolRequestParams::new("set_api_key_task"))
        .await
        .unwrap();
    let CallToolResponse::Task(created) = created else {
        panic!("a task: {created:?}");
    };
    let id = created.task.task_id.clone();
    let status = |want: &'static str| {
        let peer = peer.clone();
        let id = id.clone();
        async move {
            let mut last = Value::Null;
            for _ in 0..500 {
                let got = peer
                    .get_task(rmcp::model::GetTaskParams::new(&id))
                    .await
                    .unwrap();
                last = serde_json::to_value(got).unwrap();
                if last["status"] == want {
                    return last;
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            panic!("task {id} never became {want}: {last}");
        }
    };
    let waiting = status("input_required").await;
    let requests = waiting["inputRequests"].as_object().unwrap();
    assert_eq!(requests.len(), 1, "{waiting}");
    let (key, asked) = requests.iter().next().unwrap();
    assert_eq!(asked["params"]["mode"], "url", "{waiting}");
    let url = asked["params"]["url"].as_str().unwrap().to_owned();
    assert!(url.starts_with(&format!("{origin}/flows/")), "{url}");

    let answers = [(key.clone(), json!({"action": "accept"}))]
        .into_iter()
        .collect();
    peer.update_task(rmcp::model::UpdateTaskParams::new(&id, answers))
        .await
        .unwrap();
    // Consent given, the task waits for the page, not for the client.
    let working = status("working").await;
    assert!(working.get("inputRequests").is_none(), "{working}");
    let (code, body) = Browser::signed_in_as("ada")
        .post_key(&url, &origin, "sk-in-a-task")
        .await;
    assert_eq!(code, 200, "{body}");
    let done = status("completed").await;
    assert_eq!(
        done["result"]["content"][0]["text"], "stored for ada",
        "{done}"
    );
    let secret = store
        .secret(&UserId::new("ada"), "openai")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(secret.expose(), b"sk-in-a-task");
}
