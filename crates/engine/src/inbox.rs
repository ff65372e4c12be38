//! The inbox: which requests are pending, which one is presented, and the order of the rest.
//!
//! Invariants:
//! - at most one request is presented at a time; the others wait in arrival order, across
//!   servers, kinds and eras;
//! - a pending request keeps only what judging its answer needs (its kind's pending state, in
//!   `kinds.rs`); the request itself went to the driver when it was queued.
//!
//! What it does not do: decide what is admitted or whether an answer is valid (each kind's
//! module does), or produce effects.

use std::collections::VecDeque;

use crate::ids::{RequestId, ServerId};

/// What the inbox needs to know of a pending request: whose it is.
pub(crate) trait FromServer {
    /// The server that asked.
    fn server(&self) -> ServerId;
}

/// Pending requests, the queue and the presented one.
#[derive(Debug)]
pub(crate) struct Inbox<P> {
    pending: crate::ids::IdMap<RequestId, P>,
    queue: VecDeque<RequestId>,
    presented: Option<RequestId>,
}

impl<P> Default for Inbox<P> {
    fn default() -> Self {
        Inbox {
            pending: crate::ids::IdMap::default(),
            queue: VecDeque::new(),
            presented: None,
        }
    }
}

impl<P: FromServer> Inbox<P> {
    pub(crate) fn contains(&self, id: RequestId) -> bool {
        self.pending.contains_key(&id)
    }

    pub(crate) fn get(&self, id: RequestId) -> Option<&P> {
        self.pending.get(&id)
    }

    pub(crate) fn get_mut(&mut self, id: RequestId) -> Option<&mut P> {
        self.pending.get_mut(&id)
    }

    pub(crate) fn presented(&self) -> Option<RequestId> {
        self.presented
    }

    pub(crate) fn pending(&self) -> Vec<RequestId> {
        self.presented
            .iter()
            .chain(self.queue.iter())
            .copied()
            .filter(|id| self.pending.contains_key(id))
            .collect()
    }

    /// The pending requests of `server`, in id order.
    pub(crate) fn of_server(&self, server: ServerId) -> Vec<RequestId> {
        let mut ids: Vec<RequestId> = self
            .pending
            .iter()
            .filter(|(_, p)| p.server() == server)
            .map(|(id, _)| *id)
            .collect();
        ids.sort();
        ids
    }

    /// Queues an admitted request.
    pub(crate) fn admit(&mut self, id: RequestId, pending: P) {
        self.pending.insert(id, pending);
        self.queue.push_back(id);
    }

    /// Removes a request wherever it is.
    pub(crate) fn remove(&mut self, id: RequestId) -> Option<P> {
        if self.presented == Some(id) {
            self.presented = None;
        } else if let Some(pos) = self.queue.iter().position(|q| *q == id) {
            self.queue.remove(pos);
        }
        self.pending.remove(&id)
    }

    /// Presents the next queued request when none is presented; returns it.
    pub(crate) fn present_next(&mut self) -> Option<RequestId> {
        if self.presented.is_some() {
            return None;
        }
        while let Some(next) = self.queue.pop_front() {
            if self.pending.contains_key(&next) {
                self.presented = Some(next);
                return Some(next);
            }
        }
        None
    }
}
