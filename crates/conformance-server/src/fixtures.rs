//! The server and its tools. Every tool is an ordinary rmcp tool in an `#[asking]` block; the
//! ones that need something of the client (a form, a model completion, its roots) ask through
//! [`Ask`], so the same code serves a 2025 session (the request is pushed while the call
//! waits) and a 2026-07-28 request (an `input_required` result, answered on the retry).
//!
//! What is particular to the suite stays here: the fixture names, their texts, and two
//! settings of the server — logging follows `logging/setLevel` on a 2025 session and the
//! request's `_meta` log level on 2026-07-28 (no level, no log), and answers a first call
//! carries without `requestState` are taken ([`AskConfig::with_stateless_answers`]).
// rmcp marks sampling, roots and logging deprecated (SEP-2577); the suite still tests them.
#![allow(deprecated)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use interlude_server::{Answer, Ask, AskConfig, AskServer, Sampling, ToolResult, asking};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, CompleteRequestParams, CompleteResult, ContentBlock, GetPromptRequestParams,
    GetPromptResponse, Implementation, JsonObject, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, LoggingLevel, LoggingMessageNotificationParam, PaginatedRequestParams,
    ProgressNotificationParam, ProtocolVersion, ReadResourceRequestParams, ReadResourceResponse,
    ResourceContents, ServerCapabilities, ServerConfig, SetLevelRequestParams,
    SubscribeRequestParams, UnsubscribeRequestParams,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::catalog;

/// The one `AskConfig` of a process: every instance (one per 2026-07-28 request) must open the
/// states the others sealed.
pub(crate) fn ask_config() -> AskConfig {
    AskConfig::new().with_stateless_answers(true)
}

/// The conformance fixtures: one instance per 2025 session or per 2026-07-28 request.
#[derive(Clone)]
pub(crate) struct Fixtures {
    ask: AskConfig,
    /// What `logging/setLevel` set on this 2025 session (everything until then).
    log_level: Arc<Mutex<Option<LoggingLevel>>>,
}

impl AskServer for Fixtures {
    fn ask_config(&self) -> &AskConfig {
        &self.ask
    }
}

/// A person's name.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct Name {
    /// Your name
    pub(crate) name: String,
}

/// A favourite colour.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct Colour {
    /// Your favourite colour
    pub(crate) color: String,
}

/// A yes or no.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct Confirm {
    /// Go ahead?
    pub(crate) ok: bool,
}

/// What to ask the client's model.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct PromptArgs {
    /// The prompt for the model
    pub(crate) prompt: String,
}

/// What to tell the person.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct MessageArgs {
    /// The message shown with the form
    pub(crate) message: String,
}

fn text(text: impl Into<String>) -> ToolResult {
    Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
}

/// What a person did with a form, as text.
fn outcome(answer: &Answer<interlude_server::Content>) -> String {
    match answer {
        Answer::Accepted(content) => {
            format!("action=accept, content={}", Value::Object(content.clone()))
        }
        Answer::Declined => "action=decline".to_owned(),
        Answer::Cancelled => "action=cancel".to_owned(),
    }
}

fn fixed_schema(value: Value) -> Result<interlude_server::FormSchema, ErrorData> {
    interlude_server::FormSchema::parse(&value)
        .map(|parsed| parsed.schema)
        .map_err(|e| ErrorData::internal_error(e.to_string(), None))
}

/// Whether the request speaks 2026-07-28 (or later).
pub(crate) fn is_2026(context: &RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str())
}

/// Severity order of the log levels (rmcp's enum has none).
fn severity(level: LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}

/// The input schema of `json_schema_2020_12_tool`: JSON Schema 2020-12 keywords a server must
/// pass through untouched (`$schema`, `$defs` with an `$anchor`, `additionalProperties`,
/// `allOf`/`anyOf`, `if`/`then`/`else`).
fn schema_2020_12() -> Arc<JsonObject> {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "$anchor": "postal",
                "type": "object",
                "properties": {"line": {"type": "string"}, "town": {"type": "string"}}
            }
        },
        "properties": {
            "name": {"type": "string"},
            "address": {"$ref": "#/$defs/address"},
            "reach": {"type": "string", "enum": ["phone", "email"]},
            "phone": {"type": "string"},
            "email": {"type": "string"}
        },
        "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
        "if": {"properties": {"reach": {"const": "phone"}}, "required": ["reach"]},
        "then": {"required": ["phone"]},
        "else": {"required": ["email"]},
        "additionalProperties": false
    });
    match schema {
        Value::Object(map) => Arc::new(map),
        _ => Arc::default(),
    }
}

/// How long the logging and progress tools wait between two notifications.
const STEP: Duration = Duration::from_millis(50);

#[asking]
#[tool_router]
impl Fixtures {
    pub(crate) fn new(ask: AskConfig) -> Self {
        Fixtures {
            ask,
            log_level: Arc::default(),
        }
    }

    /// Sends a log message if the client wants this level: on a 2025 session, what
    /// `logging/setLevel` set (everything before it is called); on 2026-07-28, only when the
    /// request names a level in its `_meta`.
    async fn log(&self, context: &RequestContext<RoleServer>, level: LoggingLevel, message: &str) {
        let threshold = if is_2026(context) {
            context.meta.log_level()
        } else {
            Some(
                self.log_level
                    .lock()
                    .ok()
                    .and_then(|l| *l)
                    .unwrap_or(LoggingLevel::Debug),
            )
        };
        let Some(threshold) = threshold else {
            return;
        };
        if severity(level) < severity(threshold) {
            return;
        }
        let param = LoggingMessageNotificationParam::new(level, json!(message))
            .with_logger("interlude-conformance-server");
        if let Err(e) = context.peer.notify_logging_message(param).await {
            tracing::debug!("cannot send a log message: {e}");
        }
    }

    #[tool(description = "Returns one text block.")]
    async fn test_simple_text(&self) -> ToolResult {
        text("A plain text answer from the conformance server.")
    }

    #[tool(description = "Returns one image (a 1×1 PNG).")]
    async fn test_image_content(&self) -> ToolResult {
        Ok(CallToolResult::success(vec![ContentBlock::image(
            catalog::PIXEL_PNG,
            "image/png",
        )]))
    }

    #[tool(description = "Returns one audio clip (a few samples of WAV).")]
    async fn test_audio_content(&self) -> ToolResult {
        Ok(CallToolResult::success(vec![ContentBlock::audio(
            catalog::TICK_WAV,
            "audio/wav",
        )]))
    }

    #[tool(description = "Returns an embedded text resource.")]
    async fn test_embedded_resource(&self) -> ToolResult {
        Ok(CallToolResult::success(vec![ContentBlock::resource(
            ResourceContents::text(
                "The text of a resource embedded in a tool result.",
                "test://embedded-resource",
            ),
        )]))
    }

    #[tool(description = "Returns text, an image and an embedded JSON resource in one result.")]
    async fn test_multiple_content_types(&self) -> ToolResult {
        Ok(CallToolResult::success(vec![
            ContentBlock::text("Three kinds of content follow:"),
            ContentBlock::image(catalog::PIXEL_PNG, "image/png"),
            ContentBlock::resource(
                ResourceContents::text(
                    json!({"kind": "mixed", "count": 3}).to_string(),
                    "test://mixed-content-resource",
                )
                .with_mime_type("application/json"),
            ),
        ]))
    }

    #[tool(description = "Always fails: a result marked as an error, with its reason.")]
    async fn test_error_handling(&self) -> ToolResult {
        Ok(CallToolResult::error(vec![ContentBlock::text(
            "This tool fails on purpose, to test error results.",
        )]))
    }

    #[tool(description = "Reports progress three times (0, 50 and 100 of 100) while it works.")]
    async fn test_tool_with_progress(&self, context: RequestContext<RoleServer>) -> ToolResult {
        let token = context.meta.get_progress_token();
        for (i, done) in [0.0, 50.0, 100.0].into_iter().enumerate() {
            if i > 0 {
                tokio::time::sleep(STEP).await;
            }
            if let Some(token) = &token {
                let progress = ProgressNotificationParam::new(token.clone(), done)
                    .with_total(100.0)
                    .with_message(format!("{done} of 100"));
                if let Err(e) = context.peer.notify_progress(progress).await {
                    tracing::debug!("cannot send progress: {e}");
                }
            }
        }
        text("Done, with progress.")
    }

    #[tool(description = "Logs three messages while it works.")]
    async fn test_tool_with_logging(&self, context: RequestContext<RoleServer>) -> ToolResult {
        for (i, message) in [
            "Starting the work",
            "Working on the data",
            "Finished the work",
        ]
        .into_iter()
        .enumerate()
        {
            if i > 0 {
                tokio::time::sleep(STEP).await;
            }
            self.log(&context, LoggingLevel::Info, message).await;
        }
        text("Done, with logs.")
    }

    #[tool(description = "Logs one message, if the request asked for logs.")]
    async fn test_logging_tool(&self, context: RequestContext<RoleServer>) -> ToolResult {
        self.log(&context, LoggingLevel::Info, "The logging tool ran.")
            .await;
        text("Logged if asked to.")
    }

    #[tool(description = "Asks the client's model to answer a prompt.")]
    async fn test_sampling(
        &self,
        ask: Ask,
        Parameters(args): Parameters<PromptArgs>,
    ) -> ToolResult {
        match ask.sample(Sampling::new(100).user(args.prompt)).await? {
            Answer::Accepted(sampled) => text(format!(
                "LLM response: {}",
                sampled.text().unwrap_or_default()
            )),
            Answer::Declined => text("The sampling request was declined."),
            Answer::Cancelled => text("The sampling request was cancelled."),
        }
    }

    #[tool(description = "Asks the person for a username and an e-mail address.")]
    async fn test_elicitation(
        &self,
        ask: Ask,
        Parameters(args): Parameters<MessageArgs>,
    ) -> ToolResult {
        let schema = fixed_schema(json!({
            "type": "object",
            "properties": {
                "username": {"type": "string", "description": "The name you go by"},
                "email": {"type": "string", "description": "Where to write to you"}
            },
            "required": ["username", "email"]
        }))?;
        let answer = ask.form_with_schema(args.message, &schema).await?;
        text(format!("Answered: {}", outcome(&answer)))
    }

    #[tool(description = "Asks a form whose fields of every primitive type have defaults.")]
    async fn test_elicitation_sep1034_defaults(&self, ask: Ask) -> ToolResult {
        let schema = fixed_schema(json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "Name", "default": "John Doe"},
                "age": {"type": "integer", "description": "Age", "default": 30},
                "score": {"type": "number", "description": "Score", "default": 95.5},
                "status": {"type": "string", "description": "Status",
                           "enum": ["active", "inactive", "pending"], "default": "active"},
                "verified": {"type": "boolean", "description": "Verified", "default": true}
            }
        }))?;
        let answer = ask
            .form_with_schema("Check the prefilled fields", &schema)
            .await?;
        text(format!("Answered: {}", outcome(&answer)))
    }

    #[tool(
        description = "Asks a form with every shape of choice: single or multiple, titled or not, and the legacy enumNames."
    )]
    async fn test_elicitation_sep1330_enums(&self, ask: Ask) -> ToolResult {
        let schema = fixed_schema(json!({
            "type": "object",
            "properties": {
                "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
                "titledSingle": {"type": "string", "oneOf": [
                    {"const": "value1", "title": "Value one"},
                    {"const": "value2", "title": "Value two"},
                    {"const": "value3", "title": "Value three"}]},
                "legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"],
                               "enumNames": ["Opt one", "Opt two", "Opt three"]},
                "untitledMulti": {"type": "array", "items": {"type": "string",
                                  "enum": ["option1", "option2", "option3"]}},
                "titledMulti": {"type": "array", "items": {"anyOf": [
                    {"const": "value1", "title": "Value one"},
                    {"const": "value2", "title": "Value two"},
                    {"const": "value3", "title": "Value three"}]}}
            }
        }))?;
        let answer = ask.form_with_schema("Pick some options", &schema).await?;
        text(format!("Answered: {}", outcome(&answer)))
    }

    #[tool(
        description = "Needs the client's model: refused with -32021 when the client did not declare sampling."
    )]
    async fn test_missing_capability(&self, ask: Ask) -> ToolResult {
        match ask
            .sample(Sampling::new(20).user("Say something short."))
            .await?
        {
            Answer::Accepted(sampled) => text(sampled.text().unwrap_or_default()),
            Answer::Declined | Answer::Cancelled => text("No answer from the model."),
        }
    }

    #[tool(description = "Asks the person for their name.")]
    async fn test_streaming_elicitation(&self, ask: Ask) -> ToolResult {
        match ask.form::<Name>("What is your name?").await? {
            Answer::Accepted(n) => text(format!("Hello, {}!", n.name)),
            Answer::Declined | Answer::Cancelled => text("Hello, stranger!"),
        }
    }

    #[tool(description = "Asks the person's name under the key user_name.")]
    async fn test_input_required_result_elicitation(&self, ask: Ask) -> ToolResult {
        match ask
            .key("user_name")
            .form::<Name>("What is your name?")
            .await?
        {
            Answer::Accepted(n) => text(format!("Hello, {}!", n.name)),
            Answer::Declined | Answer::Cancelled => text("Hello, stranger!"),
        }
    }

    #[tool(description = "Asks the client's model a question.")]
    async fn test_input_required_result_sampling(&self, ask: Ask) -> ToolResult {
        let question = Sampling::new(100).user("What is the capital of France?");
        match ask.key("capital_question").sample(question).await? {
            Answer::Accepted(sampled) => text(format!(
                "The model said: {}",
                sampled.text().unwrap_or_default()
            )),
            Answer::Declined | Answer::Cancelled => text("The model did not answer."),
        }
    }

    #[tool(description = "Lists the client's roots.")]
    async fn test_input_required_result_list_roots(&self, ask: Ask) -> ToolResult {
        let roots = ask.key("client_roots").roots().await?;
        let listed: Vec<&str> = roots.iter().map(|r| r.uri.as_str()).collect();
        text(format!("{} root(s): {}", roots.len(), listed.join(", ")))
    }

    #[tool(description = "Asks for a confirmation; the answer comes back with the sealed state.")]
    async fn test_input_required_result_request_state(&self, ask: Ask) -> ToolResult {
        match ask.key("confirm").form::<Confirm>("Please confirm").await? {
            Answer::Accepted(c) => text(format!("state-ok: confirmed={}", c.ok)),
            Answer::Declined | Answer::Cancelled => text("state-ok: not confirmed"),
        }
    }

    #[tool(description = "Asks a form, the client's model and its roots, all in one round.")]
    async fn test_input_required_result_multiple_inputs(&self, ask: Ask) -> ToolResult {
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
            Answer::Declined | Answer::Cancelled => "stranger".to_owned(),
        };
        let greeting = match greeting {
            Answer::Accepted(s) => s.text().unwrap_or_default(),
            Answer::Declined | Answer::Cancelled => "Hello".to_owned(),
        };
        text(format!("{greeting} ({name}, {} root(s))", roots.len()))
    }

    #[tool(description = "Asks two questions, one round after the other.")]
    async fn test_input_required_result_multi_round(&self, ask: Ask) -> ToolResult {
        let name = match ask
            .key("step1")
            .form::<Name>("Step 1: What is your name?")
            .await?
        {
            Answer::Accepted(n) => n.name,
            Answer::Declined | Answer::Cancelled => "stranger".to_owned(),
        };
        let colour = match ask
            .key("step2")
            .form::<Colour>("Step 2: What is your favorite color?")
            .await?
        {
            Answer::Accepted(c) => c.color,
            Answer::Declined | Answer::Cancelled => "none".to_owned(),
        };
        text(format!("{name} likes {colour}."))
    }

    #[tool(description = "Asks for a confirmation; a state that was tampered with is refused.")]
    async fn test_input_required_result_tampered_state(&self, ask: Ask) -> ToolResult {
        match ask.key("confirm").form::<Confirm>("Please confirm").await? {
            Answer::Accepted(c) => text(format!("confirmed={}", c.ok)),
            Answer::Declined | Answer::Cancelled => text("not confirmed"),
        }
    }

    #[tool(
        description = "Asks only what the client declared it can answer: a form if it can, else its model, else its roots."
    )]
    async fn test_input_required_result_capabilities(&self, ask: Ask) -> ToolResult {
        if ask.supports_form() {
            return match ask.form::<Name>("What is your name?").await? {
                Answer::Accepted(n) => text(format!("Hello, {}!", n.name)),
                Answer::Declined | Answer::Cancelled => text("Hello, stranger!"),
            };
        }
        if ask.supports_sampling() {
            let question = Sampling::new(50).user("Generate a greeting");
            return match ask.sample(question).await? {
                Answer::Accepted(s) => text(s.text().unwrap_or_default()),
                Answer::Declined | Answer::Cancelled => text("Hello!"),
            };
        }
        let roots = ask.roots().await?;
        text(format!("{} root(s)", roots.len()))
    }

    #[tool(
        description = "Takes an input schema written with JSON Schema 2020-12 keywords.",
        input_schema = schema_2020_12()
    )]
    async fn json_schema_2020_12_tool(&self) -> ToolResult {
        text("Received.")
    }
}

/// The tools, built once (rather than for every request).
static TOOLS: std::sync::LazyLock<rmcp::handler::server::router::tool::ToolRouter<Fixtures>> =
    std::sync::LazyLock::new(|| Fixtures::tool_router() + Fixtures::task_tools());

#[tool_handler(router = TOOLS)]
impl ServerHandler for Fixtures {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::default();
        info.capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_prompts()
            .enable_resources()
            .enable_completions()
            .enable_logging()
            .enable_tasks()
            .build();
        info.server_info =
            Implementation::new("interlude-conformance-server", env!("CARGO_PKG_VERSION"));
        info.instructions = Some(
            "The fixtures of the MCP conformance suite's server scenarios, written with \
             Interlude's server toolkit."
                .into(),
        );
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

    async fn cancel_task(
        &self,
        request: rmcp::model::CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let requestor = interlude_server::task::Requestor::of(&context);
        self.ask.tasks().cancel(&request, &requestor).await
    }

    /// 2025: the level of the log messages this session gets. 2026-07-28 has no such method
    /// (the level travels in each request's `_meta`): -32601 there.
    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        if is_2026(&context) {
            return Err(ErrorData::method_not_found::<
                rmcp::model::SetLevelRequestMethod,
            >());
        }
        if let Ok(mut level) = self.log_level.lock() {
            *level = Some(request.level);
        }
        Ok(())
    }

    /// 2025: `resources/subscribe` is accepted (the resources never change, so nothing is
    /// ever sent). rmcp answers -32601 on 2026-07-28 itself.
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        catalog::known_resource(&request.uri)
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        catalog::known_resource(&request.uri)
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(ListPromptsResult::with_all_items(catalog::prompts()))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        if request.name == catalog::ASKING_PROMPT {
            let ask = Ask::for_prompt(&self.ask, &request, context);
            return interlude_server::respond_prompt(catalog::asking_prompt(ask).await);
        }
        catalog::prompt(&request).map(GetPromptResponse::Complete)
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(catalog::resources()))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(ListResourceTemplatesResult::with_all_items(
            catalog::templates(),
        ))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        catalog::read(&request.uri).map(Into::into)
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        Ok(catalog::complete(&request))
    }
}
