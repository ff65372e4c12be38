//! Memory of a server holding many people's answers open: the resident memory a stdio server
//! grows by per pending push-era elicitation (2025-11-25), for Interlude's demo server, a bare
//! rmcp server and the TypeScript SDK 1.32.2's server, all driven by the same client.
//!
//! ```text
//! cargo bench -p interlude-cli --bench memory
//! cargo bench -p interlude-cli --bench memory -- --calls 10000 --reps 5
//! cargo bench -p interlude-cli --bench memory -- --impl interlude,rmcp --calls 1000
//! cargo bench -p interlude-cli --bench memory -- --demo target/release/interlude-demo
//! ```
//!
//! The client is `xtask/peers/bench/memory-client.mjs` (TypeScript SDK 1.32.2 over stdio, on the
//! Node 22 of `cargo xtask peers`): it spawns the server, makes one answered warm-up call of
//! `contact_info`, reads the server's VmRSS from `/proc/<pid>/status`, opens N concurrent calls,
//! answers none of their `elicitation/create` requests until all N have arrived, reads VmRSS
//! again, then answers all N and checks every result. Reported: KiB per pending elicitation =
//! (VmRSS at N pending − VmRSS before) / N, the median over the repetitions, and how many calls
//! did not complete once answered (must be 0).
//!
//! Servers, each as shipped, on stdio:
//! - `interlude`: the demo server, `interlude_demo::serve_stdio()` as the `interlude` binary's
//!   `__demo-server` runs it (the binary `interlude demo` launches; `interlude-demo` runs the same
//!   function; `--demo PATH` measures such a binary instead);
//! - `rmcp`: a bare rmcp 3.11.0 server with the same tool written by hand (`call_tool`,
//!   `peer.create_elicitation` with the same schema), on `rmcp::transport::stdio()`;
//! - `rmcp-reactor-stdio`: the same server on `interlude_server::stdio()`, the transport the demo
//!   uses (like for like);
//! - `ts`: `xtask/peers/bench/memory-server.mjs`, `McpServer.registerTool` + `elicitInput`.
//!
//! The bench binary re-executes itself as the bare rmcp server (`--serve <role>`: the TS SDK's
//! stdio client passes only a default set of environment variables to the server it spawns).
//! Node and the npm peers are found as the real-peer tests find them (`INTERLUDE_NODE`,
//! `INTERLUDE_NPM_PEERS`, else `.peers/`); the two scripts are copied next to the peers'
//! `node_modules` so that their imports resolve. The TS server's `elicitInput` keeps its default
//! 60 s timeout: a run answers everything well before that.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::{Child, Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, anyhow, bail, ensure};
use interlude_test_support::NpmPeers;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ElicitRequestParams,
    ElicitationAction, ElicitationSchema, Implementation, ListToolsResult, PaginatedRequestParams,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler, ServiceExt};
use serde_json::{Value, json};

/// The first argument when the bench binary runs as a server: `--serve <role>`.
const SERVE_FLAG: &str = "--serve";
/// Longest a single run may take before it counts as hung.
const RUN_TIMEOUT: Duration = Duration::from_secs(600);
const MESSAGE: &str = "Please provide your contact information";

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1).peekable();
    if args.next_if(|a| a == SERVE_FLAG).is_some() {
        let role = args.next().unwrap_or_default();
        return match serve_role(&role) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("bench server ({role}): {e:#}");
                ExitCode::FAILURE
            }
        };
    }
    match Options::parse(args).and_then(run_bench) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench: {e:#}");
            ExitCode::FAILURE
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The bare rmcp server (a child process).
// ---------------------------------------------------------------------------------------------

/// `contact_info` written directly on rmcp: one `peer.create_elicitation` with the demo's schema
/// (parsed once, cloned into each request as an rmcp server would), no validation of the answer
/// beyond reading it.
#[derive(Clone)]
struct RmcpServer {
    schema: ElicitationSchema,
}

impl RmcpServer {
    fn new() -> anyhow::Result<Self> {
        // The demo's `ContactInfo` form, as it travels.
        let schema = serde_json::from_value(json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "Your full name", "minLength": 1},
                "email": {"type": "string", "description": "Your email address", "format": "email"},
                "age": {"type": "integer", "description": "Your age (you must be 18 or older)",
                        "minimum": 18, "maximum": 150}
            },
            "required": ["name", "email", "age"]
        }))?;
        Ok(RmcpServer { schema })
    }
}

impl ServerHandler for RmcpServer {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(ServerCapabilities::builder().enable_tools().build());
        info.server_info = Implementation::new("rmcp-memory-server", env!("CARGO_PKG_VERSION"));
        info
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let schema = json!({"type": "object", "properties": {}});
        let Value::Object(schema) = schema else {
            return Err(ErrorData::internal_error("input schema", None));
        };
        Ok(ListToolsResult::with_all_items(vec![Tool::new(
            "contact_info",
            "Ask for contact information: name, e-mail address and age (18 or older).",
            schema,
        )]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if request.name != "contact_info" {
            return Err(ErrorData::invalid_params("unknown tool", None));
        }
        let answer = context
            .peer
            .create_elicitation(ElicitRequestParams::FormElicitationParams {
                meta: None,
                message: MESSAGE.to_owned(),
                requested_schema: self.schema.clone(),
            })
            .await
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let text = match (&answer.action, &answer.content) {
            (ElicitationAction::Accept, Some(c)) => format!(
                "Thanks {} ({}, age {}).",
                c.get("name").and_then(Value::as_str).unwrap_or(""),
                c.get("email").and_then(Value::as_str).unwrap_or(""),
                c.get("age").and_then(Value::as_u64).unwrap_or(0),
            ),
            (ElicitationAction::Decline, _) => "The user declined.".to_owned(),
            _ => "The user cancelled.".to_owned(),
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into())
    }
}

fn serve_role(role: &str) -> anyhow::Result<()> {
    // What `#[tokio::main]` builds, as the demo binary does.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let server = RmcpServer::new()?;
        let service = match role {
            "rmcp-server" => server.serve(rmcp::transport::stdio()).await?,
            "rmcp-server-reactor-stdio" => server.serve(interlude_server::stdio()).await?,
            _ => bail!("unknown role `{role}`"),
        };
        service.waiting().await?;
        Ok(())
    })
}

// ---------------------------------------------------------------------------------------------
// What is measured.
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Imp {
    Interlude,
    Rmcp,
    RmcpReactorStdio,
    Ts,
}

const ALL_IMPS: [Imp; 4] = [Imp::Interlude, Imp::Rmcp, Imp::RmcpReactorStdio, Imp::Ts];

impl Imp {
    fn name(self) -> &'static str {
        match self {
            Imp::Interlude => "interlude",
            Imp::Rmcp => "rmcp",
            Imp::RmcpReactorStdio => "rmcp-reactor-stdio",
            Imp::Ts => "ts",
        }
    }

    /// The row heading.
    fn label(self) -> &'static str {
        match self {
            Imp::Interlude => "Interlude demo server",
            Imp::Rmcp => "bare rmcp 3.11.0",
            Imp::RmcpReactorStdio => "bare rmcp on Interlude's stdio",
            Imp::Ts => "TS SDK 1.32.2",
        }
    }
}

#[derive(Debug)]
struct Options {
    calls: Vec<usize>,
    reps: usize,
    imps: Vec<Imp>,
    demo: Option<PathBuf>,
    settle_ms: u64,
}

const USAGE: &str = "usage: cargo bench -p interlude-cli --bench memory -- [--calls N[,N…]] [--reps R] \
[--impl interlude,rmcp,rmcp-reactor-stdio,ts] [--demo PATH] [--settle-ms MS]";

impl Options {
    fn parse(args: impl Iterator<Item = String>) -> anyhow::Result<Self> {
        let mut o = Options {
            calls: vec![1000, 10_000],
            reps: 3,
            imps: ALL_IMPS.to_vec(),
            demo: None,
            settle_ms: 500,
        };
        let mut args = args.peekable();
        while let Some(arg) = args.next() {
            let mut value = || {
                args.next()
                    .ok_or_else(|| anyhow!("{arg} needs a value\n{USAGE}"))
            };
            match arg.as_str() {
                // `cargo bench` passes `--bench` to every bench target.
                "--bench" => {}
                "--calls" => {
                    o.calls = value()?
                        .split(',')
                        .map(|c| c.parse().context("--calls"))
                        .collect::<anyhow::Result<_>>()?;
                }
                "--reps" => o.reps = value()?.parse().context("--reps")?,
                "--impl" => {
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
                // The client runs in another folder: make the path absolute.
                "--demo" => o.demo = Some(std::path::absolute(value()?).context("--demo")?),
                "--settle-ms" => o.settle_ms = value()?.parse().context("--settle-ms")?,
                "--help" | "-h" => {
                    println!("{USAGE}");
                    std::process::exit(0);
                }
                other => bail!("unknown argument `{other}`\n{USAGE}"),
            }
        }
        ensure!(
            o.reps > 0 && !o.calls.is_empty() && o.calls.iter().all(|&n| n > 0),
            "--calls and --reps must be positive"
        );
        Ok(o)
    }
}

/// What the client reports for one run.
#[derive(Debug, Clone, serde::Deserialize)]
struct Run {
    calls: usize,
    pending: usize,
    lost: usize,
    protocol: Option<String>,
    rss_before_kib: f64,
    rss_pending_kib: f64,
    rss_after_kib: f64,
    seconds_to_pending: f64,
    seconds_to_answer: f64,
}

impl Run {
    fn kib_per_pending(&self) -> f64 {
        (self.rss_pending_kib - self.rss_before_kib) / self.calls as f64
    }
}

// ---------------------------------------------------------------------------------------------
// The driver.
// ---------------------------------------------------------------------------------------------

/// Node, the folder the client scripts run from, and how to start each server.
struct Setup {
    node: PathBuf,
    scripts: PathBuf,
    exe: PathBuf,
    demo: (PathBuf, Vec<String>),
}

impl Setup {
    fn new(options: &Options) -> anyhow::Result<Self> {
        let peers = NpmPeers::locate(&["@modelcontextprotocol/sdk/package.json"]).ok_or_else(
            || anyhow!("Node 22 and @modelcontextprotocol/sdk 1.32.2 are needed (run `cargo xtask peers`)"),
        )?;
        let manifest: Value = serde_json::from_str(&std::fs::read_to_string(
            peers.package_file("@modelcontextprotocol/sdk/package.json"),
        )?)?;
        let version = manifest.get("version").and_then(Value::as_str);
        ensure!(
            version == Some("1.32.2"),
            "@modelcontextprotocol/sdk is {version:?}, the bench wants 1.32.2"
        );
        // ESM resolves packages from the importing file's folder: run the scripts from next to
        // the peers' `node_modules`.
        let scripts = peers.npm.join("bench");
        std::fs::create_dir_all(&scripts)?;
        let source = interlude_test_support::workspace_root().join("xtask/peers/bench");
        for script in ["memory-client.mjs", "memory-server.mjs"] {
            std::fs::copy(source.join(script), scripts.join(script))
                .with_context(|| format!("copying {script}"))?;
        }
        let demo = match &options.demo {
            Some(path) => (path.clone(), Vec::new()),
            None => (
                PathBuf::from(env!("CARGO_BIN_EXE_interlude")),
                vec!["__demo-server".to_owned()],
            ),
        };
        Ok(Setup {
            node: peers.node,
            scripts,
            exe: std::env::current_exe().context("cannot find the bench executable")?,
            demo,
        })
    }

    /// The server's command line, as the client spawns it.
    fn server(&self, imp: Imp) -> (PathBuf, Vec<String>) {
        let serve = |role: &str| vec![SERVE_FLAG.to_owned(), role.to_owned()];
        match imp {
            Imp::Interlude => self.demo.clone(),
            Imp::Rmcp => (self.exe.clone(), serve("rmcp-server")),
            Imp::RmcpReactorStdio => (self.exe.clone(), serve("rmcp-server-reactor-stdio")),
            Imp::Ts => (self.node.clone(), vec!["memory-server.mjs".to_owned()]),
        }
    }

    fn run(&self, imp: Imp, calls: usize, settle_ms: u64) -> anyhow::Result<Run> {
        let (program, args) = self.server(imp);
        let mut client = Command::new(&self.node);
        client
            .current_dir(&self.scripts)
            // The client's stdio transport waits for `drain` once per blocked write; Node warns
            // about the number of listeners.
            .arg("--no-warnings")
            .arg("memory-client.mjs")
            .args(["--calls", &calls.to_string()])
            .args(["--settle-ms", &settle_ms.to_string()])
            .arg("--stdio")
            .arg(program)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        let mut child = ChildGuard(client.spawn().context("cannot start the client")?);
        let deadline = Instant::now() + RUN_TIMEOUT;
        let status = loop {
            if let Some(status) = child.0.try_wait()? {
                break status;
            }
            ensure!(
                Instant::now() < deadline,
                "run timed out after {RUN_TIMEOUT:?}"
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        let mut out = String::new();
        if let Some(mut stdout) = child.0.stdout.take() {
            std::io::Read::read_to_string(&mut stdout, &mut out)?;
        }
        ensure!(status.success(), "client failed ({status}): {out}");
        let line = out
            .lines()
            .last()
            .ok_or_else(|| anyhow!("the client printed nothing"))?;
        let run: Run = serde_json::from_str(line).context("client output")?;
        ensure!(
            run.protocol.as_deref() == Some("2025-11-25"),
            "negotiated {:?}",
            run.protocol
        );
        ensure!(
            run.pending == calls,
            "only {} of {calls} elicitations arrived",
            run.pending
        );
        Ok(run)
    }
}

/// A child process that is killed when dropped (also while unwinding from a panic).
struct ChildGuard(Child);

impl Drop for ChildGuard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn run_bench(options: Options) -> anyhow::Result<()> {
    let setup = Setup::new(&options)?;
    let runs = options.calls.len() * options.imps.len() * options.reps;
    eprintln!(
        "bench: N = {:?}, {} repetitions, {runs} runs; {} CPUs; demo server: {} {}",
        options.calls,
        options.reps,
        std::thread::available_parallelism().map_or(0, usize::from),
        setup.demo.0.display(),
        setup.demo.1.join(" "),
    );
    let started = Instant::now();
    let mut results: HashMap<(usize, Imp), Vec<Run>> = HashMap::new();
    let mut done = 0;
    for rep in 0..options.reps {
        for &calls in &options.calls {
            // Alternate: each repetition starts with a different implementation.
            let mut order = options.imps.clone();
            let turn = rep % order.len();
            order.rotate_left(turn);
            for imp in order {
                done += 1;
                let run = setup
                    .run(imp, calls, options.settle_ms)
                    .with_context(|| format!("N = {calls}, {}", imp.name()))?;
                eprintln!(
                    "[{done:>2}/{runs}] rep {} N={calls:<6} {:<18} {:>6.2} KiB/pending \
                     (RSS {:.1} → {:.1} → {:.1} MiB; {:.1} s to pending, {:.1} s to answer; {} lost)",
                    rep + 1,
                    imp.name(),
                    run.kib_per_pending(),
                    run.rss_before_kib / 1024.0,
                    run.rss_pending_kib / 1024.0,
                    run.rss_after_kib / 1024.0,
                    run.seconds_to_pending,
                    run.seconds_to_answer,
                    run.lost,
                );
                results.entry((calls, imp)).or_default().push(run);
            }
        }
    }
    eprintln!("bench: done in {:.0} s", started.elapsed().as_secs_f64());
    report(&options, &results)
}

fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let mid = v.len() / 2;
    let at = |i: usize| v.get(i).copied().unwrap_or(f64::NAN);
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 0 => (at(mid - 1) + at(mid)) / 2.0,
        _ => at(mid),
    }
}

fn report(options: &Options, results: &HashMap<(usize, Imp), Vec<Run>>) -> anyhow::Result<()> {
    println!();
    println!(
        "KiB of server RSS per pending elicitation = (VmRSS at N pending − VmRSS before) / N, \
         median of {} runs; then all N answered",
        options.reps
    );
    println!();
    println!(
        "| server | N | KiB per pending | / TS SDK | RSS before (MiB) | RSS at N pending (MiB) | RSS after answers (MiB) | lost |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    let kib = |calls: usize, imp: Imp| {
        results
            .get(&(calls, imp))
            .map(|runs| median(&runs.iter().map(Run::kib_per_pending).collect::<Vec<_>>()))
    };
    let mut lost_total = 0;
    for &calls in &options.calls {
        for &imp in &options.imps {
            let Some(runs) = results.get(&(calls, imp)) else {
                continue;
            };
            let med = |f: fn(&Run) -> f64| median(&runs.iter().map(f).collect::<Vec<_>>());
            let lost: usize = runs.iter().map(|r| r.lost).sum();
            lost_total += lost;
            let vs_ts = match (kib(calls, imp), kib(calls, Imp::Ts)) {
                (Some(a), Some(b)) if b > 0.0 => format!("{:.2}×", a / b),
                _ => "—".to_owned(),
            };
            println!(
                "| {} | {calls} | {:.2} | {vs_ts} | {:.1} | {:.1} | {:.1} | {lost} |",
                imp.label(),
                med(Run::kib_per_pending),
                med(|r| r.rss_before_kib) / 1024.0,
                med(|r| r.rss_pending_kib) / 1024.0,
                med(|r| r.rss_after_kib) / 1024.0,
            );
        }
    }
    println!();
    println!("Every run (KiB per pending, in repetition order):");
    println!();
    for &calls in &options.calls {
        for &imp in &options.imps {
            if let Some(runs) = results.get(&(calls, imp)) {
                let values: Vec<String> = runs
                    .iter()
                    .map(|r| format!("{:.2}", r.kib_per_pending()))
                    .collect();
                println!("  N={calls:<6} {:<18} {}", imp.name(), values.join(", "));
            }
        }
    }
    let target = 8.0;
    if let Some(kib) = kib(10_000, Imp::Interlude) {
        println!();
        println!(
            "Target: Interlude ≤ {target} KiB per pending at N = 10000: {kib:.2} KiB {}",
            if kib <= target { "met" } else { "MISSED" }
        );
    }
    ensure!(lost_total == 0, "{lost_total} calls were lost");
    Ok(())
}
