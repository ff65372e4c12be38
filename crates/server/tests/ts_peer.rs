//! The TypeScript SDK's client (the pinned 1.32.2, `cargo xtask peers`) answering a toolkit
//! server's sampling and roots questions in the 2025 era: `tests/peers/ts_client.cjs` speaks MCP
//! on its stdin/stdout, this test serves the server on the other end of those pipes
//! (`tests/peers/toolkit.rs`). Skipped (with a note) without Node and the SDK, unless
//! `INTERLUDE_REQUIRE_PEERS=1`.
//!
//! 2025 only: SDK 1.32.2 predates 2026-07-28 (its newest protocol version is 2025-11-25; it has
//! no `server/discover` and no `input_required` results), so it cannot speak that era at all.
//! The TypeScript SDK 2 (`@modelcontextprotocol/client`) is tested in both eras in
//! `tests/sdk_peers.rs`.
// Outside `#[test]` functions too, a panic is how this file's code fails a test.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

#[path = "peers/toolkit.rs"]
mod toolkit;

use interlude_test_support::NpmPeers;
use serde_json::Value;
use toolkit::{script, serve_client, text};

/// Runs `ts_client.cjs` answering sampling as `sampling` says (`answer`, `decline`), calling
/// `tools`; `None` when the peer is missing.
async fn run(sampling: &str, tools: &[&str]) -> Option<Value> {
    let peers = NpmPeers::locate(&["@modelcontextprotocol/sdk/package.json"])?;
    let mut command = tokio::process::Command::new(&peers.node);
    command
        .arg(script("ts_client.cjs"))
        .arg(sampling)
        .args(tools)
        .env("NPM_PEERS", &peers.npm);
    Some(serve_client(command, "the TypeScript SDK 1.32.2 client").await)
}

#[tokio::test]
async fn the_typescript_client_answers_sampling_and_roots_in_the_2025_era() {
    let Some(report) = run("answer", &["capital", "places", "era"]).await else {
        return;
    };
    assert_eq!(
        text(&report, "capital"),
        "TS model says: What is the capital of France? [ts-model]"
    );
    assert_eq!(
        text(&report, "places"),
        "file:///ts/root (TS Root), file:///ts/other (-)"
    );
    assert_eq!(text(&report, "era"), "Push");
    // What reached the TypeScript client's sampling handler, as its SDK parsed it.
    let asked = &report["seen"][0];
    assert_eq!(asked["maxTokens"], 100);
    assert_eq!(asked["systemPrompt"], "Answer in one sentence.");
    assert_eq!(asked["messages"][0]["role"], "user");
}

#[tokio::test]
async fn a_sampling_the_typescript_client_rejects_reads_as_declined() {
    let Some(report) = run("decline", &["capital"]).await else {
        return;
    };
    assert_eq!(text(&report, "capital"), "declined");
    assert_eq!(report["seen"].as_array().map(Vec::len), Some(1));
}
