//! The routes the page reads: its state, the event stream that carries every change (and the
//! app views' messages), and the session's recording to download.
//!
//! Not here: the projection itself (`state.rs`), a server's protocol and network logs
//! (`logs.rs`).

use std::convert::Infallible;
use std::time::Duration;

use axum::Json;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures::Stream;
use serde_json::json;

use crate::WebApp;

pub(super) async fn state(State(app): State<WebApp>) -> Response {
    Json(app.page_state()).into_response()
}

/// `GET /api/recording`: the finished calls the host keeps, with what their servers asked and
/// what the person answered, as a recording `interlude replay` makes again (404 when the page
/// was started without [`WebOptions::export`](crate::WebOptions::export)).
pub(super) async fn recording(State(app): State<WebApp>) -> Response {
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

pub(super) async fn events(
    State(app): State<WebApp>,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
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
