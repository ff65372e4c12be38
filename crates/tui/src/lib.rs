//! The Interlude terminal surface: connect to MCP servers, call their tools, and answer what they
//! ask of a person with terminal prompts ([`inquire`]).
//!
//! [`run`] is the whole of it: it starts an [`interlude_host::Host`] with a terminal
//! [`Surface`](interlude_host::Surface), connects to every server, then loops on a tool menu.
//! While a tool runs, each elicitation it raises (either protocol era) is shown as a header naming
//! the requesting server, the message as plain text, one prompt per field with the engine's own
//! validation rules, a review of what would be sent, and a final Accept / Edit / Decline /
//! Cancel; a link (URL mode) is shown with its warnings and opened only with consent. Esc or
//! Ctrl-C at any prompt cancels the request. [`terminal`] splits the surface for a host shared
//! with a web page, to which a [`Handoff`] gives what a terminal cannot show (a call's app view,
//! a question asked in a view).
//!
//! How it is put together: the host's core calls the surface, which must not block, so the
//! surface only forwards what it is told over a channel (`surface.rs`); one thread owns the
//! terminal and does all prompting and printing (`ui.rs`, `request.rs`, `form.rs`, `link.rs`,
//! `line.rs`, `tools.rs`, `handoff.rs`, `render.rs`); tool calls run on the tokio runtime and
//! report back over the same channel.
//!
//! What it deliberately does not do: parse command lines or configuration files (the `interlude`
//! CLI does and calls [`run`]), decide what is valid (the schema's rules, shared with the
//! engine), or render anything a server sends as markup: control characters and bidirectional
//! overrides are shown as visible stand-ins, and server text is always set off under a gutter so
//! it cannot pass for the surface's own headers.

mod catalog;
mod form;
mod handoff;
mod keys;
mod line;
mod render;
mod request;
mod surface;
mod tools;
mod ui;

use std::sync::{Arc, mpsc};

use inquire::InquireError;
use interlude_host::{Host, HostConfig, ServerSpec};

pub use crate::handoff::{Handoff, HandoffTarget};
use crate::render::{Screen, Style, plain_line, styled};
pub use crate::surface::TerminalSurface;
use crate::surface::{Events, UiEvent};

/// Why the terminal surface stopped other than by the person quitting.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TuiError {
    /// `run` was given no server.
    #[error("no server to connect to")]
    NoServers,
    /// Not one of the servers could be connected (each failure was shown as it happened).
    #[error("no server could be connected: {reasons}")]
    NoServerConnected {
        /// Every failure, in order, separated by `; `.
        reasons: String,
    },
    /// Standard input is not an interactive terminal.
    #[error("the terminal surface needs an interactive terminal (stdin is not a TTY)")]
    NotATerminal,
    /// Reading from or writing to the terminal failed.
    #[error("terminal error: {0}")]
    Terminal(#[source] InquireError),
    /// The host is gone.
    #[error("the host stopped unexpectedly")]
    HostStopped,
    /// The terminal thread panicked.
    #[error("the terminal thread stopped unexpectedly")]
    Panicked,
}

impl From<InquireError> for TuiError {
    fn from(e: InquireError) -> Self {
        match e {
            InquireError::NotTTY => TuiError::NotATerminal,
            other => TuiError::Terminal(other),
        }
    }
}

/// Runs the terminal surface until the person picks "Quit" (or presses Esc at the tool menu).
///
/// Connects to each `(name, spec)` in order, showing the name; a server that cannot be reached
/// is reported and skipped (an error only when none can). Then it lists every server's tools and
/// loops: pick a tool, enter its arguments (one prompt per property for flat input schemas, a
/// JSON object otherwise), answer whatever the call asks, read the result. On the way out every
/// connection is closed, which stops the servers started over stdio.
///
/// Needs an interactive terminal on stdin/stdout and a tokio runtime (the current one is used;
/// prompting happens on a blocking thread of its pool). While a call is in flight and no prompt
/// is on screen, Ctrl-C abandons the call; for that, this function installs a tokio Ctrl-C
/// handler, which stays installed for the rest of the process.
///
/// Logs: anything the caller's `tracing` subscriber writes to the terminal interleaves with the
/// prompts, so send logs to a file (or nowhere) while this runs.
///
/// # Example
/// ```no_run
/// use interlude_host::{HostConfig, ServerSpec};
///
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// let servers = vec![("demo".to_owned(), ServerSpec::parse("interlude-demo")?)];
/// interlude_tui::run(HostConfig::default(), servers).await?;
/// # Ok(()) }
/// ```
pub async fn run(
    host_config: HostConfig,
    servers: Vec<(String, ServerSpec)>,
) -> Result<(), TuiError> {
    let (surface, terminal) = terminal();
    terminal
        .run(Host::start(host_config, surface), servers)
        .await
}

/// The terminal surface in two halves, for a host it shares with another surface: the
/// [`TerminalSurface`] to start the host with (beside the other surface, as a pair), and the
/// [`Terminal`] that runs the session over that host.
///
/// # Example
/// ```no_run
/// use std::sync::Arc;
/// use interlude_host::{Host, HostConfig, ServerSpec};
/// use interlude_tui::{Handoff, HandoffTarget};
///
/// struct Page(String);
/// impl Handoff for Page {
///     fn address(&self, _target: HandoffTarget) -> Result<String, String> {
///         Ok(self.0.clone())
///     }
/// }
///
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// let (surface, terminal) = interlude_tui::terminal();
/// let host = Host::start(HostConfig::default(), surface);
/// let servers = vec![("demo".to_owned(), ServerSpec::parse("interlude-demo")?)];
/// terminal
///     .with_handoff(Arc::new(Page("http://127.0.0.1:7280/".into())))
///     .run(host, servers)
///     .await?;
/// # Ok(()) }
/// ```
pub fn terminal() -> (TerminalSurface, Terminal) {
    let (tx, rx) = mpsc::channel();
    let heard = surface::Heard::default();
    (
        TerminalSurface::new(tx.clone(), heard.clone()),
        Terminal {
            tx,
            rx,
            heard,
            handoff: None,
        },
    )
}

/// The session half of the terminal surface (see [`terminal`]).
pub struct Terminal {
    tx: mpsc::Sender<UiEvent>,
    rx: mpsc::Receiver<UiEvent>,
    heard: surface::Heard,
    handoff: Option<Arc<dyn Handoff>>,
}

impl std::fmt::Debug for Terminal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Terminal")
            .field("handoff", &self.handoff.is_some())
            .finish_non_exhaustive()
    }
}

impl Terminal {
    /// Hands what a terminal cannot show — a call's app view, a question asked in an app view
    /// — to a web page over the same host, when the person wants it. The host should then
    /// declare MCP Apps (with app-rendered elicitation), as the web surface does.
    #[must_use]
    pub fn with_handoff(mut self, handoff: Arc<dyn Handoff>) -> Self {
        self.handoff = Some(handoff);
        self
    }

    /// Runs the session over `host` (started with this terminal's [`TerminalSurface`]) as
    /// [`run`] does, connecting each server first; on the way out every connection is closed.
    pub async fn run(self, host: Host, servers: Vec<(String, ServerSpec)>) -> Result<(), TuiError> {
        let Terminal {
            tx,
            rx,
            heard,
            handoff,
        } = self;
        session(host, servers, tx, (rx, heard), handoff).await
    }
}

async fn session(
    host: Host,
    servers: Vec<(String, ServerSpec)>,
    tx: mpsc::Sender<UiEvent>,
    (rx, heard): (mpsc::Receiver<UiEvent>, surface::Heard),
    handoff: Option<Arc<dyn Handoff>>,
) -> Result<(), TuiError> {
    if servers.is_empty() {
        return Err(TuiError::NoServers);
    }
    let screen = Screen;
    let mut connected = 0usize;
    let mut failures = Vec::new();
    for (name, spec) in servers {
        let shown = plain_line(&name);
        screen.line(styled(
            Style::Dim,
            &format!("Connecting to \"{shown}\" ({})…", spec.transport()),
        ));
        match host.connect(name.clone(), spec).await {
            Ok(conn) => {
                let info = conn.info();
                // The tools the menu offers; those only the server's app views call are said
                // apart (the menu does not list them).
                let (tools, view_only) = host.server(conn.id()).map_or((0, 0), |s| {
                    let offered = s.model_tools().count();
                    (offered, s.tools.len().saturating_sub(offered))
                });
                screen.ok(&format!(
                    "Connected to \"{shown}\": protocol {} over {}, {} tool{}{}",
                    plain_line(&info.protocol_version),
                    info.transport,
                    tools,
                    if tools == 1 { "" } else { "s" },
                    match view_only {
                        0 => String::new(),
                        n => format!(" (and {n} only its app views call)"),
                    }
                ));
                connected += 1;
            }
            Err(e) => {
                screen.error(&plain_line(&e.to_string()));
                failures.push(e.to_string());
            }
        }
    }
    if connected == 0 {
        return Err(TuiError::NoServerConnected {
            reasons: failures.join("; "),
        });
    }
    let interrupts = {
        let tx = tx.clone();
        tokio::spawn(async move {
            while tokio::signal::ctrl_c().await.is_ok() {
                if tx.send(UiEvent::Interrupt).is_err() {
                    return;
                }
            }
        })
    };
    drop(tx);
    let session = ui::Session {
        screen,
        events: Events::new(rx),
        heard,
        handle: tokio::runtime::Handle::current(),
        host: host.clone(),
        handoff,
    };
    let result = tokio::task::spawn_blocking(move || session.run())
        .await
        .unwrap_or(Err(TuiError::Panicked));
    interrupts.abort();
    // Stops the servers started over stdio.
    host.close_all().await;
    result
}
