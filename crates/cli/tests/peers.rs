//! Real-peer tests: the official MCP conformance suite (0.1.16) against `interlude-demo` (server
//! mode) and `interlude-conformance-client` (client mode), and
//! `@modelcontextprotocol/server-everything` answered headless by `interlude call`.
//!
//! The peers are installed by `cargo xtask peers` and located through `INTERLUDE_NODE` (a Node 22
//! binary) and `INTERLUDE_NPM_PEERS` (the folder whose `node_modules` holds the pinned npm
//! peers), falling back to the default `.peers/` layout of the workspace. When a peer is missing
//! these tests print a note and pass, unless `INTERLUDE_REQUIRE_PEERS=1` (set by
//! `cargo xtask test`), in which case they fail.
//!
//! Nothing here listens beyond loopback: the demo binds 127.0.0.1, the conformance client-mode
//! mock servers (which bind every interface) run in a loopback-only network namespace
//! (`unshare -n`), and server-everything speaks stdio. `interlude-demo` is another package's
//! binary: `cargo build --workspace --bins` must have built it (xtask does).
// A skipped test says why on stderr; outside `#[test]` functions too, a panic is how this file's
// code fails a test.
#![allow(
    clippy::print_stderr,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::io::Read;
use std::net::{TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use interlude_test_support::{NpmPeers, missing_peer};
use serde_json::{Value, json};

/// How long one conformance run or one `interlude call` may take before the test gives up.
const RUN_TIMEOUT: Duration = Duration::from_secs(120);

// ---------------------------------------------------------------------------------------------
// Conformance, server mode: the harness is the client, `interlude-demo --http` the server.

#[test]
fn conformance_server_tools_call_elicitation() {
    conformance_server("tools-call-elicitation", 1);
}

#[test]
fn conformance_server_elicitation_sep1034_defaults() {
    conformance_server("elicitation-sep1034-defaults", 5);
}

#[test]
fn conformance_server_elicitation_sep1330_enums() {
    conformance_server("elicitation-sep1330-enums", 5);
}

// ---------------------------------------------------------------------------------------------
// Conformance, client mode: the harness is a mock server, `interlude-conformance-client` the
// client; each run in a loopback-only network namespace.

#[test]
fn conformance_client_initialize() {
    conformance_client("initialize", 1);
}

#[test]
fn conformance_client_tools_call() {
    conformance_client("tools_call", 1);
}

#[test]
fn conformance_client_elicitation_sep1034_client_defaults() {
    conformance_client("elicitation-sep1034-client-defaults", 5);
}

// ---------------------------------------------------------------------------------------------
// server-everything over stdio, answered from an answers file.

/// Every field of server-everything's `trigger-elicitation-request`, none at its default.
fn everything_answers() -> Value {
    json!({
        "name": "Ada Lovelace",
        "check": true,
        "firstLine": "Call me Ishmael.",
        "email": "ada@example.org",
        "homepage": "https://example.org/ada",
        "birthdate": "1815-12-10",
        "integer": 7,
        "number": 2.5,
        "untitledSingleSelectEnum": "Phoebe",
        "untitledMultipleSelectEnum": ["Piano", "Violin"],
        "titledSingleSelectEnum": "hero-3",
        "titledMultipleSelectEnum": ["fish-2", "fish-3"],
        "legacyTitledEnum": "pet-3"
    })
}

#[test]
fn server_everything_form_answered_from_file() {
    let Some(peers) = Peers::locate() else { return };
    let scratch = scratch("everything-accept");
    let answers = everything_answers();
    assert_eq!(answers.as_object().unwrap().len(), 13);
    let out = interlude_call_everything(&peers, &scratch, &answers);
    assert!(out.status.success(), "interlude call failed\n{out}");

    let texts = result_texts(&out);
    for line in [
        "- Name: Ada Lovelace",
        "- Agreed to terms: true",
        "- Email: ada@example.org",
        "- Homepage: https://example.org/ada",
        "- Birthdate: 1815-12-10",
        "- Favorite Integer: 7",
        "- Favorite Number: 2.5",
    ] {
        assert!(texts.contains(line), "missing {line:?} in the echo\n{out}");
    }
    // The raw result echoes every field as the server received it, multi-selects and the legacy
    // `enumNames` enum included.
    let raw = raw_result(&texts);
    assert_eq!(raw["action"], "accept", "{out}");
    assert_eq!(
        raw["content"], answers,
        "the server did not get what was typed\n{out}"
    );
    assert_eq!(
        raw["content"]["untitledMultipleSelectEnum"],
        json!(["Piano", "Violin"])
    );
    assert_eq!(
        raw["content"]["titledMultipleSelectEnum"],
        json!(["fish-2", "fish-3"])
    );
    assert_eq!(raw["content"]["legacyTitledEnum"], "pet-3");
}

/// `interlude call "<node> <server-everything> stdio" TOOL [extra args…]`.
fn interlude_call_everything_tool(peers: &Peers, tool: &str, extra: &[&std::ffi::OsStr]) -> Output {
    let server = format!(
        "{} {} stdio",
        shell_quote(peers.node()),
        shell_quote(&peers.server_everything())
    );
    run(
        Command::new(env!("CARGO_BIN_EXE_interlude"))
            .args(["call", &server, tool])
            .args(extra),
        RUN_TIMEOUT,
    )
}

/// A server written with `@mcp-ui/server` 6.1.0 (npm peer) returns a UI resource in its
/// result: `interlude call` prints the result as it came, and says on stderr that it carries a
/// view (which `interlude connect` shows), for HTML and for a Remote DOM resource alike.
#[test]
fn interlude_call_says_a_result_carries_a_view() {
    let Some(peers) = NpmPeers::locate(&[
        "@mcp-ui/server/dist/index.mjs",
        "@modelcontextprotocol/sdk/dist/esm/server/index.js",
    ]) else {
        return;
    };
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../web/tests/test_data/mcp_ui_server.mjs");
    let server = format!("{} {}", shell_quote(&peers.node), shell_quote(&script));
    for (tool, says) in [
        (
            "show_hello",
            "carries an HTML view at content[1] (ui://classic/hello)",
        ),
        (
            "show_remote_dom",
            "carries a Remote DOM view for react, which Interlude does not render at content[1]",
        ),
    ] {
        let out = run(
            Command::new(env!("CARGO_BIN_EXE_interlude"))
                .args(["call", &server, tool])
                .env("INTERLUDE_NPM_PEERS", &peers.npm),
            RUN_TIMEOUT,
        );
        assert!(out.status.success(), "{out}");
        assert!(out.stderr.contains(says), "{out}");
        let result: Value = serde_json::from_str(&out.stdout).unwrap();
        assert!(
            result["content"][1]["resource"]["uri"]
                .as_str()
                .is_some_and(|u| u.starts_with("ui://classic/")),
            "the result is printed as it came\n{out}"
        );
    }
}

/// server-everything's `trigger-sampling-request` asks the client for a model's reply
/// (`sampling/createMessage`); headless, the reply comes from the answers file, and the server
/// echoes the `CreateMessageResult` it got.
#[test]
fn server_everything_sampling_is_answered_from_the_answers_file() {
    let Some(peers) = Peers::locate() else { return };
    let scratch = scratch("everything-sampling");
    let file = scratch.join("answers.json");
    std::fs::write(
        &file,
        r#"{"text": "Paris is the capital.", "model": "ada-1"}"#,
    )
    .unwrap();
    let out = interlude_call_everything_tool(
        &peers,
        "trigger-sampling-request",
        &[
            "--args".as_ref(),
            r#"{"prompt": "the capital of France?"}"#.as_ref(),
            "--answers".as_ref(),
            file.as_os_str(),
        ],
    );
    assert!(out.status.success(), "interlude call failed\n{out}");
    let texts = result_texts(&out);
    let (_, raw) = texts
        .split_once("LLM sampling result:")
        .unwrap_or_else(|| panic!("no sampling result echoed\n{out}"));
    let result: Value = serde_json::from_str(raw.trim()).unwrap();
    assert_eq!(result["role"], "assistant", "{out}");
    assert_eq!(result["content"]["text"], "Paris is the capital.", "{out}");
    assert_eq!(result["model"], "ada-1", "{out}");
    assert_eq!(result["stopReason"], "endTurn", "{out}");
}

/// server-everything's `simulate-research-query` runs only as a 2025-11-25 task: `interlude call`
/// calls it as one, answers its clarifying question from the answers file, and prints the final
/// report (it used to print the server's "requires task augmentation" error, and exit 0).
#[test]
fn server_everything_research_task_runs_to_its_report() {
    let Some(peers) = Peers::locate() else { return };
    let scratch = scratch("everything-task");
    let file = scratch.join("answers.json");
    std::fs::write(&file, r#"{"interpretation": "comedy"}"#).unwrap();
    let out = interlude_call_everything_tool(
        &peers,
        "simulate-research-query",
        &[
            "--args".as_ref(),
            r#"{"topic": "python", "ambiguous": true}"#.as_ref(),
            "--answers".as_ref(),
            file.as_os_str(),
        ],
    );
    assert!(out.status.success(), "interlude call failed\n{out}");
    let texts = result_texts(&out);
    assert!(
        texts.contains("# Research Report: python (comedy)"),
        "no report with the answer\n{out}"
    );
}

/// With no reply in the answers file, a sampling request is refused: the server hears the
/// spec's "user rejected" error (code -1), and the call says so.
#[test]
fn server_everything_sampling_without_a_reply_is_refused() {
    let Some(peers) = Peers::locate() else { return };
    let scratch = scratch("everything-sampling-refused");
    let file = scratch.join("answers.json");
    std::fs::write(&file, r#"{"name": "not a reply"}"#).unwrap();
    let out = interlude_call_everything_tool(
        &peers,
        "trigger-sampling-request",
        &[
            "--args".as_ref(),
            r#"{"prompt": "anything"}"#.as_ref(),
            "--answers".as_ref(),
            file.as_os_str(),
        ],
    );
    let all = format!("{}{}", out.stdout, out.stderr);
    assert!(
        all.contains("User rejected sampling request"),
        "the server did not hear the refusal\n{out}"
    );
}

/// `--root DIR` is what server-everything's `get-roots-list` lists (`roots/list`).
#[test]
fn server_everything_lists_the_roots_given() {
    let Some(peers) = Peers::locate() else { return };
    let scratch = scratch("everything-roots");
    let project = scratch.join("my project");
    std::fs::create_dir_all(&project).unwrap();
    let out = interlude_call_everything_tool(
        &peers,
        "get-roots-list",
        &["--root".as_ref(), project.as_os_str()],
    );
    assert!(out.status.success(), "interlude call failed\n{out}");
    let texts = result_texts(&out);
    let uri = url_of_dir(&project);
    assert!(texts.contains(&uri), "{uri} not listed\n{out}");
    assert!(
        texts.contains("my project"),
        "the root's name is missing\n{out}"
    );
}

fn url_of_dir(dir: &Path) -> String {
    let canonical = dir.canonicalize().unwrap();
    let mut uri = String::from("file://");
    for part in canonical.to_str().unwrap().split('/').skip(1) {
        uri.push('/');
        uri.push_str(&part.replace(' ', "%20"));
    }
    uri
}

#[test]
fn server_everything_invalid_answer_never_leaves_the_host() {
    let Some(peers) = Peers::locate() else { return };
    let scratch = scratch("everything-invalid");
    let mut answers = everything_answers();
    answers["integer"] = json!(500); // the schema allows 1..=100
    let out = interlude_call_everything(&peers, &scratch, &answers);
    assert_eq!(
        out.status.code(),
        Some(2),
        "an invalid scripted answer cancels the request and is an error of the run: exit 2\n{out}"
    );
    let texts = result_texts(&out);
    assert!(
        texts.contains("User cancelled the elicitation dialog"),
        "the server should report a cancel\n{out}"
    );
    let raw = raw_result(&texts);
    assert_eq!(raw, json!({"action": "cancel"}), "{out}");
    assert!(
        !texts.contains("500") && !texts.contains("Ada Lovelace"),
        "no answer value may reach the server\n{out}"
    );
    assert!(
        out.stderr.contains("integer"),
        "stderr should name the invalid field\n{out}"
    );
}

// ---------------------------------------------------------------------------------------------
// URL mode, headless: `interlude call` consents when the answers say so, prints the link (never
// opens it), and the call goes on once the page is done.

/// server-everything's `trigger-url-elicitation`, both paths: the request path (consent, or the
/// default decline) and the `-32042` path (consent, no completion notification from this
/// server, so `--url-wait` runs out and the call is retried once, which asks again on the
/// request path).
#[test]
fn server_everything_url_elicitation_both_paths() {
    let Some(peers) = Peers::locate() else { return };
    let scratch = scratch("everything-url");
    // An address literal: nothing needs DNS here.
    let link = "https://93.184.215.14/connect";
    let args = |error_path: bool| json!({"url": link, "errorPath": error_path}).to_string();
    let server = format!(
        "{} {} stdio",
        shell_quote(peers.node()),
        shell_quote(&peers.server_everything())
    );
    let call = |args: &str, answers: Option<&Value>| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_interlude"));
        cmd.args(["call", &server, "trigger-url-elicitation", "--args", args]);
        cmd.args(["--url-wait", "1"]);
        if let Some(a) = answers {
            let file = scratch.join("answers.json");
            std::fs::write(&file, serde_json::to_vec(a).unwrap()).unwrap();
            cmd.arg("--answers").arg(file);
        }
        run(&mut cmd, RUN_TIMEOUT)
    };

    // No answers: a link is declined.
    let out = call(&args(false), None);
    assert_eq!(out.status.code(), Some(1), "declined: exit 1\n{out}");
    assert!(result_texts(&out).contains("declined"), "{out}");
    assert!(
        !out.stderr.contains(link),
        "a declined link is not printed\n{out}"
    );

    // Consent: printed on stderr, and the server hears `accept`.
    let out = call(&args(false), Some(&json!({"action": "accept"})));
    assert!(out.status.success(), "{out}");
    assert!(out.stderr.contains(link), "the link is printed\n{out}");
    let texts = result_texts(&out);
    assert!(
        !texts.contains("declined") && texts.contains("accept"),
        "{out}"
    );

    // -32042, not consented (no answers): the call ends declined, said as the person's choice.
    let out = call(&args(true), None);
    assert_eq!(out.status.code(), Some(1), "declined: exit 1\n{out}");
    assert!(
        out.stderr.contains("needs a link opened first")
            && out.stderr.contains("the person declined"),
        "{out}"
    );
    assert!(
        !out.stderr.contains("refused"),
        "the host refused nothing\n{out}"
    );

    // -32042, consented; then the retried call asks on the request path, consented again.
    let both = json!([{"action": "accept"}, {"action": "accept"}]);
    let out = call(&args(true), Some(&both));
    assert!(out.status.success(), "{out}");
    assert!(
        out.stderr.contains("https://modelcontextprotocol.io"),
        "the required link is printed\n{out}"
    );
    assert!(out.stderr.contains(link), "then the request's link\n{out}");
    assert!(result_texts(&out).contains("accept"), "{out}");
}

/// The demo's API-key flow through `interlude call`, both eras: the link printed on stderr is
/// opened by "the person" (an HTTP client here: sign in, post the key), and the call returns
/// the server's confirmation; the key is in no output.
#[test]
fn demo_url_flow_through_interlude_call() {
    let Some(binary) = demo_binary() else { return };
    for version in ["2025-11-25", "2026-07-28"] {
        let scratch = scratch(&format!("demo-url-{version}"));
        let demo = Demo::start(&binary, &scratch);
        let origin = format!("http://127.0.0.1:{}", demo.port);
        let answers = scratch.join("answers.json");
        std::fs::write(&answers, br#"{"action": "accept"}"#).unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_interlude"))
            .args([
                "call",
                &demo.url(),
                "weather_api_key",
                "--protocol-version",
                version,
            ])
            .args(["--dev-origin", &origin, "--answers"])
            .arg(&answers)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .env("NO_COLOR", "1")
            .process_group(0)
            .spawn()
            .unwrap();
        let stdout = reader(child.stdout.take());
        let (lines_tx, lines) = mpsc::channel::<String>();
        let stderr = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            use std::io::BufRead;
            for line in std::io::BufReader::new(stderr)
                .lines()
                .map_while(Result::ok)
            {
                let _ = lines_tx.send(line);
            }
        });
        let link = loop {
            let line = lines
                .recv_timeout(Duration::from_secs(30))
                .unwrap_or_else(|e| panic!("no link printed ({version}): {e}"));
            if let Some(at) = line.find(&format!("{origin}/flows/")) {
                break line[at..].trim().to_owned();
            }
        };
        let page = interlude_test_support::http1::complete_demo_flow(&origin, &link, "demo-key-42")
            .unwrap();
        assert_eq!(page.status, 200, "{}", page.body);
        let deadline = Instant::now() + RUN_TIMEOUT;
        let exit = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            assert!(
                Instant::now() < deadline,
                "interlude call did not finish ({version})"
            );
            std::thread::sleep(Duration::from_millis(50));
        };
        let out = collect(&stdout);
        assert!(exit.success(), "({version}) {exit}: {out}");
        assert!(
            out.contains("Saved your Weather API key (11 characters)"),
            "{out}"
        );
        assert!(!out.contains("demo-key-42"));
    }
}

// ---------------------------------------------------------------------------------------------
// Helpers.

const CONFORMANCE: &str = "@modelcontextprotocol/conformance/dist/index.js";
const SERVER_EVERYTHING: &str = "@modelcontextprotocol/server-everything/dist/index.js";

/// Node 22 with the conformance suite and server-everything.
struct Peers(NpmPeers);

impl Peers {
    fn locate() -> Option<Peers> {
        NpmPeers::locate(&[CONFORMANCE, SERVER_EVERYTHING]).map(Peers)
    }

    fn node(&self) -> &Path {
        &self.0.node
    }

    fn conformance(&self) -> PathBuf {
        self.0.package_file(CONFORMANCE)
    }

    fn server_everything(&self) -> PathBuf {
        self.0.package_file(SERVER_EVERYTHING)
    }
}

/// `interlude-demo`, built by `cargo build --workspace --bins` into the same folder as our
/// binaries.
fn demo_binary() -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_BIN_EXE_interlude")).with_file_name("interlude-demo");
    if path.is_file() {
        Some(path)
    } else {
        missing_peer(&format!(
            "{} is missing (run `cargo build --workspace --bins`)",
            path.display()
        ))
    }
}

/// A fresh scratch folder for one test.
fn scratch(name: &str) -> PathBuf {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("peers")
        .join(format!("{name}-{}-{nanos}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// What a finished process printed.
struct Output {
    what: String,
    status: ExitStatus,
    stdout: String,
    stderr: String,
}

impl std::fmt::Display for Output {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "command: {}\nstatus: {}\n--- stdout\n{}\n--- stderr\n{}",
            self.what, self.status, self.stdout, self.stderr
        )
    }
}

/// Runs `cmd` in its own process group, killing the whole group after `timeout`.
fn run(cmd: &mut Command, timeout: Duration) -> Output {
    let what = format!("{cmd:?}");
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .env("NO_COLOR", "1")
        .process_group(0)
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {what}: {e}"));
    let stdout = reader(child.stdout.take());
    let stderr = reader(child.stderr.take());
    let deadline = Instant::now() + timeout;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            // Still running, so the group id is still ours.
            kill_group(&child);
            let _ = child.wait();
            panic!(
                "{what} did not finish within {timeout:?}\n--- stdout\n{}\n--- stderr\n{}",
                collect(&stdout),
                collect(&stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        what,
        status,
        stdout: collect(&stdout),
        stderr: collect(&stderr),
    }
}

/// Reads a pipe to its end on a thread; the text arrives on the channel.
fn reader(pipe: Option<impl Read + Send + 'static>) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(mut pipe) = pipe {
            let _ = pipe.read_to_end(&mut bytes);
        }
        let _ = tx.send(String::from_utf8_lossy(&bytes).into_owned());
    });
    rx
}

/// The text of a pipe; a leftover grandchild holding it open does not hang the test.
fn collect(rx: &mpsc::Receiver<String>) -> String {
    rx.recv_timeout(Duration::from_secs(10))
        .unwrap_or_else(|_| "(the pipe stayed open after the command exited)".to_owned())
}

fn kill_group(child: &Child) {
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{}", child.id())])
        .stderr(Stdio::null())
        .status();
}

/// The conformance checks in `dir`: asserts exactly `expected` SUCCESS checks and nothing but
/// SUCCESS or INFO (no FAILURE, WARNING or SKIPPED).
fn assert_checks(dir: &Path, expected: usize, out: &Output) {
    let files = find_files(dir, "checks.json");
    assert_eq!(
        files.len(),
        1,
        "expected one checks.json in {}\n{out}",
        dir.display()
    );
    let text = std::fs::read_to_string(&files[0]).unwrap();
    let checks: Vec<Value> = serde_json::from_str(&text).unwrap();
    let mut successes = 0;
    for check in &checks {
        match check["status"].as_str() {
            Some("SUCCESS") => successes += 1,
            Some("INFO") => {}
            _ => panic!("check did not pass: {check:#}\n{out}"),
        }
    }
    assert_eq!(successes, expected, "SUCCESS checks in {text}\n{out}");
}

fn find_files(dir: &Path, name: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if entry.file_name() == name {
                found.push(path);
            }
        }
    }
    found
}

/// A headless host offers no app views: `portfolio_review`, which asks in its view where the
/// host renders questions in views (SEP-3118), asks a plain form, answered from the answers
/// file, in both eras.
#[test]
fn headless_answers_the_portfolio_review_as_its_plain_form() {
    let Some(binary) = demo_binary() else { return };
    for version in ["2025-11-25", "2026-07-28"] {
        let scratch = scratch(&format!("demo-portfolio-{version}"));
        let demo = Demo::start(&binary, &scratch);
        let answers = scratch.join("answers.json");
        std::fs::write(
            &answers,
            br#"{"confirmed": true, "selectedManagerId": "m-bruno"}"#,
        )
        .unwrap();
        let out = run(
            Command::new(env!("CARGO_BIN_EXE_interlude"))
                .args([
                    "call",
                    &demo.url(),
                    "portfolio_review",
                    "--protocol-version",
                    version,
                ])
                .arg("--answers")
                .arg(&answers)
                // Log lines on stderr, which is a pipe here: plain text, no colour codes.
                .env("INTERLUDE_LOG", "info")
                .env_remove("NO_COLOR"),
            RUN_TIMEOUT,
        );
        assert!(out.status.success(), "({version}) {out}");
        assert!(out.stderr.contains("INFO"), "({version}) logs: {out}");
        assert!(
            !out.stderr.contains('\u{1b}'),
            "({version}) colour codes in a pipe: {out}"
        );
        let texts = result_texts(&out);
        assert!(
            texts.contains("Portfolio reassigned to m-bruno."),
            "({version}) {texts}"
        );
    }
}

/// `--args` that do not fit the tool's input schema: exit 2, one sentence per field on stderr,
/// and the call never sent (the trace has the handshake and no `tools/call`); the same
/// arguments fixed are called (the schema allows extra properties, as JSON Schema does unless
/// it says otherwise).
#[test]
fn invalid_arguments_exit_2_naming_each_field_and_send_nothing() {
    let Some(binary) = demo_binary() else { return };
    let scratch = scratch("demo-invalid-args");
    let cases: [(&[&str], &[&str]); 3] = [
        (
            &["--args", r#"{"message": 3, "mood": "fine"}"#],
            &[
                "interlude: --args: Message must be text.",
                "the call was not sent",
            ],
        ),
        (&[], &["interlude: --args: Enter message."]),
        (
            &["--args", r#"{"message": "hi""#],
            &[
                "interlude: --args: The arguments are not valid JSON: EOF while parsing an object at line 1, column 16.",
            ],
        ),
    ];
    for (i, (args, said)) in cases.into_iter().enumerate() {
        let trace = scratch.join(format!("trace-{i}.jsonl"));
        let out = run(
            Command::new(env!("CARGO_BIN_EXE_interlude"))
                .args(["call", binary.to_str().unwrap(), "test_elicitation"])
                .args(args)
                .arg("--auto-defaults")
                .arg("--trace")
                .arg(&trace),
            RUN_TIMEOUT,
        );
        assert_eq!(out.status.code(), Some(2), "{out}");
        for line in said {
            assert!(out.stderr.contains(line), "{line:?} not said: {out}");
        }
        assert!(out.stdout.is_empty(), "{out}");
        let methods: Vec<String> = std::fs::read_to_string(&trace)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter_map(|l| l["message"]["method"].as_str().map(str::to_owned))
            .collect();
        assert!(
            !methods.iter().any(|m| m == "tools/call"),
            "the call was sent: {methods:?}"
        );
    }
    // Fixed, the call goes out.
    let out = run(
        Command::new(env!("CARGO_BIN_EXE_interlude"))
            .args(["call", binary.to_str().unwrap(), "test_elicitation"])
            .args(["--args", r#"{"message": "hi"}"#, "--auto-defaults"]),
        RUN_TIMEOUT,
    );
    assert!(
        out.stdout.contains("\"content\""),
        "the call's result: {out}"
    );
    assert!(!out.stderr.contains("--args"), "{out}");
}

/// `--trace FILE`: every message of the run as JSON Lines, in order — for a 2025 call with one
/// elicitation the handshake, the call, the server's question, the answer and the result; for
/// 2026-07-28 both rounds of the call, the second carrying `inputResponses` and the
/// `requestState` of the first, echoed exactly.
#[test]
fn trace_writes_every_message_as_json_lines() {
    let Some(binary) = demo_binary() else { return };
    for version in ["2025-11-25", "2026-07-28"] {
        let scratch = scratch(&format!("demo-trace-{version}"));
        let demo = Demo::start(&binary, &scratch);
        let answers = scratch.join("answers.json");
        std::fs::write(&answers, br#"{"confirm": true}"#).unwrap();
        let trace = scratch.join("trace.jsonl");
        let out = run(
            Command::new(env!("CARGO_BIN_EXE_interlude"))
                .args([
                    "call",
                    &demo.url(),
                    "confirm_action",
                    "--protocol-version",
                    version,
                ])
                .arg("--answers")
                .arg(&answers)
                .arg("--trace")
                .arg(&trace)
                .env("NO_COLOR", "1"),
            RUN_TIMEOUT,
        );
        assert!(out.status.success(), "({version}) {out}");
        let lines: Vec<Value> = std::fs::read_to_string(&trace)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
            .collect();
        // The server is named as the page names it: its address (issue 36; it was `server`).
        let named = demo
            .url()
            .trim_start_matches("http://")
            .trim_end_matches("/mcp")
            .to_owned();
        for line in &lines {
            assert!(
                line["t_ms"].is_u64() && line["server"] == named.as_str(),
                "{line}"
            );
            assert!(line["dir"] == "send" || line["dir"] == "recv", "{line}");
        }
        // What each line is: (dir, method) for requests and notifications, (dir, "result of
        // <method>") for responses.
        let mut asked = std::collections::HashMap::new();
        let steps: Vec<(String, String)> = lines
            .iter()
            .map(|l| {
                let m = &l["message"];
                let dir = l["dir"].as_str().unwrap().to_owned();
                let what = match m["method"].as_str() {
                    Some(method) => {
                        if let Some(id) = m.get("id") {
                            asked.insert((dir.clone(), id.to_string()), method.to_owned());
                        }
                        method.to_owned()
                    }
                    None => {
                        let other = if dir == "send" { "recv" } else { "send" };
                        let method = asked
                            .get(&(other.to_owned(), m["id"].to_string()))
                            .cloned()
                            .unwrap_or_default();
                        format!("result of {method}")
                    }
                };
                (dir, what)
            })
            .collect();
        let wanted: Vec<(&str, &str)> = if version == "2025-11-25" {
            vec![
                ("send", "initialize"),
                ("recv", "result of initialize"),
                ("send", "tools/call"),
                ("recv", "elicitation/create"),
                ("send", "result of elicitation/create"),
                ("recv", "result of tools/call"),
            ]
        } else {
            vec![
                ("send", "tools/call"),
                ("recv", "result of tools/call"),
                ("send", "tools/call"),
                ("recv", "result of tools/call"),
            ]
        };
        let mut at = 0;
        for (dir, what) in &steps {
            if at < wanted.len() && wanted[at] == (dir.as_str(), what.as_str()) {
                at += 1;
            }
        }
        assert_eq!(
            at,
            wanted.len(),
            "({version}) in order: {wanted:?}\ngot {steps:?}"
        );
        if version == "2026-07-28" {
            let calls: Vec<&Value> = lines
                .iter()
                .map(|l| &l["message"])
                .filter(|m| m["method"] == "tools/call")
                .collect();
            let first_result = lines
                .iter()
                .map(|l| &l["message"])
                .find(|m| m["id"] == calls[0]["id"] && m.get("result").is_some())
                .unwrap();
            assert_eq!(
                first_result["result"]["resultType"], "input_required",
                "{first_result}"
            );
            let state = &first_result["result"]["requestState"];
            assert!(state.is_string(), "{first_result}");
            assert_eq!(&calls[1]["params"]["requestState"], state, "echoed exactly");
            assert!(
                calls[1]["params"]["inputResponses"].is_object(),
                "{}",
                calls[1]
            );
        }
    }
}

/// `interlude connect SERVER --trace FILE`: the page's session written as it happens — the
/// demo server (stdio, 2025-11-25) connected, one call made and its question answered through
/// the page's API, the host stopped with Ctrl-C (SIGINT) — every line
/// `{"t_ms", "server", "dir", "message"}`, the handshake, the call, the question, the answer and
/// the result in order.
#[test]
fn connect_trace_writes_the_session_as_json_lines() {
    let Some(binary) = demo_binary() else { return };
    let scratch = scratch("connect-trace");
    let trace = scratch.join("trace.jsonl");
    let mut child = Command::new(env!("CARGO_BIN_EXE_interlude"))
        .args(["connect", "--port", "0", "--no-open", "--protocol-version"])
        .arg("2025-11-25")
        .arg("--trace")
        .arg(&trace)
        .arg(&binary)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .env("NO_COLOR", "1")
        .process_group(0)
        .spawn()
        .unwrap();
    let stderr = reader(child.stderr.take());
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    std::io::BufRead::read_line(&mut stdout, &mut first).unwrap();
    let page = first
        .trim()
        .strip_prefix("Interlude is running at ")
        .unwrap_or_else(|| panic!("no address: {first:?}"));
    let (origin, token) = page.split_once("/?token=").unwrap();
    let api = |method: &str, path: &str, body: &Value| -> Value {
        let r = interlude_test_support::http1::exchange(
            method,
            &format!("{origin}{path}"),
            &[
                ("x-interlude-token", token),
                ("content-type", "application/json"),
            ],
            &body.to_string(),
        )
        .unwrap();
        assert!(r.status < 300, "{method} {path}: {} {}", r.status, r.body);
        serde_json::from_str(&r.body).unwrap_or(Value::Null)
    };
    let until = |what: &str, done: &dyn Fn(&Value) -> Option<Value>| -> Value {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let state = api("GET", "/api/state", &Value::Null);
            if let Some(found) = done(&state) {
                return found;
            }
            assert!(Instant::now() < deadline, "never {what}: {state:#}");
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    let server = until("ready", &|s| {
        let server = &s["servers"][0];
        (server["status"] == "ready").then(|| server["name"].clone())
    });
    let call = api(
        "POST",
        "/api/call",
        &json!({"server": server, "tool": "confirm_action"}),
    )["callId"]
        .clone();
    let request = until("asked", &|s| {
        s["requests"]
            .as_array()?
            .iter()
            .find(|r| r["call"] == call)
            .map(|r| r["id"].clone())
    });
    api(
        "POST",
        "/api/answer",
        &json!({"id": request, "action": "accept", "content": {"confirm": true}}),
    );
    until("done", &|s| {
        s["calls"]
            .as_array()?
            .iter()
            .find(|c| c["id"] == call && c["status"] == "done")
            .cloned()
    });
    Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            kill_group(&child);
            panic!("`interlude connect` did not stop on Ctrl-C");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "{status}: {}", collect(&stderr));

    let lines: Vec<Value> = std::fs::read_to_string(&trace)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    let mut last_t = 0;
    for line in &lines {
        let keys: Vec<&str> = line
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(keys, ["t_ms", "server", "dir", "message"], "{line}");
        let t = line["t_ms"].as_u64().unwrap();
        assert!(t >= last_t, "time goes forward: {line}");
        last_t = t;
        assert_eq!(line["server"], server, "{line}");
        assert!(line["dir"] == "send" || line["dir"] == "recv", "{line}");
        assert!(line["message"].is_object(), "{line}");
        assert_eq!(line["message"]["jsonrpc"], "2.0", "{line}");
    }
    // What each line is: (dir, method) for requests and notifications, (dir, "result of
    // <method>") for responses, found by id.
    let mut asked = std::collections::HashMap::new();
    let steps: Vec<(String, String)> = lines
        .iter()
        .map(|l| {
            let m = &l["message"];
            let dir = l["dir"].as_str().unwrap().to_owned();
            let what = match m["method"].as_str() {
                Some(method) => {
                    if let Some(id) = m.get("id") {
                        asked.insert((dir.clone(), id.to_string()), method.to_owned());
                    }
                    method.to_owned()
                }
                None => {
                    let other = if dir == "send" { "recv" } else { "send" };
                    let method = asked
                        .get(&(other.to_owned(), m["id"].to_string()))
                        .cloned()
                        .unwrap_or_default();
                    format!("result of {method}")
                }
            };
            (dir, what)
        })
        .collect();
    let wanted = [
        ("send", "initialize"),
        ("recv", "result of initialize"),
        ("send", "tools/call"),
        ("recv", "elicitation/create"),
        ("send", "result of elicitation/create"),
        ("recv", "result of tools/call"),
    ];
    let seen: Vec<(&str, &str)> = steps
        .iter()
        .map(|(d, w)| (d.as_str(), w.as_str()))
        .filter(|step| wanted.contains(step))
        .collect();
    assert_eq!(seen, wanted, "every step once, in order; all: {steps:?}");
    let sent = lines
        .iter()
        .find(|l| l["dir"] == "send" && l["message"]["result"]["action"] == "accept")
        .unwrap();
    assert_eq!(
        sent["message"]["result"]["content"],
        json!({"confirm": true})
    );
}

/// `interlude-demo --http 127.0.0.1:<port>`, killed on drop.
struct Demo {
    child: Child,
    port: u16,
    log: PathBuf,
}

impl Demo {
    fn start(binary: &Path, scratch: &Path) -> Demo {
        let log = scratch.join("demo.log");
        let mut last_error = String::new();
        // A free port can be taken between probing and binding: try a few.
        for _ in 0..5 {
            let port = TcpListener::bind("127.0.0.1:0")
                .and_then(|l| l.local_addr())
                .map(|a| a.port())
                .unwrap();
            let mut demo = Demo {
                child: Command::new(binary)
                    .args(["--http", &format!("127.0.0.1:{port}")])
                    .stdin(Stdio::null())
                    .stdout(Stdio::null())
                    .stderr(std::fs::File::create(&log).unwrap())
                    .spawn()
                    .unwrap_or_else(|e| panic!("cannot start {}: {e}", binary.display())),
                port,
                log: log.clone(),
            };
            let deadline = Instant::now() + Duration::from_secs(30);
            loop {
                if TcpStream::connect(("127.0.0.1", port)).is_ok() {
                    return demo;
                }
                if let Some(status) = demo.child.try_wait().unwrap() {
                    last_error = format!("exited with {status}: {}", demo.log_text());
                    break;
                }
                if Instant::now() > deadline {
                    panic!("interlude-demo did not listen on {port} within 30 s");
                }
                std::thread::sleep(Duration::from_millis(25));
            }
        }
        panic!("interlude-demo would not start: {last_error}");
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }

    fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Demo {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn conformance_server(scenario: &str, expected: usize) {
    let Some(peers) = Peers::locate() else { return };
    let Some(demo_binary) = demo_binary() else {
        return;
    };
    let scratch = scratch(&format!("server-{scenario}"));
    let demo = Demo::start(&demo_binary, &scratch);
    let results = scratch.join("results");
    let out = run(
        Command::new(peers.node())
            .arg(peers.conformance())
            .args(["server", "--url", &demo.url(), "--scenario", scenario, "-o"])
            .arg(&results),
        RUN_TIMEOUT,
    );
    assert!(
        out.status.success(),
        "conformance server scenario {scenario} failed\n{out}\n--- demo log\n{}",
        demo.log_text()
    );
    assert!(
        out.stdout
            .contains(&format!("Passed: {expected}/{expected}, 0 failed")),
        "{out}"
    );
    assert_checks(&results, expected, &out);
}

fn conformance_client(scenario: &str, expected: usize) {
    let Some(peers) = Peers::locate() else { return };
    if !loopback_namespace_works() {
        missing_peer::<()>("`unshare -n` cannot make a loopback-only network namespace");
        return;
    }
    let client = env!("CARGO_BIN_EXE_interlude-conformance-client");
    // The harness splits --command on spaces.
    assert!(
        !client.contains(' '),
        "the client path contains a space: {client}"
    );
    let scratch = scratch(&format!("client-{scenario}"));
    let results = scratch.join("results");
    let out = run(
        Command::new("unshare")
            .args(["-n", "sh", "-c", r#"ip link set lo up && exec "$@""#, "sh"])
            .arg(peers.node())
            .arg(peers.conformance())
            .args(["client", "--command", client, "--scenario", scenario, "-o"])
            .arg(&results),
        RUN_TIMEOUT,
    );
    assert!(
        out.status.success(),
        "conformance client scenario {scenario} failed\n{out}"
    );
    assert_checks(&results, expected, &out);
}

/// Whether this process may create a network namespace with only loopback (root, or a user
/// namespace).
fn loopback_namespace_works() -> bool {
    Command::new("unshare")
        .args(["-n", "sh", "-c", "ip link set lo up"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// `interlude call "<node> <server-everything> stdio" trigger-elicitation-request --answers F`.
fn interlude_call_everything(peers: &Peers, scratch: &Path, answers: &Value) -> Output {
    let file = scratch.join("answers.json");
    std::fs::write(&file, serde_json::to_vec_pretty(answers).unwrap()).unwrap();
    let server = format!(
        "{} {} stdio",
        shell_quote(peers.node()),
        shell_quote(&peers.server_everything())
    );
    run(
        Command::new(env!("CARGO_BIN_EXE_interlude"))
            .args(["call", &server, "trigger-elicitation-request", "--answers"])
            .arg(&file),
        RUN_TIMEOUT,
    )
}

fn shell_quote(path: &Path) -> String {
    let s = path.to_str().expect("peer paths are UTF-8");
    assert!(!s.contains('\''), "peer path contains a quote: {s}");
    format!("'{s}'")
}

/// The text contents of the tool result `interlude call` printed, joined by newlines.
fn result_texts(out: &Output) -> String {
    let result: Value = serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("stdout is not the JSON tool result ({e})\n{out}"));
    result["content"]
        .as_array()
        .unwrap_or_else(|| panic!("the result has no content\n{out}"))
        .iter()
        .filter_map(|c| c["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// server-everything's `Raw result: {…}` echo of the elicitation result.
fn raw_result(texts: &str) -> Value {
    let (_, raw) = texts
        .split_once("Raw result: ")
        .unwrap_or_else(|| panic!("no raw result in {texts}"));
    serde_json::from_str(raw).unwrap_or_else(|e| panic!("raw result is not JSON ({e}): {raw}"))
}

// ---------------------------------------------------------------------------------------------
// `connect --tui`: what a terminal cannot show goes to a page over the same host.

/// `interlude connect --tui` on the demo server (stdio, 2026-07-28) in tmux, with `$BROWSER` a
/// script that writes down each address it is given, and headless Chromium playing the browser
/// that would open it. A question asked in the server's app view (`portfolio_review`): the
/// person chooses the browser, the terminal starts the page and hands it over, the answer given
/// in the view reaches the server, and the terminal says so. Then a call whose result has an app
/// view (`weather_dashboard`): the terminal offers it, and the address it hands over shows it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_terminal_hands_app_views_and_their_questions_to_a_page() {
    use interlude_test_support::tmux::Tmux;
    const WAIT: Duration = Duration::from_secs(30);
    let Some(demo) = demo_binary() else { return };
    let dir = scratch("tui-handoff");
    let opened = dir.join("opened.txt");
    let opener = dir.join("open.sh");
    std::fs::write(
        &opener,
        format!("#!/bin/sh\necho \"$1\" >> '{}'\n", opened.display()),
    )
    .unwrap();
    std::fs::set_permissions(&opener, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let command = format!(
        "BROWSER='{}' '{}' connect --tui --port 0 '{}'; echo \"[interlude exited $?]\"; sleep 600",
        opener.display(),
        env!("CARGO_BIN_EXE_interlude"),
        demo.display()
    );
    let Some(tmux) = Tmux::start(&command) else {
        return;
    };
    let nth_address = |n: usize| {
        let deadline = Instant::now() + WAIT;
        loop {
            if let Ok(text) = std::fs::read_to_string(&opened)
                && let Some(line) = text.lines().nth(n - 1)
            {
                return line.to_owned();
            }
            assert!(
                Instant::now() < deadline,
                "no address handed over ({n}); the screen:\n{}",
                tmux.screen()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    tmux.wait_for("Call a tool:");
    tmux.type_text("portfolio_review");
    tmux.wait_for("> portfolio_review");
    tmux.press(&["Enter"]);
    // The view's start clock runs only once the page loads it (tested in the host's
    // `a_view_that_never_starts_gives_the_person_the_plain_form`).
    tmux.wait_for("Where do you answer?");
    tmux.press(&["Enter"]);
    let address = nth_address(1);
    assert!(
        address.starts_with("http://127.0.0.1:") && address.contains("token="),
        "{address}"
    );
    tmux.wait_for("Type f and Enter to answer here instead");

    let browser = interlude_test_support::Browser::start().await.unwrap();
    browser.client().goto(&address).await.unwrap();
    let frame = browser
        .wait_for("section.ask.question iframe.app-frame[src]", WAIT)
        .await
        .unwrap_or_else(|e| panic!("the page shows no question in a view: {e}"));
    browser.enter_app_view(frame, WAIT).await.unwrap();
    browser
        .wait_js("document.body.dataset.state === 'asked' || null", WAIT)
        .await
        .unwrap_or_else(|e| panic!("the view did not get the question: {e}"));
    browser
        .client()
        .execute(
            "document.querySelector('input[name=manager][value=\"m-bruno\"]').click(); \
             const c = document.getElementById('confirmed'); if (!c.checked) c.click(); \
             document.getElementById('confirm').click(); return true;",
            vec![],
        )
        .await
        .unwrap();
    browser.client().enter_parent_frame().await.unwrap();
    browser.client().enter_parent_frame().await.unwrap();
    tmux.wait_for("Answered in the browser.");
    tmux.wait_for("Portfolio reassigned to m-bruno.");

    // A call whose result has a view: offered, and handed over with its place on the page.
    tmux.wait_for_nth("Call a tool:", 2);
    tmux.type_text("weather_dashboard");
    tmux.wait_for("> weather_dashboard");
    tmux.press(&["Enter"]);
    // Its one argument, the city, is optional: left empty.
    tmux.wait_for("Arguments:");
    tmux.press(&["Enter"]);
    tmux.wait_for("Open it in the browser?");
    tmux.type_text("y");
    tmux.press(&["Enter"]);
    let address = nth_address(2);
    let view = address
        .rsplit_once("#view-")
        .map(|(_, id)| id.to_owned())
        .unwrap_or_else(|| panic!("the address names no view: {address}"));
    browser.client().goto(&address).await.unwrap();
    let frame = browser
        .wait_for(
            &format!("[data-view=\"{view}\"] iframe.app-frame[src]"),
            WAIT,
        )
        .await
        .unwrap_or_else(|e| panic!("the page does not frame view {view}: {e}"));
    browser.enter_app_view(frame, WAIT).await.unwrap();
    let text = browser
        .wait_js(
            "(document.body.innerText || '').includes('°') ? document.body.innerText : null",
            WAIT,
        )
        .await
        .unwrap_or_else(|e| panic!("the dashboard shows no forecast: {e}"));
    assert!(text.as_str().unwrap_or_default().contains('°'), "{text}");
    browser.client().enter_parent_frame().await.unwrap();
    browser.client().enter_parent_frame().await.unwrap();
    browser.screenshot("tui-handoff-dashboard").await.unwrap();
    browser.close().await;
    tmux.wait_for_nth("Call a tool:", 3);
    tmux.type_text("Quit");
    tmux.wait_for("> Quit");
    tmux.press(&["Enter"]);
    tmux.wait_for("[interlude exited 0]");
}

// ---------------------------------------------------------------------------------------------
// A server that ignores `server/discover`: only the first connection waits.

/// A stdio server that silently ignores requests it does not know makes negotiation wait 10 s
/// for `server/discover` before falling back to `initialize` (2025-11-25). The host remembers
/// what the server spoke (in the cache folder), so the next `interlude call` starts with
/// `initialize` and takes a fraction of a second.
#[test]
fn a_server_that_ignores_discover_makes_only_the_first_connection_wait() {
    let dir = scratch("eras");
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../demo/tests/test_data/scripted_server.py")
        .canonicalize()
        .unwrap();
    let server = format!("python3 {} silent", script.display());
    let run = |n: usize| {
        let trace = dir.join(format!("trace-{n}.jsonl"));
        let started = Instant::now();
        let out = Command::new(env!("CARGO_BIN_EXE_interlude"))
            .args(["call", &server, "ask", "--trace"])
            .arg(&trace)
            .env("XDG_CACHE_HOME", &dir)
            .output()
            .unwrap();
        let took = started.elapsed();
        assert!(
            out.status.success(),
            "call {n}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(String::from_utf8_lossy(&out.stdout).contains("silent answer"));
        let first: Value = serde_json::from_str(
            std::fs::read_to_string(&trace)
                .unwrap()
                .lines()
                .next()
                .unwrap(),
        )
        .unwrap();
        (took, first["message"].clone())
    };
    let (took, first) = run(1);
    assert_eq!(first["method"], "server/discover", "{first}");
    assert!(took >= Duration::from_secs(9), "the first waited: {took:?}");
    let remembered = std::fs::read_to_string(dir.join("interlude/eras.json")).unwrap();
    assert!(
        remembered.contains("2025-11-25") && remembered.contains("silent"),
        "{remembered}"
    );
    let (took, first) = run(2);
    assert_eq!(first["method"], "initialize", "{first}");
    assert_eq!(first["params"]["protocolVersion"], "2025-11-25", "{first}");
    assert!(
        took < Duration::from_secs(5),
        "the second did not wait: {took:?}"
    );
}

/// What the host refuses it says in one sentence of its own — which server, what and why —
/// never as rmcp's internals (`response error id=… error=ErrorData {…}`); and stderr that is
/// not a terminal gets no colour codes.
#[test]
fn a_refusal_is_one_plain_sentence() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../demo/tests/test_data/scripted_server.py")
        .canonicalize()
        .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_interlude"))
        .args([
            "call",
            &format!("python3 {} nested", script.display()),
            "ask",
            "--auto-defaults",
        ])
        .env_remove("INTERLUDE_LOG")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("refused a request of server \"scripted_server\" for the person")
            && stderr.contains("`address`")
            && stderr.contains("-32602"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("ErrorData") && !stderr.contains("rmcp::"),
        "{stderr}"
    );
    assert!(
        !stderr.contains('\u{1b}'),
        "colour codes in a pipe: {stderr:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// The User Interaction draft (seed 000), headless: `interlude call … --user-interaction`.

/// `interlude call` on the hand-written server of the draft: a prompt answered from the answers
/// file as a form is (`{"content": …}` goes back), a decline in the file is the draft's `-1`
/// (exit 1), a `ua` consented to by the file is printed, never opened, and answered `{}`; an
/// answers file that breaks the prompt's form cancels it (exit 2, the field named); without the
/// switch nothing is declared.
#[test]
fn call_answers_the_drafts_interactions_headless() {
    let dir = scratch("user-interaction");
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../demo/tests/test_data/interaction_server.py")
        .canonicalize()
        .unwrap();
    let server = format!("python3 {}", script.display());
    let call = |tool: &str, answers: Value, declare: bool| {
        let file = dir.join(format!("{tool}-answers.json"));
        std::fs::write(&file, serde_json::to_vec(&answers).unwrap()).unwrap();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_interlude"));
        cmd.args(["call", &server, tool, "--protocol-version", "2025-11-25"])
            .arg("--answers")
            .arg(&file)
            .args(["--url-wait", "5"])
            .env("XDG_CACHE_HOME", &dir)
            .env_remove("INTERLUDE_USER_INTERACTION");
        if declare {
            cmd.arg("--user-interaction");
        }
        run(&mut cmd, RUN_TIMEOUT)
    };
    let reply = |out: &Output| -> Value {
        serde_json::from_str(&result_texts(out))
            .unwrap_or_else(|e| panic!("the tool's text is not JSON ({e})\n{out}"))
    };

    let out = call(
        "prompt",
        json!({"name": "Monalisa", "email": "monalisa@example.com", "age": 30}),
        true,
    );
    assert!(out.status.success(), "{out}");
    assert_eq!(
        reply(&out),
        json!({"result": {"content": {"name": "Monalisa", "email": "monalisa@example.com", "age": 30}}}),
        "{out}"
    );

    let out = call("prompt", json!({"action": "decline"}), true);
    assert_eq!(out.status.code(), Some(1), "{out}");
    assert_eq!(reply(&out)["error"]["code"], -1, "{out}");

    let out = call(
        "prompt",
        json!({"name": "Monalisa", "email": "not-an-email"}),
        true,
    );
    assert_eq!(out.status.code(), Some(2), "{out}");
    assert!(out.stderr.contains("email"), "{out}");

    let out = call("ua", json!({"action": "accept"}), true);
    assert!(out.status.success(), "{out}");
    assert_eq!(reply(&out)["reply"], json!({"result": {}}), "{out}");
    assert!(
        out.stderr
            .contains("https://oauth.example.com/authorize?client_id=abc123"),
        "the consented link is printed: {out}"
    );

    let out = call("capabilities", json!({}), false);
    assert!(out.status.success(), "{out}");
    assert!(reply(&out).get("userInteraction").is_none(), "{out}");
}

/// `interlude call` with no answers file and no `--auto-defaults`: the request is not answered
/// (cancelled), and stderr says so and how to answer it, instead of exiting 1 in silence.
#[test]
fn a_call_without_answers_says_why_its_request_went_unanswered() {
    let Some(binary) = demo_binary() else { return };
    let out = run(
        Command::new(env!("CARGO_BIN_EXE_interlude")).args([
            "call",
            binary.to_str().unwrap(),
            "github_username",
        ]),
        RUN_TIMEOUT,
    );
    assert_eq!(out.status.code(), Some(1), "cancelled: exit 1\n{out}");
    assert!(
        out.stderr
            .contains("not answered: give --answers FILE or --auto-defaults"),
        "{out}"
    );
}

/// `interlude connect` takes `--dev-origin` as `call` does (a local http server under
/// development may send links to itself), and refuses a value that is no origin, naming it.
#[test]
fn connect_takes_dev_origins_and_names_a_bad_one() {
    let out = run(
        Command::new(env!("CARGO_BIN_EXE_interlude")).args([
            "connect",
            "--no-open",
            "--port",
            "0",
            "--dev-origin",
            "not an origin",
            "true",
        ]),
        RUN_TIMEOUT,
    );
    assert_eq!(out.status.code(), Some(2), "{out}");
    assert!(out.stderr.contains("--dev-origin not an origin"), "{out}");
}
