//! A URL-mode flow on a stdio server: the person enters an API key on a page of the server's
//! own, so that the secret never passes through the MCP client.
//!
//! What a stdio server needs for that, all shown here:
//! - **An HTTP listener of its own** (127.0.0.1 only) for the flow pages: the MCP client
//!   only carries the link. `--port`-like configuration: `URL_FLOW_PORT` (default: a free port).
//! - **Who the person is.** A stdio server runs for the one person who started it
//!   ([`LocalUser`]): every MCP request acts for that user, and the pages know who opens them
//!   by a signed cookie — set by the server's own sign-in. Here the sign-in asks for a code
//!   the server prints on its stderr at start-up (`URL_FLOW_SIGN_IN_CODE` to choose it), so a
//!   link forwarded to someone else is refused.
//! - **A sign-in that is not an open redirect**: it sends the browser on to `next` only when
//!   `next` is one of this server's own flow pages.
//! - **Housekeeping**: [`UrlFlows::expire`] runs every minute (flows past their time expire,
//!   finished ones are forgotten after a day).
//!
//! Tools: `set_api_key` sends the person to the page and waits (2025) or answers
//! `input_required` until the flow is done (2026-07-28); `use_api_key` reads the stored key
//! (and says only its length).
//!
//! Run with: `cargo run -p interlude-server --example url_flow` — MCP on stdin/stdout; the
//! pages' address and the sign-in code go to stderr.

#![allow(clippy::print_stderr)] // it says where its pages are, and the sign-in code

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Form, Query, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use interlude_server::url::{FlowKind, LocalUser, MemoryStore, SignedCookie, UrlFlows, UserId};
use interlude_server::{Answer, Ask, AskConfig, AskServer, ToolResult, asking};
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use serde::Deserialize;

/// The one user of this server.
const USER: &str = "me";

#[derive(Clone)]
struct Server {
    ask: AskConfig,
    flows: UrlFlows,
}

impl AskServer for Server {
    fn ask_config(&self) -> &AskConfig {
        &self.ask
    }
}

fn api_key() -> FlowKind {
    FlowKind::api_key("example", "Example API key")
}

#[asking]
#[tool_router]
impl Server {
    #[tool(description = "Ask the person for their Example API key, on this server's page")]
    async fn set_api_key(&self, ask: Ask) -> ToolResult {
        let said = match self
            .flows
            .run(&ask, &api_key(), "Enter your Example API key")
            .await?
        {
            Answer::Accepted(_) => "The key is stored.",
            Answer::Declined => "The person declined.",
            Answer::Cancelled => "The person dismissed the link.",
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(said)]))
    }

    #[tool(description = "Use the stored Example API key")]
    async fn use_api_key(&self, ask: Ask) -> ToolResult {
        let text = match self.flows.secret(&ask, "example").await? {
            Some(key) => format!("Using a key of {} bytes.", key.expose().len()),
            None => "No key yet: call set_api_key.".to_owned(),
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
    }
}

#[tool_handler]
impl ServerHandler for Server {}

/// What the sign-in page needs.
#[derive(Clone)]
struct SignIn {
    cookie: SignedCookie,
    code: Arc<str>,
    /// `http://127.0.0.1:<port>/flows/`: where `next` may lead.
    flows_base: Arc<str>,
}

#[derive(Deserialize)]
struct Next {
    next: Option<String>,
}

#[derive(Deserialize)]
struct Posted {
    code: String,
    next: Option<String>,
}

impl SignIn {
    /// `next` if it is one of this server's own flow pages (and safe to put in a header and a
    /// page); never anywhere else.
    fn checked_next(&self, next: Option<String>) -> Option<String> {
        next.filter(|n| {
            n.strip_prefix(&*self.flows_base).is_some_and(|id| {
                !id.is_empty()
                    && id
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
            })
        })
    }
}

/// `GET /sign-in?next=…`: the form.
async fn sign_in_page(State(s): State<SignIn>, Query(q): Query<Next>) -> Html<String> {
    let next = s.checked_next(q.next).unwrap_or_default();
    Html(format!(
        "<!doctype html><meta charset=utf-8><title>Sign in</title>\
         <form method=post action=/sign-in>\
         <p><label>The sign-in code this server printed when it started: \
         <input name=code autocomplete=off required></label></p>\
         <input type=hidden name=next value=\"{next}\"><button>Sign in</button></form>"
    ))
}

/// `POST /sign-in`: the right code signs the user in, then on to `next` (a flow page only).
async fn sign_in(State(s): State<SignIn>, Form(posted): Form<Posted>) -> Response {
    let right = posted.code.len() == s.code.len()
        && posted
            .code
            .bytes()
            .zip(s.code.bytes())
            .fold(0u8, |diff, (a, b)| diff | (a ^ b))
            == 0;
    if !right {
        return (StatusCode::FORBIDDEN, "Wrong sign-in code.").into_response();
    }
    let mut response = match s.checked_next(posted.next) {
        Some(next) => (StatusCode::SEE_OTHER, [(header::LOCATION, next)]).into_response(),
        None => "Signed in. Go back to the link you were given.".into_response(),
    };
    if let Ok(value) = HeaderValue::from_str(&s.cookie.set_cookie(&UserId::new(USER))) {
        response.headers_mut().insert(header::SET_COOKIE, value);
    }
    response
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let port: u16 = std::env::var("URL_FLOW_PORT").map_or(Ok(0), |p| p.parse())?;
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    let base = format!("http://{}", listener.local_addr()?);
    let code = std::env::var("URL_FLOW_SIGN_IN_CODE")
        .unwrap_or_else(|_| format!("{:08}", rand::random::<u32>() % 100_000_000));

    // The one user; pages know them by this cookie (a fresh key: sign-ins last one run).
    let cookie = SignedCookie::random("url_flow_example_user");
    let identity = LocalUser::new(UserId::new(USER), cookie.clone());
    // `MemoryStore` keeps flows and secrets for this run; `SqliteStore` survives restarts.
    let flows = UrlFlows::new(
        Arc::new(MemoryStore::default()),
        &format!("{base}/flows"),
        identity,
    )
    .with_server_name("the url_flow example")
    .with_sign_in(format!("{base}/sign-in"));

    let sign_in_state = SignIn {
        cookie,
        code: code.clone().into(),
        flows_base: format!("{base}/flows/").into(),
    };
    let pages = axum::Router::new().nest("/flows", flows.router()).merge(
        axum::Router::new()
            .route("/sign-in", get(sign_in_page).post(sign_in))
            .with_state(sign_in_state),
    );
    tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, pages).await {
            tracing::error!("the flow pages stopped: {e}");
        }
    });
    eprintln!("flow pages on {base}/flows; sign-in code: {code}");

    // Housekeeping, every minute.
    let sweeper = flows.clone();
    tokio::spawn(async move {
        let mut every = tokio::time::interval(Duration::from_secs(60));
        loop {
            every.tick().await;
            if let Err(e) = sweeper.expire(Duration::from_secs(24 * 60 * 60)).await {
                tracing::warn!("cannot expire flows: {e}");
            }
        }
    });

    let server = Server {
        ask: AskConfig::new(),
        flows,
    };
    server
        .serve(interlude_server::checked_stdio())
        .await?
        .waiting()
        .await?;
    Ok(())
}
