//! The terminal surface on the servers named on the command line, each `NAME=SPEC` or just
//! `SPEC` (a command line for stdio, or an `http(s)://` URL); the name defaults to the program's
//! file name or the URL's host. The terminal tests launch this under tmux.
//!
//! Run with: `cargo run -p interlude-tui --example tui_demo -- demo=target/debug/interlude-demo`
//!
//! `TUI_DEMO_DEV_ORIGIN=http://127.0.0.1:PORT` allows that origin in plain http (a server under
//! development, such as `interlude-demo --http`, whose URL-flow pages are there).
//! `TUI_DEMO_PROTOCOL=2025-11-25` speaks exactly that version (default: negotiate).
//! `TUI_DEMO_USER_INTERACTION=1` declares the User Interaction draft of seed 000
//! (`interaction/create`), as `interlude connect --user-interaction` does.
// An example's failure message has nowhere to go but stderr.
#![allow(clippy::print_stderr)]

use std::process::ExitCode;

use interlude_host::{HostConfig, ServerSpec};

fn name_and_spec(arg: &str) -> (Option<&str>, &str) {
    match arg.split_once('=') {
        Some((name, spec))
            if !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') =>
        {
            (Some(name), spec)
        }
        _ => (None, arg),
    }
}

fn default_name(spec: &ServerSpec) -> String {
    match spec {
        ServerSpec::Stdio { command, .. } => std::path::Path::new(command)
            .file_stem()
            .map_or_else(|| command.clone(), |s| s.to_string_lossy().into_owned()),
        ServerSpec::Http { url, .. } => url
            .split("://")
            .nth(1)
            .and_then(|rest| rest.split(['/', ':']).next())
            .unwrap_or(url)
            .to_owned(),
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let mut servers = Vec::new();
    for arg in std::env::args().skip(1) {
        let (name, spec) = name_and_spec(&arg);
        match ServerSpec::parse(spec) {
            Ok(spec) => {
                let name = name.map_or_else(|| default_name(&spec), str::to_owned);
                servers.push((name, spec));
            }
            Err(e) => {
                eprintln!("tui_demo: {arg}: {e}");
                return ExitCode::from(2);
            }
        }
    }
    if servers.is_empty() {
        eprintln!("usage: tui_demo [NAME=]SERVER…");
        return ExitCode::from(2);
    }
    // A server under development serving its URL-flow pages in plain http on this machine.
    let mut config = HostConfig::default();
    if let Ok(origin) = std::env::var("TUI_DEMO_DEV_ORIGIN") {
        match interlude_host::DevOrigin::parse(&origin) {
            Ok(o) => config.engine.url_policy.dev_origins = vec![o],
            Err(e) => {
                eprintln!("tui_demo: TUI_DEMO_DEV_ORIGIN: {e}");
                return ExitCode::from(2);
            }
        }
    }
    if let Ok(version) = std::env::var("TUI_DEMO_PROTOCOL") {
        let known = [
            rmcp::model::ProtocolVersion::V_2025_06_18,
            rmcp::model::ProtocolVersion::V_2025_11_25,
            rmcp::model::ProtocolVersion::V_2026_07_28,
        ];
        match known.into_iter().find(|k| k.as_str() == version) {
            Some(pinned) => config.protocol = interlude_host::ProtocolChoice::Pin(pinned),
            None => {
                eprintln!("tui_demo: TUI_DEMO_PROTOCOL: unknown version {version}");
                return ExitCode::from(2);
            }
        }
    }
    if std::env::var("TUI_DEMO_USER_INTERACTION").is_ok_and(|v| v == "1") {
        config.declare = config.declare.with_user_interaction();
    }
    match interlude_tui::run(config, servers).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tui_demo: {e}");
            ExitCode::from(2)
        }
    }
}
