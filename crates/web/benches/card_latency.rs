//! Latency of the web surface: from the engine admitting an elicitation to its card being
//! visible and focused in headless Chromium. Median over 50 requests; target < 50 ms.
//!
//! Run with: `cargo bench -p interlude-web --bench card_latency [-- --requests N]`; under a
//! profiler, with `--profile profiling` (release with debug info).
//!
//! Timestamps: the host takes its wall clock (ms since the Unix epoch) when the surface is told a
//! request was admitted; the page takes `Date.now()` in a `requestAnimationFrame` after it has
//! rendered the card and focused its first field, and reports it to `/api/telemetry`. Both clocks
//! are the same machine's, so the difference is the end-to-end latency (including the SSE push,
//! the render and one frame).
#![allow(clippy::print_stdout, missing_docs)]

use std::time::Duration;

use interlude_host::ServerSpec;
use interlude_test_support::{Browser, percentile};
use interlude_web::{WebApp, WebOptions};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

const WAIT: Duration = Duration::from_secs(15);

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let requests: usize = args
        .iter()
        .position(|a| a == "--requests")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(50);

    let shutdown = CancellationToken::new();
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let demo = format!("http://{}/mcp", listener.local_addr()?);
    tokio::spawn(interlude_demo::serve_http(
        listener,
        interlude_demo::HttpOptions {
            shutdown: shutdown.child_token(),
            ..Default::default()
        },
    ));
    let mut options = WebOptions::default();
    // The bench asks far faster than a person: lift the rate limit.
    options.host.engine.rate_burst = 10_000;
    options.host.engine.rate_per_minute = 1_000_000;
    let app = WebApp::start(options);
    app.add_server("demo", ServerSpec::parse(&demo)?, None)
        .await;
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let url = app.url(listener.local_addr()?);
    tokio::spawn(app.clone().serve(listener, shutdown.child_token()));

    let browser = Browser::start().await?;
    browser.open_page(&url, WAIT).await?;

    // One warm-up, then the measured requests, one after another.
    for i in 0..=requests {
        app.call_tool("demo", "github_username", None)
            .await
            .map_err(anyhow::Error::msg)?;
        let id = browser
            .wait_js(
                "(() => { const c = document.querySelector('section.ask'); const a = document.activeElement; \
                 return c && a && c.contains(a) && a.tagName === 'INPUT' ? c.dataset.request : null; })()",
                WAIT,
            )
            .await?;
        let id = id.as_str().unwrap_or_default().to_owned();
        browser
            .js(&format!(
                "(() => {{ const a = document.activeElement; a.value = 'user{i}'; \
                 a.dispatchEvent(new Event('input', {{bubbles: true}})); \
                 a.form.requestSubmit(); return true; }})()"
            ))
            .await?;
        browser
            .wait_js(
                &format!("!document.querySelector('section.ask[data-request=\"{id}\"]')"),
                WAIT,
            )
            .await?;
    }
    // Telemetry arrives asynchronously (a POST from the page): wait for every report.
    let expected = requests + 1;
    interlude_test_support::poll("every telemetry report".into(), WAIT, || async {
        Ok((app.telemetry().len() >= expected).then_some(()))
    })
    .await?;
    let mut samples: Vec<(u64, u64)> = app.telemetry();
    samples.sort_unstable();
    let mut ms: Vec<u64> = samples.iter().skip(1).map(|(_, ms)| *ms).collect();
    ms.sort_unstable();
    println!(
        "card latency (engine admitted → card visible and focused), {} requests: median {} ms, p90 {} ms, max {} ms (target: median < 50 ms)",
        ms.len(),
        percentile(&ms, 0.5),
        percentile(&ms, 0.9),
        ms.last().copied().unwrap_or(0)
    );
    browser.close().await;
    shutdown.cancel();
    Ok(())
}
