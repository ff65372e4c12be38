//! `interlude call`: one tool call, answered headless.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, bail};
use clap::Args;
use interlude_engine::{Answer, DevOrigin, Reply};
use interlude_headless::{Answers, HeadlessSurface};
use interlude_host::{Host, HostConfig, HostError, ProtocolChoice, RequestStatus, ServerSpec};
use rmcp::model::ProtocolVersion;
use serde_json::Value;

use crate::{EXIT_DECLINED, EXIT_ERROR, EXIT_INTERRUPTED, EXIT_OK, EXIT_TOOL_ERROR};

/// How long an interrupted call may take to end after it was cancelled.
const INTERRUPT_WAIT: Duration = Duration::from_secs(5);

#[derive(Debug, Args)]
pub(crate) struct CallArgs {
    /// The server: an http(s):// URL for streamable HTTP, or a (quoted) command line for stdio.
    server: String,
    /// The tool to call.
    tool: String,
    /// The tool's arguments, as a JSON object.
    #[arg(long, value_name = "JSON")]
    args: Option<String>,
    /// Answer elicitations from this JSON file: one object for all of them, or a list consumed
    /// in order; keys are property names, "action" may be "decline" or "cancel".
    #[arg(long, value_name = "FILE", conflicts_with = "auto_defaults")]
    answers: Option<PathBuf>,
    /// Accept every elicitation with the defaults its schema declares.
    #[arg(long)]
    auto_defaults: bool,
    /// Speak exactly this protocol version (default: 2026-07-28 when the server supports it,
    /// else 2025-11-25).
    #[arg(long, value_name = "VERSION")]
    protocol_version: Option<String>,
    /// Write every message to and from the server to this file, as JSON Lines
    /// (`{"t_ms", "server", "dir", "message"}`).
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
    /// Give up after this many seconds of active time (time spent waiting for answers does not
    /// count); 0 waits as long as the call takes.
    #[arg(long, value_name = "SECONDS", default_value_t = 300.0)]
    timeout: f64,
    /// Give up on a server that does not finish its handshake within this many seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    connect_timeout: f64,
    /// After a server says the call needs links opened first (-32042, or the draft's -32003)
    /// and the answers consent, wait at most this long for the server to say each flow
    /// finished, then retry the call (a call that keeps needing new links is retried at most
    /// 3 times; the same links asked again end it).
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0)]
    url_wait: f64,
    /// Declare the User Interaction draft (seed 000: `capabilities.userInteraction`), so that a
    /// server written against it can send `interaction/create` (a prompt is answered from the
    /// answers file like a form, a `ua` link like a URL request) or answer `-32003`.
    #[arg(long, env = "INTERLUDE_USER_INTERACTION")]
    user_interaction: bool,
    /// Allow links to this origin on this machine in plain http (e.g. http://127.0.0.1:4000, a
    /// server under development); may be given more than once.
    #[arg(long, value_name = "ORIGIN")]
    dev_origin: Vec<String>,
    /// Give servers this folder as a root (their answer to `roots/list`); may be given more
    /// than once. None by default.
    #[arg(long, value_name = "DIR")]
    root: Vec<PathBuf>,
    /// Do not declare sampling: servers cannot ask for a model's reply (by default the person
    /// writes it).
    #[arg(long)]
    no_sampling: bool,
}

pub(crate) fn protocol_choice(version: Option<&str>) -> anyhow::Result<ProtocolChoice> {
    let Some(v) = version else {
        return Ok(ProtocolChoice::Auto);
    };
    let known = [
        ProtocolVersion::V_2025_06_18,
        ProtocolVersion::V_2025_11_25,
        ProtocolVersion::V_2026_07_28,
    ];
    match known.into_iter().find(|k| k.as_str() == v) {
        Some(k) => Ok(ProtocolChoice::Pin(k)),
        None => {
            bail!("unsupported protocol version `{v}` (known: 2025-06-18, 2025-11-25, 2026-07-28)")
        }
    }
}

/// `--trace FILE`: checked now (the file can be created, mode 0600, not through a link, in a
/// folder only the user may write to), so a wrong path is an error of the command line rather
/// than a warning in the middle of a run.
pub(crate) fn trace_file(path: Option<&std::path::Path>) -> anyhow::Result<Option<PathBuf>> {
    let Some(path) = path else { return Ok(None) };
    interlude_host::private_file::create_fresh(path)
        .with_context(|| format!("--trace: cannot write {}", path.display()))?;
    Ok(Some(path.to_owned()))
}

/// `--timeout` (seconds of active time per call, 0 for none) and `--connect-timeout` (seconds
/// for the handshake), read into `config`.
pub(crate) fn set_timeouts(
    config: &mut HostConfig,
    timeout: f64,
    connect_timeout: f64,
) -> anyhow::Result<()> {
    config.call_timeout = match timeout {
        0.0 => None,
        secs => {
            Some(Duration::try_from_secs_f64(secs).context("--timeout must be a positive number")?)
        }
    };
    config.connect_timeout = Duration::try_from_secs_f64(connect_timeout)
        .ok()
        .filter(|d| !d.is_zero())
        .context("--connect-timeout must be a positive number")?;
    Ok(())
}

/// The roots given with `--root`, then those of a config file's `roots` (folder paths, relative
/// to the file's folder, or `{"uri", "name"}` objects).
pub(crate) fn roots(
    given: &[std::path::PathBuf],
    config: Option<(&std::path::Path, &Value)>,
) -> anyhow::Result<Vec<interlude_host::Root>> {
    let mut roots = Vec::new();
    for dir in given {
        roots.push(
            interlude_host::Root::from_dir(dir)
                .with_context(|| format!("--root {}", dir.display()))?,
        );
    }
    if let Some((file, json)) = config
        && let Some(listed) = json.get("roots")
    {
        let Some(listed) = listed.as_array() else {
            bail!("{}: `roots` must be an array", file.display());
        };
        let base = file.parent().unwrap_or_else(|| std::path::Path::new("."));
        for (i, root) in listed.iter().enumerate() {
            let root = match root {
                Value::String(dir) => {
                    interlude_host::Root::from_dir(base.join(dir)).map_err(anyhow::Error::from)
                }
                Value::Object(_) => {
                    match serde_json::from_value::<interlude_host::Root>(root.clone()) {
                        Ok(r) if r.uri.starts_with("file://") => Ok(r),
                        Ok(_) => Err(anyhow::anyhow!("`uri` must be a file:// URI")),
                        Err(e) => Err(anyhow::Error::from(e)),
                    }
                }
                _ => Err(anyhow::anyhow!(
                    "must be a folder path or an object with `uri`"
                )),
            }
            .with_context(|| format!("{}: roots[{i}]", file.display()))?;
            roots.push(root);
        }
    }
    Ok(roots)
}

/// The `--dev-origin` values, read.
pub(crate) fn dev_origins(given: &[String]) -> anyhow::Result<Vec<DevOrigin>> {
    given
        .iter()
        .map(|o| DevOrigin::parse(o).with_context(|| format!("--dev-origin {o}")))
        .collect()
}

pub(crate) async fn run(args: CallArgs) -> anyhow::Result<u8> {
    let scripted = args.answers.is_some() || args.auto_defaults;
    let arguments = match &args.args {
        None => None,
        Some(text) => match interlude_host::parse_arguments(text) {
            Ok(o) => Some(o),
            Err(e) => bail!("--args: {}", e.message),
        },
    };
    let answers = match (&args.answers, args.auto_defaults) {
        (Some(path), _) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read answers file {}", path.display()))?;
            let json: Value = serde_json::from_str(&text)
                .with_context(|| format!("answers file {} is not valid JSON", path.display()))?;
            Answers::from_json(&json).with_context(|| format!("answers file {}", path.display()))?
        }
        (None, true) => Answers::Defaults,
        (None, false) => Answers::Script(Vec::new()),
    };
    let mut config = HostConfig {
        protocol: protocol_choice(args.protocol_version.as_deref())?,
        trace: trace_file(args.trace.as_deref())?,
        eras: crate::era_memory(),
        ..HostConfig::default()
    };
    set_timeouts(&mut config, args.timeout, args.connect_timeout)?;
    if args.user_interaction {
        config.declare = config.declare.with_user_interaction();
    }
    config.url_wait = Duration::try_from_secs_f64(args.url_wait)
        .context("--url-wait must be a positive number")?;
    config.engine.url_policy.dev_origins = dev_origins(&args.dev_origin)?;
    config.roots = roots(&args.root, None)?;
    config.declare.sampling = !args.no_sampling;
    // A consented link is printed, never opened here: whoever opens it does so in their own
    // browser, so the name is not looked up on their behalf.
    config.engine.resolve_links = false;
    // A link the answers consented to is printed, never fetched or opened.
    let surface = HeadlessSurface::new(answers).on_link(|url| {
        eprintln!("interlude: open this link in your browser to continue: {url}");
    });
    // Progress is for a person watching: printed only when stderr is a terminal.
    let surface = if std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        surface.on_progress(|call, p| {
            eprintln!("interlude: {}: {p}", call.tool);
        })
    } else {
        surface
    };
    let host = Host::start(config, surface);
    let spec = ServerSpec::parse(&args.server)?;
    let connection = host.connect("server", spec).await?;
    // Arguments that do not fit the tool's input schema never leave: each problem is named.
    if let Err(errors) = connection.check_arguments(&args.tool, arguments.as_ref()) {
        connection.close().await;
        for e in &errors {
            eprintln!("interlude: --args: {}", e.message);
        }
        eprintln!(
            "interlude: the arguments do not fit the input schema of `{}`; the call was not sent",
            args.tool
        );
        return Ok(EXIT_ERROR);
    }
    // Ctrl-C cancels the call, as the page's Cancel does: the server is told (a task with
    // `tasks/cancel`) before the connection closes.
    let call = connection.start_call(&args.tool, arguments);
    let id = call.id();
    let mut running = std::pin::pin!(call.outcome());
    let outcome = tokio::select! {
        outcome = &mut running => outcome,
        Ok(()) = tokio::signal::ctrl_c() => {
            host.cancel_call(id);
            let _ = tokio::time::timeout(INTERRUPT_WAIT, &mut running).await;
            connection.close().await;
            eprintln!("interlude: interrupted; the call was cancelled and the server told");
            return Ok(EXIT_INTERRUPTED);
        }
    };
    connection.close().await;
    // The call needed the person's consent first and did not get it: declined, not failed.
    if let Err(e @ HostError::NotGiven { .. }) = &outcome {
        eprintln!("interlude: {e}");
        return Ok(EXIT_DECLINED);
    }
    let outcome = outcome?;
    println!("{}", serde_json::to_string_pretty(&outcome.result)?);
    // A view in the result (MCP-UI's way of sending one) is data here: say what it is.
    if let Ok(serde_json::Value::Array(content)) = serde_json::to_value(&outcome.result.content) {
        for view in interlude_host::embedded::embedded_views(&content) {
            eprintln!(
                "interlude: the result carries {} at content[{}] ({}); `interlude connect` shows it",
                view.content.describe(),
                view.index,
                view.uri
            );
        }
    }

    // What became of every request the call raised, from the host's record of the call.
    let requests = host
        .call(outcome.call)
        .map(|c| c.requests.clone())
        .unwrap_or_default();
    let mut declined = false;
    let mut invalid = false;
    for record in requests.iter().filter_map(|id| host.request(*id)) {
        if !record.errors.is_empty() {
            invalid = true;
            let errors: Vec<String> = record.errors.iter().map(ToString::to_string).collect();
            eprintln!(
                "interlude: the scripted answer to \"{}\" was invalid ({}); the request was cancelled",
                record.request.message(),
                errors.join("; ")
            );
        }
        match &record.status {
            RequestStatus::Replied(Reply::Answered(Answer::Declined | Answer::Cancelled))
            | RequestStatus::Closed(_) => declined = true,
            _ => {}
        }
        // Without a script, every request is cancelled (a link declined): say why.
        if !scripted && matches!(record.status, RequestStatus::Replied(Reply::Answered(_))) {
            eprintln!(
                "interlude: \"{}\" asked: {} — not answered: give --answers FILE or \
                 --auto-defaults to answer it",
                record.request.server_name,
                record.request.message()
            );
        }
    }
    // An answers file that does not fit the form is an error of the run (the person declined
    // nothing).
    if invalid {
        return Ok(EXIT_ERROR);
    }
    // The tool said it failed: the call worked, the result (printed) says what went wrong.
    if outcome.result.is_error == Some(true) {
        eprintln!(
            "interlude: the tool answered that it failed (isError: true); its result is above"
        );
        return Ok(EXIT_TOOL_ERROR);
    }
    Ok(if declined { EXIT_DECLINED } else { EXIT_OK })
}
