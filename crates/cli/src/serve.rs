//! `interlude demo` and `interlude connect`: the web surface (or the terminal surface) over a set
//! of servers.

use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::{Context, bail};
use clap::Args;
use interlude_engine::DevOrigin;
use interlude_host::{HostConfig, ProtocolChoice, ServerSpec, parse_mcp_servers};
use interlude_web::{WebApp, WebOptions};
use rmcp::model::ProtocolVersion;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

/// The default port of the web surface.
pub(crate) const DEFAULT_PORT: u16 = 7280;

#[derive(Debug, Args)]
pub(crate) struct DemoArgs {
    /// Port of the page on 127.0.0.1.
    #[arg(long, default_value_t = DEFAULT_PORT)]
    port: u16,
    /// Do not open a browser.
    #[arg(long)]
    no_open: bool,
    /// Declare the User Interaction draft (seed 000) to the demo servers: the 2025-era server
    /// then asks through `interaction/create` instead of elicitation.
    #[arg(long, env = "INTERLUDE_USER_INTERACTION")]
    user_interaction: bool,
    /// Give the demo servers this folder as a root (their answer to `roots/list`: the guide's
    /// "Project folders" step); may be given more than once. None by default.
    #[arg(long, value_name = "DIR")]
    root: Vec<PathBuf>,
}

#[derive(Debug, Args)]
pub(crate) struct ConnectArgs {
    /// Servers: http(s):// URLs or (quoted) command lines for stdio.
    servers: Vec<String>,
    /// Read servers from an `mcpServers` JSON file (Claude Desktop / VS Code format).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Answer in this terminal instead of a web page (app views are handed to a page started
    /// when the person asks for one).
    #[arg(long)]
    tui: bool,
    /// Port of the page on 127.0.0.1 (with --tui: of the page app views are handed to; any
    /// free port if it is taken).
    #[arg(long, default_value_t = DEFAULT_PORT)]
    port: u16,
    /// Do not open a browser.
    #[arg(long)]
    no_open: bool,
    /// Speak exactly this protocol version (default: negotiate).
    #[arg(long, value_name = "VERSION")]
    protocol_version: Option<String>,
    /// Write every message to and from every server to this file, as JSON Lines
    /// (`{"t_ms", "server", "dir", "message"}`).
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
    /// Declare the User Interaction draft (seed 000: `capabilities.userInteraction`), so that
    /// servers written against it can send `interaction/create` or answer `-32003`.
    #[arg(long, env = "INTERLUDE_USER_INTERACTION")]
    user_interaction: bool,
    /// Allow links to this origin on this machine in plain http (e.g. http://127.0.0.1:4000, a
    /// server under development); may be given more than once.
    #[arg(long, value_name = "ORIGIN")]
    dev_origin: Vec<String>,
    /// Give servers this folder as a root (their answer to `roots/list`); may be given more
    /// than once. None by default.
    #[arg(long, value_name = "DIR")]
    root: Vec<PathBuf>,
    /// Do not declare sampling: servers cannot ask for a model's reply (by default the person
    /// writes it).
    #[arg(long)]
    no_sampling: bool,
    /// Send this header with every request to the http(s) SERVERs given on the command line
    /// (`NAME:VALUE`, e.g. `Authorization: Bearer …`); may be given more than once. A config
    /// file's servers take theirs from its `headers`.
    #[arg(long, value_name = "NAME:VALUE")]
    header: Vec<String>,
}

impl ConnectArgs {
    /// Whether the terminal surface was asked for.
    pub(crate) fn tui(&self) -> bool {
        self.tui
    }
}

fn open_browser(url: &str) {
    let has_display =
        std::env::var_os("DISPLAY").is_some() || std::env::var_os("WAYLAND_DISPLAY").is_some();
    let opener = if cfg!(target_os = "macos") {
        Some("open")
    } else if has_display {
        Some("xdg-open")
    } else {
        None
    };
    if let Some(opener) = opener {
        let spawned = std::process::Command::new(opener)
            .arg(url)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn();
        if let Err(e) = spawned {
            tracing::debug!("cannot open a browser with {opener}: {e}");
        }
    }
}

async fn bind(port: u16) -> anyhow::Result<TcpListener> {
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    TcpListener::bind(addr).await.with_context(|| {
        format!("cannot listen on {addr} (is another interlude running? try --port)")
    })
}

async fn serve_until_ctrl_c(
    app: WebApp,
    listener: TcpListener,
    no_open: bool,
) -> anyhow::Result<u8> {
    let addr = listener.local_addr()?;
    let url = app.url(addr);
    // Said, not insisted on: a closed stdout (a pipe whose reader left) is no reason to stop.
    {
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "Interlude is running at {url}");
        let _ = writeln!(out, "Press Ctrl-C to stop.");
        let _ = out.flush();
    }
    if !no_open {
        open_browser(&url);
    }
    let shutdown = CancellationToken::new();
    let stop = shutdown.clone();
    tokio::spawn(async move {
        let _ = tokio::signal::ctrl_c().await;
        stop.cancel();
    });
    app.serve(listener, shutdown).await?;
    Ok(crate::EXIT_OK)
}

pub(crate) async fn demo(args: DemoArgs) -> anyhow::Result<u8> {
    let roots = crate::call::roots(&args.root, None)?;
    let listener = bind(args.port).await?;
    // The demo server twice: over stdio (this binary, re-executed) speaking 2026-07-28, and over
    // HTTP on a loopback port speaking 2025-11-25, so both eras are one click away. Both keep
    // their URL flows in one SQLite file; the HTTP one serves the flow pages.
    let http_listener = TcpListener::bind("127.0.0.1:0").await?;
    let http_addr = http_listener.local_addr()?;
    let flows_base = format!("http://{http_addr}/flows");
    let store_path = interlude_demo::flows::store_path("demo-flows.sqlite")
        .context("cannot find a place for the demo's flow store")?;
    let store = interlude_demo::flows::open_store(&store_path)
        .with_context(|| format!("cannot open the demo's flow store {}", store_path.display()))?;
    let mut key = vec![0u8; 32];
    rand::RngCore::fill_bytes(&mut rand::rng(), &mut key);
    // Example Cloud, the third party of the OAuth scenario, on a loopback port of its own.
    let mut secret = [0u8; 16];
    rand::RngCore::fill_bytes(&mut rand::rng(), &mut secret);
    let cloud = interlude_demo::flows::serve_cloud(
        TcpListener::bind("127.0.0.1:0").await?,
        &flows_base,
        &interlude_demo::flows::hex(&secret),
    )?;
    let flows = interlude_demo::flows::demo_flows(&flows_base, store, &key, Some(&cloud))?;
    // The development setting: plain http to exactly the demo's own origin, and the consent
    // screen says so.
    let mut host = HostConfig {
        roots,
        ..HostConfig::default()
    };
    host.engine.url_policy.dev_origins = vec![DevOrigin::loopback_http(http_addr.port())];
    if args.user_interaction {
        host.declare = host.declare.with_user_interaction();
    }
    let app = WebApp::start(WebOptions {
        title: "Interlude demo".into(),
        guide: Some(interlude_demo::guide()),
        host,
        export: Some(interlude_headless::recording::export),
    });
    let exe = std::env::current_exe().context("cannot find this executable")?;
    let stdio = ServerSpec::Stdio {
        command: exe.to_string_lossy().into_owned(),
        args: vec![crate::DEMO_SERVER_SUBCOMMAND.into()],
        env: [
            (
                interlude_demo::flows::FLOWS_ENV.to_owned(),
                flows_base.clone(),
            ),
            (
                interlude_demo::flows::STORE_ENV.to_owned(),
                store_path.to_string_lossy().into_owned(),
            ),
            (
                interlude_demo::flows::KEY_ENV.to_owned(),
                interlude_demo::flows::hex(&key),
            ),
            (
                interlude_demo::flows::CLOUD_ENV.to_owned(),
                cloud.origin.clone(),
            ),
            (
                interlude_demo::flows::CLOUD_SECRET_ENV.to_owned(),
                cloud.secret.clone(),
            ),
        ]
        .into_iter()
        .collect(),
    };
    tokio::spawn(interlude_demo::serve_http(
        http_listener,
        interlude_demo::HttpOptions {
            flows: Some((flows, key)),
            ..Default::default()
        },
    ));
    app.add_server("demo", stdio, None).await;
    app.add_server(
        "demo-2025",
        ServerSpec::parse(&format!("http://{http_addr}/mcp"))?,
        Some(ProtocolChoice::Pin(ProtocolVersion::V_2025_11_25)),
    )
    .await;
    serve_until_ctrl_c(app, listener, args.no_open).await
}

/// The servers to connect, and the roots to give them (`--root`, then the config file's).
type Setup = (Vec<(String, ServerSpec)>, Vec<interlude_host::Root>);

fn servers_of(args: &ConnectArgs) -> anyhow::Result<Setup> {
    let mut servers = Vec::new();
    let mut config = None;
    if let Some(path) = &args.config {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let json: serde_json::Value = serde_json::from_str(&text)
            .with_context(|| format!("{} is not valid JSON", path.display()))?;
        servers.extend(parse_mcp_servers(&json).with_context(|| path.display().to_string())?);
        config = Some((path.as_path(), json));
    }
    let roots = crate::call::roots(&args.root, config.as_ref().map(|(p, j)| (*p, j)))?;
    let headers = crate::call::headers(&args.header)?;
    if !headers.is_empty()
        && !args
            .servers
            .iter()
            .any(|s| s.trim().starts_with("http://") || s.trim().starts_with("https://"))
    {
        bail!("--header is for http(s) servers given on the command line, and none was given");
    }
    for (i, s) in args.servers.iter().enumerate() {
        let spec = crate::call::with_headers(ServerSpec::parse(s)?, &headers, false)?;
        let base = spec.default_name();
        let mut name = base.clone();
        if servers.iter().any(|(n, _)| *n == name) {
            name = format!("{base}-{}", i + 1);
        }
        servers.push((name, spec));
    }
    if servers.is_empty() {
        bail!("no servers: give at least one SERVER or --config FILE");
    }
    Ok((servers, roots))
}

/// `connect`, with `recorder` (`interlude record`) beside the surface the person uses.
pub(crate) async fn connect(
    args: ConnectArgs,
    recorder: Option<interlude_headless::recording::Recorder>,
) -> anyhow::Result<u8> {
    let (servers, roots) = servers_of(&args)?;
    let mut host = HostConfig {
        protocol: crate::call::protocol_choice(args.protocol_version.as_deref())?,
        trace: crate::call::trace_file(args.trace.as_deref())?,
        eras: crate::era_memory(),
        roots,
        ..HostConfig::default()
    };
    host.declare.sampling = !args.no_sampling;
    if args.user_interaction {
        host.declare = host.declare.with_user_interaction();
    }
    host.engine.url_policy.dev_origins = crate::call::dev_origins(&args.dev_origin)?;
    if args.tui {
        return tui(host, servers, args.port, recorder).await;
    }
    let listener = bind(args.port).await?;
    let app = WebApp::start_with(
        WebOptions {
            host,
            export: Some(interlude_headless::recording::export),
            ..WebOptions::default()
        },
        recorder,
    );
    for (name, spec) in servers {
        app.add_server(&name, spec, None).await;
    }
    serve_until_ctrl_c(app, listener, args.no_open).await
}

/// `connect --tui`: the terminal, with a web page over the same host that it hands app views
/// (and questions asked in them) to when the person wants; the page starts on first use.
async fn tui(
    host: HostConfig,
    servers: Vec<(String, ServerSpec)>,
    port: u16,
    recorder: Option<interlude_headless::recording::Recorder>,
) -> anyhow::Result<u8> {
    let (surface, terminal) = interlude_tui::terminal();
    let app = WebApp::start_with(
        WebOptions {
            host,
            export: Some(interlude_headless::recording::export),
            ..WebOptions::default()
        },
        (surface, recorder),
    );
    let shutdown = CancellationToken::new();
    let handoff = PageHandoff {
        app: app.clone(),
        port,
        runtime: tokio::runtime::Handle::current(),
        shutdown: shutdown.clone(),
        serving: std::sync::Mutex::new(None),
    };
    let ran = terminal
        .with_handoff(std::sync::Arc::new(handoff))
        .run(app.host().clone(), servers)
        .await;
    shutdown.cancel();
    ran?;
    Ok(crate::EXIT_OK)
}

/// The page the terminal hands app views to, served from the first time it is wanted.
struct PageHandoff {
    app: WebApp,
    port: u16,
    runtime: tokio::runtime::Handle,
    shutdown: CancellationToken,
    /// Where the page is served, once it is.
    serving: std::sync::Mutex<Option<SocketAddr>>,
}

impl PageHandoff {
    /// Serves the page (on `port`, or any free port if it is taken) and says where.
    fn start(&self) -> std::io::Result<SocketAddr> {
        let listener =
            std::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], self.port)))
                .or_else(|_| std::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0))))?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let _entered = self.runtime.enter();
        let listener = TcpListener::from_std(listener)?;
        let app = self.app.clone();
        let stop = self.shutdown.child_token();
        self.runtime.spawn(async move {
            if let Err(e) = app.serve(listener, stop).await {
                tracing::warn!("the page for app views stopped: {e}");
            }
        });
        Ok(addr)
    }
}

impl interlude_tui::Handoff for PageHandoff {
    fn address(&self, target: interlude_tui::HandoffTarget) -> Result<String, String> {
        let mut serving = self
            .serving
            .lock()
            .map_err(|_| "the page's state is unusable".to_owned())?;
        let addr = match *serving {
            Some(addr) => addr,
            None => {
                let addr = self
                    .start()
                    .map_err(|e| format!("cannot serve a page on 127.0.0.1: {e}"))?;
                *serving = Some(addr);
                addr
            }
        };
        let page = self.app.url(addr);
        Ok(match target {
            interlude_tui::HandoffTarget::View(view) => format!("{page}#view-{}", view.0),
            _ => page,
        })
    }
}
