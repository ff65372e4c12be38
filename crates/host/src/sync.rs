//! The host's one policy for a poisoned lock: recover, never skip.
//!
//! Every lock in this crate guards a map or a queue that each critical section changes in one
//! step (an insert, a remove, a whole input applied to the record), so a panic on another
//! thread while it was held leaves the data as consistent as before that step. Skipping the
//! work instead would lose an answer, a route or a cancellation silently; recovering keeps the
//! host serving, and the panic itself is reported where it happened.
//!
//! `cargo xtask tidy` keeps every `.lock()` of the host's sources in this file.

use std::sync::{Mutex, MutexGuard, PoisonError};

/// Locks `mutex`, recovering its data if a panic elsewhere poisoned it.
pub(crate) fn lock<T: ?Sized>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
