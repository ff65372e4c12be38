//! Latency of MCP Apps views in the web surface: from the tool call to the view's
//! `ui/notifications/initialized`, for the published server-basic-vanillajs over stdio, in
//! headless Chromium. Median of 20 calls (after one warm-up); target < 150 ms (the MCP
//! Inspector 2.12.0 takes ≈ 610–750 ms from the call to visible app content, by its own
//! protocol pane's timings).
//!
//! Run with: `cargo bench -p interlude-web --bench app_latency [-- --calls N]`.
//!
//! Both timestamps are the host's wall clock (ms since the Unix epoch): the call's record
//! starts when the call is made; the view's record says when the bridge got `initialized` from
//! the view. In between: the view's resource read from the server, its frame created on the
//! page (SSE push), the sandbox document loaded from the sandbox origin, the view's HTML
//! written into the inner frame, the App SDK's `ui/initialize` round trip through the page and
//! the bridge. Each call opens a fresh view (a new frame), as a person calling the tool sees.
#![allow(clippy::print_stdout, missing_docs)]

use std::time::Duration;

use interlude_host::ServerSpec;
use interlude_test_support::{Browser, NpmPeers, percentile};
use interlude_web::{WebApp, WebOptions};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

const WAIT: Duration = Duration::from_secs(15);
const BASIC: &str = "@modelcontextprotocol/server-basic-vanillajs/dist/index.js";

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let calls: usize = args
        .iter()
        .position(|a| a == "--calls")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(20);
    let peers = NpmPeers::locate(&[BASIC])
        .ok_or_else(|| anyhow::anyhow!("the npm peers are missing: run `cargo xtask peers`"))?;
    let shutdown = CancellationToken::new();
    let mut options = WebOptions::default();
    // The bench calls far faster than a view would: lift the views' rate limit.
    options.host.apps.call_burst = 100_000;
    options.host.apps.calls_per_minute = 10_000_000;
    let app = WebApp::start(options);
    let spec = ServerSpec::Stdio {
        command: peers.node.to_string_lossy().into_owned(),
        args: vec![
            peers.package_file(BASIC).to_string_lossy().into_owned(),
            "--stdio".into(),
        ],
        env: Default::default(),
    };
    app.add_server("basic", spec, None).await;
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let url = app.url(listener.local_addr()?);
    tokio::spawn(app.clone().serve(listener, shutdown.child_token()));
    let browser = Browser::start().await?;
    browser.open_page(&url, WAIT).await?;

    let mut latencies = Vec::new();
    for i in 0..=calls {
        let call = app
            .call_tool("basic", "get-time", None)
            .await
            .map_err(|e| anyhow::anyhow!(e))?;
        let deadline = std::time::Instant::now() + WAIT;
        let latency = loop {
            let snapshot = app.host().snapshot();
            let started = snapshot
                .calls
                .iter()
                .find(|c| c.id.0 == call)
                .map(|c| c.started_at_ms);
            let live = snapshot
                .views
                .iter()
                .find(|v| v.call.map(|c| c.0) == Some(call))
                .and_then(|v| v.live_at_ms);
            if let (Some(started), Some(live)) = (started, live) {
                break live.saturating_sub(started);
            }
            anyhow::ensure!(
                std::time::Instant::now() < deadline,
                "view {i} never went live"
            );
            tokio::time::sleep(Duration::from_millis(2)).await;
        };
        if i > 0 {
            latencies.push(latency);
        }
    }
    latencies.sort_unstable();
    let median = percentile(&latencies, 0.5);
    println!(
        "app_latency: call → view initialized, server-basic-vanillajs over stdio, {calls} calls: median {median} ms, p90 {} ms, max {} ms (target < 150 ms: {})",
        percentile(&latencies, 0.9),
        latencies.last().copied().unwrap_or(0),
        if median < 150 { "met" } else { "NOT met" }
    );

    // The bridge's own cost: the same tool called by the view (view → page → host → server →
    // host → page → view) and called by the host directly (the same connection), 20 each.
    let frame = browser
        .wait_for("li.app-view:last-of-type iframe.app-frame", WAIT)
        .await?;
    browser.enter_app_view(frame, WAIT).await?;
    let script = r#"
        const done = arguments[arguments.length - 1];
        (async () => {
          let id = 1e6;
          const call = () => new Promise((resolve) => {
            const mine = id++;
            const start = performance.now();
            const heard = (e) => {
              if (e.data && e.data.id === mine) {
                window.removeEventListener('message', heard);
                resolve(e.data.result ? performance.now() - start : -1);
              }
            };
            window.addEventListener('message', heard);
            window.parent.postMessage({ jsonrpc: '2.0', id: mine, method: 'tools/call',
              params: { name: 'get-time', arguments: {} } }, '*');
          });
          const times = [];
          for (let i = 0; i <= 20; i++) times.push(await call());
          done(times.slice(1));
        })();
    "#;
    let from_view = browser.client().execute_async(script, Vec::new()).await?;
    let mut via_view: Vec<f64> = from_view
        .as_array()
        .map(|a| a.iter().filter_map(serde_json::Value::as_f64).collect())
        .unwrap_or_default();
    anyhow::ensure!(
        via_view.iter().all(|t| *t >= 0.0),
        "a view call failed: {from_view}"
    );
    via_view.sort_by(f64::total_cmp);
    let conn = app
        .host()
        .connection_named("basic")
        .ok_or_else(|| anyhow::anyhow!("basic is gone"))?;
    let mut direct = Vec::new();
    for i in 0..=20 {
        let start = std::time::Instant::now();
        conn.call_tool("get-time", None).await?;
        if i > 0 {
            direct.push(start.elapsed().as_secs_f64() * 1000.0);
        }
    }
    direct.sort_by(f64::total_cmp);
    let median = |v: &[f64]| v.get(v.len() / 2).copied().unwrap_or(0.0);
    println!(
        "app_latency: tools/call get-time, 20 each: from the view through the bridge median {:.1} ms; from the host directly median {:.1} ms; the bridge adds {:.1} ms",
        median(&via_view),
        median(&direct),
        median(&via_view) - median(&direct)
    );
    browser.close().await;
    shutdown.cancel();
    Ok(())
}
