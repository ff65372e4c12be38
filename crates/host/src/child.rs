//! The transport of a server started as a child process: rmcp's own line transport
//! (`AsyncRwTransport`, the codec `TokioChildProcess` uses) over the child's stdin and stdout,
//! with two things rmcp does not keep for a person:
//!
//! - **what the server sent that is not a JSON-RPC message.** rmcp 3.11 skips a line that is not
//!   JSON (logged at debug level only), so a response lost that way leaves its request waiting
//!   forever. The child's stdout is read through [`Watched`], which hands rmcp at most one line
//!   per read: when rmcp asks for more after a whole line without having produced a message
//!   from it, that line was skipped. Such a line is put in the protocol log and a warning. A
//!   line that was meant as a message (it starts with `{` or `[`) but cannot be read — cut off,
//!   nested deeper than the parser allows, broken — ends the connection, since whatever it
//!   carried is lost: its reason says what the server sent, quoted, escaped and cut short. A
//!   stray line of text (a server printing to stdout) is skipped, as rmcp and the other SDKs
//!   do, and remembered: if the server then ends, its reason says what it wrote last.
//! - **how the process ended** (its exit status or signal), noted as the connection's
//!   [`EndReason`] when its output ends.
//!
//! Closing follows rmcp's stdio shutdown, less the `SIGTERM` (the workspace forbids `unsafe`):
//! stdin is closed, the server gets 3 s to exit, then it is killed. A dropped transport kills
//! the process (`kill_on_drop`).
//!
//! Messages to the server are written here, not by rmcp's codec: each is serialized once (the
//! same bytes the codec writes: serde_json, then `\n`) and those bytes are both written and
//! kept for the protocol log ([`RawLines::take_sent`]), which would otherwise copy every
//! message it is given.
//!
//! What it does not do: parse or frame the messages it reads (rmcp does, unchanged), or change
//! any byte on the wire.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll, ready};
use std::time::Duration;

use bytes::Bytes;
use interlude_engine::ServerId;
use rmcp::service::{RoleClient, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::AsyncRwTransport;
use tokio::io::{AsyncRead, AsyncWriteExt, ReadBuf};
use tokio::process::{Child, ChildStdin, ChildStdout};

use crate::failure::{self, EndReason};
use crate::protocol_log::{Direction, ProtocolLog, Raw, Shape};

/// How long a closed server may take to exit before it is killed.
const EXIT_GRACE: Duration = Duration::from_secs(3);
/// How long the host waits, once a server's output ended, for its exit status.
const EXIT_STATUS_WAIT: Duration = Duration::from_millis(500);
/// The longest line kept whole to say why it could not be read (longer ones are quoted, not
/// re-read).
const KEPT_LINE: usize = 1 << 20;
/// How much of the child's stdout is read at once.
const READ_CHUNK: usize = 64 * 1024;

/// Where a skipped line goes besides the warning: the server's protocol log.
pub(crate) struct LogTo {
    pub(crate) log: Arc<ProtocolLog>,
    pub(crate) server: ServerId,
    pub(crate) name: String,
}

/// What the reader and the transport share.
struct Shared {
    /// How many messages rmcp produced so far.
    delivered: AtomicU64,
    /// The line being handed out (its first [`KEPT_LINE`] bytes), until the protocol log takes
    /// the message rmcp produced from it ([`RawLines::take`]).
    line: std::sync::Mutex<Vec<u8>>,
    /// The line of the message sent last, until the protocol log takes it
    /// ([`RawLines::take_sent`]).
    sent: std::sync::Mutex<Option<Bytes>>,
    ended: EndReason,
    /// Reads a 2025-11-25 server's task support off each line.
    hints: Arc<crate::task_hints::TaskHints>,
    /// What the server wrote last when its output ended, if that is worth saying: the end
    /// of "the server exited with status 1 …".
    tail: std::sync::Mutex<Option<String>>,
    log: LogTo,
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
        if line.is_empty() || line.len() >= KEPT_LINE {
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
    /// rmcp's transport, for reading only: its writer is a sink that is never written to.
    inner: AsyncRwTransport<RoleClient, Watched<ChildStdout>, tokio::io::Sink>,
    /// The server's stdin, `None` once closed; one message is written at a time.
    stdin: Arc<tokio::sync::Mutex<Option<ChildStdin>>>,
    child: Child,
    shared: Arc<Shared>,
}

impl ChildTransport {
    /// The transport of `child`, whose stdin and stdout must be piped.
    pub(crate) fn new(
        mut child: Child,
        ended: EndReason,
        log: LogTo,
        hints: Arc<crate::task_hints::TaskHints>,
    ) -> std::io::Result<Self> {
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(std::io::Error::other("the child's stdio is not piped"));
        };
        let shared = Arc::new(Shared {
            delivered: AtomicU64::new(0),
            line: std::sync::Mutex::default(),
            sent: std::sync::Mutex::default(),
            ended,
            hints,
            tail: std::sync::Mutex::default(),
            log,
        });
        let reader = Watched {
            inner: stdout,
            buf: vec![0; READ_CHUNK].into_boxed_slice(),
            pos: 0,
            filled: 0,
            line_len: 0,
            line_done: false,
            delivered_at_end: 0,
            stray: None,
            stopped: false,
            shared: Arc::clone(&shared),
        };
        Ok(ChildTransport {
            inner: AsyncRwTransport::new_client(reader, tokio::io::sink()),
            stdin: Arc::new(tokio::sync::Mutex::new(Some(stdin))),
            child,
            shared,
        })
    }

    /// The lines of the messages it produces, for the protocol log.
    pub(crate) fn lines(&self) -> RawLines {
        RawLines(Arc::clone(&self.shared))
    }

    /// Notes how the server ended once its output did: its exit status (waited for briefly),
    /// after the last stray line it wrote, if any.
    async fn note_end(&mut self) {
        if self.shared.ended.get().is_some() {
            return;
        }
        let status = tokio::time::timeout(EXIT_STATUS_WAIT, self.child.wait()).await;
        let how = match status {
            Ok(Ok(status)) => failure::exit(status),
            Ok(Err(e)) => format!("ended its output (its exit status is unknown: {e})"),
            Err(_) => "closed its output".to_owned(),
        };
        let tail = crate::sync::lock(&self.shared.tail)
            .take()
            .unwrap_or_default();
        self.shared.ended.note(format!("the server {how}{tail}"));
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
        match self.inner.receive().await {
            Some(message) => {
                self.shared.delivered.fetch_add(1, Ordering::SeqCst);
                Some(message)
            }
            None => {
                self.note_end().await;
                None
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.inner.close().await?;
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

/// The child's stdout, handed to rmcp at most one line per read, watching for lines rmcp
/// skipped (see the module documentation).
struct Watched<R> {
    inner: R,
    buf: Box<[u8]>,
    pos: usize,
    filled: usize,
    /// The length of the line being handed out so far (its bytes are in `shared.line`).
    line_len: usize,
    /// Whether its newline was handed out.
    line_done: bool,
    /// Messages rmcp had produced when the line's newline was handed out.
    delivered_at_end: u64,
    /// The last stray line of text, quoted, and why it is not a message.
    stray: Option<(String, String)>,
    /// A line ended the connection: nothing more is read.
    stopped: bool,
    shared: Arc<Shared>,
}

impl<R> Watched<R> {
    /// rmcp consumed a whole line and produced no message from it: says what it was, and
    /// whether the connection ends.
    fn skipped(&mut self) {
        let shared = Arc::clone(&self.shared);
        let line = crate::sync::lock(&shared.line);
        let line = line.strip_suffix(b"\n").unwrap_or(&line);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let line = line.strip_prefix(b"\xef\xbb\xbf").unwrap_or(line);
        let first = line.iter().find(|b| !b.is_ascii_whitespace()).copied();
        let Some(first) = first else {
            return; // An empty line.
        };
        let whole = self.line_len <= KEPT_LINE;
        let why = if whole {
            match serde_json::from_slice::<serde_json::Value>(line) {
                // JSON that rmcp could not type: rmcp answered it (Invalid Request) or ignored
                // it by design (a notification of another protocol).
                Ok(_) => return,
                Err(e) => failure::not_json(&e),
            }
        } else {
            format!("a line of {} bytes that could not be read", self.line_len)
        };
        let quoted = failure::shown(line, failure::QUOTED_BYTES);
        let Shared { log, ended, .. } = &*self.shared;
        if log.log.enabled() {
            let text = String::from_utf8_lossy(line.get(..4096).unwrap_or(line)).into_owned();
            log.log.record(
                log.server,
                &log.name,
                Direction::Recv,
                Raw::Unparsable {
                    text: text.into(),
                    why: why.as_str().into(),
                },
                Shape {
                    id: None,
                    is_request: false,
                    call: None,
                    link: None,
                },
            );
        }
        if matches!(first, b'{' | b'[') {
            // The connection's end says it (a warning among others).
            ended.note(format!(
                "the server sent something that is not a JSON-RPC message: {quoted} ({why})"
            ));
            self.stopped = true;
        } else {
            tracing::warn!(server = %log.name, "the server wrote something that is not a JSON-RPC message, skipped: {quoted} ({why})");
            self.stray = Some((quoted, why));
        }
    }

    /// The output ended: a last line without its newline, or else the last stray line, is
    /// kept for the connection's end reason (the transport adds how the process ended).
    fn at_eof(&mut self) {
        let tail = if !self.line_done && self.line_len > 0 {
            let quoted =
                failure::shown(&crate::sync::lock(&self.shared.line), failure::QUOTED_BYTES);
            format!(" after an unfinished line: {quoted}")
        } else if let Some((quoted, why)) = self.stray.take() {
            format!(" after writing something that is not a JSON-RPC message: {quoted} ({why})")
        } else {
            return;
        };
        *crate::sync::lock(&self.shared.tail) = Some(tail);
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for Watched<R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        out: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        if this.line_done {
            // rmcp has consumed the whole last line (it is handed out one line at a time) and
            // asks for more.
            if this.shared.delivered.load(Ordering::SeqCst) == this.delivered_at_end {
                this.skipped();
            }
            let mut line = crate::sync::lock(&this.shared.line);
            line.clear();
            if line.capacity() > READ_CHUNK {
                line.shrink_to(READ_CHUNK);
            }
            drop(line);
            this.line_len = 0;
            this.line_done = false;
        }
        if this.stopped {
            return Poll::Ready(Ok(()));
        }
        if this.pos == this.filled {
            let mut chunk = ReadBuf::new(&mut this.buf);
            ready!(Pin::new(&mut this.inner).poll_read(cx, &mut chunk))?;
            this.filled = chunk.filled().len();
            this.pos = 0;
            if this.filled == 0 {
                this.at_eof();
                return Poll::Ready(Ok(()));
            }
        }
        let available = this.buf.get(this.pos..this.filled).unwrap_or_default();
        let upto = memchr::memchr(b'\n', available).map_or(available.len(), |i| i + 1);
        let n = upto.min(out.remaining());
        let handed = available.get(..n).unwrap_or_default();
        out.put_slice(handed);
        {
            let mut line = crate::sync::lock(&this.shared.line);
            let room = KEPT_LINE.saturating_sub(line.len());
            line.extend_from_slice(handed.get(..room.min(n)).unwrap_or_default());
            if handed.last() == Some(&b'\n') {
                this.shared.hints.sniff(&line);
            }
        }
        this.line_len += n;
        this.pos += n;
        if handed.last() == Some(&b'\n') {
            this.line_done = true;
            this.delivered_at_end = this.shared.delivered.load(Ordering::SeqCst);
        }
        Poll::Ready(Ok(()))
    }
}
