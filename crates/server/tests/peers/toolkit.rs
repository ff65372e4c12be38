//! The toolkit server the real SDK clients talk to (`tests/ts_peer.rs`, `tests/sdk_peers.rs`),
//! and the harness that serves it on a client's stdin/stdout: the client is a child process
//! running a script of `tests/peers/`, which prints one JSON report line on stderr when done.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use interlude_server::{Answer, Ask, AskConfig, AskServer, Sampling, ToolResult, asking};
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ServiceExt, tool, tool_handler, tool_router};
use serde_json::{Value, json};
use tokio::io::AsyncBufReadExt;

#[derive(Clone)]
pub(crate) struct Server {
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
    #[tool(description = "Asks the client's model for the capital of France")]
    async fn capital(&self, ask: Ask) -> ToolResult {
        let question = Sampling::new(100)
            .system("Answer in one sentence.")
            .user("What is the capital of France?");
        let text = match ask.sample(question).await? {
            Answer::Accepted(s) => format!("{} [{}]", s.text().unwrap_or_default(), s.model()),
            Answer::Declined => "declined".into(),
            Answer::Cancelled => "cancelled".into(),
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
    }

    #[tool(description = "Lists the client's roots")]
    async fn places(&self, ask: Ask) -> ToolResult {
        let roots = ask.roots().await?;
        let listed: Vec<String> = roots
            .iter()
            .map(|r| format!("{} ({})", r.uri, r.name.as_deref().unwrap_or("-")))
            .collect();
        Ok(CallToolResult::success(vec![ContentBlock::text(
            listed.join(", "),
        )]))
    }

    #[tool(description = "Says which era the server decided this call is in")]
    async fn era(&self, ask: Ask) -> ToolResult {
        Ok(CallToolResult::success(vec![ContentBlock::text(format!(
            "{:?}",
            ask.era()
        ))]))
    }
}

#[tool_handler]
impl rmcp::ServerHandler for Server {}

/// A script of `tests/peers/`.
pub(crate) fn script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/peers")
        .join(name)
}

/// Runs `command` (a client speaking MCP on its stdin/stdout), serves the toolkit server on its
/// pipes, and returns the client's report once it has exited successfully.
pub(crate) async fn serve_client(mut command: tokio::process::Command, who: &str) -> Value {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|e| panic!("{who} starts: {e}"));
    let to_client = child.stdin.take().unwrap();
    let from_client = child.stdout.take().unwrap();
    let mut report = tokio::io::BufReader::new(child.stderr.take().unwrap()).lines();

    let server = Server {
        ask: AskConfig::new(),
    };
    // Served until the client has reported: then the test closes its end of the pipes, which is
    // how a client on stdio learns that its server is gone (the Python SDK's transport only
    // ends at end of input).
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(async move {
        if let Ok(running) = server.serve((from_client, to_client)).await {
            let token = running.cancellation_token();
            tokio::spawn(async move {
                if stopped.await.is_ok() {
                    token.cancel();
                }
            });
            let _ = running.waiting().await;
        }
    });

    // The client prints one JSON line when done; other stderr lines are its runtime's own, kept
    // for the failure message.
    let mut other = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(60), async {
        while let Some(line) = report.next_line().await.expect("stderr") {
            if line.starts_with('{') {
                return Some(line);
            }
            other.push(line);
        }
        None
    })
    .await;
    let line = match read {
        Ok(Some(line)) => line,
        Ok(None) => panic!(
            "{who} ended without a report; its stderr:\n{}",
            other.join("\n")
        ),
        Err(_) => panic!(
            "{who} did not report within 60 s; its stderr so far:\n{}",
            other.join("\n")
        ),
    };
    let _ = stop.send(());
    let report: Value = serde_json::from_str(&line).expect("a JSON report");
    assert!(report.get("error").is_none(), "{who}: {report}");

    let status = tokio::time::timeout(Duration::from_secs(10), child.wait())
        .await
        .unwrap_or_else(|_| panic!("{who} exits"))
        .expect("status");
    assert!(status.success(), "{who}: {status}");
    report
}

/// The text of a tool's result in a report, which must not be an error.
pub(crate) fn text(report: &Value, tool: &str) -> String {
    let result = &report["results"][tool];
    assert_ne!(result["isError"], json!(true), "{tool}: {result}");
    assert!(result.get("thrown").is_none(), "{tool}: {result}");
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{tool}: no text in {result}"))
        .to_owned()
}
