//! The push era's waiting: a question left unanswered past `AskConfig::with_timeout` fails the
//! call and is withdrawn with `notifications/cancelled` (as rmcp's own timeout does), and a tool
//! call cancelled by the client while its question is open ends the wait as a dismissal.
// Outside `#[test]` functions too, a panic is how this file's code fails a test.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use interlude_server::{Answer, Ask, AskConfig, AskServer, respond};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelledNotificationParam,
    ClientCapabilities, ClientConfig, ClientRequest, ContentBlock, ElicitRequestParams,
    ElicitResult, ElicitationCapability, FormElicitationCapability, ProtocolVersion, Request,
    RequestId,
};
use rmcp::service::{NotificationContext, PeerRequestOptions, RequestContext, RoleClient};
use rmcp::{ClientHandler, ErrorData, ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Deserialize, JsonSchema)]
struct Name {
    /// Your name
    #[allow(dead_code)]
    name: String,
}

/// What the server's tool saw when its question ended.
type Outcomes = Arc<Mutex<Vec<&'static str>>>;

#[derive(Clone)]
struct Server {
    ask: AskConfig,
    outcomes: Outcomes,
    tool_router: ToolRouter<Self>,
}

impl AskServer for Server {
    fn ask_config(&self) -> &AskConfig {
        &self.ask
    }
}

#[tool_router]
impl Server {
    #[tool(description = "Ask for a name")]
    async fn name(&self, ask: Ask) -> Result<CallToolResponse, ErrorData> {
        let answer = ask.form::<Name>("Your name?").await;
        self.outcomes.lock().unwrap().push(match &answer {
            Ok(Answer::Accepted(_)) => "accepted",
            Ok(Answer::Declined) => "declined",
            Ok(Answer::Cancelled) => "cancelled",
            Err(_) => "failed",
        });
        respond(answer.map(|_| CallToolResult::success(vec![ContentBlock::text("done")])))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Server {}

/// A client that never answers, and notes the requests the server withdraws.
#[derive(Clone, Default)]
struct Silent {
    asked: Arc<Mutex<Vec<RequestId>>>,
    withdrawn: Arc<Mutex<Vec<CancelledNotificationParam>>>,
}

impl ClientHandler for Silent {
    async fn create_elicitation(
        &self,
        _request: ElicitRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        self.asked.lock().unwrap().push(context.id.clone());
        std::future::pending().await
    }

    async fn on_cancelled(
        &self,
        params: CancelledNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.withdrawn.lock().unwrap().push(params);
    }

    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        capabilities.elicitation =
            Some(ElicitationCapability::new().with_form(FormElicitationCapability::new()));
        let mut info = ClientConfig::default();
        info.capabilities = capabilities;
        info.protocol_version = ProtocolVersion::V_2025_11_25;
        info
    }
}

/// A server with `ask` and a connected `Silent` client, over an in-process pipe.
async fn connect(
    ask: AskConfig,
) -> (
    rmcp::service::RunningService<RoleClient, Silent>,
    Silent,
    Outcomes,
) {
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let outcomes = Outcomes::default();
    let server = Server {
        ask,
        outcomes: outcomes.clone(),
        tool_router: Server::tool_router(),
    };
    tokio::spawn(async move {
        let (r, w) = tokio::io::split(server_io);
        if let Ok(service) = server.serve((r, w)).await {
            let _ = service.waiting().await;
        }
    });
    let silent = Silent::default();
    let (r, w) = tokio::io::split(client_io);
    let client = silent.clone().serve((r, w)).await.expect("client");
    (client, silent, outcomes)
}

async fn eventually(what: &str, mut check: impl FnMut() -> bool) {
    for _ in 0..200 {
        if check() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("never: {what}");
}

#[tokio::test]
async fn a_question_left_unanswered_past_the_timeout_fails_and_is_withdrawn() {
    let config = AskConfig::new().with_timeout(Duration::from_millis(100));
    let (client, silent, outcomes) = connect(config).await;
    let err = client
        .call_tool(CallToolRequestParams::new("name"))
        .await
        .expect_err("the call fails");
    assert!(err.to_string().contains("timeout"), "{err}");
    assert_eq!(*outcomes.lock().unwrap(), ["failed"]);
    let asked = silent.asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 1);
    eventually("the question is withdrawn", || {
        !silent.withdrawn.lock().unwrap().is_empty()
    })
    .await;
    let withdrawn = silent.withdrawn.lock().unwrap().clone();
    assert_eq!(withdrawn[0].request_id.as_ref(), Some(&asked[0]));
    assert_eq!(withdrawn[0].reason.as_deref(), Some("request timeout"));
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn a_call_cancelled_while_its_question_is_open_ends_as_a_dismissal() {
    let (client, silent, outcomes) = connect(AskConfig::new()).await;
    let call = client
        .peer()
        .send_cancellable_request(
            ClientRequest::CallToolRequest(Request::new(CallToolRequestParams::new("name"))),
            PeerRequestOptions::no_options(),
        )
        .await
        .expect("sent");
    eventually("the question arrives", || {
        !silent.asked.lock().unwrap().is_empty()
    })
    .await;
    call.cancel(None).await.expect("cancel");
    eventually("the tool sees the dismissal", || {
        !outcomes.lock().unwrap().is_empty()
    })
    .await;
    assert_eq!(*outcomes.lock().unwrap(), ["cancelled"]);
    client.cancel().await.expect("close");
}
