//! Real SDK clients answering a toolkit server's sampling and roots questions in both eras: the
//! TypeScript SDK 2 (`@modelcontextprotocol/client` 2.4.0, `tests/peers/ts2_client.cjs`) and the
//! Python SDK (`mcp` 2.3.0, `tests/peers/py_client.py`), both pinned and installed by
//! `cargo xtask peers`. Each client speaks MCP on its own stdin/stdout; the test serves the
//! server (`tests/peers/toolkit.rs`) on the other end of those pipes.
//!
//! - 2025-11-25: the client runs the `initialize` handshake, the server pushes
//!   `sampling/createMessage` and `roots/list` while the tool call is in flight, and a sampling
//!   request the client rejects with error -1 reads as declined.
//! - 2026-07-28: the client negotiates through `server/discover`, the server answers the call
//!   with `input_required`, and the SDK fulfils the input requests through the same handlers and
//!   retries on its own.
//!
//! (The TypeScript SDK 1.32.2 predates 2026-07-28: `tests/ts_peer.rs`, 2025 only.)
//!
//! Skipped (with a note) without the peers, unless `INTERLUDE_REQUIRE_PEERS=1`.
// Outside `#[test]` functions too, a panic is how this file's code fails a test.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

#[path = "peers/toolkit.rs"]
mod toolkit;

use interlude_test_support::{NpmPeers, PythonPeers};
use serde_json::Value;
use toolkit::{script, serve_client, text};

const ERA_2025: &str = "2025-11-25";
const ERA_2026: &str = "2026-07-28";

/// Runs `ts2_client.cjs` in `era`, answering sampling as `sampling` says (`answer`, `decline`),
/// calling `tools`; `None` when the peer is missing.
async fn typescript(era: &str, sampling: &str, tools: &[&str]) -> Option<Value> {
    let peers = NpmPeers::locate(&["@modelcontextprotocol/client/package.json"])?;
    let mut command = tokio::process::Command::new(&peers.node);
    command
        .arg(script("ts2_client.cjs"))
        .args([era, sampling])
        .args(tools)
        .env("NPM_PEERS", &peers.npm);
    Some(serve_client(command, &format!("the TypeScript SDK 2.4.0 client ({era})")).await)
}

/// Runs `py_client.py` in `era`, like [`typescript`].
async fn python(era: &str, sampling: &str, tools: &[&str]) -> Option<Value> {
    let peers = PythonPeers::locate(&["mcp"])?;
    let mut command = tokio::process::Command::new(&peers.python);
    command
        .arg(script("py_client.py"))
        .args([era, sampling])
        .args(tools)
        // No bytecode written into the repository's tests folder.
        .env("PYTHONDONTWRITEBYTECODE", "1");
    Some(serve_client(command, &format!("the Python SDK 2.3.0 client ({era})")).await)
}

/// What every SDK's answering run must show in `era`: the reply text and the model name the
/// client's handler gave reached the tool, and so did its roots, in the era the server decided.
fn assert_answered(report: &Value, era: &str, reply: &str, model: &str, roots: &str) {
    assert_eq!(report["protocolVersion"], era, "{report}");
    assert_eq!(
        text(report, "era"),
        if era == ERA_2026 { "Mrtr" } else { "Push" }
    );
    assert_eq!(
        text(report, "capital"),
        format!("{reply} What is the capital of France? [{model}]")
    );
    assert_eq!(text(report, "places"), roots);
    // What reached the client's sampling handler, as its SDK parsed it.
    let asked = &report["seen"][0];
    assert_eq!(asked["maxTokens"], 100, "{asked}");
    assert_eq!(asked["systemPrompt"], "Answer in one sentence.");
    assert_eq!(asked["messages"][0]["role"], "user");
    assert_eq!(
        asked["messages"][0]["content"]["text"],
        "What is the capital of France?"
    );
}

const TOOLS: [&str; 3] = ["era", "capital", "places"];

#[tokio::test]
async fn the_typescript_sdk_2_client_answers_sampling_and_roots_in_the_2025_era() {
    let Some(report) = typescript(ERA_2025, "answer", &TOOLS).await else {
        return;
    };
    assert_answered(
        &report,
        ERA_2025,
        "TS2 model says:",
        "ts2-model",
        "file:///ts2/root (TS2 Root), file:///ts2/other (-)",
    );
}

#[tokio::test]
async fn the_typescript_sdk_2_client_answers_sampling_and_roots_in_the_2026_era() {
    let Some(report) = typescript(ERA_2026, "answer", &TOOLS).await else {
        return;
    };
    assert_answered(
        &report,
        ERA_2026,
        "TS2 model says:",
        "ts2-model",
        "file:///ts2/root (TS2 Root), file:///ts2/other (-)",
    );
}

#[tokio::test]
async fn a_sampling_the_typescript_sdk_2_client_rejects_reads_as_declined() {
    let Some(report) = typescript(ERA_2025, "decline", &["capital"]).await else {
        return;
    };
    assert_eq!(text(&report, "capital"), "declined");
    assert_eq!(report["seen"].as_array().map(Vec::len), Some(1));
}

#[tokio::test]
async fn the_python_sdk_client_answers_sampling_and_roots_in_the_2025_era() {
    let Some(report) = python(ERA_2025, "answer", &TOOLS).await else {
        return;
    };
    assert_answered(
        &report,
        ERA_2025,
        "Python model says:",
        "py-model",
        "file:///py/root (Python Root), file:///py/other (-)",
    );
}

#[tokio::test]
async fn the_python_sdk_client_answers_sampling_and_roots_in_the_2026_era() {
    let Some(report) = python(ERA_2026, "answer", &TOOLS).await else {
        return;
    };
    assert_answered(
        &report,
        ERA_2026,
        "Python model says:",
        "py-model",
        "file:///py/root (Python Root), file:///py/other (-)",
    );
}

#[tokio::test]
async fn a_sampling_the_python_sdk_client_rejects_reads_as_declined() {
    let Some(report) = python(ERA_2025, "decline", &["capital"]).await else {
        return;
    };
    assert_eq!(text(&report, "capital"), "declined");
    assert_eq!(report["seen"].as_array().map(Vec::len), Some(1));
}
