//! The routes of servers: adding, retrying, disconnecting and removing one, and what a connected
//! server offers besides tools (its catalog, resources and subscriptions, prompts, completions,
//! and its log level).
//!
//! Not here: transports and connection state (the host's), a server's logs (`logs.rs`).

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use interlude_host::ServerSpec;
use serde_json::{Value, json};

use super::{bad_request, no_server, server_failed};
use crate::WebApp;
use crate::body::{
    AddServerBody, Body, CompleteBody, LogLevelBody, PromptBody, ResourceBody, ServerNameBody,
};

/// Asks a server to log from a level up (`{"server": name, "level": "debug"}`:
/// `logging/setLevel`); what it logs shows in its protocol pane.
pub(super) async fn log_level(
    State(app): State<WebApp>,
    Body(body): Body<LogLevelBody>,
) -> Response {
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

/// `{"server": name}`: what the server offers besides tools — its resources, resource
/// templates and prompts (each list empty when not declared; a list the server could not give
/// is empty with its error beside it).
pub(super) async fn catalog(
    State(app): State<WebApp>,
    Body(body): Body<ServerNameBody>,
) -> Response {
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
pub(super) async fn read_resource(
    State(app): State<WebApp>,
    Body(body): Body<ResourceBody>,
) -> Response {
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
pub(super) async fn subscribe(
    State(app): State<WebApp>,
    Body(body): Body<ResourceBody>,
) -> Response {
    let Some(conn) = app.inner.host.connection_named(&body.server) else {
        return no_server(&body.server);
    };
    subscription_answer(conn.subscribe(&body.uri).await)
}

/// `{"server", "uri"}`: unsubscribe from the resource.
pub(super) async fn unsubscribe(
    State(app): State<WebApp>,
    Body(body): Body<ResourceBody>,
) -> Response {
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
pub(super) async fn complete(
    State(app): State<WebApp>,
    Body(body): Body<CompleteBody>,
) -> Response {
    let Some(conn) = app.inner.host.connection_named(&body.server) else {
        return no_server(&body.server);
    };
    match conn.complete(body.params).await {
        Ok(completion) => Json(completion).into_response(),
        Err(e) => server_failed(&e),
    }
}

/// `{"server", "name", "arguments"}`: the prompt's messages, as the server sent them.
pub(super) async fn get_prompt(
    State(app): State<WebApp>,
    Body(body): Body<PromptBody>,
) -> Response {
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

pub(super) async fn add_server(
    State(app): State<WebApp>,
    Body(body): Body<AddServerBody>,
) -> Response {
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
pub(super) async fn retry_server(
    State(app): State<WebApp>,
    Body(body): Body<ServerNameBody>,
) -> Response {
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
pub(super) async fn disconnect_server(
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
pub(super) async fn remove_server(
    State(app): State<WebApp>,
    Body(body): Body<ServerNameBody>,
) -> Response {
    let name = body.name;
    if app.inner.host.remove_server(&name) {
        StatusCode::NO_CONTENT.into_response()
    } else {
        bad_request(format!("`name`: no failed or closed server named `{name}`"))
    }
}
