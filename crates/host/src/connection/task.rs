//! A call that became a task: followed to its end. Two designs, one record (`CallTask`): the
//! Tasks extension (SEP-2663, with 2026-07-28), below first, and the 2025-11-25 experimental
//! tasks (SEP-1686), spoken through custom requests since rmcp no longer types them
//! ([`Connection::follow_legacy_task`]).
//!
//! The extension: the host polls `tasks/get` at the server's `pollIntervalMs` (within bounds),
//! keeps the call's record up to date (its task's status and status line), asks the person each
//! new `inputRequests` entry — tied to the call, as any of its requests — and sends the answers
//! with `tasks/update`; the inlined `result` ends the call as a plain result would. A call
//! cancelled or abandoned meanwhile sends `tasks/cancel`.
//!
//! 2025-11-25: a server whose tool runs only as a task says so (rmcp drops the tool's
//! `execution.taskSupport`), and the call is made again as a task (`params.task`); `tasks/get`
//! for its status line, `tasks/result` once it needs the person or has ended — its questions
//! come on that request, tied to the call by the transport tap — and `tasks/cancel` on cancel.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use interlude_engine::CallId;
use rmcp::model::{
    CallToolResult, CancelTaskParams, CreateTaskResult, GetTaskParams, Task, TaskPayload,
    TaskStatus, UpdateTaskParams,
};
use rmcp::service::{Peer, RoleClient};

use super::{CallOutcome, Connection};
use crate::host::config::HostError;
use crate::host::inputs::{CallUpdate, HostInput};
use crate::registry::CallTask;

/// The shortest wait between two polls, whatever the server asks.
const POLL_FLOOR: Duration = Duration::from_millis(100);
/// The longest wait between two polls, whatever the server asks (the ceiling).
const POLL_CEILING: Duration = Duration::from_secs(5);
/// The wait between two polls when the server names none.
const POLL_DEFAULT: Duration = Duration::from_secs(1);

impl Connection {
    /// Follows the task call `call` became until it ends: its result, or why it has none.
    pub(super) async fn follow_task(
        &self,
        call: CallId,
        created: CreateTaskResult,
        rounds: usize,
    ) -> Result<CallOutcome, HostError> {
        let server = &self.inner.info.name;
        let shared = &self.inner.shared;
        let id = created.task.task_id.clone();
        let mut cancel = CancelOnDrop {
            peer: Some(self.inner.peer.clone()),
            id: id.clone(),
            farewells: self.inner.farewells.clone(),
        };
        let started = Instant::now();
        let mut task = created.task;
        // The input requests already asked (their keys are unique over the task's life).
        let mut asked = BTreeSet::new();
        shared.submit(HostInput::Call(CallUpdate::Task(call, call_task(&task))));
        loop {
            if let Some(ttl) = task.ttl_ms
                && started.elapsed() > Duration::from_millis(ttl).saturating_add(POLL_CEILING)
            {
                return Err(HostError::Task {
                    server: server.clone(),
                    reason: format!("outlived the {} s the server keeps it", ttl / 1000),
                });
            }
            let wait = task
                .poll_interval_ms
                .map_or(POLL_DEFAULT, Duration::from_millis)
                .clamp(POLL_FLOOR, POLL_CEILING);
            tokio::time::sleep(wait).await;
            let got = self
                .inner
                .peer
                .get_task(GetTaskParams::new(&id))
                .await
                .map_err(|e| self.service_error(format!("asking how task `{id}` stands"), e))?;
            task = got.task.task.clone();
            // Every end is in the record too (a failed or cancelled task's call ends with an
            // error, and its record still says what the task was).
            shared.submit(HostInput::Call(CallUpdate::Task(call, call_task(&task))));
            match got.task.payload {
                TaskPayload::Working => {}
                TaskPayload::InputRequired { input_requests } => {
                    let new: BTreeMap<_, _> = input_requests
                        .into_iter()
                        .filter(|(key, _)| !asked.contains(key))
                        .collect();
                    if new.is_empty() {
                        continue;
                    }
                    asked.extend(new.keys().cloned());
                    let answers = self.answer_round(Some(call), new).await?;
                    // A server gone while its task waited for the person: said as that, not as
                    // a failed answer (its question ended unanswered).
                    let doing = if self.inner.peer.is_transport_closed() {
                        format!("waiting for the person's answer to task `{id}`")
                    } else {
                        format!("answering task `{id}`")
                    };
                    self.inner
                        .peer
                        .update_task(UpdateTaskParams::new(&id, answers))
                        .await
                        .map_err(|e| self.service_error(doing, e))?;
                }
                TaskPayload::Completed { result } => {
                    cancel.peer = None;
                    let result: CallToolResult =
                        serde_json::from_value(serde_json::Value::Object(result)).map_err(|e| {
                            HostError::Unexpected {
                                server: server.clone(),
                                what: format!(
                                    "task `{id}` ended with a result that is not one: {e}"
                                ),
                            }
                        })?;
                    return Ok(CallOutcome {
                        call,
                        result: Arc::new(result),
                        rounds,
                    });
                }
                TaskPayload::Failed { error } => {
                    cancel.peer = None;
                    let said = |field: &str| error.get(field).map(ToString::to_string);
                    return Err(HostError::Task {
                        server: server.clone(),
                        reason: format!(
                            "failed: {} ({})",
                            error
                                .get("message")
                                .and_then(serde_json::Value::as_str)
                                .unwrap_or("the server gave no reason"),
                            said("code").unwrap_or_else(|| "no code".into())
                        ),
                    });
                }
                TaskPayload::Cancelled => {
                    cancel.peer = None;
                    return Err(HostError::Task {
                        server: server.clone(),
                        reason: "was cancelled by the server".into(),
                    });
                }
                // Whatever rmcp's non-exhaustive enum may gain: keep polling until a status
                // the host knows, or the task's time is up.
                _ => {}
            }
        }
    }
}

/// What the call's record keeps of `task`.
fn call_task(task: &Task) -> CallTask {
    CallTask {
        id: task.task_id.clone(),
        status: status_name(task.status).to_owned(),
        status_message: task.status_message.clone(),
        ttl_ms: task.ttl_ms,
        poll_interval_ms: task.poll_interval_ms,
    }
}

/// The wire name of a task's status.
fn status_name(status: TaskStatus) -> &'static str {
    match status {
        TaskStatus::Working => "working",
        TaskStatus::InputRequired => "input_required",
        TaskStatus::Completed => "completed",
        TaskStatus::Failed => "failed",
        TaskStatus::Cancelled => "cancelled",
        _ => "unknown",
    }
}

/// Sends `tasks/cancel` for a task whose call was cancelled or abandoned before it ended.
struct CancelOnDrop {
    peer: Option<Peer<RoleClient>>,
    id: String,
    farewells: Arc<Farewells>,
}

/// The `tasks/cancel` requests still on their way: [`Connection::close`] waits for them (a
/// moment at most) before it closes, so a call cancelled just before its connection closes
/// still stops its task at the server.
#[derive(Debug, Default)]
pub(super) struct Farewells {
    sending: AtomicUsize,
    done: tokio::sync::Notify,
}

impl Farewells {
    /// Sends `farewell` on a task of its own, counted until it is sent (or failed).
    fn send(self: &Arc<Self>, farewell: impl Future<Output = ()> + Send + 'static) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        self.sending.fetch_add(1, Ordering::SeqCst);
        let me = Arc::clone(self);
        runtime.spawn(async move {
            farewell.await;
            if me.sending.fetch_sub(1, Ordering::SeqCst) == 1 {
                me.done.notify_waiters();
            }
        });
    }

    /// Waits until none is on its way, or `within` passed.
    pub(super) async fn sent(&self, within: Duration) {
        let all = async {
            loop {
                let notified = self.done.notified();
                if self.sending.load(Ordering::SeqCst) == 0 {
                    return;
                }
                notified.await;
            }
        };
        let _ = tokio::time::timeout(within, all).await;
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(peer) = self.peer.take() else {
            return;
        };
        let id = std::mem::take(&mut self.id);
        self.farewells.send(async move {
            if let Err(e) = peer.cancel_task(CancelTaskParams::new(&id)).await {
                tracing::debug!("cannot cancel task {id}: {e}");
            }
        });
    }
}

/// The words with which a 2025-11-25 server says a tool runs only as a task (the TypeScript
/// SDK's, in an `isError` result or a -32601/-32600 error): rmcp drops the tool's
/// `execution.taskSupport` and the server's `capabilities.tasks`, so this is how the host learns
/// it.
const NEEDS_TASK: &str = "requires task augmentation";

/// Whether a 2025-11-25 answer says the tool runs only as a task.
pub(super) fn needs_task(result: &CallToolResult) -> bool {
    result.is_error == Some(true)
        && result
            .content
            .iter()
            .filter_map(|c| c.as_text())
            .any(|t| t.text.contains(NEEDS_TASK))
}

/// Whether a 2025-11-25 error says the tool runs only as a task.
pub(super) fn error_needs_task(error: &rmcp::ErrorData) -> bool {
    matches!(error.code.0, -32601 | -32600) && error.message.contains(NEEDS_TASK)
}

impl Connection {
    /// Sends `method` with `params` as a request of call `call` (tagged: the questions its server
    /// pushes while it is open are the call's) and returns what came back, as JSON.
    async fn custom(
        &self,
        call: Option<CallId>,
        method: &str,
        params: serde_json::Value,
    ) -> Result<serde_json::Value, HostError> {
        let mut request = rmcp::model::CustomRequest::new(method, Some(params));
        if let Some(call) = call {
            request.extensions.insert(crate::tap::CallTag(call));
        }
        let result = self
            .inner
            .peer
            .send_request(rmcp::model::ClientRequest::CustomRequest(request))
            .await
            .map_err(|e| self.service_error(format!("`{method}`"), e))?;
        Ok(serde_json::to_value(result).unwrap_or(serde_json::Value::Null))
    }

    /// Calls tool `name` as a 2025-11-25 experimental task (SEP-1686: `params.task`), and
    /// follows the task to its end: `tasks/get` at its `pollInterval` (within bounds) for its
    /// status line; once it needs the person (`input_required`) or has ended, `tasks/result`,
    /// which the server answers with the call's result after pushing its questions on that
    /// request (they are the call's, as any of its questions). A call cancelled or abandoned
    /// meanwhile sends `tasks/cancel`.
    pub(super) async fn follow_legacy_task(
        &self,
        call: CallId,
        name: &str,
        arguments: Option<rmcp::model::JsonObject>,
    ) -> Result<CallOutcome, HostError> {
        let server = &self.inner.info.name;
        let shared = &self.inner.shared;
        let mut params = serde_json::Map::new();
        params.insert("name".into(), name.into());
        params.insert("task".into(), serde_json::json!({}));
        if let Some(arguments) = arguments {
            params.insert("arguments".into(), serde_json::Value::Object(arguments));
        }
        let created = self
            .custom(Some(call), "tools/call", serde_json::Value::Object(params))
            .await?;
        let Some(task) = created.get("task") else {
            // The server answered at once after all.
            return serde_json::from_value(created)
                .map(|result| CallOutcome {
                    call,
                    result,
                    rounds: 0,
                })
                .map_err(|e| HostError::Unexpected {
                    server: server.clone(),
                    what: format!(
                        "the task call to `{name}` answered neither a task nor a result: {e}"
                    ),
                });
        };
        let id = task
            .get("taskId")
            .and_then(serde_json::Value::as_str)
            .unwrap_or_default()
            .to_owned();
        if id.is_empty() {
            return Err(HostError::Unexpected {
                server: server.clone(),
                what: format!("the task call to `{name}` named no taskId"),
            });
        }
        let mut cancel = LegacyCancel {
            connection: Some(self.clone()),
            id: id.clone(),
        };
        let mut state = legacy_task(&id, task);
        loop {
            shared.submit(HostInput::Call(CallUpdate::Task(call, state.clone())));
            let done = matches!(state.status.as_str(), "completed" | "failed" | "cancelled");
            if done || state.status == "input_required" {
                break;
            }
            let wait = state
                .poll_interval_ms
                .map_or(POLL_DEFAULT, Duration::from_millis)
                .clamp(POLL_FLOOR, POLL_CEILING);
            tokio::time::sleep(wait).await;
            let got = self
                .custom(None, "tasks/get", serde_json::json!({"taskId": id}))
                .await?;
            state = legacy_task(&id, &got);
        }
        // Blocks until the task ends; the questions it needs come while it is open.
        let result = self
            .custom(
                Some(call),
                "tasks/result",
                serde_json::json!({"taskId": id}),
            )
            .await;
        cancel.connection = None;
        let result = result?;
        if let Ok(got) = self
            .custom(None, "tasks/get", serde_json::json!({"taskId": id}))
            .await
        {
            shared.submit(HostInput::Call(CallUpdate::Task(
                call,
                legacy_task(&id, &got),
            )));
        }
        serde_json::from_value::<CallToolResult>(result)
            .map(|result| CallOutcome {
                call,
                result: Arc::new(result),
                rounds: 0,
            })
            .map_err(|e| HostError::Task {
                server: server.clone(),
                reason: format!("ended without a result the host can read: {e}"),
            })
    }
}

/// A 2025-11-25 task as the record keeps it, from `task` (a `Task`'s fields; `ttl` and
/// `pollInterval` are that version's names).
fn legacy_task(id: &str, task: &serde_json::Value) -> CallTask {
    let field = |a: &str, b: &str| {
        task.get(a)
            .or_else(|| task.get(b))
            .and_then(serde_json::Value::as_u64)
    };
    CallTask {
        id: id.to_owned(),
        status: task
            .get("status")
            .and_then(serde_json::Value::as_str)
            .unwrap_or("working")
            .to_owned(),
        status_message: task
            .get("statusMessage")
            .and_then(serde_json::Value::as_str)
            .map(str::to_owned),
        ttl_ms: field("ttl", "ttlMs"),
        poll_interval_ms: field("pollInterval", "pollIntervalMs"),
    }
}

/// Sends `tasks/cancel` (2025-11-25) for a task whose call was cancelled or abandoned.
struct LegacyCancel {
    connection: Option<Connection>,
    id: String,
}

impl Drop for LegacyCancel {
    fn drop(&mut self) {
        let Some(connection) = self.connection.take() else {
            return;
        };
        let id = std::mem::take(&mut self.id);
        let farewells = connection.inner.farewells.clone();
        farewells.send(async move {
            if let Err(e) = connection
                .custom(None, "tasks/cancel", serde_json::json!({"taskId": id}))
                .await
            {
                tracing::debug!("cannot cancel task {id}: {e}");
            }
        });
    }
}

/// One task of a server's list (`tasks/list`, 2025-11-25).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ListedTask {
    /// The server's id of the task.
    pub id: String,
    /// `working`, `input_required`, `completed`, `failed` or `cancelled`.
    pub status: String,
    /// What the server says it is doing.
    pub status_message: Option<String>,
    /// When it was created, as the server wrote it (ISO 8601).
    pub created_at: Option<String>,
    /// When it last changed, likewise.
    pub last_updated_at: Option<String>,
}

impl Connection {
    /// The server's tasks (`tasks/list`, the 2025-11-25 experimental tasks; at most
    /// [`MAX_LISTED`](crate::MAX_LISTED)), or `None` when it offers no list: a 2026-07-28 server
    /// (the Tasks extension has none), or one that answers the method is not found.
    ///
    /// ```no_run
    /// # async fn run(conn: interlude_host::Connection) -> Result<(), interlude_host::HostError> {
    /// for task in conn.list_tasks().await?.unwrap_or_default() {
    ///     println!("{} {}", task.id, task.status);
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn list_tasks(&self) -> Result<Option<Vec<ListedTask>>, HostError> {
        if self.inner.info.era != interlude_protocol::ProtocolEra::Push {
            return Ok(None);
        }
        let request = rmcp::model::CustomRequest::new("tasks/list", Some(serde_json::json!({})));
        let listed = match self
            .inner
            .peer
            .send_request(rmcp::model::ClientRequest::CustomRequest(request))
            .await
        {
            Ok(result) => serde_json::to_value(result).unwrap_or(serde_json::Value::Null),
            Err(rmcp::ServiceError::McpError(e)) if e.code.0 == -32601 => return Ok(None),
            Err(e) => return Err(self.service_error("listing its tasks".into(), e)),
        };
        let text = |task: &serde_json::Value, field: &str| {
            task.get(field)
                .and_then(serde_json::Value::as_str)
                .map(str::to_owned)
        };
        let tasks = listed
            .get("tasks")
            .and_then(serde_json::Value::as_array)
            .map(|tasks| {
                tasks
                    .iter()
                    .take(crate::MAX_LISTED)
                    .filter_map(|task| {
                        Some(ListedTask {
                            id: text(task, "taskId")?,
                            status: text(task, "status").unwrap_or_else(|| "working".into()),
                            status_message: text(task, "statusMessage"),
                            created_at: text(task, "createdAt"),
                            last_updated_at: text(task, "lastUpdatedAt"),
                        })
                    })
                    .collect()
            })
            .unwrap_or_default();
        Ok(Some(tasks))
    }
}
