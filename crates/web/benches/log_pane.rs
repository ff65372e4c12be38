//! The protocol pane with a long log: how long the page takes to take in one new message when
//! the server's log already holds 10 000, in headless Chromium. Target < 50 ms per update.
//!
//! Run with: `cargo bench -p interlude-web --bench log_pane [-- --messages N --updates N]`.
//!
//! A small server in this process (one tool that answers at once, over an in-memory transport)
//! is called until its log holds `--messages` messages (default 10 000); then the page opens
//! its protocol pane and the tool is called `--updates` times more (default 20), one call (two
//! messages) at a time. Each update is timed by the page itself: the
//! `interlude:log-update` measure spans fetching what is new (`/api/log?after=…`) and drawing it,
//! as the page does whenever the host's record changes. For comparison, in the same run: what
//! each update cost before the pane fetched only what is new — the whole log fetched and parsed
//! (drawing not counted, so a lower bound); and a fetch of nothing new on a quiet page (what an
//! update costs without the rest of the page redrawing at the same time).
#![allow(clippy::print_stdout, missing_docs)]

use std::time::Duration;

use interlude_host::ProtocolChoice;
use interlude_test_support::{Browser, fantoccini::Locator};
use interlude_web::{WebApp, WebOptions};
use rmcp::model::{
    CallToolResult, ContentBlock, ProtocolVersion, ServerCapabilities, ServerConfig,
};
use rmcp::{ErrorData, ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

const WAIT: Duration = Duration::from_secs(30);

/// A server whose one tool answers at once.
#[derive(Clone)]
struct Quick;

#[tool_router]
impl Quick {
    #[tool(description = "Answers at once.")]
    async fn noop(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![ContentBlock::text("ok")]))
    }
}

#[tool_handler]
impl ServerHandler for Quick {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::default();
        info.capabilities = ServerCapabilities::builder().enable_tools().build();
        info
    }
}

fn arg(args: &[String], name: &str, default: usize) -> usize {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(default)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let messages = arg(&args, "--messages", 10_000);
    let updates = arg(&args, "--updates", 20);

    let shutdown = CancellationToken::new();
    let app = WebApp::start(WebOptions::default());
    let (host_end, server_end) = tokio::io::duplex(1024 * 1024);
    tokio::spawn(async move {
        if let Ok(running) = Quick.serve(server_end).await {
            let _ = running.waiting().await;
        }
    });
    let conn = app
        .host()
        .connect_transport(
            "quick",
            host_end,
            ProtocolChoice::Pin(ProtocolVersion::V_2025_11_25),
        )
        .await?;
    while app.host().protocol_log(conn.id()).len() < messages {
        conn.call_tool("noop", None).await?;
    }
    let held = app.host().protocol_log(conn.id()).len();

    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let url = app.url(listener.local_addr()?);
    tokio::spawn(app.clone().serve(listener, shutdown.child_token()));
    let browser = Browser::start().await?;
    browser.open_page(&url, WAIT).await?;
    browser
        .client()
        .find(Locator::Css("li[data-server=\"quick\"] button.log-btn"))
        .await?
        .click()
        .await?;
    let count = |n: usize| {
        format!(
            "(document.querySelector('#protocol .count')?.textContent || '').startsWith('{n} of') || null"
        )
    };
    if let Err(e) = browser.wait_js(&count(held), WAIT).await {
        let shown = browser
            .js("document.querySelector('#protocol')?.textContent?.slice(0, 200)")
            .await?;
        anyhow::bail!("the pane did not load {held} messages ({shown}): {e}");
    }
    let measures = "performance.getEntriesByName('interlude:log-update').map((m) => m.duration)";
    let first = browser.js(measures).await?;
    let first_load = first
        .as_array()
        .and_then(|a| a.last())
        .and_then(serde_json::Value::as_f64)
        .unwrap_or(0.0);

    let mut per_update = Vec::new();
    let mut total = held;
    for _ in 0..updates {
        let before = browser.js(measures).await?.as_array().map_or(0, Vec::len);
        conn.call_tool("noop", None).await?;
        let log = app.host().protocol_log(conn.id());
        total = log.len();
        let last = log.last().map_or(0, |m| m.seq);
        let seen = browser
            .wait_js(
                &format!(
                    "document.querySelector('#protocol .protocol-window')?.lastElementChild?.dataset.seq === '{last}' || null"
                ),
                WAIT,
            )
            .await;
        if let Err(e) = seen {
            let shown = browser
                .js("[document.querySelector('#protocol .count')?.textContent, document.querySelector('#protocol .protocol-window')?.lastElementChild?.dataset.seq, performance.getEntriesByName('interlude:log-update').length, performance.getEntriesByName('interlude:render').length, performance.getEntriesByType('resource').filter((r) => r.name.includes('/api/log')).map((r) => r.name.split('after=')[1])]")
                .await?;
            anyhow::bail!("the pane did not show message {last} ({shown}): {e}");
        }
        let all = browser.js(measures).await?;
        let new: Vec<f64> = all
            .as_array()
            .map(|a| {
                a.iter()
                    .skip(before)
                    .filter_map(serde_json::Value::as_f64)
                    .collect()
            })
            .unwrap_or_default();
        // The call's two messages may come in one update or two: each counts.
        per_update.extend(new);
    }
    let rows = browser
        .js("document.querySelectorAll('#protocol .protocol-row').length")
        .await?;

    // Before: every update fetched and parsed the whole log.
    let whole = browser
        .client()
        .execute_async(
            r#"
            const done = arguments[arguments.length - 1];
            (async () => {
              const token = new URLSearchParams(location.search).get('token');
              const times = [];
              for (let i = 0; i < 10; i++) {
                const t = performance.now();
                const r = await fetch('/api/log?server=quick', { headers: { 'x-interlude-token': token } });
                await r.json();
                times.push(performance.now() - t);
              }
              const small = [];
              for (let i = 0; i < 10; i++) {
                const t = performance.now();
                const r = await fetch('/api/log?server=quick&after=999999', { headers: { 'x-interlude-token': token } });
                await r.json();
                small.push(performance.now() - t);
              }
              window.__small = small;
              done(times);
            })();
            "#,
            Vec::new(),
        )
        .await?;
    let whole: Vec<f64> = whole
        .as_array()
        .map(|a| a.iter().filter_map(serde_json::Value::as_f64).collect())
        .unwrap_or_default();

    let small: Vec<f64> = browser
        .js("window.__small")
        .await?
        .as_array()
        .map(|a| a.iter().filter_map(serde_json::Value::as_f64).collect())
        .unwrap_or_default();
    let median_update = median(per_update.clone());
    println!(
        "log_pane: {total} messages in the log, {rows} rows in the page; first load {first_load:.1} ms; \
         each update (fetch what is new + draw), {} updates: median {median_update:.2} ms, max {:.2} ms \
         (target < 50 ms: {}); the whole log fetched and parsed, as every update did before: median {:.1} ms; \
         asking for what is new when nothing is, on a quiet page: median {:.1} ms",
        per_update.len(),
        per_update.iter().copied().fold(0.0, f64::max),
        if median_update < 50.0 {
            "met"
        } else {
            "NOT met"
        },
        median(whole),
        median(small),
    );
    browser.close().await;
    shutdown.cancel();
    Ok(())
}
