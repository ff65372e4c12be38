//! `interlude`: call MCP servers and answer their requests for a person.
//!
//! The only crate that prints and the only one with `anyhow`. Errors go to stderr as
//! `interlude: <message>` with their cause chain. Exit codes: 0 ok, 1 a request was declined or
//! cancelled (`replay`: a call went otherwise than recorded), 2 error, 3 (`call`) the tool
//! answered that it failed, 141 stdout was closed by its reader (`| head`: a quiet end, as a
//! process ended by SIGPIPE).
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod call;
mod check_url;
mod record;
mod replay;
mod serve;

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
    /// Start the demo server and the web page, and show every scenario.
    Demo(serve::DemoArgs),
    /// Connect to servers and answer their requests in a web page (or, with --tui, here).
    Connect(serve::ConnectArgs),
    /// Connect to servers as `connect` does, and record every call that ends — its arguments,
    /// what the server asked, what the person answered, its result — in FILE (JSON, rewritten
    /// after each call; readable by you only: it holds what you typed).
    Record(record::RecordArgs),
    /// Run a recording's calls again on SERVER, headless, answering as the person did, and
    /// report every difference in what the server asked or in the results.
    ///
    /// Exit codes: 0 no difference, 1 a difference (each one is printed), 2 an error.
    Replay(replay::ReplayArgs),
    /// Call a tool on a server and answer its elicitations from a file or from defaults.
    ///
    /// Exit codes: 0 the call completed, 1 a request was declined or cancelled, 2 an error,
    /// 3 the tool answered that it failed (`isError: true`; its result is printed).
    Call(call::CallArgs),
    /// List a server's tools: name, title and the first line of the description (tools only
    /// the server's app views may call are left out, as the page does; --all shows them).
    Tools(call::ToolsArgs),
    /// Judge a link as the consent screen does: print the verdict as JSON; exit 0 allow, 1
    /// flag, 2 refuse.
    CheckUrl(check_url::CheckUrlArgs),
    /// Run the demo MCP server on stdio (used by `interlude demo`).
    #[command(name = "__demo-server", hide = true)]
    DemoServer,
}

/// The hidden subcommand that serves the demo over stdio.
pub(crate) const DEMO_SERVER_SUBCOMMAND: &str = "__demo-server";

async fn demo_server() -> anyhow::Result<u8> {
    interlude_demo::serve_stdio().await?;
    Ok(EXIT_OK)
}

/// Where the servers' protocol versions are remembered between runs (see
/// `interlude_host::EraMemory`): the user's cache folder, or this run only.
pub(crate) fn era_memory() -> std::sync::Arc<interlude_host::EraMemory> {
    std::sync::Arc::new(interlude_host::EraMemory::default_path().map_or_else(
        interlude_host::EraMemory::in_memory,
        interlude_host::EraMemory::at,
    ))
}

/// Exit code: everything went through.
pub(crate) const EXIT_OK: u8 = 0;
/// Exit code: a request was declined or cancelled.
pub(crate) const EXIT_DECLINED: u8 = 1;
/// Exit code (`replay`): a call went otherwise than recorded.
pub(crate) const EXIT_DIFFERENT: u8 = 1;
/// Exit code: an error.
pub(crate) const EXIT_ERROR: u8 = 2;
/// Exit code: the call went through and the tool answered that it failed (`isError: true`).
pub(crate) const EXIT_TOOL_ERROR: u8 = 3;
/// Exit code (`call`): interrupted (Ctrl-C); the call was cancelled and its server told. The
/// shells' own code for SIGINT.
pub(crate) const EXIT_INTERRUPTED: u8 = 130;

/// Exit code: stdout was closed by its reader (`interlude call … | head`); what a shell reports
/// for a process ended by SIGPIPE (128 + 13).
pub(crate) const EXIT_CLOSED_PIPE: u8 = 141;

/// Stdout's reader left: nothing more can be said there, and nothing is wrong.
#[derive(Debug)]
pub(crate) struct ClosedPipe;

impl std::fmt::Display for ClosedPipe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("stdout was closed")
    }
}

impl std::error::Error for ClosedPipe {}

/// Writes a line to stdout. A closed pipe is [`ClosedPipe`] (a quiet end, see `main`), not a
/// panic as with `println!`; any other failure to write is an error.
pub(crate) fn out(line: std::fmt::Arguments<'_>) -> anyhow::Result<()> {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    match writeln!(stdout, "{line}").and_then(|()| stdout.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Err(ClosedPipe.into()),
        Err(e) => Err(anyhow::Error::new(e).context("cannot write to stdout")),
    }
}

/// `println!` that ends the command quietly when stdout's reader has left (see [`out`]).
macro_rules! outln {
    ($($arg:tt)*) => {
        crate::out(format_args!($($arg)*))?
    };
}
pub(crate) use outln;

/// `n` and `word`, in the plural unless `n` is 1: `plural(3, "call")` is "3 calls".
pub(crate) fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else if word.ends_with('s') || word.ends_with("ch") {
        format!("{n} {word}es")
    } else {
        format!("{n} {word}s")
    }
}

fn init_tracing(quiet: bool) {
    // rmcp's own warnings name its internals (`response error id=… error=ErrorData {…}`); the
    // host says what it refused, and why, in a sentence of its own.
    let default = if quiet { "off" } else { "warn,rmcp=error" };
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        // A person reads these: the sentence, not the module it came from.
        .with_target(false)
        // Colour codes only on a terminal (and not under NO_COLOR): a log file or a pipe gets
        // plain text.
        .with_ansi(
            std::io::IsTerminal::is_terminal(&std::io::stderr())
                && std::env::var_os("NO_COLOR").is_none(),
        )
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("INTERLUDE_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default)),
        )
        .init();
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // In the terminal surface, log lines would land in the middle of prompts: off unless asked
    // for with INTERLUDE_LOG.
    init_tracing(match &cli.command {
        Command::Connect(a) => a.tui(),
        Command::Record(a) => a.tui(),
        _ => false,
    });
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
            Command::Demo(args) => serve::demo(args).await,
            Command::Connect(args) => serve::connect(args, None).await,
            Command::Record(args) => record::run(args).await,
            Command::Replay(args) => replay::run(args).await,
            Command::Call(args) => call::run(args).await,
            Command::Tools(args) => call::tools(args).await,
            Command::CheckUrl(args) => check_url::run(&args),
            Command::DemoServer => demo_server().await,
        }
    });
    match result {
        Ok(code) => ExitCode::from(code),
        // The reader of stdout left (`| head`): the command ends quietly, with the code a
        // shell reports for a process ended by SIGPIPE.
        Err(e) if e.is::<ClosedPipe>() => ExitCode::from(EXIT_CLOSED_PIPE),
        Err(e) => {
            eprintln!("interlude: {e:#}");
            ExitCode::from(EXIT_ERROR)
        }
    }
}
