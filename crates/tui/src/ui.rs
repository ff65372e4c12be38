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
use std::sync::mpsc;
use std::time::Duration;

use tokio::runtime::Handle;

use crate::TuiError;
use crate::form::Stop;
use crate::render::{Screen, Style, plain_line, styled};
use crate::request;
use crate::surface::{Events, UiEvent};
use crate::tools::{self, MenuChoice, ServerTools};

/// Everything the terminal thread works with.
#[derive(Debug)]
pub(crate) struct Session {
    pub(crate) screen: Screen,
    pub(crate) events: Events,
    /// For tool calls to report their end.
    pub(crate) tx: mpsc::Sender<UiEvent>,
    pub(crate) handle: Handle,
    pub(crate) servers: Vec<ServerTools>,
    /// Number of the last call started (calls abandoned with Ctrl-C may still report).
    pub(crate) calls: u64,
}

impl Session {
    /// Runs until the person quits or the terminal fails.
    pub(crate) fn run(mut self) -> Result<(), TuiError> {
        tools::list(&self.screen, &self.servers);
        loop {
            self.settle()?;
            self.screen.blank();
            let choice = match tools::menu(&self.servers) {
                Ok(choice) => choice,
                Err(Stop::Escaped) => MenuChoice::Quit,
                Err(Stop::Terminal(e)) => return Err(e.into()),
                Err(Stop::Closed(_)) => continue,
            };
            let MenuChoice::Tool { server, tool } = choice else {
                self.screen.line("Bye.");
                return Ok(());
            };
            let Some(entry) = self.servers.get(server) else {
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
            let conn = Arc::clone(&entry.conn);
            let server_name = entry.name.clone();
            let tool_name = t.name.to_string();
            self.call(conn, &server_name, &tool_name, args)?;
        }
    }

    /// Handles what arrived while no call was in flight (a server may ask at any time in the
    /// push era), without waiting.
    fn settle(&mut self) -> Result<(), TuiError> {
        loop {
            self.show_notices();
            match self.events.next_timeout(Duration::ZERO) {
                Ok(Some(UiEvent::Present(view, sink))) => {
                    request::answer(&self.screen, &mut self.events, *view, &sink)?;
                }
                Ok(Some(UiEvent::Closed(_, notice))) => self.closed_in_queue(&notice),
                // Stale: replies already handled, calls abandoned, Ctrl-C at the menu.
                Ok(Some(_)) => {}
                Ok(None) => return Ok(()),
                Err(()) => return Err(TuiError::HostStopped),
            }
        }
    }

    fn show_notices(&mut self) {
        for notice in self.events.take_notices() {
            self.closed_in_queue(&notice);
        }
    }

    fn closed_in_queue(&self, notice: &interlude_engine::Notice) {
        self.screen.notice(&format!(
            "A request from \"{}\" went away before it was answered: {}",
            plain_line(&notice.server),
            plain_line(&notice.text)
        ));
    }

    /// Calls a tool and stays with it until it ends, answering what it asks on the way.
    fn call(
        &mut self,
        conn: Arc<interlude_host::Connection>,
        server: &str,
        tool: &str,
        args: Option<rmcp::model::JsonObject>,
    ) -> Result<(), TuiError> {
        self.calls += 1;
        let number = self.calls;
        self.screen.line(styled(
            Style::Dim,
            &format!(
                "Calling {} › {}… (Ctrl-C abandons the call)",
                plain_line(server),
                plain_line(tool)
            ),
        ));
        let name = tool.to_owned();
        let inner = self
            .handle
            .spawn(async move { conn.call_tool(&name, args).await });
        let abort = inner.abort_handle();
        let tx = self.tx.clone();
        self.handle.spawn(async move {
            let result = match inner.await {
                Ok(Ok(outcome)) => Ok(outcome),
                Ok(Err(e)) => Err(e.to_string()),
                Err(e) if e.is_cancelled() => return,
                Err(_) => Err("the call stopped unexpectedly".to_owned()),
            };
            let _ = tx.send(UiEvent::CallDone(number, result));
        });
        loop {
            self.show_notices();
            match self.events.next() {
                None => return Err(TuiError::HostStopped),
                Some(UiEvent::Present(view, sink)) => {
                    request::answer(&self.screen, &mut self.events, *view, &sink)?;
                }
                Some(UiEvent::CallDone(n, result)) if n == number => {
                    tools::show_result(&self.screen, server, tool, &result);
                    return Ok(());
                }
                Some(UiEvent::Interrupt) => {
                    abort.abort();
                    self.screen.notice(&format!(
                        "Abandoned the call to {} › {}.",
                        plain_line(server),
                        plain_line(tool)
                    ));
                    return Ok(());
                }
                Some(UiEvent::Closed(_, notice)) => self.closed_in_queue(&notice),
                Some(_) => {}
            }
        }
    }
}
