//! [`StoredTask`]: a task of the Tasks extension as a [`FlowStore`](super::FlowStore) keeps it,
//! so that a task's outcome outlives the process that ran it.

use rmcp::model::DetailedTask;

use crate::task::Requestor;

/// A task as the store keeps it: where it stood when last written (its `tasks/get` answer,
/// result or error included), who it is bound to, and until when it is kept.
///
/// [`Tasks`](crate::task::Tasks) writes one when a task starts and again when it ends; a
/// store seals it at rest where it seals secrets (a task's result may carry what a person
/// answered).
///
/// ```
/// use interlude_server::task::Requestor;
/// use interlude_server::url::{FlowStore, MemoryStore, StoredTask};
/// use rmcp::model::{DetailedTask, Task, TaskPayload, TaskStatus};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let store = MemoryStore::default();
/// let now = "2026-11-29T08:00:00Z";
/// let task = Task::new("t-1", TaskStatus::Working, now, now);
/// let stored = StoredTask {
///     task: DetailedTask::new(task, TaskPayload::Working),
///     requestor: Requestor::nobody(),
///     updated_at_ms: 1_000,
///     expires_at_ms: Some(301_000),
/// };
/// store.put_task(&stored).await?;
/// assert_eq!(store.task("t-1").await?, Some(stored));
/// assert_eq!(store.expire(301_000, 0).await?, 1); // its time is up: forgotten
/// assert_eq!(store.task("t-1").await?, None);
/// # Ok(()) }
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct StoredTask {
    /// The task, with its status-specific payload (a `completed` task's result, a `failed`
    /// one's error). Its id is `task.task.task_id`.
    pub task: DetailedTask,
    /// Who the task answers ([`Tasks`](crate::task::Tasks) gives anyone else "unknown
    /// task"). A task written before tasks were bound (an SQLite file of schema version 4)
    /// is read back as [`Requestor::nobody`]'s.
    pub requestor: Requestor,
    /// When it was written (milliseconds since the Unix epoch).
    pub updated_at_ms: u64,
    /// From when the store may forget it ([`FlowStore::expire`](super::FlowStore::expire));
    /// `None`: kept until it is replaced.
    pub expires_at_ms: Option<u64>,
}

impl StoredTask {
    /// The task's id.
    pub fn id(&self) -> &str {
        &self.task.task.task_id
    }
}
