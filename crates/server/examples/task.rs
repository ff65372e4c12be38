//! A tool that runs as a task and asks the person midway, in both designs of tasks: the Tasks
//! extension (with 2026-07-28) and the 2025-11-25 experimental tasks.
//!
//! `deploy` runs its checks, then asks for the approval to deploy, then deploys. With a client
//! that takes tasks the call answers at once with a task; the client polls it, sees it
//! `input_required`, answers the question (`tasks/update`, or on `tasks/result` for
//! 2025-11-25), and reads the result when it completes. With any other client the same handler
//! runs as an ordinary call.
//!
//! The wiring is two lines: serve the server through [`TaskServer`] naming the tool, on
//! [`interlude_server::checked_stdio`]. (Without `TaskServer` the tool would run as an
//! ordinary call for every client: no task nobody could poll.)
//!
//! Run with: `cargo run -p interlude-server --example task` — MCP on stdin/stdout.

use std::time::Duration;

use interlude_server::task::{TaskOptions, TaskServer, TaskSupport};
use interlude_server::{Answer, Ask, AskConfig, AskServer, ToolResult, asking};
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

/// The question asked midway.
#[derive(Deserialize, JsonSchema)]
struct Approval {
    /// Deploy now?
    approve: bool,
}

#[derive(Clone)]
struct Server {
    ask: AskConfig,
}

impl AskServer for Server {
    fn ask_config(&self) -> &AskConfig {
        &self.ask
    }
}

#[asking]
#[tool_router]
impl Server {
    #[tool(description = "Run the checks, ask for approval, then deploy")]
    async fn deploy(&self, ask: Ask) -> ToolResult {
        ask.task(
            TaskSupport::Optional,
            TaskOptions::new(),
            |ask| async move {
                // `status` is the task's status line (what `tasks/get` says it is doing).
                ask.status("Running the checks");
                tokio::time::sleep(Duration::from_millis(300)).await;
                ask.status("Waiting for the approval");
                let go = match ask
                    .form::<Approval>("The checks passed. Deploy now?")
                    .await?
                {
                    Answer::Accepted(a) => a.approve,
                    Answer::Declined | Answer::Cancelled => false,
                };
                if !go {
                    return Ok(CallToolResult::success(vec![ContentBlock::text(
                        "Not deployed.",
                    )]));
                }
                ask.status("Deploying");
                tokio::time::sleep(Duration::from_millis(300)).await;
                Ok(CallToolResult::success(vec![ContentBlock::text(
                    "Deployed.",
                )]))
            },
        )
        .await
    }
}

#[tool_handler]
impl ServerHandler for Server {}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let server = Server {
        ask: AskConfig::new(),
    };
    // The tasks' capability and `tasks/*` methods, both designs.
    let served = TaskServer::new(server).tool("deploy", TaskSupport::Optional);
    served
        .serve(interlude_server::checked_stdio())
        .await?
        .waiting()
        .await?;
    Ok(())
}
