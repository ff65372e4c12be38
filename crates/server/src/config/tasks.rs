//! [`Tasks`]: the tasks of one server (the Tasks extension), run by rmcp's task manager, kept in
//! a [`FlowStore`] when the server gives one, and shared by every handler instance through
//! [`AskConfig`](crate::AskConfig). Running a handler as a task is
//! [`Ask::task`](crate::Ask::task)'s (`task.rs`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::ErrorData;
use rmcp::model::{
    CallToolResult, CancelTaskParams, DetailedTask, GetTaskParams, GetTaskResult, JsonObject, Task,
    TaskPayload, UpdateTaskParams,
};
use rmcp::task_manager::{TaskContext, TaskExit, TaskFuture, TaskManager, TaskOptions};

use super::Requestor;
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
/// Each task is bound to its [`Requestor`] — the one who made the call that created it —
/// and answers only them: to anyone else, a task is exactly what an unknown id is (-32602
/// "unknown task", the same words; never "forbidden", which would tell that the id exists).
///
/// Running tasks live in this process (their handlers are futures of it). With a store
/// ([`AskConfig::with_task_store`](crate::AskConfig::with_task_store)) each task is also
/// written to it, with its requestor, when it starts and when it ends, so that after a restart
/// `tasks/get` still gives an ended task's result or error, and says of a task that was running
/// when the process stopped that it failed, and why — instead of "unknown task".
///
/// ```
/// use interlude_server::AskConfig;
/// use interlude_server::task::Requestor;
/// use rmcp::model::GetTaskParams;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let config = AskConfig::new();
/// let asking = Requestor::nobody();
/// let unknown = config
///     .tasks()
///     .get(&GetTaskParams::new("no-such-task"), &asking)
///     .await
///     .unwrap_err();
/// assert_eq!(unknown.code.0, -32602);
/// # }
/// ```
#[derive(Clone, Default)]
pub struct Tasks {
    manager: TaskManager,
    store: Option<Arc<dyn FlowStore>>,
    /// Who each task of the manager was created for.
    owners: Arc<Mutex<Owners>>,
}

/// The requestors of the manager's tasks, and when to forget those the manager forgot.
#[derive(Default)]
struct Owners {
    of: HashMap<String, Requestor>,
    /// Past this many, the next task's start drops the tasks the manager no longer knows.
    sweep_at: usize,
}

/// The fewest owners kept before the first sweep.
const FIRST_SWEEP: usize = 1024;

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

/// What an id that is not the requestor's gets: the words rmcp's task manager says of an id it
/// does not know, so that the two cannot be told apart.
fn unknown(id: &str) -> ErrorData {
    ErrorData::invalid_params(format!("unknown task: {id}"), None)
}

impl Tasks {
    /// Tasks kept in `store` as well as in memory (see the type's documentation).
    pub fn with_store(store: Arc<dyn FlowStore>) -> Self {
        Tasks {
            store: Some(store),
            ..Tasks::default()
        }
    }

    /// `tasks/get` from `requestor`: where the task stands, with its outstanding
    /// `inputRequests`, its `result` or its `error`; -32602 for an id this server does not
    /// know, or whose task is another requestor's.
    pub async fn get(
        &self,
        params: &GetTaskParams,
        requestor: &Requestor,
    ) -> Result<GetTaskResult, ErrorData> {
        let id = &params.task_id;
        match self.owner(id) {
            Some(owner) if &owner == requestor => match self.manager.get_task(id) {
                Ok(task) => Ok(GetTaskResult::new(task)),
                Err(_) => match self.kept(id, requestor).await? {
                    Some(task) => Ok(GetTaskResult::new(task)),
                    None => Err(unknown(id)),
                },
            },
            Some(_) => Err(unknown(id)),
            None => match self.kept(id, requestor).await? {
                Some(task) => Ok(GetTaskResult::new(task)),
                None => Err(unknown(id)),
            },
        }
    }

    /// `tasks/update` from `requestor`: the client's answers to the task's questions (a part of
    /// them is fine; unknown or answered keys are ignored, and so are answers to a task that
    /// ended); -32602 for an id this server does not know, or whose task is another
    /// requestor's.
    pub async fn update(
        &self,
        params: UpdateTaskParams,
        requestor: &Requestor,
    ) -> Result<(), ErrorData> {
        let id = params.task_id.clone();
        if self.owner(&id).as_ref() == Some(requestor) {
            if self
                .manager
                .update_task(&id, params.input_responses)
                .is_ok()
            {
                return Ok(());
            }
        } else if self.owner(&id).is_some() {
            return Err(unknown(&id));
        }
        match self.kept(&id, requestor).await? {
            Some(_) => Ok(()),
            None => Err(unknown(&id)),
        }
    }

    /// `tasks/cancel` from `requestor`: the task's handler is stopped and the task ends
    /// `cancelled` (an ended task stays as it was; the answer is the same empty
    /// acknowledgement); -32602 for an id this server does not know, or whose task is another
    /// requestor's.
    pub async fn cancel(
        &self,
        params: &CancelTaskParams,
        requestor: &Requestor,
    ) -> Result<(), ErrorData> {
        let id = &params.task_id;
        if self.owner(id).as_ref() == Some(requestor) {
            if self.manager.cancel_task(id).is_ok() {
                return Ok(());
            }
        } else if self.owner(id).is_some() {
            return Err(unknown(id));
        }
        match self.kept(id, requestor).await? {
            Some(_) => Ok(()),
            None => Err(unknown(id)),
        }
    }

    /// The requestor task `id` of the manager was created for.
    fn owner(&self, id: &str) -> Option<Requestor> {
        self.owners
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .of
            .get(id)
            .cloned()
    }

    /// Binds task `id` to `requestor`; once in a while forgets the tasks the manager forgot.
    fn bind(&self, id: &str, requestor: Requestor) {
        let mut owners = self.owners.lock().unwrap_or_else(PoisonError::into_inner);
        if owners.of.len() >= owners.sweep_at.max(FIRST_SWEEP) {
            let manager = &self.manager;
            owners.of.retain(|id, _| manager.get_task(id).is_ok());
            owners.sweep_at = owners.of.len().saturating_mul(2);
        }
        owners.of.insert(id.to_owned(), requestor);
    }

    /// How many tasks are still running.
    pub fn running(&self) -> usize {
        self.manager.running_task_count()
    }

    /// Starts `work` as a task: it is in the manager (and, with a store, written to it) before
    /// this returns; with a store its end is written too, before the manager records it.
    /// The task is bound to `requestor` before anyone can know its id.
    pub(crate) async fn spawn<F>(
        &self,
        options: TaskOptions,
        requestor: Requestor,
        work: F,
    ) -> Result<Task, ErrorData>
    where
        F: FnOnce(TaskContext) -> TaskFuture,
    {
        let store = self.store.clone();
        let manager = self.manager.clone();
        let owner = requestor.clone();
        let task = self.manager.spawn(options, move |context| match store {
            None => work(context),
            Some(store) => {
                let id = context.task_id().to_owned();
                let running = work(context);
                Box::pin(async move {
                    let outcome = running.await;
                    keep_end(&*store, &manager, &id, owner, &outcome).await;
                    outcome
                })
            }
        });
        self.bind(&task.task_id, requestor.clone());
        if let Some(store) = &self.store {
            let started = StoredTask {
                task: DetailedTask::new(task.clone(), TaskPayload::Working),
                requestor,
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

    /// A task this process does not run, as the store has it, if it is `requestor`'s: an
    /// ended one as it ended; one that was running when the process stopped as `failed`,
    /// saying so (and kept so).
    async fn kept(
        &self,
        id: &str,
        requestor: &Requestor,
    ) -> Result<Option<DetailedTask>, ErrorData> {
        let Some(store) = &self.store else {
            return Ok(None);
        };
        let unread = |e| ErrorData::internal_error(format!("the task store failed: {e}"), None);
        let Some(mut stored) = store.task(id).await.map_err(unread)? else {
            return Ok(None);
        };
        if &stored.requestor != requestor {
            return Ok(None);
        }
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
    requestor: Requestor,
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
        requestor,
        updated_at_ms: now,
    };
    if let Err(e) = store.put_task(&ended).await {
        // Not the task's id: an id is what reaches a task bound to nobody.
        tracing::warn!(error = %e, "a task's end could not be kept");
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::url::{MemoryStore, UserId};

    /// A task that waits until it is cancelled, for `requestor`.
    async fn waiting(tasks: &Tasks, requestor: &Requestor) -> String {
        let task = tasks
            .spawn(TaskOptions::new(), requestor.clone(), |context| {
                Box::pin(async move {
                    context.cancelled().await;
                    Err(TaskExit::Cancelled)
                })
            })
            .await
            .unwrap();
        task.task_id
    }

    /// What each of `tasks/get`, `tasks/update`, `tasks/cancel` says of `id` to `requestor`:
    /// its error, if any.
    async fn errors(tasks: &Tasks, id: &str, requestor: &Requestor) -> Vec<Option<ErrorData>> {
        vec![
            tasks.get(&GetTaskParams::new(id), requestor).await.err(),
            tasks
                .update(UpdateTaskParams::new(id, Default::default()), requestor)
                .await
                .err(),
            tasks
                .cancel(&CancelTaskParams::new(id), requestor)
                .await
                .err(),
        ]
    }

    /// Bound to a signed-in principal (what the "Sign in" issue will give a request), a task
    /// answers that principal only; to another principal, and to nobody, it is exactly an
    /// unknown id — also once the manager forgot it and it is read from the store.
    #[tokio::test]
    async fn a_task_answers_its_requestor_only() {
        let store: Arc<dyn FlowStore> = Arc::new(MemoryStore::default());
        let tasks = Tasks::with_store(store.clone());
        let ada = Requestor::nobody().with_principal(UserId::new("ada"));
        let bob = Requestor::nobody().with_principal(UserId::new("bob"));
        let id = waiting(&tasks, &ada).await;
        let never = "00000000-0000-4000-8000-000000000000";
        let unknown = |id: &str| vec![Some(unknown(id)); 3];
        assert_eq!(errors(&tasks, never, &bob).await, unknown(never));
        for other in [&bob, &Requestor::nobody()] {
            assert_eq!(errors(&tasks, &id, other).await, unknown(&id));
        }
        assert!(tasks.manager.get_task(&id).is_ok(), "still running");
        assert_eq!(errors(&tasks, &id, &ada).await, vec![None; 3]);

        // After a restart the store keeps the binding.
        let restarted = Tasks::with_store(store);
        for other in [&bob, &Requestor::nobody()] {
            assert_eq!(errors(&restarted, &id, other).await, unknown(&id));
        }
        let got = restarted.get(&GetTaskParams::new(&id), &ada).await.unwrap();
        assert!(got.task.status().is_terminal());
    }
}
