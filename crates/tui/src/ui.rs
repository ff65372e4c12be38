//! The terminal thread's loop: tool menu → arguments → call → answer whatever the call asks →
//! result → menu again, until the person quits.
//!
//! This thread owns the terminal: every prompt and every line is drawn from here, one thing at a
//! time. Tool calls run on the tokio runtime (spawned through a [`Handle`]) and report back over
//! the same channel the surface uses, so while a call is in flight this thread just waits for
//! the next event: a request to present, a notice, the call's end, or Ctrl-C (which abandons the
//! call).
//!
//! What it does not do: talk to servers itself or touch the engine; answers go through the
//! [`AnswerSink`](interlude_host::AnswerSink) each presented request comes with.

use std::sync::Arc;
use std::time::Duration;

use interlude_host::{Host, RequestId, ServerRecord, ServerState};
use tokio::runtime::Handle;

use crate::TuiError;
use crate::form::Stop;
use crate::handoff::Handoff;
use crate::keys::{KEY_POLL, typed_letter};
use crate::render::{Screen, Style, plain_line, styled};
use crate::request;
use crate::surface::{Events, UiEvent};
use crate::tools::{self, MenuChoice};

/// Everything the terminal thread works with.
#[derive(Debug)]
pub(crate) struct Session {
    pub(crate) screen: Screen,
    pub(crate) events: Events,
    pub(crate) handle: Handle,
    /// The host: servers, their tools and every call are read from its record.
    pub(crate) host: Host,
    /// A page over the same host for what a terminal cannot show (app views), if any.
    pub(crate) handoff: Option<Arc<dyn Handoff>>,
    /// What servers said of their catalogs, to print at a calm moment.
    pub(crate) heard: crate::surface::Heard,
}

impl Session {
    /// The servers whose tools can be called now, from the host's record.
    fn servers(&self) -> Vec<Arc<ServerRecord>> {
        self.host
            .snapshot()
            .servers
            .into_iter()
            .filter(|s| s.state == ServerState::Ready)
            .collect()
    }

    /// Runs until the person quits or the terminal fails.
    pub(crate) fn run(mut self) -> Result<(), TuiError> {
        tools::list(&self.screen, &self.servers());
        loop {
            self.settle()?;
            self.screen.blank();
            let servers = self.servers();
            let choice = match tools::menu(&servers) {
                Ok(choice) => choice,
                Err(Stop::Escaped) => MenuChoice::Quit,
                Err(Stop::Terminal(e)) => return Err(e.into()),
                Err(Stop::Closed(_)) => continue,
            };
            let (server, tool) = match choice {
                MenuChoice::Tool { server, tool } => (server, tool),
                MenuChoice::Logs => {
                    tools::logs(&self.screen, &self.host, &servers);
                    continue;
                }
                MenuChoice::Catalog => {
                    self.catalog(&servers)?;
                    continue;
                }
                MenuChoice::Quit => {
                    self.screen.line("Bye.");
                    return Ok(());
                }
            };
            let Some(entry) = servers.get(server) else {
                continue;
            };
            let Some(t) = entry.tools.get(tool) else {
                continue;
            };
            let args = match tools::arguments(&self.screen, &entry.name, t) {
                Ok(Some(args)) => args,
                Ok(None) | Err(Stop::Escaped | Stop::Closed(_)) => continue,
                Err(Stop::Terminal(e)) => return Err(e.into()),
            };
            let Some(conn) = self.host.connection(entry.id) else {
                self.screen.notice(&format!(
                    "\"{}\" is no longer connected.",
                    plain_line(&entry.name)
                ));
                continue;
            };
            self.call(&conn, &t.name, args)?;
        }
    }

    /// Handles what arrived while no call was in flight (a server may ask at any time in the
    /// push era), without waiting.
    pub(crate) fn settle(&mut self) -> Result<(), TuiError> {
        loop {
            self.show_notices();
            match self.events.next_timeout(Duration::ZERO) {
                Ok(Some(UiEvent::Present(view, sink))) => {
                    request::answer(
                        &self.screen,
                        &mut self.events,
                        &self.host,
                        self.handoff.as_deref(),
                        *view,
                        &sink,
                    )?;
                }
                Ok(Some(UiEvent::Closed(_, notice))) => self.closed_in_queue(&notice),
                // Stale: replies already handled, calls abandoned, Ctrl-C at the menu.
                Ok(Some(_)) => {}
                Ok(None) => return Ok(()),
                Err(()) => return Err(TuiError::HostStopped),
            }
        }
    }

    pub(crate) fn show_notices(&mut self) {
        for notice in self.events.take_notices() {
            self.closed_in_queue(&notice);
        }
        self.show_heard();
    }

    /// Prints what servers said of their catalogs since the last time.
    pub(crate) fn show_heard(&self) {
        let (lines, dropped) = crate::surface::take_heard(&self.heard);
        if dropped > 0 {
            self.screen.line(styled(
                Style::Dim,
                &format!("   … {dropped} earlier updates not shown"),
            ));
        }
        for line in lines {
            self.screen.line(styled(Style::Dim, &line));
        }
    }

    pub(crate) fn closed_in_queue(&self, notice: &interlude_host::Notice) {
        self.screen.notice(&format!(
            "A request from \"{}\" went away before it was answered: {}",
            plain_line(&notice.server),
            plain_line(&notice.text)
        ));
    }

    /// Calls a tool and stays with it until it ends, answering what it asks on the way.
    fn call(
        &mut self,
        conn: &interlude_host::Connection,
        tool: &str,
        args: Option<rmcp::model::JsonObject>,
    ) -> Result<(), TuiError> {
        let server = plain_line(&conn.info().name);
        let tool_shown = plain_line(tool);
        let call = conn.start_call(tool, args);
        let id = call.id();
        self.screen.line(styled(
            Style::Dim,
            &format!("Calling {server} › {tool_shown} (call #{id})… (Ctrl-C abandons the call)"),
        ));
        // The outcome is read from the host's record when the call ends (an event); the task
        // only drives it. Aborting the task drops the call, which abandons it.
        let running = self.handle.spawn(async move {
            let _ = call.outcome().await;
        });
        // Links the host waits on (2025-11-25): the person may say they are done, or open one
        // again, by typing a letter and Enter.
        let mut waiting: Vec<WaitingLink> = Vec::new();
        let mut progress = ProgressLines::default();
        loop {
            self.show_notices();
            let event = if waiting.is_empty() {
                self.events.next()
            } else {
                match self.events.next_timeout(KEY_POLL) {
                    Ok(Some(event)) => Some(event),
                    Ok(None) => {
                        self.waiting_keys(&mut waiting);
                        continue;
                    }
                    Err(()) => None,
                }
            };
            match event {
                None => return Err(TuiError::HostStopped),
                Some(UiEvent::Present(view, sink)) => {
                    request::answer(
                        &self.screen,
                        &mut self.events,
                        &self.host,
                        self.handoff.as_deref(),
                        *view,
                        &sink,
                    )?;
                }
                Some(UiEvent::CallEnded(record)) if record.id == id => {
                    tools::show_result(&self.screen, &record);
                    crate::handoff::offer_views(
                        &self.screen,
                        &self.host,
                        self.handoff.as_deref(),
                        &record,
                    )?;
                    return Ok(());
                }
                Some(UiEvent::Interrupt) => {
                    // A task is told to stop too (`tasks/cancel`, sent as the call is dropped).
                    let task = self.host.call(id).is_some_and(|c| c.task.is_some());
                    running.abort();
                    let told = if task {
                        "; its task was told to stop (tasks/cancel)"
                    } else {
                        ""
                    };
                    self.screen.notice(&format!(
                        "Abandoned the call to {server} › {tool_shown}{told}."
                    ));
                    return Ok(());
                }
                Some(UiEvent::LinkWaiting { id, server, url }) => {
                    self.screen.line(styled(
                        Style::Dim,
                        "   Waiting for you in the browser. Type d and Enter when you are done \
                         there, o and Enter to open the link again; Ctrl-C abandons the call.",
                    ));
                    waiting.push(WaitingLink { id, server, url });
                }
                Some(UiEvent::LinkFinished(done)) => {
                    if let Some(pos) = waiting.iter().position(|w| w.id == done) {
                        let link = waiting.remove(pos);
                        self.screen.ok(&format!(
                            "\"{}\" finished in the browser.",
                            plain_line(&link.server)
                        ));
                    }
                }
                Some(UiEvent::Closed(_, notice)) => self.closed_in_queue(&notice),
                Some(UiEvent::LinkProgress(link, text)) if waiting.iter().any(|w| w.id == link) => {
                    self.screen.line(styled(
                        Style::Dim,
                        &format!("   the server says: {}", plain_line(&text)),
                    ));
                }
                Some(UiEvent::Progress(record)) if record.id == id => {
                    if let Some(line) = progress.line(&record) {
                        self.screen.line(styled(Style::Dim, &line));
                    }
                }
                Some(_) => {}
            }
        }
    }

    /// Reads what the person typed while links are waited on: `d` says they are done with the
    /// latest (the host stops waiting; a call that needed it is retried), `o` opens it again.
    fn waiting_keys(&self, waiting: &mut Vec<WaitingLink>) {
        while let Some(key) = typed_letter() {
            let Some(link) = waiting.last() else {
                return;
            };
            match key {
                'd' => {
                    let server = plain_line(&link.server);
                    if self.host.link_done(link.id) {
                        self.screen.ok(&format!(
                            "Told the host you are done with \"{server}\"'s link."
                        ));
                    }
                    waiting.pop();
                }
                'o' => {
                    crate::request::url::open(&self.screen, &plain_line(&link.server), &link.url)
                }
                _ => {}
            }
        }
    }
}

/// The progress lines of one call: one per notification, but at most one a second unless the
/// server's message changed or the call got to its total.
#[derive(Debug, Default)]
struct ProgressLines {
    last: Option<(std::time::Instant, Option<String>)>,
    /// The task's status and status line last printed (a call that became a task).
    task: Option<(String, Option<String>)>,
}

impl ProgressLines {
    fn line(&mut self, call: &interlude_host::CallRecord) -> Option<String> {
        if let Some(task) = &call.task {
            let now = (task.status.clone(), task.status_message.clone());
            if self.task.as_ref() != Some(&now) {
                self.task = Some(now);
                let status = match task.status.as_str() {
                    "input_required" => "waiting for you",
                    other => other,
                };
                let said = task
                    .status_message
                    .as_deref()
                    .map(|m| format!(" — {}", plain_line(m)))
                    .unwrap_or_default();
                return Some(format!("   ⋯ task {status}{said}"));
            }
        }
        let p = call.progress.as_ref()?;
        let now = std::time::Instant::now();
        let finished = p.total.is_some_and(|t| p.progress >= t);
        let due = match &self.last {
            None => true,
            Some((at, message)) => {
                finished || *message != p.message || now.duration_since(*at) >= PROGRESS_EVERY
            }
        };
        if !due {
            return None;
        }
        self.last = Some((now, p.message.clone()));
        let now_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        let elapsed = now_ms.saturating_sub(call.started_at_ms);
        #[allow(clippy::cast_precision_loss)]
        let seconds = elapsed as f64 / 1000.0;
        Some(format!(
            "   ⋯ {} ({seconds:.1} s)",
            plain_line(&p.to_string())
        ))
    }
}

/// How often a call's progress is printed at most (unless its message changes).
const PROGRESS_EVERY: Duration = Duration::from_secs(1);

/// A link the host waits on while a call runs.
#[derive(Debug)]
struct WaitingLink {
    id: RequestId,
    server: String,
    url: String,
}
