//! [`Host`]: the handle everything goes through, its settings and errors, and the core that
//! owns the engine, the record of servers and calls, and the surface.
//!
//! One closed enum of inputs ([`HostInput`]) reaches the core through the hub (`hub.rs`): the
//! engine's own inputs wrapped as they are, plus what the record needs (a server added or
//! changed, a call started, moved on or ended). The core applies each one to the engine and the
//! record and tells the surface, in order.
//!
//! What it does not do: open transports or speak MCP (see `connection.rs` and `handler.rs`).

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::Duration;

use interlude_engine::{
    AppFormEffect, AppFormInput, AuditRecord, CallId, Declared, Effect, ElicitParams, Engine,
    EngineConfig, Incoming, Input, Reply, RequestId, ServerId, UrlEffect, UrlInput, ViewId,
    ViewInput,
};
use interlude_protocol::{Answer, ProtocolEra};
use rmcp::model::{JsonObject, ProtocolVersion, Resource, Tool};
use rmcp::service::RoleClient;
use rmcp::transport::IntoTransport;
use tokio::sync::oneshot;
use tokio::time::Instant;

pub(crate) mod views;

pub use views::AppsConfig;
pub(crate) use views::{ViewUpdate, Views};

use crate::connection::{CallOutcome, Connection};
use crate::hub::Hub;
use crate::registry::{
    CallRecord, CallStatus, HostEvent, HostSnapshot, Registry, ServerApps, ServerIdentity,
    ServerRecord, ServerState, ViewRecord,
};
use crate::request_record::RequestRecord;
use crate::resolve::Resolver;
use crate::spec::ServerSpec;
use crate::surface::{AnswerSink, Surface};

/// Which protocol a host speaks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProtocolChoice {
    /// Prefer 2026-07-28 (discover); fall back to 2025-11-25 (initialize) for older servers.
    Auto,
    /// Use exactly this version (2026-07-28 via discover, anything older via initialize).
    Pin(ProtocolVersion),
}

/// Host settings.
#[derive(Debug, Clone)]
pub struct HostConfig {
    /// Engine policy (limits, rate limiting).
    pub engine: EngineConfig,
    /// Protocol negotiation.
    pub protocol: ProtocolChoice,
    /// What the host declares to servers (and therefore admits): form elicitation by default.
    pub declare: Declared,
    /// Limit on a tool call's active time (time nobody is being asked anything). None by default.
    pub call_timeout: Option<Duration>,
    /// Most `input_required` rounds one call may take.
    pub max_rounds: usize,
    /// The name this host gives in `clientInfo`.
    pub client_name: String,
    /// How a link's host name is looked up after the person consented to open it.
    pub resolver: Resolver,
    /// After a `-32042` (URL elicitation required) error to which the person consented, how
    /// long to wait for the servers' completion notifications before retrying the call once.
    pub url_wait: Duration,
    /// MCP Apps views (used when [`Declared::apps`](interlude_engine::Declared) is set).
    pub apps: AppsConfig,
    /// How many messages the protocol log keeps per server ([`Host::protocol_log`]; 0 keeps
    /// none).
    pub protocol_log: usize,
    /// Where to write every message to and from every server as JSON Lines (`{"t_ms",
    /// "server", "dir", "message"}`), when set. The file is created (or truncated) when the
    /// host starts; if it cannot be, the host runs without it and says so in the log.
    pub trace: Option<std::path::PathBuf>,
    /// Which protocol version each server spoke last time, so that a negotiated
    /// ([`ProtocolChoice::Auto`]) connection to a server known to speak a 2025 version starts
    /// with `initialize` instead of waiting on `server/discover` (see [`EraMemory`]). This
    /// process only by default; the CLI keeps it in a file.
    pub eras: std::sync::Arc<crate::EraMemory>,
}

impl Default for HostConfig {
    fn default() -> Self {
        HostConfig {
            engine: EngineConfig::default(),
            protocol: ProtocolChoice::Auto,
            declare: Declared::default(),
            call_timeout: None,
            max_rounds: 32,
            client_name: "interlude".into(),
            resolver: Resolver::system(),
            url_wait: Duration::from_secs(60),
            apps: AppsConfig::default(),
            protocol_log: crate::protocol_log::KEPT_PER_SERVER,
            trace: None,
            eras: std::sync::Arc::new(crate::EraMemory::in_memory()),
        }
    }
}

/// Host failures. Peer-caused failures never panic: they end up here.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HostError {
    /// Could not start or reach the server.
    #[error("cannot connect to `{server}`: {reason}")]
    Connect {
        /// The server's name.
        server: String,
        /// Why.
        reason: String,
    },
    /// A live server already has this name.
    #[error("a server named `{server}` is already connected")]
    DuplicateName {
        /// The name.
        server: String,
    },
    /// No live server has this id.
    #[error("no connected server with id {server}")]
    NoSuchServer {
        /// The id.
        server: ServerId,
    },
    /// A request failed at the transport or protocol level: the server answered with an
    /// error, went away, or sent something that is not a message.
    #[error("{what} on `{server}` failed: {reason}")]
    Service {
        /// The server's name.
        server: String,
        /// What failed, e.g. "the call to `ask`".
        what: String,
        /// Why, in a sentence (the server's error, how it ended, what it sent).
        reason: String,
        /// The rmcp error, for programs (its words are in `reason`).
        error: Box<rmcp::ServiceError>,
    },
    /// The call exceeded its active-time budget.
    #[error("tool call to `{server}` timed out after {budget:?} of active time")]
    Timeout {
        /// The server's name.
        server: String,
        /// The budget.
        budget: Duration,
    },
    /// The server asked for something the host refused (e.g. a schema outside the subset in an
    /// `input_required` round, or a request kind the host did not declare).
    #[error("server `{server}` asked for input the host refused: {reason}")]
    Refused {
        /// The server's name.
        server: String,
        /// Why.
        reason: String,
    },
    /// A value the host was given is not one it can use.
    #[error("{reason}")]
    Invalid {
        /// What is wrong, in a sentence naming the value.
        reason: String,
    },
    /// The server kept returning `input_required`.
    #[error("server `{server}` did not finish the call within {rounds} input rounds")]
    TooManyRounds {
        /// The server's name.
        server: String,
        /// The cap.
        rounds: usize,
    },
    /// The server answered with something the host does not handle (e.g. a task).
    #[error("unexpected response from `{server}`: {what}")]
    Unexpected {
        /// The server's name.
        server: String,
        /// What came.
        what: String,
    },
    /// The person cancelled the call ([`Host::cancel_call`]); the server was told.
    #[error("the call to `{server}` was cancelled")]
    Cancelled {
        /// The server's name.
        server: String,
    },
}

/// A change to a server's record.
pub(crate) enum ServerUpdate {
    /// A server to add, unless a live one has its name (`accepted` says which).
    Added {
        record: Box<ServerRecord>,
        accepted: oneshot::Sender<bool>,
    },
    Ready {
        id: ServerId,
        identity: ServerIdentity,
        tools: Vec<Tool>,
        /// Its MCP Apps declaration, if any.
        apps: Option<JsonObject>,
        resources: Vec<Resource>,
    },
    Tools {
        id: ServerId,
        tools: Vec<Tool>,
    },
    Resources {
        id: ServerId,
        resources: Vec<Resource>,
    },
    /// It could not connect or went away; its pending requests close with `reason`.
    Failed {
        id: ServerId,
        reason: String,
    },
    /// The host closed it; its pending requests close.
    Closed {
        id: ServerId,
    },
    /// It logged something (`notifications/message`).
    Logged(crate::registry::ServerLog),
    /// Take it off the record (it is over).
    Removed {
        id: ServerId,
    },
}

/// A change to a call's record.
pub(crate) enum CallUpdate {
    Started(Box<CallRecord>),
    Round(CallId),
    /// Its server's `notifications/progress`.
    Progress {
        id: CallId,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    },
    Ended(CallId, CallStatus),
}

/// Everything the core handles: the engine's inputs (a server's request comes with the channel
/// its reply goes back on) and changes to the record.
pub(crate) enum HostInput {
    /// A server asked for something; the reply goes back on `reply`, and, for a URL request
    /// the person consented to, word of its completion on `completed`.
    Ask {
        incoming: Incoming,
        reply: oneshot::Sender<Reply>,
        completed: Option<oneshot::Sender<()>>,
    },
    /// Any other input of the engine (answers, withdrawals).
    Engine(Input),
    Server(ServerUpdate),
    Call(CallUpdate),
    View(ViewUpdate),
    /// A server's progress on the flow of its link `elicitation_id` (a seed-000 `ua`).
    LinkProgress {
        server: ServerId,
        elicitation_id: String,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    },
}

/// How many audit records a host keeps in memory (older ones are only in the log).
const AUDIT_KEPT: usize = 10_000;

/// Ids handed out by a host.
#[derive(Debug, Default)]
struct Ids {
    request: AtomicU64,
    call: AtomicU64,
    server: AtomicU64,
    view: AtomicU64,
}

fn next(counter: &AtomicU64) -> u64 {
    counter.fetch_add(1, Ordering::Relaxed) + 1
}

/// Whose a request in flight to a server is, for its `notifications/progress`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ProgressOf {
    /// A tool call's `tools/call`: the progress lands on the call's record.
    Call(CallId),
    /// A request app view `0` made of its server (the bridge's number `1` for it): the view
    /// hears it under its own token.
    View(ViewId, u64),
    /// A seed-000 `ua` interaction (its id), tracked with `interaction/notify`: the progress
    /// lands on its request's record.
    Interaction(String),
}

/// Where each server's progress tokens in flight lead.
pub(crate) type ProgressRoutes =
    Arc<Mutex<HashMap<(ServerId, rmcp::model::ProgressToken), ProgressOf>>>;

/// What connections and their handlers share with the host: the way into the core, the
/// settings, the ids and the record. Holds no connection, so nothing here keeps one alive.
#[derive(Clone)]
pub(crate) struct Link {
    hub: Arc<Hub>,
    pub(crate) config: Arc<HostConfig>,
    ids: Arc<Ids>,
    registry: Arc<Mutex<Registry>>,
    /// How to cancel each call in flight.
    cancels: Arc<Mutex<HashMap<CallId, tokio_util::sync::CancellationToken>>>,
    /// Whose each request in flight is (a tool call, an app view's request, or the seed-000
    /// interaction an `interaction/notify` tracks), by its server and the progress token it
    /// went with (rmcp gives every request one): where `notifications/progress` lands.
    progress: ProgressRoutes,
    /// Each ready server's peer, for the requests its app views make.
    pub(crate) peers: Arc<Mutex<HashMap<ServerId, rmcp::service::Peer<RoleClient>>>>,
    /// App views' resources, read ahead.
    pub(crate) view_cache: Arc<views::ViewCache>,
    /// Every message to and from every server.
    pub(crate) log: Arc<crate::protocol_log::ProtocolLog>,
}

impl Link {
    pub(crate) fn submit(&self, input: HostInput) {
        self.hub.submit(input);
    }

    pub(crate) fn registry(&self) -> MutexGuard<'_, Registry> {
        // A poisoned record only means a panic elsewhere while it was held.
        self.registry
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(crate) fn next_call(&self) -> CallId {
        CallId(next(&self.ids.call))
    }

    pub(crate) fn next_view(&self) -> ViewId {
        ViewId(next(&self.ids.view))
    }

    /// A token cancelling call `id`, kept until [`Link::forget_call`].
    pub(crate) fn cancel_token(&self, id: CallId) -> tokio_util::sync::CancellationToken {
        let token = tokio_util::sync::CancellationToken::new();
        if let Ok(mut cancels) = self.cancels.lock() {
            cancels.insert(id, token.clone());
        }
        token
    }

    pub(crate) fn forget_call(&self, id: CallId) {
        if let Ok(mut cancels) = self.cancels.lock() {
            cancels.remove(&id);
        }
    }

    /// Progress reported under `token` by `server` is call `call`'s (until forgotten).
    pub(crate) fn watch_progress(
        &self,
        server: ServerId,
        token: rmcp::model::ProgressToken,
        call: CallId,
    ) {
        self.watch(server, token, ProgressOf::Call(call));
    }

    /// Watches `server`'s progress on `token` for whatever `of` is.
    pub(crate) fn watch(
        &self,
        server: ServerId,
        token: rmcp::model::ProgressToken,
        of: ProgressOf,
    ) {
        if let Ok(mut progress) = self.progress.lock() {
            progress.insert((server, token), of);
        }
    }

    pub(crate) fn forget_progress(&self, server: ServerId, token: &rmcp::model::ProgressToken) {
        if let Ok(mut progress) = self.progress.lock() {
            progress.remove(&(server, token.clone()));
        }
    }

    /// Whose progress `server` reports under `token`, if the request is in flight.
    pub(crate) fn progress_of(
        &self,
        server: ServerId,
        token: &rmcp::model::ProgressToken,
    ) -> Option<ProgressOf> {
        self.progress
            .lock()
            .ok()
            .and_then(|p| p.get(&(server, token.clone())).cloned())
    }

    pub(crate) fn next_server(&self) -> ServerId {
        ServerId(next(&self.ids.server))
    }

    /// Asks the person through the engine and waits for the reply. Dropping the future
    /// withdraws the request.
    pub(crate) async fn elicit(
        &self,
        server: ServerId,
        server_name: &str,
        era: ProtocolEra,
        params: ElicitParams,
        call: Option<CallId>,
    ) -> Reply {
        self.elicit_tracked(server, server_name, era, params, call, None)
            .await
    }

    /// [`Link::elicit`], and word on `completed` when the server says the flow of a URL
    /// request the person consented to finished.
    pub(crate) async fn elicit_tracked(
        &self,
        server: ServerId,
        server_name: &str,
        era: ProtocolEra,
        params: ElicitParams,
        call: Option<CallId>,
        completed: Option<oneshot::Sender<()>>,
    ) -> Reply {
        let id = RequestId(next(&self.ids.request));
        let (reply_tx, reply_rx) = oneshot::channel();
        // App-rendered questions count only when the server declared them too.
        let mut declared = self.config.declare;
        if declared.app_elicitation {
            declared.app_elicitation = self.registry().server(server).is_some_and(|s| {
                s.apps
                    .declared
                    .as_ref()
                    .and_then(|d| d.get("elicitation"))
                    .is_some_and(serde_json::Value::is_object)
            });
        }
        // Armed before the request is submitted: a reply that is already there when the future
        // is dropped is still withdrawn harmlessly (the engine ignores unknown ids).
        let mut guard = WithdrawOnDrop {
            hub: self.hub.clone(),
            id,
            armed: true,
        };
        self.hub.submit(HostInput::Ask {
            incoming: Incoming {
                id,
                server,
                server_name: server_name.to_owned(),
                call,
                era,
                declared,
                params,
            },
            reply: reply_tx,
            completed,
        });
        let reply = reply_rx.await.unwrap_or(Reply::Answered(Answer::Cancelled));
        guard.armed = false;
        reply
    }
}

struct WithdrawOnDrop {
    hub: Arc<Hub>,
    id: RequestId,
    armed: bool,
}

impl Drop for WithdrawOnDrop {
    fn drop(&mut self) {
        if self.armed {
            self.hub.submit(HostInput::Engine(Input::Withdraw {
                id: self.id,
                reason: "the server no longer waits for this answer".into(),
            }));
        }
    }
}

/// The host: connects to servers, keeps the record of servers, tool calls and requests, and
/// drives the engine and the surface. Cheap to clone; the last clone dropped closes every
/// connection it opened.
#[derive(Clone)]
pub struct Host {
    link: Link,
    connections: Arc<Mutex<BTreeMap<ServerId, Connection>>>,
    audit: Arc<Mutex<VecDeque<AuditRecord>>>,
}

impl std::fmt::Debug for Host {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Host").finish_non_exhaustive()
    }
}

impl Host {
    /// Starts a host with `surface` as the person's side. Connections need a tokio runtime; the
    /// host itself runs no task of its own.
    pub fn start(config: HostConfig, surface: impl Surface) -> Host {
        let audit = Arc::new(Mutex::new(VecDeque::new()));
        let registry = Arc::new(Mutex::new(Registry::default()));
        let start = Instant::now();
        let trace: Option<Box<dyn std::io::Write + Send>> = config.trace.as_ref().and_then(
            |path| match std::fs::File::create(path) {
                Ok(file) => Some(Box::new(std::io::BufWriter::new(file)) as Box<_>),
                Err(e) => {
                    tracing::warn!(path = %path.display(), "cannot write the protocol trace: {e}");
                    None
                }
            },
        );
        let log = Arc::new(crate::protocol_log::ProtocolLog::new(
            start,
            config.protocol_log,
            trace,
        ));
        let mut core = Core {
            engine: Engine::new(config.engine.clone()),
            surface,
            registry: registry.clone(),
            responders: HashMap::new(),
            requested_schemas: HashMap::new(),
            completions: HashMap::new(),
            audit: audit.clone(),
            start,
            resolver: config.resolver.clone(),
            runtime: tokio::runtime::Handle::try_current().ok(),
            views: Views::default(),
            apps: config.apps.clone(),
            ids: Arc::new(Ids::default()),
            view_cache: Arc::default(),
            client_name: config.client_name.clone(),
            log: log.clone(),
        };
        let (ids, view_cache) = (core.ids.clone(), core.view_cache.clone());
        let peers = core.views.peers.clone();
        let progress = core.views.progress.clone();
        let hub = Hub::start(Box::new(move |input, hub: &Weak<Hub>| {
            if let Some(hub) = hub.upgrade() {
                core.handle(input, &AnswerSink { hub });
            }
        }));
        Host {
            link: Link {
                hub,
                config: Arc::new(config),
                ids,
                registry,
                cancels: Arc::default(),
                progress,
                peers,
                view_cache,
                log,
            },
            connections: Arc::new(Mutex::new(BTreeMap::new())),
            audit,
        }
    }

    /// The host's settings.
    pub fn config(&self) -> &HostConfig {
        &self.link.config
    }

    /// Connects to a server and gives it `name` (shown to the person with every request). The
    /// server is in the record from the first moment (connecting), and stays there if it
    /// fails, with the reason.
    pub async fn connect(
        &self,
        name: impl Into<String>,
        spec: ServerSpec,
    ) -> Result<Connection, HostError> {
        let protocol = self.link.config.protocol.clone();
        self.connect_with(name, spec, protocol).await
    }

    /// Connects again to the server named `name` that failed or closed, as it was started the
    /// first time (same command line or URL, same protocol choice as the host's).
    ///
    /// ```no_run
    /// # async fn run(host: interlude_host::Host) {
    /// if let Err(e) = host.retry("weather").await {
    ///     eprintln!("still failing: {e}");
    /// }
    /// # }
    /// ```
    pub async fn retry(&self, name: &str) -> Result<Connection, HostError> {
        let record = {
            let registry = self.link.registry();
            registry
                .servers()
                .into_iter()
                .rev()
                .find(|s| s.name == name)
        };
        let Some(record) = record else {
            return Err(HostError::Invalid {
                reason: format!("no server named `{name}`"),
            });
        };
        if !record.state.is_over() {
            return Err(HostError::DuplicateName {
                server: name.to_owned(),
            });
        }
        let Some(spec) = record.spec.clone() else {
            return Err(HostError::Invalid {
                reason: format!(
                    "`{name}` was connected over a transport of the caller's: it cannot be started again here"
                ),
            });
        };
        self.connect(name.to_owned(), spec).await
    }

    /// Takes the server named `name` off the record, if it failed or closed (a live server is
    /// closed first with [`Connection::close`]). Returns whether one was removed.
    pub fn remove_server(&self, name: &str) -> bool {
        let over = self
            .link
            .registry()
            .servers()
            .into_iter()
            .filter(|s| s.name == name && s.state.is_over())
            .map(|s| s.id)
            .collect::<Vec<_>>();
        for id in &over {
            self.link
                .submit(HostInput::Server(ServerUpdate::Removed { id: *id }));
        }
        !over.is_empty()
    }

    /// Connects with a protocol choice of its own instead of the host's default.
    pub async fn connect_with(
        &self,
        name: impl Into<String>,
        spec: ServerSpec,
        protocol: ProtocolChoice,
    ) -> Result<Connection, HostError> {
        let name = name.into();
        let target = spec.target();
        // A server known to speak 2025 starts with `initialize`: no wait on `server/discover`.
        let eras = &self.link.config.eras;
        let recalled = match protocol {
            ProtocolChoice::Auto => eras.recall(&target),
            ProtocolChoice::Pin(_) => None,
        };
        let negotiation = match (&protocol, &recalled) {
            (_, Some(v)) => format!("initialize with {v}, as last time"),
            (ProtocolChoice::Auto, None) => format!(
                "asking for {} (server/discover); a server that ignores it is asked with \
                 initialize for {} after 10 s",
                ProtocolVersion::V_2026_07_28,
                ProtocolVersion::V_2025_11_25
            ),
            (ProtocolChoice::Pin(v), None) => format!("speaking {v} only"),
        };
        let id = self
            .add_record(
                &name,
                spec.transport(),
                target.clone(),
                negotiation,
                Some(spec.clone()),
            )
            .await?;
        let choice = recalled
            .clone()
            .map_or(protocol.clone(), ProtocolChoice::Pin);
        let opened = Connection::open_spec(self.link.clone(), id, name, spec, choice).await;
        match (&opened, &protocol) {
            (Ok(conn), ProtocolChoice::Auto) => {
                if let Ok(version) = serde_json::from_value::<ProtocolVersion>(
                    serde_json::Value::String(conn.info().protocol_version.clone()),
                ) {
                    eras.remember(&target, &version);
                }
            }
            // What was remembered no longer works: negotiate afresh next time.
            (Err(_), ProtocolChoice::Auto) if recalled.is_some() => eras.forget(&target),
            _ => {}
        }
        self.keep(opened)
    }

    /// Connects over a transport the caller built: any rmcp transport (an in-process peer over
    /// `tokio::io::duplex`, a custom stream…). Everything else is as for [`Host::connect`].
    ///
    /// ```
    /// use interlude_host::{Host, HostConfig, ProtocolChoice, headless::{Answers, HeadlessSurface}};
    ///
    /// # async fn run(server_end: tokio::io::DuplexStream, host_end: tokio::io::DuplexStream)
    /// #     -> Result<(), interlude_host::HostError> {
    /// // `server_end` is served by an rmcp server elsewhere (e.g. `server.serve(server_end)`).
    /// let host = Host::start(HostConfig::default(), HeadlessSurface::new(Answers::Defaults));
    /// let conn = host.connect_transport("in-process", host_end, ProtocolChoice::Auto).await?;
    /// assert_eq!(host.server(conn.id()).unwrap().transport, "in-process");
    /// # Ok(()) }
    /// ```
    pub async fn connect_transport<T, E, A>(
        &self,
        name: impl Into<String>,
        transport: T,
        protocol: ProtocolChoice,
    ) -> Result<Connection, HostError>
    where
        T: IntoTransport<RoleClient, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        let name = name.into();
        let negotiation = match &protocol {
            ProtocolChoice::Auto => format!(
                "asking for {} (server/discover), else initialize for {}",
                ProtocolVersion::V_2026_07_28,
                ProtocolVersion::V_2025_11_25
            ),
            ProtocolChoice::Pin(v) => format!("speaking {v} only"),
        };
        let id = self
            .add_record(&name, "in-process", "in-process".into(), negotiation, None)
            .await?;
        let opened = Connection::open_transport(
            self.link.clone(),
            id,
            name,
            transport,
            protocol,
            crate::connection::TransportExtras::default(),
        )
        .await;
        self.keep(opened)
    }

    /// Adds a connecting server to the record; refused when a live server has the name (checked
    /// by the core, so two connections racing for one name cannot both get it).
    async fn add_record(
        &self,
        name: &str,
        transport: &'static str,
        target: String,
        negotiation: String,
        spec: Option<ServerSpec>,
    ) -> Result<ServerId, HostError> {
        let id = self.link.next_server();
        let (accepted, verdict) = oneshot::channel();
        self.link.submit(HostInput::Server(ServerUpdate::Added {
            record: Box::new(ServerRecord {
                id,
                name: name.to_owned(),
                transport,
                target,
                state: ServerState::Connecting,
                identity: None,
                tools: Vec::new(),
                apps: ServerApps::default(),
                negotiation: Some(negotiation),
                spec,
            }),
            accepted,
        }));
        if verdict.await.unwrap_or(false) {
            Ok(id)
        } else {
            Err(HostError::DuplicateName {
                server: name.to_owned(),
            })
        }
    }

    fn keep(&self, opened: Result<Connection, HostError>) -> Result<Connection, HostError> {
        let conn = opened?;
        if let Ok(mut map) = self.connections.lock() {
            map.insert(conn.id(), conn.clone());
        }
        Ok(conn)
    }

    /// The record of the live (not failed, not closed) server named `name`, connecting or
    /// ready.
    pub fn live_server_named(&self, name: &str) -> Option<Arc<ServerRecord>> {
        let registry = self.link.registry();
        let id = registry.live_server_named(name)?;
        registry.server(id)
    }

    /// The live connection to server `id`.
    pub fn connection(&self, id: ServerId) -> Option<Connection> {
        self.connections.lock().ok()?.get(&id).cloned()
    }

    /// The live connection to the server named `name`.
    pub fn connection_named(&self, name: &str) -> Option<Connection> {
        let id = self.link.registry().live_server_named(name)?;
        self.connection(id)
    }

    /// Calls `tool` on server `server`; see [`Connection::call_tool`].
    pub async fn call_tool(
        &self,
        server: ServerId,
        tool: &str,
        arguments: Option<JsonObject>,
    ) -> Result<CallOutcome, HostError> {
        let conn = self
            .connection(server)
            .ok_or(HostError::NoSuchServer { server })?;
        conn.call_tool(tool, arguments).await
    }

    /// Closes the connection to server `id` (its record stays, as closed).
    pub async fn disconnect(&self, id: ServerId) {
        let conn = self.connections.lock().ok().and_then(|mut m| m.remove(&id));
        if let Some(conn) = conn {
            conn.close().await;
        }
    }

    /// Closes every connection.
    pub async fn close_all(&self) {
        let all: Vec<Connection> = self
            .connections
            .lock()
            .map(|mut m| std::mem::take(&mut *m).into_values().collect())
            .unwrap_or_default();
        for conn in all {
            conn.close().await;
        }
    }

    /// Everything the host knows now: servers, calls and requests, in creation order.
    pub fn snapshot(&self) -> HostSnapshot {
        self.link.registry().snapshot()
    }

    /// The record of server `id`.
    pub fn server(&self, id: ServerId) -> Option<Arc<ServerRecord>> {
        self.link.registry().server(id)
    }

    /// The record of call `id` (running, or among the recently finished).
    pub fn call(&self, id: CallId) -> Option<Arc<CallRecord>> {
        self.link.registry().call(id)
    }

    /// Cancels call `id` if it is in flight: the server is told (`notifications/cancelled`),
    /// whoever awaits the call gets [`HostError::Cancelled`], and requests it raised are
    /// withdrawn. Returns whether there was such a call.
    ///
    /// ```no_run
    /// # fn run(host: interlude_host::Host, call: interlude_host::CallId) {
    /// if !host.cancel_call(call) {
    ///     eprintln!("that call had already ended");
    /// }
    /// # }
    /// ```
    pub fn cancel_call(&self, id: CallId) -> bool {
        let token = self
            .link
            .cancels
            .lock()
            .ok()
            .and_then(|c| c.get(&id).cloned());
        match token {
            Some(token) => {
                token.cancel();
                true
            }
            None => false,
        }
    }

    /// The person says they are done in the browser with URL request `id`'s link, before its
    /// server said so: the host stops waiting for it (after a `-32042` error, the call is
    /// retried now rather than at the server's word or after `url_wait`). Returns whether the
    /// request's link was one still awaited.
    ///
    /// ```no_run
    /// # fn run(host: interlude_host::Host, request: interlude_host::RequestId) {
    /// if !host.link_done(request) {
    ///     eprintln!("nothing was waiting for that link");
    /// }
    /// # }
    /// ```
    pub fn link_done(&self, id: RequestId) -> bool {
        let awaited = self
            .link
            .registry()
            .request(id)
            .is_some_and(|r| r.awaits_link());
        if awaited {
            self.link
                .submit(HostInput::Engine(Input::Url(UrlInput::Done { id })));
        }
        awaited
    }

    /// Shows app-rendered form `id` as the plain form (the person asked for it, or the surface
    /// cannot show its view): its view, if open, is told and torn down. Returns whether `id` is
    /// a pending app-rendered form still shown in its view.
    ///
    /// ```
    /// # fn run(host: interlude_host::Host, request: interlude_host::RequestId) {
    /// host.show_plain_form(request, "the person asked for the host's own form");
    /// # }
    /// ```
    pub fn show_plain_form(&self, id: RequestId, reason: &str) -> bool {
        let in_view = self.link.registry().request(id).is_some_and(|r| {
            r.status.is_pending()
                && matches!(&r.view.kind, interlude_engine::RequestKind::AppForm(app)
                    if app.stage == interlude_engine::AppStage::View)
        });
        if in_view {
            self.link
                .submit(HostInput::Engine(Input::AppForm(AppFormInput::Fallback {
                    id,
                    reason: reason.to_owned(),
                })));
        }
        in_view
    }

    /// Server `server`'s messages as they went over the wire, oldest first (the last
    /// [`HostConfig::protocol_log`] of them; sensitive-looking values redacted).
    ///
    /// ```
    /// # fn run(host: interlude_host::Host, server: interlude_host::ServerId) {
    /// for m in host.protocol_log(server) {
    ///     println!("{:>6} ms {:?} {}", m.t_ms, m.dir, m.method().unwrap_or("(response)"));
    /// }
    /// # }
    /// ```
    pub fn protocol_log(&self, server: ServerId) -> Vec<Arc<crate::LoggedMessage>> {
        self.link.log.of(server)
    }

    /// Server `server`'s messages that came after the one numbered `after`
    /// ([`LoggedMessage::seq`]), oldest first: what a reader that has the rest still needs.
    ///
    /// ```
    /// # fn run(host: interlude_host::Host, server: interlude_host::ServerId) {
    /// let mut last = 0;
    /// for m in host.protocol_log_since(server, last) {
    ///     last = m.seq;
    /// }
    /// # }
    /// ```
    pub fn protocol_log_since(
        &self,
        server: ServerId,
        after: u64,
    ) -> Vec<Arc<crate::LoggedMessage>> {
        self.link.log.since(server, after)
    }

    /// The record of app view `id` (open, or among the recently closed).
    pub fn view(&self, id: ViewId) -> Option<Arc<ViewRecord>> {
        self.link.registry().view(id)
    }

    /// A message from app view `id` (its frame posted it): the bridge decides what it means.
    pub fn view_message(&self, id: ViewId, message: serde_json::Value) {
        let from = {
            let registry = self.link.registry();
            registry.view(id).and_then(|view| {
                let server = registry.server(view.server)?;
                Some((view.server, server.name.clone()))
            })
        };
        if let Some((server, name)) = from {
            self.link
                .log
                .record_view(server, &name, id, crate::Direction::Recv, message.clone());
        }
        self.link.submit(HostInput::Engine(Input::View {
            view: id,
            input: ViewInput::FromView(message),
        }));
    }

    /// A surface began loading app view `id`'s document (the web surface: its sandbox served
    /// the view's proxy document). For a view that renders a question, this starts the clock
    /// within which it must start ([`EngineConfig::app_start_ms`](interlude_engine::EngineConfig))
    /// before the person gets the plain form: a view nobody frames yet has not failed.
    ///
    /// ```
    /// # fn run(host: interlude_host::Host, view: interlude_host::ViewId) {
    /// host.view_loading(view);
    /// # }
    /// ```
    pub fn view_loading(&self, id: ViewId) {
        self.link.submit(HostInput::Engine(Input::View {
            view: id,
            input: ViewInput::Loading,
        }));
    }

    /// The surface's context for app view `id` changed (theme, locale, time zone, container
    /// size…): the view hears the keys that differ from what it knows.
    pub fn view_context(&self, id: ViewId, changes: JsonObject) {
        self.link.submit(HostInput::Engine(Input::View {
            view: id,
            input: ViewInput::HostContext(changes),
        }));
    }

    /// Calls tool `name` of app view `view` itself (one of its [`ViewRecord::app_tools`]), as a
    /// model would; the result lands in its `app_tool_results`.
    pub fn call_view_tool(&self, view: ViewId, name: &str, arguments: JsonObject) {
        self.link.submit(HostInput::Engine(Input::View {
            view,
            input: ViewInput::CallViewTool {
                name: name.to_owned(),
                arguments,
            },
        }));
    }

    /// The person's answer to files app view `view` offered (question `question` of its
    /// [`ViewRecord::downloads`](crate::ViewRecord)): saved (the surface saved them) or not.
    pub fn answer_download(&self, view: ViewId, question: u64, saved: bool) {
        self.link.submit(HostInput::View(ViewUpdate::Download {
            view,
            question,
            saved,
        }));
    }

    /// The person puts app view `id` in display mode `mode` (`inline`, `fullscreen`, `pip`)
    /// from the host's own controls; the view hears the change.
    pub fn view_display_mode(&self, id: ViewId, mode: &str) {
        self.link.submit(HostInput::Engine(Input::View {
            view: id,
            input: ViewInput::DisplayMode(mode.to_owned()),
        }));
    }

    /// Closes app view `id` (the person closed it): `ui/resource-teardown`, then its frame goes.
    pub fn close_view(&self, id: ViewId) {
        self.link.submit(HostInput::View(ViewUpdate::Close {
            view: id,
            reason: "the person closed it".into(),
        }));
    }

    /// The record of request `id` (pending, or among the recently finished).
    pub fn request(&self, id: RequestId) -> Option<Arc<RequestRecord>> {
        self.link.registry().request(id)
    }

    /// A sink to answer requests through from outside the surface callbacks (e.g. an HTTP
    /// handler of the web surface).
    pub fn answer_sink(&self) -> AnswerSink {
        AnswerSink {
            hub: self.link.hub.clone(),
        }
    }

    /// The audit records kept in memory, oldest first.
    pub fn audit_records(&self) -> Vec<AuditRecord> {
        self.audit
            .lock()
            .map(|a| a.iter().cloned().collect())
            .unwrap_or_default()
    }
}

/// The engine, the surface, the record and the callers waiting for replies: touched only with
/// the hub's core lock held.
struct Core<S> {
    engine: Engine,
    surface: S,
    registry: Arc<Mutex<Registry>>,
    responders: HashMap<RequestId, oneshot::Sender<Reply>>,
    /// Each request's `requestedSchema` as sent, until it is queued (or refused).
    requested_schemas: HashMap<RequestId, serde_json::Value>,
    /// Who waits for word that a URL request's flow finished.
    completions: HashMap<RequestId, oneshot::Sender<()>>,
    audit: Arc<Mutex<VecDeque<AuditRecord>>>,
    start: Instant,
    resolver: Resolver,
    /// Where lookups run when the input came from outside any runtime (a terminal thread).
    runtime: Option<tokio::runtime::Handle>,
    /// App views: their calls and servers, requests in flight.
    views: Views,
    apps: AppsConfig,
    /// The ids the host gives out (views of questions are opened here).
    ids: Arc<Ids>,
    /// App views' resources, read ahead (shared with the connections).
    view_cache: Arc<views::ViewCache>,
    /// The host's name, for views' `hostInfo`.
    client_name: String,
    /// The protocol log (views' traffic goes in beside their server's).
    log: Arc<crate::protocol_log::ProtocolLog>,
}

impl<S: Surface> Core<S> {
    fn record<R>(&self, f: impl FnOnce(&mut Registry) -> R) -> R {
        let mut registry = self
            .registry
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        f(&mut registry)
    }

    /// Tells the surface, with the record unlocked (it may read it).
    fn tell(&mut self, event: Option<HostEvent>, sink: &AnswerSink) {
        if let Some(event) = event {
            self.surface.on_event(&event, sink);
        }
    }

    fn handle(&mut self, input: HostInput, sink: &AnswerSink) {
        let now_ms = u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX);
        let input = match input {
            HostInput::Ask {
                incoming,
                reply,
                completed,
            } => {
                self.responders.insert(incoming.id, reply);
                if let Some(schema) = requested_schema(&incoming.params) {
                    self.requested_schemas.insert(incoming.id, schema);
                }
                if let Some(tx) = completed {
                    // Nobody waits any more for flows whose waiter gave up.
                    self.completions.retain(|_, tx| !tx.is_closed());
                    self.completions.insert(incoming.id, tx);
                }
                Input::Request(incoming)
            }
            HostInput::Engine(input) => input,
            HostInput::Server(update) => {
                let gone = match &update {
                    ServerUpdate::Failed { id, reason } => Some((*id, reason.clone())),
                    ServerUpdate::Closed { id } => {
                        Some((*id, "the connection to the server was closed".to_owned()))
                    }
                    _ => None,
                };
                let tools_of = match &update {
                    ServerUpdate::Tools { id, .. } | ServerUpdate::Ready { id, .. } => Some(*id),
                    _ => None,
                };
                let event = self.record(|r| apply_server(r, update));
                self.tell(event, sink);
                // Its views' calls are checked against its tools as they are now.
                if let Some(server) = tools_of
                    && let Some(record) = self.record(|r| r.server(server))
                {
                    let tools = record
                        .tools
                        .iter()
                        .map(|t| (t.name.to_string(), record.visibility(&t.name)))
                        .collect();
                    self.run(Input::ServerTools { server, tools }, now_ms, sink);
                }
                match gone {
                    Some((server, reason)) => Input::ServerGone { server, reason },
                    None => return,
                }
            }
            HostInput::Call(update) => {
                let ended = match &update {
                    CallUpdate::Ended(id, _) => Some(*id),
                    _ => None,
                };
                let (event, orphans) = self.record(|r| match update {
                    CallUpdate::Started(record) => (Some(r.start_call(*record)), Vec::new()),
                    CallUpdate::Round(id) => (r.call_round(id), Vec::new()),
                    CallUpdate::Progress {
                        id,
                        progress,
                        total,
                        message,
                    } => (r.call_progress(id, progress, total, message), Vec::new()),
                    CallUpdate::Ended(id, status) => (r.end_call(id, status), r.pending_of(id)),
                });
                self.tell(event, sink);
                // A request whose call has ended can no longer serve it: close it, and the
                // server (if it still waits) gets a cancel.
                for id in orphans {
                    let reason = "the tool call that asked this has ended".to_owned();
                    self.run(Input::Withdraw { id, reason }, now_ms, sink);
                }
                if let Some(call) = ended {
                    self.call_ended_for_views(call, sink);
                }
                return;
            }
            HostInput::View(update) => {
                self.view_update(update, sink);
                return;
            }
            HostInput::LinkProgress {
                server,
                elicitation_id,
                progress,
                total,
                message,
            } => {
                let event = self.record(|r| {
                    let id = r.open_flow(server, &elicitation_id)?;
                    r.change_request(id, |req| req.link_progress(progress, total, message))
                });
                self.tell(event, sink);
                return;
            }
        };
        self.run(input, now_ms, sink);
    }

    /// Hands one input to the engine and carries out its effects.
    fn run(&mut self, input: Input, now_ms: u64, sink: &AnswerSink) {
        for effect in self.engine.handle(input, now_ms) {
            match effect {
                Effect::Reply { id, reply } => {
                    self.requested_schemas.remove(&id);
                    if reply != Reply::Consented {
                        self.completions.remove(&id);
                    }
                    let event = self.record(|r| r.reply_request(id, reply.clone()));
                    self.tell(event, sink);
                    if let Some(tx) = self.responders.remove(&id) {
                        let _ = tx.send(reply);
                    }
                }
                Effect::Queued(view) => {
                    let app = match &view.kind {
                        interlude_engine::RequestKind::AppForm(app) => {
                            Some((view.id, view.server, view.call, app.resource_uri.clone()))
                        }
                        _ => None,
                    };
                    let schema = self.requested_schemas.remove(&view.id);
                    let event = self.record(|r| r.queue_request(view, schema));
                    self.tell(Some(event), sink);
                    if let Some((id, server, call, uri)) = app {
                        self.open_question_view(id, server, call, uri, sink);
                    }
                }
                Effect::AppForm(AppFormEffect::Fallback { id, reason }) => {
                    let event = self.record(|r| r.change_request(id, |req| req.fall_back(reason)));
                    self.tell(event, sink);
                }
                Effect::Present(id) => {
                    let event = self.record(|r| r.present_request(id));
                    self.tell(event, sink);
                }
                Effect::Invalid { id, errors } => {
                    let event = self.record(|r| r.invalid_answer(id, errors));
                    self.tell(event, sink);
                }
                Effect::Url(UrlEffect::Resolve { id, host }) => self.resolve(id, host, sink),
                Effect::Url(UrlEffect::Open { id, url }) => {
                    let event = self.record(|r| r.change_request(id, |req| req.link_opened(url)));
                    self.tell(event, sink);
                }
                Effect::Url(UrlEffect::Completed { id }) => {
                    let event = self.record(|r| r.change_request(id, |req| req.link_completed()));
                    self.tell(event, sink);
                    if let Some(tx) = self.completions.remove(&id) {
                        let _ = tx.send(());
                    }
                }
                Effect::Url(UrlEffect::Done { id }) => {
                    let event = self.record(|r| r.change_request(id, |req| req.link_done()));
                    self.tell(event, sink);
                    if let Some(tx) = self.completions.remove(&id) {
                        let _ = tx.send(());
                    }
                }
                Effect::Closed { id, notice } => {
                    self.responders.remove(&id);
                    self.completions.remove(&id);
                    let event = self.record(|r| r.close_request(id, notice));
                    self.tell(event, sink);
                }
                Effect::View { view, effect } => self.view_effect(view, effect, sink),
                Effect::Audit(mut record) => {
                    // Who asked, as the server says it is, beside the name it has here.
                    if let Some(server) = self.record(|r| {
                        r.live_server_named(&record.server)
                            .and_then(|id| r.server(id))
                    }) {
                        record.server_title = server
                            .identity
                            .as_ref()
                            .map(|i| i.display_name().to_owned());
                    }
                    tracing::info!(
                        target: "interlude::audit",
                        record = %serde_json::to_string(&record).unwrap_or_default(),
                    );
                    if let Ok(mut log) = self.audit.lock() {
                        // A ring: dropping the oldest record must not move the other 10 000.
                        if log.len() >= AUDIT_KEPT {
                            log.pop_front();
                        }
                        log.push_back(record);
                    }
                }
            }
        }
    }
}

impl<S> Core<S> {
    /// Milliseconds since the host started (the engine's clock).
    fn now_ms(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// Runs `task` on the current runtime, or the one the host was started in; `None` when
    /// there is none (nothing can run: logged).
    fn spawn(
        &self,
        task: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> Option<tokio::task::AbortHandle> {
        match tokio::runtime::Handle::try_current()
            .ok()
            .or_else(|| self.runtime.clone())
        {
            Some(runtime) => Some(runtime.spawn(task).abort_handle()),
            None => {
                tracing::warn!("no async runtime to run a host task in");
                None
            }
        }
    }

    /// Looks up a link's host name (the person consented) and hands the addresses back to the
    /// engine as an input of its own.
    fn resolve(&self, id: RequestId, host: String, sink: &AnswerSink) {
        let resolver = self.resolver.clone();
        let hub = sink.hub.clone();
        let lookup = async move {
            let addresses = resolver.lookup(host).await;
            hub.submit(HostInput::Engine(Input::Url(UrlInput::Resolved {
                id,
                addresses,
            })));
        };
        match tokio::runtime::Handle::try_current()
            .ok()
            .or_else(|| self.runtime.clone())
        {
            Some(runtime) => {
                runtime.spawn(lookup);
            }
            None => {
                // No runtime anywhere: the link cannot be checked, so it is not opened.
                tracing::warn!("no async runtime to look up a link's host name in");
                sink.hub
                    .submit(HostInput::Engine(Input::Url(UrlInput::Resolved {
                        id,
                        addresses: Vec::new(),
                    })));
            }
        }
    }
}

fn apply_server(r: &mut Registry, update: ServerUpdate) -> Option<HostEvent> {
    match update {
        ServerUpdate::Added { record, accepted } => {
            let free = r.live_server_named(&record.name).is_none();
            let _ = accepted.send(free);
            free.then(|| r.add_server(*record))
        }
        ServerUpdate::Ready {
            id,
            identity,
            tools,
            apps,
            resources,
        } => r.change_server(id, |s| {
            s.state = ServerState::Ready;
            s.negotiation = None;
            s.identity = Some(identity);
            s.set_tools(tools);
            s.apps.declared = apps;
            s.apps.resources = resources;
        }),
        ServerUpdate::Tools { id, tools } => r.change_server(id, |s| s.set_tools(tools)),
        ServerUpdate::Resources { id, resources } => {
            r.change_server(id, |s| s.apps.resources = resources)
        }
        ServerUpdate::Failed { id, reason } => r.change_server(id, |s| {
            // A closed server stays closed: its transport ending afterwards is no failure.
            if s.state != ServerState::Closed {
                s.state = ServerState::Failed { reason };
            }
            s.negotiation = None;
        }),
        ServerUpdate::Closed { id } => r.change_server(id, |s| s.state = ServerState::Closed),
        ServerUpdate::Logged(log) => Some(HostEvent::ServerLogged(Arc::new(log))),
        ServerUpdate::Removed { id } => r.remove_server(id),
    }
}

/// The `requestedSchema` of a request's params, as the server sent it.
fn requested_schema(params: &ElicitParams) -> Option<serde_json::Value> {
    match params {
        // The schema alone is serialized, not the whole request.
        ElicitParams::Typed(typed) => match &**typed {
            rmcp::model::ElicitRequestParams::FormElicitationParams {
                requested_schema, ..
            } => serde_json::to_value(requested_schema).ok(),
            _ => None,
        },
        ElicitParams::Json(raw) => raw.get("requestedSchema").cloned(),
        // A seed-000 prompt's form is its `interaction.schema`.
        ElicitParams::Interaction(raw) => raw.get("interaction")?.get("schema").cloned(),
    }
}
