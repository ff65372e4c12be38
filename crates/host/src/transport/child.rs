//! The transport of a server started as a child process: JSON-RPC messages, one per line, over
//! the child's stdin and stdout (the framing rmcp's `TokioChildProcess` uses), read and written
//! here, with two things rmcp's own transport does not keep for a person:
//!
//! - **what the server sent that is not a JSON-RPC message.** rmcp 3.11 skips a line that is not
//!   JSON (logged at debug level only), so a response lost that way leaves its request waiting
//!   forever. Here such a line is put in the protocol log and a warning. A line that was meant
//!   as a message (it starts with `{` or `[`) but cannot be read — cut off, nested deeper than
//!   the parser allows, broken, longer than rmcp's 16 MiB — ends the connection, since
//!   whatever it carried is lost: its reason says what the server sent, quoted, escaped and
//!   cut short. A stray line of text (a server printing to stdout) is skipped, as rmcp and the
//!   other SDKs do, and remembered: if the server then ends, its reason says what it wrote
//!   last. JSON that is no message (a notification of another protocol) is ignored, as rmcp
//!   ignores it.
//! - **how the process ended** (its exit status or signal), noted as the connection's
//!   [`EndReason`] when its output ends.
//!
//! A line is parsed by [`crate::transport::decode`] (rmcp's own types, picked by the message's keys) and
//! kept, as it arrived, for the protocol log ([`RawLines::take`]). Messages to the server are
//! serialized once (the same bytes rmcp's codec writes: serde_json, then `\n`) and those bytes
//! are both written and kept for the log ([`RawLines::take_sent`]).
//!
//! Closing follows rmcp's stdio shutdown, less the `SIGTERM` (the workspace forbids `unsafe`):
//! stdin is closed, the server gets 3 s to exit, then it is killed. A dropped transport kills
//! the process (`kill_on_drop`).
//!
//! What it does not do: change any byte on the wire.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use interlude_engine::ServerId;
use rmcp::service::{RoleClient, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, ChildStdin, ChildStdout};

use crate::logs::protocol_log::{Direction, ProtocolLog, Raw, Shape};
use crate::transport::failure::{self, EndReason};

/// How long a closed server may take to exit before it is killed.
const EXIT_GRACE: Duration = Duration::from_secs(3);
/// How long the host waits, once a server's output ended, for its exit status.
const EXIT_STATUS_WAIT: Duration = Duration::from_millis(500);
/// The longest line kept whole to say why it could not be read (longer ones are quoted, not
/// re-read).
const KEPT_LINE: usize = 1 << 20;
/// How much of the child's stdout is read at once.
const READ_CHUNK: usize = 64 * 1024;
/// The longest line read as a message (rmcp's own limit): a longer one is no message, and
/// only its first this many bytes are kept.
const MAX_LINE: usize = 16 * 1024 * 1024;

/// Where a skipped line goes besides the warning: the server's protocol log.
pub(crate) struct LogTo {
    pub(crate) log: Arc<ProtocolLog>,
    pub(crate) server: ServerId,
    pub(crate) name: String,
}

/// What the transport and the protocol log's [`RawLines`] share.
struct Shared {
    /// The line of the message received last (if it was short enough to keep whole), until
    /// the protocol log takes it ([`RawLines::take`]).
    line: std::sync::Mutex<Vec<u8>>,
    /// The line of the message sent last, until the protocol log takes it
    /// ([`RawLines::take_sent`]).
    sent: std::sync::Mutex<Option<Bytes>>,
}

/// The lines of the messages the server sent, as sent, for the protocol log: it keeps these
/// bytes instead of a copy of the parsed message (parsed again only if someone reads the log).
#[derive(Clone)]
pub(crate) struct RawLines(Arc<Shared>);

impl RawLines {
    /// The line of the message the transport produced last; to be called right after it did
    /// (the reader hands rmcp one line at a time, so nothing else has been read since). `None`
    /// when the line was too long to keep whole, or is not there (taken already).
    pub(crate) fn take(&self) -> Option<Vec<u8>> {
        let mut line = crate::sync::lock(&self.0.line);
        if line.is_empty() {
            return None;
        }
        Some(std::mem::take(&mut *line))
    }

    /// The line of the message the transport was handed last, as written (its `\n`
    /// included); to be called right after `send` (which serializes the message at once).
    pub(crate) fn take_sent(&self) -> Option<Bytes> {
        crate::sync::lock(&self.0.sent).take()
    }
}

/// A child process as an rmcp client transport.
pub(crate) struct ChildTransport {
    /// The server's stdout, read a line at a time.
    lines: Lines,
    /// The server's stdin, `None` once closed; one message is written at a time.
    stdin: Arc<tokio::sync::Mutex<Option<ChildStdin>>>,
    child: Child,
    shared: Arc<Shared>,
    ended: EndReason,
    /// Reads a 2025-11-25 server's task support off each line.
    hints: Arc<crate::transport::task_hints::TaskHints>,
    /// Where a line that is not a message goes besides the warning.
    log: LogTo,
    /// The last stray line of text, quoted, and why it is not a message.
    stray: Option<(String, String)>,
    /// A line ended the connection: nothing more is read.
    stopped: bool,
}

impl ChildTransport {
    /// The transport of `child`, whose stdin and stdout must be piped.
    pub(crate) fn new(
        mut child: Child,
        ended: EndReason,
        log: LogTo,
        hints: Arc<crate::transport::task_hints::TaskHints>,
    ) -> std::io::Result<Self> {
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(std::io::Error::other("the child's stdio is not piped"));
        };
        Ok(ChildTransport {
            lines: Lines {
                stdout,
                buf: vec![0; READ_CHUNK].into_boxed_slice(),
                pos: 0,
                filled: 0,
                line: Vec::new(),
                line_len: 0,
            },
            stdin: Arc::new(tokio::sync::Mutex::new(Some(stdin))),
            child,
            shared: Arc::new(Shared {
                line: std::sync::Mutex::default(),
                sent: std::sync::Mutex::default(),
            }),
            ended,
            hints,
            log,
            stray: None,
            stopped: false,
        })
    }

    /// The lines of the messages it produces, for the protocol log.
    pub(crate) fn lines(&self) -> RawLines {
        RawLines(Arc::clone(&self.shared))
    }

    /// Notes how the server ended once its output did: its exit status (waited for briefly),
    /// after what it wrote last, if that is worth saying.
    async fn note_end(&mut self, tail: String) {
        if self.ended.get().is_some() {
            return;
        }
        let status = tokio::time::timeout(EXIT_STATUS_WAIT, self.child.wait()).await;
        let how = match status {
            Ok(Ok(status)) => failure::exit(status),
            Ok(Err(e)) => format!("ended its output (its exit status is unknown: {e})"),
            Err(_) => "closed its output".to_owned(),
        };
        self.ended.note(format!("the server {how}{tail}"));
    }

    /// The output ended: a last line without its newline, or else the last stray line, is
    /// what the server wrote last.
    fn tail(&mut self) -> String {
        if self.lines.line_len > 0 {
            let quoted = failure::shown(&self.lines.line, failure::QUOTED_BYTES);
            format!(" after an unfinished line: {quoted}")
        } else if let Some((quoted, why)) = self.stray.take() {
            format!(" after writing something that is not a JSON-RPC message: {quoted} ({why})")
        } else {
            String::new()
        }
    }

    /// A whole line that is no message (`error` says why rmcp's types refused it, `len` is
    /// its whole length): put in the protocol log and a warning, and the connection ends if
    /// it was meant as a message.
    fn skipped(&mut self, line: &[u8], len: usize) {
        let Some(first) = line.iter().find(|b| !b.is_ascii_whitespace()).copied() else {
            return; // An empty line.
        };
        let whole = len <= KEPT_LINE;
        let why = if whole {
            match serde_json::from_slice::<serde_json::Value>(line) {
                // JSON that rmcp's types do not take (a notification of another protocol, a
                // message of a shape no message has): ignored, as rmcp does.
                Ok(_) => return,
                Err(e) => failure::not_json(&e),
            }
        } else {
            format!("a line of {len} bytes that could not be read")
        };
        let quoted = failure::shown(line, failure::QUOTED_BYTES);
        let LogTo { log, server, name } = &self.log;
        if log.enabled() {
            let text = String::from_utf8_lossy(line.get(..4096).unwrap_or(line));
            log.record(
                *server,
                name,
                Direction::Recv,
                Raw::Unparsable {
                    text: text.into(),
                    why: why.as_str().into(),
                },
                Shape {
                    id: None,
                    is_request: false,
                    call: None,
                    exchange: None,
                },
            );
        }
        if matches!(first, b'{' | b'[') {
            // The connection's end says it (a warning among others).
            self.ended.note(format!(
                "the server sent something that is not a JSON-RPC message: {quoted} ({why})"
            ));
            self.stopped = true;
        } else {
            tracing::warn!(server = %name, "the server wrote something that is not a JSON-RPC message, skipped: {quoted} ({why})");
            self.stray = Some((quoted, why));
        }
    }
}

impl Transport<RoleClient> for ChildTransport {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        // Serialized now, so that the line is there for the log when `send` returns.
        let line = serde_json::to_vec(&item).map(|mut line| {
            line.push(b'\n');
            Bytes::from(line)
        });
        if let Ok(line) = &line {
            *crate::sync::lock(&self.shared.sent) = Some(line.clone());
        }
        let stdin = Arc::clone(&self.stdin);
        async move {
            let line = line.map_err(std::io::Error::other)?;
            let mut stdin = stdin.lock().await;
            let Some(stdin) = stdin.as_mut() else {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::NotConnected,
                    "the server's input is closed",
                ));
            };
            stdin.write_all(&line).await?;
            stdin.flush().await
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        loop {
            if self.stopped {
                return None;
            }
            match self.lines.next().await {
                Ok(true) => {}
                Ok(false) => {
                    let tail = self.tail();
                    self.note_end(tail).await;
                    return None;
                }
                Err(e) => {
                    tracing::warn!(server = %self.log.name, "cannot read the server's output: {e}");
                    self.note_end(String::new()).await;
                    return None;
                }
            }
            let len = std::mem::take(&mut self.lines.line_len);
            let line = std::mem::take(&mut self.lines.line);
            self.hints.sniff(&line);
            let text = line.strip_suffix(b"\n").unwrap_or(&line);
            let text = text.strip_suffix(b"\r").unwrap_or(text);
            let text = text.strip_prefix(b"\xef\xbb\xbf").unwrap_or(text);
            if len > MAX_LINE {
                self.skipped(text, len);
                continue;
            }
            if text.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match crate::transport::decode::message(text) {
                Ok(Some(message)) => {
                    if len < KEPT_LINE {
                        *crate::sync::lock(&self.shared.line) = line;
                    }
                    return Some(message);
                }
                // A notification of another protocol: ignored, as rmcp does.
                Ok(None) => {}
                Err(_) => self.skipped(text, len),
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        // Closing the server's stdin is how it is told to exit.
        drop(self.stdin.lock().await.take());
        if tokio::time::timeout(EXIT_GRACE, self.child.wait())
            .await
            .is_err()
        {
            self.child.kill().await?;
        }
        Ok(())
    }
}

/// The child's stdout, read a line at a time into a buffer of its own. Cancel-safe: the
/// service drops a `receive` in progress whenever something else is ready, and what was read
/// stays here for the next call.
struct Lines {
    stdout: ChildStdout,
    buf: Box<[u8]>,
    pos: usize,
    filled: usize,
    /// The line being read: its first [`MAX_LINE`] bytes.
    line: Vec<u8>,
    /// Its whole length so far.
    line_len: usize,
}

impl Lines {
    /// Reads to the end of the next line (`true`; its bytes, `\n` included, in `line`), or to
    /// the end of the output (`false`; an unfinished line stays in `line`).
    async fn next(&mut self) -> std::io::Result<bool> {
        loop {
            if self.pos == self.filled {
                let n = self.stdout.read(&mut self.buf).await?;
                if n == 0 {
                    return Ok(false);
                }
                (self.pos, self.filled) = (0, n);
            }
            let available = self.buf.get(self.pos..self.filled).unwrap_or_default();
            let end = memchr::memchr(b'\n', available);
            let upto = end.map_or(available.len(), |i| i + 1);
            let room = MAX_LINE.saturating_sub(self.line.len());
            self.line
                .extend_from_slice(available.get(..upto.min(room)).unwrap_or_default());
            self.line_len += upto;
            self.pos += upto;
            if end.is_some() {
                return Ok(true);
            }
        }
    }
}
