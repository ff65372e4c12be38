//! `interlude-conformance-client`: the client the MCP conformance harness launches.
//!
//! The harness passes the scenario in `MCP_CONFORMANCE_SCENARIO`, optionally the protocol
//! version in `MCP_CONFORMANCE_PROTOCOL_VERSION` (default 2025-11-25, the version the 0.1.x suite
//! tests), and the server URL as the last argument. Elicitations are answered headless with the
//! schema's defaults, through the same engine as every other surface.
#![allow(clippy::print_stderr)]

use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, bail};
use interlude_host::headless::{Answers, HeadlessSurface};
use interlude_host::{Host, HostConfig, ProtocolChoice, ServerSpec};
use rmcp::model::ProtocolVersion;
use serde_json::json;

async fn run() -> anyhow::Result<()> {
    let url = std::env::args()
        .next_back()
        .filter(|a| a.starts_with("http"))
        .context("the server URL must be the last argument")?;
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let version = std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION")
        .unwrap_or_else(|_| "2025-11-25".to_owned());
    let pinned = [
        ProtocolVersion::V_2025_06_18,
        ProtocolVersion::V_2025_11_25,
        ProtocolVersion::V_2026_07_28,
    ]
    .into_iter()
    .find(|v| v.as_str() == version)
    .with_context(|| format!("unsupported protocol version `{version}`"))?;
    let config = HostConfig {
        protocol: ProtocolChoice::Pin(pinned),
        call_timeout: Some(Duration::from_secs(20)),
        client_name: "interlude-conformance-client".into(),
        ..HostConfig::default()
    };
    let host = Host::start(config, HeadlessSurface::new(Answers::Defaults));
    let connection = host
        .connect("conformance", ServerSpec::parse(&url)?)
        .await?;
    let result = match scenario.as_str() {
        "initialize" => Ok(()),
        "tools_call" => connection
            .call_tool("add_numbers", json!({"a": 5, "b": 3}).as_object().cloned())
            .await
            .map(|_| ()),
        "elicitation-sep1034-client-defaults" => {
            // The mock sends `elicitation/create` without a related request, so it travels on the
            // standalone GET stream, and the TS SDK 1.x server drops it if that stream is not open
            // yet. rmcp opens the GET stream in the background after the session starts: wait
            // until the server has answered that GET (or refused it) before calling.
            let stream = connection.wait_server_stream(Duration::from_secs(5)).await;
            tracing::debug!(?stream, "standalone stream before the call");
            connection
                .call_tool("test_client_elicitation_defaults", None)
                .await
                .map(|_| ())
        }
        _ => connection.list_tools().await.map(|_| ()),
    };
    connection.close().await;
    result?;
    if scenario.is_empty() {
        bail!("MCP_CONFORMANCE_SCENARIO is not set");
    }
    Ok(())
}

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        // Colour codes only on a terminal (and not under NO_COLOR): a log file or a pipe gets
        // plain text.
        .with_ansi(
            std::io::IsTerminal::is_terminal(&std::io::stderr())
                && std::env::var_os("NO_COLOR").is_none(),
        )
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("INTERLUDE_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .init();
    match tokio::time::timeout(Duration::from_secs(25), run()).await {
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(e)) => {
            eprintln!("interlude-conformance-client: {e:#}");
            ExitCode::from(1)
        }
        Err(_) => {
            eprintln!("interlude-conformance-client: gave up after 25 s");
            ExitCode::from(1)
        }
    }
}
