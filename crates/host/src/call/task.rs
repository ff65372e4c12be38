//! A call that became a task of the Tasks extension (SEP-2663, with 2026-07-28), followed to its
//! end: the host polls `tasks/get` at the server's `pollIntervalMs` (within bounds), keeps the
//! call's record up to date (its task's status and status line), asks the person each new
//! `inputRequests` entry — tied to the call, as any of its requests — and sends the answers
//! with `tasks/update`; the inlined `result` ends the call as a plain result would. A call
//! cancelled or abandoned meanwhile sends `tasks/cancel`.
//!
//! The 2025-11-25 design has a follower of its own (`legacy_task.rs`); both keep one record
//! ([`CallTask`]).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolResult, CancelTaskParams, CreateTaskResult, GetTaskParams, Task, TaskPayload,
    TaskStatus, UpdateTaskParams,
};
use rmcp::service::{Peer, RoleClient};

use super::{Call, CallOutcome};
use crate::hub::config::HostError;
use crate::hub::inputs::{CallUpdate, HostInput};
use crate::record::registry::CallTask;
use crate::session::tasks::Farewells;

/// The shortest wait between two polls, whatever the server asks.
pub(super) const POLL_FLOOR: Duration = Duration::from_millis(100);
/// The longest wait between two polls, whatever the server asks (the ceiling).
pub(super) const POLL_CEILING: Duration = Duration::from_secs(5);
/// The wait between two polls when the server names none.
pub(super) const POLL_DEFAULT: Duration = Duration::from_secs(1);

impl Call<'_> {
    /// Follows the task the call became until it ends: its result, or why it has none.
    pub(super) async fn follow_task(
        &self,
        created: CreateTaskResult,
        rounds: usize,
    ) -> Result<CallOutcome, HostError> {
        let call = self.id;
        let server = &self.conn.inner.info.name;
        let shared = &self.conn.inner.shared;
        let id = created.task.task_id.clone();
        let mut cancel = CancelOnDrop {
            peer: Some(self.conn.inner.peer.clone()),
            id: id.clone(),
            farewells: self.conn.inner.farewells.clone(),
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
                .conn
                .inner
                .peer
                .get_task(GetTaskParams::new(&id))
                .await
                .map_err(|e| {
                    self.conn
                        .service_error(format!("asking how task `{id}` stands"), e)
                })?;
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
                    let answers = self.conn.answer_round(Some(call), new).await?;
                    // A server gone while its task waited for the person: said as that, not as
                    // a failed answer (its question ended unanswered).
                    let doing = if self.conn.inner.peer.is_transport_closed() {
                        format!("waiting for the person's answer to task `{id}`")
                    } else {
                        format!("answering task `{id}`")
                    };
                    self.conn
                        .inner
                        .peer
                        .update_task(UpdateTaskParams::new(&id, answers))
                        .await
                        .map_err(|e| self.conn.service_error(doing, e))?;
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
