//! HTTP routes of the page, the one security layer (CSP and friends), the `Host` check and the
//! token check. Request bodies are parsed here, at the boundary, into typed values; malformed
//! ones get a 400 naming the field.

use std::convert::Infallible;
use std::time::Duration;

use axum::Json;
use axum::Router;
use axum::extract::{Query, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use futures::Stream;
use interlude_host::{Answer, ArgumentError, RequestId, RequestKind, ServerSpec, schema::Content};
use serde::Deserialize;
use serde_json::{Value, json};
use tower_http::set_header::SetResponseHeaderLayer;

use crate::assets;
use crate::{CallError, WebApp};

/// The Content Security Policy of the host page: only our own scripts, styles and API; no
/// inline script, no framing of the page, no form posts, no plugins; frames only from the app
/// views' sandbox origins (`frame_src`).
pub(crate) fn content_security_policy(frame_src: &str) -> String {
    format!(
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
         connect-src 'self'; font-src 'self'; frame-src {frame_src}; base-uri 'none'; \
         form-action 'none'; frame-ancestors 'none'; object-src 'none'"
    )
}

pub(crate) fn router(app: WebApp, port: u16) -> Router {
    let csp = HeaderValue::from_str(&content_security_policy(&app.inner.sandbox.frame_src()))
        .unwrap_or_else(|_| HeaderValue::from_static("default-src 'none'"));
    let api = Router::new()
        .route("/api/state", get(state))
        .route("/api/events", get(events))
        .route("/api/answer", post(answer))
        .route("/api/validate", post(validate))
        .route("/api/call", post(call))
        .route("/api/validate-arguments", post(validate_arguments))
        .route("/api/cancel", post(cancel))
        .route("/api/link-done", post(link_done))
        .route("/api/plain-form", post(plain_form))
        .route("/api/log", get(protocol_log))
        .route("/api/log-level", post(log_level))
        .route("/api/servers", post(add_server))
        .route("/api/servers/retry", post(retry_server))
        .route("/api/servers/remove", post(remove_server))
        .route("/api/telemetry", post(telemetry))
        .route("/api/views/{id}/message", post(view_message))
        .route("/api/views/{id}/context", post(view_context))
        .route("/api/views/{id}/close", post(view_close))
        .route(
            "/api/views/{id}/downloads/{question}",
            get(view_download_files),
        )
        .route("/api/views/{id}/download", post(view_download))
        .route("/api/views/{id}/tool", post(view_tool))
        .route("/api/views/{id}/mode", post(view_mode))
        .route_layer(middleware::from_fn_with_state(app.clone(), require_token));
    Router::new()
        .route("/", get(index))
        .route("/assets/{*path}", get(asset))
        .merge(api)
        .with_state(app)
        .layer(middleware::from_fn_with_state(port, require_loopback_host))
        .layer(SetResponseHeaderLayer::overriding(
            header::CONTENT_SECURITY_POLICY,
            csp,
        ))
        .layer(SetResponseHeaderLayer::overriding(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ))
        .layer(SetResponseHeaderLayer::overriding(
            header::REFERRER_POLICY,
            HeaderValue::from_static("no-referrer"),
        ))
        .layer(SetResponseHeaderLayer::overriding(
            header::CACHE_CONTROL,
            HeaderValue::from_static("no-store"),
        ))
}

fn bad_request(message: impl Into<String>) -> Response {
    (
        StatusCode::BAD_REQUEST,
        Json(json!({ "error": message.into() })),
    )
        .into_response()
}

/// DNS-rebinding protection: the `Host` header must name the loopback address we listen on.
async fn require_loopback_host(State(port): State<u16>, request: Request, next: Next) -> Response {
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("");
    let allowed = [
        format!("127.0.0.1:{port}"),
        format!("localhost:{port}"),
        format!("[::1]:{port}"),
    ];
    if allowed.iter().any(|a| a == host) {
        next.run(request).await
    } else {
        (StatusCode::FORBIDDEN, "forbidden host").into_response()
    }
}

#[derive(Deserialize)]
struct TokenQuery {
    token: Option<String>,
}

/// Every API call carries the run's token: as `x-interlude-token` (fetch) or `?token=`
/// (EventSource, which cannot set headers).
async fn require_token(
    State(app): State<WebApp>,
    Query(q): Query<TokenQuery>,
    headers: HeaderMap,
    request: Request,
    next: Next,
) -> Response {
    let given = headers
        .get("x-interlude-token")
        .and_then(|h| h.to_str().ok())
        .map(str::to_owned)
        .or(q.token);
    if given.as_deref() == Some(app.inner.token.as_str()) {
        next.run(request).await
    } else {
        (StatusCode::UNAUTHORIZED, "missing or wrong token").into_response()
    }
}

async fn index() -> Response {
    assets::response("index.html")
}

async fn asset(axum::extract::Path(path): axum::extract::Path<String>) -> Response {
    assets::response(&path)
}

async fn state(State(app): State<WebApp>) -> Response {
    Json(app.page_state()).into_response()
}

async fn events(State(app): State<WebApp>) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let rx = app.inner.page.subscribe();
    let first = app.page_state();
    let states = futures::stream::unfold(
        (rx, app.clone(), Some(first)),
        |(mut rx, app, first)| async move {
            let state = match first {
                Some(s) => s,
                // A lagging receiver missed some changes: the next projection covers them.
                None => match rx.recv().await {
                    Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {
                        app.page_state()
                    }
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => return None,
                },
            };
            let data = serde_json::to_string(&state).unwrap_or_else(|_| "{}".into());
            let event = Event::default().event("state").data(data);
            Some((Ok(event), (rx, app, None)))
        },
    );
    // Messages for app views, in order, each once (a page with no such view ignores them).
    let messages = app.inner.view_messages.subscribe();
    let views = futures::stream::unfold(messages, |mut rx| async move {
        loop {
            match rx.recv().await {
                Ok((view, message)) => {
                    let data = json!({"view": view, "message": message}).to_string();
                    return Some((Ok(Event::default().event("view").data(data)), rx));
                }
                Err(tokio::sync::broadcast::error::RecvError::Lagged(missed)) => {
                    tracing::warn!("a page missed {missed} app view messages");
                }
                Err(tokio::sync::broadcast::error::RecvError::Closed) => return None,
            }
        }
    });
    Sse::new(futures::stream::select(states, views))
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
}

/// A view's id from the path.
fn view_id(id: &str) -> Option<interlude_host::ViewId> {
    id.parse().ok().map(interlude_host::ViewId)
}

/// A message from an app view, relayed by the page (`{"message": …}`): the host's bridge reads it.
async fn view_message(
    State(app): State<WebApp>,
    axum::extract::Path(id): axum::extract::Path<String>,
    Json(body): Json<Value>,
) -> Response {
    let Some(view) = view_id(&id) else {
        return bad_request("the path must name a view id");
    };
    let Some(message) = field(&body, "message") else {
        return bad_request("`message` is required");
    };
    if app.inner.host.view(view).is_none() {
        return (
            StatusCode::NOT_FOUND,
            Json(json!({"error": "no such view"})),
        )
            .into_response();
    }
    app.inner.host.view_message(view, message.clone());
    StatusCode::ACCEPTED.into_response()
}

/// The page's context for a view (`{"changes": {theme, locale, timeZone, …}}`).
async fn view_context(
    State(app): State<WebApp>,
    axum::extract::Path(id): axum::extract::Path<String>,
    Json(body): Json<Value>,
) -> Response {
    let Some(view) = view_id(&id) else {
        return bad_request("the path must name a view id");
    };
    let Some(Value::Object(changes)) = field(&body, "changes") else {
        return bad_request("`changes` must be an object");
    };
    app.inner.host.view_context(view, changes.clone());
    StatusCode::ACCEPTED.into_response()
}

/// The files of a view's offer, with their content (for the page to save).
async fn view_download_files(
    State(app): State<WebApp>,
    axum::extract::Path((id, question)): axum::extract::Path<(String, u64)>,
) -> Response {
    let offer = view_id(&id)
        .and_then(|v| app.inner.host.view(v))
        .and_then(|v| v.downloads.iter().find(|d| d.question == question).cloned());
    let Some(offer) = offer else {
        return (
            StatusCode::NOT_FOUND,
            Json(json!({"error": "no such offer"})),
        )
            .into_response();
    };
    let files: Vec<Value> = offer
        .files
        .iter()
        .map(|f| json!({"name": f.name, "mimeType": f.mime_type, "text": f.text, "blob": f.blob}))
        .collect();
    Json(json!({ "files": files })).into_response()
}

/// The person's answer to a view's offer of files (`{"question": n, "saved": bool}`).
async fn view_download(
    State(app): State<WebApp>,
    axum::extract::Path(id): axum::extract::Path<String>,
    Json(body): Json<Value>,
) -> Response {
    let Some(view) = view_id(&id) else {
        return bad_request("the path must name a view id");
    };
    let Some(question) = field(&body, "question").and_then(Value::as_u64) else {
        return bad_request("`question` must be the offer's number");
    };
    let Some(saved) = field(&body, "saved").and_then(Value::as_bool) else {
        return bad_request("`saved` must be true or false");
    };
    app.inner.host.answer_download(view, question, saved);
    StatusCode::ACCEPTED.into_response()
}

/// The person calls a view's own tool (`{"name": …, "arguments": {…}}`), in a model's place.
async fn view_tool(
    State(app): State<WebApp>,
    axum::extract::Path(id): axum::extract::Path<String>,
    Json(body): Json<Value>,
) -> Response {
    let Some(view) = view_id(&id) else {
        return bad_request("the path must name a view id");
    };
    let Some(name) = field(&body, "name").and_then(Value::as_str) else {
        return bad_request("`name` must be a tool of the view");
    };
    let arguments = match field(&body, "arguments") {
        None | Some(Value::Null) => serde_json::Map::new(),
        Some(Value::Object(o)) => o.clone(),
        Some(_) => return bad_request("`arguments` must be an object"),
    };
    app.inner.host.call_view_tool(view, name, arguments);
    StatusCode::ACCEPTED.into_response()
}

/// The person puts a view in a display mode from the page's controls (`{"mode": "inline"}`).
async fn view_mode(
    State(app): State<WebApp>,
    axum::extract::Path(id): axum::extract::Path<String>,
    Json(body): Json<Value>,
) -> Response {
    let Some(view) = view_id(&id) else {
        return bad_request("the path must name a view id");
    };
    let Some(mode) = field(&body, "mode").and_then(Value::as_str) else {
        return bad_request("`mode` must be \"inline\", \"fullscreen\" or \"pip\"");
    };
    app.inner.host.view_display_mode(view, mode);
    StatusCode::ACCEPTED.into_response()
}

/// The person closes a view.
async fn view_close(
    State(app): State<WebApp>,
    axum::extract::Path(id): axum::extract::Path<String>,
) -> Response {
    let Some(view) = view_id(&id) else {
        return bad_request("the path must name a view id");
    };
    app.inner.host.close_view(view);
    StatusCode::ACCEPTED.into_response()
}

fn field<'a>(body: &'a Value, name: &str) -> Option<&'a Value> {
    body.get(name)
}

fn request_id(body: &Value) -> Result<u64, &'static str> {
    field(body, "id")
        .and_then(Value::as_u64)
        .ok_or("`id` must be a request id (a positive integer)")
}

fn content(body: &Value) -> Result<Content, &'static str> {
    match field(body, "content") {
        None | Some(Value::Null) => Ok(Content::new()),
        Some(Value::Object(o)) => Ok(o.clone()),
        Some(_) => Err("`content` must be an object"),
    }
}

async fn answer(State(app): State<WebApp>, Json(body): Json<Value>) -> Response {
    let id = match request_id(&body) {
        Ok(id) => id,
        Err(m) => return bad_request(m),
    };
    let answer = match field(&body, "action").and_then(Value::as_str) {
        Some("accept") => match content(&body) {
            Ok(c) => Answer::Accepted(c),
            Err(m) => return bad_request(m),
        },
        Some("decline") => Answer::Declined,
        Some("cancel") => Answer::Cancelled,
        _ => return bad_request("`action` must be \"accept\", \"decline\" or \"cancel\""),
    };
    app.inner.host.answer_sink().answer(RequestId(id), answer);
    StatusCode::ACCEPTED.into_response()
}

/// Inline validation with the engine's own rules (after defaults, as the engine does).
async fn validate(State(app): State<WebApp>, Json(body): Json<Value>) -> Response {
    let id = match request_id(&body) {
        Ok(id) => id,
        Err(m) => return bad_request(m),
    };
    let mut content = match content(&body) {
        Ok(c) => c,
        Err(m) => return bad_request(m),
    };
    let pending = app
        .inner
        .host
        .request(RequestId(id))
        .filter(|r| r.status.is_pending());
    let Some(schema) = pending.map(|r| match &r.view.kind {
        RequestKind::Form(form) => Some(form.schema.clone()),
        RequestKind::AppForm(app) => Some(app.form.schema.clone()),
        // Consent to open a link carries no content: nothing to check.
        RequestKind::Url(_) => None,
    }) else {
        return (
            StatusCode::NOT_FOUND,
            Json(json!({"error": "no such request"})),
        )
            .into_response();
    };
    let Some(schema) = schema else {
        return Json(json!({ "errors": {} })).into_response();
    };
    schema.apply_defaults(&mut content);
    let errors: serde_json::Map<String, Value> = match schema.validate(&content) {
        Ok(()) => serde_json::Map::new(),
        Err(errs) => errs
            .into_iter()
            .map(|e| (e.field, Value::String(e.message)))
            .collect(),
    };
    Json(json!({ "errors": errors })).into_response()
}

/// Arguments as the person gave them: an object (`None` for none), or text that is not one.
type Typed = Result<Option<serde_json::Map<String, Value>>, ArgumentError>;

/// A tool call's arguments from the page: `arguments` (an object; null or `{}` for none) or `json`,
/// the text the person typed in the form's JSON editor — read here, so that a parse error is
/// worded like every other message. The outer `Err` is a malformed body; the inner one, text
/// that is not a JSON object.
fn tool_arguments(body: &Value) -> Result<Typed, &'static str> {
    if let Some(text) = field(body, "json") {
        let Some(text) = text.as_str() else {
            return Err("`json` must be the arguments as text");
        };
        return Ok(interlude_host::parse_arguments(text)
            .map(|o| if o.is_empty() { None } else { Some(o) }));
    }
    match field(body, "arguments") {
        None | Some(Value::Null) => Ok(Ok(None)),
        Some(Value::Object(o)) if o.is_empty() => Ok(Ok(None)),
        Some(Value::Object(o)) => Ok(Ok(Some(o.clone()))),
        Some(_) => Err("`arguments` must be an object"),
    }
}

/// The page's tool form asks whether its arguments fit the tool's `inputSchema`
/// (`{server, tool, arguments | json}` → `{errors: [{pointer, field, message}]}`): the host's
/// own check, the one `/api/call` applies again.
async fn validate_arguments(State(app): State<WebApp>, Json(body): Json<Value>) -> Response {
    let Some(server) = field(&body, "server").and_then(Value::as_str) else {
        return bad_request("`server` must be a server name");
    };
    let Some(tool) = field(&body, "tool").and_then(Value::as_str) else {
        return bad_request("`tool` must be a tool name");
    };
    let arguments = match tool_arguments(&body) {
        Err(m) => return bad_request(m),
        Ok(Err(unreadable)) => return Json(json!({ "errors": [unreadable] })).into_response(),
        Ok(Ok(a)) => a,
    };
    let Some(record) = app.inner.host.live_server_named(server) else {
        return (
            StatusCode::NOT_FOUND,
            Json(json!({"error": format!("no connected server named `{server}`")})),
        )
            .into_response();
    };
    let errors = record
        .check_arguments(tool, arguments.as_ref())
        .err()
        .unwrap_or_default();
    Json(json!({ "errors": errors })).into_response()
}

/// Calls a tool (`{server, tool, arguments | json}`); arguments that do not fit its
/// `inputSchema` are refused with the reasons (`400 {error, errors}`), and no call is made.
async fn call(State(app): State<WebApp>, Json(body): Json<Value>) -> Response {
    let Some(server) = field(&body, "server").and_then(Value::as_str) else {
        return bad_request("`server` must be a server name");
    };
    let Some(tool) = field(&body, "tool").and_then(Value::as_str) else {
        return bad_request("`tool` must be a tool name");
    };
    let refused = |errors: Vec<ArgumentError>| {
        (
            StatusCode::BAD_REQUEST,
            Json(json!({
                "error": "The arguments do not fit the tool's input schema; nothing was sent.",
                "errors": errors,
            })),
        )
            .into_response()
    };
    let arguments = match tool_arguments(&body) {
        Err(m) => return bad_request(m),
        Ok(Err(unreadable)) => return refused(vec![unreadable]),
        Ok(Ok(a)) => a,
    };
    match app.call_tool(server, tool, arguments).await {
        Ok(id) => (StatusCode::ACCEPTED, Json(json!({ "callId": id }))).into_response(),
        Err(CallError::InvalidArguments { errors }) => refused(errors),
        Err(e) => bad_request(e.to_string()),
    }
}

/// Cancels a call in flight (`{"callId": n}`): the server is told, its requests are withdrawn.
async fn cancel(State(app): State<WebApp>, Json(body): Json<Value>) -> Response {
    let Some(id) = field(&body, "callId").and_then(Value::as_u64) else {
        return bad_request("`callId` must be a call id");
    };
    if app.inner.host.cancel_call(interlude_host::CallId(id)) {
        StatusCode::ACCEPTED.into_response()
    } else {
        (
            StatusCode::NOT_FOUND,
            Json(json!({"error": "no such call in flight"})),
        )
            .into_response()
    }
}

/// Asks a server to log from a level up (`{"server": name, "level": "debug"}`:
/// `logging/setLevel`); what it logs shows in its protocol pane.
async fn log_level(State(app): State<WebApp>, Json(body): Json<Value>) -> Response {
    let Some(server) = field(&body, "server").and_then(Value::as_str) else {
        return bad_request("`server` must be a server's name");
    };
    let Some(level) = field(&body, "level").and_then(Value::as_str) else {
        return bad_request("`level` must be a logging level");
    };
    let Some(conn) = app.inner.host.connection_named(server) else {
        return (
            StatusCode::NOT_FOUND,
            Json(json!({"error": format!("no connected server named {server}")})),
        )
            .into_response();
    };
    match conn.set_log_level(level).await {
        Ok(()) => StatusCode::NO_CONTENT.into_response(),
        Err(interlude_host::HostError::Invalid { reason }) => bad_request(reason),
        Err(e) => (
            StatusCode::BAD_GATEWAY,
            Json(json!({"error": format!("the server refused: {e}")})),
        )
            .into_response(),
    }
}

/// The person is done in the browser with a URL request's link (`{"id": n}`): the host stops
/// waiting for the server's word (a call that needed the link is retried now).
async fn link_done(State(app): State<WebApp>, Json(body): Json<Value>) -> Response {
    let Some(id) = field(&body, "id").and_then(Value::as_u64) else {
        return bad_request("`id` must be a request id");
    };
    if app.inner.host.link_done(RequestId(id)) {
        StatusCode::ACCEPTED.into_response()
    } else {
        (
            StatusCode::NOT_FOUND,
            Json(json!({"error": "nothing is waiting for that request's link"})),
        )
            .into_response()
    }
}

#[derive(serde::Deserialize)]
struct LogQuery {
    /// The server's configured name.
    server: String,
    /// Only the messages after this sequence number (the last one the page has).
    #[serde(default)]
    after: u64,
}

/// A server's protocol log (`GET /api/log?server=<name>`): the messages the host keeps of it,
/// oldest first, each with its time, direction, latency and (for an app view's traffic) view.
async fn protocol_log(
    State(app): State<WebApp>,
    axum::extract::Query(q): axum::extract::Query<LogQuery>,
) -> Response {
    let host = &app.inner.host;
    let server = host.live_server_named(&q.server).or_else(|| {
        let snapshot = host.snapshot();
        snapshot
            .servers
            .iter()
            .rev()
            .find(|s| s.name == q.server)
            .cloned()
    });
    let Some(server) = server else {
        return (
            StatusCode::NOT_FOUND,
            Json(json!({"error": format!("no server named {}", q.server)})),
        )
            .into_response();
    };
    let messages: Vec<Value> = host
        .protocol_log_since(server.id, q.after)
        .iter()
        .map(|m| serde_json::to_value(&**m).unwrap_or(Value::Null))
        .collect();
    // The page keeps what it has and asks for what is new; a server added again under the same
    // name has a log of its own, numbered from 1: `serverId` tells the page to start over.
    Json(json!({ "serverId": server.id.0, "messages": messages })).into_response()
}

async fn plain_form(State(app): State<WebApp>, Json(body): Json<Value>) -> Response {
    let Some(id) = field(&body, "id").and_then(Value::as_u64) else {
        return bad_request("`id` must be a request id");
    };
    if app
        .inner
        .host
        .show_plain_form(RequestId(id), "you asked for the host's own form")
    {
        StatusCode::ACCEPTED.into_response()
    } else {
        (
            StatusCode::NOT_FOUND,
            Json(json!({"error": "no question of that id is shown in an app view"})),
        )
            .into_response()
    }
}

async fn add_server(State(app): State<WebApp>, Json(body): Json<Value>) -> Response {
    let Some(target) = field(&body, "target").and_then(Value::as_str) else {
        return bad_request("`target` must be a command line or an http(s):// URL");
    };
    let spec = match ServerSpec::parse(target) {
        Ok(s) => s,
        Err(e) => return bad_request(format!("`target`: {e}")),
    };
    let name = field(&body, "name")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .map(str::to_owned)
        .unwrap_or_else(|| spec.default_name());
    if app.inner.host.live_server_named(&name).is_some() {
        return bad_request(format!(
            "`name`: a server named `{name}` is already connected"
        ));
    }
    let app2 = app.clone();
    tokio::spawn(async move { app2.add_server(&name, spec, None).await });
    StatusCode::ACCEPTED.into_response()
}

/// Connects again to a server that failed or closed (`{"name": …}`), as it was started.
async fn retry_server(State(app): State<WebApp>, Json(body): Json<Value>) -> Response {
    let Some(name) = field(&body, "name").and_then(Value::as_str) else {
        return bad_request("`name` must be a server's name");
    };
    let known = app
        .inner
        .host
        .snapshot()
        .servers
        .iter()
        .any(|s| s.name == name && s.state.is_over() && s.spec.is_some());
    if !known {
        return bad_request(format!(
            "`name`: no failed or closed server named `{name}` that can be started again"
        ));
    }
    let (host, name) = (app.inner.host.clone(), name.to_owned());
    tokio::spawn(async move {
        if let Err(e) = host.retry(&name).await {
            tracing::warn!(server = %name, "retrying did not connect: {e}");
        }
    });
    StatusCode::ACCEPTED.into_response()
}

/// Takes a failed or closed server off the page (`{"name": …}`).
async fn remove_server(State(app): State<WebApp>, Json(body): Json<Value>) -> Response {
    let Some(name) = field(&body, "name").and_then(Value::as_str) else {
        return bad_request("`name` must be a server's name");
    };
    if app.inner.host.remove_server(name) {
        StatusCode::NO_CONTENT.into_response()
    } else {
        bad_request(format!("`name`: no failed or closed server named `{name}`"))
    }
}

async fn telemetry(State(app): State<WebApp>, Json(body): Json<Value>) -> Response {
    let (Some(id), Some(shown)) = (
        field(&body, "id").and_then(Value::as_u64),
        field(&body, "shownAtMs").and_then(Value::as_f64),
    ) else {
        return bad_request("`id` and `shownAtMs` are required");
    };
    let received = app
        .inner
        .host
        .request(RequestId(id))
        .map(|r| r.received_at_ms);
    if let Some(received) = received {
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let shown = shown.max(0.0) as u64;
        if let Ok(mut t) = app.inner.telemetry.lock() {
            t.push((id, shown.saturating_sub(received)));
        }
    }
    StatusCode::NO_CONTENT.into_response()
}
