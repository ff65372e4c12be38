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

mod classic;
mod from_view;
mod types;

use interlude_protocol::apps::{Method, UiDialect};
use serde_json::{Map, Value, json};

use crate::rate::Bucket;

pub use types::{
    BridgeEffect, PersonQuestion, ServerMethod, Traffic, ViewConfig, ViewPhase, Way, codes,
};

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
    /// The call's complete input and its outcome as the view was given them, in order: a view
    /// document loaded again (the page reloaded) starts from nothing and hears them again.
    replay: Vec<Value>,
    /// The view's `appCapabilities`.
    app_capabilities: Map<String, Value>,
    display_mode: String,
    /// The context as the view last heard it (for diffs).
    context: Map<String, Value>,
    /// Requests forwarded to the server and not answered yet, by proxy number.
    to_server: crate::ids::IdMap<u64, Forwarded>,
    /// Questions to the person: number → who in the view waits for the answer.
    to_person: crate::ids::IdMap<u64, Asker>,
    next: u64,
    /// The id of the host's `ui/resource-teardown` request, and the deadline.
    teardown: Option<(u64, u64)>,
    calls: Bucket,
    /// What the view last said a model should know.
    model_context: Option<Value>,
    /// The host's requests to the view's own tools in flight: id number → what they are.
    to_view: crate::ids::IdMap<u64, ToView>,
    /// The number of the `elicitation/create` handed to the view ([`ViewBridge::ask`]) and not
    /// answered yet: only its answer is taken.
    question: Option<u64>,
    /// The view spoke MCP-UI's `postMessage` protocol and has said it is ready
    /// (`ui-lifecycle-iframe-ready`, or its first message of that protocol).
    classic_ready: bool,
}

/// Who in a view waits for an answer: a JSON-RPC request (by its id) or an MCP-UI action
/// message (by its `messageId`, which it may lack). Each is answered in its own protocol.
#[derive(Debug, Clone, PartialEq)]
enum Asker {
    /// A JSON-RPC request's id.
    Rpc(Value),
    /// An MCP-UI message's `messageId`, if it had one.
    Classic(Option<Value>),
}

/// A request of the view forwarded to its server.
#[derive(Debug, Clone)]
struct Forwarded {
    /// Who asked (its answer goes back to it, in its protocol).
    to: Asker,
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
            replay: Vec::new(),
            input_given: false,
            outcome_given: false,
            app_capabilities: Map::new(),
            display_mode,
            context: Map::new(),
            to_server: crate::ids::IdMap::default(),
            to_person: crate::ids::IdMap::default(),
            next: 1,
            teardown: None,
            question: None,
            classic_ready: false,
            calls,
            model_context: None,
            to_view: crate::ids::IdMap::default(),
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

    /// A notification of the call's (its input, its outcome): [`Self::notify`], and kept for a
    /// view document loaded again.
    fn notify_kept(&mut self, method: Method, params: Value, out: &mut Vec<BridgeEffect>) {
        let message = self.message_of(method, params);
        self.replay.push(message.clone());
        self.deliver(message, out);
    }

    fn message_of(&self, method: Method, params: Value) -> Value {
        json!({
            "jsonrpc": "2.0",
            "method": method.name_in(self.dialect),
            "params": params,
        })
    }

    /// A notification for the view: sent now when it is live, queued before.
    fn notify(&mut self, method: Method, params: Value, out: &mut Vec<BridgeEffect>) {
        let message = self.message_of(method, params);
        self.deliver(message, out);
    }

    fn deliver(&mut self, message: Value, out: &mut Vec<BridgeEffect>) {
        match self.phase {
            ViewPhase::Live => self.send(message, out),
            ViewPhase::Loading | ViewPhase::Initializing => self.queued.push(message),
            ViewPhase::TearingDown | ViewPhase::Closed => {}
        }
    }

    fn send(&mut self, message: Value, out: &mut Vec<BridgeEffect>) {
        let named = message
            .get("method")
            .or_else(|| message.get("type"))
            .and_then(Value::as_str);
        let method = named.map_or_else(
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
            id: message
                .get("id")
                .or_else(|| message.get("messageId"))
                .cloned(),
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

    /// Answers whoever asked, in the protocol it asked in.
    fn answer_to(
        &mut self,
        to: Asker,
        reply: Result<Value, (i32, String)>,
        out: &mut Vec<BridgeEffect>,
    ) {
        match (to, reply) {
            (Asker::Rpc(id), Ok(result)) => self.reply(id, result, out),
            (Asker::Rpc(id), Err((code, message))) => self.error(id, code, message, out),
            (Asker::Classic(message_id), reply) => self.classic_response(message_id, reply, out),
        }
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
        self.notify_kept(Method::ToolInput, params, &mut out);
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
            self.notify_kept(Method::ToolResult, result, &mut out);
        }
        out
    }

    /// The call ended without a result (cancelled, failed): the view stops waiting.
    pub fn tool_cancelled(&mut self, reason: &str) -> Vec<BridgeEffect> {
        let mut out = Vec::new();
        if !self.outcome_given {
            self.outcome_given = true;
            self.notify_kept(Method::ToolCancelled, json!({ "reason": reason }), &mut out);
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
        let Some(Forwarded { to, .. }) = self.to_server.remove(&proxy) else {
            return out;
        };
        if matches!(self.phase, ViewPhase::Closed) {
            return out;
        }
        self.answer_to(to, reply, &mut out);
        out
    }

    /// The person answered question `question`: `Ok(result)` for the view, or why not.
    pub fn answer(&mut self, question: u64, reply: Result<Value, String>) -> Vec<BridgeEffect> {
        let mut out = Vec::new();
        let Some(to) = self.to_person.remove(&question) else {
            return out;
        };
        if matches!(self.phase, ViewPhase::Closed) {
            return out;
        }
        self.answer_to(to, reply.map_err(|why| (codes::DENIED, why)), &mut out);
        out
    }
}
