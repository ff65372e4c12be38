//! `interlude`: call MCP servers and answer their requests for a person.
//!
//! The only crate that prints and the only one with `anyhow`. Errors go to stderr as
//! `interlude: <message>` with their cause chain. Exit codes: 0 ok, 1 a request was declined or
//! cancelled, 2 error.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod call;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Interlude: a host and toolkit for human-in-the-loop MCP.
#[derive(Debug, Parser)]
#[command(name = "interlude", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Call a tool on a server and answer its elicitations from a file or from defaults.
    Call(call::CallArgs),
}

/// Exit code: everything went through.
pub(crate) const EXIT_OK: u8 = 0;
/// Exit code: a request was declined or cancelled.
pub(crate) const EXIT_DECLINED: u8 = 1;
/// Exit code: an error.
pub(crate) const EXIT_ERROR: u8 = 2;

fn init_tracing() {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("INTERLUDE_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .init();
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    init_tracing();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("interlude: cannot start the async runtime: {e}");
            return ExitCode::from(EXIT_ERROR);
        }
    };
    let result = runtime.block_on(async {
        match cli.command {
            Command::Call(args) => call::run(args).await,
        }
    });
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("interlude: {e:#}");
            ExitCode::from(EXIT_ERROR)
        }
    }
}
