//! The sandbox origin of MCP Apps views: a listener of its own (another port on loopback), whose
//! host names give each server an origin of its own (`http://s<id>.localhost:<port>`, which
//! Chromium resolves to loopback), so views of different servers share no storage and none is
//! same-origin with the host page.
//!
//! It serves three things and nothing else: `sandbox.html` (the proxy document of one view,
//! with the host page's origin and the view's own address written into it, under a strict
//! policy of its own), `view.html` (the view's HTML, for the proxy's inner frame, with the
//! view's Content-Security-Policy as its HTTP header) and `sandbox.js` (the proxy). A view's documents are only served
//! under its server's host name and with the view's key, so a page cannot load another
//! server's view, or a view under another's origin.
//!
//! The view's HTML comes to its frame straight from this listener, rather than through the page
//! and a `postMessage` to the proxy as in the reference host: it never crosses the host page
//! or the live channel, its CSP is its own response's header, and the view starts one round
//! trip sooner. Its frame is same-origin with the proxy either way.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use axum::Router;
use axum::extract::{Query, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use interlude_host::{ServerId, UiDialect, ViewRecord, ViewState};
use rand::RngCore;
use serde::Deserialize;

use crate::WebApp;

const SANDBOX_HTML: &str = include_str!("../assets/sandbox/sandbox.html");
const SANDBOX_JS: &str = include_str!("../assets/sandbox/sandbox.js");
const OPENAI_JS: &str = include_str!("../assets/sandbox/openai.js");
const CONSOLE_JS: &str = include_str!("../assets/sandbox/console.js");

/// The sandbox listener's port and the views' keys.
#[derive(Default)]
pub(crate) struct Sandbox {
    /// The sandbox listener's port, once it listens.
    port: OnceLock<u16>,
    /// The host page's port.
    page_port: OnceLock<u16>,
    /// Each view's key (random), required to load its document.
    keys: Mutex<HashMap<u64, String>>,
}

impl Sandbox {
    pub(crate) fn listening(&self, page_port: u16, port: u16) {
        let _ = self.page_port.set(page_port);
        let _ = self.port.set(port);
    }

    /// The sandbox listener's port, once it listens.
    pub(crate) fn port(&self) -> Option<u16> {
        self.port.get().copied()
    }

    /// The host name of server `server`'s views, or of those that declared `domain` (an
    /// origin of their own, per server and domain: `s<id>-<domain as a label>-<hash>`).
    fn host_name(server: ServerId, domain: Option<&str>, port: u16) -> String {
        match domain {
            None => format!("s{}.localhost:{port}", server.0),
            Some(domain) => format!("s{}-{}.localhost:{port}", server.0, domain_label(domain)),
        }
    }

    /// The origin of view `view` (its server's, or its declared domain's under that server).
    pub(crate) fn origin(&self, view: &ViewRecord) -> Option<String> {
        let port = self.port()?;
        Some(format!(
            "http://{}",
            Self::host_name(view.server, view.domain.as_deref(), port)
        ))
    }

    fn key(&self, view: u64) -> String {
        let mut keys = self
            .keys
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        keys.entry(view)
            .or_insert_with(|| {
                let mut bytes = [0u8; 16];
                rand::rng().fill_bytes(&mut bytes);
                bytes.iter().map(|b| format!("{b:02x}")).collect()
            })
            .clone()
    }

    /// Where the page frames view `view` from: its server's origin, its key, and the page's
    /// own origin (`page`, one of the page's loopback names) for the proxy to talk to.
    pub(crate) fn src(&self, view: &ViewRecord) -> Option<String> {
        let origin = self.origin(view)?;
        Some(format!(
            "{origin}/sandbox.html?view={}&k={}",
            view.id.0,
            self.key(view.id.0)
        ))
    }

    /// The page origins a proxy may talk to.
    fn page_origins(&self) -> Vec<String> {
        let Some(port) = self.page_port.get() else {
            return Vec::new();
        };
        ["127.0.0.1", "localhost", "[::1]"]
            .iter()
            .map(|h| format!("http://{h}:{port}"))
            .collect()
    }

    /// The host page's `frame-src`: every view origin on the sandbox port.
    pub(crate) fn frame_src(&self) -> String {
        match self.port() {
            Some(port) => format!("http://*.localhost:{port}"),
            None => "'none'".to_owned(),
        }
    }
}

/// A DNS label for a declared `domain`: its letters, digits and dashes (dots become dashes, at
/// most 32), then a hash of the whole declaration, so that two declarations never share an
/// origin and the same one always gets the same.
fn domain_label(domain: &str) -> String {
    let readable: String = domain
        .chars()
        .filter_map(|c| match c.to_ascii_lowercase() {
            c @ ('a'..='z' | '0'..='9' | '-') => Some(c),
            '.' => Some('-'),
            _ => None,
        })
        .take(32)
        .collect();
    // FNV-1a, 32 bits: stable across runs and builds (the browser keeps storage per origin).
    let hash = domain.bytes().fold(0x811c_9dc5_u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    });
    let readable = readable.trim_matches('-');
    if readable.is_empty() {
        format!("d{hash:08x}")
    } else {
        format!("{readable}-{hash:08x}")
    }
}

/// The sandbox listener's routes.
pub(crate) fn router(app: WebApp) -> Router {
    Router::new()
        .route("/sandbox.html", get(document))
        .route("/view.html", get(view_document))
        .route("/sandbox.js", get(script))
        .route("/openai.js", get(openai_script))
        .route("/console.js", get(console_script))
        .fallback(|| async { (StatusCode::NOT_FOUND, "not found") })
        .layer(middleware::from_fn_with_state(
            app.clone(),
            require_sandbox_host,
        ))
        .with_state(app)
}

/// DNS-rebinding protection for the sandbox: nothing is served (not even its scripts) unless the
/// `Host` header names one of the views' origins on the sandbox's port.
async fn require_sandbox_host(State(app): State<WebApp>, request: Request, next: Next) -> Response {
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("");
    match app.inner.sandbox.port() {
        Some(port) if is_view_host(host, port) => next.run(request).await,
        _ => refuse(StatusCode::FORBIDDEN, "forbidden host"),
    }
}

/// Whether `host` is a view origin's host on `port`: `s<id>.localhost` or
/// `s<id>-<label>.localhost` ([`Sandbox::host_name`]), any case.
fn is_view_host(host: &str, port: u16) -> bool {
    let host = host.to_ascii_lowercase();
    let Some(name) = host
        .strip_suffix(&format!(".localhost:{port}"))
        .and_then(|n| n.strip_prefix('s'))
    else {
        return false;
    };
    let (id, label) = name.split_once('-').unwrap_or((name, ""));
    !id.is_empty()
        && id.bytes().all(|b| b.is_ascii_digit())
        && label
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

#[derive(Deserialize)]
struct DocumentQuery {
    view: Option<u64>,
    k: Option<String>,
    /// The page's origin (one of its loopback names).
    h: Option<String>,
}

fn refuse(status: StatusCode, why: &'static str) -> Response {
    (status, why).into_response()
}

/// The view `q` names, if the request may have it: its key, its server's host name.
fn checked_view(
    app: &WebApp,
    view: Option<u64>,
    key: Option<&str>,
    request: &Request,
) -> Result<(std::sync::Arc<ViewRecord>, HeaderValue), (StatusCode, &'static str)> {
    let sandbox = &app.inner.sandbox;
    let (Some(view_id), Some(key)) = (view, key) else {
        return Err((StatusCode::BAD_REQUEST, "`view` and `k` are required"));
    };
    let known = sandbox
        .keys
        .lock()
        .ok()
        .and_then(|k| k.get(&view_id).cloned());
    if known.as_deref() != Some(key) {
        return Err((StatusCode::NOT_FOUND, "no such view"));
    }
    let Some(view) = app.inner.host.view(interlude_host::ViewId(view_id)) else {
        return Err((StatusCode::NOT_FOUND, "no such view"));
    };
    let Some(port) = sandbox.port() else {
        return Err((StatusCode::SERVICE_UNAVAILABLE, "not listening"));
    };
    // Only under its own server's host name: another server's origin never gets it.
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("");
    if !host.eq_ignore_ascii_case(&Sandbox::host_name(
        view.server,
        view.domain.as_deref(),
        port,
    )) {
        return Err((StatusCode::FORBIDDEN, "wrong origin for this view"));
    }
    let (ViewState::Open, Some(csp)) = (&view.state, &view.csp) else {
        return Err((StatusCode::NOT_FOUND, "the view is not open"));
    };
    let Ok(csp) = HeaderValue::from_str(csp) else {
        return Err((StatusCode::INTERNAL_SERVER_ERROR, "unusable policy"));
    };
    Ok((view, csp))
}

fn html_response(csp: HeaderValue, body: String) -> Response {
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/html; charset=utf-8"),
            ),
            (header::CONTENT_SECURITY_POLICY, csp),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
            (
                header::X_CONTENT_TYPE_OPTIONS,
                HeaderValue::from_static("nosniff"),
            ),
            (
                header::REFERRER_POLICY,
                HeaderValue::from_static("no-referrer"),
            ),
        ],
        body,
    )
        .into_response()
}

/// Escapes text for an HTML attribute value.
fn attribute(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The proxy document of one view.
async fn document(
    State(app): State<WebApp>,
    Query(q): Query<DocumentQuery>,
    request: Request,
) -> Response {
    let (view, csp) = match checked_view(&app, q.view, q.k.as_deref(), &request) {
        Ok(found) => found,
        Err((status, why)) => return refuse(status, why),
    };
    let Some(page) = q.h.filter(|h| app.inner.sandbox.page_origins().contains(h)) else {
        return refuse(StatusCode::FORBIDDEN, "not the host page's origin");
    };
    let key = app.inner.sandbox.key(view.id.0);
    drop(csp);
    // An embedded web page: framed only once the person chose to, from its own origin.
    if let Some(site) = &view.site {
        let origin = site.check.display.as_ref().map(|d| match d.port {
            Some(port) => format!("{}://{}:{port}", d.scheme, d.host_ascii),
            None => format!("{}://{}", d.scheme, d.host_ascii),
        });
        let (true, Some(origin)) = (site.framed, origin) else {
            return refuse(
                StatusCode::FORBIDDEN,
                "the person has not chosen to show this page",
            );
        };
        let Ok(proxy_csp) = HeaderValue::from_str(&format!(
            "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; frame-src {origin}; \
             base-uri 'none'; form-action 'none'; object-src 'none'"
        )) else {
            return refuse(StatusCode::INTERNAL_SERVER_ERROR, "unusable policy");
        };
        let body = SANDBOX_HTML
            .replace("{{HOST}}", &attribute(&page))
            .replace("{{VIEW}}", &attribute(&site.url))
            .replace("{{ALLOW}}", "")
            .replace("{{SITE}}", "1");
        return html_response(proxy_csp, body);
    }
    // The proxy's own policy, stricter than any view's: its script, its one frame, nothing else.
    let proxy_csp = HeaderValue::from_static(
        "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; frame-src 'self'; \
         base-uri 'none'; form-action 'none'; object-src 'none'",
    );
    // The page framed the view: a view that renders a question must start from now on.
    app.host().view_loading(view.id);
    let body = SANDBOX_HTML
        .replace("{{HOST}}", &attribute(&page))
        .replace(
            "{{VIEW}}",
            &attribute(&format!("/view.html?view={}&k={key}", view.id.0)),
        )
        .replace("{{ALLOW}}", &attribute(&view.allow))
        .replace("{{SITE}}", "");
    html_response(proxy_csp, body)
}

/// The view's own HTML, for the proxy's inner frame.
async fn view_document(
    State(app): State<WebApp>,
    Query(q): Query<DocumentQuery>,
    request: Request,
) -> Response {
    let (view, csp) = match checked_view(&app, q.view, q.k.as_deref(), &request) {
        Ok(found) => found,
        Err((status, why)) => return refuse(status, why),
    };
    // A web page is framed from its own address, never served from here.
    let (None, Some(html)) = (&view.site, &view.html) else {
        return refuse(StatusCode::NOT_FOUND, "the view is not open");
    };
    // Every view's console goes to its log (`console.js`); a view written for ChatGPT's Apps
    // SDK also gets `window.openai`; both before any script of its own.
    let tags = if view.dialect == UiDialect::Skybridge {
        "<script src=\"/console.js\"></script><script src=\"/openai.js\"></script>"
    } else {
        "<script src=\"/console.js\"></script>"
    };
    html_response(csp, with_first(html, tags))
}

/// `html` with `tags` first: after `<head>` if there is one, else at the start.
fn with_first(html: &str, tags: &str) -> String {
    let lower = html.to_ascii_lowercase();
    let after_head = lower.find("<head").and_then(|at| {
        let end = lower.get(at..)?.find('>')?;
        Some(at + end + 1)
    });
    match after_head.and_then(|after| Some((html.get(..after)?, html.get(after..)?))) {
        Some((before, rest)) => format!("{before}{tags}{rest}"),
        None => format!("{tags}{html}"),
    }
}

async fn openai_script() -> Response {
    script_response(OPENAI_JS)
}

async fn console_script() -> Response {
    script_response(CONSOLE_JS)
}

async fn script() -> Response {
    script_response(SANDBOX_JS)
}

/// One of the sandbox's own scripts, never cached.
fn script_response(body: &'static str) -> Response {
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/javascript; charset=utf-8"),
            ),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
            (
                header::X_CONTENT_TYPE_OPTIONS,
                HeaderValue::from_static("nosniff"),
            ),
        ],
        body,
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_view_origins_on_the_sandbox_port_are_served() {
        for ok in [
            "s3.localhost:4000",
            "S12.LOCALHOST:4000",
            "s3-weather-example-com-1a2b3c4d.localhost:4000",
        ] {
            assert!(is_view_host(ok, 4000), "{ok}");
        }
        for bad in [
            "evil.example:4000",
            "s3.localhost:4001",
            "127.0.0.1:4000",
            "localhost:4000",
            "s.localhost:4000",
            "sx.localhost:4000",
            "s3.evil.localhost:4000",
            "s3_x.localhost:4000",
            "",
        ] {
            assert!(!is_view_host(bad, 4000), "{bad}");
        }
    }

    #[test]
    fn a_declared_domain_gets_a_stable_label_of_its_own() {
        let a = domain_label("weather.example.com");
        assert!(a.starts_with("weather-example-com-"), "{a}");
        assert_eq!(a, domain_label("weather.example.com"), "stable");
        assert_ne!(
            a,
            domain_label("weather-example.com"),
            "no two declarations share one"
        );
        let odd = domain_label("../<script>.example");
        assert!(
            odd.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
            "{odd}"
        );
        assert!(domain_label("%%%").starts_with('d'));
        let host = Sandbox::host_name(ServerId(3), Some("weather.example.com"), 4000);
        assert!(host.starts_with("s3-weather-example-com-") && host.ends_with(".localhost:4000"));
        assert_eq!(
            Sandbox::host_name(ServerId(3), None, 4000),
            "s3.localhost:4000"
        );
    }
}
