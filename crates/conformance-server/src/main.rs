//! `interlude-conformance-server`: an MCP server written with Interlude's server toolkit
//! (`interlude-server`) the way a server author would write one, carrying every fixture (tools,
//! prompts, resources, completions, logging) that the server scenarios of the MCP conformance
//! suite call, for both requirement sets (2025-11-25 and 2026-07-28). One endpoint serves both
//! eras: the stateful 2025 lifecycle (`initialize`, `Mcp-Session-Id`) and the stateless
//! 2026-07-28 wire (`server/discover`, per-request `_meta`).
//!
//! ```text
//! interlude-conformance-server                        # stdio
//! interlude-conformance-server --http 127.0.0.1:PORT  # streamable HTTP at /mcp
//! interlude-conformance-server --http 127.0.0.1:PORT --stop-with-stdin
//! ```
//!
//! `--http` binds 127.0.0.1 only (the fixtures are for a test harness, not for a network).
//! `--stop-with-stdin` makes the server exit once its stdin closes, so that a process that
//! starts it with a pipe there (`cargo xtask test`) cannot leave it behind, whatever way it
//! ends. Logs go to stderr (`INTERLUDE_LOG` filters them).
//!
//! Modules: `fixtures.rs` the server and its tools, `catalog.rs` its prompts, resources and
//! completions, `http.rs` the HTTP endpoint.
#![allow(clippy::print_stderr)]

mod catalog;
mod fixtures;
mod http;
mod tasks;

use std::net::{Ipv4Addr, SocketAddr};
use std::process::ExitCode;

use anyhow::{Context, bail};
use rmcp::ServiceExt;

const USAGE: &str =
    "usage: interlude-conformance-server [--http 127.0.0.1:PORT [--stop-with-stdin]]";

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("INTERLUDE_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn,rmcp=error")),
        )
        .init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let result = match args.as_slice() {
        [] => serve_stdio().await,
        ["--http", addr] => serve_http(addr, false).await,
        ["--http", addr, "--stop-with-stdin"] | ["--stop-with-stdin", "--http", addr] => {
            serve_http(addr, true).await
        }
        ["--help" | "-h"] => {
            eprintln!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        _ => Err(anyhow::anyhow!("{USAGE}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("interlude-conformance-server: {e:#}");
            ExitCode::from(2)
        }
    }
}

async fn serve_stdio() -> anyhow::Result<()> {
    let (stdin, stdout) = interlude_server::stdio();
    let transport = rmcp::transport::async_rw::AsyncRwTransport::new_server(
        interlude_server::checked_lines(stdin),
        stdout,
    );
    let server = fixtures::Fixtures::new(fixtures::ask_config())
        .serve(interlude_server::checked(transport))
        .await
        .context("cannot start on stdio")?;
    server.waiting().await.context("the server task failed")?;
    Ok(())
}

async fn serve_http(addr: &str, stop_with_stdin: bool) -> anyhow::Result<()> {
    let addr = loopback(addr)?;
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("cannot listen on {addr}"))?;
    let local = listener.local_addr()?;
    eprintln!("interlude-conformance-server: streamable HTTP at http://{local}/mcp");
    let shutdown = tokio_util::sync::CancellationToken::new();
    let stop = shutdown.clone();
    tokio::spawn(async move {
        let _ = tokio::signal::ctrl_c().await;
        stop.cancel();
    });
    if stop_with_stdin {
        let stop = shutdown.clone();
        tokio::spawn(async move {
            // Nothing is expected on stdin: EOF (or an error) means whoever started us is gone.
            let mut sink = tokio::io::sink();
            let _ = tokio::io::copy(&mut tokio::io::stdin(), &mut sink).await;
            tracing::info!("stdin closed: stopping");
            stop.cancel();
        });
    }
    http::serve(listener, fixtures::ask_config(), shutdown)
        .await
        .context("the HTTP server failed")
}

/// `addr` as a socket address on 127.0.0.1; anything else is refused.
fn loopback(addr: &str) -> anyhow::Result<SocketAddr> {
    let parsed: SocketAddr = addr
        .parse()
        .with_context(|| format!("`{addr}` is not an address such as 127.0.0.1:3000"))?;
    if parsed.ip() != Ipv4Addr::LOCALHOST {
        bail!("refusing to listen on {addr}: the conformance server binds 127.0.0.1 only");
    }
    Ok(parsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_127_0_0_1_is_accepted() {
        assert_eq!(
            loopback("127.0.0.1:3311").unwrap(),
            "127.0.0.1:3311".parse().unwrap()
        );
        assert!(loopback("0.0.0.0:3311").is_err());
        assert!(loopback("[::1]:3311").is_err());
        assert!(loopback("192.168.1.2:80").is_err());
        assert!(loopback("localhost:80").is_err());
    }
}
