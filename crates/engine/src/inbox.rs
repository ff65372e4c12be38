//! The inbox: which requests are pending, which one is presented, and the order of the rest.
//!
//! Invariants:
//! - at most one request is presented at a time; the others wait in arrival order, across
//!   servers and eras;
//! - a pending request keeps only what judging its answer needs ([`Check`]); the view itself
//!   went to the driver when it was queued.
//!
//! What it does not do: decide what is admitted or whether an answer is valid (see
//! `engine.rs`), or produce effects.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use interlude_schema::FormSchema;

use crate::engine::{CallId, RequestId, ServerId, ViewId};
use crate::request::UrlStage;
use crate::url_safety::UrlCheck;

/// What an answer to a pending request is checked against, per kind of request.
#[derive(Debug)]
pub(crate) enum Check {
    /// A form: accepted content must validate (after defaults).
    Form(Arc<FormSchema>),
    /// A link: accepting is consent (no content), and the link's host name is looked up before
    /// anything is opened.
    Url(Box<UrlPending>),
}

/// What a pending URL request keeps.
#[derive(Debug)]
pub(crate) struct UrlPending {
    pub(crate) url: String,
    pub(crate) elicitation_id: Option<String>,
    pub(crate) call: Option<CallId>,
    pub(crate) check: UrlCheck,
    pub(crate) stage: UrlStage,
    /// The person consented and the host name is being looked up.
    pub(crate) resolving: bool,
}

/// One pending request.
#[derive(Debug)]
pub(crate) struct Pending {
    pub(crate) server: ServerId,
    pub(crate) server_name: String,
    pub(crate) check: Check,
    /// For a form shown in its server's app view: where that stands.
    pub(crate) app: Option<Box<AppPending>>,
}

/// What a pending app-rendered form keeps (SEP-3118).
#[derive(Debug)]
pub(crate) struct AppPending {
    /// The request's params as the server sent them, for the view.
    pub(crate) params: serde_json::Value,
    /// The view bound to it, once its bridge is open.
    pub(crate) view: Option<ViewId>,
    /// It was presented to the person (the view's start deadline runs from then).
    pub(crate) shown: bool,
    /// The view was given up on: the plain form is shown.
    pub(crate) fallen_back: bool,
}

/// Pending requests, the queue and the presented one.
#[derive(Debug, Default)]
pub(crate) struct Inbox {
    pending: HashMap<RequestId, Pending>,
    queue: VecDeque<RequestId>,
    presented: Option<RequestId>,
}

impl Inbox {
    pub(crate) fn contains(&self, id: RequestId) -> bool {
        self.pending.contains_key(&id)
    }

    pub(crate) fn get(&self, id: RequestId) -> Option<&Pending> {
        self.pending.get(&id)
    }

    pub(crate) fn get_mut(&mut self, id: RequestId) -> Option<&mut Pending> {
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
            .filter(|(_, p)| p.server == server)
            .map(|(id, _)| *id)
            .collect();
        ids.sort();
        ids
    }

    /// Queues an admitted request.
    pub(crate) fn admit(&mut self, id: RequestId, pending: Pending) {
        self.pending.insert(id, pending);
        self.queue.push_back(id);
    }

    /// Removes a request wherever it is.
    pub(crate) fn remove(&mut self, id: RequestId) -> Option<Pending> {
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
