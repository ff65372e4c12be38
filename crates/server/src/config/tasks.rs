//! [`Tasks`]: the tasks of one server (the Tasks extension), run by rmcp's task manager, kept in
//! a [`FlowStore`] when the server gives one, and shared by every handler instance through
//! [`AskConfig`](crate::AskConfig). Running a handler as a task is
//! [`Ask::task`](crate::Ask::task)'s (`task.rs`).

use std::sync::Arc;

use rmcp::ErrorData;
use rmcp::model::{
    CallToolResult, CancelTaskParams, DetailedTask, GetTaskParams, GetTaskResult, JsonObject, Task,
    TaskPayload, UpdateTaskParams,
};
use rmcp::task_manager::{TaskContext, TaskExit, TaskFuture, TaskManager, TaskOptions};

use crate::url::store::{FlowStore, StoredTask, now_ms};

/// How a tool takes to running as a task ([`Ask::task`](crate::Ask::task)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TaskSupport {
    /// A task when the client declared the extension; an ordinary call otherwise.
    Optional,
    /// Only as a task: a 2026-07-28 client that did not declare the extension gets error
    /// -32021 naming it; a 2025-11-25 call without `params.task` gets -32601 from
    /// [`TaskServer`](crate::task::TaskServer) when the tool is named there. (2025-06-18 has no
    /// tasks: the tool runs as an ordinary call there.)
    Required,
}

/// Put in a call's extensions where it is known whether the server serves tasks: `true` by
/// [`TaskServer`](crate::task::TaskServer), which answers `tasks/*` for the server; by the
/// `Ask` extractor, whether the server's own `get_info` declares the Tasks extension. An `Ask`
/// runs its handler as a task only where it is `true` (or, for an `Ask` built by hand, absent):
/// a task nobody can poll is worse than an ordinary call.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ServesTasks(pub(crate) bool);

/// The tasks of one server: shared by every handler instance (it lives in
/// [`AskConfig`](crate::AskConfig)), it answers `tasks/get`, `tasks/update` and `tasks/cancel`.
///
/// Running tasks live in this process (their handlers are futures of it). With a store
/// ([`AskConfig::with_task_store`](crate::AskConfig::with_task_store)) each task is also
/// written to it when it starts and when it ends, so that after a restart `tasks/get` still
/// gives an ended task's result or error, and says of a task that was running when the
/// process stopped that it failed, and why — instead of "unknown task".
///
/// ```
/// use interlude_server::AskConfig;
/// use rmcp::model::GetTaskParams;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let config = AskConfig::new();
/// let unknown = config.tasks().get(&GetTaskParams::new("no-such-task")).await.unwrap_err();
/// assert_eq!(unknown.code.0, -32602);
/// # }
/// ```
#[derive(Clone, Default)]
pub struct Tasks {
    manager: TaskManager,
    store: Option<Arc<dyn FlowStore>>,
}

impl std::fmt::Debug for Tasks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tasks")
            .field("running", &self.manager.running_task_count())
            .field("stored", &self.store.is_some())
            .finish()
    }
}

/// What `tasks/get` says of a task that was running when its server stopped.
const LOST: &str = "the server stopped while this task was running; its work did not survive \
                    the restart (call the tool again)";

impl Tasks {
    /// Tasks kept in `store` as well as in memory (see the type's documentation).
    pub fn with_store(store: Arc<dyn FlowStore>) -> Self {
        Tasks {
            manager: TaskManager::default(),
            store: Some(store),
        }
    }

    /// `tasks/get`: where the task stands, with its outstanding `inputRequests`, its `result`
    /// or its `error`; -32602 for an id this server does not know.
    pub async fn get(&self, params: &GetTaskParams) -> Result<GetTaskResult, ErrorData> {
        match self.manager.get_task(&params.task_id) {
            Ok(task) => Ok(GetTaskResult::new(task)),
            Err(unknown) => match self.kept(&params.task_id).await? {
                Some(task) => Ok(GetTaskResult::new(task)),
                None => Err(unknown),
            },
        }
    }

    /// `tasks/update`: the client's answers to the task's questions (a part of them is fine;
    /// unknown or answered keys are ignored, and so are answers to a task that ended).
    pub async fn update(&self, params: UpdateTaskParams) -> Result<(), ErrorData> {
        match self
            .manager
            .update_task(&params.task_id, params.input_responses)
        {
            Err(unknown) if self.kept(&params.task_id).await?.is_none() => Err(unknown),
            _ => Ok(()),
        }
    }

    /// `tasks/cancel`: the task's handler is stopped and the task ends `cancelled` (an ended
    /// task stays as it was; the answer is the same empty acknowledgement).
    pub async fn cancel(&self, params: &CancelTaskParams) -> Result<(), ErrorData> {
        match self.manager.cancel_task(&params.task_id) {
            Err(unknown) if self.kept(&params.task_id).await?.is_none() => Err(unknown),
            _ => Ok(()),
        }
    }

    /// How many tasks are still running.
    pub fn running(&self) -> usize {
        self.manager.running_task_count()
    }

    /// Starts `work` as a task: it is in the manager (and, with a store, written to it) before
    /// this returns; with a store its end is written too, before the manager records it.
    pub(crate) async fn spawn<F>(&self, options: TaskOptions, work: F) -> Result<Task, ErrorData>
    where
        F: FnOnce(TaskContext) -> TaskFuture,
    {
        let store = self.store.clone();
        let manager = self.manager.clone();
        let task = self.manager.spawn(options, move |context| match store {
            None => work(context),
            Some(store) => {
                let id = context.task_id().to_owned();
                let running = work(context);
                Box::pin(async move {
                    let outcome = running.await;
                    keep_end(&*store, &manager, &id, &outcome).await;
                    outcome
                })
            }
        });
        if let Some(store) = &self.store {
            let started = StoredTask {
                task: DetailedTask::new(task.clone(), TaskPayload::Working),
                updated_at_ms: now_ms(),
                expires_at_ms: task.ttl_ms.map(|ttl| now_ms().saturating_add(ttl)),
            };
            if let Err(e) = store.put_task(&started).await {
                // Not kept, so not started: the client is told, and the work stops.
                let _ = self.manager.cancel_task(&task.task_id);
                return Err(ErrorData::internal_error(
                    format!("the task could not be kept: {e}"),
                    None,
                ));
            }
        }
        Ok(task)
    }

    /// A task this process does not run, as the store has it: an ended one as it ended; one
    /// that was running when the process stopped as `failed`, saying so (and kept so).
    async fn kept(&self, id: &str) -> Result<Option<DetailedTask>, ErrorData> {
        let Some(store) = &self.store else {
            return Ok(None);
        };
        let unread = |e| ErrorData::internal_error(format!("the task store failed: {e}"), None);
        let Some(mut stored) = store.task(id).await.map_err(unread)? else {
            return Ok(None);
        };
        if !stored.task.status().is_terminal() {
            let mut task = stored.task.task.clone();
            task.status_message = Some(LOST.to_owned());
            task.last_updated_at = rmcp::task_manager::current_timestamp();
            let error = error_object(&ErrorData::internal_error(LOST, None));
            stored.task = DetailedTask::new(task, TaskPayload::Failed { error });
            stored.updated_at_ms = now_ms();
            store.put_task(&stored).await.map_err(unread)?;
        }
        Ok(Some(stored.task))
    }
}

/// Writes a task's end to `store`, with what the manager knows of it (its times, its last
/// status line). A store that fails is logged: the outcome is still in memory.
async fn keep_end(
    store: &dyn FlowStore,
    manager: &TaskManager,
    id: &str,
    outcome: &Result<CallToolResult, TaskExit>,
) {
    let payload = match outcome {
        Ok(result) => TaskPayload::Completed {
            result: object(result),
        },
        Err(TaskExit::Cancelled) => TaskPayload::Cancelled,
        Err(TaskExit::Error(error)) => TaskPayload::Failed {
            error: error_object(error),
        },
    };
    // Still running in the manager's eyes: it records the end once this returns.
    let Ok(DetailedTask { mut task, .. }) = manager.get_task(id) else {
        return;
    };
    task.last_updated_at = rmcp::task_manager::current_timestamp();
    let now = now_ms();
    let ended = StoredTask {
        expires_at_ms: task.ttl_ms.map(|ttl| now.saturating_add(ttl)),
        task: DetailedTask::new(task, payload),
        updated_at_ms: now,
    };
    if let Err(e) = store.put_task(&ended).await {
        tracing::warn!(task = id, error = %e, "a task's end could not be kept");
    }
}

fn object(value: &impl serde::Serialize) -> JsonObject {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::Object(map)) => map,
        _ => JsonObject::new(),
    }
}

fn error_object(error: &ErrorData) -> JsonObject {
    object(error)
}
