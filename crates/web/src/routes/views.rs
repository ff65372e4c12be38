//! The routes of app views: the page relays a view's messages and context, the person's answers
//! to its offers of files, its tool calls, display modes, closing, and showing its web page.
//!
//! Not here: the views' bridge (the host's), the sandbox origin that serves them (`sandbox.rs`),
//! the token and origin checks (`routes.rs`, applied to every route).

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::bad_request;
use crate::WebApp;
use crate::body::{
    Body, ViewContextBody, ViewDownloadBody, ViewMessageBody, ViewModeBody, ViewToolBody,
};

/// A view's id from the path.
fn view_id(id: &str) -> Option<interlude_host::ViewId> {
    id.parse().ok().map(interlude_host::ViewId)
}

/// A message from an app view, relayed by the page (`{"message": …}`): the host's bridge reads it.
pub(super) async fn view_message(
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
pub(super) async fn view_context(
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
pub(super) async fn view_download_files(
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
pub(super) async fn view_download(
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
pub(super) async fn view_tool(
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
pub(super) async fn view_mode(
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
pub(super) async fn view_close(
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
pub(super) async fn view_site(
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
