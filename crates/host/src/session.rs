//! One server's session: the connection's set-up and protocol negotiation ([`open`]), what the
//! server offers ([`catalog`], [`subscribe`], [`tasks`]), what it asks of the host
//! ([`handler`], the seed-000 draft in [`interaction`]), and the 2026-07-28 rounds
//! any request of it may need answered by the person ([`rounds`]).
//!
//! A [`Connection`] is the handle: what the host knows of the server, and the peer, the gate
//! and the end signal the rooms above it use. A tool call's life is not here: `crate::call`
//! runs it over the connection.
//!
//! What it does not do: decide anything about requests (the engine does), keep state a surface
//! would read (the record does), run a call, or open a view.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use interlude_engine::ServerId;
use interlude_protocol::ProtocolEra;
use rmcp::model::{Implementation, JsonObject, Tool};
use rmcp::service::{Peer, RoleClient, RunningService};
use serde_json::Value;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

pub(crate) mod catalog;
pub(crate) mod handler;
pub(crate) mod interaction;
mod open;
pub(crate) mod rounds;
mod subscribe;
pub(crate) mod tasks;

use crate::hub::config::HostError;
use crate::hub::inputs::{HostInput, ServerUpdate};
use crate::hub::shared::Shared;
use crate::hub::timer::PauseGate;
use crate::session::handler::HostClient;
use crate::transport::failure::{self, EndReason};
use crate::transport::http_client::{HttpClient, ServerStream};

/// What the host knows about a connected server.
#[derive(Debug, Clone)]
pub struct ConnectionInfo {
    /// The name the host gave it.
    pub name: String,
    /// `stdio`, `http` or `in-process`.
    pub transport: &'static str,
    /// The negotiated protocol version.
    pub protocol_version: String,
    /// The era of that version.
    pub era: ProtocolEra,
    /// The server's own `serverInfo`, when it sent one.
    pub server_info: Option<Implementation>,
}

/// How long [`Connection::close`] waits for `tasks/cancel` requests still on their way.
const FAREWELL_WAIT: Duration = Duration::from_secs(2);

/// What a transport built from a [`ServerSpec`] brings besides itself.
#[derive(Default)]
pub(crate) struct TransportExtras {
    transport_name: Option<&'static str>,
    server_stream: Option<watch::Receiver<ServerStream>>,
    http_client: Option<HttpClient>,
    /// Why the connection ended, as the transport notes it.
    ended: Option<EndReason>,
    /// Fires when a stdio server's stderr closed (all it wrote is in `ended`).
    stderr_closed: Option<tokio::sync::oneshot::Receiver<()>>,
    /// The lines the server's messages arrived as (a child's stdout), for the protocol log.
    lines: Option<crate::transport::child::RawLines>,
    /// What a 2025-11-25 server says of its tasks, read off the raw messages.
    task_hints: Option<Arc<crate::transport::task_hints::TaskHints>>,
}

/// A live connection to a server. Cheap to clone; the host keeps one clone until the
/// connection is closed ([`Connection::close`], [`Host::disconnect`](crate::Host::disconnect)),
/// and the last clone dropped closes it.
#[derive(Clone)]
pub struct Connection {
    pub(crate) inner: Arc<Inner>,
}

/// What a connection holds; the rooms above the session (a call) read the parts marked
/// `pub(crate)`.
pub(crate) struct Inner {
    pub(crate) shared: Shared,
    pub(crate) id: ServerId,
    pub(crate) info: ConnectionInfo,
    /// `info.name`, shared with every request the server raises.
    pub(crate) name: Arc<str>,
    pub(crate) peer: Peer<RoleClient>,
    service: tokio::sync::Mutex<Option<RunningService<RoleClient, HostClient>>>,
    /// Pauses a call's timeout while the person is asked something.
    pub(crate) gate: PauseGate,
    server_stream: watch::Receiver<ServerStream>,
    closed: CancellationToken,
    closing: Arc<AtomicBool>,
    /// Why the connection ended, when the transport knows.
    ended: EndReason,
    /// Its 2026-07-28 `subscriptions/listen` stream, when one is open.
    listening: subscribe::SharedListening,
    /// Which tools a 2025-11-25 server lets run as tasks (read by its transport).
    pub(crate) task_hints: Option<Arc<crate::transport::task_hints::TaskHints>>,
    /// `tasks/cancel` requests on their way (waited for, briefly, on close).
    pub(crate) farewells: Arc<tasks::Farewells>,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("id", &self.inner.id)
            .field("info", &self.inner.info)
            .finish_non_exhaustive()
    }
}

impl Connection {
    /// The host's id for this server.
    pub fn id(&self) -> ServerId {
        self.inner.id
    }

    /// What the host knows about this server.
    pub fn info(&self) -> &ConnectionInfo {
        &self.inner.info
    }

    /// Asks the server to log from `level` up (`logging/setLevel`: `debug`, `info`, `notice`,
    /// `warning`, `error`, `critical`, `alert` or `emergency`). What it logs arrives as
    /// [`HostEvent::ServerLogged`](crate::HostEvent::ServerLogged) and in the protocol log.
    ///
    /// ```no_run
    /// # async fn run(conn: interlude_host::Connection) -> Result<(), interlude_host::HostError> {
    /// conn.set_log_level("debug").await?;
    /// # Ok(()) }
    /// ```
    // Logging is the 2025 eras' (SEP-2577 deprecates it); servers of those eras still use it.
    #[allow(deprecated)]
    pub async fn set_log_level(&self, level: &str) -> Result<(), HostError> {
        let level: rmcp::model::LoggingLevel = serde_json::from_value(Value::String(level.into()))
            .map_err(|_| HostError::Invalid {
                reason: format!(
                    "`{level}` is not a logging level (debug, info, notice, warning, error, \
                     critical, alert, emergency)"
                ),
            })?;
        self.inner
            .peer
            .set_level(rmcp::model::SetLevelRequestParams::new(level))
            .await
            .map_err(|e| self.service_error("setting its log level".into(), e))
    }

    /// Whether the server can reach this host outside a tool call right now (see
    /// [`ServerStream`]); stdio connections always can.
    pub fn server_stream(&self) -> ServerStream {
        *self.inner.server_stream.borrow()
    }

    /// Waits until the server's standalone stream is open, or known to be unavailable, for at
    /// most `patience`; returns the state then. A 2025 server that pushes requests outside tool
    /// calls needs the stream open before the call that makes it do so.
    ///
    /// ```no_run
    /// # async fn run(connection: interlude_host::Connection) {
    /// use interlude_host::ServerStream;
    /// let state = connection.wait_server_stream(std::time::Duration::from_secs(2)).await;
    /// if state != ServerStream::Open {
    ///     eprintln!("the server can only reach us within tool calls");
    /// }
    /// # }
    /// ```
    pub async fn wait_server_stream(&self, patience: Duration) -> ServerStream {
        let mut state = self.inner.server_stream.clone();
        let settled = state.wait_for(|s| *s != ServerStream::Pending);
        match tokio::time::timeout(patience, settled).await {
            Ok(Ok(s)) => *s,
            _ => self.server_stream(),
        }
    }

    /// Whether the connection has ended (the server exited, the transport dropped, or it was
    /// closed).
    pub fn is_closed(&self) -> bool {
        self.inner.closed.is_cancelled()
    }

    /// Completes when the connection ends, for whatever reason: a signal, not a poll.
    pub async fn closed(&self) {
        self.inner.closed.cancelled().await;
    }

    /// Lists every tool again (following pagination) and updates the host's record.
    pub async fn list_tools(&self) -> Result<Vec<Tool>, HostError> {
        let tools = self
            .inner
            .peer
            .list_all_tools()
            .await
            .map_err(|e| self.service_error("listing its tools".into(), e))?;
        self.inner
            .shared
            .submit(HostInput::Server(ServerUpdate::Tools {
                id: self.inner.id,
                tools: tools.clone(),
            }));
        Ok(tools)
    }

    /// `what` (e.g. "the call to `ask`") failed with `error`: said in a sentence.
    pub(crate) fn service_error(&self, what: String, error: rmcp::ServiceError) -> HostError {
        HostError::Service {
            server: self.inner.info.name.clone(),
            what,
            reason: failure::service(&error, &self.inner.ended),
            error: Box::new(error),
        }
    }

    /// Checks `arguments` against tool `tool`'s `inputSchema`, as the host's record has it
    /// ([`ServerRecord::check_arguments`](crate::ServerRecord::check_arguments)). Surfaces call
    /// it before [`Connection::start_call`] or [`Connection::call_tool`], which send what they
    /// are given (a library user may mean to send what the schema refuses).
    ///
    /// ```no_run
    /// # async fn run(conn: interlude_host::Connection) {
    /// let args = serde_json::json!({"age": 12});
    /// if let Err(errors) = conn.check_arguments("register", args.as_object()) {
    ///     for e in errors {
    ///         eprintln!("{}", e.message); // "Age must be at least 18."
    ///     }
    /// }
    /// # }
    /// ```
    pub fn check_arguments(
        &self,
        tool: &str,
        arguments: Option<&JsonObject>,
    ) -> Result<(), Vec<crate::record::arguments::ArgumentError>> {
        match self.inner.shared.registry().server(self.inner.id) {
            Some(record) => record.check_arguments(tool, arguments),
            None => Ok(()),
        }
    }

    /// Closes the connection (for stdio servers, the child process is stopped); the record
    /// says closed, and requests still pending from this server close with a notice.
    pub async fn close(&self) {
        // A task cancelled a moment ago is told so before the connection goes.
        self.inner.farewells.sent(FAREWELL_WAIT).await;
        self.inner.closing.store(true, Ordering::SeqCst);
        let service = self.inner.service.lock().await.take();
        match service {
            Some(mut service) => {
                let _ = service.close_with_timeout(Duration::from_secs(5)).await;
            }
            None => return,
        }
        // The tap's token fires when the transport is dropped; make sure, in any case.
        self.inner.closed.cancel();
    }
}
