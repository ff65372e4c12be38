//! `interlude call`: one tool call, answered headless.

use std::collections::BTreeMap;
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
    /// The tool to call (without it, the server's tools are listed, as `interlude tools` does).
    tool: Option<String>,
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
    /// Send this header with every request to an http(s) server (`NAME:VALUE`, e.g.
    /// `"Authorization: Bearer …"`); may be given more than once.
    #[arg(long, value_name = "NAME:VALUE")]
    header: Vec<String>,
}

#[derive(Debug, Args)]
pub(crate) struct ToolsArgs {
    /// The server: an http(s):// URL for streamable HTTP, or a (quoted) command line for stdio.
    server: String,
    /// Also list the tools only the server's app views may call (marked `app only`).
    #[arg(long)]
    all: bool,
    /// Send this header with every request to an http(s) server (`NAME:VALUE`); may be given
    /// more than once.
    #[arg(long, value_name = "NAME:VALUE")]
    header: Vec<String>,
    /// Speak exactly this protocol version (default: negotiate).
    #[arg(long, value_name = "VERSION")]
    protocol_version: Option<String>,
    /// Give up on a server that does not finish its handshake within this many seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    connect_timeout: f64,
}

/// The `--header NAME:VALUE` values, read.
pub(crate) fn headers(given: &[String]) -> anyhow::Result<BTreeMap<String, String>> {
    let mut headers = BTreeMap::new();
    for h in given {
        let Some((name, value)) = h.split_once(':') else {
            bail!("--header {h}: expected NAME:VALUE");
        };
        let name = name.trim();
        if name.is_empty() || !name.bytes().all(|b| b.is_ascii_graphic() && b != b':') {
            bail!("--header {h}: `{name}` is not a header name");
        }
        headers.insert(name.to_owned(), value.trim().to_owned());
    }
    Ok(headers)
}

/// `spec` with `headers` added (an HTTP server's); for a stdio server, `strict` makes headers an
/// error and otherwise they are left out.
pub(crate) fn with_headers(
    mut spec: ServerSpec,
    given: &BTreeMap<String, String>,
    strict: bool,
) -> anyhow::Result<ServerSpec> {
    match &mut spec {
        ServerSpec::Http { headers, .. } => {
            headers.extend(given.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        _ if strict && !given.is_empty() => {
            bail!(
                "--header is for http(s) servers; {} is a command",
                spec.target()
            )
        }
        _ => {}
    }
    Ok(spec)
}

/// The number of single-character edits (insert, delete, replace) from `a` to `b`.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    // The distances from a's first i characters to each prefix of b, row by row.
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = Vec::with_capacity(previous.len());
        current.push(i + 1);
        for ((cb, diagonal), above) in b.iter().zip(&previous).zip(previous.iter().skip(1)) {
            let left = current.last().copied().unwrap_or(0);
            current.push(
                (above + 1)
                    .min(left + 1)
                    .min(diagonal + usize::from(ca != *cb)),
            );
        }
        previous = current;
    }
    previous.last().copied().unwrap_or(0)
}

/// The names among `names` nearest to `wanted` (a third of its length wrong at most, and at
/// least 2), nearest first: what a misspelt tool name probably meant.
fn nearest<'a>(wanted: &str, names: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let limit = (wanted.chars().count() / 3).max(2);
    let mut near: Vec<(usize, &str)> = names
        .map(|n| (edit_distance(wanted, n), n))
        .filter(|(d, _)| *d <= limit)
        .collect();
    near.sort();
    near.into_iter().take(3).map(|(_, n)| n).collect()
}

/// One line per tool: name, title (when it has one), the first line of its description.
fn print_tools(server: &interlude_host::ServerRecord, all: bool) -> anyhow::Result<()> {
    let model: std::collections::HashSet<&str> =
        server.model_tools().map(|t| t.name.as_ref()).collect();
    let shown: Vec<_> = server
        .tools
        .iter()
        .filter(|t| all || model.contains(t.name.as_ref()))
        .collect();
    let hidden = server.tools.len() - shown.len();
    let width = shown
        .iter()
        .map(|t| t.name.chars().count())
        .max()
        .unwrap_or(0);
    for tool in &shown {
        let mut line = format!("{:width$}", tool.name.as_ref());
        if !model.contains(tool.name.as_ref()) {
            line.push_str("  [app only]");
        }
        if let Some(title) = tool.title.as_deref().filter(|t| !t.is_empty()) {
            line.push_str("  ");
            line.push_str(title);
            line.push_str(" —");
        }
        let description = tool
            .description
            .as_deref()
            .and_then(|d| d.lines().map(str::trim).find(|l| !l.is_empty()));
        if let Some(d) = description {
            line.push_str("  ");
            line.push_str(d);
        }
        crate::outln!("{}", line.trim_end_matches(" —"));
    }
    if shown.is_empty() {
        eprintln!("interlude: `{}` lists no tools", server.name);
    }
    if hidden > 0 {
        eprintln!(
            "interlude: {} only the server's app views may call left out (--all lists them)",
            crate::plural(hidden, "tool")
        );
    }
    Ok(())
}

/// `interlude tools SERVER`: the server's tools, listed.
pub(crate) async fn tools(args: ToolsArgs) -> anyhow::Result<u8> {
    let mut config = HostConfig {
        protocol: protocol_choice(args.protocol_version.as_deref())?,
        eras: crate::era_memory(),
        ..HostConfig::default()
    };
    set_timeouts(&mut config, 0.0, args.connect_timeout)?;
    let headers = headers(&args.header)?;
    list(config, &args.server, &headers, args.all).await
}

async fn list(
    config: HostConfig,
    server: &str,
    headers: &BTreeMap<String, String>,
    all: bool,
) -> anyhow::Result<u8> {
    let spec = with_headers(ServerSpec::parse(server)?, headers, true)?;
    let host = Host::start(config, HeadlessSurface::new(Answers::Script(Vec::new())));
    let connection = host.connect(&spec.default_name(), spec).await?;
    let record = host.server(connection.id());
    let printed = match &record {
        Some(record) => print_tools(record, all),
        None => Err(anyhow::anyhow!("the server's record is gone")),
    };
    connection.close().await;
    printed?;
    Ok(EXIT_OK)
}

/// Whether the host refuses `url` (under these `--dev-origin`s) because it points at this
/// machine.
fn refused_as_local(url: &str, dev_origins: &[DevOrigin]) -> bool {
    let policy = interlude_engine::UrlPolicy {
        allow_loopback_http: false,
        dev_origins: dev_origins.to_vec(),
    };
    let check = interlude_engine::check_url(url, &policy);
    check.verdict == interlude_engine::url_safety::Verdict::Refuse
        && check
            .codes()
            .any(|c| c == "loopback_address" || c == "localhost")
}

/// `s` quoted for a shell when it holds more than one word.
fn shell_quoted(s: &str) -> String {
    if s.contains(|c: char| c.is_whitespace() || c == '\'' || c == '"') {
        format!("'{}'", s.replace('\'', r"'\''"))
    } else {
        s.to_owned()
    }
}

/// The origin (`scheme://host:port`) of a link, as `--dev-origin` takes it.
fn origin_of(url: &str) -> Option<&str> {
    let (scheme, rest) = url.split_once("://")?;
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    Some(&url[..scheme.len() + 3 + end])
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
    let headers = headers(&args.header)?;
    let Some(tool) = args.tool.clone() else {
        if args.args.is_some() || scripted {
            bail!("no TOOL to call (without one, `call SERVER` lists the server's tools)");
        }
        // No tool: the server's tools, as `interlude tools` lists them.
        return list(config, &args.server, &headers, false).await;
    };
    let dev_origins = config.engine.url_policy.dev_origins.clone();
    let host = Host::start(config, surface);
    let spec = with_headers(ServerSpec::parse(&args.server)?, &headers, true)?;
    // Named as `connect` names it (the program, the package it launches, or host:port): in
    // messages and in the trace.
    let name = spec.default_name();
    let connection = host.connect(&name, spec).await?;
    // A tool the server does not list is not sent: the nearest names are suggested.
    if let Some(record) = host.server(connection.id())
        && !record.tools.is_empty()
        && !record.tools.iter().any(|t| t.name == tool)
    {
        connection.close().await;
        let near = nearest(&tool, record.model_tools().map(|t| t.name.as_ref()));
        let hint = match near.as_slice() {
            [] => format!(
                "`interlude tools {}` lists them",
                shell_quoted(&args.server)
            ),
            [one] => format!("did you mean `{one}`?"),
            many => format!(
                "did you mean {}?",
                many.iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(" or ")
            ),
        };
        // Named as the page names it: what the server says it is, then our name for it.
        let shown = match &record.identity {
            Some(id) if id.name != name => format!("`{}` ({name})", id.name),
            _ => format!("`{name}`"),
        };
        eprintln!("interlude: {shown} has no tool `{tool}`; {hint}");
        return Ok(EXIT_ERROR);
    }
    // Arguments that do not fit the tool's input schema never leave: each problem is named.
    if let Err(errors) = connection.check_arguments(&tool, arguments.as_ref()) {
        connection.close().await;
        for e in &errors {
            eprintln!("interlude: --args: {}", e.message);
        }
        eprintln!(
            "interlude: the arguments do not fit the input schema of `{tool}`; the call was not sent"
        );
        return Ok(EXIT_ERROR);
    }
    // Ctrl-C cancels the call, as the page's Cancel does: the server is told (a task with
    // `tasks/cancel`) before the connection closes.
    let call = connection.start_call(&tool, arguments);
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
    crate::outln!("{}", serde_json::to_string_pretty(&outcome.result)?);
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
        // A link refused for pointing at this machine: the flag that allows it is named.
        if let RequestStatus::Replied(Reply::Error { .. }) = &record.status
            && let interlude_engine::RequestKind::Url(url) = &record.request.kind
            && let Some(origin) = origin_of(&url.url)
            && refused_as_local(&url.url, &dev_origins)
        {
            eprintln!(
                "interlude: the link {} was refused: it points at this machine; if it is a \
                 server under development, allow it with --dev-origin {origin}",
                url.url
            );
        }
        match &record.status {
            RequestStatus::Replied(Reply::Answered(Answer::Declined | Answer::Cancelled))
            | RequestStatus::Closed(_) => declined = true,
            _ => {}
        }
        let link = matches!(
            record.request.kind,
            interlude_engine::RequestKind::Url(_) | interlude_engine::RequestKind::ViewLink(_)
        );
        // Defaults fill forms; a link is opened only with a word of consent.
        if link
            && args.auto_defaults
            && matches!(
                record.status,
                RequestStatus::Replied(Reply::Answered(Answer::Declined))
            )
        {
            eprintln!(
                "interlude: \"{}\" asked: {} — declined: --auto-defaults never consents to a \
                 link; an answers file holding {{}} does (--answers FILE)",
                record.request.server_name,
                record.request.message()
            );
        }
        // Without a script, every request is cancelled (a link declined): say why.
        if !scripted && link && matches!(record.status, RequestStatus::Replied(Reply::Answered(_)))
        {
            eprintln!(
                "interlude: \"{}\" asked: {} — declined: give --answers FILE holding {{}} to \
                 consent to the link (it is printed, never opened here)",
                record.request.server_name,
                record.request.message()
            );
        } else if !scripted && matches!(record.status, RequestStatus::Replied(Reply::Answered(_))) {
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
