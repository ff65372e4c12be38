//! A 2025-11-25 experimental task (SEP-1686), followed to its end: a server whose tool runs only
//! as a task says so (rmcp drops the tool's `execution.taskSupport`), and the call is made again
//! as a task (`params.task`); `tasks/get` for its status line, `tasks/result` once it needs the
//! person or has ended — its questions come on that request, tied to the call by the transport
//! tap — and `tasks/cancel` on cancel. Spoken through custom requests, since rmcp no longer
//! types this design.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::CallToolResult;

use super::task::{POLL_CEILING, POLL_DEFAULT, POLL_FLOOR};
use super::{Call, CallOutcome};
use crate::hub::config::HostError;
use crate::hub::inputs::{CallUpdate, HostInput};
use crate::record::registry::CallTask;
use crate::session::Connection;

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

impl Call<'_> {
    /// Calls tool `name` as a 2025-11-25 experimental task (SEP-1686: `params.task`), and
    /// follows the task to its end: `tasks/get` at its `pollInterval` (within bounds) for its
    /// status line; once it needs the person (`input_required`) or has ended, `tasks/result`,
    /// which the server answers with the call's result after pushing its questions on that
    /// request (they are the call's, as any of its questions). A call cancelled or abandoned
    /// meanwhile sends `tasks/cancel`.
    pub(super) async fn follow_legacy_task(
        &self,
        arguments: Option<rmcp::model::JsonObject>,
    ) -> Result<CallOutcome, HostError> {
        let (call, name) = (self.id, self.tool);
        let server = &self.conn.inner.info.name;
        let shared = &self.conn.inner.shared;
        let mut params = serde_json::Map::new();
        params.insert("name".into(), name.into());
        params.insert("task".into(), serde_json::json!({}));
        if let Some(arguments) = arguments {
            params.insert("arguments".into(), serde_json::Value::Object(arguments));
        }
        let created = self
            .conn
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
            connection: Some(self.conn.clone()),
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
                .conn
                .custom(None, "tasks/get", serde_json::json!({"taskId": id}))
                .await?;
            state = legacy_task(&id, &got);
        }
        // Blocks until the task ends; the questions it needs come while it is open.
        let result = self
            .conn
            .custom(
                Some(call),
                "tasks/result",
                serde_json::json!({"taskId": id}),
            )
            .await;
        cancel.connection = None;
        let result = result?;
        if let Ok(got) = self
            .conn
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
