//! One connection to one server: transport set-up, protocol negotiation, tool calls, and the
//! 2026-07-28 `input_required` loop (MRTR) driven by the host itself.
//!
//! Why the host drives the loop instead of rmcp's `call_tool`: rmcp fulfils every input request
//! of a round in parallel and gives up after ten quick rounds, which suits a machine but not a
//! person. Here requests go to the engine one at a time, and a round lasts as long as the person
//! needs (2026-07-28 `basic/patterns/mrtr.mdx`: echo `requestState` exactly, a new id per retry,
//! nothing carried over to other requests).
//!
//! Every call has a [`CallId`] from the moment it starts, is in the host's record until it
//! ends (abandoned calls included), and ties the requests it raises to itself: MRTR rounds
//! directly, push-era requests through the transport tap (`tap.rs`).
//!
//! What it does not do: decide anything about requests (the engine does) or keep state a
//! surface would read (the record does).

use std::future::{Future, IntoFuture};
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use interlude_engine::{CallId, ServerId, url_safety};
use interlude_protocol::ProtocolEra;
use interlude_protocol::apps::UiDialect;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResponse, CallToolResult, ClientRequest,
    Implementation, JsonObject, ServerResult, Tool,
};
use rmcp::service::{Peer, PeerRequestOptions, RoleClient, RunningService};
use serde_json::Value;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

pub(crate) mod catalog;
mod mrtr;
mod open;
mod required;
mod subscribe;
pub(crate) mod task;

use crate::embedded::EmbeddedContent;
use crate::failure::{self, EndReason};
use crate::handler::HostClient;
use crate::host::config::HostError;
use crate::host::inputs::{CallUpdate, HostInput, ProgressOf, ServerUpdate, ViewUpdate};
use crate::host::shared::Shared;
use crate::host::views::opening::{Opening, ViewFor};
use crate::http_client::{HttpClient, ServerStream};
use crate::progress::now_ms;
use crate::registry::{CallRecord, CallStatus, ExternalSite};
use crate::tap::CallTag;
use crate::timer::PauseGate;
use required::{Required, Tries};

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

/// A finished tool call.
#[derive(Debug, Clone)]
pub struct CallOutcome {
    /// The host's id of the call.
    pub call: CallId,
    /// The tool's result (shared with the call's record).
    pub result: Arc<CallToolResult>,
    /// How many `input_required` rounds it took (0 on the push era).
    pub rounds: usize,
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
    lines: Option<crate::child::RawLines>,
    /// What a 2025-11-25 server says of its tasks, read off the raw messages.
    task_hints: Option<Arc<crate::task_hints::TaskHints>>,
}

/// A live connection to a server. Cheap to clone; the host keeps one clone until the
/// connection is closed ([`Connection::close`], [`Host::disconnect`](crate::Host::disconnect)),
/// and the last clone dropped closes it.
#[derive(Clone)]
pub struct Connection {
    inner: Arc<Inner>,
}

struct Inner {
    shared: Shared,
    id: ServerId,
    info: ConnectionInfo,
    /// `info.name`, shared with every request the server raises.
    name: Arc<str>,
    peer: Peer<RoleClient>,
    service: tokio::sync::Mutex<Option<RunningService<RoleClient, HostClient>>>,
    gate: PauseGate,
    server_stream: watch::Receiver<ServerStream>,
    closed: CancellationToken,
    closing: Arc<AtomicBool>,
    /// Why the connection ended, when the transport knows.
    ended: EndReason,
    /// Its 2026-07-28 `subscriptions/listen` stream, when one is open.
    listening: subscribe::SharedListening,
    /// Which tools a 2025-11-25 server lets run as tasks (read by its transport).
    task_hints: Option<Arc<crate::task_hints::TaskHints>>,
    /// `tasks/cancel` requests on their way (waited for, briefly, on close).
    farewells: Arc<task::Farewells>,
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
    fn service_error(&self, what: String, error: rmcp::ServiceError) -> HostError {
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
    ) -> Result<(), Vec<crate::arguments::ArgumentError>> {
        match self.inner.shared.registry().server(self.inner.id) {
            Some(record) => record.check_arguments(tool, arguments),
            None => Ok(()),
        }
    }

    /// Starts a tool call and returns it at once, with its id; await it (or
    /// [`ToolCall::outcome`]) for the result. The call is in the host's record from now on;
    /// dropping it unfinished abandons it (the server is told, the record says so).
    pub fn start_call(&self, tool: &str, arguments: Option<JsonObject>) -> ToolCall {
        let (id, cancel, end) = self.begin_call(tool, arguments.as_ref());
        let conn = self.clone();
        let tool = tool.to_owned();
        ToolCall {
            id,
            run: Box::pin(async move { conn.run_call(id, cancel, &tool, arguments).await }),
            end,
        }
    }

    /// Calls a tool; requests for a person it raises (either era) go through the engine.
    ///
    /// The same as awaiting [`Connection::start_call`], without boxing the call's future.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Option<JsonObject>,
    ) -> Result<CallOutcome, HostError> {
        let (id, cancel, mut end) = self.begin_call(name, arguments.as_ref());
        let outcome = self.run_call(id, cancel, name, arguments).await;
        end.finish_with(&outcome);
        outcome
    }

    /// Gives a call its id and puts it in the host's record with the token that stops it; the
    /// guard ends the record.
    fn begin_call(
        &self,
        tool: &str,
        arguments: Option<&JsonObject>,
    ) -> (CallId, CancellationToken, CallEnd) {
        let shared = &self.inner.shared;
        let id = shared.next_call();
        let cancel = CancellationToken::new();
        let record = Arc::new(CallRecord {
            id,
            server: self.inner.id,
            server_name: Arc::clone(&self.inner.name),
            tool: tool.to_owned(),
            arguments: arguments.cloned(),
            status: CallStatus::Running,
            rounds: 0,
            requests: Vec::new(),
            views: Vec::new(),
            started_at_ms: now_ms(),
            ended_at_ms: None,
            progress: None,
            task: None,
        });
        shared.submit(HostInput::Call(CallUpdate::Started {
            record,
            cancel: cancel.clone(),
        }));
        let end = CallEnd {
            shared: shared.clone(),
            id,
            era: self.inner.info.era,
            armed: true,
        };
        (id, cancel, end)
    }

    /// Opens the view of tool `tool` for `call`, if it has one: recorded at once, its resource
    /// read on a task of its own while the call runs (the view's bridge gets the call's input
    /// then, and its result when the call ends).
    fn open_view(&self, call: CallId, tool: &str, arguments: Option<&JsonObject>) {
        let shared = &self.inner.shared;
        let Some(record) = shared.registry().server(self.inner.id) else {
            return;
        };
        let Some(uri) = record.tool_ui(tool).and_then(|ui| ui.resource_uri.clone()) else {
            return;
        };
        let capabilities = self.inner.peer.peer_info().map(|i| i.capabilities.clone());
        let opening = Opening::new(
            &record,
            capabilities.as_ref(),
            shared.next_view(),
            uri,
            ViewFor::Call {
                call,
                tool: tool.to_owned(),
                arguments: arguments.cloned(),
            },
            &shared.config.apps,
            &shared.config.client_name,
        );
        let shared = shared.clone();
        let record = opening.record();
        shared.submit(HostInput::View(ViewUpdate::Start(Box::new(record))));
        let (cache, peer) = (shared.view_cache.clone(), self.inner.peer.clone());
        // Read ahead at connect: most views open without waiting for their server.
        if let Some(ready) = opening.ready_from(&cache) {
            shared.submit(HostInput::View(ready));
            return;
        }
        tokio::spawn(async move {
            let ready = opening.read(&cache, &peer).await;
            shared.submit(HostInput::View(ready));
        });
    }

    async fn run_call(
        &self,
        call: CallId,
        cancelled: CancellationToken,
        name: &str,
        arguments: Option<JsonObject>,
    ) -> Result<CallOutcome, HostError> {
        let shared = &self.inner.shared;
        let apps = shared.config.declare.apps;
        if apps {
            self.open_view(call, name, arguments.as_ref());
        }
        // Kept for the views its result may embed (their render data names the input).
        let embedded_input = if apps { arguments.clone() } else { None };
        let run = async {
            // Boxed once, here: the loop's future is kilobytes, and every future that holds it
            // by value (the timeout, the select below, `call_tool`'s, its caller's) would copy it
            // again as it is built.
            let run = Box::pin(self.drive(call, name, arguments));
            match shared.config.call_timeout {
                None => run.await,
                Some(budget) => self
                    .inner
                    .gate
                    .run_with_active_timeout(budget, run)
                    .await
                    .unwrap_or_else(|()| {
                        Err(HostError::Timeout {
                            server: self.inner.info.name.clone(),
                            budget,
                        })
                    }),
            }
        };
        // Cancelling drops the call's future: its `tools/call` tells the server, its pending
        // request is withdrawn.
        let outcome = tokio::select! {
            outcome = run => outcome,
            () = cancelled.cancelled() => Err(HostError::Cancelled {
                server: self.inner.info.name.clone(),
            }),
        };
        if apps && let Ok(done) = &outcome {
            self.open_embedded_views(call, name, embedded_input, &done.result);
        }
        outcome
    }

    /// Opens a view for each UI resource call `call`'s result embeds (MCP-UI's way of sending
    /// one; [`crate::embedded`]): HTML at once, from the result itself; a web page judged by the
    /// URL rules and framed only once the person chooses to; what cannot be shown (Remote DOM,
    /// an unreadable body, a refused page) as a failed view that says why. A resource the tool
    /// already shows as its declared view is not opened twice.
    fn open_embedded_views(
        &self,
        call: CallId,
        tool: &str,
        arguments: Option<JsonObject>,
        result: &CallToolResult,
    ) {
        let Ok(serde_json::Value::Array(content)) = serde_json::to_value(&result.content) else {
            return;
        };
        let found = crate::embedded::embedded_views(&content);
        if found.is_empty() {
            return;
        }
        let shared = &self.inner.shared;
        let Some(record) = shared.registry().server(self.inner.id) else {
            return;
        };
        let declared = record.tool_ui(tool).and_then(|ui| ui.resource_uri.clone());
        let capabilities = self.inner.peer.peer_info().map(|i| i.capabilities.clone());
        for item in found {
            if declared.as_deref() == Some(item.uri.as_str()) {
                continue;
            }
            let mut opening = Opening::new(
                &record,
                capabilities.as_ref(),
                shared.next_view(),
                item.uri.clone(),
                ViewFor::Embedded {
                    call,
                    tool: tool.to_owned(),
                    arguments: arguments.clone(),
                    index: item.index,
                },
                &shared.config.apps,
                &shared.config.client_name,
            );
            let view = opening.record().id;
            let update = match &item.content {
                EmbeddedContent::Html { html, dialect } => {
                    Ok(opening.ready_embedded(html, *dialect, item.meta.as_ref()))
                }
                EmbeddedContent::ExternalUrl { url } => {
                    let check = url_safety::check_url(url, &shared.config.engine.url_policy);
                    let refused = (check.verdict == url_safety::Verdict::Refuse).then(|| {
                        let why: Vec<String> =
                            check.reasons.iter().map(ToString::to_string).collect();
                        format!("the page {url} is refused: {}", why.join("; "))
                    });
                    opening.set_site(ExternalSite {
                        url: url.clone(),
                        check,
                        framed: false,
                    });
                    match refused {
                        Some(reason) => Err(reason),
                        None => Ok(opening.ready_embedded("", UiDialect::Apps, item.meta.as_ref())),
                    }
                }
                EmbeddedContent::RemoteDom { framework, .. } => Err(format!(
                    "this is a Remote DOM view{}, which Interlude does not render: its script \
                     draws with a component library the host would have to run on its own page",
                    framework
                        .as_deref()
                        .map(|f| format!(" (for {f})"))
                        .unwrap_or_default()
                )),
                EmbeddedContent::Unusable { reason } => Err(reason.clone()),
            };
            shared.submit(HostInput::View(ViewUpdate::Start(Box::new(
                opening.record(),
            ))));
            shared.submit(HostInput::View(match update {
                Ok(ready) => ready,
                Err(reason) => ViewUpdate::Failed {
                    view,
                    reason,
                    request: None,
                },
            }));
        }
    }

    /// Sends one `tools/call` tagged with its call (the tap learns its JSON-RPC id) and waits
    /// for the response; dropped early, it tells the server the request is cancelled.
    async fn send_call(
        &self,
        call: CallId,
        params: CallToolRequestParams,
    ) -> Result<CallToolResponse, rmcp::ServiceError> {
        let mut request = CallToolRequest::new(params);
        request.extensions.insert(CallTag(call));
        let request = ClientRequest::CallToolRequest(request);
        let handle = self
            .inner
            .peer
            .send_request_with_option(request, PeerRequestOptions::no_options())
            .await?;
        let mut abandon = Abandon {
            peer: Some(self.inner.peer.clone()),
            id: handle.id.clone(),
        };
        // Its server's progress notifications land on the call's record.
        let shared = &self.inner.shared;
        let of = ProgressOf::Call(call);
        shared.watch(self.inner.id, handle.progress_token.clone(), of);
        let _watching = ForgetProgress {
            shared,
            server: self.inner.id,
            token: handle.progress_token.clone(),
        };
        let response = handle.await_response().await;
        abandon.peer = None;
        match response? {
            ServerResult::CallToolResult(result) => Ok(CallToolResponse::Complete(result)),
            ServerResult::InputRequiredResult(result) => {
                Ok(CallToolResponse::InputRequired(result))
            }
            ServerResult::CreateTaskResult(result) => Ok(CallToolResponse::Task(result)),
            _ => Err(rmcp::ServiceError::UnexpectedResponse),
        }
    }

    async fn drive(
        &self,
        call: CallId,
        name: &str,
        arguments: Option<JsonObject>,
    ) -> Result<CallOutcome, HostError> {
        let server = &self.inner.info.name;
        let shared = &self.inner.shared;
        // A 2025-11-25 server that takes task calls, for a tool it lists as allowing or needing
        // one: called as a task at once (boxed: rare, and large).
        if shared.config.tasks
            && self.inner.info.era == ProtocolEra::Push
            && self
                .inner
                .task_hints
                .as_ref()
                .is_some_and(|h| h.augments(name))
        {
            return Box::pin(self.follow_legacy_task(call, name, arguments)).await;
        }
        let mut params = CallToolRequestParams::new(name.to_owned());
        params.arguments = arguments;
        let max_rounds = shared.config.max_rounds;
        let mut state_only_rounds = 0u32;
        let mut tries = Tries::default();
        for round in 0..=max_rounds {
            if round > 0 {
                shared.submit(HostInput::Call(CallUpdate::Round(call)));
            }
            let response = match self.send_call(call, params.clone()).await {
                Ok(response) => response,
                // What the server requires before it answers (`-32042`, the seed-000 `-32003`):
                // parsed, presented, awaited, then the call is retried.
                Err(rmcp::ServiceError::McpError(error))
                    if let Some(required) = Required::of(&error, shared.config.declare) =>
                {
                    tries.admit(&required, &error, server)?;
                    // Rare, and its future is the largest of the loop's: boxed, it does not
                    // size every call's future.
                    Box::pin(self.satisfy(call, required, &error)).await?;
                    continue;
                }
                // A 2025-11-25 server says the tool runs only as a task: called as one.
                Err(rmcp::ServiceError::McpError(error))
                    if round == 0
                        && self.inner.info.era == ProtocolEra::Push
                        && task::error_needs_task(&error) =>
                {
                    return Box::pin(self.follow_legacy_task(call, name, params.arguments)).await;
                }
                Err(e) => return Err(self.service_error(format!("the call to `{name}`"), e)),
            };
            let ir = match response {
                CallToolResponse::Complete(result)
                    if round == 0
                        && self.inner.info.era == ProtocolEra::Push
                        && task::needs_task(&result) =>
                {
                    return Box::pin(self.follow_legacy_task(call, name, params.arguments)).await;
                }
                CallToolResponse::Complete(result) => {
                    return Ok(CallOutcome {
                        call,
                        result: Arc::new(result),
                        rounds: round,
                    });
                }
                CallToolResponse::InputRequired(ir) => ir,
                // The call became a task: followed to its end (boxed: rare, and large).
                CallToolResponse::Task(created) => {
                    return Box::pin(self.follow_task(call, created, round)).await;
                }
                _ => {
                    return Err(HostError::Unexpected {
                        server: server.clone(),
                        what: "an answer of a kind this host does not know".into(),
                    });
                }
            };
            let next = self
                .next_round(Some(call), ir, &mut state_only_rounds)
                .await?;
            params.input_responses = next.input_responses;
            params.request_state = next.request_state;
        }
        Err(HostError::TooManyRounds {
            server: server.clone(),
            rounds: max_rounds,
        })
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

/// Stops routing a request's progress notifications to its call once it is answered.
struct ForgetProgress<'a> {
    shared: &'a Shared,
    server: ServerId,
    token: rmcp::model::ProgressToken,
}

impl Drop for ForgetProgress<'_> {
    fn drop(&mut self) {
        self.shared.forget_progress(self.server, self.token.clone());
    }
}

/// Tells the server a `tools/call` was abandoned, when its future is dropped unfinished.
struct Abandon {
    peer: Option<Peer<RoleClient>>,
    id: rmcp::model::RequestId,
}

impl Drop for Abandon {
    fn drop(&mut self) {
        let Some(peer) = self.peer.take() else {
            return;
        };
        let id = self.id.clone();
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let _ = peer
                    .notify_cancelled(rmcp::model::CancelledNotificationParam::new(
                        Some(id),
                        Some("the call was abandoned".into()),
                    ))
                    .await;
            });
        }
    }
}

/// Ends a call's record when the call finishes, or as abandoned when it is dropped unfinished.
struct CallEnd {
    shared: Shared,
    id: CallId,
    /// How the call's requests travel: what cancelling it tells the server depends on it.
    era: ProtocolEra,
    armed: bool,
}

impl CallEnd {
    fn finish(&mut self, status: CallStatus) {
        self.armed = false;
        self.shared
            .submit(HostInput::Call(CallUpdate::Ended(self.id, status)));
    }

    fn finish_with(&mut self, outcome: &Result<CallOutcome, HostError>) {
        self.finish(match outcome {
            Ok(o) => CallStatus::Completed(Arc::clone(&o.result)),
            Err(HostError::Cancelled { .. }) => CallStatus::Cancelled {
                reason: match self.era {
                    // A task goes on at the server until it hears `tasks/cancel`, which it was
                    // sent.
                    _ if self
                        .shared
                        .registry()
                        .call(self.id)
                        .is_some_and(|c| c.task.is_some()) =>
                    {
                        "cancelled by the person; the server was told to stop its task (tasks/cancel)"
                            .into()
                    }
                    // The server waits on the open `tools/call`: it gets `notifications/cancelled`.
                    ProtocolEra::Push => "cancelled by the person; the server was told".into(),
                    // Between rounds nothing is open at the server: the call is simply not
                    // retried (a round still in flight is cancelled at the server).
                    ProtocolEra::Mrtr => {
                        "cancelled by the person; the call is not retried (the server is told \
                         only if it was still working on a round)"
                            .into()
                    }
                },
            },
            Err(e) => CallStatus::Failed {
                reason: e.to_string(),
            },
        });
    }
}

impl Drop for CallEnd {
    fn drop(&mut self) {
        if self.armed {
            self.finish(CallStatus::Cancelled {
                reason: "abandoned before it finished; the server was told".into(),
            });
        }
    }
}

type CallFuture = Pin<Box<dyn Future<Output = Result<CallOutcome, HostError>> + Send>>;

/// A tool call in flight: its id now, its outcome when awaited.
///
/// ```no_run
/// # async fn run(conn: interlude_host::Connection) -> Result<(), interlude_host::HostError> {
/// let call = conn.start_call("contact_info", None);
/// println!("started call {}", call.id());
/// let outcome = call.await?;
/// assert_eq!(outcome.call.0 > 0, true);
/// # Ok(()) }
/// ```
pub struct ToolCall {
    id: CallId,
    run: CallFuture,
    end: CallEnd,
}

impl std::fmt::Debug for ToolCall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolCall")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

impl ToolCall {
    /// The host's id of this call (the record has it, and every request it raises names it).
    pub fn id(&self) -> CallId {
        self.id
    }

    /// Waits for the call to finish.
    pub async fn outcome(mut self) -> Result<CallOutcome, HostError> {
        let outcome = (&mut self.run).await;
        self.end.finish_with(&outcome);
        outcome
    }
}

impl IntoFuture for ToolCall {
    type Output = Result<CallOutcome, HostError>;
    type IntoFuture = CallFuture;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(self.outcome())
    }
}
