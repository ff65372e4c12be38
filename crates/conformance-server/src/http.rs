//! The streamable HTTP endpoint at `/mcp`: one rmcp service for both eras — a 2025 client
//! opens a session with `initialize` (rmcp's local session manager keeps it), a 2026-07-28
//! request is served on its own by a fresh `Fixtures` sharing the one `AskConfig` (so a retry
//! opens the state an earlier instance sealed). rmcp's default allowed hosts answer a foreign
//! `Host` with 403 (DNS rebinding).

use std::time::Duration;

use axum::serve::ListenerExt;
use interlude_server::AskConfig;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::fixtures::Fixtures;

/// How long an idle 2025 session is kept.
const SESSION_KEEP_ALIVE: Duration = Duration::from_secs(60 * 60);

/// Serves the fixtures on `listener` at `/mcp` until `shutdown` is cancelled.
pub(crate) async fn serve(
    listener: TcpListener,
    ask: AskConfig,
    shutdown: CancellationToken,
) -> std::io::Result<()> {
    let mut sessions = LocalSessionManager::default();
    sessions.session_config.keep_alive = Some(SESSION_KEEP_ALIVE);
    let mut config = StreamableHttpServerConfig::default();
    config.cancellation_token = shutdown.child_token();
    let service = StreamableHttpService::new(
        move || Ok(Fixtures::new(ask.clone())),
        sessions.into(),
        config,
    );
    let router = axum::Router::new()
        .nest_service("/mcp", service)
        .layer(axum::middleware::from_fn(interlude_server::checked_http))
        .layer(axum::middleware::from_fn(interlude_server::session_ended));
    // Small requests answered at once: no Nagle delay.
    let listener = listener.tap_io(|tcp| {
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::debug!("cannot set TCP_NODELAY: {e}");
        }
    });
    axum::serve(listener, router)
        .with_graceful_shutdown(async move { shutdown.cancelled().await })
        .await
}
