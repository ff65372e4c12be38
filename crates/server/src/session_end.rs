//! The end of a streamable HTTP session, as clients expect it: rmcp answers a session's
//! `DELETE` with `202 Accepted`; the session is over by then, and clients (the Python SDK among
//! them) expect `200` or `204` and warn on anything else.

/// An axum middleware: a `DELETE` answered `202 Accepted` becomes `204 No Content`; everything
/// else passes untouched.
///
/// ```no_run
/// # fn mcp_service() -> axum::Router { axum::Router::new() }
/// let app = axum::Router::new()
///     .nest("/mcp", mcp_service())
///     .layer(axum::middleware::from_fn(interlude_server::session_ended));
/// # let _ = app;
/// ```
pub async fn session_ended(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let delete = request.method() == http::Method::DELETE;
    let mut response = next.run(request).await;
    if delete && response.status() == http::StatusCode::ACCEPTED {
        *response.status_mut() = http::StatusCode::NO_CONTENT;
    }
    response
}
