//! The [`Surface`] half of the terminal surface: the host's core calls it, and it only
//! forwards what it is told over a channel to the one thread that owns the terminal.
//!
//! It never blocks and never touches the terminal (the host's core must stay responsive while a
//! person takes their time). The terminal thread reads the channel through [`Events`], which
//! also keeps track of which requests are still waiting, for the "1 more waiting" line.

use std::collections::{BTreeSet, VecDeque};
use std::sync::mpsc;
use std::time::Duration;

use interlude_engine::{ElicitationView, Notice, Reply, RequestId};
use interlude_host::{AnswerSink, CallOutcome, Surface};
use interlude_schema::FieldError;

/// What the terminal thread is told.
#[derive(Debug)]
pub(crate) enum UiEvent {
    /// A request joined the queue.
    Queued(RequestId),
    /// Show this request now; answer through the sink.
    Present(Box<ElicitationView>, AnswerSink),
    /// The answer to `id` was refused by the engine.
    Invalid(RequestId, Vec<FieldError>),
    /// The request went away unanswered.
    Closed(RequestId, Notice),
    /// The reply to the request left for the server.
    Replied(RequestId, Reply),
    /// Tool call number `.0` finished (the error as the person should read it).
    CallDone(u64, Result<CallOutcome, String>),
    /// Ctrl-C while no prompt was on screen.
    Interrupt,
}

/// The surface the host drives: a sender and nothing else.
#[derive(Debug)]
pub(crate) struct TerminalSurface {
    tx: mpsc::Sender<UiEvent>,
}

impl TerminalSurface {
    pub(crate) fn new(tx: mpsc::Sender<UiEvent>) -> Self {
        TerminalSurface { tx }
    }

    fn send(&self, event: UiEvent) {
        // The terminal thread is gone only when the session is over; nothing left to tell.
        let _ = self.tx.send(event);
    }
}

impl Surface for TerminalSurface {
    fn queued(&mut self, view: &ElicitationView) {
        self.send(UiEvent::Queued(view.id));
    }

    fn present(&mut self, view: ElicitationView, sink: &AnswerSink) {
        self.send(UiEvent::Present(Box::new(view), sink.clone()));
    }

    fn invalid(&mut self, id: RequestId, errors: &[FieldError], _sink: &AnswerSink) {
        self.send(UiEvent::Invalid(id, errors.to_vec()));
    }

    fn closed(&mut self, id: RequestId, notice: &Notice) {
        self.send(UiEvent::Closed(id, notice.clone()));
    }

    fn replied(&mut self, id: RequestId, reply: &Reply) {
        self.send(UiEvent::Replied(id, reply.clone()));
    }
}

/// What happened to the request being answered, as far as the terminal thread has heard.
#[derive(Debug)]
pub(crate) enum Outcome {
    /// The reply went to the server.
    Replied(Reply),
    /// The engine refused the answer; the request is still open.
    Invalid(Vec<FieldError>),
    /// The request went away.
    Closed(Notice),
}

/// The terminal thread's end of the channel, with the bookkeeping of waiting requests.
#[derive(Debug)]
pub(crate) struct Events {
    rx: mpsc::Receiver<UiEvent>,
    /// Requests admitted and not yet finished (the presented one included).
    open: BTreeSet<RequestId>,
    /// Events read early (while looking for something else) and not yet handled.
    backlog: VecDeque<UiEvent>,
    /// Notices about requests that closed while waiting in the queue, to show at a calm moment.
    notices: Vec<Notice>,
}

impl Events {
    pub(crate) fn new(rx: mpsc::Receiver<UiEvent>) -> Self {
        Events {
            rx,
            open: BTreeSet::new(),
            backlog: VecDeque::new(),
            notices: Vec::new(),
        }
    }

    /// How many requests wait behind `current`.
    pub(crate) fn waiting_behind(&self, current: RequestId) -> usize {
        self.open.iter().filter(|id| **id != current).count()
    }

    /// Notices about queued requests that went away, taken once.
    pub(crate) fn take_notices(&mut self) -> Vec<Notice> {
        std::mem::take(&mut self.notices)
    }

    /// Book-keeps `event`; returns it when the caller has to act on it.
    fn note(&mut self, event: UiEvent) -> Option<UiEvent> {
        match event {
            UiEvent::Queued(id) => {
                self.open.insert(id);
                None
            }
            UiEvent::Replied(id, reply) => {
                self.open.remove(&id);
                Some(UiEvent::Replied(id, reply))
            }
            UiEvent::Closed(id, notice) => {
                self.open.remove(&id);
                Some(UiEvent::Closed(id, notice))
            }
            other => Some(other),
        }
    }

    /// The next event to act on, waiting for it. `None` when the host is gone.
    pub(crate) fn next(&mut self) -> Option<UiEvent> {
        if let Some(e) = self.backlog.pop_front() {
            return Some(e);
        }
        loop {
            let event = self.rx.recv().ok()?;
            if let Some(e) = self.note(event) {
                return Some(e);
            }
        }
    }

    /// Like [`Events::next`] but gives up after `timeout` (`Ok(None)`); `Err(())` when the host
    /// is gone.
    pub(crate) fn next_timeout(&mut self, timeout: Duration) -> Result<Option<UiEvent>, ()> {
        if let Some(e) = self.backlog.pop_front() {
            return Ok(Some(e));
        }
        let deadline = std::time::Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(event) => {
                    if let Some(e) = self.note(event) {
                        return Ok(Some(e));
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => return Ok(None),
                Err(mpsc::RecvTimeoutError::Disconnected) => return Err(()),
            }
        }
    }

    /// Reads whatever arrived without waiting; returns the notice if request `id` was closed.
    /// Everything else is kept for later, in order.
    pub(crate) fn poll_closed(&mut self, id: RequestId) -> Option<Notice> {
        let mut found = None;
        while let Ok(event) = self.rx.try_recv() {
            match self.note(event) {
                Some(UiEvent::Closed(cid, notice)) if cid == id => found = Some(notice),
                Some(UiEvent::Closed(_, notice)) => self.notices.push(notice),
                // Ctrl-C between two prompts: the prompts handle their own.
                Some(UiEvent::Interrupt) | None => {}
                Some(other) => self.backlog.push_back(other),
            }
        }
        // A closing seen earlier and kept in the backlog counts too.
        if found.is_none()
            && let Some(pos) = self
                .backlog
                .iter()
                .position(|e| matches!(e, UiEvent::Closed(cid, _) if *cid == id))
            && let Some(UiEvent::Closed(_, notice)) = self.backlog.remove(pos)
        {
            found = Some(notice);
        }
        found
    }

    /// Waits for what became of request `id` after an answer was sent. Events about other
    /// things are kept for later.
    pub(crate) fn outcome(&mut self, id: RequestId) -> Option<Outcome> {
        if let Some(pos) = self.backlog.iter().position(|e| concerns(e, id)) {
            return self.backlog.remove(pos).and_then(|e| as_outcome(e, id));
        }
        loop {
            let event = self.rx.recv().ok()?;
            let Some(event) = self.note(event) else {
                continue;
            };
            if concerns(&event, id) {
                return as_outcome(event, id);
            }
            match event {
                UiEvent::Closed(_, notice) => self.notices.push(notice),
                UiEvent::Interrupt => {}
                other => self.backlog.push_back(other),
            }
        }
    }
}

fn concerns(event: &UiEvent, id: RequestId) -> bool {
    matches!(event,
        UiEvent::Replied(i, _) | UiEvent::Invalid(i, _) | UiEvent::Closed(i, _) if *i == id)
}

fn as_outcome(event: UiEvent, id: RequestId) -> Option<Outcome> {
    match event {
        UiEvent::Replied(i, reply) if i == id => Some(Outcome::Replied(reply)),
        UiEvent::Invalid(i, errors) if i == id => Some(Outcome::Invalid(errors)),
        UiEvent::Closed(i, notice) if i == id => Some(Outcome::Closed(notice)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closing_is_found_between_prompts_and_the_rest_kept() {
        let (tx, rx) = mpsc::channel();
        let mut events = Events::new(rx);
        let a = RequestId(1);
        let b = RequestId(2);
        tx.send(UiEvent::Queued(a)).unwrap();
        tx.send(UiEvent::Queued(b)).unwrap();
        tx.send(UiEvent::Interrupt).unwrap();
        tx.send(UiEvent::CallDone(7, Err("boom".into()))).unwrap();
        assert!(events.poll_closed(a).is_none());
        assert_eq!(events.waiting_behind(a), 1);
        tx.send(UiEvent::Closed(
            a,
            Notice {
                server: "s".into(),
                text: "gone".into(),
            },
        ))
        .unwrap();
        assert_eq!(events.poll_closed(a).unwrap().text, "gone");
        assert_eq!(events.waiting_behind(a), 1);
        // The interrupt between prompts was dropped; the call's end was kept.
        assert!(matches!(events.next(), Some(UiEvent::CallDone(7, _))));
    }

    #[test]
    fn outcome_skips_unrelated_events() {
        let (tx, rx) = mpsc::channel();
        let mut events = Events::new(rx);
        tx.send(UiEvent::Interrupt).unwrap();
        tx.send(UiEvent::Replied(RequestId(3), Reply::Decline))
            .unwrap();
        assert!(matches!(
            events.outcome(RequestId(3)),
            Some(Outcome::Replied(Reply::Decline))
        ));
    }
}
