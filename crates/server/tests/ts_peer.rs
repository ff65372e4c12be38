//! The TypeScript SDK's client (the pinned 1.32.2, `cargo xtask peers`) answering a toolkit
//! server's sampling and roots questions in the 2025 era: `tests/peers/ts_client.cjs` speaks MCP
//! on its stdin/stdout, this test serves the server on the other end of those pipes. Skipped
//! (with a note) without Node and the SDK, unless `INTERLUDE_REQUIRE_PEERS=1`.
// Outside `#[test]` functions too, a panic is how this file's code fails a test.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::process::Stdio;
use std::time::Duration;

use interlude_server::{Answer, Ask, AskConfig, AskServer, Sampling, ToolResult, asking};
use interlude_test_support::NpmPeers;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ServiceExt, tool, tool_handler, tool_router};
use serde_json::{Value, json};
use tokio::io::AsyncBufReadExt;

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
}

#[tool_handler]
impl rmcp::ServerHandler for Server {}

#[tokio::test]
async fn the_typescript_client_answers_sampling_and_roots_in_the_2025_era() {
    let Some(peers) = NpmPeers::locate(&["@modelcontextprotocol/sdk/package.json"]) else {
        return;
    };
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers/ts_client.cjs");
    let mut child = tokio::process::Command::new(&peers.node)
        .arg(&script)
        .args(["capital", "places"])
        .env("NPM_PEERS", &peers.npm)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("node starts");
    let to_client = child.stdin.take().unwrap();
    let from_client = child.stdout.take().unwrap();
    let mut report = tokio::io::BufReader::new(child.stderr.take().unwrap()).lines();

    let server = Server {
        ask: AskConfig::new(),
    };
    tokio::spawn(async move {
        if let Ok(running) = server.serve((from_client, to_client)).await {
            let _ = running.waiting().await;
        }
    });

    // The client prints one JSON line when done (other stderr lines are Node's own).
    let line = tokio::time::timeout(Duration::from_secs(30), async {
        while let Some(line) = report.next_line().await.expect("stderr") {
            if line.starts_with('{') {
                return line;
            }
        }
        panic!("the TypeScript client ended without a report");
    })
    .await
    .expect("the TypeScript client reports within 30 s");
    let report: Value = serde_json::from_str(&line).expect("a JSON report");
    assert!(report.get("error").is_none(), "{report}");

    let text = |tool: &str| {
        let result = &report["results"][tool];
        assert_ne!(result["isError"], json!(true), "{tool}: {result}");
        result["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    };
    assert_eq!(
        text("capital"),
        "TS model says: What is the capital of France? [ts-model]"
    );
    assert_eq!(
        text("places"),
        "file:///ts/root (TS Root), file:///ts/other (-)"
    );
    // What reached the TypeScript client's sampling handler, as its SDK parsed it.
    let asked = &report["seen"][0];
    assert_eq!(asked["maxTokens"], 100);
    assert_eq!(asked["systemPrompt"], "Answer in one sentence.");
    assert_eq!(asked["messages"][0]["role"], "user");

    let status = tokio::time::timeout(Duration::from_secs(10), child.wait())
        .await
        .expect("the client exits")
        .expect("status");
    assert!(status.success(), "{status}");
}
