//! Sampling and roots questions, named question keys, and a prompt that asks: tools in an
//! `#[asking]` block (and a hand-written `get_prompt`) served by rmcp and called by an rmcp
//! client in this process over an in-memory pipe, in both eras. The client is a bare
//! `Service<RoleClient>` so that it can answer anything, malformed answers included; its
//! answers are the JSON the conformance harness sends.
// Outside `#[test]` functions too, a panic is how this file's code fails a test.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use interlude_server::{
    Answer, Ask, AskConfig, AskServer, PromptResult, Sampling, ToolResult, asking, respond_prompt,
};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientCapabilities, ClientConfig,
    ClientResult, ContentBlock, ElicitationCapability, ErrorData, FormElicitationCapability,
    GetPromptRequestParams, GetPromptResponse, GetPromptResult, InputRequiredResult, PromptMessage,
    ProtocolVersion, Role, RootsCapabilities, SamplingCapability, ServerCapabilities,
    ServerNotification, ServerRequest,
};
use rmcp::service::{
    ClientLifecycleMode, ClientServiceExt, NotificationContext, RequestContext, RoleClient,
    RoleServer, RunningService, Service,
};
use rmcp::{ServiceError, ServiceExt, tool, tool_handler, tool_router};
use serde_json::{Value, json};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Name {
    /// Your name
    name: String,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Topic {
    /// What the prompt should be about
    context: String,
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

fn done(text: impl Into<String>) -> ToolResult {
    Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
}

#[asking]
#[tool_router]
impl Server {
    #[tool(description = "Asks the client's model for the capital of France")]
    async fn capital(&self, ask: Ask) -> ToolResult {
        let question = Sampling::new(100)
            .system("Answer in one sentence.")
            .user("What is the capital of France?");
        match ask.key("capital_question").sample(question).await? {
            Answer::Accepted(s) => done(format!(
                "{} [{}; {}]",
                s.text().unwrap_or_default(),
                s.model(),
                s.stop_reason().unwrap_or("-")
            )),
            Answer::Declined => done("declined"),
            Answer::Cancelled => done("cancelled"),
        }
    }

    #[tool(description = "Lists the client's roots")]
    async fn places(&self, ask: Ask) -> ToolResult {
        let roots = ask.key("client_roots").roots().await?;
        let listed: Vec<String> = roots
            .iter()
            .map(|r| format!("{} ({})", r.uri, r.name.as_deref().unwrap_or("-")))
            .collect();
        done(listed.join(", "))
    }

    #[tool(description = "Asks for a name under the key user_name")]
    async fn greet(&self, ask: Ask) -> ToolResult {
        match ask
            .key("user_name")
            .form::<Name>("What is your name?")
            .await?
        {
            Answer::Accepted(n) => done(format!("Hello, {}!", n.name)),
            Answer::Declined | Answer::Cancelled => done("no name"),
        }
    }

    #[tool(description = "A sampling question, then the roots, under default keys")]
    async fn survey(&self, ask: Ask) -> ToolResult {
        let sampled = match ask
            .sample(Sampling::new(50).user("Generate a greeting"))
            .await?
        {
            Answer::Accepted(s) => s.text().unwrap_or_default(),
            Answer::Declined | Answer::Cancelled => "-".into(),
        };
        let roots = ask.roots().await?;
        done(format!("{sampled} / {} roots", roots.len()))
    }

    #[tool(description = "A name, a greeting and the roots, asked in one round")]
    async fn together(&self, ask: Ask) -> ToolResult {
        let (name, greeting, roots) = ask
            .all((
                ask.key("user_name").form::<Name>("What is your name?"),
                ask.key("greeting")
                    .sample(Sampling::new(50).user("Generate a greeting")),
                ask.key("client_roots").roots(),
            ))
            .await?;
        let name = match name {
            Answer::Accepted(n) => n.name,
            Answer::Declined | Answer::Cancelled => "-".into(),
        };
        let greeting = match greeting {
            Answer::Accepted(s) => s.text().unwrap_or_default(),
            Answer::Declined | Answer::Cancelled => "-".into(),
        };
        done(format!("{name}: {greeting} / {} roots", roots.len()))
    }

    #[tool(description = "Uses one key twice (a server bug)")]
    async fn twice(&self, ask: Ask) -> ToolResult {
        ask.key("same").roots().await?;
        ask.key("same").roots().await?;
        done("unreachable")
    }
}

async fn prompt(ask: Ask) -> PromptResult {
    let topic = match ask
        .key("user_context")
        .form::<Topic>("What context should the prompt use?")
        .await?
    {
        Answer::Accepted(t) => t.context,
        Answer::Declined | Answer::Cancelled => "nothing".into(),
    };
    Ok(GetPromptResult::new(vec![PromptMessage::new_text(
        Role::User,
        format!("Write about {topic}."),
    )]))
}

#[tool_handler]
impl rmcp::ServerHandler for Server {
    fn get_info(&self) -> rmcp::model::ServerConfig {
        let mut info = rmcp::model::ServerConfig::default();
        info.capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_prompts()
            .build();
        info
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        respond_prompt(prompt(Ask::for_prompt(&self.ask, &request, context)).await)
    }
}

/// How the client answers a pushed `sampling/createMessage`.
#[derive(Clone, Copy)]
enum Sample {
    Answer,
    /// Error -1, the specification's "user rejected sampling request".
    Reject,
    /// Another error.
    Fail,
    /// A result with no `content`.
    NoContent,
}

/// A client declaring what it is told, answering as it is told, and keeping every request the
/// server sent it (as JSON).
#[derive(Clone)]
struct Client {
    sampling: bool,
    roots: bool,
    sample: Sample,
    roots_answer: Value,
    seen: Arc<Mutex<Vec<Value>>>,
}

impl Client {
    fn full() -> Self {
        Client {
            sampling: true,
            roots: true,
            sample: Sample::Answer,
            roots_answer: roots_answer(),
            seen: Arc::default(),
        }
    }
}

fn sampling_answer() -> Value {
    json!({"role": "assistant", "content": {"type": "text", "text": "The capital of France is Paris."},
           "model": "test-model", "stopReason": "endTurn"})
}

fn roots_answer() -> Value {
    json!({"roots": [{"uri": "file:///test/root", "name": "Test Root"}]})
}

fn result(value: Value) -> Result<ClientResult, ErrorData> {
    Ok(serde_json::from_value(value).expect("a client result"))
}

impl Service<RoleClient> for Client {
    async fn handle_request(
        &self,
        request: ServerRequest,
        context: RequestContext<RoleClient>,
    ) -> Result<ClientResult, ErrorData> {
        let mut seen = serde_json::to_value(&request).unwrap();
        // rmcp hands a request's `_meta` to the handler in its context.
        seen["meta"] = serde_json::to_value(&context.meta).unwrap();
        self.seen.lock().unwrap().push(seen);
        match request {
            ServerRequest::CreateMessageRequest(_) => match self.sample {
                Sample::Answer => result(sampling_answer()),
                Sample::Reject => Err(ErrorData::new(
                    rmcp::model::ErrorCode(-1),
                    "User rejected sampling request",
                    None,
                )),
                Sample::Fail => Err(ErrorData::internal_error("no model today", None)),
                Sample::NoContent => result(json!({"role": "assistant", "model": "test-model"})),
            },
            ServerRequest::ListRootsRequest(_) => result(self.roots_answer.clone()),
            ServerRequest::ElicitRequest(r) => {
                let schema = serde_json::to_value(&r.params).unwrap()["requestedSchema"].clone();
                let content = if schema["properties"].get("context").is_some() {
                    json!({"context": "tea"})
                } else {
                    json!({"name": "Alice"})
                };
                result(json!({"action": "accept", "content": content}))
            }
            _ => result(json!({})),
        }
    }

    async fn handle_notification(
        &self,
        _notification: ServerNotification,
        _context: NotificationContext<RoleClient>,
    ) -> Result<(), ErrorData> {
        Ok(())
    }

    fn get_info(&self) -> ClientConfig {
        let mut caps = ClientCapabilities::default();
        caps.elicitation =
            Some(ElicitationCapability::new().with_form(FormElicitationCapability::new()));
        if self.sampling {
            caps.sampling = Some(SamplingCapability::default());
        }
        if self.roots {
            caps.roots = Some(RootsCapabilities::default());
        }
        let mut info = ClientConfig::default();
        info.capabilities = caps;
        info
    }
}

const ERAS: [ProtocolVersion; 2] = [ProtocolVersion::V_2025_11_25, ProtocolVersion::V_2026_07_28];

/// Serves `server` on one end of an in-memory pipe and connects `client` to the other, in `era`
/// (2025-11-25 through `initialize`, 2026-07-28 through `server/discover`).
async fn connect_to(
    server: Server,
    client: Client,
    era: ProtocolVersion,
) -> RunningService<RoleClient, Client> {
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
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

async fn connect(client: Client, era: ProtocolVersion) -> RunningService<RoleClient, Client> {
    let server = Server {
        ask: AskConfig::new(),
    };
    connect_to(server, client, era).await
}

fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect()
}

/// Calls `tool` once (no MRTR rounds driven) with `answers` and `state`.
async fn call(
    client: &RunningService<RoleClient, Client>,
    tool: &str,
    answers: Option<Value>,
    state: Option<String>,
) -> Result<CallToolResponse, ServiceError> {
    let mut params = CallToolRequestParams::new(tool.to_owned());
    params.input_responses = answers.map(|a| serde_json::from_value(a).expect("a map"));
    params.request_state = state;
    client.call_tool_once(params).await
}

fn complete(response: Result<CallToolResponse, ServiceError>) -> String {
    match response {
        Ok(CallToolResponse::Complete(r)) => {
            assert_ne!(r.is_error, Some(true), "{}", text(&r));
            text(&r)
        }
        other => panic!("expected a complete result, got {other:?}"),
    }
}

fn input_required(response: Result<CallToolResponse, ServiceError>) -> InputRequiredResult {
    match response {
        Ok(CallToolResponse::InputRequired(ir)) => ir,
        other => panic!("expected input_required, got {other:?}"),
    }
}

/// The one request of an `input_required` result: its key, its JSON, and the sealed state.
fn only_request(ir: &InputRequiredResult) -> (String, Value, String) {
    let requests = ir.input_requests.as_ref().expect("input requests");
    assert_eq!(requests.len(), 1, "{requests:?}");
    let (key, request) = requests.iter().next().unwrap();
    let state = ir.request_state.clone().expect("a sealed requestState");
    (key.clone(), serde_json::to_value(request).unwrap(), state)
}

fn json_rpc_error(response: Result<CallToolResponse, ServiceError>) -> ErrorData {
    match response {
        Err(ServiceError::McpError(e)) => e,
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}

#[tokio::test]
async fn sampling_is_answered_in_both_eras() {
    // 2025: pushed while the call waits, tied to the call by its `_meta`.
    let client = connect(Client::full(), ProtocolVersion::V_2025_11_25).await;
    let text = complete(call(&client, "capital", None, None).await);
    assert_eq!(
        text,
        "The capital of France is Paris. [test-model; endTurn]"
    );
    let seen = client.service().seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0]["method"], "sampling/createMessage");
    assert_eq!(seen[0]["params"]["maxTokens"], 100);
    assert_eq!(seen[0]["params"]["systemPrompt"], "Answer in one sentence.");
    assert!(
        seen[0]["meta"]
            .get(interlude_protocol::RELATED_REQUEST_ID_KEY)
            .is_some(),
        "{}",
        seen[0]
    );
    client.cancel().await.expect("close");

    // 2026-07-28: an input request under the author's key, answered on the retry.
    let client = connect(Client::full(), ProtocolVersion::V_2026_07_28).await;
    let ir = input_required(call(&client, "capital", None, None).await);
    let (key, request, state) = only_request(&ir);
    assert_eq!(key, "capital_question");
    assert_eq!(request["method"], "sampling/createMessage");
    assert_eq!(request["params"]["maxTokens"], 100);
    assert_eq!(
        request["params"]["messages"][0]["content"]["text"],
        "What is the capital of France?"
    );
    let answers = json!({ "capital_question": sampling_answer() });
    let text = complete(call(&client, "capital", Some(answers), Some(state)).await);
    assert_eq!(
        text,
        "The capital of France is Paris. [test-model; endTurn]"
    );
    assert!(client.service().seen.lock().unwrap().is_empty());
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn a_rejected_sampling_is_declined_and_a_failed_one_an_error() {
    let mut rejecting = Client::full();
    rejecting.sample = Sample::Reject;
    let client = connect(rejecting, ProtocolVersion::V_2025_11_25).await;
    assert_eq!(
        complete(call(&client, "capital", None, None).await),
        "declined"
    );
    client.cancel().await.expect("close");

    let mut failing = Client::full();
    failing.sample = Sample::Fail;
    let client = connect(failing, ProtocolVersion::V_2025_11_25).await;
    let e = json_rpc_error(call(&client, "capital", None, None).await);
    assert_eq!(e.code.0, -32603);
    assert!(e.message.contains("no model today"), "{}", e.message);
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn a_client_without_sampling_or_roots_gets_32021_in_both_eras() {
    for era in ERAS {
        let mut bare = Client::full();
        bare.sampling = false;
        bare.roots = false;
        let client = connect(bare, era.clone()).await;
        for (tool, required) in [
            ("capital", json!({"sampling": {}})),
            ("places", json!({"roots": {}})),
        ] {
            let e = json_rpc_error(call(&client, tool, None, None).await);
            assert_eq!(e.code.0, -32021, "{tool} in {era}");
            assert_eq!(
                e.data.expect("data")["requiredCapabilities"],
                required,
                "{tool} in {era}"
            );
        }
        assert!(client.service().seen.lock().unwrap().is_empty());
        client.cancel().await.expect("close");
    }
}

#[tokio::test]
async fn roots_are_listed_in_both_eras() {
    let client = connect(Client::full(), ProtocolVersion::V_2025_11_25).await;
    let text = complete(call(&client, "places", None, None).await);
    assert_eq!(text, "file:///test/root (Test Root)");
    let seen = client.service().seen.lock().unwrap().clone();
    assert_eq!(seen[0]["method"], "roots/list");
    // Tied to its call by its `_meta`, as every pushed question is.
    assert!(
        seen[0]["meta"]
            .get(interlude_protocol::RELATED_REQUEST_ID_KEY)
            .is_some(),
        "{}",
        seen[0]
    );
    client.cancel().await.expect("close");

    let client = connect(Client::full(), ProtocolVersion::V_2026_07_28).await;
    let ir = input_required(call(&client, "places", None, None).await);
    let (key, request, state) = only_request(&ir);
    assert_eq!(key, "client_roots");
    assert_eq!(request["method"], "roots/list");
    let answers = json!({ "client_roots": roots_answer() });
    let text = complete(call(&client, "places", Some(answers), Some(state)).await);
    assert_eq!(text, "file:///test/root (Test Root)");
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn a_named_key_travels_both_ways_and_default_keys_stay_by_order() {
    let client = connect(Client::full(), ProtocolVersion::V_2026_07_28).await;
    let ir = input_required(call(&client, "greet", None, None).await);
    let (key, request, state) = only_request(&ir);
    assert_eq!(key, "user_name");
    assert_eq!(request["method"], "elicitation/create");
    let answers = json!({"user_name": {"action": "accept", "content": {"name": "Alice"}}});
    let text = complete(call(&client, "greet", Some(answers), Some(state)).await);
    assert_eq!(text, "Hello, Alice!");

    // Unnamed questions: q0 (sampling), then q1 (roots), each answer kept in the sealed state.
    let ir = input_required(call(&client, "survey", None, None).await);
    let (key, request, state) = only_request(&ir);
    assert_eq!(
        (key.as_str(), &request["method"]),
        ("q0", &json!("sampling/createMessage"))
    );
    let ir = input_required(
        call(
            &client,
            "survey",
            Some(json!({"q0": sampling_answer()})),
            Some(state.clone()),
        )
        .await,
    );
    let (key, request, second) = only_request(&ir);
    assert_eq!(
        (key.as_str(), &request["method"]),
        ("q1", &json!("roots/list"))
    );
    assert_ne!(second, state, "each round seals a new state");
    let text = complete(
        call(
            &client,
            "survey",
            Some(json!({"q1": roots_answer()})),
            Some(second),
        )
        .await,
    );
    assert_eq!(text, "The capital of France is Paris. / 1 roots");

    // A key used twice in one call is the server's bug, caught before anything leaves.
    let ir = input_required(call(&client, "twice", None, None).await);
    let (_, _, state) = only_request(&ir);
    let e = json_rpc_error(
        call(
            &client,
            "twice",
            Some(json!({"same": roots_answer()})),
            Some(state),
        )
        .await,
    );
    assert_eq!(e.code.0, -32603);
    assert!(e.message.contains("used twice"), "{}", e.message);
    client.cancel().await.expect("close");

    // A push-era call has no keys: the named question is simply asked, naming its call in its
    // `_meta` beside rmcp's progress token. (Where the toolkit puts it — the request's own
    // `_meta` or the params' — gives the same bytes on the wire; this holds the bytes.)
    let client = connect(Client::full(), ProtocolVersion::V_2025_11_25).await;
    assert_eq!(
        complete(call(&client, "greet", None, None).await),
        "Hello, Alice!"
    );
    let seen = client.service().seen.lock().unwrap().clone();
    let [elicitation] = seen.as_slice() else {
        panic!("one request expected: {seen:?}");
    };
    assert_eq!(elicitation["method"], "elicitation/create");
    let meta = &elicitation["meta"];
    assert!(
        meta.get(interlude_protocol::RELATED_REQUEST_ID_KEY)
            .is_some_and(|id| id.is_number() || id.is_string()),
        "{elicitation}"
    );
    assert!(meta.get("progressToken").is_some(), "{elicitation}");
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn a_malformed_answer_is_a_clear_error_naming_its_field() {
    // 2025: a sampling result with no content.
    let mut broken = Client::full();
    broken.sample = Sample::NoContent;
    let client = connect(broken, ProtocolVersion::V_2025_11_25).await;
    let e = json_rpc_error(call(&client, "capital", None, None).await);
    assert_eq!(e.code.0, -32602);
    assert!(e.message.contains("content: "), "{}", e.message);
    assert!(e.message.contains("no content"), "{}", e.message);
    client.cancel().await.expect("close");

    // 2025: a root that is not a file:// URI.
    let mut broken = Client::full();
    broken.roots_answer = json!({"roots": [{"uri": "https://example.com"}]});
    let client = connect(broken, ProtocolVersion::V_2025_11_25).await;
    let e = json_rpc_error(call(&client, "places", None, None).await);
    assert_eq!(e.code.0, -32602);
    assert!(e.message.contains("roots[0].uri"), "{}", e.message);
    client.cancel().await.expect("close");

    // 2026-07-28: the same, under the question's key; and an answer that is not an object.
    let client = connect(Client::full(), ProtocolVersion::V_2026_07_28).await;
    for (tool, key, answer, field) in [
        (
            "capital",
            "capital_question",
            json!({"role": "assistant", "model": "m"}),
            "inputResponses.capital_question.content",
        ),
        (
            "capital",
            "capital_question",
            json!(12345),
            "inputResponses.capital_question:",
        ),
        (
            "places",
            "client_roots",
            json!({"roots": [{"name": "no uri"}]}),
            "inputResponses.client_roots.roots[0].uri",
        ),
        (
            "greet",
            "user_name",
            json!(12345),
            "inputResponses.user_name",
        ),
    ] {
        let ir = input_required(call(&client, tool, None, None).await);
        let (_, _, state) = only_request(&ir);
        let e =
            json_rpc_error(call(&client, tool, Some(json!({ key: answer })), Some(state)).await);
        assert_eq!(e.code.0, -32602, "{tool}");
        assert!(e.message.contains(field), "{tool}: {}", e.message);
    }
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn a_state_of_another_call_or_a_tampered_one_is_refused() {
    let client = connect(Client::full(), ProtocolVersion::V_2026_07_28).await;
    let ir = input_required(call(&client, "capital", None, None).await);
    let (_, _, state) = only_request(&ir);

    // Replayed on another tool: refused as another call's.
    let answers = json!({"client_roots": roots_answer(), "capital_question": sampling_answer()});
    let e = json_rpc_error(
        call(
            &client,
            "places",
            Some(answers.clone()),
            Some(state.clone()),
        )
        .await,
    );
    assert_eq!(e.code.0, -32602);
    assert_eq!(e.data, Some(json!({"requestState": "another_call"})));

    // Replayed on a prompt of the same name space: refused too (bound to prompts/get).
    let mut params = GetPromptRequestParams::new("capital");
    params.request_state = Some(state.clone());
    let e = client.get_prompt_once(params).await.expect_err("refused");
    let ServiceError::McpError(e) = e else {
        panic!("expected a JSON-RPC error, got {e}");
    };
    assert_eq!(e.data, Some(json!({"requestState": "another_call"})));

    // Tampered: refused, neither completed nor asked again.
    let e = json_rpc_error(
        call(
            &client,
            "capital",
            Some(answers),
            Some(format!("{state}-TAMPERED")),
        )
        .await,
    );
    assert_eq!(e.code.0, -32602);
    assert!(e.message.contains("requestState"), "{}", e.message);

    // Another server's key: refused.
    let other = connect_to(
        Server {
            ask: AskConfig::with_key([7u8; 32]).unwrap(),
        },
        Client::full(),
        ProtocolVersion::V_2026_07_28,
    )
    .await;
    let e = json_rpc_error(
        call(
            &other,
            "capital",
            Some(json!({"capital_question": sampling_answer()})),
            Some(state),
        )
        .await,
    );
    assert_eq!(e.code.0, -32602);
    other.cancel().await.expect("close");
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn a_prompt_asks_in_both_eras() {
    let client = connect(Client::full(), ProtocolVersion::V_2026_07_28).await;
    let first = client
        .get_prompt_once(GetPromptRequestParams::new("topic"))
        .await
        .expect("a result");
    let GetPromptResponse::InputRequired(ir) = first else {
        panic!("expected input_required, got {first:?}");
    };
    let (key, request, state) = only_request(&ir);
    assert_eq!(key, "user_context");
    assert_eq!(request["method"], "elicitation/create");
    let mut retry = GetPromptRequestParams::new("topic");
    retry.input_responses = Some(BTreeMap::from([(
        key,
        json!({"action": "accept", "content": {"context": "test context"}}),
    )]));
    retry.request_state = Some(state);
    let done = client.get_prompt_once(retry).await.expect("a result");
    let GetPromptResponse::Complete(prompt) = done else {
        panic!("expected the prompt, got {done:?}");
    };
    assert_eq!(
        serde_json::to_value(&prompt.messages[0].content).unwrap()["text"],
        "Write about test context."
    );
    client.cancel().await.expect("close");

    let client = connect(Client::full(), ProtocolVersion::V_2025_11_25).await;
    let done = client
        .get_prompt_once(GetPromptRequestParams::new("topic"))
        .await
        .expect("a result");
    let GetPromptResponse::Complete(prompt) = done else {
        panic!("expected the prompt, got {done:?}");
    };
    assert_eq!(
        serde_json::to_value(&prompt.messages[0].content).unwrap()["text"],
        "Write about tea."
    );
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn questions_asked_together_leave_in_one_round() {
    // 2025: all three are sent to the client, the call waits for every answer.
    let client = connect(Client::full(), ProtocolVersion::V_2025_11_25).await;
    let text = complete(call(&client, "together", None, None).await);
    assert_eq!(text, "Alice: The capital of France is Paris. / 1 roots");
    let mut methods: Vec<String> = client
        .service()
        .seen
        .lock()
        .unwrap()
        .iter()
        .map(|r| r["method"].as_str().unwrap().to_owned())
        .collect();
    methods.sort();
    assert_eq!(
        methods,
        ["elicitation/create", "roots/list", "sampling/createMessage"]
    );
    client.cancel().await.expect("close");

    // 2026-07-28: one input_required result with the three requests under their keys.
    let client = connect(Client::full(), ProtocolVersion::V_2026_07_28).await;
    let ir = input_required(call(&client, "together", None, None).await);
    let requests = ir.input_requests.as_ref().expect("input requests");
    let asked: Vec<(&str, Value)> = requests
        .iter()
        .map(|(k, r)| {
            (
                k.as_str(),
                serde_json::to_value(r).unwrap()["method"].clone(),
            )
        })
        .collect();
    assert_eq!(
        asked,
        [
            ("client_roots", json!("roots/list")),
            ("greeting", json!("sampling/createMessage")),
            ("user_name", json!("elicitation/create")),
        ]
    );
    let state = ir.request_state.clone().expect("a sealed state");
    let name = json!({"action": "accept", "content": {"name": "Alice"}});
    // Two answers of three: the third is asked again, alone, the two others kept sealed.
    let partial = json!({"user_name": name, "greeting": sampling_answer()});
    let ir = input_required(call(&client, "together", Some(partial), Some(state)).await);
    let (key, _, state) = only_request(&ir);
    assert_eq!(key, "client_roots");
    let rest = json!({"client_roots": roots_answer()});
    let text = complete(call(&client, "together", Some(rest), Some(state)).await);
    assert_eq!(text, "Alice: The capital of France is Paris. / 1 roots");
    client.cancel().await.expect("close");

    // A client without roots: the round fails before anything is asked.
    let mut no_roots = Client::full();
    no_roots.roots = false;
    let client = connect(no_roots, ProtocolVersion::V_2026_07_28).await;
    let e = json_rpc_error(call(&client, "together", None, None).await);
    assert_eq!(e.code.0, -32021);
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn answers_without_a_state_are_taken_only_when_the_server_allows_it() {
    let answers = json!({
        "user_name": {"action": "accept", "content": {"name": "Alice"}},
        "unknown_extra_key": {"action": "accept", "content": {"foo": "bar"}},
    });
    // By default the first call's answers are ignored: the question goes out.
    let client = connect(Client::full(), ProtocolVersion::V_2026_07_28).await;
    let ir = input_required(call(&client, "greet", Some(answers.clone()), None).await);
    assert_eq!(only_request(&ir).0, "user_name");
    client.cancel().await.expect("close");

    let server = Server {
        ask: AskConfig::new().with_stateless_answers(true),
    };
    let client = connect_to(server, Client::full(), ProtocolVersion::V_2026_07_28).await;
    assert_eq!(
        complete(call(&client, "greet", Some(answers), None).await),
        "Hello, Alice!"
    );
    // Checked like any answer: a number is not an elicitation result.
    let e = json_rpc_error(call(&client, "greet", Some(json!({"user_name": 12345})), None).await);
    assert_eq!(e.code.0, -32602, "{e:?}");
    // A key no question uses is ignored: the question goes out.
    let ir = input_required(call(&client, "greet", Some(json!({"wrong_key": {}})), None).await);
    assert_eq!(only_request(&ir).0, "user_name");
    client.cancel().await.expect("close");
}
