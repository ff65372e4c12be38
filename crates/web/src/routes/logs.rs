//! The routes of a server's logs: its protocol log (the messages the host keeps of it) and its
//! network log (its HTTP exchanges, secrets redacted by the host).
//!
//! Not here: keeping or redacting the logs (the host does both); the page only reads them.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::WebApp;

#[derive(serde::Deserialize)]
pub(super) struct LogQuery {
    /// The server's configured name.
    server: String,
    /// Only the messages after this sequence number (the last one the page has).
    #[serde(default)]
    after: u64,
}

/// A server's protocol log (`GET /api/log?server=<name>`): the messages the host keeps of it,
/// oldest first, each with its time, direction, latency and (for an app view's traffic) view.
pub(super) async fn protocol_log(
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
pub(super) struct NetworkQuery {
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
pub(super) async fn network_log(
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
