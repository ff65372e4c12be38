//! `interlude call` against servers that misbehave: each case names what it does and the outcome
//! expected of the host — a clear error and an exit code, within a bound, never a hang or a
//! panic.
//!
//! The servers here are small scripts (Python, on every machine this project supports) that
//! speak just enough MCP over stdio to misbehave in one precise way: no real server does these
//! things on purpose, which is the point.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// A stdio server that answers the 2025-11-25 handshake and `tools/list` (one tool, `hang`),
/// and never answers `tools/call`. It sends `before` lines (JSON-RPC messages of its own) before
/// anything else, and `after` lines once the handshake is done (with its answer to
/// `tools/list`).
fn scripted_server(before: &[&str], after: &[&str]) -> String {
    let before = serde_json::to_string(before).unwrap();
    let after = serde_json::to_string(after).unwrap();
    let script = format!(
        r#"
import json, sys
for line in {before}:
    sys.stdout.write(line + "\n"); sys.stdout.flush()
for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        continue
    method, mid = m.get("method"), m.get("id")
    if mid is None:
        continue
    if method == "initialize":
        r = {{"protocolVersion": "2025-11-25", "capabilities": {{"tools": {{}}}},
             "serverInfo": {{"name": "hostile", "version": "1"}}}}
    elif method == "tools/list":
        for extra in {after}:
            sys.stdout.write(extra + "\n"); sys.stdout.flush()
        r = {{"tools": [{{"name": "hang", "inputSchema": {{"type": "object"}}}}]}}
    elif method == "tools/call":
        continue
    else:
        sys.stdout.write(json.dumps({{"jsonrpc": "2.0", "id": mid,
            "error": {{"code": -32601, "message": "no"}}}}) + "\n"); sys.stdout.flush()
        continue
    sys.stdout.write(json.dumps({{"jsonrpc": "2.0", "id": mid, "result": r}}) + "\n")
    sys.stdout.flush()
"#
    );
    format!("python3 -c {}", shell_quote(&script))
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// Runs `interlude call SERVER TOOL ARGS…` and how long it took.
fn call(server: &str, tool: &str, args: &[&str]) -> (Output, Duration) {
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_interlude"))
        .args(["call", server, tool, "--protocol-version", "2025-11-25"])
        .args(args)
        .output()
        .unwrap();
    (out, started.elapsed())
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A server that reads everything and never answers, not even the handshake: the connection
/// fails with that said, within the connect timeout.
#[test]
fn a_server_that_never_answers_the_handshake_fails_within_the_connect_timeout() {
    let (out, took) = call(
        "sh -c 'cat >/dev/null'",
        "anything",
        &["--connect-timeout", "1"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("did not answer the handshake within 1 s"),
        "{}",
        stderr(&out)
    );
    assert!(took < Duration::from_secs(20), "took {took:?}");
}

/// A server that takes the call and never answers it: the call ends at its timeout, the
/// server is told, and the exit code says it failed.
#[test]
fn a_call_the_server_never_answers_ends_at_the_timeout() {
    let (out, took) = call(&scripted_server(&[], &[]), "hang", &["--timeout", "1"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("timed out after 1s of active time"),
        "{}",
        stderr(&out)
    );
    assert!(took < Duration::from_secs(20), "took {took:?}");
}

/// Without `--timeout`, a call still has a limit (300 s of active time): `--help` says so, and
/// `--timeout 0` is the way to wait as long as it takes.
#[test]
fn a_call_has_a_timeout_by_default() {
    let out = Command::new(env!("CARGO_BIN_EXE_interlude"))
        .args(["call", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(help.contains("[default: 300]"), "{help}");
    assert!(help.contains("0 waits as long as the call takes"), "{help}");
}

/// Answers to requests the host never sent, and a notification nobody knows, once the server
/// is connected: ignored; the call goes on as usual (here: to its timeout).
#[test]
fn answers_to_unknown_ids_are_ignored() {
    let noise = [
        r#"{"jsonrpc": "2.0", "id": 999, "result": {"surprise": true}}"#,
        r#"{"jsonrpc": "2.0", "id": "x", "error": {"code": -1, "message": "for nobody"}}"#,
        r#"{"jsonrpc": "2.0", "method": "notifications/made-up", "params": {}}"#,
    ];
    let (out, took) = call(&scripted_server(&[], &noise), "hang", &["--timeout", "1"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let said = stderr(&out);
    assert!(!said.contains("panicked"), "{said}");
    assert!(
        said.contains("timed out after 1s of active time"),
        "the call itself timed out: {said}"
    );
    assert!(took < Duration::from_secs(20), "took {took:?}");
}

/// An answer under another id before the handshake's own: the handshake fails, naming both
/// ids (a server that answers so is broken from its first message).
#[test]
fn an_answer_before_the_handshakes_own_fails_the_connection_clearly() {
    let early = [r#"{"jsonrpc": "2.0", "id": 999, "result": {}}"#];
    let (out, took) = call(&scripted_server(&early, &[]), "hang", &["--timeout", "1"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let said = stderr(&out);
    assert!(said.contains("under another id (999)"), "{said}");
    assert!(took < Duration::from_secs(20), "took {took:?}");
}

/// A server that says why it stops on stderr, then exits: the failure quotes what it said (its
/// exit status too, when the host saw the exit before it tried to write: a race it may lose).
#[test]
fn a_server_that_dies_at_start_is_quoted_from_its_stderr() {
    let (out, took) = call(
        "sh -c 'echo cannot open database: permission denied >&2; exit 3'",
        "anything",
        &[],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let said = stderr(&out);
    assert!(
        said.contains("cannot open database: permission denied"),
        "the server's own words are in the failure: {said}"
    );
    assert!(took < Duration::from_secs(20), "took {took:?}");
}

/// Runs `interlude call URL misbehave ARGS…` against a hostile HTTP server started for it, on a
/// runtime of its own (the CLI runs as a child process meanwhile).
fn call_hostile_http(
    misbehaviour: interlude_test_support::hostile_http::Misbehaviour,
    args: &[&str],
) -> (Output, Duration, usize) {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let server = runtime
        .block_on(interlude_test_support::hostile_http::HostileHttp::start(
            misbehaviour,
        ))
        .unwrap();
    let (out, took) = call(server.url(), "misbehave", args);
    let calls = server.calls();
    drop(server);
    (out, took, calls)
}

/// An HTTP server that answers a call on an event stream whose one event never ends: the host
/// stops reading at 16 MiB and the call fails saying so, not "closed" — and not after reading
/// without end.
#[test]
fn an_oversized_event_is_cut_off_and_named() {
    use interlude_test_support::hostile_http::Misbehaviour;
    let (out, took, calls) = call_hostile_http(Misbehaviour::OversizedEvent, &["--timeout", "60"]);
    assert_eq!(calls, 1, "the call reached the server");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out)
            .contains("the server sent an event larger than 16 MiB, the most the host reads"),
        "{}",
        stderr(&out)
    );
    assert!(took < Duration::from_secs(30), "took {took:?}");
}

/// An HTTP server that answers a call with a JSON body that never ends: the host stops reading
/// at 16 MiB and the call fails saying the answer was too large.
#[test]
fn an_oversized_answer_is_cut_off_and_named() {
    use interlude_test_support::hostile_http::Misbehaviour;
    let (out, took, calls) = call_hostile_http(Misbehaviour::OversizedBody, &["--timeout", "60"]);
    assert_eq!(calls, 1, "the call reached the server");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out)
            .contains("the server's answer was larger than 16 MiB, the most the host reads"),
        "{}",
        stderr(&out)
    );
    assert!(took < Duration::from_secs(30), "took {took:?}");
}

/// An HTTP server that drips its answer a byte at a time (it would take about a minute): the
/// call ends at its timeout like any call that does not come back, and the host hangs up.
#[test]
fn a_slow_drip_answer_ends_at_the_timeout() {
    use interlude_test_support::hostile_http::Misbehaviour;
    let (out, took, calls) = call_hostile_http(Misbehaviour::SlowDrip, &["--timeout", "2"]);
    assert_eq!(calls, 1, "the call reached the server");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("timed out after 2s of active time"),
        "{}",
        stderr(&out)
    );
    assert!(took < Duration::from_secs(30), "took {took:?}");
}
