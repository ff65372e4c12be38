//! The bridge of one MCP Apps view, **sans-IO**: every message between a view (the app in the
//! sandboxed iframe) and the host goes through [`ViewBridge`], which decides what it means and
//! what to do — answer the view, queue a notification until the view is ready, forward a call
//! to the view's own server, ask the person — and returns that as [`BridgeEffect`]s. The host
//! carries the effects out; the web page only relays bytes.
//!
//! The rules it keeps (MCP Apps 2026-01-26):
//! - **Handshake and gate.** Nothing is sent to a view before it has said
//!   `ui/notifications/initialized`, except the answer to its `ui/initialize`. Until then the
//!   call's `tool-input` (at most once; partial inputs only before it) and its one terminal
//!   message (`tool-result` or `tool-cancelled`, never both) wait, and are sent in that order.
//! - **One server.** A view reaches its own server only: `tools/call` of a tool that server
//!   lists with `app` visibility (anything else is a JSON-RPC error naming the tool), rate
//!   limited; `resources/read|list|templates/list` and `prompts/list`. Anything else is `-32601`.
//! - **Every message checked.** A message that is not JSON-RPC 2.0, or whose params are wrong,
//!   is refused (`-32600`/`-32602` naming the field when it has an id, dropped otherwise), and
//!   every message in either direction is reported ([`BridgeEffect::Traffic`]).
//! - **The person decides** links (`ui/open-link`, through the same URL rules and consent as URL
//!   mode) and downloads (`ui/download-file`): the bridge asks ([`BridgeEffect::Ask`]) and
//!   answers the view when the host tells it ([`ViewBridge::answer`]).
//! - **Dialects.** A view speaks the current protocol, seed 001's `mcp-ui/…`, or the early
//!   draft; the bridge reads all of them and answers each view in its own.
//! - **Teardown** sends `ui/resource-teardown` and waits for the answer at most a bounded time
//!   ([`ViewBridge::tick`]), then the view is destroyed whatever it said. Meanwhile the view may
//!   still reach its server (to save its state), not the person; its requests still in flight
//!   when it is destroyed are cancelled at the server.
//! - **Progress and cancellation** of a view's requests to its server: the server's progress
//!   reaches the view under the view's own token; a view's `notifications/cancelled` cancels the
//!   request at the server and the view hears nothing more of it.
//!
//! ```
//! use interlude_engine::bridge::{BridgeEffect, ViewBridge, ViewConfig};
//! use serde_json::json;
//!
//! let mut view = ViewBridge::new(ViewConfig::for_tests("ui://clock/view.html"), 0);
//! // The call's input arrives before the view is ready: it waits.
//! assert!(view.tool_input(json!({"city": "Lisbon"}).as_object().cloned()).iter()
//!     .all(|e| !matches!(e, BridgeEffect::ToView(_))));
//! let effects = view.from_view(&json!({"jsonrpc": "2.0", "id": 1, "method": "ui/initialize",
//!     "params": {"appInfo": {"name": "clock", "version": "1"}, "appCapabilities": {},
//!                "protocolVersion": "2026-01-26"}}), 5, &|_| None);
//! assert!(effects.iter().any(|e| matches!(e, BridgeEffect::ToView(m) if m["id"] == 1)));
//! // Initialized: the queued input goes out.
//! let effects = view.from_view(&json!({"jsonrpc": "2.0",
//!     "method": "ui/notifications/initialized"}), 6, &|_| None);
//! assert!(effects.iter().any(|e| matches!(e, BridgeEffect::ToView(m)
//!     if m["method"] == "ui/notifications/tool-input")));
//! ```

use std::collections::HashMap;

use interlude_protocol::apps::{BRIDGE_VERSION, Method, UiDialect, Visibility, canonical};
use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::csp::ViewPolicy;
use crate::rate::Bucket;

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
    /// `hostCapabilities`, and the engine hands it the request ([`ViewBridge::ask`]) once it is
    /// live. Set by the engine when it binds the view to its request; `false` for a call's
    /// view.
    pub renders_question: bool,
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

/// What the host must do for a view.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "effect", content = "with", rename_all = "snake_case")]
#[non_exhaustive]
pub enum BridgeEffect {
    /// Post this JSON-RPC message to the view.
    ToView(Value),
    /// Send this request to the view's server (`tools/call`, `resources/read`, …); answer the
    /// bridge with [`ViewBridge::server_reply`] and the same `proxy` number.
    ToServer {
        /// The bridge's number for it.
        proxy: u64,
        /// The MCP method.
        method: &'static str,
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
    /// Ask the person; answer with [`ViewBridge::answer`] and the same `question` number.
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
    /// The view asks to be closed (`ui/notifications/request-teardown`).
    TeardownRequested,
    /// The view said `ui/notifications/initialized`: it is live.
    Live,
    /// The tools the view itself offers (`tools/list` answered by a view that declared
    /// `appCapabilities.tools`): each a `Tool` as JSON.
    ViewTools(Vec<Value>),
    /// A call of one of the view's own tools ([`ViewBridge::call_view_tool`]) came back: the
    /// `CallToolResult`, or the error's message.
    ViewToolResult {
        /// The number [`ViewBridge::call_view_tool`] gave it.
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
    /// Hand the bridge [`ViewBridge::tick`] at `at_ms` (a deadline of its own).
    Wake {
        /// When, on the clock the bridge is given.
        at_ms: u64,
    },
    /// Remove the view's frame: it is closed.
    Destroy,
    /// A message went by (or was refused): for the protocol log.
    Traffic(Traffic),
}

/// The bridge of one view.
#[derive(Debug)]
pub struct ViewBridge {
    config: ViewConfig,
    phase: ViewPhase,
    dialect: UiDialect,
    /// Notifications waiting for `initialized`, in order.
    queued: Vec<Value>,
    /// `tool-input` was sent or queued (partials stop then).
    input_given: bool,
    /// `tool-result` or `tool-cancelled` was sent or queued.
    outcome_given: bool,
    /// The view's `appCapabilities`.
    app_capabilities: Map<String, Value>,
    display_mode: String,
    /// The context as the view last heard it (for diffs).
    context: Map<String, Value>,
    /// Requests forwarded to the server and not answered yet, by proxy number.
    to_server: HashMap<u64, Forwarded>,
    /// Questions to the person: number → the view's request id.
    to_person: HashMap<u64, Value>,
    next: u64,
    /// The id of the host's `ui/resource-teardown` request, and the deadline.
    teardown: Option<(u64, u64)>,
    calls: Bucket,
    /// What the view last said a model should know.
    model_context: Option<Value>,
    /// The host's requests to the view's own tools in flight: id number → what they are.
    to_view: HashMap<u64, ToView>,
    /// The number of the `elicitation/create` handed to the view ([`ViewBridge::ask`]) and not
    /// answered yet: only its answer is taken.
    question: Option<u64>,
}

/// A request of the view forwarded to its server.
#[derive(Debug, Clone)]
struct Forwarded {
    /// The view's id for it (its answer goes back under this id).
    id: Value,
    /// The `_meta.progressToken` the view sent with it, if any: the server's progress for the
    /// forwarded request reaches the view under this token.
    progress_token: Option<Value>,
}

/// A request of the host to the view itself.
#[derive(Debug, Clone)]
enum ToView {
    ListTools,
    CallTool(u64, String),
    /// The app form, handed to the view under this number.
    Question(u64),
}

impl ViewBridge {
    /// A view opening at `now_ms`.
    pub fn new(config: ViewConfig, now_ms: u64) -> ViewBridge {
        let display_mode = config
            .host_context
            .get("displayMode")
            .and_then(Value::as_str)
            .unwrap_or("inline")
            .to_owned();
        let calls = Bucket::new(config.call_burst, now_ms);
        ViewBridge {
            dialect: config.dialect,
            config,
            phase: ViewPhase::Loading,
            queued: Vec::new(),
            input_given: false,
            outcome_given: false,
            app_capabilities: Map::new(),
            display_mode,
            context: Map::new(),
            to_server: HashMap::new(),
            to_person: HashMap::new(),
            next: 1,
            teardown: None,
            question: None,
            calls,
            model_context: None,
            to_view: HashMap::new(),
        }
    }

    /// Where it stands.
    pub fn phase(&self) -> ViewPhase {
        self.phase
    }

    /// The dialect the view speaks (known once it asked `ui/initialize`).
    pub fn dialect(&self) -> UiDialect {
        self.dialect
    }

    /// What the view last said a model should know (`ui/update-model-context`), if anything.
    pub fn model_context(&self) -> Option<&Value> {
        self.model_context.as_ref()
    }

    /// The display mode it is shown in.
    pub fn display_mode(&self) -> &str {
        &self.display_mode
    }

    /// The view's `appCapabilities` (empty before `ui/initialize`).
    pub fn app_capabilities(&self) -> &Map<String, Value> {
        &self.app_capabilities
    }

    fn number(&mut self) -> u64 {
        let n = self.next;
        self.next += 1;
        n
    }

    /// A notification for the view: sent now when it is live, queued before.
    fn notify(&mut self, method: Method, params: Value, out: &mut Vec<BridgeEffect>) {
        let message = json!({
            "jsonrpc": "2.0",
            "method": method.name_in(self.dialect),
            "params": params,
        });
        match self.phase {
            ViewPhase::Live => self.send(message, out),
            ViewPhase::Loading | ViewPhase::Initializing => self.queued.push(message),
            ViewPhase::TearingDown | ViewPhase::Closed => {}
        }
    }

    fn send(&mut self, message: Value, out: &mut Vec<BridgeEffect>) {
        let method = message.get("method").and_then(Value::as_str).map_or_else(
            || {
                if message.get("error").is_some() {
                    "error".to_owned()
                } else {
                    "response".to_owned()
                }
            },
            str::to_owned,
        );
        out.push(BridgeEffect::Traffic(Traffic {
            way: Way::Out,
            method,
            id: message.get("id").cloned(),
            refused: None,
        }));
        out.push(BridgeEffect::ToView(message));
    }

    fn reply(&mut self, id: Value, result: Value, out: &mut Vec<BridgeEffect>) {
        self.send(json!({"jsonrpc": "2.0", "id": id, "result": result}), out);
    }

    fn error(&mut self, id: Value, code: i32, message: String, out: &mut Vec<BridgeEffect>) {
        self.send(
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}),
            out,
        );
    }

    /// The call's complete arguments (sent once; later ones are ignored).
    pub fn tool_input(&mut self, arguments: Option<Map<String, Value>>) -> Vec<BridgeEffect> {
        let mut out = Vec::new();
        if self.input_given {
            return out;
        }
        self.input_given = true;
        // Partial inputs queued before it are superseded.
        let partial = Method::ToolInputPartial.name_in(self.dialect);
        self.queued
            .retain(|m| m.get("method").and_then(Value::as_str) != Some(partial));
        let params = json!({ "arguments": arguments.map(Value::Object).unwrap_or(json!({})) });
        self.notify(Method::ToolInput, params, &mut out);
        out
    }

    /// Arguments while they stream in (dropped once the complete input was given).
    pub fn tool_input_partial(&mut self, arguments: Map<String, Value>) -> Vec<BridgeEffect> {
        let mut out = Vec::new();
        if !self.input_given && !self.outcome_given {
            let params = json!({ "arguments": Value::Object(arguments) });
            self.notify(Method::ToolInputPartial, params, &mut out);
        }
        out
    }

    /// The call's result (a `CallToolResult`, `_meta` and `isError` included, unchanged).
    pub fn tool_result(&mut self, result: Value) -> Vec<BridgeEffect> {
        let mut out = Vec::new();
        if !self.outcome_given {
            self.outcome_given = true;
            self.notify(Method::ToolResult, result, &mut out);
        }
        out
    }

    /// The call ended without a result (cancelled, failed): the view stops waiting.
    pub fn tool_cancelled(&mut self, reason: &str) -> Vec<BridgeEffect> {
        let mut out = Vec::new();
        if !self.outcome_given {
            self.outcome_given = true;
            self.notify(Method::ToolCancelled, json!({ "reason": reason }), &mut out);
        }
        out
    }

    /// The host's context changed (theme, size, locale…): the view hears the keys whose value
    /// differs from what it knows, and nothing when none does. Before the view is live, the
    /// change is folded into what its `ui/initialize` answer says.
    pub fn host_context(&mut self, changes: Map<String, Value>) -> Vec<BridgeEffect> {
        let mut out = Vec::new();
        for (key, value) in &changes {
            self.config.host_context.insert(key.clone(), value.clone());
        }
        if self.phase != ViewPhase::Live {
            return out;
        }
        let diff: Map<String, Value> = changes
            .into_iter()
            .filter(|(k, v)| self.context.get(k) != Some(v))
            .collect();
        if diff.is_empty() {
            return out;
        }
        for (k, v) in &diff {
            self.context.insert(k.clone(), v.clone());
        }
        self.notify(Method::HostContextChanged, Value::Object(diff), &mut out);
        out
    }

    /// The person puts the view in display mode `mode` from the host's own controls (back
    /// inline from fullscreen, say): the host's modes only; the view hears the change.
    pub fn set_display_mode(&mut self, mode: &str) -> Vec<BridgeEffect> {
        let mut out = Vec::new();
        if mode == self.display_mode || !self.config.display_modes.iter().any(|m| m == mode) {
            return out;
        }
        self.display_mode = mode.to_owned();
        out.push(BridgeEffect::DisplayMode(mode.to_owned()));
        let mut change = Map::new();
        change.insert("displayMode".into(), Value::from(mode));
        out.extend(self.host_context(change));
        out
    }

    /// Whether the view offers tools of its own (`appCapabilities.tools`).
    pub fn has_tools(&self) -> bool {
        self.app_capabilities.contains_key("tools")
    }

    /// Asks a live view that offers tools for their list ([`BridgeEffect::ViewTools`]).
    pub fn list_view_tools(&mut self) -> Vec<BridgeEffect> {
        let mut out = Vec::new();
        if self.phase == ViewPhase::Live && self.has_tools() {
            let id = self.number();
            self.to_view.insert(id, ToView::ListTools);
            self.send(
                json!({"jsonrpc": "2.0", "id": format!("host-{id}"), "method": "tools/list", "params": {}}),
                &mut out,
            );
        }
        out
    }

    /// Calls the view's own tool `name` (the person, in a model's place); the answer comes as
    /// [`BridgeEffect::ViewToolResult`] with the returned number. `None` when the view offers
    /// no tools or is not live.
    pub fn call_view_tool(
        &mut self,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Option<(u64, Vec<BridgeEffect>)> {
        if self.phase != ViewPhase::Live || !self.has_tools() {
            return None;
        }
        let id = self.number();
        self.to_view
            .insert(id, ToView::CallTool(id, name.to_owned()));
        let mut out = Vec::new();
        self.send(
            json!({"jsonrpc": "2.0", "id": format!("host-{id}"), "method": "tools/call",
                   "params": {"name": name, "arguments": Value::Object(arguments)}}),
            &mut out,
        );
        Some((id, out))
    }

    /// Starts the teardown at `now_ms`: `ui/resource-teardown` to a live view (destroyed when
    /// it answers or at the deadline); a view that never initialized is destroyed at once.
    pub fn teardown(&mut self, reason: &str, now_ms: u64) -> Vec<BridgeEffect> {
        let mut out = Vec::new();
        match self.phase {
            ViewPhase::Live | ViewPhase::Initializing => {
                let id = self.number();
                self.phase = ViewPhase::TearingDown;
                let deadline = now_ms.saturating_add(self.config.teardown_ms);
                self.teardown = Some((id, deadline));
                out.push(BridgeEffect::Wake { at_ms: deadline });
                let method = Method::ResourceTeardown.name_in(self.dialect);
                self.send(
                    json!({"jsonrpc": "2.0", "id": format!("host-{id}"), "method": method,
                           "params": {"reason": reason}}),
                    &mut out,
                );
            }
            ViewPhase::Loading => self.close(&mut out),
            ViewPhase::TearingDown | ViewPhase::Closed => {}
        }
        out
    }

    /// Time passes: a teardown past its deadline ends.
    pub fn tick(&mut self, now_ms: u64) -> Vec<BridgeEffect> {
        let mut out = Vec::new();
        if let Some((_, deadline)) = self.teardown
            && now_ms >= deadline
        {
            self.close(&mut out);
        }
        out
    }

    /// Whether the view said it renders questions (`appCapabilities.elicitation`, SEP-3118).
    pub fn renders_questions(&self) -> bool {
        self.app_capabilities.contains_key("elicitation")
    }

    /// Hands the live view the app form it renders: `params` go to the view unchanged as a
    /// host→view `elicitation/create` (the engine adds the reasons a refused answer broke the
    /// form, under `_meta["dev.interlude/answerErrors"]`). Only the answer to the last one
    /// handed is taken ([`BridgeEffect::ElicitationAnswer`]). Nothing is sent to a view that
    /// is not live.
    pub fn ask(&mut self, params: Value) -> Vec<BridgeEffect> {
        let mut out = Vec::new();
        if self.phase != ViewPhase::Live {
            return out;
        }
        let n = self.number();
        self.question = Some(n);
        self.to_view.insert(n, ToView::Question(n));
        self.send(
            json!({"jsonrpc": "2.0", "id": format!("host-{n}"), "method": "elicitation/create",
                   "params": params}),
            &mut out,
        );
        out
    }

    /// The app form the view renders is over (answered, cancelled, withdrawn): a request
    /// handed to it and still open is cancelled (`notifications/cancelled`), and a late
    /// answer from the view is dropped. `reason` is `None` when the view's own answer ended it.
    pub fn withdraw_question(&mut self, reason: Option<&str>) -> Vec<BridgeEffect> {
        let mut out = Vec::new();
        let open = self.question.take();
        if let (Some(n), Some(reason)) = (open, reason)
            && matches!(self.phase, ViewPhase::Live)
        {
            self.to_view.remove(&n);
            let message = json!({
                "jsonrpc": "2.0",
                "method": "notifications/cancelled",
                "params": {"requestId": format!("host-{n}"), "reason": reason},
            });
            self.send(message, &mut out);
        }
        out
    }

    fn close(&mut self, out: &mut Vec<BridgeEffect>) {
        if self.phase != ViewPhase::Closed {
            self.phase = ViewPhase::Closed;
            self.teardown = None;
            self.queued.clear();
            // Nobody is left to read their answers: the server stops working on them.
            let mut pending: Vec<u64> = self.to_server.drain().map(|(p, _)| p).collect();
            pending.sort_unstable();
            for proxy in pending {
                out.push(BridgeEffect::CancelServer {
                    proxy,
                    reason: "the app view that asked was closed".into(),
                });
            }
            out.push(BridgeEffect::Destroy);
        }
    }

    /// The server reported progress on request `proxy` (`notifications/progress`): a live
    /// view that asked with a `_meta.progressToken` hears it under its own token (MCP
    /// 2025-11-25, utilities/progress); a request without one, already answered or
    /// cancelled, or a view not live, hears nothing.
    pub fn server_progress(
        &mut self,
        proxy: u64,
        progress: f64,
        total: Option<f64>,
        message: Option<&str>,
    ) -> Vec<BridgeEffect> {
        let mut out = Vec::new();
        if self.phase != ViewPhase::Live || !progress.is_finite() {
            return out;
        }
        let Some(token) = self
            .to_server
            .get(&proxy)
            .and_then(|f| f.progress_token.clone())
        else {
            return out;
        };
        let mut params = Map::new();
        params.insert("progressToken".into(), token);
        params.insert("progress".into(), json!(progress));
        if let Some(total) = total.filter(|t| t.is_finite()) {
            params.insert("total".into(), json!(total));
        }
        if let Some(message) = message {
            params.insert("message".into(), Value::from(message));
        }
        self.send(
            json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": Value::Object(params)}),
            &mut out,
        );
        out
    }

    /// How many of the view's requests to its server are in flight.
    pub fn pending_server_requests(&self) -> usize {
        self.to_server.len()
    }

    /// The server answered request `proxy`: the view gets the result or the error, under its
    /// own id.
    pub fn server_reply(
        &mut self,
        proxy: u64,
        reply: Result<Value, (i32, String)>,
    ) -> Vec<BridgeEffect> {
        let mut out = Vec::new();
        let Some(Forwarded { id, .. }) = self.to_server.remove(&proxy) else {
            return out;
        };
        if matches!(self.phase, ViewPhase::Closed) {
            return out;
        }
        match reply {
            Ok(result) => self.reply(id, result, &mut out),
            Err((code, message)) => self.error(id, code, message, &mut out),
        }
        out
    }

    /// The person answered question `question`: `Ok(result)` for the view, or why not.
    pub fn answer(&mut self, question: u64, reply: Result<Value, String>) -> Vec<BridgeEffect> {
        let mut out = Vec::new();
        let Some(id) = self.to_person.remove(&question) else {
            return out;
        };
        if matches!(self.phase, ViewPhase::Closed) {
            return out;
        }
        match reply {
            Ok(result) => self.reply(id, result, &mut out),
            Err(why) => self.error(id, codes::DENIED, why, &mut out),
        }
        out
    }

    /// A message from the view (or its sandbox proxy) at `now_ms`. `tools` tells which tools the
    /// view's server has and who may call them (`None`: no such tool).
    pub fn from_view(
        &mut self,
        message: &Value,
        now_ms: u64,
        tools: &dyn Fn(&str) -> Option<Visibility>,
    ) -> Vec<BridgeEffect> {
        let mut out = Vec::new();
        if self.phase == ViewPhase::Closed {
            return out;
        }
        let refuse =
            |out: &mut Vec<BridgeEffect>, method: &str, id: Option<&Value>, why: String| {
                out.push(BridgeEffect::Traffic(Traffic {
                    way: Way::In,
                    method: method.to_owned(),
                    id: id.cloned(),
                    refused: Some(why),
                }));
            };
        let Some(object) = message.as_object() else {
            refuse(&mut out, "?", None, "not a JSON object".into());
            return out;
        };
        let id = object.get("id").filter(|id| !id.is_null()).cloned();
        if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            refuse(
                &mut out,
                "?",
                id.as_ref(),
                "`jsonrpc` must be \"2.0\"".into(),
            );
            if let Some(id) = id {
                self.error(
                    id,
                    codes::INVALID_REQUEST,
                    "`jsonrpc` must be \"2.0\"".into(),
                    &mut out,
                );
            }
            return out;
        }
        let Some(name) = object.get("method").and_then(Value::as_str) else {
            // A response to one of the host's requests.
            self.response(object, id, &mut out);
            return out;
        };
        let params = object.get("params").cloned().unwrap_or(Value::Null);
        let Some((method, dialect)) = canonical(name) else {
            match id {
                Some(id) => {
                    refuse(&mut out, name, Some(&id), "unknown method".into());
                    self.error(
                        id,
                        codes::METHOD_NOT_FOUND,
                        format!("method not found: {name}"),
                        &mut out,
                    );
                }
                None => refuse(&mut out, name, None, "unknown notification".into()),
            }
            return out;
        };
        out.push(BridgeEffect::Traffic(Traffic {
            way: Way::In,
            method: name.to_owned(),
            id: id.clone(),
            refused: None,
        }));
        // A view tells which dialect it speaks by its spellings. The core `initialize` was both
        // seed 001's and the early draft's: it does not overrule the early draft.
        let core_handshake = matches!(name, "initialize" | "notifications/initialized");
        if dialect != UiDialect::Apps && !(core_handshake && self.dialect == UiDialect::EarlyDraft)
        {
            self.dialect = dialect;
        }
        match (method.is_request(), id) {
            (true, Some(id)) => {
                if let Err((code, why)) =
                    self.request(method, id.clone(), &params, now_ms, tools, &mut out)
                {
                    self.error(id, code, why, &mut out);
                }
            }
            (true, None) => {
                refuse(&mut out, name, None, "a request without an id".into());
            }
            (false, _) => self.notification(method, &params, &mut out),
        }
        out
    }

    fn response(
        &mut self,
        object: &Map<String, Value>,
        id: Option<Value>,
        out: &mut Vec<BridgeEffect>,
    ) {
        let teardown_id = self.teardown.map(|(n, _)| json!(format!("host-{n}")));
        if id.is_some() && id == teardown_id {
            out.push(BridgeEffect::Traffic(Traffic {
                way: Way::In,
                method: if object.contains_key("error") {
                    "error"
                } else {
                    "response"
                }
                .into(),
                id,
                refused: None,
            }));
            self.close(out);
            return;
        }
        let asked = id
            .as_ref()
            .and_then(Value::as_str)
            .and_then(|s| s.strip_prefix("host-"))
            .and_then(|n| n.parse::<u64>().ok())
            .and_then(|n| self.to_view.remove(&n));
        let Some(asked) = asked else {
            out.push(BridgeEffect::Traffic(Traffic {
                way: Way::In,
                method: "response".into(),
                id,
                refused: Some("answers no request of the host".into()),
            }));
            return;
        };
        out.push(BridgeEffect::Traffic(Traffic {
            way: Way::In,
            method: "response".into(),
            id,
            refused: None,
        }));
        let error = object.get("error").map(|e| {
            e.get("message")
                .and_then(Value::as_str)
                .unwrap_or("error")
                .to_owned()
        });
        match asked {
            ToView::ListTools => {
                let tools = object
                    .get("result")
                    .and_then(|r| r.get("tools"))
                    .and_then(Value::as_array)
                    .map(|t| {
                        t.iter()
                            .filter(|t| t.get("name").is_some_and(Value::is_string))
                            .take(50)
                            .cloned()
                            .collect()
                    })
                    .unwrap_or_default();
                out.push(BridgeEffect::ViewTools(tools));
            }
            ToView::CallTool(call, name) => {
                let result = match (error, object.get("result")) {
                    (Some(e), _) => Err(e),
                    (None, Some(r)) => Ok(r.clone()),
                    (None, None) => Err("the view answered nothing".into()),
                };
                out.push(BridgeEffect::ViewToolResult { call, name, result });
            }
            ToView::Question(n) => {
                // A late answer (the request ended, or was handed again, meanwhile) is dropped.
                if self.question != Some(n) {
                    return;
                }
                self.question = None;
                match (error, object.get("result")) {
                    (None, Some(result)) => {
                        out.push(BridgeEffect::ElicitationAnswer(result.clone()));
                    }
                    (error, _) => {
                        let why = error.unwrap_or_else(|| "nothing".into());
                        out.push(BridgeEffect::ElicitationUnusable(format!(
                            "its app view answered the question with an error ({why})"
                        )));
                    }
                }
            }
        }
    }

    fn request(
        &mut self,
        method: Method,
        id: Value,
        params: &Value,
        now_ms: u64,
        tools: &dyn Fn(&str) -> Option<Visibility>,
        out: &mut Vec<BridgeEffect>,
    ) -> Result<(), (i32, String)> {
        // A view being closed may still save its state with its server and answer pings
        // (`ui/resource-teardown` is its "opportunity to save state", MCP Apps 2026-01-26);
        // what it cannot do any more is ask the person or change how it is shown. What is still
        // in flight when it is destroyed is cancelled at the server.
        let saving = matches!(
            method,
            Method::Ping
                | Method::ToolsCall
                | Method::ResourcesRead
                | Method::ResourcesList
                | Method::ResourceTemplatesList
                | Method::PromptsList
        );
        if self.phase == ViewPhase::TearingDown && !saving {
            return Err((codes::DENIED, "the view is being closed".into()));
        }
        let invalid = |field: &str, what: &str| {
            (
                codes::INVALID_PARAMS,
                format!(
                    "Invalid params for {}: `{field}` must be {what}",
                    method.name()
                ),
            )
        };
        let object = match params {
            Value::Object(o) => Some(o),
            Value::Null => None,
            _ => return Err(invalid("params", "an object")),
        };
        let get = |key: &str| object.and_then(|o| o.get(key));
        match method {
            Method::Initialize => {
                if let Some(caps) = get("appCapabilities") {
                    match caps {
                        Value::Object(caps) => self.app_capabilities = caps.clone(),
                        _ => return Err(invalid("appCapabilities", "an object")),
                    }
                }
                let result = self.initialize_result();
                self.reply(id, result, out);
                if self.phase == ViewPhase::Loading {
                    self.phase = ViewPhase::Initializing;
                }
                Ok(())
            }
            Method::Ping => {
                self.reply(id, json!({}), out);
                Ok(())
            }
            Method::OpenLink => {
                let Some(url) = get("url").and_then(Value::as_str) else {
                    return Err(invalid("url", "a string"));
                };
                let question = self.number();
                self.to_person.insert(question, id);
                out.push(BridgeEffect::Ask {
                    question,
                    what: PersonQuestion::OpenLink {
                        url: url.to_owned(),
                    },
                });
                Ok(())
            }
            Method::DownloadFile => {
                let Some(contents) = get("contents").and_then(Value::as_array) else {
                    return Err(invalid("contents", "an array"));
                };
                if contents.is_empty() || !contents.iter().all(Value::is_object) {
                    return Err(invalid("contents", "a non-empty array of resources"));
                }
                let question = self.number();
                self.to_person.insert(question, id);
                out.push(BridgeEffect::Ask {
                    question,
                    what: PersonQuestion::Download {
                        contents: contents.clone(),
                    },
                });
                Ok(())
            }
            Method::Message => {
                if get("role").and_then(Value::as_str) != Some("user") {
                    return Err(invalid("role", "\"user\""));
                }
                let content = match get("content") {
                    Some(Value::Array(blocks)) => Value::Array(blocks.clone()),
                    // The spec's own example sends one block, not a list.
                    Some(Value::Object(block)) => Value::Array(vec![Value::Object(block.clone())]),
                    _ => return Err(invalid("content", "an array of content blocks")),
                };
                out.push(BridgeEffect::Message(content));
                self.reply(id, json!({}), out);
                Ok(())
            }
            Method::UpdateModelContext => {
                if let Some(content) = get("content")
                    && !content.is_array()
                {
                    return Err(invalid("content", "an array of content blocks"));
                }
                if let Some(structured) = get("structuredContent")
                    && !structured.is_object()
                {
                    return Err(invalid("structuredContent", "an object"));
                }
                let context = params.clone();
                self.model_context = Some(context.clone());
                out.push(BridgeEffect::ModelContext(context));
                self.reply(id, json!({}), out);
                Ok(())
            }
            Method::RequestDisplayMode => {
                let Some(mode) = get("mode").and_then(Value::as_str) else {
                    return Err(invalid("mode", "\"inline\", \"fullscreen\" or \"pip\""));
                };
                let host_has = self.config.display_modes.iter().any(|m| m == mode);
                let app_has = match self.app_capabilities.get("availableDisplayModes") {
                    Some(Value::Array(modes)) => modes.iter().any(|m| m.as_str() == Some(mode)),
                    _ => true,
                };
                if host_has && app_has && mode != self.display_mode {
                    self.display_mode = mode.to_owned();
                    out.push(BridgeEffect::DisplayMode(mode.to_owned()));
                    let mut change = Map::new();
                    change.insert("displayMode".into(), Value::from(mode));
                    let answer = json!({ "mode": mode });
                    self.reply(id, answer, out);
                    let notified = self.host_context(change);
                    out.extend(notified);
                } else {
                    let current = self.display_mode.clone();
                    self.reply(id, json!({ "mode": current }), out);
                }
                Ok(())
            }
            Method::ToolsCall => {
                let Some(name) = get("name").and_then(Value::as_str) else {
                    return Err(invalid("name", "a tool name"));
                };
                if let Some(arguments) = get("arguments")
                    && !arguments.is_object()
                    && !arguments.is_null()
                {
                    return Err(invalid("arguments", "an object"));
                }
                match tools(name) {
                    None => {
                        return Err((
                            codes::INVALID_PARAMS,
                            format!("tool `{name}` is not a tool of {}", self.config.server_name),
                        ));
                    }
                    Some(v) if !v.app => {
                        return Err((
                            codes::INVALID_PARAMS,
                            format!(
                                "tool `{name}` is not callable from a view (its visibility leaves out \"app\")"
                            ),
                        ));
                    }
                    Some(_) => {}
                }
                if !self
                    .calls
                    .take(self.config.call_burst, self.config.calls_per_minute, now_ms)
                {
                    return Err((
                        codes::DENIED,
                        "too many tool calls from this view; wait a moment".into(),
                    ));
                }
                self.forward(id, "tools/call", params.clone(), out);
                Ok(())
            }
            Method::ResourcesRead => {
                if get("uri").and_then(Value::as_str).is_none() {
                    return Err(invalid("uri", "a string"));
                }
                self.forward(id, "resources/read", params.clone(), out);
                Ok(())
            }
            Method::ResourcesList | Method::ResourceTemplatesList | Method::PromptsList => {
                let (wire, offered) = match method {
                    Method::ResourcesList => ("resources/list", self.config.server_resources),
                    Method::ResourceTemplatesList => {
                        ("resources/templates/list", self.config.server_resources)
                    }
                    _ => ("prompts/list", self.config.server_prompts),
                };
                if !offered {
                    return Err((
                        codes::METHOD_NOT_FOUND,
                        format!(
                            "{} has no {}",
                            self.config.server_name,
                            wire.split('/').next().unwrap_or(wire)
                        ),
                    ));
                }
                self.forward(
                    id,
                    wire,
                    if params.is_null() {
                        json!({})
                    } else {
                        params.clone()
                    },
                    out,
                );
                Ok(())
            }
            // Requests the host sends, never answers: a view sending them gets -32601.
            Method::ResourceTeardown | Method::ToolsList => Err((
                codes::METHOD_NOT_FOUND,
                format!("method not found: {}", method.name()),
            )),
            _ => Err((
                codes::METHOD_NOT_FOUND,
                format!("method not found: {}", method.name()),
            )),
        }
    }

    fn forward(
        &mut self,
        id: Value,
        method: &'static str,
        params: Value,
        out: &mut Vec<BridgeEffect>,
    ) {
        let proxy = self.number();
        // MCP 2025-11-25, utilities/progress: a token is a string or an integer.
        let progress_token = params
            .get("_meta")
            .and_then(|m| m.get("progressToken"))
            .filter(|t| t.is_string() || t.is_i64() || t.is_u64())
            .cloned();
        self.to_server
            .insert(proxy, Forwarded { id, progress_token });
        out.push(BridgeEffect::ToServer {
            proxy,
            method,
            params,
        });
    }

    fn notification(&mut self, method: Method, params: &Value, out: &mut Vec<BridgeEffect>) {
        match method {
            Method::Initialized
                if matches!(self.phase, ViewPhase::Initializing | ViewPhase::Loading) =>
            {
                self.phase = ViewPhase::Live;
                self.context = self.config.host_context.clone();
                out.push(BridgeEffect::Live);
                for message in std::mem::take(&mut self.queued) {
                    self.send(message, out);
                }
                // A view with tools of its own: the host learns them at once.
                out.extend(self.list_view_tools());
            }
            Method::SizeChanged => {
                let dimension = |key: &str| {
                    params
                        .get(key)
                        .and_then(Value::as_f64)
                        .filter(|v| v.is_finite() && *v >= 0.0)
                        .map(|v| v.ceil().min(f64::from(u32::MAX)) as u32)
                };
                let height = dimension("height").map(|h| h.min(self.config.max_height));
                let width = dimension("width");
                if height.is_some() || width.is_some() {
                    out.push(BridgeEffect::Resize { width, height });
                }
            }
            Method::RequestTeardown => out.push(BridgeEffect::TeardownRequested),
            Method::ToolsListChanged => out.extend(self.list_view_tools()),
            Method::Log => {
                let level = params
                    .get("level")
                    .and_then(Value::as_str)
                    .unwrap_or("info")
                    .to_owned();
                let data = params.get("data").cloned().unwrap_or(Value::Null);
                out.push(BridgeEffect::Log { level, data });
            }
            // MCP 2025-11-25, utilities/cancellation: the receiver of a cancellation sends no
            // response for the cancelled request. The server is told; whatever it answers
            // later is dropped (`server_reply` finds no request).
            Method::Cancelled => {
                let target = params.get("requestId");
                let proxy = self
                    .to_server
                    .iter()
                    .find(|(_, f)| Some(&f.id) == target)
                    .map(|(p, _)| *p);
                if let Some(proxy) = proxy {
                    self.to_server.remove(&proxy);
                    let reason = params
                        .get("reason")
                        .and_then(Value::as_str)
                        .map(|r| r.chars().take(200).collect::<String>())
                        .filter(|r| !r.trim().is_empty())
                        .unwrap_or_else(|| "the app view cancelled it".to_owned());
                    out.push(BridgeEffect::CancelServer { proxy, reason });
                }
            }
            // The host's sandbox proxy is listening: it gets the view's HTML and what its frame
            // may do (the proxy's own message, never forwarded to the view; the CSP is already
            // the proxy document's header).
            Method::SandboxProxyReady => {
                let mut params = Map::new();
                params.insert("html".into(), Value::from(&*self.config.html));
                params.insert(
                    "sandbox".into(),
                    Value::from("allow-scripts allow-same-origin allow-forms"),
                );
                params.insert(
                    "allow".into(),
                    Value::from(self.config.policy.allow.clone()),
                );
                let message = json!({
                    "jsonrpc": "2.0",
                    "method": Method::SandboxResourceReady.name(),
                    "params": Value::Object(params),
                });
                self.send(message, out);
            }
            // The rest are host-to-view names a view has no business sending.
            _ => {}
        }
    }

    /// What `ui/initialize` answers: the protocol version, who the host is, what it offers the
    /// view, and its context (with `toolInfo`).
    fn initialize_result(&self) -> Value {
        let mut capabilities = Map::new();
        capabilities.insert("openLinks".into(), json!({}));
        capabilities.insert("downloadFile".into(), json!({}));
        capabilities.insert("logging".into(), json!({}));
        capabilities.insert("message".into(), json!({"text": {}}));
        capabilities.insert(
            "updateModelContext".into(),
            json!({"text": {}, "structuredContent": {}}),
        );
        if self.config.server_tools {
            capabilities.insert("serverTools".into(), json!({}));
        }
        if self.config.server_resources {
            capabilities.insert("serverResources".into(), json!({}));
        }
        // SEP-3118: offered to a view bound to a form request only.
        if self.config.renders_question {
            capabilities.insert("elicitation".into(), json!({}));
        }
        let policy = &self.config.policy;
        let mut sandbox = Map::new();
        sandbox.insert(
            "csp".into(),
            Value::Object(
                interlude_protocol::apps::ResourceUi {
                    csp: Some(policy.granted.clone()),
                    ..Default::default()
                }
                .to_wire()
                .remove("csp")
                .and_then(|c| c.as_object().cloned())
                .unwrap_or_default(),
            ),
        );
        let permissions = interlude_protocol::apps::ResourceUi {
            permissions: policy.permissions,
            ..Default::default()
        }
        .to_wire()
        .remove("permissions")
        .unwrap_or_else(|| json!({}));
        sandbox.insert("permissions".into(), permissions);
        capabilities.insert("sandbox".into(), Value::Object(sandbox));

        let mut context = self.config.host_context.clone();
        // A view rendering a question raised outside any known call has no tool to name.
        if !self.config.tool.is_null() {
            let mut tool_info = Map::new();
            if let Some(id) = &self.config.call_request_id {
                tool_info.insert("id".into(), id.clone());
            }
            tool_info.insert("tool".into(), self.config.tool.clone());
            context.insert("toolInfo".into(), Value::Object(tool_info));
        }
        context.insert("displayMode".into(), Value::from(self.display_mode.clone()));
        context.insert(
            "availableDisplayModes".into(),
            Value::from(self.config.display_modes.clone()),
        );
        let mut result = json!({
            "protocolVersion": BRIDGE_VERSION,
            "hostInfo": self.config.host_info,
            "hostCapabilities": Value::Object(capabilities),
            "hostContext": Value::Object(context),
        });
        // Seed 001 views asked with the core `initialize` and read a core result.
        if self.dialect == UiDialect::Seed
            && let Some(object) = result.as_object_mut()
        {
            object.insert("serverInfo".into(), self.config.host_info.clone());
            object.insert("capabilities".into(), json!({}));
        }
        result
    }
}
