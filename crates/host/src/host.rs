//! [`Host`]: the handle everything goes through, its settings and errors, and the core that
//! owns the engine, the record of servers and calls, and the surface.
//!
//! One closed enum of inputs ([`HostInput`]) reaches the core through the hub (`hub.rs`): the
//! engine's own inputs wrapped as they are, plus what the record needs (a server added or
//! changed, a call started, moved on or ended). The core applies each one to the engine and the
//! record and tells the surface, in order.
//!
//! What it does not do: open transports or speak MCP (see `connection.rs` and `handler.rs`).

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex, Weak};

use interlude_engine::{
    AppFormInput, AuditRecord, CallId, Engine, Input, RequestId, ServerId, UrlInput, ViewId,
    ViewInput,
};
use rmcp::model::{JsonObject, ProtocolVersion};
use rmcp::service::RoleClient;
use rmcp::transport::IntoTransport;
use tokio::sync::oneshot;
use tokio::time::Instant;

mod core;

use core::Core;

pub use crate::hub::config::{AppsConfig, HostConfig, HostError, ProtocolChoice};
use crate::hub::inputs::{CallUpdate, HostInput, ServerUpdate, ViewUpdate};
use crate::hub::shared::{Ids, Shared};
use crate::views::Views;

use crate::call::CallOutcome;
use crate::hub::Hub;
use crate::hub::surface::{AnswerSink, Surface};
use crate::record::registry::{
    CallRecord, HostSnapshot, Registry, ServerApps, ServerRecord, ServerState, ViewRecord,
};
use crate::record::request::RequestRecord;
use crate::session::Connection;
use crate::sync::lock;
use crate::transport::spec::ServerSpec;

/// The host: connects to servers, keeps the record of servers, tool calls and requests, and
/// drives the engine and the surface. Cheap to clone; the last clone dropped closes every
/// connection it opened.
#[derive(Clone)]
pub struct Host {
    shared: Shared,
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
        let trace = config.trace.as_ref().and_then(|path| {
            match crate::logs::trace::Trace::open(path) {
                Ok(trace) => Some(trace),
                Err(e) => {
                    tracing::warn!(path = %path.display(), "cannot write the protocol trace: {e}");
                    None
                }
            }
        });
        let log = Arc::new(crate::logs::protocol_log::ProtocolLog::new(
            start,
            config.protocol_log,
            trace,
            config.network_log,
        ));
        let ids = Arc::new(Ids::default());
        let mut core = Core {
            engine: Engine::new(config.engine.clone()),
            surface,
            registry: registry.clone(),
            responders: crate::id_map::IdMap::default(),
            completions: crate::id_map::IdMap::default(),
            audit: audit.clone(),
            start,
            resolver: config.resolver.clone(),
            runtime: tokio::runtime::Handle::try_current().ok(),
            views: Views::new(
                config.apps.clone(),
                ids.clone(),
                Arc::default(),
                config.client_name.clone(),
                config.declare,
                config.engine.url_policy.clone(),
                log.clone(),
            ),
            routes: crate::id_map::IdMap::default(),
            cancels: crate::id_map::IdMap::default(),
            effects: Vec::new(),
            titles: Vec::new(),
        };
        let hub = Hub::start(Box::new(move |input, hub: &Weak<Hub>| {
            if let Some(hub) = hub.upgrade() {
                core.handle(input, &AnswerSink { hub });
            }
        }));
        let roots = Arc::new(Mutex::new(Arc::from(config.roots.clone())));
        Host {
            shared: Shared {
                hub,
                roots,
                config: Arc::new(config),
                ids,
                registry,
                log,
            },
            connections: Arc::new(Mutex::new(BTreeMap::new())),
            audit,
        }
    }

    /// The host's settings.
    pub fn config(&self) -> &HostConfig {
        &self.shared.config
    }

    /// The roots `roots/list` is answered with now ([`HostConfig::roots`] until changed).
    pub fn roots(&self) -> Vec<crate::hub::roots::Root> {
        self.shared.roots().to_vec()
    }

    /// Replaces the roots `roots/list` is answered with; every connected server hears
    /// `notifications/roots/list_changed` (servers that connect later just list them).
    ///
    /// ```
    /// use interlude_host::{Host, HostConfig, Root};
    /// # struct Quiet;
    /// # impl interlude_host::Surface for Quiet {
    /// #     fn on_event(&mut self, _: &interlude_host::HostEvent, _: &interlude_host::AnswerSink) {}
    /// # }
    ///
    /// let host = Host::start(HostConfig::default(), Quiet);
    /// assert!(host.roots().is_empty(), "none unless configured");
    /// host.set_roots(vec![Root { uri: "file:///srv/projects/atlas".into(), name: None }]);
    /// assert_eq!(host.roots()[0].uri, "file:///srv/projects/atlas");
    /// ```
    pub fn set_roots(&self, roots: Vec<crate::hub::roots::Root>) {
        *crate::sync::lock(&self.shared.roots) = Arc::from(roots);
        // Servers hear of roots only from a host that declared them.
        if self.shared.config.declare_roots {
            self.shared.submit(HostInput::RootsChanged);
        }
    }

    /// Connects to a server and gives it `name` (shown to the person with every request). The
    /// server is in the record from the first moment (connecting), and stays there if it
    /// fails, with the reason.
    pub async fn connect(
        &self,
        name: impl Into<String>,
        spec: ServerSpec,
    ) -> Result<Connection, HostError> {
        let protocol = self.shared.config.protocol.clone();
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
            let registry = self.shared.registry();
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
            .shared
            .registry()
            .servers()
            .into_iter()
            .filter(|s| s.name == name && s.state.is_over())
            .map(|s| s.id)
            .collect::<Vec<_>>();
        for id in &over {
            self.shared
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
        let eras = &self.shared.config.eras;
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
        let opened = Connection::open_spec(self.shared.clone(), id, name, spec, choice).await;
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
    /// use interlude_host::{Host, HostConfig, ProtocolChoice};
    /// # struct Quiet;
    /// # impl interlude_host::Surface for Quiet {
    /// #     fn on_event(&mut self, _: &interlude_host::HostEvent, _: &interlude_host::AnswerSink) {}
    /// # }
    ///
    /// # async fn run(server_end: tokio::io::DuplexStream, host_end: tokio::io::DuplexStream)
    /// #     -> Result<(), interlude_host::HostError> {
    /// // `server_end` is served by an rmcp server elsewhere (e.g. `server.serve(server_end)`).
    /// let host = Host::start(HostConfig::default(), Quiet);
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
            self.shared.clone(),
            id,
            name,
            transport,
            protocol,
            crate::session::TransportExtras::default(),
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
        let id = self.shared.next_server();
        let (accepted, verdict) = oneshot::channel();
        self.shared.submit(HostInput::Server(ServerUpdate::Added {
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
                catalog: crate::record::catalog::ServerCatalog::default(),
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
        lock(&self.connections).insert(conn.id(), conn.clone());
        Ok(conn)
    }

    /// The record of the live (not failed, not closed) server named `name`, connecting or
    /// ready.
    pub fn live_server_named(&self, name: &str) -> Option<Arc<ServerRecord>> {
        let registry = self.shared.registry();
        let id = registry.live_server_named(name)?;
        registry.server(id)
    }

    /// The live connection to server `id`.
    pub fn connection(&self, id: ServerId) -> Option<Connection> {
        lock(&self.connections).get(&id).cloned()
    }

    /// The live connection to the server named `name`.
    pub fn connection_named(&self, name: &str) -> Option<Connection> {
        let id = self.shared.registry().live_server_named(name)?;
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
        let conn = lock(&self.connections).remove(&id);
        if let Some(conn) = conn {
            conn.close().await;
        }
    }

    /// Closes every connection.
    pub async fn close_all(&self) {
        let all: Vec<Connection> = std::mem::take(&mut *lock(&self.connections))
            .into_values()
            .collect();
        for conn in all {
            conn.close().await;
        }
    }

    /// Everything the host knows now: servers, calls and requests, in creation order.
    pub fn snapshot(&self) -> HostSnapshot {
        self.shared.registry().snapshot()
    }

    /// The record of server `id`.
    pub fn server(&self, id: ServerId) -> Option<Arc<ServerRecord>> {
        self.shared.registry().server(id)
    }

    /// The record of call `id` (running, or among the recently finished).
    pub fn call(&self, id: CallId) -> Option<Arc<CallRecord>> {
        self.shared.registry().call(id)
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
        let running = self
            .shared
            .registry()
            .call(id)
            .is_some_and(|c| c.status == crate::record::registry::CallStatus::Running);
        if running {
            self.shared.submit(HostInput::Call(CallUpdate::Cancel(id)));
        }
        running
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
            .shared
            .registry()
            .request(id)
            .is_some_and(|r| r.awaits_link());
        if awaited {
            self.shared
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
        let in_view = self.shared.registry().request(id).is_some_and(|r| {
            r.status.is_pending()
                && matches!(&r.request.kind, interlude_engine::RequestKind::AppForm(app)
                    if app.stage == interlude_engine::AppStage::View)
        });
        if in_view {
            self.shared
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
    pub fn protocol_log(
        &self,
        server: ServerId,
    ) -> Vec<Arc<crate::logs::protocol_log::LoggedMessage>> {
        self.shared.log.of(server)
    }

    /// When the protocol log's time 0 was, in milliseconds since the Unix epoch: a logged
    /// message's clock time is this plus its
    /// [`t_ms`](crate::logs::protocol_log::LoggedMessage::t_ms).
    pub fn protocol_log_epoch_ms(&self) -> u64 {
        self.shared.log.started_at_ms()
    }

    /// Server `server`'s messages that came after the one numbered `after`
    /// ([`LoggedMessage::seq`](crate::logs::protocol_log::LoggedMessage::seq)), oldest first: what a reader that has the rest still needs.
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
    ) -> Vec<Arc<crate::logs::protocol_log::LoggedMessage>> {
        self.shared.log.since(server, after)
    }

    /// Server `server`'s HTTP exchanges, oldest first (the last [`HostConfig::network_log`] of
    /// them): method, path, status, headers with secrets redacted
    /// ([`redact_header`](crate::redact_header)), timing, sizes, and the JSON-RPC messages each
    /// carried, linked to their rows of [`Host::protocol_log`] by
    /// [`CarriedMessage::log_seq`](crate::CarriedMessage::log_seq). A server not reached over
    /// HTTP (stdio) has none, and says so.
    ///
    /// ```
    /// # fn run(host: interlude_host::Host, server: interlude_host::ServerId) {
    /// match host.network_log(server) {
    ///     Ok(exchanges) => {
    ///         for x in exchanges {
    ///             let status = x.status.map_or("…".to_owned(), |s| s.to_string());
    ///             let methods: Vec<_> = x.sent.iter().filter_map(|m| m.method.as_deref()).collect();
    ///             println!("{} {} {status} {} B {methods:?}", x.method, x.path, x.response_bytes);
    ///         }
    ///     }
    ///     // "stdio: no HTTP exchanges"
    ///     Err(why) => println!("{why}"),
    /// }
    /// # }
    /// ```
    pub fn network_log(
        &self,
        server: ServerId,
    ) -> Result<Vec<crate::logs::network_log::HttpExchange>, crate::logs::network_log::NoNetworkLog>
    {
        use crate::logs::network_log::NoNetworkLog;
        if let Some(exchanges) = self.shared.log.network().of(server) {
            return Ok(exchanges);
        }
        match self.shared.registry().server(server) {
            Some(record) if record.transport == "http" => Ok(Vec::new()),
            Some(record) => Err(NoNetworkLog::NotHttp {
                transport: record.transport.to_owned(),
            }),
            None => Err(NoNetworkLog::UnknownServer),
        }
    }

    /// The record of app view `id` (open, or among the recently closed).
    pub fn view(&self, id: ViewId) -> Option<Arc<ViewRecord>> {
        self.shared.registry().view(id)
    }

    /// A message from app view `id` (its frame posted it): the bridge decides what it means.
    pub fn view_message(&self, id: ViewId, message: serde_json::Value) {
        let from = {
            let registry = self.shared.registry();
            registry.view(id).and_then(|view| {
                let server = registry.server(view.server)?;
                Some((view.server, server.name.clone()))
            })
        };
        if let Some((server, name)) = from {
            self.shared.log.record_view(
                server,
                &name,
                id,
                crate::logs::protocol_log::Direction::Recv,
                loggable(&message),
            );
        }
        self.shared.submit(HostInput::Engine(Input::View {
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
        self.shared.submit(HostInput::Engine(Input::View {
            view: id,
            input: ViewInput::Loading,
        }));
    }

    /// The surface's context for app view `id` changed (theme, locale, time zone, container
    /// size…): the view hears the keys that differ from what it knows.
    pub fn view_context(&self, id: ViewId, changes: JsonObject) {
        self.shared.submit(HostInput::Engine(Input::View {
            view: id,
            input: ViewInput::HostContext(changes),
        }));
    }

    /// Calls tool `name` of app view `view` itself (one of its [`ViewRecord::app_tools`]), as a
    /// model would; the result lands in its `app_tool_results`.
    pub fn call_view_tool(&self, view: ViewId, name: &str, arguments: JsonObject) {
        self.shared.submit(HostInput::Engine(Input::View {
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
        self.shared.submit(HostInput::View(ViewUpdate::Download {
            view,
            question,
            saved,
        }));
    }

    /// The person puts app view `id` in display mode `mode` (`inline`, `fullscreen`, `pip`)
    /// from the host's own controls; the view hears the change.
    pub fn view_display_mode(&self, id: ViewId, mode: &str) {
        self.shared.submit(HostInput::Engine(Input::View {
            view: id,
            input: ViewInput::DisplayMode(mode.to_owned()),
        }));
    }

    /// The person chose to show the web page embedded view `id` carries (an external URL in a
    /// tool result), framed in the sandbox without its own origin's rights: its host name is
    /// looked up, and the page is framed ([`ExternalSite::framed`](crate::ExternalSite)) only if
    /// the addresses pass the URL rules; otherwise the view fails and says why. Nothing happens
    /// for a view without a page, a refused one, or one already framed.
    ///
    /// ```no_run
    /// # fn run(host: &interlude_host::Host, view: interlude_host::ViewId) {
    /// host.show_site(view);
    /// # }
    /// ```
    pub fn show_site(&self, id: ViewId) {
        self.shared
            .submit(HostInput::View(ViewUpdate::ShowSite { view: id }));
    }

    /// Closes app view `id` (the person closed it): `ui/resource-teardown`, then its frame goes.
    pub fn close_view(&self, id: ViewId) {
        self.shared.submit(HostInput::View(ViewUpdate::Close {
            view: id,
            reason: "the person closed it".into(),
        }));
    }

    /// The record of request `id` (pending, or among the recently finished).
    pub fn request(&self, id: RequestId) -> Option<Arc<RequestRecord>> {
        self.shared.registry().request(id)
    }

    /// A sink to answer requests through from outside the surface callbacks (e.g. an HTTP
    /// handler of the web surface).
    pub fn answer_sink(&self) -> AnswerSink {
        AnswerSink {
            hub: self.shared.hub.clone(),
        }
    }

    /// The audit records kept in memory, oldest first.
    pub fn audit_records(&self) -> Vec<AuditRecord> {
        lock(&self.audit).iter().cloned().collect()
    }
}

/// The most of a view's method name the protocol log keeps.
const METHOD_LOGGED: usize = 256;

/// A view's message as the protocol log keeps it: as sent, except a method name too long to be
/// any method, which is cut (a view may send megabytes of one).
fn loggable(message: &serde_json::Value) -> serde_json::Value {
    let mut kept = message.clone();
    if let Some(method) = kept.get_mut("method")
        && let Some(name) = method.as_str()
        && let Some((end, _)) = name.char_indices().nth(METHOD_LOGGED)
    {
        let cut = format!(
            "{}… (cut: {} characters)",
            &name[..end],
            name.chars().count()
        );
        *method = serde_json::Value::String(cut);
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_huge_method_name_is_cut_in_the_log_and_the_rest_kept() {
        let huge = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "x".repeat(1 << 20)});
        let kept = loggable(&huge);
        let method = kept["method"].as_str().unwrap_or_default();
        assert!(method.len() < 400, "{} bytes kept", method.len());
        assert!(method.ends_with("(cut: 1048576 characters)"), "{method}");
        assert_eq!(kept["id"], 1);
        let small =
            serde_json::json!({"jsonrpc": "2.0", "method": "ui/notifications/size-changed"});
        assert_eq!(loggable(&small), small);
    }
}
