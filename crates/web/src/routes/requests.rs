//! The routes of requests for a person: an answer, inline validation with the engine's rules, a
//! URL request's link done, the host's own form in place of an app view, and when a request was
//! shown (telemetry).
//!
//! Not here: the engine's decisions (the answer is checked again there before anything leaves),
//! tool calls (`calls.rs`).

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use interlude_host::{Answer, RequestId, RequestKind, schema::Content};
use serde_json::{Value, json};

use crate::WebApp;
use crate::body::{Action, AnswerBody, Body, RequestBody, TelemetryBody, ValidateBody};

pub(super) async fn answer(State(app): State<WebApp>, Body(body): Body<AnswerBody>) -> Response {
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
pub(super) async fn validate(
    State(app): State<WebApp>,
    Body(body): Body<ValidateBody>,
) -> Response {
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

/// The person is done in the browser with a URL request's link (`{"id": n}`): the host stops
/// waiting for the server's word (a call that needed the link is retried now).
pub(super) async fn link_done(
    State(app): State<WebApp>,
    Body(body): Body<RequestBody>,
) -> Response {
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

pub(super) async fn plain_form(
    State(app): State<WebApp>,
    Body(body): Body<RequestBody>,
) -> Response {
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

pub(super) async fn telemetry(
    State(app): State<WebApp>,
    Body(body): Body<TelemetryBody>,
) -> Response {
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
