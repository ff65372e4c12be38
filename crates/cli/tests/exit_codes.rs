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

/// A 2025-11-25 server whose one tool runs only as a task that never ends by itself, and that
/// says so (`capabilities.tasks`, `execution.taskSupport`); `tasks/cancel` cancels it.
const TASK_SERVER: &str = r#"
import json, sys
status = "working"
for line in sys.stdin:
    m = json.loads(line)
    method, mid = m.get("method"), m.get("id")
    if mid is None:
        continue
    task = {"taskId": "t-1", "status": status, "ttl": None, "pollInterval": 100,
            "createdAt": "2026-11-29T08:00:00Z", "lastUpdatedAt": "2026-11-29T08:00:00Z"}
    if method == "initialize":
        r = {"protocolVersion": "2025-11-25",
             "capabilities": {"tools": {}, "tasks": {"cancel": {}, "requests": {"tools": {"call": {}}}}},
             "serverInfo": {"name": "endless-task", "version": "1"}}
    elif method == "tools/list":
        r = {"tools": [{"name": "endless", "inputSchema": {"type": "object"},
             "execution": {"taskSupport": "required"}}]}
    elif method == "tools/call":
        r = {"task": task}
    elif method == "tasks/get":
        r = task
    elif method == "tasks/cancel":
        status = "cancelled"
        task["status"] = status
        r = task
    else:
        r = {}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": mid, "result": r}) + "\n")
    sys.stdout.flush()
"#;

/// Ctrl-C cancels the call as the page's Cancel does: a task's server is sent `tasks/cancel`
/// before the connection closes, and the run exits 130. (The signal is sent once the trace
/// shows the task being polled: a state, not a time.)
#[test]
fn ctrl_c_cancels_a_running_task_and_exits_130() {
    let trace = std::env::temp_dir().join(format!("interlude-ctrl-c-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&trace);
    let server = format!("python3 -c '{}'", TASK_SERVER.replace('\'', r"'\''"));
    let child = Command::new(env!("CARGO_BIN_EXE_interlude"))
        .args([
            "call",
            &server,
            "endless",
            "--protocol-version",
            "2025-11-25",
            "--trace",
        ])
        .arg(&trace)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let polled = || {
        std::fs::read_to_string(&trace)
            .unwrap_or_default()
            .contains("\"tasks/get\"")
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !polled() {
        assert!(
            std::time::Instant::now() < deadline,
            "the task was never polled"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted"), "{stderr}");
    let traced = std::fs::read_to_string(&trace).unwrap();
    let _ = std::fs::remove_file(&trace);
    let task_call = traced
        .lines()
        .any(|l| l.contains("\"tools/call\"") && l.contains("\"task\":{}"));
    assert!(task_call, "the tool was called as a task: {traced}");
    let cancelled = traced
        .lines()
        .any(|l| l.contains("\"dir\":\"recv\"") && l.contains("\"status\":\"cancelled\""));
    assert!(cancelled, "the server was told and said so: {traced}");
}
