//! A deadline that counts only active time: it stops running while a person is being asked
//! something on the same connection, and resumes when they have answered.
//!
//! Why: a tool call that elicits is waiting for a human, and a human must never lose their
//! answer because a machine timeout ran out while they were typing (the MCP Inspector's
//! 60-second failure). Push-era requests carry no reliable link to the tool call that raised
//! them, so the pause is per connection.

use std::time::Duration;

use tokio::sync::watch;
use tokio::time::Instant;

/// Counts the requests to a person pending on one connection.
#[derive(Debug, Clone)]
pub(crate) struct PauseGate {
    tx: watch::Sender<usize>,
}

/// Decrements the gate when dropped.
pub(crate) struct PauseGuard {
    tx: watch::Sender<usize>,
}

impl Drop for PauseGuard {
    fn drop(&mut self) {
        self.tx.send_modify(|n| *n = n.saturating_sub(1));
    }
}

impl PauseGate {
    pub(crate) fn new() -> Self {
        PauseGate {
            tx: watch::Sender::new(0),
        }
    }

    /// Marks one request to a person as pending until the guard drops.
    pub(crate) fn pause(&self) -> PauseGuard {
        self.tx.send_modify(|n| *n += 1);
        PauseGuard {
            tx: self.tx.clone(),
        }
    }

    /// Runs `fut`, failing with `Err(())` once it has been running for `budget` of unpaused time.
    pub(crate) async fn run_with_active_timeout<F: std::future::Future>(
        &self,
        budget: Duration,
        fut: F,
    ) -> Result<F::Output, ()> {
        let mut rx = self.tx.subscribe();
        let mut remaining = budget;
        tokio::pin!(fut);
        loop {
            // Wait while paused.
            while *rx.borrow_and_update() > 0 {
                tokio::select! {
                    out = &mut fut => return Ok(out),
                    changed = rx.changed() => if changed.is_err() { break },
                }
            }
            let started = Instant::now();
            tokio::select! {
                out = &mut fut => return Ok(out),
                () = tokio::time::sleep(remaining) => return Err(()),
                changed = rx.changed() => {
                    remaining = remaining.saturating_sub(started.elapsed());
                    if changed.is_err() {
                        // The gate is gone; keep the clock running without pauses.
                        return tokio::time::timeout(remaining, fut).await.map_err(|_| ());
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn pause_stops_the_clock() {
        let gate = PauseGate::new();
        let g2 = gate.clone();
        let work = async move {
            tokio::time::sleep(Duration::from_millis(50)).await;
            let guard = g2.pause();
            tokio::time::sleep(Duration::from_secs(10)).await; // a person answering
            drop(guard);
            tokio::time::sleep(Duration::from_millis(50)).await;
            "done"
        };
        let out = gate
            .run_with_active_timeout(Duration::from_millis(200), work)
            .await;
        assert_eq!(out, Ok("done"));
    }

    #[tokio::test(start_paused = true)]
    async fn unpaused_work_times_out() {
        let gate = PauseGate::new();
        let work = tokio::time::sleep(Duration::from_secs(1));
        let out = gate
            .run_with_active_timeout(Duration::from_millis(200), work)
            .await;
        assert_eq!(out, Err(()));
    }
}
