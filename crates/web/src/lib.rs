//! The web surface: a local page where a person browses connected servers, calls their tools, and
//! answers every request for input in an activity timeline.
//!
//! Shape: [`WebApp`] owns a [`Host`] whose [`Surface`] is this crate's `WebSurface`; both write
//! into one host-side view-model (`state.rs`) that every open page receives over one
//! server-sent-events stream (`/api/events`) and changes through small POSTs. The page is a thin
//! renderer: all validation runs in Rust (`/api/validate` uses the engine's own rules, and the
//! engine checks again before anything leaves). Nothing is lost when a page closes: requests stay
//! pending in the engine until answered, cancelled by policy, or withdrawn by their server.
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
mod routes;
mod state;
mod view;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use interlude_engine::{ElicitationView, Notice, Reply, RequestId};
use interlude_host::{
    AnswerSink, Connection, Host, HostConfig, ProtocolChoice, ServerSpec, Surface,
};
use interlude_schema::{FieldError, FormSchema};
use rand::RngCore;
use serde_json::Value;
use tokio::net::TcpListener;
use tokio::sync::RwLock;
use tokio_util::sync::CancellationToken;

use crate::state::{CallEntry, ServerEntry, Shared, ToolEntry};
use crate::view::fields_of;

/// Settings of the web surface.
#[derive(Debug, Clone)]
pub struct WebOptions {
    /// The page title.
    pub title: String,
    /// An optional guide shown beside the servers: `[{"title", "text", "server", "tool"}]`.
    pub guide: Option<Value>,
    /// The host's settings.
    pub host: HostConfig,
}

impl Default for WebOptions {
    fn default() -> Self {
        WebOptions {
            title: "Interlude".into(),
            guide: None,
            host: HostConfig::default(),
        }
    }
}

/// The surface the host drives: it only records into the shared view-model.
struct WebSurface {
    shared: Arc<Shared>,
}

impl Surface for WebSurface {
    fn queued(&mut self, view: &ElicitationView) {
        self.shared.on_queued(view);
    }
    fn present(&mut self, view: ElicitationView, _sink: &AnswerSink) {
        self.shared.on_present(view.id);
    }
    fn invalid(&mut self, id: RequestId, errors: &[FieldError], _sink: &AnswerSink) {
        self.shared.on_invalid(id, errors);
    }
    fn closed(&mut self, id: RequestId, notice: &Notice) {
        self.shared.on_closed(id, notice);
    }
    fn replied(&mut self, id: RequestId, reply: &Reply) {
        self.shared.on_replied(id, reply);
    }
}

pub(crate) struct Inner {
    pub(crate) host: Host,
    pub(crate) shared: Arc<Shared>,
    pub(crate) connections: RwLock<BTreeMap<String, Arc<Connection>>>,
    pub(crate) token: String,
    next_call: AtomicU64,
    /// Latencies reported by pages (request admitted → card visible and focused), for the
    /// benchmark.
    pub(crate) telemetry: std::sync::Mutex<Vec<(u64, u64)>>,
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
    pub fn start(options: WebOptions) -> Self {
        let shared = Arc::new(Shared::new(options.title, options.guide));
        let host = Host::start(
            options.host,
            WebSurface {
                shared: shared.clone(),
            },
        );
        WebApp {
            inner: Arc::new(Inner {
                host,
                shared,
                connections: RwLock::new(BTreeMap::new()),
                token: random_token(),
                next_call: AtomicU64::new(1),
                telemetry: std::sync::Mutex::new(Vec::new()),
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

    /// Connects to a server and lists its tools; a failure is shown on the page (and logged),
    /// never fatal. `protocol` overrides the host's default negotiation.
    pub async fn add_server(&self, name: &str, spec: ServerSpec, protocol: Option<ProtocolChoice>) {
        let target = spec.target();
        let mut entry = ServerEntry {
            name: name.to_owned(),
            transport: spec.transport().to_owned(),
            target,
            protocol_version: None,
            era: None,
            status: "connecting",
            title: None,
            version: None,
            error: None,
            tools: Vec::new(),
        };
        self.upsert_server(entry.clone());
        let connected = match protocol {
            Some(p) => self.inner.host.connect_with(name, spec, p).await,
            None => self.inner.host.connect(name, spec).await,
        };
        let conn = match connected {
            Ok(c) => Arc::new(c),
            Err(e) => {
                tracing::warn!(server = name, "cannot connect: {e}");
                entry.status = "error";
                entry.error = Some(e.to_string());
                self.upsert_server(entry);
                return;
            }
        };
        let info = conn.info();
        entry.protocol_version = Some(info.protocol_version.clone());
        entry.era = Some(info.era.to_string());
        entry.title = info
            .server_info
            .as_ref()
            .map(|i| i.title.clone().unwrap_or_else(|| i.name.clone()));
        entry.version = info.server_info.as_ref().map(|i| i.version.clone());
        match conn.list_tools().await {
            Ok(tools) => {
                entry.status = "connected";
                entry.tools = tools
                    .into_iter()
                    .map(|t| {
                        let schema = Value::Object((*t.input_schema).clone());
                        ToolEntry {
                            name: t.name.to_string(),
                            title: t.title.clone(),
                            description: t.description.as_ref().map(ToString::to_string),
                            fields: FormSchema::parse(&schema)
                                .ok()
                                .map(|p| fields_of(&p.schema)),
                            input_schema: schema,
                        }
                    })
                    .collect();
            }
            Err(e) => {
                entry.status = "error";
                entry.error = Some(e.to_string());
            }
        }
        self.upsert_server(entry);
        self.inner
            .connections
            .write()
            .await
            .insert(name.to_owned(), conn.clone());
        // Mark the server as disconnected when its transport closes.
        let app = self.clone();
        let name = name.to_owned();
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_millis(250)).await;
                if Arc::strong_count(&conn) == 1 {
                    return;
                }
                if conn.is_closed() {
                    app.inner.shared.update(|s| {
                        if let Some(e) = s.servers.iter_mut().find(|e| e.name == name) {
                            e.status = "disconnected";
                        }
                    });
                    return;
                }
            }
        });
    }

    fn upsert_server(&self, entry: ServerEntry) {
        self.inner.shared.update(
            |s| match s.servers.iter_mut().find(|e| e.name == entry.name) {
                Some(e) => *e = entry,
                None => s.servers.push(entry),
            },
        );
    }

    /// Calls a tool in the background and records it in the timeline; returns the call's id.
    pub async fn call_tool(
        &self,
        server: &str,
        tool: &str,
        arguments: Option<serde_json::Map<String, Value>>,
    ) -> Result<u64, String> {
        let conn = self
            .inner
            .connections
            .read()
            .await
            .get(server)
            .cloned()
            .ok_or_else(|| format!("no connected server named `{server}`"))?;
        let id = self.inner.next_call.fetch_add(1, Ordering::Relaxed);
        self.inner.shared.update(|s| {
            s.calls.push(CallEntry {
                id,
                server: server.to_owned(),
                tool: tool.to_owned(),
                arguments: arguments.clone().map_or(Value::Null, Value::Object),
                status: "running",
                result: None,
                error: None,
                rounds: 0,
                requests: Vec::new(),
                started_at_ms: crate::state::now_ms(),
            });
        });
        let shared = self.inner.shared.clone();
        let tool = tool.to_owned();
        tokio::spawn(async move {
            let outcome = conn.call_tool(&tool, arguments).await;
            shared.update(|s| {
                if let Some(c) = s.calls.iter_mut().find(|c| c.id == id) {
                    match outcome {
                        Ok(o) => {
                            c.status = if o.result.is_error == Some(true) {
                                "failed"
                            } else {
                                "done"
                            };
                            c.rounds = o.rounds;
                            c.result = serde_json::to_value(&o.result).ok();
                        }
                        Err(e) => {
                            c.status = "error";
                            c.error = Some(e.to_string());
                        }
                    }
                }
            });
        });
        Ok(id)
    }

    /// Serves the page on `listener` (which must be bound to a loopback address) until
    /// `shutdown` is cancelled.
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
        let router = routes::router(self.clone(), addr.port());
        axum::serve(listener, router)
            .with_graceful_shutdown(async move { shutdown.cancelled().await })
            .await
    }
}
