//! Latency of a question shown in its server's app view (app-rendered elicitation, SEP-3118):
//! from the host receiving the server's request to the view showing the question, in headless
//! Chromium. The demo's `portfolio_review` (view `ui://demo/portfolio`), in both eras, median of
//! 20 questions each (after one warm-up); target < 150 ms.
//!
//! Run with: `cargo bench -p interlude-web --bench question_latency [-- --questions N]`.
//!
//! Both timestamps are this machine's wall clock (ms since the Unix epoch): the host's record of
//! the request says when it arrived (`RequestRecord::received_at_ms`: the push-era
//! `elicitation/create`, or the 2026-07-28 `input_required` result carrying it); the view marks
//! `portfolio:question-shown` in the animation frame after it drew the question, read as
//! `performance.timeOrigin + mark.startTime`. In between: admission, the question card pushed
//! to the page (SSE), the view's proxy document and its HTML from the sandbox listener (the
//! resource was read ahead when the server connected), the view's `ui/initialize` round trip,
//! the request forwarded to the view, its render. Each question opens a fresh view.
#![allow(clippy::print_stdout, missing_docs)]

use std::time::Duration;

use interlude_host::{Answer, ProtocolChoice, ServerSpec};
use interlude_test_support::{Browser, percentile};
use interlude_web::{WebApp, WebOptions};
use rmcp::model::ProtocolVersion;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

const WAIT: Duration = Duration::from_secs(15);
const MARK: &str = "portfolio:question-shown";

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let questions: usize = args
        .iter()
        .position(|a| a == "--questions")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(20);

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
    let eras = [
        ("2026-07-28", "demo", ProtocolVersion::V_2026_07_28),
        ("2025-11-25", "demo-2025", ProtocolVersion::V_2025_11_25),
    ];
    for (_, name, version) in &eras {
        app.add_server(
            name,
            ServerSpec::parse(&demo)?,
            Some(ProtocolChoice::Pin(version.clone())),
        )
        .await;
    }
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let url = app.url(listener.local_addr()?);
    tokio::spawn(app.clone().serve(listener, shutdown.child_token()));

    let browser = Browser::start().await?;
    browser.open_page(&url, WAIT).await?;

    for (era, server, _) in &eras {
        let mut ms = Vec::new();
        for i in 0..=questions {
            app.call_tool(server, "portfolio_review", None)
                .await
                .map_err(anyhow::Error::msg)?;
            let frame = browser
                .wait_for("section.ask.question iframe.app-frame[src]", WAIT)
                .await?;
            browser.enter_app_view(frame, WAIT).await?;
            let shown = browser
                .wait_js(
                    &format!(
                        "(() => {{ const m = performance.getEntriesByName('{MARK}').at(-1); \
                         return m ? performance.timeOrigin + m.startTime : null; }})()"
                    ),
                    WAIT,
                )
                .await?;
            browser.client().enter_parent_frame().await?;
            browser.client().enter_parent_frame().await?;
            let snapshot = app.host().snapshot();
            let request = snapshot
                .requests
                .iter()
                .filter(|r| &*r.request.server_name == *server && r.status.is_pending())
                .max_by_key(|r| r.request.id.0)
                .ok_or_else(|| anyhow::anyhow!("question {i}: no pending request"))?;
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let shown_ms = shown.as_f64().unwrap_or(0.0).round() as u64;
            if i > 0 {
                ms.push(shown_ms.saturating_sub(request.received_at_ms));
            }
            app.host()
                .answer_sink()
                .answer(request.request.id, Answer::Cancelled);
            browser
                .wait_js(
                    "document.querySelector('section.ask.question') === null",
                    WAIT,
                )
                .await?;
        }
        ms.sort_unstable();
        let median = percentile(&ms, 0.5);
        println!(
            "question_latency ({era}): request received → question shown in its view, {} questions: median {median} ms, p90 {} ms, max {} ms (target < 150 ms: {})",
            ms.len(),
            percentile(&ms, 0.9),
            ms.last().copied().unwrap_or(0),
            if median < 150 { "met" } else { "NOT met" }
        );
    }
    browser.close().await;
    shutdown.cancel();
    Ok(())
}
