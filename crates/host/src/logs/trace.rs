//! The `--trace` file's writer: every message of the protocol log as a JSON line, written by a
//! thread of its own so that a trace never holds up the host.
//!
//! The protocol log hands each message over as a job (the message is shared, not copied) on a
//! bounded queue; the thread turns it into its line — parsed, redacted, and, over
//! [`MAX_TRACED`], summarised by its method, id and size instead of written whole — and writes
//! it. When the queue is full the message is dropped and counted, never waited for: the next
//! line written says how many were left out. The file is created afresh, mode 0600, never
//! through a symbolic link ([`super::private_file::create_fresh`]).
//!
//! What it deliberately does not do: keep anything in memory beyond the queue, retry a write
//! that failed (it is logged, once), or trace what the protocol log does not see.

use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};

/// The largest message a trace writes whole (64 KiB of JSON); a larger one is summarised.
pub(crate) const MAX_TRACED: usize = 64 * 1024;

/// How many messages may wait for the writer; more are dropped and counted.
const QUEUED: usize = 1024;

/// One message to trace: makes its line (without the newline) on the writer's thread.
pub(crate) type Job = Box<dyn FnOnce() -> Vec<u8> + Send>;

/// The trace of one host (see the module documentation).
pub(crate) struct Trace {
    jobs: Option<SyncSender<Job>>,
    dropped: Arc<AtomicU64>,
    writer: Option<std::thread::JoinHandle<()>>,
}

impl Trace {
    /// Creates `path` afresh and starts its writer.
    pub(crate) fn open(path: &Path) -> std::io::Result<Trace> {
        let file = super::private_file::create_fresh(path)?;
        let (jobs, queue) = sync_channel(QUEUED);
        let dropped = Arc::new(AtomicU64::new(0));
        let writer = {
            let dropped = dropped.clone();
            std::thread::Builder::new()
                .name("interlude-trace".into())
                .spawn(move || write_all(queue, BufWriter::new(file), &dropped))?
        };
        Ok(Trace {
            jobs: Some(jobs),
            dropped,
            writer: Some(writer),
        })
    }

    /// Hands `job` to the writer, at once: dropped (and counted) if the writer is behind.
    pub(crate) fn send(&self, job: Job) {
        let Some(jobs) = &self.jobs else { return };
        match jobs.try_send(job) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) => {
                self.dropped.fetch_add(1, Ordering::Relaxed);
            }
            // The writer stopped (it could not write): nothing more to do.
            Err(TrySendError::Disconnected(_)) => {}
        }
    }
}

impl Drop for Trace {
    /// Lets the writer finish what is queued (a process that ends keeps its whole trace).
    fn drop(&mut self) {
        drop(self.jobs.take());
        if let Some(writer) = self.writer.take() {
            let _ = writer.join();
        }
    }
}

/// The writer thread: each job's line, flushed once nothing more waits.
fn write_all(queue: Receiver<Job>, mut out: BufWriter<std::fs::File>, dropped: &AtomicU64) {
    let mut job = queue.recv().ok();
    while let Some(make) = job {
        let left_out = dropped.swap(0, Ordering::Relaxed);
        let mut written = Ok(());
        if left_out > 0 {
            let note = serde_json::json!({"dropped": left_out,
                "why": "the trace writer was behind; these messages are not in the trace"});
            written = serde_json::to_writer(&mut out, &note)
                .map_err(std::io::Error::other)
                .and_then(|()| out.write_all(b"\n"));
        }
        let line = make();
        written = written
            .and_then(|()| out.write_all(&line))
            .and_then(|()| out.write_all(b"\n"));
        job = match queue.try_recv() {
            Ok(next) => Some(next),
            Err(_) => {
                written = written.and_then(|()| out.flush());
                queue.recv().ok()
            }
        };
        if let Err(e) = written {
            tracing::warn!("cannot write the protocol trace: {e}");
            return;
        }
    }
    let _ = out.flush();
}

/// What a message too large to trace whole becomes: its method and id (read from `bytes`
/// without keeping anything else of it), and its size.
pub(crate) fn summary(bytes: &[u8]) -> serde_json::Value {
    #[derive(serde::Deserialize)]
    struct Glance {
        #[serde(default)]
        id: Option<serde_json::Value>,
        #[serde(default)]
        method: Option<String>,
    }
    let glance: Option<Glance> = serde_json::from_slice(bytes).ok();
    let (id, method) = glance.map_or((None, None), |g| (g.id, g.method));
    serde_json::json!({
        "summarised": format!("{} bytes, over the trace's {MAX_TRACED}", bytes.len()),
        "method": method,
        "id": id,
        "bytes": bytes.len(),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    #[test]
    fn a_large_message_is_summarised_by_method_id_and_size() {
        let big = format!(
            r#"{{"jsonrpc":"2.0","id":7,"method":"elicitation/create","params":{{"message":"{}"}}}}"#,
            "x".repeat(MAX_TRACED)
        );
        let s = summary(big.as_bytes());
        assert_eq!(s["method"], "elicitation/create");
        assert_eq!(s["id"], 7);
        assert_eq!(s["bytes"], big.len());
    }

    #[cfg(unix)]
    #[test]
    fn a_full_queue_drops_and_counts_and_the_file_is_0600() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("interlude-trace-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("trace.jsonl");
        let trace = Trace::open(&path).unwrap();
        // The writer is held up by the first job until every other job has been offered.
        let (go, wait) = std::sync::mpsc::channel::<()>();
        trace.send(Box::new(move || {
            let _ = wait.recv();
            b"{\"first\":true}".to_vec()
        }));
        for i in 0..QUEUED + 50 {
            trace.send(Box::new(move || format!("{{\"n\":{i}}}").into_bytes()));
        }
        go.send(()).unwrap();
        drop(trace);
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        // In order (a note of what was dropped may come first).
        let messages: Vec<_> = lines.iter().filter(|l| l["dropped"].is_null()).collect();
        assert_eq!(messages[0]["first"], true);
        let dropped: u64 = lines.iter().filter_map(|l| l["dropped"].as_u64()).sum();
        let kept = lines.iter().filter(|l| l["n"].is_u64()).count();
        assert!(dropped >= 49, "{dropped}");
        assert_eq!(kept as u64 + dropped, (QUEUED + 50) as u64);
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        std::fs::remove_dir_all(dir).unwrap();
    }
}
