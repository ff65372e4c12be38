//! This crate's one policy for a poisoned lock: recover, never skip (the host's own rule).
//!
//! Every lock here guards a queue or a recording that each critical section changes in one
//! step, so a panic elsewhere while it was held leaves the data as consistent as before that
//! step. What it does not do: time out or detect deadlocks.

use std::sync::{Mutex, MutexGuard, PoisonError};

/// Locks `mutex`, recovering its data if a panic elsewhere poisoned it.
pub(crate) fn lock<T: ?Sized>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
