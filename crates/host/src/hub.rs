//! The hub: one queue of inputs and one core that handles them, one at a time.
//!
//! Whoever appends an input and finds the core free drains the queue then and there, in order;
//! whoever finds it busy leaves the input to the caller draining it. So the core runs
//! single-threaded and the order of events is total — the audit log, the record of servers and
//! calls, the queue and the surface always agree — without a task of its own: a request reaches
//! the engine, and a scripted or already-given answer comes back, with no hop between tasks (at
//! 32 concurrent calls a dedicated task cost a fifth of the throughput).
//!
//! Around the queue, what every room of the runtime shares to reach the core: the one closed
//! enum of inputs ([`inputs`]), the handle every connection and call holds ([`shared`]), the
//! surface boundary ([`surface`]), the host's settings and errors ([`config`]), the pause gate of
//! call timeouts ([`timer`]), the era memory ([`eras`]), host-name lookups ([`resolve`]) and the roots the host offers
//! ([`roots`]).
//!
//! What it does not do: know what an input means (the core, `host/core.rs`, does), talk to a
//! server, or open a view.

pub(crate) mod config;
pub(crate) mod eras;
pub(crate) mod inputs;
pub(crate) mod resolve;
pub(crate) mod roots;
pub(crate) mod shared;
pub(crate) mod surface;
pub(crate) mod timer;

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard, TryLockError, Weak};

use crate::hub::inputs::HostInput;

/// What handles one input with the core locked (the core's state lives in the closure).
pub(crate) type Handler = Box<dyn FnMut(HostInput, &Weak<Hub>) + Send>;

/// The queue of inputs and the one core that handles them.
pub(crate) struct Hub {
    queue: Mutex<VecDeque<HostInput>>,
    core: Mutex<Handler>,
    me: Weak<Hub>,
}

impl Hub {
    pub(crate) fn new(handler: Handler) -> Hub {
        Hub {
            queue: Mutex::new(VecDeque::new()),
            core: Mutex::new(handler),
            me: Weak::new(),
        }
    }

    pub(crate) fn start(handler: Handler) -> Arc<Hub> {
        Arc::new_cyclic(|me| Hub {
            me: me.clone(),
            ..Hub::new(handler)
        })
    }

    fn queue(&self) -> MutexGuard<'_, VecDeque<HostInput>> {
        crate::sync::lock(&self.queue)
    }

    /// Appends `input` and, when no one else is handling inputs, handles the queue to the end.
    ///
    /// Whoever holds the core drains the queue and then, after releasing the core, looks again:
    /// an input appended after its last look found the core still held (so its submitter left
    /// it) and is picked up here. Inputs submitted from inside a callback (a surface answering
    /// at once) find the core held by their own caller and wait for the drain they are part of.
    pub(crate) fn submit(&self, input: HostInput) {
        self.queue().push_back(input);
        loop {
            let mut core = match self.core.try_lock() {
                Ok(core) => core,
                Err(TryLockError::WouldBlock) => return,
                Err(TryLockError::Poisoned(p)) => p.into_inner(),
            };
            loop {
                let next = self.queue().pop_front();
                let Some(input) = next else { break };
                core(input, &self.me);
            }
            drop(core);
            if self.queue().is_empty() {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use interlude_engine::{Input, RequestId};
    use std::sync::atomic::Ordering;

    fn withdraw(id: u64) -> HostInput {
        HostInput::Engine(Input::Withdraw {
            id: RequestId(id),
            reason: String::new(),
        })
    }

    fn id_of(input: &HostInput) -> u64 {
        match input {
            HostInput::Engine(Input::Withdraw { id, .. } | Input::Answer { id, .. }) => id.0,
            _ => u64::MAX,
        }
    }

    /// Eight threads submit at once: every input is handled exactly once, never two at a time,
    /// and each thread's inputs in the order it submitted them.
    #[test]
    fn concurrent_submissions_are_all_handled_once_in_order() {
        const THREADS: u64 = 8;
        const EACH: u64 = 5_000;
        let seen = Arc::new(Mutex::new(Vec::new()));
        let busy = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (log, flag) = (seen.clone(), busy.clone());
        let hub = Hub::start(Box::new(move |input, _: &Weak<Hub>| {
            assert!(
                !flag.swap(true, Ordering::SeqCst),
                "two inputs handled at once"
            );
            log.lock().unwrap().push(id_of(&input));
            flag.store(false, Ordering::SeqCst);
        }));
        let threads: Vec<_> = (0..THREADS)
            .map(|t| {
                let hub = hub.clone();
                std::thread::spawn(move || {
                    for i in 0..EACH {
                        hub.submit(withdraw(t * EACH + i));
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        let seen = seen.lock().unwrap();
        assert_eq!(seen.len() as u64, THREADS * EACH, "an input was lost");
        for t in 0..THREADS {
            let mine: Vec<u64> = seen.iter().copied().filter(|id| id / EACH == t).collect();
            let expected: Vec<u64> = (t * EACH..(t + 1) * EACH).collect();
            assert_eq!(
                mine, expected,
                "thread {t}'s inputs out of order or duplicated"
            );
        }
    }

    /// A callback that submits (a surface answering at once) neither deadlocks nor jumps the
    /// queue: its input is handled after the one being handled.
    #[test]
    fn inputs_submitted_from_a_callback_follow_the_current_one() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        let hub = Hub::start(Box::new(move |input, hub: &Weak<Hub>| {
            let id = id_of(&input);
            log.lock().unwrap().push(id);
            if id < 3
                && let Some(hub) = hub.upgrade()
            {
                hub.submit(withdraw(id + 10));
                log.lock().unwrap().push(100 + id);
            }
        }));
        hub.submit(withdraw(1));
        hub.submit(withdraw(2));
        assert_eq!(*seen.lock().unwrap(), [1, 101, 11, 2, 102, 12]);
    }
}
