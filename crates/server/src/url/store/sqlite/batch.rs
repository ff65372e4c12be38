//! How [`SqliteStore`] runs its calls: a call made while the connection is free runs at once; a
//! call made while another runs joins a queue, and whoever holds the connection runs the whole
//! queue in one transaction with one commit (group commit), then answers each caller.
//!
//! Not here: what a call does (the statements are `sqlite.rs`', `flows.rs`' and `tasks.rs`');
//! no thread of its own, no timer: a batch runs on the thread of the caller that holds the
//! connection.

use std::sync::{MutexGuard, PoisonError, TryLockError};

use rusqlite::Connection;
use tokio::sync::oneshot;

use super::super::{StoreError, StoreFuture};
use super::{SqliteStore, execute};

/// One call, to run with the connection.
pub(super) struct Job {
    /// Whether it may change the file (a batch of reads needs no transaction).
    writes: bool,
    run: Box<dyn FnOnce(&Connection) -> Deliver + Send>,
}

/// Hands one call's result to its caller, once the batch it ran in is committed — or failed to
/// be (`Some(error)`: its changes are gone, and so is what it read of the batch's).
pub(super) type Deliver = Box<dyn FnOnce(Option<&rusqlite::Error>) + Send>;

/// Runs `batch`: one call alone as it is (its statements commit themselves); several in one
/// transaction, answered after the commit.
fn run_batch(conn: &Connection, batch: Vec<Job>) {
    if !conn.is_autocommit() {
        let _ = execute(conn, "ROLLBACK", []);
    }
    let writes = batch.iter().filter(|job| job.writes).count();
    // If the transaction cannot begin (another process held the lock too long), each call runs
    // on its own and meets the same lock, with its own error.
    let in_transaction = writes > 1
        && match execute(conn, "BEGIN IMMEDIATE", []) {
            Ok(_) => true,
            Err(e) => {
                tracing::warn!("the flow store cannot begin a transaction: {e}");
                false
            }
        };
    let deliveries: Vec<Deliver> = batch.into_iter().map(|job| (job.run)(conn)).collect();
    let failed = if in_transaction {
        execute(conn, "COMMIT", []).err()
    } else {
        None
    };
    if let Some(e) = &failed {
        tracing::error!("the flow store cannot commit: {e}");
        if !conn.is_autocommit() {
            let _ = execute(conn, "ROLLBACK", []);
        }
    }
    for deliver in deliveries {
        deliver(failed.as_ref());
    }
}

impl SqliteStore {
    /// Queues `work` and runs the queue if the connection is free; its result arrives once the
    /// batch it ran in is committed.
    pub(super) fn call<T: Send + 'static>(
        &self,
        writes: bool,
        work: impl FnOnce(&Connection) -> Result<T, StoreError> + Send + 'static,
    ) -> StoreFuture<'static, T> {
        let (reply, answer) = oneshot::channel();
        let run = Box::new(move |conn: &Connection| -> Deliver {
            let result = work(conn);
            Box::new(move |failed: Option<&rusqlite::Error>| {
                let result = match failed {
                    Some(e) => Err(StoreError::Backend(
                        format!("the transaction was not committed: {e}").into(),
                    )),
                    None => result,
                };
                // The caller may have stopped waiting; its changes stand all the same.
                let _ = reply.send(result);
            })
        });
        self.queue().push(Job { writes, run });
        self.combine();
        Box::pin(async move { answer.await.unwrap_or(Err(StoreError::Stopped)) })
    }

    fn queue(&self) -> MutexGuard<'_, Vec<Job>> {
        // Pushing and taking cannot panic half-way: the queue is whole.
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs the queue while the connection is free and the queue is not empty. A caller that
    /// finds the connection taken leaves: its call was queued before it looked, and whoever
    /// holds the connection looks at the queue again after letting go, so no call is left
    /// behind.
    fn combine(&self) {
        loop {
            let conn = match self.conn.try_lock() {
                Ok(conn) => conn,
                // A panic mid-batch left no transaction open that the next batch would join:
                // `run_batch` begins with a rollback of anything left over.
                Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
                Err(TryLockError::WouldBlock) => return,
            };
            let batch = std::mem::take(&mut *self.queue());
            if batch.is_empty() {
                return;
            }
            run_batch(&conn, batch);
            drop(conn);
            if self.queue().is_empty() {
                return;
            }
        }
    }
}
