//! A push-era `elicitation/create` names the tool call it belongs to
//! (`interlude_protocol::RELATED_REQUEST_ID_KEY` in its `_meta`), checked on the wire: raw
//! JSON-RPC lines to the demo binary over stdio, where two calls in flight share one pipe and the
//! key is the only way to tell their questions apart. Both kinds of JSON-RPC id are used, and
//! each question is answered to show the answer completes the call it named.
// Outside `#[test]` functions too, a panic is how this file's code fails a test.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use interlude_protocol::RELATED_REQUEST_ID_KEY;
use serde_json::{Value, json};

const DEMO: &str = env!("CARGO_BIN_EXE_interlude-demo");

/// The demo server as a child process, killed when dropped.
struct Demo {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<Value>,
}

impl Demo {
    fn start() -> Self {
        let mut child = Command::new(DEMO)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start interlude-demo");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        // A reader thread, so that a server that stays silent fails the test instead of hanging it.
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let message = serde_json::from_str(&line).expect("a JSON-RPC line");
                if tx.send(message).is_err() {
                    break;
                }
            }
        });
        Demo {
            child,
            stdin,
            lines,
        }
    }

    fn send(&mut self, message: Value) {
        writeln!(self.stdin, "{message}").expect("write to the server");
    }

    fn next(&self) -> Value {
        self.lines
            .recv_timeout(Duration::from_secs(20))
            .expect("a message from the server within 20 s")
    }
}

impl Drop for Demo {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn call(id: Value, tool: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool}})
}

#[test]
fn a_push_elicitation_carries_the_json_rpc_id_of_its_tool_call() {
    let mut demo = Demo::start();
    demo.send(json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {"elicitation": {"form": {}}},
            "clientInfo": {"name": "related-test", "version": "0"}
        }
    }));
    let init = demo.next();
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25", "{init}");
    demo.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));

    // Two calls in flight at once, one with a number id and one with a string id.
    demo.send(call(json!(41), "github_username"));
    demo.send(call(json!("call-b"), "confirm_action"));

    let mut questions = Vec::new();
    while questions.len() < 2 {
        let message = demo.next();
        if message["method"] == "elicitation/create" {
            questions.push(message);
        }
    }
    for question in &questions {
        let related = &question["params"]["_meta"][RELATED_REQUEST_ID_KEY];
        let expected = match question["params"]["message"].as_str() {
            Some("Please provide your GitHub username") => json!(41),
            Some("Please confirm: delete the 3 selected drafts?") => json!("call-b"),
            other => panic!("unexpected question {other:?}"),
        };
        // The same JSON value the client sent: a number stays a number, a string a string.
        assert_eq!(related, &expected, "{question}");
    }

    // Answer each question; each call completes with its own answer.
    for question in &questions {
        let content = if question["params"]["_meta"][RELATED_REQUEST_ID_KEY] == json!(41) {
            json!({"username": "ada"})
        } else {
            json!({"confirm": true})
        };
        demo.send(json!({
            "jsonrpc": "2.0", "id": question["id"],
            "result": {"action": "accept", "content": content}
        }));
    }
    let mut results = std::collections::BTreeMap::new();
    while results.len() < 2 {
        let message = demo.next();
        if message.get("result").is_some() || message.get("error").is_some() {
            let text = message["result"]["content"][0]["text"].clone();
            results.insert(message["id"].to_string(), text);
        }
    }
    assert_eq!(results["41"], json!("Hello, @ada!"), "{results:?}");
    assert_eq!(
        results["\"call-b\""],
        json!("Deleted 3 drafts."),
        "{results:?}"
    );
}

/// A request of a known method whose params do not fit it is answered -32602 naming the field
/// (the toolkit's `checked` transport), not "method not found"; the server goes on serving, in
/// both eras.
#[test]
fn a_known_method_with_misfit_params_is_answered_naming_the_field() {
    let mut demo = Demo::start();
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}
    });
    let cases = [
        (
            json!({"name": "github_username", "arguments": {}, "inputResponses": [1], "_meta": meta}),
            "tools/call",
            "inputResponses",
            "`params.inputResponses` of tools/call must be an object, found an array",
        ),
        (
            json!({"name": 12, "_meta": meta}),
            "tools/call",
            "name",
            "`params.name` of tools/call must be a string, found a number",
        ),
        (
            json!({"uri": ["ui://demo/weather"], "_meta": meta}),
            "resources/read",
            "uri",
            "`params.uri` of resources/read must be a string, found an array",
        ),
    ];
    for (i, (params, method, field, said)) in cases.into_iter().enumerate() {
        demo.send(json!({"jsonrpc": "2.0", "id": i, "method": method, "params": params}));
        let reply = demo.next();
        assert_eq!(reply["id"], json!(i), "{reply}");
        assert_eq!(reply["error"]["code"], -32602, "{reply}");
        assert_eq!(reply["error"]["data"]["field"], field, "{reply}");
        assert_eq!(reply["error"]["message"], said, "{reply}");
    }
    // Still serving: a well-formed call is answered.
    demo.send(json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
                     "params": {"name": "github_username", "arguments": {}, "_meta": meta}}));
    let reply = demo.next();
    assert_eq!(reply["id"], 9, "{reply}");
    assert_eq!(reply["result"]["resultType"], "input_required", "{reply}");
}

/// A line that is no JSON-RPC message is answered, not dropped (`checked_lines`): -32700 with
/// `id: null` for what is not JSON, nests deeper than 128 or holds a number beyond a 64-bit
/// float; -32600 for a line longer than 8 MiB, JSON that is not an object, an object without
/// `"jsonrpc": "2.0"` or without a method, a result or an error. The server goes on serving.
#[test]
fn lines_that_are_no_message_are_answered() {
    let mut demo = Demo::start();
    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    let huge = format!(
        r#"{{"jsonrpc":"2.0","id":5,"method":"ping","params":{{"x":"{}"}}}}"#,
        "a".repeat(9 * 1024 * 1024)
    );
    let lines = [
        (r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"n":1e400}}}"#.to_owned(), -32700, "beyond a 64-bit float"),
        ("not json at all".to_owned(), -32700, "not JSON"),
        (deep, -32700, "nested more than 128 deep"),
        (huge, -32600, "longer than"),
        ("[1, 2]".to_owned(), -32600, "must be a JSON object"),
        (r#"{"id": 1, "method": "ping"}"#.to_owned(), -32600, "`jsonrpc` must be"),
        (r#"{"jsonrpc": "2.0", "id": 4}"#.to_owned(), -32600, "a `method`, a `result` or an `error`"),
    ];
    for (line, code, said) in lines {
        writeln!(demo.stdin, "{line}").unwrap();
        let reply = demo.next();
        assert_eq!(reply["error"]["code"], code, "{reply}");
        assert!(reply["id"].is_null(), "{reply}");
        assert!(
            reply["error"]["message"].as_str().unwrap().contains(said),
            "{reply}"
        );
    }
    demo.send(json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "t", "version": "0"}}
    }));
    let init = demo.next();
    assert_eq!(init["id"], 0, "{init}");
    assert!(init["result"].is_object(), "{init}");
}

/// Issue 21: the server numbers its requests, so an answer under the string `"0"` or the float
/// `0.0` answers none of them — rmcp alone would take either for 0. Each is refused with
/// -32600 saying why, the question stays open, and the answer under `0` itself completes the
/// call.
#[test]
fn an_answer_under_a_look_alike_id_settles_nothing() {
    let mut demo = Demo::start();
    demo.send(json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {"elicitation": {"form": {}}},
            "clientInfo": {"name": "look-alike-ids", "version": "0"}
        }
    }));
    assert!(demo.next()["result"].is_object());
    demo.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    demo.send(call(json!(7), "github_username"));
    let question = demo.next();
    assert_eq!(question["method"], "elicitation/create", "{question}");
    let id = question["id"]
        .as_i64()
        .expect("the server numbers its requests");
    for look_alike in [json!(id.to_string()), json!(id as f64)] {
        let line = json!({
            "jsonrpc": "2.0", "id": look_alike,
            "result": {"action": "accept", "content": {"username": "mallory"}}
        })
        .to_string();
        // serde_json writes 0.0 as `0.0`: the float form reaches the server as sent.
        demo.send(serde_json::from_str(&line).unwrap());
        let reply = demo.next();
        assert_eq!(reply["error"]["code"], -32600, "{look_alike}: {reply}");
        assert!(
            reply["error"]["message"]
                .as_str()
                .unwrap()
                .contains("answers none of them"),
            "{reply}"
        );
    }
    demo.send(json!({
        "jsonrpc": "2.0", "id": id,
        "result": {"action": "accept", "content": {"username": "ada"}}
    }));
    let done = demo.next();
    assert_eq!(done["id"], 7, "{done}");
    assert_eq!(
        done["result"]["content"][0]["text"], "Hello, @ada!",
        "{done}"
    );
}
