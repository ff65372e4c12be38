//! What a bridge is opened with and what it asks the host to do: [`ViewConfig`],
//! [`BridgeEffect`] and the values they carry, and the error codes a view is answered with.

use interlude_protocol::apps::UiDialect;
use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::csp::ViewPolicy;

/// JSON-RPC error codes the bridge answers a view with.
pub mod codes {
    /// Not a JSON-RPC 2.0 request.
    pub const INVALID_REQUEST: i32 = -32600;
    /// A method the bridge does not offer a view.
    pub const METHOD_NOT_FOUND: i32 = -32601;
    /// Wrong params (the message names the field), or a tool the view may not call.
    pub const INVALID_PARAMS: i32 = -32602;
    /// Refused by the person or by policy (rate limit, teardown under way).
    pub const DENIED: i32 = -32000;
}

/// Everything a view is opened with.
#[derive(Debug, Clone)]
pub struct ViewConfig {
    /// The view's resource (`ui://…`).
    pub resource_uri: String,
    /// Its HTML, handed to the sandbox proxy when it is ready.
    pub html: std::sync::Arc<str>,
    /// The dialect its resource's MIME type and metadata suggest; the view's own messages
    /// refine it.
    pub dialect: UiDialect,
    /// The server's name, for the person and the log.
    pub server_name: String,
    /// The tool whose call opened the view (the whole `Tool` object, for
    /// `hostContext.toolInfo.tool`), and the JSON-RPC id of that call if known; `null` when
    /// there is none (a question's view raised outside a known call: no `toolInfo`).
    pub tool: Value,
    /// The JSON-RPC id of the originating `tools/call`, when the host knows it.
    pub call_request_id: Option<Value>,
    /// The view's policy (CSP, permissions), told to the view in `hostCapabilities.sandbox`.
    pub policy: ViewPolicy,
    /// The host's context as the surface knows it (theme, locale, time zone, container
    /// dimensions, display mode, styles, platform…); `toolInfo` is added by the bridge.
    pub host_context: Map<String, Value>,
    /// The host's own display modes (`inline` always).
    pub display_modes: Vec<String>,
    /// The host's name and version (`hostInfo`).
    pub host_info: Value,
    /// The server's capabilities that matter to a view: does it have tools, resources,
    /// prompts (mirrored in `hostCapabilities.serverTools` and so on).
    pub server_tools: bool,
    /// See [`ViewConfig::server_tools`].
    pub server_resources: bool,
    /// See [`ViewConfig::server_tools`].
    pub server_prompts: bool,
    /// How long a teardown waits for the view's answer, in milliseconds.
    pub teardown_ms: u64,
    /// Tool calls a view may make at once before the rate limit applies, and per minute.
    pub call_burst: u32,
    /// See [`ViewConfig::call_burst`].
    pub calls_per_minute: u32,
    /// The largest height a view may ask for, in CSS pixels.
    pub max_height: u32,
    /// The view renders an app form (SEP-3118): `elicitation` is offered in its
    /// `hostCapabilities`, and the engine hands it the request ([`ViewBridge::ask`](super::ViewBridge::ask)) once it is
    /// live. Set by the engine when it binds the view to its request; `false` for a call's
    /// view.
    pub renders_question: bool,
    /// What a view speaking MCP-UI's protocol gets as render data besides the call and the
    /// context: its resource's `mcpui.dev/ui-initial-render-data` (empty for others).
    pub render_data: Map<String, Value>,
}

impl ViewConfig {
    /// A configuration with plain defaults, for examples and tests.
    pub fn for_tests(resource_uri: &str) -> ViewConfig {
        ViewConfig {
            resource_uri: resource_uri.to_owned(),
            html: "<!doctype html><title>test</title>".into(),
            dialect: UiDialect::Apps,
            server_name: "test".to_owned(),
            tool: json!({"name": "test", "inputSchema": {"type": "object"}}),
            call_request_id: Some(json!(1)),
            policy: crate::csp::view_policy(&Default::default(), crate::csp::CspProfile::STRICT),
            host_context: Map::new(),
            display_modes: vec!["inline".into(), "fullscreen".into(), "pip".into()],
            host_info: json!({"name": "interlude", "version": "test"}),
            server_tools: true,
            server_resources: true,
            server_prompts: false,
            teardown_ms: 2_000,
            call_burst: 10,
            calls_per_minute: 120,
            max_height: 6_000,
            renders_question: false,
            render_data: Map::new(),
        }
    }
}

/// Where a view stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ViewPhase {
    /// The frame is loading; the view has not asked `ui/initialize` yet.
    Loading,
    /// It asked `ui/initialize` and got its answer; not yet `initialized`.
    Initializing,
    /// Live: notifications flow.
    Live,
    /// `ui/resource-teardown` sent; waiting for the answer or the deadline.
    TearingDown,
    /// Gone: nothing more goes to or comes from it.
    Closed,
}

/// What the person is asked on a view's behalf.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PersonQuestion {
    /// `ui/open-link`: open this link (the host judges it with the URL rules and asks).
    OpenLink {
        /// The link as the view gave it.
        url: String,
    },
    /// `ui/download-file`: save these contents (embedded resources or resource links).
    Download {
        /// The `contents` array as the view gave it.
        contents: Vec<Value>,
    },
}

/// Which way a message went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Way {
    /// From the view to the host.
    In,
    /// From the host to the view.
    Out,
}

/// One message of a view's traffic, for the protocol log.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Traffic {
    /// Which way.
    pub way: Way,
    /// The method (as spelled on the wire), or `response` / `error`.
    pub method: String,
    /// The JSON-RPC id, if any.
    pub id: Option<Value>,
    /// Why it was refused or dropped, if it was.
    pub refused: Option<String>,
}

/// What a view may ask of its own server, once the bridge checked it: every request a view can
/// send its server, closed, so the host maps each to its typed request without a wildcard.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum ServerMethod {
    /// `tools/call` (a tool whose visibility includes the app, rate-limited).
    ToolsCall,
    /// `resources/read`.
    ResourcesRead,
    /// `resources/list`.
    ResourcesList,
    /// `resources/templates/list`.
    ResourceTemplatesList,
    /// `prompts/list`.
    PromptsList,
}

impl ServerMethod {
    /// The wire name.
    ///
    /// ```
    /// use interlude_engine::bridge::ServerMethod;
    /// assert_eq!(ServerMethod::ResourceTemplatesList.as_str(), "resources/templates/list");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            ServerMethod::ToolsCall => "tools/call",
            ServerMethod::ResourcesRead => "resources/read",
            ServerMethod::ResourcesList => "resources/list",
            ServerMethod::ResourceTemplatesList => "resources/templates/list",
            ServerMethod::PromptsList => "prompts/list",
        }
    }
}

/// What the host must do for a view.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "effect", content = "with", rename_all = "snake_case")]
#[non_exhaustive]
pub enum BridgeEffect {
    /// Post this JSON-RPC message to the view.
    ToView(Value),
    /// Send this request to the view's server (`tools/call`, `resources/read`, …); answer the
    /// bridge with [`ViewBridge::server_reply`](super::ViewBridge::server_reply) and the same `proxy` number.
    ToServer {
        /// The bridge's number for it.
        proxy: u64,
        /// The MCP method.
        method: ServerMethod,
        /// Its params, as the view sent them (checked).
        params: Value,
    },
    /// Request `proxy` the view had sent to the server is no longer wanted — the view
    /// cancelled it (`notifications/cancelled`), or the view is closed with it in flight: tell
    /// the server (`notifications/cancelled` for the forwarded request, with `reason`); its
    /// answer, should one come, goes nowhere.
    CancelServer {
        /// The bridge's number for it.
        proxy: u64,
        /// Why, for the server.
        reason: String,
    },
    /// Ask the person; answer with [`ViewBridge::answer`](super::ViewBridge::answer) and the same `question` number.
    Ask {
        /// The bridge's number for it.
        question: u64,
        /// What to ask.
        what: PersonQuestion,
    },
    /// The view's content size changed: size its frame (height clamped to the host's maximum).
    Resize {
        /// Width in CSS pixels, if the view said.
        width: Option<u32>,
        /// Height in CSS pixels, if the view said.
        height: Option<u32>,
    },
    /// Show the view in this display mode (`inline`, `fullscreen`, `pip`).
    DisplayMode(String),
    /// `ui/message`: a message the view puts in the conversation on the person's behalf.
    Message(Value),
    /// MCP-UI's `intent`: something the view asks to have done (shown to the person; nothing
    /// is sent to a model).
    Intent {
        /// What it asks for.
        intent: String,
        /// Its parameters (an object).
        params: Value,
    },
    /// MCP-UI's `notify`: a notice for the person.
    Notice(String),
    /// `ui/update-model-context`: what a model would be told of the view's state now (the last
    /// one replaces the earlier ones).
    ModelContext(Value),
    /// A log line from the view (`notifications/message`).
    Log {
        /// Its level.
        level: String,
        /// Its data.
        data: Value,
    },
    /// A line of the view's own console (a `notifications/message` of logger `console`, which
    /// the sandbox's `console.js` sends for `console.log` and uncaught errors): kept apart
    /// from the view's log, which a chatty console would crowd out.
    Console {
        /// Its level.
        level: String,
        /// The line.
        text: String,
    },
    /// The view asks to be closed (`ui/notifications/request-teardown`).
    TeardownRequested,
    /// The view said `ui/notifications/initialized`: it is live.
    Live,
    /// The tools the view itself offers (`tools/list` answered by a view that declared
    /// `appCapabilities.tools`): each a `Tool` as JSON.
    ViewTools(Vec<Value>),
    /// A call of one of the view's own tools ([`ViewBridge::call_view_tool`](super::ViewBridge::call_view_tool)) came back: the
    /// `CallToolResult`, or the error's message.
    ViewToolResult {
        /// The number [`ViewBridge::call_view_tool`](super::ViewBridge::call_view_tool) gave it.
        call: u64,
        /// The tool called.
        name: String,
        /// What the view answered.
        result: Result<Value, String>,
    },
    /// The view answered the app form it renders (a standard `ElicitResult`, unchecked: the
    /// engine judges it against the request's schema).
    ElicitationAnswer(Value),
    /// The view answered the app form it renders with an error: the person gets the plain
    /// form.
    ElicitationUnusable(String),
    /// Hand the bridge [`ViewBridge::tick`](super::ViewBridge::tick) at `at_ms` (a deadline of its own).
    Wake {
        /// When, on the clock the bridge is given.
        at_ms: u64,
    },
    /// Remove the view's frame: it is closed.
    Destroy,
    /// A message went by (or was refused): for the protocol log.
    Traffic(Traffic),
}
