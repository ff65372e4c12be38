//! Serving the demo over streamable HTTP at `/mcp`.
//!
//! Two settings differ from rmcp's defaults on purpose: TCP_NODELAY on every accepted socket
//! (otherwise a client's answer and the server's SSE stream meet Nagle's algorithm and delayed
//! ACKs: ~30 ms per call), and a session keep-alive far above the time a person may take to
//! answer (rmcp closes idle sessions after 5 minutes, which would lose a slow answer).

use std::time::Duration;

use axum::serve::ListenerExt;
use interlude_server::AskConfig;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::tools::DemoServer;

/// Options for [`serve_http`].
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// How the server seals `requestState`.
    pub ask: AskConfig,
    /// Idle time after which a 2025-era session is dropped.
    pub session_keep_alive: Duration,
    /// Stops the server when cancelled.
    pub shutdown: CancellationToken,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            ask: AskConfig::new(),
            session_keep_alive: Duration::from_secs(24 * 60 * 60),
            shutdown: CancellationToken::new(),
        }
    }
}

/// Serves the demo on `listener` until `options.shutdown` is cancelled.
pub async fn serve_http(listener: TcpListener, options: HttpOptions) -> std::io::Result<()> {
    let mut sessions = LocalSessionManager::default();
    sessions.session_config.keep_alive = Some(options.session_keep_alive);
    let mut config = StreamableHttpServerConfig::default();
    config.cancellation_token = options.shutdown.child_token();
    let ask = options.ask.clone();
    let service = StreamableHttpService::new(
        move || Ok(DemoServer::new(ask.clone())),
        sessions.into(),
        config,
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = listener.tap_io(|tcp| {
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::debug!("cannot set TCP_NODELAY: {e}");
        }
    });
    let shutdown = options.shutdown.clone();
    axum::serve(listener, router)
        .with_graceful_shutdown(async move { shutdown.cancelled().await })
        .await
}
