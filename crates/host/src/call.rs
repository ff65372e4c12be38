//! A tool call's whole life, over its server's [`Connection`]: the record from its first moment
//! to its end (abandoned calls included), its shape decided in one place ([`Next::of`]: a plain
//! result, 2026-07-28 rounds, a task of the Tasks extension, a 2025-11-25 task), the rounds, the
//! prerequisites a server asks for before it answers ([`required`]), one follower per task
//! design ([`task`], [`legacy_task`]), cancel and the timeout that counts only the time nobody
//! is being asked something.
//!
//! Why the host drives the rounds instead of rmcp's `call_tool`: rmcp fulfils every input
//! request of a round in parallel and gives up after ten quick rounds, which suits a machine but
//! not a person. Here requests go to the engine one at a time, and a round lasts as long as the
//! person needs (2026-07-28 `basic/patterns/mrtr.mdx`: echo `requestState` exactly, a new id
//! per retry, nothing carried over to other requests).
//!
//! Every call has a [`CallId`] from the moment it starts and ties the requests it raises to
//! itself: rounds directly, push-era requests through the transport tap.
//!
//! What it does not do: open views (the core opens a call's views from its start and its end,
//! `crate::views`), decide anything about a request (the engine does), or keep state a surface
//! would read (the record does).

use std::future::{Future, IntoFuture};
use std::pin::Pin;
use std::sync::Arc;

use interlude_engine::{CallId, ServerId};
use interlude_protocol::ProtocolEra;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, ClientRequest, CreateTaskResult,
    ErrorData, InputRequiredResult, JsonObject, ServerResult,
};
use rmcp::service::{Peer, PeerRequestOptions, RoleClient};
use tokio_util::sync::CancellationToken;

pub(crate) mod legacy_task;
pub(crate) mod required;
pub(crate) mod task;

use crate::clock::now_ms;
use crate::hub::config::HostError;
use crate::hub::inputs::{CallUpdate, HostInput, ProgressOf};
use crate::hub::shared::Shared;
use crate::record::registry::{CallRecord, CallStatus};
use crate::session::Connection;
use crate::transport::tap::CallTag;
use required::{Required, Tries};

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

impl Connection {
    /// Starts a tool call and returns it at once, with its id; await it (or
    /// [`ToolCall::outcome`]) for the result. The call is in the host's record from now on;
    /// dropping it unfinished abandons it (the server is told, the record says so).
    pub fn start_call(&self, tool: &str, arguments: Option<JsonObject>) -> ToolCall {
        let (id, cancel, end) = begin(self, tool, arguments.as_ref());
        let conn = self.clone();
        let tool = tool.to_owned();
        ToolCall {
            id,
            run: Box::pin(async move {
                let call = Call {
                    conn: &conn,
                    id,
                    tool: &tool,
                };
                call.run(cancel, arguments).await
            }),
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
        let (id, cancel, mut end) = begin(self, name, arguments.as_ref());
        let call = Call {
            conn: self,
            id,
            tool: name,
        };
        let outcome = call.run(cancel, arguments).await;
        end.finish_with(&outcome);
        outcome
    }
}

/// Gives a call its id and puts it in the host's record with the token that stops it; the
/// guard ends the record.
fn begin(
    conn: &Connection,
    tool: &str,
    arguments: Option<&JsonObject>,
) -> (CallId, CancellationToken, CallEnd) {
    let inner = &conn.inner;
    let shared = &inner.shared;
    let id = shared.next_call();
    let cancel = CancellationToken::new();
    let record = Arc::new(CallRecord {
        id,
        server: inner.id,
        server_name: Arc::clone(&inner.name),
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
        era: inner.info.era,
        armed: true,
    };
    (id, cancel, end)
}

/// One tool call on its server's connection, while it runs: the one type the call's rooms
/// (rounds, prerequisites, the task followers) work on.
pub(crate) struct Call<'c> {
    /// The connection to the call's server.
    pub(crate) conn: &'c Connection,
    /// The host's id of the call.
    pub(crate) id: CallId,
    /// The tool called.
    pub(crate) tool: &'c str,
}

/// What one try of a call came back with, and so what the call does next: decided here, once
/// per try, and nowhere else.
pub(crate) enum Next {
    /// The tool's result: the call ends.
    Done(CallToolResult),
    /// A 2026-07-28 round: the person answers its input requests, and the call is retried.
    Rounds(InputRequiredResult),
    /// The call became a task of the Tasks extension: followed to its end.
    Task(CreateTaskResult),
    /// A 2025-11-25 server runs the tool only as a task: it is called again as one.
    LegacyTask,
    /// What the server requires before it answers (`-32042`, the seed-000 `-32003`): met, then
    /// the call is retried.
    Required(Required, ErrorData),
}

impl Next {
    /// What `response` to try `round` of a call on a server of `era` means.
    fn of(
        response: Result<ServerResult, rmcp::ServiceError>,
        round: usize,
        era: ProtocolEra,
        declare: interlude_engine::Declared,
    ) -> Result<Next, rmcp::ServiceError> {
        // Only a 2025-11-25 server's first answer can say the tool runs only as a task.
        let first_push = round == 0 && era == ProtocolEra::Push;
        match response {
            Ok(ServerResult::CallToolResult(result))
                if first_push && legacy_task::needs_task(&result) =>
            {
                Ok(Next::LegacyTask)
            }
            Ok(ServerResult::CallToolResult(result)) => Ok(Next::Done(result)),
            Ok(ServerResult::InputRequiredResult(result)) => Ok(Next::Rounds(result)),
            Ok(ServerResult::CreateTaskResult(result)) => Ok(Next::Task(result)),
            Ok(_) => Err(rmcp::ServiceError::UnexpectedResponse),
            Err(rmcp::ServiceError::McpError(error))
                if let Some(required) = Required::of(&error, declare) =>
            {
                Ok(Next::Required(required, error))
            }
            Err(rmcp::ServiceError::McpError(error))
                if first_push && legacy_task::error_needs_task(&error) =>
            {
                Ok(Next::LegacyTask)
            }
            Err(e) => Err(e),
        }
    }
}

impl Call<'_> {
    /// The call's server, by the name the host gave it.
    pub(crate) fn server(&self) -> &str {
        &self.conn.inner.info.name
    }

    /// The host's shared handle.
    pub(crate) fn shared(&self) -> &Shared {
        &self.conn.inner.shared
    }

    /// Runs the call to its end: within its timeout (the time nobody is asked anything), until
    /// `cancelled` fires.
    async fn run(
        &self,
        cancelled: CancellationToken,
        arguments: Option<JsonObject>,
    ) -> Result<CallOutcome, HostError> {
        let inner = &self.conn.inner;
        let run = async {
            // Boxed once, here: the loop's future is kilobytes, and every future that holds it
            // by value (the timeout, the select below, `call_tool`'s, its caller's) would copy it
            // again as it is built.
            let run = Box::pin(self.drive(arguments));
            match inner.shared.config.call_timeout {
                None => run.await,
                Some(budget) => inner
                    .gate
                    .run_with_active_timeout(budget, run)
                    .await
                    .unwrap_or_else(|()| {
                        Err(HostError::Timeout {
                            server: inner.info.name.clone(),
                            budget,
                        })
                    }),
            }
        };
        // Cancelling drops the call's future: its `tools/call` tells the server, its pending
        // request is withdrawn.
        tokio::select! {
            outcome = run => outcome,
            () = cancelled.cancelled() => Err(HostError::Cancelled {
                server: inner.info.name.clone(),
            }),
        }
    }

    /// Whether the call's server said ahead that the tool runs as a task (a 2025-11-25 server
    /// that takes task calls, for a tool it lists as allowing or needing one).
    fn known_task(&self) -> bool {
        let inner = &self.conn.inner;
        inner.shared.config.tasks
            && inner.info.era == ProtocolEra::Push
            && inner
                .task_hints
                .as_ref()
                .is_some_and(|h| h.augments(self.tool))
    }

    /// Tries the call, and again after each round or prerequisite, until it has a result, becomes
    /// a task, or runs out of rounds.
    async fn drive(&self, arguments: Option<JsonObject>) -> Result<CallOutcome, HostError> {
        let shared = self.shared();
        let mut params = CallToolRequestParams::new(self.tool.to_owned());
        params.arguments = arguments;
        let max_rounds = shared.config.max_rounds;
        let mut state_only_rounds = 0u32;
        let mut tries = Tries::default();
        let mut round = 0;
        let mut next = if self.known_task() {
            Next::LegacyTask
        } else {
            self.try_once(&params, round).await?
        };
        loop {
            match next {
                Next::Done(result) => {
                    return Ok(CallOutcome {
                        call: self.id,
                        result: Arc::new(result),
                        rounds: round,
                    });
                }
                // Followed to its end (boxed: rare, and large).
                Next::LegacyTask => {
                    return Box::pin(self.follow_legacy_task(params.arguments)).await;
                }
                Next::Task(created) => return Box::pin(self.follow_task(created, round)).await,
                Next::Required(required, error) => {
                    tries.admit(&required, &error, self.server())?;
                    // Rare, and its future is the largest of the loop's: boxed, it does not
                    // size every call's future.
                    Box::pin(self.satisfy(required, &error)).await?;
                }
                Next::Rounds(ir) => {
                    if round >= max_rounds {
                        break;
                    }
                    let answered = self
                        .conn
                        .next_round(Some(self.id), ir, &mut state_only_rounds)
                        .await?;
                    params.input_responses = answered.input_responses;
                    params.request_state = answered.request_state;
                }
            }
            round += 1;
            if round > max_rounds {
                break;
            }
            shared.submit(HostInput::Call(CallUpdate::Round(self.id)));
            next = self.try_once(&params, round).await?;
        }
        Err(HostError::TooManyRounds {
            server: self.server().to_owned(),
            rounds: max_rounds,
        })
    }

    /// Sends try `round` of the call and says what it came back with.
    async fn try_once(
        &self,
        params: &CallToolRequestParams,
        round: usize,
    ) -> Result<Next, HostError> {
        let inner = &self.conn.inner;
        let response = self.send(params.clone()).await;
        Next::of(response, round, inner.info.era, inner.shared.config.declare).map_err(|e| {
            self.conn
                .service_error(format!("the call to `{}`", self.tool), e)
        })
    }

    /// Sends one `tools/call` tagged with its call (the tap learns its JSON-RPC id) and waits
    /// for the response; dropped early, it tells the server the request is cancelled.
    async fn send(
        &self,
        params: CallToolRequestParams,
    ) -> Result<ServerResult, rmcp::ServiceError> {
        let inner = &self.conn.inner;
        let mut request = CallToolRequest::new(params);
        request.extensions.insert(CallTag(self.id));
        let request = ClientRequest::CallToolRequest(request);
        let handle = inner
            .peer
            .send_request_with_option(request, PeerRequestOptions::no_options())
            .await?;
        let mut abandon = Abandon {
            peer: Some(inner.peer.clone()),
            id: handle.id.clone(),
        };
        // Its server's progress notifications land on the call's record.
        let shared = &inner.shared;
        shared.watch(
            inner.id,
            handle.progress_token.clone(),
            ProgressOf::Call(self.id),
        );
        let _watching = ForgetProgress {
            shared,
            server: inner.id,
            token: handle.progress_token.clone(),
        };
        let response = handle.await_response().await;
        abandon.peer = None;
        response
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
