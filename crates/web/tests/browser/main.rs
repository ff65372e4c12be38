//! Browser end-to-end tests of the web surface: the real page in headless Chromium (driven over
//! WebDriver by `interlude-test-support`), a real `WebApp` on 127.0.0.1, and real MCP servers:
//! the demo served in-process over streamable HTTP and connected twice — `demo` (default
//! negotiation: 2026-07-28, multi round-trip) and `demo-2025` (pinned 2025-11-25, push) —
//! servers of these tests' own (hostile ones among them), and the published npm peers
//! (`@modelcontextprotocol/server-everything` and the example apps) over stdio.
//!
//! Everything a person does goes through the page: clicks, typed keys, Enter and Escape. The
//! tests are mandatory in `cargo xtask test`: a missing Chromium fails them (with the command
//! that installs it); the npm peers may be skipped only when `INTERLUDE_REQUIRE_PEERS` is not
//! `1`.
//!
//! One file per capability, over one harness (`harness.rs`: the page, its servers, and what a
//! person does there). Each test has its own ChromeDriver and Chromium; waits poll a state with
//! a deadline (no fixed sleeps). Screenshots land in `target/artifacts/browser-*.png`.
// A skipped test says why on stderr; outside `#[test]` functions too, a panic is how these
// files' code fails a test.
#![allow(
    clippy::print_stderr,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod harness;

/// Servers of the tests' own, served in this process.
mod in_process;

/// Forms: every widget, decline and cancel, a reload, the engine's refusal, the queue, two
/// windows, server-everything's form.
mod forms;

/// The page itself: hostile text, the rough edges a person hit, a narrow window.
mod page;

/// Everyday controls: run again, clear finished, export, disconnect and reconnect.
mod controls;

/// A call that becomes a task (the Tasks extension and the 2025-11-25 experimental tasks): its
/// status line, its question, Cancel, a reload.
mod tasks;

/// The protocol pane's Network view: HTTP exchanges, their headers redacted, linked both ways
/// with their messages.
mod network;

/// Resources and prompts: browse, read (text, blob), templates, get a prompt.
mod catalog;

/// Sampling answered by a person: the conversation, the reply written as the model's, a
/// decline.
mod sampling;

/// URL mode: the consent card, the server's own page in a new tab, `-32042`, OAuth.
mod links;

/// Tool calls: cancelling, progress and server logs, arguments checked before the call.
mod calls;

/// MCP Apps beside their call: a published app, a hostile one, the demo's weather view, an
/// Apps SDK widget.
mod apps;

/// The published example apps, the three.js scene's pixels.
mod example_apps;

/// MCP-UI: UI resources embedded in tool results (`@mcp-ui/server`), its message protocol,
/// external pages behind the person's choice, Remote DOM not rendered.
mod mcp_ui;

/// server-debug: every view callback and every answer a view can get.
mod server_debug;

/// Questions asked in a server's view, and their fall-back to the plain form.
mod app_questions;

/// The protocol pane: every message, and a card's or a call's own.
mod log;

/// Servers connecting: the negotiation shown, a failed server retried or removed.
mod servers;

/// The User Interaction draft (seed 000) through the page.
mod draft;

/// What a view's declaration can reach on this machine: loopback dropped, a development
/// origin the person allowed kept.
mod view_reach;
