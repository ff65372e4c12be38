//! What a new user met in their first hour with the `interlude` command (issue 36): `demo
//! --root`, a closed pipe, the server's name, listing tools and misspelt ones, the loopback
//! refusal naming `--dev-origin`, `--header`, and plurals (the last in `record_replay.rs`).
//!
//! The servers are real processes: the demo (the binary's own `__demo-server`) over stdio, and
//! small Python scripts for a loopback link and for an HTTP server that echoes a header.
//! `INTERLUDE_TEST_BIN` runs the tests against another build of the binary (an older one, to
//! see them fail).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};

fn bin() -> String {
    std::env::var("INTERLUDE_TEST_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_interlude").into())
}

/// The demo server, as a command line for `call`.
fn demo() -> String {
    format!("{} __demo-server", bin())
}

fn interlude(args: &[&str]) -> Output {
    Command::new(bin())
        .args(args)
        .env("INTERLUDE_LOG", "off")
        .output()
        .unwrap()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "interlude-first-hour-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The URL server as a command line: a script file, so that it is named after the file.
fn url_server() -> String {
    let file = scratch("url-server").join("url_server.py");
    std::fs::write(&file, URL_SERVER).unwrap();
    format!("python3 {}", file.display())
}

/// Kills the child when dropped.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn demo_takes_root_as_connect_does() {
    let missing = scratch("demo-root").join("not-there");
    let out = interlude(&[
        "demo",
        "--no-open",
        "--port",
        "0",
        "--root",
        missing.to_str().unwrap(),
    ]);
    let said = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(!said.contains("unexpected argument"), "{said}");
    assert!(said.starts_with("interlude: --root "), "{said}");

    let dir = scratch("demo-root-ok");
    let mut child = Command::new(bin())
        .args([
            "demo",
            "--no-open",
            "--port",
            "0",
            "--root",
            dir.to_str().unwrap(),
        ])
        .env("INTERLUDE_LOG", "off")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = child.stdout.take().unwrap();
    let running = Running(child);
    let mut line = String::new();
    BufReader::new(out).read_line(&mut line).unwrap();
    assert!(
        line.starts_with("Interlude is running at http://127.0.0.1:"),
        "{line:?}"
    );
    drop(running);
}

#[test]
fn a_closed_stdout_ends_call_quietly() {
    let dir = scratch("pipe");
    let mut child = Command::new(bin())
        .args([
            "call",
            &demo(),
            "project_folders",
            "--root",
            dir.to_str().unwrap(),
        ])
        .env("INTERLUDE_LOG", "off")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The reader leaves before anything is written (as `| head -0` would).
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let said = stderr(&out);
    assert!(!said.contains("panicked"), "{said}");
    assert!(!said.contains("Broken pipe"), "{said}");
    assert!(said.is_empty(), "nothing said about it: {said}");
    assert_eq!(
        out.status.code(),
        Some(141),
        "as a shell reports SIGPIPE: {said}"
    );
}

#[test]
fn the_server_is_named_in_messages_and_in_the_trace() {
    let dir = scratch("names");
    let trace = dir.join("trace.jsonl");
    let out = interlude(&[
        "call",
        &demo(),
        "project_folders",
        "--trace",
        trace.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = std::fs::read_to_string(&trace).unwrap();
    let mut lines = 0;
    for line in text.lines() {
        let entry: serde_json::Value = serde_json::from_str(line).unwrap();
        // `interlude __demo-server`: the program's name, as `connect` names it.
        assert_eq!(entry["server"], "interlude", "{line}");
        lines += 1;
    }
    assert!(lines > 0, "the trace holds the exchange");

    let out = interlude(&[
        "call",
        &url_server(),
        "nothing_here",
        "--protocol-version",
        "2025-11-25",
    ]);
    let said = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(!said.contains("`server`"), "{said}");
    assert!(said.contains("`url-server` (url_server)"), "{said}");
}

#[test]
fn tools_lists_a_servers_tools_and_call_suggests_the_nearest() {
    for args in [vec!["tools", &demo() as &str], vec!["call", &demo()]] {
        let out = interlude(&args);
        let listed = stdout(&out);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        let contact = listed
            .lines()
            .find(|l| l.starts_with("contact_info "))
            .unwrap_or_else(|| panic!("{args:?}: {listed}"));
        assert!(contact.contains("Ask for contact information"), "{contact}");
        // Tools only views may call are left out, as on the page, and the count is said.
        assert!(!listed.contains("[app only]"), "{listed}");
        assert!(
            stderr(&out).contains("left out (--all lists them)"),
            "{}",
            stderr(&out)
        );
    }
    // Arguments without a tool are a mistake, not a listing.
    let out = interlude(&["call", &demo(), "--args", "{}"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("no TOOL to call"), "{}", stderr(&out));

    let all = interlude(&["tools", &demo(), "--all"]);
    assert!(stdout(&all).contains("[app only]"), "{}", stdout(&all));

    let out = interlude(&["call", &demo(), "contct_info"]);
    let said = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(
        said.contains("no tool `contct_info`; did you mean `contact_info`?"),
        "{said}"
    );
    assert!(stdout(&out).is_empty(), "the call was not sent");
}

/// A 2025-11-25 server over stdio whose tool asks, in URL mode, to open a link on this machine
/// in plain http; the tool's result is the client's answer to it.
const URL_SERVER: &str = r#"
import json, sys
def send(o):
    sys.stdout.write(json.dumps(o) + "\n"); sys.stdout.flush()
pending = None
for line in sys.stdin:
    m = json.loads(line)
    method, mid = m.get("method"), m.get("id")
    if method is None and mid == "e1":
        answer = m.get("result") or m.get("error")
        send({"jsonrpc": "2.0", "id": pending,
              "result": {"content": [{"type": "text", "text": json.dumps(answer)}]}})
        continue
    if mid is None:
        continue
    if method == "initialize":
        r = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
             "serverInfo": {"name": "url-server", "version": "1"}}
    elif method == "tools/list":
        r = {"tools": [{"name": "sign_in", "inputSchema": {"type": "object"}}]}
    elif method == "tools/call":
        pending = mid
        send({"jsonrpc": "2.0", "id": "e1", "method": "elicitation/create",
              "params": {"mode": "url", "message": "Sign in", "elicitationId": "abc",
                         "url": "http://127.0.0.1:9/flows/x"}})
        continue
    else:
        r = {}
    send({"jsonrpc": "2.0", "id": mid, "result": r})
"#;

#[test]
fn a_link_refused_for_being_local_names_dev_origin() {
    let server = url_server();
    // `{}`: consent to open the link.
    let answers = scratch("consent").join("answers.json");
    std::fs::write(&answers, "{}").unwrap();
    let base = [
        "call",
        &server,
        "sign_in",
        "--answers",
        answers.to_str().unwrap(),
        "--protocol-version",
        "2025-11-25",
    ];
    let out = interlude(&base);
    let said = stderr(&out);
    assert!(
        said.contains("allow it with --dev-origin http://127.0.0.1:9"),
        "{said}"
    );

    // Defaults fill forms, never consent to a link: said, with what does.
    let out = interlude(&[
        "call",
        &server,
        "sign_in",
        "--auto-defaults",
        "--protocol-version",
        "2025-11-25",
        "--dev-origin",
        "http://127.0.0.1:9",
    ]);
    let said = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains("--auto-defaults never consents to a link"),
        "{said}"
    );

    let mut allowed = base.to_vec();
    allowed.extend(["--dev-origin", "http://127.0.0.1:9"]);
    let out = interlude(&allowed);
    let said = stderr(&out);
    assert!(!said.contains("allow it with --dev-origin"), "{said}");
    assert!(said.contains("open this link"), "{said}");
}

/// A 2025-11-25 server over streamable HTTP (JSON responses) whose tool answers with the
/// `Authorization` header it was sent. Prints its port.
const HTTP_SERVER: &str = r#"
import json
from http.server import BaseHTTPRequestHandler, HTTPServer
class H(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass
    def empty(self, status):
        self.send_response(status); self.send_header("Content-Length", "0"); self.end_headers()
    def do_GET(self):
        self.empty(405)
    def do_DELETE(self):
        self.empty(200)
    def do_POST(self):
        m = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
        mid, method = m.get("id"), m.get("method")
        if mid is None or method is None:
            return self.empty(202)
        if method == "initialize":
            r = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                 "serverInfo": {"name": "header-echo", "version": "1"}}
        elif method == "tools/list":
            r = {"tools": [{"name": "whoami", "inputSchema": {"type": "object"}}]}
        elif method == "tools/call":
            r = {"content": [{"type": "text",
                              "text": "authorization=" + str(self.headers.get("Authorization"))}]}
        else:
            r = {}
        body = json.dumps({"jsonrpc": "2.0", "id": mid, "result": r}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
s = HTTPServer(("127.0.0.1", 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()
"#;

#[test]
fn header_is_sent_to_an_http_server() {
    let mut child = Command::new("python3")
        .args(["-c", HTTP_SERVER])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let out = child.stdout.take().unwrap();
    let _server = Running(child);
    let mut port = String::new();
    BufReader::new(out).read_line(&mut port).unwrap();
    let url = format!("http://127.0.0.1:{}/mcp", port.trim());
    let out = interlude(&[
        "call",
        &url,
        "whoami",
        "--protocol-version",
        "2025-11-25",
        "--header",
        "Authorization: Bearer first-hour",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("authorization=Bearer first-hour"),
        "{}",
        stdout(&out)
    );

    // A command has no headers to send: said, not ignored.
    let out = interlude(&["call", &demo(), "project_folders", "--header", "X-A: b"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("--header is for http(s) servers"),
        "{}",
        stderr(&out)
    );
}
