//! `interlude record` and `interlude replay`: a session used through the page (its HTTP API, as
//! the page's script calls it) is recorded; replayed on the same server it is the same (exit
//! 0); replayed on a server that asks a different question, every difference is named (exit 1).
//!
//! The servers are real processes over stdio: the demo (the toolkit's server, recorded on
//! 2026-07-28 and replayed on 2025-11-25 too), and a small Python server that pushes
//! `elicitation/create` and asks for a phone number as well when started with `phone`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use interlude_test_support::http1::exchange;
use serde_json::{Value, json};

const SERVER: &str = r#"
import json, sys
phone = sys.argv[1:] == ["phone"]
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
             "serverInfo": {"name": "greeter", "version": "1"}}
    elif method == "tools/list":
        r = {"tools": [{"name": "greet", "inputSchema": {"type": "object"}}]}
    elif method == "tools/call":
        props = {"name": {"type": "string", "title": "Your name"}}
        if phone:
            props["phone"] = {"type": "string", "title": "Your phone number"}
        send({"jsonrpc": "2.0", "id": "ask-1", "method": "elicitation/create", "params": {
            "mode": "form",
            "message": "Who are you, and how do we call you?" if phone else "Who are you?",
            "requestedSchema": {"type": "object", "properties": props, "required": ["name"]}}})
        a = answer_of("ask-1")
        name = (a.get("content") or {}).get("name", "nobody")
        r = {"content": [{"type": "text", "text": "Hello, " + name + "!"}]}
    else:
        send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": "no " + method}})
        continue
    send({"jsonrpc": "2.0", "id": mid, "result": r})
"#;

/// A folder of this test's own under the target directory.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn greeter(dir: &Path) -> String {
    let script = dir.join("greeter.py");
    std::fs::write(&script, SERVER).unwrap();
    format!("python3 {}", script.display())
}

fn demo() -> String {
    format!("{} __demo-server", env!("CARGO_BIN_EXE_interlude"))
}

/// `interlude record FILE SERVER` on a free port, with its page's address and token.
struct Recording {
    child: Child,
    origin: String,
    token: String,
}

impl Recording {
    fn start(file: &Path, server: &str) -> Recording {
        let mut child = Command::new(env!("CARGO_BIN_EXE_interlude"))
            .args([
                "record",
                file.to_str().unwrap(),
                "--no-open",
                "--port",
                "0",
                server,
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let url = lines
            .next()
            .expect("record prints where its page is")
            .unwrap();
        let url = url.rsplit(' ').next().unwrap().to_owned();
        // What it prints after: read to the end, so that it never writes into a closed pipe.
        std::thread::spawn(move || lines.for_each(drop));
        let (origin, token) = url.split_once("/?token=").unwrap();
        Recording {
            child,
            origin: origin.to_owned(),
            token: token.to_owned(),
        }
    }

    fn api(&self, method: &str, path: &str, body: &Value) -> Value {
        let headers = [
            ("x-interlude-token", self.token.as_str()),
            ("content-type", "application/json"),
            ("origin", self.origin.as_str()),
        ];
        let body = if method == "GET" {
            String::new()
        } else {
            body.to_string()
        };
        let r = exchange(method, &format!("{}{path}", self.origin), &headers, &body)
            .unwrap_or_else(|e| panic!("{method} {path}: {e}"));
        assert!(r.status < 300, "{method} {path}: {} {}", r.status, r.body);
        serde_json::from_str(&r.body).unwrap_or(Value::Null)
    }

    /// Waits until `pick` finds something in the page's state (at most a minute).
    fn until<T>(&self, what: &str, pick: impl Fn(&Value) -> Option<T>) -> T {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Some(found) = pick(&self.api("GET", "/api/state", &Value::Null)) {
                return found;
            }
            assert!(Instant::now() < deadline, "never: {what}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Calls `tool` and gives its one request `answer`; returns when the call has ended.
    fn call(&self, server: &str, tool: &str, answer: Value) {
        let started = self.api(
            "POST",
            "/api/call",
            &json!({"server": server, "tool": tool, "arguments": {}}),
        );
        let call = started["callId"].as_u64().unwrap();
        let request = self.until("the call's request is shown", |s| {
            s["requests"].as_array()?.iter().find_map(|r| {
                (r["status"] == "active" && r["call"] == call).then(|| r["id"].as_u64())?
            })
        });
        let mut body = answer;
        body["id"] = json!(request);
        self.api("POST", "/api/answer", &body);
        self.until("the call ended", |s| {
            s["calls"]
                .as_array()?
                .iter()
                .find_map(|c| (c["id"] == call && c["status"] != "running").then_some(()))
        });
    }

    /// Stops it as a person does (Ctrl-C) and returns what it said on stderr.
    fn stop(self) -> String {
        let stopped = Command::new("kill")
            .args(["-INT", &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(stopped.success());
        let out = self.child.wait_with_output().unwrap();
        assert!(out.status.success(), "record exits 0 after Ctrl-C");
        String::from_utf8_lossy(&out.stderr).into_owned()
    }
}

fn replay(file: &Path, server: &str, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_interlude"))
        .args(["replay", file.to_str().unwrap(), server])
        .args(extra)
        .output()
        .unwrap()
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn a_replay_on_the_same_server_is_the_same_and_a_different_question_is_named() {
    let dir = scratch("record-replay-greeter");
    let file = dir.join("session.json");
    let server = greeter(&dir);
    let recording = Recording::start(&file, &server);
    let name = recording.until("the server is ready", |s| {
        s["servers"].as_array()?.iter().find_map(|srv| {
            (srv["status"] == "ready").then(|| srv["name"].as_str().map(str::to_owned))?
        })
    });
    recording.call(
        &name,
        "greet",
        json!({"action": "accept", "content": {"name": "Ada"}}),
    );
    let said = recording.stop();
    assert!(said.contains("1 call recorded in"), "{said}");

    let recorded: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let call = &recorded["calls"][0];
    assert_eq!(call["tool"], "greet");
    assert_eq!(call["requests"][0]["asked"]["message"], "Who are you?");
    assert_eq!(
        call["requests"][0]["answer"],
        json!({"action": "accept", "content": {"name": "Ada"}})
    );
    assert_eq!(
        call["outcome"]["result"]["content"][0]["text"],
        "Hello, Ada!"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).unwrap().permissions().mode();
        assert_eq!(
            mode & 0o077,
            0,
            "only its owner reads a recording: {mode:o}"
        );
    }

    let same = replay(&file, &server, &[]);
    assert_eq!(same.status.code(), Some(0), "{}", text(&same));
    assert!(
        text(&same).contains("call 1 of 1: greet — the same"),
        "{}",
        text(&same)
    );

    let changed = replay(&file, &format!("{server} phone"), &[]);
    let said = text(&changed);
    assert_eq!(changed.status.code(), Some(1), "{said}");
    assert!(
        said.contains(r#"request 1: its message was "Who are you?", now "Who are you, and how do we call you?""#),
        "{said}"
    );
    assert!(
        said.contains("request 1: its schema differs at /properties/phone: was absent"),
        "{said}"
    );
    assert!(said.contains("0 the same, 1 different"), "{said}");
    // Plurals as a person writes them: "1 call", "2 differences", never "call(s)".
    assert!(said.contains("1 call of `"), "{said}");
    assert!(said.contains(" differences:"), "{said}");
    assert!(!said.contains("(s)"), "{said}");
}

#[test]
fn a_demo_session_recorded_on_2026_07_28_replays_the_same_on_2025_11_25() {
    let dir = scratch("record-replay-demo");
    let file = dir.join("session.json");
    let recording = Recording::start(&file, &demo());
    let name = recording.until("the demo is ready", |s| {
        s["servers"].as_array()?.iter().find_map(|srv| {
            (srv["status"] == "ready").then(|| srv["name"].as_str().map(str::to_owned))?
        })
    });
    recording.call(
        &name,
        "github_username",
        json!({"action": "accept", "content": {"username": "octocat"}}),
    );
    recording.call(&name, "confirm_action", json!({"action": "decline"}));
    recording.stop();
    let recorded: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(recorded["servers"][&name]["protocolVersion"], "2026-07-28");

    for era in [&[][..], &["--protocol-version", "2025-11-25"][..]] {
        let out = replay(&file, &demo(), era);
        assert_eq!(out.status.code(), Some(0), "{era:?}: {}", text(&out));
        assert!(
            text(&out).contains("2 the same, 0 different"),
            "{}",
            text(&out)
        );
    }

    // A different answer gives a different result, and the replay says where.
    let edited = std::fs::read_to_string(&file)
        .unwrap()
        .replace("\"octocat\"", "\"hubot\"");
    std::fs::write(&file, edited).unwrap();
    let out = replay(&file, &demo(), &[]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains(r#"the result: differs at /content/0/text: was "Hello, @octocat!", now "Hello, @hubot!""#),
        "{}",
        text(&out)
    );
    // Ignoring that part, it is the same again.
    let out = replay(&file, &demo(), &["--ignore", "/content/*/text"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
}

#[test]
fn a_recording_that_is_not_one_is_refused_by_name() {
    let dir = scratch("record-replay-bad");
    let file = dir.join("other.json");
    std::fs::write(&file, r#"{"log": {"entries": []}}"#).unwrap();
    let out = replay(&file, &demo(), &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).contains("not a recording"), "{}", text(&out));
    std::fs::write(
        &file,
        r#"{"format": "interlude-recording", "version": 1, "calls": []}"#,
    )
    .unwrap();
    let out = replay(&file, &demo(), &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).contains("holds no calls"), "{}", text(&out));
}
