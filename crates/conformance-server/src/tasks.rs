//! The fixtures of the suite's `tasks-*` scenarios (the Tasks extension, SEP-2663): a tool
//! that never runs as a task, tools that may or must, and tools that ask the person inside a
//! task — each written with [`Ask::task`], the same handler code whether the client takes
//! tasks or not.

use std::time::Duration;

use interlude_server::task::{TaskOptions, TaskSupport};
use interlude_server::{Answer, Ask, ToolResult, asking};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ErrorData, tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::fixtures::{Fixtures, Name};

/// Whom to greet.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct Greeting {
    /// The name to greet
    name: String,
}

/// How long to compute.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct Compute {
    /// Seconds to work (0 answers at once)
    #[serde(default)]
    seconds: f64,
    /// A label carried into the result
    #[serde(default)]
    label: Option<String>,
}

/// Which file to delete.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct Deletion {
    /// The file
    filename: String,
}

/// A yes or no.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct Confirmation {
    /// Go ahead?
    confirm: bool,
}

/// One reviewer's sign-off.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct Signoff {
    /// Your name
    name: String,
    /// Approve the release?
    confirm: bool,
}

fn text(text: impl Into<String>) -> ToolResult {
    Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
}

/// At most an hour of work, whatever the client asks.
fn work_time(seconds: f64) -> Duration {
    Duration::try_from_secs_f64(seconds.clamp(0.0, 3600.0)).unwrap_or_default()
}

#[asking]
#[tool_router(router = task_tools, vis = "pub(crate)")]
impl Fixtures {
    #[tool(description = "Greets by name; never runs as a task.")]
    async fn greet(&self, Parameters(who): Parameters<Greeting>) -> ToolResult {
        text(format!("Hello, {}!", who.name))
    }

    #[tool(description = "Works for `seconds`, then answers; a task when the client takes tasks.")]
    async fn slow_compute(&self, ask: Ask, Parameters(job): Parameters<Compute>) -> ToolResult {
        let seconds = job.seconds;
        let label = job.label.unwrap_or_default();
        ask.task(TaskSupport::Optional, TaskOptions::new(), move |ask| {
            let label = label.clone();
            async move {
                ask.status(format!("Computing {label} for {seconds} s"));
                tokio::time::sleep(work_time(seconds)).await;
                text(format!("Computed {label} in {seconds} s."))
            }
        })
        .await
    }

    #[tool(description = "Runs only as a task, and ends with a tool error after a second.")]
    async fn failing_job(&self, ask: Ask) -> ToolResult {
        ask.task(TaskSupport::Required, TaskOptions::new(), |_| async {
            tokio::time::sleep(Duration::from_secs(1)).await;
            Ok(CallToolResult::error(vec![ContentBlock::text(
                "The job failed: the input was rejected.",
            )]))
        })
        .await
    }

    #[tool(description = "Fails with a protocol error (an internal error), as a task when it can.")]
    async fn protocol_error_job(&self, ask: Ask) -> ToolResult {
        ask.task(TaskSupport::Optional, TaskOptions::new(), |_| async {
            Err(ErrorData::internal_error("the job crashed", None).into())
        })
        .await
    }

    #[tool(description = "Asks the person to confirm a deletion, as a task when it can.")]
    async fn confirm_delete(&self, ask: Ask, Parameters(file): Parameters<Deletion>) -> ToolResult {
        let filename = file.filename;
        ask.task(TaskSupport::Optional, TaskOptions::new(), move |ask| {
            let filename = filename.clone();
            async move {
                let message = format!("Delete {filename}?");
                match ask.key("confirm").form::<Confirmation>(message).await? {
                    Answer::Accepted(c) if c.confirm => text(format!("Deleted {filename}.")),
                    Answer::Accepted(_) | Answer::Declined | Answer::Cancelled => {
                        text(format!("Kept {filename}."))
                    }
                }
            }
        })
        .await
    }

    #[tool(description = "Asks two reviewers to sign off at once, as a task when it can.")]
    async fn multi_input(&self, ask: Ask) -> ToolResult {
        ask.task(
            TaskSupport::Optional,
            TaskOptions::new(),
            |ask| async move {
                let (first, second) = ask
                    .all((
                        ask.key("first_reviewer")
                            .form::<Signoff>("First reviewer: approve the release?"),
                        ask.key("second_reviewer")
                            .form::<Signoff>("Second reviewer: approve the release?"),
                    ))
                    .await?;
                let said = |answer: Answer<Signoff>| match answer {
                    Answer::Accepted(s) if s.confirm => format!("{} approved", s.name),
                    Answer::Accepted(s) => format!("{} refused", s.name),
                    Answer::Declined | Answer::Cancelled => "nobody answered".to_owned(),
                };
                text(format!("{}; {}.", said(first), said(second)))
            },
        )
        .await
    }

    #[tool(description = "Asks the person's name first (an ordinary round), then runs as a task.")]
    async fn test_tool_with_task(&self, ask: Ask) -> ToolResult {
        let name = match ask
            .key("user_name")
            .form::<Name>("What is your name?")
            .await?
        {
            Answer::Accepted(n) => n.name,
            Answer::Declined | Answer::Cancelled => "stranger".into(),
        };
        ask.task(TaskSupport::Required, TaskOptions::new(), move |_| {
            let name = name.clone();
            async move { text(format!("Hello, {name}! The task is done.")) }
        })
        .await
    }
}
