//! Serving the demo over streamable HTTP at `/mcp`.
//!
//! Two settings differ from rmcp's defaults on purpose: TCP_NODELAY on every accepted socket
//! (otherwise a client's answer and the server's SSE stream meet Nagle's algorithm and delayed
//! ACKs: ~30 ms per call), and a session keep-alive far above the time a person may take to
//! answer (rmcp closes idle sessions after 5 minutes, which would lose a slow answer).

use std::time::Duration;

use axum::serve::ListenerExt;
use interlude_server::AskConfig;
use interlude_server::url::UrlFlows;
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
    /// The demo's URL flows, their pages served under `/flows` (their base URL must say so) and
    /// a sign-in page at `/sign-in`, with the cookie key; none by default.
    pub flows: Option<(UrlFlows, Vec<u8>)>,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            ask: AskConfig::new(),
            session_keep_alive: Duration::from_secs(24 * 60 * 60),
            shutdown: CancellationToken::new(),
            flows: None,
        }
    }
}

/// Serves the demo on `listener` until `options.shutdown` is cancelled.
pub async fn serve_http(listener: TcpListener, options: HttpOptions) -> std::io::Result<()> {
    let mut sessions = LocalSessionManager::default();
    sessions.session_config.keep_alive = Some(options.session_keep_alive);
    let mut config = StreamableHttpServerConfig::default();
    config.cancellation_token = options.shutdown.child_token();
    let flows = options.flows.as_ref().map(|(f, _)| f.clone());
    // With its pages, the demo keeps its tasks in its flow store too (once, before the
    // instances share the configuration): a restart loses no ended task's result.
    let ask = match &flows {
        Some(f) => options.ask.clone().with_task_store(f.store().clone()),
        None => options.ask.clone(),
    };
    let service = StreamableHttpService::new(
        move || {
            let server = DemoServer::new(ask.clone());
            Ok(match &flows {
                Some(f) => server.with_flows(f.clone()),
                None => server,
            }
            .with_legacy_tasks())
        },
        sessions.into(),
        config,
    );
    let mut router = axum::Router::new()
        .nest_service("/mcp", service)
        // A client of the User Interaction draft (seed 000) declares it where rmcp's typed
        // capabilities cannot hold it: moved where `Ask` reads it.
        .layer(axum::middleware::from_fn(
            interlude_server::interaction::normalize_http,
        ))
        // A known method whose params do not fit: -32602 naming the field.
        .layer(axum::middleware::from_fn(interlude_server::checked_http))
        .layer(axum::middleware::from_fn(interlude_server::session_ended));
    if let Some((flows, key)) = &options.flows {
        // Housekeeping: flows past their time expire; finished ones are forgotten after a day.
        let sweeper = flows.clone();
        let stop = options.shutdown.clone();
        tokio::spawn(async move {
            let mut every = tokio::time::interval(Duration::from_secs(60));
            loop {
                tokio::select! {
                    _ = every.tick() => {
                        if let Err(e) = sweeper.expire(Duration::from_secs(24 * 60 * 60)).await {
                            tracing::warn!("cannot expire the demo's flows: {e}");
                        }
                    }
                    () = stop.cancelled() => return,
                }
            }
        });
        router = router.nest("/flows", flows.router());
        if let Some(sign_in) = crate::flows::sign_in_router(&flows.url_of_base(), key) {
            router = router.merge(sign_in);
        }
    }
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
