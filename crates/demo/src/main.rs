//! `interlude-demo`: the demo MCP server. stdio by default; `--http 127.0.0.1:PORT` serves
//! streamable HTTP at `/mcp`. Logs go to stderr (stdout is the protocol channel on stdio).
#![allow(clippy::print_stderr)]

use std::process::ExitCode;

use interlude_demo::{HttpOptions, serve_http};

const USAGE: &str = "usage: interlude-demo [--http 127.0.0.1:PORT]";

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
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn,rmcp=error")),
        )
        .init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.as_slice() {
        [] => serve_stdio().await,
        [flag, addr] if flag == "--http" => serve_tcp(addr).await,
        [flag] if flag == "--help" || flag == "-h" => {
            eprintln!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        _ => Err(USAGE.to_owned()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("interlude-demo: {e}");
            ExitCode::from(2)
        }
    }
}

async fn serve_stdio() -> Result<(), String> {
    interlude_demo::serve_stdio()
        .await
        .map_err(|e| e.to_string())
}

async fn serve_tcp(addr: &str) -> Result<(), String> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
    let local = listener.local_addr().map_err(|e| e.to_string())?;
    eprintln!("interlude-demo: streamable HTTP at http://{local}/mcp");
    // URL flows, their pages on the same origin, kept in a file of this port's own in the user's
    // data folder.
    let store_path = interlude_demo::flows::store_path(&format!("demo-{}.sqlite", local.port()))
        .map_err(|e| format!("cannot find a place for the flow store: {e}"))?;
    let store = interlude_demo::flows::open_store(&store_path)
        .map_err(|e| format!("cannot open {}: {e}", store_path.display()))?;
    let mut key = [0u8; 32];
    rand::RngCore::fill_bytes(&mut rand::rng(), &mut key);
    let base = format!("http://{local}/flows");
    let cloud_listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| format!("cannot listen for Example Cloud: {e}"))?;
    let cloud = interlude_demo::flows::serve_cloud(cloud_listener, &base, "demo-cloud-secret")
        .map_err(|e| e.to_string())?;
    let flows = interlude_demo::flows::demo_flows(&base, store, &key, Some(&cloud))
        .map_err(|e| e.to_string())?;
    let options = HttpOptions {
        flows: Some((flows, key.to_vec())),
        ..HttpOptions::default()
    };
    let shutdown = options.shutdown.clone();
    tokio::spawn(async move {
        let _ = tokio::signal::ctrl_c().await;
        shutdown.cancel();
    });
    serve_http(listener, options)
        .await
        .map_err(|e| format!("server failed: {e}"))
}
