//! The stdio transport for servers, on the reactor instead of blocking threads.
//!
//! rmcp's `transport::stdio()` is tokio's `Stdin`/`Stdout`, which run every read and every
//! write on tokio's blocking thread pool: each message crosses two threads inside the server
//! before it reaches the wire. When a host launches a server, stdin and stdout are pipes (or,
//! from libuv-based hosts such as Node, Unix stream sockets) that can be polled like any socket.
//! [`stdio`] registers them with tokio's reactor when they are, and falls back to tokio's
//! blocking `Stdin`/`Stdout` otherwise (a terminal, a regular file). On 2 vCPUs that makes a
//! sequential tool call with one elicitation ~1.4× faster and 32 concurrent ones ~4× faster
//! (`docs/benchmarks.md`).
//!
//! Registering a descriptor with the reactor makes it non-blocking. The descriptor is a
//! duplicate of fd 0/1, but the non-blocking flag belongs to the open file they share, so it is
//! cleared again when the reader or writer is dropped; in between, nothing else in the process
//! should read stdin or write stdout directly (which an MCP server on stdio must not do anyway).
//! A stream that is also stderr (`2>&1` into the same pipe) stays blocking, so that logging to
//! stderr never meets a full non-blocking pipe.
//!
//! What the pipe cannot take at once (a client reading more slowly than the server writes) waits
//! in the writer's own queue, as bytes, and is written out by a task of its own; rmcp would
//! otherwise keep each such message and the task sending it (≈ 3 KiB for a form request) until
//! the pipe drains. Dropping the writer writes out what is queued, waiting at most 5 s for the
//! client to read it.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// The server's stdin, as an `AsyncRead`. Built by [`stdio`].
#[derive(Debug)]
pub struct StdinReader(Reader);

/// The server's stdout, as an `AsyncWrite`. Built by [`stdio`].
#[derive(Debug)]
pub struct StdoutWriter(Writer);

#[derive(Debug)]
enum Reader {
    #[cfg(unix)]
    Pipe(Option<tokio::net::unix::pipe::Receiver>),
    #[cfg(unix)]
    Socket(Option<tokio::net::UnixStream>),
    Blocking(tokio::io::Stdin),
}

#[derive(Debug)]
enum Writer {
    /// A pipe or a socket, with a queue for what it cannot take at once (see `outbox`).
    #[cfg(unix)]
    Queued(outbox::Outbox),
    Blocking(tokio::io::Stdout),
}

/// Stdin and stdout as an rmcp transport: pass the pair to `serve`.
///
/// Pipes and Unix stream sockets are polled on tokio's reactor; anything else (a terminal, a
/// file) goes through tokio's blocking `Stdin`/`Stdout`, exactly like `rmcp::transport::stdio()`.
/// On a pipe or socket, a write (and a flush) returns once the bytes are written or queued
/// behind earlier ones: the queue is written out as the client reads, and a write error is
/// reported by a later write or flush.
///
/// # Panics
/// Like every tokio I/O constructor, when called outside a tokio runtime with I/O enabled.
///
/// # Example
/// ```no_run
/// use rmcp::{ServerHandler, ServiceExt};
///
/// #[derive(Clone)]
/// struct Server;
/// impl ServerHandler for Server {}
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let service = Server.serve(interlude_server::stdio()).await?;
/// service.waiting().await?;
/// # Ok(()) }
/// ```
pub fn stdio() -> (StdinReader, StdoutWriter) {
    (StdinReader(reader()), StdoutWriter(writer()))
}

#[cfg(unix)]
mod outbox;

#[cfg(unix)]
mod unix {
    use std::fs::File;
    use std::io;
    use std::os::fd::{AsFd, OwnedFd};
    use std::os::unix::fs::{FileTypeExt, MetadataExt};

    enum Kind {
        Pipe,
        Socket,
        Other,
    }

    /// Whether stderr is the same pipe or socket as `file` (as after `2>&1`). Non-blocking mode
    /// would then apply to stderr too, and a full pipe would make a plain `eprintln!` fail.
    fn shared_with_stderr(file: &std::fs::Metadata) -> bool {
        let Ok(stderr) = std::io::stderr().as_fd().try_clone_to_owned() else {
            return false;
        };
        File::from(stderr)
            .metadata()
            .is_ok_and(|e| e.dev() == file.dev() && e.ino() == file.ino())
    }

    /// A duplicate of stdin (`out == false`) or stdout, and what it is.
    fn classify(out: bool) -> io::Result<(OwnedFd, Kind)> {
        let owned = if out {
            std::io::stdout().as_fd().try_clone_to_owned()?
        } else {
            std::io::stdin().as_fd().try_clone_to_owned()?
        };
        let file = File::from(owned);
        let meta = file.metadata()?;
        let kind = meta.file_type();
        let kind = if !(kind.is_fifo() || kind.is_socket()) {
            Kind::Other
        } else if shared_with_stderr(&meta) {
            return Err(io::Error::other("it is also stderr"));
        } else if kind.is_fifo() {
            Kind::Pipe
        } else {
            Kind::Socket
        };
        Ok((OwnedFd::from(file), kind))
    }

    /// A Unix stream socket on the reactor (a socket fd of another type fails here or on use,
    /// and the caller falls back).
    fn socket(fd: OwnedFd) -> io::Result<tokio::net::UnixStream> {
        let std = std::os::unix::net::UnixStream::from(fd);
        std.set_nonblocking(true)?;
        tokio::net::UnixStream::from_std(std)
    }

    /// Builds the reactor-side stream from `fd`. Building makes the open file non-blocking; if it
    /// then fails (the reactor refused the descriptor), the file is made blocking again, so that
    /// the blocking fallback can read or write it.
    fn build<T>(fd: OwnedFd, make: impl FnOnce(OwnedFd) -> io::Result<T>) -> io::Result<T> {
        let spare = fd.try_clone()?;
        make(fd).inspect_err(|_| {
            let _ = rustix::io::ioctl_fionbio(&spare, false);
        })
    }

    /// Stdin (`out == false`) or stdout on the reactor, built by `pipe` or `socket`; `None`
    /// (after saying why in the debug log) when it stays on tokio's blocking stream.
    pub(super) fn attach<T>(
        out: bool,
        pipe: impl FnOnce(OwnedFd) -> io::Result<T>,
        socket: impl FnOnce(tokio::net::UnixStream) -> T,
    ) -> Option<T> {
        let (name, blocking) = if out {
            ("stdout", "writer")
        } else {
            ("stdin", "reader")
        };
        let attempt = classify(out).and_then(|(fd, kind)| match kind {
            Kind::Pipe => build(fd, pipe).map(|t| (t, "pipe")),
            Kind::Socket => build(fd, |fd| self::socket(fd).map(socket)).map(|t| (t, "socket")),
            Kind::Other => Err(io::Error::other("not a pipe or socket")),
        });
        match attempt {
            Ok((stream, kind)) => {
                tracing::debug!("stdio transport: {name} is a {kind}, polled on the reactor");
                Some(stream)
            }
            Err(e) => {
                tracing::debug!(
                    "stdio transport: {name} stays on tokio's blocking {blocking}: {e}"
                );
                None
            }
        }
    }

    pub(super) fn restore_socket(socket: Option<tokio::net::UnixStream>) {
        if let Some(std) = socket.and_then(|s| s.into_std().ok()) {
            let _ = std.set_nonblocking(false);
        }
    }
}

fn reader() -> Reader {
    #[cfg(unix)]
    if let Some(reader) = unix::attach(
        false,
        |fd| tokio::net::unix::pipe::Receiver::from_owned_fd(fd).map(|r| Reader::Pipe(Some(r))),
        |s| Reader::Socket(Some(s)),
    ) {
        return reader;
    }
    Reader::Blocking(tokio::io::stdin())
}

fn writer() -> Writer {
    #[cfg(unix)]
    if let Some(writer) = unix::attach(
        true,
        |fd| {
            tokio::net::unix::pipe::Sender::from_owned_fd(fd)
                .map(|w| Writer::Queued(outbox::Outbox::new(outbox::Sink::Pipe(w))))
        },
        |s| Writer::Queued(outbox::Outbox::new(outbox::Sink::Socket(s))),
    ) {
        return writer;
    }
    Writer::Blocking(tokio::io::stdout())
}

#[cfg(unix)]
fn closed() -> io::Error {
    io::Error::new(io::ErrorKind::BrokenPipe, "stdio transport already closed")
}

impl AsyncRead for StdinReader {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match &mut self.0 {
            #[cfg(unix)]
            Reader::Pipe(Some(r)) => Pin::new(r).poll_read(cx, buf),
            #[cfg(unix)]
            Reader::Socket(Some(s)) => Pin::new(s).poll_read(cx, buf),
            #[cfg(unix)]
            Reader::Pipe(None) | Reader::Socket(None) => Poll::Ready(Err(closed())),
            Reader::Blocking(s) => Pin::new(s).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for StdoutWriter {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match &mut self.0 {
            #[cfg(unix)]
            Writer::Queued(q) => q.poll_write(buf),
            Writer::Blocking(s) => Pin::new(s).poll_write(cx, buf),
        }
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.0 {
            #[cfg(unix)]
            Writer::Queued(q) => q.poll_flush(),
            Writer::Blocking(s) => Pin::new(s).poll_flush(cx),
        }
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.0 {
            #[cfg(unix)]
            Writer::Queued(q) => q.poll_shutdown(cx),
            Writer::Blocking(s) => Pin::new(s).poll_shutdown(cx),
        }
    }
}

// Hand the descriptor back in blocking mode: the flag lives on the open file shared with fd 0/1
// (and possibly with a parent shell).
#[cfg(unix)]
impl Drop for StdinReader {
    fn drop(&mut self) {
        match &mut self.0 {
            Reader::Pipe(r) => {
                if let Some(r) = r.take() {
                    let _ = r.into_blocking_fd();
                }
            }
            Reader::Socket(s) => unix::restore_socket(s.take()),
            Reader::Blocking(_) => {}
        }
    }
}

// The writer's queue hands its descriptor back blocking when it is dropped (`outbox`).
