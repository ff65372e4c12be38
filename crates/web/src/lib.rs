//! The web surface: a local page where a person browses connected servers, calls their tools, and
//! answers every request for input in an activity timeline.
//!
//! Shape: [`WebApp`] owns a [`Host`] whose [`Surface`] is this crate's `WebSurface`, which only
//! notes that something changed. The host owns the record of servers, calls and requests; every
//! open page receives a projection of it (`state.rs`) over one server-sent-events stream
//! (`/api/events`) and acts through small POSTs. The page is a thin renderer: all validation runs
//! in Rust (`/api/validate` uses the engine's own rules, and the engine checks again before
//! anything leaves). Nothing is lost when a page closes: requests stay pending in the engine until
//! answered, cancelled by policy, or withdrawn by their server.
//!
//! Security: binds 127.0.0.1 only; every API call needs the per-run token printed with the URL
//! (so neither a web site nor another local user can answer for the person); the `Host` header
//! must name the loopback address (DNS rebinding); one layer sets a strict Content Security
//! Policy (no inline script, no third-party origin). Messages and titles are rendered as text,
//! never as markup or live links.
//!
//! Not here: the engine's decisions, transports, terminal code.
//!
//! # Example
//! ```no_run
//! use interlude_web::{WebApp, WebOptions};
//! use interlude_host::ServerSpec;
//!
//! # async fn run() -> std::io::Result<()> {
//! let app = WebApp::start(WebOptions::default());
//! app.add_server("demo", ServerSpec::parse("interlude-demo").unwrap(), None).await;
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
//! println!("open {}", app.url(listener.local_addr()?));
//! app.serve(listener, Default::default()).await
//! # }
//! ```

mod assets;
mod body;
#[cfg(test)]
mod kinds_covered;
mod routes;
mod sandbox;
mod state;
mod view;

use std::net::SocketAddr;
use std::sync::Arc;

use axum::serve::ListenerExt;
use interlude_host::{
    AnswerSink, ArgumentError, Host, HostConfig, HostEvent, ProtocolChoice, ServerSpec, Surface,
};
use rand::RngCore;
use serde_json::Value;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::state::Page;

/// Settings of the web surface.
#[derive(Debug, Clone)]
pub struct WebOptions {
    /// The page title.
    pub title: String,
    /// An optional guide shown beside the servers: `[{"title", "text", "server", "tool"}]`.
    pub guide: Option<Value>,
    /// The host's settings.
    pub host: HostConfig,
    /// What the page's Export session downloads: the host's record as a recording
    /// (`interlude_headless::recording::export`, which the CLI hands in). Without one, Export
    /// answers 404: this crate depends on the host alone.
    pub export: Option<Export>,
}

/// Turns the host's record into the document the page's Export session downloads.
pub type Export = fn(&interlude_host::HostSnapshot) -> String;

impl Default for WebOptions {
    fn default() -> Self {
        WebOptions {
            title: "Interlude".into(),
            guide: None,
            host: HostConfig::default(),
            export: None,
        }
    }
}

/// Why [`WebApp::call_tool`] made no call.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CallError {
    /// No live server has this name.
    #[error("no connected server named `{server}`")]
    NoServer {
        /// The name asked for.
        server: String,
    },
    /// The arguments do not fit the tool's `inputSchema`: nothing was sent.
    #[error("the arguments do not fit the tool's input schema: {}", join(.errors))]
    InvalidArguments {
        /// Each problem, as a sentence naming its field.
        errors: Vec<ArgumentError>,
    },
}

fn join(errors: &[ArgumentError]) -> String {
    errors
        .iter()
        .map(|e| e.message.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The surface the host drives: every event tells open pages to fetch a new projection, except
/// a message for an app view, which goes to the pages as it is (in order, on the same stream).
struct WebSurface {
    page: Arc<Page>,
    view_messages: tokio::sync::broadcast::Sender<(u64, Value)>,
}

impl Surface for WebSurface {
    fn on_event(&mut self, event: &HostEvent, _sink: &AnswerSink) {
        match event {
            HostEvent::ViewMessage { view, message } => {
                let _ = self.view_messages.send((view.0, message.clone()));
            }
            _ => self.page.changed(),
        }
    }
}

/// No second surface.
struct NoSurface;

impl Surface for NoSurface {
    fn on_event(&mut self, _event: &HostEvent, _sink: &AnswerSink) {}
}

pub(crate) struct Inner {
    pub(crate) host: Host,
    pub(crate) page: Arc<Page>,
    pub(crate) token: String,
    /// Latencies reported by pages (request admitted → card visible and focused), for the
    /// benchmark.
    pub(crate) telemetry: std::sync::Mutex<Vec<(u64, u64)>>,
    /// The views' sandbox origin.
    pub(crate) sandbox: sandbox::Sandbox,
    /// Messages for app views, to every open page.
    pub(crate) view_messages: tokio::sync::broadcast::Sender<(u64, Value)>,
    /// What Export session downloads ([`WebOptions::export`]).
    pub(crate) export: Option<Export>,
}

/// The web surface application. Cheap to clone.
#[derive(Clone)]
pub struct WebApp {
    pub(crate) inner: Arc<Inner>,
}

impl std::fmt::Debug for WebApp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebApp").finish_non_exhaustive()
    }
}

fn random_token() -> String {
    let mut bytes = [0u8; 16];
    rand::rng().fill_bytes(&mut bytes);
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl WebApp {
    /// Starts the host with the web surface (no listener yet: see [`WebApp::serve`]).
    /// The page renders MCP Apps views and questions in them, so the host declares the
    /// extension with app-rendered elicitation (SEP-3118).
    pub fn start(options: WebOptions) -> Self {
        Self::start_with(options, NoSurface)
    }

    /// Like [`WebApp::start`], with `other` beside the page over the same host: both hear
    /// every event, and either may answer. The terminal surface uses it to hand app views (and
    /// questions asked in them) to a page it opens when the person wants one.
    ///
    /// ```no_run
    /// use interlude_host::{AnswerSink, HostEvent, Surface};
    /// use interlude_web::{WebApp, WebOptions};
    ///
    /// struct Log;
    /// impl Surface for Log {
    ///     fn on_event(&mut self, event: &HostEvent, _sink: &AnswerSink) {
    ///         eprintln!("{event:?}");
    ///     }
    /// }
    ///
    /// # async fn run() {
    /// let app = WebApp::start_with(WebOptions::default(), Log);
    /// # }
    /// ```
    pub fn start_with(options: WebOptions, other: impl Surface) -> Self {
        let page = Arc::new(Page::new(options.title, options.guide));
        let (view_messages, _) = tokio::sync::broadcast::channel(4096);
        let mut config = options.host;
        config.declare = config.declare.with_app_elicitation();
        let web = WebSurface {
            page: page.clone(),
            view_messages: view_messages.clone(),
        };
        let host = Host::start(config, (web, other));
        WebApp {
            inner: Arc::new(Inner {
                host,
                page,
                token: random_token(),
                telemetry: std::sync::Mutex::new(Vec::new()),
                sandbox: sandbox::Sandbox::default(),
                view_messages,
                export: options.export,
            }),
        }
    }

    /// The host behind the page.
    pub fn host(&self) -> &Host {
        &self.inner.host
    }

    /// The address to open: the page on `addr`, with this run's access token.
    pub fn url(&self, addr: SocketAddr) -> String {
        format!("http://{addr}/?token={}", self.inner.token)
    }

    /// The per-run access token.
    pub fn token(&self) -> &str {
        &self.inner.token
    }

    /// Latencies reported by pages: `(request id, milliseconds from admission to a visible,
    /// focused card)`.
    pub fn telemetry(&self) -> Vec<(u64, u64)> {
        self.inner
            .telemetry
            .lock()
            .map(|t| t.clone())
            .unwrap_or_default()
    }

    /// Connects to a server (the host lists its tools); a failure is shown on the page (and
    /// logged), never fatal. `protocol` overrides the host's default negotiation.
    pub async fn add_server(&self, name: &str, spec: ServerSpec, protocol: Option<ProtocolChoice>) {
        let host = &self.inner.host;
        let connected = match protocol {
            Some(p) => host.connect_with(name, spec, p).await,
            None => host.connect(name, spec).await,
        };
        if let Err(e) = connected {
            tracing::warn!(server = name, "cannot connect: {e}");
        }
    }

    /// Calls a tool in the background (the host records it, and the page shows it from the
    /// record); returns the call's id. Arguments that do not fit the tool's `inputSchema` are
    /// refused here, before anything is recorded or sent
    /// ([`interlude_host::check_arguments`]).
    pub async fn call_tool(
        &self,
        server: &str,
        tool: &str,
        arguments: Option<serde_json::Map<String, Value>>,
    ) -> Result<u64, CallError> {
        let conn = self
            .inner
            .host
            .connection_named(server)
            .ok_or_else(|| CallError::NoServer {
                server: server.to_owned(),
            })?;
        conn.check_arguments(tool, arguments.as_ref())
            .map_err(|errors| CallError::InvalidArguments { errors })?;
        let call = conn.start_call(tool, arguments);
        let id = call.id().0;
        tokio::spawn(async move {
            if let Err(e) = call.outcome().await {
                tracing::debug!("tool call failed: {e}");
            }
        });
        Ok(id)
    }

    /// What a page shows now.
    pub(crate) fn page_state(&self) -> state::PageState {
        // The version first, then the record: the projection holds every change up to its
        // version (and maybe later ones, whose own versions follow). Read the other way round,
        // a change landing between the two would give an older record a newer version, and the
        // page would drop the next projection, which has the change, as no newer.
        let version = self.inner.page.version();
        self.inner
            .page
            .project(version, &self.inner.host.snapshot(), &self.inner.sandbox)
    }

    /// Serves the page on `listener` (which must be bound to a loopback address) until
    /// `shutdown` is cancelled, and the views' sandbox on another port of the same address.
    pub async fn serve(
        self,
        listener: TcpListener,
        shutdown: CancellationToken,
    ) -> std::io::Result<()> {
        let addr = listener.local_addr()?;
        if !addr.ip().is_loopback() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("the web surface only binds loopback addresses, not {addr}"),
            ));
        }
        let sandbox_listener = TcpListener::bind((addr.ip(), 0)).await?;
        let sandbox_port = sandbox_listener.local_addr()?.port();
        self.inner.sandbox.listening(addr.port(), sandbox_port);
        let sandbox = sandbox::router(self.clone());
        let stop = shutdown.clone();
        // Small answers (a JSON reply, a relayed view message) go out at once: without
        // TCP_NODELAY, a response written in two pieces waits for the browser's delayed ACK
        // (≈ 40 ms on Linux).
        let sandbox_listener = sandbox_listener.tap_io(no_delay);
        tokio::spawn(async move {
            let served = axum::serve(sandbox_listener, sandbox)
                .with_graceful_shutdown(async move { stop.cancelled().await })
                .await;
            if let Err(e) = served {
                tracing::warn!("the app sandbox listener stopped: {e}");
            }
        });
        let router = routes::router(self.clone(), addr.port());
        axum::serve(listener.tap_io(no_delay), router)
            .with_graceful_shutdown(async move { shutdown.cancelled().await })
            .await
    }
}

/// Turns Nagle's algorithm off on an accepted connection.
fn no_delay(tcp: &mut tokio::net::TcpStream) {
    if let Err(e) = tcp.set_nodelay(true) {
        tracing::debug!("cannot set TCP_NODELAY: {e}");
    }
}
