//! `interlude replay FILE SERVER`: a recording's calls made again, headless, with the answers
//! the person gave; every difference in what the server asked or in the results is printed.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, bail};
use clap::Args;
use interlude_headless::recording::{IgnorePointer, RecordedCall, Recording, compare};
use interlude_headless::{AnswerQueue, Answers, HeadlessSurface};
use interlude_host::{Host, HostConfig, ServerSpec};

use crate::{EXIT_DIFFERENT, EXIT_OK};

#[derive(Debug, Args)]
pub(crate) struct ReplayArgs {
    /// The recording (written by `interlude record` or the page's Export).
    file: PathBuf,
    /// The server to make the calls on: an http(s):// URL, or a (quoted) command line for
    /// stdio.
    server: String,
    /// Which recorded server's calls to make, when the recording holds calls to several.
    #[arg(long, value_name = "NAME")]
    only: Option<String>,
    /// A part of every result not to compare (a time, a random id), as a JSON Pointer into the
    /// result in which `*` is any key or index: `/content/*/text`. May be given more than once.
    #[arg(long, value_name = "POINTER")]
    ignore: Vec<String>,
    /// Speak this protocol version (default: the one the recorded server spoke).
    #[arg(long, value_name = "VERSION")]
    protocol_version: Option<String>,
    /// Write every message to and from the server to this file, as JSON Lines.
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
    /// Give up on a call after this many seconds; 0 waits as long as it takes.
    #[arg(long, value_name = "SECONDS", default_value_t = 300.0)]
    timeout: f64,
    /// Give up on a server that does not finish its handshake within this many seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    connect_timeout: f64,
    /// Allow links to this origin on this machine in plain http (e.g. http://127.0.0.1:4000);
    /// may be given more than once.
    #[arg(long, value_name = "ORIGIN")]
    dev_origin: Vec<String>,
    /// Give the server this folder as a root; may be given more than once.
    #[arg(long, value_name = "DIR")]
    root: Vec<PathBuf>,
    /// Send this header with every request to an http(s) SERVER (`NAME:VALUE`); may be given
    /// more than once.
    #[arg(long, value_name = "NAME:VALUE")]
    header: Vec<String>,
}

/// The recorded server whose calls are made again: `--only`, or the one there is.
fn chosen<'a>(recording: &'a Recording, only: Option<&'a str>) -> anyhow::Result<&'a str> {
    let names = recording.server_names();
    match (only, names.as_slice()) {
        (Some(name), _) if names.contains(&name) => Ok(name),
        (Some(name), []) => bail!("--only {name}: the recording holds no calls"),
        (Some(name), _) => bail!(
            "--only {name}: the recording holds no call to `{name}` (it has: {})",
            names.join(", ")
        ),
        (None, []) => bail!("the recording holds no calls: nothing to replay"),
        (None, [one]) => Ok(one),
        (None, many) => bail!(
            "the recording holds calls to several servers ({}): say which with --only NAME",
            many.join(", ")
        ),
    }
}

pub(crate) async fn run(args: ReplayArgs) -> anyhow::Result<u8> {
    // Over `Recording::MAX_BYTES`, refused before it is read whole.
    let recording =
        Recording::read_file(&args.file).with_context(|| format!("{}", args.file.display()))?;
    let ignore = args
        .ignore
        .iter()
        .map(|p| IgnorePointer::parse(p).map_err(anyhow::Error::msg))
        .collect::<anyhow::Result<Vec<_>>>()
        .context("--ignore")?;
    let name = chosen(&recording, args.only.as_deref())?;
    let calls: Vec<&RecordedCall> = recording
        .calls
        .iter()
        .filter(|c| c.server == name)
        .collect();
    let recorded_version = recording
        .servers
        .get(name)
        .and_then(|s| s.protocol_version.as_deref());

    let mut config = HostConfig {
        protocol: crate::call::protocol_choice(
            args.protocol_version.as_deref().or(recorded_version),
        )?,
        trace: crate::call::trace_file(args.trace.as_deref())?,
        eras: crate::era_memory(),
        roots: crate::call::roots(&args.root, None)?,
        ..HostConfig::default()
    };
    crate::call::set_timeouts(&mut config, args.timeout, args.connect_timeout)?;
    config.engine.url_policy.dev_origins = crate::call::dev_origins(&args.dev_origin)?;
    // Links are printed, never opened or looked up here (as `interlude call` does).
    config.engine.resolve_links = false;
    let queue = AnswerQueue::default();
    let surface = HeadlessSurface::new(Answers::Queue(queue.clone())).on_link(|url| {
        eprintln!("interlude: open this link in your browser to continue: {url}");
    });
    let host = Host::start(config, surface);
    let connection = host
        .connect(
            name,
            crate::call::with_headers(
                ServerSpec::parse(&args.server)?,
                &crate::call::headers(&args.header)?,
                true,
            )?,
        )
        .await
        .with_context(|| format!("cannot connect to {}", args.server))?;

    let total = calls.len();
    let mut different = 0;
    for (i, before) in calls.into_iter().enumerate() {
        queue.replace(before.script());
        let call = connection.start_call(&before.tool, before.arguments.clone());
        let id = call.id();
        // How it ended is in the record, whatever it was (a failure is compared, not fatal).
        let _ = call.await;
        // The record says the call ended once the host has applied its end (a moment after
        // the call's future finished, when the host is busy).
        let mut now = None;
        for _ in 0..500 {
            now = host
                .call(id)
                .and_then(|record| RecordedCall::of(&record, |r| host.request(r)));
            if now.is_some() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let now = now.with_context(|| format!("call {} ({}) did not end", i + 1, before.tool))?;
        let differences = compare(before, &now, &ignore);
        if differences.is_empty() {
            crate::outln!("call {} of {total}: {} — the same", i + 1, before.tool);
        } else {
            different += 1;
            crate::outln!(
                "call {} of {total}: {} — {}:",
                i + 1,
                before.tool,
                crate::plural(differences.len(), "difference")
            );
            for d in &differences {
                crate::outln!("  {d}");
            }
        }
    }
    connection.close().await;
    crate::outln!(
        "{} of `{name}` made again on {}: {} the same, {different} different",
        crate::plural(total, "call"),
        args.server,
        total - different
    );
    Ok(if different == 0 {
        EXIT_OK
    } else {
        EXIT_DIFFERENT
    })
}
