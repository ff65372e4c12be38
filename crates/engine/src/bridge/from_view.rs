//! The view's side of a bridge: every message a view sends — its requests (answered, forwarded
//! to its server, or put to the person), its notifications, its answers to the host's
//! requests — checked and turned into [`BridgeEffect`]s.

use interlude_protocol::apps::{BRIDGE_VERSION, Method, UiDialect, Visibility, canonical};
use serde_json::{Map, Value, json};

use super::types::{BridgeEffect, PersonQuestion, ServerMethod, Traffic, ViewPhase, Way, codes};
use super::{Asker, Forwarded, ToView, ViewBridge};

impl ViewBridge {
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
        // MCP-UI's protocol: plain objects with a `type`, no JSON-RPC.
        if !object.contains_key("jsonrpc") && object.get("type").is_some_and(Value::is_string) {
            self.classic_message(object, now_ms, tools, &mut out);
            return out;
        }
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
        // JSON-RPC ids are strings, numbers or null: anything else is not run, and the answer
        // cannot name it.
        if let Some(bad) = id.as_ref().filter(|id| !(id.is_string() || id.is_number())) {
            let why = format!(
                "`id` must be a string, a number or null, not {}",
                kind_of(bad)
            );
            refuse(&mut out, "?", None, why.clone());
            self.error(Value::Null, codes::INVALID_REQUEST, why, &mut out);
            return out;
        }
        let Some(name) = object.get("method").and_then(Value::as_str) else {
            // A response to one of the host's requests.
            self.response(object, id, &mut out);
            return out;
        };
        // A name is echoed and logged at most this long: a view may send megabytes of one.
        let shown_name = shown(name);
        let name: &str = &shown_name;
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
                match self.phase {
                    ViewPhase::Loading => self.phase = ViewPhase::Initializing,
                    // The view's document was loaded again (the page reloaded): a new instance
                    // that knows nothing yet hears the call's input and outcome once it is
                    // initialized, as the first one did.
                    ViewPhase::Live => {
                        self.phase = ViewPhase::Initializing;
                        self.queued = self.replay.clone();
                    }
                    ViewPhase::Initializing | ViewPhase::TearingDown | ViewPhase::Closed => {}
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
                self.to_person.insert(question, Asker::Rpc(id));
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
                self.to_person.insert(question, Asker::Rpc(id));
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
                self.may_call(name, now_ms, tools)?;
                self.forward(Asker::Rpc(id), ServerMethod::ToolsCall, params.clone(), out);
                Ok(())
            }
            Method::ResourcesRead => {
                if get("uri").and_then(Value::as_str).is_none() {
                    return Err(invalid("uri", "a string"));
                }
                self.forward(
                    Asker::Rpc(id),
                    ServerMethod::ResourcesRead,
                    params.clone(),
                    out,
                );
                Ok(())
            }
            Method::ResourcesList | Method::ResourceTemplatesList | Method::PromptsList => {
                let (wire, offered) = match method {
                    Method::ResourcesList => {
                        (ServerMethod::ResourcesList, self.config.server_resources)
                    }
                    Method::ResourceTemplatesList => (
                        ServerMethod::ResourceTemplatesList,
                        self.config.server_resources,
                    ),
                    _ => (ServerMethod::PromptsList, self.config.server_prompts),
                };
                if !offered {
                    return Err((
                        codes::METHOD_NOT_FOUND,
                        format!(
                            "{} has no {}",
                            self.config.server_name,
                            wire.as_str().split('/').next().unwrap_or_default()
                        ),
                    ));
                }
                self.forward(
                    Asker::Rpc(id),
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

    /// The gate of a view's tool call: a tool of its own server whose visibility includes the
    /// app, within the rate limit.
    pub(super) fn may_call(
        &mut self,
        name: &str,
        now_ms: u64,
        tools: &dyn Fn(&str) -> Option<Visibility>,
    ) -> Result<(), (i32, String)> {
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
        Ok(())
    }

    pub(super) fn forward(
        &mut self,
        to: Asker,
        method: ServerMethod,
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
            .insert(proxy, Forwarded { to, progress_token });
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
            Method::SizeChanged => out.extend(self.resize(params)),
            Method::RequestTeardown => out.push(BridgeEffect::TeardownRequested),
            Method::ToolsListChanged => out.extend(self.list_view_tools()),
            Method::Log => {
                let level = params
                    .get("level")
                    .and_then(Value::as_str)
                    .unwrap_or("info")
                    .to_owned();
                let data = params.get("data").cloned().unwrap_or(Value::Null);
                if params.get("logger").and_then(Value::as_str) == Some("console") {
                    let text = match data {
                        Value::String(text) => text,
                        other => other.to_string(),
                    };
                    out.push(BridgeEffect::Console { level, text });
                } else {
                    out.push(BridgeEffect::Log { level, data });
                }
            }
            // MCP 2025-11-25, utilities/cancellation: the receiver of a cancellation sends no
            // response for the cancelled request. The server is told; whatever it answers
            // later is dropped (`server_reply` finds no request).
            Method::Cancelled => {
                let target = params.get("requestId");
                let proxy = self
                    .to_server
                    .iter()
                    .find(|(_, f)| matches!(&f.to, Asker::Rpc(id) if Some(id) == target))
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

    /// A view's new size (`width`, `height` in `params`), the height clamped to the host's
    /// maximum; nothing when it names neither.
    pub(super) fn resize(&self, params: &Value) -> Option<BridgeEffect> {
        let dimension = |key: &str| {
            params
                .get(key)
                .and_then(Value::as_f64)
                .filter(|v| v.is_finite() && *v >= 0.0)
                .map(|v| v.ceil().min(f64::from(u32::MAX)) as u32)
        };
        let height = dimension("height").map(|h| h.min(self.config.max_height));
        let width = dimension("width");
        (height.is_some() || width.is_some()).then_some(BridgeEffect::Resize { width, height })
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

/// The most of a method name that is echoed in an error or kept in the traffic log.
const NAME_SHOWN: usize = 100;

/// `name` as it may be echoed and logged: whole when short, else its start and its length.
pub(super) fn shown(name: &str) -> std::borrow::Cow<'_, str> {
    match name.char_indices().nth(NAME_SHOWN) {
        None => std::borrow::Cow::Borrowed(name),
        Some((end, _)) => std::borrow::Cow::Owned(format!(
            "{}… ({} characters)",
            &name[..end],
            name.chars().count()
        )),
    }
}

/// What kind of JSON value `v` is, for a sentence.
pub(super) fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
