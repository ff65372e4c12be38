//! Tools that run as tasks (the Tasks extension, SEP-2663, with 2026-07-28), served by rmcp and
//! called by an rmcp client in this process over an in-memory pipe: the same handler is a task
//! for a client that declared the extension (its question becomes the task's `inputRequests`,
//! answered with `tasks/update`) and an ordinary call with an `input_required` round for one
//! that did not; `tasks/cancel` reaches the handler; a tool that only runs as a task is -32021
//! for a client without the extension. (The conformance suite's `tasks-*` scenarios check the
//! wire in detail, in `cargo xtask test`.)
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use interlude_server::task::{TaskOptions, TaskSupport};
use interlude_server::{Answer, Ask, AskConfig, AskServer, ToolResult, asking};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams, ClientCapabilities,
    ClientConfig, ContentBlock, ElicitationCapability, FormElicitationCapability, GetTaskParams,
    ProtocolVersion, ServerCapabilities, UpdateTaskParams,
};
use rmcp::service::{
    ClientLifecycleMode, ClientServiceExt, RequestContext, RoleServer, RunningService,
};
use rmcp::{ErrorData, ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use serde_json::{Value, json};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Approval {
    /// Deploy now?
    approve: bool,
}

#[derive(Clone)]
struct Server {
    ask: AskConfig,
    /// Set when the long job's handler is dropped (its task was cancelled).
    stopped: Arc<AtomicBool>,
    /// How many times the deploy handler started.
    runs: Arc<AtomicUsize>,
    /// Whether the server wires its tasks by hand (declares the extension, forwards
    /// `tasks/*`), as servers did before `TaskServer`.
    by_hand: bool,
}

impl AskServer for Server {
    fn ask_config(&self) -> &AskConfig {
        &self.ask
    }
}

/// Sets its flag when dropped.
struct Stopped(Arc<AtomicBool>);

impl Drop for Stopped {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

#[asking]
#[tool_router]
impl Server {
    #[tool(description = "Runs the checks, then asks for the approval to deploy.")]
    async fn deploy(&self, ask: Ask) -> ToolResult {
        let runs = self.runs.clone();
        ask.task(
            TaskSupport::Optional,
            TaskOptions::new(),
            |ask| async move {
                runs.fetch_add(1, Ordering::SeqCst);
                ask.status("Running the checks");
                let go = match ask
                    .key("approval")
                    .form::<Approval>("The checks passed. Deploy now?")
                    .await?
                {
                    Answer::Accepted(a) => a.approve,
                    Answer::Declined | Answer::Cancelled => false,
                };
                let said = if go { "Deployed." } else { "Not deployed." };
                Ok(CallToolResult::success(vec![ContentBlock::text(said)]))
            },
        )
        .await
    }

    #[tool(description = "Works until it is cancelled.")]
    async fn long_job(&self, ask: Ask) -> ToolResult {
        let stopped = self.stopped.clone();
        ask.task(TaskSupport::Optional, TaskOptions::new(), move |ask| {
            let guard = Stopped(stopped.clone());
            async move {
                let _guard = guard;
                ask.status("Working");
                std::future::pending::<()>().await;
                Ok(CallToolResult::success(vec![]))
            }
        })
        .await
    }

    #[tool(description = "Only runs as a task.")]
    async fn task_only(&self, ask: Ask) -> ToolResult {
        ask.task(TaskSupport::Required, TaskOptions::new(), |_| async {
            Ok(CallToolResult::success(vec![ContentBlock::text("done")]))
        })
        .await
    }
}

#[tool_handler]
impl ServerHandler for Server {
    fn get_info(&self) -> rmcp::model::ServerConfig {
        let capabilities = ServerCapabilities::builder().enable_tools();
        rmcp::model::ServerConfig::new(if self.by_hand {
            capabilities.enable_tasks().build()
        } else {
            capabilities.build()
        })
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::GetTaskResult, ErrorData> {
        let requestor = interlude_server::task::Requestor::of(&context);
        self.ask.tasks().get(&request, &requestor).await
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let requestor = interlude_server::task::Requestor::of(&context);
        self.ask.tasks().update(request, &requestor).await
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let requestor = interlude_server::task::Requestor::of(&context);
        self.ask.tasks().cancel(&request, &requestor).await
    }
}

/// A 2026-07-28 client that takes forms, and tasks when `tasks`.
async fn connect(server: Server, tasks: bool) -> RunningService<rmcp::RoleClient, ClientConfig> {
    connect_to(server, tasks).await
}

/// [`connect`] to any handler.
async fn connect_to<H: ServerHandler>(
    server: H,
    tasks: bool,
) -> RunningService<rmcp::RoleClient, ClientConfig> {
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let mut capabilities = if tasks {
        ClientCapabilities::builder().enable_tasks().build()
    } else {
        ClientCapabilities::default()
    };
    capabilities.elicitation =
        Some(ElicitationCapability::new().with_form(FormElicitationCapability::new()));
    let mut info = ClientConfig::default();
    info.capabilities = capabilities;
    info.serve_with_lifecycle(
        client_io,
        ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        },
    )
    .await
    .expect("client connects")
}

/// A server that wires its tasks by hand.
fn server() -> Server {
    Server {
        by_hand: true,
        ..unwired()
    }
}

/// A server that does not wire its tasks: neither the extension nor `tasks/*`.
fn unwired() -> Server {
    Server {
        ask: AskConfig::new(),
        stopped: Arc::default(),
        runs: Arc::default(),
        by_hand: false,
    }
}

/// Polls `tasks/get` until the task's status is `status` (at most ten seconds); its JSON.
async fn until_status(
    client: &RunningService<rmcp::RoleClient, ClientConfig>,
    task: &str,
    status: &str,
) -> Value {
    for _ in 0..1000 {
        let got = client
            .peer()
            .get_task(GetTaskParams::new(task))
            .await
            .unwrap();
        let got = serde_json::to_value(got).unwrap();
        if got["status"] == status {
            return got;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("task {task} never became {status}");
}

#[tokio::test]
async fn a_task_asks_through_its_input_requests_and_ends_with_the_result() {
    let server = server();
    let runs = server.runs.clone();
    let client = connect(server, true).await;
    let created = client
        .peer()
        .call_tool_once(CallToolRequestParams::new("deploy"))
        .await
        .unwrap();
    let CallToolResponse::Task(created) = created else {
        panic!("a client that takes tasks gets a task: {created:?}");
    };
    let id = created.task.task_id.clone();
    let waiting = until_status(&client, &id, "input_required").await;
    assert_eq!(waiting["statusMessage"], "Running the checks", "{waiting}");
    let asked = &waiting["inputRequests"]["approval"];
    assert_eq!(asked["method"], "elicitation/create", "{waiting}");
    assert_eq!(asked["params"]["message"], "The checks passed. Deploy now?");

    let mut answers = std::collections::BTreeMap::new();
    answers.insert(
        "approval".to_owned(),
        json!({"action": "accept", "content": {"approve": true}}),
    );
    client
        .peer()
        .update_task(UpdateTaskParams::new(&id, answers))
        .await
        .unwrap();
    let done = until_status(&client, &id, "completed").await;
    assert_eq!(done["result"]["content"][0]["text"], "Deployed.", "{done}");
    assert_eq!(
        runs.load(Ordering::SeqCst),
        1,
        "the handler ran once, waiting where it asked"
    );
}

#[tokio::test]
async fn without_the_extension_the_same_handler_asks_in_an_ordinary_round() {
    let client = connect(server(), false).await;
    let first = client
        .peer()
        .call_tool_once(CallToolRequestParams::new("deploy"))
        .await
        .unwrap();
    let CallToolResponse::InputRequired(round) = first else {
        panic!("no task for a client without the extension: {first:?}");
    };
    assert!(
        round
            .input_requests
            .as_ref()
            .unwrap()
            .contains_key("approval")
    );
    let mut params = CallToolRequestParams::new("deploy");
    params.input_responses = Some(
        [(
            "approval".to_owned(),
            json!({"action": "accept", "content": {"approve": false}}),
        )]
        .into_iter()
        .collect(),
    );
    params.request_state = round.request_state;
    let CallToolResponse::Complete(result) = client.peer().call_tool_once(params).await.unwrap()
    else {
        panic!("the retry completes");
    };
    assert_eq!(
        result.content[0].as_text().map(|t| t.text.as_str()),
        Some("Not deployed.")
    );
}

#[tokio::test]
async fn cancelling_a_task_stops_its_handler() {
    let server = server();
    let stopped = server.stopped.clone();
    let client = connect(server, true).await;
    let CallToolResponse::Task(created) = client
        .peer()
        .call_tool_once(CallToolRequestParams::new("long_job"))
        .await
        .unwrap()
    else {
        panic!("a task");
    };
    let id = created.task.task_id.clone();
    let working = until_status(&client, &id, "working").await;
    assert!(!stopped.load(Ordering::SeqCst), "{working}");
    client
        .peer()
        .cancel_task(CancelTaskParams::new(&id))
        .await
        .unwrap();
    until_status(&client, &id, "cancelled").await;
    assert!(stopped.load(Ordering::SeqCst), "the handler was stopped");
}

#[tokio::test]
async fn a_tool_that_only_runs_as_a_task_names_the_extension_to_a_client_without_it() {
    let client = connect(server(), false).await;
    let refused = client
        .peer()
        .call_tool_once(CallToolRequestParams::new("task_only"))
        .await
        .unwrap_err();
    let rmcp::ServiceError::McpError(e) = refused else {
        panic!("an error reply: {refused:?}");
    };
    assert_eq!(e.code.0, -32021);
    assert_eq!(
        e.data.unwrap()["requiredCapabilities"],
        json!({"extensions": {"io.modelcontextprotocol/tasks": {}}})
    );
}

/// A server that did not wire its tasks (no extension declared, no `tasks/*` handlers): its task
/// tool runs as an ordinary call even for a client that takes tasks — never a task nobody can
/// poll.
#[tokio::test]
async fn a_server_that_does_not_serve_tasks_runs_a_task_tool_as_an_ordinary_call() {
    let server = unwired();
    let runs = server.runs.clone();
    let client = connect(server, true).await;
    let first = client
        .peer()
        .call_tool_once(CallToolRequestParams::new("deploy"))
        .await
        .unwrap();
    let CallToolResponse::InputRequired(round) = first else {
        panic!("an ordinary input_required round, not a task: {first:?}");
    };
    let mut params = CallToolRequestParams::new("deploy");
    params.input_responses = Some(
        [(
            "approval".to_owned(),
            json!({"action": "accept", "content": {"approve": true}}),
        )]
        .into_iter()
        .collect(),
    );
    params.request_state = round.request_state;
    let done = client.peer().call_tool_once(params).await.unwrap();
    let CallToolResponse::Complete(result) = done else {
        panic!("the retry completes as a plain result: {done:?}");
    };
    assert_eq!(
        result.content[0].as_text().map(|t| t.text.as_str()),
        Some("Deployed.")
    );
    // A tool that works without asking completes in one call.
    let quick = client
        .peer()
        .call_tool_once(CallToolRequestParams::new("task_only"))
        .await
        .unwrap();
    assert!(
        matches!(quick, CallToolResponse::Complete(_)),
        "a plain result: {quick:?}"
    );
    assert_eq!(
        runs.load(Ordering::SeqCst),
        2,
        "the handler ran in each round"
    );
}

/// `TaskServer` is all the wiring a server needs for the extension: the capability, and
/// `tasks/get`, `tasks/update`, `tasks/cancel` from the server's tasks.
#[tokio::test]
async fn task_server_wires_the_extension_for_a_server_that_did_nothing_else() {
    use interlude_server::task::TaskServer;
    let served = TaskServer::new(unwired()).tool("deploy", TaskSupport::Optional);
    let client = connect_to(served, true).await;
    let created = client
        .peer()
        .call_tool_once(CallToolRequestParams::new("deploy"))
        .await
        .unwrap();
    let CallToolResponse::Task(created) = created else {
        panic!("a task: {created:?}");
    };
    let id = created.task.task_id.clone();
    until_status(&client, &id, "input_required").await;
    let answers = [(
        "approval".to_owned(),
        json!({"action": "accept", "content": {"approve": true}}),
    )]
    .into_iter()
    .collect();
    client
        .peer()
        .update_task(UpdateTaskParams::new(&id, answers))
        .await
        .unwrap();
    let done = until_status(&client, &id, "completed").await;
    assert_eq!(done["result"]["content"][0]["text"], "Deployed.", "{done}");

    let CallToolResponse::Task(long) = client
        .peer()
        .call_tool_once(CallToolRequestParams::new("long_job"))
        .await
        .unwrap()
    else {
        panic!("a task");
    };
    client
        .peer()
        .cancel_task(CancelTaskParams::new(&long.task.task_id))
        .await
        .unwrap();
    until_status(&client, &long.task.task_id, "cancelled").await;
}

/// With a store (`AskConfig::with_task_store`, here an SQLite file), a restart loses no ended
/// task: a server started afresh on the same file answers `tasks/get` for a task the first one
/// completed with its result, and for one the first was still running (waiting for its
/// approval) with `failed`, saying why — not "unknown task".
#[tokio::test]
async fn a_stored_task_outlives_its_server() {
    let path = std::env::temp_dir().join(format!(
        "interlude-tasks-{}-{}.sqlite",
        std::process::id(),
        line!()
    ));
    let remove = |path: &std::path::Path| {
        for suffix in ["", "-wal", "-shm", ".key"] {
            let mut p = path.to_owned().into_os_string();
            p.push(suffix);
            let _ = std::fs::remove_file(p);
        }
    };
    remove(&path);
    let stored = |path: &std::path::Path| -> Server {
        let store: Arc<dyn interlude_server::url::FlowStore> =
            Arc::new(interlude_server::url::SqliteStore::open(path).unwrap());
        Server {
            ask: AskConfig::new().with_task_store(store),
            ..server()
        }
    };
    let before = connect(stored(&path), true).await;
    let start = |client: &RunningService<rmcp::RoleClient, ClientConfig>| {
        let peer = client.peer().clone();
        async move {
            match peer
                .call_tool_once(CallToolRequestParams::new("deploy"))
                .await
                .unwrap()
            {
                CallToolResponse::Task(created) => created.task.task_id,
                other => panic!("a task: {other:?}"),
            }
        }
    };
    let done = start(&before).await;
    until_status(&before, &done, "input_required").await;
    let answers = [(
        "approval".to_owned(),
        json!({"action": "accept", "content": {"approve": true}}),
    )]
    .into_iter()
    .collect();
    before
        .peer()
        .update_task(UpdateTaskParams::new(&done, answers))
        .await
        .unwrap();
    until_status(&before, &done, "completed").await;
    let waiting = start(&before).await;
    until_status(&before, &waiting, "input_required").await;
    drop(before);

    let after = connect(stored(&path), true).await;
    let got = serde_json::to_value(
        after
            .peer()
            .get_task(GetTaskParams::new(&done))
            .await
            .unwrap(),
    )
    .unwrap();
    assert_eq!(got["status"], "completed", "{got}");
    assert_eq!(got["result"]["content"][0]["text"], "Deployed.", "{got}");
    let lost = serde_json::to_value(
        after
            .peer()
            .get_task(GetTaskParams::new(&waiting))
            .await
            .unwrap(),
    )
    .unwrap();
    assert_eq!(lost["status"], "failed", "{lost}");
    let said = lost["error"]["message"].as_str().unwrap_or_default();
    assert!(
        said.contains("the server stopped while this task was running"),
        "{lost}"
    );
    // Late answers and a cancel are acknowledged and change nothing.
    after
        .peer()
        .update_task(UpdateTaskParams::new(
            &waiting,
            [("approval".to_owned(), json!({"action": "decline"}))]
                .into_iter()
                .collect(),
        ))
        .await
        .unwrap();
    after
        .peer()
        .cancel_task(CancelTaskParams::new(&waiting))
        .await
        .unwrap();
    let again = serde_json::to_value(
        after
            .peer()
            .get_task(GetTaskParams::new(&waiting))
            .await
            .unwrap(),
    )
    .unwrap();
    assert_eq!(again["status"], "failed", "{again}");
    let unknown = after
        .peer()
        .get_task(GetTaskParams::new("no-such-task"))
        .await
        .unwrap_err();
    let rmcp::ServiceError::McpError(e) = unknown else {
        panic!("an error reply: {unknown:?}");
    };
    assert_eq!(e.code.0, -32602);
    drop(after);
    remove(&path);
}

/// With 2026-07-28 a request stands alone (no session, no `initialize`) and the toolkit has no
/// sign-in on MCP requests yet: a task is bound to nobody, and its id is the only capability
/// (`docs/security.md`). So, as documented, another client that has the id reaches it; the
/// binding to a signed-in principal is `Requestor::with_principal`'s, tested in the crate.
#[tokio::test]
async fn with_2026_07_28_and_no_sign_in_the_id_is_the_capability() {
    let shared = server();
    let first = connect(shared.clone(), true).await;
    let second = connect(shared, true).await;
    let created = first
        .peer()
        .call_tool_once(CallToolRequestParams::new("deploy"))
        .await
        .unwrap();
    let CallToolResponse::Task(created) = created else {
        panic!("a task: {created:?}");
    };
    let id = created.task.task_id;
    assert_eq!(
        uuid_version(&id),
        Some('4'),
        "an unguessable id (UUID v4): {id}"
    );
    until_status(&second, &id, "input_required").await;
}

/// The version digit of a UUID in its text form.
fn uuid_version(id: &str) -> Option<char> {
    let groups: Vec<&str> = id.split('-').collect();
    (groups.len() == 5
        && groups
            .iter()
            .all(|g| g.chars().all(|c| c.is_ascii_hexdigit())))
    .then(|| groups[2].chars().next())
    .flatten()
}

/// The 2025-11-25 experimental tasks, on the wire: a raw JSON-RPC client over a pipe to the
/// same server, served as a toolkit server is (`checked_lines`, `checked`, `TaskServer`).
mod legacy {
    use super::*;
    use interlude_server::task::TaskServer;
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    struct Raw {
        write: tokio::io::WriteHalf<tokio::io::DuplexStream>,
        lines: tokio::io::Lines<BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>,
        next_id: i64,
        /// The server's `initialize` response.
        init: Value,
    }

    impl Raw {
        async fn send(&mut self, message: Value) {
            let mut line = serde_json::to_vec(&message).unwrap();
            line.push(b'\n');
            self.write.write_all(&line).await.unwrap();
        }

        /// The next message from the server (ten seconds at most).
        async fn next(&mut self) -> Value {
            let line = tokio::time::timeout(Duration::from_secs(10), self.lines.next_line())
                .await
                .expect("the server said something in time")
                .unwrap()
                .expect("the pipe is open");
            serde_json::from_str(&line).unwrap()
        }

        /// Sends request `method` and returns its response (notifications in between skipped).
        async fn request(&mut self, method: &str, params: Value) -> Value {
            self.next_id += 1;
            let id = self.next_id;
            self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
                .await;
            loop {
                let message = self.next().await;
                if message["id"] == id && message.get("method").is_none() {
                    return message;
                }
                assert!(
                    message.get("id").is_none() || message.get("method").is_none(),
                    "an unexpected response: {message}"
                );
                assert!(
                    message.get("method").is_some_and(|m| m
                        .as_str()
                        .is_some_and(|m| m.starts_with("notifications/"))),
                    "an unexpected request while waiting for {method}: {message}"
                );
            }
        }

        /// Calls `tool` as a task (`params.task`) and returns the task's id.
        async fn start_task(&mut self, tool: &str) -> String {
            let created = self
                .request(
                    "tools/call",
                    json!({"name": tool, "arguments": {}, "task": {}}),
                )
                .await;
            created["result"]["task"]["taskId"]
                .as_str()
                .unwrap_or_else(|| panic!("no task in {created}"))
                .to_owned()
        }

        async fn status(&mut self, task: &str, status: &str) -> Value {
            for _ in 0..500 {
                let got = self.request("tasks/get", json!({"taskId": task})).await;
                if got["result"]["status"] == status {
                    return got["result"].clone();
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            panic!("task {task} never became {status}");
        }
    }

    async fn connect() -> (Raw, Arc<AtomicUsize>) {
        let server = server();
        let runs = server.runs.clone();
        let served = TaskServer::new(server)
            .tool("deploy", TaskSupport::Optional)
            .tool("long_job", TaskSupport::Optional)
            .tool("task_only", TaskSupport::Required);
        let raw = connect_to(served).await;
        (raw, runs)
    }

    /// A raw 2025-11-25 client of `served`, on the toolkit's checked transport, initialized.
    async fn connect_to<H: ServerHandler>(served: H) -> Raw {
        let (server_io, client_io) = tokio::io::duplex(64 * 1024);
        let (read, write) = tokio::io::split(server_io);
        let transport = rmcp::transport::async_rw::AsyncRwTransport::new_server(
            interlude_server::checked_lines(read),
            write,
        );
        tokio::spawn(async move {
            if let Ok(running) = served.serve(interlude_server::checked(transport)).await {
                let _ = running.waiting().await;
            }
        });
        let (read, write) = tokio::io::split(client_io);
        let mut raw = Raw {
            write,
            lines: BufReader::new(read).lines(),
            next_id: 0,
            init: Value::Null,
        };
        let init = raw
            .request(
                "initialize",
                json!({"protocolVersion": "2025-11-25",
                    "capabilities": {"elicitation": {"form": {}}},
                    "clientInfo": {"name": "raw", "version": "1"}}),
            )
            .await;
        assert_eq!(init["result"]["protocolVersion"], "2025-11-25", "{init}");
        raw.init = init;
        raw.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        raw
    }

    #[tokio::test]
    async fn a_task_server_says_so_in_2025_11_25_terms() {
        let (raw, _) = connect().await;
        assert_eq!(
            raw.init["result"]["capabilities"]["tasks"],
            json!({"cancel": {}, "requests": {"tools": {"call": {}}}}),
            "a server with tasks says so in 2025-11-25's terms: {}",
            raw.init
        );
    }

    /// A server not served through `TaskServer`: a call that asks for a task (`params.task`)
    /// runs as an ordinary call — its question pushed as usual, its result a plain one, never
    /// `{task}` nor `resultType: "task"` — and the server declares no tasks.
    #[tokio::test]
    async fn without_task_server_a_task_call_is_an_ordinary_call() {
        let mut raw = connect_to(unwired()).await;
        assert!(
            raw.init["result"]["capabilities"].get("tasks").is_none(),
            "{}",
            raw.init
        );
        raw.send(json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
            "params": {"name": "deploy", "arguments": {}, "task": {}}}))
            .await;
        let asked = raw.next().await;
        assert_eq!(asked["method"], "elicitation/create", "{asked}");
        raw.send(json!({"jsonrpc": "2.0", "id": asked["id"], "result":
            {"action": "accept", "content": {"approve": true}}}))
            .await;
        let result = raw.next().await;
        assert_eq!(result["id"], 7, "{result}");
        assert_eq!(
            result["result"]["content"][0]["text"], "Deployed.",
            "{result}"
        );
        assert!(result["result"].get("task").is_none(), "{result}");
        assert!(result["result"].get("resultType").is_none(), "{result}");
    }

    #[tokio::test]
    async fn tools_that_run_as_tasks_are_listed_with_their_execution() {
        let (mut raw, _) = connect().await;
        let listed = raw.request("tools/list", json!({})).await;
        let support = |name: &str| {
            listed["result"]["tools"]
                .as_array()
                .unwrap()
                .iter()
                .find(|t| t["name"] == name)
                .map(|t| t["execution"]["taskSupport"].clone())
                .unwrap()
        };
        assert_eq!(support("deploy"), "optional", "{listed}");
        assert_eq!(support("task_only"), "required", "{listed}");
        let refused = raw
            .request("tools/call", json!({"name": "task_only", "arguments": {}}))
            .await;
        assert_eq!(refused["error"]["code"], -32601, "{refused}");
        let said = refused["error"]["message"].as_str().unwrap();
        assert!(said.contains("requires task augmentation"), "{refused}");
    }

    /// The same handler as the extension's test: a task whose question is pushed on
    /// `tasks/result`, tied to the task, and whose result comes back there.
    #[tokio::test]
    async fn a_task_asks_on_tasks_result_and_ends_with_the_result() {
        let (mut raw, runs) = connect().await;
        let created = raw
            .request(
                "tools/call",
                json!({"name": "deploy", "arguments": {}, "task": {"ttl": 60000}}),
            )
            .await;
        let task = &created["result"]["task"];
        let id = task["taskId"].as_str().unwrap().to_owned();
        assert_eq!(task["status"], "working", "{created}");
        assert!(
            task["ttl"].is_u64() && task.get("ttlMs").is_none(),
            "{created}"
        );
        assert!(task["pollInterval"].is_u64(), "{created}");
        let waiting = raw.status(&id, "input_required").await;
        assert_eq!(waiting["statusMessage"], "Running the checks", "{waiting}");
        assert!(waiting.get("inputRequests").is_none(), "{waiting}");

        raw.send(
            json!({"jsonrpc": "2.0", "id": 100, "method": "tasks/result",
            "params": {"taskId": id}}),
        )
        .await;
        let asked = raw.next().await;
        assert_eq!(asked["method"], "elicitation/create", "{asked}");
        assert_eq!(asked["params"]["message"], "The checks passed. Deploy now?");
        assert_eq!(
            asked["params"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
            id.as_str(),
            "{asked}"
        );
        raw.send(json!({"jsonrpc": "2.0", "id": asked["id"], "result":
            {"action": "accept", "content": {"approve": true}}}))
            .await;
        let result = raw.next().await;
        assert_eq!(result["id"], 100, "{result}");
        assert_eq!(
            result["result"]["content"][0]["text"], "Deployed.",
            "{result}"
        );
        assert_eq!(
            result["result"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
            id.as_str()
        );
        // A 2025-11-25 result, as a plain `tools/call` gives it: `resultType` is 2026-07-28's.
        assert!(
            result["result"].get("resultType").is_none(),
            "no 2026-07-28 field on a 2025-11-25 result: {result}"
        );
        let done = raw.status(&id, "completed").await;
        assert!(done.get("result").is_none(), "{done}");
        assert_eq!(runs.load(Ordering::SeqCst), 1, "the handler ran once");
    }

    #[tokio::test]
    async fn without_params_task_the_same_tool_is_an_ordinary_call() {
        let (mut raw, _) = connect().await;
        raw.send(json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
            "params": {"name": "deploy", "arguments": {}}}))
            .await;
        let asked = raw.next().await;
        assert_eq!(asked["method"], "elicitation/create", "{asked}");
        assert!(
            asked["params"]["_meta"]
                .get("io.modelcontextprotocol/related-task")
                .is_none(),
            "{asked}"
        );
        raw.send(json!({"jsonrpc": "2.0", "id": asked["id"], "result":
            {"action": "accept", "content": {"approve": false}}}))
            .await;
        let result = raw.next().await;
        assert_eq!(
            result["result"]["content"][0]["text"], "Not deployed.",
            "{result}"
        );
        assert!(result["result"].get("resultType").is_none(), "{result}");
    }

    /// A task cancelled while its question, pushed on `tasks/result`, waits for the person:
    /// the question is taken back (`notifications/cancelled` naming it), `tasks/result` ends
    /// with the task's end, and the task says `cancelled`.
    #[tokio::test]
    async fn a_task_cancelled_while_it_asks_takes_its_question_back() {
        let (mut raw, _) = connect().await;
        let id = raw.start_task("deploy").await;
        raw.status(&id, "input_required").await;
        raw.send(
            json!({"jsonrpc": "2.0", "id": 100, "method": "tasks/result",
            "params": {"taskId": id}}),
        )
        .await;
        let asked = raw.next().await;
        assert_eq!(asked["method"], "elicitation/create", "{asked}");
        raw.send(
            json!({"jsonrpc": "2.0", "id": 101, "method": "tasks/cancel",
            "params": {"taskId": id}}),
        )
        .await;
        let (mut taken_back, mut result, mut cancelled) = (None, None, None);
        while taken_back.is_none() || result.is_none() || cancelled.is_none() {
            let message = raw.next().await;
            if message["method"] == "notifications/cancelled" {
                taken_back = Some(message);
            } else if message["id"] == 100 {
                result = Some(message);
            } else if message["id"] == 101 {
                cancelled = Some(message);
            }
        }
        let taken_back = taken_back.unwrap();
        assert_eq!(
            taken_back["params"]["requestId"], asked["id"],
            "{taken_back}"
        );
        assert_eq!(cancelled.unwrap()["result"]["status"], "cancelled");
        let result = result.unwrap();
        let said = result["error"]["message"].as_str().unwrap_or_default();
        assert!(said.contains("cancelled"), "{result}");
    }

    /// Two connections (two stdio clients, say) to servers sharing one `AskConfig`: each
    /// connection is a requestor of its own, and the other's task is an unknown id to it.
    #[tokio::test]
    async fn another_connection_cannot_reach_a_2025_11_25_task() {
        let shared = server();
        let wired = |server: Server| TaskServer::new(server).tool("deploy", TaskSupport::Optional);
        let mut first = connect_to(wired(shared.clone())).await;
        let mut second = connect_to(wired(shared)).await;
        let id = first.start_task("deploy").await;
        first.status(&id, "input_required").await;
        for method in ["tasks/get", "tasks/cancel", "tasks/result"] {
            let answer = second.request(method, json!({"taskId": id})).await;
            assert_eq!(answer["error"]["code"], -32602, "{method}: {answer}");
            assert_eq!(
                answer["error"]["message"],
                format!("unknown task: {id}"),
                "{method}: {answer}"
            );
        }
        first.status(&id, "input_required").await;
        // No listing, for anyone (the specification advises against it without sign-in).
        for raw in [&mut first, &mut second] {
            let listed = raw.request("tasks/list", json!({})).await;
            assert_eq!(listed["error"]["code"], -32601, "{listed}");
        }
    }

    #[tokio::test]
    async fn cancelling_a_task_stops_it_and_an_ended_one_cannot_be() {
        let (mut raw, _) = connect().await;
        let id = raw.start_task("long_job").await;
        raw.status(&id, "working").await;
        let cancelled = raw.request("tasks/cancel", json!({"taskId": id})).await;
        assert_eq!(cancelled["result"]["status"], "cancelled", "{cancelled}");
        let again = raw.request("tasks/cancel", json!({"taskId": id})).await;
        assert_eq!(again["error"]["code"], -32602, "{again}");
        let unknown = raw.request("tasks/get", json!({"taskId": "nope"})).await;
        assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    }
}

/// Tasks are bound to their requestor (issue 34): over streamable HTTP, a 2025-11-25 task
/// answers only the session that created it. A second session that knows its id gets exactly
/// what an unknown id gets from `tasks/get`, `tasks/cancel` and `tasks/result` (never the
/// first session's question), and the task goes on to end with the first session's answer.
mod bound {
    use super::*;
    use interlude_server::task::TaskServer;
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService,
    };
    use std::io::{BufRead, BufReader, Write};

    /// The test server over streamable HTTP on 127.0.0.1, wired as a toolkit server is
    /// (`TaskServer`, `checked_http`), one `AskConfig` for all sessions: its endpoint.
    async fn serve() -> String {
        let ask = AskConfig::new();
        let service = StreamableHttpService::new(
            move || {
                Ok(TaskServer::new(Server {
                    ask: ask.clone(),
                    ..unwired()
                })
                .tool("deploy", TaskSupport::Optional))
            },
            LocalSessionManager::default().into(),
            StreamableHttpServerConfig::default(),
        );
        let router = axum::Router::new()
            .nest_service("/mcp", service)
            .layer(axum::middleware::from_fn(interlude_server::checked_http));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/mcp", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, router).await });
        url
    }

    /// A POST to `url` in `session` (if any); the open response, read as it comes.
    fn post(url: &str, session: Option<&str>, body: &Value) -> BufReader<std::net::TcpStream> {
        let rest = url.strip_prefix("http://").unwrap();
        let (authority, path) = rest.split_at(rest.find('/').unwrap());
        let mut stream = std::net::TcpStream::connect(authority).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(3)))
            .unwrap();
        let body = body.to_string();
        let mut request = format!(
            "POST {path} HTTP/1.0\r\nhost: {authority}\r\ncontent-type: application/json\r\n\
             accept: application/json, text/event-stream\r\n\
             mcp-protocol-version: 2025-11-25\r\ncontent-length: {}\r\n",
            body.len()
        );
        if let Some(session) = session {
            request.push_str(&format!("mcp-session-id: {session}\r\n"));
        }
        request.push_str("\r\n");
        request.push_str(&body);
        stream.write_all(request.as_bytes()).unwrap();
        BufReader::new(stream)
    }

    /// The head of a response (its status line and headers).
    fn head(response: &mut BufReader<std::net::TcpStream>) -> String {
        let mut head = String::new();
        loop {
            let mut line = String::new();
            response.read_line(&mut line).unwrap();
            if line.trim().is_empty() {
                return head;
            }
            head.push_str(&line);
        }
    }

    /// The next JSON-RPC message of a response's body (an SSE event's data, or the JSON body);
    /// None once it ended, or said nothing for three seconds.
    fn next(response: &mut BufReader<std::net::TcpStream>) -> Option<Value> {
        loop {
            let mut line = String::new();
            match response.read_line(&mut line) {
                Ok(0) | Err(_) => return None,
                Ok(_) => {}
            }
            let data = line.strip_prefix("data:").unwrap_or(&line).trim();
            if let Ok(message) = serde_json::from_str::<Value>(data)
                && message.is_object()
            {
                return Some(message);
            }
        }
    }

    /// Sends `method` in `session`; its response (what came before it, skipped).
    fn request(url: &str, session: &str, id: i64, method: &str, params: Value) -> Value {
        let mut response = post(
            url,
            Some(session),
            &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
        );
        head(&mut response);
        while let Some(message) = next(&mut response) {
            if message["id"] == id && message.get("method").is_none() {
                return message;
            }
        }
        panic!("no response to {method}");
    }

    /// A new 2025-11-25 session: its id.
    fn session(url: &str) -> String {
        let mut response = post(
            url,
            None,
            &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params":
                {"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {"form": {}}},
                 "clientInfo": {"name": "raw", "version": "1"}}}),
        );
        let started = head(&mut response);
        let session = started
            .lines()
            .find_map(|l| {
                let (name, value) = l.split_once(':')?;
                name.eq_ignore_ascii_case("mcp-session-id")
                    .then(|| value.trim().to_owned())
            })
            .unwrap_or_else(|| panic!("no session in {started}"));
        next(&mut response).expect("initialize answered");
        let mut initialized = post(
            url,
            Some(&session),
            &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        );
        head(&mut initialized);
        session
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn another_session_cannot_reach_a_2025_11_25_task() {
        let url = serve().await;
        tokio::task::spawn_blocking(move || {
            let first = session(&url);
            let second = session(&url);
            let created = request(
                &url,
                &first,
                2,
                "tools/call",
                json!({"name": "deploy", "arguments": {}, "task": {}}),
            );
            let id = created["result"]["task"]["taskId"]
                .as_str()
                .unwrap_or_else(|| panic!("no task in {created}"))
                .to_owned();
            for _ in 0..300 {
                let got = request(&url, &first, 3, "tasks/get", json!({"taskId": id}));
                if got["result"]["status"] == "input_required" {
                    break;
                }
                std::thread::sleep(Duration::from_millis(10));
            }

            // What an id that never was gets, with its id in place of the other's.
            let never = "00000000-0000-4000-8000-000000000000";
            let unknown = |method: &str| {
                let mut said =
                    request(&url, &second, 9, method, json!({"taskId": never}))["error"].clone();
                if let Some(message) = said["message"].as_str() {
                    said["message"] = Value::from(message.replace(never, &id));
                }
                said
            };
            for method in ["tasks/get", "tasks/cancel", "tasks/result"] {
                let answer = request(&url, &second, 4, method, json!({"taskId": id}));
                assert_eq!(answer["error"]["code"], -32602, "{method}: {answer}");
                assert_eq!(
                    answer["error"],
                    unknown(method),
                    "{method} of another session's task is an unknown id's"
                );
                assert!(
                    !answer.to_string().contains("Deploy now?"),
                    "{method}: {answer}"
                );
            }

            // The first session's task is untouched: still waiting, and its question comes
            // on its own `tasks/result`, whose answer ends it.
            let got = request(&url, &first, 5, "tasks/get", json!({"taskId": id}));
            assert_eq!(got["result"]["status"], "input_required", "{got}");
            let mut result = post(
                &url,
                Some(&first),
                &json!({"jsonrpc": "2.0", "id": 6, "method": "tasks/result",
                    "params": {"taskId": id}}),
            );
            head(&mut result);
            let asked = next(&mut result).expect("the question, on tasks/result");
            assert_eq!(asked["method"], "elicitation/create", "{asked}");
            assert_eq!(asked["params"]["message"], "The checks passed. Deploy now?");
            let mut answered = post(
                &url,
                Some(&first),
                &json!({"jsonrpc": "2.0", "id": asked["id"], "result":
                    {"action": "accept", "content": {"approve": true}}}),
            );
            let answered = head(&mut answered);
            assert!(
                answered.starts_with("HTTP/1.0 202") || answered.starts_with("HTTP/1.1 202"),
                "{answered}"
            );
            let ended = loop {
                let message = next(&mut result).expect("the task's result");
                if message["id"] == 6 {
                    break message;
                }
            };
            assert_eq!(
                ended["result"]["content"][0]["text"], "Deployed.",
                "{ended}"
            );
            let got = request(&url, &first, 7, "tasks/get", json!({"taskId": id}));
            assert_eq!(got["result"]["status"], "completed", "{got}");
        })
        .await
        .unwrap();
    }
}
