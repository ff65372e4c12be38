//! The routes of tool calls: checking a call's arguments against the tool's `inputSchema`,
//! making the call, and cancelling one in flight.
//!
//! Not here: the check itself (the host's, the one `WebApp::call_tool` applies again), what a
//! call asks of the person (`requests.rs`).

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use interlude_host::ArgumentError;
use serde_json::{Value, json};

use super::bad_request;
use crate::body::{Body, CallBody, CancelBody};
use crate::{CallError, WebApp};

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
pub(super) async fn validate_arguments(
    State(app): State<WebApp>,
    Body(body): Body<CallBody>,
) -> Response {
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
pub(super) async fn call(State(app): State<WebApp>, Body(body): Body<CallBody>) -> Response {
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
pub(super) async fn cancel(State(app): State<WebApp>, Body(body): Body<CancelBody>) -> Response {
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
