//! [`Tasks`]: the tasks of one server (the Tasks extension), kept by rmcp's task manager and
//! shared by every handler instance through [`AskConfig`](crate::AskConfig). Running a handler
//! as a task is [`Ask::task`](crate::Ask::task)'s (`task.rs`).

use rmcp::ErrorData;
use rmcp::model::{CancelTaskParams, GetTaskParams, GetTaskResult, UpdateTaskParams};
use rmcp::task_manager::TaskManager;

/// The tasks of one server: shared by every handler instance (it lives in
/// [`AskConfig`](crate::AskConfig)), it answers `tasks/get`, `tasks/update` and `tasks/cancel`.
///
/// ```
/// use interlude_server::AskConfig;
/// use rmcp::model::GetTaskParams;
///
/// let config = AskConfig::new();
/// let unknown = config.tasks().get(&GetTaskParams::new("no-such-task")).unwrap_err();
/// assert_eq!(unknown.code.0, -32602);
/// ```
#[derive(Clone, Default)]
pub struct Tasks {
    manager: TaskManager,
}

impl std::fmt::Debug for Tasks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tasks")
            .field("running", &self.manager.running_task_count())
            .finish()
    }
}

impl Tasks {
    /// `tasks/get`: where the task stands, with its outstanding `inputRequests`, its `result`
    /// or its `error`; -32602 for an id this server does not know.
    pub fn get(&self, params: &GetTaskParams) -> Result<GetTaskResult, ErrorData> {
        self.manager
            .get_task(&params.task_id)
            .map(GetTaskResult::new)
    }

    /// `tasks/update`: the client's answers to the task's questions (a part of them is fine;
    /// unknown or answered keys are ignored).
    pub fn update(&self, params: UpdateTaskParams) -> Result<(), ErrorData> {
        self.manager
            .update_task(&params.task_id, params.input_responses)
    }

    /// `tasks/cancel`: the task's handler is stopped and the task ends `cancelled` (an ended
    /// task stays as it was; the answer is the same empty acknowledgement).
    pub fn cancel(&self, params: &CancelTaskParams) -> Result<(), ErrorData> {
        self.manager.cancel_task(&params.task_id)
    }

    /// The manager that runs them.
    pub(crate) fn manager(&self) -> &TaskManager {
        &self.manager
    }

    /// How many tasks are still running.
    pub fn running(&self) -> usize {
        self.manager.running_task_count()
    }
}
