//! Stdout on the reactor, with a queue for what the pipe cannot take yet.
//!
//! rmcp hands the transport one message at a time, under a lock, and spawns a task for every
//! message it sends. When the client reads more slowly than the server writes (a burst of tool
//! calls, each pushing an `elicitation/create`), every message waiting for the pipe keeps that
//! task and the message itself alive, ≈ 3 KiB for a form request, until the pipe takes it. Here a
//! write the pipe cannot take at once is queued as bytes (≈ 0.5 KiB for the same request), the
//! write returns, and a task of its own writes the queue out as the pipe drains. To rmcp the
//! queue is a larger pipe buffer. When nothing is queued, a write goes straight to the pipe as
//! before, with no task in between.
//!
//! The queue has no bound of its own: rmcp spawns a task per outgoing message without one, so a
//! client that stops reading makes the server grow either way; queued bytes are the cheaper form.
//! A write error (the client went away) is returned by the next write or flush. When the writer is
//! dropped with bytes still queued, they are written out before the descriptor is handed back, for
//! at most [`PATIENCE`] (rmcp drops its transport without flushing it).

use std::io;
use std::os::fd::OwnedFd;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use tokio::io::AsyncWrite;

/// How long dropping the writer may wait for a client to read what is still queued.
pub(super) const PATIENCE: Duration = Duration::from_secs(5);

/// A queue emptied of more than this gives its memory back.
const KEEP_CAPACITY: usize = 64 * 1024;

/// The descriptor behind stdout, registered with the reactor.
#[derive(Debug)]
pub(super) enum Sink {
    Pipe(tokio::net::unix::pipe::Sender),
    Socket(tokio::net::UnixStream),
}

impl Sink {
    /// A write that never waits and never registers a waker.
    fn try_write(&self, data: &[u8]) -> io::Result<usize> {
        match self {
            Sink::Pipe(p) => p.try_write(data),
            Sink::Socket(s) => s.try_write(data),
        }
    }

    fn poll_write(&mut self, cx: &mut Context<'_>, data: &[u8]) -> Poll<io::Result<usize>> {
        match self {
            Sink::Pipe(p) => Pin::new(p).poll_write(cx, data),
            Sink::Socket(s) => Pin::new(s).poll_write(cx, data),
        }
    }

    fn poll_shutdown(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self {
            Sink::Pipe(p) => Pin::new(p).poll_shutdown(cx),
            Sink::Socket(s) => Pin::new(s).poll_shutdown(cx),
        }
    }

    /// Leaves the reactor, writes `rest` (waiting for the reader at most until `deadline`), and
    /// makes the descriptor blocking again: the flag belongs to the open file shared with fd 1.
    fn finish(self, rest: &[u8], deadline: Instant) {
        let fd: io::Result<OwnedFd> = match self {
            Sink::Pipe(p) => p.into_nonblocking_fd(),
            Sink::Socket(s) => s.into_std().map(OwnedFd::from),
        };
        let Ok(fd) = fd else { return };
        let mut rest = rest;
        while !rest.is_empty() {
            match rustix::io::write(&fd, rest) {
                Ok(0) => break,
                Ok(n) => rest = rest.get(n..).unwrap_or_default(),
                Err(rustix::io::Errno::INTR) => {}
                Err(rustix::io::Errno::AGAIN) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(1));
                }
                Err(e) => {
                    tracing::debug!("stdio transport: {} bytes not written: {e}", rest.len());
                    break;
                }
            }
        }
        let _ = rustix::io::ioctl_fionbio(&fd, false);
    }
}

#[derive(Debug, Default)]
struct State {
    /// `None` once the writer is gone.
    sink: Option<Sink>,
    /// Bytes accepted; those before `written` are on the wire already.
    queue: Vec<u8>,
    written: usize,
    /// A task is writing the queue out.
    draining: bool,
    /// Why the queue could not be written, for the next write or flush.
    error: Option<io::Error>,
    /// A shutdown waiting for the queue to empty.
    idle: Option<Waker>,
}

impl State {
    fn queued(&self) -> usize {
        self.queue.len() - self.written
    }

    /// The queue is empty: give its memory back if it grew large, and wake a waiting shutdown.
    fn emptied(&mut self) {
        if self.queue.capacity() > KEEP_CAPACITY {
            self.queue = Vec::new();
        } else {
            self.queue.clear();
        }
        self.written = 0;
        self.draining = false;
        if let Some(waker) = self.idle.take() {
            waker.wake();
        }
    }
}

/// Stdout's side of [`super::StdoutWriter`] for pipes and sockets.
#[derive(Debug)]
pub(super) struct Outbox {
    state: Arc<Mutex<State>>,
    runtime: tokio::runtime::Handle,
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    // Nothing here panics while holding the lock; should it ever, the state is still whole.
    state
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Outbox {
    /// Takes over `sink`. Must be called within a tokio runtime (the queue is written by a task
    /// of that runtime).
    pub(super) fn new(sink: Sink) -> Self {
        Outbox {
            state: Arc::new(Mutex::new(State {
                sink: Some(sink),
                ..State::default()
            })),
            runtime: tokio::runtime::Handle::current(),
        }
    }

    pub(super) fn poll_write(&self, data: &[u8]) -> Poll<io::Result<usize>> {
        let mut state = lock(&self.state);
        if let Some(e) = state.error.take() {
            return Poll::Ready(Err(e));
        }
        let mut rest = data;
        if state.queued() == 0 {
            let Some(sink) = state.sink.as_ref() else {
                return Poll::Ready(Err(super::closed()));
            };
            match sink.try_write(data) {
                Ok(n) if n == data.len() => return Poll::Ready(Ok(n)),
                Ok(n) => rest = data.get(n..).unwrap_or_default(),
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted
                    ) => {}
                Err(e) => return Poll::Ready(Err(e)),
            }
        }
        state.queue.extend_from_slice(rest);
        if !state.draining {
            state.draining = true;
            let queue = self.state.clone();
            drop(state);
            self.runtime
                .spawn(std::future::poll_fn(move |cx| drain(&queue, cx)));
        }
        Poll::Ready(Ok(data.len()))
    }

    /// Flushing hands the bytes to the queue's task (as a pipe's buffer would take them); what
    /// went wrong writing them earlier is reported here.
    pub(super) fn poll_flush(&self) -> Poll<io::Result<()>> {
        match lock(&self.state).error.take() {
            Some(e) => Poll::Ready(Err(e)),
            None => Poll::Ready(Ok(())),
        }
    }

    /// Waits for the queue to be written, then shuts the descriptor down.
    pub(super) fn poll_shutdown(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let mut state = lock(&self.state);
        if let Some(e) = state.error.take() {
            return Poll::Ready(Err(e));
        }
        if state.queued() > 0 {
            state.idle = Some(cx.waker().clone());
            return Poll::Pending;
        }
        match state.sink.as_mut() {
            Some(sink) => sink.poll_shutdown(cx),
            None => Poll::Ready(Ok(())),
        }
    }
}

impl Drop for Outbox {
    fn drop(&mut self) {
        let (sink, rest) = {
            let mut state = lock(&self.state);
            let rest = std::mem::take(&mut state.queue);
            let written = std::mem::take(&mut state.written);
            state.draining = false;
            (
                state.sink.take(),
                rest.get(written..).unwrap_or_default().to_vec(),
            )
        };
        if let Some(sink) = sink {
            sink.finish(&rest, Instant::now() + PATIENCE);
        }
    }
}

/// The queue's task: writes until the queue is empty (or the writer is gone, or a write fails).
fn drain(state: &Mutex<State>, cx: &mut Context<'_>) -> Poll<()> {
    let mut guard = lock(state);
    let state = &mut *guard;
    loop {
        if state.queued() == 0 {
            state.emptied();
            return Poll::Ready(());
        }
        let Some(sink) = state.sink.as_mut() else {
            // Dropped: the writer wrote the rest itself.
            state.draining = false;
            return Poll::Ready(());
        };
        let pending = state.queue.get(state.written..).unwrap_or_default();
        match sink.poll_write(cx, pending) {
            Poll::Ready(Ok(0)) => {
                state.error = Some(io::ErrorKind::WriteZero.into());
            }
            Poll::Ready(Ok(n)) => {
                state.written += n;
                // Drop what is written once it is most of the queue (amortized moves).
                let written = state.written;
                if written > KEEP_CAPACITY && written * 2 > state.queue.len() {
                    state.queue.drain(..written);
                    state.written = 0;
                }
                continue;
            }
            Poll::Ready(Err(e)) if e.kind() == io::ErrorKind::Interrupted => continue,
            Poll::Ready(Err(e)) => state.error = Some(e),
            Poll::Pending => return Poll::Pending,
        }
        // A write failed: nothing queued can be delivered any more.
        tracing::debug!("stdio transport: writing stdout failed: {:?}", state.error);
        state.queue = Vec::new();
        state.emptied();
        return Poll::Ready(());
    }
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    use super::*;

    /// A message of `len` bytes numbered `n`, ending in a newline.
    fn message(n: usize, len: usize) -> Vec<u8> {
        let mut m = format!("{n:08}").into_bytes();
        m.resize(len - 1, b'.');
        m.push(b'\n');
        m
    }

    /// Reads everything from `rx` on a thread of its own, after `delay`.
    fn read_all(
        rx: tokio::net::unix::pipe::Receiver,
        delay: Duration,
    ) -> std::thread::JoinHandle<Vec<u8>> {
        let fd = rx.into_blocking_fd().expect("blocking fd");
        std::thread::spawn(move || {
            std::thread::sleep(delay);
            let mut out = Vec::new();
            std::fs::File::from(fd).read_to_end(&mut out).expect("read");
            out
        })
    }

    #[tokio::test]
    async fn writes_never_wait_for_the_reader_and_keep_their_order() {
        let (tx, rx) = tokio::net::unix::pipe::pipe().expect("pipe");
        let outbox = Outbox::new(Sink::Pipe(tx));
        // 4 MiB, far more than a pipe holds, with nobody reading yet.
        let sent: Vec<u8> = (0..8192).flat_map(|n| message(n, 512)).collect();
        for chunk in sent.chunks(512) {
            match outbox.poll_write(chunk) {
                Poll::Ready(Ok(n)) => assert_eq!(n, chunk.len()),
                other => panic!("a write waited or failed: {other:?}"),
            }
            assert!(matches!(outbox.poll_flush(), Poll::Ready(Ok(()))));
        }
        assert!(lock(&outbox.state).queued() > 0, "the pipe took it all");
        let reader = read_all(rx, Duration::ZERO);
        std::future::poll_fn(|cx| outbox.poll_shutdown(cx))
            .await
            .expect("shutdown");
        drop(outbox);
        assert!(
            reader.join().expect("reader") == sent,
            "bytes lost or reordered"
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn dropping_the_writer_writes_what_is_queued() {
        let (tx, rx) = tokio::net::unix::pipe::pipe().expect("pipe");
        let outbox = Outbox::new(Sink::Pipe(tx));
        let sent: Vec<u8> = (0..2048).flat_map(|n| message(n, 512)).collect();
        for chunk in sent.chunks(512) {
            assert!(matches!(outbox.poll_write(chunk), Poll::Ready(Ok(_))));
        }
        // The reader starts late: dropping waits for it (as rmcp drops its transport without a
        // shutdown when a session ends).
        let reader = read_all(rx, Duration::from_millis(200));
        drop(outbox);
        assert!(
            reader.join().expect("reader") == sent,
            "bytes lost or reordered"
        );
    }

    #[tokio::test]
    async fn a_reader_gone_is_reported_by_a_later_write() {
        let (tx, rx) = tokio::net::unix::pipe::pipe().expect("pipe");
        let outbox = Outbox::new(Sink::Pipe(tx));
        let big = message(0, 1 << 20);
        assert!(matches!(outbox.poll_write(&big), Poll::Ready(Ok(_))));
        drop(rx);
        // The queue's task meets the closed pipe; the next write or flush says so.
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            tokio::time::sleep(Duration::from_millis(5)).await;
            match outbox.poll_write(b"more\n") {
                Poll::Ready(Err(e)) => {
                    assert_eq!(e.kind(), io::ErrorKind::BrokenPipe, "{e}");
                    break;
                }
                _ => assert!(Instant::now() < deadline, "no error after the reader left"),
            }
        }
    }
}
