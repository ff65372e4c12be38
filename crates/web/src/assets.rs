//! The page's static files, embedded at compile time and served with explicit content types.
//! Plain HTML, CSS and JavaScript modules: no bundler, no CDN, no inline script.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

const FILES: &[(&str, &str, &str)] = &[
    (
        "index.html",
        "text/html; charset=utf-8",
        include_str!("../assets/host/index.html"),
    ),
    (
        "style.css",
        "text/css; charset=utf-8",
        include_str!("../assets/host/style.css"),
    ),
    (
        "app.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/host/app.js"),
    ),
    (
        "dom.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/host/dom.js"),
    ),
    (
        "form.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/host/form.js"),
    ),
    (
        "url.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/host/url.js"),
    ),
    (
        "kinds.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/host/kinds.js"),
    ),
    (
        "sampling.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/host/sampling.js"),
    ),
    (
        "view.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/host/view.js"),
    ),
    (
        "log.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/host/log.js"),
    ),
    (
        "network.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/host/network.js"),
    ),
    (
        "catalog.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/host/catalog.js"),
    ),
    (
        "favicon.svg",
        "image/svg+xml",
        include_str!("../assets/host/favicon.svg"),
    ),
];

/// The response for one asset, or 404.
pub(crate) fn response(path: &str) -> Response {
    match FILES.iter().find(|(name, _, _)| *name == path) {
        Some((_, content_type, body)) => (
            [(header::CONTENT_TYPE, HeaderValue::from_static(content_type))],
            *body,
        )
            .into_response(),
        None => (StatusCode::NOT_FOUND, "not found").into_response(),
    }
}
