//! URL flows end to end, SQLite against in memory: flows started and completed per second with
//! 1 000 other flows pending, and the memory each pending flow costs.
//!
//! One flow is what a person's flow costs the server: a 2026-07-28 `tools/call` that starts it
//! (`input_required` with the link), the page's `POST` with the key (over HTTP on 127.0.0.1, the
//! signed cookie of the flow's user), and the retried call that finds it complete. The client is
//! an rmcp client in this process over an in-process pipe; the pages are the toolkit's axum
//! router. Both stores run the same code, so the ratio is what durability costs.
//!
//! `cargo bench -p interlude-server --bench url_flows [-- --flows N --pending P --reps R]`
// A bench reports by printing, and fails by panicking.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::print_stdout
)]

use std::sync::Arc;
use std::time::Instant;

use interlude_server::url::{
    Flow, FlowKind, FlowStore, LocalUser, MemoryStore, SignedCookie, SqliteStore, UrlFlows, UserId,
};
use interlude_server::{Answer, Ask, AskConfig, respond};
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResponse, CallToolResult, ClientCapabilities,
    ClientConfig, ClientRequest, ContentBlock, ElicitationCapability, ErrorData,
    FormElicitationCapability, ProtocolVersion, ServerCapabilities, ServerConfig, ServerResult,
    UrlElicitationCapability,
};
use rmcp::service::{
    ClientLifecycleMode, ClientServiceExt as _, Peer, RequestContext, RoleClient, RoleServer,
};
use rmcp::{ClientHandler, ServerHandler, ServiceExt};
use serde_json::{Value, json};

const KEY: [u8; 32] = [4u8; 32];

#[derive(Clone)]
struct Server {
    ask: AskConfig,
    flows: UrlFlows,
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::default();
        info.capabilities = ServerCapabilities::builder().enable_tools().build();
        info
    }

    async fn call_tool(
        &self,
        params: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let ask = Ask::new(&self.ask, &params, context);
        let kind = FlowKind::api_key("bench", "Bench key");
        respond(
            async {
                Ok(match self.flows.run(&ask, &kind, "Enter the key").await? {
                    Answer::Accepted(_) => CallToolResult::success(vec![ContentBlock::text("ok")]),
                    _ => CallToolResult::success(vec![ContentBlock::text("no")]),
                })
            }
            .await,
        )
    }
}

#[derive(Clone)]
struct Client;

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        capabilities.elicitation = Some(
            ElicitationCapability::new()
                .with_form(FormElicitationCapability::new())
                .with_url(UrlElicitationCapability::new()),
        );
        let mut info = ClientConfig::default();
        info.protocol_version = ProtocolVersion::V_2026_07_28;
        info.capabilities = capabilities;
        info
    }
}

struct Rig {
    peer: Peer<RoleClient>,
    _client: rmcp::service::RunningService<RoleClient, Client>,
    origin: String,
    cookie: String,
    http: reqwest::Client,
}

async fn rig(store: Arc<dyn FlowStore>) -> Rig {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    let cookie = SignedCookie::new("bench_user", KEY).unwrap();
    let flows = UrlFlows::new(
        store,
        &format!("{origin}/flows"),
        LocalUser::new(UserId::new("ada"), cookie.clone()),
    );
    let app = axum::Router::new().nest("/flows", flows.router());
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    let server = Server {
        ask: AskConfig::with_key([9u8; 32]).unwrap(),
        flows,
    };
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_end).await {
            let _ = running.waiting().await;
        }
    });
    let client = Client
        .serve_with_lifecycle(
            client_end,
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .unwrap();
    let _ = rustls::crypto::ring::default_provider().install_default();
    Rig {
        peer: client.peer().clone(),
        _client: client,
        origin,
        cookie: cookie.header_value(&UserId::new("ada")),
        http: reqwest::Client::new(),
    }
}

async fn call(
    peer: &Peer<RoleClient>,
    responses: Option<Value>,
    state: Option<String>,
) -> ServerResult {
    let mut params = CallToolRequestParams::new("key");
    params.input_responses = responses.map(|r| serde_json::from_value(r).unwrap());
    params.request_state = state;
    peer.send_request(ClientRequest::CallToolRequest(CallToolRequest::new(params)))
        .await
        .unwrap()
}

/// One flow, start to finish.
async fn one_flow(rig: &Rig) {
    let ServerResult::InputRequiredResult(ir) = call(&rig.peer, None, None).await else {
        panic!("expected input_required");
    };
    let requests = serde_json::to_value(&ir.input_requests).unwrap();
    let (key, request) = requests.as_object().unwrap().iter().next().unwrap();
    let url = request["params"]["url"].as_str().unwrap();
    // The page first: its form carries the token the post must send back.
    let page = rig
        .http
        .get(url)
        .header("cookie", &rig.cookie)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let token = page
        .split_once("name=\"token\" value=\"")
        .and_then(|(_, rest)| rest.split_once('"'))
        .map(|(token, _)| token.to_owned())
        .unwrap();
    let response = rig
        .http
        .post(url)
        .header("cookie", &rig.cookie)
        .header("origin", &rig.origin)
        .header("content-type", "application/x-www-form-urlencoded")
        .body(format!("secret=sk-bench-0123456789&token={token}"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let done = call(
        &rig.peer,
        Some(json!({ key.clone(): {"action": "accept"} })),
        ir.request_state.clone(),
    )
    .await;
    assert!(matches!(done, ServerResult::CallToolResult(_)), "{done:?}");
}

/// CPU time this process has used so far, in nanoseconds, over all its threads (Linux's
/// `schedstat`: nanosecond-precise, unlike `utime`'s clock ticks).
fn cpu_ns() -> u64 {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return 0;
    };
    tasks
        .filter_map(|task| std::fs::read_to_string(task.ok()?.path().join("schedstat")).ok())
        .filter_map(|stat| stat.split_whitespace().next()?.parse::<u64>().ok())
        .sum()
}

/// Over `flows` flows, `concurrency` at a time: flows per second, and CPU µs per flow (client,
/// server and store together, all in this process).
async fn measure(rig: &Arc<Rig>, flows: usize, concurrency: usize) -> (f64, f64) {
    one_flow(rig).await;
    let next = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let cpu = cpu_ns();
    let start = Instant::now();
    let workers: Vec<_> = (0..concurrency)
        .map(|_| {
            let rig = rig.clone();
            let next = next.clone();
            tokio::spawn(async move {
                while next.fetch_add(1, std::sync::atomic::Ordering::Relaxed) < flows {
                    one_flow(&rig).await;
                }
            })
        })
        .collect();
    for w in workers {
        w.await.unwrap();
    }
    let rate = flows as f64 / start.elapsed().as_secs_f64();
    (
        rate,
        cpu_ns().saturating_sub(cpu) as f64 / 1_000.0 / flows as f64,
    )
}

async fn pending(store: &dyn FlowStore, count: usize) {
    let now = u64::try_from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis(),
    )
    .unwrap();
    // In batches of 64 calls made together: quick to set up, and little memory in flight (the
    // memory per pending flow is measured around this).
    let flow = |i: usize| {
        let mut flow = Flow::new(
            UserId::new(format!("user-{i}")),
            "api_key:bench",
            now,
            3_600_000,
        );
        flow.data = json!({"label": "Bench key"});
        flow
    };
    for start in (0..count).step_by(64) {
        let flows: Vec<Flow> = (start..count.min(start + 64)).map(flow).collect();
        for inserted in futures::future::join_all(flows.iter().map(|f| store.insert_flow(f))).await
        {
            inserted.unwrap();
        }
    }
}

/// Resident memory of this process, in KiB (Linux).
fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn arg(name: &str, default: usize) -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let flows = arg("--flows", 1000);
    let pending_flows = arg("--pending", 1000);
    let reps = arg("--reps", 5);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let dir = std::env::temp_dir().join(format!("interlude-bench-flows-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    println!(
        "url_flows: {flows} flows per run (start call, page POST, retried call), {pending_flows} other flows pending, {reps} runs"
    );
    let mut results = Vec::new();
    for (name, concurrency) in [("sequential", 1usize), ("32 at a time", 32)] {
        let (mut memory, mut sqlite) = (Vec::new(), Vec::new());
        let (mut memory_cpu, mut sqlite_cpu) = (Vec::new(), Vec::new());
        for rep in 0..reps {
            let mem: Arc<dyn FlowStore> = Arc::new(MemoryStore::default());
            runtime.block_on(pending(&*mem, pending_flows));
            let r = Arc::new(runtime.block_on(rig(mem)));
            let (rate, cpu) = runtime.block_on(measure(&r, flows, concurrency));
            memory.push(rate);
            memory_cpu.push(cpu);
            let path = dir.join(format!("flows-{concurrency}-{rep}.sqlite"));
            let sql: Arc<dyn FlowStore> = Arc::new(SqliteStore::open(&path).unwrap());
            runtime.block_on(pending(&*sql, pending_flows));
            let r = Arc::new(runtime.block_on(rig(sql)));
            let (rate, cpu) = runtime.block_on(measure(&r, flows, concurrency));
            sqlite.push(rate);
            sqlite_cpu.push(cpu);
        }
        let (m, s) = (median(memory.clone()), median(sqlite.clone()));
        let (mc, sc) = (median(memory_cpu), median(sqlite_cpu));
        println!(
            "url_flows: {name}: in memory {m:.0} flows/s {memory:.0?}, SQLite {s:.0} flows/s {sqlite:.0?}; SQLite costs {:.2}× the in-memory path (target < 2×)",
            m / s
        );
        println!(
            "url_flows: {name}: CPU per flow: in memory {mc:.0} µs, SQLite {sc:.0} µs ({:.2}×)",
            sc / mc
        );
        results.push(m / s);
    }
    // Memory per pending flow: the growth of this process's resident set while 10 000 flows
    // are pending in each store (the SQLite file's pages live in the OS cache, not here).
    for (name, store) in [
        (
            "in memory",
            Arc::new(MemoryStore::default()) as Arc<dyn FlowStore>,
        ),
        (
            "SQLite",
            Arc::new(SqliteStore::open(dir.join("memory.sqlite")).unwrap()) as Arc<dyn FlowStore>,
        ),
    ] {
        let before = rss_kib();
        runtime.block_on(pending(&*store, 10_000));
        let after = rss_kib();
        println!(
            "url_flows: memory per pending flow, {name}: {:.2} KiB (10 000 pending)",
            (after.saturating_sub(before)) as f64 / 10_000.0
        );
        drop(store);
    }
    let _ = std::fs::remove_dir_all(&dir);
    let worst = results.iter().copied().fold(0.0, f64::max);
    println!(
        "url_flows: target SQLite < 2× in memory: {}",
        if worst < 2.0 { "met" } else { "NOT met" }
    );
}
