//! Tools that run as tasks: the Tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663),
//! used with 2026-07-28, and the 2025-11-25 experimental tasks (SEP-1686). A tool that may take
//! long answers its call at once with a task; the client polls `tasks/get` and may
//! `tasks/cancel` it; it answers the task's questions with `tasks/update` (the extension) or on
//! the `tasks/result` call they are pushed on (2025-11-25).
//!
//! Serving the server through [`TaskServer`] wires both designs (the capabilities, and the
//! `tasks/*` methods); on stdio, serve it on [`checked_stdio`](crate::checked_stdio), over
//! streamable HTTP behind [`checked_http`](crate::checked_http), for the 2025-11-25 design.
//! A server not served so runs its task tools as ordinary calls.
//!
//! The handler is the same code in and out of a task: [`Ask::task`] runs it as a task when the
//! client declared the extension on the request (or asked for a task, on 2025-11-25) and the
//! server serves tasks, and right there otherwise. Inside a task, each
//! of its questions ([`Ask::form`], [`Ask::sample`], [`Ask::roots`]) becomes one of the task's
//! `inputRequests` and the handler waits for its answer (`tasks/update`) where it asked —
//! questions asked together ([`Ask::all`]) are outstanding together; it never sees which way it
//! is asked, and it runs once. A `tasks/cancel` stops it (its future is dropped), and the task
//! ends `cancelled`. A URL flow ([`UrlFlows::run`](crate::url::UrlFlows::run)) works inside a
//! task in both designs: the person's consent is one of the task's questions (a URL
//! elicitation naming the flow), then the task waits, `working`, until the flow's page ends it.
//!
//! The tasks run under rmcp's task manager, in this process's memory, under unguessable ids
//! (UUID v4), for their TTL (five minutes by default) and as long again once ended; given a
//! store ([`AskConfig::with_task_store`](crate::AskConfig::with_task_store), the same
//! [`FlowStore`](crate::url::FlowStore) as URL flows), each task is also kept there when it
//! starts and when it ends, so a restart loses no ended task's result (and a task cut short by
//! the restart says so). Each task is bound to its requestor ([`Requestor`]: the streamable
//! HTTP session or the 2025-era connection that asked for it, and later the signed-in
//! principal): to anyone else its id is unknown. Where there is neither (2026-07-28 over
//! stateless HTTP, without sign-in) the id alone reaches the task.

use std::future::Future;

use interlude_protocol::ProtocolEra;
use rmcp::ErrorData;
use rmcp::model::{CallToolResult, CreateTaskResult};
use rmcp::task_manager::{TaskContext, TaskExit};

pub use crate::config::{Requestor, TaskSupport, Tasks};
pub use crate::legacy_task::{LegacyTasks, TaskServer};
pub use rmcp::task_manager::TaskOptions;

use crate::ask::Ask;
use crate::call::Call;
use crate::config::ServesTasks;
use crate::error::AskError;
use crate::result::ToolResult;
use crate::round_trip::{RoundTrip, Served};

impl Ask {
    /// Whether this call may run as a task: with 2026-07-28, the client declared the Tasks
    /// extension (in the request's own `_meta`, or the session's capabilities) and the server
    /// serves tasks (through [`TaskServer`], or its own `get_info` declares the extension);
    /// with 2025-11-25, the client asked for a task in this call (`params.task`, which the
    /// toolkit's input checks keep for it) of a server served through [`TaskServer`].
    ///
    /// An `Ask` built by hand ([`Ask::new`]) cannot see the server's declaration: outside
    /// [`TaskServer`] it trusts the client's on 2026-07-28.
    pub fn supports_tasks(&self) -> bool {
        match self.call.era {
            ProtocolEra::Mrtr => {
                self.client_takes_tasks()
                    && self
                        .call
                        .context
                        .extensions
                        .get::<ServesTasks>()
                        .is_none_or(|served| served.0)
            }
            ProtocolEra::Push => crate::legacy_task::requested(&self.call.context),
        }
    }

    /// 2026-07-28: the client declared the Tasks extension.
    fn client_takes_tasks(&self) -> bool {
        self.call
            .client_capabilities()
            .is_some_and(|c| c.supports_tasks())
    }

    /// Runs `work` as a task when the call may be one ([`Ask::supports_tasks`]): the call
    /// answers at once with the task, and `work` goes on in the background, its questions
    /// becoming the task's input requests. Otherwise `work` runs here, as an ordinary call —
    /// unless `support` is [`TaskSupport::Required`] on a 2026-07-28 call, which is error
    /// -32021 naming the extension (on 2025-11-25, [`TaskServer`] refuses such a call
    /// before the handler runs).
    ///
    /// `work` is given this `Ask` (or, in a task, the task's own) and runs once. Questions asked
    /// before `task` (an ordinary round, say) are answered first; `work` captures what they
    /// gave.
    ///
    /// ```
    /// use interlude_server::task::{TaskOptions, TaskSupport};
    /// use interlude_server::{Answer, Ask, ToolResult};
    /// use rmcp::model::{CallToolResult, ContentBlock};
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Approval {
    ///     /// Deploy now?
    ///     approve: bool,
    /// }
    ///
    /// async fn deploy(ask: Ask) -> ToolResult {
    ///     ask.task(TaskSupport::Optional, TaskOptions::new(), |ask| async move {
    ///         ask.status("Running the checks");
    ///         // … the checks …
    ///         let go = match ask.form::<Approval>("The checks passed. Deploy now?").await? {
    ///             Answer::Accepted(a) => a.approve,
    ///             Answer::Declined | Answer::Cancelled => false,
    ///         };
    ///         let text = if go { "Deployed." } else { "Not deployed." };
    ///         Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
    ///     })
    ///     .await
    /// }
    /// ```
    pub async fn task<F, Fut>(
        self,
        support: TaskSupport,
        options: TaskOptions,
        work: F,
    ) -> ToolResult
    where
        F: FnOnce(Ask) -> Fut + Send + 'static,
        Fut: Future<Output = ToolResult> + Send + 'static,
    {
        if !self.supports_tasks() {
            if self.call.era == ProtocolEra::Mrtr && self.client_takes_tasks() {
                // The client would take a task, but nobody would answer its `tasks/get`.
                tracing::warn!(
                    "a tool ran as an ordinary call, not as a task: the server does not serve \
                     tasks (serve it through `interlude_server::task::TaskServer`)"
                );
            } else if support == TaskSupport::Required && self.call.era == ProtocolEra::Mrtr {
                return Err(AskError::MissingExtension {
                    extension: rmcp::model::TASKS_EXTENSION_ID,
                });
            }
            return work(self).await;
        }
        let config = self.call.config.clone();
        let context = crate::ask::kept_context(&self.call.context);
        let tasks = config.tasks.clone();
        // The task answers only who asked for it (`Requestor`).
        let requestor = crate::config::Requestor::of(&self.call.context);
        let task = tasks
            .spawn(options, requestor, move |handle| {
                Box::pin(async move {
                    let ask = Ask::in_task(&config, context, handle.clone());
                    // `tasks/cancel` both signals the handle and takes back the task's
                    // questions (failing the handler's wait): the signal is looked at first,
                    // so a cancelled task ends `cancelled`, never `failed` by that error.
                    tokio::select! {
                        biased;
                        () = handle.cancelled() => Err(TaskExit::Cancelled),
                        outcome = work(ask) => settled(outcome),
                    }
                })
            })
            .await
            .map_err(AskError::Tool)?;
        Err(AskError::TaskCreated(Box::new(CreateTaskResult::new(task))))
    }

    /// In a task, sets its `statusMessage` (what `tasks/get` says it is doing); elsewhere
    /// nothing.
    pub fn status(&self, message: impl Into<String>) {
        if let Some(task) = &self.task {
            task.set_status_message(message);
        }
    }
}

impl Ask {
    /// Whether this `Ask` is a task's ([`Ask::task`]): its questions go through the task.
    pub(crate) fn is_in_task(&self) -> bool {
        self.task.is_some()
    }

    /// In a task, asks the person's consent to open a URL flow's page (`url`, flow
    /// `elicitation_id`) as one of the task's input requests, and waits for the answer.
    pub(crate) async fn url_through_task(
        &self,
        message: String,
        url: String,
        elicitation_id: &str,
    ) -> Result<rmcp::model::ElicitResult, AskError> {
        use rmcp::model::{ElicitRequest, ElicitRequestParams, InputRequest};
        let Some(task) = &self.task else {
            return Err(AskError::Tool(ErrorData::internal_error(
                "a URL flow was asked through a task outside one",
                None,
            )));
        };
        // The flow's id names the question: unique in the task, as its keys must be.
        let key = format!("url-{elicitation_id}");
        let params = ElicitRequestParams::UrlElicitationParams {
            meta: None,
            message,
            url,
            elicitation_id: elicitation_id.to_owned(),
        };
        let request = InputRequest::Elicitation(ElicitRequest::new(params));
        match task.request_input(key.clone(), request).await {
            Ok(answer) => crate::round_trip::elicit_result(&key, answer),
            Err(TaskExit::Error(e)) => Err(AskError::Tool(e)),
            Err(TaskExit::Cancelled) => Err(AskError::Service(rmcp::ServiceError::Cancelled {
                reason: Some("the task was cancelled while it waited for an answer".into()),
            })),
        }
    }
}

/// How a task's handler ended, as the task records it: a result (`isError` included) is
/// `completed`; an error is `failed`, with the JSON-RPC error it would have been.
fn settled(outcome: ToolResult) -> Result<CallToolResult, TaskExit> {
    match outcome {
        Ok(result) => Ok(result),
        Err(AskError::InputRequired(_)) => Err(TaskExit::Error(ErrorData::internal_error(
            "the task's handler asked something a task cannot ask (a round of its own)",
            None,
        ))),
        Err(AskError::TaskCreated(_)) => Err(TaskExit::Error(ErrorData::internal_error(
            "a task's handler asked to run as a task again",
            None,
        ))),
        Err(e) => Err(TaskExit::Error(e.into_error_data())),
    }
}

impl Ask {
    /// The `Ask` a task's handler is given: its questions go through `task`.
    fn in_task(
        config: &crate::AskConfig,
        context: rmcp::service::RequestContext<rmcp::RoleServer>,
        task: TaskContext,
    ) -> Ask {
        let mut context = context;
        // The call's request was answered (with the task): rmcp ends its cancellation token
        // then. The task's work is stopped by `tasks/cancel` instead (its future is dropped).
        context.ct = tokio_util::sync::CancellationToken::new();
        let mut call = Call::new(config, context);
        // In a task, in either design, questions are the task's input requests (gathered as
        // a round would send them, then asked through the task), never pushed by the handler.
        call.era = ProtocolEra::Mrtr;
        Ask::from_call(
            call,
            RoundTrip::new(Served::Tool, "", None, None, None),
            Some(task),
        )
    }
}
