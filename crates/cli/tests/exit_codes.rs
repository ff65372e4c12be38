//! `interlude call`'s exit codes for a script: a tool that answers `isError: true` is a failed
//! call with a code of its own (3), apart from an error of the run (2) and a completed call (0).
//! The server is a small Python script over stdio (on every machine this project supports)
//! whose one tool fails or not as its arguments say.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::{Command, Output};

const SERVER: &str = r#"
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    method, mid = m.get("method"), m.get("id")
    if mid is None:
        continue
    if method == "initialize":
        r = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
             "serverInfo": {"name": "exit-codes", "version": "1"}}
    elif method == "tools/list":
        r = {"tools": [{"name": "check", "inputSchema": {"type": "object",
             "properties": {"fail": {"type": "boolean"}}}}]}
    elif method == "tools/call":
        fail = (m["params"].get("arguments") or {}).get("fail", False)
        r = {"content": [{"type": "text", "text": "the disk is full" if fail else "all good"}],
             "isError": fail}
    else:
        r = {}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": mid, "result": r}) + "\n")
    sys.stdout.flush()
"#;

fn call(arguments: &str) -> Output {
    let server = format!("python3 -c '{}'", SERVER.replace('\'', r"'\''"));
    Command::new(env!("CARGO_BIN_EXE_interlude"))
        .args([
            "call",
            &server,
            "check",
            "--protocol-version",
            "2025-11-25",
            "--args",
            arguments,
        ])
        .output()
        .unwrap()
}

#[test]
fn a_tool_that_answers_it_failed_exits_3_and_prints_its_result() {
    let out = call(r#"{"fail": true}"#);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("the disk is full"),
        "the result is printed"
    );
    assert!(
        stderr.contains("the tool answered that it failed"),
        "{stderr}"
    );

    let out = call(r#"{"fail": false}"#);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
