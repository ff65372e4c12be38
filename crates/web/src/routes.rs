//! HTTP routes of the page, the one security layer (CSP and friends), the `Host` check and the
//! token check. Request bodies are read at the boundary into typed values (`body.rs`: each POST's
//! body type and the [`Body`] extractor); a malformed one is refused before its handler runs, with
//! `{"error": …}` naming the field.

use std::convert::Infallible;
use std::time::Duration;

use axum::Json;
use axum::Router;
use axum::extract::{Query, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
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
use crate::body::{
    Action, AddServerBody, AnswerBody, Body, CallBody, CancelBody, CompleteBody, LogLevelBody,
    PromptBody, RequestBody, ResourceBody, ServerNameBody, TelemetryBody, ValidateBody,
    ViewContextBody, ViewDownloadBody, ViewMessageBody, ViewModeBody, ViewToolBody,
};
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
        .route("/api/recording", get(recording))
        .route("/api/network", get(network_log))
        .route("/api/log-level", post(log_level))
        .route("/api/catalog", post(catalog))
        .route("/api/resource", post(read_resource))
        .route("/api/prompt", post(get_prompt))
        .route("/api/subscribe", post(subscribe))
        .route("/api/unsubscribe", post(unsubscribe))
        .route("/api/complete", post(complete))
        .route("/api/servers", post(add_server))
        .route("/api/servers/retry", post(retry_server))
        .route("/api/servers/remove", post(remove_server))
        .route("/api/servers/disconnect", post(disconnect_server))
        .route("/api/telemetry", post(telemetry))
        .route("/api/views/{id}/message", post(view_message))
        .route("/api/views/{id}/context", post(view_context))
        .route("/api/views/{id}/close", post(view_close))
        .route("/api/views/{id}/site", post(view_site))
        .route(
            "/api/views/{id}/downloads/{question}",
            get(view_download_files),
        )
        .route("/api/views/{id}/download", post(view_download))
        .route("/api/views/{id}/tool", post(view_tool))
        .route("/api/views/{id}/mode", post(view_mode))
        .route_layer(middleware::from_fn_with_state(
            (app.clone(), port),
            require_token,
        ));
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

/// Every API call carries the run's token in `x-interlude-token`; only the event stream, which
/// an `EventSource` opens without headers, may carry it as `?token=` (a token in the query of
/// any other route — a form or `text/plain` POST, say — is not accepted). A call that changes
/// something must also come from the page itself: an `Origin` or `Sec-Fetch-Site` that names
/// another site is refused, whatever it carries.
async fn require_token(
    State((app, port)): State<(WebApp, u16)>,
    Query(q): Query<TokenQuery>,
    headers: HeaderMap,
    request: Request,
    next: Next,
) -> Response {
    let from_header = headers
        .get("x-interlude-token")
        .and_then(|h| h.to_str().ok())
        .map(str::to_owned);
    let stream = request.method() == Method::GET && request.uri().path() == "/api/events";
    let given = from_header.or(if stream { q.token } else { None });
    if given.as_deref() != Some(app.inner.token.as_str()) {
        return (StatusCode::UNAUTHORIZED, "missing or wrong token").into_response();
    }
    if request.method() != Method::GET
        && let Some(why) = foreign(&headers, port)
    {
        return (StatusCode::FORBIDDEN, why).into_response();
    }
    next.run(request).await
}

/// Why a state-changing call is not the page's own, if it is not: its `Origin` is another
/// site's (or `null`), or the browser says it comes from another site.
fn foreign(headers: &HeaderMap, port: u16) -> Option<&'static str> {
    if let Some(origin) = headers.get(header::ORIGIN) {
        let ours = ["127.0.0.1", "localhost", "[::1]"]
            .iter()
            .any(|host| origin.as_bytes() == format!("http://{host}:{port}").as_bytes());
        if !ours {
            return Some("not the page's origin");
        }
    }
    match headers.get("sec-fetch-site").and_then(|v| v.to_str().ok()) {
        None | Some("same-origin" | "none") => None,
        Some(_) => Some("a request from another site"),
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

/// `GET /api/recording`: the finished calls the host keeps, with what their servers asked and
/// what the person answered, as a recording `interlude replay` makes again (404 when the page
/// was started without [`WebOptions::export`](crate::WebOptions::export)).
async fn recording(State(app): State<WebApp>) -> Response {
    let Some(export) = app.inner.export else {
        return (StatusCode::NOT_FOUND, "this page has no session export").into_response();
    };
    let recording = export(&app.host().snapshot());
    (
        [
            (header::CONTENT_TYPE, "application/json"),
            (
                header::CONTENT_DISPOSITION,
                "attachment; filename=\"interlude-session.json\"",
            ),
        ],
        recording,
    )
        .into_response()
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
    Body(body): Body<ViewMessageBody>,
) -> Response {
    let Some(view) = view_id(&id) else {
        return bad_request("the path must name a view id");
    };
    if app.inner.host.view(view).is_none() {
        return (
            StatusCode::NOT_FOUND,
            Json(json!({"error": "no such view"})),
        )
            .into_response();
    }
    app.inner.host.view_message(view, body.message);
    StatusCode::ACCEPTED.into_response()
}

/// The page's context for a view (`{"changes": {theme, locale, timeZone, …}}`).
async fn view_context(
    State(app): State<WebApp>,
    axum::extract::Path(id): axum::extract::Path<String>,
    Body(body): Body<ViewContextBody>,
) -> Response {
    let Some(view) = view_id(&id) else {
        return bad_request("the path must name a view id");
    };
    app.inner.host.view_context(view, body.changes);
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
    Body(body): Body<ViewDownloadBody>,
) -> Response {
    let Some(view) = view_id(&id) else {
        return bad_request("the path must name a view id");
    };
    app.inner
        .host
        .answer_download(view, body.question, body.saved);
    StatusCode::ACCEPTED.into_response()
}

/// The person calls a view's own tool (`{"name": …, "arguments": {…}}`), in a model's place.
async fn view_tool(
    State(app): State<WebApp>,
    axum::extract::Path(id): axum::extract::Path<String>,
    Body(body): Body<ViewToolBody>,
) -> Response {
    let Some(view) = view_id(&id) else {
        return bad_request("the path must name a view id");
    };
    let arguments = body.arguments.unwrap_or_default();
    app.inner.host.call_view_tool(view, &body.name, arguments);
    StatusCode::ACCEPTED.into_response()
}

/// The person puts a view in a display mode from the page's controls (`{"mode": "inline"}`).
async fn view_mode(
    State(app): State<WebApp>,
    axum::extract::Path(id): axum::extract::Path<String>,
    Body(body): Body<ViewModeBody>,
) -> Response {
    let Some(view) = view_id(&id) else {
        return bad_request("the path must name a view id");
    };
    app.inner.host.view_display_mode(view, &body.mode);
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

/// The person chose to show the web page an embedded view carries, framed.
async fn view_site(
    State(app): State<WebApp>,
    axum::extract::Path(id): axum::extract::Path<String>,
) -> Response {
    let Some(view) = view_id(&id) else {
        return bad_request("the path must name a view id");
    };
    let has_site = app.inner.host.view(view).is_some_and(|v| v.site.is_some());
    if !has_site {
        return bad_request("`id`: this view shows no web page");
    }
    app.inner.host.show_site(view);
    StatusCode::ACCEPTED.into_response()
}

async fn answer(State(app): State<WebApp>, Body(body): Body<AnswerBody>) -> Response {
    let answer = match body.action {
        Action::Accept => Answer::Accepted(body.content.unwrap_or_default()),
        Action::Decline => Answer::Declined,
        Action::Cancel => Answer::Cancelled,
    };
    app.inner
        .host
        .answer_sink()
        .answer(RequestId(body.id), answer);
    StatusCode::ACCEPTED.into_response()
}

/// Inline validation with the engine's own rules (after defaults, as the engine does).
async fn validate(State(app): State<WebApp>, Body(body): Body<ValidateBody>) -> Response {
    let mut content: Content = body.content.unwrap_or_default();
    let pending = app
        .inner
        .host
        .request(RequestId(body.id))
        .filter(|r| r.status.is_pending());
    let Some(schema) = pending.map(|r| match &r.request.kind {
        RequestKind::Form(form) => Some(form.schema.clone()),
        RequestKind::AppForm(app) => Some(app.form.schema.clone()),
        // Consent to open a link carries no content, and a reply is judged when sent: nothing
        // to check field by field.
        RequestKind::Url(_) | RequestKind::ViewLink(_) | RequestKind::Sampling(_) => None,
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

/// A tool call's arguments from the page: `json`, the text the person typed in the form's JSON
/// editor — read here, so that a parse error is worded like every other message — or else
/// `arguments` (an object; null or `{}` for none). `Err` is text that is not a JSON object.
fn tool_arguments(body: CallBody) -> Typed {
    if let Some(text) = body.json {
        return interlude_host::parse_arguments(&text)
            .map(|o| if o.is_empty() { None } else { Some(o) });
    }
    Ok(body.arguments.filter(|o| !o.is_empty()))
}

/// The page's tool form asks whether its arguments fit the tool's `inputSchema`
/// (`{server, tool, arguments | json}` → `{errors: [{pointer, field, message}]}`): the host's
/// own check, the one `/api/call` applies again.
async fn validate_arguments(State(app): State<WebApp>, Body(body): Body<CallBody>) -> Response {
    let (server, tool) = (body.server.clone(), body.tool.clone());
    let arguments = match tool_arguments(body) {
        Err(unreadable) => return Json(json!({ "errors": [unreadable] })).into_response(),
        Ok(a) => a,
    };
    let Some(record) = app.inner.host.live_server_named(&server) else {
        return (
            StatusCode::NOT_FOUND,
            Json(json!({"error": format!("no connected server named `{server}`")})),
        )
            .into_response();
    };
    let errors = record
        .check_arguments(&tool, arguments.as_ref())
        .err()
        .unwrap_or_default();
    Json(json!({ "errors": errors })).into_response()
}

/// Calls a tool (`{server, tool, arguments | json}`); arguments that do not fit its
/// `inputSchema` are refused with the reasons (`400 {error, errors}`), and no call is made.
async fn call(State(app): State<WebApp>, Body(body): Body<CallBody>) -> Response {
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
    let (server, tool) = (body.server.clone(), body.tool.clone());
    let arguments = match tool_arguments(body) {
        Err(unreadable) => return refused(vec![unreadable]),
        Ok(a) => a,
    };
    match app.call_tool(&server, &tool, arguments).await {
        Ok(id) => (StatusCode::ACCEPTED, Json(json!({ "callId": id }))).into_response(),
        Err(CallError::InvalidArguments { errors }) => refused(errors),
        Err(e) => bad_request(e.to_string()),
    }
}

/// Cancels a call in flight (`{"callId": n}`): the server is told, its requests are withdrawn.
async fn cancel(State(app): State<WebApp>, Body(body): Body<CancelBody>) -> Response {
    if app
        .inner
        .host
        .cancel_call(interlude_host::CallId(body.call_id))
    {
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
async fn log_level(State(app): State<WebApp>, Body(body): Body<LogLevelBody>) -> Response {
    let LogLevelBody { server, level } = body;
    let Some(conn) = app.inner.host.connection_named(&server) else {
        return no_server(&server);
    };
    match conn.set_log_level(&level).await {
        Ok(()) => StatusCode::NO_CONTENT.into_response(),
        Err(interlude_host::HostError::Invalid { reason }) => bad_request(reason),
        Err(e) => (
            StatusCode::BAD_GATEWAY,
            Json(json!({"error": format!("the server refused: {e}")})),
        )
            .into_response(),
    }
}

/// The page's 404 for a server name with no live connection.
fn no_server(name: &str) -> Response {
    (
        StatusCode::NOT_FOUND,
        Json(json!({"error": format!("no connected server named {name}")})),
    )
        .into_response()
}

/// A request to a server failed: `502`, with the host's sentence.
fn server_failed(e: &interlude_host::HostError) -> Response {
    (
        StatusCode::BAD_GATEWAY,
        Json(json!({"error": e.to_string()})),
    )
        .into_response()
}

/// `{"server": name}`: what the server offers besides tools — its resources, resource
/// templates and prompts (each list empty when not declared; a list the server could not give
/// is empty with its error beside it).
async fn catalog(State(app): State<WebApp>, Body(body): Body<ServerNameBody>) -> Response {
    let Some(conn) = app.inner.host.connection_named(&body.name) else {
        return no_server(&body.name);
    };
    let (resources, templates, prompts, tasks) = tokio::join!(
        conn.list_resources(),
        conn.list_resource_templates(),
        conn.list_prompts(),
        conn.list_tasks()
    );
    let mut errors = serde_json::Map::new();
    let mut listed = |what: &str, list: Result<Value, interlude_host::HostError>| match list {
        Ok(v) => v,
        Err(e) => {
            errors.insert(what.to_owned(), e.to_string().into());
            Value::Array(Vec::new())
        }
    };
    let resources = listed(
        "resources",
        resources.map(|r| serde_json::to_value(r).unwrap_or_default()),
    );
    let templates = listed(
        "templates",
        templates.map(|t| serde_json::to_value(t).unwrap_or_default()),
    );
    let prompts = listed(
        "prompts",
        prompts.map(|p| serde_json::to_value(p).unwrap_or_default()),
    );
    // `null` when the server offers no task list (2026-07-28, or no `tasks/list`).
    let tasks = match tasks {
        Ok(Some(list)) => serde_json::to_value(list).unwrap_or_default(),
        Ok(None) => Value::Null,
        Err(e) => {
            errors.insert("tasks".to_owned(), e.to_string().into());
            Value::Array(Vec::new())
        }
    };
    Json(json!({
        "resources": resources,
        "templates": templates,
        "prompts": prompts,
        "tasks": tasks,
        "errors": errors,
    }))
    .into_response()
}

/// `{"server", "uri"}`: the resource's contents, as the server sent them.
async fn read_resource(State(app): State<WebApp>, Body(body): Body<ResourceBody>) -> Response {
    let Some(conn) = app.inner.host.connection_named(&body.server) else {
        return no_server(&body.server);
    };
    match conn.read_resource(&body.uri).await {
        Ok(read) => Json(read).into_response(),
        Err(e) => server_failed(&e),
    }
}

/// `{"server", "uri"}`: subscribe to the resource (the page's state lists it among the server's
/// subscriptions from then on, with its updates); `409` with the host's sentence when the
/// server offers no subscriptions.
async fn subscribe(State(app): State<WebApp>, Body(body): Body<ResourceBody>) -> Response {
    let Some(conn) = app.inner.host.connection_named(&body.server) else {
        return no_server(&body.server);
    };
    subscription_answer(conn.subscribe(&body.uri).await)
}

/// `{"server", "uri"}`: unsubscribe from the resource.
async fn unsubscribe(State(app): State<WebApp>, Body(body): Body<ResourceBody>) -> Response {
    let Some(conn) = app.inner.host.connection_named(&body.server) else {
        return no_server(&body.server);
    };
    subscription_answer(conn.unsubscribe(&body.uri).await)
}

fn subscription_answer(done: Result<(), interlude_host::HostError>) -> Response {
    match done {
        Ok(()) => StatusCode::NO_CONTENT.into_response(),
        Err(e @ interlude_host::HostError::NotOffered { .. }) => {
            (StatusCode::CONFLICT, Json(json!({"error": e.to_string()}))).into_response()
        }
        Err(e) => server_failed(&e),
    }
}

/// `{"server", "params"}`: the server's suggestions (`values`, `total`, `hasMore`); none from
/// a server that declares no completions.
async fn complete(State(app): State<WebApp>, Body(body): Body<CompleteBody>) -> Response {
    let Some(conn) = app.inner.host.connection_named(&body.server) else {
        return no_server(&body.server);
    };
    match conn.complete(body.params).await {
        Ok(completion) => Json(completion).into_response(),
        Err(e) => server_failed(&e),
    }
}

/// `{"server", "name", "arguments"}`: the prompt's messages, as the server sent them.
async fn get_prompt(State(app): State<WebApp>, Body(body): Body<PromptBody>) -> Response {
    let Some(conn) = app.inner.host.connection_named(&body.server) else {
        return no_server(&body.server);
    };
    let arguments = body.arguments.map(|args| {
        args.into_iter()
            .map(|(k, v)| (k, Value::String(v)))
            .collect::<serde_json::Map<_, _>>()
    });
    match conn.get_prompt(&body.name, arguments).await {
        Ok(prompt) => Json(prompt).into_response(),
        Err(e) => server_failed(&e),
    }
}

/// The person is done in the browser with a URL request's link (`{"id": n}`): the host stops
/// waiting for the server's word (a call that needed the link is retried now).
async fn link_done(State(app): State<WebApp>, Body(body): Body<RequestBody>) -> Response {
    if app.inner.host.link_done(RequestId(body.id)) {
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
    let Some(server) = server_named(&app, &q.server) else {
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
    // `startedAtMs`: when `t_ms` 0 was, so the page shows clock times as its cards do.
    let started = host.protocol_log_epoch_ms();
    Json(json!({ "serverId": server.id.0, "startedAtMs": started, "messages": messages }))
        .into_response()
}

/// Which server's network log the page asks for (`GET /api/network?server=<name>`).
#[derive(serde::Deserialize)]
struct NetworkQuery {
    /// The server's configured name.
    server: String,
}

/// A server's network log as the page reads it.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct NetworkAnswer {
    /// The server's id (a server added again under the same name has a log of its own).
    server_id: u64,
    /// When `t_ms` 0 was, in milliseconds since the Unix epoch (the protocol log's clock).
    started_at_ms: u64,
    /// Why there are no exchanges to show (`stdio: no HTTP exchanges`), for a server not
    /// reached over HTTP.
    #[serde(skip_serializing_if = "Option::is_none")]
    unavailable: Option<String>,
    /// Its HTTP exchanges, oldest first, secrets redacted by the host.
    exchanges: Vec<interlude_host::HttpExchange>,
}

/// The server named `name`: its live record, else the last one of that name.
fn server_named(app: &WebApp, name: &str) -> Option<std::sync::Arc<interlude_host::ServerRecord>> {
    let host = &app.inner.host;
    host.live_server_named(name).or_else(|| {
        let snapshot = host.snapshot();
        snapshot
            .servers
            .iter()
            .rev()
            .find(|s| s.name == name)
            .cloned()
    })
}

/// A server's HTTP exchanges (`GET /api/network?server=<name>`): method, path, status,
/// headers (secrets redacted), timing, sizes and the messages each carried, with their rows in
/// the protocol log. A stdio server has none, and the answer says so.
async fn network_log(
    State(app): State<WebApp>,
    axum::extract::Query(q): axum::extract::Query<NetworkQuery>,
) -> Response {
    let Some(server) = server_named(&app, &q.server) else {
        return (
            StatusCode::NOT_FOUND,
            Json(json!({"error": format!("no server named {}", q.server)})),
        )
            .into_response();
    };
    let host = &app.inner.host;
    let (exchanges, unavailable) = match host.network_log(server.id) {
        Ok(exchanges) => (exchanges, None),
        Err(why) => (Vec::new(), Some(why.to_string())),
    };
    Json(NetworkAnswer {
        server_id: server.id.0,
        started_at_ms: host.protocol_log_epoch_ms(),
        unavailable,
        exchanges,
    })
    .into_response()
}

async fn plain_form(State(app): State<WebApp>, Body(body): Body<RequestBody>) -> Response {
    if app
        .inner
        .host
        .show_plain_form(RequestId(body.id), "you asked for the host's own form")
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

async fn add_server(State(app): State<WebApp>, Body(body): Body<AddServerBody>) -> Response {
    let spec = match ServerSpec::parse(&body.target) {
        Ok(s) => s,
        Err(e) => return bad_request(format!("`target`: {e}")),
    };
    let name = body
        .name
        .as_deref()
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
async fn retry_server(State(app): State<WebApp>, Body(body): Body<ServerNameBody>) -> Response {
    let name = body.name;
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
    let host = app.inner.host.clone();
    tokio::spawn(async move {
        if let Err(e) = host.retry(&name).await {
            tracing::warn!(server = %name, "retrying did not connect: {e}");
        }
    });
    StatusCode::ACCEPTED.into_response()
}

/// Disconnects a live server (`{"name": …}`): its calls end, its requests close, it stays on
/// the page as closed, and Retry connects it again.
async fn disconnect_server(
    State(app): State<WebApp>,
    Body(body): Body<ServerNameBody>,
) -> Response {
    let name = body.name;
    let Some(conn) = app.inner.host.connection_named(&name) else {
        return bad_request(format!("`name`: no connected server named `{name}`"));
    };
    tokio::spawn(async move { conn.close().await });
    StatusCode::ACCEPTED.into_response()
}

/// Takes a failed or closed server off the page (`{"name": …}`).
async fn remove_server(State(app): State<WebApp>, Body(body): Body<ServerNameBody>) -> Response {
    let name = body.name;
    if app.inner.host.remove_server(&name) {
        StatusCode::NO_CONTENT.into_response()
    } else {
        bad_request(format!("`name`: no failed or closed server named `{name}`"))
    }
}

async fn telemetry(State(app): State<WebApp>, Body(body): Body<TelemetryBody>) -> Response {
    let TelemetryBody { id, shown_at_ms } = body;
    let received = app
        .inner
        .host
        .request(RequestId(id))
        .map(|r| r.received_at_ms);
    if let Some(received) = received {
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let shown = shown_at_ms.max(0.0) as u64;
        if let Ok(mut t) = app.inner.telemetry.lock() {
            t.push((id, shown.saturating_sub(received)));
        }
    }
    StatusCode::NO_CONTENT.into_response()
}

#[cfg(test)]
mod tests {
    use axum::http::{Request, StatusCode, header};
    use tower::ServiceExt;

    use crate::{WebApp, WebOptions};

    const PORT: u16 = 4321;

    /// Sends `method path` to the page's router with a loopback `Host` and the extra `headers`;
    /// the status.
    async fn send(app: &WebApp, method: &str, path: &str, headers: &[(&str, &str)]) -> StatusCode {
        let mut request = Request::builder()
            .method(method)
            .uri(path)
            .header(header::HOST, format!("127.0.0.1:{PORT}"))
            .header(header::CONTENT_TYPE, "application/json");
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let body = if method == "POST" { "{}" } else { "" };
        let request = request.body(axum::body::Body::from(body)).unwrap();
        crate::routes::router(app.clone(), PORT)
            .oneshot(request)
            .await
            .unwrap()
            .status()
    }

    #[tokio::test]
    async fn the_query_token_opens_the_event_stream_only() {
        let app = WebApp::start(WebOptions::default());
        let query = format!("token={}", app.token());
        // A form or `text/plain` POST can carry a query, never a header: refused.
        for path in ["/api/cancel", "/api/servers/remove", "/api/answer"] {
            let status = send(&app, "POST", &format!("{path}?{query}"), &[]).await;
            assert_eq!(status, StatusCode::UNAUTHORIZED, "{path}");
        }
        for path in ["/api/state", "/api/log?server=x", "/api/network?server=x"] {
            let sep = if path.contains('?') { '&' } else { '?' };
            let status = send(&app, "GET", &format!("{path}{sep}{query}"), &[]).await;
            assert_eq!(status, StatusCode::UNAUTHORIZED, "{path}");
        }
        // With the token in its header: read (no such server here).
        let status = send(
            &app,
            "GET",
            "/api/network?server=x",
            &[("x-interlude-token", app.token())],
        )
        .await;
        assert_eq!(status, StatusCode::NOT_FOUND, "/api/network");
        let status = send(&app, "GET", &format!("/api/events?{query}"), &[]).await;
        assert_eq!(status, StatusCode::OK, "the event stream");
        let status = send(
            &app,
            "GET",
            "/api/state",
            &[("x-interlude-token", app.token())],
        )
        .await;
        assert_eq!(status, StatusCode::OK);
    }

    #[tokio::test]
    async fn a_call_that_changes_something_must_come_from_the_page() {
        let app = WebApp::start(WebOptions::default());
        let token = ("x-interlude-token", app.token());
        let ours = format!("http://127.0.0.1:{PORT}");
        let refused = [
            vec![token, ("origin", "null")],
            vec![token, ("origin", "http://evil.example")],
            vec![token, ("origin", "http://127.0.0.1:9")],
            vec![token, ("sec-fetch-site", "cross-site")],
            vec![token, ("sec-fetch-site", "same-site")],
            vec![
                token,
                ("origin", ours.as_str()),
                ("sec-fetch-site", "cross-site"),
            ],
        ];
        for headers in refused {
            let status = send(&app, "POST", "/api/link-done", &headers).await;
            assert_eq!(status, StatusCode::FORBIDDEN, "{headers:?}");
        }
        // The page's own (a browser), and a client that is no browser (no Origin at all).
        for headers in [
            vec![
                token,
                ("origin", ours.as_str()),
                ("sec-fetch-site", "same-origin"),
            ],
            vec![token, ("origin", "http://localhost:4321")],
            vec![token],
        ] {
            let status = send(&app, "POST", "/api/link-done", &headers).await;
            assert_ne!(status, StatusCode::FORBIDDEN, "{headers:?}");
            assert_ne!(status, StatusCode::UNAUTHORIZED, "{headers:?}");
        }
        // Reading is not changing: a foreign origin's GET still needs the token, and gets no
        // more than it (CORS keeps the answer from a foreign page).
        let status = send(&app, "GET", "/api/state", &[token, ("origin", "null")]).await;
        assert_eq!(status, StatusCode::OK);
    }
}
