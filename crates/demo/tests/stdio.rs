//! `interlude_server::stdio` through the demo binary, on each kind of stdin/stdout it handles:
//! Unix stream sockets (how libuv-based hosts such as Node spawn servers) and regular files
//! (the blocking fallback). Pipes, the common case, are what every stdio test in `host.rs` uses.
//! Raw JSON-RPC lines on purpose: no client library between the test and the transport. The
//! server's debug log says which way each stream went, and the tests check it: a fallback
//! would answer too, only slower.
// Outside `#[test]` functions too, a panic is how this file's code fails a test.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const DEMO: &str = env!("CARGO_BIN_EXE_interlude-demo");

struct Kill(Child);

/// A demo server with the stdio transport's debug log on stderr, which goes to `log`.
fn demo(stdin: Stdio, stdout: Stdio, log: &std::path::Path) -> Kill {
    let child = Command::new(DEMO)
        .env("INTERLUDE_LOG", "interlude_server=debug")
        .stdin(stdin)
        .stdout(stdout)
        .stderr(File::create(log).expect("create log"))
        .spawn()
        .expect("start interlude-demo");
    Kill(child)
}

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("stdio");
    std::fs::create_dir_all(&dir).expect("dir");
    dir.join(format!("{name}-{}", std::process::id()))
}

/// Ends the server and returns what it logged.
fn finish(mut child: Kill, log: &std::path::Path) -> String {
    let _ = child.0.kill();
    let _ = child.0.wait();
    std::fs::read_to_string(log).expect("read log")
}

impl Drop for Kill {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn initialize(id: u64) -> String {
    json!({
        "jsonrpc": "2.0", "id": id, "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {"elicitation": {"form": {}}},
            "clientInfo": {"name": "stdio-test", "version": "0"}
        }
    })
    .to_string()
}

/// Reads lines until the response with `id` arrives.
fn response(reader: &mut impl BufRead, id: u64) -> Value {
    let mut line = String::new();
    loop {
        line.clear();
        let n = reader.read_line(&mut line).expect("read from the server");
        assert!(n > 0, "the server closed its output before answering {id}");
        let message: Value = serde_json::from_str(&line).expect("a JSON-RPC line");
        if message["id"] == json!(id) {
            return message;
        }
    }
}

#[test]
fn serves_over_a_unix_stream_socket() {
    let (ours, theirs) = UnixStream::pair().expect("socketpair");
    ours.set_read_timeout(Some(Duration::from_secs(20)))
        .expect("timeout");
    let log = scratch("socket.log");
    let child = demo(
        Stdio::from(std::os::fd::OwnedFd::from(theirs.try_clone().expect("dup"))),
        Stdio::from(std::os::fd::OwnedFd::from(theirs)),
        &log,
    );
    let mut writer = ours.try_clone().expect("dup");
    let mut reader = BufReader::new(ours);

    writeln!(writer, "{}", initialize(1)).expect("write");
    let init = response(&mut reader, 1);
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25", "{init}");
    assert_eq!(
        init["result"]["serverInfo"]["name"], "interlude-demo",
        "{init}"
    );

    writeln!(
        writer,
        "{}",
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
    )
    .expect("write");
    writeln!(
        writer,
        "{}",
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    )
    .expect("write");
    let list = response(&mut reader, 2);
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(names.contains(&"contact_info"), "{names:?}");
    assert!(names.contains(&"test_elicitation"), "{names:?}");
    let log = finish(child, &log);
    assert!(
        log.contains("stdin is a socket, polled on the reactor"),
        "{log}"
    );
    assert!(
        log.contains("stdout is a socket, polled on the reactor"),
        "{log}"
    );
}

#[test]
fn serves_over_pipes_on_the_reactor() {
    let log = scratch("pipe.log");
    let mut child = demo(Stdio::piped(), Stdio::piped(), &log);
    let mut writer = child.0.stdin.take().expect("stdin");
    let mut reader = BufReader::new(child.0.stdout.take().expect("stdout"));
    writeln!(writer, "{}", initialize(3)).expect("write");
    let init = response(&mut reader, 3);
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25", "{init}");
    let log = finish(child, &log);
    assert!(
        log.contains("stdin is a pipe, polled on the reactor"),
        "{log}"
    );
    assert!(
        log.contains("stdout is a pipe, polled on the reactor"),
        "{log}"
    );
}

#[test]
fn a_pipe_shared_with_stderr_stays_blocking() {
    // std cannot point a child's stderr at its stdout pipe; a shell can (`2>&1`).
    let shell = Command::new("sh")
        .arg("-c")
        .arg(format!("exec '{DEMO}' 2>&1"))
        .env("INTERLUDE_LOG", "interlude_server=debug")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start interlude-demo through sh");
    let mut child = Kill(shell);
    let mut writer = child.0.stdin.take().expect("stdin");
    let mut reader = BufReader::new(child.0.stdout.take().expect("stdout"));
    writeln!(writer, "{}", initialize(5)).expect("write");
    // The log lines and the protocol share the pipe: skip what is not JSON-RPC.
    let mut line = String::new();
    let mut logged = String::new();
    let init = loop {
        line.clear();
        assert!(
            reader.read_line(&mut line).expect("read") > 0,
            "closed; saw:\n{logged}"
        );
        match serde_json::from_str::<Value>(&line) {
            Ok(message) if message["id"] == json!(5) => break message,
            _ => logged.push_str(&line),
        }
    };
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25", "{init}");
    assert!(
        logged.contains("stdin is a pipe, polled on the reactor"),
        "{logged}"
    );
    assert!(
        logged.contains("stdout stays on tokio's blocking writer: it is also stderr"),
        "{logged}"
    );
}

#[test]
fn falls_back_to_blocking_io_for_regular_files() {
    let (input, output, log) = (scratch("in"), scratch("out"), scratch("file.log"));
    std::fs::write(&input, format!("{}\n", initialize(7))).expect("write input");
    let mut child = demo(
        File::open(&input).expect("open input").into(),
        File::create(&output).expect("create output").into(),
        &log,
    );
    // End of input ends the session: the process exits by itself.
    let deadline = Instant::now() + Duration::from_secs(20);
    while child.0.try_wait().expect("wait").is_none() {
        assert!(
            Instant::now() < deadline,
            "the server did not exit at end of input"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let written = std::fs::read_to_string(&output).expect("read output");
    let init = response(&mut written.as_bytes(), 7);
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25", "{init}");
    let log = finish(child, &log);
    assert!(
        log.contains("stdin stays on tokio's blocking reader"),
        "{log}"
    );
    assert!(
        log.contains("stdout stays on tokio's blocking writer"),
        "{log}"
    );
    let _ = std::fs::remove_file(&input);
    let _ = std::fs::remove_file(&output);
}

/// Reads one JSON-RPC message per line.
fn message(reader: &mut impl BufRead) -> Value {
    let mut line = String::new();
    let n = reader.read_line(&mut line).expect("read from the server");
    assert!(n > 0, "the server closed its output");
    serde_json::from_str(&line).unwrap_or_else(|e| panic!("not one JSON-RPC message ({e}): {line}"))
}

#[test]
fn a_client_that_reads_late_gets_every_message_whole_and_in_order() {
    // Many questions at once, and nobody reading: what the pipe cannot take waits in the
    // transport's queue. Every request must then arrive whole, and every answer must complete
    // its call.
    const CALLS: u64 = 400;
    let log = scratch("late.log");
    let mut child = demo(Stdio::piped(), Stdio::piped(), &log);
    let mut writer = child.0.stdin.take().expect("stdin");
    let mut reader = BufReader::new(child.0.stdout.take().expect("stdout"));
    writeln!(writer, "{}", initialize(1)).expect("write");
    response(&mut reader, 1);
    writeln!(
        writer,
        "{}",
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
    )
    .expect("write");
    for id in 0..CALLS {
        let call = json!({"jsonrpc": "2.0", "id": 100 + id, "method": "tools/call",
                          "params": {"name": "contact_info", "arguments": {}}});
        writeln!(writer, "{call}").expect("write");
    }
    writer.flush().expect("flush");
    std::thread::sleep(Duration::from_millis(300));
    let mut questions = Vec::new();
    while questions.len() < CALLS as usize {
        let request = message(&mut reader);
        assert_eq!(request["method"], "elicitation/create", "{request}");
        assert_eq!(
            request["params"]["requestedSchema"]["required"],
            json!(["name", "email", "age"]),
            "{request}"
        );
        questions.push(request["id"].clone());
    }
    for id in &questions {
        let answer = json!({"jsonrpc": "2.0", "id": id, "result": {"action": "accept",
            "content": {"name": "Ada Lovelace", "email": "ada@example.com", "age": 36}}});
        writeln!(writer, "{answer}").expect("write");
    }
    writer.flush().expect("flush");
    let mut done = std::collections::BTreeSet::new();
    while done.len() < CALLS as usize {
        let result = message(&mut reader);
        let id = result["id"].as_u64().expect("a call's id");
        assert_eq!(
            result["result"]["content"][0]["text"],
            "Thanks Ada Lovelace (ada@example.com, age 36).",
            "{result}"
        );
        assert!(done.insert(id), "{id} answered twice");
    }
    drop(finish(child, &log));
}

#[test]
fn what_waits_for_a_slow_reader_is_written_before_the_server_exits() {
    // rmcp drops its transport when the input ends; what the pipe had not taken yet must still
    // reach the client.
    const LISTS: u64 = 300;
    let log = scratch("exit.log");
    let mut child = demo(Stdio::piped(), Stdio::piped(), &log);
    let mut writer = child.0.stdin.take().expect("stdin");
    let mut reader = BufReader::new(child.0.stdout.take().expect("stdout"));
    writeln!(writer, "{}", initialize(1)).expect("write");
    response(&mut reader, 1);
    writeln!(
        writer,
        "{}",
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
    )
    .expect("write");
    for id in 0..LISTS {
        writeln!(
            writer,
            "{}",
            json!({"jsonrpc": "2.0", "id": 10 + id, "method": "tools/list"})
        )
        .expect("write");
    }
    drop(writer);
    std::thread::sleep(Duration::from_millis(500));
    let mut lists = 0;
    let mut line = String::new();
    while reader.read_line(&mut line).expect("read") > 0 {
        let message: Value = serde_json::from_str(&line).expect("a JSON-RPC line");
        assert!(message["result"]["tools"].is_array(), "{message}");
        lists += 1;
        line.clear();
    }
    assert_eq!(lists, LISTS, "responses lost at exit");
    drop(finish(child, &log));
}
