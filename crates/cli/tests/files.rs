//! The files the CLI writes and reads, against another local user and against a large file
//! (issue 34, round two): `--trace` is created afresh, mode 0600, never through a link, with
//! every secret-ish answer redacted; `replay` refuses a recording over its size limit at once.
//! What it does not test: what a trace holds in order (`peers.rs`), the recording's own file
//! (`crates/headless/tests/recording_files.rs`).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// A stdio server (2025-11-25) whose one tool asks for an access code, a one-time password, a
/// PIN and a city, and says only which city it got.
const SERVER: &str = r#"
import json, sys
def send(m):
    sys.stdout.write(json.dumps(m) + "\n"); sys.stdout.flush()
def answer_of(wanted):
    for line in sys.stdin:
        m = json.loads(line)
        if m.get("id") == wanted and "method" not in m:
            return m.get("result") or {}
    sys.exit(0)
for line in sys.stdin:
    m = json.loads(line)
    method, mid = m.get("method"), m.get("id")
    if mid is None:
        continue
    if method == "initialize":
        r = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
             "serverInfo": {"name": "bank", "version": "1"}}
    elif method == "tools/list":
        r = {"tools": [{"name": "sign_in", "inputSchema": {"type": "object"}}]}
    elif method == "tools/call":
        props = {k: {"type": "string"} for k in ["accessCode", "otp", "pin", "city"]}
        send({"jsonrpc": "2.0", "id": "ask-1", "method": "elicitation/create", "params": {
            "mode": "form", "message": "Sign in",
            "requestedSchema": {"type": "object", "properties": props}}})
        a = answer_of("ask-1")
        city = (a.get("content") or {}).get("city", "nowhere")
        r = {"content": [{"type": "text", "text": "Signed in from " + city}]}
    else:
        send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": "no " + method}})
        continue
    send({"jsonrpc": "2.0", "id": mid, "result": r})
"#;

/// A folder of this test's own under the target directory, mode 0700.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    }
    dir
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn call_with_trace(dir: &Path, trace: &Path) -> Output {
    let script = dir.join("bank.py");
    std::fs::write(&script, SERVER).unwrap();
    let answers = dir.join("answers.json");
    std::fs::write(
        &answers,
        r#"{"accessCode": "AC-SECRET-1", "otp": "OTP-SECRET-2", "pin": "PIN-SECRET-3", "city": "Porto"}"#,
    )
    .unwrap();
    Command::new(env!("CARGO_BIN_EXE_interlude"))
        .args(["call", &format!("python3 {}", script.display()), "sign_in"])
        .arg("--answers")
        .arg(&answers)
        .arg("--trace")
        .arg(trace)
        .output()
        .unwrap()
}

#[cfg(unix)]
#[test]
fn a_trace_is_0600_and_keeps_no_access_code_otp_or_pin() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch("files-trace");
    let trace = dir.join("trace.jsonl");
    // An old trace anyone could read is replaced, not reused.
    std::fs::write(&trace, "old\n").unwrap();
    std::fs::set_permissions(&trace, std::fs::Permissions::from_mode(0o644)).unwrap();
    let out = call_with_trace(&dir, &trace);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("Signed in from Porto"),
        "{}",
        text(&out)
    );
    let mode = std::fs::metadata(&trace).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "{mode:o}");
    let traced = std::fs::read_to_string(&trace).unwrap();
    assert!(!traced.starts_with("old"), "{traced}");
    assert!(traced.contains("Porto"), "the answer is traced: {traced}");
    for secret in ["AC-SECRET-1", "OTP-SECRET-2", "PIN-SECRET-3"] {
        assert!(!traced.contains(secret), "{secret} in the trace: {traced}");
    }
    let answer = traced
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|l| l["message"]["id"] == "ask-1" && l["dir"] == "send")
        .expect("the answer is in the trace");
    let content = &answer["message"]["result"]["content"];
    for name in ["accessCode", "otp", "pin"] {
        assert_eq!(content[name], "[redacted]", "{name}: {answer}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[cfg(unix)]
#[test]
fn a_trace_path_that_is_a_link_is_refused_and_its_target_untouched() {
    let dir = scratch("files-trace-link");
    let victim = dir.join("victim.txt");
    std::fs::write(&victim, "precious").unwrap();
    let trace = dir.join("trace.jsonl");
    std::os::unix::fs::symlink(&victim, &trace).unwrap();
    let out = call_with_trace(&dir, &trace);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("symbolic link"), "{}", text(&out));
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn replay_refuses_an_oversized_recording_at_once() {
    let dir = scratch("files-replay-huge");
    let file = dir.join("huge.json");
    // 64 MiB and one byte, sparse: nothing is written, and a replay must not read it.
    std::fs::File::create(&file)
        .unwrap()
        .set_len(64 * 1024 * 1024 + 1)
        .unwrap();
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_interlude"))
        .args(["replay", file.to_str().unwrap(), "python3 -c pass"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("over the 64 MiB a recording may have"),
        "{}",
        text(&out)
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    std::fs::remove_dir_all(dir).unwrap();
}
