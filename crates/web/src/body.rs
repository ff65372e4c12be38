//! The bodies of the page's POSTs, as typed values, and the extractor that reads them
//! ([`Body`]). A body that is not JSON, or JSON that does not fit its type (a field missing, of
//! the wrong type, an unknown `action`), is refused before any handler runs, with
//! `{"error": …}` naming the field: `400` for what is not JSON, `415` without a JSON content
//! type, `422` for JSON of the wrong shape.
//!
//! What it does not do: judge what the values mean (whether a request, call, view or server
//! exists, whether arguments fit a tool) — the handlers and the host do.

use axum::Json;
use axum::extract::{FromRequest, Request};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use interlude_host::schema::Content;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

/// A JSON request body read into `T`; anything that does not fit is answered with a status and
/// `{"error": …}` naming the field (see the module documentation).
#[derive(Debug)]
pub(crate) struct Body<T>(pub(crate) T);

impl<S, T> FromRequest<S> for Body<T>
where
    S: Send + Sync,
    T: DeserializeOwned,
{
    type Rejection = Response;

    async fn from_request(request: Request, state: &S) -> Result<Self, Response> {
        let Json(value) = Json::<Value>::from_request(request, state)
            .await
            .map_err(|rejection| refuse(rejection.status(), rejection.body_text()))?;
        serde_path_to_error::deserialize(value)
            .map(Body)
            .map_err(|e| refuse(StatusCode::UNPROCESSABLE_ENTITY, shape_error(&e)))
    }
}

/// The words for JSON that does not fit: the field first (`` `id`: invalid type: … ``); a field
/// that is missing is named by serde itself (``missing field `id` ``).
fn shape_error(error: &serde_path_to_error::Error<serde_json::Error>) -> String {
    let path = error.path().to_string();
    if path == "." {
        error.inner().to_string()
    } else {
        format!("`{path}`: {}", error.inner())
    }
}

fn refuse(status: StatusCode, message: String) -> Response {
    tracing::debug!(%status, "refused a request body: {message}");
    (status, Json(json!({ "error": message }))).into_response()
}

/// What the person did with a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Action {
    Accept,
    Decline,
    Cancel,
}

/// `POST /api/answer`: the person's answer to a request (`content` only for `accept`; none is
/// an empty answer).
#[derive(Debug, Deserialize)]
pub(crate) struct AnswerBody {
    pub(crate) id: u64,
    pub(crate) action: Action,
    #[serde(default)]
    pub(crate) content: Option<Content>,
}

/// `POST /api/validate`: what the person has filled in so far.
#[derive(Debug, Deserialize)]
pub(crate) struct ValidateBody {
    pub(crate) id: u64,
    #[serde(default)]
    pub(crate) content: Option<Content>,
}

/// `POST /api/call` and `/api/validate-arguments`: a tool and its arguments, as an object
/// (`arguments`; null or `{}` for none) or as the text the person typed (`json`, read by the
/// host, so that a parse error is worded like every other message; it wins over `arguments`).
#[derive(Debug, Deserialize)]
pub(crate) struct CallBody {
    pub(crate) server: String,
    pub(crate) tool: String,
    #[serde(default)]
    pub(crate) arguments: Option<Map<String, Value>>,
    #[serde(default)]
    pub(crate) json: Option<String>,
}

/// `POST /api/cancel`: a call in flight.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CancelBody {
    pub(crate) call_id: u64,
}

/// `POST /api/link-done` and `/api/plain-form`: a request, by id.
#[derive(Debug, Deserialize)]
pub(crate) struct RequestBody {
    pub(crate) id: u64,
}

/// `POST /api/resource`: read a server's resource; `POST /api/subscribe` and
/// `/api/unsubscribe`: subscribe to it, or no longer.
#[derive(Debug, Deserialize)]
pub(crate) struct ResourceBody {
    pub(crate) server: String,
    pub(crate) uri: String,
}

/// `POST /api/prompt`: get a server's prompt with its arguments (each a string, as the spec
/// has them).
#[derive(Debug, Deserialize)]
pub(crate) struct PromptBody {
    pub(crate) server: String,
    pub(crate) name: String,
    #[serde(default)]
    pub(crate) arguments: Option<std::collections::BTreeMap<String, String>>,
}

/// `POST /api/complete`: what a server suggests for a prompt's argument or a template's
/// variable; `params` is `completion/complete`'s (`ref`, `argument`, `context`).
#[derive(Debug, Deserialize)]
pub(crate) struct CompleteBody {
    pub(crate) server: String,
    pub(crate) params: rmcp::model::CompleteRequestParams,
}

/// `POST /api/log-level`: `logging/setLevel` for a server.
#[derive(Debug, Deserialize)]
pub(crate) struct LogLevelBody {
    pub(crate) server: String,
    pub(crate) level: String,
}

/// `POST /api/servers`: a server to add (a command line or an http(s) URL), under a name of the
/// person's choosing or the target's own.
#[derive(Debug, Deserialize)]
pub(crate) struct AddServerBody {
    pub(crate) target: String,
    #[serde(default)]
    pub(crate) name: Option<String>,
}

/// `POST /api/servers/retry` and `/remove`: a server, by name.
#[derive(Debug, Deserialize)]
pub(crate) struct ServerNameBody {
    pub(crate) name: String,
}

/// `POST /api/telemetry`: when the page showed a request (the page's clock, milliseconds since
/// the Unix epoch).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TelemetryBody {
    pub(crate) id: u64,
    pub(crate) shown_at_ms: f64,
}

/// `POST /api/views/{id}/message`: a message from an app view, relayed by the page; the host's
/// bridge reads it.
#[derive(Debug, Deserialize)]
pub(crate) struct ViewMessageBody {
    pub(crate) message: Value,
}

/// `POST /api/views/{id}/context`: the page's context for a view (theme, locale, time zone, …).
#[derive(Debug, Deserialize)]
pub(crate) struct ViewContextBody {
    pub(crate) changes: Map<String, Value>,
}

/// `POST /api/views/{id}/download`: the person's answer to a view's offer of files.
#[derive(Debug, Deserialize)]
pub(crate) struct ViewDownloadBody {
    pub(crate) question: u64,
    pub(crate) saved: bool,
}

/// `POST /api/views/{id}/tool`: the person calls a view's own tool (no arguments: none or null).
#[derive(Debug, Deserialize)]
pub(crate) struct ViewToolBody {
    pub(crate) name: String,
    #[serde(default)]
    pub(crate) arguments: Option<Map<String, Value>>,
}

/// `POST /api/views/{id}/mode`: the display mode the person picked (`inline`, `fullscreen` or
/// `pip`; the host's bridge judges it).
#[derive(Debug, Deserialize)]
pub(crate) struct ViewModeBody {
    pub(crate) mode: String,
}

#[cfg(test)]
mod tests {
    use axum::http::{Request, StatusCode, header};
    use serde_json::{Value, json};
    use tower::ServiceExt;

    use crate::{WebApp, WebOptions};

    const PORT: u16 = 4321;

    /// POSTs `body` (raw text) to `path` on the page's router, as the page would (with the run's
    /// token and a loopback `Host`, unless told otherwise); the status and the JSON answer.
    async fn post_as(
        app: &WebApp,
        path: &str,
        body: &str,
        token: Option<&str>,
        host: &str,
    ) -> (StatusCode, Value) {
        let mut request = Request::post(path)
            .header(header::HOST, host)
            .header(header::CONTENT_TYPE, "application/json");
        if let Some(token) = token {
            request = request.header("x-interlude-token", token);
        }
        let request = request
            .body(axum::body::Body::from(body.to_owned()))
            .unwrap();
        let response = crate::routes::router(app.clone(), PORT)
            .oneshot(request)
            .await
            .unwrap();
        let status = response.status();
        let bytes = axum::body::to_bytes(response.into_body(), 1 << 20)
            .await
            .unwrap();
        (
            status,
            serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        )
    }

    async fn post(app: &WebApp, path: &str, body: Value) -> (StatusCode, Value) {
        let host = format!("127.0.0.1:{PORT}");
        post_as(app, path, &body.to_string(), Some(app.token()), &host).await
    }

    /// The error of a refused body, which must name `field`.
    fn error_naming(answer: &Value, field: &str) -> String {
        let error = answer["error"].as_str().unwrap_or_default().to_owned();
        assert!(
            error.contains(&format!("`{field}`")),
            "the error does not name `{field}`: {answer}"
        );
        error
    }

    #[tokio::test]
    async fn a_missing_field_is_refused_by_name() {
        let app = WebApp::start(WebOptions::default());
        let (status, answer) = post(&app, "/api/answer", json!({"action": "accept"})).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{answer}");
        assert_eq!(error_naming(&answer, "id"), "missing field `id`");
        let (status, answer) = post(&app, "/api/servers/retry", json!({})).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{answer}");
        error_naming(&answer, "name");
        let (status, answer) = post(&app, "/api/call", json!({"server": "demo"})).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{answer}");
        error_naming(&answer, "tool");
    }

    #[tokio::test]
    async fn a_mistyped_field_is_refused_by_name() {
        let app = WebApp::start(WebOptions::default());
        let cases = [
            (
                "/api/answer",
                json!({"id": "seven", "action": "accept"}),
                "id",
            ),
            ("/api/answer", json!({"id": 7, "action": "maybe"}), "action"),
            (
                "/api/answer",
                json!({"id": 7, "action": "accept", "content": "yes"}),
                "content",
            ),
            ("/api/cancel", json!({"callId": -1}), "callId"),
            (
                "/api/views/1/download",
                json!({"question": 1, "saved": "yes"}),
                "saved",
            ),
            (
                "/api/views/1/tool",
                json!({"name": "refresh", "arguments": [1]}),
                "arguments",
            ),
            (
                "/api/telemetry",
                json!({"id": 1, "shownAtMs": "now"}),
                "shownAtMs",
            ),
        ];
        for (path, body, field) in cases {
            let (status, answer) = post(&app, path, body.clone()).await;
            assert_eq!(
                status,
                StatusCode::UNPROCESSABLE_ENTITY,
                "{path} {body}: {answer}"
            );
            let error = error_naming(&answer, field);
            assert!(
                error.starts_with(&format!("`{field}`: ")),
                "{path}: {error}"
            );
        }
    }

    #[tokio::test]
    async fn what_is_not_json_is_refused_with_an_error() {
        let app = WebApp::start(WebOptions::default());
        let host = format!("127.0.0.1:{PORT}");
        let (status, answer) =
            post_as(&app, "/api/answer", "{id: 1", Some(app.token()), &host).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{answer}");
        assert!(
            answer["error"].as_str().is_some_and(|e| !e.is_empty()),
            "{answer}"
        );
    }

    #[tokio::test]
    async fn the_token_and_the_host_are_checked_before_the_body() {
        let app = WebApp::start(WebOptions::default());
        let host = format!("127.0.0.1:{PORT}");
        let (status, _) = post_as(&app, "/api/answer", "{}", None, &host).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
        let (status, _) = post_as(&app, "/api/answer", "{}", Some("wrong"), &host).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
        let (status, _) = post_as(
            &app,
            "/api/answer",
            "{}",
            Some(app.token()),
            "evil.example:4321",
        )
        .await;
        assert_eq!(status, StatusCode::FORBIDDEN);
    }

    #[tokio::test]
    async fn a_body_that_fits_reaches_its_handler() {
        let app = WebApp::start(WebOptions::default());
        // Optional fields may be left out; the handler answers for what it knows.
        let (status, answer) = post(&app, "/api/cancel", json!({"callId": 99})).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{answer}");
        assert_eq!(answer["error"], "no such call in flight");
        let (status, answer) = post(
            &app,
            "/api/validate-arguments",
            json!({"server": "nowhere", "tool": "t"}),
        )
        .await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{answer}");
        let (status, _) = post(&app, "/api/answer", json!({"id": 5, "action": "decline"})).await;
        assert_eq!(status, StatusCode::ACCEPTED);
    }
}
