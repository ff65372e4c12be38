//! Tools returning `ToolResult` in an `#[asking]` impl block, served by rmcp and called by an
//! rmcp client in this process (over an in-memory pipe): what reaches the client for a question
//! (2026-07-28 `input_required`, then the completed result on the retry), a tool's own
//! `ErrorData`, a client without form support (-32021), a sync tool, and a 2025 session.
// Outside `#[test]` functions too, a panic is how this file's code fails a test.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::collections::BTreeMap;

use interlude_server::{Answer, Ask, AskConfig, AskServer, ToolResult, asking};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientCapabilities, ClientConfig,
    ContentBlock, ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationCapability,
    ErrorData, FormElicitationCapability, ProtocolVersion,
};
use rmcp::service::{
    ClientLifecycleMode, ClientServiceExt, RequestContext, RoleClient, RunningService,
};
use rmcp::{ClientHandler, ServiceError, ServiceExt, tool, tool_handler, tool_router};
use serde_json::json;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Name {
    /// Your name
    name: String,
}

#[derive(Clone)]
struct Server {
    ask: AskConfig,
}

impl AskServer for Server {
    fn ask_config(&self) -> &AskConfig {
        &self.ask
    }
}

#[asking]
#[tool_router]
impl Server {
    #[tool(description = "Asks for a name")]
    async fn greet(&self, ask: Ask) -> ToolResult {
        let text = match ask.form::<Name>("Your name?").await? {
            Answer::Accepted(n) => format!("Hello, {}!", n.name),
            Answer::Declined => "declined".into(),
            Answer::Cancelled => "cancelled".into(),
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
    }

    #[tool(description = "Says what it finds in the call's _meta through Ask")]
    async fn meta_seen(&self, ask: Ask) -> ToolResult {
        let meta = &ask.context().meta;
        let text = format!(
            "x-test={} progress={} form={}",
            meta.get("x-test")
                .and_then(|v| v.as_str())
                .unwrap_or("none"),
            meta.get_progress_token().is_some(),
            ask.supports_form(),
        );
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
    }

    #[tool(description = "Fails with its own error")]
    async fn refuse(&self) -> ToolResult {
        Err(ErrorData::invalid_params(
            "no, thanks",
            Some(json!({"why": "test"})),
        ))?;
        Ok(CallToolResult::success(vec![]))
    }

    #[tool(description = "A sync tool returning ToolResult")]
    fn sync_tool(&self) -> ToolResult {
        Ok(CallToolResult::success(vec![ContentBlock::text("sync")]))
    }

    #[tool(description = "A plain rmcp tool in the same block, left alone")]
    async fn plain(&self) -> String {
        "plain".into()
    }
}

#[tool_handler]
impl rmcp::ServerHandler for Server {}

/// A client that answers every push-era form with `{"name": "Ada"}`, or declares no form support.
#[derive(Clone)]
struct Client {
    forms: bool,
}

impl ClientHandler for Client {
    async fn create_elicitation(
        &self,
        _request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        Ok(ElicitResult::new(ElicitationAction::Accept).with_content(json!({"name": "Ada"})))
    }

    fn get_info(&self) -> ClientConfig {
        let mut info = ClientConfig::default();
        if self.forms {
            let mut caps = ClientCapabilities::default();
            caps.elicitation =
                Some(ElicitationCapability::new().with_form(FormElicitationCapability::new()));
            info.capabilities = caps;
        }
        info
    }
}

/// Serves a fresh server on one end of an in-memory pipe and connects `client` to the other,
/// in `era` (2025-11-25 through `initialize`, 2026-07-28 through `server/discover`).
async fn connect(client: Client, era: ProtocolVersion) -> RunningService<RoleClient, Client> {
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let server = Server {
        ask: AskConfig::new(),
    };
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let lifecycle = if era == ProtocolVersion::V_2026_07_28 {
        ClientLifecycleMode::Discover {
            preferred_versions: vec![era],
        }
    } else {
        ClientLifecycleMode::Initialize
    };
    client
        .serve_with_lifecycle(client_io, lifecycle)
        .await
        .expect("client connects")
}

fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect()
}

#[tokio::test]
async fn a_question_reaches_the_client_as_input_required_and_the_retry_completes() {
    let client = connect(Client { forms: true }, ProtocolVersion::V_2026_07_28).await;
    let first = client
        .call_tool_once(CallToolRequestParams::new("greet"))
        .await
        .expect("input_required is a result, not an error");
    let CallToolResponse::InputRequired(ir) = first else {
        panic!("expected input_required, got {first:?}");
    };
    let requests = ir.input_requests.expect("the question");
    assert_eq!(requests.len(), 1);
    let key = requests.keys().next().expect("a key").clone();
    let state = ir.request_state.expect("a sealed requestState");

    let mut retry = CallToolRequestParams::new("greet");
    retry.input_responses = Some(BTreeMap::from([(
        key,
        json!({"action": "accept", "content": {"name": "Ada"}}),
    )]));
    retry.request_state = Some(state);
    let done = client.call_tool_once(retry).await.expect("completes");
    let CallToolResponse::Complete(result) = done else {
        panic!("expected a complete result, got {done:?}");
    };
    assert_eq!(text(&result), "Hello, Ada!");
    assert_ne!(result.is_error, Some(true));
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn a_tools_own_error_data_reaches_the_client_unchanged() {
    for era in [ProtocolVersion::V_2025_11_25, ProtocolVersion::V_2026_07_28] {
        let client = connect(Client { forms: true }, era.clone()).await;
        let err = client
            .call_tool_once(CallToolRequestParams::new("refuse"))
            .await
            .expect_err("a JSON-RPC error");
        let ServiceError::McpError(data) = err else {
            panic!("expected a JSON-RPC error in {era}, got {err}");
        };
        assert_eq!(data.code.0, -32602, "{era}");
        assert_eq!(data.message, "no, thanks", "{era}");
        assert_eq!(data.data, Some(json!({"why": "test"})), "{era}");
        client.cancel().await.expect("close");
    }
}

#[tokio::test]
async fn a_client_without_form_support_gets_32021_in_both_eras() {
    for era in [ProtocolVersion::V_2025_11_25, ProtocolVersion::V_2026_07_28] {
        let client = connect(Client { forms: false }, era.clone()).await;
        let err = client
            .call_tool_once(CallToolRequestParams::new("greet"))
            .await
            .expect_err("refused");
        let ServiceError::McpError(data) = err else {
            panic!("expected a JSON-RPC error in {era}, got {err}");
        };
        assert_eq!(data.code.0, -32021, "{era}");
        assert_eq!(
            data.data.expect("data")["requiredCapabilities"],
            json!({"elicitation": {"form": {}}}),
            "{era}"
        );
        client.cancel().await.expect("close");
    }
}

#[tokio::test]
async fn a_push_session_asks_with_elicitation_create_and_completes() {
    let client = connect(Client { forms: true }, ProtocolVersion::V_2025_11_25).await;
    let done = client
        .call_tool_once(CallToolRequestParams::new("greet"))
        .await
        .expect("completes");
    let CallToolResponse::Complete(result) = done else {
        panic!("expected a complete result, got {done:?}");
    };
    assert_eq!(text(&result), "Hello, Ada!");
    client.cancel().await.expect("close");
}

/// `Ask` as an extractor takes the call's `_meta` (it is moved, not copied): all of it is there,
/// the caller's own keys and the progress token as well as what `Ask` reads itself (on
/// 2026-07-28 the client's capabilities travel in it).
#[tokio::test]
async fn ask_holds_the_calls_whole_meta_in_both_eras() {
    for era in [ProtocolVersion::V_2025_11_25, ProtocolVersion::V_2026_07_28] {
        let client = connect(Client { forms: true }, era.clone()).await;
        let mut meta = rmcp::model::RequestMetaObject::default();
        meta.insert("x-test".into(), json!("kept"));
        meta.set_progress_token(rmcp::model::ProgressToken(
            rmcp::model::NumberOrString::Number(7),
        ));
        let mut params = CallToolRequestParams::new("meta_seen");
        params.meta = Some(meta);
        let done = client.call_tool_once(params).await.expect("completes");
        let CallToolResponse::Complete(result) = done else {
            panic!("expected a complete result, got {done:?}");
        };
        assert_eq!(
            text(&result),
            "x-test=kept progress=true form=true",
            "{era}"
        );
        client.cancel().await.expect("close");
    }
}

#[tokio::test]
async fn sync_and_plain_tools_in_the_block_complete() {
    let client = connect(Client { forms: true }, ProtocolVersion::V_2026_07_28).await;
    for (tool, expected) in [("sync_tool", "sync"), ("plain", "plain")] {
        let done = client
            .call_tool_once(CallToolRequestParams::new(tool))
            .await
            .expect("completes");
        let CallToolResponse::Complete(result) = done else {
            panic!("expected a complete result from {tool}, got {done:?}");
        };
        assert_eq!(text(&result), expected);
    }
    client.cancel().await.expect("close");
}
