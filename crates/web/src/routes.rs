//! HTTP routes of the page, the one security layer (CSP and friends), the `Host` check and the
//! token check. Request bodies are read at the boundary into typed values (`body.rs`: each POST's
//! body type and the [`Body`] extractor); a malformed one is refused before its handler runs, with
//! `{"error": …}` naming the field.
//!
//! This file holds the router and the checks every route passes; the handlers live by area in
//! `routes/`: `page.rs` (state, events, recording), `requests.rs` (answers, validation),
//! `calls.rs` (tool calls), `servers.rs` (servers and what they offer), `logs.rs` (protocol and
//! network logs), `views.rs` (app views). Not here: the page's state (`state.rs`), the sandbox
//! origin of app views (`sandbox.rs`), any decision of the host or the engine.
//!
//! [`Body`]: crate::body::Body

mod calls;
mod logs;
mod page;
mod requests;
mod servers;
mod views;

use axum::Json;
use axum::Router;
use axum::extract::{Query, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Deserialize;
use serde_json::json;
use tower_http::set_header::SetResponseHeaderLayer;

use crate::WebApp;
use crate::assets;

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
        .route("/api/state", get(page::state))
        .route("/api/events", get(page::events))
        .route("/api/answer", post(requests::answer))
        .route("/api/validate", post(requests::validate))
        .route("/api/call", post(calls::call))
        .route("/api/validate-arguments", post(calls::validate_arguments))
        .route("/api/cancel", post(calls::cancel))
        .route("/api/link-done", post(requests::link_done))
        .route("/api/plain-form", post(requests::plain_form))
        .route("/api/log", get(logs::protocol_log))
        .route("/api/recording", get(page::recording))
        .route("/api/network", get(logs::network_log))
        .route("/api/log-level", post(servers::log_level))
        .route("/api/catalog", post(servers::catalog))
        .route("/api/resource", post(servers::read_resource))
        .route("/api/prompt", post(servers::get_prompt))
        .route("/api/subscribe", post(servers::subscribe))
        .route("/api/unsubscribe", post(servers::unsubscribe))
        .route("/api/complete", post(servers::complete))
        .route("/api/servers", post(servers::add_server))
        .route("/api/servers/retry", post(servers::retry_server))
        .route("/api/servers/remove", post(servers::remove_server))
        .route("/api/servers/disconnect", post(servers::disconnect_server))
        .route("/api/telemetry", post(requests::telemetry))
        .route("/api/views/{id}/message", post(views::view_message))
        .route("/api/views/{id}/context", post(views::view_context))
        .route("/api/views/{id}/close", post(views::view_close))
        .route("/api/views/{id}/site", post(views::view_site))
        .route(
            "/api/views/{id}/downloads/{question}",
            get(views::view_download_files),
        )
        .route("/api/views/{id}/download", post(views::view_download))
        .route("/api/views/{id}/tool", post(views::view_tool))
        .route("/api/views/{id}/mode", post(views::view_mode))
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

pub(super) fn bad_request(message: impl Into<String>) -> Response {
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

/// The page's 404 for a server name with no live connection.
pub(super) fn no_server(name: &str) -> Response {
    (
        StatusCode::NOT_FOUND,
        Json(json!({"error": format!("no connected server named {name}")})),
    )
        .into_response()
}

/// A request to a server failed: `502`, with the host's sentence.
pub(super) fn server_failed(e: &interlude_host::HostError) -> Response {
    (
        StatusCode::BAD_GATEWAY,
        Json(json!({"error": e.to_string()})),
    )
        .into_response()
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
