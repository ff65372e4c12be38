//! `deploy_release`: a long tool that asks midway — it runs three checks, then asks for the
//! approval to deploy, then deploys. A task when the client takes tasks — the Tasks extension
//! with 2026-07-28, or a 2025-11-25 client that asks for one (`params.task`, through
//! [`LegacyTasks`]) — with a status line the host shows as it goes; an ordinary call otherwise,
//! the same handler either way ([`Ask::task`]).

use std::time::Duration;

use interlude_server::task::{LegacyTasks, TaskOptions, TaskSupport};
use interlude_server::{Answer, Ask, ToolResult, asking};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::tools::DemoServer;

impl DemoServer {
    /// The demo as it is served: speaking the 2025-11-25 experimental tasks as well, with
    /// `deploy_release` listed as a tool that may run as one.
    #[must_use]
    pub fn with_legacy_tasks(self) -> LegacyTasks<DemoServer> {
        LegacyTasks::new(self).tool("deploy_release", TaskSupport::Optional)
    }
}

/// What to deploy.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct Release {
    /// The version to deploy
    #[serde(default = "default_version")]
    pub(crate) version: String,
}

fn default_version() -> String {
    "2.4.0".into()
}

/// The approval the release waits for.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct Approval {
    /// Deploy to production now?
    approve: bool,
    /// A note for the release log
    #[serde(default)]
    note: Option<String>,
}

/// The checks a release goes through, and how long each takes.
const CHECKS: [&str; 3] = ["unit tests", "integration tests", "security scan"];
const CHECK_TIME: Duration = Duration::from_millis(700);

#[asking]
#[tool_router(router = release_tools, vis = "pub(crate)")]
impl DemoServer {
    #[tool(
        description = "Deploy a release: three checks, then the server asks you to approve the deployment, then it deploys. Runs as a task (status line, Cancel) when your client takes tasks (the Tasks extension with 2026-07-28, or params.task with 2025-11-25); an ordinary call otherwise."
    )]
    async fn deploy_release(
        &self,
        ask: Ask,
        Parameters(release): Parameters<Release>,
    ) -> ToolResult {
        let version = release.version.trim().to_owned();
        let options = TaskOptions::new()
            .with_poll_interval_ms(500)
            .with_status_message(format!("Deploying {version}: starting the checks"));
        ask.task(TaskSupport::Optional, options, move |ask| async move {
            for (i, check) in CHECKS.iter().enumerate() {
                ask.status(format!("Check {} of {}: {check}", i + 1, CHECKS.len()));
                tokio::time::sleep(CHECK_TIME).await;
            }
            ask.status("The checks passed; waiting for the approval");
            let message = format!(
                "The checks passed for {version} ({}). Deploy it to production now?",
                CHECKS.join(", ")
            );
            let approval = match ask.key("approval").form::<Approval>(message).await? {
                Answer::Accepted(a) if a.approve => a,
                Answer::Accepted(_) | Answer::Declined | Answer::Cancelled => {
                    return Ok(CallToolResult::success(vec![ContentBlock::text(format!(
                        "{version} was not deployed: it waits for an approval."
                    ))]));
                }
            };
            ask.status(format!("Deploying {version}"));
            tokio::time::sleep(CHECK_TIME).await;
            let note = approval
                .note
                .filter(|n| !n.trim().is_empty())
                .map(|n| format!(" Note: {}", n.trim()))
                .unwrap_or_default();
            Ok(CallToolResult::success(vec![ContentBlock::text(format!(
                "{version} is deployed to production.{note}"
            ))]))
        })
        .await
    }
}
